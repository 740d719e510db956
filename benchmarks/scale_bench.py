"""Scale benchmark: the demo's data path at one TPC-H scale, in a fresh home, step by step.

``python -m benchmarks scale --scale 1`` (or ``--scale 10``) runs ``plumbline run`` over the
data path, raw -> ansi -> warehouse with every contract and reconciliation check and no
model (``--select`` of the legacy, raw, ansi and warehouse groups), as a user would, into a
new ``PLUMBLINE_HOME`` under ``--home-parent`` (removed afterwards unless ``--keep``). Then it
reads back what each step measured of itself from its materialization (pipelines.step_usage:
wall seconds, CPU seconds, peak RSS; a warehouse table's build, validate and reconcile
seconds) and writes ``benchmarks/results/scale-<SF>.json``:

- per step: wall and CPU seconds, peak RSS, rows; per warehouse table the ratios
  ``reconcile / build`` and ``validate / build`` (build: the engine writing the table);
- the run: wall time, CPU time of the command and its children, the largest process's peak
  RSS, the load average before and after (the machine is shared: say what it was);
- the fixed cost of a step: the median step of a table of at most 1,000 rows;
- the translation pool (issue 43, item 6): a tree of ``--pool-files`` legacy files translated
  on one core and on a pool of every core, and what ``translate_sources`` chose at that load;
- with ``--peers``, the same contract on the same table through ``datacontract-cli test``
  (benchmarks/peers.py) and through plumbline, timed side by side, verdicts compared;
- where ``benchmarks.reconcile_bench.compare`` exists, the largest reconciled tables through
  plumbline's reconciliation and through a plain DuckDB ``EXCEPT ALL`` of the two tables.

Run it under ``nice`` on a shared machine; SF10 needs ~15 GB of disk under the home.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")
# The data path: every legacy file observed, the raw tables, their translations and the
# warehouse tables with their blocking checks; not the model, its registration, scores or
# audit.
SELECTION = "group:legacy or group:raw or group:ansi or group:warehouse"
# A table this small is all fixed cost (issue 43's target: <= 3 s a step).
SMALL_TABLE_ROWS = 1_000
METADATA = {
    "step_seconds": "step_s",
    "step_cpu_seconds": "cpu_s",
    "peak_rss_mb": "peak_rss_mb",
    "dagster/row_count": "rows",
    "build_seconds": "build_s",
    "validate_seconds": "validate_s",
    "reconcile_seconds": "reconcile_s",
}


def _plumbline() -> str:
    return str(Path(sys.executable).with_name("plumbline"))


def _children_usage() -> tuple[float, int]:
    """CPU seconds of the children waited for, and the largest one's peak RSS in bytes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def run_data_path(home: Path, scale: float) -> dict[str, Any]:
    """``plumbline run --scale SF --select <the data path>`` into ``home``, timed."""
    env = {**os.environ, "PLUMBLINE_HOME": str(home)}
    cpu_before, _ = _children_usage()
    load_before = os.getloadavg()
    started = time.perf_counter()
    log = home.parent / f"{home.name}-run.out"
    with log.open("w") as out:
        process = subprocess.run(
            [_plumbline(), "run", "--scale", f"{scale:g}", "--select", SELECTION],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    wall = time.perf_counter() - started
    cpu_after, largest = _children_usage()
    text = log.read_text()
    return {
        "exit_code": process.returncode,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu_after - cpu_before, 1),
        "largest_process_peak_rss_mb": round(largest / 2**20),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "summary": text[text.rfind("\nasset ") :].strip() if "\nasset " in text else text[-4000:],
    }


