"""Catalogs from what a migration team already has: the legacy warehouse's CREATE TABLE DDL.

Each dialect's column types map to ANSI types exactly, after that dialect's documented
defaults are applied (a Snowflake NUMBER is NUMBER(38,0), a T-SQL VARCHAR in DDL is
VARCHAR(1), an Oracle DATE has a time of day). A type with no exact ANSI form is kept as
declared, marked opaque and reported: translation then refuses expressions over it rather
than guessing its meaning.

Lake tables are named ``<zone>.<table>``; tables that share a name in different schemas or
databases are told apart by their qualifiers (``<schema>__<table>``, then
``<db>__<schema>__<table>``), for every one of them, so the names depend only on the DDL.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy
from sqlglot.errors import ParseError
from sqlglot.tokens import Token, TokenType

from sql.assumptions import NAMESPACE_LEVELS
from sql.catalog import fold
from sql.client_commands import read_bteq
from sql.diagnostics import Diagnostic, Severity, node_offset, offset_to_line_col
from sql.rules.variant import JSON_TYPES
from sql.session import command_text
from sql.source_dialects import SOURCE_DIALECTS, SessionSetting, StorageOption, semantics
from sql.source_limits import check_statement_count, check_statement_estimate

# A rule turns a declared type's parameters (as written: "10", "MAX", "*") into its exact
# ANSI type, or None when there is none (the column is then opaque).
TypeRule = Callable[[tuple[str, ...]], str | None]

# Engines (DuckDB, Spark) and Parquet's decimal hold at most 38 digits; ANSI sets no limit,
# but a DECIMAL no engine can build is not a type the lake can hold.
MAX_DECIMAL_PRECISION = 38


class CatalogImportError(Exception):
    """The DDL cannot be imported exactly; carries every located diagnostic."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


def _number(text: str) -> int | None:
    return int(text) if re.fullmatch(r"\d+", text) else None


def fixed(ansi: str) -> TypeRule:
    """A type that takes no parameters."""
    return lambda params: None if params else ansi


def opaque(params: tuple[str, ...]) -> None:
    return None


def decimal(default: tuple[int, int] | None, *, star: bool = False) -> TypeRule:
    """DECIMAL(p[,s]); ``default`` is the dialect's (p, s) for a bare name (None: a bare name
    is not fixed-point). ``star``: NUMBER(*, s) means the maximum precision (Oracle)."""

    def rule(params: tuple[str, ...]) -> str | None:
        if not params:
            if default is None:
                return None
            precision, scale = default
        else:
            first = (
                MAX_DECIMAL_PRECISION if star and params[0] == "*" and len(params) == 2 else None
            )
            precision = first or _number(params[0])
            scale = _number(params[1]) if len(params) == 2 else 0 if len(params) == 1 else None
            if precision is None or scale is None:
                return None
        # A negative scale or one above the precision (Oracle) has no ANSI DECIMAL.
        if not 1 <= precision <= MAX_DECIMAL_PRECISION or scale > precision:
            return None
        return f"DECIMAL({precision},{scale})"

    return rule


def characters(
    ansi: str,
    *,
    default: int | None = None,
    maximum: int | None = None,
    unbounded: int | None = None,
) -> TypeRule:
    """CHAR/VARCHAR(n). ``default``: the length of a bare name in DDL (None: unbounded);
    ``maximum``: the length MAX means (None: unbounded); ``unbounded``: a length that is the
    dialect's own ceiling, written as no length at all."""

    def rule(params: tuple[str, ...]) -> str | None:
        if not params:
            return f"{ansi}({default})" if default is not None else ansi
        if len(params) != 1:
            return None
        if params[0].upper() == "MAX":
            return f"{ansi}({maximum})" if maximum is not None else ansi
        length = _number(params[0])
        if length is None:
            return None
        return ansi if length == unbounded else f"{ansi}({length})"

    return rule


def temporal(ansi: str, *, default: int, ansi_default: int, zone: str = "") -> TypeRule:
    """TIME/TIMESTAMP(p) [WITH TIME ZONE]: ``default`` is the dialect's fractional-second
    precision for a bare name, ``ansi_default`` the standard's (TIME 0, TIMESTAMP 6)."""

    def rule(params: tuple[str, ...]) -> str | None:
        if len(params) > 1:
            return None
        precision = _number(params[0]) if params else default
        if precision is None or precision > 9:
            return None
        shown = ansi if precision == ansi_default else f"{ansi}({precision})"
        return f"{shown}{zone}"

    return rule


def timestamp(default: int) -> TypeRule:
    return temporal("TIMESTAMP", default=default, ansi_default=6)


def timestamp_tz(default: int) -> TypeRule:
    return temporal("TIMESTAMP", default=default, ansi_default=6, zone=" WITH TIME ZONE")


def time(default: int) -> TypeRule:
    return temporal("TIME", default=default, ansi_default=0)


def binary(ansi: str, *, default: int | None = None, unbounded: int | None = None) -> TypeRule:
    return characters(ansi, default=default, unbounded=unbounded)


def tsql_float(params: tuple[str, ...]) -> str | None:
    # FLOAT(n): n is the mantissa's bits; 1..24 is stored as REAL, 25..53 (and the bare
    # name, FLOAT(53)) as double precision.
    # https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql
    if not params:
        return "DOUBLE PRECISION"
    bits = _number(params[0]) if len(params) == 1 else None
    if bits is None or not 1 <= bits <= 53:
        return None
    return "REAL" if bits <= 24 else "DOUBLE PRECISION"


# Per dialect: declared type name -> rule. A name not listed is opaque: an unknown type has
# no known exact form. Multi-word names are keyed by their words (see _type_name).

