"""CLOCK-PRECISION: CURRENT_TIMESTAMP(p) keeps its meaning or is refused at the call
(sql/rules/dialect_specific.py).

Teradata and Oracle document 6 as CURRENT_TIMESTAMP's default precision, so (6) is the bare
function; none of the four dialects with a precision argument documents whether the clock's
further digits are truncated or rounded, so every other precision is refused rather than
translated to the engines' six digits."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate

# A table each dialect's catalog (sql/catalog.yaml) names.
TABLE = {
    "teradata": "SALES_DB.REGION",
    "oracle": "SALES.REGION",
    "snowflake": "sales.region",
    "redshift": "sales.region",
}
BARE = 'SELECT CURRENT_TIMESTAMP AS "t" FROM "raw"."region" AS "region"'


def _translate(call: str, dialect: str) -> str:
    sql = f"SELECT {call} AS t FROM {TABLE[dialect]}"
    return " ".join(translate(sql, dialect, file="q.sql").ansi_sql.split())


@pytest.mark.parametrize(
    ("dialect", "call"),
    [
        ("teradata", "CURRENT_TIMESTAMP(6)"),
        ("oracle", "CURRENT_TIMESTAMP(6)"),
    ],
)
def test_the_default_precision_is_the_bare_function(dialect, call):
    assert _translate(call, dialect) == BARE


@pytest.mark.parametrize(
    ("dialect", "call", "why"),
    [
        ("teradata", "CURRENT_TIMESTAMP(0)", "0 fractional-second digits: Teradata"),
        ("teradata", "CURRENT_TIMESTAMP(2)", "2 fractional-second digits"),
        ("oracle", "CURRENT_TIMESTAMP(3)", "3 fractional-second digits: Oracle"),
        ("snowflake", "CURRENT_TIMESTAMP(0)", "truncated or rounded; write"),
        ("snowflake", "LOCALTIMESTAMP(3)", "3 fractional-second digits"),
        ("snowflake", "CURRENT_TIMESTAMP(6)", "6 fractional-second digits: Snowflake"),
        ("snowflake", "CURRENT_TIMESTAMP(9)", "engines keep six digits only"),
        ("redshift", "CURRENT_TIMESTAMP(0)", "0 fractional-second digits: Redshift"),
    ],
)
def test_another_precision_is_refused_at_the_call(dialect, call, why):
    with pytest.raises(TranslationError) as raised:
        _translate(call, dialect)
    [diagnostic] = [d for d in raised.value.diagnostics if d.rule == "CLOCK-PRECISION"]
    assert (diagnostic.line, diagnostic.col) == (1, 8)
    assert why in diagnostic.message
