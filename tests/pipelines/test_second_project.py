"""A second project that no part of the code knows about, end to end through the commands a
data engineer types: a small retail warehouse (stores, products, sales; not TPC-H) in a real
PostgreSQL server standing in for the legacy warehouse, exported as files the way legacy
exports are, five legacy queries in two dialects (Snowflake, T-SQL), the legacy engine's own
output of each query as snapshots, contracts drafted from the built tables and then edited.

The snapshots are computed by PostgreSQL from its own SQL of each query, not by plumbline:
reconciliation compares two independent engines' answers.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from pipelines.cli.run import SKIPPED
from pipelines.lake.store import Lake
from pipelines.translation.store import read_stored_manifest
from tests.postgres_server import PostgresServer, PostgresUnavailable, postgres_server

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
PASSWORD = "retail-s3cret-pw"
URL_ENV = "RETAIL_DATABASE_URL"

SNOWFLAKE_DDL = """\
CREATE TABLE RETAIL.PUBLIC.STORES (STORE_ID NUMBER(10,0) NOT NULL, CITY VARCHAR(40),
  REGION VARCHAR(20), OPENED DATE);
CREATE TABLE RETAIL.PUBLIC.PRODUCTS (PRODUCT_ID NUMBER(10,0) NOT NULL, NAME VARCHAR(60),
  CATEGORY VARCHAR(20), UNIT_COST NUMBER(10,2));
CREATE TABLE RETAIL.PUBLIC.SALES (SALE_ID NUMBER(18,0) NOT NULL, STORE_ID NUMBER(10,0),
  PRODUCT_ID NUMBER(10,0), SOLD_AT DATE, QUANTITY NUMBER(10,0), UNIT_PRICE NUMBER(10,2));
"""
TSQL_DDL = """\
CREATE TABLE dbo.stores (store_id DECIMAL(10,0) NOT NULL, city NVARCHAR(40),
  region NVARCHAR(20), opened DATE);
CREATE TABLE dbo.products (product_id DECIMAL(10,0) NOT NULL, name NVARCHAR(60),
  category NVARCHAR(20), unit_cost DECIMAL(10,2));
CREATE TABLE dbo.sales (sale_id DECIMAL(18,0) NOT NULL, store_id DECIMAL(10,0),
  product_id DECIMAL(10,0), sold_at DATE, quantity DECIMAL(10,0), unit_price DECIMAL(10,2));
"""
POSTGRES_DDL = """\
CREATE TABLE retail.stores (store_id NUMERIC(10,0) NOT NULL, city VARCHAR(40),
  region VARCHAR(20), opened DATE);
CREATE TABLE retail.products (product_id NUMERIC(10,0) NOT NULL, name VARCHAR(60),
  category VARCHAR(20), unit_cost NUMERIC(10,2));
CREATE TABLE retail.sales (sale_id NUMERIC(18,0) NOT NULL, store_id NUMERIC(10,0),
  product_id NUMERIC(10,0), sold_at DATE, quantity NUMERIC(10,0), unit_price NUMERIC(10,2));
"""

# table -> (dialect, legacy SQL, the same query in PostgreSQL's SQL, key)
QUERIES = {
    "store_revenue": (
        "snowflake",
        """\
-- Revenue and units per store and region.
SELECT st.store_id, st.region, SUM(s.quantity * s.unit_price) AS revenue,
       SUM(s.quantity) AS units
FROM RETAIL.PUBLIC.SALES s
JOIN RETAIL.PUBLIC.STORES st ON st.store_id = s.store_id
GROUP BY st.store_id, st.region
""",
        """SELECT st.store_id, st.region, SUM(s.quantity * s.unit_price) AS revenue,
       SUM(s.quantity) AS units
FROM retail.sales s JOIN retail.stores st ON st.store_id = s.store_id
GROUP BY st.store_id, st.region""",
        ["store_id"],
    ),
    "top_product_per_store": (
        "snowflake",
        """\
