"""T-SQL's ``datetime``: every value that becomes one is a value a datetime can hold.

A datetime counts time of day in ticks of 1/300 s and shows milliseconds rounded to .000,
.003 or .007 ("datetime (Transact-SQL)", learn.microsoft.com/sql/t-sql/data-types/
datetime-transact-sql, "Rounding of datetime fractional second precision": 23:59:59.999 is
the next day's 00:00:00.000, .995 to .998 are .997, .992 to .994 are .993, .990 and .991 are
.990), from 1753-01-01 to 9999-12-31 23:59:59.997. The catalog holds a declared DATETIME as
TIMESTAMP(3), the milliseconds as shown (sql/catalog_import.py); so does the translation:

- text, read at translation: rounded by that table, written as the literal it gives; text
  with more than three fractional digits ("n* is zero to three digits", the page's element
  ranges) or outside the range fails in T-SQL, and is refused;
- a value on the grid already (a declared DATETIME or SMALLDATETIME column): unchanged; a
  DATE is midnight, checked against the range;
- a TIMESTAMP value: rounded in SQL from its microseconds (EXTRACT(SECOND), exact on both
  engines, sql/render.py) by the table. The page says a datetime2 value's digits past the
  millisecond are "truncated" before that, while the rounding to ticks would take them into
  account; where the two readings give different values (a tenth of the values with more
  than three digits), or the value is out of range, a run-time guard stops the query;
- the clock (GETDATE(), CURRENT_TIMESTAMP: datetime in T-SQL; SYSDATETIME() is datetime2(7)
  and keeps its six digits): the reading floored to the tick that starts its 10 ms, .xx0.
  Which instant a clock reads is not reproducible; the value must be one a datetime holds,
  not later than the reading, and the same value as a DATETIME2, which .xx3 and .xx7 are not.

The other way, a datetime converted to a DATETIME2 of more than three digits is its exact
tick ("datetime2 (Transact-SQL)": .333 becomes .3333333), which six digits do not hold for
.xx3 and .xx7: those stop at a guard (TSQL-DATETIME-TO-DATETIME2). Beside a datetime2, T-SQL
converts or compares a datetime the same way without being asked: a comparison is written
exactly with the two microseconds around the tick (TSQL-DATETIME-COMPARED); CASE, COALESCE,
IIF, ISNULL and NULLIF take the type T-SQL gives them (TSQL-DATETIME-BESIDE-DATETIME2).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from sqlglot import exp

from sql.catalog import declared_type
from sql.diagnostics import node_offset
from sql.rules.base import Context, rule
from sql.rules.build import (
    STRING_TYPES,
    TIMESTAMP_TYPES,
    case_when,
    clone,
    data_type,
    derived_value,
    extract,
    failure,
    lit,
    own,
    paren,
    type_of,
    typed,
)
from sql.rules.conditionals import ISNULL
from sql.rules.date_strings import read_date_string
from sql.rules.portable_types import branches
from sql.source_dialects import UTC_CLOCK_META, semantics

RULE = "TSQL-DATETIME"
CLOCK_RULE = "TSQL-GETDATE"
# Marks a value this module put on the datetime grid (or found there): not rounded again.
ON_GRID = "tsql_datetime"
# Marks a value sql/rules/tsql_smalldatetime.py rounded to its minute: a smalldatetime.
ON_MINUTE = "tsql_smalldatetime"
FIRST = dt.datetime(1753, 1, 1)
LAST = dt.datetime(9999, 12, 31, 23, 59, 59, 997000)

# Within each 10 ms the grid shows .000, .003, .007 and the next .000: in microseconds,
# SHOWN; the bounds are where a value's microseconds into its 10 ms go to the next one.
SHOWN = (0, 3000, 7000, 10000)
# The documented table: milliseconds ending 0-1, 2-4, 5-8, 9.
BY_MILLISECOND = (2000, 5000, 9000)
# The nearest tick (1/300 s = 3333.3 us): a tie (5000 us exactly) goes up, as the table's .005.
BY_TICK = (1667, 5000, 8334)
# Down to the block's first tick (.xx0 ms): no tick point past it.
FLOORED = (SHOWN[-1],) * 3

# 'hh:mm[:ss[.fff...]]': the time of a date string (the page's numeric and ISO 8601 forms).
TIME_OF_DAY = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?")
ISO_8601 = re.compile(r"(\d{4}-\d{2}-\d{2})T(.*)")


def _micros_in_block(value: exp.Expr) -> exp.Expr:
    """Microseconds into the 10 ms that ``value`` (a TIMESTAMP) is in, 0 to 9999."""
    seconds = exp.Mul(this=extract("SECOND", value), expression=lit(1_000_000))
    micros = typed(exp.Cast(this=seconds, to=data_type("BIGINT")), "BIGINT")
    return exp.Mod(this=micros, expression=lit(10_000))


def _target(micros: exp.Expr, bounds: tuple[int, int, int]) -> exp.Expr:
    """Where the grid puts ``micros`` (into a 10 ms block), by ``bounds``."""
    # A bound at the block's end (the clock's floor) leaves its point the last one.
    steps = [(b, s) for b, s in zip(bounds, SHOWN, strict=False) if b < SHOWN[-1]]
    ifs = [
        exp.If(this=exp.LT(this=clone(micros), expression=lit(b)), true=lit(s)) for b, s in steps
    ]
    return exp.Case(ifs=ifs, default=lit(SHOWN[len(steps)])) if ifs else lit(SHOWN[0])


def to_grid(value: exp.Expr, bounds: tuple[int, int, int]) -> exp.Expr:
    """``value`` moved to the grid point ``bounds`` give: value + (target - micros) us."""
    micros = _micros_in_block(clone(value))
    shift = exp.Sub(this=_target(micros, bounds), expression=clone(micros))
    step = exp.Interval(this=exp.Literal.string("0.000001"), unit=exp.var("SECOND"))
    moved = exp.Add(this=paren(own(value)), expression=exp.Mul(this=paren(shift), expression=step))
    return typed(exp.Paren(this=moved), "TIMESTAMP")


def _between(value: exp.Expr, low: int, high: int) -> exp.Expr:
    return exp.Between(this=value, low=lit(low), high=lit(high))


def timestamp_literal(text: str) -> exp.Expr:
    return typed(exp.Cast(this=lit(text), to=data_type("TIMESTAMP")), "TIMESTAMP")


def _out_of_range(value: exp.Expr) -> exp.Expr:
    """Before 1753-01-01, or rounded past 9999-12-31 23:59:59.997 (by either reading)."""
    return exp.Or(
        this=exp.LT(this=clone(value), expression=timestamp_literal("1753-01-01 00:00:00")),
        expression=exp.GTE(
            this=clone(value), expression=timestamp_literal("9999-12-31 23:59:59.998334")
        ),
    )


# Text, read at translation --------------------------------------------------------------


def read_text(text: str, digits: int, ctx: Context) -> tuple[dt.datetime, str] | str:
    """``text`` as T-SQL reads it for a type of ``digits`` fractional digits: the moment to
    the microsecond and the fraction as written, or why it is not read here."""
    text = text.strip()
    iso = ISO_8601.fullmatch(text)
    if iso:
        day_text, time_text = iso.groups()
    else:
        day_text, _, time_text = text.partition(" ")
        time_text = time_text.strip()
    reading = read_date_string(day_text, ctx)
    if reading.text is None or reading.kind != "DATE":
        return reading.problem or f"{text!r} is not read as a date here"
    hour = minute = second = 0
    fraction = ""
    if time_text or iso:
        clock = TIME_OF_DAY.fullmatch(time_text)
        if clock is None or (iso and clock.group(3) is None):
            return (
                f"the time of day in {text!r} is not read here (hh:mm[:ss[.fff]] after the "
                "date; ISO 8601 with T needs the seconds)"
            )
        hour, minute = int(clock.group(1)), int(clock.group(2))
        second = int(clock.group(3) or 0)
        fraction = clock.group(4) or ""
    if len(fraction) > digits:
        return (
            f"{text!r} has {len(fraction)} fractional-second digits: T-SQL's conversion of "
            f"text to this type takes at most {digits} and fails on more"
        )
    if hour > 23 or minute > 59 or second > 59:
        return f"{text!r} is no time of day"
    day = dt.date.fromisoformat(reading.text)
    micros = int(fraction.ljust(7, "0")[:7]) // 10  # the engines hold microseconds
    if len(fraction) == 7 and fraction[6] != "0":
        return f"{text!r} has a seventh fractional digit, which the engines do not hold"
    moment = dt.datetime(day.year, day.month, day.day, hour, minute, second, micros)
    return moment, fraction


def _grid_point(moment: dt.datetime, bounds: tuple[int, int, int]) -> dt.datetime | None:
    """The grid point ``bounds`` give ``moment``; None past the year 9999."""
    micros = moment.microsecond % 10_000
    target = next((s for b, s in zip(bounds, SHOWN, strict=False) if micros < b), SHOWN[-1])
    try:
        return moment + dt.timedelta(microseconds=target - micros)
    except OverflowError:
        return None


def _literal_text(moment: dt.datetime, fraction: bool) -> str:
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    return f"{text}.{moment.microsecond // 1000:03d}" if fraction else text


def _fold(
    node: exp.Cast,
    moment: dt.datetime,
    fraction: str,
    more_digits: bool,
    ctx: Context,
    *,
    rule_id: str = RULE,
    at: exp.Expr | None = None,
) -> exp.Expr | None:
    """The datetime a moment read from text becomes, as a literal; None after a refusal
    (reported by ``rule_id`` at ``at``, the literal by default)."""
    at = at if at is not None else node.this
    rounded = _grid_point(moment, BY_MILLISECOND)
    if more_digits and _grid_point(moment, BY_TICK) != rounded:
        ctx.report(
            "error",
            rule_id,
            at,
            f"{_literal_text(moment, True)}{moment.microsecond % 1000:03d} as a datetime: T-SQL "
            "documents that the digits past the millisecond are truncated and rounds to its "
            "1/300 s ticks, which give different values here; write the value in milliseconds",
        )
        return None
    if rounded is None or not FIRST <= rounded <= LAST:
        ctx.report(
            "error",
            rule_id,
            at,
            f"{_literal_text(moment, bool(fraction))} is outside T-SQL's datetime range (1753-01-01 to "
            "9999-12-31 23:59:59.997): the conversion fails there",
        )
        return None
    if (
        rounded == moment
        and not fraction
        and (moment.hour, moment.minute, moment.second)
        == (
            0,
            0,
            0,
        )
    ):
        return timestamp_literal(moment.date().isoformat())
    written = timestamp_literal(_literal_text(rounded, bool(fraction) or rounded != moment))
    written.meta[ON_GRID] = True
    offset = node_offset(node)
    if offset is not None:
        written.meta["keyword_start"] = offset  # where a later refusal of it points
    return written


def literal_moment(value: exp.Expr, ctx: Context) -> tuple[exp.Expr, str, int] | None:
    """The string literal ``value`` converts (itself, or inside CAST to DATETIME2(p) /
    TIMESTAMP(p)), its text and the digits the conversion reads."""
    if isinstance(value, exp.Literal) and value.is_string:
        return value, value.name, 3
    if (
        isinstance(value, exp.Cast)
        and isinstance(value.this, exp.Literal)
        and value.this.is_string
        and value.args["to"].this in TIMESTAMP_TYPES
        and value.args["to"].this != exp.DType.DATETIME
    ):
        params = [p.this for p in value.args["to"].expressions]
        digits = int(params[0].name) if params and isinstance(params[0], exp.Literal) else 7
        return value.this, value.this.name, digits
    return None


# The conversion --------------------------------------------------------------------------


def _on_grid(value: exp.Expr) -> bool:
    """A value every row of which a datetime holds as it is."""
    if value._meta and value.meta.get(ON_GRID):
        return True
    if isinstance(value, exp.Paren):
        return _on_grid(value.this)
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Null):
        return True
    if isinstance(value, exp.Cast) and value.args["to"].this == exp.DType.DATETIME:
        return True
    return _declared(value) == "DATETIME" or smalldatetime_value(value)


def smalldatetime_value(value: exp.Expr) -> bool:
    """A value of T-SQL's smalldatetime type: a declared SMALLDATETIME, a conversion to one
    (or what sql/rules/tsql_smalldatetime.py wrote of it)."""
    if value._meta and value.meta.get(ON_MINUTE):
        return True
    if isinstance(value, exp.Paren):
        return smalldatetime_value(value.this)
    if isinstance(value, exp.Cast) and value.args["to"].this == exp.DType.SMALLDATETIME:
        return True
    if type_of(value) == exp.DType.SMALLDATETIME:
        return True  # a value T-SQL's conversions typed (an inserted row's column)
    if isinstance(value, exp.Column) and _declared(value) is None:
        derived = derived_value(value)
        return derived is not None and smalldatetime_value(derived)
    if _declared(value) == "SMALLDATETIME":
        return True
    base = _shifted(value)  # DATEADD keeps its date's type
    return base is not None and smalldatetime_value(base)


def _declared(value: exp.Expr) -> str | None:
    """The T-SQL type a catalog column declares (DATETIME2(3) -> DATETIME2), if any."""
    declared = declared_type(value.type)
    if declared is None or declared[0] != "tsql":
        return None
    return declared[1].upper().partition("(")[0].strip()


def timestamp_digits(value: exp.Expr) -> int:
    """Digits past the second ``value`` may hold (6 where its type does not say)."""
    kind = value.type
    if kind is None or kind.this not in TIMESTAMP_TYPES:
        return 6
    params = [p.this for p in kind.expressions if isinstance(p, exp.DataTypeParam)]
    if params and isinstance(params[0], exp.Literal) and params[0].is_int:
        return int(params[0].name)
    return 6


def _rounded(node: exp.Expr, value: exp.Expr, ctx: Context) -> exp.Expr:
    """``value`` (a TIMESTAMP) rounded to the datetime grid in SQL, under guards that name
    ``node`` (the conversion)."""
    ifs = [
        exp.If(
            this=_out_of_range(value),
            true=failure(
                RULE,
                "the value is outside T-SQL's datetime range (1753-01-01 to 9999-12-31 "
                "23:59:59.997), where the conversion fails",
                node,
            ),
        )
    ]
    if timestamp_digits(value) > 3:
        micros = _micros_in_block(clone(value))
        differs = exp.Or(
            this=_between(clone(micros), BY_TICK[0], BY_MILLISECOND[0] - 1),
            expression=_between(micros, BY_TICK[2], BY_MILLISECOND[2] - 1),
        )
        ifs.append(
            exp.If(
                this=differs,
                true=failure(
                    RULE,
                    "T-SQL documents that a value's digits past the millisecond are truncated "
                    "in its conversion to datetime, and rounds to 1/300 s ticks: the two give "
                    "different datetimes for this value",
                    node,
                ),
            )
        )
    result = exp.Case(ifs=ifs, default=to_grid(clone(value), BY_MILLISECOND))
    result.type = data_type("TIMESTAMP")
    result.meta[ON_GRID] = True
    return result


@rule(
    RULE,
    "rewrite",
    ("tsql",),
    (exp.Cast,),
    "CAST / CONVERT to DATETIME gives a value of T-SQL's datetime: 1/300 s ticks shown as "
    "milliseconds .000 / .003 / .007, from 1753-01-01 to 9999-12-31 23:59:59.997. Text is read "
    "at translation and rounded by the documented table (.999 is the next second, .995-.998 "
    ".997, .992-.994 .993, .990-.991 .990); text with more than three fractional digits (a "
    "conversion error in T-SQL) or out of range is refused. A declared DATETIME or "
    "SMALLDATETIME is unchanged; a DATE is midnight under a range guard; a TIMESTAMP (DATETIME2) "
    "is rounded by the same table in SQL under a guard that stops on a value out of range and, "
    "for values with more than three digits, where T-SQL's documented truncation past the "
    "millisecond and its rounding to ticks give different datetimes. Numbers (days since "
    "1900-01-01) and TIME values are refused.",
    (
        (
            "tsql",
            "SELECT CAST('2024-01-01 23:59:59.999' AS DATETIME) AS a, "
            "CONVERT(DATETIME, '2024-01-01 12:00:00.001') AS b",
            "SELECT CAST('2024-01-02 00:00:00.000' AS TIMESTAMP) AS \"a\", "
            "CAST('2024-01-01 12:00:00.000' AS TIMESTAMP) AS \"b\"",
        ),
    ),
    phase="final",
)
def tsql_datetime(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    assert isinstance(node, exp.Cast)
    if node.args["to"].this != exp.DType.DATETIME or not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    value = node.this
    if isinstance(value, exp.Null) or _on_grid(value):
        return None
    written = literal_moment(value, ctx)
    if written is not None:
        literal, text, digits = written
        read = read_text(text, digits, ctx)
        if isinstance(read, str):
            ctx.report("error", RULE, literal, read)
            return node
        moment, fraction = read
        folded = _fold(node, moment, fraction, digits > 3, ctx)
        return node if folded is None else folded
    kind = type_of(value)
    if kind == exp.DType.DATE:
        before = exp.LT(this=clone(value), expression=timestamp_literal("1753-01-01 00:00:00"))
        why = "the date is before 1753-01-01, where T-SQL's conversion to datetime fails"
        moved = typed(exp.Cast(this=clone(value), to=data_type("TIMESTAMP")), "TIMESTAMP")
        guarded = case_when(before, failure(RULE, why, node), moved)
        guarded.type = data_type("TIMESTAMP")
        guarded.meta[ON_GRID] = True
        return guarded
    if kind in TIMESTAMP_TYPES:
        return _rounded(node, value, ctx)
    if kind in STRING_TYPES or kind is None:
        return None  # text columns: CAST-FROM-TEXT-SETTINGS; unknown: the engines' types
    ctx.report(
        "error",
        RULE,
        value,
        f"a value of type {kind.value} converted to datetime: T-SQL reads a number as days since "
        "1900-01-01 and a time as that day's time, rounded to its ticks, which is not "
        "translated; convert a DATE or a DATETIME2 value",
    )
    return node


@rule(
    CLOCK_RULE,
    "rewrite",
    ("tsql",),
    (exp.CurrentTimestamp,),
    "GETDATE(), CURRENT_TIMESTAMP and GETUTCDATE() are T-SQL datetime values (1/300 s ticks), read from a "
    "clock whose instant no translation reproduces: the engines' reading floored to the tick "
    "that starts its 10 ms (.xx0, one of the ticks a datetime shows), a value a datetime holds, "
    "never later than the reading (GETDATE() <= SYSDATETIME() as in T-SQL), and one whose "
    "DATETIME2 is the same value (TSQL-DATETIME-TO-DATETIME2 needs no guard for it). "
    "SYSDATETIME() and SYSUTCDATETIME() (datetime2(7)) keep the six digits the engines' clock "
    "has.",
    (
        (
            "tsql",
            "SELECT GETDATE() AS now FROM dbo.Orders",
            "SELECT (CAST(CURRENT_TIMESTAMP AS TIMESTAMP) + (0 - MOD(CAST(EXTRACT(SECOND FROM "
            "CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) * 1000000 AS BIGINT), 10000)) * INTERVAL "
            '\'0.000001\' SECOND) AS "now" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="syntax",
)
def tsql_getdate(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).DATETIME_TICKS or node.args.get("this") is not None:
        return None
    if node._meta and node.meta.get(UTC_CLOCK_META) == "SYSUTCDATETIME":
        return None  # datetime2(7); GETUTCDATE() is a datetime, floored as GETDATE()
    start = node.meta.get("start") if node._meta else None
    if start is not None and ctx.text[start : start + len("SYSDATETIME")].upper() == (
        "SYSDATETIME"
    ):
        return None  # datetime2(7)
    # The source's own node stays inside (SESSION-TIME still reads it, and warns).
    floored = to_grid(node.copy(), FLOORED)
    floored.meta[ON_GRID] = True
    floored.meta[CLOCK_RULE] = True
    return floored


# Where T-SQL converts a string literal to the type of the values beside it (data type
# precedence: datetime above every text type): a comparison, IN, BETWEEN, and the branches
# of CASE / COALESCE / ISNULL / NULLIF, and the WHEN values of a simple CASE.
_BESIDE = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Between,
    exp.In,
    exp.Coalesce,
    exp.Nullif,
)


def text_neighbours(literal: exp.Literal) -> list[exp.Expr] | None:
    """The values ``literal`` takes its type from, or None where it is not converted so."""
    parent = literal.parent
    if isinstance(parent, _BESIDE):
        values = [parent.this, *parent.expressions] if isinstance(parent, exp.In) else []
        values += [v for k, v in parent.args.items() if k != "expressions" and v is not None]
        if isinstance(parent, exp.Coalesce):
            values += parent.expressions
        return [v for v in values if isinstance(v, exp.Expr) and v is not literal]
    if (
        isinstance(parent, exp.If)
        and literal.arg_key == "this"
        and isinstance(parent.parent, exp.Case)
        and parent.parent.this is not None
    ):
        return [parent.parent.this]  # CASE x WHEN 'text': compared with x
    if isinstance(parent, exp.If) and literal.arg_key == "true":
        parent = parent.parent
    elif not (isinstance(parent, exp.Case) and literal.arg_key == "default"):
        return None
    if not isinstance(parent, exp.Case) or parent.this is not None:
        return None  # a simple CASE compares its operand too
    branches = [i.args.get("true") for i in parent.args.get("ifs", [])]
    branches.append(parent.args.get("default"))
    return [b for b in branches if b is not None and b is not literal]


def typed_neighbours(node: exp.Expr, ctx: Context) -> list[exp.Expr] | None:
    """The typed values a T-SQL text literal ``node`` stands beside, whose type T-SQL
    converts it to (text_neighbours, NULLs and other text left out); None where ``node`` is
    no text or stands beside nothing."""
    assert isinstance(node, exp.Literal)
    if not node.is_string or not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    neighbours = text_neighbours(node)
    if not neighbours:
        return None
    return [v for v in neighbours if not isinstance(v, exp.Null) and not is_text_literal(v)]


@rule(
    "TSQL-DATETIME-TEXT",
    "rewrite",
    ("tsql",),
    (exp.Literal,),
    "A string literal T-SQL converts to datetime because it stands beside datetime values (a "
    "comparison, IN, BETWEEN, a CASE / COALESCE / ISNULL / NULLIF branch, a simple CASE's WHEN, where every other "
    "value is a declared DATETIME or a value TSQL-DATETIME gives) is read at translation and "
    "rounded as a CAST to DATETIME is (TSQL-DATETIME): WHERE dt = '2024-01-01T12:00:00.001' "
    "matches .000. Text T-SQL reads by DATEFORMAT, with more than three fractional digits or "
    "out of range is refused.",
    (
        (
            "tsql",
            "SELECT id FROM dbo.scans WHERE scanned_at IN ('2024-01-01T12:00:00.001', "
            "'20240101 12:00:00.999')",
            'SELECT "scans"."id" AS "id" FROM "raw"."scans" AS "scans" WHERE '
            '"scans"."scanned_at" IN (CAST(\'2024-01-01 12:00:00.000\' AS TIMESTAMP), '
            "CAST('2024-01-01 12:00:01.000' AS TIMESTAMP))",
        ),
    ),
)
def tsql_datetime_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    typed_values = typed_neighbours(node, ctx)
    if typed_values is None:
        return None
    # Beside datetime and smalldatetime values, text takes the higher type: datetime.
    if (
        not typed_values
        or not all(
            (_datetime_value(v) or smalldatetime_value(v)) and type_of(v) in TIMESTAMP_TYPES
            for v in typed_values
        )
        or not any(_datetime_value(v) for v in typed_values)
    ):
        return None
    # Refused, the text stands as the conversion it is, so that no rule of comparisons
    # reads it again (and reports it once more).
    cast_node = exp.Cast(this=node.copy(), to=data_type("DATETIME"))
    read = read_text(node.name, 3, ctx)
    if isinstance(read, str):
        ctx.report("error", "TSQL-DATETIME-TEXT", node, read)
        return cast_node
    moment, fraction = read
    folded = _fold(cast_node, moment, fraction, False, ctx, rule_id="TSQL-DATETIME-TEXT", at=node)
    if folded is None:
        return cast_node
    folded.meta[ON_GRID] = True
    return folded


def is_text_literal(value: exp.Expr) -> bool:
    return isinstance(value, exp.Literal) and value.is_string


# datetime -> datetime2 ----------------------------------------------------------------------

WIDENED = "TSQL-DATETIME-TO-DATETIME2"
WIDENED_WHY = (
    "T-SQL extends a datetime ending in .xx3 or .xx7 ms to its 1/300 s tick (.003 is "
    ".0033333) as a datetime2 of more than three digits, which the engines' six digits do "
    "not hold"
)


def _tick_digit(value: exp.Expr) -> exp.Expr:
    """The last digit of ``value``'s milliseconds (a value on the grid: 0, 3 or 7)."""
    millis = exp.Mul(this=extract("SECOND", value), expression=lit(1000))
    whole = typed(exp.Cast(this=millis, to=data_type("BIGINT")), "BIGINT")
    return exp.Mod(this=whole, expression=lit(10))


