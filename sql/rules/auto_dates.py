"""Snowflake's AUTO reading of a string as a DATE or TIMESTAMP_NTZ, where it is documented.

A cast of a string to DATE or TIMESTAMP (``s::DATE``, ``TRY_CAST``, ``TO_DATE(s)``,
``TO_TIMESTAMP(s)``, their TRY_ forms) reads it by DATE_INPUT_FORMAT / TIMESTAMP_INPUT_FORMAT,
AUTO by default: the string is matched against the formats Snowflake lists under "Supported
formats for AUTO detection" (docs.snowflake.com/en/sql-reference/date-time-input-output), and
an error (NULL for TRY_) when none matches. That page leaves parts open: how many digits and
which blanks each element takes in practice, whether February 31 rolls over ("Context
dependency"), and a string of digits is read as seconds, milliseconds ... since 1970 by its
magnitude. So the reading is translated where it is pinned down, behind a guard:

- text of exactly a documented format at full width reads as that date or time everywhere:
  ``YYYY-MM-DD`` and ``MM/DD/YYYY`` (dates); ``YYYY-MM-DD`` with a blank or ``T`` and
  ``HH24``, ``HH24:MI`` or ``HH24:MI:SS`` and up to 6 fraction digits (timestamps), and
  ``MM/DD/YYYY HH24:MI:SS``; rebuilt as ISO text and CAST, which also checks the calendar;
- text that holds only printable ASCII other than digits matches no format (each has a
  numeric element): NULL under TRY_, an error otherwise;
- any other text (other widths, blanks, zones, month names, digits only, year 0000, a time
  of day past 23:59:59, nanoseconds) is turned into text no engine reads, so the CAST raises:
  a refusal at run time, never a different value. An invalid day (February 31) raises too;
- the text of a number (TO_VARCHAR(n)) is all digits, a count since 1970: refused outright.

Only the default AUTO is read; a warning names the assumption.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import NUMERIC_TYPES, STRING_TYPES, cast, clone, lit, type_of
from sql.rules.dates import _mapping_is_ntz

_DAY = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_US_DAY = "[0-9]{2}/[0-9]{2}/[0-9]{4}"
# Printable ASCII but the digits: text that no AUTO format (each has a number) matches.
NO_DIGITS = "^[ -/:-~]*$"

ASSUMED = (
    "assumes DATE_INPUT_FORMAT / TIMESTAMP_INPUT_FORMAT = AUTO, Snowflake's default: "
    "exact on text of a documented AUTO format at full width; other text raises"
)


def _piece(text: exp.Expr, start: int, length: int | None = None) -> exp.Expr:
    if length is None:
        return exp.Substring(this=clone(text), start=lit(start))
    return exp.Substring(this=clone(text), start=lit(start), length=lit(length))


def _concat(*parts: exp.Expr) -> exp.Expr:
    result = parts[0]
    for part in parts[1:]:
        result = exp.DPipe(this=result, expression=part)
    return result


def _all(*checks: exp.Expr) -> exp.Expr:
    result = checks[0]
    for check in checks[1:]:
        result = exp.And(this=result, expression=check)
    return result


def _matches(text: exp.Expr, pattern: str) -> exp.Expr:
    return exp.RegexpLike(this=clone(text), expression=lit(pattern))


def _not_year_zero(text: exp.Expr, start: int) -> exp.Expr:
    # Snowflake accepts year 0000 "in some contexts"; the engines read it otherwise.
    return exp.NEQ(this=_piece(text, start, 4), expression=lit("0000"))


def _at_most(text: exp.Expr, start: int, highest: str) -> exp.Expr:
    # Two digits compared as text: DuckDB reads hour 24 as the next day's midnight.
    return exp.LTE(this=_piece(text, start, 2), expression=lit(highest))


def _read(text: exp.Expr, branches: list[tuple[exp.Expr, exp.Expr]], kind: str, safe: bool):
    """CAST(CASE <branch> THEN <ISO text> ... ELSE <unreadable> END AS kind), and under
    ``safe`` NULL first for text with no digit."""
    unreadable = _concat(lit(f"not a {kind.lower()} Snowflake's AUTO format reads: "), clone(text))
    ifs = [exp.If(this=condition, true=iso) for condition, iso in branches]
    value = cast(exp.Case(ifs=ifs, default=unreadable), kind)
    if not safe:
        return value
    return exp.Case(ifs=[exp.If(this=_matches(text, NO_DIGITS), true=exp.Null())], default=value)


def auto_date(text: exp.Expr, *, safe: bool) -> exp.Expr:
    """Snowflake's ``TO_DATE(text)`` (``TRY_TO_DATE`` under ``safe``) under AUTO."""
    iso = _all(_matches(text, f"^{_DAY}$"), _not_year_zero(text, 1))
    us = _all(_matches(text, f"^{_US_DAY}$"), _not_year_zero(text, 7))
    us_iso = _concat(_piece(text, 7, 4), lit("-"), _piece(text, 1, 2), lit("-"), _piece(text, 4, 2))
    return _read(text, [(iso, clone(text)), (us, us_iso)], "DATE", safe)


