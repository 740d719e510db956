"""Snowflake's VARIANT paths and FLATTEN as the standard's SQL/JSON (T821, T825, T831-T835).

A VARIANT (or OBJECT, ARRAY) column reaches the lake as its JSON text, as Snowflake unloads
it to Parquet; the catalog keeps its declared type (opaque). The standard reads JSON text
with SQL/JSON paths, written here in strict mode (sql/jsonpath.py): Snowflake's paths are
structural too, a key of an array or an index of an object is simply missing.

- ``v:a.b::string``, ``v['a'][0]::varchar``, ``CAST(v:a AS TEXT)`` (keys exactly as written,
  case and all): Snowflake gives the string for a JSON string, NULL for a JSON null or a
  missing item, and for anything else its own text of the value (numbers as it prints
  them, objects serialized). The standard has the first two exactly::

      CASE WHEN JSON_EXISTS(v, 'strict $."a"."b" ? (@.type() <> "null")')
           THEN JSON_VALUE(v, 'strict $."a"."b" ? (@.type() == "string")'
                           RETURNING VARCHAR ERROR ON EMPTY ERROR ON ERROR) END

  and fails on the rest (a number, a boolean, an object) rather than print it otherwise.
- ``LATERAL FLATTEN(input => v:items) AS f`` over an array: one row per element, ``f.index``
  counting from 0, ``f.value`` the element. The standard's JSON_TABLE does this, its
  ordinality counting from 1; ``f.value`` is carried as the element's JSON text in an array
  wrapper (JSON text of a scalar needs one), so paths into it start at ``$[0]``. A NULL or
  missing input, a scalar or a JSON null (Snowflake's "wrong kind of compound", a zero-row
  expansion) gives no rows in both; FLATTEN of an object (one row per key) is not
  translated: JSON_TABLE raises on it (ERROR ON ERROR).

- Where Snowflake compares a VARIANT as a value (GROUP BY, PARTITION BY, ``=`` / ``<>`` with
  a string or another VARIANT), a path is its *strict* string form: no item is NULL, a string
  is itself, a JSON null (a value of its own there, not NULL) or any other item raises.
- ``LATERAL FLATTEN(input => SPLIT(s, ','))`` and ``LATERAL SPLIT_TO_TABLE(s, ',')`` are the
  standard's ``UNNEST(SPLIT(s, ',')) WITH ORDINALITY`` over the portable SPLIT, and FLATTEN
  of an ARRAY_AGG of strings ``UNNEST`` of the standard's ARRAY_AGG
  (sql/rules/aggregated_arrays.py).
- A path (or MIN / MAX / ANY_VALUE of one) that is an output column of a CTE or derived
  table no query reads is NULL, with a warning: Snowflake never fails on it and nothing
  sees it.

Refused, naming the construct: a path used other than cast to a string, a number or a
BOOLEAN or compared as above (compared with a number, output as a VARIANT, cast to a date),
FLATTEN's PATH/OUTER/RECURSIVE/MODE arguments and its SEQ/KEY/PATH/THIS columns, and a
subscript of a value that is not a VARIANT.
"""

from __future__ import annotations

from sqlglot import exp

from sql.ansi import JsonExists, JsonTable, JsonValue
from sql.catalog import OPAQUE_PREFIX, is_opaque
from sql.jsonpath import JsonPath, Step
from sql.portable import PortableSplit
from sql.rules.base import Context, rule
from sql.rules.build import clone, lit
from sql.rules.portable_types import branches
from sql.tree import range_source

# Declared Snowflake types whose values are JSON text in the lake.
JSON_TYPES = frozenset({"variant", "object", "array"})
ACCESSES = (exp.JSONExtract, exp.Bracket, exp.Dot, exp.GetExtract)
STRING_TYPES = (exp.DType.VARCHAR, exp.DType.TEXT, exp.DType.NVARCHAR)
# Snowflake's FLOAT, DOUBLE, REAL ... are all 64-bit.
FLOAT_TYPES = (exp.DType.DOUBLE, exp.DType.FLOAT)
BOOLEAN_TYPES = (exp.DType.BOOLEAN,)
# Exact numeric casts: a JSON integer returned as the type (the engines read no other number
# exactly; sql/render.py raises on a fraction, which Snowflake would round).
EXACT_TYPES = (exp.DType.DECIMAL, exp.DType.BIGINT, exp.DType.INT, exp.DType.SMALLINT)
# FLATTEN's output columns; index and value are translated.
FLATTEN_COLUMNS = ("seq", "key", "path", "index", "value", "this")
# SPLIT_TO_TABLE's, as the FLATTEN of a SPLIT it is written as (meta key of that FLATTEN)
SPLIT_TO_TABLE_COLUMNS = ("seq", "index", "value")
SPLIT_TO_TABLE = "split_to_table"
# meta key of the ANSI ARRAY_AGG that sql/rules/aggregated_arrays.py wrote for a Snowflake
# one whose elements only FLATTEN reads
AGGREGATED_ARRAY = "aggregated_array"
# What it holds: every value that is not NULL, or (ARRAY_AGG(DISTINCT s)) each once, sorted
ALL_ELEMENTS, DISTINCT_ELEMENTS = "all", "distinct"


class Refusal(Exception):
    def __init__(self, node: exp.Expr, message: str) -> None:
        super().__init__(message)
        self.node = node


def is_json_text(kind: exp.DataType | None) -> bool:
    """Whether a column of this annotated type holds JSON text (a Snowflake VARIANT,
    OBJECT or ARRAY, kept opaque by the catalog)."""
    return is_opaque(kind) and kind.sql().lower().removeprefix(OPAQUE_PREFIX) in JSON_TYPES


def _flatten_range(column: exp.Column) -> exp.Expr | None:
    """The FLATTEN (or the JSON_TABLE it became) that ``column`` reads, or None."""
    source = range_source(column)
    if isinstance(source, exp.Lateral) and isinstance(source.this, exp.Explode):
        argument = source.this.this
        if isinstance(argument, exp.Kwarg):
            argument = argument.expression
        if isinstance(argument, exp.Split) or aggregated_array(argument):
            return None  # elements: VARCHAR
        return source
    if isinstance(source, exp.Table) and isinstance(source.this, JsonTable):
        return source
    return None


# Aggregate and window functions that return one of their input values unchanged: of a
# VARIANT column, the same JSON text.
VALUE_PICKERS = (exp.AnyValue, exp.FirstValue, exp.LastValue)


def picked(node: exp.Expr) -> exp.Expr:
    """The value ``node`` returns unchanged: the argument of ANY_VALUE, FIRST_VALUE or
    LAST_VALUE (with or without its OVER clause), else ``node`` itself."""
    while isinstance(node, (exp.Window, *VALUE_PICKERS)) and node.this is not None:
        node = node.this
    return node


def _derived_json(column: exp.Column, depth: int = 0) -> bool:
    """Whether a column of a CTE or subquery is a VARIANT column in every branch of it
    (type annotation keeps the opaque type through one SELECT, not through UNION ALL),
    itself or picked by ANY_VALUE / FIRST_VALUE / LAST_VALUE."""
    projections = derived_projections(column) if depth <= 16 else None
    return bool(projections) and all(
        isinstance(v := picked(p), exp.Column)
        and (is_json_text(v.type) or _derived_json(v, depth + 1))
        for p in projections
    )


