"""Scripts as the client tools write them: T-SQL's GO (SSMS, sqlcmd) and BTEQ's dot commands.

The fixtures under ``tests/sql/fixtures/ssms/`` are written the way SQL Server Management
Studio 19/20's "Generate Scripts" lays out DDL (USE, object banners, SET ANSI_NULLS /
QUOTED_IDENTIFIER before each table, GO after each statement, bracketed names and types,
PRIMARY KEY CLUSTERED ... WITH (PAD_INDEX = OFF, ...) ON [PRIMARY], TEXTIMAGE_ON, ALTER TABLE
... ADD CONSTRAINT ... DEFAULT, "check for object existence" guards, Synapse's WITH
(DISTRIBUTION = ...)); ``tests/sql/fixtures/bteq/`` holds BTEQ jobs. They are imported and
translated the way a user runs them (``plumbline catalog import``, ``plumbline translate``),
and the translations run on DuckDB and Spark against rows computed by hand.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from sql.catalog import load_catalog
from sql.client_commands import read_bteq
from sql.diagnostics import TranslationError
from sql.lineage import projection_lines
from sql.render import render
from sql.translate import translate_script

FIXTURES = Path(__file__).parent / "fixtures"
SSMS = FIXTURES / "ssms"
BTEQ = FIXTURES / "bteq"
PASSWORD = "Tr0ub4dor&3"  # the password the BTEQ fixtures log on with


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def ssms_catalog(tmp_path_factory) -> Path:
    """The catalog of the SSMS-scripted DDL, imported as a user does."""
    out = tmp_path_factory.mktemp("ssms") / "catalog.yaml"
    files = sorted(str(p) for p in SSMS.glob("*.sql"))
    result = _cli("catalog", "import", "--from", "tsql", *files, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    yield con, spark_engine.session().newSession()
    con.close()


def _rows(engines, sql: str, tables: dict[str, str]) -> tuple[list[tuple], list[tuple]]:
    """Rows of the ANSI ``sql`` on DuckDB and Spark, each lake table replaced by ``tables``'
    rows (a name and a SELECT ... FROM (VALUES ...))."""
    con, spark = engines
    for name, rows in tables.items():
        sql = sql.replace(f'"raw"."{name}" AS', f"({rows}) AS")
    on_duckdb = [tuple(r) for r in con.sql(render(sql, "duckdb")).fetchall()]
    on_spark = [tuple(r) for r in spark.sql(render(sql, "spark")).collect()]
    return on_duckdb, on_spark


# -- T-SQL's GO --------------------------------------------------------------------------


def test_ssms_generated_ddl_imports_every_table(ssms_catalog):
    catalog = load_catalog(ssms_catalog)
    assert sorted(catalog.tables) == [
        "raw.customer",
        "raw.dimdate",
        "raw.factsales",
        "raw.orderline",
        "raw.salesload",
        "raw.salesorderheader",
    ]
    assert catalog.tables["raw.customer"]["firstname"] == "VARCHAR(50)"
    assert catalog.tables["raw.salesorderheader"]["orderdate"] == "DATE"
    assert catalog.tables["raw.factsales"]["amount"] == "DECIMAL(18,2)"
    assert catalog.tables["raw.orderline"]["loadedat"] == "TIMESTAMP(3)"  # under IF NOT EXISTS
    # USE [SalesDW] names the database of the tables after it; the legacy type keeps no [ ].
    legacy = catalog.legacy["tsql"]
    assert legacy[("salesdw", "dbo", "customer")] == "raw.customer"
    assert legacy[("dbo", "factsales")] == "raw.factsales"  # that file has no USE
    text = ssms_catalog.read_text()
    assert "legacy: tsql nvarchar(50)" in text and "[" not in text


def test_ssms_ddl_reports_what_it_skips_in_one_located_line_each(tmp_path):
    file = SSMS / "synapse.FactSales.Tables.sql"
    result = _cli("catalog", "import", "--from", "tsql", str(file))
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert (
        f"{file}:6:1: info[CATALOG-SKIP]: table options DISTRIBUTION = HASH ( [CustomerKey] ), "
        "CLUSTERED COLUMNSTORE INDEX ORDER ([DateKey]), PARTITION ( [DateKey] RANGE RIGHT FOR "
        "VALUES (20230101, 20240101, 20250101) ) skipped: they say how the table is stored, not "
        "what it holds"
    ) in lines
    assert f"{file}:2:1: info[CATALOG-SKIP]: skipped SET ANSI_NULLS ON: not a CREATE TABLE" in lines
    assert lines[-1].startswith("catalog import: 3 tables, 10 columns (0 opaque)")


@pytest.mark.parametrize(
    ("ddl", "line"),
    [
        # Every CREATE TABLE is skipped (temporary, AS SELECT): nothing would be imported.
        ("CREATE TABLE #stage (a INT)\nGO\n", 1),
        ("SET NOCOUNT ON\nGO\nCREATE TABLE dbo.t AS SELECT 1 AS a\nGO\n", 3),
    ],
)
def test_a_file_of_create_tables_that_yields_no_table_is_an_error(tmp_path, ddl, line):
    file = tmp_path / "ddl.sql"
    file.write_text(ddl)
    out = tmp_path / "catalog.yaml"
    result = _cli("catalog", "import", "--from", "tsql", str(file), "-o", str(out))
    assert result.exit_code == 1
    assert f"{file}:{line}:1: error[CATALOG-EMPTY]: the file holds CREATE TABLE" in result.stderr
    assert not out.exists()


def test_a_create_table_under_if_else_is_an_error(tmp_path):
    file = tmp_path / "ddl.sql"
    file.write_text(
        "IF SERVERPROPERTY('EngineEdition') = 6\nBEGIN\nCREATE TABLE dbo.t (a INT)\nEND\n"
        "ELSE\nBEGIN\nCREATE TABLE dbo.t (a BIGINT)\nEND\nGO\n"
    )
    result = _cli("catalog", "import", "--from", "tsql", str(file))
    assert result.exit_code == 1
    assert f"{file}:1:1: error[CATALOG-PARSE]: CREATE TABLE under IF ... ELSE" in result.stderr


def test_a_create_table_sqlglot_cannot_read_is_an_error_not_a_skip(tmp_path):
    file = tmp_path / "ddl.sql"
    file.write_text(
        "CREATE TABLE dbo.ok (a INT)\nGO\nCREATE TABLE dbo.t (a INT) WITH SYSTEM FOO\nGO\n"
    )
    result = _cli("catalog", "import", "--from", "tsql", str(file))
    assert result.exit_code == 1
    assert f"{file}:3:1: error[CATALOG-PARSE]: cannot parse this CREATE TABLE" in result.stderr


GO_SCRIPTS = [
    # GO alone on its line, in any case, after a ; or not, with a count of 1 or a comment.
    "SELECT r_name FROM dbo.Region\nGO",
    "SELECT r_name FROM dbo.Region;\ngo\n",
    "SELECT r_name FROM dbo.Region\n  Go -- end of batch\n",
    "SELECT r_name FROM dbo.Region\nGO 1\n",
    "GO\nSELECT r_name FROM dbo.Region\nGO\nGO\n",
    "/* header */\nGO\nSELECT r_name\nFROM dbo.Region\nGO\n",
]


@pytest.mark.parametrize("script", GO_SCRIPTS)
def test_go_ends_a_batch_wherever_ssms_writes_it(script):
    alone = translate_script("SELECT r_name FROM dbo.Region", "tsql").tables[0].ansi_sql
    assert translate_script(script, "tsql").tables[0].ansi_sql == alone


def test_go_that_is_not_alone_on_its_line_is_a_name():
    # A column alias GO (legal T-SQL): sqlcmd splits batches only at a line holding GO.
    sql = translate_script("SELECT r_name go FROM dbo.Region", "tsql").tables[0].ansi_sql
    assert '"go"' in sql
    # ... and a line GO inside a comment or a string is no separator either.
    script = "SELECT r_name, '\nGO\n' AS s FROM dbo.Region /*\nGO\n*/"
    # (a line break in a literal is written as the standard's Unicode escape)
    assert "U&'\\000AGO\\000A'" in translate_script(script, "tsql").tables[0].ansi_sql


def test_go_with_a_count_is_refused_at_its_line():
    with pytest.raises(TranslationError) as raised:
        translate_script(
            "INSERT INTO #t SELECT 1 AS a\nGO 5\nSELECT a FROM #t", "tsql", file="s.sql"
        )
    assert [d.format() for d in raised.value.diagnostics if d.rule == "SESSION-SETTING"] == [
        "s.sql:2:1: error[SESSION-SETTING]: GO 5 runs the batch before it again that many "
        "times (sqlcmd, SSMS): not translated; repeat the statements, or run the script so often"
    ]


def test_ssms_select_top_rows_script_translates(ssms_catalog):
    result = _cli(
        "translate",
        "--from",
        "tsql",
        "--catalog",
        str(ssms_catalog),
        str(SSMS / "queries/SelectTopNRows.sql"),
    )
    assert result.exit_code == 0, result.stderr
    assert 'FROM "raw"."customer" AS "customer"' in result.stdout
    assert "FETCH FIRST 1000 ROWS ONLY" in result.stdout


ORDERS = (
    "SELECT * FROM (VALUES (1, DATE '2024-01-31', CAST(10.0000 AS DECIMAL(19,4)), 7), "
    "(2, DATE '2024-02-01', CAST(20.0000 AS DECIMAL(19,4)), 7), "  # a Thursday
    "(3, DATE '2024-02-05', CAST(5.5000 AS DECIMAL(19,4)), 8), "  # a Monday
    "(4, DATE '2024-04-01', CAST(1.0000 AS DECIMAL(19,4)), 8), "  # a Monday, day 60
    "(5, DATE '2024-04-02', CAST(99.0000 AS DECIMAL(19,4)), 8)) "  # day 61: outside
    "AS t(salesorderid, orderdate, subtotal, customerid)"
)


def test_ssms_report_with_use_set_datefirst_and_unpadded_dates_runs_exact(ssms_catalog, engines):
    """USE, SET NOCOUNT, SET DATEFIRST 1 (weekdays from Monday), WITH (NOLOCK), and
    '2024-2-01' read as 1 February 2024 by T-SQL's ymd date format."""
    file = SSMS / "queries/weekday_revenue.sql"
    result = _cli("translate", "--from", "tsql", "--catalog", str(ssms_catalog), str(file))
    assert result.exit_code == 0, result.stderr
    notes = result.stderr
    assert f"{file}:4:1: info[SESSION-SETTING]: SET DATEFIRST 1: the statements after it" in notes
    assert "warning[TSQL-DATEFIRST]" not in notes and "info[TSQL-DATEFIRST]" in notes
    # dbo.SalesOrderHeader lacks only the database, which USE states: no assumption left.
    assert f"{file}:10:6: info[NAME-DEFAULT]: dbo.SalesOrderHeader resolved to" in notes
    # Thursday is 4 and Monday 1 under DATEFIRST 1; 1 April is day 60, 2 April is not in.
    expected = [(1, 2, Decimal("6.5000")), (4, 1, Decimal("20.0000"))]
    for found in _rows(engines, result.stdout, {"salesorderheader": ORDERS}):
        assert sorted(found) == expected


