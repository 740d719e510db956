"""One warehouse table built with its blocking checks, without Dagster: a tiny lake on
``tmp_path``, a portable ANSI table, its contract and its reference query on DuckDB."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.store import Lake
from pipelines.warehouse.build import (
    WAREHOUSE_ZONE,
    BlockingCheckFailed,
    InputVersion,
    WarehouseTable,
    build_with_checks,
)
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from sql.catalog import Catalog

SQL = 'SELECT "o_orderkey" AS "order_key",\n  "o_total" * 2 AS "doubled"\nFROM "raw"."orders"'
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:plumbline:contract:doubled_orders
name: doubled_orders
version: 1.0.0
status: active
team:
  name: warehouse-team
schema:
  - name: doubled_orders
    logicalType: object
    properties:
      - name: order_key
        logicalType: integer
        physicalType: BIGINT
        primaryKey: true
      - name: doubled
        logicalType: integer
        physicalType: BIGINT
        required: true
"""


@pytest.fixture
def lake(tmp_path) -> Lake:
    lake = Lake(tmp_path / "lake")
    with lake.stage("raw", "orders") as staging:
        orders = pa.table({"o_orderkey": [1, 2, 3], "o_total": [10, 20, 30]})
        pq.write_table(orders, staging / "part-0.parquet")
        lake.publish("raw", "orders", staging, {})
    return lake


def _table(tmp_path: Path, reference: str) -> WarehouseTable:
    (tmp_path / "doubled_orders.sql").write_text(SQL)
    (tmp_path / "doubled_orders.yaml").write_text(CONTRACT)
    (tmp_path / "reference.sql").write_text(reference)
    return WarehouseTable(
        "doubled_orders",
        ("raw.orders",),
        sql_path=tmp_path / "doubled_orders.sql",
        reference_path=tmp_path / "reference.sql",
        contract_path=tmp_path / "doubled_orders.yaml",
    )


def _build(lake: Lake, table: WarehouseTable, published: PublishedContracts):
    return build_with_checks(
        lake,
        DuckDBEngine(),
        table,
        ansi_root=lake.root / "no-translations",
        catalog=Catalog({"raw.orders": {"o_orderkey": "BIGINT", "o_total": "BIGINT"}}),
        published=published,
        shown=lambda path: path.name,
    )


def test_a_table_that_passes_its_checks_is_published_with_its_lineage(lake, tmp_path):
    table = _table(
        tmp_path, "SELECT o_orderkey AS order_key, o_total + o_total AS doubled FROM raw.orders"
    )
    published = PublishedContracts(tmp_path / "contracts")
    checked = _build(lake, table, published)

    assert lake.current(WAREHOUSE_ZONE, "doubled_orders").path == checked.built.version.path
    assert [(o.name, o.passed) for o in checked.built.checks] == [
        ("doubled_orders_contract", True),
        ("doubled_orders_reconciled", True),
    ]
    assert checked.columns == [("order_key", "int64"), ("doubled", "int64")]
    [pinned] = checked.inputs
    assert pinned == InputVersion("raw/orders", pinned.path.name, pinned.path)
    assert pinned.path == lake.current("raw", "orders").path
    assert [(r.column, r.location, tuple(r.sources)) for r in checked.lineage] == [
        ("order_key", "doubled_orders.sql:1", ("raw/orders.o_orderkey",)),
        ("doubled", "doubled_orders.sql:2", ("raw/orders.o_total",)),
    ]
    # Published under its contract: the baseline a breaking change is judged against.
    assert published.latest("doubled_orders").version == "1.0.0"


def test_a_failed_check_publishes_nothing_and_records_no_contract(lake, tmp_path):
    table = _table(tmp_path, "SELECT o_orderkey AS order_key, o_total AS doubled FROM raw.orders")
    published = PublishedContracts(tmp_path / "contracts")
    with pytest.raises(BlockingCheckFailed) as failed:
        _build(lake, table, published)

    assert {o.name: o.passed for o in failed.value.outcomes} == {
        "doubled_orders_contract": True,
        "doubled_orders_reconciled": False,
    }
    assert lake.current(WAREHOUSE_ZONE, "doubled_orders") is None
    assert published.latest("doubled_orders") is None


def test_a_rebuild_to_the_same_table_keeps_its_version(lake, tmp_path):
    table = _table(
        tmp_path, "SELECT o_orderkey AS order_key, o_total + o_total AS doubled FROM raw.orders"
    )
    published = PublishedContracts(tmp_path / "contracts")
    first = _build(lake, table, published).built
    again = _build(lake, table, published).built
    assert again.kept and not first.kept
    assert again.version.path == first.version.path  # no new folder, one name
    assert again.data_version == first.data_version == first.version.manifest["data_version"]
    versions = lake.root / WAREHOUSE_ZONE / ".versions" / "doubled_orders"
    assert [p.name for p in versions.iterdir() if not p.name.startswith(".")] == [
        first.version.path.name
    ]
    # Other SQL to the same rows is a new version (its manifest names the SQL it was built
    # from), of the same data version.
    (tmp_path / "doubled_orders.sql").write_text(SQL.replace("* 2", '+ "o_total"'))
    other = _build(lake, table, published).built
    assert not other.kept and other.version.path != first.version.path
    assert other.data_version == first.data_version
