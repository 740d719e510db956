"""The portable function set: the few functions outside SQL:2016 the ANSI artifact may call.

SQL:2016 has no REPEAT, REVERSE, LPAD, SPLIT_PART, INITCAP, TRANSLATE (its TRANSLATE is a
character-set conversion) or string SPLIT, and no ROUND or REPLACE. Where a source's function
has an exact standard expression, the rules write that (``LPAD(s, 5, '0')`` is a CASE over
SUBSTRING and ``||``). Where it has none, the artifact calls the portable function of the
same name, whose meaning is fixed here, once, for every source and engine:

- ``definition`` says what it returns for every input (NULLs, empty strings, counts below 1),
  in the standard's terms, characters being code points as in ``CHAR_LENGTH``;
- ``native`` is each engine's form of exactly that (``None``: sqlglot's own rendering of the
  node, for functions the engines already read alike), wrapped where the engine's function
  differs; ``tests/sql/test_portable.py`` checks each against hand-written values on both;
- each source's own meaning is the rules' business (``sql/rules/portable_functions.py``):
  they write the portable call only with the arguments, or the guards, under which the
  source's function and the definition agree, and refuse the rest.

The artifact names the functions it calls (``Translation.portable_functions``), and
``plumbline translate --strict`` refuses them: a strict artifact is SQL:2016 alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sql.engines import Engine
from sql.tree import breadth_first


class PortableFunction(exp.Func):
    """A call of a function of the portable set; its name is the SQL name it is written as."""


class PortableRepeat(exp.Expression, PortableFunction):
    arg_types = {"this": True, "times": True}
    _sql_names = ["REPEAT"]


class PortableReverse(exp.Expression, PortableFunction):
    arg_types = {"this": True}
    _sql_names = ["REVERSE"]


class PortableLpad(exp.Expression, PortableFunction):
    arg_types = {"this": True, "length": True, "pad": True}
    _sql_names = ["LPAD"]


class PortableRpad(exp.Expression, PortableFunction):
    arg_types = {"this": True, "length": True, "pad": True}
    _sql_names = ["RPAD"]


class PortableSplitPart(exp.Expression, PortableFunction):
    arg_types = {"this": True, "delimiter": True, "part": True}
    _sql_names = ["SPLIT_PART"]


class PortableSplit(exp.Expression, PortableFunction):
    arg_types = {"this": True, "delimiter": True}
    _sql_names = ["SPLIT"]


class PortableInitcap(exp.Expression, PortableFunction):
    arg_types = {"this": True, "delimiters": True}
    _sql_names = ["INITCAP"]


class PortableTranslate(exp.Expression, PortableFunction):
    arg_types = {"this": True, "source": True, "target": True}
    _sql_names = ["TRANSLATE"]


class PortableRaiseError(exp.Expression, PortableFunction):
    """A run-time guard's failure (``sql/rules/build.py guarded``): never a value."""

    arg_types = {"this": True}
    _sql_names = ["RAISE_ERROR"]


@dataclass(frozen=True)
class Portable:
    """One function of the set: how the artifact writes it and what it means."""

    name: str
    node: type[exp.Func]
    signature: str
    definition: str
    # Per engine: a template in that engine's SQL over the arguments __a, __b, __c (in the
    # order of ``node.arg_types``), or None for sqlglot's own rendering of ``node``.
    native: dict[Engine, str | None]
    result: str = "VARCHAR"


