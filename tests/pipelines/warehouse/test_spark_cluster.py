"""The same warehouse tables on a real Spark standalone cluster and through a Spark Connect
server as on DuckDB: same columns (names and types, in order), same rows (content digest).

Both servers are started from pyspark's own distribution on 127.0.0.1, once for the module
(``tests/spark_cluster.py``). A driver process of its own translates each legacy table and
builds it with ``build_table`` and its blocking reconciliation check on
``SparkEngine(master)``, over a TPC-H lake at scale 0.01: what a Dagster step does with
``PLUMBLINE_SPARK_MASTER`` set.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.lake.raw import publish_tpch_table
from pipelines.lake.store import Lake
from pipelines.warehouse.build import WAREHOUSE_ZONE, build_table
from pipelines.warehouse.engines.digest import content_digest
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from pipelines.warehouse.portability import Schema, output_schema
from sql.catalog import load_catalog
from tests.spark_cluster import (
    ConnectServer,
    DriverReport,
    DriverRequest,
    StandaloneCluster,
    connect_server,
    legacy_tables,
    missing_connect,
    missing_java,
    run_driver,
    spark_environment,
    standalone_cluster,
)

pytestmark = pytest.mark.slow

SCALE = 0.01
TABLES = (
    "top_orders_per_customer",  # bigquery: a three-way join, GROUP BY, ROW_NUMBER, QUALIFY
    "revenue_by_nation_year",  # redshift: a five-way join, COUNT(DISTINCT), SUM() OVER a SUM
    "supplier_scorecard",  # snowflake: LEFT JOIN, RANK over an aggregate, QUALIFY
)
# What the engine must set on every session itself, whatever the server's defaults: UTC (a
# timestamp literal means the same instant as on DuckDB) and ANSI mode (a malformed cast fails).
QUERIES = {
    "noon_utc": (
        "SELECT CAST('2024-01-01 12:00:00' AS TIMESTAMP) AS \"noon\", "
        '"r"."r_name" AS "region" FROM "raw"."region" AS "r"'
    ),
    "malformed_cast": 'SELECT CAST(\'abc\' AS INTEGER) AS "x" FROM "raw"."region"',
}
# A Connect server whose defaults are not what the engine needs: a build session starts from
# them (it inherits nothing from the client's first session).
CONNECT_SERVER_DEFAULTS = {
    "spark.sql.session.timeZone": "America/Los_Angeles",
    "spark.sql.ansi.enabled": "false",
}


@dataclass(frozen=True)
class Built:
    digest: str
    schema: Schema


@pytest.fixture(scope="module")
def java() -> None:
    reason = missing_java()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """The raw TPC-H tables the legacy tables read, generated into a lake of the module's."""
    lake = Lake(tmp_path_factory.mktemp("lake"))
    reads = {key for table in legacy_tables(TABLES, load_catalog()) for key in table.reads}
    for key in sorted(reads):
        zone, table = key.split(".", 1)
        assert zone == "raw", key
        publish_tpch_table(lake, table, SCALE)
    return lake


@pytest.fixture(scope="module")
def on_duckdb(lake: Lake) -> dict[str, Built]:
    """Each table as DuckDB builds it, published first."""
    catalog = load_catalog()
    built = {}
    for table in legacy_tables(TABLES, catalog):
        assert table.ansi_sql is not None, f"{table.source_file} was refused"
        result = build_table(lake, DuckDBEngine(threads=1), table, table.ansi_sql, catalog=catalog)
        built[table.name] = Built(result.content_digest, output_schema(result.version.path))
    return built


@pytest.fixture(scope="module")
def cluster(java, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    with standalone_cluster(tmp_path_factory.mktemp("standalone")) as cluster:
        yield cluster
    assert not [d.name for d in cluster.daemons if d.running], "left running after teardown"


@pytest.fixture(scope="module")
def connect(java, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectServer]:
    reason = missing_connect()
    if reason:
        pytest.skip(reason)
    with connect_server(tmp_path_factory.mktemp("connect"), CONNECT_SERVER_DEFAULTS) as server:
        yield server
    assert not server.daemon.running, "the Spark Connect server was left running after teardown"


def build_through(
    master: str, lake: Lake, work: Path, conf: dict[str, str] | None = None
) -> DriverReport:
    request = DriverRequest(
        master=master,
        lake_root=str(lake.root),
        tables=TABLES,
        report_path=str(work / "report.json"),
        queries=QUERIES,
        out_root=str(work / "out"),
        conf=conf or {},
    )
    return run_driver(request, spark_environment(work), work / "driver.log")


def assert_same_as_duckdb(report: DriverReport, lake: Lake, on_duckdb: dict[str, Built]) -> None:
    for name, expected in on_duckdb.items():
        version = lake.current(WAREHOUSE_ZONE, name)
        assert version is not None and version.path.name == report.versions[name], name
        assert version.manifest["engine"] == "spark"
        assert version.manifest["checks"][f"{name}_reconciled"]["passed"], name
        assert output_schema(version.path) == expected.schema, name
        assert version.manifest["content_digest"] == expected.digest, name


def assert_session_settings_hold(report: DriverReport, lake: Lake, work: Path) -> None:
    raw = {key: path for key, path in lake.published().items() if key.startswith("raw.")}
    DuckDBEngine(threads=1).build(QUERIES["noon_utc"], raw, work / "noon_utc", file="noon_utc.sql")
    assert content_digest(work / "out" / "noon_utc") == content_digest(work / "noon_utc")
    assert set(report.errors) == {"malformed_cast"}
    # Spark's message, down to the line it quotes, and no stack trace after it.
    message = report.errors["malformed_cast"]
    assert message.startswith("malformed_cast.sql: spark: [CAST_INVALID_INPUT]")
    assert message.splitlines()[-2:] == ["  CAST('abc' AS INT) AS `x`", "  " + "^" * 18]


def test_a_standalone_cluster_builds_the_tables_duckdb_builds(cluster, lake, on_duckdb, tmp_path):
    report = build_through(cluster.master_url, lake, tmp_path, cluster.driver_conf())

    # On the cluster, not in local mode: the driver's master is the cluster's, the master
    # granted the application the worker's core, and the worker's executor ran the tasks.
    assert (report.master, report.connect_client) == (cluster.master_url, False)
    status = cluster.status()
    assert status["aliveworkers"] == 1
    applications = status["activeapps"] + status["completedapps"]
    (application,) = [a for a in applications if a["id"] == report.application_id]
    assert (application["name"], application["cores"]) == ("plumbline", 1)
    logs = cluster.executor_logs(report.application_id)
    finished = sum(log.read_text().count("Finished task") for log in logs)
    assert len(logs) == 1 and finished >= len(TABLES), logs
    assert cluster.listening_addresses() == {"127.0.0.1"}

    assert_same_as_duckdb(report, lake, on_duckdb)
    assert_session_settings_hold(report, lake, tmp_path)


def test_spark_connect_builds_the_tables_duckdb_builds(connect, lake, on_duckdb, tmp_path):
    report = build_through(connect.url, lake, tmp_path)

    assert (report.master, report.connect_client) == (connect.master, True)
    assert connect.daemon.listening_addresses() == {"127.0.0.1"}

    assert_same_as_duckdb(report, lake, on_duckdb)
    # Despite the server's defaults (America/Los_Angeles, ANSI mode off).
    assert_session_settings_hold(report, lake, tmp_path)
