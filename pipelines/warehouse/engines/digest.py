"""An engine-independent, order-insensitive digest of a table's content.

File bytes differ between writers (DuckDB and Spark encode the same rows differently), so
the digest is taken over canonical text of the values: numbers as 12 significant digits
(DECIMAL(18,2) on one engine and DOUBLE on the other must agree), dates as ISO-8601, NULL as
``\\N``; each row is hashed and the sorted row hashes are hashed again with the column
names. Two tables with the same digest hold the same multiset of rows.

That digest is for comparing engines, and 12 digits are not every value: a total of
12,345,678,901.23 and one of 12,345,678,901.24 read the same. What identifies a published
table (its data version, what decides that a rebuild holds what the live version holds) is
the exact digest beside it (:func:`table_digests`): each value's full text as DuckDB writes
it (decimals with every digit, doubles in their shortest round-trip form, timestamps to the
nanosecond), length-prefixed so no value can run into the next, over the column names and
their types. Row order still does not count: a parallel engine writes the same rows in
another order from one build to the next.

Both are sha256 of a header and the row hashes in sorted order, concatenated: what
``sha256(header || string_agg(row_hash, '' ORDER BY row_hash))`` computes. That query held
the whole concatenation, 64 bytes a row, in one string (370 MB at TPC-H scale 1, 3.7 GB at
scale 10) and sorted in memory. Here DuckDB sorts the row hashes (spilling beyond its memory
limit) and streams them in batches into one sha256 here: the same digest, in memory that
does not grow with the table (:func:`sorted_hash_digest`).

The canonical text of a number is what ``format('{:.12g}', CAST(x AS DOUBLE))`` writes, and
that call was the costliest part of a row's text (over 40% of the content digest's CPU on
TPC-H lineitem). Integers, and decimals of at most 12 significant digits, between 1e-4 and
1e12 in magnitude (or zero) are written from their own text instead (:func:`number_text`),
dates from the year 1 on likewise (:func:`date_text`), and a row's texts are joined by one
``concat`` call (:func:`concat`): the same bytes, which tests check at every boundary of
every numeric type, so every digest a lake already records stays what it was
(docs/benchmarks.md: 38% less CPU on TPC-H SF1 lineitem).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlglot import exp

from pipelines.lake.duckdb_types import NUMERIC_PREFIXES
from pipelines.lake.store import parquet_source
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

NULL = r"\N"


# Sorting the row hashes makes the digest independent of row order; duplicates still count.
SORTED_HASHES_SQL = "SELECT row_hash FROM h ORDER BY row_hash"
# Row hashes handed over at a time: 64 MB of hex digits.
BATCH_ROWS = 1_000_000


def sorted_hash_digest(con: Any, header: str) -> str:
    """sha256 of ``header`` and the row hashes of the view ``h`` in sorted order: DuckDB's
    ``sha256(header || string_agg(row_hash, '' ORDER BY row_hash))``, with the sort done by
    DuckDB (out of core) and the concatenation hashed batch by batch, never held whole."""
    import pyarrow as pa

    digest = hashlib.sha256(header.encode("utf-8"))
    reader = con.sql(SORTED_HASHES_SQL).to_arrow_reader(BATCH_ROWS)
    for batch in reader:
        hashes = batch.column(0)
        if not pa.types.is_large_string(hashes.type):
            hashes = hashes.cast(pa.large_string())
        # The values of a string array lie end to end in its data buffer: the batch's part
        # of the concatenation, as it is.
        offsets = memoryview(hashes.buffers()[1]).cast("q")  # a large string's int64 offsets
        start, end = offsets[hashes.offset], offsets[hashes.offset + len(hashes)]
        data = hashes.buffers()[2]
        if data is not None:
            digest.update(memoryview(data)[start:end])
    return digest.hexdigest()


# ``format('{:.12g}', CAST(x AS DOUBLE))`` is the canonical text of every number, and the
# slowest expression of a row's text. Where a value is an integer, or a decimal of at most
# 12 significant digits, with 1e-4 <= |x| < 1e12 (or zero), that text is the value's own
# digits: the double is within a few ulps of the value, so its rounding to 12 significant
# digits is the value, printed in fixed notation with trailing zeros (and a trailing point)
# dropped. There the number's own text is written; elsewhere ``format``.
GENERAL_DIGITS = 12
FIXED_BELOW = 10**GENERAL_DIGITS  # |x| from here on prints as 1e+12
FIXED_FROM_SCALE = 4  # |x| below 1e-4 prints as 1e-05
# Integers whose every value lies below 1e12: their text is always their own digits.
NARROW_INTEGERS = frozenset({"TINYINT", "SMALLINT", "INTEGER", "UTINYINT", "USMALLINT", "UINTEGER"})
WIDE_INTEGER_TYPES = frozenset({"BIGINT", "UBIGINT", "HUGEINT", "UHUGEINT"})
DECIMAL_TYPE = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")


def general_number(col: exp.Expr) -> exp.Expr:
    """``format('{:.12g}', CAST(x AS DOUBLE))``: any number's canonical text."""
    return exp.func("format", exp.Literal.string("{:.12g}"), exp.cast(col, "DOUBLE"))


