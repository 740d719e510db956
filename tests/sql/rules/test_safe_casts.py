"""BigQuery SAFE_CAST of strings to INT64 on DuckDB and Spark, against what BigQuery's CAST
reads (ZetaSQL's StringToNumeric<int64_t>: leading blanks, then a sign and 0x for base 16,
else base 10; ASCII whitespace around; the INT64 range), written out by hand per string; to
FLOAT64 (a floating point literal, NULL where it is none) and Snowflake's TRY_ numbers."""

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
        ("bigquery", "SELECT SAFE_CAST(o_comment AS NUMERIC) AS n FROM sales.orders"),
    ],
)
def test_other_text_conversions_stay_refused(dialect, source):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert {d.rule for d in raised.value.diagnostics} == {"FN-TRY-CAST"}


# Snowflake TRY_ number conversions of a string column: (conversion of o_clerk, text,
# expected). A plain decimal is the value Snowflake documents, NULL where it does not fit
# NUMBER(p, s) ("returns NULL if the conversion can't be performed"); text holding a character
# no reading of a number takes is NULL; RAISES where Snowflake states no value (the guard).
RAISES = "raises"
SNOWFLAKE_CASES = [
    ("TRY_TO_NUMBER(o_clerk)", "2006", Decimal(2006)),
    ("TRY_TO_DECIMAL(o_clerk)", "-0042", Decimal(-42)),
    ("TRY_CAST(o_clerk AS NUMBER)", "0", Decimal(0)),
    ("TRY_TO_NUMBER(o_clerk, 10, 1)", "12.3456", Decimal("12.3")),  # Snowflake's example
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "8.76546", Decimal("8.76546000")),
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "98.76546", Decimal("98.76546000")),  # p - s digits
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "99.999999995", None),  # rounds to 100: out of range
    ("TRY_TO_NUMBER(o_clerk, 10, 8)", "123.4", None),  # Snowflake's dec_with_range_error
    ("TRY_TO_NUMBER(o_clerk)", "98.76546", Decimal(99)),
    ("TRY_TO_NUMBER(o_clerk, 10, 1)", "-0.25", Decimal("-0.3")),  # half away from zero
    ("TRY_TO_NUMBER(o_clerk)", "9" * 37, Decimal("9" * 37)),
    ("TRY_TO_NUMBER(o_clerk)", "9" * 39, None),
    ("TRY_TO_NUMBER(o_clerk, 3, 1)", "99.9", Decimal("99.9")),
    ("TRY_TO_NUMBER(o_clerk, 3, 1)", "-99.95", None),
    # not a number under any reading: a letter outside an exponent, a comma, a currency sign,
    # digits that are not ASCII
    ("TRY_TO_NUMBER(o_clerk)", "abc", None),
    ("TRY_TO_NUMBER(o_clerk)", "12abc", None),
    ("TRY_TO_NUMBER(o_clerk)", "1,000", None),
    ("TRY_TO_NUMBER(o_clerk)", "$5", None),
    ("TRY_TO_NUMBER(o_clerk)", "0x1F", None),
    ("TRY_TO_NUMBER(o_clerk)", "NaN", None),
    ("TRY_TO_NUMBER(o_clerk)", "\u0661\u0662", None),
    ("TRY_TO_NUMBER(o_clerk)", None, None),
    # the zone Snowflake's reader may read more than one way
    ("TRY_TO_NUMBER(o_clerk)", "9" * 38, RAISES),  # may round out of NUMBER(38, 0)
    ("TRY_TO_NUMBER(o_clerk)", "E", RAISES),  # Snowflake reads 0
    ("TRY_TO_NUMBER(o_clerk)", " 12", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "\x0c12\t", RAISES),  # a form feed and a tab are blanks too
    ("TRY_TO_NUMBER(o_clerk)", "+12", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", ".5", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "1e3", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "", RAISES),
    ("TRY_TO_NUMBER(o_clerk)", "-", RAISES),
]


