"""Chains of migrated queries: a legacy file reads another file's table by any name its dialect
gives it, with no catalog entry; the graph knows it when the code location loads (parsing
only, cached); a translation is typed by the columns its upstream's translation gives; a
cycle, a name that names nothing, and a catalog that declares a built table otherwise are one
line each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.project import Project, ProjectError
from pipelines.translation.store import (
    CycleError,
    LegacySql,
    StoreError,
    chain_catalog,
    legacy_dependencies,
    legacy_sources,
    stored_output_schema,
    translate_sources,
    translate_to_store,
)
from pipelines.warehouse.build import WarehouseTable, warehouse_tables
from pipelines.warehouse.contract_lint import output_types
from sql.catalog import Catalog, CatalogError, load_catalog, merge_catalogs
from sql.dependencies import DefinedTables, TableDependencies, project_catalog
from sql.translate import OutputSchema, output_schema

CATALOG = """\
tables:
  raw.orders:
    order_id: BIGINT
    store: VARCHAR
    order_date: DATE
    amount: DOUBLE PRECISION
legacy:
  snowflake:
    SHOP.PUBLIC.ORDERS: raw.orders
"""
# Three levels over raw.orders, each reading the one before by another name: bare, in the
# legacy warehouse's own schema, and as a script's CREATE TABLE wrote it.
CHAIN = {
    "snowflake/daily_revenue.sql": """\
SELECT order_date, store, SUM(amount) AS revenue, COUNT(*) AS orders
FROM SHOP.PUBLIC.ORDERS
GROUP BY order_date, store
""",
    "snowflake/store_summary.sql": """\
CREATE TABLE DW.STORE_SUMMARY AS
SELECT store, SUM(revenue) AS revenue, SUM(orders) AS orders FROM DAILY_REVENUE GROUP BY store;
""",
    "snowflake/store_rank.sql": """\
