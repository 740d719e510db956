"""Star forms keep the source dialect's columns, in its order: translate with a catalog
imported from the lake, build on DuckDB, and compare names, order and rows with a
hand-written DuckDB query over the same Parquet."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.lake.catalog import import_lake
from pipelines.lake.store import Lake
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from sql.catalog import Catalog, load_catalog
from sql.catalog_import import catalog_yaml
from sql.translate import translate

LEGACY_NAMES = {
    "bigquery": {"sales.nation": "raw.nation", "sales.region": "raw.region"},
    "snowflake": {"SALES.NATION": "raw.nation", "SALES.REGION": "raw.region"},
    "tsql": {"dbo.Nation": "raw.nation", "dbo.Region": "raw.region"},
}
NATION = "n_nationkey, n_name, n_regionkey, n_comment"
JOIN = "raw.nation AS n JOIN raw.region AS r ON n.n_regionkey = r.r_regionkey"

CASES = [
    ("snowflake", "SELECT * FROM SALES.NATION", f"SELECT {NATION} FROM raw.nation"),
    (
        "bigquery",
        "SELECT * EXCEPT (n_comment) FROM sales.nation",
        "SELECT n_nationkey, n_name, n_regionkey FROM raw.nation",
    ),
    (
        "snowflake",
        "SELECT * EXCLUDE (n_comment, n_name) FROM SALES.NATION",
        "SELECT n_nationkey, n_regionkey FROM raw.nation",
    ),
    (
        "bigquery",
        "SELECT * REPLACE (UPPER(n_name) AS n_name) FROM sales.nation",
        "SELECT n_nationkey, upper(n_name) AS n_name, n_regionkey, n_comment FROM raw.nation",
    ),
    (
        "snowflake",
        "SELECT * REPLACE (n_regionkey + 1 AS n_regionkey) FROM SALES.NATION",
        "SELECT n_nationkey, n_name, n_regionkey + 1 AS n_regionkey, n_comment FROM raw.nation",
    ),
    (
        "snowflake",
        "SELECT n.*, r.r_name FROM SALES.NATION n JOIN SALES.REGION r ON n.n_regionkey = r.r_regionkey",
        f"SELECT n.n_nationkey, n.n_name, n.n_regionkey, n.n_comment, r.r_name FROM {JOIN}",
    ),
    (
        "tsql",
        "SELECT * FROM dbo.Nation n JOIN dbo.Region r ON n.n_regionkey = r.r_regionkey",
        "SELECT n.n_nationkey, n.n_name, n.n_regionkey, n.n_comment, r.r_regionkey, r.r_name, "
        f"r.r_comment FROM {JOIN}",
    ),
    (
        "snowflake",
        "SELECT r.*, n.n_name FROM SALES.NATION n JOIN SALES.REGION r ON n.n_regionkey = r.r_regionkey",
        f"SELECT r.r_regionkey, r.r_name, r.r_comment, n.n_name FROM {JOIN}",
    ),
    (
        "snowflake",
        "WITH big AS (SELECT * FROM SALES.NATION WHERE n_regionkey > 1) SELECT b.* FROM big b",
        f"SELECT {NATION} FROM raw.nation WHERE n_regionkey > 1",
    ),
    (
        "bigquery",
        "WITH r AS (SELECT * REPLACE (LOWER(r_name) AS r_name) FROM sales.region) "
        "SELECT n.n_name, r.* FROM sales.nation n JOIN r ON n.n_regionkey = r.r_regionkey",
        f"SELECT n.n_name, r.r_regionkey, lower(r.r_name) AS r_name, r.r_comment FROM {JOIN}",
    ),
    (
        "bigquery",
        "SELECT * EXCEPT (r_comment, n_comment) FROM sales.nation "
        "JOIN sales.region ON n_regionkey = r_regionkey",
        f"SELECT n.n_nationkey, n.n_name, n.n_regionkey, r.r_regionkey, r.r_name FROM {JOIN}",
    ),
]


@pytest.fixture(scope="module")
def lake_catalog(raw_lake_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The catalog `plumbline catalog import --from-lake` writes for the TPC-H lake, with
    the legacy names these queries use, read back through the catalog loader."""
    imported = import_lake(raw_lake_root)
    path = tmp_path_factory.mktemp("catalog") / "lake.yaml"
    path.write_text(
        catalog_yaml(imported.tables, opaque=imported.opaque, legacy=LEGACY_NAMES, source="a test")
    )
    return load_catalog(path)


@pytest.mark.parametrize(("dialect", "legacy_sql", "reference_sql"), CASES)
def test_star_forms_keep_column_names_and_order(
    dialect, legacy_sql, reference_sql, lake_catalog, raw_lake_root, tmp_path
):
    translation = translate(legacy_sql, dialect, catalog=lake_catalog)
    published = Lake(raw_lake_root).published()
    inputs = {table: published[table] for table in translation.source_tables}
    engine = DuckDBEngine(threads=1)
    engine.build(translation.ansi_sql, inputs, tmp_path / "out", file="<star>")
    built = pq.read_table(tmp_path / "out" / "part-0.parquet")
    expected = engine.query_duckdb(reference_sql, inputs)
    assert built.column_names == expected.column_names == list(translation.columns)
    assert sorted(built.to_pylist(), key=repr) == sorted(expected.to_pylist(), key=repr)