def auto_timestamp(text: exp.Expr, *, safe: bool) -> exp.Expr:
    """Snowflake's ``TO_TIMESTAMP_NTZ(text)`` (``TRY_`` under ``safe``) under AUTO."""
    day = _piece(text, 1, 10)
    ok = _not_year_zero(text, 1)
    hour, minute, second = (
        _at_most(text, 12, "23"),
        _at_most(text, 15, "59"),
        _at_most(text, 18, "59"),
    )
    us_time = _all(
        _matches(text, f"^{_US_DAY} [0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}$"),
        _not_year_zero(text, 7),
        _at_most(text, 12, "23"),
        _at_most(text, 15, "59"),
        _at_most(text, 18, "59"),
    )
    branches = [
        (_all(_matches(text, f"^{_DAY}$"), ok), _concat(clone(text), lit(" 00:00:00"))),
        (
            _all(_matches(text, f"^{_DAY}[ T][0-9]{{2}}$"), clone(ok), hour),
            _concat(day, lit(" "), _piece(text, 12, 2), lit(":00:00")),
        ),
        (
            _all(
                _matches(text, f"^{_DAY}[ T][0-9]{{2}}:[0-9]{{2}}$"),
                clone(ok),
                clone(hour),
                clone(minute),
            ),
            _concat(clone(day), lit(" "), _piece(text, 12, 5), lit(":00")),
        ),
        (
            _all(
                _matches(text, f"^{_DAY}[ T][0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}(\\.[0-9]{{1,6}})?$"),
                clone(ok),
                clone(hour),
                clone(minute),
                clone(second),
            ),
            _concat(clone(day), lit(" "), _piece(text, 12)),
        ),
        (
            us_time,
            _concat(
                _piece(text, 7, 4),
                lit("-"),
                _piece(text, 1, 2),
                lit("-"),
                _piece(text, 4, 2),
                lit(" "),
                _piece(text, 12),
            ),
        ),
    ]
    return _read(text, branches, "TIMESTAMP", safe)


# Functions of one string argument read as TIMESTAMP_NTZ by AUTO: name -> (TRY_, mapped).
_TIMESTAMP_FUNCTIONS = {
    "TO_TIMESTAMP": (False, True),
    "TO_TIMESTAMP_NTZ": (False, False),
    "TRY_TO_TIMESTAMP": (True, True),
    "TRY_TO_TIMESTAMP_NTZ": (True, False),
}


def _is_text(value: exp.Expr) -> bool:
    return not isinstance(value, exp.Literal) and type_of(value) in STRING_TYPES


def _target(node: exp.Expr, ctx: Context) -> str | None:
    """DATE or TIMESTAMP when a cast's target is one AUTO reads here (TIMESTAMP only as
    TIMESTAMP_NTZ under the assumed mapping), else None."""
    to = node.args.get("to")
    if not isinstance(to, exp.DataType) or to.expressions:
        return None
    if to.this == exp.DType.DATE:
        return "DATE"
    if to.this == exp.DType.TIMESTAMPNTZ:
        return "TIMESTAMP"
    if to.this == exp.DType.TIMESTAMP and _mapping_is_ntz("TO_TIMESTAMP", node, ctx):
        return "TIMESTAMP"
    return None


def _number_text(value: exp.Expr) -> bool:
    """Text of a number (TO_VARCHAR(n), n::VARCHAR): digits, which AUTO reads as a count."""
    inner = value.this if isinstance(value, (exp.Cast, exp.ToChar)) else None
    if isinstance(value, exp.ToChar) and value.args.get("format") is not None:
        return False
    return inner is not None and type_of(inner) in NUMERIC_TYPES


