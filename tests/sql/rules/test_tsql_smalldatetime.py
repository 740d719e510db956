"""T-SQL's smalldatetime holds whole minutes, a value 29.998 seconds or less past its minute
rounded down and 29.999 or more up (TSQL-SMALLDATETIME, TSQL-SMALLDATETIME-TEXT,
sql/rules/tsql_smalldatetime.py): every way a value reaches one gives the minute T-SQL's
documentation says, on both engines, or is refused where it says nothing."""

from __future__ import annotations

import datetime as dt

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate
from tests.sql.engine_tables import first_values, imported_catalog, rows_on_engines

DDL = """CREATE TABLE dbo.Events (
  id INT NOT NULL, dt DATETIME, dt2 DATETIME2, sdt SMALLDATETIME, d DATE, t TIME,
  dto DATETIMEOFFSET, txt VARCHAR(30)
);"""


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("tsql"), "tsql", DDL)


def _ansi(sql: str, catalog=None) -> str:
    return " ".join(translate(sql, "tsql", file="q.sql", catalog=catalog).ansi_sql.split())


# "smalldatetime (Transact-SQL)": its examples, its 29.998 / 29.999 rule, with CAST and CONVERT.
DOCUMENTED = [
    ("CAST('2007-05-08 12:35:29' AS SMALLDATETIME)", "2007-05-08 12:35:00"),
    ("CAST('2007-05-08 12:35:30' AS SMALLDATETIME)", "2007-05-08 12:36:00"),
    ("CAST('2007-05-08 12:59:59.998' AS SMALLDATETIME)", "2007-05-08 13:00:00"),
    ("CONVERT(SMALLDATETIME, '2007-05-09 23:59:59')", "2007-05-10 00:00:00"),
    ("CAST('2024-01-01 10:00:29.998' AS SMALLDATETIME)", "2024-01-01 10:00:00"),
    ("CAST('2024-01-01T10:00:29.999' AS SMALLDATETIME)", "2024-01-01 10:01:00"),
    ("CAST(CAST('2024-01-01 10:00:29.9995' AS DATETIME2) AS SMALLDATETIME)", "2024-01-01 10:01:00"),
]


@pytest.mark.parametrize(("cast", "literal"), DOCUMENTED)
def test_text_is_rounded_to_its_minute_at_translation(cast, literal):
    assert _ansi(f"SELECT {cast} AS a") == f"SELECT CAST('{literal}' AS TIMESTAMP) AS \"a\""


def _at(minute: int, second: int = 0, micros: int = 0) -> dt.datetime:
    return dt.datetime(2024, 1, 1, 10, minute, second, micros)


# A DATETIME2 value and the minute it becomes; the DATETIME value of the same row is the
# value as shown (on its grid: .997 is the last one below 29.998).
ROUNDED = [
    (_at(0, 0), _at(0)),
    (_at(0, 29, 998_000), _at(0)),
    (_at(0, 29, 999_000), _at(1)),
    (_at(0, 30), _at(1)),
    (_at(0, 59, 999_999), _at(1)),
    (dt.datetime(2024, 1, 1, 23, 59, 30), dt.datetime(2024, 1, 2)),
]
DATETIMES = [_at(0, 29, 997_000), _at(0, 30), _at(5, 29, 993_000), _at(5, 59, 997_000)]
DATETIME_MINUTES = [_at(0), _at(1), _at(5), _at(6)]


def _timestamp(value: dt.datetime | None) -> str:
    return "CAST(NULL AS TIMESTAMP)" if value is None else f"CAST('{value}' AS TIMESTAMP)"


