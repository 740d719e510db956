"""GPU benchmark: FT-Transformer training throughput and MFU under DDP, and all-reduce bus
bandwidth, one process per GPU (two gloo processes on a CPU machine).

``run_gpu_bench`` starts ``torchrun --nproc-per-node=N`` (loopback only) on this module's
worker; each rank trains :class:`models.ft_transformer.FTTransformer` on synthetic batches
of the delay model's feature shape (bf16 autocast and NCCL on CUDA, float32 and gloo on
CPU), then times ``all_reduce`` over a sweep of message sizes. Rank 0 writes the results as
JSON and prints a summary.

Run: ``python -m pipelines.cluster.gpu_bench [--config small|large] [--nproc N] [--out FILE]``
(or ``plumbline bench gpu``). Results: benchmarks/results/gpu.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from models.config import ConfigError
from models.data import CATEGORICAL, NUMERIC
from models.environment import fingerprint
from models.flops import DEVICE_PEAK_TFLOPS, device_kind, mfu
from models.ft_transformer import (
    FTTransformer,
    FTTransformerConfig,
    estimate_training_memory_bytes,
)
from models.runtime import (
    Runtime,
    configure_threads,
    init_distributed,
    seed_everything,
    select_runtime,
    shutdown_distributed,
)
from pipelines.cluster.deploy_files import GPU_BENCH_RESULTS, REPOSITORY
from pipelines.launch.torchrun import local_training_env, loopback_torchrun

DEFAULT_OUT = GPU_BENCH_RESULTS
WORKER_MODULE = "pipelines.cluster.gpu_bench"
# Processes on a machine without GPUs: enough for a real gloo all-reduce and DDP.
CPU_PROCESSES = 2

# Distinct values per categorical column in TPC-H (specification 4.2.2.13 and 4.2.3), plus
# the unknown row models.data reserves. Only the embedding tables' sizes depend on them.
_TPCH_VALUES = {
    "ship_mode": 7,
    "ship_instruct": 4,
    "order_priority": 5,
    "customer_segment": 5,
    "customer_region": 5,
    "supplier_region": 5,
}
CARDINALITIES: tuple[int, ...] = tuple(_TPCH_VALUES[name] + 1 for name in CATEGORICAL)
N_FEATURES = len(CATEGORICAL) + len(NUMERIC)

MiB = 2**20


class GpuBenchError(RuntimeError):
    """The benchmark run failed. The message says which part and carries the worker's output."""


@dataclass(frozen=True)
class BenchConfig:
    """One named benchmark size."""

    description: str
    model: FTTransformerConfig
    batch_size: int
    """Rows per optimizer step on each rank; the global batch is this times the ranks."""
    warmup_steps: int
    """Untimed steps first: allocations, kernel selection, NCCL communicator set-up."""
    timed_steps: int
    all_reduce_bytes: tuple[int, ...]
    """Message sizes of the all-reduce sweep, in bytes (float32 elements, so multiples of 4)."""
    all_reduce_warmup: int
    all_reduce_iterations: int
    requires_gpu: bool

    def __post_init__(self) -> None:
        for name in (
            "batch_size",
            "warmup_steps",
            "timed_steps",
            "all_reduce_warmup",
            "all_reduce_iterations",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"BenchConfig.{name}", "an integer >= 1", value)
        if not self.all_reduce_bytes or any(size < 4 or size % 4 for size in self.all_reduce_bytes):
            raise ConfigError(
                "BenchConfig.all_reduce_bytes",
                "a non-empty tuple of positive multiples of 4",
                self.all_reduce_bytes,
            )