def derived_projections(column: exp.Column) -> list[exp.Expr] | None:
    """What a column of a CTE or subquery is in each branch of its query (a set
    operation's columns are its first branch's, by position); None for a column of a
    lake table or one that cannot be found."""
    query = _derived_query(column)
    selects = branches(query) if query is not None else []
    names = [p.alias_or_name for p in selects[0].expressions] if selects else []
    if names.count(column.name) != 1:
        return None
    position = names.index(column.name)
    if any(len(select.expressions) <= position for select in selects):
        return None
    return [select.expressions[position].unalias() for select in selects]


def _derived_query(column: exp.Column) -> exp.Expr | None:
    """The query of the CTE or subquery ``column`` reads, or None."""
    source = range_source(column)
    if isinstance(source, exp.Subquery):
        return source.this
    if isinstance(source, exp.Table) and not source.db:
        return _cte_query(source, source.name)
    return None


def _cte_query(node: exp.Expr, name: str) -> exp.Expr | None:
    scope: exp.Expr | None = node
    while scope is not None:
        with_ = scope.args.get("with_") if isinstance(scope, exp.Query) else None
        for cte in with_.expressions if with_ is not None else ():
            if cte.alias_or_name == name:
                return cte.this
        scope = scope.parent
    return None


# Aggregates that never fail on a VARIANT in Snowflake and return one of its values: an
# output column of one of them is read exactly where the path is.
UNREAD_WRAPPERS = (exp.Max, exp.Min, exp.AnyValue)


def unread_column(top: exp.Expr) -> str | None:
    """The name of the output column ``top`` is (itself, or under MIN / MAX / ANY_VALUE)
    when that column belongs to a CTE or derived table (a branch of a UNION ALL of one
    included) that no query reads, not even to count its distinct rows; None otherwise.
    Nothing it holds can change the result then, and a path never fails in Snowflake."""
    node = top
    while isinstance(node.parent, UNREAD_WRAPPERS) and node.parent.this is node:
        node = node.parent
    alias = node.parent
    if not isinstance(alias, exp.Alias) or alias.this is not node:
        return None
    select = alias.parent
    if not isinstance(select, exp.Select) or select.args.get("distinct"):
        return None
    position = next(i for i, p in enumerate(select.expressions) if p is alias)
    query: exp.Expr = select
    while isinstance(query.parent, exp.SetOperation):
        if not isinstance(query.parent, exp.Union) or query.parent.args.get("distinct"):
            return None  # UNION, INTERSECT and EXCEPT compare every column
        query = query.parent
    if not isinstance(query.parent, exp.CTE) and holder(select) is None:
        return None  # the statement's own output, or a subquery whose reader is not a name
    first = branches(query)[0] if isinstance(query, exp.SetOperation) else select
    if len(first.expressions) <= position:
        return None
    name = first.expressions[position].alias_or_name
    root = select.root()
    if any(not isinstance(star.parent, exp.Count) for star in root.find_all(exp.Star)):
        return None  # a * qualification did not expand: a reader this cannot see
    if any(j.args.get("using") or j.args.get("method") for j in root.find_all(exp.Join)):
        return None  # USING and NATURAL read columns by name
    for column in root.find_all(exp.Column):
        if column.name != name:
            continue
        if not column.table and column.find_ancestor(exp.Select) is select:
            return None  # its own SELECT reads the alias (ORDER BY, QUALIFY, a later item)
        source = range_source(column)
        if source is query.parent or (
            isinstance(source, exp.Table)
            and not source.db
            and _cte_query(source, source.name) is query
        ):
            return None
    for clause in ("group", "order"):
        keys = select.args.get(clause)
        for key in keys.expressions if keys is not None else ():
            key = key.this if isinstance(key, exp.Ordered) else key
            if isinstance(key, exp.Literal) and key.is_int and int(key.name) == position + 1:
                return None  # read by its position
    return name


def unread_null(top: exp.Expr, name: str, ctx: Context, rule_id: str) -> exp.Expr:
    """A typed NULL for the VARIANT access ``top`` of the unread output column ``name``,
    with a warning that says so."""
    null = exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR"))
    null.type = exp.DataType.build("VARCHAR")
    ctx.report(
        "warning",
        rule_id,
        top,
        f"column {name} holds a VARIANT value that no query reads: written as NULL",
    )
    return null


def _written_name(identifier: exp.Identifier, ctx: Context) -> str:
    """A path key as the source wrote it: name folding lower-cased the identifier, but a
    key of a VARIANT is case-sensitive and keeps its case, quoted or not."""
    start, end = identifier.meta.get("start"), identifier.meta.get("end")
    if start is None or end is None:
        return identifier.name
    text = ctx.text[start : end + 1]
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        return text[1:-1].replace('""', '"')
    return text


def json_access(node: exp.Expr, ctx: Context) -> tuple[exp.Expr, tuple[Step, ...]] | None:
    """(JSON text, path steps) that ``node`` reads: a VARIANT column, FLATTEN's value, or a
    path into one; None when ``node`` is none of these. Raises Refusal for a path step
    that is not a literal key or index."""
    if isinstance(node, exp.Paren) or _variant_cast(node):
        return json_access(node.this, ctx)
    if isinstance(node, exp.Column):
        if is_json_text(node.type) or _derived_json(node):
            return node, ()
        if node.name == "value" and _flatten_range(node) is not None:
            return node, (0,)  # the element, inside its array wrapper
        return None
    if not isinstance(node, ACCESSES):
        return None
    inner = json_access(node.this, ctx)
    if inner is None:
        return None
    base, steps = inner
    if isinstance(node, exp.JSONExtract):
        path = node.expression
        if not isinstance(path, exp.JSONPath):  # v:a.b and GET_PATH(v, 'a.b')
            raise Refusal(node, "a JSON path that is not a VARIANT path")
        added: list[Step] = []
        for part in path.expressions:
            if isinstance(part, exp.JSONPathRoot):
                continue
            key = isinstance(part, exp.JSONPathKey) and isinstance(part.this, str)
            index = isinstance(part, exp.JSONPathSubscript) and isinstance(part.this, int)
            if key or index:
                added.append(part.this)
            else:
                raise Refusal(node, "a VARIANT path step other than a key or an index")
        return base, steps + tuple(added)
    if isinstance(node, exp.Dot):
        if not isinstance(node.expression, exp.Identifier):
            raise Refusal(node, "a VARIANT path step other than a key or an index")
        return base, (*steps, _written_name(node.expression, ctx))
    keys = [node.expression] if isinstance(node, exp.GetExtract) else node.expressions
    (index,) = keys or (None,)
    if len(keys) != 1 or not isinstance(index, exp.Literal):
        raise Refusal(node, "a VARIANT subscript is translated with a literal key or index")
    if index.is_string:
        return base, (*steps, index.name)
    if index.is_int and int(index.name) >= 0:
        return base, (*steps, int(index.name))
    raise Refusal(node, "a VARIANT subscript is translated with a literal key or index")


def aggregated_array(node: exp.Expr, depth: int = 0) -> str | None:
    """What ``node`` holds when it is a Snowflake ARRAY_AGG of strings (or what
    AGGREGATED-ARRAY wrote for one), or a column of a CTE or derived table that is one in
    every branch, passed on as it is through any number of them: DISTINCT_ELEMENTS for
    ARRAY_AGG(DISTINCT s), ALL_ELEMENTS for ARRAY_AGG(s); None otherwise."""
    if depth > 16:
        return None
    written = node.meta.get(AGGREGATED_ARRAY)
    if written:
        return written
    if isinstance(node, exp.WithinGroup):
        node = node.this
    if isinstance(node, exp.ArrayAgg):
        value, kind = node.this, ALL_ELEMENTS
        if isinstance(value, exp.Distinct) and len(value.expressions) == 1:
            value, kind = value.expressions[0], DISTINCT_ELEMENTS
        while isinstance(value, exp.Paren):
            value = value.this
        string = isinstance(value.type, exp.DataType) and value.type.this in STRING_TYPES
        return kind if string else None
    if not isinstance(node, exp.Column):
        return None
    projections = derived_projections(node)
    kinds = {aggregated_array(p, depth + 1) for p in projections or ()}
    return kinds.pop() if len(kinds) == 1 else None


