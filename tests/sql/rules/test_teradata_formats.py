"""Teradata's TO_CHAR without a format (TD-TO-CHAR): an integer's significant digits, run on
DuckDB and Spark against the texts Teradata's documentation gives; the conversions it does
not document refused by name."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import rows_on_engines

CATALOG = Catalog(
    tables={
        "raw.nums": {"id": "INTEGER", "i": "INTEGER", "b": "BIGINT", "t": "TINYINT"},
        "raw.other": {"d": "DATE", "m": "DECIMAL(9, 2)", "f": "DOUBLE", "ts": "TIMESTAMP"},
    },
    legacy={"teradata": {("s", "nums"): "raw.nums", ("s", "other"): "raw.other"}},
    opaque={},
    sources=("test_teradata_formats.py",),
)
# Zero, both signs, each type's extremes, and NULL.
ROWS = [
    (1, 0, 0, 0),
    (2, -7, 9223372036854775807, -128),
    (3, 2147483647, -9223372036854775808, 127),
    (4, -2147483648, 10, -1),
    (5, None, None, None),
]
# What TO_CHAR(n) returns for each row: the digits, a minus sign before a negative number.
EXPECTED = [
    (1, "0", "0", "0"),
    (2, "-7", "9223372036854775807", "-128"),
    (3, "2147483647", "-9223372036854775808", "127"),
    (4, "-2147483648", "10", "-1"),
    (5, None, None, None),
]
QUERY = "SELECT id, TO_CHAR(i) AS i, TO_CHAR(b) AS b, TO_CHAR(t) AS t FROM s.nums"


def test_to_char_of_integers_on_duckdb():
    ansi = translate(QUERY, "teradata", catalog=CATALOG).ansi_sql
    with duckdb.connect() as con:
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.nums (id INTEGER, i INTEGER, b BIGINT, t TINYINT)")
        con.executemany("INSERT INTO raw.nums VALUES (?, ?, ?, ?)", ROWS)
        assert sorted(con.sql(render(ansi, "duckdb")).fetchall()) == EXPECTED


def test_to_char_of_integers_on_spark(spark_engine):
    ansi = translate(QUERY, "teradata", catalog=CATALOG).ansi_sql
    spark = spark_engine.session().newSession()
    spark.createDataFrame(ROWS, "id INT, i INT, b BIGINT, t TINYINT").createOrReplaceTempView(
        "nums"
    )
    local = render(ansi, "spark").replace("`raw`.`nums`", "`nums`")
    assert sorted(tuple(r) for r in spark.sql(local).collect()) == EXPECTED


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("SELECT TO_CHAR(d) AS x FROM s.other", "no default format"),
        ("SELECT TO_CHAR(ts) AS x FROM s.other", "no default format"),
        ("SELECT TO_CHAR(m) AS x FROM s.other", "DECIMAL or FLOAT"),
        ("SELECT TO_CHAR(f) AS x FROM s.other", "DECIMAL or FLOAT"),
        ("SELECT TO_CHAR(TIME '10:44:25') AS x", "TO_CHAR of a TIME:"),
        ("SELECT TO_CHAR(TIME '10:44:25', 'HH24:MI') AS x", "TO_CHAR of a TIME:"),
        ("SELECT TO_CHAR(INTERVAL '1' HOUR) AS x", "TO_CHAR of an INTERVAL"),
    ],
)
def test_undocumented_conversions_are_refused_by_name(query, words):
    with pytest.raises(TranslationError) as raised:
        translate(query, "teradata", catalog=CATALOG)
    [error] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.col) == ("TD-TO-CHAR", 8)
    assert words in error.message


# CAST(x AS DATE FORMAT '...') of a DATE or TIMESTAMP: Teradata's FORMAT phrase sets how the
# DATE is shown, so the value is the date itself (the timestamp's date).
# Teradata's conversion syntax, x (DATE [,] FORMAT '...'), is the same CAST: text read by the
# format, a DATE as it is.
DATE_CAST = (
    "SELECT CAST(d AS DATE FORMAT 'MM/DD/YYYY') AS a, CAST(ts AS DATE FORMAT 'YYYYMMDD') AS b, "
    "'2024/02/29' (DATE, FORMAT 'YYYY/MM/DD') AS c, d (DATE FORMAT 'DD.MM.YYYY') AS e "
    "FROM s.other"
)
DATE_ROWS = (
    "SELECT * FROM (VALUES (DATE '2024-02-29', TIMESTAMP '1999-12-31 23:59:59')) AS t(d, ts)"
)


def test_cast_of_a_date_with_a_format_phrase_is_the_date_on_both_engines(spark_engine):
    ansi = translate(DATE_CAST, "teradata", catalog=CATALOG).ansi_sql
    spark = spark_engine.session().newSession()
    on_duckdb, on_spark = rows_on_engines(spark, ansi, other=DATE_ROWS)
    expected = [(dt.date(2024, 2, 29), dt.date(1999, 12, 31), *[dt.date(2024, 2, 29)] * 2)]
    assert on_duckdb == on_spark == expected, ansi


def test_cast_of_a_number_with_a_date_format_phrase_is_refused():
    # A number converts by Teradata's internal date encoding, not by the FORMAT phrase.
    with pytest.raises(TranslationError) as raised:
        translate(
            "SELECT CAST(m AS DATE FORMAT 'YYYYMMDD') AS x FROM s.other",
            "teradata",
            catalog=CATALOG,
        )
    assert [d.rule for d in raised.value.diagnostics if d.severity == "error"] == ["FMT-TO-CHAR"]
