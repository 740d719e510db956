"""DuckDB's names for the lake's column types: the one list every package that reads a
DuckDB type name (the engine's Parquet writer, the reconciliation digest, the contract linter)
classifies it by. https://duckdb.org/docs/stable/sql/data_types/numeric"""

from __future__ import annotations

# 128-bit integers: what DuckDB sums integers into, which Parquet cannot hold.
WIDE_INTEGERS = frozenset({"HUGEINT", "UHUGEINT"})
INTEGERS = frozenset(
    {
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
        "UBIGINT",
        *WIDE_INTEGERS,
    }
)
# Exact decimals and binary floating point; a DECIMAL's name carries its (p, s).
FRACTIONAL_PREFIXES = ("DECIMAL", "FLOAT", "DOUBLE", "REAL")
# Every numeric type, as prefixes of a type's name (DECIMAL(18,2) starts with DECIMAL).
NUMERIC_PREFIXES: tuple[str, ...] = (*sorted(INTEGERS), *FRACTIONAL_PREFIXES)