def test_sqlcmd_load_script_with_drop_guard_and_synapse_ctas(ssms_catalog, engines):
    file = SSMS / "queries/customer_orders_load.sql"
    result = _cli("translate", "--from", "tsql", "--catalog", str(ssms_catalog), str(file))
    assert result.exit_code == 0, result.stderr
    assert (
        f"{file}:18:1: info[SESSION-SETTING]: table options DISTRIBUTION = HASH([AccountNumber]), "
        "CLUSTERED COLUMNSTORE INDEX skipped: they say how the table is stored, not what it holds"
    ) in result.stderr
    customers = "SELECT * FROM (VALUES (7, 'AW7'), (8, 'AW8')) AS t(customerid, accountnumber)"
    for found in _rows(engines, result.stdout, {"salesorderheader": ORDERS, "customer": customers}):
        assert sorted(found) == [("AW7", 2, Decimal("30.0000")), ("AW8", 3, Decimal("105.5000"))]


# -- BTEQ ----------------------------------------------------------------------------------


def test_bteq_commands_are_blanked_to_the_same_length_and_lines():
    text = (BTEQ / "late_orders.bteq").read_text()
    script = read_bteq(text)
    assert PASSWORD not in script.text
    assert len(script.text) == len(text)
    assert script.text.count("\n") == text.count("\n")
    assert [c.name for c in script.commands] == [
        "SET", "LOGON", "SET", "IF", "IF", "LOGOFF", "QUIT",
    ]  # fmt: skip


