"""Text values a dialect takes for one although they differ: case variants ('abc', 'ABC') of
Teradata's NOT CASESPECIFIC text (sql/rules/case_sensitivity.py decides which text that is),
and values that differ only in trailing blanks ('a', 'a ') in T-SQL, Teradata and Redshift,
which compare text as if the shorter were padded with blanks (PAD-COMPARISON).

Wherever such a dialect finds equal values without an explicit comparison (GROUP BY, SELECT
DISTINCT, UNION / INTERSECT / EXCEPT, IN (subquery), COUNT(DISTINCT)), the translation
compares their *key*: ``TRIM(TRAILING ' ' FROM x)``, case-folded as TD-CASESPECIFIC folds
(the portable TRANSLATE of a..z to A..Z) where the comparison is case blind. What is decided
by equality alone (which rows a group holds, whether a value is IN a list, a count) is then
exact. Where the dialect *shows* one of a group's values (the x of ``GROUP BY x``, a row of
DISTINCT or of a set operation), which one it shows is not determined once the group holds
more than one; the translation shows ``MIN(x)``, and one run-time guard in the query's HAVING
stops it on a group whose ``MIN(x)`` and ``MAX(x)`` differ (it holds two values, compared as
the engines compare, byte for byte), naming the rule (docs/architecture.md, "Run-time
guards"); inside the query's own HAVING condition, so that a group the source leaves out
does not stop it. Data without such groups runs exact. Where a group's value is only
compared (a window's PARTITION BY or ORDER BY over the groups, GROUPING), its key is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from sql import portable
from sql.rules.base import Context, rule
from sql.rules.build import clone, guarded, lit
from sql.rules.case_sensitivity import (
    case_free,
    decide_or_refuse,
    fold,
    name_of,
    refuse_blind,
    text_type,
    unwrap,
    warn,
)
from sql.source_dialects import semantics

CASE_RULE = "CASE-VARIANT"
PAD_RULE = "PAD-VARIANT"


@dataclass(frozen=True)
class Key:
    """How a dialect compares one text value when it looks for equal ones."""

    blind: bool  # without case: a..z folded to A..Z
    padded: bool  # without trailing blanks
    why: str  # what decided the case ("teradata_session_mode=TERA (...)"), for messages

    @property
    def rule(self) -> str:
        return CASE_RULE if self.blind else PAD_RULE

    def of(self, node: exp.Expr) -> exp.Expr:
        """``node``'s key: what the dialect compares (as PAD-COMPARISON and TD-CASESPECIFIC
        write a comparison's operands, so that a HAVING over the key reads the group's key)."""
        value = unwrap(node)
        if self.padded:
            value = without_trailing_blanks(value)
        return fold(value) if self.blind else value

    def differences(self) -> str:
        if self.blind:
            blanks = " or trailing blanks" if self.padded else ""
            return f"differ only in case{blanks} ({self.why})"
        return "differ only in trailing blanks"


class _Refused:
    """The comparison was refused (reported): the node stays as it is."""


REFUSED = _Refused()


def without_trailing_blanks(node: exp.Expr) -> exp.Expr:
    """``TRIM(TRAILING ' ' FROM node)``, written as PAD-COMPARISON writes it."""
    if isinstance(node, exp.Literal) and node.is_string:
        return lit(node.name.rstrip(" "))
    return exp.Trim(this=clone(node), position="TRAILING", expression=lit(" "))


def blank_free(node: exp.Expr) -> bool:
    """``node``'s values never end in a blank: a TRIM of blanks at the end, a literal that
    does not, or a case mapping of one."""
    node = unwrap(node)
    if isinstance(node, (exp.Paren, exp.Upper, exp.Lower, portable.PortableTranslate)):
        return blank_free(node.this)
    if isinstance(node, exp.Literal):
        return not node.is_string or not node.name.endswith(" ")
    if isinstance(node, exp.Trim):
        character = node.args.get("expression")
        trims_blanks = character is None or (
            isinstance(character, exp.Literal) and character.name == " "
        )
        return node.args.get("position") in (None, "TRAILING", "BOTH") and trims_blanks
    return False


def compares(
    operands: Sequence[exp.Expr], node: exp.Expr, ctx: Context, what: str
) -> Key | _Refused | None:
    """How ``operands`` (text compared with each other for equality at ``node``) compare:
    the Key, None where as written (case and blanks count, or cannot differ), REFUSED where
    the comparison has no exact form (reported); warns where an assumption decided it."""
    flags = semantics(ctx.dialect)
    values = [o.unalias() if isinstance(o, exp.Alias) else o for o in operands]
    padded = flags.TEXT_IGNORES_TRAILING_BLANKS and not all(blank_free(v) for v in values)
    blind, why = False, ""
    if (flags.TEXT_CASE_IS_AN_ATTRIBUTE or flags.TEXT_COMPARES_BY_COLLATION) and not case_free(
        values, equality=True
    ):
        shown = f"{what} of {name_of(values[0])}"
        decision = decide_or_refuse(values, node, ctx, shown)
        if decision is None:
            return REFUSED
        if decision.blind and flags.TEXT_COMPARES_BY_COLLATION:
            refuse_blind(decision, node, ctx, shown)
            return REFUSED
        warn(decision, node, ctx, shown)
        blind, why = decision.blind, decision.why
    if not (padded or blind):
        return None
    ctx.applied.add(CASE_RULE if blind else PAD_RULE)
    return Key(blind, padded, why)


@dataclass(frozen=True, eq=False)
class Variants:
    """A value a grouped query shows, whose groups the source forms by a key: the group
    shows MIN(value), exact where the group holds one value (or only NULLs)."""

    value: exp.Expr  # each row's (EXCEPT: NULL for the right side's rows)
    key: Key
    name: str
    left_out: exp.Expr | None = None  # the key, where ROLLUP / CUBE / GROUPING SETS leave it out

    def differs(self) -> exp.Expr:
        """The group holds two values: which the source shows is not determined."""
        return exp.NEQ(
            this=exp.Min(this=clone(self.value)), expression=exp.Max(this=clone(self.value))
        )

    def why(self, what: str) -> str:
        return (
            f"{what} of {self.name}: a group holds values that {self.key.differences()}, "
            "which the source takes for one value; which of them it shows is not determined"
        )


def guard_groups(
    select: exp.Select, shown: Sequence[Variants], what: str, at: exp.Expr, ctx: Context
) -> None:
    """``select`` (grouped) stops on a group holding two of a shown value's values: one run-time
    guard in its HAVING, for every group it keeps (``CASE WHEN <its HAVING> THEN <guards>
    ELSE FALSE END``: a group the source leaves out does not stop it)."""
    if not shown:
        return
    passes: exp.Expr = exp.true()
    for variants in reversed(shown):
        passes = guarded(passes, variants.differs(), variants.key.rule, variants.why(what), at)
    having = select.args.get("having")
    if having is not None:
        passes = exp.Case(ifs=[exp.If(this=having.this.pop(), true=passes)], default=exp.false())
    written = exp.Having(this=passes)
    select.set("having", written)
    ctx.wrote(written)


def least(variants: Variants, what: str, at: exp.Expr) -> exp.Expr:
    """What a use of the value shows: MIN(value); where ROLLUP, CUBE or GROUPING SETS may
    leave the key out, NULL in such a row, and the guard right here (Spark resolves no
    GROUPING, nor a grouping expression, in the HAVING of grouping sets)."""
    value: exp.Expr = exp.Min(this=clone(variants.value))
    if variants.left_out is None:
        return value
    left_out = exp.EQ(this=exp.Grouping(expressions=[clone(variants.left_out)]), expression=lit(1))
    value = guarded(value, variants.differs(), variants.key.rule, variants.why(what), at)
    return exp.Case(ifs=[exp.If(this=left_out, true=exp.Null())], default=value)


def _is_aggregate(node: exp.Expr) -> bool:
    """An aggregate call (not a window function, whose arguments are the group's values)."""
    if not isinstance(node, exp.AggFunc):
        return False
    parent = node.parent
    return not (isinstance(parent, exp.Window) and parent.this is node)


@dataclass(eq=False)
class _Shown:
    """One keyed value of a grouped query: its key, and how a use of it is shown."""

    value: exp.Expr
    grouped: exp.Expr  # the key the query groups by, which it reads as it is
    variants: Variants
    what: str
    at: exp.Expr
    used: bool = False  # shown somewhere (not only compared): its groups are guarded

    @property
    def key(self) -> Key:
        return self.variants.key

    def make(self) -> exp.Expr:
        self.used = True
        return least(self.variants, self.what, self.at)


class _Uses:
    """Which keyed value a node is: columns (the usual keys) by their names, compared
    without hashing whole subtrees as expression equality does; others by equality."""

    def __init__(self, shown_values: list[_Shown]) -> None:
        self.shown = shown_values
        self.columns = {
            (v.value.table, v.value.name): v
            for v in shown_values
            if isinstance(v.value, exp.Column) and not v.value.args.get("db")
        }
        by_name = {id(v) for v in self.columns.values()}
        self.others = [v for v in shown_values if id(v) not in by_name]
        self.key_types = {type(v.grouped) for v in shown_values}

    def find(self, node: exp.Expr) -> _Shown | None:
        if type(node) is exp.Column:
            found = self.columns.get((node.table, node.name))
            if found is not None:
                return found
        for v in self.others:
            if type(node) is type(v.value) and node == v.value:
                return v
        return None

    def is_key(self, node: exp.Expr) -> bool:
        return type(node) in self.key_types and any(node == v.grouped for v in self.shown)


def _substitute(root: exp.Expr, uses: _Uses, ctx: Context, ordering: bool) -> _Shown | None:
    """Replace each use of a keyed value under ``root`` (outside aggregates and outside its
    key, which a grouped query reads as it is) by what it is shown as; where it is only
    compared (GROUPING(...), a window's PARTITION BY and ORDER BY, and the query's ORDER BY
    when ``ordering``) by its key, which compares as the source compares. Returns the value
    a subquery reads (the group's value there has no exact form), else None."""
    stack = [(root, ordering)]
    while stack:
        node, compared = stack.pop()
        if uses.is_key(node):
            continue
        used = uses.find(node)
        if used is not None and node is not root:  # a root is a clause, never a value
            replacement = clone(used.grouped) if compared else used.make()
            node.replace(replacement)
            ctx.wrote(replacement)
            continue
        if _is_aggregate(node) and not isinstance(node, exp.Grouping):
            continue
        if isinstance(node, (exp.Query, exp.Subquery)):
            for inner in node.walk():
                read = uses.find(inner)
                if read is not None:
                    return read
            continue
        if isinstance(node, exp.Grouping):
            stack.extend((e, True) for e in node.expressions)
        elif isinstance(node, exp.Window):
            for key, value in node.args.items():
                compares_only = key in ("partition_by", "order")
                for child in value if isinstance(value, list) else [value]:
                    if isinstance(child, exp.Expr):
                        stack.append((child, compared or compares_only))
        else:
            stack.extend((child, compared) for child in node.iter_expressions())
    return None


_SHOWING = ("expressions", "having", "order", "qualify")


def _show_groups(
    select: exp.Select,
    keyed: list[tuple[exp.Expr, Key]],
    what: str,
    at: exp.Expr,
    ctx: Context,
    keys: dict[int, exp.Expr],
    rolled: Sequence[exp.Expr] = (),
) -> list[Variants] | None:
    """Every use of a keyed value in what ``select`` shows (its list, HAVING, ORDER BY,
    QUALIFY) replaced by the group's value (NULL in a row where ROLLUP, CUBE or GROUPING SETS
    (``rolled``) left it out, as GROUPING of its key says); ``keys`` holds each value's key by
    id. Returns the values shown, whose groups the query guards (:func:`guard_groups`); None
    (refused) where a group's value has no place."""
    shown_values = []
    for value, key in keyed:
        grouped = keys[id(value)]
        left_out = grouped if any(type(r) is type(value) and r == value for r in rolled) else None
        variants = Variants(value, key, name_of(value), left_out)
        shown_values.append(_Shown(value, grouped, variants, what, at))
    uses = _Uses(shown_values)
    for clause in _SHOWING:
        found = select.args.get(clause)
        for root in found if isinstance(found, list) else [found] if found else []:
            read = _substitute(root, uses, ctx, ordering=clause == "order")
            if read is not None:
                ctx.report(
                    "error",
                    read.key.rule,
                    at,
                    f"{what} of {name_of(read.value)}: a subquery reads the group's value, "
                    f"which the source shows as one of the group's values that "
                    f"{read.key.differences()}; not translated",
                )
                return None
    # Guarded in HAVING: those shown, but not those a row may leave out (guarded in place).
    return [v.variants for v in shown_values if v.used and v.variants.left_out is None]


def _flat(item: exp.Expr) -> list[exp.Expr]:
    """The keys of a ROLLUP, CUBE or GROUPING SETS (its sets' keys, flattened)."""
    found: list[exp.Expr] = []
    for e in item.expressions:
        found.extend(_flat(e) if isinstance(e, (exp.Tuple, exp.Cube, exp.Rollup)) else [e])
    return found


def _group(select: exp.Select, ctx: Context) -> exp.Expr | None:
    group = select.args["group"]
    # ROLLUP / CUBE / GROUPING SETS, where sqlglot keeps them apart or among the keys
    sets = [
        *(i for part in ("rollup", "cube", "grouping_sets") for i in group.args.get(part) or []),
        *(e for e in group.expressions if isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets))),
    ]
    extended = [
        e
        for item in sets
        for e in (
            _flat(item) if isinstance(item, (exp.Cube, exp.Rollup, exp.GroupingSets)) else [item]
        )
    ]
    plain = [
        e for e in group.expressions if not isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets))
    ]
    keyed: list[tuple[exp.Expr, Key]] = []
    for value in [*plain, *extended]:
        if not text_type(value):
            continue
        key = compares([value], group, ctx, "GROUP BY")
        if key is REFUSED:
            return select
        if key is None:
            continue
        assert isinstance(key, Key)
        keyed.append((value, key))
    if not keyed:
        return None
    # Each value once (a key may be both a plain key and in a ROLLUP): its uses are replaced
    # once; every place it is grouped by takes its key.
    shown_once: list[tuple[exp.Expr, Key]] = []
    for value, key in keyed:
        if not any(type(v) is type(value) and v == value for v, _ in shown_once):
            shown_once.append((value, key))
    # T-SQL's GROUP BY a, b WITH ROLLUP (or CUBE): an empty ROLLUP that rolls the plain keys.
    rolls_plain = any(
        isinstance(item, (exp.Rollup, exp.Cube)) and not item.expressions for item in sets
    )
    rolled = [
        value
        for value, _ in keyed
        if any(value is e for e in extended) or (rolls_plain and any(value is e for e in plain))
    ]
    keys = {id(value): key.of(value) for value, key in keyed}
    shown = _show_groups(select, shown_once, "GROUP BY", group, ctx, keys, rolled)
    if shown is None:
        return select
    for value, _ in keyed:
        value.replace(keys[id(value)])  # used above only to compare: still detached
        ctx.wrote(keys[id(value)])
    guard_groups(select, shown, "GROUP BY", group, ctx)
    return select