SELECT s.store_id, s.product_id, SUM(s.quantity) AS units
FROM RETAIL.PUBLIC.SALES s
GROUP BY s.store_id, s.product_id
QUALIFY ROW_NUMBER() OVER (PARTITION BY s.store_id ORDER BY SUM(s.quantity) DESC, s.product_id) = 1
""",
        """SELECT store_id, product_id, units FROM (
  SELECT s.store_id, s.product_id, SUM(s.quantity) AS units,
         ROW_NUMBER() OVER (PARTITION BY s.store_id ORDER BY SUM(s.quantity) DESC, s.product_id) AS n
  FROM retail.sales s GROUP BY s.store_id, s.product_id) ranked
WHERE n = 1""",
        ["store_id"],
    ),
    "category_margin": (
        "snowflake",
        """\
SELECT p.category,
       SUM(s.quantity * (s.unit_price - p.unit_cost)) AS margin,
       IFF(SUM(s.quantity) > 1000, 'high', 'low') AS volume_band
FROM RETAIL.PUBLIC.SALES s
JOIN RETAIL.PUBLIC.PRODUCTS p ON p.product_id = s.product_id
GROUP BY p.category
""",
        """SELECT p.category, SUM(s.quantity * (s.unit_price - p.unit_cost)) AS margin,
       CASE WHEN SUM(s.quantity) > 1000 THEN 'high' ELSE 'low' END AS volume_band
FROM retail.sales s JOIN retail.products p ON p.product_id = s.product_id
GROUP BY p.category""",
        ["category"],
    ),
    "monthly_sales": (
        "tsql",
        """\
SELECT YEAR(s.sold_at) AS sale_year, MONTH(s.sold_at) AS sale_month,
       COUNT(*) AS sales, SUM(s.quantity * s.unit_price) AS revenue
FROM dbo.sales s
GROUP BY YEAR(s.sold_at), MONTH(s.sold_at)
""",
        """SELECT EXTRACT(YEAR FROM s.sold_at)::int AS sale_year,
       EXTRACT(MONTH FROM s.sold_at)::int AS sale_month,
       COUNT(*) AS sales, SUM(s.quantity * s.unit_price) AS revenue
FROM retail.sales s GROUP BY 1, 2""",
        ["sale_year", "sale_month"],
    ),
    "store_directory": (
        "tsql",
        """\
SELECT st.store_id, UPPER(st.city) AS city, ISNULL(st.region, 'unknown') AS region,
       DATEDIFF(day, st.opened, CAST('2025-01-01' AS DATE)) AS days_open
FROM dbo.stores st
""",
        """SELECT st.store_id, UPPER(st.city) AS city, COALESCE(st.region, 'unknown') AS region,
       DATE '2025-01-01' - st.opened AS days_open
