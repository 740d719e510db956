"""Dagster resources. Their values come from :class:`pipelines.settings.Settings`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dagster as dg

from models.job import TrainingJob
from pipelines.contracts import Masker
from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.duckdb_limits import DuckDBLimits, set_limits
from pipelines.lake.store import Lake
from pipelines.pipes.local import launch_locally
from pipelines.settings import K8S_FIELDS, Settings, k8s_request_from, masking_key_from
from pipelines.warehouse.engines.base import Engine
from sql.catalog import DEFAULT_CATALOG_PATH, Catalog, load_catalogs
from sql.paths import REPOSITORY_ROOT

if TYPE_CHECKING:
    from pipelines.audit.collect import TableSubject
    from pipelines.audit.pinned import PinnedFiles


class LakeResource(dg.ConfigurableResource):
    """The Parquet lake under ``root`` (``$PLUMBLINE_HOME/lake`` by default), and the memory
    the DuckDB databases of a step that works on it may hold (``PLUMBLINE_DUCKDB_MEMORY_LIMIT``)
    before they spill under ``spill_root`` (``$PLUMBLINE_HOME/spill``)."""

    root: str
    # $PLUMBLINE_HOME, which metadata shows paths relative to (pipelines.settings.shown_path).
    home: str = ""
    duckdb_memory_limit: str = ""
    spill_root: str = ""

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        # Every step that reads or writes the lake holds the DuckDB connections of its process
        # (builds, digests, checks, ingestion) to the limit: steps share the run's process.
        set_limits(
            DuckDBLimits(
                memory_limit=self.duckdb_memory_limit or None,
                spill_root=Path(self.spill_root) if self.spill_root else None,
            )
        )

    def lake(self) -> Lake:
        return Lake(Path(self.root))


class TpchResource(dg.ConfigurableResource):
    """The TPC-H generator's knobs."""

    scale: float
    threads: int = 2


class ContractsResource(dg.ConfigurableResource):
    """Where the contracts that guarded each publish are kept (``$PLUMBLINE_HOME/contracts``),
    and the masker of what their checks report (``PLUMBLINE_MASKING_KEY``)."""

    published_root: str
    # $PLUMBLINE_HOME/masking.key: the key used when PLUMBLINE_MASKING_KEY is unset.
    masking_key_path: str

    def published(self) -> PublishedContracts:
        return PublishedContracts(Path(self.published_root))

    def masker(self) -> Masker:
        # The key is no field: Dagster shows resource config in its UI. It is read through
        # settings from the environment of the process that runs the check, which a step
        # process inherits (Settings.to_env carries it to processes started with it); so a
        # Settings built in code reaches the checks only through that environment.
        key = masking_key_from()
        return Masker(key.encode("utf-8") if key else None, key_file=Path(self.masking_key_path))


class AnsiStoreResource(dg.ConfigurableResource):
    """Where translated ANSI SQL is written (``$PLUMBLINE_HOME/ansi``)."""

    root: str
    # The catalog files translations resolve names in (PLUMBLINE_CATALOG).
    catalog_files: list[str] = [str(DEFAULT_CATALOG_PATH)]

    def path(self) -> Path:
        return Path(self.root)

    def catalog(self) -> Catalog:
        # A legacy name may name a table the project's legacy SQL builds (checked when the
        # code location loads: pipelines.translation.store.with_project_tables).
        return _catalog_of(tuple((Path(f), _file_state(Path(f))) for f in self.catalog_files))


