"""``models/registered_model``: each trained model as a version of ``delivery_delay`` in the
MLflow Model Registry, promoted to ``champion`` only through the gate."""

import json

import dagster as dg
from pydantic import Field

from assets.training import DELAY_MODEL_KEY
from pipelines.instance import run_materialization
from pipelines.lake.lineage import upstream_lineage
from pipelines.registry.versions import (
    ALIAS_HISTORY,
    CHALLENGER,
    CHAMPION,
    DIGEST_TAG,
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
            "materialize models/delay_model. Without it the run must train, and it registers "
            "the model that its own delay_model step trained."
        ),
    )


def trained_model(
    context: dg.AssetExecutionContext, config: RegistrationConfig, client
) -> TrainedModel:
    """The training this run registers: its own delay_model step's, or the configured one."""
    event = run_materialization(context.instance, context.run, DELAY_MODEL_KEY)
    configured = config.mlflow_run_id
    if event is not None and event.asset_materialization is not None:
        metadata = {k: v.value for k, v in event.asset_materialization.metadata.items()}
        trained = TrainedModel.from_metadata(metadata)
        if configured is not None and configured != trained.mlflow_run_id:
            raise dg.Failure(
                f"this run trained MLflow run {trained.mlflow_run_id}, but "
                f"models__registered_model config mlflow_run_id names {configured}: drop the "
                "config to register this run's model, or register the other one in a run "
                "that does not train"
            )
        return trained
    if configured is None:
        raise dg.Failure(
            f"run {context.run.run_id} did not materialize {DELAY_MODEL_KEY.to_user_string()}, "
            "so it has no model of its own to register. Materialize models/delay_model and "
            "models/registered_model in one run (retrain_job and materialize_all_job do), or "
            "name the training to register in the run config: "
            "ops.models__registered_model.config.mlflow_run_id: <MLflow run id>"
        )
    run = with_retries(lambda: client.get_run(configured), f"read run {configured}")
    try:
        return TrainedModel.from_mlflow_run(run)
    except NotATrainingRunError as exc:
        raise dg.Failure(f"models__registered_model config mlflow_run_id: {exc}") from exc


@dg.asset(
    key=REGISTERED_MODEL_KEY,
    deps=[DELAY_MODEL_KEY],
    group_name="models",
    kinds={"mlflow"},
    # No automation condition: registration reads the model its own run trained, so a run
    # of this asset alone (what an eager condition launches) has nothing to register.
    # retrain_job and materialize_all_job train and register in one run.
    description=(
        f"Each trained delay model as a version of `{MODEL_NAME}` in the MLflow Model Registry "
        f"(alias `{CHALLENGER}`), promoted to `{CHAMPION}` only if every upstream blocking "
        "check passed and its validation AUC is within the tolerance of the champion's. It "
        "registers the model trained in the same run, or the MLflow run named by "
        "`config.mlflow_run_id`. Every alias move is appended to the lake's "
        "registry/alias_history."
    ),
)
def registered_model(
    context: dg.AssetExecutionContext,
    config: RegistrationConfig,
    lake: LakeResource,
    mlflow_tracking: MlflowResource,
):
    client = mlflow_tracking.client()
    trained = trained_model(context, config, client)
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
            tags={
                "dagster.run_id": context.run.run_id,
                "mlflow.run_id": run_id,
                DIGEST_TAG: digest,
                "val_auc": str(trained.val_auc),
                "baseline_val_auc": str(trained.baseline_val_auc),
                "training_set.digest": run_tags.get("training_set.digest", "unknown"),
                "training_set.contract_result": run_tags.get(
                    "training_set.contract_result", "unknown"
                ),
                "code.git_sha": run_tags.get("code.git_sha", "unknown"),
                "code.git_dirty": run_tags.get("code.git_dirty", "unknown"),
                "upstream.data_versions": json.dumps(
                    {"models/delay_model": digest, **lineage.data_versions}
                ),
            },
        )

    # Keep every lake version this model was trained from: its audit trail recomputes their
    # digests long after newer builds have replaced them.
    holder = f"{MODEL_NAME}@{version.version}"
    for key, folder in lineage.versions.items():
        lake.lake().pin(*key.split("/", 1), folder, holder)

    champion = alias_version(client, MODEL_NAME, CHAMPION)
    champion_auc = None
    if champion is not None:
        champion_tags = client.get_model_version(MODEL_NAME, champion).tags
        champion_auc = float(champion_tags["val_auc"])
    candidate_auc = float(version.tags.get("val_auc", trained.val_auc))
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
    return dg.MaterializeResult(
        metadata={
            "model": MODEL_NAME,
            "version": dg.MetadataValue.int(int(version.version)),
            "mlflow_run_id": run_id,
            "model_uri": dg.MetadataValue.text(trained.model_uri),
            "promoted": decision.promote and champion != str(version.version),
            "champion": dg.MetadataValue.text(
                alias_version(client, MODEL_NAME, CHAMPION) or "none"
            ),
            "decision": reason,
            "candidate_val_auc": decision.candidate_auc,
            "champion_val_auc": dg.MetadataValue.float(champion_auc)
            if champion_auc is not None
            else dg.MetadataValue.text("none"),
            "tolerance": decision.tolerance,
            "baseline_bar": decision.baseline_bar,
            "upstream_check_failures": dg.MetadataValue.json(failures),
            "alias_moves": dg.MetadataValue.json([m.__dict__ for m in moves if m is not None]),
        },
        data_version=dg.DataVersion(f"{MODEL_NAME}/{version.version}"),
    )
