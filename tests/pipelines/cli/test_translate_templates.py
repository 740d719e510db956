"""`plumbline translate --var NAME=VALUE FILE`: a Jinja-templated file is rendered with the
variables, translated, and its diagnostics point into the template."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sql.catalog import load_catalog
from sql.paths import REPOSITORY_ROOT
from sql.report import translate_tree

TEMPLATE = """\
{{ config(materialized='table') }}
SELECT o_orderstatus,
       {% if with_buyers %}APPROX_COUNT_DISTINCT(o_custkey){% else %}COUNT(*){% endif %} AS n
FROM {{ ref('orders') }}
WHERE o_orderdate >= '{{ var('since') }}'
GROUP BY o_orderstatus
"""


def translate(*args: str) -> subprocess.CompletedProcess:
    # This checkout's command (the console script may be another checkout's).
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli.main", "translate", *args],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def template(tmp_path: Path) -> Path:
    path = tmp_path / "status_counts.sql"
    path.write_text(TEMPLATE)
    return path


def test_var_renders_the_template_before_translation(template):
    result = translate(
        "--from",
        "snowflake",
        "--var",
        "with_buyers=false",
        "--var",
        "since=2024-01-01",
        "--json",
        str(template),
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["name"] == "status_counts"
    assert payload["source_tables"] == ["raw.orders"]
    assert payload["line"] == 2  # the SELECT's line in the template
    assert "COUNT(*)" in payload["ansi_sql"] and "'2024-01-01'" in payload["ansi_sql"]


def test_a_refusal_points_into_the_template(template):
    result = translate(
        "--from",
        "snowflake",
        "--var",
        "with_buyers=true",
        "--var",
        "since=2024-01-01",
        str(template),
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"{template}:3:28: error[APPROX-AGG]: "), result.stderr
    assert TEMPLATE.splitlines()[2][27:].startswith("APPROX_COUNT_DISTINCT")


def test_a_missing_variable_is_a_located_template_error(template):
    result = translate("--from", "snowflake", "--var", "with_buyers=false", str(template))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{template}:5:26: error[TEMPLATE]: var('since')")


@pytest.mark.parametrize("bad", ["since", "2x=1"])
def test_a_malformed_var_is_a_usage_error(template, bad):
    result = translate("--from", "snowflake", "--var", bad, str(template))
    assert result.returncode == 2
    assert "--var" in result.stderr and "expected NAME=VALUE" in result.stderr


def test_a_j2_file_names_its_table_without_its_suffixes(tmp_path):
    path = tmp_path / "recent.sql.j2"
    path.write_text("SELECT o_orderkey FROM SALES.ORDERS")
    result = translate("--from", "snowflake", "--json", str(path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["name"] == "recent"


def test_the_report_renders_templates_with_the_variables(tmp_path):
    """`--report` (sql.report.translate_tree) renders a tree's templates with --var."""
    folder = tmp_path / "legacy" / "snowflake"
    folder.mkdir(parents=True)
    (folder / "status_counts.sql").write_text(TEMPLATE)
    variables = {"with_buyers": False, "since": "2024-01-01"}
    (result,) = translate_tree(tmp_path / "legacy", load_catalog(), variables=variables)
    assert result.translated and result.tables == ("status_counts",)
    (refused,) = translate_tree(tmp_path / "legacy", load_catalog(), variables={})
    assert [(d.rule, d.line) for d in refused.diagnostics] == [("TEMPLATE", 3)]