# https://docs.snowflake.com/en/sql-reference/intro-summary-data-types
SNOWFLAKE_VARCHAR = characters("VARCHAR", unbounded=16_777_216)
SNOWFLAKE_TYPES: dict[str, TypeRule] = {
    "ARRAY": opaque,
    # Integers are NUMBER(38,0) whatever their name: a value may exceed BIGINT.
    "BIGINT": fixed("DECIMAL(38,0)"),
    "BINARY": binary("VARBINARY", unbounded=8_388_608),  # variable-length, despite the name
    "BOOLEAN": fixed("BOOLEAN"),
    "BYTEINT": fixed("DECIMAL(38,0)"),
    # CHAR is VARCHAR with a default length of 1: Snowflake does not pad it with spaces.
    "CHAR": characters("VARCHAR", default=1, unbounded=16_777_216),
    "CHARACTER": characters("VARCHAR", default=1, unbounded=16_777_216),
    "DATE": fixed("DATE"),
    "DATETIME": timestamp(9),  # an alias of TIMESTAMP_NTZ
    "DECIMAL": decimal((38, 0)),
    "DOUBLE": fixed("DOUBLE PRECISION"),
    "DOUBLE PRECISION": fixed("DOUBLE PRECISION"),
    "FILE": opaque,
    # Every floating-point name is a 64-bit double in Snowflake, REAL and FLOAT4 included.
    "FLOAT": fixed("DOUBLE PRECISION"),
    "FLOAT4": fixed("DOUBLE PRECISION"),
    "FLOAT8": fixed("DOUBLE PRECISION"),
    "GEOGRAPHY": opaque,
    "GEOMETRY": opaque,
    "INT": fixed("DECIMAL(38,0)"),
    "INTEGER": fixed("DECIMAL(38,0)"),
    "MAP": opaque,
    "NCHAR": characters("VARCHAR", default=1, unbounded=16_777_216),
    "NUMBER": decimal((38, 0)),
    "NUMERIC": decimal((38, 0)),
    "NVARCHAR": SNOWFLAKE_VARCHAR,
    "NVARCHAR2": SNOWFLAKE_VARCHAR,
    "OBJECT": opaque,
    "REAL": fixed("DOUBLE PRECISION"),
    "SMALLINT": fixed("DECIMAL(38,0)"),
    "STRING": SNOWFLAKE_VARCHAR,
    "TEXT": SNOWFLAKE_VARCHAR,
    "TIME": time(9),
    # TIMESTAMP is whichever variant TIMESTAMP_TYPE_MAPPING names (TIMESTAMP_NTZ by default):
    # an account setting the DDL cannot show, so the import warns (CATALOG-ASSUMED).
    "TIMESTAMP": timestamp(9),
    # LTZ values are instants shown in the session's time zone: no ANSI type behaves so.
    "TIMESTAMP WITH LOCAL TIME ZONE": opaque,
    "TIMESTAMP WITH TIME ZONE": timestamp_tz(9),
    "TIMESTAMP WITHOUT TIME ZONE": timestamp(9),
    "TIMESTAMPLTZ": opaque,
    "TIMESTAMPNTZ": timestamp(9),
    "TIMESTAMPTZ": timestamp_tz(9),
    "TIMESTAMP_LTZ": opaque,
    "TIMESTAMP_NTZ": timestamp(9),
    "TIMESTAMP_TZ": timestamp_tz(9),
    "TINYINT": fixed("DECIMAL(38,0)"),
    "VARBINARY": binary("VARBINARY", unbounded=8_388_608),
    "VARCHAR": SNOWFLAKE_VARCHAR,
    "VARIANT": opaque,
    "VECTOR": opaque,
}

# https://learn.microsoft.com/sql/t-sql/data-types/data-types-transact-sql
# A length left out in DDL is 1 for every character and binary type.
TSQL_TYPES: dict[str, TypeRule] = {
    "BIGINT": fixed("BIGINT"),
    "BINARY": binary("BINARY", default=1),
    # BIT allows no arithmetic or aggregates in T-SQL, only comparison with 0 and 1, and
    # lake exports hold it as a Parquet BOOLEAN: BOOLEAN keeps every value and use.
    "BIT": fixed("BOOLEAN"),
    "CHAR": characters("CHAR", default=1),
    "CHARACTER": characters("CHAR", default=1),
    "CURSOR": opaque,
    "DATE": fixed("DATE"),
    # DATETIME ticks in 1/300 s and shows milliseconds; DATETIME2 defaults to 7 digits.
    "DATETIME": fixed("TIMESTAMP(3)"),
    "DATETIME2": timestamp(7),
    # A DATETIMEOFFSET keeps each value's offset, as ANSI TIMESTAMP WITH TIME ZONE does.
    "DATETIMEOFFSET": timestamp_tz(7),
    "DEC": decimal((18, 0)),
    "DECIMAL": decimal((18, 0)),
    "DOUBLE PRECISION": fixed("DOUBLE PRECISION"),
    "FLOAT": tsql_float,
    "GEOGRAPHY": opaque,
    "GEOMETRY": opaque,
    "HIERARCHYID": opaque,
    "IMAGE": fixed("VARBINARY"),
    "INT": fixed("INTEGER"),
    "INTEGER": fixed("INTEGER"),
    # MONEY is an 8-byte integer of ten-thousandths (±922,337,203,685,477.5807), SMALLMONEY
    # a 4-byte one: every value fits DECIMAL(19,4) / DECIMAL(10,4) exactly.
    "MONEY": fixed("DECIMAL(19,4)"),
    # National (UTF-16) strings are VARCHAR: the lake stores every string as UTF-8, and
    # NVARCHAR(n) counts UTF-16 code units, so its values never exceed n characters.
    "NCHAR": characters("CHAR", default=1),
    "NTEXT": fixed("VARCHAR"),
    "NUMERIC": decimal((18, 0)),
    "NVARCHAR": characters("VARCHAR", default=1),
    "REAL": fixed("REAL"),
    "ROWVERSION": opaque,
    "SMALLDATETIME": fixed("TIMESTAMP(0)"),
    "SMALLINT": fixed("SMALLINT"),
    "SMALLMONEY": fixed("DECIMAL(10,4)"),
    "SQL_VARIANT": opaque,
    "TEXT": fixed("VARCHAR"),
    "TIME": time(7),
    "TIMESTAMP": opaque,  # a synonym of ROWVERSION, not a date and time
    # TINYINT is 0..255; ANSI has no 8-bit integer, and SMALLINT holds every value.
    "TINYINT": fixed("SMALLINT"),
    "UNIQUEIDENTIFIER": opaque,  # compared and sorted by T-SQL's own byte order
    "VARBINARY": binary("VARBINARY", default=1),
    "VARCHAR": characters("VARCHAR", default=1),
    "XML": opaque,
}

# https://docs.teradata.com/r/Teradata-VantageTM-Data-Types-and-Literals
TERADATA_TYPES: dict[str, TypeRule] = {
    "BIGINT": fixed("BIGINT"),
    "BLOB": fixed("VARBINARY"),
    "BYTE": binary("BINARY", default=1),
    # BYTEINT is -128..127; ANSI has no 8-bit integer, and SMALLINT holds every value.
    "BYTEINT": fixed("SMALLINT"),
    "CHAR": characters("CHAR", default=1),
    "CHARACTER": characters("CHAR", default=1),
    "CLOB": fixed("VARCHAR"),
    "DATASET": opaque,
    "DATE": fixed("DATE"),
    # A bare DECIMAL is DECIMAL(5,0) in Teradata.
    "DEC": decimal((5, 0)),
    "DECIMAL": decimal((5, 0)),
    # FLOAT, REAL and DOUBLE PRECISION are all one 64-bit IEEE type in Teradata.
    "DOUBLE PRECISION": fixed("DOUBLE PRECISION"),
    "FLOAT": fixed("DOUBLE PRECISION"),
    "INT": fixed("INTEGER"),
    "INTEGER": fixed("INTEGER"),
    "INTERVAL": opaque,
    "JSON": opaque,
    # NUMBER without a precision is a floating decimal, not fixed-point.
    "NUMBER": decimal(None),
    "NUMERIC": decimal((5, 0)),
    "PERIOD": opaque,
    "REAL": fixed("DOUBLE PRECISION"),
    "SMALLINT": fixed("SMALLINT"),
    "ST_GEOMETRY": opaque,
    "TIME": time(6),
    "TIME WITH TIME ZONE": temporal("TIME", default=6, ansi_default=0, zone=" WITH TIME ZONE"),
    "TIMESTAMP": timestamp(6),
    "TIMESTAMP WITH TIME ZONE": timestamp_tz(6),
    "VARBYTE": binary("VARBINARY"),
    "VARCHAR": characters("VARCHAR"),
    "XML": opaque,
}