def widened(value: exp.Expr, at: exp.Expr) -> exp.Expr:
    """A datetime ``value`` as the datetime2 of more than three digits T-SQL converts it to:
    itself where its milliseconds end in 0 (the clock's always do, TSQL-GETDATE), a guard
    where they end in 3 or 7."""
    if value._meta and value.meta.get(CLOCK_RULE):
        return value
    repeating = exp.In(this=_tick_digit(clone(value)), expressions=[lit(3), lit(7)])
    guarded = case_when(repeating, failure(WIDENED, WIDENED_WHY, at), clone(value))
    guarded.type = data_type("TIMESTAMP")
    guarded.meta[WIDENED] = True
    return guarded


def _wide_datetime2(kind: exp.DataType | None) -> bool:
    """A DATETIME2 / TIMESTAMP type of more than three fractional digits."""
    if kind is None or kind.this not in TIMESTAMP_TYPES or kind.this == exp.DType.DATETIME:
        return False
    params = [p.this for p in kind.expressions if isinstance(p, exp.DataTypeParam)]
    digits = int(params[0].name) if params and isinstance(params[0], exp.Literal) else 7
    return digits > 3


def _datetime_value(value: exp.Expr) -> bool:
    """A value of T-SQL's datetime type (not a DATE, not a SMALLDATETIME: whole minutes)."""
    if value._meta and value.meta.get(WIDENED):
        return False
    if value._meta and value.meta.get(ON_GRID):
        return True
    if isinstance(value, exp.Paren):
        return _datetime_value(value.this)
    if isinstance(value, exp.Cast):
        return value.args["to"].this == exp.DType.DATETIME
    return _declared(value) == "DATETIME"


