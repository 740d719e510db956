"""GREATEST / LEAST with a NULL argument and Oracle's REPLACE with NULL arguments, on DuckDB and
Spark over imported catalogs, against each dialect's documentation:

- NULL when any argument is NULL: Oracle ("If any expr is null, GREATEST returns null" — its
  SQL reference), Teradata, Snowflake (GREATEST_IGNORE_NULLS skips them), BigQuery ("If any of
  the arguments is NULL, returns NULL");
- NULLs ignored: T-SQL ("GREATEST ignores NULL values",
  https://learn.microsoft.com/sql/t-sql/functions/logical-functions-greatest-transact-sql) and
  Redshift (https://docs.aws.amazon.com/redshift/latest/dg/r_GREATEST_LEAST.html);
- Oracle REPLACE: "If replacement_string is omitted or null, then all occurrences of
  search_string are removed. If search_string is null, then char is returned", and an empty
  result is NULL (https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/REPLACE.html);
- Teradata's ROUND of a DECIMAL halfway value, by DBS Control's RoundHalfwayMagUp
  (https://docs.teradata.com/r/Teradata-VantageTM-Database-Utilities/July-2021/DBS-Control-dbscontrol/DBS-Control-Fields/RoundHalfwayMagUp).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from sql.assumptions import Assumptions
from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import imported_catalog, rows_on_engines

DDL = {
    "oracle": "CREATE TABLE sales.t (id NUMBER(10), a NUMBER(10), b NUMBER(10), "
    "s VARCHAR2(20), s2 VARCHAR2(20))",
    "teradata": "CREATE TABLE sales.t (id INTEGER, a INTEGER, b INTEGER, s VARCHAR(20), "
    "s2 VARCHAR(20))",
    "snowflake": "CREATE TABLE sales.t (id INTEGER, a INTEGER, b INTEGER, s VARCHAR, s2 VARCHAR)",
    "bigquery": "CREATE TABLE sales.t (id INT64, a INT64, b INT64, s STRING, s2 STRING)",
    "tsql": "CREATE TABLE dbo.t (id INT, a INT, b INT, s VARCHAR(20), s2 VARCHAR(20))",
    "redshift": "CREATE TABLE sales.t (id INTEGER, a INTEGER, b INTEGER, s VARCHAR(20), "
    "s2 VARCHAR(20))",
}
ROWS = (
    "SELECT * FROM (VALUES (1, 1, CAST(NULL AS INTEGER), 'abcb', 'b'), (2, 3, 2, 'abc', "
    "CAST(NULL AS VARCHAR)), (3, CAST(NULL AS INTEGER), CAST(NULL AS INTEGER), 'b', 'b'), "
    "(4, 5, 7, CAST(NULL AS VARCHAR), 'b')) AS v(id, a, b, s, s2)"
)
NULL_IF_ANY = {"GREATEST(a, b)": {2: 3, 4: 7}, "LEAST(a, b)": {2: 2, 4: 5}}
IGNORING = {"GREATEST(a, b)": {1: 1, 2: 3, 4: 7}, "LEAST(a, b)": {1: 1, 2: 2, 4: 5}}
CASES = {
    "oracle": {
        **NULL_IF_ANY,
        "REPLACE(s, s2)": {1: "ac", 2: "abc"},
        "REPLACE(s, 'b', s2)": {1: "abcb", 2: "ac", 3: "b"},
        "REPLACE(s, '')": {1: "abcb", 2: "abc", 3: "b"},
        "REPLACE(s, 'b', '')": {1: "ac", 2: "ac"},
    },
    "teradata": NULL_IF_ANY,
    "bigquery": NULL_IF_ANY,
    "snowflake": {**NULL_IF_ANY, "GREATEST_IGNORE_NULLS(a, b)": IGNORING["GREATEST(a, b)"]},
    "tsql": IGNORING,
    "redshift": IGNORING,
}


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalogs")
    return {dialect: imported_catalog(folder, dialect, ddl) for dialect, ddl in DDL.items()}


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_null_arguments_give_the_documented_values(spark, catalogs, dialect):
    cases = list(CASES[dialect].items())
    columns = ", ".join(f"{expression} AS v{i}" for i, (expression, _) in enumerate(cases))
    table = "dbo.t" if dialect == "tsql" else "sales.t"
    ansi_sql = translate(
        f"SELECT id, {columns} FROM {table}", dialect, catalog=catalogs[dialect]
    ).ansi_sql
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, t=ROWS)
    for engine, got in (("duckdb", on_duckdb), ("spark", on_spark)):
        for column, (expression, want) in enumerate(cases, start=1):
            values = {row[0]: row[column] for row in got}
            assert values == {i: want.get(i) for i in (1, 2, 3, 4)}, (engine, expression)


# Teradata rounds a DECIMAL halfway value as DBS Control's RoundHalfwayMagUp says: FALSE (the
# default) "so that the least significant digit is even. For example, a value of 2.5 is
# rounded to 2" (its Data Types reference: .015 -> .02, .025 -> .02, .0251 -> .03 into a
# DECIMAL(3, 2)); TRUE away from zero.
ROUNDING_DDL = "CREATE TABLE sales.r (id INTEGER, x DECIMAL(6, 4), n INTEGER)"
ROUNDING_ROWS = (
    "SELECT id, CAST(x AS DECIMAL(6, 4)) AS x, n FROM (VALUES (1, 0.0150, 15), (2, 0.0250, 25), "
    "(3, 0.0251, -25), (4, -0.0250, 35), (5, 2.5000, -15), (6, 3.5000, 14), (7, -2.5000, 0), "
    "(8, NULL, NULL)) AS v(id, x, n)"
)
D = Decimal
ROUNDING = {
    "FALSE": {
        "ROUND(x, 2)": [
            D("0.02"),
            D("0.02"),
            D("0.03"),
            D("-0.02"),
            D("2.50"),
            D("3.50"),
            D("-2.50"),
        ],
        "ROUND(x)": [D("0"), D("0"), D("0"), D("0"), D("2"), D("4"), D("-2")],
        "ROUND(n, -1)": [20, 20, -20, 40, -20, 10, 0],
    },
    "TRUE": {
        "ROUND(x, 2)": [
            D("0.02"),
            D("0.03"),
            D("0.03"),
            D("-0.03"),
            D("2.50"),
            D("3.50"),
            D("-2.50"),
        ],
        "ROUND(x)": [D("0"), D("0"), D("0"), D("0"), D("3"), D("4"), D("-3")],
        "ROUND(n, -1)": [20, 30, -30, 40, -20, 10, 0],
    },
}


@pytest.mark.parametrize("setting", sorted(ROUNDING))
def test_teradata_rounds_halfway_values_as_its_setting_says(spark, tmp_path, setting):
    catalog = imported_catalog(tmp_path, "teradata", ROUNDING_DDL)
    cases = list(ROUNDING[setting].items())
    columns = ", ".join(f"{expression} AS v{i}" for i, (expression, _) in enumerate(cases))
    assumptions = replace(Assumptions(), teradata_round_halfway_mag_up=setting)
    translation = translate(
        f"SELECT id, {columns} FROM sales.r", "teradata", catalog=catalog, assumptions=assumptions
    )
    assert ("teradata_round_halfway_mag_up", setting) in translation.assumed
    on_duckdb, on_spark = rows_on_engines(spark, translation.ansi_sql, r=ROUNDING_ROWS)
    for engine, got in (("duckdb", on_duckdb), ("spark", on_spark)):
        for column, (expression, want) in enumerate(cases, start=1):
            assert [row[column] for row in sorted(got)] == [*want, None], (engine, expression)


# ROUND of a binary float: BigQuery, Snowflake and T-SQL round halves away from zero
# ("Halfway cases are rounded away from zero", BigQuery's ROUND), as both engines do for an
# integer; Oracle's BINARY_DOUBLE "rounds to the nearest even value" (its ROUND (number)
# reference). To n places both engines get ROUND(x * 10^n) / 10^n, x scaled in binary
# (2.675 * 100 is 267.5: 2.68; their own ROUND(x, 2) differ: DuckDB 2.67, Spark 2.68), with
# a warning.
FLOAT_DDL = {
    "oracle": "CREATE TABLE sales.f (id NUMBER(10), f BINARY_DOUBLE)",
    "bigquery": "CREATE TABLE sales.f (id INT64, f FLOAT64)",
}
FLOAT_ROWS = (
    "SELECT id, CAST(f AS DOUBLE PRECISION) AS f FROM (VALUES (1, 2.5), (2, -2.5), (3, 3.5), "
    "(4, 0.5), (5, 2.675), (6, 0.25), (7, NULL)) AS v(id, f)"
)
FLOAT_ROUNDED = {
    "oracle": {
        "ROUND(f)": [2.0, -2.0, 4.0, 0.0, 3.0, 0.0, None],
        "ROUND(f, 1)": [2.5, -2.5, 3.5, 0.5, 2.7, 0.2, None],
    },
    "bigquery": {
        "ROUND(f)": [3.0, -3.0, 4.0, 1.0, 3.0, 0.0, None],
        "ROUND(f, 1)": [2.5, -2.5, 3.5, 0.5, 2.7, 0.3, None],
        "ROUND(f, 2)": [2.5, -2.5, 3.5, 0.5, 2.68, 0.25, None],
        "ROUND(f, -1)": [0.0, -0.0, 0.0, 0.0, 0.0, 0.0, None],
    },
}


@pytest.mark.parametrize("dialect", sorted(FLOAT_DDL))
def test_round_of_a_float_is_the_same_on_both_engines_with_the_dialects_ties(
    spark, tmp_path, dialect
):
    catalog = imported_catalog(tmp_path, dialect, FLOAT_DDL[dialect])
    cases = list(FLOAT_ROUNDED[dialect].items())
    columns = ", ".join(f"{expression} AS v{i}" for i, (expression, _) in enumerate(cases))
    translation = translate(f"SELECT id, {columns} FROM sales.f", dialect, catalog=catalog)
    assert any("power of 10" in d.message for d in translation.diagnostics)
    on_duckdb, on_spark = rows_on_engines(spark, translation.ansi_sql, f=FLOAT_ROWS)
    for engine, got in (("duckdb", on_duckdb), ("spark", on_spark)):
        for column, (expression, want) in enumerate(cases, start=1):
            assert [row[column] for row in sorted(got)] == want, (engine, expression)


@pytest.mark.parametrize(
    ("dialect", "sql", "message"),
    [
        (
            "redshift",
            "SELECT ROUND(CAST(o_totalprice AS FLOAT8)) AS v FROM sales.orders",
            "not documented",
        ),
        (
            "teradata",
            "SELECT ROUND(CAST(o_totalprice AS FLOAT)) AS v FROM SALES_DB.ORDERS",
            "not documented",
        ),
        (
            "bigquery",
            "SELECT ROUND(CAST(o_totalprice AS FLOAT64), o_shippriority) AS v FROM sales.orders",
            "computed number of places",
        ),
    ],
)
def test_round_of_a_float_without_an_exact_form_is_refused(dialect, sql, message):
    with pytest.raises(TranslationError, match=message):
        translate(sql, dialect)
