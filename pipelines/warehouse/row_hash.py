"""Canonical values and row hashes that two different engines compute alike.

A reconciliation against the legacy system itself (``pipelines.warehouse.reconcile``) asks
the legacy database for aggregates and one hash per row, so that rows never cross the wire.
The hash is computed by SQL in the legacy system's own dialect, rendered here with sqlglot,
and by DuckDB over the built table: both must give the same hash for the same row. So each
value is first written as a **canonical text** that every engine can produce from its own
type, then the row's texts are joined and hashed with MD5, which every engine has and which
gives the same bytes everywhere (over the UTF-8 text).

The canonical text of a value, by kind (:class:`Kind`):

* ``integer`` and ``decimal`` (every integer width; DECIMAL/NUMERIC of any precision and
  scale): the exact decimal number, without exponent, sign only when negative, no leading
  zeros, and no trailing zeros after the point (nor the point itself when nothing follows
  it): ``100``, ``-0.5``, ``250.1``. An INTEGER 7 and a DECIMAL(10,0) or DECIMAL(12,2) 7.00
  read ``7`` alike.
* ``text``: the characters themselves, byte for byte (no trimming, no case folding).
* ``boolean``: ``true`` or ``false``.
* ``date``: ``YYYY-MM-DD``.
* ``timestamp``: ``YYYY-MM-DD HH:MM:SS`` then, when the fraction of a second is not zero,
  ``.`` and its digits without trailing zeros (so TIMESTAMP(0), TIMESTAMP(6) and a
  nanosecond timestamp of the same instant read alike). A TIMESTAMP WITH TIME ZONE
  (``timestamptz``) is its UTC wall time in the same form. A DATE and a TIMESTAMP at
  midnight are different values: ``2024-01-02`` is not ``2024-01-02 00:00:00``; a column
  that is a DATE on one side and a TIMESTAMP on the other differs (its type changed).
* ``time``: ``HH:MM:SS`` and the fraction as for timestamps.
* ``binary``: lower-case hexadecimal.
* ``approximate`` (REAL, FLOAT, DOUBLE): never hashed. The last bits of a floating-point
  result depend on the order of summation (DuckDB's ``AVG`` over DOUBLE varies from run to
  run), and engines write the same double in different texts (``1e+20``, ``1E20``), so such a
  column is compared by value, within its tolerance, beside the hash.

The row's text joins the values' texts with ``|``; a text value has each ``\\`` written
``\\\\`` and each ``|`` written ``\\|``, and NULL is ``\\N``: no two different rows (NULL and
``''`` included) have the same text. The row hash is the lower-case hexadecimal MD5 of that
text; its hash-sum (order-insensitive, over a table) is the exact sum of the integers in its
hex digits 1-15 and 16-30 (two sums of 60-bit numbers, so no engine's BIGINT overflows before
it is summed as a wide integer or decimal).

Renderings: DuckDB and PostgreSQL are tested against the real engines (the same rows give
the same hashes); Snowflake, BigQuery and SQL Server (2022 or later: ``TRIM(TRAILING ...)``
and UTF-8 collations) are written to the same definition and unit-tested as text, not run
against a live system.

Pure sqlglot: no engine here.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

NULL_TEXT = "\\N"
SEPARATOR = "|"
# Where the two 60-bit halves of an MD5's 32 hex digits start (1-based, 15 digits each).
HASH_HALVES = (1, 16)
HALF_DIGITS = 15
DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery", "tsql")


class Kind(enum.Enum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    APPROXIMATE = "approximate"
    TEXT = "text"
    BOOLEAN = "boolean"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TIMESTAMPTZ = "timestamptz"
    TIME = "time"
    BINARY = "binary"
    # Anything else (lists, structs, intervals, UUIDs): only between two DuckDB sides.
    OTHER = "other"

    @property
    def numeric(self) -> bool:
        return self in (Kind.INTEGER, Kind.DECIMAL, Kind.APPROXIMATE)

    @property
    def exact_number(self) -> bool:
        return self in (Kind.INTEGER, Kind.DECIMAL)


class RowHashError(ValueError):
    """A column whose type has no canonical text in the dialect asked for."""


_DUCKDB_INTEGERS = re.compile(r"(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|INT\d*)$")
_DUCKDB_DECIMAL = re.compile(r"(DECIMAL|NUMERIC)(\((\d+),\s*(\d+)\))?$")


def duckdb_kind(duckdb_type: str) -> Kind:
    """The kind of a DuckDB column type (as ``str(relation.types[i])`` writes it)."""
    upper = duckdb_type.upper().strip()
    if _DUCKDB_INTEGERS.match(upper):
        return Kind.INTEGER
    if _DUCKDB_DECIMAL.match(upper):
        return Kind.DECIMAL
    if upper in ("FLOAT", "REAL", "DOUBLE", "FLOAT4", "FLOAT8"):
        return Kind.APPROXIMATE
    if upper in ("VARCHAR", "TEXT", "STRING") or upper.startswith("VARCHAR("):
        return Kind.TEXT
    if upper == "BOOLEAN":
        return Kind.BOOLEAN
    if upper == "DATE":
        return Kind.DATE
    if upper in ("TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ"):
        return Kind.TIMESTAMPTZ
    if upper.startswith("TIMESTAMP") or upper == "DATETIME":
        return Kind.TIMESTAMP
    if upper == "TIME":
        return Kind.TIME
    if upper == "BLOB":
        return Kind.BINARY
    return Kind.OTHER


def decimal_digits(duckdb_type: str) -> tuple[int, int] | None:
    """(digits before the point, scale) a DuckDB integer or decimal type holds at most."""
    upper = duckdb_type.upper().strip()
    widths = {
        "TINYINT": 3,
        "SMALLINT": 5,
        "INTEGER": 10,
        "BIGINT": 19,
        "HUGEINT": 39,
        "UTINYINT": 3,
        "USMALLINT": 5,
        "UINTEGER": 10,
        "UBIGINT": 20,
        "UHUGEINT": 39,
    }
    if upper in widths:
        return widths[upper], 0
    match = _DUCKDB_DECIMAL.match(upper)
    if match and match.group(2):
        precision, scale = int(match.group(3)), int(match.group(4))
        return precision - scale, scale
    return None


@dataclass(frozen=True)
class Column:
    """A column as one side holds it: its name there and its kind."""

    name: str
    kind: Kind
    # DECIMAL's scale where the type says it (DuckDB), None where the text decides.
    scale: int | None = None
    # DuckDB: a timestamp with nanoseconds.
    nanoseconds: bool = False


def _text(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    # Anonymous: written as named in every dialect (sqlglot would translate a typed node).
    return exp.Anonymous(this=name, expressions=list(args))


def _cast(value: exp.Expr, kind: str, dialect: str) -> exp.Cast:
    return exp.Cast(this=value, to=exp.DataType.build(kind, dialect=dialect))


def _trim_trailing(value: exp.Expr, characters: str, dialect: str) -> exp.Expr:
    if dialect in ("postgres", "tsql"):
        return exp.Trim(this=value, expression=_text(characters), position="TRAILING")
    return _fn("RTRIM", value, _text(characters))


def _without_trailing_zeros(value: exp.Expr, dialect: str) -> exp.Expr:
    """``value`` (text holding a point) without the zeros that end it, nor the point then."""
    return _trim_trailing(_trim_trailing(value, "0", dialect), ".", dialect)


def _contains_point(value: exp.Expr, dialect: str) -> exp.Expr:
    return exp.GT(
        this=exp.StrPosition(this=value, substr=_text(".")), expression=exp.Literal.number(0)
    )


@dataclass(frozen=True)
class Dialect:
    """How one engine writes the canonical text of each kind."""

    name: str
    text_type: str
    # Written as a type to CAST to: the engine's DOUBLE.
    double_type: str
    # A wide exact type that sums 60-bit integers without overflow.
    wide_type: str

    def as_text(self, value: exp.Expr) -> exp.Expr:
        return _cast(value, self.text_type, self.name)

    def number(self, column: Column, value: exp.Expr) -> exp.Expr:
        text = self.as_text(value)
        if column.kind is Kind.INTEGER or column.scale == 0:
            return text
        if column.scale is not None:
            return _without_trailing_zeros(text, self.name)
        # The scale is not known here: trim only a text that has a point.
        return (
            exp.case()
            .when(_contains_point(text, self.name), _without_trailing_zeros(text.copy(), self.name))
            .else_(text.copy())
        )

    def date(self, value: exp.Expr) -> exp.Expr:
        raise NotImplementedError

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        """``YYYY-MM-DD HH:MM:SS.<fraction>``, the fraction's trailing zeros still there."""
        raise NotImplementedError

    def utc(self, value: exp.Expr) -> exp.Expr:
        """A TIMESTAMP WITH TIME ZONE as its UTC wall time (a timestamp without zone)."""
        raise NotImplementedError

    def time(self, value: exp.Expr) -> exp.Expr:
        raise NotImplementedError

    def binary(self, value: exp.Expr) -> exp.Expr:
        raise NotImplementedError

    def boolean(self, value: exp.Expr) -> exp.Expr:
        return (
            exp.case()
            .when(value.copy(), _text("true"))
            .when(exp.not_(value.copy()), _text("false"))
        )

    def md5_hex(self, text: exp.Expr) -> exp.Expr:
        return _fn("MD5", text)

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        raise NotImplementedError

    def binary_order(self, value: exp.Expr) -> exp.Expr:
        """``value`` compared byte by byte (as UTF-8), whatever the column's collation."""
        return value

    def concat(self, parts: Sequence[exp.Expr]) -> exp.Expr:
        return _fn("CONCAT", *parts) if len(parts) > 1 else parts[0]

    def substring(self, value: exp.Expr, start: int, length: int) -> exp.Expr:
        return _fn("SUBSTR", value, exp.Literal.number(start), exp.Literal.number(length))


