"""Render stored ANSI SQL for an engine (DuckDB or Spark), losslessly or not at all."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from sql import jsonpath, portable
from sql.ansi import Ansi, JsonExists, JsonTable, JsonValue, RowValue, parse_type
from sql.diagnostics import Diagnostic, TranslationError, node_offset, offset_to_line_col
from sql.engines import ENGINES, Engine
from sql.tree import parenthesize, preorder, range_source


def _refuse(ansi_sql: str, file: str, node: exp.Expr | None, message: str) -> TranslationError:
    offset = node_offset(node)
    line, col = offset_to_line_col(ansi_sql, offset) if offset is not None else (1, 1)
    return TranslationError([Diagnostic("error", "RENDER", message, file, line, col)])


# Engine calls written as sqlglot's Anonymous functions, which it does not reinterpret.
def _call(name: str, *args: exp.Expr | str) -> exp.Expr:
    return exp.Anonymous(
        this=name,
        expressions=[exp.Literal.string(a) if isinstance(a, str) else a.copy() for a in args],
    )


def _row_values(tree: exp.Expr, engine: Engine) -> exp.Expr:
    """The standard's ROW(v, ...) is DuckDB's ROW(...) and Spark's STRUCT(...): an unnamed
    row each, whose CAST to a row type (the only place a translation writes one) names the
    fields by position on both."""
    for node in reversed(list(tree.find_all(RowValue, bfs=False))):  # inner rows first
        values = [e.copy() for e in node.expressions]
        if engine == "spark":
            node.replace(exp.Struct(expressions=values))
        else:
            node.replace(exp.Anonymous(this="ROW", expressions=values))
    return tree


def _engine_error(engine: Engine, message: str) -> exp.Expr:
    """An expression that raises ``message`` when evaluated: DuckDB's error(), Spark's
    raise_error()."""
    return _call("error" if engine == "duckdb" else "raise_error", message)


SUBSTRING_ERROR = "substring error: negative length"


def _integer(node: exp.Expr | None) -> int | None:
    """The value of an integer literal (negative ones parse as a minus sign), else None."""
    if isinstance(node, exp.Neg):
        value = _integer(node.this)
        return None if value is None else -value
    if isinstance(node, exp.Paren):
        return _integer(node.this)
    if isinstance(node, exp.Literal) and not node.is_string and node.is_int:
        return int(node.name)
    return None


def _positive_literal(node: exp.Expr | None, least: int) -> bool:
    value = _integer(node)
    return value is not None and value >= least


def _standard_substrings(tree: exp.Expr, engine: Engine) -> exp.Expr:
    """SUBSTRING(s FROM p FOR n) takes the characters at positions p to p + n - 1 that exist
    (positions below 1 take none, so SUBSTRING('abc' FROM 0 FOR 2) is 'a') and raises for
    n < 0; both engines count a p below 1 from the end of s instead (DuckDB reads a negative
    n to the left of p, Spark gives ''). So the engines get a start of at least 1, the
    length shortened by the positions before 1, and the error, unless p is a literal 1 or
    more and n absent or a literal 0 or more (what nearly every rule writes)."""
    for node in list(tree.find_all(exp.Substring)):
        start, length = node.args.get("start"), node.args.get("length")
        if _positive_literal(start, 1) and (length is None or _positive_literal(length, 0)):
            continue
        start = start if start is not None else exp.Literal.number(1)
        first, count = _integer(start), _integer(length)
        if first is not None and count is not None and count >= 0:
            # both known: the positions from 1 on, as literals
            node.set("start", exp.Literal.number(max(first, 1)))
            node.set("length", exp.Literal.number(max(first + count - max(first, 1), 0)))
            continue

        def below_one(value: exp.Expr) -> exp.Expr:
            return exp.LT(this=value.copy(), expression=exp.Literal.number(1))

        if first is not None and first < 1:
            node.set("start", exp.Literal.number(1))
        elif first is None:
            node.set(
                "start",
                exp.Case(
                    ifs=[exp.If(this=below_one(start), true=exp.Literal.number(1))],
                    default=start.copy(),
                ),
            )
        if length is None:
            continue
        ifs = []
        if not _positive_literal(length, 0):
            negative = exp.LT(this=length.copy(), expression=exp.Literal.number(0))
            ifs.append(exp.If(this=negative, true=_engine_error(engine, SUBSTRING_ERROR)))
        if not _positive_literal(start, 1):
            # positions start .. start + length - 1, of which those from 1 on exist
            through = exp.Sub(
                this=exp.Add(
                    this=exp.Paren(this=start.copy()), expression=exp.Paren(this=length.copy())
                ),
                expression=exp.Literal.number(1),
            )
            kept = exp.Case(
                ifs=[
                    exp.If(
                        this=exp.LT(this=through.copy(), expression=exp.Literal.number(0)),
                        true=exp.Literal.number(0),
                    )
                ],
                default=through,
            )
            ifs.append(exp.If(this=below_one(start), true=kept))
        node.set("length", exp.Case(ifs=ifs, default=length.copy()))
    return tree


# Columns a FETCH FIRST ... PERCENT / WITH TIES query gains for its window form.
FETCH_RANK, FETCH_ROWS, FETCH_QUERY = "_fetch_rank", "_fetch_rows", "_fetch"


def _fetch_as_window(tree: exp.Expr, engine: Engine, ansi_sql: str, file: str) -> exp.Expr:
    """FETCH FIRST n PERCENT ROWS ONLY / n [PERCENT] ROWS WITH TIES, which neither engine has
    (sqlglot writes a plain LIMIT n, other rows), as a filter on window values: row k (by
    ROW_NUMBER in the query's order; by RANK with ties, so rows tied with the last one come
    along) is kept when k <= n, or with PERCENT when k <= CEILING(n * rows / 100), the
    standard's count (T-SQL's TOP n PERCENT rounds up alike), written (k - 1) * 100 < n * rows
    so that no division or float rounds it. The query keeps its order through k."""
    for fetch in list(tree.find_all(exp.Fetch)):
        options = fetch.args.get("limit_options")
        percent = bool(options is not None and options.args.get("percent"))
        ties = bool(options is not None and options.args.get("with_ties"))
        if not (percent or ties):
            continue
        kind = "PERCENT" if percent else "WITH TIES"
        query = fetch.parent
        projections = query.expressions if isinstance(query, exp.Select) else []
        names = [p.alias_or_name for p in projections]
        why = None
        if not isinstance(query, exp.Select) or query.args.get("offset") is not None:
            why = "on a set operation or with OFFSET"
        elif query.args.get("distinct") is not None:
            why = "on a SELECT DISTINCT"
        elif any(isinstance(p, exp.Star) or p.find(exp.Star) is p.this for p in projections):
            why = "on a SELECT *"
        elif "" in names or len(set(names)) != len(names) or {FETCH_RANK, FETCH_ROWS} & set(names):
            why = "on columns without distinct names"
        elif ties and query.args.get("order") is None:
            why = "without ORDER BY"
        if why is not None:
            raise _refuse(
                ansi_sql, file, fetch, f"FETCH FIRST ... {kind} {why} has no exact {engine} form"
            )
        outputs = {name: p.unalias() for name, p in zip(names, projections, strict=True)}
        order = query.args.get("order")
        keys: list[exp.Expr] = []
        for key in order.expressions if order is not None else []:
            value = key.this
            if isinstance(value, exp.Column) and not value.table and value.name in outputs:
                key = key.copy()
                key.set("this", outputs[value.name].copy())  # an output column's alias
            elif isinstance(value, exp.Literal) and value.is_int:
                key = key.copy()
                key.set("this", projections[int(value.name) - 1].unalias().copy())
            keys.append(key.copy())
        if any(key.find(exp.Window) for key in keys):
            raise _refuse(
                ansi_sql,
                file,
                fetch,
                f"FETCH FIRST ... {kind} ordered by a window function has no exact {engine} form",
            )
        if not keys:
            keys = [exp.Ordered(this=exp.Literal.number(1))]  # Spark orders every ROW_NUMBER
        numbering = exp.Rank() if ties else exp.RowNumber()
        window = exp.Window(this=numbering, order=exp.Order(expressions=keys))
        query.append("expressions", exp.alias_(window, FETCH_RANK, quoted=True))
        rank = exp.column(FETCH_RANK, FETCH_QUERY, quoted=True)
        count = fetch.args["count"].copy()
        if percent:
            every = exp.Window(this=exp.Count(this=exp.Star()))
            query.append("expressions", exp.alias_(every, FETCH_ROWS, quoted=True))
            before = exp.Mul(
                this=exp.Paren(this=exp.Sub(this=rank, expression=exp.Literal.number(1))),
                expression=exp.Literal.number(100),
            )
            rows = exp.column(FETCH_ROWS, FETCH_QUERY, quoted=True)
            kept: exp.Expr = exp.LT(this=before, expression=exp.Mul(this=count, expression=rows))
        else:
            kept = exp.LTE(this=rank.copy(), expression=count)
        cte = query.args.get("with_")
        fetch.pop()
        if order is not None:
            order.pop()
        if cte is not None:
            cte.pop()
        filtered = exp.Select(
            expressions=[
                exp.alias_(exp.column(name, FETCH_QUERY, quoted=True), name, quoted=True)
                for name in names
            ]
        )
        query.replace(filtered)
        filtered.set(
            "from_",
            exp.From(
                this=exp.Subquery(
                    this=query,
                    alias=exp.TableAlias(this=exp.to_identifier(FETCH_QUERY, quoted=True)),
                )
            ),
        )
        filtered.set("where", exp.Where(this=kept))
        filtered.set("order", exp.Order(expressions=[exp.Ordered(this=rank.copy())]))
        if cte is not None:
            filtered.set("with_", cte)
        if query is tree:
            tree = filtered
    return tree


def _distinct_listagg_for_duckdb(
    tree: exp.Expr, engine: Engine, ansi_sql: str, file: str
) -> exp.Expr:
    """LISTAGG(DISTINCT (subquery), sep) WITHIN GROUP (ORDER BY (subquery)) ->
    array_to_string over the sorted list_distinct of list.

    DuckDB binds LISTAGG(DISTINCT v) WITHIN GROUP (ORDER BY v) only when it can match the
    key to the argument, which it cannot for a subquery (each copy is a query of its own).
    The replacement is the same value: the distinct non-null strings (list_distinct drops
    NULLs), sorted as DuckDB's ORDER BY sorts them, joined; NULL when there are none.
    """
    if engine != "duckdb":
        return tree
    for node in list(tree.find_all(exp.GroupConcat)):
        order = node.this
        if not (
            isinstance(order, exp.Order)
            and isinstance(order.this, exp.Distinct)
            and order.this.find(exp.Subquery) is not None
        ):
            continue
        values, keys = order.this.expressions, order.expressions
        if len(values) != 1 or len(keys) != 1 or keys[0].this != values[0]:
            raise _refuse(
                ansi_sql,
                file,
                node,
                "LISTAGG(DISTINCT ...) of a subquery has no duckdb form: DuckDB cannot match "
                "its WITHIN GROUP key to the argument",
            )
        value = values[0]
        listed = exp.Anonymous(this="list", expressions=[value.copy()])
        distinct = exp.Anonymous(this="list_distinct", expressions=[listed])
        direction = exp.Literal.string("DESC" if keys[0].args.get("desc") else "ASC")
        ordered = exp.Anonymous(this="list_sort", expressions=[distinct, direction])
        separator = node.args.get("separator") or exp.Literal.string(",")
        joined = exp.Anonymous(this="array_to_string", expressions=[ordered, separator.copy()])
        none = exp.EQ(this=exp.Count(this=value.copy()), expression=exp.Literal.number(0))
        node.replace(exp.Case(ifs=[exp.If(this=none, true=exp.Null())], default=joined))
    return tree


def _distinct_listagg_for_spark(tree: exp.Expr, ansi_sql: str, file: str) -> exp.Expr:
    """LISTAGG(DISTINCT v, sep) WITHIN GROUP (ORDER BY v) -> array_join over collect_set.

    Spark 4.3 fails at run time (ClassCastException in its distinct-aggregate rewrite) when
    such a LISTAGG shares a SELECT with another DISTINCT aggregate. The replacement is the
    same value: the distinct non-null strings, sorted (binary order, as Spark's ORDER BY
    sorts strings), joined; NULL when there are none, where array_join would give ''.
    """
    for node in list(tree.find_all(exp.GroupConcat)):
        order = node.this
        if not (isinstance(order, exp.Order) and isinstance(order.this, exp.Distinct)):
            continue
        values, keys = order.this.expressions, order.expressions
        if len(values) != 1 or len(keys) != 1 or keys[0].this != values[0]:
            continue
        value = values[0]
        if value.find(exp.Subquery) is not None:
            # Spark allows no subquery inside array_sort; the LISTAGG itself runs unless
            # another DISTINCT aggregate shares its SELECT.
            select = node.find_ancestor(exp.Select)
            others = [
                d
                for d in (select.find_all(exp.Distinct) if select is not None else [])
                if d is not order.this
                and (
                    isinstance(d.parent, exp.AggFunc)
                    or (
                        isinstance(d.parent, exp.Order)
                        and isinstance(d.parent.parent, exp.GroupConcat)
                    )
                )
            ]
            if others:
                raise _refuse(
                    ansi_sql,
                    file,
                    node,
                    "LISTAGG(DISTINCT ...) of a subquery beside another DISTINCT aggregate "
                    "has no spark form: Spark fails on the pair, and allows no subquery in "
                    "the array functions that replace it",
                )
            continue
        ordered = exp.Anonymous(
            this="array_sort",
            expressions=[exp.Anonymous(this="collect_set", expressions=[value.copy()])],
        )
        if keys[0].args.get("desc"):
            ordered = exp.Anonymous(this="reverse", expressions=[ordered])
        separator = node.args.get("separator") or exp.Literal.string(",")
        joined = exp.Anonymous(this="array_join", expressions=[ordered, separator.copy()])
        none = exp.EQ(this=exp.Count(this=value.copy()), expression=exp.Literal.number(0))
        node.replace(exp.Case(ifs=[exp.If(this=none, true=exp.Null())], default=joined))
    return tree


def _second_steps_for_duckdb(tree: exp.Expr) -> exp.Expr:
    """n * INTERVAL 'u' SECOND -> to_microseconds(CAST(CAST(n AS DECIMAL(38, 6)) * U AS BIGINT)).

    DuckDB multiplies an interval by a 32-bit integer (or a DOUBLE): a BIGINT count of
    seconds or microseconds since 1970 (as epoch conversions write) fails to cast to INTEGER.
    Counting microseconds in a BIGINT is exact for every count that has an exact value in
    microseconds (a finer fraction of the standard's product is implementation-defined).
    """
    for node in list(tree.find_all(exp.Mul)):
        for count, step in ((node.this, node.expression), (node.expression, node.this)):
            if not (
                isinstance(step, exp.Interval)
                and isinstance(step.this, exp.Literal)
                and step.this.is_string
                and step.text("unit").upper() == "SECOND"
            ):
                continue
            whole, _, fraction = step.this.name.partition(".")
            if not whole.isdigit() or (fraction and not fraction.isdigit()) or len(fraction) > 6:
                continue
            micros = int(whole) * 1_000_000 + int((fraction or "0").ljust(6, "0"))
            scaled = exp.Mul(
                this=exp.Cast(this=count.copy(), to=exp.DataType.build("DECIMAL(38, 6)")),
                expression=exp.Literal.number(micros),
            )
            total = exp.Cast(this=scaled, to=exp.DataType.build("BIGINT"))
            node.replace(exp.Anonymous(this="to_microseconds", expressions=[total]))
            break
    return tree


def _fractional_seconds_for_duckdb(tree: exp.Expr) -> exp.Expr:
    """EXTRACT(SECOND FROM x) -> CAST(date_part('microseconds', x) * 0.000001 AS DECIMAL(8, 6)).

    The standard's EXTRACT(SECOND) is an exact numeric that keeps the fraction (SQL:2016
    6.28, scale the value's fractional-second precision), as Spark's DECIMAL(8, 6) does;
    DuckDB's is the whole seconds as a BIGINT. DuckDB's microseconds part is the seconds
    field and its fraction in microseconds (of a TIMESTAMP, a TIME and an INTERVAL alike,
    negative for a negative interval), so the product is the standard's value, exactly.
    """
    for node in list(tree.find_all(exp.Extract)):
        if node.name.upper() != "SECOND":
            continue
        micros = exp.Anonymous(
            this="date_part",
            expressions=[exp.Literal.string("microseconds"), node.expression.copy()],
        )
        seconds = exp.Mul(this=micros, expression=exp.Literal.number("0.000001"))
        node.replace(exp.Cast(this=seconds, to=exp.DataType.build("DECIMAL(8, 6)")))
    return tree


# SQLSTATE 22012. The standard (and Spark in ANSI mode) raises on a zero divisor; DuckDB's
# `/` gives IEEE's inf or nan (NULL with ieee_floating_point_ops off), never an error, and
# its `%` gives nan for a DOUBLE.
DIVISION_ERROR = "division by zero"


def _never_zero(node: exp.Expr) -> bool:
    """Whether a divisor can never be zero: a non-zero number, NULLIF(x, 0)."""
    while isinstance(node, exp.Paren | exp.Cast):
        node = node.this
    if isinstance(node, exp.Neg):
        return _never_zero(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.name) != 0
        except ValueError:
            return False
    if isinstance(node, exp.Nullif):
        zero = node.expression
        while isinstance(zero, exp.Paren | exp.Cast):
            zero = zero.this
        return isinstance(zero, exp.Literal) and not zero.is_string and float(zero.name) == 0
    return False


def _checked_division_for_duckdb(tree: exp.Expr) -> exp.Expr:
    """a / b and MOD(a, b) -> the same over CASE WHEN b = 0 AND a IS NOT NULL THEN
    error(...) ELSE b END, unless b cannot be zero."""
    for node in list(tree.find_all(exp.Div, exp.Mod)):
        divisor = node.expression
        if _never_zero(divisor):
            continue
        # NULL / 0 is NULL: an operand's NULL comes before the exception
        zero = exp.And(
            this=exp.EQ(this=divisor.copy(), expression=exp.Literal.number(0)),
            expression=exp.Not(this=exp.Is(this=node.this.copy(), expression=exp.Null())),
        )
        guarded = exp.Case(
            ifs=[exp.If(this=zero, true=_call("error", DIVISION_ERROR))], default=divisor.copy()
        )
        node.set("expression", exp.Paren(this=guarded))
    return tree


def _trimmed_spaces_for_duckdb(tree: exp.Expr) -> exp.Expr:
    """TRIM without characters removes spaces (U+0020) in the standard; DuckDB's TRIM, LTRIM
    and RTRIM without characters remove every Unicode space separator too (no-break space,
    ideographic space, ...): give DuckDB the space."""
    for node in tree.find_all(exp.Trim):
        if node.args.get("expression") is None:
            node.set("expression", exp.Literal.string(" "))
    return tree


def _zero_variance_for_duckdb(tree: exp.Expr) -> exp.Expr:
    """CORR(y, x) and REGR_SLOPE(y, x) are NULL in the standard where x (for CORR, or y) has
    zero variance over the pairs; DuckDB's are NaN there. REGR_SXX / REGR_SYY are exactly 0
    then (DuckDB computes them from running means, unchanged by equal values)."""
    for node in list(tree.find_all(exp.Corr, exp.RegrSlope)):
        if node.meta.get("zero_variance_checked"):
            continue
        node.meta["zero_variance_checked"] = True
        # A window function's tests are the same window functions.
        window = node.parent if isinstance(node.parent, exp.Window) else None
        pair = {"this": node.this, "expression": node.expression}
        kinds = (exp.RegrSxx, exp.RegrSyy) if isinstance(node, exp.Corr) else (exp.RegrSxx,)
        zero: exp.Expr | None = None
        for kind in kinds:
            sums: exp.Expr = kind(**{k: v.copy() for k, v in pair.items()})
            if window is not None:
                windowed = window.copy()
                windowed.set("this", sums)
                sums = windowed
            test = exp.EQ(this=sums, expression=exp.Literal.number(0))
            zero = test if zero is None else exp.Or(this=zero, expression=test)
        checked = (window or node).copy()
        guarded = exp.Case(ifs=[exp.If(this=zero, true=exp.Null())], default=checked)
        (window or node).replace(exp.Paren(this=guarded))
    return tree


def _plain_grouping_for_spark(tree: exp.Expr) -> exp.Expr:
    """GROUPING(x) under a GROUP BY of one grouping set (no ROLLUP, CUBE or GROUPING SETS)
    -> 0, the standard's value there (x is in every grouping set), which Spark refuses to
    compute (UNSUPPORTED_GROUPING_EXPRESSION)."""
    sets = (exp.Rollup, exp.Cube, exp.GroupingSets)
    for node in list(tree.find_all(exp.Grouping)):
        select = node.find_ancestor(exp.Select)
        group = select.args.get("group") if select is not None else None
        if group is None or any(isinstance(e, sets) for e in group.expressions):
            continue
        if any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
            continue
        node.replace(exp.Literal.number(0))
    return tree


def _literal_backslashes_for_spark(tree: exp.Expr) -> exp.Expr:
    """LIKE without ESCAPE: Spark's default escape is a backslash, the standard has none.

    A backslash in the pattern is doubled (Spark's escape for a literal backslash): in a
    literal pattern directly, in any other pattern with REPLACE.
    """
    for like in list(tree.find_all(exp.Like)):
        if isinstance(like.parent, exp.Escape):
            continue
        pattern = like.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            if "\\" in pattern.name:
                like.set("expression", exp.Literal.string(pattern.name.replace("\\", "\\\\")))
            continue
        doubled = exp.Replace(
            this=pattern.copy(),
            expression=exp.Literal.string("\\"),
            replacement=exp.Literal.string("\\\\"),
        )
        like.set("expression", doubled)
    return tree


def _end_anchors_for_spark(tree: exp.Expr) -> exp.Expr:
    """LIKE_REGEX on Spark is RLIKE (Java), SUBSTRING_REGEX its regexp_extract_all; Java's
    ``$`` also matches before a final line terminator, the standard's only at the end: it
    becomes ``\\z``. The pattern is one sql/rules/regex.py wrote, so escapes and classes
    are all it needs to skip."""
    for node in tree.find_all(exp.RegexpLike, exp.RegexpExtract):
        pattern = node.expression
        if not (isinstance(pattern, exp.Literal) and pattern.is_string and "$" in pattern.name):
            continue
        out, in_class, escaped = [], False, False
        for char in pattern.name:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == "[":
                in_class = True
            elif char == "]":
                in_class = False
            elif char == "$" and not in_class:
                char = "\\z"
            out.append(char)
        node.set("expression", exp.Literal.string("".join(out)))
    return tree


def _regex_substrings(tree: exp.Expr, engine: Engine) -> exp.Expr:
    """SUBSTRING_REGEX(p IN s FROM n OCCURRENCE m GROUP g) as the engine's list of every
    match's group g in s from its n-th character, and its m-th element (NULL when there are
    fewer matches: DuckDB's list_extract, Spark's try_element_at). Spark's ``$`` was made
    ``\\z`` before (``_end_anchors_for_spark``)."""
    for node in list(tree.find_all(exp.RegexpExtract)):
        pattern = node.expression
        text = node.this
        if not (
            isinstance(node.args["position"], exp.Literal) and node.args["position"].name == "1"
        ):
            text = _call("substring", text, node.args["position"])
        matches = _call("regexp_extract_all", text, pattern, node.args["group"])
        pick = "list_extract" if engine == "duckdb" else "try_element_at"
        node.replace(_call(pick, matches, node.args["occurrence"]))
    return tree


# SQL/JSON over JSON text (sql/jsonpath.py's strict paths). DuckDB reads the text with its
# json functions; Spark parses it into a VARIANT. Both are structural as strict mode is (a
# member of an array, an element of an object, is missing) and give NULL for a missing item,
# which strict mode calls an error: JSON_EXISTS is FALSE then (FALSE ON ERROR), and
# JSON_VALUE / JSON_TABLE raise (ERROR ON ERROR), so each spells out its own outcome.
# Functions are written as calls sqlglot does not interpret (it would rewrite json_extract
# paths and drop Spark's parse_json).


def _json_item_type(engine: Engine, json_text: exp.Expr, path: str) -> exp.Expr:
    """The engine's name for the type of the item at ``path``; NULL when there is none."""
    if engine == "duckdb":
        return _call("json_type", json_text, path)
    item = _call("variant_get", _call("try_parse_json", json_text), path, "variant")
    return _call("schema_of_variant", item)


# type() == "..." in each engine's names of a JSON value's type.
JSON_TYPE_NAMES: dict[Engine, dict[str, tuple[str, ...]]] = {
    "duckdb": {
        "string": ("VARCHAR",),
        "null": ("NULL",),
        "boolean": ("BOOLEAN",),
        "number": ("BIGINT", "UBIGINT", "DOUBLE"),
        "array": ("ARRAY",),
        "object": ("OBJECT",),
    },
    # schema_of_variant names arrays and objects with their element types: ARRAY<...>.
    "spark": {"string": ("STRING",), "null": ("VOID",), "boolean": ("BOOLEAN",)},
}
SPARK_NESTED = {"array": "ARRAY<%", "object": "OBJECT<%"}


def _json_type_test(engine: Engine, item_type: exp.Expr, wanted: str) -> exp.Expr | None:
    if engine == "spark" and wanted in SPARK_NESTED:
        return exp.Like(this=item_type.copy(), expression=exp.Literal.string(SPARK_NESTED[wanted]))
    if engine == "spark" and wanted == "number":
        # parse_json keeps an integer as BIGINT (or a DECIMAL(p, 0) past it), a decimal
        # fraction as DECIMAL(p, s), a number with an exponent as DOUBLE
        return exp.Paren(
            this=exp.Or(
                this=exp.In(
                    this=item_type.copy(),
                    expressions=[
                        exp.Literal.string(n)
                        for n in ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE")
                    ],
                ),
                expression=exp.Like(
                    this=item_type.copy(), expression=exp.Literal.string("DECIMAL(%")
                ),
            )
        )
    names = JSON_TYPE_NAMES[engine].get(wanted)
    if names is None:
        return None
    return exp.In(this=item_type.copy(), expressions=[exp.Literal.string(n) for n in names])


def _is_null(node: exp.Expr) -> exp.Expr:
    return exp.Is(this=node.copy(), expression=exp.Null())


# SQLSTATE 22035 / 22039: the standard's exceptions ERROR ON EMPTY / ON ERROR raise here.
JSON_VALUE_ERROR = "JSON_VALUE: the path finds no string item (no SQL/JSON item)"
JSON_TABLE_ERROR = "JSON_TABLE: the path finds no array (SQL/JSON array not found)"


def _json_table_rows(engine: Engine, node: JsonTable, path: str) -> exp.Select:
    """JSON_TABLE(j, 'strict P[*]' ...)'s rows: each element of the array at P with its
    1-based ordinal and its JSON text wrapped in an array; none for a NULL j; an error when
    P finds no array."""
    json_text = node.this
    if engine == "duckdb":
        is_array = exp.EQ(
            this=_call("json_type", json_text, path), expression=exp.Literal.string("ARRAY")
        )
        array = _call("json_extract", json_text, path)
        ordinal = exp.Cast(this=exp.column("key", "__e"), to=exp.DataType.build("BIGINT"))
        element = _call("json_array", exp.column("value", "__e"))
        table_function = "json_each"
    else:
        array = _call("variant_get", _call("parse_json", json_text), path, "variant")
        is_array = exp.Like(
            this=_call("schema_of_variant", array), expression=exp.Literal.string("ARRAY<%")
        )
        ordinal = exp.Cast(this=exp.column("pos", "__e"), to=exp.DataType.build("BIGINT"))
        element = _call("to_json", _call("array", exp.column("value", "__e")))
        table_function = "variant_explode"
    source = exp.Case(
        ifs=[exp.If(this=is_array, true=array), exp.If(this=_is_null(json_text), true=exp.Null())],
        default=_engine_error(engine, JSON_TABLE_ERROR),
    )
    return exp.select(
        exp.alias_(
            exp.Add(this=ordinal, expression=exp.Literal.number(1)), node.args["ordinality"]
        ),
        exp.alias_(element, node.args["value"]),
    ).from_(
        exp.Table(
            this=_call(table_function, source), alias=exp.TableAlias(this=exp.to_identifier("__e"))
        )
    )


# JSON_VALUE ... RETURNING an exact numeric type: only a JSON integer is read, exactly (its
# digits), on both engines. DuckDB reads any other number through a double and Spark keeps an
# exponent's as one, and a source such as Snowflake may round a fraction from its own decimal:
# a fraction or an exponent raises instead.
JSON_INTEGERS: dict[Engine, tuple[str, ...]] = {
    "duckdb": ("BIGINT", "UBIGINT"),
    "spark": ("TINYINT", "SMALLINT", "INT", "BIGINT"),
}
VALUE_TYPES = {"string": "VARCHAR", "double": "DOUBLE", "boolean": "BOOLEAN"}
JSON_INTEGER_ERROR = "JSON_VALUE: the path finds no integer item to return as an exact number"
EXACT_NUMBERS = ("decimal", "bigint", "int", "smallint")


def _json_value_error(engine: Engine, message: str, returning: exp.DataType) -> exp.Expr:
    """What JSON_VALUE gives where it raises. DuckDB's error() is volatile, and a volatile
    expression never equals its copy: LISTAGG(DISTINCT v) WITHIN GROUP (ORDER BY v) over a
    JSON_VALUE then fails to bind. The cast of the message to an integer raises alike at run
    time (DuckDB does not fold a failing constant cast) and is not volatile."""
    if engine != "duckdb":
        return _engine_error(engine, message)
    failing = exp.Cast(this=exp.Literal.string(message), to=exp.DataType.build("INTEGER"))
    return exp.Cast(this=failing, to=returning.copy())


def _json_integer_test(engine: Engine, item_type: exp.Expr) -> exp.Expr:
    names = [exp.Literal.string(n) for n in JSON_INTEGERS[engine]]
    test: exp.Expr = exp.In(this=item_type.copy(), expressions=names)
    if engine == "spark":  # an integer past BIGINT: DECIMAL(p, 0)
        test = exp.Or(
            this=test,
            expression=exp.Like(
                this=item_type.copy(), expression=exp.Literal.string("DECIMAL(%,0)")
            ),
        )
    return exp.Paren(this=test)


JSON_SIZE_ERROR = "JSON_VALUE: size() of an item that is not an array (strict mode)"


def _json_array_size(engine: Engine, node: JsonValue, path: str, item_type: exp.Expr) -> exp.Expr:
    """JSON_VALUE(j, 'strict P.size()' RETURNING BIGINT): the number of elements of the array
    at P; NULL for a NULL j; an error for no item or an item that is not an array (strict
    mode), where both engines would count 0 or give NULL."""
    if engine == "duckdb":
        size = _call("json_array_length", node.this, path)
    else:
        item = _call("variant_get", _call("parse_json", node.this), path, "variant")
        size = _call("json_array_length", _call("to_json", item))
    target = exp.DataType.build("BIGINT")
    return exp.Case(
        ifs=[
            exp.If(this=_is_null(node.this), true=exp.Null()),
            exp.If(
                this=_json_type_test(engine, item_type, "array"),
                true=exp.Cast(this=size, to=target),
            ),
        ],
        default=_json_value_error(engine, JSON_SIZE_ERROR, target),
    )


def _json_value_form(node: JsonValue, path: jsonpath.JsonPath) -> str | None:
    """The JSON_VALUE forms rendered: "string" (the item filtered to a string, returned as
    VARCHAR), "double" (a number, as DOUBLE PRECISION), "boolean", "exact" (a number, as a
    DECIMAL or an integer type); None for others."""
    returning = node.args.get("returning")
    if path.each:
        return None
    if (
        path.filter == ("==", "number")
        and returning is not None
        and returning.is_type(*EXACT_NUMBERS)
    ):
        return "exact"
    if path.filter == ("==", "string") and (returning is None or returning.is_type("varchar")):
        return "string"
    if path.filter == ("==", "number") and returning is not None and returning.is_type("double"):
        return "double"
    if path.filter == ("==", "boolean") and returning is not None and returning.is_type("boolean"):
        return "boolean"
    return None


def _json_operators(tree: exp.Expr, engine: Engine, ansi_sql: str, file: str) -> exp.Expr:
    """JSON_EXISTS, JSON_VALUE and JSON_TABLE (as sql/ansi.py defines them) in each
    engine's own functions, or a RENDER refusal for a form it cannot tell apart."""
    for node in reversed(list(tree.find_all(JsonExists, JsonValue, JsonTable))):
        try:
            path = jsonpath.parse(node.args["path"].name)
            steps = jsonpath.engine_path(path.steps, engine)
        except jsonpath.JsonPathError as error:
            raise _refuse(ansi_sql, file, node, str(error)) from None
        item_type = _json_item_type(engine, node.this, steps)
        test: exp.Expr | None = None
        if path.filter is not None:
            op, wanted = path.filter
            test = _json_type_test(engine, item_type, wanted)
            if test is None:
                raise _refuse(ansi_sql, file, node, f"{engine} cannot tell a JSON {wanted} apart")
            test = exp.Not(this=exp.Paren(this=test)) if op == "<>" else test
        if isinstance(node, JsonExists) and not path.each:
            found: exp.Expr = exp.Not(this=_is_null(item_type))
            if test is not None:
                found = exp.And(this=found, expression=test)
            invalid = (
                exp.Not(this=_call("json_valid", node.this))
                if engine == "duckdb"
                else _is_null(_call("try_parse_json", node.this))
            )
            replacement: exp.Expr = exp.Case(
                ifs=[
                    exp.If(this=_is_null(node.this), true=exp.Null()),
                    exp.If(this=invalid, true=exp.false()),
                ],
                default=exp.Coalesce(this=found, expressions=[exp.false()]),
            )
        elif isinstance(node, JsonValue) and path.method == "size":
            replacement = _json_array_size(engine, node, steps, item_type)
        elif isinstance(node, JsonValue) and _json_value_form(node, path) == "exact":
            target = node.args["returning"]
            if engine == "duckdb":
                text = _call("json_extract_string", node.this, steps)
                value = exp.Cast(this=text, to=target.copy())
            else:
                spark_type = target.sql("spark").lower()
                value = _call("variant_get", _call("parse_json", node.this), steps, spark_type)
            replacement = exp.Case(
                ifs=[
                    exp.If(this=_is_null(node.this), true=exp.Null()),
                    exp.If(this=_json_integer_test(engine, item_type), true=value),
                ],
                default=_json_value_error(engine, JSON_INTEGER_ERROR, target),
            )
        elif isinstance(node, JsonValue) and (returning := _json_value_form(node, path)):
            if engine == "duckdb" and returning == "string":
                value = _call("json_extract_string", node.this, steps)
            elif engine == "duckdb" and returning == "boolean":
                value = exp.Cast(
                    this=_call("json_extract", node.this, steps),
                    to=exp.DataType.build("BOOLEAN"),
                )
            elif engine == "duckdb":
                # DuckDB reads -0.0 as a negative zero, Spark (a DECIMAL) and the standard
                # (an SQL/JSON number) as zero: adding 0.0 gives IEEE's +0.0
                value = exp.Add(
                    this=exp.Cast(
                        this=_call("json_extract", node.this, steps),
                        to=exp.DataType.build("DOUBLE"),
                    ),
                    expression=exp.Cast(
                        this=exp.Literal.number(0), to=exp.DataType.build("DOUBLE")
                    ),
                )
            else:
                value = _call("variant_get", _call("parse_json", node.this), steps, returning)
            replacement = exp.Case(
                ifs=[
                    exp.If(this=_is_null(node.this), true=exp.Null()),
                    exp.If(this=test, true=value),
                ],
                default=_json_value_error(
                    engine, JSON_VALUE_ERROR, exp.DataType.build(VALUE_TYPES[returning])
                ),
            )
        elif isinstance(node, JsonTable) and path.each and path.filter is None:
            table = node.parent
            if not isinstance(table, exp.Table):
                raise _refuse(ansi_sql, file, node, "JSON_TABLE is read as a table in FROM")
            rows = _json_table_rows(engine, node, steps)
            table.replace(exp.Lateral(this=exp.Subquery(this=rows), alias=table.args.get("alias")))
            continue
        else:
            raise _refuse(
                ansi_sql,
                file,
                node,
                f"{node.key.upper()} with path {path.text()!r} has no exact {engine} form",
            )
        node.replace(exp.Paren(this=replacement))
    return tree


# PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x): sqlglot writes it as DuckDB's QUANTILE_DISC
# without the sort direction and as Spark's PERCENTILE_APPROX, and Spark's own percentile_disc
# returns a DOUBLE (wrong digits for big integers and decimals, an error for strings). Both
# engines get the definition instead: the sorted non-NULL values, the one at position
# GREATEST(1, CEIL(p * n)) (the first whose cumulative distribution reaches p), NULL for none.
# p is a decimal literal, so p * n is exact.
PERCENTILE_DISC_FORMS: dict[Engine, dict[bool, str]] = {
    "duckdb": {
        desc: "CASE WHEN COUNT(__x) = 0 THEN NULL ELSE (LIST(__x ORDER BY __x"
        + (" DESC" if desc else " ASC")
        + ") FILTER (WHERE __x IS NOT NULL))[CAST(GREATEST(1, CEIL(__p * COUNT(__x)))"
        " AS BIGINT)] END"
        for desc in (False, True)
    },
    "spark": {
        desc: "CASE WHEN COUNT(__x) = 0 THEN NULL ELSE ELEMENT_AT("
        + ("REVERSE(ARRAY_SORT(COLLECT_LIST(__x)))" if desc else "ARRAY_SORT(COLLECT_LIST(__x))")
        + ", CAST(GREATEST(1, CEIL(__p * COUNT(__x))) AS INT)) END"
        for desc in (False, True)
    },
}


# SQLSTATE 2202E, the standard's exception for an index outside the array.
ARRAY_ELEMENT_ERROR = "array element error: index out of range"
# Spark: an UNNEST WITH ORDINALITY's rows, numbered from 1 (POSEXPLODE counts from 0).
SPARK_ORDINALITY = "INLINE(TRANSFORM(__array, (__e, __i) -> STRUCT(__e AS __v, __i + 1 AS __n)))"


def _element_access(tree: exp.Expr, engine: Engine) -> exp.Expr:
    """a[i] -> the engine's element access, an error outside 1..CARDINALITY(a) as in the
    standard (and BigQuery's OFFSET): DuckDB returns NULL there and counts a negative index
    from the end, Spark's element_at fails past the end but also counts back from the end."""
    for node in reversed(list(tree.find_all(exp.Bracket))):
        array, (index,) = node.this, node.expressions
        if engine == "duckdb":
            value = exp.Bracket(this=array.copy(), expressions=[index.copy()], offset=1)
            access: exp.Expr = exp.Case(
                ifs=[
                    exp.If(
                        this=exp.Between(
                            this=index.copy(),
                            low=exp.Literal.number(1),
                            high=exp.Anonymous(this="len", expressions=[array.copy()]),
                        ),
                        true=value,
                    ),
                    exp.If(
                        this=exp.Or(
                            this=exp.Is(this=array.copy(), expression=exp.Null()),
                            expression=exp.Is(this=index.copy(), expression=exp.Null()),
                        ),
                        true=exp.Null(),
                    ),
                ],
                default=_engine_error(engine, ARRAY_ELEMENT_ERROR),
            )
        elif isinstance(index, exp.Literal) and index.is_int and int(index.name) >= 1:
            # element_at fails past the end by itself; only an index below 1 needs the guard
            access = exp.Anonymous(this="element_at", expressions=[array, index])
        else:
            below = exp.And(
                this=exp.Not(this=exp.Is(this=array.copy(), expression=exp.Null())),
                expression=exp.LT(this=index.copy(), expression=exp.Literal.number(1)),
            )
            access = exp.Case(
                ifs=[
                    exp.If(
                        this=below,
                        true=_engine_error(engine, ARRAY_ELEMENT_ERROR),
                    )
                ],
                # element_at takes an INT: a larger index is outside any array, and its
                # cast fails as the access would.
                default=exp.Anonymous(
                    this="element_at",
                    expressions=[array, exp.Cast(this=index, to=exp.DataType.build("INT"))],
                ),
            )
        node.replace(exp.Paren(this=access))
    return tree


def _ordering(key: int, count: int, orders: list[tuple[bool, bool]]) -> str:
    """A Spark comparator's body over struct fields __k0.. of __l and __r: ascending or not
    and NULLs first or not per key, as the ORDER BY of the ARRAY_AGG it replaces."""
    if key == count:
        return "0"
    ascending, nulls_first = orders[key]
    field, after = f"__k{key}", _ordering(key + 1, count, orders)
    null_side, less = ("-1" if nulls_first else "1"), ("-1" if ascending else "1")
    more, non_null_side = ("1" if ascending else "-1"), ("1" if nulls_first else "-1")
    return (
        f"CASE WHEN __l.{field} IS NULL AND __r.{field} IS NULL THEN {after} "
        f"WHEN __l.{field} IS NULL THEN {null_side} WHEN __r.{field} IS NULL THEN {non_null_side} "
        f"WHEN __l.{field} < __r.{field} THEN {less} WHEN __l.{field} > __r.{field} THEN {more} "
        f"ELSE {after} END"
    )


def _array_agg_for_spark(tree: exp.Expr) -> exp.Expr:
    """ARRAY_AGG(x [ORDER BY k ...]) [FILTER (WHERE c)] -> Spark's COLLECT_LIST, which drops
    NULLs and has no order: each value goes in a struct with its keys (a struct is never
    NULL), sorted by a comparator that spells out the ORDER BY, then unwrapped; NULL when no
    row is aggregated (COLLECT_LIST gives an empty array)."""
    for node in reversed(list(tree.find_all(exp.ArrayAgg))):
        filtered = node.parent if isinstance(node.parent, exp.Filter) else None
        body = node.this
        order = body if isinstance(body, exp.Order) else None
        value = order.this if order is not None else body
        keys = [o.this for o in order.expressions] if order is not None else []
        orders = [
            (not o.args.get("desc"), bool(o.args.get("nulls_first")))
            for o in (order.expressions if order is not None else [])
        ]
        fields = ", ".join(["__x AS __v", *(f"__p{i} AS __k{i}" for i in range(len(keys)))])
        collected = f"COLLECT_LIST(STRUCT({fields}))"
        if keys:
            collected = f"ARRAY_SORT({collected}, (__l, __r) -> {_ordering(0, len(keys), orders)})"
        template = (
            f"CASE WHEN COUNT(*) = 0 THEN NULL ELSE TRANSFORM({collected}, __s -> __s.__v) END"
        )
        form = sqlglot.parse_one(template, read="spark")
        values = {"__x": value, **{f"__p{i}": k for i, k in enumerate(keys)}}
        for column in list(form.find_all(exp.Column)):
            if not column.table and column.name in values:
                column.replace(values[column.name].copy())
        if filtered is not None:
            for aggregate in list(form.find_all(exp.Count, exp.ArrayAgg)):
                aggregate.replace(
                    exp.Filter(this=aggregate.copy(), expression=filtered.expression.copy())
                )
        target = filtered or node
        window = target.parent if isinstance(target.parent, exp.Window) else None
        if window is not None:
            # Over a window, each aggregate of the form is over that window.
            for aggregate in list(form.find_all(exp.Filter, exp.Count, exp.ArrayAgg)):
                if isinstance(aggregate.parent, exp.Filter):
                    continue
                over = window.copy()
                over.set("this", aggregate.copy())
                aggregate.replace(over)
            target = window
        target.replace(exp.Paren(this=form))
    return tree


def _unnest_for_spark(tree: exp.Expr) -> exp.Expr:
    """UNNEST(a) [WITH ORDINALITY] AS r(v[, n]) -> EXPLODE(a) AS r(v) as the first table,
    LATERAL EXPLODE(a) AS r(v) in a join (any kind: Spark joins a lateral generator as the
    standard joins a collection derived table); with ORDINALITY, INLINE over the array's
    elements paired with their 1-based positions."""
    for node in list(tree.find_all(exp.Unnest)):
        (array,) = node.expressions
        alias = node.args["alias"].copy()
        offset = node.args.get("offset")
        if isinstance(offset, exp.Identifier):
            alias.append("columns", offset.copy())
            table_function: exp.Expr = sqlglot.parse_one(SPARK_ORDINALITY, read="spark")
            table_function.find(exp.Column, exp.Identifier).replace(array.copy())
            fields = {
                "__v": alias.columns[0].copy(),
                "__n": alias.columns[1].copy(),
            }
            for identifier in list(table_function.find_all(exp.Identifier)):
                if identifier.name in fields:
                    identifier.replace(fields[identifier.name].copy())
        else:
            table_function = exp.Explode(this=array.copy())
        if isinstance(node.parent, exp.Join):
            node.replace(exp.Lateral(this=table_function, view=False, outer=False, alias=alias))
        else:
            node.replace(exp.Table(this=table_function, alias=alias))
    return tree


@functools.cache
def _percentile_disc_form(engine: Engine, desc: bool) -> exp.Expr:
    return sqlglot.parse_one(PERCENTILE_DISC_FORMS[engine][desc], read=engine)


def _percentile_disc(tree: exp.Expr, engine: Engine) -> exp.Expr:
    for node in list(tree.find_all(exp.WithinGroup)):
        function, order = node.this, node.expression
        if not (isinstance(function, exp.PercentileDisc) and isinstance(order, exp.Order)):
            continue
        [key] = order.expressions
        fraction = function.this
        if isinstance(fraction, exp.Literal) and "." not in fraction.name:
            fraction = exp.Literal.number(fraction.name + ".0")  # a decimal, not an integer
        form = _percentile_disc_form(engine, bool(key.args.get("desc")))
        filled = _fill(form, {"__x": key.this, "__p": fraction})
        replacement = exp.Paren(this=filled)
        if node is tree:
            return replacement
        node.replace(replacement)
    return tree


@functools.cache
def _portable_form(engine: Engine, name: str) -> exp.Expr | None:
    template = portable.BY_NAME[name].native[engine]
    return sqlglot.parse_one(template, read=engine) if template is not None else None


# A template's placeholders, in the order of the portable function's arguments.
PORTABLE_PLACEHOLDERS = ("__a", "__b", "__c")


def _fill_arguments(form: exp.Expr, binds: Mapping[str, exp.Expr]) -> exp.Expr:
    """``form`` with its placeholders bound to arguments; a template's own names that look
    like placeholders (a lambda's ``__x``) stay."""

    def substitute(node: exp.Expr) -> exp.Expr:
        if _is_placeholder(node) and node.name in binds:
            return binds[node.name].copy()
        return node

    return form.copy().transform(substitute)


def _portable_functions(tree: exp.Expr, engine: Engine) -> exp.Expr:
    """Each call of the portable function set (sql/portable.py) in the engine's own form of
    its definition; the innermost first, so that an argument is rendered before it is
    copied into its caller's form."""
    for name, node in reversed(portable.uses(tree)):
        form = _portable_form(engine, name)
        if form is None:
            continue  # sqlglot's own rendering reads alike on the engine
        binds = dict(zip(PORTABLE_PLACEHOLDERS, portable.arguments(node), strict=False))
        replacement = exp.Paren(this=_fill_arguments(form, binds))
        if node is tree:
            return replacement
        node.replace(replacement)
    return tree


# {zone: {table: {column: type}}}: the column types of the tables a query reads.
Schema = Mapping[str, Mapping[str, Mapping[str, str]]]


@dataclass(frozen=True)
class NativeForm:
    """A portable ANSI pattern an engine computes faster in its own exact form.

    ANSI has no date difference or month end, so translation spells them with intervals
    (exact everywhere, but DuckDB evaluates every interval step per row). ``pattern`` and
    ``native`` are SQL with placeholders ``__a``, ``__b``...; ``dates`` names the
    placeholders that must be typed DATE for the two to be equal (types come from the
    tables the query reads; without them, the form is not used).
    """

    name: str
    pattern: str
    native: str
    dates: tuple[str, ...] = ()

    @functools.cache  # noqa: B019 - a few module-level constants, parsed once each
    def trees(self, engine: Engine) -> tuple[exp.Expr, exp.Expr]:
        """(pattern, native) parsed; shared, so callers copy before changing them."""
        return sqlglot.parse_one(self.pattern, read=Ansi), sqlglot.parse_one(
            self.native, read=engine
        )


NATIVE_FORMS: dict[Engine, tuple[NativeForm, ...]] = {
    "duckdb": (
        # DATE - DATE is the day count in DuckDB; the interval between two midnights has
        # no time part, so its DAY field is the same count.
        NativeForm(
            "day difference",
            "EXTRACT(DAY FROM (CAST(__a AS TIMESTAMP) - CAST(__b AS TIMESTAMP)))",
            "__a - __b",
            dates=("__a", "__b"),
        ),
        # First of the month + 1 month - 1 day: exact for any input, since it casts first.
        NativeForm(
            "month end",
            "CAST(CAST(__a AS DATE) - (EXTRACT(DAY FROM CAST(__a AS DATE)) - 1)"
            " * INTERVAL '1' DAY + INTERVAL '1' MONTH - INTERVAL '1' DAY AS DATE)",
            "LAST_DAY(CAST(__a AS DATE))",
        ),
        # The month's first day. DuckDB's DATE_TRUNC of a DATE is a TIMESTAMP: cast back.
        NativeForm(
            "month start",
            "CAST(CAST(__a AS DATE) - (EXTRACT(DAY FROM CAST(__a AS DATE)) - 1)"
            " * INTERVAL '1' DAY AS DATE)",
            "CAST(DATE_TRUNC('MONTH', CAST(__a AS DATE)) AS DATE)",
        ),
    ),
    "spark": (),
}


def _is_placeholder(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column) and not node.table and node.name.startswith("__")


def _match(pattern: object, node: object, binds: dict[str, exp.Expr]) -> bool:
    """Whether ``node`` has ``pattern``'s shape; placeholders bind to (equal) subtrees."""
    if isinstance(pattern, exp.Expr) and _is_placeholder(pattern):
        if not isinstance(node, exp.Expr):
            return False
        bound = binds.setdefault(pattern.name, node)
        return bound is node or bound == node
    if isinstance(pattern, exp.Expr) or isinstance(node, exp.Expr):
        if type(pattern) is not type(node):
            return False
        assert isinstance(pattern, exp.Expr) and isinstance(node, exp.Expr)
        keys = {k for k, v in pattern.args.items() if v} | {k for k, v in node.args.items() if v}
        return all(_match(pattern.args.get(k), node.args.get(k), binds) for k in keys)
    if isinstance(pattern, list) or isinstance(node, list):
        return (
            isinstance(pattern, list)
            and isinstance(node, list)
            and len(pattern) == len(node)
            and all(_match(p, n, binds) for p, n in zip(pattern, node, strict=True))
        )
    return pattern == node


def _fill(native: exp.Expr, binds: Mapping[str, exp.Expr]) -> exp.Expr:
    def substitute(node: exp.Expr) -> exp.Expr:
        return binds[node.name].copy() if _is_placeholder(node) else node

    return native.copy().transform(substitute)


def _column_type(column: exp.Column, schema: Schema, engine: Engine) -> exp.DataType | None:
    """The type of a qualified column of a lake table, from the innermost SELECT that
    names its table; None for columns of CTEs, subqueries or unknown tables."""
    table = range_source(column)
    if not isinstance(table, exp.Table):
        return None
    kind = schema.get(table.db, {}).get(table.name, {}).get(column.name)
    return parse_type(kind) if kind else None


def _is_date(node: exp.Expr, schema: Schema, engine: Engine) -> bool:
    """Whether ``node`` is certainly of type DATE; unsure is False (the form is not used)."""
    if isinstance(node, exp.Paren | exp.Min | exp.Max):
        return _is_date(node.this, schema, engine)
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DType.DATE)
    if isinstance(node, exp.Column) and node.table:
        kind = _column_type(node, schema, engine)
        return kind is not None and kind.is_type(exp.DType.DATE)
    return False


