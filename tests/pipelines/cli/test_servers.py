"""`plumbline ui` and `plumbline mlflow-ui` stop, with every process they started, on the
`kill <pid>` a user sends to one started in the background, and on Ctrl-C."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from pipelines.cli.commands.servers import mlflow_ui_address
from tests.mlflow_store import copy_store
from tests.pipelines.cli.test_main import PLUMBLINE

STOPPED_WITHIN = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_background_job() -> None:
    # What a non-interactive shell does to a command started with `&` (POSIX, "Asynchronous
    # Lists"): SIGINT ignored. `dagster dev` handles SIGTERM as SIGINT, so it ignored both.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _log_a_run(home: Path, store_template: Path) -> tuple[str, str]:
    """A finished run with one metric in ``home``'s tracking store (a copy of an empty one:
    tests/mlflow_store.py), logged as training does."""
    from pipelines.resources import MlflowResource
    from pipelines.settings import Settings

    copy_store(store_template, home)
    settings = Settings(home=home)
    tracking = MlflowResource(
        tracking_uri=settings.mlflow_uri, artifact_root=str(settings.mlflow_artifacts)
    )
    client = tracking.client()
    run = client.create_run(tracking.experiment_id(), run_name="smoke")
    client.log_metric(run.info.run_id, "val_auc", 0.9)
    client.set_terminated(run.info.run_id)
    return tracking.experiment_id(), run.info.run_id


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


RUNS_QUERY = "{ runsOrError { ... on Runs { results { status jobName } } } }"


@pytest.mark.parametrize(
    ("command", "path", "signum", "after_a_run"),
    [
        ("ui", "/server_info", signal.SIGTERM, True),
        ("ui", "/server_info", signal.SIGINT, False),
        ("mlflow-ui", "/health", signal.SIGTERM, False),
    ],
)
def test_a_server_stops_with_its_children_on_a_signal(
    tmp_path, request, command, path, signum, after_a_run
):
    """Each server answers, then stops with every process it started. `plumbline mlflow-ui`
    first shows a run logged into PLUMBLINE_MLFLOW_URI by the resource training uses;
    `plumbline ui` over a home where `plumbline run` succeeded (a copy of the session's run,
    tests/model_path.py) is `dagster dev` over the same instance: it lists that run's two
    Dagster runs."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    environment["PLUMBLINE_HOME"] = str(tmp_path / "home")
    if after_a_run:
        request.getfixturevalue("model_path_run").copy_home(tmp_path / "home")
    logged = None
    if command == "mlflow-ui":
        logged = _log_a_run(tmp_path / "home", request.getfixturevalue("mlflow_store_template"))
    server = subprocess.Popen(
        [PLUMBLINE, command, "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=as_background_job if signum == signal.SIGTERM else None,
    )
    family: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5):
                    break
            except OSError:
                assert server.poll() is None, f"plumbline {command} exited"
                assert time.monotonic() < deadline, f"{command} did not answer within 180 s"
                time.sleep(1)
        if logged is not None:
            experiment, run_id = logged
            search = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/2.0/mlflow/runs/search",
                data=json.dumps({"experiment_ids": [experiment]}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(search, timeout=30) as response:
                [listed] = json.load(response)["runs"]
            assert listed["info"]["run_id"] == run_id
            assert listed["data"]["metrics"][0]["value"] == 0.9
        if after_a_run:
            graphql = urllib.request.Request(
                f"http://127.0.0.1:{port}/graphql",
                data=json.dumps({"query": RUNS_QUERY}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(graphql, timeout=30) as response:
                runs = json.load(response)["data"]["runsOrError"]["results"]
            # The invocation's two Dagster runs: what the tables read, then what was built.
            assert runs == [{"status": "SUCCESS", "jobName": "materialize_all_job"}] * 2
        family = psutil.Process(server.pid).children(recursive=True)
        # dagster dev runs a webserver, a daemon and a code server; mlflow ui a uvicorn.
        assert len(family) >= (3 if command == "ui" else 2), family
        if command == "mlflow-ui":
            # Without MLflow's job runner and its Huey consumers (the GenAI view's jobs),
            # each a process loading MLflow at every start.
            commands = [" ".join(process.cmdline()) for process in running(family)]
            assert not [c for c in commands if "huey" in c or "jobs._job_runner" in c], commands

        started = time.monotonic()
        # Ctrl-C reaches the terminal's foreground process group; `kill` the one process.
        if signum == signal.SIGINT:
            os.killpg(server.pid, signum)
        else:
            os.kill(server.pid, signum)
        assert server.wait(timeout=STOPPED_WITHIN) == 128 + signum
        while running(family) and time.monotonic() - started < STOPPED_WITHIN:
            time.sleep(0.2)
        assert running(family) == []
    finally:
        for process in running([*family]):
            process.kill()
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.parametrize(
    ("linked", "host", "port", "served", "links_here"),
    [
        # By default the server is where PLUMBLINE_MLFLOW_UI_URL (the links) says.
        ("http://127.0.0.1:5000", None, None, "http://127.0.0.1:5000", True),
        ("http://127.0.0.1:5300", None, None, "http://127.0.0.1:5300", True),
        ("http://localhost:5300/", None, None, "http://127.0.0.1:5300", True),
        ("http://[::1]:5400", None, None, "http://[::1]:5400", True),
        ("http://127.0.0.1", None, None, "http://127.0.0.1:80", True),
        # Every interface includes the loopback the links name.
        ("http://127.0.0.1:5300", "0.0.0.0", None, "http://0.0.0.0:5300", True),
        ("http://127.0.0.1:5300", None, 5300, "http://127.0.0.1:5300", True),
        ("http://localhost:5300", "localhost", None, "http://localhost:5300", True),
        # A port or host the links do not name: served, with a warning.
        ("http://127.0.0.1:5000", None, 5300, "http://127.0.0.1:5300", False),
        ("http://127.0.0.1:5000", "192.0.2.7", None, "http://192.0.2.7:5000", False),
        ("http://[::1]:5000", "127.0.0.1", None, "http://127.0.0.1:5000", False),
        # Links to a tracking server's own UI, or behind a proxy: not this server's.
        ("https://mlflow.example.com", None, None, "http://127.0.0.1:5000", False),
        ("http://127.0.0.1:8080/mlflow", None, None, "http://127.0.0.1:5000", False),
    ],
)
def test_mlflow_ui_serves_where_the_links_point_unless_told_otherwise(
    linked, host, port, served, links_here
):
    address = mlflow_ui_address(linked, host, port)
    assert address.url == served
    if links_here:
        assert address.mismatch is None
    else:
        assert f"links MLflow pages to {linked} (PLUMBLINE_MLFLOW_UI_URL)" in address.mismatch
        assert f"set PLUMBLINE_MLFLOW_UI_URL={served} " in address.mismatch
        # Leaving the flags out helps only where the links name a local address.
        flags = host is not None or port is not None
        assert ("leave out --host and --port" in address.mismatch) == flags
