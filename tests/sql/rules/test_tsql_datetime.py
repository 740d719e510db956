"""T-SQL's datetime holds 1/300 s ticks shown as .000 / .003 / .007 (TSQL-DATETIME and
TSQL-GETDATE, sql/rules/tsql_datetime.py): every value the translation gives where T-SQL
gives a datetime is one a datetime holds, the one T-SQL's documentation says, or refused."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import first_values, imported_catalog, rows_on_engines

DDL = """CREATE TABLE dbo.Events (
  id INT NOT NULL, dt DATETIME, dt2 DATETIME2, dt3 DATETIME2(3), sdt SMALLDATETIME,
  d DATE, t TIME
);"""


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("tsql"), "tsql", DDL)


def _ansi(sql: str, catalog=None) -> str:
    return " ".join(translate(sql, "tsql", file="q.sql", catalog=catalog).ansi_sql.split())


# "Rounding of datetime fractional second precision" in "datetime (Transact-SQL)", row by row,
# and the text forms the page lists (ISO 8601 with T, unseparated), with CAST and CONVERT.
DOCUMENTED = [
    ("CAST('1998-01-01 23:59:59.999' AS DATETIME)", "1998-01-02 00:00:00.000"),
    *(
        (f"CAST('1998-01-01 23:59:59.99{d}' AS DATETIME)", "1998-01-01 23:59:59.997")
        for d in (5, 6, 7, 8)
    ),
    *(
        (f"CAST('1998-01-01 23:59:59.99{d}' AS DATETIME)", "1998-01-01 23:59:59.993")
        for d in (2, 3, 4)
    ),
    *(
        (f"CAST('1998-01-01 23:59:59.99{d}' AS DATETIME)", "1998-01-01 23:59:59.990")
        for d in (0, 1)
    ),
    ("CONVERT(DATETIME, '2024-01-01T12:00:00.001')", "2024-01-01 12:00:00.000"),
    ("CAST('20240101 12:00:00.5' AS DATETIME)", "2024-01-01 12:00:00.500"),
    ("CAST(CAST('2024-01-01 12:00:00.0015' AS DATETIME2) AS DATETIME)", "2024-01-01 12:00:00.000"),
    ("CAST('2024-01-01 12:00' AS DATETIME)", "2024-01-01 12:00:00"),
]


@pytest.mark.parametrize(("cast", "literal"), DOCUMENTED)
def test_text_is_rounded_at_translation_as_documented(cast, literal):
    assert _ansi(f"SELECT {cast} AS a") == f"SELECT CAST('{literal}' AS TIMESTAMP) AS \"a\""


def test_a_variable_assigned_text_holds_the_rounded_datetime(catalog):
    sql = "DECLARE @d DATETIME = '2024-01-01 12:00:00.001'; SELECT id FROM dbo.Events WHERE dt = @d"
    assert '"events"."dt" = CAST(\'2024-01-01 12:00:00.000\' AS TIMESTAMP)' in _ansi(sql, catalog)


# Text T-SQL converts to datetime because datetime values stand beside it: the one-line ANSI
# of the query's WHERE or select list holds each rounded literal.
BESIDE = [
    (
        "SELECT id FROM dbo.Events WHERE dt IN ('2024-01-01T12:00:00.001', "
        "'20240101 23:59:59.999')",
        "IN ( CAST('2024-01-01 12:00:00.000' AS TIMESTAMP), "
        "CAST('2024-01-02 00:00:00.000' AS TIMESTAMP) )",
    ),
    (
        "SELECT id FROM dbo.Events WHERE dt = '2024-01-01T12:00:00.005'",
        '"events"."dt" = CAST(\'2024-01-01 12:00:00.007\' AS TIMESTAMP)',
    ),
    (
        "SELECT id FROM dbo.Events WHERE dt BETWEEN '2024-01-01' AND '2024-01-01 12:00:00.002'",
        "BETWEEN CAST('2024-01-01' AS TIMESTAMP) AND CAST('2024-01-01 12:00:00.003' AS TIMESTAMP)",
    ),
    (
        "SELECT ISNULL(dt, '2024-01-01 12:00:00.001') AS a FROM dbo.Events",
        'COALESCE("events"."dt", CAST(\'2024-01-01 12:00:00.000\' AS TIMESTAMP))',
    ),
    (
        "SELECT CASE WHEN id = 1 THEN dt ELSE '2024-01-01 12:00:00.998' END AS a FROM dbo.Events",
        "ELSE CAST('2024-01-01 12:00:00.997' AS TIMESTAMP) END",
    ),
    (
        "SELECT id FROM dbo.Events WHERE GETDATE() > '2024-01-01 12:00:00.001'",
        "> CAST('2024-01-01 12:00:00.000' AS TIMESTAMP)",
    ),
    # a simple CASE compares its operand with each WHEN
    (
        "SELECT CASE dt WHEN '2024-01-01 12:00:00.001' THEN 1 END AS a FROM dbo.Events",
        "WHEN CAST('2024-01-01 12:00:00.000' AS TIMESTAMP) THEN",
    ),
]


@pytest.mark.parametrize(("sql", "rounded"), BESIDE)
def test_text_beside_datetime_values_is_rounded_as_t_sql_converts_it(catalog, sql, rounded):
    assert rounded in _ansi(sql, catalog)


def test_values_on_the_grid_pass_unchanged(catalog):
    sql = "SELECT CAST(dt AS DATETIME) AS a, CAST(sdt AS DATETIME) AS b FROM dbo.Events"
    assert _ansi(sql, catalog) == (
        'SELECT CAST("events"."dt" AS TIMESTAMP) AS "a", CAST("events"."sdt" AS TIMESTAMP) '
        'AS "b" FROM "raw"."events" AS "events"'
    )


REFUSED = [
    ("SELECT CAST('2024-01-01 12:00:00.0001' AS DATETIME) AS a", "1:13", "4 fractional"),
    ("SELECT CAST('01/02/2024' AS DATETIME) AS a", "1:13", "DATEFORMAT"),
    ("SELECT CAST('1700-01-01' AS DATETIME) AS a", "1:13", "outside"),
    ("SELECT CAST('9999-12-31 23:59:59.999' AS DATETIME) AS a", "1:13", "outside"),
    # 1.9 ms: truncated to .001 the table gives .000, the nearest tick is .003
    ("SELECT CAST(CAST('2024-01-01 00:00:00.0019' AS DATETIME2) AS DATETIME) AS a", "1:18", ""),
    ("SELECT CAST(id AS DATETIME) AS a FROM dbo.Events", "1:13", "days since 1900-01-01"),
    ("SELECT CONVERT(DATETIME, t) AS a FROM dbo.Events", "1:26", "type TIME"),
    ("SELECT id FROM dbo.Events WHERE dt IN ('01/02/2024')", "1:40", "DATEFORMAT"),
    ("SELECT id FROM dbo.Events WHERE dt = '2024-01-01T12:00:00.0001'", "1:38", "4 fractional"),
]


@pytest.mark.parametrize(("sql", "place", "why"), REFUSED)
def test_values_a_datetime_does_not_hold_as_documented_are_refused(catalog, sql, place, why):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "tsql", file="q.sql", catalog=catalog)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule in ("TSQL-DATETIME", "TSQL-DATETIME-TEXT")
    assert f"{diagnostic.line}:{diagnostic.col}" == place
    assert why in diagnostic.message


def test_text_beside_a_smalldatetime_is_not_read_as_a_datetime(catalog):
    """T-SQL converts it to smalldatetime (whole minutes: 12:00:30 is 12:01), not datetime
    (TSQL-SMALLDATETIME-TEXT, tests/sql/rules/test_tsql_smalldatetime.py)."""
    sql = "SELECT id FROM dbo.Events WHERE sdt = '2024-01-01 12:00:30'"
    assert "CAST('2024-01-01 12:01:00' AS TIMESTAMP)" in _ansi(sql, catalog)


def _at(micros: int, second: int = 0) -> dt.datetime:
    return dt.datetime(2024, 1, 1, 12, 0, second) + dt.timedelta(microseconds=micros)


# A DATETIME2 value and the datetime it becomes: where T-SQL's documented truncation past
# the millisecond and its rounding to ticks agree.
ROUNDED = [
    (_at(1000), _at(0)),
    (_at(1500), _at(0)),
    (_at(2000), _at(3000)),
    (_at(4999), _at(3000)),
    (_at(5000), _at(7000)),
    (_at(8300), _at(7000)),
    (_at(9000), _at(10000)),
    (_at(123456), _at(123000)),
    (dt.datetime(2024, 1, 1, 23, 59, 59, 999000), dt.datetime(2024, 1, 2)),
]


def _timestamp_values(values) -> str:
    rows = ", ".join(f"({i}, CAST('{v.isoformat(sep=' ')}' AS TIMESTAMP))" for i, v in values)
    return f"SELECT * FROM (VALUES {rows}) AS t(id, dt2)"


def test_timestamps_are_rounded_to_the_grid_on_both_engines(spark_engine, catalog):
    ansi = _ansi("SELECT id, CAST(dt2 AS DATETIME) AS a FROM dbo.Events", catalog)
    events = _timestamp_values([(i, value) for i, (value, _) in enumerate(ROUNDED)])
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=events)
    want = sorted((i, rounded) for i, (_, rounded) in enumerate(ROUNDED))
    assert on_duckdb == on_spark == want


def _raises_on_both_engines(spark_engine, ansi: str, events: str) -> None:
    query = ansi.replace('"raw"."events" AS "events"', f'({events}) AS "events"')
    for result in first_values(query, spark_engine.session()):
        assert isinstance(result, Exception) and "TSQL-DATETIME" in str(result), result


@pytest.mark.parametrize(
    "value",
    [_at(1900), _at(8500), dt.datetime(1700, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999000)],
)
def test_values_the_documentation_leaves_open_or_out_of_range_stop_the_query(
    spark_engine, catalog, value
):
    ansi = _ansi("SELECT id, CAST(dt2 AS DATETIME) AS a FROM dbo.Events", catalog)
    _raises_on_both_engines(spark_engine, ansi, _timestamp_values([(1, value)]))


def test_a_date_before_1753_stops_the_query(spark_engine, catalog):
    ansi = _ansi("SELECT id, CAST(d AS DATETIME) AS a FROM dbo.Events", catalog)
    fine = "SELECT * FROM (VALUES (1, DATE '2024-02-29')) AS t(id, d)"
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=fine)
    assert on_duckdb == on_spark == [(1, dt.datetime(2024, 2, 29))]
    early = "SELECT * FROM (VALUES (1, DATE '1752-12-31')) AS t(id, d)"
    _raises_on_both_engines(spark_engine, ansi, early)


def test_getdate_is_the_clock_floored_to_10_ms_and_sysdatetime_keeps_six_digits(spark_engine):
    """Floored to the tick that starts its 10 ms: a value a datetime holds, never later than
    the reading, the same value as a DATETIME2."""
    ansi = _ansi(
        "SELECT GETDATE() AS g, CURRENT_TIMESTAMP AS c, SYSDATETIME() AS s, "
        "CAST(GETDATE() AS DATETIME2) AS w"
    )
    assert 'CAST(CURRENT_TIMESTAMP AS TIMESTAMP) AS "s"' in ansi and "RAISE_ERROR" not in ansi
    query = ansi.replace("SELECT ", "SELECT 1 AS id, ", 1) + ' FROM (VALUES (1)) AS "t"(x)'
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), query)
    for _, getdate, current, reading, widened in (*on_duckdb, *on_spark):
        floored = reading - dt.timedelta(microseconds=reading.microsecond % 10_000)
        # datetime and datetime2 have no zone: neither has the clock (SESSION-TIME)
        values = (getdate, current, reading, widened)
        assert all(v.tzinfo is None for v in values)
        assert {getdate, current, widened} == {floored}


# A datetime as a DATETIME2 of more than three digits: T-SQL's value is the exact tick
# (.003 is .0033333), which six digits hold only for .xx0.
def test_a_datetime_widened_to_datetime2_is_exact_or_stops(spark_engine, catalog):
    ansi = _ansi(
        "SELECT id, CAST(dt AS DATETIME2) AS a, CAST(dt AS DATETIME2(3)) AS b FROM dbo.Events",
        catalog,
    )
    exact = "SELECT * FROM (VALUES (1, CAST('2024-01-01 12:00:00.120' AS TIMESTAMP))) AS t(id, dt)"
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=exact)
    assert on_duckdb == on_spark == [(1, _at(120_000), _at(120_000))]
    tick = "SELECT * FROM (VALUES (1, CAST('2024-01-01 12:00:00.123' AS TIMESTAMP))) AS t(id, dt)"
    query = ansi.replace('"raw"."events" AS "events"', f'({tick}) AS "events"')
    for result in first_values(query, spark_engine.session()):
        assert isinstance(result, Exception) and "TSQL-DATETIME-TO-DATETIME2" in str(result)


def test_a_union_of_datetime_and_datetime2_guards_the_datetime_column(catalog):
    ansi = _ansi("SELECT dt AS a FROM dbo.Events UNION ALL SELECT dt2 FROM dbo.Events", catalog)
    assert "IN (3, 7) THEN RAISE_ERROR( 'TSQL-DATETIME-TO-DATETIME2:" in ansi
    same = _ansi("SELECT dt AS a FROM dbo.Events UNION ALL SELECT dt3 FROM dbo.Events", catalog)
    assert "RAISE_ERROR" not in same


def test_a_literal_datetime_widened_at_a_repeating_tick_is_refused():
    with pytest.raises(TranslationError) as raised:
        translate(
            "SELECT CAST(CAST('2024-01-01 12:00:00.002' AS DATETIME) AS DATETIME2) AS a",
            "tsql",
            file="q.sql",
        )
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == (
        "TSQL-DATETIME-TO-DATETIME2",
        1,
        18,
    )


# A datetime compared with a datetime2 is its exact tick (.003 is .00333..., .007 .00666...,
# compatibility level 130 and above): each comparison below, on both engines, against that
# exact value worked out here in fractions of a second.
def _tick(shown: dt.datetime) -> Fraction:
    """The exact instant (seconds into the day) of a datetime shown as ``shown``."""
    ticks = round(Fraction(shown.microsecond, 1_000_000) * 300)
    return shown.hour * 3600 + shown.minute * 60 + shown.second + Fraction(ticks, 300)


def _instant(value: dt.datetime) -> Fraction:
    return value.hour * 3600 + value.minute * 60 + value.second + Fraction(value.microsecond, 10**6)


COMPARISONS = {
    "eq": ("dt = dt2", lambda a, b: a == b),
    "ne": ("dt <> dt2", lambda a, b: a != b),
    "lt": ("dt < dt2", lambda a, b: a < b),
    "le": ("dt <= dt2", lambda a, b: a <= b),
    "gt": ("dt > dt2", lambda a, b: a > b),
    "ge": ("dt >= dt2", lambda a, b: a >= b),
    "rlt": ("dt2 < dt", lambda a, b: b < a),
    "rge": ("dt2 >= dt", lambda a, b: b >= a),
    "btw": ("dt BETWEEN dt2 AND dt3", None),
    "inn": ("dt IN (dt2, dt3)", None),
    # a DATETIME2 literal: .0030000, below the tick .00333...
    "lit": ("dt BETWEEN dt2 AND CAST('2024-01-01 12:00:00.003' AS DATETIME2)", None),
}
SHOWN = [_at(0), _at(3000), _at(7000), _at(997_000, second=59)]
# Each datetime beside the datetime2 values at, around and between its tick's microseconds.
PAIRS = [
    (shown, shown + dt.timedelta(microseconds=delta))
    for shown in SHOWN
    for delta in (-334, -333, -1, 0, 1, 333, 334)
]
PAIRS += [(None, _at(0)), (_at(3000), None)]


def _value(value: dt.datetime | None) -> str:
    return (
        "CAST(NULL AS TIMESTAMP)"
        if value is None
        else f"CAST('{value.isoformat(sep=' ')}' AS TIMESTAMP)"
    )


def _expected(name: str, shown: dt.datetime | None, other: dt.datetime | None) -> int | None:
    if name == "lit" and shown is not None and other is None:
        # NULL AND (tick <= .003): false where the upper bound fails
        return None if _tick(shown) <= _instant(_at(3000)) else 0
    if shown is None or other is None:
        return None
    a, b = _tick(shown), _instant(other)
    if name == "btw":  # dt3 is dt2 + 1 us
        return int(b <= a <= b + Fraction(1, 10**6))
    if name == "lit":
        return int(b <= a <= _instant(_at(3000)))
    if name == "inn":
        return int(a in (b, b + Fraction(1, 10**6)))
    return int(COMPARISONS[name][1](a, b))


def test_a_datetime_compared_with_a_datetime2_is_its_exact_tick_on_both_engines(
    spark_engine, catalog
):
    columns = ", ".join(
        f"CASE WHEN {sql} THEN 1 WHEN NOT ({sql}) THEN 0 END AS {name}"
        for name, (sql, _) in COMPARISONS.items()
    )
    ansi = _ansi(f"SELECT id, {columns}, NULLIF(dt, dt2) AS nf FROM dbo.Events", catalog)
    rows = ", ".join(
        f"({i}, {_value(shown)}, {_value(other)}, "
        f"{_value(other and other + dt.timedelta(microseconds=1))})"
        for i, (shown, other) in enumerate(PAIRS)
    )
    events = f"SELECT * FROM (VALUES {rows}) AS t(id, dt, dt2, dt3)"
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=events)
    want = (
        (
            i,
            *(_expected(name, shown, other) for name in COMPARISONS),
            # NULLIF: NULL only where T-SQL's comparison is true
            None if _expected("eq", shown, other) == 1 or shown is None else shown,
        )
        for i, (shown, other) in enumerate(PAIRS)
    )
    assert on_duckdb == on_spark == sorted(want, key=repr)


@pytest.mark.parametrize(
    ("sql", "compared"),
    [
        (
            "SELECT e.id FROM dbo.Events AS e CROSS APPLY (SELECT f.dt2 AS x FROM dbo.Events AS f "
            "WHERE f.id = e.id) AS v WHERE e.dt <= v.x",
            '<= "v"."x"',
        ),
        # DATEADD has its date argument's type: a datetime2, a datetime
        ("SELECT id FROM dbo.Events WHERE dt <= DATEADD(day, -1, SYSDATETIME())", "<= CAST("),
        ("SELECT id FROM dbo.Events WHERE DATEADD(hour, 2, dt) <= dt2", '<= "events"."dt2"'),
    ],
)
def test_a_datetime2_behind_a_derived_table_or_dateadd_is_compared_with_the_tick(
    catalog, sql, compared
):
    ansi = _ansi(sql, catalog)
    assert "THEN 334 WHEN" in ansi and compared in ansi.split("THEN 334 WHEN")[-1]


def test_a_join_on_a_datetime_and_a_datetime2_compares_the_exact_tick(catalog):
    ansi = _ansi("SELECT e.id FROM dbo.Events AS e JOIN dbo.Events AS f ON e.dt = f.dt2", catalog)
    assert "THEN 333 WHEN" in ansi and "THEN 334 WHEN" in ansi and '= "f"."dt2"' in ansi


def test_text_in_a_between_beside_a_datetime2_is_a_datetime2(catalog):
    """All three take the highest type: the datetime's tick is compared with the text's value
    too (by its upper neighbour, .003334 for .003)."""
    ansi = _ansi("SELECT id FROM dbo.Events WHERE dt BETWEEN dt2 AND '2024-01-02'", catalog)
    upper = ansi.split('>= "events"."dt2" AND')[-1]
    assert "THEN 334" in upper and "<= CAST('2024-01-02' AS TIMESTAMP)" in upper


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM dbo.Events WHERE dt = sdt OR dt = GETDATE() OR dt2 = GETDATE()",
        "SELECT id FROM dbo.Events WHERE dt = d OR dt BETWEEN sdt AND '2024-01-01' OR dt IN (sdt)",
        # DATEADD of a datetime is a datetime
        "SELECT id FROM dbo.Events WHERE dt < DATEADD(day, 1, dt) OR dt2 < DATEADD(day, 1, GETDATE())",
        "SELECT e.id FROM dbo.Events AS e CROSS APPLY (SELECT f.dt AS x FROM dbo.Events AS f "
        "WHERE f.id = e.id) AS v WHERE e.dt = v.x",
    ],
)
def test_datetimes_beside_values_a_datetime_holds_compare_as_shown(catalog, sql):
    assert "333" not in _ansi(sql, catalog)


# CASE, COALESCE and IIF of a datetime and a DATETIME2 of more than three digits give a
# datetime2 (the datetime widened: exact for .xx0, a guard for .xx3 / .xx7); ISNULL gives its
# first argument's type.
BRANCHES = [
    ("CASE WHEN id = 1 THEN dt ELSE dt2 END", "widened"),
    ("COALESCE(dt, dt2)", "widened"),
    ("IIF(id = 1, dt2, dt)", "widened"),
    ("ISNULL(dt2, dt)", "widened"),
    ("ISNULL(dt, dt2)", "rounded"),
    ("CASE WHEN id = 1 THEN dt ELSE dt3 END", "shown"),
    ("ISNULL(dt3, dt)", "shown"),
]


def test_branches_of_a_datetime_and_a_datetime2_are_widened_or_rounded(spark_engine, catalog):
    for sql, kind in BRANCHES:
        column = _ansi(f"SELECT {sql} AS b FROM dbo.Events", catalog)
        assert ("TSQL-DATETIME-TO-DATETIME2" in column) == (kind == "widened"), sql
        assert ("TSQL-DATETIME:" in column) == (kind == "rounded"), sql
    ansi = _ansi(
        "SELECT id, "
        + ", ".join(f"{sql} AS b{i}" for i, (sql, _) in enumerate(BRANCHES))
        + " FROM dbo.Events",
        catalog,
    )
    # .xx0 datetimes (and a datetime2 on the grid) give their values on both engines
    rows = (
        f"(1, {_value(_at(120_000))}, CAST(NULL AS TIMESTAMP), CAST(NULL AS TIMESTAMP)), "
        f"(2, CAST(NULL AS TIMESTAMP), {_value(_at(4000))}, {_value(_at(7000))})"
    )
    events = f"SELECT * FROM (VALUES {rows}) AS t(id, dt, dt2, dt3)"
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=events)
    assert (
        on_duckdb
        == on_spark
        == [
            (1, _at(120_000), _at(120_000), None, *[_at(120_000)] * 4),
            (2, _at(4000), _at(4000), None, _at(4000), _at(3000), _at(7000), _at(7000)),
        ]
    )
    tick = f"SELECT * FROM (VALUES (1, {_value(_at(3000))}, {_value(_at(1))}, {_value(_at(1))})) AS t(id, dt, dt2, dt3)"
    query = ansi.replace('"raw"."events" AS "events"', f'({tick}) AS "events"')
    for result in first_values(query, spark_engine.session()):
        assert isinstance(result, Exception) and "TSQL-DATETIME-TO-DATETIME2" in str(result)


@pytest.mark.parametrize(
    ("sql", "rule"),
    [
        (
            "SELECT id FROM dbo.Events WHERE dt IN (SELECT dt2 FROM dbo.Events)",
            "TSQL-DATETIME-COMPARED",
        ),
        # a CASE of a datetime and a datetime2 (T-SQL: a datetime2) beside a datetime
        (
            "SELECT id FROM dbo.Events WHERE dt < CASE WHEN id = 1 THEN dt2 ELSE dt END",
            "TSQL-DATETIME-COMPARED",
        ),
        (
            "SELECT NULLIF(dt, CASE WHEN id = 1 THEN dt2 ELSE dt END) AS a FROM dbo.Events",
            "TSQL-DATETIME-BESIDE-DATETIME2",
        ),
        (
            "SELECT CASE dt WHEN dt2 THEN 1 END AS a FROM dbo.Events",
            "TSQL-DATETIME-BESIDE-DATETIME2",
        ),
    ],
)
def test_comparisons_of_the_exact_tick_not_translated_are_refused(catalog, sql, rule):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "tsql", file="q.sql", catalog=catalog)
    assert [d.rule for d in raised.value.diagnostics] == [rule]


@pytest.mark.parametrize(
    ("sql", "place"),
    [
        ("SELECT CAST('2024-01-01 12:00:00.1234567' AS DATETIME2) AS a", "1:13"),
        ("SELECT CONVERT(DATETIME2(6), '2024-01-01 12:00:00.1234567') AS a", "1:30"),
        (
            "DECLARE @v DATETIME2 = '2024-01-01 12:00:00.0000001'; "
            "SELECT id FROM dbo.Events WHERE dt2 = @v",
            "1:24",
        ),
    ],
)
def test_datetime2_text_with_a_seventh_digit_is_refused(catalog, sql, place):
    """T-SQL keeps (DATETIME2(6): rounds) it; the engines' six digits would drop it."""
    with pytest.raises(TranslationError) as raised:
        translate(sql, "tsql", file="q.sql", catalog=catalog)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, f"{diagnostic.line}:{diagnostic.col}") == (
        "TSQL-DATETIME2-DIGITS",
        place,
    )


