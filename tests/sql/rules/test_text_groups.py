"""Text a dialect takes for one although it differs, where values are grouped: run on DuckDB
and Spark against rows written here, with what each source documents.

- T-SQL, Teradata and Redshift compare text as if the shorter were padded with blanks ("'a'
  = 'a '": SQL Server's ANSI_PADDING, Teradata's comparison rules, Redshift's "trailing
  spaces ... are treated as semantically insignificant when values are compared"), so GROUP
  BY, DISTINCT and set operations put 'b' and 'b ' in one group, COUNT(DISTINCT) counts them
  once, and IN (subquery) finds 'b' in a list holding 'b '.
- Teradata's NOT CASESPECIFIC text (TERA session mode's default) compares simple Latin
  letters in upper case: 'b' and 'B' are one group too.

Which of a group's values the source shows is not documented: a group holding two stops the
query (the guard, naming its rule); data without such groups gives the exact rows.
"""

from __future__ import annotations

import pytest

from sql.assumptions import Assumptions
from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

CATALOG = """
tables:
  raw.names:
    k: BIGINT
    c_name: VARCHAR(25)
  raw.others:
    k: BIGINT
    c_name: VARCHAR(25)
legacy:
  tsql:
    dbo.names: raw.names
    dbo.others: raw.others
  teradata:
    db.names: raw.names
    db.others: raw.others
  redshift:
    public.names: raw.names
    public.others: raw.others
"""
TABLES = {
    "tsql": ("dbo.names", "dbo.others"),
    "teradata": ("db.names", "db.others"),
    "redshift": ("public.names", "public.others"),
}
ANSI_MODE = Assumptions(teradata_session_mode="ANSI")  # text CASESPECIFIC: blanks only


def _rows(*names: str | None) -> str:
    values = ", ".join(
        f"({k}, {'CAST(NULL AS VARCHAR(10))' if n is None else repr(n)})"
        for k, n in enumerate(names, start=1)
    )
    return f"SELECT CAST(k AS BIGINT) AS k, c_name FROM (VALUES {values}) AS t(k, c_name)"


# names: no two values the source takes for one (case differs, which T-SQL and Redshift,
# and Teradata in ANSI mode, compare); blanks: 'b' and 'b '; cases: 'b' and 'B'.
ROWS = {
    "names": _rows("a", "A", "b", "b", "c  ", None),
    "blanks": _rows("a", "A", "b", "b ", "c  ", None),
    "one_case": _rows("a", "b", "b", "c  ", None),
    "cases": _rows("a", "b", "B", "c  ", None),
    "others": _rows("b", "d", None),
    "others_blank": _rows("b ", "d", None),
}


@pytest.fixture(scope="module")
def engines(spark_engine):
    with engine_tables(spark_engine, **ROWS) as engines:
        yield engines


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "catalog.yaml"
    path.write_text(CATALOG)
    return load_catalog(path)


def _ansi(query: str, dialect: str, catalog, assumptions: Assumptions | None = None) -> str:
    names, others = TABLES[dialect]
    source = query.replace("NAMES", names).replace("OTHERS", others)
    return translate(source, dialect, catalog=catalog, assumptions=assumptions).ansi_sql


def _run(engines, ansi_sql: str, names: str, others: str = "others") -> tuple[list, list]:
    con, spark = engines
    sql = ansi_sql.replace('"raw"."names"', f'"{names}"').replace('"raw"."others"', f'"{others}"')
    key = lambda row: tuple((v is None, v) for v in row)  # noqa: E731
    on_duckdb = sorted((tuple(r) for r in con.sql(render(sql, "duckdb")).fetchall()), key=key)
    on_spark = sorted((tuple(r) for r in spark.sql(render(sql, "spark")).collect()), key=key)
    return on_duckdb, on_spark


