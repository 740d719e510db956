"""PORTABLE-TYPE: output columns that DuckDB and Spark would type differently get the source
dialect's type; the engine type systems it relies on predict what the engines really do."""

from __future__ import annotations

import duckdb
import pytest
import sqlglot
from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from pipelines.warehouse.engines.duckdb_engine import portable_relation
from sql import ansi
from sql.render import render
from sql.rules.portable_types import DuckDB, Numeric, Projections, Spark, Typer
from sql.translate import translate


def _one_line(ansi_sql: str) -> str:
    return ansi.generate(sqlglot.parse_one(ansi_sql, read=ansi.Ansi), pretty=False)


CASTS = [
    (
        "tsql",
        "SELECT DATEPART(month, o_orderdate) AS m, LEN(o_clerk) AS n, "
        "ROW_NUMBER() OVER (ORDER BY o_orderkey) AS r FROM dbo.Orders",
        'SELECT CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") AS INTEGER) AS "m", CAST(CHAR_LENGTH(TRIM(TRAILING \' \' FROM CAST("orders"."o_clerk" AS VARCHAR))) AS INTEGER) AS "n", CAST(ROW_NUMBER() OVER (ORDER BY "orders"."o_orderkey" ASC NULLS FIRST) AS BIGINT) AS "r" FROM "raw"."orders" AS "orders"',
    ),
    (
        "tsql",
        "SELECT o_custkey, SUM(o_totalprice) AS v, COUNT(*) AS c, SUM(o_shippriority) AS s "
        "FROM dbo.Orders GROUP BY o_custkey",
        'SELECT "orders"."o_custkey" AS "o_custkey", CAST(SUM("orders"."o_totalprice") AS DECIMAL(38, 2)) AS "v", COUNT(*) AS "c", SUM("orders"."o_shippriority") AS "s" FROM "raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
    ),
    (
        "tsql",
        "SELECT l_extendedprice * (1 - l_discount) AS net FROM dbo.LineItem",
        'SELECT CAST("lineitem"."l_extendedprice" * (1 - "lineitem"."l_discount") AS DECIMAL(32, 4)) AS "net" FROM "raw"."lineitem" AS "lineitem"',
    ),
    (
        "tsql",
        "SELECT ROUND(o_totalprice, 0) AS r FROM dbo.Orders",
        'SELECT CAST(ROUND("orders"."o_totalprice", 0) AS DECIMAL(15, 2)) AS "r" FROM "raw"."orders" AS "orders"',
    ),
    (
        "snowflake",
        "SELECT DATEDIFF(day, o_orderdate, '1998-08-02'::date) AS d, "
        "RANK() OVER (ORDER BY o_totalprice) AS r, "
        "SUM(o_totalprice) OVER (PARTITION BY o_custkey) AS v FROM PROD_DW.SALES.ORDERS",
        'SELECT CAST(EXTRACT(DAY FROM (CAST(CAST(CAST(\'1998-08-02\' AS DATE) AS DATE) AS TIMESTAMP) - CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP))) AS BIGINT) AS "d", CAST(RANK() OVER (ORDER BY "orders"."o_totalprice" ASC NULLS LAST) AS BIGINT) AS "r", CAST(SUM("orders"."o_totalprice") OVER (PARTITION BY "orders"."o_custkey") AS DECIMAL(38, 2)) AS "v" FROM "raw"."orders" AS "orders"',
    ),
    (
        "snowflake",
        "SELECT l_extendedprice * l_discount AS d FROM PROD_DW.SALES.LINEITEM",
        'SELECT CAST("lineitem"."l_extendedprice" * "lineitem"."l_discount" AS DECIMAL(30, 4)) AS "d" FROM "raw"."lineitem" AS "lineitem"',
    ),
    (
        # Snowflake does not document ROUND's result precision: the narrowest type holding
        # both engines' results (DuckDB DECIMAL(15, 0), Spark DECIMAL(14, 0)).
        "snowflake",
        "SELECT ROUND(o_totalprice, 0) AS r FROM PROD_DW.SALES.ORDERS",
        'SELECT CAST(ROUND("orders"."o_totalprice", 0) AS DECIMAL(15, 0)) AS "r" FROM "raw"."orders" AS "orders"',
    ),
    (
        "bigquery",
        "SELECT EXTRACT(YEAR FROM o_orderdate) AS y, LENGTH(o_clerk) AS n, SUM(o_totalprice) AS v "
        "FROM sales.orders GROUP BY 1, 2",
        'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS BIGINT) AS "y", CAST(CHAR_LENGTH("orders"."o_clerk") AS BIGINT) AS "n", CAST(SUM("orders"."o_totalprice") AS DECIMAL(38, 9)) AS "v" FROM "raw"."orders" AS "orders" GROUP BY EXTRACT(YEAR FROM "orders"."o_orderdate"), CHAR_LENGTH("orders"."o_clerk")',
    ),
    (
        "bigquery",
        "SELECT l_extendedprice * l_discount AS d FROM sales.lineitem",
        'SELECT CAST("lineitem"."l_extendedprice" * "lineitem"."l_discount" AS DECIMAL(38, 9)) AS "d" FROM "raw"."lineitem" AS "lineitem"',
    ),
    (
        "redshift",
        "SELECT EXTRACT(year FROM o_orderdate) AS y, DATEDIFF(day, o_orderdate, '1998-08-02') AS d, "
        "DENSE_RANK() OVER (ORDER BY o_totalprice) AS r, NTILE(4) OVER (ORDER BY o_totalprice) AS q "
        "FROM sales.orders",
        'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS INTEGER) AS "y", CAST(EXTRACT(DAY FROM (CAST(CAST(CAST(\'1998-08-02\' AS DATE) AS DATE) AS TIMESTAMP) - CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP))) AS BIGINT) AS "d", CAST(DENSE_RANK() OVER (ORDER BY "orders"."o_totalprice" ASC NULLS LAST) AS INTEGER) AS "r", CAST(NTILE(4) OVER (ORDER BY "orders"."o_totalprice" ASC NULLS LAST) AS BIGINT) AS "q" FROM "raw"."orders" AS "orders"',
    ),
    (
        "teradata",
        "SELECT EXTRACT(YEAR FROM o_orderdate) AS y, CHARACTERS(o_clerk) AS n, "
        "RANK() OVER (ORDER BY o_totalprice) AS r FROM SALES_DB.ORDERS",
        'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS INTEGER) AS "y", CAST(CHAR_LENGTH("orders"."o_clerk") AS INTEGER) AS "n", CAST(RANK() OVER (ORDER BY "orders"."o_totalprice" ASC NULLS FIRST) AS INTEGER) AS "r" FROM "raw"."orders" AS "orders"',
    ),
    (
        "teradata",
        "SELECT o_custkey, SUM(o_totalprice) AS v FROM SALES_DB.ORDERS GROUP BY o_custkey",
        'SELECT "orders"."o_custkey" AS "o_custkey", CAST(SUM("orders"."o_totalprice") AS DECIMAL(38, 2)) AS "v" FROM "raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
    ),
    (
        "oracle",
        "SELECT EXTRACT(YEAR FROM o_orderdate) AS y, ROW_NUMBER() OVER (ORDER BY o_orderkey) AS r, "
        "SUM(o_totalprice) OVER () AS v FROM SALES.ORDERS",
        'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS BIGINT) AS "y", CAST(ROW_NUMBER() OVER (ORDER BY "orders"."o_orderkey" ASC NULLS LAST) AS BIGINT) AS "r", CAST(SUM("orders"."o_totalprice") OVER () AS DECIMAL(38, 2)) AS "v" FROM "raw"."orders" AS "orders"',
    ),
    (
        "oracle",
        "SELECT s_suppkey, SUM(ps_availqty * ps_supplycost) AS v "
        "FROM SALES.SUPPLIER JOIN SALES.PARTSUPP ON ps_suppkey = s_suppkey GROUP BY s_suppkey",
        'SELECT "supplier"."s_suppkey" AS "s_suppkey", CAST(SUM("partsupp"."ps_availqty" * "partsupp"."ps_supplycost") AS DECIMAL(38, 2)) AS "v" FROM "raw"."supplier" AS "supplier" JOIN "raw"."partsupp" AS "partsupp" ON "partsupp"."ps_suppkey" = "supplier"."s_suppkey" GROUP BY "supplier"."s_suppkey"',
    ),
    (
        # A derived table's column is cast where it leaves the query.
        "tsql",
        "SELECT y FROM (SELECT YEAR(o_orderdate) AS y FROM dbo.Orders) AS t",
        'SELECT CAST("t"."y" AS INTEGER) AS "y" FROM (SELECT EXTRACT(YEAR FROM "orders"."o_orderdate") AS "y" FROM "raw"."orders" AS "orders") AS "t"',
    ),
    (
        # Every branch of a set operation alike.
        "redshift",
        "SELECT EXTRACT(year FROM o_orderdate) AS y FROM sales.orders "
        "INTERSECT SELECT EXTRACT(year FROM l_shipdate) FROM sales.lineitem",
        'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS INTEGER) AS "y" FROM "raw"."orders" AS "orders" INTERSECT SELECT CAST(EXTRACT(YEAR FROM "lineitem"."l_shipdate") AS INTEGER) AS "_col_0" FROM "raw"."lineitem" AS "lineitem"',
    ),
]


