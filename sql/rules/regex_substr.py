"""Regular-expression extraction as the standard's SUBSTRING_REGEX (SQL:2008 feature F844).

Extraction asks more of a pattern than a match does (sql/rules/regex.py): *which* substring
matches. Flavours agree on that only where a pattern leaves no choice. Backtracking
engines (RE2 and Java, which run the result; BigQuery's RE2; Oracle's and Snowflake's
Perl-style extensions of POSIX) take the first match in priority order, POSIX's
leftmost-longest rule the longest: ``(ab)?(abcd)?`` over ``abcd`` is ``ab`` in one and
``abcd`` in the other, and a lazy ``[0-9]+?`` stops at the first digit where a greedy one
takes them all. So a pattern is translated only when it is *deterministic*: a sequence of
single-character atoms (characters, classes, ``.``), each optionally repeated, where every
atom of variable count is disjoint from each atom that may come right after it (through
optional ones, up to the first mandatory one). Then at every start the matching text is
forced character by character and the greedy and the longest match are one; the leftmost
start is the same in every flavour, and so is each next occurrence, searched after the end
of the previous one. Groups are allowed when not repeated and without alternation (every
group then takes part in every match, so ``GROUP n`` is the same everywhere); a pattern
that can match the empty string is refused (Oracle's empty result is NULL, the others'
'').
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import STRING_TYPES, clone, lit, type_of
from sql.rules.regex import FLAVOURS, PatternError, translate_pattern
from sql.source_dialects import semantics

RULE = "FN-REGEXP-SUBSTR"
# Which dialects' extraction functions this rule reads. Redshift's REGEXP_SUBSTR returns ''
# when nothing matches (https://docs.aws.amazon.com/redshift/latest/dg/REGEXP_SUBSTR.html),
# where SUBSTRING_REGEX is NULL: COALESCE(..., '') over a string that is not NULL.
DIALECTS = ("bigquery", "oracle", "redshift", "snowflake")
ANY = "any"  # the set of every character


@dataclass(frozen=True)
class Atom:
    """One single-character piece of a deterministic pattern, repeated low..high times
    (high None: unbounded); ``chars`` is a set of characters, or its complement."""

    chars: frozenset[str]
    negated: bool
    low: int
    high: int | None

    @property
    def variable(self) -> bool:
        return self.high != self.low


def _disjoint(a: Atom, b: Atom) -> bool:
    if a.negated and b.negated:
        return False
    if a.negated:
        return b.chars <= a.chars
    if b.negated:
        return a.chars <= b.chars
    return not (a.chars & b.chars)


_ESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


def _class(text: str, at: int) -> tuple[frozenset[str], bool, int]:
    """The class written by translate_pattern at ``text[at] == '['``: its characters,
    whether it is negated, and the index after its ``]``."""
    at += 1
    negated = text[at] == "^"
    at += negated
    if text.startswith("\\s\\S]", at):  # PostgreSQL's `.` and LIKE's `_`: everything
        return frozenset(), True, at + 5
    members: list[str] = []
    while text[at] != "]":
        if text[at] == "\\":
            if text[at + 1] in "sS":
                raise PatternError("\\" + text[at + 1], "inside [...] is not single characters")
            char = _ESCAPED.get(text[at + 1], text[at + 1])
            at += 2
        else:
            char = text[at]
            at += 1
        if text[at] == "-" and text[at + 1] != "]":
            at += 1
            if text[at] == "\\":
                high = _ESCAPED.get(text[at + 1], text[at + 1])
                at += 2
            else:
                high = text[at]
                at += 1
            members.extend(chr(c) for c in range(ord(char), ord(high) + 1))
        else:
            members.append(char)
    return frozenset(members), negated, at + 1


def _repeat(text: str, at: int) -> tuple[int, int | None, int]:
    """The repetition after an atom (``*``, ``{2,3}`` ...): low, high and the next index."""
    char = text[at] if at < len(text) else ""
    if char == "*":
        return 0, None, at + 1
    if char == "+":
        return 1, None, at + 1
    if char == "?":
        return 0, 1, at + 1
    if char == "{":
        end = text.index("}", at)
        low, comma, high = text[at + 1 : end].partition(",")
        top = int(high) if high else (None if comma else int(low))
        return int(low), top, end + 1
    return 1, 1, at


def deterministic_atoms(text: str) -> tuple[list[Atom], int]:
    """``text`` (a pattern translate_pattern wrote, anchors stripped) as its atoms and the
    number of its groups; PatternError where a flavour could extract another substring."""
    atoms: list[Atom] = []
    groups = 0
    at = 0
    while at < len(text):
        char = text[at]
        if char == "(":
            groups += 1
            at += 1
            continue
        if char == ")":
            if at + 1 < len(text) and text[at + 1] in "*+?{":
                raise PatternError(")" + text[at + 1], "(a repeated group) leaves a choice")
            at += 1
            continue
        if char == "|":
            raise PatternError("|", "(an alternation) extracts a different text per flavour")
        if char in "^$":
            raise PatternError(char, "inside the pattern has no exact common form here")
        if char == "[":
            chars, negated, at = _class(text, at)
        elif char == "\\":
            chars, negated, at = frozenset(_ESCAPED.get(text[at + 1], text[at + 1])), False, at + 2
        else:
            chars, negated, at = frozenset(char), False, at + 1
        low, high, at = _repeat(text, at)
        atoms.append(Atom(chars, negated, low, high))
    for index, atom in enumerate(atoms):
        if not atom.variable:
            continue
        for later in atoms[index + 1 :]:
            if not _disjoint(atom, later):
                raise PatternError(
                    text, "repeats a character that may also come next: the flavours split it "
                    "differently (give the repetition a class the next element excludes)"
                )  # fmt: skip
            if later.low >= 1:
                break
    if all(atom.low == 0 for atom in atoms):
        raise PatternError(text, "can match the empty string")
    return atoms, groups


def _positive(node: exp.Expr | None, default: int) -> int | None:
    if node is None:
        return default
    if isinstance(node, exp.Literal) and node.is_int and int(node.name) >= 1:
        return int(node.name)
    return None


@rule(
    RULE,
    "rewrite",
    DIALECTS,
    (exp.RegexpExtract, exp.RegexpSubstr),
    "Regular-expression extraction (Oracle and Snowflake REGEXP_SUBSTR(s, p[, position[, "
    "occurrence[, 'c'[, group]]]]), BigQuery REGEXP_EXTRACT / REGEXP_SUBSTR(s, p[, position[, "
    "occurrence]]), whose one capturing group, if any, is the result) is the standard's "
    "SUBSTRING_REGEX(p IN s FROM position OCCURRENCE n GROUP g) (F844): NULL when nothing "
    "matches, as in the sources but Redshift's REGEXP_SUBSTR(s, p[, position[, occurrence]]), "
    "which is '' then (COALESCE(..., '') for a string that is not NULL). Which substring matches is the same in every flavour only "
    "for a deterministic pattern: single-character elements, each repeated element disjoint "
    "from whatever may follow it (`[^,]+`, `[0-9]{4}-[0-9]{2}`, `id=([0-9]+)`), groups not "
    "repeated, no alternation, not matching the empty string, `^` only with position 1. "
    "Other patterns (greedy and longest matches differ), lazy quantifiers, match flags, "
    "non-literal patterns, positions or occurrences, and values that are not strings are refused, naming why.",
    (
        (
            "oracle",
            "SELECT REGEXP_SUBSTR(c_phone, '[^-]+', 1, 2) AS part FROM SALES.CUSTOMER",
            'SELECT SUBSTRING_REGEX(\'[^\\-]+\' IN "customer"."c_phone" FROM 1 OCCURRENCE 2 '
            'GROUP 0) AS "part" FROM (SELECT NULLIF("customer"."c_phone", \'\') AS "c_phone" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
        (
            "bigquery",
            "SELECT REGEXP_EXTRACT(c_name, r'#(\\d+)') AS n FROM sales.customer",
            'SELECT SUBSTRING_REGEX(\'#([0-9]+)\' IN "customer"."c_name" FROM 1 OCCURRENCE 1 '
            'GROUP 1) AS "n" FROM "raw"."customer" AS "customer"',
        ),
        (
            "snowflake",
            "SELECT REGEXP_SUBSTR(c_name, '^[A-Z][a-z]+') AS w FROM SALES.CUSTOMER",
            'SELECT SUBSTRING_REGEX(\'^[A-Z][a-z]+\' IN "customer"."c_name" FROM 1 '
            'OCCURRENCE 1 GROUP 0) AS "w" FROM "raw"."customer" AS "customer"',
        ),
        (
            "redshift",
            "SELECT REGEXP_SUBSTR(c_phone, '[0-9]+') AS digits FROM sales.customer",
            'SELECT CASE WHEN "customer"."c_phone" IS NULL THEN NULL ELSE '
            'COALESCE(SUBSTRING_REGEX(\'[0-9]+\' IN "customer"."c_phone" FROM 1 OCCURRENCE 1 '
            'GROUP 0), \'\') END AS "digits" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def regexp_substr(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    def refuse(at: exp.Expr, why: str) -> exp.Expr:
        ctx.report("error", RULE, at, why)
        return node

    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return refuse(pattern, "a regular expression that is not a literal cannot be checked")
    if type_of(node.this) not in STRING_TYPES:
        return refuse(node.this, "extraction is translated from a string (CAST it), not BYTES, "
                      "numbers or a value of unknown type")  # fmt: skip
    position = _positive(node.args.get("position"), 1)
    occurrence = _positive(node.args.get("occurrence"), 1)
    if position is None or occurrence is None:
        at = node.args["position"] if position is None else node.args["occurrence"]
        return refuse(at, "the position and occurrence must be integer literals from 1")
    parameters = node.args.get("parameters")
    if parameters is not None and not (
        isinstance(parameters, exp.Literal) and parameters.name in ("", "c")
    ):
        return refuse(parameters, f"match flags {parameters.sql()} are not translated")
    text = pattern.name
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL and text == "":
        return refuse(pattern, "Oracle reads the empty pattern as NULL")
    try:
        translated = translate_pattern(text, FLAVOURS[ctx.dialect], whole=False, lazy=False)
        body = translated[1:] if translated.startswith("^") else translated
        if body.endswith("$") and not body.endswith("\\$"):
            body = body[:-1]
        if translated.startswith("^") and position != 1:
            raise PatternError("^", "with a position after 1 means the string's start")
        _, groups = deterministic_atoms(body)
    except PatternError as error:
        return refuse(pattern, f"regular expression element {error}")
    group = node.args.get("group")
    returns_its_group = semantics(ctx.dialect).REGEX_EXTRACT_RETURNS_ITS_GROUP
    if "(?" in text and (returns_its_group or (group is not None and group.name != "0")):
        # translate_pattern writes (?:...) as a plain group, which would shift the numbers
        return refuse(pattern, "a non-capturing group (?:...) with a group extracted")
    if returns_its_group:
        if groups > 1:
            return refuse(pattern, "BigQuery refuses a pattern with more than one group")
        number = groups
    else:
        number = _positive(group, 0) if group is not None and group.name != "0" else 0
        if number is None or number > groups:
            return refuse(group or node, "the group must be a literal group of the pattern")
    result = exp.RegexpExtract(
        this=clone(node.this),
        expression=lit(translated),
        position=lit(position),
        occurrence=lit(occurrence),
        group=lit(number),
    )
    result.type = exp.DataType.build("VARCHAR")
    if semantics(ctx.dialect).REGEX_SUBSTR_OF_NO_MATCH_IS_EMPTY:
        empty = exp.Coalesce(this=result, expressions=[lit("")])
        return exp.Case(
            ifs=[
                exp.If(this=exp.Is(this=clone(node.this), expression=exp.Null()), true=exp.Null())
            ],
            default=empty,
        )
    return result
