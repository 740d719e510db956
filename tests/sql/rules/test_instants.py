"""BigQuery UNIX_SECONDS / UNIX_MILLIS / UNIX_MICROS of instants written out in the query: the
counts BigQuery documents (rounded down to the unit, before 1970 too), on DuckDB and Spark."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules import example_catalog
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

# (BigQuery expression, its value worked out by hand from the documented definitions)
CASES = [
    # 2021-01-07 23:59:59 UTC minus 7 days of 24 hours = 2020-12-31 23:59:59 UTC
    (
        "UNIX_MICROS(TIMESTAMP_SUB(TIMESTAMP('2021-01-07 23:59:59'), INTERVAL 7 DAY))",
        1609459199000000,
    ),
    # +8:00 is eight hours ahead of UTC: 2018-08-31 16:00:00 UTC
    ("UNIX_SECONDS(TIMESTAMP('2018-09-01 00:00:00', '+8:00'))", 1535731200),
    # half a millisecond before the epoch rounds down to -1 ms, half a second to -1 s
    ("UNIX_MILLIS(TIMESTAMP '1969-12-31 23:59:59.9995')", -1),
    ("UNIX_SECONDS(TIMESTAMP('1969-12-31 23:59:59.5'))", -1),
    # one-digit fields, T, and an offset in the text: 2020-01-01 17:30:00 UTC
    ("UNIX_MICROS(TIMESTAMP('2020-1-1T10:0:0-7:30'))", 1577899800000000),
    (
        "UNIX_MILLIS(TIMESTAMP_ADD(TIMESTAMP('2020-01-01 00:00:00Z'), INTERVAL 1500 MICROSECOND))",
        1577836800001,
    ),
    ("UNIX_SECONDS(TIMESTAMP_ADD(TIMESTAMP('1970-01-01 UTC'), INTERVAL -2 HOUR))", -7200),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_unix_counts_of_written_instants_on_both_engines(spark_engine, expression, expected):
    ansi_sql = translate(f"SELECT {expression} AS n", "bigquery").ansi_sql
    assert duckdb.sql(render(ansi_sql, "duckdb")).fetchall() == [(expected,)]
    assert [tuple(r) for r in spark_engine.session().sql(render(ansi_sql, "spark")).collect()] == [
        (expected,)
    ]


@pytest.mark.parametrize(
    "expression",
    [
        "UNIX_MICROS(TIMESTAMP('2020-01-01 00:00:00 America/Los_Angeles'))",  # a named zone
        "UNIX_MICROS(TIMESTAMP('2020-02-30'))",  # not a date
        "UNIX_MICROS(TIMESTAMP('2020-01-01 00:00:00.1234567'))",  # seven fractional digits
        "UNIX_MICROS(TIMESTAMP_ADD(TIMESTAMP('2020-01-01'), INTERVAL 1 MONTH))",  # not a fixed length
        "UNIX_MICROS(TIMESTAMP_SUB(TIMESTAMP('0001-01-01'), INTERVAL 1 DAY))",  # out of range
    ],
)
def test_instants_not_read_at_translation_are_refused(expression):
    with pytest.raises(TranslationError):
        translate(f"SELECT {expression} AS n", "bigquery")


# (id, DATE(TIMESTAMP_MICROS(id)), DATE(TIMESTAMP_MILLIS(id)), DATE(TIMESTAMP_SECONDS(id))):
# the UTC dates of instants worked out by hand; a day is 86,400 s.
COUNTS = [
    (0, dt.date(1970, 1, 1), dt.date(1970, 1, 1), dt.date(1970, 1, 1)),
    (-1, dt.date(1969, 12, 31), dt.date(1969, 12, 31), dt.date(1969, 12, 31)),
    (86_399, dt.date(1970, 1, 1), dt.date(1970, 1, 1), dt.date(1970, 1, 1)),
    (86_400, dt.date(1970, 1, 1), dt.date(1970, 1, 1), dt.date(1970, 1, 2)),
    # 2018-10-01 00:00:00 UTC in microseconds, and one microsecond before it
    (1_538_352_000_000_000, dt.date(2018, 10, 1), None, None),
    (1_538_351_999_999_999, dt.date(2018, 9, 30), None, None),
    (None, None, None, None),
]


@pytest.fixture(scope="module")
def sessions(spark_engine):
    values = ", ".join(f"(CAST({'NULL' if n is None else n} AS BIGINT))" for n, *_ in COUNTS)
    rows = f"SELECT * FROM (VALUES {values}) AS t(id)"
    with engine_tables(spark_engine, sessions=rows) as engines:
        yield engines


@pytest.mark.parametrize(("function", "column"), [("MICROS", 1), ("MILLIS", 2), ("SECONDS", 3)])
def test_dates_of_unix_counts_on_both_engines(sessions, function, column):
    con, spark = sessions
    # Counts too large for the unit (seconds of 2018 in microseconds) stay out of its test.
    wanted = [row for row in COUNTS if row[0] is None or column == 1 or abs(row[0]) < 10**12]
    keys = ", ".join(str(row[0]) for row in wanted if row[0] is not None)
    source = (
        f"SELECT id, DATE(TIMESTAMP_{function}(id)) AS d FROM `acme-dw.web.sessions` "
        f"WHERE id IN ({keys}) OR id IS NULL"
    )
    ansi_sql = translate(source, "bigquery", catalog=example_catalog()).ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."sessions"', '"sessions"')
    expected = sorted(((row[0], row[column]) for row in wanted), key=str)
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=str)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=str)
    assert on_duckdb == on_spark == expected


def test_an_instant_from_a_unix_count_outside_date_is_refused():
    with pytest.raises(TranslationError) as raised:
        translate(
            "SELECT TIMESTAMP_MICROS(id) AS t FROM `acme-dw.web.sessions`",
            "bigquery",
            catalog=example_catalog(),
        )
    assert {d.rule for d in raised.value.diagnostics} == {"FN-TIMESTAMP-FROM-UNIX"}