@pytest.mark.parametrize(("dialect", "source", "expected"), CASTS)
def test_output_columns_get_the_source_type(dialect, source, expected):
    translation = translate(source, dialect)
    assert _one_line(translation.ansi_sql) == expected
    assert "PORTABLE-TYPE" in translation.rules_applied


def test_columns_the_engines_type_alike_are_left_as_they_are():
    # Lake columns, casts, CASE of integer literals, and a union whose BIGINT branch makes
    # the column BIGINT on both engines.
    source = (
        "SELECT o_orderkey, o_totalprice, CAST(YEAR(o_orderdate) AS BIGINT) AS y, "
        "CASE WHEN o_totalprice > 0 THEN 1 ELSE 0 END AS f FROM dbo.Orders "
        "UNION ALL SELECT o_orderkey, o_totalprice, YEAR(o_orderdate) + o_orderkey, 1 FROM dbo.Orders"
    )
    translation = translate(source, "tsql")
    assert _one_line(translation.ansi_sql) == (
        'SELECT "orders"."o_orderkey" AS "o_orderkey", "orders"."o_totalprice" AS "o_totalprice", CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS BIGINT) AS "y", CASE WHEN "orders"."o_totalprice" > 0 THEN 1 ELSE 0 END AS "f" FROM "raw"."orders" AS "orders" UNION ALL SELECT "orders"."o_orderkey" AS "o_orderkey", "orders"."o_totalprice" AS "o_totalprice", EXTRACT(YEAR FROM "orders"."o_orderdate") + "orders"."o_orderkey" AS "_col_2", 1 AS "1" FROM "raw"."orders" AS "orders"'
    )
    assert "PORTABLE-TYPE" not in translation.rules_applied


