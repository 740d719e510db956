"""The GPU benchmark: a real 2-process gloo run of the small config on CPU, its configs and
reporting, and the device check script's failures on a machine without a GPU."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from models.config import ConfigError
from models.data import NUMERIC
from models.ft_transformer import (
    FTTransformer,
    estimate_training_memory_bytes,
    training_flops_per_sample,
)
from pipelines.cli.gpu import gpu_command
from pipelines.cluster.gpu_bench import (
    CARDINALITIES,
    CONFIGS,
    N_FEATURES,
    bus_bandwidth,
    format_summary,
    run_gpu_bench,
    torchrun_command,
)
from sql.paths import REPOSITORY_ROOT

DEVICE_CHECK = REPOSITORY_ROOT / "benchmarks" / "device_check.sh"


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """The small config, two gloo processes under torchrun, once for this module."""
    out = tmp_path_factory.mktemp("gpu-bench") / "nested" / "gpu.json"
    return run_gpu_bench("small", 2, out, force_cpu=True, timeout_seconds=180), out


@pytest.mark.slow
def test_small_config_runs_on_two_gloo_processes(cpu_run):
    results, out = cpu_run
    assert json.loads(out.read_text()) == results
    assert (results["config"], results["device"], results["device_name"]) == ("small", "cpu", "cpu")
    assert (results["world_size"], results["backend"]) == (2, "gloo")
    assert results["threads_per_process"] >= 1
    assert "torch" in results["environment"]

    bench, training = CONFIGS["small"], results["training"]
    assert results["model"] == bench.model.to_dict()
    assert training["precision"] == "float32"
    assert training["global_batch_size"] == 2 * bench.batch_size
    assert training["timed_steps"] == bench.timed_steps
    assert training["tokens_per_sample"] == N_FEATURES + 1
    assert training["flops_per_sample"] == training_flops_per_sample(bench.model, N_FEATURES)
    assert training["samples_per_second"] > 0
    assert training["samples_per_second_per_device"] == pytest.approx(
        training["samples_per_second"] / 2
    )
    assert training["achieved_tflops"] == pytest.approx(
        training["samples_per_second"] * training["flops_per_sample"] / 1e12
    )
    # No peak is known for a CPU: MFU is reported as missing, not as 0.
    assert training["mfu"] is None and training["peak_tflops_per_device"] is None
    assert training["peak_memory_gib"] > 0 and training["estimated_memory_gib"] > 0
    assert training["final_loss"] > 0

    sweep = results["all_reduce"]
    assert "skipped" not in sweep
    assert [row["bytes"] for row in sweep["sizes"]] == list(bench.all_reduce_bytes)
    for row in sweep["sizes"]:
        assert row["time_us"] > 0 and row["algbw_gbps"] > 0 and row["busbw_gbps"] > 0
        # Two ranks: 2(n-1)/n = 1.
        assert row["busbw_gbps"] == pytest.approx(row["algbw_gbps"])


@pytest.mark.slow
def test_summary_of_a_cpu_run(cpu_run):
    results, _ = cpu_run
    summary = format_summary(results)
    assert "config 'small'" in summary
    assert "2 x cpu (gloo, float32)" in summary
    assert "MFU n/a" in summary
    for row in results["all_reduce"]["sizes"]:
        assert row["size"] in summary


@pytest.mark.slow
def test_summary_of_a_gpu_result(cpu_run):
    """What a GPU run's summary says, from the CPU run's result with GPU values put in."""
    results, _ = cpu_run
    gpu = json.loads(json.dumps(results))
    gpu |= {"device": "cuda", "device_name": "NVIDIA H100 80GB HBM3", "backend": "nccl"}
    gpu["environment"] |= {"cuda": "12.8", "nccl": "2.27.3"}
    gpu["training"] |= {"mfu": 0.4215, "peak_tflops_per_device": 989.0}
    gpu["training"]["precision"] = "bfloat16 autocast"
    summary = format_summary(gpu)
    assert "2 x NVIDIA H100 80GB HBM3 (nccl, bfloat16 autocast)" in summary
    assert "CUDA 12.8, NCCL 2.27.3" in summary
    assert "MFU 42.1% of 989 TFLOP/s per device" in summary


@pytest.mark.slow
def test_summary_of_a_single_process_run_says_why_there_is_no_sweep(cpu_run):
    results, _ = cpu_run
    single = json.loads(json.dumps(results))
    single["world_size"] = 1
    single["all_reduce"] = {"skipped": "one process: an all_reduce moves no data"}
    assert "all_reduce : skipped, one process" in format_summary(single)


@pytest.mark.parametrize(
    ("world_size", "bus"),
    [(1, 0.0), (2, 100.0), (4, 150.0), (8, 175.0)],
)
def test_bus_bandwidth_is_nccl_tests_all_reduce_factor(world_size, bus):
    assert bus_bandwidth(100.0, world_size) == pytest.approx(bus)


def test_large_config_is_big_enough_for_mfu_and_fits_an_80_gb_gpu():
    bench = CONFIGS["large"]
    assert bench.requires_gpu
    assert bench.model.d_model >= 512 and bench.model.n_layers >= 4
    assert bench.batch_size >= 4096
    assert bench.all_reduce_bytes[0] == 2**20 and bench.all_reduce_bytes[-1] == 2**30
    # Parameters only, no storage: the meta device.
    with torch.device("meta"):
        model = FTTransformer(CARDINALITIES, len(NUMERIC), bench.model)
    estimate = estimate_training_memory_bytes(
        model, bench.batch_size, autocast_bytes=2, distributed=True
    )
    assert estimate < 0.5 * 80e9  # room for what the estimate leaves out
    assert model.training_flops_per_sample() > 1e9


def test_torchrun_command_runs_the_worker_module(tmp_path):
    command = torchrun_command("large", 8, tmp_path / "gpu.json")
    assert command[1:5] == ["-m", "torch.distributed.run", "--nnodes=1", "--nproc-per-node=8"]
    assert f"--rdzv-endpoint={tmp_path / '.gpu.json.rendezvous'}" in command
    assert "--local-addr=127.0.0.1" in command
    assert command[-7:] == [
        "-m",
        "pipelines.cluster.gpu_bench",
        "--worker",
        "--config",
        "large",
        "--out",
        str(tmp_path / "gpu.json"),
    ]


@pytest.mark.parametrize(
    ("config", "nproc", "message"),
    [
        ("medium", None, "--config must be one of"),
        ("large", None, "--config must be 'small' on a machine without CUDA GPUs"),
        ("small", 0, "--nproc must be an integer >= 1"),
    ],
)
def test_bad_requests_fail_before_anything_runs(tmp_path, config, nproc, message):
    out = tmp_path / "gpu.json"
    with pytest.raises(ConfigError, match=message):
        run_gpu_bench(config, nproc, out, force_cpu=True)
    assert not out.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--config", "large", "--cpu"], "--config must be 'small'"),
        (["--config", "medium"], "'medium' is not one of"),
        (["--nproc", "0"], "0 is not in the range x>=1"),
    ],
)
def test_command_reports_bad_input_as_a_usage_error(tmp_path, arguments, message):
    result = CliRunner().invoke(gpu_command, [*arguments, "--out", str(tmp_path / "gpu.json")])
    assert result.exit_code == 2
    assert message in result.output


def test_device_check_script_parses():
    subprocess.run(["bash", "-n", str(DEVICE_CHECK)], check=True)


def _device_check(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEVICE_CHECK)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_device_check_needs_out():
    environment = {key: value for key, value in os.environ.items() if key != "OUT"}
    result = _device_check(environment)
    assert result.returncode == 1
    assert "set OUT" in result.stderr


def test_device_check_fails_clearly_without_nvidia_smi(tmp_path):
    path = "/usr/bin:/bin"
    if shutil.which("nvidia-smi", path=path):
        pytest.skip("nvidia-smi is installed here: this machine may have a GPU")
    result = _device_check({**os.environ, "OUT": str(tmp_path), "PATH": path})
    assert result.returncode == 1
    assert "nvidia-smi not found" in result.stderr


def test_device_check_fails_clearly_when_no_gpu_answers(tmp_path):
    # A stand-in for nvidia-smi on a machine whose driver finds no GPU.
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "nvidia-smi").write_text("#!/bin/sh\necho 'No devices were found'\nexit 6\n")
    (shim / "nvidia-smi").chmod(0o755)
    out = tmp_path / "out"
    result = _device_check({**os.environ, "OUT": str(out), "PATH": f"{shim}:/usr/bin:/bin"})
    assert result.returncode == 1
    assert "nvidia-smi failed, no usable GPU or driver: No devices were found" in result.stderr
    assert not (out / "gpu-large.json").exists()


def test_the_command_lists_the_benchmarks_configurations():
    from pipelines.cli import gpu
    from pipelines.cluster import gpu_bench

    assert set(gpu.CONFIG_NAMES) == set(gpu_bench.CONFIGS)
    assert gpu.DEFAULT_OUT == gpu_bench.DEFAULT_OUT
