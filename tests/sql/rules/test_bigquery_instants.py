"""BigQuery functions of a TIMESTAMP (an instant) read in UTC, BigQuery's default zone, on
DuckDB and Spark sessions as plumbline opens them (pinned to UTC), against values written
out by hand."""

from __future__ import annotations

import datetime

import pytest

from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

# Spark reaches a session's views under one qualified name only: global_temp.
ZONE = "global_temp"
# Each instant as text with its offset; the table holds the instants.
INSTANTS = [
    "2024-01-01 23:30:00-05:00",  # 2024-01-02 04:30 UTC
    "2024-01-02 00:00:00+00:00",
    "2023-12-31 23:59:59.999999+00:00",
    "2024-03-01 01:00:00+02:00",  # 2024-02-29 23:00 UTC
    "1969-12-31 23:59:59.5+00:00",
    None,
]
CATALOG = Catalog(
    tables={f"{ZONE}.instants": {"i": "BIGINT", "ts": "TIMESTAMP WITH TIME ZONE"}},
    legacy={"bigquery": {("shop", "web", "instants"): f"{ZONE}.instants"}},
)


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = connect_duckdb()
    con.execute(f"CREATE SCHEMA {ZONE}")
    values = ", ".join(
        f"({i}, {'NULL' if text is None else repr(text)})" for i, text in enumerate(INSTANTS)
    )
    rows = f"SELECT i, ts FROM (VALUES {values}) AS t(i, ts)"
    con.execute(
        f"CREATE TABLE {ZONE}.instants AS SELECT CAST(i AS BIGINT) AS i, "
        f"CAST(ts AS TIMESTAMPTZ) AS ts FROM ({rows})"
    )
    spark = spark_engine.session().newSession()
    spark.sql(
        f"SELECT CAST(i AS BIGINT) AS i, CAST(ts AS TIMESTAMP) AS ts FROM ({rows})"
    ).createOrReplaceGlobalTempView("instants")
    yield con, spark
    con.close()


def _day(text: str) -> datetime.date:
    return datetime.date.fromisoformat(text)


# (expression of ts, the value for each instant in INSTANTS' order)
CASES = [
    (
        "DATE(ts)",
        [
            _day("2024-01-02"),
            _day("2024-01-02"),
            _day("2023-12-31"),
            _day("2024-02-29"),
            _day("1969-12-31"),
            None,
        ],
    ),
    # Rounded down: half a second before the epoch is -1, not 0.
    ("UNIX_SECONDS(ts)", [1704169800, 1704153600, 1704067199, 1709247600, -1, None]),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_instants_read_in_utc_on_both_engines(engines, expression, expected):
    con, spark = engines
    source = f"SELECT i, {expression} AS v FROM `shop.web.instants`"
    ansi_sql = translate(source, "bigquery", catalog=CATALOG).ansi_sql
    on_duckdb = dict(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = {r[0]: r[1] for r in spark.sql(render(ansi_sql, "spark")).collect()}
    assert [on_duckdb[i] for i in range(len(INSTANTS))] == expected, ansi_sql
    assert [on_spark[i] for i in range(len(INSTANTS))] == expected, ansi_sql


@pytest.mark.parametrize(
    ("expression", "rule", "says"),
    [
        # DATE(STRING) is a signature BigQuery's documentation does not describe.
        ("DATE(o_comment)", "FN-DATE-OF", "CAST(s AS DATE)"),
        # An instant made in the query has no type the engines share.
        ("TIMESTAMP(o_comment)", "FN-TIMESTAMP-OF", "instant"),
        ("TIMESTAMP(o_orderdate)", "FN-TIMESTAMP-OF", "instant"),
    ],
)
def test_strings_and_dates_made_instants_are_refused_with_the_reason(expression, rule, says):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {expression} AS v FROM sales.orders", "bigquery")
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == (rule, 1, 8)
    assert says in diagnostic.message
