"""What changed between two versions of a contract, and whether consumers can break.

The classification takes the data's point of view: a change that can make data valid
under the old contract invalid under the new one (a removed column, a narrower type, a
tighter bound) is breaking; one that only admits more data is compatible.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from pipelines.contracts.lint import LintError
from pipelines.contracts.model import ColumnSpec, Contract, QualityRule

# The only logical type change that keeps every old value valid.
_WIDENINGS = frozenset({("integer", "number")})
_SEMVER = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


@dataclass(frozen=True)
class Change:
    kind: Literal["breaking", "compatible"]
    field: str
    message: str


def _bound_change(old, old_strict, new, new_strict, *, lower: bool) -> str | None:
    """'tighter', 'looser' or None for a changed lower or upper bound (None = unbounded).

    Bounds are numbers or datetimes, so they are only compared, never negated.
    """
    if (old, old_strict) == (new, new_strict):
        return None
    if new is None:
        return "looser"
    if old is None:
        return "tighter"
    moved_in = new > old if lower else new < old
    if moved_in or (new == old and new_strict and not old_strict):
        return "tighter"
    return "looser"


def _bound_changes(field: str, what: str, low: tuple, high: tuple) -> list[Change]:
    changes = []
    for side, change in (
        ("minimum", _bound_change(*low, lower=True)),
        ("maximum", _bound_change(*high, lower=False)),
    ):
        if change is not None:
            kind = "breaking" if change == "tighter" else "compatible"
            changes.append(Change(kind, field, f"{what} {side} {change}"))
    return changes


def _column_changes(old: ColumnSpec, new: ColumnSpec) -> list[Change]:
    name, field = new.name, new.field
    changes: list[Change] = []
    if old.logical_type != new.logical_type:
        widened = (old.logical_type, new.logical_type) in _WIDENINGS
        changes.append(
            Change(
                "compatible" if widened else "breaking",
                f"{field}.logicalType",
                f"column {name!r} type {old.logical_type} -> {new.logical_type}"
                + (" (widened)" if widened else " (narrowed or changed)"),
            )
        )
    for flag in ("required", "unique"):
        before, after = getattr(old, flag), getattr(new, flag)
        if before != after:
            changes.append(
                Change(
                    "breaking" if after else "compatible",
                    f"{field}.{flag}",
                    f"column {name!r} {flag}: {before} -> {after}",
                )
            )
    if old.allowed_values != new.allowed_values:
        if new.allowed_values is None:
            kind = "compatible"
        elif old.allowed_values is None:
            kind = "breaking"
        else:
            kind = (
                "compatible" if set(new.allowed_values) >= set(old.allowed_values) else "breaking"
            )
        changes.append(Change(kind, f"{field}.enum", f"column {name!r} allowed values changed"))
    changes += _bound_changes(
        f"{field}.logicalTypeOptions",
        f"column {name!r}",
        (old.minimum, old.strict_minimum, new.minimum, new.strict_minimum),
        (old.maximum, old.strict_maximum, new.maximum, new.strict_maximum),
    )
    changes += _bound_changes(
        f"{field}.logicalTypeOptions",
        f"column {name!r} length",
        (old.min_length, False, new.min_length, False),
        (old.max_length, False, new.max_length, False),
    )
    if old.pattern != new.pattern:
        # Whether one regex accepts a superset of another is undecidable in practice, so
        # any new or changed pattern is treated as a tightening.
        kind = "compatible" if new.pattern is None else "breaking"
        changes.append(
            Change(kind, f"{field}.logicalTypeOptions.pattern", f"column {name!r} pattern changed")
        )
    return changes


def _rule_key(rule: QualityRule) -> str:
    return json.dumps(
        [
            rule.column,
            rule.type,
            rule.metric,
            rule.operator,
            rule.value,
            rule.arguments,
            rule.query,
            rule.unit,
        ],
        sort_keys=True,
        default=str,
    )


def _rules(contract: Contract, columns: set[str]) -> dict[str, QualityRule]:
    rules = list(contract.quality)
    for column in contract.columns:
        if column.name in columns:
            rules += column.quality
    return {_rule_key(rule): rule for rule in rules}


def classify_changes(old: Contract, new: Contract) -> list[Change]:
    """Every difference between ``old`` and ``new`` that matters to the data.

    A column's ``classification`` is not compared: it decides how values are shown
    (masking.py), not which data is valid, so classifying a published column needs no new
    version."""
    changes: list[Change] = []
    old_columns = {column.name: column for column in old.columns}
    new_columns = {column.name: column for column in new.columns}
    for name, column in old_columns.items():
        if name not in new_columns:
            changes.append(Change("breaking", column.field, f"column {name!r} removed"))
    for name, column in new_columns.items():
        if name not in old_columns:
            kind = "breaking" if column.required else "compatible"
            optional = "required" if column.required else "optional"
            changes.append(Change(kind, column.field, f"{optional} column {name!r} added"))
        else:
            changes += _column_changes(old_columns[name], column)
    if old.primary_key != new.primary_key:
        kind = "compatible" if not new.primary_key else "breaking"
        changes.append(
            Change(
                kind,
                "schema[0].properties.primaryKey",
                f"primary key {list(old.primary_key)} -> {list(new.primary_key)}",
            )
        )
    changes += _bound_changes(
        "schema[0].quality.rowCount",
        "row count",
        (old.row_count_min, False, new.row_count_min, False),
        (old.row_count_max, False, new.row_count_max, False),
    )
    # Rules of an added or removed column come and go with it: already reported above.
    shared = old_columns.keys() & new_columns.keys()
    old_rules, new_rules = _rules(old, shared), _rules(new, shared)
    for key, rule in new_rules.items():
        if key not in old_rules:
            changes.append(Change("breaking", rule.field, f"quality rule added: {_describe(rule)}"))
    for key, rule in old_rules.items():
        if key not in new_rules:
            changes.append(
                Change("compatible", rule.field, f"quality rule removed: {_describe(rule)}")
            )
    return changes


def _describe(rule: QualityRule) -> str:
    what = rule.metric or rule.query
    return f"{rule.column or 'table'} {what} {rule.operator} {rule.value!r}"


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _SEMVER.match(text.strip())
    if not match:
        return None
    return tuple(int(part or 0) for part in match.groups())  # type: ignore[return-value]


def check_version_bump(old: Contract, new: Contract) -> list[LintError]:
    """Breaking changes need a new major version; any change needs a higher version."""
    file = str(new.path)
    old_version, new_version = parse_version(old.version), parse_version(new.version)
    if new_version is None:
        return [LintError(file, "version", f"version {new.version!r} is not MAJOR.MINOR.PATCH")]
    if old_version is None:
        return [
            LintError(
                file, "version", f"published version {old.version!r} is not MAJOR.MINOR.PATCH"
            )
        ]
    changes = classify_changes(old, new)
    breaking = [change for change in changes if change.kind == "breaking"]
    if breaking and new_version[0] <= old_version[0]:
        listed = "; ".join(f"{change.field}: {change.message}" for change in breaking)
        return [
            LintError(
                file,
                "version",
                f"breaking changes need a major version bump from {old.version} "
                f"(got {new.version}): {listed}",
            )
        ]
    if changes and new_version <= old_version:
        return [
            LintError(
                file,
                "version",
                f"the contract changed but its version {new.version} is not above {old.version}",
            )
        ]
    return []
