"""models/delay_model: real 2-process gloo DDP through torchrun and Dagster Pipes, on the
scale-0.01 lake; MLflow contents; faults (a bad worker, a killed worker, a broken contract)."""

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import dagster as dg
import mlflow
import pyarrow.parquet as pq
import pytest
import torch

from assets.ansi import build_ansi_assets
from assets.metadata import rounded
from assets.training import (
    DELAY_MODEL_KEY,
    DelayModelConfig,
    TrainingStep,
    delay_model,
    training_request,
)
from assets.warehouse import build_warehouse_definitions
from pipelines.cluster.chargeback import Chargeback, chargeback_root
from pipelines.lake.store import Lake
from pipelines.resources import (
    LakeResource,
    MlflowResource,
    TrainingLauncherResource,
    resources_for,
)
from pipelines.settings import Settings
from pipelines.step_usage import StepUsage
from pipelines.warehouse.build import WAREHOUSE_ZONE
from sql.paths import CONTRACTS_ROOT
from tests.legacy import demo_legacy
from tests.mlflow_store import copy_store

UPSTREAM = {"delay_features", "training_set", "open_lines"}
FAST = {"epochs": 2, "batch_size": 512}
# The module's `trained` run. Its epochs last long enough (about a second each here) for
# test_a_killed_worker_resumes_from_the_checkpoint to kill a worker after the first
# checkpoint while training still has two epochs to go, and it is the uninterrupted run
# that the resumed one must end like.
TRAINED = {"epochs": 3, "batch_size": 128}


def resources(home: Path, **launcher) -> dict:
    """The resources ``plumbline run`` binds for a home at scale 0.01 (two training processes)."""
    return resources_for(Settings(home=home, scale=0.01), nproc_per_node=2, **launcher)


def upstream_assets(contracts_root: Path = CONTRACTS_ROOT) -> list:
    warehouse = build_warehouse_definitions("duckdb", demo_legacy(), contracts_root=contracts_root)
    return [
        *[a for a in build_ansi_assets(demo_legacy()) if a.key.path[-1] in UPSTREAM],
        *[a for a in warehouse.assets if a.key.path[-1] in UPSTREAM],
    ]


def new_home(tmp_path_factory, raw_lake_root) -> Path:
    home = tmp_path_factory.mktemp("home")
    (home / "lake").mkdir()
    (home / "lake" / "raw").symlink_to(raw_lake_root / "raw")
    return home


def copy_home(source: Path, tmp_path_factory, store_template: Path) -> Path:
    """A new home holding a copy of ``source``'s lake (raw stays the shared symlink),
    translations and published contracts, and an empty MLflow store of its own (a copy of
    ``store_template``: tests/mlflow_store.py)."""
    home = tmp_path_factory.mktemp("home")
    for name in ("lake", "ansi", "contracts"):
        shutil.copytree(source / name, home / name, symlinks=True)
    copy_store(store_template, home)
    return home


def run_config(**values) -> dg.RunConfig:
    return dg.RunConfig(ops={"models__delay_model": {"config": {**FAST, **values}}})


@pytest.fixture(scope="module")
def upstream_home(tmp_path_factory, raw_lake_root):
    """delay_features, training_set and open_lines built once for this module. Nothing trains
    or registers here: tests that do work in a copy (copy_home)."""
    home = new_home(tmp_path_factory, raw_lake_root)
    assert dg.materialize(upstream_assets(), resources=resources(home)).success
    return home


@pytest.fixture(scope="module")
def home(tmp_path_factory, upstream_home, mlflow_store_template):
    return copy_home(upstream_home, tmp_path_factory, mlflow_store_template)


@pytest.fixture(scope="module")
def instance():
    with dg.DagsterInstance.ephemeral() as ephemeral:
        yield ephemeral


@pytest.fixture(scope="module")
def trained(home, instance):
    return dg.materialize(
        [delay_model],
        resources=resources(home, max_restarts=0),
        run_config=run_config(**TRAINED),
        selection=[delay_model.key],
        instance=instance,
    )


