"""What a legacy script reads, by parsing alone: the names the catalog does not resolve are
the located errors its translation gives (what a project reports when it loads), and a
BigQuery wildcard reads the tables it matches."""

from __future__ import annotations

import pytest

from sql.catalog import Catalog
from sql.dependencies import NAME_RULES, resolve_reads, script_dependencies
from sql.diagnostics import TranslationError
from sql.translate import translate_script

CATALOG = Catalog(
    tables={
        "raw.orders": {"id": "BIGINT", "amount": "DOUBLE PRECISION"},
        "raw.items": {"id": "BIGINT"},
        "raw.events_20240101": {"id": "BIGINT"},
        "raw.events_20240102": {"id": "BIGINT"},
    },
    legacy={
        "snowflake": {("SHOP", "PUBLIC", "ORDERS"): "raw.orders"},
        "tsql": {("shop", "dbo", "orders"): "raw.orders", ("sales", "dbo", "orders"): "raw.items"},
        "oracle": {("DUAL_USER", "ORDERS"): "raw.orders"},
        "bigquery": {
            ("shop", "web", "events_20240101"): "raw.events_20240101",
            ("shop", "web", "events_20240102"): "raw.events_20240102",
        },
    },
)


@pytest.mark.parametrize(
    ("dialect", "sql", "reads", "unresolved"),
    [
        ("snowflake", "SELECT id FROM shop.public.orders", ("raw.orders",), []),
        # Unknown, twice on its lines, beside a known one.
        (
            "snowflake",
            "SELECT o.id\nFROM shop.public.orders o\nJOIN shop.public.returns r ON r.id = o.id\n"
            "JOIN nowhere n ON n.id = o.id",
            ("raw.orders",),
            [("NAME-UNKNOWN", 3, 6), ("NAME-UNKNOWN", 4, 6)],
        ),
        # `orders` can mean either database's table: the translation refuses it as ambiguous.
        ("tsql", "SELECT id FROM dbo.orders", (), [("NAME-AMBIGUOUS", 1, 16)]),
        # A CTE, Oracle's DUAL and a table the script defined are no catalog names.
        (
            "oracle",
            "WITH recent AS (SELECT id FROM dual_user.orders) SELECT id FROM recent",
            ("raw.orders",),
            [],
        ),
        ("oracle", "SELECT 1 AS one FROM dual", (), []),
        (
            "snowflake",
            "CREATE TABLE mart.totals AS SELECT id FROM shop.public.orders;\n"
            "CREATE TABLE mart.top AS SELECT id FROM mart.totals;",
            ("raw.orders", "warehouse.totals"),
            [],
        ),
        # A wildcard reads every table it matches; one that matches none is refused.
        (
            "bigquery",
            "SELECT id FROM `shop.web.events_*`",
            ("raw.events_20240101", "raw.events_20240102"),
            [],
        ),
        ("bigquery", "SELECT id FROM `shop.web.visits_*`", (), [("NAME-UNKNOWN", 1, 16)]),
    ],
    ids=[
        "known",
        "unknown",
        "ambiguous",
        "cte",
        "dual",
        "script",
        "wildcard",
        "wildcard-of-nothing",
    ],
)
def test_unresolved_names_are_the_translations_refusals(dialect, sql, reads, unresolved):
    parsed = script_dependencies(sql, dialect, catalog=CATALOG, file="q.sql", name="q")
    # Resolved again as a load does, once the project's tables are known (none here).
    tables = [resolve_reads(t, CATALOG, dialect, file="q.sql") for t in parsed]
    assert sorted({r for t in tables for r in t.reads}) == sorted(reads)
    found = [d for t in tables for d in t.unresolved]
    assert [(d.rule, d.line, d.col) for d in found] == unresolved
    try:
        translate_script(sql, dialect, catalog=CATALOG, file="q.sql", name="q")
        refused = []
    except TranslationError as error:
        refused = [d for d in error.diagnostics if d.rule in NAME_RULES]
    # The same lines, messages included, as translating the file gives.
    assert sorted(found, key=lambda d: (d.line, d.col)) == sorted(
        refused, key=lambda d: (d.line, d.col)
    )
