"""Retraining: the weekly schedule, the new-raw-data sensor, retrain_job's selection."""

import datetime as dt

import dagster as dg
import pytest

from pipelines.automation import RETRAIN_JOB, raw_data_sensor, retrain_schedule
from pipelines.definitions import build_definitions
from pipelines.lake.raw import raw_data_digest
from pipelines.lake.store import Lake
from pipelines.resources import LakeResource
from pipelines.settings import Settings, SettingsError


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
