"""Expression families with an exact form: T-SQL ROUND(x, n, 1), DATEFROMPARTS of columns
(and BigQuery DATE(y, m, d), Snowflake DATE_FROM_PARTS), week numbers, LAST_DAY of a year,
quarter or week, LIKE [...] classes and TOP n PERCENT / WITH TIES, run on DuckDB and Spark
against values computed here by hand or with Python's own calendar."""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_DOWN, Decimal

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

COLUMNS = "id BIGINT, y INTEGER, m INTEGER, d INTEGER, day DATE, amount DECIMAL(10,3), name VARCHAR"
CATALOG = Catalog(
    tables={
        "raw.facts": {
            "id": "BIGINT",
            "y": "INTEGER",
            "m": "INTEGER",
            "d": "INTEGER",
            "day": "DATE",
            "amount": "DECIMAL(10,3)",
            "name": "VARCHAR",
        }
    },
    legacy={
        "tsql": {("dbo", "facts"): "raw.facts"},
        "bigquery": {("s", "facts"): "raw.facts"},
        "snowflake": {("S", "FACTS"): "raw.facts"},
    },
    opaque={},
    sources=("test_tsql_expressions.py",),
)
TABLES = {"tsql": "dbo.facts", "bigquery": "s.facts", "snowflake": "S.FACTS"}

# Valid parts, with dates around year ends (ISO weeks 52, 53 and 1), leap days, the first
# and last representable years, negative and zero amounts, names for LIKE classes.
ROWS = [
    (1, 2024, 2, 29, dt.date(2024, 12, 30), Decimal("123.456"), "apple"),
    (2, 2021, 1, 1, dt.date(2021, 1, 1), Decimal("-123.456"), "Banana"),
    (3, 1, 1, 1, dt.date(2020, 12, 31), Decimal("0.000"), "cherry"),
    (4, 9999, 12, 31, dt.date(2027, 1, 3), Decimal("-0.999"), "[x]"),
    (5, 2023, 12, 31, dt.date(2023, 1, 1), Decimal("999.999"), "d%_e"),
    (6, 2000, 6, 15, dt.date(1899, 12, 31), Decimal("5.550"), "a\nb"),
    (7, None, 5, 5, None, None, None),
    (8, 2022, 1, 2, dt.date(2022, 1, 2), Decimal("1.001"), ""),
]


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE facts ({COLUMNS})")
    con.executemany("INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?)", ROWS)
    spark = spark_engine.session().newSession()
    spark.createDataFrame(ROWS, COLUMNS.replace("VARCHAR", "STRING")).createOrReplaceTempView(
        "facts"
    )
    yield con, spark
    con.close()


def _run(engines, ansi_sql: str, rows: list[tuple] | None = None) -> tuple[list, list]:
    con, spark = engines
    local = ansi_sql.replace('"raw"."facts"', '"facts"')
    on_duckdb = [tuple(r) for r in con.sql(render(local, "duckdb")).fetchall()]
    on_spark = [tuple(r) for r in spark.sql(render(local, "spark")).collect()]
    return on_duckdb, on_spark


def _translate(dialect: str, select: str, **assumptions) -> str:
    sql = f"SELECT id, {select} AS v FROM {TABLES[dialect]}"
    return translate(sql, dialect, catalog=CATALOG, assumptions=Assumptions(**assumptions)).ansi_sql


def _by_id(rows: list[tuple]) -> dict:
    return dict(sorted(rows, key=lambda r: r[0]))


def _both(engines, ansi_sql: str) -> dict:
    on_duckdb, on_spark = _run(engines, ansi_sql)
    assert _by_id(on_duckdb) == _by_id(on_spark), ansi_sql
    return _by_id(on_duckdb)


# --- ROUND(x, n, 1) ------------------------------------------------------------------------


def _truncated(amount: Decimal | None, places: int) -> Decimal | None:
    if amount is None:
        return None
    step = Decimal(1).scaleb(-places)
    return (amount / step).to_integral_value(ROUND_DOWN) * step


@pytest.mark.parametrize("places", [2, 1, 0, -1, -2, 3, 5])
def test_tsql_round_with_a_nonzero_function_truncates_toward_zero(engines, places):
    values = _both(engines, _translate("tsql", f"ROUND(amount, {places}, 1)"))
    assert values == {r[0]: _truncated(r[5], places) for r in ROWS}