# https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/Data-Types.html
ORACLE_TYPES: dict[str, TypeRule] = {
    "BFILE": opaque,
    "BINARY_DOUBLE": fixed("DOUBLE PRECISION"),
    "BINARY_FLOAT": fixed("REAL"),
    "BLOB": fixed("VARBINARY"),
    "CHAR": characters("CHAR", default=1),
    "CHARACTER": characters("CHAR", default=1),
    "CLOB": fixed("VARCHAR"),
    # An Oracle DATE carries a time of day to the second.
    "DATE": fixed("TIMESTAMP(0)"),
    # ANSI numeric names are stored as NUMBER: DECIMAL and NUMERIC are fixed-point with
    # precision 38, scale 0 by default; INTEGER and SMALLINT are NUMBER(38).
    "DEC": decimal((38, 0)),
    "DECIMAL": decimal((38, 0)),
    # FLOAT, REAL and DOUBLE PRECISION are NUMBER subtypes: decimal floating point.
    "DOUBLE PRECISION": opaque,
    "FLOAT": opaque,
    "INT": fixed("DECIMAL(38,0)"),
    "INTEGER": fixed("DECIMAL(38,0)"),
    "INTERVAL": opaque,
    "LONG": fixed("VARCHAR"),  # legacy character LOB
    "NCHAR": characters("CHAR", default=1),
    "NCLOB": fixed("VARCHAR"),
    # NUMBER without a precision is a decimal floating-point number: no ANSI form.
    "NUMBER": decimal(None, star=True),
    "NUMERIC": decimal((38, 0)),
    # NVARCHAR2(n) counts characters; VARCHAR2(n BYTE) counts bytes, so at most n characters.
    "NVARCHAR2": characters("VARCHAR"),
    "RAW": binary("VARBINARY"),
    "REAL": opaque,
    "ROWID": opaque,
    "SDO_GEOMETRY": opaque,
    "SMALLINT": fixed("DECIMAL(38,0)"),
    "TIMESTAMP": timestamp(6),
    "TIMESTAMP WITH LOCAL TIME ZONE": opaque,  # shown in the session's time zone
    "TIMESTAMP WITH TIME ZONE": timestamp_tz(6),
    "UROWID": opaque,
    "VARCHAR": characters("VARCHAR"),
    "VARCHAR2": characters("VARCHAR"),
    "XMLTYPE": opaque,
}

# https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types
BIGQUERY_INT64 = fixed("BIGINT")


def bigquery_numeric(params: tuple[str, ...]) -> str | None:
    # NUMERIC is DECIMAL(38,9); NUMERIC(P[,S]) constrains it to P digits, S after the point.
    return decimal((38, 9))(params)


def bigquery_bignumeric(params: tuple[str, ...]) -> str | None:
    # A bare BIGNUMERIC holds 76.76 digits (38 after the point): more than the lake's 38.
    # BIGNUMERIC(P[,S]) with P <= 38 fits DECIMAL(P,S).
    return decimal(None)(params)


BIGQUERY_TYPES: dict[str, TypeRule] = {
    "ARRAY": opaque,
    "BIGDECIMAL": bigquery_bignumeric,
    "BIGINT": BIGQUERY_INT64,
    "BIGNUMERIC": bigquery_bignumeric,
    "BOOL": fixed("BOOLEAN"),
    "BOOLEAN": fixed("BOOLEAN"),
    "BYTEINT": BIGQUERY_INT64,
    "BYTES": binary("VARBINARY"),
    "DATE": fixed("DATE"),
    "DATETIME": fixed("TIMESTAMP"),  # civil date and time to the microsecond
    "DECIMAL": bigquery_numeric,
    "FLOAT64": fixed("DOUBLE PRECISION"),
    "GEOGRAPHY": opaque,
    # Every integer name is an alias of INT64.
    "INT": BIGQUERY_INT64,
    "INT64": BIGQUERY_INT64,
    "INTEGER": BIGQUERY_INT64,
    "INTERVAL": opaque,
    "JSON": opaque,
    "NUMERIC": bigquery_numeric,
    "RANGE": opaque,
    "SMALLINT": BIGQUERY_INT64,
    "STRING": characters("VARCHAR"),
    "STRUCT": opaque,
    "TIME": fixed("TIME(6)"),
    # A TIMESTAMP is an instant (microseconds, UTC): TIMESTAMP WITH TIME ZONE.
    "TIMESTAMP": fixed("TIMESTAMP WITH TIME ZONE"),
    "TINYINT": BIGQUERY_INT64,
}

# https://docs.aws.amazon.com/redshift/latest/dg/c_Supported_data_types.html
# CHAR and VARCHAR lengths are in bytes, which bounds the characters by the same number.
REDSHIFT_VARCHAR = characters("VARCHAR", default=256, maximum=65_535)
REDSHIFT_TYPES: dict[str, TypeRule] = {
    "BIGINT": fixed("BIGINT"),
    "BINARY VARYING": binary("VARBINARY", default=64_000),
    "BOOL": fixed("BOOLEAN"),
    "BOOLEAN": fixed("BOOLEAN"),
    "BPCHAR": fixed("CHAR(256)"),
    "CHAR": characters("CHAR", default=1, maximum=4_096),
    "CHARACTER": characters("CHAR", default=1, maximum=4_096),
    "DATE": fixed("DATE"),
    "DECIMAL": decimal((18, 0)),
    "DOUBLE PRECISION": fixed("DOUBLE PRECISION"),
    "FLOAT": fixed("DOUBLE PRECISION"),
    "FLOAT4": fixed("REAL"),
    "FLOAT8": fixed("DOUBLE PRECISION"),
    "GEOGRAPHY": opaque,
    "GEOMETRY": opaque,
    "HLLSKETCH": opaque,
    "INT": fixed("INTEGER"),
    "INT2": fixed("SMALLINT"),
    "INT4": fixed("INTEGER"),
    "INT8": fixed("BIGINT"),
    "INTEGER": fixed("INTEGER"),
    "INTERVAL": opaque,
    "NCHAR": characters("CHAR", default=1, maximum=4_096),
    "NUMERIC": decimal((18, 0)),
    "NVARCHAR": REDSHIFT_VARCHAR,
    "REAL": fixed("REAL"),
    "SMALLINT": fixed("SMALLINT"),
    "SUPER": opaque,
    "TEXT": fixed("VARCHAR(256)"),
    "TIME": time(6),
    "TIME WITH TIME ZONE": temporal("TIME", default=6, ansi_default=0, zone=" WITH TIME ZONE"),
    "TIME WITHOUT TIME ZONE": time(6),
    "TIMESTAMP": timestamp(6),
    "TIMESTAMP WITH TIME ZONE": timestamp_tz(6),
    "TIMESTAMP WITHOUT TIME ZONE": timestamp(6),
    "TIMESTAMPTZ": timestamp_tz(6),
    "TIMETZ": temporal("TIME", default=6, ansi_default=0, zone=" WITH TIME ZONE"),
    "VARBINARY": binary("VARBINARY", default=64_000),
    "VARBYTE": binary("VARBINARY", default=64_000),
    "VARCHAR": REDSHIFT_VARCHAR,
}

