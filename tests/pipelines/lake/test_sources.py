"""Raw tables from the user's own sources: files read with DuckDB, and tables of a real
PostgreSQL server (tests/postgres_server.py) read through the ADBC driver."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import traceback
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from psycopg import sql

from pipelines.lake.catalog import LakeImport, import_lake
from pipelines.lake.ingest import (
    catalog_agreement,
    count_values,
    publish_source,
    source_catalog,
    source_schema,
)
from pipelines.lake.sources import (
    DatabaseSource,
    FileSource,
    SourceError,
    SourcesError,
    parse_sources,
    select_all,
)
from pipelines.lake.store import STAGING_PREFIX, Lake, digest_files
from sql.catalog_import import import_ddl
from tests.postgres_server import (
    REQUIRE_SETTING,
    PostgresServer,
    PostgresUnavailable,
    postgres_server,
)

# Distinctive, so that finding it anywhere is certain to be a leak.
PASSWORD = "Pl4mb-s3cret-w0rd"
URL_ENV = "SHOP_DATABASE_URL"

ORDERS = pa.table(
    {
        "o_orderkey": pa.array([1, 2, 3], pa.int64()),
        "o_total": pa.array([Decimal("10.50"), Decimal("7.25"), None], pa.decimal128(15, 2)),
        "o_date": pa.array([dt.date(2024, 1, 2), dt.date(2024, 1, 3), dt.date(2024, 1, 4)]),
    }
)


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    """One server for the file; each test uses tables of its own."""
    try:
        with postgres_server(PASSWORD) as server:
            yield server
    except PostgresUnavailable as unavailable:
        if os.environ.get(REQUIRE_SETTING) == "1":
            pytest.fail(f"{REQUIRE_SETTING}=1 and PostgreSQL cannot start: {unavailable}")
        pytest.skip(f"PostgreSQL cannot start here: {unavailable}")


@pytest.fixture
def environ(postgres: PostgresServer) -> dict[str, str]:
    return {URL_ENV: postgres.url}


@pytest.fixture
def lake(tmp_path: Path) -> Lake:
    return Lake(tmp_path / "lake")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line(error: SourceError, *, names: str) -> str:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"source {names} (")
    return message


def write_orders(folder: Path, parts: int = 2) -> list[Path]:
    """ORDERS split over ``parts`` Parquet files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(parts):
        path = folder / f"part-{index}.parquet"
        pq.write_table(ORDERS.slice(index, 1 if index < parts - 1 else None), path)
        paths.append(path)
    return paths


# -- parse_sources --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"files": "exports/orders/*.parquet"},
            FileSource("t", "/base/exports/orders/*.parquet", "parquet"),
        ),
        ({"files": "exports/orders"}, FileSource("t", "/base/exports/orders", "parquet")),
        ({"files": "exports/c.csv"}, FileSource("t", "/base/exports/c.csv", "csv")),
        ({"files": "exports/c.CSV.gz"}, FileSource("t", "/base/exports/c.CSV.gz", "csv")),
        (
            {"files": "exports/customers", "format": "csv"},
            FileSource("t", "/base/exports/customers", "csv"),
        ),
        ({"files": "/data/x.parquet"}, FileSource("t", "/data/x.parquet", "parquet")),
        ({"files": "../up/x.parquet"}, FileSource("t", "/up/x.parquet", "parquet")),
        (
            {"database": {"url_env": URL_ENV, "table": "public.stores"}},
            DatabaseSource("t", URL_ENV, "public.stores"),
        ),
        (
            {"database": {"url_env": "DB", "table": "stores", "driver": "postgresql"}},
            DatabaseSource("t", "DB", "stores"),
        ),
    ],
)
def test_parse_sources_reads_each_kind(spec: dict, expected: object) -> None:
    assert parse_sources({"t": spec}, Path("/base")) == (expected,)


def test_parse_sources_keeps_the_mapping_order() -> None:
    sources = parse_sources(
        {"zeta": {"files": "z.csv"}, "alpha": {"files": "a.parquet"}}, Path("/b")
    )
    assert [s.name for s in sources] == ["zeta", "alpha"]
    assert [s.lake_table for s in sources] == ["raw.zeta", "raw.alpha"]


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ([], "sources: expected a mapping of table names to sources"),
        ({}, "sources: expected a mapping of table names to sources"),
        ({"Orders": {"files": "o.csv"}}, "sources.Orders: a table name must be a lower-case"),
        ({"1st": {"files": "o.csv"}}, "sources.1st: a table name must be a lower-case"),
        ({"my-table": {"files": "o.csv"}}, "sources.my-table: a table name must be a lower-case"),
        ({"orders": "o.csv"}, "sources.orders: expected a mapping with files: or database:"),
        ({"orders": {}}, "sources.orders: needs exactly one of files or database"),
        (
            {"orders": {"files": "o.csv", "database": {"url_env": "X", "table": "t"}}},
            "sources.orders: needs exactly one of files or database",
        ),
        (
            {"orders": {"files": "o.csv", "colour": "red"}},
            "sources.orders.colour: unknown key; expected one of columns, database, files, format",
        ),
        ({"orders": {"files": ""}}, "sources.orders.files: expected a glob, a folder or a file"),
        ({"orders": {"files": 3}}, "sources.orders.files: expected a glob, a folder or a file"),
        (
            {"orders": {"files": "o", "format": "xlsx"}},
            "sources.orders.format: expected one of parquet, csv",
        ),
        (
            {"s": {"database": {"url_env": "X", "table": "t"}, "format": "csv"}},
            "sources.s.format: only a files source has a format",
        ),
        ({"s": {"database": "postgresql://h/db"}}, "sources.s.database: expected a mapping"),
        ({"s": {"database": {"table": "t"}}}, "sources.s.database.url_env: missing"),
        ({"s": {"database": {"url_env": "X"}}}, "sources.s.database.table: missing"),
        (
            {"s": {"database": {"url_env": "X", "table": "t", "driver": "oracle"}}},
            "sources.s.database.driver: expected one of postgresql",
        ),
        (
            {"s": {"database": {"url_env": "X", "table": "a b"}}},
            "sources.s.database.table: expected schema.table",
        ),
        (
            {"s": {"database": {"url_env": "X", "table": "db.public.t"}}},
            "sources.s.database.table: expected schema.table",
        ),
        (
            {"s": {"database": {"url_env": "X", "table": "t; DROP TABLE t"}}},
            "sources.s.database.table: expected schema.table",
        ),
    ],
)
def test_parse_sources_names_the_field_at_fault(mapping: object, message: str) -> None:
    with pytest.raises(SourcesError) as raised:
        parse_sources(mapping, Path("/base"))
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("database", "field"),
    [
        ({"url_env": f"postgresql://u:{PASSWORD}@h/db", "table": "t"}, "url_env"),
        ({"url_env": "X", "table": "t", "url": f"postgresql://u:{PASSWORD}@h/db"}, "url"),
        ({"url_env": "X", "table": "t", "password": PASSWORD}, "password"),
        ({"url_env": "X", "table": f"postgresql://u:{PASSWORD}@h/db"}, "table"),
    ],
)
def test_a_url_written_into_the_yaml_is_refused_without_showing_it(
    database: dict, field: str
) -> None:
    with pytest.raises(SourcesError) as raised:
        parse_sources({"s": {"database": database}}, Path("/base"))
    assert str(raised.value).startswith(f"sources.s.database.{field}: ")
    assert PASSWORD not in str(raised.value)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: FileSource("orders", "exports/*.parquet", "parquet"), "pattern"),
        (lambda: FileSource("Orders", "/exports/*.parquet", "parquet"), "name"),
        (lambda: FileSource("orders", "/exports/orders.xlsx", "xlsx"), "format"),
        (lambda: DatabaseSource("stores", "postgresql://h/db", "public.stores"), "url_env"),
        (lambda: DatabaseSource("stores", URL_ENV, "public.stores; --"), "table"),
        (lambda: DatabaseSource("stores", URL_ENV, "public.stores", "mysql"), "driver"),
    ],
)
def test_a_source_built_in_code_is_validated_too(make, field: str) -> None:
    with pytest.raises(SourcesError) as raised:
        make()
    assert raised.value.field == field


