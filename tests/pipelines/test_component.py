"""plumbline.MigrationComponent: the TPC-H demo is one instance of it, a new project from
`plumbline init` passes dg's checks, and a project of someone else's (its own sources,
snapshots, no contracts yet, no model) becomes raw -> ansi -> warehouse assets with the
checks that say what guards each table."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
import yaml

from pipelines.cli.init import init_project
from pipelines.cli.location import CodeLocation, find_location
from pipelines.component import MigrationComponent
from pipelines.definitions import MODEL_RESOURCES, build_definitions
from pipelines.project import SCAFFOLD_ATTRIBUTES, demo_project
from pipelines.settings import Settings
from sql.paths import REPOSITORY_ROOT

BIN = Path(sys.executable).parent
DEMO_DEFS = REPOSITORY_ROOT / "pipelines" / "defs" / "tpch_demo" / "defs.yaml"

SNOWFLAKE = """\
SELECT order_date, store, SUM(amount) AS revenue, COUNT(*) AS orders
FROM SHOP.PUBLIC.ORDERS
WHERE amount IS NOT NULL
GROUP BY order_date, store
"""
CATALOG = """\
tables:
  raw.orders:
    order_id: BIGINT
    store: VARCHAR
    order_date: DATE
    amount: DOUBLE PRECISION
legacy:
  snowflake:
    SHOP.PUBLIC.ORDERS: raw.orders
"""
ORDERS_CSV = """\
order_id,store,order_date,amount
1,oslo,2024-01-01,10.50
2,oslo,2024-01-01,4.25
3,lima,2024-01-02,7.00
4,lima,2024-01-02,
"""


def dg_command(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env |= {
        "VIRTUAL_ENV": str(BIN.parent),
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "PLUMBLINE_HOME": str(project / ".plumbline"),
        "DAGSTER_HOME": str(project / ".dagster"),
    }
    (project / ".dagster").mkdir(exist_ok=True)
    return subprocess.run(
        [str(BIN / "dg"), *args], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A user's project: `plumbline init`, then one Snowflake file, a catalog, a CSV export."""
    root = tmp_path / "shop"
    init_project(root)
    (root / "legacy" / "snowflake").mkdir()
    (root / "legacy" / "snowflake" / "daily_revenue.sql").write_text(SNOWFLAKE)
    (root / "catalog.yaml").write_text(CATALOG)
    (root / "sources" / "orders").mkdir()
    (root / "sources" / "orders" / "orders.csv").write_text(ORDERS_CSV)
    write_attributes(root, sources={"orders": {"files": "sources/orders/*.csv"}})
    return root


def write_attributes(root: Path, **changes: object) -> None:
    defs = root / root.name.replace("-", "_") / "defs" / "warehouse" / "defs.yaml"
    component = yaml.safe_load(defs.read_text())
    component["attributes"].update(changes)
    defs.write_text(yaml.safe_dump(component, sort_keys=False))


def project_defs(root: Path, home: Path) -> dg.Definitions:
    _, project = CodeLocation(root, "shop.definitions").migration()
    return build_definitions(Settings(home=home), project)


def test_the_demo_is_one_instance_of_the_component(tmp_path):
    component = yaml.safe_load(DEMO_DEFS.read_text())
    assert component["type"] == "plumbline.MigrationComponent"
    settings = Settings(home=tmp_path)
    instance = MigrationComponent.model_validate(component["attributes"])
    assert instance.project(REPOSITORY_ROOT, settings) == demo_project(settings)
    # What Dagster loads from the defs folder is that instance's graph.
    loaded = dg.load_from_defs_folder(path_within_project=REPOSITORY_ROOT)
    built = build_definitions(settings)
    assert (
        loaded.resolve_asset_graph().get_all_asset_keys()
        == built.resolve_asset_graph().get_all_asset_keys()
    )


