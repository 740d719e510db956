"""Which hardware a training run executed on, from its environment fingerprint
(:func:`models.environment.fingerprint`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

CPU = "cpu"
# The GPU pools the Kubernetes launcher targets. Longest first is not needed: the match is
# on whole tokens, so "GB200" is not a "B200" and "GH200" is not an "H200".
GPU_TYPES = ("h100", "h200", "gb200")


def hardware_type(environment: Mapping[str, str]) -> str:
    """``cpu``, ``h100``, ``h200`` or ``gb200``; another GPU as ``gpu-<its name>``, for which
    no deploy file has entries (the checks then say so rather than compare with a neighbour)."""
    gpu = environment.get("gpu")
    if not gpu:
        return CPU
    for kind in GPU_TYPES:
        if re.search(rf"(?<![A-Z0-9]){kind.upper()}(?![A-Z0-9])", gpu.upper()):
            return kind
    return "gpu-" + re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")


def reference_hardware(environment: Mapping[str, str]) -> str:
    """The reference-profile key: the hardware type, and for CPUs the usable core count too
    (``cpu-2cores``), since CPU throughput scales with cores while a GPU type fixes its
    device. A fingerprint without ``cpus`` gives plain ``cpu``, which no profile lists."""
    kind = hardware_type(environment)
    if kind == CPU and environment.get("cpus"):
        return f"{CPU}-{environment['cpus']}cores"
    return kind
