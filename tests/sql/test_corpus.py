"""The legacy corpus means what its translation means.

Every file under `sql/legacy/<dialect>/` is translated to ANSI, rendered for DuckDB and run on
TPC-H at scale 0.01; its rows must equal those of an independent, hand-written DuckDB query in
`sql/reference/<dialect>/<name>.sql`. The reference encodes what the legacy query means in
its own dialect (integer division, NULL ordering, DATEDIFF boundaries, ADD_MONTHS month ends...),
so a translation that runs but means something else fails here.
"""

import functools
import math
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from sql.render import render
from sql.source_dialects import DIALECTS
from sql.translate import Translation, translate_file

REPO_ROOT = Path(__file__).resolve().parents[2]
LEGACY_ROOT = REPO_ROOT / "sql" / "legacy"
# Kept next to the legacy SQL: the warehouse's <table>_reconciled checks use them too.
REFERENCE_ROOT = Path(__file__).resolve().parents[2] / "sql" / "reference"

LEGACY_FILES = sorted(LEGACY_ROOT.glob("*/*.sql"))
REFERENCE_FILES = sorted(REFERENCE_ROOT.glob("*/*.sql"))
MIN_FILES_PER_DIALECT = 4
# Floats and decimals are compared as floats: engines may sum doubles in a different order,
# and an exact decimal on one side may be a double on the other.
REL_TOLERANCE = 1e-9

Row = tuple[Any, ...]


def _case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _reference_for(legacy: Path) -> Path:
    return REFERENCE_ROOT / legacy.parent.name / legacy.name


@functools.cache
def _translation(legacy: Path) -> Translation:
    # Three tests per file need the translation; translate once (a raise is not cached, so
    # each test still reports the TranslationError itself).
    return translate_file(legacy)


def _normalize(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | Decimal):
        return float(value)
    return value


def _coarse(value: Any) -> tuple[int, Any]:
    """A sort key that puts values within the tolerance next to each other."""
    if value is None:
        return (0, 0)
    if isinstance(value, float):
        return (1, float(f"{value:.6g}"))
    if isinstance(value, date):
        return (2, value.isoformat())
    return (3, str(value))


def _sorted_rows(rows: Sequence[Row]) -> list[Row]:
    normalized = [tuple(_normalize(v) for v in row) for row in rows]
    return sorted(normalized, key=lambda r: [_coarse(v) for v in r])


def _values_match(actual: Any, expected: Any) -> bool:
    if isinstance(actual, float) and isinstance(expected, float):
        return math.isclose(actual, expected, rel_tol=REL_TOLERANCE)
    # type() as well: a datetime equals no date, but a translation that turns a DATE into a
    # TIMESTAMP must fail loudly rather than by accident of Python's comparison rules.
    return type(actual) is type(expected) and actual == expected


def _row_mismatches(actual: Sequence[Row], expected: Sequence[Row]) -> list[str]:
    mismatches = []
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        if len(got) != len(want) or not all(map(_values_match, got, want)):
            mismatches.append(f"row {index}: translated {got!r} != reference {want!r}")
    return mismatches


def _is_ordered(reference_sql: str) -> bool:
    """A reference with a top-level ORDER BY states a meaningful order (a ranked top-N)."""
    tree = sqlglot.parse_one(reference_sql, read="duckdb")
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


def _run(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[Row]]:
    relation = con.sql(query)
    return list(relation.columns), relation.fetchall()


def test_every_dialect_has_enough_legacy_files() -> None:
    counts = {d: len(list((LEGACY_ROOT / d).glob("*.sql"))) for d in DIALECTS}
    short = {d: n for d, n in counts.items() if n < MIN_FILES_PER_DIALECT}
    assert not short, f"dialects with fewer than {MIN_FILES_PER_DIALECT} legacy files: {short}"
    assert {p.parent.name for p in LEGACY_FILES} == set(DIALECTS)


def test_every_legacy_file_opens_with_a_header_comment() -> None:
    # The header says what the report is and who uses it; reviewers of a translation read it.
    bare = [_case_id(p) for p in LEGACY_FILES if not p.read_text().startswith("--")]
    assert not bare, f"legacy files without a leading `--` header comment: {bare}"