def _variant_cast(node: exp.Expr | None) -> bool:
    """``x::VARIANT``: of a VARIANT it is the same value (of anything else, no path)."""
    return isinstance(node, exp.Cast) and node.to.is_type(exp.DType.VARIANT)


def _top(node: exp.Expr) -> exp.Expr:
    while (
        isinstance(node.parent, (*ACCESSES, exp.Paren)) or _variant_cast(node.parent)
    ) and node.parent.this is node:
        node = node.parent
    return node


def _cast_to(node: exp.Expr | None, types: tuple[exp.DType, ...]) -> bool:
    return (
        isinstance(node, exp.Cast)
        and node.to.this in types
        and not node.to.expressions
        and not node.args.get("format")
    )


def _in_filter(node: exp.Expr) -> bool:
    """Whether ``node`` is a conjunct of a WHERE, ON or HAVING condition, where a NULL and
    a FALSE condition drop the row alike."""
    while isinstance(node.parent, exp.And | exp.Paren):
        node = node.parent
    return isinstance(node.parent, exp.Where | exp.Having) or (
        isinstance(node.parent, exp.Join) and node.parent.args.get("on") is node
    )


def _other_operand(top: exp.Expr) -> exp.Expr | None:
    """The other side of the ``=`` or ``<>`` ``top`` is one side of, or None."""
    parent = top.parent
    if not isinstance(parent, exp.EQ | exp.NEQ):
        return None
    other = parent.expression if parent.this is top else parent.this
    while isinstance(other, exp.Paren):
        other = other.this
    return other


def _is_text(node: exp.Expr) -> bool:
    """A string literal or an expression typed as a string (never a VARIANT null)."""
    if isinstance(node, exp.Literal):
        return node.is_string
    return isinstance(node.type, exp.DataType) and node.type.this in STRING_TYPES


def _string_equality(top: exp.Expr) -> bool:
    """``path = 'text'`` or ``path = s`` of a string-typed ``s`` (either side) as a filter
    conjunct: Snowflake compares a VARIANT string with the text as strings. A JSON null or
    another type of item is not equal, where the string form is NULL or raises: alike
    where NULL and FALSE drop the row."""
    other = _other_operand(top)
    return (
        isinstance(top.parent, exp.EQ)
        and other is not None
        and _is_text(other)
        and _in_filter(top.parent)
    )


def _boolean_equality(top: exp.Expr) -> bool:
    """``path = TRUE`` / ``path = FALSE`` (either side) as a filter conjunct: a JSON true or
    false compares as the BOOLEAN; a JSON null or no item is NULL here where Snowflake may
    say FALSE (both drop the row); any other item raises (Snowflake would convert it)."""
    other = _other_operand(top)
    return (
        isinstance(top.parent, exp.EQ) and isinstance(other, exp.Boolean) and _in_filter(top.parent)
    )


def _variant_operand(node: exp.Expr, depth: int = 0) -> bool:
    """Whether ``node`` is a VARIANT access (a path, FLATTEN's value, a form the rules
    wrote for one, or a CTE or derived column holding one in every branch)."""
    if node.meta.get(FORM_SOURCE) is not None or isinstance(node, ACCESSES):
        return True
    if _variant_coalesce(node):
        return True
    if not isinstance(node, exp.Column) or depth > 8:
        return False
    if node.name == "value" and _flatten_range(node) is not None:
        return True
    projections = derived_projections(node)
    return bool(projections) and all(_variant_operand(p, depth + 1) for p in projections)


def _strict_position(top: exp.Expr) -> bool:
    """Whether ``top`` stands where Snowflake compares the VARIANT as a value: a GROUP BY
    key, a window's PARTITION BY key, an operand of ``=`` / ``<>`` with a string or another
    VARIANT, or an ORDER BY key of a CTE or derived table without LIMIT (an order nobody
    sees). Its strict string form is exact there: for VARIANT strings, equal values are
    equal strings; a JSON null (a value of its own, unlike SQL NULL) or any other item
    raises; no item is NULL, as in Snowflake."""
    parent = top.parent
    if isinstance(parent, exp.Group) or (
        isinstance(parent, exp.Window) and top.arg_key == "partition_by"
    ):
        return True
    other = _other_operand(top)
    if other is not None:
        return _is_text(other) or _variant_operand(other)
    if isinstance(parent, exp.Ordered) and isinstance(parent.parent, exp.Order):
        select = parent.parent.parent
        return (
            isinstance(select, exp.Select)
            and parent.parent.arg_key == "order"
            and not any(select.args.get(k) for k in ("limit", "offset", "fetch"))
            and holder(select) is not None
        )
    return False


def _grouped_alike(top: exp.Expr) -> bool:
    """Whether the SELECT ``top`` belongs to groups by the same access: then ``top`` must be
    written as that GROUP BY key is (its strict form) for the engines to accept it."""
    select = top.find_ancestor(exp.Select)
    group = select.args.get("group") if select is not None else None
    if group is None or isinstance(top.parent, exp.Group):
        return False
    written = top.sql("snowflake")
    return any(
        key.meta.get(FORM_SOURCE, key.sql("snowflake")) == written for key in group.expressions
    )


def _like_subject(top: exp.Expr) -> bool:
    """``path LIKE 'pattern'``: Snowflake casts the VARIANT to VARCHAR for LIKE, the string
    form that ``::string`` gives (a JSON null or no item is NULL; another item raises here,
    where Snowflake would match its own text of it)."""
    parent = top.parent
    pattern = parent.expression if isinstance(parent, exp.Like | exp.ILike) else None
    return (
        isinstance(parent, exp.Like | exp.ILike)
        and parent.this is top
        and isinstance(pattern, exp.Literal)
        and pattern.is_string
    )


# String functions whose first argument Snowflake coerces to VARCHAR: a VARIANT there is
# read as its string form, the ``::string`` cast (a JSON null or no item is NULL; another
# item raises here, where Snowflake would use its own text of it).
STRING_ARGUMENT_FUNCTIONS = (
    exp.Contains,
    exp.Lower,
    exp.RegexpReplace,
    exp.Replace,
    exp.StartsWith,
    exp.Substring,
    exp.Trim,
    exp.Upper,
)


def _string_argument(top: exp.Expr) -> bool:
    parent = top.parent
    return isinstance(parent, STRING_ARGUMENT_FUNCTIONS) and parent.this is top


# How a VARIANT access is read where the rules translate it: its string form (a JSON null
# or no item is NULL), or its strict string form (no item is NULL, a JSON null raises).
LENIENT, STRICT = "string", "strict"
# meta key of a form the rules wrote: the access it replaced, as Snowflake wrote it
FORM_SOURCE = "variant_form_of"


def _as_string(top: exp.Expr, depth: int = 0) -> bool:
    return _reading(top, depth) is not None


