"""``plumbline contracts lint``: every contract against ODCS, against the SQL that builds its
table, and against the version it was last published under.

The SQL's output types come from DuckDB planning each warehouse query over empty tables of
the lake schema, in dependency order: the exact types a build writes, without any data.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.contracts import (
    ContractError,
    LintError,
    check_version_bump,
    compile_contract,
    lint_contract,
    load_contract,
)
from pipelines.contracts.draft import DRAFT_STATUS
from pipelines.contracts.model import Contract
from pipelines.contracts.registry import PublishedContracts
from pipelines.warehouse.build import WAREHOUSE_ZONE, WarehouseTable, portable_sql
from pipelines.warehouse.engines.base import EngineError, bind_tables, table_name
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb, portable_relation
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.translate import translate_file


@dataclass(frozen=True)
class LintReport:
    errors: list[LintError]
    contracts: int
    tables: int

    @property
    def passed(self) -> bool:
        return not self.errors


class BrokenContracts(Exception):
    """Contracts that do not load, or do not match their table's SQL: the pipeline does
    not start with them. The message has one ``FILE:FIELD: message`` line per problem."""

    def __init__(self, errors: Sequence[LintError]) -> None:
        self.errors = list(errors)
        super().__init__(
            f"{len(self.errors)} broken data contract(s):\n"
            + "\n".join(error.format() for error in self.errors)
        )


def warehouse_sql(table: WarehouseTable, catalog: Catalog | None = None) -> str:
    """The ANSI SQL that builds ``table``, translated afresh for a legacy file (its names
    resolved in ``catalog``; default: ``PLUMBLINE_CATALOG``'s)."""
    if table.ansi_sql is not None:
        return table.ansi_sql
    if table.legacy is not None:
        return translate_file(table.legacy.path, table.legacy.dialect, catalog=catalog).ansi_sql
    assert table.sql_path is not None
    return portable_sql(table.sql_path)


def output_types(
    tables: Sequence[WarehouseTable],
    catalog: Catalog,
    sql_for: Callable[[WarehouseTable], str] | None = None,
) -> tuple[dict[str, dict[str, str]], list[LintError]]:
    """Each table's output columns and DuckDB types, as the engine would write them
    (``sql_for``: each table's SQL; default: :func:`warehouse_sql` in ``catalog``, so that a
    refusal names the catalog searched)."""
    if sql_for is None:
        sql_for = functools.partial(warehouse_sql, catalog=catalog)
    types: dict[str, dict[str, str]] = {}
    errors: list[LintError] = []
    # Planned from their SQL, whatever a catalog declares of them.
    built = {f"{WAREHOUSE_ZONE}.{table.name}" for table in tables}
    with connect_duckdb() as con:
        for qualified in catalog.tables:
            if qualified in built:
                continue
            zone, name = qualified.split(".", 1)
            columns = catalog.lake_columns(qualified)  # as the lake stores them
            body = ", ".join(f'"{column}" {dtype}' for column, dtype in columns.items())
            con.execute(f'CREATE TABLE "{table_name(zone, name)}" ({body})')
        available = set(catalog.tables) - built
        pending = list(tables)
        while pending:
            ready = [t for t in pending if set(t.reads) <= available]
            if not ready:
                for table in pending:
                    missing = ", ".join(sorted(set(table.reads) - available))
                    errors.append(
                        LintError(str(table.source_file), "sql", f"reads {missing}, not built")
                    )
                break
            for table in ready:
                pending.remove(table)
                file = str(table.source_file)
                try:
                    sql = sql_for(table)
                    bound = bind_tables(sql, "duckdb", {k: Path(k) for k in table.reads}, file=file)
                    relation = portable_relation(con.sql(bound).limit(0))
                    relation.create(table_name(WAREHOUSE_ZONE, table.name))
                except (TranslationError, EngineError, duckdb.Error) as exc:
                    first = str(exc).splitlines()[0]
                    errors.append(LintError(file, "sql", f"cannot plan the table's SQL: {first}"))
                    continue
                types[table.name] = {
                    column: str(dtype)
                    for column, dtype in zip(relation.columns, relation.types, strict=True)
                }
                available.add(f"{WAREHOUSE_ZONE}.{table.name}")
    return types, errors


def draft_problem(contract: Contract) -> LintError | None:
    """A contract still marked ``status: draft`` (as ``plumbline contracts init`` writes it)
    has rules nobody has reviewed: what the data showed once, not what the table promises."""
    if (contract.odcs.status or "").strip().lower() != DRAFT_STATUS:
        return None
    return LintError(
        str(contract.path),
        "status",
        "the contract is a draft to review: describe the table and its columns, check each "
        "drafted rule and classification, then set the status to active",
    )


def lint_contracts(
    contracts_root: Path,
    tables: Sequence[WarehouseTable],
    catalog: Catalog,
    *,
    published: PublishedContracts | None = None,
    against: Path | None = None,
    types: Mapping[str, Mapping[str, str]] | None = None,
) -> LintReport:
    """Every problem with the contracts in ``contracts_root``, as ``file:field: message``.

    ``published`` is the registry of contracts tables were published under; ``against``
    a folder of earlier contract files (e.g. a checkout of the main branch). Both are
    baselines for the breaking-change guard.
    """
    errors: list[LintError] = []
    if types is None:
        types, planning = output_types(tables, catalog)
        errors += planning
    by_name = {table.name: table for table in tables}
    files = sorted(Path(contracts_root).glob("*.yaml"))
    for path in files:
        try:
            contract = load_contract(path)
            compile_contract(contract)
        except ContractError as exc:
            errors.append(LintError(exc.file, exc.field, exc.message))
            continue
        if (draft := draft_problem(contract)) is not None:
            errors.append(draft)
        if path.stem not in by_name:
            errors.append(LintError(str(path), "<file>", f"no warehouse table {path.stem!r}"))
            continue
        if contract.table != path.stem:
            errors.append(
                LintError(
                    str(path),
                    "schema[0].name",
                    f"the contract for table {path.stem!r} describes {contract.table!r}",
                )
            )
            continue
        if contract.table in types:
            errors += lint_contract(contract, types[contract.table])
        if published is not None:
            errors += published.problems(contract)
        if against is not None and (Path(against) / path.name).is_file():
            try:
                errors += check_version_bump(load_contract(Path(against) / path.name), contract)
            except ContractError as exc:
                errors.append(LintError(exc.file, exc.field, f"baseline: {exc.message}"))
    covered = {path.stem for path in files}
    for table in tables:
        if table.name not in covered:
            errors.append(
                LintError(
                    str(Path(contracts_root) / f"{table.name}.yaml"),
                    "<file>",
                    f"warehouse table {table.name!r} (built from {table.source_file}) "
                    "has no contract",
                )
            )
    # Contracts of tables that are not built by SQL (e.g. scores/batch_scores, written by a
    # model): held to ODCS and compiled; their asset validates the data before publish.
    other = sorted(Path(contracts_root).glob("*/*.yaml"))
    for path in other:
        try:
            contract = load_contract(path)
            compile_contract(contract)
        except ContractError as exc:
            errors.append(LintError(exc.file, exc.field, exc.message))
            continue
        if (draft := draft_problem(contract)) is not None:
            errors.append(draft)
    return LintReport(errors=errors, contracts=len(files) + len(other), tables=len(tables))
