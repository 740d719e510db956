import shutil

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets.raw import raw_assets
from pipelines.definitions import build_definitions
from pipelines.lake.raw import RAW_ZONE
from pipelines.lake.store import Lake
from pipelines.lake.tpch import TPCH_TABLES
from pipelines.resources import LakeResource, TpchResource
from pipelines.settings import Settings

# TPC-H row counts at scale 0.01 (lineitem is ~4 lines per order, generated, not fixed).
EXPECTED_ROWS = {
    "region": 5,
    "nation": 25,
    "supplier": 100,
    "customer": 1_500,
    "part": 2_000,
    "partsupp": 8_000,
    "orders": 15_000,
    "lineitem": 60_175,
}


def materializations(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetMaterialization]:
    return {
        e.materialization.asset_key.path[-1]: e.materialization
        for e in result.get_asset_materialization_events()
    }


def digests(result: dg.ExecuteInProcessResult) -> dict[str, str]:
    return {t: m.metadata["digest"].value for t, m in materializations(result).items()}


@pytest.fixture(scope="module")
def first_run(raw_lake):
    """The first materialization into a fresh lake: the session's (tests/conftest.py), whose
    lake the tests here only read or copy."""
    return raw_lake


def test_definitions_hold_one_raw_asset_per_tpch_table(tmp_path):
    defs = build_definitions(Settings(home=tmp_path))
    graph = defs.resolve_asset_graph()
    raw_keys = {k for k in graph.get_all_asset_keys() if k.path[0] == RAW_ZONE}
    assert raw_keys == {dg.AssetKey([RAW_ZONE, t]) for t in TPCH_TABLES}
    for key in raw_keys:
        assert graph.get(key).group_name == "raw"
    assert not tmp_path.joinpath("lake").exists(), "loading definitions must not touch the lake"


def test_materializing_gives_tpch_row_counts_and_metadata(first_run):
    root, result = first_run
    assert result.success
    by_table = materializations(result)
    assert set(by_table) == set(TPCH_TABLES)
    for table, materialization in by_table.items():
        metadata = materialization.metadata
        assert metadata["dagster/row_count"].value == EXPECTED_ROWS[table]
        assert (
            pq.read_metadata(next((root / "raw" / table).glob("*.parquet"))).num_rows
            == (EXPECTED_ROWS[table])
        )
        assert metadata["scale_factor"].value == 0.01
        assert metadata["generator"].value.startswith("tpchgen-cli ")
        assert metadata["digest"].value.startswith("sha256:")
        assert metadata["reused_published_data"].value is False
        columns = metadata["dagster/column_schema"].schema.columns
        assert columns[0].name.startswith(table[0] if table != "partsupp" else "ps_")
        # The data version is the content digest, so unchanged data reads as unchanged.
        assert materialization.tags["dagster/data_version"] == (
            metadata["digest"].value.removeprefix("sha256:")
        )
    orders = [c.name for c in by_table["orders"].metadata["dagster/column_schema"].schema.columns]
    assert orders[:2] == ["o_orderkey", "o_custkey"]


def test_a_second_run_keeps_the_same_data_and_digests(first_run, materialize_raw):
    root, first = first_run
    second = materialize_raw(root)
    assert digests(second) == digests(first)
    assert all(m.metadata["reused_published_data"].value for m in materializations(second).values())


def test_the_generator_is_deterministic_across_lakes(first_run, tmp_path, materialize_raw):
    _, first = first_run
    fresh = materialize_raw(tmp_path)
    assert digests(fresh) == digests(first)
    assert not any(
        m.metadata["reused_published_data"].value for m in materializations(fresh).values()
    )


def test_a_tampered_table_is_regenerated(first_run, tmp_path, materialize_raw):
    root, first = first_run
    # A copy of the first run's published lake (its links are relative), tampered with here.
    shutil.copytree(root / "raw", tmp_path / "raw", symlinks=True)
    data = next((tmp_path / "raw" / "nation").glob("*.parquet"))
    data.write_bytes(data.read_bytes()[:-10])  # truncated: footer gone
    again = materializations(materialize_raw(tmp_path))
    assert again["nation"].metadata["reused_published_data"].value is False
    assert again["nation"].metadata["digest"].value == digests(first)["nation"]


def test_a_different_scale_regenerates(tmp_path):
    resources = {"lake": LakeResource(root=str(tmp_path))}
    supplier = [a for a in raw_assets if a.key.path[-1] == "supplier"]
    small = dg.materialize(supplier, resources={**resources, "tpch": TpchResource(scale=0.01)})
    large = dg.materialize(supplier, resources={**resources, "tpch": TpchResource(scale=0.02)})
    small_m, large_m = materializations(small)["supplier"], materializations(large)["supplier"]
    assert small_m.metadata["dagster/row_count"].value == 100
    assert large_m.metadata["dagster/row_count"].value == 200
    assert small_m.metadata["digest"].value != large_m.metadata["digest"].value


def test_a_failed_generation_fails_only_that_asset_and_keeps_the_last_good_table(tmp_path):
    region = [a for a in raw_assets if a.key.path[-1] == "region"]
    lake_resource = LakeResource(root=str(tmp_path))
    good = dg.materialize(
        region, resources={"lake": lake_resource, "tpch": TpchResource(scale=0.01)}
    )
    before = Lake(tmp_path).current(RAW_ZONE, "region")

    # A scale change forces regeneration; zero threads makes the real generator refuse.
    broken = dg.materialize(
        region,
        resources={"lake": lake_resource, "tpch": TpchResource(scale=0.02, threads=0)},
        raise_on_error=False,
    )
    assert good.success and not broken.success
    failure = broken.get_step_failure_events()[0].event_specific_data.error
    assert "tpchgen-cli" in str(failure.cause or failure)
    after = Lake(tmp_path).current(RAW_ZONE, "region")
    assert after.path == before.path and Lake(tmp_path).verify(after)
    assert pq.read_table(tmp_path / "raw" / "region").num_rows == 5
    assert not list((tmp_path / "raw" / ".versions" / "region").glob(".staging-*"))
