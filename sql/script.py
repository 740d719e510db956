"""A legacy file is a script that defines one table; fold it into one query.

Accepted shapes: a bare query, ``CREATE [OR REPLACE] TABLE/VIEW ... AS query`` or
``INSERT INTO ... query``, optionally preceded by T-SQL ``#temp`` / Teradata ``VOLATILE``
tables that are written once: those become CTEs of the final query.
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


def _temp_name(create: exp.Create) -> str | None:
    properties = create.args.get("properties")
    kinds = {type(p) for p in properties.expressions} if properties else set()
    table = create.this.this if isinstance(create.this, exp.Schema) else create.this
    if exp.VolatileProperty in kinds or exp.TemporaryProperty in kinds:
        return table.name.lower()
    if table.name.startswith("#"):
        return table.name.lstrip("#").lower()
    return None


def _report(
    ctx: Context, severity: Severity, rule: str, node: exp.Expr | None, message: str
) -> None:
    ctx.report(severity, rule, node, message, statement=True)


def _drops_temp(statement: exp.Expr, temps: dict[str, exp.Query]) -> bool:
    if not isinstance(statement, exp.Drop):
        return False
    tables = statement.args.get("tables") or [statement.this]
    return all(t is not None and t.name.lstrip("#").lower() in temps for t in tables)


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


def fold_script(statements: list[exp.Expr], ctx: Context) -> Definition | None:
    """The one query the script defines; problems are reported to ``ctx`` as errors."""
    temps: dict[str, exp.Query] = {}
    final: Definition | None = None
    for statement in statements:
        if _drops_temp(statement, temps):
            continue  # dropping a folded temporary table is a no-op
        if final is not None:
            _report(
                ctx,
                "error",
                "SCRIPT-SHAPE",
                statement,
                "statement after the one that defines the table",
            )
            continue
        into = statement.args.get("into") if isinstance(statement, exp.Select) else None
        if into is not None:
            name = into.this.name.lstrip("#").lower()
            if not (into.args.get("temporary") or into.this.name.startswith("#")):
                _report(
                    ctx, "error", "PROC-STATEMENT", statement, "SELECT ... INTO a permanent table"
                )
                continue
            if name in temps:
                _report(
                    ctx,
                    "error",
                    "TEMP-TABLE",
                    statement,
                    f"temporary table {name} is written twice",
                )
            query = statement.copy()
            query.set("into", None)
            temps[name] = query
            ctx.applied.add("TEMP-TABLE")
        elif isinstance(statement, exp.Query):
            final = Definition(statement, None)
        elif isinstance(statement, exp.Create) and statement.kind in ("TABLE", "VIEW"):
            query = _query_of(statement.expression)
            if query is None:
                _report(
                    ctx,
                    "error",
                    "PROC-STATEMENT",
                    statement,
                    f"CREATE {statement.kind} without AS SELECT",
                )
                continue
            temp = _temp_name(statement) if statement.kind == "TABLE" else None
            if temp is not None:
                if temp in temps:
                    _report(
                        ctx,
                        "error",
                        "TEMP-TABLE",
                        statement,
                        f"temporary table {temp} is written twice",
                    )
                temps[temp] = query
                ctx.applied.add("TEMP-TABLE")
            else:
                table = (
                    statement.this.this
                    if isinstance(statement.this, exp.Schema)
                    else statement.this
                )
                named = _named_columns(query, statement, ctx)
                if named is not None:
                    final = Definition(named, table.name.lower())
        elif isinstance(statement, exp.Insert):
            query = _query_of(statement.expression)
            table = (
                statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
            )
            if query is None or not isinstance(table, exp.Table):
                _report(ctx, "error", "PROC-STATEMENT", statement, "INSERT without a SELECT")
                continue
            if table.name.lstrip("#").lower() in temps:
                _report(ctx, "error", "TEMP-TABLE", statement, "a temporary table is written twice")
                continue
            named = _named_columns(query, statement, ctx)
            if named is not None:
                final = Definition(named, table.name.lower())
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
    if final is None:
        if not any(d.severity == "error" for d in ctx.diagnostics):
            _report(
                ctx,
                "error",
                "SCRIPT-SHAPE",
                statements[-1] if statements else None,
                "the script defines no table",
            )
        return None
    if not temps:
        return final
    query = final.query
    existing = query.args.get("with_")
    ctes = [
        exp.CTE(this=q, alias=exp.TableAlias(this=exp.to_identifier(n))) for n, q in temps.items()
    ]
    if existing is not None:
        ctes.extend(existing.expressions)
    query.set("with_", exp.With(expressions=ctes))
    return Definition(query, final.target)
