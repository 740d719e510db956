"""Fractional-second precisions are kept, floored or refused, never silently changed.

A clock's reading is never reproducible (the statement runs at another instant on another
machine), so a translated clock is exact when every value it gives is a value the legacy
clock's type holds and the relations the legacy documents between its clocks in one statement
hold. A floor to the legacy digits keeps both, where a rounding may reach the next second or
day (CLOCK-PRECISION and SESSION-TIME, sql/rules/dialect_specific.py): Oracle's SYSDATE and
CURRENT_DATE (DATEs), Redshift's GETDATE() (whole seconds in its documentation) and
CURRENT_TIMESTAMP(0) are the reading floored to the second; a precision of six digits or
more is the engines' six-digit CURRENT_TIMESTAMP; 1 to 5 digits are refused (the floor needs
the second's fraction, which DuckDB's EXTRACT(SECOND) lacks). A clock value cannot be compared
with a constant, so the engine test checks its properties. BigQuery's clocks in a named time
zone are refused (CLOCK-ZONE): they are not the session's.

CAST-SECONDS-PRECISION (sql/rules/types.py): DuckDB rounds a CAST to TIMESTAMP(p) and Spark
has no TIMESTAMP(p) and keeps six digits, so such a CAST is translated only of a value with
at most p digits, where both engines give that value."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pytest
import sqlglot
from pyspark.sql.types import TimestampType

from sql import ansi
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import first_values

# A table each dialect's catalog (sql/catalog.yaml) names.
TABLE = {
    "teradata": "SALES_DB.REGION",
    "oracle": "SALES.REGION",
    "snowflake": "sales.region",
    "redshift": "sales.region",
    "tsql": "dbo.Region",
}
ORDERS = {
    "teradata": "SALES_DB.ORDERS",
    "oracle": "SALES.ORDERS",
    "snowflake": "sales.orders",
    "redshift": "sales.orders",
    "tsql": "dbo.Orders",
}
BARE = 'SELECT CURRENT_TIMESTAMP AS "t" FROM "raw"."region" AS "region"'
# The current timestamp floored to the second, typed TIMESTAMP(0).
FLOORED = (
    "CAST(CAST(CURRENT_TIMESTAMP AS DATE) AS TIMESTAMP(0)) + (EXTRACT(HOUR FROM "
    "CURRENT_TIMESTAMP) * 3600 + EXTRACT(MINUTE FROM CURRENT_TIMESTAMP) * 60 + "
    "CAST(FLOOR(EXTRACT(SECOND FROM CURRENT_TIMESTAMP)) AS INTEGER)) * INTERVAL '1' SECOND"
)
WHOLE = f'SELECT {FLOORED} AS "t" FROM "raw"."region" AS "region"'


def _one_line(ansi_sql: str) -> str:
    return ansi.generate(sqlglot.parse_one(ansi_sql, read=ansi.Ansi), pretty=False)


def _translate(call: str, dialect: str) -> str:
    sql = f"SELECT {call} AS t FROM {TABLE[dialect]}"
    return _one_line(translate(sql, dialect, file="q.sql").ansi_sql)


@pytest.mark.parametrize(
    ("dialect", "call", "expected"),
    [
        # clocks whose type holds whole seconds: floored
        ("oracle", "SYSDATE", WHOLE),
        ("oracle", "CURRENT_DATE", WHOLE),
        ("redshift", "GETDATE()", WHOLE),
        ("teradata", "CURRENT_TIMESTAMP(0)", WHOLE),
        ("oracle", "CURRENT_TIMESTAMP(0)", WHOLE),
        ("snowflake", "CURRENT_TIMESTAMP(0)", WHOLE),
        ("snowflake", "LOCALTIMESTAMP(0)", WHOLE),
        ("redshift", "CURRENT_TIMESTAMP(0)", WHOLE),
        # six digits or more: values the engines' six-digit clock gives are the type's
        ("teradata", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP(9)", BARE),
        ("snowflake", "CURRENT_TIMESTAMP(6)", BARE),
        ("snowflake", "CURRENT_TIMESTAMP(9)", BARE),
        ("redshift", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP", BARE),
        ("redshift", "SYSDATE", BARE),
        ("redshift", "NOW()", BARE),
        ("snowflake", "GETDATE()", BARE),
        ("snowflake", "SYSDATE()", BARE),
        ("teradata", "CURRENT_TIMESTAMP", BARE),
    ],
)
def test_a_clock_gives_values_of_its_legacy_type(dialect, call, expected):
    assert _translate(call, dialect) == expected


def test_oracle_date_arithmetic_reads_the_floored_clock_as_a_date():
    # SYSDATE - 1 is a DATE a day earlier; + 1/24 an hour later (whole seconds, so exact).
    sql = "SELECT SYSDATE - 1 AS a, SYSDATE + 1/24 AS b FROM SALES.REGION"
    flat = _one_line(translate(sql, "oracle").ansi_sql)
    assert flat == (
        f"SELECT {FLOORED} - INTERVAL '1' DAY AS \"a\", {FLOORED} + INTERVAL '3600' SECOND "
        'AS "b" FROM "raw"."region" AS "region"'
    )


@pytest.mark.parametrize(
    ("dialect", "call", "why"),
    [
        ("teradata", "CURRENT_TIMESTAMP(2)", "2 fractional-second digits: the reading floored"),
        ("oracle", "CURRENT_TIMESTAMP(3)", "3 fractional-second digits"),
        ("snowflake", "LOCALTIMESTAMP(3)", "EXTRACT(SECOND) does not give"),
        ("redshift", "CURRENT_TIMESTAMP(5)", "5 fractional-second digits"),
        ("teradata", "CURRENT_TIMESTAMP(7)", "number from 0 to 6, the precisions Teradata takes"),
        ("redshift", "CURRENT_TIMESTAMP(7)", "number from 0 to 6, the precisions Redshift"),
        ("oracle", "CURRENT_TIMESTAMP(10)", "number from 0 to 9, the precisions Oracle takes"),
    ],
)
def test_another_precision_is_refused_at_the_call(dialect, call, why):
    with pytest.raises(TranslationError) as raised:
        _translate(call, dialect)
    [diagnostic] = [d for d in raised.value.diagnostics if d.rule == "CLOCK-PRECISION"]
    assert (diagnostic.line, diagnostic.col) == (1, 8)
    assert why in diagnostic.message


@pytest.mark.parametrize("call", ["CURRENT_DATE('America/New_York')", "CURRENT_DATETIME('UTC')"])
def test_a_bigquery_clock_in_a_named_zone_is_refused(call):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {call} AS t", "bigquery", file="q.sql")
    [diagnostic] = [d for d in raised.value.diagnostics if d.rule == "CLOCK-ZONE"]
    assert (diagnostic.line, diagnostic.col) == (1, 8)


# What the engine says of a floored clock's value t, read in the same statement as its own
# clock: the same day as its CURRENT_DATE, not after its CURRENT_TIMESTAMP, within a second.
# Every floored clock above is this one ANSI expression.
PROPERTIES = (
    'SELECT "c"."t" AS "t", CAST("c"."t" AS DATE) = CURRENT_DATE AS "same_day", '
    '"c"."t" <= CAST(CURRENT_TIMESTAMP AS TIMESTAMP) AS "not_later", '
    'CAST(CURRENT_TIMESTAMP AS TIMESTAMP) - "c"."t" < INTERVAL \'1\' SECOND AS "close" '
    f'FROM (SELECT {FLOORED} AS "t") AS "c"'
)


def test_a_floored_clock_is_whole_seconds_of_the_engines_own_reading(spark_engine):
    on_duckdb = duckdb.connect().sql(render(PROPERTIES, "duckdb"))
    assert str(on_duckdb.types[0]) == "TIMESTAMP"
    on_spark = spark_engine.session().sql(render(PROPERTIES, "spark"))
    assert isinstance(on_spark.schema["t"].dataType, TimestampType)
    for t, same_day, not_later, close in [*on_duckdb.fetchall(), tuple(on_spark.first())]:
        assert t.microsecond == 0 and t.tzinfo is None
        assert (same_day, not_later, close) == (True, True, True)


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
