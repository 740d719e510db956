"""Fixtures shared across the suite."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from assets.raw import raw_assets
from pipelines.resources import LakeResource, TpchResource

TEST_SCALE = 0.01


def _materialize_raw(lake_root: Path, scale: float = TEST_SCALE) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        raw_assets,
        resources={"lake": LakeResource(root=str(lake_root)), "tpch": TpchResource(scale=scale)},
    )


@pytest.fixture(scope="session")
def materialize_raw():
    """Materialize the raw TPC-H assets into a lake root with the real generator."""
    return _materialize_raw


@pytest.fixture(scope="session")
def raw_lake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dg.ExecuteInProcessResult]:
    """A lake holding the eight TPC-H tables at scale 0.01, generated once per session into a
    fresh root, and the result of that first materialization (tests only read both)."""
    root = tmp_path_factory.mktemp("lake")
    result = _materialize_raw(root)
    assert result.success
    return root, result


@pytest.fixture(scope="session")
def raw_lake_root(raw_lake) -> Path:
    """The session's TPC-H lake (see raw_lake)."""
    return raw_lake[0]


@pytest.fixture(scope="session")
def spark_engine():
    """One local SparkSession for the whole run: Spark takes seconds to start."""
    from pipelines.engines.spark_engine import SparkEngine

    engine = SparkEngine("local[2]")
    engine.session()
    yield engine
    engine.stop()
