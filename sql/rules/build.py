"""Small ANSI AST builders shared by the rules (never string formatting)."""

from __future__ import annotations

from functools import lru_cache
from typing import TypeVar

from sqlglot import exp

from sql.diagnostics import node_offset
from sql.portable import PortableRaiseError
from sql.tree import clone

E = TypeVar("E", bound=exp.Expr)

INTEGER_TYPES = {exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT}
NUMERIC_TYPES = {
    *INTEGER_TYPES,
    exp.DType.DECIMAL,
    exp.DType.DOUBLE,
    exp.DType.FLOAT,
    exp.DType.BIGDECIMAL,
}
STRING_TYPES = {
    exp.DType.VARCHAR,
    exp.DType.CHAR,
    exp.DType.TEXT,
    exp.DType.NVARCHAR,
    exp.DType.NCHAR,
}
TIMESTAMP_TYPES = {exp.DType.TIMESTAMP, exp.DType.DATETIME, exp.DType.DATETIME2}

# Functions whose value differs between two evaluations (or between the assignment and a use
# in a later statement): a variable holding one cannot be replaced by the expression, nor a
# guard read one twice.
VOLATILE: tuple[type[exp.Expr], ...] = (
    exp.CurrentDate,
    exp.CurrentDatetime,
    exp.CurrentTime,
    exp.CurrentTimestamp,
    exp.Rand,
    exp.Randn,
    exp.Uuid,
)


def type_params(dtype: exp.DataType) -> tuple[int, ...] | None:
    """The integer parameters of ``dtype`` (DECIMAL(12, 2) -> (12, 2), VARCHAR -> ()); None if
    not all are integers."""
    values = []
    for param in dtype.expressions:
        value = param.this if isinstance(param, exp.DataTypeParam) else param
        if not (isinstance(value, exp.Literal) and value.is_int):
            return None
        values.append(int(value.name))
    return tuple(values)


def type_of(node: exp.Expr) -> exp.DType | None:
    """The annotated type of ``node``, or None when annotation could not tell."""
    if isinstance(node, exp.Paren):
        return type_of(node.this)
    if isinstance(node, exp.CurrentDate):
        return exp.DType.DATE
    if isinstance(node, (exp.CurrentTimestamp, exp.CurrentDatetime)):
        return exp.DType.TIMESTAMP
    data_type = node.type
    if data_type is None or data_type.this in (exp.DType.UNKNOWN, exp.DType.NULL):
        return _structural_type(node)
    return data_type.this


