"""A ``Contract`` compiled into a Great Expectations 1.x expectation suite.

Every promise of the contract becomes exactly one expectation (or one SQL check) with a
stable name; a promise GX cannot check exactly raises ``ContractError`` naming the rule.

The expectations are compiled as data (``ExpectationSpec``: GX's class name and the
arguments GX's own configuration holds), and the GX suite is made from them only when a path
that runs GX asks for it (``CompiledContract.suite``): the DuckDB path (scan.py) validates
from the specs alone, in one aggregate query, without importing GX (seconds, and pyspark).

ODCS ``sql`` quality rules return one value that is compared with the rule's operator.
GX's ``UnexpectedRowsExpectation`` has a different shape (a query returning bad rows) and
does not run on pandas, so those rules compile to ``SqlCheck``s that the validator runs on
the same data with the engine that holds it: DuckDB for Arrow, Spark SQL for Spark.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from pipelines.contracts.errors import ContractError
from pipelines.contracts.model import ColumnSpec, Contract, QualityRule

# Great Expectations is imported only where a GX suite is made (CompiledContract.suite),
# not to compile: it takes seconds to import (pandas, and pyspark through its compatibility
# layer), and neither the code location's load nor the DuckDB validation needs it.
if TYPE_CHECKING:
    import great_expectations as gx

# Placeholders ODCS uses in sql rules. They are swapped for identifiers before parsing so
# the query is handled as an AST from then on.
TABLE_PLACEHOLDER = "${table}"
COLUMN_PLACEHOLDER = "${column}"
_TABLE_TOKEN = "plumbline_contract_table"
_COLUMN_TOKEN = "plumbline_contract_column"

# Column types that satisfy a logical type: pandas/numpy names (after validate.py's
# Arrow -> pandas conversion), pyspark.sql.types names and SQLAlchemy type names (GX's SQL
# engine on DuckDB; a column's reflected type is checked with isinstance, so "Integer"
# holds SMALLINT, INTEGER and BIGINT) in one list, because GX resolves each name against
# the engine it runs on and ignores the names of the others.
TYPE_LISTS: dict[str, list[str]] = {
    "integer": [
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "Int8Dtype",
        "Int16Dtype",
        "Int32Dtype",
        "Int64Dtype",
        "ByteType",
        "ShortType",
        "IntegerType",
        "LongType",
        "Integer",
    ],
    "number": [
        "float32",
        "float64",
        "Float32Dtype",
        "Float64Dtype",
        "FloatType",
        "DoubleType",
        "DecimalType",
        "Numeric",
    ],
    "string": ["object", "StringDtype", "StringType", "VarcharType", "CharType", "String"],
    "boolean": ["bool", "BooleanDtype", "BooleanType", "Boolean"],
    "date": [
        "datetime64[s]",
        "datetime64[ms]",
        "datetime64[us]",
        "datetime64[ns]",
        "DateType",
        "Date",
    ],
    "timestamp": [
        "datetime64[s]",
        "datetime64[ms]",
        "datetime64[us]",
        "datetime64[ns]",
        "DatetimeTZDtype",
        "TimestampType",
        "TimestampNTZType",
        "DateTime",
    ],
}

_SQL_OPERATORS = {
    "mustBe": "=",
    "mustNotBe": "!=",
    "mustBeGreaterThan": ">",
    "mustBeGreaterOrEqualTo": ">=",
    "mustBeLessThan": "<",
    "mustBeLessOrEqualTo": "<=",
    "mustBeBetween": "between",
    "mustNotBeBetween": "not between",
}


# ODCS library metrics as a results table names them.
LIBRARY_RULES = {
    "duplicateValues": "no duplicates",
    "invalidValues": "valid values",
    "missingValues": "no missing values",
    "nullValues": "null values",
}


def bounds_text(
    low: object, high: object, strict_low: bool = False, strict_high: bool = False
) -> str:
    """``low``/``high`` as a person reads a bound: "between 1 and 7", ">= 1", "< 10"."""
    if low is not None and high is not None and not (strict_low or strict_high):
        return f"between {low} and {high}"
    parts = []
    if low is not None:
        parts.append(f"{'>' if strict_low else '>='} {low}")
    if high is not None:
        parts.append(f"{'<' if strict_high else '<='} {high}")
    return " and ".join(parts)


def _threshold(rule: QualityRule) -> str:
    """A quality rule's comparison, e.g. "<= 5 percent" or "between 1 and 9"."""
    value = rule.value
    if isinstance(value, list) and len(value) == 2 and rule.operator.endswith("Between"):
        shown = f"{value[0]} and {value[1]}"
    else:
        shown = str(value)
    unit = f" {rule.unit}" if rule.unit else ""
    return f"{_SQL_OPERATORS.get(rule.operator, rule.operator)} {shown}{unit}"


