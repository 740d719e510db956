"""A project's own tables (each table one of its legacy files builds) resolve by name beside
the catalog's, as each dialect folds names; a catalog name as written, or complete and
naming one table, stays the catalog's; a name both can mean is refused naming both; and the
files that read each other's tables in a cycle are found, by name."""

from __future__ import annotations

import re

import pytest
from sqlglot import exp

from sql.assumptions import Assumptions
from sql.catalog import (
    Catalog,
    CatalogError,
    ProjectTable,
    load_catalog,
    merge_catalogs,
    undeclared_names,
)
from sql.dependencies import (
    DefinedTables,
    NameRead,
    TableDependencies,
    find_cycle,
    names_for,
    project_catalog,
    resolve_reads,
    script_dependencies,
)
from sql.diagnostics import TranslationError
from sql.source_dialects import SOURCE_DIALECTS
from sql.translate import output_schema, translate_script

CATALOG = Catalog(
    tables={"raw.orders": {"id": "BIGINT"}, "raw.stores": {"id": "BIGINT"}},
    legacy={
        "snowflake": {
            ("SHOP", "PUBLIC", "ORDERS"): "raw.orders",
            ("SHOP", "PUBLIC", "STORES"): "raw.stores",
            # A legacy name mapped to a table the project builds: only the name, no columns.
            ("REPORTS", "SUMMARY"): "warehouse.order_summary",
        },
        "tsql": {("dbo", "orders"): "raw.orders"},
    },
    sources=("catalog.yaml",),
)
SUMMARY = TableDependencies("order_summary", ())
ORDERS = TableDependencies("orders", ())  # a file named after a raw table: a clash
TOTALS = TableDependencies("store_totals", (), written=(("DW", False), ("STORE_TOTALS", False)))
PROJECT = project_catalog(
    [
        DefinedTables("legacy/snowflake/order_summary.sql", "snowflake", (SUMMARY,)),
        DefinedTables("legacy/snowflake/orders.sql", "snowflake", (ORDERS,)),
        DefinedTables("legacy/snowflake/build.sql", "snowflake", (TOTALS,)),
    ]
)
RESOLVING = merge_catalogs([CATALOG, PROJECT])


def resolve(dialect: str, name: str) -> str:
    parts = exp.to_table(name, dialect=SOURCE_DIALECTS[dialect]).parts
    return RESOLVING.resolve(parts, dialect, "reader.sql", 1, 1, Assumptions())


@pytest.mark.parametrize(
    ("dialect", "name", "lake"),
    [
        # A query's output is known by its name alone: bare, in any schema, in full.
        ("snowflake", "ORDER_SUMMARY", "warehouse.order_summary"),
        ("snowflake", "order_summary", "warehouse.order_summary"),
        ("snowflake", "SALES.ORDER_SUMMARY", "warehouse.order_summary"),
        ("snowflake", "DW.ORDER_SUMMARY", "warehouse.order_summary"),
        ("snowflake", "SHOP.DW.ORDER_SUMMARY", "warehouse.order_summary"),
        # and as a catalog's legacy name maps to it
        ("snowflake", "REPORTS.SUMMARY", "warehouse.order_summary"),
        # by its name, folded as the reading dialect folds it
        ("tsql", "dbo.Order_Summary", "warehouse.order_summary"),
        ("bigquery", "reports.order_summary", "warehouse.order_summary"),
        ("oracle", "DW.ORDER_SUMMARY", "warehouse.order_summary"),
        # A name the catalog holds as written stays the catalog's table ...
        ("snowflake", "SHOP.PUBLIC.ORDERS", "raw.orders"),
        ("tsql", "dbo.orders", "raw.orders"),
        # ... and so does one complete with stated defaults only that names one of its tables.
        ("tsql", "Sales.dbo.orders", "raw.orders"),
        # A schema the catalog does not hold the table in: the project's.
        ("snowflake", "DW.ORDERS", "warehouse.orders"),
        # A table a script created with its schema: by that name in its dialect ...
        ("snowflake", "DW.STORE_TOTALS", "warehouse.store_totals"),
        ("snowflake", "ANY_DB.DW.STORE_TOTALS", "warehouse.store_totals"),
        # ... by its name alone in another dialect's files.
        ("tsql", "dbo.store_totals", "warehouse.store_totals"),
    ],
)
def test_a_project_table_resolves_by_any_name_the_dialect_gives_it(dialect, name, lake):
    assert resolve(dialect, name) == lake