def test_tsql_round_truncation_of_an_integer_keeps_it_an_integer(engines):
    values = _both(engines, _translate("tsql", "ROUND(y, -2, 7)"))
    assert values == {r[0]: None if r[1] is None else r[1] - r[1] % 100 for r in ROWS}


def test_tsql_round_with_function_zero_rounds(engines):
    values = _both(engines, _translate("tsql", "ROUND(amount, 1, 0)"))
    assert values[1] == Decimal("123.5") and values[2] == Decimal("-123.5")


@pytest.mark.parametrize(
    ("select", "message"),
    [
        ("ROUND(CAST(amount AS FLOAT), 1, 1)", "floating-point"),
        ("ROUND(amount, m, 1)", "integer literal n"),
        ("ROUND(amount, 1, m)", "mode argument"),
    ],
)
def test_tsql_round_truncation_without_an_exact_form_is_refused(select, message):
    with pytest.raises(TranslationError, match=message):
        _translate("tsql", select)


# --- DATEFROMPARTS / DATE(y, m, d) / DATE_FROM_PARTS -----------------------------------------


def _date(y, m, d) -> dt.date | None:
    return None if None in (y, m, d) else dt.date(y, m, d)


@pytest.mark.parametrize(
    ("dialect", "call"),
    [("tsql", "DATEFROMPARTS(y, m, d)"), ("bigquery", "DATE(y, m, d)")],
)
def test_date_from_column_parts_on_both_engines(engines, dialect, call):
    values = _both(engines, _translate(dialect, call))
    assert values == {r[0]: _date(*r[1:4]) for r in ROWS}


@pytest.mark.parametrize(
    "parts",
    [
        "y, 2, 30",
        "2023, 2, d + 28",
        "y - 2024, 1, 1",
        "y + 1, 12, 31",
        "2024, m - 2, 1",
        "2024, m + 11, 1",
    ],
)
def test_tsql_invalid_computed_dates_are_errors_on_both_engines(engines, parts):
    # Each expression makes some row's date invalid, which T-SQL reports as an error.
    con, spark = engines
    local = _translate("tsql", f"DATEFROMPARTS({parts})").replace('"raw"."facts"', '"facts"')
    with pytest.raises(duckdb.Error):
        con.sql(render(local, "duckdb")).fetchall()
    with pytest.raises(Exception, match=r"(?i)date|cast|parse"):
        spark.sql(render(local, "spark")).collect()


