"""T-SQL's datetimeoffset is an instant the lake holds without its offset
(sql/rules/tsql_datetimeoffset.py): compared as an instant with datetime2, smalldatetime,
date and text (which T-SQL gives the offset +00:00, or the text's own), on both engines;
read in its own offset (converted to a type without a zone, its parts) it is refused, where
it stands. T-SQL's UTC clocks, GETUTCDATE() (datetime) and SYSUTCDATETIME() (datetime2(7)),
are UTC's date and time without a zone, the engines' sessions being UTC."""

from __future__ import annotations

import datetime as dt

import pytest

from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import imported_catalog

DDL = """CREATE TABLE dbo.Events (
  id INT NOT NULL, dto DATETIMEOFFSET, dt2 DATETIME2, sdt SMALLDATETIME, d DATE, dt DATETIME
);"""
UTC = dt.UTC


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("tsql"), "tsql", DDL)


def _ansi(sql: str, catalog=None) -> str:
    return " ".join(translate(sql, "tsql", file="q.sql", catalog=catalog).ansi_sql.split())


# Each row: a datetimeoffset (its text with its offset, as T-SQL shows it) and the values
# beside it. 10:00 +02:00 is 08:00 UTC.
ROWS = [
    (1, "2024-01-01 10:00:00+02:00", "2024-01-01 08:00:00", "2024-01-01 08:00:00", "2024-01-01"),
    (2, "2024-01-01 00:30:00+01:00", "2024-01-01 00:30:00", "2024-01-01 00:30:00", "2024-01-01"),
    (3, "2023-12-31 23:00:00-01:00", "2024-01-01 00:00:00", "2024-01-01 00:01:00", "2024-01-01"),
    (4, None, "2024-01-01 00:00:00", None, "2024-01-01"),
]


def _instant(text: str | None) -> dt.datetime | None:
    return None if text is None else dt.datetime.fromisoformat(text).astimezone(UTC)


def _wall(text: str | None) -> dt.datetime | None:
    return None if text is None else dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_a_datetimeoffset_compares_as_its_utc_instant_on_both_engines(spark_engine, catalog):
    """T-SQL converts the datetime2, smalldatetime, date and text beside it to datetimeoffset
    (+00:00 where no offset is written) and compares in UTC."""
    comparisons = {
        "eq2": "dto = dt2",
        "lts": "dto < sdt",
        "ged": "dto >= d",
        "txt": "dto = '2024-01-01 10:00:00 +02:00'",
        "btw": "dto BETWEEN '2024-01-01' AND '2024-01-01T00:30:00+01:00'",
        "inz": "dto IN ('2024-01-01T00:00:00Z', '2024-01-01T08:00:00')",
    }
    simple = "CASE dto WHEN '2024-01-01T01:00:00+01:00' THEN 1 ELSE 0 END AS sc"
    columns = ", ".join(f"CASE WHEN {c} THEN 1 ELSE 0 END AS {n}" for n, c in comparisons.items())
    ansi = _ansi(f"SELECT id, {columns}, {simple}, ISNULL(dto, dt2) AS n FROM dbo.Events", catalog)
    values = ", ".join(
        f"({i}, "
        + (
            f"CAST('{o}' AS TIMESTAMP WITH TIME ZONE)"
            if o
            else "CAST(NULL AS TIMESTAMP WITH TIME ZONE)"
        )
        + f", CAST('{w}' AS TIMESTAMP), "
        + (f"CAST('{s}' AS TIMESTAMP)" if s else "CAST(NULL AS TIMESTAMP)")
        + f", DATE '{d}')"
        for i, o, w, s, d in ROWS
    )
    events = f"SELECT * FROM (VALUES {values}) AS t(id, dto, dt2, sdt, d)"
    query = ansi.replace('"raw"."events" AS "events"', f'({events}) AS "events"')
    with connect_duckdb() as con:
        on_duckdb = sorted(con.sql(render(query, "duckdb")).fetchall())
    on_spark = sorted(
        tuple(r) for r in spark_engine.session().sql(render(query, "spark")).collect()
    )
    want = []
    for i, o, w, s, d in ROWS:
        instant, wall, small = _instant(o), _wall(w), _wall(s)
        midnight = _wall(f"{d} 00:00:00")
        if instant is None:
            checks = (0,) * 7
        else:
            checks = (
                instant == wall,
                small is not None and instant < small,
                instant >= midnight,
                instant == _instant("2024-01-01 10:00:00+02:00"),
                _wall("2024-01-01 00:00:00") <= instant <= _instant("2024-01-01 00:30:00+01:00"),
                instant in (_wall("2024-01-01 00:00:00"), _wall("2024-01-01 08:00:00")),
                instant == _wall("2024-01-01 00:00:00"),
            )
        want.append((i, *(int(c) for c in checks), instant or wall))
    # DuckDB gives instants in UTC, Spark the session's (UTC) date and time without a zone
    assert on_duckdb == want
    assert on_spark == [(*r[:-1], r[-1].replace(tzinfo=None)) for r in want]


