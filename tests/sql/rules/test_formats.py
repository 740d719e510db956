"""Format strings compile element by element: BigQuery FORMAT_DATE / FORMAT_DATETIME, T-SQL
CONVERT styles, Oracle-style models with month and day names, printed alike on DuckDB and
Spark and as the source dialect documents them (expected texts computed here in Python)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

CATALOG = Catalog(
    tables={"raw.moments": {"id": "BIGINT", "d": "DATE", "ts": "TIMESTAMP"}},
    legacy={
        "bigquery": {("p", "s", "moments"): "raw.moments"},
        "tsql": {("dbo", "moments"): "raw.moments"},
        "oracle": {("S", "MOMENTS"): "raw.moments"},
        "snowflake": {("S", "MOMENTS"): "raw.moments"},
        "teradata": {("s", "moments"): "raw.moments"},
        "redshift": {("s", "moments"): "raw.moments"},
    },
    opaque={},
    sources=("test_formats.py",),
)
# Leap day, a year-end Friday, a year of one digit, a Sunday before 1900, midnight, noon,
# one minute to one in the afternoon, the last second of a day.
MOMENTS = [
    (1, dt.date(2024, 2, 29), dt.datetime(2024, 2, 29, 0, 0, 0)),
    (2, dt.date(1999, 12, 31), dt.datetime(1999, 12, 31, 12, 0, 5)),
    (3, dt.date(5, 3, 7), dt.datetime(5, 3, 7, 12, 59, 0)),
    (4, dt.date(1899, 12, 31), dt.datetime(1899, 12, 31, 23, 59, 59)),
    (5, dt.date(2023, 1, 1), dt.datetime(2023, 1, 1, 9, 5, 7)),
]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _rows(ansi_sql: str, spark_engine) -> tuple[list[tuple], list[tuple]]:
    local = ansi_sql.replace('"raw"."moments"', '"moments"')
    with duckdb.connect() as con:
        con.execute("CREATE TABLE moments (id BIGINT, d DATE, ts TIMESTAMP)")
        con.executemany("INSERT INTO moments VALUES (?, ?, ?)", MOMENTS)
        on_duckdb = con.sql(render(local, "duckdb")).fetchall()
    spark = spark_engine.session()
    spark.createDataFrame(MOMENTS, "id BIGINT, d DATE, ts TIMESTAMP_NTZ").createOrReplaceTempView(
        "moments"
    )
    on_spark = [tuple(row) for row in spark.sql(render(local, "spark")).collect()]
    return sorted(on_duckdb), sorted(on_spark)


def _hour12(t: dt.datetime) -> int:
    return (t.hour + 11) % 12 + 1


def _bigquery_date(d: dt.date) -> str:
    # FORMAT_DATE('%Y|%E4Y|%y|%m|%d|%e|%j|%Q|%u|%w|%A|%a|%B|%b|%%|%F|%V|%g|%U|%W', d)
    month, day = MONTHS[d.month - 1], DAYS[d.weekday()]
    return "|".join(
        [
            str(d.year), f"{d.year:04d}", f"{d.year % 100:02d}", f"{d.month:02d}",
            f"{d.day:02d}", f"{d.day:2d}", f"{d.timetuple().tm_yday:03d}",
            str((d.month + 2) // 3), str(d.isoweekday()), str(d.isoweekday() % 7), day,
            day[:3], month, month[:3], "%", f"{d.year}-{d.month:02d}-{d.day:02d}",
            f"{d.isocalendar()[1]:02d}", f"{d.isocalendar()[0] % 100:02d}", d.strftime("%U"),
            d.strftime("%W"),
        ]
    )  # fmt: skip


def _bigquery_datetime(t: dt.datetime) -> str:
    # FORMAT_DATETIME('%H %I %M %S %p %T', ts)
    meridiem = "AM" if t.hour < 12 else "PM"
    clock = f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    return f"{t.hour:02d} {_hour12(t):02d} {t.minute:02d} {t.second:02d} {meridiem} {clock}"


def test_bigquery_formats_print_as_bigquery_documents_on_both_engines(spark_engine):
    ansi_sql = translate(
        "SELECT id, FORMAT_DATE('%Y|%E4Y|%y|%m|%d|%e|%j|%Q|%u|%w|%A|%a|%B|%b|%%|%F|%V|%g|%U|%W', d)"
        " AS a,"
        " FORMAT_DATETIME('%H %I %M %S %p %T', ts) AS b FROM p.s.moments",
        "bigquery",
        catalog=CATALOG,
    ).ansi_sql
    expected = sorted((i, _bigquery_date(d), _bigquery_datetime(t)) for i, d, t in MOMENTS)
    on_duckdb, on_spark = _rows(ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, ansi_sql


def _oracle(d: dt.date) -> str:
    # TO_CHAR(d, 'DD-Mon-YYYY Day DDD MONTH month DY IW IYYY WW W')
    month, day = MONTHS[d.month - 1], DAYS[d.weekday()]
    iso_year, iso_week, _ = d.isocalendar()
    yday = d.timetuple().tm_yday
    return (
        f"{d.day:02d}-{month[:3]}-{d.year:04d} {day.ljust(9)} {yday:03d} "
        f"{month.upper().ljust(9)} {month.lower().ljust(9)} {day[:3].upper()} "
        f"{iso_week:02d} {iso_year:04d} {(yday + 6) // 7:02d} {(d.day + 6) // 7}"
    )


def test_oracle_names_follow_the_elements_case_and_padding_under_the_english_assumption(
    spark_engine,
):
    translation = translate(
        "SELECT id, TO_CHAR(d, 'DD-Mon-YYYY Day DDD MONTH month DY IW IYYY WW W') AS a"
        " FROM S.MOMENTS",
        "oracle",
        catalog=CATALOG,
    )
    assert any(
        d.severity == "warning" and "date_language" in d.message for d in translation.diagnostics
    )
    expected = sorted((i, _oracle(d)) for i, d, _ in MOMENTS)
    on_duckdb, on_spark = _rows(translation.ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, translation.ansi_sql


def _tsql(d: dt.date, t: dt.datetime) -> tuple[str, ...]:
    y, m, dd = f"{d.year:04d}", f"{d.month:02d}", f"{d.day:02d}"
    clock = f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    stamp = f"{t.year:04d}-{t.month:02d}-{t.day:02d}"
    return (
        f"{y}{m}{dd}",  # 112
        f"{y}-{m}-{dd}",  # 23
        f"{m}/{dd}/{y}",  # 101
        f"{dd}.{m}.{y[2:]}",  # 4
        f"{stamp} {clock}",  # 120 of a DATETIME
        f"{stamp[:7]}",  # VARCHAR(7), 120
        clock,  # 108
        f"{dd}/{m}/{y}",  # 103
        f"{m}/{dd}/{y}",  # 101, VARCHAR
    )


def test_tsql_convert_styles_print_the_styles_digits_and_truncate_to_the_length(spark_engine):
    ansi_sql = translate(
        "SELECT id, CONVERT(varchar, d, 112) AS a, CONVERT(varchar(10), d, 23) AS b,"
        " CONVERT(char(10), d, 101) AS c, CONVERT(nvarchar, d, 4) AS e, CONVERT(varchar, ts, 120)"
        " AS f, CONVERT(VARCHAR(7), ts, 120) AS g, CONVERT(varchar(8), ts, 108) AS h,"
        " CONVERT(VARCHAR, d, 103) AS i, CONVERT(VARCHAR, d, 101) AS j FROM dbo.moments",
        "tsql",
        catalog=CATALOG,
    ).ansi_sql
    expected = sorted((i, *_tsql(d, t)) for i, d, t in MOMENTS)
    on_duckdb, on_spark = _rows(ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, ansi_sql


def _dotnet(d: dt.date, t: dt.datetime) -> tuple[str, ...]:
    month, day = MONTHS[d.month - 1], DAYS[d.weekday()]
    meridiem = "AM" if t.hour < 12 else "PM"
    return (
        f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}",
        f"{day[:3]}, {month[:3]} {d.day} {d.year:04d}",
        f"{day} {d.day:02d} {month} {d.year % 100:02d}",
        f"{_hour12(t)}:{t.minute:02d}:{t.second} {meridiem} {t.hour} {t.minute}",
        f"{d.month}/{d.day}/{d.year % 100:02d} at noon",
    )


def test_tsql_format_patterns_print_as_dotnet_does_under_the_english_assumption(spark_engine):
    translation = translate(
        "SELECT id, FORMAT(ts, 'yyyy-MM-ddTHH:mm:ss') AS a, FORMAT(d, 'ddd, MMM d yyyy') AS b,"
        " FORMAT(d, 'dddd dd MMMM yy') AS c, FORMAT(ts, 'h:mm:s tt H m') AS e,"
        " FORMAT(d, 'M/d/yy \"at noon\"') AS f FROM dbo.moments",
        "tsql",
        catalog=CATALOG,
    )
    assert any("date_language" in d.message for d in translation.diagnostics)
    expected = sorted((i, *_dotnet(d, t)) for i, d, t in MOMENTS)
    on_duckdb, on_spark = _rows(translation.ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, translation.ansi_sql


def _teradata(d: dt.date) -> tuple[str, ...]:
    # FORMAT 'YYYY-MM-DD', 'yyyymmdd' (as CHAR(8)), 'DD/MM/YY', 'Y4BDDD'
    yday = d.timetuple().tm_yday
    return (
        f"{d.year:04d}-{d.month:02d}-{d.day:02d}",
        f"{d.year:04d}{d.month:02d}{d.day:02d}",
        f"{d.day:02d}/{d.month:02d}/{d.year % 100:02d}",
        f"{d.year:04d} {yday:03d}",
    )


def test_teradata_format_phrases_print_the_dates_digits(spark_engine):
    ansi_sql = translate(
        "SELECT id, CAST(d AS VARCHAR(10) FORMAT 'YYYY-MM-DD') AS a,"
        " CAST(CAST(d AS FORMAT 'yyyymmdd') AS CHAR(8)) AS b,"
        " CAST(d AS VARCHAR(12) FORMAT 'DD/MM/YY') AS c, CAST(d AS CHAR(8) FORMAT 'Y4BDDD') AS e"
        " FROM s.moments",
        "teradata",
        catalog=CATALOG,
    ).ansi_sql
    expected = sorted((i, *_teradata(d)) for i, d, _ in MOMENTS)
    on_duckdb, on_spark = _rows(ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, ansi_sql


@pytest.mark.parametrize(
    ("dialect", "source", "rule", "named"),
    [
        # week numbers, time zones and fractions have no fixed text here
        ("redshift", "SELECT TO_CHAR(d, 'IYY') AS a FROM s.moments", "FMT-DATETIME", "IYY"),
        (
            "redshift",
            "SELECT TO_CHAR(ts, 'HH24:MI:SS.MS') AS a FROM s.moments",
            "FMT-DATETIME",
            "MS",
        ),
        ("bigquery", "SELECT FORMAT_DATE('%Z', d) AS a FROM p.s.moments", "FMT-DATETIME", "%Z"),
        # a one-letter .NET format is a standard (culture) pattern; fractions are refused
        ("tsql", "SELECT FORMAT(d, 'd') AS a FROM dbo.moments", "FMT-DATETIME", "'d'"),
        ("tsql", "SELECT FORMAT(ts, 'HH:mm:ss.fff') AS a FROM dbo.moments", "FMT-DATETIME", "fff"),
        ("tsql", "SELECT FORMAT(ts, 'yyyy', 'de-DE') AS a FROM dbo.moments", "FMT-TO-CHAR", ""),
        # Snowflake's models have no week, quarter, day-of-year or bare HH elements
        ("snowflake", "SELECT TO_CHAR(d, 'IW') AS a FROM S.MOMENTS", "FMT-DATETIME", "IW"),
        ("snowflake", "SELECT TO_CHAR(d, 'YYYY-Q') AS a FROM S.MOMENTS", "FMT-DATETIME", "Q"),
        ("snowflake", "SELECT TO_VARCHAR(d, 'DDD') AS a FROM S.MOMENTS", "FMT-DATETIME", "DDD"),
        ("snowflake", "SELECT TO_CHAR(ts, 'HH:MI') AS a FROM S.MOMENTS", "FMT-DATETIME", "HH"),
        # a time of day in the format of a DATE is an error in BigQuery
        ("bigquery", "SELECT FORMAT_DATE('%H', d) AS a FROM p.s.moments", "FMT-DATETIME", "HH24"),
        # names, milliseconds: styles refused
        ("tsql", "SELECT CONVERT(varchar, d, 106) AS a FROM dbo.moments", "TSQL-CONVERT", "106"),
        ("tsql", "SELECT CONVERT(varchar, ts, 121) AS a FROM dbo.moments", "TSQL-CONVERT", "121"),
        # a style with a time of day, of a DATE: the documentation states only a datetime's
        # text (yyyy-mm-dd hh:mi:ss), not whether a date prints midnight or no time; CHAR(n)
        # that pads or cuts
        ("tsql", "SELECT CONVERT(varchar, d, 120) AS a FROM dbo.moments", "TSQL-CONVERT", "120"),
        ("tsql", "SELECT CONVERT(varchar, d, 121) AS a FROM dbo.moments", "TSQL-CONVERT", "DATE"),
        ("tsql", "SELECT CONVERT(varchar, d, 20) AS a FROM dbo.moments", "TSQL-CONVERT", "DATE"),
        ("tsql", "SELECT CONVERT(char(12), d, 112) AS a FROM dbo.moments", "TSQL-CONVERT", "112"),
        # Teradata FORMAT: names, a text cut or padded by the session's mode, a timestamp
        (
            "teradata",
            "SELECT CAST(d AS VARCHAR(20) FORMAT 'MMMBDD') AS a FROM s.moments",
            "TD-CAST-FORMAT",
            "MMM",
        ),
        (
            "teradata",
            "SELECT CAST(d AS VARCHAR(6) FORMAT 'YYYYMMDD') AS a FROM s.moments",
            "TD-CAST-FORMAT",
            "VARCHAR(6)",
        ),
        (
            "teradata",
            "SELECT CAST(ts AS VARCHAR(20) FORMAT 'YYYY-MM-DD') AS a FROM s.moments",
            "TD-CAST-FORMAT",
            "DATE",
        ),
        # Snowflake's case of MON is not settled by its documentation: title case only
        (
            "snowflake",
            "SELECT TO_CHAR(d, 'DD MON YYYY') AS a FROM S.MOMENTS",
            "FMT-DATETIME",
            "MON",
        ),
    ],
)
def test_elements_and_styles_without_an_exact_form_are_refused_by_name(
    dialect, source, rule, named
):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect, catalog=CATALOG)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == rule and named in diagnostic.message, diagnostic.message


def test_names_in_another_language_are_refused():
    german = Assumptions().with_overrides({"date_language": "german"})
    with pytest.raises(TranslationError, match="GERMAN"):
        translate(
            "SELECT TO_CHAR(d, 'DD Mon') AS a FROM S.MOMENTS",
            "oracle",
            catalog=CATALOG,
            assumptions=german,
        )


def test_snowflake_title_case_names_translate():
    ansi_sql = translate(
        "SELECT TO_CHAR(d, 'Dy, DD Mon YYYY') AS a FROM S.MOMENTS", "snowflake", catalog=CATALOG
    ).ansi_sql
    assert "'Thu'" in ansi_sql and "'Feb'" in ansi_sql and "'Thursday'" not in ansi_sql


def _redshift(d: dt.date, t: dt.datetime) -> tuple[str, str]:
    # TO_CHAR(d, 'YYYY-"Q"Q IYYY-IW Mon MON mon Month DY Day WW W DDD') and
    # TO_CHAR(ts, 'Q HH12 Mon'), as Redshift's datetime format strings are documented: names
    # in the element's case, MONTH and DAY blank-padded to 9, MON and DY 3 characters
    month, day = MONTHS[d.month - 1], DAYS[d.weekday()]
    iso_year, iso_week, _ = d.isocalendar()
    yday = d.timetuple().tm_yday
    quarter = (d.month + 2) // 3
    return (
        f"{d.year:04d}-Q{quarter} {iso_year:04d}-{iso_week:02d} {month[:3]} "
        f"{month[:3].upper()} {month[:3].lower()} {month.ljust(9)} {day[:3].upper()} "
        f"{day.ljust(9)} {(yday + 6) // 7:02d} {(d.day + 6) // 7} {yday:03d}",
        f"{(t.month + 2) // 3} {_hour12(t):02d} {MONTHS[t.month - 1][:3]}",
    )


def test_redshift_models_print_quarters_iso_years_and_names_as_written(spark_engine):
    translation = translate(
        "SELECT id, TO_CHAR(d, 'YYYY-\"Q\"Q IYYY-IW Mon MON mon Month DY Day WW W DDD') AS a,"
        " TO_CHAR(ts, 'Q HH12 Mon') AS b FROM s.moments",
        "redshift",
        catalog=CATALOG,
    )
    assert any(
        d.severity == "warning" and "date_language" in d.message for d in translation.diagnostics
    )
    expected = sorted((i, *_redshift(d, t)) for i, d, t in MOMENTS)
    on_duckdb, on_spark = _rows(translation.ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, translation.ansi_sql


def test_snowflake_timestamp_models_print_title_case_names(spark_engine):
    ansi_sql = translate(
        "SELECT id, TO_CHAR(ts, 'Mon DD, YYYY HH24:MI') AS a FROM S.MOMENTS",
        "snowflake",
        catalog=CATALOG,
    ).ansi_sql
    expected = sorted(
        (i, f"{MONTHS[t.month - 1][:3]} {t.day:02d}, {t.year:04d} {t.hour:02d}:{t.minute:02d}")
        for i, _, t in MOMENTS
    )
    on_duckdb, on_spark = _rows(ansi_sql, spark_engine)
    assert on_duckdb == on_spark == expected, ansi_sql


def test_bigquery_iso_year_prints_four_digits_and_stops_before_year_1000(spark_engine):
    translation = translate(
        "SELECT id, FORMAT_DATE('%G-%V', d) AS a FROM p.s.moments", "bigquery", catalog=CATALOG
    )
    assert translation.guards == ("FMT-DATETIME",)
    later = translation.ansi_sql.replace(
        '"raw"."moments" AS "moments"', '"raw"."moments" AS "moments" WHERE "moments"."id" <> 3'
    )
    expected = sorted(
        (i, f"{d.isocalendar()[0]}-{d.isocalendar()[1]:02d}") for i, d, _ in MOMENTS if i != 3
    )
    on_duckdb, on_spark = _rows(later, spark_engine)
    assert on_duckdb == on_spark == expected, later
    # year 5: the width is not documented, and each engine stops on that row
    year_five = translation.ansi_sql.replace(
        '"raw"."moments" AS "moments"', "(SELECT 3 AS id, DATE '0005-03-07' AS d) AS \"moments\""
    )
    with pytest.raises(duckdb.Error, match="FMT-DATETIME"):
        duckdb.sql(render(year_five, "duckdb")).fetchall()
    with pytest.raises(Exception, match="FMT-DATETIME"):
        spark_engine.session().sql(render(year_five, "spark")).collect()
