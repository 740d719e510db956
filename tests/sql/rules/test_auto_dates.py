"""Snowflake's AUTO reading of a string column as DATE / TIMESTAMP_NTZ, on DuckDB and Spark.

The expected values are those Snowflake's documentation gives for its AUTO formats (the
examples of "Supported formats for AUTO detection"); text whose reading it leaves open
raises; under TRY_, text without a digit is NULL."""

from __future__ import annotations

import datetime as dt

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import first_values, over_one_text

D, T = dt.date, dt.datetime
RAISES = "raises"

# (conversion of o_clerk, text, expected value; RAISES: both engines raise)
CASES = [
    ("TO_DATE(o_clerk)", "2013-04-28", D(2013, 4, 28)),
    ("o_clerk::DATE", "12/17/1980", D(1980, 12, 17)),
    ("CAST(o_clerk AS DATE)", "2024-02-29", D(2024, 2, 29)),
    ("TRY_CAST(o_clerk AS DATE)", "2013-04-28", D(2013, 4, 28)),
    ("TRY_TO_DATE(o_clerk)", "", None),
    ("TRY_TO_DATE(o_clerk)", "N/A", None),
    ("TRY_CAST(o_clerk AS DATE)", "unknown date", None),
    ("TO_DATE(o_clerk)", "", RAISES),
    ("TO_DATE(o_clerk)", "2019/01/02", RAISES),  # slashes imply MM/DD/YYYY
    ("TRY_TO_DATE(o_clerk)", "2019/01/02", RAISES),
    ("TRY_TO_DATE(o_clerk)", "1487654321", RAISES),  # seconds since 1970
    ("TRY_TO_DATE(o_clerk)", "2013-02-31", RAISES),  # rolls over "in some contexts"
    ("TO_DATE(o_clerk)", "2013-4-28", RAISES),
    ("TO_DATE(o_clerk)", " 2013-04-28", RAISES),
    ("TO_DATE(o_clerk)", "17-DEC-1980", RAISES),
    ("TO_DATE(o_clerk)", "0000-01-01", RAISES),
    ("TO_DATE(o_clerk)", "2013-04-28 20:57:01", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 20:57:01", T(2013, 4, 28, 20, 57, 1)),
    ("TO_TIMESTAMP_NTZ(o_clerk)", "2013-04-28T20:57:01.123456", T(2013, 4, 28, 20, 57, 1, 123456)),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 20:57:01.5", T(2013, 4, 28, 20, 57, 1, 500000)),
    ("TRY_TO_TIMESTAMP(o_clerk)", "2013-04-28T20:57", T(2013, 4, 28, 20, 57)),
    ("TRY_TO_TIMESTAMP_NTZ(o_clerk)", "2013-04-28 20", T(2013, 4, 28, 20)),
    ("o_clerk::TIMESTAMP_NTZ", "2013-04-05", T(2013, 4, 5)),
    ("TO_TIMESTAMP(o_clerk)", "02/18/2008 02:36:48", T(2008, 2, 18, 2, 36, 48)),
    ("TRY_TO_TIMESTAMP(o_clerk)", "-", None),
    ("TRY_TO_TIMESTAMP(o_clerk)", "1487654321", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 20:57:01.123456789", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 20:57:01 +07:00", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 24:00:00", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "2013-04-28 23:59:60", RAISES),
    ("TO_TIMESTAMP(o_clerk)", "Thu, 21 Dec 2000 16:01:07", RAISES),
    # TRY_TO_DATE with a format of fixed-width fields (FMT-TO-DATE): exactly its shape
    ("TRY_TO_DATE(o_clerk, 'YYYYMMDD')", "20240105", D(2024, 1, 5)),
    ("TRY_TO_DATE(o_clerk, 'YYYY-MM-DD')", "not known", None),
    ("TRY_TO_DATE(o_clerk, 'YYYYMMDD')", "", None),
    ("TRY_TO_DATE(o_clerk, 'YYYYMMDD')", "2024015", RAISES),  # read leniently
    ("TRY_TO_DATE(o_clerk, 'YYYYMMDD')", "20240230", RAISES),
]  # fmt: skip


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


def _run(ansi_sql: str, text: str | None, spark) -> tuple[object, object]:
    """The value on DuckDB and on Spark, or the exception each raised."""
    return first_values(over_one_text(ansi_sql, text), spark)


@pytest.mark.parametrize(("conversion", "text", "expected"), CASES)
def test_documented_formats_read_as_snowflake_reads_them_or_raise(
    spark, conversion, text, expected
):
    translation = translate(f"SELECT {conversion} AS t FROM SALES.ORDERS", "snowflake")
    if "," not in conversion:  # AUTO, not a format: a warning names the assumption
        assert "SF-AUTO-DATE" in {d.rule for d in translation.diagnostics}
    on_duckdb, on_spark = _run(translation.ansi_sql, text, spark)
    if expected == RAISES:
        assert isinstance(on_duckdb, Exception) and isinstance(on_spark, Exception)
    else:
        assert on_duckdb == on_spark == expected


@pytest.mark.parametrize(
    "conversion", ["TO_DATE(o_clerk)", "TRY_CAST(o_clerk AS DATE)", "TRY_TO_TIMESTAMP(o_clerk)"]
)
def test_null_text_is_null(spark, conversion):
    ansi_sql = translate(f"SELECT {conversion} AS t FROM SALES.ORDERS", "snowflake").ansi_sql
    assert _run(ansi_sql, None, spark) == (None, None)


@pytest.mark.parametrize(
    ("conversion", "rule"),
    [
        ("TO_TIMESTAMP_LTZ(o_clerk)", "FN-TO-TIMESTAMP-NTZ"),  # the session time zone
        ("TRY_TO_DATE(o_clerk, 'DD-MON-YYYY')", "FMT-TO-DATE"),  # names: not fixed width
        ("TRY_TO_DATE(o_clerk, o_comment)", "DATE-LITERAL"),  # a run-time format
        ("o_clerk::TIME", "CAST-FROM-TEXT-SETTINGS"),
        ("TO_DATE(TO_VARCHAR(o_orderkey))", "SF-AUTO-DATE"),  # digits: a count since 1970
    ],
)
def test_other_readings_are_refused(conversion, rule):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {conversion} AS t FROM SALES.ORDERS", "snowflake")
    assert rule in {d.rule for d in raised.value.diagnostics}
