"""Server settings the SQL cannot show are configurable assumptions, each one warned about."""

import datetime as dt
import re

import duckdb
import pytest

from sql.assumptions import AssumptionError, Assumptions, load_assumptions
from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules import Context
from sql.translate import translate

# 2024-01-01 was a Monday, 2024-01-07 a Sunday.
DATES = [dt.date(2024, 1, 1), dt.date(2024, 1, 3), dt.date(2024, 1, 7)]


def weekdays(dialect: str, source: str, assumptions: Assumptions) -> tuple[list[int], list[str]]:
    translation = translate(source, dialect, assumptions=assumptions)
    with duckdb.connect() as con:
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.orders (o_orderkey BIGINT, o_orderdate DATE)")
        con.executemany("INSERT INTO raw.orders VALUES (?, ?)", list(enumerate(DATES)))
        rows = con.sql(render(translation.ansi_sql, "duckdb")).fetchall()
    return [r[0] for r in rows], [d.format() for d in translation.diagnostics]


TSQL = "SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders ORDER BY o_orderkey"
SNOWFLAKE = "SELECT DAYOFWEEK(o_orderdate) AS wd FROM SALES.ORDERS ORDER BY o_orderkey"


@pytest.mark.parametrize(
    ("dialect", "source", "assumptions", "expected", "warning"),
    [
        # DATEFIRST 7 (us_english): Sunday = 1, so Monday = 2, Wednesday = 4, Sunday = 1.
        ("tsql", TSQL, Assumptions(tsql_datefirst=7), [2, 4, 1], "SET DATEFIRST 7 (Sunday = 1)"),
        # DATEFIRST 1 (most European languages): Monday = 1 ... Sunday = 7.
        ("tsql", TSQL, Assumptions(tsql_datefirst=1), [1, 3, 7], "SET DATEFIRST 1 (Monday = 1)"),
        ("tsql", TSQL, Assumptions(tsql_datefirst=3), [6, 1, 5], "SET DATEFIRST 3 (Wednesday = 1)"),
        # WEEK_START 0 (legacy): Sunday = 0 ... Saturday = 6.
        ("snowflake", SNOWFLAKE, Assumptions(), [1, 3, 0], "WEEK_START = 0 (Sunday = 0)"),
        # WEEK_START 1: Monday = 1 ... Sunday = 7.
        (
            "snowflake",
            SNOWFLAKE,
            Assumptions(snowflake_week_start=1),
            [1, 3, 7],
            "WEEK_START = 1 (Monday = 1)",
        ),
    ],
)
def test_weekday_numbering_follows_the_assumed_setting(
    dialect, source, assumptions, expected, warning
):
    values, diagnostics = weekdays(dialect, source, assumptions)
    assert values == expected
    assert any(warning in d and "warning[" in d for d in diagnostics), diagnostics


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"tsql_datefirst": "0"}, "tsql_datefirst must be 1 (Monday) ... 7 (Sunday); got 0"),
        ({"snowflake_week_start": "8"}, "snowflake_week_start must be 0"),
        ({"tsql_datefirst": "monday"}, "tsql_datefirst must be an integer"),
        ({"datefirst": "1"}, "unknown assumption datefirst"),
        (
            {"snowflake_timestamp_type_mapping": "timestamp"},
            "snowflake_timestamp_type_mapping must be one of TIMESTAMP_NTZ, TIMESTAMP_LTZ",
        ),
        ({"teradata_session_mode": "btet"}, "teradata_session_mode must be one of TERA, ANSI"),
    ],
)
def test_impossible_assumptions_are_refused(overrides, message):
    with pytest.raises(AssumptionError, match=re.escape(message)):
        Assumptions().with_overrides(overrides)


def test_the_project_file_is_read_and_checked(tmp_path):
    assert load_assumptions() == Assumptions()  # sql/assumptions.yaml holds the defaults
    path = tmp_path / "assumptions.yaml"
    path.write_text("tsql_datefirst: 1\n")
    assert load_assumptions(path) == Assumptions(tsql_datefirst=1)
    path.write_text("tsql_datefirst: 9\n")
    with pytest.raises(AssumptionError, match=r"assumptions\.yaml: tsql_datefirst must be"):
        load_assumptions(path)


def test_assumptions_change_the_cache_key():
    assert Assumptions().key() != Assumptions(tsql_datefirst=1).key()


