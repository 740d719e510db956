"""BigQuery LIKE with a pattern known only at run time: a backslash makes the next character
literal (ZetaSQL's like.cc), on DuckDB and Spark as in BigQuery."""

from __future__ import annotations

import duckdb
import pytest

from sql.render import render
from sql.translate import translate

BS = "\\"
# (key, value, pattern, whether BigQuery's LIKE matches: worked out from its definition)
ROWS = [
    (1, "a%b", f"a{BS}%b", True),  # \% is a literal %
    (2, "axb", f"a{BS}%b", False),
    (3, "a_b", f"a{BS}_b", True),
    (4, "axb", f"a{BS}_b", False),
    (5, "ab", "a_", True),  # wildcards stay wildcards
    (6, "a\nb", "a%", True),
    (7, f"a{BS}b", f"a{BS}{BS}b", True),  # \\ is one backslash
    (8, "abc", None, None),
    (9, None, "a%", None),
]


@pytest.fixture(scope="module")
def customers(spark_engine):
    def text(value: str | None) -> str:
        if value is None:
            return "CAST(NULL AS VARCHAR(10))"
        return "'" + value.replace("\n", "' || CHR(10) || '") + "'"

    values = ", ".join(f"({k}, {text(v)}, {text(p)})" for k, v, p, _ in ROWS)
    rows = f"SELECT * FROM (VALUES {values}) AS t(c_custkey, c_name, c_phone)"
    spark = spark_engine.session().newSession()
    # Spark's literals read backslash escapes: the rows are built from DuckDB's values.
    con = duckdb.connect()
    con.execute(f"CREATE TABLE customer AS {rows}")
    spark.createDataFrame(
        con.sql("SELECT * FROM customer").fetchall(), "c_custkey INT, c_name STRING, c_phone STRING"
    ).createOrReplaceTempView("customer")
    yield con, spark
    con.close()


def _ansi(predicate: str) -> str:
    source = f"SELECT c_custkey, {predicate} AS m FROM sales.customer"
    return translate(source, "bigquery").ansi_sql.replace('"raw"."customer"', '"customer"')


def test_a_pattern_from_a_column_reads_backslashes_as_bigquery_does(customers):
    con, spark = customers
    ansi_sql = _ansi("c_name LIKE c_phone")
    assert "ESCAPE" in ansi_sql
    expected = sorted((k, m) for k, _, _, m in ROWS)
    assert sorted(con.sql(render(ansi_sql, "duckdb")).fetchall()) == expected
    assert sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()) == expected


def test_a_pattern_built_from_pieces_keeps_the_escapes(customers):
    con, spark = customers
    ansi_sql = _ansi("c_name LIKE CONCAT(SUBSTR(c_phone, 1, 1), '%')")
    # key 7's pattern is 'a%': matches; key 1's 'a%' too; key 8's NULL stays NULL
    on_duckdb = dict(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = dict(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark
    assert (on_duckdb[1], on_duckdb[7], on_duckdb[8], on_duckdb[9]) == (True, True, None, None)


# (A literal pattern ending in a backslash is refused at translation: LIKE-PATTERN.)
@pytest.mark.parametrize("pattern", [f"CONCAT(c_name, '{BS}{BS}')", f"CONCAT('a', '{BS}{BS}')"])
def test_a_final_backslash_fails_as_in_bigquery(customers, pattern):
    con, spark = customers
    ansi_sql = _ansi(f"c_name LIKE {pattern}")
    with pytest.raises(duckdb.Error):
        con.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="ESC_AT_THE_END"):
        spark.sql(render(ansi_sql, "spark")).collect()


def test_a_backslash_before_another_character_matches_it_or_fails(customers):
    # BigQuery matches 'a-b' with 'a\-b'; the standard (and Spark) raise on that escape
    # sequence, DuckDB matches as BigQuery does: never another answer.
    con, spark = customers
    source = (
        f"SELECT c_custkey, 'a-b' LIKE CONCAT(SUBSTR(c_name, 1, 1), '{BS}{BS}-b') AS m "
        "FROM sales.customer WHERE c_custkey = 5"
    )
    ansi_sql = translate(source, "bigquery").ansi_sql.replace('"raw"."customer"', '"customer"')
    assert con.sql(render(ansi_sql, "duckdb")).fetchall() == [(5, True)]
    with pytest.raises(Exception, match="ESC_IN_THE_MIDDLE"):
        spark.sql(render(ansi_sql, "spark")).collect()
