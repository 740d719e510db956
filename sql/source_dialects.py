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


class PlumblineTeradata(Teradata):
    class Parser(Teradata.Parser):
        # CASE_N's NO CASE / UNKNOWN cases are not expressions: sqlglot stops at them.
        FUNCTION_PARSERS = {**Teradata.Parser.FUNCTION_PARSERS, "CASE_N": _parse_case_n}

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
