"""register_and_gate without Dagster: a real MLflow (sqlite in tmp_path) and a real lake."""

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.lake.store import Lake
from pipelines.registry.registration import Gate, register_and_gate
from pipelines.registry.versions import AliasHistory, TrainedModel
from tests.pipelines.registry.test_versions import logged_run

NAME = "delivery_delay"
TRAINING_SET = ("warehouse", "training_set")


def published_training_set(lake: Lake, checks: dict) -> str:
    with lake.stage(*TRAINING_SET) as staging:
        pq.write_table(pa.table({"x": [1]}), staging / "part-0.parquet")
        version = lake.publish(
            *TRAINING_SET, staging, {"content_digest": "d-t", "inputs": {}, "checks": checks}
        )
    return version.path.name


def training(client, tmp_path, name: str, digest: str, val_auc: float, version: str):
    run_id = logged_run(client, tmp_path, name)
    client.set_tag(run_id, "training_set.version", version)
    return TrainedModel(run_id, f"runs:/{run_id}/model", digest, val_auc, baseline_val_auc=0.7)


def test_register_and_gate_registers_once_promotes_through_the_gate_and_records_moves(
    client, tmp_path
):
    lake = Lake(tmp_path / "lake")
    version = published_training_set(lake, {"training_set_contract": {"passed": True}})

    def register(trained, run="d1"):
        return register_and_gate(
            client, lake, trained, dagster_run_id=run, gate=Gate(), training_set=TRAINING_SET
        )

    first = training(client, tmp_path, "first", "sha256:aa", 0.80, version)
    registered = register(first)
    assert (registered.version, registered.reused, registered.promoted) == ("1", False, True)
    assert registered.champion == "1" and registered.failures == []
    assert [(m.alias, m.to_version) for m in registered.moves] == [
        ("challenger", "1"),
        ("champion", "1"),
    ]
    assert lake.pins("warehouse", "training_set")[version] == [f"{NAME}@1"]

    # The same training again, and another training of the same weights: version 1 again.
    same_weights = training(client, tmp_path, "same", "sha256:aa", 0.80, version)
    for trained in (first, same_weights):
        again = register(trained, run="d2")
        assert (again.version, again.reused, again.promoted, again.moves) == ("1", True, False, [])
        assert again.reason == "version 1 is already the champion"

    worse = register(training(client, tmp_path, "worse", "sha256:bb", 0.60, version))
    assert (worse.version, worse.reused, worse.promoted, worse.champion) == ("2", False, False, "1")
    assert "< champion v1" in worse.reason
    moves = AliasHistory(lake.root / "registry" / "alias_history").moves(NAME)
    assert [(m.alias, m.to_version) for m in moves] == [
        ("challenger", "1"),
        ("champion", "1"),
        ("challenger", "2"),
    ]


def test_a_failed_upstream_check_blocks_promotion(client, tmp_path):
    lake = Lake(tmp_path / "lake")
    version = published_training_set(lake, {"training_set_contract": {"passed": False}})
    trained = training(client, tmp_path, "blocked", "sha256:cc", 0.99, version)
    registered = register_and_gate(
        client, lake, trained, dagster_run_id="d1", gate=Gate(), training_set=TRAINING_SET
    )
    assert registered.failures == ["warehouse/training_set: training_set_contract did not pass"]
    assert not registered.promoted and registered.champion is None
    assert [m.alias for m in registered.moves] == ["challenger"]
