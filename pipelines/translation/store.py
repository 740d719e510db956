"""Translated ANSI SQL on disk: ``<root>/<name>.sql`` plus a ``<name>.json`` manifest; and
what each legacy file defines and reads, for the code location's graph.

Pure logic (no Dagster). A source is re-translated only when its bytes or the translator
version changed (or, for a Jinja template, what it renders to); the manifest, written last by
atomic rename, is the commit marker. A template's manifest records the variables it read and
the sha256 of the SQL it rendered to (``sql.templating``). The
graph needs no translation: ``legacy_dependencies`` parses each file (once per content,
kept in a JSON cache) to find the tables it defines and reads.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from pipelines.lake.files import write_atomic
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import Catalog
from sql.dependencies import TableDependencies, script_dependencies
from sql.diagnostics import Diagnostic, TranslationError, source_text
from sql.lineage import column_lineage
from sql.parallel import ordered_map
from sql.parameters import QueryParameter
from sql.paths import LEGACY_ROOT, repository_relative
from sql.templating import (
    RenderedTemplate,
    TemplateValue,
    is_template,
    render_template,
    translate_rendered,
    translate_source_text,
)
from sql.translate import TRANSLATOR_VERSION, ScriptTranslation, Translation


class DuplicateNameError(ValueError):
    """Two legacy files would define the same table."""


@dataclass(frozen=True)
class LegacySource:
    name: str
    dialect: str
    path: Path


@dataclass(frozen=True)
class StoredTranslation:
    """One stored table. In memory ``ansi_path`` is where its SQL lies and ``source_path``
    names its legacy file (relative to the repository when it lies there); the manifest on
    disk holds both relative to the store wherever the file moves with the home
    (``_manifest_record``), so that a copied home (`cp -a`) reads its own files."""

    name: str
    dialect: str
    source_path: str
    source_sha256: str
    translator_version: str
    # Assumptions.key() and the catalog digest: every setting a re-translation could
    # depend on, part of the cache key and the data version.
    assumptions: str
    ansi_path: str
    ansi_sha256: str
    ansi_sql: str
    rules_applied: list[str]
    diagnostics: list[str]  # formatted warning/info lines
    source_tables: list[str]
    columns: list[str]
    column_lineage: dict[str, list[list[str]]]  # column -> [[lake table, column], ...]
    source_line: int = 1  # where the statement that defines the table starts
    # The server settings its translation relied on ("tsql_datefirst=7,tsql_schema=dbo",
    # only of its dialect); None in a manifest written before they were recorded.
    assumed: str | None = None
    # The functions of the portable set its ANSI calls (sql/portable.py): what it asks of
    # an engine beyond SQL:2016.
    portable_functions: list[str] = field(default_factory=list)
    # The rules whose run-time guards its ANSI holds: it stops on a row whose exact result
    # is not determined (docs/architecture.md).
    guards: list[str] = field(default_factory=list)
    # A Jinja template's: the variables it read and the sha256 of the SQL it rendered to
    # (source_sha256 is the template's); None for plain SQL.
    template_vars: dict[str, TemplateValue] | None = None
    rendered_sha256: str | None = None
    # BigQuery query parameters' values it was translated with ("DATE:2024-01-01" by name,
    # sql/parameters.py); None when none were given.
    query_parameters: dict[str, str] | None = None
    reused: bool = False

    @property
    def assumed_settings(self) -> str:
        """What the audit records as assumed: the relied-on settings, or for a manifest
        written before they were recorded, the whole key it recorded then (so that a bundle
        sealed from it still verifies against it)."""
        return self.assumptions if self.assumed is None else self.assumed

    @property
    def data_version(self) -> str:
        rendered = f":{self.rendered_sha256}" if self.rendered_sha256 is not None else ""
        return sha256_text(
            f"{self.source_sha256}:{self.translator_version}:{self.assumptions}:{self.name}"
            + rendered
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


def _manifest_record(stored: StoredTranslation, store: Path) -> dict[str, Any]:
    """``stored`` as its manifest in ``store`` holds it: the SQL file by its name (it lies
    beside the manifest), and a legacy file inside the store's home relative to the store
    (``../legacy/...``); a legacy file in the repository or elsewhere is named as it is."""
    record = asdict(stored)
    record["ansi_path"] = Path(stored.ansi_path).name
    source = Path(stored.source_path)
    home = store.resolve().parent
    if source.is_absolute() and source.resolve().is_relative_to(home):
        record["source_path"] = Path(os.path.relpath(source.resolve(), store.resolve())).as_posix()
    return record


def _from_manifest(record: dict[str, Any], store: Path) -> StoredTranslation:
    """The manifest ``record`` read from ``store``, its paths resolved against the store
    (``_manifest_record`` wrote them); raises TypeError when it is of another layout."""
    stored = StoredTranslation(**record)
    source = stored.source_path
    if source.startswith("../"):  # a repository-relative path never starts so
        source = os.path.normpath(store.absolute() / source)
    # By name: a manifest of an older layout holds the absolute path it was written at.
    ansi_path = store / Path(stored.ansi_path).name
    return replace(stored, ansi_path=str(ansi_path), source_path=source)


def _read_manifest(path: Path) -> StoredTranslation | None:
    """The manifest at ``path``, or None when it is from an older layout (re-translate)."""
    try:
        return _from_manifest(json.loads(path.read_text()), path.parent)
    except (TypeError, json.JSONDecodeError):
        return None


class StoreError(RuntimeError):
    """A stored translation is missing or does not match its manifest."""


def read_stored_manifest(store: Path, name: str) -> StoredTranslation:
    manifest_path = store / f"{name}.json"
    if not manifest_path.is_file():
        raise StoreError(f"{manifest_path}: no stored translation; materialize ansi/{name} first")
    try:
        record = json.loads(manifest_path.read_bytes())
        return _from_manifest(record, store)
    except (ValueError, TypeError, AttributeError) as exc:
        # Truncated, appended to or garbage: JSONDecodeError and UnicodeDecodeError are
        # ValueErrors; another shape fails in the dataclass (TypeError) or on a field.
        raise StoreError(
            f"{manifest_path}: not a stored translation's manifest ({type(exc).__name__}); "
            f"materialize ansi/{name} again"
        ) from None


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
    """A legacy file and the tables its translation defines (``tables`` is empty when the
    file is refused): a whole tree translated, for ``plumbline contracts lint``."""

    source: LegacySource
    tables: tuple[Translation, ...]
    diagnostics: tuple[Diagnostic, ...] = ()  # the refusal's errors

    @property
    def names(self) -> tuple[str, ...]:
        """Table names: each defined table's, or the file's stem when it is refused."""
        return tuple(t.name for t in self.tables) if self.tables else (self.source.name,)


@dataclass(frozen=True)
class SourceDependencies:
    """A legacy file and the tables it defines, each with the lake tables it reads: the graph
    the code location draws, found by parsing alone (``tables`` is empty when the file does
    not parse; its ``ansi/<name>`` asset then fails with the diagnostics when it runs)."""

    source: LegacySource
    tables: tuple[TableDependencies, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Table names: each defined table's, or the file's stem when it does not parse."""
        return tuple(t.name for t in self.tables) if self.tables else (self.source.name,)