def native_forms(tree: exp.Expr, engine: Engine, schema: Schema | None) -> exp.Expr:
    """Replace each :data:`NATIVE_FORMS` pattern in ``tree`` whose conditions hold."""
    forms = [(form, *form.trees(engine)) for form in NATIVE_FORMS[engine]]
    if not forms:
        return tree
    # Children first, so a pattern inside another's argument is replaced too.
    for node in reversed(list(tree.walk(bfs=False))):
        for form, pattern, native in forms:
            binds: dict[str, exp.Expr] = {}
            if not _match(pattern, node, binds):
                continue
            if form.dates and (
                schema is None
                or not all(_is_date(binds[name], schema, engine) for name in form.dates)
            ):
                continue
            replacement = exp.Paren(this=_fill(native, binds))
            if node is tree:
                return replacement
            node.replace(replacement)
            break
    return tree


def render(
    ansi_sql: str,
    engine: Engine,
    *,
    file: str = "<ansi>",
    schema: Schema | None = None,
    transform: Callable[[exp.Expr], exp.Expr] | None = None,
) -> str:
    """``ansi_sql`` in ``engine``'s dialect; raises ``TranslationError`` (rule RENDER).

    With ``schema`` (the column types of the tables it reads) typed patterns take the
    engine's native exact form (:data:`NATIVE_FORMS`). ``transform`` runs on the engine's
    tree just before it is generated (e.g. to point tables at session views), so the SQL
    is parsed and generated once."""
    if engine not in ENGINES:
        raise TranslationError(
            [Diagnostic("error", "RENDER", f"unknown engine {engine!r}", file, 1, 1)]
        )
    try:
        tree = sqlglot.parse_one(ansi_sql, read=Ansi)
    except SqlglotError as error:
        raise TranslationError(
            [Diagnostic("error", "RENDER", f"not ANSI SQL: {error}", file, 1, 1)]
        ) from None
    tree = _standard_substrings(tree, engine)
    tree = _fetch_as_window(tree, engine, ansi_sql, file)
    tree = _distinct_listagg_for_duckdb(tree, engine, ansi_sql, file)
    tree = _json_operators(tree, engine, ansi_sql, file)
    tree = _element_access(tree, engine)
    tree = _portable_functions(tree, engine)
    tree = _row_values(tree, engine)
    if engine == "spark":
        tree = _unnest_for_spark(tree)
        tree = _array_agg_for_spark(tree)
        tree = _distinct_listagg_for_spark(tree, ansi_sql, file)
        tree = _plain_grouping_for_spark(tree)
        tree = _literal_backslashes_for_spark(tree)
        tree = _end_anchors_for_spark(tree)
    tree = _regex_substrings(tree, engine)
    tree = native_forms(tree, engine, schema)
    tree = _percentile_disc(tree, engine)
    if engine == "duckdb":
        tree = _second_steps_for_duckdb(tree)
        tree = _fractional_seconds_for_duckdb(tree)
        tree = _checked_division_for_duckdb(tree)
        tree = _trimmed_spaces_for_duckdb(tree)
        tree = _zero_variance_for_duckdb(tree)
    if transform is not None:
        tree = transform(tree)
    parenthesize(preorder(tree))  # what the renderings above wrote, and Spark's ||
    try:
        return tree.sql(engine, pretty=True, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as error:
        raise _refuse(ansi_sql, file, tree, str(error)) from None
