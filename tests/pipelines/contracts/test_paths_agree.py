"""Every contract gives the same verdicts inside DuckDB as through GX's engines.

Each warehouse table is built on DuckDB from the session's TPC-H lake (scale 0.01), then its
contract's suite is validated three times on the same staged Parquet: ``validate_parquet``
(the one-scan validation, what the asset checks run), ``validate_parquet_gx`` (GX's SQL
execution engine in DuckDB, the path it replaced) and ``validate_arrow`` (GX's pandas
engine). The first two must give the same result, to the last detail; the pandas path must
pass or fail each expectation alike and observe the same values, the observed column types
being each engine's own names for one logical type. ``scores/batch_scores``, which no SQL
builds, is validated on scores made from open_lines.
"""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa

from pipelines.contracts import Masker, compile_contract, load_contract
from pipelines.contracts.scan import validate_parquet
from pipelines.contracts.validate import ContractResult, validate_arrow, validate_parquet_gx
from pipelines.lake.raw import RAW_ZONE
from pipelines.lake.store import Lake
from pipelines.lake.tpch import TPCH_TABLES
from pipelines.translation.store import translate_sources
from pipelines.warehouse.build import WAREHOUSE_ZONE, build_order, warehouse_tables
from pipelines.warehouse.contract_lint import warehouse_sql
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from sql.catalog import load_catalog
from sql.paths import CONTRACTS_ROOT, LEGACY_ROOT

MASKER = Masker(b"paths-agree")

# The generic SQLAlchemy types a reflected DuckDB column type derives from, and the numpy
# kinds of GX's pandas dtypes, as the logical types of compile.TYPE_LISTS. pandas holds
# dates and timestamps alike as datetime64, and validate.py reads decimals as float64.
SQL_KINDS = (
    (sa.Boolean, "boolean"),
    (sa.Integer, "integer"),
    (sa.Numeric, "number"),
    (sa.Float, "number"),
    (sa.String, "string"),
    (sa.DateTime, "datetime"),
    (sa.Date, "datetime"),
)
NUMPY_KINDS = {"b": "boolean", "i": "integer", "u": "integer", "f": "number", "M": "datetime"}


def sql_kind(name: str) -> str:
    kind = getattr(sa, name)
    return next(logical for base, logical in SQL_KINDS if issubclass(kind, base))


def pandas_kind(name: str) -> str:
    import numpy as np

    if name in ("str", "object", "StringDtype", "string"):
        return "string"
    if name in ("Int64Dtype", "Int32Dtype", "Int16Dtype", "Int8Dtype"):
        return "integer"
    if name == "BooleanDtype":
        return "boolean"
    return NUMPY_KINDS[np.dtype(name).kind]


def same(a: object, b: object) -> bool:
    """Equal, floats within a relative 1e-9 (the two engines sum and divide in other orders)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        )
    return a == b


def differences(compiled, on_duckdb: ContractResult, on_pandas: ContractResult) -> list[str]:
    kinds = {info.name: info.kind for info in compiled.expectations}
    found = []
    if [o.name for o in on_duckdb.outcomes] != [o.name for o in on_pandas.outcomes]:
        return ["the two paths report different expectations"]
    for duck, panda in zip(on_duckdb.outcomes, on_pandas.outcomes, strict=True):
        if duck.passed != panda.passed:
            found.append(f"{duck.name}: duckdb passed={duck.passed}, pandas passed={panda.passed}")
        elif kinds[duck.name] == "type" and duck.observed is not None:
            if sql_kind(duck.observed) != pandas_kind(panda.observed):
                found.append(f"{duck.name}: duckdb {duck.observed}, pandas {panda.observed}")
        elif not same(duck.observed, panda.observed):
            found.append(f"{duck.name}: duckdb {duck.observed!r}, pandas {panda.observed!r}")
    return found


@pytest.fixture(scope="module")
def built(raw_lake_root, tmp_path_factory) -> dict[str, Path]:
    """Every warehouse table with a contract, built on DuckDB in dependency order."""
    out_root = tmp_path_factory.mktemp("built")
    lake = Lake(raw_lake_root)
    inputs = {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}
    tables = [
        t
        for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))
        if t.contract_path
    ]
    built: dict[str, Path] = {}
    engine = DuckDBEngine()
    for table in build_order(tables, inputs):
        out = out_root / table.name
        engine.build(
            warehouse_sql(table), {k: inputs[k] for k in table.reads}, out, file=table.name
        )
        inputs[f"{WAREHOUSE_ZONE}.{table.name}"] = out
        built[table.name] = out
    return built


def test_every_contract_agrees_on_both_paths(built, tmp_path):
    contracts = {
        path.stem: path for path in CONTRACTS_ROOT.rglob("*.yaml") if path.parent.name != "tests"
    }
    scores = tmp_path / "batch_scores.parquet"
    with DuckDBEngine().connect({"warehouse.open_lines": built["open_lines"]}) as connection:
        connection.sql(
            "SELECT order_key, line_number, "
            "(hash(order_key, line_number) % 1000) / 999.0 AS late_probability, "
            "(hash(order_key, line_number) % 1000) >= 500 AS predicted_late, "
            "'delivery_delay' AS model_name, 1::BIGINT AS model_version "
            "FROM warehouse__open_lines"
        ).write_parquet(str(scores))
    staged = {**built, "batch_scores": scores}
    assert set(staged) <= set(contracts), sorted(set(staged) - set(contracts))
    checked, found = 0, {}
    for name, path in sorted(staged.items()):
        compiled = compile_contract(load_contract(contracts[name]))
        on_duckdb = validate_parquet(compiled, path, MASKER)
        on_pandas = validate_arrow(compiled, pq.read_table(path), MASKER)
        assert on_duckdb.passed, (name, [o for o in on_duckdb.outcomes if not o.passed])
        assert on_duckdb == validate_parquet_gx(compiled, path, MASKER), name
        if problems := differences(compiled, on_duckdb, on_pandas):
            found[name] = problems
        checked += len(on_duckdb.outcomes)
    assert not found, found
    assert len(staged) >= 39 and checked > 1000