FROM retail.stores st""",
        ["store_id"],
    ),
}
# Reconciled against the legacy database itself (its query run there), not a snapshot.
RECONCILED_IN_DATABASE = ("store_directory",)
CITIES = ["Oslo", "Lima", "Pune", "Kobe", "Accra", "Quito", "Perth", "Turin"]
CATEGORIES = ["tools", "garden", "kitchen", "toys"]


def retail_rows() -> dict[str, list[tuple]]:
    rng = random.Random(7)
    stores = [
        (
            i,
            CITIES[i - 1],
            None if i == 5 else rng.choice(["north", "south"]),
            date(2015, 1, 1) + timedelta(days=rng.randrange(3000)),
        )
        for i in range(1, 9)
    ]
    products = [
        (i, f"product {i}", CATEGORIES[i % 4], Decimal(rng.randrange(100, 5000)) / 100)
        for i in range(1, 41)
    ]
    sales = []
    for i in range(1, 3001):
        product = rng.choice(products)
        sales.append(
            (
                i,
                rng.randrange(1, 9),
                product[0],
                date(2024, 1, 1) + timedelta(days=rng.randrange(366)),
                rng.randrange(1, 12),
                product[3] + Decimal(rng.randrange(0, 2000)) / 100,
            )
        )
    return {"stores": stores, "products": products, "sales": sales}


@pytest.fixture(scope="module")
def legacy_warehouse() -> Iterator[PostgresServer]:
    try:
        with postgres_server(PASSWORD) as server:
            with server.connect() as connection:
                connection.execute("CREATE SCHEMA retail")
                for statement in POSTGRES_DDL.split(";"):
                    if statement.strip():
                        connection.execute(statement)
                for table, rows in retail_rows().items():
                    with (
                        connection.cursor() as cursor,
                        cursor.copy(f"COPY retail.{table} FROM STDIN") as copy,
                    ):
                        for row in rows:
                            copy.write_row(row)
            yield server
    except PostgresUnavailable as unavailable:
        if os.environ.get("PLUMBLINE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL cannot start: {unavailable}")
        pytest.skip(f"PostgreSQL cannot start here: {unavailable}")


def export(server: PostgresServer, query: str, path: Path) -> None:
    """What the legacy warehouse's export tool writes: CSV with a header (COPY ... TO)."""
    with (
        server.connect() as connection,
        connection.cursor() as cursor,
        path.open("wb") as out,
        cursor.copy(f"COPY ({query}) TO STDOUT WITH CSV HEADER") as copy,
    ):
        for chunk in copy:
            out.write(chunk)


def export_parquet(server: PostgresServer, table: str, folder: Path, parts: int) -> None:
    """An export in several Parquet files, as an unload to a stage writes them."""
    with server.connect() as connection:
        rows = connection.execute(f"SELECT * FROM retail.{table} ORDER BY 1").fetchall()
        names = [
            c.name for c in connection.execute(f"SELECT * FROM retail.{table} LIMIT 0").description
        ]
    types = {
        "sale_id": pa.decimal128(18, 0),
        "store_id": pa.decimal128(10, 0),
        "product_id": pa.decimal128(10, 0),
        "sold_at": pa.date32(),
        "quantity": pa.decimal128(10, 0),
        "unit_price": pa.decimal128(10, 2),
    }
    schema = pa.schema([(name, types[name]) for name in names])
    size = len(rows) // parts + 1
    for part in range(parts):
        chunk = rows[part * size : (part + 1) * size]
        columns = list(zip(*chunk, strict=True))
        pq.write_table(
            pa.table(
                [pa.array(c, t.type) for c, t in zip(columns, schema, strict=True)], schema=schema
            ),
            folder / f"part-{part}.parquet",
        )


def status_of(stdout: str, asset: str) -> str:
    """The status the run's summary table gives ``asset``."""
    [status] = re.findall(rf"^{re.escape(asset)} +({re.escape(SKIPPED)}|\S+)", stdout, re.M)
    return status


