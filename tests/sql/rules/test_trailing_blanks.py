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
