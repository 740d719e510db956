"""The plumbline code location: the one ``Definitions`` Dagster loads (see workspace.yaml).

Loading it must stay light: "Reload definitions" runs it, and so does every run's process.
It parses each legacy file only to find what the file defines and reads (cached by content
under ``$PLUMBLINE_HOME``), translates nothing, plans no query and imports no engine, GX,
Spark, MLflow or torch; all of that happens when an asset or check runs.
"""

from __future__ import annotations

import dagster as dg

from assets.ansi import build_ansi_assets
from assets.audit import audit_bundle
from assets.raw import raw_assets
from assets.registry import registered_model
from assets.scoring import batch_scores
from assets.training import delay_model
from assets.warehouse import build_warehouse_definitions
from pipelines.automation import (
    model_automation_sensor,
    raw_data_sensor,
    retrain_job,
    retrain_schedule,
)
from pipelines.resources import resources_for
from pipelines.settings import Settings
from pipelines.translation.store import legacy_dependencies
from sql.catalog import load_catalogs

MATERIALIZE_ALL_JOB = "materialize_all_job"
CHECK_PORTABILITY_JOB = "check_portability_job"


def build_definitions(settings: Settings) -> dg.Definitions:
    resources = dg.Definitions(resources=resources_for(settings))
    raw = dg.Definitions(assets=raw_assets)
    catalog = load_catalogs(settings.catalog)
    # Cached only in a home that exists: a load creates nothing, so that a command refused
    # for bad input (`plumbline run --select` of no asset) leaves nothing behind.
    cache = settings.dependency_cache if settings.home.is_dir() else None
    legacy = legacy_dependencies(settings.legacy_root, catalog, cache=cache)
    ansi = dg.Definitions(assets=build_ansi_assets(legacy))
    warehouse = build_warehouse_definitions(settings.engine, legacy, catalog)
    models = dg.Definitions(
        assets=[delay_model, registered_model, audit_bundle, batch_scores],
        jobs=[retrain_job],
        schedules=[retrain_schedule(settings.retrain_cron)],
        sensors=[raw_data_sensor, model_automation_sensor],
    )
    [portability] = warehouse.asset_checks
    # Every step of every job (the UI's "Materialize all" too) runs in the run's own
    # process. Steps are many (one per table) and short, and their engines are
    # multi-threaded already (DuckDB, a local Spark JVM): a process per step cost more in
    # start-up than the work (82 steps: 235 s against 42 s at scale 0.01), and a local
    # Spark master would start one JVM per step. Training runs out of process (Pipes).
    everything = dg.Definitions(
        jobs=[
            dg.define_asset_job(
                MATERIALIZE_ALL_JOB,
                selection=dg.AssetSelection.all() - dg.AssetSelection.checks(portability),
            ),
            dg.define_asset_job(
                CHECK_PORTABILITY_JOB,
                selection=dg.AssetSelection.checks(portability),
                description="Run every warehouse table's SQL on the other engine and compare.",
            ),
        ],
        executor=dg.in_process_executor,
    )
    return dg.Definitions.merge(resources, raw, ansi, warehouse, models, everything)


@dg.definitions
def defs() -> dg.Definitions:
    settings = Settings.from_env()
    # `dg dev`'s code server and run workers start here, not through the CLI: the MLflow
    # credentials move from the URI to the environment in this process too.
    settings.export_credentials()
    return build_definitions(settings)


def materialize_all_job() -> dg.JobDefinition:
    """Every asset, as the UI's "Materialize all" runs them. Module-level so that
    ``dg.reconstructable`` can rebuild it in each step process of ``plumbline run``."""
    return defs().resolve_job_def(MATERIALIZE_ALL_JOB)


def check_portability_job() -> dg.JobDefinition:
    """The portability checks alone (they start the other engine); see ``plumbline run
    --portability``."""
    return defs().resolve_job_def(CHECK_PORTABILITY_JOB)