@pytest.mark.parametrize(
    ("dialect", "source", "column"),
    [
        # Types the engine systems do not predict: MOD of a decimal, ROUND to a computed
        # number of places. (A decimal average or quotient, whose values differ too, is
        # AVG-DECIMAL's and DIV-DECIMAL's: written exactly or refused.)
        ("tsql", "SELECT o_totalprice % 7 AS m FROM dbo.Orders", "m"),
        (
            "snowflake",
            "SELECT ROUND(o_totalprice, o_shippriority) AS r FROM PROD_DW.SALES.ORDERS",
            "r",
        ),
    ],
)
def test_a_column_no_cast_can_reconcile_is_left_with_a_warning(dialect, source, column):
    translation = translate(source, dialect)
    assert "CAST" not in translation.ansi_sql
    [warning] = [d for d in translation.diagnostics if d.rule == "PORTABLE-TYPE"]
    assert warning.severity == "warning" and f"column {column!r}" in warning.message


# Expressions over the columns of T; each engine's TypeSystem must predict the engine's type.
COLUMNS = {"i": "INT", "b": "BIGINT", "d": "DECIMAL(15, 2)", "e": "DECIMAL(15, 2)", "f": "DOUBLE"}
COLUMNS |= {"dt": "DATE", "s": "STRING"}
EXPRESSIONS = [
    "0.05",
    "10.5",
    "2654435761",
    "d + b",
    "1 - e",
    "d * (1 - e)",
    "i * d",
    "b * d",
    "d * 2",
    "d * d * d",
    "CAST(d AS DECIMAL(30, 10)) * CAST(d AS DECIMAL(30, 10))",
    "CAST(d AS DECIMAL(25, 2)) + CAST(e AS DECIMAL(38, 10))",
    "SUM(d)",
    "SUM(i * d)",
    "SUM(CAST(d AS DECIMAL(30, 2)))",
    "SUM(EXTRACT(YEAR FROM dt))",
    "AVG(i)",
    "COUNT(*)",
    "ROUND(d, 0)",
    "ROUND(d, 1)",
    "ROUND(d, 3)",
    "FLOOR(d)",
    "MOD(b, 7)",
    "CASE WHEN i > 0 THEN d ELSE b END",
    "CASE WHEN i > 0 THEN d ELSE 0 END",
    "COALESCE(SUM(d), 0)",
    "EXTRACT(YEAR FROM dt) * 12",
    "EXTRACT(DAY FROM (CAST(dt AS TIMESTAMP) - CAST(dt AS TIMESTAMP)))",
    "d + EXTRACT(YEAR FROM dt)",
    "CHAR_LENGTH(s)",
    "POSITION('b' IN s)",
    "RANK() OVER (ORDER BY i)",
    "ROW_NUMBER() OVER (ORDER BY i)",
    "SUM(d) OVER (PARTITION BY i)",
    "CAST(f AS REAL) * CAST(f AS REAL)",
    "CAST(f AS REAL) + i",
    "CASE WHEN i > 0 THEN CAST(f AS REAL) ELSE 0 END",
    "SUM(CAST(f AS REAL))",
    "FLOOR(f)",
]