def _reading(top: exp.Expr, depth: int = 0) -> str | None:
    """How the access ``top`` is read where its string form is what is compared or
    computed on: here, or, as an output column of a CTE or derived table, everywhere it
    is read. LENIENT where Snowflake's result for a JSON null is its result for NULL
    (``::string``, LIKE, a string function, ``= 'text'`` in a filter), STRICT where it
    compares the VARIANT as a value (_strict_position) or where its SELECT groups by the
    same access; None elsewhere."""
    if _variant_coalesce(top.parent):
        # COALESCE passes on the first argument that is not SQL NULL, and a JSON null is
        # not: each argument is its strict form, whatever reads the COALESCE (no item is
        # NULL and falls through, as in Snowflake; a JSON null raises instead of stopping)
        coalesce = top.parent
        if _cast_to(coalesce.parent, STRING_TYPES) or _reading(coalesce, depth) is not None:
            return STRICT
        return None
    if _string_equality(top) or _like_subject(top) or _string_argument(top):
        return STRICT if _grouped_alike(top) else LENIENT
    if _strict_position(top):
        return STRICT
    return _read_as_string(top, depth)


def _variant_coalesce(node: exp.Expr | None) -> bool:
    """COALESCE of VARIANT accesses (at least one) and strings: a VARIANT in Snowflake."""
    if not isinstance(node, exp.Coalesce):
        return False
    arguments = [node.this, *node.expressions]
    accesses = [a for a in arguments if _variant_operand(a)]
    return bool(accesses) and all(a in accesses or _is_text(a) for a in arguments)


def holder(select: exp.Select) -> exp.Expr | None:
    """The CTE or derived table (in FROM or a JOIN) whose query ``select`` is, or None."""
    parent = select.parent
    if isinstance(parent, exp.CTE) or (
        isinstance(parent, exp.Subquery) and isinstance(parent.parent, exp.From | exp.Join)
    ):
        return parent
    return None


def _read_as_string(top: exp.Expr, depth: int) -> str | None:
    """How ``top`` is read when it is an output column of a CTE or derived table (a plain
    SELECT, no DISTINCT) that every query reading it reads as a string: cast to one,
    matched as one, passed to a string function, grouped, partitioned or compared with a
    string, or passed on as the output column of another such query. Its string form can
    then be what the column holds (STRICT when a reader needs it, or when the SELECT groups
    by it). A reader that tests it for NULL, counts or outputs it sees a VARIANT (a JSON
    null is not NULL), so the column stays refused (None)."""
    alias = top.parent
    if depth > 8 or not isinstance(alias, exp.Alias) or alias.this is not top:
        return None
    select = alias.parent
    if not isinstance(select, exp.Select) or select.args.get("distinct"):
        return None
    if holder(select) is None:
        return None
    name = alias.alias
    if [p.alias_or_name for p in select.expressions].count(name) != 1:
        return None
    root = select.root()
    for join in root.find_all(exp.Join):
        if any(i.name == name for i in join.args.get("using") or ()):
            return None  # USING compares the column as it is
    readers = [c for c in root.find_all(exp.Column) if c.name == name and reads(c, select)]
    kinds = {_string_reader(c, depth) for c in readers}
    if not readers or None in kinds:
        return None
    return STRICT if STRICT in kinds or _grouped_alike(top) else LENIENT


def reads(column: exp.Column, select: exp.Select) -> bool:
    source = range_source(column)
    if isinstance(source, exp.Subquery):
        return source.this is select
    return isinstance(source, exp.Table) and _cte_query(source, source.name) is select


def _string_reader(column: exp.Column, depth: int) -> str | None:
    top = column
    while isinstance(top.parent, exp.Paren):
        top = top.parent
    if _cast_to(top.parent, STRING_TYPES):
        return LENIENT
    return _reading(top, depth + 1)


def _consumed(node: exp.Expr) -> bool:
    """Whether the path ``node`` belongs to ends in what the rules translate: a cast to a
    string, FLATTEN's input, or a SQL/JSON operator already written."""
    top = _top(node)
    parent = top.parent
    if isinstance(parent, exp.Cast):
        return True  # VARIANT-PATH translates a cast to a string and refuses any other
    if isinstance(parent, exp.Kwarg) and isinstance(parent.parent, exp.Explode):
        return True
    if isinstance(parent, exp.Explode) and parent.this is top:
        return True  # FLATTEN(v) with its input by position
    if _null_test(parent) and parent.this is top:
        return True  # VARIANT-NULL
    if isinstance(parent, exp.ArraySize) and parent.this is top:
        return True  # VARIANT-ARRAY-SIZE
    if _as_string(top):
        return True
    # What VARIANT-FLATTEN wrote: JSON_TABLE(CASE WHEN JSON_EXISTS(j, p) THEN j END, ...)
    while isinstance(parent, exp.If | exp.Case):
        top, parent = parent, parent.parent
    return isinstance(parent, JsonExists | JsonValue | JsonTable) and parent.this is top


def _exists(json_text: exp.Expr, path: JsonPath) -> JsonExists:
    return JsonExists(this=clone(json_text), path=exp.Literal.string(path.text()))


def _null_test(node: exp.Expr | None) -> bool:
    return isinstance(node, exp.Is) and isinstance(node.expression, exp.Null)


def string_value(json_text: exp.Expr, steps: tuple[Step, ...], strict: bool = False) -> exp.Expr:
    """The standard's exact form of Snowflake's ``::string`` of the item at ``steps``: its
    string, NULL for a JSON null or no item, an error for any other item. ``strict``: a JSON
    null raises too (where Snowflake compares it as a value of its own)."""
    return _scalar_value(json_text, steps, "string", None, strict)


# Casts of a VARIANT translated: the cast's types -> the SQL/JSON item type read and the
# type it is returned as. Snowflake's ::float reads a JSON number as the nearest double and
# ::boolean a JSON true or false; any other item raises (Snowflake would convert a string
# or a number by its own rules), a JSON null or no item is NULL.
SCALAR_CASTS: tuple[tuple[tuple[exp.DType, ...], str, str | None], ...] = (
    (STRING_TYPES, "string", None),
    (FLOAT_TYPES, "number", "DOUBLE"),
    (BOOLEAN_TYPES, "boolean", "BOOLEAN"),
)


def _scalar_value(
    json_text: exp.Expr,
    steps: tuple[Step, ...],
    item_type: str,
    returning: str | None,
    strict: bool = False,
) -> exp.Expr:
    path = JsonPath(steps)
    present = _exists(json_text, path if strict else path.where("<>", "null"))
    value = JsonValue(
        this=clone(json_text),
        path=exp.Literal.string(path.where("==", item_type).text()),
        returning=exp.DataType.build(returning) if returning else None,
    )
    case = exp.Case(ifs=[exp.If(this=present, true=value)])
    case.type = exp.DataType.build(returning or "VARCHAR")
    return case


