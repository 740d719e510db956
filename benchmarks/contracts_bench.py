"""Contract validation benchmark: GX 1.x vs DuckDB, and validation vs build per table.

Warehouse: every warehouse table is built on DuckDB from its SQL and validated against its
contract in ``sql/contracts/``; validation time over build time (target <= 0.5).

Lineitem:
At one TPC-H scale, generates lineitem with tpchgen-cli, writes an ODCS contract for it,
and times (best of N):
- reading the Parquet into Arrow (what the asset check gets from DuckDB);
- ``validate_arrow``: the compiled GX suite on the Arrow -> pandas data;
- one DuckDB query over the same Arrow table computing the same statistics (row count,
  null counts, key duplicates, out-of-range and out-of-set counts).
The overhead ratio is GX time / DuckDB time.

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


def run(scale: float, repeat: int) -> dict[str, Any]:
    import duckdb

    from pipelines.contracts import Masker, compile_contract, load_contract, validate_arrow

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

        read_s, table = _best(lambda: pq.read_table(parquet), repeat)
        gx_s, result = _best(lambda: validate_arrow(compiled, table, masker), repeat)
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
        "arrow_read_s": round(read_s, 4),
        "gx_validate_s": round(gx_s, 4),
        "duckdb_statistics_s": round(duckdb_s, 4),
        "gx_over_duckdb": round(gx_s / duckdb_s, 1),
        "gx_passed": result.passed,
        "duckdb_passed": not violations,
        "failed_expectations": [o.name for o in result.outcomes if not o.passed],
        "duckdb_violations": violations,
    }


def run_warehouse(scale: float, repeat: int) -> dict[str, Any]:
    """Every warehouse table with its real contract: build on DuckDB, then validate the
    built table (best of ``repeat`` each); the ratio is validation time / build time."""
    from pipelines.contracts import Masker, compile_contract, load_contract, validate_parquet

    masker = Masker(b"benchmark")
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES
    from pipelines.warehouse.build import WAREHOUSE_ZONE, warehouse_tables
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    engine = DuckDBEngine()
    per_table: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lake = Lake(Path(tmp) / "lake")
        started = time.perf_counter()
        for name in TPCH_TABLES:
            publish_tpch_table(lake, name, scale)
        generate_s = time.perf_counter() - started
        inputs = {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}
        pending = [t for t in warehouse_tables(load_catalog(), LEGACY_ROOT) if t.contract_path]
        while pending:
            ready = [t for t in pending if set(t.reads) <= set(inputs)]
            if not ready:
                raise RuntimeError(f"cannot order {[t.name for t in pending]}")
            for table in ready:
                pending.remove(table)
                sql = warehouse_sql(table)
                out = Path(tmp) / "out" / table.name
                reads = {key: inputs[key] for key in table.reads}
                build_s, _ = _best(
                    lambda sql=sql, out=out, reads=reads: engine.build(
                        sql, reads, out, file=str(out.name)
                    ),
                    repeat,
                )
                inputs[f"{WAREHOUSE_ZONE}.{table.name}"] = out
                compiled = compile_contract(load_contract(table.contract_path))
                validate_s, result = _best(
                    lambda compiled=compiled, out=out: validate_parquet(compiled, out, masker),
                    repeat,
                )
                per_table[table.name] = {
                    "rows": sum(pq.ParquetFile(p).metadata.num_rows for p in out.glob("*.parquet")),
                    "expectations": len(result.outcomes),
                    "build_s": round(build_s, 4),
                    "validate_s": round(validate_s, 4),
                    "ratio": round(validate_s / build_s, 2),
                    "passed": result.passed,
                }
    build_total = sum(t["build_s"] for t in per_table.values())
    validate_total = sum(t["validate_s"] for t in per_table.values())
    worst = max(per_table, key=lambda name: per_table[name]["ratio"])
    return {
        "scale": scale,
        "repeat": repeat,
        "tables": len(per_table),
        "generate_s": round(generate_s, 2),
        "build_s": round(build_total, 3),
        "validate_s": round(validate_total, 3),
        "validate_over_build": round(validate_total / build_total, 2),
        "target": 0.5,
        "median_table_ratio": round(statistics.median(t["ratio"] for t in per_table.values()), 2),
        "worst_table": {worst: per_table[worst]},
        "all_passed": all(t["passed"] for t in per_table.values()),
        "per_table": per_table,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    report = {
        "lineitem_gx_vs_duckdb": run(args.scale, args.repeat),
        "warehouse_validation_vs_build": run_warehouse(args.scale, args.repeat),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "contracts.json").write_text(json.dumps(report, indent=2) + "\n")
    lineitem, warehouse = report["lineitem_gx_vs_duckdb"], report["warehouse_validation_vs_build"]
    print(
        f"contracts, TPC-H scale {args.scale:g}, best of {args.repeat}\n"
        f"  lineitem ({lineitem['rows']:,} rows, {lineitem['expectations']} expectations): "
        f"GX {lineitem['gx_validate_s']:.3f} s vs one DuckDB statistics query "
        f"{lineitem['duckdb_statistics_s']:.3f} s = {lineitem['gx_over_duckdb']}x\n"
        f"  warehouse ({warehouse['tables']} tables): validate {warehouse['validate_s']:.3f} s vs "
        f"build {warehouse['build_s']:.3f} s = {warehouse['validate_over_build']} "
        f"(target <= 0.5; median per table {warehouse['median_table_ratio']}); "
        f"worst {next(iter(warehouse['worst_table']))}\n"
        f"results written to {RESULTS / 'contracts.json'}"
    )


if __name__ == "__main__":
    main()
