"""Contract validation benchmark: one scan on DuckDB vs GX on DuckDB vs GX on pandas vs the build.

Warehouse: every warehouse table with a contract in ``sql/contracts/`` is built on DuckDB
from its SQL, then validated against its contract three times, side by side in one run (best
of N each): ``validate_parquet`` (the one-scan validation, scan.py, the asset checks' path),
``validate_parquet_gx`` (GX's SQL execution engine inside DuckDB, the path it replaced) and
the pandas path (read the Parquet into Arrow, ``validate_arrow``).
Targets: validation / build <= 0.5 for the whole warehouse and <= 1.0 for every table. Both
paths must give the same verdict per expectation. For the five largest tables, each of
build, validation and pandas validation also runs alone in a fresh process, which reports
its peak RSS growth over its RSS once everything is imported (target for ``delay_features``:
validation's growth <= 1.5x the build's).

Lineitem: at one TPC-H scale, generates lineitem with tpchgen-cli, writes an ODCS contract
for it, and times (best of N) ``validate_parquet``, ``validate_parquet_gx``, ``validate_arrow``
on the table read into Arrow, and one DuckDB query computing the same statistics (row count, null counts,
key duplicates, out-of-range and out-of-set counts).

Run: ``python -m benchmarks.contracts_bench [--scale 0.1] [--repeat 3]``.
Results: benchmarks/results/contracts.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import yaml

RESULTS = Path(__file__).with_name("results")

SHIP_MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
SHIP_INSTRUCTIONS = ["COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"]


def _column(name: str, logical: str, physical: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "logicalType": logical,
        "physicalType": physical,
        "required": True,
        **extra,
    }


def enum(values: list[str]) -> list[dict[str, str]]:
    return [{"value": value} for value in values]


def lineitem_contract(scale: float) -> dict[str, Any]:
    """An ODCS v3 contract holding TPC-H's documented lineitem domain."""
    rows = round(6_001_215 * scale)
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "urn:plumbline:bench:lineitem",
        "version": "1.0.0",
        "team": {"name": "benchmarks"},
        "schema": [
            {
                "name": "lineitem",
                "logicalType": "object",
                "quality": [
                    {
                        "metric": "rowCount",
                        "mustBeBetween": [int(rows * 0.9), int(rows * 1.1) + 10],
                    }
                ],
                "properties": [
                    _column(
                        "l_orderkey", "integer", "BIGINT", primaryKey=True, primaryKeyPosition=1
                    ),
                    _column("l_partkey", "integer", "BIGINT", logicalTypeOptions={"minimum": 1}),
                    _column("l_suppkey", "integer", "BIGINT", logicalTypeOptions={"minimum": 1}),
                    _column(
                        "l_linenumber",
                        "integer",
                        "INTEGER",
                        primaryKey=True,
                        primaryKeyPosition=2,
                        logicalTypeOptions={"minimum": 1, "maximum": 7},
                    ),
                    _column(
                        "l_quantity",
                        "number",
                        "DECIMAL(15,2)",
                        logicalTypeOptions={"minimum": 1, "maximum": 50},
                    ),
                    _column(
                        "l_extendedprice",
                        "number",
                        "DECIMAL(15,2)",
                        logicalTypeOptions={"exclusiveMinimum": 0},
                    ),
                    _column(
                        "l_discount",
                        "number",
                        "DECIMAL(15,2)",
                        logicalTypeOptions={"minimum": 0, "maximum": 0.1},
                    ),
                    _column(
                        "l_tax",
                        "number",
                        "DECIMAL(15,2)",
                        logicalTypeOptions={"minimum": 0, "maximum": 0.08},
                    ),
                    _column("l_returnflag", "string", "VARCHAR", enum=enum(["A", "N", "R"])),
                    _column("l_linestatus", "string", "VARCHAR", enum=enum(["F", "O"])),
                    _column(
                        "l_shipdate",
                        "date",
                        "DATE",
                        logicalTypeOptions={"minimum": "1992-01-01", "maximum": "1998-12-31"},
                    ),
                    _column("l_commitdate", "date", "DATE"),
                    _column("l_receiptdate", "date", "DATE"),
                    _column("l_shipinstruct", "string", "VARCHAR", enum=enum(SHIP_INSTRUCTIONS)),
                    _column("l_shipmode", "string", "VARCHAR", enum=enum(SHIP_MODES)),
                    _column("l_comment", "string", "VARCHAR", logicalTypeOptions={"maxLength": 44}),
                ],
            }
        ],
    }


