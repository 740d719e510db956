"""BigQuery ``CREATE TEMP FUNCTION f(x TYPE, ...) [RETURNS T] AS (expression)``: a SQL UDF the
script defines for its own queries, inlined at each call.

A call ``f(a, b)`` becomes the body with each parameter replaced by its argument, converted to
the parameter's declared type as BigQuery coerces it (``CAST(a AS TYPE)``; an ``ANY TYPE``
parameter takes the argument as it is), and the whole converted to the ``RETURNS`` type. The
result is then translated like any expression. Inlining is exact where substitution is:

- an argument used several times by the body is evaluated several times, which gives the
  same value only when it is deterministic (no RAND(), CURRENT_TIMESTAMP(), ...);
- an argument placed where the body's own names (a range variable of a subquery, an alias,
  the fields of an UNNEST) are visible could be read as one of them: such an argument may hold
  no bare column name and no name the body defines;
- a body reads nothing but its parameters outside its own subqueries, and a parameter is read
  inside a subquery only where no range variable of the body could hold a column of its name.

Everything else is refused as SCRIPT-UDF at the call, naming the function: a ``LANGUAGE js``
function, a call with the wrong number of arguments, a body that calls a function defined
after it (or itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sqlglot
from sqlglot import exp

from sql.rules import Context
from sql.rules.build import VOLATILE
from sql.source_dialects import semantics
from sql.tree import preorder


@dataclass(frozen=True)
class Function:
    name: str
    parameters: tuple[tuple[str, exp.DataType | None], ...]  # (lower-case name, type or ANY)
    body: exp.Expr
    returns: exp.DataType | None


@dataclass(frozen=True)
class Refused:
    name: str
    reason: str


@dataclass
class TempFunctions:
    """The temporary functions of one script, in the order it defines them."""

    ctx: Context
    functions: dict[str, Function | Refused] = field(default_factory=dict)
    # Names each function's body calls that were not (yet) defined: a later definition of one
    # of them makes the caller refused (BigQuery resolves a body when it is created).
    pending_calls: dict[str, set[str]] = field(default_factory=dict)

    def define(self, statement: exp.Expr) -> bool:
        """Record ``statement`` if it is a CREATE TEMP FUNCTION (True: nothing else to do)."""
        if not (
            semantics(self.ctx.dialect).TEMP_FUNCTIONS
            and isinstance(statement, exp.Create)
            and (statement.kind or "").upper() == "FUNCTION"
            and isinstance(statement.this, exp.UserDefinedFunction)
        ):
            return False
        properties = statement.args.get("properties")
        kinds = {type(p): p for p in properties.expressions} if properties else {}
        if exp.TemporaryProperty not in kinds:
            return False  # a persistent function: a change to the warehouse, refused as such
        udf = statement.this
        target = udf.this
        name = (target.name if isinstance(target, exp.Table) else udf.name).lower()
        for caller, calls in self.pending_calls.items():
            if name in calls and not isinstance(self.functions.get(caller), Refused):
                self.functions[caller] = Refused(
                    caller,
                    f"its body calls {name}, which the script defines after it"
                    if name != caller
                    else "it calls itself",
                )
        language = kinds.get(exp.LanguageProperty)
        if language is not None and language.name.upper() != "SQL":
            self.functions[name] = Refused(
                name, f"it is written in {language.name}, which has no SQL translation"
            )
            return True
        if name.upper() in _parser_functions():
            self.functions[name] = Refused(name, "it has the name of a built-in function")
            return True
        parameters: list[tuple[str, exp.DataType | None]] = []
        for column in udf.expressions:
            kind = column.args.get("kind") if isinstance(column, exp.ColumnDef) else None
            if not isinstance(kind, exp.DataType):
                self.functions[name] = Refused(name, "a parameter has no type")
                return True
            # sqlglot reads BigQuery's ANY TYPE as VARIANT, a type BigQuery does not have.
            declared = None if kind.this == exp.DType.VARIANT else kind.copy()
            parameters.append((column.name.lower(), declared))
        body = statement.expression
        returns = kinds.get(exp.ReturnsProperty)
        returned = returns.this if returns is not None else None
        if not isinstance(body, exp.Paren | exp.Subquery):
            self.functions[name] = Refused(name, "its body is not a SQL expression")
            return True
        body = body.copy()
        # Calls to functions defined before: inlined now, as BigQuery resolved them then.
        self.inline(body, report=False)
        calls = {
            n.name.lower()
            for n in preorder(body)
            if isinstance(n, exp.Anonymous) and not _qualified_call(n)
        }
        if name in calls:
            self.functions[name] = Refused(name, "it calls itself")
            return True
        untranslated = sorted(calls & self.functions.keys())
        if untranslated:
            self.functions[name] = Refused(
                name, f"its body calls {untranslated[0]}, which is not translated"
            )
            return True
        self.pending_calls[name] = calls
        problem = _body_problem(body, {p for p, _ in parameters})
        if problem is not None:
            self.functions[name] = Refused(name, problem)
            return True
        self.functions[name] = Function(
            name, tuple(parameters), body, returned if isinstance(returned, exp.DataType) else None
        )
        return True

    def inline(self, tree: exp.Expr, *, report: bool = True) -> None:
        """Replace every call of a temporary function in ``tree`` by its body; refused calls
        are reported (``report``) or left as they are."""
        if not self.functions:
            return
        # Innermost calls first: an argument that is itself a call is inlined before it moves.
        calls = [
            n
            for n in reversed(preorder(tree))
            if isinstance(n, exp.Anonymous)
            and n.name.lower() in self.functions
            and not _qualified_call(n)
        ]
        for call in calls:
            function = self.functions[call.name.lower()]
            if isinstance(function, Refused):
                if report:
                    self._refuse(
                        call, f"function {function.name} is not translated: {function.reason}"
                    )
                continue
            inlined = self._inlined(call, function)
            if isinstance(inlined, str):
                if report:
                    self._refuse(
                        call, f"call of function {function.name} is not inlined: {inlined}"
                    )
                continue
            call.replace(inlined)
            self.ctx.applied.add("SCRIPT-UDF")

    def _inlined(self, call: exp.Anonymous, function: Function) -> exp.Expr | str:
        arguments = call.expressions
        if len(arguments) != len(function.parameters):
            return (
                f"it takes {len(function.parameters)} arguments, the call passes {len(arguments)}"
            )
        if any(isinstance(a, exp.Kwarg | exp.PropertyEQ) for a in arguments):
            return "named arguments"
        holder = exp.Paren(this=function.body.copy())
        cte_names = {c.alias_or_name.lower() for c in holder.find_all(exp.CTE)}
        by_name = {}
        for (name, declared), argument in zip(function.parameters, arguments, strict=True):
            by_name[name] = (_coerced(argument, declared), argument)
        occurrences: dict[str, list[exp.Column]] = {}
        for column in [n for n in preorder(holder) if isinstance(n, exp.Column)]:
            parts = column.parts
            first = parts[0].name.lower() if parts else ""
            if first in by_name:
                occurrences.setdefault(first, []).append(column)
        for name, (coerced, argument) in by_name.items():
            uses = occurrences.get(name, [])
            if len(uses) > 1:
                volatile = next((n for n in preorder(argument) if isinstance(n, VOLATILE)), None)
                if volatile is not None:
                    return (
                        f"argument {name} calls {volatile.sql('bigquery')}, and the body uses it "
                        f"{len(uses)} times: each would give a different value"
                    )
            for use in uses:
                captured = _captured(argument, use, holder, cte_names)
                if captured is not None:
                    return f"argument {name} {captured}"
            for use in uses:
                replacement = coerced.copy()
                if not isinstance(replacement, exp.Column | exp.Cast | exp.Literal | exp.Func):
                    replacement = exp.Paren(this=replacement)
                fields = use.parts[1:]
                if fields:
                    replacement = exp.Dot.build([replacement, *(f.copy() for f in fields)])
                if use is holder.this:
                    holder.set("this", replacement)
                else:
                    use.replace(replacement)
        result = holder.this
        if function.returns is not None:
            result = _coerced(result, function.returns)
        return exp.Paren(this=result)

    def _refuse(self, node: exp.Expr, message: str) -> None:
        self.ctx.report("error", "SCRIPT-UDF", node, message)
        # The script is refused as a whole now; a NULL in the call's place keeps later
        # stages from reporting it again as an unknown function.
        node.replace(exp.null())


def _coerced(value: exp.Expr, declared: exp.DataType | None) -> exp.Expr:
    """``value`` as BigQuery passes it to a parameter (or returns it) of type ``declared``.

    BigQuery coerces only to a supertype (INT64 to NUMERIC or FLOAT64, a literal to the type
    it spells): a CAST gives the same value. An ARRAY or STRUCT coerces only a literal (an
    array or struct constructor); anything else of such a type already is of it, and a CAST
    would ask the rules for a conversion between nested types that never happens."""
    if declared is None:
        return value.copy()
    if declared.is_type(*exp.DataType.NESTED_TYPES) and not isinstance(
        value, exp.Array | exp.Struct | exp.Null | exp.Literal
    ):
        return value.copy()
    return exp.cast(value.copy(), declared.copy())


def _qualified_call(call: exp.Anonymous) -> bool:
    """``project.dataset.f(...)`` or a quoted `project.dataset.f`: a persistent function."""
    parent = call.parent
    if isinstance(parent, exp.Dot) and parent.expression is call:
        return True
    name = call.this
    return isinstance(name, exp.Identifier) and "." in name.name


def _sources(select: exp.Select) -> list[exp.Expr]:
    from_ = select.args.get("from_")
    found = [from_.this] if from_ is not None else []
    found.extend(j.this for j in select.args.get("joins") or [])
    return found


def _visible(node: exp.Expr, root: exp.Expr) -> tuple[set[str], bool]:
    """The names the body defines that are visible where ``node`` is, and whether a range
    variable whose columns this translation cannot list (a table, an UNNEST, a subquery)
    is visible there."""
    names: set[str] = set()
    opaque = False
    child, parent = node, node.parent
    while parent is not None and child is not root:
        if isinstance(parent, exp.Select):
            # The first FROM item and the WITH clause's queries do not see the select's
            # range variables; everything else in it does.
            own_scope = child is not parent.args.get("from_") and child is not parent.args.get(
                "with_"
            )
            if own_scope:
                for source in _sources(parent):
                    opaque = True
                    alias = source.alias_or_name if hasattr(source, "alias_or_name") else ""
                    if alias:
                        names.add(alias.lower())
                    table_alias = source.args.get("alias")
                    if isinstance(table_alias, exp.TableAlias):
                        names.update(c.name.lower() for c in table_alias.columns)
                    offset = source.args.get("offset") if isinstance(source, exp.Unnest) else None
                    if isinstance(offset, exp.Expr):
                        names.add(offset.name.lower())
                names.update(
                    p.alias.lower() for p in parent.expressions if isinstance(p, exp.Alias)
                )
        child, parent = parent, parent.parent
    return names, opaque


def _captured(argument: exp.Expr, use: exp.Column, root: exp.Expr, ctes: set[str]) -> str | None:
    """Why ``argument`` placed at ``use`` could read a name of the body, or None."""
    names, opaque = _visible(use, root)
    in_query = any(isinstance(a, exp.Query) for a in _ancestors(use, root))
    for node in preorder(argument):
        if in_query and isinstance(node, exp.AggFunc | exp.Window):
            # An aggregate of the caller's rows inside the body's subquery would be an
            # outer-reference aggregate, which the engines do not all evaluate.
            return "is an aggregate or window function that the body uses inside a subquery"
        if isinstance(node, exp.Column):
            parts = node.parts
            first = parts[0].name.lower() if parts else ""
            if len(parts) == 1 and opaque:
                return (
                    f"reads {node.sql('bigquery')} where a range variable of the body could hold "
                    "a column of that name; qualify it with its table's name"
                )
            if first in names:
                return f"reads {node.sql('bigquery')}, a name the body also defines"
        elif isinstance(node, exp.Table) and node.name.lower() in ctes and not node.db:
            return f"reads {node.name}, a name the body also gives a CTE"
    return None


def _ancestors(node: exp.Expr, root: exp.Expr) -> list[exp.Expr]:
    found = []
    parent = node.parent
    while parent is not None and parent is not root:
        found.append(parent)
        parent = parent.parent
    return found


def _body_problem(body: exp.Expr, parameters: set[str]) -> str | None:
    """Why ``body`` could not be inlined whatever the arguments, or None."""
    for column in (n for n in preorder(body) if isinstance(n, exp.Column)):
        parts = column.parts
        first = parts[0].name.lower() if parts else ""
        names, opaque = _visible(column, body)
        if first in parameters:
            if opaque or first in names:
                return (
                    f"it reads {first} where a range variable of its own could hold a column "
                    "of that name"
                )
        elif not opaque and first not in names:
            return f"it reads {column.sql('bigquery')}, which is not one of its parameters"
    return None


@lru_cache(maxsize=1)
def _parser_functions() -> frozenset[str]:
    return frozenset(sqlglot.Dialect.get_or_raise("bigquery").parser_class.FUNCTIONS)
