"""A Jinja-templated legacy file in the store: rendered with the project's variables, its
manifest records what it read and what it rendered to, it is translated again exactly when
that rendering changes, and the code location's graph reads what it renders to."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pipelines.translation.store import (
    LegacySource,
    legacy_dependencies,
    legacy_sources,
    read_stored_manifest,
    translate_sources,
    translate_to_store,
)
from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.templating import TemplateBudget, sha256_text

CATALOG = load_catalog()
TEMPLATE = """\
{{ config(materialized='incremental') }}
SELECT o_custkey, COUNT(*) AS orders
FROM {{ ref('orders') }}
{% if is_incremental() %}
WHERE o_orderdate >= '{{ var('since') }}'
{% endif %}
GROUP BY o_custkey
"""


@pytest.fixture
def source(tmp_path: Path) -> LegacySource:
    folder = tmp_path / "legacy" / "snowflake"
    folder.mkdir(parents=True)
    (folder / "customer_orders.sql").write_text(TEMPLATE)
    (plain,) = legacy_sources(tmp_path / "legacy")
    return plain


def test_the_manifest_records_the_variables_read_and_the_rendered_sql(source, tmp_path):
    store = tmp_path / "ansi"
    variables = {"since": "2024-01-01", "is_incremental": True, "unused": "x"}
    (stored,) = translate_to_store(source, store, CATALOG, variables=variables)
    record = json.loads((store / "customer_orders.json").read_text())
    assert record["template_vars"] == {"is_incremental": True, "since": "2024-01-01"}
    rendered = TEMPLATE.replace("{{ config(materialized='incremental') }}", "")
    rendered = rendered.replace("{{ ref('orders') }}", '"PROD_DW"."SALES"."ORDERS"')
    rendered = rendered.replace("{% if is_incremental() %}", "").replace("{% endif %}", "")
    rendered = rendered.replace("{{ var('since') }}", "2024-01-01")
    assert record["rendered_sha256"] == sha256_text(rendered)
    assert record["source_sha256"] == sha256_text(TEMPLATE)  # the template's own bytes
    assert record["source_line"] == 2
    assert "'2024-01-01'" in stored.ansi_sql
    assert read_stored_manifest(store, "customer_orders") == stored


def test_other_variables_translate_again_and_the_same_ones_reuse(source, tmp_path):
    store = tmp_path / "ansi"
    names = ["customer_orders"]
    first = translate_to_store(
        source, store, CATALOG, expected=names, variables={"is_incremental": False}
    )
    again = translate_to_store(
        source, store, CATALOG, expected=names, variables={"is_incremental": False}
    )
    assert again[0].reused and again[0].data_version == first[0].data_version
    # A variable the template does not read renders the same SQL: still reused.
    unread = translate_to_store(
        source,
        store,
        CATALOG,
        expected=names,
        variables={"is_incremental": False, "since": "2030-01-01"},
    )
    assert unread[0].reused
    changed = translate_to_store(
        source,
        store,
        CATALOG,
        expected=names,
        variables={"is_incremental": True, "since": "2024-01-01"},
    )
    assert not changed[0].reused
    assert changed[0].data_version != first[0].data_version
    assert "WHERE" in changed[0].ansi_sql and "WHERE" not in first[0].ansi_sql


def test_a_plain_files_manifest_has_no_template_fields(tmp_path):
    folder = tmp_path / "legacy" / "snowflake"
    folder.mkdir(parents=True)
    (folder / "plain.sql").write_text("SELECT o_orderkey FROM SALES.ORDERS")
    (source,) = legacy_sources(tmp_path / "legacy")
    (stored,) = translate_to_store(source, tmp_path / "ansi", CATALOG)
    assert stored.template_vars is None and stored.rendered_sha256 is None


def test_a_refused_template_is_located_in_the_template(source, tmp_path):
    with pytest.raises(TranslationError) as caught:
        translate_to_store(source, tmp_path / "ansi", CATALOG, variables={"is_incremental": True})
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.col) == (str(source.path), 5, 26)
    assert diagnostic.rule == "TEMPLATE" and "var('since')" in diagnostic.message
    assert not (tmp_path / "ansi").exists()


def test_the_graph_and_a_whole_tree_read_what_the_template_renders_to(source, tmp_path):
    root = tmp_path / "legacy"
    (found,) = legacy_dependencies(root, CATALOG, variables={"is_incremental": False})
    assert found.names == ("customer_orders",)
    assert [t.reads for t in found.tables] == [("raw.orders",)]
    (translated,) = translate_sources(root, CATALOG, variables={"is_incremental": False})
    assert [t.source_tables for t in translated.tables] == [("raw.orders",)]
    # Without its variable the template does not render: the graph shows the file, reading
    # nothing, and its asset fails with the located error when it runs.
    (unrendered,) = legacy_dependencies(root, CATALOG, variables={"is_incremental": True})
    assert unrendered.tables == ()


def test_the_dependency_cache_keys_on_the_variables(source, tmp_path):
    root, cache = tmp_path / "legacy", tmp_path / "deps.json"
    legacy_dependencies(root, CATALOG, cache=cache, variables={"is_incremental": True})
    # Cached under the failed rendering; other variables must not reuse it.
    (found,) = legacy_dependencies(
        root, CATALOG, cache=cache, variables={"is_incremental": True, "since": "2024-01-01"}
    )
    assert [t.reads for t in found.tables] == [("raw.orders",)]


def test_a_runaway_template_is_refused_at_its_budget_alone_in_the_graph_and_the_store(
    source, tmp_path
):
    """Issue 44, item 1: loading a project rendered every template without a bound, so one
    template of nested loops held the load (`plumbline run`, `dg list defs`) for minutes."""
    (source.path.parent / "runaway.sql").write_text(
        "SELECT 1 AS one\n{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}"
        "{% endfor %}{% endfor %}\n"
    )
    root, cache = tmp_path / "legacy", tmp_path / "deps.json"
    budget = TemplateBudget(seconds=0.3, iterations=10**9)
    started = time.monotonic()
    found = legacy_dependencies(
        root, CATALOG, cache=cache, variables={"is_incremental": False}, budget=budget
    )
    assert time.monotonic() - started < 3
    by_name = {f.source.name: f for f in found}
    assert by_name["runaway"].tables == () and not by_name["runaway"].refused
    assert [t.reads for t in by_name["customer_orders"].tables] == [("raw.orders",)]
    # Its ansi/ asset fails, located, at the same budget, and stores nothing.
    with pytest.raises(TranslationError) as caught:
        translate_to_store(by_name["runaway"].source, tmp_path / "ansi", CATALOG, budget=budget)
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.rule, diagnostic.line) == ("TEMPLATE", 2)
    assert "more than 0.3 s to render (template_budget.seconds)" in diagnostic.message
    assert not (tmp_path / "ansi").exists()


def test_the_dependency_cache_keys_on_the_budget(tmp_path):
    """A file refused under one budget renders under another, the cache notwithstanding."""
    folder = tmp_path / "legacy" / "snowflake"
    folder.mkdir(parents=True)
    (folder / "loops.sql").write_text("{% for i in range(2000) %}{% endfor %}SELECT 1 AS one\n")
    small, cache = TemplateBudget(iterations=1000), tmp_path / "deps.json"
    for budget, tables in ((small, 0), (None, 1), (small, 0)):
        (found,) = legacy_dependencies(tmp_path / "legacy", CATALOG, cache=cache, budget=budget)
        assert len(found.tables) == tables


def test_the_manifest_records_the_query_parameters_and_other_values_translate_again(tmp_path):
    from sql.parameters import QueryParameter

    folder = tmp_path / "legacy" / "bigquery"
    folder.mkdir(parents=True)
    (folder / "daily.sql").write_text(
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date\n"
    )
    (source,) = legacy_sources(tmp_path / "legacy")
    store = tmp_path / "ansi"
    first = {"submission_date": QueryParameter("DATE", "1998-08-15")}
    (stored,) = translate_to_store(source, store, CATALOG, parameters=first)
    record = json.loads((store / "daily.json").read_text())
    assert record["query_parameters"] == {"submission_date": "DATE:1998-08-15"}
    assert "CAST('1998-08-15' AS DATE)" in stored.ansi_sql
    assert read_stored_manifest(store, "daily") == stored
    (again,) = translate_to_store(source, store, CATALOG, expected=["daily"], parameters=first)
    assert again.reused
    other = {"submission_date": QueryParameter("DATE", "1998-08-16")}
    (changed,) = translate_to_store(source, store, CATALOG, expected=["daily"], parameters=other)
    assert not changed.reused and "CAST('1998-08-16' AS DATE)" in changed.ansi_sql
    with pytest.raises(TranslationError, match="SCRIPT-PARAMETER"):
        translate_to_store(source, store, CATALOG, expected=["daily"])
