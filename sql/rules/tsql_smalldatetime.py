"""T-SQL's ``smalldatetime``: every value that becomes one is rounded to its minute.

"smalldatetime (Transact-SQL)" (learn.microsoft.com/sql/t-sql/data-types/
smalldatetime-transact-sql): a date and a time of day "with seconds always zero (:00) and
without fractional seconds", from 1900-01-01 through 2079-06-06; "ss is two digits, ranging
from 00 to 59, that represent the second. Values that are 29.998 seconds or less are rounded
down to the nearest minute, Values of 29.999 seconds or more are rounded up to the nearest
minute" ("2007-05-09 23:59:59 will round to 2007-05-10 00:00:00"; its example reads
'2007-05-08 12:59:59.998' as 13:00). The catalog holds a declared SMALLDATETIME as
TIMESTAMP(0) (sql/catalog_import.py); so does the translation, wherever T-SQL makes one:

- CAST / CONVERT to SMALLDATETIME (an INSERT into a SMALLDATETIME column of a temporary
  table is one: sql/script.py writes it) of text: read at translation and rounded by the
  page's rule, written as the literal it gives; text with more than three fractional digits
  (the page shows milliseconds only, and says nothing of the digits past them) or whose
  minute falls outside the range is refused;
- of a DATE: midnight, under a range guard;
- of a TIMESTAMP (datetime2, datetime): rounded in SQL by the page's rule, under guards that
  stop a value out of range and, with more than three digits, one strictly between 29.998
  and 29.999 seconds past its minute, which the page's rule leaves open;
- of a value already whole minutes (a declared SMALLDATETIME): unchanged;
- text that T-SQL converts to smalldatetime because smalldatetime values stand beside it
  (data type precedence: a comparison, IN, BETWEEN, a CASE / COALESCE / ISNULL / NULLIF
  branch, a simple CASE's WHEN): read and rounded the same way (TSQL-SMALLDATETIME-TEXT);
  beside a datetime too, it is a datetime (TSQL-DATETIME-TEXT);
- ISNULL(smalldatetime, x): x converted to smalldatetime, ISNULL's type being its first
  argument's (TSQL-SMALLDATETIME-ISNULL).

A smalldatetime beside a datetime, datetime2 or datetimeoffset is converted to that type
exactly (whole minutes), and needs nothing here.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp

from sql.diagnostics import node_offset
from sql.rules.base import Context, rule
from sql.rules.build import (
    STRING_TYPES,
    TIMESTAMP_TYPES,
    case_when,
    clone,
    data_type,
    extract,
    failure,
    lit,
    own,
    paren,
    type_of,
    typed,
)
from sql.rules.conditionals import ISNULL
from sql.rules.tsql_datetime import (
    ON_MINUTE,
    is_datetime,
    is_text_literal,
    literal_moment,
    read_text,
    smalldatetime_value,
    timestamp_digits,
    timestamp_literal,
    typed_neighbours,
)
from sql.source_dialects import semantics

RULE = "TSQL-SMALLDATETIME"
TEXT_RULE = "TSQL-SMALLDATETIME-TEXT"
FIRST = dt.datetime(1900, 1, 1)
LAST = dt.datetime(2079, 6, 6, 23, 59)
# Microseconds past the minute: up to DOWN the minute stays, from UP on it is the next one.
DOWN = 29_998_000
UP = 29_999_000
MINUTE = 60_000_000
RANGE_WHY = (
    "the value is outside T-SQL's smalldatetime range (1900-01-01 to 2079-06-06 23:59), "
    "where the conversion fails"
)
OPEN_WHY = (
    "the value is between 29.998 and 29.999 seconds past its minute: T-SQL rounds 29.998 "
    "seconds or less down and 29.999 or more up, and documents nothing between"
)


def minute_of(moment: dt.datetime) -> dt.datetime | None:
    """The minute T-SQL's smalldatetime gives ``moment`` by the page's rule; None where the
    rule leaves it open (strictly between 29.998 and 29.999 seconds past the minute)."""
    micros = moment.second * 1_000_000 + moment.microsecond
    if DOWN < micros < UP:
        return None
    floor = moment.replace(second=0, microsecond=0)
    return floor if micros <= DOWN else floor + dt.timedelta(minutes=1)


def _on_minute(value: exp.Expr) -> exp.Expr:
    value.meta[ON_MINUTE] = True
    return value


def _folded(moment: dt.datetime, fraction: str, at: exp.Expr, rule_id: str, ctx: Context):
    """The smalldatetime literal of a moment read from text, or None after a refusal."""
    shown = moment.strftime("%Y-%m-%d %H:%M:%S") + (f".{fraction}" if fraction else "")
    if len(fraction) > 3:
        ctx.report(
            "error",
            rule_id,
            at,
            f"{shown!r} as a smalldatetime: T-SQL documents its rounding of seconds to the "
            "millisecond (29.998 down, 29.999 up) and nothing of more fractional digits; "
            "write at most three",
        )
        return None
    minute = minute_of(moment)
    # Outside the range before its rounding too (1899-12-31 23:59:30), as the SQL guard is.
    if minute is None or moment < FIRST or not FIRST <= minute <= LAST:
        ctx.report(
            "error",
            rule_id,
            at,
            f"{shown!r} is outside T-SQL's smalldatetime range (1900-01-01 to 2079-06-06 "
            "23:59, before or after its rounding to the minute): the conversion fails there",
        )
        return None
    written = timestamp_literal(minute.strftime("%Y-%m-%d %H:%M:%S"))
    offset = node_offset(at)
    if offset is not None:
        written.meta["keyword_start"] = offset
    return _on_minute(written)


def _rounded(node: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``value`` (a TIMESTAMP) rounded to its minute in SQL, under guards naming ``node``."""
    seconds = exp.Mul(this=extract("SECOND", clone(value)), expression=lit(1_000_000))
    micros = typed(exp.Cast(this=seconds, to=data_type("BIGINT")), "BIGINT")
    out_of_range = exp.Or(
        this=exp.LT(this=clone(value), expression=timestamp_literal("1900-01-01 00:00:00")),
        expression=exp.GTE(
            this=clone(value), expression=timestamp_literal("2079-06-06 23:59:29.999")
        ),
    )
    ifs = [exp.If(this=out_of_range, true=failure(RULE, RANGE_WHY, node))]
    if timestamp_digits(value) > 3 and not is_datetime(value):
        between = exp.And(
            this=exp.GT(this=clone(micros), expression=lit(DOWN)),
            expression=exp.LT(this=clone(micros), expression=lit(UP)),
        )
        ifs.append(exp.If(this=between, true=failure(RULE, OPEN_WHY, node)))
    target = case_when(exp.LTE(this=clone(micros), expression=lit(DOWN)), lit(0), lit(MINUTE))
    shift = exp.Sub(this=target, expression=micros)
    step = exp.Interval(this=exp.Literal.string("0.000001"), unit=exp.var("SECOND"))
    moved = exp.Add(this=paren(own(value)), expression=exp.Mul(this=paren(shift), expression=step))
    result = exp.Case(ifs=ifs, default=exp.Paren(this=moved))
    result.type = data_type("TIMESTAMP")
    return _on_minute(result)


