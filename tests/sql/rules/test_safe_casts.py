"""BigQuery SAFE_CAST of strings to INT64 on DuckDB and Spark, against what BigQuery's CAST
reads (ZetaSQL's StringToNumeric<int64_t>: leading blanks, then a sign and 0x for base 16,
else base 10; ASCII whitespace around; the INT64 range), written out by hand per string."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.safe_casts import read_int64
from sql.translate import translate
from tests.sql.engine_tables import first_values, over_one_text

MAX = 9223372036854775807
MIN = -9223372036854775808

# (string, what SAFE_CAST(string AS INT64) gives in BigQuery)
CASES = [
    ("0", 0),
    ("123", 123),
    (" 123 ", 123),
    ("\t12\n", 12),
    ("\x0b\x0c\r7\r", 7),
    ("+5", 5),
    ("-5", -5),
    ("007", 7),
    ("-0", 0),
    ("+-1", None),
    ("--1", None),
    ("1.0", None),
    ("1e3", None),
    ("1 2", None),
    ("12abc", None),
    ("", None),
    (" ", None),
    ("+", None),
    ("-", None),
    ("\uff11\uff12", None),  # full-width digits
    ("\u00a012", None),  # a no-break space is not ASCII whitespace
    ("9223372036854775807", MAX),
    ("9223372036854775808", None),
    ("-9223372036854775808", MIN),
    ("-9223372036854775809", None),
    ("0000000000000000000000009223372036854775807", MAX),
    ("10000000000000000000", None),
    ("0x1F", 31),
    ("0X1f", 31),
    ("-0x10", -16),
    ("  +0xff\t", 255),
    ("\t0x10", None),  # only blanks precede a hexadecimal string
    ("0x", None),
    ("0x 1", None),
    ("0x1g", None),
    ("x10", None),
    ("0x7FFFFFFFFFFFFFFF", MAX),
    ("0x7fffffffffffffff", MAX),
    ("0x8000000000000000", None),
    ("-0x8000000000000000", MIN),
    ("-0x8000000000000001", None),
    ("0x000000000000000000001", 1),
    ("0x0123456789abcdef", 0x0123456789ABCDEF),
    ("-0xFEDCBA9876543", -0xFEDCBA9876543),
    (None, None),
]


@pytest.fixture(scope="module")
def engines(spark_engine):
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    rows = [(key, text) for key, (text, _) in enumerate(CASES)]
    con = duckdb.connect()
    con.execute("CREATE TABLE orders (o_orderkey BIGINT, o_comment VARCHAR)")
    con.executemany("INSERT INTO orders VALUES (?, ?)", rows)
    spark = spark_engine.session().newSession()
    schema = StructType(
        [StructField("o_orderkey", LongType()), StructField("o_comment", StringType())]
    )
    spark.createDataFrame(rows, schema).createOrReplaceTempView("orders")
    yield con, spark
    con.close()


def test_safe_cast_of_a_string_column_reads_what_bigquery_reads_on_both_engines(engines):
    con, spark = engines
    source = "SELECT o_orderkey, SAFE_CAST(o_comment AS INT64) AS n FROM sales.orders"
    ansi_sql = translate(source, "bigquery").ansi_sql
    assert "LIKE_REGEX" in ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."orders"', '"orders"')
    expected = {key: value for key, (_, value) in enumerate(CASES)}
    on_duckdb = dict(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = {r[0]: r[1] for r in spark.sql(render(ansi_sql, "spark")).collect()}
    wrong = {
        repr(CASES[key][0]): (expected[key], on_duckdb[key], on_spark[key])
        for key in expected
        if not expected[key] == on_duckdb[key] == on_spark[key]
    }
    assert not wrong, wrong


@pytest.mark.parametrize(("text", "value"), [case for case in CASES if case[0] is not None])
def test_a_string_literal_is_read_at_translation(text, value):
    assert read_int64(text) == value


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        # BigQuery FLOAT64: out-of-range text is infinity there, an error on DuckDB
        ("bigquery", "SELECT SAFE_CAST(o_comment AS FLOAT64) AS n FROM sales.orders"),
        ("bigquery", "SELECT SAFE_CAST(o_comment AS NUMERIC) AS n FROM sales.orders"),
    ],
)
def test_other_text_conversions_stay_refused(dialect, source):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert {d.rule for d in raised.value.diagnostics} == {"FN-TRY-CAST"}


# Snowflake TRY_ number conversions of a string column: (conversion of o_clerk, text,
# expected: the value Snowflake documents for a plain decimal, RAISES where it states none)
RAISES = "raises"
SNOWFLAKE_CASES = [
    ("TRY_TO_NUMBER(o_clerk)", "2006", Decimal(2006)),
    ("TRY_TO_DECIMAL(o_clerk)", "-0042", Decimal(-42)),
    ("TRY_CAST(o_clerk AS NUMBER)", "0", Decimal(0)),
    ("TRY_TO_NUMBER(o_clerk, 10, 1)", "12.3456", Decimal("12.3")),  # Snowflake's example
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "8.76546", Decimal("8.76546000")),
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "98.76546", RAISES),  # as many digits as p - s
    ("TRY_TO_NUMBER(o_clerk)", "98.76546", Decimal(99)),
    ("TRY_TO_NUMBER(o_clerk, 10, 1)", "-0.25", Decimal("-0.3")),  # half away from zero
    ("TRY_TO_NUMBER(o_clerk)", "9" * 37, Decimal("9" * 37)),
    ("TRY_TO_NUMBER(o_clerk)", "9" * 38, RAISES),  # may round out of range
    ("TRY_TO_NUMBER(o_clerk, 3, 1)", "99.9", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "E", RAISES),  # Snowflake reads 0
    ("TRY_TO_NUMBER(o_clerk)", "abc", RAISES),  # NULL, but no rule states which fail
    ("TRY_TO_NUMBER(o_clerk)", " 12", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "+12", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", ".5", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "1e3", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", None, None),
]


@pytest.mark.parametrize(("conversion", "text", "expected"), SNOWFLAKE_CASES)
def test_snowflake_plain_decimals_read_as_to_number_or_raise(
    spark_engine, conversion, text, expected
):
    spark = spark_engine.session()
    ansi_sql = translate(f"SELECT {conversion} AS n FROM SALES.ORDERS", "snowflake").ansi_sql
    results = list(first_values(over_one_text(ansi_sql, text), spark))
    if expected == RAISES:
        assert all(isinstance(r, Exception) for r in results)
    else:
        assert results == [expected, expected]
