"""Date arithmetic, differences, parts and truncation in standard SQL only.

ANSI has no DATEADD/DATEDIFF/DATE_TRUNC; everything is built from EXTRACT, CAST and
interval arithmetic whose intermediate dates are always valid (see ``build.add_months``).
Results are cast back to the operand's type because ``DATE + INTERVAL`` is a TIMESTAMP
in some engines.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from sql.assumptions import WEEKDAYS
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    MONTH_END,
    MONTH_START,
    NUMERIC_TYPES,
    STRING_TYPES,
    TIMESTAMP_TYPES,
    add_months,
    cast,
    clone,
    day_number,
    extract,
    first_of_month,
    guarded,
    integer_literal,
    interval,
    last_of_month,
    lit,
    paren,
    positive_mod,
    type_of,
    typed,
)
from sql.rules.calendar import (
    ISO_DATE,
    SUNDAY,
    iso_date,
    iso_timestamp,
    iso_week,
    week_in_year,
)
from sql.source_dialects import semantics

DAY_UNITS = {"DAY", "DAYS", "D", "DD", "DY"}
MONTH_UNITS = {"MONTH", "MONTHS", "MM", "M", "MON", "MONTHNAME"}
YEAR_UNITS = {"YEAR", "YEARS", "YY", "YYYY", "Y", "YYY", "SYYYY", "YEAR_"}
QUARTER_UNITS = {"QUARTER", "QUARTERS", "Q", "QQ"}
# Truncation to the week starting on the named day, Monday first.
WEEK_UNITS = tuple(day.upper() for day in WEEKDAYS)
# The ISO 8601 week (Monday to Sunday, week 1 holds the year's first Thursday), as T-SQL
# (iso_week), Snowflake (WEEKISO) and BigQuery (ISOWEEK) name it: no setting changes it.
ISO_WEEK_PARTS = {"WEEKISO", "ISOWEEK", "WEEK_ISO", "WEEKOFYEARISO"}
EXTRACTABLE = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}
# Computed by the WEEKDAY rule (sql/rules/calendar.py), not refused here.
CALENDAR_PARTS = {
    "DAYOFWEEK", "DOW", "WEEKDAY", "DW", "DAYOFWEEKISO", "ISODOW", "DAYOFWEEK_ISO",
    "DAYOFYEAR", "DOY", "DY", "YEARDAY",
}  # fmt: skip


def _unit(node: exp.Expr) -> str:
    if isinstance(node.expression, exp.Interval):
        node = node.expression
    unit = node.args.get("unit")
    name = unit.name if unit is not None else "DAY"
    return name.upper()


def _canonical_unit(unit: str) -> str | None:
    for canonical, spellings in (
        ("DAY", DAY_UNITS),
        ("MONTH", MONTH_UNITS),
        ("YEAR", YEAR_UNITS),
        ("QUARTER", QUARTER_UNITS),
    ):
        if unit in spellings:
            return canonical
    return None


def _unwrap(operand: exp.Expr, ctx: Context) -> exp.Expr:
    """Drop the string-to-date coercions sqlglot wraps around date arguments, and type an
    ISO date string the way the dialect converts it (T-SQL: datetime; others: date)."""
    while isinstance(operand, (exp.TimeStrToTime, exp.TsOrDsToDate)) and type_of(operand.this):
        operand = operand.this
    if isinstance(operand, exp.Literal) and operand.is_string and ISO_DATE.match(operand.name):
        return cast(operand, semantics(ctx.dialect).DATE_STRING_TYPE)
    return operand


def quarter_of(date: exp.Expr) -> exp.Expr:
    """1..4: FLOOR((month + 2) / 3), the same whether `/` truncates or not."""
    month = extract("MONTH", date)
    quarter = exp.Floor(
        this=exp.Div(this=exp.Paren(this=exp.Add(this=month, expression=lit(2))), expression=lit(3))
    )
    return cast(quarter, "INTEGER")


def sunday_week(date: exp.Expr) -> exp.Expr:
    """Index of the Sunday-to-Saturday week holding ``date`` (1900-01-01 was a Monday)."""
    days = exp.Add(this=day_number(date), expression=lit(1))
    return cast(exp.Floor(this=exp.Div(this=cast(days, "DOUBLE"), expression=lit(7))), "BIGINT")


def _date_kind(node: exp.Expr, operand: exp.Expr, ctx: Context, rule_id: str) -> str | None:
    """DATE or TIMESTAMP, the type the result is cast back to; reports when unknown."""
    dtype = type_of(operand)
    if dtype == exp.DType.DATE:
        return "DATE"
    if dtype in TIMESTAMP_TYPES:
        return "TIMESTAMP"
    ctx.report(
        "error",
        rule_id,
        node,
        "date arithmetic on an operand that is not a typed DATE or TIMESTAMP; "
        "CAST it first so the result type is known",
    )
    return None


TIME_UNITS = {
    "HOUR": {"HOUR", "HOURS", "HH"},
    "MINUTE": {"MINUTE", "MINUTES", "MI", "N"},
    "SECOND": {"SECOND", "SECONDS", "SS", "S"},
}


def _shift(date: exp.Expr, amount: exp.Expr, unit: str, kind: str, *, keep_eom: bool) -> exp.Expr:
    if unit == "WEEK":
        unit, amount = "DAY", exp.Mul(this=exp.Paren(this=clone(amount)), expression=lit(7))
    if unit in ("DAY", *TIME_UNITS):
        return cast(exp.Add(this=clone(date), expression=interval(amount, unit)), kind)
    months = amount
    if unit == "YEAR":
        months = exp.Mul(this=clone(amount), expression=lit(12))
    elif unit == "QUARTER":
        months = exp.Mul(this=clone(amount), expression=lit(3))
    return cast(add_months(date, months, keep_end_of_month=keep_eom), kind)


def _amount(node: exp.Expr) -> exp.Expr:
    amount = node.expression
    if isinstance(amount, exp.Interval):
        amount = amount.this
    if isinstance(amount, exp.Literal) and amount.is_string and amount.name.lstrip("-").isdigit():
        return exp.Literal.number(int(amount.name))
    return amount


@rule(
    "DATE-ADD",
    "rewrite",
    ALL_DIALECTS,
    (exp.DateAdd, exp.TsOrDsAdd, exp.DateSub),
    "DATEADD / DATE_ADD / DATE_SUB by DAY, WEEK, MONTH, QUARTER or YEAR (HOUR, MINUTE, SECOND on "
    "timestamps) becomes interval arithmetic; month steps clamp to the end of the target month as the source does. Other units are refused.",
    (
        (
            "tsql",
            "SELECT DATEADD(day, 7, o_orderdate) AS d FROM dbo.Orders",
            'SELECT CAST("orders"."o_orderdate" + INTERVAL \'7\' DAY AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
        (
            "bigquery",
            "SELECT DATE_ADD(o_orderdate, INTERVAL 1 MONTH) AS d FROM sales.orders",
            'SELECT CAST(CASE WHEN EXTRACT(DAY FROM "orders"."o_orderdate") > EXTRACT(DAY FROM "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY) THEN "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY ELSE "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY END AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
        (
            "bigquery",
            "SELECT DATE_ADD(DATE_TRUNC(o_orderdate, MONTH), INTERVAL 1 MONTH) AS d FROM sales.orders",
            'SELECT CAST(CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY AS DATE) AS DATE) + INTERVAL \'1\' MONTH AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def date_add(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    unit = _canonical_unit(_unit(node))
    if unit is None and _unit(node) in {"WEEK", "WEEKS", "WK", "WW"}:
        unit = "WEEK"  # always 7 days, whatever the week settings
    time_unit = next(
        (name for name, spellings in TIME_UNITS.items() if _unit(node) in spellings), None
    )
    if unit is None and time_unit is None:
        ctx.report(
            "error", "DATE-ADD", node, f"date arithmetic in {_unit(node)} units is not supported"
        )
        return None
    date = _unwrap(node.this, ctx)
    kind = _date_kind(node, date, ctx, "DATE-ADD")
    if kind is None:
        return None
    if node.args.get("return_type") is not None:
        kind = node.args["return_type"].this.value  # Redshift DATEADD returns a TIMESTAMP
    if time_unit is not None:
        if kind != "TIMESTAMP":
            ctx.report("error", "DATE-ADD", node, f"adding {time_unit} units to a DATE")
            return None
        unit = time_unit
    amount = _amount(node)
    if unit == "SECOND" and _seconds_to_smalldatetime(node, date, amount, ctx):
        return None
    if isinstance(node, exp.DateSub):
        amount = exp.Neg(this=clone(amount))
    return _shift(date, amount, unit, kind, keep_eom=False)


def _seconds_to_smalldatetime(
    node: exp.Expr, date: exp.Expr, amount: exp.Expr, ctx: Context
) -> bool:
    """Report DATEADD(second, n, smalldatetime) unless n is whole minutes: its result is a
    smalldatetime ("The return data type is the data type of the date argument"), and
    "DATEADD (Transact-SQL)", "Return Values for a smalldatetime date and a second or
    Fractional Seconds datepart", says only that "For a datepart of second, and a number value
    between -30 and +29, DATEADD makes no changes", and for others that it "performs its
    addition beginning at one minute", which does not say the value. True if reported."""
    if not semantics(ctx.dialect).DATETIME_TICKS:
        return False
    from sql.rules.tsql_datetime import smalldatetime_value

    seconds = integer_literal(amount)
    if not smalldatetime_value(date) or (seconds is not None and seconds % 60 == 0):
        return False
    ctx.report(
        "error",
        "DATE-ADD",
        node,
        "seconds added to a smalldatetime: the result is a smalldatetime, whole minutes, and "
        "T-SQL documents no change for -30 to +29 seconds and an addition 'beginning at one "
        "minute' past them, not its value; add minutes, or CAST the value to DATETIME2 first",
    )
    return True


