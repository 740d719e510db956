"""Dialect semantics are flags on the dialect classes, not comparisons of dialect names.

A rule that depends on what a dialect means (whether '' is NULL, how integer division or a
week works) reads a named flag through ``sql.source_dialects.semantics(dialect)``; which
dialects a rule applies to is its ``dialects=`` registration. This test fails when code in
``sql/`` branches on a dialect's name outside the short list below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sql.paths import REPOSITORY_ROOT
from sql.source_dialects import DIALECTS, SOURCE_DIALECTS, Semantics, semantics

# `dialect == "x"`, `ctx.dialect != "x"`, `dialect in SOME_DIALECTS`, `"x" == dialect`, ...
# (not `for dialect in ...`, a loop over them).
COMPARISON = re.compile(
    r"(?<!for )\bdialect\s*(?:==|!=|\bnot\s+in\b|\bin\b)"
    r"|[\"'](?:" + "|".join(DIALECTS) + r")[\"']\s*(?:==|!=)\s*[\w.]*dialect\b"
)

# The comparisons that stay, by file and the line's text: none states what a dialect means.
ALLOWED = {
    ("sql/translate.py", "if dialect not in DIALECTS:"): "an unknown dialect is an error",
    ("sql/catalog_import.py", "if dialect not in TYPES:"): "an unknown dialect is an error",
    (
        "sql/catalog.py",
        "if dialect not in self._project_index:",
    ): "a per-dialect cache of the project's table names, not a meaning",
    (
        "sql/catalog.py",
        "if table.dialect == dialect:",
    ): "a script's table is known in its own dialect by the name it wrote: which dialect wrote it",
    (
        "sql/rules/base.py",
        "if dialect in registered.dialects and registered.phase == phase:",
    ): "the rules' registration itself",
    (
        "sql/rules/base.py",
        "if self.dialect not in SETTING_DIALECTS.get(name, ()):",
    ): "which servers have a setting: sql/assumptions.py's table, checked where it is read",
    # One rule function serves several dialects' own function of the same name: each branch
    # picks the dialect's function, not a meaning. They belong in rules of their own
    # (dialects=), a move left out of a line-by-line change.
    ("sql/rules/strings.py", 'if ctx.dialect == "oracle":'): "SUBSTR: Oracle's",
    ("sql/rules/strings.py", 'if ctx.dialect == "bigquery":'): "SUBSTR: BigQuery's",
    ("sql/rules/strings.py", 'if ctx.dialect == "snowflake":'): "SUBSTR: Snowflake's",
    (
        "sql/rules/generators.py",
        'if ctx.dialect != "bigquery" or len(node.expressions) != 1:',
    ): "UNNEST(GENERATE_ARRAY(...)): BigQuery's",
    (
        "sql/rules/generators.py",
        'if ctx.dialect != "snowflake" or not isinstance(generator, exp.Generator):',
    ): "TABLE(GENERATOR(...)): Snowflake's",
    (
        "sql/rules/portable_functions.py",
        'if node.name.upper() != "REPLICATE" or ctx.dialect != "redshift":',
    ): "REPLICATE: Redshift's name of REPEAT, unknown to sqlglot",
    (
        "sql/rules/portable_functions.py",
        'if node.name.upper() != "OTRANSLATE" or ctx.dialect != "teradata":',
    ): "OTRANSLATE: Teradata's TRANSLATE, unknown to sqlglot",
}


def dialect_comparisons(root: Path) -> list[tuple[str, int, str]]:
    """(file, line number, text) of each comparison of a dialect's name under root/sql."""
    found = []
    for path in sorted((root / "sql").rglob("*.py")):
        file = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if COMPARISON.search(line) and not line.lstrip().startswith("#"):
                found.append((file, number, line.strip()))
    return found


def test_no_new_dialect_name_branches() -> None:
    branches = [
        f"{file}:{number}: {text}"
        for file, number, text in dialect_comparisons(REPOSITORY_ROOT)
        if (file, text) not in ALLOWED
    ]
    assert not branches, (
        "branches on a dialect's name: give the dialect a flag in sql/source_dialects.py "
        "(Semantics) and read it through semantics(dialect), or list the dialects in the "
        "rule's registration:\n" + "\n".join(branches)
    )


def test_allowed_comparisons_still_exist() -> None:
    present = {(file, text) for file, _, text in dialect_comparisons(REPOSITORY_ROOT)}
    assert set(ALLOWED) <= present, f"no longer in sql/, drop them: {set(ALLOWED) - present}"


@pytest.mark.parametrize(
    ("line", "matches"),
    [
        ('if ctx.dialect == "tsql":', True),
        ("if dialect not in QUOTED_IS_CASE_SENSITIVE:", True),
        ('return "oracle" != self.dialect', True),
        ("for dialect in sorted(names):", False),
        ("if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:", False),
    ],
)
def test_comparison_pattern(line: str, matches: bool) -> None:
    assert bool(COMPARISON.search(line)) is matches


def test_semantics_reads_the_dialect_class() -> None:
    assert all(issubclass(semantics(d), Semantics) for d in DIALECTS)
    assert semantics("oracle") is SOURCE_DIALECTS["oracle"]
    assert semantics("oracle").EMPTY_STRING_IS_NULL and not semantics("tsql").EMPTY_STRING_IS_NULL
    # sqlglot's own flags, where they state the fact: T-SQL's 7 / 2 is 3, Snowflake's 3.5.
    assert semantics("tsql").TYPED_DIVISION and not semantics("snowflake").TYPED_DIVISION
    # A name that is no source dialect has none of their particular readings.
    assert semantics("") is Semantics and not Semantics.TYPED_DIVISION
