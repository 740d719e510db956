"""The translator walks each statement's tree about ten times and reuses a walk wherever
the tree has not changed since (``sql/translate.py``): a walk it reuses must be the tree's
nodes in pre-order, as walking it again would give them."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from sqlglot import exp

import sql.translate
from sql.diagnostics import TranslationError
from sql.rules import RULES, load_all
from sql.translate import translate_script
from sql.tree import preorder

REPO_ROOT = Path(__file__).resolve().parents[2]
LEGACY_FILES = sorted((REPO_ROOT / "sql" / "legacy").glob("*/*.sql"))

load_all()


@pytest.fixture
def checked_walks(monkeypatch) -> dict[str, list]:
    """``_generate`` and the first typed phase inside the translator, each given walk
    compared with a fresh one (collected, not raised: the translator refuses on an
    exception)."""
    seen: dict[str, list] = {"calls": [], "differences": []}

    def compare(where: str, tree: exp.Expr, nodes: list[exp.Expr] | None) -> None:
        if nodes is None:
            return
        seen["calls"].append(where)
        if [id(n) for n in nodes] != [id(n) for n in preorder(tree)]:
            seen["differences"].append((where, tree.sql()))

    generate, apply_rules = sql.translate._generate, sql.translate.apply_rules

    def generate_compared(tree, ctx, nodes=None):
        compare("generate", tree, nodes)
        return generate(tree, ctx, nodes)

    def apply_rules_compared(tree, ctx, phase, order=None, candidates=None):
        if phase == "typed":  # the walk qualification took
            compare(phase, tree, order)
        return apply_rules(tree, ctx, phase, order, candidates)

    monkeypatch.setattr(sql.translate, "_generate", generate_compared)
    monkeypatch.setattr(sql.translate, "apply_rules", apply_rules_compared)
    return seen


def test_reused_walks_are_the_trees_own(checked_walks):
    for rule in RULES.values():
        for dialect, source, _ in rule.examples:
            with contextlib.suppress(TranslationError):
                translate_script(source, dialect)
    for path in LEGACY_FILES:
        translate_script(path.read_text(), path.parent.name)
    assert checked_walks["differences"] == []
    assert {"generate", "typed"} <= set(checked_walks["calls"])
