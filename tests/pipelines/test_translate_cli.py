"""`plumbline translate` through the console script: other tools script against it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")
DIAGNOSTIC = re.compile(
    r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (error|warning|info)\[[A-Z0-9-]+\]: .+$"
)


def translate(*args: str, stdin: str = ""):
    return subprocess.run(
        [PLUMBLINE, "translate", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_stdin_translates_to_ansi_on_stdout():
    result = translate(
        "--from", "tsql", stdin="SELECT TOP 5 o_orderkey FROM dbo.Orders ORDER BY o_orderkey"
    )
    assert result.returncode == 0, result.stderr
    assert "FETCH FIRST 5 ROWS ONLY" in result.stdout
    assert "TOP" not in result.stdout


def test_a_refusal_is_located_on_stderr_with_exit_1(tmp_path):
    path = tmp_path / "buyers.sql"
    path.write_text("SELECT\n  APPROX_COUNT_DISTINCT(o_custkey) AS buyers\nFROM SALES.ORDERS\n")
    result = translate("--from", "snowflake", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines and all(DIAGNOSTIC.match(line) for line in lines), result.stderr
    assert lines[0].startswith(f"{path}:2:3: error[")


def test_unparseable_input_exits_1_with_a_parse_diagnostic():
    result = translate("--from", "oracle", stdin="SELECT FROM WHERE (")
    assert result.returncode == 1
    assert re.match(r"^<stdin>:\d+:\d+: error\[PARSE\]: ", result.stderr)


def test_rendering_for_an_engine():
    result = translate(
        "--from",
        "tsql",
        "--to",
        "duckdb",
        stdin="SELECT TOP 3 n_name FROM dbo.Nation ORDER BY n_name",
    )
    assert result.returncode == 0, result.stderr
    assert "LIMIT 3" in result.stdout


def test_json_output():
    result = translate(
        "--from",
        "snowflake",
        "--json",
        stdin="SELECT IFF(n_regionkey > 1, 'a', 'b') AS k FROM SALES.NATION",
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["ok"] is True
    assert payload["source_tables"] == ["raw.nation"]
    assert payload["columns"] == ["k"]
    assert "CASE WHEN" in payload["sql"]


@pytest.mark.parametrize(
    "args",
    [
        ["--from", "oracle2"],
        [],
        ["--from", "tsql", "/no/such/file.sql"],
        ["--to", "mysql", "--from", "tsql"],
    ],
)
def test_usage_errors_exit_2(args):
    assert translate(*args, stdin="SELECT 1").returncode == 2


def test_report_over_the_legacy_tree(tmp_path):
    result = translate("--report", str(tmp_path / "report"))
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "report" / "report.html").read_text()
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert html.startswith("<!doctype html>") and "<script" not in html and "http" not in html
    assert "snowflake" in markdown and "tsql" in markdown
    assert re.search(r"\d+ files: \d+ translated, \d+ refused", markdown)