@rule(
    WIDENED,
    "rewrite",
    ("tsql",),
    (exp.Cast, exp.Union),
    "A datetime converted to a DATETIME2 of more than three digits (CAST / CONVERT, or a "
    "UNION column of datetime and such datetime2 values) is its exact 1/300 s tick to 7 digits "
    '(.333 is .3333333: "datetime2 (Transact-SQL)", converting from datetime, at '
    "compatibility level 130 and above; .3330000 below). The lake holds datetime as shown, "
    "so a value ending in .xx0 ms is exact and one ending in .xx3 or .xx7 stops the query at "
    "a guard (a literal is refused). To DATETIME2(3) or fewer digits it is the value as shown.",
    (
        (
            "tsql",
            "SELECT CAST(scanned_at AS DATETIME2) AS t FROM dbo.scans",
            'SELECT CAST(CASE WHEN MOD(CAST(EXTRACT(SECOND FROM "scans"."scanned_at") * 1000 AS '
            "BIGINT), 10) IN (3, 7) THEN RAISE_ERROR('TSQL-DATETIME-TO-DATETIME2: T-SQL "
            "extends a datetime ending in .xx3 or .xx7 ms to its 1/300 s tick (.003 is "
            ".0033333) as a datetime2 of more than three digits, which the engines'' six "
            'digits do not hold\') ELSE "scans"."scanned_at" END AS TIMESTAMP) AS "t" '
            'FROM "raw"."scans" AS "scans"',
        ),
    ),
    phase="final",
)
def tsql_datetime_to_datetime2(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    if isinstance(node, exp.Cast):
        if not _wide_datetime2(node.args["to"]) or not is_datetime(node.this):
            return None
        guarded = _widen(node.this, node, ctx)
        if guarded is None or guarded is node:
            return guarded
        converted = exp.Cast(this=guarded, to=node.args["to"].copy())
        converted.type = node.type
        return converted
    if isinstance(node.parent, exp.SetOperation):
        return None  # the outermost set operation sees every SELECT
    selects = branches(node)
    if len(selects) < 2 or any(s.is_star for s in selects):
        return None
    changed = False
    for position in range(min(len(s.selects) for s in selects)):
        values = [s.selects[position].unalias() for s in selects]
        if not any(_wide_datetime2(v.type) and not is_datetime(v) for v in values):
            continue
        for value in values:
            if is_datetime(value):
                replaced = _widen(value, value, ctx)
                if replaced is not None and replaced is not value:
                    value.replace(replaced)
                    ctx.wrote(replaced)
                changed = changed or replaced is not None
    return node if changed else None


def _widen(value: exp.Expr, at: exp.Expr, ctx: Context) -> exp.Expr | None:
    """``value`` (a datetime) as T-SQL widens it: a guarded value; None where it is exact as
    it stands (a literal ending in .xx0 ms), ``at`` after a refusal (a literal ending in 3
    or 7)."""
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal):
        moment = dt.datetime.fromisoformat(value.this.name)
        if moment.microsecond // 1000 % 10 in (3, 7):
            ctx.report(
                "error", WIDENED, value if node_offset(value) is not None else at, WIDENED_WHY
            )
            return at
        return None
    return widened(value, at)