TYPES: dict[str, dict[str, TypeRule]] = {
    "bigquery": BIGQUERY_TYPES,
    "oracle": ORACLE_TYPES,
    "redshift": REDSHIFT_TYPES,
    "snowflake": SNOWFLAKE_TYPES,
    "teradata": TERADATA_TYPES,
    "tsql": TSQL_TYPES,
}

# Multi-word spellings of one type: ANSI's own, accepted by every dialect that has them.
SYNONYMS = {
    "CHAR VARYING": "VARCHAR",
    "CHARACTER VARYING": "VARCHAR",
    "NATIONAL CHAR": "NCHAR",
    "NATIONAL CHAR VARYING": "NVARCHAR",
    "NATIONAL CHARACTER": "NCHAR",
    "NATIONAL CHARACTER VARYING": "NVARCHAR",
    "NCHAR VARYING": "NVARCHAR",
}
_OPEN = {TokenType.L_PAREN, TokenType.LT}
_CLOSE = {TokenType.R_PAREN, TokenType.GT}
# Words that continue a type name after its first word (or its parameters).
_ZONE_WORDS = {"LOCAL", "TIME", "ZONE"}
_INTERVAL_WORDS = {"DAY", "HOUR", "MINUTE", "MONTH", "SECOND", "TO", "YEAR"}
_SECOND_WORDS = {"CHAR", "CHARACTER", "PRECISION", "RAW", "VARCHAR", "VARYING"}


def type_span(tokens: Sequence[Token], first: int) -> int:
    """The index after the last token of the type that starts at ``tokens[first]``:
    its words, parameters ``(...)`` or ``<...>``, and a trailing WITH [LOCAL] TIME ZONE."""
    word = tokens[first].text.upper()
    end = first + 1
    while end < len(tokens):
        token, text = tokens[end], tokens[end].text.upper()
        after_word = tokens[end - 1].token_type not in _CLOSE
        if (
            token.token_type in _OPEN
            and after_word
            and (token.token_type == TokenType.L_PAREN or end == first + 1)
        ):
            depth = 0
            while end < len(tokens):
                depth += (tokens[end].token_type in _OPEN) - (tokens[end].token_type in _CLOSE)
                end += 1
                if depth == 0:
                    break
        elif (
            text in ("WITH", "WITHOUT")
            and end + 1 < len(tokens)
            and tokens[end + 1].text.upper() in ("LOCAL", "TIME")
        ):
            end += 1
            while end < len(tokens) and tokens[end].text.upper() in _ZONE_WORDS:
                end += 1
        elif word == "INTERVAL" and text in _INTERVAL_WORDS:
            end += 1
        elif end == first + 1 and text in _SECOND_WORDS:
            end += 1  # NATIONAL CHARACTER, DOUBLE PRECISION, LONG RAW, CHAR VARYING
        elif word == "NATIONAL" and end == first + 2 and text == "VARYING":
            end += 1
        else:
            break
    return end


def type_name(tokens: Sequence[Token]) -> str:
    """A declared type's name without its parameters, upper case, one space between words:
    "TIMESTAMP WITH TIME ZONE" for ``TIMESTAMP(3) WITH TIME ZONE``, "ARRAY" for ``ARRAY<INT64>``."""
    words, depth = [], 0
    for token in tokens:
        if token.token_type in _OPEN:
            depth += 1
        elif token.token_type in _CLOSE:
            depth -= 1
        elif depth == 0:
            words.extend(token.text.upper().split())
    name = " ".join(words)
    return SYNONYMS.get(name, name)


def _params(kind: exp.DataType) -> tuple[str, ...]:
    """The type's parameters as written: "10", "MAX", "*" (Oracle's CHAR/BYTE unit dropped:
    either way the length bounds the characters)."""
    params = []
    for param in kind.expressions:
        value = param.this if isinstance(param, exp.DataTypeParam) else param
        params.append("*" if isinstance(value, exp.Star) else value.name or value.sql())
    return tuple(params)


@dataclass(frozen=True)
class ColumnType:
    text: str  # the exact ANSI type, or the declared type when opaque
    opaque: bool


def column_type(kind: exp.DataType, name: str, declared: str, dialect: str) -> ColumnType:
    """The exact ANSI type of a column whose type is declared ``declared`` (parsed as
    ``kind``; ``name`` is its name without parameters) in ``dialect``; opaque, keeping the
    declared text, when there is none."""
    if kind.args.get("nested"):
        ansi = _nested_type(kind, dialect) if semantics(dialect).ARRAYS_ARE_TYPED else None
    else:
        rule = TYPES[dialect].get(name)
        ansi = None if rule is None else rule(_params(kind))
    return ColumnType(declared, opaque=True) if ansi is None else ColumnType(ansi, opaque=False)


def _nested_type(kind: exp.DataType, dialect: str) -> str | None:
    """``ARRAY<T>`` as ``T ARRAY`` and ``STRUCT<f T, ...>`` as ``ROW("f" T, ...)``, each part
    mapped by the dialect's own rules; None when a part has no exact form, a field has no
    name or two fields share one (field names compare as column names do)."""
    if kind.is_type(exp.DType.ARRAY):
        if len(kind.expressions) != 1 or kind.args.get("values"):
            return None
        element = _part_type(kind.expressions[0], dialect)
        return None if element is None else f"{element} ARRAY"
    if not kind.is_type(exp.DType.STRUCT) or not kind.expressions:
        return None
    fields: list[str] = []
    seen: set[str] = set()
    for field in kind.expressions:
        if not isinstance(field, exp.ColumnDef) or not isinstance(
            field.args.get("kind"), exp.DataType
        ):
            return None
        name = _column_name(field.this, dialect)
        field_type = _part_type(field.args["kind"], dialect)
        if not name or name in seen or field_type is None:
            return None
        seen.add(name)
        quoted = name.replace('"', '""')
        fields.append(f'"{quoted}" {field_type}')
    return f"ROW({', '.join(fields)})"


@functools.cache
def _dialect_type_name(kind: exp.DType, dialect: str) -> str:
    """The dialect's own name for the type sqlglot read (INT64, STRING, NUMERIC, ...):
    written once per type and dialect, not once per field of every nested column (a
    BigQuery schema's STRUCTs hold thousands)."""
    return exp.DataType(this=kind).sql(dialect=SOURCE_DIALECTS[dialect]).upper()


def _part_type(kind: exp.DataType, dialect: str) -> str | None:
    if kind.args.get("nested"):
        return _nested_type(kind, dialect)
    rule = TYPES[dialect].get(_dialect_type_name(kind.this, dialect))
    return None if rule is None else rule(_params(kind))


@dataclass(frozen=True)
class ImportedColumn:
    name: str
    type: ColumnType
    line: int
    col: int
    # Declared NOT NULL. Only the constraint itself counts: a PRIMARY KEY is not enforced
    # as NOT NULL in every dialect (BigQuery's and Snowflake's are declarations).
    required: bool = False
    # Teradata's declared CASESPECIFIC (True) or NOT CASESPECIFIC (False); None: not declared
    # (the session mode's default applies).
    casespecific: bool | None = None
    # The type as the DDL writes it (``NUMBER(10)``, ``DATE``), for the catalog's ``legacy:``.
    declared: str = ""


