"""``plumbline ui`` and ``plumbline mlflow-ui``: the Dagster UI and the MLflow UI over this
home, each a server run until it exits or is stopped (:func:`serve`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import click

from pipelines.cli.environment import load_settings, prepare_environment
from pipelines.cli.errors import fail_usage
from pipelines.settings import Settings, redact
from sql.paths import REPOSITORY_ROOT

# How long a server (`plumbline ui`, `plumbline mlflow-ui`) gets to stop after SIGTERM or
# Ctrl-C before what is left of it is killed.
STOP_SECONDS = 15.0


def serve(command: list[str], name: str, env: dict[str, str] | None = None) -> NoReturn:
    """Run a server ``command`` until it exits, or until this process gets SIGTERM or
    SIGINT; then stop it and every process it started, and exit 128 + the signal. ``env``:
    the server's environment (default: this process's).

    The server is a child in a process group of its own, and a signal is passed on to the
    whole group as SIGINT, the Ctrl-C that both servers shut down cleanly on. Why not
    exec: `dagster dev` handles SIGTERM as it handles SIGINT, and a shell starts a
    background job with SIGINT ignored, so `plumbline ui &` ignored both; `mlflow ui` dies
    on SIGTERM and leaves its uvicorn worker running."""
    import psutil

    received: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signum)

    # Installed before the child starts: it then begins with both signals at their default.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    server = subprocess.Popen(command, start_new_session=True, env=env)
    while not received:
        try:
            sys.exit(server.wait(timeout=0.2))
        except subprocess.TimeoutExpired:
            continue
    click.echo(f"plumbline: stopping {name}", err=True)
    try:
        leader = psutil.Process(server.pid)
        group = [leader, *leader.children(recursive=True)]
        os.killpg(server.pid, signal.SIGINT)
    except (psutil.NoSuchProcess, ProcessLookupError):  # it stopped on its own meanwhile
        group = []
    deadline = time.monotonic() + STOP_SECONDS
    while _running(group, server) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in _running(group, server):
        process.kill()
    server.wait()
    sys.exit(128 + received[0])


def _running(processes: list, server: subprocess.Popen) -> list:
    """The processes not yet gone (a zombie whose parent has not reaped it counts as gone)."""
    import psutil

    server.poll()  # reaps the server once it has exited
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", default=3000, show_default=True, help="Port to listen on.")
def ui(host: str, port: int) -> None:
    """Open the Dagster UI (dagster dev) over the same instance `plumbline run` uses."""
    settings = load_settings()
    from pipelines.cli.location import LocationError, find_location

    try:
        location = find_location(Path.cwd())
    except LocationError as exc:
        fail_usage(str(exc))
    prepare_environment(settings)
    dagster = Path(sysconfig.get_path("scripts")) / "dagster"
    workspace = REPOSITORY_ROOT / "workspace.yaml"
    if not location.is_demo:
        # A project of the user's (plumbline init): its own code location, from its folder.
        target = ["-m", location.module, "-d", str(location.root)]
    elif workspace.is_file():
        target = ["-w", str(workspace)]
    else:
        target = ["-m", "pipelines.definitions"]
    click.echo(
        f"Dagster UI on http://{host}:{port} (DAGSTER_HOME={settings.dagster_home}); "
        "stop it with Ctrl-C, or `kill` its process id"
    )
    serve([str(dagster), "dev", *target, "--host", host, "--port", str(port)], "the Dagster UI")


def mlflow_ui_command(settings: Settings, host: str, port: int) -> list[str]:
    mlflow = Path(sysconfig.get_path("scripts")) / "mlflow"
    return [
        str(mlflow),
        "ui",
        "--backend-store-uri",
        settings.mlflow_uri,
        "--default-artifact-root",
        settings.mlflow_artifacts.as_uri(),
        "--host",
        host,
        "--port",
        str(port),
        # One person's local UI: one server process, not MLflow's default four (each of
        # which loads MLflow, seconds of CPU).
        "--workers",
        "1",
    ]


def mlflow_ui_environment() -> dict[str, str]:
    """This process's environment, with MLflow's job execution off unless set: it runs the
    GenAI view's jobs (scorers, prompt optimization) in a Huey consumer per kind of job, each
    a process that loads MLflow (seconds of CPU at every start, and they delay the stop), for
    pages the model-training view does not have."""
    return {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"} | dict(os.environ)


# Where `plumbline mlflow-ui` listens when PLUMBLINE_MLFLOW_UI_URL names no local address.
MLFLOW_UI_HOST = "127.0.0.1"
MLFLOW_UI_PORT = 5000
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# A server listening here is reached through every loopback name.
EVERY_INTERFACE = frozenset({"0.0.0.0", "::"})


def _loopback(host: str) -> str:
    return MLFLOW_UI_HOST if host == "localhost" else host


@dataclass(frozen=True)
class MlflowUiAddress:
    """Where `plumbline mlflow-ui` listens, and why the Dagster UI's links would not open
    it (None when they do)."""

    host: str
    port: int
    mismatch: str | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def mlflow_ui_address(linked: str, host: str | None, port: int | None) -> MlflowUiAddress:
    """Where to serve the MLflow UI: by default at ``linked`` (PLUMBLINE_MLFLOW_UI_URL, the
    address every link from the Dagster UI names) when that is a local http address, else
    at 127.0.0.1:5000; ``host`` and ``port`` (the flags) override. The links are written
    into each run's metadata from the setting, so a server elsewhere is one they do not
    open: ``mismatch`` says so, naming the setting that would."""
    parts = urllib.parse.urlsplit(linked)
    local = parts.scheme == "http" and parts.hostname in LOOPBACK and parts.path in ("", "/")
    if local:
        default_host = "::1" if parts.hostname == "::1" else MLFLOW_UI_HOST
        default_port = parts.port or 80
    else:
        default_host, default_port = MLFLOW_UI_HOST, MLFLOW_UI_PORT
    served = MlflowUiAddress(host or default_host, port or default_port)
    reached = (
        local
        and served.port == default_port
        and (served.host in EVERY_INTERFACE or _loopback(served.host) == default_host)
    )
    if reached:
        return served
    return MlflowUiAddress(
        served.host,
        served.port,
        f"the Dagster UI links MLflow pages to {linked} (PLUMBLINE_MLFLOW_UI_URL), which this "
        f"server at {served.url} is not; set PLUMBLINE_MLFLOW_UI_URL={served.url} for the runs "
        "and `plumbline ui` that follow to link here"
        + (", or leave out --host and --port" if local else ""),
    )


@click.command("mlflow-ui")
@click.option(
    "--host",
    default=None,
    help="Address to listen on. Default: that of PLUMBLINE_MLFLOW_UI_URL when it is a local "
    "one, else 127.0.0.1.",
)
@click.option(
    "--port",
    "-p",
    type=int,
    default=None,
    help="Port to listen on. Default: that of PLUMBLINE_MLFLOW_UI_URL when it is a local "
    "address (http://127.0.0.1:5000 unless set), else 5000.",
)
def mlflow_ui(host: str | None, port: int | None) -> None:
    """Open the MLflow UI over the tracking store and artifacts training writes to, at the
    address the Dagster UI's links name (PLUMBLINE_MLFLOW_UI_URL)."""
    settings = load_settings()
    settings.mlflow_artifacts.mkdir(parents=True, exist_ok=True)
    from pipelines.registry.tracking_store import TrackingStoreError, ensure_tracking_store

    try:
        ensure_tracking_store(settings.mlflow_uri, settings.mlflow_artifacts.as_uri())
    except TrackingStoreError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    address = mlflow_ui_address(settings.mlflow_ui_url, host, port)
    command = mlflow_ui_command(settings, address.host, address.port)
    from pipelines.registry.ui_links import experiment_page

    if address.mismatch is not None:
        click.echo(f"plumbline: warning: {address.mismatch}", err=True)
    click.echo(
        f"MLflow UI on {experiment_page(address.url)} "
        f"({redact(settings.mlflow_uri)}); stop it with Ctrl-C, or `kill` its process id"
    )
    serve(command, "the MLflow UI", mlflow_ui_environment())
