"""User catalogs: several files merge, names resolve as each dialect resolves them, opaque
types refuse only where an expression depends on them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sql.assumptions import Assumptions
from sql.catalog import CatalogError, load_catalog, load_catalogs
from sql.diagnostics import TranslationError
from sql.translate import translate

SALES = """\
tables:
  lake.orders:
    id: BIGINT
    amount: DECIMAL(12,2)
    placed: DATE
  lake.events:
    id: BIGINT
    payload: {opaque: VARIANT}
legacy:
  snowflake:
    SHOP.SALES.ORDERS: lake.orders
    SHOP.RAW.EVENTS: lake.events
  tsql:
    Shop.sales.Orders: lake.orders
  oracle:
    SALES.ORDERS: lake.orders
  bigquery:
    shop-prod.sales.Orders: lake.orders
"""
# The same table name in another schema: a bare name may now mean either.
ARCHIVE = """\
tables:
  lake.old_orders:
    id: BIGINT
legacy:
  oracle:
    ARCHIVE.ORDERS: lake.old_orders
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def sales(tmp_path):
    return load_catalog(write(tmp_path, "sales.yaml", SALES))


RESOLVED = [
    # (dialect, name as written, assumptions, lake table, warning expected)
    ("snowflake", "SHOP.SALES.ORDERS", Assumptions(), "lake.orders", False),
    ("snowflake", "shop.sales.orders", Assumptions(), "lake.orders", False),
    # Unknown default database: the one SALES.ORDERS in the catalog.
    ("snowflake", "SALES.ORDERS", Assumptions(), "lake.orders", True),
    ("snowflake", "ORDERS", Assumptions(snowflake_schema="SALES"), "lake.orders", True),
    ("tsql", "[Shop].[sales].[Orders]", Assumptions(), "lake.orders", False),
    ("tsql", "sales.orders", Assumptions(), "lake.orders", True),
    ("tsql", "Orders", Assumptions(tsql_schema="sales"), "lake.orders", True),
    ("oracle", "sales.orders", Assumptions(), "lake.orders", False),
    ("bigquery", "`shop-prod.sales.Orders`", Assumptions(), "lake.orders", False),
    ("bigquery", "sales.Orders", Assumptions(), "lake.orders", True),
]


@pytest.mark.parametrize(("dialect", "name", "assumptions", "lake", "warns"), RESOLVED)
def test_names_resolve_as_the_dialect_resolves_them(sales, dialect, name, assumptions, lake, warns):
    result = translate(
        f"SELECT id FROM {name}", dialect, catalog=sales, assumptions=assumptions, file="q.sql"
    )
    assert result.source_tables == (lake,)
    warnings = [d for d in result.diagnostics if d.rule == "NAME-DEFAULT"]
    assert bool(warnings) == warns, warnings
    if warns:
        assert f"resolved to {lake}" in warnings[0].message


REFUSED = [
    # T-SQL's documented default schema is dbo: a bare Orders is dbo.Orders, not sales.Orders.
    ("tsql", "Orders", Assumptions(), "NAME-UNKNOWN", "assuming tsql_schema=dbo"),
    # Snowflake's default schema is PUBLIC.
    ("snowflake", "ORDERS", Assumptions(), "NAME-UNKNOWN", "snowflake_schema=PUBLIC"),
    # BigQuery compares dataset and table names exactly.
    ("bigquery", "sales.orders", Assumptions(), "NAME-UNKNOWN", "sales.orders"),
    ("snowflake", "SHOP.SALES.NOWHERE", Assumptions(), "NAME-UNKNOWN", "sales.yaml"),
    # A quoted name keeps its case in Snowflake: "Orders" is not ORDERS, and the message
    # names the table the catalog has in another case.
    ("snowflake", 'SHOP.SALES."Orders"', Assumptions(), "NAME-UNKNOWN", "has SHOP.SALES.ORDERS"),
]


@pytest.mark.parametrize(("dialect", "name", "assumptions", "rule", "says"), REFUSED)
def test_unknown_names_are_refused_naming_the_catalog(
    sales, dialect, name, assumptions, rule, says
):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT id\nFROM {name}", dialect, catalog=sales, assumptions=assumptions)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == (rule, 2, 6)
    assert says in diagnostic.message
    assert "sales.yaml" in diagnostic.message