@rule(
    RULE,
    "rewrite",
    ("tsql",),
    (exp.Cast,),
    "CAST / CONVERT to SMALLDATETIME (and an INSERT into a SMALLDATETIME column) gives a value "
    "of T-SQL's smalldatetime: whole minutes from 1900-01-01 to 2079-06-06 23:59, a value "
    "29.998 seconds or less past its minute rounded down and 29.999 or more up "
    '("smalldatetime (Transact-SQL)"). Text is read at translation and rounded so; text with '
    "more than three fractional digits (the page documents milliseconds only) or out of range "
    "is refused. A DATE is midnight under a range guard; a TIMESTAMP (DATETIME2, DATETIME) is "
    "rounded in SQL under a guard that stops a value out of range and one strictly between "
    "29.998 and 29.999 seconds, which the page leaves open. A declared SMALLDATETIME is "
    "unchanged. Text columns, numbers, TIME and DATETIMEOFFSET values are refused.",
    (
        (
            "tsql",
            "SELECT CAST('2007-05-08 12:35:29' AS SMALLDATETIME) AS a, "
            "CONVERT(SMALLDATETIME, '2007-05-08 12:59:59.998') AS b",
            "SELECT CAST('2007-05-08 12:35:00' AS TIMESTAMP) AS \"a\", "
            "CAST('2007-05-08 13:00:00' AS TIMESTAMP) AS \"b\"",
        ),
    ),
    phase="final",
)
def tsql_smalldatetime(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    assert isinstance(node, exp.Cast)
    if node.args["to"].this != exp.DType.SMALLDATETIME or not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    value = node.this
    if isinstance(value, exp.Null) or smalldatetime_value(value):
        return _on_minute(
            typed(exp.Cast(this=clone(value), to=data_type("TIMESTAMP")), "TIMESTAMP")
        )
    written = literal_moment(value, ctx)
    if written is not None:
        literal, text, digits = written
        read = read_text(text, 7 if digits == 3 else digits, ctx)
        if isinstance(read, str):
            ctx.report("error", RULE, literal, read)
            return node
        moment, fraction = read
        if digits > 3 and len(fraction) > 3:
            # a DATETIME2 literal: the value's rounding, refused where the rule is open
            minute = minute_of(moment)
            if minute is None:
                ctx.report("error", RULE, literal, f"{text!r} as a smalldatetime: {OPEN_WHY}")
                return node
            fraction = ""
            moment = minute
        folded = _folded(moment, fraction, literal, RULE, ctx)
        return node if folded is None else folded
    kind = type_of(value)
    if kind == exp.DType.DATE:
        out = exp.Or(
            this=exp.LT(this=clone(value), expression=timestamp_literal("1900-01-01 00:00:00")),
            expression=exp.GT(
                this=clone(value), expression=timestamp_literal("2079-06-06 00:00:00")
            ),
        )
        moved = typed(exp.Cast(this=clone(value), to=data_type("TIMESTAMP")), "TIMESTAMP")
        result = case_when(out, failure(RULE, RANGE_WHY, node), moved)
        result.type = data_type("TIMESTAMP")
        return _on_minute(result)
    if kind in TIMESTAMP_TYPES and kind != exp.DType.TIMESTAMPTZ:
        return _rounded(node, value)
    if kind in STRING_TYPES:
        why = (
            "text read at run time as a smalldatetime: T-SQL reads it by the session's "
            "DATEFORMAT and LANGUAGE and rounds it to the minute; CAST it to DATETIME2 first "
            "(TSQL-SMALLDATETIME rounds a DATETIME2 exactly)"
        )
    elif kind is None:
        why = "a value of unknown type converted to smalldatetime: CAST it to DATETIME2 first"
    elif kind == exp.DType.TIMESTAMPTZ:
        why = (
            "a datetimeoffset converted to smalldatetime takes the date and time of its own "
            "offset, which the lake (TIMESTAMP WITH TIME ZONE, an instant) does not keep"
        )
    else:
        why = (
            f"a value of type {kind.value} converted to smalldatetime: T-SQL reads a number "
            "as days since 1900-01-01 and a time as that day's time, which is not translated"
        )
    ctx.report("error", RULE, value, why)
    return node


@rule(
    TEXT_RULE,
    "rewrite",
    ("tsql",),
    (exp.Literal,),
    "A string literal T-SQL converts to smalldatetime because smalldatetime values stand "
    "beside it (a comparison, IN, BETWEEN, a CASE / COALESCE / ISNULL / NULLIF branch, a simple CASE's WHEN, where "
    "every other value is a declared SMALLDATETIME or a conversion to one) is read at "
    "translation and rounded to its minute as TSQL-SMALLDATETIME does: WHERE sdt BETWEEN "
    "'2024-01-01 10:00:29' AND '2024-01-01 10:00:31' compares with 10:00 and 10:01. Text T-SQL "
    "reads by DATEFORMAT, with more than three fractional digits or out of range is refused.",
    (
        (
            "tsql",
            "SELECT id FROM dbo.bookings WHERE booked_at BETWEEN '2024-01-01 10:00:29' AND "
            "'2024-01-01 10:00:31'",
            'SELECT "bookings"."id" AS "id" FROM "raw"."bookings" AS "bookings" WHERE '
            '"bookings"."booked_at" BETWEEN CAST(\'2024-01-01 10:00:00\' AS TIMESTAMP) AND '
            "CAST('2024-01-01 10:01:00' AS TIMESTAMP)",
        ),
    ),
)
def tsql_smalldatetime_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    typed_values = typed_neighbours(node, ctx)
    if typed_values is None:
        return None
    if not typed_values or not all(smalldatetime_value(v) for v in typed_values):
        return None
    # Refused, the text stands as the conversion it is, so that no other rule reads it again.
    cast_node = exp.Cast(this=node.copy(), to=exp.DataType(this=exp.DType.SMALLDATETIME))
    read = read_text(node.name, 7, ctx)
    if isinstance(read, str):
        ctx.report("error", TEXT_RULE, node, read)
        return cast_node
    moment, fraction = read
    folded = _folded(moment, fraction, node, TEXT_RULE, ctx)
    return cast_node if folded is None else folded


ISNULL_RULE = "TSQL-SMALLDATETIME-ISNULL"


@rule(
    ISNULL_RULE,
    "rewrite",
    ("tsql",),
    (exp.Coalesce,),
    'ISNULL(sdt, x) of a smalldatetime has the smalldatetime type (ISNULL: "Returns the same '
    'type as check_expression"): x, a DATETIME2, DATETIME or DATE, is converted to it as '
    "TSQL-SMALLDATETIME converts, rounded to its minute (text: TSQL-SMALLDATETIME-TEXT).",
    (
        (
            "tsql",
            "SELECT ISNULL(booked_at, CAST(scanned_at AS DATE)) AS b FROM dbo.bookings "
            "CROSS JOIN dbo.scans",
            'SELECT COALESCE("bookings"."booked_at", CASE WHEN CAST("scans"."scanned_at" AS DATE) '
            '< CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP) OR CAST("scans"."scanned_at" AS DATE) '
            "> CAST('2079-06-06 00:00:00' AS TIMESTAMP) THEN RAISE_ERROR('TSQL-SMALLDATETIME: "
            "the value is outside T-SQL''s smalldatetime range (1900-01-01 to 2079-06-06 23:59), "
            'where the conversion fails\') ELSE CAST(CAST("scans"."scanned_at" AS DATE) AS '
            'TIMESTAMP) END) AS "b" FROM "raw"."bookings" AS "bookings" CROSS JOIN "raw"."scans" '
            'AS "scans"',
        ),
    ),
    phase="final",
)
def tsql_smalldatetime_isnull(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not node.meta.get(ISNULL) or not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    values = [node.this, *node.expressions]
    if len(values) != 2 or not smalldatetime_value(values[0]):
        return None
    second = values[1]
    if isinstance(second, exp.Null) or smalldatetime_value(second) or is_text_literal(second):
        return None
    converted = tsql_smalldatetime(
        exp.Cast(this=clone(second), to=exp.DataType(this=exp.DType.SMALLDATETIME)), ctx
    )
    if converted is None:
        return None
    if isinstance(converted, exp.Cast) and converted.to.this == exp.DType.SMALLDATETIME:
        return node  # refused where it stands
    second.replace(converted)
    ctx.wrote(converted)
    return node
