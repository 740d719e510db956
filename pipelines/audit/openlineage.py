"""An audit bundle as OpenLineage run events, for a lineage server (Marquez, ...) or a file.

One ``COMPLETE`` run event per job of the chain, built from the bundle alone:

================================  ===========================  ================================
job (namespace ``plumbline``)     inputs                       outputs
================================  ===========================  ================================
``translate.<table>``             the legacy SQL file          the stored ANSI translation
``generate.raw.<table>``          none                         the raw lake table
``build.<zone>.<table>``          its parent lake tables       the lake table
``train.<model>``                 the training set table       the registered model version
================================  ===========================  ================================

Dataset names: lake tables ``<zone>.<table>`` in :data:`LAKE_NAMESPACE`; legacy SQL by its
repository path in ``file``; stored translations ``<table>.sql`` in
:data:`ANSI_STORE_NAMESPACE` (the bundle does not record where the store was); model
versions ``models:/<model>/<version>`` in ``mlflow``.

Events are a pure function of the bundle, so exporting it twice gives the same bytes: a
run id is a UUIDv5 of its node's digest, and an event's time is the node's own time where
the bundle has one (a lake version's publish time, the MLflow run's end), else the bundle's
``created_at``. A lake table's ``schema`` facet holds the column types read from its
Parquet files. What the bundle lacks is left out rather than filled in: the ANSI text is
not in the bundle, so there is no ``sql`` facet. A gap of the chain travels with its event as
an ``extractionError`` run facet.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import requests
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    data_quality_assertions_dataset,
    dataset_type_dataset,
    dataset_version_dataset,
    documentation_job,
    extraction_error_run,
    job_type_job,
    output_statistics_output_dataset,
    schema_dataset,
    tags_run,
)
from openlineage.client.serde import Serde
from openlineage.client.transport.http import HttpConfig, HttpTransport

from pipelines.audit.chain import FORMAT, AuditError, Node, topological
from pipelines.lake.files import write_atomic
from pipelines.lake.store import Lake

# plumbline has no public home page to point at; a URN is a URI, which is what the spec asks.
PRODUCER = "urn:plumbline:audit"
JOB_NAMESPACE = "plumbline"
LAKE_NAMESPACE = "plumbline-lake"
FILE_NAMESPACE = "file"
ANSI_STORE_NAMESPACE = "plumbline-ansi"
MODEL_NAMESPACE = "mlflow"
INTEGRATION = "PLUMBLINE"
TAG_SOURCE = "PLUMBLINE_AUDIT"
# Fixed for good: run ids are uuid5(RUN_ID_NAMESPACE, node digest), so a re-export of the
# same chain addresses the same runs on the lineage server.
RUN_ID_NAMESPACE = uuid.UUID("e0c67754-684d-4ff7-80b8-001c67a48732")

TABLE_KINDS = ("table", "raw_table")
# The collector records a table that left the lake as kind "table" whatever its zone.
RAW_ZONE = "raw"
# MLflow run status -> the OpenLineage state its run ended in.
_RUN_STATES = {"FINISHED": RunState.COMPLETE, "FAILED": RunState.FAIL, "KILLED": RunState.ABORT}


class OpenLineageExportError(AuditError):
    """A bundle cannot be turned into events, or the events could not be delivered."""


def bundle_events(bundle: Mapping[str, Any]) -> list[RunEvent]:
    """One run event per job of ``bundle``'s chain (see the module docstring), parents'
    jobs first."""
    if bundle.get("format") != FORMAT:
        raise OpenLineageExportError(
            f"not a plumbline audit bundle: format is {bundle.get('format')!r}, {FORMAT!r} expected"
        )
    return _Exporter(bundle).events()


def emit(events: Iterable[RunEvent], target: str) -> None:
    """Send ``events`` to the OpenLineage server at ``target`` (``http://`` or
    ``https://``, the base URL: events go to ``<target>/api/v1/lineage``), or write them to
    the file ``target`` as JSON Lines, replacing it atomically."""
    if target.startswith(("http://", "https://")):
        _post(events, target)
    else:
        _write_json_lines(events, Path(target))


def _post(events: Iterable[RunEvent], url: str) -> None:
    # The transport, not OpenLineageClient: the client's emit() adds facets from the machine
    # running the export (its git checkout as the job's sourceCodeLocation, its client
    # version as a run tag, configured environment variables) and changes the events in
    # place. An audit export sends the chain's facts only, byte for byte what a file gets.
    transport = HttpTransport(HttpConfig(url=url))
    try:
        for event in events:
            try:
                transport.emit(event)
            except requests.RequestException as exc:
                raise OpenLineageExportError(
                    f"{url}: the lineage server did not take the event of job "
                    f"{event.job.name} (run {event.run.runId}): {exc}"
                ) from exc
    finally:
        transport.close()


def _write_json_lines(events: Iterable[RunEvent], path: Path) -> None:
    text = "".join(Serde.to_json(event) + "\n" for event in events)
    write_atomic(path, text)


class _Exporter:
    def __init__(self, bundle: Mapping[str, Any]) -> None:
        self.bundle = bundle
        self.nodes = topological(Node.from_dict(n) for n in bundle["nodes"])
        self.by_id = {node.id: node for node in self.nodes}
        self.lineage = _column_lineage(self.nodes)

    def events(self) -> list[RunEvent]:
        events = []
        for node in self.nodes:
            if node.kind == "ansi_sql" and node.content.get("written_in") == "translation":
                events.append(self.translate(node))
            elif node.kind in TABLE_KINDS:
                events.append(self.table(node))
            elif node.kind == "mlflow_run":
                events.append(self.train(node))
        return events

    # -- one event per kind of job --------------------------------------------------------
    def translate(self, node: Node) -> RunEvent:
        content = node.content
        # A translation node's content does not name its table; its id does ("ansi:<table>").
        table = node.id.partition(":")[2]
        legacy = next((p for p in self.parents(node) if p.kind == "legacy_sql"), None)
        inputs = []
        problems = [f"{node.id}: {node.gap}"] if node.gap else []
        if legacy is not None:
            inputs.append(
                InputDataset(
                    FILE_NAMESPACE,
                    legacy.content["path"],
                    facets=_dataset_facets(legacy.content.get("sha256"), "FILE"),
                )
            )
            if legacy.gap:
                problems.append(f"{legacy.id}: {legacy.gap}")
        output = OutputDataset(
            ANSI_STORE_NAMESPACE,
            f"{table}.sql",
            facets=_dataset_facets(content.get("stored_sha256"), "FILE"),
        )
        source = legacy.content["path"] if legacy is not None else "legacy SQL"
        dialect = legacy.content.get("dialect") if legacy is not None else None
        description = (
            f"Translate {source} ({dialect or 'unknown dialect'}) to ANSI SQL. "
            f"Rules applied: {', '.join(content.get('rules_applied') or []) or 'none'}. "
            f"Warnings: {'; '.join(content.get('warnings') or []) or 'none'}."
        )
        tags = {
            "dialect": dialect,
            "translator_version": content.get("translator_version"),
            "assumptions": content.get("assumptions"),
            "legacy.git_commit": legacy.content.get("git_commit") if legacy else None,
        }
        return self.event(
            node,
            job=f"translate.{table}",
            job_type="TRANSLATE",
            description=description,
            inputs=inputs,
            outputs=[output],
            tags=tags,
            problems=problems,
            event_time=self.bundle["created_at"],
        )

    def table(self, node: Node) -> RunEvent:
        content = node.content
        zone, table = content["zone"], content["table"]
        manifest = content.get("manifest", {})
        name = f"{zone}.{table}"
        inputs = [self.table_input(p) for p in self.parents(node) if p.kind in TABLE_KINDS]
        problems = [f"{node.id}: {node.gap}"] if node.gap else []

        facets = _dataset_facets(content.get("version"), "TABLE")
        if content.get("columns"):
            facets["schema"] = schema_dataset.SchemaDatasetFacet(
                fields=[
                    schema_dataset.SchemaDatasetFacetFields(name=column, type=kind)
                    for column, kind in content["columns"].items()
                ],
                producer=PRODUCER,
            )
        fields, unmatched = self.column_fields(zone, table, {i.name for i in inputs})
        if fields:
            facets["columnLineage"] = column_lineage_dataset.ColumnLineageDatasetFacet(
                fields=fields, producer=PRODUCER
            )
        problems.extend(
            f"{name}.{column}: source {source} is not an input of this run"
            for column, source in unmatched
        )
        output_facets = {}
        if "row_count" in manifest:
            output_facets["outputStatistics"] = (
                output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                    rowCount=manifest["row_count"],
                    fileCount=len(content["files"]) if "files" in content else None,
                    producer=PRODUCER,
                )
            )
        output = OutputDataset(LAKE_NAMESPACE, name, facets=facets, outputFacets=output_facets)

        ansi = next((p for p in self.parents(node) if p.kind == "ansi_sql"), None)
        tags = {
            "dagster.run_id": content.get("dagster", {}).get("run_id"),
            "lake.files_digest": content.get("files_digest"),
            "ansi.sha256": manifest.get("ansi_sha256"),
            "ansi.path": ansi.content.get("path") if ansi is not None else None,
        }
        if zone == RAW_ZONE:
            verb, how = "generate", manifest.get("generator", "an unrecorded generator")
            tags["generator"] = manifest.get("generator")
            tags["scale_factor"] = manifest.get("scale_factor")
            if "scale_factor" in manifest:
                how += f" at scale factor {manifest['scale_factor']}"
        else:
            verb, how = "build", manifest.get("engine", "an unrecorded engine")
            tags["engine"] = manifest.get("engine")
        return self.event(
            node,
            job=f"{verb}.{name}",
            job_type=verb.upper(),
            description=f"{verb.capitalize()} {zone}/{table} with {how}.",
            inputs=inputs,
            outputs=[output],
            tags=tags,
            problems=problems,
            event_time=_published_at(content.get("version")) or self.bundle["created_at"],
        )

    def train(self, node: Node) -> RunEvent:
        content = node.content
        model, version = self.bundle["subject"]["model"], self.bundle["subject"]["version"]
        inputs = [self.table_input(p) for p in self.parents(node) if p.kind in TABLE_KINDS]
        output = OutputDataset(
            MODEL_NAMESPACE, f"models:/{model}/{version}", facets=_dataset_facets(version, "MODEL")
        )
        run_tags = content.get("tags", {})
        tags = {
            "mlflow.run_id": content.get("run_id"),
            "mlflow.experiment_id": content.get("experiment_id"),
            "mlflow.status": content.get("status"),
            "dagster.run_id": run_tags.get("dagster.run_id"),
            "code.git_sha": run_tags.get("code.git_sha"),
            "code.git_dirty": run_tags.get("code.git_dirty"),
        }
        return self.event(
            node,
            job=f"train.{model}",
            job_type="TRAIN",
            description=(
                f"Train {model} version {version} "
                f"(MLflow run {content.get('run_id', 'not recorded')})."
            ),
            inputs=inputs,
            outputs=[output],
            tags=tags,
            problems=[f"{node.id}: {node.gap}"] if node.gap else [],
            event_time=content.get("end") or content.get("start") or self.bundle["created_at"],
            state=_RUN_STATES.get(content.get("status", "FINISHED"), RunState.COMPLETE),
        )

    # -- shared pieces --------------------------------------------------------------------
    def parents(self, node: Node) -> list[Node]:
        return [self.by_id[parent] for parent in sorted(node.parents)]

    def table_input(self, node: Node) -> InputDataset:
        """A lake table as read by a job, with the verdicts of the blocking checks it passed
        when it was published (``dataQualityAssertions`` is an input facet in the spec)."""
        content = node.content
        checks = content.get("manifest", {}).get("checks", {})
        assertions = [
            data_quality_assertions_dataset.Assertion(
                assertion=check_name,
                success=check["passed"],
                # warehouse.build_table publishes a version only through its blocking checks.
                severity="error",
                params={k: v for k, v in sorted(check.items()) if k != "passed"},
            )
            for check_name, check in sorted(checks.items())
            # A check without a recorded verdict asserts nothing.
            if isinstance(check.get("passed"), bool)
        ]
        input_facets = {}
        if assertions:
            input_facets["dataQualityAssertions"] = (
                data_quality_assertions_dataset.DataQualityAssertionsDatasetFacet(
                    assertions=assertions, producer=PRODUCER
                )
            )
        return InputDataset(
            LAKE_NAMESPACE,
            f"{content['zone']}.{content['table']}",
            facets=_dataset_facets(content.get("version"), "TABLE"),
            inputFacets=input_facets,
        )

    def column_fields(
        self, zone: str, table: str, input_names: set[str]
    ) -> tuple[dict[str, column_lineage_dataset.Fields], list[tuple[str, str]]]:
        """Column lineage of ``zone.table`` from the bundle's traced hops, and the
        (column, source) pairs whose source table is not among ``input_names``."""
        fields: dict[str, column_lineage_dataset.Fields] = {}
        unmatched: list[tuple[str, str]] = []
        for column, hop in sorted(self.lineage.get((zone, table), {}).items()):
            input_fields = []
            for source in hop["from"]:
                source_zone, source_table, source_column = source.split(".", 2)
                dataset = f"{source_zone}.{source_table}"
                if dataset not in input_names:
                    unmatched.append((column, source))
                    continue
                description = hop.get("expression", "").strip().rstrip(",") or None
                if description and hop.get("defined_at"):
                    description = f"{hop['defined_at']}: {description}"
                input_fields.append(
                    column_lineage_dataset.InputField(
                        namespace=LAKE_NAMESPACE,
                        name=dataset,
                        field=source_column,
                        transformations=[
                            # sqlglot's lineage follows the columns of the projection's own
                            # expression, which are direct sources in OpenLineage's terms.
                            column_lineage_dataset.Transformation(
                                type="DIRECT", description=description
                            )
                        ],
                    )
                )
            if input_fields:
                fields[column] = column_lineage_dataset.Fields(inputFields=input_fields)
        return fields, unmatched

    def event(
        self,
        node: Node,
        *,
        job: str,
        job_type: str,
        description: str,
        inputs: list[InputDataset],
        outputs: list[OutputDataset],
        tags: dict[str, Any],
        problems: list[str],
        event_time: str,
        state: RunState = RunState.COMPLETE,
    ) -> RunEvent:
        if not node.digest:
            raise OpenLineageExportError(
                f"{node.id}: the node has no digest; export a sealed bundle (plumbline audit)"
            )
        all_tags = {"plumbline.node": node.id, "plumbline.digest": node.digest, **tags}
        run_facets: dict[str, Any] = {
            "tags": tags_run.TagsRunFacet(
                tags=[
                    tags_run.TagsRunFacetFields(key=key, value=str(value), source=TAG_SOURCE)
                    for key, value in sorted(all_tags.items())
                    if value is not None
                ],
                producer=PRODUCER,
            )
        }
        if problems:
            run_facets["extractionError"] = extraction_error_run.ExtractionErrorRunFacet(
                totalTasks=len(problems),
                failedTasks=len(problems),
                errors=[extraction_error_run.Error(errorMessage=p) for p in problems],
                producer=PRODUCER,
            )
        job_facets: dict[str, Any] = {
            "jobType": job_type_job.JobTypeJobFacet(
                processingType="BATCH",
                integration=INTEGRATION,
                jobType=job_type,
                producer=PRODUCER,
            ),
            "documentation": documentation_job.DocumentationJobFacet(
                description=description, contentType="text/plain", producer=PRODUCER
            ),
        }
        return RunEvent(
            eventType=state,
            eventTime=event_time,
            run=Run(runId=str(uuid.uuid5(RUN_ID_NAMESPACE, node.digest)), facets=run_facets),
            job=Job(namespace=JOB_NAMESPACE, name=job, facets=job_facets),
            inputs=inputs,
            outputs=outputs,
            producer=PRODUCER,
        )


def _dataset_facets(version: str | None, dataset_type: str) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "datasetType": dataset_type_dataset.DatasetTypeDatasetFacet(
            datasetType=dataset_type, producer=PRODUCER
        )
    }
    if version:
        facets["version"] = dataset_version_dataset.DatasetVersionDatasetFacet(
            datasetVersion=version, producer=PRODUCER
        )
    return facets


def _column_lineage(nodes: Iterable[Node]) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """``{(zone, table): {column: hop}}`` for every traced hop that names its sources. A
    column reached from several features is one hop; its sources are merged."""
    found: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for node in nodes:
        if node.kind != "column_lineage":
            continue
        for _feature, hops in sorted(node.content.items()):
            for hop in hops:
                if not hop.get("from"):
                    continue
                table = found.setdefault((hop["zone"], hop["table"]), {})
                known = table.setdefault(hop["column"], {**hop, "from": []})
                known["from"] = sorted(set(known["from"]) | set(hop["from"]))
    return found


def _published_at(version: str | None) -> str | None:
    """When the lake published ``version`` (from its name), as ISO 8601 with offset."""
    published = Lake.published_at(version) if version else None
    return None if published is None else published.isoformat()
