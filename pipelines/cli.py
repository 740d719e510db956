"""The ``plumbline`` command line."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import click

from pipelines.settings import Settings, SettingsError, check_home_writable

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# Telemetry off: these machines have no network beyond package registries, and a
# regulated deployment should not phone home by default.
DAGSTER_YAML = """\
telemetry:
  enabled: false
"""


def fail_usage(message: str) -> None:
    """Bad input: one line naming the setting and what it accepts, exit code 2."""
    click.echo(f"plumbline: error: {message}", err=True)
    sys.exit(2)


def load_settings(**overrides: object) -> Settings:
    """Validate every setting and PLUMBLINE_HOME before anything is created or changed."""
    try:
        settings = Settings.from_env(**{k: v for k, v in overrides.items() if v is not None})
        check_home_writable(settings.home)
    except SettingsError as exc:
        fail_usage(str(exc))
    return settings


def prepare_environment(settings: Settings) -> None:
    """Create PLUMBLINE_HOME and the Dagster instance folder; export the settings so that
    Dagster's step processes (which re-import the definitions) see the same values."""
    settings.dagster_home.mkdir(parents=True, exist_ok=True)
    settings.lake_root.mkdir(parents=True, exist_ok=True)
    dagster_yaml = settings.dagster_home / "dagster.yaml"
    if not dagster_yaml.exists():
        dagster_yaml.write_text(DAGSTER_YAML)
    os.environ.update(settings.to_env())
    os.environ["DAGSTER_HOME"] = str(settings.dagster_home)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """plumbline: legacy warehouse SQL to ANSI, tables, contracts, training and an audit
    trail, as Dagster assets.

    Settings come from PLUMBLINE_* environment variables (see the README); flags override
    them for one command.
    """


@main.command()
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
def run(scale: str | None, engine: str | None, selection: str | None) -> None:
    """Materialize the asset graph through Dagster, as the UI's "Materialize all" does.

    Runs against the persistent Dagster instance in $PLUMBLINE_HOME/dagster, so the run
    shows up in `plumbline ui` afterwards.
    """
    settings = load_settings(scale=scale, engine=engine)
    # Imported here so that `plumbline --help` and bad flags answer without loading Dagster.
    from pipelines.definitions import build_definitions
    from pipelines.run import SelectionError, resolve_selection, run_assets

    try:
        keys = resolve_selection(build_definitions(settings), selection)
    except SelectionError as exc:
        fail_usage(str(exc))
    prepare_environment(settings)
    outcome = run_assets(settings, keys, echo=click.echo)
    sys.exit(0 if outcome.success else 1)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", default=3000, show_default=True, help="Port to listen on.")
def ui(host: str, port: int) -> None:
    """Open the Dagster UI (dagster dev) over the same instance `plumbline run` uses."""
    settings = load_settings()
    prepare_environment(settings)
    dagster = Path(sysconfig.get_path("scripts")) / "dagster"
    workspace = PROJECT_ROOT / "workspace.yaml"
    target = ["-w", str(workspace)] if workspace.is_file() else ["-m", "pipelines.definitions"]
    click.echo(f"Dagster UI on http://{host}:{port} (DAGSTER_HOME={settings.dagster_home})")
    os.execv(dagster, [str(dagster), "dev", *target, "--host", host, "--port", str(port)])


if __name__ == "__main__":
    main()
