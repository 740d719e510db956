"""A real MLflow tracking server for the registry tests, started once per test process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mlflow_server import ServerProcess, start_server, stop_server, wait_for_health


@pytest.fixture(scope="session")
def tracking_server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """An ``mlflow server`` starting, not yet waited for: a test module that requests it first
    can run its other tests while the server boots."""
    server = start_server(tmp_path_factory.mktemp("mlflow-server"))
    try:
        yield server
    finally:
        stop_server(server)


@pytest.fixture(scope="session")
def tracking_server(tracking_server_process: ServerProcess) -> str:
    """The http URI of a running ``mlflow server`` once it answers /health. Tests share it,
    so each uses its own model and experiment names."""
    return wait_for_health(tracking_server_process)
