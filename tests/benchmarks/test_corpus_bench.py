"""The corpus benchmark on a small sample of the real corpora: every query classified, the
counts adding up, translations planned by a real DuckDB, and the report written."""

from __future__ import annotations

import json

import pytest

from benchmarks.corpora import corpora_root
from benchmarks.corpus_bench import STATUSES, plan, run, write
from sql.catalog import load_catalog
from sql.render import render
from sql.translate import translate_script

CORPORA = corpora_root()
needs_corpora = pytest.mark.skipif(
    not CORPORA.is_dir(), reason=f"no corpora at {CORPORA} (set PLUMBLINE_CORPORA)"
)


@pytest.fixture(scope="module")
def sample():
    # Two queries per corpus and dialect (12 groups), those with the smallest schemas.
    return run(CORPORA, sample=2, workers=2)


@needs_corpora
def test_every_sampled_query_is_translated_refused_or_crashed(sample):
    assert 20 <= sample.queries == len(sample.results) <= 24
    assert {r.status for r in sample.results} <= set(STATUSES)
    for group in sample.groups:
        assert group.translated + group.refused + group.crashed == group.queries
        assert group.planned + group.broken == group.translated
        assert sum(group.first_rules.values()) == group.refused
    assert sum(g.queries for g in sample.groups) == sample.queries
    for result in sample.results:
        if result.status == "refused":
            assert result.first_rule in result.rules and result.first_error
        if result.status == "crashed":
            assert result.crash and result.traceback
        assert (result.planned is None) == (result.status != "translated")


@needs_corpora
def test_translated_tpch_queries_are_planned_by_duckdb(sample):
    tpch = [r for r in sample.results if r.corpus in ("redshift_tpch", "hyrise_tpch")]
    assert tpch and all(r.status == "translated" and r.planned for r in tpch)


@needs_corpora
def test_the_results_are_written_as_json_and_markdown(sample, tmp_path):
    json_path, markdown_path = write(sample, tmp_path / "corpus.json")
    written = json.loads(json_path.read_text())
    assert written["queries"] == sample.queries
    assert len(written["results"]) == sample.queries
    markdown = markdown_path.read_text()
    assert "## Corpora without a schema" in markdown
    for group in sample.groups:
        assert f"| {group.corpus} | {group.dialect} | {group.queries} |" in markdown


def test_a_translation_duckdb_cannot_bind_is_reported_broken():
    catalog = load_catalog()
    script = translate_script("SELECT o_orderkey FROM SALES.ORDERS", "oracle", catalog=catalog)
    rendered = [render(t.ansi_sql, "duckdb") for t in script.tables]
    assert plan(script, rendered, catalog) is None
    error = plan(script, ['SELECT "no_such_column" FROM "raw"."orders"'], catalog)
    assert error is not None and error.startswith(f"{script.tables[0].name}: ")
    assert "no_such_column" in error
