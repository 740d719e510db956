"""The software and hardware a training run executed on, as flat strings (MLflow tags
``env.*``, the audit bundle's environment, and the baseline a cluster is compared with)."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import torch

PACKAGES = ("numpy", "pyarrow", "mlflow", "scikit-learn", "dagster-pipes")

# The lock (requirements/*.lock) this environment was installed from: every install from one
# copies it here (the Makefile into .venv, the Dockerfiles into their image's prefix). The copy,
# not a file of the checkout: a checkout holds one lock per kind of install and cannot say which
# one built the running interpreter, and its lock can move on while an environment built from an
# older one is still in use.
INSTALLED_LOCK = Path(sys.prefix) / "plumbline-requirements.lock"
LOCK_ABSENT = "absent"


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


def lock_digest(lock: Path) -> str:
    """``sha256:<hex>`` of the lock file's bytes, the digest to look for among the
    repository's ``requirements/*.lock`` to rebuild this environment exactly; ``absent`` for an
    environment installed without a lock (``pip install -e .``), which cannot be rebuilt."""
    try:
        return "sha256:" + hashlib.sha256(lock.read_bytes()).hexdigest()
    except FileNotFoundError:
        return LOCK_ABSENT


def fingerprint() -> dict[str, str]:
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "host": platform.node(),
        "cpus": str(_usable_cpus()),
        "torch": torch.__version__,
        "requirements_lock": lock_digest(INSTALLED_LOCK),
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
