"""A script of several tables, rendered ``--to duckdb`` / ``--to spark``, runs as it is in
that engine: it builds each table before the statements that read it, and its last query
gives the rows the source script gives (by hand) and the rows of the tables built one by
one."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest
import sqlglot
from click.testing import CliRunner
from sqlglot import exp
from sqlglot.tokens import TokenType

from benchmarks.corpus_bench import empty_table_ddl
from pipelines.cli.main import main
from sql.ansi import parse_type
from sql.catalog import load_catalog
from sql.engine_script import engine_script
from sql.render import render
from sql.translate import translate_script

ROWS = {
    "raw.orders": (
        ("o_orderkey", "o_custkey", "o_totalprice"),
        [
            (1, 10, Decimal("50.00")),
            (2, 10, Decimal("70.00")),
            (3, 20, Decimal("30.00")),
            (4, 30, Decimal("500.00")),
        ],
    ),
    "raw.customer": (
        ("c_custkey", "c_name"),
        [(10, "Ann"), (20, "Bob"), (30, "Cy"), (40, "Dee")],
    ),
}

SCRIPTS = [
    # (dialect, script, what each table defines, the last query's rows by hand)
    (
        "tsql",
        "SELECT o_custkey, SUM(o_totalprice) AS total INTO #t FROM dbo.Orders "
        "GROUP BY o_custkey;\n"
        "CREATE TABLE mart.totals AS SELECT o_custkey, total FROM #t;\n"
        "CREATE VIEW mart.big AS SELECT o_custkey FROM mart.totals WHERE total > 100;\n"
        "INSERT INTO mart.named SELECT c_custkey, c_name, t.total FROM dbo.Customer "
        "JOIN mart.totals t ON t.o_custkey = c_custkey;\n"
        "DROP TABLE #t;\n"
        "SELECT n.c_name, n.total FROM mart.named n JOIN mart.big b ON b.o_custkey = n.c_custkey",
        ["table", "view", "table", "query"],
        [("Ann", Decimal("120.00")), ("Cy", Decimal("500.00"))],
    ),
    (
        "snowflake",
        "CREATE OR REPLACE VIEW MART.BIG AS SELECT O_CUSTKEY, O_TOTALPRICE FROM SALES.ORDERS "
        "WHERE O_TOTALPRICE > 40;\n"
        "CREATE TABLE MART.COUNTS AS SELECT O_CUSTKEY, COUNT(*) AS N FROM MART.BIG "
        "GROUP BY O_CUSTKEY;\n"
        "SELECT C_NAME, N FROM SALES.CUSTOMER JOIN MART.COUNTS ON C_CUSTKEY = O_CUSTKEY;",
        ["view", "table", "query"],
        [("Ann", 2), ("Cy", 1)],
    ),
]


def _raw_tables_duckdb(con: duckdb.DuckDBPyConnection) -> None:
    catalog = load_catalog()
    for lake, (columns, rows) in ROWS.items():
        for statement in empty_table_ddl(catalog, lake):
            con.execute(statement)
        insert = exp.insert(
            exp.values([tuple(row) for row in rows]),
            exp.table_(lake.split(".")[1], db="raw"),
            columns=list(columns),
        )
        con.execute(insert.sql("duckdb"))


def _normal(rows) -> list[tuple]:
    return sorted(
        (str(r[0]), Decimal(str(r[1])) if isinstance(r[1], Decimal) else r[1]) for r in rows
    )


def _table_by_table(script) -> list[tuple]:
    """The last query's rows with every earlier table built alone, each from its own query."""
    with duckdb.connect() as con:
        _raw_tables_duckdb(con)
        con.execute("CREATE SCHEMA warehouse")
        *earlier, last = script.tables
        for table in earlier:
            query = render(table.ansi_sql, "duckdb")
            con.execute(f'CREATE TABLE "warehouse"."{table.name}" AS {query}')
        return con.sql(render(last.ansi_sql, "duckdb")).fetchall()


