"""``models/delay_model``: the delivery-delay network, trained with DDP through a launcher.

Rank 0 reports facts through Pipes (samples/s per epoch, MFU, the environment fingerprint);
this asset judges them against ``deploy/*.yaml`` and the run's threshold, and prices the
run. The verdicts then follow the code location's deploy files and run config, not whatever
a training image carries: changing a reference, a pin or a price needs no new image.
"""

import datetime as dt
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import dagster as dg
from pydantic import Field

from assets.metadata import (
    lineage_table,
    mlflow_artifact_url,
    mlflow_run_url,
    records_table,
    rounded,
    training_curve_markdown,
)
from assets.training_checks import (
    ENVIRONMENT_CHECK,
    THROUGHPUT_CHECK,
    cluster_checks,
    cost_metadata,
    run_cost,
)
from assets.warehouse import TRAINING_SET, TRAINING_SET_KEY
from models.config import ModelConfig, TrainConfig
from models.curve import CURVE_FILE
from pipelines.cluster.baseline import load_baselines
from pipelines.cluster.chargeback import (
    Chargeback,
    ChargebackEntry,
    chargeback_owner,
    chargeback_root,
)
from pipelines.cluster.cost import PriceTable, load_prices
from pipelines.cluster.profiles import DEFAULT_THRESHOLD, load_reference_profiles
from pipelines.instance import materialization_of_content
from pipelines.launch.torchrun import default_nproc
from pipelines.resources import LakeResource, MlflowResource, TrainingLauncherResource
from pipelines.settings import shown_path
from pipelines.step_usage import StepUsage
from pipelines.training.run import (
    Reused,
    TrainingError,
    TrainingPlan,
    TrainingRequest,
    plan_training,
    record_training,
    run_tracked,
    start_training,
)
from pipelines.warehouse.build import WAREHOUSE_ZONE
from pipelines.warehouse.lineage_view import LineageRow

DELAY_MODEL_KEY = dg.AssetKey(["models", "delay_model"])
OWNERS = ["team:ml-team"]
_MODEL_DEFAULTS = ModelConfig()
_TRAIN_DEFAULTS = TrainConfig()


class DelayModelConfig(dg.Config):
    """Launch-time knobs of one training (defaults: models.config)."""

    epochs: int = _TRAIN_DEFAULTS.epochs
    batch_size: int | None = Field(
        default=_TRAIN_DEFAULTS.batch_size,
        ge=1,
        description="Rows per rank and optimizer step; empty: sized to the training set "
        "(models.config.TrainConfig.batch_for).",
    )
    learning_rate: float = _TRAIN_DEFAULTS.learning_rate
    seed: int = _TRAIN_DEFAULTS.seed
    embedding_dim: int = _MODEL_DEFAULTS.embedding_dim
    hidden: list[int] = list(_MODEL_DEFAULTS.hidden)
    throughput_threshold: float = Field(
        default=DEFAULT_THRESHOLD,
        gt=0.0,
        le=1.0,
        description=(
            "Fraction of the reference samples/s (and MFU) in deploy/reference_profiles.yaml "
            f"below which {THROUGHPUT_CHECK} warns."
        ),
    )
    retrain: bool = Field(
        default=False,
        description=(
            "Train even when a finished training of the same training set version, training "
            "code and config exists; by default that training is reused (`plumbline run "
            "--force` sets this)."
        ),
    )


@dataclass(frozen=True)
class TrainingStep:
    """One delay_model step: its context, launch config and resources, and the MLflow
    client and experiment it tracks in (opened once, when first asked for)."""

    context: dg.AssetExecutionContext
    config: DelayModelConfig
    lake: LakeResource
    mlflow_tracking: MlflowResource
    training_launcher: TrainingLauncherResource
    # The step's time and memory from its start (the training's processes' CPU included).
    usage: StepUsage

    @cached_property
    def client(self):  # mlflow.MlflowClient
        return self.mlflow_tracking.client()

    @cached_property
    def experiment_id(self) -> str:
        return self.mlflow_tracking.experiment_id()

    def shown(self, path) -> str:
        """``path`` as people read it: relative to the home."""
        return shown_path(path, self.lake.home)


