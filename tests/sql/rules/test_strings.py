"""String functions whose omitted arguments, empty results or positions differ per dialect,
on DuckDB and Spark over imported catalogs, against values written from each dialect's
documentation:

- Oracle: "a character value with a length of zero" is NULL, so a TRIM that leaves nothing and
  a CONCAT of two NULLs are NULL, and CONCAT skips a NULL operand
  (https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/Nulls.html,
  .../Concatenation-Operator.html);
- Redshift: CONCAT, like ||, is NULL when either argument is
  (https://docs.aws.amazon.com/redshift/latest/dg/r_CONCAT.html); a SUBSTRING start of 0 or
  below takes start + length - 1 characters from the first (.../r_SUBSTRING.html);
- BigQuery: TRIM / LTRIM / RTRIM without characters remove "whitespace characters (as defined
  by the Unicode standard)"; Snowflake's only blanks: "A specification of ' ' ... does not
  remove other whitespace characters" (https://docs.snowflake.com/en/sql-reference/functions/trim);
- T-SQL: "If start is less than 1, the returned expression will begin at the first character
  ... the number of characters that are returned is the largest value of either the sum of
  start + length - 1 or 0"; RIGHT of more characters than the string has is the string.
"""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import imported_catalog, rows_on_engines

DDL = {
    "oracle": "CREATE TABLE sales.t (id NUMBER(10), s VARCHAR2(20), s2 VARCHAR2(20), n NUMBER(10))",
    "redshift": "CREATE TABLE sales.t (id INTEGER, s VARCHAR(20), s2 VARCHAR(20), n INTEGER)",
    "bigquery": "CREATE TABLE sales.t (id INT64, s STRING, s2 STRING, n INT64)",
    "snowflake": "CREATE TABLE sales.t (id INTEGER, s VARCHAR, s2 VARCHAR, n INTEGER)",
    "tsql": "CREATE TABLE dbo.t (id INT, s VARCHAR(20), s2 VARCHAR(20), n INT)",
    "teradata": "CREATE TABLE sales.t (id INTEGER, s VARCHAR(20), s2 VARCHAR(20), n INTEGER)",
}
TABLE = {"tsql": "dbo.t"}
WHITE = "\t\xa0 ab\n"  # a tab, a no-break space and a space before, a line feed after
# (id, s, s2, n)
ROWS = [
    (1, "   ", "b", 1),
    (2, "  ab  ", None, 0),
    (3, None, None, None),
    (4, "xxabxx", "x", -1),
    (5, "abcdef", "cd", -1),
    (6, WHITE, "z", 2),
    (7, "xxx", "x", 3),
]
ALL = {r[0] for r in ROWS}

