"""Translated ANSI SQL on disk: ``<root>/<name>.sql`` plus a ``<name>.json`` manifest; and
what each legacy file defines and reads, for the code location's graph.

Pure logic (no Dagster). A source is re-translated only when its bytes or the translator
version changed (or, for a Jinja template, what it renders to); the manifest, written last by
atomic rename, is the commit marker. A template's manifest records the variables it read and
the sha256 of the SQL it rendered to (``sql.templating``). The
graph needs no translation: ``legacy_dependencies`` parses each file (once per content,
kept in a JSON cache) to find the tables it defines and reads.

A file may read another file's table (a chain of migrated queries): what it reads resolves
among the catalog's tables and the project's at every load (``with_project_tables``), and
it is translated after that file, against the columns its stored translation records
(``LegacySql.catalog_for``; ``translate_sources`` goes in rounds).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from pipelines.lake.files import write_atomic
from sql.ansi import parse_type
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import Catalog, CatalogError, merge_catalogs, reads_as, undeclared_names
from sql.dependencies import (
    TABLE_ZONE,
    DefinedTables,
    NameRead,
    TableDependencies,
    find_cycle,
    names_for,
    project_catalog,
    resolve_reads,
    script_dependencies,
    without_tables,
)
from sql.diagnostics import Diagnostic, TranslationError, source_text
from sql.lineage import column_lineage
from sql.parallel import ordered_map
from sql.parameters import QueryParameter
from sql.paths import LEGACY_ROOT, repository_relative
from sql.source_limits import RULE as SOURCE_SIZE
from sql.source_limits import SourceTooLarge, check_source_bytes, read_source
from sql.templating import (
    RenderedTemplate,
    TemplateBudget,
    TemplateValue,
    is_template,
    render_template,
    translate_rendered,
    translate_source_text,
)
from sql.translate import (
    TRANSLATOR_VERSION,
    OutputSchema,
    ScriptTranslation,
    Translation,
    output_schema,
)


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
    # Its columns as a catalog holds them (``sql.translate.OutputSchema``: "columns" as
    # [name, type] pairs, in order; "opaque", "casespecific"): what a file that reads the
    # table is translated against. None in a manifest written before they were recorded
    # (translated again).
    output_schema: dict[str, Any] | None = None
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
    return parse_stored_manifest(manifest_path.read_bytes(), store, name)


def parse_stored_manifest(data: bytes, store: Path, name: str) -> StoredTranslation:
    """The manifest of ``ansi/<name>`` whose bytes are ``data``, read as if it lay in
    ``store`` (an audit reads a copy it pinned so); StoreError when it is not one."""
    manifest_path = store / f"{name}.json"
    try:
        record = json.loads(data)
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
    # The file over a size limit (sql/source_limits.py): a mistake the load reports, where
    # a file that does not parse fails only its own assets when they run.
    refused: tuple[Diagnostic, ...] = ()

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
    *,
    typed: bool = False,
    budget: TemplateBudget | None = None,
) -> ScriptTranslation:
    """Every table ``source`` defines (a Jinja template rendered with ``variables`` first,
    within ``budget``, BigQuery query parameters given ``parameters``; ``typed``: with every
    table's column types); raises ``TranslationError``."""
    script, _ = translate_source_text(
        source_text(read_source(source.path), str(source.path)),
        source.dialect,
        file=str(source.path),
        name=source.name,
        catalog=catalog,
        assumptions=assumptions or load_assumptions(),
        variables=variables,
        parameters=parameters,
        typed=typed,
        budget=budget,
    )
    return _table_names(script, source)


def _translated_source(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> TranslatedSource:
    try:
        script = translate_source(
            source, catalog, assumptions, variables, typed=True, budget=budget
        )
    except TranslationError as exc:
        return TranslatedSource(source, (), exc.diagnostics)
    return TranslatedSource(source, script.tables)


def translate_sources(
    root: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> list[TranslatedSource]:
    """Every legacy file under ``root`` with the tables it defines, translated on every core
    (in file order), templates rendered with ``variables`` within ``budget``; a table name
    defined by two files is an error naming both.

    A file that reads another's tables is translated after it, against the columns its
    translation gives them (``LegacySql.catalog_for``): the files go in rounds, each round
    the files whose upstream files are all done. Raises ``CycleError`` and ``CatalogError``
    as ``legacy_dependencies`` does."""
    assumptions = assumptions or load_assumptions()
    legacy = LegacySql.parse(
        root, catalog, variables=variables, assumptions=assumptions, budget=budget
    )
    built: dict[str, OutputSchema] = {}  # lake table -> its columns, once translated
    translated: dict[Path, TranslatedSource] = {}
    pending = list(legacy.files)
    while pending:
        ready = [f for f in pending if legacy.upstream(f) <= set(built) | _refused(translated)]
        if not ready:  # a cycle, which parsing refused already
            raise CycleError(f"cannot order {', '.join(str(f.source.path) for f in pending)}")
        pending = [f for f in pending if f not in ready]
        translate_one = functools.partial(
            _translated_in_chain,
            catalog=catalog,
            assumptions=assumptions,
            variables=variables,
            budget=budget,
        )
        items = [(f.source, legacy.names_read(f), legacy.upstream_schemas(f, built)) for f in ready]
        for file, result in zip(ready, ordered_map(translate_one, items), strict=True):
            translated[file.source.path] = result
            for table in result.tables:
                built[f"{table.zone}.{table.name}"] = output_schema(table)
    return _defined_once(translated[f.source.path] for f in legacy.files)


def _refused(translated: Mapping[Path, TranslatedSource]) -> set[str]:
    """The lake tables of the files ``translated`` refused: their readers go on without
    their columns (a column they name is refused; the lint plans no table over them)."""
    return {f"{TABLE_ZONE}.{name}" for t in translated.values() if not t.tables for name in t.names}


def _translated_in_chain(
    item: tuple[LegacySource, Catalog, Mapping[str, OutputSchema]],
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> TranslatedSource:
    source, names, upstream = item
    return _translated_source(
        source, chain_catalog(catalog, names, upstream), assumptions, variables, budget
    )


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
            or manifest.output_schema is None
        ):
            return None
        stored.append(StoredTranslation(**{**asdict(manifest), "reused": True}))
    return stored


@dataclass(frozen=True)
class _Current:
    """What a stored translation of a source must have been made from to stand for it now."""

    source_sha: str
    key: str  # the catalog, assumptions and query parameters (_cache_key)
    rendered: RenderedTemplate | None

    @property
    def rendered_sha(self) -> str | None:
        return self.rendered.sql_sha256 if self.rendered is not None else None


def _current(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None,
    parameters: Mapping[str, QueryParameter] | None,
    budget: TemplateBudget | None,
) -> _Current:
    source_bytes = read_source(source.path)
    key = _cache_key(catalog, assumptions)
    recorded = {k: str(v) for k, v in parameters.items()} if parameters else None
    if recorded:
        # Other parameter values are another translation.
        key += f",query_parameters={sha256_text(json.dumps(recorded, sort_keys=True))[:16]}"
    text = source_text(source_bytes, str(source.path))
    # Rendered before the reuse check: the same template with other variables (or another
    # catalog's ref) is other SQL.
    rendered = _rendered(source, text, catalog, assumptions, variables, budget)
    return _Current(sha256_bytes(source_bytes), key, rendered)


def stored_translations(
    source: LegacySource,
    store: Path,
    catalog: Catalog,
    expected: Sequence[str],
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> list[StoredTranslation] | None:
    """The translations of ``source`` that :func:`translate_to_store` would reuse (the
    ``expected`` tables', made from the same source bytes, translator version, assumptions,
    catalog and rendered SQL), without translating anything; None where it would translate.
    Raises what reading and rendering the source raise."""
    current = _current(source, catalog, load_assumptions(), variables, None, budget)
    return _reusable(store, expected, current.source_sha, current.key, current.rendered_sha)


def translate_to_store(
    source: LegacySource,
    store: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    expected: Sequence[str] | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
    parameters: Mapping[str, QueryParameter] | None = None,
    budget: TemplateBudget | None = None,
) -> list[StoredTranslation]:
    """Translate ``source`` into ``store``, one ``<name>.sql`` + ``<name>.json`` per table it
    defines, unless up-to-date translations are already there (same source bytes,
    translator version, assumptions and catalog, and for a Jinja template rendered with
    ``variables`` within ``budget``, the same rendered SQL).

    Raises ``sql.diagnostics.TranslationError`` when the source is refused, and
    ``StoreError`` when it no longer defines the ``expected`` tables (it changed since the
    code location loaded); the previous stored translations are then left untouched.
    """
    assumptions = assumptions or load_assumptions()
    current = _current(source, catalog, assumptions, variables, parameters, budget)
    source_sha, key, rendered = current.source_sha, current.key, current.rendered
    if expected is not None:
        reused = _reusable(store, expected, source_sha, key, current.rendered_sha)
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
            typed=True,
        )
        script = _table_names(script, source)
    else:
        script = translate_source(source, catalog, assumptions, parameters=parameters, typed=True)
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
                rendered_sha256=current.rendered_sha,
                query_parameters={k: str(v) for k, v in parameters.items()} if parameters else None,
                output_schema=_schema_record(output_schema(translation)),
            )
        )
    store.mkdir(parents=True, exist_ok=True)
    for stored in results:
        write_atomic(Path(stored.ansi_path), stored.ansi_sql)
        record = _manifest_record(stored, store)
        write_atomic(store / f"{stored.name}.json", json.dumps(record, indent=2, sort_keys=True))
    return results


# --- what each legacy file defines and reads, for the code location ---------------------

# 3: each table's names as written and where, resolved at every load among the project's
# tables (``_linked``); 4: and a wildcard's refusals, resolved once.
# 5: and a file over the statement limit's refusal.
DEPENDENCY_CACHE_FORMAT = 5
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
    budget: TemplateBudget | None,
) -> RenderedTemplate | None:
    """``text`` of ``source`` rendered with ``variables`` when it is a Jinja template
    (``sql.templating.is_template``); None for plain SQL. Always within ``budget`` (the
    default one when None): a load renders every template, and one that would run for
    minutes stops at its budget, refusing its own file only."""
    if not is_template(text, str(source.path)):
        return None
    return render_template(
        text,
        file=str(source.path),
        dialect=source.dialect,
        catalog=catalog,
        variables=variables,
        assumptions=assumptions,
        budget=budget,
    )


