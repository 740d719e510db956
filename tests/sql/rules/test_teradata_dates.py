"""Teradata's TRUNC(date, fmt) and ROUND(date, fmt) (TD-DATE-TRUNC), run on DuckDB and Spark
against the first days worked out by hand from Teradata's definitions: centuries from year
1, ROUND up from the 16th, the 16th of a quarter's second month, July 1."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

# (format, value, TRUNC, ROUND or None where ROUND is refused)
CASES = [
    ("CC", date(2010, 5, 16), date(2001, 1, 1), None),
    ("cc", date(2000, 12, 31), date(1901, 1, 1), None),
    ("SCC", date(2001, 1, 1), date(2001, 1, 1), None),
    ("YYYY", date(2010, 6, 30), date(2010, 1, 1), date(2010, 1, 1)),
    ("year", date(2010, 7, 1), date(2010, 1, 1), date(2011, 1, 1)),
    ("Y", date(2010, 12, 31), date(2010, 1, 1), date(2011, 1, 1)),
    ("Q", date(2010, 5, 16), date(2010, 4, 1), date(2010, 7, 1)),
    ("Q", date(2010, 5, 15), date(2010, 4, 1), date(2010, 4, 1)),
    ("Q", date(2010, 6, 1), date(2010, 4, 1), date(2010, 7, 1)),
    ("Q", date(2010, 4, 30), date(2010, 4, 1), date(2010, 4, 1)),
    ("Q", date(2010, 11, 20), date(2010, 10, 1), date(2011, 1, 1)),
    ("MM", date(2010, 12, 16), date(2010, 12, 1), date(2011, 1, 1)),
    ("mon", date(2012, 2, 15), date(2012, 2, 1), date(2012, 2, 1)),
    ("DD", date(2012, 2, 29), date(2012, 2, 29), date(2012, 2, 29)),
    ("IW", date(2024, 1, 3), date(2024, 1, 1), None),  # Wednesday -> Monday
    ("DAY", date(2024, 1, 3), date(2023, 12, 31), None),  # Wednesday -> Sunday
    ("D", date(2023, 12, 31), date(2023, 12, 31), None),
    ("MM", None, None, None),
]


def _query(function: str, fmt: str, value: date | None) -> str:
    literal = f"DATE '{value.isoformat()}'" if value else "CAST(NULL AS DATE)"
    return f"SELECT {function}({literal}, '{fmt}') AS d"


def _both(ansi: str, spark) -> list:
    on_duckdb = duckdb.sql(render(ansi, "duckdb")).fetchall()
    on_spark = [tuple(r) for r in spark.sql(render(ansi, "spark")).collect()]
    assert on_duckdb == on_spark, ansi
    return on_duckdb


@pytest.mark.parametrize(("fmt", "value", "truncated", "rounded"), CASES)
def test_trunc_and_round_of_dates(spark_engine, fmt, value, truncated, rounded):
    spark = spark_engine.session()
    ansi = translate(_query("TRUNC", fmt, value), "teradata").ansi_sql
    assert _both(ansi, spark) == [(truncated,)]
    if rounded is None and value is not None:
        with pytest.raises(TranslationError, match="TD-DATE-TRUNC"):
            translate(_query("ROUND", fmt, value), "teradata")
    else:
        ansi = translate(_query("ROUND", fmt, value), "teradata").ansi_sql
        assert _both(ansi, spark) == [(rounded,)]


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("SELECT TRUNC(TIMESTAMP '2010-05-16 10:00:00', 'MM') AS d", "TruncRoundReturnTimestamp"),
        ("SELECT TRUNC(DATE '2010-05-16', 'WW') AS d", "'WW'"),
        ("SELECT TRUNC(DATE '2010-05-16', 'IYYY') AS d", "'IYYY'"),
    ],
)
def test_what_has_no_exact_form_is_refused(sql, words):
    with pytest.raises(TranslationError) as raised:
        translate(sql, "teradata")
    [error] = raised.value.diagnostics
    assert (error.rule, error.col) == ("TD-DATE-TRUNC", 8)
    assert words in error.message
