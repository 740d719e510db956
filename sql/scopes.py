"""One scope traversal per statement, for every step that reads scopes.

sqlglot builds a statement's scopes (``traverse_scope``: which tables and derived tables each
SELECT reads) wherever it needs them: to validate the qualified columns, to annotate types,
and again for each partial re-annotation; the portable-type rule needs them too. Each build
walks the tree once per scope. Built here once after qualification, they serve every step
until a rule changes what they describe.

What a scope describes is the tree's queries, table functions and tables, and how they nest.
The rules rewrite expressions; when one writes or copies a query, a table function or a table
(``SCOPE_NODES``), ``Context.scopes`` is dropped (``sql/rules/__init__.apply_rules``); when
one removes them, their scope's node is no longer in the tree. ``current`` returns the scopes
only when neither happened, else None, and the caller builds them again.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp
from sqlglot.errors import OptimizeError
from sqlglot.optimizer.annotate_types import TypeAnnotator
from sqlglot.optimizer.scope import Scope, traverse_scope

# What a scope is built from (nodes of these types written or copied by a rule invalidate
# the scopes of the tree they are written into).
SCOPE_NODES = (exp.Query, exp.UDTF, exp.Table, exp.Subquery, exp.CTE, exp.With, exp.Pivot)


def build(root: exp.Expr) -> list[Scope]:
    return traverse_scope(root)


def attached(node: exp.Expr, root: exp.Expr) -> bool:
    # ``root`` may have a parent of its own (the CREATE ... AS that held the query).
    while node is not root and node.parent is not None:
        node = node.parent
    return node is root


def current(scopes: Sequence[Scope] | None, root: exp.Expr) -> Sequence[Scope] | None:
    """``scopes`` if they still describe ``root``: built for it, and every query and table
    they name still in it (no rule wrote one since: see the module docstring)."""
    if not scopes or scopes[-1].expression is not root:
        return None
    for scope in scopes:
        if not attached(scope.expression, root):
            return None
        for source in scope.sources.values():
            if isinstance(source, exp.Table) and not attached(source, root):
                return None
    return scopes


class UnresolvedColumn(OptimizeError):
    """A column qualification left unresolved or ambiguous, with the column it is about: the
    caller locates it (sqlglot's own message quotes the column's last character as "Line: L,
    Col: C", a second location that disagrees with the diagnostic's, so this one quotes none)."""

    def __init__(self, message: str, column: exp.Column) -> None:
        super().__init__(message)
        self.column = column


def validate_columns(scopes: Sequence[Scope]) -> None:
    """Raise ``UnresolvedColumn`` on a column qualification left unresolved or ambiguous: what
    sqlglot's ``validate_qualify_columns`` checks (same order, same messages less the
    position), over scopes already built."""
    unqualified: list[exp.Column] = []
    for scope in scopes:
        if not isinstance(scope.expression, exp.Select):
            continue
        if scope.external_columns and not scope.is_correlated_subquery and not scope.pivots:
            column = scope.external_columns[0]
            for_table = f" for table: '{column.table}'" if column.table else ""
            raise UnresolvedColumn(
                f"Column '{column.name}' could not be resolved{for_table}."
                + ("" if column.table else _unnest_field_hint(scope, column)),
                column,
            )
        unqualified.extend(scope.unqualified_columns)
    if unqualified:
        column = unqualified[0]
        raise UnresolvedColumn(f"Ambiguous column '{column.name}'", column)


def _unnest_field_hint(scope: Scope, column: exp.Column) -> str:
    """What a bare name no source has may be, beside an UNNEST with a name: BigQuery reads a
    field of its STRUCT elements by the field's bare name too, which qualification does not
    resolve where the elements' type is not known (a STRUCT built in the query)."""
    values = []
    for source in scope.sources.values():
        unnest = source.expression if isinstance(source, Scope) else None
        alias = unnest.args.get("alias") if isinstance(unnest, exp.Unnest) else None
        if not isinstance(alias, exp.TableAlias) or column.find_ancestor(exp.Unnest) is unnest:
            continue
        kind = unnest.type
        if kind is not None and not kind.is_type(exp.DType.UNKNOWN):
            continue  # its fields are known, and the name is not one of them
        # BigQuery's `UNNEST(a) AS x` names the values: qualification makes x the column
        # of a range of its own naming (`_2(x)`).
        value = alias.columns[0].name if alias.columns else alias.name
        values.append(f"{value}.{column.name}")
    if not values:
        return ""
    return (
        " If it is a field of the STRUCT elements of an UNNEST (BigQuery reads such a field by "
        f"its bare name), name it through the UNNEST's alias ({', '.join(values)}): the "
        "elements' type must be known to read it."
    )


def annotate(annotator: TypeAnnotator, root: exp.Expr, scopes: Sequence[Scope]) -> exp.Expr:
    """``annotator.annotate(root)`` over scopes already built for ``root``."""
    for scope in scopes:
        annotator.annotate_scope(scope)
    return annotator.annotate(root, annotate_scope=False)
