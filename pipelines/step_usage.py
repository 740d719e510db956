"""What one step cost the process that ran it: wall time, CPU time and peak RSS.

Every asset of a run measures its own step (``usage = StepUsage.start()`` as it begins,
``usage.metadata()`` into what it materializes): the run summary shows each step's peak RSS
(pipelines/cli/run.py) and the scale benchmark reads all three.

Steps run one after another in the run's process (the in-process executor,
pipelines/definitions.py), so the process's peak RSS, ``getrusage(RUSAGE_SELF).ru_maxrss``,
only grows over a run: read alone it would charge every step with the largest before it.
On Linux a step therefore first resets the kernel's high-water mark of the process
(``/proc/self/clear_refs``, value 5) and reads it back as ``VmHWM`` when it ends: the peak of
this step alone. Not ``ru_maxrss`` then: the kernel takes it as the larger of that mark and
the marks threads had when they exited, so a DuckDB database closed after an earlier step's
peak (its threads exit with it) would carry that peak into later steps. Where the mark
cannot be reset the step reports ``ru_maxrss``, the process's peak so far, which is at least
the step's own (``peak_rss_scope`` says which). CPU time is the
process's (every thread: DuckDB's included) and that of the child processes it waited for
(tpchgen-cli, torchrun's workers).
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")
# /proc/<pid>/clear_refs: "5" resets the peak resident set size to the current one (Linux 4.0).
RESET_PEAK_RSS = "5"

# Metadata keys (pipelines/cli/run.py and benchmarks/scale_bench.py read them).
PEAK_RSS_KEY = "peak_rss_mb"
PEAK_RSS_SCOPE_KEY = "peak_rss_scope"
CPU_SECONDS_KEY = "step_cpu_seconds"
WALL_SECONDS_KEY = "step_seconds"


def _status_kib(field: str) -> int | None:
    """A ``kB`` field of /proc/self/status (``VmHWM``, ``VmRSS``), or None."""
    try:
        text = STATUS.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return None


def reset_peak_rss() -> bool:
    """Reset the process's peak RSS to its current RSS; False where the OS cannot."""
    try:
        CLEAR_REFS.write_text(RESET_PEAK_RSS)
    except OSError:
        return False
    return _status_kib("VmHWM") is not None


def process_peak_rss_bytes() -> int:
    """``ru_maxrss``: the process's peak RSS since it started (or since its last exec)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class StepUsage:
    """The usage of one step from :meth:`start` to :meth:`metadata`."""

    started: float
    cpu_started: float
    # True: the high-water mark was reset at the start, so the peak is the step's own.
    own_peak: bool

    @classmethod
    def start(cls) -> StepUsage:
        return cls(time.perf_counter(), _cpu_seconds(), reset_peak_rss())

    def peak_rss_bytes(self) -> int:
        if self.own_peak:
            peak = _status_kib("VmHWM")
            if peak is not None:
                return peak * 1024
        return process_peak_rss_bytes()

    def metadata(self) -> dict[str, dg.MetadataValue]:
        """Wall and CPU seconds so far and the peak RSS, as a materialization's metadata."""
        return {
            WALL_SECONDS_KEY: dg.MetadataValue.float(round(time.perf_counter() - self.started, 3)),
            CPU_SECONDS_KEY: dg.MetadataValue.float(round(_cpu_seconds() - self.cpu_started, 3)),
            PEAK_RSS_KEY: dg.MetadataValue.float(round(self.peak_rss_bytes() / 2**20, 1)),
            PEAK_RSS_SCOPE_KEY: dg.MetadataValue.text("step" if self.own_peak else "process"),
        }