def test_a_bare_name_two_schemas_hold_is_ambiguous(tmp_path):
    catalog = load_catalogs(
        [write(tmp_path, "sales.yaml", SALES), write(tmp_path, "archive.yaml", ARCHIVE)]
    )
    with pytest.raises(TranslationError) as raised:
        translate("SELECT id FROM orders", "oracle", catalog=catalog)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == "NAME-AMBIGUOUS"
    assert "lake.old_orders" in diagnostic.message and "lake.orders" in diagnostic.message
    # Pinning the default schema makes it exact again.
    pinned = translate(
        "SELECT id FROM orders",
        "oracle",
        catalog=catalog,
        assumptions=Assumptions(oracle_schema="ARCHIVE"),
    )
    assert pinned.source_tables == ("lake.old_orders",)


def test_catalogs_merge_and_a_conflict_names_both_files(tmp_path):
    first = write(tmp_path, "first.yaml", SALES)
    same = write(tmp_path, "same.yaml", SALES)
    merged = load_catalogs([first, same, write(tmp_path, "archive.yaml", ARCHIVE)])
    assert set(merged.tables) == {"lake.orders", "lake.events", "lake.old_orders"}
    reordered = write(
        tmp_path,
        "reordered.yaml",
        "tables:\n  lake.orders:\n    amount: DECIMAL(12,2)\n    id: BIGINT\n    placed: DATE\n",
    )
    with pytest.raises(CatalogError, match=r"reordered\.yaml: table lake\.orders .*first\.yaml"):
        load_catalogs([first, reordered])
    remapped = write(
        tmp_path,
        "remapped.yaml",
        "tables:\n  lake.x:\n    id: BIGINT\nlegacy:\n  oracle:\n    SALES.ORDERS: lake.x\n",
    )
    with pytest.raises(CatalogError, match=r"remapped\.yaml: oracle name SALES\.ORDERS .*first"):
        load_catalogs([first, remapped])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tables: [1, 2]", "expected a mapping with 'tables'"),
        ("tables:\n  orders:\n    id: BIGINT\n", "a lake table is named zone.table"),
        ("tables:\n  a.b:\n    id: NOT A TYPE(\n", "is not an ANSI type"),
        ("tables:\n  a.b:\n    id: BIGINT\nlegacy:\n  oracle:\n    X.Y: a.c\n", "unknown 'a.c'"),
        ("tables:\n  a.b: {id: [\n", "bad.yaml:"),
        ("tables:\n  a.b:\n    id: {type: BIGINT, legacy: NUMBER(10)}\n", "tables.a.b.id: legacy"),
        ("tables:\n  a.b:\n    id: {type: BIGINT, legacy: cobol PIC9}\n", "tables.a.b.id: legacy"),
        ("tables:\n  a.b:\n    id: {type: BIGINT, lake: NOT A TYPE(}\n", "tables.a.b.id.lake"),
        ("tables:\n  a.b:\n    id: {opaque: X, lake: BIGINT}\n", "without lake"),
        ("tables:\n  a.b:\n    id: {type: BIGINT, size: 3}\n", "tables.a.b.id: expected"),
    ],
)
def test_a_malformed_catalog_names_the_file_and_field(tmp_path, text, message):
    with pytest.raises(CatalogError, match=message) as raised:
        load_catalog(write(tmp_path, "bad.yaml", text))
    assert "bad.yaml" in str(raised.value) and "\n" not in str(raised.value)


UNION_OF_PAYLOADS = (
    "SELECT payload AS p FROM SHOP.RAW.EVENTS UNION ALL SELECT payload FROM SHOP.RAW.EVENTS"
)
OPAQUE_QUERIES = [
    # (query, translated?)
    ("SELECT id, payload FROM SHOP.RAW.EVENTS", True),
    ("SELECT * FROM SHOP.RAW.EVENTS", True),
    ("SELECT COUNT(payload) AS n FROM SHOP.RAW.EVENTS WHERE payload IS NULL", True),
    ("WITH e AS (SELECT payload AS p FROM SHOP.RAW.EVENTS) SELECT p FROM e", True),
    ("SELECT payload:a::STRING AS a FROM SHOP.RAW.EVENTS", True),  # VARIANT-PATH
    ("SELECT id FROM SHOP.RAW.EVENTS GROUP BY id, payload", False),
    ("SELECT DISTINCT payload FROM SHOP.RAW.EVENTS", False),
    ("WITH e AS (SELECT payload AS p FROM SHOP.RAW.EVENTS) SELECT p FROM e WHERE p = 1", False),
    # through UNION ALL, whose column type annotation names no type
    (f"WITH e AS ({UNION_OF_PAYLOADS}) SELECT p FROM e", True),
    (f"WITH e AS ({UNION_OF_PAYLOADS}) SELECT p FROM e WHERE p = 1", False),
    (f"WITH e AS ({UNION_OF_PAYLOADS}) SELECT UPPER(p) AS u FROM e", False),
    ("SELECT payload FROM SHOP.RAW.EVENTS UNION SELECT payload FROM SHOP.RAW.EVENTS", False),
    ("SELECT payload FROM SHOP.RAW.EVENTS UNION ALL SELECT payload FROM SHOP.RAW.EVENTS", True),
]