class _DuckDB(Dialect):
    def date(self, value: exp.Expr) -> exp.Expr:
        return _fn("STRFTIME", value, _text("%Y-%m-%d"))

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        fraction = "%n" if column.nanoseconds else "%f"
        return _fn("STRFTIME", value, _text(f"%Y-%m-%d %H:%M:%S.{fraction}"))

    def utc(self, value: exp.Expr) -> exp.Expr:
        # The reconciliation's connection runs in UTC (connect_duckdb).
        return _cast(value, "TIMESTAMP", self.name)

    def time(self, value: exp.Expr) -> exp.Expr:
        # STRFTIME formats timestamps: the time on any day.
        on_a_day = exp.Add(this=_cast(_text("2000-01-01"), "DATE", self.name), expression=value)
        return _fn("STRFTIME", on_a_day, _text("%H:%M:%S.%f"))

    def binary(self, value: exp.Expr) -> exp.Expr:
        return _fn("LOWER", _fn("HEX", value))

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        return _cast(exp.DPipe(this=_text("0x"), expression=hex_digits), "BIGINT", self.name)


class _Postgres(Dialect):
    def date(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("YYYY-MM-DD"))

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("YYYY-MM-DD HH24:MI:SS.US"))

    def utc(self, value: exp.Expr) -> exp.Expr:
        return exp.AtTimeZone(this=value, zone=_text("UTC"))

    def time(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("HH24:MI:SS.US"))

    def binary(self, value: exp.Expr) -> exp.Expr:
        return _fn("ENCODE", value, _text("hex"))

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        # PostgreSQL reads hexadecimal only as a bit string: 'x' || digits, as BIT(60).
        bits = _cast(exp.DPipe(this=_text("x"), expression=hex_digits), "BIT(60)", self.name)
        return _cast(bits, "BIGINT", self.name)

    def binary_order(self, value: exp.Expr) -> exp.Expr:
        return exp.Collate(this=value, expression=exp.Identifier(this="C", quoted=True))