@rule(
    "VARIANT-PATH",
    "rewrite",
    ("snowflake",),
    (exp.Cast, exp.JSONExtract, exp.Bracket, exp.Dot, exp.GetExtract),
    "A path into a VARIANT (`v:a.b`, `v['a'][0]`, `GET(v, 'a')`, `GET_PATH(v, 'a.b')`, "
    "`f.value:k`) cast to a string is the standard's `JSON_VALUE` over the JSON text the "
    "lake holds (T821, T825), in strict mode (T831) with a type filter (T832, T835): a JSON "
    "string gives its value and a JSON null or a missing item NULL, as in Snowflake; any "
    "other item (a number, a boolean, an object, each of which Snowflake prints in its own "
    "way) raises an error rather than print differently. Cast to FLOAT / DOUBLE, a JSON "
    "number is `JSON_VALUE(... RETURNING DOUBLE PRECISION)` (the nearest double in both); "
    "cast to BOOLEAN, a JSON true or false is the BOOLEAN; cast to NUMBER(p, s) / DECIMAL / "
    "INT (TO_NUMBER too), a JSON integer is `JSON_VALUE(... RETURNING DECIMAL(p, s))`, digit "
    "for digit, while a fraction or an exponent raises (Snowflake rounds its decimal, the "
    "engines would read a double); any other item but a null raises (Snowflake would parse a "
    "string by its own grammar). `path = 'text'` as a WHERE / ON / HAVING conjunct compares the string form "
    "(a JSON null or another item is not equal in Snowflake; NULL or an error here, which "
    "drops the row alike or fails); `path LIKE 'pattern'` reads the string form too, as "
    "Snowflake's LIKE casts a VARIANT to VARCHAR; so do ILIKE and the string functions LOWER, "
    "UPPER, SUBSTR, REPLACE, TRIM, STARTSWITH, CONTAINS and REGEXP_REPLACE of a path. A path "
    "output by a CTE or derived table holds its string form when every reader reads it as a "
    "string (cast, compared or matched as above, grouped or compared as below, passed on); "
    "`v::VARIANT` is `v`; a VARIANT column picked by FIRST_VALUE / LAST_VALUE / ANY_VALUE "
    "stays one. Where Snowflake compares the VARIANT as a value (a GROUP BY or PARTITION BY "
    "key, `=` / `<>` with a string or another VARIANT outside a filter's `= 'text'`, an "
    "ORDER BY of a CTE or derived table without LIMIT, whose order nobody sees) it is its "
    "strict string form, `CASE WHEN JSON_EXISTS(v, 'strict $.a') THEN JSON_VALUE(v, 'strict "
    '$.a ? (@.type() == "string")\' ...) END`: VARIANT strings are equal when their '
    "strings are, no item is NULL, and a JSON null (a VARIANT value in Snowflake, not SQL "
    "NULL) or any other item raises; a path in the same SELECT as that GROUP BY key is "
    "written alike. `COALESCE` of paths (and strings), read as a string or compared as "
    "above, takes each path's strict form: no item falls through to the next argument, a "
    "JSON null (where Snowflake's COALESCE stops) raises. `path = TRUE / FALSE` as a filter "
    "conjunct reads a JSON boolean. Keys "
    "keep their case. A path that is (or that MIN / MAX / ANY_VALUE, which never fail on a "
    "VARIANT, make) an output column of a CTE or derived table no query reads (no reader by "
    "name or position, no DISTINCT, UNION or INTERSECT comparing it, no unexpanded *) is "
    "written as `CAST(NULL AS VARCHAR)` with a warning: it cannot change the result. A path "
    "used otherwise (computed on, compared with a number, tested for NULL, ordered where the "
    "order is seen, output as a VARIANT, cast to a date) is refused, saying which.",
    (
        (
            "snowflake",
            "SELECT e.payload:Q::string AS q, COUNT(*) AS n FROM APP.EVENTS AS e "
            "GROUP BY e.payload:Q",
            'SELECT CASE WHEN JSON_EXISTS("e"."payload", \'strict $."Q"\') THEN JSON_VALUE('
            '"e"."payload", \'strict $."Q" ? (@.type() == "string")\' RETURNING VARCHAR ERROR '
            'ON EMPTY ERROR ON ERROR) END AS "q", COUNT(*) AS "n" FROM "raw"."events" AS "e" '
            'GROUP BY CASE WHEN JSON_EXISTS("e"."payload", \'strict $."Q"\') THEN JSON_VALUE('
            '"e"."payload", \'strict $."Q" ? (@.type() == "string")\' RETURNING VARCHAR ERROR '
            "ON EMPTY ERROR ON ERROR) END",
        ),
        (
            "snowflake",
            "SELECT e.payload:user.name::string AS n FROM APP.EVENTS AS e",
            'SELECT CASE WHEN JSON_EXISTS("e"."payload", \'strict $."user"."name" ? (@.type() '
            '<> "null")\') THEN JSON_VALUE("e"."payload", \'strict $."user"."name" ? '
            '(@.type() == "string")\' RETURNING VARCHAR ERROR ON EMPTY ERROR ON ERROR) END '
            'AS "n" FROM "raw"."events" AS "e"',
        ),
    ),
)
def variant_path(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    try:
        if isinstance(node, exp.Cast) and not _variant_cast(node):
            access = json_access(node.this, ctx)
            if access is None:
                return None
            for types, item_type, returning in SCALAR_CASTS:
                if _cast_to(node, types):
                    strict = item_type == "string" and _grouped_alike(node.this)
                    return _form(node, _scalar_value(*access, item_type, returning, strict))
            if node.to.this in EXACT_TYPES and not node.args.get("format"):
                return _scalar_value(*access, "number", node.to.sql("ansi"))
            ctx.report(
                "error",
                "VARIANT-PATH",
                node,
                f"a VARIANT cast to {node.to.sql('snowflake')}: only a cast to a string, a "
                "number type or BOOLEAN is translated (Snowflake converts JSON strings to "
                "other types by its own rules, and a VARIANT as such has no standard type)",
            )
            return node
        access = json_access(node, ctx)
    except Refusal as refusal:
        ctx.report("error", "VARIANT-PATH", refusal.node, str(refusal))
        return node
    if access is None:
        if isinstance(node, exp.Bracket):
            ctx.report(
                "error",
                "VARIANT-PATH",
                node,
                "a subscript of a value that is not a VARIANT (or FLATTEN's value) is not "
                "translated",
            )
            return node
        return None
    if node is _top(node) and _boolean_equality(node):
        return _form(node, _scalar_value(*access, "boolean", "BOOLEAN"))
    reading = _reading(node) if node is _top(node) else None
    if reading is not None:
        return _form(node, string_value(*access, strict=reading == STRICT))
    if _consumed(node):
        return None
    if node is _top(node) and (unread := unread_column(node)) is not None:
        return unread_null(node, unread, ctx, "VARIANT-PATH")
    ctx.report(
        "error",
        "VARIANT-PATH",
        _top(node),
        "a VARIANT value is translated when cast to a string (::string), a number or a "
        "BOOLEAN; " + variant_use(_top(node)),
    )
    return node


def variant_use(top: exp.Expr) -> str:
    """What the VARIANT access ``top`` is used as, and why that has no exact form."""
    parent = top.parent
    select = parent.parent if isinstance(parent, exp.Alias) else None
    if isinstance(select, exp.Select) and (
        holder(select) is not None or isinstance(select.parent, exp.SetOperation)
    ):
        return (
            f"the column {parent.alias} of VARIANT values is translated where every query "
            "reading it reads it as a string (or none reads it), and here it is read "
            "otherwise (computed on, compared with a number, made DISTINCT, output); cast "
            "it where it is defined (::string, ::float, ::number(p, s))"
        )
    if isinstance(parent, exp.Alias):
        return (
            "output as it is, a column of VARIANT values has no standard type (the lake "
            "holds their JSON text); cast it (::string, ::float, ::number(p, s))"
        )
    if isinstance(parent, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Neg | exp.Sum | exp.Avg):
        return (
            "Snowflake computes on a VARIANT number in the type its JSON text gives it (an "
            "integer, a fixed-point decimal or a double), which the result keeps; cast it "
            "(::float, ::number(p, s)) to compute in one type"
        )
    if isinstance(parent, exp.Max | exp.Min | exp.GT | exp.GTE | exp.LT | exp.LTE):
        return (
            "Snowflake orders VARIANT values across JSON types by its own rules and returns "
            "a VARIANT; cast it (::string, ::float) to compare in one type"
        )
    return (
        "used as a VARIANT (compared with a number, ordered where the order is seen, "
        "output, cast to a date) it has no exact standard form"
    )


@rule(
    "VARIANT-FLATTEN",
    "rewrite",
    ("snowflake",),
    (exp.Lateral,),
    "`LATERAL FLATTEN(input => a) AS f` over an array is the standard's `JSON_TABLE(a, "
    '\'strict $[*]\' COLUMNS ("index" FOR ORDINALITY, "value" VARCHAR FORMAT JSON PATH '
    "'strict $' WITH ARRAY WRAPPER) ERROR ON ERROR)` (T821, T829), and so is `LATERAL "
    "FLATTEN(a)` with its input by position: `f.index` counts from 0 "
    "and reads `index - 1`; `f.value` is the element (its paths start at `$[0]`, inside the "
    "wrapper). A NULL or missing input, a scalar and a JSON null give no rows, as in "
    "Snowflake (a zero-row expansion); `LEFT JOIN` keeps the row (`ON TRUE`). FLATTEN of "
    "an object raises at run time instead of giving Snowflake's row per key; PATH, OUTER, "
    "RECURSIVE and MODE, and the SEQ, KEY, PATH and THIS columns, are refused; a VALUE no "
    "query reads (an unread CTE column, as VARIANT-PATH says) is NULL. FLATTEN of "
    "`SPLIT(s, sep)` (a string, a literal non-empty separator) is the standard's collection "
    "derived table `UNNEST(SPLIT(s, sep)) WITH ORDINALITY AS f(value, index)` (S091) over "
    "the portable SPLIT, whose fields are Snowflake's (empty ones kept, '' one empty field, "
    "NULL none); its value, a VARIANT string in Snowflake, is translated where it is read as "
    "a string (cast, matched, compared, grouped, passed to a string function), and an empty "
    "separator (Snowflake's gives the whole string) is refused.",
    (
        (
            "snowflake",
            "SELECT f.index AS i, f.value::string AS v FROM APP.EVENTS AS e, "
            "LATERAL FLATTEN(input => SPLIT(e.payload:Q::string, ',')) AS f",
            'SELECT ("f"."index" - 1) AS "i", CAST("f"."value" AS VARCHAR) AS "v" FROM '
            '"raw"."events" AS "e" CROSS JOIN UNNEST(SPLIT(CASE WHEN JSON_EXISTS("e"."payload", '
            '\'strict $."Q" ? (@.type() <> "null")\') THEN JSON_VALUE("e"."payload", \'strict '
            '$."Q" ? (@.type() == "string")\' RETURNING VARCHAR ERROR ON EMPTY ERROR ON ERROR) '
            'END, \',\')) WITH ORDINALITY AS "f"("value", "index")',
        ),
        (
            "snowflake",
            "SELECT e.id, f.index AS i, f.value:sku::string AS sku FROM APP.EVENTS AS e, "
            "LATERAL FLATTEN(input => e.payload:items) AS f",
            'SELECT "e"."id" AS "id", ("f"."index" - 1) AS "i", CASE WHEN JSON_EXISTS('
            '"f"."value", \'strict $[0]."sku" ? (@.type() <> "null")\') THEN JSON_VALUE('
            '"f"."value", \'strict $[0]."sku" ? (@.type() == "string")\' RETURNING VARCHAR '
            'ERROR ON EMPTY ERROR ON ERROR) END AS "sku" FROM "raw"."events" AS "e" CROSS '
            'JOIN JSON_TABLE(CASE WHEN JSON_EXISTS("e"."payload", \'strict $."items" ? '
            '(@.type() == "array")\') OR JSON_EXISTS("e"."payload", \'strict $."items" ? '
            '(@.type() == "object")\') THEN "e"."payload" END, \'strict $."items"[*]\' '
            'COLUMNS ("index" FOR ORDINALITY, "value" VARCHAR FORMAT JSON PATH \'strict $\' '
            'WITH ARRAY WRAPPER) ERROR ON ERROR) AS "f"',
        ),
    ),
)
def flatten(node: exp.Lateral, ctx: Context) -> exp.Expr | None:
    explode = node.this
    if not isinstance(explode, exp.Explode):
        return None
    join = node.parent
    alias = node.args.get("alias")
    if not isinstance(join, exp.Join) or not isinstance(alias, exp.TableAlias) or not alias.name:
        return _refuse(node, ctx, "FLATTEN is translated as a named table joined after another")
    if explode.expressions:
        option = explode.expressions[0]
        return _refuse(
            option.expression if isinstance(option, exp.Kwarg) else option,
            ctx,
            "FLATTEN's PATH, OUTER, RECURSIVE and MODE are not translated",
        )
    argument = explode.this
    source = argument.expression if isinstance(argument, exp.Kwarg) else argument
    try:
        access = json_access(source, ctx) if source is not None else None
    except Refusal as refusal:
        return _refuse(refusal.node, ctx, str(refusal))
    split = isinstance(source, exp.Split)
    # Elements that are strings, as a SPLIT's are: an ARRAY_AGG of strings
    aggregated = access is None and not split and source is not None and aggregated_array(source)
    if access is None and not split and not aggregated:
        return _refuse(
            source if source is not None else node,
            ctx,
            "FLATTEN of a value that is not a VARIANT, a SPLIT of a string or an ARRAY_AGG of "
            "strings is not translated",
        )
    side = (join.side or "").upper()
    on = join.args.get("on")
    if join.args.get("using") or side not in ("", "LEFT") or (on is not None and on != exp.true()):
        return _refuse(
            join, ctx, "FLATTEN is translated in a comma, CROSS or LEFT join without a condition"
        )
    name = alias.name
    rows_of_text = bool(explode.meta.get(SPLIT_TO_TABLE))
    expected = SPLIT_TO_TABLE_COLUMNS if rows_of_text else FLATTEN_COLUMNS
    columns = [c.name for c in alias.columns] or list(expected)
    if columns != list(expected):
        return _refuse(
            alias,
            ctx,
            f"the columns keep their names ({', '.join(c.upper() for c in expected)})",
        )
    if aggregated == DISTINCT_ELEMENTS and side == "LEFT":
        return _refuse(
            join,
            ctx,
            "FLATTEN of an ARRAY_AGG(DISTINCT ...) is translated in a comma or CROSS join (its "
            "duplicates are dropped in the WHERE clause)",
        )
    if split:
        refused = _split_refusal(source)
        if refused is not None:
            return _refuse(source, ctx, refused)
    for column in list(node.root().find_all(exp.Column)):
        if column.table != name or column.meta.get("generated"):
            continue
        if range_source(column) is not node:
            continue  # another query's range of the same name
        if column.name == "index" and rows_of_text:
            column.type = exp.DataType.build("BIGINT")  # SPLIT_TO_TABLE counts from 1
        elif column.name == "value" and rows_of_text:
            column.type = exp.DataType.build("VARCHAR")  # SPLIT_TO_TABLE's VALUE is VARCHAR
        elif column.name == "index" and aggregated:
            return _refuse(
                column,
                ctx,
                "FLATTEN's INDEX of an ARRAY_AGG is not translated: Snowflake leaves the order "
                "of its elements unpredictable without WITHIN GROUP (ORDER BY ...) and among "
                "rows tied on its keys",
            )
        elif column.name == "index":
            ordinal = clone(column)
            ordinal.type = exp.DataType.build("BIGINT")
            minus = exp.Paren(this=exp.Sub(this=ordinal, expression=lit(1)))
            minus.type = exp.DataType.build("BIGINT")
            column.replace(minus)
        elif column.name != "value":
            return _refuse(column, ctx, f"the {column.name.upper()} column is not translated")
        elif split or aggregated:
            top = _top(column)
            if top is not column or not (
                _cast_to(column.parent, STRING_TYPES) or _reading(column) is not None
            ):
                return _refuse(
                    top,
                    ctx,
                    f"FLATTEN's VALUE of {'a SPLIT' if split else 'an ARRAY_AGG of strings'} is "
                    "translated where it is read as a string (cast, compared, grouped, matched, "
                    "passed to a string function)",
                )
            column.type = exp.DataType.build("VARCHAR")
        elif reading := _reading(column):
            form = _form(column, string_value(clone(column), (0,), strict=reading == STRICT))
            column.replace(form)
        elif (unread := unread_column(_top(column))) is not None:
            top = _top(column)
            top.replace(unread_null(top, unread, ctx, "VARIANT-FLATTEN"))
        elif not _consumed(column):
            return _refuse(
                _top(column),
                ctx,
                "FLATTEN's VALUE is translated when cast to a string or read through a path; "
                + variant_use(_top(column)),
            )
    if split:
        call = PortableSplit(this=clone(source.this), delimiter=clone(source.expression))
        return _element_rows(join, side, call, name)
    if aggregated:
        array = clone(source)
        array.meta[AGGREGATED_ARRAY] = aggregated  # AGGREGATED-ARRAY: read by FLATTEN
        if aggregated == DISTINCT_ELEMENTS:
            _first_of_each(join, source, name, ctx)
        return _element_rows(join, side, array, name)
    json_text, steps = access
    path = JsonPath(steps)
    # Snowflake expands nothing for a missing item or one of the "wrong kind of compound"
    # (a scalar, a JSON null); in strict mode JSON_TABLE raises on them, so they become NULL,
    # which gives no rows. An object stays: FLATTEN gives a row per key, JSON_TABLE raises.
    compound = exp.Or(
        this=_exists(json_text, path.where("==", "array")),
        expression=_exists(json_text, path.where("==", "object")),
    )
    guarded = exp.Case(ifs=[exp.If(this=compound, true=clone(json_text))])
    table = JsonTable(
        this=guarded,
        path=exp.Literal.string(JsonPath(steps, each=True).text()),
        ordinality=exp.to_identifier("index", quoted=True),
        value=exp.to_identifier("value", quoted=True),
    )
    range_alias = exp.TableAlias(this=exp.to_identifier(name, quoted=True))
    replacement = exp.Table(this=table, alias=range_alias)
    if side == "LEFT":
        join.set("on", exp.true())
    else:
        join.set("kind", "CROSS")
        join.set("on", None)
    ctx.scopes = None  # a table function was written
    return replacement


def _split_refusal(split: exp.Split) -> str | None:
    """Why FLATTEN of this SPLIT is not translated, or None."""
    text, separator = split.this, split.expression
    if not (isinstance(text.type, exp.DataType) and text.type.this in STRING_TYPES):
        return (
            "SPLIT (SPLIT_TO_TABLE) into rows of a value not known to be a string is not translated"
        )
    if not (isinstance(separator, exp.Literal) and separator.is_string and separator.name):
        # Snowflake's empty separator gives [s], the portable SPLIT's the characters of s
        return "SPLIT (SPLIT_TO_TABLE) into rows is translated with a literal, non-empty separator"
    return None


def _first_of_each(join: exp.Join, source: exp.Expr, name: str, ctx: Context) -> None:
    """The standard's ARRAY_AGG has no DISTINCT (SQL:2016 10.9): AGGREGATED-ARRAY sorts the
    values instead, and the FLATTEN keeps the first of each run of equal ones, in the WHERE
    clause of its SELECT: ``CASE WHEN f.index = 1 THEN TRUE ELSE a[f.index - 1] <> f.value
    END`` (a CASE, so that a[0] is never read). An inner join of the FLATTEN: the condition
    drops the same rows there as in its ON."""
    ordinal = exp.column("index", table=name, quoted=True)
    ordinal.type = exp.DataType.build("BIGINT")
    previous = exp.Sub(this=clone(ordinal), expression=lit(1))
    previous.type = exp.DataType.build("BIGINT")
    array = clone(source)
    array.meta[AGGREGATED_ARRAY] = DISTINCT_ELEMENTS  # read by FLATTEN's own condition
    element = exp.Bracket(this=array, expressions=[previous])
    element.type = exp.DataType.build("VARCHAR")
    value = exp.column("value", table=name, quoted=True)
    value.type = exp.DataType.build("VARCHAR")
    first = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=ordinal, expression=lit(1)), true=exp.true())],
        default=exp.NEQ(this=element, expression=value),
    )
    first.type = exp.DataType.build("BOOLEAN")
    select = join.parent
    where = select.args.get("where")
    condition = (
        first if where is None else exp.And(this=exp.Paren(this=where.this), expression=first)
    )
    select.set("where", exp.Where(this=condition))
    ctx.wrote(first)


