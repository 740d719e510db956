"""TO_TIMESTAMP of strings with a fixed-width format, on DuckDB and Spark: text of the
format's exact shape gives the moment its fields name; text of any other shape, and fields out
of range, raise rather than give a value the source might not."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import first_values, over_one_text

T = dt.datetime

# (dialect, conversion of o_clerk, text, the timestamp the source reads, None: raises)
CASES = [
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-02-29 23:59:58",
     T(2024, 2, 29, 23, 59, 58)),
    ("snowflake", "TO_TIMESTAMP_NTZ(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "1000-01-01 00:00:00",
     T(1000, 1, 1)),
    ("snowflake", "TO_TIMESTAMP_NTZ(o_clerk, 'DD/MM/YYYY')", "05/01/2024", T(2024, 1, 5)),
    ("oracle", "TO_TIMESTAMP(o_clerk, 'YYYYMMDDHH24MI')", "202401051307", T(2024, 1, 5, 13, 7)),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2023-02-29 00:00:00", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-01-05 24:00:00", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-01-05 10:60:00", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-12-31 23:59:60", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-1-5 1:2:3", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "2024-01-05T10:00:00", None),
    ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", " 2024-01-05 10:00:0", None),
    ("oracle", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "0000-01-01 00:00:00", None),
]  # fmt: skip


@pytest.fixture(scope="module")
def spark(spark_engine):
    return spark_engine.session().newSession()


def _run(ansi_sql: str, text: str | None, spark) -> tuple[object, object]:
    """The value on DuckDB and on Spark, or the exception each raised."""
    return first_values(over_one_text(ansi_sql, text), spark)


@pytest.mark.parametrize(("dialect", "conversion", "text", "expected"), CASES)
def test_fixed_width_text_reads_as_the_source_reads_it_or_raises(
    spark, dialect, conversion, text, expected
):
    schema = "SALES.ORDERS"
    ansi_sql = translate(f"SELECT {conversion} AS t FROM {schema}", dialect).ansi_sql
    on_duckdb, on_spark = _run(ansi_sql, text, spark)
    if expected is None:
        assert isinstance(on_duckdb, Exception) and isinstance(on_spark, Exception)
    else:
        assert on_duckdb == on_spark == expected


def test_null_text_is_null(spark):
    ansi_sql = translate(
        "SELECT TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS') AS t FROM SALES.ORDERS", "oracle"
    ).ansi_sql
    assert _run(ansi_sql, None, spark) == (None, None)


@pytest.mark.parametrize(
    ("dialect", "conversion", "rule"),
    [
        ("snowflake", "TRY_TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "FMT-TO-CHAR"),
        ("snowflake", "TO_TIMESTAMP_LTZ(o_clerk, 'YYYY-MM-DD HH24:MI:SS')", "FMT-TO-CHAR"),
        ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH12:MI:SS')", "FMT-TO-TIMESTAMP"),
        ("snowflake", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI:SS.FF3')", "FMT-TO-TIMESTAMP"),
        ("oracle", "TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD MI')", "FMT-TO-TIMESTAMP"),
    ],
)
def test_other_formats_are_refused(dialect, conversion, rule):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {conversion} AS t FROM SALES.ORDERS", dialect)
    assert rule in {d.rule for d in raised.value.diagnostics}


# A TIMESTAMP compared with a 'yyyy-mm-dd hh:mi:ss[.f]' string: (dialect, predicate, expected)
COMPARISONS = [
    ("snowflake", "t BETWEEN '2023-06-01 08:00:00' AND '2023-06-01 09:00:00'", [2, 3]),
    ("bigquery", "t > '2023-06-01 09:00:00.5'", [4]),
    ("redshift", "t <= '2023-06-01 08:00:00.000001'", [1, 2]),
]
MOMENTS = [
    (1, T(2023, 6, 1, 7, 59, 59)),
    (2, T(2023, 6, 1, 8, 0, 0)),
    (3, T(2023, 6, 1, 9, 0, 0)),
    (4, T(2023, 6, 1, 9, 0, 1)),
]


@pytest.mark.parametrize(("dialect", "predicate", "expected"), COMPARISONS)
def test_timestamp_strings_compare_as_the_moment_they_name(spark, dialect, predicate, expected):
    table = {"snowflake": "SALES.ORDERS", "bigquery": "sales.orders", "redshift": "sales.orders"}
    kind = "DATETIME" if dialect == "bigquery" else "TIMESTAMP"  # BigQuery's is an instant
    source = (
        f"SELECT k FROM (SELECT o_orderkey AS k, CAST(o_orderdate AS {kind}) AS t "
        f"FROM {table[dialect]}) AS m WHERE {predicate}"
    )
    ansi_sql = translate(source, dialect).ansi_sql
    assert "CAST('2023-06-01" in ansi_sql
    values = ", ".join(f"({k}, TIMESTAMP '{t.isoformat(sep=' ')}')" for k, t in MOMENTS)
    rows = f"(SELECT * FROM (VALUES {values}) AS v(o_orderkey, o_orderdate))"
    ansi_sql = ansi_sql.replace('"raw"."orders"', rows)
    on_duckdb = sorted(r[0] for r in duckdb.connect().sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == expected