@pytest.mark.parametrize(
    ("table", "query"),
    [
        ("public.stores", 'SELECT * FROM "public"."stores"'),
        ("Stores", 'SELECT * FROM "stores"'),  # unquoted names fold, as PostgreSQL folds them
        ('public."MixedCase"', 'SELECT * FROM "public"."MixedCase"'),
        ('"my schema"."odd""name"', 'SELECT * FROM "my schema"."odd""name"'),
    ],
)
def test_the_query_is_built_with_quoted_identifiers(table: str, query: str) -> None:
    assert select_all(DatabaseSource("s", URL_ENV, table)) == query


# -- file sources -----------------------------------------------------------------------------


def _parquet_folder(base: Path) -> tuple[str, list[Path]]:
    return "exports/orders", write_orders(base / "exports" / "orders")


def _parquet_glob(base: Path) -> tuple[str, list[Path]]:
    files = write_orders(base / "exports" / "orders", parts=3)
    (base / "exports" / "orders" / "notes.txt").write_text("not data")
    return "exports/orders/*.parquet", files


def _csv_file(base: Path) -> tuple[str, list[Path]]:
    path = base / "exports" / "orders.csv"
    path.parent.mkdir(parents=True)
    path.write_text(
        "o_orderkey,o_total,o_date\n1,10.5,2024-01-02\n2,7.25,2024-01-03\n3,,2024-01-04\n"
    )
    return "exports/orders.csv", [path]


def _csv_folder(base: Path) -> tuple[str, list[Path]]:
    folder = base / "exports" / "orders"
    folder.mkdir(parents=True)
    first, second = folder / "a.csv", folder / "b.csv"
    first.write_text("o_orderkey,o_total,o_date\n1,10.5,2024-01-02\n")
    second.write_text("o_orderkey,o_total,o_date\n2,7.25,2024-01-03\n3,,2024-01-04\n")
    return "exports/orders", [first, second]


# Parquet keeps its types; CSV types are detected (a decimal point reads as DOUBLE).
PARQUET_COLUMNS = [
    ("o_orderkey", pa.int64()),
    ("o_total", pa.decimal128(15, 2)),
    ("o_date", pa.date32()),
]
CSV_COLUMNS = [("o_orderkey", pa.int64()), ("o_total", pa.float64()), ("o_date", pa.date32())]


@pytest.mark.parametrize(
    ("layout", "spec", "columns", "totals"),
    [
        (_parquet_folder, {}, PARQUET_COLUMNS, [Decimal("10.50"), Decimal("7.25"), None]),
        (_parquet_glob, {}, PARQUET_COLUMNS, [Decimal("10.50"), Decimal("7.25"), None]),
        (_csv_file, {}, CSV_COLUMNS, [10.5, 7.25, None]),
        (_csv_folder, {"format": "csv"}, CSV_COLUMNS, [10.5, 7.25, None]),
    ],
    ids=["parquet-folder", "parquet-glob", "csv-file", "csv-folder"],
)
def test_files_become_a_raw_table(
    tmp_path: Path, lake: Lake, layout, spec: dict, columns: list, totals: list
) -> None:
    files_spec, files = layout(tmp_path)
    (source,) = parse_sources({"orders": {"files": files_spec, **spec}}, tmp_path)

    published = publish_source(lake, source)

    assert not published.reused
    assert published.version.path == lake.current("raw", "orders").path
    table = pq.read_table(published.version.path)
    assert [(f.name, f.type) for f in table.schema] == columns
    assert table.column("o_orderkey").to_pylist() == [1, 2, 3]
    assert table.column("o_total").to_pylist() == totals
    assert table.column("o_date").to_pylist() == [dt.date(2024, 1, d) for d in (2, 3, 4)]
    assert published.stats.row_count == 3 == published.version.manifest["row_count"]
    assert published.version.digest == digest_files(published.version.path)
    assert lake.verify(published.version)
    assert published.version.manifest["source"] == {
        "kind": "files",
        "format": source.format,
        "pattern": str(tmp_path / files_spec),
    }
    assert published.version.manifest["source_files"] == {str(f): sha256(f) for f in files}


def test_unchanged_files_keep_the_version_and_a_changed_file_makes_a_new_one(
    tmp_path: Path, lake: Lake
) -> None:
    files = write_orders(tmp_path / "orders")
    source = FileSource("orders", str(tmp_path / "orders" / "*.parquet"), "parquet")
    first = publish_source(lake, source)

    again = publish_source(lake, source)
    assert again.reused
    assert again.version.path == first.version.path
    assert again.version.digest == first.version.digest

    os.utime(files[0])  # a touched file with the same bytes is the same data
    assert publish_source(lake, source).version.path == first.version.path

    pq.write_table(ORDERS.slice(0, 1).set_column(0, "o_orderkey", pa.array([10])), files[0])
    changed = publish_source(lake, source)
    assert not changed.reused
    assert changed.version.digest != first.version.digest
    assert changed.version.manifest["source_files"][str(files[0])] == sha256(files[0])
    assert pq.read_table(changed.version.path).column("o_orderkey").to_pylist() == [10, 2, 3]
    assert lake.current("raw", "orders").path == changed.version.path