def _in_predicate(select: exp.Select) -> bool:
    """``select`` is the query of IN (subquery) or EXISTS, where duplicates do not count."""
    parent = select.parent
    if isinstance(parent, exp.Subquery):
        parent = parent.parent
    return isinstance(parent, (exp.In, exp.Exists))


def _distinct(select: exp.Select, ctx: Context) -> exp.Expr | None:
    distinct = select.args["distinct"]
    if distinct.args.get("on") is not None:
        return None
    keyed: list[tuple[exp.Expr, Key]] = []
    for projection in select.selects:
        if not text_type(projection):
            continue
        key = compares([projection], distinct, ctx, "SELECT DISTINCT")
        if key is REFUSED:
            return select
        if key is not None:
            assert isinstance(key, Key)
            keyed.append((projection.unalias(), key))
    if not keyed or (_in_predicate(select) and len(select.selects) == 1):
        return None  # IN (SELECT DISTINCT ...) keys its one value: IN_SUBQUERY
    aggregated = select.args.get("group") or any(
        isinstance(n, (exp.AggFunc, exp.Window)) for s in select.selects for n in s.walk()
    )
    if aggregated:
        value, key = keyed[0]
        ctx.report(
            "error",
            key.rule,
            distinct,
            f"SELECT DISTINCT of {name_of(value)} over groups or window functions: the rows it "
            f"takes for one hold values that {key.differences()}, and which it shows has no "
            "guarded form here; not translated",
        )
        return select
    of_value = {id(value): key.of(value) for value, key in keyed}
    keys: list[exp.Expr] = []
    for projection in select.selects:
        value = projection.unalias()
        if isinstance(value, (exp.Literal, exp.Null)):
            continue  # constant: a literal number in GROUP BY would read as a position
        grouped = of_value.get(id(value))
        keys.append(clone(grouped) if grouped is not None else clone(value))
    shown = _show_groups(select, keyed, "SELECT DISTINCT", distinct, ctx, of_value)
    if shown is None:
        return select
    distinct.pop()
    if keys:
        group = exp.Group(expressions=keys)
        select.set("group", group)
        ctx.wrote(group)
    guard_groups(select, shown, "SELECT DISTINCT", distinct, ctx)
    return select


