"""The audit report: one self-contained HTML page that reads an audit bundle to a compliance
reviewer. A model version's bundle reads from the model down to the raw data; a table's (a
project without a model) from the table down, with no model sections.

The page makes no request of any kind (no script, font, image or style from a URL) so that it
opens the same from an e-mail attachment, a USB stick or an archive years later. Pure: the
bundle dict in, HTML out. This module turns the bundle into plain view objects (and lays out
the column-lineage drawings, because SVG can neither wrap text nor flow boxes); the template
``templates/report.html.j2`` only presents them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from pipelines.audit.bundle import Bundle, root_tag
from pipelines.audit.lineage_drawing import lineage_drawings
from sql.assumptions import NAMESPACE_FIELDS

TEMPLATES = Path(__file__).with_name("templates")
TEMPLATE = "report.html.j2"
VERIFY_COMMAND = "plumbline audit --verify"

DIALECT_NAMES = {
    "bigquery": "BigQuery",
    "oracle": "Oracle",
    "redshift": "Redshift",
    "snowflake": "Snowflake",
    "teradata": "Teradata",
    "tsql": "T-SQL (SQL Server)",
}
# What each server-setting assumption of sql/assumptions.yaml means, for a reader of SQL.
ASSUMPTION_NAMES = {
    "snowflake_timestamp_type_mapping": "Snowflake TIMESTAMP_TYPE_MAPPING: the type TIMESTAMP and TO_TIMESTAMP stand for",
    "snowflake_week_start": "Snowflake WEEK_START: 0 = legacy Sunday-based weeks, 1-7 = Monday-Sunday",
    "tsql_datefirst": "SQL Server SET DATEFIRST: first day of the week, 1 = Monday ... 7 = Sunday",
    "date_language": "Session language of month and day names in format strings",
    **{
        name: "Default namespace an unqualified table name resolves in"
        for name in sorted(NAMESPACE_FIELDS)
    },
}
KIND_NAMES = {
    "alias_history": "Alias history",
    "ansi_sql": "SQL",
    "code": "Code version",
    "column_lineage": "Column lineage",
    "legacy_sql": "Legacy SQL file",
    "mlflow_run": "Training run",
    "model_version": "Model version",
    "raw_table": "Raw table",
    "table": "Warehouse table",
}
SPLIT_ORDER = {"train": 0, "validation": 1, "test": 2}
# The numbered sections of the page for each kind of subject, in order.
MODEL_SECTIONS = (
    "model",
    "run",
    "training",
    "warehouse",
    "sql",
    "legacy",
    "raw",
    "lineage",
    "environment",
)
TABLE_SECTIONS = ("warehouse", "sql", "legacy", "raw", "environment")
# (label, model metric, baseline metric): the results a reviewer compares first.
KEY_METRICS = (
    ("AUC on validation data", "val_auc", "baseline_val_auc"),
    ("AUC on test data", "test_auc", "baseline_test_auc"),
    ("Accuracy on validation data", "val_accuracy", None),
    ("Accuracy on test data", "test_accuracy", None),
    ("Log loss on validation data", "val_log_loss", None),
    ("Log loss on test data", "test_log_loss", None),
    ("Training loss", "train_loss", None),
)


# -- view objects (what the template reads) --------------------------------------------------
@dataclass(frozen=True)
class Check:
    name: str
    passed: bool | None
    details: dict[str, Any]


@dataclass(frozen=True)
class TableView:
    id: str
    title: str
    digest: str
    gap: str | None
    zone: str
    table: str
    version: str
    engine: str | None
    row_count: int | None
    files_digest: str | None
    content_digest: str | None
    build_seconds: float | None
    inputs: dict[str, str]
    checks: list[Check]
    dagster_run_id: str | None
    generator: str | None
    scale_factor: float | None
    split: dict[str, int]
    # A raw table read from a project's own source: what it was read from, and the sha256 of
    # each file read (both recorded by the lake's ingest when it published the version).
    source: str | None = None
    source_files: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SqlView:
    id: str
    table: str
    title: str
    digest: str
    gap: str | None
    written_in: str | None
    path: str | None
    git_commit: str | None
    lines: int | None
    uncommitted_changes: bool | None
    sha256: str | None
    built_sha256: str | None
    stored_sha256: str | None
    source_sha256: str | None
    source_matches: bool | None
    translator_version: str | None
    rules: list[tuple[str, str | None]]
    warnings: list[str]
    assumptions: list[tuple[str, str]]
    legacy_dialect: str | None


@dataclass(frozen=True)
class Metric:
    label: str
    name: str
    value: float | None
    baseline: float | None

    @property
    def difference(self) -> float | None:
        if self.value is None or self.baseline is None:
            return None
        return self.value - self.baseline


@dataclass(frozen=True)
class Stage:
    name: str
    count: int
    gaps: int


@dataclass(frozen=True)
class Link:
    title: str
    kind: str
    digest: str
    parents: list[str]
    gap: str | None


# -- reading the bundle ----------------------------------------------------------------------
def _flag(value: Any) -> bool | None:
    """A yes/no field, which some sources record as the text "true" or "false"."""
    if isinstance(value, bool) or value is None:
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    return None


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _chain_order(nodes: dict[str, dict[str, Any]], root: str) -> list[dict[str, Any]]:
    """Nodes breadth-first from the root down through their parents (the order in which a
    reviewer walks the chain), then any node the root does not reach."""
    order, seen, queue = [], set(), deque([root])
    while queue:
        node_id = queue.popleft()
        if node_id in seen or node_id not in nodes:
            continue
        seen.add(node_id)
        order.append(nodes[node_id])
        queue.extend(nodes[node_id].get("parents", []))
    return order + [node for node_id, node in nodes.items() if node_id not in seen]


def _table_view(node: dict[str, Any]) -> TableView:
    content = node.get("content", {})
    manifest = content.get("manifest") or {}
    checks = [
        Check(
            name,
            _flag(result.get("passed")),
            {k: v for k, v in sorted(result.items()) if k != "passed"},
        )
        for name, result in sorted((manifest.get("checks") or {}).items())
    ]
    row_count = manifest.get("row_count")
    split = content.get("split") or {}
    return TableView(
        id=node["id"],
        title=node.get("title", node["id"]),
        digest=node.get("digest", ""),
        gap=node.get("gap"),
        zone=content.get("zone", "?"),
        table=content.get("table", "?"),
        version=content.get("version", "?"),
        engine=manifest.get("engine"),
        row_count=int(row_count) if row_count is not None else None,
        files_digest=content.get("files_digest"),
        content_digest=manifest.get("content_digest"),
        build_seconds=_number(manifest.get("build_seconds")),
        inputs=dict(manifest.get("inputs") or {}),
        checks=checks,
        dagster_run_id=(content.get("dagster") or {}).get("run_id"),
        generator=manifest.get("generator"),
        scale_factor=_number(manifest.get("scale_factor")),
        source=_source_text(manifest.get("source")),
        source_files=dict(sorted((manifest.get("source_files") or {}).items())),
        split=dict(
            sorted(split.items(), key=lambda item: SPLIT_ORDER.get(item[0], len(SPLIT_ORDER)))
        ),
    )


def _source_text(source: Any) -> str | None:
    """A raw source as a reviewer reads it: ``csv files /exports/orders/*.csv``,
    ``postgresql table retail.sales``; None for a generated table."""
    if not isinstance(source, dict):
        return None
    if source.get("kind") == "files":
        return f"{source.get('format') or ''} files {source.get('pattern', '?')}".strip()
    if source.get("kind") == "database":
        return f"{source.get('driver') or 'database'} table {source.get('table', '?')}"
    return None


@cache
def _rule_descriptions() -> dict[str, str]:
    # From the rule catalog installed with this report, not from the bundle (which records
    # only rule ids): the template says so next to them.
    from sql.rules import load_all

    return {rule_id: rule.description for rule_id, rule in load_all().items()}


def _sql_view(node: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> SqlView:
    content = node.get("content", {})
    legacy = next(
        (nodes[p] for p in node.get("parents", []) if nodes.get(p, {}).get("kind") == "legacy_sql"),
        None,
    )
    legacy_content = legacy.get("content", {}) if legacy else {}
    source_sha = content.get("source_sha256")
    descriptions = _rule_descriptions() if content.get("rules_applied") else {}
    assumptions = [
        tuple(part.split("=", 1)) if "=" in part else (part, "")
        for part in str(content.get("assumptions") or "").split(",")
        if part
    ]
    return SqlView(
        id=node["id"],
        table=node["id"].removeprefix("ansi:"),
        title=node.get("title", node["id"]),
        digest=node.get("digest", ""),
        gap=node.get("gap"),
        written_in=content.get("written_in"),
        path=content.get("path"),
        git_commit=content.get("git_commit"),
        lines=content.get("lines"),
        uncommitted_changes=_flag(content.get("uncommitted_changes")),
        sha256=content.get("sha256"),
        built_sha256=content.get("built_sha256"),
        stored_sha256=content.get("stored_sha256"),
        source_sha256=source_sha,
        source_matches=(
            source_sha == legacy_content.get("sha256") if source_sha and legacy else None
        ),
        translator_version=content.get("translator_version"),
        rules=[(rule, descriptions.get(rule)) for rule in content.get("rules_applied", [])],
        warnings=[str(w) for w in content.get("warnings") or []],
        assumptions=assumptions,
        legacy_dialect=legacy_content.get("dialect"),
    )


def _aliases_held(moves: list[dict[str, Any]], version: str) -> list[str]:
    """Aliases pointing at ``version`` after the recorded moves (in time order)."""
    holder: dict[str, str | None] = {}
    for move in sorted(moves, key=lambda m: str(m.get("moved_at"))):
        holder[move.get("alias", "?")] = move.get("to_version")
    return sorted(alias for alias, held in holder.items() if str(held) == str(version))


def _tag_value(value: Any) -> Any:
    """A tag holding a JSON object (``upstream.data_versions``) as a dict, to show as a list."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number:,} {singular if number == 1 else (plural or singular + 's')}"


def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _summary(
    subject: dict[str, Any],
    run: dict[str, Any] | None,
    training: TableView | None,
    warehouse: list[TableView],
    raw: list[TableView],
    sql: list[SqlView],
    legacy: list[dict[str, Any]],
    metrics: list[Metric],
    aliases: list[str],
) -> list[str]:
    """The plain-language paragraph at the top of the page, one sentence per item."""
    model, version = subject.get("model", "?"), subject.get("version", "?")
    sentences = []
    if training is not None and training.row_count is not None:
        split = training.split
        parts = [
            f"{split[name]:,} for {purpose}"
            for name, purpose in (
                ("train", "training"),
                ("validation", "validation"),
                ("test", "testing"),
            )
            if name in split
        ]
        run_id = (run or {}).get("content", {}).get("run_id", "")
        sentences.append(
            f"{model} version {version} was trained"
            + (f" in MLflow run {run_id[:12]}" if run_id else "")
            + f" on {training.row_count:,} rows of the training set"
            + (f" ({', '.join(parts)})" if parts else "")
            + "."
        )
    else:
        sentences.append(
            f"The training data of {model} version {version} could not be established "
            "(see the gaps listed above)."
        )
    if training is not None:
        sentences.append(_built_from("The training set", warehouse, raw))
    if sql:
        sentences.append(_sql_sentence(sql, legacy))
    sentences.append(_checks_sentence([*([training] if training else []), *warehouse, *raw]))
    by_name = {m.name: m for m in metrics}
    test = by_name.get("test_auc")
    if test is not None and test.value is not None:
        sentence = (
            f"On held-out test data it scored an AUC of {test.value:.4f} "
            "(1.0 ranks every late delivery above every on-time one; 0.5 is chance)"
        )
        if test.baseline is not None:
            sentence += (
                f", against {test.baseline:.4f} for the baseline model fitted on the same rows"
            )
        sentences.append(sentence + ".")
    if aliases:
        sentences.append(
            f"When this bundle was made it held the {_names(aliases)} "
            f"alias{'es' if len(aliases) > 1 else ''}."
        )
    return sentences


def _table_summary(
    subject: dict[str, Any],
    table: TableView | None,
    warehouse: list[TableView],
    raw: list[TableView],
    sql: list[SqlView],
    legacy: list[dict[str, Any]],
) -> list[str]:
    """The plain-language paragraph at the top of a table's page: what the table holds, what
    it was built from, its SQL and its checks."""
    if table is None or table.gap is not None or table.row_count is None:
        name, version = subject.get("table", "?"), subject.get("version", "?")
        return [
            f"The table {name} version {version} could not be established (see the gaps "
            "listed above)."
        ]
    built = f"{table.title} version {table.version} holds {table.row_count:,} rows"
    if table.engine:
        built += f", built by {table.engine}"
    if table.dagster_run_id:
        built += f" in Dagster run {table.dagster_run_id[:8]}"
    sentences = [built + ".", _built_from("It", warehouse, raw)]
    if sql:
        sentences.append(_sql_sentence(sql, legacy))
    sentences.append(_checks_sentence([table, *warehouse, *raw]))
    return sentences


def _built_from(what: str, warehouse: list[TableView], raw: list[TableView]) -> str:
    """What ``what`` (a table) was built from: the other warehouse tables, and the raw data."""
    if warehouse:
        built = (
            f"{what} was built from {_count(len(warehouse), 'other warehouse table')}"
            f" ({_names([t.table for t in warehouse])})"
        )
    else:
        built = f"{what} was built directly from raw data"
    if raw:
        generators = sorted({t.generator for t in raw if t.generator})
        scales = sorted({t.scale_factor for t in raw if t.scale_factor is not None})
        built += f"; the data underneath comes from {_count(len(raw), 'raw table')}"
        if generators:
            built += f" generated by {_names(generators)}"
        if scales:
            built += f" at scale {_names([f'{s:g}' for s in scales])}"
    return built + "."


def _sql_sentence(sql: list[SqlView], legacy: list[dict[str, Any]]) -> str:
    """Which tables were translated from legacy SQL (which dialects), and which were written
    in ANSI SQL."""
    translated = [s for s in sql if s.written_in == "translation"]
    native = [s for s in sql if s.written_in == "ansi"]
    dialects = sorted(
        {
            DIALECT_NAMES.get(d, d)
            for d in (n.get("content", {}).get("dialect") for n in legacy)
            if d
        }
    )
    pieces = []
    if translated:
        pieces.append(
            f"{_names([v.table for v in translated])} "
            f"{'was' if len(translated) == 1 else 'were'} translated to ANSI SQL from "
            f"{_count(len(legacy), 'legacy SQL file')}"
            + (f" written for {_names(dialects)}" if dialects else "")
        )
    if native:
        pieces.append(
            f"{_names([v.table for v in native])} "
            f"{'was' if len(native) == 1 else 'were'} written directly in ANSI SQL"
        )
    return "Of the warehouse SQL, " + "; ".join(pieces) + "."


def _checks_sentence(tables: list[TableView]) -> str:
    """Whether every data check recorded on ``tables`` passed, naming those that did not."""
    checks = [(t, c) for t in tables for c in t.checks]
    failed = [
        f"{check.name} on {table.title}" for table, check in checks if check.passed is not True
    ]
    if not checks:
        return "No data check is recorded on these tables."
    if not failed:
        return f"Every data check recorded on these tables passed ({len(checks)} of {len(checks)})."
    return (
        f"{len(checks) - len(failed)} of {len(checks)} data checks passed; "
        f"these did not: {_names(failed)}."
    )


def _attention(
    code: dict[str, Any] | None,
    run: dict[str, Any] | None,
    tables: list[TableView],
    sql: list[SqlView],
    legacy: list[dict[str, Any]],
    sql_section: int,
) -> list[str]:
    """Facts that hold in a complete chain but that a reviewer should still weigh."""
    points = []
    if code is not None and _flag(code.get("content", {}).get("uncommitted_changes")):
        sha = str(code["content"].get("git_sha", "?"))[:12]
        points.append(
            f"The training code (git commit {sha}) had uncommitted changes when the model was "
            "trained: the exact code that ran cannot be recovered from git."
        )
    status = (run or {}).get("content", {}).get("status")
    if status and status != "FINISHED":
        points.append(f"The training run ended with status {status}, not FINISHED.")
    for view in sql:
        if view.warnings:
            points.append(
                f"The translation of {view.table} carries "
                f"{_count(len(view.warnings), 'warning')}: each is an assumption to accept "
                f"(see section {sql_section})."
            )
        if view.uncommitted_changes:
            points.append(f"{view.path} had uncommitted changes when this bundle was made.")
    for node in legacy:
        if _flag(node.get("content", {}).get("uncommitted_changes")):
            points.append(
                f"{node['content'].get('path')} had uncommitted changes when this bundle was made."
            )
    for table in tables:
        for check in table.checks:
            if check.passed is not True:
                points.append(f"The check {check.name} on {table.title} did not pass.")
        if table.dagster_run_id is None and table.gap is None:
            points.append(f"No Dagster run is recorded as having built {table.title}.")
    return points


def _gaps(bundle: dict[str, Any], ordered: list[dict[str, Any]]) -> list[str]:
    """The bundle's list of gaps, and any gap of a node that the list misses: the list is
    derived from the nodes and only ``--verify`` checks it, so an edited file could empty it
    while the nodes keep theirs."""
    gaps = list(bundle.get("gaps", []))
    return gaps + [
        f"{node['id']}: {node['gap']}"
        for node in ordered
        if node.get("gap") and f"{node['id']}: {node['gap']}" not in gaps
    ]


def _cross_checks(run: dict[str, Any] | None, training: TableView | None) -> list[tuple[str, bool]]:
    """Whether what the training run says about its training set is this table version."""
    if run is None or training is None:
        return []
    tags = run.get("content", {}).get("tags", {})
    results = {str(c.details.get("result_digest")) for c in training.checks}
    found = []
    if "training_set.version" in tags:
        found.append(
            (
                "The run's training_set.version tag is this version.",
                tags["training_set.version"] == training.version,
            )
        )
    if "training_set.digest" in tags:
        found.append(
            (
                "The run's training_set.digest tag is this table's content fingerprint.",
                tags["training_set.digest"] == training.content_digest,
            )
        )
    if "training_set.contract_result" in tags:
        found.append(
            (
                "The run's training_set.contract_result tag is this table's contract result.",
                tags["training_set.contract_result"] in results,
            )
        )
    for dataset in run.get("content", {}).get("datasets", []):
        # MLflow keeps a shortened digest of a logged dataset: a prefix of the full one.
        digest = str(dataset.get("digest") or "")
        found.append(
            (
                f"The dataset {dataset.get('name')} logged with the run has this table's "
                "content fingerprint (MLflow keeps its first characters).",
                bool(digest) and str(training.content_digest or "").startswith(digest),
            )
        )
    return found


def report_view(bundle: dict[str, Any]) -> dict[str, Any]:
    """Everything the template shows, derived from ``bundle`` (nothing else is read, except
    the descriptions of translation rules from the installed rule catalog)."""
    nodes = {node["id"]: node for node in bundle.get("nodes", [])}
    ordered = _chain_order(nodes, bundle.get("root", ""))

    def first(kind: str) -> dict[str, Any] | None:
        return next((n for n in ordered if n["kind"] == kind), None)

    def every(kind: str) -> list[dict[str, Any]]:
        return [n for n in ordered if n["kind"] == kind]

    subject = bundle.get("subject", {})
    # A table's bundle names its subject by "table" (see pipelines.audit.bundle).
    of_table = "table" in subject
    sections = {
        name: number
        for number, name in enumerate(TABLE_SECTIONS if of_table else MODEL_SECTIONS, start=1)
    }
    model, run, code = first("model_version"), first("mlflow_run"), first("code")
    training_node = next(
        (
            nodes[p]
            for p in (run or {}).get("parents", [])
            if nodes.get(p, {}).get("kind") == "table"
        ),
        None,
    )
    training = _table_view(training_node) if training_node else None
    warehouse = [_table_view(n) for n in every("table") if n is not training_node]
    raw = [_table_view(n) for n in every("raw_table")]
    legacy = every("legacy_sql")
    sql = [_sql_view(n, nodes) for n in every("ansi_sql")]

    run_content = (run or {}).get("content", {})
    params = run_content.get("params", {})
    metric_values = run_content.get("metrics", {})
    metrics = [
        Metric(
            label,
            name,
            _number(metric_values.get(name)),
            _number(metric_values.get(base)) if base else None,
        )
        for label, name, base in KEY_METRICS
        if name in metric_values
    ]
    shown = {name for _, name, base in KEY_METRICS} | {base for *_, base in KEY_METRICS if base}
    other_metrics = {k: v for k, v in sorted(metric_values.items()) if k not in shown}
    roles = {
        feature.strip(): role
        for key, role in (("categorical_features", "categorical"), ("numeric_features", "numeric"))
        for feature in str(params.get(key, "")).split(",")
        if feature.strip()
    }
    lineage_node = first("column_lineage")
    moves = (first("alias_history") or {}).get("content", {}).get("moves", [])
    aliases = _aliases_held(moves, subject.get("version", ""))
    model_stages = (
        ("Model version", every("model_version"), every("alias_history")),
        ("Training run", every("mlflow_run"), every("code")),
        ("Training set", [training_node] if training_node else [], []),
    )
    stages = [
        Stage(name, len(main), sum(1 for n in [*main, *extra] if n.get("gap")))
        for name, main, extra in (
            *(() if of_table else model_stages),
            ("Warehouse", [n for n in every("table") if n is not training_node], []),
            ("SQL", every("ansi_sql"), []),
            ("Legacy SQL", legacy, []),
            ("Raw data", every("raw_table"), []),
            *(() if of_table else (("Column lineage", every("column_lineage"), []),)),
        )
    ]
    if of_table:
        # The audited table is the root: the first table of the chain, then those it read.
        found = nodes.get(bundle.get("root", ""))
        root = _table_view(found) if found and found.get("kind") == "table" else None
        upstream = [t for t in warehouse if root is None or t.id != root.id]
        summary = _table_summary(subject, root, upstream, raw, sql, legacy)
    else:
        summary = _summary(subject, run, training, warehouse, raw, sql, legacy, metrics, aliases)
    titles = {node_id: node.get("title", node_id) for node_id, node in nodes.items()}
    return {
        "bundle": bundle,
        "subject": subject,
        "gaps": _gaps(bundle, ordered),
        "root_digest": bundle.get("root_digest", ""),
        "summary": summary,
        "attention": _attention(
            code,
            run,
            [*([training] if training else []), *warehouse, *raw],
            sql,
            legacy,
            sections["sql"],
        ),
        "of_table": of_table,
        "sections": sections,
        "subject_name": subject.get("table" if of_table else "model", "?"),
        "stages": stages,
        "model": model,
        "model_tags": {
            k: _tag_value(v)
            for k, v in sorted((model or {}).get("content", {}).get("tags", {}).items())
        },
        "moves": sorted(moves, key=lambda m: str(m.get("moved_at"))),
        "aliases": aliases,
        "run": run,
        "code": code,
        "code_dirty": _flag((code or {}).get("content", {}).get("uncommitted_changes")),
        "metrics": metrics,
        "other_metrics": other_metrics,
        "params": dict(sorted(params.items())),
        "roles": roles,
        "features_by_role": {
            role: [f for f, r in roles.items() if r == role] for role in sorted(set(roles.values()))
        },
        "cross_checks": _cross_checks(run, training),
        "training": training,
        "warehouse": warehouse,
        "sql": sql,
        "legacy": legacy,
        "raw": raw,
        "lineage": lineage_node,
        "drawings": lineage_drawings(
            (lineage_node or {}).get("content", {}), roles, training.table if training else None
        ),
        "environment": bundle.get("environment", {}),
        "auditor": bundle.get("auditor", {}),
        "links": [
            Link(
                n.get("title", n["id"]),
                KIND_NAMES.get(n["kind"], n["kind"]),
                n.get("digest", ""),
                [titles.get(p, p) for p in n.get("parents", [])],
                n.get("gap"),
            )
            for n in ordered
        ],
        "verify_command": VERIFY_COMMAND,
        # A table's root digest has no registry to keep it (pipelines.audit.bundle).
        "audit_tag": root_tag(Bundle(bundle))
        if bundle.get("created_at") and not of_table
        else None,
        "made_by": dict(bundle.get("made_by") or {}),
        "assumption_names": ASSUMPTION_NAMES,
    }


# -- formatting filters ----------------------------------------------------------------------
def short_digest(value: Any) -> str:
    """The first 12 hex characters of a digest, without its ``sha256:`` prefix."""
    if not value:
        return "—"
    return str(value).split(":", 1)[-1][:12]


def _when(value: Any) -> str:
    if not value:
        return "—"
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _thousands(value: Any) -> str:
    number = _number(value)
    if number is None:
        return "—" if value is None else str(value)
    return f"{number:,.0f}" if number == int(number) else f"{number:,}"


def _decimal(value: Any, places: int = 4) -> str:
    number = _number(value)
    if number is None:
        return "—" if value is None else str(value)
    if number != 0 and abs(number) < 10**-places:
        return f"{number:.2e}"
    return f"{number:,.{places}f}"


def _measure(value: Any) -> str:
    """A measurement of any size: counts whole, large values to one decimal."""
    number = _number(value)
    if number is not None and number == int(number):
        return f"{number:,.0f}"
    if number is not None and abs(number) >= 100:
        return f"{number:,.1f}"
    return _decimal(value)


def _dialect(value: Any) -> str:
    return DIALECT_NAMES.get(str(value), str(value)) if value else "—"


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        short_digest=short_digest,
        when=_when,
        thousands=_thousands,
        decimal=_decimal,
        measure=_measure,
        dialect=_dialect,
    )
    return env


def render_report(bundle: dict[str, Any]) -> str:
    """The audit report of ``bundle`` (as written to ``bundle.json``): a self-contained HTML
    page that opens offline and prints on A4."""
    return _environment().get_template(TEMPLATE).render(report_view(bundle))
