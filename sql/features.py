"""Which SQL:2016 features (ISO/IEC 9075-2, Annex F) a piece of ANSI output uses.

Feature ids and names are the standard's, as PostgreSQL lists them in its conformance
appendix (``src/backend/catalog/sql_features.txt``). Only what goes beyond a basic query
specification (E051: SELECT, FROM, WHERE, GROUP BY, HAVING, aliases) is named, so a
reviewer sees what a rule's output asks of the target. The functions of the portable set
(sql/portable.py: ``ROUND``, ``REPLACE``, ``REPEAT``, ``LPAD`` ...) are not in the standard;
sql/ansi.py allows them with one definition each, and they are named as such.
"""

from __future__ import annotations

from sqlglot import exp

from sql import jsonpath, portable
from sql.ansi import JsonExists, JsonTable, JsonValue, RowValue

Feature = tuple[str, str]

EXTENSION: Feature = (
    "portable",
    "not in SQL:2016: a function of the portable set (sql/portable.py), rendered per engine",
)

# Per node type: the feature its presence in the output uses.
NODE_FEATURES: dict[type[exp.Expr], Feature] = {
    exp.Fetch: ("F857", "Top-level FETCH FIRST in query expression"),
    exp.Offset: ("F861", "Top-level OFFSET in query expression"),
    exp.With: ("T121", "WITH (excluding RECURSIVE) in query expression"),
    exp.Lateral: ("T491", "LATERAL derived table"),
    exp.Intersect: ("F302", "INTERSECT table operator"),
    exp.Except: ("E071-03", "EXCEPT DISTINCT table operator"),
    exp.Values: ("F641", "Row and table constructors"),
    exp.Exists: ("E061-08", "EXISTS predicate"),
    exp.Like: ("E061-04", "LIKE predicate"),
    exp.Escape: ("E061-05", "LIKE predicate: ESCAPE clause"),
    exp.RegexpLike: ("F841", "LIKE_REGEX predicate"),
    exp.RegexpExtract: ("F844", "SUBSTRING_REGEX"),
    exp.NullSafeEQ: ("T151", "DISTINCT predicate"),
    exp.NullSafeNEQ: ("T152", "DISTINCT predicate with negation"),
    exp.Case: ("F261", "CASE expression"),
    exp.If: ("F261", "CASE expression"),
    exp.Nullif: ("F261-03", "NULLIF"),
    exp.Coalesce: ("F261-04", "COALESCE"),
    exp.Cast: ("F201", "CAST function"),
    exp.Interval: ("F052", "Intervals and datetime arithmetic"),
    # EXTRACT reads a field of a datetime value; interval fields would be F052.
    exp.Extract: ("F051", "Basic date and time"),
    exp.CurrentDate: ("F051-06", "CURRENT_DATE"),
    exp.CurrentTimestamp: ("F411", "Time zone specification"),
    exp.Length: ("E021-04", "CHARACTER_LENGTH function"),
    exp.Substring: ("E021-06", "SUBSTRING function"),
    exp.DPipe: ("E021-07", "Character concatenation"),
    exp.Upper: ("E021-08", "UPPER and LOWER functions"),
    exp.Lower: ("E021-08", "UPPER and LOWER functions"),
    exp.Trim: ("E021-09", "TRIM function"),
    exp.StrPosition: ("E021-11", "POSITION function"),
    exp.Abs: ("T441", "ABS and MOD functions"),
    exp.Mod: ("T441", "ABS and MOD functions"),
    exp.Ln: ("T621", "Enhanced numeric functions"),
    exp.Exp: ("T621", "Enhanced numeric functions"),
    exp.Pow: ("T621", "Enhanced numeric functions"),
    exp.Sqrt: ("T621", "Enhanced numeric functions"),
    exp.Floor: ("T621", "Enhanced numeric functions"),
    exp.Ceil: ("T621", "Enhanced numeric functions"),
    exp.Stddev: ("T621", "Enhanced numeric functions"),
    exp.StddevPop: ("T621", "Enhanced numeric functions"),
    exp.StddevSamp: ("T621", "Enhanced numeric functions"),
    exp.Variance: ("T621", "Enhanced numeric functions"),
    exp.VariancePop: ("T621", "Enhanced numeric functions"),
    exp.Corr: ("T621", "Enhanced numeric functions"),
    exp.CovarPop: ("T621", "Enhanced numeric functions"),
    exp.CovarSamp: ("T621", "Enhanced numeric functions"),
    exp.RegrAvgx: ("T621", "Enhanced numeric functions"),
    exp.RegrAvgy: ("T621", "Enhanced numeric functions"),
    exp.RegrCount: ("T621", "Enhanced numeric functions"),
    exp.RegrIntercept: ("T621", "Enhanced numeric functions"),
    exp.RegrR2: ("T621", "Enhanced numeric functions"),
    exp.RegrSlope: ("T621", "Enhanced numeric functions"),
    exp.RegrSxx: ("T621", "Enhanced numeric functions"),
    exp.RegrSxy: ("T621", "Enhanced numeric functions"),
    exp.RegrSyy: ("T621", "Enhanced numeric functions"),
    exp.Log: ("T623", "General logarithm functions"),
    **{function.node: EXTENSION for function in portable.PORTABLE_FUNCTIONS},
    exp.Boolean: ("T031", "BOOLEAN data type"),
    exp.GroupConcat: ("T625", "LISTAGG"),
    exp.Window: ("T611", "Elementary OLAP operations"),
    exp.PercentRank: ("T612", "Advanced OLAP operations"),
    exp.CumeDist: ("T612", "Advanced OLAP operations"),
    exp.PercentileDisc: ("T612", "Advanced OLAP operations"),
    exp.WithinGroup: ("T612", "Advanced OLAP operations"),
    exp.Ntile: ("T614", "NTILE function"),
    exp.Lag: ("T615", "LEAD and LAG functions"),
    exp.Lead: ("T615", "LEAD and LAG functions"),
    exp.IgnoreNulls: ("T616", "Null treatment option for LEAD and LAG functions"),
    exp.RespectNulls: ("T616", "Null treatment option for LEAD and LAG functions"),
    exp.FirstValue: ("T617", "FIRST_VALUE and LAST_VALUE functions"),
    exp.LastValue: ("T617", "FIRST_VALUE and LAST_VALUE functions"),
    exp.NthValue: ("T618", "NTH_VALUE function"),
    exp.GroupingSets: ("T431", "Extended grouping capabilities"),
    exp.Rollup: ("T431", "Extended grouping capabilities"),
    exp.Cube: ("T431", "Extended grouping capabilities"),
    exp.Grouping: ("T431", "Extended grouping capabilities"),
    exp.Unnest: ("S091", "Basic array support"),
    exp.Bracket: ("S091", "Basic array support"),
    exp.Array: ("S091", "Basic array support"),
    exp.ArraySize: ("S091-03", "Array expressions"),
    exp.ArrayAgg: ("S098", "ARRAY_AGG"),
    JsonExists: ("T821", "Basic SQL/JSON query operators"),
    JsonValue: ("T821", "Basic SQL/JSON query operators"),
    JsonTable: ("T821", "Basic SQL/JSON query operators"),
    RowValue: ("T051", "Row types"),
}

