"""What `plumbline run` shows while it works: each training epoch as the Pipes message comes
in, reused and skipped assets marked as such, and third-party output in the run's log file
instead of the console. Two real runs into one home: the session's run of the model's path
(tests/model_path.py, shared with tests/browser), then one of the training's upstream in a
copy of its home."""

import re
import subprocess
from pathlib import Path

import dagster as dg
import pytest

from pipelines.cli.run import (
    SKIPPED,
    RunOutcome,
    _Tracker,
    echo_summary,
    force_run_config,
    materialized_status,
    real_path,
)
from pipelines.lake.store import Lake
from pipelines.settings import Settings
from tests.pipelines.cli.test_main import plumbline

SELECTION = "+key:models/delay_model"  # the raw tables, delay_features, training_set, the model
EPOCH = re.compile(r"^ {16}epoch (\d+)/(\d+): train loss \d\.\d{4}, val AUC \d\.\d{4}, .*s, ")
LOG_LINE = re.compile(r"^Log \(third-party output, warnings\): (\S+)$", re.M)
# How a line from one of these libraries reads (their loggers' names, tqdm's rate); the
# console's own lines name MLflow only as "MLflow".
THIRD_PARTY = re.compile(r"\b(mlflow|alembic|great_expectations|urllib3)\b|it/s\]|INFO:")


@pytest.fixture(scope="module")
def runs(model_path_run, tmp_path_factory):
    """Two runs into one home: the first (the session's run of the model's path,
    tests/model_path.py) builds the model and what it reads; the second, in a copy of that
    home, finds the raw tables in place, the tables skipped (their code and inputs unchanged)
    and the training reused (the same training set, code and config: it does not train
    again)."""
    first = subprocess.CompletedProcess(
        [], model_path_run.returncode, model_path_run.stdout, model_path_run.stderr
    )
    assert first.returncode == 0, first.stdout + first.stderr
    home = model_path_run.copy_home(tmp_path_factory.mktemp("progress") / "home")
    env = {"PLUMBLINE_HOME": str(home)}
    second = plumbline("run", "--scale", "0.01", "--select", SELECTION, env=env, timeout=540)
    return model_path_run.home, home, first, second


def status_of(stdout: str, asset: str) -> str:
    """The status the run's summary table gives ``asset``."""
    [status] = re.findall(rf"^{re.escape(asset)} +({re.escape(SKIPPED)}|\S+)", stdout, re.M)
    return status


def test_each_epoch_is_shown_while_the_model_trains(runs):
    _, _, first, _ = runs
    assert first.returncode == 0, first.stdout + first.stderr
    lines = first.stdout.splitlines()
    epochs = [(i, EPOCH.match(line)) for i, line in enumerate(lines)]
    epochs = [(i, int(m[1]), int(m[2])) for i, m in epochs if m]
    assert epochs, first.stdout
    total = epochs[0][2]
    assert [n for _, n, _ in epochs] == list(range(1, total + 1))
    # Between the training step's start and its materialization: shown as the step ran.
    start = lines.index("  started       models/delay_model")
    [end] = [i for i, line in enumerate(lines) if line.startswith("  materialized  models/delay")]
    assert start < epochs[0][0] and epochs[-1][0] < end


def test_third_party_output_goes_to_the_log_file_not_the_console(runs):
    home, _, first, _ = runs
    assert first.returncode == 0, first.stdout + first.stderr
    console = [line for line in (first.stdout + first.stderr).splitlines()]
    assert [line for line in console if THIRD_PARTY.search(line)] == []
    [log] = LOG_LINE.findall(first.stdout)
    assert Path(log).parent == home / "logs"
    # Alembic announces its migration context when the training opens the MLflow store: the
    # line of the step that opened it (Dagster captures the library's logger). (Great
    # Expectations, which announced its docs site, no longer runs on DuckDB: scan.py.)
    lines = Path(log).read_text().splitlines()
    assert any(
        re.match(r"\d\d:\d\d:\d\d INFO models__delay_model: Context impl SQLiteImpl\.", line)
        for line in lines
    ), lines
    # And the steps' own lines.
    assert any(
        re.search(r" INFO raw__orders: raw/orders: generated 15,000 rows", line) for line in lines
    )


