"""A strict ANSI SQL:2016 target dialect for sqlglot.

sqlglot's base dialect is a permissive superset (LIMIT, QUALIFY, GROUP_CONCAT, ...). This
dialect emits only standard constructs and, for every expression type outside an explicit
allow-list, calls ``self.unsupported(...)``. Callers generate with
``unsupported_level=ErrorLevel.RAISE`` so nothing outside the list can slip through.

Deliberate extensions, accepted by every engine we render to with the same meaning:
``ROUND(x, n)`` (half away from zero on exact numerics), ``REPLACE(s, from, to)`` and
``SELECT`` without ``FROM``.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp, generator, parser, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel

# Expression types the generator may emit. Everything else is unsupported by construction.
ALLOWED_EXPRESSIONS: frozenset[type[exp.Expr]] = frozenset(
    {
        # query structure
        exp.Select,
        exp.From,
        exp.Where,
        exp.Group,
        exp.Having,
        exp.Order,
        exp.Ordered,
        exp.Fetch,
        exp.Offset,
        exp.LimitOptions,
        exp.With,
        exp.CTE,
        exp.Subquery,
        exp.Join,
        exp.Lateral,
        exp.Union,
        exp.Except,
        exp.Intersect,
        exp.Distinct,
        exp.Values,
        exp.Tuple,
        exp.Table,
        exp.TableAlias,
        exp.Alias,
        exp.Column,
        exp.Identifier,
        exp.Star,
        exp.Dot,
        exp.Paren,
        exp.Var,
        # literals and predicates
        exp.Literal,
        exp.Null,
        exp.Boolean,
        exp.Neg,
        exp.Not,
        exp.And,
        exp.Or,
        exp.EQ,
        exp.NEQ,
        exp.GT,
        exp.GTE,
        exp.LT,
        exp.LTE,
        exp.Is,
        exp.In,
        exp.Between,
        exp.Like,
        exp.Escape,
        exp.RegexpLike,  # s LIKE_REGEX p, SQL:2008 F841: sql/rules/regex.py writes p
        exp.Exists,
        exp.Any,
        exp.All,
        exp.NullSafeEQ,
        exp.NullSafeNEQ,
        # arithmetic, strings, conditionals, types
        exp.Add,
        exp.Sub,
        exp.Mul,
        exp.Div,
        exp.Mod,
        exp.DPipe,
        exp.Case,
        exp.If,
        exp.Coalesce,
        exp.Nullif,
        exp.Cast,
        exp.DataType,
        exp.DataTypeParam,
        exp.Interval,
        exp.Extract,
        exp.Substring,
        exp.StrPosition,
        exp.Length,
        exp.Trim,
        exp.Upper,
        exp.Lower,
        exp.Abs,
        exp.Floor,
        exp.Ceil,
        exp.Round,
        exp.Replace,
        exp.Pow,
        exp.Sqrt,
        exp.Ln,
        exp.Log,  # LOG(base, x), SQL:2016 T623: sql/rules/functions.py gives it its base
        exp.Exp,
        exp.CurrentDate,
        exp.CurrentTimestamp,
        # aggregates and windows
        exp.Count,
        exp.Sum,
        exp.Avg,
        exp.Min,
        exp.Max,
        exp.Stddev,
        exp.StddevPop,
        exp.StddevSamp,
        exp.Variance,
        exp.VariancePop,
        exp.GroupConcat,
        exp.Filter,
        exp.Window,
        exp.WindowSpec,
        exp.RowNumber,
        exp.Rank,
        exp.DenseRank,
        exp.PercentRank,
        exp.CumeDist,
        exp.Ntile,
        exp.Lag,
        exp.Lead,
        exp.FirstValue,
        exp.LastValue,
        exp.NthValue,
        exp.IgnoreNulls,
        exp.RespectNulls,
        exp.Cube,
        exp.Rollup,
        exp.GroupingSets,
        exp.Grouping,  # with one argument: sql/rules/aggregates.py spells out several
        exp.WithinGroup,  # PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x) only
        exp.PercentileDisc,
    }
)

# Types with one meaning in the standard and in every engine we render to.
ALLOWED_TYPES: frozenset[exp.DType] = frozenset(
    {
        exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT, exp.DType.DECIMAL,
        exp.DType.DOUBLE, exp.DType.FLOAT, exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.TEXT,
        exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.DATETIME, exp.DType.DATETIME2,
        exp.DType.BOOLEAN,
    }
)  # fmt: skip


# Set on a root whose every LIMIT is a FETCH already (sql/translate.py converts them in its
# own walk), so that the generator does not walk the tree again to look for them.
LIMITS_AS_FETCH = "plumbline_limits_as_fetch"


def limit_to_fetch(expression: exp.Expr, limits: Iterable[exp.Limit] | None = None) -> exp.Expr:
    """LIMIT/TOP n [PERCENT] [WITH TIES] -> FETCH FIRST, keeping the options sqlglot would drop.
    ``limits``: the tree's LIMIT nodes, when the caller has found them."""
    for limit in list(expression.find_all(exp.Limit) if limits is None else limits):
        fetch = exp.Fetch(
            direction="FIRST",
            count=limit.expression,
            limit_options=limit.args.get("limit_options"),
        )
        limit.replace(fetch)
    return expression


