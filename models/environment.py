"""The software and hardware a training run executed on, as flat strings (MLflow tags
``env.*``, the audit bundle's environment, and the baseline a cluster is compared with)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from importlib import metadata

import torch

PACKAGES = ("numpy", "pyarrow", "mlflow", "scikit-learn", "dagster-pipes")


def _nvidia_smi() -> dict[str, str]:
    """Driver and VBIOS of GPU 0, from ``nvidia-smi`` (torch does not report them)."""
    binary = shutil.which("nvidia-smi")
    if binary is None:
        return {}
    try:
        line = subprocess.run(
            [binary, "--query-gpu=driver_version,vbios_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=20,
        ).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return {}
    driver, _, vbios = (part.strip() for part in line.partition(","))
    return {"driver": driver, "vbios": vbios}


def _usable_cpus() -> int:
    # The cores this process may run on (a container's cpuset), not the host's count.
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def fingerprint() -> dict[str, str]:
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "host": platform.node(),
        "cpus": str(_usable_cpus()),
        "torch": torch.__version__,
    }
    for name in PACKAGES:
        try:
            info[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    if torch.cuda.is_available():
        info |= {
            "cuda": str(torch.version.cuda),
            "cudnn": str(torch.backends.cudnn.version()),
            "nccl": ".".join(map(str, torch.cuda.nccl.version())),
            "gpu": torch.cuda.get_device_name(0),
            "gpu_count": str(torch.cuda.device_count()),
            **_nvidia_smi(),
        }
    return info