CONFIGS: dict[str, BenchConfig] = {
    # Big enough that the matmuls ([8192 * 14 tokens, 768] by [768, 3072] and the like) run
    # tensor cores at a meaningful fraction of peak: 56.7M parameters, 4.77 GFLOP per
    # sample (attention 0.3 % of it), 39 TFLOP per step and GPU. Memory per GPU under bf16
    # autocast with DDP, by estimate_training_memory_bytes: 26.1 GiB, so with the 10-30 %
    # it leaves out still well within an 80 GB H100. Not yet measured on a GPU.
    "large": BenchConfig(
        description="d_model 768, 8 blocks, 12 heads, ffn 3072; 8,192 rows per GPU",
        model=FTTransformerConfig(d_model=768, n_layers=8, n_heads=12, ffn_dim=3072),
        batch_size=8192,
        warmup_steps=5,
        timed_steps=20,
        all_reduce_bytes=tuple(MiB * 4**k for k in range(6)),  # 1 MiB .. 1 GiB
        all_reduce_warmup=5,
        all_reduce_iterations=20,
        requires_gpu=True,
    ),
    # Seconds on two CPU cores: for tests and a smoke run anywhere.
    "small": BenchConfig(
        description="d_model 32, 2 blocks, 4 heads, ffn 64; 256 rows per process",
        model=FTTransformerConfig(d_model=32, n_layers=2, n_heads=4, ffn_dim=64),
        batch_size=256,
        warmup_steps=3,
        timed_steps=20,
        all_reduce_bytes=tuple(64 * 2**10 * 4**k for k in range(4)),  # 64 KiB .. 4 MiB
        all_reduce_warmup=3,
        all_reduce_iterations=20,
        requires_gpu=False,
    ),
}


def bus_bandwidth(algorithm_bandwidth: float, world_size: int) -> float:
    """nccl-tests' bus bandwidth of an all-reduce: ``algbw * 2(n-1)/n``, the rate each link
    carries in a ring all-reduce, comparable with the hardware's link speed whatever n is
    (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)."""
    if world_size < 1:
        raise ValueError(f"bus_bandwidth: world_size must be >= 1; got {world_size}")
    return algorithm_bandwidth * 2 * (world_size - 1) / world_size


