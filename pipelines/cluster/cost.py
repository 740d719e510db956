"""What a training run cost: per step, per epoch and per run, from ``deploy/prices.yaml``.

GPUs are billed per GPU-hour (one training process per GPU, as torchrun runs them), CPU
training per node-hour. The file's prices are example list prices for the team to replace
with its own rates; every cost records which table and date it came from.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pipelines.cluster.deploy_files import (
    DEPLOY_DIR,
    DeployFileError,
    load_mapping,
    number_or_unknown,
    require,
    require_mapping,
    require_text,
)

PRICES = DEPLOY_DIR / "prices.yaml"
Unit = Literal["gpu_hour", "node_hour"]
UNITS: tuple[str, ...] = get_args(Unit)
SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class Price:
    hardware: str
    unit: Unit
    on_demand: float | None  # per unit-hour; None where the file says unknown
    spot: float | None


@dataclass(frozen=True)
class PriceTable:
    path: Path
    currency: str
    as_of: str
    source: str
    prices: Mapping[str, Price]

    @property
    def label(self) -> str:
        return f"{self.path.name}: {self.source} (as of {self.as_of})"


def load_prices(path: Path = PRICES) -> PriceTable:
    path = Path(path)
    document = load_mapping(path)

    def text(key: str) -> str:
        return require_text(require(document, key, path, key), path, key)

    currency, as_of, source = (
        text("currency"),
        str(require(document, "as_of", path, "as_of")),
        text("source"),
    )
    sections = require_mapping(require(document, "prices", path, "prices"), path, "prices")
    prices = {}
    for hardware, raw in sections.items():
        where = f"prices.{hardware}"
        section = require_mapping(raw, path, where)
        unit = require(section, "unit", path, f"{where}.unit")
        if unit not in UNITS:
            raise DeployFileError(path, f"{where}.unit", f"expected one of {UNITS}; got {unit!r}")
        rates = {
            kind: number_or_unknown(
                require(section, kind, path, f"{where}.{kind}"), path, f"{where}.{kind}"
            )
            for kind in ("on_demand", "spot")
        }
        prices[str(hardware)] = Price(str(hardware), unit, rates["on_demand"], rates["spot"])
    return PriceTable(path, currency, as_of, source, prices)


@dataclass(frozen=True)
class TrainingCost:
    hardware: str
    currency: str
    price_source: str
    spot: bool
    unit: Unit | None  # None: no price for this hardware
    billed_units: int  # GPUs for gpu_hour, nodes for node_hour
    hourly_rate: float | None  # per unit-hour
    run_hours: float  # wall-clock hours of the run
    billed_hours: float  # unit-hours: GPU-hours or node-hours
    per_step: float | None
    per_epoch: float | None  # mean over the run's epochs
    per_run: float | None
    note: str


def training_cost(
    prices: PriceTable,
    hardware: str,
    *,
    step_seconds: float,
    epoch_seconds: Sequence[float],
    run_seconds: float,
    world_size: int,
    nodes: int = 1,
    spot: bool = False,
) -> TrainingCost:
    """Cost of one training run on ``hardware``. The run's wall time is what is billed: a
    pool holds its GPUs from start-up to exit, loading and evaluation included. Without a
    price for the hardware (or for its spot capacity) the costs are None and ``note`` says
    why."""
    if world_size < 1 or nodes < 1:
        raise ValueError(f"world_size and nodes must be >= 1; got {world_size} and {nodes}")
    if step_seconds < 0 or run_seconds < 0 or any(s < 0 for s in epoch_seconds):
        raise ValueError("step, epoch and run times must be >= 0")
    price = prices.prices.get(hardware)
    capacity = "spot" if spot else "on-demand"
    rate = None if price is None else (price.spot if spot else price.on_demand)
    unit = None if price is None else price.unit
    units = world_size if unit == "gpu_hour" else nodes
    if price is None:
        note = f"no price for {hardware} in {prices.path.name}"
    elif rate is None:
        note = f"{prices.path.name} lists the {capacity} price of {hardware} as unknown"
    else:
        per = "GPU" if unit == "gpu_hour" else "node"
        note = f"{units} {per}(s) x {rate:g} {prices.currency} per {per}-hour {capacity}"

    def cost(seconds: float) -> float | None:
        return None if rate is None else rate * units * seconds / SECONDS_PER_HOUR

    mean_epoch = statistics.fmean(epoch_seconds) if epoch_seconds else 0.0
    return TrainingCost(
        hardware=hardware,
        currency=prices.currency,
        price_source=prices.label,
        spot=spot,
        unit=unit,
        billed_units=units,
        hourly_rate=rate,
        run_hours=run_seconds / SECONDS_PER_HOUR,
        billed_hours=units * run_seconds / SECONDS_PER_HOUR,
        per_step=cost(step_seconds),
        per_epoch=cost(mean_epoch) if epoch_seconds else None,
        per_run=cost(run_seconds),
        note=note,
    )


def history_times(history: Sequence[Mapping[str, Any]]) -> tuple[float, list[float]]:
    """Mean step seconds and each epoch's seconds from a training history
    (:meth:`models.trainer.Trainer.fit`'s records)."""
    if not history:
        raise ValueError("history_times: the training history is empty")
    step = statistics.fmean(float(r["step_time_ms"]) for r in history) / 1000.0
    return step, [float(r["epoch_seconds"]) for r in history]