def _set_operation(node: exp.SetOperation, ctx: Context) -> exp.Expr | None:
    """UNION / INTERSECT / EXCEPT comparing text the source takes for one: the rows of both
    sides (UNION ALL, marked by side), grouped by their keys; HAVING keeps the groups a side
    has (INTERSECT: both, EXCEPT: the left only); each keyed column shows its group's
    guarded value (EXCEPT: of the left's rows)."""
    if isinstance(node, exp.Union) and not node.args.get("distinct"):
        return None  # UNION ALL compares nothing
    left, right = node.left, node.right
    if not isinstance(left, exp.Query) or not isinstance(right, exp.Query):
        return None
    what = node.key.upper()
    keyed: dict[int, Key] = {}
    for position, (a, b) in enumerate(zip(left.selects, right.selects, strict=False)):
        if not (text_type(a) or text_type(b)):
            continue
        key = compares([a, b], node, ctx, what)
        if key is REFUSED:
            return node
        if key is not None:
            assert isinstance(key, Key)
            keyed[position] = key
    if not keyed:
        return None
    if not node.args.get("distinct"):
        key = next(iter(keyed.values()))
        ctx.report(
            "error",
            key.rule,
            node,
            f"{what} ALL of text whose values {key.differences()} keeps some of those rows "
            "by a count the translation does not reproduce; not translated",
        )
        return node
    names = [s.alias_or_name for s in left.selects]
    inner = [f"_c{i}" for i in range(1, len(names) + 1)]
    sides = not isinstance(node, exp.Union)

    def branch(query: exp.Expr, alias: str, side: int) -> exp.Select:
        source = exp.Subquery(
            this=clone(query),
            alias=exp.TableAlias(
                this=exp.to_identifier(alias), columns=[exp.to_identifier(n) for n in inner]
            ),
        )
        columns: list[exp.Expr] = [exp.column(n, table=alias) for n in inner]
        if sides:
            columns.append(exp.alias_(lit(1 if side == 0 else 0), "_in_left"))
            columns.append(exp.alias_(lit(1 if side == 1 else 0), "_in_right"))
        return exp.Select(expressions=columns).from_(source)

    rows = exp.Union(this=branch(left, "_l", 0), expression=branch(right, "_r", 1), distinct=False)

    def column(name: str) -> exp.Column:
        return exp.column(name, table="_u")

    in_left = exp.EQ(this=column("_in_left"), expression=lit(1))
    projections: list[exp.Expr] = []
    keys: list[exp.Expr] = []
    shown: list[Variants] = []
    for position, (name, value) in enumerate(zip(names, inner, strict=True)):
        key = keyed.get(position)
        if key is None:
            projections.append(exp.alias_(column(value), name))
            keys.append(column(value))
            continue
        candidates: exp.Expr = column(value)
        if isinstance(node, exp.Except):
            candidates = exp.Case(ifs=[exp.If(this=clone(in_left), true=column(value))])
        variants = Variants(candidates, key, name)
        shown.append(variants)
        projections.append(exp.alias_(least(variants, what, node), name))
        keys.append(key.of(column(value)))
    select = exp.Select(expressions=projections).from_(
        exp.Subquery(this=rows, alias=exp.TableAlias(this=exp.to_identifier("_u")))
    )
    select.set("group", exp.Group(expressions=keys))
    if sides:
        right_count = 1 if isinstance(node, exp.Intersect) else 0
        present = exp.and_(
            exp.EQ(this=exp.Max(this=column("_in_left")), expression=lit(1)),
            exp.EQ(this=exp.Max(this=column("_in_right")), expression=lit(right_count)),
        )
        select.set("having", exp.Having(this=present))
    guard_groups(select, shown, what, node, ctx)
    for arg in ("with_", "order", "limit", "offset"):
        value = node.args.get(arg)
        if value is not None:
            select.set(arg, clone(value))
    return select