SELECT store, orders / 2 AS half_orders, RANK() OVER (ORDER BY revenue DESC) AS position
FROM DW.STORE_SUMMARY
""",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    return load_catalog(path, project_tables=True)


@pytest.fixture
def chain(tmp_path) -> Path:
    return write_tree(tmp_path / "legacy", CHAIN)


def reads(files) -> dict[str, tuple[str, ...]]:
    return {t.name: t.reads for f in files for t in f.tables}


def test_the_graph_reads_each_file_after_the_file_it_reads(chain, catalog, tmp_path):
    cache = tmp_path / "cache.json"
    found = legacy_dependencies(chain, catalog, cache=cache)
    assert reads(found) == {
        "daily_revenue": ("raw.orders",),
        "store_rank": ("warehouse.store_summary",),
        "store_summary": ("warehouse.daily_revenue",),
    }
    # Loaded again from the cache (nothing parsed), the chain resolves the same.
    entries = json.loads(cache.read_text())["files"]
    assert entries["snowflake/store_rank.sql"]["tables"][0]["names"] == [
        [[["DW", False], ["STORE_SUMMARY", False]], 2, 6]
    ]
    assert legacy_dependencies(chain, catalog, cache=cache) == found
    legacy = LegacySql(tuple(found))
    assert legacy.upstream(found[1]) == {"warehouse.store_summary"}
    assert legacy.upstream(found[0]) == set()


def test_each_translation_is_typed_by_its_upstreams_translation(chain, catalog):
    translated = {t.source.name: t for t in translate_sources(chain, catalog)}
    assert all(t.tables for t in translated.values()), [t.diagnostics for t in translated.values()]
    [rank] = translated["store_rank"].tables
    assert rank.source_tables == ("warehouse.store_summary",)
    # orders is a BIGINT (a COUNT, summed) two files up: Snowflake's integer division
    # gives a NUMBER of scale 6, which the translation works out exactly (in whole units
    # with MOD) only because it knows that; of an operand of unknown type it refuses.
    assert "DIV-INTEGER" in rank.rules_applied
    assert "MOD(" in rank.ansi_sql and '"store_summary"."orders"' in rank.ansi_sql
    # The name its script's CREATE TABLE wrote is exact; a bare name of a query's output is
    # resolved by its name alone, and the translation says so.
    assert not [d for d in rank.diagnostics if d.rule == "NAME-DEFAULT"]
    [summary] = translated["store_summary"].tables
    [note] = [d for d in summary.diagnostics if d.rule == "NAME-DEFAULT"]
    assert note.message.startswith("DAILY_REVENUE resolved to warehouse.daily_revenue, the table")
    # The lint plans every level over empty tables: no catalog table is created twice.
    tables = warehouse_tables(list(translated.values()), ansi_root=None, reference_root=None)
    types, errors = output_types(tables, catalog)
    assert errors == []
    assert types["store_rank"]["half_orders"].startswith("DECIMAL")


def test_the_stored_translation_records_its_columns_for_its_readers(chain, catalog, tmp_path):
    ansi = tmp_path / "ansi"
    legacy = LegacySql.parse(chain, catalog)
    with pytest.raises(StoreError, match="materialize ansi/daily_revenue first"):
        legacy.catalog_for("store_summary", catalog, ansi)
    by_name = {s.name: s for s in legacy_sources(chain)}
    for name in ("daily_revenue", "store_summary"):
        translate_to_store(by_name[name], ansi, legacy.catalog_for(name, catalog, ansi))
    assert list(stored_output_schema(ansi, "store_summary").columns.items()) == [
        ("store", "VARCHAR"),
        ("revenue", "DOUBLE PRECISION"),
        ("orders", "BIGINT"),
    ]
    rank = legacy.catalog_for("store_rank", catalog, ansi)
    assert list(rank.tables["warehouse.store_summary"]) == ["store", "revenue", "orders"]
    assert "warehouse.daily_revenue" not in rank.tables  # only what it reads


def declaring(catalog: Catalog, columns: dict[str, str]) -> Catalog:
    """``catalog`` with a hand-written entry for warehouse.daily_revenue."""
    return merge_catalogs([catalog, Catalog(tables={"warehouse.daily_revenue": columns})])


def test_a_catalog_that_declares_a_built_table_must_agree_with_its_translation(catalog):
    project = project_catalog(
        [DefinedTables("daily_revenue.sql", "snowflake", (TableDependencies("daily_revenue", ()),))]
    )
    built = {
        "warehouse.daily_revenue": OutputSchema({"store": "VARCHAR", "revenue": "DOUBLE PRECISION"})
    }
    # The same types, spelled otherwise: the translation's columns replace the entry.
    agreeing = declaring(catalog, {"store": "VARCHAR", "revenue": "DOUBLE"})
    merged = chain_catalog(agreeing, project, built)
    assert merged.tables["warehouse.daily_revenue"] == built["warehouse.daily_revenue"].columns
    differing = declaring(catalog, {"store": "VARCHAR", "revenue": "BIGINT"})
    with pytest.raises(CatalogError) as raised:
        chain_catalog(differing, project, built)
    assert str(raised.value).endswith(
        "declares warehouse.daily_revenue as (store VARCHAR, revenue BIGINT), but "
        "daily_revenue.sql builds it as (store VARCHAR, revenue DOUBLE PRECISION); a table "
        "the project builds takes its columns from its translation: drop the declaration"
    )


@pytest.mark.parametrize(
    ("files", "error", "message"),
    [
        (
            {
                "snowflake/a.sql": "SELECT store FROM B",
                "snowflake/b.sql": "SELECT store FROM SALES.C",
                "snowflake/c.sql": "SELECT store FROM DW.A",
            },
            CycleError,
            "a.sql reads {root}/snowflake/b.sql reads {root}/snowflake/c.sql reads "
            "{root}/snowflake/a.sql: legacy files that read each other's tables in a cycle",
        ),
        (
            {"snowflake/a.sql": "CREATE TABLE SHOP.PUBLIC.ORDERS AS SELECT 1 AS x;"},
            CatalogError,
            "a.sql: creates the snowflake table SHOP.PUBLIC.ORDERS, which {catalog} maps to "
            "raw.orders",
        ),
    ],
)
def test_a_cycle_or_a_clash_is_one_line_naming_the_files(tmp_path, catalog, files, error, message):
    root = write_tree(tmp_path / "legacy", files)
    with pytest.raises(error) as raised:
        legacy_dependencies(root, catalog)
    text = str(raised.value)
    assert "\n" not in text
    assert message.format(root=root, catalog=tmp_path / "catalog.yaml") in text
    if error is CycleError:
        # A project's load says which attribute: `plumbline run` exits 2 with it.
        project = Project(legacy_root=root, catalogs=(), contracts_root=tmp_path)
        with pytest.raises(ProjectError, match=r"^legacy: "):
            project.legacy_sql(catalog)


def test_a_file_never_reads_the_table_it_builds(tmp_path, catalog):
    """A query named after the source it cleans reads the source by its bare name: its own
    output is no table its names can mean (it would be a cycle), so the name is not
    ambiguous; another file's same bare name is."""
    root = write_tree(
        tmp_path / "legacy",
        {
            "snowflake/orders.sql": "SELECT order_id, store FROM ORDERS WHERE amount > 0",
            "snowflake/report.sql": "SELECT store FROM ORDERS",
        },
    )
    assert reads(legacy_dependencies(root, catalog)) == {"orders": ("raw.orders",), "report": ()}
    translated = {t.source.name: t for t in translate_sources(root, catalog)}
    assert translated["orders"].tables[0].source_tables == ("raw.orders",)
    [ambiguous] = translated["report"].diagnostics
    assert ambiguous.rule == "NAME-AMBIGUOUS"
    assert "raw.orders (catalog: " in ambiguous.message
    assert "warehouse.orders (built by " in ambiguous.message


