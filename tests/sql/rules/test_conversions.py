"""Conversions with a standard form: Snowflake's EQUAL_NULL and TO_NUMBER family, Teradata's
CASE_N, run on DuckDB and Spark against values worked out by hand from each dialect's
documentation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

CATALOG = Catalog(
    tables={"raw.vals": {"id": "BIGINT", "s": "VARCHAR", "a": "VARCHAR", "n": "INTEGER"}},
    legacy={
        "snowflake": {("S", "VALS"): "raw.vals"},
        "teradata": {("s", "vals"): "raw.vals"},
        "oracle": {("S", "VALS"): "raw.vals"},
    },
    opaque={},
    sources=("test_conversions.py",),
)
# Numbers as text with halves to round (both signs), an exponent, blanks around, a sign; a
# NULL; the strings EQUAL_NULL compares.
ROWS = [
    (1, "12.6", "x", 5),
    (2, "12.5", "x", -3),
    (3, "-12.5", None, 0),
    (4, " 7 ", None, None),
    (5, "1e3", "y", 12),
    (6, "+0.5", "", 7),
    (7, None, "x", 3),
]
SCHEMA = "id BIGINT, s VARCHAR, a VARCHAR, n INTEGER"


def _on_duckdb(ansi_sql: str, rows: list[tuple]) -> list[tuple]:
    local = ansi_sql.replace('"raw"."vals"', '"vals"')
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE vals ({SCHEMA})")
        if rows:
            con.executemany("INSERT INTO vals VALUES (?, ?, ?, ?)", rows)
        return sorted(con.sql(render(local, "duckdb")).fetchall())


def _on_spark(ansi_sql: str, rows: list[tuple], spark_engine) -> list[tuple]:
    local = ansi_sql.replace('"raw"."vals"', '"vals"')
    spark = spark_engine.session()
    spark.createDataFrame(rows, "id BIGINT, s STRING, a STRING, n INT").createOrReplaceTempView(
        "vals"
    )
    return sorted(tuple(row) for row in spark.sql(render(local, "spark")).collect())


CASES = [
    # EQUAL_NULL: NULL equals NULL, a value never equals NULL, '' is a value
    (
        "snowflake",
        "SELECT id, EQUAL_NULL(a, 'x') AS ex, EQUAL_NULL(a, CASE WHEN id = 4 THEN 'x' END)"
        " AS same FROM S.VALS",
        [
            (1, True, False),
            (2, True, False),
            (3, False, True),
            (4, False, False),
            (5, False, False),
            (6, False, False),
            (7, True, False),
        ],
    ),
    # TO_NUMBER: NUMBER(38, 0), halves rounded away from zero; TO_DECIMAL(s, p, s) keeps the
    # scale asked for
    (
        "snowflake",
        "SELECT id, TO_NUMBER(s) AS n, TO_DECIMAL(s, 10, 1) AS d, TO_NUMERIC(s, 5) AS m"
        " FROM S.VALS",
        [
            (1, Decimal("13"), Decimal("12.6"), Decimal("13")),
            (2, Decimal("13"), Decimal("12.5"), Decimal("13")),
            (3, Decimal("-13"), Decimal("-12.5"), Decimal("-13")),
            (4, Decimal("7"), Decimal("7.0"), Decimal("7")),
            (5, Decimal("1000"), Decimal("1000.0"), Decimal("1000")),
            (6, Decimal("1"), Decimal("0.5"), Decimal("1")),
            (7, None, None, None),
        ],
    ),
    # CASE_N: the first TRUE condition's number; an UNKNOWN one before it ends the search
    # (UNKNOWN's number, n + 2 after NO CASE; n + 1 for NO CASE OR UNKNOWN; else NULL); all
    # FALSE is NO CASE's number, n + 1, or NULL
    (
        "teradata",
        "SELECT id, CASE_N(n < 0, n < 5, n < 10, NO CASE, UNKNOWN) AS v1,"
        " CASE_N(a = 'x', n >= 0, NO CASE OR UNKNOWN) AS v2, CASE_N(a = 'x', n >= 0) AS v3,"
        " CASE_N(n > 100, UNKNOWN) AS v4 FROM s.vals",
        [
            (1, 3, 1, 1, None),
            (2, 1, 1, 1, None),
            (3, 2, 3, None, None),
            (4, 5, 3, None, 2),
            (5, 4, 2, 2, None),
            (6, 3, 2, 2, None),
            (7, 2, 1, 1, None),
        ],
    ),
    # TO_CHAR / TO_VARCHAR without a format: the text CAST gives an integer
    (
        "snowflake",
        "SELECT id, TO_CHAR(n) AS t, TO_VARCHAR(-n) AS m FROM S.VALS",
        [
            (1, "5", "-5"),
            (2, "-3", "3"),
            (3, "0", "0"),
            (4, None, None),
            (5, "12", "-12"),
            (6, "7", "-7"),
            (7, "3", "-3"),
        ],
    ),
    # TRY_TO_NUMBER of an integer into a wide enough NUMBER cannot fail: the CAST
    (
        "snowflake",
        "SELECT id, TRY_TO_NUMBER(n, 12, 2) AS t FROM S.VALS WHERE id <= 2",
        [(1, Decimal("5.00")), (2, Decimal("-3.00"))],
    ),
]


@pytest.mark.parametrize(("dialect", "source", "expected"), CASES)
def test_conversion_values(dialect, source, expected, spark_engine):
    ansi_sql = translate(source, dialect, catalog=CATALOG).ansi_sql
    assert _on_duckdb(ansi_sql, ROWS) == expected
    assert _on_spark(ansi_sql, ROWS, spark_engine) == expected


@pytest.mark.parametrize("text", ["1,000", "", "abc", "1e40", "12345678901"])
def test_to_number_of_text_that_is_no_such_number_raises(text, spark_engine):
    """Snowflake raises on text that is not a number or does not fit NUMBER(p, s): so do
    the engines, rather than give NULL."""
    source = "SELECT TO_NUMBER(s, 10, 0) AS n FROM S.VALS"
    ansi_sql = translate(source, "snowflake", catalog=CATALOG).ansi_sql
    rows = [(1, text, None, None)]
    with pytest.raises(duckdb.Error):
        _on_duckdb(ansi_sql, rows)
    with pytest.raises(Exception, match=r"CAST_INVALID_INPUT|NUMERIC_"):
        _on_spark(ansi_sql, rows, spark_engine)


# Oracle's TO_NUMBER(text) without a format: the number the text writes (Oracle SQL Language
# Reference, TO_NUMBER; '' is NULL in Oracle), held as DECIMAL(38, oracle_number_scale). Under
# a scale of 0 the fractions are what the assumption's warning says: rounded half away from
# zero.
ORACLE_ROWS = [*ROWS, (8, "", None, None), (9, "-0.0625", None, None)]
ORACLE_NUMBERS = {
    None: [
        (1, Decimal("12.6")), (2, Decimal("12.5")), (3, Decimal("-12.5")), (4, Decimal("7")),
        (5, Decimal("1000")), (6, Decimal("0.5")), (7, None), (8, None),
        (9, Decimal("-0.0625")),
    ],
    0: [
        (1, Decimal("13")), (2, Decimal("13")), (3, Decimal("-13")), (4, Decimal("7")),
        (5, Decimal("1000")), (6, Decimal("1")), (7, None), (8, None), (9, Decimal("0")),
    ],
}  # fmt: skip


@pytest.mark.parametrize(("scale", "expected"), ORACLE_NUMBERS.items())
def test_oracle_to_number_reads_text_at_the_assumed_scale(scale, expected, spark_engine):
    overrides = {} if scale is None else {"oracle_number_scale": str(scale)}
    translation = translate(
        "SELECT id, TO_NUMBER(s) AS n FROM S.VALS",
        "oracle",
        catalog=CATALOG,
        assumptions=Assumptions().with_overrides(overrides),
    )
    stated = 10 if scale is None else scale
    assert dict(translation.assumed) == {"oracle_number_scale": str(stated)}
    [warning] = [d for d in translation.diagnostics if d.rule == "ORA-TO-NUMBER"]
    assert warning.severity == "warning" and f"DECIMAL(38, {stated})" in warning.message
    assert _on_duckdb(translation.ansi_sql, ORACLE_ROWS) == expected
    assert _on_spark(translation.ansi_sql, ORACLE_ROWS, spark_engine) == expected


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        ("SELECT TO_NUMBER(n) AS x FROM S.VALS", "ORA-TO-NUMBER"),  # not text: NUMBER stays
        ("SELECT TO_NUMBER(s, '99.9') AS x FROM S.VALS", "ORA-TO-NUMBER"),  # a format
    ],
)
def test_oracle_to_number_without_an_exact_form_is_refused(source, rule):
    with pytest.raises(TranslationError) as raised:
        translate(source, "oracle", catalog=CATALOG)
    assert [d.rule for d in raised.value.diagnostics] == [rule]


# Text read with a format of fixed-width digit fields: (dialect, call on s, the texts of a
# date in that format, texts each source would refuse or read its own way).
DATE_FORMATS = [
    ("snowflake", "TO_DATE(s, 'YYYYMMDD')", "{y:04d}{m:02d}{d:02d}", ["2018062", "2018-0629"]),
    ("oracle", "TO_DATE(s, 'YYYY-MM-DD')", "{y:04d}-{m:02d}-{d:02d}", ["2018/06/29", "2018-6-29"]),
    ("teradata", "CAST(s AS DATE FORMAT 'DD/MM/YYYY')", "{d:02d}/{m:02d}/{y:04d}", ["29.06.2018"]),
    ("teradata", "CAST(s AS DATE FORMAT 'yyyy-mm-dd')", "{y:04d}-{m:02d}-{d:02d}", ["2018-6-29"]),
    ("redshift", "TO_DATE(s, 'YYYYMMDD')", "{y:04d}{m:02d}{d:02d}", [" 20180629", "2018062x"]),
]
DATES = [dt.date(2018, 6, 29), dt.date(2024, 2, 29), dt.date(1, 1, 1), dt.date(9999, 12, 31)]
# A month or day out of range, year 0 (no such year in the sources' calendars)
NOT_DATES = [(2018, 2, 30), (2018, 13, 1), (2018, 0, 10), (0, 1, 1)]
DATE_TABLES = {
    "snowflake": "S.VALS", "oracle": "S.VALS", "teradata": "s.vals", "redshift": "s.vals"
}  # fmt: skip
CATALOG.legacy["redshift"] = {("s", "vals"): "raw.vals"}


@pytest.mark.parametrize(("dialect", "call", "layout", "unread"), DATE_FORMATS)
def test_text_read_as_a_date_by_its_format(dialect, call, layout, unread, spark_engine):
    source = f"SELECT id, {call} AS d FROM {DATE_TABLES[dialect]}"
    ansi_sql = translate(source, dialect, catalog=CATALOG).ansi_sql
    rows = [
        (i, layout.format(y=d.year, m=d.month, d=d.day), None, None) for i, d in enumerate(DATES)
    ]
    rows.append((len(rows), None, None, None))
    expected = [(i, d) for i, d in enumerate(DATES)] + [(len(DATES), None)]
    assert _on_duckdb(ansi_sql, rows) == expected
    assert _on_spark(ansi_sql, rows, spark_engine) == expected
    wrong = [layout.format(y=y, m=m, d=d) for y, m, d in NOT_DATES] + unread
    for text in wrong:
        with pytest.raises(duckdb.Error):
            _on_duckdb(ansi_sql, [(1, text, None, None)])
    # Spark is slow to start a query: the wrong texts together, each failing the query
    for text in wrong[:2] + unread[:1]:
        with pytest.raises(Exception, match=r"CAST_INVALID_INPUT|DATETIME"):
            _on_spark(ansi_sql, [(1, text, None, None)], spark_engine)


# Oracle's TO_CHAR of a number: (text of the NUMBER(10, 3), '990.00', 'FM990.00'), worked out
# from Oracle's rules: rounded half away from zero, a sign position, pound signs for width + 1
NUMBERS = [
    ("12.345", "  12.35", "12.35"),
    ("-12.345", " -12.35", "-12.35"),
    ("0.005", "   0.01", "0.01"),
    ("999.994", " 999.99", "999.99"),
    ("0", "   0.00", "0.00"),
    ("-7", "  -7.00", "-7.00"),
    (None, None, None),
]


def test_oracle_number_models_print_as_oracle_does(spark_engine):
    source = (
        "SELECT id, TO_CHAR(CAST(s AS NUMBER(10, 3)), '990.00') AS a,"
        " TO_CHAR(CAST(s AS NUMBER(10, 3)), 'FM990.00') AS b FROM S.VALS"
    )
    ansi_sql = translate(source, "oracle", catalog=CATALOG).ansi_sql
    rows = [(i, text, None, None) for i, (text, _, _) in enumerate(NUMBERS)]
    expected = [(i, a, b) for i, (_, a, b) in enumerate(NUMBERS)]
    assert _on_duckdb(ansi_sql, rows) == expected
    assert _on_spark(ansi_sql, rows, spark_engine) == expected


def test_oracle_number_models_overflow_and_zero_fill(spark_engine):
    source = (
        "SELECT id, TO_CHAR(n, '0000') AS a, TO_CHAR(CAST(s AS NUMBER(10, 3)), '90.0') AS b"
        " FROM S.VALS"
    )
    ansi_sql = translate(source, "oracle", catalog=CATALOG).ansi_sql
    rows = [(1, "99.95", None, 5), (2, "-99.949", None, -3), (3, "0.05", None, 12345)]
    expected = [(1, " 0005", "#####"), (2, "-0003", "-99.9"), (3, "#####", "  0.1")]
    assert _on_duckdb(ansi_sql, rows) == expected
    assert _on_spark(ansi_sql, rows, spark_engine) == expected


@pytest.mark.parametrize(
    ("model", "text"), [("990.00", "-0.004"), ("FM990.00", "1000"), ("FM0", "-0.4")]
)
def test_oracle_number_texts_oracle_does_not_settle_raise(model, text, spark_engine):
    source = f"SELECT TO_CHAR(CAST(s AS NUMBER(10, 3)), '{model}') AS a FROM S.VALS"
    ansi_sql = translate(source, "oracle", catalog=CATALOG).ansi_sql
    with pytest.raises(duckdb.Error, match="TO_CHAR"):
        _on_duckdb(ansi_sql, [(1, text, None, None)])
    with pytest.raises(Exception, match="TO_CHAR"):
        _on_spark(ansi_sql, [(1, text, None, None)], spark_engine)


REFUSED = [
    ("snowflake", "SELECT TO_NUMBER(s, '999.9') AS n FROM S.VALS", "FMT-TO-NUMBER"),
    ("snowflake", "SELECT TRY_TO_DECIMAL(s, '999.9') AS n FROM S.VALS", "FMT-TO-NUMBER"),
    ("snowflake", "SELECT TO_CHAR(CAST(n AS DOUBLE)) AS t FROM S.VALS", "CAST-TO-TEXT"),
    ("teradata", "SELECT TO_NUMBER(s) AS n FROM s.vals", "FMT-TO-NUMBER"),
    ("teradata", "SELECT CASE_N(n < 0, UNKNOWN, NO CASE) AS c FROM s.vals", "PARSE"),
    ("snowflake", "SELECT TO_DATE(s, 'YYYYMM') AS d FROM S.VALS", "FMT-TO-DATE"),
    ("oracle", "SELECT TO_CHAR(n, '9,999') AS t FROM S.VALS", "FMT-NUMBER"),
    ("oracle", "SELECT TO_CHAR(n, '999') AS t FROM S.VALS", "FMT-NUMBER"),
    ("oracle", "SELECT TO_CHAR(n, '990.99') AS t FROM S.VALS", "FMT-NUMBER"),
    (
        "oracle",
        "SELECT TO_CHAR(CAST(n AS BINARY_DOUBLE), '990.00') AS t FROM S.VALS",
        "FMT-TO-CHAR",
    ),
    ("snowflake", "SELECT TO_CHAR(n, '990.00') AS t FROM S.VALS", "FMT-TO-CHAR"),
    ("oracle", "SELECT TO_DATE(s, 'YY-MM-DD') AS d FROM S.VALS", "FMT-TO-DATE"),
    ("snowflake", "SELECT TRY_TO_DATE(s, 'MON DD YYYY') AS d FROM S.VALS", "FMT-TO-DATE"),
]


@pytest.mark.parametrize(("dialect", "source", "rule"), REFUSED)
def test_conversions_without_an_exact_form_are_refused(dialect, source, rule):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect, catalog=CATALOG)
    assert rule in {d.rule for d in raised.value.diagnostics}
