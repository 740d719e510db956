"""BigQuery's GROUP BY names that are select-list columns, on DuckDB and Spark against rows
written out by hand."""

from __future__ import annotations

import duckdb
import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

# Spark reaches a session's views under one qualified name only: global_temp.
ZONE = "global_temp"
TABLES = {
    "left_rows": ("k BIGINT, v BIGINT", "(1, 10), (2, 20), (NULL, 30), (1, 40)"),
    "right_rows": ("k BIGINT, v BIGINT", "(5, 10), (6, 20), (7, 30), (8, 40)"),
}
CATALOG = Catalog(
    tables={f"{ZONE}.{name}": {"k": "BIGINT", "v": "BIGINT"} for name in TABLES},
    legacy={"bigquery": {("shop", "web", name): f"{ZONE}.{name}" for name in TABLES}},
)


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {ZONE}")
    spark = spark_engine.session().newSession()
    for name, (columns, values) in TABLES.items():
        names = ", ".join(c.split()[0] for c in columns.split(", "))
        casts = ", ".join(
            f"CAST({c.split()[0]} AS BIGINT) AS {c.split()[0]}" for c in columns.split(", ")
        )
        query = f"SELECT {casts} FROM (VALUES {values}) AS t({names})"
        con.execute(f"CREATE TABLE {ZONE}.{name} AS {query}")
        spark.sql(query).createOrReplaceGlobalTempView(name)
    yield con, spark
    con.close()


def _key(row: tuple) -> tuple:
    return tuple((value is None, value) for value in row)


JOINED = "FROM `shop.web.left_rows` AS l JOIN `shop.web.right_rows` AS r ON l.v = r.v"
# (BigQuery query, its rows by hand)
CASES = [
    # k is a column of both tables: GROUP BY k is the selected l.k (keys 1, 2, NULL), not r.k.
    (f"SELECT l.k, COUNT(*) AS n {JOINED} GROUP BY k", [(1, 2), (2, 1), (None, 1)]),
    (f"SELECT r.k, SUM(l.v) AS s {JOINED} GROUP BY k", [(5, 10), (6, 20), (7, 30), (8, 40)]),
    # Named as the column's own name, case aside.
    (f"SELECT l.k AS K, COUNT(*) AS n {JOINED} GROUP BY k", [(1, 2), (2, 1), (None, 1)]),
    # One table: the bare name was that column already.
    (
        "SELECT l.k, MAX(l.v) AS m FROM `shop.web.left_rows` AS l GROUP BY k",
        [(1, 40), (2, 20), (None, 30)],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_group_by_a_selected_column_groups_by_it_on_both_engines(engines, source, expected):
    con, spark = engines
    ansi_sql = translate(source, "bigquery", catalog=CATALOG).ansi_sql
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=_key)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=_key)
    assert on_duckdb == on_spark == sorted(expected, key=_key), ansi_sql


# Where the select list does not say which column the name is, it stays ambiguous.
AMBIGUOUS = [
    f"SELECT l.k AS a, r.k AS b, COUNT(*) AS n {JOINED} GROUP BY k",
    f"SELECT l.k, r.k, COUNT(*) AS n {JOINED} GROUP BY k",
]


@pytest.mark.parametrize("source", AMBIGUOUS)
def test_a_name_the_select_list_does_not_settle_is_not_resolved(source):
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery", catalog=CATALOG)
    assert raised.value.diagnostics[0].rule == "COLUMN-UNKNOWN", raised.value
