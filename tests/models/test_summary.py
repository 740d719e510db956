"""models/summary.py: what a finished training reports, read from one typed summary (what
MLflow gets once, what Pipes carries, the last log line)."""

import json

import pytest
import torch

from models.job import TrainingJob
from models.runtime import Runtime
from models.summary import TrainingSummary
from models.train import pipes_metadata

EPOCH = {
    "epoch": 0,
    "train_loss": 0.52,
    "val_auc": 0.7,
    "val_log_loss": 0.55,
    "val_accuracy": 0.71,
    "samples_per_second": 9000.0,
    "epoch_seconds": 1.5,
}
SUMMARY = TrainingSummary(
    history=(EPOCH, {**EPOCH, "epoch": 1, "val_auc": 0.75, "samples_per_second": 10000.0}),
    test={"auc": 0.74, "log_loss": 0.5, "accuracy": 0.72},
    baseline_val={"auc": 0.76, "log_loss": 0.49, "accuracy": 0.73},
    baseline_test={"auc": 0.77, "log_loss": 0.48, "accuracy": 0.74},
    flops_per_sample=1234.0,
    mfu=None,
    batch_size=256,
)
RUNTIME = Runtime(
    device=torch.device("cpu"),
    backend="gloo",
    rank=0,
    local_rank=0,
    world_size=2,
    autocast_dtype=None,
)
JOB = TrainingJob(
    data_path="/lake/warehouse/training_set/v1",
    data_digest="sha256:data",
    output_dir="/out",
    mlflow_uri="sqlite:///mlflow.db",
    mlflow_run_id="run1",
    model_config={},
    train_config={},
)


def test_the_summary_names_each_number_once():
    assert SUMMARY.metrics() == {
        "val_auc": 0.75,
        "val_log_loss": 0.55,
        "val_accuracy": 0.71,
        "test_auc": 0.74,
        "test_log_loss": 0.5,
        "test_accuracy": 0.72,
        "baseline_val_auc": 0.76,
        "baseline_test_auc": 0.77,
        "auc_gap_to_baseline": pytest.approx(0.01),
        "samples_per_second": 10000.0,
        "flops_per_sample": 1234.0,
        "epochs": 2,
    }
    # MLflow holds the per-epoch metrics with their epoch as step already.
    assert SUMMARY.run_metrics() == {
        "test_auc": 0.74,
        "test_log_loss": 0.5,
        "test_accuracy": 0.72,
        "baseline_val_auc": 0.76,
        "baseline_test_auc": 0.77,
        "auc_gap_to_baseline": pytest.approx(0.01),
        "flops_per_sample": 1234.0,
        "epochs": 2.0,
    }
    assert SUMMARY.done_message() == "done: val AUC 0.7500 (baseline 0.7600), test AUC 0.7400"


def test_mfu_is_reported_only_where_there_is_a_peak():
    from dataclasses import replace

    on_gpu = replace(SUMMARY, mfu=0.41)
    assert on_gpu.metrics()["mfu"] == 0.41 and on_gpu.run_metrics()["mfu"] == 0.41
    assert "mfu" not in SUMMARY.metrics()


def test_what_pipes_carries_is_read_from_the_summary():
    metadata = pipes_metadata(SUMMARY, JOB, RUNTIME, "models:/m-1", "abc")
    assert metadata["val_auc"] == {"raw_value": 0.75, "type": "float"}
    assert metadata["epochs"] == {"raw_value": 2.0, "type": "float"}
    assert metadata["batch_size"] == {"raw_value": 256, "type": "int"}
    assert metadata["world_size"] == {"raw_value": 2, "type": "int"}
    assert metadata["model_digest"] == {"raw_value": "sha256:abc", "type": "text"}
    assert metadata["mlflow_run_id"]["raw_value"] == "run1"
    assert metadata["training_set_digest"]["raw_value"] == "sha256:data"
    assert [r["epoch"] for r in metadata["history"]["raw_value"]] == [0, 1]
    assert set(metadata) == {
        *SUMMARY.metrics(),
        "mlflow_run_id",
        "model_uri",
        "world_size",
        "batch_size",
        "backend",
        "device",
        "training_set_digest",
        "model_digest",
        "history",
        "environment",
    }
    json.dumps(metadata)  # Pipes sends it as JSON


def test_a_training_without_an_epoch_has_no_summary():
    with pytest.raises(ValueError, match="at least one epoch"):
        TrainingSummary((), {}, {}, {}, 0.0, None, 1)
