"""DuckDB sessions read zoned timestamps in UTC, as Spark's do, whatever the machine's zone."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[4]

# Each prints what a UTC session gives; on a machine in New York an unpinned DuckDB session
# gives the day before (2023-12-31) and a 21:30 clock time.
PROBES = {
    "connect_duckdb": """
        from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
        con = connect_duckdb()
    """,
    "DuckDBEngine.connect": """
        from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
        con = DuckDBEngine().connect({})
    """,
    "sandboxed query connection": """
        from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
        con = DuckDBEngine(extensions=False).connect({})
    """,
}
QUERY = (
    "SELECT CAST(CAST(TIMESTAMPTZ '2024-01-01 02:30:00+00' AS DATE) AS VARCHAR),"
    " CAST(CAST(TIMESTAMPTZ '2024-01-01 02:30:00+00' AS TIMESTAMP) AS VARCHAR)"
)


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_a_connection_reads_zoned_timestamps_in_utc_on_a_machine_elsewhere(probe: str) -> None:
    script = textwrap.dedent(PROBES[probe]) + f"print(con.execute({QUERY!r}).fetchone())\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPOSITORY,
        env={"TZ": "America/New_York", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "('2024-01-01', '2024-01-01 02:30:00')"


def test_the_warehouse_opens_duckdb_only_through_the_pinned_connection() -> None:
    """A bare ``duckdb.connect`` would take the machine's zone again."""
    bare = []
    for path in sorted((REPOSITORY / "pipelines" / "warehouse").rglob("*.py")):
        if path.name == "duckdb_engine.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "connect"
                and isinstance(node.value, ast.Name)
                and node.value.id == "duckdb"
            ):
                bare.append(f"{path.relative_to(REPOSITORY)}:{node.lineno}")
    assert bare == []