def test_values_are_rounded_to_their_minute_on_both_engines(spark_engine, catalog):
    """CAST of a DATETIME2, a DATETIME and a DATE, an INSERT into a SMALLDATETIME column of a
    temporary table, text beside a smalldatetime (=, <, BETWEEN, IN, ISNULL, CASE, a simple
    CASE's WHEN) and
    ISNULL(smalldatetime, datetime2)."""
    beside = {
        "eq": "sdt = '2024-01-01 10:00:30'",
        "lt": "sdt < '2024-01-01 10:00:30'",
        "btw": "sdt BETWEEN '2024-01-01 10:00:29' AND '2024-01-01 10:00:31'",
        "inn": "sdt IN ('2024-01-01 10:05:29.999')",
        "add": "DATEADD(minute, 1, sdt) = '2024-01-01 10:01:45'",
    }
    simple = "CASE sdt WHEN '2024-01-01 10:00:30' THEN 1 ELSE 0 END AS sc"
    tests = ", ".join(f"CASE WHEN {c} THEN 1 ELSE 0 END AS {n}" for n, c in beside.items())
    ansi = _ansi(
        "SELECT id, CAST(dt2 AS SMALLDATETIME) AS a, CONVERT(SMALLDATETIME, dt) AS b, "
        f"CAST(d AS SMALLDATETIME) AS c, {tests}, {simple}, ISNULL(sdt, '2024-01-01 10:07:31') AS i, "
        "CASE WHEN id < 0 THEN sdt ELSE '2024-01-01 10:07:29' END AS w, "
        "ISNULL(sdt, dt2) AS j FROM dbo.Events",
        catalog,
    )
    count = max(len(ROUNDED), len(DATETIMES))
    sdts = [_at(0), _at(1), _at(5), _at(6), None, None]
    rows = ", ".join(
        f"({i}, {_timestamp(ROUNDED[i][0])}, "
        f"{_timestamp(DATETIMES[i] if i < len(DATETIMES) else None)}, DATE '2024-01-0{i + 1}', "
        f"{_timestamp(sdts[i])})"
        for i in range(count)
    )
    events = f"SELECT * FROM (VALUES {rows}) AS t(id, dt2, dt, d, sdt)"
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, events=events)
    want = []
    for i in range(count):
        sdt = sdts[i]
        checks = (
            (
                sdt == _at(1),
                sdt < _at(1),
                _at(0) <= sdt <= _at(1),
                sdt == _at(6),
                *[sdt == _at(1)] * 2,
            )
            if sdt is not None
            else (False,) * 6
        )
        want.append(
            (
                i,
                ROUNDED[i][1],
                DATETIME_MINUTES[i] if i < len(DATETIMES) else None,
                dt.datetime(2024, 1, i + 1),
                *(int(c) for c in checks),
                sdt or _at(8),
                _at(7),
                sdt or ROUNDED[i][1],  # ISNULL: the first argument's type
            )
        )
    assert on_duckdb == on_spark == sorted(want, key=repr)
    # INSERT INTO a SMALLDATETIME column: the same conversion
    script = (
        "CREATE TABLE #t (id INT, x SMALLDATETIME); "
        "INSERT INTO #t SELECT id, dt2 FROM dbo.Events; SELECT id, x FROM #t"
    )
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), _ansi(script, catalog), events=events
    )
    assert on_duckdb == on_spark == [(i, rounded) for i, (_, rounded) in enumerate(ROUNDED)]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (_at(0, 29, 998_500), "between 29.998 and 29.999"),
        (dt.datetime(1899, 12, 31, 23, 59), "outside"),
        (dt.datetime(2079, 6, 6, 23, 59, 30), "outside"),
    ],
)
def test_values_the_page_leaves_open_or_out_of_range_stop_the_query(
    spark_engine, catalog, value, why
):
    ansi = _ansi("SELECT CAST(dt2 AS SMALLDATETIME) AS a FROM dbo.Events", catalog)
    row = f"SELECT * FROM (VALUES (1, {_timestamp(value)})) AS t(id, dt2)"
    query = ansi.replace('"raw"."events" AS "events"', f'({row}) AS "events"')
    for result in first_values(query, spark_engine.session()):
        assert isinstance(result, Exception), result
        assert "TSQL-SMALLDATETIME" in str(result) and why in str(result)


REFUSED = [
    ("SELECT CAST('2024-01-01 10:00:29.9985' AS SMALLDATETIME) AS a", "TSQL-SMALLDATETIME", "1:13"),
    ("SELECT CAST('2079-06-06 23:59:30' AS SMALLDATETIME) AS a", "TSQL-SMALLDATETIME", "1:13"),
    ("SELECT CAST('1899-12-31 23:59:30' AS SMALLDATETIME) AS a", "TSQL-SMALLDATETIME", "1:13"),
    (
        "SELECT CAST(CAST('2024-01-01 10:00:29.9985' AS DATETIME2) AS SMALLDATETIME) AS a",
        "TSQL-SMALLDATETIME",
        "1:18",
    ),
    ("SELECT CAST(txt AS SMALLDATETIME) AS a FROM dbo.Events", "TSQL-SMALLDATETIME", "1:13"),
    (
        "SELECT CONVERT(SMALLDATETIME, dto) AS a FROM dbo.Events",
        "TSQL-DATETIMEOFFSET-LOCAL",
        "1:31",
    ),
    ("SELECT CAST(t AS SMALLDATETIME) AS a FROM dbo.Events", "TSQL-SMALLDATETIME", "1:13"),
    ("SELECT id FROM dbo.Events WHERE sdt = '01/02/2024'", "TSQL-SMALLDATETIME-TEXT", "1:39"),
    (
        "SELECT id FROM dbo.Events WHERE sdt IN ('2024-01-01 10:00:30.0001')",
        "TSQL-SMALLDATETIME-TEXT",
        "1:41",
    ),
    ("SELECT DATEADD(second, 30, sdt) AS a FROM dbo.Events", "DATE-ADD", "1:8"),
]


@pytest.mark.parametrize(("sql", "rule_id", "place"), REFUSED)
def test_what_the_page_does_not_document_is_refused_where_it_is(catalog, sql, rule_id, place):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "tsql", file="q.sql", catalog=catalog)
    [diagnostic] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (diagnostic.rule, f"{diagnostic.line}:{diagnostic.col}") == (rule_id, place)


def test_whole_minutes_added_as_seconds_and_smalldatetimes_beside_wider_types_pass(catalog):
    ansi = _ansi(
        "SELECT DATEADD(second, 120, sdt) AS a, CAST(sdt AS SMALLDATETIME) AS b FROM dbo.Events "
        "WHERE sdt = dt2 OR sdt < dt",
        catalog,
    )
    assert "RAISE_ERROR" not in ansi and '"events"."sdt" = "events"."dt2"' in ansi