def _metadata(result) -> dict:
    [event] = result.get_asset_materialization_events()
    return {key: value.value for key, value in event.materialization.metadata.items()}


def test_ddp_training_through_pipes_reports_metrics_and_the_curve(trained, instance, home):
    assert trained.success
    metadata = _metadata(trained)
    assert metadata["world_size"] == 2 and metadata["backend"] == "gloo"
    assert metadata["batch_size"] == TRAINED["batch_size"]  # per rank, as trained
    assert metadata["epochs"] == TRAINED["epochs"]
    assert 0.5 < metadata["val_auc"] <= 1 and 0.5 < metadata["test_auc"] <= 1
    assert metadata["baseline_val_auc"] > 0.5
    # Shown in place: Dagster's UI renders Markdown under 1,000 characters inline.
    assert metadata["training_curve"].startswith("![training curve](data:image/png;base64,")
    assert len(metadata["training_curve"]) < 1000
    assert metadata["model_digest"].startswith("sha256:")
    history = [record.data for record in metadata["history"].records]
    assert [row["epoch"] for row in history] == list(range(1, TRAINED["epochs"] + 1))
    assert all(row["train_loss"] > 0 and 0.5 < row["val_auc"] <= 1 for row in history)
    assert {"val_log_loss", "samples_per_second"} <= set(history[0])
    # Live progress came through Pipes as log lines of the step, one per epoch.
    messages = [entry.user_message for entry in instance.all_logs(trained.run_id)]
    for epoch in range(1, TRAINED["epochs"] + 1):
        assert any(m.startswith(f"epoch {epoch}/{TRAINED['epochs']}: train loss") for m in messages)
    # Cluster checks and cost, judged against deploy/*.yaml. This small configuration has no
    # reference profile: the throughput check passes and says so; the committed CPU
    # baseline holds on CI machines.
    checks = {c.check_name: c for c in trained.get_asset_check_evaluations()}
    throughput, environment = checks["delay_model_throughput"], checks["delay_model_environment"]
    assert throughput.passed and throughput.severity == dg.AssetCheckSeverity.WARN
    assert throughput.description.startswith("no reference for cpu-")
    assert f"batch{TRAINED['batch_size']}-embed8-hidden64x32-world2" in throughput.description
    assert throughput.metadata["measured_samples_per_second"].value > 0
    assert environment.passed and environment.severity == dg.AssetCheckSeverity.ERROR
    assert environment.description.startswith("matches the cpu baseline on python, torch")
    assert {"field": "torch", "value": torch.__version__} in [
        r.data for r in metadata["environment"].records
    ]
    assert 0 < metadata["cost_per_step"] < metadata["cost_per_epoch"] < metadata["cost_per_run"]
    assert metadata["cost_currency"] == "USD" and metadata["cost_hardware"] == "cpu"
    assert "prices.yaml: example list prices" in metadata["cost_price_source"]
    [charge] = [
        entry
        for entry in Chargeback(chargeback_root(home / "lake")).entries("team:ml-team")
        if entry.dagster_run_id == trained.run_id
    ]
    assert rounded(charge.cost) == metadata["cost_per_run"]  # shown to 4 digits
    assert charge.mlflow_run_id == metadata["mlflow_run_id"] and charge.hardware == "cpu"
    assert metadata["chargeback_owner"] == "team:ml-team"


