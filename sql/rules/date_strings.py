"""A date written as a string literal, read as the source reads it.

``d_date BETWEEN '1999-2-01' AND (CAST('1999-2-01' AS DATE) + 60)`` (TPC-DS q16, q94, q95)
converts the text to a date twice: compared with a DATE column, and in a CAST. Each dialect
converts text to a date its own way; the literal is read here once, at translation, and
written as the standard's CAST('yyyy-mm-dd' AS DATE), which both engines read alike:

- T-SQL: a 4-digit year first, then month and day of one or two digits ('1999-2-01', also
  with / or .) is the numeric format ``ymd`` of ``date`` ([yy]yy-[m]m-dd), and SET DATEFORMAT
  ydm is not supported for ``date`` (learn.microsoft.com/sql/t-sql/data-types/date-transact-sql,
  .../statements/set-dateformat-transact-sql): year, month, day. 'yyyymmdd' is unseparated,
  which DATEFORMAT never changes. A script's SET DATEFORMAT other than mdy is refused
  (sql/session.py).
- BigQuery: a string literal in the canonical date format YYYY-[M]M-[D]D coerces to DATE
  where a DATE is expected (cloud.google.com/bigquery/docs/reference/standard-sql/lexical).
- Redshift: a year-first date ('1999-01-08') is year, month, day under the default DateStyle
  MDY (docs.aws.amazon.com/redshift/latest/dg/r_Date_and_time_literals.html); its one-digit
  forms ('1/8/1999') are read alike.
- Oracle: by NLS_DATE_FORMAT, the session's format model (the assumption
  ``oracle_nls_date_format``, Oracle's default for territory AMERICA being DD-MON-RR),
  applied by Oracle's string-to-date conversion rules (SQL Language Reference, "Format
  Models": any punctuation matches any punctuation, a numeric element takes fewer digits
  before punctuation, time fields at the end may be left out, MM may be written as a month
  name and YY or RR as four digits). Text the format does not read is an error in Oracle:
  refused, naming the format. A two-digit year (YY, RR) depends on the current date: refused.
- Snowflake and Teradata read text by a session format: Snowflake's DATE_INPUT_FORMAT, AUTO
  by default, whose list of formats gives YYYY-MM-DD at full width and leaves other widths
  open (docs.snowflake.com/en/sql-reference/date-time-input-output, sql/rules/auto_dates.py);
  Teradata's FORMAT of the DATE (ANSIDate YYYY-MM-DD or IntegerDate YY/MM/DD, the session's
  DateForm), whose elements have their full width. Only 'yyyy-mm-dd' and 'yyyymmdd' are read,
  as before; other text is refused.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import cast, lit
from sql.rules.text_casts import READINGS
from sql.source_dialects import semantics

# 'yyyy-m-d' with - / or . between the parts (one separator throughout).
YEAR_FIRST = re.compile(r"(\d{4})([-/.])(\d{1,2})\2(\d{1,2})")
UNSEPARATED = re.compile(r"(\d{4})(\d{2})(\d{2})")
MONTHS = (
    "JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE",
    "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER",
)  # fmt: skip


@dataclass(frozen=True)
class DateReading:
    """What a date string reads as: ``text`` ('yyyy-mm-dd', or 'yyyy-mm-dd hh:mi:ss' where the
    reading holds a time of day), or why it has no reading (``problem``)."""

    text: str | None = None
    problem: str | None = None
    setting: str | None = None  # the assumption the reading relied on

    @property
    def kind(self) -> str:
        return "TIMESTAMP" if self.text and " " in self.text else "DATE"


def _valid(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def read_date_string(text: str, ctx: Context) -> DateReading:
    """``text`` as ``ctx``'s dialect converts it to a date where it expects one."""
    flags = semantics(ctx.dialect)
    if flags.DATE_TEXT_READ_BY_NLS_FORMAT:
        model = ctx.assume("oracle_nls_date_format")
        if any(c.isalpha() for c in text) and ctx.assume("date_language") != "ENGLISH":
            return DateReading(
                problem=f"{text!r} names a month in the session's date language "
                f"{ctx.assumptions.date_language} (date_language), which is not read here",
                setting="date_language",
            )
        return read_oracle_date(text, model)
    unseparated = UNSEPARATED.fullmatch(text)
    if unseparated:
        day = _valid(*(int(part) for part in unseparated.groups()))
        return DateReading(day) if day else DateReading(problem=f"{text!r} is no calendar date")
    year_first = YEAR_FIRST.fullmatch(text)
    if year_first:
        year, separator, month, day_of_month = year_first.groups()
        padded = separator == "-" and len(month) == len(day_of_month) == 2
        if padded or flags.UNPADDED_DATE_STRINGS:
            day = _valid(int(year), int(month), int(day_of_month))
            if day is None:
                return DateReading(problem=f"{text!r} is no calendar date")
            return DateReading(day)
    return DateReading(
        problem=f"date string {text!r} is read by {READINGS.get(ctx.dialect, 'server settings')}; "
        "write it as 'yyyy-mm-dd'"
    )


