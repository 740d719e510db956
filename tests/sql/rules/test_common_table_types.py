"""A column of a WITH query has the type of its expression, for the date rules of the query
that reads it: DATEADD of a CTE's DATE_TRUNC(TO_TIMESTAMP_NTZ(n)) is date arithmetic on a
TIMESTAMP, translated and run on DuckDB and Spark against hand-written timestamps."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.render import render
from sql.translate import translate

T = dt.datetime

SOURCE = (
    "WITH months AS (SELECT o_orderkey AS k,"
    " DATE_TRUNC('MONTH', TO_TIMESTAMP_NTZ(o_custkey / 1000000)) AS m FROM SALES.ORDERS)"
    " SELECT a.k AS later, b.k AS earlier FROM months a JOIN months b"
    " ON a.m = DATEADD(MONTH, 1, b.m)"
)
# (o_orderkey, o_custkey: microseconds since 1970)
ROWS = [
    (1, 1706745600000000),  # 2024-02-01 00:00:00
    (2, 1709251199000000),  # 2024-02-29 23:59:59
    (3, 1704067200000000),  # 2024-01-01 00:00:00
    (4, 1711929600000000),  # 2024-04-01 00:00:00
]


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


def test_dateadd_of_a_with_query_column_runs_as_timestamp_arithmetic(spark):
    ansi_sql = translate(SOURCE, "snowflake").ansi_sql
    values = ", ".join(f"({k}, {c})" for k, c in ROWS)
    table = f"(SELECT * FROM (VALUES {values}) AS v(o_orderkey, o_custkey))"
    ansi_sql = ansi_sql.replace('"raw"."orders"', table)
    expected = [(1, 3), (2, 3)]  # February follows January; March has no orders
    on_duckdb = sorted(duckdb.connect().sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == expected
