"""BigQuery PARSE_DATE with fields left out: each one the format lacks is 1970-01-01's (as
BigQuery documents), on DuckDB and Spark."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.render import render
from sql.rules import example_catalog
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

D = dt.date
PAGES = [(1, "1985"), (2, "2024-02"), (3, "0229"), (4, None)]

# (format, {id: the date BigQuery reads from that row's text}); rows the format cannot read
# raise, so each case keeps only the rows it reads.
CASES = [
    ("%Y", {1: D(1985, 1, 1), 4: None}),
    ("%Y-%m", {2: D(2024, 2, 1), 4: None}),
    # 1970 is not a leap year: February 29 of it is no date (BigQuery raises too)
    ("%m%d", {4: None}),
]


@pytest.fixture(scope="module")
def visits(spark_engine):
    values = ", ".join(
        f"({key}, {'CAST(NULL AS VARCHAR(10))' if page is None else repr(page)})"
        for key, page in PAGES
    )
    rows = f"SELECT * FROM (VALUES {values}) AS t(id, page)"
    with engine_tables(spark_engine, visits_20240101=rows) as engines:
        yield engines


def _run(visits, source: str) -> tuple[list, list]:
    con, spark = visits
    ansi_sql = translate(source, "bigquery", catalog=example_catalog()).ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."visits_20240101"', '"visits_20240101"')
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    return on_duckdb, on_spark


@pytest.mark.parametrize(("fmt", "expected"), CASES)
def test_unspecified_fields_come_from_1970_01_01(visits, fmt, expected):
    keys = ", ".join(str(k) for k in expected)
    source = (
        f"SELECT id, PARSE_DATE('{fmt}', page) AS d FROM `acme-dw.web.visits_20240101` "
        f"WHERE id IN ({keys})"
    )
    on_duckdb, on_spark = _run(visits, source)
    assert on_duckdb == on_spark == sorted(expected.items())


@pytest.mark.parametrize(("fmt", "key"), [("%m%d", 3), ("%Y", 2)])
def test_text_the_format_does_not_read_raises_on_both_engines(visits, fmt, key):
    con, spark = visits
    source = (
        f"SELECT PARSE_DATE('{fmt}', page) AS d FROM `acme-dw.web.visits_20240101` WHERE id = {key}"
    )
    ansi_sql = translate(source, "bigquery", catalog=example_catalog()).ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."visits_20240101"', '"visits_20240101"')
    with pytest.raises(duckdb.Error):
        con.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception):  # noqa: B017  (Spark raises its own exception classes)
        spark.sql(render(ansi_sql, "spark")).collect()
