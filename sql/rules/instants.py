"""BigQuery instants written as constants, read at translation.

A BigQuery TIMESTAMP is an instant; the standard has no type for one that the engines share
(TIMESTAMP WITH TIME ZONE keeps an offset, and DuckDB's and Spark's differ), so a TIMESTAMP
literal has no ANSI form. But ``UNIX_MICROS(TIMESTAMP('2021-01-07 23:59:59'))`` is a number,
and when the instant is written out in the query (a literal, shifted by literal intervals)
that number is known at translation, as DATE-LITERAL reads a date string. The text is read
by BigQuery's documented canonical timestamp format
(https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#timestamp_type):
``YYYY-[M]M-[D]D[( |T)[H]H:[M]M:[S]S[.F]][time zone]``, at most six fractional digits, the
zone ``Z``, ``UTC`` or an offset ``(+|-)H[H][:M[M]]`` (UTC when absent); named zones other
than UTC, whose rules the tz database version decides, are not read here.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.dates import epoch_timestamp, is_integral

# UNIX_* function -> microseconds per unit (each rounds down to its unit, as documented:
# "Truncates higher levels of precision by rounding down to the beginning of the ...").
_UNITS: dict[type[exp.Expr], int] = {
    exp.UnixSeconds: 1_000_000,
    exp.UnixMillis: 1_000,
    exp.UnixMicros: 1,
}
# TIMESTAMP_ADD / TIMESTAMP_SUB parts (BigQuery: DAY is 24 HOUR) -> microseconds.
_PARTS = {
    "MICROSECOND": 1,
    "MILLISECOND": 1_000,
    "SECOND": 1_000_000,
    "MINUTE": 60_000_000,
    "HOUR": 3_600_000_000,
    "DAY": 86_400_000_000,
}
_CANONICAL = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?)?"
    r"(?: ?(Z|z|UTC|[+-]\d{1,2}(?::\d{1,2})?))?"
)
_OFFSET = re.compile(r"([+-])(\d{1,2})(?::(\d{1,2}))?")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# BigQuery's TIMESTAMP range, in microseconds from the epoch (0001-01-01 .. 9999-12-31
# 23:59:59.999999 UTC): arithmetic outside it is an error in BigQuery, so not folded.
_LOWEST = -62_135_596_800_000_000
_HIGHEST = 253_402_300_799_999_999


def _zone(text: str | None) -> dt.timezone | None:
    """A zone of the canonical format as a fixed offset; None when it is not one."""
    if text is None or text in ("Z", "z", "UTC"):
        return dt.UTC
    match = _OFFSET.fullmatch(text)
    if match is None:
        return None
    sign, hours, minutes = match.groups()
    offset = dt.timedelta(hours=int(hours), minutes=int(minutes or 0))
    if offset >= dt.timedelta(hours=24):
        return None
    return dt.timezone(-offset if sign == "-" else offset)


def canonical_micros(text: str, zone: str | None = None) -> int | None:
    """Microseconds since 1970-01-01 00:00:00 UTC of BigQuery's canonical timestamp ``text``
    (in ``zone`` when the text names none); None when it is not one this reads."""
    match = _CANONICAL.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, named = match.groups()
    if named is not None and zone is not None:
        return None  # BigQuery refuses a second zone
    tz = _zone(named if named is not None else zone)
    if tz is None:
        return None
    try:
        moment = dt.datetime(
            int(year),
            int(month),
            int(day),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "").ljust(6, "0")),
            tzinfo=tz,
        )
    except ValueError:
        return None
    micros = (moment - _EPOCH) // dt.timedelta(microseconds=1)
    return micros if _LOWEST <= micros <= _HIGHEST else None


def _string(node: exp.Expr | None) -> str | None:
    return node.name if isinstance(node, exp.Literal) and node.is_string else None


def _integer(node: exp.Expr | None) -> int | None:
    """An integer literal (sqlglot keeps INTERVAL 7 DAY's count as the string '7')."""
    if isinstance(node, exp.Neg):
        inner = _integer(node.this)
        return -inner if inner is not None else None
    if isinstance(node, exp.Literal) and re.fullmatch(r"-?\d+", node.name):
        return int(node.name)
    return None


def instant_micros(node: exp.Expr) -> int | None:
    """The instant ``node`` writes out, in microseconds since the epoch: a TIMESTAMP literal,
    TIMESTAMP('text'[, 'zone']), CAST('text' AS TIMESTAMP), or one of these moved by
    TIMESTAMP_ADD / TIMESTAMP_SUB of an integer literal; None for anything else."""
    if isinstance(node, exp.Paren):
        return instant_micros(node.this)
    if isinstance(node, exp.Timestamp):
        text = _string(node.this)
        zone = node.args.get("zone")
        if text is None or (zone is not None and _string(zone) is None):
            return None
        return canonical_micros(text, _string(zone))
    if isinstance(node, exp.Cast) and node.to.this == exp.DType.TIMESTAMPTZ:
        text = _string(node.this)
        return canonical_micros(text) if text is not None else None
    if isinstance(node, exp.TimestampAdd | exp.TimestampSub):
        unit = node.args.get("unit")
        step = _PARTS.get(unit.name.upper()) if unit is not None else None
        count = _integer(node.expression)
        start = instant_micros(node.this)
        if step is None or count is None or start is None:
            return None
        moved = start + (count if isinstance(node, exp.TimestampAdd) else -count) * step
        return moved if _LOWEST <= moved <= _HIGHEST else None
    return None


@rule(
    "FN-UNIX-CONSTANT",
    "rewrite",
    ("bigquery",),
    tuple(_UNITS),
    "BigQuery UNIX_SECONDS / UNIX_MILLIS / UNIX_MICROS of an instant the query writes out (a "
    "TIMESTAMP literal, TIMESTAMP('text'[, 'zone']) or CAST('text' AS TIMESTAMP), moved by "
    "TIMESTAMP_ADD / TIMESTAMP_SUB of integer literals of MICROSECOND to DAY, a DAY being 24 "
    "hours) is read at translation into the BIGINT it is: the text by BigQuery's canonical "
    "timestamp format (zone Z, UTC or an offset; UTC when none), the count since 1970-01-01 "
    "00:00:00 UTC rounded down to the unit. Named zones other than UTC and values outside "
    "BigQuery's TIMESTAMP range are left to the other rules (FN-UNIX-SECONDS, refusals).",
    (
        (
            "bigquery",
            "SELECT UNIX_MICROS(TIMESTAMP_SUB(TIMESTAMP('2021-01-07 23:59:59'), INTERVAL 7 DAY)) "
            "AS a, UNIX_SECONDS(TIMESTAMP('2018-09-01 00:00:00', '+8:00')) AS b",
            'SELECT CAST(1609459199000000 AS BIGINT) AS "a", CAST(1535731200 AS BIGINT) AS "b"',
        ),
    ),
    phase="syntax",
)
def unix_constant(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    micros = instant_micros(node.this)
    if micros is None:
        return None
    # Floor division rounds down before 1970 too, as BigQuery does.
    count = micros // _UNITS[type(node)]
    value: exp.Expr = exp.Literal.number(abs(count))
    if count < 0:
        value = exp.Neg(this=value)
    return exp.cast(value, exp.DType.BIGINT)


@rule(
    "FN-TIMESTAMP-FROM-UNIX",
    "rewrite",
    ("bigquery",),
    (exp.UnixToTime,),
    "BigQuery TIMESTAMP_SECONDS / TIMESTAMP_MILLIS / TIMESTAMP_MICROS(n) of an integer is the "
    "instant n units after 1970-01-01 00:00:00 UTC. Read through DATE(...), which takes its "
    "UTC date, it is TIMESTAMP '1970-01-01 00:00:00' + n * INTERVAL '10^-k' SECOND, the UTC "
    "wall clock (exact microsecond arithmetic on both engines; out of range an error, as in "
    "BigQuery), whose CAST to DATE is the date (FN-DATE-OF). Used otherwise the instant would "
    "leave the query as a TIMESTAMP without time zone, which BigQuery's TIMESTAMP is not: "
    "refused, as is a count that is not an integer.",
    (
        (
            "bigquery",
            "SELECT DATE(TIMESTAMP_MICROS(id)) AS d FROM `acme-dw.web.sessions`",
            'SELECT CAST(CAST(\'1970-01-01 00:00:00\' AS TIMESTAMP) + "sessions"."id" * '
            'INTERVAL \'0.000001\' SECOND AS DATE) AS "d" FROM "raw"."sessions" AS "sessions"',
        ),
    ),
)
def timestamp_from_unix(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    scale = node.args.get("scale")
    digits = int(scale.name) if isinstance(scale, exp.Literal) and scale.is_int else 0
    if scale is not None and digits not in (3, 6):
        return None
    name = {0: "TIMESTAMP_SECONDS", 3: "TIMESTAMP_MILLIS", 6: "TIMESTAMP_MICROS"}[digits]
    if not isinstance(node.parent, exp.Date) or node.parent.args.get("zone") is not None:
        ctx.report(
            "error",
            "FN-TIMESTAMP-FROM-UNIX",
            node,
            f"{name} gives an instant (a BigQuery TIMESTAMP), which has no ANSI type here; it "
            "is translated where DATE(...) takes its UTC date",
        )
        return node
    if not is_integral(node.this):
        ctx.report(
            "error", "FN-TIMESTAMP-FROM-UNIX", node, f"{name} of a value that is not an INT64"
        )
        return node
    return epoch_timestamp(node.this, digits)
