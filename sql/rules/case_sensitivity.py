"""Whether Teradata and T-SQL compare text with or without case, wherever they compare it.

Teradata (SQL Functions, Expressions, and Predicates: "Equality Comparison"): a comparison is
case specific when either operand is CASESPECIFIC and case blind when both are NOT
CASESPECIFIC, and then "any simple Latin letters" of both are converted to uppercase before
comparing. An operand's attribute is the one applied to it (``x (NOT CS)``), else its
column's declared one (``plumbline catalog import`` keeps it), else the session's default:
NOT CASESPECIFIC in Teradata (TERA) mode, CASESPECIFIC in ANSI mode (the
``teradata_session_mode`` assumption, with DBS Control's DefaultCaseSpec at its default).
A case-blind comparison is exact as the portable TRANSLATE of a..z to A..Z on both sides.
Where equal values are grouped (GROUP BY, DISTINCT, set operations, IN (subquery),
COUNT(DISTINCT)), sql/rules/text_groups.py compares that folded key and guards the one case
variant a group shows (CASE-VARIANT); MIN / MAX without case, which picks a variant by an
order, is refused.

T-SQL compares by the column's or database's collation, a server setting the text does not
show: the ``tsql_collation_case`` assumption. A case-insensitive collation compares by its own
culture's rules (``'ß' = 'ss'`` under Windows collations), which no standard function
reproduces, so a case-dependent comparison under it is refused; under the stated
case-sensitive one it translates as the engines compare, with a warning.

Every place the assumption decides a result says so: explicit comparisons (=, <, IN, LIKE,
BETWEEN, in ``sql/rules/dialect_specific.py``), the implicit ones here (ORDER BY, PARTITION
BY) and those of ``sql/rules/text_groups.py`` (GROUP BY, DISTINCT, set operations, IN
(subquery), MIN / MAX).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from sql import portable
from sql.rules.base import Context, rule
from sql.rules.build import STRING_TYPES, clone, lit, type_of
from sql.rules.portable_types import Projections
from sql.scopes import current as current_scopes
from sql.source_dialects import CaseSpecific, semantics

LOWER = "abcdefghijklmnopqrstuvwxyz"
# The catalog's declared attribute travels on a column's type (``sql/catalog.py``).
CASESPECIFIC_META = "casespecific"
# An attribute written on an expression (``x (NOT CS)``) travels on it as this meta flag.
WRITTEN_META = "casespecific_written"
RULE_IDS = {"teradata": "TD-CASESPECIFIC", "tsql": "TSQL-COLLATION"}


@dataclass(frozen=True)
class CaseDecision:
    """How one comparison treats case, and why."""

    blind: bool
    why: str  # what decided it, for messages: "teradata_session_mode=TERA (...)"
    assumed: bool  # a stated assumption decided it: every use is reported


class UndecidedCase(Exception):
    """The attribute of an operand is not known: the comparison is refused."""


def unwrap(node: exp.Expr) -> exp.Expr:
    """``node`` without Teradata's case attribute (which the decision reads)."""
    while isinstance(node, CaseSpecific):
        node = node.this
    return node


def text_type(node: exp.Expr) -> bool:
    return type_of(unwrap(node.this if isinstance(node, exp.Alias) else node)) in STRING_TYPES


def fold(node: exp.Expr) -> exp.Expr:
    """``node`` with a..z in upper case and nothing else changed: Teradata's case-blind form."""
    node = unwrap(node)
    if isinstance(node, exp.Literal) and node.is_string:
        return lit("".join(c.upper() if c in LOWER else c for c in node.name))
    return portable.PortableTranslate(
        this=clone(unwrap(node)), source=lit(LOWER), target=lit(LOWER.upper())
    )


def letterless(node: exp.Expr) -> bool:
    """A string literal without a letter a..z or A..Z: equal to a value, or matching it as a
    pattern, alike with and without case."""
    node = unwrap(node)
    return (
        isinstance(node, exp.Literal)
        and node.is_string
        and not any(c.lower() in LOWER for c in node.name)
    )