# What each SQL/JSON operator's form (sql/ansi.py) and path (sql/jsonpath.py) ask for.
JSON_ERRORS: Feature = ("T825", "SQL/JSON: ON EMPTY and ON ERROR clauses")
JSON_WRAPPER: Feature = ("T829", "JSON_QUERY: array wrapper options")
JSON_STRICT: Feature = ("T831", "SQL/JSON path language: strict mode")
JSON_ITEM_METHOD: Feature = ("T832", "SQL/JSON path language: item method")
JSON_FILTER: Feature = ("T835", "SQL/JSON path language: filter expressions")


def _json_features(node: exp.Expr) -> set[Feature]:
    found = {JSON_STRICT}
    if isinstance(node, JsonValue | JsonTable):
        found.add(JSON_ERRORS)
    if isinstance(node, JsonTable):
        found.add(JSON_WRAPPER)
    path = node.args.get("path")
    if isinstance(path, exp.Literal):
        parsed = jsonpath.parse(path.name)
        if parsed.filter is not None:
            found |= {JSON_ITEM_METHOD, JSON_FILTER}
        if parsed.method is not None:
            found.add(JSON_ITEM_METHOD)
    return found


# Node types with no feature of their own: the basic query specification (E051), names,
# literals, comparisons and arithmetic (E011, E061-01/02/03/06, E091) and wrappers.
BASIC: frozenset[type[exp.Expr]] = frozenset(
    {
        exp.Select, exp.From, exp.Where, exp.Group, exp.Having, exp.Order, exp.Ordered,
        exp.LimitOptions, exp.CTE, exp.Subquery, exp.Join, exp.Union, exp.Distinct, exp.Tuple,
        exp.Table, exp.TableAlias, exp.Alias, exp.Column, exp.Identifier, exp.Star, exp.Dot,
        exp.Paren, exp.Var, exp.Literal, exp.Null, exp.Neg, exp.Not, exp.And, exp.Or, exp.EQ,
        exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Is, exp.In, exp.Between, exp.Any,
        exp.All, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.DataType, exp.DataTypeParam,
        exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Filter, exp.WindowSpec,
        exp.RowNumber, exp.Rank, exp.DenseRank,
    }
)  # fmt: skip


