"""A legacy file is a script; split it into the tables it defines.

Every statement is one of:
- a query, ``CREATE [OR REPLACE] TABLE/VIEW ... AS query`` or ``INSERT INTO ... query``:
  it defines a table (a bare query is named after the file);
- a helper the script builds and throws away: a T-SQL ``#temp`` or ``SELECT ... INTO #t``,
  a Teradata ``VOLATILE`` or any ``TEMPORARY`` table, or a table or view that the script
  itself drops again later. Helpers become CTEs of the definitions that read them, as their
  rows are when read: a helper declared with typed columns (``CREATE TABLE #t (a INT)``)
  takes ``INSERT``s, each a new version of it;
- ``DROP`` of a helper, or of a table the script (re)defines: no-op in a lake where a
  published table is replaced atomically; ``CREATE INDEX`` on a helper: no-op;
- a variable's declaration or assignment (``sql/variables.py``) or a BigQuery temporary
  function (``sql/udf.py``): replaced at each use;
- anything else (control flow, UPDATE/DELETE/MERGE, ...) is refused, and every
  such statement is listed.
A definition that reads a table defined earlier in the same script reads it from the lake,
so the tables of one file become assets with dependencies between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from sql.assumptions import Assumptions
from sql.client_commands import DotCommand
from sql.diagnostics import Diagnostic, Severity
from sql.rules import Context
from sql.rules.types import INSERT_LENGTH_META
from sql.session import ScriptSession
from sql.source_dialects import JoinIndex, StorageOption, semantics
from sql.tree import breadth_first, clone, preorder
from sql.udf import TempFunctions
from sql.variables import ScriptVariables


@dataclass(frozen=True)
class Definition:
    query: exp.Query
    target: str | None  # lower-case table name, None for a bare query
    name_parts: tuple[exp.Identifier, ...]  # the table name as written (for later readers)
    statement: exp.Expr  # where diagnostics about the whole definition point
    # BigQuery variables it reads by a bare name, (name, line, col) of each use: a column of
    # the same name of a table it reads would be read instead (sql/translate.py checks).
    variable_uses: tuple[tuple[str, int, int], ...] = ()
    # The settings it is translated under: the script's own (sql/session.py) over the
    # assumed ones; None: the script's assumptions. ``stated``: those the script states.
    assumptions: Assumptions | None = None
    stated: tuple[tuple[str, str], ...] = ()


def _report(
    ctx: Context,
    severity: Severity,
    rule: str,
    node: exp.Expr | None,
    message: str,
    settings: tuple[str, ...] = (),
) -> None:
    ctx.report(severity, rule, node, message, statement=True, settings=settings)


def _target(statement: exp.Expr) -> exp.Table | None:
    target = statement.this if isinstance(statement, exp.Create | exp.Insert) else None
    if isinstance(target, exp.Schema):
        target = target.this
    return target if isinstance(target, exp.Table) else None


def _key(table: exp.Table) -> str:
    """The name as written, compared case-insensitively, without T-SQL's '#'."""
    return ".".join(p.name.lower() for p in _parts(table)).lstrip("#")


def _cte_name(key: str) -> str:
    return key.replace(".", "__")


def _parts(table: exp.Table) -> tuple[exp.Identifier, ...]:
    return tuple(
        p
        for p in (table.args.get("catalog"), table.args.get("db"), table.this)
        if isinstance(p, exp.Identifier)
    )


def _is_temporary(statement: exp.Expr) -> bool:
    if isinstance(statement, exp.Select):
        into = statement.args.get("into")
        target = into.this if into is not None else None
        return bool(
            into
            and isinstance(target, exp.Table)
            and (into.args.get("temporary") or target.name.startswith("#"))
        )
    table = _target(statement)
    properties = statement.args.get("properties")
    kinds = {type(p) for p in properties.expressions} if properties else set()
    return (
        exp.VolatileProperty in kinds
        or exp.TemporaryProperty in kinds
        or _volatile_after_set(statement)
        or (table is not None and table.name.startswith("#"))
    )


def _volatile_after_set(statement: exp.Expr) -> bool:
    """Teradata's ``CREATE MULTISET VOLATILE TABLE``: sqlglot reads VOLATILE after SET or
    MULTISET as a function's stability, not as the table's kind."""
    properties = statement.args.get("properties")
    return bool(properties) and any(
        isinstance(p, exp.StabilityProperty) and p.name.upper() == "VOLATILE"
        for p in properties.expressions
    )


def _rows_deleted_on_commit(statement: exp.Expr, ctx: Context) -> bool:
    """Whether the temporary table ``statement`` creates loses its rows when a transaction
    ends: Teradata's ON COMMIT DELETE ROWS, the default without ON COMMIT PRESERVE ROWS."""
    if not semantics(ctx.dialect).TEMPORARY_ROWS_DELETED_ON_COMMIT:
        return False
    properties = statement.args.get("properties")
    found = (
        [p for p in properties.expressions if isinstance(p, exp.OnCommitProperty)]
        if properties
        else []
    )
    return not found or bool(found[-1].args.get("delete"))


def _dropped(statement: exp.Expr) -> list[exp.Table]:
    if not isinstance(statement, exp.Drop) or statement.kind not in ("TABLE", "VIEW"):
        return []
    tables = statement.args.get("tables") or [statement.this]
    return [t for t in tables if isinstance(t, exp.Table)]


def _last_drops(statements: list[exp.Expr]) -> dict[str, int]:
    """For each name some statement drops, the index of the last statement that drops it."""
    last: dict[str, int] = {}
    for index, statement in enumerate(statements):
        for table in _dropped(statement):
            last[_key(table)] = index
    return last


def _last_creations(statements: list[exp.Expr]) -> dict[str, int]:
    """For each name a CREATE, INSERT or SELECT ... INTO writes, the index of the last
    statement that does."""
    last: dict[str, int] = {}
    for index, statement in enumerate(statements):
        if isinstance(statement, exp.Create | exp.Insert):
            table = _target(statement)
        elif isinstance(statement, exp.Select) and statement.args.get("into") is not None:
            table = statement.args["into"].this
        else:
            continue
        if isinstance(table, exp.Table):
            last[_key(table)] = index
    return last