# DuckDB: REVERSE reverses grapheme clusters (e + combining accent stays together) and
# string_split(s, '') gives code points. Spark: split(s, '') gives code points, its own
# split takes a regular expression (the delimiter is quoted as Java's Pattern.quote does),
# and initcap only starts words after a space. Both engines' lpad and rpad (and Spark's
# repeat) take a 32-bit count: a larger one raises an error there.
PORTABLE_FUNCTIONS: tuple[Portable, ...] = (
    Portable(
        "INITCAP",
        PortableInitcap,
        "INITCAP(s VARCHAR, delimiters VARCHAR) -> VARCHAR",
        "Each character c of s in turn: UPPER(c) when it is the first character or the "
        "character before it occurs in delimiters (POSITION(prev IN delimiters) > 0), "
        "LOWER(c) otherwise; concatenated. '' gives ''; delimiters '' capitalises only the "
        "first character. NULL if s or delimiters is NULL. UPPER and LOWER of a character "
        "are the engine's, as they are for UPPER and LOWER themselves.",
        {
            "duckdb": "CASE WHEN __b IS NULL THEN NULL ELSE ARRAY_TO_STRING(LIST_TRANSFORM("
            "STRING_SPLIT(__a, ''), (__x, __i) -> CASE WHEN __i = 1 THEN UPPER(__x) WHEN "
            "STRPOS(__b, STRING_SPLIT(__a, '')[__i - 1]) > 0 THEN UPPER(__x) ELSE LOWER(__x) "
            "END), '') END",
            # transform's index counts from 0; element_at from 1: the character before
            "spark": "CASE WHEN __b IS NULL THEN NULL ELSE ARRAY_JOIN(TRANSFORM(SPLIT(__a, ''), "
            "(__x, __i) -> CASE WHEN __i = 0 THEN UPPER(__x) WHEN INSTR(__b, "
            "ELEMENT_AT(SPLIT(__a, ''), __i)) > 0 THEN UPPER(__x) ELSE LOWER(__x) END), '') END",
        },
    ),
    Portable(
        "LPAD",
        PortableLpad,
        "LPAD(s VARCHAR, n INTEGER, pad VARCHAR) -> VARCHAR",
        "n <= 0: ''. CHAR_LENGTH(s) >= n: SUBSTRING(s FROM 1 FOR n). Otherwise pad repeated "
        "and cut to n - CHAR_LENGTH(s) characters, then s; with pad '' s as it is. NULL if "
        "any argument is NULL.",
        {
            "duckdb": "CASE WHEN __c = '' AND __b > LENGTH(__a) THEN __a "
            "ELSE LPAD(__a, CAST(__b AS INTEGER), __c) END",
            "spark": "LPAD(__a, CAST(__b AS INT), __c)",
        },
    ),
    Portable(
        "RAISE_ERROR",
        PortableRaiseError,
        "RAISE_ERROR(message VARCHAR) -> any type",
        "Stops the statement with an error whose text is message; never returns. The "
        "translation writes it only as the branch of a run-time guard, CASE WHEN <the exact "
        "condition under which the source's result differs> THEN RAISE_ERROR('RULE-ID: why') "
        "ELSE <the exact expression> END, so that data without such rows runs exact and data "
        "with one stops loudly, naming the rule. Its type is the other branch's.",
        {"duckdb": "ERROR(__a)", "spark": "RAISE_ERROR(__a)"},
        result="the type of the guarded expression",
    ),
    Portable(
        "REPEAT",
        PortableRepeat,
        "REPEAT(s VARCHAR, n INTEGER) -> VARCHAR",
        "s concatenated n times; '' for n <= 0 or s = ''. NULL if s or n is NULL.",
        {"duckdb": "REPEAT(__a, __b)", "spark": "REPEAT(__a, CAST(__b AS INT))"},
    ),
    Portable(
        "REPLACE",
        exp.Replace,
        "REPLACE(s VARCHAR, from VARCHAR, to VARCHAR) -> VARCHAR",
        "s with every non-overlapping occurrence of from, left to right, replaced by to "
        "(compared character by character, no collation); from '' leaves s as it is. NULL "
        "if any argument is NULL.",
        {"duckdb": None, "spark": None},
    ),
    Portable(
        "REVERSE",
        PortableReverse,
        "REVERSE(s VARCHAR) -> VARCHAR",
        "The characters (code points) of s in reverse order: a combining mark ends up before "
        "the letter it followed. NULL if s is NULL.",
        {
            "duckdb": "ARRAY_TO_STRING(LIST_REVERSE(STRING_SPLIT(__a, '')), '')",
            "spark": "REVERSE(__a)",
        },
    ),
    Portable(
        "ROUND",
        exp.Round,
        "ROUND(x NUMERIC, n INTEGER) -> NUMERIC",
        "x rounded to n decimal places, halves away from zero, for exact numerics (FN-ROUND "
        "keeps it for those, and warns for floating-point x). NULL if x or n is NULL.",
        {"duckdb": None, "spark": None},
        result="the type of x",
    ),
    Portable(
        "RPAD",
        PortableRpad,
        "RPAD(s VARCHAR, n INTEGER, pad VARCHAR) -> VARCHAR",
        "As LPAD, with the padding after s: n <= 0 gives '', a longer s is cut to its first "
        "n characters.",
        {
            "duckdb": "CASE WHEN __c = '' AND __b > LENGTH(__a) THEN __a "
            "ELSE RPAD(__a, CAST(__b AS INTEGER), __c) END",
            "spark": "RPAD(__a, CAST(__b AS INT), __c)",
        },
    ),
    Portable(
        "SPLIT",
        PortableSplit,
        "SPLIT(s VARCHAR, delimiter VARCHAR) -> VARCHAR ARRAY",
        "The fields of s between occurrences of delimiter, left to right, empty fields kept "
        "('a,,b' gives ['a', '', 'b']); s without delimiter gives ARRAY[s], '' gives ARRAY[''], "
        "and delimiter '' gives the characters of s. NULL if s or delimiter is NULL.",
        {
            "duckdb": "CASE WHEN __b IS NULL THEN NULL WHEN __a = '' THEN [''] "
            "ELSE STRING_SPLIT(__a, __b) END",
            # Spark splits at an empty regex between code points, at an empty quoted one
            # between UTF-16 units
            "spark": "CASE WHEN __b = '' THEN SPLIT(__a, '') ELSE SPLIT(__a, CONCAT('\\\\Q', "
            "REPLACE(__b, '\\\\E', '\\\\E\\\\\\\\E\\\\Q'), '\\\\E'), -1) END",
        },
        result="VARCHAR ARRAY",
    ),
    Portable(
        "SPLIT_PART",
        PortableSplitPart,
        "SPLIT_PART(s VARCHAR, delimiter VARCHAR, n INTEGER) -> VARCHAR",
        "The n-th field of s between occurrences of delimiter (as SPLIT, but delimiter '' "
        "leaves s whole: one field) counting from 1, or for n < 0 the -n-th from the end; '' "
        "when there is no such field. "
        "n = 0 raises an error. NULL if any argument is NULL.",
        {
            "duckdb": "CASE WHEN __a IS NULL OR __b IS NULL OR __c IS NULL THEN NULL "
            "WHEN __c = 0 THEN ERROR('SPLIT_PART: part 0 does not exist') "
            "WHEN __b = '' THEN CASE WHEN __c IN (1, -1) THEN __a ELSE '' END "
            "ELSE SPLIT_PART(__a, __b, __c) END",
            "spark": "SPLIT_PART(__a, __b, __c)",
        },
    ),
    Portable(
        "TRANSLATE",
        PortableTranslate,
        "TRANSLATE(s VARCHAR, from VARCHAR, to VARCHAR) -> VARCHAR",
        "Each character of s that occurs in from is replaced by the character at the same "
        "position in to (the first occurrence in from counts), or removed when to is "
        "shorter; other characters are kept. NULL if any argument is NULL.",
        {"duckdb": "TRANSLATE(__a, __b, __c)", "spark": "TRANSLATE(__a, __b, __c)"},
    ),
)

