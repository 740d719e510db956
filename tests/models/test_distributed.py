"""A real 2-process data-parallel run: gloo over localhost, as torchrun would set it up."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

WORKER = Path(__file__).with_name("ddp_worker.py")
REPOSITORY = Path(__file__).resolve().parents[2]
WORLD_SIZE = 2


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_two_gloo_ranks_train_one_model(make_delay_table, tmp_path):
    data = tmp_path / "training_set"
    data.mkdir()
    pq.write_table(make_delay_table(2000), data / "part-0.parquet")
    port = _free_port()
    processes = []
    for rank in range(WORLD_SIZE):
        environment = {
            **os.environ,
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "WORLD_SIZE": str(WORLD_SIZE),
            # CPU ranks even on a GPU machine: the test is about gloo and the sharding.
            "CUDA_VISIBLE_DEVICES": "",
            "PYTHONPATH": str(REPOSITORY),
        }
        # Each rank gets its own checkpoint folder so that a write by rank 1 would show.
        command = [
            sys.executable,
            str(WORKER),
            str(data),
            str(tmp_path / f"checkpoints-rank{rank}"),
            str(tmp_path / f"result-rank{rank}.json"),
        ]
        processes.append(
            subprocess.Popen(
                command, env=environment, cwd=REPOSITORY, stderr=subprocess.PIPE, text=True
            )
        )
    errors = []
    for rank, process in enumerate(processes):
        try:
            _, stderr = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            for other in processes:
                other.kill()
            raise
        if process.returncode != 0:
            errors.append(f"rank {rank} exited {process.returncode}:\n{stderr}")
    assert not errors, "\n".join(errors)

    results = [json.loads((tmp_path / f"result-rank{r}.json").read_text()) for r in range(2)]
    assert [result["backend"] for result in results] == ["gloo", "gloo"]
    # Each rank ran half of the (padded) training split per epoch.
    train_rows, batch_size = results[0]["train_rows"], 64
    assert results[0]["steps_per_epoch"] == math.ceil(math.ceil(train_rows / 2) / batch_size)
    # Gradients were all-reduced every step: both ranks end with the same weights and hence
    # the same validation metrics, and the loss is averaged over ranks.
    assert results[0]["weights_sha256"] == results[1]["weights_sha256"]
    for first, second in zip(results[0]["history"], results[1]["history"], strict=True):
        for key in ("epoch", "train_loss", "val_auc", "val_log_loss", "val_accuracy"):
            assert first[key] == second[key]
    assert results[0]["history"][-1]["val_auc"] > 0.9
    # Rank 0 alone writes checkpoints.
    assert sorted(p.name for p in (tmp_path / "checkpoints-rank0").iterdir()) == [
        "epoch-0000.pt",
        "epoch-0001.pt",
    ]
    assert not (tmp_path / "checkpoints-rank1").exists()