def step_measures(home: Path) -> dict[str, dict[str, Any]]:
    """What each asset's latest materialization in ``home`` says it cost."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        steps = {}
        for key in instance.get_asset_keys():
            event = instance.get_latest_materialization_event(key)
            if event is None or event.asset_materialization is None:
                continue
            metadata = event.asset_materialization.metadata
            measured = {
                short: metadata[name].value for name, short in METADATA.items() if name in metadata
            }
            if measured:
                steps[key.to_user_string()] = measured
    return steps


def ratios(steps: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per warehouse table: reconcile / build and validate / build."""
    tables = {}
    for name, step in sorted(steps.items()):
        build = step.get("build_s")
        if not name.startswith("warehouse/") or not build:
            continue
        tables[name.removeprefix("warehouse/")] = {
            "rows": step.get("rows"),
            "build_s": build,
            "validate_s": step.get("validate_s"),
            "reconcile_s": step.get("reconcile_s"),
            "validate_over_build": _ratio(step.get("validate_s"), build),
            "reconcile_over_build": _ratio(step.get("reconcile_s"), build),
            "step_s": step.get("step_s"),
            "peak_rss_mb": step.get("peak_rss_mb"),
        }
    return tables


def _ratio(part: float | None, whole: float) -> float | None:
    return None if part is None else round(part / whole, 3)


def fixed_cost(steps: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What a step costs whatever its data: the median step of a small table, and of every
    warehouse step the part that is neither the build nor a check (planning, pinning
    inputs, stats and digests of the staged files, publishing, Dagster's own work)."""
    small = {
        name: step["step_s"]
        for name, step in steps.items()
        if step.get("rows") is not None and step["rows"] <= SMALL_TABLE_ROWS and "step_s" in step
    }
    overhead = {
        name: round(
            step["step_s"]
            - step["build_s"]
            - (step.get("validate_s") or 0)
            - (step.get("reconcile_s") or 0),
            3,
        )
        for name, step in steps.items()
        if "step_s" in step and "build_s" in step
    }
    if not small:
        return {}
    worst = max(small, key=small.__getitem__)
    cost: dict[str, Any] = {
        "tables": len(small),
        "median_step_s": round(statistics.median(small.values()), 3),
        "worst": {worst: small[worst]},
        "target_s": 3.0,
    }
    if overhead:
        heaviest = max(overhead, key=overhead.__getitem__)
        cost["median_step_overhead_s"] = round(statistics.median(overhead.values()), 3)
        cost["worst_step_overhead"] = {heaviest: overhead[heaviest]}
    return cost


def translation_pool(files: int) -> dict[str, Any]:
    """A tree of ``files`` legacy files on one core and on a pool of every core, and what the
    default chose at the load of the moment (benchmarks.translate_bench.tree_load)."""
    from dataclasses import asdict

    from benchmarks.translate_bench import synthetic_tree, tree_load

    with tempfile.TemporaryDirectory(prefix="plumbline-pool-") as tmp:
        return asdict(tree_load(synthetic_tree(Path(tmp), files), rounds=1))


def reconcile_baseline(home: Path, steps: dict[str, dict[str, Any]], tables: int) -> dict:
    """Every reconciled table's reconciliation split in two, after the run, one table at a
    time: its reference query run alone and written (``reference_s``: the legacy side's
    work, which the ``<table>_reconciled`` check pays inside ``reconcile_s`` because the
    demo's legacy output is a query) and plumbline's reconciliation against that written
    result (``compare_s``: what reconciling against a legacy export costs), each over the
    table's ``build_s``. The ``tables`` largest also through a plain ``EXCEPT ALL``
    (benchmarks.reconcile_bench.compare), and the largest with one value changed."""
    try:
        from benchmarks import reconcile_bench
    except ImportError:
        return {"skipped": "benchmarks/reconcile_bench.py is not in this tree"}
    compare = getattr(reconcile_bench, "compare", None)
    if compare is None:
        return {"skipped": "benchmarks.reconcile_bench has no compare()"}
    from pipelines.lake.duckdb_limits import DuckDBLimits, set_limits
    from pipelines.lake.store import Lake
    from pipelines.settings import DEFAULT_DUCKDB_MEMORY_LIMIT
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from pipelines.warehouse.reconcile import reconcile
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    # The run's DuckDB limit for this process's connections too (the reference queries, the
    # reconciliation, the changed copy) and for the naive EXCEPT ALL beside it: DuckDB's own
    # default is 80 % of the machine per database (at SF10 EXCEPT ALL grew past 12 GB).
    memory_limit = os.environ.get("PLUMBLINE_DUCKDB_MEMORY_LIMIT") or DEFAULT_DUCKDB_MEMORY_LIMIT
    set_limits(DuckDBLimits(memory_limit=memory_limit, spill_root=home / "spill"))
    lake = Lake(home / "lake")
    reconciled = {
        t.name: t
        for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))
        if t.reference_path is not None and f"warehouse/{t.name}" in steps
    }
    by_rows = sorted(reconciled, key=lambda n: -(steps[f"warehouse/{n}"].get("rows") or 0))
    compared: dict[str, Any] = {}
    split: dict[str, Any] = {}
    for name in by_rows:
        table = reconciled[name]
        inputs = {
            key: lake.current(*key.split(".", 1)).path
            for key in table.reads
            if lake.current(*key.split(".", 1)) is not None
        }
        reference = home / "reference" / name
        started = time.perf_counter()
        DuckDBEngine().build_duckdb(
            table.reference_path.read_text(), inputs, reference, file=str(table.reference_path)
        )
        reference_s = time.perf_counter() - started
        built = lake.current("warehouse", name).path
        # Best of two: the first also pays for reading the files into the page cache.
        compare_s, result = reconcile_bench._best(
            lambda: reconcile(built, reference, scratch=home / "reconcile-scratch"),  # noqa: B023
            2,
        )
        build = steps[f"warehouse/{name}"].get("build_s")
        split[name] = {
            "rows": steps[f"warehouse/{name}"].get("rows"),
            "build_s": build,
            "reference_s": round(reference_s, 3),
            "compare_s": round(compare_s, 3),
            "compare_over_build": _ratio(compare_s, build) if build else None,
            "passed": result.passed,
        }
        if len(compared) < tables:
            compared[name] = compare(built, reference, memory_limit=memory_limit)
    if by_rows:
        compared["changed_value"] = changed_value(
            lake.current("warehouse", by_rows[0]).path, home / "reference" / by_rows[0], home
        )
    measured = [
        t["compare_over_build"] for t in split.values() if t["compare_over_build"] is not None
    ]
    compared["against_written_reference"] = {
        "tables": split,
        "compare_over_build_whole": _ratio(
            sum(t["compare_s"] for t in split.values()),
            sum(t["build_s"] or 0 for t in split.values()),
        )
        if split
        else None,
        "tables_within_half_a_build": sum(1 for r in measured if r <= 0.5),
        "tables_measured": len(measured),
    }
    return compared


