"""Constructs that used to translate to something close: T-SQL VARCHAR(MAX), T-SQL LIKE and a
varchar value's trailing blanks, hour/second DATEDIFF beyond 68 years, and CAST of a string
column to a date. Each runs on DuckDB and Spark against values written here by hand, or is
refused with its rule."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

COLUMNS = "id BIGINT, name VARCHAR, s VARCHAR, t1 TIMESTAMP, t2 TIMESTAMP"
CATALOG = Catalog(
    tables={
        "raw.facts": {
            "id": "BIGINT",
            "name": "VARCHAR",
            "s": "VARCHAR",
            "t1": "TIMESTAMP",
            "t2": "TIMESTAMP",
        }
    },
    legacy={
        "tsql": {("dbo", "facts"): "raw.facts"},
        "bigquery": {("s", "facts"): "raw.facts"},
        "snowflake": {("S", "FACTS"): "raw.facts"},
        "redshift": {("s", "facts"): "raw.facts"},
        "oracle": {("S", "FACTS"): "raw.facts"},
        "teradata": {("s", "facts"): "raw.facts"},
    },
    opaque={},
    sources=("test_exact_or_refused.py",),
)
TABLES = {
    "tsql": "dbo.facts",
    "bigquery": "s.facts",
    "snowflake": "S.FACTS",
    "redshift": "s.facts",
    "oracle": "S.FACTS",
    "teradata": "s.facts",
}
T = dt.datetime
ROWS = [
    (1, "abc", "2024-01-05", T(1900, 1, 1), T(2024, 1, 1, 12, 0, 1)),
    (2, "abc ", "2024-1-5", T(2024, 1, 1, 23, 59, 59), T(2024, 1, 2)),
    (3, "abc  ", None, T(1901, 6, 30, 1, 2, 3), T(2030, 1, 1)),
    (4, "xabc", "0001-12-31", T(2024, 3, 1), T(1850, 3, 1)),
    (5, "ab c", "9999-12-31", T(2000, 1, 1), T(2000, 1, 1)),
    (6, "", "2024-02-29", None, T(2000, 1, 1)),
    (7, None, "2023-12-31", T(2000, 1, 1), None),
    (8, " abc", "1999-01-01", T(2000, 1, 1), T(2000, 1, 1)),
]


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = connect_duckdb()
    con.execute(f"CREATE TABLE facts ({COLUMNS})")
    con.executemany("INSERT INTO facts VALUES (?, ?, ?, ?, ?)", ROWS)
    spark = spark_engine.session().newSession()
    spark.createDataFrame(ROWS, COLUMNS.replace("VARCHAR", "STRING")).createOrReplaceTempView(
        "facts"
    )
    yield con, spark
    con.close()


def _translate(dialect: str, select: str, where: str = "") -> str:
    sql = f"SELECT id, {select} AS v FROM {TABLES[dialect]}" + (f" WHERE {where}" if where else "")
    return translate(sql, dialect, catalog=CATALOG).ansi_sql


def _both(engines, ansi_sql: str) -> dict:
    con, spark = engines
    local = ansi_sql.replace('"raw"."facts"', '"facts"')
    on_duckdb = dict(tuple(r) for r in con.sql(render(local, "duckdb")).fetchall())
    on_spark = dict(tuple(r) for r in spark.sql(render(local, "spark")).collect())
    assert on_duckdb == on_spark, ansi_sql
    return on_duckdb


def _refused(dialect: str, select: str, rule: str, where: str = "") -> None:
    with pytest.raises(TranslationError) as raised:
        _translate(dialect, select, where)
    assert rule in {d.rule for d in raised.value.diagnostics}


# --- T-SQL VARCHAR(MAX) ----------------------------------------------------------------------


def test_tsql_varchar_max_is_the_unbounded_varchar_on_both_engines(engines):
    values = _both(
        engines, _translate("tsql", "CAST(name AS VARCHAR(MAX)) + CONVERT(VARCHAR(MAX), id)")
    )
    assert values == {r[0]: None if r[1] is None else f"{r[1]}{r[0]}" for r in ROWS}


@pytest.mark.parametrize("target", ["CHAR(MAX)", "VARBINARY(MAX)", "NVARCHAR(MAX)"])
def test_tsql_max_lengths_of_other_types_are_refused(target):
    with pytest.raises(TranslationError):
        _translate("tsql", f"CAST(name AS {target})")


# --- T-SQL LIKE and a varchar value's trailing blanks ----------------------------------------

# SQL Server: LIKE 'abc' matches 'abc' followed by zero or more blanks, for varchar values.
LIKE_CASES = [
    ("'abc'", {1, 2, 3}),
    ("'%abc'", {1, 2, 3, 4, 8}),
    ("'ab%'", {1, 2, 3, 5}),
    ("'a%c'", {1, 2, 3, 5}),
    ("'[a]bc'", {1, 2, 3}),
    ("'ab[c]'", {1, 2, 3}),  # a class that holds no blank ends the pattern as a letter does
    ("'%[a-b]c'", {1, 2, 3, 4, 8}),
    ("N'abc'", {1}),  # a Unicode pattern: trailing blanks count
]


@pytest.mark.parametrize(("pattern", "expected"), LIKE_CASES)
def test_tsql_like_ignores_a_varchar_values_trailing_blanks(engines, pattern, expected):
    values = _both(engines, _translate("tsql", "name", f"name LIKE {pattern}"))
    assert set(values) == expected


def _tsql_like(value: str, pattern: str) -> bool | None:
    """What SQL Server's LIKE gives for a varchar value, None where it is not documented: it
    ignores the value's trailing blanks, not saying how many, so each reading (the value with
    k of its n trailing blanks, 0 <= k <= n) is SQL Server's answer or none is."""
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    kept = value.rstrip(" ")
    readings = {
        re.fullmatch(regex, kept + " " * k, re.S) is not None
        for k in range(len(value) - len(kept) + 1)
    }
    return readings.pop() if len(readings) == 1 else None


