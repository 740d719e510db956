"""Great Expectations' SQL execution engine on DuckDB, through SQLAlchemy and duckdb-engine.

GX 1.x has no DuckDB support of its own. Its ``SqlAlchemyExecutionEngine`` computes every
metric as SQL on the database, so a Parquet table is validated inside DuckDB: nothing is
copied into pandas, and memory does not grow with the rows. Two gaps of GX on DuckDB are
closed here, each in the narrowest place, and nothing else of GX is changed:

- **Results fetched after the connection is released** (GX issues #10738 and #11579,
  https://github.com/great-expectations/great_expectations/issues/10738 and /11579, unfixed
  in GX 1.24). ``SqlAlchemyExecutionEngine.execute_query`` returns the SQLAlchemy result
  after leaving its ``with self.get_connection()`` block; duckdb-engine's cursor is the
  DuckDB connection itself, and releasing it to the pool drops the pending result, so the
  caller's ``fetchall()`` sees no rows and ``resolve_metric_bundle`` raises ``IndexError:
  list index out of range``. :func:`buffer_results` makes one engine fetch inside the block.
- **No regular expressions for the duckdb dialect.** GX raises "Regex is not supported for
  dialect duckdb" for ``expect_column_values_to_match_regex``. :func:`register_regex`
  adds DuckDB's ``regexp_matches``, which, like GX's pandas implementation
  (``str.contains``), is true when the pattern matches anywhere in the value. Other
  dialects keep GX's own expression.

And one cost is cut: GX's fixed cost per validation dominated small tables (issue 34, item 9;
docs/benchmarks.md). :class:`Session` is one GX context, SQL datasource, execution engine and
SQLAlchemy engine per process, reused by every validation in it, and
:func:`declare_columns` hands GX the column types DuckDB already reported for the view
instead of letting duckdb-engine reflect them through its ``pg_catalog`` emulation.
"""

from __future__ import annotations

import atexit
import functools
import logging
import multiprocessing.util
import os
import re
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DIALECT = "duckdb"

# GX warns, on every type expectation, that it has no type module for the dialect and uses
# SQLAlchemy's own types. On DuckDB that is the intent: compile.TYPE_LISTS names
# SQLAlchemy's generic types, which duckdb-engine's reflected column types derive from.
_NO_DIALECT_TYPES = "No sqlalchemy dialect found; relying on top-level sqlalchemy types."


class _NoDialectTypesFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _NO_DIALECT_TYPES


def buffer_results(execution_engine: Any) -> None:
    """Make ``execution_engine`` (a GX ``SqlAlchemyExecutionEngine`` over DuckDB) fetch each
    query's rows while it still holds the connection (GX #10738, #11579).

    The rows come back as a frozen, replayable SQLAlchemy result, which offers everything GX
    reads from one (``fetchall``, ``fetchmany``, ``fetchone``, ``first``, ``scalar``)."""
    if execution_engine.dialect_name != DIALECT:
        raise ValueError(f"buffer_results is for {DIALECT}, not {execution_engine.dialect_name}")

    def execute_query(query: Any) -> Any:
        with execution_engine.get_connection() as connection:
            return connection.execute(query).freeze()()

    execution_engine.execute_query = execute_query


def _quietly_reregister(define: Any) -> None:
    # GX warns that the metric is registered again with another provider: that is the point.
    registry = logging.getLogger("great_expectations.expectations.registry")
    level = registry.level
    registry.setLevel(logging.ERROR)
    try:
        define()
    finally:
        registry.setLevel(level)


@functools.cache
def register_regex() -> None:
    """Give GX's ``column_values.match_regex`` metric an expression for DuckDB (once per
    process): a subclass of GX's metric provider re-registers the metric with its own SQL
    function, which falls back to GX's expression for every other dialect."""
    import sqlalchemy as sa
    from great_expectations.execution_engine import SqlAlchemyExecutionEngine
    from great_expectations.expectations.metrics.column_map_metrics.column_values_match_regex import (
        ColumnValuesMatchRegex,
    )
    from great_expectations.expectations.metrics.map_metric_provider import (
        column_condition_partial,
    )
    from great_expectations.expectations.metrics.util import get_dialect_regex_expression

    def define() -> None:
        # Defining the class registers it: GX's metric providers register on creation.
        class ColumnValuesMatchRegexWithDuckDB(ColumnValuesMatchRegex):
            @column_condition_partial(engine=SqlAlchemyExecutionEngine)
            def _sqlalchemy(cls, column, regex, _dialect, **kwargs):
                if getattr(_dialect, "name", None) == DIALECT:
                    return sa.func.regexp_matches(column, sa.literal(regex))
                expression = get_dialect_regex_expression(column, regex, _dialect)
                if expression is None:
                    name = getattr(getattr(_dialect, "dialect", _dialect), "name", str(_dialect))
                    raise NotImplementedError(f"Regex is not supported for dialect {name}")
                return expression

    _quietly_reregister(define)
    logging.getLogger("great_expectations.expectations.type_comparison").addFilter(
        _NoDialectTypesFilter()
    )