@pytest.mark.parametrize(("query", "translated"), OPAQUE_QUERIES)
def test_opaque_types_refuse_only_where_an_expression_depends_on_them(sales, query, translated):
    if translated:
        assert translate(query, "snowflake", catalog=sales).ansi_sql
        return
    with pytest.raises(TranslationError) as raised:
        translate(query, "snowflake", catalog=sales)
    rules = {d.rule for d in raised.value.diagnostics}
    assert "OPAQUE-TYPE" in rules
    assert any("VARIANT" in d.message for d in raised.value.diagnostics)


def test_a_quoted_case_sensitive_name_in_the_catalog_matches_only_itself(tmp_path):
    catalog = load_catalog(
        write(
            tmp_path,
            "quoted.yaml",
            "tables:\n  lake.lines:\n    id: BIGINT\nlegacy:\n  snowflake:\n"
            '    SHOP.SALES."OrderLines": lake.lines\n',
        )
    )
    found = translate('SELECT id FROM shop.sales."OrderLines"', "snowflake", catalog=catalog)
    assert found.source_tables == ("lake.lines",)
    with pytest.raises(TranslationError, match="NAME-UNKNOWN"):
        translate("SELECT id FROM shop.sales.OrderLines", "snowflake", catalog=catalog)


def test_a_catalog_that_is_not_utf8_is_refused_by_name(tmp_path):
    # Found by tests/pipelines/cli/test_fuzz.py (`translate --catalog` of random bytes).
    path = tmp_path / "catalog.yaml"
    path.write_bytes(b"\x80tables: {}")
    with pytest.raises(CatalogError, match=f"{path}: byte 0: not UTF-8 text"):
        load_catalog(path)


def test_legacy_and_lake_types_are_read_merged_and_digested(tmp_path):
    """``legacy:`` keeps the type the DDL declares, ``lake:`` the type the lake stores; both
    change what a translation means, so they take part in merging and in the digest."""
    text = (
        "tables:\n  raw.events:\n"
        '    id: {type: "DECIMAL(10,0)", legacy: oracle NUMBER(10), lake: INTEGER}\n'
        '    d: {type: TIMESTAMP(0), legacy: "Oracle  DATE"}\n'
        "legacy:\n  oracle:\n    SALES.EVENTS: raw.events\n"
    )
    catalog = load_catalog(write(tmp_path, "a.yaml", text))
    assert catalog.declared == {
        "raw.events": {"id": ("oracle", "NUMBER(10)"), "d": ("oracle", "DATE")}
    }
    assert catalog.physical == {"raw.events": {"id": "INTEGER"}}
    assert catalog.lake_columns("raw.events") == {"id": "INTEGER", "d": "TIMESTAMP(0)"}
    column = catalog.schema()["raw"]["events"]["d"]
    assert column.meta == {"declared": ("oracle", "DATE")}
    without = load_catalog(write(tmp_path, "b.yaml", text.replace(", lake: INTEGER", "")))
    assert without.digest() != catalog.digest()
    with pytest.raises(CatalogError, match="types the lake stores"):
        load_catalogs([tmp_path / "a.yaml", tmp_path / "b.yaml"])


