"""Session settings a script states, and statements that change no result.

Scripts as SQL Server Management Studio and BTEQ write them open with session settings:
``SET ANSI_NULLS ON``, ``SET NOCOUNT ON``, ``USE [Sales]``, ``DATABASE sales;``,
``.SET SESSION TRANSACTION BTET``; they also refresh optimizer statistics (``COLLECT
STATISTICS``, ``UPDATE STATISTICS``). Each is one of:

- a setting that changes no result, or a value that is the standard's behaviour (``SET
  ANSI_NULLS ON``, ``SET NOCOUNT ON``, ``SET XACT_ABORT ON``, ``SET TRANSACTION ISOLATION
  LEVEL ...``), or a statistics refresh: skipped, with an info line;
- a setting the translation has as an assumption (sql/assumptions.py): the script states it
  for the statements after it, which are translated under that value, and a rule that reads
  it reports an info line naming the statement rather than a warning about an assumption:
  ``SET DATEFIRST n`` (tsql_datefirst), ``SET LANGUAGE us_english`` (date_language), ``USE db``
  and Teradata's ``DATABASE db`` (tsql_database, teradata_database), BTEQ's ``.SET SESSION
  TRANSACTION`` (teradata_session_mode), Oracle's ``ALTER SESSION SET NLS_DATE_FORMAT =
  '...'`` (oracle_nls_date_format; also NLS_DATE_LANGUAGE, CURRENT_SCHEMA) and Snowflake's
  ``ALTER SESSION SET WEEK_START = n`` (and TIMESTAMP_TYPE_MAPPING);
- any other value is refused, located, saying what it changes (``SET ANSI_WARNINGS OFF``:
  division by zero gives NULL; ``SET DATEFORMAT dmy``; ``SET ROWCOUNT 10``).

A setting changed after the script made a temporary table or a variable is refused: their
queries are translated where a later statement reads them, which would be under the new value.
https://learn.microsoft.com/sql/t-sql/statements/set-statements-transact-sql
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from sqlglot import exp

from sql.assumptions import NAMESPACE_LEVELS, AssumptionError, dialect_settings
from sql.diagnostics import node_offset
from sql.rules import Context
from sql.source_dialects import LOCKING_META, SessionSetting, semantics

# Settings that change how a statement runs (locks, plans, messages, transactions), never
# which rows or values it returns.
NO_EFFECT = frozenset(
    {
        "ARITHIGNORE", "CONTEXT_INFO", "CURSOR_CLOSE_ON_COMMIT", "DEADLOCK_PRIORITY",
        "FIPS_FLAGGER", "FORCEPLAN", "IDENTITY_INSERT", "IMPLICIT_TRANSACTIONS", "LOCK_TIMEOUT",
        "NOCOUNT", "OFFSETS", "QUERY_GOVERNOR_COST_LIMIT", "REMOTE_PROC_TRANSACTIONS",
        "RESULT_SET_CACHING", "STATISTICS IO", "STATISTICS PROFILE", "STATISTICS TIME",
        "STATISTICS XML", "TRANSACTION ISOLATION LEVEL", "XACT_ABORT",
    }
)  # fmt: skip

# Settings with a value under which they change nothing the translation reads (the
# standard's behaviour, the default of an SSMS connection), and what any other value changes.
STANDARD_VALUES: dict[str, tuple[frozenset[str], str]] = {
    "ANSI_DEFAULTS": (
        frozenset({"ON"}),
        "turns off ANSI_NULLS, ANSI_WARNINGS, ANSI_PADDING and more at once",
    ),
    "ANSI_NULL_DFLT_OFF": (
        frozenset({"OFF"}),
        "makes columns declared without NULL or NOT NULL reject NULLs",
    ),
    "ANSI_NULL_DFLT_ON": (
        frozenset({"ON"}),
        "makes columns declared without NULL or NOT NULL reject NULLs",
    ),
    "ANSI_NULLS": (
        frozenset({"ON"}),
        "makes = NULL and <> NULL compare NULLs as values",
    ),
    "ANSI_PADDING": (
        frozenset({"ON"}),
        "cuts trailing blanks from values stored in the columns created after it",
    ),
    "ANSI_WARNINGS": (
        frozenset({"ON"}),
        "makes division by zero and overflow give NULL, and INSERT cut long text, where they fail",
    ),
    "ARITHABORT": (
        frozenset({"ON"}),
        "makes division by zero and overflow give NULL where ANSI_WARNINGS is OFF",
    ),
    "CONCAT_NULL_YIELDS_NULL": (
        frozenset({"ON"}),
        "makes 'a' + NULL 'a', not NULL",
    ),
    "DATEFORMAT": (
        frozenset({"MDY"}),
        "changes how text converts to a date ('2024-02-01' into a datetime is January 2 under "
        "dmy), where the translation reads it as us_english's mdy does",
    ),
    "FMTONLY": (frozenset({"OFF"}), "makes statements return their columns, without rows"),
    "NOEXEC": (frozenset({"OFF"}), "makes the statements after it compile without running"),
    "NUMERIC_ROUNDABORT": (
        frozenset({"OFF"}),
        "makes an expression that loses precision fail, where it is rounded",
    ),
    "PARSEONLY": (frozenset({"OFF"}), "makes the statements after it parse without running"),
    "QUOTED_IDENTIFIER": (
        frozenset({"ON"}),
        'makes "text" a string rather than a name, which the translation read as a name',
    ),
    "ROWCOUNT": (frozenset({"0"}), "stops each later statement after that many rows"),
    "SHOWPLAN_ALL": (frozenset({"OFF"}), "makes statements return their plans, not rows"),
    "SHOWPLAN_TEXT": (frozenset({"OFF"}), "makes statements return their plans, not rows"),
    "SHOWPLAN_XML": (frozenset({"OFF"}), "makes statements return their plans, not rows"),
    # -1 and 2147483647 (what SSMS and ODBC connections set) are unlimited.
    "TEXTSIZE": (
        frozenset({"-1", "2147483647"}),
        "cuts the long text values a SELECT returns",
    ),
}

# ALTER SESSION SET parameters (Oracle, Snowflake) that are assumptions.
ALTER_SESSION_SETTINGS = {
    "CURRENT_SCHEMA": "oracle_schema",
    "NLS_DATE_FORMAT": "oracle_nls_date_format",
    "NLS_DATE_LANGUAGE": "date_language",
    "TIMESTAMP_TYPE_MAPPING": "snowflake_timestamp_type_mapping",
    "WEEK_START": "snowflake_week_start",
}
_ALTER_SESSION = re.compile(
    r"\s*ALTER\s+SESSION\s+SET\s+(\w+)\s*=\s*('([^']*)'|([\w$]+))\s*;?\s*$", re.IGNORECASE
)

# SET LANGUAGE values that are us_english, whose names and date format the translation reads.
ENGLISH = frozenset({"US_ENGLISH", "ENGLISH"})


@dataclass
class ScriptSession:
    """The session settings of one script, followed statement by statement."""

    # The script's context: its ``assumptions`` and ``stated`` follow the script's settings
    # (each definition keeps those in force where it stands).
    ctx: Context

    def consume(self, statement: exp.Expr, busy: str | None) -> bool:
        """Follow ``statement`` if it is a session setting or changes no result (True:
        nothing else to do with it). ``busy``: a temporary table or variable the script has
        made so far, whose query a later statement would read under a new setting."""
        if isinstance(statement, SessionSetting):
            self._tsql_setting(statement, busy)
            return True
        if isinstance(statement, exp.Use) and semantics(self.ctx.dialect).USE_SETS_DATABASE:
            self._use(statement, busy)
            return True
        if isinstance(statement, exp.Command | exp.Alter) and self._alter_session(statement, busy):
            return True
        if isinstance(statement, exp.Comment):
            self.ctx.report(
                "info",
                "SESSION-SETTING",
                statement,
                f"COMMENT ON {statement.args.get('kind') or ''} {statement.this.sql()} skipped: "
                "it sets the object's description in the data dictionary, not what a query "
                "returns",
                statement=True,
            )
            return True
        if isinstance(statement, exp.Set) and _query_bands(statement):
            self.ctx.report(
                "info",
                "SESSION-SETTING",
                statement,
                "SET QUERY_BAND skipped: it tags the session's or transaction's requests with "
                "names and values for workload management and accounting, not what a query "
                "returns",
                statement=True,
            )
            return True
        if statement.meta.get(LOCKING_META):
            self.ctx.report(
                "info",
                "SESSION-SETTING",
                statement,
                f"{statement.meta[LOCKING_META]} skipped: the lock says which other sessions' "
                "changes Teradata lets the request see or wait for, not what it computes from "
                "the rows it reads",
                statement=True,
            )
        if isinstance(statement, exp.Command) and _statistics(statement):
            self.ctx.report(
                "info",
                "SESSION-SETTING",
                statement,
                f"{_statistics(statement)} skipped: it refreshes the optimizer's statistics, "
                "not what a query returns",
                statement=True,
            )
            return True
        return False

    def state(
        self, setting: str, value: str, shown: str, node: exp.Expr | None, busy: str | None
    ) -> None:
        """The script sets assumption ``setting`` to ``value`` from here on (``shown``: the
        statement as a message names it)."""
        line, col = self.ctx.locate_statement(node) if node is not None else (1, 1)
        if busy is not None and str(getattr(self.ctx.assumptions, setting)) != value:
            self._refuse(
                node,
                f"{shown} after the script made {busy}: statements after it read that query "
                "under the new setting, though it ran under the old one; state the setting at "
                "the top of the script",
            )
            return
        try:
            self.ctx.assumptions = self.ctx.assumptions.with_overrides({setting: value})
        except AssumptionError as error:
            self._refuse(node, f"{shown}: {error}")
            return
        self.ctx.stated[setting] = f"{shown} at {line}:{col}"
        self.ctx.report(
            "info",
            "SESSION-SETTING",
            node,
            f"{shown}: the statements after it are translated with {setting} = {value}",
            statement=True,
        )

    def _tsql_setting(self, statement: SessionSetting, busy: str | None) -> None:
        names = [option.name for option in statement.expressions]
        value = statement.args["value"].name
        shown = f"SET {', '.join(names)} {value}"
        if statement.args.get("variable"):
            self._refuse(
                statement, f"SET {', '.join(names)} @{value}: a value known only when it runs"
            )
            return
        for name in names:
            if name in NO_EFFECT:
                continue
            if name == "DATEFIRST":
                self.state("tsql_datefirst", value, shown, statement, busy)
                continue
            if name == "LANGUAGE":
                if value.upper() in ENGLISH:
                    self.state("date_language", "ENGLISH", shown, statement, busy)
                else:
                    self._refuse(
                        statement,
                        f"{shown} changes the names of months and days and the date format "
                        "text converts by; the translation reads them as us_english does",
                    )
                continue
            standard, effect = STANDARD_VALUES.get(name, (frozenset(), ""))
            if value.upper() not in standard:
                self._refuse(statement, f"{shown} {effect or 'is not a known setting'}")
        if all(n in NO_EFFECT or value.upper() in STANDARD_VALUES.get(n, ((),))[0] for n in names):
            self.ctx.report(
                "info",
                "SESSION-SETTING",
                statement,
                f"{shown} skipped: it changes no result the translation computes",
                statement=True,
            )

    def _use(self, statement: exp.Use, busy: str | None) -> None:
        target = statement.this
        kind = statement.args.get("kind")
        parts = [p for p in (target.args.get("db"), target.this) if p] if target else []
        if kind is not None or len(parts) != 1 or not isinstance(target.this, exp.Identifier):
            self._refuse(statement, "USE of anything but one database name is not translated")
            return
        setting = NAMESPACE_LEVELS[self.ctx.dialect][0]
        name = target.this.name
        self.state(setting, name, f"{self._keyword(statement)} {name}", statement, busy)

    def _keyword(self, statement: exp.Expr) -> str:
        """The statement's first word as written (Teradata's DATABASE parses as USE)."""
        offset = node_offset(statement)
        starts = self.ctx.statement_starts
        index = bisect_right(starts, offset) if offset is not None else 0
        words = self.ctx.text[starts[index - 1] :].split(None, 1) if index else []
        return words[0].upper() if words else "USE"

    def _alter_session(self, statement: exp.Command | exp.Alter, busy: str | None) -> bool:
        """Oracle's and Snowflake's ALTER SESSION SET of settings that are assumptions (False:
        not such a statement, or a parameter that is none)."""
        pairs = _session_parameters(statement)
        settings = [(ALTER_SESSION_SETTINGS.get(name), name, value) for name, value in pairs]
        known = dialect_settings(self.ctx.dialect)
        if not settings or any(s is None or s not in known for s, _, _ in settings):
            return False
        for setting, name, value in settings:
            assert setting is not None
            if setting == "date_language":
                value = "ENGLISH" if value.upper() in ("AMERICAN", "ENGLISH") else value
            self.state(setting, value, f"ALTER SESSION SET {name}", statement, busy)
        return True

    def _refuse(self, node: exp.Expr | None, message: str) -> None:
        self.ctx.report("error", "SESSION-SETTING", node, message, statement=True)


def command_text(statement: exp.Command) -> str:
    """An opaque command's text: its first word and the rest as written."""
    rest = statement.expression
    return f"{statement.this} {rest.name if isinstance(rest, exp.Expr) else rest or ''}"


