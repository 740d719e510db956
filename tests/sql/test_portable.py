"""The portable function set (sql/portable.py): each definition, rendered for DuckDB and for
Spark, against values written by hand from the definition."""

from __future__ import annotations

import duckdb
import pytest

from sql import portable
from sql.render import render

# (ANSI expression, the value the definition gives)
CASES = [
    # REPEAT: '' for n <= 0
    ("REPEAT('ab', 3)", "ababab"),
    ("REPEAT('ab', 0)", ""),
    ("REPEAT('ab', -2)", ""),
    ("REPEAT('', 5)", ""),
    ("REPEAT('é😀', 2)", "é😀é😀"),
    ("REPEAT(CAST(NULL AS VARCHAR), 2)", None),
    ("REPEAT('ab', CAST(NULL AS INTEGER))", None),
    ("REPEAT('ab', CAST(2 AS BIGINT))", "abab"),
    # REVERSE: code points, a combining accent moves before its letter
    ("REVERSE('abé😀c')", "c😀éba"),
    ("REVERSE('e\u0301x')", "x\u0301e"),
    ("REVERSE('')", ""),
    ("REVERSE(CAST(NULL AS VARCHAR))", None),
    # LPAD / RPAD: cut to n, pad repeated and cut, n <= 0 is '', pad '' pads nothing
    ("LPAD('abc', 7, 'xy')", "xyxyabc"),
    ("LPAD('abc', 6, 'xy')", "xyxabc"),
    ("LPAD('abcdef', 3, 'xy')", "abc"),
    ("LPAD('abc', 0, 'x')", ""),
    ("LPAD('abc', -1, 'x')", ""),
    ("LPAD('é😀', 4, '😀')", "😀😀é😀"),
    ("LPAD('ab', 5, '')", "ab"),
    ("LPAD('abcd', 2, '')", "ab"),
    ("LPAD('', 3, '0')", "000"),
    ("LPAD(CAST(NULL AS VARCHAR), 3, '0')", None),
    ("LPAD('a', CAST(NULL AS INTEGER), '0')", None),
    ("LPAD('a', 3, CAST(NULL AS VARCHAR))", None),
    ("LPAD('a', CAST(3 AS BIGINT), '0')", "00a"),
    ("RPAD('abc', 6, 'xy')", "abcxyx"),
    ("RPAD('abcdef', 3, 'x')", "abc"),
    ("RPAD('abc', -4, 'x')", ""),
    ("RPAD('ab', 5, '')", "ab"),
    ("RPAD('é', 3, '😀')", "é😀😀"),
    ("RPAD('a', 3, CAST(NULL AS VARCHAR))", None),
    # SPLIT_PART: from the end for n < 0, '' out of range, '' delimiter keeps s whole
    ("SPLIT_PART('a-b-c', '-', 2)", "b"),
    ("SPLIT_PART('a-b-c', '-', -1)", "c"),
    ("SPLIT_PART('a-b-c', '-', -3)", "a"),
    ("SPLIT_PART('a-b-c', '-', 4)", ""),
    ("SPLIT_PART('a-b-c', '-', -4)", ""),
    ("SPLIT_PART('a--b', '--', 2)", "b"),
    ("SPLIT_PART('-a-', '-', 1)", ""),
    ("SPLIT_PART('-a-', '-', 3)", ""),
    ("SPLIT_PART('é😀é', '😀', 2)", "é"),
    ("SPLIT_PART('', '-', 1)", ""),
    ("SPLIT_PART('a-b', '', 1)", "a-b"),
    ("SPLIT_PART('a-b', '', -1)", "a-b"),
    ("SPLIT_PART('a-b', '', 2)", ""),
    ("SPLIT_PART(CAST(NULL AS VARCHAR), '-', 1)", None),
    ("SPLIT_PART('a-b', CAST(NULL AS VARCHAR), 1)", None),
    ("SPLIT_PART('a-b', '-', CAST(NULL AS INTEGER))", None),
    # SPLIT, read through a subscript and CARDINALITY
    ("SPLIT('a,b,,c', ',')[3]", ""),
    ("SPLIT('a,b,,c', ',')[4]", "c"),
    ("CAST(CARDINALITY(SPLIT('a,b,,c,', ',')) AS VARCHAR)", "5"),
    ("CAST(CARDINALITY(SPLIT('', ',')) AS VARCHAR)", "1"),
    ("SPLIT('', ',')[1]", ""),
    ("SPLIT('a.b|c', '.')[2]", "b|c"),
    ("SPLIT('a\\Eb', '\\E')[2]", "b"),
    ("SPLIT('é😀x', '')[2]", "😀"),
    ("CAST(CARDINALITY(SPLIT('é😀x', '')) AS VARCHAR)", "3"),
    ("CAST(CARDINALITY(SPLIT(CAST(NULL AS VARCHAR), ',')) AS VARCHAR)", None),
    ("CAST(CARDINALITY(SPLIT('a', CAST(NULL AS VARCHAR))) AS VARCHAR)", None),
    # INITCAP: a word starts after a delimiter character
    ("INITCAP('hello wORLD-foo', ' ')", "Hello World-foo"),
    ("INITCAP('hello wORLD-foo', ' -')", "Hello World-Foo"),
    ("INITCAP('ÉCOLE été', ' ')", "École Été"),
    ("INITCAP('😀abc', ' ')", "😀abc"),
    ("INITCAP('a  b', ' ')", "A  B"),
    ("INITCAP('ab cd', '')", "Ab cd"),
    ("INITCAP('', ' ')", ""),
    ("INITCAP(CAST(NULL AS VARCHAR), ' ')", None),
    ("INITCAP('ab', CAST(NULL AS VARCHAR))", None),
    # TRANSLATE: removed when `to` is shorter, the first occurrence in `from` counts
    ("TRANSLATE('abcabc', 'ab', 'xy')", "xycxyc"),
    ("TRANSLATE('abcabc', 'ab', 'x')", "xcxc"),
    ("TRANSLATE('abc', 'aa', 'xy')", "xbc"),
    ("TRANSLATE('abc', '', 'x')", "abc"),
    ("TRANSLATE('é😀', '😀é', 'ab')", "ba"),
    ("TRANSLATE(CAST(NULL AS VARCHAR), 'a', 'b')", None),
    ("TRANSLATE('a', 'a', CAST(NULL AS VARCHAR))", None),
    # REPLACE
    ("REPLACE('aaa', 'aa', 'b')", "ba"),
    ("REPLACE('abc', '', 'x')", "abc"),
    ("REPLACE('é😀é', 'é', '')", "😀"),
]


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    yield con, spark_engine.session()
    con.close()


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_each_definition_holds_on_both_engines(engines, expression, expected):
    con, spark = engines
    ansi_sql = f'SELECT {expression} AS "v"'
    on_duckdb = con.execute(render(ansi_sql, "duckdb")).fetchone()[0]
    on_spark = spark.sql(render(ansi_sql, "spark")).collect()[0][0]
    assert (on_duckdb, on_spark) == (expected, expected), ansi_sql


