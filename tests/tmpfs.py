"""A small real file system for the full-disk tests: a tmpfs mounted for one test."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """``mount`` (created if missing) as a tmpfs of ``size`` (``1m``, ``8m``) for the block.
    Root can mount one here; where the sandbox forbids it, the calling test is skipped."""
    mount.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)
