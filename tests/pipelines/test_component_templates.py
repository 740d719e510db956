"""A project's ``template_vars`` (defs.yaml): its Jinja-templated legacy files render with them,
in the graph and in the ``ansi/`` asset, whose metadata says what they rendered with."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
import yaml

from pipelines.audit.bundle import read_bundle
from pipelines.cli.init import init_project
from pipelines.cli.location import CodeLocation
from pipelines.component import MigrationComponent
from pipelines.definitions import build_definitions
from pipelines.settings import Settings
from tests.pipelines.cli.test_main import plumbline_in_process

TEMPLATE = """\
{{ config(materialized='table') }}
SELECT order_date, store, SUM(amount) AS revenue
FROM {{ ref('orders') }}
WHERE amount IS NOT NULL{% if since %} AND order_date >= DATE '{{ since }}'{% endif %}
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


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    init_project(root)
    (root / "legacy" / "snowflake").mkdir()
    (root / "legacy" / "snowflake" / "daily_revenue.sql").write_text(TEMPLATE)
    (root / "catalog.yaml").write_text(CATALOG)
    (root / "sources" / "orders").mkdir()
    (root / "sources" / "orders" / "orders.csv").write_text(
        "order_id,store,order_date,amount\n1,oslo,2024-01-01,10.50\n2,lima,2023-12-31,4.00\n"
    )
    defs = root / "shop" / "defs" / "warehouse" / "defs.yaml"
    component = yaml.safe_load(defs.read_text())
    component["attributes"].update(
        sources={"orders": {"files": "sources/orders/*.csv"}},
        template_vars={"since": "2024-01-01"},
    )
    defs.write_text(yaml.safe_dump(component, sort_keys=False))
    return root


def test_the_ansi_asset_renders_with_the_projects_variables(shop):
    _, project = CodeLocation(shop, "shop.definitions").migration()
    assert project.template_vars == {"since": "2024-01-01"}
    home = shop / ".plumbline"
    defs = build_definitions(Settings(home=home), project)
    warehouse = dg.AssetKey(["warehouse", "daily_revenue"])
    assert dg.AssetKey(["raw", "orders"]) in defs.resolve_asset_graph().get(warehouse).parent_keys
    (home / "dagster").mkdir(parents=True)
    (home / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        result = defs.resolve_job_def("materialize_all_job").execute_in_process(instance=instance)
    assert result.success
    (translated,) = result.asset_materializations_for_node("ansi_snowflake_daily_revenue")
    assert translated.metadata["template_vars"].value == {"since": "2024-01-01"}
    assert len(translated.metadata["rendered_sha256"].value) == 64
    # The variable took effect: the 2023 order is not in the built table.
    (built,) = [
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key == warehouse
    ]
    assert built.metadata["dagster/row_count"].value == 1
    # The table's audit bundle says what the template was rendered with, and to.
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(shop)
        made = plumbline_in_process(
            "audit", "warehouse/daily_revenue", env={"PLUMBLINE_HOME": str(home)}
        )
    assert made.exit_code == 0, made.output
    [line] = [line for line in made.stdout.splitlines() if line.startswith("Audit bundle of ")]
    (sql,) = [n for n in read_bundle(Path(line.rpartition(": ")[2])).nodes if n.kind == "ansi_sql"]
    assert sql.content["template_vars"] == {"since": "2024-01-01"}
    assert sql.content["rendered_sha256"] == translated.metadata["rendered_sha256"].value


@pytest.mark.parametrize("bad", [{"since": None}, {"since": {"a": 1}}, ["since"]])
def test_template_vars_are_typed(bad):
    with pytest.raises(Exception, match="template_vars"):
        MigrationComponent.model_validate({"template_vars": bad})