def test_the_training_metadata_reads_as_people_read_it(trained, home):
    """Rounded numbers, tables instead of JSON, no absolute path, a link to the MLflow run,
    and the features' lineage."""
    [event] = trained.get_asset_materialization_events()
    metadata = event.materialization.metadata
    values = _metadata(trained)
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{home / 'mlflow.db'}")
    run = client.get_run(values["mlflow_run_id"])
    assert metadata["mlflow_run"] == dg.MetadataValue.url(
        f"http://127.0.0.1:5000/#/experiments/{run.info.experiment_id}/runs/{run.info.run_id}"
        "?workflowType=machine_learning"
    )
    for key in ("val_auc", "test_auc", "baseline_val_auc", "cost_per_run"):
        assert values[key] == rounded(values[key]) != 0
    assert values["val_auc"] == pytest.approx(run.data.metrics["val_auc"], rel=1e-3)
    assert not any(isinstance(v, dg.JsonMetadataValue) for v in metadata.values())
    for key, value in metadata.items():
        assert str(home) not in str(value.value), key
    assert values["training_curve_chart"].endswith(
        f"/runs/{run.info.run_id}/artifacts/curve.png?workflowType=machine_learning"
    )
    [training_input] = [record.data for record in values["inputs"].records]
    version = Lake(home / "lake").current(WAREHOUSE_ZONE, "training_set")
    assert training_input["digest"] == version.manifest["content_digest"]
    assert training_input["version"] == version.path.name
    assert training_input["location"] == "$PLUMBLINE_HOME/" + str(version.path.relative_to(home))
    assert {"field": "torch", "value": torch.__version__} in [
        record.data for record in values["environment"].records
    ]
    features = {r.data["column"]: r.data for r in values["model_features"].records}
    for feature in run.data.params["numeric_features"].split(","):
        assert features[feature]["expression"] == "read as is"
        assert features[feature]["reads"] == f"warehouse/training_set.{feature}"
    # The training set was built in another instance (upstream_home's): its materialization,
    # and so its column lineage, is not in this one, and the view says so
    # (tests/assets/test_audit.py reads it where it is).
    assert values["training_set_lineage"] == (
        f"the materialization of warehouse/training_set with content digest "
        f"{version.manifest['content_digest']} records no column lineage in this Dagster instance"
    )
    checks = {c.check_name: c for c in trained.get_asset_check_evaluations()}
    fields = [r.data for r in checks["delay_model_environment"].metadata["fields"].records]
    assert {"field": "torch", "value": torch.__version__, "verdict": "matches"} in fields


def test_mlflow_holds_params_metrics_dataset_and_a_loadable_model(trained, home):
    run_id = _metadata(trained)["mlflow_run_id"]
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{home / 'mlflow.db'}")
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.data.params["world_size"] == "2" and run.data.params["backend"] == "gloo"
    assert run.data.params["train.epochs"] == str(TRAINED["epochs"])
    assert {"val_auc", "test_auc", "baseline_val_auc", "samples_per_second"} <= set(
        run.data.metrics
    )
    history = client.get_metric_history(run_id, "val_auc")
    assert [m.step for m in history] == list(range(TRAINED["epochs"]))
    assert run.data.tags["dagster.run_id"] == trained.run_id
    digest = Lake(home / "lake").current(WAREHOUSE_ZONE, "training_set").manifest["content_digest"]
    assert run.data.tags["training_set.digest"] == digest
    [dataset_input] = run.inputs.dataset_inputs
    assert dataset_input.dataset.name == "training_set"
    artifacts = {a.path for a in client.list_artifacts(run_id)}
    assert "curve.png" in artifacts
    mlflow.set_tracking_uri(f"sqlite:///{home / 'mlflow.db'}")
    model = mlflow.pytorch.load_model(f"runs:/{run_id}/model")
    table = pq.read_table(Lake(home / "lake").current(WAREHOUSE_ZONE, "training_set").path)
    assert table.num_rows > 0
    example = torch.zeros(3, 13)
    assert tuple(model(example).shape) == (3,)


