"""Binary classification metrics, shared by the network and the baseline."""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike
from sklearn.metrics import log_loss, roc_auc_score

# Probabilities are clipped into [EPSILON, 1 - EPSILON] for the log loss: float32 sigmoids
# round to exactly 0 or 1 for large logits, and one confident mistake would make it infinite.
EPSILON = 1e-7
THRESHOLD = 0.5


def _as_numpy(values: ArrayLike | torch.Tensor) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float64).reshape(-1)


def binary_metrics(
    labels: ArrayLike | torch.Tensor, probabilities: ArrayLike | torch.Tensor
) -> dict[str, float]:
    """``auc`` (ROC), ``log_loss``, ``accuracy`` at a 0.5 threshold, and ``positive_rate``:
    the fraction predicted positive at that threshold (compare it with the label's mean)."""
    y = _as_numpy(labels)
    p = _as_numpy(probabilities)
    if y.shape != p.shape or y.size == 0:
        raise ValueError(
            f"binary_metrics needs as many labels as probabilities, at least one; got {y.size} "
            f"and {p.size}"
        )
    if np.unique(y).size < 2:
        raise ValueError("binary_metrics: ROC AUC needs both classes among the labels")
    predicted = p >= THRESHOLD
    return {
        "auc": float(roc_auc_score(y, p)),
        "log_loss": float(log_loss(y, np.clip(p, EPSILON, 1.0 - EPSILON), labels=[0.0, 1.0])),
        "accuracy": float(np.mean(predicted == (y == 1.0))),
        "positive_rate": float(np.mean(predicted)),
    }