@dataclass(frozen=True)
class ExpectationInfo:
    name: str
    kind: str
    column: str | None
    description: str
    # As a person reads it in a results table: the rule ("not null", "in set", "between"),
    # the bound or set the contract gives it, and the GX expectation that checks it.
    rule: str = ""
    threshold: str = ""
    expectation_type: str = ""


@dataclass(frozen=True)
class SqlCheck:
    """An ODCS ``sql`` rule: a one-value query and the comparison its value must satisfy."""

    name: str
    query: exp.Expression  # references the table as plumbline_contract_table
    operator: str
    value: Any

    def render(self, dialect: str, table: str) -> str:
        """The query for ``dialect`` with the placeholder table renamed to ``table``."""

        def rename(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Table) and node.name == _TABLE_TOKEN:
                return exp.to_table(table)
            return node

        return self.query.copy().transform(rename).sql(dialect=dialect)

    def holds(self, observed: Any) -> bool:
        if observed is None:
            return False
        operator, value = self.operator, self.value
        if operator == "mustBe":
            return observed == value
        if operator == "mustNotBe":
            return observed != value
        if operator == "mustBeGreaterThan":
            return observed > value
        if operator == "mustBeGreaterOrEqualTo":
            return observed >= value
        if operator == "mustBeLessThan":
            return observed < value
        if operator == "mustBeLessOrEqualTo":
            return observed <= value
        inside = value[0] <= observed <= value[1]
        return inside if operator == "mustBeBetween" else not inside


@dataclass(frozen=True)
class ExpectationSpec:
    """One GX expectation as data: its name, GX's class (``ExpectColumnValuesToBeUnique``)
    and its arguments as GX's configuration holds them (a numeric bound of
    ``ExpectColumnValuesToBeBetween`` is a float there: GX's pydantic field coerces it)."""

    name: str
    type: str
    kwargs: Mapping[str, Any]

    def gx(self) -> Any:
        """The GX expectation, named in its meta (results are matched back by it)."""
        import great_expectations as gx

        expectation = getattr(gx.expectations, self.type)(**self.kwargs)
        expectation.meta = {"name": self.name}
        return expectation


@dataclass(frozen=True)
class CompiledContract:
    contract: Contract
    expectations: tuple[ExpectationInfo, ...]
    # The GX expectations of the non-sql promises, in the order of ``expectations``.
    specs: tuple[ExpectationSpec, ...] = ()
    sql_checks: tuple[SqlCheck, ...] = ()

    @functools.cached_property
    def suite(self) -> gx.ExpectationSuite:
        """The GX suite of ``specs`` (imports GX: for the Spark and pandas paths)."""
        import great_expectations as gx

        expectations = [spec.gx() for spec in self.specs]
        # Built in one go: ``suite.add_expectation`` needs an active data context, and
        # compiling must not depend on one.
        suite = gx.ExpectationSuite(
            name=f"{self.contract.table}@{self.contract.version}", expectations=expectations
        )
        if len(suite.expectations) != len(expectations):
            # GX logs and drops an expectation it cannot configure; never run a thinner suite.
            raise ContractError(str(self.contract.path), "schema[0]", "GX rejected an expectation")
        return suite

    def suite_json(self) -> str:
        """The suite as canonical JSON: identical for identical contracts."""
        return json.dumps(self.suite.to_json_dict(), sort_keys=True, default=str)


class _Builder:
    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.file = str(contract.path)
        self.specs: list[ExpectationSpec] = []
        self.infos: list[ExpectationInfo] = []
        self.sql_checks: list[SqlCheck] = []
        self.names: set[str] = set()

    def _unique_name(self, name: str) -> str:
        if name in self.names:
            suffix = 2
            while f"{name}#{suffix}" in self.names:
                suffix += 1
            name = f"{name}#{suffix}"
        self.names.add(name)
        return name

    def add(
        self,
        name: str,
        kind: str,
        column: str | None,
        description: str,
        expectation: tuple[str, dict[str, Any]],
        *,
        rule: str,
        threshold: str = "",
    ) -> None:
        """Add GX's ``expectation`` (its class name and arguments) as promise ``name``."""
        name = self._unique_name(name)
        expectation_type, kwargs = expectation
        # The name travels in meta so results can be matched back: GX reorders results.
        self.specs.append(ExpectationSpec(name, expectation_type, kwargs))
        self.infos.append(
            ExpectationInfo(name, kind, column, description, rule, threshold, expectation_type)
        )

    def error(self, field: str, message: str) -> ContractError:
        return ContractError(self.file, field, message)