Table = TypeVar("Table", Translation, TableDependencies)


def _named_after_file(tables: tuple[Table, ...], source: LegacySource) -> tuple[Table, ...]:
    """A file that defines one table names it after the file (the asset key a reader of the
    tree expects); a script that defines several keeps the names its statements give."""
    if len(tables) != 1:
        return tables
    return (replace(tables[0], name=source.name),)


def _table_names(script: ScriptTranslation, source: LegacySource) -> ScriptTranslation:
    return replace(script, tables=_named_after_file(script.tables, source))


def translate_source(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
    parameters: Mapping[str, QueryParameter] | None = None,
) -> ScriptTranslation:
    """Every table ``source`` defines (a Jinja template rendered with ``variables`` first,
    BigQuery query parameters given ``parameters``); raises ``TranslationError``."""
    script, _ = translate_source_text(
        source_text(source.path.read_bytes(), str(source.path)),
        source.dialect,
        file=str(source.path),
        name=source.name,
        catalog=catalog,
        assumptions=assumptions or load_assumptions(),
        variables=variables,
        parameters=parameters,
    )
    return _table_names(script, source)


def _translated_source(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None = None,
) -> TranslatedSource:
    try:
        script = translate_source(source, catalog, assumptions, variables)
    except TranslationError as exc:
        return TranslatedSource(source, (), exc.diagnostics)
    return TranslatedSource(source, script.tables)


def translate_sources(
    root: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
) -> list[TranslatedSource]:
    """Every legacy file under ``root`` with the tables it defines, translated on every core
    (in file order), templates rendered with ``variables``; a table name defined by two files
    is an error naming both."""
    assumptions = assumptions or load_assumptions()
    translate_one = functools.partial(
        _translated_source, catalog=catalog, assumptions=assumptions, variables=variables
    )
    return _defined_once(ordered_map(translate_one, legacy_sources(root)))


Defines = TypeVar("Defines", TranslatedSource, SourceDependencies)


