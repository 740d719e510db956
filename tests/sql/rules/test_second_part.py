"""DATEPART / DATE_PART / EXTRACT of SECOND (DATE-PART, sql/rules/dates.py): whole seconds
where the source's is an integer (T-SQL, Snowflake, BigQuery, Redshift), the fraction where
the source keeps it as the standard does (Teradata), one value on both engines (sql/render.py
renders the standard's fractional EXTRACT(SECOND) for DuckDB)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sql.translate import translate
from tests.sql.engine_tables import first_values

# (dialect, the second part of 2024-03-01 09:05:07.25 as the dialect writes it, its table,
# the value the source gives)
CASES = [
    ("tsql", "DATEPART(second, CAST('2024-03-01 09:05:07.25' AS DATETIME2))", "dbo.Orders", 7),
    ("tsql", "DATEPART(ss, CAST('2024-03-01 09:05:59.997' AS DATETIME))", "dbo.Orders", 59),
    (
        "snowflake",
        "DATE_PART(second, TO_TIMESTAMP_NTZ('2024-03-01 09:05:07.25'))",
        "sales.orders",
        7,
    ),
    (
        "bigquery",
        "EXTRACT(SECOND FROM DATETIME '2024-03-01 09:05:07.25')",
        "sales.orders",
        7,
    ),
    (
        "redshift",
        "EXTRACT(SECOND FROM CAST('2024-03-01 09:05:07.25' AS TIMESTAMP))",
        "sales.orders",
        7,
    ),
    (
        "teradata",
        "EXTRACT(SECOND FROM TIMESTAMP '2024-03-01 09:05:07.25')",
        "SALES_DB.ORDERS",
        Decimal("7.25"),
    ),
]


@pytest.mark.parametrize(("dialect", "part", "table", "want"), CASES)
def test_the_second_part_is_the_sources_on_both_engines(spark_engine, dialect, part, table, want):
    ansi = translate(f"SELECT {part} AS s FROM {table}", dialect).ansi_sql
    one_row = '(SELECT 1 AS "x") AS "orders"'
    query = ansi.replace('"raw"."orders" AS "orders"', one_row)
    on_duckdb, on_spark = first_values(query, spark_engine.session())
    assert on_duckdb == on_spark == want
