"""Snowflake's CONTAINS and REGEXP_REPLACE of an anchored prefix on DuckDB and Spark, against
the values Snowflake's documentation defines (TRUE when found, NULL for a NULL; the prefix
replaced once)."""

from __future__ import annotations

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

# (expression over c_name, c_name, the value Snowflake gives)
CASES = [
    ("CONTAINS(c_name, 'er#')", "Customer#01", True),
    ("CONTAINS(c_name, 'ER#')", "Customer#01", False),  # no collation: case counts
    ("CONTAINS(c_name, '')", "", True),
    ("CONTAINS(c_name, 'x')", "", False),
    ("CONTAINS(c_name, 'é')", "café", True),
    ("CONTAINS(c_name, 'a')", None, None),
    ("CONTAINS(c_name, NULL)", "a", None),
    ("REGEXP_REPLACE(c_name, '^chr')", "chr12", "12"),
    ("REGEXP_REPLACE(c_name, '^chr', '')", "chrchr1", "chr1"),  # ^ matches once
    ("REGEXP_REPLACE(c_name, '^chr', 'c')", "xchr", "xchr"),
    ("REGEXP_REPLACE(c_name, '^chr', '<', 1, 0, 'c')", "chr", "<"),
    ("REGEXP_REPLACE(c_name, '^chr')", "ch", "ch"),
    ("REGEXP_REPLACE(c_name, '^chr')", "CHR1", "CHR1"),
    ("REGEXP_REPLACE(c_name, '^chr')", "", ""),
    ("REGEXP_REPLACE(c_name, '^chr')", None, None),
]


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


@pytest.mark.parametrize(("expression", "text", "expected"), CASES)
def test_snowflake_string_functions_match_their_definition(spark, expression, text, expected):
    ansi_sql = translate(f"SELECT {expression} AS v FROM SALES.CUSTOMER", "snowflake").ansi_sql
    value = "CAST(NULL AS VARCHAR)" if text is None else "'" + text + "'"
    rows = f"(SELECT * FROM (VALUES ({value})) AS t(c_name)) AS customer"
    ansi_sql = ansi_sql.replace('"raw"."customer" AS "customer"', rows)
    on_duckdb = duckdb.connect().sql(render(ansi_sql, "duckdb")).fetchall()[0][0]
    on_spark = spark.sql(render(ansi_sql, "spark")).collect()[0][0]
    assert on_duckdb == on_spark == expected


@pytest.mark.parametrize(
    "expression",
    [
        "REGEXP_REPLACE(c_name, 'chr')",  # every occurrence, anywhere
        "REGEXP_REPLACE(c_name, '^c.r')",
        "REGEXP_REPLACE(c_name, '01$')",  # a final newline: flavours differ
        "REGEXP_REPLACE(c_name, '^(chr)', '\\\\1')",
        "REGEXP_REPLACE(c_name, '^chr', '', 2)",
        "REGEXP_REPLACE(c_name, '^chr', '', 1, 0, 'i')",
    ],
)
def test_other_regexp_replacements_are_refused(expression):
    with pytest.raises(TranslationError):
        translate(f"SELECT {expression} AS v FROM SALES.CUSTOMER", "snowflake")