@rule(
    "ADD-MONTHS",
    "rewrite",
    ("oracle", "snowflake", "teradata", "redshift"),
    (exp.AddMonths,),
    "ADD_MONTHS(d, n) becomes explicit month arithmetic: a day past the end of the target month "
    "clamps, and (Oracle, Snowflake, Redshift) the last day of a month maps to the last day of the target month.",
    (
        (
            "oracle",
            "SELECT ADD_MONTHS(o_orderdate, 1) AS d FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN EXTRACT(DAY FROM "orders"."o_orderdate") > EXTRACT(DAY FROM "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY) OR EXTRACT(MONTH FROM "orders"."o_orderdate" + INTERVAL \'1\' DAY) <> EXTRACT(MONTH FROM "orders"."o_orderdate") THEN "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY ELSE "orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH + (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' DAY END AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
        (
            "snowflake",
            "SELECT ADD_MONTHS(LAST_DAY(o_orderdate), 1) AS d FROM SALES.ORDERS",
            'SELECT CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY AS DATE) + INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY AS DATE) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def add_months_rule(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    kind = _date_kind(node, node.this, ctx, "ADD-MONTHS")
    if kind is None:
        return None
    keep_eom = (
        bool(node.args.get("preserve_end_of_month"))
        or semantics(ctx.dialect).ADD_MONTHS_KEEPS_MONTH_END
    )
    moved = cast(add_months(node.this, node.expression, keep_end_of_month=keep_eom), kind)
    if semantics(ctx.dialect).DATE_HOLDS_TIME and kind != "DATE":
        # Oracle's ADD_MONTHS returns a DATE (its time of day kept): a DATE to what reads it.
        from sql.rules.day_arithmetic import ORACLE_DATE_META, fraction_digits, oracle_moment

        moment = oracle_moment(node.this, None)
        if fraction_digits(node.this) != 0 and not (moment is not None and moment.date):
            ctx.report(
                "error",
                "ADD-MONTHS",
                node,
                "ADD_MONTHS of a TIMESTAMP with fractional seconds makes it an Oracle DATE, "
                "dropping them in a way Oracle does not document: no exact form",
            )
            return node
        moved.meta[ORACLE_DATE_META] = "midnight" if moment and moment.midnight else "time"
    return moved


def _time_boundaries(end: exp.Expr, start: exp.Expr, unit: str) -> exp.Expr:
    """Hour, minute or second boundaries from ``start`` to ``end``: whole days times 24,
    plus the difference of the hour fields, and so on down to whole seconds (FLOOR drops
    the fraction Spark's EXTRACT(SECOND) carries). Integer arithmetic throughout."""

    def timestamp(value: exp.Expr) -> exp.Expr:
        return clone(value) if type_of(value) in TIMESTAMP_TYPES else cast(value, "TIMESTAMP")

    end_ts, start_ts = timestamp(end), timestamp(start)
    # Spark's EXTRACT(DAY) from an interval is an INT: seconds over 68 years overflow it
    # (as in TIMESTAMP-DIFF), so the sum is BIGINT from the day count on.
    days = cast(
        extract(
            "DAY",
            exp.Paren(
                this=exp.Sub(
                    this=cast(cast(end_ts, "DATE"), "TIMESTAMP"),
                    expression=cast(cast(start_ts, "DATE"), "TIMESTAMP"),
                )
            ),
        ),
        "BIGINT",
    )

    def field(name: str) -> exp.Expr:
        later, earlier = extract(name, end_ts), extract(name, start_ts)
        if name == "SECOND":
            later = cast(exp.Floor(this=later), "BIGINT")
            earlier = cast(exp.Floor(this=earlier), "BIGINT")
        return exp.Paren(this=exp.Sub(this=later, expression=earlier))

    total: exp.Expr = days
    for name, per in (("HOUR", 24), ("MINUTE", 60), ("SECOND", 60)):
        total = exp.Add(
            this=exp.Mul(this=exp.Paren(this=total), expression=lit(per)), expression=field(name)
        )
        if name == unit:
            break
    return total


@rule(
    "DATE-DIFF",
    "rewrite",
    ALL_DIALECTS,
    (exp.DateDiff, exp.TsOrDsDiff),
    "DATEDIFF / DATE_DIFF counts unit boundaries crossed (BigQuery's argument order is "
    "reversed): DAY via timestamp subtraction, MONTH, QUARTER and YEAR via EXTRACT, and WEEK as "
    "Sunday-started weeks in T-SQL (DATEFIRST does not affect it) and BigQuery; HOUR, MINUTE "
    "and SECOND in T-SQL, Snowflake and Redshift as whole days times 24 plus the differences "
    "of the hour, minute and whole-second fields. Other units are refused.",
    (
        (
            "tsql",
            "SELECT DATEDIFF(day, o_orderdate, l_shipdate) AS d FROM dbo.Orders JOIN dbo.LineItem ON o_orderkey = l_orderkey",
            'SELECT CAST(EXTRACT(DAY FROM (CAST(CAST("lineitem"."l_shipdate" AS DATE) AS TIMESTAMP) - CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP))) AS INTEGER) AS "d" FROM "raw"."orders" AS "orders" JOIN "raw"."lineitem" AS "lineitem" ON "orders"."o_orderkey" = "lineitem"."l_orderkey"',
        ),
        (
            "bigquery",
            "SELECT DATE_DIFF(l_receiptdate, l_commitdate, MONTH) AS m FROM sales.lineitem",
            'SELECT CAST((EXTRACT(YEAR FROM "lineitem"."l_receiptdate") - EXTRACT(YEAR FROM "lineitem"."l_commitdate")) * 12 + EXTRACT(MONTH FROM "lineitem"."l_receiptdate") - EXTRACT(MONTH FROM "lineitem"."l_commitdate") AS BIGINT) AS "m" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
    # After the typed rules and a new annotation: an operand may read a column of another
    # WITH query that a typed rule rewrote (TO_TIMESTAMP of text), whose type the typed
    # phase's walk, which visits later WITH queries first, has not seen yet.
    phase="arithmetic",
)
def date_diff(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    unit = _canonical_unit(_unit(node))
    end, start = _unwrap(node.this, ctx), _unwrap(node.expression, ctx)
    plain_week = isinstance(node.args.get("unit"), exp.Var) and _unit(node) in {"WEEK", "WK", "WW"}
    # BigQuery parses WEEK as WEEK(SUNDAY).
    sunday_week_unit = semantics(ctx.dialect).WEEKDAY_WEEK_PARTS and _unit(node) == "SUNDAY"
    if (plain_week and semantics(ctx.dialect).DATE_DIFF_WEEKS_START_SUNDAY) or sunday_week_unit:
        unit = "WEEK"  # Sunday boundaries: T-SQL ignores DATEFIRST here, BigQuery WEEK is Sunday
    time_unit = next((u for u, names in TIME_UNITS.items() if _unit(node) in names), None)
    if time_unit is not None and semantics(ctx.dialect).DATE_DIFF_COUNTS_TIME_BOUNDARIES:
        if (
            _date_kind(node, end, ctx, "DATE-DIFF") is None
            or _date_kind(node, start, ctx, "DATE-DIFF") is None
        ):
            return None
        boundaries = _time_boundaries(end, start, time_unit)
        # T-SQL's DATEDIFF is an INT and fails beyond it (DATEDIFF_BIG is the BIGINT one).
        return (
            cast(boundaries, "INTEGER")
            if semantics(ctx.dialect).DATE_NUMBERS_ARE_INT
            else boundaries
        )
    if unit not in ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR"):
        ctx.report(
            "error", "DATE-DIFF", node, f"date difference in {_unit(node)} units is not supported"
        )
        return None
    if (
        _date_kind(node, end, ctx, "DATE-DIFF") is None
        or _date_kind(node, start, ctx, "DATE-DIFF") is None
    ):
        return None
    # A whole count of the source's integer type whatever the unit (Redshift documents
    # BIGINT for every datepart; T-SQL's DATEDIFF is an INT), not the type the arithmetic
    # of the parts happens to annotate.
    counted = "INTEGER" if semantics(ctx.dialect).DATE_NUMBERS_ARE_INT else "BIGINT"
    years = exp.Sub(this=extract("YEAR", end), expression=extract("YEAR", start))
    if unit == "YEAR":
        return cast(years, counted)
    if unit == "QUARTER":
        quarters = exp.Sub(this=quarter_of(end), expression=quarter_of(start))
        return cast(
            exp.Add(
                this=exp.Mul(this=exp.Paren(this=years), expression=lit(4)), expression=quarters
            ),
            counted,
        )
    if unit == "WEEK":
        return cast(exp.Sub(this=sunday_week(end), expression=sunday_week(start)), counted)
    if unit == "MONTH":
        # (years) * 12 + end month - start month, left to right
        plus_end = exp.Add(
            this=exp.Mul(this=exp.Paren(this=years), expression=lit(12)),
            expression=extract("MONTH", end),
        )
        return cast(exp.Sub(this=plus_end, expression=extract("MONTH", start)), counted)
    # Day boundaries: the day count between the two dates at midnight.
    start_day = cast(cast(start, "DATE"), "TIMESTAMP")
    end_day = cast(cast(end, "DATE"), "TIMESTAMP")
    days = extract("DAY", exp.Paren(this=exp.Sub(this=end_day, expression=start_day)))
    return cast(days, counted) if counted != "BIGINT" else days


# Seconds in each unit TIMESTAMP_DIFF counts whole of (a DAY is 24 hours there).
ELAPSED_UNITS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400}
INSTANT_TYPES = {exp.DType.TIMESTAMPTZ, *TIMESTAMP_TYPES}


def _whole(value: exp.Expr, divisor: int) -> exp.Expr:
    """``value`` / ``divisor`` truncated toward zero: (value - MOD(value, divisor)) /
    divisor, exact whether `/` truncates or not (MOD takes the dividend's sign)."""
    exact = exp.Sub(
        this=clone(value), expression=exp.Mod(this=clone(value), expression=lit(divisor))
    )
    return exact if divisor == 1 else exp.Div(this=exp.Paren(this=exact), expression=lit(divisor))


@rule(
    "TIMESTAMP-DIFF",
    "rewrite",
    ("bigquery",),
    (exp.TimestampDiff,),
    "BigQuery TIMESTAMP_DIFF(a, b, unit) counts the whole units elapsed from b to a, toward "
    "zero (a DAY is 24 hours): the interval a - b, its day, hour and minute fields and whole "
    "seconds summed to seconds, then divided by the unit, for SECOND, MINUTE, HOUR and DAY. "
    "The two values must have the same type (instants, or DATETIMEs); sub-second units are "
    "refused (the engines' EXTRACT(SECOND) from an interval keep different fractions).",
    (
        (
            "bigquery",
            "SELECT TIMESTAMP_DIFF(CAST(l_receiptdate AS DATETIME), CAST(l_shipdate AS DATETIME), "
            "SECOND) AS s FROM sales.lineitem",
            'SELECT CAST((((CAST(EXTRACT(DAY FROM (CAST("lineitem"."l_receiptdate" AS '
            'TIMESTAMP) - CAST("lineitem"."l_shipdate" AS TIMESTAMP))) AS BIGINT)) * 24 + '
            'EXTRACT(HOUR FROM (CAST("lineitem"."l_receiptdate" AS TIMESTAMP) - '
            'CAST("lineitem"."l_shipdate" AS TIMESTAMP)))) * 60 + EXTRACT(MINUTE FROM '
            '(CAST("lineitem"."l_receiptdate" AS TIMESTAMP) - CAST("lineitem"."l_shipdate" '
            'AS TIMESTAMP)))) * 60 + (EXTRACT(SECOND FROM (CAST("lineitem"."l_receiptdate" '
            'AS TIMESTAMP) - CAST("lineitem"."l_shipdate" AS TIMESTAMP))) - '
            'MOD(EXTRACT(SECOND FROM (CAST("lineitem"."l_receiptdate" AS TIMESTAMP) - '
            'CAST("lineitem"."l_shipdate" AS TIMESTAMP))), 1)) AS BIGINT) AS "s" FROM '
            '"raw"."lineitem" AS "lineitem"',
        ),
    ),
)
def timestamp_diff(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    unit = _unit(node)
    later, earlier = node.this, node.expression
    if unit not in ELAPSED_UNITS:
        ctx.report(
            "error",
            "TIMESTAMP-DIFF",
            node,
            f"TIMESTAMP_DIFF in {unit} units is translated for SECOND, MINUTE, HOUR and DAY only",
        )
        return None
    kinds = {type_of(later), type_of(earlier)}
    if len(kinds) != 1 or not kinds <= INSTANT_TYPES:
        ctx.report(
            "error",
            "TIMESTAMP-DIFF",
            node,
            "TIMESTAMP_DIFF of values that are not both TIMESTAMPs (or both DATETIMEs); CAST them",
        )
        return None
    difference = exp.Paren(this=exp.Sub(this=clone(later), expression=clone(earlier)))
    seconds = extract("SECOND", difference)
    # Spark's EXTRACT(DAY) from an interval is an INT: seconds in a century overflow it.
    total: exp.Expr = cast(extract("DAY", difference), "BIGINT")
    for part, per in (("HOUR", 24), ("MINUTE", 60)):
        total = exp.Add(
            this=exp.Mul(this=exp.Paren(this=total), expression=lit(per)),
            expression=extract(part, difference),
        )
    total = exp.Add(
        this=exp.Mul(this=exp.Paren(this=total), expression=lit(60)),
        expression=_whole(seconds, 1),
    )
    if ELAPSED_UNITS[unit] > 1:
        total = _whole(exp.Paren(this=total), ELAPSED_UNITS[unit])
    return cast(total, "BIGINT")


@rule(
    "DATE-PART",
    "rewrite",
    ALL_DIALECTS,
    (exp.Extract, exp.WeekOfYear),
    "DATEPART / DATE_PART / EXTRACT of YEAR, QUARTER, MONTH, DAY, HOUR, MINUTE or SECOND; "
    "the ISO 8601 week (T-SQL iso_week, Snowflake WEEKISO / DATE_PART(weekiso), BigQuery ISOWEEK) from the day of "
    "year of its Thursday; T-SQL's week (week 1 holds January 1, weeks start on the assumed "
    "DATEFIRST day: a TSQL-DATEFIRST warning) and BigQuery's WEEK / WEEK(<day>) (days before "
    "the year's first such day are week 0) from the day of year and the weekday. Weeks that "
    "other settings decide (Snowflake WEEK, WEEK_OF_YEAR_POLICY) are refused. Snowflake's "
    "EPOCH_SECOND / _MILLISECOND / _MICROSECOND / _NANOSECOND count whole units from "
    "1970-01-01 00:00:00, the fraction dropped (its DATE_PART examples): of a moment the "
    "query writes out (CAST('yyyy-mm-dd[ hh:mi:ss[.f]]' AS TIMESTAMP)) read at translation; "
    "EPOCH_SECOND of a DATE or TIMESTAMP from whole days, hours, minutes and seconds, with a "
    "guard that stops on a moment before 1970 with a fraction of a second (rounded down or "
    "toward zero: undocumented). Sub-second counts of a column (the engines' EXTRACT(SECOND) "
    "keep different fractions) and the sub-second parts of a DATE (an error in Snowflake) are "
    "refused.",
    (
        (
            "tsql",
            "SELECT DATEPART(quarter, o_orderdate) AS q FROM dbo.Orders",
            'SELECT CAST(FLOOR((EXTRACT(MONTH FROM "orders"."o_orderdate") + 2) / 3) AS INTEGER) AS "q" FROM "raw"."orders" AS "orders"',
        ),
        (
            "tsql",
            "SELECT DATEPART(week, o_orderdate) AS w FROM dbo.Orders",
            'SELECT CAST(FLOOR((EXTRACT(DAY FROM (CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP) - CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY - (EXTRACT(MONTH FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' MONTH AS DATE) AS TIMESTAMP))) + 1 + 12 - (MOD((MOD((EXTRACT(DAY FROM (CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP) - CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP))) + 1), 7) + 7), 7))) / 7) AS INTEGER) AS "w" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def date_part(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.WeekOfYear):
        # Snowflake's WEEKISO(d); other dialects' WEEKOFYEAR is not read as ISO here.
        if (
            not semantics(ctx.dialect).WEEK_OF_YEAR_IS_ISO
            or _date_kind(node, node.this, ctx, "DATE-PART") is None
        ):
            return None
        return cast(iso_week(node.this), "BIGINT")
    part = node.this.name.upper()
    part = {"YY": "YEAR", "YYYY": "YEAR", "MM": "MONTH", "DD": "DAY", "QQ": "QUARTER"}.get(
        part, part
    )
    if part in CALENDAR_PARTS:
        return None
    if part in EPOCH_PARTS and semantics(ctx.dialect).EPOCH_DATE_PARTS:
        return _epoch_part(node, part, ctx)
    if part in EXTRACTABLE:
        if part == "SECOND" and semantics(ctx.dialect).SECOND_PART_IS_WHOLE:
            # The standard's EXTRACT(SECOND) keeps the fraction (as both engines do); the
            # source's is whole, of its date parts' integer type.
            whole = exp.Floor(this=extract(part, node.expression))
            return cast(
                whole, "INTEGER" if semantics(ctx.dialect).DATE_NUMBERS_ARE_INT else "BIGINT"
            )
        return extract(part, node.expression)
    if part == "QUARTER":
        return quarter_of(node.expression)
    number = "INTEGER" if semantics(ctx.dialect).DATE_NUMBERS_ARE_INT else "BIGINT"
    week = part in ISO_WEEK_PARTS or part == "WEEK" or isinstance(node.this, exp.WeekStart)
    date = _unwrap(node.expression, ctx)
    if week and _date_kind(node, date, ctx, "DATE-PART") is None:
        return None
    if part in ISO_WEEK_PARTS:
        return cast(iso_week(date), number)
    if part == "WEEK" and semantics(ctx.dialect).WEEKS_START_ON_DATEFIRST:
        datefirst = ctx.assume("tsql_datefirst")
        note = ctx.setting_note("tsql_datefirst")
        ctx.report(
            "warning",
            "TSQL-DATEFIRST",
            node,
            f"week numbering assumes SET DATEFIRST {datefirst} (weeks start on "
            f"{WEEKDAYS[datefirst - 1]}); {note}",
            settings=("tsql_datefirst",),
        )
        return cast(week_in_year(date, datefirst - 1, 1), number)
    if semantics(ctx.dialect).WEEKDAY_WEEK_PARTS and (
        part == "WEEK" or isinstance(node.this, exp.WeekStart)
    ):
        # WEEK is WEEK(SUNDAY); days before the year's first such day are week 0.
        first = SUNDAY if part == "WEEK" else WEEK_UNITS.index(part)
        return cast(week_in_year(date, first, 0), number)
    if week:
        message = (
            f"date part {part} depends on server week settings (DATEFIRST, WEEK_START) "
            "and has no exact ANSI form"
        )
    else:
        message = (
            f"date part {part} has no exact ANSI form here (translated: YEAR, QUARTER, MONTH, "
            "DAY, HOUR, MINUTE, SECOND and the week parts)"
        )
    ctx.report("error", "DATE-PART", node, message)
    return None


# Snowflake's epoch parts and their aliases -> the decimal digits of a second each counts.
EPOCH_PARTS = {
    "EPOCH": 0, "EPOCH_SECOND": 0, "EPOCH_SECONDS": 0,
    "EPOCH_MILLISECOND": 3, "EPOCH_MILLISECONDS": 3,
    "EPOCH_MICROSECOND": 6, "EPOCH_MICROSECONDS": 6,
    "EPOCH_NANOSECOND": 9, "EPOCH_NANOSECONDS": 9,
}  # fmt: skip
# A timestamp the query writes out, as the standard reads CAST('...' AS TIMESTAMP).
_WRITTEN_MOMENT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?"
)
BIGINT_RANGE = range(-(2**63), 2**63)