def test_datetime2_text_of_six_digits_or_a_zero_seventh_is_kept():
    assert _ansi("SELECT CAST('2024-01-01 12:00:00.1234560' AS DATETIME2) AS a") == (
        "SELECT CAST('2024-01-01 12:00:00.1234560' AS TIMESTAMP) AS \"a\""
    )


@pytest.mark.parametrize(
    ("sql", "guarded"),
    [
        ("SELECT CAST(DATEADD(day, 1, dt) AS DATETIME2) AS a FROM dbo.Events", True),
        (
            "SELECT DATEADD(day, 1, dt) AS a FROM dbo.Events UNION ALL SELECT dt2 FROM dbo.Events",
            True,
        ),
        (
            "SELECT dt AS a FROM dbo.Events UNION ALL SELECT DATEADD(day, 1, dt) FROM dbo.Events",
            False,
        ),
    ],
)
def test_dateadd_of_a_datetime_is_a_datetime_where_it_is_widened(catalog, sql, guarded):
    """DATEADD has its date argument's type: widened to a DATETIME2 its .xx3 / .xx7 stop at
    TSQL-DATETIME-TO-DATETIME2's guard; beside a datetime it needs none."""
    assert ("TSQL-DATETIME-TO-DATETIME2" in _ansi(sql, catalog)) == guarded