def test_every_legacy_file_has_a_reference_and_no_reference_is_orphaned() -> None:
    missing = [_case_id(p) for p in LEGACY_FILES if not _reference_for(p).is_file()]
    orphans = [
        _case_id(r) for r in REFERENCE_FILES if not (LEGACY_ROOT / r.parent.name / r.name).is_file()
    ]
    assert not missing, f"legacy files without a reference query: {missing}"
    assert not orphans, f"reference queries without a legacy file: {orphans}"


@pytest.mark.parametrize("reference", REFERENCE_FILES, ids=_case_id)
def test_reference_query_returns_rows(
    tpch_duckdb: duckdb.DuckDBPyConnection, reference: Path
) -> None:
    # An empty reference would make the row comparison vacuous.
    columns, rows = _run(tpch_duckdb, reference.read_text())
    assert rows, f"{_case_id(reference)} returns no rows on TPC-H"
    assert columns == [c.lower() for c in columns], "reference column names are lower case"
    assert len(set(columns)) == len(columns), f"duplicate output column names: {columns}"


@pytest.mark.parametrize("legacy", LEGACY_FILES, ids=_case_id)
def test_legacy_file_translates(legacy: Path) -> None:
    translation = _translation(legacy)
    assert translation.dialect == legacy.parent.name
    # Corpus convention: each file is named after the table it defines, so the `ansi/<name>`
    # asset and the file agree.
    assert translation.name == legacy.stem
    assert translation.ansi_sql.strip()
    assert all(t.startswith("raw.") for t in translation.source_tables), translation.source_tables


@pytest.mark.parametrize("legacy", LEGACY_FILES, ids=_case_id)
def test_translation_columns_match_reference(
    tpch_duckdb: duckdb.DuckDBPyConnection, legacy: Path
) -> None:
    reference_columns = tpch_duckdb.sql(_reference_for(legacy).read_text()).columns
    assert list(_translation(legacy).columns) == list(reference_columns)


def _raw_schema(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, dict[str, str]]]:
    """The column types of the fixture's raw tables, as the DuckDB engine reads them."""
    tables = [
        row[0]
        for row in con.sql(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'raw'"
        ).fetchall()
    ]
    schema: dict[str, dict[str, str]] = {}
    for table in tables:
        relation = con.sql(f"SELECT * FROM raw.{table}")
        schema[table] = {c: str(t) for c, t in zip(relation.columns, relation.types, strict=True)}
    return {"raw": schema}


@pytest.mark.parametrize("native", [False, True], ids=["portable", "native"])
@pytest.mark.parametrize("legacy", LEGACY_FILES, ids=_case_id)
def test_translation_rows_match_reference(
    tpch_duckdb: duckdb.DuckDBPyConnection, legacy: Path, native: bool
) -> None:
    """Rendered as stored, and with DuckDB's native forms of typed patterns (what the
    warehouse builds run, given the inputs' types): both equal the reference."""
    translation = _translation(legacy)
    schema = _raw_schema(tpch_duckdb) if native else None
    duckdb_sql = render(translation.ansi_sql, "duckdb", file=str(legacy), schema=schema)
    if native:
        portable_sql = render(translation.ansi_sql, "duckdb", file=str(legacy))
        assert tpch_duckdb.sql(duckdb_sql).types == tpch_duckdb.sql(portable_sql).types
    reference_sql = _reference_for(legacy).read_text()

    actual_columns, actual = _run(tpch_duckdb, duckdb_sql)
    expected_columns, expected = _run(tpch_duckdb, reference_sql)

    assert len(actual_columns) == len(expected_columns), (actual_columns, expected_columns)
    assert len(actual) == len(expected), (
        f"translated query returns {len(actual)} rows, reference {len(expected)}\n{duckdb_sql}"
    )
    if _is_ordered(reference_sql):
        actual = [tuple(_normalize(v) for v in row) for row in actual]
        expected = [tuple(_normalize(v) for v in row) for row in expected]
    else:
        actual, expected = _sorted_rows(actual), _sorted_rows(expected)
    mismatches = _row_mismatches(actual, expected)
    assert not mismatches, (
        f"{len(mismatches)} of {len(expected)} rows differ; first ones:\n"
        + "\n".join(mismatches[:5])
        + f"\n--- rendered for DuckDB:\n{duckdb_sql}"
    )
