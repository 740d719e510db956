"""`plumbline translate`: other tools script against it. Its exit codes and streams through
the console script (the first tests), and each other answer in this process (``translate``:
a start of the script costs seconds)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sql.paths import REPOSITORY_ROOT
from tests.pipelines.cli.test_main import plumbline_here

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")
DIAGNOSTIC = re.compile(
    r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (error|warning|info)\[[A-Z0-9-]+\]: .+$"
)
RULES_DOC = REPOSITORY_ROOT / "docs" / "translation-rules.md"


def translate_with_console_script(*args: str, stdin: str = ""):
    return subprocess.run(
        [PLUMBLINE, "translate", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def translate(*args: str, stdin: str = "", env: dict[str, str] | None = None):
    """``plumbline translate`` in this process, answering as the console script does."""
    return plumbline_here("translate", *args, env=env, stdin=stdin)


def test_stdin_translates_to_ansi_on_stdout():
    result = translate_with_console_script(
        "--from", "tsql", stdin="SELECT TOP 5 o_orderkey FROM dbo.Orders ORDER BY o_orderkey"
    )
    assert result.returncode == 0, result.stderr
    assert "FETCH FIRST 5 ROWS ONLY" in result.stdout
    assert "TOP" not in result.stdout


def test_a_refusal_is_located_on_stderr_with_exit_1(tmp_path):
    path = tmp_path / "buyers.sql"
    path.write_text("SELECT\n  APPROX_COUNT_DISTINCT(o_custkey) AS buyers\nFROM SALES.ORDERS\n")
    result = translate_with_console_script("--from", "snowflake", str(path))
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
    # Rule ids link to their entry in the rules doc, relative to where the report was written.
    links = set(re.findall(r'href="([^"#]*translation-rules\.md)#', html))
    assert links and all((tmp_path / "report" / link).resolve() == RULES_DOC for link in links)


USER_CATALOG = """\
tables:
  lake.shipments:
    id: BIGINT
    shipped: DATE
legacy:
  snowflake:
    LOGISTICS.PUBLIC.SHIPMENTS: lake.shipments
"""


def test_a_user_catalog_translates_their_own_tables(tmp_path):
    catalog = tmp_path / "mine.yaml"
    catalog.write_text(USER_CATALOG)
    query = "SELECT id, DATEADD(day, 1, shipped) AS next_day FROM shipments"
    refused = translate("--from", "snowflake", stdin=query)
    assert refused.returncode == 1
    assert "NAME-UNKNOWN" in refused.stderr and "catalog.yaml" in refused.stderr
    result = translate("--from", "snowflake", "--catalog", str(catalog), stdin=query)
    assert result.returncode == 0, result.stderr
    assert '"lake"."shipments"' in result.stdout
    # The bare name resolved through the stated default schema (PUBLIC): a warning says so.
    [warning] = result.stderr.strip().splitlines()
    assert DIAGNOSTIC.match(warning) and "warning[NAME-DEFAULT]" in warning
    assert "snowflake_schema=PUBLIC" in warning
    pinned = translate(
        "--from",
        "snowflake",
        "--catalog",
        str(catalog),
        "--assume",
        "snowflake_schema=OTHER",
        stdin=query,
    )
    assert pinned.returncode == 1 and "snowflake_schema=OTHER" in pinned.stderr


def test_several_catalogs_merge_and_a_conflict_is_a_usage_error(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(USER_CATALOG)
    other = tmp_path / "other.yaml"
    other.write_text(USER_CATALOG.replace("shipped: DATE", "shipped: TIMESTAMP"))
    result = translate("--from", "snowflake", "--catalog", str(mine), "--catalog", str(other))
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "other.yaml" in line and "mine.yaml" in line
    env_result = translate(
        "--from",
        "snowflake",
        stdin="SELECT id FROM LOGISTICS.PUBLIC.SHIPMENTS",
        env={"PLUMBLINE_CATALOG": str(mine)},
    )
    assert env_result.returncode == 0, env_result.stderr


def test_a_script_prints_each_table_it_defines(tmp_path):
    script = (
        "CREATE TABLE mart.totals AS SELECT o_custkey, SUM(o_totalprice) AS total "
        "FROM dbo.Orders GROUP BY o_custkey;\n"
        "CREATE TABLE mart.top AS SELECT o_custkey FROM mart.totals WHERE total > 1000;\n"
    )
    result = translate("--from", "tsql", stdin=script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("-- warehouse.totals\n")
    assert "-- warehouse.top\n" in result.stdout and 'FROM "warehouse"."totals"' in result.stdout
    as_json = json.loads(translate("--from", "tsql", "--json", stdin=script).stdout)
    assert [t["table"] for t in as_json["tables"]] == ["warehouse.totals", "warehouse.top"]
    assert as_json["tables"][1]["source_tables"] == ["warehouse.totals"]


def test_strict_refuses_the_portable_functions_and_json_names_them():
    source = (
        "SELECT SPLIT_PART(c_phone, '-', -1) AS area, TRY_TO_NUMBER(c_phone) AS n "
        "FROM SALES.CUSTOMER"
    )
    named = translate("--from", "snowflake", "--json", stdin=source)
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["portable_functions"] == ["RAISE_ERROR", "SPLIT_PART"]
    # TRY_TO_NUMBER of text Snowflake states no value for stops the query: a run-time guard
    assert json.loads(named.stdout)["guards"] == ["FN-TRY-CAST-NUMBER"]
    strict = translate("--from", "snowflake", "--strict", stdin=source)
    assert strict.returncode == 1
    first, second = strict.stderr.splitlines()
    assert first.startswith("<stdin>:1:8: error[PORTABLE-STRICT]: SPLIT_PART ")
    assert second.startswith(
        "<stdin>:1:46: error[PORTABLE-STRICT]: a run-time guard of FN-TRY-CAST-NUMBER "
    )


def test_param_gives_a_bigquery_query_parameter_its_value_and_json_records_it():
    query = "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date"
    result = translate(
        "--from", "bigquery", "--param", "submission_date:DATE:1998-08-15", "--json", stdin=query
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert "CAST('1998-08-15' AS DATE)" in payload["ansi_sql"]
    assert payload["query_parameters"] == {"submission_date": "DATE:1998-08-15"}
    refused = translate("--from", "bigquery", stdin=query)
    assert refused.returncode == 1
    assert "error[SCRIPT-PARAMETER]" in refused.stderr and "--param" in refused.stderr


@pytest.mark.parametrize("bad", ["submission_date:DATE:2024-13-01", "submission_date"])
def test_a_bad_param_is_a_usage_error_naming_it(bad):
    result = translate("--from", "bigquery", "--param", bad, stdin="SELECT @submission_date AS d")
    assert result.returncode == 2
    assert "--param" in result.stderr and "submission_date" in result.stderr