def test_a_second_run_marks_reused_and_skipped_assets(runs):
    _, home, first, second = runs
    assert first.returncode == 0, first.stdout + first.stderr
    assert second.returncode == 0, second.stdout + second.stderr
    for asset in ("raw/orders", "warehouse/delay_features", "warehouse/training_set"):
        assert status_of(first.stdout, asset) == "materialized"
    # The generator's tables are kept as they were: the asset did no work.
    assert status_of(second.stdout, "raw/orders") == "reused"
    assert "  reused        raw/orders  15,000 rows" in second.stdout
    # The tables' code and inputs are those of their live versions: neither rebuilt nor
    # re-validated, their checks reporting the live version's verdict, and no new version.
    assert status_of(second.stdout, "warehouse/delay_features") == SKIPPED
    assert status_of(second.stdout, "warehouse/training_set") == SKIPPED
    assert re.search(
        r"check passed, not re-run: warehouse/delay_features delay_features_contract",
        second.stdout,
    )
    assert re.search(
        r"checks: \d+ passed \(\d+ not re-run: the verdict of the live version\)", second.stdout
    )
    lake = Lake(home / "lake")
    for table in ("delay_features", "training_set"):
        folder = lake.root / "warehouse" / ".versions" / table
        assert [p.name for p in folder.iterdir() if not p.name.startswith(".")] == [
            lake.current("warehouse", table).path.name
        ]
    # The model: no epoch, no new MLflow run; the summary names the training it reused.
    assert status_of(second.stdout, "models/delay_model") == "reused"
    assert not [line for line in second.stdout.splitlines() if EPOCH.match(line)]
    [first_run] = re.findall(r"test AUC \d\.\d{4}, MLflow run (\w+)", first.stdout)
    assert re.findall(r"test AUC \d\.\d{4}, MLflow run (\w+)", second.stdout) == [first_run]
    # Every step's peak RSS, the first run's building tables and training too.
    for asset in ("raw/orders", "warehouse/delay_features", "models/delay_model"):
        assert re.search(rf"^{re.escape(asset)} .* \d[\d,]*$", first.stdout, re.M), asset
    assert re.search(
        r"^peak RSS of a step: [\d,]+ MB \(\S+\); DuckDB held to 2GB", first.stdout, re.M
    )
    # Nor the translation of its legacy file: the store holds it, made from the same file
    # and catalog, and it is what Dagster last recorded.
    assert status_of(second.stdout, "ansi/delay_features") == SKIPPED
    [counts] = re.findall(r"SUCCESS in [\d.]+s \((.*)\)", second.stdout)
    assert "reused" in counts and f"3 {SKIPPED}" in counts, counts
    # ...and no step of theirs ran: the invocation's second Dagster run holds only what
    # reads them (the model).
    [runs] = re.findall(r"^Runs (\S+) and (\S+): SUCCESS", second.stdout, re.M)
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        steps = {
            run: {
                e.step_key for e in instance.all_logs(run, of_type=dg.DagsterEventType.STEP_START)
            }
            for run in runs
        }
    assert "raw__orders" in steps[runs[0]] and "models__delay_model" in steps[runs[1]]
    ran = steps[runs[0]] | steps[runs[1]]
    assert not {s for s in ran if s.startswith(("warehouse__", "ansi_"))}, ran
    # Each run its own log file.
    assert len(list((home / "logs").glob("run-*.log"))) == 2


def _value(value: object) -> dg.MetadataValue:
    return dg.MetadataValue.bool(value) if isinstance(value, bool) else dg.MetadataValue.text(value)


@pytest.mark.parametrize(
    ("metadata", "version", "previous", "expected"),
    [
        ({}, "a", None, "materialized"),  # the first materialization
        ({}, "b", "a", "materialized"),
        ({}, "a", "a", "unchanged"),
        ({}, None, None, "materialized"),  # no data version: nothing to compare
        ({"reused_published_data": True}, "a", "a", "reused"),
        ({"reused_published_data": True}, "a", None, "reused"),  # a lake from elsewhere
        ({"reused_published_data": False}, "a", "a", "unchanged"),
        ({"reused_stored_translation": True}, "a", "a", "reused"),
        ({"reused_stored_translation": False}, "b", "a", "materialized"),
        # A second run on unchanged data reuses the training and its registered version.
        ({"reused_training": True}, "a", "a", "reused"),
        ({"reused_registered_version": True}, "m/1", "m/1", "reused"),
        # ...and the audit bundle of that version; a new one, if the last did not hold.
        ({"reused_audit_bundle": True}, "sha256:r", "sha256:r", "reused"),
        ({"reused_audit_bundle": False}, "sha256:s", "sha256:r", "materialized"),
        # A warehouse table whose code and inputs are those of its live version.
        ({"skipped_unchanged_inputs": True}, "a", "a", SKIPPED),
        ({"skipped_unchanged_inputs": False}, "a", "a", "unchanged"),
    ],
)
def test_materialized_status(metadata, version, previous, expected):
    values = {key: _value(value) for key, value in metadata.items()}
    assert materialized_status(values, version, previous) == expected


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        (
            "$PLUMBLINE_HOME/audit/delivery_delay/v3/t-d/report.html",
            "/h/audit/delivery_delay/v3/t-d/report.html",
        ),
        ("/elsewhere/report.html", "/elsewhere/report.html"),
        ("$PLUMBLINE_HOMEX/report.html", "$PLUMBLINE_HOMEX/report.html"),
    ],
)
def test_a_shown_path_becomes_the_real_path(shown, expected):
    assert real_path(shown, Path("/h")) == expected


