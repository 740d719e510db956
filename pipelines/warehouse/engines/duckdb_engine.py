"""DuckDB as an in-process engine over the Parquet lake.

Every call opens its own in-memory database: DuckDB allows one writing process per
database file, and Dagster runs steps in separate processes, so nothing is shared but the
Parquet files themselves. Each is held to the process's memory limit and spills to a folder
of its own beyond it (``pipelines.lake.duckdb_limits``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar, TypeVar

import duckdb
import pyarrow as pa
from sqlglot import exp

from pipelines.lake.duckdb_limits import connection_config
from pipelines.lake.duckdb_types import WIDE_INTEGERS
from pipelines.lake.store import parquet_source
from pipelines.warehouse.engines.base import (
    BuildResult,
    Engine,
    EngineError,
    bind_tables,
    bind_views,
    table_name,
)
from sql.render import Schema

T = TypeVar("T")

# DuckDB sums integers into 128-bit integers (WIDE_INTEGERS), which Parquet cannot hold: written
# as is they become DOUBLE. Spark sums into BIGINT (and fails on overflow in ANSI mode); so does
# this.

# The session time zone decides what a TIMESTAMP WITH TIME ZONE means as a DATE, a TIMESTAMP
# or text; DuckDB takes the machine's zone unless told. Spark's sessions are pinned to UTC
# (spark_engine.SESSION_CONF), so every DuckDB connection that runs SQL is pinned the same.
# Set after connecting: as a connect-time option DuckDB refuses it before ICU has loaded.
SESSION_TIME_ZONE = "UTC"


def connect_duckdb(
    database: str = ":memory:", config: Mapping[str, str | int | bool] | None = None
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection whose session time zone is UTC, as Spark's is, held to the
    process's memory limit and spill folder (unless ``config`` sets its own)."""
    con = duckdb.connect(database, config=connection_config(config))
    con.execute("SET TimeZone = " + exp.Literal.string(SESSION_TIME_ZONE).sql("duckdb"))
    return con


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def portable_relation(relation: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """The relation with 128-bit integer columns as BIGINT; an overflow is an error."""
    types = [str(t) for t in relation.types]
    if not WIDE_INTEGERS.intersection(types):
        return relation
    columns = [
        f"CAST({_quote(c)} AS BIGINT) AS {_quote(c)}" if t in WIDE_INTEGERS else _quote(c)
        for c, t in zip(relation.columns, types, strict=True)
    ]
    return relation.project(", ".join(columns))


class DuckDBEngine(Engine):
    name: ClassVar = "duckdb"

    def __init__(
        self,
        threads: int | None = None,
        memory_limit: str | None = None,
        *,
        extensions: bool = True,
    ) -> None:
        self.config: dict[str, str | int | bool] = {}
        if not extensions:
            # Neither downloaded nor loaded on demand (a sandboxed query's connection).
            self.config["autoinstall_known_extensions"] = False
            self.config["autoload_known_extensions"] = False
        if threads:
            self.config["threads"] = threads
        if memory_limit:
            self.config["memory_limit"] = memory_limit

    def connect(self, inputs: Mapping[str, Path]) -> duckdb.DuckDBPyConnection:
        """A fresh in-memory database with one view per input table."""
        con = connect_duckdb(config=self.config)
        for key, path in inputs.items():
            zone, table = key.split(".", 1)
            con.read_parquet(parquet_source(path)).create_view(table_name(zone, table))
        return con

    def _execute(
        self,
        sql: str,
        inputs: Mapping[str, Path],
        file: str,
        action: Callable[[duckdb.DuckDBPyRelation], T],
    ) -> T:
        with self.connect(inputs) as con:
            try:
                return action(con.sql(sql))
            except duckdb.Error as exc:
                raise EngineError(f"{file}: duckdb: {exc}") from exc

    def _write(
        self,
        inputs: Mapping[str, Path],
        out_dir: Path,
        file: str,
        sql_for: Callable[[duckdb.DuckDBPyConnection], str],
    ) -> tuple[str, float]:
        """Write the result of the SQL ``sql_for`` makes on a connection over ``inputs``;
        returns the SQL and the seconds taken."""
        started = time.perf_counter()
        out_dir.mkdir(parents=True, exist_ok=True)
        with self.connect(inputs) as con:
            sql = sql_for(con)
            try:
                portable_relation(con.sql(sql)).write_parquet(str(out_dir / "part-0.parquet"))
            except duckdb.Error as exc:
                raise EngineError(f"{file}: duckdb: {exc}") from exc
        return sql, time.perf_counter() - started

    @staticmethod
    def view_schema(con: duckdb.DuckDBPyConnection, inputs: Mapping[str, Path]) -> Schema:
        """{zone: {table: {column: DuckDB type}}} of the views :meth:`connect` made."""
        schema: dict[str, dict[str, dict[str, str]]] = {}
        for key in inputs:
            zone, table = key.split(".", 1)
            view = con.view(table_name(zone, table))
            schema.setdefault(zone, {})[table] = {
                column: str(kind) for column, kind in zip(view.columns, view.types, strict=True)
            }
        return schema

    def build(
        self, ansi_sql: str, inputs: Mapping[str, Path], out_dir: Path, *, file: str
    ) -> BuildResult:
        """Render with the inputs' column types (so typed patterns take DuckDB's native
        exact forms) and write the result."""

        def render(con: duckdb.DuckDBPyConnection) -> str:
            schema = self.view_schema(con, inputs)
            return bind_tables(ansi_sql, "duckdb", inputs, file=file, schema=schema)

        sql, seconds = self._write(inputs, out_dir, file, render)
        return BuildResult("duckdb", sql, seconds)

    def query_duckdb(
        self, duckdb_sql: str, inputs: Mapping[str, Path], *, file: str = "<query>"
    ) -> pa.Table:
        """Run SQL written for DuckDB itself (a reference query, `plumbline query`)."""
        sql = bind_views(duckdb_sql, "duckdb", inputs, file=file)
        return self._execute(sql, inputs, file, lambda relation: relation.to_arrow_table())

    def build_duckdb(
        self, duckdb_sql: str, inputs: Mapping[str, Path], out_dir: Path, *, file: str
    ) -> float:
        """Write the result of SQL written for DuckDB itself; returns seconds (benchmarks
        compare this with :meth:`build` on the translated SQL)."""
        sql = bind_views(duckdb_sql, "duckdb", inputs, file=file)
        return self._write(inputs, out_dir, file, lambda _: sql)[1]