def test_a_legacy_name_only_the_project_can_mean_must_be_built(tmp_path, catalog, chain):
    path = tmp_path / "mapped.yaml"
    path.write_text(CATALOG + "    REPORTS.SUMMARY: warehouse.store_summary\n")
    mapped = load_catalog(path, project_tables=True)
    (chain / "snowflake" / "report.sql").write_text("SELECT store FROM REPORTS.SUMMARY")
    assert reads(legacy_dependencies(chain, mapped))["report"] == ("warehouse.store_summary",)
    (chain / "snowflake" / "store_summary.sql").unlink()
    (chain / "snowflake" / "store_rank.sql").unlink()
    with pytest.raises(CatalogError, match="no catalog file declares and no legacy file builds"):
        legacy_dependencies(chain, mapped)


def test_unrelated_files_keep_their_translation_when_a_file_is_added(chain, catalog, tmp_path):
    """What a file is translated with (its cache key) holds only the project's tables its
    names can mean: adding a file elsewhere re-translates nothing."""
    ansi = tmp_path / "ansi"
    legacy = LegacySql.parse(chain, catalog)
    by_name = {s.name: s for s in legacy_sources(chain)}
    [first] = translate_to_store(
        by_name["daily_revenue"], ansi, legacy.catalog_for("daily_revenue", catalog, ansi)
    )
    (chain / "snowflake" / "other.sql").write_text("SELECT store FROM SHOP.PUBLIC.ORDERS")
    legacy = LegacySql.parse(chain, catalog)
    [again] = translate_to_store(
        by_name["daily_revenue"],
        ansi,
        legacy.catalog_for("daily_revenue", catalog, ansi),
        expected=["daily_revenue"],
    )
    assert again.reused and again.assumptions == first.assumptions


def test_a_hand_written_warehouse_entry_does_not_break_the_lint(catalog):
    declared = declaring(catalog, {"store": "VARCHAR", "revenue": "DOUBLE"})
    table = WarehouseTable(
        "daily_revenue",
        ("raw.orders",),
        sql_path=Path("daily_revenue.sql"),
        ansi_sql='SELECT "o"."store" AS "store", SUM("o"."amount") AS "revenue" '
        'FROM "raw"."orders" AS "o" GROUP BY "o"."store"',
    )
    types, errors = output_types([table], declared, sql_for=lambda t: t.ansi_sql)
    assert errors == []
    assert list(types["daily_revenue"]) == ["store", "revenue"]


def test_a_legacy_declared_type_reaches_the_reader_of_a_column_passed_on(tmp_path):
    """An Oracle DATE column selected as it is stays an Oracle DATE to the file that reads
    it: DATE - DATE is a number of days there too, as if it read the source itself."""
    path = tmp_path / "catalog.yaml"
    path.write_text(
        "tables:\n  raw.emp:\n    emp_id: BIGINT\n"
        "    hire_date: {type: TIMESTAMP(0), legacy: oracle DATE}\n"
        "    end_date: {type: TIMESTAMP(0), legacy: oracle DATE}\n"
        "legacy:\n  oracle:\n    HR.EMP: raw.emp\n"
    )
    days = "SELECT emp_id, end_date - hire_date AS days FROM {}"
    root = write_tree(
        tmp_path / "legacy",
        {
            "oracle/tenure_base.sql": "SELECT emp_id, hire_date, end_date FROM HR.EMP",
            "oracle/tenure.sql": days.format("TENURE_BASE"),
            "oracle/direct.sql": days.format("HR.EMP"),
        },
    )
    translated = {
        t.source.name: t.tables[0]
        for t in translate_sources(root, load_catalog(path, project_tables=True))
    }
    assert output_schema(translated["tenure_base"]).declared == {
        "hire_date": ("oracle", "DATE"),
        "end_date": ("oracle", "DATE"),
    }
    direct = translated["direct"].ansi_sql.replace('"raw"."emp" AS "emp"', "").replace('"emp"', "")
    chained = (
        translated["tenure"]
        .ansi_sql.replace('"warehouse"."tenure_base" AS "tenure_base"', "")
        .replace('"tenure_base"', "")
    )
    assert "a number of days" not in direct or "DATE-NUMBER-ARITHMETIC" in direct
    assert chained == direct


def test_a_name_nothing_answers_to_is_located_where_the_file_writes_it(tmp_path, catalog, chain):
    """Kept for the load to report: each name no table of the catalog or of the project
    answers to, located as the translation refuses it (in a template, in the template)."""
    (chain / "snowflake" / "templated.sql").write_text(
        "{% set since = '2024-01-01' %}\n"
        "SELECT store FROM DAILY_REVENUE\n"
        "WHERE order_date >= '{{ since }}' AND store IN (SELECT store FROM NOWHERE)\n"
    )
    found = {t.name: t for f in legacy_dependencies(chain, catalog) for t in f.tables}
    templated = found["templated"]
    assert templated.reads == ("warehouse.daily_revenue",)
    [unknown] = templated.unresolved
    assert (unknown.rule, unknown.line, unknown.col) == ("NAME-UNKNOWN", 3, 67)
    assert unknown.file == str(chain / "snowflake" / "templated.sql")
    assert all(not t.unresolved for name, t in found.items() if name != "templated")
