"""Format strings compiled element by element into exact ANSI expressions.

``TO_CHAR(d, 'YYYY-MM-DD')`` has no ANSI form as a whole, but each numeric element of a
datetime format model does: the field (``EXTRACT``), zero-padded to its width (the digits of
``field + 10^width`` after the first, which holds for every value the field can take), joined
with the literal text by ``||``. Elements whose text depends on a language (month and day
names, AM/PM), on settings (week numbering) or that have no fixed width are refused, naming
the element.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from sql.rules import Context, rule
from sql.rules.build import TIMESTAMP_TYPES, cast, clone, extract, lit, type_of
from sql.rules.dates import quarter_of

# The dialects whose TO_CHAR / TO_VARCHAR take an Oracle-style datetime format model (the
# numeric elements below mean the same in each: Oracle, Snowflake, Teradata, and Redshift,
# whose PostgreSQL patterns pad YYYY to four digits).
FORMAT_MODEL_DIALECTS = ("oracle", "snowflake", "teradata", "redshift")


def _padded(value: exp.Expr, width: int) -> exp.Expr:
    """The integer ``value`` (0 <= value < 10^width) as exactly ``width`` digits."""
    shifted = exp.Add(this=value, expression=lit(10**width))
    return exp.Substring(this=cast(shifted, "VARCHAR"), start=lit(2))


def _seconds(value: exp.Expr) -> exp.Expr:
    # EXTRACT(SECOND) carries the fraction on some engines: the element is whole seconds.
    return cast(exp.Floor(this=extract("SECOND", value)), "INTEGER")


# Element (upper case) -> how to print it from the value; longest first when scanning.
ELEMENTS: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "YYYY": lambda v: _padded(extract("YEAR", v), 4),
    "HH24": lambda v: _padded(extract("HOUR", v), 2),
    "YY": lambda v: _padded(exp.Mod(this=extract("YEAR", v), expression=lit(100)), 2),
    "MM": lambda v: _padded(extract("MONTH", v), 2),
    "DD": lambda v: _padded(extract("DAY", v), 2),
    "MI": lambda v: _padded(extract("MINUTE", v), 2),
    "SS": lambda v: _padded(_seconds(v), 2),
    "Q": lambda v: cast(quarter_of(v), "VARCHAR"),
}
# Elements refused, and why (checked before the ones above, so that e.g. MONTH is not MM...).
REFUSED = {
    "MONTH": "a month name (language-dependent)",
    "MON": "a month name (language-dependent)",
    "MMMM": "a month name (language-dependent)",
    "DAY": "a day name (language-dependent)",
    "DY": "a day name (language-dependent)",
    "DDD": "the day of the year",
    "HH12": "a 12-hour clock (with AM/PM, language-dependent)",
    "HH": "a 12-hour clock (with AM/PM, language-dependent)",
    "AM": "AM/PM (language-dependent)",
    "PM": "AM/PM (language-dependent)",
    "A.M.": "AM/PM (language-dependent)",
    "P.M.": "AM/PM (language-dependent)",
    "IYYY": "an ISO week-numbering year",
    "IW": "an ISO week number",
    "WW": "a week number",
    "FM": "fill mode (no padding)",
    "FX": "exact-match mode",
    "FF": "fractional seconds",
    "SSSSS": "seconds past midnight",
    "SYYYY": "a signed year",
    "RRRR": "a round year",
    "RR": "a round year",
    "TZH": "a time zone",
    "TZM": "a time zone",
    "TZR": "a time zone",
    "J": "a Julian day",
    "W": "a week of the month",
    "D": "a day of the week (depends on the first day of the week)",
    "Y,YYY": "a year with a comma",
    "YYY": "a three-digit year",
    "Y": "a one-digit year",
}
LITERAL = set(" -/,.;:")
SCAN = sorted([*ELEMENTS, *REFUSED], key=len, reverse=True)


class FormatRefusal(Exception):
    """A format element with no exact ANSI form: ``element`` and why."""

    def __init__(self, element: str, why: str) -> None:
        super().__init__(f"format element {element!r} ({why}) has no exact ANSI form")


def _word(text: str, position: int) -> str:
    """The run of letters (or the one character) at ``position``, to name it."""
    match = re.match(r"[A-Za-z]+", text[position:])
    return match.group(0) if match else text[position]


def _model_tokens(model: str) -> list[tuple[str, str]]:
    """An Oracle-style format model as ("element", NAME) and ("text", TEXT) tokens."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(model):
        char = model[position]
        if char == '"':  # quoted literal text
            end = model.find('"', position + 1)
            if end < 0:
                raise FormatRefusal(model[position:], "an unterminated quoted text")
            tokens.append(("text", model[position + 1 : end]))
            position = end + 1
            continue
        if char in LITERAL:
            tokens.append(("text", char))
            position += 1
            continue
        upper = model[position:].upper()
        element = next((e for e in SCAN if upper.startswith(e)), None)
        if element is None:
            raise FormatRefusal(_word(model, position), "not a format element")
        if element in REFUSED:
            raise FormatRefusal(model[position : position + len(element)], REFUSED[element])
        tokens.append(("element", element))
        position += len(element)
    return tokens