def _regex(builder: _Builder, field: str, pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise builder.error(field, f"invalid regular expression {pattern!r}: {exc}") from exc
    return pattern


def _expect(expectation_type: str, **kwargs: Any) -> tuple[str, dict[str, Any]]:
    """GX's ``expectation_type`` with ``kwargs``, as data (``ExpectationSpec``)."""
    return expectation_type, kwargs


def _bound(value: Any) -> Any:
    """A bound of ``ExpectColumnValuesToBeBetween`` as GX's configuration holds it: its
    ``Comparable`` field makes an int a float; a datetime stays one."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def _column_expectations(builder: _Builder, column: ColumnSpec) -> None:
    name = column.name
    builder.add(
        f"{name}.exists",
        "column_exists",
        name,
        f"column {name} exists",
        _expect("ExpectColumnToExist", column=name),
        rule="exists",
    )
    builder.add(
        f"{name}.type",
        "type",
        name,
        f"column {name} has logical type {column.logical_type}",
        _expect(
            "ExpectColumnValuesToBeInTypeList",
            column=name,
            type_list=TYPE_LISTS[column.logical_type],
        ),
        rule="type",
        threshold=column.logical_type,
    )
    if column.required:
        builder.add(
            f"{name}.not_null",
            "not_null",
            name,
            f"{name} is never null",
            _expect("ExpectColumnValuesToNotBeNull", column=name),
            rule="not null",
        )
    if column.unique:
        builder.add(
            f"{name}.unique",
            "unique",
            name,
            f"{name} values are unique",
            _expect("ExpectColumnValuesToBeUnique", column=name),
            rule="unique",
        )
    if column.allowed_values is not None:
        builder.add(
            f"{name}.allowed_values",
            "allowed_values",
            name,
            f"{name} is one of {list(column.allowed_values)}",
            _expect(
                "ExpectColumnValuesToBeInSet", column=name, value_set=list(column.allowed_values)
            ),
            rule="in set",
            threshold=", ".join(str(v) for v in column.allowed_values),
        )
    if column.minimum is not None or column.maximum is not None:
        low = "(" if column.strict_minimum else "["
        high = ")" if column.strict_maximum else "]"
        builder.add(
            f"{name}.range",
            "range",
            name,
            f"{name} in {low}{column.minimum}, {column.maximum}{high}",
            _expect(
                "ExpectColumnValuesToBeBetween",
                column=name,
                min_value=_bound(column.minimum),
                max_value=_bound(column.maximum),
                strict_min=column.strict_minimum,
                strict_max=column.strict_maximum,
            ),
            rule="between",
            threshold=bounds_text(
                column.minimum, column.maximum, column.strict_minimum, column.strict_maximum
            ),
        )
    if column.min_length is not None or column.max_length is not None:
        builder.add(
            f"{name}.length",
            "length",
            name,
            f"{name} length in [{column.min_length}, {column.max_length}]",
            _expect(
                "ExpectColumnValueLengthsToBeBetween",
                column=name,
                min_value=column.min_length,
                max_value=column.max_length,
            ),
            rule="length between",
            threshold=bounds_text(column.min_length, column.max_length),
        )
    if column.pattern is not None:
        pattern = _regex(builder, f"{column.field}.logicalTypeOptions.pattern", column.pattern)
        builder.add(
            f"{name}.pattern",
            "pattern",
            name,
            f"{name} matches {pattern}",
            _expect("ExpectColumnValuesToMatchRegex", column=name, regex=pattern),
            rule="matches pattern",
            threshold=pattern,
        )


def _mostly(builder: _Builder, rule: QualityRule) -> float | None:
    """GX's ``mostly`` for a count-of-bad-values rule, or an error when not exact.

    ``mustBe: 0`` is "no bad value" (mostly None). ``mustBeLessOrEqualTo: p`` with
    ``unit: percent`` is "at most p% bad" = "at least (100-p)% good", which is exactly
    what ``mostly`` means; row-count thresholds have no exact GX form.
    """
    if rule.operator == "mustBe" and rule.value == 0:
        return None
    if (
        rule.operator == "mustBeLessOrEqualTo"
        and rule.unit == "percent"
        and isinstance(rule.value, int | float)
        and 0 <= rule.value <= 100
    ):
        return round(1 - rule.value / 100, 12)
    raise builder.error(
        rule.field,
        f"{rule.metric} with {rule.operator}: {rule.value!r}"
        f"{' ' + rule.unit if rule.unit else ''} cannot be expressed exactly in GX; "
        "use mustBe: 0, or mustBeLessOrEqualTo with unit: percent",
    )


def _library_rule(builder: _Builder, rule: QualityRule) -> None:
    base = f"{rule.column or 'table'}.{rule.name or rule.metric}"
    description = rule.description or f"{rule.metric} {rule.operator} {rule.value!r}"
    column = rule.column
    # Every expectation of one rule is read as that rule, with the rule's threshold.
    add = functools.partial(
        builder.add,
        rule=LIBRARY_RULES.get(rule.metric or "", str(rule.metric)),
        threshold=_threshold(rule),
    )
    known = {c.name for c in builder.contract.columns}
    if rule.metric == "duplicateValues" and column is None:
        properties = rule.arguments.get("properties")
        if not isinstance(properties, list) or not properties:
            raise builder.error(
                f"{rule.field}.arguments.properties",
                "a table-level duplicateValues rule needs arguments.properties: [columns]",
            )
        for name in properties:
            if name not in known:
                raise builder.error(
                    f"{rule.field}.arguments.properties", f"unknown column {name!r}"
                )
        if rule.operator != "mustBe" or rule.value != 0:
            raise builder.error(
                rule.field, "duplicateValues can only be checked as mustBe: 0 in GX"
            )
        add(
            base,
            "library",
            None,
            description,
            _expect("ExpectCompoundColumnsToBeUnique", column_list=list(properties)),
        )
        return
    if column is None:
        raise builder.error(
            f"{rule.field}.metric",
            f"library metric {rule.metric!r} needs a column; put it under the column's quality",
        )
    if rule.metric == "nullValues":
        mostly = _mostly(builder, rule)
        add(
            base,
            "library",
            column,
            description,
            _expect("ExpectColumnValuesToNotBeNull", column=column, mostly=mostly or 1.0),
        )
    elif rule.metric == "duplicateValues":
        if rule.operator != "mustBe" or rule.value != 0:
            raise builder.error(
                rule.field, "duplicateValues can only be checked as mustBe: 0 in GX"
            )
        add(
            base,
            "library",
            column,
            description,
            _expect("ExpectColumnValuesToBeUnique", column=column),
        )
    elif rule.metric == "missingValues":
        missing = rule.arguments.get("missingValues", [None])
        if not isinstance(missing, list) or not missing:
            raise builder.error(
                f"{rule.field}.arguments.missingValues", "missingValues must be a list"
            )
        if rule.operator != "mustBe" or rule.value != 0:
            raise builder.error(rule.field, "missingValues can only be checked as mustBe: 0 in GX")
        if None in missing:
            add(
                f"{base}.null",
                "library",
                column,
                description,
                _expect("ExpectColumnValuesToNotBeNull", column=column),
            )
        values = [value for value in missing if value is not None]
        if values:
            add(
                f"{base}.values",
                "library",
                column,
                description,
                _expect("ExpectColumnValuesToNotBeInSet", column=column, value_set=values),
            )
    elif rule.metric == "invalidValues":
        valid, pattern = rule.arguments.get("validValues"), rule.arguments.get("pattern")
        if valid is None and pattern is None:
            raise builder.error(
                f"{rule.field}.arguments", "invalidValues needs validValues or pattern"
            )
        if (
            valid is not None
            and pattern is not None
            and not (rule.operator == "mustBe" and rule.value == 0)
        ):
            raise builder.error(
                rule.field, "validValues with pattern can only be checked as mustBe: 0"
            )
        mostly = _mostly(builder, rule) or 1.0
        if valid is not None:
            if not isinstance(valid, list) or not valid:
                raise builder.error(
                    f"{rule.field}.arguments.validValues", "validValues must be a non-empty list"
                )
            add(
                f"{base}.valid_values",
                "library",
                column,
                description,
                _expect(
                    "ExpectColumnValuesToBeInSet", column=column, value_set=valid, mostly=mostly
                ),
            )
        if pattern is not None:
            if not isinstance(pattern, str):
                raise builder.error(f"{rule.field}.arguments.pattern", "pattern must be a string")
            _regex(builder, f"{rule.field}.arguments.pattern", pattern)
            add(
                f"{base}.pattern",
                "library",
                column,
                description,
                _expect(
                    "ExpectColumnValuesToMatchRegex", column=column, regex=pattern, mostly=mostly
                ),
            )
    else:
        raise builder.error(
            f"{rule.field}.metric",
            f"library metric {rule.metric!r} cannot be expressed in GX; plumbline maps "
            "nullValues, missingValues, invalidValues, duplicateValues and rowCount",
        )


def _sql_rule(builder: _Builder, rule: QualityRule) -> None:
    text = rule.query.replace(TABLE_PLACEHOLDER, _TABLE_TOKEN)
    if COLUMN_PLACEHOLDER in text:
        if rule.column is None:
            raise builder.error(
                f"{rule.field}.query", "${column} is only defined in a column's rule"
            )
        text = text.replace(COLUMN_PLACEHOLDER, _COLUMN_TOKEN)
    try:
        statements = sqlglot.parse(text)
    except sqlglot.errors.ParseError as exc:
        raise builder.error(f"{rule.field}.query", f"cannot parse the query: {exc}") from exc
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise builder.error(f"{rule.field}.query", "the query must be one SELECT statement")
    query = statements[0]
    if isinstance(query, exp.Select) and len(query.expressions) != 1:
        raise builder.error(f"{rule.field}.query", "the query must return exactly one value")
    if not any(table.name == _TABLE_TOKEN for table in query.find_all(exp.Table)):
        raise builder.error(
            f"{rule.field}.query", "the query must read the contract's table as ${table}"
        )
    value = rule.value
    numbers = value if isinstance(value, list) else [value]
    if rule.operator not in ("mustBe", "mustNotBe") and not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in numbers
    ):
        raise builder.error(rule.field, f"{rule.operator} needs a number")
    if rule.column is not None:
        column = rule.column

        def rename(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and node.name == _COLUMN_TOKEN:
                return exp.column(column, quoted=True)
            return node

        query = query.transform(rename)
    name = builder._unique_name(f"{rule.column or 'table'}.{rule.name or 'sql'}")
    description = rule.description or f"({rule.query}) {_SQL_OPERATORS[rule.operator]} {value!r}"
    builder.sql_checks.append(SqlCheck(name, query, rule.operator, value))
    builder.infos.append(
        ExpectationInfo(
            name,
            "sql",
            rule.column,
            description,
            rule=f"sql: {rule.name}" if rule.name else "sql query",
            threshold=_threshold(rule),
            expectation_type="sql",
        )
    )


def _quality_rule(builder: _Builder, rule: QualityRule) -> None:
    if rule.type == "sql":
        _sql_rule(builder, rule)
    else:
        _library_rule(builder, rule)


def compile_contract(contract: Contract) -> CompiledContract:
    """Compile ``contract`` into an expectation suite; pure and deterministic."""
    builder = _Builder(contract)
    if contract.row_count_min is not None or contract.row_count_max is not None:
        builder.add(
            "table.row_count",
            "row_count",
            None,
            f"row count in [{contract.row_count_min}, {contract.row_count_max}]",
            _expect(
                "ExpectTableRowCountToBeBetween",
                min_value=contract.row_count_min,
                max_value=contract.row_count_max,
            ),
            rule="row count",
            threshold=bounds_text(contract.row_count_min, contract.row_count_max),
        )
    if contract.primary_key:
        key = list(contract.primary_key)
        expectation = (
            _expect("ExpectColumnValuesToBeUnique", column=key[0])
            if len(key) == 1
            else _expect("ExpectCompoundColumnsToBeUnique", column_list=key)
        )
        builder.add(
            "table.primary_key",
            "primary_key",
            key[0] if len(key) == 1 else None,
            f"primary key ({', '.join(key)}) is unique",
            expectation,
            rule="primary key unique",
            threshold=", ".join(key),
        )
    for column in contract.columns:
        _column_expectations(builder, column)
    for rule in contract.quality:
        _quality_rule(builder, rule)
    for column in contract.columns:
        for rule in column.quality:
            _quality_rule(builder, rule)
    return CompiledContract(
        contract=contract,
        expectations=tuple(builder.infos),
        specs=tuple(builder.specs),
        sql_checks=tuple(builder.sql_checks),
    )
