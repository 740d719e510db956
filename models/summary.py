"""What one finished training reports: the training loop's history, the test set scored once,
the HistGradientBoosting baseline on the same split, and the run's FLOPs and MFU.

``models.train`` fills a :class:`TrainingSummary` once the loop has finished and rank 0 has
scored the test set and the baseline; what it logs to MLflow and reports through Dagster
Pipes is read from it, so each value has one name and one place it is computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# What each epoch logs to MLflow with the epoch as its step (models.train.Reporter.epoch).
EPOCH_METRICS = (
    "train_loss",
    "val_auc",
    "val_log_loss",
    "val_accuracy",
    "samples_per_second",
    "step_time_ms",
    "data_time_share",
    "epoch_seconds",
    "peak_memory_mb",
)
# Summary values that repeat the last epoch's metrics: Dagster metadata only.
FINAL_ONLY = ("val_auc", "val_log_loss", "val_accuracy")


@dataclass(frozen=True)
class TrainingSummary:
    """One finished training, as rank 0 reports it."""

    history: tuple[Mapping[str, Any], ...]  # one record per epoch (models.trainer.Trainer.fit)
    test: Mapping[str, float]  # the network on the test set: auc, log_loss, accuracy
    baseline_val: Mapping[str, float]  # the baseline on the validation set
    baseline_test: Mapping[str, float]  # ... and on the test set
    flops_per_sample: float  # training FLOPs per row (models.flops.flops_per_sample)
    mfu: float | None  # of the GPUs' peak; None on CPU or an unknown device
    batch_size: int  # rows per rank and step, as resolved for the training set

    def __post_init__(self) -> None:
        if not self.history:
            raise ValueError("TrainingSummary: a finished training has at least one epoch")

    @property
    def final(self) -> Mapping[str, Any]:
        """The last epoch's record."""
        return self.history[-1]

    def metrics(self) -> dict[str, float]:
        """The training's summary numbers, by name (``mfu`` only where there is a peak)."""
        final = self.final
        summary = {
            "val_auc": final["val_auc"],
            "val_log_loss": final["val_log_loss"],
            "val_accuracy": final["val_accuracy"],
            "test_auc": self.test["auc"],
            "test_log_loss": self.test["log_loss"],
            "test_accuracy": self.test["accuracy"],
            "baseline_val_auc": self.baseline_val["auc"],
            "baseline_test_auc": self.baseline_test["auc"],
            "auc_gap_to_baseline": self.baseline_val["auc"] - final["val_auc"],
            "samples_per_second": final["samples_per_second"],
            "flops_per_sample": self.flops_per_sample,
            "epochs": len(self.history),
        }
        if self.mfu is not None:
            summary["mfu"] = self.mfu
        return summary

    def run_metrics(self) -> dict[str, float]:
        """What MLflow does not hold yet: per-epoch metrics are logged with their epoch as
        the step, so the summary's copies of them are left out."""
        return {
            name: float(value)
            for name, value in self.metrics().items()
            if name not in EPOCH_METRICS and name not in FINAL_ONLY
        }

    def done_message(self) -> str:
        """The training's last log line."""
        return (
            f"done: val AUC {self.final['val_auc']:.4f} "
            f"(baseline {self.baseline_val['auc']:.4f}), test AUC {self.test['auc']:.4f}"
        )
