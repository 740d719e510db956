"""Where a column is defined: the projection's lines in a file, a script, or portable ANSI."""

from __future__ import annotations

import pytest

from sql.lineage import column_sources, projection_lines

QUERY = """SELECT
  o.o_orderkey AS order_key,
  CASE
    WHEN o.o_totalprice > 100 THEN 'big'
    ELSE 'small'
  END AS size,
  1 AS one
FROM raw.orders AS o
"""

SCRIPT = """CREATE TABLE first_table AS
SELECT o_orderkey AS k FROM raw.orders;

CREATE TABLE second_table AS
SELECT
  o_custkey AS k
FROM raw.orders;
"""


@pytest.mark.parametrize(
    ("column", "first", "last", "starts"),
    [
        ("order_key", 2, 2, "o.o_orderkey AS order_key"),
        # CASE carries no position of its own: the projection starts after the comma.
        ("SIZE", 3, 6, "CASE"),
        ("one", 7, 7, "1 AS one"),
    ],
)
def test_projection_lines(column, first, last, starts):
    found = projection_lines(QUERY, None, column)
    assert found is not None
    assert found[:2] == (first, last)
    assert found[2].startswith(starts)


def test_projection_lines_of_a_missing_column_is_none():
    assert projection_lines(QUERY, None, "nothing") is None


@pytest.mark.parametrize(("table", "line"), [("first_table", 2), ("second_table", 6), (None, 6)])
def test_in_a_script_the_statement_that_creates_the_table(table, line):
    found = projection_lines(SCRIPT, "snowflake", "k", table)
    assert found is not None and found[0] == line


def test_column_sources_of_plain_ansi_over_the_lake():
    sql = 'SELECT "o"."o_orderkey" AS "k", 1 AS "one" FROM "raw"."orders" AS "o"'
    schema = {"raw": {"orders": {"o_orderkey": "BIGINT", "o_custkey": "BIGINT"}}}
    assert column_sources(sql, ["k", "one"], schema) == {
        "k": [("raw.orders", "o_orderkey")],
        "one": [],
    }