def _statistics_query(contract) -> str:
    """One aggregate query computing what the suite checks, built as a sqlglot AST."""
    from sqlglot import exp

    def count_if(condition: exp.Expression, alias: str) -> exp.Expression:
        return exp.alias_(exp.func("count_if", condition), alias)

    selects: list[exp.Expression] = [exp.alias_(exp.Count(this=exp.Star()), "row_count")]
    key = exp.Tuple(expressions=[exp.column(name) for name in contract.primary_key])
    selects.append(
        exp.alias_(
            exp.Sub(
                this=exp.Count(this=exp.Star()),
                expression=exp.Count(this=exp.Distinct(expressions=[key])),
            ),
            "key_duplicates",
        )
    )
    for column in contract.columns:
        ref = exp.column(column.name)
        if column.required:
            selects.append(
                count_if(exp.Is(this=ref, expression=exp.Null()), f"{column.name}_nulls")
            )
        if column.minimum is not None:
            compare = exp.LTE if column.strict_minimum else exp.LT
            selects.append(
                count_if(
                    compare(this=ref, expression=exp.convert(column.minimum)), f"{column.name}_low"
                )
            )
        if column.maximum is not None:
            selects.append(
                count_if(
                    exp.GT(this=ref, expression=exp.convert(column.maximum)), f"{column.name}_high"
                )
            )
        if column.max_length is not None:
            length = exp.Length(this=ref)
            selects.append(
                count_if(
                    exp.GT(this=length, expression=exp.convert(column.max_length)),
                    f"{column.name}_long",
                )
            )
        if column.allowed_values is not None:
            inside = exp.In(this=ref, expressions=[exp.convert(v) for v in column.allowed_values])
            selects.append(count_if(exp.Not(this=inside), f"{column.name}_outside"))
    return exp.select(*selects).from_("lineitem").sql(dialect="duckdb")


def _best(function, repeat: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - started)
    return best, value


def _verdicts(result) -> list[tuple[str, bool]]:
    return [(outcome.name, outcome.passed) for outcome in result.outcomes]


