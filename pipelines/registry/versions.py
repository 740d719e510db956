"""The model registry: versions in MLflow, a promotion gate, and an append-only alias history.

MLflow's registry has aliases but no record of who moved them. Every move here is appended
to a Parquet log in the lake (one file per move, written atomically) and mirrored as a tag
on the model version, before the alias itself moves; a retry of the same Dagster run finds
its own entry and does not write it twice.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.lake.files import atomic_path

MODEL_NAME = "delivery_delay"
CHAMPION = "champion"
CHALLENGER = "challenger"
DIGEST_TAG = "plumbline.model_digest"
ALIAS_TAG_PREFIX = "plumbline.alias_move."
ALIAS_HISTORY = ("registry", "alias_history")

T = TypeVar("T")
# MLflow error codes worth retrying (a locked or restarting store); anything else is final.
TRANSIENT = {"INTERNAL_ERROR", "TEMPORARILY_UNAVAILABLE", "REQUEST_LIMIT_EXCEEDED"}


class RegistryError(RuntimeError):
    """MLflow could not be reached or refused an operation, after retries."""


def with_retries(
    action: Callable[[], T],
    what: str,
    *,
    attempts: int = 4,
    first_delay: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``action``; on an MLflow or connection error retry with exponential backoff, then
    raise ``RegistryError`` naming ``what`` and the last error."""
    from mlflow.exceptions import MlflowException

    delay = first_delay
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except (MlflowException, OSError) as exc:
            if isinstance(exc, MlflowException) and exc.error_code not in TRANSIENT:
                raise  # a request MLflow understood and refused: retrying cannot help
            if attempt == attempts:
                raise RegistryError(
                    f"MLflow: {what} failed after {attempts} attempts: {str(exc).splitlines()[0]}"
                ) from exc
            sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class PromotionDecision:
    promote: bool
    reason: str
    candidate_auc: float
    champion_version: str | None
    champion_auc: float | None
    tolerance: float
    baseline_bar: float


def decide_promotion(
    candidate_auc: float,
    *,
    checks_passed: bool,
    champion_version: str | None,
    champion_auc: float | None,
    tolerance: float,
    baseline_bar: float,
) -> PromotionDecision:
    """Champion only if every upstream blocking check passed and the validation AUC is not
    worse than the champion's by more than ``tolerance``; with no champion yet, if it
    reaches ``baseline_bar``."""

    def decision(promote: bool, reason: str) -> PromotionDecision:
        return PromotionDecision(
            promote, reason, candidate_auc, champion_version, champion_auc, tolerance, baseline_bar
        )

    if not checks_passed:
        return decision(False, "an upstream blocking check did not pass")
    if champion_auc is None:
        if candidate_auc >= baseline_bar:
            return decision(
                True, f"first version: AUC {candidate_auc:.5f} >= baseline bar {baseline_bar:.5f}"
            )
        return decision(
            False, f"first version: AUC {candidate_auc:.5f} < baseline bar {baseline_bar:.5f}"
        )
    floor = champion_auc - tolerance
    if candidate_auc >= floor:
        return decision(
            True,
            f"AUC {candidate_auc:.5f} >= champion v{champion_version} {champion_auc:.5f} "
            f"- tolerance {tolerance}",
        )
    return decision(
        False,
        f"AUC {candidate_auc:.5f} < champion v{champion_version} {champion_auc:.5f} "
        f"- tolerance {tolerance}",
    )


@dataclass(frozen=True)
class AliasMove:
    model: str
    alias: str
    from_version: str | None
    to_version: str
    moved_at: str  # UTC, ISO 8601
    dagster_run_id: str
    reason: str

    def tag_value(self) -> str:
        """The move as one line of MLflow's tag table (the history file keeps the fields)."""
        moved = dt.datetime.fromisoformat(self.moved_at).strftime("%Y-%m-%d %H:%M:%S UTC")
        was = f"v{self.from_version}" if self.from_version else "none"
        return (
            f"{self.alias}: {was} -> v{self.to_version} at {moved}, Dagster run "
            f"{self.dagster_run_id}: {self.reason}"
        )


SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("alias", pa.string()),
        ("from_version", pa.string()),
        ("to_version", pa.string()),
        ("moved_at", pa.string()),
        ("dagster_run_id", pa.string()),
        ("reason", pa.string()),
    ]
)


