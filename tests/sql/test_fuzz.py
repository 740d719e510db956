"""Malformed input of any kind is refused with TranslationError: never another exception, never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sql.diagnostics import TranslationError
from sql.rules import RULES, load_all
from sql.source_dialects import DIALECTS
from sql.translate import translate

load_all()
SEEDS = [source for rule in RULES.values() for _, source, _ in rule.examples]
TOKENS = [
    "SELECT", "FROM", "WHERE", "(", ")", ",", "'", '"', "[", "]", "`", "+", "/", "||", "::",
    "TOP", "QUALIFY", "ROWNUM", "(+)", "DUAL", "OVER", "PARTITION BY", "ORDER BY", "GROUP BY",
    "dbo.Orders", "SALES.ORDERS", "sales.orders", "o_orderkey", "1", "NULL", ";", "CASE", "END",
    "DATEADD(day,", "CAST(", "AS INT", "#t", "INTO", "CREATE TABLE x AS", "WITH", "UNION", "--",
]  # fmt: skip


def _translate_or_refuse(text: str, dialect: str) -> None:
    try:
        result = translate(text, dialect)
    except TranslationError as error:
        assert error.diagnostics
        assert all(d.line >= 1 and d.col >= 1 and d.rule for d in error.diagnostics)
        return
    assert result.ansi_sql.startswith(("SELECT", "WITH", "("))


FUZZ = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    cut=st.integers(min_value=0, max_value=200),
    dialect=st.sampled_from(DIALECTS),
)
def test_truncated_sql_is_refused_or_translated(seed, cut, dialect):
    _translate_or_refuse(seed[:cut], dialect)


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    position=st.integers(min_value=0, max_value=200),
    insert=st.sampled_from(TOKENS),
    dialect=st.sampled_from(DIALECTS),
)
def test_mutated_sql_is_refused_or_translated(seed, position, insert, dialect):
    position = min(position, len(seed))
    _translate_or_refuse(f"{seed[:position]} {insert} {seed[position:]}", dialect)


@FUZZ
@given(words=st.lists(st.sampled_from(TOKENS), max_size=25), dialect=st.sampled_from(DIALECTS))
def test_token_soup_is_refused_or_translated(words, dialect):
    _translate_or_refuse(" ".join(words), dialect)


@FUZZ
@given(text=st.text(max_size=120), dialect=st.sampled_from(DIALECTS))
def test_random_text_is_refused_or_translated(text, dialect):
    _translate_or_refuse(text, dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_empty_input_is_refused(dialect):
    with pytest.raises(TranslationError):
        translate("  -- nothing here\n", dialect)