def _reading(value: exp.Expr, kind: str, safe: bool, node: exp.Expr, ctx: Context) -> exp.Expr:
    if _number_text(value):
        ctx.report(
            "error",
            "SF-AUTO-DATE",
            node,
            "the text of a number is read by DATE_INPUT_FORMAT / TIMESTAMP_INPUT_FORMAT AUTO "
            "as seconds, milliseconds, microseconds or nanoseconds since 1970 by its magnitude, "
            "which no format states here; convert the number itself (TO_TIMESTAMP(n, scale))",
        )
        return node
    ctx.report("warning", "SF-AUTO-DATE", node, ASSUMED)
    return auto_date(value, safe=safe) if kind == "DATE" else auto_timestamp(value, safe=safe)


@rule(
    "SF-AUTO-DATE",
    "rewrite",
    ("snowflake",),
    (exp.Cast, exp.TryCast, exp.TsOrDsToDate, exp.Anonymous),
    "Snowflake reads a string column as DATE or TIMESTAMP_NTZ (s::DATE, CAST, TRY_CAST, "
    "TO_DATE(s), TRY_TO_DATE(s), TO_TIMESTAMP[_NTZ](s), TRY_TO_TIMESTAMP[_NTZ](s)) by "
    "DATE_INPUT_FORMAT / TIMESTAMP_INPUT_FORMAT, AUTO by default (a warning): the formats "
    "Snowflake documents for AUTO detection. Text of one of them at full width (YYYY-MM-DD, "
    "MM/DD/YYYY; YYYY-MM-DD and a blank or T with HH24[:MI[:SS[.F up to 6 digits]]], "
    "MM/DD/YYYY HH24:MI:SS), a year other than 0000 and a time of day up to 23:59:59 is "
    "rebuilt as ISO text and CAST (which checks the calendar); text of printable ASCII "
    "without a digit matches no format: NULL under TRY_. Other text, which Snowflake reads "
    "by rules it does not state (other widths, blanks, month names, zones, strings of "
    "digits counting seconds since 1970, nanoseconds, February 31), is made unreadable so "
    "that the CAST raises. The text of a number (TO_VARCHAR(n), n::VARCHAR), digits that "
    "AUTO counts since 1970, is refused. TO_DATE / TO_TIMESTAMP with a format are "
    "FMT-TO-DATE / FMT-TO-TIMESTAMP.",
    (
        (
            "snowflake",
            "SELECT TRY_CAST(o_comment AS DATE) AS d FROM SALES.ORDERS",
            'SELECT CASE WHEN "orders"."o_comment" LIKE_REGEX \'^[ -/:-~]*$\' THEN NULL ELSE '
            'CAST(CASE WHEN "orders"."o_comment" LIKE_REGEX \'^[0-9]{4}-[0-9]{2}-[0-9]{2}$\' '
            'AND SUBSTRING("orders"."o_comment" FROM 1 FOR 4) <> \'0000\' THEN '
            '"orders"."o_comment" WHEN "orders"."o_comment" LIKE_REGEX '
            '\'^[0-9]{2}/[0-9]{2}/[0-9]{4}$\' AND SUBSTRING("orders"."o_comment" FROM 7 FOR 4) '
            "<> '0000' THEN SUBSTRING(\"orders\".\"o_comment\" FROM 7 FOR 4) || '-' || "
            'SUBSTRING("orders"."o_comment" FROM 1 FOR 2) || \'-\' || '
            'SUBSTRING("orders"."o_comment" FROM 4 FOR 2) ELSE \'not a date Snowflake\'\'s AUTO '
            'format reads: \' || "orders"."o_comment" END AS DATE) END AS "d" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
)
def auto_reading(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, (exp.Cast, exp.TryCast)):
        if not _is_text(node.this):
            return None
        kind = _target(node, ctx)
        if kind is None:
            return None
        return _reading(node.this, kind, isinstance(node, exp.TryCast), node, ctx)
    if isinstance(node, exp.TsOrDsToDate):
        if node.args.get("format") is not None or not _is_text(node.this):
            return None
        return _reading(node.this, "DATE", bool(node.args.get("safe")), node, ctx)
    name = node.name.upper()
    if name not in _TIMESTAMP_FUNCTIONS or len(node.expressions) != 1:
        return None
    [value] = node.expressions
    if not _is_text(value):
        return None
    safe, mapped = _TIMESTAMP_FUNCTIONS[name]
    if mapped and not _mapping_is_ntz(name, node, ctx):
        return node
    return _reading(value, "TIMESTAMP", safe, node, ctx)
