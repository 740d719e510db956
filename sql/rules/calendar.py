"""Date literals, day arithmetic with plain numbers, and calendar parts ANSI EXTRACT lacks."""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from sql.assumptions import WEEKDAYS
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    STRING_TYPES,
    TIMESTAMP_TYPES,
    cast,
    clone,
    day_number,
    extract,
    first_of_month,
    integer_literal,
    interval,
    lit,
    positive_mod,
    type_of,
)
from sql.rules.date_strings import read_date_string, reading_note
from sql.source_dialects import semantics

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# A date (months and days of one or two digits), or a date and time, as ISO 8601 writes
# it: what BigQuery's DATE(string) and Snowflake's TO_TIMESTAMP_NTZ(string) read without a
# format (sql/rules/dates.py). ISO_DATE above is the strict form the date rules accept.
ISO_DATE_PARTS = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
ISO_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?")


def iso_date(text: str) -> str | None:
    """``text`` as 'YYYY-MM-DD' when it is a valid calendar date in ISO form, else None."""
    match = ISO_DATE_PARTS.fullmatch(text.strip())
    if match is None:
        return None
    try:
        return dt.date(*(int(part) for part in match.groups())).isoformat()
    except ValueError:
        return None


def iso_timestamp(text: str) -> str | None:
    """``text`` as 'YYYY-MM-DD HH:MM:SS[.ffffff]' when it is a valid ISO date and time (or a
    date: midnight), else None."""
    text = text.strip()
    if (day := iso_date(text)) is not None:
        return f"{day} 00:00:00"
    match = ISO_TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day_of_month, hour, minute, second, fraction = match.groups()
    try:
        value = dt.datetime(
            int(year), int(month), int(day_of_month), int(hour), int(minute), int(second or 0)
        )
    except ValueError:
        return None
    return value.isoformat(sep=" ") + (fraction or "")