# datetime beside datetime2 ----------------------------------------------------------------
#
# Compared with a datetime2 (of any precision), a datetime is its exact tick: .003 is
# .00333..., .007 is .00666... (compatibility level 130 and above: "predicates involving
# datetime consider the full precision of raw datetime internal value", dbdelta.com, "SQL
# Server 2016 and Azure SQL Database V12 Breaking Change"; DATETIME2(7) '...29.1866667' >
# DATETIME '...29.187' is true, dba.stackexchange.com/q/302362). The engines' values are
# whole microseconds, and a tick ending in 3 or 7 lies strictly between two of them, LOW and
# HIGH (.003333 < .00333... < .003334); one ending in 0 is both. For x on that grid:
#   tick < x  iff LOW < x      tick <= x  iff HIGH <= x
#   tick > x  iff HIGH > x     tick >= x  iff LOW >= x
#   tick = x  iff LOW = x AND HIGH = x (false off the grid, NULL where x is)
# which is exact, NULLs included.

COMPARED = "TSQL-DATETIME-COMPARED"
BESIDE_DATETIME2 = "TSQL-DATETIME-BESIDE-DATETIME2"
# Microseconds from the shown value to the tick's neighbours (LOW, HIGH), by the last digit
# of its milliseconds.
NEIGHBOURS = {3: (333, 334), 7: (-334, -333)}
_BOUND = {exp.LT: 0, exp.GTE: 0, exp.LTE: 1, exp.GT: 1}
# ``x op datetime`` is ``datetime flipped-op x``.
_FLIPPED = {exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE}


