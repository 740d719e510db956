"""A long script costs the same per statement as a short one: nothing in translating
statement N goes back over the N-1 before it. Checked by counting work (characters searched,
function calls), never by the clock; `python -m benchmarks.translate_bench --scaling`
measures the time and memory."""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from benchmarks.translate_bench import synthetic_script
from sql.catalog import load_catalog
from sql.diagnostics import LineIndex, TranslationError, offset_to_line_col
from sql.translate import parse_script, translate_script


class SearchedText(str):
    """Source text that counts the characters its own search methods go over (the
    tokenizer and the translator get this very object as the script's text)."""

    searched = 0

    def _span(self, start: int | None, end: int | None) -> int:
        start, end, _ = slice(start, end).indices(len(self))
        return max(0, end - start)

    def count(self, sub, start=None, end=None):  # type: ignore[override]
        SearchedText.searched += self._span(start, end)
        return super().count(sub, start, end)

    def rfind(self, sub, start=None, end=None):  # type: ignore[override]
        SearchedText.searched += self._span(start, end)
        return super().rfind(sub, start, end)

    def find(self, sub, start=None, end=None):  # type: ignore[override]
        found = super().find(sub, start, end)
        lowest = slice(start, end).indices(len(self))[0]
        SearchedText.searched += found + len(sub) - lowest if found >= 0 else self._span(start, end)
        return found


@contextmanager
def counted_calls() -> Iterator[Callable[[], int]]:
    """Python function calls (and generator resumptions) made inside the block."""
    calls = 0

    def profile(frame, event, arg) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    previous = sys.getprofile()
    # A collection inside the block would run finalizers of other tests' objects (seen: a
    # lookup counted 11 calls once and 9 the next time): counted calls must be the block's.
    collecting = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        yield lambda: calls
    finally:
        sys.setprofile(previous)
        if collecting:
            gc.enable()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "SELECT 1",
        "\n",
        "SELECT 1;\nSELECT 2;\n",
        "\n\nA\r\nB\n\n\nC",
        "-- comment\nSELECT 'a\nb' AS x;\n\n  SELECT 2",
    ],
)
def test_line_index_agrees_with_counting_lines(text):
    lines = LineIndex(text)
    for offset in range(-2, len(text) + 3):
        assert lines.line_col(offset) == offset_to_line_col(text, offset)


def test_line_index_agrees_on_a_long_script():
    text = synthetic_script(300)
    lines = LineIndex(text)
    for offset in random.Random(17).sample(range(len(text)), 500):
        assert lines.line_col(offset) == offset_to_line_col(text, offset)


def test_locating_statements_searches_the_text_about_once():
    # Counting lines from the start of the file for every located statement searched it
    # about (tables / 2) times over: 150 times for this script.
    text = SearchedText(synthetic_script(480))
    SearchedText.searched = 0
    script = translate_script(text, "snowflake", file="long.sql", name="long")
    assert len(script.tables) == 300
    assert SearchedText.searched <= 3 * len(text)


def _drop_create_script(groups: int) -> str:
    """``DROP IF EXISTS`` before each table's CREATE, temporary helpers read and dropped
    again, bare queries: what a long legacy script is made of."""
    return "".join(
        f"DROP TABLE IF EXISTS T_{n};\n"
        f"CREATE TABLE T_{n} AS SELECT O_CUSTKEY, O_TOTALPRICE FROM SALES.ORDERS;\n"
        f"CREATE TEMPORARY TABLE TMP_{n} AS SELECT O_CUSTKEY FROM T_{n};\n"
        f"SELECT COUNT(*) AS N FROM TMP_{n};\n"
        f"DROP TABLE TMP_{n};\n"
        for n in range(groups)
    )


def test_splitting_a_script_is_linear_in_its_length():
    # Calls, not seconds: 4x the statements must cost 4x the calls (plus a little for
    # longer names). Looking ahead from every DROP for a later CREATE, and numbering the
    # bare queries by searching the ones before, made this grow with the square.
    counts = []
    for groups in (40, 160):
        sql = _drop_create_script(groups)
        with counted_calls() as calls:
            parsed = parse_script(sql, "snowflake", file="long.sql", name="long")
        assert len(parsed.definitions) == 2 * groups
        assert parsed.names[-1] == f"long_{groups}"
        counts.append(calls())
    assert counts[1] <= 4.4 * counts[0]


def test_a_refusal_late_in_a_long_script_is_located_at_its_line():
    script = synthetic_script(400)
    lines = script.count("\n")
    refused = script + "\n\nDELETE FROM SALES.ORDERS;\n"
    with pytest.raises(TranslationError) as raised:
        translate_script(refused, "snowflake", file="long.sql", name="long")
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.line, diagnostic.col) == ("PROC-STATEMENT", lines + 3, 1)


@pytest.mark.parametrize("name", [["Orders"], ["dbo", "Orders"], ["t_7"]])
def test_completing_a_name_does_not_go_over_every_name_in_the_catalog(name):
    # A script's own tables join the catalog one by one; a name written without its
    # database (T-SQL's `Orders` for SalesDW.dbo.Orders) used to be compared with all.
    base = load_catalog()
    counts = []
    for tables in (100, 1000):
        own = {("salesdw", "dbo", f"t_{n}"): f"warehouse.t_{n}" for n in range(tables)}
        legacy = {**base.legacy, "tsql": {**base.legacy["tsql"], **own}}
        catalog = replace(base, legacy=legacy)
        catalog.resolve_name(name, "tsql", "f.sql", 1, 1)  # the first lookup indexes them
        lookups = []
        for _ in range(3):  # the fewest of three: a cache warmed on the way counts once
            with counted_calls() as calls:
                resolution = catalog.resolve_name(name, "tsql", "f.sql", 1, 1)
            lookups.append(calls())
        counts.append(min(lookups))
    assert resolution.lake_table in ("raw.orders", "warehouse.t_7")
    assert counts[1] == counts[0]


def test_bare_queries_are_numbered_in_order_even_when_written_the_same():
    # Numbered by counting, not by searching the earlier ones (which also gave equal
    # queries one number between them).
    sql = "SELECT 1 AS A;\nSELECT 2 AS A;\nSELECT 1 AS A;\nSELECT 1 AS A;\n"
    script = translate_script(sql, "snowflake", file="bare.sql", name="bare")
    assert [(t.name, t.line) for t in script.tables] == [
        ("bare_1", 1),
        ("bare_2", 2),
        ("bare_3", 3),
        ("bare_4", 4),
    ]
