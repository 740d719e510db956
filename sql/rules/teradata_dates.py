"""Teradata's TRUNC(date, fmt) and ROUND(date, fmt): a DATE to the first day of its unit.

sqlglot reads both as the numeric TRUNC / ROUND with a string for decimals. For a DATE,
Teradata returns a DATE (TRUNC(Date), ROUND(Date) in Teradata Vantage's SQL Date and Time
Functions): the first day of the century (CC, years 2001-2100 for 2010), year, quarter,
month or week, or the day itself. ROUND moves up to the next unit from its middle: the 16th
of a month, the 16th of a quarter's second month, July 1. A TIMESTAMP argument is refused:
its result is a DATE or a TIMESTAMP by the DBS Control field TruncRoundReturnTimestamp.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import cast, clone, extract, interval, lit, type_of
from sql.rules.dates import date_trunc

# The formats of each unit, as Teradata spells them (case-insensitive).
UNITS = {
    **dict.fromkeys(("CC", "SCC"), "CENTURY"),
    **dict.fromkeys(("SYEAR", "SYYYY", "YEAR", "YYYY", "YYY", "YY", "Y"), "YEAR"),
    "Q": "QUARTER",
    **dict.fromkeys(("MONTH", "MON", "MM", "RM"), "MONTH"),
    **dict.fromkeys(("DDD", "DD", "J"), "DAY"),
    "IW": "MONDAY",  # the ISO week's first day
    **dict.fromkeys(("DAY", "DY", "D"), "SUNDAY"),  # Teradata's weeks start on Sunday
}
# Units ROUND has an exact form for here (weeks round by rules of their own).
ROUNDED = ("YEAR", "QUARTER", "MONTH", "DAY")


def _first_day(date: exp.Expr, unit: str, ctx: Context) -> exp.Expr | None:
    """The first day of ``date``'s ``unit`` as a DATE."""
    if unit == "CENTURY":
        # Centuries run from year 1 to year 100: back (year - 1) MOD 100 years from January 1.
        year_start = _first_day(date, "YEAR", ctx)
        back = exp.Mod(
            this=exp.Paren(this=exp.Sub(this=extract("YEAR", date), expression=lit(1))),
            expression=lit(100),
        )
        return cast(exp.Sub(this=year_start, expression=interval(back, "YEAR")), "DATE")
    unit_node = exp.WeekStart(this=exp.var(unit)) if unit in ("MONDAY", "SUNDAY") else exp.var(unit)
    return date_trunc(exp.DateTrunc(this=clone(date), unit=unit_node), ctx)


def _rounded(date: exp.Expr, unit: str, ctx: Context) -> exp.Expr | None:
    """ROUND(date, unit): the unit's first day, or the next unit's from its middle on."""
    first = _first_day(date, unit, ctx)
    if unit == "DAY" or first is None:
        return first
    month, day = extract("MONTH", date), extract("DAY", date)
    if unit == "MONTH":
        later = exp.GTE(this=day, expression=lit(16))
    elif unit == "YEAR":
        later = exp.GTE(this=month, expression=lit(7))
    else:  # QUARTER: from the 16th of its second month
        into = exp.Paren(
            this=exp.Mod(this=exp.Sub(this=month, expression=lit(1)), expression=lit(3))
        )
        later = exp.Or(
            this=exp.EQ(this=into, expression=lit(2)),
            expression=exp.And(
                this=exp.EQ(this=clone(into), expression=lit(1)),
                expression=exp.GTE(this=clone(day), expression=lit(16)),
            ),
        )
    step = {"MONTH": (1, "MONTH"), "QUARTER": (3, "MONTH"), "YEAR": (1, "YEAR")}[unit]
    following = cast(exp.Add(this=clone(first), expression=interval(*step)), "DATE")
    return exp.Case(ifs=[exp.If(this=later, true=following)], default=first)


@rule(
    "TD-DATE-TRUNC",
    "rewrite",
    ("teradata",),
    (exp.Trunc, exp.Round),
    "Teradata's TRUNC(d, fmt) and ROUND(d, fmt) of a DATE are the first day of d's century "
    "(CC, SCC: years 1-100), year (YYYY, YEAR, Y...), quarter (Q), month (MM, MON, MONTH, RM), "
    "ISO week (IW: Monday) or week (DAY, DY, D: Sunday), or d itself (DD, DDD, J), built with "
    "DATE-TRUNC's interval arithmetic; ROUND moves to the next year, quarter or month from "
    "July 1, the 16th of the quarter's second month, the 16th. Refused: a TIMESTAMP (DATE or "
    "TIMESTAMP result by a DBS Control field), a format computed at run time, ISO years and "
    "the weeks counted from January 1 or the 1st (IYYY, WW, W), and ROUND to a century or "
    "week.",
    (
        (
            "teradata",
            "SELECT TRUNC(o_orderdate, 'Q') AS q FROM SALES_DB.ORDERS",
            'SELECT CAST(CAST(CAST("orders"."o_orderdate" AS DATE) - (EXTRACT(DAY FROM CAST('
            '"orders"."o_orderdate" AS DATE)) - 1) * INTERVAL \'1\' DAY - (MOD((EXTRACT(MONTH '
            'FROM "orders"."o_orderdate") - 1), 3)) * INTERVAL \'1\' MONTH AS DATE) AS DATE) '
            'AS "q" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="typed",
)
def teradata_date_trunc(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("decimals")
    kind = type_of(node.this)
    if not (isinstance(model, exp.Literal) and model.is_string):
        if kind != exp.DType.DATE or isinstance(model, exp.Literal):
            return None  # a number rounded or truncated: the numeric rules'
        if model is None:
            return clone(node.this)  # to the day: a DATE is one already
    name = "ROUND" if isinstance(node, exp.Round) else "TRUNC"
    if kind != exp.DType.DATE:
        if kind in (exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ):
            why = (
                "of a TIMESTAMP returns a DATE or a TIMESTAMP by the DBS Control field "
                "TruncRoundReturnTimestamp; cast the value to DATE"
            )
        else:
            return None
    elif not isinstance(model, exp.Literal):
        why = "of a date with a format computed at run time; write the format"
    else:
        unit = UNITS.get(model.name.upper())
        if unit is None:
            why = (
                f"of a date to {model.name!r} (ISO years, weeks from January 1 or the 1st, "
                "or no unit)"
            )
        elif isinstance(node, exp.Round) and unit not in ROUNDED:
            why = f"of a date to {model.name!r}: rounding to a century or a week is not translated"
        else:
            value = node.this
            result = (_rounded if name == "ROUND" else _first_day)(value, unit, ctx)
            if result is not None:
                return result
            why = f"of a date to {model.name!r}"
    ctx.report("error", "TD-DATE-TRUNC", node, f"{name} {why}")
    return node