def _structural_type(node: exp.Expr) -> exp.DType | None:
    """Types for nodes that annotation left unknown: nodes a rule wrote after annotation ran,
    and columns of derived tables annotation does not follow (LATERAL subqueries)."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return exp.DType.VARCHAR
        return exp.DType.INT if node.is_int else exp.DType.DECIMAL
    if isinstance(node, exp.Cast):
        return node.args["to"].this
    if isinstance(node, exp.Column):
        return _derived_column_type(node)
    if isinstance(node, exp.Subquery):
        # A scalar subquery has the type of its one output column.
        query = node.this
        while isinstance(query, exp.Subquery):
            query = query.this
        if isinstance(query, exp.Select) and len(query.selects) == 1:
            return type_of(query.selects[0].unalias())
        return None
    if isinstance(node, (exp.Count, exp.Extract)):
        return exp.DType.BIGINT
    if isinstance(node, (exp.Min, exp.Max, exp.Neg, exp.Abs, exp.Nullif)):
        return type_of(node.this)
    if isinstance(node, exp.Sum):
        inner = type_of(node.this)
        return exp.DType.BIGINT if inner in INTEGER_TYPES else inner
    if isinstance(node, exp.Case):
        branches = [i.args.get("true") for i in node.args.get("ifs", [])]
        branches.append(node.args.get("default"))
        # A guard's failing branch (RAISE_ERROR) has the type of the value it guards.
        return _common(
            [
                type_of(b)
                for b in branches
                if b is not None and not isinstance(b, (exp.Null, PortableRaiseError))
            ]
        )
    if isinstance(node, exp.Coalesce):
        values = [node.this, *node.expressions]
        return _common([type_of(v) for v in values if not isinstance(v, exp.Null)])
    if isinstance(node, (exp.Add, exp.Sub)) and type_of(node.expression) == exp.DType.INTERVAL:
        moment = type_of(node.this)
        return moment if moment in (exp.DType.DATE, *TIMESTAMP_TYPES) else None
    if isinstance(node, (exp.Mul)) and exp.DType.INTERVAL in (
        type_of(node.this),
        type_of(node.expression),
    ):
        return exp.DType.INTERVAL
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        return _common([type_of(node.this), type_of(node.expression)])
    if isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
        # DATE_TRUNC keeps its argument's type (a DATE stays a DATE)
        moment = type_of(node.this)
        return moment if moment in (exp.DType.DATE, *TIMESTAMP_TYPES) else None
    return None


def _ancestors(node: exp.Expr) -> list[exp.Expr]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


def _common_table(table: exp.Table) -> exp.CTE | None:
    """The WITH query ``table`` names (of its own or an enclosing SELECT), if any."""
    if table.args.get("db"):
        return None
    scope: exp.Expr | None = table
    while scope is not None:
        with_ = scope.args.get("with_") if isinstance(scope, exp.Query) else None
        for cte in with_.expressions if with_ is not None else []:
            if cte.alias_or_name == table.name:
                # A table inside the WITH query of its own name is another table.
                inside = any(parent is cte for parent in _ancestors(table))
                return None if inside else cte
        scope = scope.parent
    return None


def _derived_column_type(column: exp.Column) -> exp.DType | None:
    value = derived_value(column)
    return type_of(value) if value is not None else None


def derived_value(column: exp.Column) -> exp.Expr | None:
    """What a column of a WITH query or a derived table stands for: the projection (its
    value, unaliased) of that query's SELECT that the column names; None where it reads a
    table, a set operation or anything else."""
    select = column.find_ancestor(exp.Select)
    while select is not None:
        sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
        for source in sources:
            derived = source.this if source is not None else None
            if isinstance(derived, exp.Table) and derived.alias_or_name == column.table:
                common = _common_table(derived)
                query = common.this if common is not None else None
            elif isinstance(derived, (exp.Lateral, exp.Subquery)):
                if derived.alias_or_name != column.table:
                    continue
                query = derived.this
            else:
                continue
            while isinstance(query, exp.Subquery):
                query = query.this
            if isinstance(query, exp.Select):
                for projection in query.selects:
                    if projection.alias_or_name == column.name:
                        return projection.unalias()
        select = select.find_ancestor(exp.Select)
    return None


def _common(types: list[exp.DType | None]) -> exp.DType | None:
    if not types or any(t is None for t in types):
        return None
    if all(t in INTEGER_TYPES for t in types):
        return exp.DType.BIGINT if exp.DType.BIGINT in types else exp.DType.INT
    if all(t in NUMERIC_TYPES for t in types):
        approximate = exp.DType.DOUBLE in types or exp.DType.FLOAT in types
        return exp.DType.DOUBLE if approximate else exp.DType.DECIMAL
    return types[0] if len(set(types)) == 1 else None


@lru_cache(maxsize=64)
def _data_type(dtype: str) -> exp.DataType:
    # DataType.build tokenizes and parses its argument; rules build the same few types often.
    return exp.DataType.build(dtype)


def data_type(dtype: str) -> exp.DataType:
    return clone(_data_type(dtype))


def typed(node: exp.Expr, dtype: str) -> exp.Expr:
    node.type = data_type(dtype)
    return node


def paren(node: exp.Expr) -> exp.Expr:
    simple = (exp.Column, exp.Literal, exp.Paren, exp.Func, exp.Cast, exp.Null)
    return node if isinstance(node, simple) else exp.Paren(this=node)


def own(node: exp.Expr) -> exp.Expr:
    """``node`` itself while it is detached (freshly built), else a copy.

    A node has one parent: attaching a node that is already in a tree would move it. Fresh
    builder output is used as is, which saves deep copies of large date expressions.
    """
    return node if node.parent is None else clone(node)


def cast(node: exp.Expr, dtype: str) -> exp.Expr:
    return typed(exp.Cast(this=own(node), to=data_type(dtype)), dtype)


def integer_literal(node: exp.Expr | None) -> int | None:
    """The value of an integer literal (``3``, ``-3``), or None for anything else."""
    if isinstance(node, exp.Neg):
        inner = integer_literal(node.this)
        return -inner if inner is not None else None
    if isinstance(node, exp.Literal) and node.is_int:
        return int(node.name)
    return None


def lit(value: int | str) -> exp.Literal:
    return exp.Literal.number(value) if isinstance(value, int) else exp.Literal.string(value)


def interval(amount: exp.Expr | int, unit: str) -> exp.Expr:
    """INTERVAL 'n' UNIT for a literal amount, amount * INTERVAL '1' UNIT otherwise."""
    if isinstance(amount, int) or (isinstance(amount, exp.Literal) and amount.is_int):
        value = str(amount) if isinstance(amount, int) else amount.name
        if not value.startswith("-"):
            return exp.Interval(this=exp.Literal.string(value), unit=exp.var(unit))
    one = exp.Interval(this=exp.Literal.string("1"), unit=exp.var(unit))
    return exp.Mul(this=paren(own(amount)), expression=one)


def extract(part: str, node: exp.Expr) -> exp.Expr:
    return typed(exp.Extract(this=exp.var(part), expression=own(node)), "BIGINT")


def first_of_month(date: exp.Expr) -> exp.Expr:
    """date - (EXTRACT(DAY FROM date) - 1) days: always a valid date."""
    days = exp.Sub(this=extract("DAY", date), expression=lit(1))
    return exp.Sub(this=own(date), expression=interval(days, "DAY"))


def last_of_month(first: exp.Expr) -> exp.Expr:
    """The last day of the month that starts at ``first``."""
    return exp.Sub(
        this=exp.Add(this=own(first), expression=interval(1, "MONTH")),
        expression=interval(1, "DAY"),
    )


# Marks on nodes the date rules wrote: the first day of a month (DATE_TRUNC to MONTH, QUARTER,
# YEAR) and the last day of a month (LAST_DAY). Month arithmetic on them needs no clamping.
MONTH_START = "month_start"
MONTH_END = "month_end"


def add_months(date: exp.Expr, months: exp.Expr, *, keep_end_of_month: bool) -> exp.Expr:
    """Month arithmetic that clamps to the last day of the target month.

    Going through the first of the month keeps every intermediate date valid, where
    ``date + INTERVAL '1' MONTH`` on the 31st is an error in the standard and clamps
    in some engines. With ``keep_end_of_month`` (Oracle/Snowflake ADD_MONTHS) the last
    day of a month maps to the last day of the target month.

    The general form repeats ``date`` eight times, which engines evaluate as often; when
    ``date`` is known to be a first or (with ``keep_end_of_month``) a last day of a month,
    the exact result is one short expression that holds ``date`` once.
    """
    if date.meta.get(MONTH_START):
        return exp.Add(this=own(date), expression=interval(months, "MONTH"))
    if keep_end_of_month and date.meta.get(MONTH_END):
        # The day after a month's last day is the first of the next month. ``date`` stays
        # whole, so a GROUP BY on it still covers the result.
        next_first = exp.Add(this=own(date), expression=interval(1, "DAY"))
        target = exp.Add(this=next_first, expression=interval(months, "MONTH"))
        return exp.Sub(this=target, expression=interval(1, "DAY"))
    target_first = exp.Add(this=first_of_month(date), expression=interval(months, "MONTH"))
    target_last = last_of_month(target_first)
    day = extract("DAY", date)
    overflow: exp.Expr = exp.GT(this=day, expression=extract("DAY", target_last))
    if keep_end_of_month:
        next_day = exp.Add(this=date.copy(), expression=interval(1, "DAY"))
        is_last = exp.NEQ(this=extract("MONTH", next_day), expression=extract("MONTH", date))
        overflow = exp.Or(this=overflow, expression=is_last)
    same_day = exp.Add(
        this=own(target_first),
        expression=interval(exp.Sub(this=day.copy(), expression=lit(1)), "DAY"),
    )
    return exp.Case(ifs=[exp.If(this=overflow, true=target_last)], default=same_day)


def case_when(condition: exp.Expr, then: exp.Expr, default: exp.Expr | None = None) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=default)


def failure(rule_id: str, why: str, at: exp.Expr | None = None) -> exp.Expr:
    """The failing branch of a run-time guard: ``RAISE_ERROR('RULE-ID: why')``
    (``sql/portable.py``), located at ``at`` (the source construct it guards) for the
    diagnostics that name it (``--strict``). Only guards write it: the rule id before the
    first ': ' is what ``Translation.guards`` reports."""
    node = PortableRaiseError(this=lit(f"{rule_id}: {why}"))
    offset = node_offset(at) if at is not None else None
    if offset is not None:
        node.meta["keyword_start"] = offset
    return node


def guarded(
    value: exp.Expr, differs: exp.Expr, rule_id: str, why: str, at: exp.Expr | None = None
) -> exp.Case:
    """``value``, the exact translation for every row except those where ``differs`` holds
    (the exact condition under which the source's result would be another, or is not
    determined): there the statement stops with ``RULE-ID: why`` (:func:`failure`). A NULL
    ``differs`` keeps ``value``. The guard is data-dependent exactness, never a heuristic:
    ``differs`` is the set itself, not a sign of it (docs/architecture.md)."""
    case = exp.Case(ifs=[exp.If(this=differs, true=failure(rule_id, why, at))], default=value)
    if value.type is not None:
        case.type = value.type
    return case


def is_null(node: exp.Expr) -> exp.Expr:
    return exp.Is(this=node.copy(), expression=exp.Null())


def day_number(date: exp.Expr) -> exp.Expr:
    """Days from Monday 1900-01-01 to ``date``: the base for weekday arithmetic."""
    epoch = exp.Cast(this=lit("1900-01-01 00:00:00"), to=data_type("TIMESTAMP"))
    start = cast(cast(date, "DATE"), "TIMESTAMP")
    return extract("DAY", exp.Paren(this=exp.Sub(this=start, expression=epoch)))


def positive_mod(value: exp.Expr, divisor: int) -> exp.Expr:
    """MOD that is never negative (MOD takes the dividend's sign for dates before 1900)."""
    inner = exp.Add(this=exp.Mod(this=value, expression=lit(divisor)), expression=lit(divisor))
    return exp.Mod(this=inner, expression=lit(divisor))
