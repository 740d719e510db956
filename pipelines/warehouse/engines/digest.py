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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlglot import exp

from pipelines.lake.duckdb_types import NUMERIC_PREFIXES
from pipelines.lake.store import parquet_source
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

NULL = r"\N"


# Sorting the row hashes makes the digest independent of row order; duplicates still count.
AGGREGATE_SQL = (
    "SELECT sha256(? || coalesce(string_agg(row_hash, '' ORDER BY row_hash), '')) FROM h"
)


def canonical_value(column: str, duckdb_type: str) -> exp.Expr:
    """The canonical text of one column's value (NULL stays NULL), as a DuckDB expression."""
    col = exp.column(column, quoted=True)
    upper = duckdb_type.upper()
    if upper.startswith(NUMERIC_PREFIXES):
        text: exp.Expr = exp.func("format", exp.Literal.string("{:.12g}"), exp.cast(col, "DOUBLE"))
    elif upper == "DATE":
        text = exp.func("strftime", col, exp.Literal.string("%Y-%m-%d"))
    elif upper.startswith("TIMESTAMP"):
        text = exp.func("strftime", col, exp.Literal.string("%Y-%m-%dT%H:%M:%S.%f"))
    else:
        text = exp.cast(col, "VARCHAR")
    return text


def canonical(column: str, duckdb_type: str) -> exp.Expr:
    """Like :func:`canonical_value`, with NULL written ``\\N`` so that rows can be joined."""
    return exp.func("coalesce", canonical_value(column, duckdb_type), exp.Literal.string(NULL))


def row_hashes_sql(columns: list[str], types: list[str], source: str) -> str:
    """SELECT sha256(canonical row) AS row_hash FROM ``source`` (a view name)."""
    row = exp.func(
        "concat_ws",
        exp.Literal.string("\x1f"),
        *(canonical(c, t) for c, t in zip(columns, types, strict=True)),
    )
    return (
        exp.select(exp.alias_(exp.func("sha256", row), "row_hash"))
        .from_(exp.to_identifier(source, quoted=True))
        .sql("duckdb")
    )


def exact_value(column: str) -> exp.Expr:
    """One value's exact text, prefixed with its length (``5:12.50``), NULL as ``\\N``."""
    text = exp.cast(exp.column(column, quoted=True), "VARCHAR")
    prefixed = exp.DPipe(
        this=exp.DPipe(
            this=exp.cast(exp.func("length", text), "VARCHAR"), expression=exp.Literal.string(":")
        ),
        expression=text,
    )
    return exp.func("coalesce", prefixed, exp.Literal.string(NULL))


def exact_row_hashes_sql(columns: list[str], source: str) -> str:
    """SELECT sha256(exact row) AS row_hash FROM ``source`` (a view name)."""
    row = (
        exp.func("concat", *(exact_value(c) for c in columns))
        if columns
        else exp.Literal.string("")
    )
    return (
        exp.select(exp.alias_(exp.func("sha256", row), "row_hash"))
        .from_(exp.to_identifier(source, quoted=True))
        .sql("duckdb")
    )


@dataclass(frozen=True)
class TableDigests:
    """A table's two digests: ``content`` to compare engines (12 significant digits),
    ``exact`` to identify the table (every digit, and the column types)."""

    content: str
    exact: str


def table_digests(path: Path) -> TableDigests:
    """Both digests of the Parquet table at ``path`` (a folder of files or one file), in one
    read of it."""
    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(path))
        columns = [c.lower() for c in relation.columns]
        types = [str(t) for t in relation.types]
        relation.create_view("t")
        con.sql(row_hashes_sql(relation.columns, types, "t")).create_view("h")
        [(content,)] = con.execute(AGGREGATE_SQL, ["\x1f".join(columns) + "\n"]).fetchall()
        # The same aggregate over the exact row hashes, which replace the view it reads.
        con.sql(exact_row_hashes_sql(relation.columns, "t")).create_view("h", replace=True)
        header = "\x1f".join(f"{c} {t}" for c, t in zip(relation.columns, types, strict=True))
        [(exact,)] = con.execute(AGGREGATE_SQL, [header + "\n"]).fetchall()
    return TableDigests(content, exact)


def content_digest(path: Path) -> str:
    """Digest of the Parquet table at ``path`` (a folder of files or one file)."""
    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(path))
        columns = [c.lower() for c in relation.columns]
        relation.create_view("t")
        hashes = con.sql(row_hashes_sql(relation.columns, [str(t) for t in relation.types], "t"))
        hashes.create_view("h")
        (digest,) = con.execute(AGGREGATE_SQL, ["\x1f".join(columns) + "\n"]).fetchone()
    return digest
