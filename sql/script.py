"""A legacy file is a script; split it into the tables it defines.

Every statement is one of:
- a query, ``CREATE [OR REPLACE] TABLE/VIEW ... AS query`` or ``INSERT INTO ... query``:
  it defines a table (a bare query is named after the file);
- a helper the script builds and throws away: a T-SQL ``#temp`` or ``SELECT ... INTO #t``,
  a Teradata ``VOLATILE`` or any ``TEMPORARY`` table, or a table or view that the script
  itself drops again later. Helpers become CTEs of the definitions that read them;
- ``DROP`` of a helper, or of a table the script (re)defines: no-op in a lake where a
  published table is replaced atomically;
- anything else (variables, control flow, UPDATE/DELETE/MERGE, ...) is refused, and every
  such statement is listed.
A definition that reads a table defined earlier in the same script reads it from the lake,
so the tables of one file become assets with dependencies between them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sql.diagnostics import Severity
from sql.rules import Context


@dataclass(frozen=True)
class Definition:
    query: exp.Query
    target: str | None  # lower-case table name, None for a bare query
    name_parts: tuple[exp.Identifier, ...]  # the table name as written (for later readers)
    statement: exp.Expr  # where diagnostics about the whole definition point


def _report(
    ctx: Context, severity: Severity, rule: str, node: exp.Expr | None, message: str
) -> None:
    ctx.report(severity, rule, node, message, statement=True)


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
        or (table is not None and table.name.startswith("#"))
    )


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
    """For each name a CREATE or INSERT writes, the index of the last statement that does."""
    last: dict[str, int] = {}
    for index, statement in enumerate(statements):
        if isinstance(statement, exp.Create | exp.Insert):
            table = _target(statement)
            if table is not None:
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


def _with_helpers(
    query: exp.Query, helpers: dict[str, exp.Query], built: dict[str, int]
) -> exp.Query:
    """``query`` with the helpers it reads, directly or through other helpers, as CTEs in
    the order the script built them (``built``: each helper's place in that order)."""
    if not helpers:
        return query  # most scripts have none: no walk over the query to find its tables
    # Only the names the query reads are looked up: a long script builds many helpers, and
    # going over all of them for every statement made splitting it quadratic.
    needed: set[str] = set()
    pending = {name for name in _reads(query) if name in helpers}
    while pending:
        name = pending.pop()
        needed.add(name)
        pending |= {n for n in _reads(helpers[name]) if n in helpers} - needed
    if not needed:
        return query
    own = {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
    ctes = [
        exp.CTE(
            this=helpers[name].copy(),
            alias=exp.TableAlias(this=exp.to_identifier(_cte_name(name))),
        )
        for name in sorted(needed, key=built.__getitem__)
        if _cte_name(name) not in own
    ]
    if not ctes:
        return query
    query = query.copy()
    for table in query.find_all(exp.Table):
        key = _key(table)
        if key in needed and "." in key:
            # `stage.tmp` read as the CTE `stage__tmp`, still known by its own name.
            if not table.args.get("alias"):
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("catalog", None)
            table.set("db", None)
            table.set("this", exp.to_identifier(_cte_name(key)))
    existing = query.args.get("with_")
    if existing is not None:
        ctes.extend(existing.expressions)
    query.set("with_", exp.With(expressions=ctes))
    return query


def split_script(statements: list[exp.Expr], ctx: Context) -> list[Definition]:
    """The tables the script defines, in order; problems are reported to ``ctx`` as errors."""
    helpers: dict[str, exp.Query] = {}
    built: dict[str, int] = {}  # each helper's place in the order the script built them
    defined: dict[str, exp.Expr] = {}
    targets: set[str | None] = set()  # the definitions' table names
    definitions: list[Definition] = []
    # Where each name is last dropped and last written, found in one pass: looking ahead
    # from every statement made splitting a long script quadratic.
    last_drop = _last_drops(statements)
    last_write = _last_creations(statements)

    def add_helper(name: str, query: exp.Query, statement: exp.Expr) -> None:
        if name in helpers or name in defined:
            _report(
                ctx, "error", "TEMP-TABLE", statement, f"temporary table {name} is written twice"
            )
        helpers[name] = _with_helpers(query, helpers, built)
        built.setdefault(name, len(built))
        ctx.applied.add("TEMP-TABLE")

    def define(query: exp.Query, table: exp.Table | None, statement: exp.Expr) -> None:
        key = _key(table) if table is not None else None
        target = table.name.lstrip("#").lower() if table is not None else None
        if key is not None and (key in defined or key in helpers or target in targets):
            _report(ctx, "error", "SCRIPT-SHAPE", statement, f"table {target} is written twice")
            return
        named = _named_columns(query, statement, ctx)
        if named is None:
            return
        if key is not None:
            defined[key] = statement
        parts = _parts(table) if table is not None else ()
        definitions.append(
            Definition(_with_helpers(named, helpers, built), target, parts, statement)
        )
        targets.add(target)

    # Where each DROP was first written (equal statements compare equal): a repeated
    # `DROP TABLE IF EXISTS t` is judged from there, like the first.
    first_drops: dict[exp.Expr, int] = {}
    for index, statement in enumerate(statements):
        drops = _dropped(statement)
        if drops:
            first = first_drops.setdefault(statement, index)
            unknown = [
                t
                for t in drops
                if _key(t) not in helpers
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
                    f"DROP of {names}, which this script does not create",
                )
            continue
        temporary = _is_temporary(statement)
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
            query = statement.copy()
            query.set("into", None)
            add_helper(_key(into.this), query, statement)
        elif isinstance(statement, exp.Query):
            define(statement, None, statement)
        elif isinstance(statement, exp.Create) and statement.kind in ("TABLE", "VIEW"):
            query = _query_of(statement.expression)
            table = _target(statement)
            if query is None or table is None:
                _report(
                    ctx,
                    "error",
                    "PROC-STATEMENT",
                    statement,
                    f"CREATE {statement.kind} without AS SELECT",
                )
                continue
            if temporary or last_drop.get(_key(table), -1) > index:
                if isinstance(statement.this, exp.Schema) and statement.this.expressions:
                    named = _named_columns(query, statement, ctx)
                    if named is None:
                        continue
                    query = named
                add_helper(_key(table), query, statement)
            else:
                define(query, table, statement)
        elif isinstance(statement, exp.Insert):
            query = _query_of(statement.expression)
            table = _target(statement)
            if query is None or table is None:
                _report(ctx, "error", "PROC-STATEMENT", statement, "INSERT without a SELECT")
                continue
            if _key(table) in helpers:
                _report(ctx, "error", "TEMP-TABLE", statement, "a temporary table is written twice")
                continue
            define(query, table, statement)
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
    if not definitions and not any(d.severity == "error" for d in ctx.diagnostics):
        _report(
            ctx,
            "error",
            "SCRIPT-SHAPE",
            statements[-1] if statements else None,
            "the script defines no table",
        )
    return definitions