def _without(node: exp.Expr, case_function: type[exp.Expr], letters: str) -> bool:
    """``node``'s values hold none of ``letters``: a call of ``case_function`` (UPPER
    leaves no a..z, LOWER no A..Z) or a literal without them."""
    node = unwrap(node)
    if isinstance(node, exp.Paren):
        return _without(node.this, case_function, letters)
    if isinstance(node, exp.Literal):
        return node.is_string and not any(c in letters for c in node.name)
    return isinstance(node, case_function)


def case_free(values: Sequence[exp.Expr], equality: bool) -> bool:
    """Folding a..z to upper case cannot change this comparison of ``values``: none has a
    lower-case a..z (UPPER(...), 'ABC'), or, comparing for equality, none has an upper-case
    one (folding is then one to one) or all but one are literals without letters."""
    if all(_without(v, exp.Upper, LOWER) for v in values):
        return True
    if not equality:
        return False
    return all(_without(v, exp.Lower, LOWER.upper()) for v in values) or (
        len(values) > 1 and sum(not letterless(v) for v in values) <= 1
    )


def collated_search(what: str, needles: Sequence[exp.Expr], node: exp.Expr, ctx: Context) -> bool:
    """Whether a T-SQL search for ``needles`` (CHARINDEX's, REPLACE's, TRANSLATE's) may be
    translated as a case-sensitive one: it matches by the collation, which the
    tsql_collation_case assumption states. SENSITIVE (the stated default): yes, with a warning
    unless no needle has a letter; INSENSITIVE: refused (False), as the comparisons are."""
    if not semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION:
        return True
    if all(letterless(n) for n in needles):
        return True  # no letter to fold: the collation's case cannot matter
    value = ctx.assume("tsql_collation_case")
    if value == "INSENSITIVE":
        ctx.report(
            "error",
            "TSQL-COLLATION",
            node,
            f"{what} matches without case (tsql_collation_case=INSENSITIVE); "
            f"{_no_exact_form(ctx, what)}",
        )
        return False
    ctx.report(
        "warning",
        "TSQL-COLLATION",
        node,
        f"{what} matches case-sensitively, assuming tsql_collation_case={value}",
    )
    return True


def _declared(node: exp.Expr) -> bool | None:
    kind = node.type if isinstance(node, exp.Column) else None
    return None if kind is None else kind.meta.get(CASESPECIFIC_META)


@dataclass(frozen=True)
class _Resolver:
    """A statement's derived columns' definitions, and the session's default attribute."""

    projections: Projections
    default_specific: bool

    def defining(self, column: exp.Column) -> list[exp.Expr] | None:
        return self.projections.defining(column)


def _teradata_attribute(node: exp.Expr, resolve: _Resolver | None) -> tuple[bool | None, str]:
    """(CASESPECIFIC?, how it is known) of one operand; None for the session default.
    ``resolve`` finds what a derived table's column is defined by (None: no operand of the
    statement has an attribute other than the default, so none needs finding)."""
    written = node.meta.get(WRITTEN_META) if node._meta else None
    if written is not None:
        return written, f"written ({'CASESPECIFIC' if written else 'NOT CASESPECIFIC'})"
    if isinstance(node, (exp.Alias, exp.Paren, exp.Trim)):  # TRIM keeps its argument's type
        return _teradata_attribute(node.this, resolve)
    if isinstance(node, CaseSpecific):
        written = "CASESPECIFIC" if not node.args.get("not_") else "NOT CASESPECIFIC"
        return not node.args.get("not_"), f"written ({written})"
    if isinstance(node, exp.Column):
        defining = resolve.defining(node) if resolve is not None else None
        if defining is None:  # a lake table's column: its declaration, if any
            declared = _declared(node)
            if declared is None:
                return None, ""
            shown = "CASESPECIFIC" if declared else "NOT CASESPECIFIC"
            return declared, f"column {node.name} declared {shown}"
        found = {_teradata_attribute(p, resolve) for p in defining}
        if len(found) != 1:
            raise UndecidedCase(
                f"column {node.name} is defined by set operation branches of different case "
                "attributes, or ambiguously"
            )
        return found.pop()
    if resolve is not None:
        # Whether an expression's result keeps its operands' attribute or takes the session
        # default is not documented: known only where those agree.
        inner = {
            _teradata_attribute(n, resolve)
            for n in node.walk()
            if n is not node
            and (isinstance(n, (exp.Column, CaseSpecific)) or (n._meta and WRITTEN_META in n._meta))
            and not isinstance(n.parent, CaseSpecific)
        }
        declared = {(value, why) for value, why in inner if value is not None}
        if declared:
            values = {value for value, _ in declared}
            default = resolve.default_specific
            if len(values) > 1 or values != {default}:
                why = sorted(why for _, why in declared)[0]
                raise UndecidedCase(
                    f"the case attribute of an expression over {why} is not documented "
                    "(its operands' or the session default's); apply (CASESPECIFIC) or "
                    "(NOT CASESPECIFIC) to it"
                )
    return None, ""