def changed_value(built: Path, reference: Path, home: Path) -> dict[str, Any]:
    """The largest table against its reference with one value changed (one row's
    ``reconcile_bench.CHANGED_COLUMN``, the row in the middle): it must be caught, and the
    column and the row on each side named."""
    from benchmarks.reconcile_bench import CHANGED_COLUMN, _changed_copy
    from pipelines.warehouse.reconcile import reconcile

    changed = home / "reference-changed.parquet"
    _changed_copy(reference, changed)
    started = time.perf_counter()
    result = reconcile(built, changed, scratch=home / "reconcile-scratch")
    seconds = time.perf_counter() - started
    return {
        "rows": result.actual_rows,
        "column": CHANGED_COLUMN,
        "seconds": round(seconds, 3),
        "caught": not result.passed,
        "unmatched": [result.only_in_table, result.only_in_reference],
        "columns_differing": result.columns_differing,
        "named_row_in_table": result.sample_only_in_table[:1],
        "named_row_in_reference": result.sample_only_in_reference[:1],
        "compared_by": result.compared_by,
    }


def run(
    scale: float,
    home_parent: Path,
    *,
    keep: bool = False,
    pool_files: int = 400,
    peers: bool = False,
    peer_rounds: int = 3,
    reconcile_tables: int = 3,
) -> dict[str, Any]:
    home_parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix=f"scale-{scale:g}-", dir=home_parent))
    try:
        run_result = run_data_path(home, scale)
        steps = step_measures(home)
        tables = ratios(steps)
        report: dict[str, Any] = {
            "scale": scale,
            "cores": len(os.sched_getaffinity(0)),
            "run": run_result,
            "steps": steps,
            "tables": tables,
            "largest_step_peak_rss_mb": max(
                (s.get("peak_rss_mb", 0) for s in steps.values()), default=None
            ),
            "worst_reconcile_over_build": _worst(tables, "reconcile_over_build"),
            "worst_validate_over_build": _worst(tables, "validate_over_build"),
            "validate_over_build_whole": _whole(tables, "validate_s"),
            "reconcile_over_build_whole": _whole(tables, "reconcile_s"),
            "fixed_cost": fixed_cost(steps),
        }
        if run_result["exit_code"] == 0:
            report["reconcile_baseline"] = reconcile_baseline(home, steps, reconcile_tables)
            if peers:
                from benchmarks.peers import compare_contract_tools

                report["peers"] = compare_contract_tools(home, "delay_features", peer_rounds)
    finally:
        if not keep:
            shutil.rmtree(home, ignore_errors=True)
    if pool_files:
        report["translation_pool"] = translation_pool(pool_files)
    report["home"] = str(home) if keep else None
    return report