def _normalised(y: int, m: int, d: int) -> dt.date:
    months = y * 12 + (m - 1)
    first = dt.date(months // 12, months % 12 + 1, 1)
    return first + dt.timedelta(days=d - 1)


@pytest.mark.parametrize(
    "parts",
    [(2024, 13, 1), (2024, 0, 1), (2024, 3, 0), (2024, 1, -1), (2023, 14, 29), (2024, -11, 40)],
)
def test_snowflake_date_from_parts_carries_months_and_days_over(engines, parts):
    year, month, day = parts
    # The parts come from columns (m, d of row 8 are 1 and 2) so that none is a literal.
    select = f"DATE_FROM_PARTS({year}, m - 1 + {month}, d - 2 + {day})"
    values = _both(engines, _translate("snowflake", select))
    assert values[8] == _normalised(year, month, day)


def test_date_from_parts_with_a_null_or_a_literal_out_of_range():
    assert "CAST(NULL AS DATE)" in _translate("tsql", "DATEFROMPARTS(y, NULL, 1)")
    with pytest.raises(TranslationError, match="out of range"):
        _translate("tsql", "DATEFROMPARTS(y, 13, 1)")
    with pytest.raises(TranslationError, match="must be integers"):
        _translate("tsql", "DATEFROMPARTS(y, m, amount)")


# --- Week numbers -----------------------------------------------------------------------------


def _tsql_week(day: dt.date | None, datefirst: int) -> int | None:
    """T-SQL DATEPART(week): week 1 holds January 1; weeks start on DATEFIRST's day. Python's
    %U (from Sunday) and %W (from Monday) number days before the first such day 0."""
    if day is None:
        return None
    code = {7: "%U", 1: "%W"}[datefirst]
    first_day_is_start = int(dt.date(day.year, 1, 1).strftime(code)) == 1
    return int(day.strftime(code)) + (0 if first_day_is_start else 1)


@pytest.mark.parametrize("datefirst", [7, 1])
def test_tsql_datepart_week_counts_weeks_from_the_one_holding_january_first(engines, datefirst):
    translation = translate(
        "SELECT id, DATEPART(week, day) AS v FROM dbo.facts",
        "tsql",
        catalog=CATALOG,
        assumptions=Assumptions(tsql_datefirst=datefirst),
    )
    assert any(d.rule == "TSQL-DATEFIRST" for d in translation.diagnostics)
    values = _both(engines, translation.ansi_sql)
    assert values == {r[0]: _tsql_week(r[4], datefirst) for r in ROWS}


@pytest.mark.parametrize(
    ("dialect", "call"),
    [
        ("tsql", "DATEPART(iso_week, day)"),
        ("tsql", "DATEPART(isowk, day)"),
        ("snowflake", "DATE_PART(weekiso, day)"),
        ("snowflake", "WEEKISO(day)"),
        ("bigquery", "EXTRACT(ISOWEEK FROM day)"),
    ],
)
def test_iso_weeks_on_both_engines(engines, dialect, call):
    values = _both(engines, _translate(dialect, call))
    assert values == {r[0]: r[4] and r[4].isocalendar()[1] for r in ROWS}


@pytest.mark.parametrize(("week", "code"), [("WEEK", "%U"), ("WEEK(MONDAY)", "%W")])
def test_bigquery_week_numbers_days_before_the_first_start_day_zero(engines, week, code):
    values = _both(engines, _translate("bigquery", f"EXTRACT({week} FROM day)"))
    assert values == {r[0]: r[4] and int(r[4].strftime(code)) for r in ROWS}


# --- LAST_DAY of a year, quarter or week ------------------------------------------------------


def _last_day(day: dt.date | None, unit: str, first_weekday: int) -> dt.date | None:
    if day is None:
        return None
    if unit == "year":
        return dt.date(day.year, 12, 31)
    if unit == "quarter":
        month = (day.month - 1) // 3 * 3 + 3
        following = dt.date(day.year + month // 12, month % 12 + 1, 1)
        return following - dt.timedelta(days=1)
    start = day - dt.timedelta(days=(day.weekday() - first_weekday) % 7)
    return start + dt.timedelta(days=6)


@pytest.mark.parametrize(
    ("dialect", "call", "unit", "first"),
    [
        ("snowflake", "LAST_DAY(day, 'year')", "year", 0),
        ("snowflake", "LAST_DAY(day, 'quarter')", "quarter", 0),
        ("snowflake", "LAST_DAY(day, 'week')", "week", 0),  # WEEK_START 0: Monday
        ("bigquery", "LAST_DAY(day, YEAR)", "year", 0),
        ("bigquery", "LAST_DAY(day, WEEK)", "week", 6),  # Sunday
        ("bigquery", "LAST_DAY(day, ISOWEEK)", "week", 0),
        ("bigquery", "LAST_DAY(day, WEEK(WEDNESDAY))", "week", 2),
    ],
)
def test_last_day_of_a_year_quarter_or_week(engines, dialect, call, unit, first):
    values = _both(engines, _translate(dialect, call))
    assert values == {r[0]: _last_day(r[4], unit, first) for r in ROWS}


def test_last_day_of_a_snowflake_week_follows_the_assumed_week_start(engines):
    translation = translate(
        "SELECT id, LAST_DAY(day, 'week') AS v FROM S.FACTS",
        "snowflake",
        catalog=CATALOG,
        assumptions=Assumptions(snowflake_week_start=7),
    )
    assert any(d.rule == "SF-WEEK-START" for d in translation.diagnostics)
    values = _both(engines, translation.ansi_sql)
    assert values == {r[0]: _last_day(r[4], "week", 6) for r in ROWS}


# --- LIKE with [...] classes ------------------------------------------------------------------

NAMES = {r[0]: r[6] for r in ROWS}


@pytest.mark.parametrize(
    ("predicate", "matching"),
    [
        ("name LIKE '[a-c]%'", {1, 3, 6}),
        ("name LIKE '[abc]%'", {1, 3, 6}),
        ("name LIKE '[^a-c]%'", {2, 4, 5}),
        ("name NOT LIKE '[a-c]%'", {2, 4, 5, 8}),
        ("name LIKE '[[]%'", {4}),
        ("name LIKE '%[%]%'", {5}),
        ("name LIKE '%[_]%'", {5}),
        ("name LIKE 'd[%]_e'", {5}),
        ("name LIKE '[a]_[b]'", {6}),  # _ is any one character, a newline too
        ("name LIKE '[A-Z]%'", {2}),  # case-sensitive, as assumed
        ("name LIKE '[-x]%'", set()),
        ("name LIKE '[[]%]'", {4}),
    ],
)
def test_tsql_like_classes_match_what_tsql_matches(engines, predicate, matching):
    translation = translate(f"SELECT id FROM dbo.facts WHERE {predicate}", "tsql", catalog=CATALOG)
    assert any(d.rule == "TSQL-COLLATION" for d in translation.diagnostics)
    on_duckdb, on_spark = _run(engines, translation.ansi_sql)
    assert {r[0] for r in on_duckdb} == {r[0] for r in on_spark} == matching, translation.ansi_sql


@pytest.mark.parametrize(
    ("predicate", "message"),
    [
        ("name LIKE '[c-a]%'", "not a range"),
        ("name LIKE 'a[bc'", "not closed"),
        ("name LIKE '[]'", "empty class"),
        ("name LIKE '[^]x'", "empty class"),
        ("name LIKE '[a]%' ESCAPE '!'", "ESCAPE"),
        ("name LIKE '[é-z]%'", "ASCII"),
    ],
)
def test_tsql_like_classes_without_an_exact_form_are_refused(predicate, message):
    with pytest.raises(TranslationError, match=message):
        translate(f"SELECT id FROM dbo.facts WHERE {predicate}", "tsql", catalog=CATALOG)


# --- TOP n PERCENT / WITH TIES ----------------------------------------------------------------

ORDERED = sorted((r for r in ROWS if r[5] is not None), key=lambda r: r[5])  # NULL first: T-SQL


@pytest.mark.parametrize("percent", ["0", "10", "12.5", "50", "99", "100"])
def test_tsql_top_percent_keeps_the_first_rows_rounded_up(engines, percent):
    ansi_sql = translate(
        f"SELECT TOP ({percent}) PERCENT id, amount AS a FROM dbo.facts ORDER BY a",
        "tsql",
        catalog=CATALOG,
    ).ansi_sql
    on_duckdb, on_spark = _run(engines, ansi_sql)
    kept = math.ceil(Decimal(percent) * len(ROWS) / 100)
    expected = [(7, None)] + [(r[0], r[5]) for r in ORDERED]
    assert on_duckdb == on_spark == expected[:kept], ansi_sql


def test_tsql_top_with_ties_keeps_the_rows_tied_with_the_last(engines):
    ansi_sql = translate(
        "SELECT TOP 2 WITH TIES id, m FROM dbo.facts ORDER BY m DESC",
        "tsql",
        catalog=CATALOG,
    ).ansi_sql
    on_duckdb, on_spark = _run(engines, ansi_sql)
    # m: 12 (id 4), 12 (id 5) then 6: the two 12s; with TOP 3 the three 1s tie for third.
    assert sorted(on_duckdb) == sorted(on_spark) == [(4, 12), (5, 12)]
    ansi_sql = translate(
        "SELECT TOP 20 PERCENT WITH TIES id, m FROM dbo.facts ORDER BY m", "tsql", catalog=CATALOG
    ).ansi_sql
    on_duckdb, on_spark = _run(engines, ansi_sql)
    # ceil(1.6) = 2 rows: the first two by m are 1s, and two more rows tie with them.
    assert sorted(on_duckdb) == sorted(on_spark) == [(2, 1), (3, 1), (8, 1)]


@pytest.mark.parametrize("percent", ["101", "100.5", "(m)"])
def test_tsql_top_percent_outside_0_to_100_is_refused(percent):
    with pytest.raises(TranslationError, match="PERCENT"):
        translate(
            f"SELECT TOP {percent} PERCENT id FROM dbo.facts ORDER BY id", "tsql", catalog=CATALOG
        )


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_top_percent_ordered_by_a_window_value_is_refused_at_render(engine):
    ansi_sql = translate(
        "SELECT TOP 10 PERCENT id, ROW_NUMBER() OVER (ORDER BY id) AS r FROM dbo.facts ORDER BY r",
        "tsql",
        catalog=CATALOG,
    ).ansi_sql
    with pytest.raises(TranslationError, match="window function"):
        render(ansi_sql, engine)


def test_tsql_week_of_an_iso_date_string_and_refusal_of_an_untyped_value():
    ansi_sql = translate(
        "SELECT DATEPART(week, '2024-01-05') AS w FROM dbo.facts", "tsql", catalog=CATALOG
    ).ansi_sql
    assert "CAST('2024-01-05' AS TIMESTAMP)" in ansi_sql
    with pytest.raises(TranslationError, match="not a typed DATE"):
        translate("SELECT DATEPART(week, name) AS w FROM dbo.facts", "tsql", catalog=CATALOG)
