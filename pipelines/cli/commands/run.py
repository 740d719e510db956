"""``plumbline run``: the asset graph materialized through Dagster, after its preflight
checks. The run itself (:mod:`pipelines.cli.run`) is imported when the command runs, so that
``plumbline --help`` and bad flags answer without loading Dagster."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from pipelines.cli.environment import load_settings, prepare_environment
from pipelines.cli.errors import fail_problems, fail_usage


@click.command()
@click.option(
    "--scale",
    metavar="SF",
    help="TPC-H scale factor for the raw lake (overrides PLUMBLINE_SCALE).",
)
@click.option(
    "--engine",
    metavar="duckdb|spark",
    help="SQL engine that builds tables (overrides PLUMBLINE_ENGINE).",
)
@click.option(
    "--select",
    "selection",
    metavar="SELECTION",
    help='Dagster asset selection, e.g. "group:raw" or "key:raw/orders"; default: every asset.',
)
@click.option(
    "--portability",
    is_flag=True,
    help="Afterwards, run every warehouse table's SQL on the other engine and compare.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Build and check every selected warehouse table even when its code and inputs are "
    "those of its live version, and train the model even when a training of the same training "
    "set, code and config can be reused.",
)
def run(
    scale: str | None, engine: str | None, selection: str | None, portability: bool, force: bool
) -> None:
    """Materialize the asset graph through Dagster, as the UI's "Materialize all" does.

    Runs against the persistent Dagster instance in $PLUMBLINE_HOME/dagster, so the run
    shows up in `plumbline ui` afterwards.
    """
    settings = load_settings(scale=scale, engine=engine)
    # Imported here so that `plumbline --help` and bad flags answer without loading Dagster.
    from pipelines.cli.location import LocationError, find_location
    from pipelines.cli.run import SelectionError, resolve_selection, run_assets
    from pipelines.project import ProjectError

    # The project's definitions read the settings from the environment, as its step
    # processes and `dg dev` do: the flags reach them there.
    os.environ.update(settings.to_env())
    try:
        location = find_location(Path.cwd())
        defs = location.definitions()
        keys = resolve_selection(defs, selection)
    except (SelectionError, LocationError) as exc:
        fail_usage(str(exc))
    except ProjectError as exc:
        # Every mistake the load found (a broken contract among them), before anything runs.
        fail_problems(exc, "nothing was run")
    from pipelines.cli.preflight import PreflightError, check_footprint, check_mlflow
    from pipelines.registry.tracking_store import TrackingStoreError, ensure_tracking_store

    # A project without models needs no MLflow store; the footprint is the TPC-H demo's.
    trains = any(key.path[0] == "models" for key in defs.resolve_asset_graph().get_all_asset_keys())
    try:
        # Every check that creates nothing comes first: a refused run leaves the home as it
        # was (no MLflow store, lock or folder in a new one).
        if trains:
            check_mlflow(settings.mlflow_uri)
        if location.is_demo:
            # The data path alone (raw, ansi, warehouse) holds to DuckDB's memory limit at
            # any scale; training needs memory as its training set grows.
            selected = (
                keys if selection is not None else defs.resolve_asset_graph().get_all_asset_keys()
            )
            check_footprint(settings, trains=any(key.path[0] == "models" for key in selected))
        if trains:
            ensure_tracking_store(settings.mlflow_uri, settings.mlflow_artifacts.as_uri())
    except (PreflightError, TrackingStoreError) as exc:
        click.echo(f"plumbline: error: {exc}; nothing was run", err=True)
        sys.exit(1)
    prepare_environment(settings)
    outcome = run_assets(
        settings,
        keys,
        location=location,
        subset=selection is not None,
        echo=click.echo,
        force=force,
    )
    if outcome.success and portability:
        from pipelines.definitions import CHECK_PORTABILITY_JOB

        click.echo("")
        outcome = run_assets(
            settings,
            None,
            job_name=CHECK_PORTABILITY_JOB,
            location=location,
            subset=False,
            echo=click.echo,
        )
        outcome.success = outcome.success and all(outcome.checks.values())
    if not outcome.success:
        from pipelines.cli.preflight import disk_full

        full = disk_full([p.message for p in outcome.assets.values() if p.message], settings)
        if full is not None:
            click.echo(f"plumbline: error: {full}", err=True)
    sys.exit(0 if outcome.success else 1)
