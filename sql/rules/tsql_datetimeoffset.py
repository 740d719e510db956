"""T-SQL's ``datetimeoffset``: an instant the lake holds, read as one or refused.

"datetimeoffset (Transact-SQL)" (learn.microsoft.com/sql/t-sql/data-types/
datetimeoffset-transact-sql): a date and time of day with a time zone offset; "The data is
stored in the database and processed, compared, sorted, and indexed in the server as in UTC.
The time zone offset will be preserved in the database for retrieval." The catalog holds a
declared DATETIMEOFFSET as TIMESTAMP WITH TIME ZONE (sql/catalog_import.py), which DuckDB and
Spark hold as an instant: the value's own offset is not in the lake. So:

- read as an instant it is exact: compared with another datetimeoffset, sorted, grouped, the
  least or greatest of a column, a CASE / COALESCE branch beside values T-SQL converts to it;
- beside a datetime2, smalldatetime or date, T-SQL converts those to datetimeoffset with the
  offset +00:00 (the smalldatetime page: "the time zone offset is set to +00:00"; the
  datetimeoffset page's string table: "DATE only ... The TIMEZONE defaults to +00:00"), the
  instant of that date and time in UTC: what the engines' sessions, pinned to UTC
  (spark_engine.SESSION_CONF, connect_duckdb), make of a TIMESTAMP or DATE beside an instant;
- text beside one is read at translation (its offset, +00:00 without one) and written as the
  UTC date and time it names (TSQL-DATETIMEOFFSET-TEXT);
- converted to a type without a zone (CAST / CONVERT to DATETIME2, DATETIME, SMALLDATETIME,
  DATE, TIME or text, an INSERT into such a column, ISNULL with a first argument of such a
  type) T-SQL takes the date and time of the value's own offset ("the date and time are
  copied ... and the time zone is truncated"), and so do its parts (YEAR, DATEPART,
  DATENAME, FORMAT): refused (TSQL-DATETIMEOFFSET-LOCAL), as is a datetime beside one (a
  comparison, CASE / COALESCE, a UNION's column), whose conversion to datetimeoffset (its
  exact 1/300 s tick, as to datetime2 at compatibility level 130, or the value as shown) is
  not documented.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from sql.diagnostics import node_offset
from sql.rules.base import Context, rule
from sql.rules.build import derived_value, type_of
from sql.rules.conditionals import ISNULL
from sql.rules.portable_types import branches
from sql.rules.tsql_datetime import (
    exact_datetime,
    read_text,
    timestamp_literal,
    typed_neighbours,
)
from sql.source_dialects import semantics

LOCAL_RULE = "TSQL-DATETIMEOFFSET-LOCAL"
TEXT_RULE = "TSQL-DATETIMEOFFSET-TEXT"
LOCAL_WHY = (
    "T-SQL reads a datetimeoffset's date and time in its own offset here (converting it to "
    "a type without a zone, or taking its parts), and the lake holds it as an instant "
    "(TIMESTAMP WITH TIME ZONE), without that offset"
)
# Where a datetimeoffset is read as the instant it is.
_INSTANT_PARENTS = (
    exp.Alias,
    exp.Select,
    exp.Ordered,
    exp.Group,
    exp.Window,
    exp.Distinct,
    exp.Is,
    exp.Count,
    exp.Max,
    exp.Min,
    exp.Coalesce,
    exp.Case,
    exp.If,
    exp.Nullif,
    exp.Tuple,
)
# Of those, the ones whose value is a datetimeoffset again.
_STILL_INSTANTS = (exp.Coalesce, exp.Case, exp.If, exp.Nullif, exp.Max, exp.Min)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.Between, exp.In)
# [+-]hh:mm or Z at the end of a datetimeoffset's text (ISO 8601 with T: no space before it).
OFFSET = re.compile(r"(?P<space>\s*)(?:(?P<sign>[+-])(?P<hh>\d{2}):(?P<mm>\d{2})|Z)$")


def _datetimeoffset(value: exp.Expr) -> bool:
    """A T-SQL value of type datetimeoffset: its engine type is the instant's (T-SQL has no
    other type with a zone)."""
    return type_of(value) == exp.DType.TIMESTAMPTZ


def _reader(node: exp.Expr) -> exp.Expr | None:
    """What reads ``node`` through parentheses."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    return parent