def _named_columns(query: exp.Query, statement: exp.Expr, ctx: Context) -> exp.Query | None:
    """The query with its columns named by the statement's column list, if it has one.

    `CREATE TABLE t (a, b) AS SELECT ...` and `INSERT INTO t (a, b) SELECT ...` name the
    table's columns positionally. A column list that declares types is refused: it would
    convert values, which the translation does not model.
    """
    target = statement.this
    if not isinstance(target, exp.Schema) or not target.expressions:
        return query
    names: list[str] = []
    for column in target.expressions:
        if isinstance(column, exp.ColumnDef) and column.args.get("kind") is not None:
            _report(ctx, "error", "PROC-STATEMENT", statement, "column list with data types")
            return None
        names.append(column.name)
    selects = query.selects
    if isinstance(query, exp.Select) and not any(s.is_star for s in selects):
        if len(selects) != len(names):
            _report(
                ctx,
                "error",
                "SCRIPT-SHAPE",
                statement,
                "column list and SELECT list differ in length",
            )
            return None
        query.set(
            "expressions",
            [
                exp.alias_(s.unalias().copy(), exp.to_identifier(n))
                for s, n in zip(selects, names, strict=True)
            ],
        )
        return query
    # Set operations and SELECT *: name the columns through a derived column list.
    alias = exp.TableAlias(
        this=exp.to_identifier("defined"), columns=[exp.to_identifier(n) for n in names]
    )
    return exp.select("*").from_(exp.Subquery(this=query, alias=alias))


def _query_of(node: exp.Expr | None) -> exp.Query | None:
    while isinstance(node, exp.Subquery):
        node = node.this
    return node if isinstance(node, exp.Query) else None


def _reads(query: exp.Expr) -> set[str]:
    """The names a query reads, as ``_key`` compares them."""
    return {_key(t) for t in query.find_all(exp.Table)}


@dataclass
class _Helpers:
    """The temporary tables of a script, each version of each one (its rows after each
    statement that writes it) as the query that makes it, to be a CTE of what reads it.

    A statement's reads are bound to the versions current when it runs (``bind``): a table
    appended to later, dropped and made again, is read as it was. Versions read other
    versions by name, so that a definition holds one flat WITH of every version it needs,
    in the order the script made them (``with_ctes``)."""

    current: dict[str, str] = field(default_factory=dict)  # key -> its current version's name
    queries: dict[str, exp.Query] = field(default_factory=dict)  # version -> query, in order
    made: dict[str, int] = field(default_factory=dict)  # key -> versions made

    def __contains__(self, key: object) -> bool:
        return key in self.current

    def add(self, key: str, query: exp.Query) -> str:
        """Make ``query`` (reads already bound) the rows of ``key`` from now on."""
        count = self.made[key] = self.made.get(key, 0) + 1
        name = _cte_name(key) if count == 1 else f"{_cte_name(key)}__{count}"
        self.queries[name] = query
        self.current[key] = name
        return name

    def drop(self, key: str) -> bool:
        return self.current.pop(key, None) is not None

    def bind(self, query: exp.Query) -> exp.Query:
        """``query`` reading the current version of each helper it names."""
        if not self.current:
            return query  # most scripts have none: no walk over the query to find its tables
        # Only the query's own WITH hides a helper: a CTE of a subquery is seen inside it alone.
        existing = query.args.get("with_")
        own = {cte.alias_or_name.lower() for cte in existing.expressions} if existing else set()

        def reads_helper(table: exp.Table) -> bool:
            key = _key(table)
            return (
                "helper" not in table.meta  # bound already, in a variable's value
                and key in self.current
                and not (len(_parts(table)) == 1 and _cte_name(key) in own)
            )

        if not any(reads_helper(t) for t in query.find_all(exp.Table)):
            return query
        query = clone(query)  # parsed, not typed yet: as ``with_ctes`` copies
        for table in [t for t in query.find_all(exp.Table) if reads_helper(t)]:
            version = self.current[_key(table)]
            # Read as the version's CTE, still known by the name the script gave it.
            if not table.args.get("alias"):
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("catalog", None)
            table.set("db", None)
            table.set("this", exp.to_identifier(version))
            table.meta["helper"] = version
        return query

    def needed(self, query: exp.Expr) -> list[str]:
        """The versions ``query`` reads, directly or through other versions, in order."""
        if not self.queries:
            return []
        found: set[str] = set()
        pending = {t.meta["helper"] for t in query.find_all(exp.Table) if "helper" in t.meta}
        while pending:
            name = pending.pop()
            found.add(name)
            pending |= {
                t.meta["helper"]
                for t in self.queries[name].find_all(exp.Table)
                if "helper" in t.meta
            } - found
        return [name for name in self.queries if name in found]

    def with_ctes(self, query: exp.Query) -> exp.Query:
        """``query`` with the versions it reads as CTEs before its own."""
        needed = self.needed(query)
        if not needed:
            return query
        # ``clone``, not ``copy``: the parsed trees carry no types yet and only token
        # positions and flags in ``meta`` (a deep copy was a quarter of the script split's time).
        query = clone(query)
        existing = query.args.get("with_")
        ctes = [
            exp.CTE(
                this=clone(self.queries[name]),
                alias=exp.TableAlias(this=exp.to_identifier(name)),
            )
            for name in needed
        ]
        recursive = False
        if existing is not None:
            ctes.extend(existing.expressions)
            recursive = bool(existing.args.get("recursive"))  # a version never reads itself
        query.set("with_", exp.With(expressions=ctes, recursive=recursive))
        return query