def plumbline(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "plumbline"), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def project(legacy_warehouse: PostgresServer, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The project as the README's steps make it: init, legacy SQL, sources, catalogs."""
    root = tmp_path_factory.mktemp("retail") / "retail"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env |= {"PLUMBLINE_HOME": str(root / ".plumbline"), URL_ENV: legacy_warehouse.url}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    assert plumbline(root.parent, "init", str(root), env=env).returncode == 0
    for table, (dialect, sql, _, _) in QUERIES.items():
        (root / "legacy" / dialect).mkdir(exist_ok=True)
        (root / "legacy" / dialect / f"{table}.sql").write_text(sql)
    (root / "ddl").mkdir()
    (root / "ddl" / "retail_snowflake.sql").write_text(SNOWFLAKE_DDL)
    (root / "ddl" / "retail_tsql.sql").write_text(TSQL_DDL)
    (root / "sources" / "sales").mkdir()
    export_parquet(legacy_warehouse, "sales", root / "sources" / "sales", parts=3)
    export(legacy_warehouse, "SELECT * FROM retail.products", root / "sources" / "products.csv")
    for table, (_, _, postgres_sql, _) in QUERIES.items():
        if table not in RECONCILED_IN_DATABASE:
            export(legacy_warehouse, postgres_sql, root / "snapshots" / f"{table}.csv")
    defs = root / "retail" / "defs" / "warehouse" / "defs.yaml"
    component = yaml.safe_load(defs.read_text())
    component["attributes"] |= {
        "catalogs": ["catalog_snowflake.yaml", "catalog_tsql.yaml"],
        "sources": {
            "stores": {"database": {"url_env": URL_ENV, "table": "retail.stores"}},
            "products": {
                "files": "sources/products.csv",
                "columns": {"product_id": "DECIMAL(10,0)", "unit_cost": "DECIMAL(10,2)"},
            },
            "sales": {"files": "sources/sales/*.parquet"},
        },
        "reconciliation": {
            "tables": {
                table: {"key": key}
                | (
                    {"database": {"url_env": URL_ENV, "query": postgres_sql}}
                    if table in RECONCILED_IN_DATABASE
                    else {}
                )
                for table, (_, _, postgres_sql, key) in QUERIES.items()
            }
        },
    }
    defs.write_text(yaml.safe_dump(component, sort_keys=False))
    for dialect in ("snowflake", "tsql"):
        done = plumbline(
            root,
            "catalog", "import", "--from-sources", "--from", dialect,
            f"ddl/retail_{dialect}.sql", "-o", f"catalog_{dialect}.yaml",
            env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return root, env


def test_a_second_project_migrates_end_to_end(project, legacy_warehouse):
    root, env = project
    # 1. Built, every translated table reconciled against the legacy engine's own output;
    # no contract yet: a warning on each table, none passed silently.
    first = plumbline(root, "run", env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "checks: 5 passed, 0 failed, 5 warnings" in first.stdout, first.stdout
    for table in QUERIES:
        assert f"WARNING {table}_contract" in first.stdout
    lint = plumbline(root, "contracts", "lint", env=env)
    assert lint.returncode == 1 and "no contract" in lint.stdout + lint.stderr

    # 2. Contracts drafted from the built tables, then reviewed: lint holds, and the next run
    # validates each table against its contract before publishing.
    drafted = plumbline(root, "contracts", "init", "--all", "--contracts", "contracts", env=env)
    assert drafted.returncode == 0, drafted.stderr
    assert sorted(p.stem for p in (root / "contracts").glob("*.yaml")) == sorted(QUERIES)
    assert plumbline(root, "contracts", "lint", env=env).returncode == 1  # still drafts
    for path in (root / "contracts").glob("*.yaml"):
        contract = yaml.safe_load(path.read_text())
        contract["status"] = "active"
        contract["description"] = {"purpose": f"{path.stem}, reviewed by the retail team."}
        for prop in contract["schema"][0]["properties"]:
            prop["description"] = f"{prop['name']} of {path.stem}, as the legacy report shows it."
        path.write_text(yaml.safe_dump(contract, sort_keys=False))
    lint = plumbline(root, "contracts", "lint", env=env)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    second = plumbline(root, "run", env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "checks: 10 passed, 0 failed, 0 warnings" in second.stdout, second.stdout

    # The audit trail without a model: a sealed bundle per table, from the table down to
    # its legacy file and every source it read, that verifies.
    for table in ("store_revenue", "monthly_sales"):
        audited = plumbline(root, "audit", f"warehouse/{table}", env=env)
        assert audited.returncode == 0, audited.stdout + audited.stderr
        [bundle] = (root / ".plumbline" / "audit" / "warehouse" / table).glob("*/*/bundle.json")
        nodes = {n["id"]: n for n in json.loads(bundle.read_text())["nodes"]}
        dialect = QUERIES[table][0]
        assert f"legacy:{root / 'legacy' / dialect / f'{table}.sql'}" in nodes
        assert {n["title"] for n in nodes.values() if n["kind"] == "raw_table"} >= {"raw/sales"}
        verified = plumbline(root, "audit", "--verify", str(bundle), env=env)
        assert verified.returncode == 0, verified.stdout + verified.stderr

    # 3. The legacy warehouse changes: a new data version of raw/stores, and only what reads
    # it is rebuilt; only what it changes gets a new version; the rest is skipped.
    lake = Lake(root / ".plumbline" / "lake")
    before = {t: lake.current("warehouse", t) for t in QUERIES}
    stores_before = lake.current("raw", "stores")
    with legacy_warehouse.connect() as connection:
        connection.execute("UPDATE retail.stores SET city = 'Bergen' WHERE store_id = 1")
    # store_directory is reconciled against the legacy database itself: no export to redo.
    third = plumbline(root, "run", env=env)
    assert third.returncode == 0, third.stdout + third.stderr
    assert lake.current("raw", "stores").digest != stores_before.digest
    after = {t: lake.current("warehouse", t) for t in QUERIES}
    assert [t for t in QUERIES if after[t].path != before[t].path] == ["store_directory"]
    # Reconciled, with the new city, against what the legacy database answers now.
    reconciled = after["store_directory"].manifest["checks"]["store_directory_reconciled"]
    assert reconciled["passed"] and reconciled["reference"].startswith(
        "the legacy database itself (postgresql query sha256:"
    )
    assert reconciled["reference"].endswith(f"via ${URL_ENV})")
    assert {t: status_of(third.stdout, f"warehouse/{t}") for t in QUERIES} == {
        "store_directory": "materialized",  # reads raw/stores, and the city changed
        "store_revenue": "unchanged",  # reads raw/stores, not the city: its version stays
        "top_product_per_store": SKIPPED,
        "category_margin": SKIPPED,
        "monthly_sales": SKIPPED,
    }
    # The bundle issued before still verifies: raw/stores' version it names was kept for it.
    [bundle] = (root / ".plumbline" / "audit" / "warehouse" / "store_revenue").glob(
        "*/*/bundle.json"
    )
    verified = plumbline(root, "audit", "--verify", str(bundle), env=env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert lake.manifest("raw", "stores", stores_before.path.name) is not None

    # 4. The table disappears from the legacy warehouse: one line naming the source, the
    # last good version kept and still whole, nothing downstream of it rebuilt.
    with legacy_warehouse.connect() as connection:
        connection.execute("DROP TABLE retail.stores")
    kept = lake.current("raw", "stores")
    fourth = plumbline(root, "run", env=env)
    assert fourth.returncode == 1
    [failed] = [
        line
        for line in fourth.stdout.splitlines()
        if line.strip().startswith("FAILED") and "raw/stores" in line
    ]
    assert "source raw.stores (postgresql table retail.stores via $RETAIL_DATABASE_URL)" in failed
    assert PASSWORD not in fourth.stdout + fourth.stderr
    assert lake.current("raw", "stores") == kept and lake.verify(kept)
    for line in fourth.stdout.splitlines():
        if line.startswith("warehouse/store_revenue "):
            assert "skipped" in line or "not run" in line

    # 5. Each table's lineage reaches its legacy file: the published version's manifest
    # names its inputs, and the asset's lineage names the legacy file and line.
    for table, (dialect, _, _, _) in QUERIES.items():
        manifest = lake.current("warehouse", table).manifest
        assert set(manifest["inputs"]) <= {"raw.stores", "raw.products", "raw.sales"}
        stored = read_stored_manifest(root / ".plumbline" / "ansi", table)
        assert Path(stored.source_path) == root / "legacy" / dialect / f"{table}.sql"


def test_exports_and_snapshots_are_what_the_legacy_engine_wrote(project):
    root, _ = project
    with (root / "snapshots" / "store_revenue.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 and set(rows[0]) == {"store_id", "region", "revenue", "units"}
    assert len(list((root / "sources" / "sales").glob("*.parquet"))) == 3
