"""Fixtures shared across the suite."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# OpenMP threads (torch, scikit-learn) that find no work sleep instead of spinning: with two
# test workers on two cores, spinning threads take the core from the thread they wait for
# (an in-process training then runs several times slower). Set before either library loads;
# subprocesses inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# One masking key for the whole session: without it, the first check that masks a value
# writes a key to $PLUMBLINE_HOME/masking.key, which for a test that does not set a home is
# ./.plumbline in the working directory. Set at import, so the xdist workers and every
# subprocess (the CLI, Dagster's step processes) have it too.
os.environ["PLUMBLINE_MASKING_KEY"] = "plumbline-tests"

import dagster as dg
import pytest
from pyspark.testing.utils import should_test_connect

# An xdist worker runs as `python -c`, a __main__ with neither __spec__ nor __file__, which
# PySpark takes for its own doctest run: importing Spark Connect without its extra
# dependencies then calls sys.exit(0) instead of raising ImportError (Great Expectations
# tries that import). Without the extra the import fails either way; make it fail here as it
# does under plain pytest. Before the imports below, which reach Great Expectations.
if os.environ.get("PYTEST_XDIST_WORKER") and not should_test_connect:
    sys.modules.setdefault("pyspark.sql.connect", None)

from assets.raw import raw_assets
from pipelines.resources import LakeResource, TpchResource
from tests.model_path import ModelPathRun, built_once
from tests.process_groups import install as stop_servers_however_the_run_ends


def pytest_configure(config: pytest.Config) -> None:
    # Every server a test starts goes when the run does: on SIGTERM, SIGHUP, at exit, and
    # when this process is killed outright (tests/process_groups.py).
    stop_servers_however_the_run_ends()


# The files that take longest (seconds of a whole run with four workers, measured
# 2026-12-07 21:25 with `pytest --durations=0`, nothing else running), longest first. xdist's
# --dist loadfile hands out files in collection order to whichever worker runs low, so a
# long file collected last ran alone at the end; starting the longest first (the usual
# longest-processing-time order) ends the workers closer together: 967 s against 918 s for
# an earlier run's file times replayed in each order. Re-measure when a file grows past these.
LONGEST_FIRST = (
    "tests/assets/test_warehouse_assets.py",  # 290
    "tests/estates/test_utility_estate.py",  # 278
    "tests/assets/test_training.py",  # 226
    "tests/assets/test_audit.py",  # 194
    "tests/sql/test_translations_run.py",  # 157 with the corpora (skipped without)
    "tests/browser/test_asset_pages.py",  # 143
    "tests/pipelines/test_second_project.py",  # 137
    "tests/pipelines/warehouse/test_spark_cluster.py",  # 100
    "tests/sql/rules/test_variant.py",  # 99
    "tests/pipelines/cli/test_main.py",  # 91
    "tests/pipelines/contracts/test_paths_agree.py",  # 84
    "tests/pipelines/cli/test_run_healing.py",  # 78
    "tests/sql/rules/test_conversions.py",  # 76
    "tests/test_secrets.py",  # 74
    "tests/pipelines/contracts/test_validate.py",  # 73
    "tests/pipelines/warehouse/test_portability.py",  # 71
    "tests/pipelines/test_component.py",  # 70
    "tests/pipelines/cli/test_servers.py",  # 67
    "tests/sql/rules/test_arrays.py",  # 66
    "tests/pipelines/cli/test_fuzz.py",  # 63
    "tests/pipelines/contracts/test_scan.py",  # 60
    "tests/sql/test_corpus.py",  # 44
    "tests/sql/rules/test_exact_division.py",  # 42
    "tests/pipelines/audit/test_table_bundle.py",  # 39
    "tests/pipelines/registry/test_tracking_store.py",  # 37
    "tests/sql/rules/test_text_groups.py",  # 35
    "tests/sql/rules/test_aggregates.py",  # 35
    "tests/assets/test_raw_assets.py",  # 34
    "tests/pipelines/warehouse/engines/test_engines.py",  # 28
    "tests/sql/rules/test_tsql_expressions.py",  # 27
    "tests/benchmarks/test_load_bench.py",  # 26
    "tests/pipelines/registry/test_tracking_server.py",  # 25
    "tests/sql/rules/test_exact_or_refused.py",  # 24
    "tests/pipelines/warehouse/test_contract_lint.py",  # 24
    "tests/pipelines/contracts/test_masking.py",  # 23
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first (LONGEST_FIRST), then the rest in collection order; each
    file's tests keep their order. Every xdist worker sorts alike, as xdist requires."""
    rank = {path: index for index, path in enumerate(LONGEST_FIRST)}
    root = config.rootpath

    def file_rank(item: pytest.Item) -> int:
        return rank.get(item.path.relative_to(root).as_posix(), len(rank))

    items.sort(key=file_rank)  # stable


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
def model_path_run(tmp_path_factory: pytest.TempPathFactory) -> ModelPathRun:
    """`plumbline run` of the model's path into a home, once per test session for all the
    xdist workers (tests/model_path.py): read it, never write to it (copy_home first)."""
    base = tmp_path_factory.getbasetemp()
    # A worker's base is <session base>/popen-gwN: the session's folder is shared by all.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return built_once(shared / "model-path")


@pytest.fixture(scope="session")
def mlflow_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding an empty MLflow store, made once per test process, for
    tests/mlflow_store.py's copy_store."""
    from tests.mlflow_store import make_template

    return make_template(tmp_path_factory.mktemp("mlflow-template"))


@pytest.fixture(scope="session")
def spark_engine():
    """One local SparkSession per test process (each xdist worker): Spark takes seconds to
    start."""
    from pipelines.warehouse.engines.spark_engine import SparkEngine

    # JVM flags only, no Spark setting: the suite runs many small queries once each, and with
    # the C1 compiler alone and the serial collector they take about 40% less JVM CPU time.
    engine = SparkEngine(
        "local[2]",
        {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"},
    )
    engine.session()
    yield engine
    engine.stop()
