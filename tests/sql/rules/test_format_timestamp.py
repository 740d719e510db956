"""BigQuery FORMAT_TIMESTAMP of an instant prints its fields in UTC (no zone given, or 'UTC'),
on DuckDB and Spark sessions pinned to UTC; the expected texts are Python's, of the instant
converted to UTC."""

from __future__ import annotations

import datetime as dt

import pytest

from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

CATALOG = Catalog(
    tables={"raw.instants": {"id": "BIGINT", "moment": "TIMESTAMP WITH TIME ZONE"}},
    legacy={"bigquery": {("p", "s", "instants"): "raw.instants"}},
    opaque={},
    sources=("test_format_timestamp.py",),
)
EAST = dt.timezone(dt.timedelta(hours=-5))
# A leap day in UTC, an instant whose UTC date is a day (and a year) later than its local
# one, a year of one digit, the last second of a day.
INSTANTS = [
    (1, dt.datetime(2024, 2, 29, 23, 30, 0, tzinfo=dt.UTC)),
    (2, dt.datetime(1999, 12, 31, 23, 59, 59, tzinfo=EAST)),
    (3, dt.datetime(5, 3, 7, 12, 0, 1, tzinfo=dt.UTC)),
    (4, dt.datetime(2023, 6, 30, 23, 59, 59, 999000, tzinfo=dt.UTC)),
]


def _rows(ansi_sql: str, spark_engine) -> tuple[list[tuple], list[tuple]]:
    local = ansi_sql.replace('"raw"."instants"', '"instants"')
    with connect_duckdb() as con:
        con.execute("CREATE TABLE instants (id BIGINT, moment TIMESTAMPTZ)")
        con.executemany("INSERT INTO instants VALUES (?, ?)", INSTANTS)
        on_duckdb = con.sql(render(local, "duckdb")).fetchall()
    spark = spark_engine.session()
    spark.createDataFrame(INSTANTS, "id BIGINT, moment TIMESTAMP").createOrReplaceTempView(
        "instants"
    )
    on_spark = [tuple(row) for row in spark.sql(render(local, "spark")).collect()]
    return sorted(on_duckdb), sorted(on_spark)


def test_format_timestamp_prints_the_utc_fields_on_both_engines(spark_engine):
    ansi_sql = translate(
        "SELECT id, FORMAT_TIMESTAMP('%Y-%m-%d %H:%M:%S', moment) AS a,"
        " FORMAT_TIMESTAMP('%Y%m|%j|%b', moment, 'UTC') AS b FROM p.s.instants",
        "bigquery",
        catalog=CATALOG,
    ).ansi_sql
    expected = []
    for key, instant in INSTANTS:
        utc = instant.astimezone(dt.UTC)
        day = f"{utc.year}-{utc.month:02d}-{utc.day:02d}"
        clock = f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        other = f"{utc.year}{utc.month:02d}|{utc.timetuple().tm_yday:03d}|{utc.strftime('%b')}"
        expected.append((key, f"{day} {clock}", other))
    on_duckdb, on_spark = _rows(ansi_sql, spark_engine)
    assert on_duckdb == on_spark == sorted(expected), ansi_sql


@pytest.mark.parametrize(
    "source",
    [
        "SELECT FORMAT_TIMESTAMP('%Y-%m', moment, 'America/New_York') AS a FROM p.s.instants",
        "SELECT FORMAT_TIMESTAMP('%Y-%m', moment, zone) AS a FROM p.s.instants"
        " CROSS JOIN (SELECT 'UTC' AS zone)",
    ],
)
def test_format_timestamp_in_another_zone_is_refused(source):
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery", catalog=CATALOG)
    assert {d.rule for d in raised.value.diagnostics} == {"FMT-TO-CHAR"}
