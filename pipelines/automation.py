"""``retrain_job``, its weekly schedule, the sensor that requests it when new raw data
arrives, and the automation-condition sensor that follows a new model with its
registration, scores and audit bundle."""

import dagster as dg

from assets.audit import AUDIT_BUNDLE_KEY
from assets.registry import REGISTERED_MODEL_KEY
from assets.scoring import BATCH_SCORES_KEY
from assets.training import DELAY_MODEL_KEY
from assets.warehouse import OPEN_LINES_KEY, TRAINING_SET_KEY
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


AUTOMATION_SENSOR = "model_automation_sensor"
# The assets with an automation condition (eager): a delay_model materialized outside
# retrain_job (the UI, `plumbline run --select`) is registered, scored and audited. One tick
# requests the three together, and Dagster launches the unpartitioned assets of one tick as
# one run, so the audit reads that run's registration and the scores its champion.
AUTOMATED = dg.AssetSelection.assets(REGISTERED_MODEL_KEY, BATCH_SCORES_KEY, AUDIT_BUNDLE_KEY)

# Dagster's own default sensor for these is off in a new instance; this one is on. The
# daemon (`dagster dev`, `plumbline ui`) evaluates it; `plumbline run` executes its run in
# its own process and runs no daemon.
model_automation_sensor = dg.AutomationConditionSensorDefinition(
    AUTOMATION_SENSOR,
    target=AUTOMATED,
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    description=(
        "Evaluates the automation conditions of registered_model, batch_scores and "
        "audit_bundle: a new delay_model or open_lines materialization requests them."
    ),
)
