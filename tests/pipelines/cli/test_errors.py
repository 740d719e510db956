"""One line for every failure: what reaches the terminal is one line, redacted, with no
control character that could drive the terminal."""

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pipelines.cli.errors import INTERNAL_ERROR, OneLineErrors, one_line
from pipelines.cli.main import main
from pipelines.project import Problem, ProjectProblems


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("first\nsecond\r\n\tthird", "first second third"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("bell\x07 and NUL\x00", "bell\\x07 and NUL\\x00"),
        ("see http://me:t0ken@host/x", "see http://me:***@host/x"),
        ("café, 東京", "café, 東京"),
    ],
)
def test_one_line(text, line):
    assert one_line(text) == line


def test_a_selection_holding_control_characters_is_refused_in_one_line(tmp_path):
    # Found by tests/pipelines/cli/test_fuzz.py: Dagster's message quoted the raw text.
    env = {"PLUMBLINE_HOME": str(tmp_path / "home"), "PLUMBLINE_MLFLOW_URI": "http://127.0.0.1:9"}
    result = CliRunner().invoke(main, ["run", "--select", "\x1b\n"], env=env)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "\x1b" not in result.stderr


def test_an_unexpected_error_is_one_line_naming_a_private_redacted_report():
    @click.group(cls=OneLineErrors)
    def broken():
        pass

    @broken.command()
    def explode():
        raise RuntimeError("cannot reach http://me:t0ken@host\nsecond line")

    result = CliRunner().invoke(broken, ["explode"])
    assert result.exit_code == INTERNAL_ERROR
    [line] = result.stderr.splitlines()
    assert line.startswith(
        "plumbline: internal error: RuntimeError: cannot reach http://me:***@host"
    )
    path = Path(line.rsplit("the traceback is in ", 1)[1].rstrip(")"))
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert "t0ken" not in path.read_text() and "RuntimeError" in path.read_text()
    path.unlink()


def test_spaces_of_a_quoted_input_are_kept():
    assert one_line("--select '  ' is empty") == "--select '  ' is empty"


def test_a_configuration_mistake_under_another_error_is_bad_input_not_a_bug(tmp_path):
    # Dagster raises its own error from the one a component raised while loading.
    @click.group(cls=OneLineErrors)
    def loading():
        pass

    @loading.command()
    def load():
        try:
            raise ProjectProblems(
                [Problem("sources.Orders", "a table name must be a lower-case identifier")]
            ).located(tmp_path / "defs.yaml")
        except ProjectProblems as exc:
            raise RuntimeError("Error while building definitions") from exc

    result = CliRunner().invoke(loading, ["load"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tmp_path / 'defs.yaml'}:attributes.sources.Orders: a table name must be a lower-case "
        "identifier",
        "plumbline: error: 1 problem in the project's configuration; nothing was done",
    ]