HISTORY_COLUMNS = [
    ("epoch", "int", "1-based"),
    ("train_loss", "float", "Mean training loss over the epoch's batches and ranks"),
    ("val_log_loss", "float", "Validation log loss"),
    ("val_auc", "float", "Validation ROC AUC"),
    ("val_accuracy", "float", "Validation accuracy at 0.5"),
    ("learning_rate", "float", "At the epoch's end"),
    ("samples_per_second", "float", "All ranks' training samples over the pass's wall time"),
    ("step_time_ms", "float", "Mean wall time of a step, fetching its batch included"),
    ("epoch_seconds", "float", "Training pass plus validation"),
    ("peak_memory_mb", "float", "CUDA: peak allocation; CPU: peak RSS of the process"),
]
# What a reused training's materialization shows of its run's metrics (those that
# `plumbline run` prints for a trained model too).
REUSED_METRICS = {"val_auc", "baseline_val_auc", "test_auc", "val_log_loss", "val_accuracy"}
INPUT_COLUMNS = [
    ("input", "string", "What the training read"),
    ("location", "string", "Where (relative to $PLUMBLINE_HOME)"),
    ("version", "string", "The published version folder"),
    ("digest", "string", "Content digest of what was read"),
    ("contract", "string", "The contract it was published under, and its result digest"),
]


def history_table(history: list[dict]) -> dg.TableMetadataValue:
    """The training history, one row per epoch."""
    return records_table(
        [{**record, "epoch": int(record["epoch"]) + 1} for record in history], HISTORY_COLUMNS
    )


def readable_metadata(
    reported: dict[str, dg.MetadataValue], home: str
) -> dict[str, dg.MetadataValue]:
    """Rank 0's metadata as people read it: floats rounded, the history and the
    environment as tables, paths relative to the home."""
    shown: dict[str, dg.MetadataValue] = {}
    for key, value in reported.items():
        if key == "history":
            shown[key] = history_table(value.value)
        elif key == "environment":
            shown[key] = records_table(
                [{"field": k, "value": str(v)} for k, v in sorted(value.value.items())],
                [("field", "string", "Fingerprint field"), ("value", "string", "Its value")],
            )
        elif isinstance(value, dg.FloatMetadataValue) and value.value is not None:
            shown[key] = dg.MetadataValue.float(rounded(value.value))
        elif isinstance(value, dg.PathMetadataValue):
            shown[key] = dg.MetadataValue.path(shown_path(value.value, home))
        else:
            shown[key] = value
    return shown


def model_feature_lineage(
    instance: dg.DagsterInstance,
    features: list[str],
    training_set_digest: str,
    training_set_version: str,
) -> dict[str, dg.MetadataValue]:
    """Two lineage tables: ``model_features``, each model feature <- its column of
    warehouse/training_set (the version it was trained on), and ``training_set_lineage``,
    what each of those columns comes from, as the materialization of that version recorded
    it (``dagster/column_lineage``)."""
    training_set = f"{WAREHOUSE_ZONE}/{TRAINING_SET}"
    features_view = lineage_table(
        [
            LineageRow(
                feature,
                "read as is",
                f"{training_set}@{training_set_version}",
                (f"{training_set}.{feature}",),
            )
            for feature in features
        ]
    )
    event = materialization_of_content(instance, TRAINING_SET_KEY, training_set_digest)
    recorded = None
    if event is not None and event.asset_materialization is not None:
        recorded = event.asset_materialization.metadata.get("dagster/column_lineage")
    if recorded is None:
        upstream: dg.MetadataValue = dg.MetadataValue.text(
            f"the materialization of {training_set} with content digest {training_set_digest} "
            "records no column lineage in this Dagster instance"
        )
    else:
        deps = recorded.value.deps_by_column
        upstream = lineage_table(
            [
                LineageRow(
                    f"{training_set}.{feature}",
                    location=f"{training_set}@{training_set_version} (run {event.run_id})",
                    sources=tuple(
                        f"{dep.asset_key.to_user_string()}.{dep.column_name}"
                        for dep in deps.get(feature, [])
                    ),
                )
                for feature in features
            ]
        )
    return {"model_features": features_view, "training_set_lineage": upstream}


def run_features(params: dict[str, str]) -> list[str]:
    """The model's input features, as the training run recorded them (its params)."""
    return [
        name
        for key in ("categorical_features", "numeric_features")
        for name in params.get(key, "").split(",")
        if name
    ]


def training_request(step: TrainingStep) -> TrainingRequest:
    """The training this step is asked for, and where its processes run (the world size
    changes the weights, so it belongs to the training's key)."""
    config, launcher, context = step.config, step.training_launcher, step.context
    if launcher.kind == "k8s":
        world: dict[str, Any] = {
            "launcher": "k8s",
            "nodes": launcher.k8s_nodes,
            "gpu": launcher.k8s_gpu,
            "processes_per_node": launcher.k8s_gpus_per_node,
        }
    else:
        world = {"launcher": launcher.kind, "nodes": 1}
        world["processes_per_node"] = launcher.nproc_per_node or default_nproc()
    return TrainingRequest(
        model_config=ModelConfig(embedding_dim=config.embedding_dim, hidden=tuple(config.hidden)),
        train_config=TrainConfig(
            epochs=config.epochs,
            batch_size=config.batch_size,
            learning_rate=config.learning_rate,
            seed=config.seed,
        ),
        settings=config.model_dump(exclude={"retrain"}),
        world=world,
        dagster_run_id=context.run.run_id,
        asset=context.asset_key.to_user_string(),
        retrain=config.retrain,
    )


