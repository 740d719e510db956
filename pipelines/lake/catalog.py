"""The catalog and the lake: a catalog read from Parquet schemas, and a catalog checked
against them.

Only Parquet footers are read. Arrow types map to ANSI types exactly (a list is an
``ARRAY``, a struct a ``ROW``); a type with no exact ANSI form (maps, 8-bit and unsigned
integers, ...) is opaque, as in a catalog imported from DDL. Parquet keeps no string length, so a catalog's ``VARCHAR(n)``
or ``CHAR(n)`` matches any Arrow string; everything else must match exactly.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from sqlglot import exp
from sqlglot.errors import ParseError

from pipelines.lake.store import Lake, data_files
from sql.ansi import generate, parse_type


class LakeCatalogError(RuntimeError):
    """A lake folder cannot be described as one table (no Parquet files, or files whose
    schemas disagree)."""


# Fractional-second digits of each Arrow time unit.
UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _with_precision(base: str, digits: int, ansi_default: int) -> str:
    return base if digits == ansi_default else f"{base}({digits})"


def ansi_type(arrow: pa.DataType) -> str | None:
    """The exact ANSI type of an Arrow type, or None when there is none."""
    if pa.types.is_dictionary(arrow):
        return ansi_type(arrow.value_type)  # an encoding, not a type
    if pa.types.is_boolean(arrow):
        return "BOOLEAN"
    if pa.types.is_int16(arrow):
        return "SMALLINT"
    if pa.types.is_int32(arrow):
        return "INTEGER"
    if pa.types.is_int64(arrow):
        return "BIGINT"
    if pa.types.is_decimal(arrow):
        # Engines hold at most 38 digits (see sql/catalog_import.py).
        return f"DECIMAL({arrow.precision},{arrow.scale})" if arrow.precision <= 38 else None
    if pa.types.is_float32(arrow):
        return "REAL"
    if pa.types.is_float64(arrow):
        return "DOUBLE PRECISION"
    if (
        pa.types.is_string(arrow)
        or pa.types.is_large_string(arrow)
        or pa.types.is_string_view(arrow)
    ):
        return "VARCHAR"
    if pa.types.is_fixed_size_binary(arrow):
        return f"BINARY({arrow.byte_width})"
    if (
        pa.types.is_binary(arrow)
        or pa.types.is_large_binary(arrow)
        or pa.types.is_binary_view(arrow)
    ):
        return "VARBINARY"
    if pa.types.is_date(arrow):
        return "DATE"
    if pa.types.is_timestamp(arrow):
        shown = _with_precision("TIMESTAMP", UNIT_DIGITS[arrow.unit], 6)
        return f"{shown} WITH TIME ZONE" if arrow.tz else shown
    if pa.types.is_time(arrow):
        return _with_precision("TIME", UNIT_DIGITS[arrow.unit], 0)
    if pa.types.is_list(arrow) or pa.types.is_large_list(arrow):
        element = ansi_type(arrow.value_type)
        return None if element is None else f"{element} ARRAY"
    if pa.types.is_struct(arrow):
        return _row_type(arrow)
    return None


def _row_type(arrow: pa.StructType) -> str | None:
    fields, names = [], set()
    for position in range(arrow.num_fields):
        member = arrow.field(position)
        kind = ansi_type(member.type)
        if kind is None or not member.name or member.name in names:
            return None
        names.add(member.name)
        quoted = member.name.replace('"', '""')
        fields.append(f'"{quoted}" {kind}')
    return f"ROW({', '.join(fields)})" if fields else None


@dataclass(frozen=True)
class LakeImport:
    tables: dict[str, dict[str, str]]  # "zone.table" -> {column: ANSI type or declared type}
    opaque: dict[str, dict[str, str]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # one line per opaque column


def lake_tables(root: Path) -> dict[str, Path]:
    """Every table under a lake root as ``{"zone.table": folder}``: a plumbline lake's
    published tables (``<zone>/<table>`` links to version folders), and plain
    ``<zone>/<table>/`` folders of Parquet files."""
    found: dict[str, Path] = {}
    for zone in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for folder in sorted(zone.iterdir()):
            if folder.is_dir() and not folder.is_symlink() and not folder.name.startswith("."):
                found[f"{zone.name}.{folder.name}"] = folder
    found.update(Lake(root).published())
    return dict(sorted(found.items()))


def table_schema(folder: Path) -> pa.Schema:
    """The one Arrow schema of every Parquet file under ``folder``."""
    files = data_files(folder) if folder.is_dir() else [folder]
    if not files:
        raise LakeCatalogError(f"{folder}: no Parquet files")
    schema = pq.read_schema(files[0]).remove_metadata()
    for other in files[1:]:
        if not pq.read_schema(other).remove_metadata().equals(schema):
            raise LakeCatalogError(
                f"{other}: its schema differs from {files[0].name}'s; a table's files must agree"
            )
    names = [f.name for f in schema]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise LakeCatalogError(f"{folder}: column {', '.join(repeated)} appears more than once")
    return schema


def published_columns(lake: Lake, table: str) -> dict[str, str | None] | None:
    """The columns of the lake table ``table`` ("zone.table") as published now, with their
    ANSI types (None for a type with no ANSI form); None when it is not published."""
    zone, name = table.split(".", 1)
    current = lake.current(zone, name)
    if current is None:
        return None
    return {f.name: ansi_type(f.type) for f in table_schema(current.path)}


def import_lake(root: Path) -> LakeImport:
    """A catalog's tables from the Parquet footers of every table under ``root``."""
    tables: dict[str, dict[str, str]] = {}
    opaque: dict[str, dict[str, str]] = {}
    warnings: list[str] = []
    for name, folder in lake_tables(root).items():
        if not data_files(folder):
            continue  # a folder with no Parquet files is not a table (e.g. a zone's notes)
        tables[name], table_opaque, table_warnings = schema_columns(
            name, table_schema(folder), str(folder)
        )
        if table_opaque:
            opaque[name] = table_opaque
        warnings.extend(table_warnings)
    return LakeImport(tables=tables, opaque=opaque, warnings=tuple(warnings))


