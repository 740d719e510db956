"""The two readings of ISO date text: the strict 'yyyy-mm-dd' the date rules take as a DATE
operand, and the wider ISO forms BigQuery's DATE(string) and Snowflake's
TO_TIMESTAMP_NTZ(string) read (validated as real dates and times)."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.rules.calendar import iso_date, iso_timestamp
from sql.translate import translate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1998-8-2", "1998-08-02"),
        (" 2024-02-29 ", "2024-02-29"),
        ("2023-02-29", None),  # not a date
        ("2024-01-05 10:00", None),  # a timestamp, not a date
        ("20240105", None),
    ],
)
def test_iso_date(text, expected):
    assert iso_date(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01", "2024-03-01 00:00:00"),
        ("2024-03-01T09:05:07.5", "2024-03-01 09:05:07.5"),
        ("2024-03-01 09:05", "2024-03-01 09:05:00"),
        ("2024-03-01 24:00:00", None),
        ("2024-03-01 09:05:07.1234567", None),  # beyond the microsecond
    ],
)
def test_iso_timestamp(text, expected):
    assert iso_timestamp(text) == expected


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        ("tsql", "SELECT DATEDIFF(day, '2024-01-05 10:00:00', o_orderdate) AS d FROM dbo.Orders"),
        ("snowflake", "SELECT DATEDIFF(day, '2024-1-5', o_orderdate) AS d FROM SALES.ORDERS"),
    ],
)
def test_date_rules_take_only_the_strict_iso_date_as_a_date_operand(dialect, source):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == ["DATE-DIFF"]
