"""The translation report: one row per file, a script that defines several tables included."""

from __future__ import annotations

from pathlib import Path

import pytest

from sql.report import legacy_files, render_html, render_markdown, translate_tree

FILES = {
    "tsql/order_totals.sql": (
        "CREATE TABLE mart.totals AS SELECT o_custkey, SUM(o_totalprice) AS total "
        "FROM dbo.Orders GROUP BY o_custkey;\n"
        "CREATE TABLE mart.named AS SELECT c_name, t.total FROM dbo.Customer "
        "JOIN mart.totals t ON t.o_custkey = c_custkey;"
    ),
    "snowflake/nations.sql": "SELECT N_NAME FROM SALES.NATION",
    "oracle/unknown.sql": "SELECT a FROM SALES.NO_SUCH_TABLE",
}


@pytest.fixture
def results(tmp_path: Path):
    for name, sql in FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(sql)
    return tmp_path, translate_tree(tmp_path)


def test_each_file_is_one_row_naming_the_tables_it_defines(results):
    root, rows = results
    assert [r.path for r in rows] == legacy_files(root)
    by_file = {str(r.path.relative_to(root)): r for r in rows}
    assert by_file["tsql/order_totals.sql"].tables == ("totals", "named")
    assert by_file["snowflake/nations.sql"].tables == ("nations",)
    refused = by_file["oracle/unknown.sql"]
    assert not refused.translated and refused.tables == ()
    assert [d.rule for d in refused.diagnostics] == ["NAME-UNKNOWN"]


def test_the_reports_show_the_tables_of_a_script(results):
    root, rows = results
    markdown = render_markdown(rows, root)
    assert "3 files: 2 translated, 1 refused." in markdown
    assert "| `tsql/order_totals.sql` | tsql | translated | totals, named |" in markdown
    assert "<td>totals, named</td>" in render_html(rows, root)
