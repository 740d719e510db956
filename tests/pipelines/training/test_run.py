"""One training's plan without Dagster: the published training set, the key of its inputs,
and which earlier training is reused, against a real lake and a real MLflow (sqlite)."""

import dataclasses
import json
from pathlib import Path

import mlflow
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from models.config import ModelConfig, TrainConfig
from pipelines.lake.store import Lake
from pipelines.training.run import (
    CHECKS_TAG,
    TRAINING_KEY_TAG,
    TrainingError,
    TrainingRequest,
    TrainingSet,
    plan_training,
    published_training_set,
    record_training,
    reusable_training,
    training_code_version,
    training_key,
)

REQUEST = TrainingRequest(
    model_config=ModelConfig(),
    train_config=TrainConfig(epochs=2),
    settings={"epochs": 2, "throughput_threshold": 0.92},
    world={"launcher": "local", "nodes": 1, "processes_per_node": 2},
    dagster_run_id="run-1",
    asset="models/delay_model",
)
TRAINING_SET = TrainingSet("warehouse/training_set", Path("/lake/v1"), "d-1", "1.0", "r-1")
CODE = "sha256:code"


@pytest.mark.parametrize(
    ("training_set", "code", "request_"),
    [
        (dataclasses.replace(TRAINING_SET, digest="d-2"), CODE, REQUEST),
        (TRAINING_SET, "sha256:other-code", REQUEST),
        (TRAINING_SET, CODE, dataclasses.replace(REQUEST, train_config=TrainConfig(seed=7))),
        (TRAINING_SET, CODE, dataclasses.replace(REQUEST, settings={"epochs": 3})),
        (TRAINING_SET, CODE, dataclasses.replace(REQUEST, world={"processes_per_node": 4})),
    ],
)
def test_the_key_changes_with_every_input_of_the_weights(training_set, code, request_):
    assert training_key(TRAINING_SET, CODE, REQUEST) == training_key(
        dataclasses.replace(TRAINING_SET, path=Path("/lake/v2")),  # another folder, same data
        CODE,
        dataclasses.replace(REQUEST, dagster_run_id="run-2", retrain=True),
    )
    assert training_key(training_set, code, request_) != training_key(TRAINING_SET, CODE, REQUEST)


def test_the_code_version_follows_the_training_modules(tmp_path):
    (tmp_path / "trainer.py").write_text("LR = 1\n")
    first = training_code_version(tmp_path)
    assert training_code_version(tmp_path) == first
    (tmp_path / "trainer.py").write_text("LR = 2\n")
    assert training_code_version(tmp_path) != first
    assert training_code_version().startswith("sha256:")  # models/ itself


def publish(lake: Lake, passed: bool) -> None:
    with lake.stage("warehouse", "training_set") as staging:
        pq.write_table(pa.table({"x": [1]}), staging / "part-0.parquet")
        lake.publish(
            "warehouse",
            "training_set",
            staging,
            {
                "content_digest": "d-1",
                "checks": {"training_set_contract": {"passed": passed, "contract_version": "1"}},
            },
        )


def test_only_a_training_set_published_under_its_contract_is_trained_on(tmp_path):
    lake = Lake(tmp_path / "lake")
    with pytest.raises(TrainingError, match="warehouse/training_set has no published table yet"):
        published_training_set(lake, "warehouse", "training_set")
    publish(lake, passed=False)
    with pytest.raises(TrainingError, match="not published under a passing contract"):
        published_training_set(lake, "warehouse", "training_set")
    publish(lake, passed=True)
    found = published_training_set(lake, "warehouse", "training_set")
    assert (found.digest, found.contract_version) == ("d-1", "1")


@pytest.fixture
def client(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    return mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)


def finished_training(client, experiment: str, key: str, *, recorded: bool = True) -> str:
    run = client.create_run(experiment, tags={TRAINING_KEY_TAG: key})
    run_id = run.info.run_id
    for metric in ("val_auc", "baseline_val_auc"):
        client.log_metric(run_id, metric, 0.8)
    client.set_terminated(run_id)
    if recorded:
        checks = [{"check_name": "c", "passed": True, "severity": "WARN", "description": "ok"}]
        record_training(
            client,
            run_id,
            model_digest="sha256:m",
            model_uri=f"runs:/{run_id}/model",
            checks=checks,
        )
    return run_id


def test_a_finished_recorded_training_of_the_same_key_is_reused(client, tmp_path):
    experiment = client.create_experiment("delivery_delay")
    lake = Lake(tmp_path / "lake")
    publish(lake, passed=True)

    def plan(**changes):
        request = dataclasses.replace(REQUEST, **changes)
        return plan_training(
            lake, client, experiment, request, zone="warehouse", table="training_set"
        )

    key = plan().key
    assert plan().reused is None, "nothing trained yet"
    finished_training(client, experiment, key, recorded=False)  # died before its tags
    failed = client.create_run(experiment, tags={TRAINING_KEY_TAG: key})
    client.set_terminated(failed.info.run_id, status="FAILED")
    finished_training(client, experiment, "sha256:another-key")
    assert plan().reused is None
    assert reusable_training(client, experiment, key) is None

    reusable = finished_training(client, experiment, key)
    found = plan()
    assert found.reused is not None and found.reused.run.info.run_id == reusable
    assert found.reused.trained.model_digest == "sha256:m"
    assert found.reused.checks == json.loads(found.reused.run.data.tags[CHECKS_TAG])
    assert found.tags[TRAINING_KEY_TAG] == key
    assert plan(retrain=True).reused is None, "retrain trains again"
    assert plan(train_config=TrainConfig(epochs=3)).reused is None, "another config"
