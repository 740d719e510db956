"""A legacy script that creates several tables becomes one ansi/ and one warehouse/ asset
per table, with the dependencies its SQL has; the user's catalog reaches the assets."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from assets.ansi import build_ansi_assets
from assets.warehouse import build_warehouse_definitions
from pipelines.resources import resources_for
from pipelines.settings import Settings
from pipelines.translation.store import LegacySql
from sql.catalog import DEFAULT_CATALOG_PATH, load_catalogs

SCRIPT = """\
DROP TABLE IF EXISTS mart.customer_totals;
CREATE TABLE mart.customer_totals AS
SELECT o_custkey, SUM(o_totalprice) AS total FROM Orders GROUP BY o_custkey;
CREATE TABLE mart.named_totals AS
SELECT c_name, t.total FROM dbo.Customer JOIN mart.customer_totals t ON t.o_custkey = c_custkey;
"""


@pytest.fixture
def legacy_tree(tmp_path):
    root = tmp_path / "legacy"
    (root / "tsql").mkdir(parents=True)
    (root / "tsql" / "totals_script.sql").write_text(SCRIPT)
    return root


def test_a_script_is_one_multi_asset_with_one_key_per_table(legacy_tree):
    catalog = load_catalogs([DEFAULT_CATALOG_PATH])
    legacy = LegacySql.parse(legacy_tree, catalog)
    [ansi] = build_ansi_assets(legacy)
    assert ansi.keys == {
        dg.AssetKey(["ansi", "customer_totals"]),
        dg.AssetKey(["ansi", "named_totals"]),
    }
    defs = build_warehouse_definitions("duckdb", legacy)
    deps = {
        key.path[-1]: {d.path[-1] for d in asset.asset_deps[key]}
        for asset in defs.assets
        for key in asset.keys
    }
    assert deps["customer_totals"] == {"orders", "customer_totals"}
    assert deps["named_totals"] == {"customer", "customer_totals", "named_totals"}


def test_the_tables_of_a_script_materialize_in_dependency_order(
    legacy_tree, tmp_path, raw_lake_root
):
    home = tmp_path / "home"
    (home / "lake").mkdir(parents=True)
    (home / "lake" / "raw").symlink_to(raw_lake_root / "raw")
    catalog = load_catalogs([DEFAULT_CATALOG_PATH])
    legacy = LegacySql.parse(legacy_tree, catalog)
    (tmp_path / "no_ansi").mkdir()
    defs = build_warehouse_definitions("duckdb", legacy, ansi_root=tmp_path / "no_ansi")
    result = dg.materialize(
        [*build_ansi_assets(legacy), *defs.assets],
        resources=resources_for(Settings(home=home)),
    )
    assert result.success
    order = [
        e.asset_key.path[-1]
        for e in result.get_asset_materialization_events()
        if e.asset_key.path[0] == "warehouse"
    ]
    assert order == ["customer_totals", "named_totals"]
    ansi = {
        e.asset_key.path[-1]: e.materialization.metadata
        for e in result.get_asset_materialization_events()
        if e.asset_key.path[0] == "ansi"
    }
    assert ansi["named_totals"]["source_line"].value == 4
    assert '"warehouse"."customer_totals"' in ansi["named_totals"]["ansi_sql"].value
    assert (home / "ansi" / "customer_totals.sql").is_file()


def test_the_code_location_uses_the_user_catalog(tmp_path):
    """PLUMBLINE_CATALOG reaches the store's resource and the load-time name resolution."""
    from pipelines.definitions import build_definitions
    from pipelines.settings import Settings

    extra = tmp_path / "extra.yaml"
    extra.write_text("tables:\n  raw.extra:\n    id: BIGINT\n")
    settings = Settings(home=tmp_path / "home", catalog=(DEFAULT_CATALOG_PATH, extra))
    defs = build_definitions(settings)
    store = defs.resources["ansi_store"]
    assert store.catalog_files == [str(DEFAULT_CATALOG_PATH), str(extra)]
    assert "raw.extra" in store.catalog().tables


def test_a_templated_file_is_drawn_with_the_projects_variables_everywhere(tmp_path):
    """The project's legacy SQL is parsed once, with its template variables, and both the
    ansi/ and the warehouse/ asset are drawn from that one form: each reads what the
    template renders to (without its variables the template does not render, and the
    table would read nothing)."""
    from pipelines.project import Project

    root = tmp_path / "legacy"
    (root / "snowflake").mkdir(parents=True)
    (root / "snowflake" / "customer_orders.sql").write_text(
        "SELECT o_custkey, COUNT(*) AS orders\nFROM {{ ref(var('orders_table')) }}\n"
        "GROUP BY o_custkey\n"
    )
    (tmp_path / "contracts").mkdir()
    project = Project(
        legacy_root=root,
        catalogs=(DEFAULT_CATALOG_PATH,),
        contracts_root=tmp_path / "contracts",
        template_vars={"orders_table": "orders"},
    )
    legacy = project.legacy_sql(load_catalogs(project.catalogs))
    assert legacy.variables == {"orders_table": "orders"}
    [ansi] = build_ansi_assets(legacy)
    defs = build_warehouse_definitions(
        "duckdb",
        legacy,
        ansi_root=None,
        reference_root=None,
        contracts_root=project.contracts_root,
    )
    [warehouse] = defs.assets
    assert set(warehouse.asset_deps[dg.AssetKey(["warehouse", "customer_orders"])]) == {
        dg.AssetKey(["raw", "orders"]),
        dg.AssetKey(["ansi", "customer_orders"]),
    }
    # The translation renders it with the same variables.
    home = tmp_path / "home"
    result = dg.materialize([ansi], resources=resources_for(Settings(home=home)))
    assert result.success
    manifest = json.loads((home / "ansi" / "customer_orders.json").read_text())
    assert manifest["template_vars"] == {"orders_table": "orders"}
