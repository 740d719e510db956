"""What a validation of a contract gives, on any path: each expectation's outcome, the
table's verdict, up to ``MAX_FAILING_ROWS`` failing rows, masked, and a digest of it all.

Shared by the DuckDB path (scan.py) and GX's Spark and pandas paths (validate.py), so that
the three report a result alike: observed values and details are formatted here from GX's
result shape (``describe``), whichever engine computed them.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pipelines.contracts.compile import CompiledContract, SqlCheck
from pipelines.contracts.masking import TableMasking

MAX_FAILING_ROWS = 20


@dataclass(frozen=True)
class ExpectationOutcome:
    name: str
    column: str | None
    passed: bool
    observed: object
    details: str


@dataclass(frozen=True)
class ContractResult:
    table: str
    contract_version: str
    passed: bool
    # Values of restricted and confidential columns, in outcomes and rows, are already
    # masked (masking.py): everything built from a result may be shown.
    outcomes: tuple[ExpectationOutcome, ...]
    failing_rows: tuple[dict, ...]  # at most MAX_FAILING_ROWS rows that violate

    def canonical_json(self) -> str:
        return json.dumps(plain(asdict(self)), sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        """sha256 of the canonical JSON of the result, for the audit registry.

        Of the masked result: a passing one holds no samples, so the digest a published
        table records does not depend on the masking key (short of an sql rule that
        returns text from a table with masked columns)."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def plain(value: Any) -> Any:
    """JSON-ready values: data from engines holds Decimals, dates, numpy scalars, NaN."""
    # pandas' missing values only come from the pandas path, which has imported it; the
    # DuckDB path never does (seconds).
    pd = sys.modules.get("pandas")
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if value is None or (pd is not None and (value is pd.NA or value is pd.NaT)):
        return None
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.date):  # a datetime and pandas' Timestamp are dates too
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalar
        return plain(value.item())
    return str(value)


def describe(
    result: Mapping[str, Any], column: str | None, masking: TableMasking
) -> tuple[object, str]:
    # The observed values of the compiled expectations are counts, dtypes and row counts,
    # never the data; the unexpected values are the data.
    if "observed_value" in result:
        return plain(result["observed_value"]), f"observed {plain(result['observed_value'])!r}"
    if "unexpected_count" in result:
        count = result["unexpected_count"]
        examples = masking.values(column, plain(result.get("partial_unexpected_list") or [])[:5])
        observed = {
            "element_count": result.get("element_count"),
            "unexpected_count": count,
            "unexpected_percent": plain(result.get("unexpected_percent")),
        }
        details = f"{count} of {result.get('element_count')} values unexpected"
        return observed, details + (f", e.g. {examples}" if examples else "")
    return None, ""


def _sql_outcome(
    check: SqlCheck, column: str | None, run, masking: TableMasking
) -> ExpectationOutcome:
    try:
        observed = run(check)
    except Exception as exc:
        # An engine error fails the check with its message: a rule that did not run must
        # not pass.
        return ExpectationOutcome(check.name, column, False, None, f"error: {exc}".splitlines()[0])
    passed = check.holds(observed)
    shown = masking.query_result(plain(observed))
    return ExpectationOutcome(
        check.name,
        column,
        passed,
        shown,
        f"observed {shown!r}, {check.operator} {check.value!r}",
    )


def sql_outcomes(
    compiled: CompiledContract, run, masking: TableMasking
) -> list[ExpectationOutcome]:
    columns = {info.name: info.column for info in compiled.expectations}
    return [_sql_outcome(check, columns[check.name], run, masking) for check in compiled.sql_checks]


def contract_result(
    compiled: CompiledContract,
    outcomes: Iterable[ExpectationOutcome],
    rows: list[dict],
    masking: TableMasking,
) -> ContractResult:
    order = {info.name: index for index, info in enumerate(compiled.expectations)}
    ordered = tuple(sorted(outcomes, key=lambda outcome: order[outcome.name]))
    return ContractResult(
        table=compiled.contract.table,
        contract_version=compiled.contract.version,
        passed=all(outcome.passed for outcome in ordered),
        outcomes=ordered,
        failing_rows=tuple(masking.row(plain(row)) for row in rows[:MAX_FAILING_ROWS]),
    )


def failing_row_matches(
    failed: Iterable[tuple[str | None, Mapping[str, Any]]],
    key: Sequence[str],
    columns: Sequence[str],
) -> list[dict[str, Any]]:
    """Which whole rows show the failed expectations, as ``{column: value}`` matches (a row
    matches when every column equals its value, NULL matching NULL): the rows GX's
    ``partial_unexpected_index_list`` names by ``key``, else those holding an unexpected
    value (or combination of values, for a compound key). At most MAX_FAILING_ROWS of each
    kind; each engine turns them into its own query."""
    matches: list[dict[str, Any]] = []
    keys: list[tuple] = []
    for column, result in failed:
        indexed = [
            entry
            for entry in result.get("partial_unexpected_index_list") or ()
            if isinstance(entry, Mapping) and key and all(name in entry for name in key)
        ]
        for entry in indexed:
            value = tuple(entry[name] for name in key)
            if value not in keys:
                keys.append(value)
        if indexed:
            continue
        for value in list(result.get("partial_unexpected_list") or ())[:MAX_FAILING_ROWS]:
            if isinstance(value, Mapping) and value and set(value) <= set(columns):
                matches.append(dict(value))
            elif not isinstance(value, Mapping) and column in columns:
                matches.append({column: value})
    matches += [dict(zip(key, value, strict=True)) for value in keys[:MAX_FAILING_ROWS]]
    return matches
