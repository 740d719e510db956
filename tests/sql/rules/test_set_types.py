"""TD-SET-TYPES: Teradata gives a set operation's columns the types of its first SELECT,
cutting longer text of later SELECTs to the first's length (sql/rules/set_types.py).

The expected rows are Teradata's as its documented conversion gives them (Snowflake's
migration guide for Teradata, "UNION ALL Data Migration": 'value 1 abcdefghijk' of a
VARCHAR(20) column under a first SELECT's VARCHAR(10) comes out 'value 1 ab'), on DuckDB and
on Spark."""

from __future__ import annotations

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate_script
from tests.sql.engine_tables import imported_catalog, rows_on_engines

DDL = """
CREATE TABLE sales.short_names (k INTEGER, s VARCHAR(10), c CHAR(4), d DECIMAL(8,2));
CREATE TABLE sales.long_names (k INTEGER, s VARCHAR(20), c CHAR(4), d DECIMAL(8,4), n VARCHAR(5));
"""
SHORT = "SELECT * FROM (VALUES (1, 't2 row 1 a', 'ab', 1.25)) AS t(k, s, c, d)"
LONG = (
    "SELECT * FROM (VALUES (1, 'value 1 abcdefghijk', 'ab', 1.2345, 'abcde'), "
    "(2, 'value 2 abcdefghijk', 'cd', 2.5, NULL)) AS t(k, s, c, d, n)"
)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("set_types"), "teradata", DDL)


def translate(sql: str, catalog) -> str:
    [table] = translate_script(sql, "teradata", file="q.sql", catalog=catalog).tables
    return table.ansi_sql


def test_longer_text_of_a_later_select_is_cut_to_the_first_selects_length(catalog, spark_engine):
    ansi = translate(
        "SELECT k, s FROM sales.short_names UNION ALL SELECT k, s FROM sales.long_names "
        "UNION ALL SELECT k, n FROM sales.long_names",
        catalog,
    )
    assert "SUBSTRING" in ansi
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), ansi, short_names=SHORT, long_names=LONG
    )
    expected = sorted(
        [(1, "t2 row 1 a"), (1, "value 1 ab"), (2, "value 2 ab"), (1, "abcde"), (2, None)],
        key=repr,
    )
    assert on_duckdb == on_spark == expected


def test_an_expressions_length_is_not_taken_for_teradatas(catalog):
    # sqlglot types this CASE VARCHAR(10), Teradata VARCHAR(15): its longer text is cut.
    ansi = translate(
        "SELECT s FROM sales.short_names UNION ALL SELECT CASE WHEN k = 1 THEN s ELSE "
        "'longer than ten' END FROM sales.short_names",
        catalog,
    )
    rows = (
        "SELECT * FROM (VALUES (1, 't2 row 1 a', 'ab', 1.25), (2, 'x', 'cd', 2.5)) AS t(k, s, c, d)"
    )
    ansi = ansi.replace('"raw"."short_names" AS "short_names"', f"({rows}) AS short_names")
    assert sorted(duckdb.connect().sql(render(ansi, "duckdb")).fetchall()) == [
        ("longer tha",),
        ("t2 row 1 a",),
        ("t2 row 1 a",),
        ("x",),
    ]
    # ... and a first column's length is not known from it.
    with pytest.raises(TranslationError, match=r"1:89: error\[TD-SET-TYPES\].*VARCHAR of unknown"):
        translate(
            "SELECT CASE WHEN k = 1 THEN s ELSE 'x' END AS v FROM sales.short_names UNION ALL "
            "SELECT n FROM sales.long_names",
            catalog,
        )


def test_a_later_select_no_longer_than_the_first_is_left_as_written(catalog):
    ansi = translate(
        "SELECT k, s FROM sales.long_names UNION SELECT k, s FROM sales.short_names", catalog
    )
    assert "SUBSTRING" not in ansi


@pytest.mark.parametrize(
    ("sql", "located", "says"),
    [
        (  # CHAR(4) first: Teradata pads the later text to 4
            "SELECT c FROM sales.short_names UNION ALL SELECT n FROM sales.long_names",
            "1:50",
            "CHAR(4)",
        ),
        (  # a literal first: its length is not stated here
            "SELECT 'a' AS v FROM sales.short_names UNION ALL SELECT s FROM sales.long_names",
            "1:57",
            "the literal 'a'",
        ),
        (  # more places than the first DECIMAL(8, 2): rounded away
            "SELECT d FROM sales.short_names UNION SELECT d FROM sales.long_names",
            "1:46",
            "rounding away",
        ),
        (  # a fraction under an integer
            "SELECT k FROM sales.short_names UNION SELECT d FROM sales.long_names",
            "1:46",
            "rounding away",
        ),
    ],
)
def test_a_conversion_without_an_exact_form_is_refused_at_the_later_column(
    catalog, sql, located, says
):
    with pytest.raises(TranslationError) as raised:
        translate(sql, catalog)
    message = str(raised.value)
    assert f"q.sql:{located}: error[TD-SET-TYPES]" in message and says in message, message


