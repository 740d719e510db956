"""Whole scripts: every table a file defines, helpers folded into CTEs, every refusal listed,
and every diagnostic one line at the offending token."""

from __future__ import annotations

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate, translate_script

SCRIPTS = [
    # (dialect, script, [(table, reads)])
    (
        "snowflake",
        "CREATE OR REPLACE VIEW MART.BIG AS SELECT O_CUSTKEY, O_TOTALPRICE FROM SALES.ORDERS "
        "WHERE O_TOTALPRICE > 1000;\n"
        "SELECT O_CUSTKEY, COUNT(*) AS N FROM MART.BIG GROUP BY O_CUSTKEY;\n"
        "DROP VIEW MART.BIG;",
        [("big_buyers", ("raw.orders",))],
    ),
    (
        "tsql",
        "DROP TABLE IF EXISTS mart.totals;\n"
        "CREATE TABLE mart.totals AS SELECT o_custkey, SUM(o_totalprice) AS total "
        "FROM dbo.Orders GROUP BY o_custkey;\n"
        "CREATE TABLE mart.named AS SELECT c_name, t.total FROM dbo.Customer "
        "JOIN mart.totals t ON t.o_custkey = c_custkey;",
        [("totals", ("raw.orders",)), ("named", ("raw.customer", "warehouse.totals"))],
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE big AS (SELECT o_custkey FROM SALES_DB.ORDERS "
        "WHERE o_totalprice > 1000) WITH DATA ON COMMIT PRESERVE ROWS;\n"
        "CREATE TABLE mart.a AS (SELECT o_custkey, COUNT(*) AS n FROM big GROUP BY o_custkey) "
        "WITH DATA;\n"
        "CREATE TABLE mart.b AS (SELECT COUNT(*) AS buyers FROM big) WITH DATA;",
        [("a", ("raw.orders",)), ("b", ("raw.orders",))],
    ),
    (
        "redshift",
        "create table stage.recent as select o_orderkey, o_custkey from sales.orders "
        "where o_orderdate >= '1998-01-01';\n"
        "insert into mart.recent_lines select l_orderkey, l_quantity from sales.lineitem "
        "join stage.recent on l_orderkey = o_orderkey;\n"
        "drop table stage.recent;",
        [("recent_lines", ("raw.lineitem", "raw.orders"))],
    ),
]


@pytest.mark.parametrize(("dialect", "script", "expected"), SCRIPTS)
def test_a_script_becomes_the_tables_it_defines(dialect, script, expected):
    result = translate_script(script, dialect, file="big_buyers.sql")
    assert [(t.name, t.source_tables) for t in result.tables] == expected


def test_later_tables_read_earlier_ones_with_the_same_rows(raw_lake_root):
    """The two-table script's second table, built over the first, gives the rows of the
    same question asked in one query."""
    [_, script, _] = SCRIPTS[1]
    totals, named = translate_script(script, "tsql").tables
    assert "-- warehouse.totals" in translate_script(script, "tsql").script_sql()
    with duckdb.connect() as con:
        for table in ("orders", "customer"):
            con.execute("CREATE SCHEMA IF NOT EXISTS raw")
            con.execute(
                f"CREATE VIEW raw.{table} AS SELECT * FROM "
                f"read_parquet('{raw_lake_root / 'raw' / table}/**/*.parquet')"
            )
        con.execute("CREATE SCHEMA warehouse")
        con.execute(f"CREATE TABLE warehouse.totals AS {render(totals.ansi_sql, 'duckdb')}")
        built = con.sql(render(named.ansi_sql, "duckdb"))
        assert built.columns == ["c_name", "total"]
        expected = con.sql(
            "SELECT c_name, SUM(o_totalprice) FROM raw.customer JOIN raw.orders "
            "ON o_custkey = c_custkey GROUP BY c_custkey, c_name"
        ).fetchall()
        assert sorted(built.fetchall()) == sorted(expected)
        assert len(expected) > 100


def test_every_refusal_in_a_script_is_listed():
    script = (
        "UPDATE dbo.Orders SET o_comment = '';\n"
        "SELECT APPROX_COUNT_DISTINCT(o_custkey) AS x FROM dbo.Orders;\n"
        "SELECT o_nothing FROM dbo.Orders;\n"
        "DECLARE @x TABLE (a INT);\n"
        "DROP TABLE dbo.Customer;"
    )
    with pytest.raises(TranslationError) as raised:
        translate_script(script, "tsql", file="s.sql")
    found = [(d.rule, d.line, d.col) for d in raised.value.diagnostics]
    assert found == [
        ("PROC-STATEMENT", 1, 1),
        ("APPROX-AGG", 2, 8),
        ("COLUMN-UNKNOWN", 3, 8),
        ("PROC-STATEMENT", 4, 1),
        ("PROC-STATEMENT", 5, 1),
    ]


def test_translate_refuses_a_script_of_several_tables_at_the_second():
    with pytest.raises(TranslationError) as raised:
        translate("SELECT o_orderkey FROM dbo.Orders;\nSELECT c_custkey FROM dbo.Customer", "tsql")
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == ("SCRIPT-SHAPE", 2, 1)


def test_two_statements_writing_one_table_are_refused():
    script = (
        "CREATE TABLE mart.t AS SELECT o_orderkey FROM dbo.Orders;\n"
        "INSERT INTO mart.t SELECT o_orderkey FROM dbo.Orders;"
    )
    with pytest.raises(TranslationError, match=r"2:1: error\[SCRIPT-SHAPE\]: table t is written"):
        translate_script(script, "tsql")


TOKEN_ERRORS = [
    # (dialect, text, line:col of the token the tokenizer could not finish, message)
    ("tsql", "SELECT 1 AS a,\n  'abc AS b FROM dbo.Orders", "2:3", "string literal: no closing '"),
    ("snowflake", "SELECT 1 AS a /* note", "1:15", "comment: no closing */"),
    ("tsql", "SELECT a\nFROM t\nWHERE [col = 1", "3:7", "quoted name: no closing ]"),
    ("bigquery", "SELECT `x FROM t", "1:8", "quoted name: no closing `"),
]


@pytest.mark.parametrize(("dialect", "text", "where", "message"), TOKEN_ERRORS)
def test_a_tokenizer_error_is_one_line_at_the_token(dialect, text, where, message):
    with pytest.raises(TranslationError) as raised:
        translate(text, dialect, file="bad.sql")
    [diagnostic] = raised.value.diagnostics
    assert f"{diagnostic.line}:{diagnostic.col}" == where
    assert message in diagnostic.message
    assert "\n" not in diagnostic.format()


def test_a_parse_error_names_the_token_text_on_one_line():
    with pytest.raises(TranslationError) as raised:
        translate("SELECT FROM WHERE (", "snowflake", file="bad.sql")
    formatted = raised.value.diagnostics[0].format()
    assert formatted.startswith("bad.sql:1:") and "<Token" not in formatted
    assert "\n" not in formatted


FLOAT_TYPES = [
    # (dialect, type as written, ANSI type, or None when refused)
    ("tsql", "FLOAT", "DOUBLE PRECISION"),
    ("tsql", "FLOAT(53)", "DOUBLE PRECISION"),
    ("tsql", "FLOAT(24)", "REAL"),
    ("tsql", "REAL", "REAL"),
    ("snowflake", "REAL", "DOUBLE PRECISION"),
    ("snowflake", "FLOAT4", "DOUBLE PRECISION"),
    ("snowflake", "FLOAT", "DOUBLE PRECISION"),
    ("teradata", "REAL", "DOUBLE PRECISION"),
    ("teradata", "FLOAT", "DOUBLE PRECISION"),
    ("bigquery", "FLOAT64", "DOUBLE PRECISION"),
    ("redshift", "REAL", "REAL"),
    ("redshift", "FLOAT4", "REAL"),
    ("redshift", "FLOAT", "DOUBLE PRECISION"),
    ("oracle", "BINARY_FLOAT", "REAL"),
    ("oracle", "BINARY_DOUBLE", "DOUBLE PRECISION"),
    ("oracle", "FLOAT", None),
    ("oracle", "REAL", None),
]
TABLE_OF = {
    "tsql": "dbo.Orders",
    "snowflake": "SALES.ORDERS",
    "teradata": "SALES_DB.ORDERS",
    "bigquery": "sales.orders",
    "redshift": "sales.orders",
    "oracle": "SALES.ORDERS",
}


@pytest.mark.parametrize(("dialect", "written", "expected"), FLOAT_TYPES)
def test_floating_point_types_keep_the_width_the_dialect_gives_them(dialect, written, expected):
    sql = f"SELECT CAST(o_totalprice AS {written}) AS p FROM {TABLE_OF[dialect]}"
    if expected is None:
        with pytest.raises(TranslationError, match=r"FLOAT-WIDTH"):
            translate(sql, dialect)
        return
    assert f"AS {expected}) AS" in " ".join(translate(sql, dialect).ansi_sql.split())


SEEN_IN_THE_CORPORA = [
    # Statements that crashed the translator on public SQL: each is now a located refusal.
    (
        "oracle",
        "SELECT o_orderkey, o_custkey BULK COLLECT INTO x, y FROM SALES.ORDERS",
        "PROC-STATEMENT",
        "1:1",
    ),
    ("snowflake", "SELECT *\nFROM identifier('t') ORDER BY 1", "NAME-UNKNOWN", "2:6"),
]


@pytest.mark.parametrize(("dialect", "sql", "rule", "where"), SEEN_IN_THE_CORPORA)
def test_corpus_crashes_are_located_refusals(dialect, sql, rule, where):
    with pytest.raises(TranslationError) as raised:
        translate(sql, dialect)
    assert (rule, where) in [(d.rule, f"{d.line}:{d.col}") for d in raised.value.diagnostics]


@pytest.mark.parametrize("dialect", ["snowflake", "oracle"])
def test_a_quoted_upper_case_name_is_the_unquoted_name(dialect):
    table = "SALES.ORDERS"
    result = translate(f'SELECT "O_ORDERKEY", o_custkey AS "Mixed" FROM {table}', dialect)
    assert result.columns == ("o_orderkey", "Mixed")


def test_a_translation_error_survives_pickling():
    import pickle

    with pytest.raises(TranslationError) as raised:
        translate("SELECT nothing FROM dbo.Orders;\nSELECT x FROM dbo.Nowhere", "tsql")
    again = pickle.loads(pickle.dumps(raised.value))
    assert again.diagnostics == raised.value.diagnostics and len(again.diagnostics) == 2