@pytest.mark.parametrize("conversion", sorted({conversion for conversion, _, _ in SNOWFLAKE_CASES}))
def test_snowflake_try_number_reads_plain_decimals_nulls_non_numbers_and_stops_elsewhere(
    spark_engine, conversion
):
    """One query per engine over the texts with a value, then one per text that stops."""
    cases = [(text, expected) for c, text, expected in SNOWFLAKE_CASES if c == conversion]
    ansi_sql = translate(f"SELECT {conversion} AS n FROM SALES.ORDERS", "snowflake").ansi_sql
    valued = [(k, text, expected) for k, (text, expected) in enumerate(cases) if expected != RAISES]
    values = ", ".join(
        f"({k}, {'CAST(NULL AS VARCHAR)' if t is None else repr(t)})" for k, t, _ in valued
    )
    keyed = ansi_sql.replace("SELECT", 'SELECT "orders"."o_orderkey",', 1).replace(
        '"raw"."orders" AS "orders"',
        f"(SELECT * FROM (VALUES {values}) AS t(o_orderkey, o_clerk)) AS orders",
    )
    spark = spark_engine.session()
    on_duckdb = dict(duckdb.connect().sql(render(keyed, "duckdb")).fetchall())
    on_spark = {r[0]: r[1] for r in spark.sql(render(keyed, "spark")).collect()}
    expected = {k: value for k, _, value in valued}
    assert on_duckdb == expected
    assert on_spark == expected
    for text in [text for text, expected in cases if expected == RAISES]:
        results = first_values(over_one_text(ansi_sql, text), spark)
        assert all("FN-TRY-CAST-NUMBER" in str(r) for r in results), (text, results)


def test_snowflake_try_number_guard_is_reported_and_strict_refuses_it():
    source = "SELECT TRY_TO_NUMBER(o_clerk) AS n FROM SALES.ORDERS"
    assert translate(source, "snowflake").guards == ("FN-TRY-CAST-NUMBER",)
    with pytest.raises(TranslationError, match="run-time guard of FN-TRY-CAST-NUMBER"):
        translate(source, "snowflake", strict=True)


# BigQuery SAFE_CAST(text AS FLOAT64): "the same form as a valid floating point literal"
# (BigQuery's conversion rules), NULL where the CAST fails; blanks around it are skipped
# (absl::SimpleAtod). RAISES: text BigQuery reads whose value the translation does not
# produce (infinities, NaN, hexadecimal floats, 3-digit exponents, tabs around it).
FLOAT_CASES = [
    ("1.5", 1.5),
    ("-2.5e3", -2500.0),
    ("+.5", 0.5),
    ("1.", 1.0),
    ("00012.50", 12.5),
    ("1E-5", 1e-05),
    (" 7 ", 7.0),
    ("0.1", 0.1),
    ("-0", -0.0),
    ("123456789012345678901234567890", 1.2345678901234568e29),
    ("9" * 100 + "e99", 1e199),
    ("", None),
    ("   ", None),
    ("abc", None),
    ("1,5", None),
    ("1.5.5", None),
    ("--1", None),
    ("+", None),
    ("1e", None),
    ("e5", None),
    ("$5", None),
    ("\uff11", None),  # a full-width digit
    (None, None),
    ("inf", RAISES),
    ("-Infinity", RAISES),
    ("NaN", RAISES),
    ("0x1p3", RAISES),
    ("1e400", RAISES),
    ("\t1.5", RAISES),
]


def test_bigquery_safe_cast_to_float64_reads_plain_decimals_nulls_the_rest_or_stops(
    spark_engine,
):
    ansi_sql = translate(
        "SELECT SAFE_CAST(o_comment AS FLOAT64) AS f FROM sales.orders", "bigquery"
    ).ansi_sql
    valued = [(k, t, value) for k, (t, value) in enumerate(FLOAT_CASES) if value != RAISES]
    values = ", ".join(
        f"({k}, {'CAST(NULL AS VARCHAR)' if t is None else repr(t)})" for k, t, _ in valued
    )
    keyed = ansi_sql.replace("SELECT", 'SELECT "orders"."o_orderkey",', 1).replace(
        '"raw"."orders" AS "orders"',
        f"(SELECT * FROM (VALUES {values}) AS t(o_orderkey, o_comment)) AS orders",
    )
    spark = spark_engine.session()
    on_duckdb = dict(duckdb.connect().sql(render(keyed, "duckdb")).fetchall())
    on_spark = {r[0]: r[1] for r in spark.sql(render(keyed, "spark")).collect()}
    expected = {k: value for k, _, value in valued}
    assert on_duckdb == expected
    assert on_spark == expected
    assert [str(on_duckdb[k]) for k, t, _ in valued if t == "-0"] == ["-0.0"]  # the sign kept
    for text in [text for text, value in FLOAT_CASES if value == RAISES]:
        results = first_values(over_one_text(ansi_sql, text, "o_comment"), spark)
        assert all("FN-TRY-CAST-FLOAT" in str(r) for r in results), (text, results)


def test_bigquery_safe_cast_to_float64_guard_is_reported_and_strict_refuses_it():
    source = "SELECT SAFE_CAST(o_comment AS FLOAT64) AS f FROM sales.orders"
    assert translate(source, "bigquery").guards == ("FN-TRY-CAST-FLOAT",)
    with pytest.raises(TranslationError, match="run-time guard of FN-TRY-CAST-FLOAT"):
        translate(source, "bigquery", strict=True)