def test_a_table_whose_files_were_tampered_with_is_rebuilt(tmp_path: Path, lake: Lake) -> None:
    write_orders(tmp_path / "orders")
    source = FileSource("orders", str(tmp_path / "orders"), "parquet")
    first = publish_source(lake, source)
    (first.version.files[0]).write_bytes(b"tampered")

    rebuilt = publish_source(lake, source)
    assert not rebuilt.reused
    assert rebuilt.version.digest == first.version.digest  # the same data, read again
    assert lake.verify(rebuilt.version)


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ("exports/*.parquet", "no file matches the pattern"),
        ("exports", "the folder has no .parquet file; for CSV files, add format: csv"),
        ("nowhere/orders.parquet", "no such file or folder"),
    ],
)
def test_missing_files_fail_in_one_line_and_keep_the_last_good_version(
    tmp_path: Path, lake: Lake, files: str, problem: str
) -> None:
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "orders.csv").write_text("a\n1\n")
    write_orders(tmp_path / "good")
    good = publish_source(lake, FileSource("orders", str(tmp_path / "good"), "parquet"))
    (source,) = parse_sources({"orders": {"files": files}}, tmp_path)

    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)

    message = assert_one_line(raised.value, names="raw.orders")
    assert message == (
        f"source raw.orders (parquet files {tmp_path / files}): {problem}; "
        f"raw.orders keeps its version {good.version.path.name}"
    )
    assert lake.current("raw", "orders").path == good.version.path
    assert lake.verify(lake.current("raw", "orders"))
    assert list(lake.root.rglob(f"{STAGING_PREFIX}*")) == []


def test_a_first_publish_that_fails_publishes_nothing(tmp_path: Path, lake: Lake) -> None:
    source = FileSource("orders", str(tmp_path / "*.parquet"), "parquet")
    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)
    assert str(raised.value) == (
        f"source raw.orders (parquet files {tmp_path}/*.parquet): no file matches the pattern"
    )
    assert lake.current("raw", "orders") is None
    assert lake.published() == {}
    assert list(lake.root.rglob("*.parquet")) == []


@pytest.mark.parametrize(
    ("second", "difference"),
    [
        (
            ORDERS.set_column(1, "o_total", ORDERS.column("o_total").cast(pa.float64())),
            "column o_total is decimal128(15, 2) in {first}, double in {second}",
        ),
        (ORDERS.drop_columns(["o_date"]), "column o_date is in {first}, not in {second}"),
        (
            ORDERS.append_column("o_note", pa.array(["a", "b", "c"])),
            "column o_note is in {second}, not in {first}",
        ),
    ],
)
def test_files_with_different_schemas_are_refused_naming_both(
    tmp_path: Path, lake: Lake, second: pa.Table, difference: str
) -> None:
    folder = tmp_path / "orders"
    folder.mkdir()
    pq.write_table(ORDERS, folder / "a.parquet")
    pq.write_table(second, folder / "b.parquet")
    source = FileSource("orders", str(folder), "parquet")

    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)

    first_file, second_file = folder / "a.parquet", folder / "b.parquet"
    assert assert_one_line(raised.value, names="raw.orders").endswith(
        f": {first_file} and {second_file} have different schemas: "
        + difference.format(first=first_file, second=second_file)
        + "; a table's files must agree"
    )
    assert lake.current("raw", "orders") is None


def test_csv_files_whose_headers_differ_are_refused(tmp_path: Path, lake: Lake) -> None:
    (tmp_path / "a.csv").write_text("id,name\n1,x\n")
    (tmp_path / "b.csv").write_text("id,label\n2,y\n")
    source = FileSource("people", str(tmp_path / "*.csv"), "csv")
    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)
    assert f"{tmp_path / 'a.csv'} and {tmp_path / 'b.csv'} have different schemas" in str(
        raised.value
    )


def test_an_unreadable_file_is_named(tmp_path: Path, lake: Lake) -> None:
    write_orders(tmp_path / "orders")
    broken = tmp_path / "orders" / "part-9.parquet"
    broken.write_bytes(b"PAR1 this is not a Parquet file")
    with pytest.raises(SourceError) as raised:
        publish_source(lake, FileSource("orders", str(tmp_path / "orders"), "parquet"))
    message = assert_one_line(raised.value, names="raw.orders")
    assert f"): {broken} is not a readable Parquet file: " in message


def test_a_file_a_glob_matches_through_a_link_out_of_the_project_is_not_read(
    tmp_path: Path, lake: Lake
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "sources").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "secret.csv").write_text("id,name\n1,hunter2\n")
    (project / "sources" / "x.csv").symlink_to(elsewhere / "secret.csv")
    (source,) = parse_sources(
        {"people": {"files": "sources/*.csv"}}, project, allowed=(project.resolve(),)
    )
    for call in (lambda: publish_source(lake, source), lambda: source_schema(source)):
        with pytest.raises(SourceError) as raised:
            call()
        assert assert_one_line(raised.value, names="raw.people").endswith(
            f"{project / 'sources' / 'x.csv'} is outside the project folder (it leads to "
            f"{elsewhere / 'secret.csv'}); to read it, list its folder under allowed_paths: "
            "in defs.yaml"
        )
    assert lake.current("raw", "people") is None
    with pytest.raises(
        SourcesError, match=r"^sources\.people\.files: \.\./elsewhere/secret\.csv is"
    ):
        parse_sources({"people": {"files": "../elsewhere/secret.csv"}}, project, allowed=(project,))
    # Allowed: read.
    (allowed,) = parse_sources(
        {"people": {"files": "sources/*.csv"}}, project, allowed=(project, elsewhere)
    )
    assert publish_source(lake, allowed).stats.row_count == 1


# Malformed exports (issue 44): each was published as a table before, one of them as one
# VARCHAR column named "id,name" holding whole lines.
LATE_ROW = "".join(f"{i},n{i}\n" for i in range(1, 30_000)) + "30000,x,EXTRA\n"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (b"id,name\n1,a\n2,b,EXTRA\n3,c\n", 3, "expected 2 fields (as the header has), found 3"),
        (b"id,name\n1,a\n2\n3,c\n", 3, "expected 2 fields (as the header has), found 1"),
        (b'id,name\n1,a\n2,"b\n3,c\n', 3, "a quoted field is never closed (unterminated quote)"),
        (b"id;name\n1;a\n2;b;EXTRA\n", 3, "expected 2 fields (as the header has), found 3"),
        (
            b"id,name\n1,caf\xe9\n",
            2,
            "the bytes are not UTF-8 text (a wrong encoding); export the file as UTF-8",
        ),
        (
            # Beyond the sniffer's sample: found when the rows are read.
            ("id,name\n" + LATE_ROW).encode(),
            30_001,
            "expected 2 fields (as the header has), found 3",
        ),
        (b"", 1, "no header row (an empty file?); a CSV source begins with one"),
        (b"id,id\n1,2\n", 1, "the header names column id more than once"),  # not id_1
    ],
    ids=[
        "extra-field",
        "missing-field",
        "open-quote",
        "semicolons",
        "latin-1",
        "late-row",
        "empty",
        "repeated-column",
    ],
)
def test_a_malformed_csv_is_an_error_naming_the_file_and_line_and_the_last_version_stays(
    tmp_path: Path, lake: Lake, text: bytes, line: int, problem: str
) -> None:
    export = tmp_path / "people.csv"
    export.write_text("id,name\n1,a\n2,b\n")
    source = FileSource("people", str(export), "csv")
    good = publish_source(lake, source)
    export.write_bytes(text)

    calls = [lambda: publish_source(lake, source)]
    if line < 100:  # within the sample a schema is read from
        calls.append(lambda: source_schema(source))
    for call in calls:
        with pytest.raises(SourceError) as raised:
            call()
        message = assert_one_line(raised.value, names="raw.people")
        assert f"{export}:{line}: {problem}" in message, message
    assert lake.current("raw", "people").path == good.version.path
    assert pq.read_table(good.version.path).column_names == ["id", "name"]


