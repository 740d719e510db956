"""Permanent tables a script declares with typed columns and fills with INSERTs.

`DROP TABLE IF EXISTS t; CREATE TABLE t (a INT, ...); INSERT INTO t ...; SELECT ... FROM t`
defines t as the rows its INSERTs put in (none without any), each value CAST to its column's
type: t is an output of the script, and later statements read those rows, not a lake table of
the same name. Each translation runs on DuckDB and Spark against rows computed by hand; each
construct without an exact form is refused at the statement that needs it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate_script


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    yield con, spark_engine.session().newSession()
    con.close()


def _rows(engines, ansi_sql: str) -> tuple[list[tuple], list[tuple]]:
    con, spark = engines
    on_duckdb = [tuple(r) for r in con.sql(render(ansi_sql, "duckdb")).fetchall()]
    on_spark = [tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()]
    return sorted(on_duckdb, key=repr), sorted(on_spark, key=repr)


SCRIPTS = [
    # (dialect, script, {table: (columns, rows)}): every table the script defines.
    # A table nothing fills has no rows, with its declared columns.
    (
        "teradata",
        "DROP TABLE IF EXISTS demo;\nCREATE TABLE demo (a_integer int, a_date date);\n"
        "SELECT a_date, RANK() OVER (ORDER BY a_integer) AS q FROM demo QUALIFY q > 1;",
        {"s": (("a_date", "q"), []), "demo": (("a_integer", "a_date"), [])},
    ),
    # The script's table, not the lake's table of the same name.
    (
        "tsql",
        "CREATE TABLE dbo.Orders (o_orderkey INT);\nSELECT COUNT(*) AS n FROM dbo.Orders;",
        {"s": (("n",), [(0,)]), "orders": (("o_orderkey",), [])},
    ),
    # MULTISET keeps duplicate rows; VALUES are CAST to the column types; a column the INSERT
    # does not name is NULL.
    (
        "teradata",
        "CREATE MULTISET TABLE foo.dup (r0 INT, r1 DECIMAL(5,1), d DATE);\n"
        "INSERT INTO foo.dup VALUES (41, 102, DATE '2020-01-02');\n"
        "INSERT INTO foo.dup VALUES (41, 102, NULL);\n"
        "INSERT INTO foo.dup (r0) VALUES ('7');\n"
        "SELECT r0, SUM(r1) AS s, COUNT(*) AS n FROM foo.dup GROUP BY r0;",
        {
            "s": (("r0", "s", "n"), [(7, None, 1), (41, Decimal("204.0"), 2)]),
            "dup": (
                ("r0", "r1", "d"),
                [
                    (7, None, None),
                    (41, Decimal("102.0"), None),
                    (41, Decimal("102.0"), date(2020, 1, 2)),
                ],
            ),
        },
    ),
    # A recursive WITH stays recursive with the declared table's rows before it.
    (
        "teradata",
        "CREATE MULTISET TABLE a (a0 INT);\nINSERT INTO a VALUES (1);\n"
        "WITH RECURSIVE v (x) AS (SELECT a0 FROM a UNION ALL SELECT x * x + 1 FROM v "
        "WHERE x < 100)\nSELECT x FROM v;",
        {"s": (("x",), [(1,), (2,), (5,), (26,), (677,)]), "a": (("a0",), [(1,)])},
    ),
    # T-SQL: INSERT ... SELECT from another declared table, several VALUES rows at once.
    (
        "tsql",
        "CREATE TABLE src (k INT, v FLOAT);\nINSERT INTO src VALUES (1, 2.5), (2, NULL);\n"
        "CREATE TABLE dst (k BIGINT, v FLOAT);\nINSERT INTO dst SELECT k * 10, v FROM src;\n"
        "SELECT SUM(k) AS total FROM dst;",
        {
            "s": (("total",), [(30,)]),
            "src": (("k", "v"), [(1, 2.5), (2, None)]),
            "dst": (("k", "v"), [(10, 2.5), (20, None)]),
        },
    ),
    # Teradata: a table declared neither SET nor MULTISET is SET in TERA session mode (the
    # assumption), and INSERT ... SELECT into a SET table drops each row already there or
    # given twice; NULLs are equal in that check.
    (
        "teradata",
        "CREATE TABLE t (a INTEGER, d DATE);\n"
        "INSERT INTO t SELECT x, y FROM (SELECT 1 AS x, DATE '2020-01-01' AS y UNION ALL "
        "SELECT 1, DATE '2020-01-01' UNION ALL SELECT NULL, NULL UNION ALL "
        "SELECT NULL, NULL UNION ALL SELECT 2, NULL) AS s;\n"
        "INSERT INTO t SELECT 2, NULL;\nINSERT INTO t SELECT 0, DATE '2020-01-01';",
        {
            "t": (
                ("a", "d"),
                [(1, date(2020, 1, 1)), (None, None), (2, None), (0, date(2020, 1, 1))],
            )
        },
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE v (a DECIMAL(5, 1)) ON COMMIT PRESERVE ROWS;\n"
        "INSERT INTO v VALUES (-1.5);\nINSERT INTO v SELECT -1.50;\nINSERT INTO v SELECT 0;\n"
        "SELECT COUNT(*) AS n FROM v;",
        {"s": (("n",), [(2,)])},
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (a INTEGER);\nINSERT INTO t SELECT 1;\nINSERT INTO t SELECT 1;",
        {"t": (("a",), [(1,), (1,)])},
    ),
    # A column the INSERT leaves out takes its DEFAULT; NOT NULL holds for literal values.
    (
        "teradata",
        "CREATE MULTISET TABLE t (x INTEGER NOT NULL, y INTEGER DEFAULT -1, "
        "z DATE DEFAULT DATE '2020-01-02');\nINSERT INTO t (x) VALUES (17);\n"
        "INSERT INTO t (x, y) SELECT 18, NULL;\nINSERT INTO t SELECT 0, 1, NULL;",
        {
            "t": (
                ("x", "y", "z"),
                [(17, -1, date(2020, 1, 2)), (18, None, date(2020, 1, 2)), (0, 1, None)],
            )
        },
    ),
    # DEFAULT in a row of VALUES: the column's default, NULL without one.
    (
        "teradata",
        "CREATE MULTISET TABLE t (a INTEGER DEFAULT 5, b INTEGER);\n"
        "INSERT INTO t VALUES (DEFAULT, 1);\nINSERT INTO t VALUES (2, DEFAULT);",
        {"t": (("a", "b"), [(5, 1), (2, None)])},
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE v (x INTEGER, y TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP) "
        "ON COMMIT PRESERVE ROWS;\nINSERT INTO v (x) VALUES (17);\n"
        "SELECT x, CASE WHEN y IS NULL THEN 0 ELSE 1 END AS stamped FROM v;",
        {"s": (("x", "stamped"), [(17, 1)])},
    ),
    (
        "tsql",
        "CREATE TABLE #t (a INT NOT NULL DEFAULT 0, b INT);\nINSERT INTO #t (b) VALUES (5);\n"
        "INSERT INTO #t (a, b) VALUES (1, NULL);\nSELECT a, b FROM #t;",
        {"s": (("a", "b"), [(0, 5), (1, None)])},
    ),
]


@pytest.mark.parametrize(("dialect", "script", "expected"), SCRIPTS)
def test_declared_tables_are_outputs_with_the_rows_their_inserts_put_in(
    engines, dialect, script, expected
):
    tables = {t.name: t for t in translate_script(script, dialect, file="s.sql").tables}
    assert set(tables) == set(expected)
    for name, (columns, rows) in expected.items():
        assert tables[name].columns == columns
        for found in _rows(engines, tables[name].ansi_sql):
            assert found == sorted(rows, key=repr), (name, tables[name].ansi_sql)


REFUSED = [
    # (dialect, script, rule, line:col, words in the message)
    # Teradata SET tables: INSERT ... VALUES of a row already there fails (error 2802), and
    # the duplicate row check compares text and floats by rules DISTINCT does not share.
    (
        "teradata",
        "CREATE SET TABLE t (x INT);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);\n"
        "SELECT x FROM t;",
        "TD-SET-TABLE",
        "3:1",
        "error 2802",
    ),
    (
        "teradata",
        "CREATE TABLE t (x INT);\nINSERT INTO t SELECT 1;\nINSERT INTO t VALUES (2);\n"
        "SELECT x FROM t;",
        "TD-SET-TABLE",
        "3:1",
        "fails (error 2802)",
    ),
    (
        "teradata",
        "CREATE SET TABLE t (x INT, f FLOAT);\nINSERT INTO t SELECT 1, 0.5;\nSELECT x FROM t;",
        "TD-SET-TABLE",
        "2:1",
        "column f",
    ),
    # INSERT enforces constraints, fails or cuts long text, rejects duplicate keys.
    (
        "tsql",
        "CREATE TABLE t (x INT NOT NULL);\nINSERT INTO t VALUES (NULL);\nSELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "NULL into NOT NULL column x",
    ),
    (
        "tsql",
        "CREATE TABLE t (x INT NOT NULL, y INT);\nINSERT INTO t (y) VALUES (1);\nSELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "leaves out NOT NULL column x",
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (x INT NOT NULL);\n"
        "INSERT INTO t SELECT o_orderkey FROM SALES_DB.ORDERS;\nSELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "column x is NOT NULL",
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (x INT NOT NULL, y INT);\nINSERT INTO t VALUES (DEFAULT, 1);\n"
        "SELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "NULL into NOT NULL column x",
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (x INT CHECK (x > 0));\nINSERT INTO t VALUES (1);\n"
        "SELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "CHECK (x > 0)",
    ),
    # T-SQL's INSERT of text longer than VARCHAR(n) fails: a literal at translation (other
    # values: test_tsql_insert_of_longer_text_stops_the_query); other dialects refuse the length
    (
        "tsql",
        "CREATE TABLE t (x VARCHAR(3));\nINSERT INTO t VALUES ('abcd');\nSELECT x FROM t;",
        "TSQL-INSERT-LENGTH",
        "2:23",
        "4 characters into a VARCHAR(3)",
    ),
    (
        "tsql",
        "CREATE TABLE t (x VARCHAR(3));\nINSERT INTO t VALUES (1234);\nSELECT x FROM t;",
        "TSQL-INSERT-LENGTH",
        "2:23",
        "not text",
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (x VARCHAR(3));\nINSERT INTO t VALUES ('abcd');\nSELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "VARCHAR(3)",
    ),
    (
        "tsql",
        "CREATE TABLE t (x INT, PRIMARY KEY (x));\nINSERT INTO t VALUES (1);\nSELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "table constraint",
    ),
    (
        "teradata",
        "CREATE MULTISET TABLE t (x INT) UNIQUE PRIMARY INDEX (x);\nINSERT INTO t VALUES (1);\n"
        "SELECT x FROM t;",
        "TEMP-TABLE",
        "2:1",
        "UNIQUE",
    ),
    # Rows changed in place.
    (
        "tsql",
        "CREATE TABLE t (x INT);\nINSERT INTO t VALUES (1);\nUPDATE t SET x = 2;\nSELECT x FROM t;",
        "TEMP-TABLE",
        "3:1",
        "UPDATE of table t",
    ),
    (
        "tsql",
        "CREATE TABLE t (x INT);\nINSERT INTO t VALUES (1, 2);\nSELECT x FROM t;",
        "PROC-STATEMENT",
        "2:1",
        "INSERT without a SELECT",
    ),
    ("tsql", "CREATE TABLE t (x);\nSELECT 1 AS one;", "TEMP-TABLE", "1:1", "need types"),
]


@pytest.mark.parametrize(("dialect", "script", "rule", "where", "words"), REFUSED)
def test_declared_tables_without_exact_form_are_refused_where_written(
    dialect, script, rule, where, words
):
    with pytest.raises(TranslationError) as raised:
        translate_script(script, dialect, file="s.sql")
    found = [(d.rule, f"{d.line}:{d.col}", d.message) for d in raised.value.diagnostics]
    assert any(r == rule and w == where and words in m for r, w, m in found), found


def test_tsql_insert_of_longer_text_stops_the_query(engines):
    """T-SQL fails an INSERT of text longer than its VARCHAR(n) column (ANSI_WARNINGS ON),
    where a CAST would cut it: rows that fit are inserted as they are, a longer one stops
    the query, naming the rule, on both engines."""
    script = (
        "CREATE TABLE #t (x VARCHAR(3));\nINSERT INTO #t VALUES ('ab');\n"
        "INSERT INTO #t SELECT x + '{tail}' FROM #t;\nSELECT x FROM #t;"
    )
    [table] = translate_script(script.format(tail="c"), "tsql", file="s.sql").tables
    assert table.guards == ("TSQL-INSERT-LENGTH",)
    assert _rows(engines, table.ansi_sql) == ([("ab",), ("abc",)], [("ab",), ("abc",)])
    [longer] = translate_script(script.format(tail="cd"), "tsql", file="s.sql").tables
    con, spark = engines
    with pytest.raises(Exception, match="TSQL-INSERT-LENGTH"):
        con.sql(render(longer.ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="TSQL-INSERT-LENGTH"):
        spark.sql(render(longer.ansi_sql, "spark")).collect()


def test_a_table_created_empty_is_an_empty_table_of_its_declared_types():
    [table] = translate_script(
        "CREATE MULTISET TABLE t (a INTEGER, b DATE);", "teradata", file="s.sql"
    ).tables
    assert 'CAST(NULL AS INTEGER) AS "a"' in table.ansi_sql
    assert 'CAST(NULL AS DATE) AS "b"' in table.ansi_sql
    assert "1 = 0" in table.ansi_sql


@pytest.mark.parametrize(
    ("keyword", "rows"),
    [
        ("", [(1,), (1,)]),  # MULTISET by default in ANSI session mode
        ("MULTISET", [(1,), (1,)]),
        ("SET", None),  # fails on the duplicate in ANSI mode: refused
    ],
)
def test_teradata_tables_in_ansi_session_mode(engines, keyword, rows):
    script = (
        f"CREATE {keyword} TABLE t (a INTEGER);\nINSERT INTO t SELECT 1;\nINSERT INTO t SELECT 1;"
    )
    assumptions = Assumptions(teradata_session_mode="ANSI")
    if rows is None:
        with pytest.raises(TranslationError) as raised:
            translate_script(script, "teradata", file="s.sql", assumptions=assumptions)
        found = [(d.rule, d.line, d.message) for d in raised.value.diagnostics]
        assert any(r == "TD-SET-TABLE" and line == 2 and "ANSI" in m for r, line, m in found)
        return
    [table] = translate_script(script, "teradata", file="s.sql", assumptions=assumptions).tables
    for found in _rows(engines, table.ansi_sql):
        assert found == rows
    assert dict(table.assumed).get("teradata_session_mode") == ("ANSI" if not keyword else None)
