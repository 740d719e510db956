"""The translation report: one row per file, a script that defines several tables included."""

from __future__ import annotations

import ast
import itertools
import os
import re
from pathlib import Path

import pytest

from sql.paths import REPOSITORY_ROOT
from sql.report import legacy_files, render_html, render_markdown, translate_tree
from sql.rules import load_all
from sql.rules_doc import DOC_PATH, OTHER_DIAGNOSTICS, anchor

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


def test_every_path_in_the_report_is_relative_to_the_legacy_root(results):
    root, rows = results
    for text in (render_markdown(rows, root), render_html(rows, root)):
        assert str(root) not in text
        assert str(REPOSITORY_ROOT) not in text  # the catalog searched is named too
        # The refusal names its file as the file column does, and the catalog it searched.
        assert "oracle/unknown.sql:1:15: error[" in text
        assert "(searched: sql/catalog.yaml)" in text


def test_rule_ids_link_to_their_entry_in_the_rules_doc(results, tmp_path):
    root, rows = results
    doc = "../docs/translation-rules.md"  # from a report written to <repository>/reports
    report_dir = REPOSITORY_ROOT / "reports"
    markdown = render_markdown(rows, root, report_dir)
    assert f"[NAME-UNKNOWN]({doc}#name-unknown)" in markdown
    assert f"error[[NAME-UNKNOWN]({doc}#name-unknown)]: table 'SALES.NO_SUCH_TABLE'" in markdown
    assert f"| [PORTABLE-TYPE]({doc}#portable-type) | 1 |" in markdown
    page = render_html(rows, root, report_dir)
    assert f'error[<a href="{doc}#name-unknown"><code>NAME-UNKNOWN</code></a>]' in page
    assert f'<a href="{doc}#portable-type"><code>PORTABLE-TYPE</code></a>' in page
    # From anywhere else, the link is relative to that folder.
    elsewhere = render_markdown(rows, root, tmp_path / "out")
    relative = Path(os.path.relpath(DOC_PATH, tmp_path / "out")).as_posix()
    assert f"({relative}#name-unknown)" in elsewhere


def test_every_diagnostic_id_the_translator_reports_has_an_entry_in_the_rules_doc():
    """Each id written in a ``Diagnostic(...)`` or ``report(...)`` call under sql/ is a rule
    or one of OTHER_DIAGNOSTICS, and docs/translation-rules.md has its heading (anchor)."""
    reported = set()
    for path in (REPOSITORY_ROOT / "sql").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in ("Diagnostic", "report", "_report"):
                continue
            # The id follows the severity: report("error", "ID", ...), _report(ctx, "error", ...)
            values = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
            for severity, rule_id in itertools.pairwise(values):
                if severity in ("error", "warning", "info") and isinstance(rule_id, str):
                    reported.add(rule_id)
    assert {"NAME-UNKNOWN", "OPAQUE-TYPE", "SOURCE-TEXT", "TSQL-DATEFIRST"} <= reported
    known = set(load_all()) | set(OTHER_DIAGNOSTICS)
    assert reported - known == set()
    headings = re.findall(r"^### `([A-Z0-9-]+)`$", DOC_PATH.read_text(), re.MULTILINE)
    assert len(headings) == len(set(headings))  # one entry each: anchors are unique
    assert {anchor(h) for h in headings} >= {anchor(i) for i in known}
