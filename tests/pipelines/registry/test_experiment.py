"""The training experiment opens on MLflow 3's model-training pages: MlflowResource creates
it with the experiment-kind tag, and marks an existing experiment that lacks it."""

from __future__ import annotations

import mlflow
import pytest

from pipelines.resources import EXPERIMENT_KIND, EXPERIMENT_KIND_TAG, MlflowResource
from tests.mlflow_store import copy_store


@pytest.fixture
def resource(tmp_path, mlflow_store_template) -> MlflowResource:
    # An empty store copied, not migrated again (tests/mlflow_store.py).
    copy_store(mlflow_store_template, tmp_path)
    return MlflowResource(
        tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}",
        artifact_root=str(tmp_path / "mlartifacts"),
    )


def client(resource: MlflowResource) -> mlflow.MlflowClient:
    return mlflow.MlflowClient(tracking_uri=resource.tracking_uri)


def test_a_new_experiment_is_a_model_training_experiment(resource):
    experiment_id = resource.experiment_id()
    experiment = client(resource).get_experiment(experiment_id)
    assert experiment.name == "delivery_delay"
    assert experiment.tags[EXPERIMENT_KIND_TAG] == EXPERIMENT_KIND == "custom_model_development"
    assert resource.experiment_id() == experiment_id


def test_an_existing_experiment_without_the_kind_gets_it_and_a_chosen_kind_stays(resource):
    made = resource.client().create_experiment("delivery_delay")
    other = MlflowResource(
        tracking_uri=resource.tracking_uri,
        artifact_root=resource.artifact_root,
        experiment="chosen",
    )
    chosen = client(resource).create_experiment(
        "chosen", tags={EXPERIMENT_KIND_TAG: "genai_development"}
    )
    assert EXPERIMENT_KIND_TAG not in client(resource).get_experiment(made).tags
    assert resource.experiment_id() == made
    assert client(resource).get_experiment(made).tags[EXPERIMENT_KIND_TAG] == EXPERIMENT_KIND
    assert other.experiment_id() == chosen
    assert client(resource).get_experiment(chosen).tags[EXPERIMENT_KIND_TAG] == "genai_development"
