"""A first ODCS v3 contract for a built table, drafted from its Parquet files.

``draft_contract`` profiles the table inside DuckDB (one aggregate query, a second for the
values of low-cardinality text columns and, unless the first key candidate is unique, a
third for pairs of columns) and writes down what the data showed: types, columns without NULLs, a
primary key, allowed values, observed ranges and the row count. What the data showed is not
what the table promises, so the document says ``status: draft`` and every description asks
for a person; ``plumbline contracts lint`` fails until someone has reviewed it.

Everything drafted holds on the data it was drafted from (the draft validates against it),
and on a rebuild of the same inputs: the range of an approximate number (REAL, DOUBLE) is
drafted at ``APPROXIMATE_DIGITS`` significant digits, rounded outward and one step further,
because such a column may differ in its last bits between two builds of the same rows
(DuckDB's AVG over DOUBLE depends on the order it reads them in); integers, decimals, dates
and timestamps keep their exact bounds. The same data gives the same bytes: no timestamps,
no paths, values sorted.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from sqlglot import exp

from pipelines.contracts.lint import logical_type_of
from pipelines.contracts.model import CLASSIFICATIONS
from pipelines.lake.store import data_files, parquet_source

DRAFT_STATUS = "draft"
# Below 1.0.0: a draft promises nothing yet, and its first reviewed version is 1.0.0.
DRAFT_VERSION = "0.1.0"
DEFAULT_CLASSIFICATION = "internal"

# A text column gets an allowed-values list when it holds at most this many distinct
# values and fewer than half as many as there are rows: a name or a code per row is not an
# enumeration, whatever its count.
MAX_ENUM_VALUES = 20

# Logical types a key may have. Numbers are left out: an amount or a ratio that happens to
# be unique in the data is not an identifier.
KEY_TYPES = frozenset({"integer", "string", "date", "timestamp"})
# Logical types whose observed minimum and maximum become logicalTypeOptions bounds.
RANGED_TYPES = frozenset({"integer", "number", "date", "timestamp"})
# Physical types of approximate numbers, whose bounds are drafted at a precision.
APPROXIMATE_TYPES = frozenset({"REAL", "FLOAT", "FLOAT4", "DOUBLE", "FLOAT8"})
# Significant digits of the column's largest magnitude that an approximate bound keeps
# (rounded outward, then one step further out): a DOUBLE's rounding differences between
# builds are some 1e-16 of it, a step is 1e-5 of it.
APPROXIMATE_DIGITS = 6
# Pairs are looked for among the first this many candidate columns (45 pairs), in one
# query of exact distinct counts: keys come first in the warehouse's tables, and all pairs
# of a wide table would cost a distinct count of the whole table each.
MAX_PAIR_COLUMNS = 10

# The view the table's files are read through.
_VIEW = "drafted"


class DraftError(Exception):
    """A table that cannot be drafted; the message names the table and what is wrong."""


@dataclass(frozen=True)
class ColumnProfile:
    name: str
    physical_type: str  # DuckDB's name for the column's type, as the contracts spell it
    logical_type: str
    nulls: int
    distinct: int  # distinct non-null values
    minimum: Any  # of numbers, dates and timestamps; None otherwise or without values
    maximum: Any
    values: tuple[str, ...] | None = None  # the allowed values of a low-cardinality text column


@dataclass(frozen=True)
class TableProfile:
    table: str
    rows: int
    columns: tuple[ColumnProfile, ...]
    primary_key: tuple[str, ...]  # a unique, non-null column or pair; () when none is


def _unique(rows: int, column: ColumnProfile) -> bool:
    """Unique and non-null over at least two rows (one row makes every column unique)."""
    return rows >= 2 and column.nulls == 0 and column.distinct == rows


def _column(name: str) -> exp.Column:
    return exp.column(name, quoted=True)


def _alias(expression: exp.Expression, name: str) -> exp.Alias:
    return exp.alias_(expression, name, quoted=True)


def _schema(table: str, relation: Any) -> list[tuple[str, str, str]]:
    columns = []
    for name, dtype in zip(relation.columns, relation.types, strict=True):
        physical = str(dtype)
        logical = logical_type_of(physical)
        if logical is None:
            raise DraftError(
                f"warehouse/{table}: column {name!r} is {physical}, a type contracts cannot "
                "check; cast it in the table's SQL to a flat type"
            )
        columns.append((name, physical, logical))
    return columns


def _statistics_query(columns: Sequence[tuple[str, str, str]]) -> exp.Select:
    """One row: the row count, then per column its non-null and distinct counts and, for
    ranged types, its minimum and maximum."""
    selections: list[exp.Expression] = [_alias(exp.Count(this=exp.Star()), "rows")]
    for index, (name, _, logical) in enumerate(columns):
        column = _column(name)
        selections += [
            _alias(exp.Count(this=column), f"{index}.values"),
            _alias(exp.Count(this=exp.Distinct(expressions=[column])), f"{index}.distinct"),
        ]
        if logical in RANGED_TYPES:
            selections += [
                _alias(exp.Min(this=column), f"{index}.minimum"),
                _alias(exp.Max(this=column), f"{index}.maximum"),
            ]
    return exp.select(*selections).from_(_VIEW)


def _values_query(names: Sequence[str]) -> exp.Select:
    return exp.select(
        *(exp.ArrayAgg(this=exp.Distinct(expressions=[_column(name)])) for name in names)
    ).from_(_VIEW)


def _pairs_query(pairs: Sequence[tuple[str, str]]) -> exp.Select:
    return exp.select(
        *(
            exp.Count(
                this=exp.Distinct(
                    expressions=[exp.Tuple(expressions=[_column(first), _column(second)])]
                )
            )
            for first, second in pairs
        )
    ).from_(_VIEW)


def _fetch(connection: Any, query: exp.Select) -> tuple:
    return connection.execute(query.sql(dialect="duckdb")).fetchone()


def _primary_key(connection: Any, rows: int, columns: Sequence[ColumnProfile]) -> tuple[str, ...]:
    """The key that ends leftmost: a unique column, or a unique pair of columns that both
    come before the first unique column.

    Tables list their key columns first. In a small aggregate a count further right is often
    unique by chance (35 rows of (region, ship mode, line count)), and taking any unique
    column before any pair would make it the key.
    """
    if rows < 2:
        return ()
    candidates = [c for c in columns if c.logical_type in KEY_TYPES and c.nulls == 0]
    single = next((c for c in candidates if _unique(rows, c)), None)
    before = candidates[: candidates.index(single)] if single else candidates
    # A constant column cannot make a pair unique, nor can two columns with fewer
    # combinations than rows.
    shortlist = [c for c in before if c.distinct > 1][:MAX_PAIR_COLUMNS]
    position = {c.name: index for index, c in enumerate(shortlist)}
    pairs = sorted(
        (
            (first, second)
            for first, second in itertools.combinations(shortlist, 2)
            if first.distinct * second.distinct >= rows
        ),
        key=lambda pair: (position[pair[1].name], position[pair[0].name]),
    )
    if pairs:
        counts = _fetch(connection, _pairs_query([(a.name, b.name) for a, b in pairs]))
        for (first, second), count in zip(pairs, counts, strict=True):
            if count == rows:
                return (first.name, second.name)
    return (single.name,) if single else ()


def profile_table(table: str, data: Path) -> TableProfile:
    """The profile a draft is written from, computed inside DuckDB over ``data``'s files."""
    import duckdb

    data = Path(data)
    if not data.exists() or (data.is_dir() and not data_files(data)):
        raise DraftError(f"warehouse/{table}: no Parquet files in {data}")
    # Distinct counts over a big table spill to a folder of their own, not to DuckDB's
    # default ./.tmp in whatever folder the command was started from.
    with (
        tempfile.TemporaryDirectory(prefix="plumbline-draft-") as scratch,
        duckdb.connect(config={"temp_directory": scratch}) as connection,
    ):
        relation = connection.read_parquet(parquet_source(data))
        relation.create_view(_VIEW)
        schema = _schema(table, relation)
        statistics = _fetch(connection, _statistics_query(schema))
        fields = [description[0] for description in connection.description]
        found = dict(zip(fields, statistics, strict=True))
        rows = found["rows"]
        columns = [
            ColumnProfile(
                name=name,
                physical_type=physical,
                logical_type=logical,
                nulls=rows - found[f"{index}.values"],
                distinct=found[f"{index}.distinct"],
                minimum=found.get(f"{index}.minimum"),
                maximum=found.get(f"{index}.maximum"),
            )
            for index, (name, physical, logical) in enumerate(schema)
        ]
        enumerated = [
            column.name
            for column in columns
            if column.logical_type == "string"
            and 1 <= column.distinct <= MAX_ENUM_VALUES
            and column.distinct * 2 < rows
        ]
        if enumerated:
            lists = _fetch(connection, _values_query(enumerated))
            values = {
                name: tuple(sorted(v for v in found_values if v is not None))
                for name, found_values in zip(enumerated, lists, strict=True)
            }
            columns = [replace(column, values=values.get(column.name)) for column in columns]
        key = _primary_key(connection, rows, columns)
    return TableProfile(table, rows, tuple(columns), key)