# Patterns ending in _ or a blank: whether a value with trailing blanks matches may depend on
# how many SQL Server ignores. Where it does not, the match is exact; where it does, a guard
# stops the query.
UNDECIDED_PATTERNS = ["ab_", "abc ", "a_c_", "%_", "abc_"]


@pytest.mark.parametrize("pattern", UNDECIDED_PATTERNS)
def test_tsql_like_whose_match_depends_on_the_blanks_ignored_runs_exact_or_stops(engines, pattern):
    con, spark = engines
    ansi_sql = _translate("tsql", "name", f"name LIKE '{pattern}'")
    named = {row[0]: row[1] for row in ROWS if row[1] is not None}
    decided = sorted(k for k, name in named.items() if _tsql_like(name, pattern) is not None)
    undecided = sorted(set(named) - set(decided))
    expected = {k for k in decided if _tsql_like(named[k], pattern)}
    for subset, name in ((decided, "decided"), (undecided[:1] or decided, "undecided")):
        rows = [row for row in ROWS if row[0] in subset]
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM facts WHERE id IN "
            f"({', '.join(map(str, subset))})"
        )
        spark.createDataFrame(rows, COLUMNS.replace("VARCHAR", "STRING")).createOrReplaceTempView(
            name
        )
    local = ansi_sql.replace('"raw"."facts"', '"decided"')
    assert {k for k, _ in con.sql(render(local, "duckdb")).fetchall()} == expected
    assert {r[0] for r in spark.sql(render(local, "spark")).collect()} == expected
    if not undecided:
        return  # every value's match is documented: nothing stops ('abc ' LIKE '%_')
    stopped = ansi_sql.replace('"raw"."facts"', '"undecided"')
    with pytest.raises(Exception, match="LIKE-PATTERN"):
        con.sql(render(stopped, "duckdb")).fetchall()
    with pytest.raises(Exception, match="LIKE-PATTERN"):
        spark.sql(render(stopped, "spark")).collect()


