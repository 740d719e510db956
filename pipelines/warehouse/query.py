"""``plumbline query``: one read-only query over the lake's published tables.

Two locks, each enough for what it guards. The statement must be one ``SELECT`` (``WITH``,
set operations) over ``zone.table`` names: ``COPY``, ``ATTACH``, ``INSTALL``, ``CREATE``,
``SET``, several statements and table functions (``read_csv(...)``) are refused before DuckDB
sees them. And DuckDB runs sandboxed: after the views over the published versions exist,
external access is switched off with only those version folders readable, extensions are
neither installed nor loaded, and the configuration is locked, so that nothing the statement
check misses can read or write another file
(https://duckdb.org/docs/stable/operations_manual/securing_duckdb/overview).

And what it reads is masked as everywhere else values leave the data: each classified column
(``pipelines.warehouse.query_masking``) is read through a view that holds its
``masked:<hex>`` token instead of its value, computed by a function registered under a name
made up for the connection, which the statement check refuses to call.
"""

from __future__ import annotations

import secrets
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

    from pipelines.warehouse.query_masking import QueryMasking

QUERY_FILE = "<query>"
# The masking functions' names begin so (then a random part): no query may call one, which
# would hash a guess with the masking key.
MASK_FUNCTION_PREFIX = "plumbline_mask"


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
    for function in statement.find_all(exp.Func):
        name = function.sql_name() if not isinstance(function, exp.Anonymous) else function.name
        if name.lower().startswith(MASK_FUNCTION_PREFIX):
            raise ReadOnlyQueryError(f"{QUERY_FILE}: {name} is not a function a query may call")
    return statement


def tables_read(sql: str) -> list[str]:
    """The ``zone.table`` names the one query in ``sql`` reads (checked as
    :func:`read_only_statement` checks it); CTEs aside."""
    statement = read_only_statement(sql)
    ctes = {cte.alias_or_name for cte in statement.find_all(exp.CTE)}
    return sorted(
        {
            f"{t.db}.{t.name}" if t.db else t.name
            for t in statement.find_all(exp.Table)
            if t.db or t.name not in ctes
        }
    )


def run_read_only(sql: str, tables: Mapping[str, Path], *, masking: QueryMasking) -> pa.Table:
    """Run ``sql`` (checked by :func:`read_only_statement`) on a sandboxed DuckDB whose only
    readable files are the published versions ``tables`` (``{"zone.table": folder}``), each
    column ``masking`` names read as its token."""
    import duckdb

    from pipelines.warehouse.engines.base import EngineError, bind_views

    read_only_statement(sql)
    try:
        bound = bind_views(sql, "duckdb", tables, file=QUERY_FILE)
    except EngineError as exc:
        raise ReadOnlyQueryError(str(exc).splitlines()[0]) from None
    with sandboxed(tables, masking) as con:
        try:
            return con.sql(bound).to_arrow_table()
        except duckdb.Error as exc:
            raise ReadOnlyQueryError(f"{QUERY_FILE}: duckdb: {str(exc).splitlines()[0]}") from None


@contextmanager
def sandboxed(
    tables: Mapping[str, Path], masking: QueryMasking | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with a view per table of ``tables`` (its columns ``masking``
    names as their tokens), then locked: no file but those version folders can be opened,
    no extension installed or loaded, no setting changed."""
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine

    with DuckDBEngine(extensions=False).connect(tables) as con:
        if masking is not None:
            _mask_views(con, tables, masking)
        folders = sorted(str(Path(folder).resolve()) + "/" for folder in tables.values())
        allowed = exp.Array(expressions=[exp.Literal.string(f) for f in folders])
        # In this order: allowed_directories cannot change once external access is off.
        con.execute(f"SET allowed_directories = {allowed.sql('duckdb')}")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con


def _mask_views(
    con: duckdb.DuckDBPyConnection, tables: Mapping[str, Path], masking: QueryMasking
) -> None:
    """Replace the view of each table with masked columns by one that reads each of them as
    its token: ``masker.token`` of the value as Python reads it, so a value has the token
    it has in check results. One function per column type, under a name no query knows."""
    import pyarrow as pa

    from pipelines.lake.store import parquet_source
    from pipelines.warehouse.engines.base import table_name

    def tokens(values: pa.Array) -> pa.Array:
        return pa.array([masking.masker.token(v) for v in values.to_pylist()], pa.string())

    functions: dict[str, str] = {}
    session = secrets.token_hex(8)
    for key, columns in masking.columns.items():
        if key not in tables or not columns:
            continue
        zone, table = key.split(".", 1)
        source = exp.Table(
            this=exp.Anonymous(
                this="read_parquet",
                expressions=[exp.Literal.string(parquet_source(Path(tables[key])))],
            )
        )
        relation = con.sql(exp.select(exp.Star()).from_(source).sql("duckdb"))
        projections: list[exp.Expr] = []
        for name, kind in zip(relation.columns, relation.types, strict=True):
            column = exp.column(name, quoted=True)
            if name not in columns:
                projections.append(column)
                continue
            if str(kind) not in functions:
                function = f"{MASK_FUNCTION_PREFIX}_{session}_{len(functions)}"
                con.create_function(function, tokens, [kind], "VARCHAR", type="arrow")
                functions[str(kind)] = function
            call = exp.Anonymous(this=functions[str(kind)], expressions=[column])
            projections.append(exp.alias_(call, name, quoted=True))
        view = exp.select(*projections).from_(source)
        con.sql(view.sql("duckdb")).create_view(table_name(zone, table), replace=True)