def _file_state(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None  # load_catalogs says why, naming the file
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


@functools.lru_cache(maxsize=8)
def _catalog_of(files: tuple[tuple[Path, tuple[int, int, int] | None], ...]) -> Catalog:
    """The catalog of ``files`` as they are now (each with its inode, size and modification
    time): read once a process while no file changes, where every translation and every
    warehouse step of a run asked for it (~80 reads of the same YAML in the demo's run).
    A Catalog is frozen and nothing changes its mappings once it is built."""
    return load_catalogs([path for path, _ in files], project_tables=True)


class EngineResource(dg.ConfigurableResource):
    """The SQL engine that builds warehouse tables (``PLUMBLINE_ENGINE``)."""

    engine: str = "duckdb"
    spark_master: str = "local[*]"

    def build_engine(self, name: str | None = None) -> Engine:
        """The configured engine, or ``name`` (the portability check asks for the other one)."""
        # Imported here, not where the code location loads: DuckDB's module alone takes a
        # noticeable part of a second to import, and a load starts no engine.
        match name or self.engine:
            case "duckdb":
                from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine

                return DuckDBEngine()
            case "spark":
                from pipelines.warehouse.engines.spark_engine import SparkEngine

                return SparkEngine(self.spark_master)
            case other:
                raise ValueError(f"engine must be duckdb or spark; got {other!r}")


# The experiment tag MLflow 3's UI reads to choose its pages (mlflow/server/js: the
# ExperimentKind enum): without it an experiment may open on the GenAI (traces, evaluation)
# pages instead of the training runs.
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
EXPERIMENT_KIND = "custom_model_development"

# (tracking URI, artifact root) of the stores MlflowResource.client has checked here.
_CHECKED_STORES: set[tuple[str, str]] = set()


class MlflowResource(dg.ConfigurableResource):
    """MLflow tracking and registry (``PLUMBLINE_MLFLOW_URI``); artifacts under
    ``$PLUMBLINE_HOME/mlartifacts`` for experiments this resource creates."""

    tracking_uri: str
    artifact_root: str
    experiment: str = "delivery_delay"
    # Where people open the MLflow UI (PLUMBLINE_MLFLOW_UI_URL): metadata links point there.
    ui_url: str = "http://127.0.0.1:5000"

    def client(self):
        import mlflow
        from mlflow import MlflowClient

        from pipelines.registry.tracking_store import TrackingStoreError, ensure_tracking_store

        store = (self.tracking_uri, Path(self.artifact_root).absolute().as_uri())
        # Checked once per process: an asset asks for several clients, and each check opens
        # the store and takes its lock.
        if store not in _CHECKED_STORES:
            try:
                ensure_tracking_store(*store)
            except TrackingStoreError as exc:
                raise dg.Failure(str(exc)) from None
            _CHECKED_STORES.add(store)

        # Registering a logged model (models:/m-...) resolves it through the process-wide
        # tracking URI, not the client's: point both at this store.
        mlflow.set_tracking_uri(self.tracking_uri)
        mlflow.set_registry_uri(self.tracking_uri)
        return MlflowClient(tracking_uri=self.tracking_uri, registry_uri=self.tracking_uri)

    def experiment_id(self) -> str:
        """The training experiment, created (or marked) as a model-training experiment."""
        client = self.client()
        found = client.get_experiment_by_name(self.experiment)
        if found is None:
            return client.create_experiment(
                self.experiment,
                artifact_location=Path(self.artifact_root).absolute().as_uri(),
                tags={EXPERIMENT_KIND_TAG: EXPERIMENT_KIND},
            )
        if EXPERIMENT_KIND_TAG not in found.tags:
            # An experiment made before the tag (or by another tool): MLflow 3's UI guesses
            # its kind from its contents and may open it on the GenAI pages. A kind someone
            # set on purpose is kept.
            client.set_experiment_tag(found.experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)
        return found.experiment_id


class TrainingLauncherResource(dg.ConfigurableResource):
    """How training processes start. ``local``: single-node ``torchrun`` on this machine (127.0.0.1 only)
    through Dagster Pipes, ``nproc_per_node`` processes (default: one per GPU, else 2 on CPU),
    restarting the worker group up to ``max_restarts`` times (training resumes from the last
    checkpoint). ``k8s``: ``k8s_nodes`` x ``k8s_gpus_per_node`` on a Kubernetes GPU pool
    (``pipelines/launch/k8s``, ``pipelines/pipes/kubernetes.py``): rank 0's pod through ``PipesK8sClient``, the other nodes as an
    Indexed Job, rendezvous through a headless Service; ``runs_root`` must lie on the volume
    shared by the pods (``PLUMBLINE_HOME`` does, in ``deploy/helm/values.yaml``)."""

    runs_root: str
    kind: str = "local"
    nproc_per_node: int | None = None
    max_restarts: int = 1
    k8s_image: str = ""
    k8s_namespace: str = Settings.k8s_namespace
    k8s_gpu: str = Settings.k8s_gpu
    k8s_nodes: int = Settings.k8s_nodes
    k8s_gpus_per_node: int | None = Settings.k8s_gpus_per_node
    k8s_spot: bool = Settings.k8s_spot
    k8s_shared_mount_path: str = ""

    def k8s_request(self, job_name: str):
        return k8s_request_from(
            self,
            job_name=job_name,
            max_restarts=max(self.max_restarts, 1),
            shared_mount_path=self.k8s_shared_mount_path or str(Path(self.runs_root).parent),
        )

    def placement(self) -> tuple[int, bool]:
        """(nodes, spot) of a run: what its cost is computed from."""
        return (self.k8s_nodes, self.k8s_spot) if self.kind == "k8s" else (1, False)

    def output_dir(self, run_id: str) -> Path:
        """Checkpoints, errors and artifacts of the training in Dagster run ``run_id``."""
        return Path(self.runs_root) / run_id

    def launch(self, context: dg.AssetExecutionContext, job: TrainingJob):
        """Run the training where ``kind`` says, through Dagster Pipes
        (:mod:`pipelines.pipes.local`, :mod:`pipelines.pipes.kubernetes`), and return Pipes'
        completed invocation; a failure raises ``dg.Failure`` with the failing worker's
        traceback."""
        if self.kind == "k8s":
            from pipelines.launch.k8s.request import K8sRenderError
            from pipelines.pipes.kubernetes import launch_on_kubernetes, training_job_name

            try:
                request = self.k8s_request(training_job_name(context.run.run_id))
            except K8sRenderError as exc:
                raise dg.Failure(f"Kubernetes training request: {exc}") from exc
            return launch_on_kubernetes(context, job, request)
        if self.kind != "local":
            raise dg.Failure(f"training launcher {self.kind!r} is not available; use local or k8s")
        return launch_locally(
            context,
            job,
            cwd=REPOSITORY_ROOT,
            nproc_per_node=self.nproc_per_node,
            max_restarts=self.max_restarts,
        )


class AuditResource(dg.ConfigurableResource):
    """Where audit bundles are issued (``$PLUMBLINE_HOME/audit``): each in a folder of its own,
    ``<root>/<model>/v<version>/<YYYYMMDDTHHMMSSZ>-<12 hex of the root digest>/``
    (``pipelines.audit.store``), or ``<root>/warehouse/<table>/<lake version>/...`` for a
    table's, never overwritten."""

    root: str

    def version_dir(self, model: str, version: str) -> Path:
        """The folder that holds every bundle issued for ``model`` ``version``."""
        from pipelines.audit.store import model_version_dir

        return model_version_dir(Path(self.root), model, version)

    def table_version_dir(self, subject: TableSubject) -> Path:
        """The folder that holds every bundle issued for one version of a warehouse table
        (a project without a model): ``<root>/<zone>/<table>/<lake version>``."""
        from pipelines.audit.store import table_version_dir

        return table_version_dir(Path(self.root), subject)

    def pinned_files(self) -> PinnedFiles:
        """Where the SQL files of the bundles issued here are kept, by sha256."""
        from pipelines.audit.pinned import PinnedFiles

        return PinnedFiles(Path(self.root))


def resources_for(settings: Settings, **launcher: Any) -> dict[str, dg.ConfigurableResource]:
    """Every resource the definitions bind, from ``settings``: the one place settings become
    resources, for the code location and the tests alike. ``launcher`` overrides fields of
    the training launcher (a test's ``nproc_per_node``)."""
    return {
        "lake": LakeResource(
            root=str(settings.lake_root),
            home=str(settings.home),
            duckdb_memory_limit=settings.duckdb_memory_limit,
            spill_root=str(settings.spill_root),
        ),
        "tpch": TpchResource(scale=settings.scale),
        "ansi_store": AnsiStoreResource(
            root=str(settings.ansi_root), catalog_files=[str(p) for p in settings.catalog]
        ),
        "contracts": ContractsResource(
            published_root=str(settings.published_contracts_root),
            masking_key_path=str(settings.masking_key_path),
        ),
        "warehouse_engine": EngineResource(
            engine=settings.engine, spark_master=settings.spark_master
        ),
        "mlflow_tracking": MlflowResource(
            tracking_uri=settings.mlflow_uri,
            artifact_root=str(settings.mlflow_artifacts),
            ui_url=settings.mlflow_ui_url,
        ),
        "training_launcher": TrainingLauncherResource(
            runs_root=str(settings.training_root),
            kind=settings.launcher,
            **{field: getattr(settings, field) for field in K8S_FIELDS},
            k8s_shared_mount_path=str(settings.home),
            **launcher,
        ),
        "audit": AuditResource(root=str(settings.audit_root)),
    }
