"""Every rule's catalog examples: rewrites produce the recorded ANSI, refusals the recorded location."""

from __future__ import annotations

import pytest
import sqlglot

from sql import ansi
from sql.diagnostics import TranslationError
from sql.rules import RULES, example_catalog, load_all
from sql.rules_doc import DOC_PATH, rules_markdown
from sql.source_dialects import DIALECTS
from sql.translate import translate

load_all()
CATALOG = example_catalog()
EXAMPLES = [
    pytest.param(rule, dialect, source, expected, id=f"{rule.id}-{index}")
    for rule in RULES.values()
    for index, (dialect, source, expected) in enumerate(rule.examples)
]


def _one_line(ansi_sql: str) -> str:
    return ansi.generate(sqlglot.parse_one(ansi_sql, read=ansi.Ansi), pretty=False)


@pytest.mark.parametrize(("rule", "dialect", "source", "expected"), EXAMPLES)
def test_rule_example(rule, dialect, source, expected):
    assert dialect in rule.dialects
    if rule.action == "refuse":
        with pytest.raises(TranslationError) as raised:
            translate(source, dialect, catalog=CATALOG)
        located = {(d.rule, f"{d.line}:{d.col}") for d in raised.value.diagnostics}
        assert (rule.id, expected) in located
        return
    result = translate(source, dialect, catalog=CATALOG)
    assert _one_line(result.ansi_sql) == expected
    fired = set(result.rules_applied) | {d.rule for d in result.diagnostics}
    assert rule.id in fired


@pytest.mark.parametrize(
    ("rule", "dialect", "source", "expected"),
    [p for p in EXAMPLES if p.values[0].action != "refuse"],
)
def test_ansi_output_reparses_to_the_same_tree(rule, dialect, source, expected):
    ansi_sql = translate(source, dialect, catalog=CATALOG).ansi_sql
    reparsed = sqlglot.parse_one(ansi_sql, read=ansi.Ansi)
    regenerated = ansi.generate(reparsed)
    assert _one_line(regenerated) == _one_line(ansi_sql)
    assert reparsed == sqlglot.parse_one(regenerated, read=ansi.Ansi)


def test_every_dialect_has_rules():
    covered = {dialect for rule in RULES.values() for dialect in rule.dialects}
    assert covered == set(DIALECTS)


def test_docs_are_generated_from_the_catalog():
    assert DOC_PATH.read_text() == rules_markdown(), "run: python -m sql.rules_doc"


def test_every_construct_the_target_allows_names_its_sql2016_feature():
    """A construct added to the ANSI allow-list must say which feature of the standard it
    is (or that it is part of a basic query specification), so the catalog stays checkable."""
    from sql.ansi import ALLOWED_EXPRESSIONS
    from sql.features import BASIC, NODE_FEATURES

    unnamed = {t.key for t in ALLOWED_EXPRESSIONS if t not in NODE_FEATURES and t not in BASIC}
    assert not unnamed


def test_rule_outputs_name_the_features_they_use():
    from sql.rules_doc import output_features

    rules = load_all()
    assert ("F841", "LIKE_REGEX predicate") in output_features(rules["FN-REGEXP-LIKE"])
    assert ("T431", "Extended grouping capabilities") in output_features(rules["FN-GROUPING"])
    assert ("F052", "Intervals and datetime arithmetic") in output_features(
        rules["FN-TO-TIMESTAMP-NTZ"]
    )
    assert output_features(rules["FN-UNKNOWN"]) == []