def test_to_timestamp_follows_the_assumed_timestamp_type_mapping():
    source = "SELECT TO_TIMESTAMP(o_orderkey) AS t FROM SALES.ORDERS"
    translation = translate(source, "snowflake")
    assert "INTERVAL '1' SECOND" in translation.ansi_sql
    [warning] = [d.format() for d in translation.diagnostics]
    assert "TIMESTAMP_TYPE_MAPPING = TIMESTAMP_NTZ" in warning
    ltz = Assumptions().with_overrides({"snowflake_timestamp_type_mapping": "timestamp_ltz"})
    with pytest.raises(TranslationError, match="TIMESTAMP_TYPE_MAPPING = TIMESTAMP_LTZ"):
        translate(source, "snowflake", assumptions=ltz)
    # TO_TIMESTAMP_NTZ names its type: no assumption, no warning
    assert not translate(source.replace("(o_", "_NTZ(o_"), "snowflake").diagnostics


@pytest.mark.parametrize(
    ("dialect", "source", "assumed"),
    [
        # A Snowflake file never depends on T-SQL's DATEFIRST, nor one that reads no weekday
        # on WEEK_START.
        ("snowflake", SNOWFLAKE, {"snowflake_week_start": "0"}),
        ("snowflake", "SELECT o_orderkey FROM SALES.ORDERS", {}),
        (
            "snowflake",
            "SELECT DATE_TRUNC('week', o_orderdate) AS w FROM SALES.ORDERS",
            {"snowflake_week_start": "0"},
        ),
        (
            "snowflake",
            "SELECT TO_TIMESTAMP(o_orderkey) AS t FROM SALES.ORDERS",
            {"snowflake_timestamp_type_mapping": "TIMESTAMP_NTZ"},
        ),
        ("tsql", TSQL, {"tsql_datefirst": "7"}),
        ("tsql", "SELECT DATEPART(year, o_orderdate) AS y FROM dbo.Orders", {}),
        # An unqualified name completed with the default schema relies on it.
        ("tsql", "SELECT o_orderkey FROM Orders", {"tsql_schema": "dbo"}),
        (
            "oracle",
            "SELECT TO_CHAR(o_orderdate, 'Month') AS m FROM SALES.ORDERS",
            {"date_language": "ENGLISH"},
        ),
        # BigQuery's month names are English by definition: no setting.
        ("bigquery", "SELECT FORMAT_DATE('%B', o_orderdate) AS m FROM sales.orders", {}),
    ],
)
def test_a_translation_records_only_the_settings_it_relied_on(dialect, source, assumed):
    assert dict(translate(source, dialect).assumed) == assumed


def test_the_recorded_value_is_the_one_assumed():
    translation = translate(TSQL, "tsql", assumptions=Assumptions(tsql_datefirst=1))
    assert translation.assumed == (("tsql_datefirst", "1"),)


def test_a_rule_cannot_rely_on_a_setting_its_dialect_has_not():
    ctx = Context(dialect="snowflake", file="a.sql", text="")
    with pytest.raises(AssumptionError, match="snowflake has no server setting tsql_datefirst"):
        ctx.assume("tsql_datefirst")
    assert ctx.assumed == {}
    assert ctx.assume("snowflake_week_start") == 0
    assert ctx.assumed == {"snowflake_week_start": "0"}


@pytest.mark.parametrize(
    ("week_start", "expected"),
    [
        # 2024-01-01 Monday, 2024-01-03 Wednesday, 2024-01-07 Sunday.
        (0, [dt.date(2024, 1, 1), dt.date(2024, 1, 1), dt.date(2024, 1, 1)]),
        (1, [dt.date(2024, 1, 1), dt.date(2024, 1, 1), dt.date(2024, 1, 1)]),
        (3, [dt.date(2023, 12, 27), dt.date(2024, 1, 3), dt.date(2024, 1, 3)]),
        (7, [dt.date(2023, 12, 31), dt.date(2023, 12, 31), dt.date(2024, 1, 7)]),
    ],
)
def test_snowflake_week_truncation_follows_the_assumed_week_start(week_start, expected):
    source = "SELECT DATE_TRUNC('week', o_orderdate) AS w FROM SALES.ORDERS ORDER BY o_orderkey"
    values, diagnostics = weekdays(
        "snowflake", source, Assumptions(snowflake_week_start=week_start)
    )
    assert values == expected
    assert any(f"WEEK_START = {week_start}" in d for d in diagnostics), diagnostics