def split_script(
    statements: list[exp.Expr],
    ctx: Context,
    parameters: dict[str, exp.Expr] | None = None,
    commands: tuple[DotCommand, ...] = (),
) -> list[Definition]:
    """The tables the script defines, in order; problems are reported to ``ctx`` as errors.
    ``parameters``: BigQuery query parameters' values by lower-case name (sql/parameters.py);
    ``commands``: the client's commands between the statements (BTEQ's, in text order)."""
    helpers = _Helpers()
    session = ScriptSession(ctx)
    pending_commands = list(commands)
    quit_command: DotCommand | None = None
    helper_uses: dict[str, tuple[tuple[str, int, int], ...]] = {}
    # Temporary tables created with declared columns (CREATE TABLE #t (a INT, ...)): INSERT
    # appends rows converted to them; no rows until the first INSERT.
    declared: dict[str, tuple[tuple[str, exp.DataType], ...]] = {}
    dropped: set[str] = set()  # helpers the script dropped and has not created again
    refused: set[str] = set()  # temporary tables whose CREATE was refused: reads say nothing
    # Permanent tables the script declares with typed columns and keeps (never drops again):
    # each is an output of the script, its rows what the INSERTs put in (none without any).
    # Each holds its CREATE and why an INSERT into it has no exact form (None: it has one).
    kept: dict[str, tuple[exp.Table, exp.Create, str | None]] = {}
    empty: set[str] = set()  # declared tables no INSERT has filled yet
    # Teradata's declared tables: each one's CREATE, and whether it made a SET table (which
    # keeps one row of duplicates), decided at the first INSERT (the session mode assumed).
    creates: dict[str, exp.Create] = {}
    # Each declared table's columns with NOT NULL or a DEFAULT.
    column_rules: dict[str, dict[str, _ColumnRule]] = {}
    set_tables: dict[str, bool] = {}
    defined: dict[str, exp.Expr] = {}
    targets: set[str | None] = set()  # the definitions' table names
    definitions: list[Definition] = []
    # T-SQL's IF OBJECT_ID(...) IS NOT NULL DROP TABLE t is DROP TABLE IF EXISTS t.
    statements = [
        (_drop_if_exists(s) or s) if isinstance(s, exp.IfBlock) else s for s in statements
    ]
    # Where each name is last dropped and last written, found in one pass: looking ahead
    # from every statement made splitting a long script quadratic.
    last_drop = _last_drops(statements)
    last_write = _last_creations(statements)

    def add_helper(
        name: str, query: exp.Query, statement: exp.Expr, uses: tuple[tuple[str, int, int], ...]
    ) -> None:
        if name in helpers or name in defined or name in declared:
            _report(
                ctx, "error", "TEMP-TABLE", statement, f"temporary table {name} is written twice"
            )
        helper_uses[helpers.add(name, helpers.bind(query))] = uses
        dropped.discard(name)
        ctx.applied.add("TEMP-TABLE")

    def append(name: str, query: exp.Query, statement: exp.Insert, uses: tuple) -> None:
        problem = kept[name][2] if name in kept else None
        if problem is not None:
            _report(ctx, "error", "TEMP-TABLE", statement, problem)
            return
        if name in creates and name not in set_tables:
            set_tables[name] = _teradata_set_table(creates[name], ctx)
        distinct = set_tables.get(name, False)
        if distinct:
            is_empty = name in empty or name not in helpers
            problem = _set_table_problem(name, statement, declared[name], is_empty, ctx)
            if problem is not None:
                _report(ctx, "error", "TD-SET-TABLE", statement, problem)
                return
        rules = column_rules.get(name, {})
        target = statement.this
        named = (
            [c.name.lower() for c in target.expressions]
            if isinstance(target, exp.Schema) and target.expressions
            else [column for column, _ in declared[name]]
        )
        problem = _not_null_problem(statement, query, rules, named) if rules else None
        if problem is not None:
            _report(ctx, "error", "TEMP-TABLE", statement, problem)
            return
        defaults = {n: r.default for n, r in rules.items() if r.default is not None}
        rows = _typed_rows(helpers.bind(query), declared[name], statement, ctx, defaults)
        if rows is None:
            return
        if name in helpers and name not in empty:
            # The rows so far, then the new ones: both already of the declared types.
            before = exp.to_table(helpers.current[name])
            before.meta["helper"] = helpers.current[name]
            rows = exp.union(exp.select("*").from_(before), rows, distinct=distinct)
        elif distinct:
            rows = exp.select("*").from_(rows.subquery("inserted_rows")).distinct()
        if distinct:
            ctx.applied.add("TD-SET-TABLE")
        empty.discard(name)
        helper_uses[helpers.add(name, rows)] = uses
        ctx.applied.add("TEMP-TABLE")

    def keep(table: exp.Table, statement: exp.Create) -> None:
        """``CREATE TABLE t (a INT, ...)`` of a table the script keeps: no rows yet."""
        key = _key(table)
        columns, problem = _column_types(statement, ctx)
        if columns is None:
            _report(ctx, "error", "TEMP-TABLE", statement, problem or "")
            return
        if key in helpers or key in declared or key in defined:
            _report(ctx, "error", "SCRIPT-SHAPE", statement, f"table {key} is written twice")
            return
        declared[key] = columns
        kept[key] = (table, statement, problem or _insert_problem(statement))
        column_rules[key] = _column_rules(statement)
        if semantics(ctx.dialect).SET_TABLES:
            creates[key] = statement
        helpers.add(key, _no_rows(columns))
        empty.add(key)
        dropped.discard(key)
        ctx.applied.add("TEMP-TABLE")

    def define(
        query: exp.Query,
        table: exp.Table | None,
        statement: exp.Expr,
        uses: tuple[tuple[str, int, int], ...],
    ) -> None:
        key = _key(table) if table is not None else None
        target = table.name.lstrip("#").lower() if table is not None else None
        if key is not None and (key in defined or key in helpers or target in targets):
            _report(ctx, "error", "SCRIPT-SHAPE", statement, f"table {target} is written twice")
            return
        named = _named_columns(helpers.bind(query), statement, ctx)
        if named is None:
            return
        if key is not None:
            defined[key] = statement
        parts = _parts(table) if table is not None else ()
        for version in helpers.needed(named):
            uses += helper_uses.get(version, ())
        definitions.append(
            Definition(
                helpers.with_ctes(named),
                target,
                parts,
                statement,
                uses,
                ctx.assumptions,
                tuple(ctx.stated.items()),
            )
        )
        targets.add(target)

    def readable(query: exp.Expr, statement: exp.Expr) -> bool:
        """Whether every temporary table ``query`` reads has rows the script gave it."""

        def unreadable(table: exp.Table) -> bool:
            key = _key(table)
            if key in helpers or "helper" in table.meta:
                return False
            return key in dropped or key in declared or key in refused or _temporary_name(table)

        # Most queries read none: found in any order first; reported in sqlglot's walk order.
        if not any(isinstance(n, exp.Table) and unreadable(n) for n in preorder(query)):
            return True
        fine = True
        for table in breadth_first(query):
            if not isinstance(table, exp.Table):
                continue
            key = _key(table)
            if key in helpers or "helper" in table.meta:
                continue
            if key in refused:
                fine = False  # its CREATE is refused already
                continue
            if key in dropped:
                problem = f"reads {table.sql(ctx.dialect)} after the script dropped it"
            elif key in declared:
                problem = (
                    f"reads {table.sql(ctx.dialect)} before any INSERT fills it (an empty table has no "
                    "translation here)"
                )
            elif _temporary_name(table):
                problem = (
                    f"reads temporary table {table.sql(ctx.dialect)}, which this script does not create "
                    "(another session's table is not visible to it)"
                )
            else:
                continue
            ctx.report("error", "TEMP-TABLE", table, problem)
            fine = False
        return fine

    variables = ScriptVariables(ctx, last_write, _key, helpers.bind, helpers.__contains__)
    variables.parameters = dict(parameters or {})
    functions = TempFunctions(ctx)
    # Where each DROP was first written (equal statements compare equal): a repeated
    # `DROP TABLE IF EXISTS t` is judged from there, like the first.
    first_drops: dict[exp.Expr, int] = {}

    def busy() -> str | None:
        """A temporary table or variable the script made so far, if any."""
        made = next(iter(helpers.current), None) or next(iter(declared), None)
        if made is not None:
            return f"table {made}"
        return f"variable {next(iter(variables.values))}" if variables.values else None

    def client_commands(until: int | None) -> None:
        """Report (and follow) the client's commands before offset ``until`` (None: all)."""
        nonlocal quit_command
        while pending_commands and (until is None or pending_commands[0].offset < until):
            command = pending_commands.pop(0)
            line, col = ctx.line_col(command.offset)
            if command.setting is not None:
                setting, value = command.setting
                if str(getattr(ctx.assumptions, setting)) != value and busy() is not None:
                    message = (
                        f".SET SESSION TRANSACTION after the script made {busy()}: state it "
                        "at the top of the script"
                    )
                    diagnostic = Diagnostic("error", "BTEQ-COMMAND", message, ctx.file, line, col)
                    ctx.diagnostics.append(diagnostic)
                    continue
                ctx.assumptions = ctx.assumptions.with_overrides({setting: value})
                ctx.stated[setting] = f".SET SESSION TRANSACTION at {line}:{col}"
            if command.ends_script and quit_command is None:
                quit_command = command
            diagnostic = Diagnostic(
                command.severity, "BTEQ-COMMAND", command.message, ctx.file, line, col
            )
            if diagnostic not in ctx.diagnostics:
                ctx.diagnostics.append(diagnostic)

    for index, statement in enumerate(statements):
        if isinstance(statement, exp.Semicolon):
            continue  # an empty statement: a comment after the last `;`, or `;;`
        if pending_commands or quit_command is not None:
            known = ctx.statement_offsets.get(id(statement))
            client_commands(known[1] if known is not None else None)
            if quit_command is not None:
                line, col = ctx.line_col(quit_command.offset)
                message = (
                    f".{quit_command.name} ends the BTEQ script before the statements after "
                    "it, which never run: remove them, or the command"
                )
                diagnostic = Diagnostic("error", "BTEQ-COMMAND", message, ctx.file, line, col)
                if diagnostic not in ctx.diagnostics:
                    ctx.diagnostics.append(diagnostic)
                break
        if session.consume(statement, busy()):
            continue
        if isinstance(statement, exp.Command) and statement.this.upper() == "GO":
            _report(
                ctx,
                "error",
                "SESSION-SETTING",
                statement,
                f"GO {statement.expression.name if statement.expression else ''} runs the batch "
                "before it again that many times (sqlcmd, SSMS): not translated; repeat the "
                "statements, or run the script so often",
            )
            continue
        if variables.consume(statement, index) or functions.define(statement):
            continue
        uses_before = len(variables.bare_uses)
        if isinstance(statement, exp.Query | exp.Create | exp.Insert):
            variables.substitute(statement)
            functions.inline(statement)
        uses = tuple(variables.bare_uses[uses_before:])
        drops = _dropped(statement)
        if drops:
            first = first_drops.setdefault(statement, index)
            unknown = [
                t
                for t in drops
                if _key(t) not in helpers
                and _key(t) not in declared
                and _key(t) not in defined
                and last_drop[_key(t)] <= index  # not dropped again later
                # DROP ... IF EXISTS before the script (re)creates the table
                and last_write.get(_key(t), -1) <= first
            ]
            if unknown:
                names = ", ".join(t.sql() for t in unknown)
                _report(
                    ctx,
                    "error",
                    "PROC-STATEMENT",
                    statement,
                    f"DROP of {names}, which this script does not create: a translated "
                    "script defines tables and removes none from the warehouse; drop it there",
                )
            for table in drops:
                key = _key(table)
                if helpers.drop(key) | (declared.pop(key, None) is not None):
                    dropped.add(key)
            continue
        temporary = _is_temporary(statement)
        written = _written_table(statement)
        if written is not None and _global_temporary(written):
            _report(
                ctx,
                "error",
                "TEMP-TABLE",
                statement,
                f"global temporary table ##{written.name} is shared with other sessions, "
                "which can change it while the script runs; use a #local one",
            )
            continue
        if isinstance(statement, exp.Select) and statement.args.get("into") is not None:
            into = statement.args["into"]
            if not isinstance(into.this, exp.Table):
                # Oracle BULK COLLECT INTO a, b, T-SQL SELECT @v = ...: variables, not tables.
                _report(ctx, "error", "PROC-STATEMENT", statement, "SELECT ... INTO variables")
                continue
            if not temporary:
                _report(
                    ctx, "error", "PROC-STATEMENT", statement, "SELECT ... INTO a permanent table"
                )
                continue
            query = clone(statement)  # parsed, not typed yet
            query.set("into", None)
            if readable(query, statement):
                add_helper(_key(into.this), query, statement, uses)
        elif isinstance(statement, exp.Query):
            if readable(statement, statement):
                define(statement, None, statement, uses)
        elif _index_on(statement) is not None and _key(_index_on(statement)) in helpers:
            # An index changes how a helper is read, never what it holds: nothing to do.
            # A UNIQUE one can make the INSERTs fail, which the translation would not.
            if statement.args.get("unique"):
                _report(
                    ctx,
                    "error",
                    "TEMP-TABLE",
                    statement,
                    "a UNIQUE index on a temporary table rejects duplicate rows, which the "
                    "translation does not check",
                )
        elif isinstance(statement, exp.Create) and statement.kind in ("TABLE", "VIEW"):
            query = _query_of(statement.expression)
            table = _target(statement)
            stored = _storage_options(statement)
            if stored:
                _report(
                    ctx,
                    "info",
                    "SESSION-SETTING",
                    statement,
                    f"table options {stored} skipped: they say how the table is stored, not "
                    "what it holds",
                )
            if temporary and _rows_deleted_on_commit(statement, ctx):
                mode = ctx.assume("teradata_session_mode")
                _report(
                    ctx,
                    "error",
                    "TEMP-TABLE",
                    statement,
                    f"temporary table {table.sql(ctx.dialect) if table else ''} is ON COMMIT "
                    "DELETE ROWS (the default without ON COMMIT PRESERVE ROWS): Teradata empties "
                    "it when the transaction that fills it ends, "
                    + (
                        "in Teradata session mode the end of that very statement, so the "
                        "statements after it read no rows"
                        if mode == "TERA"
                        else "at the next COMMIT in ANSI session mode"
                    )
                    + "; declare it ON COMMIT PRESERVE ROWS",
                )
                if table is not None:
                    refused.add(_key(table))
                continue
            is_helper = table is not None and (temporary or last_drop.get(_key(table), -1) > index)
            if query is None and is_helper and statement.kind == "TABLE" and table is not None:
                columns = _declared_columns(statement, ctx)
                if columns is not None:
                    if _key(table) in helpers or _key(table) in declared:
                        _report(
                            ctx,
                            "error",
                            "TEMP-TABLE",
                            statement,
                            f"temporary table {_key(table)} is created twice",
                        )
                    declared[_key(table)] = columns
                    dropped.discard(_key(table))
                    set_tables.pop(_key(table), None)
                    column_rules[_key(table)] = _column_rules(statement)
                    if semantics(ctx.dialect).SET_TABLES:
                        creates[_key(table)] = statement
                continue
            if (
                query is None
                and table is not None
                and statement.kind == "TABLE"
                and isinstance(statement.this, exp.Schema)
                and statement.this.expressions
            ):
                keep(table, statement)
                continue
            if query is None or table is None:
                _report(
                    ctx,
                    "error",
                    "PROC-STATEMENT",
                    statement,
                    f"CREATE {statement.kind} without AS SELECT",
                )
                continue
            if _without_data(statement):
                _report(
                    ctx,
                    "error",
                    "PROC-STATEMENT",
                    statement,
                    "CREATE TABLE ... WITH NO DATA makes an empty table of the query's columns; "
                    "an empty table has no translation here",
                )
                continue
            if not readable(query, statement):
                continue
            if is_helper:
                if isinstance(statement.this, exp.Schema) and statement.this.expressions:
                    named = _named_columns(query, statement, ctx)
                    if named is None:
                        continue
                    query = named
                add_helper(_key(table), query, statement, uses)
            else:
                define(query, table, statement, uses)
        elif isinstance(statement, exp.Insert):
            query = _query_of(statement.expression)
            table = _target(statement)
            if table is not None and _key(table) in declared:
                defaults = {
                    n: r.default
                    for n, r in column_rules.get(_key(table), {}).items()
                    if r.default is not None
                }
                query = query or _values_query(statement, declared[_key(table)], defaults)
            if query is None or table is None:
                _report(ctx, "error", "PROC-STATEMENT", statement, "INSERT without a SELECT")
                continue
            if not readable(query, statement):
                continue
            key = _key(table)
            if key in declared:
                append(key, query, statement, uses)
                continue
            if key in helpers:
                _report(
                    ctx,
                    "error",
                    "TEMP-TABLE",
                    statement,
                    f"INSERT INTO {key} after it was created from a query: the rows would be "
                    "converted to its column types, which the script does not declare; "
                    f"create it with CREATE TABLE {key} (column type, ...) and INSERT each part",
                )
                continue
            define(query, table, statement, uses)
        elif isinstance(statement, JoinIndex):
            # No query can name a join index, and the optimizer reads one only where it holds
            # the same rows as its query over the tables: it changes no result.
            _report(
                ctx,
                "info",
                "TD-JOIN-INDEX",
                statement,
                f"join index {statement.this.sql(ctx.dialect)} dropped: it changes how "
                "Teradata reads the tables, never what a query returns",
            )
        elif written is not None and (_key(written) in helpers or _key(written) in declared):
            _report(
                ctx,
                "error",
                "TEMP-TABLE",
                statement,
                f"{_STATEMENT_NAMES.get(type(statement), statement.key.upper())} of "
                f"{'' if _key(written) in kept else 'temporary '}table {_key(written)}: rows changed in "
                "place have no translation; compute the final rows in the query that fills it",
            )
        else:
            construct = (
                statement.key.upper()
                if not isinstance(statement, exp.Command)
                else statement.name.upper()
            )
            _report(
                ctx,
                "error",
                "PROC-STATEMENT",
                statement,
                f"procedural statement {construct} is not translated",
            )
    for key, (table, statement, _) in kept.items():
        if key not in declared:
            continue  # dropped again: a helper after all
        rows = exp.select("*").from_(exp.to_table(helpers.current[key]))
        rows.args["from_"].this.meta["helper"] = helpers.current[key]
        uses: tuple[tuple[str, int, int], ...] = ()
        for version in helpers.needed(rows):
            uses += helper_uses.get(version, ())
        target = table.name.lower()
        if target in targets:
            _report(ctx, "error", "SCRIPT-SHAPE", statement, f"table {target} is written twice")
            continue
        targets.add(target)
        definitions.append(
            Definition(
                helpers.with_ctes(rows),
                target,
                _parts(table),
                statement,
                uses,
                ctx.assumptions,
                tuple(ctx.stated.items()),
            )
        )
    client_commands(None)
    if not definitions and not any(d.severity == "error" for d in ctx.diagnostics):
        _report(
            ctx,
            "error",
            "SCRIPT-SHAPE",
            statements[-1] if statements else None,
            "the script defines no table",
        )
    return definitions