def _worker_pids(job_path: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        # Workers run `python -m models.train --job JOB`; torchrun itself also names the module.
        is_worker = b"models.train" in cmdline and b"torch.distributed.run" not in cmdline
        if is_worker and job_path.encode() in cmdline:
            pids.append(int(entry.name))
    return pids


def test_a_killed_worker_resumes_from_the_checkpoint(home, trained):
    """SIGKILL one worker after the first checkpoint: torchrun restarts the group, training
    resumes from the checkpoint and ends where an uninterrupted run (`trained`, the same
    configuration, retrained on purpose) ends; one MLflow run."""
    uninterrupted = _metadata(trained)
    assert uninterrupted["epochs"] == TRAINED["epochs"] > 1
    killed: list[int] = []

    def kill_after_first_checkpoint():
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            for run_dir in (home / "training").glob("*"):
                if run_dir.name == trained.run_id:
                    continue
                if list((run_dir / "checkpoints").glob("epoch-0000.pt")):
                    pids = _worker_pids(str(run_dir / "job.json"))
                    if pids:
                        os.kill(max(pids), signal.SIGKILL)
                        killed.append(max(pids))
                        return
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_after_first_checkpoint, daemon=True)
    watcher.start()
    result = dg.materialize(
        [delay_model],
        resources=resources(home, max_restarts=1),
        # The same inputs as `trained`: retrain, or the step would reuse that training.
        run_config=run_config(**TRAINED, retrain=True),
        selection=[delay_model.key],
    )
    watcher.join(timeout=5)
    assert killed, "no worker was killed"
    assert result.success
    resumed = _metadata(result)
    # Determinism: the same data, seed and world size -> the same metrics as `trained`.
    expected = uninterrupted
    assert resumed["val_auc"] == pytest.approx(expected["val_auc"], abs=1e-6)
    assert resumed["history"].records[-1].data["train_loss"] == pytest.approx(
        expected["history"].records[-1].data["train_loss"], abs=1e-6
    )
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{home / 'mlflow.db'}")
    runs = client.search_runs(
        [client.get_experiment_by_name("delivery_delay").experiment_id],
        filter_string=f"tags.`dagster.run_id` = '{result.run_id}'",
    )
    assert len(runs) == 1 and runs[0].info.status == "FINISHED"
    assert uninterrupted["world_size"] == resumed["world_size"] == 2


def test_a_failing_worker_shows_its_traceback(home, tmp_path, mlflow_store_template):
    """A training set missing a feature column: every worker fails; the asset's error is the
    worker's traceback, not torchrun's exit code."""
    lake = Lake(home / "lake")
    good = lake.current(WAREHOUSE_ZONE, "training_set")
    bad_home = tmp_path / "bad"
    copy_store(mlflow_store_template, bad_home)
    bad_lake = Lake(bad_home / "lake")
    with bad_lake.stage(WAREHOUSE_ZONE, "training_set") as staging:
        table = pq.read_table(good.path).drop_columns(["quantity"])
        pq.write_table(table, staging / "part-0.parquet")
        bad_lake.publish(WAREHOUSE_ZONE, "training_set", staging, good.manifest)
    result = dg.materialize(
        [delay_model],
        resources=resources(bad_home, max_restarts=0),
        run_config=run_config(),
        selection=[delay_model.key],
        raise_on_error=False,
    )
    assert not result.success
    message = str(result.get_step_failure_events()[0].event_specific_data.error)
    assert "training worker rank" in message and "Traceback" in message
    assert "quantity" in message
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{bad_home / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("delivery_delay").experiment_id])
    assert run.info.status == "FAILED"


def test_a_training_set_that_breaks_its_contract_does_not_train(tmp_path_factory, raw_lake_root):
    home = new_home(tmp_path_factory, raw_lake_root)
    contracts = tmp_path_factory.mktemp("contracts")
    for path in CONTRACTS_ROOT.glob("*.yaml"):
        text = path.read_text()
        if path.stem == "training_set":  # a train share the data cannot meet
            text = text.replace("mustBeBetween: [0.75, 0.85]", "mustBeBetween: [0.95, 1.0]")
        (contracts / path.name).write_text(text)
    result = dg.materialize(
        [*upstream_assets(contracts), delay_model],
        resources=resources(home, max_restarts=0),
        run_config=run_config(),
        raise_on_error=False,
    )
    assert not result.success
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks["training_set_contract"] is False
    materialized = {e.asset_key.path[-1] for e in result.get_asset_materialization_events()}
    assert "delay_model" not in materialized and "training_set" not in materialized
    assert not (home / "training").exists(), "training must not start"


def upstream_digest(home):
    return Lake(home / "lake").current(WAREHOUSE_ZONE, "training_set").manifest["content_digest"]


