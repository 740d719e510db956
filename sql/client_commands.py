"""What the client tool does with a script before the server sees any of it.

A legacy script is often not what the server reads: the tool that runs it reads it first.

- **T-SQL's ``GO``** (sqlcmd, SSMS, Azure Data Studio): a line holding only ``GO``, in any
  case, optionally a count and a comment, ends a batch; the tool sends each batch on its
  own and the server never sees the word. ``GO n`` sends the batch before it ``n`` times.
  https://learn.microsoft.com/sql/t-sql/language-elements/sql-server-utilities-statements-go
  Here it ends a statement (a ``;``); a count other than 1 becomes a ``GO n`` statement the
  script refuses (the batch would run again).
- **BTEQ's dot commands** (Teradata's Basic Teradata Query): a line starting with ``.`` is a
  command to BTEQ (``.LOGON tdpid/user,password``, ``.IF ERRORCODE <> 0 THEN .QUIT 8``,
  ``.EXPORT FILE = ...``), ended by the end of its line. Each is blanked out of the text
  before it is tokenized (the same length, so every later position is unchanged) and
  reported by name only: a ``.LOGON`` line holds a password, whose text must reach no
  output, log or diagnostic, nor the text any later step reads.
  https://docs.teradata.com/r/Basic-Teradata-Query-Reference (BTEQ Commands)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot.tokens import Token, TokenType

# A line that may hold GO: a cheap test before the tokens are looked at (most files have none).
_GO_LINE = re.compile(r"^[ \t]*go\b", re.IGNORECASE | re.MULTILINE)


def may_hold_go(sql: str) -> bool:
    return _GO_LINE.search(sql) is not None


def _alone_on_line(sql: str, before: int, start: int) -> bool:
    """Whether only blanks stand between the last line break in ``sql[before:start]`` and
    ``start``, and there is such a line break (``before`` -1: the text's start counts)."""
    newline = sql.rfind("\n", max(before, 0), start)
    if newline < 0 and before >= 0:
        return False
    return not sql[newline + 1 : start].strip()


def batch_separators(tokens: list[Token], sql: str) -> list[Token]:
    """``tokens`` of a T-SQL text with each ``GO`` line (a VAR token ``GO`` alone on its line,
    with an optional count on the same line) made a ``;``; ``GO n`` with n other than 1 made
    ``; GO 'n' ;`` (a command statement the script refuses)."""
    result: list[Token] = []
    index = 0
    count = len(tokens)
    while index < count:
        token = tokens[index]
        if token.token_type != TokenType.VAR or token.text.upper() != "GO":
            result.append(token)
            index += 1
            continue
        before = tokens[index - 1].end + 1 if index else -1
        following = tokens[index + 1] if index + 1 < count else None
        times = None
        if (
            following is not None
            and following.token_type == TokenType.NUMBER
            and "\n" not in sql[token.end + 1 : following.start]
        ):
            times, following = following, tokens[index + 2] if index + 2 < count else None
        last = times or token
        ends_line = following is None or "\n" in sql[last.end + 1 : following.start]
        if not (_alone_on_line(sql, before, token.start) and ends_line):
            result.append(token)
            index += 1
            continue
        end = Token(TokenType.SEMICOLON, ";", token.line, token.col, token.start, token.end, [])
        result.append(end)
        if times is not None and times.text != "1":
            result.append(
                Token(TokenType.COMMAND, "GO", token.line, token.col, token.start, token.end, [])
            )
            result.append(
                Token(TokenType.STRING, times.text, times.line, times.col, times.start, times.end)
            )
            result.append(
                Token(TokenType.SEMICOLON, ";", times.line, times.col, times.start, times.end, [])
            )
        index += 2 if times is not None else 1
    return result


@dataclass(frozen=True)
class DotCommand:
    """One BTEQ command: its name (upper case, without the dot), where its line starts, and
    what a translation does with it."""

    name: str
    offset: int
    severity: str  # "info": skipped; "error": refused
    message: str
    # The session setting the command states, as an assumption's (name, value), if any.
    setting: tuple[str, str] | None = None
    # An unconditional .QUIT / .EXIT: the script ends here.
    ends_script: bool = False


# A line whose first character that is not a blank is a dot followed by a letter.
_DOT_LINE = re.compile(r"^[ \t]*\.[A-Za-z]", re.MULTILINE)
# What the scan steps over: quoted strings and names, comments, and dot-command lines (at
# the start of a line only, which the alternatives before them cannot reach mid-token).
_SCAN = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|^([ \t]*\.([A-Za-z]+)[^\n]*)",
    re.MULTILINE | re.DOTALL,
)

