"""What ``plumbline run`` checks before it builds anything, so that a run that cannot finish
says so in seconds instead of after the warehouse is rebuilt: the MLflow tracking server
answers, and the scale's disk and memory fit the machine."""

from __future__ import annotations

import base64
import errno
import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipelines.lake.tpch import TPCH_TABLES
from pipelines.settings import Settings, memory_size, redact

MLFLOW_ANSWER_SECONDS = 10.0

# What one run adds to the home, measured with `plumbline run --scale 0.01` twice on a fresh
# home (`du -sb` of each folder before and after each run):
#   every run              9.1 MB  Dagster's record of the run (8.1 MB, whatever the scale),
#                                  MLflow's run and model, the training files, an audit bundle
#   the first run, once    3.2 MB  MLflow's store, the stored translations and contracts
#   raw TPC-H tables       3.4 MB  generated once per scale, then kept (pipelines.lake.raw)
#   every other lake table 1.8 MB  a new version each run
# and a fifth again for a margin. The memory, measured as /usr/bin/time's maximum resident
# set size, is 894 MB at scale 0.01 and 1,125 MB at 0.1, taken half again (training's
# workers). What grows with the scale is the training's: the data path (raw, ansi,
# warehouse) holds each DuckDB database to PLUMBLINE_DUCKDB_MEMORY_LIMIT, so its steps need
# the process's own memory and that limit, whatever the scale (docs/benchmarks.md: 2.5 GB
# at scale 1 and at scale 10 under a 2 GB limit).
RUN_BYTES = 9_100_000
FIRST_RUN_BYTES = 3_200_000
RAW_BYTES_PER_SCALE = 340_000_000
BUILT_BYTES_PER_SCALE = 185_000_000
DISK_MARGIN = 1.2
MEMORY_FIXED_BYTES = 870_000_000
MEMORY_BYTES_PER_SCALE = 2_600_000_000
MEMORY_MARGIN = 1.5


class PreflightError(Exception):
    """The run would fail for a reason known before it starts; the message says which."""


@dataclass(frozen=True)
class Footprint:
    disk_bytes: int
    memory_bytes: int


def disk_to_add(scale: float, *, first_run: bool = True, raw_tables: int = len(TPCH_TABLES)) -> int:
    """The disk a run at ``scale`` adds to a home: every run's own records and new table
    versions, and, where the home does not hold them yet, what the first run makes once and
    the ``raw_tables`` TPC-H tables it still has to generate (counted at the whole raw
    size: lineitem, the largest, is the one most likely missing)."""
    added = RUN_BYTES + BUILT_BYTES_PER_SCALE * scale
    if first_run:
        added += FIRST_RUN_BYTES
    if raw_tables:
        added += RAW_BYTES_PER_SCALE * scale
    return int(DISK_MARGIN * added)


def home_disk_to_add(settings: Settings) -> int:
    """:func:`disk_to_add` for the home ``settings`` names, as it is now: a home whose lake
    holds this scale's raw tables, and whose Dagster instance has run before, needs only
    what a run adds each time."""
    from pipelines.lake.raw import tables_to_generate
    from pipelines.lake.store import Lake

    return disk_to_add(
        settings.scale,
        first_run=not (settings.dagster_home / "history").is_dir(),
        raw_tables=len(tables_to_generate(Lake(settings.lake_root), settings.scale)),
    )


def footprint(scale: float, *, trains: bool = True, duckdb_memory_limit: int = 0) -> Footprint:
    """The disk a run at ``scale`` writes into a fresh home and the memory it needs: the
    data path's steps their process and DuckDB's ``duckdb_memory_limit`` (bytes), and a run
    that ``trains`` the model as much again as the training set grows."""
    data_path = MEMORY_FIXED_BYTES + duckdb_memory_limit
    training = MEMORY_FIXED_BYTES + MEMORY_BYTES_PER_SCALE * scale if trains else 0
    return Footprint(
        disk_bytes=disk_to_add(scale),
        memory_bytes=int(MEMORY_MARGIN * max(data_path, training)),
    )


