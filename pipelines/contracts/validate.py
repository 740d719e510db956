"""Run a compiled contract on data through Great Expectations, on the engine that holds it.

- ``validate_spark``: a Spark DataFrame, through GX's Spark engine (what a Spark build's
  contract check runs).
- ``validate_arrow``: an in-memory Arrow table, through GX's pandas engine.
- ``validate_parquet_gx``: Parquet files inside DuckDB through GX's SQL execution engine
  (gx_duckdb.py). The contract checks of DuckDB builds take scan.py's ``validate_parquet``
  instead, which gives its verdicts in one aggregate query without importing GX; this one
  stays as the reference scan.py is held to (tests/pipelines/contracts/test_scan.py) and
  the benchmark's baseline.

ODCS ``sql`` rules run on the engine that holds the data too (DuckDB, or Spark SQL), see
compile.py. The paths give the same verdicts and observed values for one table
(tests/pipelines/contracts/test_paths_agree.py), except that a type's observed value is the
engine's own name for it (``BigInteger``, ``LongType``, ``int64``).
"""

from __future__ import annotations

import functools
import uuid
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelines.contracts.compile import CompiledContract, SqlCheck
from pipelines.contracts.masking import Masker, TableMasking
from pipelines.contracts.results import (
    MAX_FAILING_ROWS,
    ContractResult,
    ExpectationOutcome,
    contract_result,
    describe,
    failing_row_matches,
    sql_outcomes,
)

# GX, pandas, Arrow and DuckDB are imported where data is validated: they take seconds to
# import, and the Dagster code location imports this module to load, where nothing is.
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from pyspark.sql import DataFrame


@functools.cache
def _pandas_types() -> dict[pa.DataType, pd.api.extensions.ExtensionDtype]:
    """Arrow -> pandas with nullable extension dtypes: numpy ints and bools cannot hold NULL,
    and pandas would otherwise silently turn an integer column with a NULL into float64,
    which the contract's type check would then (rightly) reject."""
    import pandas as pd
    import pyarrow as pa

    return {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
        pa.string(): pd.StringDtype(),
        pa.large_string(): pd.StringDtype(),
        pa.string_view(): pd.StringDtype(),  # tpchgen-cli writes string_view
    }


def _context():
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _exception_message(info: Any) -> str | None:
    """The first exception GX caught while computing an expectation, if any.

    GX 1.x reports either one ``{"raised_exception": ...}`` record or a mapping of metric
    id -> such a record (when a metric, e.g. of a missing column, could not be computed).
    """
    if not isinstance(info, Mapping) or not info:
        return None
    records = [info] if "raised_exception" in info else list(info.values())
    for record in records:
        if isinstance(record, Mapping) and record.get("raised_exception"):
            message = str(record.get("exception_message") or "unknown error").strip()
            return message.splitlines()[0] if message else "unknown error"
    return None


def _gx_outcomes(
    compiled: CompiledContract, results: Iterable[Any], masking: TableMasking
) -> tuple[list[ExpectationOutcome], list[tuple[str | None, Mapping[str, Any]]]]:
    """Outcomes in the compiled order, and the raw results of failed expectations, from GX's
    expectation validation results (a later result for a name replaces an earlier one)."""
    by_name: dict[str, Any] = {}
    for result in results:
        by_name[result.expectation_config.meta["name"]] = result
    outcomes, failed = [], []
    for info in compiled.expectations:
        if info.kind == "sql":
            continue
        result = by_name[info.name]
        error = _exception_message(result.exception_info)
        if error is not None:
            outcomes.append(
                ExpectationOutcome(info.name, info.column, False, None, f"error: {error}")
            )
            continue
        observed, details = describe(result.result or {}, info.column, masking)
        outcomes.append(
            ExpectationOutcome(info.name, info.column, result.success, observed, details)
        )
        if not result.success:
            failed.append((info.column, result.result or {}))
    return outcomes, failed


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    # GX's pandas type and range checks cannot see a Decimal inside an object column, so
    # decimals are compared as float64; bounds in a contract are plain numbers anyway.
    import pyarrow as pa

    columns = [
        column.cast(pa.float64()) if pa.types.is_decimal(column.type) else column
        for column in table.columns
    ]
    table = pa.Table.from_arrays(columns, names=table.column_names)
    return table.to_pandas(types_mapper=_pandas_types().get, date_as_object=False)


