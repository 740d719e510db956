"""A real MLflow for the registry tests: a sqlite store per test (a copy of one made per
module), and a tracking server started once per test process."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from mlflow import MlflowClient

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


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory) -> Path:
    """A new MLflow sqlite store, its schema created by MLflow's migrations (seconds) once for
    this module; each test gets a copy of it, and never writes here."""
    path = tmp_path_factory.mktemp("mlflow") / "mlflow.db"
    uri = f"sqlite:///{path}"
    MlflowClient(tracking_uri=uri, registry_uri=uri).search_experiments()
    return path


@pytest.fixture
def client(tmp_path, empty_store):
    """A real MLflow (sqlite in tmp_path), new and empty: a copy of empty_store."""
    path = tmp_path / "mlflow.db"
    with closing(sqlite3.connect(empty_store)) as source, closing(sqlite3.connect(path)) as copy:
        source.backup(copy)
    uri = f"sqlite:///{path}"
    # Both URIs explicit: MLflow's default registry URI is process-wide state.
    return MlflowClient(tracking_uri=uri, registry_uri=uri)
