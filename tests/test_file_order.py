"""The suite's file order (tests/conftest.py): the longest files first, each existing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import LONGEST_FIRST

ROOT = Path(__file__).resolve().parent.parent


def test_every_longest_file_exists_once():
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    assert [p for p in LONGEST_FIRST if not (ROOT / p).is_file()] == []


def test_the_session_runs_the_longest_files_first(request: pytest.FixtureRequest):
    files = list(dict.fromkeys(i.path.relative_to(ROOT).as_posix() for i in request.session.items))
    listed = [f for f in files if f in LONGEST_FIRST]
    # Those collected come first, in the listed order, whatever was selected.
    assert files[: len(listed)] == listed == [f for f in LONGEST_FIRST if f in listed]
