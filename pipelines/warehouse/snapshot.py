"""A snapshot of the legacy warehouse's output of one table, as a build reconciles against it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Snapshot:
    """The legacy output of a table (a Parquet file or folder, or a CSV file), and how to
    compare with it: rows matched by ``key`` when given, numeric columns within their relative
    ``tolerance``."""

    path: Path
    key: tuple[str, ...] = ()
    tolerance: Mapping[str, float] = field(default_factory=dict)