def test_literals_of_one_length_are_left_as_written(catalog):
    ansi = translate(
        "SELECT 'X' AS kind, k FROM sales.short_names UNION ALL SELECT 'Y', k FROM "
        "sales.long_names",
        catalog,
    )
    assert "SUBSTRING" not in ansi


def test_other_dialects_keep_the_standards_union_types(catalog):
    # The rule is Teradata's only: the standard's UNION type holds both sides.
    from sql.rules import load_all

    assert load_all()["TD-SET-TYPES"].dialects == ("teradata",)


def test_one_column_of_one_table_on_both_sides_is_left_as_written(tmp_path):
    # Its type is one, whatever the catalog says of its length.
    from sql.catalog import load_catalog

    path = tmp_path / "catalog.yaml"
    path.write_text(
        "tables:\n  raw.names:\n    k: BIGINT\n    c_name: VARCHAR\n"
        "  raw.others:\n    k: BIGINT\n    c_name: VARCHAR\n"
        "legacy:\n  teradata:\n    db.names: raw.names\n    db.others: raw.others\n"
    )
    catalog = load_catalog(path)
    # Two columns of unknown lengths: Teradata's conversion is not known; refused.
    with pytest.raises(TranslationError, match=r"1:46: error\[TD-SET-TYPES\].*unknown length"):
        translate("SELECT c_name FROM db.names UNION ALL SELECT c_name FROM db.others", catalog)
    ansi = translate(
        "SELECT c_name FROM db.names WHERE k = 1 UNION ALL SELECT c_name FROM db.names n "
        "WHERE k = 2",
        catalog,
    )
    assert "SUBSTRING" not in ansi


NUMBERS_DDL = """
CREATE TABLE sales.numbers (k INTEGER, b BYTEINT, sm SMALLINT, dc DECIMAL(8,2));
CREATE TABLE sales.moments (t0 TIMESTAMP(0), t6 TIMESTAMP(6), tm0 TIME(0), tm6 TIME(6), d DATE,
  s VARCHAR(10));
"""


@pytest.fixture(scope="module")
def numbers(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("set_numbers"), "teradata", NUMBERS_DDL)


def numbers_rows(*rows: tuple) -> str:
    values = ", ".join(f"({k}, {b}, {sm}, {dc})" for k, b, sm, dc in rows)
    return f"SELECT * FROM (VALUES {values}) AS t(k, b, sm, dc)"


# A literal 1 is BYTEINT in Teradata, a BYTEINT column -128..127 (the lake's SMALLINT holds
# more), a DECIMAL(8, 2) up to 999999.99: a later SELECT's wider number is guarded.
GUARDED = (
    "SELECT 1 AS n, b, dc FROM sales.numbers WHERE k = 1 UNION ALL "
    "SELECT k, sm, k FROM sales.numbers WHERE k > 1"
)


def test_a_later_number_the_first_type_does_not_hold_raises_as_teradata_does(numbers, spark_engine):
    ansi = translate(GUARDED, numbers)
    assert ansi.count("'TD-SET-TYPES: numeric overflow") == 3, ansi
    fits = numbers_rows((1, 5, 7, 1.25), (2, 100, 127, 3.5))
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), ansi, numbers=fits)
    assert on_duckdb == on_spark == [(1, 5, 1.25), (2, 127, 2)]
    overflows = numbers_rows((1, 5, 7, 1.25), (2, 100, 128, 3.5))
    with pytest.raises(duckdb.Error, match="TD-SET-TYPES"):
        rows_on_engines(spark_engine.session(), ansi, numbers=overflows)
    spark_sql = render(
        ansi.replace('"raw"."numbers" AS "numbers"', f"({overflows}) AS numbers"), "spark"
    )
    with pytest.raises(Exception, match="TD-SET-TYPES"):
        spark_engine.session().sql(spark_sql).collect()
    # A later expression's range is not its type here (MAX(dc) * 2 exceeds DECIMAL(8, 2)).
    doubled = translate(
        "SELECT dc FROM sales.numbers UNION ALL SELECT MAX(dc) * 2 FROM sales.numbers", numbers
    )
    assert doubled.count("'TD-SET-TYPES: numeric overflow") == 1, doubled