@rule(
    "DATE-LITERAL",
    "rewrite",
    ALL_DIALECTS,
    (exp.DateStrToDate, exp.TsOrDsToDate, exp.TimeStrToTime, exp.StrToDate),
    "DATE 'yyyy-mm-dd', TO_DATE('yyyy-mm-dd', 'YYYY-MM-DD') and ISO date strings used as dates "
    "become CAST('yyyy-mm-dd' AS DATE); TO_DATE of a timestamp becomes CAST(t AS DATE); other "
    "formats, and Snowflake's TO_DATE / TRY_TO_DATE of a string with a format (applied "
    "leniently) or of unknown type, are refused; of a string column without a format it is "
    "SF-AUTO-DATE.",
    (
        (
            "oracle",
            "SELECT o_orderkey FROM SALES.ORDERS WHERE o_orderdate >= DATE '1998-01-01'",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" >= CAST(\'1998-01-01\' AS DATE)',
        ),
    ),
)
def date_literal(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if isinstance(node, exp.StrToDate):
        fmt = node.args.get("format")
        if fmt is None or fmt.name != "%Y-%m-%d":
            return None  # left for the FMT-TO-CHAR refusal
    if isinstance(value, exp.Literal) and value.is_string and ISO_DATE.match(value.name):
        target = "TIMESTAMP" if isinstance(node, exp.TimeStrToTime) else "DATE"
        return cast(value, target)
    if isinstance(node, (exp.TsOrDsToDate, exp.TimeStrToTime)) and type_of(value) in (
        exp.DType.DATE,
        *TIMESTAMP_TYPES,
    ):
        if isinstance(node, exp.TsOrDsToDate) and type_of(value) in TIMESTAMP_TYPES:
            return cast(value, "DATE")  # TO_DATE(timestamp): the date part
        return clone(value)
    fmt = node.args.get("format")
    if isinstance(fmt, exp.Literal) and fmt.is_string and not node.args.get("safe"):
        return None  # a literal format: FMT-TO-DATE reads the text strictly by it, or refuses
    if (
        isinstance(node, exp.TsOrDsToDate)
        and semantics(ctx.dialect).DATE_TEXT_READ_BY_INPUT_FORMAT
        and (type_of(value) is None or type_of(value) in STRING_TYPES)
    ):
        column = not isinstance(value, exp.Literal) and type_of(value) in STRING_TYPES
        literal_format = isinstance(fmt, exp.Literal) and fmt.is_string
        if column and (not fmt or literal_format):
            # SF-AUTO-DATE reads the string as AUTO does, FMT-TO-DATE by a literal format
            # (TRY_TO_DATE too), or they make it raise.
            return None
        name = "TRY_TO_DATE" if node.args.get("safe") else "TO_DATE"
        how = (
            "the format it names, which Snowflake applies leniently"
            if node.args.get("format")
            else "DATE_INPUT_FORMAT (AUTO: a format detected per value, an integer string "
            "counting seconds since 1970)"
        )
        if type_of(value) is None and not isinstance(value, exp.Literal):
            # e.g. TO_TIMESTAMP_LTZ(n), whose date depends on the session's time zone
            message = (
                f"{name} of a value of unknown type (text is read by {how}): no exact ANSI "
                "form; give the value a DATE or TIMESTAMP type"
            )
        else:
            message = (
                f"{name} of a string reads it by {how}: no exact ANSI form; give the value a "
                "DATE type"
            )
        ctx.report("error", "DATE-LITERAL", node, message)
        return node
    return None


MONDAY, SUNDAY = 0, 6


def weekday_number(date: exp.Expr, first: int, base: int) -> exp.Expr:
    """Day of week numbered from ``base`` for weeks starting on ``first`` (0 = Monday ...
    6 = Sunday): day_number counts from a Monday."""
    number = day_number(date)
    shift = (7 - first) % 7  # + shift is - first modulo 7, and keeps the operand positive
    if shift:
        number = exp.Add(this=number, expression=lit(shift))
    weekday = positive_mod(number, 7)
    return exp.Add(this=weekday, expression=lit(base)) if base else weekday


def day_of_year(date: exp.Expr) -> exp.Expr:
    month = extract("MONTH", date)
    january_first = exp.Sub(
        this=first_of_month(cast(date, "DATE")),
        expression=interval(exp.Sub(this=month, expression=lit(1)), "MONTH"),
    )
    start = cast(cast(january_first, "DATE"), "TIMESTAMP")
    end = cast(cast(date, "DATE"), "TIMESTAMP")
    days = extract("DAY", exp.Paren(this=exp.Sub(this=end, expression=start)))
    return exp.Add(this=days, expression=lit(1))


def week_in_year(date: exp.Expr, first: int, week_of_january_first: int) -> exp.Expr:
    """The week of the year holding ``date``, weeks starting on ``first`` (0 = Monday ...
    6 = Sunday): ``week_of_january_first`` is 1 where the week holding January 1 is week 1
    (T-SQL), 0 where days before the year's first ``first`` day are week 0 (C's %U / %W,
    BigQuery's WEEK). From the day of year and the 0-based weekday of ``date``: the year's
    first ``first`` day starts week FLOOR((day of year + 6 - weekday) / 7) = 1, and for
    T-SQL the days before it are week 1 too, FLOOR((day of year + 12 - weekday) / 7) (the
    two differ by one unless January 1 is a ``first`` day)."""
    weekday = exp.Paren(this=weekday_number(clone(date), first, 0))
    days = exp.Sub(
        this=exp.Add(this=day_of_year(date), expression=lit(12 if week_of_january_first else 6)),
        expression=weekday,
    )
    return exp.Floor(this=exp.Div(this=exp.Paren(this=days), expression=lit(7)))


def iso_week(date: exp.Expr) -> exp.Expr:
    """ISO 8601 week 1..53: the week of its year that the Thursday of ``date``'s Monday-to-
    Sunday week falls in, FLOOR((day of year of that Thursday + 6) / 7)."""
    weekday = exp.Paren(this=weekday_number(clone(date), MONDAY, 1))
    thursday = cast(
        exp.Add(
            this=cast(date, "DATE"),
            expression=interval(exp.Paren(this=exp.Sub(this=lit(4), expression=weekday)), "DAY"),
        ),
        "DATE",
    )
    days = exp.Add(this=day_of_year(thursday), expression=lit(6))
    return exp.Floor(this=exp.Div(this=exp.Paren(this=days), expression=lit(7)))


WEEKDAY_PARTS = {"DAYOFWEEK", "DOW", "WEEKDAY", "DW", "DAYOFWEEKISO", "ISODOW", "DAYOFWEEK_ISO"}
YEARDAY_PARTS = {"DAYOFYEAR", "DOY", "DY", "YEARDAY"}


@rule(
    "WEEKDAY",
    "rewrite",
    ALL_DIALECTS,
    (exp.Extract, exp.DayOfWeek, exp.DayOfWeekIso, exp.DayOfYear),
    "Day of week and day of year are computed from the day count since Monday 1900-01-01. "
    "BigQuery (Sunday=1), Redshift (Sunday=0) and ISO parts are fixed; T-SQL DATEPART(weekday) "
    "and Snowflake DAYOFWEEK depend on DATEFIRST / WEEK_START and are translated assuming the "
    "defaults (Sunday=1; Sunday=0) with a warning.",
    (
        (
            "bigquery",
            "SELECT EXTRACT(DAYOFWEEK FROM l_shipdate) AS wd FROM sales.lineitem",
            'SELECT CAST(MOD((MOD((EXTRACT(DAY FROM (CAST(CAST("lineitem"."l_shipdate" AS DATE) AS TIMESTAMP) - CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP))) + 1), 7) + 7), 7) + 1 AS BIGINT) AS "wd" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
)
def weekday(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.Extract):
        part, date = node.this.name.upper(), node.expression
    else:
        part, date = (
            {exp.DayOfWeek: "DAYOFWEEK", exp.DayOfWeekIso: "ISODOW", exp.DayOfYear: "DOY"}[
                type(node)
            ],
            node.this,
        )
    if part in YEARDAY_PARTS:
        return day_of_year(date)
    if part not in WEEKDAY_PARTS:
        return None
    if part in ("DAYOFWEEKISO", "ISODOW", "DAYOFWEEK_ISO"):
        return weekday_number(date, MONDAY, 1)
    if semantics(ctx.dialect).WEEKS_START_ON_DATEFIRST:
        datefirst = ctx.assume("tsql_datefirst")
        note = ctx.setting_note("tsql_datefirst")
        ctx.report(
            "warning",
            "TSQL-DATEFIRST",
            node,
            f"weekday numbering assumes SET DATEFIRST {datefirst} "
            f"({WEEKDAYS[datefirst - 1]} = 1); {note}",
            settings=("tsql_datefirst",),
        )
        return weekday_number(date, datefirst - 1, 1)
    if semantics(ctx.dialect).WEEKS_START_ON_WEEK_START:
        week_start = ctx.assume("snowflake_week_start")
        first = f"{WEEKDAYS[week_start - 1]} = 1" if week_start else "Sunday = 0"
        note = ctx.setting_note("snowflake_week_start")
        ctx.report(
            "warning",
            "SF-WEEK-START",
            node,
            f"DAYOFWEEK assumes WEEK_START = {week_start} ({first}); {note}",
            settings=("snowflake_week_start",),
        )
        return (
            weekday_number(date, week_start - 1, 1)
            if week_start
            else weekday_number(date, SUNDAY, 0)
        )
    if semantics(ctx.dialect).DAY_OF_WEEK_OF_SUNDAY is not None:
        return weekday_number(date, SUNDAY, semantics(ctx.dialect).DAY_OF_WEEK_OF_SUNDAY)
    return None


@rule(
    "DATE-PART-FUNCTION",
    "rewrite",
    ALL_DIALECTS,
    (exp.Year, exp.Month, exp.Day, exp.Quarter),
    "YEAR(d) / MONTH(d) / DAY(d) / QUARTER(d) become EXTRACT (QUARTER from the month).",
    (
        (
            "tsql",
            "SELECT YEAR(o_orderdate) AS y, MONTH(o_orderdate) AS m FROM dbo.Orders",
            'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS INTEGER) AS "y", CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") AS INTEGER) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def date_part_function(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    date = node.this
    while isinstance(date, (exp.TsOrDsToDate, exp.TimeStrToTime)) and type_of(date.this):
        date = date.this
    if isinstance(node, exp.Quarter):
        month = extract("MONTH", date)
        quarter = exp.Floor(
            this=exp.Div(
                this=exp.Paren(this=exp.Add(this=month, expression=lit(2))), expression=lit(3)
            )
        )
        return cast(quarter, "INTEGER")
    part = {exp.Year: "YEAR", exp.Month: "MONTH", exp.Day: "DAY"}[type(node)]
    return extract(part, date)


BASIC_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


def _date_string(literal: exp.Expr) -> str | None:
    """The ISO form of a 'yyyy-mm-dd' or 'yyyymmdd' string literal, else None."""
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return None
    if ISO_DATE.match(literal.name):
        return literal.name
    basic = BASIC_DATE.match(literal.name)
    return "-".join(basic.groups()) if basic else None


STRICT_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?")


def _timestamp_string(literal: exp.Expr) -> str | None:
    """A 'yyyy-mm-dd hh:mi:ss[.ffffff]' string literal naming a valid moment, else None."""
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return None
    if not STRICT_TIMESTAMP.fullmatch(literal.name):
        return None
    return iso_timestamp(literal.name)


@rule(
    "DATE-STRING-COMPARISON",
    "rewrite",
    ALL_DIALECTS,
    (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between),
    "A DATE compared with a string literal converts the string to a date in the source, read "
    "here as the source reads it (sql/rules/date_strings.py): 'yyyy-mm-dd' and 'yyyymmdd' "
    "become CAST('yyyy-mm-dd' AS DATE), as does a year-first 'yyyy-m-d' in T-SQL, BigQuery "
    "and Redshift; Oracle reads the text by NLS_DATE_FORMAT (oracle_nls_date_format, "
    "DD-MON-RR unless set: a warning names it); compared with a TIMESTAMP in Snowflake, "
    "BigQuery or Redshift, 'yyyy-mm-dd hh:mi:ss[.ffffff]' becomes CAST('...' AS TIMESTAMP); "
    "other text depends on server date-format settings and is refused.",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate >= '19950101'",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" >= CAST(\'1995-01-01\' AS DATE)',
        ),
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate BETWEEN '1999-2-01' AND '1999-4-1'",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" BETWEEN CAST(\'1999-02-01\' AS DATE) AND CAST(\'1999-04-01\' AS DATE)',
        ),
        (
            "oracle",
            "SELECT o_orderkey FROM SALES.ORDERS WHERE o_orderdate >= '01-FEB-1999'",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" >= CAST(\'1999-02-01\' AS DATE)',
        ),
    ),
)
def date_string_comparison(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    keys = ("this", "low", "high") if isinstance(node, exp.Between) else ("this", "expression")
    operands = {key: node.args.get(key) for key in keys}
    dated = [
        k
        for k, v in operands.items()
        if v is not None and type_of(v) in (exp.DType.DATE, *TIMESTAMP_TYPES)
    ]
    strings = [k for k, v in operands.items() if isinstance(v, exp.Literal) and v.is_string]
    if not dated or not strings:
        return None
    target = "TIMESTAMP" if type_of(operands[dated[0]]) in TIMESTAMP_TYPES else "DATE"
    rewritten = clone(node)
    for key in strings:
        iso = None
        if target == "TIMESTAMP" and semantics(ctx.dialect).ISO_TIMESTAMP_STRINGS:
            iso = _timestamp_string(operands[key])
        if iso is None:
            # sql/rules/date_strings.py: as the dialect reads the text as a date.
            reading = read_date_string(operands[key].name, ctx)
            if reading.text is None:
                ctx.report("error", "DATE-STRING-COMPARISON", operands[key], reading.problem or "")
                return None
            reading_note(reading, ctx, operands[key], "DATE-STRING-COMPARISON")
            iso = reading.text
            if reading.kind == "TIMESTAMP":
                target = "TIMESTAMP"
        rewritten.set(key, cast(lit(iso), target))
    return rewritten


def _reported_by_weekday(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return None  # the WEEKDAY rule reports these warnings


rule(
    "TSQL-DATEFIRST",
    "warn",
    ("tsql",),
    (),
    "DATEPART(weekday, d) depends on SET DATEFIRST; translated assuming the us_english default "
    "DATEFIRST 7 (Sunday = 1), with a warning.",
    (
        (
            "tsql",
            "SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders",
            'SELECT CAST(MOD((MOD((EXTRACT(DAY FROM (CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP) - CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP))) + 1), 7) + 7), 7) + 1 AS INTEGER) AS "wd" FROM "raw"."orders" AS "orders"',
        ),
    ),
)(_reported_by_weekday)
rule(
    "SF-WEEK-START",
    "warn",
    ("snowflake",),
    (),
    "DAYOFWEEK(d) depends on the WEEK_START parameter; translated assuming the default 0 "
    "(Sunday = 0 ... Saturday = 6), with a warning.",
    (
        (
            "snowflake",
            "SELECT DAYOFWEEK(o_orderdate) AS wd FROM SALES.ORDERS",
            'SELECT CAST(MOD((MOD((EXTRACT(DAY FROM (CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP) - CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP))) + 1), 7) + 7), 7) AS BIGINT) AS "wd" FROM "raw"."orders" AS "orders"',
        ),
    ),
)(_reported_by_weekday)


# The years a T-SQL or BigQuery DATE holds; a date outside them is an error there.
MIN_YEAR, MAX_YEAR = 1, 9999


def _strict_date(year: exp.Expr, month: exp.Expr, day: exp.Expr) -> exp.Expr:
    """The date of computed parts where an invalid one is an error, as in T-SQL and
    BigQuery: CAST of the ISO text 'yyyy-mm-dd', the CAST raising on a day the month lacks.
    Parts outside their ranges give '' (which no CAST reads) rather than digits a CAST might
    read (month 112 padded to 2 digits is '12'); a NULL part gives NULL text, so NULL."""
    in_range = exp.and_(
        exp.Between(this=clone(year), low=lit(MIN_YEAR), high=lit(MAX_YEAR)),
        exp.Between(this=clone(month), low=lit(1), high=lit(12)),
        exp.Between(this=clone(day), low=lit(1), high=lit(31)),
    )

    def digits(part: exp.Expr, width: int) -> exp.Expr:
        shifted = exp.Add(this=clone(part), expression=lit(10**width))
        return exp.Substring(this=cast(shifted, "VARCHAR"), start=lit(2))

    text = exp.DPipe(
        this=exp.DPipe(
            this=exp.DPipe(
                this=exp.DPipe(this=digits(year, 4), expression=lit("-")),
                expression=digits(month, 2),
            ),
            expression=lit("-"),
        ),
        expression=digits(day, 2),
    )
    checked = exp.Case(
        ifs=[exp.If(this=exp.Not(this=exp.Paren(this=in_range)), true=lit(""))], default=text
    )
    return cast(checked, "DATE")


def _normalised_date(year: exp.Expr, month: exp.Expr, day: exp.Expr) -> exp.Expr:
    """Snowflake's DATE_FROM_PARTS, which carries out-of-range parts over (month 13 is January
    of the next year, day 0 the last day of the previous month): January 1 of year 2000 plus
    (year - 2000) * 12 + month - 1 months, then day - 1 days. Every step from a first of a
    month lands on a first of a month, so no month arithmetic clamps."""
    months = exp.Sub(
        this=exp.Add(
            this=exp.Mul(
                this=exp.Paren(this=exp.Sub(this=clone(year), expression=lit(2000))),
                expression=lit(12),
            ),
            expression=clone(month),
        ),
        expression=lit(1),
    )
    first = exp.Add(this=cast(lit("2000-01-01"), "DATE"), expression=interval(months, "MONTH"))
    days = exp.Sub(this=clone(day), expression=lit(1))
    return cast(exp.Add(this=first, expression=interval(days, "DAY")), "DATE")


@rule(
    "DATE-FROM-PARTS",
    "rewrite",
    ("tsql", "bigquery", "snowflake"),
    (exp.DateFromParts,),
    "DATEFROMPARTS / DATE(y, m, d) / DATE_FROM_PARTS with literal parts becomes "
    "CAST('yyyy-mm-dd' AS DATE). Computed integer parts: in T-SQL and BigQuery, where an "
    "invalid date is an error, the CAST of the ISO text built from the parts (zero-padded "
    "digits, '' for a part out of range, so that the CAST raises wherever the source does); in "
    "Snowflake, which carries out-of-range months and days over, interval arithmetic from "
    "January 1 of 2000. A NULL part gives NULL; parts that are not integers are refused.",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate >= DATEFROMPARTS(1998, 1, 2)",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_orderdate" >= CAST(\'1998-01-02\' AS DATE)',
        ),
        (
            "tsql",
            "SELECT DATEFROMPARTS(o_shippriority, 1, 2) AS d FROM dbo.Orders",
            'SELECT CAST(CASE WHEN NOT ("orders"."o_shippriority" BETWEEN 1 AND 9999 AND 1 '
            "BETWEEN 1 AND 12 AND 2 BETWEEN 1 AND 31) THEN '' ELSE "
            'SUBSTRING(CAST("orders"."o_shippriority" + 10000 AS VARCHAR) FROM 2) || \'-\' || '
            "SUBSTRING(CAST(1 + 100 AS VARCHAR) FROM 2) || '-' || SUBSTRING(CAST(2 + 100 AS "
            'VARCHAR) FROM 2) END AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
        (
            "snowflake",
            "SELECT DATE_FROM_PARTS(2024, o_shippriority, 0) AS d FROM SALES.ORDERS",
            "SELECT CAST(CAST('2000-01-01' AS DATE) + ((2024 - 2000) * 12 + "
            "\"orders\".\"o_shippriority\" - 1) * INTERVAL '1' MONTH + (0 - 1) * INTERVAL '1' "
            'DAY AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def date_from_parts(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    parts = [node.args.get(key) for key in ("year", "month", "day")]
    if any(p is None for p in parts):
        ctx.report("error", "DATE-FROM-PARTS", node, "a date needs a year, a month and a day")
        return None
    normalise = semantics(ctx.dialect).DATE_FROM_PARTS_NORMALISES
    if all(isinstance(p, exp.Literal) and p.is_int for p in parts):
        year, month, day = (int(p.name) for p in parts)
        try:
            iso = dt.date(year, month, day).isoformat()
        except ValueError:
            if not normalise:
                ctx.report(
                    "error", "DATE-FROM-PARTS", node, f"{year}-{month}-{day} is not a valid date"
                )
                return None
        else:
            return cast(lit(iso), "DATE")
    if not all(isinstance(p, exp.Null) or type_of(p) in INTEGER_TYPES for p in parts):
        ctx.report(
            "error",
            "DATE-FROM-PARTS",
            node,
            "date parts must be integers (CAST a part that is a string or a decimal)",
        )
        return None
    if any(isinstance(p, exp.Null) for p in parts):
        return cast(exp.Null(), "DATE")
    if normalise:
        return _normalised_date(*parts)
    for part, (low, high) in zip(parts, ((MIN_YEAR, MAX_YEAR), (1, 12), (1, 31)), strict=True):
        value = integer_literal(part)
        if value is not None and not low <= value <= high:
            ctx.report(
                "error",
                "DATE-FROM-PARTS",
                part,
                f"{value} is out of range ({low} to {high}): the date is an error on every row",
            )
            return None
    return _strict_date(*parts)
