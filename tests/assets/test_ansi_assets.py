import dagster as dg
import pytest

from assets.ansi import build_ansi_assets
from pipelines.resources import AnsiStoreResource
from pipelines.translation.store import DuplicateNameError, legacy_sources
from sql.paths import LEGACY_ROOT

GOOD = "SELECT o_orderkey, NVL(o_comment, 'none') AS note FROM PROD_DW.SALES.ORDERS\n"
# APPROX_COUNT_DISTINCT has no exact ANSI form: it must be refused, never approximated.
REFUSED = "SELECT\n  APPROX_COUNT_DISTINCT(o_custkey) AS buyers\nFROM PROD_DW.SALES.ORDERS\n"


@pytest.fixture
def legacy_tree(tmp_path):
    root = tmp_path / "legacy"
    (root / "snowflake").mkdir(parents=True)
    (root / "snowflake" / "order_notes.sql").write_text(GOOD)
    (root / "snowflake" / "buyers.sql").write_text(REFUSED)
    return root


def by_name(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetMaterialization]:
    return {
        e.materialization.asset_key.path[-1]: e.materialization
        for e in result.get_asset_materialization_events()
    }


def test_one_asset_per_legacy_file():
    assets = build_ansi_assets()
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
        build_ansi_assets(legacy_tree),
        resources={"ansi_store": AnsiStoreResource(root=str(store))},
        raise_on_error=False,
    )
    assert not result.success
    materialized = by_name(result)
    assert set(materialized) == {"order_notes"}
    metadata = materialized["order_notes"].metadata
    assert metadata["dialect"].value == "snowflake"
    assert "COALESCE" in metadata["ansi_sql"].value
    assert metadata["ansi_sha256"].value
    lineage = metadata["dagster/column_lineage"].value
    assert lineage.deps_by_column["o_orderkey"] == [
        dg.TableColumnDep(asset_key=dg.AssetKey(["raw", "orders"]), column_name="o_orderkey")
    ]
    assert (store / "order_notes.sql").read_text().startswith("SELECT")
    assert not (store / "buyers.sql").exists()

    [failure] = result.get_step_failure_events()
    message = str(failure.event_specific_data.error)
    assert "buyers.sql:2:3: error[" in message


def test_an_unchanged_source_is_not_retranslated(legacy_tree, tmp_path):
    (legacy_tree / "snowflake" / "buyers.sql").unlink()
    resources = {"ansi_store": AnsiStoreResource(root=str(tmp_path / "ansi"))}
    first = by_name(dg.materialize(build_ansi_assets(legacy_tree), resources=resources))
    second = by_name(dg.materialize(build_ansi_assets(legacy_tree), resources=resources))
    assert first["order_notes"].metadata["reused_stored_translation"].value is False
    assert second["order_notes"].metadata["reused_stored_translation"].value is True
    assert (
        first["order_notes"].tags["dagster/data_version"]
        == (second["order_notes"].tags["dagster/data_version"])
    )
    (legacy_tree / "snowflake" / "order_notes.sql").write_text(GOOD.replace("'none'", "'n/a'"))
    third = by_name(dg.materialize(build_ansi_assets(legacy_tree), resources=resources))
    assert third["order_notes"].metadata["reused_stored_translation"].value is False
    assert (
        third["order_notes"].tags["dagster/data_version"]
        != (first["order_notes"].tags["dagster/data_version"])
    )
