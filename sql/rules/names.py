"""How a dialect resolves a bare name where the standard would not: a GROUP BY name that
BigQuery reads as the select list's column of that name."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule


@rule(
    "GROUP-BY-SELECTED-COLUMN",
    "rewrite",
    ("bigquery",),
    (exp.Column,),
    "BigQuery: a bare name in GROUP BY that the select list outputs as a column of one of "
    "the query block's tables (`SELECT a.id ... GROUP BY id`) groups by that column, even "
    "where two of its tables have a column of that name (GoogleSQL reads GROUP BY names as "
    "select-list names too, and a name that is both is not ambiguous when both mean one "
    "column). Written as the qualified column. Not applied when the block joins with USING "
    "(a bare name there is the merged column, which a FULL JOIN makes COALESCE(a.k, b.k)), "
    "or when the select list outputs the name twice.",
    (
        (
            "bigquery",
            "SELECT o.o_custkey, COUNT(*) AS n FROM sales.orders AS o JOIN sales.orders AS p "
            "ON p.o_orderkey = o.o_orderkey GROUP BY o_custkey",
            'SELECT "o"."o_custkey" AS "o_custkey", COUNT(*) AS "n" FROM "raw"."orders" AS "o" '
            'JOIN "raw"."orders" AS "p" ON "p"."o_orderkey" = "o"."o_orderkey" GROUP BY '
            '"o"."o_custkey"',
        ),
    ),
    phase="syntax",
)
def group_by_selected_column(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not isinstance(node, exp.Column) or node.table or not isinstance(node.parent, exp.Group):
        return None
    select = node.parent.parent
    if not isinstance(select, exp.Select):
        return None
    joins = select.args.get("joins") or []
    if any(join.args.get("using") for join in joins):
        return None
    name = node.name.lower()
    named = [p for p in select.expressions if p.alias_or_name.lower() == name]
    if len(named) != 1:
        return None
    selected = named[0].this if isinstance(named[0], exp.Alias) else named[0]
    if not isinstance(selected, exp.Column) or selected.name.lower() != name:
        return None
    # Only `table.column` of one of this block's tables: `a.b` may also be the field b of a
    # STRUCT column a, which is another object than a column b.
    sources = [select.args.get("from_"), *joins]
    aliases = {s.this.alias_or_name.lower() for s in sources if s is not None}
    if selected.args.get("db") or selected.table.lower() not in aliases:
        return None
    return selected.copy()