def _written_nanoseconds(value: exp.Expr) -> int | None:
    """Nanoseconds from 1970-01-01 00:00:00 to CAST('yyyy-mm-dd[ hh:mi:ss[.f]]' AS
    TIMESTAMP | DATE), a moment the query writes out; None for anything else."""
    if not (
        isinstance(value, exp.Cast)
        and value.to.this in (exp.DType.TIMESTAMP, exp.DType.DATE)
        and isinstance(value.this, exp.Literal)
        and value.this.is_string
    ):
        return None
    match = _WRITTEN_MOMENT.fullmatch(value.this.name)
    if match is None or (value.to.this == exp.DType.DATE and match.group(4) is not None):
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    precision = value.to.expressions
    if precision and len(fraction or "") > int(precision[0].this.name):
        return None  # TIMESTAMP(p) keeps fewer digits than the text has
    try:
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError:
        return None
    seconds = (moment - dt.datetime(1970, 1, 1)) // dt.timedelta(seconds=1)
    return seconds * 10**9 + int((fraction or "").ljust(9, "0"))


def _epoch_part(node: exp.Expr, part: str, ctx: Context) -> exp.Expr | None:
    """Snowflake's DATE_PART(EPOCH_*, value): whole units since 1970-01-01 00:00:00."""
    digits = EPOCH_PARTS[part]
    value = _unwrap(node.expression, ctx)
    unit = 10 ** (9 - digits)
    written = _written_nanoseconds(value)
    problem = None
    if written is not None:
        count, rest = divmod(written, unit)
        if rest and written < 0:
            problem = (
                f"{part} of a moment before 1970 with a fraction of its unit: Snowflake "
                "does not document whether the count rounds down or toward zero"
            )
        elif count not in BIGINT_RANGE:
            problem = f"{part} of this moment does not fit a BIGINT"
        else:
            number: exp.Expr = exp.Literal.number(abs(count))
            return cast(exp.Neg(this=number) if count < 0 else number, "BIGINT")
    kind = type_of(value)
    if problem is None and kind == exp.DType.DATE and digits:
        problem = f"Snowflake does not support {part} of a DATE (EPOCH_SECOND only)"
    elif problem is None and kind not in (exp.DType.DATE, *TIMESTAMP_TYPES):
        problem = f"{part} of a value that is not a DATE or a TIMESTAMP without time zone; CAST it"
    elif problem is None and digits:
        problem = (
            f"{part} of a timestamp that is not written out (at its precision): the engines' EXTRACT(SECOND) "
            "keep different fractions, so sub-second counts have no exact common form"
        )
    if problem is not None:
        ctx.report("error", "DATE-PART", node, problem)
        return None
    moment = cast(value, "TIMESTAMP") if kind == exp.DType.DATE else clone(value)
    epoch = cast(lit(EPOCH), "TIMESTAMP")
    seconds = cast(_time_boundaries(moment, epoch, "SECOND"), "BIGINT")
    precision = value.type.expressions if isinstance(value.type, exp.DataType) else []
    whole = (
        kind == exp.DType.DATE
        or (len(precision) == 1 and precision[0].this.name == "0")
        or (isinstance(value, exp.Cast) and type_of(value.this) == exp.DType.DATE)
    )
    if whole:
        return seconds
    # Before 1970 a fraction of a second makes the count one less rounded down than toward
    # zero, and Snowflake's documentation does not say which it is: there the statement
    # stops; elsewhere the count is the whole seconds, as rounded down.
    fraction = exp.NEQ(this=clone(value), expression=epoch_timestamp(seconds, 0))
    before = exp.LT(this=clone(value), expression=cast(lit(EPOCH), "TIMESTAMP"))
    return guarded(
        seconds,
        exp.And(this=before, expression=fraction),
        "DATE-PART",
        f"{part} of a moment before 1970 with a fraction of a second, which Snowflake "
        "does not document rounding down or toward zero",
        at=node,
    )


