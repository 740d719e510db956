"""Snowflake's ARRAY_AGG where only its elements are read (SQL:2016 S091, S098).

A Snowflake ARRAY_AGG returns an ARRAY of VARIANT values: the aggregated values without
their NULLs, an empty array over no values, in an order Snowflake calls unpredictable
without WITHIN GROUP (ORDER BY ...) (https://docs.snowflake.com/sql-reference/functions/array_agg).
No ANSI array holds that as it is: an output column of it is JSON text in the lake, and its
order is no one order. What does have an exact form is a query that reads only the
multiset of its elements:

- ``ARRAY_SIZE(ARRAY_AGG([DISTINCT] x))`` counts the values that are not NULL: it is
  ``COUNT([DISTINCT] x)`` (VARIANT-ARRAY-SIZE writes it), 0 over no values as [] has.
- ``ARRAY_AGG(s)`` of a string, output by a CTE or derived table whose every reader is a
  FLATTEN (or passes the column on to one) is the standard's ``ARRAY_AGG(s) FILTER (WHERE
  s IS NOT NULL)`` of ``VARCHAR ARRAY``, and the FLATTEN its ``UNNEST ... WITH
  ORDINALITY`` (VARIANT-FLATTEN): one row per element, its VALUE (a VARIANT string in
  Snowflake) read as the string. No elements is NULL here where Snowflake has []: FLATTEN
  gives no rows for either, and nothing else reads it. The standard's ARRAY_AGG has no
  DISTINCT (SQL:2016 10.9), so ``ARRAY_AGG(DISTINCT s)`` is ``ARRAY_AGG(s ORDER BY s)``
  and its FLATTEN keeps the first element of each run of equal ones (a condition in the
  WHERE clause of the FLATTEN's SELECT, so a comma or CROSS join only).

Refused, naming the construct: an ARRAY_AGG read any other way (an output column, a
comparison, a subscript, ARRAY_TO_STRING, IS NULL), of a value that is not a string, as a
window function, and FLATTEN's INDEX over one (the position of an element, which Snowflake
does not fix).
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import clone
from sql.rules.variant import (
    AGGREGATED_ARRAY,
    ALL_ELEMENTS,
    DISTINCT_ELEMENTS,
    STRING_TYPES,
    holder,
    reads,
)


def _value(node: exp.ArrayAgg) -> tuple[exp.Expr, bool] | None:
    """(the aggregated value, DISTINCT) of ``node``; None for several DISTINCT values."""
    value, distinct = node.this, isinstance(node.this, exp.Distinct)
    if distinct:
        if len(value.expressions) != 1:
            return None
        value = value.expressions[0]
    while isinstance(value, exp.Paren):
        value = value.this
    return value, distinct


def _read_by_flatten_only(top: exp.Expr, depth: int = 0) -> bool:
    """Whether the output column ``top`` (an aliased projection of a CTE or derived table)
    is read only as FLATTEN's input, directly or passed on as it is as another such
    column."""
    alias = top.parent
    if depth > 16 or not isinstance(alias, exp.Alias) or alias.this is not top:
        return False
    select = alias.parent
    if not isinstance(select, exp.Select) or select.args.get("distinct") or holder(select) is None:
        return False
    name = alias.alias
    if [p.alias_or_name for p in select.expressions].count(name) != 1:
        return False
    root = select.root()
    if any(not isinstance(star.parent, exp.Count) for star in root.find_all(exp.Star)):
        return False  # a * qualification did not expand: a reader this cannot see
    for join in root.find_all(exp.Join):
        if join.args.get("using") or join.args.get("method"):
            return False  # USING and NATURAL compare the column as it is
    readers = [
        c
        for c in root.find_all(exp.Column)
        if c.name == name and (reads(c, select) or (not c.table and c.parent_select is select))
    ]
    return bool(readers) and all(_flatten_input(c) or _passed_on(c, depth) for c in readers)


def _flatten_input(column: exp.Column) -> bool:
    """``column`` is a FLATTEN's input, or the UNNEST's that VARIANT-FLATTEN wrote for one
    (a FLATTEN later in the walk than the ARRAY_AGG it reads)."""
    parent = column.parent
    if isinstance(parent, exp.Unnest | exp.Bracket):
        return bool(column.meta.get(AGGREGATED_ARRAY))
    if isinstance(parent, exp.Kwarg) and parent.expression is column:
        parent = parent.parent
    return (
        isinstance(parent, exp.Explode)
        and parent.this in (column, column.parent)
        and isinstance(parent.parent, exp.Lateral)
    )


def _passed_on(column: exp.Column, depth: int) -> bool:
    """``column`` is a projection of its own (``t.c AS c``, as qualification writes each)
    that is read only by FLATTEN."""
    return isinstance(column.parent, exp.Alias) and _read_by_flatten_only(column, depth + 1)


@rule(
    "AGGREGATED-ARRAY",
    "rewrite",
    ("snowflake",),
    (exp.ArrayAgg, exp.WithinGroup),
    "Snowflake's `ARRAY_AGG(s)` of a string whose array only FLATTEN reads (an output "
    "column of a CTE or derived table every reader of which is a FLATTEN's input, directly "
    "or passed on as it is) is the standard's `ARRAY_AGG(s) FILTER (WHERE s IS NOT NULL)` "
    "(S098), a `VARCHAR ARRAY`, and the FLATTEN is `UNNEST(a) WITH ORDINALITY` "
    "(VARIANT-FLATTEN): Snowflake leaves NULLs out of the array and its elements are "
    "VARIANT strings, read as the strings (`f.value::string`, compared, matched, passed to a "
    "string function). An array of no elements is NULL here where Snowflake has `[]`, which "
    "FLATTEN expands alike to no rows. The standard's ARRAY_AGG has no DISTINCT: "
    "`ARRAY_AGG(DISTINCT s)` is `ARRAY_AGG(s ORDER BY s)`, and its FLATTEN (a comma or CROSS "
    "join) keeps the first of each run of equal elements, `CASE WHEN f.index = 1 THEN TRUE "
    "ELSE a[f.index - 1] <> f.value END` in its SELECT's WHERE. "
    "`ARRAY_SIZE(ARRAY_AGG([DISTINCT] x))` is `COUNT([DISTINCT] x)` (VARIANT-ARRAY-SIZE). "
    "WITHIN GROUP (ORDER BY ...) orders nothing anyone reads and is dropped. Refused "
    "(ARRAY-AGG): an ARRAY_AGG read otherwise (output, compared, indexed, ARRAY_TO_STRING, "
    "IS NULL: a VARIANT array whose order Snowflake leaves unpredictable, which no ANSI array "
    "holds), of a value that is not a string, as a window function; FLATTEN's INDEX over one "
    "and a LEFT JOIN FLATTEN of a DISTINCT one (VARIANT-FLATTEN).",
    (
        (
            "snowflake",
            "WITH c AS (SELECT o_custkey, ARRAY_AGG(DISTINCT o_orderstatus) AS s "
            "FROM SALES.ORDERS GROUP BY o_custkey) "
            "SELECT c.o_custkey, f.value::string AS status FROM c, LATERAL FLATTEN(input => c.s) AS f",
            'WITH "c" AS (SELECT "orders"."o_custkey" AS "o_custkey", ARRAY_AGG('
            '"orders"."o_orderstatus" ORDER BY "orders"."o_orderstatus" ASC NULLS LAST) '
            'FILTER(WHERE NOT "orders"."o_orderstatus" IS NULL) AS "s" FROM "raw"."orders" AS '
            '"orders" GROUP BY "orders"."o_custkey") SELECT "c"."o_custkey" AS "o_custkey", '
            'CAST("f"."value" AS VARCHAR) AS "status" FROM "c" AS "c" CROSS JOIN UNNEST('
            '"c"."s") WITH ORDINALITY AS "f"("value", "index") WHERE CASE WHEN "f"."index" = 1 '
            'THEN TRUE ELSE "c"."s"["f"."index" - 1] <> "f"."value" END',
        ),
    ),
)
def aggregated_strings(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    matched = node
    if isinstance(node, exp.WithinGroup):
        if not isinstance(node.this, exp.ArrayAgg):
            return None  # LISTAGG, PERCENTILE_CONT ...: their own rules
        node = node.this
    elif isinstance(node.parent, exp.WithinGroup):
        return None  # translated with its WITHIN GROUP, which is seen next
    consumer = matched.parent
    if isinstance(consumer, exp.ArraySize) and consumer.this is matched:
        return None  # VARIANT-ARRAY-SIZE counts its values
    refusal = _refusal(matched, node)
    if refusal is not None:
        ctx.report("error", "ARRAY-AGG", node, refusal)
        return matched
    value, distinct = _value(node) or (node.this, False)
    inner: exp.Expr = clone(value)
    if distinct:
        # The standard's ARRAY_AGG has no DISTINCT: sorted, equal values are neighbours,
        # and VARIANT-FLATTEN keeps the first of each
        inner = exp.Order(this=inner, expressions=[exp.Ordered(this=clone(value))])
    present = exp.Not(this=exp.Is(this=clone(value), expression=exp.Null()))
    aggregate = exp.Filter(this=exp.ArrayAgg(this=inner), expression=exp.Where(this=present))
    aggregate.type = exp.DataType(
        this=exp.DType.ARRAY, expressions=[value.type.copy()], nested=True
    )
    aggregate.meta[AGGREGATED_ARRAY] = DISTINCT_ELEMENTS if distinct else ALL_ELEMENTS
    return aggregate  # a WITHIN GROUP goes with it: no reader sees the order


def _refusal(matched: exp.Expr, node: exp.ArrayAgg) -> str | None:
    """Why the ARRAY_AGG ``node`` (``matched`` with its WITHIN GROUP) is not translated."""
    if isinstance(matched.parent, exp.Window):
        return "ARRAY_AGG as a window function is not translated"
    parts = _value(node)
    if parts is None:
        return "ARRAY_AGG(DISTINCT a, b) is not translated"
    kind = parts[0].type
    if not (isinstance(kind, exp.DataType) and kind.this in STRING_TYPES):
        shown = kind.sql("snowflake") if isinstance(kind, exp.DataType) else "unknown"
        return (
            f"ARRAY_AGG of a value of type {shown}: its elements are VARIANT values, read back "
            "exactly only for strings (ARRAY_SIZE of it counts any)"
        )
    if not _read_by_flatten_only(matched):
        return (
            "ARRAY_AGG is translated where only FLATTEN reads its elements (through a CTE or "
            "derived table's column) or ARRAY_SIZE counts them: as a value it is an array of "
            "VARIANTs in an order Snowflake leaves unpredictable, which no ANSI array holds"
        )
    return None
