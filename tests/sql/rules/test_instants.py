"""BigQuery UNIX_SECONDS / UNIX_MILLIS / UNIX_MICROS of instants written out in the query: the
counts BigQuery documents (rounded down to the unit, before 1970 too), on DuckDB and Spark."""

from __future__ import annotations

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

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