_STATEMENT_NAMES = {exp.TruncateTable: "TRUNCATE"}


def _identifier_flag(table: exp.Table, flag: str) -> bool:
    name = table.this
    return isinstance(name, exp.Identifier) and bool(name.args.get(flag))


def _temporary_name(table: exp.Table) -> bool:
    """T-SQL ``#t`` or ``##t`` (sqlglot keeps the name without the marks)."""
    return (
        _identifier_flag(table, "temporary")
        or _identifier_flag(table, "global_")
        or table.name.startswith("#")
    )


def _global_temporary(table: exp.Table) -> bool:
    return _identifier_flag(table, "global_") or table.name.startswith("##")


def _written_table(statement: exp.Expr) -> exp.Table | None:
    """The table ``statement`` writes: CREATE/INSERT/UPDATE/DELETE/MERGE/TRUNCATE's target or
    SELECT ... INTO's."""
    if isinstance(statement, exp.Select):
        into = statement.args.get("into")
        target = into.this if into is not None else None
    elif isinstance(statement, exp.TruncateTable):
        target = (statement.expressions or [None])[0]
    elif isinstance(statement, exp.Update | exp.Delete | exp.Merge | exp.Create | exp.Insert):
        target = statement.this
    else:
        return None
    if isinstance(target, exp.Schema):
        target = target.this
    return target if isinstance(target, exp.Table) else None


