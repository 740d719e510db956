"""TD-BYTEINT and TD-DECIMAL-ROUNDING (sql/rules/teradata_numbers.py).

Teradata's BYTEINT holds -128 to 127 and raises a numeric overflow outside it; sqlglot read
it as SMALLINT, so CAST(300 AS BYTEINT) gave 300 where Teradata stops. Teradata rounds a
DECIMAL cast to fewer places to the even digit by default; the engines' CAST rounds halves
away from zero, so CAST(0.025 AS DECIMAL(3,2)) gave .03 where Teradata gives .02."""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_EVEN, Decimal

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate_script
from tests.sql.engine_tables import imported_catalog, rows_on_engines

DDL = "CREATE TABLE sales.levels (k INTEGER, n INTEGER, d DECIMAL(8,2), s VARCHAR(5));"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("byteint"), "teradata", DDL)


def translate(sql: str, catalog) -> str:
    [table] = translate_script(sql, "teradata", file="q.sql", catalog=catalog).tables
    return table.ansi_sql


def levels(*rows: tuple) -> str:
    values = ", ".join(f"({k}, {n}, {d}, '{s}')" for k, n, d, s in rows)
    return f"SELECT * FROM (VALUES {values}) AS t(k, n, d, s)"


CASTS = (
    "SELECT k, CAST(n AS BYTEINT) AS n8, CAST(d AS BYTEINT) AS d8, CAST(s AS BYTEINT) AS s8 "
    "FROM sales.levels"
)


def test_values_inside_the_range_are_kept_and_fractions_cut_as_teradata_cuts(catalog, spark_engine):
    ansi = translate(CASTS, catalog)
    assert ansi.count("'TD-BYTEINT: numeric overflow") == 3, ansi
    inside = levels((1, 127, 127.99, "-128"), (2, -128, -128.99, "5"))
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, levels=inside)
    assert on_duckdb == on_spark == [(1, 127, 127, -128), (2, -128, -128, 5)]


@pytest.mark.parametrize(
    "row",
    [(1, 128, 0, "0"), (1, 0, -129.5, "0"), (1, 0, 0, "300")],
    ids=["integer", "decimal", "text"],
)
def test_a_value_outside_the_range_raises_on_both_engines(catalog, spark_engine, row):
    ansi = translate(CASTS, catalog)
    with pytest.raises(duckdb.Error, match="TD-BYTEINT"):
        rows_on_engines(spark_engine.session(), ansi, levels=levels(row))
    spark_sql = render(
        ansi.replace('"raw"."levels" AS "levels"', f"({levels(row)}) AS levels"), "spark"
    )
    with pytest.raises(Exception, match="TD-BYTEINT"):
        spark_engine.session().sql(spark_sql).collect()


def test_a_literal_is_checked_at_translation(catalog):
    assert translate("SELECT CAST(-128 AS BYTEINT) AS b", catalog).split() == [
        "SELECT",
        "CAST(-128",
        "AS",
        "SMALLINT)",
        "AS",
        '"b"',
    ]
    with pytest.raises(TranslationError) as refused:
        translate("SELECT CAST(300 AS BYTEINT) AS b", catalog)
    [found] = refused.value.diagnostics
    assert (found.rule, found.line, found.col) == ("TD-BYTEINT", 1, 13)
    assert "not 300" in found.message


def test_a_later_select_of_a_union_is_held_to_a_first_byteint_column(catalog):
    # The CAST's type keeps its declared BYTEINT, so TD-SET-TYPES guards the later value.
    ansi = translate(
        "SELECT CAST(k AS BYTEINT) AS b FROM sales.levels UNION ALL SELECT n FROM sales.levels",
        catalog,
    )
    assert "TD-SET-TYPES: numeric overflow" in ansi and "(BYTEINT)" in ansi, ansi


def test_a_volatile_tables_byteint_column_is_guarded_where_rows_go_into_it(catalog):
    script = (
        "CREATE VOLATILE TABLE v (b BYTEINT) ON COMMIT PRESERVE ROWS; "
        "INSERT INTO v SELECT n FROM sales.levels; SELECT b FROM v;"
    )
    ansi = translate(script, catalog)
    for n, fits in ((127, True), (128, False)):
        sql = render(
            ansi.replace('"raw"."levels" AS "levels"', f"({levels((1, n, 0, '0'))}) AS levels"),
            "duckdb",
        )
        if fits:
            assert duckdb.connect().sql(sql).fetchall() == [(127,)]
        else:
            with pytest.raises(duckdb.Error, match="TD-BYTEINT"):
                duckdb.connect().sql(sql).fetchall()


def test_a_value_that_changes_each_time_it_is_read_is_refused(catalog):
    with pytest.raises(TranslationError) as refused:
        translate("SELECT CAST(RANDOM(1, 500) AS BYTEINT) AS b FROM sales.levels", catalog)
    assert {d.rule for d in refused.value.diagnostics} == {"TD-BYTEINT"}


def test_a_decimal_cast_rounds_a_halfway_value_to_the_even_digit(catalog, spark_engine):
    # Teradata's "Rounding" table for a DECIMAL(3,2): .015 -> .02, .025 -> .02, .0251 -> .03.
    ansi = translate(
        "SELECT k, CAST(d AS DECIMAL(3,1)) AS r, CAST(-d AS DECIMAL(3,1)) AS m, "
        "CAST(d AS DECIMAL(8,2)) AS same FROM sales.levels",
        catalog,
    )
    assert ansi.count("CASE") == 2, ansi  # the cast to d's own places removes nothing
    rows = levels((1, 0, 1.25, "0"), (2, 0, 1.35, "0"), (3, 0, 1.26, "0"), (4, 0, 1.24, "0"))
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, levels=rows)
    expected = [
        (1, Decimal("1.2"), Decimal("-1.2"), Decimal("1.25")),
        (2, Decimal("1.4"), Decimal("-1.4"), Decimal("1.35")),
        (3, Decimal("1.3"), Decimal("-1.3"), Decimal("1.26")),
        (4, Decimal("1.2"), Decimal("-1.2"), Decimal("1.24")),
    ]
    assert on_duckdb == on_spark == expected


@pytest.mark.parametrize(
    ("literal", "written"),
    [("0.015", "0.015"), ("0.025", "0.02"), ("-0.025", "-0.02"), ("0.0251", "0.0251")],
)
def test_a_decimal_literal_is_rounded_at_translation(catalog, literal, written):
    # Only a halfway value the engines would take the other way is written rounded.
    ansi = translate(f"SELECT CAST({literal} AS DECIMAL(3,2)) AS d", catalog)
    assert ansi.split()[1] == f"CAST({written}", ansi
    [(value,)] = duckdb.connect().sql(render(ansi, "duckdb")).fetchall()
    assert value == Decimal(literal).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


def test_the_assumption_is_stated_and_true_keeps_the_engines_rounding(catalog):
    [table] = translate_script(
        "SELECT CAST(d AS DECIMAL(3,1)) AS r FROM sales.levels",
        "teradata",
        file="q.sql",
        catalog=catalog,
    ).tables
    assert [d.rule for d in table.diagnostics] == ["TD-DECIMAL-ROUNDING"]
    assert ("teradata_round_halfway_mag_up", "FALSE") in table.assumed
    away = translate_script(
        "SELECT CAST(d AS DECIMAL(3,1)) AS r FROM sales.levels",
        "teradata",
        file="q.sql",
        catalog=catalog,
        assumptions=replace(Assumptions(), teradata_round_halfway_mag_up="TRUE"),
    )
    assert "CASE" not in away.tables[0].ansi_sql
