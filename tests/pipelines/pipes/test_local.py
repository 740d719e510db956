"""The local launch through Pipes, without torch: a training command that exits non-zero is a
``dg.Failure`` whose description is the failing worker's traceback (or the exit, when no
worker left one), and a command that speaks Pipes hands its materialization on."""

import sys

import dagster as dg
import pytest

from models.job import TrainingJob
from pipelines.pipes.local import run_training_command

REPORTS = "from dagster_pipes import open_dagster_pipes\nwith open_dagster_pipes() as pipes:\n    pipes.report_asset_materialization(metadata={'epochs': 3})\n"


def _job(tmp_path) -> TrainingJob:
    return TrainingJob(
        data_path=str(tmp_path / "data"),
        data_digest="0" * 64,
        output_dir=str(tmp_path / "run"),
        mlflow_uri=f"sqlite:///{tmp_path / 'mlflow.db'}",
        mlflow_run_id="r",
    )


def _launch(tmp_path, command: list[str]) -> dg.ExecuteInProcessResult:
    job = _job(tmp_path)

    @dg.asset
    def trained(context: dg.AssetExecutionContext):
        return run_training_command(context, job, command, env={}, cwd=tmp_path).get_results()

    return dg.materialize([trained], raise_on_error=False)


@pytest.mark.parametrize(
    ("worker_report", "expected"),
    [
        (
            "Traceback (most recent call last):\nKeyError: 'quantity'\n",
            "training worker rank1 failed:\nTraceback",
        ),
        (None, "training: External execution process failed with code 3"),
    ],
)
def test_a_failed_training_is_a_failure_naming_the_worker(tmp_path, worker_report, expected):
    if worker_report is not None:
        errors = _job(tmp_path).errors_dir
        errors.mkdir(parents=True)
        (errors / "rank1.txt").write_text(worker_report)
    result = _launch(tmp_path, [sys.executable, "-c", "import sys; sys.exit(3)"])
    assert not result.success
    failure = result.get_step_failure_events()[0].event_specific_data.error
    assert failure.cls_name == "Failure"
    assert f"Failure: {expected}" in failure.message


def test_a_training_that_speaks_pipes_reports_its_materialization(tmp_path):
    result = _launch(tmp_path, [sys.executable, "-c", REPORTS])
    assert result.success
    [materialization] = result.asset_materializations_for_node("trained")
    assert materialization.metadata["epochs"] == dg.IntMetadataValue(3)