@dataclass(frozen=True)
class ImportedTable:
    written: str  # the legacy name as the DDL qualifies it
    parts: tuple[str, ...]  # its parts as the dialect compares them (catalog, db, table)
    name_parts: tuple[str, ...]  # the same, lower case, for lake names
    columns: tuple[ImportedColumn, ...]
    file: str
    line: int
    col: int


@dataclass(frozen=True)
class DdlImport:
    """Tables read from DDL files in one dialect, named for the lake."""

    dialect: str
    zone: str
    tables: dict[str, ImportedTable]  # lake table "zone.table" -> what the DDL declared
    diagnostics: tuple[Diagnostic, ...]  # info and warning lines, in file order

    def catalog_tables(self) -> dict[str, dict[str, str]]:
        return {
            lake: {c.name: c.type.text for c in table.columns}
            for lake, table in sorted(self.tables.items())
        }

    def catalog_opaque(self) -> dict[str, dict[str, str]]:
        found = {
            lake: {c.name: c.type.text for c in table.columns if c.type.opaque}
            for lake, table in sorted(self.tables.items())
        }
        return {lake: columns for lake, columns in found.items() if columns}

    def catalog_required(self) -> dict[str, frozenset[str]]:
        """Per lake table, its columns declared NOT NULL (tables without any left out)."""
        found = {
            lake: frozenset(c.name for c in table.columns if c.required)
            for lake, table in sorted(self.tables.items())
        }
        return {lake: columns for lake, columns in found.items() if columns}

    def catalog_casespecific(self) -> dict[str, dict[str, bool]]:
        """Per lake table, its text columns' declared case attribute (tables without any left
        out)."""
        found = {
            lake: {c.name: c.casespecific for c in table.columns if c.casespecific is not None}
            for lake, table in sorted(self.tables.items())
        }
        return {lake: columns for lake, columns in found.items() if columns}

    def catalog_legacy(self) -> dict[str, dict[str, str]]:
        return {self.dialect: {t.written: lake for lake, t in sorted(self.tables.items())}}

    def catalog_declared(self) -> dict[str, dict[str, tuple[str, str]]]:
        """Per lake table, each typed column's type as the DDL declares it, with the dialect
        (opaque columns keep their declared type as their type)."""
        found = {
            lake: {
                c.name: (self.dialect, c.declared)
                for c in table.columns
                if c.declared and not c.type.opaque
            }
            for lake, table in sorted(self.tables.items())
        }
        return {lake: columns for lake, columns in found.items() if columns}

    def yaml(self) -> str:
        return catalog_yaml(
            self.catalog_tables(),
            opaque=self.catalog_opaque(),
            legacy=self.catalog_legacy(),
            required=self.catalog_required(),
            casespecific=self.catalog_casespecific(),
            declared=self.catalog_declared(),
            source=f"the {self.dialect} DDL",
        )


