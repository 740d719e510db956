"""A rerun with nothing changed against the first run (issue 41, item 7: at most ``TARGET``,
20 %, of the first run's wall time).

``plumbline run`` in a fresh ``$PLUMBLINE_HOME``, then ``--reruns`` more with nothing changed,
each in a process of its own, timed from outside: wall time, and the user and system CPU of
the process and everything it started. Each rerun's share of the first run's time is printed
and written to ``benchmarks/results/rerun.json``, with each run's summary line (what was
skipped, reused or built). ``--scale`` is the TPC-H scale of the demo (its default, 0.1);
``--select`` times a part of the graph instead of all of it.

    python -m benchmarks.rerun_bench [--scale SF] [--reruns N] [--select SELECTION] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "rerun.json"
TARGET = 0.20
SUMMARY = re.compile(r"^(?:Runs? .*|No Dagster run needed): (?:SUCCESS|FAILURE) in .*$", re.M)


def timed_run(home: Path, scale: str, selection: str | None) -> dict[str, object]:
    """One ``plumbline run`` into ``home``: its wall and CPU seconds and its summary line.
    SystemExit naming the run's output where it fails."""
    environment = {**os.environ, "PLUMBLINE_HOME": str(home), "PLUMBLINE_SCALE": scale}
    command = [sys.executable, "-m", "pipelines.cli.main", "run"]
    if selection is not None:
        command += ["--select", selection]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO_ROOT, env=environment, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"plumbline run failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = SUMMARY.search(done.stdout)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "summary": summary[0] if summary else "",
    }


def measure(scale: str, reruns: int, selection: str | None) -> dict[str, object]:
    """The first run and ``reruns`` unchanged reruns in one fresh home, and each rerun's
    share of the first run's wall and CPU time."""
    with tempfile.TemporaryDirectory(prefix="plumbline-rerun-bench-") as tmp:
        home = Path(tmp) / "home"
        first = timed_run(home, scale, selection)
        again = [timed_run(home, scale, selection) for _ in range(reruns)]
    for run in again:
        run["wall_share"] = round(float(run["wall_s"]) / float(first["wall_s"]), 4)
        run["cpu_share"] = round(float(run["cpu_s"]) / float(first["cpu_s"]), 4)
    return {
        "scale": scale,
        "selection": selection,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "target_share": TARGET,
        "first": first,
        "reruns": again,
        "met": all(float(run["wall_share"]) <= TARGET for run in again),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="0.1")
    parser.add_argument("--reruns", type=int, default=2)
    parser.add_argument("--select", default=None)
    parser.add_argument("--out", type=Path, default=RESULTS_PATH)
    options = parser.parse_args(argv)
    result = measure(options.scale, options.reruns, options.select)
    first = result["first"]
    print(f"first run: {first['wall_s']:.2f} s wall, {first['cpu_s']:.2f} s CPU")
    for number, run in enumerate(result["reruns"], start=1):  # type: ignore[arg-type]
        print(
            f"rerun {number}: {run['wall_s']:.2f} s wall ({run['wall_share']:.1%}), "
            f"{run['cpu_s']:.2f} s CPU ({run['cpu_share']:.1%}): {run['summary']}"
        )
    print(
        f"target: every rerun at most {TARGET:.0%} of the first run's wall time: "
        + ("met" if result["met"] else "NOT met")
    )
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"results written to {options.out}")
    return result


if __name__ == "__main__":
    main()
