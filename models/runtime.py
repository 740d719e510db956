"""Where this process trains: device, process group, threads and seeds.

``select_runtime`` is the one place that reads the launcher's environment (``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE``, as ``torchrun`` sets them); everything else takes a
:class:`Runtime`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist

from models.config import ConfigError


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
    """Pin this process's GPU and join the process group (``env://`` rendezvous, as set up
    by ``torchrun``) when there is more than one process."""
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
    """``env://``, except under a torchrun agent's store: there the keys are prefixed by the
    restart attempt. torchrun keeps the agent's store across ``--max-restarts`` rounds, so a
    restarted group would otherwise read the dead group's addresses and fail to connect
    (gloo: "connectFullMesh failed ... Connection refused")."""
    env = os.environ if environ is None else environ
    if env.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return {"init_method": "env://"}
    store = dist.TCPStore(
        host_name=env["MASTER_ADDR"],
        port=int(env["MASTER_PORT"]),
        world_size=runtime.world_size,
        is_master=False,
        timeout=timedelta(minutes=10),
    )
    attempt = env.get("TORCHELASTIC_RESTART_COUNT", "0")
    return {"store": dist.PrefixStore(f"plumbline/attempt_{attempt}", store)}


def shutdown_distributed() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def _available_cpus() -> int:
    # The CPUs this process may run on (a container's cpuset), not the host's count.
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def configure_threads(runtime: Runtime, num_threads: int | None) -> int:
    """Set torch's intra-op threads and return the count in force.

    On CPU, ranks that share a machine split its cores: each of ``world_size`` processes
    with all cores would oversubscribe them and run slower than one process.
    """
    if num_threads is None and runtime.device.type == "cpu":
        num_threads = max(1, _available_cpus() // runtime.world_size)
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    return torch.get_num_threads()


def seed_everything(seed: int) -> None:
    """Seed torch (CPU and every GPU), numpy and Python's ``random``. Call it before building
    the model so that its initial weights, too, follow from the seed."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