def test_a_lake_type_is_read_through_a_cast_to_the_catalog_type(tmp_path):
    text = (
        "tables:\n  raw.events:\n"
        '    id: {type: "DECIMAL(10,0)", lake: INTEGER}\n'
        "    d: {type: TIMESTAMP(0), legacy: oracle DATE, lake: DATE}\n"
        "    note: VARCHAR\n"
        "legacy:\n  oracle:\n    SALES.EVENTS: raw.events\n"
    )
    catalog = load_catalog(write(tmp_path, "c.yaml", text))
    translated = translate(
        # Oracle's quotient of NUMBERs is exact to 38 digits: rounded to places (DIV-ROUNDED)
        "SELECT ROUND(e.id / 4, 1) AS q, e.d + 1 AS next_day FROM SALES.EVENTS e "
        "WHERE e.note = 'x'",
        "oracle",
        catalog=catalog,
    )
    flat = " ".join(translated.ansi_sql.split())
    assert (
        'FROM ( SELECT CAST("events"."id" AS DECIMAL(10, 0)) AS "id", CAST("events"."d" AS '
        'TIMESTAMP) AS "d", NULLIF("events"."note", \'\') AS "note" FROM "raw"."events" AS '
        '"events" ) AS "e"'
    ) in flat
    import duckdb

    from sql.render import render

    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw")
    con.execute(
        "CREATE TABLE raw.events AS SELECT 6::INTEGER AS id, DATE '2024-02-28' AS d, 'x' AS note"
    )
    row = con.sql(render(translated.ansi_sql, "duckdb")).fetchall()[0]
    assert str(row[0]) == "1.5" and str(row[1]) == "2024-02-29 00:00:00"


def test_a_table_each_dialect_declares_is_read_with_that_dialects_types(tmp_path):
    """The same lake table, declared by an Oracle and a BigQuery warehouse (one catalog file
    each, as `catalog import --from-sources --from DIALECT` writes them): each dialect's
    files read it with their own legacy types; any other dialect as the lake stores it."""
    oracle = write(
        tmp_path,
        "oracle.yaml",
        "tables:\n  raw.readings:\n"
        '    reading_id: {type: "DECIMAL(10,0)", legacy: oracle NUMBER(10), lake: INTEGER}\n'
        "    read_at: {type: TIMESTAMP(0), legacy: oracle DATE, lake: TIMESTAMP}\n"
        "legacy:\n  oracle:\n    UTIL.READINGS: raw.readings\n",
    )
    bigquery = write(
        tmp_path,
        "bigquery.yaml",
        "tables:\n  raw.readings:\n"
        "    reading_id: {type: BIGINT, legacy: bigquery INT64, lake: INTEGER}\n"
        "    read_at: {type: TIMESTAMP, legacy: bigquery DATETIME}\n"
        "legacy:\n  bigquery:\n    utility.readings: raw.readings\n",
    )
    catalog = load_catalogs([oracle, bigquery])
    assert catalog.tables == {"raw.readings": {"reading_id": "INTEGER", "read_at": "TIMESTAMP"}}
    on_oracle = catalog.for_dialect("oracle")
    assert on_oracle.tables["raw.readings"]["read_at"] == "TIMESTAMP(0)"
    assert on_oracle.declared["raw.readings"]["read_at"] == ("oracle", "DATE")
    assert on_oracle.physical == {"raw.readings": {"reading_id": "INTEGER"}}
    assert catalog.for_dialect("bigquery").tables["raw.readings"]["reading_id"] == "BIGINT"
    assert catalog.for_dialect("snowflake") is catalog
    # Oracle's DATE - DATE is days; the same subtraction read by BigQuery is its own matter.
    oracle_sql = translate(
        "SELECT reading_id, TRUNC(read_at) - TRUNC(read_at) AS d FROM UTIL.READINGS",
        "oracle",
        catalog=catalog,
    ).ansi_sql
    assert 'CAST("readings"."reading_id" AS DECIMAL(10, 0)) AS "reading_id"' in oracle_sql
    bigquery_sql = translate(
        "SELECT reading_id FROM utility.readings", "bigquery", catalog=catalog
    ).ansi_sql
    assert 'CAST("readings"."reading_id" AS BIGINT) AS "reading_id"' in bigquery_sql
    assert catalog.digest() != load_catalogs([oracle]).digest()
    # Two files that disagree on what the lake stores are still a conflict.
    other = write(
        tmp_path,
        "other.yaml",
        "tables:\n  raw.readings:\n"
        "    reading_id: {type: BIGINT, legacy: redshift BIGINT}\n"
        "    read_at: {type: TIMESTAMP, legacy: redshift TIMESTAMP}\n",
    )
    with pytest.raises(CatalogError, match=r"other\.yaml: table raw\.readings differs"):
        load_catalogs([oracle, other])
