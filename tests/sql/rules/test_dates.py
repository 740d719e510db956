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


# Snowflake's DATE_PART(EPOCH_*), against the values of its DATE_PART examples
# (https://docs.snowflake.com/en/sql-reference/functions/date_part: '2024-04-08 23:39:20.123'
# is 1712619560 seconds and 1712619560123 milliseconds after 1970-01-01 00:00:00, the
# fraction dropped) and Unix times worked out by hand.
SNOWFLAKE_DDL = (
    "CREATE TABLE sales.e (id NUMBER(10), d DATE, ts TIMESTAMP_NTZ(6));\n"
    "CREATE TABLE sales.texts (id NUMBER(10), txt VARCHAR(30))"
)


def _epoch_rows(*rows: str) -> str:
    return (
        "SELECT id, CAST(d AS DATE) AS d, CAST(ts AS TIMESTAMP) AS ts FROM (VALUES "
        + ", ".join(rows)
        + ") AS v(id, d, ts)"
    )


@pytest.fixture(scope="module")
def snowflake_catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("snowflake"), "snowflake", SNOWFLAKE_DDL)


def test_snowflake_epoch_parts_of_written_moments_are_read_at_translation(snowflake_catalog):
    source = (
        "SELECT DATE_PART(EPOCH_SECOND, '2024-04-08 23:39:20.123'::TIMESTAMP) AS s, "
        "DATE_PART(epoch_millisecond, CAST('2024-04-08 23:39:20.123' AS TIMESTAMP)) AS ms, "
        "DATE_PART(EPOCH_MICROSECOND, '2014-03-01'::TIMESTAMP) AS us, "
        "DATE_PART(EPOCH_NANOSECOND, '1969-12-31 23:59:59.5'::TIMESTAMP) AS ns, "
        "EXTRACT(EPOCH_SECOND FROM '2024-04-08'::DATE) AS d"
    )
    ansi_sql = translate(source, "snowflake", catalog=snowflake_catalog).ansi_sql
    assert " ".join(ansi_sql.split()) == (
        'SELECT CAST(1712619560 AS BIGINT) AS "s", CAST(1712619560123 AS BIGINT) AS "ms", '
        'CAST(1393632000000000 AS BIGINT) AS "us", CAST(-500000000 AS BIGINT) AS "ns", '
        'CAST(1712534400 AS BIGINT) AS "d"'
    )


def test_snowflake_epoch_seconds_of_columns_on_both_engines(spark_engine, snowflake_catalog):
    source = "SELECT id, DATE_PART(EPOCH_SECOND, d) AS d, DATE_PART(EPOCH, ts) AS ts FROM sales.e"
    ansi_sql = translate(source, "snowflake", catalog=snowflake_catalog).ansi_sql
    rows = _epoch_rows(
        "(1, '2024-04-08', '2024-04-08 23:39:20.123')",
        "(2, '1969-12-31', '1969-12-31 23:59:59')",  # before 1970, a whole second: exact
        "(3, '1970-01-01', '1970-01-01 00:00:00.999999')",
        "(4, NULL, NULL)",
    )
    on_duckdb, on_spark = rows_on_engines(spark_engine.session().newSession(), ansi_sql, e=rows)
    want = [(1, 1712534400, 1712619560), (2, -86400, -1), (3, 0, 0), (4, None, None)]
    assert sorted(on_duckdb, key=repr) == sorted(on_spark, key=repr) == sorted(want, key=repr)


def test_snowflake_epoch_second_stops_before_1970_on_a_fraction(spark_engine, snowflake_catalog):
    """Rounded down it is -1, toward zero 0: Snowflake's documentation does not say which."""
    source = "SELECT DATE_PART(EPOCH_SECOND, ts) AS ts FROM sales.e"
    result = translate(source, "snowflake", catalog=snowflake_catalog)
    assert result.guards == ("DATE-PART",)
    rows = _epoch_rows("(1, NULL, '1969-12-31 23:59:59.5')")
    with pytest.raises(Exception, match="DATE-PART"):
        rows_on_engines(spark_engine.session().newSession(), result.ansi_sql, e=rows)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("SELECT DATE_PART(EPOCH_MILLISECOND, ts) AS v FROM sales.e", "sub-second"),
        ("SELECT DATE_PART(EPOCH_MICROSECOND, d) AS v FROM sales.e", "of a DATE"),
        (
            "SELECT DATE_PART(EPOCH_SECOND, '1969-12-31 23:59:59.5'::TIMESTAMP) AS v",
            "rounds down or toward zero",
        ),
        ("SELECT DATE_PART(EPOCH_SECOND, id) AS v FROM sales.e", "not a DATE or a TIMESTAMP"),
        # TIMESTAMP(3) keeps three of the four digits written
        (
            "SELECT DATE_PART(EPOCH_MICROSECOND, '2014-03-01 00:00:00.1234'::TIMESTAMP(3)) AS v",
            "at its precision",
        ),
    ],
)
def test_snowflake_epoch_parts_without_an_exact_form_are_refused(
    snowflake_catalog, source, message
):
    with pytest.raises(TranslationError, match=message) as raised:
        translate(source, "snowflake", catalog=snowflake_catalog)
    assert [d.rule for d in raised.value.diagnostics] == ["DATE-PART"]


TEXT_ROWS = (
    "SELECT * FROM (VALUES (1, '2024-01-01'), (1, '2024-01-05'), (2, '2024-01-10')) AS v(id, txt)"
)
# Each reads a column of an earlier WITH query that a typed rule rewrote (TO_TIMESTAMP of
# text, spider2 sf_local003's shape) after the query's types were annotated.
LATEST = "WITH c AS (SELECT id, TO_TIMESTAMP(txt) AS t FROM sales.texts), m AS (SELECT MAX(t) AS mt FROM c)"


def test_snowflake_dateadd_reads_the_type_of_a_scalar_subquery(spark_engine, snowflake_catalog):
    """A scalar subquery has its one column's type (the typed DATE-ADD reads it)."""
    source = f"{LATEST} SELECT DATEADD(day, 1, (SELECT mt FROM m)) AS d"
    ansi_sql = translate(source, "snowflake", catalog=snowflake_catalog).ansi_sql
    spark = spark_engine.session().newSession()
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, texts=TEXT_ROWS)
    assert on_duckdb == on_spark == [(T(2024, 1, 11),)]


def test_snowflake_date_diff_in_a_later_with_query(spark_engine, snowflake_catalog):
    """DATE-DIFF runs after the typed rules rewrote the WITH queries it reads."""
    source = (
        f"{LATEST}, r AS (SELECT id, DATEDIFF(day, MAX(t), (SELECT mt FROM m)) AS d "
        "FROM c GROUP BY id) SELECT id, d FROM r"
    )
    ansi_sql = translate(source, "snowflake", catalog=snowflake_catalog).ansi_sql
    spark = spark_engine.session().newSession()
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, texts=TEXT_ROWS)
    assert on_duckdb == on_spark == [(1, 5), (2, 0)]