def _index_on(statement: exp.Expr) -> exp.Table | None:
    """The table ``CREATE [UNIQUE] [CLUSTERED] INDEX ... ON t (...)`` indexes."""
    if not (isinstance(statement, exp.Create) and "INDEX" in (statement.kind or "").upper()):
        return None
    index = statement.this
    table = index.args.get("table") if isinstance(index, exp.Index) else None
    return table if isinstance(table, exp.Table) else None


def _without_data(statement: exp.Create) -> bool:
    properties = statement.args.get("properties")
    return bool(properties) and any(
        isinstance(p, exp.WithDataProperty) and p.args.get("no") for p in properties.expressions
    )


# A column of these types takes text longer than its length differently on INSERT (an error,
# or a cut, by server setting) than the CAST a translation would write.
_LENGTH_TYPES = {
    exp.DType.CHAR,
    exp.DType.NCHAR,
    exp.DType.VARCHAR,
    exp.DType.NVARCHAR,
    exp.DType.BINARY,
    exp.DType.VARBINARY,
}


# DEFAULT values an omitted column takes that the translation writes out as they are: the
# rules translate them like any other expression.
_DEFAULT_VALUES = (exp.Literal, exp.Null, exp.CurrentDate, exp.CurrentTimestamp)


def _known_value(value: exp.Expr) -> exp.Expr:
    """The literal of ``-1``, ``(1)`` and ``DATE '2020-01-01'`` (a CAST of a string)."""
    if isinstance(value, exp.Neg | exp.Paren) or (
        isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal)
    ):
        return value.this
    return value