def _typed(value: str, duckdb_type: str) -> exp.Expr:
    return exp.cast(exp.Literal.string(value), duckdb_type, dialect="duckdb")


def _fixed_or_general(
    col: exp.Expr, fixed: exp.Expr, condition: exp.Expr | None, general: exp.Expr | None = None
) -> exp.Expr:
    """``fixed`` where ``condition`` holds (always, without one), else ``general`` (the
    number's general format unless given)."""
    if condition is None:
        return fixed
    default = general if general is not None else general_number(col)
    return exp.Case(ifs=[exp.If(this=condition, true=fixed)], default=default)


def number_text(col: exp.Expr, duckdb_type: str) -> exp.Expr:
    """The text ``format('{:.12g}', CAST(x AS DOUBLE))`` writes for the number ``col`` of
    ``duckdb_type``, computed from the number's own text where that provably is the same
    (see above; tests/pipelines/warehouse/engines/test_digest_numbers.py checks it at every
    boundary of every numeric type)."""
    text = exp.cast(col, "VARCHAR")
    if duckdb_type in NARROW_INTEGERS:
        return text
    if duckdb_type in WIDE_INTEGER_TYPES:
        below = exp.LT(this=col, expression=_typed(str(FIXED_BELOW), duckdb_type))
        if duckdb_type.startswith("U"):
            return _fixed_or_general(col, text, below)
        above = exp.GT(this=col, expression=_typed(str(-FIXED_BELOW), duckdb_type))
        return _fixed_or_general(col, text, exp.and_(above, below))
    decimal = DECIMAL_TYPE.fullmatch(duckdb_type)
    if decimal is None:  # FLOAT, DOUBLE: no shorter way to the same text
        return general_number(col)
    precision, scale = int(decimal.group(1)), int(decimal.group(2))
    if scale - GENERAL_DIGITS > FIXED_FROM_SCALE:  # below 1e-4 wherever 12 digits suffice
        return general_number(col)
    if precision == scale:  # DuckDB writes DECIMAL(2,2) 0.5 as .50: widen it to 0.50
        widened = exp.cast(col, f"DECIMAL({precision + 1},{scale})", dialect="duckdb")
        text = exp.cast(widened, "VARCHAR")
    # The text has every digit of the scale: 12.50 -> 12.5, 3.00 -> 3, 0.00 -> 0.
    fixed = (
        text
        if scale == 0
        else exp.func(
            "rtrim", exp.func("rtrim", text, exp.Literal.string("0")), exp.Literal.string(".")
        )
    )
    conditions: list[exp.Expr] = []
    magnitude = exp.func("abs", col)
    if precision > GENERAL_DIGITS:  # at most 12 digits: |x| < 10 ** (12 - scale)
        bound = FIXED_BELOW // 10**scale if scale <= GENERAL_DIGITS else None
        limit = str(bound) if bound is not None else "0." + "0" * (scale - GENERAL_DIGITS - 1) + "1"
        conditions.append(exp.LT(this=magnitude, expression=_typed(limit, duckdb_type)))
    if scale > FIXED_FROM_SCALE:  # 0, or |x| >= 1e-4
        small = exp.GTE(this=magnitude, expression=_typed("0.0001", duckdb_type))
        zero = exp.EQ(this=col, expression=_typed("0", duckdb_type))
        conditions.append(exp.paren(exp.or_(zero, small)))
    return _fixed_or_general(col, fixed, exp.and_(*conditions) if conditions else None)


def date_text(col: exp.Expr) -> exp.Expr:
    """``strftime(x, '%Y-%m-%d')``: a date's canonical text. From the year 1 on (and for
    infinity) DuckDB's own text of a date is the same, at a third of the cost; before it,
    DuckDB writes ``0006-01-01 (BC)`` where strftime writes ``-5-01-01``."""
    general = exp.func("strftime", col, exp.Literal.string("%Y-%m-%d"))
    first = exp.cast(exp.Literal.string("0001-01-01"), "DATE")
    return _fixed_or_general(
        col, exp.cast(col, "VARCHAR"), exp.GTE(this=col, expression=first), general
    )


