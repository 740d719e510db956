"""Registration, aliases, their history and batch scoring against both MLflow backends we
run: a sqlite file, and a real ``mlflow server`` (REST, artifacts proxied) on 127.0.0.1.

Models are logged as MLflow 3 logged models (``models:/m-...``), the form ``log_model``
returns in training. Each test uses its own registered model name: one server serves the
whole module.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import mlflow
import mlflow.pytorch
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from mlflow import MlflowClient
from mlflow.entities import LoggedModelStatus
from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import TEMPORARILY_UNAVAILABLE

from assets.registry import registered_model
from models.data import CATEGORICAL, KEY, NUMERIC, Preprocessing
from pipelines.lake.store import Lake
from pipelines.registry.scoring import PREPROCESSING_FILE, load_scorer, score_table
from pipelines.registry.versions import (
    ALIAS_TAG_PREFIX,
    CHAMPION,
    MODEL_NAME,
    RUN_DIGEST_TAG,
    RUN_MODEL_URI_TAG,
    AliasHistory,
    RegistryError,
    alias_version,
    move_alias,
    register_version,
)
from pipelines.resources import LakeResource, MlflowResource

BACKENDS = ["sqlite", "server"]
# The server boots (seconds) while the sqlite half of the module runs: the module-scoped
# backend fixture makes pytest run every sqlite case first.
pytestmark = pytest.mark.usefixtures("tracking_server_process")


@dataclass(frozen=True)
class Backend:
    kind: str
    uri: str
    # Where a sqlite store keeps artifacts; the server chooses (mlflow-artifacts:/) itself.
    artifact_root: Path | None

    def client(self, cls: type[MlflowClient] = MlflowClient) -> MlflowClient:
        # Both URIs explicit: MLflow's default registry URI is process-wide state.
        return cls(tracking_uri=self.uri, registry_uri=self.uri)


@pytest.fixture(scope="module")
def sqlite_uri(tmp_path_factory) -> str:
    """One sqlite store for the module (creating its schema takes seconds)."""
    uri = f"sqlite:///{tmp_path_factory.mktemp('mlflow') / 'mlflow.db'}"
    MlflowClient(tracking_uri=uri, registry_uri=uri).search_experiments()
    return uri


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request, tmp_path_factory) -> Backend:
    if request.param == "server":
        return Backend("server", request.getfixturevalue("tracking_server"), None)
    return Backend(
        "sqlite", request.getfixturevalue("sqlite_uri"), tmp_path_factory.mktemp("artifacts")
    )


@pytest.fixture
def name() -> str:
    return f"delay_{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """A real pytorch MLflow model folder with its preprocessing.json, saved once: a linear
    layer over the encoded features (no tracking URI needed to save it)."""
    root = tmp_path_factory.mktemp("tiny_model")
    preprocessing = Preprocessing.fit(features_table(4))
    (root / PREPROCESSING_FILE).write_text(preprocessing.to_json())
    torch.manual_seed(0)
    network = torch.nn.Sequential(
        torch.nn.Linear(len(CATEGORICAL) + len(NUMERIC), 1), torch.nn.Flatten(0)
    ).eval()
    mlflow.pytorch.save_model(
        network,
        root / "model",
        input_example=preprocessing.encode_features(features_table(2)).numpy(),
        extra_files=[str(root / PREPROCESSING_FILE)],
        pip_requirements=["torch", "numpy"],
    )
    return root / "model"


def features_table(rows: int) -> pa.Table:
    columns = {
        KEY[0]: pa.array(range(rows), pa.int64()),
        KEY[1]: pa.array([1] * rows, pa.int32()),
    }
    columns |= {c: pa.array([f"{c}-{i % 2}" for i in range(rows)]) for c in CATEGORICAL}
    columns |= {c: pa.array([float(i) for i in range(rows)]) for c in NUMERIC}
    return pa.table(columns)


def logged_model(backend: Backend, folder: Path) -> tuple[str, str]:
    """A finished MLflow run and the logged model it made from ``folder``, as training
    leaves them: (run id, ``models:/<model_id>``)."""
    client = backend.client()
    location = backend.artifact_root.as_uri() if backend.artifact_root else None
    experiment = client.create_experiment(f"e-{uuid.uuid4().hex}", artifact_location=location)
    run_id = client.create_run(experiment).info.run_id
    model = client.create_logged_model(experiment, name="model", source_run_id=run_id)
    client.log_model_artifacts(model.model_id, str(folder))
    client.finalize_logged_model(model.model_id, LoggedModelStatus.READY)
    client.set_terminated(run_id)
    return run_id, f"models:/{model.model_id}"


@pytest.fixture
def stub_folder(tmp_path) -> Path:
    """A model folder for tests that never load it."""
    folder = tmp_path / "stub"
    folder.mkdir()
    (folder / "MLmodel").write_text("flavors: {}\n")
    return folder


def test_registration_is_idempotent_and_tagged(backend, name, stub_folder):
    client = backend.client()
    run_id, uri = logged_model(backend, stub_folder)
    version = register_version(client, name, run_id=run_id, model_uri=uri, tags={"a": "1"})
    client.delete_model_version_tag(name, version.version, "a")  # lost to an interruption
    again = register_version(client, name, run_id=run_id, model_uri=uri, tags={"a": "1"})
    assert str(version.version) == str(again.version) == "1"
    assert version.run_id == run_id and again.tags["a"] == "1"
    assert len(client.search_model_versions(f"name = '{name}'")) == 1


class WorkerKilled(BaseException):
    """The run's process dies (not an error any code handles)."""