COMMANDS = [
    # (the command's line, severity, words in its message)
    (".LOGON tdprod/etl,pa'ss;", "info", "logs BTEQ on"),
    (".logoff", "info", "ends BTEQ's session"),
    (".SET WIDTH 254", "info", "shows results"),
    (".SET TITLEDASHES OFF", "info", "shows results"),
    (".IF ERRORCODE <> 0 THEN .QUIT 8", "info", "acts only after a statement fails"),
    (".IF ERRORLEVEL >= 8 THEN .GOTO done", "info", "acts only after a statement fails"),
    (".if errorcode > 0 then .quit 4;", "info", "acts only after a statement fails"),
    (".IF ERRORCODE <> 3807 THEN .QUIT 1", "error", "which statements run next"),
    (".IF ERRORCODE >= 0 THEN .QUIT 1", "error", "which statements run next"),
    (".IF ERRORCODE = 0 THEN .GOTO done", "error", "ACTIVITYCOUNT"),
    (".IF ACTIVITYCOUNT = 0 THEN .QUIT 1", "error", "which statements run next"),
    (".EXPORT REPORT FILE = /tmp/out.txt", "error", "writes the results"),
    (".RUN FILE = common.bteq", "error", "another file"),
    (".OS rm -f /tmp/out.txt", "error", "operating-system command"),
    (".GOTO done", "error", "skips the statements"),
    (".SET RETLIMIT 10", "error", "limits the rows"),
    (".SET SESSION TRANSACTION ANSI", "info", "teradata_session_mode ANSI"),
    (".FROBNICATE", "error", "not a BTEQ command"),
]