# (dialect, expression, {id: value}); ids not named are NULL.
CASES = [
    # Oracle: an empty result is NULL
    ("oracle", "TRIM(s)", {1: None, 2: "ab", 4: "xxabxx", 5: "abcdef", 6: WHITE, 7: "xxx"}),
    ("oracle", "RTRIM(s)", {2: "  ab", 4: "xxabxx", 5: "abcdef", 6: WHITE, 7: "xxx"}),
    ("oracle", "LTRIM(s, 'x')", {1: "   ", 2: "  ab  ", 4: "abxx", 5: "abcdef", 6: WHITE}),
    ("oracle", "TRIM('x' FROM s)", {1: "   ", 2: "  ab  ", 4: "ab", 5: "abcdef", 6: WHITE}),
    # Oracle CONCAT skips a NULL, and two NULLs give NULL
    ("oracle", "CONCAT(s2, s2)", {1: "bb", 4: "xx", 5: "cdcd", 6: "zz", 7: "xx"}),
    # Redshift CONCAT is NULL when either is
    (
        "redshift",
        "CONCAT(s, s2)",
        {1: "   b", 4: "xxabxxx", 5: "abcdefcd", 6: WHITE + "z", 7: "xxxx"},
    ),
    # Redshift SUBSTRING from a start of 0 or below
    (
        "redshift",
        "SUBSTRING(s, -2, 6)",
        {1: "   ", 2: "  a", 4: "xxa", 5: "abc", 6: WHITE[:3], 7: "xxx"},
    ),
    ("redshift", "SUBSTRING(s, n, 2)", {1: "  ", 2: " ", 4: "", 5: "", 6: "\xa0 ", 7: "x"}),
    # BigQuery TRIM without characters: Unicode whitespace
    ("bigquery", "TRIM(s)", {1: "", 2: "ab", 4: "xxabxx", 5: "abcdef", 6: "ab", 7: "xxx"}),
    ("bigquery", "LTRIM(s)", {1: "", 2: "ab  ", 4: "xxabxx", 5: "abcdef", 6: "ab\n", 7: "xxx"}),
    (
        "bigquery",
        "RTRIM(s)",
        {1: "", 2: "  ab", 4: "xxabxx", 5: "abcdef", 6: "\t\xa0 ab", 7: "xxx"},
    ),
    ("bigquery", "TRIM(s, 'x')", {1: "   ", 2: "  ab  ", 4: "ab", 5: "abcdef", 6: WHITE, 7: ""}),
    # BigQuery FORMAT: %s of a STRING, %d of an INT64, %% a percent sign; NULL when an
    # argument is (BigQuery's documentation)
    (
        "bigquery",
        "FORMAT('%s/%d %%', s2, n)",
        {1: "b/1 %", 4: "x/-1 %", 5: "cd/-1 %", 6: "z/2 %", 7: "x/3 %"},
    ),
    # Snowflake TRIM: blanks only
    ("snowflake", "TRIM(s)", {1: "", 2: "ab", 4: "xxabxx", 5: "abcdef", 6: WHITE, 7: "xxx"}),
    # T-SQL positions before the first character, RIGHT past the start
    ("tsql", "SUBSTRING(s, 0, 3)", {1: "  ", 2: "  ", 4: "xx", 5: "ab", 6: "\t\xa0", 7: "xx"}),
    ("tsql", "SUBSTRING(s, -1, 3)", {1: " ", 2: " ", 4: "x", 5: "a", 6: "\t", 7: "x"}),
    ("tsql", "SUBSTRING(s, n, 3)", {1: "   ", 2: "  ", 4: "x", 5: "a", 6: "\xa0 a", 7: "x"}),
    ("tsql", "RIGHT(s, 8)", {1: "   ", 2: "  ab  ", 4: "xxabxx", 5: "abcdef", 6: WHITE, 7: "xxx"}),
    ("tsql", "RIGHT(s, 3)", {1: "   ", 2: "b  ", 4: "bxx", 5: "def", 6: "ab\n", 7: "xxx"}),
    # Teradata SUBSTR as the standard's SUBSTRING
    ("teradata", "SUBSTR(s, 0, 3)", {1: "  ", 2: "  ", 4: "xx", 5: "ab", 6: "\t\xa0", 7: "xx"}),
]


def _rows_sql() -> str:
    from sqlglot import exp

    from sql.ansi import Ansi

    def value(v: object) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, str):
            return exp.Literal.string(v).sql(Ansi)
        return str(v)

    body = ", ".join("(" + ", ".join(value(v) for v in row) + ")" for row in ROWS)
    typed = "CAST(s AS VARCHAR) AS s, CAST(s2 AS VARCHAR) AS s2, CAST(n AS INTEGER) AS n"
    return f"SELECT id, {typed} FROM (VALUES {body}) AS v(id, s, s2, n)"


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalogs")
    return {dialect: imported_catalog(folder, dialect, ddl) for dialect, ddl in DDL.items()}


@pytest.mark.parametrize("dialect", sorted({case[0] for case in CASES}))
def test_string_functions_give_the_documented_values(spark, catalogs, dialect):
    cases = [(expression, want) for d, expression, want in CASES if d == dialect]
    columns = ", ".join(f"{expression} AS v{i}" for i, (expression, _) in enumerate(cases))
    source = f"SELECT id, {columns} FROM {TABLE.get(dialect, 'sales.t')}"
    ansi_sql = translate(source, dialect, catalog=catalogs[dialect]).ansi_sql
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, t=_rows_sql())
    want = sorted(((i, *(values.get(i) for _, values in cases)) for i in sorted(ALL)), key=repr)
    for engine, got in (("duckdb", on_duckdb), ("spark", on_spark)):
        for (expression, _), column in zip(cases, range(1, len(cases) + 1), strict=True):
            assert [row[column] for row in got] == [row[column] for row in want], (
                engine,
                expression,
            )


