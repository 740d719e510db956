"""plumbline beside its peers on the same work: a data contract tested by datacontract-cli.

datacontract-cli (``datacontract test``, ibis over DuckDB) reads ODCS v3 contracts as
plumbline does. It is not a dependency of plumbline: :func:`datacontract_cli` installs it
once into a virtualenv of its own under ``benchmarks/.peers/`` (gitignored) with pip, and
it runs there, in its own processes.

:func:`compare_contract_tools` takes one published warehouse table of a home and its
repository contract (with a ``servers`` entry naming the table's Parquet file, which
datacontract-cli needs), then, side by side in one run, times:

- each tool's validation alone, in a process that has imported it already (the better of
  two runs): plumbline's ``validate_parquet``, datacontract-cli's ``DataContract.test()``;
- each tool as a user runs it, a fresh process from start to verdict (imports included);

the two tools taking turns for ``rounds`` rounds, each figure the best of its rounds, so
that a load that comes and goes on a shared machine falls on both alike;

on the table as built (both must pass) and on a copy with one row broken twice (a ship
mode outside the enum, a line number above its maximum), where both must fail and name the
same columns. datacontract-cli does not check column types of Parquet files (it warns), so
its verdict is "warning" where plumbline's is "passed".

Run alone: ``python -m benchmarks.peers HOME [TABLE [ROUNDS]]``, HOME a ``PLUMBLINE_HOME`` with the
table published (the scale bench keeps one with ``--keep``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PEERS = Path(__file__).with_name(".peers")
DATACONTRACT = PEERS / "datacontract"
DATACONTRACT_REQUIREMENT = "datacontract-cli[duckdb]"

# Run in datacontract-cli's own virtualenv: import, then time the test itself.
DATACONTRACT_DRIVER = """
import json, sys, time
started = time.perf_counter()
from datacontract.data_contract import DataContract
imported = time.perf_counter() - started
best, run = float("inf"), None
for _ in range(int(sys.argv[2])):
    started = time.perf_counter()
    run = DataContract(data_contract_file=sys.argv[1], server="local").test()
    best = min(best, time.perf_counter() - started)
failed = sorted({c.field or c.model or "" for c in run.checks if str(c.result).endswith("failed")})
print(json.dumps({
    "import_s": round(imported, 3),
    "test_s": round(best, 3),
    "result": str(run.result).rsplit(".", 1)[-1].lower(),
    "checks": len(run.checks),
    "failed_fields": failed,
}))
"""

# Run in plumbline's virtualenv, the same way.
PLUMBLINE_DRIVER = """
import json, sys, time
from pathlib import Path
started = time.perf_counter()
from pipelines.contracts import Masker, compile_contract, load_contract, validate_parquet
imported = time.perf_counter() - started
compiled = compile_contract(load_contract(Path(sys.argv[1])))
best, result = float("inf"), None
for _ in range(int(sys.argv[3])):
    started = time.perf_counter()
    result = validate_parquet(compiled, Path(sys.argv[2]), Masker(b"peers"))
    best = min(best, time.perf_counter() - started)
failed = sorted({o.column or "" for o in result.outcomes if not o.passed})
print(json.dumps({
    "import_s": round(imported, 3),
    "test_s": round(best, 3),
    "result": "passed" if result.passed else "failed",
    "checks": len(result.outcomes),
    "failed_fields": failed,
}))
"""


def datacontract_cli() -> Path:
    """datacontract-cli's Python, installed into benchmarks/.peers/datacontract on first use."""
    python = DATACONTRACT / "bin" / "python"
    if not (DATACONTRACT / "bin" / "datacontract").exists():
        PEERS.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(DATACONTRACT)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", DATACONTRACT_REQUIREMENT],
            check=True,
        )
    return python