# sqlglot reads Redshift's (PostgreSQL) patterns, and Snowflake's where it knows the value is a
# timestamp, into strftime codes; these are the ones whose element is numeric (YYYY pads to
# four digits in both). Quoted text comes back as bare letters, indistinguishable from an
# element sqlglot did not convert, and is refused.
STRFTIME_DIALECTS = ("redshift", "snowflake")
STRFTIME = {"%Y": "YYYY", "%y": "YY", "%m": "MM", "%d": "DD", "%H": "HH24", "%M": "MI", "%S": "SS"}


def _strftime_tokens(codes: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(codes):
        if codes.startswith("%", position):
            code = codes[position : position + 2]
            if code not in STRFTIME:
                raise FormatRefusal(code, "not a numeric date or time element")
            tokens.append(("element", STRFTIME[code]))
            position += 2
        elif codes[position] in LITERAL:
            tokens.append(("text", codes[position]))
            position += 1
        else:  # a letter the pattern conversion kept: an element it did not know
            raise FormatRefusal(_word(codes, position), "not a format element")
    return tokens


def compile_format(tokens: list[tuple[str, str]], value: exp.Expr) -> exp.Expr:
    """The ANSI text expression that prints ``value`` (a DATE or TIMESTAMP) as ``tokens``
    (from a format) do; raises FormatRefusal when no element reads the value."""
    pieces: list[exp.Expr] = []
    text = ""  # literal text not yet added
    for kind, content in tokens:
        if kind == "text":
            text += content
            continue
        if text:
            pieces.append(lit(text))
            text = ""
        pieces.append(ELEMENTS[content](clone(value)))
    if text:
        pieces.append(lit(text))
    if not any(kind == "element" for kind, _ in tokens):
        raise FormatRefusal("".join(c for _, c in tokens), "no date or time element")
    result = pieces[0]
    for piece in pieces[1:]:
        result = exp.DPipe(this=result, expression=piece)
    return result


@rule(
    "FMT-DATETIME",
    "rewrite",
    FORMAT_MODEL_DIALECTS,
    (exp.ToChar, exp.TimeToStr),
    "TO_CHAR / TO_VARCHAR of a DATE or TIMESTAMP with a format model of numeric elements "
    "(YYYY, YY, MM, DD, HH24, MI, SS, Q, punctuation and quoted text) becomes EXTRACT of each "
    "field, zero-padded to its width and joined with ||. Names (MON, DAY, AM), week numbers, "
    "fractional seconds and fill modes are refused, naming the element; so is a value with a "
    "time zone.",
    (
        (
            "snowflake",
            "SELECT TO_CHAR(o_orderdate, 'YYYY-MM') AS m FROM SALES.ORDERS",
            'SELECT SUBSTRING(CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") + 10000 AS VARCHAR) FROM 2) || \'-\' || SUBSTRING(CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") + 100 AS VARCHAR) FROM 2) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def format_datetime(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("format")
    if not (isinstance(model, exp.Literal) and model.is_string):
        return None  # a number, or a format computed at run time: left to FMT-TO-CHAR
    if isinstance(node, exp.TimeToStr) and ctx.dialect not in STRFTIME_DIALECTS:
        return None  # BigQuery's and T-SQL's formats: not compiled yet (FMT-TO-CHAR)
    value = node.this
    kind = type_of(value)
    if kind != exp.DType.DATE and kind not in TIMESTAMP_TYPES:
        return None
    try:
        if isinstance(node, exp.TimeToStr):
            tokens = _strftime_tokens(model.name)
        else:
            tokens = _model_tokens(model.name)
        return compile_format(tokens, value)
    except FormatRefusal as refusal:
        ctx.report("error", "FMT-DATETIME", node, str(refusal))
        return node  # refused here, with the element: not also as a format string