def schema_columns(
    table: str, schema: pa.Schema, where: str
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """One table's Arrow schema as a catalog holds it: (column -> ANSI type, or the Arrow
    type where there is no exact ANSI one; those opaque columns; one warning per opaque
    column, located at ``where``)."""
    columns: dict[str, str] = {}
    opaque: dict[str, str] = {}
    warnings = []
    for column in schema:
        ansi = ansi_type(column.type)
        if ansi is None:
            declared = str(column.type)
            opaque[column.name] = columns[column.name] = declared
            warnings.append(
                f"{where}: warning[CATALOG-OPAQUE]: column {table}.{column.name} has type "
                f"{declared} with no exact ANSI form; expressions over it will be refused"
            )
        else:
            columns[column.name] = ansi
    return columns, opaque, warnings


@dataclass(frozen=True)
class _Type:
    base: str
    params: tuple[int, ...]
    zone: str  # "", " WITH TIME ZONE"


_TYPE_TEXT = re.compile(
    r"(?P<base>[A-Z][A-Z0-9_ ]*?)\s*(?:\((?P<params>[0-9 ,]*)\))?\s*"
    r"(?P<zone>(?:WITH|WITHOUT)\s+(?:LOCAL\s+)?TIME\s+ZONE)?"
)
# ANSI spellings of one type (FLOAT is double precision, as sql/ansi.py renders it).
_SYNONYMS = {
    "BINARY VARYING": "VARBINARY",
    "CHAR VARYING": "VARCHAR",
    "CHARACTER": "CHAR",
    "CHARACTER VARYING": "VARCHAR",
    "DEC": "DECIMAL",
    "DOUBLE": "DOUBLE PRECISION",
    "FLOAT": "DOUBLE PRECISION",
    "INT": "INTEGER",
    "NUMERIC": "DECIMAL",
    "TEXT": "VARCHAR",
}
_STRINGS = {"CHAR", "CLOB", "VARCHAR"}
_BINARIES = {"BINARY", "BLOB", "VARBINARY"}
_DEFAULT_DIGITS = {"TIME": 0, "TIMESTAMP": 6}


def _parse_type(text: str) -> _Type | None:
    match = _TYPE_TEXT.fullmatch(" ".join(text.upper().split()))
    if match is None:
        return None
    base = " ".join(match["base"].split())
    params = tuple(int(p) for p in (match["params"] or "").replace(" ", "").split(",") if p)
    zone = match["zone"] or ""
    zone = " WITH TIME ZONE" if zone.startswith("WITH ") and "LOCAL" not in zone else zone
    return _Type(_SYNONYMS.get(base, base), params, "" if zone.startswith("WITHOUT") else zone)


_NESTED = re.compile(r"\bARRAY\b|\bROW\s*\(", re.IGNORECASE)


def types_match(catalog: str, lake: str) -> bool:
    """Whether a catalog column of type ``catalog`` reads a lake column of ANSI type
    ``lake`` exactly (arrays and rows: element by element, field by field, by name)."""
    if _NESTED.search(catalog) or _NESTED.search(lake):
        try:
            return _nested_match(parse_type(catalog), parse_type(lake))
        except ParseError:
            return False
    declared, stored = _parse_type(catalog), _parse_type(lake)
    if declared is None or stored is None:
        return False
    if declared.base in _STRINGS:
        return stored.base == "VARCHAR"  # Parquet strings carry no length
    if declared.base in _BINARIES:
        return stored.base in _BINARIES
    if declared.base in _DEFAULT_DIGITS:
        # The lake may keep more fractional digits than declared, not fewer.
        default = _DEFAULT_DIGITS[declared.base]
        wanted = declared.params[0] if declared.params else default
        kept = stored.params[0] if stored.params else _DEFAULT_DIGITS.get(stored.base, -1)
        return declared.base == stored.base and declared.zone == stored.zone and kept >= wanted
    return declared == stored


def _nested_match(declared: exp.DataType, stored: exp.DataType) -> bool:
    if declared.is_type(exp.DType.ARRAY) or stored.is_type(exp.DType.ARRAY):
        return (
            declared.is_type(exp.DType.ARRAY)
            and stored.is_type(exp.DType.ARRAY)
            and _nested_match(declared.expressions[0], stored.expressions[0])
        )
    if declared.is_type(exp.DType.STRUCT) or stored.is_type(exp.DType.STRUCT):
        if not (declared.is_type(exp.DType.STRUCT) and stored.is_type(exp.DType.STRUCT)):
            return False
        if len(declared.expressions) != len(stored.expressions):
            return False
        return all(
            a.name == b.name and _nested_match(a.args["kind"], b.args["kind"])
            for a, b in zip(declared.expressions, stored.expressions, strict=True)
        )
    return types_match(generate(declared), generate(stored))


def schema_differences(
    expected: Mapping[str, str],
    lake_folder: Path,
    *,
    opaque: Collection[str] = (),
    catalog_source: str = "the catalog",
) -> list[str]:
    """How the columns of a lake table differ from what a catalog says of them (names,
    order, types), one line each; empty when they agree. ``opaque`` columns are compared by
    name and position only: they have no ANSI type to compare."""
    schema = table_schema(lake_folder)
    stored = [(f.name, ansi_type(f.type), str(f.type)) for f in schema]
    declared = list(expected.items())
    in_catalog = f"in the catalog ({catalog_source})"
    in_lake = f"in the lake ({lake_folder})"
    differences = []
    for position, ((name, kind), (lake_name, lake_type, arrow)) in enumerate(
        zip(declared, stored, strict=False), start=1
    ):
        same_type = name in opaque or (lake_type is not None and types_match(kind, lake_type))
        if name != lake_name or not same_type:
            shown = lake_type or f"{arrow} (no exact ANSI form)"
            differences.append(
                f"column {position} is {name} {kind} {in_catalog} but {lake_name} {shown} {in_lake}"
            )
    for position, (name, kind) in enumerate(declared[len(stored) :], start=len(stored) + 1):
        differences.append(
            f"column {position} is {name} {kind} {in_catalog} but the lake table has only "
            f"{len(stored)} columns ({lake_folder})"
        )
    for position, (name, kind, arrow) in enumerate(
        stored[len(declared) :], start=len(declared) + 1
    ):
        differences.append(
            f"column {position} is {name} {kind or arrow} {in_lake} but the catalog lists only "
            f"{len(declared)} columns ({catalog_source})"
        )
    return differences


# Integer types by the largest magnitude they hold, and their decimal digits.
_INTEGER_DIGITS = {"SMALLINT": 5, "INTEGER": 10, "BIGINT": 19}
_INTEGER_BOUNDS = {"SMALLINT": 2**15, "INTEGER": 2**31, "BIGINT": 2**63}
_FLOATS = {"REAL", "DOUBLE PRECISION"}


@dataclass(frozen=True)
class Correspondence:
    """How a lake column of type ``lake`` holds the values of a legacy column whose declared
    type is ``legacy`` (ANSI): read through a CAST (``cast``) or as it is, and, where some
    values of the lake type are no values of the legacy one, the condition over the column
    (an expression over ``exp.column(VALUE)``) that finds them in the data."""

    legacy: str
    lake: str
    cast: bool
    offending: exp.Expr | None
    note: str


VALUE = "__value"


def _value() -> exp.Expr:
    return exp.column(VALUE, quoted=True)


def _abs_at_least(limit: int) -> exp.Expr:
    return exp.GTE(this=exp.Abs(this=_value()), expression=exp.Literal.number(limit))


def _decimal_digits(kind: _Type) -> tuple[int, int]:
    """(precision, scale) of a DECIMAL type: DECIMAL is DECIMAL(38,0), DECIMAL(p) DECIMAL(p,0)."""
    if not kind.params:
        return 38, 0
    return kind.params[0], kind.params[1] if len(kind.params) > 1 else 0


def correspondence(legacy: str, lake: str) -> Correspondence | None:
    """How the lake's ``lake`` column reads a legacy ``legacy`` column losslessly, or None
    when it cannot (another kind of value: text for a number, a date for a time...). The
    data decides the rest: ``offending`` finds the values that break it, if any can."""
    declared, stored = _parse_type(legacy), _parse_type(lake)
    if declared is None or stored is None or _NESTED.search(legacy) or _NESTED.search(lake):
        return Correspondence(legacy, lake, False, None, "") if types_match(legacy, lake) else None
    base, have = declared.base, stored.base
    if base in _STRINGS and have == "VARCHAR" and declared.params:
        limit = declared.params[0]
        too_long = exp.GT(this=exp.Length(this=_value()), expression=exp.Literal.number(limit))
        return Correspondence(
            legacy, lake, False, too_long, f"no value is longer than {limit} characters"
        )
    if types_match(legacy, lake) and base != "TIMESTAMP":
        return Correspondence(legacy, lake, False, None, "")
    if base == "DECIMAL":
        precision, scale = _decimal_digits(declared)
        whole = 10 ** (precision - scale)
        if have in _INTEGER_DIGITS:
            fits = _INTEGER_DIGITS[have] <= precision - scale
            return Correspondence(
                legacy,
                lake,
                True,
                None if fits else _abs_at_least(whole),
                f"no value has more than {precision - scale} digits",
            )
        if have == "DECIMAL":
            lake_precision, lake_scale = _decimal_digits(stored)
            widening = lake_scale <= scale and lake_precision - lake_scale <= precision - scale
            extra = exp.NEQ(
                this=_value(),
                expression=exp.Round(this=_value(), decimals=exp.Literal.number(scale)),
            )
            return Correspondence(
                legacy,
                lake,
                True,
                None if widening else exp.or_(_abs_at_least(whole), extra),
                f"no value has more than {precision - scale} digits before the point or {scale} after it",
            )
        if have in _FLOATS:
            exact = exp.TryCast(this=_value(), to=parse_type(legacy).copy())
            lost = exp.or_(
                exp.Is(this=exact.copy(), expression=exp.Null()),
                exp.NEQ(
                    this=exp.Cast(this=exact, to=exp.DataType.build("DOUBLE")),
                    expression=_value(),
                ),
            )
            return Correspondence(
                legacy,
                lake,
                True,
                lost,
                f"every value is a number of at most {precision - scale} digits and {scale} decimals",
            )
        return None
    if base in _INTEGER_DIGITS:
        if have in _INTEGER_DIGITS:
            wider = _INTEGER_BOUNDS[have] > _INTEGER_BOUNDS[base]
            outside = exp.or_(
                exp.GTE(this=_value(), expression=exp.Literal.number(_INTEGER_BOUNDS[base])),
                exp.LT(this=_value(), expression=exp.Literal.number(-_INTEGER_BOUNDS[base])),
            )
            return Correspondence(
                legacy,
                lake,
                True,
                outside if wider else None,
                f"every value is in the range of {legacy}",
            )
        return None
    if base == "TIMESTAMP" and not declared.zone and not stored.zone:
        digits = declared.params[0] if declared.params else 6
        if have == "DATE":
            return Correspondence(legacy, lake, True, None, "a DATE is a midnight")
        if have == "TIMESTAMP":
            kept = stored.params[0] if stored.params else 6
            if kept <= digits:
                return Correspondence(legacy, lake, False, None, "")
            # More fractional digits than the legacy type keeps: each value must have none.
            # Counted in nanoseconds where the legacy type keeps six digits or more (a
            # DATETIME2(7) read from a TIMESTAMP_NS column), else in microseconds.
            nanos = digits >= 6
            unit = 10 ** ((9 if nanos else 6) - min(digits, 9))
            finer = exp.NEQ(
                this=exp.Mod(
                    this=exp.Anonymous(
                        this="epoch_ns" if nanos else "epoch_us", expressions=[_value()]
                    ),
                    expression=exp.Literal.number(unit),
                ),
                expression=exp.Literal.number(0),
            )
            return Correspondence(
                legacy,
                lake,
                False,
                finer,
                "no value has fractional seconds"
                if digits == 0
                else f"no value has more than {digits} fractional digits",
            )
        return None
    if base == "DATE" and have == "TIMESTAMP" and not stored.zone:
        time_of_day = exp.NEQ(
            this=_value(),
            expression=exp.Cast(
                this=exp.Cast(this=_value(), to=exp.DataType.build("DATE")),
                to=exp.DataType.build("TIMESTAMP"),
            ),
        )
        return Correspondence(legacy, lake, True, time_of_day, "every value is a midnight")
    return None
