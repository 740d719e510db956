"""TD-SET-TYPES: Teradata gives a set operation's columns the types of its first SELECT,
cutting longer text of later SELECTs to the first's length (sql/rules/set_types.py).

The expected rows are Teradata's as its documented conversion gives them (Snowflake's
migration guide for Teradata, "UNION ALL Data Migration": 'value 1 abcdefghijk' of a
VARCHAR(20) column under a first SELECT's VARCHAR(10) comes out 'value 1 ab'), on DuckDB and
on Spark."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
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
