"""Reconciliation benchmark: plumbline's reconcile against a plain DuckDB ``EXCEPT ALL``.

At one TPC-H scale, ``warehouse/delivery_delay_features`` (3.27 M rows at SF1) is built on
DuckDB from its translation, and its hand-written reference query is written out as the
legacy warehouse's snapshot. Then, side by side in one run (best of N each):

* ``plumbline_reference_s``: the ``<table>_reconciled`` check's own path, the built table
  against the reference query run inside the reconciliation;
* ``plumbline_snapshot_s``: the built table against the snapshot (Parquet);
* ``plumbline_changed_s``: against the snapshot with one value changed, which must be
  caught and named (the column, one row on each side);
* ``reference_build_s``: the reference query alone, its result written (the snapshot);
* ``except_all_s``: the naive baseline, the same two tables through DuckDB alone:
  ``EXCEPT ALL`` both ways, each counted (:func:`except_all`);

and the ratios ``reconcile / build``. Each plumbline path also runs once in a fresh process
that reports its peak RSS over its RSS before the work (``--memory-child``).

:func:`compare` times plumbline against the baseline on any two Parquet tables: the scale
bench (``python -m benchmarks scale``) calls it per table.

Run: ``python -m benchmarks.reconcile_bench [--scale 1] [--repeat 2]``.
Results: benchmarks/results/reconcile.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")
TABLE = "delivery_delay_features"
# The value changed in the "changed" snapshot: one row's quantity.
CHANGED_COLUMN = "quantity"


def _best(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - started)
    return best, value


def except_all(built: Path, reference: Path, memory_limit: str | None = None) -> tuple[int, int]:
    """The naive reconciliation: rows of each table not in the other (``EXCEPT ALL`` both
    ways), counted, by DuckDB alone over the two Parquet tables."""
    import duckdb
    from sqlglot import exp

    from pipelines.lake.store import parquet_source

    config = {"memory_limit": memory_limit} if memory_limit else {}
    with tempfile.TemporaryDirectory(prefix="except-all-") as spill:
        config["temp_directory"] = spill
        with duckdb.connect(config=config) as con:
            con.read_parquet(parquet_source(built)).create_view("built")
            con.read_parquet(parquet_source(reference)).create_view("reference")
            counts = []
            for first, second in (("built", "reference"), ("reference", "built")):
                only = (
                    exp.select(exp.Star())
                    .from_(first)
                    .except_(exp.select(exp.Star()).from_(second), distinct=False)
                )
                query = exp.select(exp.Count(this=exp.Star())).from_(only.subquery("only"))
                counts.append(con.sql(query.sql("duckdb")).fetchall()[0][0])
    return counts[0], counts[1]


def compare(
    built: Path,
    reference: Path,
    *,
    key: Sequence[str] = (),
    repeat: int = 1,
    scratch: Path | None = None,
    memory_limit: str | None = None,
) -> dict[str, Any]:
    """plumbline's reconciliation of two Parquet tables beside the naive ``EXCEPT ALL`` of
    the same two (held to ``memory_limit``, else DuckDB's default of 80 % of the machine),
    best of ``repeat`` each, with both verdicts (they must agree)."""
    from pipelines.warehouse.reconcile import reconcile

    plumbline_s, result = _best(
        lambda: reconcile(built, reference, key=key, scratch=scratch), repeat
    )
    naive_s, counts = _best(lambda: except_all(built, reference, memory_limit), repeat)
    return {
        "plumbline_s": round(plumbline_s, 3),
        "except_all_s": round(naive_s, 3),
        "plumbline_passed": result.passed,
        "plumbline_unmatched": [result.only_in_table, result.only_in_reference],
        "except_all_unmatched": list(counts),
        "compared_by": result.compared_by,
    }


def _generate(scale: float, root: Path) -> dict[str, Path]:
    from pipelines.lake.raw import RAW_ZONE, publish_tpch_table
    from pipelines.lake.store import Lake
    from pipelines.lake.tpch import TPCH_TABLES

    lake = Lake(root)
    for table in TPCH_TABLES:
        publish_tpch_table(lake, table, scale)
    return {f"{RAW_ZONE}.{t}": lake.current(RAW_ZONE, t).path for t in TPCH_TABLES}


def _table():
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from sql.catalog import load_catalog
    from sql.paths import LEGACY_ROOT

    tables = {t.name: t for t in warehouse_tables(translate_sources(LEGACY_ROOT, load_catalog()))}
    return tables[TABLE]


def _changed_copy(snapshot: Path, out: Path) -> None:
    """``snapshot`` with one row's CHANGED_COLUMN one more (the row in the middle), written
    within the process's DuckDB memory limit (at SF10 the table has 58 M rows)."""
    from sqlglot import exp

    from pipelines.lake.store import parquet_source
    from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(snapshot))
        rows = relation.count("*").fetchall()[0][0]
        relation.create_view("snapshot")
        column = exp.column(CHANGED_COLUMN, quoted=True)
        middle = exp.EQ(
            this=exp.column("row", quoted=True), expression=exp.Literal.number(rows // 2)
        )
        changed = (
            exp.case().when(middle, exp.Add(this=column, expression=exp.Literal.number(1)))
        ).else_(column.copy())
        numbered = exp.select(
            exp.Star(), exp.alias_(exp.Window(this=exp.RowNumber()), "row", quoted=True)
        ).from_("snapshot")
        query = exp.select(
            *(
                exp.alias_(changed, c, quoted=True)
                if c == CHANGED_COLUMN
                else exp.column(c, quoted=True)
                for c in relation.columns
            )
        ).from_(numbered.subquery("numbered"))
        con.sql(query.sql("duckdb")).write_parquet(str(out))


def memory_child(kind: str, built: Path, reference: Path, inputs: dict[str, str]) -> dict[str, Any]:
    """In a fresh process: import, note the RSS, reconcile once, report the peak RSS."""
    import psutil

    from benchmarks.contracts_bench import _peak_rss, _reset_peak_rss
    from pipelines.warehouse.reconcile import ReferenceQuery, reconcile

    table = _table()
    source: Any = (
        ReferenceQuery(
            table.reference_path.read_text(), {k: Path(v) for k, v in inputs.items()}, TABLE
        )
        if kind == "reference"
        else reference
    )
    baseline = psutil.Process().memory_info().rss
    _reset_peak_rss()
    started = time.perf_counter()
    if kind == "except_all":
        except_all(built, reference)
    else:
        reconcile(built, source)
    seconds = time.perf_counter() - started
    peak = _peak_rss()
    return {
        "seconds": round(seconds, 3),
        "peak_mb": round(peak / 2**20, 1),
        "growth_mb": round(max(0, peak - baseline) / 2**20, 1),
    }


def _memory(built: Path, snapshot: Path, changed: Path, inputs: dict[str, Path]) -> dict[str, Any]:
    measured = {}
    for label, kind, reference in (
        ("reference", "reference", snapshot),
        ("snapshot", "snapshot", snapshot),
        ("changed", "snapshot", changed),
        ("except_all", "except_all", snapshot),
    ):
        command = [
            sys.executable,
            "-m",
            "benchmarks.reconcile_bench",
            "--memory-child",
            kind,
            "--built",
            str(built),
            "--reference",
            str(reference),
            "--inputs",
            json.dumps({k: str(v) for k, v in inputs.items()}),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"memory child {label} failed:\n{proc.stderr[-2000:]}")
        measured[label] = json.loads(proc.stdout.strip().splitlines()[-1])
    return measured


def run(scale: float, repeat: int, *, memory: bool = True) -> dict[str, Any]:
    from pipelines.warehouse.contract_lint import warehouse_sql
    from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
    from pipelines.warehouse.reconcile import ReferenceQuery, reconcile

    table = _table()
    with tempfile.TemporaryDirectory(prefix="reconcile-bench-") as folder:
        root = Path(folder)
        started = time.perf_counter()
        lake = _generate(scale, root / "lake")
        generate_s = time.perf_counter() - started
        inputs = {key: lake[key] for key in table.reads}
        sql = warehouse_sql(table)
        built, snapshot, changed = root / "built", root / "snapshot", root / "changed.parquet"
        engine = DuckDBEngine()

        def build() -> float:
            return engine.build(sql, inputs, built, file=TABLE).seconds

        build_s = min(build() for _ in range(repeat))
        reference_sql = table.reference_path.read_text()
        # The reference query's own cost: what reconciling against it must pay at least.
        reference_build_s = min(
            engine.build_duckdb(reference_sql, inputs, snapshot, file=str(table.reference_path))
            for _ in range(repeat)
        )
        _changed_copy(snapshot, changed)
        reference = ReferenceQuery(reference_sql, inputs, str(table.reference_path))
        scratch = root / "scratch"

        timings: dict[str, Any] = {}
        verdicts: dict[str, Any] = {}
        # Interleaved, one of each per round: the same noise for all.
        for _ in range(repeat):
            for name, work in (
                ("plumbline_reference_s", lambda: reconcile(built, reference, scratch=scratch)),
                ("plumbline_snapshot_s", lambda: reconcile(built, snapshot, scratch=scratch)),
                ("plumbline_changed_s", lambda: reconcile(built, changed, scratch=scratch)),
                ("except_all_s", lambda: except_all(built, snapshot)),
                ("except_all_changed_s", lambda: except_all(built, changed)),
            ):
                started = time.perf_counter()
                value = work()
                seconds = time.perf_counter() - started
                timings[name] = min(timings.get(name, float("inf")), seconds)
                verdicts[name] = value
        found = verdicts["plumbline_changed_s"]
        rows = verdicts["plumbline_snapshot_s"].actual_rows
        result = {
            "table": TABLE,
            "scale": scale,
            "rows": rows,
            "repeat": repeat,
            "generate_s": round(generate_s, 3),
            "build_s": round(build_s, 3),
            "reference_build_s": round(reference_build_s, 3),
            **{name: round(seconds, 3) for name, seconds in timings.items()},
            "reconcile_over_build": {
                name.removesuffix("_s"): round(seconds / build_s, 3)
                for name, seconds in timings.items()
            },
            "verdicts": {
                "reference": verdicts["plumbline_reference_s"].passed,
                "snapshot": verdicts["plumbline_snapshot_s"].passed,
                "snapshot_compared_by": verdicts["plumbline_snapshot_s"].compared_by,
                "changed": found.passed,
                "changed_columns": found.columns_differing,
                "changed_unmatched": [found.only_in_table, found.only_in_reference],
                "changed_sample_table": found.sample_only_in_table,
                "changed_sample_reference": found.sample_only_in_reference,
                "except_all": list(verdicts["except_all_s"]),
                "except_all_changed": list(verdicts["except_all_changed_s"]),
            },
        }
        if memory:
            result["memory"] = _memory(built, snapshot, changed, inputs)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-memory", action="store_true", help="skip the fresh-process runs")
    parser.add_argument("--memory-child", choices=("reference", "snapshot", "except_all"))
    parser.add_argument("--built", type=Path)
    parser.add_argument("--reference", type=Path)
    parser.add_argument("--inputs", default="{}")
    args = parser.parse_args(argv)
    if args.memory_child:
        measured = memory_child(
            args.memory_child, args.built, args.reference, json.loads(args.inputs)
        )
        print(json.dumps(measured))
        return measured
    result = run(args.scale, args.repeat, memory=not args.no_memory)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "reconcile.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(result, indent=2, default=str))
    return result


if __name__ == "__main__":
    main()