def _session_parameters(statement: exp.Command | exp.Alter) -> list[tuple[str, str]]:
    """The (parameter, value) pairs of ALTER SESSION SET p = v [, ...], upper-case names."""
    if isinstance(statement, exp.Command):
        match = _ALTER_SESSION.match(command_text(statement))
        if match is None:
            return []
        value = match.group(3) if match.group(3) is not None else match.group(4)
        return [(match.group(1).upper(), value)]
    if str(statement.args.get("kind") or "").upper() != "SESSION":
        return []
    pairs = []
    for action in statement.args.get("actions") or []:
        if not isinstance(action, exp.AlterSession) or action.args.get("unset"):
            return []
        for item in action.expressions:
            equation = item.this if isinstance(item, exp.SetItem) else None
            if not isinstance(equation, exp.EQ) or not isinstance(equation.this, exp.Column):
                return []
            value = equation.expression
            if not isinstance(value, exp.Literal | exp.Column | exp.Var):
                return []
            pairs.append((equation.this.name.upper(), value.name))
    return pairs


def _query_bands(statement: exp.Set) -> bool:
    """Teradata's ``SET QUERY_BAND = '...' [UPDATE] FOR SESSION | TRANSACTION``."""
    items = statement.expressions
    return bool(items) and all(isinstance(item, exp.QueryBand) for item in items)


def _statistics(statement: exp.Command) -> str | None:
    """``COLLECT STATISTICS`` (Teradata: also STATS, STAT) or ``UPDATE STATISTICS`` (T-SQL),
    as the statement's name, else None."""
    words = command_text(statement).upper().split()
    if words[:1] == ["COLLECT"] and words[1:2] and words[1] in ("STATISTICS", "STATS", "STAT"):
        return "COLLECT STATISTICS"
    if words[:2] == ["UPDATE", "STATISTICS"]:
        return "UPDATE STATISTICS"
    return None