def _defined_once(files: Iterable[Defines]) -> list[Defines]:
    """``files`` as a list; raises ``DuplicateNameError`` naming both files where two
    define the same table."""
    results = []
    seen: dict[str, Path] = {}
    for file in files:
        source = file.source
        for name in file.names:
            if name in seen and seen[name] != source.path:
                raise DuplicateNameError(
                    f"{source.path}: table {name!r} is already defined by {seen[name]}; rename one"
                )
            seen[name] = source.path
        results.append(file)
    return results


def _cache_key(catalog: Catalog, assumptions: Assumptions) -> str:
    return f"{assumptions.key()},catalog={catalog.digest()[:16]}"


def _reusable(
    store: Path,
    names: Sequence[str],
    source_sha: str,
    assumptions_key: str,
    rendered_sha: str | None = None,
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
            or manifest.rendered_sha256 != rendered_sha
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
    variables: Mapping[str, TemplateValue] | None = None,
    parameters: Mapping[str, QueryParameter] | None = None,
) -> list[StoredTranslation]:
    """Translate ``source`` into ``store``, one ``<name>.sql`` + ``<name>.json`` per table it
    defines, unless up-to-date translations are already there (same source bytes,
    translator version, assumptions and catalog, and for a Jinja template rendered with
    ``variables``, the same rendered SQL).

    Raises ``sql.diagnostics.TranslationError`` when the source is refused, and
    ``StoreError`` when it no longer defines the ``expected`` tables (it changed since the
    code location loaded); the previous stored translations are then left untouched.
    """
    assumptions = assumptions or load_assumptions()
    source_bytes = source.path.read_bytes()
    source_sha = sha256_bytes(source_bytes)
    key = _cache_key(catalog, assumptions)
    recorded = {k: str(v) for k, v in parameters.items()} if parameters else None
    if recorded:
        # Other parameter values are another translation.
        key += f",query_parameters={sha256_text(json.dumps(recorded, sort_keys=True))[:16]}"
    text = source_text(source_bytes, str(source.path))
    # Rendered before the reuse check: the same template with other variables (or another
    # catalog's ref) is other SQL.
    rendered = _rendered(source, text, catalog, assumptions, variables)
    rendered_sha = rendered.sql_sha256 if rendered is not None else None
    if expected is not None:
        reused = _reusable(store, expected, source_sha, key, rendered_sha)
        if reused is not None:
            return reused
    if rendered is not None:
        script = translate_rendered(
            rendered,
            source.dialect,
            name=source.name,
            catalog=catalog,
            assumptions=assumptions,
            parameters=parameters,
        )
        script = _table_names(script, source)
    else:
        script = translate_source(source, catalog, assumptions, parameters=parameters)
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
                assumed=",".join(f"{k}={v}" for k, v in translation.assumed),
                portable_functions=list(translation.portable_functions),
                guards=list(translation.guards),
                template_vars=dict(rendered.variables) if rendered is not None else None,
                rendered_sha256=rendered_sha,
                query_parameters=recorded,
            )
        )
    store.mkdir(parents=True, exist_ok=True)
    for stored in results:
        write_atomic(Path(stored.ansi_path), stored.ansi_sql)
        record = _manifest_record(stored, store)
        write_atomic(store / f"{stored.name}.json", json.dumps(record, indent=2, sort_keys=True))
    return results


# --- what each legacy file defines and reads, for the code location ---------------------

DEPENDENCY_CACHE_FORMAT = 1
# A pool worker's start (~0.6 s: a fresh interpreter importing sqlglot) costs about what
# parsing this many legacy files does (~2 ms each, a 2-vCPU VM): parsing goes to the pool
# from ~600 files on 2 cores, ~320 on 16.
PARSE_STARTUP_ITEMS = 300


def _rendered(
    source: LegacySource,
    text: str,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None,
) -> RenderedTemplate | None:
    """``text`` of ``source`` rendered with ``variables`` when it is a Jinja template
    (``sql.templating.is_template``); None for plain SQL."""
    if not is_template(text, str(source.path)):
        return None
    return render_template(
        text,
        file=str(source.path),
        dialect=source.dialect,
        catalog=catalog,
        variables=variables,
        assumptions=assumptions,
    )


def source_dependencies(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None = None,
) -> SourceDependencies:
    """The tables ``source`` defines and reads, by parsing it (``sql.dependencies``); a Jinja
    template is rendered with ``variables`` first."""
    try:
        text = source_text(source.path.read_bytes(), str(source.path))
        rendered = _rendered(source, text, catalog, assumptions, variables)
        if rendered is not None:
            text = rendered.sql
        tables = script_dependencies(
            text,
            source.dialect,
            catalog=catalog,
            file=str(source.path),
            name=source.name,
            assumptions=assumptions,
        )
    except TranslationError:
        return SourceDependencies(source, ())
    return SourceDependencies(source, _named_after_file(tables, source))


