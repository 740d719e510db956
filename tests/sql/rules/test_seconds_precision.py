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

A translated clock also keeps its legacy type's kind (SESSION-TIME, the CLOCKS table): one
documented without a time zone (T-SQL GETDATE, Redshift SYSDATE, ...) reads the zone-less
clock, CAST(CURRENT_TIMESTAMP AS TIMESTAMP), and so does its floor; an instant or a clock with
a zone stays CURRENT_TIMESTAMP, and its (0) is CURRENT_TIMESTAMP less its microseconds, an
instant still. A table built from a zone-less clock holds a TIMESTAMP on both engines and in
the lake; one built from an instant, floored or not, a TIMESTAMP WITH TIME ZONE in DuckDB's
Parquet (isAdjustedToUTC) and Spark's INT96 (no such flag) in Spark's.

CAST-SECONDS-PRECISION (sql/rules/types.py): DuckDB rounds a CAST to TIMESTAMP(p) and Spark
has no TIMESTAMP(p) and keeps six digits, so such a CAST is translated only of a value with
at most p digits, where both engines give that value."""

from __future__ import annotations

from datetime import datetime

import pyarrow.parquet as pq
import pytest
import sqlglot
from pyspark.sql.types import TimestampType

from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine, connect_duckdb
from pipelines.warehouse.portability import output_schema
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
# The current date and time without time zone (the standard's LOCALTIMESTAMP).
LOCAL_NOW = "CAST(CURRENT_TIMESTAMP AS TIMESTAMP)"
LOCAL = f'SELECT {LOCAL_NOW} AS "t" FROM "raw"."region" AS "region"'
# The zone-less clock floored to the second, typed TIMESTAMP(0).
FLOORED = (
    f"CAST(CAST({LOCAL_NOW} AS DATE) AS TIMESTAMP(0)) + (EXTRACT(HOUR FROM {LOCAL_NOW}) * 3600 "
    f"+ EXTRACT(MINUTE FROM {LOCAL_NOW}) * 60 + CAST(FLOOR(EXTRACT(SECOND FROM {LOCAL_NOW})) AS "
    "INTEGER)) * INTERVAL '1' SECOND"
)
WHOLE = f'SELECT {FLOORED} AS "t" FROM "raw"."region" AS "region"'
# An instant (CURRENT_TIMESTAMP) floored to the second, still an instant.
FLOORED_INSTANT = (
    f"CURRENT_TIMESTAMP - MOD(CAST(EXTRACT(SECOND FROM {LOCAL_NOW}) * 1000000 AS BIGINT), "
    "1000000) * INTERVAL '0.000001' SECOND"
)
WHOLE_INSTANT = f'SELECT {FLOORED_INSTANT} AS "t" FROM "raw"."region" AS "region"'


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
        # of a clock that is an instant (or of undocumented kind, kept as CURRENT_TIMESTAMP):
        # an instant floored
        ("teradata", "CURRENT_TIMESTAMP(0)", WHOLE_INSTANT),
        ("oracle", "CURRENT_TIMESTAMP(0)", WHOLE_INSTANT),
        ("snowflake", "CURRENT_TIMESTAMP(0)", WHOLE_INSTANT),
        ("snowflake", "LOCALTIMESTAMP(0)", WHOLE_INSTANT),
        ("redshift", "CURRENT_TIMESTAMP(0)", WHOLE_INSTANT),
        # six digits or more: values the engines' six-digit clock gives are the type's
        ("teradata", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP(9)", BARE),
        ("snowflake", "CURRENT_TIMESTAMP(6)", BARE),
        ("snowflake", "CURRENT_TIMESTAMP(9)", BARE),
        ("redshift", "CURRENT_TIMESTAMP(6)", BARE),
        ("oracle", "CURRENT_TIMESTAMP", BARE),
        ("redshift", "NOW()", BARE),
        ("snowflake", "GETDATE()", BARE),
        ("teradata", "CURRENT_TIMESTAMP", BARE),
        # clocks documented without a time zone: the zone-less clock (T-SQL's GETDATE() and
        # CURRENT_TIMESTAMP, datetime ticks, are TSQL-GETDATE's floor of it:
        # tests/sql/rules/test_tsql_datetime.py)
        ("redshift", "SYSDATE", LOCAL),
        ("snowflake", "SYSDATE()", LOCAL),
        ("oracle", "LOCALTIMESTAMP", LOCAL),
        ("oracle", "LOCALTIMESTAMP(9)", LOCAL),
        ("oracle", "LOCALTIMESTAMP(0)", WHOLE),
        ("tsql", "SYSDATETIME()", LOCAL),
    ],
)
def test_a_clock_gives_values_of_its_legacy_type(dialect, call, expected):
    assert _translate(call, dialect) == expected


@pytest.mark.parametrize(
    ("dialect", "call", "instant"),
    [
        ("oracle", "CURRENT_TIMESTAMP(0) + INTERVAL '1' DAY", True),
        ("snowflake", "CASE WHEN 1 = 1 THEN CURRENT_TIMESTAMP(0) END", True),
        # converted, a number of days added, a function's argument: its date and time, as
        # the rules read CURRENT_TIMESTAMP there
        ("oracle", "CAST(CURRENT_TIMESTAMP(0) AS DATE)", False),
        ("oracle", "CURRENT_TIMESTAMP(0) - 1", False),
        ("snowflake", "DATEADD(day, 1, CURRENT_TIMESTAMP(0))", False),
    ],
)
def test_a_floored_instant_stays_one_where_its_value_is_kept(dialect, call, instant):
    translated = _translate(call, dialect)
    assert (FLOORED_INSTANT in translated, FLOORED in translated) == (instant, not instant)


@pytest.mark.parametrize(
    ("call", "expected"),
    [("CURRENT_DATETIME()", LOCAL_NOW), ("CURRENT_TIMESTAMP()", "CURRENT_TIMESTAMP")],
)
def test_a_bigquery_datetime_clock_has_no_zone_and_its_instant_clock_stays(call, expected):
    # CURRENT_DATETIME() is a DATETIME (UTC's, as the engines' sessions are); CURRENT_TIMESTAMP()
    # an instant, kept as instants are.
    translated = translate(f"SELECT {call} AS t", "bigquery", file="q.sql").ansi_sql
    assert _one_line(translated) == f'SELECT {expected} AS "t"'


def test_a_localtimestamp_of_undocumented_type_stays_refused():
    # Redshift documents no LOCALTIMESTAMP: refused as before, without the clock's warning.
    with pytest.raises(TranslationError) as raised:
        translate("SELECT LOCALTIMESTAMP AS t", "redshift", file="q.sql")
    assert {d.rule for d in raised.value.diagnostics} == {"ANSI-UNSUPPORTED"}


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
        ("oracle", "LOCALTIMESTAMP(3)", "3 fractional-second digits"),
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
# clock: the same day as its CURRENT_DATE, not after its CURRENT_TIMESTAMP, within a second;
# and the same of the floored instant i, compared as instants. Every floored clock above is
# one of these two ANSI expressions.
PROPERTIES = (
    'SELECT "c"."t" AS "t", CAST("c"."t" AS DATE) = CURRENT_DATE AS "same_day", '
    '"c"."t" <= CAST(CURRENT_TIMESTAMP AS TIMESTAMP) AS "not_later", '
    'CAST(CURRENT_TIMESTAMP AS TIMESTAMP) - "c"."t" < INTERVAL \'1\' SECOND AS "close", '
    '"c"."i" AS "i", CAST("c"."i" AS DATE) = CURRENT_DATE AS "i_same_day", '
    '"c"."i" <= CURRENT_TIMESTAMP AS "i_not_later", '
    'CURRENT_TIMESTAMP - "c"."i" < INTERVAL \'1\' SECOND AS "i_close" '
    f'FROM (SELECT {FLOORED} AS "t", {FLOORED_INSTANT} AS "i") AS "c"'
)


def test_a_floored_clock_is_whole_seconds_of_the_engines_own_reading(spark_engine):
    on_duckdb = connect_duckdb().sql(render(PROPERTIES, "duckdb"))
    # the zone-less floor is a TIMESTAMP, the instant's an instant still
    assert [str(on_duckdb.types[i]) for i in (0, 4)] == ["TIMESTAMP", "TIMESTAMP WITH TIME ZONE"]
    on_spark = spark_engine.session().sql(render(PROPERTIES, "spark"))
    assert isinstance(on_spark.schema["t"].dataType, TimestampType)
    assert isinstance(on_spark.schema["i"].dataType, TimestampType)  # Spark's instant type
    for row in [*on_duckdb.fetchall(), tuple(on_spark.first())]:
        t, i, facts = row[0], row[4], (*row[1:4], *row[5:])
        assert t.microsecond == 0 and t.tzinfo is None
        assert i.microsecond == 0
        assert facts == (True,) * 6


def test_a_floored_instant_is_written_to_the_lake_as_its_clock_is(spark_engine, tmp_path):
    """Oracle's CURRENT_TIMESTAMP is a TIMESTAMP WITH TIME ZONE, LOCALTIMESTAMP a TIMESTAMP:
    floored to the second, each is written as the clock without a precision is. DuckDB
    writes an instant with isAdjustedToUTC (pyarrow's tz 'UTC') and a TIMESTAMP without;
    Spark writes its TIMESTAMP (an instant) as INT96 whatever the clock, which carries no
    isAdjustedToUTC: the lake's reader sees a TIMESTAMP there for both kinds."""
    sql = translate(
        "SELECT CURRENT_TIMESTAMP AS bare, CURRENT_TIMESTAMP(0) AS floored, "
        "LOCALTIMESTAMP(0) AS local FROM dual",
        "oracle",
        file="q.sql",
    ).ansi_sql
    written = {}
    for engine in (DuckDBEngine(threads=1), spark_engine):
        out = tmp_path / engine.name
        engine.build(sql, {}, out, file="q.sql")
        [part] = [p for p in out.glob("*.parquet") if pq.read_metadata(p).num_rows]
        schema = pq.ParquetFile(part).schema
        written[engine.name] = [
            (c.physical_type, str(c.logical_type)) for c in (schema.column(i) for i in range(3))
        ]
        assert written[engine.name][0] == written[engine.name][1], engine.name
        if engine.name == "duckdb":
            assert output_schema(out) == [
                ("bare", "TIMESTAMP WITH TIME ZONE"),
                ("floored", "TIMESTAMP WITH TIME ZONE"),
                ("local", "TIMESTAMP"),
            ]
    assert "isAdjustedToUTC=true" in written["duckdb"][1][1]
    assert "isAdjustedToUTC=false" in written["duckdb"][2][1]
    assert [physical for physical, _ in written["spark"]] == ["INT96"] * 3


def test_a_zone_less_clock_is_a_timestamp_on_both_engines_and_in_the_lake(spark_engine, tmp_path):
    # T-SQL's GETDATE() is a datetime, no zone: the table built from it holds a TIMESTAMP on
    # DuckDB (not the TIMESTAMP WITH TIME ZONE of its CURRENT_TIMESTAMP) and the type Spark
    # gives the standard's TIMESTAMP, and the lake's Parquet from either build is a timestamp
    # without a zone, which the lake's reader (portability.output_schema) reads as TIMESTAMP.
    sql = translate("SELECT GETDATE() AS loaded_at", "tsql", file="q.sql").ansi_sql
    assert LOCAL_NOW in sql and "CURRENT_TIMESTAMP +" not in sql  # (floored to its ticks)
    with connect_duckdb() as con:
        assert [str(t) for t in con.sql(render(sql, "duckdb")).types] == ["TIMESTAMP"]
    spark = spark_engine.session()
    ansi_timestamp = spark.sql(render("SELECT CAST(DATE '2024-01-01' AS TIMESTAMP) AS t", "spark"))
    on_spark = spark.sql(render(sql, "spark")).schema["loaded_at"].dataType
    assert on_spark == ansi_timestamp.schema["t"].dataType
    for engine in (DuckDBEngine(threads=1), spark_engine):
        out = tmp_path / engine.name
        engine.build(sql, {}, out, file="q.sql")
        assert output_schema(out) == [("loaded_at", "TIMESTAMP")], engine.name
        for part in out.glob("*.parquet"):
            assert pq.read_schema(part).field("loaded_at").type.tz is None, engine.name


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
