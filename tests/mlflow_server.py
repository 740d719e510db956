"""A real MLflow tracking server (``mlflow server``, REST on 127.0.0.1) for the tests that need
one rather than a sqlite file: the registry tests' session fixtures
(``tests/pipelines/registry/conftest.py``) and the whole-run secrets test."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.process_groups import start_group, stop_group

# Migrating a new sqlite store and starting one worker takes about 6 s of CPU: 10 s on an idle
# two-core machine, up to a minute on one busy with a parallel test run. More than this means
# the server will not come up.
STARTUP_SECONDS = 90.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class ServerProcess:
    process: subprocess.Popen
    uri: str
    log: Path


def start_server(root: Path) -> ServerProcess:
    """An ``mlflow server`` starting on a free local port, not yet waited for. Its store is a
    sqlite file and its artifacts are proxied (``mlflow-artifacts:/``) into a folder, both
    under ``root``."""
    port = free_port()
    log = root / "server.log"
    command = [
        str(Path(sys.executable).with_name("mlflow")),
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--backend-store-uri",
        f"sqlite:///{root / 'server.db'}",
        "--serve-artifacts",
        "--artifacts-destination",
        str(root / "artifacts"),
    ]
    # The job executor runs GenAI jobs (scorers, prompt optimization); the tests need none.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["MLFLOW_SERVER_ENABLE_JOB_EXECUTION"] = "false"
    with log.open("wb") as output:
        # A group of its own, so that stopping it reaches the uvicorn workers it forks, and
        # stopped however the test run ends (tests/process_groups.py).
        process = start_group(command, stdout=output, stderr=subprocess.STDOUT, env=env)
    return ServerProcess(process, f"http://127.0.0.1:{port}", log)


def wait_for_health(server: ServerProcess) -> str:
    """The server's URI once it answers ``/health``."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"mlflow server exited with {server.process.returncode} before answering; its "
                f"log ({server.log}):\n{server.log.read_text()[-4000:]}"
            )
        try:
            with urllib.request.urlopen(f"{server.uri}/health", timeout=1) as response:
                if response.status == 200:
                    return server.uri
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"mlflow server at {server.uri} did not answer /health within {STARTUP_SECONDS:.0f} s; "
        f"its log ({server.log}):\n{server.log.read_text()[-4000:]}"
    )


def stop_server(server: ServerProcess) -> None:
    stop_group(server.process, timeout=10)


@contextlib.contextmanager
def mlflow_server(root: Path) -> Iterator[str]:
    """A running server's URI for the duration of the block."""
    server = start_server(root)
    try:
        yield wait_for_health(server)
    finally:
        stop_server(server)
