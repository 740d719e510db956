"""Which columns ``plumbline query`` masks, and the record of each one it was asked to show.

A published table's columns are masked as everywhere else values leave the data
(``pipelines.contracts.masking``): those the contract that guarded its live version
classifies ``restricted`` or ``confidential``, and every column of a warehouse table that was
published without a contract (no classification anyone reviewed). A raw table has no contract
of its own; its columns are classified by what is derived from them: a raw column that a
classified warehouse column's lineage reaches (as each stored translation recorded it) is
masked with that classification, the strictest where several reach it.

The masking is applied where the query reads, not to its result: each such column is replaced
by its ``masked:<hex>`` token in the view the query reads, so whatever the query computes from
it (an ``upper()``, a join, a ``WHERE c_name = 'a guess'``) works on tokens only.

``--reveal COLUMN`` shows a column in the clear: a ``restricted`` one only when
``PLUMBLINE_ALLOW_REVEAL=1`` is set; each reveal is appended, before the query runs, to the
home's access log (:func:`record_access`), which is only ever appended to.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import getpass
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.contracts.errors import ContractError
from pipelines.contracts.masking import MASKED_CLASSIFICATIONS, Masker
from pipelines.contracts.model import load_contract
from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.raw import RAW_ZONE
from pipelines.lake.store import Lake, LakeError, TableVersion, data_files
from pipelines.translation.store import StoreError, read_stored_manifest

WAREHOUSE_ZONE = "warehouse"
# What a column of a warehouse table published without a contract is: no one classified it,
# so it is masked (as a reconciliation shows it), and may be revealed like a confidential one.
UNCLASSIFIED = "unclassified"
# Strictest first: where several classified columns derive from one raw column.
STRICTNESS = ("restricted", "confidential", UNCLASSIFIED)


class RevealError(ValueError):
    """A ``--reveal`` that is refused; one line."""


@dataclass(frozen=True)
class QueryMasking:
    """What a query may not show in the clear: ``columns`` per ``zone.table``, each with
    its classification, and the masker that makes their tokens."""

    columns: Mapping[str, Mapping[str, str]]
    masker: Masker = field(default_factory=Masker)

    def revealing(
        self, reveal: Iterable[str], tables: Iterable[str], *, allow_restricted: bool
    ) -> tuple[QueryMasking, dict[str, str]]:
        """This masking with the ``reveal`` columns of ``tables`` (those the query reads)
        shown, and what is revealed (``zone.table.column`` -> classification). Each of
        ``reveal`` is a column name (in whichever of ``tables`` masks it) or
        ``zone.table.column``. RevealError for one that none of them masks, or a restricted
        one without ``allow_restricted``."""
        tables = sorted(set(tables))
        revealed: dict[str, str] = {}
        for wanted in reveal:
            table, _, column = wanted.rpartition(".")
            found = [
                (t, column)
                for t in tables
                if (not table or t == table) and column in self.columns.get(t, {})
            ]
            if not found:
                raise RevealError(
                    f"--reveal {wanted}: no column of that name is masked in the tables this "
                    f"query reads ({', '.join(tables) or 'none'})"
                )
            for t, c in found:
                classification = self.columns[t][c]
                if classification == "restricted" and not allow_restricted:
                    raise RevealError(
                        f"--reveal {wanted}: {t}.{c} is classified restricted; set "
                        "PLUMBLINE_ALLOW_REVEAL=1 to show it (each reveal is logged)"
                    )
                revealed[f"{t}.{c}"] = classification
        shown = {
            t: {c: k for c, k in columns.items() if f"{t}.{c}" not in revealed}
            for t, columns in self.columns.items()
        }
        return QueryMasking(shown, self.masker), revealed


def masked_columns(lake: Lake, contracts_root: Path, ansi_root: Path) -> dict[str, dict[str, str]]:
    """Per published ``zone.table``, its columns ``plumbline query`` masks and their
    classification (see the module's docstring)."""
    published = PublishedContracts(contracts_root)
    found: dict[str, dict[str, str]] = {}
    for key in lake.published():
        zone, table = key.split(".", 1)
        try:
            version = lake.current(zone, table)
        except LakeError:
            version = None
        if version is None or zone == RAW_ZONE:
            continue
        classified = _classified(version, published)
        if classified is None:
            classified = (
                dict.fromkeys(_column_names(version), UNCLASSIFIED)
                if zone == WAREHOUSE_ZONE
                else {}
            )
        if classified:
            found[key] = classified
    for key, columns in _derived(found, ansi_root).items():
        if key in lake.published():
            merged = found.setdefault(key, {})
            for column, classification in columns.items():
                merged[column] = _stricter(merged.get(column), classification)
    return found


def _classified(version: TableVersion, published: PublishedContracts) -> dict[str, str] | None:
    """The masked columns of the contract that guarded ``version`` (its contract check's
    version, kept by ``PublishedContracts``), or None when it was published without one or
    that copy cannot be read (then every column is masked: fail closed)."""
    checks = version.manifest.get("checks") or {}
    contract_version = next(
        (c.get("contract_version") for c in checks.values() if c.get("contract_version")), None
    )
    if contract_version is None:
        return None
    copy = Path(published.root) / version.table / f"{contract_version}.yaml"
    try:
        contract = load_contract(copy)
    except (ContractError, OSError):
        return None
    declared = {column.name for column in contract.columns}
    classified = {
        column.name: column.classification
        for column in contract.columns
        if column.classification in MASKED_CLASSIFICATIONS
    }
    # A column the contract does not declare has no classification anyone reviewed.
    undeclared = [c for c in _column_names(version) if c not in declared]
    return {**classified, **dict.fromkeys(undeclared, UNCLASSIFIED)}


def _column_names(version: TableVersion) -> list[str]:
    import pyarrow.parquet as pq

    files = data_files(version.path)
    return list(pq.read_schema(files[0]).names) if files else []


def _derived(
    classified: Mapping[str, Mapping[str, str]], ansi_root: Path
) -> dict[str, dict[str, str]]:
    """The upstream columns (``zone.table`` -> column -> classification) that classified
    warehouse columns are derived from, through every stored translation's column lineage,
    followed upstream through chains of tables."""
    derived: dict[str, dict[str, str]] = {}
    pending = [
        (key, column, kind)
        for key, columns in classified.items()
        for column, kind in columns.items()
        if kind != UNCLASSIFIED
    ]
    lineage: dict[str, dict[str, list[list[str]]]] = {}
    seen: set[tuple[str, str]] = set()
    while pending:
        key, column, kind = pending.pop()
        if (key, column) in seen:
            continue
        seen.add((key, column))
        zone, table = key.split(".", 1)
        if zone != WAREHOUSE_ZONE:
            continue
        if table not in lineage:
            try:
                lineage[table] = read_stored_manifest(ansi_root, table).column_lineage
            except (StoreError, OSError):
                lineage[table] = {}
        for upstream, upstream_column in lineage[table].get(column, []):
            columns = derived.setdefault(upstream, {})
            columns[upstream_column] = _stricter(columns.get(upstream_column), kind)
            pending.append((upstream, upstream_column, kind))
    return derived


def _stricter(one: str | None, other: str) -> str:
    if one is None:
        return other
    return min(one, other, key=lambda k: STRICTNESS.index(k) if k in STRICTNESS else 0)


def record_access(log: Path, sql: str, revealed: Mapping[str, str]) -> None:
    """Append one line to the access log ``log`` (JSON: when, the OS user, the query, the
    columns revealed and their classification), before the query runs: a reveal that cannot
    be recorded does not happen (OSError). Opened for appending only, mode 0600; each record
    is one write."""
    record = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "user": _os_user(),
        "uid": os.getuid(),
        "query": sql,
        "revealed": dict(sorted(revealed.items())),
    }
    log.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _os_user() -> str:
    with contextlib.suppress(KeyError, OSError):
        return getpass.getuser()
    return f"uid {os.getuid()}"
