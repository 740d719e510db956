"""Translated ANSI SQL on disk: ``<root>/<name>.sql`` plus a ``<name>.json`` manifest.

Pure logic (no Dagster). A source is re-translated only when its bytes or the translator
version changed; the manifest, written last by atomic rename, is the commit marker.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from pipelines.lake.files import write_atomic
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import Catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.lineage import column_lineage
from sql.parallel import ordered_map
from sql.paths import LEGACY_ROOT, repository_relative
from sql.translate import TRANSLATOR_VERSION, ScriptTranslation, Translation, translate_script


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
    source_line: int = 1  # where the statement that defines the table starts
    reused: bool = False

    @property
    def data_version(self) -> str:
        return sha256_text(
            f"{self.source_sha256}:{self.translator_version}:{self.assumptions}:{self.name}"
        )


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


@dataclass(frozen=True)
class TranslatedSource:
    """A legacy file and the tables its translation defines, as known when the code
    location loads (``tables`` is empty when the file is refused)."""

    source: LegacySource
    tables: tuple[Translation, ...]
    diagnostics: tuple[Diagnostic, ...] = ()  # the refusal's errors

    @property
    def names(self) -> tuple[str, ...]:
        """Table names: each defined table's, or the file's stem when it is refused."""
        return tuple(t.name for t in self.tables) if self.tables else (self.source.name,)


def _table_names(script: ScriptTranslation, source: LegacySource) -> ScriptTranslation:
    """A file that defines one table names it after the file (the asset key a reader of the
    tree expects); a script that defines several keeps the names its statements give."""
    if len(script.tables) != 1:
        return script
    return replace(script, tables=(replace(script.tables[0], name=source.name),))


def translate_source(
    source: LegacySource, catalog: Catalog, assumptions: Assumptions | None = None
) -> ScriptTranslation:
    """Every table ``source`` defines; raises ``TranslationError``."""
    script = translate_script(
        source.path.read_text(),
        source.dialect,
        file=str(source.path),
        name=source.name,
        catalog=catalog,
        assumptions=assumptions or load_assumptions(),
    )
    return _table_names(script, source)


def _translated_source(
    source: LegacySource, catalog: Catalog, assumptions: Assumptions
) -> TranslatedSource:
    try:
        script = translate_source(source, catalog, assumptions)
    except TranslationError as exc:
        return TranslatedSource(source, (), exc.diagnostics)
    return TranslatedSource(source, script.tables)


def translate_sources(
    root: Path, catalog: Catalog, assumptions: Assumptions | None = None
) -> list[TranslatedSource]:
    """Every legacy file under ``root`` with the tables it defines, translated on every core
    (in file order); a table name defined by two files is an error naming both."""
    assumptions = assumptions or load_assumptions()
    results = []
    seen: dict[str, Path] = {}
    translate_one = functools.partial(_translated_source, catalog=catalog, assumptions=assumptions)
    for translated in ordered_map(translate_one, legacy_sources(root)):
        source = translated.source
        for name in translated.names:
            if name in seen and seen[name] != source.path:
                raise DuplicateNameError(
                    f"{source.path}: table {name!r} is already defined by {seen[name]}; rename one"
                )
            seen[name] = source.path
        results.append(translated)
    return results


def _cache_key(catalog: Catalog, assumptions: Assumptions) -> str:
    return f"{assumptions.key()},catalog={catalog.digest()[:16]}"


def _reusable(
    store: Path, names: Sequence[str], source_sha: str, assumptions_key: str
) -> list[StoredTranslation] | None:
    stored = []
    for name in names:
        sql_path, manifest_path = store / f"{name}.sql", store / f"{name}.json"
        if not (manifest_path.is_file() and sql_path.is_file()):
            return None
        manifest = _read_manifest(manifest_path)
        if (
            manifest is None
            or manifest.source_sha256 != source_sha
            or manifest.translator_version != TRANSLATOR_VERSION
            or manifest.assumptions != assumptions_key
            or sha256_bytes(sql_path.read_bytes()) != manifest.ansi_sha256
        ):
            return None
        stored.append(StoredTranslation(**{**asdict(manifest), "reused": True}))
    return stored


def translate_to_store(
    source: LegacySource,
    store: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    expected: Sequence[str] | None = None,
) -> list[StoredTranslation]:
    """Translate ``source`` into ``store``, one ``<name>.sql`` + ``<name>.json`` per table it
    defines, unless up-to-date translations are already there (same source bytes,
    translator version, assumptions and catalog).

    Raises ``sql.diagnostics.TranslationError`` when the source is refused, and
    ``StoreError`` when it no longer defines the ``expected`` tables (it changed since the
    code location loaded); the previous stored translations are then left untouched.
    """
    assumptions = assumptions or load_assumptions()
    source_bytes = source.path.read_bytes()
    source_sha = sha256_bytes(source_bytes)
    key = _cache_key(catalog, assumptions)
    if expected is not None:
        reused = _reusable(store, expected, source_sha, key)
        if reused is not None:
            return reused
    script = translate_source(source, catalog, assumptions)
    names = [t.name for t in script.tables]
    if expected is not None and list(expected) != names:
        raise StoreError(
            f"{source.path} now defines {', '.join(names)} instead of {', '.join(expected)}; "
            "reload the code location"
        )
    results = []
    for translation in script.tables:
        ansi_sql = translation.ansi_sql.rstrip() + "\n"
        sql_path = store / f"{translation.name}.sql"
        lineage = column_lineage(translation, catalog)
        results.append(
            StoredTranslation(
                name=translation.name,
                dialect=source.dialect,
                source_path=repository_relative(source.path),
                source_sha256=source_sha,
                translator_version=TRANSLATOR_VERSION,
                assumptions=key,
                ansi_path=str(sql_path),
                ansi_sha256=sha256_text(ansi_sql),
                ansi_sql=ansi_sql,
                rules_applied=list(translation.rules_applied),
                diagnostics=[d.format() for d in translation.diagnostics],
                source_tables=list(translation.source_tables),
                columns=list(translation.columns),
                column_lineage={col: [list(dep) for dep in deps] for col, deps in lineage.items()},
                source_line=translation.line,
            )
        )
    store.mkdir(parents=True, exist_ok=True)
    for stored in results:
        write_atomic(Path(stored.ansi_path), stored.ansi_sql)
        write_atomic(
            store / f"{stored.name}.json", json.dumps(asdict(stored), indent=2, sort_keys=True)
        )
    return results
