"""Fast walks over a sqlglot tree.

``preorder(node)`` is ``list(node.walk(bfs=False))`` (the same nodes in the same order:
each node before its descendants, children in argument order) without a generator frame
per node: the translator walks each statement's tree about ten times, and sqlglot's walk
was a tenth of its time. ``breadth_first(node)`` is ``list(node.walk())`` (sqlglot's
default, breadth-first order), for the walks whose order shows in the output.
``clone(node)`` is ``node.copy()`` without its deep copies (the rules' copies, and the
catalog's types that carry a column's attributes).
"""

from __future__ import annotations

from collections import deque
from typing import TypeVar

from sqlglot import exp

E = TypeVar("E", bound=exp.Expr)

# Node types whose arguments are never nodes (sqlglot's ``arg_types``: names, literal text,
# flags): nearly half the nodes of a parsed query, most of them identifiers.
NO_CHILDREN = frozenset({exp.Identifier, exp.Literal, exp.Null, exp.Boolean})


def preorder(node: exp.Expr) -> list[exp.Expr]:
    nodes: list[exp.Expr] = []
    stack = [node]
    pop, push, add = stack.pop, stack.append, nodes.append
    expr = exp.Expr
    leaves = NO_CHILDREN
    while stack:
        current = pop()
        add(current)
        if type(current) in leaves:
            continue
        for value in reversed(current.args.values()):
            if type(value) is list:
                for item in reversed(value):
                    if isinstance(item, expr):
                        push(item)
            elif isinstance(value, expr):
                push(value)
    return nodes


def breadth_first(node: exp.Expr) -> list[exp.Expr]:
    nodes: list[exp.Expr] = []
    queue = deque([node])
    pop, push, add = queue.popleft, queue.append, nodes.append
    expr = exp.Expr
    while queue:
        current = pop()
        add(current)
        for value in current.args.values():
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, expr):
                        push(item)
            elif isinstance(value, expr):
                push(value)
    return nodes


def clone(node: E) -> E:
    """A copy of ``node``'s subtree, like ``node.copy()`` at a fraction of its cost: the copy
    shares the type annotations (as sqlglot's own schema lookups share one DataType among
    every column they type; nothing changes a type in place) and copies ``meta`` shallowly
    (its values are token positions and flags). Rules copy an operand they use twice, or
    one that stays in the tree, many times per statement."""
    root = node.__class__()
    stack: list[tuple[exp.Expr, exp.Expr]] = [(node, root)]
    while stack:
        source, copy = stack.pop()
        if source.comments is not None:
            copy.comments = list(source.comments)
        if source._type is not None:
            copy._type = source._type
        if source._meta is not None:
            copy._meta = dict(source._meta)
        # What ``copy.set`` and ``copy.append`` do for a node just built (no hash to clear,
        # the child's parent, key and position set), without their calls and checks.
        args = copy.args
        for key, value in source.args.items():
            if isinstance(value, exp.Expr):
                child = value.__class__()
                stack.append((value, child))
                child.parent, child.arg_key = copy, key
                args[key] = child
            elif type(value) is list:
                items: list = []
                for item in value:
                    if isinstance(item, exp.Expr):
                        child = item.__class__()
                        stack.append((item, child))
                        child.parent, child.arg_key, child.index = copy, key, len(items)
                        item = child
                    items.append(item)
                args[key] = items
            else:
                args[key] = value
    return root


# How tightly each operator binds (higher: tighter), for writing a tree as text: sqlglot's
# generator prints a child operator without parentheses, so a tree a rule built as
# 4 - (x + 1) would print as 4 - x + 1. The parser never builds such trees (it keeps the
# source's parentheses as Paren nodes); rules and renderings can. Concatenation binds as
# tightly as + and - here, as in Spark (the standard and DuckDB bind it looser: extra
# parentheses are harmless there).
PRECEDENCE: dict[type[exp.Expr], int] = {
    exp.Or: 0,
    exp.And: 1,
    exp.Not: 2,
    exp.EQ: 3, exp.NEQ: 3, exp.GT: 3, exp.GTE: 3, exp.LT: 3, exp.LTE: 3,
    exp.NullSafeEQ: 3, exp.NullSafeNEQ: 3, exp.Is: 3, exp.Like: 3, exp.In: 3,
    exp.Between: 3, exp.RegexpLike: 3,
    exp.Add: 4, exp.Sub: 4, exp.DPipe: 4,
    exp.Mul: 5, exp.Div: 5, exp.Mod: 5,
    exp.Neg: 6,
}  # fmt: skip
# Operators whose right operand of the same operator needs no parentheses.
ASSOCIATIVE = (exp.And, exp.Or, exp.DPipe)


def _needs_parens(parent: exp.Expr, child: exp.Expr, right: bool) -> bool:
    level, inner = PRECEDENCE[type(parent)], PRECEDENCE.get(type(child))
    if inner is None:
        return False
    if inner < level:
        return True
    if inner > level:
        return False
    if type(child) is type(parent) and isinstance(parent, ASSOCIATIVE):
        return False
    return right or level == PRECEDENCE[exp.EQ]  # a = b = c, a - (b - c)


def parenthesize(nodes: list[exp.Expr], functions: tuple[type[exp.Expr], ...] = ()) -> None:
    """Wrap in Paren every operand of an operator among ``nodes`` that would otherwise be
    read back differently (see :data:`PRECEDENCE`); ``functions``: operators the target
    writes as function calls (the ANSI target's MOD), whose operands need none."""
    for node in nodes:
        kind = type(node)
        if kind not in PRECEDENCE or kind in (exp.In, exp.Between) or kind in functions:
            continue
        operands = [("this", False)]
        if isinstance(node, exp.Binary):
            operands.append(("expression", True))
        for key, right in operands:
            child = node.args.get(key)
            if isinstance(child, exp.Expr) and _needs_parens(node, child, right):
                paren = exp.Paren()
                child.replace(paren)
                paren.set("this", child)


def range_source(column: exp.Column) -> exp.Expr | None:
    """What ``column``'s table qualifier names: the FROM or JOIN item (a Table, Subquery,
    Lateral, ...) of that name in the innermost enclosing SELECT that has one; None when
    none does."""
    if not column.table:
        return None
    select = column.parent_select
    while select is not None:
        for source in (select.args.get("from_"), *(select.args.get("joins") or ())):
            item = source.this if source is not None else None
            if item is not None and item.alias_or_name == column.table:
                return item
        select = select.parent_select
    return None