def _in_subquery(node: exp.In, ctx: Context) -> exp.Expr | None:
    """``x IN (SELECT y ...)``: ``key(x) IN (SELECT key(y) ...)``, exact."""
    query = node.args.get("query")
    if query is None or not text_type(node.this):
        return None
    inner = query.this if isinstance(query, exp.Subquery) else query
    selects = inner.selects if isinstance(inner, exp.Query) else []
    if len(selects) != 1:
        return None
    key = compares([node.this, selects[0]], node, ctx, "IN (subquery)")
    if key is REFUSED:
        return node
    if key is None:
        return None
    assert isinstance(key, Key)
    if isinstance(inner, exp.Select):
        keyed = clone(inner)
        projection = keyed.selects[0]
        projection.replace(exp.alias_(key.of(projection.unalias()), projection.alias_or_name))
    else:
        source = exp.Subquery(
            this=clone(inner),
            alias=exp.TableAlias(this=exp.to_identifier("_q"), columns=[exp.to_identifier("_c1")]),
        )
        keyed = exp.Select(expressions=[key.of(exp.column("_c1", table="_q"))]).from_(source)
    return exp.In(this=key.of(node.this), query=exp.Subquery(this=keyed))


def _partition(node: exp.Window, ctx: Context) -> exp.Expr | None:
    """A window's PARTITION BY x: its key, exact (rows whose values the source takes for one
    are one partition); changed in place."""
    keyed: list[tuple[exp.Expr, Key]] = []
    for value in node.args.get("partition_by") or []:
        if not text_type(value):
            continue
        key = compares([value], node, ctx, "PARTITION BY")
        if key is REFUSED:
            return node
        if key is not None:
            assert isinstance(key, Key)
            keyed.append((value, key))
    if not keyed:
        return None
    for value, key in keyed:
        written = key.of(value)
        value.replace(written)
        ctx.wrote(written)
    return node