class _Snowflake(Dialect):
    def as_text(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_VARCHAR", value)

    def date(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("YYYY-MM-DD"))

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("YYYY-MM-DD HH24:MI:SS.FF9"))

    def utc(self, value: exp.Expr) -> exp.Expr:
        return _cast(_fn("CONVERT_TIMEZONE", _text("UTC"), value), "TIMESTAMP_NTZ", self.name)

    def time(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_CHAR", value, _text("HH24:MI:SS.FF9"))

    def binary(self, value: exp.Expr) -> exp.Expr:
        return _fn("LOWER", _fn("HEX_ENCODE", value))

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        return _fn("TO_NUMBER", hex_digits, _text("X" * HALF_DIGITS))

    def binary_order(self, value: exp.Expr) -> exp.Expr:
        return _fn("COLLATE", value, _text("utf8"))


class _BigQuery(Dialect):
    def date(self, value: exp.Expr) -> exp.Expr:
        return _fn("FORMAT_DATE", _text("%Y-%m-%d"), value)

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        return _fn("FORMAT_DATETIME", _text("%Y-%m-%d %H:%M:%E6S"), value)

    def utc(self, value: exp.Expr) -> exp.Expr:
        return _fn("DATETIME", value, _text("UTC"))

    def time(self, value: exp.Expr) -> exp.Expr:
        return _fn("FORMAT_TIME", _text("%H:%M:%E6S"), value)

    def binary(self, value: exp.Expr) -> exp.Expr:
        return _fn("TO_HEX", value)

    def md5_hex(self, text: exp.Expr) -> exp.Expr:
        # BigQuery's MD5 returns BYTES.
        return _fn("TO_HEX", _fn("MD5", text))

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        return _cast(_fn("CONCAT", _text("0x"), hex_digits), "INT64", self.name)


class _SqlServer(Dialect):
    def date(self, value: exp.Expr) -> exp.Expr:
        return _fn("CONVERT", exp.DataType.build("VARCHAR(10)", dialect="tsql"), value, _n(23))

    def timestamp(self, value: exp.Expr, column: Column) -> exp.Expr:
        # Style 121: yyyy-mm-dd hh:mi:ss.fffffff (DATETIME2's seven digits).
        return _fn("CONVERT", exp.DataType.build("VARCHAR(27)", dialect="tsql"), value, _n(121))

    def utc(self, value: exp.Expr) -> exp.Expr:
        return _cast(_fn("SWITCHOFFSET", value, _text("+00:00")), "DATETIME2", self.name)

    def time(self, value: exp.Expr) -> exp.Expr:
        # The default style: hh:mi:ss.nnnnnnn (TIME(7)).
        return _fn("CONVERT", exp.DataType.build("VARCHAR(16)", dialect="tsql"), value)

    def binary(self, value: exp.Expr) -> exp.Expr:
        return _fn(
            "LOWER",
            _fn("CONVERT", exp.DataType.build("VARCHAR(MAX)", dialect="tsql"), value, _n(2)),
        )

    def boolean(self, value: exp.Expr) -> exp.Expr:
        one, zero = exp.Literal.number(1), exp.Literal.number(0)
        return (
            exp.case()
            .when(exp.EQ(this=value.copy(), expression=one), _text("true"))
            .when(exp.EQ(this=value.copy(), expression=zero), _text("false"))
        )

    def md5_hex(self, text: exp.Expr) -> exp.Expr:
        # HASHBYTES hashes the bytes of its argument: the text as UTF-8 (SQL Server 2019+'s
        # UTF-8 collations), written as lower-case hex (CONVERT style 2).
        utf8 = _fn(
            "CONVERT",
            exp.DataType.build("VARCHAR(MAX)", dialect="tsql"),
            exp.Collate(this=text, expression=exp.Var(this="Latin1_General_100_BIN2_UTF8")),
        )
        digest = _fn("HASHBYTES", _text("MD5"), utf8)
        return _fn(
            "LOWER",
            _fn("CONVERT", exp.DataType.build("VARCHAR(32)", dialect="tsql"), digest, _n(2)),
        )

    def hex_to_integer(self, hex_digits: exp.Expr) -> exp.Expr:
        # Style 2 reads an even number of hex digits: one leading zero makes 16.
        binary = _fn(
            "CONVERT",
            exp.DataType.build("VARBINARY(8)", dialect="tsql"),
            _fn("CONCAT", _text("0"), hex_digits),
            _n(2),
        )
        return _fn("CONVERT", exp.DataType.build("BIGINT", dialect="tsql"), binary)

    def binary_order(self, value: exp.Expr) -> exp.Expr:
        return exp.Collate(this=value, expression=exp.Var(this="Latin1_General_100_BIN2_UTF8"))

    def substring(self, value: exp.Expr, start: int, length: int) -> exp.Expr:
        return _fn("SUBSTRING", value, exp.Literal.number(start), exp.Literal.number(length))


def _n(value: int) -> exp.Literal:
    return exp.Literal.number(value)


_DIALECTS: dict[str, Dialect] = {
    "duckdb": _DuckDB("duckdb", "VARCHAR", "DOUBLE", "HUGEINT"),
    "postgres": _Postgres("postgres", "TEXT", "DOUBLE PRECISION", "NUMERIC"),
    "snowflake": _Snowflake("snowflake", "VARCHAR", "DOUBLE", "NUMBER(38, 0)"),
    "bigquery": _BigQuery("bigquery", "STRING", "FLOAT64", "BIGNUMERIC"),
    "tsql": _SqlServer("tsql", "NVARCHAR(MAX)", "FLOAT", "DECIMAL(38, 0)"),
}


def dialect(name: str) -> Dialect:
    try:
        return _DIALECTS[name]
    except KeyError:
        raise RowHashError(
            f"no row hash for dialect {name}; known: {', '.join(DIALECTS)}"
        ) from None


def canonical_text(column: Column, dialect_name: str, value: exp.Expr | None = None) -> exp.Expr:
    """The canonical text of ``column``'s value (NULL stays NULL) in ``dialect_name``; an
    approximate number as the engine writes it (for showing, never for hashing)."""
    d = dialect(dialect_name)
    value = value if value is not None else exp.column(column.name, quoted=True)
    kind = column.kind
    if kind.exact_number:
        return d.number(column, value)
    if kind is Kind.TEXT:
        return d.as_text(value) if dialect_name == "postgres" else value
    if kind is Kind.BOOLEAN:
        return d.boolean(value)
    if kind is Kind.DATE:
        return d.date(value)
    if kind in (Kind.TIMESTAMP, Kind.TIMESTAMPTZ):
        wall = d.utc(value) if kind is Kind.TIMESTAMPTZ else value
        return _without_trailing_zeros(d.timestamp(wall, column), dialect_name)
    if kind is Kind.TIME:
        return _without_trailing_zeros(d.time(value), dialect_name)
    if kind is Kind.BINARY:
        return d.binary(value)
    if kind is Kind.APPROXIMATE or dialect_name == "duckdb":
        return d.as_text(value)
    raise RowHashError(
        f"column {column.name}: a value of this type has no canonical text in {dialect_name}"
    )


def hashed_field(column: Column, dialect_name: str) -> exp.Expr:
    """One field of the row's text: the canonical text, escaped where it is text, NULL as
    ``\\N``."""
    text = canonical_text(column, dialect_name)
    if column.kind in (Kind.TEXT, Kind.OTHER):
        text = exp.Replace(
            this=exp.Replace(this=text, expression=_text("\\"), replacement=_text("\\\\")),
            expression=_text(SEPARATOR),
            replacement=_text("\\" + SEPARATOR),
        )
    return exp.Coalesce(this=text, expressions=[_text(NULL_TEXT)])


def row_text(columns: Sequence[Column], dialect_name: str) -> exp.Expr:
    """The row's canonical text: its fields joined with ``|`` (an empty text for no column)."""
    if not columns:
        return _text("")
    parts: list[exp.Expr] = []
    for i, column in enumerate(columns):
        if i:
            parts.append(_text(SEPARATOR))
        parts.append(hashed_field(column, dialect_name))
    return dialect(dialect_name).concat(parts)


def row_hash(columns: Sequence[Column], dialect_name: str) -> exp.Expr:
    """The lower-case hex MD5 of the row's canonical text."""
    return dialect(dialect_name).md5_hex(row_text(columns, dialect_name))


def hash_halves(hex_hash: exp.Expr, dialect_name: str) -> tuple[exp.Expr, exp.Expr]:
    """The 60-bit integers of hex digits 1-15 and 16-30 of ``hex_hash``."""
    d = dialect(dialect_name)
    return tuple(  # type: ignore[return-value]
        d.hex_to_integer(d.substring(hex_hash.copy(), start, HALF_DIGITS)) for start in HASH_HALVES
    )


def hash_sum(hex_hash: exp.Expr, dialect_name: str) -> tuple[exp.Expr, exp.Expr]:
    """The two exact sums of :func:`hash_halves` over the rows (an aggregate)."""
    d = dialect(dialect_name)
    return tuple(  # type: ignore[return-value]
        exp.Sum(this=_cast(half, d.wide_type, dialect_name))
        for half in hash_halves(hex_hash, dialect_name)
    )


def render(expression: exp.Expr, dialect_name: str) -> str:
    return expression.sql(dialect=dialect_name)


def parse_query(text: str, dialect_name: str) -> exp.Query:
    """A legacy query as written (in its own dialect): one query, read-only."""
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect_name) if s is not None]
    except sqlglot.errors.SqlglotError as error:
        raise RowHashError(f"the query does not parse as {dialect_name} SQL: {error}") from None
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise RowHashError("expected one query (SELECT or WITH ... SELECT)")
    return statements[0]