@pytest.mark.parametrize(
    "expression", ["SPLIT_PART('a-b', '-', 0)", "SPLIT_PART(NULL || 'a', '-', 0)"]
)
def test_split_part_zero_is_an_error_on_both_engines(engines, expression):
    con, spark = engines
    ansi_sql = f'SELECT {expression} AS "v"'
    if "NULL" in expression:  # NULL before the error, on both
        assert con.execute(render(ansi_sql, "duckdb")).fetchone()[0] is None
        assert spark.sql(render(ansi_sql, "spark")).collect()[0][0] is None
        return
    with pytest.raises(duckdb.Error):
        con.execute(render(ansi_sql, "duckdb")).fetchone()
    with pytest.raises(Exception, match="INVALID_INDEX_OF_ZERO"):
        spark.sql(render(ansi_sql, "spark")).collect()


def test_raise_error_stops_the_statement_on_both_engines_only_where_it_is_reached(engines):
    """The guard's failure (sql/rules/build.py guarded): a branch not taken returns the
    other branch's value and type; the branch taken stops the statement with the text."""
    con, spark = engines
    guard = "CASE WHEN {} THEN RAISE_ERROR('RULE-X: why') ELSE 'kept' END"
    kept = f'SELECT {guard.format("1 = 2")} AS "v"'
    assert con.execute(render(kept, "duckdb")).fetchone()[0] == "kept"
    assert spark.sql(render(kept, "spark")).collect()[0][0] == "kept"
    stopped = f'SELECT {guard.format("1 = 1")} AS "v"'
    with pytest.raises(duckdb.Error, match="RULE-X: why"):
        con.execute(render(stopped, "duckdb")).fetchone()
    with pytest.raises(Exception, match="RULE-X: why"):
        spark.sql(render(stopped, "spark")).collect()


def test_every_function_is_covered():
    tested = {expression.split("(")[0] for expression, _ in CASES} | {"RAISE_ERROR"}
    tested |= {e.split("(", 2)[1] for e, _ in CASES if e.startswith("CAST(CARDINALITY")}
    assert {f.name for f in portable.PORTABLE_FUNCTIONS} - {"ROUND"} <= tested