def _worst(tables: dict[str, dict[str, Any]], key: str) -> dict[str, Any] | None:
    measured = {name: t[key] for name, t in tables.items() if t.get(key) is not None}
    if not measured:
        return None
    worst = max(measured, key=measured.__getitem__)
    return {worst: measured[worst]}


def _whole(tables: dict[str, dict[str, Any]], key: str) -> float | None:
    build = sum(t["build_s"] for t in tables.values() if t.get(key) is not None)
    part = sum(t[key] for t in tables.values() if t.get(key) is not None)
    return round(part / build, 3) if build else None


def summary(report: dict[str, Any]) -> str:
    run_result = report["run"]
    lines = [
        f"scale {report['scale']:g}: data path exit {run_result['exit_code']} in "
        f"{run_result['wall_s']:.0f} s wall, {run_result['cpu_s']:.0f} s CPU on "
        f"{report['cores']} cores (load {run_result['load_average_before'][0]:.1f} -> "
        f"{run_result['load_average_after'][0]:.1f}); largest step peak RSS "
        f"{report['largest_step_peak_rss_mb']} MB, largest process "
        f"{run_result['largest_process_peak_rss_mb']} MB",
        f"  validate / build: whole {report['validate_over_build_whole']}, worst "
        f"{report['worst_validate_over_build']}",
        f"  reconcile / build: whole {report['reconcile_over_build_whole']}, worst "
        f"{report['worst_reconcile_over_build']}",
        f"  fixed cost of a step (tables <= {SMALL_TABLE_ROWS:,} rows): {report['fixed_cost']}",
    ]
    pool = report.get("translation_pool")
    if pool:
        lines.append(
            f"  translation of {pool['files']} files: {pool['serial_seconds']} s on one core, "
            f"{pool['parallel_seconds']} s on {pool['workers']}; the default "
            f"{'used the pool' if pool['default_uses_pool'] else 'stayed on one core'} "
            f"(load {pool['load_average']}, {pool['free_cores']} free)"
        )
    if "peers" in report:
        lines.append(f"  contracts against datacontract-cli: {report['peers']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--home-parent", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the home afterwards")
    parser.add_argument("--pool-files", type=int, default=400, help="0: no translation pool")
    parser.add_argument(
        "--peers", action="store_true", help="also datacontract-cli (installs it once)"
    )
    parser.add_argument("--peer-rounds", type=int, default=3)
    parser.add_argument("--reconcile-tables", type=int, default=3)
    args = parser.parse_args(argv)
    report = run(
        args.scale,
        args.home_parent,
        keep=args.keep,
        pool_files=args.pool_files,
        peers=args.peers,
        peer_rounds=args.peer_rounds,
        reconcile_tables=args.reconcile_tables,
    )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"scale-{args.scale:g}.json"
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(summary(report))
    print(f"results written to {out}")
    return report


if __name__ == "__main__":
    main()