def _other_constraint(column: exp.ColumnDef) -> exp.Expr | None:
    """A constraint of ``column`` other than NOT NULL and a DEFAULT of _DEFAULT_VALUES."""
    for constraint in column.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
            continue
        if isinstance(kind, exp.CaseSpecificColumnConstraint):
            continue  # how the column compares (on its type), not a check of rows
        if isinstance(kind, exp.DefaultColumnConstraint) and isinstance(
            _known_value(kind.this), _DEFAULT_VALUES
        ):
            continue
        return constraint
    return None


@dataclass(frozen=True)
class _ColumnRule:
    """What INSERT does with a column beyond converting its value: NOT NULL fails on a
    NULL, a column the INSERT leaves out takes ``default`` (NULL without one)."""

    not_null: bool
    default: exp.Expr | None


def _column_rules(statement: exp.Create) -> dict[str, _ColumnRule]:
    """The NOT NULL and DEFAULT of each column of ``CREATE TABLE t (a INT NOT NULL, ...)``
    that has either."""
    rules: dict[str, _ColumnRule] = {}
    schema = statement.this
    for column in schema.expressions if isinstance(schema, exp.Schema) else []:
        if not isinstance(column, exp.ColumnDef):
            continue
        kinds = [c.args.get("kind") for c in column.args.get("constraints") or []]
        not_null = any(isinstance(k, exp.NotNullColumnConstraint) for k in kinds)
        defaults = [k.this for k in kinds if isinstance(k, exp.DefaultColumnConstraint)]
        if not_null or defaults:
            rules[column.name.lower()] = _ColumnRule(not_null, defaults[0] if defaults else None)
    return rules


def _never_null(value: exp.Expr) -> bool:
    """Whether ``value`` is known not to be NULL: a literal or the current date or time."""
    value = _known_value(value)
    return isinstance(value, _DEFAULT_VALUES) and not isinstance(value, exp.Null)


def _not_null_problem(
    statement: exp.Insert, query: exp.Query, rules: dict[str, _ColumnRule], named: list[str]
) -> str | None:
    """Why the INSERT may put a NULL into a NOT NULL column (where it fails), or None."""
    for name, column_rule in rules.items():
        if not column_rule.not_null:
            continue
        if name not in named:
            if column_rule.default is None or not _never_null(column_rule.default):
                return (
                    f"INSERT leaves out NOT NULL column {name}, whose default is NULL: the "
                    "INSERT fails"
                )
            continue
        position = named.index(name)
        values = statement.expression
        if isinstance(values, exp.Values):
            items = [
                row.expressions[position] if isinstance(row, exp.Tuple) else row
                for row in values.expressions
            ]
        elif isinstance(query, exp.Select) and len(query.selects) == len(named):
            items = [query.selects[position].unalias()]
        else:
            items = []
        items = [
            (column_rule.default or exp.null()) if _is_default(item) else item for item in items
        ]
        if any(isinstance(_known_value(item), exp.Null) for item in items):
            return f"INSERT puts NULL into NOT NULL column {name}: the INSERT fails"
        if not items or not all(_never_null(item) for item in items):
            return (
                f"column {name} is NOT NULL: INSERT fails on a NULL value, which the "
                "translation does not check (it does where the value is a literal)"
            )
    return None


def _column_types(
    statement: exp.Create, ctx: Context
) -> tuple[tuple[tuple[str, exp.DataType], ...] | None, str | None]:
    """The columns of ``CREATE TABLE t (a INT, ...)`` (None when one has no type) and why an
    INSERT into them is not what a CAST does (None when it is)."""
    schema = statement.this
    columns: list[tuple[str, exp.DataType]] = []
    problem = None
    for column in schema.expressions if isinstance(schema, exp.Schema) else []:
        kind = column.args.get("kind") if isinstance(column, exp.ColumnDef) else None
        if not isinstance(kind, exp.DataType):
            if isinstance(column, exp.ColumnDef | exp.Identifier | exp.Column):
                return None, "a declared table's columns need types"
            problem = problem or (
                f"table constraint {column.sql(ctx.dialect)} rejects rows on INSERT, which "
                "the translation does not check"
            )
            continue
        declared = _casespecific(column)
        if (
            declared is not None
        ):  # the attribute travels on the type (sql/rules/case_sensitivity.py)
            kind = kind.copy()
            kind.meta["casespecific"] = declared
        columns.append((column.name.lower(), kind))
        if problem is not None:
            continue
        other = _other_constraint(column)
        if other is not None:
            problem = (
                f"column {column.name} has the constraint {other.sql(ctx.dialect)}, which "
                "INSERT enforces and the translation does not (it writes out NOT NULL and a "
                "DEFAULT of a literal, CURRENT_DATE or CURRENT_TIMESTAMP only)"
            )
        elif kind.this in _LENGTH_TYPES and not _length_checked(kind, ctx):
            problem = (
                f"column {column.name} is {kind.sql(ctx.dialect)}: INSERT of longer text fails "
                "or is cut by server settings, which the translation does not model; declare "
                "it without a length limit"
                if kind.expressions
                else f"column {column.name} is {kind.sql(ctx.dialect)} without a length, whose "
                "length the dialect fixes; declare it without a length limit"
            )
    if not columns:
        return None, "CREATE TABLE without columns or AS SELECT"
    return tuple(columns), problem


