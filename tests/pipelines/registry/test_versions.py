"""The registry logic against a real MLflow (sqlite in tmp_path): idempotent registration,
the promotion gate, the append-only alias history, retries."""

import datetime as dt
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import INTERNAL_ERROR, INVALID_PARAMETER_VALUE

from pipelines.lake.lineage import upstream_lineage
from pipelines.lake.store import Lake
from pipelines.registry.version_tags import version_tags, version_val_auc
from pipelines.registry.versions import (
    ALIAS_TAG_PREFIX,
    AliasHistory,
    AliasMove,
    RegistryError,
    TrainedModel,
    alias_version,
    decide_promotion,
    move_alias,
    register_version,
    with_retries,
)

NAME = "delivery_delay"


def logged_run(client, tmp_path, name="run"):
    """A finished MLflow run holding a (tiny) model folder as its artifact."""
    experiment = client.create_experiment(
        f"e-{name}", artifact_location=(tmp_path / "artifacts").as_uri()
    )
    run = client.create_run(experiment)
    folder = tmp_path / name / "model"
    folder.mkdir(parents=True)
    (folder / "MLmodel").write_text("flavors: {}\n")
    client.log_artifacts(run.info.run_id, str(folder), "model")
    client.set_terminated(run.info.run_id)
    return run.info.run_id


def registered(client, tmp_path, name="run") -> str:
    """The version a fresh finished run's model is registered as, with no tags."""
    run_id = logged_run(client, tmp_path, name)
    uri = f"runs:/{run_id}/model"
    return register_version(client, NAME, run_id=run_id, model_uri=uri, tags={}).version


def test_the_gate_promotes_a_better_or_equal_challenger_and_not_a_worse_one():
    common = {"checks_passed": True, "champion_version": "3", "tolerance": 0.002}
    better = decide_promotion(0.990, champion_auc=0.988, baseline_bar=0.5, **common)
    within = decide_promotion(0.9865, champion_auc=0.988, baseline_bar=0.5, **common)
    worse = decide_promotion(0.985, champion_auc=0.988, baseline_bar=0.5, **common)
    assert better.promote and within.promote and not worse.promote
    assert "< champion v3 0.98800 - tolerance 0.002" in worse.reason


def test_a_first_version_must_reach_the_baseline_bar_and_checks_must_pass():
    first = {"champion_version": None, "champion_auc": None, "tolerance": 0.002}
    assert decide_promotion(0.99, checks_passed=True, baseline_bar=0.98, **first).promote
    low = decide_promotion(0.97, checks_passed=True, baseline_bar=0.98, **first)
    assert not low.promote and "baseline bar" in low.reason
    blocked = decide_promotion(0.99, checks_passed=False, baseline_bar=0.5, **first)
    assert not blocked.promote and "blocking check" in blocked.reason


def test_registration_is_idempotent_and_repairs_missing_tags(client, tmp_path):
    run_id = logged_run(client, tmp_path)
    uri = f"runs:/{run_id}/model"
    # A previous attempt registered the version and died before tagging it.
    client.create_registered_model(NAME)
    client.create_model_version(NAME, uri, run_id=run_id)
    version = register_version(client, NAME, run_id=run_id, model_uri=uri, tags={"a": "1"})
    again = register_version(client, NAME, run_id=run_id, model_uri=uri, tags={"a": "1"})
    assert version.version == again.version == 1
    assert len(client.search_model_versions(f"name = '{NAME}'")) == 1
    assert again.tags["a"] == "1"
    # Registered again by another run: a missing tag is added, a recorded one is kept (audit
    # bundles of the version sealed it).
    later = register_version(client, NAME, run_id=run_id, model_uri=uri, tags={"a": "2", "b": "1"})
    assert later.version == 1 and later.tags["a"] == "1" and later.tags["b"] == "1"
    assert len(client.search_model_versions(f"name = '{NAME}'")) == 1


