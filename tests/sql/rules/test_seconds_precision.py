"""Fractional-second precisions are kept or refused, never dropped.

CLOCK-PRECISION (sql/rules/dialect_specific.py): Teradata and Oracle document 6 as
CURRENT_TIMESTAMP's default precision, so (6) is the bare function; none of the four dialects
with a precision argument documents whether the clock's further digits are truncated or
rounded, so every other precision is refused rather than translated to the engines' six digits.

CAST-SECONDS-PRECISION (sql/rules/types.py): DuckDB rounds a CAST to TIMESTAMP(p) and Spark
has no TIMESTAMP(p) and keeps six digits, so such a CAST is translated only of a value with
at most p digits, where both engines give that value."""

from __future__ import annotations

from datetime import datetime

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import first_values

# A table each dialect's catalog (sql/catalog.yaml) names.
TABLE = {
    "teradata": "SALES_DB.REGION",
    "oracle": "SALES.REGION",
    "snowflake": "sales.region",
    "redshift": "sales.region",
}
ORDERS = {
    "teradata": "SALES_DB.ORDERS",
    "oracle": "SALES.ORDERS",
    "snowflake": "sales.orders",
    "redshift": "sales.orders",
    "tsql": "dbo.Orders",
}
BARE = 'SELECT CURRENT_TIMESTAMP AS "t" FROM "raw"."region" AS "region"'


def _one_line(ansi_sql: str) -> str:
    return " ".join(ansi_sql.split())


def _translate(call: str, dialect: str) -> str:
    sql = f"SELECT {call} AS t FROM {TABLE[dialect]}"
    return _one_line(translate(sql, dialect, file="q.sql").ansi_sql)


@pytest.mark.parametrize(
    ("dialect", "call"),
    [
        ("teradata", "CURRENT_TIMESTAMP(6)"),
        ("oracle", "CURRENT_TIMESTAMP(6)"),
    ],
)
def test_the_default_precision_is_the_bare_function(dialect, call):
    assert _translate(call, dialect) == BARE


@pytest.mark.parametrize(
    ("dialect", "call", "why"),
    [
        ("teradata", "CURRENT_TIMESTAMP(0)", "0 fractional-second digits: Teradata"),
        ("teradata", "CURRENT_TIMESTAMP(2)", "2 fractional-second digits"),
        ("oracle", "CURRENT_TIMESTAMP(3)", "3 fractional-second digits: Oracle"),
        ("snowflake", "CURRENT_TIMESTAMP(0)", "truncated or rounded; write"),
        ("snowflake", "LOCALTIMESTAMP(3)", "3 fractional-second digits"),
        ("snowflake", "CURRENT_TIMESTAMP(6)", "6 fractional-second digits: Snowflake"),
        ("snowflake", "CURRENT_TIMESTAMP(9)", "engines keep six digits only"),
        ("redshift", "CURRENT_TIMESTAMP(0)", "0 fractional-second digits: Redshift"),
    ],
)
def test_another_precision_is_refused_at_the_call(dialect, call, why):
    with pytest.raises(TranslationError) as raised:
        _translate(call, dialect)
    [diagnostic] = [d for d in raised.value.diagnostics if d.rule == "CLOCK-PRECISION"]
    assert (diagnostic.line, diagnostic.col) == (1, 8)
    assert why in diagnostic.message


@pytest.mark.parametrize(
    ("dialect", "cast"),
    [
        ("teradata", "CAST(CAST(o_orderdate AS TIMESTAMP) AS TIMESTAMP(0))"),
        ("oracle", "CAST(CAST(o_orderdate AS TIMESTAMP) AS TIMESTAMP(3))"),
        ("snowflake", "CAST(CAST(o_orderdate AS TIMESTAMP) AS TIMESTAMP(0))"),
        ("redshift", "CAST(CAST(o_orderdate AS TIMESTAMP) AS TIMESTAMP(2))"),
        ("tsql", "CAST(CAST(o_orderdate AS DATETIME2) AS DATETIME2(0))"),
        ("teradata", "CAST('2024-01-01 23:59:59.5' AS TIMESTAMP(0))"),
    ],
)
def test_a_cast_that_may_cut_fractional_seconds_is_refused(dialect, cast):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {cast} AS t FROM {ORDERS[dialect]}", dialect, file="q.sql")
    assert "CAST-SECONDS-PRECISION" in {d.rule for d in raised.value.diagnostics}


# Casts of values with no digits to cut, translated; (the value's text, the expected value).
EXACT_CASTS = [
    ("CAST(o_orderdate AS TIMESTAMP(0))", datetime(2024, 1, 1)),
    ("CAST('2024-01-01 23:59:59' AS TIMESTAMP(0))", datetime(2024, 1, 1, 23, 59, 59)),
    ("CAST('2024-01-01 23:59:59.25' AS TIMESTAMP(2))", datetime(2024, 1, 1, 23, 59, 59, 250000)),
]


def test_a_cast_with_no_digits_to_cut_gives_one_value_on_both_engines(spark_engine):
    spark = spark_engine.session()
    for cast, expected in EXACT_CASTS:
        ansi = _one_line(translate(f"SELECT {cast} AS t FROM SALES_DB.ORDERS", "teradata").ansi_sql)
        one_row = "(SELECT * FROM (VALUES (DATE '2024-01-01')) AS r(o_orderdate)) AS orders"
        on_duckdb, on_spark = first_values(
            ansi.replace('"raw"."orders" AS "orders"', one_row), spark
        )
        assert on_duckdb == on_spark == expected, cast
