"""The lineage view: one row per column, each fact in its own cell."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.warehouse.lineage_view import (
    LineageRow,
    lineage_records,
    lineage_rows,
    markdown_text,
    portable_sources,
    short_expression,
)


def test_one_row_per_column_with_expression_location_and_sources():
    records = lineage_records(
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
    assert records == [
        {
            "column": "ship_date",
            "expression": "l_shipdate AS ship_date",
            "defined at": "sql/legacy/x/a.sql:3",
            "reads": "raw/lineitem.l_shipdate",
        },
        {
            "column": "one",
            "expression": "1 AS one",
            "defined at": "sql/legacy/x/a.sql:4",
            "reads": "(no column)",
        },
    ]


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


def test_an_expression_over_several_lines_is_shown_on_one():
    [record] = lineage_records([LineageRow("c", "CASE\n  WHEN a THEN 1\nEND AS c,", "f.sql:1-3")])
    assert record["expression"] == "CASE WHEN a THEN 1 END AS c"


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
    assert lineage_records(rows)[1]["expression"] == "l_a || '|' AS odd"


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