@pytest.mark.parametrize(("line", "severity", "words"), COMMANDS)
def test_each_bteq_command_is_skipped_or_refused_by_name(line, severity, words):
    (command,) = read_bteq(f"{line}\nSEL 1;\n").commands
    assert command.severity == severity
    assert words in command.message
    assert "pa'ss" not in command.message and "/tmp" not in command.message


def test_a_script_of_bteq_commands_alone_says_what_it_refuses():
    with pytest.raises(TranslationError) as raised:
        translate_script(
            ".if errorcode > 0 then .quit 4;\n.RUN FILE=POSTING\n", "teradata", file="j"
        )
    assert [d.format() for d in raised.value.diagnostics] == [
        "j:2:1: error[BTEQ-COMMAND]: .RUN runs the statements of another file here; translate "
        "that file on its own: not translated"
    ]


def test_lineage_reads_a_bteq_job_without_its_commands():
    text = (BTEQ / "late_orders.bteq").read_text()
    assert projection_lines(text, "teradata", "total") == (20, 20, "SEL custkey, total")


def test_a_dot_line_inside_a_comment_or_string_is_no_command():
    text = "/*\n.QUIT\n*/ SEL '\n.LOGON x\n' AS a;\n"
    assert read_bteq(text) == read_bteq(text).__class__(text, ())


def test_bteq_job_translates_and_runs_exact_and_never_shows_the_password(engines, tmp_path):
    file = BTEQ / "late_orders.bteq"
    result = _cli("translate", "--from", "teradata", str(file))
    assert result.exit_code == 0, result.stderr
    assert PASSWORD not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert (
        f"{file}:3:1: info[BTEQ-COMMAND]: .LOGON skipped: it logs BTEQ on (its text, which holds a password, is not read)"
        in lines
    )
    assert any("info[SESSION-SETTING]: DATABASE SALES_DB" in line for line in lines)
    assert any("info[SESSION-SETTING]: COLLECT STATISTICS skipped" in line for line in lines)
    orders = (
        "SELECT * FROM (VALUES (1, 7, 'F', CAST(1500.00 AS DECIMAL(15,2))), "
        "(2, 7, 'F', CAST(700.00 AS DECIMAL(15,2))), (3, 8, 'O', CAST(9000.00 AS DECIMAL(15,2))), "
        "(4, 9, 'F', CAST(100.00 AS DECIMAL(15,2)))) "
        "AS t(o_orderkey, o_custkey, o_orderstatus, o_totalprice)"
    )
    for found in _rows(engines, result.stdout, {"orders": orders}):
        assert sorted(found) == [(7, Decimal("2200.00"))]


def test_a_refused_bteq_script_shows_no_password_either(tmp_path):
    file = tmp_path / "job.bteq"
    file.write_text(
        f".LOGON tdprod/etl_user,{PASSWORD}\n.EXPORT REPORT FILE = out.txt\n"
        "SEL o_orderkey FROM SALES_DB.ORDERS;\n.QUIT 0\nSEL 1;\n"
    )
    result = _cli("translate", "--from", "teradata", str(file))
    assert result.exit_code == 1
    assert PASSWORD not in result.stdout + result.stderr
    assert f"{file}:2:1: error[BTEQ-COMMAND]: .EXPORT writes the results" in result.stderr
    assert f"{file}:4:1: error[BTEQ-COMMAND]: .QUIT ends the BTEQ script before" in result.stderr


