"""What every ``plumbline`` command starts from: its settings, validated once
(:func:`load_settings`), the Dagster instance folder under ``$PLUMBLINE_HOME`` with the
environment its step processes inherit (:func:`prepare_environment`), and the project the
working directory lies in (:func:`current_project`)."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.cli.errors import fail_usage
from pipelines.settings import Settings, SettingsError, check_home_writable

# Telemetry off: these machines have no network beyond package registries, and a
# regulated deployment should not phone home by default. python_log_level INFO keeps the
# step workers' DEBUG engine events out of the terminal (they stay in the event log). The
# managed loggers' records go into each step's log in the event log (and from there into
# `plumbline run`'s log file), not only to the stderr their own handlers write to.
DAGSTER_YAML = """\
telemetry:
  enabled: false
python_logs:
  python_log_level: INFO
  managed_python_loggers:
    - alembic
    - great_expectations
    - mlflow
    - urllib3
"""
# What earlier versions wrote: replaced by DAGSTER_YAML; a dagster.yaml edited by hand is kept.
EARLIER_DAGSTER_YAML = ("telemetry:\n  enabled: false\npython_logs:\n  python_log_level: INFO\n",)
# For every process a command starts: MLflow's tqdm bars (artifact uploads and downloads in
# the step processes) are for a person at a terminal, and `plumbline run` keeps its own.
QUIET_ENV = {"MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false"}


def load_settings(**overrides: object) -> Settings:
    """Validate every setting and PLUMBLINE_HOME before anything is created or changed."""
    try:
        settings = Settings.from_env(**{k: v for k, v in overrides.items() if v is not None})
        check_home_writable(settings.home)
    except SettingsError as exc:
        fail_usage(str(exc))
    settings.export_credentials()
    return settings


def prepare_environment(settings: Settings) -> None:
    """Create PLUMBLINE_HOME and the Dagster instance folder; export the settings so that
    Dagster's step processes (which re-import the definitions) see the same values."""
    settings.dagster_home.mkdir(parents=True, exist_ok=True)
    settings.lake_root.mkdir(parents=True, exist_ok=True)
    dagster_yaml = settings.dagster_home / "dagster.yaml"
    if not dagster_yaml.exists() or dagster_yaml.read_text() in EARLIER_DAGSTER_YAML:
        dagster_yaml.write_text(DAGSTER_YAML)
    os.environ.update(settings.to_env())
    os.environ.update(QUIET_ENV)
    os.environ["DAGSTER_HOME"] = str(settings.dagster_home)


def relative_to_cwd(line: str) -> str:
    """Paths under the working directory as relative paths, like compilers print them."""
    cwd = str(Path.cwd()) + os.sep
    return line[len(cwd) :] if line.startswith(cwd) else line


def current_project():
    """The project the working directory lies in (a dg project of the user's), or this
    repository's TPC-H demo: where its contracts, legacy SQL and catalogs are."""
    from pipelines.cli.location import LocationError, find_location

    try:
        return find_location(Path.cwd()).migration()[1]
    except LocationError as exc:
        fail_usage(str(exc))
