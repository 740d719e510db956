"""``models/delay_model``: the delivery-delay network, trained with DDP through a launcher.

Rank 0 reports facts through Pipes (samples/s per epoch, MFU, the environment fingerprint);
this asset judges them against ``deploy/*.yaml`` and the run's threshold, and prices the
run. The verdicts then follow the code location's deploy files and run config, not whatever
a training image carries: changing a reference, a pin or a price needs no new image.
"""

import datetime as dt
import subprocess
import time

import dagster as dg
from pydantic import Field

from assets.metadata import (
    lineage_table,
    mlflow_artifact_url,
    mlflow_run_url,
    records_table,
    rounded,
    shown_path,
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
from models.job import TrainingJob
from pipelines.cluster.baseline import load_baselines
from pipelines.cluster.chargeback import (
    Chargeback,
    ChargebackEntry,
    chargeback_owner,
    chargeback_root,
)
from pipelines.cluster.cost import load_prices
from pipelines.cluster.profiles import DEFAULT_THRESHOLD, load_reference_profiles
from pipelines.instance import materialization_of_version
from pipelines.registry.versions import RUN_DIGEST_TAG, RUN_MODEL_URI_TAG, with_retries
from pipelines.resources import LakeResource, MlflowResource, TrainingLauncherResource
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
    event = materialization_of_version(instance, TRAINING_SET_KEY, training_set_digest)
    recorded = None
    if event is not None and event.asset_materialization is not None:
        recorded = event.asset_materialization.metadata.get("dagster/column_lineage")
    if recorded is None:
        upstream: dg.MetadataValue = dg.MetadataValue.text(
            f"the materialization of {training_set} with data version {training_set_digest} "
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


def code_version() -> dict[str, str]:
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
    version = lake.lake().current(WAREHOUSE_ZONE, TRAINING_SET)
    if version is None:
        raise dg.Failure(f"{WAREHOUSE_ZONE}/{TRAINING_SET} has no published table yet")
    manifest = version.manifest
    contract = manifest.get("checks", {}).get(f"{TRAINING_SET}_contract", {})
    if not contract.get("passed"):
        # Only a table that held its contract is published; this guards older manifests.
        raise dg.Failure(
            f"{version.path}: the training set was not published under a passing contract; "
            "training does not start"
        )
    # Read before training starts: a broken deploy file must not cost a training run.
    profiles, baselines, prices = load_reference_profiles(), load_baselines(), load_prices()
    model_config = ModelConfig(embedding_dim=config.embedding_dim, hidden=tuple(config.hidden))
    train_config = TrainConfig(
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        seed=config.seed,
    )
    tags = {
        "dagster.run_id": context.run.run_id,
        "dagster.asset": context.asset_key.to_user_string(),
        "training_set.digest": manifest["content_digest"],
        "training_set.version": version.path.name,
        "training_set.contract_version": str(contract.get("contract_version")),
        "training_set.contract_result": str(contract.get("result_digest")),
        **{f"code.{k}": v for k, v in code_version().items()},
    }
    client = mlflow_tracking.client()
    run = client.create_run(
        mlflow_tracking.experiment_id(), run_name=f"delay_model-{context.run.run_id[:8]}", tags=tags
    )
    job = TrainingJob(
        data_path=str(version.path),
        data_digest=manifest["content_digest"],
        output_dir=str(training_launcher.output_dir(context.run.run_id)),
        mlflow_uri=mlflow_tracking.tracking_uri,
        mlflow_run_id=run.info.run_id,
        model_config=model_config.to_dict(),
        train_config=train_config.to_dict(),
        tags=tags,
    )
    context.log.info(
        f"MLflow run {run.info.run_id}; training set {shown_path(version.path, lake.home)}"
    )
    started = time.monotonic()
    try:
        invocation = training_launcher.launch(context, job)
    except BaseException:
        from mlflow.entities import RunStatus

        client.set_terminated(run.info.run_id, status=RunStatus.to_string(RunStatus.FAILED))
        raise
    run_seconds = time.monotonic() - started
    reported = invocation.get_materialize_result()
    facts = {key: value.value for key, value in reported.metadata.items()}
    # The run then names its model by itself: registration by run id alone
    # (RegistrationConfig.mlflow_run_id) reads these, not this materialization.
    for tag, value in (
        (RUN_DIGEST_TAG, facts["model_digest"]),
        (RUN_MODEL_URI_TAG, facts["model_uri"]),
    ):
        with_retries(
            lambda tag=tag, value=value: client.set_tag(run.info.run_id, tag, str(value)),
            f"tag run {run.info.run_id}",
        )
    checks = cluster_checks(
        facts, profiles, baselines, model_config, train_config, config.throughput_threshold
    )
    nodes, spot = training_launcher.placement()
    cost = run_cost(facts, prices, run_seconds, nodes=nodes, spot=spot)
    owner = chargeback_owner(context.assets_def.owners_by_key.get(DELAY_MODEL_KEY, []))
    charged = Chargeback(chargeback_root(lake.root)).append(
        ChargebackEntry(
            owner=owner,
            asset=context.asset_key.to_user_string(),
            dagster_run_id=context.run.run_id,
            mlflow_run_id=run.info.run_id,
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
    inputs = records_table(
        [
            {
                "input": f"{WAREHOUSE_ZONE}/{TRAINING_SET}",
                "location": shown_path(version.path, lake.home),
                "version": version.path.name,
                "digest": manifest["content_digest"],
                "contract": f"{contract.get('contract_version')} "
                f"(result {contract.get('result_digest')})",
            }
        ],
        INPUT_COLUMNS,
    )
    return dg.MaterializeResult(
        asset_key=reported.asset_key,
        metadata={
            **readable_metadata(dict(reported.metadata), lake.home),
            "mlflow_run": mlflow_run_url(
                mlflow_tracking.ui_url, run.info.experiment_id, run.info.run_id
            ),
            "training_curve": training_curve_markdown(facts["history"]),
            "training_curve_chart": mlflow_artifact_url(
                mlflow_tracking.ui_url, run.info.experiment_id, run.info.run_id, CURVE_FILE
            ),
            "inputs": inputs,
            **cost_metadata(cost),
            "chargeback_owner": owner,
            "chargeback_file": dg.MetadataValue.path(shown_path(charged, lake.home)),
            **model_feature_lineage(
                context.instance,
                run_features(client.get_run(run.info.run_id).data.params),
                manifest["content_digest"],
                version.path.name,
            ),
        },
        check_results=[*(reported.check_results or []), *checks],
        data_version=reported.data_version,
        tags=reported.tags,
    )