def canonical_value(column: str, duckdb_type: str) -> exp.Expr:
    """The canonical text of one column's value (NULL stays NULL), as a DuckDB expression."""
    col = exp.column(column, quoted=True)
    upper = duckdb_type.upper()
    if upper.startswith(NUMERIC_PREFIXES):
        text: exp.Expr = number_text(col, upper)
    elif upper == "DATE":
        text = date_text(col)
    elif upper.startswith("TIMESTAMP"):
        text = exp.func("strftime", col, exp.Literal.string("%Y-%m-%dT%H:%M:%S.%f"))
    else:
        text = exp.cast(col, "VARCHAR")
    return text


def canonical(column: str, duckdb_type: str) -> exp.Expr:
    """Like :func:`canonical_value`, with NULL written ``\\N`` so that rows can be joined."""
    return exp.func("coalesce", canonical_value(column, duckdb_type), exp.Literal.string(NULL))


def row_hashes_sql(columns: list[str], types: list[str], source: str) -> str:
    """SELECT sha256(canonical row) AS row_hash FROM ``source`` (a view name): the values'
    texts joined with ``\x1f``."""
    values = [canonical(c, t) for c, t in zip(columns, types, strict=True)]
    if values:
        # No value is NULL (canonical writes \N), so concat_ws is concat with the separator
        # between them, which DuckDB computes at less cost.
        parts = [values[0]]
        for value in values[1:]:
            parts += [exp.Literal.string("\x1f"), value]
        row = concat(*parts)
    else:
        row = exp.func("concat_ws", exp.Literal.string("\x1f"))
    return (
        exp.select(exp.alias_(exp.func("sha256", row), "row_hash"))
        .from_(exp.to_identifier(source, quoted=True))
        .sql("duckdb")
    )


def concat(*parts: exp.Expr) -> exp.Expr:
    """DuckDB's ``concat(a, b, ...)`` as one call (NULL parts read as empty): sqlglot writes
    its Concat as ``a || b || ...``, a chain of pairs that costs DuckDB more than twice as
    much over a row of 16 values."""
    return exp.Anonymous(this="concat", expressions=list(parts))


def exact_value(column: str) -> exp.Expr:
    """One value's exact text, prefixed with its length (``5:12.50``), NULL as ``\\N``."""
    text = exp.cast(exp.column(column, quoted=True), "VARCHAR")
    prefixed = concat(exp.cast(exp.func("length", text), "VARCHAR"), exp.Literal.string(":"), text)
    null = exp.Is(this=text, expression=exp.Null())
    return exp.Case(ifs=[exp.If(this=null, true=exp.Literal.string(NULL))], default=prefixed)


def exact_row_hashes_sql(columns: list[str], source: str) -> str:
    """SELECT sha256(exact row) AS row_hash FROM ``source`` (a view name)."""
    table: exp.Expr = exp.to_identifier(source, quoted=True)
    if not columns:
        row: exp.Expr = exp.Literal.string("")
    else:
        row = concat(*(exact_value(c) for c in columns))
        # Each value cast to text once, below the row: exact_value's length and text then
        # read that text (the cast of a text to text is none), where DuckDB otherwise cast
        # each value twice (a sixth of the exact row hashes' time on TPC-H lineitem).
        texts = (
            exp.alias_(exp.cast(exp.column(c, quoted=True), "VARCHAR"), c, quoted=True)
            for c in columns
        )
        table = exp.select(*texts).from_(table).subquery(exp.to_identifier(source, quoted=True))
    return exp.select(exp.alias_(exp.func("sha256", row), "row_hash")).from_(table).sql("duckdb")


@dataclass(frozen=True)
class TableDigests:
    """A table's two digests: ``content`` to compare engines (12 significant digits),
    ``exact`` to identify the table (every digit, and the column types)."""

    content: str
    exact: str


def table_digests(path: Path) -> TableDigests:
    """Both digests of the Parquet table at ``path`` (a folder of files or one file): two
    scans of it, one for each digest's row hashes."""
    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(path))
        columns = [c.lower() for c in relation.columns]
        types = [str(t) for t in relation.types]
        relation.create_view("t")
        con.sql(row_hashes_sql(relation.columns, types, "t")).create_view("h")
        content = sorted_hash_digest(con, "\x1f".join(columns) + "\n")
        # The same over the exact row hashes, which replace the view it reads.
        con.sql(exact_row_hashes_sql(relation.columns, "t")).create_view("h", replace=True)
        header = "\x1f".join(f"{c} {t}" for c, t in zip(relation.columns, types, strict=True))
        exact = sorted_hash_digest(con, header + "\n")
    return TableDigests(content, exact)


def content_digest(path: Path) -> str:
    """Digest of the Parquet table at ``path`` (a folder of files or one file)."""
    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(path))
        columns = [c.lower() for c in relation.columns]
        relation.create_view("t")
        hashes = con.sql(row_hashes_sql(relation.columns, [str(t) for t in relation.types], "t"))
        hashes.create_view("h")
        return sorted_hash_digest(con, "\x1f".join(columns) + "\n")