def verdict_record(check: dg.AssetCheckResult) -> dict[str, Any]:
    """A check's verdict as kept on the MLflow run (a description cut to fit a tag)."""
    severity = check.severity or dg.AssetCheckSeverity.ERROR
    return {
        "check_name": check.check_name,
        "passed": bool(check.passed),
        "severity": severity.value,
        "description": (check.description or "")[:1000],
    }


def training_metadata(step: TrainingStep, plan: TrainingPlan, run) -> dict[str, Any]:
    """What a delay_model materialization shows of the MLflow run it names, its inputs and
    the columns its features come from."""
    training_set = plan.training_set
    inputs = records_table(
        [
            {
                "input": training_set.name,
                "location": step.shown(training_set.path),
                "version": training_set.version,
                "digest": training_set.digest,
                "contract": f"{training_set.contract_version} "
                f"(result {training_set.contract_result})",
            }
        ],
        INPUT_COLUMNS,
    )
    return {
        "mlflow_run_id": run.info.run_id,
        "mlflow_run": mlflow_run_url(
            step.mlflow_tracking.ui_url, run.info.experiment_id, run.info.run_id
        ),
        "training_key": dg.MetadataValue.text(plan.key),
        "inputs": inputs,
        **model_feature_lineage(
            step.context.instance,
            run_features(step.client.get_run(run.info.run_id).data.params),
            training_set.digest,
            training_set.version,
        ),
        **step.usage.metadata(),
    }


def reused_result(step: TrainingStep, plan: TrainingPlan, reused: Reused) -> dg.MaterializeResult:
    """The materialization of a step that reused an earlier training of the same key: its
    model, metrics and check verdicts, said to be that training's."""
    trained, run = reused.trained, reused.run
    source = f"reused training: MLflow run {run.info.run_id}"
    return dg.MaterializeResult(
        metadata={
            "reused_training": True,
            "reused_from_dagster_run": run.data.tags.get("dagster.run_id", "unknown"),
            "model_uri": dg.MetadataValue.text(trained.model_uri),
            "model_digest": dg.MetadataValue.text(trained.model_digest),
            # The training's final metrics, as its MLflow run holds them.
            **{
                name: dg.MetadataValue.float(rounded(value))
                for name, value in sorted(run.data.metrics.items())
                if name in REUSED_METRICS
            },
            **training_metadata(step, plan, run),
        },
        check_results=[
            dg.AssetCheckResult(
                check_name=verdict["check_name"],
                passed=verdict["passed"],
                severity=dg.AssetCheckSeverity(verdict["severity"]),
                description=f"{source}; its verdict: {verdict['description']}",
                metadata={"reused_from_mlflow_run": run.info.run_id},
            )
            for verdict in reused.checks
        ],
        data_version=dg.DataVersion(trained.model_digest.removeprefix("sha256:")),
    )


def charge(
    step: TrainingStep,
    facts: dict[str, Any],
    prices: PriceTable,
    run_seconds: float,
    mlflow_run_id: str,
) -> dict[str, Any]:
    """Price the run, append it to the lake's chargeback table, and say so in metadata."""
    context = step.context
    nodes, spot = step.training_launcher.placement()
    cost = run_cost(facts, prices, run_seconds, nodes=nodes, spot=spot)
    owner = chargeback_owner(context.assets_def.owners_by_key.get(DELAY_MODEL_KEY, []))
    charged = Chargeback(chargeback_root(step.lake.root)).append(
        ChargebackEntry(
            owner=owner,
            asset=context.asset_key.to_user_string(),
            dagster_run_id=context.run.run_id,
            mlflow_run_id=mlflow_run_id,
            hardware=cost.hardware,
            spot=cost.spot,
            billed_units=cost.billed_units,
            unit=cost.unit,
            hours=cost.run_hours,
            billed_hours=cost.billed_hours,
            cost=cost.per_run,
            currency=cost.currency,
            price_source=cost.price_source,
            recorded_at=dt.datetime.now(dt.UTC).isoformat(),
        )
    )
    return {
        **cost_metadata(cost),
        "chargeback_owner": owner,
        "chargeback_file": dg.MetadataValue.path(step.shown(charged)),
    }


