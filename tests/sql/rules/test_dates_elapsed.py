"""BigQuery TIMESTAMP_DIFF (whole units elapsed, toward zero) and Snowflake TO_DATE of a
timestamp, on DuckDB and Spark, against Python's own datetime arithmetic."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

UTC = dt.UTC
CATALOG = Catalog(
    tables={
        "raw.trips": {
            "id": "BIGINT",
            "a": "TIMESTAMP WITH TIME ZONE",
            "b": "TIMESTAMP WITH TIME ZONE",
            "la": "TIMESTAMP",
            "lb": "TIMESTAMP",
        }
    },
    legacy={
        "bigquery": {("s", "trips"): "raw.trips"},
        "snowflake": {("S", "TRIPS"): "raw.trips"},
    },
    opaque={},
    sources=("test_dates_elapsed.py",),
)


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


# (a, b): a day and an hour and a half second apart either way, half a second either way,
# over a leap day, a century before 1970, equal, and NULL.
PAIRS = [
    ("2024-01-02 01:00:01.500000", "2024-01-01 00:00:00"),
    ("2024-01-01 00:00:00", "2024-01-02 01:00:01.500000"),
    ("2024-01-01 00:00:00.500000", "2024-01-01 00:00:00"),
    ("2024-01-01 00:00:00", "2024-01-01 00:00:00.500000"),
    ("2024-03-01 00:00:00", "2024-02-28 23:59:59.999999"),
    ("1869-05-04 12:30:00", "1970-01-01 00:00:00"),
    ("2000-01-01 00:00:00", "2000-01-01 00:00:00"),
]
ROWS = [
    (i, _moment(a).replace(tzinfo=UTC), _moment(b).replace(tzinfo=UTC), _moment(a), _moment(b))
    for i, (a, b) in enumerate(PAIRS, start=1)
] + [(len(PAIRS) + 1, None, None, None, None)]
SECONDS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400}


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE trips (id BIGINT, a TIMESTAMPTZ, b TIMESTAMPTZ, la TIMESTAMP, lb TIMESTAMP)"
    )
    con.executemany("INSERT INTO trips VALUES (?, ?, ?, ?, ?)", ROWS)
    spark = spark_engine.session().newSession()
    schema = "id BIGINT, a TIMESTAMP, b TIMESTAMP, la TIMESTAMP_NTZ, lb TIMESTAMP_NTZ"
    spark.createDataFrame(ROWS, schema).createOrReplaceTempView("trips")
    yield con, spark
    con.close()


def _values(engines, ansi_sql: str) -> dict:
    con, spark = engines
    local = ansi_sql.replace('"raw"."trips"', '"trips"')
    on_duckdb = dict(con.sql(render(local, "duckdb")).fetchall())
    on_spark = {row[0]: row[1] for row in spark.sql(render(local, "spark")).collect()}
    assert on_duckdb == on_spark, local
    return on_duckdb


def _elapsed(later: dt.datetime | None, earlier: dt.datetime | None, unit: str) -> int | None:
    if later is None or earlier is None:
        return None
    micros = (later - earlier) // dt.timedelta(microseconds=1)
    whole = abs(micros) // (SECONDS[unit] * 1_000_000)
    return whole if micros >= 0 else -whole


@pytest.mark.parametrize("unit", list(SECONDS))
@pytest.mark.parametrize(("later", "earlier"), [("a", "b"), ("la", "lb")])
def test_bigquery_timestamp_diff_counts_whole_units_toward_zero(engines, unit, later, earlier):
    ansi_sql = translate(
        f"SELECT id, TIMESTAMP_DIFF({later}, {earlier}, {unit}) AS v FROM s.trips",
        "bigquery",
        catalog=CATALOG,
    ).ansi_sql
    assert _values(engines, ansi_sql) == {r[0]: _elapsed(r[1], r[2], unit) for r in ROWS}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("TIMESTAMP_DIFF(a, b, MILLISECOND)", "SECOND, MINUTE, HOUR and DAY only"),
        ("TIMESTAMP_DIFF(a, lb, SECOND)", "not both"),
    ],
)
def test_bigquery_timestamp_diff_without_an_exact_form_is_refused(call, message):
    with pytest.raises(TranslationError, match=message):
        translate(f"SELECT {call} AS v FROM s.trips", "bigquery", catalog=CATALOG)


def test_snowflake_to_date_of_a_timestamp_is_its_date(engines):
    ansi_sql = translate(
        "SELECT id, TO_DATE(la) AS v FROM S.TRIPS", "snowflake", catalog=CATALOG
    ).ansi_sql
    assert _values(engines, ansi_sql) == {r[0]: r[3] and r[3].date() for r in ROWS}


def test_snowflake_to_date_of_a_string_is_refused():
    with pytest.raises(TranslationError, match="DATE_INPUT_FORMAT"):
        translate(
            "SELECT TO_DATE(CAST(id AS VARCHAR)) AS v FROM S.TRIPS", "snowflake", catalog=CATALOG
        )


def test_snowflake_date_of_a_value_of_unknown_type_is_refused_as_such():
    """TO_TIMESTAMP_LTZ's value is the session time zone's wall clock (spider2 sf_bq294)."""
    with pytest.raises(TranslationError, match="DATE of a value of unknown type") as raised:
        translate(
            "SELECT DATE(TO_TIMESTAMP_LTZ(id / 1000000)) AS v FROM S.TRIPS",
            "snowflake",
            catalog=CATALOG,
        )
    assert "DATE-LITERAL" in {d.rule for d in raised.value.diagnostics}
