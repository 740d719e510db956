"""The one atomic writer: readers see the old file or the new one, never a part."""

import os

import pytest

from pipelines.lake.files import atomic_path, write_atomic


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "nested" / "manifest.json"
    write_atomic(target, "old")
    write_atomic(target, b"new")
    assert target.read_text() == "new"
    assert sorted(os.listdir(target.parent)) == ["manifest.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "report.html"
    write_atomic(target, "issued")
    with pytest.raises(RuntimeError, match="disk full"), atomic_path(target) as temporary:
        temporary.write_text("half of the new ")
        raise RuntimeError("disk full")
    assert target.read_text() == "issued"
    assert sorted(os.listdir(tmp_path)) == ["report.html"]


def test_the_temporary_file_lies_beside_the_target(tmp_path):
    # A rename is atomic only within one file system: the temporary must share the folder.
    with atomic_path(tmp_path / "t.parquet") as temporary:
        assert temporary.parent == tmp_path
        temporary.write_bytes(b"x")
    assert (tmp_path / "t.parquet").read_bytes() == b"x"
