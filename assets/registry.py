"""``models/registered_model``: each trained model as a version of ``delivery_delay`` in the
MLflow Model Registry, promoted to ``champion`` only through the gate."""

from dataclasses import dataclass
from typing import Any

import dagster as dg
from pydantic import Field

from assets.metadata import mlflow_run_url, mlflow_version_url, records_table, rounded
from assets.training import DELAY_MODEL_KEY
from assets.warehouse import TRAINING_SET
from pipelines.instance import PinnedUpstream, run_materialization
from pipelines.registry.registration import Gate, Registration, register_and_gate
from pipelines.registry.versions import (
    CHALLENGER,
    CHAMPION,
    MODEL_NAME,
    NotATrainingRunError,
    TrainedModel,
    with_retries,
)
from pipelines.resources import LakeResource, MlflowResource
from pipelines.step_usage import StepUsage
from pipelines.warehouse.build import WAREHOUSE_ZONE

REGISTERED_MODEL_KEY = dg.AssetKey(["models", "registered_model"])
CONFIG_PATH = "ops.models__registered_model.config"
ALIAS_MOVE_COLUMNS = [
    ("alias", "string", "The alias that moved"),
    ("from_version", "string", "The version it pointed at before (empty: none)"),
    ("to_version", "string", "The version it points at now"),
    ("moved_at", "string", "When (UTC)"),
    ("reason", "string", "Why: the gate's decision"),
]


class RegistrationConfig(dg.Config):
    """The promotion gate's knobs, and which training to register."""

    # A challenger is promoted unless its validation AUC is worse than the champion's by
    # more than this.
    tolerance: float = Gate.tolerance
    # With no champion yet, the first version must reach the run's HistGradientBoosting
    # baseline AUC minus this margin (the quality bar of the training issue).
    baseline_margin: float = Gate.baseline_margin
    mlflow_run_id: str | None = Field(
        default=None,
        description=(
            "The MLflow run of the training to register, for a run that does not also "
            "materialize models/delay_model (new_model_sensor sets it from the "
            "materialization that triggered it). A run that trains registers the model its "
            "own delay_model step trained; a run that neither trains nor names one fails."
        ),
    )
    delay_model_data_version: str | None = Field(
        default=None,
        description=(
            "With mlflow_run_id: the data version of the delay_model materialization that "
            "named it (its model digest). Registration refuses a run whose model differs."
        ),
    )


@dataclass(frozen=True)
class ModelSource:
    """The training a registration takes, and which materialization named it."""

    trained: TrainedModel
    how: str
    dagster_run_id: str | None  # the Dagster run that trained it, when known
    data_version: str | None  # that delay_model materialization's data version


def trained_model(
    context: dg.AssetExecutionContext, config: RegistrationConfig, client
) -> ModelSource:
    """The training this run registers: its own delay_model step's, else the MLflow run its
    config names. Never "the latest": of two runs close together each registers its own."""
    own = run_materialization(context.instance, context.run, DELAY_MODEL_KEY)
    configured = config.mlflow_run_id
    if own is not None and own.asset_materialization is not None:
        pinned = PinnedUpstream(own)
        trained = _training_of(client, pinned)
        if configured is not None and configured != trained.mlflow_run_id:
            raise dg.Failure(
                f"this run trained MLflow run {trained.mlflow_run_id}, but "
                f"{CONFIG_PATH}.mlflow_run_id names {configured}: drop the config to register "
                "this run's model, or register the other one in a run that does not train"
            )
        return ModelSource(trained, pinned.how, pinned.run_id, pinned.data_version)
    if configured is None:
        raise dg.Failure(
            f"this run does not train {DELAY_MODEL_KEY.to_user_string()}, so it must name the "
            f"training to register: {CONFIG_PATH}.mlflow_run_id: <MLflow run id> (new_model_sensor "
            "sets it for each new model; retrain_job and materialize_all_job train and "
            "register in one run)"
        )
    run = with_retries(lambda: client.get_run(configured), f"read run {configured}")
    try:
        trained = TrainedModel.from_mlflow_run(run)
    except NotATrainingRunError as exc:
        raise dg.Failure(f"{CONFIG_PATH}.mlflow_run_id: {exc}") from exc
    data_version = trained.model_digest.removeprefix("sha256:")
    expected = config.delay_model_data_version
    if expected is not None and expected != data_version:
        raise dg.Failure(
            f"{CONFIG_PATH}.delay_model_data_version is {expected}, but MLflow run {configured} "
            f"holds model {trained.model_digest}: name the run and version of one "
            "delay_model materialization"
        )
    return ModelSource(
        trained,
        "named by config mlflow_run_id",
        run.data.tags.get("dagster.run_id"),
        data_version,
    )


