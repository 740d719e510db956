"""A strict ANSI SQL:2016 target dialect for sqlglot.

sqlglot's base dialect is a permissive superset (LIMIT, QUALIFY, GROUP_CONCAT, ...). This
dialect emits only standard constructs and, for every expression type outside an explicit
allow-list, calls ``self.unsupported(...)``. Callers generate with
``unsupported_level=ErrorLevel.RAISE`` so nothing outside the list can slip through.

Deliberate extensions: the functions of the portable set (``sql/portable.py``: ``ROUND``,
``REPLACE``, ``REPEAT``, ``LPAD`` ...), each with one definition that ``sql/render.py`` renders
exactly for every engine, and ``SELECT`` without ``FROM``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from sqlglot import exp, generator, parser, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import TokenType

from sql import portable

# The standard's statistical aggregates of number pairs (SQL:2016 T621).
PAIR_AGGREGATES: tuple[type[exp.Expr], ...] = (
    exp.Corr,
    exp.CovarPop,
    exp.CovarSamp,
    exp.RegrAvgx,
    exp.RegrAvgy,
    exp.RegrCount,
    exp.RegrIntercept,
    exp.RegrR2,
    exp.RegrSlope,
    exp.RegrSxx,
    exp.RegrSxy,
    exp.RegrSyy,
)

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
        exp.RegexpExtract,  # SUBSTRING_REGEX, F844: sql/rules/regex_substr.py writes it
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
        # statistics of number pairs (T621): sql/rules/aggregates.py, FN-PAIR-AGGREGATE
        *PAIR_AGGREGATES,
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
        # arrays and rows (SQL:2016 S091, S092, S094, S098, T051): sql/rules/arrays.py
        exp.Unnest,  # UNNEST(a) [WITH ORDINALITY] AS r(v[, n]), in FROM
        exp.Bracket,  # a[i], 1-based
        exp.ArraySize,  # CARDINALITY(a)
        exp.Array,  # ARRAY[v, ...]
        exp.ArrayAgg,  # ARRAY_AGG(v [ORDER BY k ...]), S098
        # SQL/JSON query operators over JSON text (T821, T825, T831, T832, T835):
        # sql/rules/variant.py writes them, over paths of sql/jsonpath.py's subset
        # (JsonExists, JsonValue and JsonTable are added below, once defined)
        # the portable function set (sql/portable.py), besides ROUND and REPLACE above
        *portable.PORTABLE_NODES,
    }
)


class JsonExists(exp.Expression, exp.Func):
    """``JSON_EXISTS(j, 'path')``: whether the path finds an item (FALSE ON ERROR, the
    standard's default: a structural error in strict mode is FALSE)."""

    arg_types = {"this": True, "path": True}


class JsonValue(exp.Expression, exp.Func):
    """``JSON_VALUE(j, 'path' RETURNING T ERROR ON EMPTY ERROR ON ERROR)``: the SQL value
    (of type T: VARCHAR unless ``returning`` says otherwise) of the one scalar item the
    path finds; an empty result or any error raises."""

    arg_types = {"this": True, "path": True, "returning": False}


class JsonTable(exp.Expression, exp.Func):
    """``JSON_TABLE(j, 'path[*]' COLUMNS ("n" FOR ORDINALITY, "v" VARCHAR FORMAT JSON PATH
    'strict $' WITH ARRAY WRAPPER) ERROR ON ERROR)``: a row per item the path finds, its
    1-based ordinal and the item as JSON text wrapped in an array (``[item]``: JSON text of
    a scalar needs the wrapper); an error raises, a NULL input gives no rows."""

    arg_types = {"this": True, "path": True, "ordinality": True, "value": True}


JSON_OPERATORS = (JsonExists, JsonValue, JsonTable)


class RowValue(exp.Expression, exp.Func):
    """``ROW(v, ...)``: the standard's explicit row value constructor. Its fields have no
    names of their own: sql/rules/arrays.py writes it only as ``CAST(ROW(...) AS ROW(f T,
    ...))``, which names and types them (sqlglot's Struct would infer names per engine)."""

    arg_types = {"expressions": True}
    is_var_len_args = True
    _sql_names = ["ROW"]


ALLOWED_EXPRESSIONS = ALLOWED_EXPRESSIONS | frozenset((*JSON_OPERATORS, RowValue))


def row_field(node: exp.Expr) -> bool:
    """A field of a ROW type: a column definition inside a DataType, printed by datatype_sql."""
    return isinstance(node, exp.ColumnDef) and isinstance(node.parent, exp.DataType)


# Types with one meaning in the standard and in every engine we render to.
ALLOWED_TYPES: frozenset[exp.DType] = frozenset(
    {
        exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT, exp.DType.DECIMAL,
        exp.DType.DOUBLE, exp.DType.FLOAT, exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.TEXT,
        exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.DATETIME, exp.DType.DATETIME2,
        exp.DType.BOOLEAN,
        # T ARRAY and ROW(f T, ...): every engine stores Parquet's lists and structs
        exp.DType.ARRAY, exp.DType.STRUCT,
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


def group_problem(group: exp.Group) -> str | None:
    """Why ``group`` has no standard form the generator can write, or None.

    T-SQL's (and MySQL's) ``GROUP BY a, b WITH ROLLUP`` is the standard's ``ROLLUP (a, b)``
    (SQL:1999 T431), ``WITH CUBE`` its ``CUBE (a, b)``: the generator writes those. What
    has no exact form: T-SQL's ``GROUP BY ALL a`` (also the groups WHERE removes, their
    aggregates NULL), the bare ``GROUP BY ALL`` of Snowflake, BigQuery and DuckDB (every
    select item without an aggregate), ``GROUP BY DISTINCT`` (T434, which DuckDB does not
    parse), ClickHouse's ``WITH TOTALS`` and Hive's ``GROUP BY a GROUPING SETS (...)``."""
    grouping = group.args.get("all")
    if grouping is True:
        if group.expressions:
            return (
                "GROUP BY ALL with a list (T-SQL: also the groups the WHERE clause removes, "
                "with NULL aggregates) has no exact ANSI SQL form"
            )
        return (
            "GROUP BY ALL (grouping by every select item without an aggregate) has no ANSI "
            "SQL form; list the grouping expressions"
        )
    if grouping is False:
        return "GROUP BY DISTINCT has no form every engine reads"
    if group.args.get("totals"):
        return "GROUP BY ... WITH TOTALS has no exact ANSI SQL form"
    if group.args.get("grouping_sets"):
        return "GROUPING SETS after a GROUP BY list has no exact ANSI SQL form"
    suffixes = [*(group.args.get("rollup") or ()), *(group.args.get("cube") or ())]
    if suffixes and (
        len(suffixes) != 1
        or suffixes[0].expressions
        or not group.expressions
        or any(isinstance(e, _GROUPINGS) for e in group.expressions)
    ):
        return "WITH ROLLUP or WITH CUBE over grouping sets has no exact ANSI SQL form"
    return None


_GROUPINGS = (exp.Rollup, exp.Cube, exp.GroupingSets)


def window_problem(window: exp.Window) -> str | None:
    """Why ``window`` has no form every engine reads, or None: Oracle's ``KEEP (DENSE_RANK
    FIRST ...)`` (sqlglot reads it as a window), and a window defined from another named
    window (``WINDOW w2 AS (w1)``, ``OVER (w ORDER BY ...)``): the standard forbids copying a
    frame or a later window, which T-SQL and BigQuery allow, and DuckDB refuses both."""
    if str(window.args.get("over") or "").upper() == "KEEP":
        return "KEEP (DENSE_RANK FIRST | LAST ORDER BY ...) has no exact ANSI SQL form"
    if not window.args.get("alias"):
        return None
    refines = any(window.args.get(k) for k in ("partition_by", "order", "spec"))
    if window.arg_key == "windows" or refines:
        return (
            "a window defined from another named window has no form every engine reads; "
            "write its PARTITION BY, ORDER BY and frame"
        )
    return None


def parenthesized_table(subquery: exp.Subquery) -> exp.Table | None:
    """The table of ``FROM (t)`` (a table in parentheses, as Redshift and T-SQL allow), which
    the standard writes without them; None for any other subquery."""
    this = subquery.this
    if isinstance(this, exp.Table) and not any(v for k, v in subquery.args.items() if k != "this"):
        return this
    return None


def standard_group(group: exp.Group) -> exp.Group:
    """``group`` with a ``WITH ROLLUP`` / ``WITH CUBE`` suffix written as the standard's
    ``ROLLUP (...)`` / ``CUBE (...)`` over its list (a new node; ``group`` is unchanged)."""
    suffixes = [*(group.args.get("rollup") or ()), *(group.args.get("cube") or ())]
    if not suffixes:
        return group
    kind = type(suffixes[0])
    return exp.Group(expressions=[kind(expressions=[e.copy() for e in group.expressions])])


def _refuse_outside_list(sql_generator: generator.Generator, expression: exp.Expr) -> None:
    if type(expression) not in ALLOWED_EXPRESSIONS and not row_field(expression):
        sql_generator.unsupported(f"{expression.key.upper()} has no exact ANSI SQL form")


_CHECKED_DISPATCH: dict[type, dict[type[exp.Expr], Callable[..., str]]] = {}


def _checked_dispatch(
    kind: type, dispatch: dict[type[exp.Expr], Callable[..., str]]
) -> dict[type[exp.Expr], Callable[..., str]]:
    """``dispatch`` (a generator's handler of each node type) with each type outside the
    allow-list refused before its handler runs."""
    checked = _CHECKED_DISPATCH.get(kind)
    if checked is None:

        def refusing(handler: Callable[..., str]) -> Callable[..., str]:
            def handle(sql_generator: generator.Generator, expression: exp.Expr) -> str:
                _refuse_outside_list(sql_generator, expression)
                return handler(sql_generator, expression)

            return handle

        checked = _CHECKED_DISPATCH[kind] = {
            node: handler if node in ALLOWED_EXPRESSIONS else refusing(handler)
            for node, handler in dispatch.items()
        }
    return checked


# Characters a reader cannot see or a text tool may change (controls such as tab or carriage
# return, line and paragraph separators, format characters, spaces other than U+0020): a
# string holding one is written as the standard's Unicode literal (U&'...', feature F393) with
# those characters as escapes, so the stored SQL keeps them byte for byte and shows them.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Zs"})


def invisible(char: str) -> bool:
    return char != " " and unicodedata.category(char) in INVISIBLE_CATEGORIES


UNICODE_ESCAPE = re.compile(r"\\(\\|\+[0-9A-Fa-f]{6}|[0-9A-Fa-f]{4})")


def unicode_literal(text: str) -> str:
    """``text`` as U&'...': each invisible character as \\XXXX (\\+XXXXXX beyond U+FFFF), a
    backslash doubled, a quote doubled."""

    def escape(char: str) -> str:
        if char == "\\":
            return "\\\\"
        if char == "'":
            return "''"
        if not invisible(char):
            return char
        code = ord(char)
        return f"\\{code:04X}" if code <= 0xFFFF else f"\\+{code:06X}"

    return "U&'" + "".join(escape(char) for char in text) + "'"


def unicode_literal_text(body: str) -> str:
    """The string a U&'...' literal's body (its quotes already undoubled) denotes."""

    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        return "\\" if code == "\\" else chr(int(code.lstrip("+"), 16))

    return UNICODE_ESCAPE.sub(decode, body)


class Ansi(Dialect):
    # The generator always writes NULLS FIRST/LAST explicitly, so this only decides how a
    # re-parsed ORDER BY without them is read: the standard leaves it implementation-defined.
    NULL_ORDERING = "nulls_are_last"
    # Integer division is never emitted bare between two integers (see sql/rules/division.py),
    # so the reading of `/` does not depend on the engine.
    TYPED_DIVISION = False
    # A subscript is kept as written, never shifted: a[1] is the first element, in the
    # standard, in the rules that write it (sql/rules/arrays.py) and in sql/render.py, which
    # writes each engine's own element access from it.
    INDEX_OFFSET = 0

    class Tokenizer(tokens.Tokenizer):
        IDENTIFIERS = ['"']
        QUOTES = ["'"]
        UNICODE_STRINGS = [("U&'", "'")]
        KEYWORDS = {**tokens.Tokenizer.KEYWORDS, "LIKE_REGEX": tokens.TokenType.RLIKE}

    class Parser(parser.Parser):
        # A Unicode literal (U&'...', written for text with invisible characters) is read
        # back as the plain string it denotes.
        STRING_PARSERS = {
            **parser.Parser.STRING_PARSERS,
            TokenType.UNICODE_STRING: lambda self, token: self.expression(
                exp.Literal.string(unicode_literal_text(token.text)), token
            ),
        }
        PRIMARY_PARSERS = {**parser.Parser.PRIMARY_PARSERS, **STRING_PARSERS}
        # The portable functions' names read as the portable set's calls, not as sqlglot's
        # functions of the same names (which the source dialects parse to).
        FUNCTIONS = {**parser.Parser.FUNCTIONS, **portable.PARSERS}
        FUNCTION_PARSERS = {
            **{
                k: v for k, v in parser.Parser.FUNCTION_PARSERS.items() if k not in portable.PARSERS
            },
            "LISTAGG": lambda self: self._parse_string_agg(),
            "CARDINALITY": lambda self: exp.ArraySize(this=self._parse_disjunction()),
            "ROW": lambda self: RowValue(expressions=self._parse_csv(self._parse_disjunction)),
            "JSON_EXISTS": lambda self: self._parse_json_operator(JsonExists),
            "JSON_VALUE": lambda self: self._parse_json_operator(JsonValue),
            "JSON_TABLE": lambda self: self._parse_json_operator(JsonTable),
            "SUBSTRING_REGEX": lambda self: self._parse_substring_regex(),
        }

        # What follows the path of each SQL/JSON operator, as the generator writes it.
        _JSON_TAILS = {
            JsonExists: (),
            JsonValue: ("RETURNING",),
            JsonTable: ("COLUMNS", "("),
        }
        _JSON_TABLE_COLUMNS = ("FOR", "ORDINALITY", ",")
        _JSON_TABLE_VALUE = (
            "VARCHAR", "FORMAT", "JSON", "PATH", "'strict $'", "WITH", "ARRAY", "WRAPPER", ")",
            "ERROR", "ON", "ERROR",
        )  # fmt: skip

        def _expect(self, words: tuple[str, ...]) -> None:
            for word in words:
                text = self._curr.text if self._curr else ""
                if word.startswith("'"):
                    ok = self._curr is not None and self._curr.token_type == TokenType.STRING
                    ok = ok and f"'{text}'" == word
                else:
                    ok = text.upper() == word
                if not ok:
                    self.raise_error(f"expected {word}")
                    return
                self._advance()

        def _parse_substring_regex(self) -> exp.Expr:
            """SUBSTRING_REGEX(p IN s FROM n OCCURRENCE m GROUP g), as the generator writes it."""
            pattern = self._parse_primary()
            self._expect(("IN",))
            this = self._parse_bitwise()
            args: dict[str, exp.Expr | None] = {}
            for word, arg in (
                ("FROM", "position"),
                ("OCCURRENCE", "occurrence"),
                ("GROUP", "group"),
            ):
                self._expect((word,))
                args[arg] = self._parse_bitwise()
            return exp.RegexpExtract(this=this, expression=pattern, **args)

        def _parse_json_operator(self, kind: type[exp.Func]) -> exp.Expr:
            """The SQL/JSON operators in the one form the generator writes (see their
            classes); anything else is a parse error."""
            this = self._parse_disjunction()
            self._match(TokenType.COMMA)
            path = self._parse_primary()
            if not (isinstance(path, exp.Literal) and path.is_string):
                self.raise_error("a SQL/JSON path is a string literal")
            self._expect(self._JSON_TAILS[kind])
            if kind is JsonValue:
                returning = self._parse_types()
                self._expect(("ERROR", "ON", "EMPTY", "ERROR", "ON", "ERROR"))
                return JsonValue(this=this, path=path, returning=returning)
            if kind is not JsonTable:
                return kind(this=this, path=path)
            ordinality = self._parse_id_var(any_token=False)
            self._expect(self._JSON_TABLE_COLUMNS)
            value = self._parse_id_var(any_token=False)
            self._expect(self._JSON_TABLE_VALUE)
            return JsonTable(this=this, path=path, ordinality=ordinality, value=value)

        def _parse_types(
            self,
            check_func: bool = False,
            schema: bool = False,
            allow_identifiers: bool = True,
            with_collation: bool = False,
        ) -> exp.Expr | None:
            """The standard's type syntax besides sqlglot's: ``ROW(f T, ...)`` and any number
            of postfix ``ARRAY`` (``BIGINT ARRAY ARRAY``)."""
            if (
                self._curr
                and self._curr.token_type == TokenType.ROW
                and self._next
                and self._next.token_type == TokenType.L_PAREN
                and self._row_type_follows()
            ):
                self._advance(2)
                fields = self._parse_csv(self._parse_row_field)
                self._match_r_paren()
                row = exp.DataType(this=exp.DType.STRUCT, expressions=fields, nested=True)
                return self._parse_array_suffixes(row)
            # sqlglot reads one postfix ARRAY, and only before more text: it is hidden from
            # it (see _match) and every one is read here.
            outer, self._in_type = getattr(self, "_in_type", False), True
            try:
                this = super()._parse_types(check_func, schema, allow_identifiers, with_collation)
            finally:
                self._in_type = outer
            if not isinstance(this, exp.DataType):
                return this
            return self._parse_array_suffixes(this)

        def _match(
            self, token_type: TokenType, advance: bool = True, expression: exp.Expr | None = None
        ) -> bool | None:
            if token_type == TokenType.ARRAY and getattr(self, "_in_type", False):
                return None
            return super()._match(token_type, advance, expression)

        def _row_type_follows(self) -> bool:
            """Whether ``ROW (`` starts a row type (``ROW(f T, ...)``), not the row value
            constructor ``ROW(1, x)``: a field name and then a type."""
            ahead = self._tokens[self._index + 2 : self._index + 4]
            return (
                len(ahead) == 2
                and ahead[0].token_type in (TokenType.VAR, TokenType.IDENTIFIER)
                # a nested row type's ROW is not one of sqlglot's type tokens
                and (
                    ahead[1].token_type in self.TYPE_TOKENS or ahead[1].token_type == TokenType.ROW
                )
            )

        def _parse_array_suffixes(self, this: exp.Expr) -> exp.Expr:
            while self._match(TokenType.ARRAY):
                this = exp.DataType(this=exp.DType.ARRAY, expressions=[this], nested=True)
            return this

        def _parse_row_field(self) -> exp.ColumnDef | None:
            name = self._parse_id_var(any_token=False)
            kind = self._parse_types()
            if name is None or not isinstance(kind, exp.DataType):
                self.raise_error("expected a field name and type in ROW(...)")
                return None
            return exp.ColumnDef(this=name, kind=kind)

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

        def literal_sql(self, expression: exp.Literal) -> str:
            if expression.is_string and any(map(invisible, expression.this or "")):
                return unicode_literal(expression.this)
            return super().literal_sql(expression)

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
            JsonExists: lambda self, e: self.jsonexists_sql(e),
            RowValue: lambda self, e: self.func("ROW", *e.expressions),
            JsonValue: lambda self, e: self.jsonvalue_sql(e),
            JsonTable: lambda self, e: self.jsontable_sql(e),
        }

        def preprocess(self, expression: exp.Expr) -> exp.Expr:
            if not expression.meta.get(LIMITS_AS_FETCH):
                expression = limit_to_fetch(expression)
            return super().preprocess(expression)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # A node outside the allow-list is refused as it is generated. The check is in
            # the handlers of the types outside it (and in the fallbacks below, for types
            # without a handler), not in an override of sql(): that cost a Python call per
            # node, a third of the generator's time.
            self._dispatch = _checked_dispatch(type(self), self._dispatch)

        def function_fallback_sql(self, expression: exp.Func) -> str:
            if type(expression) not in self._dispatch:  # else checked by its handler
                _refuse_outside_list(self, expression)
            return super().function_fallback_sql(expression)

        def property_sql(self, expression: exp.Property) -> str:
            if type(expression) not in self._dispatch:
                _refuse_outside_list(self, expression)
            return super().property_sql(expression)

        def subquery_sql(self, expression: exp.Subquery, sep: str = " AS ") -> str:
            table = parenthesized_table(expression)
            if table is not None:
                return self.sql(table)
            if isinstance(expression.this, exp.Table):
                self.unsupported("a table in parentheses with an alias has no ANSI SQL form")
            return super().subquery_sql(expression, sep)

        def window_sql(self, expression: exp.Window) -> str:
            problem = window_problem(expression)
            if problem is not None:
                self.unsupported(problem)
            return super().window_sql(expression)

        def group_sql(self, expression: exp.Group) -> str:
            problem = group_problem(expression)
            if problem is not None:
                self.unsupported(problem)
            return super().group_sql(standard_group(expression))

        def datatype_sql(self, expression: exp.DataType) -> str:
            if expression.this not in ALLOWED_TYPES:
                self.unsupported(f"type {expression.this.value} has no exact ANSI SQL form")
            # ``this ==`` is is_type's answer for a type without parameters, without the
            # DataType is_type builds to compare with.
            if expression.this == exp.DType.ARRAY:
                if len(expression.expressions) != 1 or expression.args.get("values"):
                    self.unsupported("an ARRAY type has one element type and no bound here")
                return f"{self.sql(expression.expressions[0])} ARRAY"
            if expression.this == exp.DType.STRUCT:
                fields = []
                for field in expression.expressions:
                    if not isinstance(field, exp.ColumnDef) or not field.args.get("kind"):
                        self.unsupported("a ROW type's fields each have a name and a type")
                        continue
                    fields.append(f"{self.sql(field, 'this')} {self.sql(field, 'kind')}")
                return f"ROW({', '.join(fields)})"
            return super().datatype_sql(expression)

        def bracket_sql(self, expression: exp.Bracket) -> str:
            if len(expression.expressions) != 1:
                self.unsupported("an array subscript takes one index")
            array = self.sql(expression, "this")
            if not isinstance(expression.this, (exp.Column, exp.Func, exp.Paren, exp.Bracket)):
                array = f"({array})"  # e.g. an aggregate with FILTER (WHERE ...)
            return f"{array}[{self.expressions(expression, flat=True)}]"

        def arraysize_sql(self, expression: exp.ArraySize) -> str:
            return self.func("CARDINALITY", expression.this)

        def array_sql(self, expression: exp.Array) -> str:
            return f"ARRAY[{self.expressions(expression, flat=True)}]"

        def unnest_sql(self, expression: exp.Unnest) -> str:
            # UNNEST(a) [WITH ORDINALITY] AS r(v[, n]): the ordinality is the last column.
            alias = expression.args.get("alias")
            offset = expression.args.get("offset")
            if len(expression.expressions) != 1 or not isinstance(alias, exp.TableAlias):
                self.unsupported("UNNEST takes one array and names its range and columns")
                return ""
            columns = [self.sql(c) for c in alias.columns]
            ordinality = ""
            if isinstance(offset, exp.Identifier):
                ordinality = " WITH ORDINALITY"
                columns.append(self.sql(exp.to_identifier(offset.name, quoted=True)))
            name = self.sql(alias, "this")
            return (
                f"UNNEST({self.sql(expression.expressions[0])}){ordinality} AS "
                f"{name}({', '.join(columns)})"
            )

        def jsonexists_sql(self, expression: JsonExists) -> str:
            return self.func("JSON_EXISTS", expression.this, expression.args["path"])

        def jsonvalue_sql(self, expression: JsonValue) -> str:
            json_text, path = self.sql(expression, "this"), self.sql(expression, "path")
            returning = self.sql(expression, "returning") or "VARCHAR"
            return (
                f"JSON_VALUE({json_text}, {path} RETURNING {returning} ERROR ON EMPTY ERROR ON "
                "ERROR)"
            )

        def jsontable_sql(self, expression: JsonTable) -> str:
            json_text, path = self.sql(expression, "this"), self.sql(expression, "path")
            ordinality, value = self.sql(expression, "ordinality"), self.sql(expression, "value")
            return (
                f"JSON_TABLE({json_text}, {path} COLUMNS ({ordinality} FOR ORDINALITY, {value} "
                "VARCHAR FORMAT JSON PATH 'strict $' WITH ARRAY WRAPPER) ERROR ON ERROR)"
            )

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

        def regexpextract_sql(self, expression: exp.RegexpExtract) -> str:
            # Only FN-REGEXP-SUBSTR writes one, with every part; a source's extraction that no
            # rule read has no standard form (its parts default per dialect).
            if any(expression.args.get(k) is None for k in ("position", "occurrence", "group")):
                self.unsupported("regular-expression extraction has no exact ANSI SQL form")
            pattern = self.sql(expression, "expression")
            parts = [f"SUBSTRING_REGEX({pattern} IN {self.sql(expression, 'this')}"]
            for word, arg in (
                ("FROM", "position"),
                ("OCCURRENCE", "occurrence"),
                ("GROUP", "group"),
            ):
                parts.append(f"{word} {self.sql(expression, arg)}")
            return " ".join(parts) + ")"

        def dpipe_sql(self, expression: exp.DPipe) -> str:
            return self.binary(expression, "||")

        def groupconcat_sql(self, expression: exp.GroupConcat) -> str:
            this = expression.this
            order = this if isinstance(this, exp.Order) else None
            value = order.this if order else this
            separator = expression.args.get("separator")
            if separator is None:
                # The sources' defaults differ (none, '', ','): STRING-AGG writes one.
                self.unsupported("LISTAGG without a separator")
                separator = exp.Literal.string("")
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


@lru_cache(maxsize=4096)
def parse_type(text: str) -> exp.DataType:
    """An ANSI type text (a catalog's column type) as a DataType, shared: copy it before
    changing it. Raises sqlglot's ParseError on text that is not a type."""
    return exp.DataType.build(text, dialect=Ansi)


def generate(expression: exp.Expr, *, pretty: bool = True, copy: bool = True) -> str:
    """ANSI text for ``expression``; raises sqlglot's UnsupportedError on anything outside the list.

    With ``copy=False`` the generator rewrites LIMIT into FETCH in place: pass a tree you own.
    """
    generator = Ansi().generator(
        pretty=pretty, identify=True, unsupported_level=ErrorLevel.RAISE, max_unsupported=10
    )
    return generator.generate(expression, copy=copy)


__all__ = [
    "ALLOWED_EXPRESSIONS",
    "ALLOWED_TYPES",
    "JSON_OPERATORS",
    "Ansi",
    "JsonExists",
    "JsonTable",
    "JsonValue",
    "RowValue",
    "generate",
    "group_problem",
    "limit_to_fetch",
    "parenthesized_table",
    "parse_type",
    "row_field",
    "standard_group",
    "window_problem",
]
