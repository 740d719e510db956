"""Script-level constructs: variables (T-SQL DECLARE/SET/SELECT @v =, BigQuery DECLARE/SET),
BigQuery temporary SQL functions, and temporary tables filled and read by the script.

Each translated script runs on DuckDB and Spark over a few hand-written orders, against rows
computed by hand from the source dialect's rules; each refusal is located at the use."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest
import sqlglot

from sql import ansi
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate_script

# o_orderkey, o_custkey, o_totalprice, o_orderdate
ORDERS = [
    (1, 10, "100.50", "1998-07-01"),
    (2, 10, "250.00", "1998-08-15"),
    (3, 20, None, "1998-09-01"),
    (4, 30, "75.25", None),
]
TABLE = {"tsql": "dbo.Orders", "bigquery": "sales.orders"}


def _orders_sql() -> str:
    def value(v, kind):
        return "NULL" if v is None else f"CAST('{v}' AS {kind})"

    rows = ", ".join(
        f"({k}, {c}, {value(p, 'DECIMAL(15,2)')}, {value(d, 'DATE')})" for k, c, p, d in ORDERS
    )
    return (
        "SELECT CAST(k AS BIGINT) AS o_orderkey, CAST(c AS BIGINT) AS o_custkey, "
        "p AS o_totalprice, d AS o_orderdate "
        f"FROM (VALUES {rows}) AS t(k, c, p, d)"
    )


@pytest.fixture(scope="module")
def engines(spark_engine):
    spark = spark_engine.session().newSession()
    spark.sql(_orders_sql()).createOrReplaceTempView("script_orders")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE script_orders AS {_orders_sql()}")
    yield con, spark
    con.close()


def _one_line(ansi_sql: str) -> str:
    return ansi.generate(sqlglot.parse_one(ansi_sql, read=ansi.Ansi), pretty=False)


def _rows(engines, ansi_sql: str) -> tuple[list[tuple], list[tuple]]:
    con, spark = engines
    local = ansi_sql.replace('"raw"."orders"', '"script_orders"')
    on_duckdb = [tuple(r) for r in con.sql(render(local, "duckdb")).fetchall()]
    on_spark = [tuple(r) for r in spark.sql(render(local, "spark")).collect()]
    return sorted(on_duckdb, key=repr), sorted(on_spark, key=repr)


REWRITES = [
    # (dialect, script, expected ANSI on one line)
    (
        "tsql",
        "DECLARE @d DATE = '1998-08-01';\nSELECT o_orderkey FROM dbo.Orders WHERE o_orderdate >= @d",
        'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
        'WHERE "orders"."o_orderdate" >= CAST(\'1998-08-01\' AS DATE)',
    ),
    (
        "tsql",
        "DECLARE @n INT = 10;\nSET @n = @n + 1;\nSELECT @n AS n",
        'SELECT CAST(CAST(10 AS INTEGER) + 1 AS INTEGER) AS "n"',
    ),
    # A string type without a length is one character long in DECLARE (30 in CAST).
    (
        "tsql",
        "DECLARE @s VARCHAR = 'abc', @c CHAR(5) = 'ab';\nSELECT @s AS s, @c AS c",
        "SELECT CAST('a' AS VARCHAR(1)) AS \"s\", CAST('ab   ' AS CHAR(5)) AS \"c\"",
    ),
    (
        "tsql",
        "DECLARE @m DECIMAL(12,2);\nSELECT @m = MAX(o_totalprice) FROM dbo.Orders;\nSELECT @m AS m",
        'SELECT CAST((SELECT MAX("orders"."o_totalprice") AS "_col_0" FROM "raw"."orders" '
        'AS "orders") AS DECIMAL(12, 2)) AS "m"',
    ),
    (
        "bigquery",
        "DECLARE d DATE DEFAULT '1998-08-01';\nSELECT o_orderkey FROM sales.orders WHERE o_orderdate < d",
        'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
        'WHERE "orders"."o_orderdate" < CAST(\'1998-08-01\' AS DATE)',
    ),
    (
        "bigquery",
        "DECLARE names ARRAY<STRING>;\nSET names = ['a', 'b'];\nSELECT 'a' IN UNNEST(names) AS found",
        'SELECT \'a\' IN (SELECT "_unnest"."_element" AS "_element" FROM '
        'UNNEST(CAST(ARRAY[\'a\', \'b\'] AS VARCHAR ARRAY)) AS "_unnest"("_element")) AS "found"',
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION growth(a FLOAT64, b FLOAT64) RETURNS FLOAT64 AS ((a - b) / b);\n"
        "SELECT growth(3, 2) AS g",
        "SELECT (CAST(((CAST(3 AS DOUBLE PRECISION) - CAST(2 AS DOUBLE PRECISION)) / "
        'CAST(2 AS DOUBLE PRECISION)) AS DOUBLE PRECISION)) AS "g"',
    ),
    (
        "tsql",
        "SELECT o_custkey INTO #big FROM dbo.Orders WHERE o_totalprice > 80;\n"
        "SELECT COUNT(*) AS n FROM #big;\nDROP TABLE #big;",
        'WITH "big" AS (SELECT "orders"."o_custkey" AS "o_custkey" FROM "raw"."orders" AS '
        '"orders" WHERE "orders"."o_totalprice" > 80) SELECT COUNT(*) AS "n" FROM "big" AS "big"',
    ),
    (
        "bigquery",
        "CREATE TEMP TABLE big AS SELECT o_custkey FROM sales.orders;\nSELECT COUNT(*) AS n FROM big",
        'WITH "big" AS (SELECT "orders"."o_custkey" AS "o_custkey" FROM "raw"."orders" AS '
        '"orders") SELECT COUNT(*) AS "n" FROM "big" AS "big"',
    ),
    (
        "snowflake",
        "CREATE TEMPORARY TABLE big AS SELECT o_custkey FROM SALES.ORDERS;\n"
        "SELECT COUNT(*) AS n FROM big",
        'WITH "big" AS (SELECT "orders"."o_custkey" AS "o_custkey" FROM "raw"."orders" AS '
        '"orders") SELECT COUNT(*) AS "n" FROM "big" AS "big"',
    ),
]


@pytest.mark.parametrize(("dialect", "script", "expected"), REWRITES)
def test_script_constructs_become_the_expected_ansi(dialect, script, expected):
    [table] = translate_script(script, dialect, file="s.sql").tables
    assert _one_line(table.ansi_sql) == expected


SEMANTICS = [
    # (dialect, script, rows the source dialect returns, computed by hand)
    (
        "tsql",
        "DECLARE @d DATE = '1998-08-01';\nSELECT o_orderkey FROM dbo.Orders WHERE o_orderdate >= @d",
        [(2,), (3,)],
    ),
    ("tsql", "DECLARE @n INT = 10;\nSET @n = @n + 1;\nSELECT @n AS n", [(11,)]),
    # Conversion to INT truncates toward zero, also on assignment.
    ("tsql", "DECLARE @n INT = -7.9;\nSELECT @n AS n", [(-7,)]),
    ("tsql", "DECLARE @s VARCHAR = 'abc';\nSELECT @s AS s", [("a",)]),
    # A row count takes the integer itself.
    (
        "tsql",
        "DECLARE @n INT = 2;\nSELECT TOP (@n) o_orderkey FROM dbo.Orders ORDER BY o_orderkey",
        [(1,), (2,)],
    ),
    ("tsql", "DECLARE @s VARCHAR(10) = '';\nSELECT @s AS s", [("",)]),
    ("tsql", "DECLARE @x INT;\nSELECT @x AS x", [(None,)]),
    (
        "tsql",
        "DECLARE @m DECIMAL(12,2);\nSELECT @m = MAX(o_totalprice) FROM dbo.Orders;\n"
        "SELECT o_orderkey FROM dbo.Orders WHERE o_totalprice = @m",
        [(2,)],
    ),
    # An aggregate over no rows is still one row: COUNT gives 0, MAX gives NULL (replacing 1).
    (
        "tsql",
        "DECLARE @c INT = 5;\nSELECT @c = COUNT(*) FROM dbo.Orders WHERE o_custkey = 99;\n"
        "SELECT @c AS c",
        [(0,)],
    ),
    (
        "tsql",
        "DECLARE @m DECIMAL(12,2) = 1;\n"
        "SELECT @m = MAX(o_totalprice) FROM dbo.Orders WHERE o_custkey = 99;\nSELECT @m AS m",
        [(None,)],
    ),
    (
        "tsql",
        "DECLARE @m BIGINT;\nWITH big AS (SELECT o_custkey FROM dbo.Orders WHERE o_totalprice > 80)\n"
        "SELECT @m = COUNT(*) FROM big;\nSELECT @m AS m",
        [(2,)],
    ),
    (
        "tsql",
        "DECLARE @a INT = 1, @b INT = 2;\nSELECT @a = @b + 10, @b = 7;\nSELECT @a AS a, @b AS b",
        None,  # refused: T-SQL does not define the order of assignments in one SELECT
    ),
    (
        "bigquery",
        "DECLARE d DATE DEFAULT '1998-08-01';\nSELECT o_orderkey FROM sales.orders WHERE o_orderdate < d",
        [(1,)],
    ),
    # SET (x, y) = (...) computes both values before assigning either.
    (
        "bigquery",
        "DECLARE x, y INT64 DEFAULT 1;\nSET y = 3;\nSET (x, y) = (y + 1, x + 5);\nSELECT x AS a, y AS b",
        [(4, 6)],
    ),
    (
        "bigquery",
        "DECLARE best DEFAULT (SELECT MAX(o_totalprice) FROM sales.orders);\n"
        "SELECT o_orderkey FROM sales.orders WHERE o_totalprice = best",
        [(2,)],
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION growth(a FLOAT64, b FLOAT64) RETURNS FLOAT64 AS ((a - b) / b);\n"
        "SELECT o_orderkey, growth(o_totalprice, 100) AS g FROM sales.orders",
        [(1, 0.005), (2, 1.5), (3, None), (4, -0.2475)],
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION bucket(x ANY TYPE) AS (\n"
        "  CASE WHEN x IS NULL THEN 'none' WHEN x > 100 THEN 'big' ELSE 'small' END);\n"
        "SELECT o_orderkey, bucket(o_totalprice) AS b FROM sales.orders",
        [(1, "big"), (2, "big"), (3, "none"), (4, "small")],
    ),
    # A function calls one defined before it; a parameter used twice gets the same value.
    (
        "bigquery",
        "CREATE TEMP FUNCTION twice(x INT64) AS (x + x);\n"
        "CREATE TEMP FUNCTION next_twice(x INT64) AS (twice(x) + 1);\n"
        "SELECT o_orderkey, next_twice(o_custkey) AS v FROM sales.orders",
        [(1, 21), (2, 21), (3, 41), (4, 61)],
    ),
    # Typed temporary table: each INSERT converts its rows to the declared types, a column
    # the INSERT does not name is NULL.
    (
        "tsql",
        "CREATE TABLE #t (k INT, p DECIMAL(12,2), v INT);\n"
        "INSERT INTO #t SELECT o_orderkey, o_totalprice, o_totalprice FROM dbo.Orders "
        "WHERE o_custkey = 10;\n"
        "INSERT INTO #t (k) SELECT o_orderkey FROM dbo.Orders WHERE o_custkey = 30;\n"
        "SELECT k, p, v FROM #t;\nDROP TABLE #t;",
        [(1, Decimal("100.50"), 100), (2, Decimal("250.00"), 250), (4, None, None)],
    ),
    # Two helpers, one read twice; a helper dropped and made again is the new one.
    (
        "tsql",
        "SELECT o_custkey INTO #c FROM dbo.Orders WHERE o_totalprice > 80;\n"
        "SELECT o_custkey, COUNT(*) AS n INTO #n FROM #c GROUP BY o_custkey;\n"
        "SELECT c.o_custkey, n.n FROM #c AS c JOIN #n AS n ON n.o_custkey = c.o_custkey;",
        [(10, 2), (10, 2)],
    ),
    (
        "tsql",
        "SELECT o_orderkey AS k INTO #t FROM dbo.Orders WHERE o_custkey = 10;\nDROP TABLE #t;\n"
        "SELECT o_orderkey AS k INTO #t FROM dbo.Orders WHERE o_custkey = 20;\nSELECT k FROM #t",
        [(3,)],
    ),
    # An index changes how a helper is read, not what it holds.
    (
        "tsql",
        "SELECT o_orderkey AS k INTO #t FROM dbo.Orders WHERE o_custkey = 10;\n"
        "CREATE CLUSTERED INDEX ix ON #t (k);\nSELECT k FROM #t",
        [(1,), (2,)],
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE v (k INTEGER) ON COMMIT PRESERVE ROWS;\n"
        "INSERT INTO v SELECT o_orderkey FROM SALES_DB.ORDERS WHERE o_custkey = 10;\n"
        "SELECT k FROM v",
        [(1,), (2,)],
    ),
    # A variable takes the helper's rows as they are when it is assigned.
    (
        "tsql",
        "CREATE TABLE #t (k INT);\nINSERT INTO #t SELECT o_orderkey FROM dbo.Orders "
        "WHERE o_custkey = 10;\nDECLARE @n INT;\nSET @n = (SELECT COUNT(*) FROM #t);\n"
        "INSERT INTO #t SELECT o_orderkey FROM dbo.Orders WHERE o_custkey = 20;\n"
        "SELECT @n AS before_insert, COUNT(*) AS after_insert FROM #t",
        [(2, 3)],
    ),
]


@pytest.mark.parametrize(("dialect", "script", "expected"), SEMANTICS)
def test_translated_scripts_return_the_sources_rows_on_both_engines(
    engines, dialect, script, expected
):
    if expected is None:
        with pytest.raises(TranslationError, match="SCRIPT-VARIABLE"):
            translate_script(script, dialect, file="s.sql")
        return
    [table] = translate_script(script, dialect, file="s.sql").tables
    on_duckdb, on_spark = _rows(engines, table.ansi_sql)
    for rows in (on_duckdb, on_spark):
        assert [tuple(_plain(v) for v in r) for r in rows] == [
            tuple(_plain(v) for v in r) for r in sorted(expected, key=repr)
        ], table.ansi_sql


def _plain(value):
    if isinstance(value, float):
        return round(value, 9)
    if (
        isinstance(value, Decimal)
        and value == value.to_integral_value()
        and value.as_tuple().exponent == 0
    ):
        return int(value)
    return value


REFUSED = [
    # (dialect, script, rule, line:col of the use or statement, words of the message)
    (
        "tsql",
        "DECLARE @t DATETIME = GETDATE();\nSELECT o_orderkey FROM dbo.Orders WHERE o_orderdate < @t",
        "SCRIPT-VARIABLE",
        "2:55",
        "GETDATE()",
    ),
    (
        "tsql",
        "DECLARE @m INT;\nSELECT @m = o_custkey FROM dbo.Orders;\nSELECT @m AS m",
        "SCRIPT-VARIABLE",
        "3:8",
        "last row",
    ),
    (
        "tsql",
        "DECLARE @m INT;\nSELECT @m = MAX(o_custkey) FROM dbo.Orders GROUP BY o_orderdate;\n"
        "SELECT @m AS m",
        "SCRIPT-VARIABLE",
        "3:8",
        "GROUP BY",
    ),
    (
        "tsql",
        "SELECT o_orderkey FROM dbo.Orders WHERE o_custkey = @cust",
        "SCRIPT-PARAMETER",
        "1:53",
        "@cust is not declared",
    ),
    (
        "tsql",
        "DECLARE @s VARCHAR(3);\nSET @s = CONCAT('ab', 'cd');\nSELECT @s AS s",
        "SCRIPT-VARIABLE",
        "3:8",
        "cuts longer text",
    ),
    (
        "tsql",
        "DECLARE @n INT = dbo.answer();\nSELECT @n AS n",
        "SCRIPT-VARIABLE",
        "2:8",
        "answer",
    ),
    (
        "tsql",
        "DECLARE @m INT;\nSET @m = (SELECT MAX(k) FROM #t);\n"
        "SELECT o_orderkey AS k INTO #t FROM dbo.Orders;\nSELECT @m AS m",
        "SCRIPT-VARIABLE",
        "4:8",
        "writes after",
    ),
    ("tsql", "SELECT @@ROWCOUNT AS r", "SCRIPT-VARIABLE", "1:8", "server's state"),
    (
        "bigquery",
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date",
        "SCRIPT-PARAMETER",
        "1:57",
        "@submission_date",
    ),
    (
        "bigquery",
        "DECLARE o_custkey INT64 DEFAULT 1;\nSELECT o_orderkey FROM sales.orders WHERE o_custkey = 10",
        "SCRIPT-VARIABLE",
        "2:43",
        "column of raw.orders",
    ),
    (
        "bigquery",
        "DECLARE n INT64 DEFAULT 1;\nSELECT o_custkey AS n FROM sales.orders ORDER BY n",
        "SCRIPT-VARIABLE",
        "2:50",
        "a name this query defines",
    ),
    (
        "bigquery",
        "DECLARE d DATE DEFAULT CURRENT_DATE();\nSELECT d AS today",
        "SCRIPT-VARIABLE",
        "2:8",
        "CURRENT_DATE",
    ),
    (
        "bigquery",
        "DECLARE n INT64 DEFAULT 1;\nIF n > 0 THEN\n  SET n = 2;\nEND IF;\nSELECT n AS m",
        "SCRIPT-VARIABLE",
        "5:8",
        "control flow",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION f(x STRING) RETURNS STRING LANGUAGE js AS r'''return x;''';\n"
        "SELECT f(o_comment) AS c FROM sales.orders",
        "SCRIPT-UDF",
        "2:8",
        "function f is not translated: it is written in js",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION twice(x ANY TYPE) AS (x + x);\nSELECT twice(RAND()) AS r",
        "SCRIPT-UDF",
        "2:8",
        "RAND()",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION f(x INT64) AS (g(x));\nCREATE TEMP FUNCTION g(x INT64) AS (x + 1);\n"
        "SELECT f(o_orderkey) AS v FROM sales.orders",
        "SCRIPT-UDF",
        "3:8",
        "defines after it",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION f(x INT64) AS (f(x));\nSELECT f(1) AS v",
        "SCRIPT-UDF",
        "2:8",
        "calls itself",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);\nSELECT f(1, 2) AS v",
        "SCRIPT-UDF",
        "2:8",
        "takes 1 arguments",
    ),
    # The body's subquery has a range variable v: a parameter read next to it, or an
    # argument column that v could capture, has no certain meaning.
    (
        "bigquery",
        "CREATE TEMP FUNCTION above(xs ANY TYPE, m INT64) AS (\n"
        "  EXISTS(SELECT 1 FROM UNNEST(xs) AS v WHERE v > m));\nSELECT above([1, 2], 1) AS a",
        "SCRIPT-UDF",
        "3:8",
        "range variable",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION wrap(p ANY TYPE) AS ((SELECT p AS o_custkey));\n"
        "SELECT wrap(o_custkey) AS w FROM sales.orders",
        "SCRIPT-UDF",
        "2:8",
        "a name the body also defines",
    ),
    (
        "bigquery",
        "CREATE TEMP FUNCTION f(x ANY TYPE) AS (x + y);\nSELECT f(1) AS v",
        "SCRIPT-UDF",
        "2:8",
        "not one of its parameters",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nINSERT INTO #t SELECT o_orderkey FROM dbo.Orders;\n"
        "SELECT COUNT(*) AS n FROM #t",
        "TEMP-TABLE",
        "2:1",
        "column types, which the script does not declare",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nUPDATE #t SET o_orderkey = 1;\n"
        "SELECT COUNT(*) AS n FROM #t",
        "TEMP-TABLE",
        "2:1",
        "UPDATE of temporary table",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nTRUNCATE TABLE #t;\nSELECT COUNT(*) AS n FROM #t",
        "TEMP-TABLE",
        "2:1",
        "TRUNCATE of temporary table",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nCREATE UNIQUE INDEX ix ON #t (o_orderkey);\n"
        "SELECT COUNT(*) AS n FROM #t",
        "TEMP-TABLE",
        "2:1",
        "UNIQUE index",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nDROP TABLE #t;\nSELECT COUNT(*) AS n FROM #t",
        "TEMP-TABLE",
        "3:28",
        "after the script dropped it",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO ##t FROM dbo.Orders;\nSELECT COUNT(*) AS n FROM ##t",
        "TEMP-TABLE",
        "1:1",
        "global temporary table",
    ),
    # Not the permanent dbo.Orders: another session's #orders.
    ("tsql", "SELECT COUNT(*) AS n FROM #orders", "TEMP-TABLE", "1:28", "does not create"),
    # (T-SQL guards the length: TSQL-INSERT-LENGTH, tests/sql/test_script_tables.py)
    (
        "snowflake",
        "CREATE TEMPORARY TABLE t (s VARCHAR(10));\n"
        "INSERT INTO t SELECT o_comment FROM SALES.ORDERS;\nSELECT s FROM t",
        "TEMP-TABLE",
        "1:1",
        "VARCHAR(10)",
    ),
    (
        "tsql",
        "CREATE TABLE #t (k INT NOT NULL);\nINSERT INTO #t SELECT o_orderkey FROM dbo.Orders;\n"
        "SELECT k FROM #t",
        "TEMP-TABLE",
        "2:1",
        "column k is NOT NULL",
    ),
    (
        "tsql",
        "CREATE TABLE #t (k INT);\nSELECT k FROM #t",
        "TEMP-TABLE",
        "2:16",
        "before any INSERT",
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE big AS (SELECT o_custkey FROM SALES_DB.ORDERS) WITH NO DATA "
        "ON COMMIT PRESERVE ROWS;\nSELECT COUNT(*) AS n FROM big",
        "PROC-STATEMENT",
        "1:1",
        "WITH NO DATA",
    ),
]


@pytest.mark.parametrize(("dialect", "script", "rule", "where", "words"), REFUSED)
def test_script_constructs_without_exact_form_are_refused_where_used(
    dialect, script, rule, where, words
):
    with pytest.raises(TranslationError) as raised:
        translate_script(script, dialect, file="s.sql")
    found = [(d.rule, f"{d.line}:{d.col}", d.message) for d in raised.value.diagnostics]
    assert any(r == rule and w == where and words in m for r, w, m in found), found


def test_an_unused_declaration_changes_nothing():
    script = "DECLARE @unused DATETIME = GETDATE();\nSELECT o_orderkey FROM dbo.Orders"
    [table] = translate_script(script, "tsql").tables
    assert "GETDATE" not in table.ansi_sql.upper() and "CURRENT" not in table.ansi_sql.upper()


def test_a_comment_after_the_last_semicolon_is_no_statement():
    script = "SELECT o_orderkey FROM sales.orders;\n-- the end"
    [table] = translate_script(script, "bigquery").tables
    assert table.columns == ("o_orderkey",)