def _predicted(expression: str, system) -> Numeric | None:
    tree = sqlglot.parse_one(f'SELECT {expression} AS "x" FROM "t"', read=ansi.Ansi)
    schema = {"t": COLUMNS}
    tree = annotate_types(qualify(tree, schema=schema, dialect=ansi.Ansi), schema=schema)
    return Typer(system, Projections.of(tree))(tree.selects[0].unalias())


def _spelled(value: Numeric | None, engine: str) -> str | None:
    """``value`` as DuckDB (``DECIMAL(15,2)``) or Spark (``decimal(15,2)``) names it."""
    if value is None:
        return None
    if value.kind == "DECIMAL":
        name = f"DECIMAL({value.precision},{value.scale})"
        return name if engine == "duckdb" else name.lower()
    names = {"INT": "INTEGER", "BIGINT": "BIGINT", "REAL": "FLOAT", "DOUBLE": "DOUBLE"}
    spark = {"INT": "int", "BIGINT": "bigint", "REAL": "float", "DOUBLE": "double"}
    return names[value.kind] if engine == "duckdb" else spark[value.kind]


def _is_aggregate(expression: str) -> bool:
    tree = sqlglot.parse_one(expression, read=ansi.Ansi)
    return any(node.find_ancestor(exp.Window) is None for node in tree.find_all(exp.AggFunc))


@pytest.fixture(scope="module")
def engine_types(spark_engine) -> dict[str, tuple[str, str]]:
    """{expression: (DuckDB type, Spark type)}, planned in two queries per engine (one of
    aggregates, one of the rest): Spark takes a while per query."""
    spark = spark_engine.session().newSession()
    body = ", ".join(f"{name} {dtype}" for name, dtype in COLUMNS.items())
    spark.createDataFrame([], body).createOrReplaceTempView("t")
    types: dict[str, tuple[str, str]] = {}
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE t ({body.replace('STRING', 'VARCHAR')})")
        for aggregate in (True, False):
            group = [e for e in EXPRESSIONS if _is_aggregate(e) is aggregate]
            columns = [
                exp.alias_(sqlglot.parse_one(e, read=ansi.Ansi), f"c{i}", quoted=True)
                for i, e in enumerate(group)
            ]
            query = ansi.generate(exp.select(*columns).from_(exp.to_identifier("t", quoted=True)))
            # The DuckDB engine writes 128-bit integers (integer sums) as BIGINT.
            on_duckdb = portable_relation(con.sql(render(query, "duckdb"))).types
            on_spark = spark.sql(render(query, "spark")).schema
            for e, duck, field in zip(group, on_duckdb, on_spark, strict=True):
                types[e] = (str(duck), field.dataType.simpleString())
    return types


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_engine_type_systems_predict_the_engines(engine_types, expression):
    on_duckdb, on_spark = engine_types[expression]
    assert _spelled(_predicted(expression, DuckDB()), "duckdb") == on_duckdb
    assert _spelled(_predicted(expression, Spark()), "spark") == on_spark
