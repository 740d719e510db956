"""One training of the delay model, up to and after its launch: the published training set
it reads, the key of its inputs, an earlier finished training of the same key to reuse, the
MLflow run and job of a new one, and what is recorded on that run once it has finished.

A second run on unchanged data must not train again (52 s at scale 0.01, a new MLflow run,
a model that registration then calls "unchanged"). The key says what the weights depend
on: the training set's content digest, the training code (every module of ``models/``, not
the git commit: a commit of docs or SQL changes no weights, an uncommitted edit of the
trainer does), the launch config and where the processes run (world size changes the
weights). It is a tag of the MLflow run, and the MLflow store lives in the home: an earlier
training is looked up where its model is, not in a Dagster instance another home may share.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import models
from models.config import ModelConfig, TrainConfig
from models.job import TrainingJob
from pipelines.lake.store import Lake
from pipelines.registry.versions import (
    RUN_DIGEST_TAG,
    RUN_MODEL_URI_TAG,
    NotATrainingRunError,
    TrainedModel,
    with_retries,
)

TRAINING_KEY_TAG = "plumbline.training_key"
# The cluster checks' verdicts of a finished training (name -> passed, severity,
# description): a training reused later reports them again, as the verdicts of that training.
CHECKS_TAG = "plumbline.checks"
CODE_VERSION_TAG = "code.training_version"
MODELS_ROOT = Path(models.__file__).parent
T = TypeVar("T")


class TrainingError(RuntimeError):
    """Training does not start: no published training set, or one not under its contract."""


@dataclass(frozen=True)
class TrainingSet:
    """The published training set version a training reads."""

    name: str  # zone/table
    path: Path  # the immutable version folder
    digest: str  # its content digest
    contract_version: str
    contract_result: str

    @property
    def version(self) -> str:
        return self.path.name


def published_training_set(lake: Lake, zone: str, table: str) -> TrainingSet:
    """The current version of ``zone/table``, refused unless published under a passing
    contract."""
    version = lake.current(zone, table)
    if version is None:
        raise TrainingError(f"{zone}/{table} has no published table yet")
    contract = version.manifest.get("checks", {}).get(f"{table}_contract", {})
    if not contract.get("passed"):
        # Only a table that held its contract is published; this guards older manifests.
        raise TrainingError(
            f"{version.path}: the training set was not published under a passing contract; "
            "training does not start"
        )
    return TrainingSet(
        name=f"{zone}/{table}",
        path=version.path,
        digest=version.manifest["content_digest"],
        contract_version=str(contract.get("contract_version")),
        contract_result=str(contract.get("result_digest")),
    )


def training_code_version(root: Path = MODELS_ROOT) -> str:
    """A digest over the training code: every module under ``root`` (``models/``, what each
    training process runs), by relative name and content."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()}"


