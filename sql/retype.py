"""Annotate types again where the rules changed a tree, not over the whole tree.

The typed rules run after ``annotate_types``, and the later phases read the types of what the
earlier ones wrote. Annotating the whole tree again before each phase was the translator's
costliest step; what a rewrite can make stale is bounded:

- every node of a replacement (or of a node a rule changed in place), and its ancestors;
- every column that reads an output column made stale by that (by the derived table's or
  CTE's name and the column's: a superset of the columns that truly read it), and in turn
  their ancestors;
- every node of a set operation with a stale node in it (sqlglot carries a nested set
  operation's column types from its branches to its parent during one annotation, not on
  the nodes);
- every NULL under a stale node (typed NULL only while an annotation runs, which the
  coercions around it read).

A set operation that is not stale keeps its branches' types, but its own column types live
only in the annotator while it runs: they are computed again from its branches' projections
before a stale column that may read it is typed.

A subtree a rule copied unchanged from the parsed source keeps the types it was copied with
(``meta["changed"]`` marks what a rule replaced or changed in place, and copies carry it).

sqlglot's annotator is run over the whole tree with every other node already counted as
visited, so it infers exactly those nodes again from their children and scopes; every other
node keeps the type the last annotation gave it, which an annotation of the whole tree would
give it again. (``overwrite_types=False`` cannot do this: a CAST always has a known type, so
a stale expression under one would be skipped.) Before that walk, the stale nodes whose type
sqlglot infers from the node and its children alone (operators, CASEs, functions, aliases,
literals, CASTs: most of what rules write and their parents up to the first column or query)
are typed by the annotator's own function for each, children first, and counted as visited:
the walk, two stack entries and a child generator per node, then goes through the columns,
queries and paths only.
``tests/sql/test_retype.py`` checks that, node by node, against annotating the whole tree.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp
from sqlglot.optimizer.annotate_types import TypeAnnotator
from sqlglot.optimizer.scope import Scope
from sqlglot.schema import Schema, ensure_schema
from sqlglot.typing import EXPRESSION_METADATA

from sql.scopes import annotate as annotate_in_scopes
from sql.scopes import attached
from sql.scopes import build as build_scopes
from sql.tree import NO_CHILDREN, preorder


def _readers(
    projection: exp.Expr,
    references: dict[str, set[str]],
    branch_names: dict[int, set[str]],
) -> set[tuple[str, str]]:
    """``(table, column)`` for the columns that can read ``projection``'s value from outside
    its SELECT (``table`` empty: an unqualified reference, e.g. ORDER BY an alias).
    ``references``: for each table name, the names the query reads it under (its aliases);
    ``branch_names``: the projections' names under each set operation seen so far (a cache:
    a UNION of a few hundred branches, e.g. a wildcard table, is walked once, not once per
    projection and nesting level)."""
    names = {projection.alias_or_name}
    tables: set[str] = set()
    node: exp.Expr = projection.parent
    outermost: exp.SetOperation | None = None
    # Up through set operations (read under their first branch's names: every branch's are
    # taken; the outermost one's branches hold every inner one's) to the derived table or
    # CTE that names the result, if any.
    while isinstance(node.parent, exp.SetOperation | exp.Subquery | exp.CTE | exp.Paren):
        node = node.parent
        if isinstance(node, exp.SetOperation):
            outermost = node
            continue
        alias = node.args.get("alias")
        if not isinstance(alias, exp.TableAlias) or isinstance(node, exp.Paren):
            continue
        names.update(column.name for column in alias.columns)  # a column list renames them
        tables.add(alias.name)
        if isinstance(node, exp.CTE):  # read through each table reference to the CTE
            tables.update(references.get(alias.name, ()))
        break
    if outermost is not None:
        key = id(outermost)
        if key not in branch_names:
            branch_names[key] = {
                s.alias_or_name
                for branch in outermost.find_all(exp.Select)
                for s in branch.expressions
            }
        names.update(branch_names[key])
    return {(table, name) for name in names for table in tables | {""}}


def _written(node: exp.Expr) -> dict[int, exp.Expr]:
    """``node`` and what in it a rule wrote, by id: not the subtrees it copied unchanged from
    the parsed source (no node in them built or changed by a rule), which keep the types they
    were copied with. A node is written when it, or a node under it, is."""
    written = {id(node): node}
    # One walk, in any order (what is stale is a set), that looks at each node as it goes.
    stack = [node]
    pop, push = stack.pop, stack.append
    expr = exp.Expr
    leaves = NO_CHILDREN  # their arguments are never nodes
    while stack:
        inner = pop()
        kind = type(inner)
        if kind not in leaves:
            for value in inner.args.values():
                if type(value) is list:
                    for item in value:
                        if isinstance(item, expr):
                            push(item)
                elif isinstance(value, expr):
                    push(value)
        meta = inner._meta
        if meta and meta.get("source") and not meta.get("generated") and not meta.get("changed"):
            continue  # copied unchanged from the parsed source
        while id(inner) not in written:  # up to ``node``, which is in already
            written[id(inner)] = inner
            inner = inner.parent
    return written


# What may read a stale node from elsewhere in the tree, and whether each node type is one
# (filled on first sight: one lookup per node rather than a test of four types).
_LEAVES = (exp.Column, exp.TableColumn, exp.Null, exp.Table)
_LEAF_KINDS: dict[type, bool] = {}


def stale_nodes(
    root: exp.Expr, rewritten: Sequence[exp.Expr], order: Sequence[exp.Expr] | None = None
) -> list[exp.Expr]:
    """Every node of ``root`` whose annotated type a rewrite of ``rewritten`` may change
    (``order``: ``preorder(root)``, when the caller has it)."""
    stale: dict[int, exp.Expr] = {}
    readers: set[tuple[str, str]] = set()
    # Tables every column of which reads a stale node: an UNNEST a rule wrote (its element
    # columns, a struct element's fields through its alias).
    reader_tables: set[str] = set()
    # What may read a stale node from elsewhere in the tree, with the (table, name) a
    # column reads by.
    leaves: list[tuple[exp.Expr, tuple[str, str] | None]] = []
    references: dict[str, set[str]] = {}
    leaf_kinds = _LEAF_KINDS
    for node in preorder(root) if order is None else order:
        kind = type(node)
        leaf = leaf_kinds.get(kind)
        if leaf is None:
            leaf = leaf_kinds[kind] = issubclass(kind, _LEAVES)
        if not leaf:
            continue
        if isinstance(node, exp.Table):
            references.setdefault(node.name, set()).add(node.alias_or_name)
        else:
            # (node.table, node.name), without the properties' calls: a column per few nodes.
            read = (node.text("table"), node.text("this")) if isinstance(node, exp.Column) else None
            leaves.append((node, read))
    climbed: set[int] = set()  # nodes ``up`` went through: so did it through their ancestors
    branch_names: dict[int, set[str]] = {}

    def up(node: exp.Expr) -> None:
        while True:
            if id(node) in climbed:
                return
            climbed.add(id(node))
            stale[id(node)] = node
            parent = node.parent
            if isinstance(parent, exp.Select) and node.arg_key == "expressions":
                readers.update(_readers(node, references, branch_names))
            elif isinstance(node, exp.Unnest):
                alias = node.args.get("alias")
                if isinstance(alias, exp.TableAlias):
                    names = {alias.name, *(c.name for c in alias.columns)} - {""}
                    readers.update((t, n) for n in names for t in ("", alias.name))
                    reader_tables.update(names)
            if node is root or parent is None:
                return
            node = parent

    # Later rewrites mostly enclose earlier ones (rules run bottom-up): the outer one covers
    # them. One written into an earlier one (Context.wrote: a part of a node a rule changed
    # in place) makes its ancestors stale, not what the earlier one wrote beside it.
    covered: set[int] = set()
    for node in reversed(rewritten):
        if id(node) not in covered and attached(node, root):  # else replaced again later
            written = _written(node)
            covered.update(written)
            stale.update(written)
            up(node)
    operations: set[int] = set()
    while True:  # until nothing more is stale
        count = len(stale)
        for node, read in leaves:
            if id(node) in stale:
                continue
            if isinstance(node, exp.Null):
                # Typed NULL only while an annotation runs (then the dialect's default): under
                # a stale node it must be annotated again for the coercions to match.
                if _under(node, stale, root):
                    up(node)
            elif read is None or read in readers or read[0] in reader_tables:
                up(node)  # a TableColumn, or a column that reads a stale one
        for operation in [n for n in stale.values() if isinstance(n, exp.SetOperation)]:
            if id(operation) not in operations:
                operations.add(id(operation))
                stale.update((id(inner), inner) for inner in preorder(operation))
        if len(stale) == count:
            return list(stale.values())


def _under(node: exp.Expr, stale: dict[int, exp.Expr], root: exp.Expr) -> bool:
    while node is not root and node.parent is not None:
        node = node.parent
        if id(node) in stale:
            return True
    return False


# Nodes whose annotated type depends on nothing but the node (literals, units, type names,
# intervals of a literal amount): a third of the stale nodes over the legacy corpus. Typed
# here directly as sqlglot's annotator types them, rather than through its walk (two stack
# entries, a child generator, a dispatch and a new DataType per node); each ``_SELF_TYPED``
# type's annotation in the dialect's metadata is checked to be the one written here.
_SELF_TYPED = frozenset(
    {
        exp.Literal,  # VARCHAR, INT or DOUBLE, never null (TypeAnnotator._annotate_literal)
        exp.DataType,  # left untyped (its annotator is ``lambda _, e: e``); its parameters typed
        exp.Var,
        exp.Identifier,
        exp.DataTypeParam,
        exp.Boolean,
        exp.Interval,
        # Typed by sqlglot's own annotator function for them, which reads the node alone.
        exp.Cast,  # its target type
        exp.TryCast,
        exp.Extract,  # by the part extracted
    }
)
_CALLED = (exp.Cast, exp.TryCast, exp.Extract)
# What the annotator types from more than the node and its children: a column (its scope's
# sources), a query, subquery or set operation (their scopes' projections, a struct
# dialect's query type), a path (its original field names, restored on its parent), a
# table column, an UNNEST or an array or struct built from a query (the query's type).
_FROM_ELSEWHERE = (
    exp.Column,
    exp.TableColumn,
    exp.Query,
    exp.Subquery,
    exp.Dot,
    exp.Unnest,
    exp.Array,
    exp.Struct,
    exp.Table,
    exp.TableAlias,
    exp.Lateral,
)
_SHARED_TYPES: dict[exp.DType, exp.DataType] = {}  # shared, as sqlglot's schema shares them
_SELF_TYPED_RULES: dict[int, dict[type, object]] = {}


def _self_typed_rules(metadata: dict) -> dict[type, object]:
    """For each kind of ``_SELF_TYPED`` the annotator of ``metadata`` types from the node
    alone: the type it gives (None: a literal, by its text; True: a DataType, left as is;
    a function: sqlglot's annotator function for it). Others are left to the annotator."""
    rules: dict[type, object] = {}
    for kind in _SELF_TYPED:
        spec = metadata.get(kind)
        if kind is exp.Literal or kind is exp.DataType or kind in _CALLED:
            if spec is EXPRESSION_METADATA.get(kind):  # not a dialect's own
                if kind is exp.Literal:
                    rules[kind] = None
                else:
                    rules[kind] = True if kind is exp.DataType else spec["annotator"]
        elif spec is None:
            rules[kind] = exp.DType.UNKNOWN
        elif set(spec) == {"returns"}:
            rules[kind] = spec["returns"]
    return rules


def _by_children_rule(kind: type, metadata: dict) -> object:
    """How ``TypeAnnotator.annotate_expression`` types a node of ``kind`` once its children
    are typed, where that reads nothing but the node and its children: the annotator
    function of ``metadata`` for it (called as it calls it), the type it returns, or
    UNKNOWN; False for the kinds it types from a scope or the tree around them (columns,
    queries, set operations, paths), which are left to its walk."""
    if issubclass(kind, _FROM_ELSEWHERE):
        return False
    spec = metadata.get(kind)
    if spec and (annotator := spec.get("annotator")):
        return annotator
    if spec and (returns := spec.get("returns")):
        return _Returns(returns)
    return _Returns(exp.DType.UNKNOWN)


class _Returns:
    """A type the annotator sets through ``_set_type`` (which records a NULL type, to be
    replaced by the dialect's default at the end of the annotation)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: object) -> None:
        self.dtype = dtype


_MISSING = object()


def _shared_type(dtype: exp.DType) -> exp.DataType:
    kind = _SHARED_TYPES.get(dtype)
    if kind is None:
        kind = _SHARED_TYPES[dtype] = dtype.into_expr()
    return kind


def type_by_children(
    order: Sequence[exp.Expr], annotator: TypeAnnotator, stale: set[int] | None = None
) -> None:
    """Type the ``stale`` nodes of ``order`` (the tree in pre-order; None: every node, for a
    first annotation) whose annotation reads only the node and its children, once their
    stale children are typed, and count them as visited: the annotator's walk then types
    only the others (columns, queries, paths and what holds one of them), reading these
    types as it would have given them.

    Each is typed as ``TypeAnnotator.annotate_expression`` types it (its metadata's
    annotator function, or the type it returns, or UNKNOWN), children before parents as
    that walk goes, so every annotator reads the types it would read there; literals, units,
    type names and the like by the shortcuts of ``_self_typed_rules``."""
    metadata = annotator.expression_metadata
    rules = _SELF_TYPED_RULES.get(id(metadata))
    if rules is None:
        rules = _SELF_TYPED_RULES[id(metadata)] = _self_typed_rules(metadata)
    visited = annotator._visited
    set_type = annotator._set_type
    blocked: set[int] = set()  # parents of a stale node left to the walk: left to it too
    missing = _MISSING
    for node in reversed(order):  # children before their parents
        key = id(node)
        if stale is not None and key not in stale:
            continue
        kind = type(node)
        rule = rules.get(kind, missing)
        if rule is missing:
            rule = rules[kind] = _by_children_rule(kind, metadata)
        meta = node._meta
        if rule is False or key in blocked or (meta is not None and "dot_parts" in meta):
            # (A path's start: annotation may rename the path's fields.)
            parent = node.parent
            if parent is not None:
                blocked.add(id(parent))
            continue
        if rule is None:  # a literal
            if node.is_string:
                node._type = _shared_type(exp.DType.VARCHAR)
            elif node.is_int:
                node._type = _shared_type(exp.DType.INT)
            else:
                node._type = _shared_type(exp.DType.DOUBLE)
            node.meta["nonnull"] = True
        elif type(rule) is _Returns:
            set_type(node, rule.dtype)  # as annotate_expression sets a returned type
        elif isinstance(rule, exp.DType):
            node._type = _shared_type(rule)
        elif rule is not True:
            rule(annotator, node)  # as TypeAnnotator.annotate_expression calls it
        visited[key] = node


def retype(
    root: exp.Expr,
    rewritten: Sequence[exp.Expr],
    schema: Schema,
    dialect: str,
    *,
    scopes: Sequence[Scope] | None = None,
    order: Sequence[exp.Expr] | None = None,
) -> exp.Expr:
    """``root`` with the types of its nodes as annotating the whole tree would give them,
    annotating only what ``rewritten`` may have changed. ``scopes``: ``root``'s, if built
    already (``sql/scopes.py``); ``order``: ``preorder(root)``, if walked already."""
    order = preorder(root) if order is None else order
    nodes = stale_nodes(root, rewritten, order)
    if not nodes:
        return root
    stale = {id(node) for node in nodes}
    for node in nodes:
        if node._meta:
            node._meta.pop("changed", None)
    annotator = TypeAnnotator(schema=ensure_schema(schema, dialect=dialect))
    type_by_children(order, annotator, stale)
    # ``_visited`` is the annotator's own record of what it has typed (sqlglot pinned <31);
    # tests/sql/test_retype.py fails if what this skips no longer matches a whole annotation.
    if any(isinstance(node, exp.Column | exp.TableColumn) for node in nodes):
        # A stale column is typed from its scope: every scope is annotated from its root,
        # so every node that is not stale counts as visited.
        visited = annotator._visited
        operations: list[exp.SetOperation] = []
        for n in order:
            if id(n) not in stale:
                visited[id(n)] = n
                if isinstance(n, exp.SetOperation):
                    operations.append(n)
        # A set operation's column types live in the annotator while it runs, not on its
        # nodes: a stale column reading a derived table over one that is not stale (a BigQuery
        # wildcard's UNION, the array an UNNEST a rule wrote reads) would be typed UNKNOWN.
        # They are computed again from its branches' projections, inner operations first
        # (each outer one takes its operands' types), not by annotating the branches again.
        for operation in reversed(operations):
            annotator._annotate_set_operation(operation)
        return annotate_in_scopes(annotator, root, scopes or build_scopes(root))
    # Otherwise no scope is needed (they cost a walk to build): annotation descends from
    # the root through stale nodes only, and stops at the first node that is not.
    visited = annotator._visited
    expr = exp.Expr
    for node in nodes:  # each child: node.iter_expressions() without a generator
        for value in node.args.values():
            if type(value) is list:
                for item in value:
                    if isinstance(item, expr) and id(item) not in stale:
                        visited[id(item)] = item
            elif isinstance(value, expr) and id(value) not in stale:
                visited[id(value)] = value
    return annotator.annotate(root, annotate_scope=False)
