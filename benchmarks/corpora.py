"""The public SQL corpora under ``shared/corpora`` as queries to translate, each with the
catalog its corpus states (see that folder's README.md).

Catalogs come from each corpus's own schema files through the DDL importer
(``sql.catalog_import``): Spider2's ``DDL.csv`` (and its derived ``*.columns.json``),
bigquery-etl's ``schema.yaml``, Redshift's ``ddl.sql``, the CREATE TABLEs of the Teradata
examples and of each file itself, and for T-SQL TPC-H (which ships no DDL) the TPC-H columns
of ``sql/catalog.yaml``. Files that are not DDL text are first written as CREATE TABLE
statements, built as sqlglot trees. Nothing is copied from the corpora into the repository.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from sql.catalog import Catalog, fold, load_catalog, merge_catalogs
from sql.catalog_import import CatalogImportError, DdlImport, import_ddl
from sql.source_dialects import SOURCE_DIALECTS

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPORA_ENV = "PLUMBLINE_CORPORA"
# Spider2 DDL.csv cells reach 3 MB (one CREATE TABLE of a wide census table).
csv.field_size_limit(64 * 1024 * 1024)

# README.md "Pairing a query with its schema": index.csv files one query under a database
# that does not hold the tables it reads.
SPIDER2_SCHEMA_FIXES = {
    "snowflake/lite__sf_bq233.sql": "schemas/snowflake/GITHUB_REPOS_DATE",
}
# A query that re-imports a whole schema folder must not loop forever on one bad table.
MAX_IMPORT_ATTEMPTS = 20


def corpora_root() -> Path:
    """``$PLUMBLINE_CORPORA``, else ``shared/corpora`` next to the repository (CI's layout)."""
    configured = os.environ.get(CORPORA_ENV)
    return Path(configured) if configured else (REPO_ROOT / ".." / "shared" / "corpora").resolve()


@dataclass(frozen=True)
class CatalogSource:
    """Where a query's catalog comes from, as a key that a worker builds once.

    ``kind`` is ``spider2`` (one schema_dir), ``bigquery_etl`` (every schema.yaml),
    ``ddl_files`` (DDL text files), ``tpch`` (sql/catalog.yaml's TPC-H tables as DDL of
    ``dialect``) or ``none``.
    """

    kind: str
    dialect: str
    path: str = ""  # the schema_dir, corpus root or DDL files (joined by os.pathsep)
    cost: int = 0  # bytes of schema text: how long the import takes, for scheduling

    @property
    def has_schema(self) -> bool:
        return self.kind != "none"


@dataclass(frozen=True)
class CorpusQuery:
    corpus: str
    dialect: str
    file: str  # relative to the corpora root
    name: str  # the table a bare query defines
    catalog: CatalogSource
    # Default namespaces the corpus states for this query (Assumptions field -> value).
    assumptions: tuple[tuple[str, str], ...] = ()
    # BigQuery query parameters its scheduler runs it with: (name, "TYPE:VALUE").
    parameters: tuple[tuple[str, str], ...] = ()
    # The file's own CREATE TABLEs are part of its catalog (scripts that build their tables).
    own_ddl: bool = False
    # For a file of independent queries: the character span of this one (others blanked).
    span: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        return f"{self.file}#{self.name}" if self.span else self.file


@dataclass(frozen=True)
class BuiltCatalog:
    catalog: Catalog
    problems: tuple[str, ...]  # schema text the importer refused, one line each


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", text.lower())


# --- queries ------------------------------------------------------------------------


def corpus_queries(root: Path) -> list[CorpusQuery]:
    """Every query of every corpus under ``root``, in a stable order."""
    return [
        *_spider2(root),
        *_bigquery_etl(root),
        *_sqlfluff(root),
        *_redshift_tpch(root),
        *_hyrise_tpch(root),
        *_teradata_examples(root),
    ]


def _spider2(root: Path) -> Iterator[CorpusQuery]:
    corpus = root / "spider2"
    with (corpus / "index.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        schema_dir = corpus / SPIDER2_SCHEMA_FIXES.get(row["query_file"], row["schema_dir"])
        dialect = row["dialect"]
        source = CatalogSource("spider2", dialect, str(schema_dir), _size(schema_dir))
        yield CorpusQuery(
            corpus="spider2",
            dialect=dialect,
            file=f"spider2/{row['query_file']}",
            name=Path(row["query_file"]).stem,
            catalog=source,
            assumptions=_spider2_namespace(schema_dir, dialect),
        )


def _spider2_namespace(schema_dir: Path, dialect: str) -> tuple[tuple[str, str], ...]:
    """The default database and schema (project and dataset) a query of ``schema_dir``
    runs in: its folder names, where there is one; unknown where there are several."""
    folders = (
        sorted(p.name for p in schema_dir.iterdir() if p.is_dir()) if schema_dir.is_dir() else []
    )
    if dialect == "snowflake":
        schema = folders[0] if len(folders) == 1 else ""
        return (("snowflake_database", schema_dir.name), ("snowflake_schema", schema))
    projects = sorted({f.split(".", 1)[0] for f in folders})
    datasets = [f.split(".", 1)[1] for f in folders if "." in f]
    return (
        ("bigquery_project", projects[0] if len(projects) == 1 else ""),
        ("bigquery_dataset", datasets[0] if len(folders) == 1 and datasets else ""),
    )


# bigquery-etl's Airflow DAGs run each query with `bq query
# --parameter=submission_date:DATE:{{ds}}` (the run's date); a fixed date stands for it.
BIGQUERY_ETL_PARAMETERS = (("submission_date", "DATE:2024-01-01"),)


def _bigquery_etl(root: Path) -> Iterator[CorpusQuery]:
    corpus = root / "bigquery_etl"
    index = corpus / "index.csv"
    source = CatalogSource("bigquery_etl", "bigquery", str(corpus), _size(corpus / "schemas"))
    with index.open(newline="") as handle:
        for row in csv.DictReader(handle):
            yield CorpusQuery(
                corpus="bigquery_etl",
                dialect="bigquery",
                file=f"bigquery_etl/{row['query_file']}",
                name=row["table"],
                catalog=source,
                assumptions=(
                    ("bigquery_project", row["project"]),
                    ("bigquery_dataset", row["dataset"]),
                ),
                parameters=BIGQUERY_ETL_PARAMETERS,
            )


def _sqlfluff(root: Path) -> Iterator[CorpusQuery]:
    corpus = root / "sqlfluff"
    for path in sorted(corpus.glob("*/*.sql")):
        dialect = path.parent.name
        yield CorpusQuery(
            corpus="sqlfluff",
            dialect=dialect,
            file=str(path.relative_to(root)),
            name=path.stem,
            catalog=CatalogSource("none", dialect),
            own_ddl=True,
        )


def _redshift_tpch(root: Path) -> Iterator[CorpusQuery]:
    corpus = root / "redshift_tpch"
    ddl = corpus / "ddl.sql"
    source = CatalogSource("ddl_files", "redshift", str(ddl), _size(ddl))
    path = corpus / "query_0.sql"
    # query_0.sql is the 22 queries of a power run: 22 independent queries, not one script.
    for number, span in enumerate(statement_spans(path.read_text(), "redshift"), start=1):
        yield CorpusQuery(
            corpus="redshift_tpch",
            dialect="redshift",
            file=str(path.relative_to(root)),
            name=f"query_0_{number}",
            catalog=source,
            span=span,
        )


def _hyrise_tpch(root: Path) -> Iterator[CorpusQuery]:
    source = CatalogSource("tpch", "tsql", cost=1)
    for path in sorted((root / "hyrise_tpch").glob("*.sql")):
        yield CorpusQuery(
            corpus="hyrise_tpch",
            dialect="tsql",
            file=str(path.relative_to(root)),
            name=path.stem,
            catalog=source,
        )


def _teradata_examples(root: Path) -> Iterator[CorpusQuery]:
    corpus = root / "teradata_examples"
    schema = corpus / "create-schema.sql"
    source = CatalogSource("ddl_files", "teradata", str(schema), _size(schema))
    for path in sorted(corpus.glob("*.sql")):
        yield CorpusQuery(
            corpus="teradata_examples",
            dialect="teradata",
            file=str(path.relative_to(root)),
            name=path.stem,
            catalog=source,
            own_ddl=True,
        )


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def statement_spans(text: str, dialect: str) -> list[tuple[int, int]]:
    """The character span of each statement of ``text``, from its first token to the end
    of its last, as the dialect's tokenizer splits them at semicolons."""
    source = Dialect.get_or_raise(SOURCE_DIALECTS[dialect])
    spans: list[tuple[int, int]] = []
    start = end = None
    for token in source.tokenize(text):
        if token.token_type == TokenType.SEMICOLON:
            if start is not None:
                spans.append((start, end))
            start = None
            continue
        start = token.start if start is None else start
        end = token.end + 1
    if start is not None:
        spans.append((start, end))
    return spans


def query_text(root: Path, query: CorpusQuery) -> str:
    """The text to translate: the file, or only the query's span with every other character
    but line breaks blanked, so that diagnostics keep the file's line and column."""
    text = (root / query.file).read_text()
    return text if query.span is None else blank_outside(text, query.span)


def blank_outside(text: str, span: tuple[int, int]) -> str:
    """``text`` with every character outside ``span`` but line breaks made a space."""
    start, end = span
    return _OUTSIDE.sub(" ", text[:start]) + text[start:end] + _OUTSIDE.sub(" ", text[end:])


_OUTSIDE = re.compile(r"[^\n]")


# --- catalogs -----------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def build_catalog(source: CatalogSource) -> BuiltCatalog:
    """The catalog ``source`` describes (cached: a worker imports each schema once)."""
    builders: dict[str, Callable[[CatalogSource], BuiltCatalog]] = {
        "bigquery_etl": _bigquery_etl_catalog,
        "ddl_files": _ddl_files_catalog,
        "none": lambda s: BuiltCatalog(Catalog(tables={}), ()),
        "spider2": _spider2_catalog,
        "tpch": _tpch_catalog,
    }
    return builders[source.kind](source)


def with_own_ddl(built: BuiltCatalog, text: str, dialect: str, file: str) -> Catalog:
    """``built``'s catalog and the tables ``text`` itself creates (they win on a clash:
    the script reads the table it created). Statements the importer refuses add nothing;
    the translation reports the same text."""
    own = _import(statement_sources(file, text, dialect), dialect, "script", [])
    if own is None or not own.tables:
        return built.catalog
    catalog = _catalog_of(own, lambda parts: parts)
    base = built.catalog
    legacy = {d: dict(names) for d, names in base.legacy.items()}
    legacy.setdefault(dialect, {}).update(catalog.legacy[dialect])
    return Catalog(
        tables={**base.tables, **catalog.tables},
        legacy=legacy,
        opaque={**base.opaque, **catalog.opaque},
        sources=(*base.sources, file),
    )


def _catalog_of(
    imported: DdlImport, qualify: Callable[[tuple[str, ...]], tuple[str, ...]]
) -> Catalog:
    """A catalog of the imported tables, each legacy name completed by ``qualify``."""
    legacy = {qualify(table.parts): lake for lake, table in imported.tables.items()}
    return Catalog(
        tables=imported.catalog_tables(),
        legacy={imported.dialect: legacy},
        opaque=imported.catalog_opaque(),
        sources=tuple(sorted({re.split("[:#]", t.file)[0] for t in imported.tables.values()})),
    )


def _import(
    sources: Sequence[tuple[str, str]], dialect: str, zone: str, problems: list[str]
) -> DdlImport | None:
    """``import_ddl`` of ``sources``, leaving out each source the importer refuses (each
    refusal is one line of ``problems``) until the rest imports."""
    remaining = list(sources)
    for _ in range(MAX_IMPORT_ATTEMPTS):
        if not remaining:
            return None
        try:
            return import_ddl(remaining, dialect, zone=zone)
        except CatalogImportError as error:
            errors = [d for d in error.diagnostics if d.severity == "error"]
            refused = {d.file for d in errors}
            problems.extend(d.format() for d in errors)
            kept = [s for s in remaining if s[0] not in refused]
            if len(kept) == len(remaining):
                return None
            remaining = kept
    return None


def _spider2_catalog(source: CatalogSource) -> BuiltCatalog:
    """Every table of one Spider2 schema_dir: one import per schema (dataset) folder, in
    its own zone, since folders of one database may hold tables of the same name."""
    schema_dir = Path(source.path)
    folders = sorted(p for p in schema_dir.iterdir() if p.is_dir()) if schema_dir.is_dir() else []
    if not folders:
        return BuiltCatalog(Catalog(tables={}), (f"{schema_dir}: no schema folder",))
    built = [_spider2_folder(str(folder), source.dialect) for folder in folders]
    catalogs = [b.catalog for b in built if b.catalog.tables]
    return BuiltCatalog(_merge(catalogs), tuple(p for b in built for p in b.problems))


@functools.lru_cache(maxsize=16)
def _spider2_folder(path: str, dialect: str) -> BuiltCatalog:
    """One schema folder's tables (cached: databases share folders, census_bureau_acs
    three times)."""
    folder = Path(path)
    relative = folder.relative_to(folder.parents[3])
    sources = [
        *_ddl_csv_sources(folder, relative),
        *_columns_json_sources(folder, relative, dialect),
    ]
    problems: list[str] = []
    imported = _import(sources, dialect, _slug(folder.name), problems)
    if imported is None:
        return BuiltCatalog(Catalog(tables={}), tuple(problems))
    # DDL.csv names a Snowflake table by itself (`PROJECTS`) or fully; its database and
    # schema are the folders it lies in. BigQuery folders are `project.dataset`.
    if dialect == "snowflake":
        namespace: tuple[str, ...] = (folder.parent.name, folder.name)
    else:
        namespace = tuple(folder.name.split(".", 1))
    prefix = tuple(fold(part, dialect) for part in namespace)

    def qualify(parts: tuple[str, ...]) -> tuple[str, ...]:
        return prefix[: max(0, 3 - len(parts))] + parts

    return BuiltCatalog(_catalog_of(imported, qualify), tuple(problems))


def _merge(catalogs: Sequence[Catalog]) -> Catalog:
    return merge_catalogs(catalogs) if catalogs else Catalog(tables={})


def _ddl_csv_sources(folder: Path, relative: Path) -> Iterator[tuple[str, str]]:
    path = folder / "DDL.csv"
    if not path.is_file():
        return
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            ddl = row.get("DDL", row.get("ddl")) or ""
            if ddl.strip():
                # One source per row, so a refusal leaves out that table only.
                yield f"{relative}/DDL.csv:{row['table_name']}", ddl


def _columns_json_sources(folder: Path, relative: Path, dialect: str) -> Iterator[tuple[str, str]]:
    """The derived ``<table>.columns.json`` files (tables of DDL.csv files too large to
    keep) as CREATE TABLE text of ``dialect``."""
    for path in sorted(folder.glob("*.columns.json")):
        spec = json.loads(path.read_text())
        name = spec["table_fullname"].split(".")
        columns = [
            exp.ColumnDef(
                this=exp.to_identifier(column, quoted=True),
                kind=_data_type(kind, dialect).copy(),
            )
            for column, kind in zip(spec["column_names"], spec["column_types"], strict=True)
        ]
        yield f"{relative}/{path.name}", _create_table(name, columns, dialect)


@functools.lru_cache(maxsize=4096)
def _data_type(kind: str, dialect: str) -> exp.DataType:
    """``kind`` parsed (shared: copy before use); census tables repeat a few types 80,000
    times."""
    return exp.DataType.build(kind, dialect=SOURCE_DIALECTS[dialect])


def _create_table(name: Sequence[str], columns: list[exp.ColumnDef], dialect: str) -> str:
    *qualifiers, table = name
    catalog, db = [None, None, *qualifiers][-2:]
    target = exp.table_(table, db=db, catalog=catalog, quoted=True)
    create = exp.Create(kind="TABLE", this=exp.Schema(this=target, expressions=columns))
    return create.sql(dialect=SOURCE_DIALECTS[dialect])


# bigquery-etl schema.yaml types (BigQuery's legacy names included) -> Standard SQL names.
BIGQUERY_FIELD_TYPES = {"BOOL": "BOOLEAN", "FLOAT": "FLOAT64", "INTEGER": "INT64"}


def _field_type(field: dict) -> exp.DataType:
    kind = str(field.get("type", "")).upper()
    if kind in ("RECORD", "STRUCT"):
        members = [
            exp.ColumnDef(this=exp.to_identifier(f["name"], quoted=True), kind=_field_type(f))
            for f in field.get("fields") or []
        ]
        data_type = exp.DataType(this=exp.DType.STRUCT, expressions=members, nested=True)
    else:
        data_type = exp.DataType.build(BIGQUERY_FIELD_TYPES.get(kind, kind), dialect="bigquery")
    if str(field.get("mode", "")).upper() == "REPEATED":
        return exp.DataType(this=exp.DType.ARRAY, expressions=[data_type], nested=True)
    return data_type


def _all_fields(fields: list) -> Iterator[object]:
    for f in fields:
        yield f
        if isinstance(f, dict) and isinstance(f.get("fields"), list):
            yield from _all_fields(f["fields"])


class _SchemaLoader(yaml.SafeLoader):
    """bigquery-etl's loader tags (``!include-field-description``) fill in descriptions
    from other files; a column's name, type and mode never depend on them."""


_SchemaLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _bigquery_etl_catalog(source: CatalogSource) -> BuiltCatalog:
    """The tables bigquery-etl's queries write, from their schema.yaml: the only schemas
    the corpus has (the telemetry tables many queries read are not in the repository)."""
    corpus = Path(source.path)
    problems: list[str] = []
    sources: list[tuple[str, str]] = []
    with (corpus / "index.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["schema_file"]]
    for row in rows:
        file = f"bigquery_etl/{row['schema_file']}"
        try:
            text = (corpus / row["schema_file"]).read_text()
            fields = (yaml.load(text, Loader=_SchemaLoader) or {})["fields"]
            if not all(isinstance(f, dict) for f in _all_fields(fields)):
                problems.append(
                    f"{file}: includes fields from files outside the corpus (!include-field)"
                )
                continue
            columns = [
                exp.ColumnDef(this=exp.to_identifier(f["name"], quoted=True), kind=_field_type(f))
                for f in fields
            ]
        except (KeyError, TypeError, ValueError, yaml.YAMLError) as error:
            problems.append(f"{file}: cannot read the schema: {error}")
            continue
        name = (row["project"], row["dataset"], row["table"])
        sources.append((file, _create_table(name, columns, "bigquery")))
    imported = _import(sources, "bigquery", "etl", problems)
    catalog = _catalog_of(imported, lambda parts: parts) if imported else Catalog(tables={})
    return BuiltCatalog(catalog, tuple(problems))


def statement_sources(file: str, text: str, dialect: str) -> list[tuple[str, str]]:
    """``text`` as one import source per statement (``file#n``, the other statements
    blanked so that locations hold): a statement the importer cannot parse (a procedure
    body split at its semicolons) then leaves out only itself, not the file."""
    try:
        spans = statement_spans(text, dialect)
    except Exception:  # sqlglot's TokenError and internal errors: the importer reports them
        return [(file, text)]
    return [(f"{file}#{n}", blank_outside(text, span)) for n, span in enumerate(spans, start=1)]


def _ddl_files_catalog(source: CatalogSource) -> BuiltCatalog:
    problems: list[str] = []
    paths = [Path(p) for p in source.path.split(os.pathsep)]
    sources = [
        part
        for p in paths
        for part in statement_sources(f"{p.parent.name}/{p.name}", p.read_text(), source.dialect)
    ]
    imported = _import(sources, source.dialect, "raw", problems)
    catalog = _catalog_of(imported, lambda parts: parts) if imported else Catalog(tables={})
    return BuiltCatalog(catalog, tuple(problems))


def tpch_ddl(dialect: str) -> str:
    """CREATE TABLE text of ``dialect`` for the TPC-H tables of sql/catalog.yaml (the
    schema the TPC-H queries read), named as the queries name them (``lineitem``)."""
    catalog = load_catalog()
    statements = []
    for lake, columns in catalog.tables.items():
        definitions = []
        for column, kind in columns.items():
            data_type = exp.DataType.build(kind)
            # A T-SQL VARCHAR declared without a length is VARCHAR(1); the lake's is unbounded.
            if (
                dialect == "tsql"
                and data_type.this == exp.DType.VARCHAR
                and not data_type.expressions
            ):
                data_type = exp.DataType.build("VARCHAR(MAX)", dialect="tsql")
            definitions.append(exp.ColumnDef(this=exp.to_identifier(column), kind=data_type))
        statements.append(_create_table([lake.split(".")[1]], definitions, dialect))
    return ";\n".join(statements) + ";\n"


def _tpch_catalog(source: CatalogSource) -> BuiltCatalog:
    problems: list[str] = []
    imported = _import(
        [("sql/catalog.yaml (as DDL)", tpch_ddl(source.dialect))], source.dialect, "raw", problems
    )
    catalog = _catalog_of(imported, lambda parts: parts) if imported else Catalog(tables={})
    return BuiltCatalog(catalog, tuple(problems))