def _number(value: Any) -> int | float | None:
    """A bound as YAML writes it: whole numbers as integers, no NaN or infinity.

    A decimal becomes its nearest float: every validation path compares decimal columns
    as doubles (validate.py), where the two are equal.
    """
    if isinstance(value, decimal.Decimal):
        value = int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value


def _approximate(column: ColumnProfile) -> bool:
    return column.physical_type.upper() in APPROXIMATE_TYPES


def _magnitude(column: ColumnProfile) -> float:
    """The largest finite magnitude among the column's observed bounds (0: none)."""
    return max(
        (abs(v) for v in (column.minimum, column.maximum) if v is not None and math.isfinite(v)),
        default=0.0,
    )


def approximate_bound(value: float, magnitude: float, upper: bool) -> int | float | None:
    """``value`` rounded outward at ``APPROXIMATE_DIGITS`` significant digits of
    ``magnitude``, then one step further out: a bound that still holds when a rebuild
    computes ``value`` with other rounding. A column of zeros keeps 0."""
    if not math.isfinite(value) or magnitude == 0:
        return _number(value)
    exponent = math.floor(math.log10(magnitude)) - (APPROXIMATE_DIGITS - 1)
    steps = decimal.Decimal(value).scaleb(-exponent)
    rounding = decimal.ROUND_CEILING if upper else decimal.ROUND_FLOOR
    outward = steps.to_integral_value(rounding=rounding) + (1 if upper else -1)
    return _number(outward.scaleb(exponent))


