"""Source forms sqlglot reads into standard nodes, written in a form no engine reads unless
the ANSI generator spells them out: T-SQL's ``WITH ROLLUP`` / ``WITH CUBE`` become the
standard's ``ROLLUP (...)`` / ``CUBE (...)`` (T431) with the source's rows on both engines,
``FROM (t)`` loses its parentheses; the forms without an exact one (``GROUP BY ALL``,
windows copied from named windows, ...) are refused where they are."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

ROWS = (
    "SELECT * FROM (VALUES ('F', '1-URGENT', 10), ('F', '2-HIGH', 20), ('O', '1-URGENT', 5), "
    "('O', NULL, 7), (NULL, '2-HIGH', 1)) AS t(o_orderstatus, o_orderpriority, o_totalprice)"
)

# (status, priority, GROUPING(status), GROUPING(priority), SUM(price)), by hand from ROWS
DETAIL = [
    ("F", "1-URGENT", 0, 0, 10),
    ("F", "2-HIGH", 0, 0, 20),
    ("O", "1-URGENT", 0, 0, 5),
    ("O", None, 0, 0, 7),
    (None, "2-HIGH", 0, 0, 1),
]
ROLLUP = [
    *DETAIL,
    ("F", None, 0, 1, 30),
    ("O", None, 0, 1, 12),
    (None, None, 0, 1, 1),
    (None, None, 1, 1, 43),
]
CUBE = [
    *ROLLUP,
    (None, "1-URGENT", 1, 0, 15),
    (None, "2-HIGH", 1, 0, 21),
    (None, None, 1, 0, 7),
]

QUERY = (
    "SELECT o_orderstatus, o_orderpriority, GROUPING(o_orderstatus) AS gs, "
    "GROUPING(o_orderpriority) AS gp, SUM(o_totalprice) AS total FROM dbo.Orders "
)


@pytest.fixture(scope="module")
def engines(spark_engine):
    spark = spark_engine.session().newSession()
    spark.sql(ROWS).createOrReplaceTempView("orders")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE orders AS {ROWS}")
    yield con, spark
    con.close()


def _key(row: tuple) -> tuple:
    return tuple((v is None, v if v is not None else 0) for v in row)


def _normal(rows) -> list[tuple]:
    return sorted(
        ((*(tuple(row)[:2]), *(int(v) for v in tuple(row)[2:4]), Decimal(row[4])) for row in rows),
        key=_key,
    )


@pytest.mark.parametrize(
    ("grouping", "standard", "expected"),
    [
        ("GROUP BY o_orderstatus, o_orderpriority WITH ROLLUP", "ROLLUP (", ROLLUP),
        ("GROUP BY o_orderstatus, o_orderpriority WITH CUBE", "CUBE (", CUBE),
        ("GROUP BY ROLLUP (o_orderstatus, o_orderpriority)", "ROLLUP (", ROLLUP),
        ("GROUP BY o_orderstatus, o_orderpriority", "GROUP BY", DETAIL),
    ],
)
def test_with_rollup_and_cube_give_the_source_rows_on_both_engines(
    engines, grouping, standard, expected
):
    con, spark = engines
    ansi_sql = translate(QUERY + grouping, "tsql").ansi_sql
    assert standard in ansi_sql and "WITH" not in ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."orders"', '"orders"')
    on_duckdb = _normal(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = _normal(spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == _normal(expected), ansi_sql


@pytest.mark.parametrize(
    ("dialect", "source", "where", "message"),
    [
        (
            "tsql",
            "SELECT o_orderstatus FROM dbo.Orders\nGROUP BY ALL o_orderstatus",
            (2, 1),
            "GROUP BY ALL with a list",
        ),
        (
            "snowflake",
            "SELECT o_orderstatus FROM SALES.ORDERS GROUP BY ALL",
            (1, 8),
            "list the grouping expressions",
        ),
        (
            "tsql",
            "SELECT o_orderstatus FROM dbo.Orders\n"
            "GROUP BY ROLLUP (o_orderstatus), o_orderpriority WITH CUBE",
            (2, 1),
            "WITH ROLLUP or WITH CUBE over grouping sets",
        ),
    ],
)
def test_group_by_forms_without_an_exact_one_are_refused_at_group_by(
    dialect, source, where, message
):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, (diagnostic.line, diagnostic.col)) == ("ANSI-UNSUPPORTED", where)
    assert message in diagnostic.message


def test_a_parenthesized_table_is_read_as_the_table(engines):
    con, spark = engines
    ansi_sql = translate("SELECT o_totalprice FROM (dbo.Orders) WHERE o_totalprice > 5", "tsql")
    ansi_sql = ansi_sql.ansi_sql.replace('"raw"."orders"', '"orders"')
    assert "(\n" not in ansi_sql
    on_duckdb = sorted(r[0] for r in con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == [7, 10, 20]


@pytest.mark.parametrize(
    ("dialect", "source", "col", "message"),
    [
        (
            "bigquery",
            "SELECT SUM(o_totalprice) OVER w2 AS s FROM sales.orders WINDOW w1 AS "
            "(PARTITION BY o_custkey ROWS 2 PRECEDING), w2 AS (w1)",
            113,
            "another named window",
        ),
        (
            "tsql",
            "SELECT SUM(o_totalprice) OVER (w ORDER BY o_orderdate) AS s FROM dbo.Orders "
            "WINDOW w AS (PARTITION BY o_custkey)",
            8,
            "another named window",
        ),
        (
            "snowflake",
            "SELECT COUNT(DISTINCT o_custkey, o_orderstatus) AS n FROM SALES.ORDERS",
            8,
            "COUNT over several expressions",
        ),
    ],
)
def test_forms_no_engine_reads_are_refused_where_they_are(dialect, source, col, message):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == ("ANSI-UNSUPPORTED", 1, col)
    assert message in diagnostic.message


@pytest.mark.parametrize(
    "text",
    ["a\r\tb", "\xa0no-break", "quote ' back\\slash\t", "\u200bzero width", "\U0001f600\u2028"],
)
def test_invisible_characters_are_written_as_unicode_escapes_and_read_back(text):
    """A literal holding a character a reader cannot see, or a text tool may change (a
    carriage return read back as a line feed), is the standard's U&'...' (F393) with escapes;
    parsed back, it is the same string, which each engine gets as its own literal."""
    import sqlglot
    from sqlglot import exp

    from sql.ansi import Ansi

    written = exp.select(exp.Literal.string(text).as_("v")).sql(Ansi)
    assert written.startswith("SELECT U&'")
    assert not any(char in written for char in "\r\t\xa0\u200b\u2028")
    assert sqlglot.parse_one(written, read=Ansi).selects[0].this.this == text
    assert duckdb.sql(render(written, "duckdb")).fetchall() == [(text,)]
    assert exp.select(exp.Literal.string("plain").as_("v")).sql(Ansi) == "SELECT 'plain' AS v"