BY_NODE: dict[type[exp.Expr], Portable] = {f.node: f for f in PORTABLE_FUNCTIONS}
BY_NAME: dict[str, Portable] = {f.name: f for f in PORTABLE_FUNCTIONS}
# The classes of this module, which nothing but a rule writes (sqlglot's own Repeat, Pad...
# are what the sources parse to, and stay outside the ANSI allow-list).
PORTABLE_NODES: tuple[type[PortableFunction], ...] = tuple(
    f.node for f in PORTABLE_FUNCTIONS if issubclass(f.node, PortableFunction)
)


def arguments(node: exp.Func) -> list[exp.Expr]:
    """A portable call's arguments in declaration order (the template's __a, __b, ...)."""
    return [node.args[name] for name in node.arg_types]


def _from_args(kind: type[PortableFunction]):
    def build(args: list[exp.Expr]) -> exp.Expr:
        return kind(**dict(zip(kind.arg_types, args, strict=True)))

    return build


# How sql/ansi.py's parser reads each name back.
PARSERS = {kind._sql_names[0]: _from_args(kind) for kind in PORTABLE_NODES}


def uses(tree: exp.Expr) -> list[tuple[str, exp.Expr]]:
    """Each call of a portable function in ``tree`` with its name, in tree order."""
    return [
        (BY_NODE[type(node)].name, node) for node in breadth_first(tree) if type(node) in BY_NODE
    ]


def guard_rule(node: PortableRaiseError) -> str:
    """The rule a run-time guard names: its message's prefix, ``RULE-ID: why``
    (``sql/rules/build.py failure``, the one writer of RAISE_ERROR)."""
    message = node.this
    text = message.name if isinstance(message, exp.Literal) else ""
    return text.split(": ", 1)[0] if ": " in text else "RAISE_ERROR"


def used_names(tree: exp.Expr) -> tuple[str, ...]:
    """The names of the portable functions ``tree`` calls, sorted."""
    return tuple(sorted({name for name, _ in uses(tree)}))


__all__ = [
    "BY_NAME",
    "BY_NODE",
    "PARSERS",
    "PORTABLE_FUNCTIONS",
    "PORTABLE_NODES",
    "Portable",
    "PortableFunction",
    "PortableInitcap",
    "PortableLpad",
    "PortableRaiseError",
    "PortableRepeat",
    "PortableReverse",
    "PortableRpad",
    "PortableSplit",
    "PortableSplitPart",
    "PortableTranslate",
    "arguments",
    "guard_rule",
    "used_names",
    "uses",
]
