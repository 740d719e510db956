"""How long the Dagster code location takes to load: importing ``pipelines.definitions`` and
building ``defs()``, what "Reload definitions" and every run's process pay.

Each load runs in a fresh process (``python -m benchmarks.load_bench --child``), timed
inside it, with the legacy dependency cache cold (a new ``$PLUMBLINE_HOME``) and then warm
(the same home again); best of ``--rounds``. Two trees: the repository's ``sql/legacy``,
and ``--files`` legacy files generated from it (each repository file copied round-robin
under a new name, ``t_0001.sql``, ...: it then defines its own table, ``t_0001``, and reads
the same catalog tables), given to the load through ``PLUMBLINE_LEGACY_ROOT``. Each load
also reports which heavy modules it imported and how many translations it stored (both
should be none). Targets on a 2-vCPU VM: ``REPOSITORY_TARGET`` and ``GENERATED_TARGET``
seconds, import and build together.

    python -m benchmarks.load_bench [--files N] [--rounds N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

# Only the standard library above: the child times its own imports.

REPO_ROOT = Path(__file__).resolve().parent.parent
LEGACY_ROOT = REPO_ROOT / "sql" / "legacy"
RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "load.json"
FILES = 2000
ROUNDS = 3
REPOSITORY_TARGET = 1.5
GENERATED_TARGET = 10.0
# What a load must not import: each costs from a fraction of a second to seconds.
HEAVY_MODULES = ("great_expectations", "pyspark", "torch", "mlflow", "duckdb", "sklearn")


@dataclass(frozen=True)
class Load:
    """One load in a fresh process."""

    import_seconds: float  # import pipelines.definitions
    build_seconds: float  # defs()
    total_seconds: float
    assets: int
    heavy_modules: list[str]  # those of HEAVY_MODULES the load imported
    stored_translations: int  # files in the ansi store afterwards


@dataclass(frozen=True)
class TreeLoad:
    tree: str
    files: int
    cold: Load  # best of the rounds, each with a new home
    warm: Load  # best of the second loads, each in the home its cold load made
    target_seconds: float
    within_target: bool  # cold and warm


@dataclass(frozen=True)
class LoadBenchmark:
    loads: list[TreeLoad]
    rounds: int
    python: str
    machine: str
    cpus: int


def generate_tree(root: Path, files: int) -> Path:
    """``files`` legacy files under ``root``: the repository's, copied round-robin as
    ``<dialect>/t_<n>.sql``. Every repository file defines one table, which a single-table
    file names after itself, so each copy defines its own table."""
    sources = sorted(LEGACY_ROOT.glob("*/*.sql"))
    width = max(4, len(str(files)))
    for n in range(files):
        source = sources[n % len(sources)]
        target = root / source.parent.name / f"t_{n + 1:0{width}d}.sql"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return root


def child() -> None:
    """Load the code location as Dagster does and print the measurements as JSON."""
    started = time.perf_counter()
    import pipelines.definitions

    imported = time.perf_counter()
    defs = pipelines.definitions.defs()
    built = time.perf_counter()
    from pipelines.settings import Settings

    ansi_root = Settings.from_env().ansi_root
    load = Load(
        import_seconds=imported - started,
        build_seconds=built - imported,
        total_seconds=built - started,
        assets=len(defs.resolve_asset_graph().get_all_asset_keys()),
        heavy_modules=[name for name in HEAVY_MODULES if name in sys.modules],
        stored_translations=len(list(ansi_root.iterdir())) if ansi_root.is_dir() else 0,
    )
    print(json.dumps(asdict(load)))


def load_once(home: Path, legacy_root: Path) -> Load:
    env = {**os.environ, "PLUMBLINE_HOME": str(home), "PLUMBLINE_LEGACY_ROOT": str(legacy_root)}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.load_bench", "--child"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"loading the definitions failed:\n{done.stderr[-4000:]}")
    return Load(**json.loads(done.stdout.strip().splitlines()[-1]))


def tree_load(tree: str, legacy_root: Path, rounds: int, target: float, scratch: Path) -> TreeLoad:
    cold: list[Load] = []
    warm: list[Load] = []
    for round_ in range(rounds):
        home = Path(tempfile.mkdtemp(prefix=f"home-{round_}-", dir=scratch))
        cold.append(load_once(home, legacy_root))
        warm.append(load_once(home, legacy_root))

    def best(loads: list[Load]) -> Load:
        return min(loads, key=lambda load: load.total_seconds)

    files = len(list(legacy_root.glob("*/*.sql")))
    slowest = max(best(cold).total_seconds, best(warm).total_seconds)
    return TreeLoad(tree, files, best(cold), best(warm), target, slowest <= target)


def run(files: int = FILES, rounds: int = ROUNDS, repository: bool = True) -> LoadBenchmark:
    """The repository's tree (unless ``repository`` is false) and a generated tree of
    ``files`` files (none for 0)."""
    loads = []
    with tempfile.TemporaryDirectory() as scratch:
        if repository:
            loads.append(
                tree_load("repository", LEGACY_ROOT, rounds, REPOSITORY_TARGET, Path(scratch))
            )
        if files:
            generated = generate_tree(Path(scratch) / "legacy", files)
            loads.append(tree_load("generated", generated, rounds, GENERATED_TARGET, Path(scratch)))
    return LoadBenchmark(
        loads=loads,
        rounds=rounds,
        python=platform.python_version(),
        machine=f"{platform.machine()} {platform.processor()}".strip(),
        cpus=os.cpu_count() or 1,
    )


def summary(result: LoadBenchmark) -> str:
    lines = [f"code location load, fresh processes, best of {result.rounds}"]
    for load in result.loads:
        verdict = "within" if load.within_target else "ABOVE"
        lines.append(
            f"  {load.tree} ({load.files} files, {load.cold.assets} assets; "
            f"{verdict} the {load.target_seconds:g} s target):"
        )
        for cache, measured in (("cold", load.cold), ("warm", load.warm)):
            lines.append(
                f"    {cache} cache: {measured.total_seconds:5.2f} s "
                f"(import {measured.import_seconds:.2f} s, defs() {measured.build_seconds:.2f} s)"
                f"; heavy modules: {', '.join(measured.heavy_modules) or 'none'}"
                f"; translations stored: {measured.stored_translations}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load_bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--files", type=int, default=FILES, help="generated tree (0: none)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"best of N ({ROUNDS})")
    parser.add_argument("--out", type=Path, default=RESULTS_PATH)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child()
        return
    result = run(args.files, args.rounds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(asdict(result), indent=2) + "\n")
    print(summary(result))
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
