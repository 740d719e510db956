"""The Markdown lineage view: one row per column, and hostile SQL cannot break the table."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.warehouse.lineage_view import (
    LineageRow,
    lineage_markdown,
    lineage_rows,
    markdown_text,
    portable_sources,
    short_expression,
)


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row, split on unescaped pipes."""
    cells, cell, escaped = [], "", False
    for char in line.strip().strip("|"):
        if char == "|" and not escaped:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
        escaped = char == "\\" and not escaped
    return [*cells, cell.strip()]


def test_one_row_per_column_with_expression_location_and_sources():
    text = lineage_markdown(
        [
            LineageRow(
                "ship_date",
                "l_shipdate AS ship_date,",
                "sql/legacy/x/a.sql:3",
                ["raw/lineitem.l_shipdate"],
            ),
            LineageRow("one", "1 AS one", "sql/legacy/x/a.sql:4", []),
        ]
    )
    header, _, first, second = text.strip().splitlines()
    assert _cells(header) == ["column", "expression", "defined at", "reads"]
    assert _cells(first) == [
        "ship_date",
        "l_shipdate AS ship_date",
        "sql/legacy/x/a.sql:3",
        "raw/lineitem.l_shipdate",
    ]
    assert _cells(second)[3] == "(no column)"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a || b", "a \\|\\| b"),
        ("`x`", "\\`x\\`"),
        ("<script>", "&lt;script>"),
        ("a\n  b", "a b"),
        ("\\|", "\\\\\\|"),
    ],
)
def test_markdown_text_escapes_what_would_break_a_cell(raw, shown):
    assert markdown_text(raw) == shown


def test_hostile_sql_stays_in_its_cell():
    row = LineageRow("c|d", "'x' || `y` AS c", "f.sql:1", ["raw/t.a|b"])
    [line] = lineage_markdown([row]).strip().splitlines()[2:]
    assert len(_cells(line)) == 4


def test_long_expressions_are_cut():
    assert short_expression("x" * 500, limit=20) == "x" * 19 + "…"


def test_rows_from_legacy_sql_name_the_line_and_the_sources():
    sql = "SELECT\n  l_shipdate AS ship_date,\n  l_a || '|' AS odd\nFROM lineitem"
    rows = lineage_rows(
        ["ship_date", "odd"],
        {"ship_date": [["raw.lineitem", "l_shipdate"]], "odd": [["raw.lineitem", "l_a"]]},
        sql,
        "snowflake",
        "sql/legacy/snowflake/f.sql",
    )
    assert rows[0] == LineageRow(
        "ship_date",
        "l_shipdate AS ship_date,",
        "sql/legacy/snowflake/f.sql:2",
        ("raw/lineitem.l_shipdate",),
    )
    assert rows[1].location == "sql/legacy/snowflake/f.sql:3"
    assert "l_a \\|\\| '\\|' AS odd" in lineage_markdown(rows)


def test_portable_sources_read_the_pinned_inputs(tmp_path):
    folder = tmp_path / "orders"
    folder.mkdir()
    pq.write_table(
        pa.table({"o_orderkey": [1], "o_ts": pa.array([0], pa.timestamp("ns"))}),
        folder / "part-0.parquet",
    )
    sql = 'SELECT "o"."o_orderkey" + 1 AS "next", "o"."o_ts" AS "ts" FROM "raw"."orders" AS "o"'
    assert portable_sources(sql, ["next", "ts"], {"raw.orders": folder}) == {
        "next": [("raw.orders", "o_orderkey")],
        "ts": [("raw.orders", "o_ts")],
    }