def test_a_recursive_query_seeded_with_a_literal_stops_where_teradata_overflows(numbers):
    recursive = (
        "WITH RECURSIVE v(x) AS (SELECT 1 FROM sales.numbers WHERE k = 1 UNION ALL "
        "SELECT x * 2 FROM v WHERE x < {limit}) SELECT x FROM v"
    )
    one = numbers_rows((1, 5, 7, 1.25))
    fits = translate(recursive.format(limit=50), numbers)
    duckdb_sql = render(
        fits.replace('"raw"."numbers" AS "numbers"', f"({one}) AS numbers"), "duckdb"
    )
    assert sorted(duckdb.connect().sql(duckdb_sql).fetchall()) == [(2**i,) for i in range(7)]
    # The guard's RAISE_ERROR branch is no value: the column's type is still one on both
    # engines (no PORTABLE-TYPE warning).
    [table] = translate_script(
        recursive.format(limit=50), "teradata", file="q.sql", catalog=numbers
    ).tables
    assert not [d for d in table.diagnostics if d.rule == "PORTABLE-TYPE"], table.diagnostics
    overflows = translate(recursive.format(limit=100), numbers)  # 64 * 2 = 128
    duckdb_sql = render(
        overflows.replace('"raw"."numbers" AS "numbers"', f"({one}) AS numbers"), "duckdb"
    )
    with pytest.raises(duckdb.Error, match="BYTEINT"):
        duckdb.connect().sql(duckdb_sql).fetchall()


@pytest.mark.parametrize(
    ("sql", "located", "says"),
    [
        (  # Teradata documents an error for a lower precision, not what a UNION gives
            "SELECT t0 FROM sales.moments UNION ALL SELECT t6 FROM sales.moments",
            "1:47",
            "fractional-second digits",
        ),
        (
            "SELECT tm0 FROM sales.moments UNION SELECT tm6 FROM sales.moments",
            "1:44",
            "fractional-second digits",
        ),
        (  # an expression's digits are not known: up to six
            "SELECT t0 FROM sales.moments UNION ALL SELECT t0 + INTERVAL '1' DAY "
            "FROM sales.moments",
            "1:47",
            "(TIMESTAMP of up to 6 fractional digits) to the first SELECT's type (TIMESTAMP(0))",
        ),
        (  # through the session time zone, both ways
            "SELECT t0 FROM sales.moments UNION ALL SELECT d FROM sales.moments",
            "1:47",
            "session time zone",
        ),
        (
            "SELECT d FROM sales.moments UNION ALL SELECT t6 FROM sales.moments",
            "1:46",
            "session time zone",
        ),
        (  # another kind: Teradata's conversion, the engines' common type
            "SELECT s FROM sales.moments UNION ALL SELECT t0 FROM sales.moments",
            "1:46",
            "(datetime to text",
        ),
        (
            "SELECT 1 AS n FROM sales.numbers UNION ALL SELECT '2' FROM sales.numbers",
            "1:51",
            "(text to number",
        ),
        (
            "SELECT t6 FROM sales.moments UNION ALL SELECT tm6 FROM sales.moments",
            "1:47",
            "(a TIME with the current date)",
        ),
        (  # a later column of unknown type under a text of known length
            "SELECT s FROM sales.moments UNION ALL SELECT REGEXP_REPLACE(s, 'a', 'b') "
            "FROM sales.moments",
            "1:46",
            "not known here",
        ),
        (  # ... under a DATE, a DECIMAL, a literal
            "SELECT d FROM sales.moments UNION ALL SELECT CASE WHEN s = 'a' THEN NULL END "
            "FROM sales.moments",
            "1:56",
            "not known here",
        ),
        (
            "SELECT dc FROM sales.numbers UNION ALL SELECT CASE WHEN k = 1 THEN NULL END "
            "FROM sales.numbers",
            "1:57",
            "(DECIMAL(8, 2)), which can change",
        ),
        (
            "SELECT 1 AS n FROM sales.numbers UNION ALL SELECT CASE WHEN k = 1 THEN NULL END "
            "FROM sales.numbers",
            "1:61",
            "(BYTEINT), which can change",
        ),
        (  # a guard would draw another random number than the one it returns
            "SELECT 1 AS n FROM sales.numbers UNION ALL SELECT CAST(RANDOM(1, 200) AS INTEGER) "
            "FROM sales.numbers",
            "1:56",
            "compute it again",
        ),
        (  # "0.5": DECIMAL(1, 1) or DECIMAL(2, 1), the documentation does not say
            "SELECT 0.5 AS n FROM sales.numbers UNION ALL SELECT 2.5 FROM sales.numbers",
            "1:53",
            "leaves open",
        ),
        (  # sqlglot types the product DECIMAL(8, 2); Teradata's has 4 places
            "SELECT dc FROM sales.numbers UNION ALL SELECT dc * dc FROM sales.numbers",
            "1:47",
            "(an expression of 4 places) to the first SELECT's type (DECIMAL(8, 2)), rounding",
        ),
        (  # a CAST's type is its own, though annotation drops its parameters
            "SELECT CAST(k AS DECIMAL(5, 0)) AS n FROM sales.numbers UNION ALL SELECT dc "
            "FROM sales.numbers",
            "1:74",
            "(DECIMAL(8, 2)) to the first SELECT's type (DECIMAL(5, 0)), rounding",
        ),
        (  # a quotient's places are not known here
            "SELECT dc / 3 AS n FROM sales.numbers UNION ALL SELECT dc FROM sales.numbers",
            "1:56",
            "DECIMAL of places not known here",
        ),
        (  # 1.5 is DECIMAL(2, 1): 2.55 is rounded
            "SELECT 1.5 AS n FROM sales.numbers UNION ALL SELECT 2.55 FROM sales.numbers",
            "1:53",
            "(2.55) to the first SELECT's type (DECIMAL(2, 1)), rounding away",
        ),
    ],
)
def test_a_conversion_of_unknown_result_is_refused_at_the_later_column(numbers, sql, located, says):
    with pytest.raises(TranslationError) as raised:
        translate(sql, numbers)
    message = str(raised.value)
    assert f"q.sql:{located}: error[TD-SET-TYPES]" in message and says in message, message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT t6 FROM sales.moments UNION ALL SELECT t0 FROM sales.moments",
        "SELECT tm6 FROM sales.moments UNION SELECT tm0 FROM sales.moments",
        "SELECT t6 FROM sales.moments UNION ALL SELECT t0 + INTERVAL '1' DAY FROM sales.moments",
        "SELECT t0 FROM sales.moments UNION ALL SELECT NULL FROM sales.moments",
        "SELECT d FROM sales.moments UNION ALL SELECT d FROM sales.moments WHERE s = 'a'",
        "SELECT -128 AS n FROM sales.numbers UNION ALL SELECT 127 FROM sales.numbers",
        "SELECT 1.5 AS n FROM sales.numbers UNION ALL SELECT 2.50 FROM sales.numbers",
        "SELECT 1000 AS n, 1 AS m FROM sales.numbers UNION ALL SELECT sm, b FROM sales.numbers",
        "SELECT dc FROM sales.numbers UNION ALL SELECT sm FROM sales.numbers",
        # SUM's type in Teradata is wider than the DECIMAL(8, 2) typed here: where it
        # overflows is not known, and no value differs (Teradata raises there)
        "SELECT SUM(dc) AS n FROM sales.numbers UNION ALL SELECT k FROM sales.numbers",
    ],
)
def test_a_later_column_the_first_type_holds_is_left_as_written(numbers, sql):
    ansi = translate(sql, numbers)
    assert "TD-SET-TYPES" not in ansi and "SUBSTRING" not in ansi, ansi


