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
"""

from __future__ import annotations

import functools
import logging
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

    # GX warns that the metric is registered again with another provider: that is the point.
    registry = logging.getLogger("great_expectations.expectations.registry")
    level = registry.level
    registry.setLevel(logging.ERROR)
    try:
        define()
    finally:
        registry.setLevel(level)
    logging.getLogger("great_expectations.expectations.type_comparison").addFilter(
        _NoDialectTypesFilter()
    )
