"""Redshift's JSON_EXTRACT_PATH_TEXT over JSON text, on DuckDB and Spark, against the values
Redshift documents (written out by hand below)."""

from __future__ import annotations

import duckdb
import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

CATALOG = Catalog(
    tables={"raw.docs": {"id": "BIGINT", "j": "VARCHAR", "k": "VARCHAR"}},
    legacy={"redshift": {("s", "docs"): "raw.docs"}},
    opaque={},
    sources=("test_json_text.py",),
)
# (id, JSON text, the value at user.name as Redshift documents it)
DOCS = [
    (1, '{"user": {"name": "Ann"}}', "Ann"),
    (2, '{"user": {"name": null}}', None),  # a JSON null
    (3, '{"user": {}}', None),  # a missing key
    (4, '{"user": "x"}', None),  # not an object on the way
    (5, '{"user": {"name": "A\\"b\\u00e9\\n"}}', 'A"b\u00e9\n'),  # escapes read
    (6, None, None),
    (7, '{"User": {"name": "x"}}', None),  # keys keep their case
    (8, '{"user": [{"name": "x"}]}', None),  # an array on the way
    (9, '{"user": {"name": ""}}', ""),
]


def _on_duckdb(ansi_sql: str, rows: list[tuple]) -> list[tuple]:
    local = ansi_sql.replace('"raw"."docs"', '"docs"')
    with duckdb.connect() as con:
        con.execute("CREATE TABLE docs (id BIGINT, j VARCHAR, k VARCHAR)")
        con.executemany("INSERT INTO docs VALUES (?, ?, NULL)", [(i, j) for i, j, *_ in rows])
        return sorted(con.sql(render(local, "duckdb")).fetchall())


def _on_spark(ansi_sql: str, rows: list[tuple], spark_engine) -> list[tuple]:
    local = ansi_sql.replace('"raw"."docs"', '"docs"')
    spark = spark_engine.session()
    data = [(i, j, None) for i, j, *_ in rows]
    spark.createDataFrame(data, "id BIGINT, j STRING, k STRING").createOrReplaceTempView("docs")
    return sorted(tuple(row) for row in spark.sql(render(local, "spark")).collect())


@pytest.mark.parametrize("null_if_invalid", ["", ", FALSE", ", TRUE"])
def test_json_extract_path_text_reads_strings(null_if_invalid, spark_engine):
    source = (
        f"SELECT id, JSON_EXTRACT_PATH_TEXT(j, 'user', 'name'{null_if_invalid}) AS n FROM s.docs"
    )
    ansi_sql = translate(source, "redshift", catalog=CATALOG).ansi_sql
    expected = sorted((i, value) for i, _, value in DOCS)
    assert _on_duckdb(ansi_sql, DOCS) == expected
    assert _on_spark(ansi_sql, DOCS, spark_engine) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"user": {"name": 5}}',  # Redshift prints 5: not a string, an error here
        '{"user": {"name": {"a": 1}}}',  # Redshift prints the object's JSON text
        '{"user": {"name": true}}',
        '{"user": ',  # not JSON: an error in Redshift too
    ],
)
def test_values_redshift_prints_its_own_way_raise(text, spark_engine):
    source = "SELECT id, JSON_EXTRACT_PATH_TEXT(j, 'user', 'name') AS n FROM s.docs"
    ansi_sql = translate(source, "redshift", catalog=CATALOG).ansi_sql
    rows = [(1, text, None)]
    with pytest.raises(duckdb.Error):
        _on_duckdb(ansi_sql, rows)
    with pytest.raises(Exception, match=r"JSON_VALUE|MALFORMED"):
        _on_spark(ansi_sql, rows, spark_engine)


def test_text_that_is_not_json_is_null_with_null_if_invalid(spark_engine):
    source = "SELECT id, JSON_EXTRACT_PATH_TEXT(j, 'user', TRUE) AS n FROM s.docs"
    ansi_sql = translate(source, "redshift", catalog=CATALOG).ansi_sql
    rows = [(1, '{"user": ', None), (2, "[1, 2", None), (3, "", None)]
    expected = [(1, None), (2, None), (3, None)]
    assert _on_duckdb(ansi_sql, rows) == expected
    assert _on_spark(ansi_sql, rows, spark_engine) == expected


@pytest.mark.parametrize(
    "call",
    [
        "JSON_EXTRACT_PATH_TEXT(j, k)",  # a key computed at run time
        "JSON_EXTRACT_PATH_TEXT(j, 'items', '0')",  # digits: an array index?
        "JSON_EXTRACT_PATH_TEXT(id, 'a')",  # not JSON text
    ],
)
def test_paths_without_an_exact_form_are_refused(call):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {call} AS n FROM s.docs", "redshift", catalog=CATALOG)
    assert "RS-JSON-PATH-TEXT" in {d.rule for d in raised.value.diagnostics}


@pytest.mark.parametrize("call", ["JSON_EXTRACT_ARRAY_ELEMENT_TEXT(j, 1)", "JSON_ARRAY_LENGTH(j)"])
def test_array_functions_are_refused_with_their_reason(call):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {call} AS n FROM s.docs", "redshift", catalog=CATALOG)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == "RS-JSON-ARRAY" and call.split("(")[0] in diagnostic.message