def size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def existing_ancestor(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def check_footprint(
    settings: Settings,
    free_disk: int | None = None,
    available_memory: int | None = None,
    *,
    trains: bool = True,
) -> Footprint:
    """Refuse a scale whose estimated disk (what the run adds to this home) or memory
    exceeds what this machine has now; a run that does not ``trains`` needs no more memory
    at one scale than at another."""
    import psutil

    memory_limit = memory_size(settings.duckdb_memory_limit)
    need = Footprint(
        home_disk_to_add(settings),
        footprint(settings.scale, trains=trains, duckdb_memory_limit=memory_limit).memory_bytes,
    )
    disk = (
        shutil.disk_usage(existing_ancestor(settings.home)).free if free_disk is None else free_disk
    )
    memory = psutil.virtual_memory().available if available_memory is None else available_memory
    short = []
    if need.disk_bytes > disk:
        short.append(
            f"about {size(need.disk_bytes)} of disk under {settings.home} (free: {size(disk)})"
        )
    if need.memory_bytes > memory:
        short.append(f"about {size(need.memory_bytes)} of memory (available: {size(memory)})")
    if short:
        raise PreflightError(
            f"scale {settings.scale:g} needs " + " and ".join(short) + "; choose a smaller "
            "--scale or PLUMBLINE_SCALE, or free space"
        )
    return need


def check_mlflow(
    uri: str, environ: Mapping[str, str] | None = None, timeout: float = MLFLOW_ANSWER_SECONDS
) -> None:
    """An http(s) tracking server must answer an authenticated search within ``timeout``
    seconds. A sqlite file is created by the run itself; other stores are not probed."""
    if not uri.startswith(("http://", "https://")):
        return
    env = os.environ if environ is None else environ
    request = urllib.request.Request(
        uri.rstrip("/") + "/api/2.0/mlflow/experiments/search?max_results=1"
    )
    # The credentials MLflow's own client sends (pipelines.settings moved any in the URI
    # here): a server that answers but refuses them fails the run as surely as no server.
    if env.get("MLFLOW_TRACKING_TOKEN"):
        request.add_header("Authorization", f"Bearer {env['MLFLOW_TRACKING_TOKEN']}")
    elif env.get("MLFLOW_TRACKING_USERNAME"):
        pair = f"{env['MLFLOW_TRACKING_USERNAME']}:{env.get('MLFLOW_TRACKING_PASSWORD', '')}"
        request.add_header("Authorization", "Basic " + base64.b64encode(pair.encode()).decode())
    shown = redact(uri)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise PreflightError(
                f"the MLflow server at {shown} refused the credentials (HTTP {exc.code}); "
                "check MLFLOW_TRACKING_USERNAME / MLFLOW_TRACKING_PASSWORD"
            ) from None
        raise PreflightError(
            f"the MLflow server at {shown} answered HTTP {exc.code} to a search; "
            "is PLUMBLINE_MLFLOW_URI an MLflow tracking server?"
        ) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PreflightError(
            f"the MLflow server at {shown} did not answer within {timeout:g} s ({reason}); "
            "start it or fix PLUMBLINE_MLFLOW_URI"
        ) from None
    except ValueError:
        raise PreflightError(
            f"{shown} answered, but not as an MLflow tracking server (no JSON); "
            "fix PLUMBLINE_MLFLOW_URI"
        ) from None


# How a full disk reads where it is not an OSError of ENOSPC: sqlite's words (through
# SQLAlchemy too), DuckDB's, and those of a library that kept only the OS's message.
DISK_FULL_WORDS = ("No space left on device", "database or disk is full", "Disk quota exceeded")
# sqlite's SQLITE_IOERR: what a full disk gives when a write of the journal or of the
# database fails, and also what a failing disk gives.
DISK_IO_WORDS = ("disk I/O error",)


def disk_full_sign(error: BaseException | str) -> str | None:
    """``"full"`` when ``error`` (an exception, any exception it wraps, or a step's message)
    says the disk is full; ``"io"`` for sqlite's disk I/O error, which a full disk gives
    too; else None."""
    seen: set[int] = set()
    pending: list[BaseException | str | None] = [error]
    found = None
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return "full"
        text = str(current)
        if any(words in text for words in DISK_FULL_WORDS):
            return "full"
        if any(words in text for words in DISK_IO_WORDS):
            found = "io"
        if isinstance(current, BaseException):
            # Dagster and SQLAlchemy wrap the error (SQLAlchemy's original is ``orig``).
            pending += [current.__cause__, current.__context__, getattr(current, "orig", None)]
    return found


def disk_full(errors: Iterable[BaseException | str], settings: Settings) -> str | None:
    """One line for a run that failed on a full disk (None if it did not): which folder of
    the home, how much is free now, and what the next run adds. ``errors`` are the
    exceptions or the steps' messages: wherever the disk filled (a Parquet or log file,
    Dagster's or MLflow's sqlite, DuckDB), :func:`disk_full_sign` tells. sqlite's "disk I/O
    error" counts only where the home's disk is short of what the next run adds."""
    signs = {disk_full_sign(error) for error in errors} - {None}
    if not signs:
        return None
    # The folders of the home may lie on different volumes (a lake on its own mount): the
    # fullest is the one that ran out.
    folders = [settings.home, settings.lake_root, settings.training_root, settings.dagster_home]
    free, where = min(
        (shutil.disk_usage(existing_ancestor(folder)).free, folder) for folder in folders
    )
    need = home_disk_to_add(settings)
    if signs == {"io"} and free >= need:
        return None
    return (
        f"the disk under {where} is full (free now: {size(free)}); the next run at scale "
        f"{settings.scale:g} adds about {size(need)}; free space and run again: what was "
        "published is kept, and the next run builds the rest"
    )