# The SQLAlchemy type duckdb-engine's reflection gives each DuckDB type, by the name DuckDB's
# ``pg_catalog.format_type`` reports it under (reflection's own lookup key in the dialect's
# ``ischema_names``). Only plain scalar types: a view with any other column (timestamps,
# lists, structs...) is left to GX's reflection, whose arguments for those types
# (``timezone=``, nested types) are the dialect's business. test_gx_duckdb.py holds this
# table to duckdb-engine's reflection.
_PG_NAMES = {
    "BIGINT": "int8",
    "BOOLEAN": "bool",
    "DATE": "date",
    "DOUBLE": "float8",
    "FLOAT": "float4",
    "HUGEINT": "hugeint",
    "INTEGER": "int4",
    "SMALLINT": "int2",
    "TINYINT": "tinyint",
    "UBIGINT": "ubigint",
    "UINTEGER": "uinteger",
    "USMALLINT": "usmallint",
    "UTINYINT": "utinyint",
    "VARCHAR": "varchar",
}
_DECIMAL = re.compile(r"DECIMAL\((\d+),(\d+)\)")

# View name -> the column metadata GX's ``table.column_types`` returns for it, while the
# view's validation runs (declare_columns).
_DECLARED: dict[str, list[dict[str, Any]]] = {}


def column_metadata(dialect: Any, described: Sequence[tuple[str, str]]) -> list[dict] | None:
    """What duckdb-engine's reflection (``Inspector.get_columns`` of a view, as GX reads it)
    gives for columns DuckDB describes as ``(name, type)``, or None when a type is not one
    of the plain scalar types mapped here."""
    columns = []
    for name, duckdb_type in described:
        decimal = _DECIMAL.fullmatch(duckdb_type)
        if decimal:
            type_ = dialect.ischema_names["numeric"](int(decimal[1]), int(decimal[2]))
        elif duckdb_type in _PG_NAMES:
            type_ = dialect.ischema_names[_PG_NAMES[duckdb_type]]()
        else:
            return None
        columns.append(
            {
                "name": name,
                "type": type_,
                "nullable": True,  # a view's columns are nullable
                "default": None,
                "autoincrement": False,
                "comment": None,
                "primary_key": False,  # a view has no constraints
            }
        )
    return columns


@contextmanager
def declare_columns(view: str, columns: list[dict] | None) -> Iterator[None]:
    """While the block runs, GX's ``table.column_types`` of ``view`` (on DuckDB) is
    ``columns`` instead of duckdb-engine's reflection (two ``pg_catalog`` queries for the
    primary key, two for the columns: ~0.05 s a validation). ``None`` leaves it to GX."""
    register_column_types()
    if columns is not None:
        _DECLARED[view] = columns
    try:
        yield
    finally:
        _DECLARED.pop(view, None)


@functools.cache
def register_column_types() -> None:
    """Re-register GX's ``table.column_types`` metric for SQL engines (once per process) so
    that a view :func:`declare_columns` declared answers from its declaration; every other
    table, and every other dialect, is reflected as GX does."""
    from great_expectations.execution_engine import SqlAlchemyExecutionEngine
    from great_expectations.expectations.metrics.metric_provider import metric_value
    from great_expectations.expectations.metrics.table_metrics.table_column_types import (
        ColumnTypes,
    )

    def define() -> None:
        class ColumnTypesDeclaredOnDuckDB(ColumnTypes):
            @metric_value(engine=SqlAlchemyExecutionEngine)
            def _sqlalchemy(
                cls,
                execution_engine,
                metric_domain_kwargs,
                metric_value_kwargs,
                metrics,
                runtime_configuration,
            ):
                if execution_engine.dialect_name == DIALECT:
                    batch_id = (
                        metric_domain_kwargs.get("batch_id")
                        or execution_engine.batch_manager.active_batch_data_id
                    )
                    batch_data = execution_engine.batch_manager.batch_data_cache.get(batch_id)
                    declared = _DECLARED.get(getattr(batch_data, "source_table_name", None))
                    if declared is not None:
                        return [dict(column) for column in declared]
                return ColumnTypes._sqlalchemy(
                    cls=cls,
                    execution_engine=execution_engine,
                    metric_domain_kwargs=metric_domain_kwargs,
                    metric_value_kwargs=metric_value_kwargs,
                    metrics=metrics,
                    runtime_configuration=runtime_configuration,
                )

    _quietly_reregister(define)


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class Staged:
    """One validation's view of its Parquet files: GX's batch over it, its name in DuckDB,
    and its columns in order."""

    batch: Any
    view: str
    columns: list[str]


