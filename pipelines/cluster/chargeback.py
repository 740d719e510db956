"""The chargeback table: who spent what on training, append-only Parquet in the lake.

One file per training run under ``<lake root>/finance/chargeback/``, written to a temporary
name and renamed into place (as :class:`pipelines.registry.versions.AliasHistory` does), so a reader
never sees half a row and nothing already written is rewritten. A retried step trains again
and spends again, so it appends its own row.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.lake.files import atomic_path

CHARGEBACK_ZONE = "finance"
CHARGEBACK_TABLE = "chargeback"
UNOWNED = "unowned"


def chargeback_root(lake_root: Path | str) -> Path:
    return Path(lake_root) / CHARGEBACK_ZONE / CHARGEBACK_TABLE


def chargeback_owner(owners: Sequence[str]) -> str:
    """Who pays for an asset's runs: its first team owner (``team:ml-team``), else its first
    owner (a person's e-mail), else ``unowned``, which a report can then chase."""
    teams = [owner for owner in owners if owner.startswith("team:")]
    if teams:
        return teams[0]
    return owners[0] if owners else UNOWNED


@dataclass(frozen=True)
class ChargebackEntry:
    owner: str  # the key: an asset owner, e.g. team:ml-team
    asset: str
    dagster_run_id: str
    mlflow_run_id: str
    hardware: str
    spot: bool
    billed_units: int  # GPUs (gpu_hour) or nodes (node_hour)
    unit: str | None  # None: the hardware has no price
    hours: float  # wall-clock hours of the run
    billed_hours: float  # unit-hours
    cost: float | None  # None: no price for this hardware
    currency: str
    price_source: str
    recorded_at: str  # UTC, ISO 8601


SCHEMA = pa.schema(
    [
        ("owner", pa.string()),
        ("asset", pa.string()),
        ("dagster_run_id", pa.string()),
        ("mlflow_run_id", pa.string()),
        ("hardware", pa.string()),
        ("spot", pa.bool_()),
        ("billed_units", pa.int64()),
        ("unit", pa.string()),
        ("hours", pa.float64()),
        ("billed_hours", pa.float64()),
        ("cost", pa.float64()),
        ("currency", pa.string()),
        ("price_source", pa.string()),
        ("recorded_at", pa.string()),
    ]
)


@dataclass(frozen=True)
class Chargeback:
    """Append-only: one Parquet file per training run under ``root``."""

    root: Path

    def append(self, entry: ChargebackEntry) -> Path:
        root = Path(self.root)
        root.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.fromisoformat(entry.recorded_at).strftime("%Y%m%dT%H%M%S%f")
        target = root / f"charge-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
        with atomic_path(target) as temporary:
            pq.write_table(pa.Table.from_pylist([asdict(entry)], schema=SCHEMA), temporary)
        return target

    def entries(self, owner: str | None = None) -> list[ChargebackEntry]:
        """Every row, oldest first; only ``owner``'s when given."""
        root = Path(self.root)
        files = sorted(root.glob("charge-*.parquet")) if root.is_dir() else []
        rows = [row for path in files for row in pq.read_table(path).to_pylist()]
        entries = [ChargebackEntry(**row) for row in rows if owner is None or row["owner"] == owner]
        return sorted(entries, key=lambda entry: entry.recorded_at)

    def total(self, owner: str) -> dict[str, float]:
        """``owner``'s priced spend per currency (rows without a price are not summed)."""
        totals: dict[str, float] = {}
        for entry in self.entries(owner):
            if entry.cost is not None:
                totals[entry.currency] = totals.get(entry.currency, 0.0) + entry.cost
        return totals