def test_plumbline_init_makes_a_dg_project_that_passes_dg_checks(tmp_path):
    root = tmp_path / "my-shop"
    written = init_project(root)
    assert {p.relative_to(root).as_posix() for p in written} >= {
        "pyproject.toml",
        "README.md",
        "catalog.yaml",
        "my_shop/definitions.py",
        "my_shop/defs/warehouse/defs.yaml",
        "legacy/.gitkeep",
        "contracts/.gitkeep",
        "sources/.gitkeep",
        "snapshots/.gitkeep",
    }
    defs_yaml = yaml.safe_load((root / "my_shop/defs/warehouse/defs.yaml").read_text())
    assert defs_yaml == {"type": "plumbline.MigrationComponent", "attributes": SCAFFOLD_ATTRIBUTES}
    # A README of its own: it names the project's own instance and its steps.
    readme = (root / "README.md").read_text()
    assert "my_shop/defs/warehouse/defs.yaml" in readme and "plumbline run" in readme
    for command in (("check", "yaml"), ("check", "defs")):
        done = dg_command(root, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    assert find_location(root / "legacy") == CodeLocation(root, "my_shop.definitions")
    # A source name the component refuses and a legacy file that names no table of the
    # catalog: `dg check defs` fails with both lines (tests/pipelines/test_project_check.py
    # holds every kind of mistake to its line).
    (root / "legacy" / "oracle").mkdir()
    (root / "legacy" / "oracle" / "top_items.sql").write_text("SELECT id\nFROM sales.items\n")
    write_attributes(root, sources={"Products": {"files": "sources/products.csv"}})
    done = dg_command(root, "check", "defs")
    assert done.returncode == 1
    output = done.stdout + done.stderr
    for line in (
        "pipelines.project.ProjectProblems: 2 problems in the project's configuration:",
        "my_shop/defs/warehouse/defs.yaml:attributes.sources.Products: a table name must be",
        "legacy/oracle/top_items.sql:2:6: error[NAME-UNKNOWN]: table 'sales.items' is not in",
    ):
        assert f"\n{line}" in output, output
    with pytest.raises(Exception, match="not an empty folder"):
        init_project(root)


def test_dg_scaffold_defs_writes_an_instance(tmp_path):
    root = tmp_path / "shop"
    init_project(root)
    done = dg_command(root, "scaffold", "defs", "plumbline.MigrationComponent", "second")
    assert done.returncode == 0, done.stdout + done.stderr
    scaffolded = yaml.safe_load((root / "shop" / "defs" / "second" / "defs.yaml").read_text())
    assert scaffolded == {"type": "plumbline.MigrationComponent", "attributes": SCAFFOLD_ATTRIBUTES}


def test_dg_lists_a_user_projects_assets_and_checks(shop):
    done = dg_command(shop, "list", "defs", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(done.stdout)
    assets = {a["asset_key"]: a for a in listed["assets"]}
    assert set(assets) == {
        "legacy/snowflake/daily_revenue",
        "raw/orders",
        "ansi/daily_revenue",
        "warehouse/daily_revenue",
    }
    # "Source code": a declared source opens the defs.yaml that declares it; the legacy
    # file, its translation and its table open the legacy SQL, not defs.yaml.
    assert assets["raw/orders"]["source"] == "shop/defs/warehouse/defs.yaml:1"
    for key in ("legacy/snowflake/daily_revenue", "ansi/daily_revenue", "warehouse/daily_revenue"):
        assert assets[key]["source"] == "legacy/snowflake/daily_revenue.sql:1", key
    checks = {c["key"] for c in listed["asset_checks"]}
    assert {
        "warehouse/daily_revenue:daily_revenue_contract",
        "warehouse/daily_revenue:daily_revenue_reconciled",
    } <= checks


def test_a_project_without_a_model_has_only_data_assets(shop, tmp_path):
    defs = project_defs(shop, tmp_path / "home")
    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == {
        "legacy/snowflake/daily_revenue",
        "raw/orders",
        "ansi/daily_revenue",
        "warehouse/daily_revenue",
    }
    assert not MODEL_RESOURCES & set(defs.resources or {})
    assert "tpch" not in (defs.resources or {})
    assert not list(defs.sensors or []) and not list(defs.schedules or [])
    # The demo's own assets stay out of the user's graph.
    assert not any("delay" in k for k in keys)


def test_an_unguarded_table_shows_warnings_and_a_snapshot_reconciles_it(shop, tmp_path):
    home = tmp_path / "home"
    job = project_defs(shop, home).resolve_job_def("materialize_all_job")
    result = job.execute_in_process(instance=dg.DagsterInstance.ephemeral())
    assert result.success
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    for name in ("daily_revenue_contract", "daily_revenue_reconciled"):
        assert not checks[name].passed
        assert checks[name].severity == dg.AssetCheckSeverity.WARN
    # Column lineage back to the user's legacy file and lake columns, as the UI shows it.
    [built] = [
        m
        for m in result.asset_materializations_for_node("warehouse__daily_revenue")
        if m.asset_key == dg.AssetKey(["warehouse", "daily_revenue"])
    ]
    lineage = built.metadata["dagster/column_lineage"].value
    revenue = lineage.deps_by_column["revenue"]
    assert [(d.asset_key.to_user_string(), d.column_name) for d in revenue] == [
        ("raw/orders", "amount")
    ]
    rows = {r.data["column"]: r.data for r in built.metadata["lineage"].value.records}
    assert "snowflake/daily_revenue.sql" in str(rows["revenue"])

    # The legacy warehouse's own output, exported as CSV: the build reconciles against it.
    (shop / "snapshots" / "daily_revenue.csv").write_text(
        "order_date,store,revenue,orders\n2024-01-01,oslo,14.75,2\n2024-01-02,lima,7.0,1\n"
    )
    write_attributes(
        shop, reconciliation={"tables": {"daily_revenue": {"key": ["order_date", "store"]}}}
    )
    defs = project_defs(shop, home)
    spec = next(
        s
        for a in defs.assets  # type: ignore[union-attr]
        for s in a.check_specs
        if s.name == "daily_revenue_reconciled"
    )
    assert spec.blocking and "daily_revenue.csv" in spec.description
    result = defs.resolve_job_def("materialize_all_job").execute_in_process(
        instance=dg.DagsterInstance.ephemeral()
    )
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert checks["daily_revenue_reconciled"].passed

    # A legacy output that differs: the table is not published over its last good version.
    (shop / "snapshots" / "daily_revenue.csv").write_text(
        "order_date,store,revenue,orders\n2024-01-01,oslo,14.80,2\n2024-01-02,lima,7.0,1\n"
    )
    result = (
        project_defs(shop, home)
        .resolve_job_def("materialize_all_job")
        .execute_in_process(instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    )
    assert not result.success
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not checks["daily_revenue_reconciled"].passed
    assert "columns differing: revenue" in checks["daily_revenue_reconciled"].description
    # Without a contract no column is known to be public: the differing row is shown masked.
    rows = checks["daily_revenue_reconciled"].metadata["sample_only_in_reference"].value.records
    assert len(rows) == 1 and rows[0].data["revenue"].startswith("masked:")


def test_plumbline_run_in_a_user_project_materializes_its_graph(shop):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PLUMBLINE_HOME"] = str(shop / ".plumbline")
    done = subprocess.run(
        [str(BIN / "plumbline"), "run"],
        cwd=shop,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warehouse/daily_revenue" in done.stdout
    # The legacy file is observed (its sha256 recorded) before it is translated.
    lines = done.stdout.splitlines()
    observed = lines.index("  observed      legacy/snowflake/daily_revenue")
    assert observed < lines.index("  started       ansi/daily_revenue")
    assert re.search(r"SUCCESS in [\d.]+s \(.*1 observed", done.stdout), done.stdout
    assert "checks: 0 passed, 0 failed, 2 warnings" in done.stdout
    assert "WARNING daily_revenue_contract" in done.stdout
    # No MLflow store for a project without a model.
    assert not (shop / ".plumbline" / "mlflow.db").exists()


def test_the_catalog_comes_from_the_sources_and_is_checked_against_the_ddl(shop):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PLUMBLINE_HOME"] = str(shop / ".plumbline")
    (shop / "orders.sql").write_text(
        "CREATE TABLE SHOP.PUBLIC.ORDERS (ORDER_ID NUMBER(38,0) NOT NULL, STORE VARCHAR(20),"
        " ORDER_DATE DATE, AMOUNT NUMBER(12,2));"
    )

    def catalog_import(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(BIN / "plumbline"), "catalog", "import", "--from-sources", *args],
            cwd=shop,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    derived = catalog_import()
    assert derived.returncode == 0, derived.stderr
    tables = yaml.safe_load(derived.stdout)["tables"]
    assert tables == {
        "raw.orders": {
            "order_id": "BIGINT",
            "store": "VARCHAR",
            "order_date": "DATE",
            "amount": "DOUBLE PRECISION",
        }
    }
    # The CSV's detected types are not the legacy DDL's, but hold its values: NUMBER(38,0)
    # as BIGINT always, NUMBER(12,2) as DOUBLE where every value has two decimals at most
    # (checked on the data). Both types are written, with the DDL's declared one.
    checked = catalog_import("--from", "snowflake", "orders.sql", "-o", "checked.yaml")
    assert checked.returncode == 0, checked.stderr
    written = yaml.safe_load((shop / "checked.yaml").read_text())
    assert written["legacy"] == {"snowflake": {"SHOP.PUBLIC.ORDERS": "raw.orders"}}
    assert written["tables"]["raw.orders"]["amount"] == {
        "type": "DECIMAL(12,2)",
        "legacy": "snowflake NUMBER(12,2)",
        "lake": "DOUBLE PRECISION",
    }
    assert "raw.orders.amount: snowflake NUMBER(12,2) (DECIMAL(12,2)) stored as DOUBLE" in (
        checked.stderr
    )
    # A DDL whose type cannot hold a value of the data: one line naming both and the count.
    (shop / "orders.sql").write_text(
        (shop / "orders.sql").read_text().replace("AMOUNT NUMBER(12,2)", "AMOUNT NUMBER(12,1)")
    )
    refused = catalog_import("--from", "snowflake", "orders.sql", "-o", "refused.yaml")
    assert refused.returncode == 1
    lines = [line for line in refused.stderr.splitlines() if "CATALOG-DIFFERS" in line]
    assert len(lines) == 1 and "raw.orders.amount: NUMBER(12,1) in the snowflake DDL" in lines[0]
    assert "DOUBLE PRECISION in source raw.orders (csv files" in lines[0]
    assert ": 1 value(s) the legacy type cannot hold" in lines[0]  # 4.25 has two decimals
    assert not (shop / "refused.yaml").exists()


def test_a_command_loads_a_project_once_per_settings(shop, tmp_path, monkeypatch):
    # execute_job reconstructs a run's job several times; each load parses the legacy tree.
    location = CodeLocation(shop, "shop.definitions")
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "one"))
    first = location.definitions()
    assert location.definitions() is first
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "two"))
    other = location.definitions()
    assert other is not first
    assert other.resources["lake"].root == str(tmp_path / "two" / "lake")
