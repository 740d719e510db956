"""Retraining: the weekly schedule, the new-raw-data sensor, retrain_job's selection; the
sensor that follows a model trained elsewhere with a run naming it; and the automation
sensor that scores new open line items."""

import datetime as dt

import dagster as dg
import pytest

from assets.audit import AUDIT_BUNDLE_KEY
from assets.registry import REGISTERED_MODEL_KEY
from assets.scoring import BATCH_SCORES_KEY
from assets.training import DELAY_MODEL_KEY
from assets.warehouse import OPEN_LINES_KEY
from pipelines.automation import (
    AUTOMATED,
    AUTOMATION_SENSOR,
    REGISTER_MODEL_JOB,
    RETRAIN_JOB,
    new_model_sensor,
    raw_data_sensor,
    retrain_schedule,
)
from pipelines.definitions import build_definitions
from pipelines.lake.raw import raw_data_digest
from pipelines.lake.store import Lake
from pipelines.resources import LakeResource
from pipelines.settings import DEFAULT_RETRAIN_CRON, Settings, SettingsError


def evaluate(lake_root, cursor=None):
    context = dg.build_sensor_context(
        cursor=cursor, resources={"lake": LakeResource(root=str(lake_root))}
    )
    return raw_data_sensor(context), context.cursor


def test_the_sensor_skips_until_raw_data_exists(tmp_path):
    result, cursor = evaluate(tmp_path / "lake")
    assert isinstance(result, dg.SkipReason) and cursor is None


def test_the_sensor_requests_a_retrain_only_when_the_raw_digest_changes(raw_lake_root):
    digest = raw_data_digest(Lake(raw_lake_root))
    baseline, cursor = evaluate(raw_lake_root)
    assert isinstance(baseline, dg.SkipReason) and cursor == digest
    unchanged, cursor = evaluate(raw_lake_root, cursor=digest)
    assert isinstance(unchanged, dg.SkipReason) and "unchanged" in unchanged.skip_message
    changed, cursor = evaluate(raw_lake_root, cursor="an-older-digest")
    assert isinstance(changed, dg.RunRequest)
    assert changed.run_key == f"raw-{digest}" and cursor == digest
    assert changed.tags["plumbline/raw_digest"] == digest


def test_the_weekly_schedule_runs_retrain_job_on_the_configured_cron():
    schedule = retrain_schedule("0 3 * * 1")
    assert schedule.cron_schedule == "0 3 * * 1" and schedule.job_name == RETRAIN_JOB
    context = dg.build_schedule_context(
        scheduled_execution_time=dt.datetime(2026, 11, 30, 3, tzinfo=dt.UTC)
    )
    [request] = schedule.evaluate_tick(context).run_requests
    assert isinstance(request, dg.RunRequest)


def test_a_bad_cron_setting_is_refused():
    with pytest.raises(SettingsError, match="PLUMBLINE_RETRAIN_CRON must be a cron expression"):
        Settings.from_env({"PLUMBLINE_RETRAIN_CRON": "every monday"})


def test_the_default_cron_that_settings_take_unchecked_is_one_dagster_takes():
    # Settings skip Dagster's check for the default (a command need not import Dagster).
    schedule = dg.ScheduleDefinition(name="d", cron_schedule=DEFAULT_RETRAIN_CRON, job_name="j")
    assert schedule.cron_schedule == Settings.from_env({}).retrain_cron == DEFAULT_RETRAIN_CRON


def test_retrain_job_covers_the_training_path_and_not_the_raw_data(tmp_path):
    defs = build_definitions(Settings(home=tmp_path, retrain_cron="0 4 * * 2"))
    job = defs.resolve_job_def(RETRAIN_JOB)
    keys = {key.to_user_string() for key in job.asset_layer.selected_asset_keys}
    assert {
        "ansi/delay_features",
        "warehouse/delay_features",
        "warehouse/training_set",
        "models/delay_model",
        "models/registered_model",
        "models/audit_bundle",
        "warehouse/open_lines",
        "scores/batch_scores",
    } == keys
    assert defs.resolve_schedule_def("weekly_retrain").cron_schedule == "0 4 * * 2"
    assert defs.resolve_sensor_def("raw_data_sensor").job_name == RETRAIN_JOB


@pytest.fixture
def definitions(tmp_path) -> dg.Definitions:
    return build_definitions(Settings(home=tmp_path))