def _resolver(node: exp.Expr, ctx: Context) -> _Resolver | None:
    """What resolves derived columns to their definitions, where some column or expression
    of the statement has a case attribute of its own; None where all take the default."""
    root = node.root()
    if not any(
        (n._meta and WRITTEN_META in n._meta)
        or isinstance(n, CaseSpecific)
        or (isinstance(n, exp.Column) and _declared(n) is not None)
        for n in root.walk()
    ):
        return None
    default_specific = ctx.assume("teradata_session_mode") == "ANSI"
    return _Resolver(Projections.of(root, current_scopes(ctx.scopes, root)), default_specific)


def decide(operands: Sequence[exp.Expr], ctx: Context) -> CaseDecision:
    """Whether ``operands`` compare case-blind; raises UndecidedCase."""
    if semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION:
        value = ctx.assume("tsql_collation_case")
        return CaseDecision(value == "INSENSITIVE", f"tsql_collation_case={value}", True)
    resolve = _resolver(operands[0], ctx)
    attributes = [_teradata_attribute(o, resolve) for o in operands]
    specific = [why for value, why in attributes if value]
    if specific:
        return CaseDecision(False, specific[0], False)
    mode = ctx.assume("teradata_session_mode")
    default_specific = mode == "ANSI"
    default = (
        f"teradata_session_mode={mode}: character data "
        f"{'CASESPECIFIC' if default_specific else 'NOT CASESPECIFIC'} by default"
    )
    if any(value is None for value, _ in attributes):
        return CaseDecision(not default_specific, default, True)
    return CaseDecision(True, attributes[0][1], False)


def _rule_id(ctx: Context, node: exp.Expr) -> str:
    """Explicit comparisons report under the dialect's rule, implicit ones under theirs."""
    if isinstance(node, (exp.Predicate, exp.Between)) and not isinstance(node, exp.In):
        return RULE_IDS[ctx.dialect]
    if isinstance(node, exp.In) and not node.args.get("query"):
        return RULE_IDS[ctx.dialect]
    return "CASE-IMPLICIT" if isinstance(node, (exp.Ordered, exp.Window)) else "CASE-VARIANT"


def decide_or_refuse(
    operands: Sequence[exp.Expr], node: exp.Expr, ctx: Context, what: str
) -> CaseDecision | None:
    """The decision for ``what`` (a phrase: "GROUP BY of s"), or None after refusing it."""
    try:
        return decide(operands, ctx)
    except UndecidedCase as undecided:
        ctx.report("error", _rule_id(ctx, node), node, f"{what}: {undecided}")
        return None


def warn(decision: CaseDecision, node: exp.Expr, ctx: Context, what: str) -> None:
    if decision.assumed:
        how = "without case" if decision.blind else "case-sensitively"
        ctx.report(
            "warning",
            _rule_id(ctx, node),
            node,
            f"{what}: compared {how}, assuming {decision.why}",
        )


def refuse_blind(decision: CaseDecision, node: exp.Expr, ctx: Context, what: str) -> None:
    ctx.report(
        "error",
        _rule_id(ctx, node),
        node,
        f"{what} compares text without case ({decision.why}); {_no_exact_form(ctx, what)}",
    )


