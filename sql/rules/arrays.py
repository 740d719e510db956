"""BigQuery's typed arrays and structs as the standard's arrays and rows (SQL:2016 S091, T051).

A BigQuery ``ARRAY<T>`` is the standard's ``T ARRAY`` and a ``STRUCT<f T, ...>`` its
``ROW(f T, ...)`` (sql/catalog_import.py maps declared columns). What differs is spelled out:

- ``UNNEST(a) AS x [WITH OFFSET AS o]`` in FROM is the standard's collection derived table
  ``UNNEST(a) [WITH ORDINALITY] AS r(x[, o])``; BigQuery's offset counts from 0 and the
  ordinality from 1, so every reference to ``o`` becomes ``o - 1``. A comma or CROSS JOIN
  drops the rows whose array is empty or NULL in both; ``LEFT JOIN UNNEST(a)`` keeps them,
  with ``ON TRUE`` written out.
- ``a[OFFSET(i)]`` (and a bare ``a[i]``) is ``a[i + 1]``, ``a[ORDINAL(i)]`` is ``a[i]``: an
  index out of range is an error in BigQuery and in the standard (sql/render.py keeps the
  error on each engine). ``SAFE_OFFSET`` / ``SAFE_ORDINAL`` give NULL out of range: a CASE
  over ``CARDINALITY``.
- ``ARRAY_LENGTH(a)`` is ``CARDINALITY(a)``; both are NULL for a NULL array.
- ``[v, ...]`` is ``ARRAY[v, ...]`` when every element has the same type (BigQuery would
  coerce mixed numeric elements to a common supertype the standard does not choose alike).
- ``x.f`` on a struct is a field reference, unchanged.
- ``STRUCT(a AS f, b)`` (a column names its field) and ``STRUCT<f T, ...>(a, ...)`` are
  ``CAST(ROW(a, b) AS ROW(f T, ...))``: the standard's row value constructor, its fields
  named and typed by the CAST.
- ``ARRAY_AGG(STRUCT(a, b) ORDER BY k)[OFFSET(0)].a`` reads one field of one element: it is
  ``ARRAY_AGG(a ORDER BY k)[OFFSET(0)]``, no STRUCT value built.

Anything else about an array (FROM with several arrays, ``SELECT *`` over an UNNEST of
structs, an index or array whose type is unknown) is refused, naming it.
"""

from __future__ import annotations

from sqlglot import exp

from sql.ansi import RowValue
from sql.rules.base import Context, rule
from sql.rules.build import INTEGER_TYPES, STRING_TYPES, clone, guarded, integer_literal, lit, typed
from sql.rules.conditionals import in_array_literal
from sql.rules.portable_types import branches