# Oracle datetime format elements a date string is read by, longest first.
_ELEMENTS = re.compile(r"YYYY|RRRR|YY|RR|MONTH|MON|MM|DD|HH24|MI|SS", re.IGNORECASE)
_WIDTHS = {"YYYY": 4, "RRRR": 4, "YY": 2, "RR": 2, "MM": 2, "DD": 2, "HH24": 2, "MI": 2, "SS": 2}
_TIME_ELEMENTS = {"HH24", "MI", "SS"}


def _model_tokens(model: str) -> list[str] | None:
    """The elements and punctuation of an Oracle format model, or None when it holds an
    element this reading does not take (quoted text, FX, HH without 24, ...)."""
    tokens: list[str] = []
    position = 0
    while position < len(model):
        match = _ELEMENTS.match(model, position)
        if match:
            tokens.append(match.group(0).upper())
            position = match.end()
        elif not model[position].isalnum():
            tokens.append(model[position])
            position += 1
        else:
            return None
    return tokens


def read_oracle_date(text: str, model: str) -> DateReading:
    """``text`` read by Oracle format model ``model`` (NLS_DATE_FORMAT) as Oracle's
    string-to-date conversion rules read it."""
    setting = "oracle_nls_date_format"
    tokens = _model_tokens(model)
    if tokens is None:
        return DateReading(
            problem=f"NLS_DATE_FORMAT {model!r} (oracle_nls_date_format) holds elements this "
            "translation does not read a date by",
            setting=setting,
        )
    fails = DateReading(
        problem=f"Oracle cannot read {text!r} by NLS_DATE_FORMAT {model!r} "
        "(oracle_nls_date_format), so the statement fails there; if the sessions ran under "
        "another format, set it: --assume oracle_nls_date_format=YYYY-MM-DD",
        setting=setting,
    )
    values: dict[str, int] = {}
    position = 0
    full_width = True  # whether the last numeric element read all its digits
    for index, token in enumerate(tokens):
        if position >= len(text):
            # Time fields at the end of the format may be left out of the text.
            rest = [t for t in tokens[index:] if t not in _TIME_ELEMENTS and t.isalnum()]
            if rest:
                return fails
            break
        if not token.isalnum():  # punctuation: any non-alphanumeric character, or none
            if not text[position].isalnum():
                position += 1
            elif not full_width:
                return fails
            continue
        if token in ("MON", "MONTH") or (token == "MM" and text[position].isalpha()):
            month = _month_name(text, position, token)
            if month is None:
                return fails
            values["MM"], position = month
            full_width = True
            continue
        width = _WIDTHS[token]
        digits = re.match(rf"\d{{1,{width}}}", text[position:])
        if digits is None:
            return fails
        read = digits.group(0)
        if token in ("YY", "RR") and re.match(r"\d{4}", text[position:]):
            read = text[position : position + 4]  # YY -> YYYY, RR -> RRRR
        elif token in ("YY", "RR"):
            return DateReading(
                problem=f"{text!r} gives the year in two digits, which Oracle's {token} reads "
                "by the current date",
                setting=setting,
            )
        position += len(read)
        full_width = len(read) >= width
        values["YYYY" if token in ("YY", "RR", "RRRR") else token] = int(read)
    if text[position:].strip():
        return fails
    if not {"YYYY", "MM", "DD"} <= set(values):
        return DateReading(
            problem=f"NLS_DATE_FORMAT {model!r} (oracle_nls_date_format) leaves out a year, "
            "month or day, which Oracle takes from the current date",
            setting=setting,
        )
    day = _valid(values["YYYY"], values["MM"], values["DD"])
    hour, minute, second = values.get("HH24", 0), values.get("MI", 0), values.get("SS", 0)
    if day is None or hour > 23 or minute > 59 or second > 59:
        return fails
    if hour or minute or second:
        return DateReading(f"{day} {hour:02d}:{minute:02d}:{second:02d}", setting=setting)
    return DateReading(day, setting=setting)


