"""``models/registered_model``: each trained model as a version of ``delivery_delay`` in the
MLflow Model Registry, promoted to ``champion`` only through the gate."""

from dataclasses import dataclass

import dagster as dg
from pydantic import Field

from assets.metadata import mlflow_run_url, mlflow_version_url, records_table, rounded
from assets.training import DELAY_MODEL_KEY
from pipelines.instance import PinnedUpstream, latest_materialization, run_materialization
from pipelines.lake.lineage import upstream_lineage
from pipelines.registry.version_tags import version_tags, version_val_auc
from pipelines.registry.versions import (
    ALIAS_HISTORY,
    CHALLENGER,
    CHAMPION,
    MODEL_NAME,
    AliasHistory,
    NotATrainingRunError,
    TrainedModel,
    alias_version,
    decide_promotion,
    find_version,
    move_alias,
    register_version,
    with_retries,
)
from pipelines.resources import LakeResource, MlflowResource
from pipelines.warehouse.build import WAREHOUSE_ZONE

REGISTERED_MODEL_KEY = dg.AssetKey(["models", "registered_model"])
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
    tolerance: float = 0.002
    # With no champion yet, the first version must reach the run's HistGradientBoosting
    # baseline AUC minus this margin (the quality bar of the training issue).
    baseline_margin: float = 0.005
    mlflow_run_id: str | None = Field(
        default=None,
        description=(
            "The MLflow run of the training to register, for a run that does not also "
            "materialize models/delay_model. Without it such a run registers the latest "
            "models/delay_model materialization when its step starts (recorded in the "
            "metadata); a run that trains registers the model its own delay_model step "
            "trained."
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
    """The training this run registers: its own delay_model step's, else the configured
    MLflow run, else the latest delay_model materialization when this step starts."""
    own = run_materialization(context.instance, context.run, DELAY_MODEL_KEY)
    configured = config.mlflow_run_id
    if own is not None and own.asset_materialization is not None:
        pinned = PinnedUpstream(own, own_run=True)
        trained = _training_of(client, pinned)
        if configured is not None and configured != trained.mlflow_run_id:
            raise dg.Failure(
                f"this run trained MLflow run {trained.mlflow_run_id}, but "
                f"models__registered_model config mlflow_run_id names {configured}: drop the "
                "config to register this run's model, or register the other one in a run "
                "that does not train"
            )
        return ModelSource(trained, pinned.how, pinned.run_id, pinned.data_version)
    if configured is not None:
        run = with_retries(lambda: client.get_run(configured), f"read run {configured}")
        try:
            trained = TrainedModel.from_mlflow_run(run)
        except NotATrainingRunError as exc:
            raise dg.Failure(f"models__registered_model config mlflow_run_id: {exc}") from exc
        return ModelSource(
            trained,
            "named by config mlflow_run_id",
            run.data.tags.get("dagster.run_id"),
            trained.model_digest.removeprefix("sha256:"),
        )
    # A run without the training step (the automation sensor's, after a delay_model
    # materialized elsewhere): the latest training, fixed now and recorded below, so that
    # a training that finishes while this step runs is not mixed in.
    latest = latest_materialization(context.instance, DELAY_MODEL_KEY)
    if latest is None:
        raise dg.Failure(
            f"{DELAY_MODEL_KEY.to_user_string()} has never been materialized, so there is no "
            "model to register. Materialize models/delay_model first (retrain_job and "
            "materialize_all_job train and register in one run), or name the training in "
            "the run config: ops.models__registered_model.config.mlflow_run_id: <MLflow run id>"
        )
    return ModelSource(_training_of(client, latest), latest.how, latest.run_id, latest.data_version)


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
            "ops.models__registered_model.config.mlflow_run_id"
        ) from exc
    except NotATrainingRunError as exc:
        raise dg.Failure(f"the {where}: {exc}") from exc


@dg.asset(
    key=REGISTERED_MODEL_KEY,
    deps=[DELAY_MODEL_KEY],
    group_name="models",
    kinds={"mlflow"},
    # A new delay_model materialized outside retrain_job (the UI, `plumbline run --select`)
    # is registered by the automation sensor's run, which pins the latest training when its
    # step starts. A run that trains and registers (retrain_job, materialize_all_job) is not
    # followed by another: eager ignores an update made by a run that also targeted this
    # asset.
    automation_condition=dg.AutomationCondition.eager(),
    description=(
        f"Each trained delay model as a version of `{MODEL_NAME}` in the MLflow Model Registry "
        f"(alias `{CHALLENGER}`), promoted to `{CHAMPION}` only if every upstream blocking "
        "check passed and its validation AUC is within the tolerance of the champion's. It "
        "registers the model trained in the same run, else the MLflow run named by "
        "`config.mlflow_run_id`, else the latest delay_model materialization when its step "
        "starts (recorded as `model_source`, `delay_model_run_id`, "
        "`delay_model_data_version`). A training registered twice keeps its one version. "
        "Every alias move is appended to the lake's registry/alias_history."
    ),
)
def registered_model(
    context: dg.AssetExecutionContext,
    config: RegistrationConfig,
    lake: LakeResource,
    mlflow_tracking: MlflowResource,
):
    client = mlflow_tracking.client()
    source = trained_model(context, config, client)
    trained = source.trained
    run_id, digest = trained.mlflow_run_id, trained.model_digest
    run = with_retries(lambda: client.get_run(run_id), f"read run {run_id}")
    run_tags = run.data.tags

    lineage = upstream_lineage(
        lake.lake(), WAREHOUSE_ZONE, "training_set", run_tags.get("training_set.version", "")
    )
    failures = lineage.check_failures
    # The same weights (same data, seed, world size) were registered already: nothing
    # changed, so no new version.
    unchanged = find_version(client, MODEL_NAME, digest=digest)
    if unchanged is not None and unchanged.run_id != run_id:
        version = unchanged
        context.log.info(f"model unchanged (digest {digest}): keeping version {version.version}")
    else:
        version = register_version(
            client,
            MODEL_NAME,
            run_id=run_id,
            model_uri=trained.model_uri,
            tags=version_tags(
                trained,
                dagster_run_id=context.run.run_id,
                run_tags=run_tags,
                upstream_versions={"models/delay_model": digest, **lineage.data_versions},
            ),
        )

    # Keep every lake version this model was trained from: its audit trail recomputes their
    # digests long after newer builds have replaced them.
    holder = f"{MODEL_NAME}@{version.version}"
    for key, folder in lineage.versions.items():
        lake.lake().pin(*key.split("/", 1), folder, holder)

    champion = alias_version(client, MODEL_NAME, CHAMPION)
    champion_auc = None
    if champion is not None:
        champion_auc = version_val_auc(client, MODEL_NAME, champion)
    candidate_auc = version_val_auc(client, MODEL_NAME, str(version.version))
    decision = decide_promotion(
        candidate_auc,
        checks_passed=not failures,
        champion_version=champion,
        champion_auc=champion_auc,
        tolerance=config.tolerance,
        baseline_bar=trained.baseline_val_auc - config.baseline_margin,
    )
    if champion == str(version.version):
        reason = f"version {version.version} is already the champion"
    else:
        reason = decision.reason
    history = AliasHistory(lake.lake().root.joinpath(*ALIAS_HISTORY))
    moves = [
        move_alias(
            client,
            history,
            MODEL_NAME,
            CHALLENGER,
            version.version,
            dagster_run_id=context.run.run_id,
            reason="new version",
        )
    ]
    if decision.promote and champion != str(version.version):
        moves.append(
            move_alias(
                client,
                history,
                MODEL_NAME,
                CHAMPION,
                version.version,
                dagster_run_id=context.run.run_id,
                reason=decision.reason,
            )
        )
    context.log.info(f"{MODEL_NAME} v{version.version}: {reason}")
    ui_url = mlflow_tracking.ui_url
    return dg.MaterializeResult(
        metadata={
            "model": MODEL_NAME,
            "version": dg.MetadataValue.int(int(version.version)),
            "mlflow_run_id": run_id,
            "mlflow_run": mlflow_run_url(ui_url, run.info.experiment_id, run_id),
            "mlflow_model_version": mlflow_version_url(ui_url, MODEL_NAME, version.version),
            "model_uri": dg.MetadataValue.text(trained.model_uri),
            "model_source": dg.MetadataValue.text(source.how),
            "delay_model_run_id": dg.MetadataValue.text(source.dagster_run_id or "unknown"),
            "delay_model_data_version": dg.MetadataValue.text(source.data_version or "unknown"),
            "promoted": decision.promote and champion != str(version.version),
            "champion": dg.MetadataValue.text(
                alias_version(client, MODEL_NAME, CHAMPION) or "none"
            ),
            "decision": reason,
            "candidate_val_auc": rounded(decision.candidate_auc),
            "champion_val_auc": dg.MetadataValue.float(rounded(champion_auc))
            if champion_auc is not None
            else dg.MetadataValue.text("none"),
            "tolerance": decision.tolerance,
            "baseline_bar": rounded(decision.baseline_bar),
            "upstream_check_failures": records_table(
                [{"failure": failure} for failure in failures],
                [("failure", "string", "An upstream blocking check that did not pass")],
            ),
            "alias_moves": records_table(
                [m.__dict__ for m in moves if m is not None], ALIAS_MOVE_COLUMNS
            ),
        },
        data_version=dg.DataVersion(f"{MODEL_NAME}/{version.version}"),
    )