def validate_arrow(
    compiled: CompiledContract, table: pa.Table, masker: Masker | None = None
) -> ContractResult:
    """Validate an Arrow table (e.g. DuckDB's result) through GX's pandas datasource.

    ``masker`` masks the values of restricted columns; without one, a value that would have
    to be masked fails the validation (``MaskingKeyError``) rather than being shown."""
    masking = TableMasking.of(compiled.contract, masker)
    frame = _to_pandas(table)
    context = _context()
    batch = (
        context.data_sources.add_pandas("contract")
        .add_dataframe_asset(compiled.contract.table)
        .add_batch_definition_whole_dataframe("whole")
        .get_batch(batch_parameters={"dataframe": frame})
    )
    with warnings.catch_warnings():
        # pandas warns that a contract pattern with groups could use str.extract; GX only
        # asks whether it matches.
        warnings.filterwarnings("ignore", "This pattern is interpreted as a regular expression")
        validation = batch.validate(
            compiled.suite,
            # SUMMARY, not COMPLETE: COMPLETE lists every unexpected value and row index,
            # which on a badly broken million-row table costs more than the validation.
            result_format={
                "result_format": "SUMMARY",
                "partial_unexpected_count": MAX_FAILING_ROWS,
            },
        )
    outcomes, failed = _gx_outcomes(compiled, validation.results, masking)
    positions: list[int] = []
    for _, result in failed:
        for position in result.get("partial_unexpected_index_list") or ():
            if isinstance(position, int) and position not in positions:
                positions.append(position)
    positions = sorted(positions)[:MAX_FAILING_ROWS]
    rows = frame.iloc[positions].to_dict(orient="records") if positions else []

    def run(check: SqlCheck) -> object:
        import duckdb

        name = f"contract_{uuid.uuid4().hex}"
        with duckdb.connect() as connection:
            connection.register(name, table)
            return connection.execute(check.render("duckdb", name)).fetchone()[0]

    outcomes += sql_outcomes(compiled, run, masking)
    return contract_result(compiled, outcomes, rows, masking)


# DuckDB's memory for one validation: aggregates and uniqueness checks spill to the
# validation's own temporary folder beyond it, so memory does not grow with the table.
# Measured at TPC-H scale 1 (docs/benchmarks.md): on delay_features, 256 MB holds the
# validation's peak RSS growth to 360 MB (1 GB: 650 MB) in the same time.
VALIDATION_MEMORY_LIMIT = "256MB"


def _summary_format(key: list[str], columns: Iterable[str]) -> dict[str, Any]:
    """GX's SUMMARY with up to MAX_FAILING_ROWS unexpected values, and the primary key of
    their rows where the table has every key column."""
    result_format: dict[str, Any] = {
        "result_format": "SUMMARY",
        "partial_unexpected_count": MAX_FAILING_ROWS,
    }
    if key and set(key) <= set(columns):
        result_format["unexpected_index_column_names"] = key
    return result_format


