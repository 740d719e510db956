"""String aggregates (LISTAGG, STRING_AGG) with each source's separator and value rules, run on
DuckDB and Spark against values written from each dialect's documentation:

- Oracle: "If you omit delimiter, the default is NULL" (no separator; '' is NULL there too);
- Redshift: "The default is NULL", "NULL values and empty strings are ignored", and its
  DISTINCT ignores trailing blanks ("'a' and 'a ' are treated as duplicates. LISTAGG uses the
  first value encountered");
- Snowflake: "If no delimiter is specified, an empty string is used";
- BigQuery: STRING_AGG's delimiter defaults to a comma.
"""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

# (o_custkey, o_clerk): a group of three out of order, one with a NULL, one with '' between
# two values (Redshift only: an Oracle text column holds no ''), one with values that
# differ only in a trailing blank, and one of only NULLs.
ROWS = [
    (1, "b"),
    (1, "a"),
    (1, "c"),
    (2, "y"),
    (2, None),
    (2, "x"),
    (3, "y"),
    (3, ""),
    (3, "x"),
    (4, "a"),
    (4, "a "),
    (5, None),
]
TABLES = {
    "snowflake": "SALES.ORDERS",
    "oracle": "SALES.ORDERS",
    "bigquery": "sales.orders",
    "redshift": "sales.orders",
    "tsql": "dbo.Orders",
}


@pytest.fixture(scope="module")
def engines(spark_engine):
    values = ", ".join(f"({key}, {'NULL' if text is None else repr(text)})" for key, text in ROWS)
    rows = (
        "SELECT CAST(k AS INTEGER) AS o_custkey, CAST(c AS VARCHAR(10)) AS o_clerk "
        f"FROM (VALUES {values}) AS t(k, c)"
    )
    with engine_tables(spark_engine, orders=rows) as engines:
        yield engines


def _values(engines, dialect: str, aggregate: str, groups: tuple[int, ...]) -> tuple[dict, dict]:
    """``aggregate`` per o_custkey of ``groups`` on both engines: ({key: value}, {key: value})."""
    con, spark = engines
    keys = ", ".join(str(g) for g in groups)
    source = (
        f"SELECT o_custkey, {aggregate} AS v FROM {TABLES[dialect]} "
        f"WHERE o_custkey IN ({keys}) GROUP BY o_custkey"
    )
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    on_duckdb = dict(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = {row[0]: row[1] for row in spark.sql(render(ansi_sql, "spark")).collect()}
    return on_duckdb, on_spark


CASES = [
    # Oracle: no separator named is none; '' is NULL, a NULL separator is none.
    ("oracle", "LISTAGG(o_clerk) WITHIN GROUP (ORDER BY o_clerk)", {1: "abc", 2: "xy", 5: None}),
    ("oracle", "LISTAGG(o_clerk, '') WITHIN GROUP (ORDER BY o_clerk)", {1: "abc", 2: "xy"}),
    ("oracle", "LISTAGG(o_clerk, NULL) WITHIN GROUP (ORDER BY o_clerk DESC)", {1: "cba"}),
    ("oracle", "LISTAGG(o_clerk, ', ') WITHIN GROUP (ORDER BY o_clerk)", {1: "a, b, c"}),
    # Snowflake: ''.
    ("snowflake", "LISTAGG(o_clerk) WITHIN GROUP (ORDER BY o_clerk)", {1: "abc", 2: "xy"}),
    ("snowflake", "LISTAGG(o_clerk, '-') WITHIN GROUP (ORDER BY o_clerk)", {1: "a-b-c"}),
    # BigQuery: ','.
    ("bigquery", "STRING_AGG(o_clerk ORDER BY o_clerk)", {1: "a,b,c", 2: "x,y"}),
    ("bigquery", "STRING_AGG(o_clerk, '' ORDER BY o_clerk DESC)", {1: "cba"}),
    # Redshift: none, '' values left out, with or without WITHIN GROUP and DISTINCT.
    ("redshift", "LISTAGG(o_clerk) WITHIN GROUP (ORDER BY o_clerk)", {1: "abc", 3: "xy"}),
    ("redshift", "LISTAGG(o_clerk, '|') WITHIN GROUP (ORDER BY o_clerk)", {3: "x|y"}),
    (
        "redshift",
        "LISTAGG(DISTINCT o_clerk, '|') WITHIN GROUP (ORDER BY o_clerk)",
        {1: "a|b|c", 3: "x|y"},
    ),
    ("redshift", "LISTAGG(DISTINCT o_clerk, '|')", {1: "a|b|c", 3: "x|y", 5: None}),
    # T-SQL names its separator always.
    ("tsql", "STRING_AGG(o_clerk, ';') WITHIN GROUP (ORDER BY o_clerk)", {1: "a;b;c"}),
]


@pytest.mark.parametrize(("dialect", "aggregate", "expected"), CASES)
def test_string_aggregates_keep_the_source_separator_and_values(
    engines, dialect, aggregate, expected
):
    on_duckdb, on_spark = _values(engines, dialect, aggregate, tuple(expected))
    assert on_duckdb == expected
    assert on_spark == expected


@pytest.mark.parametrize(
    "aggregate",
    [
        "LISTAGG(DISTINCT o_clerk, '|') WITHIN GROUP (ORDER BY o_clerk)",
        "LISTAGG(DISTINCT o_clerk, '|')",
    ],
)
def test_redshift_distinct_over_values_that_differ_in_trailing_blanks_stops_the_query(
    engines, aggregate
):
    """'a' and 'a ' are one value to Redshift, which keeps whichever it meets first: the
    guard raises, naming the rule, on both engines."""
    con, spark = engines
    source = f"SELECT {aggregate} AS v FROM sales.orders WHERE o_custkey = 4"
    ansi_sql = translate(source, "redshift").ansi_sql.replace('"raw"."orders"', '"orders"')
    assert "RAISE_ERROR( 'STRING-AGG: " in " ".join(ansi_sql.split())
    with pytest.raises(Exception, match="STRING-AGG"):
        con.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="STRING-AGG"):
        spark.sql(render(ansi_sql, "spark")).collect()


def test_the_guard_is_a_portable_function_strict_refuses():
    source = "SELECT LISTAGG(DISTINCT o_clerk, '|') AS v FROM sales.orders"
    assert translate(source, "redshift").portable_functions == ("RAISE_ERROR",)
    with pytest.raises(TranslationError, match="PORTABLE-STRICT"):
        translate(source, "redshift", strict=True)


@pytest.mark.parametrize(
    ("dialect", "source", "rule"),
    [
        # Redshift keeps whichever of 'a' / 'a ' it meets first in each window: no guard fits.
        (
            "redshift",
            "SELECT LISTAGG(DISTINCT o_clerk, '|') WITHIN GROUP (ORDER BY o_clerk) "
            "OVER (PARTITION BY o_custkey) AS v FROM sales.orders",
            "STRING-AGG",
        ),
    ],
)
def test_what_stays_refused(dialect, source, rule):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert rule in {d.rule for d in raised.value.diagnostics}