def _stops(engines, ansi_sql: str, names: str, rule: str, others: str = "others") -> None:
    con, spark = engines
    sql = ansi_sql.replace('"raw"."names"', f'"{names}"').replace('"raw"."others"', f'"{others}"')
    with pytest.raises(Exception, match=rule):
        con.sql(render(sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match=rule):
        spark.sql(render(sql, "spark")).collect()


# (query, the rows over "names", the table of rows it stops on)
PAD_CASES = [
    (
        "SELECT c_name, COUNT(*) AS n FROM NAMES GROUP BY c_name",
        [("A", 1), ("a", 1), ("b", 2), ("c  ", 1), (None, 1)],
        "blanks",
    ),
    (
        # HAVING reads the group's key, as the source compares it: exact, no guard
        "SELECT COUNT(*) AS n FROM NAMES GROUP BY c_name HAVING c_name <> 'a'",
        [(1,), (1,), (2,)],
        None,
    ),
    (
        "SELECT c_name, COUNT(*) AS n FROM NAMES GROUP BY c_name ORDER BY c_name",
        [("A", 1), ("a", 1), ("b", 2), ("c  ", 1), (None, 1)],
        "blanks",
    ),
    (
        # the total row leaves c_name out: NULL, as GROUPING of its key says
        "SELECT c_name, COUNT(*) AS n FROM NAMES GROUP BY ROLLUP (c_name)",
        [("A", 1), ("a", 1), ("b", 2), ("c  ", 1), (None, 1), (None, 6)],
        "blanks",
    ),
    (
        # a window over the groups partitions by the key (no guard there)
        "SELECT c_name, COUNT(*) AS n, SUM(COUNT(*)) OVER (PARTITION BY c_name) AS w "
        "FROM NAMES GROUP BY c_name",
        [("A", 1, 1), ("a", 1, 1), ("b", 2, 2), ("c  ", 1, 1), (None, 1, 1)],
        "blanks",
    ),
    ("SELECT DISTINCT c_name FROM NAMES", [("A",), ("a",), ("b",), ("c  ",), (None,)], "blanks"),
    (
        "SELECT c_name FROM NAMES UNION SELECT c_name FROM OTHERS",
        [("A",), ("a",), ("b",), ("c  ",), ("d",), (None,)],
        "blanks",
    ),
    ("SELECT c_name FROM NAMES INTERSECT SELECT c_name FROM OTHERS", [("b",), (None,)], "blanks"),
]


@pytest.mark.parametrize("dialect", ["tsql", "redshift", "teradata"])
@pytest.mark.parametrize(("query", "expected", "stopping"), PAD_CASES)
def test_values_that_differ_in_trailing_blanks_group_as_one_or_stop_the_query(
    engines, catalog, dialect, query, expected, stopping
):
    ansi_sql = _ansi(query, dialect, catalog, ANSI_MODE)
    assert _run(engines, ansi_sql, "names") == (expected, expected)
    if stopping is None:
        assert _run(engines, ansi_sql, "blanks") == (expected, expected)
        return
    _stops(engines, ansi_sql, stopping, "PAD-VARIANT")


@pytest.mark.parametrize("dialect", ["tsql", "redshift", "teradata"])
def test_what_equality_alone_decides_is_exact_over_any_rows(engines, catalog, dialect):
    """COUNT(DISTINCT), PARTITION BY, IN (subquery) and EXCEPT show no group's value: 'b'
    and 'b ' count once and are one partition, and 'b ' in the other table removes 'b'."""
    count = _ansi("SELECT COUNT(DISTINCT c_name) AS n FROM NAMES", dialect, catalog, ANSI_MODE)
    assert _run(engines, count, "blanks") == ([(4,)], [(4,)])
    partitioned = _ansi(
        "SELECT k, COUNT(*) OVER (PARTITION BY c_name) AS n FROM NAMES", dialect, catalog, ANSI_MODE
    )
    expected = [(1, 1), (2, 1), (3, 2), (4, 2), (5, 1), (6, 1)]
    assert _run(engines, partitioned, "blanks") == (expected, expected)
    found = _ansi(
        "SELECT k FROM NAMES WHERE c_name IN (SELECT c_name FROM OTHERS)",
        dialect,
        catalog,
        ANSI_MODE,
    )
    assert _run(engines, found, "blanks", "others_blank") == ([(3,), (4,)], [(3,), (4,)])
    left = _ansi(
        "SELECT c_name FROM NAMES EXCEPT SELECT c_name FROM OTHERS", dialect, catalog, ANSI_MODE
    )
    expected = [("A",), ("a",), ("c  ",)]
    assert _run(engines, left, "names", "others_blank") == (expected, expected)


# Teradata in TERA mode: NOT CASESPECIFIC, so 'b' and 'B' are one value as well.
CASE_QUERIES = [
    (
        "SELECT c_name, COUNT(*) AS n FROM NAMES GROUP BY c_name",
        [("a", 1), ("b", 2), ("c  ", 1), (None, 1)],
    ),
    ("SELECT DISTINCT c_name FROM NAMES", [("a",), ("b",), ("c  ",), (None,)]),
    (
        "SELECT c_name FROM NAMES UNION SELECT c_name FROM OTHERS",
        [("a",), ("b",), ("c  ",), ("d",), (None,)],
    ),
]


@pytest.mark.parametrize(("query", "expected"), CASE_QUERIES)
def test_teradata_case_variants_group_as_one_or_stop_the_query(engines, catalog, query, expected):
    ansi_sql = _ansi(query, "teradata", catalog)
    assert "TRANSLATE(" in ansi_sql
    assert _run(engines, ansi_sql, "one_case") == (expected, expected)
    _stops(engines, ansi_sql, "cases", "CASE-VARIANT")
    _stops(engines, ansi_sql, "blanks", "CASE-VARIANT")  # 'b', 'b ' and 'a', 'A'


def test_teradata_count_distinct_without_case_counts_the_folded_values(engines, catalog):
    ansi_sql = _ansi("SELECT COUNT(DISTINCT c_name) AS n FROM NAMES", "teradata", catalog)
    assert _run(engines, ansi_sql, "blanks") == ([(3,)], [(3,)])  # a/A, b/b , c


def test_each_guard_is_reported_and_strict_refuses_it(catalog):
    query = "SELECT c_name, COUNT(*) AS n FROM NAMES GROUP BY c_name"
    translation = translate(query.replace("NAMES", "dbo.names"), "tsql", catalog=catalog)
    assert translation.guards == ("PAD-VARIANT",)
    assert translation.portable_functions == ("RAISE_ERROR",)
    with pytest.raises(TranslationError) as raised:
        translate(query.replace("NAMES", "dbo.names"), "tsql", catalog=catalog, strict=True)
    [refusal] = raised.value.diagnostics
    assert refusal.rule == "PORTABLE-STRICT"
    assert "run-time guard of PAD-VARIANT" in refusal.message
    assert (refusal.line, refusal.col) == (1, 45)  # the GROUP BY


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("SELECT DISTINCT c_name, COUNT(*) AS n FROM NAMES GROUP BY c_name, k", "over groups"),
        ("SELECT c_name FROM NAMES INTERSECT ALL SELECT c_name FROM OTHERS", "ALL"),
        (
            "SELECT c_name, (SELECT COUNT(*) FROM OTHERS o WHERE o.c_name > n.c_name) AS m "
            "FROM NAMES n GROUP BY c_name",
            "subquery",
        ),
    ],
)
def test_where_a_shown_value_has_no_guarded_form_it_stays_refused(catalog, query, why):
    with pytest.raises(TranslationError) as raised:
        _ansi(query, "tsql", catalog)
    assert any(d.rule == "PAD-VARIANT" and why in d.message for d in raised.value.diagnostics)


def test_keys_that_cannot_differ_in_blanks_or_case_are_grouped_as_written(catalog):
    query = (
        "SELECT UPPER(RTRIM(c_name)) AS u, COUNT(*) AS n FROM NAMES GROUP BY UPPER(RTRIM(c_name))"
    )
    translation = translate(query.replace("NAMES", "db.names"), "teradata", catalog=catalog)
    assert translation.guards == ()