@pytest.mark.parametrize(
    "where", ["name LIKE 'ab[ ]'", "name LIKE 'ab[^x]'", "name LIKE 'a!_b_' ESCAPE '!'"]
)
def test_tsql_like_patterns_whose_blanks_have_no_guarded_form_are_refused(where):
    _refused("tsql", "name", "LIKE-PATTERN", where)


# --- DATEDIFF in seconds beyond Spark's INT day count ----------------------------------------


def _second_boundaries(end: dt.datetime | None, start: dt.datetime | None) -> int | None:
    if end is None or start is None:
        return None
    return int((end.replace(microsecond=0) - start.replace(microsecond=0)).total_seconds())


@pytest.mark.parametrize("dialect", ["snowflake", "redshift"])
def test_second_boundaries_over_a_century_do_not_overflow(engines, dialect):
    values = _both(engines, _translate(dialect, "DATEDIFF(second, t1, t2)"))
    assert values == {r[0]: _second_boundaries(r[4], r[3]) for r in ROWS}


# --- CAST of a string column to a date -------------------------------------------------------


def test_bigquery_cast_of_canonical_date_strings(engines):
    values = _both(engines, _translate("bigquery", "CAST(s AS DATE)", "id <> 6 OR id = 6"))
    expected = {r[0]: None if r[2] is None else dt.date(*map(int, r[2].split("-"))) for r in ROWS}
    assert values == expected


@pytest.mark.parametrize(
    "text",
    [
        "2024",
        "2024-01",
        " 2024-01-05",
        "2024-01-05 ",
        "2024-01-05T00",
        "20240105",
        "0000-01-01",
        "2023-02-29",
    ],
)
def test_bigquery_cast_of_other_strings_raises_on_both_engines(engines, text):
    con, spark = engines
    ansi_sql = _translate("bigquery", "CAST(s AS DATE)")
    local = ansi_sql.replace('"raw"."facts"', f"(SELECT 1 AS id, '{text}' AS s)")
    with pytest.raises(Exception, match=r"(?i)conver|cast|date|format"):
        con.sql(render(local, "duckdb")).fetchall()
    with pytest.raises(Exception, match=r"(?i)cast|date|format"):
        spark.sql(render(local, "spark")).collect()


@pytest.mark.parametrize(
    ("dialect", "select"),
    [
        ("snowflake", "s::TIME"),
        ("snowflake", "CAST(s AS TIMESTAMP_LTZ)"),
        ("tsql", "CAST(s AS DATE)"),
        ("tsql", "CONVERT(DATETIME, s)"),
        ("oracle", "CAST(s AS DATE)"),
        ("teradata", "CAST(s AS DATE)"),
        ("redshift", "s::DATE"),
        ("bigquery", "CAST(s AS TIMESTAMP)"),
    ],
)
def test_casts_of_string_columns_read_by_session_settings_are_refused(dialect, select):
    _refused(dialect, select, "CAST-FROM-TEXT-SETTINGS")


# --- QUALIFY below the top level ---------------------------------------------------------------


def test_snowflake_qualify_inside_a_cte_and_a_subquery(engines):
    sql = (
        "WITH last_two AS (SELECT id, name FROM S.FACTS "
        "QUALIFY ROW_NUMBER() OVER (ORDER BY id DESC) <= 2) "
        "SELECT id, name AS v FROM last_two WHERE id IN (SELECT id FROM S.FACTS "
        "QUALIFY COUNT(*) OVER (PARTITION BY t2) > 1)"
    )
    values = _both(engines, translate(sql, "snowflake", catalog=CATALOG).ansi_sql)
    # ids 7 and 8 are the last two; t2 = 2000-01-01 is shared by ids 5, 6 and 8
    assert values == {8: " abc"}


# --- Snowflake SUBSTR with a start of 0 and a length that may be negative ------------------------


def _snowflake_substr(text: str | None, start: int, length: int | None) -> str | None:
    """Snowflake's documented reading: position 0 is 1; a negative length gives ''."""
    if text is None:
        return None
    begin = max(start, 1) - 1
    return text[begin:] if length is None else ("" if length < 0 else text[begin : begin + length])