@dataclass(frozen=True)
class AliasHistory:
    """Append-only: one Parquet file per move under ``root``; nothing is rewritten."""

    root: Path

    @classmethod
    def in_lake(cls, lake_root: Path) -> AliasHistory:
        """The history a lake keeps, under ``<lake root>/registry/alias_history``."""
        return cls(Path(lake_root).joinpath(*ALIAS_HISTORY))

    def append(self, move: AliasMove) -> Path:
        Path(self.root).mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.fromisoformat(move.moved_at).strftime("%Y%m%dT%H%M%S%f")
        target = Path(self.root) / f"move-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
        with atomic_path(target) as temporary:
            pq.write_table(pa.Table.from_pylist([asdict(move)], schema=SCHEMA), temporary)
        return target

    def moves(self, model: str | None = None) -> list[AliasMove]:
        """Every move (of ``model``), oldest first; RegistryError naming the file when one
        is no longer a move (truncated, appended to, replaced)."""
        files = sorted(Path(self.root).glob("move-*.parquet")) if Path(self.root).is_dir() else []
        moves = []
        for path in files:
            try:
                rows = [AliasMove(**row) for row in pq.read_table(path, schema=SCHEMA).to_pylist()]
            except (OSError, pa.ArrowException, TypeError) as exc:
                raise RegistryError(
                    f"{path}: not a readable alias move ({type(exc).__name__})"
                ) from None
            moves.extend(move for move in rows if model is None or move.model == model)
        return sorted(moves, key=lambda m: m.moved_at)


def _matching(versions, *, run_id: str | None, digest: str | None):
    for version in versions:
        if run_id is not None and version.run_id == run_id:
            return version
        if digest is not None and version.tags.get(DIGEST_TAG) == digest:
            return version
    return None


def find_version(client, name: str, *, run_id: str | None = None, digest: str | None = None):
    """The registered version of ``name`` made from ``run_id`` or carrying model ``digest``."""
    versions = with_retries(
        lambda: client.search_model_versions(f"name = '{name}'"), f"list versions of {name}"
    )
    return _matching(versions, run_id=run_id, digest=digest)


@dataclass(frozen=True)
class VersionSource:
    """What ``create_model_version`` is given for one model: where its files are and, for an
    MLflow 3 logged model, its id."""

    source: str
    model_id: str | None


def version_source(client, model_uri: str, *, run_id: str) -> VersionSource:
    """The source of a version of ``model_uri`` (trained in MLflow run ``run_id``), checked
    before anything is created, so that a model MLflow would refuse leaves no trace.

    ``log_model`` in MLflow 3 returns ``models:/<model_id>``, a logged model. A tracking server
    accepts that source only together with its ``model_id``; a sqlite store resolves it through
    the process-wide tracking URI rather than the client's. The logged model's own artifact
    location, with its ``model_id``, is accepted by both and registers the same files.
    """
    from mlflow.exceptions import MlflowException

    scheme, _, rest = model_uri.partition(":/")
    if scheme == "models" and rest and "/" not in rest and "@" not in rest:
        try:
            model = with_retries(lambda: client.get_logged_model(rest), f"read model {model_uri}")
        except MlflowException as exc:
            raise RegistryError(
                f"MLflow refused {model_uri}: {str(exc).splitlines()[0]}; register the "
                "model_uri that the training's log_model returned"
            ) from exc
        if model.source_run_id != run_id:
            raise RegistryError(
                f"{model_uri} was logged by MLflow run {model.source_run_id}, not by run "
                f"{run_id}: register a run's own model"
            )
        return VersionSource(model.artifact_location, model.model_id)
    if scheme == "runs" and rest.split("/", 1)[0] != run_id:
        raise RegistryError(
            f"{model_uri} belongs to another MLflow run than {run_id}: register a run's own model"
        )
    return VersionSource(model_uri, None)


def register_version(client, name: str, *, run_id: str, model_uri: str, tags: dict[str, str]):
    """A version of ``name`` for the model of ``run_id``: created once, then found again.

    MLflow cannot create a registered model and its first version in one transaction. The
    source is checked first, so a model MLflow would refuse creates nothing; if creating the
    version fails after the registered model was made, the retry finds that model (empty, or
    holding this run's version if the failure hid a success) and completes it. An empty
    registered model is not rolled back: deleting a registered model deletes its versions,
    and a concurrent registration may have added one by then.

    A version is created with its tags, and any tag a found version lacks is set, so a
    failure between creating and tagging is repaired by the retry instead of leaving an
    untagged version or creating a second one. A tag the found version holds keeps its
    value: registering the same training again (a reused training, or a run whose config
    names it) must not rewrite who registered it, which every audit bundle of the version
    has sealed.
    """
    from mlflow.exceptions import MlflowException

    version = find_version(client, name, run_id=run_id)
    if version is None:
        source = version_source(client, model_uri, run_id=run_id)
        try:
            with_retries(lambda: client.create_registered_model(name), f"create model {name}")
        except MlflowException as exc:
            if exc.error_code != "RESOURCE_ALREADY_EXISTS":
                raise

        def find_or_create():
            # A retried request may follow one that succeeded but whose answer was lost.
            found = _matching(
                client.search_model_versions(f"name = '{name}'"), run_id=run_id, digest=None
            )
            return found or client.create_model_version(
                name, source.source, run_id=run_id, tags=tags, model_id=source.model_id
            )

        version = with_retries(find_or_create, f"register {model_uri} as {name}")
    for key, value in tags.items():
        if key in version.tags:
            continue
        with_retries(
            lambda key=key, value=value: client.set_model_version_tag(
                name, version.version, key, value
            ),
            f"tag {name} v{version.version}",
        )
    return with_retries(
        lambda: client.get_model_version(name, version.version), f"read {name} v{version.version}"
    )


