"""legacy/<dialect>/<name>: each legacy file is an observable source asset upstream of its
translation, its data version the file's sha256, and "Source code" of what is drawn from it
opens it. Built and run in process on a small legacy tree."""

from __future__ import annotations

import dagster as dg
import pytest

from assets.legacy import LEGACY_GROUP, legacy_files_asset
from assets.metadata import CODE_REFERENCES
from pipelines.cli.run import resolve_selection
from pipelines.definitions import MATERIALIZE_ALL_JOB, build_definitions
from pipelines.settings import Settings
from pipelines.translation.store import LegacySql, sha256_bytes
from sql.catalog import load_catalog

ORDERS = "SELECT o_orderkey, o_custkey FROM PROD_DW.SALES.ORDERS\n"
SCRIPT = """\
CREATE TABLE mart.customer_totals AS
SELECT o_custkey, SUM(o_totalprice) AS total FROM Orders GROUP BY o_custkey;
CREATE TABLE mart.named_totals AS
SELECT c_name, t.total FROM dbo.Customer JOIN mart.customer_totals t ON t.o_custkey = c_custkey;
"""
ORDER_KEYS = dg.AssetKey(["legacy", "snowflake", "order_keys"])
TOTALS = dg.AssetKey(["legacy", "tsql", "totals_script"])


@pytest.fixture
def legacy_tree(tmp_path):
    root = tmp_path / "legacy"
    (root / "snowflake").mkdir(parents=True)
    (root / "tsql").mkdir()
    (root / "snowflake" / "order_keys.sql").write_text(ORDERS)
    (root / "tsql" / "totals_script.sql").write_text(SCRIPT)
    return root


@pytest.fixture
def defs(legacy_tree, tmp_path):
    (tmp_path / "home").mkdir()
    return build_definitions(Settings(home=tmp_path / "home", legacy_root=legacy_tree))


def references(node) -> list[str]:
    return [r.file_path for r in node.metadata[CODE_REFERENCES].code_references]


def test_each_legacy_file_is_an_observed_node_upstream_of_its_translations(defs, legacy_tree):
    graph = defs.resolve_asset_graph()
    assert graph.observable_asset_keys == {ORDER_KEYS, TOTALS}
    for key in (ORDER_KEYS, TOTALS):
        node = graph.get(key)
        assert node.group_name == LEGACY_GROUP and not node.is_materializable
    file = legacy_tree / "tsql" / "totals_script.sql"
    assert references(graph.get(TOTALS)) == [str(file)]
    assert graph.get(TOTALS).kinds == {"sql", "tsql"}
    # legacy file -> ansi -> warehouse; a script's file feeds each of its tables.
    for table in ("customer_totals", "named_totals"):
        assert TOTALS in graph.get(dg.AssetKey(["ansi", table])).parent_keys
        assert (
            dg.AssetKey(["ansi", table]) in graph.get(dg.AssetKey(["warehouse", table])).parent_keys
        )
    assert graph.get(dg.AssetKey(["ansi", "order_keys"])).parent_keys == {ORDER_KEYS}


def test_materialize_all_and_plumbline_run_observe_the_files_first(defs):
    job = defs.resolve_job_def(MATERIALIZE_ALL_JOB)
    assert {ORDER_KEYS, TOTALS} <= job.asset_layer.selected_asset_keys
    assert {ORDER_KEYS, TOTALS} <= set(resolve_selection(defs, None))
    # Selected by key (Dagster's `group:` and upstream `+` stop at materializable assets).
    assert resolve_selection(defs, 'key:"legacy/*" or key:ansi/order_keys') == [
        dg.AssetKey(["ansi", "order_keys"]),
        ORDER_KEYS,
        TOTALS,
    ]


def test_an_observation_records_the_sha256_and_the_translation_reads_it(defs, legacy_tree):
    """The file's sha256 is the legacy asset's data version, and the ansi/ materialization
    that translated it records that version as its input (Dagster's own provenance)."""
    instance = dg.DagsterInstance.ephemeral()
    observed = dg.materialize(
        [defs.resolve_assets_def(ORDER_KEYS)], instance=instance, selection=[ORDER_KEYS]
    )
    [observation] = [
        e.event_specific_data.asset_observation
        for e in observed.all_events
        if e.event_type == dg.DagsterEventType.ASSET_OBSERVATION
    ]
    digest = sha256_bytes((legacy_tree / "snowflake" / "order_keys.sql").read_bytes())
    assert observation.asset_key == ORDER_KEYS
    assert observation.data_version == digest
    assert observation.metadata["sha256"].value == digest
    assert observation.metadata["bytes"].value == len(ORDERS.encode())

    ansi = dg.AssetKey(["ansi", "order_keys"])
    translated = dg.materialize([defs.resolve_assets_def(ansi)], instance=instance)
    [materialization] = [e.materialization for e in translated.get_asset_materialization_events()]
    assert materialization.tags["dagster/input_data_version/legacy/snowflake/order_keys"] == digest
    assert materialization.metadata["source_sha256"].value == digest


def test_a_file_gone_since_the_load_fails_its_observation_naming_it(legacy_tree):
    legacy = LegacySql.parse(legacy_tree, load_catalog())
    observe = legacy_files_asset(legacy)
    (legacy_tree / "snowflake" / "order_keys.sql").unlink()
    result = dg.materialize([observe], selection=list(observe.keys), raise_on_error=False)
    [failure] = result.get_step_failure_events()
    message = str(failure.event_specific_data.error)
    assert "order_keys.sql: cannot read the legacy file" in message


def test_no_legacy_file_no_legacy_asset(tmp_path):
    (tmp_path / "legacy").mkdir()
    assert legacy_files_asset(LegacySql.parse(tmp_path / "legacy", load_catalog())) is None


def test_source_code_of_a_translation_and_its_table_is_the_legacy_file(defs, legacy_tree):
    graph = defs.resolve_asset_graph()
    file = str(legacy_tree / "snowflake" / "order_keys.sql")
    for zone in ("ansi", "warehouse"):
        assert references(graph.get(dg.AssetKey([zone, "order_keys"]))) == [file]