def _local_reading(column: exp.Expr, parent: exp.Expr) -> str | None:
    """Why ``parent`` reads the datetimeoffset ``column`` in its own offset, or None where it
    reads the instant."""
    if isinstance(parent, (exp.Cast, exp.TryCast)):
        if parent.args["to"].this == exp.DType.TIMESTAMPTZ:
            return None
        return f"its conversion to {parent.args['to'].sql('tsql')}"
    if isinstance(parent, exp.TsOrDsToDate):  # YEAR(x), MONTH(x), DAY(x) read x so
        reader = _reader(parent)
        return reader.key.upper() if reader is not None else "its conversion to DATE"
    # T-SQL's ISNULL: marked by FN-NVL, or still the parser's (read before its parent)
    isnull = parent.meta.get(ISNULL) or parent.args.get("is_null")
    if isinstance(parent, exp.Coalesce) and isnull:
        first = parent.this
        if first is not column and not _datetimeoffset(first):
            return "ISNULL, whose result takes its first argument's type, one without a zone"
        return None
    if isinstance(parent, _COMPARISONS):
        return None  # TSQL-DATETIMEOFFSET-TEXT reads text, _compared_with_datetime datetimes
    if isinstance(parent, (*_INSTANT_PARENTS, exp.Anonymous, exp.AtTimeZone)):
        return None  # (a function not known, AT TIME ZONE: refused as they are)
    return f"{parent.key.upper()}"


def _branch_datetime(parent: exp.Expr) -> exp.Expr | None:
    """A datetime that COALESCE, CASE, IIF or NULLIF ``parent`` converts to datetimeoffset
    beside one (or compares with it: NULLIF, a simple CASE)."""
    if isinstance(parent, exp.Case):
        values = [parent.this, parent.args.get("default")]
        for branch in parent.args.get("ifs", []):
            values += [branch.args.get("true")]
            values += [branch.this] if parent.this is not None else []
    elif isinstance(parent, exp.If):
        values = [parent.args.get("true"), parent.args.get("false")]
    elif isinstance(parent, (exp.Coalesce, exp.Nullif)):
        values = [parent.this, *parent.expressions, parent.args.get("expression")]
    else:
        return None
    return next((v for v in values if v is not None and exact_datetime(v)), None)


def _compared_with_datetime(parent: exp.Expr) -> exp.Expr | None:
    """The datetime a datetimeoffset is compared with in ``parent``, if any."""
    if not isinstance(parent, _COMPARISONS):
        return None
    values = [v for k, v in parent.args.items() if isinstance(v, exp.Expr) and k != "query"]
    values += parent.expressions if isinstance(parent, exp.In) else []
    return next((v for v in values if exact_datetime(v)), None)


@rule(
    LOCAL_RULE,
    "refuse",
    ("tsql",),
    (exp.Column, exp.Union),
    "A datetimeoffset the lake holds as an instant (TIMESTAMP WITH TIME ZONE, its offset not "
    "kept) read in its own offset is refused: CAST / CONVERT to DATETIME2, DATETIME, "
    'SMALLDATETIME, DATE, TIME or text ("the date and time are copied ... and the time zone '
    'is truncated", "datetimeoffset (Transact-SQL)"), an INSERT into such a column, ISNULL '
    "with a first argument of such a type, YEAR / DATEPART / FORMAT and every other function "
    "of it; and a datetimeoffset compared with a datetime, whose conversion (the exact 1/300 s "
    "tick or the value as shown) is not documented, beside one in CASE / COALESCE or in a "
    "UNION's column likewise. Read as an instant it is translated: "
    "compared with a datetimeoffset, or with a datetime2, smalldatetime or date (T-SQL gives "
    "them the offset +00:00: UTC's instant, as the engines' UTC sessions do), sorted, "
    "grouped, MIN / MAX, CASE / COALESCE.",
    (("tsql", "SELECT CAST(confirmed_at AS DATE) AS d FROM dbo.bookings", "1:13"),),
)
def tsql_datetimeoffset_local(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).DATETIME_TICKS:
        return None
    if isinstance(node, exp.Union):
        return _union_with_datetime(node, ctx)
    if not _datetimeoffset(node):
        return None
    value, parent = node, _reader(node)
    # Through the values that are datetimeoffsets still (COALESCE(dto, dt2), MAX(dto), a CASE
    # of it) to what reads them.
    datetime = None
    while isinstance(parent, _STILL_INSTANTS) and _local_reading(value, parent) is None:
        datetime = datetime or _branch_datetime(parent)
        value, parent = parent, _reader(parent)
    if parent is None:
        return None
    reading = _local_reading(value, parent)
    datetime = datetime or _compared_with_datetime(parent)
    if reading is None and datetime is None:
        return None
    at = node if node_offset(node) is not None else (derived_value(node) or node)
    if reading is not None:
        message = f"a datetimeoffset read by {reading}: {LOCAL_WHY}"
    else:
        message = (
            "a datetimeoffset beside a datetime: T-SQL converts the datetime to "
            "datetimeoffset, and whether by its exact 1/300 s tick (.003 is .00333..., as to "
            "datetime2) or as shown is not documented; CAST the datetime to DATETIME2"
        )
    ctx.report("error", LOCAL_RULE, at, message)
    return node


