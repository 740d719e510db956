"""Where an audit bundle may be written: a missing, empty or bundle folder, nothing else."""

from pathlib import Path

import pytest

from pipelines.audit.chain import AuditError
from pipelines.audit.store import check_bundle_folder


def test_a_missing_an_empty_and_a_bundle_folder_are_accepted(tmp_path):
    check_bundle_folder(tmp_path / "new" / "v1")
    check_bundle_folder(tmp_path)
    (tmp_path / "bundle.json").write_text("{}")
    (tmp_path / "report.html").write_text("")
    check_bundle_folder(tmp_path)


@pytest.mark.parametrize("others", [["notes.txt"], ["a", "b", "c", "d"]])
def test_a_folder_of_something_else_is_refused_in_one_line(tmp_path, others):
    for name in others:
        (tmp_path / name).write_text("mine")
    with pytest.raises(AuditError, match="not an audit bundle") as refused:
        check_bundle_folder(tmp_path)
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(others)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(AuditError, match="not a folder"):
        check_bundle_folder(tmp_path / "f")


def test_the_root_folder_is_refused():
    with pytest.raises(AuditError, match="not an audit bundle"):
        check_bundle_folder(Path("/"))