def _element_rows(join: exp.Join, side: str, array: exp.Expr, name: str) -> exp.Expr:
    """``LATERAL FLATTEN(input => a) AS f`` over an array of strings (the portable SPLIT of
    a string, an ARRAY_AGG of strings) as the standard's collection derived table
    ``UNNEST(a) WITH ORDINALITY AS f(value, index)``."""
    array.type = exp.DataType.build("VARCHAR[]")
    rows = exp.Unnest(
        expressions=[array],
        alias=exp.TableAlias(
            this=exp.to_identifier(name, quoted=True),
            columns=[exp.to_identifier("value", quoted=True)],
        ),
        offset=exp.to_identifier("index", quoted=True),
    )
    if side == "LEFT":
        join.set("on", exp.true())
    else:
        join.set("kind", "CROSS")
        join.set("on", None)
    return rows


def _form(access: exp.Expr, form: exp.Expr) -> exp.Expr:
    """``form`` marked with the access it replaces (as Snowflake wrote it), so that a copy
    of that access elsewhere (a GROUP BY key and its projection) is written alike."""
    form.meta[FORM_SOURCE] = access.sql("snowflake")
    return form


def _refuse(node: exp.Expr, ctx: Context, message: str) -> exp.Expr:
    ctx.report("error", "VARIANT-FLATTEN", node, message)
    return node


