"""A contract checked against the output schema of the SQL that builds its table."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pipelines.contracts.model import Contract
from pipelines.lake.duckdb_types import INTEGERS

# DuckDB's integers, and the names Spark (BYTE, SHORT, LONG) and PostgreSQL (INT2..8) give them.
_INTEGER = INTEGERS | {"INT", "BYTE", "SHORT", "LONG", "INT2", "INT4", "INT8"}
_NUMBER = frozenset({"DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC", "FLOAT4", "FLOAT8"})
_STRING = frozenset({"VARCHAR", "CHAR", "TEXT", "STRING", "NVARCHAR", "NCHAR", "BPCHAR"})
_LOGICAL_BY_SQL = {
    **dict.fromkeys(_INTEGER, "integer"),
    **dict.fromkeys(_NUMBER, "number"),
    **dict.fromkeys(_STRING, "string"),
    "DATE": "date",
    "TIMESTAMP": "timestamp",
    "TIMESTAMP_NTZ": "timestamp",
    "TIMESTAMP_LTZ": "timestamp",
    "TIMESTAMPTZ": "timestamp",
    "DATETIME": "timestamp",
    "BOOLEAN": "boolean",
    "BOOL": "boolean",
}
_BASE_TYPE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*(?:\s+WITH(?:OUT)?\s+TIME\s+ZONE)?)")


@dataclass(frozen=True)
class LintError:
    file: str
    field: str
    message: str

    def format(self) -> str:
        return f"{self.file}:{self.field}: {self.message}"


def logical_type_of(sql_type: str) -> str | None:
    """The ODCS logical type a SQL output type carries, or None for one we do not map.

    DECIMAL is ``number`` whatever its scale: validation compares decimals as floats, so a
    DECIMAL(18,0) column cannot pass an ``integer`` type check.
    """
    match = _BASE_TYPE.match(sql_type)
    if not match or "[" in sql_type:  # INTEGER[] is a list, not an integer
        return None
    base = " ".join(match.group(1).upper().split())
    if base.startswith("TIMESTAMP"):
        return "timestamp"
    return _LOGICAL_BY_SQL.get(base)


def lint_contract(contract: Contract, output_columns: Mapping[str, str]) -> list[LintError]:
    """Every contract column must be produced with a compatible type, and vice versa."""
    file = str(contract.path)
    errors: list[LintError] = []
    for column in contract.columns:
        if column.name not in output_columns:
            errors.append(
                LintError(
                    file,
                    f"{column.field}.name",
                    f"column {column.name!r} is not produced by the table's SQL",
                )
            )
            continue
        sql_type = output_columns[column.name]
        logical = logical_type_of(sql_type)
        if logical is None:
            errors.append(
                LintError(
                    file,
                    f"{column.field}.logicalType",
                    f"the SQL produces {column.name!r} as {sql_type}, a type contracts cannot check",
                )
            )
        elif logical != column.logical_type:
            errors.append(
                LintError(
                    file,
                    f"{column.field}.logicalType",
                    f"column {column.name!r} is {column.logical_type} in the contract but the SQL "
                    f"produces {sql_type} ({logical})",
                )
            )
    declared = {column.name for column in contract.columns}
    for name, sql_type in output_columns.items():
        if name not in declared:
            errors.append(
                LintError(
                    file,
                    "schema[0].properties",
                    f"the SQL produces column {name!r} ({sql_type}) that the contract does not declare",
                )
            )
    return errors
