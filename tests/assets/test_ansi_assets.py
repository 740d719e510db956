import dagster as dg
import pytest

from assets.ansi import build_ansi_assets, rules_markdown
from pipelines.resources import AnsiStoreResource, LakeResource
from pipelines.translation.store import DuplicateNameError, LegacySql, legacy_sources
from pipelines.warehouse.lineage_view import markdown_text
from sql.catalog import CatalogError, load_catalog
from sql.paths import LEGACY_ROOT
from sql.rules import load_all
from tests.legacy import demo_legacy

GOOD = "SELECT o_orderkey, NVL(o_comment, 'none') AS note FROM PROD_DW.SALES.ORDERS\n"
# APPROX_COUNT_DISTINCT has no exact ANSI form: it must be refused, never approximated.
REFUSED = "SELECT\n  APPROX_COUNT_DISTINCT(o_custkey) AS buyers\nFROM PROD_DW.SALES.ORDERS\n"
# Text Snowflake's TRY_TO_NUMBER reads in a way it does not state stops the query: a guard.
GUARDED = "SELECT TRY_TO_NUMBER(o_clerk) AS n FROM PROD_DW.SALES.ORDERS\n"


@pytest.fixture
def legacy_tree(tmp_path):
    root = tmp_path / "legacy"
    (root / "snowflake").mkdir(parents=True)
    (root / "snowflake" / "order_notes.sql").write_text(GOOD)
    (root / "snowflake" / "buyers.sql").write_text(REFUSED)
    (root / "snowflake" / "clerk_numbers.sql").write_text(GUARDED)
    return root


def _resources(home, store):
    return {
        "ansi_store": AnsiStoreResource(root=str(store)),
        "lake": LakeResource(root=str(home / "lake"), home=str(home)),
    }


def by_name(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetMaterialization]:
    return {
        e.materialization.asset_key.path[-1]: e.materialization
        for e in result.get_asset_materialization_events()
    }


def test_one_asset_per_legacy_file():
    assets = build_ansi_assets(demo_legacy())
    keys = {a.key for a in assets}
    files = sorted(LEGACY_ROOT.glob("*/*.sql"))
    assert len(files) >= 24
    assert keys == {dg.AssetKey(["ansi", f.stem.lower()]) for f in files}


def test_a_name_defined_twice_is_an_error_naming_both_files(tmp_path):
    for dialect in ("tsql", "oracle"):
        (tmp_path / dialect).mkdir()
        (tmp_path / dialect / "revenue.sql").write_text("SELECT 1 AS x")
    with pytest.raises(
        DuplicateNameError, match=r"tsql/revenue\.sql.*already defined by .*oracle/revenue\.sql"
    ):
        legacy_sources(tmp_path)


def test_a_refused_file_fails_only_its_own_asset(legacy_tree, tmp_path):
    store = tmp_path / "ansi"
    result = dg.materialize(
        build_ansi_assets(LegacySql.parse(legacy_tree, load_catalog())),
        resources=_resources(tmp_path, store),
        raise_on_error=False,
    )
    assert not result.success
    materialized = by_name(result)
    assert set(materialized) == {"order_notes", "clerk_numbers"}
    guarded = materialized["clerk_numbers"].metadata
    assert guarded["guards"].value == "FN-TRY-CAST-NUMBER"
    assert guarded["portable_functions"].value == "RAISE_ERROR"
    metadata = materialized["order_notes"].metadata
    assert metadata["dialect"].value == "snowflake"
    assert "COALESCE" in metadata["ansi_sql"].value
    assert metadata["ansi_sha256"].value
    lineage = metadata["dagster/column_lineage"].value
    assert lineage.deps_by_column["o_orderkey"] == [
        dg.TableColumnDep(asset_key=dg.AssetKey(["raw", "orders"]), column_name="o_orderkey")
    ]
    assert (store / "order_notes.sql").read_text().startswith("SELECT")
    # Rules as a table of what each does; paths as a person reads them, never absolute.
    assert metadata["rules_applied"].value == "No rule of the catalog applied."
    assert metadata["portable_functions"].value == "none"  # COALESCE is SQL:2016
    assert metadata["guards"].value == "none"
    assert metadata["ansi_path"].value == "$PLUMBLINE_HOME/ansi/order_notes.sql"
    assert metadata["source_tables"].value == "- raw/orders"
    [note] = [r.data for r in metadata["lineage"].records if r.data["column"] == "note"]
    assert note["defined at"].endswith("snowflake/order_notes.sql:1")
    assert "raw/orders.o_comment" in note["reads"]
    assert all(str(tmp_path) not in str(value.value) for value in metadata.values())
    assert not (store / "buyers.sql").exists()

    [failure] = result.get_step_failure_events()
    message = str(failure.event_specific_data.error)
    assert "buyers.sql:2:3: error[" in message


def test_an_unchanged_source_is_not_retranslated(legacy_tree, tmp_path):
    (legacy_tree / "snowflake" / "buyers.sql").unlink()
    resources = _resources(tmp_path, tmp_path / "ansi")
    first = by_name(
        dg.materialize(
            build_ansi_assets(LegacySql.parse(legacy_tree, load_catalog())), resources=resources
        )
    )
    second = by_name(
        dg.materialize(
            build_ansi_assets(LegacySql.parse(legacy_tree, load_catalog())), resources=resources
        )
    )
    assert first["order_notes"].metadata["reused_stored_translation"].value is False
    assert second["order_notes"].metadata["reused_stored_translation"].value is True
    assert (
        first["order_notes"].tags["dagster/data_version"]
        == (second["order_notes"].tags["dagster/data_version"])
    )
    (legacy_tree / "snowflake" / "order_notes.sql").write_text(GOOD.replace("'none'", "'n/a'"))
    third = by_name(
        dg.materialize(
            build_ansi_assets(LegacySql.parse(legacy_tree, load_catalog())), resources=resources
        )
    )
    assert third["order_notes"].metadata["reused_stored_translation"].value is False
    assert (
        third["order_notes"].tags["dagster/data_version"]
        != (first["order_notes"].tags["dagster/data_version"])
    )


def test_rules_applied_show_what_each_rule_does():
    catalog = load_all()
    rule_id = next(iter(catalog))
    lines = rules_markdown([rule_id, "NOT|A-RULE"]).splitlines()
    assert lines[:2] == ["| rule | what it does |", "| --- | --- |"]
    assert lines[2] == f"| {rule_id} | {markdown_text(catalog[rule_id].description)} |"
    assert lines[3] == "| NOT\\|A-RULE | (not in the rule catalog) |"


def test_the_catalog_is_read_once_while_its_file_is_unchanged(tmp_path):
    catalog_file = tmp_path / "catalog.yaml"
    catalog_file.write_text("tables:\n  raw.t:\n    a: INTEGER\n")
    store = AnsiStoreResource(root=str(tmp_path / "ansi"), catalog_files=[str(catalog_file)])
    first = store.catalog()
    assert store.catalog() is first  # every step of a run asks: one read
    catalog_file.write_text("tables:\n  raw.t:\n    a: INTEGER\n    b: VARCHAR\n")
    changed = store.catalog()
    assert changed is not first
    assert dict(changed.tables["raw.t"]) == {"a": "INTEGER", "b": "VARCHAR"}
    catalog_file.unlink()
    with pytest.raises(CatalogError, match=r"catalog\.yaml"):
        store.catalog()
