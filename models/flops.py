"""Model FLOPs utilization: achieved training FLOP/s over the accelerator's peak."""

from __future__ import annotations

import re

import torch
from torch import nn

# Dense (not 2:4 sparse) bf16 tensor-core peaks per GPU in TFLOP/s, from NVIDIA's data sheets:
# SXM parts (an H100 PCIe peaks lower, at 756), GB200 per Blackwell GPU.
DEVICE_PEAK_TFLOPS: dict[str, float] = {
    "A100": 312.0,
    "GB200": 2500.0,
    "H100": 989.0,
    "H200": 989.0,
}

# Forward plus backward: the backward pass computes gradients for both a layer's input and
# its weights, two matmuls of the forward's size.
FORWARD_BACKWARD_FACTOR = 3


def flops_per_sample(model: nn.Module, n_features: int) -> float:
    """Training FLOPs (forward and backward) for one sample, counted from the ``nn.Linear``
    layers a forward pass of one row runs: 2 * in * out each. Embedding lookups, activations
    and the loss are ignored: they are memory-bound and small beside the matmuls."""
    flops = 0

    def count(module: nn.Linear, inputs: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        nonlocal flops
        rows = inputs[0].numel() // module.in_features
        flops += 2 * rows * module.in_features * module.out_features

    parameter = next(model.parameters(), None)
    device = parameter.device if parameter is not None else torch.device("cpu")
    hooks = [
        module.register_forward_hook(count)
        for module in model.modules()
        if isinstance(module, nn.Linear)
    ]
    was_training = model.training
    try:
        model.eval()
        with torch.no_grad():
            # Zeros are valid category codes (the unknown row) and valid standardized numerics.
            model(torch.zeros(1, n_features, device=device))
    finally:
        for hook in hooks:
            hook.remove()
        model.train(was_training)
    return float(FORWARD_BACKWARD_FACTOR * flops)


def device_kind(name: str) -> str | None:
    """The ``DEVICE_PEAK_TFLOPS`` key for a CUDA device name such as ``"NVIDIA H100 80GB
    HBM3"``, or None for a device not in the table."""
    for kind in DEVICE_PEAK_TFLOPS:
        # Whole tokens only: "GH200" is not an "H200", nor is "B200" a "GB200".
        if re.search(rf"(?<![A-Z0-9]){kind}(?![A-Z0-9])", name.upper()):
            return kind
    return None


def mfu(
    samples_per_second: float,
    flops_per_sample: float,
    device_name: str | None,
    n_devices: int,
) -> float | None:
    """Fraction of ``n_devices`` GPUs' dense bf16 peak the run achieved; None on CPU or on a
    device not in ``DEVICE_PEAK_TFLOPS``, where there is no meaningful peak to compare with."""
    if n_devices < 1:
        raise ValueError(f"mfu: n_devices must be >= 1; got {n_devices}")
    kind = device_kind(device_name) if device_name else None
    if kind is None:
        return None
    return samples_per_second * flops_per_sample / (n_devices * DEVICE_PEAK_TFLOPS[kind] * 1e12)