@rule(
    "FN-SPLIT-TO-TABLE",
    "rewrite",
    ("snowflake",),
    (exp.Lateral,),
    "`LATERAL SPLIT_TO_TABLE(s, sep) AS t` is the FLATTEN of SPLIT(s, sep) (VARIANT-FLATTEN "
    "writes it as `UNNEST(SPLIT(s, sep)) WITH ORDINALITY`), with SPLIT_TO_TABLE's own "
    "columns: `t.index` counts from 1 (the ordinality as it is) and `t.value` is VARCHAR, "
    "read as any string. The separator is a literal, non-empty string; SEQ is refused; a "
    "call without a name (AS t) is refused.",
    (
        (
            "snowflake",
            "SELECT t.index AS i, TRIM(t.value) AS v FROM APP.EVENTS AS e,"
            " LATERAL SPLIT_TO_TABLE(e.payload:Q::string, ',') AS t",
            'SELECT "t"."index" AS "i", TRIM("t"."value") AS "v" FROM "raw"."events" AS "e" '
            'CROSS JOIN UNNEST(SPLIT(CASE WHEN JSON_EXISTS("e"."payload", \'strict $."Q" ? '
            '(@.type() <> "null")\') THEN JSON_VALUE("e"."payload", \'strict $."Q" ? (@.type() '
            "== \"string\")' RETURNING VARCHAR ERROR ON EMPTY ERROR ON ERROR) END, ',')) WITH "
            'ORDINALITY AS "t"("value", "index")',
        ),
    ),
    phase="syntax",
)
def split_to_table(node: exp.Lateral, ctx: Context) -> exp.Expr | None:
    call = node.this
    if not isinstance(call, exp.SplitToTable):
        return None
    alias = node.args.get("alias")
    if not isinstance(alias, exp.TableAlias) or not alias.name:
        ctx.report(
            "error", "FN-SPLIT-TO-TABLE", node, "SPLIT_TO_TABLE is translated with a name (AS t)"
        )
        return node
    split = exp.Split(this=call.this, expression=call.expression)
    explode = exp.Explode(this=exp.Kwarg(this=exp.var("INPUT"), expression=split))
    explode.meta[SPLIT_TO_TABLE] = True
    if not alias.columns:
        alias.set("columns", [exp.to_identifier(c.upper()) for c in SPLIT_TO_TABLE_COLUMNS])
    node.set("this", explode)
    return node