def _truncate(
    node: exp.Expr, date: exp.Expr, unit: str | None, ctx: Context, rule_id: str
) -> exp.Expr | None:
    kind = _date_kind(node, date, ctx, rule_id)
    if kind is None:
        return None
    if isinstance(node, exp.TimestampTrunc) and not node.args.get("input_type_preserved"):
        kind = "TIMESTAMP"  # Redshift DATE_TRUNC returns a TIMESTAMP even for a DATE
    if unit == "DAY":
        return cast(cast(date, "DATE"), kind)
    if unit in WEEK_UNITS:
        # Days since the week's first day, counted from Monday 1900-01-01.
        number = day_number(date)
        if unit != "MONDAY":
            number = exp.Add(this=number, expression=lit(7 - WEEK_UNITS.index(unit)))
        into_week = positive_mod(number, 7)
        start = exp.Sub(this=cast(date, "DATE"), expression=interval(into_week, "DAY"))
        return cast(cast(start, "DATE"), kind)
    if unit not in ("MONTH", "QUARTER", "YEAR"):
        ctx.report(
            "error", rule_id, node, "truncation is supported to DAY, MONTH, QUARTER and YEAR only"
        )
        return None
    first = first_of_month(cast(date, "DATE"))
    month = extract("MONTH", date)
    if unit == "YEAR":
        first = exp.Sub(
            this=first, expression=interval(exp.Sub(this=month, expression=lit(1)), "MONTH")
        )
    elif unit == "QUARTER":
        into_quarter = exp.Mod(this=exp.Sub(this=month, expression=lit(1)), expression=lit(3))
        first = exp.Sub(this=first, expression=interval(into_quarter, "MONTH"))
    start = cast(cast(first, "DATE"), kind)
    start.meta[MONTH_START] = True
    return start