def test_an_invisible_character_is_written_as_a_unicode_escape():
    """The ANSI text shows BigQuery's whitespace set as escapes, not raw tabs and line feeds
    a text tool might change (read back as the same characters: test_ansi_forms)."""
    catalog_sql = "SELECT TRIM(c_name) AS v FROM sales.customer"
    ansi_sql = translate(catalog_sql, "bigquery").ansi_sql
    assert "U&'\\0009\\000A\\000B\\000C\\000D \\0085\\00A0" in ansi_sql
    assert "\t" not in ansi_sql and "\r" not in ansi_sql


@pytest.mark.parametrize(
    ("dialect", "sql", "message"),
    [
        ("oracle", "SELECT LPAD(c_name, 5) AS v FROM SALES.CUSTOMER", "display columns"),
        ("tsql", "SELECT CHARINDEX('a', c_name, 2) AS v FROM dbo.Customer", "start position"),
        ("snowflake", "SELECT SPLIT_PART(c_name, '', 1) AS v FROM SALES.CUSTOMER", "empty one"),
        (
            "redshift",
            "SELECT REGEXP_SUBSTR(c_name, 'a', 1, 1, 'e') AS v FROM sales.customer",
            "flags",
        ),
    ],
)
def test_defaults_without_an_exact_form_stay_refused(dialect, sql, message):
    with pytest.raises(TranslationError, match=message):
        translate(sql, dialect)


@pytest.mark.parametrize(
    ("sql", "rule", "message"),
    [
        # NFKC normalization and case folding before the search
        (
            "SELECT CONTAINS_SUBSTR(c_name, '+') AS v FROM sales.customer",
            "FN-CONTAINS-SUBSTR",
            "NFKC",
        ),
        # %f's rounding of a FLOAT64 is not documented; widths pad by rules of their own
        ("SELECT FORMAT('%3.2f', c_acctbal) AS v FROM sales.customer", "FN-FORMAT", "%3.2f"),
        ("SELECT FORMAT('%5d', c_custkey) AS v FROM sales.customer", "FN-FORMAT", "%5d"),
        ("SELECT FORMAT('%t', c_name) AS v FROM sales.customer", "FN-FORMAT", "%t"),
        ("SELECT FORMAT('%d', c_name) AS v FROM sales.customer", "FN-FORMAT", "VARCHAR"),
        ("SELECT FORMAT(c_name, 1) AS v FROM sales.customer", "FN-FORMAT", "not a literal"),
        ("SELECT FORMAT('100%', c_name) AS v FROM sales.customer", "FN-FORMAT", "no specifier"),
    ],
)
def test_bigquery_string_functions_without_an_exact_form_are_refused(sql, rule, message):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "bigquery")
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == rule and message in diagnostic.message


@pytest.mark.parametrize(
    ("call", "needle_has_letters"),
    [
        ("CHARINDEX('a', c_name)", True),
        ("CHARINDEX('#', c_name)", False),
        ("REPLACE(c_name, 'Customer', 'C')", True),
        ("TRANSLATE(c_name, 'ab', 'cd')", True),
    ],
)
def test_tsql_searches_follow_the_collation_assumption(call, needle_has_letters):
    """CHARINDEX, REPLACE and TRANSLATE match by the column's collation (case-insensitive by
    SQL Server's default): a stated assumption, as for the comparisons (TSQL-COLLATION)."""
    from dataclasses import replace

    from sql.assumptions import Assumptions

    sql = f"SELECT {call} AS v FROM dbo.Customer"
    sensitive = translate(sql, "tsql")
    warned = [d for d in sensitive.diagnostics if d.rule == "TSQL-COLLATION"]
    assert bool(warned) == needle_has_letters
    insensitive = replace(Assumptions(), tsql_collation_case="INSENSITIVE")
    if not needle_has_letters:
        translate(sql, "tsql", assumptions=insensitive)  # case cannot matter
        return
    with pytest.raises(TranslationError, match="without case"):
        translate(sql, "tsql", assumptions=insensitive)
