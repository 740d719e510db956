"""ODCS v3 contract files loaded into a small typed ``Contract``.

Parsing and structural validation are the ``open-data-contract-standard`` pydantic models;
this module adds the checks plumbline relies on (one table per file, known logical types,
options we can turn into expectations) and flattens the document into ``ColumnSpec``s.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic
import yaml
from open_data_contract_standard.model import (
    DataQuality,
    OpenDataContractStandard,
    SchemaObject,
    SchemaProperty,
    Team,
)

from pipelines.contracts.errors import ContractError
from sql import yaml_text

# Logical types of ODCS v3 (schema.json, SchemaProperty.logicalType) ...
ODCS_LOGICAL_TYPES = frozenset(
    {
        "string",
        "date",
        "timestamp",
        "time",
        "number",
        "integer",
        "object",
        "array",
        "boolean",
        "map",
        "vector",
    }
)
# ... and the flat ones a warehouse table column can have and GX can check.
SUPPORTED_LOGICAL_TYPES = frozenset({"string", "date", "timestamp", "number", "integer", "boolean"})

# logicalTypeOptions that become expectations, per logical type. Anything else (format,
# multipleOf, timezone...) is refused rather than silently ignored.
SUPPORTED_OPTIONS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "date": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "timestamp": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "boolean": frozenset(),
}

# ODCS v3 leaves SchemaProperty.classification a free string (its examples: public,
# restricted, confidential); plumbline accepts only these four common levels, because masking
# follows the classification (masking.py) and a misspelt "restriced" must fail the load, not
# show the column's values.
CLASSIFICATIONS = ("public", "internal", "restricted", "confidential")

OPERATORS = (
    "mustBe",
    "mustNotBe",
    "mustBeGreaterThan",
    "mustBeGreaterOrEqualTo",
    "mustBeLessThan",
    "mustBeLessOrEqualTo",
    "mustBeBetween",
    "mustNotBeBetween",
)


@dataclass(frozen=True)
class QualityRule:
    """One ODCS ``quality`` entry, at table level (``column`` None) or on a column."""

    field: str  # dotted path of the rule in the file, for error messages
    column: str | None
    type: str  # library | sql
    metric: str | None
    operator: str
    value: Any
    arguments: Mapping[str, Any]
    query: str | None
    unit: str | None
    name: str | None
    description: str | None


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    logical_type: str
    physical_type: str | None
    required: bool
    unique: bool
    allowed_values: tuple | None
    minimum: float | int | dt.datetime | None  # datetimes for date and timestamp columns
    maximum: float | int | dt.datetime | None
    pattern: str | None
    description: str | None
    strict_minimum: bool = False  # exclusiveMinimum: value must be > minimum
    strict_maximum: bool = False
    min_length: int | None = None
    max_length: int | None = None
    field: str = ""  # dotted path of the property, e.g. schema[0].properties[2]
    quality: tuple[QualityRule, ...] = ()
    classification: str | None = None  # one of CLASSIFICATIONS; None reads as public


@dataclass(frozen=True)
class Contract:
    path: Path
    table: str
    version: str
    owner: str | None
    description: str | None
    columns: tuple[ColumnSpec, ...]
    primary_key: tuple[str, ...]
    row_count_min: int | None
    row_count_max: int | None
    odcs: OpenDataContractStandard
    quality: tuple[QualityRule, ...] = ()  # table-level rules other than rowCount

    def column(self, name: str) -> ColumnSpec:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)


def _dotted(location: Sequence[str | int]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<document>"


def _parse(path: Path) -> tuple[dict[str, Any], OpenDataContractStandard]:
    file = str(path)
    try:
        document = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ContractError(file, "<document>", f"cannot read the file: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ContractError(
            file, f"byte {exc.start}", "not UTF-8 text; a contract is a UTF-8 YAML file"
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<document>"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ContractError(file, where, f"malformed YAML: {problem}") from exc
    if not isinstance(document, dict):
        raise ContractError(file, "<document>", "a contract must be a YAML mapping")
    try:
        odcs = OpenDataContractStandard.model_validate(document)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        location = [part for part in first["loc"] if not _is_union_tag(part)]
        raise ContractError(
            file, _dotted(["schema" if p == "schema_" else p for p in location]), first["msg"]
        ) from exc
    return document, odcs


_TYPE_TAGS = frozenset({"bool", "dict", "float", "int", "list", "none", "str"})


def _is_union_tag(part: str | int) -> bool:
    # pydantic puts the union member tried in the location ("float", "list[TeamMember]",
    # "Team"); ODCS field names are lower camel case and never one of those.
    return isinstance(part, str) and ("[" in part or part[:1].isupper() or part in _TYPE_TAGS)


def _check_keys(file: str, field: str, raw: Mapping[str, Any], model: type[pydantic.BaseModel]):
    """Nested ODCS models ignore unknown keys; a misspelt ``requird`` must not vanish."""
    known = set(model.model_fields)
    known |= {f.alias for f in model.model_fields.values() if f.alias}
    for key in raw:
        if key not in known:
            raise ContractError(file, f"{field}.{key}", f"unknown ODCS field {key!r}")


def _operator(file: str, field: str, rule: DataQuality) -> tuple[str, Any]:
    given = [(name, getattr(rule, name)) for name in OPERATORS if getattr(rule, name) is not None]
    if len(given) != 1:
        raise ContractError(
            file, field, f"a quality rule needs exactly one of {', '.join(OPERATORS)}"
        )
    return given[0]


def _quality_rules(
    file: str,
    field: str,
    raw: Sequence[Any] | None,
    rules: Sequence[DataQuality] | None,
    column: str | None,
) -> list[QualityRule]:
    result = []
    for index, rule in enumerate(rules or ()):
        rule_field = f"{field}.quality[{index}]"
        _check_keys(file, rule_field, raw[index], DataQuality)
        kind = rule.type or "library"
        if kind not in ("library", "sql"):
            raise ContractError(
                file,
                f"{rule_field}.type",
                f"quality rules of type {kind!r} cannot be checked by Great Expectations; "
                "use a 'library' or 'sql' rule",
            )
        metric = rule.metric or rule.rule
        if kind == "library" and not metric:
            raise ContractError(file, f"{rule_field}.metric", "a library rule needs a metric")
        if kind == "sql" and not rule.query:
            raise ContractError(file, f"{rule_field}.query", "an sql rule needs a query")
        operator, value = _operator(file, rule_field, rule)
        result.append(
            QualityRule(
                field=rule_field,
                column=column,
                type=kind,
                metric=metric if kind == "library" else None,
                operator=operator,
                value=value,
                arguments=dict(rule.arguments or {}),
                query=rule.query if kind == "sql" else None,
                unit=rule.unit,
                name=rule.name,
                description=rule.description,
            )
        )
    return result


def _bound(file: str, field: str, logical: str, value: Any) -> float | int | dt.datetime:
    """A range bound as the value GX compares with: a number, or a datetime for dates.

    GX's pandas range check cannot compare a datetime64 column with a string or a date, so
    ISO strings (and YAML's own dates) become datetimes; Spark compares those as well.
    """
    if logical in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ContractError(file, field, f"the bound must be a number, got {value!r}")
        return value
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            pass
    raise ContractError(file, field, f"the bound must be an ISO {logical}, got {value!r}")


def _column(file: str, field: str, raw: Mapping[str, Any], prop: SchemaProperty) -> ColumnSpec:
    _check_keys(file, field, raw, SchemaProperty)
    if not prop.name:
        raise ContractError(file, f"{field}.name", "every property needs a name")
    logical = prop.logicalType
    if logical is None:
        raise ContractError(
            file, f"{field}.logicalType", f"column {prop.name!r} needs a logicalType"
        )
    if logical not in ODCS_LOGICAL_TYPES:
        raise ContractError(
            file,
            f"{field}.logicalType",
            f"unknown logical type {logical!r}; ODCS v3 knows {', '.join(sorted(ODCS_LOGICAL_TYPES))}",
        )
    if logical not in SUPPORTED_LOGICAL_TYPES:
        raise ContractError(
            file,
            f"{field}.logicalType",
            f"logical type {logical!r} is not a flat column type; plumbline contracts support "
            f"{', '.join(sorted(SUPPORTED_LOGICAL_TYPES))}",
        )
    options = dict(prop.logicalTypeOptions or {})
    for key in options:
        if key not in SUPPORTED_OPTIONS[logical]:
            raise ContractError(
                file,
                f"{field}.logicalTypeOptions.{key}",
                f"option {key!r} on a {logical} column cannot be expressed as an expectation",
            )
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if options.get(key) is not None:
            options[key] = _bound(file, f"{field}.logicalTypeOptions.{key}", logical, options[key])
    minimum, maximum = options.get("minimum"), options.get("maximum")
    strict_min, strict_max = False, False
    if options.get("exclusiveMinimum") is not None:
        if minimum is not None:
            raise ContractError(
                file, f"{field}.logicalTypeOptions", "give minimum or exclusiveMinimum, not both"
            )
        minimum, strict_min = options["exclusiveMinimum"], True
    if options.get("exclusiveMaximum") is not None:
        if maximum is not None:
            raise ContractError(
                file, f"{field}.logicalTypeOptions", "give maximum or exclusiveMaximum, not both"
            )
        maximum, strict_max = options["exclusiveMaximum"], True
    for key in ("minLength", "maxLength"):
        bound = options.get(key)
        if bound is not None and (
            isinstance(bound, bool) or not isinstance(bound, int) or bound < 0
        ):
            raise ContractError(
                file, f"{field}.logicalTypeOptions.{key}", f"{key} must be a non-negative integer"
            )
    pattern = options.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise ContractError(file, f"{field}.logicalTypeOptions.pattern", "pattern must be a string")
    if prop.classification is not None and prop.classification not in CLASSIFICATIONS:
        raise ContractError(
            file,
            f"{field}.classification",
            f"unknown classification {prop.classification!r}; plumbline knows "
            f"{', '.join(CLASSIFICATIONS)} (restricted and confidential values are masked)",
        )
    allowed = None
    if prop.enum is not None:
        if not prop.enum:
            raise ContractError(file, f"{field}.enum", "enum needs at least one value")
        allowed = tuple(entry.value for entry in prop.enum)
    return ColumnSpec(
        name=prop.name,
        logical_type=logical,
        physical_type=prop.physicalType,
        required=bool(prop.required) or bool(prop.primaryKey),
        unique=bool(prop.unique),
        allowed_values=allowed,
        minimum=minimum,
        maximum=maximum,
        pattern=pattern,
        description=prop.description,
        strict_minimum=strict_min,
        strict_maximum=strict_max,
        min_length=options.get("minLength"),
        max_length=options.get("maxLength"),
        field=field,
        quality=tuple(
            _quality_rules(file, field, raw.get("quality"), prop.quality, column=prop.name)
        ),
        classification=prop.classification,
    )


def _row_bounds(file: str, rules: Sequence[QualityRule]) -> tuple[int | None, int | None]:
    """Fold ``rowCount`` library rules into one inclusive [min, max] interval."""
    low, high = None, None
    for rule in rules:
        value = rule.value
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values) or any(
            float(v) != int(v) for v in values
        ):
            raise ContractError(file, rule.field, "rowCount bounds must be whole numbers")
        values = [int(v) for v in values]
        bounds = {
            "mustBe": (values[0], values[0]),
            "mustBeGreaterThan": (values[0] + 1, None),
            "mustBeGreaterOrEqualTo": (values[0], None),
            "mustBeLessThan": (None, values[0] - 1),
            "mustBeLessOrEqualTo": (None, values[0]),
            "mustBeBetween": (values[0], values[-1]),
        }.get(rule.operator)
        if bounds is None:
            raise ContractError(
                file, rule.field, f"rowCount with {rule.operator} cannot be expressed in GX"
            )
        if bounds[0] is not None:
            low = bounds[0] if low is None else max(low, bounds[0])
        if bounds[1] is not None:
            high = bounds[1] if high is None else min(high, bounds[1])
    if low is not None and high is not None and low > high:
        raise ContractError(file, rules[0].field, f"rowCount bounds are empty ({low} > {high})")
    return low, high


def _owner(odcs: OpenDataContractStandard) -> str | None:
    team = odcs.team
    if isinstance(team, Team):
        if team.name:
            return team.name
        team = team.members
    for member in team or ():
        if (member.role or "").lower() == "owner":
            return member.username or member.name
    return None


def load_contract(path: Path) -> Contract:
    """Load and check one ODCS v3 file; raise ``ContractError`` naming the field at fault."""
    path = Path(path)
    file = str(path)
    document, odcs = _parse(path)
    for key in ("apiVersion", "kind", "id", "version"):
        if getattr(odcs, key) in (None, ""):
            raise ContractError(file, key, f"ODCS requires {key!r}")
    if odcs.kind != "DataContract":
        raise ContractError(file, "kind", f"kind must be 'DataContract', got {odcs.kind!r}")
    if not odcs.apiVersion.startswith("v3."):
        raise ContractError(
            file, "apiVersion", f"expected an ODCS v3 apiVersion, got {odcs.apiVersion!r}"
        )
    if not odcs.schema_ or len(odcs.schema_) != 1:
        raise ContractError(file, "schema", "a plumbline contract describes exactly one table")
    raw_table = document["schema"][0]
    table = odcs.schema_[0]
    _check_keys(file, "schema[0]", raw_table, SchemaObject)
    if not table.name:
        raise ContractError(file, "schema[0].name", "the table needs a name")
    if not table.properties:
        raise ContractError(file, "schema[0].properties", "the table needs at least one column")
    columns = tuple(
        _column(file, f"schema[0].properties[{index}]", raw_prop, prop)
        for index, (raw_prop, prop) in enumerate(
            zip(raw_table["properties"], table.properties, strict=True)
        )
    )
    seen: set[str] = set()
    for column in columns:
        if column.name in seen:
            raise ContractError(file, f"{column.field}.name", f"duplicate column {column.name!r}")
        seen.add(column.name)
    keyed = [
        (prop.primaryKeyPosition if prop.primaryKeyPosition is not None else index, prop.name)
        for index, prop in enumerate(table.properties)
        if prop.primaryKey
    ]
    primary_key = tuple(name for _, name in sorted(keyed))
    rules = _quality_rules(file, "schema[0]", raw_table.get("quality"), table.quality, column=None)
    row_rules = [r for r in rules if r.type == "library" and r.metric == "rowCount"]
    low, high = _row_bounds(file, row_rules)
    for column in columns:
        for rule in column.quality:
            if rule.metric == "rowCount":
                raise ContractError(file, rule.field, "rowCount is a table-level rule")
    description = None
    if odcs.description is not None:
        description = odcs.description.purpose or odcs.description.usage
    return Contract(
        path=path,
        table=table.name,
        version=odcs.version,
        owner=_owner(odcs),
        description=description or table.description,
        columns=columns,
        primary_key=primary_key,
        row_count_min=low,
        row_count_max=high,
        odcs=odcs,
        quality=tuple(r for r in rules if r not in row_rules),
    )


def load_contracts(folder: Path) -> dict[str, Contract]:
    """Every ``*.yaml`` contract in a folder by table name; one error lists every bad file."""
    if not Path(folder).is_dir():
        raise ContractError(str(folder), "<folder>", "no such contracts folder")
    contracts: dict[str, Contract] = {}
    errors: list[ContractError] = []
    for path in sorted(Path(folder).glob("*.yaml")):
        try:
            contract = load_contract(path)
        except ContractError as exc:
            errors.append(exc)
            continue
        if contract.table in contracts:
            errors.append(
                ContractError(
                    str(path),
                    "schema[0].name",
                    f"table {contract.table!r} already has a contract in "
                    f"{contracts[contract.table].path}",
                )
            )
            continue
        contracts[contract.table] = contract
    if errors:
        if len(errors) == 1:
            raise errors[0]
        raise ContractError(
            str(folder),
            "<folder>",
            f"{len(errors)} bad contracts:\n" + "\n".join(str(error) for error in errors),
        )
    return contracts
