"""Launching the delay model's training: a job spec, and launchers that start it.

The ``delay_model`` asset writes a :class:`TrainingJob` and hands it to a launcher; the
launcher decides how the training processes start (here: ``torchrun`` on this machine through
Dagster Pipes; later: a Kubernetes job) without the asset knowing.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

TRAINING_MODULE = "models.train"
JOB_FILE = "job.json"
ERRORS_DIR = "errors"


@dataclass(frozen=True)
class TrainingJob:
    """Everything a training process needs, written to ``<output_dir>/job.json``."""

    data_path: str  # the pinned, published training_set version folder
    data_digest: str  # its content digest
    output_dir: str  # checkpoints/, errors/, preprocessing.json, curve.png
    mlflow_uri: str
    mlflow_run_id: str  # created by the asset, so a restarted worker group reuses it
    model_config: dict[str, Any] = field(default_factory=dict)
    train_config: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def checkpoint_dir(self) -> Path:
        return Path(self.output_dir) / "checkpoints"

    @property
    def errors_dir(self) -> Path:
        return Path(self.output_dir) / ERRORS_DIR

    def write(self) -> Path:
        path = Path(self.output_dir) / JOB_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True))
        return path

    @classmethod
    def read(cls, path: Path) -> TrainingJob:
        return cls(**json.loads(Path(path).read_text()))


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
