"""How large a SQL file plumbline reads: a legacy file (``plumbline translate``, a project's
load and its ``ansi/`` assets), a DDL file (``plumbline catalog import``) or the SQL a
template renders to.

Parsing and translating cost time and memory in proportion to the text: a 7 MB script of
100,000 statements takes seconds to tokenize alone and minutes to translate. A file over
either limit is refused before its text is parsed (the bytes from the file's size, before it
is read; the statements once the text is tokenized, before the parser builds a tree of any
of them), with a located ``error[SOURCE-SIZE]``: split it into several files. No legacy
file of the corpora this project is tested on comes near either limit (the largest holds
325 KB).
"""

from __future__ import annotations

import io
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

from sql.diagnostics import Diagnostic, TranslationError, offset_to_line_col

MAX_SOURCE_BYTES = 10_000_000
MAX_STATEMENTS = 10_000
RULE = "SOURCE-SIZE"
# Below this many characters a text is tokenized in about a second: its statements are counted
# exactly, with no pass over the text beforehand.
ESTIMATED_FROM = 1_000_000


class SourceTooLarge(TranslationError):
    """A file over a limit: bad input (the command line exits 2), located where the limit
    is passed."""


def check_source_bytes(size: int, file: str, *, read: bool = False) -> None:
    """Raise ``SourceTooLarge`` when a file of ``size`` bytes is over the limit (``read``:
    ``size`` is what was read of it, one byte over the limit at most)."""
    if size > MAX_SOURCE_BYTES:
        held = f"more than {MAX_SOURCE_BYTES:,} bytes" if read else f"{size:,} bytes"
        message = (
            f"the file holds {held}; a SQL file may hold {MAX_SOURCE_BYTES:,} at most: split "
            "it into several files"
        )
        raise SourceTooLarge([Diagnostic("error", RULE, message, file, 1, 1)])


# What may hide a semicolon that ends no statement: quoted text, comments, dollar-quoted bodies.
_NOT_STATEMENT_ENDS = re.compile(
    r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?|`[^`]*`?|--[^\n]*|/\*.*?(?:\*/|\Z)"
    r"|\$\$.*?(?:\$\$|\Z)|;",
    re.DOTALL,
)


def check_statement_estimate(text: str, file: str, limit: int = MAX_STATEMENTS) -> None:
    """Raise ``SourceTooLarge`` for ``text`` of far more statements than ``limit``, found
    before it is tokenized (tokenizing 100,000 statements takes seconds and half a GB):
    its semicolons outside quotes and comments, as any dialect writes them, counted; over
    twice the limit, where no quoting a scan could misread explains the difference. Nearer
    the limit, or in a text too short for tokenizing it to matter, the tokenizer's count
    decides (``check_statement_count``)."""
    if len(text) < ESTIMATED_FROM or text.count(";") <= 2 * limit:
        return
    ends = sum(1 for match in _NOT_STATEMENT_ENDS.finditer(text) if match.group() == ";")
    if ends > 2 * limit:
        message = (
            f"about {ends:,} statements; a SQL file may hold {limit:,} statements at most: "
            "split it into several files"
        )
        raise SourceTooLarge([Diagnostic("error", RULE, message, file, 1, 1)])


def check_statement_count(
    starts: list[int], text: str, file: str, limit: int = MAX_STATEMENTS
) -> None:
    """Raise ``SourceTooLarge`` at the first statement over ``limit``; ``starts``: each
    statement's offset in ``text``."""
    if len(starts) > limit:
        line, col = offset_to_line_col(text, starts[limit])
        message = (
            f"statement {limit + 1:,} of {len(starts):,}; a SQL file may hold {limit:,} "
            "statements at most: split it into several files"
        )
        raise SourceTooLarge([Diagnostic("error", RULE, message, file, line, col)])


def read_bytes(stream: BinaryIO, file: str, size: int | None = None) -> bytes:
    """What ``stream`` holds, refused once over the limit: from ``size`` (a file's, known
    before reading) at once, else after reading no more than one byte over it (a pipe)."""
    if size is not None:
        check_source_bytes(size, file)
    data = stream.read(MAX_SOURCE_BYTES + 1)
    check_source_bytes(len(data), file, read=True)
    return data


def read_source(path: Path, file: str | None = None) -> bytes:
    """The bytes of the file at ``path`` (named ``file`` in a refusal), refused from its
    size before it is read. Raises ``OSError`` as ``open`` does."""
    with open(path, "rb") as stream:
        status = os.fstat(stream.fileno())
        # A FIFO or a device reports no size: it is read up to the limit.
        size = status.st_size if stat.S_ISREG(status.st_mode) else None
        return read_bytes(stream, file or str(path), size)


def decoded(data: bytes) -> str:
    """``data`` as ``open(..., encoding="utf-8")`` reads it (line ends made ``\\n``);
    raises ``UnicodeDecodeError``."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
