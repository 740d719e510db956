"""The corpus benchmark on a small sample of the real corpora: every query classified, the
counts adding up, translations planned and run by a real DuckDB, the readable queries told
apart, and the report written."""

from __future__ import annotations

import json

import pytest

from benchmarks.corpora import (
    BIGQUERY_ETL_PARAMETERS,
    BuiltCatalog,
    CatalogSource,
    CorpusQuery,
    corpora_root,
)
from benchmarks.corpus_bench import (
    STATUSES,
    execute,
    external_connections,
    missing_tables,
    plan,
    run,
    run_query,
    write,
)
from sql.catalog import Catalog, load_catalog
from sql.diagnostics import Diagnostic
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
        assert group.ran + group.broken == group.translated
        assert group.ran <= group.planned
        assert sum(group.first_rules.values()) == group.refused
        assert group.readable_translated <= group.readable <= group.queries
        assert group.readable == 0 or group.has_schema
    assert sum(g.queries for g in sample.groups) == sample.queries
    for result in sample.results:
        if result.status == "refused":
            assert result.first_rule in result.rules and result.first_error
        if result.status == "crashed":
            assert result.crash and result.traceback
        assert (result.planned is None) == (result.status != "translated")
        assert result.readable == (result.has_schema and not result.missing_tables)


@needs_corpora
def test_translated_tpch_queries_are_planned_by_duckdb(sample):
    tpch = [r for r in sample.results if r.corpus in ("redshift_tpch", "hyrise_tpch")]
    assert tpch and all(r.readable for r in tpch)
    # Each translates and runs, but an AVG or quotient of DECIMALs (TPC-H Q1's AVG of
    # prices), whose last digit Redshift and T-SQL do not document, is refused there.
    for result in tpch:
        if result.status == "refused":
            assert result.first_rule in ("AVG-DECIMAL", "DIV-DECIMAL"), result
        else:
            assert result.status == "translated" and result.planned and result.ran, result


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
    for group in written["groups"]:
        assert {"readable", "readable_translated", "readable_share", "ran"} <= set(group)
    assert all("readable" in result for result in written["results"])


def test_a_translation_duckdb_cannot_bind_is_reported_broken():
    catalog = load_catalog()
    script = translate_script("SELECT o_orderkey FROM SALES.ORDERS", "oracle", catalog=catalog)
    rendered = [render(t.ansi_sql, "duckdb") for t in script.tables]
    assert plan(script, rendered, catalog) is None
    error = plan(script, ['SELECT "no_such_column" FROM "raw"."orders"'], catalog)
    assert error is not None and error.startswith(f"{script.tables[0].name}: ")
    assert "no_such_column" in error


def test_a_translation_duckdb_binds_but_cannot_run_is_reported():
    catalog = load_catalog()
    script = translate_script("SELECT o_orderkey FROM SALES.ORDERS", "oracle", catalog=catalog)
    rendered = [render(t.ansi_sql, "duckdb") for t in script.tables]
    assert execute(script, rendered, catalog) is None
    failing = [
        'SELECT CAST(\'x\' || "o_comment" AS INTEGER) FROM "raw"."orders" UNION ALL SELECT CAST(\'x\' AS INTEGER)'
    ]
    assert plan(script, failing, catalog) is None
    error = execute(script, failing, catalog)
    assert error is not None and "x" in error


def _unknown(name: str) -> Diagnostic:
    if name.endswith("*"):  # the translator's own words (sql/wildcards.py)
        message = (
            f"no table of the catalog matches the wildcard table {name!r} (no table name "
            "starts with 'x'; searched: s.yaml); add the tables, or import them with "
            "`plumbline catalog import`"
        )
    else:
        message = (
            f"table {name!r} is not in the catalog for dialect bigquery (searched: s.yaml); "
            "add it, or import one with `plumbline catalog import`"
        )
    return Diagnostic("error", "NAME-UNKNOWN", message, "q.sql", 1, 1)


