"""Snowflake's ARRAY_AGG read only through FLATTEN or ARRAY_SIZE gives, on DuckDB and on
Spark, the elements and counts Snowflake's documentation states
(https://docs.snowflake.com/sql-reference/functions/array_agg: NULLs left out, DISTINCT
removes duplicates, an empty array over no values); read any other way it is refused."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.rules import example_catalog
from sql.translate import translate
from tests.sql.engine_tables import rows_on_engines

CATALOG = example_catalog()
# Customer 1: 'F' twice, 'O' and a NULL; customer 2: only NULLs; customer 3: one 'P'.
ORDERS = (
    "SELECT * FROM (VALUES (1, 'F'), (1, 'O'), (1, 'F'), (1, CAST(NULL AS VARCHAR)),"
    " (2, CAST(NULL AS VARCHAR)), (2, CAST(NULL AS VARCHAR)), (3, 'P'))"
    " AS t(o_custkey, o_orderstatus)"
)


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


def _rows(spark, source: str) -> list[tuple]:
    ansi_sql = translate(source, "snowflake", catalog=CATALOG).ansi_sql
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, orders=ORDERS)
    assert on_duckdb == on_spark
    return on_duckdb


# Snowflake: customer 1's ARRAY_AGG is ['F', 'O', 'F'] in some order (the NULL left out),
# ARRAY_AGG(DISTINCT) ['F', 'O']; customer 2's is [] (FLATTEN: no rows); customer 3's ['P'].
CASES = [
    (
        # FLATTEN of a CTE's ARRAY_AGG, its VALUE cast to a string, through a second CTE
        # that passes the array on after a LEFT JOIN (a NULL array there: no rows either)
        "WITH a AS (SELECT o_custkey, ARRAY_AGG(o_orderstatus) AS s FROM SALES.ORDERS"
        " GROUP BY o_custkey),"
        " b AS (SELECT k.o_custkey, a.s FROM (SELECT DISTINCT o_custkey FROM SALES.ORDERS) AS k"
        " LEFT JOIN a ON a.o_custkey = k.o_custkey)"
        " SELECT b.o_custkey, f.value::string AS v FROM b, LATERAL FLATTEN(input => b.s) AS f",
        [(1, "F"), (1, "F"), (1, "O"), (3, "P")],
    ),
    (
        # DISTINCT; WITHIN GROUP orders nothing FLATTEN's VALUE shows; VALUE grouped and
        # passed to a string function; the input by position
        "SELECT LOWER(f.value) AS v, COUNT(*) AS n FROM (SELECT o_custkey,"
        " ARRAY_AGG(DISTINCT o_orderstatus) WITHIN GROUP (ORDER BY o_orderstatus DESC) AS s"
        " FROM SALES.ORDERS GROUP BY o_custkey) AS a, LATERAL FLATTEN(a.s) AS f"
        " GROUP BY f.value",
        [("f", 1), ("o", 1), ("p", 1)],
    ),
    (
        # two FLATTENs of DISTINCT arrays beside a WHERE of the query's own (customer 1:
        # ['F', 'O'] twice, 2 x 2 rows; customer 3: ['P'], filtered out)
        "WITH a AS (SELECT o_custkey, ARRAY_AGG(DISTINCT o_orderstatus) AS s FROM SALES.ORDERS"
        " GROUP BY o_custkey)"
        " SELECT a.o_custkey, x.value::string AS x, y.value::string AS y"
        " FROM a, LATERAL FLATTEN(input => a.s) AS x, LATERAL FLATTEN(input => a.s) AS y"
        " WHERE a.o_custkey < 3",
        [(1, "F", "F"), (1, "F", "O"), (1, "O", "F"), (1, "O", "O")],
    ),
    (
        # ARRAY_SIZE counts the values that are not NULL: 0 for [] (customer 2)
        "SELECT o_custkey, ARRAY_SIZE(ARRAY_AGG(o_orderstatus)) AS n,"
        " ARRAY_SIZE(ARRAY_AGG(DISTINCT o_orderstatus)) AS d FROM SALES.ORDERS GROUP BY o_custkey",
        [(1, 3, 2), (2, 0, 0), (3, 1, 1)],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_elements_and_sizes_are_snowflakes(spark, source, expected):
    assert _rows(spark, source) == sorted(expected, key=repr)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        # the array as an output column: VARIANT elements in an unpredictable order
        (
            "SELECT o_custkey, ARRAY_AGG(o_orderstatus) AS s FROM SALES.ORDERS GROUP BY o_custkey",
            "only FLATTEN reads",
        ),
        # a reader of the CTE's array other than FLATTEN (a NULL test: [] is not NULL)
        (
            "WITH a AS (SELECT o_custkey, ARRAY_AGG(o_orderstatus) AS s FROM SALES.ORDERS"
            " GROUP BY o_custkey) SELECT o_custkey FROM a WHERE a.s IS NULL",
            "only FLATTEN reads",
        ),
        # elements that are not strings: VARIANT numbers Snowflake prints its own way
        (
            "WITH a AS (SELECT o_custkey, ARRAY_AGG(o_totalprice) AS s FROM SALES.ORDERS"
            " GROUP BY o_custkey) SELECT f.value::string AS v FROM a,"
            " LATERAL FLATTEN(input => a.s) AS f",
            "read back exactly only for strings",
        ),
        # a window
        (
            "SELECT ARRAY_SIZE(ARRAY_AGG(o_orderstatus) OVER (PARTITION BY o_custkey)) AS n"
            " FROM SALES.ORDERS",
            "window",
        ),
        # the position of an element: an order Snowflake does not fix
        (
            "WITH a AS (SELECT o_custkey, ARRAY_AGG(o_orderstatus) AS s FROM SALES.ORDERS"
            " GROUP BY o_custkey) SELECT f.index AS i FROM a, LATERAL FLATTEN(input => a.s) AS f",
            "INDEX of an ARRAY_AGG",
        ),
        # a LEFT JOIN FLATTEN of a DISTINCT one: its duplicates are dropped in WHERE
        (
            "WITH a AS (SELECT o_custkey, ARRAY_AGG(DISTINCT o_orderstatus) AS s"
            " FROM SALES.ORDERS GROUP BY o_custkey) SELECT f.value::string AS v FROM a"
            " LEFT JOIN LATERAL FLATTEN(input => a.s) AS f",
            "comma or CROSS join",
        ),
        # VALUE output as it is: a VARIANT string
        (
            "WITH a AS (SELECT o_custkey, ARRAY_AGG(o_orderstatus) AS s FROM SALES.ORDERS"
            " GROUP BY o_custkey) SELECT f.value AS v FROM a, LATERAL FLATTEN(input => a.s) AS f",
            "read as a string",
        ),
    ],
)
def test_what_stays_refused(source, message):
    with pytest.raises(TranslationError) as raised:
        translate(source, "snowflake", catalog=CATALOG)
    errors = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert {d.rule for d in errors} <= {"ARRAY-AGG", "VARIANT-FLATTEN"}
    assert any(message in d.message for d in errors), [d.message for d in errors]
