"""Local training listens on loopback alone: a real 2-process gloo training, started with the
product's torchrun command and environment through Dagster Pipes, watched for listening
sockets (psutil) from the torchrun agent down to every worker, for as long as it runs."""

from __future__ import annotations

import ipaddress
import socket
import threading
from pathlib import Path

import dagster as dg
import mlflow
import psutil
import pyarrow.parquet as pq
import pytest
import torch

from models.job import TrainingJob
from models.runtime import Runtime, _rendezvous
from pipelines.launch.torchrun import local_training_env, torchrun_command
from pipelines.pipes.messages import WholeLineMessageReader
from sql.paths import REPOSITORY_ROOT
from tests.models.conftest import delay_table

POLL_SECONDS = 0.02


class ListeningSockets:
    """Every (pid, address, port) a process whose command line names ``marker`` listened on,
    polled from a thread: the torchrun agent and its workers are children of this process."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.seen: set[tuple[int, str, int]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> ListeningSockets:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _poll(self) -> None:
        while not self._stop.is_set():
            for process in psutil.Process().children(recursive=True):
                try:
                    if self.marker not in " ".join(process.cmdline()):
                        continue
                    for connection in process.net_connections(kind="inet"):
                        if connection.status == psutil.CONN_LISTEN:
                            self.seen.add((process.pid, connection.laddr.ip, connection.laddr.port))
                except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                    continue  # a worker that ended between the listing and the look
            self._stop.wait(POLL_SECONDS)


def tiny_job(tmp_path: Path) -> TrainingJob:
    """A training job on 2,000 synthetic rows, its MLflow run on a sqlite file."""
    data = tmp_path / "training_set"
    data.mkdir()
    pq.write_table(delay_table(2000), data / "part-0.parquet")
    tracking_uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=tracking_uri)
    run = client.create_run(client.create_experiment("loopback"))
    return TrainingJob(
        data_path=str(data),
        data_digest="sha256:" + "0" * 64,
        output_dir=str(tmp_path / "training"),
        mlflow_uri=tracking_uri,
        mlflow_run_id=run.info.run_id,
        model_config={"embedding_dim": 4, "hidden": [16]},
        train_config={"epochs": 2, "batch_size": 256},
    )


@pytest.mark.slow
def test_local_training_listens_on_loopback_only(tmp_path):
    job = tiny_job(tmp_path)
    job_path = job.write()
    command = torchrun_command(job_path, nproc=2, max_restarts=0)
    # CPU ranks even on a GPU machine: two gloo processes whatever the GPU count.
    env = {**local_training_env(), "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    client = dg.PipesSubprocessClient(
        cwd=str(REPOSITORY_ROOT), env=env, message_reader=WholeLineMessageReader()
    )

    @dg.asset
    def trained(context) -> dg.MaterializeResult:
        return client.run(context=context, command=command).get_materialize_result()

    with ListeningSockets(str(job_path)) as sockets:
        result = dg.materialize([trained])

    assert result.success
    [event] = result.get_asset_materialization_events()
    reported = event.materialization.metadata
    assert reported["world_size"].value == 2 and reported["backend"].value == "gloo"
    # Not vacuous: the rank-0 store and gloo's listeners were seen.
    assert sockets.seen, "no listening socket seen in the training processes"
    exposed = sorted(
        (pid, address, port)
        for pid, address, port in sockets.seen
        if not ipaddress.ip_address(address).is_loopback
    )
    assert not exposed, f"listening beyond loopback (pid, address, port): {exposed}"


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_rank_0s_store_listens_on_the_loopback_master_address_alone():
    """The workers' store, in this process: a TCPStore server that is given only a host and
    a port (``env://``) listens on ``::``."""
    port = _free_loopback_port()
    runtime = Runtime(
        device=torch.device("cpu"),
        backend="gloo",
        rank=0,
        local_rank=0,
        world_size=1,
        autocast_dtype=None,
    )
    environ = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "1"}
    store = _rendezvous(runtime, environ)["store"]
    store.set("probe", "reachable")
    listening = {
        (connection.laddr.ip, connection.laddr.port)
        for connection in psutil.Process().net_connections(kind="inet")
        if connection.status == psutil.CONN_LISTEN
    }
    assert ("127.0.0.1", port) in listening
    assert store.get("probe") == b"reachable"
    assert not [address for address, bound in listening if bound == port and address != "127.0.0.1"]