def trained_result(
    step: TrainingStep, request: TrainingRequest, plan: TrainingPlan
) -> dg.MaterializeResult:
    """Train through the launcher (Pipes), judge and price the run, and record its model and
    verdicts on its MLflow run."""
    context, client, launcher = step.context, step.client, step.training_launcher
    # Read before training starts: a broken deploy file must not cost a training run.
    profiles, baselines, prices = load_reference_profiles(), load_baselines(), load_prices()
    job = start_training(
        client,
        step.experiment_id,
        plan,
        request,
        output_dir=launcher.output_dir(context.run.run_id),
        mlflow_uri=step.mlflow_tracking.tracking_uri,
    )
    context.log.info(
        f"MLflow run {job.mlflow_run_id}; training set {step.shown(plan.training_set.path)}"
    )
    started = time.monotonic()
    invocation = run_tracked(client, job, lambda job: launcher.launch(context, job))
    run_seconds = time.monotonic() - started
    reported = invocation.get_materialize_result()
    facts = {key: value.value for key, value in reported.metadata.items()}
    checks = cluster_checks(
        facts,
        profiles,
        baselines,
        request.model_config,
        request.train_config,
        step.config.throughput_threshold,
    )
    record_training(
        client,
        job.mlflow_run_id,
        model_digest=str(facts["model_digest"]),
        model_uri=str(facts["model_uri"]),
        checks=[verdict_record(check) for check in checks],
    )
    run = client.get_run(job.mlflow_run_id)
    ui_url = step.mlflow_tracking.ui_url
    return dg.MaterializeResult(
        asset_key=reported.asset_key,
        metadata={
            **readable_metadata(dict(reported.metadata), step.lake.home),
            **training_metadata(step, plan, run),
            "training_curve": training_curve_markdown(facts["history"]),
            "training_curve_chart": mlflow_artifact_url(
                ui_url, run.info.experiment_id, run.info.run_id, CURVE_FILE
            ),
            **charge(step, facts, prices, run_seconds, run.info.run_id),
        },
        check_results=[*(reported.check_results or []), *checks],
        data_version=reported.data_version,
        tags=reported.tags,
    )


@dg.asset(
    key=DELAY_MODEL_KEY,
    deps=[TRAINING_SET_KEY],
    group_name="models",
    kinds={"pytorch", "mlflow"},
    owners=OWNERS,
    check_specs=[
        dg.AssetCheckSpec(
            THROUGHPUT_CHECK,
            asset=DELAY_MODEL_KEY,
            description=(
                "Steady-state samples/s (and MFU on GPUs) against the reference for this "
                "hardware and model configuration in deploy/reference_profiles.yaml; warns "
                "below the threshold (default 92%), saying by how much."
            ),
        ),
        dg.AssetCheckSpec(
            ENVIRONMENT_CHECK,
            asset=DELAY_MODEL_KEY,
            description=(
                "The training environment (GPU model, driver, CUDA, cuDNN, NCCL, torch, VBIOS; "
                "Python and key packages on CPU) against deploy/baseline.yaml; fails naming "
                "each drifted field."
            ),
        ),
    ],
    description=(
        "The delivery-delay risk network (embeddings + MLP), trained with PyTorch DDP "
        "(gloo on CPU, NCCL on GPUs) by torchrun through Dagster Pipes, tracked in MLflow "
        "next to a HistGradientBoosting baseline on the same split. Each run is checked "
        "against the cluster's reference throughput and pinned environment, and its cost is "
        "recorded and appended to the lake's finance/chargeback table."
    ),
)
def delay_model(
    context: dg.AssetExecutionContext,
    config: DelayModelConfig,
    lake: LakeResource,
    mlflow_tracking: MlflowResource,
    training_launcher: TrainingLauncherResource,
):
    step = TrainingStep(
        context, config, lake, mlflow_tracking, training_launcher, StepUsage.start()
    )
    request = training_request(step)
    try:
        plan = plan_training(
            lake.lake(),
            step.client,
            step.experiment_id,
            request,
            zone=WAREHOUSE_ZONE,
            table=TRAINING_SET,
        )
    except TrainingError as exc:
        raise dg.Failure(str(exc)) from None
    if plan.reused is not None:
        context.log.info(
            f"reusing MLflow run {plan.reused.run.info.run_id}: it trained on the same "
            f"training set, code and config (key {plan.key}); retrain: true trains again"
        )
        return reused_result(step, plan, plan.reused)
    return trained_result(step, request, plan)
