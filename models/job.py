"""What one training run is given: the job file a launcher writes and ``models.train`` reads.

The ``delay_model`` asset describes the run as a :class:`TrainingJob`; a launcher
(``pipelines.launch``: ``torchrun`` on this machine, or a Kubernetes job) writes it to
``<output_dir>/job.json`` and starts ``python -m models.train --job <that file>`` in each process.
"""

from __future__ import annotations

import json
import urllib.parse
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

    def __post_init__(self) -> None:
        # job.json lies on disk (on Kubernetes on a shared volume): a credential in it would
        # be at rest. MLflow's client takes them from MLFLOW_TRACKING_USERNAME/PASSWORD.
        if "@" in urllib.parse.urlsplit(self.mlflow_uri).netloc:
            raise ValueError(
                "TrainingJob.mlflow_uri must not hold credentials; pass them as "
                "MLFLOW_TRACKING_USERNAME / MLFLOW_TRACKING_PASSWORD in the environment"
            )

    def write(self) -> Path:
        path = Path(self.output_dir) / JOB_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True))
        return path

    @classmethod
    def read(cls, path: Path) -> TrainingJob:
        return cls(**json.loads(Path(path).read_text()))
