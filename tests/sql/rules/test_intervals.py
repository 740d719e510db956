"""Date and time arithmetic beyond day counts (sql/rules/intervals.py) on DuckDB and Spark, over
catalogs imported from each dialect's DDL with DATE and TIMESTAMP columns (and Oracle's DATE
typed both ways: TIMESTAMP(0) as `catalog import` types it, DATE as a hand-written catalog
may), against values written from the documentation:

- BigQuery: DATE +/- INT64 is a DATE ("DATE "2020-09-22" - 7 = 2020-09-15"); DATE +/- INTERVAL
  is a DATETIME ("DATE "2021-04-20" + INTERVAL 25 HOUR = 2021-04-21 01:00:00"); month steps
  clamp to the last day ("If the resulting month has fewer days than the original date's
  day, then the resulting date is the last date of that month"), all in
  https://cloud.google.com/bigquery/docs/reference/standard-sql/operators;
- Redshift: DATE + INTERVAL is a timestamp ("caldate + interval '52 weeks'" = "2009-12-30
  00:00:00", https://docs.aws.amazon.com/redshift/latest/dg/r_interval_literals.html);
- Oracle: DATE + INTERVAL keeps the time of day Oracle's DATE holds, and is a time of day for
  hours; Teradata and Snowflake: DATE + INTERVAL of days is a DATE.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import imported_catalog, rows_on_engines

D, T = dt.date, dt.datetime
DDL = {
    "oracle": "CREATE TABLE sales.t (id NUMBER(10), d DATE, ts TIMESTAMP)",
    "bigquery": "CREATE TABLE sales.t (id INT64, d DATE, ts DATETIME, tz TIMESTAMP, tm TIME)",
    "redshift": "CREATE TABLE sales.t (id INTEGER, d DATE, ts TIMESTAMP, tm TIME)",
    "snowflake": "CREATE TABLE sales.t (id INTEGER, d DATE, ts TIMESTAMP_NTZ)",
    "teradata": "CREATE TABLE sales.t (id INTEGER, d DATE, ts TIMESTAMP(0))",
    "tsql": "CREATE TABLE dbo.t (id INT, d DATE, dd DATE, ts DATETIME2, dt DATETIME, dt2 DATETIME)",
}
# Oracle's DATE as a DATE (the repository's own catalog types TPC-H dates so).
ORACLE_DATES = Catalog(
    tables={"raw.t": {"id": "BIGINT", "d": "DATE", "ts": "TIMESTAMP"}},
    legacy={"oracle": {("SALES", "T"): "raw.t"}},
    opaque={},
    sources=("test_intervals.py",),
)
DATES = [D(2024, 1, 31), D(2024, 2, 29), D(2023, 12, 15), None]
MOMENTS = [T(2024, 1, 31, 10, 30), T(2024, 2, 29, 23, 0), T(2023, 12, 15), None]


def _rows(date_type: str) -> str:
    """Rows (id, d, ts): d a DATE, or for an Oracle DATE typed TIMESTAMP(0) a moment."""
    values = []
    for i, (day, moment) in enumerate(zip(DATES, MOMENTS, strict=True), start=1):
        d = "NULL" if day is None else f"DATE '{day}'"
        if date_type == "TIMESTAMP" and moment is not None:
            d = f"TIMESTAMP '{moment}'"
        ts = "NULL" if moment is None else f"TIMESTAMP '{moment}'"
        values.append(f"({i}, {d}, {ts})")
    return (
        f"SELECT id, CAST(d AS {date_type}) AS d, CAST(ts AS TIMESTAMP) AS ts "
        f"FROM (VALUES {', '.join(values)}) AS v(id, d, ts)"
    )


def _midnight(day: dt.date) -> dt.datetime:
    return T(day.year, day.month, day.day)


# (dialect, catalog: "imported" or "dates", expression, [value per row id 1..3], row 4 NULL)
CASES = [
    ("bigquery", "imported", "d + 1", [D(2024, 2, 1), D(2024, 3, 1), D(2023, 12, 16)]),
    ("bigquery", "imported", "5 + d", [D(2024, 2, 5), D(2024, 3, 5), D(2023, 12, 20)]),
    ("bigquery", "imported", "d - 7", [D(2024, 1, 24), D(2024, 2, 22), D(2023, 12, 8)]),
    (
        "bigquery",
        "imported",
        "d + INTERVAL 1 MONTH",
        [T(2024, 2, 29), T(2024, 3, 29), T(2024, 1, 15)],
    ),
    (
        "bigquery",
        "imported",
        "d - INTERVAL 1 YEAR",
        [T(2023, 1, 31), T(2023, 2, 28), T(2022, 12, 15)],
    ),
    (
        "bigquery",
        "imported",
        "d + INTERVAL 25 HOUR",
        [T(2024, 2, 1, 1), T(2024, 3, 1, 1), T(2023, 12, 16, 1)],
    ),
    (
        "bigquery",
        "imported",
        "ts + INTERVAL 1 MONTH",
        [T(2024, 2, 29, 10, 30), T(2024, 3, 29, 23), T(2024, 1, 15)],
    ),
    (
        "bigquery",
        "imported",
        "ts - INTERVAL 1 QUARTER",
        [T(2023, 10, 31, 10, 30), T(2023, 11, 29, 23), T(2023, 9, 15)],
    ),
    (
        "redshift",
        "imported",
        "d + INTERVAL '1 month'",
        [T(2024, 2, 29), T(2024, 3, 29), T(2024, 1, 15)],
    ),
    (
        "redshift",
        "imported",
        "d + INTERVAL '52 weeks'",
        [T(2025, 1, 29), T(2025, 2, 27), T(2024, 12, 13)],
    ),
    (
        "redshift",
        "imported",
        "ts - INTERVAL '90 minutes'",
        [T(2024, 1, 31, 9), T(2024, 2, 29, 21, 30), T(2023, 12, 14, 22, 30)],
    ),
    (
        "snowflake",
        "imported",
        "d + INTERVAL '2 days'",
        [D(2024, 2, 2), D(2024, 3, 2), D(2023, 12, 17)],
    ),
    (
        "snowflake",
        "imported",
        "ts + INTERVAL '1 hour'",
        [T(2024, 1, 31, 11, 30), T(2024, 3, 1), T(2023, 12, 15, 1)],
    ),
    (
        "teradata",
        "imported",
        "d + INTERVAL '7' DAY",
        [D(2024, 2, 7), D(2024, 3, 7), D(2023, 12, 22)],
    ),
    (
        "teradata",
        "imported",
        "DATE '2024-01-15' + INTERVAL '1' MONTH",
        [D(2024, 2, 15), D(2024, 2, 15), D(2024, 2, 15), D(2024, 2, 15)],
    ),
    (
        "teradata",
        "imported",
        "ts + INTERVAL '90' MINUTE",
        [T(2024, 1, 31, 12), T(2024, 3, 1, 0, 30), T(2023, 12, 15, 1, 30)],
    ),
    # Oracle over DATE typed as TIMESTAMP(0): the time of day is kept
    (
        "oracle",
        "imported",
        "d + INTERVAL '1' DAY",
        [T(2024, 2, 1, 10, 30), T(2024, 3, 1, 23), T(2023, 12, 16)],
    ),
    (
        "oracle",
        "imported",
        "d - INTERVAL '3' HOUR",
        [T(2024, 1, 31, 7, 30), T(2024, 2, 29, 20), T(2023, 12, 14, 21)],
    ),
    (
        "oracle",
        "imported",
        "TRUNC(d, 'MM') + INTERVAL '1' MONTH",
        [T(2024, 2, 1), T(2024, 3, 1), T(2024, 1, 1)],
    ),
    # ... and over DATE typed as a DATE
    ("oracle", "dates", "d + INTERVAL '1' DAY", [D(2024, 2, 1), D(2024, 3, 1), D(2023, 12, 16)]),
    (
        "oracle",
        "dates",
        "d - INTERVAL '3' HOUR",
        [T(2024, 1, 30, 21), T(2024, 2, 28, 21), T(2023, 12, 14, 21)],
    ),
    (
        "oracle",
        "dates",
        "TRUNC(d, 'MM') + INTERVAL '1' MONTH",
        [D(2024, 2, 1), D(2024, 3, 1), D(2024, 1, 1)],
    ),
    (
        "oracle",
        "dates",
        "ts + INTERVAL '1' DAY",
        [T(2024, 2, 1, 10, 30), T(2024, 3, 1, 23), T(2023, 12, 16)],
    ),
]
GROUPS = sorted({(dialect, catalog) for dialect, catalog, _, _ in CASES})


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalogs")
    found = {(d, "imported"): imported_catalog(folder, d, ddl) for d, ddl in DDL.items()}
    found["oracle", "dates"] = ORACLE_DATES
    return found


@pytest.mark.parametrize(("dialect", "catalog"), GROUPS)
def test_interval_arithmetic_gives_the_documented_values_and_types(
    spark, catalogs, dialect, catalog
):
    cases = [(e, want) for d, c, e, want in CASES if (d, c) == (dialect, catalog)]
    columns = ", ".join(f"{expression} AS v{i}" for i, (expression, _) in enumerate(cases))
    ansi_sql = translate(
        f"SELECT id, {columns} FROM sales.t", dialect, catalog=catalogs[dialect, catalog]
    ).ansi_sql
    date_type = "TIMESTAMP" if (dialect, catalog) == ("oracle", "imported") else "DATE"
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, t=_rows(date_type))
    for engine, got in (("duckdb", on_duckdb), ("spark", on_spark)):
        for column, (expression, want) in enumerate(cases, start=1):
            expected = [*want, None][:4]
            values = [row[column] for row in sorted(got)]
            assert values == expected, (engine, expression)
            # the type too: a DATE is no midnight TIMESTAMP (DuckDB's DATE + INTERVAL is one)
            assert [type(v) for v in values] == [type(v) for v in expected], (engine, expression)


@pytest.mark.parametrize(
    ("dialect", "expression", "rule", "message"),
    [
        # a day the target month lacks: an error in the source (ORA-01839), not in the engines
        ("oracle", "d + INTERVAL '1' MONTH", "INTERVAL-ARITHMETIC", "does not exist"),
        ("teradata", "d - INTERVAL '1' YEAR", "INTERVAL-ARITHMETIC", "does not exist"),
        ("snowflake", "ts + INTERVAL '1 month'", "INTERVAL-ARITHMETIC", "does not exist"),
        ("snowflake", "d + INTERVAL '1 hour'", "INTERVAL-ARITHMETIC", "HOUR steps on a DATE"),
        ("bigquery", "d + INTERVAL '1-2' YEAR TO MONTH", "INTERVAL-ARITHMETIC", "several fields"),
        ("redshift", "d + INTERVAL '0.5 days'", "INTERVAL-ARITHMETIC", "a fraction"),
        ("bigquery", "tz + INTERVAL 1 DAY", "INTERVAL-ARITHMETIC", "time zone"),
        # differences of moments that are no standard interval
        ("bigquery", "d - d", "MOMENT-SUBTRACTION", "DATE_DIFF"),
        ("bigquery", "ts - ts", "MOMENT-SUBTRACTION", "DATE_DIFF"),
        ("snowflake", "ts - ts", "MOMENT-SUBTRACTION", "DATE_DIFF"),
        ("teradata", "ts - ts", "MOMENT-SUBTRACTION", "DATE_DIFF"),
        # T-SQL's DATETIME + DATETIME (days from 1900-01-01), which nothing else has
        ("tsql", "dt + dt2", "MOMENT-SUM", "no standard meaning"),
        ("redshift", "d + ts", "MOMENT-SUM", "no standard meaning"),
        # a number added to a timestamp, a TIME added to a DATE
        ("bigquery", "ts + 1", "MOMENT-NUMBER-ARITHMETIC", "add an INTERVAL"),
        # (BigQuery's here; the others' are DATE-NUMBER-ARITHMETIC's)
        ("redshift", "ts - 1", "DATE-NUMBER-ARITHMETIC", "add an INTERVAL"),
        ("snowflake", "ts + 1", "DATE-NUMBER-ARITHMETIC", "add an INTERVAL"),
        ("teradata", "ts + 1", "DATE-NUMBER-ARITHMETIC", "add an INTERVAL"),
        ("redshift", "d + tm", "MOMENT-NUMBER-ARITHMETIC", "a DATE plus a TIME"),
        ("bigquery", "d + tm", "MOMENT-NUMBER-ARITHMETIC", "a DATE plus a TIME"),
    ],
)
def test_arithmetic_without_an_exact_form_is_refused_where_it_is_written(
    catalogs, dialect, expression, rule, message
):
    table = "dbo.t" if dialect == "tsql" else "sales.t"
    with pytest.raises(TranslationError) as raised:
        translate(
            f"SELECT\n  {expression} AS v FROM {table}",
            dialect,
            catalog=catalogs[dialect, "imported"],
        )
    located = [(d.rule, d.line) for d in raised.value.diagnostics]
    assert (rule, 2) in located, located
    assert any(message in d.message for d in raised.value.diagnostics)


def test_oracle_and_redshift_timestamp_differences_stay_the_standards_interval(catalogs):
    for dialect in ("oracle", "redshift"):
        ansi_sql = translate(
            "SELECT ts - ts AS v FROM sales.t", dialect, catalog=catalogs[dialect, "imported"]
        ).ansi_sql
        assert '"t"."ts" - "t"."ts"' in ansi_sql


def test_an_oracle_date_moved_by_an_interval_still_subtracts_to_days():
    """(d + INTERVAL '1' DAY) - d is the NUMBER 1 in Oracle: INTERVAL-ARITHMETIC marks its
    result an Oracle DATE, and DATE-NUMBER-ARITHMETIC counts the days between the two."""
    import duckdb

    from sql.catalog import Catalog
    from sql.render import render
    from sql.translate import translate

    catalog = Catalog(
        tables={"raw.t": {"d": "TIMESTAMP(0)"}},
        legacy={"oracle": {("S", "T"): "raw.t"}},
        declared={"raw.t": {"d": ("oracle", "DATE")}},
    )
    ansi_sql = translate(
        "SELECT (d + INTERVAL '1' DAY) - d AS n FROM S.T", "oracle", catalog=catalog
    )
    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw")
    con.execute("CREATE TABLE raw.t AS SELECT TIMESTAMP '2024-02-28 10:30:00' AS d")
    assert con.sql(render(ansi_sql.ansi_sql, "duckdb")).fetchall() == [(1,)]
