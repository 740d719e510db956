"""Diagnostics a user met in the wrong place or with a changing text: a table hint is
located at its own ``WITH``, and a parse error reads the same from run to run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate_script

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("source", "places"),
    [
        ("SELECT o_orderkey\nFROM dbo.Orders WITH (NOLOCK)", [(2, 17)]),
        ("SELECT o_orderkey FROM dbo.Orders AS o\n    WITH (NOLOCK)", [(2, 5)]),
        (
            "SELECT o.o_orderkey\nFROM dbo.Orders o WITH (NOLOCK)\n"
            "JOIN dbo.Customer c (NOLOCK) ON c.c_custkey = o.o_custkey",
            [(2, 19), (3, 21)],
        ),
    ],
)
def test_a_table_hint_is_located_at_the_hint(source, places):
    [table] = translate_script(source, "tsql").tables
    found = sorted((d.line, d.col) for d in table.diagnostics if d.rule == "TABLE-HINT")
    assert found == places


# Each misses two required parts of one node: sqlglot names the first it finds in a set.
INCOMPLETE = ["SELECT a FROM t WHERE a BETWEEN", "SELECT IIF() FROM t", "SELECT DATEADD() FROM t"]
PROBE = """
import sys
from sql.diagnostics import TranslationError
from sql.translate import translate
for source in sys.argv[1:]:
    try:
        translate(source, "tsql")
    except TranslationError as error:
        print(error.diagnostics[0].format())
"""


def test_a_parse_error_reads_the_same_whatever_the_hash_seed():
    outputs = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", PROBE, *INCOMPLETE],
            cwd=REPO_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout)
    [output] = outputs
    assert output.splitlines() == [
        "<stdin>:1:25: error[PARSE]: cannot parse: incomplete BETWEEN: a required part is missing",
        "<stdin>:1:12: error[PARSE]: cannot parse: incomplete IF: a required part is missing",
        "<stdin>:1:16: error[PARSE]: cannot parse: incomplete DATEADD: a required part is missing",
    ]


@pytest.mark.parametrize(
    ("source", "place", "message"),
    [
        (
            "SELECT\n" + "    o_orderkey,\n" * 13 + "    o_custkey, o_nothing\nFROM dbo.Orders",
            (15, 16),
            "Column 'o_nothing' could not be resolved.",
        ),
        (
            # The same name resolved earlier: the column the error is about is the one located.
            "SELECT o_orderkey,\n       zz.o_orderkey\nFROM dbo.Orders",
            (2, 8),
            "Column 'o_orderkey' could not be resolved for table: 'zz'.",
        ),
        (
            "SELECT o.o_orderkey\nFROM dbo.Orders o\nJOIN dbo.Orders p ON p.o_orderkey = o.o_orderkey"
            "\nWHERE o_custkey = 1",
            (4, 7),
            "Column 'o_custkey' could not be resolved.",
        ),
    ],
)
def test_an_unknown_column_has_one_location_ours(source, place, message):
    # sqlglot's own message also quotes "Line: L, Col: C" (the name's last character).
    with pytest.raises(TranslationError) as raised:
        translate_script(source, "tsql")
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, (diagnostic.line, diagnostic.col), diagnostic.message) == (
        "COLUMN-UNKNOWN",
        place,
        message,
    )
