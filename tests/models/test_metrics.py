from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from models.metrics import EPSILON, binary_metrics


def test_values_on_a_hand_checked_example():
    labels = [0, 0, 1, 1]
    probabilities = [0.1, 0.6, 0.4, 0.9]
    metrics = binary_metrics(labels, probabilities)
    # Of the 4 (positive, negative) pairs, only (0.4, 0.6) is ranked wrongly.
    assert metrics["auc"] == pytest.approx(0.75)
    expected_log_loss = -(math.log(0.9) + math.log(0.4) + math.log(0.4) + math.log(0.9)) / 4
    assert metrics["log_loss"] == pytest.approx(expected_log_loss)
    assert metrics["accuracy"] == pytest.approx(0.5)
    assert metrics["positive_rate"] == pytest.approx(0.5)
    assert all(type(value) is float for value in metrics.values())


def test_accepts_tensors_and_clips_certain_mistakes():
    metrics = binary_metrics(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0]))
    assert metrics["log_loss"] == pytest.approx(-math.log(EPSILON) / 2, rel=1e-6)
    assert metrics["auc"] == 0.5


@pytest.mark.parametrize(
    ("labels", "probabilities", "message"),
    [
        ([1, 1], [0.2, 0.9], "both classes"),
        ([0, 1], [0.2], "as many labels"),
        (np.array([]), np.array([]), "at least one"),
    ],
)
def test_undefined_inputs_are_refused(labels, probabilities, message):
    with pytest.raises(ValueError, match=message):
        binary_metrics(labels, probabilities)