def _utc(text: str, ctx: Context) -> dt.datetime | str:
    """The UTC date and time that ``text`` names as a datetimeoffset, or why it is not read."""
    text = text.strip()
    offset = OFFSET.search(text)
    minutes = 0
    if offset is not None and offset.group("sign"):
        hours, mins = int(offset.group("hh")), int(offset.group("mm"))
        minutes = (hours * 60 + mins) * (1 if offset.group("sign") == "+" else -1)
        if mins > 59 or abs(minutes) > 14 * 60:
            return f"{text!r} has an offset outside -14:00 to +14:00"
    local = text[: offset.start()] if offset is not None else text
    if offset is not None and "T" in local and offset.group("space"):
        return f"{text!r}: ISO 8601 with T allows no space before the offset"
    if offset is not None and " " not in local.strip() and "T" not in local:
        return f"{text!r}: a date with an offset and no time, which T-SQL does not allow"
    read = read_text(local, 7, ctx)
    if isinstance(read, str):
        return read
    moment, _ = read
    try:
        return moment - dt.timedelta(minutes=minutes)
    except OverflowError:
        return f"{text!r} is outside the range of datetimeoffset in UTC"


@rule(
    TEXT_RULE,
    "rewrite",
    ("tsql",),
    (exp.Literal,),
    "A string literal T-SQL converts to datetimeoffset because a datetimeoffset stands beside "
    "it (a comparison, IN, BETWEEN, a CASE / COALESCE / NULLIF branch, a simple CASE's WHEN; the other values a "
    "datetimeoffset, datetime2, smalldatetime or date) is read at translation, its offset "
    '+00:00 where it names none ("DATE + TIME: The TIMEZONE defaults to +00:00", '
    '"datetimeoffset (Transact-SQL)"), and written as the UTC date and time it names, which '
    "the engines' UTC sessions compare as that instant. Text T-SQL reads by DATEFORMAT, with "
    "a seventh fractional digit, a date with an offset and no time, or an offset past 14:00 "
    "is refused.",
    (
        (
            "tsql",
            "SELECT id FROM dbo.bookings WHERE confirmed_at >= '2024-01-01T10:00:00+02:00'",
            'SELECT "bookings"."id" AS "id" FROM "raw"."bookings" AS "bookings" WHERE '
            '"bookings"."confirmed_at" >= CAST(\'2024-01-01 08:00:00\' AS TIMESTAMP)',
        ),
    ),
)
def tsql_datetimeoffset_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    typed_values = typed_neighbours(node, ctx)
    if typed_values is None:
        return None
    if not any(_datetimeoffset(v) for v in typed_values):
        return None
    if any(exact_datetime(v) for v in typed_values):
        return None  # refused: TSQL-DATETIMEOFFSET-LOCAL
    read = _utc(node.name, ctx)
    if isinstance(read, str):
        ctx.report("error", TEXT_RULE, node, read)
        return exp.Cast(this=node.copy(), to=exp.DataType(this=exp.DType.TIMESTAMPTZ))
    text = read.strftime("%Y-%m-%d %H:%M:%S")
    written = timestamp_literal(f"{text}.{read.microsecond:06d}" if read.microsecond else text)
    offset = node_offset(node)
    if offset is not None:
        written.meta["keyword_start"] = offset
    return written


def _union_with_datetime(node: exp.Union, ctx: Context) -> exp.Expr | None:
    """Report a UNION column of datetimeoffset and datetime values: T-SQL converts the
    datetimes to datetimeoffset, by a conversion not documented (TSQL-DATETIMEOFFSET-LOCAL)."""
    if isinstance(node.parent, exp.SetOperation):
        return None  # the outermost set operation sees every SELECT
    selects = branches(node)
    if len(selects) < 2 or any(s.is_star for s in selects):
        return None
    for position in range(min(len(s.selects) for s in selects)):
        values = [s.selects[position].unalias() for s in selects]
        datetime = next((v for v in values if exact_datetime(v)), None)
        if datetime is not None and any(_datetimeoffset(v) for v in values):
            ctx.report(
                "error",
                LOCAL_RULE,
                datetime,
                "a datetime in a UNION column of datetimeoffset values: T-SQL converts it to "
                "datetimeoffset, and whether by its exact 1/300 s tick (.003 is .00333..., as "
                "to datetime2) or as shown is not documented; CAST it to DATETIME2",
            )
            return node
    return None