@pytest.mark.parametrize(
    ("dialect", "name", "rule", "named"),
    [
        # Bare, the session's database unknown: the catalog's ORDERS or the project's.
        ("snowflake", "ORDERS", "NAME-AMBIGUOUS", ["raw.orders", "warehouse.orders"]),
        ("snowflake", "PUBLIC.ORDERS", "NAME-AMBIGUOUS", ["raw.orders", "warehouse.orders"]),
        # Quoted, the name keeps its case: it is not the unquoted ORDER_SUMMARY.
        ("snowflake", '"order_summary"', "NAME-UNKNOWN", []),
        # A script's CREATE TABLE DW.STORE_TOTALS is not PUBLIC.STORE_TOTALS.
        ("snowflake", "STORE_TOTALS", "NAME-UNKNOWN", []),
        ("snowflake", "SALES.STORE_TOTALS", "NAME-UNKNOWN", []),
    ],
)
def test_a_name_two_tables_can_have_is_refused_naming_both(dialect, name, rule, named):
    with pytest.raises(TranslationError) as raised:
        resolve(dialect, name)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == rule
    for lake in named:
        assert lake in diagnostic.message
    if rule == "NAME-AMBIGUOUS":
        assert "(catalog: catalog.yaml)" in diagnostic.message
        assert "(built by legacy/snowflake/orders.sql)" in diagnostic.message


def test_a_project_table_read_by_another_name_is_noted():
    parts = exp.to_table("DW.ORDER_SUMMARY", dialect="snowflake").parts
    resolution = RESOLVING.resolve_name(parts, "snowflake", "reader.sql", 1, 1)
    assert "legacy/snowflake/order_summary.sql builds" in resolution.assumed
    # Shadowed by the catalog, a project table of the same name is said to be passed over.
    shadowed = RESOLVING.resolve_name(
        exp.to_table("Sales.dbo.orders", dialect="tsql").parts, "tsql", "reader.sql", 1, 1
    )
    assert "not warehouse.orders" in shadowed.assumed


def test_a_catalog_without_the_project_tables_knows_none_of_them():
    with pytest.raises(TranslationError, match="NAME-UNKNOWN"):
        CATALOG.resolve(["ORDER_SUMMARY"], "snowflake", "reader.sql", 1, 1)
    # What the project adds changes what a translation is: part of the cache key.
    assert RESOLVING.digest() != merge_catalogs([CATALOG, project_catalog([])]).digest()
    assert merge_catalogs([CATALOG, project_catalog([])]).digest() == CATALOG.digest()


def test_a_legacy_name_may_map_to_a_table_only_the_project_builds(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text(
        "tables:\n  raw.orders: {id: BIGINT}\n"
        "legacy:\n  snowflake:\n    DW.SUMMARY: warehouse.order_summary\n"
    )
    with pytest.raises(CatalogError, match=re.escape("maps to unknown 'warehouse.order_summary'")):
        load_catalog(path)
    lenient = load_catalog(path, project_tables=True)
    assert undeclared_names(lenient) == [("snowflake", "DW.SUMMARY", "warehouse.order_summary")]
    assert undeclared_names(merge_catalogs([lenient, PROJECT])) == []


def test_two_files_that_build_one_table_or_create_one_name_are_an_error():
    with pytest.raises(
        CatalogError, match=re.escape("b.sql: builds warehouse.x, which a.sql builds too")
    ):
        merge_catalogs(
            [
                Catalog(tables={}, project={"warehouse.x": ProjectTable("x", "a.sql")}),
                Catalog(tables={}, project={"warehouse.x": ProjectTable("x", "b.sql")}),
            ]
        )
    written = (("DW", False), ("T", False))
    with pytest.raises(
        CatalogError, match=re.escape("b.sql: creates DW.T, which a.sql creates too")
    ):
        project_catalog(
            [
                DefinedTables(
                    "a.sql", "snowflake", (TableDependencies("t1", (), written=written),)
                ),
                DefinedTables(
                    "b.sql", "snowflake", (TableDependencies("t2", (), written=written),)
                ),
            ]
        )


def test_a_file_is_translated_among_the_project_tables_its_names_can_mean():
    reader = TableDependencies(
        "report",
        (),
        names=(NameRead((("DW", False), ("ORDER_SUMMARY", False))), NameRead((("X", False),))),
    )
    kept = names_for(PROJECT, [reader], "snowflake")
    assert set(kept.project) == {"warehouse.order_summary"}
    writer = TableDependencies(
        "r2", (), names=(NameRead((("DW", False), ("STORE_TOTALS", False))),)
    )
    kept = names_for(PROJECT, [writer], "snowflake")
    assert set(kept.project) == {"warehouse.store_totals"}
    assert kept.legacy == {"snowflake": {("DW", "STORE_TOTALS"): "warehouse.store_totals"}}


def test_reads_resolve_again_among_the_project_tables():
    script = (
        "CREATE TABLE DW.STAGE AS SELECT id FROM DW.ORDER_SUMMARY;\n"
        "SELECT s.id FROM DW.STAGE s JOIN SHOP.PUBLIC.STORES t ON s.id = t.id\n"
        "  JOIN ORDERS o ON o.id = s.id"
    )
    first, last = script_dependencies(script, "snowflake", catalog=CATALOG, name="report")
    # Parsed with the catalog alone: the project's table is not known yet.
    assert first.reads == () and first.written == (("DW", False), ("STAGE", False))
    assert last.own == ("warehouse.stage",)
    assert last.names == (
        NameRead((("SHOP", False), ("PUBLIC", False), ("STORES", False)), 2, 34),
        NameRead((("ORDERS", False),), 3, 8),
    )
    linked = resolve_reads(first, RESOLVING, "snowflake", file="report.sql")
    assert (linked.reads, linked.unresolved) == (("warehouse.order_summary",), ())
    linked = resolve_reads(last, RESOLVING, "snowflake", file="report.sql")
    assert linked.reads == ("raw.stores", "warehouse.stage")
    # What no table (or more than one) answers to among the catalog's and the project's,
    # located as its translation refuses it: the raw and the project's ORDERS.
    [ambiguous] = linked.unresolved
    assert (ambiguous.rule, ambiguous.line, ambiguous.col) == ("NAME-AMBIGUOUS", 3, 8)
    with pytest.raises(TranslationError) as raised:
        translate_script(script, "snowflake", file="report.sql", catalog=RESOLVING)
    assert ambiguous in raised.value.diagnostics  # where and what its translation refuses


def _file(path: str, *tables: tuple[str, tuple[str, ...], tuple[str, ...]]) -> DefinedTables:
    return DefinedTables(
        path, "snowflake", tuple(TableDependencies(n, r, own=o) for n, r, o in tables)
    )


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        (
            [
                _file("a.sql", ("a", ("raw.orders",), ())),
                _file("b.sql", ("b", ("warehouse.a",), ())),
                _file("c.sql", ("c", ("warehouse.a", "warehouse.b"), ())),
            ],
            None,
        ),
        (
            [
                _file("a.sql", ("a", ("warehouse.c",), ())),
                _file("b.sql", ("b", ("warehouse.a",), ())),
                _file("c.sql", ("c", ("warehouse.b",), ())),
            ],
            ["a.sql", "c.sql", "b.sql", "a.sql"],
        ),
        ([_file("a.sql", ("a", ("warehouse.a",), ()))], ["a.sql", "a.sql"]),
        # A script's later table reading its earlier one is no cycle ...
        (
            [
                _file(
                    "s.sql",
                    ("s1", ("raw.orders",), ()),
                    ("s2", ("warehouse.s1",), ("warehouse.s1",)),
                )
            ],
            None,
        ),
        # ... but its first table reading a file that reads its second is: the script is
        # translated in one piece.
        (
            [
                _file("s.sql", ("s1", ("warehouse.x",), ()), ("s2", ("raw.orders",), ())),
                _file("x.sql", ("x", ("warehouse.s2",), ())),
            ],
            ["s.sql", "x.sql", "s.sql"],
        ),
    ],
)
def test_a_cycle_names_its_files(files, cycle):
    assert find_cycle(files) == cycle