def _version(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('datacontract-cli'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _driven(python: str, driver: str, *args: str) -> dict[str, Any]:
    """Run ``driver`` in a fresh process; its JSON line, and the process's whole wall time."""
    started = time.perf_counter()
    process = subprocess.run(
        [python, "-c", driver, *args], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"{python} failed:\n{process.stderr[-3000:]}")
    return {**json.loads(process.stdout.strip().splitlines()[-1]), "process_s": round(wall, 3)}


def _contract_for(contract: Path, parquet: Path, out: Path) -> Path:
    """``contract`` with a ``servers`` entry for ``parquet`` (datacontract-cli needs one;
    plumbline ignores it)."""
    import yaml

    document = yaml.safe_load(contract.read_text())
    document["servers"] = [
        {"server": "local", "type": "local", "format": "parquet", "path": str(parquet)}
    ]
    out.write_text(yaml.safe_dump(document, sort_keys=False))
    return out


def _broken_copy(parquet: Path, out: Path) -> Path:
    """The table with its first row's ship mode outside the enum and line number too high."""
    import duckdb
    from sqlglot import exp

    with duckdb.connect() as connection:
        relation = connection.read_parquet(str(parquet))
        columns = []
        for name in relation.columns:
            column = exp.column(name, quoted=True)
            if name in ("ship_mode", "line_number"):
                value = exp.Literal.string("BOAT") if name == "ship_mode" else exp.Literal.number(9)
                first = exp.EQ(this=exp.column("n"), expression=exp.Literal.number(1))
                column = exp.alias_(
                    exp.Case(ifs=[exp.If(this=first, true=value)], default=column), name
                )
            columns.append(column)
        numbered = exp.select(
            exp.Star(),
            exp.alias_(exp.Window(this=exp.RowNumber(), over="OVER"), "n"),
        ).from_("t")
        relation.create_view("t")
        query = exp.select(*columns).from_(numbered.subquery("numbered"))
        connection.sql(query.sql("duckdb")).write_parquet(str(out))
    return out


def _interleaved(runs: dict[str, tuple[str, str, list[str]]], rounds: int) -> dict[str, Any]:
    """Each of ``runs`` (name -> python, driver, arguments) in turn, ``rounds`` times; per
    name the last run's verdict with the best ``test_s`` and ``process_s`` of all rounds."""
    best: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        for name, (python, driver, args) in runs.items():
            measured = _driven(python, driver, *args)
            if name in best:
                for key in ("import_s", "test_s", "process_s"):
                    measured[key] = min(measured[key], best[name][key])
            best[name] = measured
    return best


def compare_contract_tools(home: Path, table: str, rounds: int = 3) -> dict[str, Any]:
    """plumbline and datacontract-cli on ``table`` of ``home`` and a broken copy of it."""
    from pipelines.lake.store import Lake
    from sql.paths import CONTRACTS_ROOT

    python = datacontract_cli()
    version = Lake(home / "lake").current("warehouse", table)
    if version is None:
        raise RuntimeError(f"{home}: warehouse/{table} is not published")
    [parquet] = sorted(version.path.glob("*.parquet"))
    measured: dict[str, Any] = {
        "table": table,
        "rows": version.manifest.get("row_count"),
        "datacontract_cli": _version(python),
        "rounds": rounds,
    }
    with tempfile.TemporaryDirectory(prefix="plumbline-peers-") as tmp:
        broken = _broken_copy(parquet, Path(tmp) / "broken.parquet")
        for case, data in (("as_built", parquet), ("broken", broken)):
            contract = _contract_for(
                CONTRACTS_ROOT / f"{table}.yaml", data, Path(tmp) / f"{case}.yaml"
            )
            turns = _interleaved(
                {
                    "plumbline": (
                        sys.executable,
                        PLUMBLINE_DRIVER,
                        [str(contract), str(data), "2"],
                    ),
                    "datacontract_cli": (str(python), DATACONTRACT_DRIVER, [str(contract), "2"]),
                },
                rounds,
            )
            ours, theirs = turns["plumbline"], turns["datacontract_cli"]
            measured[case] = {
                "plumbline": ours,
                "datacontract_cli": theirs,
                "test_ratio": round(ours["test_s"] / theirs["test_s"], 3),
                "process_ratio": round(ours["process_s"] / theirs["process_s"], 3),
                # datacontract-cli warns where it cannot check Parquet types: "warning" is
                # its pass.
                "same_verdict": (ours["result"] == "passed")
                == (theirs["result"] in ("passed", "warning")),
                "same_failed_fields": ours["failed_fields"] == theirs["failed_fields"],
            }
    return measured


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.exit("usage: python -m benchmarks.peers HOME [TABLE [ROUNDS]]")
    table = args[1] if len(args) > 1 else "delay_features"
    rounds = int(args[2]) if len(args) > 2 else 3
    result = compare_contract_tools(Path(args[0]), table, rounds)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