def validate_parquet_gx(
    compiled: CompiledContract,
    path: Path,
    masker: Masker | None = None,
    *,
    memory_limit: str = VALIDATION_MEMORY_LIMIT,
) -> ContractResult:
    """Validate a Parquet file, or every Parquet file under a folder, inside DuckDB through
    GX (scan.validate_parquet gives the same result in one aggregate query, without GX).

    GX's SQL execution engine runs the compiled suite as queries on DuckDB (through
    SQLAlchemy and duckdb-engine; gx_duckdb.py closes GX's gaps there) over a view of the
    files: no row is copied into Python. The ODCS ``sql`` rules and the failing-row sample
    (one ``LIMIT 20`` query) run on the same database. The GX context, datasource and
    engine are this process's, shared by its validations (``gx_duckdb.Session``), the view
    and its GX asset this validation's own.
    """
    import sqlalchemy as sa

    from pipelines.contracts.gx_duckdb import session
    from pipelines.lake.store import parquet_source

    if not path.exists():
        raise FileNotFoundError(f"{path}: no such Parquet file or folder")
    masking = TableMasking.of(compiled.contract, masker)
    current = session(memory_limit)
    with current.staged(parquet_source(path), memory_limit) as staged:
        batch, columns = staged.batch, staged.columns
        # Two passes. The whole suite with counts only: in SUMMARY, GX adds per map
        # expectation a query for unexpected values and one for their keys, which scan the
        # whole column when nothing is unexpected. Then each failed expectation again, with
        # up to 20 unexpected values and the primary keys of their rows.
        results = list(
            batch.validate(
                compiled.suite,
                result_format={"result_format": "BASIC", "partial_unexpected_count": 0},
            ).results
        )
        key = list(compiled.contract.primary_key)
        result_format = _summary_format(key, columns)
        failed_first = {r.expectation_config.meta["name"] for r in results if not r.success}
        for expectation in compiled.suite.expectations:
            if expectation.meta["name"] in failed_first:
                results.append(batch.validate(expectation, result_format=result_format))
        outcomes, failed = _gx_outcomes(compiled, results, masking)
        rows: list[dict] = []
        if failed:
            table = sa.table(staged.view, *(sa.column(name) for name in columns))
            with current.engine.connect() as sql:
                statement = _failing_rows_query(table, failed, key, columns)
                rows = [dict(row) for row in sql.execute(statement).mappings()]

        def run(check: SqlCheck) -> object:
            with current.engine.connect() as sql:
                return sql.exec_driver_sql(check.render("duckdb", staged.view)).scalar()

        outcomes += sql_outcomes(compiled, run, masking)
    return contract_result(compiled, outcomes, rows, masking)


def _failing_rows_query(
    staged: Any,
    failed: list[tuple[str | None, Mapping[str, Any]]],
    key: list[str],
    columns: list[str],
) -> Any:
    """One query for up to MAX_FAILING_ROWS whole rows that violate the failed expectations:
    the rows GX named by primary key, or else those holding an unexpected value (or
    combination of values, for a compound key). In file order, since DuckDB keeps insertion
    order, as the pandas path's positions are."""
    import sqlalchemy as sa

    def equals(name: str, value: object) -> Any:
        column = staged.c[name]
        return column.is_(None) if value is None else column == value

    conditions = [
        sa.and_(*(equals(name, value) for name, value in match.items()))
        for match in failing_row_matches(failed, key, columns)
    ]
    return sa.select(staged).where(sa.or_(sa.false(), *conditions)).limit(MAX_FAILING_ROWS)


def validate_spark(
    compiled: CompiledContract, frame: DataFrame, masker: Masker | None = None
) -> ContractResult:
    """Validate a Spark DataFrame through GX's Spark datasource.

    Spark rows have no stable position, so failing rows are identified by the contract's
    primary key: each holds the key columns and the offending value (without a primary
    key, the offending value alone).
    """
    masking = TableMasking.of(compiled.contract, masker)
    context = _context()
    batch = (
        context.data_sources.add_spark("contract")
        .add_dataframe_asset(compiled.contract.table)
        .add_batch_definition_whole_dataframe("whole")
        .get_batch(batch_parameters={"dataframe": frame})
    )
    result_format = _summary_format(list(compiled.contract.primary_key), frame.columns)
    validation = batch.validate(compiled.suite, result_format=result_format)
    outcomes, failed = _gx_outcomes(compiled, validation.results, masking)
    rows: list[dict] = []
    for column, result in failed:
        entries = result.get("partial_unexpected_index_list")
        if entries is None and column is not None:
            entries = [{column: value} for value in result.get("partial_unexpected_list") or ()]
        for entry in entries or ():
            if isinstance(entry, dict) and entry not in rows:
                rows.append(entry)

    session = frame.sparkSession

    def run(check: SqlCheck) -> object:
        name = f"contract_{uuid.uuid4().hex}"
        frame.createOrReplaceTempView(name)
        try:
            return session.sql(check.render("spark", name)).collect()[0][0]
        finally:
            session.catalog.dropTempView(name)

    outcomes += sql_outcomes(compiled, run, masking)
    return contract_result(compiled, outcomes, rows, masking)
