"""What plumbline's Teradata parser reads beyond sqlglot's: the case attribute after an
expression, and the statements it refuses by name (procedures, macros, PERIOD values) rather
than failing somewhere inside them."""

from __future__ import annotations

import duckdb
import pytest
import sqlglot

from sql.diagnostics import TranslationError
from sql.render import render
from sql.source_dialects import CaseSpecific, PlumblineTeradata
from sql.translate import translate_script


@pytest.mark.parametrize(
    ("sql", "negated"),
    [
        ("SELECT 'Foo' (NOT CASESPECIFIC) AS a", True),
        ("SELECT 'Foo' (CASESPECIFIC) AS a", False),
        ("SELECT c (NOT CS) AS a FROM t", True),
        ("SELECT c (cs) AS a FROM t", False),
    ],
)
def test_the_case_attribute_is_read_after_an_expression(sql, negated):
    [attribute] = list(sqlglot.parse_one(sql, read=PlumblineTeradata).find_all(CaseSpecific))
    assert bool(attribute.args.get("not_")) is negated
    assert attribute.this.sql() in ("'Foo'", "c")


def test_a_call_is_still_a_call():
    parsed = sqlglot.parse_one("SELECT ABS(c) (FORMAT '9') AS a FROM t", read=PlumblineTeradata)
    assert not list(parsed.find_all(CaseSpecific))


@pytest.mark.parametrize(
    ("script", "rule", "where", "words"),
    [
        (
            "SELECT 1 AS a;\nREPLACE PROCEDURE p (IN a INTEGER) BEGIN DECLARE b INTEGER; END;",
            "PARSE",
            "2:1",
            "stored procedures and macros are not translated",
        ),
        (
            "CREATE MACRO m AS (SELECT 1 AS a;);",
            "PARSE",
            "1:1",
            "stored procedures and macros",
        ),
        (
            "SELECT 1 AS a FROM t\nWHERE d = PERIOD '(2010-01-01, 2012-02-02)'",
            "PARSE",
            "2:11",
            "PERIOD values are not translated",
        ),
        # A scheduler's variable, substituted before Teradata reads the text.
        (
            "SELECT a FROM t\nWHERE d = ${run_date};",
            "PARSE",
            "2:11",
            "${run_date} is a variable that a tool substitutes",
        ),
        (
            "SELECT * FROM JSON_Table(ON (SELECT id, j FROM t) USING rowexpr('$.a[*]') "
            'colexpr(\'[{"jsonpath": "$.b", "type": "INTEGER"}]\')) AS jt (id, b);',
            "PARSE",
            "1:15",
            "JSON_TABLE (ON query USING ROWEXPR",
        ),
        # Teradata allows UNION ALL as the only set operator of a recursive view.
        (
            "REPLACE RECURSIVE VIEW v (x) AS (SELECT 1 UNION SELECT x * 2 FROM v WHERE x < 9);",
            "PARSE",
            "1:9",
            "RECURSIVE VIEW v with UNION: Teradata allows UNION ALL as the only set operator",
        ),
        (
            "CREATE RECURSIVE VIEW v (x) AS (SELECT a FROM t UNION ALL SELECT x FROM v\n"
            "EXCEPT SELECT a FROM t);",
            "PARSE",
            "1:8",
            "with EXCEPT",
        ),
        # sqlglot reads TIME and TIMESTAMP targets alike; the TIME one is refused by name.
        (
            "SELECT CAST('15h33m' AS TIME(0) FORMAT 'HHhMIm') AS t;",
            "TD-TIME-FORMAT",
            "1:13",
            "Spark has no TIME type",
        ),
    ],
)
def test_teradata_constructs_without_a_translation_are_refused_by_name(script, rule, where, words):
    with pytest.raises(TranslationError) as raised:
        translate_script(script, "teradata", file="s.sql")
    found = [(d.rule, f"{d.line}:{d.col}", d.message) for d in raised.value.diagnostics]
    assert any(r == rule and w == where and words in m for r, w, m in found), found


