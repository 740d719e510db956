"""Session settings a script states (sql/session.py): skipped, stated as an assumption for the
statements after them, or refused where they change a result the translation would not."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.dependencies import script_dependencies
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate_script

QUERY = "SELECT r_name FROM dbo.Region"

SKIPPED = [
    "SET NOCOUNT ON",
    "SET NOCOUNT OFF",
    "SET XACT_ABORT ON",
    "SET NOCOUNT, XACT_ABORT ON",
    "SET ANSI_NULLS ON",
    "SET QUOTED_IDENTIFIER ON",
    "SET ANSI_PADDING ON",
    "SET ANSI_WARNINGS ON",
    "SET ARITHABORT ON",
    "SET CONCAT_NULL_YIELDS_NULL ON",
    "SET ANSI_DEFAULTS ON",
    "SET NUMERIC_ROUNDABORT OFF",
    "SET ROWCOUNT 0",
    "SET TEXTSIZE 2147483647",
    "SET DATEFORMAT mdy",
    "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
    "SET TRANSACTION ISOLATION LEVEL SNAPSHOT",
    "SET DEADLOCK_PRIORITY LOW",
    "SET LOCK_TIMEOUT 5000",
    "SET STATISTICS IO, TIME ON",
    "SET IMPLICIT_TRANSACTIONS OFF",
]


@pytest.mark.parametrize("setting", SKIPPED)
def test_settings_that_change_no_result_are_skipped_with_an_info_line(setting):
    (table,) = translate_script(f"{setting};\n{QUERY}", "tsql", file="s.sql").tables
    assert table.ansi_sql == translate_script(QUERY, "tsql").tables[0].ansi_sql
    notes = [d.format() for d in table.diagnostics if d.rule == "SESSION-SETTING"]
    assert len(notes) == 1 and notes[0].startswith("s.sql:1:1: info[SESSION-SETTING]: SET ")


REFUSED = [
    # (setting, words of the message: what the value changes)
    ("SET ANSI_NULLS OFF", "= NULL"),
    ("SET QUOTED_IDENTIFIER OFF", "a string rather than a name"),
    ("SET ANSI_WARNINGS OFF", "division by zero"),
    ("SET ARITHABORT OFF", "ANSI_WARNINGS is OFF"),
    ("SET CONCAT_NULL_YIELDS_NULL OFF", "'a' + NULL"),
    ("SET ANSI_PADDING OFF", "trailing blanks"),
    ("SET ROWCOUNT 10", "that many rows"),
    ("SET TEXTSIZE 100", "long text"),
    ("SET NOEXEC ON", "without running"),
    ("SET FMTONLY ON", "without rows"),
    ("SET DATEFORMAT dmy", "January 2 under dmy"),
    ("SET LANGUAGE Deutsch", "names of months and days"),
    ("SET DATEFIRST 9", "tsql_datefirst must be 1 (Monday) ... 7"),
    ("SET DATEFIRST @first", "known only when it runs"),
]


@pytest.mark.parametrize(("setting", "words"), REFUSED)
def test_settings_that_change_results_are_refused_at_their_line(setting, words):
    with pytest.raises(TranslationError) as raised:
        translate_script(f"SET NOCOUNT ON\nGO\n{setting}\nGO\n{QUERY}", "tsql", file="s.sql")
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.format().startswith("s.sql:3:1: error[SESSION-SETTING]: ")
    assert words in diagnostic.message


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    yield con, spark_engine.session().newSession()
    con.close()


def _values(engines, ansi_sql: str) -> tuple[list, list]:
    con, spark = engines
    days = "(SELECT * FROM (VALUES (DATE '2024-01-01'), (DATE '2024-01-07')) AS t(o_orderdate))"
    sql = ansi_sql.replace('"raw"."orders" AS', f"{days} AS")
    on_duckdb = sorted(r[0] for r in con.sql(render(sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark.sql(render(sql, "spark")).collect())
    return on_duckdb, on_spark


@pytest.mark.parametrize(("datefirst", "expected"), [(1, [1, 7]), (7, [1, 2]), (3, [5, 6])])
def test_set_datefirst_numbers_weekdays_for_the_statements_after_it(engines, datefirst, expected):
    # 2024-01-01 is a Monday, 2024-01-07 a Sunday: under DATEFIRST n, day n is 1.
    assert dt.date(2024, 1, 1).isoweekday() == 1 and dt.date(2024, 1, 7).isoweekday() == 7
    script = (
        f"SET DATEFIRST {datefirst};\nSELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders"
    )
    (table,) = translate_script(script, "tsql").tables
    assert "tsql_datefirst" not in dict(table.assumed)  # the script's, not assumed
    for found in _values(engines, table.ansi_sql):
        assert found == expected


def test_each_statement_is_translated_under_the_settings_before_it():
    script = (
        "CREATE TABLE before_set AS SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders;\n"
        "SET DATEFIRST 1;\n"
        "CREATE TABLE after_set AS SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders;\n"
    )
    before, after = translate_script(script, "tsql").tables
    assert dict(before.assumed)["tsql_datefirst"] == "7"
    assert "tsql_datefirst" not in dict(after.assumed)
    assert before.ansi_sql != after.ansi_sql


def test_a_setting_changed_after_a_temporary_table_is_refused():
    script = (
        "SELECT DATEPART(weekday, o_orderdate) AS wd INTO #days FROM dbo.Orders;\n"
        "SET DATEFIRST 1;\nSELECT wd FROM #days;"
    )
    with pytest.raises(TranslationError) as raised:
        translate_script(script, "tsql", file="s.sql")
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.format().startswith(
        "s.sql:2:1: error[SESSION-SETTING]: SET DATEFIRST 1 after the script made table days"
    )


def _two_databases() -> Catalog:
    columns = {"k": "INTEGER"}
    return Catalog(
        tables={"raw.sales_t": columns, "raw.stage_t": columns},
        legacy={
            "tsql": {("sales", "dbo", "t"): "raw.sales_t", ("stage", "dbo", "t"): "raw.stage_t"}
        },
    )


def test_use_names_the_database_the_names_after_it_resolve_in():
    catalog = _two_databases()
    with pytest.raises(TranslationError) as raised:
        translate_script("SELECT k FROM dbo.t", "tsql", catalog=catalog)
    assert raised.value.diagnostics[0].rule == "NAME-AMBIGUOUS"
    script = "USE [Stage]\nGO\nSELECT k FROM dbo.t\nGO\nUSE Sales;\nSELECT k AS s FROM dbo.t"
    first, second = translate_script(script, "tsql", catalog=catalog).tables
    assert first.source_tables == ("raw.stage_t",)
    assert second.source_tables == ("raw.sales_t",)
    assert not [d for d in first.diagnostics if d.severity == "warning"]


def test_each_statement_depends_on_the_tables_of_the_database_use_named_before_it():
    script = (
        "USE Stage;\nCREATE TABLE a AS SELECT k FROM dbo.t;\n"
        "USE Sales;\nCREATE TABLE b AS SELECT k FROM dbo.t;\n"
    )
    found = script_dependencies(script, "tsql", catalog=_two_databases())
    assert [(t.name, t.reads) for t in found] == [("a", ("raw.stage_t",)), ("b", ("raw.sales_t",))]


def test_teradata_database_and_collect_statistics():
    script = "DATABASE SALES_DB;\nCOLLECT STATS COLUMN (o_orderkey) ON orders;\nSEL o_orderkey FROM orders;"
    (table,) = translate_script(script, "teradata", file="s.sql").tables
    assert table.source_tables == ("raw.orders",)
    notes = {d.format() for d in table.diagnostics}
    assert (
        "s.sql:1:1: info[SESSION-SETTING]: DATABASE SALES_DB: the statements after it are "
        "translated with teradata_database = SALES_DB"
    ) in notes
    assert (
        "s.sql:2:1: info[SESSION-SETTING]: COLLECT STATISTICS skipped: it refreshes the "
        "optimizer's statistics, not what a query returns"
    ) in notes


@pytest.mark.parametrize("dialect", ["teradata", "oracle", "snowflake"])
def test_comment_on_is_skipped_with_an_info_line(dialect):
    script = (
        "CREATE TABLE t (a INTEGER);\nCOMMENT ON TABLE t IS 'the orders';\n"
        "COMMENT ON COLUMN t.a IS 'the key';"
    )
    (table,) = translate_script(script, dialect, file="s.sql").tables
    notes = {(d.rule, d.severity, d.line, d.col) for d in table.diagnostics}
    assert {("SESSION-SETTING", "info", 2, 1), ("SESSION-SETTING", "info", 3, 1)} <= notes
    assert any("COMMENT ON COLUMN t.a skipped" in d.message for d in table.diagnostics)


def test_teradata_query_bands_and_locking_modifiers_are_skipped_and_their_requests_read():
    script = (
        "SET QUERY_BAND = 'job=nightly;' UPDATE FOR SESSION;\n"
        "LOCKING TABLE SALES_DB.orders FOR ACCESS\n"
        "SEL o_orderkey FROM SALES_DB.orders WHERE o_orderkey > 7;"
    )
    (table,) = translate_script(script, "teradata", file="s.sql").tables
    assert table.source_tables == ("raw.orders",)
    assert "> 7" in table.ansi_sql and "LOCK" not in table.ansi_sql
    notes = {d.format() for d in table.diagnostics}
    assert (
        "s.sql:1:1: info[SESSION-SETTING]: SET QUERY_BAND skipped: it tags the session's or "
        "transaction's requests with names and values for workload management and accounting, "
        "not what a query returns"
    ) in notes
    assert (
        "s.sql:2:1: info[SESSION-SETTING]: LOCKING TABLE SALES_DB.orders FOR ACCESS skipped: "
        "the lock says which other sessions' changes Teradata lets the request see or wait "
        "for, not what it computes from the rows it reads"
    ) in notes


@pytest.mark.parametrize(
    "guard",
    [
        "IF OBJECT_ID('tempdb..#big') IS NOT NULL DROP TABLE #big;",
        "IF OBJECT_ID(N'tempdb..#big', N'U') IS NOT NULL\n    DROP TABLE #big",
        "IF EXISTS (SELECT * FROM sys.objects WHERE object_id = OBJECT_ID(N'tempdb..[#big]') "
        "AND type in (N'U'))\nDROP TABLE #big",
    ],
)
def test_an_existence_guard_around_drop_is_drop_if_exists(guard):
    script = (
        f"{guard}\nGO\nSELECT o_custkey INTO #big FROM dbo.Orders WHERE o_totalprice > 1000;\n"
        "SELECT COUNT(*) AS n FROM #big;\n"
    )
    (table,) = translate_script(script, "tsql").tables
    assert table.ansi_sql.startswith('WITH "big" AS')


def test_an_if_guard_on_another_object_or_with_other_statements_stays_refused():
    for script in (
        "IF OBJECT_ID('dbo.other') IS NOT NULL DROP TABLE #big;\nSELECT 1 AS a",
        "IF OBJECT_ID('tempdb..#big') IS NOT NULL BEGIN DROP TABLE #big; SELECT 2 AS b; END;\nSELECT 1 AS a",
    ):
        with pytest.raises(TranslationError) as raised:
            translate_script(script, "tsql")
        assert {d.rule for d in raised.value.diagnostics} == {"PROC-STATEMENT"}


def test_oracle_alter_session_states_the_date_format_for_the_statements_after_it():
    script = (
        "ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY-MM-DD';\n"
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate BETWEEN '1999-2-01' "
        "AND (CAST('1999-2-01' AS DATE) + 60);"
    )
    (table,) = translate_script(script, "oracle", file="s.sql").tables
    assert "CAST('1999-02-01' AS DATE)" in table.ansi_sql
    notes = [d for d in table.diagnostics if d.rule.startswith("DATE-STRING")]
    assert notes and all(d.severity == "info" for d in notes)
    assert "oracle_nls_date_format" not in dict(table.assumed)


def test_snowflake_alter_session_week_start():
    script = (
        "ALTER SESSION SET WEEK_START = 1;\nSELECT DAYOFWEEK(o_orderdate) AS d FROM SALES.ORDERS;"
    )
    (table,) = translate_script(script, "snowflake").tables
    assert [d.severity for d in table.diagnostics if d.rule == "SF-WEEK-START"] == ["info"]
    default = translate_script(script, "snowflake", assumptions=Assumptions(snowflake_week_start=1))
    assert default.tables[0].ansi_sql == table.ansi_sql