@rule(
    "DATE-TRUNC",
    "rewrite",
    ALL_DIALECTS,
    (exp.DateTrunc, exp.TimestampTrunc, exp.Anonymous),
    "DATE_TRUNC / TRUNC(date[, fmt]) to DAY, MONTH, QUARTER or YEAR becomes interval arithmetic "
    "from the first of the month; WEEK truncates to Monday (Redshift, Oracle IW), to the day "
    "Snowflake's assumed WEEK_START names (a warning; Monday for the default 0) or to the named day (BigQuery WEEK, which is WEEK(SUNDAY), WEEK(<any weekday>), and ISOWEEK, Monday); T-SQL weeks "
    "depend on DATEFIRST and are refused.",
    (
        (
            "snowflake",
            "SELECT DATE_TRUNC('month', o_orderdate) AS m FROM SALES.ORDERS",
            'SELECT CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY AS DATE) AS DATE) AS "m" FROM "raw"."orders" AS "orders"',
        ),
        (
            "oracle",
            "SELECT TRUNC(o_orderdate, 'YYYY') AS y FROM SALES.ORDERS",
            'SELECT CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY - (EXTRACT(MONTH FROM "orders"."o_orderdate") - 1) * INTERVAL \'1\' MONTH AS DATE) AS DATE) AS "y" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def date_trunc(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.Anonymous):
        # Oracle TRUNC(date) without a format truncates to the day.
        if node.name.upper() != "TRUNC" or len(node.expressions) != 1:
            return None
        return _truncate(node, node.expressions[0], "DAY", ctx, "DATE-TRUNC")
    unit = node.args.get("unit")
    name = unit.name.upper() if unit is not None else "DAY"
    if isinstance(unit, exp.WeekStart) and name in WEEK_UNITS:
        return _truncate(node, node.this, name, ctx, "DATE-TRUNC")  # BigQuery WEEK(<day>)
    if semantics(ctx.dialect).WEEKDAY_WEEK_PARTS and name == "ISOWEEK":
        return _truncate(node, node.this, "MONDAY", ctx, "DATE-TRUNC")  # ISO weeks: Monday
    if name in ("WEEK", "IW") and semantics(ctx.dialect).TRUNCATED_WEEKS_START_MONDAY:
        first = "MONDAY"
        if semantics(ctx.dialect).WEEKS_START_ON_WEEK_START:
            # WEEK_START 0 (legacy) and 1 both start weeks on Monday; 2 ... 7 on Tuesday ...
            # Sunday.
            week_start = ctx.assume("snowflake_week_start")
            first = WEEKDAYS[max(week_start, 1) - 1].upper()
            note = ctx.setting_note("snowflake_week_start")
            ctx.report(
                "warning",
                "SF-WEEK-START",
                node,
                f"week truncation assumes WEEK_START = {week_start} ({first.title()}); {note}",
                settings=("snowflake_week_start",),
            )
        return _truncate(node, node.this, first, ctx, "DATE-TRUNC")
    return _truncate(node, node.this, _canonical_unit(name), ctx, "DATE-TRUNC")


# Snowflake's spellings of the WEEK date part.
SF_WEEKS = ("WEEK", "WK", "W", "WEEKOFYEAR", "WOY", "WY")


@rule(
    "LAST-DAY",
    "rewrite",
    ("snowflake", "tsql", "oracle", "teradata", "bigquery", "redshift"),
    (exp.LastDay,),
    "LAST_DAY(d) / EOMONTH(d) becomes the first of the month plus one month minus one day; "
    "Snowflake's LAST_DAY(d, 'year' | 'quarter') goes first to the first of the year's or "
    "quarter's last month (BigQuery's YEAR and QUARTER too), and a week's last day is its "
    "first day plus 6 days: Snowflake's 'week' starts on the assumed WEEK_START day (an "
    "SF-WEEK-START warning), BigQuery's WEEK on Sunday, WEEK(<day>) on that day and ISOWEEK "
    "on Monday.",
    (
        (
            "tsql",
            "SELECT EOMONTH(o_orderdate) AS e FROM dbo.Orders",
            'SELECT CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY AS DATE) AS "e" FROM "raw"."orders" AS "orders"',
        ),
        (
            "snowflake",
            "SELECT LAST_DAY(o_orderdate, 'year') AS y FROM SALES.ORDERS",
            'SELECT CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST("orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY + (11 - (EXTRACT(MONTH FROM "orders"."o_orderdate") - 1)) * INTERVAL \'1\' MONTH + INTERVAL \'1\' MONTH - INTERVAL \'1\' DAY AS DATE) AS "y" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def last_day(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    date = node.this
    if isinstance(date, exp.TsOrDsToDate):
        date = date.this
    unit = node.args.get("unit")
    name = _canonical_unit(unit.name.upper()) if unit is not None else "MONTH"
    first = ""  # the day weeks start on, for a WEEK unit
    if semantics(ctx.dialect).WEEKDAY_WEEK_PARTS and isinstance(unit, exp.WeekStart):
        name, first = "WEEK", unit.name.upper()  # WEEK is WEEK(SUNDAY)
    elif (
        semantics(ctx.dialect).WEEKDAY_WEEK_PARTS
        and unit is not None
        and unit.name.upper() == "ISOWEEK"
    ):
        name, first = "WEEK", "MONDAY"
    elif (
        semantics(ctx.dialect).LAST_DAY_TAKES_WEEK
        and unit is not None
        and unit.name.upper() in SF_WEEKS
    ):
        name = "WEEK"
    if name not in ("MONTH", "QUARTER", "YEAR", "WEEK") or first not in ("", *WEEK_UNITS):
        ctx.report(
            "error", "LAST-DAY", node, "LAST_DAY is supported for MONTH, QUARTER, YEAR and WEEK"
        )
        return None
    if _date_kind(node, date, ctx, "LAST-DAY") is None:
        return None
    if name == "WEEK":
        if not first:
            # Snowflake's week ends the day before the next WEEK_START day (Sunday for 0, 1).
            week_start = ctx.assume("snowflake_week_start")
            first = WEEKDAYS[max(week_start, 1) - 1].upper()
            note = ctx.setting_note("snowflake_week_start")
            ctx.report(
                "warning",
                "SF-WEEK-START",
                node,
                f"the week's last day assumes WEEK_START = {week_start} (weeks start on "
                f"{first.title()}); {note}",
                settings=("snowflake_week_start",),
            )
        start = _truncate(node, date, first, ctx, "LAST-DAY")
        return cast(exp.Add(this=start, expression=interval(6, "DAY")), "DATE")
    first = first_of_month(cast(date, "DATE"))
    if name != "MONTH":
        # Months from date's month to the last month of its year or quarter.
        into = exp.Sub(this=extract("MONTH", date), expression=lit(1))
        if name == "QUARTER":
            into = exp.Mod(this=into, expression=lit(3))
        left = exp.Sub(this=lit(11 if name == "YEAR" else 2), expression=into)
        first = exp.Add(this=first, expression=interval(left, "MONTH"))
    end = cast(last_of_month(first), "DATE")
    end.meta[MONTH_END] = True
    if semantics(ctx.dialect).DATE_HOLDS_TIME and type_of(date) in TIMESTAMP_TYPES:
        return _keeping_time_of_day(node, end, date, ctx)
    return end


def _keeping_time_of_day(node: exp.Expr, day: exp.Expr, moment: exp.Expr, ctx: Context) -> exp.Expr:
    """Oracle's LAST_DAY of a DATE with a time of day: that day at the same time ("The
    return type is always DATE", and a DATE keeps its time): the day as a TIMESTAMP plus the
    time ``moment`` is past its own midnight. A TIMESTAMP with fractional seconds, which
    Oracle makes a DATE in a way it does not document, is refused."""
    from sql.rules.day_arithmetic import ORACLE_DATE_META, fraction_digits, oracle_moment

    kind = oracle_moment(moment, None)
    if fraction_digits(moment) != 0 and not (kind is not None and kind.date):
        ctx.report(
            "error",
            "LAST-DAY",
            node,
            "LAST_DAY of a TIMESTAMP with fractional seconds makes it an Oracle DATE, dropping "
            "them in a way Oracle does not document: no exact form",
        )
        return node
    midnight = cast(cast(moment, "DATE"), "TIMESTAMP")
    time_of_day = exp.Paren(this=exp.Sub(this=clone(moment), expression=midnight))
    kept = exp.Add(this=cast(day, "TIMESTAMP"), expression=time_of_day)
    kept.meta[ORACLE_DATE_META] = "time"
    return kept


def _is_last_day(date: exp.Expr) -> exp.Expr:
    next_day = exp.Add(this=clone(date), expression=interval(1, "DAY"))
    return exp.NEQ(this=extract("MONTH", next_day), expression=extract("MONTH", date))


@rule(
    "ORA-MONTHS-BETWEEN",
    "rewrite",
    ("oracle",),
    (exp.MonthsBetween,),
    "MONTHS_BETWEEN(d1, d2) of two DATEs: whole months when the days match or both are month "
    "ends, otherwise whole months plus (day1 - day2) / 31, in DOUBLE PRECISION.",
    (
        (
            "oracle",
            "SELECT MONTHS_BETWEEN(l_receiptdate, l_shipdate) AS m FROM SALES.LINEITEM",
            'SELECT CASE WHEN EXTRACT(DAY FROM "lineitem"."l_receiptdate") = EXTRACT(DAY FROM "lineitem"."l_shipdate") OR EXTRACT(MONTH FROM "lineitem"."l_receiptdate" + INTERVAL \'1\' DAY) <> EXTRACT(MONTH FROM "lineitem"."l_receiptdate") AND EXTRACT(MONTH FROM "lineitem"."l_shipdate" + INTERVAL \'1\' DAY) <> EXTRACT(MONTH FROM "lineitem"."l_shipdate") THEN CAST(((EXTRACT(YEAR FROM "lineitem"."l_receiptdate") - EXTRACT(YEAR FROM "lineitem"."l_shipdate")) * 12 + EXTRACT(MONTH FROM "lineitem"."l_receiptdate") - EXTRACT(MONTH FROM "lineitem"."l_shipdate")) AS DOUBLE PRECISION) ELSE CAST(((EXTRACT(YEAR FROM "lineitem"."l_receiptdate") - EXTRACT(YEAR FROM "lineitem"."l_shipdate")) * 12 + EXTRACT(MONTH FROM "lineitem"."l_receiptdate") - EXTRACT(MONTH FROM "lineitem"."l_shipdate")) AS DOUBLE PRECISION) + CAST((EXTRACT(DAY FROM "lineitem"."l_receiptdate") - EXTRACT(DAY FROM "lineitem"."l_shipdate")) AS DOUBLE PRECISION) / 31 END AS "m" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
)
def months_between(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    later, earlier = node.this, node.expression
    if type_of(later) != exp.DType.DATE or type_of(earlier) != exp.DType.DATE:
        ctx.report(
            "error",
            "ORA-MONTHS-BETWEEN",
            node,
            "MONTHS_BETWEEN is translated for DATE operands only",
        )
        return None
    years = exp.Sub(this=extract("YEAR", later), expression=extract("YEAR", earlier))
    months = exp.Sub(  # (years) * 12 + later month - earlier month, left to right
        this=exp.Add(
            this=exp.Mul(this=exp.Paren(this=years), expression=lit(12)),
            expression=extract("MONTH", later),
        ),
        expression=extract("MONTH", earlier),
    )
    days = exp.Sub(this=extract("DAY", later), expression=extract("DAY", earlier))
    same_day = exp.Or(
        this=exp.EQ(this=extract("DAY", later), expression=extract("DAY", earlier)),
        expression=exp.And(this=_is_last_day(later), expression=_is_last_day(earlier)),
    )
    fraction = exp.Div(this=cast(exp.Paren(this=days), "DOUBLE"), expression=lit(31))
    return exp.Case(
        ifs=[exp.If(this=same_day, true=cast(exp.Paren(this=months), "DOUBLE"))],
        default=exp.Add(this=cast(exp.Paren(this=months), "DOUBLE"), expression=fraction),
    )


@rule(
    "FN-DATE-OF",
    "rewrite",
    ("bigquery",),
    (exp.Date,),
    "BigQuery DATE(x) of a DATE or DATETIME becomes CAST(x AS DATE) (the date part); "
    "DATE('YYYY-MM-DD') a DATE literal. DATE of a TIMESTAMP (an instant) without a time zone "
    "is its date in UTC, BigQuery's default zone, as its CAST to DATE is: CAST(x AS DATE) in "
    "plumbline's engine sessions, which are pinned to UTC (DuckDB's connect_duckdb, Spark's "
    "spark.sql.session.timeZone). DATE with a time zone is refused, and so is DATE of a "
    "string that is not a literal: BigQuery accepts DATE(STRING) but its documentation "
    "describes only DATE of a DATE, DATETIME or TIMESTAMP and DATE(year, month, day), so "
    "which texts it reads, and how, is not stated (CAST(s AS DATE), CAST-FROM-TEXT, and "
    "PARSE_DATE are).",
    (
        (
            "bigquery",
            "SELECT DATE(o_orderdate) AS d, DATE('1998-8-2') AS cutoff FROM sales.orders",
            'SELECT CAST("orders"."o_orderdate" AS DATE) AS "d", CAST(\'1998-08-02\' AS DATE) AS "cutoff" FROM "raw"."orders" AS "orders"',
        ),
        (
            "bigquery",
            "SELECT DATE(started_at) AS d FROM `acme-dw.web.sessions`",
            'SELECT CAST("sessions"."started_at" AS DATE) AS "d" FROM "raw"."sessions" AS '
            '"sessions"',
        ),
    ),
)
def date_of(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if node.args.get("zone") is not None or node.expressions or value is None:
        ctx.report(
            "error",
            "FN-DATE-OF",
            node,
            "DATE with a time zone or of date parts has no exact ANSI form here",
        )
        return None
    if isinstance(value, exp.Literal) and value.is_string:
        day = iso_date(value.name)
        if day is None:
            ctx.report("error", "FN-DATE-OF", node, f"DATE('{value.name}') is not a valid date")
            return None
        return cast(lit(day), "DATE")
    kind = type_of(value)
    # A BigQuery TIMESTAMP (TIMESTAMPTZ here) is an instant: its date is UTC's, as the
    # engines' sessions are (a CAST of an instant to DATE reads the session's zone).
    if kind in (exp.DType.DATE, exp.DType.TIMESTAMPTZ) or kind in TIMESTAMP_TYPES:
        return cast(clone(value), "DATE")
    if kind == exp.DType.TIMESTAMPLTZ:
        what = "a TIMESTAMP (an instant: its date depends on the time zone)"
    elif kind in STRING_TYPES:
        ctx.report(
            "error",
            "FN-DATE-OF",
            node,
            "DATE of a STRING that is not a literal: BigQuery's documentation describes DATE "
            "of a DATE, DATETIME or TIMESTAMP and DATE(year, month, day) only, not which texts "
            "DATE(STRING) reads or how; write CAST(s AS DATE) (the canonical YYYY-[M]M-[D]D, "
            "translated) or PARSE_DATE with a format",
        )
        return None
    else:
        what = f"a {kind.value}" if kind else "a value of unknown type"
    ctx.report("error", "FN-DATE-OF", node, f"DATE of {what} has no exact ANSI form; CAST it")
    return None


@rule(
    "FN-TIMESTAMP-OF",
    "refuse",
    ("bigquery",),
    (exp.Timestamp,),
    "BigQuery's TIMESTAMP(x [, zone]) of a string, DATE or DATETIME that is not a literal "
    "makes an instant (of a string without a zone: its canonical YYYY-[M]M-[D]D[( |T)"
    "[H]H:[M]M:[S]S[.F]] text read in UTC). The target has no type for an instant that the "
    "engines share (TIMESTAMP WITH TIME ZONE keeps an offset, and DuckDB's and Spark's "
    "differ), so no query builds one: refused. A literal's instant is "
    "read at translation where a function consumes it (FN-UNIX-CONSTANT); "
    "TIMESTAMP columns of the catalog are read as they are.",
    (("bigquery", "SELECT TIMESTAMP(o_comment) AS t FROM sales.orders", "1:8"),),
)
def timestamp_of(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if isinstance(value, exp.Literal) or value is None:
        return None  # folded where consumed (sql/rules/instants.py), else the generator's
    kind = type_of(value)
    what = "a STRING" if kind in STRING_TYPES else f"a {kind.value}" if kind else "a value"
    ctx.report(
        "error",
        "FN-TIMESTAMP-OF",
        node,
        f"TIMESTAMP of {what} makes a BigQuery TIMESTAMP, an instant, which has no type in the "
        "target that DuckDB and Spark share (TIMESTAMP WITH TIME ZONE keeps an offset); keep "
        "the instant out of the query (read a TIMESTAMP column) or compute on DATE or "
        "DATETIME values",
    )
    return node


@rule(
    "FN-UNIX-SECONDS",
    "rewrite",
    ("bigquery",),
    (exp.UnixSeconds,),
    "BigQuery UNIX_SECONDS(x) of a TIMESTAMP (an instant): the seconds from 1970-01-01 "
    "00:00:00 UTC, rounded down (-1 for half a second before). Whole UTC days since the epoch "
    "times 86400 plus the hour, minute and whole-second fields read in UTC, as the engines' "
    "sessions are pinned to (see FN-DATE-OF); integer arithmetic throughout. Of anything but "
    "a TIMESTAMP it is refused.",
    (
        (
            "bigquery",
            "SELECT UNIX_SECONDS(started_at) AS s FROM `acme-dw.web.sessions`",
            'SELECT (((CAST(EXTRACT(DAY FROM (CAST(CAST(CAST("sessions"."started_at" AS '
            "TIMESTAMP) AS DATE) AS TIMESTAMP) - CAST(CAST(CAST('1970-01-01 00:00:00' AS "
            "TIMESTAMP) AS DATE) AS TIMESTAMP))) AS BIGINT)) * 24 + (EXTRACT(HOUR FROM "
            'CAST("sessions"."started_at" AS TIMESTAMP)) - EXTRACT(HOUR FROM '
            "CAST('1970-01-01 00:00:00' AS TIMESTAMP)))) * 60 + (EXTRACT(MINUTE FROM "
            'CAST("sessions"."started_at" AS TIMESTAMP)) - EXTRACT(MINUTE FROM '
            "CAST('1970-01-01 00:00:00' AS TIMESTAMP)))) * 60 + (CAST(FLOOR(EXTRACT(SECOND FROM "
            'CAST("sessions"."started_at" AS TIMESTAMP))) AS BIGINT) - '
            "CAST(FLOOR(EXTRACT(SECOND FROM CAST('1970-01-01 00:00:00' AS TIMESTAMP))) AS "
            'BIGINT)) AS "s" FROM "raw"."sessions" AS "sessions"',
        ),
    ),
)
def unix_seconds(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if type_of(value) != exp.DType.TIMESTAMPTZ:
        ctx.report(
            "error",
            "FN-UNIX-SECONDS",
            node,
            "UNIX_SECONDS of a value that is not a TIMESTAMP has no exact ANSI form; CAST it",
        )
        return None
    # As a TIMESTAMP without time zone its fields are the UTC wall clock's (the session's).
    return _time_boundaries(
        cast(clone(value), "TIMESTAMP"), cast(lit(EPOCH), "TIMESTAMP"), "SECOND"
    )


# Snowflake's conversions to a timestamp without time zone. TO_TIMESTAMP is the one
# TIMESTAMP_TYPE_MAPPING names (TIMESTAMP_NTZ by default: an assumption).
_NTZ_FUNCTIONS = {"TO_TIMESTAMP_NTZ", "TO_TIMESTAMP"}
_ZONED_FUNCTIONS = {"TO_TIMESTAMP_LTZ", "TO_TIMESTAMP_TZ"}
# The epoch of a timestamp without time zone: Snowflake counts from 1970-01-01 00:00:00.
EPOCH = "1970-01-01 00:00:00"
# Fractions of a second the target's TIMESTAMP keeps (microseconds).
MAX_EPOCH_SCALE = 6


def is_integral(node: exp.Expr) -> bool:
    """Whether ``node`` is typed as a whole number (an integer, or a decimal of scale 0)."""
    kind = type_of(node)
    if kind in INTEGER_TYPES:
        return True
    if kind != exp.DType.DECIMAL or node.type is None or node.type.this != exp.DType.DECIMAL:
        return False
    params = node.type.expressions
    # NUMBER(p) and NUMBER are NUMBER(p, 0) and NUMBER(38, 0) in Snowflake.
    return len(params) < 2 or params[1].this.name == "0"


def _power_of_ten(node: exp.Expr) -> int | None:
    """k when ``node`` is the number literal 10^k (``1000``, ``1000.0``), else None."""
    if not isinstance(node, exp.Literal) or node.is_string:
        return None
    whole, _, fraction = node.name.partition(".")
    if fraction.strip("0") or not whole.startswith("1") or whole.strip("0") != "1":
        return None
    return len(whole) - 1


def _epoch_units(value: exp.Expr, scale: int) -> tuple[exp.Expr, int] | None:
    """(count, k) such that ``value`` (with the scale argument ``scale``) is ``count``
    units of 10^-k seconds, exactly; None when it is not a whole count of such units."""
    if scale == 0 and isinstance(value, exp.Div) and is_integral(value.this):
        # n / 10^k: Snowflake's quotient of a whole number keeps 6 decimals, so it is
        # exactly n units of 10^-k seconds for k <= 6.
        k = _power_of_ten(value.expression)
        if k is not None:
            return value.this, k
    if is_integral(value):
        return value, scale
    return None


def epoch_timestamp(count: exp.Expr, k: int) -> exp.Expr:
    """TIMESTAMP '1970-01-01 00:00:00' + count * INTERVAL '10^-k' SECOND."""
    unit = "1" if k == 0 else "0." + "0" * (k - 1) + "1"
    step = exp.Interval(this=exp.Literal.string(unit), unit=exp.var("SECOND"))
    moment = exp.Add(
        this=cast(lit(EPOCH), "TIMESTAMP"),
        expression=exp.Mul(this=paren(clone(count)), expression=step),
    )
    return typed(moment, "TIMESTAMP")


def _from_number(node: exp.Expr, value: exp.Expr, scale: int, name: str, ctx: Context) -> exp.Expr:
    if scale > MAX_EPOCH_SCALE:
        ctx.report(
            "error",
            "FN-TO-TIMESTAMP-NTZ",
            node,
            f"{name} with scale {scale} counts units finer than the microseconds an ANSI "
            "TIMESTAMP keeps",
        )
        return node
    units = _epoch_units(value, scale)
    if units is None or units[1] > MAX_EPOCH_SCALE:
        ctx.report(
            "error",
            "FN-TO-TIMESTAMP-NTZ",
            node,
            f"{name} of a number counts seconds since 1970 (or units its scale argument "
            "names); it is translated exactly for a whole number, or a whole number divided "
            "by 10, 100, ... 1000000, and this is neither",
        )
        return node
    return epoch_timestamp(*units)


def _mapping_is_ntz(name: str, node: exp.Expr, ctx: Context) -> bool:
    """TO_TIMESTAMP is a TIMESTAMP_NTZ conversion only under that mapping: say so."""
    if name != "TO_TIMESTAMP":
        return True
    mapping = ctx.assume("snowflake_timestamp_type_mapping")
    if mapping != "TIMESTAMP_NTZ":
        ctx.report(
            "error",
            "FN-TO-TIMESTAMP-NTZ",
            node,
            f"TO_TIMESTAMP under TIMESTAMP_TYPE_MAPPING = {mapping} depends on the session "
            "time zone",
        )
        return False
    note = ctx.setting_note("snowflake_timestamp_type_mapping")
    ctx.report(
        "warning",
        "FN-TO-TIMESTAMP-NTZ",
        node,
        f"TO_TIMESTAMP assumes TIMESTAMP_TYPE_MAPPING = TIMESTAMP_NTZ; {note}",
        settings=("snowflake_timestamp_type_mapping",),
    )
    return True


@rule(
    "FN-TO-TIMESTAMP-NTZ",
    "rewrite",
    ("snowflake",),
    (exp.Anonymous, exp.Cast, exp.UnixToTime),
    "TO_TIMESTAMP_NTZ(x), and TO_TIMESTAMP(x) under the assumed TIMESTAMP_TYPE_MAPPING = "
    "TIMESTAMP_NTZ (a warning): of a DATE becomes CAST(x AS TIMESTAMP) (midnight), of a "
    "TIMESTAMP_NTZ the value itself, of an ISO 8601 string literal (also written "
    "'...'::TIMESTAMP_NTZ, to the microsecond) a TIMESTAMP literal. Of a number (seconds since "
    "1970, or units of 10^-scale seconds with a scale argument) it becomes TIMESTAMP "
    "'1970-01-01 00:00:00' + n * INTERVAL '1' SECOND, exactly for a whole number and for a "
    "whole number divided by 10^k (k <= 6: Snowflake's quotient keeps 6 decimals); finer "
    "scales than microseconds are refused. Of a string column it is SF-AUTO-DATE (the formats "
    "Snowflake's AUTO detection documents). Of a fractional or approximate number, or a "
    "TIMESTAMP_TZ (which keeps its own wall-clock time) it is refused, as are TO_TIMESTAMP_LTZ / TO_TIMESTAMP_TZ (session time "
    "zone).",
    (
        (
            "snowflake",
            "SELECT TO_TIMESTAMP_NTZ(o_orderdate) AS t FROM SALES.ORDERS",
            'SELECT CAST("orders"."o_orderdate" AS TIMESTAMP) AS "t" FROM "raw"."orders" AS "orders"',
        ),
        (
            "snowflake",
            "SELECT TO_TIMESTAMP_NTZ(o_custkey / 1000) AS t, TO_TIMESTAMP(o_orderkey, 6) AS u "
            "FROM SALES.ORDERS",
            'SELECT CAST(\'1970-01-01 00:00:00\' AS TIMESTAMP) + "orders"."o_custkey" * '
            "INTERVAL '0.001' SECOND AS \"t\", CAST('1970-01-01 00:00:00' AS TIMESTAMP) + "
            '"orders"."o_orderkey" * INTERVAL \'0.000001\' SECOND AS "u" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
)
def to_timestamp_ntz(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.UnixToTime):
        # TO_TIMESTAMP[_NTZ](n, scale): sqlglot's UnixToTime with the mapped target type.
        target = node.args.get("target_type")
        scale_node = node.args.get("scale")
        name = "TO_TIMESTAMP_NTZ" if target and target.this == exp.DType.TIMESTAMPNTZ else ""
        if not name and not (target and target.this == exp.DType.TIMESTAMP):
            return None
        name = name or "TO_TIMESTAMP"
        if not _mapping_is_ntz(name, node, ctx):
            return node
        if scale_node is not None and not (
            isinstance(scale_node, exp.Literal) and scale_node.is_int
        ):
            ctx.report("error", "FN-TO-TIMESTAMP-NTZ", node, f"{name}'s scale must be a number")
            return node
        scale = int(scale_node.name) if scale_node is not None else 0
        return _from_number(node, node.this, scale, name, ctx)
    if isinstance(node, exp.Cast):
        # sqlglot reads TO_TIMESTAMP_NTZ('...') as a cast of the literal.
        value = node.this
        if node.to.this != exp.DType.TIMESTAMPNTZ or node.to.expressions:
            return None
        if not (isinstance(value, exp.Literal) and value.is_string):
            return None
        moment = iso_timestamp(value.name)
        return cast(lit(moment), "TIMESTAMP") if moment is not None else None
    name = node.name.upper()
    if name in _ZONED_FUNCTIONS:
        ctx.report(
            "error",
            "FN-TO-TIMESTAMP-NTZ",
            node,
            f"{name} gives a timestamp in the session time zone, which the SQL cannot show",
        )
        return node
    if name not in _NTZ_FUNCTIONS:
        return None
    if len(node.expressions) != 1:
        ctx.report(
            "error",
            "FN-TO-TIMESTAMP-NTZ",
            node,
            f"{name} with a format has no exact ANSI form here",
        )
        return node  # refused here: not also an unknown function
    if not _mapping_is_ntz(name, node, ctx):
        return node
    [value] = node.expressions
    if isinstance(value, exp.Literal) and value.is_string:
        moment = iso_timestamp(value.name)
        if moment is None:
            ctx.report(
                "error",
                "FN-TO-TIMESTAMP-NTZ",
                node,
                f"'{value.name}' is not an ISO 8601 date and time; give its format",
            )
            return node
        return cast(lit(moment), "TIMESTAMP")
    kind = type_of(value)
    if kind == exp.DType.DATE:
        return cast(clone(value), "TIMESTAMP")
    if kind in TIMESTAMP_TYPES:
        return clone(value)
    if kind in NUMERIC_TYPES:
        return _from_number(node, value, 0, name, ctx)
    if kind in STRING_TYPES:
        return None  # SF-AUTO-DATE reads the string as AUTO does, or makes it raise
    what = kind.value if kind else "a value of unknown type"
    ctx.report(
        "error",
        "FN-TO-TIMESTAMP-NTZ",
        node,
        f"{name} of {what} depends on its format or time zone; CAST it",
    )
    return node
