"""BigQuery named query parameters (``@submission_date``) given typed values, as ``bq query
--parameter=NAME:TYPE:VALUE`` gives them: each use becomes ``CAST(<literal> AS <type>)``,
translated by the rules like any CAST; a bad value is an error naming the parameter; one not
given stays refused at each use.

Translations run on DuckDB and Spark over a few hand-written orders, against rows computed by
hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import pytest
import sqlglot

from sql import ansi
from sql.diagnostics import TranslationError
from sql.parameters import ParameterError, QueryParameter, parse_parameter
from sql.render import render
from sql.translate import translate, translate_script

P = QueryParameter

# o_orderkey, o_custkey, o_totalprice, o_orderdate
ORDERS_SQL = (
    "SELECT CAST(k AS BIGINT) AS o_orderkey, CAST(c AS BIGINT) AS o_custkey, "
    "CAST(p AS DECIMAL(15,2)) AS o_totalprice, CAST(d AS DATE) AS o_orderdate FROM (VALUES "
    "(1, 10, '100.50', '1998-07-01'), (2, 10, '250.00', '1998-08-15'), "
    "(3, 20, NULL, '1998-09-01'), (4, 30, '75.25', NULL)) AS t(k, c, p, d)"
)


def _one_line(ansi_sql: str) -> str:
    return ansi.generate(sqlglot.parse_one(ansi_sql, read=ansi.Ansi), pretty=False)


SUBSTITUTIONS = [
    # (script, parameters, expected ANSI on one line)
    (
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date",
        {"submission_date": P("DATE", "1998-08-15")},
        'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
        'WHERE "orders"."o_orderdate" = CAST(\'1998-08-15\' AS DATE)',
    ),
    (  # names compare without case; each use gets the value
        "SELECT @N AS a, @n + 1 AS b",
        {"n": P("INT64", "-5")},
        'SELECT CAST(-5 AS BIGINT) AS "a", CAST(-5 AS BIGINT) + 1 AS "b"',
    ),
    ("SELECT @s AS s", {"s": P("STRING", "it's")}, "SELECT CAST('it''s' AS VARCHAR) AS \"s\""),
    ("SELECT @s AS s", {"s": P("STRING", "")}, "SELECT CAST('' AS VARCHAR) AS \"s\""),
    ("SELECT @b AS b", {"b": P("BOOL", "FALSE")}, 'SELECT CAST(FALSE AS BOOLEAN) AS "b"'),
    ("SELECT @f AS f", {"f": P("FLOAT64", "0.5")}, 'SELECT CAST(0.5 AS DOUBLE PRECISION) AS "f"'),
    (
        "SELECT @x AS x",
        {"x": P("NUMERIC", "-12.5")},
        "SELECT CAST('-12.5' AS DECIMAL(38, 9)) AS \"x\"",
    ),
    (
        "SELECT @t AS t",
        {"t": P("DATETIME", "2024-01-01T10:00:00")},
        "SELECT CAST('2024-01-01 10:00:00' AS TIMESTAMP) AS \"t\"",
    ),
    (  # a parameter inside a variable's value
        "DECLARE d DATE DEFAULT DATE_SUB(@submission_date, INTERVAL 1 DAY);\nSELECT d AS d",
        {"submission_date": P("DATE", "2024-03-01")},
        "SELECT CAST(CAST(CAST('2024-03-01' AS DATE) + (-1) * INTERVAL '1' DAY AS DATE) AS DATE) "
        'AS "d"',
    ),
    (  # a parameter given but not used changes nothing
        "SELECT 1 AS one",
        {"unused": P("DATE", "2024-01-01")},
        'SELECT 1 AS "one"',
    ),
]


@pytest.mark.parametrize(("script", "parameters", "expected"), SUBSTITUTIONS)
def test_each_use_becomes_the_value_cast_to_its_type(script, parameters, expected):
    [table] = translate_script(script, "bigquery", parameters=parameters).tables
    assert _one_line(table.ansi_sql) == expected
    if "@" in script:
        assert "SCRIPT-VARIABLE" in table.rules_applied


SEMANTICS = [
    # (script, parameters, rows by hand)
    (
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate >= @submission_date "
        "ORDER BY o_orderkey",
        {"submission_date": P("DATE", "1998-08-15")},
        [(2,), (3,)],
    ),
    (
        "SELECT o_orderkey, @d AS d FROM sales.orders WHERE o_orderdate = DATE_SUB(@d, "
        "INTERVAL 1 DAY)",
        {"d": P("DATE", "1998-07-02")},
        [(1, date(1998, 7, 2))],
    ),
    (
        "SELECT COUNT(*) AS n FROM sales.orders WHERE o_custkey = @cust AND @flag",
        {"cust": P("INT64", "10"), "flag": P("BOOL", "true")},
        [(2,)],
    ),
    (
        "SELECT COUNT(*) AS n FROM sales.orders WHERE o_custkey = @cust AND @flag",
        {"cust": P("INT64", "10"), "flag": P("BOOL", "false")},
        [(0,)],
    ),
    (
        "SELECT o_orderkey FROM sales.orders WHERE o_totalprice > @p ORDER BY o_orderkey",
        {"p": P("NUMERIC", "100.5")},
        [(2,)],
    ),
    (
        "SELECT CONCAT(@s, '!') AS s, @x * 2 AS x",
        {"s": P("STRING", "a'b"), "x": P("FLOAT64", "-0.25")},
        [("a'b!", -0.5)],
    ),
]


@pytest.fixture(scope="module")
def engines(spark_engine):
    spark = spark_engine.session().newSession()
    spark.sql(ORDERS_SQL).createOrReplaceTempView("param_orders")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE param_orders AS {ORDERS_SQL}")
    yield con, spark
    con.close()


def _plain(value):
    return float(value) if isinstance(value, Decimal | float) else value


@pytest.mark.parametrize(("script", "parameters", "expected"), SEMANTICS)
def test_typed_values_give_the_rows_by_hand_on_both_engines(engines, script, parameters, expected):
    con, spark = engines
    [table] = translate_script(script, "bigquery", parameters=parameters).tables
    local = table.ansi_sql.replace('"raw"."orders"', '"param_orders"')
    on_duckdb = [tuple(r) for r in con.sql(render(local, "duckdb")).fetchall()]
    on_spark = [tuple(r) for r in spark.sql(render(local, "spark")).collect()]
    for rows in (on_duckdb, on_spark):
        assert [tuple(_plain(v) for v in r) for r in rows] == expected, table.ansi_sql


BAD_VALUES = [
    ("DATE", "2024-13-01", "not a date"),
    ("DATE", "2024-02-30", "not a date"),
    ("DATE", "20240101", "not a date"),
    ("DATE", "", "not a date"),
    ("INT64", "1.5", "decimal integer"),
    ("INT64", "9223372036854775808", "INT64's range"),
    ("INT64", "0x10", "decimal integer"),
    ("FLOAT64", "1e999", "finite"),
    ("FLOAT64", "NaN", "finite"),
    ("BOOL", "yes", "true or false"),
    ("NUMERIC", "1.0000000001", "9 digits after"),
    ("NUMERIC", "1" * 30, "29 digits"),
    ("NUMERIC", ".", "29 digits"),
    ("DATETIME", "2024-01-01 25:00:00", "datetime"),
    ("TIME", "10:61:00", "time"),
    ("GEOGRAPHY", "POINT(1 1)", "type GEOGRAPHY is not one"),
]


@pytest.mark.parametrize(("kind", "value", "message"), BAD_VALUES)
def test_a_bad_value_is_an_error_naming_the_parameter(kind, value, message):
    with pytest.raises(TranslationError) as raised:
        translate("SELECT @day AS d", "bigquery", parameters={"day": P(kind, value)})
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == "SCRIPT-PARAMETER"
    assert "@day" in diagnostic.message and message in diagnostic.message


def test_a_parameter_not_given_is_refused_at_each_use_naming_the_flag():
    with pytest.raises(TranslationError) as raised:
        translate(
            "SELECT @a AS a, @b AS b", "bigquery", file="q.sql", parameters={"a": P("INT64", "1")}
        )
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == ("SCRIPT-PARAMETER", 1, 17)
    assert "--param b:TYPE:VALUE" in diagnostic.message


def test_parameters_are_bigquerys_only():
    with pytest.raises(TranslationError, match="BigQuery's"):
        translate("SELECT @a AS a", "tsql", parameters={"a": P("INT64", "1")})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("submission_date:DATE:2024-01-01", ("submission_date", P("DATE", "2024-01-01"))),
        ("s::a:b", ("s", P("STRING", "a:b"))),  # NAME::VALUE is a STRING, as in bq
        ("n:int64:7", ("n", P("INT64", "7"))),
    ],
)
def test_parse_parameter_reads_bqs_syntax(text, expected):
    assert parse_parameter(text) == expected


@pytest.mark.parametrize("text", ["day", "day:DATE", "1day:DATE:2024-01-01", "d:DATE:2024-1-1"])
def test_parse_parameter_refuses_what_bq_would(text):
    with pytest.raises(ParameterError):
        parse_parameter(text)