def _train_and_register(home, registration=None, **training):
    from assets.registry import registered_model

    config = {"models__delay_model": {"config": {**FAST, **training}}}
    if registration:
        config["models__registered_model"] = {"config": registration}
    result = dg.materialize(
        [delay_model, registered_model],
        resources=resources(home, max_restarts=0),
        run_config=dg.RunConfig(ops=config),
    )
    events = {
        e.asset_key.path[-1]: {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }
    return result, events["registered_model"]


def test_registration_gate_history_and_idempotence(
    tmp_path_factory, upstream_home, mlflow_store_template
):
    from pipelines.registry.versions import AliasHistory

    # Its own MLflow store and registry.
    home = copy_home(upstream_home, tmp_path_factory, mlflow_store_template)
    uri = f"sqlite:///{home / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)
    # At this tiny scale the first model is held to a looser bar than the default.
    loose = {"baseline_margin": 0.05}

    first_run, first = _train_and_register(home, loose)
    assert first["version"] == 1 and first["promoted"] and first["champion"] == "1"
    version = client.get_model_version("delivery_delay", "1")
    tags = version.tags
    assert tags["dagster.run_id"] == first_run.run_id
    assert tags["mlflow.run_id"] == first["mlflow_run_id"] == version.run_id
    assert tags["code.git_sha"] and tags["training_set.digest"] == upstream_digest(home)
    upstream = {
        k.removeprefix("upstream."): v for k, v in tags.items() if k.startswith("upstream.")
    }
    assert {"warehouse/training_set", "warehouse/delay_features", "raw/lineitem"} <= set(upstream)
    assert tags["val_auc"] == f"{float(tags['val_auc']):.4g}" == f"{first['candidate_val_auc']:.4g}"
    for alias in ("champion", "challenger"):
        assert str(client.get_model_version_by_alias("delivery_delay", alias).version) == "1"

    # Nothing changed (same data, seed, world size -> same weights): no new version.
    _, same = _train_and_register(home, loose)
    assert same["version"] == 1 and not same["alias_moves"].records

    # A worse challenger gets the challenger alias only.
    _, worse = _train_and_register(home, loose, epochs=1, learning_rate=1e-5)
    assert worse["version"] == 2 and not worse["promoted"] and worse["champion"] == "1"
    assert "< champion v1" in worse["decision"]

    # A better-or-equal one (within the tolerance) becomes champion.
    _, better = _train_and_register(home, {**loose, "tolerance": 0.01}, epochs=3)
    assert better["version"] == 3 and better["promoted"] and better["champion"] == "3"

    moves = AliasHistory(home / "lake" / "registry" / "alias_history").moves("delivery_delay")
    assert [(m.alias, m.from_version, m.to_version) for m in moves] == [
        ("challenger", None, "1"),
        ("champion", None, "1"),
        ("challenger", "1", "2"),
        ("challenger", "2", "3"),
        ("champion", "1", "3"),
    ]
    assert len(client.search_model_versions("name = 'delivery_delay'")) == 3

    # The champion scores the open line items; every row names the version.
    from assets.scoring import batch_scores

    scored = dg.materialize([batch_scores], resources=resources(home))
    [event] = scored.get_asset_materialization_events()
    open_rows = pq.read_table(Lake(home / "lake").current(WAREHOUSE_ZONE, "open_lines").path)
    scores = pq.read_table(Lake(home / "lake").current("scores", "batch_scores").path)
    assert (
        scores.num_rows
        == open_rows.num_rows
        == event.materialization.metadata["dagster/row_count"].value
        > 0
    )
    assert set(scores["model_version"].to_pylist()) == {3}
    assert all(0 <= p <= 1 for p in scores["late_probability"].to_pylist())
    [check] = scored.get_asset_check_evaluations()
    assert check.check_name == "batch_scores_contract" and check.passed

    # A champion that cannot be loaded: the asset fails naming the version and why, and the
    # last good scores stay published.
    before = Lake(home / "lake").current("scores", "batch_scores").path
    broken = client.create_model_version("delivery_delay", str(tmp_path_factory.mktemp("empty")))
    client.set_registered_model_alias("delivery_delay", "champion", broken.version)
    failed = dg.materialize([batch_scores], resources=resources(home), raise_on_error=False)
    message = str(failed.get_step_failure_events()[0].event_specific_data.error)
    assert f"cannot load delivery_delay version {broken.version} (champion)" in message
    assert Lake(home / "lake").current("scores", "batch_scores").path == before


def test_each_registration_names_its_own_run_when_trainings_interleave(
    tmp_path_factory, upstream_home, mlflow_store_template
):
    """Run A trains; between A's delay_model and registered_model steps a whole run B trains
    on the same instance. A registers A's model: "the latest materialization of
    delay_model" at that moment is B's."""
    from assets.registry import registered_model
    from assets.training import DELAY_MODEL_KEY

    # Its own MLflow store and registry.
    home = copy_home(upstream_home, tmp_path_factory, mlflow_store_template)
    uri = f"sqlite:///{home / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)
    other_runs: list[dg.ExecuteInProcessResult] = []

    @dg.success_hook
    def train_another_run(context: dg.HookContext):
        if context.op.name == "models__delay_model":
            # Another seed: other weights, so B's model cannot pass for A's by its digest.
            other_runs.append(
                dg.materialize(
                    [delay_model],
                    resources=resources(home, max_restarts=0),
                    run_config=run_config(epochs=1, seed=7),
                    instance=context.instance,
                )
            )

    defs = dg.Definitions(
        assets=[delay_model, registered_model],
        jobs=[dg.define_asset_job("train_and_register", hooks={train_another_run})],
        resources=resources(home, max_restarts=0),
        executor=dg.in_process_executor,
    )
    config = dg.RunConfig(
        ops={
            "models__delay_model": {"config": {**FAST, "epochs": 1}},
            "models__registered_model": {"config": {"baseline_margin": 0.05}},
        }
    )
    with dg.DagsterInstance.ephemeral() as instance:
        run_a = defs.resolve_job_def("train_and_register").execute_in_process(
            run_config=config, instance=instance
        )
        [run_b] = other_runs
        assert run_a.success and run_b.success
        # B trained in between: when A registered, the latest delay_model was B's.
        latest = instance.get_latest_materialization_event(DELAY_MODEL_KEY)
        assert latest is not None and latest.run_id == run_b.run_id
    events = {
        e.asset_key.path[-1]: {k: v.value for k, v in e.materialization.metadata.items()}
        for e in run_a.get_asset_materialization_events()
    }
    trained_a, registered = events["delay_model"], events["registered_model"]
    trained_b = _metadata(run_b)
    assert trained_a["mlflow_run_id"] != trained_b["mlflow_run_id"]
    assert trained_a["model_digest"] != trained_b["model_digest"]
    assert registered["mlflow_run_id"] == trained_a["mlflow_run_id"]
    assert registered["model_uri"] == trained_a["model_uri"]
    [version] = client.search_model_versions("name = 'delivery_delay'")
    assert str(version.version) == str(registered["version"])
    assert version.run_id == version.tags["mlflow.run_id"] == trained_a["mlflow_run_id"]
    assert version.tags["dagster.run_id"] == run_a.run_id
    assert version.tags["plumbline.model_digest"] == trained_a["model_digest"]


@pytest.mark.parametrize(
    ("launcher", "world"),
    [
        ({"nproc_per_node": 2}, {"launcher": "local", "nodes": 1, "processes_per_node": 2}),
        (
            {"kind": "k8s", "k8s_nodes": 2, "k8s_gpu": "h100", "k8s_gpus_per_node": 8},
            {"launcher": "k8s", "nodes": 2, "gpu": "h100", "processes_per_node": 8},
        ),
    ],
)
def test_a_training_step_asks_for_its_config_on_its_launchers_world(tmp_path, launcher, world):
    """What the step hands the training's plan, read from its one typed argument: the
    config (retrain apart: it does not change the weights), where the processes run, and
    which run and asset ask. Nothing is trained, and MLflow is not opened."""
    asked = {}

    @dg.asset(key=DELAY_MODEL_KEY)
    def probe(
        context: dg.AssetExecutionContext,
        config: DelayModelConfig,
        lake: LakeResource,
        mlflow_tracking: MlflowResource,
        training_launcher: TrainingLauncherResource,
    ) -> None:
        step = TrainingStep(
            context, config, lake, mlflow_tracking, training_launcher, StepUsage.start()
        )
        asked["request"] = training_request(step)
        asked["opened"] = "client" in vars(step)

    home = resources(tmp_path)
    result = dg.materialize(
        [probe],
        resources={
            "lake": home["lake"],
            "mlflow_tracking": home["mlflow_tracking"],
            "training_launcher": TrainingLauncherResource(
                runs_root=str(tmp_path / "training"), **launcher
            ),
        },
        run_config=run_config(retrain=True, hidden=[32, 16]),
    )
    request = asked["request"]
    assert request.world == world
    assert request.dagster_run_id == result.run_id and request.asset == "models/delay_model"
    assert request.retrain is True and "retrain" not in request.settings
    assert request.train_config.epochs == FAST["epochs"] == request.settings["epochs"]
    assert request.model_config.hidden == (32, 16)
    assert asked["opened"] is False


def test_a_second_training_of_the_same_inputs_is_reused(trained, instance, home):
    """The same training set, code and config as a finished training: no training, no new
    MLflow run; the step names that training's model and reports its check verdicts."""
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{home / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("delivery_delay").experiment_id
    runs_before = len(client.search_runs([experiment]))
    again = dg.materialize(
        [delay_model],
        resources=resources(home, max_restarts=0),
        run_config=run_config(**TRAINED),
        selection=[delay_model.key],
        instance=instance,
    )
    assert again.success
    first, reused = _metadata(trained), _metadata(again)
    assert reused["reused_training"] is True and reused["training_key"] == first["training_key"]
    assert len(client.search_runs([experiment])) == runs_before, "no new MLflow run"
    run = client.get_run(reused["mlflow_run_id"])
    assert run.info.status == "FINISHED"
    assert run.data.tags["plumbline.training_key"] == first["training_key"]
    assert reused["model_digest"] == run.data.tags["plumbline.model_digest"]
    assert not (home / "training" / again.run_id).exists(), "nothing was launched"
    [event] = again.get_asset_materialization_events()
    assert event.materialization.tags["dagster/data_version"] == reused[
        "model_digest"
    ].removeprefix("sha256:")
    checks = {c.check_name: c for c in again.get_asset_check_evaluations()}
    assert set(checks) == {"delay_model_throughput", "delay_model_environment"}
    for check in checks.values():
        assert check.description.startswith(f"reused training: MLflow run {run.info.run_id}")


def test_the_new_model_sensor_registers_a_training_made_elsewhere(trained, instance, home):
    """`trained` materialized delay_model alone: new_model_sensor requests register_model_job
    with its MLflow run id and data version in the run config, and that run registers that
    training; a run of registered_model with neither its own training nor that config fails
    naming the config key; a named run that is no training, or a data version that is not
    its model's, is refused."""
    from assets.registry import registered_model
    from pipelines.automation import new_model_sensor

    def register(registration) -> dg.ExecuteInProcessResult:
        return dg.materialize(
            [registered_model],
            resources=resources(home),
            run_config=dg.RunConfig(ops={"models__registered_model": {"config": registration}}),
            instance=instance,
            raise_on_error=False,
        )

    def failure(result) -> str:
        assert not result.success
        return str(result.get_step_failure_events()[0].event_specific_data.error)

    context = dg.build_sensor_context(instance=instance)
    requests = new_model_sensor.evaluate_tick(context).run_requests
    [request] = [r for r in requests if r.tags["plumbline/delay_model_run_id"] == trained.run_id]
    config = request.run_config["ops"]["models__registered_model"]["config"]
    trained_metadata = _metadata(trained)
    [trained_event] = trained.get_asset_materialization_events()
    assert config == {
        "mlflow_run_id": trained_metadata["mlflow_run_id"],
        "delay_model_data_version": trained_event.materialization.tags["dagster/data_version"],
    }
    assert new_model_sensor.evaluate_tick(context).run_requests == [], "each training once"

    registered = register({**config, "baseline_margin": 0.05})
    assert registered.success
    metadata = _metadata(registered)
    assert metadata["mlflow_run_id"] == trained_metadata["mlflow_run_id"]
    assert metadata["model_source"] == "named by config mlflow_run_id"
    assert metadata["delay_model_run_id"] == trained.run_id
    uri = f"sqlite:///{home / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)
    version = client.get_model_version("delivery_delay", str(metadata["version"]))
    assert version.run_id == trained_metadata["mlflow_run_id"]
    assert version.tags["plumbline.model_digest"] == trained_metadata["model_digest"]
    assert metadata["mlflow_model_version"] == (
        f"http://127.0.0.1:5000/#/models/delivery_delay/versions/{version.version}"
        "?workflowType=machine_learning"
    )

    message = failure(register({"baseline_margin": 0.05}))
    assert "this run does not train models/delay_model" in message
    assert "ops.models__registered_model.config.mlflow_run_id" in message
    wrong = register({**config, "delay_model_data_version": "0" * 64})
    assert "ops.models__registered_model.config.delay_model_data_version" in failure(wrong)
    experiment = client.get_experiment_by_name("delivery_delay").experiment_id
    stranger = client.create_run(experiment, run_name="not a training")
    client.set_terminated(stranger.info.run_id)
    message = failure(register({"mlflow_run_id": stranger.info.run_id}))
    assert f"MLflow run {stranger.info.run_id} has no tag plumbline.model_digest" in message
    assert "not trained by models/delay_model" in message


@dg.asset(key=["made"])
def _made() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"maker": "made"})


