"""Translated ANSI SQL on disk: ``<root>/<name>.sql`` plus a ``<name>.json`` manifest.

Pure logic (no Dagster). A source is re-translated only when its bytes or the translator
version changed; the manifest, written last by atomic rename, is the commit marker.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import Catalog
from sql.lineage import column_lineage
from sql.translate import TRANSLATOR_VERSION, translate_file

PROJECT_ROOT = Path(__file__).resolve().parents[1]
LEGACY_ROOT = PROJECT_ROOT / "sql" / "legacy"


class DuplicateNameError(ValueError):
    """Two legacy files would define the same table."""


@dataclass(frozen=True)
class LegacySource:
    name: str
    dialect: str
    path: Path


@dataclass(frozen=True)
class StoredTranslation:
    name: str
    dialect: str
    source_path: str
    source_sha256: str
    translator_version: str
    assumptions: str  # Assumptions.key(): the server settings assumed
    ansi_path: str
    ansi_sha256: str
    ansi_sql: str
    rules_applied: list[str]
    diagnostics: list[str]  # formatted warning/info lines
    source_tables: list[str]
    columns: list[str]
    column_lineage: dict[str, list[list[str]]]  # column -> [[lake table, column], ...]
    reused: bool = False

    @property
    def data_version(self) -> str:
        return sha256_text(f"{self.source_sha256}:{self.translator_version}:{self.assumptions}")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode())


def legacy_sources(root: Path = LEGACY_ROOT) -> list[LegacySource]:
    """Every ``<dialect>/<name>.sql`` under ``root``; a name may be defined only once."""
    seen: dict[str, Path] = {}
    sources = []
    for path in sorted(root.glob("*/*.sql")):
        name = path.stem.lower()
        if name in seen:
            raise DuplicateNameError(
                f"{path}: table {name!r} is already defined by {seen[name]}; rename one file"
            )
        seen[name] = path
        sources.append(LegacySource(name, path.parent.name, path))
    return sources


def _read_manifest(path: Path) -> StoredTranslation | None:
    """The manifest at ``path``, or None when it is from an older layout (re-translate)."""
    try:
        return StoredTranslation(**json.loads(path.read_text()))
    except (TypeError, json.JSONDecodeError):
        return None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


class StoreError(RuntimeError):
    """A stored translation is missing or does not match its manifest."""


def read_stored_manifest(store: Path, name: str) -> StoredTranslation:
    manifest_path = store / f"{name}.json"
    if not manifest_path.is_file():
        raise StoreError(f"{manifest_path}: no stored translation; materialize ansi/{name} first")
    return StoredTranslation(**json.loads(manifest_path.read_text()))


def read_stored_sql(store: Path, name: str) -> str:
    """The ANSI SQL that ``ansi/<name>`` stored, verified against the sha in its manifest."""
    sql_path, manifest_path = store / f"{name}.sql", store / f"{name}.json"
    if not (sql_path.is_file() and manifest_path.is_file()):
        raise StoreError(f"{sql_path}: no stored translation; materialize ansi/{name} first")
    manifest = json.loads(manifest_path.read_text())
    text = sql_path.read_text()
    if sha256_text(text) != manifest["ansi_sha256"]:
        raise StoreError(
            f"{sql_path}: content does not match ansi_sha256 in {manifest_path.name}; "
            f"re-materialize ansi/{name}"
        )
    return text


def translate_to_store(
    source: LegacySource,
    store: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
) -> StoredTranslation:
    """Translate ``source`` into ``store`` unless an up-to-date translation is already there
    (same source bytes, translator version and assumptions).

    Raises ``sql.diagnostics.TranslationError`` when the source is refused; the previous
    stored translation, if any, is left untouched.
    """
    assumptions = assumptions or load_assumptions()
    source_bytes = source.path.read_bytes()
    source_sha = sha256_bytes(source_bytes)
    sql_path, manifest_path = store / f"{source.name}.sql", store / f"{source.name}.json"
    if manifest_path.is_file() and sql_path.is_file():
        stored = _read_manifest(manifest_path)
        if (
            stored is not None
            and stored.source_sha256 == source_sha
            and stored.translator_version == TRANSLATOR_VERSION
            and stored.assumptions == assumptions.key()
            and sha256_bytes(sql_path.read_bytes()) == stored.ansi_sha256
        ):
            return StoredTranslation(**{**asdict(stored), "reused": True})

    translation = translate_file(
        source.path, source.dialect, catalog=catalog, assumptions=assumptions
    )
    lineage = column_lineage(translation, catalog)
    ansi_sql = translation.ansi_sql.rstrip() + "\n"
    stored = StoredTranslation(
        name=source.name,
        dialect=source.dialect,
        source_path=str(source.path.relative_to(PROJECT_ROOT))
        if source.path.is_relative_to(PROJECT_ROOT)
        else str(source.path),
        source_sha256=source_sha,
        translator_version=TRANSLATOR_VERSION,
        assumptions=assumptions.key(),
        ansi_path=str(sql_path),
        ansi_sha256=sha256_text(ansi_sql),
        ansi_sql=ansi_sql,
        rules_applied=list(translation.rules_applied),
        diagnostics=[d.format() for d in translation.diagnostics],
        source_tables=list(translation.source_tables),
        columns=list(translation.columns),
        column_lineage={col: [list(dep) for dep in deps] for col, deps in lineage.items()},
    )
    store.mkdir(parents=True, exist_ok=True)
    _write_atomic(sql_path, ansi_sql)
    _write_atomic(manifest_path, json.dumps(asdict(stored), indent=2, sort_keys=True))
    return stored