def source_dependencies(
    source: LegacySource,
    catalog: Catalog,
    assumptions: Assumptions,
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> SourceDependencies:
    """The tables ``source`` defines and reads, by parsing it (``sql.dependencies``); a Jinja
    template is rendered with ``variables`` first, within ``budget``. A file over the size
    limits is ``refused``; one that does not parse or render defines its stem's table, and
    its assets fail when they run."""
    rendered = None
    try:
        text = source_text(read_source(source.path), str(source.path))
        rendered = _rendered(source, text, catalog, assumptions, variables, budget)
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
    except SourceTooLarge as exc:
        located = exc.diagnostics
        if rendered is not None:
            located = tuple(rendered.relocate(d) for d in located)
        return SourceDependencies(source, (), refused=located)
    except TranslationError:
        return SourceDependencies(source, ())
    if rendered is not None:
        # Where each name is written in the template itself, as its diagnostics say.
        tables = tuple(
            replace(
                t,
                names=tuple(
                    replace(n, line=at[0], col=at[1])
                    for n in t.names
                    for at in [rendered.locate(n.line, n.col)]
                ),
                fixed_unresolved=tuple(rendered.relocate(d) for d in t.fixed_unresolved),
            )
            for t in tables
        )
    return SourceDependencies(source, _named_after_file(tables, source))


def legacy_dependencies(
    root: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    *,
    cache: Path | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
    budget: TemplateBudget | None = None,
) -> list[SourceDependencies]:
    """Every legacy file under ``root`` with the tables it defines and reads, in file order;
    a table name defined by two files is an error naming both. Nothing is translated; a
    template is rendered within ``budget`` (the default one when None), and a file over the
    size limits is not read (``SourceDependencies.refused``).

    A file reads the tables other files define by any name the catalog leaves to them
    (``sql.catalog.Catalog.resolve_name``); ``CycleError`` names files that read each
    other's tables in a cycle, ``CatalogError`` a legacy name that names nothing
    (``with_project_tables``).

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
    if budget is not None and budget != TemplateBudget():
        # A template refused under one budget may render under another.
        context += f",template_budget={sha256_text(budget.key())[:16]}"
    sources = legacy_sources(root)
    cached = _read_dependency_cache(cache) if cache is not None else {}
    entries: dict[str, dict[str, Any]] = {}
    found: dict[Path, SourceDependencies] = {}
    stale: list[tuple[LegacySource, str, str]] = []  # (source, cache entry, sha256)
    for source in sources:
        relative = source.path.relative_to(root).as_posix()
        try:
            check_source_bytes(source.path.stat().st_size, str(source.path))
        except SourceTooLarge as exc:  # never read, so never parsed nor cached
            found[source.path] = SourceDependencies(source, (), refused=exc.diagnostics)
            continue
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
        source_dependencies,
        catalog=catalog,
        assumptions=assumptions,
        variables=variables,
        budget=budget,
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
    return _linked(results, with_project_tables(catalog, results), assumptions)


@dataclass(frozen=True)
class LegacySql:
    """A project's legacy SQL in the one form the code location draws it from: each file
    with the tables it defines and reads (parsed once, never translated: see
    :func:`legacy_dependencies`), and the variables its templates rendered with, which
    translating them (the ``ansi/<name>`` assets) must use too."""

    files: tuple[SourceDependencies, ...]
    variables: Mapping[str, TemplateValue] = field(default_factory=dict)
    # What rendering one template may take (sql.template_sandbox), at the load and in the
    # ``ansi/`` assets alike.
    budget: TemplateBudget = field(default_factory=TemplateBudget)

    @classmethod
    def parse(
        cls,
        root: Path,
        catalog: Catalog,
        *,
        cache: Path | None = None,
        variables: Mapping[str, TemplateValue] | None = None,
        assumptions: Assumptions | None = None,
        budget: TemplateBudget | None = None,
    ) -> LegacySql:
        """Every legacy file under ``root``, parsed with ``catalog`` and, for a template,
        rendered with ``variables`` within ``budget`` (``cache``: see
        :func:`legacy_dependencies`)."""
        budget = budget or TemplateBudget()
        files = legacy_dependencies(
            root, catalog, assumptions, cache=cache, variables=variables, budget=budget
        )
        return cls(tuple(files), dict(variables or {}), budget)

    @functools.cached_property
    def project(self) -> Catalog:
        """The tables the files define, known by name (``sql.dependencies.project_catalog``)."""
        return project_catalog(_defined(self.files))

    def defining(self, table: str) -> SourceDependencies:
        """The file that defines ``table``."""
        return next(f for f in self.files if table in f.names)

    def upstream(self, file: SourceDependencies) -> set[str]:
        """The lake tables of other files that ``file`` reads: translated before it."""
        own = _own_tables(file)
        return {
            read
            for table in file.tables
            for read in table.reads
            if read in self.project.project and read not in own
        }

    def names_read(self, file: SourceDependencies) -> Catalog:
        """The project's tables that the names ``file`` reads can mean (by their table
        name), not its own: what its translation resolves among, and only that, so that a
        new file elsewhere in the project does not change its translation's cache key."""
        return names_for(self.project, file.tables, file.source.dialect, _own_tables(file))

    def upstream_schemas(
        self, file: SourceDependencies, built: Mapping[str, OutputSchema]
    ) -> dict[str, OutputSchema]:
        """The columns of the tables ``file`` reads upstream, of those in ``built``."""
        return {lake: built[lake] for lake in sorted(self.upstream(file)) if lake in built}

    def catalog_for(
        self,
        table: str,
        catalog: Catalog,
        store: Path,
        published: Callable[[str], Mapping[str, str] | None] | None = None,
    ) -> Catalog:
        """The catalog the file that defines ``table`` is translated with (and its tables
        checked against when built): ``catalog``, the project's tables its names can mean,
        and the columns of those it reads from their stored translations; ``StoreError``
        when one is not stored (materialize its ``ansi/`` asset first), ``CatalogError``
        when ``catalog`` declares one of them with other columns.

        ``published``: the column types of a table as the lake holds it now, or None when
        it is not published. Those are the types a reader reads and the engine wrote, where
        annotation may have guessed another (DECIMAL(12,3) - DECIMAL(12,3) is DECIMAL(13,3)
        on both engines); the translation's types stay where the lake has none of its own,
        and so do its legacy declared types (an Oracle DATE stays one)."""
        file = self.defining(table)
        upstream = {}
        for lake in sorted(self.upstream(file)):
            schema = stored_output_schema(store, lake.split(".", 1)[1])
            stored = published(lake) if published is not None else None
            if stored is not None and list(stored) == list(schema.columns):
                columns = {
                    c: kind
                    if c in schema.opaque or not stored[c] or reads_as(stored[c], kind)
                    else stored[c]
                    for c, kind in schema.columns.items()
                }
                schema = replace(schema, columns=columns)
            upstream[lake] = schema
        return chain_catalog(catalog, self.names_read(file), upstream)