def _datetime2_type(value: exp.Expr, text: bool = False) -> exp.DataType | None:
    """The DATETIME2 type of ``value`` where T-SQL's type of it is one: a declared DATETIME2
    column (also through a derived table), a conversion to DATETIME2, SYSDATETIME(); and,
    where ``text``, a string (it takes the type of the values beside it, the highest by
    T-SQL's precedence). None for anything else, whatever its engine type."""
    if _on_grid(value) or is_datetime(value):
        return None
    if isinstance(value, exp.Paren):
        return _datetime2_type(value.this, text)
    if is_text_literal(value):
        return data_type("TIMESTAMP") if text else None
    if isinstance(value, (exp.Cast, exp.TryCast)):
        if value.args["to"].this == exp.DType.DATETIME2:
            return value.args["to"]
        if isinstance(value.this, exp.CurrentTimestamp):
            return data_type("TIMESTAMP")  # SYSDATETIME(), the zone-less clock
        if is_text_literal(value.this):
            return data_type("TIMESTAMP") if text else None
    if isinstance(value, exp.Column):
        if _declared(value) == "DATETIME2":
            return value.type
        derived = derived_value(value) if _declared(value) is None else None
        return _datetime2_type(derived, text) if derived is not None else None
    if isinstance(value, exp.CurrentTimestamp):
        return data_type("TIMESTAMP")  # SYSDATETIME(): GETDATE() is on the grid
    base = _shifted(value)
    return _datetime2_type(base, text) if base is not None else None