def _refuse(ctx: Context, rule_id: str, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", rule_id, node, message)
    return node


def array_type(node: exp.Expr | None) -> exp.DataType | None:
    """``node``'s annotated array type, or None when it is not known to be an array."""
    kind = node.type if node is not None else None
    if isinstance(kind, exp.DataType) and kind.is_type(exp.DType.ARRAY) and kind.expressions:
        return kind
    return None


def _element_type(array: exp.DataType) -> exp.DataType:
    return array.expressions[0]


def _minus_one(column: exp.Expr) -> exp.Expr:
    # Typed as it is written: the standard's ordinality is a BIGINT, and the derived table
    # that holds it is new to an incremental annotation.
    one = typed(lit(1), "INT")
    return typed(exp.Paren(this=typed(exp.Sub(this=column, expression=one), "BIGINT")), "BIGINT")


def _plus(index: exp.Expr, amount: int) -> exp.Expr:
    if amount == 0:
        return index
    if isinstance(index, exp.Literal) and index.is_int:
        return lit(int(index.name) + amount)
    return exp.Paren(this=exp.Add(this=index, expression=lit(amount)))


@rule(
    "ARRAY-UNNEST",
    "rewrite",
    ("bigquery",),
    (exp.Unnest,),
    "`UNNEST(a) AS x [WITH OFFSET AS o]` in FROM or a JOIN is the standard's collection "
    "derived table `UNNEST(a) [WITH ORDINALITY] AS r(x[, o])` (S091); the offset counts from 0 and the ordinality from 1, so each reference to "
    "`o` reads `o - 1`. A comma or CROSS JOIN drops rows whose array is empty or NULL, as "
    "BigQuery does; `LEFT JOIN UNNEST(a)` keeps them (`ON TRUE` is written out). An UNNEST "
    "of STRUCTs without a name makes each field a column of the field's name (BigQuery's "
    "rule): the bare names read it become `r.v.f`; `*` over it, and a name another source "
    "also has, are refused. UNNEST of an untyped value, of several arrays, outside FROM, or "
    "of scalars without a name for its values is refused. `x IN UNNEST(a)` is `x IN (SELECT v FROM UNNEST(a) AS r(v))`: no match is "
    "FALSE, or NULL when x or an element is NULL, and an empty or NULL array is FALSE, in "
    "both.",
    (
        (
            "bigquery",
            "SELECT o_orderkey, k, o FROM sales.orders, UNNEST([1, 2]) AS k WITH OFFSET AS o",
            'SELECT "orders"."o_orderkey" AS "o_orderkey", "_0"."k" AS "k", ("_0"."o" - 1) AS '
            '"o" FROM "raw"."orders" AS "orders" CROSS JOIN UNNEST(ARRAY[1, 2]) WITH '
            'ORDINALITY AS "_0"("k", "o")',
        ),
    ),
)
def unnest(node: exp.Unnest, ctx: Context) -> exp.Expr | None:
    if in_array_literal(node) is not None:
        return None  # FN-IN-UNNEST
    parent = node.parent
    if len(node.expressions) != 1:
        return _refuse(ctx, "ARRAY-UNNEST", node, "UNNEST of several arrays is not translated")
    array = node.expressions[0]
    kind = array_type(array)
    if kind is None:
        return _refuse(
            ctx,
            "ARRAY-UNNEST",
            node,
            "UNNEST of a value whose array type is not known (declare the column's type)",
        )
    if isinstance(parent, exp.In) and parent.args.get("unnest") is node:
        return _in_unnest(parent, node, kind, ctx)
    if not isinstance(parent, (exp.From, exp.Join)):
        return _refuse(
            ctx, "ARRAY-UNNEST", node, "UNNEST is translated as a table in FROM or after IN"
        )
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.name and not alias.columns:
        refusal = _name_struct_fields(node, alias, _element_type(kind))
        if refusal:
            return _refuse(ctx, "ARRAY-UNNEST", node, refusal)
    if not isinstance(alias, exp.TableAlias) or len(alias.columns) != 1 or not alias.name:
        return _refuse(ctx, "ARRAY-UNNEST", node, "UNNEST needs AS name for its values")
    if isinstance(parent, exp.Join):
        if parent.args.get("using"):
            return _refuse(ctx, "ARRAY-UNNEST", parent, "JOIN UNNEST ... USING is not translated")
        side = (parent.side or "").upper()
        if side not in ("", "LEFT"):
            return _refuse(ctx, "ARRAY-UNNEST", parent, f"{side} JOIN UNNEST is not translated")
        if side == "LEFT" and parent.args.get("on") is None:
            parent.set("on", exp.true())
        elif not side and parent.args.get("on") is None:
            parent.set("kind", "CROSS")  # BigQuery's [INNER] JOIN UNNEST without ON
    offset = node.args.get("offset")
    if offset and not isinstance(offset, exp.Identifier):
        return _refuse(ctx, "ARRAY-UNNEST", node, "WITH OFFSET needs AS name")
    range_name, value_name = alias.name, alias.columns[0].name
    offset_name = offset.name if isinstance(offset, exp.Identifier) else None
    fields = _row_fields(_element_type(kind))
    # Only the query block that joins the UNNEST (and its subqueries) can name its range: a
    # search of the whole statement per UNNEST grew with the square of a wide union's size.
    block = parent.parent if isinstance(parent.parent, exp.Select) else node.root()
    for column in list(block.find_all(exp.Column)):
        if column.table != range_name:
            continue
        if column.name == offset_name:
            column.replace(_minus_one(clone(column)))
        elif column.name == value_name:
            continue
        elif column.name in fields and _written(column):
            # BigQuery reads a field of the elements by its bare name: x.f.
            field = exp.Dot(
                this=exp.column(value_name, table=range_name, quoted=True),
                expression=exp.to_identifier(column.name, quoted=True),
            )
            field.type = fields[column.name].copy()
            column.replace(field)
        else:
            # What SELECT * over an UNNEST of structs expands to: BigQuery's own expansion
            # is not sqlglot's.
            return _refuse(
                ctx,
                "ARRAY-UNNEST",
                node,
                f"{column.name} is read as a column of the UNNEST; name the fields through "
                f"its value ({value_name}.{column.name}): SELECT * over an UNNEST of structs "
                "is not translated",
            )
    return node


def _own_columns(select: exp.Select) -> list[exp.Column]:
    """The columns of ``select``'s own clauses, not of the queries nested in it."""
    found: list[exp.Column] = []
    stack = [child for child in select.iter_expressions()]
    while stack:
        node = stack.pop()
        if isinstance(node, exp.Column):
            found.append(node)
        elif not isinstance(node, exp.Query | exp.Subquery):
            stack.extend(node.iter_expressions())
    return found


def _name_struct_fields(node: exp.Unnest, alias: exp.TableAlias, element: exp.DataType) -> str:
    """An UNNEST without a name (qualification gave it a range name only) of an array of
    STRUCTs: BigQuery makes each field a column named as the field ("For input arrays of
    structs, UNNEST returns a row for each struct, with a separate column for each field"),
    so the bare names its query block reads become fields of a named value, ``r.v.f``, and
    the UNNEST gets that value name. Returns why it cannot be named ('' when it was); an
    UNNEST of anything but STRUCTs is left to the refusal."""
    fields = _row_fields(element)
    select = node.find_ancestor(exp.Select)
    if not fields or select is None:
        return "UNNEST needs AS name for its values"
    by_name = {name.lower(): name for name in fields}
    taken = {c.name.lower() for c in node.root().find_all(exp.Column)} | set(by_name)
    value_name = "_value"
    while value_name in taken:
        value_name += "_"
    own = _own_columns(select)
    # Qualification expanded a `*` already, without the fields BigQuery's `*` has here.
    if any(
        isinstance(p, exp.Star) or isinstance(p.this, exp.Star) or not _written(p)
        for p in select.expressions
    ):
        return "`*` over an UNNEST of STRUCTs without a name is not translated: name its fields"
    for column in own:
        if column.name.lower() in by_name and column.table and column.table != alias.name:
            # BigQuery would find the bare name in two sources (an error there).
            return (
                f"{column.name} is both a field of the UNNEST's STRUCTs and a column of "
                f"{column.table}: name the UNNEST (AS x) and read x.{column.name}"
            )
    for column in own:
        name = by_name.get(column.name.lower())
        if name is None or (column.table and column.table != alias.name) or column.args.get("db"):
            continue
        field = exp.Dot(
            this=exp.column(value_name, table=alias.name, quoted=True),
            expression=exp.to_identifier(column.name, quoted=True),
        )
        field.type = fields[name].copy()
        column.replace(field)
    # A bare field name left elsewhere (a query nested in this one) would resolve otherwise.
    for column in select.find_all(exp.Column):
        if not column.table and column.name.lower() in by_name:
            return (
                f"{column.name} reads a field of an UNNEST without a name from a nested "
                f"query: name the UNNEST (AS x) and read x.{column.name}"
            )
    alias.set("columns", [exp.to_identifier(value_name, quoted=True)])
    return ""


def _written(column: exp.Column) -> bool:
    """Whether the query's text names ``column`` (qualification's star expansion writes
    columns of its own, with no position)."""
    return any("start" in n.meta for n in column.walk())


def _row_fields(kind: exp.DataType) -> dict[str, exp.DataType]:
    if not kind.is_type(exp.DType.STRUCT):
        return {}
    return {
        f.name: f.args["kind"]
        for f in kind.expressions
        if isinstance(f, exp.ColumnDef) and isinstance(f.args.get("kind"), exp.DataType)
    }


# The range and value names of the query an IN UNNEST(a) becomes.
IN_RANGE, IN_VALUE = "_unnest", "_element"


def _in_unnest(predicate: exp.In, node: exp.Unnest, kind: exp.DataType, ctx: Context) -> exp.Expr:
    """x IN UNNEST(a) -> x IN (SELECT v FROM UNNEST(a) AS r(v)): TRUE on a match, NULL
    when there is none and x or an element is NULL, FALSE otherwise; an empty or NULL
    array gives no rows, so FALSE, as in BigQuery."""
    taken = {t.alias_or_name for t in node.root().find_all(exp.Table, exp.Unnest)}
    taken |= {a.name for a in node.root().find_all(exp.TableAlias)}
    range_name = IN_RANGE
    while range_name in taken:
        range_name += "_"
    node.set(
        "alias",
        exp.TableAlias(
            this=exp.to_identifier(range_name, quoted=True),
            columns=[exp.to_identifier(IN_VALUE, quoted=True)],
        ),
    )
    node.set("offset", None)
    value = exp.column(IN_VALUE, table=range_name, quoted=True)
    value.type = _element_type(kind).copy()
    predicate.set("unnest", None)
    query = exp.select(exp.alias_(value, IN_VALUE, quoted=True)).from_(node.pop(), copy=False)
    predicate.set("query", exp.Subquery(this=query))
    ctx.scopes = None  # a query was written
    return node


@rule(
    "ARRAY-ELEMENT",
    "rewrite",
    ("bigquery",),
    (exp.Bracket,),
    "`a[OFFSET(i)]` and `a[i]` count from 0 and are `a[i + 1]` (S091, counting from 1); "
    "`a[ORDINAL(i)]` is `a[i]`. Out of range, both are an error, in BigQuery and in the "
    "standard (sql/render.py keeps the error on each engine). `SAFE_OFFSET(i)` and "
    "`SAFE_ORDINAL(i)` are NULL out of range: `CASE WHEN i + 1 BETWEEN 1 AND CARDINALITY(a) "
    "THEN a[i + 1] END`. Subscripts of values not known to be arrays (JSON, structs) or with "
    "a non-integer index are refused.",
    (
        (
            "bigquery",
            "SELECT [o_orderkey, o_custkey][SAFE_OFFSET(1)] AS k FROM sales.orders",
            'SELECT CASE WHEN 2 BETWEEN 1 AND CARDINALITY(ARRAY["orders"."o_orderkey", '
            '"orders"."o_custkey"]) THEN ARRAY["orders"."o_orderkey", "orders"."o_custkey"][2] '
            'END AS "k" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def element(node: exp.Bracket, ctx: Context) -> exp.Expr | None:
    kind = array_type(node.this)
    if kind is None:
        return _refuse(
            ctx, "ARRAY-ELEMENT", node, "a subscript of a value not known to be an array"
        )
    if len(node.expressions) != 1:
        return _refuse(ctx, "ARRAY-ELEMENT", node, "a subscript takes one index")
    index = node.expressions[0]
    index_type = index.type.this if isinstance(index.type, exp.DataType) else None
    if not (isinstance(index, exp.Literal) and index.is_int) and index_type not in INTEGER_TYPES:
        return _refuse(ctx, "ARRAY-ELEMENT", index, "an array index must be an integer")
    offset = node.args.get("offset") or 0
    position = _plus(clone(index), 1 - offset)
    value = exp.Bracket(this=clone(node.this), expressions=[position], offset=1)
    value.type = _element_type(kind).copy()
    if not node.args.get("safe"):
        return value
    in_range = exp.Between(
        this=clone(position), low=lit(1), high=exp.ArraySize(this=clone(node.this))
    )
    safe = exp.Case(ifs=[exp.If(this=in_range, true=value)])
    safe.type = _element_type(kind).copy()
    return safe


@rule(
    "ARRAY-CARDINALITY",
    "rewrite",
    ("bigquery",),
    (exp.ArraySize,),
    "`ARRAY_LENGTH(a)` is `CARDINALITY(a)` (S091-03): the number of elements, NULL for a "
    "NULL array in both. Of a value not known to be an array it is refused.",
    (
        (
            "bigquery",
            "SELECT ARRAY_LENGTH([o_orderkey]) AS n FROM sales.orders",
            'SELECT CAST(CARDINALITY(ARRAY["orders"."o_orderkey"]) AS BIGINT) AS "n" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
)
def cardinality(node: exp.ArraySize, ctx: Context) -> exp.Expr | None:
    if array_type(node.this) is None:
        return _refuse(
            ctx, "ARRAY-CARDINALITY", node, "ARRAY_LENGTH of a value not known to be an array"
        )
    if node.args.get("expression") is not None:
        return _refuse(ctx, "ARRAY-CARDINALITY", node, "ARRAY_LENGTH takes one argument")
    node.type = exp.DataType.build("BIGINT")
    return node


@rule(
    "ARRAY-CONSTRUCTOR",
    "rewrite",
    ("bigquery",),
    (exp.Array,),
    "`[v, ...]` is `ARRAY[v, ...]` (S091) when every element has one and the same type; "
    "BigQuery coerces mixed elements (INT64 with FLOAT64) to a supertype the standard "
    "does not choose alike, and an empty `[]` has no element type: both are refused.",
    (
        (
            "bigquery",
            "SELECT ARRAY_LENGTH([o_orderkey, o_custkey]) AS n FROM sales.orders",
            'SELECT CAST(CARDINALITY(ARRAY["orders"."o_orderkey", "orders"."o_custkey"]) AS '
            'BIGINT) AS "n" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def constructor(node: exp.Array, ctx: Context) -> exp.Expr | None:
    if in_array_literal(node) is not None:
        return None  # FN-IN-UNNEST
    elements = node.expressions
    kinds = {e.type.sql() if isinstance(e.type, exp.DataType) else None for e in elements}
    if not elements:
        return _refuse(ctx, "ARRAY-CONSTRUCTOR", node, "an empty array literal has no element type")
    known = all(
        isinstance(e.type, exp.DataType) and not e.type.is_type(exp.DType.UNKNOWN, exp.DType.NULL)
        for e in elements
    )
    if not known or len(kinds) != 1:
        return _refuse(
            ctx,
            "ARRAY-CONSTRUCTOR",
            node,
            "an array literal is translated when its elements have one and the same type",
        )
    node.type = exp.DataType(
        this=exp.DType.ARRAY, expressions=[elements[0].type.copy()], nested=True
    )
    return node


def _one_element_type(elements: list[exp.Expr]) -> exp.DataType | None:
    """The type every element of ``elements`` has (a NULL literal takes it), or None when
    they have none in common or one is unknown."""
    kinds = {
        e.type.sql(): e.type
        for e in elements
        if not isinstance(e, exp.Null) and isinstance(e.type, exp.DataType)
    }
    typed_elements = [e for e in elements if not isinstance(e, exp.Null)]
    known = all(
        isinstance(e.type, exp.DataType) and not e.type.is_type(exp.DType.UNKNOWN, exp.DType.NULL)
        for e in typed_elements
    )
    if not typed_elements or not known or len(kinds) != 1:
        return None
    return next(iter(kinds.values()))


@rule(
    "ARRAY-CONSTRUCT",
    "rewrite",
    ("snowflake",),
    (exp.Array,),
    "Snowflake's `ARRAY_SIZE(ARRAY_CONSTRUCT(v, ...))` is `CARDINALITY(ARRAY[v, ...])` "
    "(S091, S091-03) when every element has one and the same type (a NULL is an element of "
    "that type): Snowflake's array of N arguments has N elements, NULLs included, as the "
    "standard's has. Elsewhere an ARRAY_CONSTRUCT stays refused (ARRAY-AGG): its elements "
    "are VARIANTs, so an element read by a subscript, FLATTEN's VALUE or the array as an "
    "output column has no typed ANSI form, and an empty or mixed one has no element type.",
    (
        (
            "snowflake",
            "SELECT ARRAY_SIZE(ARRAY_CONSTRUCT(o_orderkey, o_custkey, NULL)) AS n "
            "FROM SALES.ORDERS",
            'SELECT CAST(CARDINALITY(ARRAY["orders"."o_orderkey", "orders"."o_custkey", '
            'CAST(NULL AS BIGINT)]) AS BIGINT) AS "n" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def snowflake_constructor(node: exp.Array, ctx: Context) -> exp.Expr | None:
    consumer = node.parent
    if not (
        isinstance(consumer, exp.ArraySize)
        and consumer.this is node
        and consumer.args.get("expression") is None
    ):
        return None  # ARRAY-AGG refuses it
    kind = _one_element_type(node.expressions)
    if kind is None:
        ctx.report(
            "error",
            "ARRAY-AGG",
            node,
            "an ARRAY_CONSTRUCT is translated (under ARRAY_SIZE) when its elements have one "
            "and the same type; an empty one or one of mixed types has no ANSI element type",
        )
        return node
    for element in node.expressions:
        if isinstance(element, exp.Null):
            element.replace(typed(exp.Cast(this=exp.Null(), to=kind.copy()), kind.sql()))
    node.type = exp.DataType(this=exp.DType.ARRAY, expressions=[kind.copy()], nested=True)
    return node


def _holds_array(kind: exp.DataType | None) -> bool:
    if not isinstance(kind, exp.DataType):
        return False
    if kind.is_type(exp.DType.ARRAY):
        return True
    return any(
        _holds_array(f.args.get("kind") if isinstance(f, exp.ColumnDef) else f)
        for f in kind.expressions
        if isinstance(f, (exp.ColumnDef, exp.DataType))
    )


@rule(
    "ARRAY-OUTPUT",
    "refuse",
    ("bigquery",),
    # No node types: it needs the final query's output list, so sql/translate.py runs it
    # once, after every other rule.
    (),
    "An output column that is (or holds) an array is refused: BigQuery writes a NULL array "
    "into its results as an empty one and fails on an array with a NULL element, where the "
    "standard keeps both. Arrays inside the query (UNNEST, subscripts, CARDINALITY) are "
    "translated; unnest or index them before they leave it.",
    (("bigquery", "SELECT [o_orderkey] AS ks FROM sales.orders", "1:9"),),
)
def array_outputs(tree: exp.Expr, ctx: Context) -> exp.Expr:
    """Refuse each output column of the final query whose type holds an array."""
    for select in branches(tree):
        for projection in select.expressions:
            if _holds_array(projection.unalias().type) or _holds_array(projection.type):
                ctx.report(
                    "error",
                    "ARRAY-OUTPUT",
                    projection,
                    f"output column {projection.alias_or_name} holds an array: BigQuery "
                    "writes a NULL array as an empty one and fails on a NULL element; unnest "
                    "or index it in the query",
                )
    return tree


@rule(
    "ARRAY-AGG-ELEMENT",
    "rewrite",
    ("bigquery",),
    (exp.ArrayAgg,),
    "`ARRAY_AGG(x [ORDER BY k ...])` read through a subscript or ARRAY_LENGTH is the "
    "standard's `ARRAY_AGG(x ORDER BY k ...)` (S098): both keep NULL elements inside a query "
    "and are NULL over no rows (BigQuery fails only on a NULL element in its final results, "
    "see ARRAY-OUTPUT). `LIMIT n` is dropped under a literal subscript below n, where it "
    "cannot change the element; `IGNORE NULLS` is `FILTER (WHERE x IS NOT NULL)` under a "
    "SAFE_ subscript, where an empty array and a NULL one read alike. DISTINCT, a window, "
    "and any other use are refused.",
    (
        (
            "bigquery",
            "SELECT o_custkey, ARRAY_AGG(o_orderkey ORDER BY o_totalprice DESC LIMIT 1)"
            "[OFFSET(0)] AS top FROM sales.orders GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", ARRAY_AGG("orders"."o_orderkey" '
            'ORDER BY "orders"."o_totalprice" DESC NULLS LAST)[1] AS "top" FROM "raw"."orders" '
            'AS "orders" GROUP BY "orders"."o_custkey"',
        ),
    ),
)
def array_agg(node: exp.ArrayAgg, ctx: Context) -> exp.Expr | None:
    ignore_nulls = isinstance(node.parent, exp.IgnoreNulls)
    outer = node.parent if ignore_nulls else node
    consumer = outer.parent
    if isinstance(consumer, exp.Window) or isinstance(node.parent, exp.RespectNulls):
        return _refuse(
            ctx,
            "ARRAY-AGG-ELEMENT",
            node,
            "ARRAY_AGG as a window or RESPECT NULLS is not translated",
        )
    body = node.this
    limit: int | None = None
    if isinstance(body, exp.Limit):
        count = body.expression
        if not (isinstance(count, exp.Literal) and count.is_int):
            return _refuse(ctx, "ARRAY-AGG-ELEMENT", body, "ARRAY_AGG's LIMIT must be a literal")
        limit, body = int(count.name), body.this
    order = body if isinstance(body, exp.Order) else None
    value = order.this if order is not None else body
    if isinstance(value, exp.Distinct) or value is None:
        return _refuse(
            ctx, "ARRAY-AGG-ELEMENT", node, "ARRAY_AGG(DISTINCT ...) has no standard form"
        )
    subscript = consumer if isinstance(consumer, exp.Bracket) and consumer.this is outer else None
    position = _literal_position(subscript) if subscript is not None else None
    safe = subscript is not None and bool(subscript.args.get("safe"))
    if subscript is None and not isinstance(consumer, exp.ArraySize):
        return _refuse(
            ctx,
            "ARRAY-AGG-ELEMENT",
            node,
            "ARRAY_AGG is translated under a subscript or ARRAY_LENGTH only (an array output "
            "column has no exact form: ARRAY-OUTPUT)",
        )
    if limit is not None and (position is None or not 0 <= position < limit):
        return _refuse(
            ctx,
            "ARRAY-AGG-ELEMENT",
            node,
            "ARRAY_AGG's LIMIT is translated under a literal subscript below the limit only",
        )
    if ignore_nulls and not safe:
        return _refuse(
            ctx,
            "ARRAY-AGG-ELEMENT",
            node,
            "ARRAY_AGG(... IGNORE NULLS) is translated under SAFE_OFFSET / SAFE_ORDINAL only",
        )
    element = value.type.copy() if isinstance(value.type, exp.DataType) else None
    if element is None or element.is_type(exp.DType.UNKNOWN, exp.DType.NULL):
        return _refuse(ctx, "ARRAY-AGG-ELEMENT", node, "ARRAY_AGG of a value of unknown type")
    inner: exp.Expr = clone(value)
    if order is not None:
        inner = exp.Order(this=inner, expressions=[clone(o) for o in order.expressions])
    aggregate: exp.Expr = exp.ArrayAgg(this=inner)
    if ignore_nulls:
        present = exp.Not(this=exp.Is(this=clone(value), expression=exp.Null()))
        aggregate = exp.Filter(this=aggregate, expression=exp.Where(this=present))
    aggregate.type = exp.DataType(this=exp.DType.ARRAY, expressions=[element], nested=True)
    if ignore_nulls:
        outer.replace(aggregate)  # the IGNORE NULLS wrapper goes with it
        return aggregate
    return aggregate


def _literal_position(subscript: exp.Bracket) -> int | None:
    """The 0-based position a subscript with a literal index reads, or None."""
    (index,) = subscript.expressions or (None,)
    value = integer_literal(index)
    return None if value is None else value - (subscript.args.get("offset") or 0)


def _struct_field(struct: exp.Struct, name: str) -> exp.Expr | None:
    """The expression of the one field of ``STRUCT(...)`` named ``name`` (BigQuery's names
    are case-insensitive: an alias, else a column's name), or None."""
    found = []
    for field in struct.expressions:
        if isinstance(field, exp.PropertyEQ):
            named, value = field.this.name, field.expression
        elif isinstance(field, exp.Alias):
            named, value = field.alias, field.this
        elif isinstance(field, exp.Column):
            named, value = field.name, field
        else:
            continue  # an unnamed field: no name reaches it
        if named.lower() == name.lower():
            found.append(value)
    return found[0] if len(found) == 1 else None


@rule(
    "ARRAY-AGG-FIELD",
    "rewrite",
    ("bigquery",),
    (exp.Dot,),
    "`ARRAY_AGG(STRUCT(a, b) ORDER BY k [LIMIT n])[OFFSET(i)].a` reads one field of one "
    "element: it is `ARRAY_AGG(a ORDER BY k [LIMIT n])[OFFSET(i)]`, the same row's field, "
    "which ARRAY-AGG-ELEMENT then translates (no STRUCT value is built). A field that no "
    "STRUCT name reaches once, and IGNORE NULLS (which keeps every STRUCT but would drop a "
    "NULL field), are left to the refusals.",
    (
        (
            "bigquery",
            "SELECT o_custkey, ARRAY_AGG(STRUCT(o_orderkey, o_totalprice AS price) ORDER BY "
            "o_orderdate DESC LIMIT 1)[OFFSET(0)].price AS last_price FROM sales.orders "
            "GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", ARRAY_AGG("orders"."o_totalprice" '
            'ORDER BY "orders"."o_orderdate" DESC NULLS LAST)[1] AS "last_price" FROM '
            '"raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
        ),
    ),
    phase="syntax",
)
def array_agg_field(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    subscript, name = node.this, node.expression
    if not (isinstance(subscript, exp.Bracket) and isinstance(name, exp.Identifier)):
        return None
    aggregate = subscript.this
    if not isinstance(aggregate, exp.ArrayAgg):
        return None  # IGNORE / RESPECT NULLS wrap it: not here
    holder: exp.Expr = aggregate
    while isinstance(holder.this, (exp.Limit, exp.Order)):
        holder = holder.this
    struct = holder.this
    if not isinstance(struct, exp.Struct):
        return None
    value = _struct_field(struct, name.name)
    if value is None:
        return None
    rewritten = clone(subscript)
    inner: exp.Expr = rewritten.this
    while isinstance(inner.this, (exp.Limit, exp.Order)):
        inner = inner.this
    inner.set("this", clone(value))
    return rewritten


# What a field of a BigQuery STRUCT may be given, in the typed syntax STRUCT<f T>(v): a
# value of the field's type, or an integer of a narrower integer type (a literal is an INT).
_INTEGER_WIDTHS = {
    exp.DType.TINYINT: 1,
    exp.DType.SMALLINT: 2,
    exp.DType.INT: 4,
    exp.DType.BIGINT: 8,
}


def _fits(value: exp.DataType, field: exp.DataType) -> bool:
    text = (exp.DType.VARCHAR, exp.DType.TEXT)  # BigQuery's STRING, without a length
    if value == field or (
        value.this in text and field.this in text and not value.expressions + field.expressions
    ):
        return True
    low, high = _INTEGER_WIDTHS.get(value.this), _INTEGER_WIDTHS.get(field.this)
    return low is not None and high is not None and low <= high


def _field_name(field: exp.Expr) -> tuple[str | None, exp.Expr]:
    """The name BigQuery gives a field of STRUCT(...) (an alias, else a column's name), and
    its value; no name for any other unaliased expression (an anonymous field)."""
    if isinstance(field, exp.PropertyEQ):
        return field.this.name, field.expression
    if isinstance(field, exp.Alias):
        return field.alias, field.this
    if isinstance(field, exp.Column):
        return field.name, field
    return None, field


def _field_type(kind: exp.DataType) -> exp.DataType:
    """A STRUCT field's type as BigQuery has it: every integer is an INT64 (a literal 1 too)."""
    if kind.this in INTEGER_TYPES:
        return exp.DataType.build("BIGINT")
    return kind.copy()


def _known(kind: exp.DataType | None) -> bool:
    return isinstance(kind, exp.DataType) and not kind.is_type(
        exp.DType.UNKNOWN, exp.DType.NULL, exp.DType.USERDEFINED
    )


@rule(
    "ROW-CONSTRUCTOR",
    "rewrite",
    ("bigquery",),
    (exp.Struct,),
    "BigQuery's `STRUCT(a AS f, b, ...)` is the standard's `CAST(ROW(a, b, ...) AS ROW(f T, "
    "b U, ...))` (T051): a row value whose fields are named as BigQuery names them (the "
    "alias, else the column's name) and typed as their values are. The typed syntax "
    "`STRUCT<f T, ...>(a, ...)` is `CAST(ROW(a, ...) AS ROW(f T, ...))` when each value has "
    "its field's type or a narrower integer type. An integer field is a BIGINT (INT64). A "
    "field without a name (an expression without AS), two fields of one name, a value of "
    "unknown type, a computed NUMERIC (whose precision the engines choose differently; a "
    "column or a CAST is translated), and a typed field given "
    "a value of another type (BigQuery's coercions) are refused.",
    (
        (
            "bigquery",
            "SELECT STRUCT(o_orderkey, o_totalprice AS price) AS o FROM sales.orders",
            'SELECT CAST(ROW("orders"."o_orderkey", "orders"."o_totalprice") AS ROW('
            '"o_orderkey" BIGINT, "price" DECIMAL(15, 2))) AS "o" FROM "raw"."orders" AS '
            '"orders"',
        ),
    ),
)
def row_constructor(node: exp.Struct, ctx: Context) -> exp.Expr | None:
    cast = node.parent
    declared = cast.to if isinstance(cast, exp.Cast) and cast.this is node else None
    if declared is not None and declared.is_type(exp.DType.STRUCT):
        fields = declared.expressions
        if len(fields) != len(node.expressions):
            return _refuse(ctx, "ROW-CONSTRUCTOR", node, "a STRUCT<...> of another field count")
        for field, value in zip(fields, node.expressions, strict=True):
            kind = field.args.get("kind") if isinstance(field, exp.ColumnDef) else None
            if not (
                _known(value.type) and isinstance(kind, exp.DataType) and _fits(value.type, kind)
            ):
                return _refuse(
                    ctx,
                    "ROW-CONSTRUCTOR",
                    value,
                    f"a value of type {value.type.sql() if _known(value.type) else 'unknown'} "
                    f"for the STRUCT field {field.name} of type "
                    f"{kind.sql() if kind else 'unknown'}: BigQuery's coercion is not the "
                    "standard's CAST; cast the value to the field's type",
                )
        row = RowValue(expressions=[clone(v) for v in node.expressions])
        row.type = declared.copy()
        return row
    names: list[str] = []
    values: list[exp.Expr] = []
    for field in node.expressions:
        name, value = _field_name(field)
        if name is None:
            return _refuse(
                ctx,
                "ROW-CONSTRUCTOR",
                field,
                "a STRUCT field without a name (BigQuery's anonymous field) has no standard "
                "form: name it with AS",
            )
        if name.lower() in (n.lower() for n in names):
            return _refuse(ctx, "ROW-CONSTRUCTOR", field, f"a second STRUCT field named {name}")
        if not _known(value.type):
            return _refuse(
                ctx,
                "ROW-CONSTRUCTOR",
                field,
                f"the STRUCT field {name} has no known type: CAST it to the field's type",
            )
        if value.type.is_type(exp.DType.DECIMAL) and not isinstance(value, (exp.Column, exp.Cast)):
            return _refuse(
                ctx,
                "ROW-CONSTRUCTOR",
                field,
                f"the STRUCT field {name} is a computed NUMERIC, whose precision and scale the "
                "engines choose differently: CAST it to the type it should have",
            )
        names.append(name)
        values.append(value)
    kind = exp.DataType(
        this=exp.DType.STRUCT,
        expressions=[
            exp.ColumnDef(this=exp.to_identifier(n, quoted=True), kind=_field_type(v.type))
            for n, v in zip(names, values, strict=True)
        ],
        nested=True,
    )
    row = RowValue(expressions=[clone(v) for v in values])
    result = exp.Cast(this=row, to=kind)
    result.type = kind.copy()
    return result


# The range and columns of the elements ARRAY_TO_STRING reads (its own subquery's names).
_ELEMENTS, _VALUE, _ORDINAL = "_array_to_string", "v", "o"


def _element(name: str) -> exp.Column:
    return exp.column(name, table=_ELEMENTS, quoted=True)


@rule(
    "FN-ARRAY-TO-STRING",
    "rewrite",
    ("bigquery",),
    (exp.ArrayToString,),
    "BigQuery's ARRAY_TO_STRING(a, d [, null_text]) of an ARRAY<STRING>, with d and null_text "
    "string literals, is the standard's LISTAGG of the elements in their order (S091, T625) "
    "in a subquery over UNNEST(a) WITH ORDINALITY: '' for an empty array (COALESCE), NULL for "
    "a NULL one (a CASE), each NULL element null_text when it is given. Without null_text "
    "BigQuery documents that a NULL element is left out with the delimiter before it; LISTAGG "
    "leaves NULLs out too, and the two agree except where the first element is NULL and a "
    "later one is not (the next element's delimiter has no NULL after it to go with): there "
    "the query stops (a guard). BYTES arrays, a delimiter or null_text that is not a string "
    "literal are refused.",
    (
        (
            "bigquery",
            "SELECT ARRAY_TO_STRING(tags, ', ') AS t FROM `acme-dw.web.pages`",
            'SELECT CASE WHEN "pages"."tags" IS NULL THEN NULL ELSE (SELECT CASE WHEN '
            'MIN(CASE WHEN NOT "_array_to_string"."v" IS NULL THEN "_array_to_string"."o" END) '
            "> 1 THEN RAISE_ERROR('FN-ARRAY-TO-STRING: BigQuery does not document the delimiter "
            'after a leading NULL element\') ELSE COALESCE(LISTAGG("_array_to_string"."v", '
            "', ') WITHIN GROUP (ORDER BY \"_array_to_string\".\"o\" ASC NULLS LAST), '') END FROM "
            'UNNEST("pages"."tags") WITH ORDINALITY AS "_array_to_string"("v", "o")) END AS "t" '
            'FROM "raw"."pages" AS "pages"',
        ),
    ),
)
def array_to_string(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    array, delimiter, null_text = node.this, node.expression, node.args.get("null")
    kind = array_type(array)
    if kind is None or _element_type(kind).this not in STRING_TYPES:
        what = "an ARRAY<STRING>" if kind is None else f"an array of {_element_type(kind).sql()}"
        return _refuse(
            ctx,
            "FN-ARRAY-TO-STRING",
            node,
            f"ARRAY_TO_STRING is translated for an ARRAY<STRING>, not {what}"
            if kind is not None
            else "ARRAY_TO_STRING of a value not known to be an ARRAY<STRING> (declare its type)",
        )
    for argument, name in ((delimiter, "delimiter"), (null_text, "null_text")):
        if argument is not None and not (isinstance(argument, exp.Literal) and argument.is_string):
            return _refuse(
                ctx,
                "FN-ARRAY-TO-STRING",
                argument,
                f"ARRAY_TO_STRING's {name} is translated as a string literal (LISTAGG's "
                "separator is one)",
            )
    value: exp.Expr = _element(_VALUE)
    if null_text is not None:
        value = exp.Coalesce(this=value, expressions=[clone(null_text)])
    ordered = exp.Order(this=value, expressions=[exp.Ordered(this=_element(_ORDINAL))])
    joined = exp.Coalesce(
        this=exp.GroupConcat(this=ordered, separator=clone(delimiter)), expressions=[lit("")]
    )
    if null_text is None:
        first_present = exp.Min(
            this=exp.Case(
                ifs=[
                    exp.If(
                        this=exp.Not(this=exp.Is(this=_element(_VALUE), expression=exp.Null())),
                        true=_element(_ORDINAL),
                    )
                ]
            )
        )
        joined = guarded(
            joined,
            exp.GT(this=first_present, expression=lit(1)),
            "FN-ARRAY-TO-STRING",
            "BigQuery does not document the delimiter after a leading NULL element",
            node,
        )
    elements = exp.Unnest(
        expressions=[clone(array)],
        alias=exp.TableAlias(
            this=exp.to_identifier(_ELEMENTS, quoted=True),
            columns=[exp.to_identifier(_VALUE, quoted=True)],
        ),
        offset=exp.to_identifier(_ORDINAL, quoted=True),
    )
    subquery = exp.Subquery(this=exp.select(joined).from_(elements))
    return exp.Case(
        ifs=[exp.If(this=exp.Is(this=clone(array), expression=exp.Null()), true=exp.Null())],
        default=subquery,
    )


@rule(
    "ROW-STAR",
    "refuse",
    ("bigquery",),
    (exp.Dot,),
    "`expr.*` over an expression that reads a table alias as a value (`IF(c, t1, t2).* "
    "REPLACE (...)`, where BigQuery reads each alias as a STRUCT of its row) is refused: "
    "which columns it gives depends on the STRUCT's type, which such an expression does not "
    "declare here; "
    "name the columns (CASE WHEN c THEN t1.a ELSE t2.a END AS a, ...). A STRUCT column's "
    "`s.*` is read through the column's declared type.",
    (
        (
            "bigquery",
            "SELECT IF(o.o_orderkey > 0, o, o).* FROM sales.orders AS o",
            "1:11",
        ),
    ),
    phase="syntax",
)
def row_star(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not isinstance(node.expression, exp.Star) or isinstance(node.this, (exp.Column, exp.Dot)):
        return None
    select = node.find_ancestor(exp.Select)
    if select is None:
        return None
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or ()]
    aliases = {source.alias_or_name.lower() for source in sources}
    rows = [
        column
        for column in node.this.find_all(exp.Column)
        if not column.table and column.name.lower() in aliases
    ]
    if not rows:
        return None  # a STRUCT value of a declared type: sqlglot expands its `.*`
    ctx.report(
        "error",
        "ROW-STAR",
        node.this,
        f"`.*` over {node.this.key.upper()}(...) expands the STRUCT it gives (BigQuery reads a "
        "table alias as a STRUCT of its row), whose fields are not declared here; name the "
        "columns instead",
    )
    return node