def _training_of(client, pinned: PinnedUpstream) -> TrainedModel:
    """The training a delay_model materialization names, read from its MLflow run: the
    metadata shows rounded metrics, the gate compares the run's own."""
    run_id = pinned.metadata.get("mlflow_run_id")
    where = f"{DELAY_MODEL_KEY.to_user_string()} materialization of run {pinned.run_id}"
    if run_id is None:
        raise dg.Failure(f"the {where} records no mlflow_run_id: nothing to register")
    from mlflow.exceptions import MlflowException

    try:
        run = with_retries(lambda: client.get_run(str(run_id.value)), f"read run {run_id.value}")
        return TrainedModel.from_mlflow_run(run)
    except MlflowException as exc:
        # Another home's training recorded in a shared Dagster instance, or a deleted run.
        raise dg.Failure(
            f"the {where} names MLflow run {run_id.value}, which this MLflow store cannot "
            f"read ({str(exc).splitlines()[0]}); name the training to register in "
            f"{CONFIG_PATH}.mlflow_run_id"
        ) from exc
    except NotATrainingRunError as exc:
        raise dg.Failure(f"the {where}: {exc}") from exc


def registration_metadata(
    registration: Registration, source: ModelSource, ui_url: str
) -> dict[str, Any]:
    """What the registered_model materialization shows."""
    decision, run = registration.decision, registration.training_run
    run_id, version = run.info.run_id, registration.version
    return {
        "model": MODEL_NAME,
        "version": dg.MetadataValue.int(int(version)),
        "reused_registered_version": registration.reused,
        "mlflow_run_id": run_id,
        "mlflow_run": mlflow_run_url(ui_url, run.info.experiment_id, run_id),
        "mlflow_model_version": mlflow_version_url(ui_url, MODEL_NAME, version),
        "model_uri": dg.MetadataValue.text(registration.trained.model_uri),
        "model_source": dg.MetadataValue.text(source.how),
        "delay_model_run_id": dg.MetadataValue.text(source.dagster_run_id or "unknown"),
        "delay_model_data_version": dg.MetadataValue.text(source.data_version or "unknown"),
        "promoted": registration.promoted,
        "champion": dg.MetadataValue.text(registration.champion or "none"),
        "decision": registration.reason,
        "candidate_val_auc": rounded(decision.candidate_auc),
        "champion_val_auc": dg.MetadataValue.float(rounded(registration.champion_auc))
        if registration.champion_auc is not None
        else dg.MetadataValue.text("none"),
        "tolerance": decision.tolerance,
        "baseline_bar": rounded(decision.baseline_bar),
        "upstream_check_failures": records_table(
            [{"failure": failure} for failure in registration.failures],
            [("failure", "string", "An upstream blocking check that did not pass")],
        ),
        "alias_moves": records_table(
            [move.__dict__ for move in registration.moves], ALIAS_MOVE_COLUMNS
        ),
    }


@dg.asset(
    key=REGISTERED_MODEL_KEY,
    deps=[DELAY_MODEL_KEY],
    group_name="models",
    kinds={"mlflow"},
    description=(
        f"Each trained delay model as a version of `{MODEL_NAME}` in the MLflow Model Registry "
        f"(alias `{CHALLENGER}`), promoted to `{CHAMPION}` only if every upstream blocking "
        "check passed and its validation AUC is within the tolerance of the champion's. It "
        "registers the model trained in the same run, else the MLflow run named by "
        "`config.mlflow_run_id` (set by new_model_sensor for a delay_model materialized "
        "elsewhere); a run with neither fails. A training registered twice keeps its one "
        "version. Every alias move is appended to the lake's registry/alias_history."
    ),
)
def registered_model(
    context: dg.AssetExecutionContext,
    config: RegistrationConfig,
    lake: LakeResource,
    mlflow_tracking: MlflowResource,
):
    usage = StepUsage.start()
    client = mlflow_tracking.client()
    source = trained_model(context, config, client)
    registration = register_and_gate(
        client,
        lake.lake(),
        source.trained,
        dagster_run_id=context.run.run_id,
        gate=Gate(tolerance=config.tolerance, baseline_margin=config.baseline_margin),
        training_set=(WAREHOUSE_ZONE, TRAINING_SET),
    )
    context.log.info(f"{MODEL_NAME} v{registration.version}: {registration.reason}")
    return dg.MaterializeResult(
        metadata={
            **registration_metadata(registration, source, mlflow_tracking.ui_url),
            **usage.metadata(),
        },
        data_version=dg.DataVersion(f"{MODEL_NAME}/{registration.version}"),
    )