class _Reader:
    """One DDL file: statements, their tables and the diagnostics, in file order."""

    def __init__(self, text: str, dialect: str, file: str) -> None:
        self.text, self.dialect, self.file = text, dialect, file
        self.source: Dialect = Dialect.get_or_raise(SOURCE_DIALECTS[dialect])
        self.diagnostics: list[Diagnostic] = []
        self.tables: list[ImportedTable] = []
        self.first_create: int | None = None  # where the first CREATE TABLE statement starts
        self.database: exp.Identifier | None = None  # the last USE's database

    def report(self, severity: Severity, rule: str, message: str, offset: int | None) -> None:
        line, col = offset_to_line_col(self.text, offset) if offset is not None else (1, 1)
        self.diagnostics.append(Diagnostic(severity, rule, message, self.file, line, col))

    def read(self) -> None:
        if semantics(self.dialect).DOT_COMMANDS:
            # BTEQ's commands, .LOGON's password among them, never reach the parser.
            bteq = read_bteq(self.text)
            self.text = bteq.text
            for command in bteq.commands:
                self.report(
                    "info",
                    "CATALOG-SKIP",
                    f"skipped .{command.name}: a BTEQ command, not DDL",
                    command.offset,
                )
        check_statement_estimate(self.text, self.file)
        try:
            tokens = self.source.tokenize(self.text)
        except Exception as error:  # sqlglot's TokenError and internal errors alike
            self.report("error", "CATALOG-PARSE", f"cannot parse: {error}", None)
            return
        if semantics(self.dialect).IF_BLOCKS:
            tokens = _unguarded(tokens, self.report)
        statements = _split_statements(tokens)
        check_statement_count([chunk[0].start for chunk in statements], self.text, self.file)
        if not statements:
            self.report("info", "CATALOG-SKIP", "no SQL statement", None)
        parser = self.source.parser()
        for chunk in statements:
            try:
                parsed = [s for s in parser.parse(chunk, self.text) if s is not None]
            except ParseError as error:
                self._parse_error(error)
                return
            except Exception as error:  # sqlglot fails on some malformed input internally
                self.report("error", "CATALOG-PARSE", f"cannot parse: {error}", chunk[0].start)
                return
            index = {token.start: i for i, token in enumerate(chunk)}
            for statement in parsed:
                self._statement(statement, chunk[0].start, index, chunk)
        # The lines of skipped commands and IF guards were found before the statements.
        self.diagnostics.sort(key=lambda d: (d.line, d.col))
        if self.first_create is not None and not self.tables:
            self.report(
                "error",
                "CATALOG-EMPTY",
                "the file holds CREATE TABLE statements but declares no lake table (each one is "
                "skipped above): nothing would be imported from it",
                self.first_create,
            )

    def _parse_error(self, error: ParseError) -> None:
        first = error.errors[0] if error.errors else {}
        line, col = first.get("line") or 1, first.get("col") or 1
        # sqlglot reports the column where the offending token ends; point at its start.
        col = max(1, col - len(first.get("highlight") or "") + 1)
        description = first.get("description") or str(error).splitlines()[0]
        self.diagnostics.append(
            Diagnostic(
                "error", "CATALOG-PARSE", f"cannot parse: {description}", self.file, line, col
            )
        )

    def _statement(
        self, statement: exp.Expr, start: int, index: dict[int, int], tokens: list[Token]
    ) -> None:
        if isinstance(statement, exp.Use) and semantics(self.dialect).USE_SETS_DATABASE:
            # USE db / DATABASE db: the tables after it are db's (a name that names its schema
            # but not its database is completed with it).
            target = statement.this
            if (
                statement.args.get("kind") is None
                and isinstance(target, exp.Table)
                and not target.db
            ):
                self.database = target.this if isinstance(target.this, exp.Identifier) else None
                self.report(
                    "info",
                    "CATALOG-SKIP",
                    f"the tables after it are in database {target.name}",
                    start,
                )
                return
        kind = statement.args.get("kind") if isinstance(statement, exp.Create) else None
        unparsed = isinstance(statement, exp.Command) and _CREATE_TABLE.match(
            command_text(statement)
        )
        if (isinstance(statement, exp.Create) and str(kind).upper() == "TABLE") or unparsed:
            self.first_create = start if self.first_create is None else self.first_create
        if unparsed:
            # sqlglot keeps a CREATE TABLE it cannot read as an opaque command: skipping it
            # would leave the table out of the catalog without a word.
            self.report(
                "error",
                "CATALOG-PARSE",
                "cannot parse this CREATE TABLE (a clause sqlglot does not read); the table "
                "would be missing from the catalog",
                start,
            )
            return
        if isinstance(statement, exp.IfBlock) and any(
            str(c.args.get("kind")).upper() == "TABLE" for c in statement.find_all(exp.Create)
        ):
            # An IF ... ELSE (or one the guard reading did not take): which CREATE TABLE
            # runs depends on the condition.
            self.first_create = start if self.first_create is None else self.first_create
            self.report(
                "error",
                "CATALOG-PARSE",
                "CREATE TABLE under IF ... ELSE: which table the DDL declares depends on the "
                "condition; import each branch's DDL on its own",
                start,
            )
            return
        if not isinstance(statement, exp.Create) or str(kind).upper() != "TABLE":
            what = (
                f"CREATE {kind}"
                if isinstance(statement, exp.Create)
                else _statement_name(statement)
            )
            self.report("info", "CATALOG-SKIP", f"skipped {what}: not a CREATE TABLE", start)
            return
        properties = statement.args.get("properties")
        kinds = {type(p) for p in properties.expressions} if properties else set()
        if kinds & {exp.TemporaryProperty, exp.VolatileProperty}:
            self.report(
                "info", "CATALOG-SKIP", "skipped a temporary table: not a lake table", start
            )
            return
        schema = statement.this
        if not isinstance(schema, exp.Schema) or not schema.expressions:
            self.report(
                "info",
                "CATALOG-SKIP",
                "skipped CREATE TABLE without a column list (AS SELECT, LIKE, CLONE): its "
                "columns come from elsewhere",
                start,
            )
            return
        table = schema.this
        parts = [table.args.get(k) for k in ("catalog", "db", "this")]
        if not all(isinstance(p, exp.Identifier) for p in parts if p):
            self.report(
                "info",
                "CATALOG-SKIP",
                "skipped CREATE TABLE with a name computed when it runs (IDENTIFIER(...))",
                start,
            )
            return
        stored = (
            [
                p.name
                for p in properties.expressions
                if isinstance(p, StorageOption) and not p.args.get("place")
            ]
            if properties
            else []
        )
        if stored:
            shown = ", ".join(" ".join(option.split()) for option in stored)
            self.report(
                "info",
                "CATALOG-SKIP",
                f"table options {shown} skipped: they say how the table is stored, not what "
                "it holds",
                start,
            )
        self._table(schema, index, tokens)

    def _table(self, schema: exp.Schema, index: dict[int, int], tokens: list[Token]) -> None:
        table = schema.this
        identifiers = [
            p for p in (table.args.get("catalog"), table.args.get("db"), table.this) if p
        ]
        levels = len(NAMESPACE_LEVELS.get(self.dialect, ()))
        if self.database is not None and len(identifiers) == levels:
            identifiers.insert(0, self.database)
        written = ".".join(_written(i, self.dialect) for i in identifiers)
        line, col = offset_to_line_col(self.text, node_offset(table) or 0)
        columns: list[ImportedColumn] = []
        seen: dict[str, ImportedColumn] = {}
        for definition in schema.expressions:
            if not isinstance(definition, exp.ColumnDef):
                continue  # table constraints: PRIMARY KEY (...), FOREIGN KEY, ...
            column = self._column(definition, written, index, tokens)
            if column.name in seen:
                first = seen[column.name]
                self.report(
                    "error",
                    "CATALOG-DUPLICATE",
                    f"column {written}.{column.name} is declared twice (first at "
                    f"{first.line}:{first.col})",
                    node_offset(definition.this),
                )
            seen[column.name] = column
            columns.append(column)
        self.tables.append(
            ImportedTable(
                written=written,
                parts=tuple(fold(i, self.dialect) for i in identifiers),
                name_parts=tuple(i.name.lower() for i in identifiers),
                columns=tuple(columns),
                file=self.file,
                line=line,
                col=col,
            )
        )

    def _column(
        self, definition: exp.ColumnDef, table: str, index: dict[int, int], tokens: list[Token]
    ) -> ImportedColumn:
        identifier = definition.this
        offset = node_offset(identifier)
        line, col = offset_to_line_col(self.text, offset or 0)
        name = _column_name(identifier, self.dialect)
        kind = definition.args.get("kind")
        constraints = [c.args.get("kind") for c in definition.args.get("constraints") or []]
        required = any(
            isinstance(c, exp.NotNullColumnConstraint) and not c.args.get("allow_null")
            for c in constraints
        )
        if not isinstance(kind, exp.DataType):
            declared = kind.sql(dialect=SOURCE_DIALECTS[self.dialect]) if kind else "COMPUTED"
            self.report(
                "warning",
                "CATALOG-OPAQUE",
                f"column {table}.{name} declares no type ({declared}); expressions over it "
                "will be refused",
                offset,
            )
            return ImportedColumn(name, ColumnType(declared, opaque=True), line, col, required)
        position = index.get(identifier.meta.get("start", -1))
        if position is not None and position + 1 < len(tokens):
            span = tokens[position + 1 : type_span(tokens, position + 1)]
            declared = self.text[span[0].start : span[-1].end + 1]
            kind_name = type_name(span)
        else:  # not expected: sqlglot records where every identifier starts
            declared = kind.sql(dialect=SOURCE_DIALECTS[self.dialect])
            kind_name = kind.this.value
        # SSMS writes T-SQL type names quoted ([nvarchar](50)); the catalog keeps the name.
        declared = _BRACKETED.sub(r"\1", " ".join(declared.split()))
        kind_type = column_type(kind, kind_name, declared, self.dialect)
        if (
            kind_type.opaque
            and semantics(self.dialect).HAS_VARIANT
            and kind_name.lower() in JSON_TYPES
        ):
            self.report(
                "warning",
                "CATALOG-OPAQUE",
                f"column {table}.{name} has type {kind_type.text}, read as the JSON text the "
                "lake holds: paths into it cast to a string, FLOAT or BOOLEAN and FLATTEN of "
                "its arrays translate (VARIANT-PATH, VARIANT-FLATTEN), it can be selected, "
                "counted or tested for NULL; other expressions over it will be refused",
                offset,
            )
        elif kind_type.opaque:
            self.report(
                "warning",
                "CATALOG-OPAQUE",
                f"column {table}.{name} has type {kind_type.text} with no exact ANSI form; "
                "expressions over it will be refused",
                offset,
            )
        elif semantics(self.dialect).TIMESTAMP_FOLLOWS_TYPE_MAPPING and kind_name == "TIMESTAMP":
            self.report(
                "warning",
                "CATALOG-ASSUMED",
                f"column {table}.{name} is declared TIMESTAMP, read as TIMESTAMP_NTZ "
                "(Snowflake's default TIMESTAMP_TYPE_MAPPING); declare the variant to be sure",
                offset,
            )
        has_attribute = semantics(self.dialect).TEXT_CASE_IS_AN_ATTRIBUTE
        casespecific = _casespecific(constraints) if has_attribute else None
        if not has_attribute and _case_insensitive(constraints):
            self.report(
                "warning",
                "CATALOG-CASE",
                f"column {table}.{name} compares case-insensitively in {self.dialect}; "
                "translation compares it as the tsql_collation_case assumption says "
                "(SENSITIVE unless set), not as the column's collation",
                offset,
            )
        return ImportedColumn(name, kind_type, line, col, required, casespecific, declared)