def test_force_rebuilds_each_selected_warehouse_table_and_retrains_the_model():
    @dg.asset(key=["warehouse", "a"])
    def table_a():
        return None

    @dg.asset(key=["warehouse", "b"])
    def table_b():
        return None

    @dg.asset(key=["raw", "orders"])
    def orders():
        return None

    @dg.asset(key=["models", "delay_model"])
    def model():
        return None

    @dg.asset(key=["scores", "batch_scores"])
    def scores():
        return None

    defs = dg.Definitions(assets=[table_a, table_b, orders, model, scores])
    keys = [
        dg.AssetKey(k)
        for k in (
            ["warehouse", "a"],
            ["raw", "orders"],
            ["models", "delay_model"],
            ["scores", "batch_scores"],
        )
    ]
    assert force_run_config(defs, keys) == {
        "ops": {
            "warehouse__a": {"config": {"rebuild": True}},
            "models__delay_model": {"config": {"retrain": True}},
            "scores__batch_scores": {"config": {"rebuild": True}},
        }
    }
    assert force_run_config(defs, [dg.AssetKey(["raw", "orders"])]) == {}


def test_a_warning_check_prints_what_it_found(tmp_path):
    """The summary's WARNING line carries the check's description (the throughput check's
    measured and reference samples/s), not a pointer to the UI."""
    found = "7% below the reference 1,200 samples/s: measured 1,116 samples/s"

    @dg.asset(check_specs=[dg.AssetCheckSpec("speed", asset="model")])
    def model():
        return dg.MaterializeResult(
            check_results=[
                dg.AssetCheckResult(
                    check_name="speed",
                    passed=False,
                    severity=dg.AssetCheckSeverity.WARN,
                    description=found,
                )
            ]
        )

    defs = dg.Definitions(assets=[model])
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([model], instance=instance)
    lines: list[str] = []
    tracker = _Tracker(defs, [model.key], lines.append, home=tmp_path)
    for record in instance.get_records_for_run(result.run_id).records:
        tracker.handle(record)
    outcome = RunOutcome(
        run_id=result.run_id,
        success=result.success,
        seconds=1.0,
        assets=tracker.assets,
        checks=tracker.checks,
        warnings=tracker.warnings,
    )
    echo_summary(outcome, Settings(home=tmp_path), lines.append)
    assert "checks: 0 passed, 0 failed, 1 warning" in lines
    assert f"  WARNING speed: {found}" in lines


def test_the_summary_shows_each_steps_peak_rss(tmp_path):
    """The peak RSS each step measured (its materialization's peak_rss_mb) is a column of
    the summary, and the largest is named with the DuckDB limit the run held to."""

    @dg.asset(key=["warehouse", "small"])
    def small():
        return dg.MaterializeResult(metadata={"peak_rss_mb": 412.5})

    @dg.asset(key=["warehouse", "large"])
    def large():
        return dg.MaterializeResult(metadata={"peak_rss_mb": 3071.0})

    defs = dg.Definitions(assets=[small, large])
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([small, large], instance=instance)
    lines: list[str] = []
    tracker = _Tracker(defs, [small.key, large.key], lines.append, home=tmp_path)
    for record in instance.get_records_for_run(result.run_id).records:
        tracker.handle(record)
    outcome = RunOutcome(
        run_id=result.run_id, success=result.success, seconds=1.0, assets=tracker.assets
    )
    settings = Settings(home=tmp_path, duckdb_memory_limit="3GB")
    echo_summary(outcome, settings, lines.append)
    assert re.search(r"^asset +status +rows +seconds +peak RSS MB$", "\n".join(lines), re.M)
    assert re.search(r"^warehouse/large +materialized +[\d.]+ +3,071$", "\n".join(lines), re.M)
    assert re.search(r"^warehouse/small +materialized +[\d.]+ +412$", "\n".join(lines), re.M)
    assert (
        f"peak RSS of a step: 3,071 MB (warehouse/large); DuckDB held to 3GB a database, "
        f"spilling to {tmp_path / 'spill'}"
    ) in lines