def test_alias_moves_are_recorded_once_in_order_and_as_version_tags(client, tmp_path):
    history = AliasHistory(tmp_path / "lake" / "registry" / "alias_history")
    versions = [registered(client, tmp_path, f"r{i}") for i in range(2)]
    clock = iter(dt.datetime(2026, 1, 1, 0, 0, s, tzinfo=dt.UTC) for s in range(10))
    now = lambda: next(clock)  # noqa: E731
    first = move_alias(
        client, history, NAME, "champion", versions[0], dagster_run_id="r1", reason="a", now=now
    )
    assert (
        move_alias(
            client, history, NAME, "champion", versions[0], dagster_run_id="r1", reason="a", now=now
        )
        is None
    ), "a retry moves nothing and records nothing"
    second = move_alias(
        client, history, NAME, "champion", versions[1], dagster_run_id="r2", reason="b", now=now
    )
    moves = history.moves(NAME)
    assert moves == [first, second]
    assert (second.from_version, second.to_version, second.dagster_run_id) == ("1", "2", "r2")
    assert alias_version(client, NAME, "champion") == "2"
    tags = client.get_model_version(NAME, "2").tags
    [trail] = [v for k, v in tags.items() if k.startswith(ALIAS_TAG_PREFIX)]
    assert re.fullmatch(r"champion: v1 -> v2 at 2026-01-01 00:00:0\d UTC, Dagster run r2: b", trail)


class TagWriteCounter(MlflowClient):
    """The real client, counting the version tags it writes."""

    tag_writes = 0

    def set_model_version_tag(self, *args, **kwargs):
        self.tag_writes += 1
        return super().set_model_version_tag(*args, **kwargs)


def test_a_lost_move_tag_is_written_again_and_a_present_one_is_not(client, tmp_path):
    history = AliasHistory(tmp_path / "history")
    version = registered(client, tmp_path)
    move = move_alias(client, history, NAME, "champion", version, dagster_run_id="r", reason="x")
    [key] = [
        k for k in client.get_model_version(NAME, version).tags if k.startswith(ALIAS_TAG_PREFIX)
    ]
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"  # the client fixture's store
    counting = TagWriteCounter(tracking_uri=uri, registry_uri=uri)
    # A rerun that finds the alias, its record and its tag in place writes nothing.
    assert (
        move_alias(counting, history, NAME, "champion", version, dagster_run_id="r2", reason="y")
        is None
    )
    assert counting.tag_writes == 0
    # The tag lost to an interruption is written again, as the move recorded it.
    client.delete_model_version_tag(NAME, version, key)
    assert (
        move_alias(counting, history, NAME, "champion", version, dagster_run_id="r3", reason="z")
        is None
    )
    assert counting.tag_writes == 1
    assert client.get_model_version(NAME, version).tags[key] == move.tag_value()
    assert history.moves(NAME) == [move]


def test_an_interrupted_move_is_recorded_by_the_retry(client, tmp_path):
    history = AliasHistory(tmp_path / "history")
    version = registered(client, tmp_path)
    client.set_registered_model_alias(NAME, "champion", version)  # died right after this
    move = move_alias(client, history, NAME, "champion", version, dagster_run_id="r", reason="x")
    assert move is not None and "recorded on retry" in move.reason
    assert history.moves(NAME) == [move]


def test_retries_back_off_then_fail_clearly():
    calls, sleeps = [], []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise MlflowException("database is locked", error_code=INTERNAL_ERROR)
        return "ok"

    assert with_retries(flaky, "read", sleep=sleeps.append) == "ok"
    assert sleeps == [0.5, 1.0]

    def down():
        raise ConnectionRefusedError("connection refused")

    with pytest.raises(RegistryError, match="MLflow: register x failed after 4 attempts"):
        with_retries(down, "register x", sleep=lambda _: None)

    def refused():
        calls.append(1)
        raise MlflowException("bad name", error_code=INVALID_PARAMETER_VALUE)

    calls.clear()
    with pytest.raises(MlflowException):
        with_retries(refused, "tag", sleep=lambda _: None)
    assert len(calls) == 1, "a request MLflow refused is not retried"


