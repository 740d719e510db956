"""``plumbline run``: execute the asset graph through Dagster with a progress display.

The run goes through ``dg.execute_job`` against the persistent instance in
``$DAGSTER_HOME`` with the job's in-process executor, so it is recorded like a run
launched from the UI. Progress is read back from the instance's event log while the run
executes in a worker thread: step starts, materializations (marked ``reused``,
``unchanged`` or ``skipped: unchanged inputs`` when no new data came of them), check results,
and each training epoch. A translation or table whose step would only find it unchanged gets
no step at all (pipelines.probes): what they read runs first, their probes are asked, and a
second run of the same invocation builds the rest (:func:`run_assets`).

What third-party libraries print (MLflow, Alembic, Great Expectations, torchrun's banners,
Python warnings) goes to the run's log file under ``$PLUMBLINE_HOME/logs``, not the console.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import dagster as dg

from pipelines.cli.location import DEMO_MODULE, CodeLocation
from pipelines.definitions import MATERIALIZE_ALL_JOB
from pipelines.event_log_files import held_event_log
from pipelines.instance import fail_abandoned_runs, process_tags
from pipelines.lake.duckdb_limits import remove_stale_spill
from pipelines.lake.store import Lake
from pipelines.lake.tpch import format_scale
from pipelines.pipes.messages import is_epoch_message
from pipelines.probes import Facts, Probe, Rerun, rerun_probe
from pipelines.settings import Settings
from pipelines.step_usage import PEAK_RSS_KEY
from sql.paths import REPOSITORY_ROOT

INVOCATION_TAG = "plumbline/invocation"
POLL_SECONDS = 0.5
# Dagster's console logger prints every event, failures with stack traces; the progress
# display replaces it (the full logs stay in the run's event log, shown by the UI).
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}

# What an asset sets when it kept existing data instead of producing it (assets/raw.py,
# assets/ansi.py, a training of the same inputs in assets/training.py, a version of the same
# weights in assets/registry.py, an audit bundle that still holds in assets/audit.py): the
# summary says "reused" rather than "materialized".
REUSED_FLAGS = (
    "reused_published_data",
    "reused_stored_translation",
    "reused_training",
    "reused_registered_version",
    "reused_audit_bundle",
)
# What a warehouse table (or the scores) sets when its code version and inputs were those of
# its live version, so that it was neither rebuilt nor re-validated (assets/warehouse.py,
# assets/scoring.py).
SKIPPED_FLAG = "skipped_unchanged_inputs"
SKIPPED = "skipped: unchanged inputs"
# What a blocking check of a skipped table reports: the live version's verdict, not re-run.
RE_RUN = "re_run"
# The training asset, and its config field that trains even when an earlier training of the
# same inputs could be reused (`plumbline run --force`); a warehouse table's that builds it
# even when its live version stands for the same code and inputs.
TRAINING_ASSET = "models/delay_model"
RETRAIN_CONFIG = {"config": {"retrain": True}}
REBUILD_CONFIG = {"config": {"rebuild": True}}
# The zones whose assets take that `rebuild` config: the warehouse tables and the scores.
REBUILT_ZONES = ("warehouse", "scores")
# The statuses of an asset whose step produced its materialization (or, for a legacy
# file, its observation).
DONE = {"materialized", "unchanged", "reused", "observed", SKIPPED}
HOME_PREFIX = "$PLUMBLINE_HOME/"
# The tag a materialization's data version is stored under (Dagster does not export its name).
DATA_VERSION_TAG = "dagster/data_version"


class SelectionError(ValueError):
    """The --select expression is invalid or matches nothing."""


@dataclass
class AssetProgress:
    key: str
    status: str = "not run"
    rows: int | None = None
    started: float | None = None
    seconds: float | None = None
    message: str = ""
    # The peak RSS of its step in MB, as the step measured it (pipelines.step_usage).
    peak_rss_mb: float | None = None


@dataclass
class RunOutcome:
    run_id: str | None  # the last Dagster run of the invocation; None where none was needed
    success: bool
    seconds: float
    assets: dict[str, AssetProgress] = field(default_factory=dict)
    checks: dict[str, bool] = field(default_factory=dict)  # check name -> passed
    # Checks of skipped tables, not run again: they report their live version's verdict.
    not_re_run: set[str] = field(default_factory=set)
    # Checks that failed with WARN severity -> what they found (their description).
    warnings: dict[str, str] = field(default_factory=dict)
    audit_report: str | None = None  # the audit bundle's report.html, when one was written
    audit_root: str | None = None
    log: Path | None = None  # where the run's third-party output went
    demo: bool = True  # this repository's TPC-H demo, not a project of the user's
    # Every Dagster run of the invocation, in order (run_assets: at most two).
    run_ids: list[str] = field(default_factory=list)


def resolve_selection(defs: dg.Definitions, selection: str | None) -> list[dg.AssetKey]:
    graph = defs.resolve_asset_graph()
    if selection is not None and not selection.strip():
        raise SelectionError(
            f"--select {selection!r} is empty; leave --select out to materialize every asset"
        )
    # What a run executes: materializations, and the observations of the legacy files
    # (assets/legacy.py) that the translations record as their inputs' versions.
    executable = graph.materializable_asset_keys | graph.observable_asset_keys
    if selection is None:
        keys = set(executable)
    else:
        try:
            # Dagster's own parser calls a beta parameter internally; that is not ours to warn about.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", dg.BetaWarning)
                keys = dg.AssetSelection.from_string(selection).resolve(graph)
        except Exception as exc:  # Dagster raises several types for a bad expression
            raise SelectionError(
                f"--select {selection!r} is not a valid asset selection: {exc}"
            ) from exc
    keys = {k for k in keys if k in executable}
    if not keys:
        raise SelectionError(f"--select {selection!r} matches no asset")
    return sorted(keys, key=lambda k: k.to_user_string())


def materialized_status(
    metadata: dict[str, dg.MetadataValue], data_version: str | None, previous: str | None
) -> str:
    """``skipped: unchanged inputs`` when the asset's code and inputs were those of its live
    version, so it did no work; ``reused`` when the asset kept data it already had;
    ``unchanged`` when it produced data with the same data version as its previous
    materialization; else ``materialized``."""
    if SKIPPED_FLAG in metadata and metadata[SKIPPED_FLAG].value is True:
        return SKIPPED
    if any(flag in metadata and metadata[flag].value is True for flag in REUSED_FLAGS):
        return "reused"
    if data_version is not None and data_version == previous:
        return "unchanged"
    return "materialized"


def latest_data_versions(
    instance: dg.DagsterInstance, keys: list[dg.AssetKey]
) -> dict[str, str | None]:
    """The data version of each asset's latest materialization on ``instance`` (None for one
    never materialized, or materialized without a data version)."""
    versions: dict[str, str | None] = {key.to_user_string(): None for key in keys}
    # One read of the asset records, not a query per asset.
    for record in instance.get_asset_records(list(keys)):
        entry = record.asset_entry.last_materialization
        materialization = entry.asset_materialization if entry is not None else None
        if materialization is not None:
            tags = materialization.tags or {}
            versions[record.asset_entry.asset_key.to_user_string()] = tags.get(DATA_VERSION_TAG)
    return versions


def force_run_config(defs: dg.Definitions, keys: list[dg.AssetKey]) -> dict[str, object]:
    """The run config of ``plumbline run --force`` over ``keys``: every warehouse table (and
    the scores) among them built and checked again, and the model trained again if it is
    among them."""
    selected = set(keys)
    ops: dict[str, object] = {}
    for assets_def in defs.resolve_asset_graph().assets_defs:
        chosen = [key for key in assets_def.keys if key in selected]
        if any(key.to_user_string() == TRAINING_ASSET for key in chosen):
            ops[assets_def.node_def.name] = RETRAIN_CONFIG
        elif any(key.path[0] in REBUILT_ZONES for key in chosen):
            ops[assets_def.node_def.name] = REBUILD_CONFIG
    return {"ops": ops} if ops else {}


def real_path(shown: str, home: Path) -> str:
    """A path from metadata as a file path: a leading ``$PLUMBLINE_HOME/`` (how metadata
    shows paths, pipelines.settings.shown_path) becomes ``home``; any other path is kept."""
    if shown.startswith(HOME_PREFIX):
        return str(home / shown.removeprefix(HOME_PREFIX))
    return shown


def run_log_path(settings: Settings, started: float) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    return settings.logs_root / f"run-{stamp}-{uuid.uuid4().hex[:8]}.log"


@contextlib.contextmanager
def stderr_to(path: Path) -> Iterator[None]:
    """Point this process's file descriptor 2 at ``path`` (appending) while the block runs.

    Third-party libraries write to stderr from the step processes Dagster starts and from
    the training processes those start (MLflow's and Great Expectations' log handlers, tqdm
    bars, Python warnings): a descriptor is what every child inherits, where a logging
    handler set here would reach this process only. The progress display is on stdout."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(path, "ab", buffering=0) as log:
            os.dup2(log.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


# Dagster mirrors the run's captured stdout and stderr to this process's own with a `tail -F`
# child each (the in-process executor captures once a run, not once a step), and starts a
# Python watcher (its `watch_orphans` script) that kills the tail should this process die
# (dagster._core.execution.compute_logs). With SIGTERM at its default (stoppable_children),
# Dagster's own cleanup stops them; what is left here is a safety net.
MIRROR_COMMAND = ("tail", "-F")
MIRROR_WATCHER = "watch_orphans.py"


def stoppable_children() -> None:
    """Let the processes this run starts be stopped: a SIGTERM this process inherited as
    ignored (from a parent that ignores it: some test runners, some supervisors) goes back
    to its default, which its children then inherit. Dagster stops its log mirrors with
    SIGTERM and waits up to 30 s for each to exit: with SIGTERM ignored, every run waited
    about a minute more (83 s against 15 s for a rerun of the demo) and the mirrors lived
    on. Only an *ignored* SIGTERM is changed (a handler is never inherited by a child), and
    only from the main thread, where Python can set it."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    ):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def stop_leftover_log_mirrors(timeout: float = 5.0) -> list[int]:
    """Stop the log mirrors a finished run left running; the pids stopped.

    A step's mirror is stopped when the step's capture ends, but a tail that outlives it
    keeps this process's stdout and stderr open after this process exits: whoever reads
    ``plumbline run`` through a pipe (a test, ``| tee``, a CI log) then waits for an end of
    file that never comes. Once the run is over no step captures anything, so every tail
    still running among this process's children is a leftover."""
    import psutil

    leftovers = []
    for child in psutil.Process().children(recursive=True):
        try:
            command = child.cmdline()
        except psutil.Error:
            continue
        if tuple(command[:2]) == MIRROR_COMMAND or (
            len(command) > 1 and command[1].endswith(MIRROR_WATCHER)
        ):
            leftovers.append(child)
    for child in leftovers:
        with contextlib.suppress(psutil.Error):
            child.terminate()
    _, alive = psutil.wait_procs(leftovers, timeout=timeout)
    for child in alive:
        with contextlib.suppress(psutil.Error):
            child.kill()
    return [child.pid for child in leftovers]


# How Dagster's error info begins the message of a dg.Failure an asset raised: the class's
# path, which says nothing to the user ("dagster._core.definitions.events.Failure: ...").
_FAILURE_CLASS = re.compile(r"^[A-Za-z_][\w.]*\.Failure: ")


def _innermost_message(error: object) -> str:
    """The first line of the innermost error's message; of an asset's dg.Failure, its
    description alone (the asset's own words, naming the file or source)."""
    while getattr(error, "cause", None) is not None:
        error = error.cause  # type: ignore[attr-defined]
    message = str(getattr(error, "message", error)).strip().splitlines()[0]
    return _FAILURE_CLASS.sub("", message)


class _Tracker:
    def __init__(
        self,
        defs: dg.Definitions,
        keys: list[dg.AssetKey],
        echo: Callable[[str], None],
        *,
        home: Path,
        previous: dict[str, str | None] | None = None,
        log: TextIO | None = None,
    ):
        self.echo = echo
        self.home = home
        self.previous = previous or {}
        self.log = log
        self.assets = {k.to_user_string(): AssetProgress(k.to_user_string()) for k in keys}
        self.step_keys: dict[str, list[str]] = {}
        self.checks: dict[str, bool] = {}
        self.warnings: dict[str, str] = {}
        self.not_re_run: set[str] = set()
        self.audit_report: str | None = None
        self.audit_root: str | None = None
        graph = defs.resolve_asset_graph()
        # Observed, not built: no "started" line each (one step reads every legacy file).
        self.observed = {k.to_user_string() for k in graph.observable_asset_keys}
        for assets_def in graph.assets_defs:
            names = [
                k.to_user_string() for k in assets_def.keys if k.to_user_string() in self.assets
            ]
            if names:
                self.step_keys[assets_def.node_def.name] = names

    def _check(
        self,
        asset: str,
        name: str,
        passed: bool,
        *,
        warning: bool,
        description: str | None,
        re_run: bool,
    ) -> None:
        verdict = "passed" if passed else "WARNING" if warning else "FAILED"
        if not re_run:
            # The live version's verdict, reported again for a skipped table.
            verdict = f"{verdict.lower()}, not re-run:"
            self.not_re_run.add(name)
        else:
            self.not_re_run.discard(name)
        self.checks[name] = passed
        if warning and not passed:
            self.warnings[name] = description or ""
        self.echo(f"  check {verdict:<7} {asset} {name}")

    def skipped(self, key: dg.AssetKey, answer: Rerun, seconds: float) -> None:
        """An asset given no step: its code and inputs are those of what it last produced
        (``answer``), shown as its step would have shown it."""
        name = key.to_user_string()
        progress = self.assets.setdefault(name, AssetProgress(name))
        progress.status = SKIPPED
        rows = answer.metadata.get(key, {}).get("dagster/row_count")
        progress.rows = None if rows is None else int(rows.value)
        progress.seconds = seconds
        rows_text = "" if progress.rows is None else f"  {progress.rows:,} rows"
        self.echo(f"  {progress.status:<13} {name}{rows_text}  {seconds:.1f}s")
        for result in answer.check_results:
            if result.asset_key not in (None, key):
                continue
            re_run = result.metadata.get(RE_RUN)
            self._check(
                name,
                result.check_name or "",
                result.passed,
                warning=result.severity == dg.AssetCheckSeverity.WARN,
                description=result.description,
                re_run=re_run is None or re_run.value is not False,
            )

    def not_run(self, key: dg.AssetKey, because: str) -> None:
        """An asset left out as Dagster skips a step whose input did not materialize."""
        name = key.to_user_string()
        progress = self.assets.setdefault(name, AssetProgress(name))
        progress.status = "skipped"
        progress.message = because
        self.echo(f"  {progress.status:<13} {name}: {because}")

    def handle(self, record: dg.EventLogRecord) -> None:
        entry = record.event_log_entry
        event = entry.dagster_event
        if event is None:
            # A log line of a step: the training's epochs arrive so, through Dagster Pipes.
            if entry.step_key in self.step_keys and is_epoch_message(entry.user_message):
                self.echo(f"{'':16}{entry.user_message}")
            # The steps' own lines, and those of the third-party loggers Dagster captures
            # (python_logs.managed_python_loggers in dagster.yaml): the console's tail.
            if self.log is not None and entry.level >= logging.INFO:
                stamp = time.strftime("%H:%M:%S", time.gmtime(entry.timestamp))
                level = logging.getLevelName(entry.level)
                self.log.write(f"{stamp} {level} {entry.step_key or '-'}: {entry.user_message}\n")
                self.log.flush()
            return
        kind = event.event_type
        if kind == dg.DagsterEventType.STEP_START:
            for name in self.step_keys.get(event.step_key or "", []):
                self.assets[name].status = "running"
                self.assets[name].started = entry.timestamp
                if name not in self.observed:
                    self.echo(f"  started       {name}")
        elif kind == dg.DagsterEventType.ASSET_MATERIALIZATION:
            name = event.asset_key.to_user_string()
            progress = self.assets.setdefault(name, AssetProgress(name))
            materialization = event.event_specific_data.materialization
            metadata = materialization.metadata
            progress.status = materialized_status(
                metadata, materialization.tags.get(DATA_VERSION_TAG), self.previous.get(name)
            )
            rows = metadata.get("dagster/row_count")
            progress.rows = None if rows is None else int(rows.value)
            peak = metadata.get(PEAK_RSS_KEY)
            progress.peak_rss_mb = None if peak is None else float(peak.value)
            if progress.started is not None:
                progress.seconds = entry.timestamp - progress.started
            rows_text = "" if progress.rows is None else f"  {progress.rows:,} rows"
            self.echo(f"  {progress.status:<13} {name}{rows_text}  {progress.seconds or 0:.1f}s")
            if "root_digest" in metadata and "report" in metadata:  # an audit bundle
                self.audit_report = real_path(str(metadata["report"].value), self.home)
                self.audit_root = str(metadata["root_digest"].value)
            if "val_auc" in metadata and "baseline_val_auc" in metadata:  # a trained model
                self.echo(
                    f"                validation AUC {metadata['val_auc'].value:.4f} "
                    f"(baseline {metadata['baseline_val_auc'].value:.4f}), test AUC "
                    f"{metadata['test_auc'].value:.4f}, MLflow run "
                    f"{metadata['mlflow_run_id'].value}"
                )
        elif kind == dg.DagsterEventType.ASSET_OBSERVATION:
            name = event.asset_key.to_user_string()
            progress = self.assets.setdefault(name, AssetProgress(name))
            progress.status = "observed"
            if progress.started is not None:
                progress.seconds = entry.timestamp - progress.started
            self.echo(f"  observed      {name}")
        elif kind == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.event_specific_data
            re_run = evaluation.metadata.get(RE_RUN)
            self._check(
                evaluation.asset_key.to_user_string(),
                evaluation.check_name,
                evaluation.passed,
                warning=evaluation.severity == dg.AssetCheckSeverity.WARN,
                description=evaluation.description,
                re_run=re_run is None or re_run.value is not False,
            )
        elif kind in (dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.STEP_SKIPPED):
            failed = kind == dg.DagsterEventType.STEP_FAILURE
            message = _innermost_message(event.event_specific_data.error) if failed else ""
            for name in self.step_keys.get(event.step_key or "", []):
                progress = self.assets[name]
                if progress.status in DONE:
                    continue
                progress.status = "FAILED" if failed else "skipped"
                progress.message = message
                self.echo(f"  {progress.status:<13} {name}" + (f": {message}" if message else ""))


def run_assets(
    settings: Settings,
    keys: list[dg.AssetKey] | None,
    *,
    job_name: str = MATERIALIZE_ALL_JOB,
    location: CodeLocation | None = None,
    subset: bool = True,
    echo: Callable[[str], None] = print,
    force: bool = False,
) -> RunOutcome:
    """Run the job ``job_name`` of ``location`` (default: this repository's TPC-H demo) over
    ``keys`` (from :func:`resolve_selection`; None: the whole job) on the instance in
    ``$DAGSTER_HOME``.

    With ``subset`` the run selects exactly ``keys`` and the job's checks on them; without it,
    the job runs as defined (``keys`` only label the progress display). With ``force``
    every warehouse table among ``keys`` is built and checked again, and the model trains
    even when a training of the same inputs could be reused (:func:`force_run_config`).

    Without ``force``, a warehouse table whose step would only find that its code version
    and its inputs' data versions are those of its live version (``assets.warehouse``'s
    ``Probe``) gets no step: what the tables read is run first, each table is asked
    then, and a second Dagster run of the same invocation (its tag ``plumbline/invocation``)
    builds the rest (:func:`plan_phases`). Both runs' events make one progress display.
    """
    location = location or CodeLocation(REPOSITORY_ROOT, DEMO_MODULE)
    defs = location.definitions()
    invocation = uuid.uuid4().hex
    tags = {
        INVOCATION_TAG: invocation,
        "plumbline/scale": format_scale(settings.scale),
        "plumbline/engine": settings.engine,
        **process_tags(),
    }
    what = f"{len(keys)} assets" if keys is not None else "every check"
    echo(
        f"plumbline run: {job_name}, {what}, "
        # The scale is the generated TPC-H data's: a project of its own has its own data.
        + (f"scale {format_scale(settings.scale)}, " if location.is_demo else "")
        + f"engine {settings.engine}, home {settings.home}"
    )

    stoppable_children()
    started = time.monotonic()
    log_path = run_log_path(settings, time.time())
    run_config = {**QUIET_RUN_CONFIG, **(force_run_config(defs, keys or []) if force else {})}
    results: list[dg.JobExecutionResult] = []
    blocked: set[dg.AssetKey] = set()
    with (
        held_event_log(settings.dagster_home),
        dg.DagsterInstance.get() as instance,
        stderr_to(log_path),
        open(log_path, "a", encoding="utf-8") as log,
    ):
        heal_home(instance, settings, echo)
        tracker = _Tracker(
            defs,
            keys or [],
            echo,
            home=settings.home,
            previous=latest_data_versions(instance, keys or []),
            log=log,
        )

        def execute(selected: list[dg.AssetKey] | None, as_subset: bool) -> None:
            results.append(
                _execute(
                    instance,
                    location,
                    job_name,
                    selected,
                    subset=as_subset,
                    tags=tags,
                    run_config=run_config,
                    tracker=tracker,
                )
            )

        probes = {} if force or keys is None else rerun_probes(defs, keys)
        if not probes:
            execute(keys, subset)
        else:
            graph = defs.resolve_asset_graph()
            first, later = plan_phases(graph, keys or [], set(probes))
            if first:
                execute(first, True)
            failed = {k for k in first if tracker.assets[k.to_user_string()].status not in DONE}
            blocked = downstream_of(graph, failed) & set(later)
            skipped = skippable(graph, later, probes, blocked, instance, defs.resources, tracker)
            for key in later:
                if key in blocked:
                    tracker.not_run(key, "an asset it reads did not materialize")
            rest = [k for k in later if k not in skipped and k not in blocked]
            if rest:
                execute(rest, True)

    outcome = RunOutcome(
        run_id=results[-1].run_id if results else None,
        run_ids=[r.run_id for r in results],
        success=all(r.success for r in results) and not blocked,
        seconds=time.monotonic() - started,
        assets=tracker.assets,
        checks=tracker.checks,
        not_re_run=tracker.not_re_run,
        warnings=tracker.warnings,
        audit_report=tracker.audit_report,
        audit_root=tracker.audit_root,
        log=log_path,
        demo=location.is_demo,
    )
    echo_summary(outcome, settings, echo)
    return outcome


def rerun_probes(defs: dg.Definitions, keys: list[dg.AssetKey]) -> dict[dg.AssetKey, Probe]:
    """The selected warehouse tables' :class:`~assets.warehouse.Probe`, by key."""
    graph = defs.resolve_asset_graph()
    probes = {}
    for key in keys:
        node = graph.get(key)
        probe = rerun_probe(node.assets_def) if node.is_materializable else None
        if probe is not None:
            probes[key] = probe
    return probes


def downstream_of(graph, keys: set[dg.AssetKey]) -> set[dg.AssetKey]:
    """Every asset that reads one of ``keys``, directly or not (``keys`` left out)."""
    if not keys:
        return set()
    return set(dg.AssetSelection.assets(*keys).downstream().resolve(graph)) - keys


def plan_phases(
    graph, keys: list[dg.AssetKey], probed: set[dg.AssetKey]
) -> tuple[list[dg.AssetKey], list[dg.AssetKey]]:
    """``keys`` split in two runs: first what no probed table is upstream of (the sources,
    the legacy files' observations, the translations: what a table's probe reads the
    versions of), then the probed tables and what reads them, each list in ``keys``' order."""
    later = probed | downstream_of(graph, probed)
    return [k for k in keys if k not in later], [k for k in keys if k in later]


def skippable(
    graph,
    later: list[dg.AssetKey],
    probes: dict[dg.AssetKey, Probe],
    blocked: set[dg.AssetKey],
    instance: dg.DagsterInstance,
    resources: dict[str, object],
    tracker: _Tracker,
) -> set[dg.AssetKey]:
    """The probed assets of ``later`` whose step would find them unchanged, shown as
    skipped; asked in the graph's order, so that an asset reading one that is built (or
    ``blocked``) is built too, its inputs' new versions being known only then."""
    built: set[dg.AssetKey] = set(blocked)
    skipped: set[dg.AssetKey] = set()
    decided: set[dg.AssetKey] = set()
    # What every probe reads of the instance, read at once.
    facts = Facts(instance)
    facts.read([*later, *(parent for key in later for parent in graph.get(key).parent_keys)])
    order = {key: index for index, key in enumerate(graph.toposorted_asset_keys)}
    for key in sorted((k for k in later if k in probes), key=order.__getitem__):
        if key in decided:
            continue
        # A step makes all its assets or none: they are decided together.
        probe = probes[key]
        made = [k for k in later if probes.get(k) is probe]
        decided.update(made)
        upstream = set(dg.AssetSelection.assets(*made).upstream().resolve(graph)) - set(made)
        if set(made) & blocked:
            continue
        if upstream & built:
            built.update(made)
            continue
        asked = time.monotonic()
        answer = probe.ask(facts, resources)
        seconds = time.monotonic() - asked
        if answer.reason is not None:
            built.update(made)
            continue
        for one in sorted(made, key=order.__getitem__):
            skipped.add(one)
            tracker.skipped(one, answer, seconds)
    return skipped


def _execute(
    instance: dg.DagsterInstance,
    location: CodeLocation,
    job_name: str,
    keys: list[dg.AssetKey] | None,
    *,
    subset: bool,
    tags: dict[str, str],
    run_config: dict[str, object],
    tracker: _Tracker,
) -> dg.JobExecutionResult:
    """One Dagster run of ``job_name`` (over ``keys`` and the job's own checks on them, with
    ``subset``) on ``instance``, in a worker thread while this one shows its events."""
    box: dict[str, object] = {}
    job = location.reconstructable_job(job_name)
    if subset and keys is not None:
        # The selected assets and the job's own checks on them. (execute_job's
        # asset_selection would add every check defined on them, the portability checks
        # too: each table's SQL on Spark, check_portability_job's work.)
        selected = set(keys)
        job = job.get_subset(
            asset_selection=selected,
            asset_check_selection={
                check
                for check in location.job(job_name).asset_layer.asset_graph.asset_check_keys
                if check.asset_key in selected
            },
        )
    # The invocation's runs so far: the one to show is the next.
    invocation = dg.RunsFilter(tags={INVOCATION_TAG: tags[INVOCATION_TAG]})
    known = {run.run_id for run in instance.get_runs(filters=invocation)}

    def execute() -> None:
        try:
            box["result"] = dg.execute_job(job, instance=instance, tags=tags, run_config=run_config)
        except BaseException as exc:  # re-raised in the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=execute, name="plumbline-run", daemon=True)
    worker.start()
    run_id, cursor = None, None
    while True:
        alive = worker.is_alive()
        if run_id is None:
            runs = instance.get_runs(filters=invocation)
            run_id = next((r.run_id for r in runs if r.run_id not in known), None)
        if run_id is not None:
            while True:
                # Every record, not only some event types: the epochs are log lines,
                # which carry no event type to filter on.
                conn = instance.get_records_for_run(run_id, cursor=cursor)
                for record in conn.records:
                    tracker.handle(record)
                cursor = conn.cursor
                if not conn.has_more:
                    break
        if not alive:
            break
        time.sleep(POLL_SECONDS)
    worker.join()
    stop_leftover_log_mirrors()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def heal_home(
    instance: dg.DagsterInstance, settings: Settings, echo: Callable[[str], None]
) -> None:
    """What a killed run left behind is cleaned up by the next one: its Dagster run is
    marked failed and its staging folders are removed (never those of a run that may
    still be building). And every audit bundle under the home has its table versions
    pinned, those issued before bundles pinned them too, before anything is published."""
    from pipelines.audit.store import pin_issued_bundles

    lake = Lake(settings.lake_root)
    pin_issued_bundles(lake, settings.audit_root)
    unfinished = fail_abandoned_runs(instance)
    removed = lake.remove_staging(unfinished.oldest_live_start)
    # What DuckDB spilled for a process that was killed before it closed its connections.
    remove_stale_spill(settings.spill_root)
    if unfinished.abandoned or removed:
        echo(
            f"  healed        {len(unfinished.abandoned)} abandoned run(s) marked failed, "
            f"{len(removed)} staging folder(s) of dead builds removed"
        )


def echo_summary(outcome: RunOutcome, settings: Settings, echo: Callable[[str], None]) -> None:
    if outcome.assets:
        width = max(len(name) for name in outcome.assets)
        status_width = max(12, *(len(p.status) for p in outcome.assets.values()))
        echo("")
        echo(
            f"{'asset':<{width}}  {'status':<{status_width}}  {'rows':>12}  {'seconds':>8}"
            f"  {'peak RSS MB':>11}"
        )
        for name in sorted(outcome.assets):
            p = outcome.assets[name]
            rows = "" if p.rows is None else f"{p.rows:,}"
            seconds = "" if p.seconds is None else f"{p.seconds:.1f}"
            peak = "" if p.peak_rss_mb is None else f"{p.peak_rss_mb:,.0f}"
            echo(
                f"{name:<{width}}  {p.status:<{status_width}}  {rows:>12}  {seconds:>8}  {peak:>11}"
            )
        measured = [p for p in outcome.assets.values() if p.peak_rss_mb is not None]
        if measured:
            top = max(measured, key=lambda p: p.peak_rss_mb or 0)
            echo(
                f"peak RSS of a step: {top.peak_rss_mb:,.0f} MB ({top.key}); DuckDB held to "
                f"{settings.duckdb_memory_limit} a database, spilling to {settings.spill_root}"
            )
    if outcome.checks:
        failed = sorted(
            name
            for name, passed in outcome.checks.items()
            if not passed and name not in outcome.warnings
        )
        warned = sorted(outcome.warnings)
        kept = len(outcome.not_re_run - set(failed) - set(warned))
        echo("")
        echo(
            f"checks: {len(outcome.checks) - len(failed) - len(warned)} passed"
            + (f" ({kept} not re-run: the verdict of the live version)" if kept else "")
            + f", {len(failed)} failed, {len(warned)} warning{'' if len(warned) == 1 else 's'}"
        )
        for name in failed:
            echo(f"  FAILED  {name}")
        for name in warned:
            echo(f"  WARNING {name}: {outcome.warnings[name] or 'no description'}")
    counts: dict[str, int] = {}
    for p in outcome.assets.values():
        counts[p.status] = counts.get(p.status, 0) + 1
    verdict = "SUCCESS" if outcome.success else "FAILURE"
    echo("")
    runs = outcome.run_ids or ([outcome.run_id] if outcome.run_id else [])
    named = (
        f"Run {runs[0]}"
        if len(runs) == 1
        else f"Runs {' and '.join(runs)}"
        if runs
        else "No Dagster run needed"
    )
    echo(
        f"{named}: {verdict} in {outcome.seconds:.1f}s ("
        + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "checks only")
        + ")"
    )
    echo(f"Lake: {settings.lake_root}")
    if outcome.log is not None:
        echo(f"Log (third-party output, warnings): {outcome.log}")
    if outcome.audit_report:
        echo(f"Audit report of the champion: {outcome.audit_report}")
        echo(
            f"  root digest {outcome.audit_root}; check it with `plumbline audit --verify "
            f"{Path(outcome.audit_report).with_name('bundle.json')}`"
        )
    ui = "make ui" if outcome.demo else "plumbline ui"
    if runs:
        links = ", ".join(f"http://127.0.0.1:3000/runs/{run}" for run in runs)
        echo(f"See it in the UI: `{ui}`, then {links}")
