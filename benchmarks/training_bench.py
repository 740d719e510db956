"""Training throughput of three configurations side by side: 1 process x 1 thread, 1 process
x all CPUs, and one DDP process per 1-thread share of the CPUs (gloo on CPU here); epoch
time, the data-loading and all-reduce shares of a step, FLOPs per sample (and MFU where the
device is known).

At one TPC-H scale, builds ``warehouse/delay_features`` and ``warehouse/training_set`` on
DuckDB from their SQL, then runs ``torchrun --standalone --nproc-per-node=N`` for each
configuration on the same data, seed, epochs and default ``TrainConfig`` (only
``num_threads`` differs); each worker group reports rank 0's epoch records and the torch
intra-/inter-op thread counts it ran with.

Shares of a step: ``data_time_share`` is the trainer's own (time waiting for the loader over
the training pass). The all-reduce share is measured after training, on the same model and
batches: ``--probe-steps`` full steps with DDP's gradient all-reduce, then as many under
``no_sync()`` (same forward, backward and optimizer step, no communication), alternated
three times; the share is ``1 - no_sync time / synced time``. It counts what the all-reduce
adds to a step, waiting for the slower rank included, and nothing of what overlaps with
backward. A comm hook timing the futures would count overlapped time too, and would itself
add a Python callback to every step of the throughput numbers.

Run: ``python -m benchmarks.training_bench [--scale 0.1] [--epochs 3]``.
Results: benchmarks/results/training.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")
TABLES = ("delay_features", "training_set")
# JSON of TrainConfig fields to change from the defaults (e.g. '{"batch_size": 1024}'), to
# compare other settings with the same three configurations.
TRAIN_OVERRIDES = "PLUMBLINE_BENCH_TRAIN_CONFIG"


def build_training_set(scale: float, root: Path) -> Path:
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import WAREHOUSE_ZONE, warehouse_tables
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    lake = Lake(root)
    for name in TPCH_TABLES:
        publish_tpch_table(lake, name, scale)
    inputs = {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}
    tables = {t.name: t for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))}
    for name in TABLES:
        table = tables[name]
        out = root / WAREHOUSE_ZONE / name
        reads = {key: inputs[key] for key in table.reads}
        DuckDBEngine().build(warehouse_sql(table), reads, out, file=name)
        inputs[f"{WAREHOUSE_ZONE}.{name}"] = out
    return root / WAREHOUSE_ZONE / "training_set"


def allreduce_share(trainer: Any, steps: int) -> float | None:
    """What DDP's gradient all-reduce adds to a step (see the module docstring); None for
    one process."""
    import torch
    import torch.distributed as dist

    if not trainer.runtime.distributed:
        return None
    batches = [batch for batch, _ in zip(trainer.train_loader, range(steps), strict=False)]

    def timed(synced: bool) -> float:
        dist.barrier()
        started = time.perf_counter()
        for batch in batches:
            # The trainer's own step (its passes, accumulation and optimizer step); under an
            # outer no_sync() not even its last pass all-reduces.
            with contextlib.nullcontext() if synced else trainer.network.no_sync():
                trainer.train_step(batch)
        # The slower rank's time: the no_sync phase does not wait for it by itself.
        elapsed = torch.tensor(time.perf_counter() - started, dtype=torch.float64)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        return elapsed.item()

    synced = unsynced = 0.0
    for _ in range(3):
        synced += timed(True)
        unsynced += timed(False)
    return max(0.0, 1.0 - unsynced / synced)


def worker(
    data: Path, epochs: int, checkpoints: Path, num_threads: int | None, probe_steps: int
) -> None:
    """One rank under torchrun: train, and on rank 0 print the epoch records as JSON."""
    from models.config import ModelConfig, TrainConfig
    from models.data import load_splits
    from models.flops import flops_per_sample, mfu
    from models.runtime import (
        init_distributed,
        select_runtime,
        shutdown_distributed,
    )
    from models.setup import prepare
    from models.trainer import Trainer

    runtime = select_runtime()
    init_distributed(runtime)
    import torch

    overrides = json.loads(os.environ.get(TRAIN_OVERRIDES, "{}"))
    config = TrainConfig(epochs=epochs, num_threads=num_threads, **overrides)
    prepared = prepare(load_splits(data), ModelConfig(), config, runtime)
    config = prepared.train_config  # batch_size resolved
    model, loader, val = prepared.model, prepared.loader, prepared.encoded["validation"]
    train_x = prepared.encoded["train"][0]
    trainer = Trainer(model, loader, runtime, config, checkpoint_dir=checkpoints, validation=val)
    history = trainer.fit()
    threads = (torch.get_num_threads(), torch.get_num_interop_threads())
    share = allreduce_share(trainer, probe_steps)
    shutdown_distributed()
    if runtime.is_main:
        flops = flops_per_sample(model, train_x.shape[1])
        device = None
        if runtime.device.type == "cuda":
            device = torch.cuda.get_device_name(runtime.device)
        print(
            json.dumps(
                {
                    "world_size": runtime.world_size,
                    "backend": runtime.backend,
                    "torch_threads": threads[0],
                    "interop_threads": threads[1],
                    "allreduce_share": share,
                    "batch_size": config.batch_size,
                    "train_rows": int(train_x.shape[0]),
                    "flops_per_sample": flops,
                    "mfu": mfu(
                        history[-1]["samples_per_second"], flops, device, runtime.world_size
                    ),
                    "history": history,
                }
            )
        )


@dataclass(frozen=True)
class Configuration:
    name: str
    nproc: int
    num_threads: int | None
    """Passed as ``TrainConfig.num_threads``; None: the trainer's default split of the CPUs."""

    def omp_threads(self) -> int:
        from models.runtime import available_cpus

        return self.num_threads or max(1, available_cpus() // self.nproc)


def configurations() -> tuple[Configuration, ...]:
    from models.runtime import available_cpus

    cpus = available_cpus()
    return (
        Configuration("one_process_one_thread", 1, 1),
        Configuration(f"one_process_{cpus}_threads", 1, None),
        Configuration(f"{cpus}_processes_ddp", cpus, None),
    )


def _run(
    data: Path, configuration: Configuration, epochs: int, probe_steps: int, scratch: Path
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={configuration.nproc}",
        "-m",
        "benchmarks.training_bench",
        "--worker",
        str(data),
        "--epochs",
        str(epochs),
        "--probe-steps",
        str(probe_steps),
        "--checkpoints",
        str(scratch / f"checkpoints-{configuration.name}"),
    ]
    if configuration.num_threads is not None:
        command += ["--threads", str(configuration.num_threads)]
    # What the training launcher sets (pipelines.resources), so that OpenMP's pool starts at
    # the size torch is then told to use.
    env = {**os.environ, "OMP_NUM_THREADS": str(configuration.omp_threads())}
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"torchrun for {configuration.name} failed:\n{proc.stderr[-3000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["wall_seconds"] = round(time.perf_counter() - started, 2)
    return report


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    # The first epoch carries warm-up (allocations, thread pools): report the later ones.
    steady = report["history"][1:] or report["history"]

    def mean(key: str) -> float:
        return sum(r[key] for r in steady) / len(steady)

    share = report["allreduce_share"]
    return {
        "world_size": report["world_size"],
        "torch_threads": report["torch_threads"],
        "interop_threads": report["interop_threads"],
        "batch_size": report["batch_size"],
        "samples_per_second": round(mean("samples_per_second")),
        "epoch_seconds": round(mean("epoch_seconds"), 3),
        "step_time_ms": round(mean("step_time_ms"), 3),
        "data_time_share": round(mean("data_time_share"), 4),
        "allreduce_share": None if share is None else round(share, 4),
        "val_auc": round(report["history"][-1]["val_auc"], 5),
        "wall_seconds": report["wall_seconds"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--probe-steps", type=int, default=20)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--checkpoints", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.epochs, args.checkpoints, args.threads, args.probe_steps)
        return {}
    with tempfile.TemporaryDirectory(prefix="plumbline-train-bench-") as tmp:
        scratch = Path(tmp)
        started = time.perf_counter()
        data = build_training_set(args.scale, scratch / "lake")
        build_seconds = time.perf_counter() - started
        reports = {
            c.name: _run(data, c, args.epochs, args.probe_steps, scratch) for c in configurations()
        }
    summaries = {name: _summary(report) for name, report in reports.items()}
    single, threaded, ddp = summaries.values()
    first = next(iter(reports.values()))
    results = {
        "scale": args.scale,
        "epochs": args.epochs,
        "train_rows": first["train_rows"],
        "build_seconds": round(build_seconds, 2),
        "flops_per_sample": first["flops_per_sample"],
        "mfu": first["mfu"],  # None on CPU: no peak to compare against
        "configurations": summaries,
        "ddp_vs_one_thread": round(ddp["samples_per_second"] / single["samples_per_second"], 3),
        "ddp_vs_one_process": round(ddp["samples_per_second"] / threaded["samples_per_second"], 3),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "training.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [
        f"training, TPC-H scale {args.scale:g}: {results['train_rows']:,} training rows, "
        f"{args.epochs} epochs, {results['flops_per_sample']:,.0f} FLOPs/sample"
    ]
    for name, summary in summaries.items():
        share = summary["allreduce_share"]
        lines.append(
            f"  {name:<24}: {summary['samples_per_second']:>9,} samples/s, "
            f"{summary['epoch_seconds']:.2f} s/epoch, batch {summary['batch_size']}, "
            f"{summary['torch_threads']} thread(s), val AUC {summary['val_auc']:.5f}, "
            f"data loading {summary['data_time_share']:.1%}"
            + ("" if share is None else f", all-reduce {share:.1%}")
            + " of a step"
        )
    lines += [
        f"  DDP vs 1 process x 1 thread : {results['ddp_vs_one_thread']:.2f}x",
        f"  DDP vs 1 process x threads  : {results['ddp_vs_one_process']:.2f}x",
        f"results written to {RESULTS / 'training.json'}",
    ]
    print("\n".join(lines))
    return results


if __name__ == "__main__":
    main()