class Ansi(Dialect):
    # The generator always writes NULLS FIRST/LAST explicitly, so this only decides how a
    # re-parsed ORDER BY without them is read: the standard leaves it implementation-defined.
    NULL_ORDERING = "nulls_are_last"
    # Integer division is never emitted bare between two integers (see sql/rules/division.py),
    # so the reading of `/` does not depend on the engine.
    TYPED_DIVISION = False

    class Tokenizer(tokens.Tokenizer):
        IDENTIFIERS = ['"']
        QUOTES = ["'"]
        KEYWORDS = {**tokens.Tokenizer.KEYWORDS, "LIKE_REGEX": tokens.TokenType.RLIKE}

    class Parser(parser.Parser):
        FUNCTION_PARSERS = {
            **parser.Parser.FUNCTION_PARSERS,
            "LISTAGG": lambda self: self._parse_string_agg(),
        }

    class Generator(generator.Generator):
        LIMIT_FETCH = "FETCH"
        NULL_ORDERING_SUPPORTED = True
        INTERVAL_ALLOWS_PLURAL_FORM = False
        SINGLE_STRING_INTERVAL = False
        TABLESAMPLE_REQUIRES_PARENS = True
        QUERY_HINTS = False
        JOIN_HINTS = False
        TABLE_HINTS = False
        EXTRACT_ALLOWS_QUOTES = False
        NVL2_SUPPORTED = False
        SUPPORTS_SELECT_INTO = False

        TYPE_MAPPING = {
            **generator.Generator.TYPE_MAPPING,
            exp.DType.INT: "INTEGER",
            exp.DType.DOUBLE: "DOUBLE PRECISION",
            # sqlglot's FLOAT is single precision; the source parsers map each dialect's
            # 64-bit names to DOUBLE (sql/source_dialects.py).
            exp.DType.FLOAT: "REAL",
            exp.DType.TEXT: "VARCHAR",
            # T-SQL DATETIME/DATETIME2 and BigQuery DATETIME are timestamps without time zone.
            exp.DType.DATETIME: "TIMESTAMP",
            exp.DType.DATETIME2: "TIMESTAMP",
        }

        TRANSFORMS = {
            **generator.Generator.TRANSFORMS,
            exp.Length: lambda self, e: self.func("CHAR_LENGTH", e.this),
            exp.Mod: lambda self, e: self.func("MOD", e.this, e.expression),
            exp.Pow: lambda self, e: self.func("POWER", e.this, e.expression),
            exp.Ceil: lambda self, e: self.func("CEILING", e.this),
            exp.CurrentDate: lambda self, e: "CURRENT_DATE",
            exp.CurrentTimestamp: lambda self, e: "CURRENT_TIMESTAMP",
            exp.Stddev: lambda self, e: self.func("STDDEV_SAMP", e.this),
            exp.Variance: lambda self, e: self.func("VAR_SAMP", e.this),
            exp.VariancePop: lambda self, e: self.func("VAR_POP", e.this),
        }

        def preprocess(self, expression: exp.Expr) -> exp.Expr:
            if not expression.meta.get(LIMITS_AS_FETCH):
                expression = limit_to_fetch(expression)
            return super().preprocess(expression)

        def sql(
            self, expression: str | exp.Expr | None, key: str | None = None, comment: bool = True
        ) -> str:
            if (
                isinstance(expression, exp.Expr)
                and not key
                and type(expression) not in ALLOWED_EXPRESSIONS
            ):
                self.unsupported(f"{expression.key.upper()} has no exact ANSI SQL form")
            return super().sql(expression, key, comment)

        def datatype_sql(self, expression: exp.DataType) -> str:
            if expression.this not in ALLOWED_TYPES:
                self.unsupported(f"type {expression.this.value} has no exact ANSI SQL form")
            return super().datatype_sql(expression)

        def ordered_sql(self, expression: exp.Ordered) -> str:
            # Default NULL ordering differs between engines, so it is always spelled out.
            direction = " DESC" if expression.args.get("desc") else " ASC"
            nulls = " NULLS FIRST" if expression.args.get("nulls_first") else " NULLS LAST"
            return f"{self.sql(expression, 'this')}{direction}{nulls}"

        def offset_sql(self, expression: exp.Offset) -> str:
            return f"{self.sql(expression, 'this')}{self.seg('OFFSET')} {self.sql(expression, 'expression')} ROWS"

        def fetch_sql(self, expression: exp.Fetch) -> str:
            count = self.sql(expression, "count") or "1"
            options = expression.args.get("limit_options")
            percent = " PERCENT" if options and options.args.get("percent") else ""
            ties = " WITH TIES" if options and options.args.get("with_ties") else " ONLY"
            return f"{self.seg('FETCH FIRST')} {count}{percent} ROWS{ties}"

        def trim_sql(self, expression: exp.Trim) -> str:
            position = self.sql(expression, "position")
            characters = self.sql(expression, "expression")
            if not position and not characters:
                return f"TRIM({self.sql(expression, 'this')})"
            spec = f"{position or 'BOTH'} {characters} FROM " if characters else f"{position} FROM "
            return f"TRIM({spec}{self.sql(expression, 'this')})"

        def substring_sql(self, expression: exp.Substring) -> str:
            length = self.sql(expression, "length")
            length = f" FOR {length}" if length else ""
            start = self.sql(expression, "start") or "1"
            return f"SUBSTRING({self.sql(expression, 'this')} FROM {start}{length})"

        def strposition_sql(self, expression: exp.StrPosition) -> str:
            if expression.args.get("position") or expression.args.get("occurrence"):
                self.unsupported("POSITION has no start or occurrence argument in ANSI SQL")
            return f"POSITION({self.sql(expression, 'substr')} IN {self.sql(expression, 'this')})"

        def regexplike_sql(self, expression: exp.RegexpLike) -> str:
            return self.binary(expression, "LIKE_REGEX")

        def dpipe_sql(self, expression: exp.DPipe) -> str:
            return self.binary(expression, "||")

        def groupconcat_sql(self, expression: exp.GroupConcat) -> str:
            this = expression.this
            order = this if isinstance(this, exp.Order) else None
            value = order.this if order else this
            separator = expression.args.get("separator") or exp.Literal.string(",")
            distinct = isinstance(value, exp.Distinct)
            if distinct:
                value = value.expressions[0]
            order_sql = self.sql(order) if order else f" ORDER BY {self.sql(value)} ASC NULLS LAST"
            prefix = "DISTINCT " if distinct else ""
            order_sql = order_sql.replace(self.sep(), " ").strip()
            return f"LISTAGG({prefix}{self.sql(value)}, {self.sql(separator)}) WITHIN GROUP ({order_sql})"

        def order_sql(self, expression: exp.Order, flat: bool = False) -> str:
            # An Order nested in LISTAGG keeps its value in `this`; only the keys are printed.
            if isinstance(expression.parent, exp.GroupConcat):
                return f"ORDER BY {self.expressions(expression, flat=True)}"
            return super().order_sql(expression, flat)

        def lateral_op(self, expression: exp.Lateral) -> str:
            # CROSS APPLY is an inner lateral join, OUTER APPLY a left one that keeps every row.
            cross_apply = expression.args.get("cross_apply")
            if cross_apply is True:
                return "CROSS JOIN LATERAL"
            if cross_apply is False:
                return "LEFT JOIN LATERAL"
            return "LATERAL"

        def lateral_sql(self, expression: exp.Lateral) -> str:
            sql = super().lateral_sql(expression)
            return f"{sql} ON TRUE" if expression.args.get("cross_apply") is False else sql


def generate(expression: exp.Expr, *, pretty: bool = True, copy: bool = True) -> str:
    """ANSI text for ``expression``; raises sqlglot's UnsupportedError on anything outside the list.

    With ``copy=False`` the generator rewrites LIMIT into FETCH in place: pass a tree you own.
    """
    generator = Ansi().generator(
        pretty=pretty, identify=True, unsupported_level=ErrorLevel.RAISE, max_unsupported=10
    )
    return generator.generate(expression, copy=copy)


__all__ = ["ALLOWED_EXPRESSIONS", "ALLOWED_TYPES", "Ansi", "generate", "limit_to_fetch"]
