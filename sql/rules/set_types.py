"""Teradata gives a set operation's columns the types of its first SELECT.

Teradata converts the values of every later SELECT of a UNION / INTERSECT / EXCEPT (and of
a recursive query's recursive part, which is a UNION ALL with its seed) to the type of the
first SELECT's column, in both session modes: text longer than the first SELECT's column is
cut to its length without an error (Snowflake's migration guide for Teradata, "UNION ALL
Data Migration": a VARCHAR(20) column over a VARCHAR(10) one keeps 10 characters). The
standard, DuckDB and Spark give the column a type that holds both sides, so the longer text
comes out whole: a different value, with no error. So (TD-SET-TYPES):

- a later SELECT's text column is cut to the first SELECT's declared length n with
  ``SUBSTRING(x FROM 1 FOR n)`` wherever its own length is larger or not known (the cut is
  the conversion itself: VARCHAR(n) keeps the first n characters);
- refused, located at the later SELECT's column, wherever the conversion would change values
  in a way that has no exact form here: the first SELECT's text column of unknown length (a
  literal, an expression) or CHAR(n) (Teradata pads shorter text to n) over a later column of
  another type, and a later DECIMAL with more places than the first's (Teradata rounds them
  away) or a fraction under a first integer column. The message says how to write it so that
  it translates: a CAST in the first SELECT to the type that holds both.

Left as written: later columns of the first's type or narrower, and wider integers (Teradata
raises a numeric overflow there; no value differs).
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import INTEGER_TYPES, STRING_TYPES, clone, lit, type_params
from sql.rules.portable_types import branches

RULE = "TD-SET-TYPES"
# What _text answers for a later text column whose conversion has no exact form here.
REFUSE = "refuse"
# Later column types whose places a narrower first column rounds away.
_FRACTIONS = {exp.DType.DECIMAL, exp.DType.DOUBLE, exp.DType.FLOAT}


def _value(projection: exp.Expr) -> exp.Expr:
    return projection.unalias() if isinstance(projection, exp.Alias) else projection


def _data_type(projection: exp.Expr) -> exp.DataType | None:
    node = _value(projection)
    while isinstance(node, exp.Paren):
        node = node.this
    data_type = node.type
    if data_type is None or data_type.this is exp.DType.UNKNOWN:
        return None
    return data_type


def _length(data_type: exp.DataType) -> int | None:
    params = type_params(data_type)
    return params[0] if params else None


def _scale(data_type: exp.DataType) -> int | None:
    """Places after the point: 0 for an integer, s of DECIMAL(p, s); None otherwise."""
    if data_type.this in INTEGER_TYPES:
        return 0
    params = type_params(data_type) if data_type.this is exp.DType.DECIMAL else None
    if params is None:
        return None
    return params[1] if len(params) > 1 else 0


@rule(
    RULE,
    "rewrite",
    ("teradata",),
    (exp.Union, exp.Intersect, exp.Except),
    "Teradata converts the columns of every later SELECT of a UNION / INTERSECT / EXCEPT (a "
    "recursive query's recursive part too) to the types of the first SELECT's: text longer "
    "than the first SELECT's VARCHAR(n) is cut to n characters without an error. A later "
    "text column longer than n, or of unknown length, is written SUBSTRING(x FROM 1 FOR n). "
    "Refused: a first text column of unknown length (a literal, an expression) or CHAR(n) "
    "(padded) over a later column of another type, and a later DECIMAL with more places "
    "than the first column's (rounded away); a CAST in the first SELECT translates.",
    (
        (
            "teradata",
            "SELECT code FROM SALES_DB.REGIONS_SHORT UNION ALL SELECT code FROM "
            "SALES_DB.REGIONS_LONG",
            'SELECT "regions_short"."code" AS "code" FROM "raw"."regions_short" AS '
            '"regions_short" UNION ALL SELECT SUBSTRING("regions_long"."code" FROM 1 FOR 3) '
            'AS "code" FROM "raw"."regions_long" AS "regions_long"',
        ),
    ),
)
def first_select_types(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node.parent, exp.SetOperation):
        return None  # the outermost set operation sees every SELECT
    selects = branches(node)
    if len(selects) < 2 or any(s.is_star for s in selects):
        return None
    first, later = selects[0], selects[1:]
    changed = False
    for position, head in enumerate(first.selects):
        head_type = _data_type(head)
        if head_type is None:
            continue
        head_source = _source(first, _value(head))
        for select in later:
            if position >= len(select.selects):
                return None  # a column count Teradata refuses; left to the engines' error
            projection = select.selects[position]
            value = _value(projection)
            own = _data_type(projection)
            if head_source is not None and head_source == _source(select, value):
                continue  # one column of one table: one type, nothing converted
            if head_type.this in STRING_TYPES:
                outcome = _text(head, head_type, value, own)
                if outcome == REFUSE:
                    ctx.report(
                        "error",
                        RULE,
                        value,
                        "Teradata converts this column to the type of the first SELECT's column "
                        f"({_shown(head, head_type)}), which can change its text; declare the "
                        "columns' lengths in the catalog as the legacy DDL does (`plumbline "
                        "catalog import`), or CAST the first SELECT's column to a VARCHAR(n) "
                        "that holds every SELECT's values",
                    )
                    return node
                if isinstance(outcome, int):
                    cut = exp.Substring(this=clone(value), start=lit(1), length=lit(outcome))
                    if isinstance(projection, exp.Alias):
                        value.replace(cut)
                    else:
                        projection.replace(exp.alias_(cut, projection.alias_or_name))
                    ctx.wrote(cut)
                    changed = True
                continue
            if own is None or own.this not in _FRACTIONS:
                continue
            head_scale, own_scale = _scale(head_type), _scale(own)
            if head_scale is not None and (own_scale is None or own_scale > head_scale):
                ctx.report(
                    "error",
                    RULE,
                    value,
                    f"Teradata converts this column ({own.sql()}) to the first SELECT's type "
                    f"({head_type.sql()}), rounding away the places that type does not hold; "
                    "CAST the first SELECT's column to a type that holds every SELECT's values",
                )
                return node
    return node if changed else None


def _source(select: exp.Select, value: exp.Expr) -> tuple[str, ...] | None:
    """(catalog, db, table, column) of a column that reads a table of ``select``'s FROM
    directly; None for anything else."""
    if not isinstance(value, exp.Column) or not value.table:
        return None
    for table in select.find_all(exp.Table):
        if table.parent_select is select and table.alias_or_name == value.table:
            return (table.catalog, table.db, table.name, value.name)
    return None


def _shown(head: exp.Expr, head_type: exp.DataType) -> str:
    value = _value(head)
    if isinstance(value, exp.Literal):
        return f"the literal {value.sql()}"
    return (
        head_type.sql()
        if _length(head_type) is not None
        else f"{head_type.sql()} of unknown length"
    )


def _text(
    head: exp.Expr, head_type: exp.DataType, value: exp.Expr, own: exp.DataType | None
) -> int | str | None:
    """None: the later column's text stays as it is; an int n: cut it to n characters;
    REFUSE: Teradata's conversion of it has no exact form here."""
    if own is not None and own.this not in STRING_TYPES:
        return None  # not text: its conversion to text is not this rule's
    first = _value(head)
    if isinstance(first, exp.Literal) and first.is_string:
        # A literal's own type (its length) is not stated here: only a literal of the same
        # length is certainly unchanged.
        if (
            isinstance(value, exp.Literal)
            and value.is_string
            and len(value.name) == len(first.name)
        ):
            return None
        if isinstance(value, exp.Null):
            return None
        return REFUSE
    if isinstance(value, exp.Null):
        return None
    length = _length(head_type)
    if length is None:
        return REFUSE
    if head_type.this is exp.DType.CHAR:
        # Teradata pads shorter text to n: only the same CHAR(n) is certainly unchanged.
        same = own is not None and own.this is exp.DType.CHAR and _length(own) == length
        return None if same else REFUSE
    own_length = None if own is None else _length(own)
    if own_length is not None and own_length <= length:
        return None
    return length
