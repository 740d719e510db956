"""What plumbline reads back from the Dagster instance: a run's own materialization of an
upstream asset (what registration and the audit take when their run made it; a run without
the upstream step is told by its config which one to take, never "the latest"); for the
audit trail,
which run materialized a table version; and which unfinished runs of the home were
abandoned by a process that no longer runs.

The audit (``pipelines.audit``) is plain Python and knows nothing of Dagster: it asks a
:data:`~pipelines.audit.collect.RunFinder` which run materialized a table version. This
module answers from a ``DagsterInstance``, matching the version's content digest against the
``dagster/data_version`` each materialization recorded.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg

from pipelines.audit.collect import RunFinder, Sources
from pipelines.audit.pinned import PinnedFiles
from pipelines.lake.store import Lake
from pipelines.registry.versions import AliasHistory

# The audit bundle's asset (``assets.audit``), whose materializations record each bundle's
# root digest: named here, where the command line reads those digests back.
AUDIT_BUNDLE_KEY = dg.AssetKey(["models", "audit_bundle"])

# Materializations searched per asset, newest first, for a data version whose publish time is
# not known: one materialized more often than this since is reported as a gap (its run is not
# found), never guessed.
SEARCHED_MATERIALIZATIONS = 1000
# Materializations read at a time when searching forward from a version's publish time.
SEARCH_PAGE = 100


def materialization_of_version(
    instance: dg.DagsterInstance, asset_key: dg.AssetKey, data_version: str | None
) -> dg.EventLogEntry | None:
    """The materialization of ``asset_key`` that recorded ``data_version`` (the newest, of
    the last :data:`SEARCHED_MATERIALIZATIONS`), or None."""
    records = instance.fetch_materializations(asset_key, limit=SEARCHED_MATERIALIZATIONS).records
    for record in records:
        materialization = record.asset_materialization
        if materialization is None:
            continue
        if materialization.tags.get("dagster/data_version") == data_version:
            return record.event_log_entry
    return None


def materialization_of_content(
    instance: dg.DagsterInstance, asset_key: dg.AssetKey, content_digest: str
) -> dg.EventLogEntry | None:
    """The newest materialization of the warehouse table ``asset_key`` whose metadata records
    ``content_digest`` (the engine-independent digest a training records of its training
    set; the data version is the exact one), of the last :data:`SEARCHED_MATERIALIZATIONS`,
    or None."""
    shown = f"sha256:{content_digest}"
    records = instance.fetch_materializations(asset_key, limit=SEARCHED_MATERIALIZATIONS).records
    for record in records:
        materialization = record.asset_materialization
        recorded = (
            None if materialization is None else materialization.metadata.get("content_digest")
        )
        if recorded is not None and recorded.value == shown:
            return record.event_log_entry
    return None


def first_materialization_since(
    instance: dg.DagsterInstance,
    asset_key: dg.AssetKey,
    data_version: str | None,
    published: dt.datetime,
) -> dg.EventLogEntry | None:
    """The first materialization of ``asset_key`` that recorded ``data_version`` at or after
    ``published``, or None. Read oldest first from that time on: it is found however many
    materializations came after it (a table skipped as unchanged materializes again, with
    the same data version, on every run)."""
    records_filter = dg.AssetRecordsFilter(
        asset_key=asset_key, after_timestamp=published.timestamp()
    )
    cursor = None
    while True:
        page = instance.fetch_materializations(
            records_filter, limit=SEARCH_PAGE, cursor=cursor, ascending=True
        )
        for record in page.records:
            materialization = record.asset_materialization
            if materialization is not None and (
                materialization.tags.get("dagster/data_version") == data_version
            ):
                return record.event_log_entry
        if not page.has_more:
            return None
        cursor = page.cursor


def run_finder(instance: dg.DagsterInstance) -> RunFinder:
    """The run that materialized the version of ``zone/table`` published at ``published``
    with ``data_version``, or None. A rebuild to the same content publishes a new version
    with the same data version: the first materialization since the version was published is
    the one that published it, and stays so however often the table is rebuilt (the newest
    would move every earlier audit bundle's record). Without a publish time, the newest."""

    def materialized_by(
        zone: str, table: str, data_version: str | None, published: dt.datetime | None
    ) -> str | None:
        key = dg.AssetKey([zone, table])
        if published is None:
            found = materialization_of_version(instance, key, data_version)
        else:
            found = first_materialization_since(instance, key, data_version, published)
        return None if found is None else found.run_id

    return materialized_by


def audit_sources(
    lake: Lake,
    ansi_root: Path,
    client: Any,
    instance: dg.DagsterInstance | None,
    pinned: PinnedFiles | None = None,
) -> Sources:
    """The audit's sources: the lake, the ANSI store, MLflow, the alias history, where the
    issued bundles' SQL files are pinned and, when there is one, the Dagster instance
    (without it each table's run is recorded as a gap)."""
    return Sources(
        lake=lake,
        ansi_root=ansi_root,
        client=client,
        alias_history=AliasHistory.in_lake(lake.root),
        runs=None if instance is None else run_finder(instance),
        pinned=pinned,
    )


def recorded_root_digests(
    instance: dg.DagsterInstance | None, asset_key: dg.AssetKey, run_id: str
) -> list[str]:
    """The root digests ``asset_key``'s materializations in run ``run_id`` recorded."""
    if instance is None:
        return []
    records = instance.fetch_materializations(asset_key, limit=SEARCHED_MATERIALIZATIONS).records
    return [
        str(r.asset_materialization.metadata["root_digest"].value)
        for r in records
        if r.run_id == run_id
        and r.asset_materialization is not None
        and "root_digest" in r.asset_materialization.metadata
    ]


def run_materialization(
    instance: dg.DagsterInstance, run: dg.DagsterRun, asset_key: dg.AssetKey
) -> dg.EventLogEntry | None:
    """The materialization of ``asset_key`` by ``run`` itself or, when ``run`` re-executes
    another (a retry from failure skips the steps that succeeded), by the run it
    re-executes; None if none of them materialized it.

    Never "the latest materialization": of two runs started close together (the schedule
    and the sensor), each reads its own upstream.
    """
    run_id: str | None = run.run_id
    while run_id is not None:
        found = _materialization_by(instance, run_id, asset_key)
        if found is not None:
            return found
        parent = instance.get_run_by_id(run_id)
        run_id = parent.parent_run_id if parent is not None else None
    return None


DATA_VERSION_TAG = "dagster/data_version"


@dataclass(frozen=True)
class PinnedUpstream:
    """The upstream materialization a step reads: its own run's (or the run it re-executes)."""

    event: dg.EventLogEntry

    @property
    def run_id(self) -> str:
        return self.event.run_id

    @property
    def data_version(self) -> str | None:
        materialization = self.event.asset_materialization
        return None if materialization is None else materialization.tags.get(DATA_VERSION_TAG)

    @property
    def metadata(self) -> dict[str, Any]:
        materialization = self.event.asset_materialization
        return {} if materialization is None else dict(materialization.metadata)

    @property
    def how(self) -> str:
        return "materialized by this run"


def planned_by_run(instance: dg.DagsterInstance, run_id: str, asset_key: dg.AssetKey) -> bool:
    """Whether run ``run_id`` set out to materialize ``asset_key`` (its planned events), done
    or not: a run that trained and also registers needs no follow-up run."""
    records = instance.get_records_for_run(
        run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED, limit=1000
    ).records
    return any(record.event_log_entry.dagster_event.asset_key == asset_key for record in records)


def _materialization_by(
    instance: dg.DagsterInstance, run_id: str, asset_key: dg.AssetKey
) -> dg.EventLogEntry | None:
    record = instance.get_run_record_by_id(run_id)
    if record is None:
        return None
    # The public event-log filter selects by asset and time, not by run: read the asset's
    # materializations from the run's creation on and keep the run's own.
    records_filter = dg.AssetRecordsFilter(
        asset_key=asset_key, after_timestamp=record.create_timestamp.timestamp()
    )
    cursor = None
    while True:
        page = instance.fetch_materializations(
            records_filter, limit=100, cursor=cursor, ascending=True
        )
        for event in page.records:
            if event.run_id == run_id:
                return event.event_log_entry
        if not page.has_more:
            return None
        cursor = page.cursor


# Tags of a run `plumbline run` executes in its own process: whether that process still
# lives is then a fact (pid and start time on this host), not a guess from a heartbeat.
HOST_TAG = "plumbline/host"
PID_TAG = "plumbline/pid"
PROCESS_START_TAG = "plumbline/process_start"
UNFINISHED = [
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def process_tags() -> dict[str, str]:
    """The tags that let a later run tell whether this process still runs."""
    import psutil

    return {
        HOST_TAG: socket.gethostname(),
        PID_TAG: str(os.getpid()),
        PROCESS_START_TAG: repr(psutil.Process().create_time()),
    }


def _process_gone(tags: dict[str, str]) -> bool:
    import psutil

    try:
        process = psutil.Process(int(tags[PID_TAG]))
        return repr(process.create_time()) != tags[PROCESS_START_TAG]
    except psutil.NoSuchProcess:
        return True


@dataclass(frozen=True)
class Unfinished:
    abandoned: list[str]  # run ids marked failed: their process on this host is gone
    oldest_live_start: float | None  # when the oldest run that may still run began


def fail_abandoned_runs(instance: dg.DagsterInstance) -> Unfinished:
    """Mark failed every unfinished run whose ``plumbline run`` process on this host is gone
    (killed, or the machine restarted), with a note in its event log saying so. Runs
    started elsewhere (the UI, another host) cannot be judged from here and count as live."""
    abandoned, live_starts = [], []
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED)):
        run, tags = record.dagster_run, record.dagster_run.tags
        ours = PID_TAG in tags and tags.get(HOST_TAG) == socket.gethostname()
        if ours and _process_gone(tags):
            instance.report_run_failed(
                run,
                f"plumbline: run {run.run_id} was abandoned: its process (pid {tags[PID_TAG]}) "
                "ended without finishing it; marked failed by the next `plumbline run`",
            )
            abandoned.append(run.run_id)
        else:
            started = record.start_time or record.create_timestamp.timestamp()
            live_starts.append(started)
    return Unfinished(abandoned, min(live_starts) if live_starts else None)