def _no_exact_form(ctx: Context, what: str) -> str:
    if semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION:
        return (
            "a case-insensitive collation compares by its culture's rules, which no standard "
            "function reproduces; set --assume tsql_collation_case=SENSITIVE if the column's "
            "collation is case-sensitive, or compare UPPER(...) explicitly"
        )
    return (
        "it keeps one of the case variants it groups as the value, which one is not "
        "determined; apply (CASESPECIFIC) or compare UPPER(...) explicitly"
    )


def compare(node: exp.Expr, rewritten: exp.Expr, operands: Sequence[str], ctx: Context) -> exp.Expr:
    """An explicit comparison ``node`` (=, <, IN (list), LIKE, BETWEEN) written as
    ``rewritten`` with case decided: its ``operands`` (argument names of ``rewritten``; a
    list argument's every item) folded where the comparison is case blind; refused where
    that has no exact form; reported where an assumption decided it."""
    values = _arguments(node, operands)
    if case_free(values, isinstance(node, (exp.EQ, exp.NEQ, exp.In, exp.Like))):
        return _strip(rewritten)
    decision = decide_or_refuse(values, node, ctx, "string comparison")
    if decision is None:
        return node
    if not decision.blind:
        warn(decision, node, ctx, "string comparison")
        return _strip(rewritten)
    if semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION:
        refuse_blind(decision, node, ctx, "string comparison")
        return node
    escape = node.parent.expression if isinstance(node.parent, exp.Escape) else None
    if isinstance(escape, exp.Literal) and escape.name.lower() in LOWER:
        pattern = unwrap(node.expression)
        problem = (
            "a pattern that is not a literal"
            if not (isinstance(pattern, exp.Literal) and pattern.is_string)
            else None
        )
        escaped = None
        if problem is None:
            escaped, problem = backslash_escaped(pattern.name, escape.name)
        if escaped is None:
            ctx.report(
                "error",
                _rule_id(ctx, node),
                node,
                f"LIKE without case ({decision.why}) with the letter {escape.name!r} as ESCAPE "
                f"character and {problem} is not translated: folding the pattern to upper "
                "case would change which characters escape",
            )
            return node
        # Read at translation by Teradata's escape rules, then escaped with a backslash,
        # which folding leaves alone.
        rewritten.set("expression", lit(escaped))
        backslash = lit("\\")
        node.parent.set("expression", backslash)
        # A change in place, outside the rewrite: retyped as the engine retypes a rewrite's.
        ctx.rewritten.append(backslash)
        backslash.meta["changed"] = True
    warn(decision, node, ctx, "string comparison")
    for name in operands:
        value = rewritten.args.get(name)
        if isinstance(value, list):
            rewritten.set(name, [fold(v) for v in value])
        elif value is not None:
            rewritten.set(name, fold(value))
    return _strip(rewritten)


def backslash_escaped(pattern: str, escape: str) -> tuple[str | None, str | None]:
    """Teradata's LIKE ``pattern`` with the letter ``escape`` as ESCAPE, written with a
    backslash as the escape instead: (pattern, None), or (None, why it has no such form).

    Teradata (SQL Functions, Expressions, and Predicates: "ESCAPE Feature of LIKE") scans
    the pattern left to right: characters are taken at face value until the ESCAPE
    character; that character followed by _, % or itself is that one character, literally;
    followed by anything else (or nothing) the scan stops with an error. Which instances of
    a letter are the ESCAPE character when case is ignored is not documented: a pattern that
    holds the letter's other case has no reading here."""
    if escape.swapcase() in pattern:
        return None, f"its other case {escape.swapcase()!r} in the pattern"
    written, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == escape:
            following = pattern[i + 1 : i + 2]
            if following not in ("_", "%", escape):
                return None, (
                    f"{escape!r} followed by {following!r} in the pattern, which Teradata "
                    "rejects (an ESCAPE character escapes only _, % or itself)"
                    if following
                    else f"{escape!r} ending the pattern, which Teradata rejects"
                )
            written.append(following if following == escape else "\\" + following)
            i += 2
            continue
        written.append("\\\\" if char == "\\" else char)
        i += 1
    return "".join(written), None


def _arguments(node: exp.Expr, names: Sequence[str]) -> list[exp.Expr]:
    found: list[exp.Expr] = []
    for name in names:
        value = node.args.get(name)
        found.extend(value if isinstance(value, list) else [value] if value is not None else [])
    return found


