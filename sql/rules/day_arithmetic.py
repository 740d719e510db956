"""Arithmetic of dates and times with plain numbers, which count days.

``d + 5`` adds five days in Oracle, Teradata, Snowflake and Redshift when ``d`` is a DATE,
and ``d1 - d2`` counts the days between two DATEs; ANSI SQL spells both with intervals.

Oracle's DATE holds a time of day to the second: the catalog types it TIMESTAMP(0) and
records the declared type (``legacy: oracle DATE``). For Oracle a number added to a DATE or
a TIMESTAMP counts days, fractions too (``d + 1/24`` is an hour later; a TIMESTAMP becomes a
DATE first, losing its fractional seconds), and DATE - DATE is a NUMBER of days, fractional
where the times of day differ; TIMESTAMP - TIMESTAMP is an INTERVAL DAY TO SECOND. Which of
the two a TIMESTAMP(0) operand is comes from the catalog's declared type, from what wrote
it (SYSDATE, TRUNC, a DATE column, this rule) or, through CTEs and derived tables, from its
definition; a TIMESTAMP(0) whose declared type is unknown is refused.

T-SQL adds days to a datetime or smalldatetime (``GETDATE() + 1``); a date or datetime2
plus a number is an error there, and datetime - datetime is the datetime as far after
1900-01-01 as the two are apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from sqlglot import exp

from sql.catalog import declared_type, physical_type
from sql.rules.base import Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    TIMESTAMP_TYPES,
    cast,
    clone,
    extract,
    guarded,
    interval,
    lit,
    type_of,
)
from sql.rules.portable_types import Projections
from sql.scopes import current as current_scopes
from sql.source_dialects import semantics

RULE_ID = "DATE-NUMBER-ARITHMETIC"
# An expression a rule wrote whose value is an Oracle DATE (not a TIMESTAMP): "midnight"
# when it is known to have no time of day, "time" otherwise.
ORACLE_DATE_META = "oracle_date"
SECONDS_PER_DAY = 86400
MOMENT_TYPES = {exp.DType.DATE, *TIMESTAMP_TYPES}


@dataclass(frozen=True)
class Moment:
    """What an Oracle date/time operand is: a DATE (``date``) or a TIMESTAMP, and whether it
    is known to hold no time of day (a DATE column of the lake, TRUNC's result)."""

    date: bool
    midnight: bool = False


def fraction_digits(node: exp.Expr) -> int | None:
    """The fractional second digits of a TIMESTAMP-typed expression (ANSI's default, 6,
    when unstated); None when it is not typed TIMESTAMP."""
    kind = node.type
    if kind is None or kind.this not in TIMESTAMP_TYPES:
        return None
    params = [p.this for p in kind.expressions if isinstance(p, exp.DataTypeParam)]
    if params and isinstance(params[0], exp.Literal) and params[0].is_int:
        return int(params[0].name)
    return 6


def _unwrapped(node: exp.Expr) -> exp.Expr:
    while isinstance(node, (exp.Paren, exp.Alias)):
        node = node.this
    return node


def oracle_moment(node: exp.Expr, projections: Projections | None) -> Moment | None:
    """An Oracle date/time operand's kind, or None where nothing says whether it is a DATE
    or a TIMESTAMP."""
    node = _unwrapped(node)
    written = node.meta.get(ORACLE_DATE_META) if node._meta else None
    if written is not None:
        return Moment(date=True, midnight=written == "midnight")
    if type_of(node) == exp.DType.DATE:
        return Moment(date=True, midnight=True)
    if isinstance(node, exp.Cast) and type_of(node.this) == exp.DType.DATE:
        return Moment(date=True, midnight=True)  # TRUNC(d): a DATE at midnight, as TIMESTAMP
    if isinstance(node, exp.Column):
        defining = projections.defining(node) if projections is not None else None
        if defining:
            found = {oracle_moment(p, projections) for p in defining}
            if len(found) == 1:
                return found.pop()
            kinds = {m.date for m in found if m is not None}
            if None not in found and len(kinds) == 1:
                return Moment(date=kinds.pop(), midnight=False)
            return None
        declared = declared_type(node.type)
        if declared is not None and semantics(declared[0]).DATE_HOLDS_TIME:
            written_type = declared[1].upper()
            if written_type == "DATE":
                # Exported as a DATE: every value was checked to be a midnight.
                stored = (physical_type(node.type) or "").upper()
                return Moment(date=True, midnight=stored == "DATE")
            if written_type.startswith("TIMESTAMP"):
                return Moment(date=False)
    values = _values_of(node)
    if values:
        found = {oracle_moment(v, projections) for v in values}
        kinds = {m.date for m in found if m is not None}
        if None not in found and len(kinds) == 1:
            return Moment(date=kinds.pop(), midnight=all(m.midnight for m in found if m))
        return None
    digits = fraction_digits(node)
    if digits:  # fractional seconds: no Oracle DATE holds them
        return Moment(date=False)
    return None


# Functions whose value is one of their arguments' values, unchanged (a window's, LAG's,
# MIN's, a CASE branch's): it is a DATE where those are.
_PICKING = (
    exp.Lag,
    exp.Lead,
    exp.FirstValue,
    exp.LastValue,
    exp.NthValue,
    exp.Min,
    exp.Max,
    exp.AnyValue,
    exp.Nullif,
)


def _values_of(node: exp.Expr) -> list[exp.Expr]:
    """The arguments whose value ``node`` takes as it is, or [] for any other node."""
    if isinstance(node, exp.Window):
        return [node.this]
    if isinstance(node, _PICKING):
        default = node.args.get("default") if isinstance(node, (exp.Lag, exp.Lead)) else None
        return [node.this, *([default] if default is not None else [])]
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
        return [node.this, *node.expressions]
    if isinstance(node, exp.Case):
        branches = [i.args["true"] for i in node.args.get("ifs", [])]
        default = node.args.get("default")
        return [b for b in [*branches, default] if b is not None and not isinstance(b, exp.Null)]
    return []


def _rational(node: exp.Expr) -> Fraction | None:
    """The exact value of a constant number expression (literals, + - * /, parentheses)."""
    node = _unwrapped(node)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return Fraction(Decimal(node.name))
        except (InvalidOperation, ValueError):
            return None
    if isinstance(node, exp.Neg):
        inner = _rational(node.this)
        return -inner if inner is not None else None
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        left, right = _rational(node.this), _rational(node.expression)
        if left is None or right is None:
            return None
        if isinstance(node, exp.Add):
            return left + right
        if isinstance(node, exp.Sub):
            return left - right
        if isinstance(node, exp.Mul):
            return left * right
        return left / right if right else None
    return None


def _seconds(amount: exp.Expr, *, expressions: bool) -> int | None:
    """Whole seconds in ``amount`` days, when it is a constant whose value is a whole number
    of seconds (``1/24`` is 3,600); None otherwise. Without ``expressions`` only a literal
    counts (T-SQL divides numbers in its own decimal arithmetic first)."""
    if not expressions and not isinstance(_unwrapped(amount), (exp.Literal, exp.Neg)):
        return None
    value = _rational(amount)
    if value is None:
        return None
    seconds = value * SECONDS_PER_DAY
    return int(seconds) if seconds.denominator == 1 else None


def _plus(moment: exp.Expr, amount: exp.Expr, subtract: bool, seconds: int | None) -> exp.Expr:
    """``moment`` plus (or minus) ``amount`` days, or ``seconds`` seconds when given."""
    if seconds is not None:
        if seconds % SECONDS_PER_DAY == 0:
            step = interval(lit(seconds // SECONDS_PER_DAY), "DAY")
        else:
            step = interval(lit(seconds), "SECOND")
    else:
        step = interval(amount, "DAY")
    operation = exp.Sub if subtract else exp.Add
    return operation(this=clone(moment), expression=step)


def _projections(node: exp.Expr, ctx: Context) -> Projections:
    root = node.root()
    return Projections.of(root, current_scopes(ctx.scopes, root))


@rule(
    RULE_ID,
    "rewrite",
    ("oracle", "teradata", "snowflake", "redshift", "tsql"),
    (exp.Add, exp.Sub),
    "A number added to or subtracted from a date counts days: CAST(d + INTERVAL 'n' DAY AS "
    "DATE); date - date is a number of days, EXTRACT(DAY FROM (ts1 - ts2)). Oracle: a DATE "
    "is TIMESTAMP(0) (the catalog's declared type says which TIMESTAMP(0) is a DATE), a "
    "number added to it or to a TIMESTAMP without fractional seconds adds days, a constant "
    "fraction whole seconds (d + 1/24: + INTERVAL '3600' SECOND), giving a DATE; DATE - DATE "
    "is a number of days, exact where both are known to be midnights and guarded otherwise "
    "(a fractional difference has no exact ANSI form: such a row stops the query); "
    "TIMESTAMP - TIMESTAMP stays an interval. T-SQL: datetime +/- n adds days; datetime - "
    "datetime is TIMESTAMP '1900-01-01' + (a - b). Refused: a fraction that is no constant "
    "number of seconds, a TIMESTAMP with fractional seconds plus a number in Oracle, a "
    "TIMESTAMP(0) whose declared type is unknown in a subtraction, and timestamps plus "
    "numbers in the other dialects.",
    (
        (
            "oracle",
            "SELECT l_receiptdate - l_commitdate AS late_days, l_shipdate + 7 AS due FROM SALES.LINEITEM",
            'SELECT CAST(EXTRACT(DAY FROM (CAST("lineitem"."l_receiptdate" AS TIMESTAMP) - CAST("lineitem"."l_commitdate" AS TIMESTAMP))) AS BIGINT) AS "late_days", CAST("lineitem"."l_shipdate" + INTERVAL \'7\' DAY AS DATE) AS "due" FROM "raw"."lineitem" AS "lineitem"',
        ),
        (
            "oracle",
            "SELECT shipped_at + 1/24 AS an_hour_later, TRUNC(delivered_at) + 7 AS week_after FROM LOGISTICS.SHIPMENTS",
            'SELECT "shipments"."shipped_at" + INTERVAL \'3600\' SECOND AS "an_hour_later", CAST(CAST("shipments"."delivered_at" AS DATE) AS TIMESTAMP) + INTERVAL \'7\' DAY AS "week_after" FROM "raw"."shipments" AS "shipments"',
        ),
        (
            "oracle",
            "SELECT delivered_at - shipped_at AS days_in_transit FROM LOGISTICS.SHIPMENTS",
            'SELECT CAST(CASE WHEN EXTRACT(HOUR FROM ("shipments"."delivered_at" - "shipments"."shipped_at")) <> 0 OR EXTRACT(MINUTE FROM ("shipments"."delivered_at" - "shipments"."shipped_at")) <> 0 OR EXTRACT(SECOND FROM ("shipments"."delivered_at" - "shipments"."shipped_at")) <> 0 THEN RAISE_ERROR(\'DATE-NUMBER-ARITHMETIC: an Oracle DATE minus a DATE whose times of day differ is a fractional number of days, which has no exact ANSI form\') ELSE EXTRACT(DAY FROM ("shipments"."delivered_at" - "shipments"."shipped_at")) END AS BIGINT) AS "days_in_transit" FROM "raw"."shipments" AS "shipments"',
        ),
        (
            "tsql",
            "SELECT scanned_at + 1 AS next_day FROM dbo.Scans",
            'SELECT "scans"."scanned_at" + INTERVAL \'1\' DAY AS "next_day" FROM "raw"."scans" AS "scans"',
        ),
    ),
    phase="arithmetic",
)
def date_number_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    left, right = type_of(node.this), type_of(node.expression)
    if exp.DType.INTERVAL in (left, right) or any(
        isinstance(operand, exp.Interval) for operand in (node.this, node.expression)
    ):
        return None  # interval arithmetic: INTERVAL-ARITHMETIC's
    subtract = isinstance(node, exp.Sub)
    if left in MOMENT_TYPES and right in MOMENT_TYPES:
        return _difference(node, ctx) if subtract else None
    if left in MOMENT_TYPES and right in NUMERIC_TYPES:
        moment, amount = node.this, node.expression
    elif not subtract and right in MOMENT_TYPES and left in NUMERIC_TYPES:
        moment, amount = node.expression, node.this
    else:
        return None
    if type_of(moment) == exp.DType.DATE:
        return _date_plus_days(node, moment, amount, subtract, ctx)
    return _timestamp_plus_days(node, moment, amount, subtract, ctx)


def _refuse(node: exp.Expr, ctx: Context, message: str) -> exp.Expr:
    ctx.report("error", RULE_ID, node, message)
    return node


def _date_plus_days(
    node: exp.Expr, date: exp.Expr, amount: exp.Expr, subtract: bool, ctx: Context
) -> exp.Expr:
    flags = semantics(ctx.dialect)
    if flags.DATETIME_PLUS_NUMBER_ADDS_DAYS:
        return _refuse(
            node,
            ctx,
            "T-SQL adds numbers to datetime values only: a date plus a number is an "
            "error there (operand type clash)",
        )
    if type_of(amount) in INTEGER_TYPES:
        return cast(_plus(date, amount, subtract, None), "DATE")
    seconds = _seconds(amount, expressions=True) if flags.DATE_HOLDS_TIME else None
    if seconds is None:
        return _refuse(
            node,
            ctx,
            f"adds a fraction of a day to a date in {ctx.dialect}: only whole days, "
            "or in Oracle a constant number of seconds (1/24), have an exact form",
        )
    if seconds % SECONDS_PER_DAY == 0:
        return cast(_plus(date, amount, subtract, seconds), "DATE")
    moved = _plus(cast(date, "TIMESTAMP"), amount, subtract, seconds)
    moved.meta[ORACLE_DATE_META] = "time"
    return moved


def _timestamp_plus_days(
    node: exp.Expr, moment: exp.Expr, amount: exp.Expr, subtract: bool, ctx: Context
) -> exp.Expr:
    flags = semantics(ctx.dialect)
    integral = type_of(amount) in INTEGER_TYPES
    if flags.DATE_HOLDS_TIME:
        kind = oracle_moment(moment, _projections(node, ctx))
        whole_seconds = fraction_digits(moment) == 0 or (kind is not None and kind.date)
        if not whole_seconds:
            return _refuse(
                node,
                ctx,
                "Oracle adds days to a TIMESTAMP by making it a DATE, which drops "
                "its fractional seconds in a way it does not document; CAST it to DATE first "
                "only where it has none",
            )
        seconds = None if integral else _seconds(amount, expressions=True)
        if not integral and seconds is None:
            return _refuse(
                node,
                ctx,
                "adds a fraction of a day that is not a constant number of seconds "
                "(1/24 is); Oracle's DATE keeps whole seconds and how it drops the rest is not "
                "documented",
            )
        moved = _plus(moment, amount, subtract, seconds)
        moved.meta[ORACLE_DATE_META] = (
            "midnight"
            if kind is not None and kind.midnight and (seconds or 0) % SECONDS_PER_DAY == 0
            else "time"
        )
        return moved
    if flags.DATETIME_PLUS_NUMBER_ADDS_DAYS:
        digits = fraction_digits(moment)
        if digits not in (0, 3):
            return _refuse(
                node,
                ctx,
                "T-SQL adds numbers to datetime and smalldatetime values only; a "
                "datetime2 or datetimeoffset plus a number is an error there",
            )
        seconds = None if integral else _seconds(amount, expressions=False)
        if seconds is not None and digits == 0 and seconds % SECONDS_PER_DAY:
            seconds = None  # smalldatetime + a fraction rounds to the minute
        if not integral and seconds is None:
            return _refuse(
                node,
                ctx,
                "adds a fraction of a day that is not a literal whole number of "
                "seconds to a datetime: T-SQL rounds it to its clock ticks",
            )
        return _plus(moment, amount, subtract, seconds)
    return _refuse(
        node,
        ctx,
        f"{ctx.dialect} adds numbers to dates, not to timestamps; add an INTERVAL",
    )


def _difference(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """date - date (and Oracle's DATE - DATE, T-SQL's datetime - datetime)."""
    end, start = node.this, node.expression
    flags = semantics(ctx.dialect)
    both_dates = type_of(end) == exp.DType.DATE and type_of(start) == exp.DType.DATE
    if flags.DATETIME_PLUS_NUMBER_ADDS_DAYS:
        if exp.DType.DATE in (type_of(end), type_of(start)):
            return _refuse(node, ctx, "T-SQL cannot subtract date values (operand type clash)")
        epoch = exp.Cast(this=lit("1900-01-01 00:00:00"), to=exp.DataType.build("TIMESTAMP"))
        return exp.Add(
            this=epoch, expression=exp.Paren(this=exp.Sub(this=clone(end), expression=clone(start)))
        )
    if both_dates:
        elapsed = exp.Paren(
            this=exp.Sub(this=cast(end, "TIMESTAMP"), expression=cast(start, "TIMESTAMP"))
        )
        return extract("DAY", elapsed)
    if not flags.DATE_HOLDS_TIME:
        return None
    projections = _projections(node, ctx)
    kinds = [oracle_moment(end, projections), oracle_moment(start, projections)]
    if None in kinds:
        unknown = end if kinds[0] is None else start
        return _refuse(
            node,
            ctx,
            f"{_shown(unknown)} is a TIMESTAMP(0) that may be an Oracle DATE "
            "(DATE - DATE is a number of days) or a TIMESTAMP (an interval), and the catalog "
            "does not say: import it from the DDL (plumbline catalog import records "
            "`legacy: oracle DATE`) or CAST it",
        )
    if not all(k.date for k in kinds if k is not None):
        return None  # a TIMESTAMP on either side: an INTERVAL DAY TO SECOND, as in ANSI

    def as_timestamp(operand: exp.Expr) -> exp.Expr:
        return cast(operand, "TIMESTAMP") if type_of(operand) == exp.DType.DATE else clone(operand)

    elapsed = exp.Paren(this=exp.Sub(this=as_timestamp(end), expression=as_timestamp(start)))
    days = extract("DAY", elapsed)
    if all(k.midnight for k in kinds if k is not None):
        return days
    differs = exp.or_(
        *(
            exp.NEQ(this=extract(part, clone(elapsed)), expression=lit(0))
            for part in ("HOUR", "MINUTE", "SECOND")
        )
    )
    exact = guarded(
        days,
        differs,
        RULE_ID,
        "an Oracle DATE minus a DATE whose times of day differ is a fractional number of "
        "days, which has no exact ANSI form",
    )
    return cast(exact, "BIGINT")


def _shown(node: exp.Expr) -> str:
    node = _unwrapped(node)
    return node.name if isinstance(node, exp.Column) else node.sql()


@rule(
    "ORA-CAST-DATE",
    "rewrite",
    ("oracle",),
    (exp.Cast,),
    "Oracle's CAST(t AS DATE) of a timestamp keeps its date and time of day to the second (a "
    "DATE holds both): the value itself where it has no fractional seconds (a TIMESTAMP(0), "
    "an Oracle DATE); refused for a TIMESTAMP with fractional seconds, which Oracle drops in "
    "a way it does not document.",
    (
        (
            "oracle",
            "SELECT CAST(shipped_at AS DATE) AS shipped FROM LOGISTICS.SHIPMENTS",
            'SELECT "shipments"."shipped_at" AS "shipped" FROM "raw"."shipments" AS "shipments"',
        ),
    ),
)
def oracle_cast_to_date(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not node.args["to"].is_type(exp.DType.DATE) or type_of(node.this) not in TIMESTAMP_TYPES:
        return None
    kind = oracle_moment(node.this, _projections(node, ctx))
    if fraction_digits(node.this) != 0 and not (kind is not None and kind.date):
        return _refuse_cast(node, ctx)
    value = clone(node.this)
    value.meta[ORACLE_DATE_META] = "midnight" if kind is not None and kind.midnight else "time"
    return value


def _refuse_cast(node: exp.Expr, ctx: Context) -> exp.Expr:
    ctx.report(
        "error",
        "ORA-CAST-DATE",
        node,
        "CAST of a TIMESTAMP with fractional seconds to an Oracle DATE drops them in a way "
        "Oracle does not document (it keeps the time of day): no exact form",
    )
    return node