class DiesBeforeCreating(MlflowClient):
    """The run dies after the registered model was created, before its version was."""

    def create_model_version(self, *args, **kwargs):
        raise WorkerKilled


class AnswerLostAfterCreating(MlflowClient):
    """The version is created, then its answer is lost to a transient error, which
    ``with_retries`` retries."""

    failed = False

    def create_model_version(self, *args, **kwargs):
        version = super().create_model_version(*args, **kwargs)
        if not self.failed:
            self.failed = True
            raise MlflowException("connection reset", error_code=TEMPORARILY_UNAVAILABLE)
        return version


def test_a_run_that_dies_after_creating_the_model_is_completed_by_its_retry(
    backend, name, stub_folder
):
    run_id, uri = logged_model(backend, stub_folder)
    tags = {"plumbline.model_digest": "sha256:x"}
    with pytest.raises(WorkerKilled):
        register_version(
            backend.client(DiesBeforeCreating), name, run_id=run_id, model_uri=uri, tags=tags
        )
    assert versions_of(backend, name) == []
    version = register_version(backend.client(), name, run_id=run_id, model_uri=uri, tags=tags)
    assert versions_of(backend, name) == ["1"]
    assert version.tags == tags and version.run_id == run_id
    assert len(backend.client().search_registered_models(f"name = '{name}'")) == 1


def test_a_lost_answer_does_not_register_twice(backend, name, stub_folder):
    run_id, uri = logged_model(backend, stub_folder)
    client = backend.client(AnswerLostAfterCreating)
    version = register_version(client, name, run_id=run_id, model_uri=uri, tags={"a": "1"})
    assert client.failed and versions_of(backend, name) == ["1"]
    assert str(version.version) == "1" and version.tags == {"a": "1"}


def versions_of(backend: Backend, name: str) -> list[str]:
    return [str(v.version) for v in backend.client().search_model_versions(f"name = '{name}'")]


@pytest.mark.parametrize(
    "model_uri, error",
    [
        ("models:/m-0123456789abcdef0123456789abcdef", "MLflow refused models:/m-0123"),
        ("runs:/another-run/model", "belongs to another MLflow run"),
    ],
)
def test_a_source_mlflow_would_refuse_creates_nothing(backend, name, stub_folder, model_uri, error):
    client = backend.client()
    run_id, _ = logged_model(backend, stub_folder)
    with pytest.raises(RegistryError, match=error):
        register_version(client, name, run_id=run_id, model_uri=model_uri, tags={})
    assert client.search_registered_models(f"name = '{name}'") == []


def test_a_model_of_another_run_is_refused(backend, name, stub_folder):
    client = backend.client()
    _, uri = logged_model(backend, stub_folder)
    other_run, _ = logged_model(backend, stub_folder)
    with pytest.raises(RegistryError, match="was logged by MLflow run"):
        register_version(client, name, run_id=other_run, model_uri=uri, tags={})
    assert client.search_registered_models(f"name = '{name}'") == []


