"""Oracle's LAST_DAY over a DATE typed as `catalog import` types it (TIMESTAMP(0)): the last day
of the month at the same time of day, as Oracle's reference shows (``LAST_DAY(SYSDATE) -
SYSDATE`` is a whole number of days,
https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/LAST_DAY.html), on DuckDB
and Spark; over a DATE typed DATE it stays a DATE; fractional seconds are refused."""

from __future__ import annotations

import datetime as dt

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import imported_catalog, rows_on_engines

T = dt.datetime
DDL = "CREATE TABLE sales.t (id NUMBER(10), d DATE, ts TIMESTAMP)"
ROWS = (
    "SELECT id, CAST(d AS TIMESTAMP) AS d, CAST(d AS TIMESTAMP) AS ts FROM (VALUES "
    "(1, TIMESTAMP '2024-02-10 13:45:59'), (2, TIMESTAMP '2023-12-31 23:59:59'), "
    "(3, TIMESTAMP '2024-01-01 00:00:00'), (4, NULL)) AS v(id, d)"
)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("catalog"), "oracle", DDL)


def test_oracle_last_day_keeps_the_time_of_day_on_both_engines(spark_engine, catalog):
    ansi_sql = translate("SELECT id, LAST_DAY(d) AS v FROM sales.t", "oracle", catalog=catalog)
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session().newSession(), ansi_sql.ansi_sql, t=ROWS
    )
    want = [
        (1, T(2024, 2, 29, 13, 45, 59)),
        (2, T(2023, 12, 31, 23, 59, 59)),
        (3, T(2024, 1, 31)),
        (4, None),
    ]
    assert sorted(on_duckdb) == sorted(on_spark) == want


def test_oracle_last_day_of_fractional_seconds_is_refused(catalog):
    with pytest.raises(TranslationError, match="fractional seconds"):
        translate("SELECT LAST_DAY(ts) AS v FROM sales.t", "oracle", catalog=catalog)