def test_a_table_is_missing_unless_a_catalog_table_has_its_dataset_and_name():
    catalog = Catalog(
        tables={"raw.events_20240101": {"a": "INTEGER"}, "raw.users": {"b": "INTEGER"}},
        legacy={
            "bigquery": {
                ("p", "analytics", "events_20240101"): "raw.events_20240101",
                ("p", "crm", "users"): "raw.users",
            }
        },
    )
    errors = [
        _unknown("telemetry.main_v5"),  # no schema anywhere: missing
        _unknown("other.users"),  # users of another dataset: another table, missing
        _unknown("elsewhere.crm.users"),  # the same dataset and name in another project
        _unknown("users"),  # no dataset written: any dataset's users
        _unknown("p.analytics.events_*"),  # a wildcard over tables the catalog has
        _unknown("p.analytics.sessions_*"),  # a wildcard over none
        _unknown("q.crm.events_*"),  # events_ tables, but of another dataset
        Diagnostic("error", "FN-UNKNOWN", "table 'x' is not in the catalog", "q.sql", 1, 1),
    ]
    assert missing_tables(errors, catalog, "bigquery") == (
        "telemetry.main_v5",
        "other.users",
        "p.analytics.sessions_*",
        "q.crm.events_*",
    )


def test_an_error_the_translation_raises_as_the_source_does_is_a_run():
    # Over an empty table COUNT(*) is 0: the source raises a division by zero, and so does
    # the rendered SQL, on purpose.
    catalog = load_catalog()
    script = translate_script(
        "SELECT 1.0 / COUNT(*) AS x FROM SALES_DB.ORDERS", "teradata", catalog=catalog
    )
    rendered = [render(t.ansi_sql, "duckdb") for t in script.tables]
    assert "division by zero" in rendered[0]
    assert execute(script, rendered, catalog) is None
    # An exact integer quotient divides with MOD, which raises DuckDB's own division by
    # zero, as T-SQL raises its error 8134.
    script = translate_script(
        "SELECT COUNT_BIG(*) / COUNT_BIG(*) AS x FROM dbo.Orders", "tsql", catalog=catalog
    )
    rendered = [render(t.ansi_sql, "duckdb") for t in script.tables]
    assert execute(script, rendered, catalog) is None
    # Any other error of DuckDB's is a broken translation.
    error = execute(script, ["SELECT CAST('x' AS INTEGER) AS x"], catalog)
    assert error is not None and "Conversion Error" in error


FEDERATED = """\
SELECT o.o_orderkey, x.id
FROM sales.orders AS o
JOIN EXTERNAL_QUERY(
  "my-project.us.crm-db",
  '''SELECT id FROM customers'''
) AS x ON x.id = o.o_custkey
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (FEDERATED, ("EXTERNAL_QUERY(my-project.us.crm-db)",)),
        (
            "SELECT * FROM external_query('c1', 'SELECT 1') UNION ALL "
            "SELECT * FROM EXTERNAL_QUERY('c1', 'SELECT 2')",
            ("EXTERNAL_QUERY(c1)",),
        ),
        ("SELECT o_orderkey FROM sales.orders", ()),
        ("-- not EXTERNAL_QUERY( here\nSELECT 1 AS one", ()),
    ],
)
def test_external_query_names_its_connections(text, expected):
    assert external_connections(text) == expected


def test_a_federated_query_is_not_readable_and_names_its_connection(tmp_path):
    (tmp_path / "q.sql").write_text(FEDERATED)
    source = CatalogSource("tpch", "bigquery")
    query = CorpusQuery("demo", "bigquery", "q.sql", "q", source)
    result = run_query(tmp_path, query, BuiltCatalog(load_catalog(), ()))
    assert result.status == "refused" and result.has_schema
    assert not result.readable
    assert result.missing_tables == ("EXTERNAL_QUERY(my-project.us.crm-db)",)


def test_the_corpus_query_parameters_are_given_to_the_translation(tmp_path):
    (tmp_path / "q.sql").write_text(
        "SELECT o_orderkey FROM sales.orders WHERE o_orderdate = @submission_date"
    )
    source = CatalogSource("tpch", "bigquery")
    built = BuiltCatalog(load_catalog(), ())
    given = CorpusQuery(
        "demo", "bigquery", "q.sql", "q", source, parameters=BIGQUERY_ETL_PARAMETERS
    )
    result = run_query(tmp_path, given, built)
    assert result.status == "translated" and result.readable and result.ran
    missing = run_query(tmp_path, CorpusQuery("demo", "bigquery", "q.sql", "q", source), built)
    assert missing.first_rule == "SCRIPT-PARAMETER" and missing.readable
