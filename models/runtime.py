"""Where this process trains: device, process group, threads and seeds.

``select_runtime`` is the one place that reads the launcher's environment (``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE``, as ``torchrun`` sets them); everything else takes a
:class:`Runtime`.
"""

from __future__ import annotations

import ipaddress
import os
import random
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist

from models.config import ConfigError

# How long a rank waits at the store for the others to join the group.
STORE_TIMEOUT = timedelta(minutes=10)


@dataclass(frozen=True)
class Runtime:
    device: torch.device
    backend: str
    """Process-group backend: ``nccl`` between GPUs, ``gloo`` between CPU processes."""
    rank: int
    local_rank: int
    world_size: int
    autocast_dtype: torch.dtype | None
    """Mixed-precision dtype for forward passes, or None for full float32."""

    @property
    def is_main(self) -> bool:
        """Global rank 0, the one process that writes checkpoints and reports."""
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def _env_int(environ: Mapping[str, str], name: str, default: int, minimum: int) -> int:
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or value < minimum:
        raise ConfigError(f"environment variable {name}", f"an integer >= {minimum}", raw)
    return value


def select_runtime(environ: Mapping[str, str] | None = None) -> Runtime:
    """The runtime ``torchrun`` describes in ``environ`` (default ``os.environ``); a lone
    process when the variables are absent."""
    environ = os.environ if environ is None else environ
    world_size = _env_int(environ, "WORLD_SIZE", 1, 1)
    rank = _env_int(environ, "RANK", 0, 0)
    local_rank = _env_int(environ, "LOCAL_RANK", 0, 0)
    if rank >= world_size:
        raise ConfigError("environment variable RANK", f"below WORLD_SIZE={world_size}", rank)
    if torch.cuda.is_available():
        if local_rank >= torch.cuda.device_count():
            raise ConfigError(
                "environment variable LOCAL_RANK",
                f"below the {torch.cuda.device_count()} visible GPU(s)",
                local_rank,
            )
        return Runtime(
            device=torch.device("cuda", local_rank),
            backend="nccl",
            rank=rank,
            local_rank=local_rank,
            world_size=world_size,
            autocast_dtype=torch.bfloat16 if torch.cuda.is_bf16_supported() else None,
        )
    return Runtime(
        device=torch.device("cpu"),
        backend="gloo",
        rank=rank,
        local_rank=local_rank,
        world_size=world_size,
        autocast_dtype=None,
    )


def init_distributed(runtime: Runtime) -> None:
    """Pin this process's GPU and join the process group at the store ``torchrun``'s
    environment names (:func:`_rendezvous`) when there is more than one process."""
    if runtime.device.type == "cuda":
        # Before the process group: NCCL binds its communicator to the current device.
        torch.cuda.set_device(runtime.device)
    if runtime.distributed and not dist.is_initialized():
        dist.init_process_group(
            backend=runtime.backend,
            rank=runtime.rank,
            world_size=runtime.world_size,
            device_id=runtime.device if runtime.device.type == "cuda" else None,
            **_rendezvous(runtime),
        )


def _rendezvous(runtime: Runtime, environ: Mapping[str, str] | None = None) -> dict:
    """How the process group finds its store: the torchrun agent's, a loopback one, or
    ``env://``."""
    env = os.environ if environ is None else environ
    if env.get("TORCHELASTIC_USE_AGENT_STORE") == "True":
        return {"store": _agent_store(runtime, env)}
    host = env.get("MASTER_ADDR")
    if host is not None and _is_loopback(host):
        return {"store": _loopback_store(runtime, host, int(env["MASTER_PORT"]))}
    return {"init_method": "env://"}


def _agent_store(runtime: Runtime, env: Mapping[str, str]) -> dist.Store:
    """The torchrun agent's store, its keys prefixed by the restart attempt. torchrun keeps
    the agent's store across ``--max-restarts`` rounds, so a restarted group would otherwise
    read the dead group's addresses and fail to connect (gloo: "connectFullMesh failed ...
    Connection refused")."""
    store = dist.TCPStore(
        host_name=env["MASTER_ADDR"],
        port=int(env["MASTER_PORT"]),
        world_size=runtime.world_size,
        is_master=False,
        timeout=STORE_TIMEOUT,
    )
    attempt = env.get("TORCHELASTIC_RESTART_COUNT", "0")
    return dist.PrefixStore(f"plumbline/attempt_{attempt}", store)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: env:// resolves it
        return False


def _loopback_store(runtime: Runtime, host: str, port: int) -> dist.TCPStore:
    """The group's store, rank 0 its server, listening on ``host`` alone.

    A TCPStore server given only a port binds every interface (``::``), whatever its host
    name; a socket bound here and handed over as ``master_listen_fd`` is the one way to keep
    it on loopback (https://docs.pytorch.org/docs/stable/distributed.html#torch.distributed.TCPStore).
    ``env://`` would build the same store, bound everywhere.
    """
    listen_fd = None
    if runtime.is_main:
        server = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        try:
            server.bind((host, port))
            server.listen()
        except OSError:
            server.close()
            raise
        # The store owns the descriptor from here on, and closes it.
        listen_fd = server.detach()
    return dist.TCPStore(
        host_name=host,
        port=port,
        world_size=runtime.world_size,
        is_master=runtime.is_main,
        timeout=STORE_TIMEOUT,
        master_listen_fd=listen_fd,
    )


def shutdown_distributed() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask: a container's cpuset, a
    ``taskset``), not the host's count that ``os.cpu_count`` gives."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def configure_threads(runtime: Runtime, num_threads: int | None) -> int:
    """Set torch's intra-op threads and return the count in force.

    On CPU, ranks that share a machine split its cores: each of ``world_size`` processes
    with all cores would oversubscribe them and run slower than one process.
    """
    if num_threads is None and runtime.device.type == "cpu":
        num_threads = max(1, available_cpus() // runtime.world_size)
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    return torch.get_num_threads()


def seed_everything(seed: int) -> None:
    """Seed torch (CPU and every GPU), numpy and Python's ``random``. Call it before building
    the model so that its initial weights, too, follow from the seed."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