@pytest.mark.parametrize(("dialect", "source", "defines", "expected"), SCRIPTS)
def test_a_duckdb_script_runs_as_it_is_and_gives_the_rows(dialect, source, defines, expected):
    script = translate_script(source, dialect, file="script.sql")
    assert [t.defines for t in script.tables] == defines
    printed = engine_script(script, "duckdb")
    assert printed.startswith('CREATE SCHEMA IF NOT EXISTS "warehouse";')
    with duckdb.connect() as con:
        _raw_tables_duckdb(con)
        # The whole printed script at once: DuckDB runs every statement, and the result is
        # the last one's.
        rows = con.execute(printed).fetchall()
        # Run again over what the first run built: the script replaces its own tables.
        assert con.execute(printed).fetchall() == rows
        kinds = dict(
            con.sql(
                "SELECT table_name, table_type FROM information_schema.tables "
                "WHERE table_schema = 'warehouse'"
            ).fetchall()
        )
    assert _normal(rows) == _normal(expected) == _normal(_table_by_table(script))
    built = {t.name: t.defines for t in script.tables if t.defines != "query"}
    assert kinds == {
        name: "VIEW" if kind == "view" else "BASE TABLE" for name, kind in built.items()
    }


def _spark_statements(text: str) -> list[str]:
    """The statements of a script as Spark's tokenizer splits them at semicolons."""
    statements, start = [], 0
    for token in sqlglot.Dialect.get_or_raise("spark").tokenize(text):
        if token.token_type == TokenType.SEMICOLON:
            statements.append(text[start : token.start].strip())
            start = token.end + 1
    tail = text[start:].strip()
    return [s for s in [*statements, tail] if s]


@pytest.mark.parametrize(("dialect", "source", "defines", "expected"), SCRIPTS)
def test_a_spark_script_runs_as_it_is_and_gives_the_rows(
    spark_engine, tmp_path, dialect, source, defines, expected
):
    script = translate_script(source, dialect, file="script.sql")
    printed = engine_script(script, "spark")
    spark = spark_engine.session().newSession()
    catalog = load_catalog()
    # The schemas exist already, where this test puts them (as a user's would), so that the
    # script's tables are written under tmp_path rather than the working directory.
    for zone in ("raw", "warehouse"):
        location = exp.Literal.string(str(tmp_path / zone))
        spark.sql(f"CREATE SCHEMA {zone} LOCATION {location.sql('spark')}")
    try:
        for lake, (columns, rows) in ROWS.items():
            definitions = ", ".join(
                f"`{c}` {parse_type(kind).sql('spark')}" for c, kind in catalog.tables[lake].items()
            )
            spark.sql(f"CREATE TABLE {lake} ({definitions}) USING parquet")
            insert = exp.insert(
                exp.values([tuple(row) for row in rows]),
                exp.to_table(lake),
                columns=list(columns),
            )
            spark.sql(insert.sql("spark"))
        *setup, last = _spark_statements(printed)
        for statement in setup:
            spark.sql(statement)
        rows = [tuple(r) for r in spark.sql(last).collect()]
        # Run again over what the first run built: the script replaces its own tables.
        for statement in setup:
            spark.sql(statement)
        again = [tuple(r) for r in spark.sql(last).collect()]
    finally:
        for zone in ("warehouse", "raw"):
            spark.sql(f"DROP SCHEMA IF EXISTS {zone} CASCADE")
    assert _normal(rows) == _normal(again) == _normal(expected)


def test_the_cli_prints_the_engine_script_and_keeps_the_ansi_form(tmp_path):
    dialect, source, _, _ = SCRIPTS[0]
    file = tmp_path / "script.sql"
    file.write_text(source)
    runner = CliRunner()
    duck = runner.invoke(main, ["translate", "--from", dialect, "--to", "duckdb", str(file)])
    assert duck.exit_code == 0, duck.stderr
    script = translate_script(source, dialect, file=str(file), name="script")
    assert duck.stdout.rstrip() == engine_script(script, "duckdb", file=str(file))
    assert 'CREATE OR REPLACE TABLE "warehouse"."totals" AS' in duck.stdout
    assert 'CREATE OR REPLACE VIEW "warehouse"."big" AS' in duck.stdout
    spark = runner.invoke(main, ["translate", "--from", dialect, "--to", "spark", str(file)])
    assert "DROP TABLE IF EXISTS `warehouse`.`totals`;" in spark.stdout
    assert "CREATE TABLE `warehouse`.`totals` AS" in spark.stdout
    ansi = runner.invoke(main, ["translate", "--from", dialect, str(file)])
    assert ansi.stdout.rstrip() == script.script_sql()
    assert "CREATE" not in ansi.stdout and "-- warehouse.totals" in ansi.stdout