def run(scale: float, repeat: int) -> dict[str, Any]:
    import duckdb

    from pipelines.contracts import (
        Masker,
        compile_contract,
        load_contract,
        validate_arrow,
        validate_parquet,
    )
    from pipelines.contracts.validate import validate_parquet_gx

    # A failing row of a restricted column is masked, as in the asset checks (any key will do).
    masker = Masker(b"benchmark")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tpchgen = Path(sys.executable).with_name("tpchgen-cli")
        started = time.perf_counter()
        subprocess.run(
            [str(tpchgen), "parquet", "-s", str(scale), "-T", "lineitem", "-o", str(root / "tpch")],
            check=True,
            capture_output=True,
        )
        generate_s = time.perf_counter() - started
        contract_path = root / "lineitem.yaml"
        contract_path.write_text(yaml.safe_dump(lineitem_contract(scale), sort_keys=False))
        compiled = compile_contract(load_contract(contract_path))
        parquet = root / "tpch" / "lineitem.parquet"

        scan_s, scan_result = _best(lambda: validate_parquet(compiled, parquet, masker), repeat)
        sql_s, result = _best(lambda: validate_parquet_gx(compiled, parquet, masker), repeat)
        read_s, table = _best(lambda: pq.read_table(parquet), repeat)
        pandas_s, pandas_result = _best(lambda: validate_arrow(compiled, table, masker), repeat)
        query = _statistics_query(compiled.contract)

        def statistics() -> dict[str, Any]:
            with duckdb.connect() as connection:
                connection.register("lineitem", table)
                cursor = connection.execute(query)
                names = [description[0] for description in cursor.description]
                return dict(zip(names, cursor.fetchone(), strict=True))

        duckdb_s, stats = _best(statistics, repeat)
    violations = {name: value for name, value in stats.items() if name != "row_count" and value}
    return {
        "scale": scale,
        "rows": table.num_rows,
        "repeat": repeat,
        "expectations": len(compiled.expectations),
        "generate_s": round(generate_s, 3),
        "scan_validate_s": round(scan_s, 4),
        "gx_duckdb_validate_s": round(sql_s, 4),
        "scan_same_result_as_gx": scan_result == result,
        "arrow_read_s": round(read_s, 4),
        "gx_pandas_validate_s": round(pandas_s, 4),
        "duckdb_statistics_s": round(duckdb_s, 4),
        "scan_over_duckdb": round(scan_s / duckdb_s, 1),
        "gx_duckdb_over_duckdb": round(sql_s / duckdb_s, 1),
        "gx_pandas_over_duckdb": round(pandas_s / duckdb_s, 1),
        "same_verdicts": _verdicts(result) == _verdicts(pandas_result),
        "gx_passed": result.passed,
        "duckdb_passed": not violations,
        "failed_expectations": [o.name for o in result.outcomes if not o.passed],
        "duckdb_violations": violations,
    }


# What a memory child process does: build the table, or validate it on one path.
MEMORY_KINDS = ("build", "validate", "validate_pandas")