def _shifted(value: exp.Expr) -> exp.Expr | None:
    """The timestamp that date arithmetic moves by an interval, as the rules write DATEADD and
    datetime + n (x + n * INTERVAL, in a CAST to TIMESTAMP): T-SQL's type of the result is
    that timestamp's (T-SQL itself has no INTERVAL, so the form is always theirs)."""
    while isinstance(value, exp.Paren) or (
        isinstance(value, exp.Cast)
        and value.args["to"].this == exp.DType.TIMESTAMP
        and not value.args["to"].expressions
    ):
        value = value.this
    if not isinstance(value, (exp.Add, exp.Sub)):
        return None
    if _interval(value.expression) and not _interval(value.this):
        return value.this
    if isinstance(value, exp.Add) and _interval(value.this) and not _interval(value.expression):
        return value.expression
    return None


def _interval(value: exp.Expr) -> bool:
    """INTERVAL '1' DAY, n * INTERVAL '1' DAY (in parentheses or not)."""
    if isinstance(value, exp.Paren):
        return _interval(value.this)
    if isinstance(value, exp.Mul):
        return _interval(value.this) or _interval(value.expression)
    return isinstance(value, exp.Interval)


def is_datetime(value: exp.Expr) -> bool:
    """A value of T-SQL's datetime type: TSQL-DATETIME's, or date arithmetic on one."""
    if _datetime_value(value):
        return True
    base = _shifted(value)
    return base is not None and is_datetime(base)


def _mentions(value: exp.Expr, found: Callable[[exp.Expr], bool]) -> bool:
    """Whether a column, conversion or clock inside ``value`` is one ``found`` names (not
    looking into a datetime: GETDATE() reads the clock SYSDATETIME() is)."""
    named = (exp.Column, exp.Cast, exp.TryCast, exp.CurrentTimestamp)
    inside = value.walk(prune=lambda n: n is not value and (_on_grid(n) or is_datetime(n)))
    return any(isinstance(n, named) and found(n) for n in inside)


def _unknown_timestamp(value: exp.Expr) -> bool:
    """A TIMESTAMP value whose T-SQL type (datetime or datetime2) is not known here: DATEADD
    of either, a rule's rewrite of one, ... (a text literal takes the type beside it)."""
    if is_datetime(value) or _on_grid(value) or _datetime2_type(value) is not None:
        return False
    if is_text_literal(value) or (
        isinstance(value, (exp.Cast, exp.Paren)) and is_text_literal(value.this)
    ):
        return False
    return type_of(value) in TIMESTAMP_TYPES


def exact_datetime(value: exp.Expr) -> bool:
    """A datetime value whose tick may lie off the engines' microseconds (not the clock's
    .xx0, TSQL-GETDATE)."""
    if _datetime_value(value):
        return not (value._meta and value.meta.get(CLOCK_RULE))
    base = _shifted(value)
    return base is not None and exact_datetime(base)


def _neighbour(value: exp.Expr, which: int) -> exp.Expr:
    """LOW (``which`` 0) or HIGH (1) of a datetime ``value``'s exact tick, as a TIMESTAMP."""
    digit = _tick_digit(clone(value))
    ifs = [
        exp.If(this=exp.EQ(this=clone(digit), expression=lit(d)), true=lit(pair[which]))
        for d, pair in NEIGHBOURS.items()
    ]
    shift = exp.Case(ifs=ifs, default=lit(0))
    step = exp.Interval(this=exp.Literal.string("0.000001"), unit=exp.var("SECOND"))
    start = typed(exp.Cast(this=clone(value), to=data_type("TIMESTAMP")), "TIMESTAMP")
    moved = exp.Add(this=start, expression=exp.Mul(this=shift, expression=step))
    return typed(exp.Paren(this=moved), "TIMESTAMP")


def _boolean(node: exp.Expr) -> exp.Expr:
    return typed(node, "BOOLEAN")