@pytest.mark.parametrize(
    ("ddl", "columns"),
    [
        # PRIMARY AMP without the optional INDEX keyword.
        ("CREATE MULTISET TABLE t (a INTEGER, b DATE) PRIMARY AMP (a)", ("a", "b")),
        # Column partitioning, single columns and groups in row or column format.
        (
            "CREATE MULTISET TABLE t (a INTEGER, b DATE, c VARCHAR(9)) NO PRIMARY INDEX "
            "PARTITION BY COLUMN (a, ROW (b, c) NO AUTO COMPRESS)",
            ("a", "b", "c"),
        ),
        # The table's PARTITION BY after its primary index, then a secondary index.
        (
            "CREATE MULTISET TABLE t (a INTEGER NOT NULL, b DATE) PRIMARY AMP (a) "
            "PARTITION BY COLUMN (a, ROW b NO AUTO COMPRESS), UNIQUE INDEX (a)",
            ("a", "b"),
        ),
        ("CREATE MULTISET TABLE t (a INTEGER, b DATE) PARTITION BY COLUMN", ("a", "b")),
        (
            "CREATE MULTISET TABLE t (a INTEGER, b DATE) PRIMARY INDEX (a) "
            "PARTITION BY CASE_N(a < 10, NO CASE)",
            ("a", "b"),
        ),
        # The AMP map a table is stored on (Teradata 16.10+, as SHOW TABLE writes it).
        (
            "CREATE SET TABLE t, FALLBACK, NO BEFORE JOURNAL, CHECKSUM = DEFAULT, "
            "DEFAULT MERGEBLOCKRATIO, MAP = TD_MAP1 (a INTEGER, b DATE) PRIMARY INDEX (a)",
            ("a", "b"),
        ),
        (
            "CREATE TABLE t, MAP = TenAMP_Map COLOCATE USING MyGroups_Group4 (a INTEGER, "
            "b DATE) UNIQUE PRIMARY INDEX (a)",
            ("a", "b"),
        ),
        # Row partitioning by ranges: several ranges, unbounded ends, the extra partitions.
        (
            "CREATE MULTISET TABLE t (a INTEGER, b DATE) PRIMARY INDEX (a) PARTITION BY "
            "RANGE_N (b BETWEEN DATE '2007-01-01' AND DATE '2022-01-01' EACH INTERVAL '1' "
            "MONTH, NO RANGE OR UNKNOWN)",
            ("a", "b"),
        ),
        (
            "CREATE MULTISET TABLE t (a INTEGER, b DATE) PRIMARY INDEX (a) PARTITION BY "
            "(RANGE_N (a BETWEEN *, 1, 5 AND 10, 11 AND * , NO RANGE, UNKNOWN), "
            "CASE_N (b < DATE '2020-01-01', NO CASE))",
            ("a", "b"),
        ),
    ],
)
def test_storage_clauses_of_a_table_are_read_and_change_no_rows(ddl, columns):
    [table] = translate_script(ddl, "teradata", file="s.sql").tables
    assert table.columns == columns
    assert "1 = 0" in table.ansi_sql


def test_range_n_in_a_query_is_refused_by_name():
    with pytest.raises(TranslationError) as raised:
        translate_script(
            "CREATE MULTISET TABLE t (a INTEGER);\nSELECT RANGE_N(a BETWEEN 1 AND 9 EACH 2) AS p "
            "FROM t;",
            "teradata",
            file="s.sql",
        )
    found = [(d.rule, d.line, d.message) for d in raised.value.diagnostics]
    assert found == [("ANSI-UNSUPPORTED", 2, "RANGE_N has no exact ANSI SQL form")], found


def test_a_join_index_is_dropped_with_a_note():
    script = (
        "CREATE MULTISET TABLE t (a INTEGER, b INTEGER);\n"
        "CREATE JOIN INDEX ji, FALLBACK, CHECKSUM = DEFAULT AS SELECT (a), (b) FROM t;\n"
        "INSERT INTO t VALUES (1, 2);"
    )
    result = translate_script(script, "teradata", file="s.sql")
    [table] = result.tables
    notes = [(d.rule, d.severity, d.line) for d in table.diagnostics]
    assert ("TD-JOIN-INDEX", "info", 2) in notes


def test_a_join_index_of_unreadable_sql_is_a_parse_error():
    with pytest.raises(TranslationError) as raised:
        translate_script("CREATE JOIN INDEX ji AS SELEC a FROM t;", "teradata", file="s.sql")
    assert [d.rule for d in raised.value.diagnostics] == ["PARSE"]


@pytest.mark.parametrize(
    "script",
    [
        # The SQL standard's recursive view is the view of WITH RECURSIVE v (x) AS (...)
        # SELECT x FROM v: the seed's row, then each row the recursive statement adds.
        "REPLACE RECURSIVE VIEW v (x) AS (SELECT 1 UNION ALL SELECT x * 2 FROM v WHERE x < 50);",
        "CREATE RECURSIVE VIEW db1.v (x) AS (\n"
        "  SELECT 1 AS x\n  UNION ALL\n  SELECT x * 2 FROM db1.v WHERE x < 50\n);",
    ],
)
def test_a_recursive_view_is_the_view_of_a_recursive_query(spark_engine, script):
    [view] = translate_script(script, "teradata", file="s.sql").tables
    assert (view.name, view.defines, view.columns) == ("v", "view", ("x",))
    expected = [(1,), (2,), (4,), (8,), (16,), (32,), (64,)]
    assert sorted(duckdb.sql(render(view.ansi_sql, "duckdb")).fetchall()) == expected
    on_spark = spark_engine.session().sql(render(view.ansi_sql, "spark")).collect()
    assert sorted(tuple(r) for r in on_spark) == expected
