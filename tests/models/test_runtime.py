from __future__ import annotations

import os
import random

import numpy as np
import pytest
import torch

from models.config import ConfigError
from models.runtime import (
    Runtime,
    available_cpus,
    configure_threads,
    init_distributed,
    seed_everything,
    select_runtime,
)


@pytest.fixture
def restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _cpu_runtime(world_size: int = 1) -> Runtime:
    return Runtime(torch.device("cpu"), "gloo", 0, 0, world_size, None)


def test_a_lone_process_without_torchrun_variables(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    runtime = select_runtime({})
    assert runtime == _cpu_runtime()
    assert runtime.is_main and not runtime.distributed


def test_torchrun_variables_on_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    runtime = select_runtime({"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4"})
    assert (runtime.rank, runtime.local_rank, runtime.world_size) == (3, 1, 4)
    assert runtime.backend == "gloo" and runtime.autocast_dtype is None
    assert not runtime.is_main and runtime.distributed


def test_gpu_branch_pins_the_local_rank_with_nccl_and_bf16(monkeypatch):
    # No GPU here: check what select_runtime would choose on an 8-GPU node.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    runtime = select_runtime({"RANK": "9", "LOCAL_RANK": "1", "WORLD_SIZE": "16"})
    assert runtime.device == torch.device("cuda", 1)
    assert runtime.backend == "nccl"
    assert runtime.autocast_dtype == torch.bfloat16


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        ({"WORLD_SIZE": "two"}, "WORLD_SIZE"),
        ({"WORLD_SIZE": "0"}, "WORLD_SIZE"),
        ({"RANK": "-1"}, "RANK"),
        ({"RANK": "2", "WORLD_SIZE": "2"}, "RANK"),
    ],
)
def test_bad_launcher_variables_are_named(monkeypatch, environ, variable):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match=f"^environment variable {variable} must be"):
        select_runtime(environ)


def test_local_rank_beyond_the_visible_gpus_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(ConfigError, match="LOCAL_RANK must be below the 2 visible GPU"):
        select_runtime({"LOCAL_RANK": "2", "WORLD_SIZE": "4", "RANK": "2"})


@pytest.mark.usefixtures("restore_threads")
def test_cpu_ranks_split_the_cores():
    assert configure_threads(_cpu_runtime(world_size=64), None) == 1
    assert configure_threads(_cpu_runtime(), 1) == 1


@pytest.mark.usefixtures("restore_threads")
@pytest.mark.parametrize(("allowed", "world_size", "threads"), [(4, 1, 4), (4, 2, 2), (3, 2, 1)])
def test_threads_split_the_cpus_this_process_may_use(monkeypatch, allowed, world_size, threads):
    # A container's cpuset or a taskset, not the host's count: os.cpu_count() would say 64.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(allowed)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert available_cpus() == allowed
    assert configure_threads(_cpu_runtime(world_size=world_size), None) == threads


def test_a_lone_process_needs_no_process_group():
    init_distributed(_cpu_runtime())
    assert not torch.distributed.is_initialized()


def test_seed_everything_seeds_all_generators():
    draws = []
    for _ in range(2):
        seed_everything(11)
        draws.append((torch.rand(2).tolist(), np.random.rand(), random.random()))
    assert draws[0] == draws[1]
