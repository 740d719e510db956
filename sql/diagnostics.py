"""Located diagnostics and the one exception type translation raises.

Every refusal must point a person at the exact place in the legacy file, so a
diagnostic always carries ``file:line:col`` and the id of the rule that fired.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sqlglot import exp

from sql.tree import preorder

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    rule: str
    message: str
    file: str
    line: int
    col: int

    def format(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}[{self.rule}]: {self.message}"


class TranslationError(Exception):
    """Raised when a statement cannot be translated exactly; carries every error diagnostic."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    def __reduce__(self) -> tuple[type, tuple[tuple[Diagnostic, ...]]]:
        # Pickled back from a worker process (sql/parallel.py) with its diagnostics, not
        # rebuilt from the formatted text.
        return type(self), (self.diagnostics,)


def offset_to_line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset into ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


class LineIndex:
    """Where each line of one text starts, found once: the line of an offset is then a
    binary search. ``offset_to_line_col`` counts newlines from the start of the text, which
    is fine once per file but quadratic when every statement of a long script is located."""

    def __init__(self, text: str):
        self.length = len(text)
        self.starts = [0]
        position = text.find("\n")
        while position >= 0:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        """The same 1-based line and column as ``offset_to_line_col``."""
        offset = max(0, min(offset, self.length))
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def source_text(data: bytes, file: str) -> str:
    """A legacy file's bytes as text: UTF-8 (a byte order mark is dropped) without NUL.
    Raises ``TranslationError`` located at the first byte that is not UTF-8 or at the NUL,
    rather than a decoding traceback or a NUL that becomes part of a name."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        prefix = data[:start].decode("utf-8-sig", "replace")
        line, col = offset_to_line_col(prefix, len(prefix))
        message = f"byte 0x{data[start]:02x} is not UTF-8 text; save the file as UTF-8"
        raise TranslationError(
            [Diagnostic("error", "SOURCE-TEXT", message, file, line, col)]
        ) from None
    check_source_text(text, file)
    return text


def check_source_text(text: str, file: str) -> None:
    """Raise ``TranslationError`` at the first NUL character of ``text``."""
    offset = text.find("\x00")
    if offset >= 0:
        line, col = offset_to_line_col(text, offset)
        message = "a NUL character; SQL text holds none (is this a binary or UTF-16 file?)"
        raise TranslationError([Diagnostic("error", "SOURCE-TEXT", message, file, line, col)])


def node_offset(node: exp.Expr | None) -> int | None:
    """Start offset of the earliest token under ``node``, walking up when it has none.

    sqlglot records token positions on leaves (identifiers, literals, function names),
    not on every node, so we take the smallest start below the node, or above it. A clause
    whose keyword the translator located (``keyword_start``, e.g. CONNECT BY) is at its
    keyword.
    """
    if node is not None and node._meta and "keyword_start" in node._meta:
        return node._meta["keyword_start"]
    current = node
    while current is not None:
        starts = [n.meta["start"] for n in preorder(current) if "start" in n.meta]
        if starts:
            return min(starts)
        current = current.parent
    return None