def _count_distinct(node: exp.Distinct, ctx: Context) -> exp.Expr | None:
    """COUNT(DISTINCT x) counts the keys: exact."""
    values = [e for e in node.expressions if text_type(e)]
    if not values:
        return None
    key = compares(values, node, ctx, "COUNT(DISTINCT ...)")
    if key is REFUSED:
        return node
    if key is None:
        return None
    assert isinstance(key, Key)
    return exp.Distinct(
        expressions=[key.of(e) if text_type(e) else clone(e) for e in node.expressions]
    )


def _least_or_greatest(node: exp.Min | exp.Max, ctx: Context) -> exp.Expr | None:
    """MIN / MAX of text without case: the value of one of the variants, refused (T-SQL's
    and Redshift's trailing blanks are left as the engines order them)."""
    if not text_type(node.this) or case_free([node.this], equality=False):
        return None
    what = f"{node.key.upper()} of {name_of(node.this)}"
    decision = decide_or_refuse([node.this], node, ctx, what)
    if decision is None:
        return node
    if decision.blind:
        refuse_blind(decision, node, ctx, what)
        return node
    warn(decision, node, ctx, what)
    return None


def text_groups(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """GROUP BY, DISTINCT, set operations, IN (subquery) and COUNT(DISTINCT) over text the
    source takes for one although it differs (see the module docstring)."""
    if isinstance(node, exp.Select):
        if node.args.get("group"):
            result = _group(node, ctx)
            if result is not None and result is not node:
                return result
            if node.args.get("distinct"):
                return _distinct(node, ctx) or result
            return result
        if node.args.get("distinct"):
            return _distinct(node, ctx)
        return None
    if isinstance(node, exp.SetOperation):
        return _set_operation(node, ctx)
    if isinstance(node, exp.In):
        return _in_subquery(node, ctx)
    if isinstance(node, exp.Window):
        return _partition(node, ctx) if node.args.get("partition_by") else None
    if isinstance(node, exp.Distinct) and isinstance(node.parent, exp.Count):
        return _count_distinct(node, ctx)
    return None


@rule(
    CASE_RULE,
    "rewrite",
    ("teradata", "tsql"),
    (exp.Min, exp.Max),
    "Text compared to find equal values (GROUP BY, SELECT DISTINCT, UNION / INTERSECT / "
    "EXCEPT, IN (subquery), MIN / MAX, COUNT(DISTINCT)) compares with or without case as an "
    "explicit comparison does (TD-CASESPECIFIC, TSQL-COLLATION). Case-sensitively it "
    "translates as written, with a warning where the teradata_session_mode or "
    "tsql_collation_case assumption decided it (trailing blanks: PAD-VARIANT). Teradata "
    "without case compares the key TRANSLATE(TRIM(TRAILING ' ' FROM x), 'a..z', 'A..Z'): "
    "COUNT(DISTINCT x) and IN (subquery) are then exact; where one of a group's case variants "
    "('foo', 'FOO') is shown, which one is not determined: the value is MIN(x) under a "
    "run-time guard that stops the query on a group holding two variants (as PAD-VARIANT "
    "does). Refused: MIN / MAX without case (which variant is least has no guarded form "
    "here), T-SQL under a case-insensitive collation (tsql_collation_case=INSENSITIVE: "
    "culture rules) and an expression over a declared column (its attribute is not "
    "documented). Keys that case cannot change (UPPER(x)) pass.",
    (
        (
            "teradata",
            "SELECT c_mktsegment, COUNT(*) AS n FROM SALES_DB.CUSTOMER GROUP BY c_mktsegment (NOT CS)",
            'SELECT MIN("customer"."c_mktsegment") AS "c_mktsegment", COUNT(*) AS "n" FROM '
            '"raw"."customer" AS "customer" GROUP BY TRANSLATE(TRIM(TRAILING \' \' FROM '
            '"customer"."c_mktsegment"), \'abcdefghijklmnopqrstuvwxyz\', '
            '\'ABCDEFGHIJKLMNOPQRSTUVWXYZ\') HAVING CASE WHEN MIN("customer"."c_mktsegment") <> '
            'MAX("customer"."c_mktsegment") THEN RAISE_ERROR(\'CASE-VARIANT: GROUP BY of '
            "c_mktsegment: a group holds values that differ only in case or trailing blanks "
            "(written (NOT CASESPECIFIC)), which the source takes for one value; which of them "
            "it shows is not determined') ELSE TRUE END",
        ),
    ),
)
def case_variant(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return _least_or_greatest(node, ctx) if isinstance(node, (exp.Min, exp.Max)) else None


@rule(
    PAD_RULE,
    "rewrite",
    ("tsql", "teradata", "redshift"),
    (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.In, exp.Distinct, exp.Window),
    "T-SQL, Teradata and Redshift take text values that differ only in trailing blanks ('a', "
    "'a ') for one wherever they look for equal values (PAD-COMPARISON for explicit "
    "comparisons): GROUP BY, SELECT DISTINCT, UNION / INTERSECT / EXCEPT, IN (subquery), "
    "COUNT(DISTINCT), a window's PARTITION BY. Each compares TRIM(TRAILING ' ' FROM x) "
    "(Teradata without case: case-folded too, CASE-VARIANT): COUNT(DISTINCT x), IN and "
    "PARTITION BY are then exact. Where one of a group's values is shown (GROUP BY x with x selected, DISTINCT, "
    "a set operation's row), which one the source shows is not determined when the group "
    "holds more than one: the value is MIN(x), and the query's HAVING holds a run-time guard, "
    "CASE WHEN MIN(x) <> MAX(x) THEN RAISE_ERROR('PAD-VARIANT: ...') ELSE TRUE END (within "
    "its own HAVING condition), so that data without such groups runs exact and a group "
    "with them stops the query. A set operation becomes the "
    "rows of both sides (UNION ALL) grouped by their keys; ROLLUP / CUBE / GROUPING SETS group "
    "by the keys too, a row that leaves the value out showing NULL (GROUPING of its key). "
    "Refused: DISTINCT over groups or window functions, INTERSECT / EXCEPT ALL and a subquery "
    "reading a group's value, where such text is shown.",
    (
        (
            "tsql",
            "SELECT c_mktsegment, COUNT(*) AS n FROM dbo.Customer GROUP BY c_mktsegment",
            'SELECT MIN("customer"."c_mktsegment") AS "c_mktsegment", COUNT(*) AS "n" FROM '
            '"raw"."customer" AS "customer" GROUP BY TRIM(TRAILING \' \' FROM '
            '"customer"."c_mktsegment") HAVING CASE WHEN MIN("customer"."c_mktsegment") <> '
            'MAX("customer"."c_mktsegment") THEN RAISE_ERROR(\'PAD-VARIANT: GROUP BY of '
            "c_mktsegment: a group holds values that differ only in trailing blanks, which the "
            "source takes for one value; which of them it shows is not determined') ELSE TRUE END",
        ),
        (
            "redshift",
            "SELECT COUNT(DISTINCT c_mktsegment) AS n FROM sales.customer",
            'SELECT COUNT(DISTINCT TRIM(TRAILING \' \' FROM "customer"."c_mktsegment")) AS "n" '
            'FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def pad_variant(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return text_groups(node, ctx)
