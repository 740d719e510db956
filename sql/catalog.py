"""Legacy object names -> lake tables, and the lake schema used for type annotation.

Names are compared the way each source dialect compares them: an unquoted identifier
folds (upper in Snowflake, Oracle and Teradata, case-insensitive elsewhere) and a quoted
one keeps its case only in dialects where quoting makes a name case-sensitive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from sqlglot import exp

from sql.diagnostics import Diagnostic, TranslationError

DEFAULT_CATALOG_PATH = Path(__file__).with_name("catalog.yaml")

# Dialects where a quoted identifier is compared exactly and an unquoted one folds to upper.
QUOTED_IS_CASE_SENSITIVE = frozenset({"snowflake", "oracle"})

NamePart = str | exp.Identifier


class CatalogError(Exception):
    """The catalog file itself is malformed."""


def _fold(part: NamePart, dialect: str) -> str:
    if isinstance(part, exp.Identifier):
        if part.quoted and dialect in QUOTED_IS_CASE_SENSITIVE:
            return part.name
        return part.name.upper() if dialect in QUOTED_IS_CASE_SENSITIVE else part.name.lower()
    return part.upper() if dialect in QUOTED_IS_CASE_SENSITIVE else part.lower()


@dataclass(frozen=True)
class Catalog:
    # lake table "zone.table" -> {column: ANSI type}
    tables: Mapping[str, Mapping[str, str]]
    # dialect -> {folded legacy name parts: lake table}
    legacy: Mapping[str, Mapping[tuple[str, ...], str]] = field(default_factory=dict)

    def resolve(
        self, name_parts: Sequence[NamePart], dialect: str, file: str, line: int, col: int
    ) -> str:
        """The lake table ("zone.table") a legacy name reads, or a NAME-UNKNOWN error."""
        key = tuple(_fold(part, dialect) for part in name_parts)
        found = self.legacy.get(dialect, {}).get(key)
        if found is None:
            shown = ".".join(p.name if isinstance(p, exp.Identifier) else p for p in name_parts)
            message = (
                f"table {shown!r} is not in the catalog for dialect {dialect}; "
                "add it to sql/catalog.yaml"
            )
            raise TranslationError([Diagnostic("error", "NAME-UNKNOWN", message, file, line, col)])
        return found

    def schema(self) -> dict[str, dict[str, dict[str, str]]]:
        """Nested {zone: {table: {column: type}}}, usable as a sqlglot MappingSchema."""
        nested: dict[str, dict[str, dict[str, str]]] = {}
        for qualified, columns in self.tables.items():
            zone, table = qualified.split(".")
            nested.setdefault(zone, {})[table] = dict(columns)
        return nested


def load_catalog(path: Path = DEFAULT_CATALOG_PATH) -> Catalog:
    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict) or "tables" not in data:
        raise CatalogError(f"{path}: expected a mapping with 'tables' and 'legacy'")
    tables = {
        str(name): {str(c): str(t) for c, t in cols.items()}
        for name, cols in data["tables"].items()
    }
    legacy: dict[str, dict[tuple[str, ...], str]] = {}
    for dialect, names in (data.get("legacy") or {}).items():
        folded: dict[tuple[str, ...], str] = {}
        for legacy_name, lake_table in names.items():
            if lake_table not in tables:
                raise CatalogError(
                    f"{path}: {dialect} name {legacy_name!r} maps to unknown {lake_table!r}"
                )
            folded[tuple(_fold(p, dialect) for p in str(legacy_name).split("."))] = lake_table
        legacy[str(dialect)] = folded
    return Catalog(tables=tables, legacy=legacy)