def _strip(node: exp.Expr) -> exp.Expr:
    for attribute in list(node.find_all(CaseSpecific)):
        attribute.replace(attribute.this)
    return node


@rule(
    "CASE-IMPLICIT",
    "rewrite",
    ("teradata", "tsql"),
    (exp.Ordered, exp.Between),
    "Text ordered (ORDER BY) or compared with BETWEEN "
    "compares with or without case as an explicit comparison does (TD-CASESPECIFIC, "
    "TSQL-COLLATION): case-sensitively it translates as written, with a warning where the "
    "teradata_session_mode or tsql_collation_case assumption decided it; without case "
    "(Teradata), the key is the portable TRANSLATE(x, 'a..z', 'A..Z'), rows equal but for "
    "case being ties in both. Refused without case: T-SQL (a case-insensitive collation), "
    "ORDER BY of a set operation and WITHIN GROUP (the ordered value is the result). A "
    "window's PARTITION BY compares its key as GROUP BY does (PAD-VARIANT), reported under "
    "this rule where the assumption decides it.",
    (
        (
            "teradata",
            "SELECT c_custkey FROM SALES_DB.CUSTOMER ORDER BY c_name (NOT CASESPECIFIC)",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'ORDER BY TRANSLATE("customer"."c_name", \'abcdefghijklmnopqrstuvwxyz\', '
            "'ABCDEFGHIJKLMNOPQRSTUVWXYZ') ASC NULLS FIRST",
        ),
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer ORDER BY c_name",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'ORDER BY "customer"."c_name" ASC NULLS FIRST',
        ),
    ),
)
def implicit_order(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return implicit_comparison(node, ctx)


def implicit_comparison(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """ORDER BY and BETWEEN over text (CASE-IMPLICIT). Where equal text is grouped,
    partitioned or shown (GROUP BY, DISTINCT, set operations, IN (subquery), PARTITION BY,
    MIN / MAX): sql/rules/text_groups.py."""
    if isinstance(node, exp.Ordered):
        return _order(node, ctx)
    if isinstance(node, exp.Between):
        names = ("this", "low", "high")
        if not all(text_type(node.args[n]) for n in names):
            return None
        return compare(node, clone(node), names, ctx)
    return None


def name_of(node: exp.Expr) -> str:
    node = unwrap(node)
    if isinstance(node, exp.Alias):
        node = node.this
    return node.name if isinstance(node, exp.Column) else "a text expression"


def _order(node: exp.Ordered, ctx: Context) -> exp.Expr | None:
    if not text_type(node.this) or case_free([node.this], equality=False):
        return None
    what = f"ORDER BY {name_of(node.this)}"
    decision = decide_or_refuse([node.this], node, ctx, what)
    if decision is None:
        return node
    if not decision.blind:
        warn(decision, node, ctx, what)
        return None
    order = node.parent
    owner = order.parent if order is not None else None
    if semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION or isinstance(
        owner, (exp.SetOperation, exp.WithinGroup)
    ):
        refuse_blind(decision, node, ctx, what)
        return node
    warn(decision, node, ctx, what)
    ordered = clone(node)
    ordered.set("this", fold(node.this))
    return ordered


@rule(
    "TD-CASE-ATTRIBUTE",
    "rewrite",
    ("teradata",),
    (CaseSpecific,),
    "Teradata's `x (CASESPECIFIC)` / `x (NOT CS)` decides how x compares wherever it is "
    "compared (TD-CASESPECIFIC, CASE-IMPLICIT, CASE-VARIANT read it, through derived tables "
    "too) and leaves its value as it is: it becomes x, carrying the attribute.",
    (
        (
            "teradata",
            "SELECT c_name (NOT CASESPECIFIC) AS n FROM SALES_DB.CUSTOMER",
            'SELECT "customer"."c_name" AS "n" FROM "raw"."customer" AS "customer"',
        ),
    ),
    phase="syntax",
)
def case_attribute(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    inner = node.this.copy()
    inner.meta[WRITTEN_META] = not node.args.get("not_")
    inner.meta["source"] = True  # still the source's expression: later phases translate it
    return inner