def _month_name(text: str, position: int, token: str) -> tuple[int, int] | None:
    """The month an English name (or, for MON and MM, its three-letter abbreviation) at
    ``position`` names, and where it ends; Oracle tries MONTH for MON and the reverse."""
    word = re.match(r"[A-Za-z]+", text[position:])
    if word is None:
        return None
    name = word.group(0).upper()
    for number, month in enumerate(MONTHS, start=1):
        if name in (month, month[:3]):
            return number, position + len(name)
    return None


def reading_note(reading: DateReading, ctx: Context, node: exp.Expr, rule_id: str) -> None:
    """Report the setting a reading relied on: a warning naming the assumption, or an info
    line where the script states it."""
    if reading.setting is None:
        return
    note = ctx.setting_note(reading.setting)
    model = getattr(ctx.assumptions, reading.setting)
    message = (
        f"{node.sql(ctx.dialect)} is read as {reading.text} by NLS_DATE_FORMAT {model!r}; {note}"
    )
    settings = (reading.setting,)
    if rule_id == "DATE-STRING-CAST":
        ctx.report("warning", "DATE-STRING-CAST", node, message, settings=settings)
    else:
        ctx.report("warning", "DATE-STRING-COMPARISON", node, message, settings=settings)


@rule(
    "DATE-STRING-CAST",
    "rewrite",
    ALL_DIALECTS,
    (exp.Cast,),
    "CAST of a string literal to DATE reads the text as the source converts it: T-SQL, "
    "BigQuery and Redshift read a year-first 'yyyy-m-d' (one- or two-digit month and day) as "
    "that date; Oracle reads it by NLS_DATE_FORMAT (the oracle_nls_date_format assumption, "
    "DD-MON-RR unless set: a warning names it); Snowflake and Teradata only 'yyyy-mm-dd'. "
    "The result is CAST('yyyy-mm-dd' AS DATE); text the source cannot read, or reads by a "
    "setting the translation does not know, is refused.",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate < CAST('1999-2-1' AS DATE)",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" < CAST(\'1999-02-01\' AS DATE)',
        ),
        (
            "oracle",
            "SELECT o_orderkey FROM SALES.ORDERS WHERE o_orderdate < CAST('01-FEB-1999' AS DATE)",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" < CAST(\'1999-02-01\' AS DATE)',
        ),
    ),
)
def date_string_cast(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if not (
        isinstance(value, exp.Literal)
        and value.is_string
        and node.args["to"].this == exp.DType.DATE
        and not node.args.get("format")
    ):
        return None
    reading = read_date_string(value.name, ctx)
    if reading.text is None:
        ctx.report("error", "DATE-STRING-CAST", node, reading.problem or "")
        return node
    if reading.kind != "DATE":
        ctx.report(
            "error",
            "DATE-STRING-CAST",
            node,
            f"{value.sql(ctx.dialect)} reads as {reading.text}, a time of day the translation "
            "does not carry through CAST(... AS DATE); write the date alone",
        )
        return node
    reading_note(reading, ctx, value, "DATE-STRING-CAST")
    if reading.text == value.name:
        return None
    return cast(lit(reading.text), "DATE")