def test_alias_moves_and_their_history(backend, name, stub_folder, tmp_path):
    client = backend.client()
    history = AliasHistory(tmp_path / "alias_history")
    versions = []
    for _ in range(2):
        run_id, uri = logged_model(backend, stub_folder)
        versions.append(
            register_version(client, name, run_id=run_id, model_uri=uri, tags={}).version
        )
    clock = iter(dt.datetime(2026, 1, 1, 0, 0, s, tzinfo=dt.UTC) for s in range(10))
    now = lambda: next(clock)  # noqa: E731
    moves = [
        move_alias(client, history, name, "champion", v, dagster_run_id=r, reason=r, now=now)
        for v, r in [(versions[0], "r1"), (versions[0], "r1"), (versions[1], "r2")]
    ]
    assert moves[1] is None, "a retry moves nothing and records nothing"
    assert history.moves(name) == [moves[0], moves[2]]
    assert (moves[2].from_version, moves[2].to_version) == ("1", "2")
    assert alias_version(client, name, "champion") == "2"
    tags = client.get_model_version(name, "2").tags
    [trail] = [v for k, v in tags.items() if k.startswith(ALIAS_TAG_PREFIX)]
    assert trail.startswith("champion: v1 -> v2 at ") and trail.endswith("Dagster run r2: r2")

    client.set_registered_model_alias(name, "challenger", "1")  # died right after this
    move = move_alias(client, history, name, "challenger", "1", dagster_run_id="r3", reason="x")
    assert move is not None and "recorded on retry" in move.reason


def test_the_champion_scores_a_table(backend, name, tiny_model, tmp_path):
    client = backend.client()
    run_id, uri = logged_model(backend, tiny_model)
    version = register_version(client, name, run_id=run_id, model_uri=uri, tags={}).version
    history = AliasHistory(tmp_path / "alias_history")
    move_alias(client, history, name, "champion", version, dagster_run_id="r", reason="first")
    champion = alias_version(client, name, "champion")

    scorer = load_scorer(backend.uri, name, champion)
    source = tmp_path / "open_lines.parquet"
    pq.write_table(features_table(5), source)
    summary = score_table(scorer, source, tmp_path / "scores")

    scores = pq.read_table(tmp_path / "scores" / "part-0.parquet")
    assert summary.rows == scores.num_rows == 5
    assert set(scores["model_version"].to_pylist()) == {int(champion)}
    assert all(0.0 <= p <= 1.0 for p in scores["late_probability"].to_pylist())


@pytest.fixture
def process_wide_mlflow_uris():
    """MlflowResource.client() sets MLflow's process-wide URIs: put them back afterwards, so
    that later tests in this process do not talk to the server."""
    tracking, registry = mlflow.get_tracking_uri(), mlflow.get_registry_uri()
    yield
    mlflow.set_tracking_uri(tracking)
    mlflow.set_registry_uri(registry)


def publish(lake: Lake, zone: str, table: str, rows: pa.Table, manifest: dict) -> str:
    with lake.stage(zone, table) as staging:
        pq.write_table(rows, staging / "part-0.parquet")
        return lake.publish(zone, table, staging, manifest).path.name


@pytest.mark.usefixtures("process_wide_mlflow_uris")
def test_the_asset_registers_and_promotes_on_the_server(tracking_server, stub_folder, tmp_path):
    """registered_model, for a training named by its MLflow run, with MlflowResource pointed
    at the server. (batch_scores makes the MLflow calls of test_the_champion_scores_a_table;
    in a Dagster run it would add seconds of contract compilation.)"""
    lake = Lake(tmp_path / "lake")
    training_set = publish(
        lake, "warehouse", "training_set", pa.table({"x": [1]}), {"content_digest": "d-t"}
    )
    server = Backend("server", tracking_server, None)
    client = server.client()
    run_id, uri = logged_model(server, stub_folder)
    for key, value in {
        RUN_DIGEST_TAG: "sha256:tiny",
        RUN_MODEL_URI_TAG: uri,
        "training_set.version": training_set,
    }.items():
        client.set_tag(run_id, key, value)
    client.log_metric(run_id, "val_auc", 0.9)
    client.log_metric(run_id, "baseline_val_auc", 0.8)

    result = dg.materialize(
        [registered_model],
        resources={
            "lake": LakeResource(root=str(lake.root)),
            "mlflow_tracking": MlflowResource(
                tracking_uri=tracking_server, artifact_root=str(tmp_path / "mlartifacts")
            ),
        },
        run_config=dg.RunConfig(
            ops={"models__registered_model": {"config": {"mlflow_run_id": run_id}}}
        ),
    )

    assert result.success
    assert alias_version(client, MODEL_NAME, CHAMPION) == "1"
    assert client.get_model_version(MODEL_NAME, "1").run_id == run_id
    history = AliasHistory(lake.root / "registry" / "alias_history").moves(MODEL_NAME)
    assert [(m.alias, m.to_version) for m in history] == [("challenger", "1"), (CHAMPION, "1")]