def _compared(
    kind: type[exp.Expr], left: exp.Expr, right: exp.Expr, text: bool = False
) -> exp.Expr | None:
    """``left kind right`` as T-SQL compares a datetime with a datetime2 (either side), or
    None where the two are not such a pair; ``text``: text is a datetime2 here."""
    if exact_datetime(left) and _datetime2_type(right, text) is not None:
        datetime, other, flipped = left, right, False
    elif exact_datetime(right) and _datetime2_type(left, text) is not None:
        datetime, other, flipped = right, left, True
    else:
        return None
    if kind in (exp.EQ, exp.NEQ):
        join, each = (exp.And, exp.EQ) if kind is exp.EQ else (exp.Or, exp.NEQ)
        low, high = (
            _boolean(each(this=_neighbour(datetime, w), expression=clone(other))) for w in (0, 1)
        )
        return _boolean(exp.Paren(this=_boolean(join(this=low, expression=high))))
    as_left = _FLIPPED[kind] if flipped else kind
    bound = _neighbour(datetime, _BOUND[as_left])
    pair = (clone(other), bound) if flipped else (bound, clone(other))
    return _boolean(kind(this=pair[0], expression=pair[1]))


def _refuse_unknown(values: list[exp.Expr], ctx: Context, rule_id: str = COMPARED) -> bool:
    """Report a datetime compared with a TIMESTAMP that may be a datetime2, or a datetime2
    with one that may be a datetime (T-SQL's type of it unknown here, built from such
    values): which of the two T-SQL compares them as is not known. True if reported."""
    datetime = any(exact_datetime(v) for v in values)
    datetime2 = any(_datetime2_type(v) is not None for v in values)
    for value in values:
        if not _unknown_timestamp(value):
            continue
        if (datetime and _mentions(value, lambda n: _datetime2_type(n) is not None)) or (
            datetime2 and _mentions(value, exact_datetime)
        ):
            ctx.report(
                "error",
                rule_id,
                value,
                "beside a datetime2, a datetime is compared and converted by its exact 1/300 s "
                "tick (.003 is .00333...), beside a datetime as shown; whether T-SQL's type of "
                "this value is datetime or datetime2 is not known here: CAST it to DATETIME "
                "or DATETIME2",
            )
            return True
    return False