@pytest.mark.parametrize(
    ("select", "start", "length"),
    [
        ("SUBSTR(name, 0, 2)", lambda r: 0, lambda r: 2),
        ("SUBSTR(name, 2, id - 4)", lambda r: 2, lambda r: r[0] - 4),
        ("SUBSTR(name, 1, -1)", lambda r: 1, lambda r: -1),
        ("SUBSTR(name, POSITION('b' IN name) + 1)", None, None),
    ],
)
def test_snowflake_substr(engines, select, start, length):
    values = _both(engines, _translate("snowflake", select))
    if start is None:  # after the first 'b', or the whole string when there is none
        expected = {r[0]: None if r[1] is None else r[1][r[1].find("b") + 1 :] for r in ROWS}
    else:
        expected = {r[0]: _snowflake_substr(r[1], start(r), length(r)) for r in ROWS}
    assert values == expected


@pytest.mark.parametrize("select", ["SUBSTR(name, id - 4)", "SUBSTR(name, -2)"])
def test_snowflake_substr_from_the_end_is_refused(select):
    _refused("snowflake", select, "FN-SUBSTR")


def test_snowflake_quoted_mixed_case_cte_name_is_read_back_by_its_quoted_name(engines):
    sql = 'WITH "LastTwo" AS (SELECT id, name FROM S.FACTS WHERE id > 6) SELECT id, name AS v FROM "LastTwo"'
    values = _both(engines, translate(sql, "snowflake", catalog=CATALOG).ansi_sql)
    assert values == {7: None, 8: " abc"}


def test_snowflake_cte_that_reads_itself_is_recursive_without_the_keyword(engines):
    sql = (
        "WITH steps AS (SELECT 1 AS id, 'a' AS name UNION ALL "
        "SELECT id + 1, name || 'a' FROM steps WHERE id < 4) SELECT id, name AS v FROM steps"
    )
    values = _both(engines, translate(sql, "snowflake", catalog=CATALOG).ansi_sql)
    assert values == {1: "a", 2: "aa", 3: "aaa", 4: "aaaa"}


@pytest.mark.parametrize(
    ("select", "named"),
    [("ARRAY_AGG(name)", "ARRAY_AGG"), ("ARRAY_CONSTRUCT(name)", "ARRAY_")],
)
def test_snowflake_array_refusals_name_the_construct_and_the_variant_elements(select, named):
    with pytest.raises(TranslationError) as raised:
        _translate("snowflake", select)
    messages = [d.message for d in raised.value.diagnostics if d.rule == "ARRAY-AGG"]
    assert messages and all(named in m and "VARIANT" in m for m in messages)


# --- T-SQL casts to a sized VARCHAR keep its first n characters -------------------------------


@pytest.mark.parametrize(
    ("select", "length"),
    [
        ("CAST(name AS VARCHAR(2))", 2),
        ("CONVERT(VARCHAR(3), name)", 3),
        ("CAST(s AS VARCHAR(4))", 4),
    ],
)
def test_tsql_cast_to_a_sized_varchar_cuts_the_string_on_both_engines(engines, select, length):
    column = 1 if "name" in select else 2
    values = _both(engines, _translate("tsql", select))
    # SQL Server: CAST('abc  ' AS VARCHAR(2)) is 'ab'; a NULL stays NULL.
    assert values == {r[0]: None if r[column] is None else r[column][:length] for r in ROWS}


def test_tsql_cast_of_a_number_or_to_varchar_max_is_not_cut():
    ansi = _translate("tsql", "CAST(id AS VARCHAR(20))")
    assert "SUBSTRING" not in ansi


@pytest.mark.parametrize("target", ["CHAR(3)", "NCHAR(3)"])
def test_tsql_cast_of_a_string_to_char_is_refused(target):
    _refused("tsql", f"CAST(name AS {target})", "TSQL-STRING-LENGTH")
