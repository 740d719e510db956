from __future__ import annotations

import pytest
from torch import nn

from models.config import ModelConfig
from models.flops import DEVICE_PEAK_TFLOPS, device_kind, flops_per_sample, mfu
from models.network import TabularNet


def test_flops_per_sample_counts_every_linear_layer_forward_and_backward():
    net = TabularNet([3, 4], n_numeric=2, config=ModelConfig(embedding_dim=2, hidden=(8, 4)))
    # Input width 2 * 2 + 2 = 6; layers 6->8, 8->4, 4->1; embeddings are lookups.
    multiply_accumulates = 6 * 8 + 8 * 4 + 4 * 1
    assert flops_per_sample(net, n_features=4) == 3 * 2 * multiply_accumulates
    assert net.training  # the count leaves the mode as it found it


def test_flops_per_sample_of_a_plain_mlp():
    mlp = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 1))
    assert flops_per_sample(mlp, n_features=10) == 3 * 2 * (10 * 20 + 20 * 1)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("NVIDIA H100 80GB HBM3", "H100"),
        ("NVIDIA H100 PCIe", "H100"),
        ("NVIDIA H200", "H200"),
        ("NVIDIA GB200", "GB200"),
        ("NVIDIA A100-SXM4-80GB", "A100"),
        ("NVIDIA GH200 480GB", None),
        ("NVIDIA B200", None),
        ("Tesla T4", None),
    ],
)
def test_device_kind(name, kind):
    assert device_kind(name) == kind


def test_mfu_against_the_peak_of_all_devices():
    flops = 3 * 2 * 1000.0
    samples_per_second = 1e9
    expected = samples_per_second * flops / (2 * DEVICE_PEAK_TFLOPS["H200"] * 1e12)
    assert mfu(samples_per_second, flops, "NVIDIA H200", 2) == pytest.approx(expected)


@pytest.mark.parametrize("device_name", [None, "", "Tesla T4"])
def test_mfu_is_none_without_a_known_peak(device_name):
    assert mfu(1e6, 1e3, device_name, 1) is None
