"""``plumbline models history``: every alias move of a registered model."""

from __future__ import annotations

import sys

import click

from pipelines.cli.environment import load_settings
from pipelines.cli.errors import one_line
from pipelines.settings import Settings, redact


@click.group()
def models() -> None:
    """Registered models (MLflow Model Registry, PLUMBLINE_MLFLOW_URI)."""


@models.command("history")
@click.argument("model", default="delivery_delay")
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines instead of a table.")
def models_history(model: str, as_json: bool) -> None:
    """Every alias move of MODEL (who moved it, from which version to which, when, why),
    from the append-only log in $PLUMBLINE_HOME/lake/registry/alias_history."""
    import json
    from dataclasses import asdict

    from pipelines.registry.versions import AliasHistory, RegistryError

    settings = load_settings()
    try:
        moves = AliasHistory.in_lake(settings.lake_root).moves(model)
    except RegistryError as exc:  # a move file truncated, appended to or replaced
        click.echo(f"plumbline: error: {one_line(str(exc))}", err=True)
        sys.exit(1)
    if not moves:
        # No moves is an answer for a registered model; for any other name it is a mistake.
        registered = _registered_models(settings)
        if model not in registered:
            known = ", ".join(registered) or "none yet (`plumbline run` registers delivery_delay)"
            message = (
                f"no registered model {model!r} in {redact(settings.mlflow_uri)}, and no "
                f"alias moves recorded for it; registered models: {known}"
            )
            click.echo(f"plumbline: error: {one_line(message)}", err=True)
            sys.exit(1)
    if as_json:
        for move in moves:
            click.echo(json.dumps(asdict(move), sort_keys=True))
        return
    if not moves:
        click.echo(f"no alias moves recorded for {model}")
        return
    header = f"{'moved at (UTC)':<32}  {'alias':<10}  {'from':>4}  {'to':>4}  {'dagster run':<36}  reason"
    click.echo(header)
    for m in moves:
        click.echo(
            f"{m.moved_at:<32}  {m.alias:<10}  {m.from_version or '-':>4}  {m.to_version:>4}  "
            f"{m.dagster_run_id:<36}  {m.reason}"
        )


def _registered_models(settings: Settings) -> list[str]:
    """The names in the MLflow Model Registry, sorted; none for a sqlite store not yet made
    (looking must not create it)."""
    from pipelines.cli.preflight import PreflightError, check_mlflow
    from pipelines.registry.tracking_store import sqlite_path

    uri = settings.mlflow_uri
    store = sqlite_path(uri)
    if store is not None and not store.is_file():
        return []
    try:
        check_mlflow(uri)  # MLflow's own client retries an unreachable server for minutes
    except PreflightError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri, registry_uri=uri)
    names: list[str] = []
    token = None
    while True:
        page = client.search_registered_models(page_token=token)
        names.extend(model.name for model in page)
        token = page.token
        if not token:
            return sorted(names)
