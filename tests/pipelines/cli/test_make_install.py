"""`make install` (what `make run` starts with) says which phase it is in, one line each, and
a second call says nothing about installing. A real install into a fresh virtualenv, of a
lock that holds only the build backend (the real lock takes minutes)."""

import re
import shutil
import subprocess
from pathlib import Path

from sql.paths import REPOSITORY_ROOT


def make_install(venv: Path, lock: Path) -> subprocess.CompletedProcess:
    make = shutil.which("make")
    assert make is not None
    return subprocess.run(
        [make, "--no-print-directory", "install", f"VENV={venv}", f"LOCK={lock}"],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def only_setuptools(lock: Path) -> str:
    """The setuptools pin of ``lock`` with its hashes: what the editable install builds with."""
    block = re.search(r"^setuptools==.*?(?=^\S)", lock.read_text(), re.M | re.S)
    assert block is not None
    return "\n".join(line for line in block[0].splitlines() if not line.strip().startswith("#"))


def test_install_prints_one_line_per_phase_and_nothing_the_second_time(tmp_path):
    lock = tmp_path / "build.lock"
    lock.write_text(only_setuptools(REPOSITORY_ROOT / "requirements" / "dev.lock") + "\n")
    venv = tmp_path / "venv"

    first = make_install(venv, lock)
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.splitlines() == [
        f"install: creating the virtualenv {venv} (python3.11)",
        "install: pip from requirements/pip.lock",
        f"install: 1 locked dependencies from {lock} (a few minutes the first time)",
        "install: plumbline itself (editable)",
        "install: done",
    ]
    assert (venv / "bin" / "plumbline").is_file()

    second = make_install(venv, lock)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "install:" not in second.stdout + second.stderr
