"""Source dialects as sqlglot parses them, with the few parse-time distinctions translation needs.

sqlglot folds some constructs that differ in meaning into one node; where the difference
matters for an exact translation, the parsers here keep it.

Floating-point type names are the main case: sqlglot reads REAL and FLOAT (and FLOAT4) as
its 32-bit FLOAT in most dialects, but the width each name means is the dialect's own:
- Snowflake: FLOAT, FLOAT4, FLOAT8, DOUBLE, REAL are all 64-bit
  (https://docs.snowflake.com/en/sql-reference/data-types-numeric#float-float4-float8);
- Teradata: FLOAT, REAL and DOUBLE PRECISION are all 64-bit IEEE;
- BigQuery: FLOAT is the legacy name of FLOAT64;
- T-SQL: FLOAT is FLOAT(53), 64-bit; REAL is FLOAT(24), 32-bit; FLOAT(1..24) is 32-bit
  (https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql);
- Redshift: REAL/FLOAT4 32-bit, FLOAT/FLOAT8/DOUBLE PRECISION 64-bit (sqlglot's reading);
- Oracle: FLOAT and REAL are NUMBER subtypes (decimal with binary precision), not binary
  floating point; BINARY_FLOAT/BINARY_DOUBLE are the IEEE types.
So each tokenizer below maps the names to the width they mean: DOUBLE for 64-bit, FLOAT for
32-bit (rendered REAL in ANSI), and DECFLOAT (refused: no exact ANSI type) for Oracle's
decimal floats.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.bigquery import BigQuery
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.redshift import Redshift
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.dialects.teradata import Teradata
from sqlglot.dialects.tsql import TSQL
from sqlglot.tokens import TokenType


def _redshift_add_months(args: list[exp.Expr]) -> exp.Expr:
    # Redshift ADD_MONTHS maps a month's last day to the target month's last day (DATEADD does
    # not) and returns a TIMESTAMP; sqlglot parses both as TsOrDsAdd.
    added = exp.AddMonths(this=args[0], expression=args[1], preserve_end_of_month=True)
    return exp.Cast(this=added, to=exp.DataType.build("TIMESTAMP"))


class PlumblineRedshift(Redshift):
    class Parser(Redshift.Parser):
        FUNCTIONS = {**Redshift.Parser.FUNCTIONS, "ADD_MONTHS": _redshift_add_months}


class PlumblineSnowflake(Snowflake):
    class Tokenizer(Snowflake.Tokenizer):
        KEYWORDS = {
            **Snowflake.Tokenizer.KEYWORDS,
            "FLOAT4": TokenType.DOUBLE,
            "REAL": TokenType.DOUBLE,
        }


class CaseN(exp.Expression, exp.Func):
    """Teradata's ``CASE_N(c1, ..., cn [, NO CASE [OR UNKNOWN]] [, UNKNOWN])``: the conditions,
    and which of the extra cases are given (``no_case``, ``or_unknown``, ``unknown``)."""

    arg_types = {"expressions": True, "no_case": False, "or_unknown": False, "unknown": False}


def _parse_case_n(parser: Teradata.Parser) -> CaseN:
    conditions: list[exp.Expr] = []
    extras: dict[str, bool] = {}
    while True:
        if not extras.get("unknown") and parser._match_text_seq("NO", "CASE"):
            extras["no_case"] = True
            if parser._match_text_seq("OR", "UNKNOWN"):
                extras["or_unknown"] = True
        elif not extras.get("or_unknown") and parser._match_text_seq("UNKNOWN"):
            extras["unknown"] = True
        elif extras:
            parser.raise_error("CASE_N ends with NO CASE [OR UNKNOWN], then UNKNOWN")
        else:
            conditions.append(parser._parse_assignment())
        if not parser._match(TokenType.COMMA):
            break
    return parser.expression(CaseN(expressions=conditions, **extras))


class CaseSpecific(exp.Expression):
    """Teradata's data type attribute ``expr ([NOT] CASESPECIFIC)`` (or ``CS``): ``expr``'s
    value, compared case-sensitively or not (``not_``) wherever it is compared."""

    arg_types = {"this": True, "not_": False}


_CASE_ATTRIBUTES = ("CASESPECIFIC", "CS")


class ColumnPartitioning(exp.Property):
    """Teradata's ``PARTITION BY COLUMN [(group, ...)]``: how a columnar table stores its
    columns (each group in its own container, or in row format), never which rows it holds.
    ``expressions``: the column groups, each a Tuple of its columns."""

    arg_types = {"expressions": False}


class JoinIndex(exp.Expression):
    """Teradata's ``CREATE JOIN INDEX name [, option ...] AS SELECT ...``: a stored join the
    optimizer may read instead of its tables, which no query can name (its rows are always
    those of the query over the tables' current rows). ``this``: the index's name."""

    arg_types = {"this": True}


def _parse_column_group(parser: Teradata.Parser) -> exp.Expr | None:
    parser._match_texts(("COLUMN", "ROW"))
    if parser._match(TokenType.L_PAREN):
        group = exp.Tuple(expressions=parser._parse_csv(parser._parse_column))
        parser._match_r_paren()
    else:
        group = exp.Tuple(expressions=[parser._parse_column()])
    parser._match_text_seq("NO")
    parser._match_text_seq("AUTO", "COMPRESS")
    return group


def _parse_partition_by(parser: Teradata.Parser) -> exp.Property:
    # Column partitioning (Teradata 14.10+) is storage only; sqlglot reads the row
    # partitioning expressions (RANGE_N, CASE_N) but stops at COLUMN.
    if not parser._match_text_seq("COLUMN"):
        return parser._parse_partitioned_by()
    parser._match_text_seq("NO")
    parser._match_text_seq("AUTO", "COMPRESS")
    parser._match_text_seq("ALL", "BUT")
    groups: list[exp.Expr] = []
    if parser._match(TokenType.L_PAREN):
        groups = [g for g in parser._parse_csv(lambda: _parse_column_group(parser)) if g]
        parser._match_r_paren()
    if parser._match_text_seq("ADD"):
        parser._parse_number()
    return parser.expression(ColumnPartitioning(expressions=groups))


class PlumblineTeradata(Teradata):
    class Parser(Teradata.Parser):
        # CASE_N's NO CASE / UNKNOWN cases are not expressions: sqlglot stops at them.
        FUNCTION_PARSERS = {**Teradata.Parser.FUNCTION_PARSERS, "CASE_N": _parse_case_n}
        PROPERTY_PARSERS = {**Teradata.Parser.PROPERTY_PARSERS, "PARTITION BY": _parse_partition_by}

        def _parse_create(self) -> exp.Expr:
            # CREATE JOIN INDEX: sqlglot keeps it as an opaque command. Its options (FALLBACK,
            # CHECKSUM = ..., MAP = ...) are storage; its query is read, to fail on bad SQL.
            texts = [token.text.upper() for token in self._tokens[self._index : self._index + 2]]
            if texts != ["JOIN", "INDEX"]:
                return super()._parse_create()
            self._advance(2)
            name = self._parse_table_parts()
            while self._match(TokenType.COMMA):
                while self._curr and self._curr.token_type not in (
                    TokenType.COMMA,
                    TokenType.ALIAS,
                ):
                    self._advance()
            if not self._match(TokenType.ALIAS):
                self.raise_error("CREATE JOIN INDEX ... AS SELECT: expected AS")
            self._parse_select()
            return self.expression(JoinIndex(this=name))

        def _parse_types(self, *args, **kwargs) -> exp.Expr | None:
            parsed = super()._parse_types(*args, **kwargs)
            self._last_type = parsed
            return parsed

        def _parse_cast(self, strict: bool, safe: bool | None = None) -> exp.Expr:
            # sqlglot reads CAST(s AS TIME FORMAT '...') and CAST(s AS TIMESTAMP FORMAT '...')
            # both as StrToTime: keep the type the text is read as.
            self._last_type = None
            cast = super()._parse_cast(strict, safe)
            target = self._last_type
            if isinstance(cast, exp.StrToTime) and isinstance(target, exp.DataType):
                cast.set("target_type", target)
            return cast

        def _parse_index(
            self, index: exp.Expr | None = None, anonymous: bool = False
        ) -> exp.Index | None:
            # PRIMARY AMP [INDEX] (columns): INDEX may be left out (sqlglot requires it).
            start = self._index
            if not (index or anonymous) and self._match_text_seq("PRIMARY", "AMP"):
                if self._curr and self._curr.token_type == TokenType.L_PAREN:
                    params = self._parse_index_params()
                    return self.expression(exp.Index(primary=True, amp=True, params=params))
                self._retreat(start)
            return super()._parse_index(index, anonymous)

        def _parse_index_params(self) -> exp.IndexParameters:
            # A Teradata index has no PARTITION BY of its own: one after PRIMARY INDEX (a) is
            # the table's, which sqlglot's index parameters would take.
            self._in_index_params = True
            try:
                return super()._parse_index_params()
            finally:
                self._in_index_params = False

        def _parse_partition_by(self) -> list[exp.Expr]:
            if getattr(self, "_in_index_params", False):
                return []
            return super()._parse_partition_by()

        def _parse_statement(self) -> exp.Expr | None:
            # A stored procedure's body (BEGIN ... ; ... END) is not one statement to sqlglot,
            # which fails somewhere inside it: say what the statement is instead.
            texts = [token.text.upper() for token in self._tokens[self._index : self._index + 4]]
            if texts[:1] in (["CREATE"], ["REPLACE"]):
                rest = texts[3:] if texts[1:3] == ["OR", "REPLACE"] else texts[1:]
                if rest[:1] in (["PROCEDURE"], ["MACRO"]):
                    self.raise_error(f"{rest[0]}: stored procedures and macros are not translated")
            self._refuse_substitution_variables()
            return super()._parse_statement()

        def _refuse_substitution_variables(self) -> None:
            # ${name} is a shell's or a scheduler's variable, replaced in the text before it
            # reaches Teradata; sqlglot fails at the brace.
            index = self._index
            while index + 3 < len(self._tokens):
                token = self._tokens[index]
                if token.token_type == TokenType.SEMICOLON:
                    return
                following = self._tokens[index + 1 : index + 4]
                if (
                    token.text == "$"
                    and following[0].token_type == TokenType.L_BRACE
                    and following[2].token_type == TokenType.R_BRACE
                ):
                    self.raise_error(
                        f"${{{following[1].text}}} is a variable that a tool substitutes into the "
                        "text before Teradata reads it, not SQL; substitute its value first",
                        token,
                    )
                index += 1

        def _parse_unary(self) -> exp.Expr | None:
            if (
                self._curr
                and self._curr.text.upper() == "PERIOD"
                and self._next
                and self._next.token_type == TokenType.STRING
            ):
                self.raise_error("PERIOD values are not translated: ANSI SQL has no period type")
            return super()._parse_unary()

        def _parse_function(self, *args, **kwargs) -> exp.Expr | None:
            texts = [t.text.upper() for t in self._tokens[self._index : self._index + 3]]
            if texts == ["JSON_TABLE", "(", "ON"]:
                # Teradata's table operator, not SQL/JSON's JSON_TABLE: sqlglot fails at ON.
                self.raise_error(
                    "JSON_TABLE (ON query USING ROWEXPR(...) COLEXPR(...)): Teradata's table "
                    "operator of rows at a JSON path is not translated; neither engine has "
                    "JSON_TABLE, and its columns' paths and types are a JSON text"
                )
            # `c (NOT CS)` is column c with an attribute, not a call of c: sqlglot's own
            # reading of `c (FORMAT '...')`. A known function's name is still a call.
            if self._curr and self._curr.text.upper() not in self.FUNCTIONS | self.FUNCTION_PARSERS:
                texts = [t.text.upper() for t in self._tokens[self._index + 1 : self._index + 5]]
                if texts[:1] == ["("] and texts[1:2] == ["NOT"]:
                    texts = texts[:1] + texts[2:]
                if texts[1:2] and texts[1] in _CASE_ATTRIBUTES and texts[2:3] == [")"]:
                    return None
            return super()._parse_function(*args, **kwargs)

        def _parse_column_ops(self, this: exp.Expr | None) -> exp.Expr | None:
            # sqlglot reads the FORMAT and TITLE attributes after an expression, not the
            # case attribute: it takes `'a' (NOT CASESPECIFIC)` for a call of 'a'.
            this = super()._parse_column_ops(this)
            while this is not None and self._curr and self._curr.token_type == TokenType.L_PAREN:
                start = self._index
                self._advance()
                negated = self._match(TokenType.NOT)
                if not (self._match_texts(_CASE_ATTRIBUTES) and self._match(TokenType.R_PAREN)):
                    self._retreat(start)
                    break
                this = self.expression(CaseSpecific(this=this, not_=bool(negated)))
                this = super()._parse_column_ops(this)
            return this

    class Tokenizer(Teradata.Tokenizer):
        KEYWORDS = {
            **Teradata.Tokenizer.KEYWORDS,
            "FLOAT": TokenType.DOUBLE,
            "REAL": TokenType.DOUBLE,
        }


class PlumblineBigQuery(BigQuery):
    class Tokenizer(BigQuery.Tokenizer):
        KEYWORDS = {**BigQuery.Tokenizer.KEYWORDS, "FLOAT": TokenType.DOUBLE}


class PlumblineTSQL(TSQL):
    class Tokenizer(TSQL.Tokenizer):
        # FLOAT(n) with n <= 24 is 32-bit: the FLOAT-WIDTH rule narrows it.
        KEYWORDS = {**TSQL.Tokenizer.KEYWORDS, "FLOAT": TokenType.DOUBLE}


class PlumblineOracle(Oracle):
    class Tokenizer(Oracle.Tokenizer):
        KEYWORDS = {
            **Oracle.Tokenizer.KEYWORDS,
            "FLOAT": TokenType.DECFLOAT,
            "REAL": TokenType.DECFLOAT,
        }


# The legacy dialects plumbline translates, in the order reports and the rule catalog list
# them: the one list every rule, command and report reads.
SOURCE_DIALECTS: dict[str, type[Dialect] | str] = {
    "snowflake": PlumblineSnowflake,
    "tsql": PlumblineTSQL,
    "teradata": PlumblineTeradata,
    "oracle": PlumblineOracle,
    "bigquery": PlumblineBigQuery,
    "redshift": PlumblineRedshift,
}
DIALECTS: tuple[str, ...] = tuple(SOURCE_DIALECTS)
