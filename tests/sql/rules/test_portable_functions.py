"""String functions with no ISO form (sql/rules/portable_functions.py, FN-SPLIT-PART): each
source's meaning, on DuckDB and Spark, against values written by hand from the vendors'
documentation; the cases without an exact form refused; --strict refusing the portable set."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

# c_custkey, c_name, c_phone
ROWS = [
    (1, "ab-cd-ef", "12"),
    (2, "é😀-x", ""),
    (3, "", None),
    (4, None, "1234567"),
    (5, "hello wORLD#x", "-3"),
]

TABLES = {
    "snowflake": "SALES.CUSTOMER",
    "bigquery": "sales.customer",
    "oracle": "SALES.CUSTOMER",
    "redshift": "sales.customer",
    "tsql": "dbo.Customer",
    "teradata": "SALES_DB.CUSTOMER",
}

# (dialect, expression over the row, its value per row in c_custkey order)
CASES = [
    # REPEAT: spelled out up to 4, the portable REPEAT beyond; T-SQL NULL for a negative count
    (
        "snowflake",
        "REPEAT(c_name, 2)",
        ["ab-cd-efab-cd-ef", "é😀-xé😀-x", "", None, "hello wORLD#xhello wORLD#x"],
    ),
    ("snowflake", "REPEAT(c_name, 0)", ["", "", "", None, ""]),
    ("redshift", "REPEAT(c_phone, 5)", ["1212121212", "", None, "1234567" * 5, "-3-3-3-3-3"]),
    ("redshift", "REPLICATE(c_phone, 2)", ["1212", "", None, "12345671234567", "-3-3"]),
    ("tsql", "REPLICATE('0', 3 - c_custkey)", ["00", "0", "", None, None]),
    (
        "tsql",
        "REPLICATE(CAST(c_phone AS VARCHAR(MAX)), 2)",
        ["1212", "", None, "1234567" * 2, "-3-3"],
    ),
    # REVERSE: code points
    ("bigquery", "REVERSE(c_name)", ["fe-dc-ba", "x-😀é", "", None, "x#DLROw olleh"]),
    ("snowflake", "REVERSE(c_phone)", ["21", "", None, "7654321", "3-"]),
    # LPAD / RPAD: cut to n, pad repeated
    ("snowflake", "LPAD(c_phone, 4, '0')", ["0012", "0000", None, "1234", "00-3"]),
    ("redshift", "RPAD(c_name, 4, 'xy')", ["ab-c", "é😀-x", "xyxy", None, "hell"]),
    ("bigquery", "LPAD(c_name, 6)", ["ab-cd-", "  é😀-x", "      ", None, "hello "]),
    ("teradata", "RPAD(c_phone, 0, 'x')", ["", "", None, "", ""]),
    (
        "snowflake",
        "RPAD(c_phone, 300, '*-')",
        [
            "12" + ("*-" * 150)[:298],
            ("*-" * 150)[:300],
            None,
            "1234567" + ("*-" * 150)[:293],
            "-3" + ("*-" * 150)[:298],
        ],
    ),
    # INITCAP with written delimiters
    ("snowflake", "INITCAP(c_name, ' -')", ["Ab-Cd-Ef", "É😀-X", "", None, "Hello World#x"]),
    ("bigquery", "INITCAP(c_name, '#')", ["Ab-cd-ef", "É😀-x", "", None, "Hello world#X"]),
    # TRANSLATE: removed where `to` is shorter; Oracle's '' is NULL
    ("oracle", "TRANSLATE(c_name, 'abé', 'AB')", ["AB-cd-ef", "😀-x", None, None, "hello wORLD#x"]),
    ("tsql", "TRANSLATE(c_name, '-#', '_+')", ["ab_cd_ef", "é😀_x", "", None, "hello wORLD+x"]),
    ("teradata", "OTRANSLATE(c_phone, '-1', 'x')", ["2", "", None, "234567", "x3"]),
    ("redshift", "TRANSLATE(c_phone, '123', '')", ["", "", None, "4567", "-"]),
    # BigQuery SPLIT through subscripts
    ("bigquery", "SPLIT(c_name, '-')[SAFE_OFFSET(1)]", ["cd", "x", None, None, None]),
    ("bigquery", "SPLIT(c_name, '-')[OFFSET(0)]", ["ab", "é😀", "", None, "hello wORLD#x"]),
    ("bigquery", "SPLIT(c_name, 'd-')[SAFE_ORDINAL(2)]", ["ef", None, None, None, None]),
    ("bigquery", "ARRAY_LENGTH(SPLIT(c_phone))", [1, 1, None, 1, 1]),
    # SPLIT_PART beyond parts 1..4: from the end, Snowflake's 0 as 1
    ("snowflake", "SPLIT_PART(c_name, '-', -1)", ["ef", "x", "", None, "hello wORLD#x"]),
    ("snowflake", "SPLIT_PART(c_name, '-', c_custkey - 3)", ["cd", "x", "", None, ""]),
    ("snowflake", "SPLIT_PART(c_name, '-', 0)", ["ab", "é😀", "", None, "hello wORLD#x"]),
    ("redshift", "SPLIT_PART(c_name, '-', 5)", ["", "", "", None, ""]),
]


@pytest.fixture(scope="module")
def tables(spark_engine):
    values = ", ".join(
        "(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")" for row in ROWS
    )
    rows = f"SELECT * FROM (VALUES {values}) AS t(c_custkey, c_name, c_phone)"
    with engine_tables(spark_engine, customer=rows) as engines:
        yield engines


@pytest.mark.parametrize(("dialect", "expression", "expected"), CASES)
def test_each_source_meaning_holds_on_both_engines(tables, dialect, expression, expected):
    con, spark = tables
    source = f"SELECT c_custkey, {expression} AS v FROM {TABLES[dialect]}"
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."customer"', '"customer"')
    ordered = f"SELECT * FROM ({ansi_sql}) AS q ORDER BY 1"
    on_duckdb = [r[1] for r in con.execute(render(ordered, "duckdb")).fetchall()]
    on_spark = [r[1] for r in spark.sql(render(ordered, "spark")).collect()]
    assert on_duckdb == expected, ansi_sql
    assert on_spark == expected, ansi_sql


@pytest.mark.parametrize(
    ("dialect", "expression", "rule_id"),
    [
        ("bigquery", "REPEAT(c_name, c_custkey)", "FN-REPEAT"),  # negative: an error
        ("snowflake", "REPEAT(c_name, -1)", "FN-REPEAT"),  # undocumented
        ("redshift", "REPEAT(c_name, c_custkey)", "FN-REPEAT"),
        ("tsql", "REPLICATE(c_name, 2)", "FN-REPEAT"),  # cut at 8,000 bytes unless MAX
        ("tsql", "REPLICATE(N'0', c_custkey)", "FN-REPEAT"),  # cut at 4,000 characters
        ("oracle", "REVERSE(c_name)", "FN-REVERSE"),  # bytes
        ("oracle", "LPAD(c_name, 5, 'x')", "FN-PAD"),  # display columns
        ("bigquery", "LPAD(c_name, c_custkey)", "FN-PAD"),
        ("snowflake", "RPAD(c_name, 5, '')", "FN-PAD"),
        ("redshift", "RPAD(c_name, -1, 'x')", "FN-PAD"),
        ("snowflake", "INITCAP(c_name)", "FN-INITCAP"),  # 'whitespace' not enumerated
        ("bigquery", "INITCAP(c_name, c_phone)", "FN-INITCAP"),
        ("oracle", "INITCAP(c_name)", "FN-INITCAP"),  # non-alphanumeric boundaries
        ("redshift", "INITCAP(c_name)", "FN-INITCAP"),
        ("bigquery", "TRANSLATE(c_name, 'aa', 'bc')", "FN-TRANSLATE"),
        ("tsql", "TRANSLATE(c_name, 'ab', 'c')", "FN-TRANSLATE"),  # lengths differ: an error
        ("snowflake", "TRANSLATE(c_name, c_phone, 'x')", "FN-TRANSLATE"),
        ("bigquery", "SPLIT(c_name, '')[OFFSET(0)]", "BQ-SPLIT"),
        ("bigquery", "SPLIT(c_name, c_phone)[OFFSET(0)]", "BQ-SPLIT"),
        ("bigquery", "SPLIT(c_name)", "ARRAY-OUTPUT"),
        ("redshift", "SPLIT_PART(c_name, '-', -1)", "FN-SPLIT-PART"),  # an error in Redshift
        ("redshift", "SPLIT_PART(c_name, '-', c_custkey)", "FN-SPLIT-PART"),
        ("snowflake", "SPLIT_PART(c_name, '', 2)", "FN-SPLIT-PART"),
    ],
)
def test_functions_without_an_exact_form_are_refused(dialect, expression, rule_id):
    source = f"SELECT {expression} AS v FROM {TABLES[dialect]}"
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == [rule_id]


def test_teradata_title_is_dropped_with_a_note():
    result = translate("SELECT c_name (TITLE 'Name') FROM SALES_DB.CUSTOMER", "teradata")
    assert result.columns == ("c_name",)
    assert [(d.severity, d.rule) for d in result.diagnostics] == [("info", "TD-TITLE")]


def test_a_translation_names_the_portable_functions_it_calls():
    source = (
        "SELECT REPLACE(c_name, 'a', 'b') AS r, SPLIT_PART(c_phone, '-', -1) AS p, "
        "LPAD(c_phone, 3, '0') AS l FROM SALES.CUSTOMER"
    )
    assert translate(source, "snowflake").portable_functions == ("REPLACE", "SPLIT_PART")


def test_strict_refuses_each_portable_call_where_the_source_calls_it():
    source = "SELECT LPAD(c_phone, 3, '0') AS l,\n  REVERSE(c_name) AS r FROM SALES.CUSTOMER"
    with pytest.raises(TranslationError) as raised:
        translate(source, "snowflake", strict=True)
    assert [(d.rule, d.line, d.col) for d in raised.value.diagnostics] == [
        ("PORTABLE-STRICT", 2, 3)
    ]
    assert "REVERSE" in raised.value.diagnostics[0].message


def test_strict_keeps_exact_standard_forms():
    source = "SELECT LPAD(c_phone, 3, '0') AS l, REPEAT(c_name, 2) AS r FROM SALES.CUSTOMER"
    result = translate(source, "snowflake", strict=True)
    assert result.portable_functions == ()
