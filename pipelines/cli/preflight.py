"""What ``plumbline run`` checks before it builds anything, so that a run that cannot finish
says so in seconds instead of after the warehouse is rebuilt: the MLflow tracking server
answers, and the scale's disk and memory fit the machine."""

from __future__ import annotations

import base64
import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipelines.settings import Settings, redact

MLFLOW_ANSWER_SECONDS = 10.0

# What one run adds to the home and the most one of its processes holds, as a fixed part
# plus a part per unit of TPC-H scale (linear in the rows). Measured with `plumbline run` on
# fresh homes (`du -sb` of the home; /usr/bin/time's maximum resident set size):
#   scale 0.01: 14.3 MB, 894 MB      scale 0.1: 57.0 MB, 1,125 MB
# and taken half again for a margin (a second version of each table, training's workers).
DISK_FIXED_BYTES = 10_000_000
DISK_BYTES_PER_SCALE = 475_000_000
MEMORY_FIXED_BYTES = 870_000_000
MEMORY_BYTES_PER_SCALE = 2_600_000_000
MARGIN = 1.5


class PreflightError(Exception):
    """The run would fail for a reason known before it starts; the message says which."""


@dataclass(frozen=True)
class Footprint:
    disk_bytes: int
    memory_bytes: int


def footprint(scale: float) -> Footprint:
    """The disk a run at ``scale`` writes into a fresh home and the memory it needs."""
    return Footprint(
        disk_bytes=int(MARGIN * (DISK_FIXED_BYTES + DISK_BYTES_PER_SCALE * scale)),
        memory_bytes=int(MARGIN * (MEMORY_FIXED_BYTES + MEMORY_BYTES_PER_SCALE * scale)),
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
    settings: Settings, free_disk: int | None = None, available_memory: int | None = None
) -> Footprint:
    """Refuse a scale whose estimated disk or memory exceeds what this machine has now."""
    import psutil

    need = footprint(settings.scale)
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


# How a full disk reads in a step's error: the OS's ENOSPC, or sqlite's and DuckDB's words.
DISK_FULL_SIGNS = ("No space left on device", "database or disk is full", "disk is full")


def disk_full(messages: list[str], settings: Settings) -> str | None:
    """One line for a run whose steps failed on a full disk (None if none did): which path,
    how much is free now, and what a run at this scale needs."""
    full = [m for m in messages if any(sign in m for sign in DISK_FULL_SIGNS)]
    if not full:
        return None
    # The folders of the home may lie on different volumes (a lake on its own mount): the
    # fullest is the one that ran out.
    folders = [settings.home, settings.lake_root, settings.training_root, settings.dagster_home]
    free, where = min(
        (shutil.disk_usage(existing_ancestor(folder)).free, folder) for folder in folders
    )
    need = footprint(settings.scale).disk_bytes
    return (
        f"the disk under {where} is full (free now: {size(free)}); a run at scale "
        f"{settings.scale:g} needs about {size(need)}; free space and run again: what was "
        "published is kept, and the next run builds the rest"
    )