@rule(
    "VARIANT-NULL",
    "rewrite",
    ("snowflake",),
    (exp.Is, exp.Not),
    "`v:a IS [NOT] NULL` tests whether the path finds an item: a missing item (or a NULL "
    "VARIANT) is SQL NULL, a JSON null is not (it is a VARIANT null). The standard's "
    "`JSON_EXISTS(v, 'strict $.a')` says the same (T821, T831), NULL for a NULL input, hence "
    "`COALESCE(..., FALSE)`. A VARIANT column itself is tested as it stands.",
    (
        (
            "snowflake",
            "SELECT id FROM APP.EVENTS WHERE payload:user.name IS NOT NULL",
            'SELECT "events"."id" AS "id" FROM "raw"."events" AS "events" WHERE '
            'COALESCE(JSON_EXISTS("events"."payload", \'strict $."user"."name"\'), FALSE)',
        ),
    ),
)
def variant_null(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    negated = isinstance(node, exp.Not)
    test = node.this if negated else node
    if not _null_test(test) or (not negated and isinstance(node.parent, exp.Not)):
        return None
    accessed = test.this
    if isinstance(accessed, exp.Column):
        return None  # a VARIANT column or FLATTEN's value: IS NULL as it stands
    try:
        access = json_access(accessed, ctx)
    except Refusal as refusal:
        ctx.report("error", "VARIANT-PATH", refusal.node, str(refusal))
        return node
    if access is None:
        return None
    json_text, steps = access
    found = exp.Coalesce(this=_exists(json_text, JsonPath(steps)), expressions=[exp.false()])
    found.type = exp.DataType.build("BOOLEAN")
    if negated:
        return found
    missing = exp.Not(this=found)
    missing.type = exp.DataType.build("BOOLEAN")
    return missing


@rule(
    "VARIANT-ARRAY-SIZE",
    "rewrite",
    ("snowflake",),
    (exp.ArraySize,),
    "`ARRAY_SIZE(v)` of a VARIANT (a column, a path into one, FLATTEN's value) is the number "
    "of elements of the array it holds, and NULL for anything else: an object, a scalar, a "
    "JSON null, a missing item, a NULL. The standard's `JSON_VALUE(v, 'strict $.size()' "
    "RETURNING BIGINT)` counts them (T821, T831, item method T832), under `JSON_EXISTS(v, "
    "'strict $ ? (@.type() == \"array\")')` (T835), which is FALSE or NULL for all the rest. "
    "ARRAY_SIZE of an ARRAY_CONSTRUCT is ARRAY-CONSTRUCT's; of anything else (SPLIT, "
    "ARRAY_AGG) it is refused (ARRAY-AGG).",
    (
        (
            "snowflake",
            "SELECT id, ARRAY_SIZE(payload:items) AS n FROM APP.EVENTS",
            'SELECT "events"."id" AS "id", CASE WHEN JSON_EXISTS("events"."payload", \'strict '
            '$."items" ? (@.type() == "array")\') THEN JSON_VALUE("events"."payload", \'strict '
            '$."items".size()\' RETURNING BIGINT ERROR ON EMPTY ERROR ON ERROR) END AS "n" '
            'FROM "raw"."events" AS "events"',
        ),
    ),
)
def variant_array_size(node: exp.ArraySize, ctx: Context) -> exp.Expr | None:
    kind = node.this.type
    if (
        isinstance(node.this, exp.Array)
        and isinstance(kind, exp.DataType)
        and kind.is_type(exp.DType.ARRAY)
    ):
        # ARRAY-CONSTRUCT typed it: the standard's CARDINALITY counts its elements
        size = exp.ArraySize(this=clone(node.this))
        size.type = exp.DataType.build("BIGINT")
        return size
    if isinstance(node.this, exp.Array):
        return None  # ARRAY-CONSTRUCT refused it
    aggregate = node.this.this if isinstance(node.this, exp.WithinGroup) else node.this
    if isinstance(aggregate, exp.ArrayAgg) and node.args.get("expression") is None:
        # Snowflake's ARRAY_AGG leaves NULLs out (and DISTINCT, duplicates): its size is
        # the count of the values, 0 over none as [] has (AGGREGATED-ARRAY)
        count = exp.Count(this=clone(aggregate.this))
        count.type = exp.DataType.build("BIGINT")
        return count
    try:
        access = json_access(node.this, ctx) if node.args.get("expression") is None else None
    except Refusal as refusal:
        ctx.report("error", "VARIANT-PATH", refusal.node, str(refusal))
        return node
    if access is None:
        # Imported here: refusals registered at this module's import would run before
        # other modules' refusals of the same nodes (the catalog keeps registration order).
        from sql.rules.refusals import array_message

        ctx.report("error", "ARRAY-AGG", node, array_message(node, ctx.dialect))
        return node
    json_text, steps = access
    path = JsonPath(steps)
    size = JsonValue(
        this=clone(json_text),
        path=exp.Literal.string(path.size().text()),
        returning=exp.DataType.build("BIGINT"),
    )
    case = exp.Case(ifs=[exp.If(this=_exists(json_text, path.where("==", "array")), true=size)])
    case.type = exp.DataType.build("BIGINT")
    return case


@rule(
    "VARIANT-PARSE-JSON",
    "refuse",
    ("snowflake",),
    (exp.ParseJSON,),
    "`PARSE_JSON(s)` / `TRY_PARSE_JSON(s)` are refused: Snowflake's JSON reader accepts more "
    "than JSON (unquoted keys: `{a: 1}`) and rejects an object that repeats a key, where "
    "DuckDB's and Spark's readers differ on both, so the standard's SQL/JSON over the same "
    "text would read other values; of a VARIANT, they re-read the text of a string item. "
    "Read the VARIANT column itself with paths (VARIANT-PATH).",
    (("snowflake", "SELECT PARSE_JSON(payload):a::string AS a FROM APP.EVENTS", "1:8"),),
)
def parse_json(node: exp.ParseJSON, ctx: Context) -> exp.Expr:
    name = "TRY_PARSE_JSON" if node.args.get("safe") else "PARSE_JSON"
    ctx.report(
        "error",
        "VARIANT-PARSE-JSON",
        node,
        f"{name}: Snowflake's JSON reader accepts unquoted keys and rejects repeated ones "
        "(PARSE_JSON fails, TRY_PARSE_JSON is NULL), where DuckDB's reader keeps the first of "
        "repeated keys and accepts trailing commas and NaN, and no SQL on the engines tells "
        "such text apart to guard it; read a VARIANT column with paths instead",
    )
    return node
