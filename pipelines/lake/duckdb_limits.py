"""The memory every DuckDB database of this process may hold, and where it spills beyond it.

DuckDB takes 80% of the machine's memory unless told, per database: at TPC-H scale 10 one
step grew past 4 GB. A run states its limit once (``PLUMBLINE_DUCKDB_MEMORY_LIMIT`` and the
spill folder under ``$PLUMBLINE_HOME``, read by ``pipelines.settings``, handed over by the
lake resource as a step starts: :func:`set_limits`), and every connection the process opens
for the lake's work takes it through :func:`connection_config` (builds, digests,
reconciliation, contract validation, source ingestion).

Each connection spills to a folder of its own under the spill root, which DuckDB makes on its
first spill and removes when the connection closes; what a killed process leaves there is
removed by the next run (:func:`remove_stale_spill`).
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DuckDBLimits:
    """``memory_limit`` in DuckDB's own form (``"2GB"``; None: DuckDB's default), and the
    folder under which connections spill (None: DuckDB's default, ``.tmp`` beside a
    database file, none for an in-memory one, which then cannot exceed its limit)."""

    memory_limit: str | None = None
    spill_root: Path | None = None


_LIMITS = DuckDBLimits()
_CONNECTIONS = itertools.count()


def set_limits(limits: DuckDBLimits) -> None:
    """Hold every DuckDB connection this process opens from now on to ``limits``; the spill
    root is made here (DuckDB makes a connection's own folder, not its parents)."""
    global _LIMITS
    if limits.spill_root is not None:
        limits.spill_root.mkdir(parents=True, exist_ok=True)
    _LIMITS = limits


def limits() -> DuckDBLimits:
    """The limits connections of this process are held to."""
    return _LIMITS


def connection_config(
    config: Mapping[str, str | int | bool] | None = None,
) -> dict[str, str | int | bool]:
    """DuckDB's connect-time ``config``, with this process's memory limit and a spill folder
    of the connection's own (``<spill root>/<pid>-<n>``), unless ``config`` sets them."""
    current = _LIMITS
    merged: dict[str, str | int | bool] = {}
    if current.memory_limit:
        merged["memory_limit"] = current.memory_limit
    if current.spill_root is not None:
        merged["temp_directory"] = str(current.spill_root / f"{os.getpid()}-{next(_CONNECTIONS)}")
    merged.update(config or {})
    return merged


def remove_stale_spill(spill_root: Path) -> list[Path]:
    """Remove the spill folders under ``spill_root`` of processes that no longer run (a
    killed step's); return them. A live process's folders are its connections' own."""
    removed = []
    if not spill_root.is_dir():
        return removed
    for folder in sorted(spill_root.iterdir()):
        pid, _, _ = folder.name.partition("-")
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True
