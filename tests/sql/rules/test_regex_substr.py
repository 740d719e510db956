"""Regular-expression extraction: the substring the source extracts, on DuckDB and Spark,
against values written out by hand from each source's documented behaviour."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.regex import PatternError, translate_pattern
from sql.rules.regex_substr import deterministic_atoms
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

TEXTS = ["a-b-c", "ab", "id=12;id=345", "x\nid=7", "Ab12\n", "", None]
SCHEMAS = {"snowflake": "SALES.CUSTOMER", "bigquery": "sales.customer", "oracle": "SALES.CUSTOMER"}

# (dialect, expression over c_name, {text: expected}) — every text not named gives NULL.
CASES = [
    # Oracle's comma-split idiom: the n-th run of non-separators
    ("oracle", "REGEXP_SUBSTR(c_name, '[^-]+', 1, 2)", {"a-b-c": "b"}),
    ("oracle", "REGEXP_SUBSTR(c_name, '[^-]+', 1, 3)", {"a-b-c": "c"}),
    (
        "oracle",
        "REGEXP_SUBSTR(c_name, '[^-]+', 3)",
        {"a-b-c": "b", "id=12;id=345": "=12;id=345", "x\nid=7": "id=7", "Ab12\n": "12\n"},
    ),
    # the first match, greedy and longest alike; `.` is not a newline
    (
        "snowflake",
        "REGEXP_SUBSTR(c_name, 'id=[0-9]+')",
        {"id=12;id=345": "id=12", "x\nid=7": "id=7"},
    ),
    ("snowflake", "REGEXP_SUBSTR(c_name, 'id=[0-9]+', 1, 2)", {"id=12;id=345": "id=345"}),
    ("snowflake", "REGEXP_SUBSTR(c_name, '[0-9]+;', 1, 1)", {"id=12;id=345": "12;"}),
    # a group of the pattern (Snowflake group_num, BigQuery's one capturing group)
    ("snowflake", "REGEXP_SUBSTR(c_name, 'id=([0-9]+)', 1, 2, 'c', 1)", {"id=12;id=345": "345"}),
    ("bigquery", "REGEXP_EXTRACT(c_name, r'id=(\\d+)')", {"id=12;id=345": "12", "x\nid=7": "7"}),
    ("bigquery", "REGEXP_EXTRACT(c_name, r'id=(\\d+)', 1, 2)", {"id=12;id=345": "345"}),
    (
        "bigquery",
        "REGEXP_SUBSTR(c_name, r'[a-z]+', 2)",
        {"a-b-c": "b", "ab": "b", "id=12;id=345": "d", "x\nid=7": "id", "Ab12\n": "b"},
    ),
    # anchors: `^` the string's start, `$` its end (not before a final newline)
    (
        "bigquery",
        "REGEXP_EXTRACT(c_name, r'^[A-Za-z]+')",
        {"a-b-c": "a", "ab": "ab", "id=12;id=345": "id", "x\nid=7": "x", "Ab12\n": "Ab"},
    ),
    ("oracle", "REGEXP_SUBSTR(c_name, '[0-9]+$')", {"id=12;id=345": "345", "x\nid=7": "7"}),
]


@pytest.fixture(scope="module")
def tables(spark_engine):
    values = ", ".join(
        "(NULL)" if t is None else "('" + t.replace("\n", "' || CHR(10) || '") + "')" for t in TEXTS
    )
    rows = f"SELECT * FROM (VALUES {values}) AS t(c_name)"
    with engine_tables(spark_engine, customer=rows) as engines:
        yield engines


@pytest.mark.parametrize(("dialect", "expression", "expected"), CASES)
def test_extraction_gives_the_sources_substring_on_both_engines(
    tables, dialect, expression, expected
):
    con, spark = tables
    source = f"SELECT c_name, {expression} AS x FROM {SCHEMAS[dialect]}"
    ansi_sql = translate(source, dialect).ansi_sql
    assert "SUBSTRING_REGEX" in ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."customer"', '"customer"')
    # Oracle holds '' as NULL: the lake's '' reads as NULL there.
    read = [None if t == "" and dialect == "oracle" else t for t in TEXTS]
    want = sorted(((t, expected.get(t)) for t in read), key=repr)
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=repr)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=repr)
    assert on_duckdb == want, ansi_sql
    assert on_spark == want, ansi_sql


@pytest.mark.parametrize(
    ("dialect", "expression"),
    [
        ("oracle", "REGEXP_SUBSTR(c_name, '(ab)?(abcd)?')"),  # greedy "ab", POSIX "abcd"
        ("oracle", "REGEXP_SUBSTR(c_name, 'a|ab')"),  # alternation
        ("snowflake", "REGEXP_SUBSTR(c_name, '[a-z]*[a-c]')"),  # the repeat may end sooner
        ("snowflake", "REGEXP_SUBSTR(c_name, '[0-9]*x?[0-9]')"),  # ...through an optional one
        ("snowflake", "REGEXP_SUBSTR(c_name, '[0-9]+.')"),  # `.` takes digits too
        ("bigquery", "REGEXP_EXTRACT(c_name, r'[0-9]+?')"),  # lazy: the first digit only
        ("bigquery", "REGEXP_EXTRACT(c_name, r'(a)(b)')"),  # BigQuery raises on two groups
        ("bigquery", "REGEXP_EXTRACT(c_name, r'(?:ab)c')"),  # group numbers would shift
        ("oracle", "REGEXP_SUBSTR(c_name, '[0-9]*')"),  # empty match: NULL in Oracle
        ("oracle", "REGEXP_SUBSTR(c_name, 'a', 1, 1, 'i')"),  # match flags
        ("oracle", "REGEXP_SUBSTR(c_name, 'a', 0)"),  # Oracle raises on position 0
        ("oracle", "REGEXP_SUBSTR(c_name, '^a', 2)"),  # ^ at a later position
        ("snowflake", "REGEXP_SUBSTR(c_name, c_phone)"),  # not a literal
        ("snowflake", "REGEXP_SUBSTR(c_custkey, '[0-9]+')"),  # a number, printed by settings
        ("snowflake", "REGEXP_SUBSTR(c_name, '(ab)+')"),  # a repeated group
    ],
)
def test_extractions_the_flavours_may_answer_differently_are_refused(dialect, expression):
    source = f"SELECT {expression} AS x FROM {SCHEMAS[dialect]}"
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == ["FN-REGEXP-SUBSTR"]


def test_determinism_looks_past_optional_elements_to_the_first_mandatory_one():
    assert len(deterministic_atoms("[0-9]+x?y?[A-Z]")[0]) == 4
    with pytest.raises(PatternError):
        deterministic_atoms("[0-9]+x?y?[a-z]")  # x? may end where [a-z] takes the x
    with pytest.raises(PatternError):
        deterministic_atoms("[0-9]+x?[0-9a-z]")
    # a class and its complement are disjoint; two complements never are
    assert deterministic_atoms("[^,]*,")[1] == 0
    with pytest.raises(PatternError):
        deterministic_atoms("[^,]*[^;]")


def test_lazy_quantifiers_are_refused_only_when_asked():
    assert translate_pattern("a+?", "re2", whole=False) == "a+"
    with pytest.raises(PatternError):
        translate_pattern("a+?", "re2", whole=False, lazy=False)


# Redshift's REGEXP_SUBSTR is '' where nothing matches (and NULL for NULL): "If the function
# can't match the regular expression to any characters in the string, it returns an empty
# string" (https://docs.aws.amazon.com/redshift/latest/dg/REGEXP_SUBSTR.html).
REDSHIFT_CASES = [
    (
        "REGEXP_SUBSTR(c_name, '[0-9]+')",
        {"id=12;id=345": "12", "x\nid=7": "7", "Ab12\n": "12"},
    ),
    ("REGEXP_SUBSTR(c_name, '[0-9]+', 1, 2)", {"id=12;id=345": "345"}),
    ("REGEXP_SUBSTR(c_name, '[a-z]+', 3)", {"a-b-c": "b", "id=12;id=345": "id", "x\nid=7": "id"}),
]


@pytest.mark.parametrize(("expression", "expected"), REDSHIFT_CASES)
def test_redshift_extraction_is_empty_where_nothing_matches(tables, expression, expected):
    con, spark = tables
    source = f"SELECT c_name, {expression} AS x FROM sales.customer"
    ansi_sql = translate(source, "redshift").ansi_sql.replace('"raw"."customer"', '"customer"')
    want = sorted(((t, None if t is None else expected.get(t, "")) for t in TEXTS), key=repr)
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=repr)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=repr)
    assert on_duckdb == want, ansi_sql
    assert on_spark == want, ansi_sql