def test_a_with_querys_literal_has_the_literals_type(catalog):
    # teradata_examples/case-sensitivity.sql: two WITH queries' literals of one length.
    ansi = translate(
        "WITH f(x, y) AS (SELECT 1, 'foo'), g(x, y) AS (SELECT 2, 'bar') "
        "SELECT x, y FROM f UNION ALL SELECT x, y FROM g",
        catalog,
    )
    assert sorted(duckdb.connect().sql(render(ansi, "duckdb")).fetchall()) == [
        (1, "foo"),
        (2, "bar"),
    ]
    with pytest.raises(TranslationError, match=r"1:87: error\[TD-SET-TYPES\].*literal 'foo'"):
        translate(
            "WITH f(y) AS (SELECT 'foo'), g(y) AS (SELECT 'food') "
            "SELECT y FROM f UNION ALL SELECT y FROM g",
            catalog,
        )
    # A WITH query's literal longer than the first SELECT's VARCHAR(10) is cut as a literal
    # would be; one no longer is left whole.
    cut = translate(
        "WITH f(y) AS (SELECT 'value 3 abcdefghijk'), g(y) AS (SELECT 'short') "
        "SELECT s FROM sales.short_names UNION ALL SELECT y FROM f UNION ALL SELECT y FROM g",
        catalog,
    )
    assert cut.count("SUBSTRING") == 1, cut
    rows = cut.replace('"raw"."short_names" AS "short_names"', f"({SHORT}) AS short_names")
    assert sorted(duckdb.connect().sql(render(rows, "duckdb")).fetchall()) == [
        ("short",),
        ("t2 row 1 a",),
        ("value 3 ab",),
    ]