def test_csv_fractional_seconds_the_lake_would_cut_are_refused_and_zeros_are_kept(
    tmp_path: Path, lake: Lake
) -> None:
    # DATETIME2(7) as SSMS exports it: DuckDB's reader would keep six digits of seven.
    export = tmp_path / "scans.csv"
    export.write_text("id,at\n1,2024-01-01 12:00:00.1234560\n2,2024-01-01 12:00:00.5\n")
    source = FileSource("scans", str(export), "csv")
    good = publish_source(lake, source)
    assert pq.read_table(good.version.files).column("at").to_pylist() == [
        dt.datetime(2024, 1, 1, 12, 0, 0, 123456),
        dt.datetime(2024, 1, 1, 12, 0, 0, 500000),
    ]
    export.write_text(
        "id,at,t\n1,2024-01-01 12:00:00.1234567,12:00:00\n2,2024-01-01 12:00:00.9999999,"
        "12:00:00\n3,2024-01-01 12:00:00,12:00:00.0000001\n"
    )
    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)
    message = assert_one_line(raised.value, names="raw.scans")
    assert f"{export}: column at: 2 value(s) with fractional seconds past the sixth" in message
    assert "9999999" not in message  # the values are data
    assert lake.current("raw", "scans").path == good.version.path
    # Read as text where the user says so.
    declared = FileSource(
        "scans", str(export), "csv", columns=(("at", "VARCHAR"), ("t", "VARCHAR"))
    )
    texts = pq.read_table(publish_source(lake, declared).version.files).column("at").to_pylist()
    assert texts[0] == "2024-01-01 12:00:00.1234567"


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("123456789012345678.25", 1),  # 20 digits: no DOUBLE holds it
        ("0.30000000000000003", 1),  # 17 digits: read as 0.30000000000000004
        ("1234567890123456.7", 1),  # 17 digits: read as 1234567890123456.8
        ("0.10000000000000001", 1),  # a FLOAT's 17-digit text, or a DECIMAL: unknown
        ("0.30000000000000004", 0),  # a DOUBLE's own text reads back to it
        ("12345678901234.50", 0),  # 15 significant digits, a trailing zero
        ("-1.5e-7", 0),
    ],
)
def test_csv_numbers_a_double_would_change_are_refused(
    tmp_path: Path, lake: Lake, text: str, count: int
) -> None:
    """A number detected as a DOUBLE keeps its value only where the DOUBLE prints back as
    its text; where not, the column must say what it is (its declared type is read)."""
    export = tmp_path / "meters.csv"
    export.write_text(f"id,kwh\n1,{text}\n2,0.5\n")
    source = FileSource("meters", str(export), "csv")
    if not count:
        kwh = pq.read_table(publish_source(lake, source).version.files).column("kwh")
        assert kwh.to_pylist() == [float(text), 0.5]
        return
    with pytest.raises(SourceError) as raised:
        publish_source(lake, source)
    message = assert_one_line(raised.value, names="raw.meters")
    assert f"{export}: column kwh: {count} value(s) with more significant digits than the" in (
        message
    )
    assert text not in message  # the values are data
    declared = FileSource("meters", str(export), "csv", columns=(("kwh", "DECIMAL(20,2)"),))
    if text.endswith(".25"):
        exact = pq.read_table(publish_source(lake, declared).version.files).column("kwh")
        assert exact.to_pylist()[0] == Decimal(text)
    # Declared a DOUBLE (the export of a FLOAT), it is read as one.
    floats = FileSource("meters", str(export), "csv", columns=(("kwh", "DOUBLE"),))
    kwh = pq.read_table(publish_source(lake, floats).version.files).column("kwh")
    assert kwh.to_pylist() == [float(text), 0.5]


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        ("id;name\n1;a;b\n", None),  # refused above; here the sniffed dialect is kept:
        ('id;name\n1;"a;b"\n2;c\n', [(1, "a;b"), (2, "c")]),
        ("id\tname\r\n1\ta\r\n", [(1, "a")]),  # CRLF, which the relation API drops
        ('id,name\n1,5" pipe\n', [(1, '5" pipe')]),  # a quote inside an unquoted field
        ("name\nalice\n", [("alice",)]),  # one column, no delimiter in the header
        ("id,name\n1,a\n#2,b\n", [("1", "a"), ("#2", "b")]),  # not a comment: a row
    ],
    ids=["refused", "semicolons-quoted", "tabs-crlf", "inch-mark", "one-column", "hash-row"],
)
def test_well_formed_csv_dialects_still_read(
    tmp_path: Path, lake: Lake, text: str, rows: list | None
) -> None:
    export = tmp_path / "t.csv"
    export.write_text(text)
    source = FileSource("t", str(export), "csv")
    if rows is None:
        with pytest.raises(SourceError, match=r"t.csv:2: expected 2 fields"):
            publish_source(lake, source)
        return
    published = publish_source(lake, source)
    assert [tuple(r.values()) for r in pq.read_table(published.version.path).to_pylist()] == rows


# -- a PostgreSQL table -------------------------------------------------------------------------

STORES_DDL = """
CREATE TABLE {table} (
    store_id INTEGER NOT NULL,
    revenue NUMERIC(12,2),
    opened DATE,
    audited TIMESTAMP,
    name TEXT,
    visitors BIGINT,
    active BOOLEAN
)
"""
STORES_ROWS = [
    (1, Decimal("1234567890.12"), dt.date(2020, 1, 31), dt.datetime(2024, 5, 6, 7, 8, 9, 123456),
     "Main Street", 9_000_000_000, True),
    (2, Decimal("-0.05"), None, None, None, None, False),
    (3, None, dt.date(1999, 12, 31), dt.datetime(2000, 1, 1), "Ünïcode ☃", -1, None),
]  # fmt: skip
STORES_SCHEMA = [
    ("store_id", pa.int32()),
    ("revenue", pa.decimal128(12, 2)),
    ("opened", pa.date32()),
    ("audited", pa.timestamp("us")),
    ("name", pa.string()),
    ("visitors", pa.int64()),
    ("active", pa.bool_()),
]
STORES_ANSI = {
    "store_id": "INTEGER",
    "revenue": "DECIMAL(12,2)",
    "opened": "DATE",
    "audited": "TIMESTAMP",
    "name": "VARCHAR",
    "visitors": "BIGINT",
    "active": "BOOLEAN",
}


def create_stores(postgres: PostgresServer, table: str, rows=STORES_ROWS) -> None:
    with postgres.connect() as connection:
        connection.execute(sql.SQL(STORES_DDL).format(table=sql.Identifier("public", table)))
        with connection.cursor() as cursor:
            cursor.executemany(
                sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s, %s)").format(
                    sql.Identifier("public", table)
                ),
                rows,
            )