def test_bteq_ddl_imports_without_the_password(tmp_path):
    file = tmp_path / "ddl.bteq"
    file.write_text(
        f".LOGON tdprod/dba,{PASSWORD}\nDATABASE SALES_DB;\n"
        "CREATE MULTISET TABLE late_orders (o_orderkey INTEGER, o_due DATE) PRIMARY INDEX (o_orderkey);\n"
        ".LOGOFF\n"
    )
    result = _cli("catalog", "import", "--from", "teradata", str(file))
    assert result.exit_code == 0, result.stderr
    assert PASSWORD not in result.stdout + result.stderr
    assert "SALES_DB.late_orders: raw.late_orders" in result.stdout
    assert (
        f"{file}:1:1: info[CATALOG-SKIP]: skipped .LOGON: a BTEQ command, not DDL" in result.stderr
    )


def test_session_transaction_ansi_makes_undeclared_tables_multiset():
    script = (
        ".SET SESSION TRANSACTION ANSI\n.LOGON tdprod/etl,x\n"
        "CREATE VOLATILE TABLE vt (k INTEGER) ON COMMIT PRESERVE ROWS;\n"
        "INSERT INTO vt SEL o_custkey FROM SALES_DB.ORDERS;\nSEL k FROM vt;\n"
    )
    table = translate_script(script, "teradata").tables[0]
    assert "DISTINCT" not in table.ansi_sql  # MULTISET in ANSI mode: duplicates kept
    notes = [d.format() for d in table.diagnostics if d.rule == "TD-SET-TABLE"]
    assert notes == [
        "<stdin>:3:1: info[TD-SET-TABLE]: vt is declared neither SET nor MULTISET: a MULTISET "
        "table in ANSI session mode (the script's .SET SESSION TRANSACTION at 1:1 states it)"
    ]
    assert "teradata_session_mode" not in dict(table.assumed)


VOLATILE = [
    # (script, its rows): CREATE [SET|MULTISET] VOLATILE in either order, AS (...) WITH DATA
    # or declared columns and INSERT ... SEL; ON COMMIT PRESERVE ROWS keeps the rows.
    (
        "CREATE MULTISET VOLATILE TABLE vt AS (SEL o_custkey FROM SALES_DB.ORDERS "
        "WHERE o_orderstatus = 'F') WITH DATA PRIMARY INDEX (o_custkey) ON COMMIT PRESERVE ROWS;\n"
        "SEL o_custkey, COUNT(*) AS n FROM vt GROUP BY o_custkey;",
        [(7, 2), (9, 1)],
    ),
    (
        "CREATE VOLATILE MULTISET TABLE vt, NO LOG (c INTEGER) ON COMMIT PRESERVE ROWS;\n"
        "INSERT INTO vt SEL o_custkey FROM SALES_DB.ORDERS;\n"
        "SEL c, COUNT(*) AS n FROM vt GROUP BY c;",
        [(7, 2), (8, 1), (9, 1)],
    ),
]


@pytest.mark.parametrize(("script", "rows"), VOLATILE)
def test_volatile_tables_are_script_local_tables(engines, script, rows):
    (table,) = translate_script(script, "teradata").tables
    orders = (
        "SELECT * FROM (VALUES (1, 7, 'F'), (2, 7, 'F'), (3, 8, 'O'), (4, 9, 'F')) "
        "AS t(o_orderkey, o_custkey, o_orderstatus)"
    )
    for found in _rows(engines, table.ansi_sql, {"orders": orders}):
        assert sorted(found) == rows


@pytest.mark.parametrize("on_commit", ["", " ON COMMIT DELETE ROWS"], ids=["default", "delete"])
def test_a_volatile_table_emptied_on_commit_is_refused(on_commit):
    script = (
        f"CREATE VOLATILE TABLE vt AS (SEL o_custkey FROM SALES_DB.ORDERS) WITH DATA{on_commit};\n"
        "SEL COUNT(*) AS n FROM vt;"
    )
    with pytest.raises(TranslationError) as raised:
        translate_script(script, "teradata", file="s.sql")
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.format().startswith(
        "s.sql:1:1: error[TEMP-TABLE]: temporary table vt is ON COMMIT DELETE ROWS"
    )
    assert "declare it ON COMMIT PRESERVE ROWS" in diagnostic.message


def test_dates_in_the_fixtures_are_what_the_expected_rows_say():
    # The expected weekdays above, checked against Python's calendar (Monday = 0).
    assert dt.date(2024, 2, 1).weekday() == 3 and dt.date(2024, 2, 5).weekday() == 0
    assert dt.date(2024, 2, 1) + dt.timedelta(days=60) == dt.date(2024, 4, 1)