# Commands that change how BTEQ shows or logs the results, or which session it opens, never
# which rows a statement returns: skipped.
_OUTPUT_COMMANDS = frozenset(
    {
        "AUTOKEYRETRIEVE", "DEFAULTS", "ECHOREQ", "ERRORLEVEL", "ERROROUT", "FOLDLINE",
        "FOOTING", "FORMAT", "HEADING", "INDICDATA", "LABEL", "LOGDATA", "LOGMECH", "LOGOFF",
        "LOGON", "MAXERROR", "MESSAGEOUT", "NULL", "OMIT", "PAGEBREAK", "PAGELENGTH", "QUIET",
        "RECORDMODE", "REMARK", "RETCANCEL", "RTITLE", "SEPARATOR", "SESSIONS", "SHOW",
        "SIDETITLES", "SKIPDOUBLE", "SKIPLINE", "SUPPRESS", "TDP", "TIMEMSG", "TITLEDASHES",
        "WIDTH",
    }
)  # fmt: skip
# Commands that change what the script does: refused, with the reason.
_REFUSED_COMMANDS = {
    "COMPILE": "compiles a stored procedure from a file",
    "EXPORT": "writes the results of the statements after it to a file, which a translated "
    "script does not do; export from the lake instead",
    "GOTO": "skips the statements up to a label",
    "HANG": "pauses the script",
    "IMPORT": "reads a file's records as the values of USING statements",
    "OS": "runs an operating-system command",
    "REPEAT": "runs the next statement several times",
    "RETLIMIT": "limits the rows a statement returns",
    "RUN": "runs the statements of another file here; translate that file on its own",
    "TSO": "runs a TSO command",
}
# The conditions of .IF under which its action runs only after a failed statement.
_ERROR_CONDITION = re.compile(
    r"^\s*(ERRORCODE|ERRORLEVEL)\s*(<>|\^=|!=|>|>=|NE|GT|GE)\s*0*([1-9]\d*|0)\s*THEN\s+\.(\w+)",
    re.IGNORECASE,
)
_SESSION_TRANSACTION = re.compile(r"^\s*SESSION\s+TRANSACTION\s+(\w+)\s*;?\s*$", re.IGNORECASE)
_SET_OPTION = re.compile(r"^\s*(\w+)", re.IGNORECASE)


def _dot_command(name: str, rest: str, offset: int) -> DotCommand:
    """What a translation does with ``.name rest``; ``rest`` never enters a message."""
    name = name.upper()
    shown = f".{name}"
    if name in ("QUIT", "EXIT"):
        return DotCommand(
            name, offset, "info", f"{shown} skipped: it ends the BTEQ script", ends_script=True
        )
    if name == "IF":
        condition = _ERROR_CONDITION.match(rest)
        comparison = condition.group(2).upper() if condition else ""
        value = int(condition.group(3)) if condition else 0
        # True only where ERRORCODE (ERRORLEVEL) is not 0, which a statement that succeeds
        # leaves it: <> 0, > n, >= n with n >= 1.
        fails_only = condition is not None and (
            (comparison in ("<>", "^=", "!=", "NE") and value == 0)
            or comparison in (">", "GT")
            or (comparison in (">=", "GE") and value >= 1)
        )
        if fails_only:
            action = condition.group(4).upper()
            return DotCommand(
                name,
                offset,
                "info",
                f".IF {condition.group(1).upper()} ... THEN .{action} skipped: it acts only "
                "after a statement fails, where the translated script stops too",
            )
        return DotCommand(
            name,
            offset,
            "error",
            ".IF decides by what a statement returned (ACTIVITYCOUNT, ...) which statements "
            "run next; only .IF ERRORCODE <> 0 (a failure) is translated",
        )
    if name == "SET":
        transaction = _SESSION_TRANSACTION.match(rest)
        if transaction:
            mode = transaction.group(1).upper()
            if mode not in ("BTET", "ANSI"):
                return DotCommand(
                    name, offset, "error", f".SET SESSION TRANSACTION {mode}: not BTET or ANSI"
                )
            setting = ("teradata_session_mode", "TERA" if mode == "BTET" else "ANSI")
            return DotCommand(
                name,
                offset,
                "info",
                f".SET SESSION TRANSACTION {mode}: the script states teradata_session_mode "
                f"{setting[1]}",
                setting=setting,
            )
        option = _SET_OPTION.match(rest)
        word = option.group(1).upper() if option else ""
        if word in _REFUSED_COMMANDS:
            return DotCommand(
                name, offset, "error", f".SET {word} {_REFUSED_COMMANDS[word]}: not translated"
            )
        if word in _OUTPUT_COMMANDS or word in ("SESSION", "ECHOREQ", "REPEATSTOP"):
            return DotCommand(
                name,
                offset,
                "info",
                f".SET {word} skipped: it changes how BTEQ shows results or opens its session, "
                "not what a statement returns",
            )
        return DotCommand(name, offset, "error", f".SET {word or '...'}: not a known BTEQ setting")
    if name in _REFUSED_COMMANDS:
        return DotCommand(
            name, offset, "error", f"{shown} {_REFUSED_COMMANDS[name]}: not translated"
        )
    if name in _OUTPUT_COMMANDS:
        what = (
            "it logs BTEQ on (its text, which holds a password, is not read)"
            if name in ("LOGON", "LOGDATA", "LOGMECH")
            else "it ends BTEQ's session"
            if name == "LOGOFF"
            else "it changes how BTEQ shows or logs results, not what a statement returns"
        )
        return DotCommand(name, offset, "info", f"{shown} skipped: {what}")
    return DotCommand(
        name, offset, "error", f"{shown} is not a BTEQ command this translation knows"
    )


@dataclass(frozen=True)
class BteqScript:
    text: str  # the script with every dot-command line blanked out
    commands: tuple[DotCommand, ...]


def read_bteq(text: str) -> BteqScript:
    """``text`` without its BTEQ dot commands (each line's characters but its line break
    made blanks), and the commands, in order."""
    if _DOT_LINE.search(text) is None:
        return BteqScript(text, ())
    pieces: list[str] = []
    commands: list[DotCommand] = []
    done = 0
    for match in _SCAN.finditer(text):
        if match.group(1) is None:
            continue
        start, end = match.span(1)
        dot = text.index(".", start)
        rest = text[dot + 1 + len(match.group(2)) : end]
        commands.append(_dot_command(match.group(2), rest, dot))
        pieces.append(text[done:start])
        pieces.append(re.sub(r"[^\r]", " ", text[start:end]))
        done = end
    pieces.append(text[done:])
    return BteqScript("".join(pieces), tuple(commands))
