"""``retrain_job``, its weekly schedule, the sensor that requests it when new raw data
arrives; ``new_model_sensor``, which follows each model trained elsewhere with a run of
``register_model_job`` that names that training in its config; and the automation-condition
sensor that scores new open line items."""

import dagster as dg

from assets.audit import AUDIT_BUNDLE_KEY
from assets.registry import REGISTERED_MODEL_KEY
from assets.scoring import BATCH_SCORES_KEY
from assets.training import DELAY_MODEL_KEY
from assets.warehouse import OPEN_LINES_KEY, TRAINING_SET_KEY
from pipelines.instance import DATA_VERSION_TAG, planned_by_run
from pipelines.lake.raw import raw_data_digest
from pipelines.resources import LakeResource

RETRAIN_JOB = "retrain_job"

# The training path: the training set and the warehouse tables it is built from (not the
# raw data: new raw data is what triggers a retrain), the model, its registration and audit
# bundle, and the scores of the open line items with whichever model is champion afterwards.
# Registration and the audit read what this run's own upstream steps materialized (not the
# latest materialization, which a concurrent run may have made).
RETRAIN_SELECTION = (
    dg.AssetSelection.assets(TRAINING_SET_KEY, OPEN_LINES_KEY).upstream()
    - dg.AssetSelection.groups("raw")
) | dg.AssetSelection.assets(
    DELAY_MODEL_KEY, REGISTERED_MODEL_KEY, AUDIT_BUNDLE_KEY, BATCH_SCORES_KEY
)

retrain_job = dg.define_asset_job(
    RETRAIN_JOB,
    selection=RETRAIN_SELECTION,
    description="Rebuild the training set from the lake, retrain, register and gate the model.",
)


def retrain_schedule(cron: str) -> dg.ScheduleDefinition:
    return dg.ScheduleDefinition(
        name="weekly_retrain",
        cron_schedule=cron,
        execution_timezone="UTC",
        job=retrain_job,
        default_status=dg.DefaultScheduleStatus.RUNNING,
        description="Retrain on the current data every week (PLUMBLINE_RETRAIN_CRON).",
    )


@dg.sensor(
    job=retrain_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests retrain_job when the published raw data's digest changes.",
)
def raw_data_sensor(context: dg.SensorEvaluationContext, lake: LakeResource):
    digest = raw_data_digest(lake.lake())
    if digest is None:
        return dg.SkipReason("the raw tables are not all published yet")
    if context.cursor is None:
        context.update_cursor(digest)
        return dg.SkipReason(f"baseline raw data digest recorded: {digest[:12]}")
    if context.cursor == digest:
        return dg.SkipReason(f"raw data unchanged (digest {digest[:12]})")
    context.update_cursor(digest)
    return dg.RunRequest(
        run_key=f"raw-{digest}",
        tags={"plumbline/trigger": "new raw data", "plumbline/raw_digest": digest},
    )


REGISTER_MODEL_JOB = "register_model_job"
# What follows a model trained outside retrain_job (the UI, `plumbline run --select`): its
# registration, the audit of that registration, and the scores of the new champion, in one
# run, so the audit and the scores read that run's own registration.
register_model_job = dg.define_asset_job(
    REGISTER_MODEL_JOB,
    selection=dg.AssetSelection.assets(REGISTERED_MODEL_KEY, AUDIT_BUNDLE_KEY, BATCH_SCORES_KEY),
    description=(
        "Register, gate and audit the training named in "
        "ops.models__registered_model.config.mlflow_run_id, then score with the champion."
    ),
)
NEW_MODEL_SENSOR = "new_model_sensor"
# Trainings read per evaluation; the cursor (a storage id) resumes after the last one read.
SENSOR_PAGE = 100


def registration_request(event: dg.EventLogEntry) -> dg.RunRequest | dg.SkipReason:
    """The run that registers the training of one delay_model materialization, named in its
    config by MLflow run id and data version."""
    materialization = event.asset_materialization
    metadata = {} if materialization is None else materialization.metadata
    if "mlflow_run_id" not in metadata:
        return dg.SkipReason(f"the delay_model of run {event.run_id} records no mlflow_run_id")
    mlflow_run_id = str(metadata["mlflow_run_id"].value)
    config: dict[str, str] = {"mlflow_run_id": mlflow_run_id}
    data_version = materialization.tags.get(DATA_VERSION_TAG) if materialization else None
    if data_version is not None:
        config["delay_model_data_version"] = data_version
    return dg.RunRequest(
        run_key=f"delay_model-{event.run_id}-{mlflow_run_id}",
        run_config={"ops": {"models__registered_model": {"config": config}}},
        tags={"plumbline/trigger": "new model", "plumbline/delay_model_run_id": event.run_id},
    )


# A sensor over the event log rather than @dg.asset_sensor: an asset sensor reads only the
# newest materialization after its cursor, so of two trainings between ticks the first
# would never be registered.
@dg.sensor(
    name=NEW_MODEL_SENSOR,
    job=register_model_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "For each models/delay_model materialized by a run that does not also register it, "
        "requests register_model_job with that training's MLflow run id and data version "
        "in its config."
    ),
)
def new_model_sensor(context: dg.SensorEvaluationContext):
    after = int(context.cursor) if context.cursor else None
    page = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=DELAY_MODEL_KEY, after_storage_id=after),
        limit=SENSOR_PAGE,
        ascending=True,
    )
    for record in page.records:
        context.update_cursor(str(record.storage_id))
        event = record.event_log_entry
        if planned_by_run(context.instance, event.run_id, REGISTERED_MODEL_KEY):
            continue  # its own run registers it (retrain_job, materialize_all_job)
        request = registration_request(event)
        if isinstance(request, dg.RunRequest):
            yield request
        else:
            context.log.warning(request.skip_message)


AUTOMATION_SENSOR = "model_automation_sensor"
# The assets with an automation condition (eager): new open line items are scored with the
# champion. A new model is followed by new_model_sensor's run instead, which names it.
AUTOMATED = dg.AssetSelection.assets(BATCH_SCORES_KEY)

# Dagster's own default sensor for these is off in a new instance; this one is on. The
# daemon (`dagster dev`, `plumbline ui`) evaluates it; `plumbline run` executes its run in
# its own process and runs no daemon.
model_automation_sensor = dg.AutomationConditionSensorDefinition(
    AUTOMATION_SENSOR,
    target=AUTOMATED,
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    description=(
        "Evaluates the automation condition of batch_scores: new open line items are "
        "scored with the champion."
    ),
)