def run_sql(postgres: PostgresServer, statement: str, table: str) -> None:
    with postgres.connect() as connection:
        connection.execute(sql.SQL(statement).format(table=sql.Identifier("public", table)))


def test_a_postgres_table_becomes_a_raw_table_with_exact_values_and_types(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    create_stores(postgres, "stores_exact")
    (source,) = parse_sources(
        {"stores": {"database": {"url_env": URL_ENV, "table": "public.Stores_Exact"}}}, Path("/")
    )

    published = publish_source(lake, source, environ=environ)

    assert not published.reused
    table = pq.read_table(published.version.path)
    assert [(f.name, f.type) for f in table.schema] == STORES_SCHEMA
    assert [tuple(row.values()) for row in table.to_pylist()] == STORES_ROWS
    assert published.stats.row_count == 3
    assert published.version.digest == digest_files(published.version.path)
    assert published.version.manifest["source"] == {
        "kind": "database",
        "driver": "postgresql",
        "table": "public.Stores_Exact",
        "url_env": URL_ENV,
    }
    manifest_text = (published.version.path / "_plumbline.json").read_text()
    assert postgres.url not in manifest_text and PASSWORD not in manifest_text
    # DuckDB, the warehouse's engine, reads the same values back.
    revenue = duckdb.sql(
        "SELECT sum(revenue) FROM read_parquet($path)",
        params={"path": str(published.version.files[0])},
    ).fetchall()
    assert revenue == [(Decimal("1234567890.07"),)]


def test_an_empty_table_is_a_raw_table_with_no_rows(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    create_stores(postgres, "stores_empty", rows=[])
    published = publish_source(
        lake, DatabaseSource("stores", URL_ENV, "public.stores_empty"), environ=environ
    )
    assert published.stats.row_count == 0
    assert [(f.name, f.type) for f in pq.read_schema(published.version.files[0])] == STORES_SCHEMA


def test_url_options_reach_the_server_unchanged(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    """A URL's own query (here a search_path with a space-separated option) is kept as
    written when the connect timeout is added."""
    with postgres.connect() as connection:
        connection.execute("CREATE SCHEMA shop_a")
        connection.execute("CREATE TABLE shop_a.items (id INTEGER)")
        connection.execute("INSERT INTO shop_a.items VALUES (7)")
    url = postgres.url + "?options=-c%20search_path%3Dshop_a&application_name=plumbline"
    published = publish_source(
        lake, DatabaseSource("items", URL_ENV, "items"), environ={URL_ENV: url}
    )
    assert pq.read_table(published.version.path).column("id").to_pylist() == [7]


def test_a_changed_table_is_a_new_version_and_an_unchanged_one_is_reused(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    create_stores(postgres, "stores_changing")
    source = DatabaseSource("stores", URL_ENV, "public.stores_changing")
    first = publish_source(lake, source, environ=environ)

    same = publish_source(lake, source, environ=environ)
    assert same.reused
    assert (same.version.path, same.version.digest) == (first.version.path, first.version.digest)

    run_sql(
        postgres, "UPDATE {table} SET revenue = revenue + 1 WHERE store_id = 1", "stores_changing"
    )
    changed = publish_source(lake, source, environ=environ)
    assert not changed.reused
    assert changed.version.digest != first.version.digest
    revenues = pq.read_table(changed.version.path).column("revenue").to_pylist()
    assert Decimal("1234567891.12") in revenues
    assert lake.current("raw", "stores").path == changed.version.path

    again = publish_source(lake, source, environ=environ)
    assert again.reused and again.version.digest == changed.version.digest


def test_a_dropped_table_fails_in_one_line_and_keeps_the_last_good_version(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    create_stores(postgres, "stores_dropped")
    source = DatabaseSource("stores", URL_ENV, "public.stores_dropped")
    good = publish_source(lake, source, environ=environ)
    run_sql(postgres, "DROP TABLE {table}", "stores_dropped")

    with pytest.raises(SourceError) as raised:
        publish_source(lake, source, environ=environ)

    assert str(raised.value) == (
        f"source raw.stores (postgresql table public.stores_dropped via ${URL_ENV}): the table "
        f"no longer exists; raw.stores keeps its version {good.version.path.name}"
    )
    current = lake.current("raw", "stores")
    assert current.path == good.version.path
    assert lake.verify(current)
    assert list(lake.root.rglob(f"{STAGING_PREFIX}*")) == []  # the failed build left nothing


@pytest.mark.parametrize(
    ("environ", "problem"),
    [
        ({}, f"environment variable {URL_ENV} is not set"),
        ({URL_ENV: ""}, f"environment variable {URL_ENV} is not set"),
        ({URL_ENV: PASSWORD}, f"environment variable {URL_ENV} does not hold a postgresql:// URL"),
        (
            {URL_ENV: f"mysql://u:{PASSWORD}@h/db"},
            f"environment variable {URL_ENV} does not hold a postgresql:// URL",
        ),
    ],
)
def test_a_missing_or_malformed_url_variable_is_named(
    lake: Lake, environ: dict[str, str], problem: str
) -> None:
    source = DatabaseSource("stores", URL_ENV, "public.stores")
    for call in (
        lambda: publish_source(lake, source, environ=environ),
        lambda: source_schema(source, environ),
    ):
        with pytest.raises(SourceError) as raised:
            call()
        assert str(raised.value) == (
            f"source raw.stores (postgresql table public.stores via ${URL_ENV}): {problem}"
        )
    assert lake.current("raw", "stores") is None


def _wrong_password(server: PostgresServer) -> str:
    return server.url.replace(PASSWORD, PASSWORD + "x")


def _closed_port(server: PostgresServer) -> str:
    from tests.postgres_server import free_port

    return server.url.replace(f":{server.port}/", f":{free_port()}/")


def _password_as_database(server: PostgresServer) -> str:
    # libpq repeats the database name in its error: here the name is the password.
    return server.url.rsplit("/", 1)[0] + "/" + PASSWORD


def _password_in_query(server: PostgresServer) -> str:
    return server.url.replace(f":{PASSWORD}@", "@") + f"?password={PASSWORD}x"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        (_wrong_password, "cannot connect to the database: "),
        (_closed_port, "cannot connect to the database: "),
        (_password_as_database, "cannot connect to the database: "),
        (_password_in_query, "cannot connect to the database: "),
    ],
    ids=["wrong-password", "closed-port", "password-as-database", "password-in-query"],
)
def test_no_error_shows_the_password(
    postgres: PostgresServer, lake: Lake, tmp_path: Path, url, problem: str
) -> None:
    environ = {URL_ENV: url(postgres)}
    source = DatabaseSource("stores", URL_ENV, "public.stores")
    for call in (
        lambda: publish_source(lake, source, environ=environ),
        lambda: source_catalog([source], environ),
    ):
        with pytest.raises(SourceError) as raised:
            call()
        error = raised.value
        assert f"${URL_ENV}): {problem}" in assert_one_line(error, names="raw.stores")
        shown = "".join(traceback.format_exception(error)) + repr(error) + repr(error.args)
        assert PASSWORD not in shown
        assert error.__cause__ is None and error.__context__ is None  # no driver error behind it
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or PASSWORD.encode() not in path.read_bytes()


def test_the_driver_message_is_shown_scrubbed(postgres: PostgresServer, lake: Lake) -> None:
    environ = {URL_ENV: _password_as_database(postgres)}
    with pytest.raises(SourceError) as raised:
        publish_source(lake, DatabaseSource("stores", URL_ENV, "public.stores"), environ=environ)
    assert 'database "***" does not exist' in str(raised.value)


# Each reserved character in a password (issue 44): libpq and Python split an unencoded one
# differently, and libpq's errors echoed the pieces (`could not translate host name
# "SignSecret_q4@127.0.0.1"`).
RESERVED = ["@", "/", "?", "#", ":", "%", "[", "&", " "]


def reserved_password(index: int) -> str:
    # Pieces long and odd enough that finding one anywhere is certain to be a leak.
    return f"Pre9Kx{RESERVED[index]}Post7Wq_{index}"


@pytest.fixture(scope="module")
def reserved_roles(postgres: PostgresServer) -> list[tuple[str, str]]:
    """A role per reserved character, its password holding that character, allowed to read
    public.reserved_stores: ``(role, password)``."""
    roles = []
    with postgres.connect() as admin:
        admin.execute(sql.SQL(STORES_DDL).format(table=sql.Identifier("public", "reserved_stores")))
        for index in range(len(RESERVED)):
            role, password = f"reserved_{index}", reserved_password(index)
            admin.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(role), sql.Literal(password)
                )
            )
            admin.execute(
                sql.SQL("GRANT SELECT ON public.reserved_stores TO {}").format(sql.Identifier(role))
            )
            roles.append((role, password))
    return roles


def role_url(postgres: PostgresServer, role: str, password: str) -> str:
    return f"postgresql://{role}:{password}@{postgres.host}:{postgres.port}/{postgres.database}"


def password_pieces(password: str) -> list[str]:
    """What of ``password`` must not appear anywhere: itself, and each piece of three or more
    characters between reserved characters (what libpq echoed)."""
    return [password] + [p for p in re.split(r"[^A-Za-z0-9_]", password) if p]


@pytest.mark.parametrize("index", range(len(RESERVED)), ids=RESERVED)
def test_each_reserved_character_in_a_password_connects_encoded_and_never_shows(
    postgres: PostgresServer, reserved_roles, lake: Lake, index: int
) -> None:
    import urllib.parse

    role, password = reserved_roles[index]
    source = DatabaseSource("stores", URL_ENV, "public.reserved_stores")
    encoded = role_url(postgres, role, urllib.parse.quote(password, safe=""))
    published = publish_source(lake, source, environ={URL_ENV: encoded})
    assert published.stats.row_count == 0
    # As written: libpq reads it the same (then it connects), or it is refused up front with
    # the hint, never handed to libpq to be split elsewhere.
    try:
        publish_source(lake, source, environ={URL_ENV: role_url(postgres, role, password)})
    except SourceError as error:
        message = str(error)
        assert "percent-encode" in message, message
        assert not any(piece in message for piece in password_pieces(password)), message
    else:
        assert RESERVED[index] in (":", "&", " ")


def test_no_piece_of_a_password_reaches_the_console_or_dagster_storage(
    postgres: PostgresServer, reserved_roles, tmp_path: Path, capfd, monkeypatch
) -> None:
    """Every reserved character, as written and percent-encoded with a wrong password: the
    raw assets fail (or read the table), and no piece of any password is on the console, in
    the event log (runs/<id>.db, index.db) or anywhere under the instance and the lake."""
    import urllib.parse

    import dagster as dg

    from assets.sources import source_asset
    from pipelines.resources import LakeResource

    assets = []
    for index, (role, password) in enumerate(reserved_roles):
        wrong = urllib.parse.quote(password + "x", safe="")
        for kind, url in (("written", password), ("wrong", wrong)):
            variable = f"RESERVED_{kind.upper()}_{index}"
            monkeypatch.setenv(variable, role_url(postgres, role, url))
            source = DatabaseSource(f"{kind}_{index}", variable, "public.reserved_stores")
            assets.append(source_asset(source))
    (tmp_path / "dagster").mkdir()
    with dg.DagsterInstance.local_temp(tempdir=str(tmp_path / "dagster")) as instance:
        result = dg.materialize(
            assets,
            resources={"lake": LakeResource(root=str(tmp_path / "lake"))},
            instance=instance,
            raise_on_error=False,
        )
        failures = {
            event.asset_key.path[-1] if event.asset_key else event.step_key: event
            for event in result.all_events
            if event.is_step_failure
        }
    console = capfd.readouterr()
    assert len(failures) >= len(RESERVED)  # every wrong password, and most as written
    stored = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert any(b"percent-encode" in data for data in stored)  # the refusals are in the log
    for _, password in reserved_roles:
        for piece in password_pieces(password):
            assert piece not in console.out and piece not in console.err, piece
            assert not any(piece.encode() in data for data in stored), piece


def test_a_table_that_never_existed(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    source = DatabaseSource("ghost", URL_ENV, "nowhere.ghost")
    for call in (
        lambda: publish_source(lake, source, environ=environ),
        lambda: source_schema(source, environ),
    ):
        with pytest.raises(SourceError) as raised:
            call()
        assert str(raised.value) == (
            f"source raw.ghost (postgresql table nowhere.ghost via ${URL_ENV}): the table does not exist"
        )


def test_a_money_column_is_refused(
    postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    run_sql(postgres, "CREATE TABLE {table} (id INTEGER, price MONEY)", "priced")
    run_sql(postgres, "INSERT INTO {table} VALUES (1, 12.5)", "priced")
    source = DatabaseSource("priced", URL_ENV, "public.priced")
    with pytest.raises(SourceError) as raised:
        publish_source(lake, source, environ=environ)
    assert ": column price has PostgreSQL type money: " in str(raised.value)
    assert lake.current("raw", "priced") is None


# -- catalogs -----------------------------------------------------------------------------------


def test_source_catalog_types_files_and_the_database_as_the_published_lake_reads_them(
    tmp_path: Path, postgres: PostgresServer, environ: dict[str, str], lake: Lake
) -> None:
    create_stores(postgres, "stores_typed")
    run_sql(postgres, "CREATE TABLE {table} (id INTEGER, amount NUMERIC, code UUID)", "loose")
    run_sql(
        postgres,
        "INSERT INTO {table} VALUES (1, 3.14159, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')",
        "loose",
    )
    write_orders(tmp_path / "orders")
    _csv_file(tmp_path)
    sources = parse_sources(
        {
            "orders": {"files": "orders"},
            "orders_csv": {"files": "exports/orders.csv"},
            "stores": {"database": {"url_env": URL_ENV, "table": "public.stores_typed"}},
            "loose": {"database": {"url_env": URL_ENV, "table": "loose"}},
        },
        tmp_path,
    )

    derived = source_catalog(sources, environ)

    numeric = (
        "extension<arrow.opaque[storage_type=string, type_name=numeric, vendor_name=PostgreSQL]>"
    )
    assert derived.tables == {
        "raw.orders": {"o_orderkey": "BIGINT", "o_total": "DECIMAL(15,2)", "o_date": "DATE"},
        "raw.orders_csv": {"o_orderkey": "BIGINT", "o_total": "DOUBLE PRECISION", "o_date": "DATE"},
        "raw.stores": STORES_ANSI,
        "raw.loose": {"id": "INTEGER", "amount": numeric, "code": "extension<arrow.uuid>"},
    }
    assert derived.opaque == {
        "raw.loose": {"amount": numeric, "code": "extension<arrow.uuid>"},
    }
    assert derived.warnings == (
        f"source raw.loose (postgresql table loose via ${URL_ENV}): warning[CATALOG-OPAQUE]: "
        f"column raw.loose.amount has type {numeric} with no exact ANSI form; expressions over "
        "it will be refused",
        f"source raw.loose (postgresql table loose via ${URL_ENV}): warning[CATALOG-OPAQUE]: "
        "column raw.loose.code has type extension<arrow.uuid> with no exact ANSI form; "
        "expressions over it will be refused",
    )
    # What the sources say before anything is read is what the lake holds once published.
    for source in sources:
        publish_source(lake, source, environ=environ)
    from_lake = import_lake(lake.root)
    assert from_lake.tables == derived.tables
    assert from_lake.opaque == derived.opaque
    loose = pq.read_table(lake.current("raw", "loose").path).to_pylist()
    assert loose[0]["amount"] == "3.14159"  # kept exactly, as text


def test_source_schema_of_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"x": pa.array(range(200_000), pa.int32())}), path)
    schema = source_schema(FileSource("big", str(path), "parquet"))
    assert [(f.name, f.type) for f in schema] == [("x", pa.int32())]