def _bound(column: ColumnProfile, value: Any, upper: bool) -> Any:
    if value is None:
        return None
    if column.logical_type in ("integer", "number"):
        if _approximate(column):
            return approximate_bound(float(value), _magnitude(column), upper)
        return _number(value)
    if isinstance(value, dt.datetime):
        if upper and column.physical_type.upper() == "TIMESTAMP_NS":
            # Python's datetimes stop at microseconds, and DuckDB truncates the nanoseconds.
            value += dt.timedelta(microseconds=1)
        # DuckDB hands a zoned timestamp over in the session's time zone, the machine's:
        # in UTC the same data gives the same bytes everywhere.
        return (value.astimezone(dt.UTC) if value.tzinfo else value).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return None


def _description(profile: TableProfile, column: ColumnProfile) -> str:
    nulls = f"{column.nulls} null{'s' if column.nulls != 1 else ''}" if column.nulls else "no nulls"
    seen = f"{column.distinct} distinct value{'s' if column.distinct != 1 else ''}, {nulls}"
    hint = ""
    if (
        column.logical_type in KEY_TYPES
        and _unique(profile.rows, column)
        and column.name not in profile.primary_key
    ):
        hint = " Its values were unique; a key, or unique by chance?"
    if _approximate(column) and _magnitude(column) > 0:
        hint += (
            f" Its range is the observed one ({column.minimum!r} to {column.maximum!r}) at "
            f"{APPROXIMATE_DIGITS} significant digits, "
            f"widened by one more: a {column.physical_type} may differ in its last digits "
            "between builds of the same inputs."
        )
    return (
        "DRAFT, needs a human description of what the column means. Drafted from data "
        f"({seen} in {profile.rows} rows).{hint}"
    )


