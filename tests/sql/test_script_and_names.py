"""Scripts fold into one query; legacy names resolve through the catalog the way each dialect folds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.lineage import column_lineage
from sql.translate import translate, translate_file

DEFINITIONS = [
    (
        "redshift",
        "insert into mart.pairs (nation, region) select n_name, r_name from sales.nation "
        "join sales.region on n_regionkey = r_regionkey",
        "pairs",
        ("nation", "region"),
        ("raw.nation", "raw.region"),
    ),
    (
        "snowflake",
        "CREATE TABLE MART.AMOUNTS (K, V) AS SELECT O_ORDERKEY, O_TOTALPRICE FROM SALES.ORDERS "
        "UNION ALL SELECT L_ORDERKEY, L_EXTENDEDPRICE FROM SALES.LINEITEM",
        "amounts",
        ("k", "v"),
        ("raw.lineitem", "raw.orders"),
    ),
    # (dialect, script, table name, columns, source tables)
    (
        "snowflake",
        "CREATE OR REPLACE TABLE PROD_DW.MART.ORDER_TOTALS AS SELECT O_ORDERKEY, O_TOTALPRICE FROM PROD_DW.SALES.ORDERS",
        "order_totals",
        ("o_orderkey", "o_totalprice"),
        ("raw.orders",),
    ),
    (
        "oracle",
        "CREATE VIEW mart.open_orders AS SELECT o_orderkey FROM SALES.ORDERS WHERE o_orderstatus = 'O'",
        "open_orders",
        ("o_orderkey",),
        ("raw.orders",),
    ),
    (
        "redshift",
        "insert into mart.nations select n_name, r_name from sales.nation join sales.region on n_regionkey = r_regionkey",
        "nations",
        ("n_name", "r_name"),
        ("raw.nation", "raw.region"),
    ),
    (
        "tsql",
        "SELECT [O_OrderKey] AS [Key] FROM [dbo].[Orders]",
        "from_stdin",
        ("key",),
        ("raw.orders",),
    ),
    (
        "bigquery",
        "SELECT o_orderkey FROM `acme-dw.sales.orders`",
        "from_stdin",
        ("o_orderkey",),
        ("raw.orders",),
    ),
    (
        "snowflake",
        'SELECT o_orderkey AS "MixedCase" FROM SALES.ORDERS',
        "from_stdin",
        ("MixedCase",),
        ("raw.orders",),
    ),
    (
        "teradata",
        "CREATE VOLATILE TABLE big AS (SELECT o_custkey, o_totalprice FROM SALES_DB.ORDERS WHERE o_totalprice > 1000) "
        "WITH DATA ON COMMIT PRESERVE ROWS;\nCREATE TABLE mart.big_buyers AS (SELECT o_custkey, COUNT(*) AS n FROM big GROUP BY o_custkey) WITH DATA;",
        "big_buyers",
        ("o_custkey", "n"),
        ("raw.orders",),
    ),
    (
        "tsql",
        "SELECT o_custkey INTO #big FROM dbo.Orders WHERE o_totalprice > 1000;\n"
        "SELECT c_name FROM dbo.Customer WHERE c_custkey IN (SELECT o_custkey FROM #big);\nDROP TABLE #big;",
        "from_stdin",
        ("c_name",),
        ("raw.customer", "raw.orders"),
    ),
]


@pytest.mark.parametrize(("dialect", "script", "name", "columns", "tables"), DEFINITIONS)
def test_script_defines_one_table(dialect, script, name, columns, tables):
    result = translate(script, dialect, file="from_stdin.sql")
    assert (result.name, result.columns, result.source_tables) == (name, columns, tables)


REFUSED = [
    # (dialect, script, rule, line:col)
    (
        "tsql",
        "DECLARE @t TABLE (d DATE);\nSELECT o_orderkey FROM dbo.Orders",
        "PROC-STATEMENT",
        "1:1",
    ),
    (
        "tsql",
        "UPDATE dbo.Orders SET o_comment = '';\nSELECT o_orderkey FROM dbo.Orders",
        "PROC-STATEMENT",
        "1:1",
    ),
    (
        "tsql",
        "SELECT o_orderkey INTO #t FROM dbo.Orders;\nSELECT o_orderkey INTO #t FROM dbo.Orders;\nSELECT * FROM #t",
        "TEMP-TABLE",
        "2:1",
    ),
    (
        "tsql",
        "SELECT o_orderkey FROM dbo.Orders;\nSELECT c_custkey FROM dbo.Customer",
        "SCRIPT-SHAPE",
        "2:1",
    ),
    ("snowflake", "SELECT o_orderkey FROM SALES.NOWHERE", "NAME-UNKNOWN", "1:24"),
    ("snowflake", 'SELECT o_orderkey FROM SALES."orders"', "NAME-UNKNOWN", "1:24"),
    (
        "oracle",
        "SELECT o_orderkey\nFROM SALES.ORDERS\nWHERE o_nothing = 1",
        "COLUMN-UNKNOWN",
        "3:7",
    ),
    ("tsql", "SELECT o_orderkey FROM", "PARSE", "1:19"),
    (
        "tsql",
        "INSERT INTO mart.t (a) SELECT o_orderkey, o_custkey FROM dbo.Orders",
        "SCRIPT-SHAPE",
        "1:1",
    ),
    (
        "snowflake",
        "CREATE TABLE MART.T (A INT) AS SELECT O_ORDERKEY FROM SALES.ORDERS",
        "PROC-STATEMENT",
        "1:1",
    ),
    (
        "bigquery",
        "SELECT CAST(o_orderdate AS STRING FORMAT 'YYYY') AS y FROM sales.orders",
        "ANSI-UNSUPPORTED",
        "1:13",
    ),
    (
        "oracle",
        "SELECT LISTAGG(o_clerk, ',' ON OVERFLOW TRUNCATE) WITHIN GROUP (ORDER BY o_clerk) AS c FROM SALES.ORDERS",
        "ANSI-UNSUPPORTED",
        "1:16",
    ),
    (
        "oracle",
        "SELECT CAST(o_totalprice AS NUMBER) AS p FROM SALES.ORDERS",
        "TYPE-DEFAULTS",
        "1:13",
    ),
    ("oracle", "SELECT ROUND(o_orderdate, 'MM') AS m FROM SALES.ORDERS", "FN-ROUND", "1:8"),
    ("snowflake", "SELECT SUBSTR(c_name, -3) AS tail FROM SALES.CUSTOMER", "FN-SUBSTR", "1:15"),
    (
        "tsql",
        "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate > '01/02/1995'",
        "DATE-STRING-COMPARISON",
        "1:55",
    ),
    ("snowflake", "SELECT DATEADD(hour, 1, o_orderdate) AS h FROM SALES.ORDERS", "DATE-ADD", "1:8"),
    (
        "tsql",
        "SELECT DATEPART(week, o_orderdate) AS wk, DATEPART(microsecond, o_orderdate) AS us "
        "FROM dbo.Orders",
        "DATE-PART",
        "1:65",
    ),
    ("tsql", "SELECT o_orderkey / o_comment AS x FROM dbo.Orders", "DIV-INTEGER", "1:8"),
    ("tsql", "SELECT o_comment + o_orderkey AS x FROM dbo.Orders", "TSQL-PLUS-CONCAT", "1:8"),
    ("bigquery", "SELECT o_orderkey FROM sales.orders WHERE", "PARSE", "1:37"),
]


@pytest.mark.parametrize(("dialect", "script", "rule", "where"), REFUSED)
def test_refusal_names_rule_and_location(dialect, script, rule, where):
    with pytest.raises(TranslationError) as raised:
        translate(script, dialect, file="legacy.sql")
    found = [(d.rule, f"{d.line}:{d.col}") for d in raised.value.diagnostics]
    assert (rule, where) in found, found
    assert all(d.file == "legacy.sql" and d.severity == "error" for d in raised.value.diagnostics)
    assert str(raised.value).startswith("legacy.sql:")


def test_translate_file_takes_the_dialect_from_the_folder(tmp_path):
    path = tmp_path / "oracle" / "Open_Orders.sql"
    path.parent.mkdir()
    path.write_text("SELECT o_orderkey FROM SALES.ORDERS WHERE ROWNUM <= 3")
    result = translate_file(Path(path))
    assert (result.dialect, result.name) == ("oracle", "open_orders")
    assert "FETCH FIRST 3 ROWS ONLY" in result.ansi_sql


def test_unknown_dialect_is_an_error():
    with pytest.raises(TranslationError, match=r"DIALECT"):
        translate("SELECT 1 AS x", "mysql")


@pytest.mark.parametrize(
    ("dialect", "parts"),
    [
        ("snowflake", ["prod_dw", "sales", "lineitem"]),
        ("tsql", ["SALESDW", "DBO", "LINEITEM"]),
        ("teradata", ["sales_db", "LineItem"]),
        ("bigquery", ["acme-dw", "sales", "lineitem"]),
        ("redshift", ["SALES", "LINEITEM"]),
    ],
)
def test_catalog_folds_unquoted_names(dialect, parts):
    assert load_catalog().resolve(parts, dialect, "f.sql", 1, 1) == "raw.lineitem"


def test_catalog_schema_has_the_eight_tpch_tables():
    schema = load_catalog().schema()
    assert sorted(schema["raw"]) == [
        "customer",
        "lineitem",
        "nation",
        "orders",
        "part",
        "partsupp",
        "region",
        "supplier",
    ]
    assert schema["raw"]["lineitem"]["l_shipdate"] == "DATE"


def test_column_lineage_reaches_lake_columns():
    result = translate(
        "SELECT o_orderkey, c_name || '/' || o_clerk AS label, COUNT(*) OVER () AS n "
        "FROM SALES.ORDERS JOIN SALES.CUSTOMER ON o_custkey = c_custkey",
        "snowflake",
    )
    assert column_lineage(result, load_catalog()) == {
        "o_orderkey": [("raw.orders", "o_orderkey")],
        "label": [("raw.customer", "c_name"), ("raw.orders", "o_clerk")],
        "n": [],
    }
