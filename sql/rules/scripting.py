"""Script-level constructs: variables, query parameters and temporary SQL functions.

They are followed statement by statement while the script is split into the tables it defines
(``sql/variables.py``, ``sql/udf.py``, called from ``sql/script.py``), before any table is
translated; they are registered here so that the catalog and the docs list them.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule


def _followed_by_the_script(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return None  # the work is done in sql/variables.py and sql/udf.py


rule(
    "SCRIPT-PARAMETER",
    "refuse",
    ("bigquery", "tsql"),
    (),
    "A parameter the script never gives a value (a BigQuery query parameter @name, a T-SQL "
    "@name no DECLARE sets, as in a procedure's body) is refused at each use, naming it: "
    "its value exists only when the query runs. A BigQuery parameter given a typed value "
    "(plumbline translate --param name:DATE:2024-01-01, as bq query --parameter takes it) "
    "becomes CAST(value AS type) at each use (SCRIPT-VARIABLE); a value not of its type is "
    "this error, naming the parameter.",
    (
        (
            "bigquery",
            "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date",
            "1:57",
        ),
    ),
)(_followed_by_the_script)

rule(
    "SCRIPT-UDF",
    "rewrite",
    ("bigquery",),
    (),
    "A call of a function the script defines with CREATE TEMP FUNCTION f(x TYPE, ...) "
    "[RETURNS T] AS (expression) becomes its body, each parameter replaced by the argument "
    "CAST to the parameter's type (as BigQuery coerces it; ANY TYPE takes it as it is) and the "
    "whole CAST to RETURNS. Refused at the call, naming the function: LANGUAGE js; a body that "
    "calls itself or a function defined after it; a nondeterministic argument (RAND(), "
    "CURRENT_TIMESTAMP(), ...) the body uses more than once; an argument or parameter that a "
    "name of the body's own subqueries could capture; the wrong number of arguments.",
    (
        (
            "bigquery",
            "CREATE TEMP FUNCTION growth(a FLOAT64, b FLOAT64) RETURNS FLOAT64 AS ((a - b) / b); "
            "SELECT growth(3, 2) AS g",
            "SELECT (CAST(((CAST(3 AS DOUBLE PRECISION) - CAST(2 AS DOUBLE PRECISION)) / "
            'CAST(2 AS DOUBLE PRECISION)) AS DOUBLE PRECISION)) AS "g"',
        ),
    ),
)(_followed_by_the_script)

rule(
    "SCRIPT-VARIABLE",
    "rewrite",
    ("bigquery", "tsql"),
    (),
    "A script variable (T-SQL DECLARE @v TYPE = x, SET @v = x, SELECT @v = x; BigQuery DECLARE "
    "v [TYPE] DEFAULT x, SET v = x, SET (a, b) = (x, y)) is replaced at each use by its value "
    "CAST to the declared type (a T-SQL string type without a length is one long; a string "
    "literal is cut or padded to the length as the assignment does). A value read from a query "
    "is a scalar subquery where it is exact: SET @v = (SELECT ...), or SELECT @v = aggregate "
    "without GROUP BY, HAVING or TOP (always one row). Refused at the use, saying why: a value "
    "from GETDATE(), RAND(), NEWID() or a function the translation cannot see, from a query's "
    "last row, assigned under IF/WHILE, reading a table the script writes later, cut to a "
    "string length; a BigQuery variable named like a column or alias of the query reading it.",
    (
        (
            "tsql",
            "DECLARE @d DATE = '1998-08-01'; "
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate >= @d",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
            'WHERE "orders"."o_orderdate" >= CAST(\'1998-08-01\' AS DATE)',
        ),
        (
            "bigquery",
            "DECLARE n INT64 DEFAULT 10; SET n = n + 1; SELECT n AS n",
            'SELECT CAST(CAST(10 AS BIGINT) + 1 AS BIGINT) AS "n"',
        ),
    ),
)(_followed_by_the_script)