ORDERS_DDL = """
CREATE TABLE dbo.orders (
    O_OrderKey BIGINT NOT NULL,
    o_total DECIMAL(15,2),
    o_date DATE,
    o_clerk VARCHAR(15)
);
CREATE TABLE dbo.lineitem (l_orderkey BIGINT);
"""


def catalog_differences(ddl, derived, *, ddl_source, derived_source, ddl_opaque=None):
    return catalog_agreement(
        ddl,
        derived,
        ddl_opaque=ddl_opaque or {},
        ddl_source=ddl_source,
        derived_source=derived_source,
    ).problems


def test_catalog_agreement_names_both_sides() -> None:
    ddl = import_ddl([("ddl/orders.sql", ORDERS_DDL)], "tsql").catalog_tables()
    assert ddl["raw.orders"] == {
        "o_orderkey": "BIGINT",
        "o_total": "DECIMAL(15,2)",
        "o_date": "DATE",
        "o_clerk": "VARCHAR(15)",
    }
    derived = source_catalog_of(
        {
            "raw.orders": {
                "O_ORDERKEY": "BIGINT",  # a CSV header's case: DDL names fold
                "o_date": "TIME",
                "o_total": "VARCHAR",
                "o_note": "VARCHAR",
            },
            "raw.stores": {"store_id": "INTEGER"},
        }
    )
    sides = {"raw.orders": "source raw.orders (exports/orders/*.parquet)"}

    lines = catalog_differences(ddl, derived, ddl_source="ddl/orders.sql", derived_source=sides)

    assert lines == [
        "raw.lineitem: a table in ddl/orders.sql, missing from the sources",
        "raw.orders.o_total: DECIMAL(15,2) in ddl/orders.sql, VARCHAR in source "
        "raw.orders (exports/orders/*.parquet): no lossless reading of one as the other",
        "raw.orders.o_date: DATE in ddl/orders.sql, TIME in source raw.orders "
        "(exports/orders/*.parquet): no lossless reading of one as the other",
        "raw.orders.o_clerk: VARCHAR(15) in ddl/orders.sql, missing from source raw.orders "
        "(exports/orders/*.parquet)",
        "raw.orders.o_note: VARCHAR in source raw.orders (exports/orders/*.parquet), missing "
        "from ddl/orders.sql",
        "raw.orders: columns in another order: o_orderkey, o_total, o_date in ddl/orders.sql, "
        "o_orderkey, o_date, o_total in source raw.orders (exports/orders/*.parquet)",
    ]
    # A source the DDL does not declare is no difference: another dialect's DDL may.
    assert catalog_agreement(
        ddl, derived, ddl_opaque={}, ddl_source="ddl/orders.sql", derived_source=sides
    ).undeclared == ["raw.stores"]


