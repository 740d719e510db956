"""`plumbline translate` and `plumbline catalog import` refuse a file over the size limits
in one line, exit 2 (bad input), before its text is parsed (issue 44, item 6: a 50 MB script
of 740,000 statements ran for minutes at over 1 GB)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from sql.source_limits import MAX_SOURCE_BYTES, MAX_STATEMENTS

TOO_MANY = "CREATE TABLE t (a INT);\n" + "SELECT 1 AS one;\n" * MAX_STATEMENTS


def sparse(path: Path, size: int) -> Path:
    with path.open("wb") as file:
        file.truncate(size)
    return path


COMMANDS = {
    "translate": ["translate", "--from", "snowflake"],
    "catalog import": ["catalog", "import", "--from", "snowflake"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_over_the_byte_limit_is_one_line_exit_2(command, tmp_path):
    huge = sparse(tmp_path / "huge.sql", 50_000_000)
    out = tmp_path / "catalog.yaml"
    args = [*COMMANDS[command], str(huge)] + (["-o", str(out)] if command != "translate" else [])
    started = time.monotonic()
    result = CliRunner().invoke(main, args)
    assert time.monotonic() - started < 5
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{huge}:1:1: error[SOURCE-SIZE]: the file holds 50,000,000 bytes; a SQL file may "
        f"hold {MAX_SOURCE_BYTES:,} at most: split it into several files"
    ]
    assert not out.exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_over_the_statement_limit_is_one_line_exit_2(command, tmp_path):
    many = tmp_path / "many.sql"
    many.write_text(TOO_MANY)
    result = CliRunner().invoke(main, [*COMMANDS[command], str(many)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{many}:{MAX_STATEMENTS + 1}:1: error[SOURCE-SIZE]: statement {MAX_STATEMENTS + 1:,} "
        f"of {MAX_STATEMENTS + 1:,}; a SQL file may hold {MAX_STATEMENTS:,} statements at "
        "most: split it into several files"
    ]


def test_standard_input_over_the_byte_limit_is_one_line_exit_2():
    result = CliRunner().invoke(
        main, COMMANDS["translate"], input="-- padding\n" * (MAX_SOURCE_BYTES // 11 + 1)
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"<stdin>:1:1: error[SOURCE-SIZE]: the file holds more than {MAX_SOURCE_BYTES:,} "
        f"bytes; a SQL file may hold {MAX_SOURCE_BYTES:,} at most: split it into several files"
    ]


def test_a_file_within_the_limits_translates_as_before(tmp_path):
    path = tmp_path / "q.sql"
    path.write_text(
        "SELECT o_orderkey\r\nFROM SALES.ORDERS\r\n"
    )  # line ends as read_text read them
    result = CliRunner().invoke(main, [*COMMANDS["translate"], str(path)])
    assert result.exit_code == 0, result.stderr
    assert "o_orderkey" in result.stdout