def _alias_target(client, name: str, alias: str):
    """The model version ``alias`` points at (its tags included), or None."""
    from mlflow.exceptions import MlflowException

    try:
        return client.get_model_version_by_alias(name, alias)
    except MlflowException as exc:
        if exc.error_code in ("RESOURCE_DOES_NOT_EXIST", "INVALID_PARAMETER_VALUE"):
            return None
        raise


def alias_version(client, name: str, alias: str) -> str | None:
    target = _alias_target(client, name, alias)
    return str(target.version) if target is not None else None


def _tag_move(client, move: AliasMove, tags: Mapping[str, str] | None = None) -> None:
    """Mirror ``move`` as a tag of the version it moved to; nothing is written when
    ``tags`` (that version's, as read) already hold it."""
    stamp = dt.datetime.fromisoformat(move.moved_at).strftime("%Y%m%dT%H%M%S%fZ")
    key = f"{ALIAS_TAG_PREFIX}{move.alias}.{stamp}"
    if tags is not None and tags.get(key) == move.tag_value():
        return
    with_retries(
        lambda: client.set_model_version_tag(move.model, move.to_version, key, move.tag_value()),
        f"tag {move.model} v{move.to_version}",
    )


def move_alias(
    client,
    history: AliasHistory,
    name: str,
    alias: str,
    version: str,
    *,
    dagster_run_id: str,
    reason: str,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
) -> AliasMove | None:
    """Point ``alias`` at ``version`` and record the move; None if nothing moved.

    The history never claims a move that did not happen: the alias moves first, then the
    move is appended and mirrored as a version tag. If a run dies in between, its retry
    finds the alias already there without a record and records it then.
    """
    version = str(version)
    target = with_retries(lambda: _alias_target(client, name, alias), f"read {name}@{alias}")
    current = str(target.version) if target is not None else None
    recorded = [m for m in history.moves(name) if m.alias == alias]
    last = recorded[-1] if recorded else None
    if current == version and last is not None and last.to_version == version:
        # Repairs a tag lost to an interruption; a rerun that finds it there writes nothing.
        _tag_move(client, last, target.tags)
        return None
    if current == version:  # moved by an interrupted attempt, never recorded
        reason = f"{reason} (recorded on retry after an interrupted move)"
        previous = last.to_version if last is not None else None
    else:
        with_retries(
            lambda: client.set_registered_model_alias(name, alias, version),
            f"move {name}@{alias} to v{version}",
        )
        previous = current
    move = AliasMove(name, alias, previous, version, now().isoformat(), dagster_run_id, reason)
    history.append(move)
    _tag_move(client, move)
    return move


# Written on the MLflow run by the delay_model asset once training has finished, so that a
# run can be registered by its id alone: registration reads the training from its run,
# whichever materialization (or config) named it.
RUN_DIGEST_TAG = DIGEST_TAG
RUN_MODEL_URI_TAG = "plumbline.model_uri"


class NotATrainingRunError(RuntimeError):
    """An MLflow run that is not a finished delay_model training: nothing to register."""


@dataclass(frozen=True)
class TrainedModel:
    """What registration needs from one training: where its model is and how it scored."""

    mlflow_run_id: str
    model_uri: str
    model_digest: str
    val_auc: float
    baseline_val_auc: float

    @classmethod
    def from_mlflow_run(cls, run) -> TrainedModel:
        """From a finished MLflow run of delay_model (its tags and final metrics)."""
        run_id = run.info.run_id
        if run.info.status != "FINISHED":
            raise NotATrainingRunError(
                f"MLflow run {run_id} is {run.info.status}, not FINISHED: only a finished "
                "training can be registered"
            )
        tags, metrics = run.data.tags, run.data.metrics
        missing = [
            name
            for name, present in (
                (f"tag {RUN_DIGEST_TAG}", RUN_DIGEST_TAG in tags),
                (f"tag {RUN_MODEL_URI_TAG}", RUN_MODEL_URI_TAG in tags),
                ("metric val_auc", "val_auc" in metrics),
                ("metric baseline_val_auc", "baseline_val_auc" in metrics),
            )
            if not present
        ]
        if missing:
            raise NotATrainingRunError(
                f"MLflow run {run_id} has no {', '.join(missing)}: it was not trained by "
                "models/delay_model; name a run that was"
            )
        return cls(
            mlflow_run_id=run_id,
            model_uri=tags[RUN_MODEL_URI_TAG],
            model_digest=tags[RUN_DIGEST_TAG],
            # val_auc is logged per epoch; MLflow's value is the last step's, the final one.
            val_auc=float(metrics["val_auc"]),
            baseline_val_auc=float(metrics["baseline_val_auc"]),
        )
