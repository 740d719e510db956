"""Training throughput: 1 process vs 2 DDP processes (gloo on CPU here), epoch time,
data-loading share of step time, FLOPs per sample (and MFU where the device is known).

At one TPC-H scale, builds ``warehouse/delay_features`` and ``warehouse/training_set`` on
DuckDB from their SQL, then runs ``torchrun --standalone --nproc-per-node=N`` for N = 1 and 2
on the same data, seed and epochs; each worker group reports rank 0's epoch records.

Run: ``python -m benchmarks.training_bench [--scale 0.1] [--epochs 2]``.
Results: benchmarks/results/training.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")
TABLES = ("delay_features", "training_set")


def build_training_set(scale: float, root: Path) -> Path:
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES
    from pipelines.warehouse.build import WAREHOUSE_ZONE, warehouse_tables
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    lake = Lake(root)
    for name in TPCH_TABLES:
        publish_tpch_table(lake, name, scale)
    inputs = {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}
    tables = {t.name: t for t in warehouse_tables(load_catalog(), LEGACY_ROOT)}
    for name in TABLES:
        table = tables[name]
        out = root / WAREHOUSE_ZONE / name
        reads = {key: inputs[key] for key in table.reads}
        DuckDBEngine().build(warehouse_sql(table), reads, out, file=name)
        inputs[f"{WAREHOUSE_ZONE}.{name}"] = out
    return root / WAREHOUSE_ZONE / "training_set"


def worker(data: Path, epochs: int, checkpoints: Path) -> None:
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
    config = TrainConfig(epochs=epochs)
    prepared = prepare(load_splits(data), ModelConfig(), config, runtime)
    model, loader, val = prepared.model, prepared.loader, prepared.encoded["validation"]
    train_x = prepared.encoded["train"][0]
    trainer = Trainer(model, loader, runtime, config, checkpoint_dir=checkpoints, validation=val)
    history = trainer.fit()
    shutdown_distributed()
    if runtime.is_main:
        flops = flops_per_sample(model, train_x.shape[1])
        device = None
        if runtime.device.type == "cuda":
            import torch

            device = torch.cuda.get_device_name(runtime.device)
        print(
            json.dumps(
                {
                    "world_size": runtime.world_size,
                    "backend": runtime.backend,
                    "train_rows": int(train_x.shape[0]),
                    "flops_per_sample": flops,
                    "mfu": mfu(
                        history[-1]["samples_per_second"], flops, device, runtime.world_size
                    ),
                    "history": history,
                }
            )
        )


def _run(data: Path, nproc: int, epochs: int, scratch: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        "-m",
        "benchmarks.training_bench",
        "--worker",
        str(data),
        "--epochs",
        str(epochs),
        "--checkpoints",
        str(scratch / f"checkpoints-{nproc}"),
    ]
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False, env=os.environ)
    if proc.returncode != 0:
        raise RuntimeError(f"torchrun with {nproc} process(es) failed:\n{proc.stderr[-3000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["wall_seconds"] = round(time.perf_counter() - started, 2)
    return report


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    # The first epoch carries warm-up (allocations, thread pools): report the later ones.
    steady = report["history"][1:] or report["history"]

    def mean(key: str) -> float:
        return sum(r[key] for r in steady) / len(steady)

    return {
        "world_size": report["world_size"],
        "samples_per_second": round(mean("samples_per_second")),
        "epoch_seconds": round(mean("epoch_seconds"), 3),
        "step_time_ms": round(mean("step_time_ms"), 3),
        "data_time_share": round(mean("data_time_share"), 4),
        "val_auc": round(report["history"][-1]["val_auc"], 5),
        "wall_seconds": report["wall_seconds"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--checkpoints", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.epochs, args.checkpoints)
        return {}
    with tempfile.TemporaryDirectory(prefix="plumbline-train-bench-") as tmp:
        scratch = Path(tmp)
        started = time.perf_counter()
        data = build_training_set(args.scale, scratch / "lake")
        build_seconds = time.perf_counter() - started
        single = _run(data, 1, args.epochs, scratch)
        ddp = _run(data, 2, args.epochs, scratch)
    one, two = _summary(single), _summary(ddp)
    results = {
        "scale": args.scale,
        "epochs": args.epochs,
        "train_rows": single["train_rows"],
        "build_seconds": round(build_seconds, 2),
        "flops_per_sample": single["flops_per_sample"],
        "mfu": single["mfu"],  # None on CPU: no peak to compare against
        "one_process": one,
        "two_processes_ddp": two,
        "ddp_scaling": round(two["samples_per_second"] / one["samples_per_second"], 3),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "training.json").write_text(json.dumps(results, indent=2) + "\n")
    print(
        f"training, TPC-H scale {args.scale:g}: {results['train_rows']:,} training rows, "
        f"{args.epochs} epochs, {results['flops_per_sample']:,.0f} FLOPs/sample\n"
        f"  1 process          : {one['samples_per_second']:>9,} samples/s, "
        f"{one['epoch_seconds']:.2f} s/epoch, data loading {one['data_time_share']:.1%} of a step\n"
        f"  2 processes (DDP)  : {two['samples_per_second']:>9,} samples/s, "
        f"{two['epoch_seconds']:.2f} s/epoch, data loading {two['data_time_share']:.1%} of a step\n"
        f"  scaling 2 vs 1     : {results['ddp_scaling']:.2f}x\n"
        f"results written to {RESULTS / 'training.json'}"
    )
    return results


if __name__ == "__main__":
    main()