_BRACKETED = re.compile(r"\[(\w+)\]")
# An unparsed command that is a CREATE TABLE (of any kind) all the same.
_CREATE_TABLE = re.compile(
    r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL|TEMP|TEMPORARY|TRANSIENT|VOLATILE|"
    r"MULTISET|SET|EXTERNAL|HYBRID|ICEBERG|DYNAMIC)\s+)*TABLE\b",
    re.IGNORECASE,
)
# Tokens that start a statement, where an IF's condition ends.
_STATEMENT_STARTS = frozenset(
    {
        TokenType.ALTER,
        TokenType.BEGIN,
        TokenType.COMMAND,
        TokenType.CREATE,
        TokenType.DECLARE,
        TokenType.DELETE,
        TokenType.DROP,
        TokenType.EXECUTE,
        TokenType.INSERT,
        TokenType.SELECT,
        TokenType.SET,
        TokenType.UPDATE,
        TokenType.USE,
    }
)


def _is_if(token: Token) -> bool:
    return token.token_type == TokenType.VAR and token.text.upper() == "IF"


def _guard(tokens: list[Token], at: int) -> tuple[int, int | None] | None:
    """For ``IF`` at ``at``: where its statements start (after BEGIN, if any) and the index
    of the END that closes its BEGIN (None without one); None when it is not read so (no
    statement after the condition, no matching END, an ELSE)."""
    depth = 0
    body = None
    for index in range(at + 1, len(tokens)):
        kind = tokens[index].token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
        elif kind == TokenType.SEMICOLON:
            return None
        elif not depth and kind in _STATEMENT_STARTS:
            body = index
            break
    if body is None:
        return None
    if tokens[body].token_type != TokenType.BEGIN:
        return body, None
    depth = 0
    for index in range(body, len(tokens)):
        token = tokens[index]
        following = tokens[index + 1].text.upper() if index + 1 < len(tokens) else ""
        if (
            token.token_type == TokenType.BEGIN and following not in ("TRAN", "TRANSACTION")
        ) or token.token_type == TokenType.CASE:
            depth += 1
        elif token.token_type == TokenType.END:
            depth -= 1
            if not depth:
                if index + 1 < len(tokens) and tokens[index + 1].token_type == TokenType.ELSE:
                    return None
                return body + 1, index
    return None


def _unguarded(
    tokens: list[Token], report: Callable[[Severity, str, str, int | None], None]
) -> list[Token]:
    """T-SQL: the statements under each ``IF <condition> [BEGIN ...END]`` at a statement's
    start read as if unconditional (a ``;`` in place of the condition and of BEGIN / END), as
    SSMS's "check for object existence" writes its DDL: a catalog records what the DDL
    declares, whether or not the object existed when it ran."""
    if not any(_is_if(t) for t in tokens):
        return tokens
    result: list[Token] = []
    ends: set[int] = set()
    at_start = True
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if index in ends:
            result.append(_semicolon(token))
            at_start = True
            index += 1
            continue
        guard = _guard(tokens, index) if at_start and _is_if(token) else None
        if guard is not None:
            report(
                "info",
                "CATALOG-SKIP",
                "read the statements under IF ... as declared: the catalog records what the "
                "DDL declares, whatever the condition found",
                token.start,
            )
            result.append(_semicolon(token))
            body, end = guard
            if end is not None:
                ends.add(end)
            index = body
            at_start = True
            continue
        result.append(token)
        at_start = token.token_type == TokenType.SEMICOLON
        index += 1
    return result


def _semicolon(token: Token) -> Token:
    return Token(TokenType.SEMICOLON, ";", token.line, token.col, token.start, token.end, [])


def _split_statements(tokens: list[Token]) -> list[list[Token]]:
    """Tokens per statement, split at semicolons; empty statements dropped."""
    statements: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            statements.append([])
        else:
            statements[-1].append(token)
    return [s for s in statements if s]


def _statement_name(statement: exp.Expr) -> str:
    if isinstance(statement, exp.Command):
        return str(statement.this).upper()
    if isinstance(statement, SessionSetting):
        options = ", ".join(option.name for option in statement.expressions)
        return f"SET {options} {statement.args['value'].name}"
    return statement.key.upper()


def _casespecific(constraints: Sequence[exp.Expr | None]) -> bool | None:
    """Teradata's declared [NOT] CASESPECIFIC (the last one written), None if none."""
    found = None
    for constraint in constraints:
        if isinstance(constraint, exp.CaseSpecificColumnConstraint):
            found = not constraint.args.get("not_")
    return found


def _case_insensitive(constraints: Sequence[exp.Expr | None]) -> bool:
    for constraint in constraints:
        if isinstance(constraint, exp.CaseSpecificColumnConstraint) and constraint.args.get("not_"):
            return True
        if (
            isinstance(constraint, exp.CollateColumnConstraint)
            and "_CI" in constraint.sql().upper()
        ):
            return True
    return False


def _column_name(identifier: exp.Identifier, dialect: str) -> str:
    """The lake column name: lower case, as the translator folds names, except a quoted
    name that is case-sensitive in ``dialect`` (Snowflake, Oracle) and not all upper case
    (a quoted all-upper name is the same as the unquoted one)."""
    name = identifier.name
    if (
        identifier.quoted
        and semantics(dialect).NORMALIZATION_STRATEGY is NormalizationStrategy.UPPERCASE
        and name != name.upper()
    ):
        return name
    return name.lower()


def _written(identifier: exp.Identifier, dialect: str) -> str:
    """One part of a legacy name as the catalog file writes it: double-quoted where the
    quotes change what the name means (a case-sensitive name that does not fold to itself)."""
    name = identifier.name
    keeps_case = (
        identifier.quoted
        and semantics(dialect).NORMALIZATION_STRATEGY is NormalizationStrategy.UPPERCASE
        and name != name.upper()
    )
    if keeps_case or "." in name or '"' in name:
        return '"' + name.replace('"', '""') + '"'
    return name


def read_ddl(text: str, dialect: str, *, file: str) -> tuple[list[ImportedTable], list[Diagnostic]]:
    """The tables one DDL text declares, with its diagnostics; errors are among them."""
    if dialect not in TYPES:
        message = f"unknown dialect {dialect!r}; expected one of {', '.join(sorted(TYPES))}"
        raise CatalogImportError([Diagnostic("error", "CATALOG-DIALECT", message, file, 1, 1)])
    reader = _Reader(text, dialect, file)
    reader.read()
    return reader.tables, reader.diagnostics


def _lake_table(parts: tuple[str, ...], level: int) -> str:
    used = parts[max(0, len(parts) - 1 - level) :]
    return "__".join(re.sub(r"[^a-z0-9_]", "_", p) for p in used)


