"""How every ``plumbline`` command ends when it cannot do what it was asked: one line on
stderr and a documented exit code, never click's usage block or a Python traceback.

Exit codes: 0 done; 1 the work failed (a refused translation, a failed check, a broken
bundle, a full disk); 2 bad input (a flag, a setting, a file that cannot be read); 130 interrupted;
70 a bug in plumbline: the line names the file that holds the traceback (redacted).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
import traceback
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from pipelines.settings import Settings, redact

if TYPE_CHECKING:
    from pipelines.project import ProjectError

Cause = TypeVar("Cause", bound=BaseException)

INTERNAL_ERROR = 70  # EX_SOFTWARE in sysexits.h
INTERRUPTED = 130


# Line breaks and tabs (those str.splitlines knows), each run of them shown as one space.
_BREAKS = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")


def one_line(text: str) -> str:
    """``text`` as one line for a terminal: secrets redacted, each run of line breaks shown
    as one space (spaces themselves kept: they may be the input being quoted), and other
    control characters (an ESC that would drive the terminal) shown escaped."""
    flat = _BREAKS.sub(" ", redact(text).strip())
    return "".join(
        ascii(char)[1:-1] if unicodedata.category(char) == "Cc" else char for char in flat
    )


def crash_report(exc: BaseException) -> Path:
    """Write the traceback of an unexpected error (secrets redacted) to a private file."""
    handle, name = tempfile.mkstemp(
        prefix=f"plumbline-crash-{time.strftime('%Y%m%dT%H%M%S')}-", suffix=".txt"
    )
    with os.fdopen(handle, "w") as report:  # mkstemp's file is mode 0600
        report.write(redact("".join(traceback.format_exception(exc))))
    return Path(name)


def disk_full_line(exc: BaseException) -> str | None:
    """Wherever the disk filled (a file, Dagster's or MLflow's sqlite, DuckDB), it is not a
    bug: the line that names the home's folder, the space free and the space the next run
    adds (:func:`pipelines.cli.preflight.disk_full`); None for any other error."""
    from pipelines.cli.preflight import disk_full, disk_full_sign

    if disk_full_sign(exc) is None:
        return None
    try:
        settings = Settings.from_env()  # as the command exported them: its flags included
    except Exception:  # a setting that no longer reads: the disk is still what failed
        return f"the disk is full ({one_line(str(exc))[:200]}); free space and run again"
    return disk_full([exc], settings)


class OneLineErrors(click.Group):
    """A group whose usage errors, aborts and unexpected exceptions end in one line."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
            click.echo(f"plumbline: error: {one_line(exc.format_message())}{where}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"plumbline: error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("plumbline: interrupted", err=True)
            sys.exit(INTERRUPTED)
        except Exception as exc:
            mistake = configuration_mistake(exc)
            if mistake is not None:
                fail_problems(mistake)
            full = disk_full_line(exc)
            if full is not None:
                click.echo(f"plumbline: error: {one_line(full)}", err=True)
                sys.exit(1)
            report = crash_report(exc)
            click.echo(
                f"plumbline: internal error: {type(exc).__name__}: {one_line(str(exc))[:300]} "
                f"(a bug; the traceback is in {report})",
                err=True,
            )
            sys.exit(INTERNAL_ERROR)
        sys.exit(result if isinstance(result, int) else 0)


def fail_usage(message: str) -> None:
    """Bad input: one line naming the setting and what it accepts, exit code 2."""
    click.echo(f"plumbline: error: {one_line(message)}", err=True)
    sys.exit(2)


def find_cause(error: BaseException, kind: type[Cause]) -> Cause | None:
    """``error`` itself or the first exception of ``kind`` it was raised from or while
    handling (Dagster wraps what a component raises in errors of its own)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, kind):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def configuration_mistake(error: BaseException) -> ProjectError | None:
    """The project configuration mistake ``error`` comes from, if it does: never a bug."""
    from pipelines.project import ProjectError

    return find_cause(error, ProjectError)


def fail_problems(error: ProjectError, outcome: str = "nothing was done") -> NoReturn:
    """Bad input in the project's configuration: each problem as ``FILE:FIELD: message``
    (files relative to the working directory), then a count, exit code 2."""
    from pipelines.project import ProjectProblems

    problems = ProjectProblems.of(error)
    for line in problems.lines(Path.cwd()):
        click.echo(one_line(line), err=True)
    count = len(problems.problems)
    click.echo(
        f"plumbline: error: {count} problem{'s' if count != 1 else ''} in the project's "
        f"configuration; {outcome}",
        err=True,
    )
    sys.exit(2)
