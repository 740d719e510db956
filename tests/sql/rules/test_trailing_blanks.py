"""Redshift compares text ignoring trailing spaces ("Trailing spaces in VARCHAR and CHAR
values are treated as semantically insignificant when values are compared"; its own example:
'9516 Magnolia Boulevard' and '9516 Magnolia Boulevard  ' match), as T-SQL and Teradata pad
the shorter value: run on DuckDB and Spark against that documented behaviour."""

from __future__ import annotations

import pytest

from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

ROWS = "(1, '9516 Magnolia Boulevard'), (2, '9516 Magnolia Boulevard  '), (3, 'b'), (4, 'b ')"


@pytest.fixture(scope="module")
def engines(spark_engine):
    customers = (
        "SELECT CAST(k AS BIGINT) AS c_custkey, CAST(a AS VARCHAR(40)) AS c_address "
        f"FROM (VALUES {ROWS}) AS t(k, a)"
    )
    with engine_tables(spark_engine, customer=customers) as engines:
        yield engines


@pytest.mark.parametrize(
    ("condition", "keys"),
    [
        ("c_address = '9516 Magnolia Boulevard'", [1, 2]),
        ("c_address = '9516 Magnolia Boulevard '", [1, 2]),
        ("c_address <> 'b'", [1, 2]),
        ("c_address IN ('b', 'x')", [3, 4]),
        ("c_address < 'b'", [1, 2]),
        ("c_address BETWEEN 'b' AND 'b'", [3, 4]),
        ("c_address > '9516 Magnolia Boulevard'", [3, 4]),
    ],
)
def test_redshift_comparisons_ignore_trailing_spaces(engines, condition, keys):
    con, spark = engines
    source = f"SELECT c_custkey FROM sales.customer WHERE {condition}"
    ansi_sql = translate(source, "redshift").ansi_sql.replace('"raw"."customer"', '"customer"')
    on_duckdb = sorted(k for (k,) in con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == keys
    assert on_spark == keys


def test_oracle_reads_an_empty_string_of_the_lake_as_null(engines):
    """Oracle holds '' as NULL ("a character value with a length of zero ... is null"): a ''
    the lake holds (data from another system) is read as Oracle would have stored it."""
    con, spark = engines
    source = (
        "SELECT c_custkey, NVL(c_address, 'none') AS a, LENGTH(c_address) AS n "
        "FROM SALES.CUSTOMER WHERE c_custkey IN (1, 5)"
    )
    ansi_sql = translate(source, "oracle").ansi_sql.replace('"raw"."customer"', '"customer"')
    con.execute("INSERT INTO customer VALUES (5, '')")
    spark.sql("SELECT 5 AS c_custkey, '' AS c_address").createOrReplaceTempView("extra")
    spark.sql("SELECT * FROM customer UNION ALL SELECT * FROM extra").createOrReplaceTempView(
        "customer_with_empty"
    )
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    spark_sql = render(ansi_sql, "spark").replace("`customer` AS", "`customer_with_empty` AS")
    on_spark = sorted(tuple(r) for r in spark.sql(spark_sql).collect())
    expected = [(1, "9516 Magnolia Boulevard", 23), (5, "none", None)]
    assert on_duckdb == expected
    assert on_spark == expected