def format_bytes(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", MiB), ("KiB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


# ---------------------------------------------------------------------------------------
# The worker: one rank under torchrun.


def _synchronize(runtime: Runtime) -> None:
    """Wait for this rank's queued kernels, then for every rank: timers start and stop with
    no work in flight anywhere."""
    if runtime.device.type == "cuda":
        torch.cuda.synchronize(runtime.device)
    if runtime.distributed:
        dist.barrier()


def _slowest(seconds: float, runtime: Runtime) -> float:
    """The largest of every rank's ``seconds``: a collective step ends with its slowest rank."""
    if not runtime.distributed:
        return seconds
    value = torch.tensor([seconds], dtype=torch.float64, device=runtime.device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return value.item()


def _peak_memory_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device)
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 2**10


def _synthetic_batch(batch_size: int, runtime: Runtime) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch in the layout of ``Preprocessing.encode``: valid category codes, then
    standardized numerics, and 0/1 labels. Different on every rank, and reused every step:
    the input pipeline is not what this measures."""
    generator = torch.Generator().manual_seed(runtime.rank)
    codes = [torch.randint(0, c, (batch_size, 1), generator=generator) for c in CARDINALITIES]
    numerics = torch.randn(batch_size, len(NUMERIC), generator=generator)
    features = torch.cat([*(code.float() for code in codes), numerics], dim=1)
    labels = torch.randint(0, 2, (batch_size,), generator=generator).float()
    return features.to(runtime.device), labels.to(runtime.device)


def measure_training(bench: BenchConfig, runtime: Runtime) -> dict[str, Any]:
    device = runtime.device
    model = FTTransformer(CARDINALITIES, len(NUMERIC), bench.model).to(device)
    network: nn.Module = model
    if runtime.distributed:
        network = DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None
        )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=device.type == "cuda")
    loss_function = nn.BCEWithLogitsLoss()
    features, labels = _synthetic_batch(bench.batch_size, runtime)

    def autocast() -> contextlib.AbstractContextManager[Any]:
        if runtime.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device.type, dtype=runtime.autocast_dtype)

    def step() -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        with autocast():
            logits = network(features)
        loss = loss_function(logits.float(), labels)
        loss.backward()
        optimizer.step()
        # Left on the device: reading it would sync every step.
        return loss.detach()

    for _ in range(bench.warmup_steps):
        step()
    _synchronize(runtime)
    started = time.perf_counter()
    for _ in range(bench.timed_steps):
        loss = step()
    _synchronize(runtime)
    seconds = _slowest(time.perf_counter() - started, runtime)
    final_loss = loss.item()
    if not math.isfinite(final_loss):
        raise GpuBenchError(f"training diverged: the loss of the last timed step is {final_loss}")

    flops = model.training_flops_per_sample()
    samples = bench.batch_size * bench.timed_steps * runtime.world_size
    samples_per_second = samples / seconds
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    kind = device_kind(device_name) if device_name else None
    if runtime.autocast_dtype is None:
        precision, autocast_bytes = "float32", 4
    else:
        precision = f"{str(runtime.autocast_dtype).removeprefix('torch.')} autocast"
        autocast_bytes = runtime.autocast_dtype.itemsize
    estimate = estimate_training_memory_bytes(
        model, bench.batch_size, autocast_bytes=autocast_bytes, distributed=runtime.distributed
    )
    return {
        "parameters": sum(parameter.numel() for parameter in model.parameters()),
        "tokens_per_sample": model.n_features + 1,
        "precision": precision,
        "batch_size_per_device": bench.batch_size,
        "global_batch_size": bench.batch_size * runtime.world_size,
        "warmup_steps": bench.warmup_steps,
        "timed_steps": bench.timed_steps,
        "seconds": seconds,
        "step_time_ms": 1000.0 * seconds / bench.timed_steps,
        "samples_per_second": samples_per_second,
        "samples_per_second_per_device": samples_per_second / runtime.world_size,
        "flops_per_sample": flops,
        "achieved_tflops": samples_per_second * flops / 1e12,
        "achieved_tflops_per_device": samples_per_second * flops / 1e12 / runtime.world_size,
        "peak_tflops_per_device": DEVICE_PEAK_TFLOPS[kind] if kind else None,
        # None on CPU and on GPUs without a known peak: there is nothing to divide by.
        "mfu": mfu(samples_per_second, flops, device_name, runtime.world_size),
        "peak_memory_gib": _peak_memory_bytes(device) / 2**30,
        "peak_memory_kind": "CUDA allocated" if device.type == "cuda" else "process RSS",
        "estimated_memory_gib": estimate / 2**30,
        "final_loss": final_loss,
    }


def measure_all_reduce(bench: BenchConfig, runtime: Runtime) -> dict[str, Any]:
    """Time a float32 sum ``all_reduce`` per message size, as nccl-tests' ``all_reduce_perf``
    does: warm-up calls, then the mean of timed calls; the slowest rank's time counts."""
    result: dict[str, Any] = {
        "dtype": "float32",
        "op": "sum",
        "world_size": runtime.world_size,
        "warmup": bench.all_reduce_warmup,
        "iterations": bench.all_reduce_iterations,
        "sizes": [],
    }
    if not runtime.distributed:
        result["skipped"] = "one process: an all_reduce moves no data between devices"
        return result
    for size in bench.all_reduce_bytes:
        # Zeros stay zeros under repeated sums: no overflow to inf however many iterations.
        tensor = torch.zeros(size // 4, dtype=torch.float32, device=runtime.device)
        for _ in range(bench.all_reduce_warmup):
            dist.all_reduce(tensor)
        _synchronize(runtime)
        started = time.perf_counter()
        for _ in range(bench.all_reduce_iterations):
            dist.all_reduce(tensor)
        if runtime.device.type == "cuda":
            torch.cuda.synchronize(runtime.device)
        seconds = _slowest((time.perf_counter() - started) / bench.all_reduce_iterations, runtime)
        algorithm_bandwidth = size / seconds / 1e9
        result["sizes"].append(
            {
                "bytes": size,
                "size": format_bytes(size),
                "time_us": seconds * 1e6,
                "algbw_gbps": algorithm_bandwidth,
                "busbw_gbps": bus_bandwidth(algorithm_bandwidth, runtime.world_size),
            }
        )
        del tensor
    return result


def worker(config_name: str, out: Path) -> None:
    """One rank under torchrun; rank 0 writes the results to ``out`` and prints a summary."""
    bench = CONFIGS[config_name]
    runtime = select_runtime()
    if bench.requires_gpu and runtime.device.type != "cuda":
        raise ConfigError("--config", "'small' on a machine without CUDA GPUs", config_name)
    init_distributed(runtime)
    try:
        threads = configure_threads(runtime, None)
        seed_everything(0)
        training = measure_training(bench, runtime)
        if runtime.device.type == "cuda":
            # The sweep's 1 GiB buffers should not compete with the training's cached blocks.
            torch.cuda.empty_cache()
        all_reduce = measure_all_reduce(bench, runtime)
    finally:
        shutdown_distributed()
    if not runtime.is_main:
        return
    results = {
        "benchmark": "gpu",
        "config": config_name,
        "description": bench.description,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "device": runtime.device.type,
        "device_name": torch.cuda.get_device_name(runtime.device)
        if runtime.device.type == "cuda"
        else "cpu",
        "world_size": runtime.world_size,
        "backend": runtime.backend,
        "threads_per_process": threads,
        "cpus_available": len(os.sched_getaffinity(0)),
        "environment": fingerprint(),
        "model": bench.model.to_dict(),
        "training": training,
        "all_reduce": all_reduce,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(format_summary(results), flush=True)


# ---------------------------------------------------------------------------------------
# The launcher.


def visible_gpus() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def default_config(*, force_cpu: bool = False) -> str:
    """``large`` where CUDA GPUs are visible (and not ``force_cpu``), else ``small``."""
    return "large" if not force_cpu and visible_gpus() > 0 else "small"


def torchrun_command(config: str, nproc: int, out: Path) -> list[str]:
    """``torchrun`` on one node, one process per GPU, running the worker; like training,
    nothing listens beyond 127.0.0.1 (the agents meet in a file beside ``out``)."""
    return loopback_torchrun(
        WORKER_MODULE,
        ["--worker", "--config", config, "--out", str(out)],
        nproc,
        rendezvous_file=out.with_name(f".{out.name}.rendezvous"),
    )


def run_gpu_bench(
    config: str,
    nproc: int | None,
    out: Path,
    *,
    force_cpu: bool = False,
    timeout_seconds: float | None = None,
) -> dict[str, Any]:
    """Run the benchmark ``config`` under torchrun and return rank 0's results (also written
    to ``out``). ``nproc`` defaults to one process per visible GPU, or two on CPU;
    ``force_cpu`` hides the GPUs (gloo, float32) even where there are some.

    Raises :class:`~models.config.ConfigError` for a request this machine cannot run
    (before anything starts) and :class:`GpuBenchError` when the run fails.
    """
    if config not in CONFIGS:
        raise ConfigError("--config", f"one of {sorted(CONFIGS)}", config)
    gpus = 0 if force_cpu else visible_gpus()
    bench = CONFIGS[config]
    if bench.requires_gpu and gpus == 0:
        raise ConfigError(
            "--config",
            "'small' on a machine without CUDA GPUs (or with --cpu); "
            f"'{config}' would take hours on CPU",
            config,
        )
    if nproc is None:
        nproc = gpus or CPU_PROCESSES
    if isinstance(nproc, bool) or not isinstance(nproc, int) or nproc < 1:
        raise ConfigError("--nproc", "an integer >= 1", nproc)
    if gpus and nproc > gpus:
        raise ConfigError("--nproc", f"at most the {gpus} visible GPU(s)", nproc)

    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)  # the rendezvous file lies beside it
    # A result left by an earlier run must never pass for this one's.
    out.unlink(missing_ok=True)
    environment = dict(os.environ)
    # The worker is imported by module name from the checkout, wherever the caller runs.
    environment["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(REPOSITORY), environment.get("PYTHONPATH")) if part
    )
    if force_cpu:
        environment["CUDA_VISIBLE_DEVICES"] = ""
    environment |= local_training_env()
    command = torchrun_command(config, nproc, out)
    try:
        process = subprocess.run(
            command,
            cwd=REPOSITORY,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_seconds,
        )
    except subprocess.TimeoutExpired as error:
        raise GpuBenchError(
            f"GPU benchmark '{config}' with {nproc} process(es) ran past {timeout_seconds} s"
        ) from error
    if process.returncode != 0:
        raise GpuBenchError(
            f"GPU benchmark '{config}' with {nproc} process(es) failed (exit "
            f"{process.returncode}): {' '.join(command)}\n{process.stderr[-4000:]}"
        )
    if not out.is_file():
        raise GpuBenchError(
            f"GPU benchmark '{config}' exited 0 but wrote no results to {out}\n"
            f"{process.stdout[-2000:]}"
        )
    return json.loads(out.read_text())


# ---------------------------------------------------------------------------------------
# Reporting.


def _number(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _flops(value: float) -> str:
    """``value`` FLOPs with an SI prefix: "4.77 G", "1.53 M"."""
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}"
    return f"{value:.3g} "


def format_summary(results: dict[str, Any]) -> str:
    training, sweep = results["training"], results["all_reduce"]
    environment = results["environment"]
    world = results["world_size"]
    versions = f"torch {environment['torch']}"
    if "cuda" in environment:
        versions += f", CUDA {environment['cuda']}, NCCL {environment.get('nccl', '?')}"
    if training["mfu"] is None:
        utilization = f"MFU n/a (no known peak for {results['device_name']})"
    else:
        utilization = (
            f"MFU {training['mfu']:.1%} of {training['peak_tflops_per_device']:,.0f} "
            "TFLOP/s per device"
        )
    lines = [
        f"GPU benchmark, config '{results['config']}' ({results['date']}): FT-Transformer "
        f"{results['description']}, {training['parameters'] / 1e6:.2f}M parameters",
        f"  devices    : {world} x {results['device_name']} ({results['backend']}, "
        f"{training['precision']}), {results['threads_per_process']} thread(s) per process, "
        f"{versions}",
        f"  training   : {_number(training['samples_per_second'])} samples/s "
        f"({_number(training['samples_per_second_per_device'])} per device), "
        f"{training['step_time_ms']:.1f} ms/step over {training['timed_steps']} steps "
        f"of {training['global_batch_size']:,} rows",
        f"  compute    : {_flops(training['flops_per_sample'])}FLOP/sample, "
        f"{_flops(training['achieved_tflops'] * 1e12)}FLOP/s "
        f"({_flops(training['achieved_tflops_per_device'] * 1e12)}FLOP/s per device), "
        f"{utilization}",
        f"  memory     : peak {training['peak_memory_gib']:.2f} GiB "
        f"({training['peak_memory_kind']}), estimate {training['estimated_memory_gib']:.2f} GiB",
    ]
    if "skipped" in sweep:
        lines.append(f"  all_reduce : skipped, {sweep['skipped']}")
    else:
        lines.append(
            f"  all_reduce : {sweep['dtype']} {sweep['op']} over {world} ranks, "
            f"mean of {sweep['iterations']} calls"
        )
        lines.append(f"    {'size':>8} {'time us':>12} {'algbw GB/s':>12} {'busbw GB/s':>12}")
        lines += [
            f"    {row['size']:>8} {row['time_us']:>12,.1f} {row['algbw_gbps']:>12.3f} "
            f"{row['busbw_gbps']:>12.3f}"
            for row in sweep["sizes"]
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default=None)
    parser.add_argument("--nproc", type=int, default=None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cpu", action="store_true", help="gloo on CPU even where GPUs exist")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.config, args.out)
        return {}
    config = args.config or default_config(force_cpu=args.cpu)
    try:
        results = run_gpu_bench(config, args.nproc, args.out, force_cpu=args.cpu)
    except (ConfigError, GpuBenchError) as error:
        sys.exit(f"gpu_bench: error: {error}")
    print(format_summary(results))
    print(f"results written to {args.out}")
    return results


if __name__ == "__main__":
    main()