REFUSED = [
    ("SELECT CAST(dto AS DATETIME2) AS a FROM dbo.Events", "1:13"),
    ("SELECT CONVERT(DATE, dto) AS a FROM dbo.Events", "1:22"),
    ("SELECT YEAR(dto) AS a FROM dbo.Events", "1:13"),
    # through the values that are datetimeoffsets still
    ("SELECT CAST(COALESCE(dto, dt2) AS DATE) AS a FROM dbo.Events", "1:22"),
    ("SELECT DATEPART(hour, dto) AS a FROM dbo.Events", "1:23"),
    ("SELECT ISNULL(dt2, dto) AS a FROM dbo.Events", "1:20"),
    ("SELECT id FROM dbo.Events WHERE dto < dt", "1:33"),
    ("SELECT COALESCE(dto, dt) AS a FROM dbo.Events", "1:17"),
    ("SELECT dto AS a FROM dbo.Events UNION ALL SELECT dt FROM dbo.Events", "1:50"),
    (
        "CREATE TABLE #t (x DATETIME2); INSERT INTO #t SELECT dto FROM dbo.Events; "
        "SELECT x FROM #t",
        "1:54",
    ),
    (
        "SELECT id FROM (SELECT id, dto FROM dbo.Events) AS v WHERE CAST(v.dto AS DATE) > '2024-01-01'",
        "1:65",
    ),
]


@pytest.mark.parametrize(("sql", "place"), REFUSED)
def test_a_datetimeoffset_read_in_its_own_offset_is_refused_where_it_is(catalog, sql, place):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "tsql", file="q.sql", catalog=catalog)
    found = [d for d in raised.value.diagnostics if d.rule == "TSQL-DATETIMEOFFSET-LOCAL"]
    assert [f"{d.line}:{d.col}" for d in found] == [place]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2024-01-01 +02:00", "a date with an offset and no time"),
        ("2024-01-01T10:00:00 +02:00", "no space before the offset"),
        ("2024-01-01 10:00:00 +14:30", "outside -14:00 to +14:00"),
        ("01/02/2024 10:00", "DATEFORMAT"),
    ],
)
def test_text_beside_a_datetimeoffset_that_is_not_read_here_is_refused(catalog, text, why):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT id FROM dbo.Events WHERE dto = '{text}'", "tsql", catalog=catalog)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == ("TSQL-DATETIMEOFFSET-TEXT", 1, 39)
    assert why in diagnostic.message


def test_utc_clocks_read_utc_without_a_zone_on_both_engines(spark_engine):
    """GETUTCDATE() is a datetime: UTC's reading floored to the tick that starts its 10 ms,
    as GETDATE() is; SYSUTCDATETIME() a datetime2(7): the reading's six digits. No
    SESSION-TIME warning: they depend on no zone of the legacy server."""
    translated = translate(
        "SELECT 1 AS id, GETUTCDATE() AS g, SYSUTCDATETIME() AS s", "tsql", file="q.sql"
    )
    assert not [d for d in translated.diagnostics if d.rule == "SESSION-TIME"]
    query = translated.ansi_sql
    with connect_duckdb() as con:
        on_duckdb = con.sql(render(query, "duckdb")).fetchall()
    on_spark = [tuple(r) for r in spark_engine.session().sql(render(query, "spark")).collect()]
    now = dt.datetime.now(UTC).replace(tzinfo=None)
    for _, getutcdate, sysutcdatetime in (*on_duckdb, *on_spark):
        assert getutcdate.tzinfo is None and sysutcdatetime.tzinfo is None
        assert getutcdate.microsecond % 10_000 == 0
        assert dt.timedelta(0) <= sysutcdatetime - getutcdate < dt.timedelta(milliseconds=10)
        assert abs(sysutcdatetime - now) < dt.timedelta(minutes=5)
