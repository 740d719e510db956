"""Warehouse build benchmark: translated SQL vs hand-written DuckDB, and Spark vs DuckDB.

For every legacy file with a reference query, at one TPC-H scale:
- DuckDB running the translated ANSI SQL (rendered) against DuckDB running the
  independent hand-written reference query, interleaved query by query, best of N, so the
  ratio is measured side by side on the same noisy machine (target <= 1.1);
- Spark (local) running the same translated SQL;
- peak memory of each engine, each measured in a fresh process.

Run: ``python -m benchmarks.warehouse_bench [--scale 0.1] [--repeat 3]`` (``make bench``
runs it at 0.1; ``--scale 1`` for the full run). Results: benchmarks/results/warehouse.json.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).with_name("results")


def _generate(scale: float, root: Path) -> dict[str, Path]:
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES

    lake = Lake(root)
    for table in TPCH_TABLES:
        publish_tpch_table(lake, table, scale)
    return {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}


def _workload() -> list[tuple[str, str, str]]:
    """(name, translated ANSI SQL, reference DuckDB SQL) for every table with a reference."""
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT
    from sql.translate import translate_file

    work = []
    for table in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog())):
        if table.legacy is None or table.reference_path is None:
            continue
        ansi = translate_file(table.legacy.path, table.legacy.dialect).ansi_sql
        work.append((table.name, ansi, table.reference_path.read_text()))
    return work


def _time_queries(lake_root: Path, engine_name: str, repeat: int) -> dict:
    """Seconds per table (best of ``repeat``). For duckdb the reference runs interleaved."""
    from pipelines.lake.store import Lake
    from pipelines.warehouse.engines.base import EngineError
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from pipelines.warehouse.engines.spark_engine import SparkEngine

    inputs = Lake(lake_root).published()
    work = _workload()
    engine = DuckDBEngine() if engine_name == "duckdb" else SparkEngine("local[*]")
    reference_engine = DuckDBEngine()
    failed: dict[str, str] = {}
    translated: dict[str, list[float]] = {name: [] for name, _, _ in work}
    reference: dict[str, list[float]] = {name: [] for name, _, _ in work}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if engine_name == "spark":  # start the JVM outside the timings
            engine.session()
        for round_ in range(repeat):
            for name, ansi, ref in work:
                if name in failed:
                    continue
                target = out / f"{engine_name}-{name}-{round_}"
                started = time.perf_counter()
                try:
                    engine.build(ansi, inputs, target, file=name)
                except EngineError as exc:  # reported, not timed: a portability failure
                    failed[name] = str(exc).splitlines()[0][:300]
                    continue
                translated[name].append(time.perf_counter() - started)
                if engine_name == "duckdb":
                    started = time.perf_counter()
                    reference_engine.build_duckdb(
                        ref, inputs, out / f"ref-{name}-{round_}", file=name
                    )
                    reference[name].append(time.perf_counter() - started)
    result = {"translated": {k: min(v) for k, v in translated.items() if v}, "failed": failed}
    if engine_name == "duckdb":
        result["reference"] = {k: min(v) for k, v in reference.items()}
    if engine_name == "spark":
        proc = engine.session().sparkContext._gateway.proc  # the local JVM
        status = Path(f"/proc/{proc.pid}/status").read_text()
        hwm_kb = next(
            int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM")
        )
        result["jvm_peak_rss_mb"] = hwm_kb / 1024
        engine.stop()
    result["python_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def _in_fresh_process(lake_root: Path, engine_name: str, repeat: int) -> dict:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.warehouse_bench",
            "--worker",
            engine_name,
            "--lake",
            str(lake_root),
            "--repeat",
            str(repeat),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{engine_name} benchmark worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", choices=["duckdb", "spark"], help=argparse.SUPPRESS)
    parser.add_argument("--lake", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--skip-spark", action="store_true", help="DuckDB only (fast).")
    args = parser.parse_args(argv)

    if args.worker:  # a child: time one engine and print JSON
        print(json.dumps(_time_queries(args.lake, args.worker, args.repeat)))
        return {}

    with tempfile.TemporaryDirectory(prefix="plumbline-bench-") as tmp:
        lake_root = Path(tmp) / "lake"
        started = time.perf_counter()
        _generate(args.scale, lake_root)
        generate_seconds = time.perf_counter() - started
        duck = _in_fresh_process(lake_root, "duckdb", args.repeat)
        spark = None if args.skip_spark else _in_fresh_process(lake_root, "spark", args.repeat)

    duck_total = sum(duck["translated"].values())
    ref_total = sum(duck["reference"].values())
    results = {
        "scale": args.scale,
        "repeat": args.repeat,
        "tables": len(duck["translated"]),
        "generate_seconds": round(generate_seconds, 2),
        "duckdb_translated_seconds": round(duck_total, 3),
        "duckdb_reference_seconds": round(ref_total, 3),
        "translated_over_reference": round(duck_total / ref_total, 3),
        "translated_over_reference_median_per_table": round(
            statistics.median(
                duck["translated"][t] / duck["reference"][t] for t in duck["translated"]
            ),
            3,
        ),
        "duckdb_peak_rss_mb": round(duck["python_peak_rss_mb"], 1),
        "per_table_seconds": {
            t: {
                "translated": round(duck["translated"][t], 4),
                "reference": round(duck["reference"][t], 4),
            }
            for t in sorted(duck["translated"])
        },
    }
    if spark is not None:
        # Compared over the tables both engines built.
        common = sorted(spark["translated"])
        spark_total = sum(spark["translated"][t] for t in common)
        duck_common = sum(duck["translated"][t] for t in common)
        results |= {
            "spark_tables": len(common),
            "spark_failed_tables": spark["failed"],
            "spark_local_seconds": round(spark_total, 3),
            "spark_over_duckdb": round(spark_total / duck_common, 2),
            "spark_jvm_peak_rss_mb": round(spark["jvm_peak_rss_mb"], 1),
            "spark_python_peak_rss_mb": round(spark["python_peak_rss_mb"], 1),
        }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "warehouse.json").write_text(json.dumps(results, indent=2))
    print(
        f"warehouse build, TPC-H scale {args.scale:g}, {results['tables']} tables, best of {args.repeat}"
    )
    print(
        f"  DuckDB, translated SQL      {duck_total:8.3f} s   peak RSS {results['duckdb_peak_rss_mb']:.0f} MB"
    )
    print(f"  DuckDB, hand-written SQL    {ref_total:8.3f} s")
    print(
        f"  ratio translated/reference  {results['translated_over_reference']:8.3f}   (target <= 1.1)"
    )
    if spark is not None:
        print(
            f"  Spark local, translated SQL {results['spark_local_seconds']:8.3f} s   "
            f"JVM peak RSS {results['spark_jvm_peak_rss_mb']:.0f} MB   "
            f"({results['spark_over_duckdb']}x DuckDB on the {len(common)} tables both built)"
        )
        for name, error in spark["failed"].items():
            print(f"  Spark could not build {name}: {error}")
    print(f"  results: {RESULTS / 'warehouse.json'}")
    return results


if __name__ == "__main__":
    main()