def features_of(tree: exp.Expr) -> list[Feature]:
    """The features ``tree`` uses beyond a basic query, sorted by id."""
    found: set[Feature] = set()
    for node in tree.walk():
        feature = NODE_FEATURES.get(type(node))
        if feature is not None:
            found.add(feature)
        if isinstance(node, JsonExists | JsonValue | JsonTable):
            found |= _json_features(node)
        if isinstance(node, exp.With) and node.args.get("recursive"):
            found.add(("T131", "Recursive query"))
        elif isinstance(node, exp.Grouping) and len(node.expressions) > 1:
            found.add(("T433", "Multi-argument GROUPING function"))
        elif isinstance(node, exp.Fetch):
            options = node.args.get("limit_options")
            if options is not None and options.args.get("with_ties"):
                found.add(("F867", "FETCH FIRST clause: WITH TIES option"))
            if options is not None and options.args.get("percent"):
                found.add(("F866", "FETCH FIRST clause: PERCENT option"))
            if node.find_ancestor(exp.Subquery) is not None:
                found.add(("F858", "FETCH FIRST in subqueries"))
        elif isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join)):
            found.add(("F591", "Derived tables"))
        elif isinstance(node, exp.Subquery) and not isinstance(
            node.parent, (exp.In, exp.Exists, exp.Lateral, exp.Any, exp.All)
        ):
            found.add(("F471", "Scalar subquery values"))
        elif isinstance(node, exp.DataType) and node.this == exp.DType.ARRAY:
            found.add(("S091", "Basic array support"))
        elif isinstance(node, exp.DataType) and node.this == exp.DType.STRUCT:
            found.add(("T051", "Row types"))
        elif isinstance(node, exp.DataType) and node.this == exp.DType.BIGINT:
            found.add(("T071", "BIGINT data type"))
        elif isinstance(node, exp.DataType) and node.this in (
            exp.DType.DATE,
            exp.DType.TIMESTAMP,
        ):
            found.add(("F051", "Basic date and time"))
    return sorted(found)


# How the target spells a node type, where sqlglot's name for it is not the SQL.
SPELLING: dict[type[exp.Expr], str] = {
    exp.Length: "CHAR_LENGTH",
    exp.DPipe: "||",
    exp.StrPosition: "POSITION",
    exp.If: "CASE WHEN",
    exp.CurrentDate: "CURRENT_DATE",
    exp.CurrentTimestamp: "CURRENT_TIMESTAMP",
    exp.RegexpLike: "LIKE_REGEX",
    exp.NullSafeEQ: "IS NOT DISTINCT FROM",
    exp.NullSafeNEQ: "IS DISTINCT FROM",
    exp.GroupConcat: "LISTAGG",
    exp.Window: "OVER (...)",
    exp.GroupingSets: "GROUPING SETS",
    exp.IgnoreNulls: "IGNORE NULLS",
    exp.RespectNulls: "RESPECT NULLS",
    exp.CumeDist: "CUME_DIST",
    exp.PercentRank: "PERCENT_RANK",
    exp.FirstValue: "FIRST_VALUE",
    exp.LastValue: "LAST_VALUE",
    exp.NthValue: "NTH_VALUE",
    exp.Pow: "POWER",
    exp.Ceil: "CEILING",
    exp.Stddev: "STDDEV_SAMP",
    exp.StddevSamp: "STDDEV_SAMP",
    exp.StddevPop: "STDDEV_POP",
    exp.Variance: "VAR_SAMP",
    exp.VariancePop: "VAR_POP",
    exp.CovarPop: "COVAR_POP",
    exp.CovarSamp: "COVAR_SAMP",
    exp.RegrAvgx: "REGR_AVGX",
    exp.RegrAvgy: "REGR_AVGY",
    exp.RegrCount: "REGR_COUNT",
    exp.RegrIntercept: "REGR_INTERCEPT",
    exp.RegrR2: "REGR_R2",
    exp.RegrSlope: "REGR_SLOPE",
    exp.RegrSxx: "REGR_SXX",
    exp.RegrSxy: "REGR_SXY",
    exp.RegrSyy: "REGR_SYY",
    exp.Fetch: "FETCH FIRST",
    exp.PercentileDisc: "PERCENTILE_DISC",
    exp.WithinGroup: "WITHIN GROUP",
    exp.Bracket: "a[i]",
    exp.Array: "ARRAY[...]",
    exp.ArraySize: "CARDINALITY",
    JsonExists: "JSON_EXISTS",
    JsonValue: "JSON_VALUE",
    JsonTable: "JSON_TABLE",
    RowValue: "ROW(...)",
    **{function.node: function.name for function in portable.PORTABLE_FUNCTIONS},
}


def spelling(node_type: type[exp.Expr]) -> str:
    return SPELLING.get(node_type, node_type.key.upper())