def _entry(dependencies: SourceDependencies, source_sha: str, context: str) -> dict[str, Any]:
    return {
        "source_sha256": source_sha,
        "translator_version": TRANSLATOR_VERSION,
        "context": context,  # the assumptions and the catalog the names resolved in
        "tables": [
            {
                "name": t.name,
                "own": list(t.own),
                "names": [
                    [[list(part) for part in name.parts], name.line, name.col] for name in t.names
                ],
                "written": [list(part) for part in t.written],
                "fixed_unresolved": [
                    {"rule": d.rule, "message": d.message, "line": d.line, "col": d.col}
                    for d in t.fixed_unresolved
                ],
            }
            for t in dependencies.tables
        ],
        "refused": [
            {"message": d.message, "line": d.line, "col": d.col} for d in dependencies.refused
        ],
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
        tables = tuple(
            TableDependencies(
                t["name"],
                (),  # resolved among the project's tables (``_linked``)
                own=tuple(t["own"]),
                names=tuple(
                    NameRead(tuple((str(p), bool(q)) for p, q in parts), int(line), int(col))
                    for parts, line, col in t["names"]
                ),
                written=tuple((str(p), bool(q)) for p, q in t["written"]),
                fixed_unresolved=tuple(
                    Diagnostic(
                        "error", d["rule"], d["message"], str(source.path), d["line"], d["col"]
                    )
                    for d in t["fixed_unresolved"]
                ),
            )
            for t in entry["tables"]
        )
        refused = tuple(
            Diagnostic(
                "error", SOURCE_SIZE, d["message"], str(source.path), int(d["line"]), int(d["col"])
            )
            for d in entry["refused"]
        )
    except (KeyError, TypeError, ValueError):
        return None
    return SourceDependencies(source, tables, refused)


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


# --- chains of migrated queries: a file that reads another file's tables ----------------


class CycleError(ValueError):
    """Legacy files that read each other's tables in a cycle: none can be translated or
    built first. The message is one line naming the files."""


def _defined(files: Iterable[SourceDependencies]) -> list[DefinedTables]:
    return [
        DefinedTables(repository_relative(f.source.path), f.source.dialect, f.tables) for f in files
    ]


def with_project_tables(catalog: Catalog, files: Sequence[SourceDependencies]) -> Catalog:
    """``catalog`` with the tables ``files`` define known by name (a catalog's own table
    keeps every name it holds: ``sql.catalog.Catalog.resolve_name``). Raises
    ``CatalogError`` when a script creates a legacy name the catalog maps to another table,
    or a catalog's legacy name maps to a table that it does not declare and no file builds
    (``sql.catalog.load_catalog``'s ``project_tables``)."""
    project = project_catalog(_defined(files))
    searched = ", ".join(catalog.sources) or "the catalog"
    for dialect, names in project.legacy.items():
        for key, lake in names.items():
            other = catalog.legacy.get(dialect, {}).get(key)
            if other is not None and other != lake:
                raise CatalogError(
                    f"{project.project[lake].file}: creates the {dialect} table "
                    f"{'.'.join(key)}, which {searched} maps to {other}; a name is one table "
                    "(map it to the table the file builds, or drop it from the catalog)"
                )
    merged = merge_catalogs([catalog, project])
    for dialect, name, lake in undeclared_names(merged):
        raise CatalogError(
            f"{searched}: {dialect} name {name!r} maps to {lake!r}, which no catalog file "
            "declares and no legacy file builds"
        )
    return merged


def _own_tables(file: SourceDependencies) -> set[str]:
    return {f"{TABLE_ZONE}.{name}" for name in file.names}


def _linked(
    files: Sequence[SourceDependencies], catalog: Catalog, assumptions: Assumptions
) -> list[SourceDependencies]:
    """``files`` with each table's reads resolved in ``catalog`` (``with_project_tables``),
    a file's own tables left out (``sql.dependencies.without_tables``); ``CycleError``
    naming the files of a cycle."""
    linked = []
    for file in files:
        own = _own_tables(file)
        resolving = catalog
        if own & set(names_for(catalog, file.tables, file.source.dialect).project):
            resolving = without_tables(catalog, own)  # rare: a copy of the names
        tables = tuple(
            resolve_reads(table, resolving, file.source.dialect, assumptions, str(file.source.path))
            for table in file.tables
        )
        linked.append(replace(file, tables=tables))
    cycle = find_cycle(_defined(linked))
    if cycle is not None:
        raise CycleError(
            " reads ".join(cycle) + ": legacy files that read each other's tables in a cycle, "
            "so none can be built first"
        )
    return linked


def stored_output_schema(store: Path, name: str) -> OutputSchema:
    """The columns of the table ``ansi/<name>`` stored, as a reader is translated against."""
    stored = read_stored_manifest(store, name)
    if stored.output_schema is None:
        raise StoreError(
            f"{store / f'{name}.json'}: translated before its columns were recorded; "
            f"materialize ansi/{name} again"
        )
    record = stored.output_schema
    return OutputSchema(
        {str(name): str(kind) for name, kind in record["columns"]},
        dict(record.get("opaque", {})),
        dict(record.get("casespecific", {})),
        {column: (dialect, kind) for column, (dialect, kind) in record.get("declared", {}).items()},
    )


def _schema_record(schema: OutputSchema) -> dict[str, Any]:
    """``schema`` as a manifest keeps it: the columns as pairs, since the manifest's keys
    are sorted and a table's column order is part of it."""
    return {
        "columns": [[name, kind] for name, kind in schema.columns.items()],
        "opaque": schema.opaque,
        "casespecific": schema.casespecific,
        "declared": {column: list(kind) for column, kind in schema.declared.items()},
    }


def chain_catalog(
    catalog: Catalog, project: Catalog, upstream: Mapping[str, OutputSchema]
) -> Catalog:
    """``catalog`` with the ``project`` tables a file's names can mean
    (``LegacySql.names_read``) and the columns of those it reads (``upstream``: lake table
    -> the columns its translation gives). A table the project builds takes its columns
    from its translation; a catalog that declares it too must agree, column for column
    (``CatalogError`` naming both otherwise)."""
    if not project.project and not upstream:
        return catalog
    searched = ", ".join(catalog.sources) or "the catalog"
    for lake, schema in upstream.items():
        declared = catalog.tables.get(lake)
        if declared is not None and not _same_columns(declared, schema):
            file = project.project[lake].file if lake in project.project else lake
            raise CatalogError(
                f"{searched}: declares {lake} as ({_shown_columns(declared)}), but {file} "
                f"builds it as ({_shown_columns(schema.columns)}); a table the project "
                "builds takes its columns from its translation: drop the declaration"
            )
    built = set(upstream)
    base = replace(
        catalog,
        tables={t: c for t, c in catalog.tables.items() if t not in built},
        opaque={t: c for t, c in catalog.opaque.items() if t not in built},
        required={t: c for t, c in catalog.required.items() if t not in built},
        casespecific={t: c for t, c in catalog.casespecific.items() if t not in built},
        declared={t: c for t, c in catalog.declared.items() if t not in built},
        physical={t: c for t, c in catalog.physical.items() if t not in built},
    )
    translated = Catalog(
        tables={lake: s.columns for lake, s in upstream.items()},
        opaque={lake: s.opaque for lake, s in upstream.items() if s.opaque},
        casespecific={lake: s.casespecific for lake, s in upstream.items() if s.casespecific},
        declared={lake: s.declared for lake, s in upstream.items() if s.declared},
    )
    return merge_catalogs([base, project, translated])


def _same_columns(declared: Mapping[str, str], schema: OutputSchema) -> bool:
    if list(declared) != list(schema.columns):
        return False
    for column, kind in declared.items():
        built = schema.columns[column]
        if column in schema.opaque:
            if kind != built:
                return False
            continue
        try:
            if parse_type(kind) != parse_type(built):
                return False
        except Exception:  # sqlglot raises ParseError or ValueError on a type it cannot read
            return False
    return True


def _shown_columns(columns: Mapping[str, str]) -> str:
    return ", ".join(f"{name} {kind}" for name, kind in columns.items())
