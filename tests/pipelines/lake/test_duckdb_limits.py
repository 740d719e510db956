"""The process's DuckDB memory limit and spill folder reach every connection it opens: those
of the engine (builds, digests, reconciliation), and through the lake resource, as a step
of a run starts; what DuckDB spills lies under the home and is gone when it closes."""

from __future__ import annotations

import os
import subprocess
import sys

import dagster as dg
import duckdb
import pytest

from pipelines.lake.duckdb_limits import (
    DuckDBLimits,
    connection_config,
    limits,
    remove_stale_spill,
    set_limits,
)
from pipelines.resources import LakeResource, resources_for
from pipelines.settings import Settings
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

SETTINGS = "SELECT current_setting('memory_limit'), current_setting('temp_directory')"


def _duckdb_says(memory_limit: str) -> str:
    """How DuckDB reports ``memory_limit`` once set (``'2GB'`` reads back as ``1.8 GiB``)."""
    with duckdb.connect(config={"memory_limit": memory_limit}) as connection:
        return connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]


@pytest.fixture
def restored():
    before = limits()
    yield
    set_limits(before)


def test_every_connection_takes_the_limit_and_a_spill_folder_of_its_own(tmp_path, restored):
    set_limits(DuckDBLimits("300MB", tmp_path / "spill"))
    with connect_duckdb() as first, connect_duckdb() as second:
        (limit, folder), (_, other) = (c.execute(SETTINGS).fetchone() for c in (first, second))
    assert limit == _duckdb_says("300MB")
    assert folder.startswith(str(tmp_path / "spill" / f"{os.getpid()}-"))
    assert other.startswith(str(tmp_path / "spill")) and other != folder
    # A connection that states its own limit keeps it.
    assert connection_config({"memory_limit": "1GB"})["memory_limit"] == "1GB"


def test_a_spilling_query_spills_under_the_root_and_leaves_nothing(tmp_path, restored):
    set_limits(DuckDBLimits("40MB", tmp_path / "spill"))
    with connect_duckdb(config={"threads": 1}) as connection:
        connection.execute("SET preserve_insertion_order = false")
        rows = connection.execute(
            "SELECT count(*) FROM (SELECT md5(i::VARCHAR) AS s FROM range(1500000) r(i) ORDER BY s)"
        ).fetchone()[0]
        spilled = list((tmp_path / "spill").rglob("*"))
    assert rows == 1_500_000
    assert spilled, "the sort did not spill"
    assert list((tmp_path / "spill").iterdir()) == []


def test_the_spill_of_a_dead_process_is_removed_and_a_live_ones_kept(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    (tmp_path / f"{dead.stdout.strip()}-0").mkdir()
    (tmp_path / f"{os.getpid()}-3").mkdir()
    assert remove_stale_spill(tmp_path) == [tmp_path / f"{dead.stdout.strip()}-0"]
    assert [p.name for p in tmp_path.iterdir()] == [f"{os.getpid()}-3"]


def test_a_step_on_the_lake_runs_under_the_settings_limit(tmp_path, restored):
    settings = Settings(home=tmp_path / "home", duckdb_memory_limit="700MB")

    @dg.asset
    def probe(lake: LakeResource) -> dg.MaterializeResult:
        with connect_duckdb() as connection:
            limit, folder = connection.execute(SETTINGS).fetchone()
        return dg.MaterializeResult(metadata={"limit": limit, "folder": folder})

    result = dg.materialize([probe], resources={"lake": resources_for(settings)["lake"]})
    [materialization] = result.asset_materializations_for_node("probe")
    assert materialization.metadata["limit"].value == _duckdb_says("700MB")
    assert materialization.metadata["folder"].value.startswith(str(settings.spill_root))
