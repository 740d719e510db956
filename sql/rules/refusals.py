"""Constructs with no exact ANSI form: refused with a rule id and a reason."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.source_dialects import semantics

# (rule id, dialects, node types, description, example, why)
REFUSALS: tuple[
    tuple[str, tuple[str, ...], tuple[type[exp.Expr], ...], str, tuple[str, str, str], str], ...
] = (
    (
        "FMT-TO-CHAR",
        ALL_DIALECTS,
        (exp.ToChar, exp.TimeToStr, exp.NumberToStr, exp.StrToTime, exp.StrToDate),
        "Format-string conversions that FMT-DATETIME does not compile (number formats, TO_DATE "
        "with a format, FORMAT_TIMESTAMP, T-SQL FORMAT with a culture) are refused: ANSI has no format strings and "
        "CAST produces a different text.",
        ("oracle", "SELECT TO_CHAR(o_totalprice, '999.99') AS m FROM SALES.ORDERS", "1:8"),
        "format-string conversion has no exact ANSI form",
    ),
    (
        "ORA-CONNECT-BY",
        ("oracle", "snowflake"),
        (exp.Connect,),
        "Hierarchical CONNECT BY queries (START WITH, PRIOR) are refused; CONNECT BY LEVEL <= n row generators are ROW-GENERATOR.",
        (
            "oracle",
            "SELECT n_nationkey FROM SALES.NATION START WITH n_nationkey = 0 CONNECT BY PRIOR n_nationkey = n_regionkey",
            "1:65",
        ),
        "CONNECT BY has no exact rewrite here; write a recursive CTE",
    ),
    (
        "SAMPLE",
        ALL_DIALECTS,
        (exp.TableSample,),
        "SAMPLE / TABLESAMPLE returns a random subset: no deterministic equivalent; refused.",
        ("teradata", "SELECT o_orderkey FROM SALES_DB.ORDERS SAMPLE 10", "1:40"),
        "sampling is random and cannot be reproduced exactly",
    ),
    (
        "APPROX-AGG",
        ALL_DIALECTS,
        (exp.ApproxDistinct, exp.ApproxQuantile, exp.ApproxTopK),
        "Approximate aggregates (APPROX_COUNT_DISTINCT, APPROX_PERCENTILE, ...) are refused: "
        "their results depend on the engine's sketch.",
        ("bigquery", "SELECT APPROX_COUNT_DISTINCT(o_custkey) AS n FROM sales.orders", "1:8"),
        "approximate aggregates give engine-specific results",
    ),
    (
        "ARRAY-AGG",
        ALL_DIALECTS,
        (exp.ArrayAgg, exp.Unnest, exp.Explode, exp.Array, exp.Bracket, exp.ArraySize),
        "Arrays and ARRAY_AGG outside BigQuery's typed ones (sql/rules/arrays.py) and "
        "Snowflake's VARIANT paths and FLATTEN (sql/rules/variant.py), and FLATTEN outside "
        "a lateral join, are refused: untyped semi-structured values have no ANSI type.",
        ("snowflake", "SELECT ARRAY_AGG(o_orderkey) AS ks FROM SALES.ORDERS", "1:8"),
        "arrays and semi-structured values outside BigQuery's typed arrays have no exact ANSI "
        "form here",
    ),
    (
        "PIVOT",
        ALL_DIALECTS,
        (exp.Pivot,),
        "PIVOT / UNPIVOT are refused; write the CASE aggregation explicitly.",
        (
            "bigquery",
            "SELECT * FROM sales.orders PIVOT (SUM(o_totalprice) FOR o_orderstatus IN ('F', 'O'))",
            "1:28",
        ),
        "PIVOT is not translated; write SUM(CASE WHEN ...) per column",
    ),
    (
        "MONTHS-BETWEEN",
        ("snowflake", "teradata"),
        (exp.MonthsBetween,),
        "MONTHS_BETWEEN returns fractions of a 31-day month; refused.",
        (
            "snowflake",
            "SELECT MONTHS_BETWEEN(o_orderdate, o_orderdate) AS m FROM SALES.ORDERS",
            "1:8",
        ),
        "MONTHS_BETWEEN's 31-day fractional months have no exact ANSI form",
    ),
    (
        "FN-UNKNOWN",
        ALL_DIALECTS,
        (exp.Anonymous,),
        "A function sqlglot does not know and no rule translates is refused, naming the function.",
        ("tsql", "SELECT MY_UDF(o_orderkey) AS x FROM dbo.Orders", "1:8"),
        "",
    ),
)


# BigQuery's array nodes that sql/rules/arrays.py translates or refuses in the typed phase.
TYPED_ARRAYS = (exp.Unnest, exp.Array, exp.Bracket, exp.ArraySize, exp.ArrayAgg)


def _variant_access(node: exp.Expr) -> bool:
    """A Snowflake subscript, ARRAY_SIZE, or a FLATTEN joined laterally: VARIANT-PATH,
    VARIANT-ARRAY-SIZE and VARIANT-FLATTEN translate or refuse them."""
    if isinstance(node, exp.Bracket | exp.ArraySize):
        return True
    return isinstance(node, exp.Explode) and isinstance(node.parent, exp.Lateral)


# The construct an ARRAY-AGG refusal names, by node type.
ARRAY_CONSTRUCTS = {
    exp.ArrayAgg: "ARRAY_AGG",
    exp.Unnest: "UNNEST",
    exp.Explode: "FLATTEN / EXPLODE",
    exp.Array: "an array constructor (ARRAY_CONSTRUCT, [...])",
    exp.Bracket: "an array subscript",
    exp.ArraySize: "ARRAY_SIZE",
}
# What the source's arrays hold that no ANSI array type says.
ARRAY_ELEMENTS = {
    "snowflake": "Snowflake arrays hold VARIANT values (any type per element)",
    "redshift": "Redshift arrays are SUPER values (any type per element)",
    "bigquery": "this BigQuery array's element type is not known here",
}


def array_message(node: exp.Expr, dialect: str) -> str:
    construct = ARRAY_CONSTRUCTS.get(type(node), type(node).__name__)
    elements = ARRAY_ELEMENTS.get(dialect, "this dialect's arrays have no typed ANSI form here")
    return (
        f"{construct}: {elements}, which no ANSI array type holds; aggregate to a string "
        "(LISTAGG / STRING_AGG) or keep the rows"
    )


def _refuse(rule_id: str, why: str):
    def apply(node: exp.Expr, ctx: Context) -> exp.Expr | None:
        if (
            rule_id == "ARRAY-AGG"
            and semantics(ctx.dialect).ARRAYS_ARE_TYPED
            and isinstance(node, TYPED_ARRAYS)
        ):
            return None  # FN-IN-UNNEST and sql/rules/arrays.py, once types are known
        if (
            rule_id == "ARRAY-AGG"
            and semantics(ctx.dialect).HAS_VARIANT
            and isinstance(node, exp.ArrayAgg)
        ):
            return None  # AGGREGATED-ARRAY (sql/rules/aggregated_arrays.py), once typed
        if rule_id == "ARRAY-AGG" and semantics(ctx.dialect).HAS_VARIANT and _variant_access(node):
            return None  # sql/rules/variant.py, once the VARIANT columns are typed
        if (
            rule_id == "ARRAY-AGG"
            and semantics(ctx.dialect).HAS_VARIANT
            and isinstance(node, exp.Array)
            and isinstance(node.parent, exp.ArraySize)
        ):
            return None  # ARRAY-CONSTRUCT (sql/rules/arrays.py), once its elements are typed

        message = why or f"function {node.name.upper()} is not known to the translator"
        if rule_id == "ARRAY-AGG":
            message = array_message(node, ctx.dialect)
        ctx.report("error", rule_id, node, message)
        return None

    return apply


for _id, _dialects, _nodes, _description, _example, _why in REFUSALS:
    # Refused before column qualification, which may fail on them first; unknown
    # functions and format strings wait until the typed rules had their chance to translate
    # them (sql/rules/formats.py needs the value's type).
    _phase = "typed" if _id in ("FN-UNKNOWN", "FMT-TO-CHAR") else "syntax"
    rule(_id, "refuse", _dialects, _nodes, _description, (_example,), phase=_phase)(
        _refuse(_id, _why)
    )
