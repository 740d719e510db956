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


rule(
    "SESSION-SETTING",
    "rewrite",
    ("oracle", "snowflake", "teradata", "tsql"),
    (),
    "Session settings a script states (sql/session.py): a setting that changes no result "
    "(SET NOCOUNT, XACT_ABORT, TRANSACTION ISOLATION LEVEL, ...), a standard value (SET "
    "ANSI_NULLS ON, QUOTED_IDENTIFIER ON, ANSI_WARNINGS ON, ...), a statistics refresh "
    "(COLLECT STATISTICS, UPDATE STATISTICS), COMMENT ON (a description in the data "
    "dictionary), Teradata's SET QUERY_BAND (workload "
    "management's name-value tags) and LOCKING ... FOR ACCESS / READ / WRITE before a request "
    "(the lock it takes: which concurrent changes it sees or waits for; the request is read) "
    "and Synapse's table options (WITH (DISTRIBUTION "
    "= HASH(k), CLUSTERED COLUMNSTORE INDEX, HEAP, PARTITION (...))) are skipped with an info "
    "line; SET DATEFIRST n, SET LANGUAGE us_english, USE db, Teradata's DATABASE db, Oracle's "
    "ALTER SESSION SET NLS_DATE_FORMAT / NLS_DATE_LANGUAGE / CURRENT_SCHEMA and Snowflake's "
    "ALTER SESSION SET WEEK_START / TIMESTAMP_TYPE_MAPPING set tsql_datefirst, date_language, "
    "tsql_database, teradata_database, oracle_nls_date_format, oracle_schema, "
    "snowflake_week_start and snowflake_timestamp_type_mapping for the statements after them "
    "(what reads them says so in an info line, not a warning). Refused, located, "
    "naming what it changes: any other value (SET ANSI_WARNINGS OFF, SET DATEFORMAT dmy, SET "
    "ROWCOUNT 10, SET CONCAT_NULL_YIELDS_NULL OFF, ...), a value from a variable, a setting "
    "changed after the script made a temporary table or variable, and GO n (the batch run n "
    "times).",
    (
        (
            "tsql",
            "SET NOCOUNT ON; SET DATEFIRST 1; SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders",
            'SELECT CAST(MOD((MOD(EXTRACT(DAY FROM (CAST(CAST("orders"."o_orderdate" AS DATE) AS TIMESTAMP) - CAST(\'1900-01-01 00:00:00\' AS TIMESTAMP))), 7) + 7), 7) + 1 AS INTEGER) AS "wd" FROM "raw"."orders" AS "orders"',
        ),
        (
            "teradata",
            "DATABASE SALES_DB; SET QUERY_BAND = 'job=daily;' FOR SESSION; COLLECT STATISTICS ON "
            "ORDERS COLUMN (O_ORDERKEY); LOCKING ROW FOR ACCESS SEL o_orderkey FROM orders",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders"',
        ),
    ),
)(_followed_by_the_script)
rule(
    "BTEQ-COMMAND",
    "rewrite",
    ("teradata",),
    (),
    "BTEQ's dot commands (sql/client_commands.py) are blanked out of the text before it is "
    "read, and reported by name only (.LOGON's password reaches no output): .LOGON, .LOGOFF, "
    ".QUIT at the end, .SET WIDTH and the other output settings, and .IF ERRORCODE <> 0 THEN "
    ".QUIT n (it acts only on a failure) are skipped with an info line; .SET SESSION "
    "TRANSACTION BTET / ANSI states teradata_session_mode. Refused, located: .EXPORT, "
    ".IMPORT, .RUN FILE, .OS, .GOTO, .REPEAT, .RETLIMIT, an .IF on anything but a failure, "
    "a .QUIT with statements after it, and a command BTEQ does not have.",
    (
        (
            "teradata",
            ".LOGON tdprod/etl_user,secret\n.SET WIDTH 200\nSEL o_orderkey FROM SALES_DB.ORDERS;\n"
            ".IF ERRORCODE <> 0 THEN .QUIT 8\n.LOGOFF\n.QUIT 0",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders"',
        ),
    ),
)(_followed_by_the_script)