def test_every_table_of_a_script_is_typed_for_another_file_to_read():
    catalog = Catalog(tables={"raw.orders": {"id": "BIGINT", "amount": "DECIMAL(10,2)"}})
    catalog = merge_catalogs(
        [catalog, Catalog(tables={}, legacy={"snowflake": {("ORDERS",): "raw.orders"}})]
    )
    script = translate_script(
        "SELECT id, amount * 2 AS doubled, 'x' AS label FROM ORDERS",
        "snowflake",
        catalog=catalog,
        typed=True,
    )
    [table] = script.tables
    schema = output_schema(table)
    assert list(schema.columns) == ["id", "doubled", "label"]
    assert schema.columns["id"] == "BIGINT" and schema.columns["label"] == "VARCHAR"
    untyped = translate_script("SELECT id FROM ORDERS", "snowflake", catalog=catalog)
    with pytest.raises(ValueError, match="without its column types"):
        output_schema(untyped.tables[0])


def test_a_declared_legacy_type_passes_through_a_scripts_own_table():
    """A later statement of a script reads an earlier table's Oracle DATE column as an
    Oracle DATE, as the file that reads it from another file does."""
    columns = {"emp_id": "BIGINT", "hire_date": "TIMESTAMP(0)", "end_date": "TIMESTAMP(0)"}
    catalog = Catalog(
        tables={"raw.emp": columns},
        legacy={"oracle": {("HR", "EMP"): "raw.emp"}},
        declared={"raw.emp": {c: ("oracle", "DATE") for c in ("hire_date", "end_date")}},
    )
    days = "SELECT emp_id, end_date - hire_date AS days FROM {}"
    direct = translate_script(days.format("HR.EMP"), "oracle", catalog=catalog)
    script = translate_script(
        "CREATE TABLE T AS SELECT emp_id, hire_date, end_date FROM HR.EMP;\n" + days.format("T"),
        "oracle",
        catalog=catalog,
        typed=True,
    )
    first, last = script.tables
    assert output_schema(first).declared == {
        "hire_date": ("oracle", "DATE"),
        "end_date": ("oracle", "DATE"),
    }
    assert "DATE-NUMBER-ARITHMETIC" in direct.tables[0].ansi_sql
    assert last.ansi_sql.replace('"t"', '"emp"').replace('"warehouse"', '"raw"') == (
        direct.tables[0].ansi_sql
    )
