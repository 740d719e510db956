"""Dates and times with plain numbers, run on DuckDB and Spark against values written from
each dialect's documentation:

- Oracle ("Datetime/Interval Arithmetic"): NUMBER constants in date arithmetic are days,
  "SYSDATE + 1 is tomorrow ... SYSDATE + (10/1440) is ten minutes from now", a TIMESTAMP is
  converted to a DATE first; subtracting a DATE from a DATE "returns the number of days"
  between them (a fraction where the times differ); CAST(t AS DATE) keeps the time;
- T-SQL: `datetime + n` adds n days (a `date` or `datetime2` plus a number is an operand
  type clash); `datetime - datetime` is the datetime as far after 1900-01-01.

Each Oracle case runs over the catalog typed both ways an Oracle DATE can be: TIMESTAMP(0)
with its declared type (``legacy: oracle DATE``, as ``catalog import`` writes it), and the
lake's DATE read as that (``lake: DATE``, an export of midnights).
"""

from __future__ import annotations

import datetime as dt

import pytest
import sqlglot

from sql import ansi
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

T = dt.datetime
# (id, shipped_at, delivered_at, due_on): times of day on the first two, midnights on due_on.
ROWS = [
    (1, "2024-01-30 10:00:00", "2024-02-02 10:00:00", "2024-02-01"),
    (2, "2024-02-28 23:30:00", "2024-03-01 08:15:30", "2024-03-04"),
]
DECLARED = {
    "shipped_at": ("oracle", "DATE"),
    "delivered_at": ("oracle", "DATE"),
    "due_on": ("oracle", "DATE"),
}
# due_on as the lake may store it: TIMESTAMP(0) (the declared type's ANSI form) or DATE.
CATALOGS = {
    "timestamp": Catalog(
        tables={
            "raw.shipments": {
                "id": "INTEGER",
                "shipped_at": "TIMESTAMP(0)",
                "delivered_at": "TIMESTAMP(0)",
                "due_on": "TIMESTAMP(0)",
            }
        },
        legacy={"oracle": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"}},
        declared={"raw.shipments": DECLARED},
    ),
    "date": Catalog(
        tables={
            "raw.shipments": {
                "id": "INTEGER",
                "shipped_at": "TIMESTAMP(0)",
                "delivered_at": "TIMESTAMP(0)",
                "due_on": "TIMESTAMP(0)",
            }
        },
        legacy={"oracle": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"}},
        declared={"raw.shipments": DECLARED},
        physical={"raw.shipments": {"due_on": "DATE"}},
    ),
}


@pytest.fixture(scope="module")
def engines(spark_engine):
    values = ", ".join(f"({i}, '{s}', '{d}', '{o}')" for i, s, d, o in ROWS)
    # Both typings share these rows: the "date" catalog reads due_on from a DATE column.
    shipments = (
        "SELECT CAST(i AS INTEGER) AS id, CAST(s AS TIMESTAMP) AS shipped_at, "
        "CAST(d AS TIMESTAMP) AS delivered_at, CAST(o AS TIMESTAMP) AS due_on "
        f"FROM (VALUES {values}) AS t(i, s, d, o)"
    )
    shipments_by_date = shipments.replace("CAST(o AS TIMESTAMP)", "CAST(o AS DATE)")
    scans = (
        "SELECT CAST(i AS INTEGER) AS id, CAST(s AS TIMESTAMP) AS scanned_at FROM (VALUES "
        "(1, '2024-01-30 10:00:00'), (2, '2024-02-28 23:30:00')) AS t(i, s)"
    )
    with engine_tables(
        spark_engine, shipments=shipments, shipments_by_date=shipments_by_date, scans=scans
    ) as engines:
        yield engines


def _run(engines, ansi_sql: str, table: str) -> tuple[list, list]:
    con, spark = engines
    sql = ansi_sql.replace('"raw"."shipments"', table).replace('"raw"."scans"', "scans")
    on_duckdb = con.sql(render(sql, "duckdb")).fetchall()
    on_spark = [tuple(r) for r in spark.sql(render(sql, "spark")).collect()]
    return sorted(on_duckdb), sorted(on_spark)


ORACLE_CASES = [
    # whole days to a DATE with a time of day: the time stays
    ("shipped_at + 5", [T(2024, 2, 4, 10), T(2024, 3, 4, 23, 30)]),
    ("shipped_at - 5", [T(2024, 1, 25, 10), T(2024, 2, 23, 23, 30)]),
    ("5 + shipped_at", [T(2024, 2, 4, 10), T(2024, 3, 4, 23, 30)]),
    # fractions of a day: an hour, ten minutes (the documentation's own example), a third
    ("shipped_at + 1/24", [T(2024, 1, 30, 11), T(2024, 2, 29, 0, 30)]),
    ("shipped_at + (10/1440)", [T(2024, 1, 30, 10, 10), T(2024, 2, 28, 23, 40)]),
    ("shipped_at - 0.5", [T(2024, 1, 29, 22), T(2024, 2, 28, 11, 30)]),
    ("due_on + 1/3", [T(2024, 2, 1, 8), T(2024, 3, 4, 8)]),
    # TRUNC(d) is the day's midnight, still a DATE
    ("TRUNC(shipped_at) + 7", [T(2024, 2, 6), T(2024, 3, 6)]),
    # DATE - DATE: whole days where both are midnights
    ("TRUNC(delivered_at) - TRUNC(shipped_at)", [3, 2]),
    ("due_on - TRUNC(shipped_at)", [2, 5]),
    # ... and where the times of day agree
    ("delivered_at - shipped_at", None),  # filled below: row 1 is 3 days, row 2 raises
    # CAST(d AS DATE) keeps the time of day (an Oracle DATE has one), and so does LAST_DAY
    # ("The return type is always DATE")
    ("CAST(shipped_at AS DATE)", [T(2024, 1, 30, 10), T(2024, 2, 28, 23, 30)]),
    ("LAST_DAY(shipped_at)", [T(2024, 1, 31, 10), T(2024, 2, 29, 23, 30)]),
    ("LAST_DAY(TRUNC(shipped_at))", [T(2024, 1, 31), T(2024, 2, 29)]),
]


@pytest.mark.parametrize("typing", ["timestamp", "date"])
def test_oracle_dates_with_numbers(engines, typing):
    """Every case in one query per engine (a Spark query costs ~0.5 s)."""
    cases = [c for c in ORACLE_CASES if c[1] is not None]
    selects = ", ".join(f"{select} AS v{n}" for n, (select, _) in enumerate(cases))
    source = f"SELECT id, {selects} FROM LOGISTICS.SHIPMENTS"
    ansi_sql = translate(source, "oracle", catalog=CATALOGS[typing]).ansi_sql
    table = "shipments_by_date" if typing == "date" else "shipments"
    on_duckdb, on_spark = _run(engines, ansi_sql, table)
    for n, (select, expected) in enumerate(cases, start=1):
        assert [row[n] for row in on_duckdb] == expected, select
        assert [row[n] for row in on_spark] == expected, select


@pytest.mark.parametrize("typing", ["timestamp", "date"])
def test_oracle_date_minus_date_runs_exact_where_whole_and_stops_where_fractional(engines, typing):
    """Row 1 is exactly 3 days apart; row 2 is 2 days 8:45:30 apart, 2.3649... days to
    Oracle, which no ANSI type holds exactly: the guard stops the query, naming the rule."""
    con, spark = engines
    source = "SELECT id, delivered_at - shipped_at AS v FROM LOGISTICS.SHIPMENTS WHERE id = 1"
    table = "shipments_by_date" if typing == "date" else "shipments"
    ansi_sql = translate(source, "oracle", catalog=CATALOGS[typing]).ansi_sql
    assert _run(engines, ansi_sql, table) == ([(1, 3)], [(1, 3)])
    stopped = ansi_sql.replace('"shipments"."id" = 1', '"shipments"."id" = 2')
    assert stopped != ansi_sql
    sql = stopped.replace('"raw"."shipments"', table)
    with pytest.raises(Exception, match="DATE-NUMBER-ARITHMETIC"):
        con.sql(render(sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="DATE-NUMBER-ARITHMETIC"):
        spark.sql(render(sql, "spark")).collect()


# Oracle's SYSDATE and CURRENT_DATE: the zone-less clock floored to whole seconds
# (SESSION-TIME), a DATE.
LOCAL_NOW = "CAST(CURRENT_TIMESTAMP AS TIMESTAMP)"
ORACLE_NOW = (
    f"CAST(CAST({LOCAL_NOW} AS DATE) AS TIMESTAMP(0)) + (EXTRACT(HOUR FROM {LOCAL_NOW}) * 3600 "
    f"+ EXTRACT(MINUTE FROM {LOCAL_NOW}) * 60 + CAST(FLOOR(EXTRACT(SECOND FROM {LOCAL_NOW})) AS "
    "INTEGER)) * INTERVAL '1' SECOND"
)


def test_oracle_sysdate_and_current_date_are_dates_with_a_time_of_day():
    translated = translate(
        "SELECT SYSDATE + 1 AS a, CURRENT_DATE - 7 AS b FROM DUAL", "oracle"
    ).ansi_sql
    flat = ansi.generate(sqlglot.parse_one(translated, read=ansi.Ansi), pretty=False)
    assert f"SELECT {ORACLE_NOW} + INTERVAL '1' DAY AS \"a\", " in flat
    assert f", {ORACLE_NOW} - INTERVAL '7' DAY AS \"b\"" in flat
    assert "CURRENT_DATE" not in flat


TSQL = Catalog(
    tables={"raw.scans": {"id": "INTEGER", "scanned_at": "TIMESTAMP(3)"}},
    legacy={"tsql": {("dbo", "scans"): "raw.scans"}},
    declared={"raw.scans": {"scanned_at": ("tsql", "DATETIME")}},
)


TSQL_CASES = [
    ("scanned_at + 1", [T(2024, 1, 31, 10), T(2024, 2, 29, 23, 30)]),
    ("scanned_at - 2", [T(2024, 1, 28, 10), T(2024, 2, 26, 23, 30)]),
    ("scanned_at + 0.25", [T(2024, 1, 30, 16), T(2024, 2, 29, 5, 30)]),
    # the difference, as a datetime counted from 1900-01-01
    (
        "scanned_at - CAST('2024-01-29 09:00:00' AS DATETIME)",
        [T(1900, 1, 2, 1), T(1900, 1, 31, 14, 30)],
    ),
]


def test_tsql_datetimes_with_numbers(engines):
    selects = ", ".join(f"{select} AS v{n}" for n, (select, _) in enumerate(TSQL_CASES))
    ansi_sql = translate(f"SELECT id, {selects} FROM dbo.Scans", "tsql", catalog=TSQL).ansi_sql
    on_duckdb, on_spark = _run(engines, ansi_sql, "scans")
    for n, (select, expected) in enumerate(TSQL_CASES, start=1):
        assert [row[n] for row in on_duckdb] == expected, select
        assert [row[n] for row in on_spark] == expected, select


UNDECLARED = Catalog(
    tables={"raw.shipments": {"id": "INTEGER", "a": "TIMESTAMP(0)", "b": "TIMESTAMP(0)"}},
    legacy={"oracle": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"}},
)
FRACTIONAL = Catalog(
    tables={"raw.shipments": {"id": "INTEGER", "t": "TIMESTAMP(6)", "n": "DECIMAL(10,2)"}},
    legacy={
        "oracle": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"},
        "snowflake": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"},
    },
)


@pytest.mark.parametrize(
    ("dialect", "catalog", "select", "rule"),
    [
        # a TIMESTAMP(0) the catalog does not declare: a DATE (days) or a TIMESTAMP (interval)?
        ("oracle", UNDECLARED, "a - b", "DATE-NUMBER-ARITHMETIC"),
        # fractional seconds that Oracle drops in a way it does not document
        ("oracle", FRACTIONAL, "t + 1", "DATE-NUMBER-ARITHMETIC"),
        ("oracle", FRACTIONAL, "CAST(t AS DATE)", "ORA-CAST-DATE"),
        # a fraction of a day that is no constant number of seconds
        ("oracle", CATALOGS["timestamp"], "shipped_at + id / 7", "DATE-NUMBER-ARITHMETIC"),
        # Snowflake adds numbers to dates only
        ("snowflake", FRACTIONAL, "t + 1", "DATE-NUMBER-ARITHMETIC"),
    ],
)
def test_what_stays_refused(dialect, catalog, select, rule):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {select} AS v FROM LOGISTICS.SHIPMENTS", dialect, catalog=catalog)
    assert rule in {d.rule for d in raised.value.diagnostics}


@pytest.mark.parametrize(
    "select",
    [
        "CAST(scanned_at AS DATE) + 1",  # a date plus a number: operand type clash in T-SQL
        "CAST(scanned_at AS DATETIME2) + 1",
        "scanned_at + 1.0 / 3",  # T-SQL divides in its own decimal arithmetic first
    ],
)
def test_tsql_refusals(select):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {select} AS v FROM dbo.Scans", "tsql", catalog=TSQL)
    assert "DATE-NUMBER-ARITHMETIC" in {d.rule for d in raised.value.diagnostics}


def test_an_oracle_timestamp_minus_a_timestamp_stays_an_interval():
    catalog = Catalog(
        tables={"raw.shipments": {"id": "INTEGER", "a": "TIMESTAMP", "b": "TIMESTAMP(0)"}},
        legacy={"oracle": {("LOGISTICS", "SHIPMENTS"): "raw.shipments"}},
        declared={"raw.shipments": {"a": ("oracle", "TIMESTAMP"), "b": ("oracle", "TIMESTAMP(0)")}},
    )
    ansi_sql = translate("SELECT a - b AS v FROM LOGISTICS.SHIPMENTS", "oracle", catalog=catalog)
    assert '"shipments"."a" - "shipments"."b" AS "v"' in ansi_sql.ansi_sql
