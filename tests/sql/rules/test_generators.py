"""Row generators become recursive queries with the source's rows, on DuckDB and Spark."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

D = dt.date

CASES = [
    # Oracle: LEVEL counts from 1; the first row is there even when the bound is below 1
    ("oracle", "SELECT LEVEL AS n FROM DUAL CONNECT BY LEVEL <= 3", [(1,), (2,), (3,)]),
    ("oracle", "SELECT LEVEL AS n FROM DUAL CONNECT BY LEVEL <= 0", [(1,)]),
    ("oracle", "SELECT LEVEL * 10 AS n FROM DUAL CONNECT BY LEVEL < 3", [(10,), (20,)]),
    (
        "oracle",
        "SELECT ADD_MONTHS(DATE '2024-01-31', LEVEL - 1) AS d FROM DUAL CONNECT BY LEVEL <= 3",
        [(D(2024, 1, 31),), (D(2024, 2, 29),), (D(2024, 3, 31),)],
    ),
    # BigQuery: GENERATE_ARRAY's values and WITH OFFSET's 0-based positions; empty when start > end
    (
        "bigquery",
        "SELECT n, o FROM UNNEST(GENERATE_ARRAY(1, 10, 3)) AS n WITH OFFSET AS o",
        [(1, 0), (4, 1), (7, 2), (10, 3)],
    ),
    ("bigquery", "SELECT n FROM UNNEST(GENERATE_ARRAY(5, 1)) AS n", []),
    (
        "bigquery",
        "SELECT d FROM UNNEST(GENERATE_DATE_ARRAY('2024-02-27', '2024-03-01')) AS d",
        [(D(2024, 2, 27),), (D(2024, 2, 28),), (D(2024, 2, 29),), (D(2024, 3, 1),)],
    ),
    (
        "bigquery",
        "SELECT d FROM UNNEST(GENERATE_DATE_ARRAY(DATE '2024-01-15', DATE '2024-04-14',"
        " INTERVAL 1 MONTH)) AS d",
        [(D(2024, 1, 15),), (D(2024, 2, 15),), (D(2024, 3, 15),)],
    ),
    # Snowflake: ROW_NUMBER over SEQ4() numbers GENERATOR's rows 1..n
    (
        "snowflake",
        "SELECT ROW_NUMBER() OVER (ORDER BY SEQ4()) AS n FROM TABLE(GENERATOR(ROWCOUNT => 4))",
        [(1,), (2,), (3,), (4,)],
    ),
    (
        "snowflake",
        "SELECT ROW_NUMBER() OVER (ORDER BY SEQ4()) AS n FROM TABLE(GENERATOR(ROWCOUNT => 0))",
        [],
    ),
    # SEQ1 wraps around after 255, yet the rows it orders are alike: still 1..n
    (
        "snowflake",
        "SELECT ROW_NUMBER() OVER (ORDER BY SEQ1()) AS n FROM TABLE(GENERATOR(ROWCOUNT => 5))",
        [(1,), (2,), (3,), (4,), (5,)],
    ),
]


@pytest.mark.parametrize(("dialect", "source", "expected"), CASES)
def test_generated_rows_are_the_sources_on_both_engines(spark_engine, dialect, source, expected):
    ansi_sql = translate(source, dialect).ansi_sql
    assert "WITH RECURSIVE" in ansi_sql
    on_duckdb = sorted(duckdb.sql(render(ansi_sql, "duckdb")).fetchall())
    spark = spark_engine.session()
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == expected, ansi_sql


@pytest.mark.parametrize(
    ("dialect", "source", "rule"),
    [
        # a month step from the 31st: clamping makes "start + k months" and "k steps" differ
        (
            "bigquery",
            "SELECT d FROM UNNEST(GENERATE_DATE_ARRAY('2024-01-31', '2024-05-31', INTERVAL 1 MONTH)) AS d",
            "ROW-GENERATOR",
        ),
        # bounds from a column depend on the row
        (
            "bigquery",
            "SELECT n FROM sales.orders, UNNEST(GENERATE_ARRAY(1, o_shippriority)) AS n",
            "ROW-GENERATOR",
        ),
        ("snowflake", "SELECT 1 AS x FROM TABLE(GENERATOR(TIMELIMIT => 5))", "ROW-GENERATOR"),
        # SEQ4's own values may have gaps
        ("snowflake", "SELECT SEQ4() AS s FROM TABLE(GENERATOR(ROWCOUNT => 3))", None),
        # a hierarchy (PRIOR) is not a row generator
        (
            "oracle",
            "SELECT n_nationkey FROM SALES.NATION START WITH n_nationkey = 0"
            " CONNECT BY PRIOR n_nationkey = n_regionkey",
            "ORA-CONNECT-BY",
        ),
    ],
)
def test_generators_without_exact_form_are_refused(dialect, source, rule):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    if rule is not None:
        assert rule in [d.rule for d in raised.value.diagnostics]
