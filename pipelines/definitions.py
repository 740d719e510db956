"""The plumbline code location: the one ``Definitions`` Dagster loads (see workspace.yaml).

Loading it must stay light: "Reload definitions" runs it, and so does every run's process.
It parses each legacy file only to find what the file defines and reads (cached by content
under ``$PLUMBLINE_HOME``), translates nothing, plans no query and imports no engine, GX,
Spark, MLflow or torch; all of that happens when an asset or check runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace

import dagster as dg

from assets.ansi import build_ansi_assets
from assets.audit import audit_bundle
from assets.legacy import legacy_files_asset
from assets.metadata import with_python_source
from assets.raw import raw_assets
from assets.registry import registered_model
from assets.scoring import batch_scores
from assets.sources import source_asset
from assets.training import delay_model
from assets.warehouse import build_warehouse_definitions
from pipelines.automation import (
    model_automation_sensor,
    new_model_sensor,
    raw_data_sensor,
    register_model_job,
    retrain_job,
    retrain_schedule,
)
from pipelines.project import Problem, Project, ProjectError, ProjectProblems, demo_project
from pipelines.project_check import (
    load_catalog_files,
    outside_problems,
    oversized_files,
    reconciliation_problems,
    snapshot_problems,
    unproduced_reads,
    unresolved_names,
)
from pipelines.resources import resources_for
from pipelines.settings import Settings
from pipelines.translation.store import DuplicateNameError
from pipelines.warehouse.build import warehouse_tables
from pipelines.warehouse.snapshot import Snapshot
from sql.paths import REPOSITORY_ROOT

# Loading a component stamps its definitions with where they came from; Dagster 1.13 then
# rebuilds each asset-check definition with the beta parameter `execution_type` and warns,
# once per check, about its own call. Nothing of ours passes it. Installed here, at import:
# a filter added while Dagster loads a component is dropped when its loading ends.
warnings.filterwarnings(
    "ignore",
    message=r"Parameter `execution_type` of function `AssetsDefinition.__init__`",
    category=dg.BetaWarning,
)

MATERIALIZE_ALL_JOB = "materialize_all_job"
CHECK_PORTABILITY_JOB = "check_portability_job"
# The resources only the model assets bind.
MODEL_RESOURCES = {"mlflow_tracking", "training_launcher", "audit"}


def build_definitions(
    settings: Settings, project: Project | None = None, *, problems: Sequence[Problem] = ()
) -> dg.Definitions:
    """The definitions of one migration ``project`` (default: the TPC-H demo over
    ``settings``' legacy root and catalog): its raw sources, ``ansi/`` and ``warehouse/``
    assets with their checks, and its models' assets and automation, if it has any.

    Raises ``ProjectProblems`` with every mistake the load can see (``pipelines.project_check``):
    a catalog that does not load, a legacy name no catalog table answers to, a
    reconciliation entry for no table, a raw table no source declares, a broken contract;
    after ``problems``, those its configuration was found with (``MigrationComponent``)."""
    project = project or demo_project(settings)
    if project.engine is not None and project.engine != settings.engine:
        settings = replace(settings, engine=project.engine)
    settings = replace(settings, legacy_root=project.legacy_root, catalog=project.catalogs)
    # Only what the project's assets use: no MLflow, launcher or audit without a model.
    unused = (set() if project.tpch else {"tpch"}) | (set() if project.models else MODEL_RESOURCES)
    resources = dg.Definitions(
        resources={k: r for k, r in resources_for(settings).items() if k not in unused}
    )
    # Every asset names its own "Source code" (MigrationComponent adds no defs.yaml to
    # them): the generated and the model assets their Python, a declared source its
    # declaration, and what is drawn from SQL its SQL file.
    raw = dg.Definitions(
        assets=with_python_source(raw_assets)
        if project.tpch
        else [source_asset(s, project.declared_in) for s in project.sources]
    )
    # Before any of its files is read: a path that leads out of the project is not opened.
    outside = outside_problems(project)
    if outside:
        raise ProjectProblems([*problems, *outside])
    try:
        # A legacy name may map to a table the project's legacy SQL builds (checked by
        # legacy_sql).
        catalog = load_catalog_files(settings.catalog, project_tables=True)
    except ProjectProblems as exc:
        raise ProjectProblems([*problems, *exc.problems]) from None
    # A raw table of a refused source is read but not produced: that source's problem says it.
    refused_sources = any(p.field.startswith("sources.") for p in problems)
    problems = list(problems)
    # Cached only in a home that exists: a load creates nothing, so that a command refused
    # for bad input (`plumbline run --select` of no asset) leaves nothing behind.
    cache = settings.dependency_cache if settings.home.is_dir() else None
    try:
        legacy = project.legacy_sql(catalog, cache=cache)
    except DuplicateNameError as exc:  # two legacy files define one table: it names both
        raise ProjectProblems([*problems, Problem("", str(exc), "")]) from None
    try:
        tables = warehouse_tables(
            legacy.files,
            ansi_root=project.portable_root,
            reference_root=None,
            contracts_root=project.contracts_root,
        )
    except ValueError as exc:  # a portable file defines a legacy file's table: it names both
        raise ProjectProblems([*problems, Problem("", str(exc), "")]) from None
    problems += reconciliation_problems(project, [t.name for t in tables])
    problems += oversized_files(legacy)
    problems += snapshot_problems(project, [t.name for t in tables])
    problems += unresolved_names(legacy)
    # Each legacy file, observed (its sha256 its data version), upstream of its translation.
    legacy_files = legacy_files_asset(legacy)
    observed = [legacy_files] if legacy_files is not None else []
    ansi = dg.Definitions(assets=[*observed, *build_ansi_assets(legacy)])
    try:
        warehouse = build_warehouse_definitions(
            settings.engine,
            legacy,
            snapshot_of=_snapshot_of(project),
            ansi_root=project.portable_root,
            reference_root=project.reference_root,
            contracts_root=project.contracts_root,
        )
    except Exception as exc:
        # Imported only to report: the module plans SQL on DuckDB, which a load must not.
        from pipelines.warehouse.contract_lint import BrokenContracts

        if not isinstance(exc, BrokenContracts):
            raise
        problems += [Problem(e.field, e.message, e.file) for e in exc.errors]
        raise ProjectProblems(problems) from None
    produced = {key for a in [*raw.assets, *warehouse.assets] for key in a.keys}  # type: ignore[union-attr]
    if not refused_sources:
        problems += unproduced_reads(warehouse, produced)
    if problems:
        raise ProjectProblems(problems)
    models = (
        dg.Definitions(
            assets=with_python_source([delay_model, registered_model, audit_bundle, batch_scores]),
            jobs=[retrain_job, register_model_job],
            schedules=[retrain_schedule(settings.retrain_cron)],
            sensors=[raw_data_sensor, new_model_sensor, model_automation_sensor],
        )
        if "delivery_delay" in project.models
        else dg.Definitions()
    )
    portability = dg.AssetSelection.checks(*warehouse.asset_checks)  # type: ignore[arg-type]
    # Every step of every job (the UI's "Materialize all" too) runs in the run's own
    # process. Steps are many (one per table) and short, and their engines are
    # multi-threaded already (DuckDB, a local Spark JVM): a process per step cost more in
    # start-up than the work (82 steps: 235 s against 42 s at scale 0.01), and a local
    # Spark master would start one JVM per step. Training runs out of process (Pipes).
    everything = dg.Definitions(
        jobs=[
            dg.define_asset_job(
                MATERIALIZE_ALL_JOB,
                # The legacy files are observed first: each translation then records the
                # version (sha256) of the file it read. all() alone leaves observable assets out.
                selection=(dg.AssetSelection.all() | dg.AssetSelection.assets(*observed))
                - portability,
            ),
            dg.define_asset_job(
                CHECK_PORTABILITY_JOB,
                selection=portability,
                description="Run every warehouse table's SQL on the other engine and compare.",
            ),
        ],
        executor=dg.in_process_executor,
    )
    return dg.Definitions.merge(resources, raw, ansi, warehouse, models, everything)


def _snapshot_of(project: Project) -> Callable[[str], Snapshot | None]:
    """``project.snapshot``, with a declared snapshot that is missing taken as none: it is
    one of the project's problems (``pipelines.project_check.reconciliation_problems``),
    reported with every other one once the graph is drawn."""

    def snapshot_of(table: str) -> Snapshot | None:
        try:
            return project.snapshot(table)
        except ProjectError:
            return None

    return snapshot_of


@dg.definitions
def defs() -> dg.Definitions:
    """The component instances under ``pipelines/defs/`` (the TPC-H demo's defs.yaml)."""
    return dg.load_from_defs_folder(path_within_project=REPOSITORY_ROOT)