def test_the_automation_sensor_is_on_by_default_over_the_scores_only(definitions):
    """Registration and the audit have no automation condition: they must be told which
    training to take (new_model_sensor's run config), never take "the latest"."""
    sensor = definitions.resolve_sensor_def(AUTOMATION_SENSOR)
    assert isinstance(sensor, dg.AutomationConditionSensorDefinition)
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    graph = definitions.resolve_asset_graph()
    automated = {
        key for key in graph.get_all_asset_keys() if graph.get(key).automation_condition is not None
    }
    assert automated == {BATCH_SCORES_KEY}
    assert sensor.asset_selection.resolve(graph) == automated


def requested(definitions, instance, cursor=None):
    result = dg.evaluate_automation_conditions(
        defs=definitions, instance=instance, asset_selection=AUTOMATED, cursor=cursor
    )
    keys = {r.key for r in result.results if r.true_subset.size}
    return keys, result.cursor


def test_new_open_lines_are_scored_with_the_champion(definitions):
    with dg.DagsterInstance.ephemeral() as instance:
        nothing, cursor = requested(definitions, instance)
        assert nothing == set()
        # A new model alone requests nothing here: new_model_sensor follows it.
        instance.report_runless_asset_event(dg.AssetMaterialization(DELAY_MODEL_KEY))
        nothing, cursor = requested(definitions, instance, cursor)
        assert nothing == set()
        for key in (REGISTERED_MODEL_KEY, OPEN_LINES_KEY):
            instance.report_runless_asset_event(dg.AssetMaterialization(key))
        scored, cursor = requested(definitions, instance, cursor)
        assert scored == {BATCH_SCORES_KEY}


def trained(run_id: str, data_version: str) -> dg.AssetMaterialization:
    return dg.AssetMaterialization(
        DELAY_MODEL_KEY,
        metadata={"mlflow_run_id": run_id},
        tags={"dagster/data_version": data_version},
    )


def test_each_model_trained_elsewhere_is_followed_by_a_run_naming_it(definitions):
    """Two trainings between two ticks: two runs, each with its training's MLflow run id and
    data version in its config (an asset sensor would see the newer one only); none again."""
    assert definitions.resolve_sensor_def("new_model_sensor").job_name == REGISTER_MODEL_JOB
    job = definitions.resolve_job_def(REGISTER_MODEL_JOB)
    assert set(job.asset_layer.selected_asset_keys) == {
        REGISTERED_MODEL_KEY,
        AUDIT_BUNDLE_KEY,
        BATCH_SCORES_KEY,
    }
    with dg.DagsterInstance.ephemeral() as instance:
        context = dg.build_sensor_context(instance=instance)
        assert new_model_sensor.evaluate_tick(context).run_requests == []
        instance.report_runless_asset_event(trained("r1", "d1"))
        instance.report_runless_asset_event(trained("r2", "d2"))
        requests = new_model_sensor.evaluate_tick(context).run_requests
        assert [r.run_config["ops"]["models__registered_model"]["config"] for r in requests] == [
            {"mlflow_run_id": "r1", "delay_model_data_version": "d1"},
            {"mlflow_run_id": "r2", "delay_model_data_version": "d2"},
        ]
        assert len({r.run_key for r in requests}) == 2
        assert new_model_sensor.evaluate_tick(context).run_requests == []


@dg.asset(key=DELAY_MODEL_KEY)
def _delay_model() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"mlflow_run_id": "r3"})


@dg.asset(key=REGISTERED_MODEL_KEY, deps=[_delay_model])
def _registered_model() -> None:
    pass


def test_a_run_that_trains_and_registers_is_not_followed_again():
    """retrain_job materializes the model and its registration in one run: the sensor
    requests nothing for it (its own registration reads its own training)."""
    with dg.DagsterInstance.ephemeral() as instance:
        context = dg.build_sensor_context(instance=instance)
        assert dg.materialize([_delay_model, _registered_model], instance=instance).success
        assert new_model_sensor.evaluate_tick(context).run_requests == []
        assert dg.materialize([_delay_model], instance=instance).success
        [request] = new_model_sensor.evaluate_tick(context).run_requests
        named = request.run_config["ops"]["models__registered_model"]["config"]
        assert named["mlflow_run_id"] == "r3"