class Session:
    """One GX context, SQL datasource, execution engine and SQLAlchemy engine over one DuckDB
    database in a temporary folder of this process, shared by its validations.

    GX builds each of these in ~0.03-0.07 s, and duckdb-engine opens a DuckDB connection per
    engine; a warehouse run validates 40 tables. Nothing of one validation is seen by the
    next: each gets its own view and GX asset, named afresh (GX keys its metric cache by the
    batch, and the inspector's by the table name), both removed when it ends, whether it
    passed, failed or raised. Validations in one process run one at a time (the lock):
    DuckDB's memory limit is the database's, set for the validation that runs."""

    def __init__(self, memory_limit: str) -> None:
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        self.folder = Path(tempfile.mkdtemp(prefix="plumbline-contracts-"))
        config = {"memory_limit": memory_limit, "temp_directory": str(self.folder / "spill")}
        context = gx.get_context(mode="ephemeral")
        context.variables.progress_bars = ProgressBarsConfig(globally=False)
        self.datasource = context.data_sources.add_sql(
            "contract",
            connection_string=f"duckdb:///{self.folder / 'contracts.duckdb'}",
            kwargs={"connect_args": {"config": config}},
        )
        self.execution_engine = self.datasource.get_execution_engine()
        buffer_results(self.execution_engine)
        self.engine = self.execution_engine.engine
        self.lock = threading.Lock()
        register_regex()
        register_column_types()

    def close(self) -> None:
        self.engine.dispose()
        shutil.rmtree(self.folder, ignore_errors=True)

    @contextmanager
    def staged(self, source: str, memory_limit: str) -> Iterator[Staged]:
        """A view over ``source`` (a ``read_parquet`` path or glob) and a GX batch of it, for
        the duration of the block, with DuckDB held to ``memory_limit`` (spilling to this
        session's folder beyond it)."""
        view = f"staged_{uuid.uuid4().hex}"
        with self.lock:
            try:
                with self.engine.begin() as sql:
                    sql.exec_driver_sql(f"SET memory_limit = {_literal(memory_limit)}")
                    sql.exec_driver_sql(
                        f'CREATE VIEW "{view}" AS SELECT * FROM read_parquet({_literal(source)})'
                    )
                    described = [
                        (row[0], row[1]) for row in sql.exec_driver_sql(f'DESCRIBE "{view}"')
                    ]
                asset = self.datasource.add_table_asset(view, table_name=view)
                try:
                    with declare_columns(view, column_metadata(self.engine.dialect, described)):
                        batch = asset.add_batch_definition_whole_table("whole").get_batch()
                        yield Staged(batch, view, [name for name, _ in described])
                finally:
                    self.datasource.delete_asset(view)
            finally:
                with self.engine.begin() as sql:
                    sql.exec_driver_sql(f'DROP VIEW IF EXISTS "{view}"')


_SESSIONS: dict[int, Session] = {}
_SESSIONS_LOCK = threading.Lock()


def session(memory_limit: str) -> Session:
    """This process's session, made on first use and closed at exit. Keyed by process: a
    DuckDB connection must not cross a fork, so a forked child (or a Dagster step in its
    own process) makes its own. ``memory_limit`` is the first one's; each validation sets
    its own (:meth:`Session.staged`)."""
    with _SESSIONS_LOCK:
        current = _SESSIONS.get(os.getpid())
        if current is None:
            # A parent's session is dropped, not closed: its engine and folder are the
            # parent's.
            _SESSIONS.clear()
            current = _SESSIONS[os.getpid()] = Session(memory_limit)
            # A multiprocessing child (a Dagster step's process) ends in os._exit, which
            # runs multiprocessing's finalizers but not atexit's; any other process, atexit.
            atexit.register(_close, os.getpid())
            multiprocessing.util.Finalize(None, _close, args=(os.getpid(),), exitpriority=0)
        return current


def _close(pid: int) -> None:
    if os.getpid() == pid and pid in _SESSIONS:
        _SESSIONS.pop(pid).close()