@pytest.mark.parametrize(
    ("ddl_type", "derived_type", "reading"),
    [
        # (cast?, checked on the data?), or None: no lossless reading whatever the data
        ("VARCHAR(15)", "VARCHAR", (False, True)),  # Parquet strings keep no length
        ("CHAR(1)", "VARCHAR", (False, True)),
        ("DECIMAL(12,2)", "DECIMAL(12,2)", (False, False)),
        ("NUMERIC(12,2)", "DECIMAL(12,2)", (False, False)),
        ("DECIMAL(12,2)", "DECIMAL(12,3)", (True, True)),  # extra decimals must be zeros
        ("DECIMAL(12,2)", "DECIMAL(9,1)", (True, False)),  # every value fits
        ("DECIMAL(10,0)", "INTEGER", (True, False)),  # NUMBER(10) exported as INTEGER
        ("DECIMAL(10,0)", "BIGINT", (True, True)),
        ("DECIMAL(10,2)", "DOUBLE PRECISION", (True, True)),
        ("BIGINT", "INTEGER", (True, False)),  # BigQuery INT64 exported as INTEGER
        ("INTEGER", "BIGINT", (True, True)),
        ("TIMESTAMP(0)", "DATE", (True, False)),  # an Oracle DATE exported as DATE
        ("TIMESTAMP(0)", "TIMESTAMP", (False, True)),  # ... as TIMESTAMP: no fractions
        ("TIMESTAMP(3)", "TIMESTAMP", (False, True)),
        ("TIMESTAMP", "TIMESTAMP(3)", (False, False)),
        ("TIMESTAMP(7)", "TIMESTAMP(9)", (False, True)),  # DATETIME2(7) from nanoseconds
        ("DATE", "TIMESTAMP", (True, True)),  # midnights only
        ("TIMESTAMP WITH TIME ZONE", "TIMESTAMP", None),
        ("DATE", "VARCHAR", None),
        ("INTEGER", "DOUBLE PRECISION", None),
    ],
)
def test_each_source_type_reads_the_legacy_type_losslessly_or_not_at_all(
    ddl_type: str, derived_type: str, reading: tuple[bool, bool] | None
) -> None:
    agreement = catalog_agreement(
        {"raw.t": {"c": ddl_type}},
        source_catalog_of({"raw.t": {"c": derived_type}}),
        ddl_opaque={},
        ddl_source="ddl.sql",
        derived_source="the sources",
    )
    if reading is None:
        assert agreement.problems == [
            f"raw.t.c: {ddl_type} in ddl.sql, {derived_type} in the sources: no lossless "
            "reading of one as the other"
        ]
        return
    assert agreement.problems == []
    _, read = agreement.columns["raw.t"]["c"]
    assert (read.cast, read.offending is not None) == reading