def git_version() -> dict[str, str]:
    """The git commit the code runs from, and whether the tree had uncommitted changes."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"git_sha": "unknown", "git_dirty": "unknown"}
    return {"git_sha": sha, "git_dirty": str(bool(dirty)).lower()}


@dataclass(frozen=True)
class TrainingRequest:
    """What one training is asked for, and by whom."""

    model_config: ModelConfig
    train_config: TrainConfig
    settings: Mapping[str, Any]  # the launch config as given (its check threshold too)
    world: Mapping[str, Any]  # where the processes run: the launcher, nodes, processes
    dagster_run_id: str
    asset: str
    retrain: bool = False  # train even when a training of the same key exists


def training_key(training_set: TrainingSet, code_version: str, request: TrainingRequest) -> str:
    """The digest of everything the weights (and the reused checks' verdicts) depend on."""
    inputs = {
        "training_set": training_set.digest,
        "code": code_version,
        "model_config": request.model_config.to_dict(),
        "train_config": request.train_config.to_dict(),
        "settings": dict(request.settings),
        "world": dict(request.world),
    }
    encoded = json.dumps(inputs, sort_keys=True, default=str).encode()
    return f"sha256:{hashlib.sha256(encoded).hexdigest()}"


@dataclass(frozen=True)
class Reused:
    """A finished training of the same key: its MLflow run, model and check verdicts."""

    run: Any  # mlflow.entities.Run
    trained: TrainedModel
    checks: list[dict[str, Any]]


def reusable_training(client, experiment_id: str, key: str) -> Reused | None:
    """The newest finished training of ``key`` whose model and verdicts were recorded (a
    training that died after its processes finished lacks them, and is not reused)."""
    runs = with_retries(
        lambda: client.search_runs(
            [experiment_id],
            filter_string=f"tags.`{TRAINING_KEY_TAG}` = '{key}' and attributes.status = 'FINISHED'",
            order_by=["attributes.start_time DESC"],
            max_results=20,
        ),
        f"find trainings of key {key}",
    )
    for run in runs:
        if CHECKS_TAG not in run.data.tags:
            continue
        try:
            trained = TrainedModel.from_mlflow_run(run)
        except NotATrainingRunError:
            continue
        return Reused(run, trained, json.loads(run.data.tags[CHECKS_TAG]))
    return None


@dataclass(frozen=True)
class TrainingPlan:
    """What a training step does: reuse ``reused``, else train under ``tags``."""

    training_set: TrainingSet
    key: str
    tags: dict[str, str]
    reused: Reused | None


def plan_training(
    lake: Lake, client, experiment_id: str, request: TrainingRequest, *, zone: str, table: str
) -> TrainingPlan:
    """The training set, the key and MLflow tags of this training, and the earlier training
    it reuses (none when the request says retrain)."""
    training_set = published_training_set(lake, zone, table)
    code_version = training_code_version()
    key = training_key(training_set, code_version, request)
    tags = {
        "dagster.run_id": request.dagster_run_id,
        "dagster.asset": request.asset,
        "training_set.digest": training_set.digest,
        "training_set.version": training_set.version,
        "training_set.contract_version": training_set.contract_version,
        "training_set.contract_result": training_set.contract_result,
        **{f"code.{k}": v for k, v in git_version().items()},
        CODE_VERSION_TAG: code_version,
        TRAINING_KEY_TAG: key,
    }
    reused = None if request.retrain else reusable_training(client, experiment_id, key)
    return TrainingPlan(training_set, key, tags, reused)


def start_training(
    client,
    experiment_id: str,
    plan: TrainingPlan,
    request: TrainingRequest,
    *,
    output_dir: Path,
    mlflow_uri: str,
) -> TrainingJob:
    """A new MLflow run for the training, and the job its processes are given."""
    run = client.create_run(
        experiment_id, run_name=f"delay_model-{request.dagster_run_id[:8]}", tags=plan.tags
    )
    return TrainingJob(
        data_path=str(plan.training_set.path),
        data_digest=plan.training_set.digest,
        output_dir=str(output_dir),
        mlflow_uri=mlflow_uri,
        mlflow_run_id=run.info.run_id,
        model_config=request.model_config.to_dict(),
        train_config=request.train_config.to_dict(),
        tags=plan.tags,
    )


def run_tracked(client, job: TrainingJob, launch: Callable[[TrainingJob], T]) -> T:
    """``launch(job)``; if it fails, the MLflow run is marked failed (never reused)."""
    try:
        return launch(job)
    except BaseException:
        from mlflow.entities import RunStatus

        client.set_terminated(job.mlflow_run_id, status=RunStatus.to_string(RunStatus.FAILED))
        raise


def record_training(
    client, run_id: str, *, model_digest: str, model_uri: str, checks: list[dict[str, Any]]
) -> None:
    """Name the finished run's model and verdicts on the run itself: registration by run id
    alone (RegistrationConfig.mlflow_run_id) and a later reuse read these. The verdicts go
    last: a run without them is not reused."""
    for tag, value in (
        (RUN_DIGEST_TAG, model_digest),
        (RUN_MODEL_URI_TAG, model_uri),
        (CHECKS_TAG, json.dumps(checks, sort_keys=True)),
    ):
        with_retries(
            lambda tag=tag, value=value: client.set_tag(run_id, tag, value),
            f"tag run {run_id}",
        )