def import_ddl(sources: Sequence[tuple[str, str]], dialect: str, *, zone: str = "raw") -> DdlImport:
    """Import ``sources`` (file name, DDL text) in ``dialect`` as lake tables in ``zone``.

    Raises ``CatalogImportError`` with every diagnostic when a statement cannot be parsed,
    a table is declared twice differently, or two tables cannot be given distinct names.
    """
    diagnostics: list[Diagnostic] = []
    found: dict[tuple[str, ...], ImportedTable] = {}
    for file, text in sources:
        tables, file_diagnostics = read_ddl(text, dialect, file=file)
        diagnostics.extend(file_diagnostics)
        for table in tables:
            first = found.get(table.parts)
            if first is None:
                found[table.parts] = table
            elif _shape(first) != _shape(table):
                diagnostics.append(
                    Diagnostic(
                        "error",
                        "CATALOG-DUPLICATE",
                        f"table {table.written} is declared again, differently from "
                        f"{first.file}:{first.line}:{first.col}",
                        table.file,
                        table.line,
                        table.col,
                    )
                )
    names = _name_tables(list(found.values()), diagnostics)
    if any(d.severity == "error" for d in diagnostics):
        raise CatalogImportError(diagnostics)
    return DdlImport(
        dialect=dialect,
        zone=zone,
        tables={f"{zone}.{names[t.parts]}": t for t in found.values()},
        diagnostics=tuple(diagnostics),
    )


def _shape(table: ImportedTable) -> tuple[tuple[str, str, bool, bool], ...]:
    return tuple((c.name, c.type.text, c.type.opaque, c.required) for c in table.columns)


def _name_tables(
    tables: Sequence[ImportedTable], diagnostics: list[Diagnostic]
) -> dict[tuple[str, ...], str]:
    """A lake table name per table: its own name, qualified by schema and then database
    for every table of a group that shares a name."""
    level = {t.parts: 0 for t in tables}
    while True:
        groups: dict[str, list[ImportedTable]] = {}
        for table in tables:
            groups.setdefault(_lake_table(table.name_parts, level[table.parts]), []).append(table)
        colliding = [group for group in groups.values() if len(group) > 1]
        raised = False
        for group in colliding:
            for table in group:
                if level[table.parts] < len(table.name_parts) - 1:
                    level[table.parts] += 1
                    raised = True
        if not raised:
            break
    for name, group in groups.items():
        for other in group[1:]:
            first = group[0]
            diagnostics.append(
                Diagnostic(
                    "error",
                    "CATALOG-COLLISION",
                    f"table {other.written} and {first.written} ({first.file}:{first.line}:"
                    f"{first.col}) both become lake table {name}; rename one in the DDL",
                    other.file,
                    other.line,
                    other.col,
                )
            )
    return {t.parts: _lake_table(t.name_parts, level[t.parts]) for t in tables}


# Plain YAML scalars that would not read back as the same string.
_YAML_WORDS = frozenset(
    {"", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", "nan", "inf"}
)
_PLAIN = re.compile(
    r"[A-Za-z_][A-Za-z0-9_$#.\-]*(?: [A-Za-z0-9_]+)*(?:\([0-9]+(?:,[0-9]+)?\))?(?: [A-Za-z ]+)?"
)


def _scalar(text: str, *, flow: bool = False) -> str:
    """``text`` as a YAML scalar that reads back unchanged: plain where that is safe,
    otherwise double-quoted (a JSON string is a valid YAML double-quoted scalar)."""
    plain = (
        _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS and not (flow and "," in text)
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def catalog_yaml(
    tables: Mapping[str, Mapping[str, str]],
    *,
    opaque: Mapping[str, Mapping[str, str]] | None = None,
    legacy: Mapping[str, Mapping[str, str]] | None = None,
    required: Mapping[str, Iterable[str]] | None = None,
    casespecific: Mapping[str, Mapping[str, bool]] | None = None,
    declared: Mapping[str, Mapping[str, tuple[str, str]]] | None = None,
    physical: Mapping[str, Mapping[str, str]] | None = None,
    notes: Mapping[str, Mapping[str, str]] | None = None,
    source: str,
) -> str:
    """A catalog file in ``sql/catalog.yaml``'s format, the same bytes for the same input:
    tables sorted by name, columns in the table's order, legacy names sorted, and a header
    naming ``source`` (no timestamp). ``required``: per table, the columns declared NOT
    NULL, written ``{type: T, required: true}``; ``casespecific``: per table, Teradata text
    columns' declared case attribute, written ``{type: T, casespecific: false}``;
    ``declared``: per table, each column's (dialect, type as its DDL declares it), written
    ``legacy: oracle NUMBER(10)``; ``physical``: per table, the type the lake stores where it
    is not the column's, written ``lake: INTEGER``, with the one-line ``notes`` (per table
    and column) that say why that is lossless as comments."""
    opaque = opaque or {}
    casespecific = casespecific or {}
    declared = declared or {}
    physical = physical or {}
    notes = notes or {}
    required = {table: frozenset(columns) for table, columns in (required or {}).items()}
    lines = [
        f"# Catalog imported by `plumbline catalog import` from {source}.",
        "# Types are exact ANSI types; {opaque: TYPE} is a declared type with no exact ANSI",
        "# form, and translation refuses expressions over such a column. required: true",
        "# marks a column declared NOT NULL; casespecific: true|false a Teradata column declared",
        "# CASESPECIFIC or NOT CASESPECIFIC; legacy: the type the legacy DDL declares (its",
        "# dialect's semantics apply); lake: the type the lake stores where it is another,",
        "# read through a CAST that was checked on the data to lose no value.",
        "tables:" if tables else "tables: {}",
    ]
    for table in sorted(tables):
        lines.append(f"  {_scalar(table)}:")
        for column, kind in tables[table].items():
            not_null = column in required.get(table, ())
            if column in opaque.get(table, {}):
                value = f"opaque: {_scalar(opaque[table][column], flow=True)}"
                value = f"{{{value}, required: true}}" if not_null else f"{{{value}}}"
            elif (
                not_null
                or column in casespecific.get(table, {})
                or column in declared.get(table, {})
                or column in physical.get(table, {})
            ):
                parts = [f"type: {_scalar(kind, flow=True)}"]
                if not_null:
                    parts.append("required: true")
                if column in casespecific.get(table, {}):
                    parts.append(f"casespecific: {str(casespecific[table][column]).lower()}")
                if column in declared.get(table, {}):
                    dialect, written = declared[table][column]
                    parts.append(f"legacy: {_scalar(f'{dialect} {written}', flow=True)}")
                if column in physical.get(table, {}):
                    parts.append(f"lake: {_scalar(physical[table][column], flow=True)}")
                value = "{" + ", ".join(parts) + "}"
            else:
                value = _scalar(kind)
            note = notes.get(table, {}).get(column)
            if note:
                lines.append(f"    # {column}: {' '.join(note.split())}")
            lines.append(f"    {_scalar(column)}: {value}")
    names = {d: n for d, n in (legacy or {}).items() if n}
    if names:
        lines.append("legacy:")
        for dialect in sorted(names):
            lines.append(f"  {dialect}:")
            for written in sorted(names[dialect]):
                lines.append(f"    {_scalar(written)}: {_scalar(names[dialect][written])}")
    return "\n".join(lines) + "\n"