def _property(profile: TableProfile, column: ColumnProfile, classification: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": column.name,
        "description": _description(profile, column),
        "logicalType": column.logical_type,
        "physicalType": column.physical_type,
        "classification": classification,
    }
    if column.name in profile.primary_key:
        entry["primaryKey"] = True
        if len(profile.primary_key) > 1:
            entry["primaryKeyPosition"] = profile.primary_key.index(column.name) + 1
    elif profile.rows > 0 and column.nulls == 0:
        entry["required"] = True
    if column.values:
        entry["enum"] = [{"value": value} for value in column.values]
    options = {
        key: bound
        for key, bound in (
            ("minimum", _bound(column, column.minimum, upper=False)),
            ("maximum", _bound(column, column.maximum, upper=True)),
        )
        if bound is not None
    }
    if options:
        entry["logicalTypeOptions"] = options
    return entry


def _check_classification(classification: str) -> None:
    if classification not in CLASSIFICATIONS:
        raise DraftError(
            f"unknown classification {classification!r}; plumbline knows "
            f"{', '.join(CLASSIFICATIONS)}"
        )


def contract_document(
    profile: TableProfile,
    *,
    owner: str | None = None,
    classification: str = DEFAULT_CLASSIFICATION,
) -> dict[str, Any]:
    """The ODCS v3 document of a draft, in the key order the hand-written contracts use."""
    _check_classification(classification)
    table = profile.table
    document: dict[str, Any] = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": f"urn:plumbline:contract:{table}",
        "name": table,
        "version": DRAFT_VERSION,
        "status": DRAFT_STATUS,
        "description": {
            "purpose": (
                f"DRAFT, drafted from the data of warehouse/{table} by plumbline contracts "
                "init. Every rule below is what that data showed, not yet what the table "
                "promises. Describe the table and each column, loosen or drop the rules that "
                "held only by chance, classify the columns, then set the status to active."
            )
        },
    }
    if owner:
        document["team"] = {"name": owner}
    document["schema"] = [
        {
            "name": table,
            "logicalType": "object",
            "quality": [
                {
                    "type": "library",
                    "metric": "rowCount",
                    "mustBe": profile.rows,
                    "description": (
                        f"{profile.rows} rows when drafted; loosen it (e.g. to "
                        "mustBeGreaterThan 0) unless the count is fixed."
                    ),
                }
            ],
            "properties": [_property(profile, c, classification) for c in profile.columns],
        }
    ]
    return document


class _Dumper(yaml.SafeDumper):
    """Lists indented under their key, as the hand-written contracts are."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


HEADER = (
    "# DRAFT: drafted from data by `plumbline contracts init`, to be reviewed by a person.\n"
    "# `plumbline contracts lint` fails until the status is no longer draft.\n"
)


def render(document: Mapping[str, Any]) -> str:
    return HEADER + yaml.dump(
        dict(document),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=92,
        default_flow_style=False,
    )


def draft_contract(
    table: str,
    data: Path,
    *,
    owner: str | None = None,
    classification: str = DEFAULT_CLASSIFICATION,
) -> str:
    """The YAML text of a draft ODCS v3 contract for ``table``, whose Parquet files are in
    ``data`` (a published version folder, or one file).

    ``owner`` becomes the team's name; every column gets ``classification`` (``internal``:
    shown, not masked, in validation reports, so review it for restricted data).
    """
    _check_classification(classification)
    return render(
        contract_document(profile_table(table, data), owner=owner, classification=classification)
    )