def _length_checked(kind: exp.DataType, ctx: Context) -> bool:
    """INSERT into a column of type ``kind`` fails on longer text (its dialect's INSERT
    checks a VARCHAR(n)'s length): the translation guards it instead of refusing."""
    sizes = kind.expressions
    size = sizes[0].this if len(sizes) == 1 and isinstance(sizes[0], exp.DataTypeParam) else None
    return (
        semantics(ctx.dialect).INSERT_CHECKS_TEXT_LENGTH
        and kind.this == exp.DType.VARCHAR
        and isinstance(size, exp.Literal)
        and size.is_int
    )


def _inserted(value: exp.Expr, kind: exp.DataType) -> exp.Expr:
    """``value`` converted to its column's type as INSERT converts it: a CAST, marked where
    the column is VARCHAR(n) (the length INSERT checks)."""
    if not (kind.this == exp.DType.VARCHAR and kind.expressions):
        return exp.cast(value, kind.copy())
    # Always a CAST of its own (exp.cast keeps a CAST of the value to VARCHAR(m) as it is).
    converted = exp.Cast(this=value, to=kind.copy())
    converted.meta[INSERT_LENGTH_META] = True
    return converted


def _casespecific(column: exp.ColumnDef) -> bool | None:
    """Teradata's declared CASESPECIFIC (True) or NOT CASESPECIFIC (False) of ``column``."""
    found = None
    for constraint in column.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.CaseSpecificColumnConstraint):
            found = not kind.args.get("not_")
    return found


def _declared_columns(
    statement: exp.Create, ctx: Context
) -> tuple[tuple[str, exp.DataType], ...] | None:
    """The columns of ``CREATE TABLE #t (a INT, ...)``, or None (reported) when INSERT into
    them is not what a CAST does."""
    columns, problem = _column_types(statement, ctx)
    if columns is None or problem is not None:
        _report(ctx, "error", "TEMP-TABLE", statement, problem or "")
        return None
    return columns


def _insert_problem(statement: exp.Create) -> str | None:
    """Why an INSERT into the table ``statement`` declares does more than append its rows
    (a SET table's aside): it rejects some (unique keys), or None."""
    indexes = statement.args.get("indexes") or []
    if any(index.args.get("unique") for index in indexes):
        return (
            "a UNIQUE index of the table rejects rows with a key already there, which the "
            "translation does not check"
        )
    return None


# Types whose values DISTINCT tells apart exactly as Teradata's duplicate row check does. Not
# text (the check ignores trailing blanks, and case in a NOT CASESPECIFIC column) nor floats.
_DISTINCT_TYPES = {
    exp.DType.TINYINT,
    exp.DType.SMALLINT,
    exp.DType.INT,
    exp.DType.BIGINT,
    exp.DType.DECIMAL,
    exp.DType.DATE,
    exp.DType.TIMESTAMP,
}


def _teradata_set_table(statement: exp.Create, ctx: Context) -> bool:
    """Whether Teradata's ``CREATE [SET | MULTISET] TABLE`` makes a SET table: the keyword,
    else the session mode's default (TERA: SET, ANSI: MULTISET), an assumption reported."""
    properties = statement.args.get("properties")
    kinds = (
        [p for p in properties.expressions if isinstance(p, exp.SetProperty)] if properties else []
    )
    if kinds:
        return not kinds[0].args.get("multi")
    mode = ctx.assume("teradata_session_mode")
    table = _target(statement)
    name = table.sql(ctx.dialect) if table is not None else "the table"
    note = ctx.setting_note("teradata_session_mode")
    _report(
        ctx,
        "warning",
        "TD-SET-TABLE",
        statement,
        f"{name} is declared neither SET nor MULTISET: a "
        f"{'SET' if mode == 'TERA' else 'MULTISET'} table in {mode} session mode ({note})",
        settings=("teradata_session_mode",),
    )
    return mode == "TERA"


def _set_table_problem(
    name: str,
    statement: exp.Insert,
    columns: tuple[tuple[str, exp.DataType], ...],
    empty: bool,
    ctx: Context,
) -> str | None:
    """Why ``statement``'s rows, added to SET table ``name``, are not its distinct rows (with
    those it has), or None. INSERT ... VALUES fails on a row already there; INSERT ... SELECT
    drops one in TERA session mode and fails on it in ANSI mode."""
    values = statement.expression
    if isinstance(values, exp.Values):
        if empty and len(values.expressions) == 1:
            return None  # one row into an empty table: nothing to be a duplicate of
        return (
            f"INSERT ... VALUES into SET table {name} fails (error 2802) when the row is there "
            "already, which the translation does not check; declare the table MULTISET"
        )
    if ctx.assume("teradata_session_mode") != "TERA":
        return (
            f"INSERT ... SELECT into SET table {name} fails on a duplicate row in ANSI session "
            "mode (teradata_session_mode), which the translation does not check; declare the "
            "table MULTISET"
        )
    for column, kind in columns:
        if kind.this not in _DISTINCT_TYPES:
            return (
                f"SET table {name} drops a duplicate row by Teradata's comparison of column "
                f"{column} ({kind.sql(ctx.dialect)}), which ignores trailing blanks (and case "
                "where NOT CASESPECIFIC) unlike DISTINCT; declare the table MULTISET"
            )
    return None


def _is_default(item: exp.Expr) -> bool:
    """``DEFAULT`` in a row of ``INSERT ... VALUES``: the column's default value."""
    return isinstance(item, exp.Var) and item.name.upper() == "DEFAULT"


def _values_query(
    statement: exp.Insert,
    columns: tuple[tuple[str, exp.DataType], ...],
    defaults: dict[str, exp.Expr] | None = None,
) -> exp.Query | None:
    """``INSERT INTO t [(a, ...)] VALUES (...), ...`` as the query of its rows, each value
    CAST to its column's type already, so that the rows of the VALUES are of one type on every
    engine; None when the rows are not of the columns' number."""
    values = statement.expression
    target = statement.this
    named = (
        [c.name.lower() for c in target.expressions]
        if isinstance(target, exp.Schema) and target.expressions
        else [name for name, _ in columns]
    )
    types = dict(columns)
    if not isinstance(values, exp.Values) or any(n not in types for n in named):
        return None
    rows = []
    for row in values.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if len(items) != len(named):
            return None
        rows.append(
            exp.Tuple(
                expressions=[
                    _inserted(
                        (defaults or {}).get(name, exp.null()).copy()
                        if _is_default(item)
                        else item.copy(),
                        types[name],
                    )
                    for item, name in zip(items, named, strict=True)
                ]
            )
        )
    names = [f"value_{i}" for i in range(1, len(named) + 1)]
    table = exp.Values(
        expressions=rows,
        alias=exp.TableAlias(
            this=exp.to_identifier("inserted_values"),
            columns=[exp.to_identifier(n) for n in names],
        ),
    )
    return exp.select(*(exp.column(n, table="inserted_values") for n in names)).from_(table)


