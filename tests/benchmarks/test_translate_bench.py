"""The speed benchmark's sqlglot side does the same work as a translation: it finds each
legacy name's columns (stars expand, columns are qualified and typed)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from benchmarks.translate_bench import compare, legacy_cases, legacy_schema
from sql.catalog import load_catalog

NAMES = [
    # (dialect, a name the legacy SQL writes for raw.orders)
    ("snowflake", "SALES.ORDERS"),
    ("snowflake", "PROD_DW.SALES.ORDERS"),
    ("tsql", "dbo.Orders"),
    ("bigquery", "sales.orders"),
    ("teradata", "SALES_DB.ORDERS"),
]


@pytest.mark.parametrize(("dialect", "name"), NAMES)
def test_the_baseline_schema_knows_every_legacy_name(dialect, name):
    schema = legacy_schema(load_catalog(), dialect)
    statement = sqlglot.parse_one(f"SELECT * FROM {name}", read=dialect)
    tree = qualify(statement, dialect=dialect, schema=schema)
    tree = annotate_types(tree, schema=schema, dialect=dialect)
    columns = {s.alias_or_name.lower(): s.type for s in tree.selects}
    assert "o_orderkey" in columns and columns["o_orderdate"].is_type(exp.DType.DATE)


def test_a_comparison_times_both_sides_and_splits_plumblines_time():
    comparison = compare("legacy", legacy_cases()[:3], rounds=1)
    assert comparison.plumbline_seconds > 0 and comparison.sqlglot_seconds > 0
    assert sum(comparison.phases.values()) == pytest.approx(1, abs=0.01)
    assert comparison.phases["qualify"] > 0 and comparison.phases["annotate_types"] > 0
