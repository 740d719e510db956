"""Format strings compiled element by element into exact ANSI expressions.

``TO_CHAR(d, 'YYYY-MM-DD')`` has no ANSI form as a whole, but each numeric element of a
datetime format model does: the field (``EXTRACT``), zero-padded to its width (the digits of
``field + 10^width`` after the first, which holds for every value the field can take), joined
with the literal text by ``||``. Month and day names are a CASE over the field, in English:
BigQuery's by definition, other dialects' under the ``date_language`` assumption. Elements
that depend on settings (week numbering) or have no fixed width are refused, naming the
element. T-SQL's CONVERT styles are format models here too (``tsql_style``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from sqlglot import exp
from sqlglot.time import format_time
from sqlglot.tokens import Tokenizer, TokenType

from sql.assumptions import WEEKDAYS
from sql.rules.auto_dates import NO_DIGITS
from sql.rules.base import Context, rule
from sql.rules.build import (
    TIMESTAMP_TYPES,
    cast,
    clone,
    extract,
    guarded,
    interval,
    lit,
    type_of,
)
from sql.rules.calendar import MONDAY, SUNDAY, day_of_year, weekday_number
from sql.rules.dates import quarter_of
from sql.source_dialects import SOURCE_DIALECTS, semantics

# The dialects whose TO_CHAR / TO_VARCHAR take an Oracle-style datetime format model (the
# numeric elements below mean the same in each: Oracle, Snowflake, Teradata, and Redshift,
# whose PostgreSQL patterns pad YYYY to four digits).
FORMAT_MODEL_DIALECTS = ("oracle", "snowflake", "teradata", "redshift")


def _padded(value: exp.Expr, width: int) -> exp.Expr:
    """The integer ``value`` (0 <= value < 10^width) as exactly ``width`` digits."""
    shifted = exp.Add(this=value, expression=lit(10**width))
    return exp.Substring(this=cast(shifted, "VARCHAR"), start=lit(2))


def _space_padded(value: exp.Expr) -> exp.Expr:
    """A day or hour (0 <= value < 100) as two characters, a space before a single digit."""
    text = cast(value, "VARCHAR")
    below_ten = exp.LT(this=clone(value), expression=lit(10))
    return exp.Case(
        ifs=[exp.If(this=below_ten, true=exp.DPipe(this=lit(" "), expression=text))],
        default=clone(text),
    )


def _hour12(value: exp.Expr) -> exp.Expr:
    """1..12: MOD(hour + 11, 12) + 1."""
    shifted = exp.Add(this=extract("HOUR", value), expression=lit(11))
    return exp.Add(this=exp.Mod(this=shifted, expression=lit(12)), expression=lit(1))


def _meridiem(value: exp.Expr) -> exp.Expr:
    morning = exp.LT(this=extract("HOUR", value), expression=lit(12))
    return exp.Case(ifs=[exp.If(this=morning, true=lit("AM"))], default=lit("PM"))


def _iso_thursday(value: exp.Expr) -> exp.Expr:
    """The Thursday of ``value``'s ISO week (Monday to Sunday): its year is the ISO year,
    and its week of that year the ISO week."""
    weekday = exp.Paren(this=weekday_number(clone(value), MONDAY, 1))
    days = exp.Paren(this=exp.Sub(this=lit(4), expression=weekday))
    return cast(exp.Add(this=cast(value, "DATE"), expression=interval(days, "DAY")), "DATE")


def _iso_year(value: exp.Expr) -> exp.Expr:
    """BigQuery's %G: the ISO year's digits, four from year 1000 on. Its width before year
    1000 is not documented: there the query stops (a guard), rather than guess."""
    year = extract("YEAR", _iso_thursday(value))
    early = exp.LT(this=clone(year), expression=lit(1000))
    return guarded(
        cast(year, "VARCHAR"),
        early,
        "FMT-DATETIME",
        "%G of an ISO year before 1000, whose width BigQuery does not document",
    )


def _week_of(day: exp.Expr) -> exp.Expr:
    """1 + the whole weeks before ``day`` (1-based): FLOOR((day + 6) / 7), the same whether
    `/` truncates or not."""
    return cast(
        exp.Floor(
            this=exp.Div(
                this=exp.Paren(this=exp.Add(this=day, expression=lit(6))), expression=lit(7)
            )
        ),
        "INTEGER",
    )


def _iso_week(value: exp.Expr) -> exp.Expr:
    return _week_of(day_of_year(_iso_thursday(value)))


def _c_week(value: exp.Expr, first: int) -> exp.Expr:
    """C's %U (weeks from Sunday) or %W (from Monday), 0-53: days before the year's first
    such day are week 0. (yday + 7 - weekday) / 7 with a 0-based yday."""
    weekday = exp.Paren(this=weekday_number(clone(value), first, 0))
    days = exp.Add(this=exp.Sub(this=day_of_year(value), expression=weekday), expression=lit(6))
    return cast(exp.Floor(this=exp.Div(this=exp.Paren(this=days), expression=lit(7))), "INTEGER")


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
    "DDD": lambda v: _padded(day_of_year(v), 3),
    "HH12": lambda v: _padded(_hour12(v), 2),
    "HH": lambda v: _padded(_hour12(v), 2),  # Oracle's HH is HH12
    "IW": lambda v: _padded(_iso_week(v), 2),
    "IYYY": lambda v: _padded(extract("YEAR", _iso_thursday(v)), 4),
    "WW": lambda v: _padded(_week_of(day_of_year(v)), 2),  # weeks from January 1
    "W": lambda v: cast(_week_of(extract("DAY", v)), "VARCHAR"),  # weeks from the 1st
}
# Oracle-model elements the dialect's models lack (Snowflake's have no week elements).
# Snowflake documents YYYY, YY, MM, MON, MMMM, DD, DY, HH24, HH12, AM/PM, MI, SS, FF and the
# time zone elements only: Oracle's Q, DDD and HH are not elements of its models (SnowConvert
# writes Redshift's Q as QUARTER, DDD as DAYOFYEAR, HH as HH12), so they are refused, never read
# as Oracle reads them.
NOT_IN_MODELS = {"snowflake": {"IW", "IYYY", "WW", "W", "Q", "DDD", "HH"}}
# Elements of other dialects' formats, under names of their own (never scanned in a model).
OTHER_ELEMENTS: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    # BigQuery's %Y: as many digits as the year takes
    "year": lambda v: cast(extract("YEAR", v), "VARCHAR"),
    "day, space-padded": lambda v: _space_padded(extract("DAY", v)),
    "weekday from Monday 1": lambda v: cast(weekday_number(v, MONDAY, 1), "VARCHAR"),
    "weekday from Sunday 0": lambda v: cast(weekday_number(v, SUNDAY, 0), "VARCHAR"),
    "AM or PM": _meridiem,
    "ISO year": lambda v: _iso_year(v),
    "ISO year, two digits": lambda v: _padded(
        exp.Mod(this=extract("YEAR", _iso_thursday(v)), expression=lit(100)), 2
    ),
    "week from Sunday": lambda v: _padded(_c_week(v, SUNDAY), 2),
    "week from Monday": lambda v: _padded(_c_week(v, MONDAY), 2),
    "month, unpadded": lambda v: cast(extract("MONTH", v), "VARCHAR"),
    "day, unpadded": lambda v: cast(extract("DAY", v), "VARCHAR"),
    "hour, unpadded": lambda v: cast(extract("HOUR", v), "VARCHAR"),
    "12-hour, unpadded": lambda v: cast(_hour12(v), "VARCHAR"),
    "minute, unpadded": lambda v: cast(extract("MINUTE", v), "VARCHAR"),
    "second, unpadded": lambda v: cast(_seconds(v), "VARCHAR"),
}
# Elements that read the time of day: not in a format of a DATE.
TIME_ELEMENTS = {
    "HH24", "HH12", "HH", "MI", "SS", "AM or PM", "hour, unpadded", "12-hour, unpadded",
    "minute, unpadded", "second, unpadded",
}  # fmt: skip

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _names(value: exp.Expr, name: tuple[str, bool, str, bool]) -> exp.Expr:
    """A month or day name in English: ``name`` is (month or day, abbreviated, case
    ("upper", "title", "lower"), blank-padded to the longest full name)."""
    what, short, case, padded = name
    words = MONTHS if what == "month" else WEEKDAYS
    texts = [w[:3] if short else w for w in words]
    texts = [t.upper() if case == "upper" else t.lower() if case == "lower" else t for t in texts]
    if padded:
        width = max(len(t) for t in texts)
        texts = [t.ljust(width) for t in texts]
    if what == "month":
        key, first = extract("MONTH", value), 1
    else:
        key, first = weekday_number(value, MONDAY, 0), 0
    return exp.Case(
        this=key,
        ifs=[exp.If(this=lit(first + i), true=lit(t)) for i, t in enumerate(texts)],
    )


# Elements refused, and why (checked before the ones above, so that e.g. MONTH is not MM...).
REFUSED = {
    "MONTH": "a month name (language-dependent)",
    "MON": "a month name (language-dependent)",
    "MMMM": "a month name (language-dependent)",
    "DAY": "a day name (language-dependent)",
    "DY": "a day name (language-dependent)",
    "AM": "AM/PM (language-dependent)",
    "PM": "AM/PM (language-dependent)",
    "A.M.": "AM/PM (language-dependent)",
    "P.M.": "AM/PM (language-dependent)",
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
    "D": "a day of the week (depends on the first day of the week)",
    "Y,YYY": "a year with a comma",
    "YYY": "a three-digit year",
    "Y": "a one-digit year",
}
LITERAL = set(" -/,.;:")
SCAN = sorted({*ELEMENTS, *REFUSED}, key=len, reverse=True)


class FormatRefusal(Exception):
    """A format element with no exact ANSI form: ``element`` and why."""

    def __init__(self, element: str, why: str) -> None:
        super().__init__(f"format element {element!r} ({why}) has no exact ANSI form")


def _word(text: str, position: int) -> str:
    """The run of letters (or the one character) at ``position``, to name it."""
    match = re.match(r"[A-Za-z]+", text[position:])
    return match.group(0) if match else text[position]


# Month and day names in a format model: element -> (month or day, abbreviated, padded to
# the longest full name as Oracle and Teradata pad MONTH and DAY). Snowflake's MMMM is a
# full month name.
NAME_ELEMENTS = {
    "MONTH": ("month", False, True),
    "MON": ("month", True, False),
    "MMMM": ("month", False, False),
    "DAY": ("day", False, True),
    "DY": ("day", True, False),
}


def _name_case(written: str) -> str | None:
    if written.isupper():
        return "upper"
    if written[0].isupper() and written[1:].islower():
        return "title"
    if written.islower():
        return "lower"
    return None


def _name_token(written: str, dialect: str) -> tuple[str, tuple[str, bool, str, bool]]:
    element = written.upper()
    what, short, padded = NAME_ELEMENTS[element]
    case = _name_case(written)
    if element == "MMMM" and semantics(dialect).FORMAT_NAME_CASE != "title":
        raise FormatRefusal(written, "not a format element")
    if semantics(dialect).FORMAT_NAME_CASE == "title":
        if case != "title" and element != "MMMM":
            raise FormatRefusal(
                written,
                "a name whose case Snowflake's documentation does not settle; write it in "
                "title case (Mon, Dy) to have it translated",
            )
        return "name", (what, short, "title", False)
    if semantics(dialect).FORMAT_NAME_CASE != "element" or case is None:
        raise FormatRefusal(written, REFUSED[element])
    return "name", (what, short, case, padded)


def _model_tokens(model: str, dialect: str = "") -> list[tuple[str, object]]:
    """An Oracle-style format model as ("element", NAME), ("name", NAME SPEC) and
    ("text", TEXT) tokens."""
    tokens: list[tuple[str, object]] = []
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
        written = model[position : position + len(element)]
        if element in NOT_IN_MODELS.get(dialect, ()):
            raise FormatRefusal(written, "not a format element of this dialect")
        if element in NAME_ELEMENTS:
            tokens.append(_name_token(written, dialect))
        elif element in REFUSED:
            raise FormatRefusal(written, REFUSED[element])
        else:
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


def compile_format(tokens: list[tuple[str, object]], value: exp.Expr) -> exp.Expr:
    """The ANSI text expression that prints ``value`` (a DATE or TIMESTAMP) as ``tokens``
    (from a format) do; raises FormatRefusal when no element reads the value, or when an
    element reads the time of day of a DATE."""
    pieces: list[exp.Expr] = []
    text = ""  # literal text not yet added
    date_only = type_of(value) == exp.DType.DATE
    for kind, content in tokens:
        if kind == "text":
            text += str(content)
            continue
        if text:
            pieces.append(lit(text))
            text = ""
        if kind == "name":
            pieces.append(_names(clone(value), content))  # type: ignore[arg-type]
            continue
        if date_only and content in TIME_ELEMENTS:
            raise FormatRefusal(str(content), "a time of day, in the format of a DATE")
        element = ELEMENTS.get(content) or OTHER_ELEMENTS[content]  # type: ignore[call-overload]
        pieces.append(element(clone(value)))
    if text:
        pieces.append(lit(text))
    if not any(kind in ("element", "name") for kind, _ in tokens):
        raise FormatRefusal("".join(c for _, c in tokens), "no date or time element")
    result = pieces[0]
    for piece in pieces[1:]:
        result = exp.DPipe(this=result, expression=piece)
    return result


@rule(
    "FMT-DATETIME",
    "rewrite",
    (*FORMAT_MODEL_DIALECTS, "bigquery", "tsql"),
    (exp.ToChar, exp.TimeToStr),
    "TO_CHAR / TO_VARCHAR of a DATE or TIMESTAMP with a format model of numeric elements "
    "(YYYY, YY, MM, DD, DDD, HH24, HH12, MI, SS, Q, punctuation and quoted text), and "
    "BigQuery's FORMAT_DATE / FORMAT_DATETIME (%Y, %E4Y, %y, %m, %d, %e, %j, %Q, %H, %I, %M, "
    "%S, %p, %u, %w, %V, %g, %U, %W, %F, %D, %T, %%) and T-SQL's FORMAT with a .NET pattern "
    "(yyyy, yy, M, MM, MMM, MMMM, d, dd, ddd, dddd, H, HH, h, hh, m, mm, s, ss, tt, quoted "
    "text), become EXTRACT of each field, zero- or space-padded to its width and joined with "
    "||. Redshift's TO_CHAR (and Snowflake's of a timestamp) is read as written, so Q, IYYY, IW "
    "and the case of names survive sqlglot's strftime codes. BigQuery's %G is the ISO year's "
    "digits, under a guard that stops the query on an ISO year before 1000 (a width BigQuery "
    "does not document). Month and day names (MONTH, Mon, DAY, DY; %B, %b, %A, %a) "
    "are a CASE over the month or the weekday: English in BigQuery by definition, elsewhere "
    "under the date_language assumption (a warning); Oracle, Teradata and Redshift print them "
    "in the element's case and pad MONTH and DAY to nine, Snowflake's are translated in title case "
    "only; T-SQL's AM/PM and / and : separators are the culture's, English under the same "
    "assumption. Fractional seconds, time zones, fill modes, one-letter .NET (standard) "
    "formats, FORMAT with a culture and BigQuery's FORMAT_TIMESTAMP in a time zone other than "
    "UTC are refused, naming the element (FORMAT_TIMESTAMP of an instant without a zone prints "
    "its UTC fields, as EXTRACT reads them on the engines' UTC sessions).",
    (
        (
            "snowflake",
            "SELECT TO_CHAR(o_orderdate, 'YYYY-MM') AS m FROM SALES.ORDERS",
            'SELECT SUBSTRING(CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") + 10000 AS VARCHAR) FROM 2) || \'-\' || SUBSTRING(CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") + 100 AS VARCHAR) FROM 2) AS "m" FROM "raw"."orders" AS "orders"',
        ),
        (
            "bigquery",
            "SELECT FORMAT_DATE('%b %Y', o_orderdate) AS m FROM sales.orders",
            'SELECT CASE EXTRACT(MONTH FROM "orders"."o_orderdate") WHEN 1 THEN \'Jan\' WHEN 2 '
            "THEN 'Feb' WHEN 3 THEN 'Mar' WHEN 4 THEN 'Apr' WHEN 5 THEN 'May' WHEN 6 THEN 'Jun' "
            "WHEN 7 THEN 'Jul' WHEN 8 THEN 'Aug' WHEN 9 THEN 'Sep' WHEN 10 THEN 'Oct' WHEN 11 "
            "THEN 'Nov' WHEN 12 THEN 'Dec' END || ' ' || CAST(EXTRACT(YEAR FROM "
            '"orders"."o_orderdate") AS VARCHAR) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def format_datetime(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("format")
    if not (isinstance(model, exp.Literal) and model.is_string):
        return None  # a number, or a format computed at run time: left to FMT-TO-CHAR
    if semantics(ctx.dialect).DATETIME_FORMAT == "dotnet" and (
        not isinstance(node, exp.TimeToStr) or node.args.get("culture")
    ):
        return None  # FORMAT with a culture: left to FMT-TO-CHAR
    value = _unwrapped(node.this)
    kind = type_of(value)
    if kind == exp.DType.TIMESTAMPTZ and semantics(ctx.dialect).FORMATTED_TIMESTAMPS_IN_UTC:
        # FORMAT_TIMESTAMP prints an instant's fields in UTC unless given a zone; so do the
        # fields EXTRACT reads on the engines, whose sessions are pinned to UTC.
        zone = node.args.get("zone")
        if zone is not None and not (isinstance(zone, exp.Literal) and zone.name == "UTC"):
            return None  # another time zone: left to FMT-TO-CHAR
    elif kind != exp.DType.DATE and kind not in TIMESTAMP_TYPES:
        return None
    try:
        if semantics(ctx.dialect).DATETIME_FORMAT == "dotnet":
            pattern = _source_string_after(node.this, ctx)
            if pattern is None:
                raise FormatRefusal(model.name, "a FORMAT pattern whose text cannot be read back")
            tokens = _dotnet_tokens(pattern)
        elif semantics(ctx.dialect).DATETIME_FORMAT == "percent":
            tokens = _bigquery_tokens(model.name)
        elif isinstance(node, exp.TimeToStr):
            written = _written_model(node, model.name, ctx)
            if written is not None:
                tokens = _model_tokens(written, ctx.dialect)
            else:
                tokens = _strftime_tokens(model.name)
        else:
            tokens = _model_tokens(model.name, ctx.dialect)
        _check_language(tokens, node, ctx)
        return compile_format(tokens, value)
    except FormatRefusal as refusal:
        ctx.report("error", "FMT-DATETIME", node, str(refusal))
        return node  # refused here, with the element: not also as a format string


@rule(
    "FN-TO-CHAR",
    "rewrite",
    ("snowflake", "oracle"),
    (exp.ToChar,),
    "TO_CHAR / TO_VARCHAR(x) without a format is the conversion to text that CAST(x AS "
    "VARCHAR) performs, in Snowflake and Oracle alike (each prints with its default format): "
    "it becomes that CAST, which the CAST-TO-TEXT rule then translates where the source "
    "prints the value as the engines do (integers, dates in Snowflake) and refuses elsewhere "
    "(floats, Oracle decimals). A VARIANT argument is left to the VARIANT rules' refusal.",
    (
        (
            "snowflake",
            "SELECT TO_CHAR(o_orderkey) AS k, TO_VARCHAR(o_orderdate) AS d FROM SALES.ORDERS",
            'SELECT CAST("orders"."o_orderkey" AS VARCHAR) AS "k", CAST("orders"."o_orderdate" '
            'AS VARCHAR) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def to_char_default(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if any(value is not None for key, value in node.args.items() if key != "this"):
        return None  # a format (FMT-DATETIME, else FMT-TO-CHAR) or NLS parameters
    kind = type_of(node.this)
    if kind is None or kind in (exp.DType.UNKNOWN, exp.DType.USERDEFINED):
        return None  # a VARIANT (whose TO_VARCHAR is not its ::string) or an unknown type
    converted = exp.Cast(this=clone(node.this), to=exp.DataType.build("VARCHAR"))
    # Still the source's conversion: the final phase's CAST-TO-TEXT applies to it.
    converted.meta.update(node.meta)
    converted.meta["source"] = True
    return converted


# Text read as a date by a format of fixed-width digit fields: strftime code (as sqlglot reads
# each dialect's format) -> (field, width).
DATE_FIELDS = {"%Y": ("year", 4), "%m": ("month", 2), "%d": ("day", 2)}
TEXT_TYPES = (exp.DType.VARCHAR, exp.DType.TEXT, exp.DType.CHAR, exp.DType.NVARCHAR)


# The same fields as written in a format model, in any case: sqlglot converts only the
# upper-case spellings into strftime codes (Teradata's 'yyyy-mm-dd' stays as written).
MODEL_FIELDS = {"YYYY": "%Y", "Y4": "%Y", "MM": "%m", "DD": "%d"}


def _date_layout(
    codes: str, models: bool, partial: bool = False
) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """The characters a text must have at each position, ("digit" or the separator), and the
    1-based position of each field, for a format of %Y, %m and %d once each (or, where
    ``models``, YYYY, MM and DD in any case; where ``partial``, any of them, at least one)
    and separators; raises FormatRefusal otherwise."""
    layout: list[tuple[str, int]] = []
    fields: dict[str, int] = {}
    position = 0
    while position < len(codes):
        code = codes[position : position + 2]
        word = next(
            (w for w in MODEL_FIELDS if models and codes.upper().startswith(w, position)), None
        )
        if word is not None:
            code = MODEL_FIELDS[word]
        if code in DATE_FIELDS:
            field, width = DATE_FIELDS[code]
            if field in fields:
                raise FormatRefusal(code, "a field given twice")
            fields[field] = len(layout) + 1
            layout.extend(("digit", 0) for _ in range(width))
            position += len(word) if word is not None else 2
        elif codes[position] in "-/.:, ":
            layout.append((codes[position], 0))
            position += 1
        else:
            raise FormatRefusal(
                _word(codes, position) if codes[position] != "%" else code,
                "not a fixed-width year (YYYY), month (MM) or day (DD) element",
            )
    if len(fields) != 3 and not (partial and fields):
        raise FormatRefusal(codes, "a date format without each of year, month and day")
    return layout, fields


# BigQuery's PARSE_DATE: "Any unspecified field is initialized from 1970-01-01."
BIGQUERY_UNSPECIFIED = {"year": "1970", "month": "01", "day": "01"}


def text_to_date(
    text: exp.Expr, codes: str, models: bool = True, unspecified: dict[str, str] | None = None
) -> exp.Expr:
    """``text`` read as a DATE by the format ``codes`` (strftime codes): exactly its width,
    digits where the fields are, the separators where they are, a year other than 0000; then
    the ISO text of the fields (a field the format lacks from ``unspecified``, where given),
    cast to DATE (which checks the month and the day). Any other text becomes a string no
    engine reads as a date, so that the CAST raises on it, as the sources do on text their
    format does not read."""
    layout, fields = _date_layout(codes, models, partial=unspecified is not None)
    checks: list[exp.Expr] = [
        exp.EQ(this=exp.Length(this=clone(text)), expression=lit(len(layout)))
    ]
    for position, (kind, _) in enumerate(layout, start=1):
        char = exp.Substring(this=clone(text), start=lit(position), length=lit(1))
        if kind == "digit":
            checks.append(exp.Between(this=char, low=lit("0"), high=lit("9")))
        else:
            checks.append(exp.EQ(this=char, expression=lit(kind)))

    def piece(field: str, width: int) -> exp.Expr:
        if field not in fields and unspecified is not None:
            return lit(unspecified[field])
        return exp.Substring(this=clone(text), start=lit(fields[field]), length=lit(width))

    if "year" in fields:
        checks.append(exp.NEQ(this=piece("year", 4), expression=lit("0000")))
    iso = exp.DPipe(
        this=exp.DPipe(
            this=exp.DPipe(
                this=exp.DPipe(this=piece("year", 4), expression=lit("-")),
                expression=piece("month", 2),
            ),
            expression=lit("-"),
        ),
        expression=piece("day", 2),
    )
    valid = checks[0]
    for check in checks[1:]:
        valid = exp.And(this=valid, expression=check)
    unreadable = exp.DPipe(this=lit("not a date in the format: "), expression=clone(text))
    chosen = exp.Case(ifs=[exp.If(this=valid, true=iso)], default=unreadable)
    return cast(chosen, "DATE")


@rule(
    "FMT-TO-DATE",
    "rewrite",
    ("snowflake", "oracle", "teradata", "redshift", "bigquery"),
    (exp.StrToDate, exp.TsOrDsToDate),
    "TO_DATE(s, 'YYYYMMDD') (any order of YYYY, MM and DD with - / . : , or space between; "
    "Teradata's CAST(s AS DATE FORMAT '...'), BigQuery's PARSE_DATE('%Y%m%d', s)) of a string "
    "becomes the CAST to DATE of the ISO text built from the fields (SUBSTRING, ||), when the "
    "text has exactly the format's width, digits and separators, and a year other than 0000. "
    "That text reads as the same date in every source and engine; any other text (fewer "
    "digits, other separators, blanks, which some sources accept by rules of their own) "
    "raises, as an invalid month or day does. Snowflake's TRY_TO_DATE of a string column is "
    "the same, and NULL for text without a digit (none of the fields). BigQuery's PARSE_DATE "
    "may leave fields out ('%Y', '%Y-%m'): each one it lacks is 1970-01-01's, as documented. "
    "Other elements (two-digit years, names, times) and other TRY_ / SAFE_ forms are refused. "
    "Teradata's CAST(x AS DATE FORMAT '...') of a DATE or TIMESTAMP is CAST(x AS DATE): the "
    "FORMAT phrase is how the DATE is shown, not how it is read; of a number, it is refused. "
    "Teradata's conversion syntax x (DATE, FORMAT '...') (or without the comma) is that CAST.",
    (
        (
            "snowflake",
            "SELECT TO_DATE(o_clerk, 'YYYYMMDD') AS d FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN CHAR_LENGTH("orders"."o_clerk") = 8 AND SUBSTRING('
            '"orders"."o_clerk" FROM 1 FOR 1) BETWEEN \'0\' AND \'9\' AND SUBSTRING("orders".'
            '"o_clerk" FROM 2 FOR 1) BETWEEN \'0\' AND \'9\' AND SUBSTRING("orders"."o_clerk" '
            "FROM 3 FOR 1) BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 4 FOR 1) "
            "BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 5 FOR 1) BETWEEN '0' "
            "AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 6 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 7 FOR 1) BETWEEN '0' AND '9' AND SUBSTRING("
            '"orders"."o_clerk" FROM 8 FOR 1) BETWEEN \'0\' AND \'9\' AND SUBSTRING("orders".'
            '"o_clerk" FROM 1 FOR 4) <> \'0000\' THEN SUBSTRING("orders"."o_clerk" FROM 1 '
            "FOR 4) || '-' || SUBSTRING(\"orders\".\"o_clerk\" FROM 5 FOR 2) || '-' || SUBSTRING("
            '"orders"."o_clerk" FROM 7 FOR 2) ELSE \'not a date in the format: \' || '
            '"orders"."o_clerk" END AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def to_date(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("format")
    if not (isinstance(model, exp.Literal) and model.is_string):
        return None  # a run-time format: left to the refusals
    safe = bool(node.args.get("safe"))
    if safe and (
        not semantics(ctx.dialect).TRY_READS_TEXT_AS_ITS_CONVERSION
        or isinstance(node.this, exp.Literal)
    ):
        return None  # TRY_TO_DATE of a literal, other dialects' safe forms: refused
    kind = type_of(node.this)
    if (
        node.meta.get("format_phrase")
        and not safe
        and (kind == exp.DType.DATE or kind in (exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ))
    ):
        # Teradata's CAST(d AS DATE FORMAT '...') of a DATE or TIMESTAMP: the FORMAT phrase
        # is how the DATE is shown, not read; the value is CAST(d AS DATE)'s.
        return cast(node.this, "DATE") if kind != exp.DType.DATE else clone(node.this)
    if kind not in TEXT_TYPES:
        return None  # a date already (DATE-LITERAL), a number: not read as text here
    if (
        isinstance(node, exp.StrToDate)
        and model.name == "%Y-%m-%d"
        and (isinstance(node.this, exp.Literal))
    ):
        return None  # DATE-LITERAL
    try:
        value = text_to_date(
            node.this,
            model.name,
            semantics(ctx.dialect).DATETIME_FORMAT != "percent",
            BIGQUERY_UNSPECIFIED if semantics(ctx.dialect).PARSED_DATES_START_AT_EPOCH else None,
        )
    except FormatRefusal as refusal:
        ctx.report("error", "FMT-TO-DATE", node, str(refusal))
        return node
    if not safe:
        return value
    # Snowflake's TRY_TO_DATE: text without a digit has none of the format's fields (NULL);
    # other text it does not read is a NULL or a lenient reading it does not state: raises.
    no_fields = exp.RegexpLike(this=clone(node.this), expression=lit(NO_DIGITS))
    return exp.Case(ifs=[exp.If(this=no_fields, true=exp.Null())], default=value)


# Teradata's FORMAT phrase for a DATE (case-insensitive): the numeric elements, each as a
# format-model element of its fixed width; B is a blank. Names (MMM, EEE...) are refused.
TERADATA_DATE_ELEMENTS = {"YYYY": "YYYY", "Y4": "YYYY", "DDD": "DDD", "YY": "YY", "MM": "MM",
                          "DD": "DD"}  # fmt: skip
ELEMENT_WIDTHS = {"YYYY": 4, "YY": 2, "MM": 2, "DD": 2, "DDD": 3}


def _teradata_date_tokens(phrase: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    position = 0
    upper = phrase.upper()
    while position < len(phrase):
        element = next((e for e in TERADATA_DATE_ELEMENTS if upper.startswith(e, position)), None)
        if upper.startswith(("MMM", "EEE"), position):
            raise FormatRefusal(phrase[position : position + 3], "a month or day name")
        if element is not None:
            tokens.append(("element", TERADATA_DATE_ELEMENTS[element]))
            position += len(element)
        elif upper[position] == "B":
            tokens.append(("text", " "))
            position += 1
        elif phrase[position] in "-/.:, ":
            tokens.append(("text", phrase[position]))
            position += 1
        else:
            raise FormatRefusal(
                _word(phrase, position), "not a numeric date element of a FORMAT phrase"
            )
    return tokens


@rule(
    "TD-CAST-FORMAT",
    "rewrite",
    ("teradata",),
    (exp.Cast,),
    "Teradata's CAST(d AS VARCHAR(n) FORMAT 'YYYY-MM-DD') of a DATE, and CAST(CAST(d AS FORMAT "
    "'...') AS CHAR(n)), print the date by its FORMAT phrase: YYYY (Y4), YY, MM, DD, DDD, "
    "with - / . : , or space between and B for a blank, each field zero-padded to its width "
    "(FMT-DATETIME's EXTRACT and ||). A VARCHAR shorter than the text and a CHAR of another "
    "length (truncation and padding by the session's mode) are refused, as are names (MMM, "
    "EEE) and the FORMAT of a timestamp or a number.",
    (
        (
            "teradata",
            "SELECT CAST(o_orderdate AS VARCHAR(10) FORMAT 'YYYY/MM/DD') AS d FROM SALES_DB.ORDERS",
            'SELECT SUBSTRING(CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") + 10000 AS VARCHAR) '
            'FROM 2) || \'/\' || SUBSTRING(CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") + '
            "100 AS VARCHAR) FROM 2) || '/' || SUBSTRING(CAST(EXTRACT(DAY FROM \"orders\"."
            '"o_orderdate") + 100 AS VARCHAR) FROM 2) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def teradata_cast_format(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args["to"]
    inner = node.this
    if node.args.get("format") is not None:
        formatted, phrase = node, node.args["format"]
    elif isinstance(inner, exp.Cast) and inner.args.get("format") is not None:
        if inner.to.this != exp.DType.UNKNOWN:
            return None
        formatted, phrase = inner, inner.args["format"]
    else:
        return None
    if target.this == exp.DType.UNKNOWN:
        if isinstance(node.parent, exp.Cast):
            return None  # read by the CAST around it
        ctx.report(
            "error",
            "TD-CAST-FORMAT",
            node,
            "CAST(x AS FORMAT '...') keeps the value's type and sets how Teradata prints it, "
            "which has no standard form; cast it to CHAR(n) or VARCHAR(n) to have the text",
        )
        return node
    try:
        if not (isinstance(phrase, exp.Literal) and phrase.is_string):
            raise FormatRefusal(phrase.sql("teradata"), "a FORMAT phrase that is not a literal")
        if type_of(formatted.this) != exp.DType.DATE:
            raise FormatRefusal(phrase.name, "a FORMAT phrase of a value not known to be a DATE")
        if target.this not in TSQL_STRINGS:
            raise FormatRefusal(phrase.name, "a FORMAT phrase in a cast to a type other than text")
        tokens = _teradata_date_tokens(phrase.name)
        width = sum(ELEMENT_WIDTHS[c] if k == "element" else len(str(c)) for k, c in tokens)
        length = target.expressions[0].this if target.expressions else None
        size = int(length.name) if isinstance(length, exp.Literal) and length.is_int else None
        if size is None or size < width:
            raise FormatRefusal(phrase.name, f"{width} characters in a {target.sql('teradata')}")
        if target.this in (exp.DType.CHAR, exp.DType.NCHAR) and size != width:
            raise FormatRefusal(phrase.name, f"{width} characters padded to CHAR({size})")
        return compile_format(tokens, formatted.this)
    except FormatRefusal as refusal:
        ctx.report("error", "TD-CAST-FORMAT", node, str(refusal))
        return node


# Oracle number format models translated: [FM] 9...90...0[.0...0] -- nines, then at least one
# zero (so that the integer part always prints a digit: Oracle blanks a zero integer part
# under nines only, except for a zero value), then as many zeros as decimals (nines there are
# dropped when zero under FM). Commas, D, G, S, MI, PR, $, L, EEEE, V, RN, X are refused.
NUMBER_MODEL = re.compile(r"(?P<fm>FM)?(?P<nines>9*)(?P<zeros>0+)(?:\.(?P<decimals>0{1,6}))?", re.I)
EXACT_NUMERIC = (exp.DType.DECIMAL, exp.DType.BIGINT, exp.DType.INT, exp.DType.SMALLINT,
                 exp.DType.TINYINT)  # fmt: skip


def _left_fill(text: exp.Expr, width: int, fill: str) -> exp.Expr:
    """``text`` preceded by as many ``fill`` characters as it is shorter than ``width``."""
    missing = exp.Sub(this=lit(width), expression=exp.Length(this=clone(text)))
    padding = exp.Substring(this=lit(fill * width), start=lit(1), length=missing)
    longer = exp.GTE(this=exp.Length(this=clone(text)), expression=lit(width))
    return exp.Case(
        ifs=[exp.If(this=longer, true=clone(text))],
        default=exp.DPipe(this=padding, expression=clone(text)),
    )


def oracle_number(value: exp.Expr, model: str) -> exp.Expr:
    """TO_CHAR(value, model) for an exact number and a model NUMBER_MODEL reads: the value
    rounded half away from zero to the model's decimals (a CAST to DECIMAL, which rounds so
    on both engines), its integer digits zero-filled over the model's zeros, a minus sign
    before them, blanks before that up to the model's width plus the sign position (none
    under FM); pound signs, one more than the model's width, when the integer digits do not
    fit. A negative value that rounds to zero (whose sign Oracle's documentation does not
    settle), and an overflow under FM, raise."""
    match = NUMBER_MODEL.fullmatch(model)
    if match is None:
        raise FormatRefusal(model, "a number format beyond [FM]9..90..0[.0..0]")
    fill_mode = bool(match.group("fm"))
    integers = len(match.group("nines")) + len(match.group("zeros"))
    zeros, decimals = len(match.group("zeros")), len(match.group("decimals") or "")
    if integers + decimals > 38:
        raise FormatRefusal(model, "more than 38 digits")
    rounded = cast(value, f"DECIMAL(38, {decimals})")
    text = cast(exp.Abs(this=clone(rounded)), "VARCHAR")
    length = exp.Length(this=clone(text))
    if decimals:
        digits: exp.Expr = exp.Substring(
            this=clone(text),
            start=lit(1),
            length=exp.Sub(this=length, expression=lit(decimals + 1)),
        )
        fraction: exp.Expr | None = exp.Substring(
            this=clone(text), start=exp.Sub(this=clone(length), expression=lit(decimals - 1))
        )
    else:
        digits, fraction = clone(text), None
    negative = exp.LT(this=clone(rounded), expression=lit(0))
    sign = exp.Case(ifs=[exp.If(this=negative, true=lit("-"))], default=lit(""))
    number = exp.DPipe(this=sign, expression=_left_fill(digits, zeros, "0"))
    if not fill_mode:
        number = _left_fill(number, integers + 1, " ")
    if fraction is not None:
        number = exp.DPipe(this=exp.DPipe(this=number, expression=lit(".")), expression=fraction)
    too_wide = exp.GTE(this=exp.Abs(this=clone(rounded)), expression=lit(10**integers))
    # A text no engine reads as an integer, built from the value so that it is not folded
    # into a constant (and raised) where the branch is never taken.
    failing = cast(exp.DPipe(this=lit("TO_CHAR: no exact text for "), expression=text), "INTEGER")
    sign_lost = exp.And(
        this=exp.LT(this=clone(value), expression=lit(0)),
        expression=exp.EQ(this=clone(rounded), expression=lit(0)),
    )
    overflow = cast(failing, "VARCHAR") if fill_mode else lit("#" * (len(model) + 1))
    return exp.Case(
        ifs=[
            exp.If(this=too_wide, true=overflow),
            exp.If(this=sign_lost, true=cast(clone(failing), "VARCHAR")),
        ],
        default=number,
    )


@rule(
    "FMT-NUMBER",
    "rewrite",
    ("oracle",),
    (exp.ToChar,),
    "Oracle's TO_CHAR(n, '[FM]9..90..0[.0..0]') of an exact number (nines, at least one zero "
    "before the point, up to six zero decimals) is built from the standard's text of the "
    "number rounded half away from zero (CAST to DECIMAL(38, d)): zero-filled over the "
    "zeros, a minus sign before the digits, blanks before that to the model's width plus "
    "Oracle's sign position (no blanks under FM), and pound signs (width + 1) when the "
    "integer digits do not fit. A negative value rounding to zero and an FM overflow raise. "
    "Other models (commas, D, G, S, MI, nines after the point, currency, EEEE, V, RN, X), "
    "floats, and number formats of other dialects are refused.",
    (
        (
            "oracle",
            "SELECT TO_CHAR(o_orderkey, 'FM900') AS k FROM SALES.ORDERS",
            'SELECT CASE WHEN ABS(CAST("orders"."o_orderkey" AS DECIMAL(38, 0))) >='
            " 1000 THEN CAST(CAST('TO_CHAR: no exact text for ' || CAST(ABS(CAST(\"o"
            'rders"."o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR) AS INTEGER) AS VAR'
            'CHAR) WHEN "orders"."o_orderkey" < 0 AND CAST("orders"."o_orderkey" AS'
            " DECIMAL(38, 0)) = 0 THEN CAST(CAST('TO_CHAR: no exact text for ' || C"
            'AST(ABS(CAST("orders"."o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR) AS '
            'INTEGER) AS VARCHAR) ELSE CASE WHEN CAST("orders"."o_orderkey" AS DECI'
            "MAL(38, 0)) < 0 THEN '-' ELSE '' END || CASE WHEN CHAR_LENGTH(CAST(ABS"
            '(CAST("orders"."o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR)) >= 2 THEN'
            ' CAST(ABS(CAST("orders"."o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR) E'
            'LSE SUBSTRING(\'00\' FROM 1 FOR 2 - CHAR_LENGTH(CAST(ABS(CAST("orders"."'
            'o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR))) || CAST(ABS(CAST("orders'
            '"."o_orderkey" AS DECIMAL(38, 0))) AS VARCHAR) END END AS "k" FROM "ra'
            'w"."orders" AS "orders"',
        ),
    ),
)
def format_number(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("format")
    if not (isinstance(model, exp.Literal) and model.is_string):
        return None
    if type_of(node.this) not in EXACT_NUMERIC:
        return None  # a date (FMT-DATETIME), a float, an unknown type: FMT-TO-CHAR
    try:
        return oracle_number(node.this, model.name)
    except FormatRefusal as refusal:
        # Named here; FMT-TO-CHAR, the refusal of every format string, reports it too.
        ctx.report("error", "FMT-NUMBER", node, str(refusal))
        return None


def _source_string_after(value: exp.Expr, ctx: Context) -> str | None:
    """The string literal that follows ``value`` and a comma in the source text: T-SQL's
    FORMAT pattern as written (sqlglot rewrites it into strftime codes, losing ddd, t ...)."""
    ends = [n.meta["end"] for n in value.walk() if "end" in n.meta]
    if not ends:
        return None
    start = max(ends) + 1
    # Up to the next statement only: a script's later text is not this call's.
    later = bisect.bisect_right(ctx.statement_starts, start)  # the starts are in order
    stop = ctx.statement_starts[later] if later < len(ctx.statement_starts) else len(ctx.text)
    try:
        tokens = Tokenizer().tokenize(ctx.text[start:stop])
    except Exception:  # sqlglot's TokenError on text it cannot read
        return None
    depth = 0  # the rest of the value (closing parentheses, AS type) comes first
    for position, token in enumerate(tokens):
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
        elif token.token_type == TokenType.COMMA and depth <= 0:
            following = tokens[position + 1] if position + 1 < len(tokens) else None
            if following is not None and following.token_type == TokenType.STRING:
                return following.text
            return None
    return None


# .NET custom date and time format specifiers (T-SQL FORMAT) -> element or name. Under an
# English session language (date_language): names, AM/PM and the '/' and ':' separators
# (the culture's own in .NET) are English.
DOTNET_ELEMENTS: dict[str, tuple[str, object]] = {
    "yyyy": ("element", "YYYY"),
    "yy": ("element", "YY"),
    "MMMM": ("name", ("month", False, "title", False)),
    "MMM": ("name", ("month", True, "title", False)),
    "MM": ("element", "MM"),
    "M": ("element", "month, unpadded"),
    "dddd": ("name", ("day", False, "title", False)),
    "ddd": ("name", ("day", True, "title", False)),
    "dd": ("element", "DD"),
    "d": ("element", "day, unpadded"),
    "HH": ("element", "HH24"),
    "H": ("element", "hour, unpadded"),
    "hh": ("element", "HH12"),
    "h": ("element", "12-hour, unpadded"),
    "mm": ("element", "MI"),
    "m": ("element", "minute, unpadded"),
    "ss": ("element", "SS"),
    "s": ("element", "second, unpadded"),
    "tt": ("element", "AM or PM"),
}
DOTNET_LETTERS = set("yMdHhmsftKzgF")


def _dotnet_tokens(pattern: str) -> list[tuple[str, object]]:
    if len(pattern) == 1:
        raise FormatRefusal(pattern, "a standard .NET format (the culture's own pattern)")
    tokens: list[tuple[str, object]] = []
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char in "'\"":
            end = pattern.find(char, position + 1)
            if end < 0:
                raise FormatRefusal(pattern[position:], "an unterminated quoted text")
            tokens.append(("text", pattern[position + 1 : end]))
            position = end + 1
            continue
        if char == "\\" and position + 1 < len(pattern):
            tokens.append(("text", pattern[position + 1]))
            position += 2
            continue
        if char in DOTNET_LETTERS:
            run = len(pattern[position:]) - len(pattern[position:].lstrip(char))
            specifier = pattern[position : position + run]
            if specifier not in DOTNET_ELEMENTS:
                raise FormatRefusal(
                    specifier, "a fraction of a second, a time zone, an era or a year width"
                )
            tokens.append(DOTNET_ELEMENTS[specifier])
            position += run
            continue
        tokens.append(("text", char))  # any other character stands for itself
        position += 1
    return tokens


def _written_model(node: exp.Expr, codes: str, ctx: Context) -> str | None:
    """The format model of a TO_CHAR that sqlglot read into strftime ``codes`` (Redshift's,
    Snowflake's of a timestamp), as the source wrote it: the codes lose Q, IYYY, IW and the
    case of MON. None when the text after the value is not the literal the codes came from."""
    written = _source_string_after(node.this, ctx)
    if written is None:
        return None
    dialect = SOURCE_DIALECTS.get(ctx.dialect)
    if dialect is None or format_time(written, dialect.TIME_MAPPING, dialect.TIME_TRIE) != codes:
        return None
    return written


def _unwrapped(value: exp.Expr) -> exp.Expr:
    """BigQuery's FORMAT_DATE(f, d) reads as TimeToStr(TsOrDsToDate(d)): a DATE (or, for
    FORMAT_DATETIME, a TIMESTAMP) is itself; anything else stays wrapped, and unknown."""
    if isinstance(value, exp.TsOrDsToDate) and type_of(value.this) == exp.DType.DATE:
        return value.this
    if isinstance(value, exp.TsOrDsToDatetime) and type_of(value.this) in TIMESTAMP_TYPES:
        return value.this
    if isinstance(value, exp.TsOrDsToTimestamp) and type_of(value.this) == exp.DType.TIMESTAMPTZ:
        return value.this  # FORMAT_TIMESTAMP of a TIMESTAMP (an instant)
    return value


def _check_language(tokens: list[tuple[str, object]], node: exp.Expr, ctx: Context) -> None:
    """Month and day names are English in BigQuery (documented); elsewhere they follow a
    session language, assumed (``date_language``) and warned about."""
    cultural = any(kind == "name" for kind, _ in tokens)
    if semantics(ctx.dialect).DATETIME_FORMAT == "dotnet":
        # .NET: AM/PM and the '/' and ':' separators are the culture's
        cultural = cultural or any(
            (kind == "element" and content == "AM or PM")
            or (kind == "text" and ("/" in str(content) or ":" in str(content)))
            for kind, content in tokens
        )
    if semantics(ctx.dialect).DATE_NAMES_ARE_ENGLISH or not cultural:
        return
    language = ctx.assume("date_language")
    if language != "ENGLISH":
        raise FormatRefusal(
            "month or day name",
            f"names and separators in {language} (date_language) are not translated",
        )
    note = ctx.setting_note("date_language")
    ctx.report(
        "warning",
        "FMT-DATETIME",
        node,
        "month and day names (and, in T-SQL's FORMAT, AM/PM and the / and : separators) "
        f"assume the session's date language is English ({note})",
        settings=("date_language",),
    )


# BigQuery's format elements (as sqlglot reads them: %e comes as %-d, %F as %Y-%m-%d, %D and
# %x as %m/%d/%y, %T as %H:%M:%S) -> the element or name printed. Names are English.
BIGQUERY_ELEMENTS: dict[str, tuple[str, object]] = {
    "%Y": ("element", "year"),
    "%E4Y": ("element", "YYYY"),
    "%y": ("element", "YY"),
    "%m": ("element", "MM"),
    "%d": ("element", "DD"),
    "%-d": ("element", "day, space-padded"),
    "%j": ("element", "DDD"),
    "%Q": ("element", "Q"),
    "%H": ("element", "HH24"),
    "%I": ("element", "HH12"),
    "%M": ("element", "MI"),
    "%S": ("element", "SS"),
    "%p": ("element", "AM or PM"),
    "%u": ("element", "weekday from Monday 1"),
    "%w": ("element", "weekday from Sunday 0"),
    "%V": ("element", "IW"),
    "%g": ("element", "ISO year, two digits"),
    "%G": ("element", "ISO year"),
    "%U": ("element", "week from Sunday"),
    "%W": ("element", "week from Monday"),
    "%B": ("name", ("month", False, "title", False)),
    "%b": ("name", ("month", True, "title", False)),
    "%h": ("name", ("month", True, "title", False)),
    "%A": ("name", ("day", False, "title", False)),
    "%a": ("name", ("day", True, "title", False)),
    "%%": ("text", "%"),
    "%n": ("text", "\n"),
    "%t": ("text", "\t"),
}
BIGQUERY_CODE = re.compile(r"%(E4Y|-d|.)", re.DOTALL)


def _bigquery_tokens(codes: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    position = 0
    while position < len(codes):
        if codes[position] != "%":
            tokens.append(("text", codes[position]))
            position += 1
            continue
        match = BIGQUERY_CODE.match(codes, position)
        code = match.group(0) if match else codes[position:]
        if code not in BIGQUERY_ELEMENTS:
            raise FormatRefusal(
                code,
                "a time zone, a fraction of a second, an epoch count or an element with no "
                "fixed text",
            )
        tokens.append(BIGQUERY_ELEMENTS[code])
        position += len(code)
    return tokens


# T-SQL CONVERT(VARCHAR, value, style): the styles that print numbers only (the others
# print names, milliseconds or a varying fraction), as format models; whether the style
# reads the time of day.
TSQL_STYLES: dict[int, str] = {
    1: "MM/DD/YY", 101: "MM/DD/YYYY", 2: "YY.MM.DD", 102: "YYYY.MM.DD",
    3: "DD/MM/YY", 103: "DD/MM/YYYY", 4: "DD.MM.YY", 104: "DD.MM.YYYY",
    5: "DD-MM-YY", 105: "DD-MM-YYYY", 10: "MM-DD-YY", 110: "MM-DD-YYYY",
    11: "YY/MM/DD", 111: "YYYY/MM/DD", 12: "YYMMDD", 112: "YYYYMMDD", 23: "YYYY-MM-DD",
    8: "HH24:MI:SS", 24: "HH24:MI:SS", 108: "HH24:MI:SS",
    20: "YYYY-MM-DD HH24:MI:SS", 120: "YYYY-MM-DD HH24:MI:SS",
}  # fmt: skip
# Styles whose documented text has a time of day. CAST and CONVERT (Transact-SQL), "Date and
# time styles", states one text per style, a datetime's (121 is named the default for date too,
# with the text yyyy-mm-dd hh:mi:ss.mmm); it does not state what such a style prints for a date
# (the time of day left out, or midnight), so a DATE in one of them is refused. The styles of
# the date alone (1-5, 10-12, 101-105, 110-112, 23) print a date's fields as documented.
TSQL_TIME_OF_DAY_STYLES = frozenset(
    {0, 100, 8, 24, 108, 9, 109, 13, 113, 14, 114, 20, 120, 21, 25, 121, 22, 126, 127, 130, 131}
)
WIDTHS = {"YYYY": 4, "YY": 2, "MM": 2, "DD": 2, "HH24": 2, "MI": 2, "SS": 2}
TSQL_STRINGS = (exp.DType.VARCHAR, exp.DType.NVARCHAR, exp.DType.CHAR, exp.DType.NCHAR)


def tsql_style(node: exp.Convert) -> exp.Expr:
    """CONVERT(type, value, style) of a date or time to a string with one of
    :data:`TSQL_STYLES`, as the standard's text of each field; a VARCHAR(n) shorter than
    the style truncates it, as T-SQL does (CONVERT(VARCHAR(7), d, 120) is 'yyyy-mm').
    Raises FormatRefusal otherwise."""
    style, target, value = node.args.get("style"), node.this, node.expression
    number = int(style.name) if isinstance(style, exp.Literal) and style.is_int else None
    kind = type_of(value)
    if kind == exp.DType.DATE and number in TSQL_TIME_OF_DAY_STYLES:
        raise FormatRefusal(
            f"style {number}",
            "a style with a time of day, whose text for a DATE Microsoft's documentation does not "
            "state",
        )
    if number not in TSQL_STYLES:
        raise FormatRefusal(
            f"style {style.sql('tsql')}",
            "a style that prints names, milliseconds or a varying fraction",
        )
    if not (isinstance(target, exp.DataType) and target.this in TSQL_STRINGS):
        raise FormatRefusal(f"style {number}", "a style converting to a type other than a string")
    if kind != exp.DType.DATE and kind not in TIMESTAMP_TYPES:
        raise FormatRefusal(
            f"style {number}", "a style applied to a value not known to be a date or time"
        )
    tokens = _model_tokens(TSQL_STYLES[number])
    width = sum(WIDTHS[c] if k == "element" else len(str(c)) for k, c in tokens)
    text = compile_format(tokens, value)
    length = target.expressions[0].this if target.expressions else None
    size = int(length.name) if isinstance(length, exp.Literal) and length.is_int else None
    if target.this in (exp.DType.CHAR, exp.DType.NCHAR) and size != width:
        raise FormatRefusal(f"style {number}", f"CHAR({size}) pads or cuts the {width} characters")
    if size is not None and size < width:
        return exp.Substring(this=text, start=lit(1), length=lit(size))
    if target.expressions and size is None:
        raise FormatRefusal(f"style {number}", "a string type of unknown length")
    return text
