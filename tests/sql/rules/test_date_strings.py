"""Date strings read as each dialect converts them (sql/rules/date_strings.py): TPC-DS q16's
``d_date BETWEEN '1999-2-01' AND (CAST('1999-2-01' AS DATE) + 60)``, run on DuckDB and Spark
against dates computed independently (Python's calendar), per dialect."""

from __future__ import annotations

import datetime as dt

import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog, legacy_key
from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.date_strings import read_oracle_date
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

ORACLE = [
    # (text, NLS_DATE_FORMAT, what Oracle reads, or None where it raises or refuses)
    ("1999-2-01", "YYYY-MM-DD", "1999-02-01"),  # fewer digits before punctuation
    ("1999/2/1", "YYYY-MM-DD", "1999-02-01"),  # any punctuation matches any
    ("19990201", "YYYY-MM-DD", "1999-02-01"),  # punctuation left out after full-width digits
    ("01-FEB-1999", "DD-MON-RR", "1999-02-01"),  # RR read as RRRR from four digits
    ("01-feb-1999", "DD-MON-YYYY", "1999-02-01"),
    ("01-February-1999", "DD-MON-YYYY", "1999-02-01"),  # MON tried as MONTH
    ("01-FEB-1999", "DD-MM-YYYY", "1999-02-01"),  # MM tried as MON
    ("1999-02-01", "YYYY-MM-DD HH24:MI:SS", "1999-02-01"),  # time fields at the end left out
    ("1999-02-01 13:05:09", "YYYY-MM-DD HH24:MI:SS", "1999-02-01 13:05:09"),
    ("1999-02-01", "DD-MON-RR", None),  # the default format reads no ISO text
    ("01-FEB-99", "DD-MON-RR", None),  # a two-digit year: by the current date
    ("1999-02-30", "YYYY-MM-DD", None),  # no such day
    ("1999-02", "YYYY-MM-DD", None),  # the day missing
    ("1999-02-01 x", "YYYY-MM-DD", None),  # text after the format's end
    ("1999-02", "YYYY-MM", None),  # the format has no day: Oracle takes 1, reads the month now
]


@pytest.mark.parametrize(("text", "model", "expected"), ORACLE)
def test_oracle_reads_text_by_its_format_model(text, model, expected):
    reading = read_oracle_date(text, model)
    assert reading.text == expected
    assert (reading.problem is None) == (expected is not None)


DATE_DIM = Catalog(
    tables={"raw.date_dim": {"d_date_sk": "INTEGER", "d_date": "DATE"}},
    legacy={
        dialect: {legacy_key(("tpcds", "date_dim"), dialect): "raw.date_dim"}
        for dialect in ("tsql", "oracle", "bigquery", "redshift", "snowflake", "teradata")
    },
)
# TPC-DS q16's date window in each dialect's spelling.
Q16 = {
    "tsql": "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date BETWEEN '1999-2-01' "
    "AND DATEADD(day, 60, CAST('1999-2-01' AS DATE))",
    "oracle": "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date BETWEEN '1999-2-01' "
    "AND (CAST('1999-2-01' AS DATE) + 60)",
    "bigquery": "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date BETWEEN '1999-2-01' "
    "AND DATE_ADD(CAST('1999-2-01' AS DATE), INTERVAL 60 DAY)",
    "redshift": "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date BETWEEN '1999-2-01' "
    "AND (CAST('1999-2-01' AS DATE) + 60)",
}
YMD = Assumptions(oracle_nls_date_format="YYYY-MM-DD")


@pytest.mark.parametrize("dialect", sorted(Q16))
def test_q16_date_window_runs_exact_on_both_engines(spark_engine, dialect):
    start = dt.date(1999, 2, 1)
    end = start + dt.timedelta(days=60)  # 1999-04-02
    days = [start - dt.timedelta(days=1), start, end, end + dt.timedelta(days=1)]
    rows = ", ".join(f"({i}, DATE '{d.isoformat()}')" for i, d in enumerate(days))
    translation = translate(Q16[dialect], dialect, catalog=DATE_DIM, assumptions=YMD)
    assert {d.severity for d in translation.diagnostics} <= (
        {"warning"} if dialect == "oracle" else set()
    )
    sql = translation.ansi_sql.replace('"raw"."date_dim"', "date_dim")
    with engine_tables(
        spark_engine, date_dim=f"SELECT * FROM (VALUES {rows}) AS t(d_date_sk, d_date)"
    ) as (con, spark):
        on_duckdb = sorted(r[0] for r in con.sql(render(sql, "duckdb")).fetchall())
        on_spark = sorted(r[0] for r in spark.sql(render(sql, "spark")).collect())
    assert on_duckdb == on_spark == [1, 2]


def test_oracle_says_which_format_it_read_the_text_by():
    translation = translate(Q16["oracle"], "oracle", catalog=DATE_DIM, assumptions=YMD)
    messages = sorted(d.message for d in translation.diagnostics)
    assert (
        messages
        == [
            "'1999-2-01' is read as 1999-02-01 by NLS_DATE_FORMAT 'YYYY-MM-DD'; set "
            "oracle_nls_date_format in sql/assumptions.yaml"
        ]
        * 2
    )
    assert dict(translation.assumed)["oracle_nls_date_format"] == "YYYY-MM-DD"


REFUSED = [
    # (dialect, query, rule, line:col, words): Oracle's default format reads no ISO text
    # (Oracle raises); Snowflake's AUTO and Teradata's FORMAT document full-width fields only;
    # T-SQL's month-first text is read by DATEFORMAT.
    (
        "oracle",
        Q16["oracle"],
        "DATE-STRING-COMPARISON",
        "1:59",
        "by NLS_DATE_FORMAT 'DD-MON-RR' (oracle_nls_date_format)",
    ),
    ("oracle", Q16["oracle"], "DATE-STRING-CAST", "1:81", "--assume oracle_nls_date_format="),
    (
        "snowflake",
        "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date >= '1999-2-01'",
        "DATE-STRING-COMPARISON",
        "1:54",
        "DATE_INPUT_FORMAT",
    ),
    (
        "teradata",
        "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date < CAST('1999-2-01' AS DATE)",
        "DATE-STRING-CAST",
        "1:58",
        "FORMAT",
    ),
    (
        "tsql",
        "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date < CAST('02/01/1999' AS DATE)",
        "DATE-STRING-CAST",
        "1:58",
        "DATEFORMAT",
    ),
    (
        "tsql",
        "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date < '1999-2-30'",
        "DATE-STRING-COMPARISON",
        "1:53",
        "no calendar date",
    ),
]


@pytest.mark.parametrize(("dialect", "query", "rule", "where", "words"), REFUSED)
def test_text_a_dialect_reads_by_unknown_settings_is_refused(dialect, query, rule, where, words):
    with pytest.raises(TranslationError) as raised:
        translate(query, dialect, catalog=DATE_DIM)
    found = {(d.rule, f"{d.line}:{d.col}"): d.message for d in raised.value.diagnostics}
    assert words in found[(rule, where)]


def test_an_oracle_date_string_with_a_time_is_compared_as_a_timestamp():
    query = "SELECT d_date_sk FROM tpcds.date_dim WHERE d_date < '1999-02-01 12:00:00'"
    assumptions = Assumptions(oracle_nls_date_format="YYYY-MM-DD HH24:MI:SS")
    sql = translate(query, "oracle", catalog=DATE_DIM, assumptions=assumptions).ansi_sql
    assert "CAST('1999-02-01 12:00:00' AS TIMESTAMP)" in sql
