"""Arithmetic on dates and times other than plain day counts: a moment plus or minus an
INTERVAL, one moment minus another, a DATE plus a TIME, a TIMESTAMP plus a number.

The day counts of Oracle, Teradata, Snowflake and Redshift (``d + 1``, ``d1 - d2``) are
DATE-NUMBER-ARITHMETIC's (sql/rules/day_arithmetic.py). What is left differs from one dialect to
the next in the result's type (BigQuery's and Redshift's DATE + INTERVAL is a timestamp), at
a month's end (``DATE '2024-01-31' + INTERVAL '1' MONTH`` is 2024-02-29 in BigQuery and
Redshift, an error in Oracle and Teradata as in the standard, and in both engines
2024-02-29), and in what a difference of moments is (an interval, a DATETIME in T-SQL, an
error in Snowflake). The
engines differ from the standard too: DuckDB's DATE + INTERVAL '1' DAY is a TIMESTAMP. So
every such operator is written out with its result type and its month arithmetic made
explicit (``build.add_months``), or refused.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    MONTH_START,
    NUMERIC_TYPES,
    TIMESTAMP_TYPES,
    add_months,
    cast,
    clone,
    interval,
    lit,
    type_of,
)
from sql.rules.day_arithmetic import ORACLE_DATE_META, oracle_moment
from sql.source_dialects import semantics

# The single-field intervals translated, by the names the sources write (sqlglot keeps
# Redshift's plural 'days'), as (unit, multiple of it).
INTERVAL_UNITS = {
    **{name: ("YEAR", 1) for name in ("YEAR", "YEARS")},
    **{name: ("MONTH", 3) for name in ("QUARTER", "QUARTERS")},
    **{name: ("MONTH", 1) for name in ("MONTH", "MONTHS")},
    **{name: ("DAY", 7) for name in ("WEEK", "WEEKS")},
    **{name: ("DAY", 1) for name in ("DAY", "DAYS")},
    **{name: ("HOUR", 1) for name in ("HOUR", "HOURS")},
    **{name: ("MINUTE", 1) for name in ("MINUTE", "MINUTES")},
    **{name: ("SECOND", 1) for name in ("SECOND", "SECONDS")},
}
TIME_OF_DAY_UNITS = ("HOUR", "MINUTE", "SECOND")
INSTANT = exp.DType.TIMESTAMPTZ
MOMENT_TYPES = (exp.DType.DATE, *TIMESTAMP_TYPES, INSTANT)


def _interval_amount(node: exp.Interval) -> tuple[str, int] | None:
    """(unit, count) of a single-field interval of an integer count, else None."""
    unit = node.args.get("unit")
    amount = node.this
    if not isinstance(unit, exp.Var) or unit.name.upper() not in INTERVAL_UNITS:
        return None
    if not isinstance(amount, exp.Literal):
        return None
    text = amount.name.strip()
    if not text.lstrip("+-").isdigit():
        return None
    name, multiple = INTERVAL_UNITS[unit.name.upper()]
    return name, int(text) * multiple


def _known_day(date: exp.Expr) -> int | None:
    """The day of the month of ``date`` when the SQL shows it: a first of a month a rule
    wrote (TRUNC(d, 'MM'), DATE_TRUNC), or a date literal."""
    if date.meta.get(MONTH_START):
        return 1
    while isinstance(date, (exp.Cast, exp.Paren)):
        if date.meta.get(MONTH_START):
            return 1
        date = date.this
    if isinstance(date, exp.Literal) and date.is_string:
        try:
            return dt.date.fromisoformat(date.name[:10]).day
        except ValueError:
            return None
    return None


def _moment_and_interval(node: exp.Expr) -> tuple[exp.Expr, exp.Interval, int] | None:
    """(moment, interval, sign) of ``moment +/- INTERVAL`` or ``INTERVAL + moment``."""
    left, right = node.this, node.expression
    if isinstance(right, exp.Interval) and not isinstance(left, exp.Interval):
        return left, right, -1 if isinstance(node, exp.Sub) else 1
    if isinstance(node, exp.Add) and isinstance(left, exp.Interval):
        return right, left, 1
    return None


@rule(
    "INTERVAL-ARITHMETIC",
    "rewrite",
    ALL_DIALECTS,
    (exp.Add, exp.Sub),
    "A DATE or TIMESTAMP plus or minus a one-field INTERVAL of a whole count (YEAR, QUARTER, "
    "MONTH, WEEK, DAY, HOUR, MINUTE, SECOND) is written with its result type: a DATE stays a "
    "DATE for years, months and days (DuckDB's DATE + INTERVAL is a TIMESTAMP), becomes a "
    "TIMESTAMP in BigQuery (DATETIME) and Redshift whatever the unit, and in Oracle for hours, "
    "minutes and seconds (its DATE holds a time of day). Months and years clamp to the target "
    "month's last day in BigQuery and Redshift (build.add_months); in Oracle, Teradata and "
    "Snowflake a day the target month lacks is an error (ORA-01839) or undocumented, so they "
    "are translated only where the day is known to exist (a first of a month, a literal date "
    "up to the 28th). An interval of several fields or a fraction, hours on a Snowflake or "
    "Teradata DATE, and calendar units on a TIMESTAMP WITH TIME ZONE (their days depend on the "
    "session's time zone) are refused.",
    (
        (
            "bigquery",
            "SELECT o_orderdate + INTERVAL 1 MONTH AS m, o_orderdate - INTERVAL 2 DAY AS d "
            "FROM sales.orders",
            'SELECT CAST(CASE WHEN EXTRACT(DAY FROM "orders"."o_orderdate") > EXTRACT(DAY FROM '
            '"orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL '
            "'1' DAY + INTERVAL '1' MONTH + INTERVAL '1' MONTH - INTERVAL '1' DAY) THEN "
            '"orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL '
            "'1' DAY + INTERVAL '1' MONTH + INTERVAL '1' MONTH - INTERVAL '1' DAY ELSE "
            '"orders"."o_orderdate" - (EXTRACT(DAY FROM "orders"."o_orderdate") - 1) * INTERVAL '
            "'1' DAY + INTERVAL '1' MONTH + (EXTRACT(DAY FROM \"orders\".\"o_orderdate\") - 1) * "
            'INTERVAL \'1\' DAY END AS TIMESTAMP) AS "m", CAST("orders"."o_orderdate" + (-2) * '
            'INTERVAL \'1\' DAY AS TIMESTAMP) AS "d" FROM "raw"."orders" AS "orders"',
        ),
        (
            "teradata",
            "SELECT o_orderdate + INTERVAL '7' DAY AS d FROM SALES_DB.ORDERS",
            'SELECT CAST("orders"."o_orderdate" + INTERVAL \'7\' DAY AS DATE) AS "d" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
    phase="arithmetic",
)
def interval_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    parts = _moment_and_interval(node)
    if parts is None:
        return None
    moment, step, sign = parts
    kind = type_of(moment)
    if kind not in MOMENT_TYPES:
        return None  # a TIME, or an interval sum: the standard's as it stands

    def refuse(why: str) -> exp.Expr:
        ctx.report("error", "INTERVAL-ARITHMETIC", node, why)
        return node

    amount = _interval_amount(step)
    if amount is None:
        return refuse(
            "an INTERVAL of several fields, a fraction or a computed count: write one field "
            "of a whole number (INTERVAL '3' MONTH)"
        )
    unit, count = amount
    count *= sign
    flags = semantics(ctx.dialect)
    if kind == INSTANT:
        if unit not in TIME_OF_DAY_UNITS:
            return refuse(
                f"{unit} steps on a TIMESTAMP WITH TIME ZONE fall on days of the session's time "
                "zone; convert it to a civil TIMESTAMP first"
            )
        # an instant plus hours, minutes or seconds is that instant on both engines
        return exp.Add(this=clone(moment), expression=interval(lit(count), unit))
    result = "DATE" if kind == exp.DType.DATE else "TIMESTAMP"
    if kind == exp.DType.DATE and flags.DATE_PLUS_INTERVAL_IS_TIMESTAMP:
        result = "TIMESTAMP"
    # An Oracle DATE (a DATE, or a TIMESTAMP(0) the catalog declares DATE) stays a DATE with a
    # time of day: marked so that DATE-NUMBER-ARITHMETIC counts days in a later subtraction.
    oracle = oracle_moment(moment, None) if flags.DATE_HOLDS_TIME else None
    if kind == exp.DType.DATE and unit in TIME_OF_DAY_UNITS:
        if result == "DATE" and not flags.DATE_HOLDS_TIME:
            return refuse(f"{unit} steps on a DATE: CAST it to a TIMESTAMP first")
        result, moment = "TIMESTAMP", cast(moment, "TIMESTAMP")
    if unit in ("YEAR", "MONTH"):
        months = count * 12 if unit == "YEAR" else count
        day = _known_day(moment)
        if not flags.INTERVAL_MONTHS_CLAMP and (day is None or day > 28):
            return refuse(
                "months added with an INTERVAL fail where the day does not exist in the "
                "target month (the 31st, February 29) here, and the engines move it to the "
                "month's last day; use ADD_MONTHS / DATEADD to clamp, or add to a first of a "
                "month"
            )
        if day is not None and day <= 28:
            # every month has the day: the standard's own month step
            moved = exp.Add(this=clone(moment), expression=interval(lit(months), "MONTH"))
        else:
            moved = add_months(moment, lit(months), keep_end_of_month=False)
    else:
        moved = exp.Add(this=clone(moment), expression=interval(lit(count), unit))
    if type_of(moment) in TIMESTAMP_TYPES and result == "TIMESTAMP":
        # a TIMESTAMP plus an interval is one of the same precision on both engines
        moved.type = moment.type.copy() if moment.type is not None else None
    else:
        moved = cast(moved, result)  # DuckDB's DATE + INTERVAL is a TIMESTAMP
    if oracle is not None and oracle.date:
        midnight = oracle.midnight and unit not in TIME_OF_DAY_UNITS
        moved.meta[ORACLE_DATE_META] = "midnight" if midnight else "time"
    return moved


def _moment(node: exp.Expr) -> bool:
    return type_of(node) in MOMENT_TYPES


@rule(
    "MOMENT-SUBTRACTION",
    "refuse",
    ALL_DIALECTS,
    (exp.Sub,),
    "One date or timestamp minus another, where DATE-NUMBER-ARITHMETIC does not count days "
    "(nor write T-SQL's DATETIME difference): Oracle and Redshift TIMESTAMP - TIMESTAMP is "
    "the standard's INTERVAL DAY TO SECOND and stays; BigQuery's is its own INTERVAL type (a "
    "TIMESTAMP difference keeps every day in its hours), Snowflake and Teradata (without an "
    "interval qualifier) refuse it, and an Oracle DATE minus a DATE that rule left (an "
    "INTERVAL added below it) is a number of days: refused, naming DATEDIFF / DATE_DIFF / "
    "TIMESTAMP_DIFF.",
    (
        (
            "snowflake",
            "SELECT CAST(o_orderdate AS TIMESTAMP) - CAST(o_orderdate AS TIMESTAMP) AS d FROM SALES.ORDERS",
            "1:13",
        ),
    ),
    phase="arithmetic",
)
def moment_subtraction(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not (_moment(node.this) and _moment(node.expression)):
        return None
    if semantics(ctx.dialect).DATE_HOLDS_TIME:
        kinds = [oracle_moment(operand, None) for operand in (node.this, node.expression)]
        if all(kind is not None and kind.date for kind in kinds):
            # left by DATE-NUMBER-ARITHMETIC (an INTERVAL below it): a number of days in
            # Oracle, which would pass as an interval
            ctx.report(
                "error",
                "MOMENT-SUBTRACTION",
                node,
                "an Oracle DATE minus a DATE is a number of days, not counted here; subtract "
                "the dates before adding the interval",
            )
            return node
    if semantics(ctx.dialect).TIMESTAMP_DIFFERENCE_IS_INTERVAL and not (
        type_of(node.this) == exp.DType.DATE and type_of(node.expression) == exp.DType.DATE
    ):
        return None  # the standard's INTERVAL DAY TO SECOND
    both_dates = type_of(node.this) == type_of(node.expression) == exp.DType.DATE
    if both_dates and semantics(ctx.dialect).DATE_DIFFERENCE_IS_DAY_COUNT:
        return None  # DATE-NUMBER-ARITHMETIC's
    ctx.report(
        "error",
        "MOMENT-SUBTRACTION",
        node,
        "a date or time subtracted from another is no standard interval in this dialect; "
        "count the units with DATEDIFF / DATE_DIFF / TIMESTAMP_DIFF",
    )
    return node


@rule(
    "MOMENT-NUMBER-ARITHMETIC",
    "rewrite",
    ("bigquery", "snowflake", "redshift", "teradata"),
    (exp.Add, exp.Sub),
    "A DATE plus or minus an integer adds days and is a DATE (BigQuery's DATE +/- INT64; "
    "DATE-NUMBER-ARITHMETIC writes the others'): CAST(d + INTERVAL 'n' DAY AS DATE). "
    "A TIMESTAMP plus or minus a number, which these dialects refuse, and a DATE plus a TIME "
    "(a TIMESTAMP in Redshift, refused elsewhere; no form both engines compute) are refused.",
    (
        (
            "bigquery",
            "SELECT o_orderdate + 7 AS due, o_orderdate - 1 AS eve FROM sales.orders",
            'SELECT CAST("orders"."o_orderdate" + INTERVAL \'7\' DAY AS DATE) AS "due", '
            'CAST("orders"."o_orderdate" + (-1) * INTERVAL \'1\' DAY AS DATE) AS "eve" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
    phase="arithmetic",
)
def moment_number_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.find(exp.Interval):
        return None  # INTERVAL-ARITHMETIC's
    left, right = type_of(node.this), type_of(node.expression)
    if exp.DType.TIME in (left, right) and exp.DType.DATE in (left, right):
        ctx.report(
            "error",
            "MOMENT-NUMBER-ARITHMETIC",
            node,
            "a DATE plus a TIME: DuckDB computes no TIME difference and Spark no DATE + TIME; "
            "build the TIMESTAMP from its parts instead",
        )
        return node
    if isinstance(node, exp.Add) and right in (exp.DType.DATE, *TIMESTAMP_TYPES, INSTANT):
        date, number, kind, other = node.expression, node.this, right, left
    else:
        date, number, kind, other = node.this, node.expression, left, right
    if kind in (*TIMESTAMP_TYPES, INSTANT) and other in NUMERIC_TYPES:
        ctx.report(
            "error",
            "MOMENT-NUMBER-ARITHMETIC",
            node,
            "a TIMESTAMP plus or minus a number is an error in this dialect; add an INTERVAL",
        )
        return node
    if kind != exp.DType.DATE or other not in INTEGER_TYPES:
        return None
    days = number if isinstance(node, exp.Add) else exp.Neg(this=clone(number))
    return cast(exp.Add(this=clone(date), expression=interval(days, "DAY")), "DATE")


@rule(
    "MOMENT-SUM",
    "refuse",
    ALL_DIALECTS,
    (exp.Add,),
    "A date or timestamp plus another: T-SQL adds DATETIME values as days counted from "
    "1900-01-01 (CAST(d AS DATETIME) + CAST(t AS DATETIME), whose CAST of a TIME is 1900-01-01 "
    "at that time; the standard's is today at that time), no other dialect adds them, and "
    "neither engine does: refused, naming the parts to build the timestamp from.",
    (("tsql", "SELECT o_orderdate + o_orderdate AS d FROM dbo.Orders", "1:8"),),
    phase="arithmetic",
)
def moment_sum(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not (_moment(node.this) and _moment(node.expression)):
        return None
    ctx.report(
        "error",
        "MOMENT-SUM",
        node,
        "a date or time added to another has no standard meaning; add an INTERVAL, or build "
        "the timestamp from its date and its time of day",
    )
    return node