class _FoundConfig(dg.Config):
    fail: bool = False


@dg.asset(key=["found"], deps=[_made])
def _found(context: dg.AssetExecutionContext, config: _FoundConfig) -> dg.MaterializeResult:
    from pipelines.instance import run_materialization

    if config.fail:
        raise dg.Failure("failing on purpose")
    event = run_materialization(context.instance, context.run, _made.key)
    return dg.MaterializeResult(metadata={"made_by": event.run_id if event else "nobody"})


def _made_and_found_job() -> dg.JobDefinition:
    """Module-level so that dg.reconstructable can rebuild it for a re-execution."""
    defs = dg.Definitions(
        assets=[_made, _found],
        jobs=[dg.define_asset_job("made_and_found")],
        executor=dg.in_process_executor,
    )
    return defs.resolve_job_def("made_and_found")


def test_a_re_execution_from_failure_reads_the_upstream_of_the_run_it_re_executes(tmp_path):
    """Re-executing from failure skips the upstream step that succeeded: its
    materialization is the parent run's, and that run's alone."""
    from pipelines.instance import run_materialization

    job = dg.reconstructable(_made_and_found_job)
    with dg.DagsterInstance.local_temp(tempdir=str(tmp_path)) as instance:

        def config(fail: bool) -> dict:
            return {"ops": {"found": {"config": {"fail": fail}}}}

        with dg.execute_job(job, instance, run_config=config(True)) as failed:
            assert not failed.success
        # Another run materializes the upstream in between: it is not the parent's.
        with dg.execute_job(job, instance, run_config=config(True)) as other:
            assert not other.success
        with dg.execute_job(
            job,
            instance,
            run_config=config(False),
            reexecution_options=dg.ReexecutionOptions.from_failure(failed.run_id, instance),
        ) as retried:
            assert retried.success
            [event] = retried.get_asset_materialization_events()
            assert event.materialization.metadata["made_by"].value == failed.run_id
            run = instance.get_run_by_id(retried.run_id)
            assert (
                run_materialization(instance, run, dg.AssetKey(["found"])).run_id == retried.run_id
            )
        assert (
            run_materialization(
                instance, instance.get_run_by_id(other.run_id), dg.AssetKey(["found"])
            )
            is None
        )
