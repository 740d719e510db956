"""``plumbline query``: one read-only query over the lake's published tables.

Two locks, each enough for what it guards. The statement must be one ``SELECT`` (``WITH``,
set operations) over ``zone.table`` names: ``COPY``, ``ATTACH``, ``INSTALL``, ``CREATE``,
``SET``, several statements and table functions (``read_csv(...)``) are refused before DuckDB
sees them. And DuckDB runs sandboxed: after the views over the published versions exist,
external access is switched off with only those version folders readable, extensions are
neither installed nor loaded, and the configuration is locked, so that nothing the statement
check misses can read or write another file
(https://duckdb.org/docs/stable/operations_manual/securing_duckdb/overview).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

if TYPE_CHECKING:
    import duckdb

QUERY_FILE = "<query>"


class ReadOnlyQueryError(ValueError):
    """A query ``plumbline query`` refuses, or one DuckDB failed to run; one line."""


def read_only_statement(sql: str) -> exp.Query:
    """The one query ``sql`` holds, or ``ReadOnlyQueryError`` saying why it is refused."""
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        where = f"line {first.get('line', '?')}, column {first.get('col', '?')}: "
        message = first.get("description") or str(exc).splitlines()[0]
        raise ReadOnlyQueryError(f"{QUERY_FILE}: {where}{message}") from None
    except TokenError as exc:  # an unclosed string or comment: nothing to parse
        raise ReadOnlyQueryError(f"{QUERY_FILE}: cannot read the text: {exc}") from None
    if len(statements) != 1:
        raise ReadOnlyQueryError(
            f"{QUERY_FILE}: {len(statements)} statements; plumbline query runs exactly one SELECT"
        )
    [statement] = statements
    if not isinstance(statement, exp.Query):
        kind = statement.key.upper() if isinstance(statement, exp.Expr) else "statement"
        raise ReadOnlyQueryError(
            f"{QUERY_FILE}: {kind} is not a query; plumbline query only reads (SELECT or WITH)"
        )
    for table in statement.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise ReadOnlyQueryError(
                f"{QUERY_FILE}: {table.this.sql('duckdb')} reads outside the lake; "
                "plumbline query reads only published tables, named zone.table"
            )
    return statement


def run_read_only(sql: str, tables: Mapping[str, Path]) -> pa.Table:
    """Run ``sql`` (checked by :func:`read_only_statement`) on a sandboxed DuckDB whose only
    readable files are the published versions ``tables`` (``{"zone.table": folder}``)."""
    import duckdb

    from pipelines.warehouse.engines.base import EngineError, bind_views

    read_only_statement(sql)
    try:
        bound = bind_views(sql, "duckdb", tables, file=QUERY_FILE)
    except EngineError as exc:
        raise ReadOnlyQueryError(str(exc).splitlines()[0]) from None
    with sandboxed(tables) as con:
        try:
            return con.sql(bound).to_arrow_table()
        except duckdb.Error as exc:
            raise ReadOnlyQueryError(f"{QUERY_FILE}: duckdb: {str(exc).splitlines()[0]}") from None


@contextmanager
def sandboxed(tables: Mapping[str, Path]) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with a view per table of ``tables``, then locked: no file but
    those version folders can be opened, no extension installed or loaded, no setting
    changed."""
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine

    with DuckDBEngine(extensions=False).connect(tables) as con:
        folders = sorted(str(Path(folder).resolve()) + "/" for folder in tables.values())
        allowed = exp.Array(expressions=[exp.Literal.string(f) for f in folders])
        # In this order: allowed_directories cannot change once external access is off.
        con.execute(f"SET allowed_directories = {allowed.sql('duckdb')}")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con