@rule(
    COMPARED,
    "rewrite",
    ("tsql",),
    (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.Between, exp.In),
    "A datetime compared with a datetime2 (=, <>, <, <=, >, >=, BETWEEN, IN, a join's ON) is "
    "compared by its exact 1/300 s tick (.003 is .00333..., .007 is .00666...; compatibility "
    "level 130 and above), which lies strictly between two microseconds for .xx3 and .xx7: "
    "dt = dt2 is never true there, dt < dt2 is dt2 >= .003334. The comparison is written "
    "with those two neighbours, exact for every value and NULL; BETWEEN and IN become their "
    "comparisons. A datetime compared with a value of unknown type, or IN a subquery of "
    "datetime2, is refused.",
    (
        (
            "tsql",
            "SELECT id FROM dbo.scans WHERE scanned_at < SYSDATETIME()",
            'SELECT "scans"."id" AS "id" FROM "raw"."scans" AS "scans" WHERE (CAST('
            '"scans"."scanned_at" AS TIMESTAMP) + CASE WHEN MOD(CAST(EXTRACT(SECOND FROM '
            '"scans"."scanned_at") * 1000 AS BIGINT), 10) = 3 THEN 333 WHEN MOD(CAST(EXTRACT('
            'SECOND FROM "scans"."scanned_at") * 1000 AS BIGINT), 10) = 7 THEN -334 ELSE 0 END '
            "* INTERVAL '0.000001' SECOND) < CAST(CURRENT_TIMESTAMP AS TIMESTAMP)",
        ),
    ),
    phase="final",
)
def tsql_datetime_compared(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    if isinstance(node, exp.Between):
        return _between_compared(node, ctx)
    if isinstance(node, exp.In):
        return _in_compared(node, ctx)
    if _refuse_unknown([node.this, node.expression], ctx):
        return node
    return _compared(type(node), node.this, node.expression)


def _between_compared(node: exp.Between, ctx: Context) -> exp.Expr | None:
    value, low, high = node.this, node.args["low"], node.args["high"]
    if _refuse_unknown([value, low, high], ctx):
        return node
    # All three take the highest type among them: text too is a datetime2 beside one.
    text = any(_datetime2_type(v) is not None for v in (value, low, high))
    above = _compared(exp.GTE, value, low, text)
    below = _compared(exp.LTE, value, high, text)
    if above is None and below is None:
        return None
    above = above or _boolean(exp.GTE(this=clone(value), expression=clone(low)))
    below = below or _boolean(exp.LTE(this=clone(value), expression=clone(high)))
    return _boolean(exp.Paren(this=_boolean(exp.And(this=above, expression=below))))


def _in_compared(node: exp.In, ctx: Context) -> exp.Expr | None:
    value = node.this
    query = node.args.get("query")
    if query is not None:
        selects = query.this.selects if isinstance(query, exp.Subquery) else query.selects
        if selects and _compared(exp.EQ, value, selects[0].unalias()) is not None:
            ctx.report(
                "error",
                COMPARED,
                node,
                "a datetime IN a subquery of datetime2 values: T-SQL compares the datetime's "
                "exact 1/300 s tick (.003 is .00333...), which is not translated here; write "
                "the comparison as EXISTS with =",
            )
            return node
        return None
    values = node.expressions
    if not values:
        return None
    if _refuse_unknown([value, *values], ctx):
        return node
    text = any(_datetime2_type(v) is not None for v in (value, *values))
    pairs = [_compared(exp.EQ, value, v, text) for v in values]
    if all(p is None for p in pairs):
        return None
    equal = [
        p or _boolean(exp.EQ(this=clone(value), expression=clone(v)))
        for p, v in zip(pairs, values, strict=True)
    ]
    joined = equal[0]
    for each in equal[1:]:
        joined = _boolean(exp.Or(this=joined, expression=each))
    return _boolean(exp.Paren(this=joined))


def _branches(node: exp.Expr) -> list[exp.Expr] | None:
    """The values a CASE, COALESCE or IIF gives (one type, by T-SQL's precedence)."""
    if isinstance(node, exp.Case):
        values = [i.args.get("true") for i in node.args.get("ifs", [])]
        values.append(node.args.get("default"))
    elif isinstance(node, exp.Coalesce):
        values = [node.this, *node.expressions]
    elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        values = [node.args.get("true"), node.args.get("false")]
    else:
        return None
    return [v for v in values if v is not None]


def _on_tick(datetime: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``value`` where ``datetime``'s tick is a microsecond (.xx0), else NULL."""
    repeating = exp.In(this=_tick_digit(clone(datetime)), expressions=[lit(3), lit(7)])
    kept = case_when(repeating, exp.Null(), clone(value))
    kept.type = value.type
    return kept


@rule(
    BESIDE_DATETIME2,
    "rewrite",
    ("tsql",),
    (exp.Case, exp.Coalesce, exp.If, exp.Nullif),
    "A datetime beside a datetime2 where T-SQL converts one to the other: CASE, COALESCE and "
    "IIF give a datetime2, a datetime branch widened to its exact tick (.003 is .0033333; "
    "TSQL-DATETIME-TO-DATETIME2: exact for .xx0, a guard stops .xx3 / .xx7) where another "
    "branch is a DATETIME2 of more than three digits; ISNULL gives its first argument's type: "
    "ISNULL(dt, dt2) rounds dt2 to a datetime as CAST does (TSQL-DATETIME), ISNULL(dt2, dt) "
    "widens dt; NULLIF compares the exact tick (never equal for .xx3 / .xx7, so the value "
    "is kept). A simple CASE comparing a datetime with a datetime2 is refused.",
    (
        (
            "tsql",
            "SELECT NULLIF(scanned_at, SYSDATETIME()) AS t FROM dbo.scans",
            'SELECT NULLIF("scans"."scanned_at", CASE WHEN MOD(CAST(EXTRACT(SECOND FROM '
            '"scans"."scanned_at") * 1000 AS BIGINT), 10) IN (3, 7) THEN NULL ELSE '
            'CAST(CURRENT_TIMESTAMP AS TIMESTAMP) END) AS "t" FROM "raw"."scans" AS "scans"',
        ),
    ),
    phase="final",
)
def tsql_datetime_beside_datetime2(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    if isinstance(node, exp.Nullif):
        return _nullif(node, ctx)
    if isinstance(node, exp.Case) and node.this is not None:
        whens = [i.this for i in node.args.get("ifs", [])]
        if any(_compared(exp.EQ, node.this, w) is not None for w in whens):
            ctx.report(
                "error",
                BESIDE_DATETIME2,
                node,
                "a simple CASE comparing a datetime with a datetime2: T-SQL compares the "
                "datetime's exact 1/300 s tick (.003 is .00333...); write CASE WHEN x = y",
            )
            return node
    values = _branches(node)
    if not values:
        return None
    if _refuse_unknown(values, ctx, BESIDE_DATETIME2):
        return node
    if isinstance(node, exp.Coalesce) and node.meta.get(ISNULL) and len(values) == 2:
        return _isnull(node, values[0], values[1], ctx)
    if not any(_wide_datetime2(_datetime2_type(v)) for v in values):
        return None
    changed = False
    for value in values:
        if exact_datetime(value):
            replaced = _widen(value, value, ctx)
            if replaced is not None and replaced is not value:
                value.replace(replaced)
                ctx.wrote(replaced)
            changed = changed or replaced is not None
    return node if changed else None


def _isnull(node: exp.Coalesce, first: exp.Expr, second: exp.Expr, ctx: Context) -> exp.Expr | None:
    """ISNULL(first, second): ``second`` converted to ``first``'s type."""
    if is_datetime(first) and _datetime2_type(second) is not None:
        replaced = _rounded(second, second, ctx)
    elif _wide_datetime2(_datetime2_type(first)) and exact_datetime(second):
        replaced = _widen(second, second, ctx)
        if replaced is None or replaced is second:
            return replaced and node
    else:
        return None
    second.replace(replaced)
    ctx.wrote(replaced)
    return node


def _nullif(node: exp.Nullif, ctx: Context) -> exp.Expr | None:
    """NULLIF(a, b) is NULL where a = b as T-SQL compares them: never for a datetime whose tick
    is off the microseconds, so b stands as NULL there."""
    first, second = node.this, node.expression
    if _refuse_unknown([first, second], ctx, BESIDE_DATETIME2):
        return node
    if _compared(exp.EQ, first, second) is None:
        return None
    datetime = first if exact_datetime(first) else second
    replaced = _on_tick(datetime, second)
    second.replace(replaced)
    ctx.wrote(replaced)
    return node


# DATETIME2 text past the sixth digit ------------------------------------------------------

DIGITS_RULE = "TSQL-DATETIME2-DIGITS"
FRACTION = re.compile(r":\d{1,2}\.(\d+)\s*$")


@rule(
    DIGITS_RULE,
    "refuse",
    ("tsql",),
    (exp.Cast, exp.TryCast),
    "Text converted to DATETIME2 (7 digits by default) keeps a seventh fractional digit in "
    "T-SQL (DATETIME2(6) rounds it), which the engines' six digits drop: CAST('... "
    "12:00:00.1234567' AS DATETIME2) would be .123456, and equal to a value T-SQL holds "
    "apart. Text with a non-zero digit past the sixth is refused.",
    (("tsql", "SELECT CAST('2024-01-01 12:00:00.1234567' AS DATETIME2) AS t", "1:13"),),
    phase="final",
)
def tsql_datetime2_digits(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args["to"]
    if target.this != exp.DType.DATETIME2 or not is_text_literal(node.this):
        return None
    params = [p.this for p in target.expressions if isinstance(p, exp.DataTypeParam)]
    if params and isinstance(params[0], exp.Literal) and int(params[0].name) < 6:
        return None  # CAST-SECONDS-PRECISION
    written = FRACTION.search(node.this.name)
    if written is None or not written.group(1)[6:].strip("0"):
        return None
    ctx.report(
        "error",
        DIGITS_RULE,
        node.this if node_offset(node.this) is not None else node,
        f"{node.this.name!r} has a fractional-second digit past the sixth, which T-SQL's "
        "DATETIME2 keeps (or rounds) and the engines drop; write at most six digits",
    )
    return node
