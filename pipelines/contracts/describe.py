"""A contract's columns as a catalog shows them: a description and the constraints a person
reads ("primary key (1)", "one of AIR, FOB", "between 1 and 7", "classification:
restricted"). Pure: a ``Contract`` in, plain data out; the assets turn it into Dagster's
column schema."""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.contracts.compile import CompiledContract, bounds_text
from pipelines.contracts.model import ColumnSpec, Contract
from pipelines.contracts.validate import ContractResult


@dataclass(frozen=True)
class ColumnDescription:
    name: str
    type: str  # the contract's physical type, else its logical type
    description: str | None
    nullable: bool
    unique: bool
    other: tuple[str, ...]  # the remaining constraints, readable


def column_constraints(contract: Contract, column: ColumnSpec) -> tuple[str, ...]:
    """What ``column`` of ``contract`` promises beyond nullability and uniqueness."""
    found = []
    if column.name in contract.primary_key:
        found.append(f"primary key ({contract.primary_key.index(column.name) + 1})")
    if column.allowed_values is not None:
        found.append("one of " + ", ".join(str(v) for v in column.allowed_values))
    if column.minimum is not None or column.maximum is not None:
        found.append(
            bounds_text(
                column.minimum, column.maximum, column.strict_minimum, column.strict_maximum
            )
        )
    if column.min_length is not None or column.max_length is not None:
        found.append("length " + bounds_text(column.min_length, column.max_length))
    if column.pattern is not None:
        found.append(f"matches {column.pattern}")
    found.extend(rule.description or f"{rule.metric or rule.type} rule" for rule in column.quality)
    found.append(f"classification: {column.classification or 'public'}")
    return tuple(found)


def describe_columns(contract: Contract) -> list[ColumnDescription]:
    """Every column ``contract`` declares, in its order."""
    return [
        ColumnDescription(
            name=column.name,
            type=column.physical_type or column.logical_type,
            description=column.description,
            nullable=not column.required,
            unique=column.unique or contract.primary_key == (column.name,),
            other=column_constraints(contract, column),
        )
        for column in contract.columns
    ]


def observed_text(observed: object, details: str) -> object:
    """An expectation's observed value as a results table shows it: "3 of 1,200 values
    unexpected (0.25%)" for a per-value rule, the value itself for an aggregate (a count with
    thousands separators: "584,805"), the error when GX could not compute it. Masked values
    arrive masked and stay so."""
    if isinstance(observed, dict) and "unexpected_count" in observed:
        count, total = observed.get("unexpected_count"), observed.get("element_count")
        percent = observed.get("unexpected_percent")
        shown = f"{_number(count)} of {_number(total)} values unexpected"
        if isinstance(percent, int | float) and count:
            shown += f" ({_significant(percent)}%)"
        return shown
    if observed is None:
        return details
    if isinstance(observed, bool | str):
        return observed
    if isinstance(observed, int | float):
        return _number(observed)
    return str(observed)


def observed_type_text(observed: object, logical_type: str, passed: bool) -> str:
    """A column type as the contract names it: "integer (engine: BigInteger)" where the
    engine's type (SQLAlchemy's, Spark's or pandas' name) is the contract's logical type,
    "BigInteger, not string" where it is not."""
    if passed:
        return f"{logical_type} (engine: {observed})"
    return f"{observed}, not {logical_type}"


def _number(value: object) -> object:
    """A count with thousands separators, another number to four significant digits."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if isinstance(value, int) or value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.4g}"


def _significant(value: float) -> str:
    return f"{value:.3g}"


def contract_result_rows(
    compiled: CompiledContract, result: ContractResult
) -> list[dict[str, object]]:
    """One row per expectation of ``result``: column ("(table)" for a table rule), rule,
    threshold, observed, passed, and the GX expectation that checked it."""
    infos = {info.name: info for info in compiled.expectations}
    rows = []
    for outcome in result.outcomes:
        info = infos[outcome.name]
        rows.append(
            {
                "column": outcome.column or "(table)",
                "rule": info.rule or info.kind,
                "threshold": info.threshold,
                "observed": observed_type_text(outcome.observed, info.threshold, outcome.passed)
                if info.kind == "type" and outcome.observed is not None
                else observed_text(outcome.observed, outcome.details),
                "passed": outcome.passed,
                "expectation": info.expectation_type,
                "name": outcome.name,
            }
        )
    return rows