def test_lineage_follows_pinned_inputs_and_reports_failed_checks(tmp_path):
    # A real Lake writes the versions: the lineage walk reads them through its layout.
    lake = Lake(tmp_path)

    def publish(zone, table, manifest):
        with lake.stage(zone, table) as staging:
            pq.write_table(pa.table({"x": [1]}), staging / "part-0.parquet")
            return lake.publish(zone, table, staging, manifest)

    raw = publish("raw", "lineitem", {})
    features = publish(
        "warehouse",
        "features",
        {
            "content_digest": "d-f",
            "inputs": {"raw.lineitem": raw.path.name},
            "checks": {"features_contract": {"passed": False}},
        },
    )
    training = publish(
        "warehouse",
        "training_set",
        {
            "content_digest": "d-t",
            "inputs": {"warehouse.features": features.path.name, "raw.orders": "gone"},
        },
    )
    lineage = upstream_lineage(lake, "warehouse", "training_set", training.path.name)
    assert lineage.data_versions == {
        "raw/lineitem": raw.digest,
        "raw/orders": "missing",
        "warehouse/features": "d-f",
        "warehouse/training_set": "d-t",
    }
    assert sorted(lineage.check_failures) == [
        "raw/orders version gone is no longer in the lake",
        "warehouse/features: features_contract did not pass",
    ]


@pytest.mark.parametrize("damage", ["appended", "truncated", "garbage"])
def test_an_alias_move_file_that_is_no_longer_parquet_is_named(tmp_path, damage):
    history = AliasHistory.in_lake(tmp_path / "lake")
    assert history.root == tmp_path / "lake" / "registry" / "alias_history"
    move = AliasMove("m", "champion", None, "1", "2026-01-01T00:00:00+00:00", "r1", "first")
    path = history.append(move)
    assert history.moves("m") == [move]
    data = path.read_bytes()
    damaged = {
        "appended": data + b"\0",
        "truncated": data[: len(data) // 2],
        "garbage": bytes(range(256)),
    }[damage]
    path.write_bytes(damaged)
    with pytest.raises(RegistryError, match=f"{path}: not a readable alias move"):
        history.moves("m")


def test_a_version_s_tags_read_as_rounded_metrics_and_one_row_per_upstream(client, tmp_path):
    """MLflow's tag table shows "0.9889", not 0.9889185426280485, and one upstream per row,
    not a JSON object; the gate still reads the run's metric at full precision."""
    run_id = logged_run(client, tmp_path)
    client.log_metric(run_id, "val_auc", 0.9889185426280485)
    trained = TrainedModel(run_id, f"runs:/{run_id}/model", "sha256:ab", 0.9889185426280485, 0.99)
    tags = version_tags(
        trained,
        dagster_run_id="d1",
        run_tags={"code.git_sha": "abc123"},
        upstream_versions={"warehouse/training_set": "v2", "models/delay_model": "sha256:ab"},
    )
    version = register_version(
        client, NAME, run_id=run_id, model_uri=f"runs:/{run_id}/model", tags=tags
    ).version
    shown = client.get_model_version(NAME, version).tags
    assert (shown["val_auc"], shown["baseline_val_auc"]) == ("0.9889", "0.99")
    assert shown["upstream.warehouse/training_set"] == "v2"
    assert shown["upstream.models/delay_model"] == "sha256:ab"
    assert (shown["code.git_sha"], shown["code.git_dirty"]) == ("abc123", "unknown")
    assert not any(value.startswith(("{", "[")) for value in shown.values()), shown
    assert version_val_auc(client, NAME, version) == 0.9889185426280485