def _no_rows(columns: tuple[tuple[str, exp.DataType], ...]) -> exp.Query:
    """A query of no rows with ``columns``' names and types."""
    return (
        exp.select(*(exp.alias_(exp.cast(exp.null(), kind.copy()), name) for name, kind in columns))
        .from_(
            exp.Subquery(
                this=exp.Values(expressions=[exp.Tuple(expressions=[exp.Literal.number(0)])]),
                alias=exp.TableAlias(
                    this=exp.to_identifier("no_rows"), columns=[exp.to_identifier("x")]
                ),
            )
        )
        .where(exp.EQ(this=exp.Literal.number(1), expression=exp.Literal.number(0)))
    )


def _typed_rows(
    query: exp.Query,
    columns: tuple[tuple[str, exp.DataType], ...],
    statement: exp.Insert,
    ctx: Context,
    defaults: dict[str, exp.Expr] | None = None,
) -> exp.Query | None:
    """The rows ``INSERT INTO #t [(a, ...)] query`` adds to a table of ``columns``: each value
    converted to its column's type (CAST, as INSERT converts), NULL in the columns not named."""
    target = statement.this
    named = (
        [c.name.lower() for c in target.expressions]
        if isinstance(target, exp.Schema) and target.expressions
        else [name for name, _ in columns]
    )
    unknown = [n for n in named if n not in dict(columns)]
    first = query
    while isinstance(first, exp.SetOperation):
        first = first.this
    first = _query_of(first) if not isinstance(first, exp.Select) else first
    width = (
        len(first.selects)
        if isinstance(first, exp.Select) and not any(s.is_star for s in first.selects)
        else None
    )
    problem = None
    if unknown:
        problem = f"INSERT names column {unknown[0]}, which the temporary table does not have"
    elif width is None:
        problem = "INSERT ... SELECT * into a temporary table: list the columns"
    elif width != len(named):
        problem = f"INSERT gives {width} values for {len(named)} columns"
    if problem is not None:
        _report(ctx, "error", "TEMP-TABLE", statement, problem)
        return None
    inserted = [f"inserted_{i}" for i in range(1, len(named) + 1)]
    by_name = dict(zip(named, inserted, strict=True))
    alias = exp.TableAlias(
        this=exp.to_identifier("inserted"), columns=[exp.to_identifier(n) for n in inserted]
    )
    projections = [
        exp.alias_(
            _inserted(
                exp.column(by_name[name], table="inserted")
                if name in by_name
                else (defaults or {}).get(name, exp.null()).copy(),
                kind,
            ),
            name,
        )
        for name, kind in columns
    ]
    return exp.select(*projections).from_(exp.Subquery(this=query, alias=alias))


def _object_name(text: str) -> str:
    """The name OBJECT_ID(text) looks up, as ``_key`` compares names: 'tempdb..#t' is #t,
    '[dbo].[t]' is dbo.t."""
    if text.lower().startswith("tempdb.."):
        text = text[len("tempdb..") :]
    parts = [part.strip().strip('[]"').lower() for part in text.split(".")]
    return ".".join(parts).lstrip("#")


def _tested_object(condition: exp.Expr) -> str | None:
    """The object whose existence ``condition`` tests, and nothing else: OBJECT_ID(x) IS NOT
    NULL, or EXISTS (SELECT ... FROM sys.objects / sys.tables WHERE object_id = OBJECT_ID(x)
    [AND type ...])."""
    if isinstance(condition, exp.Not) and isinstance(condition.this, exp.Is):
        test = condition.this
        if isinstance(test.expression, exp.Null) and isinstance(test.this, exp.ObjectId):
            name = test.this.this
            return _object_name(name.name) if isinstance(name, exp.Literal | exp.National) else None
        return None
    if not isinstance(condition, exp.Exists) or not isinstance(condition.this, exp.Select):
        return None
    select = condition.this
    source = select.args.get("from_")
    table = source.this if source is not None else None
    if not (
        isinstance(table, exp.Table)
        and table.db.lower() == "sys"
        and table.name.lower() in ("objects", "tables")
        and not select.args.get("joins")
    ):
        return None
    where = select.args.get("where")
    tests = (
        list(where.this.flatten())
        if where is not None and isinstance(where.this, exp.And)
        else [where.this]
        if where is not None
        else []
    )
    found = None
    for test in tests:
        if (
            isinstance(test, exp.EQ)
            and isinstance(test.this, exp.Column)
            and test.this.name.lower() == "object_id"
            and isinstance(test.expression, exp.ObjectId)
            and isinstance(test.expression.this, exp.Literal | exp.National)
        ):
            found = _object_name(test.expression.this.name)
        elif not (
            isinstance(test, exp.EQ | exp.In)
            and isinstance(test.this, exp.Column)
            and test.this.name.lower() == "type"
        ):
            return None
    return found


def _drop_if_exists(statement: exp.IfBlock) -> exp.Drop | None:
    """T-SQL's ``IF OBJECT_ID('tempdb..#t') IS NOT NULL DROP TABLE #t`` (or ``IF EXISTS
    (SELECT * FROM sys.objects WHERE object_id = OBJECT_ID(N'[dbo].[t]') ...) DROP TABLE
    [dbo].[t]``) as ``DROP TABLE IF EXISTS``: the condition tests that the dropped table
    exists and nothing else."""
    if statement.args.get("false"):
        return None
    block = statement.args.get("true")
    body = block.expressions if isinstance(block, exp.Block) else [block]
    if len(body) != 1 or not isinstance(body[0], exp.Drop):
        return None
    drop = body[0]
    tables = _dropped(drop)
    if len(tables) != 1 or _tested_object(statement.this) != _key(tables[0]):
        return None
    drop.set("exists", True)
    return drop


def _storage_options(statement: exp.Create) -> str:
    """The storage options of ``CREATE TABLE ... WITH (DISTRIBUTION = ..., ...)`` as written,
    one line ('' without any)."""
    properties = statement.args.get("properties")
    return ", ".join(
        " ".join(p.name.split())
        for p in (properties.expressions if properties else [])
        if isinstance(p, StorageOption) and not p.args.get("place")
    )
