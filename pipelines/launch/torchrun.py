"""Starting training processes on this machine: loopback-only ``torchrun`` commands and the
environment they need, the number of processes, and the traceback of the worker that failed.

The job itself (:class:`models.job.TrainingJob`) is written by the asset; the Dagster Pipes
client that runs these commands is ``pipelines.pipes.local``.
"""

from __future__ import annotations

import glob
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from models.job import TRAINING_MODULE, TrainingJob

LOOPBACK_ADDRESS = "127.0.0.1"
LOOPBACK_INTERFACE = "lo"
RENDEZVOUS_FILE = "rendezvous"


# Device files a GPU torch can use: NVIDIA's driver, and AMD's (ROCm builds of torch report
# AMD GPUs through torch.cuda). Without any, torch.cuda.is_available() is False.
GPU_DEVICE_FILES = ("/dev/nvidia[0-9]*", "/dev/kfd")
CPU_PROCESSES = 2


def default_nproc(device_files: Sequence[str] = GPU_DEVICE_FILES) -> int:
    """One process per GPU; two on a CPU-only machine (gloo). Where no GPU device file
    exists the answer is known without importing torch (seconds: a rerun asks only to find
    the training it reuses)."""
    if not any(glob.glob(pattern) for pattern in device_files):
        return CPU_PROCESSES
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else CPU_PROCESSES


def loopback_torchrun(
    module: str,
    args: list[str],
    nproc: int,
    rendezvous_file: Path,
    max_restarts: int | None = None,
) -> list[str]:
    """``torchrun`` on this node, nothing listening beyond loopback: ``nproc`` processes of
    ``python -m module args``. Run it with :func:`local_training_env` in its environment.

    ``--standalone`` is c10d rendezvous on a TCPStore, and a TCPStore server binds every
    interface whatever host it is given (only a ``master_listen_fd`` changes that, and
    torchrun passes none). So the agents meet in a FileStore at ``rendezvous_file`` instead
    (c10d's ``store_type=file``,
    https://docs.pytorch.org/docs/stable/elastic/rendezvous.html#torch.distributed.elastic.rendezvous.c10d_rendezvous_backend.create_backend),
    and ``--local-addr`` makes 127.0.0.1 the ``MASTER_ADDR`` the workers get; the workers'
    own store is then bound to loopback by ``models.runtime``. A fresh ``--rdzv-id`` per
    command keeps a file left by a killed agent from passing for this run's rendezvous.
    """
    restarts = [] if max_restarts is None else [f"--max-restarts={max_restarts}"]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nnodes=1",
        f"--nproc-per-node={nproc}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint={rendezvous_file}",
        "--rdzv-conf=store_type=file",
        f"--rdzv-id={uuid.uuid4()}",
        f"--local-addr={LOOPBACK_ADDRESS}",
        *restarts,
        "-m",
        module,
        *args,
    ]


def local_training_env() -> dict[str, str]:
    """Environment for :func:`loopback_torchrun`'s processes, on top of the caller's own.

    - ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``: the agent does not start a TCPStore server
      for its workers (one more socket on every interface); the workers build their own
      store at the ``MASTER_ADDR``/``MASTER_PORT`` it hands them, a fresh one per restart
      (https://github.com/pytorch/pytorch/issues/135712).
    - ``GLOO_SOCKET_IFNAME`` / ``NCCL_SOCKET_IFNAME``: the process group's own listeners on
      loopback, not on the interface the host name resolves to
      (https://docs.pytorch.org/docs/stable/distributed.html#choosing-the-network-interface-to-use);
      ``=lo`` is NCCL's exact match, a bare ``lo`` a prefix
      (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-socket-ifname).
      Ranks on one node need no network between them (NCCL moves data over NVLink, PCIe or
      shared memory there); only NCCL's own bootstrap sockets move to loopback.
    """
    return {
        "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1",
        "GLOO_SOCKET_IFNAME": LOOPBACK_INTERFACE,
        "NCCL_SOCKET_IFNAME": f"={LOOPBACK_INTERFACE}",
    }


def torchrun_command(job_path: Path, nproc: int, max_restarts: int) -> list[str]:
    """Loopback-only ``torchrun`` for one node; the job file is the only argument, and the
    rendezvous file lies beside it."""
    return loopback_torchrun(
        TRAINING_MODULE,
        ["--job", str(job_path)],
        nproc,
        job_path.with_name(RENDEZVOUS_FILE),
        max_restarts,
    )


def worker_failure(job: TrainingJob) -> str | None:
    """The traceback of the first worker that failed (each writes ``errors/rank<N>.txt``)."""
    if not job.errors_dir.is_dir():
        return None
    reports = sorted(job.errors_dir.glob("rank*.txt"), key=lambda p: p.stat().st_mtime)
    if not reports:
        return None
    first = reports[0]
    return f"training worker {first.stem} failed:\n{first.read_text()}"