def _peak_rss() -> int:
    """This process's peak RSS in bytes since the last :func:`_reset_peak_rss` (Linux's
    VmHWM; ``ru_maxrss`` elsewhere, which cannot be reset)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _reset_peak_rss() -> None:
    clear_refs = Path("/proc/self/clear_refs")
    if clear_refs.exists():
        clear_refs.write_text("5")  # resets VmHWM to the current RSS


def memory_child(kind: str, table_name: str, inputs: dict[str, str], out: Path) -> dict[str, Any]:
    """In a fresh process: import what ``kind`` needs, note the RSS, do it once, and report
    the peak RSS during the work and its growth over the RSS before it."""
    if kind == "validate_pandas":
        import great_expectations  # noqa: F401  (imported before the baseline, as in a step)
        import pandas  # noqa: F401
    import psutil
    import sqlalchemy  # noqa: F401

    from pipelines.contracts import Masker, compile_contract, load_contract
    from pipelines.contracts.validate import validate_arrow, validate_parquet
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    table = {t.name: t for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))}[
        table_name
    ]
    compiled = compile_contract(load_contract(table.contract_path))
    sql = warehouse_sql(table)
    reads = {key: Path(inputs[key]) for key in table.reads}
    baseline = psutil.Process().memory_info().rss
    _reset_peak_rss()
    started = time.perf_counter()
    if kind == "build":
        with tempfile.TemporaryDirectory() as scratch:
            DuckDBEngine().build(sql, reads, Path(scratch) / table_name, file=table_name)
    elif kind == "validate":
        validate_parquet(compiled, out, Masker(b"benchmark"))
    else:
        validate_arrow(compiled, pq.read_table(out), Masker(b"benchmark"))
    seconds = time.perf_counter() - started
    peak = _peak_rss()
    return {
        "seconds": round(seconds, 3),
        "baseline_mb": round(baseline / 2**20, 1),
        "peak_mb": round(peak / 2**20, 1),
        "growth_mb": round(max(0, peak - baseline) / 2**20, 1),
    }


def _memory(table: str, inputs: dict[str, Path], out: Path) -> dict[str, Any]:
    measured = {}
    for kind in MEMORY_KINDS:
        command = [
            sys.executable,
            "-m",
            "benchmarks.contracts_bench",
            "--memory-child",
            kind,
            "--table",
            table,
            "--inputs",
            json.dumps({k: str(v) for k, v in inputs.items()}),
            "--out",
            str(out),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"memory child {kind} {table} failed:\n{proc.stderr[-2000:]}")
        measured[kind] = json.loads(proc.stdout.strip().splitlines()[-1])
    return measured


def run_warehouse(
    scale: float, repeat: int, memory_tables: int = 5, pandas_repeat: int = 1
) -> dict[str, Any]:
    """Every warehouse table with its real contract: build on DuckDB, then validate the built
    table on both paths (best of ``repeat`` each, side by side); ratios over build time."""
    import shutil

    from pipelines.contracts import (
        Masker,
        compile_contract,
        load_contract,
        validate_arrow,
        validate_parquet,
    )
    from pipelines.contracts.validate import validate_parquet_gx
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import WAREHOUSE_ZONE, build_order, warehouse_tables
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    masker = Masker(b"benchmark")
    engine = DuckDBEngine()
    per_table: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lake = Lake(Path(tmp) / "lake")
        started = time.perf_counter()
        for name in TPCH_TABLES:
            publish_tpch_table(lake, name, scale)
        generate_s = time.perf_counter() - started
        inputs = {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}
        outs: dict[str, Path] = {}
        tables = [
            t
            for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))
            if t.contract_path
        ]
        for table in build_order(tables, inputs):
            sql = warehouse_sql(table)
            out = Path(tmp) / "out" / table.name
            reads = {key: inputs[key] for key in table.reads}

            def build(sql=sql, out=out, reads=reads, name=table.name):
                shutil.rmtree(out, ignore_errors=True)
                return engine.build(sql, reads, out, file=name)

            build_s, _ = _best(build, repeat)
            inputs[f"{WAREHOUSE_ZONE}.{table.name}"] = out
            outs[table.name] = out
            compiled = compile_contract(load_contract(table.contract_path))
            validate_s, result = _best(
                lambda compiled=compiled, out=out: validate_parquet(compiled, out, masker),
                repeat,
            )
            gx_s, gx_result = _best(
                lambda compiled=compiled, out=out: validate_parquet_gx(compiled, out, masker),
                repeat,
            )
            pandas_s, pandas_result = _best(
                lambda compiled=compiled, out=out: validate_arrow(
                    compiled, pq.read_table(out), masker
                ),
                pandas_repeat,
            )
            per_table[table.name] = {
                "rows": sum(pq.ParquetFile(p).metadata.num_rows for p in out.glob("*.parquet")),
                "expectations": len(result.outcomes),
                "build_s": round(build_s, 4),
                "validate_s": round(validate_s, 4),
                "validate_gx_s": round(gx_s, 4),
                "same_result_as_gx": result == gx_result,
                "validate_pandas_s": round(pandas_s, 4),
                "ratio": round(validate_s / build_s, 3),
                "ratio_gx": round(gx_s / build_s, 3),
                "ratio_pandas": round(pandas_s / build_s, 3),
                "passed": result.passed,
                "same_verdicts": _verdicts(result) == _verdicts(pandas_result),
            }
        largest = sorted(per_table, key=lambda name: -per_table[name]["rows"])[:memory_tables]
        for name in largest:
            per_table[name]["memory"] = _memory(name, inputs, outs[name])
    build_total = sum(t["build_s"] for t in per_table.values())
    validate_total = sum(t["validate_s"] for t in per_table.values())
    gx_total = sum(t["validate_gx_s"] for t in per_table.values())
    pandas_total = sum(t["validate_pandas_s"] for t in per_table.values())
    worst = max(per_table, key=lambda name: per_table[name]["ratio"])
    return {
        "scale": scale,
        "repeat": repeat,
        "pandas_repeat": pandas_repeat,
        "tables": len(per_table),
        "generate_s": round(generate_s, 2),
        "build_s": round(build_total, 3),
        "validate_s": round(validate_total, 3),
        "validate_pandas_s": round(pandas_total, 3),
        "validate_gx_s": round(gx_total, 3),
        "validate_over_build": round(validate_total / build_total, 3),
        "validate_gx_over_build": round(gx_total / build_total, 3),
        "all_same_results_as_gx": all(t["same_result_as_gx"] for t in per_table.values()),
        "validate_pandas_over_build": round(pandas_total / build_total, 3),
        "target": 0.5,
        "per_table_target": 1.0,
        "median_table_ratio": round(statistics.median(t["ratio"] for t in per_table.values()), 3),
        "worst_table": {worst: per_table[worst]},
        "all_passed": all(t["passed"] for t in per_table.values()),
        "all_same_verdicts": all(t["same_verdicts"] for t in per_table.values()),
        "largest_tables": largest,
        "per_table": per_table,
    }


def _memory_line(name: str, table: dict[str, Any]) -> str:
    memory = table["memory"]
    return (
        f"    {name:<28} {table['rows']:>10,} rows  build {table['build_s']:7.3f} s "
        f"{memory['build']['growth_mb']:7.1f} MB | duckdb {table['validate_s']:7.3f} s "
        f"{memory['validate']['growth_mb']:7.1f} MB | pandas {table['validate_pandas_s']:7.3f} s "
        f"{memory['validate_pandas']['growth_mb']:7.1f} MB"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--pandas-repeat",
        type=int,
        default=1,
        help="runs of the pandas path per table (the path the asset checks no longer take)",
    )
    parser.add_argument("--skip-lineitem", action="store_true")
    parser.add_argument("--memory-child", choices=MEMORY_KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--table", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        report = memory_child(args.memory_child, args.table, json.loads(args.inputs), args.out)
        print(json.dumps(report))
        return
    report: dict[str, Any] = {}
    if not args.skip_lineitem:
        report["lineitem"] = run(args.scale, args.repeat)
    report["warehouse_validation_vs_build"] = run_warehouse(
        args.scale, args.repeat, pandas_repeat=args.pandas_repeat
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "contracts.json").write_text(json.dumps(report, indent=2) + "\n")
    warehouse = report["warehouse_validation_vs_build"]
    lines = [f"contracts, TPC-H scale {args.scale:g}, best of {args.repeat}"]
    if "lineitem" in report:
        lineitem = report["lineitem"]
        lines.append(
            f"  lineitem ({lineitem['rows']:,} rows, {lineitem['expectations']} expectations): "
            f"one scan {lineitem['scan_validate_s']:.3f} s, "
            f"GX on DuckDB {lineitem['gx_duckdb_validate_s']:.3f} s, GX on pandas "
            f"{lineitem['gx_pandas_validate_s']:.3f} s (+ {lineitem['arrow_read_s']:.3f} s read), "
            f"one DuckDB statistics query {lineitem['duckdb_statistics_s']:.3f} s"
        )
    lines += [
        f"  warehouse ({warehouse['tables']} tables): build {warehouse['build_s']:.3f} s; "
        f"validate in one scan {warehouse['validate_s']:.3f} s = {warehouse['validate_over_build']} "
        f"of the build (GX on DuckDB {warehouse['validate_gx_s']:.3f} s = "
        f"{warehouse['validate_gx_over_build']}; same results: "
        f"{warehouse['all_same_results_as_gx']}; target <= 0.5; worst table "
        f"{next(iter(warehouse['worst_table']))} "
        f"{next(iter(warehouse['worst_table'].values()))['ratio']}, target <= 1.0); on pandas "
        f"{warehouse['validate_pandas_s']:.3f} s = {warehouse['validate_pandas_over_build']}; "
        f"same verdicts: {warehouse['all_same_verdicts']}",
        "  largest tables (time best of N; peak RSS growth, each alone in a fresh process):",
        *(_memory_line(n, warehouse["per_table"][n]) for n in warehouse["largest_tables"]),
        f"results written to {RESULTS / 'contracts.json'}",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
