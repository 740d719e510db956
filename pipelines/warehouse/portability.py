"""Portability: the same ANSI SQL on the other engine, over the same inputs, gives the same
columns (names and types, in order) and the same rows.

Pure logic over the lake and two engines; the ``<table>_portable`` asset checks call it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlglot import exp

from pipelines.contracts import TableMasking
from pipelines.lake.store import Lake, TableVersion, parquet_source, table_stats
from pipelines.warehouse.engines.base import Engine, EngineError
from pipelines.warehouse.engines.digest import content_digest
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from pipelines.warehouse.reconcile import reconcile


@dataclass(frozen=True)
class SchemaDifference:
    """One output column that the two engines name or type differently (None: missing)."""

    position: int  # 1-based
    column: str | None
    other_column: str | None
    type: str | None
    other_type: str | None

    def describe(self, engine: str, other: str) -> str:
        if self.column == self.other_column:
            return f"{self.column}: {self.type} on {engine}, {self.other_type} on {other}"
        mine = f"{self.column} {self.type}" if self.column else "nothing"
        theirs = f"{self.other_column} {self.other_type}" if self.other_column else "nothing"
        return f"column {self.position}: {mine} on {engine}, {theirs} on {other}"

    def as_metadata(self, engine: str, other: str) -> dict[str, object]:
        entry: dict[str, object] = {
            "position": self.position,
            "column": self.column,
            f"{engine}_type": self.type,
            f"{other}_type": self.other_type,
        }
        if self.other_column != self.column:
            entry[f"{other}_column"] = self.other_column
        return entry


Schema = list[tuple[str, str]]


def output_schema(path: Path) -> Schema:
    """(column, DuckDB type) of the Parquet table at ``path``, in order: the types the lake's
    readers see."""
    with connect_duckdb() as con:
        relation = con.read_parquet(parquet_source(path))
        return [(c, str(t)) for c, t in zip(relation.columns, relation.types, strict=True)]


def schema_differences(schema: Schema, other: Schema) -> list[SchemaDifference]:
    """The positions where two schemas differ in column name or type."""
    differences = []
    for position in range(max(len(schema), len(other))):
        missing: tuple[str | None, str | None] = (None, None)
        mine = schema[position] if position < len(schema) else missing
        theirs = other[position] if position < len(other) else missing
        if mine != theirs:
            differences.append(
                SchemaDifference(position + 1, mine[0], theirs[0], mine[1], theirs[1])
            )
    return differences


@dataclass(frozen=True)
class Portability:
    passed: bool
    summary: str
    engine: str
    other_engine: str
    digest: str
    other_digest: str
    sampled: bool
    metadata: dict[str, object] = field(default_factory=dict)


def sample_inputs(inputs: Mapping[str, Path], modulus: int, out: Path) -> dict[str, Path]:
    """Keep the rows whose first column hashes to 0 modulo ``modulus``: deterministic, and the
    same rows for both engines because both then read these files."""
    sampled = {}
    with connect_duckdb() as con:
        for key, path in inputs.items():
            relation = con.read_parquet(parquet_source(path))
            first = exp.column(relation.columns[0], quoted=True)
            keep = exp.EQ(
                this=exp.Mod(this=exp.func("hash", first), expression=exp.Literal.number(modulus)),
                expression=exp.Literal.number(0),
            )
            target = out / key
            target.mkdir(parents=True)
            relation.filter(keep.sql("duckdb")).write_parquet(str(target / "part-0.parquet"))
            sampled[key] = target
    return sampled


def check_portability(
    lake: Lake,
    version: TableVersion,
    ansi_sql: str,
    engine: Engine,
    other: Engine,
    *,
    file: str,
    max_input_rows: int,
    sample_modulus: int = 10,
    masking: TableMasking,
) -> Portability:
    """Build ``ansi_sql`` on both engines over the table's own inputs and compare their
    schemas (column names and types, in order) and content digests.

    Inputs larger than ``max_input_rows`` in total are sampled first (same sample for both
    engines), so the check stays affordable at any scale.
    """
    inputs = lake.inputs(version)
    if inputs is None:
        return Portability(
            False,
            "an input was republished since this table was built; rebuild the table first",
            engine.name,
            other.name,
            "",
            "",
            sampled=False,
        )
    total_rows = sum(table_stats(p).row_count for p in inputs.values())
    with tempfile.TemporaryDirectory(prefix="plumbline-portable-") as tmp:
        work = Path(tmp)
        sampled = total_rows > max_input_rows
        if sampled:
            inputs = sample_inputs(inputs, sample_modulus, work / "inputs")
        # Unsampled, the published table is the configured engine's result already.
        outputs = {} if sampled else {engine.name: version.path}
        for candidate in (engine, other):
            if candidate.name in outputs:
                continue
            out = work / candidate.name
            try:
                candidate.build(ansi_sql, inputs, out, file=file)
            except EngineError as exc:
                return Portability(
                    False, str(exc), engine.name, other.name, "", "", sampled=sampled
                )
            outputs[candidate.name] = out
        digest = (
            content_digest(outputs[engine.name]) if sampled else version.manifest["content_digest"]
        )
        other_digest = content_digest(outputs[other.name])
        columns = schema_differences(
            output_schema(outputs[engine.name]), output_schema(outputs[other.name])
        )
        metadata: dict[str, object] = {"input_rows": total_rows, "sampled": sampled}
        problems = []
        if columns:
            described = "; ".join(c.describe(engine.name, other.name) for c in columns)
            problems.append(f"columns differ: {described}")
            metadata["column_differences"] = [
                c.as_metadata(engine.name, other.name) for c in columns
            ]
        if digest != other_digest:
            # Rows and values are shown through the contract's masking: restricted columns
            # appear as tokens (pipelines.contracts.masking).
            diff = reconcile(outputs[other.name], outputs[engine.name]).masked(masking)
            problems.append(diff.summary().removeprefix("not reconciled: "))
            metadata |= {
                "differences": [d.describe() for d in diff.differences],
                f"sample_only_on_{other.name}": diff.sample_only_in_table,
                f"sample_only_on_{engine.name}": diff.sample_only_in_reference,
            }
        if problems:
            summary = f"{other.name} differs from {engine.name}: " + "; ".join(problems)
        else:
            summary = f"{engine.name} and {other.name} return the same columns and rows"
    return Portability(
        not problems,
        summary,
        engine.name,
        other.name,
        digest,
        other_digest,
        sampled=sampled,
        metadata=metadata,
    )