def test_an_opaque_source_column_never_matches_and_says_why() -> None:
    derived = source_catalog_of({"raw.t": {"c": "uint32"}}, opaque={"raw.t": {"c": "uint32"}})
    assert catalog_differences(
        {"raw.t": {"c": "INTEGER"}}, derived, ddl_source="ddl.sql", derived_source="sources.yaml"
    ) == ["raw.t.c: INTEGER in ddl.sql, uint32 (no exact ANSI form) in sources.yaml"]


def test_a_case_sensitive_ddl_name_matches_only_itself() -> None:
    derived = source_catalog_of({"raw.t": {"mixedcase": "INTEGER"}})
    assert catalog_differences(
        {"raw.t": {"MixedCase": "INTEGER"}}, derived, ddl_source="ddl.sql", derived_source="src"
    ) == [
        "raw.t.MixedCase: INTEGER in ddl.sql, missing from src",
        "raw.t.mixedcase: INTEGER in src, missing from ddl.sql",
    ]


def test_the_data_decides_each_checked_reading(tmp_path: Path) -> None:
    """The values a legacy type cannot hold are counted in the source's own data: a NUMBER(10)
    exported as BIGINT with one 11-digit value, an Oracle DATE exported as TIMESTAMP with one
    fractional second, a NUMBER(10,2) exported as DOUBLE with one value of three decimals."""
    (tmp_path / "t.csv").write_text(
        "id,at,amount\n1,2024-01-01 10:00:00,10.5\n12345678901,2024-01-02 00:00:00.5,1.234\n3,,\n"
    )
    source = parse_sources({"t": {"files": "t.csv"}}, tmp_path)[0]
    agreement = catalog_agreement(
        {"raw.t": {"id": "DECIMAL(10,0)", "at": "TIMESTAMP(0)", "amount": "DECIMAL(10,2)"}},
        source_catalog([source]),
        ddl_opaque={},
        ddl_source="ddl.sql",
        derived_source="the sources",
    )
    assert agreement.problems == []
    assert count_values(source, agreement.data_checks()["raw.t"]) == {
        "id": 1,
        "at": 1,
        "amount": 1,
    }


def test_nanoseconds_a_seven_digit_legacy_type_cannot_hold_are_counted(tmp_path: Path) -> None:
    # A DATETIME2(7) exported as Parquet nanoseconds: a value with an eighth digit is not one.
    times = [1704110400123456700, 1704110400123456789, None]
    pq.write_table(
        pa.table({"at": pa.array(times, type=pa.timestamp("ns"))}), tmp_path / "t.parquet"
    )
    source = parse_sources({"t": {"files": "t.parquet"}}, tmp_path)[0]
    agreement = catalog_agreement(
        {"raw.t": {"at": "TIMESTAMP(7)"}},
        source_catalog([source]),
        ddl_opaque={},
        ddl_source="ddl.sql",
        derived_source="the sources",
    )
    assert agreement.problems == []
    assert count_values(source, agreement.data_checks()["raw.t"]) == {"at": 1}


def test_a_database_source_is_checked_on_its_rows(postgres: PostgresServer, environ) -> None:
    """BigQuery's INT64 exported as a PostgreSQL bigint, declared INTEGER elsewhere: the one
    visitor count beyond INTEGER's range is counted by streaming the table's rows."""
    from pipelines.lake.catalog import correspondence

    create_stores(postgres, "checked_stores")
    reading = correspondence("INTEGER", "BIGINT")
    assert reading is not None and reading.offending is not None
    source = DatabaseSource("stores", URL_ENV, "public.checked_stores")
    assert count_values(source, {"visitors": reading.offending}, environ) == {"visitors": 1}


def source_catalog_of(tables: dict, opaque: dict | None = None) -> LakeImport:
    """A derived catalog as source_catalog returns it, for tables no source needs to hold."""
    return LakeImport(tables=tables, opaque=opaque or {})


def test_csv_columns_declared_with_ansi_types_are_read_as_those_types(
    tmp_path: Path, lake: Lake
) -> None:
    pattern, _ = _csv_file(tmp_path)
    declared = parse_sources(
        {"orders": {"files": pattern, "columns": {"o_total": "DECIMAL(12,2)"}}}, tmp_path
    )
    [source] = declared
    assert source.columns == (("o_total", "DECIMAL(12,2)"),)
    published = publish_source(lake, source)
    table = pq.read_table(published.version.files)
    assert table.schema.field("o_total").type == pa.decimal128(12, 2)
    assert table.column("o_total").to_pylist() == [Decimal("10.50"), Decimal("7.25"), None]
    assert source_catalog([source]).tables["raw.orders"]["o_total"] == "DECIMAL(12,2)"
    # Declaring another type is another source: the files are read again.
    [detected] = parse_sources({"orders": {"files": pattern}}, tmp_path)
    assert not publish_source(lake, detected).reused


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"files": "x.csv", "columns": {"a": "NOT A TYPE("}}, "sources.orders.columns.a:"),
        ({"files": "x.parquet", "columns": {"a": "INTEGER"}}, "only a CSV source"),
        ({"files": "x.csv", "columns": ["a"]}, "sources.orders.columns: expected a mapping"),
    ],
)
def test_declared_csv_columns_are_checked(tmp_path: Path, spec: dict, message: str) -> None:
    with pytest.raises(SourcesError, match=re.escape(message)):
        parse_sources({"orders": spec}, tmp_path)


def test_a_quoted_empty_csv_field_is_an_empty_string_and_an_unquoted_one_null(
    tmp_path: Path, lake: Lake
) -> None:
    """What a CSV writer that quotes means: "" is a value, nothing between commas is none
    (DuckDB reads both as NULL by default, which lost every '' of an export)."""
    (tmp_path / "kinds.csv").write_text('meter_id,meter_kind\n1,ELEC\n2,""\n3,\n')
    [source] = parse_sources({"kinds": {"files": "kinds.csv"}}, tmp_path)
    table = pq.read_table(publish_source(lake, source).version.files)
    assert table.column("meter_kind").to_pylist() == ["ELEC", "", None]


def test_a_csv_snapshot_reads_empty_strings_as_sources_do(tmp_path: Path) -> None:
    from pipelines.warehouse.reconcile import read_snapshot

    (tmp_path / "out.csv").write_text('k,v\n1,""\n2,\n')
    assert read_snapshot(tmp_path / "out.csv").column("v").to_pylist() == ["", None]