def legacy_dependencies(
    root: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    *,
    cache: Path | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
) -> list[SourceDependencies]:
    """Every legacy file under ``root`` with the tables it defines and reads, in file order;
    a table name defined by two files is an error naming both. Nothing is translated.

    With ``cache`` (a JSON file), a file is parsed only when it is not there under the same
    bytes (sha256), translator version, catalog and assumptions; the cache is rewritten
    (atomically) when anything changed. The files left to parse go to a pool of every core
    when there are enough of them to pay for its start.
    """
    assumptions = assumptions or load_assumptions()
    context = _cache_key(catalog, assumptions)
    if variables:
        # What a template renders to depends on them.
        context += f",template_vars={sha256_text(json.dumps(variables, sort_keys=True))[:16]}"
    sources = legacy_sources(root)
    cached = _read_dependency_cache(cache) if cache is not None else {}
    entries: dict[str, dict[str, Any]] = {}
    found: dict[Path, SourceDependencies] = {}
    stale: list[tuple[LegacySource, str, str]] = []  # (source, cache entry, sha256)
    for source in sources:
        relative = source.path.relative_to(root).as_posix()
        source_sha = sha256_bytes(source.path.read_bytes())
        entry = cached.get(relative)
        reused = (
            _from_entry(source, entry, source_sha, context) if isinstance(entry, dict) else None
        )
        if reused is not None:
            found[source.path] = reused
            entries[relative] = entry
        else:
            stale.append((source, relative, source_sha))
    parse_one = functools.partial(
        source_dependencies, catalog=catalog, assumptions=assumptions, variables=variables
    )
    parsed = ordered_map(
        parse_one, [source for source, _, _ in stale], startup_items=PARSE_STARTUP_ITEMS
    )
    for (source, relative, source_sha), dependencies in zip(stale, parsed, strict=True):
        found[source.path] = dependencies
        entries[relative] = _entry(dependencies, source_sha, context)
    results = _defined_once(found[source.path] for source in sources)
    if cache is not None and entries != cached:
        _write_dependency_cache(cache, entries)
    return results


@dataclass(frozen=True)
class LegacySql:
    """A project's legacy SQL in the one form the code location draws it from: each file
    with the tables it defines and reads (parsed once, never translated: see
    :func:`legacy_dependencies`), and the variables its templates rendered with, which
    translating them (the ``ansi/<name>`` assets) must use too."""

    files: tuple[SourceDependencies, ...]
    variables: Mapping[str, TemplateValue] = field(default_factory=dict)

    @classmethod
    def parse(
        cls,
        root: Path,
        catalog: Catalog,
        *,
        cache: Path | None = None,
        variables: Mapping[str, TemplateValue] | None = None,
    ) -> LegacySql:
        """Every legacy file under ``root``, parsed with ``catalog`` and, for a template,
        rendered with ``variables`` (``cache``: see :func:`legacy_dependencies`)."""
        files = legacy_dependencies(root, catalog, cache=cache, variables=variables)
        return cls(tuple(files), dict(variables or {}))


def _entry(dependencies: SourceDependencies, source_sha: str, context: str) -> dict[str, Any]:
    return {
        "source_sha256": source_sha,
        "translator_version": TRANSLATOR_VERSION,
        "context": context,  # the assumptions and the catalog the names resolved in
        "tables": [{"name": t.name, "reads": list(t.reads)} for t in dependencies.tables],
    }


def _from_entry(
    source: LegacySource, entry: dict[str, Any], source_sha: str, context: str
) -> SourceDependencies | None:
    """The cached dependencies of ``source``, or None unless ``entry`` was made from the same
    bytes, translator version and context (and is well formed)."""
    if (
        entry.get("source_sha256") != source_sha
        or entry.get("translator_version") != TRANSLATOR_VERSION
        or entry.get("context") != context
    ):
        return None
    try:
        tables = tuple(TableDependencies(t["name"], tuple(t["reads"])) for t in entry["tables"])
    except (KeyError, TypeError):
        return None
    return SourceDependencies(source, tables)


def _read_dependency_cache(path: Path) -> dict[str, dict[str, Any]]:
    """The cached entries by file (``<dialect>/<name>.sql``); none when the cache is
    missing, unreadable or of another format: it is then rebuilt, which costs a parse."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("format") != DEPENDENCY_CACHE_FORMAT:
        return {}
    files = document.get("files")
    return files if isinstance(files, dict) else {}


def _write_dependency_cache(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    document = {"format": DEPENDENCY_CACHE_FORMAT, "files": entries}
    try:
        write_atomic(path, json.dumps(document, indent=1, sort_keys=True))
    except OSError as exc:
        # A read-only home must not stop the code location from loading; it only parses
        # every file again next time.
        warnings.warn(f"{path}: cannot write the legacy dependency cache: {exc}", stacklevel=2)
