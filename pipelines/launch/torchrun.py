"""Starting training processes on this machine: ``torchrun --standalone`` commands, the
number of processes, and the traceback of the worker that failed.

The job itself (:class:`models.job.TrainingJob`) is written by the asset; the Dagster Pipes
client that runs these commands is ``pipelines.resources.TrainingLauncherResource``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from models.job import TRAINING_MODULE, TrainingJob


def default_nproc() -> int:
    """One process per GPU; two on a CPU-only machine (gloo)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 2


def standalone_torchrun(
    module: str, args: list[str], nproc: int, max_restarts: int | None = None
) -> list[str]:
    """``torchrun --standalone`` on this node: ``nproc`` processes of ``python -m module args``."""
    restarts = [] if max_restarts is None else [f"--max-restarts={max_restarts}"]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        *restarts,
        "-m",
        module,
        *args,
    ]


def torchrun_command(job_path: Path, nproc: int, max_restarts: int) -> list[str]:
    """``torchrun --standalone`` for one node; the job file is the only argument."""
    return standalone_torchrun(TRAINING_MODULE, ["--job", str(job_path)], nproc, max_restarts)


def worker_failure(job: TrainingJob) -> str | None:
    """The traceback of the first worker that failed (each writes ``errors/rank<N>.txt``)."""
    if not job.errors_dir.is_dir():
        return None
    reports = sorted(job.errors_dir.glob("rank*.txt"), key=lambda p: p.stat().st_mtime)
    if not reports:
        return None
    first = reports[0]
    return f"training worker {first.stem} failed:\n{first.read_text()}"
