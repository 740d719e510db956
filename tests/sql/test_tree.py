"""``preorder`` is sqlglot's depth-first walk, node for node, on real statements."""

from __future__ import annotations

from pathlib import Path

import sqlglot

from sql.source_dialects import SOURCE_DIALECTS
from sql.tree import preorder

LEGACY_FILES = sorted((Path(__file__).resolve().parents[2] / "sql" / "legacy").glob("*/*.sql"))


def test_preorder_is_sqlglots_depth_first_walk():
    assert LEGACY_FILES
    for path in LEGACY_FILES:
        dialect = SOURCE_DIALECTS[path.parent.name]
        for statement in filter(None, sqlglot.parse(path.read_text(), read=dialect)):
            walked = list(statement.walk(bfs=False))
            assert len(walked) > 10, path
            assert [id(n) for n in preorder(statement)] == [id(n) for n in walked], path
            inner = walked[len(walked) // 2]
            assert [id(n) for n in preorder(inner)] == [id(n) for n in inner.walk(bfs=False)]
