"""plumbline's settings: the one place that reads ``PLUMBLINE_*`` environment variables.

Everything else (resources, the CLI, the Dagster definitions) takes its values from a
:class:`Settings` object, so a deployment changes behaviour through configuration alone.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from pipelines.lake.tpch import format_scale
from pipelines.launch.k8s.request import K8S_DEFAULTS
from sql.catalog import DEFAULT_CATALOG_PATH
from sql.engines import ENGINES, Engine
from sql.paths import LEGACY_ROOT, REPOSITORY_ROOT

Launcher = Literal["local", "k8s"]
LAUNCHERS: tuple[str, ...] = get_args(Launcher)

DEFAULT_HOME = "./.plumbline"
# 0.1 keeps `make run` (generation, tables, contracts and a 2-process CPU training run)
# within a few minutes on 2 cores while lineitem still has ~600,000 rows to learn from.
DEFAULT_SCALE = 0.1
DEFAULT_ENGINE: Engine = "duckdb"
# What every DuckDB database of a step may hold before it spills to $PLUMBLINE_HOME/spill:
# with the process's own memory (Dagster, Python, Arrow batches) it keeps a step of the
# data path at TPC-H scale 10 under 4 GB of RSS (docs/benchmarks.md).
DEFAULT_DUCKDB_MEMORY_LIMIT = "2GB"
# Where `plumbline mlflow-ui` (`make mlflow-ui`) serves a local store by default.
DEFAULT_MLFLOW_UI_URL = "http://127.0.0.1:5000"
DEFAULT_SPARK_MASTER = "local[*]"
DEFAULT_RETRAIN_CRON = "0 3 * * 1"  # Mondays 03:00 UTC


class SettingsError(ValueError):
    """A setting has a value plumbline cannot use. The message names the setting."""

    def __init__(self, setting: str, accepted: str, got: object) -> None:
        self.setting = setting
        super().__init__(f"{setting} must be {accepted}; got {redact(repr(got))}")


@dataclass(frozen=True)
class SettingDoc:
    name: str
    default: str
    meaning: str


# The documented settings, in the order the README's table shows them.
SETTINGS_DOCS: tuple[SettingDoc, ...] = (
    SettingDoc(
        "PLUMBLINE_HOME",
        DEFAULT_HOME,
        "Where plumbline keeps its state: the Parquet lake (`lake/`), the Dagster "
        "instance (`dagster/`, used as `DAGSTER_HOME`), the contracts each table was published "
        "under (`contracts/`), training runs' checkpoints (`training/`), MLflow's `mlflow.db` "
        "and artifacts (`mlartifacts/`), the models' audit bundles (`audit/`), what DuckDB "
        "spills beyond its memory limit while a step runs (`spill/`).",
    ),
    SettingDoc(
        "PLUMBLINE_SCALE",
        str(DEFAULT_SCALE),
        "TPC-H scale factor of the generated raw lake (1 = 6 million line items).",
    ),
    SettingDoc(
        "PLUMBLINE_ENGINE", DEFAULT_ENGINE, "SQL engine that builds tables: `duckdb` or `spark`."
    ),
    SettingDoc(
        "PLUMBLINE_DUCKDB_MEMORY_LIMIT",
        DEFAULT_DUCKDB_MEMORY_LIMIT,
        "Memory each DuckDB database of a step may hold (builds, digests, reconciliation, "
        "contract validation, source ingestion), in DuckDB's units (`512MB`, `4GB`); beyond "
        "it DuckDB spills to `$PLUMBLINE_HOME/spill`. Each step's peak RSS is in its "
        "materialization's `peak_rss_mb` and the run's summary.",
    ),
    SettingDoc(
        "PLUMBLINE_SPARK_MASTER",
        DEFAULT_SPARK_MASTER,
        "Spark master when the engine is `spark`: `local[*]`, a cluster URL "
        "(`spark://host:7077`) or Spark Connect (`sc://host:15002`).",
    ),
    SettingDoc(
        "PLUMBLINE_MLFLOW_URI",
        "sqlite:///$PLUMBLINE_HOME/mlflow.db",
        "MLflow tracking and registry URI. Credentials in it (`https://user:token@host`) "
        "are taken out at once: they reach MLflow and the training processes as "
        "`MLFLOW_TRACKING_USERNAME` / `MLFLOW_TRACKING_PASSWORD` in the environment, and "
        "every URI plumbline stores, logs or shows is the one without them.",
    ),
    SettingDoc(
        "PLUMBLINE_MLFLOW_UI_URL",
        "the tracking server when PLUMBLINE_MLFLOW_URI is one, else http://127.0.0.1:5000",
        "Where people open the MLflow UI: the one address both the Dagster UI's links to "
        "each training run, model version and audit report (written into a run's metadata "
        "as it runs) and `plumbline mlflow-ui` (`make mlflow-ui`) follow. A local "
        "`http://127.0.0.1:PORT` (or `localhost`) is where `plumbline mlflow-ui` serves the "
        "store by default; its `--port`/`--host` elsewhere warns that the links do not open "
        "it. To serve on another port, set this (`http://127.0.0.1:5300`) before "
        "`plumbline run` and `plumbline ui`.",
    ),
    SettingDoc(
        "PLUMBLINE_MASKING_KEY",
        "a random key in $PLUMBLINE_HOME/masking.key",
        "Key of the keyed hash that masks restricted and confidential contract columns in "
        "check results; set the same value on every machine of a deployment that does not "
        "share a home. Never logged.",
    ),
    SettingDoc(
        "PLUMBLINE_ALLOW_REVEAL",
        "unset",
        "`1` lets `plumbline query --reveal COLUMN` show a column classified `restricted` in "
        "the clear (a `confidential` one needs only `--reveal`); every reveal is appended to "
        "`$PLUMBLINE_HOME/logs/access.jsonl`.",
    ),
    SettingDoc(
        "PLUMBLINE_CATALOG",
        "sql/catalog.yaml",
        "The catalog the `ansi/` and `warehouse/` assets (and `plumbline translate` without "
        "`--catalog`) resolve legacy table names in: one or more catalog files, separated by "
        "`:` (merged; a table defined differently in two files is an error naming both). "
        "`plumbline catalog import` writes one from DDL or a lake.",
    ),
    SettingDoc(
        "PLUMBLINE_LEGACY_ROOT",
        "sql/legacy",
        "The legacy SQL the `ansi/` and `warehouse/` assets are drawn from: a folder of "
        "`<dialect>/<name>.sql` files.",
    ),
    SettingDoc(
        "PLUMBLINE_RETRAIN_CRON",
        DEFAULT_RETRAIN_CRON,
        "Cron schedule (UTC) of the weekly `retrain_job` (training set, model, registration, "
        "scores).",
    ),
    SettingDoc(
        "PLUMBLINE_LAUNCHER",
        "local",
        "How `models/delay_model` starts training: `local` (single-node `torchrun` here, listening on 127.0.0.1 only) or "
        "`k8s` (multi-node torchrun on a Kubernetes GPU pool through `PipesK8sClient`; see "
        "`deploy/README.md`).",
    ),
    SettingDoc(
        "PLUMBLINE_K8S_IMAGE",
        "none",
        "With `k8s`: the training image (`deploy/Dockerfile.train`), by tag or digest. Required.",
    ),
    SettingDoc(
        "PLUMBLINE_K8S_NAMESPACE",
        str(K8S_DEFAULTS["namespace"]),
        "With `k8s`: the namespace of the training pods.",
    ),
    SettingDoc(
        "PLUMBLINE_K8S_GPU",
        str(K8S_DEFAULTS["gpu"]),
        "With `k8s`: the GPU pool, `h100`, `h200` or `gb200`.",
    ),
    SettingDoc(
        "PLUMBLINE_K8S_NODES", str(K8S_DEFAULTS["nodes"]), "With `k8s`: nodes per training run."
    ),
    SettingDoc(
        "PLUMBLINE_K8S_GPUS_PER_NODE",
        "all of the node's",
        "With `k8s`: GPUs (one process each) per node; at most the product's (8, 8, 4).",
    ),
    SettingDoc(
        "PLUMBLINE_K8S_SPOT",
        str(K8S_DEFAULTS["spot"]).lower(),
        "With `k8s`: `true` to run the worker nodes on spot/preemptible capacity (a lost node "
        "resumes from the last checkpoint).",
    ),
)

# Kubernetes request fields -> the settings that set them (errors name the setting).
K8S_SETTINGS = {
    "image": "PLUMBLINE_K8S_IMAGE",
    "namespace": "PLUMBLINE_K8S_NAMESPACE",
    "gpu": "PLUMBLINE_K8S_GPU",
    "nodes": "PLUMBLINE_K8S_NODES",
    "gpus_per_node": "PLUMBLINE_K8S_GPUS_PER_NODE",
    "spot": "PLUMBLINE_K8S_SPOT",
}
# The fields of Settings and of TrainingLauncherResource that describe the pool, named after
# the K8sTrainingRequest field each one fills.
K8S_FIELDS = tuple(f"k8s_{name}" for name in K8S_SETTINGS)


def k8s_request_from(placement: object, *, job_name: str, shared_mount_path: str, **more: object):
    """The K8sTrainingRequest that ``placement``'s ``k8s_*`` fields (Settings, or the training
    launcher resource) describe: the one mapping from those fields to the request."""
    from pipelines.launch.k8s.request import K8sTrainingRequest

    described = {name: getattr(placement, f"k8s_{name}") for name in K8S_SETTINGS}
    return K8sTrainingRequest(
        **described, job_name=job_name, shared_mount_path=shared_mount_path, **more
    )


@dataclass(frozen=True)
class Settings:
    home: Path
    scale: float = DEFAULT_SCALE
    engine: Engine = DEFAULT_ENGINE
    duckdb_memory_limit: str = DEFAULT_DUCKDB_MEMORY_LIMIT
    spark_master: str = DEFAULT_SPARK_MASTER
    mlflow_uri: str = field(default="")
    catalog: tuple[Path, ...] = (DEFAULT_CATALOG_PATH,)
    legacy_root: Path = LEGACY_ROOT
    retrain_cron: str = DEFAULT_RETRAIN_CRON
    launcher: Launcher = "local"
    k8s_image: str = ""
    k8s_namespace: str = K8S_DEFAULTS["namespace"]  # type: ignore[assignment]
    k8s_gpu: str = K8S_DEFAULTS["gpu"]  # type: ignore[assignment]
    k8s_nodes: int = K8S_DEFAULTS["nodes"]  # type: ignore[assignment]
    k8s_gpus_per_node: int | None = K8S_DEFAULTS["gpus_per_node"]  # type: ignore[assignment]
    k8s_spot: bool = K8S_DEFAULTS["spot"]  # type: ignore[assignment]
    # (username, password) taken out of the MLflow URI: never in repr, never compared, never
    # in a URI again; only in the environment (``to_env``) that MLflow's client reads.
    mlflow_credentials: tuple[str, str] | None = field(default=None, repr=False, compare=False)
    # PLUMBLINE_MASKING_KEY: never in repr, never compared; None means the home's own key
    # (masking_key_path).
    masking_key: str | None = field(default=None, repr=False, compare=False)
    # PLUMBLINE_ALLOW_REVEAL=1: `plumbline query --reveal` may show a restricted column.
    allow_reveal: bool = False
    # PLUMBLINE_MLFLOW_UI_URL; empty means the tracking server itself, or the local
    # `plumbline mlflow-ui` (DEFAULT_MLFLOW_UI_URL) for a sqlite store.
    mlflow_ui_url: str = ""

    def __post_init__(self) -> None:
        # Validation lives here so that a Settings built in code is checked like one
        # read from the environment.
        public_uri, credentials = split_credentials(self.mlflow_uri)
        if credentials is not None:
            if self.mlflow_credentials is not None and self.mlflow_credentials != credentials:
                raise SettingsError(
                    "PLUMBLINE_MLFLOW_URI",
                    "a URI whose credentials agree with MLFLOW_TRACKING_USERNAME/PASSWORD",
                    redact(self.mlflow_uri),
                )
            object.__setattr__(self, "mlflow_uri", public_uri)
            object.__setattr__(self, "mlflow_credentials", credentials)
        object.__setattr__(self, "home", Path(self.home).expanduser().absolute())
        object.__setattr__(self, "scale", parse_scale(self.scale, "scale"))
        object.__setattr__(self, "engine", parse_engine(self.engine, "engine"))
        object.__setattr__(
            self,
            "duckdb_memory_limit",
            parse_memory(self.duckdb_memory_limit, "PLUMBLINE_DUCKDB_MEMORY_LIMIT"),
        )
        object.__setattr__(
            self, "retrain_cron", parse_cron(self.retrain_cron, "PLUMBLINE_RETRAIN_CRON")
        )
        if self.launcher not in LAUNCHERS:
            raise SettingsError(
                "PLUMBLINE_LAUNCHER", "one of " + ", ".join(LAUNCHERS), self.launcher
            )
        if self.launcher == "k8s":
            self.k8s_request("plumbline-train")  # refused here, before anything starts
        object.__setattr__(self, "catalog", parse_catalog(self.catalog, "PLUMBLINE_CATALOG"))
        object.__setattr__(
            self, "legacy_root", parse_folder(self.legacy_root, "PLUMBLINE_LEGACY_ROOT")
        )
        if not self.mlflow_uri:
            object.__setattr__(self, "mlflow_uri", f"sqlite:///{self.home / 'mlflow.db'}")
        if not self.masking_key:
            object.__setattr__(self, "masking_key", None)
        if not self.mlflow_ui_url:
            server = self.mlflow_uri.startswith(("http://", "https://"))
            object.__setattr__(
                self, "mlflow_ui_url", self.mlflow_uri if server else DEFAULT_MLFLOW_UI_URL
            )
        ui_public, ui_credentials = split_credentials(self.mlflow_ui_url)
        if ui_credentials is not None or not ui_public.startswith(("http://", "https://")):
            raise SettingsError(
                "PLUMBLINE_MLFLOW_UI_URL",
                "an http(s) URL without credentials",
                redact(self.mlflow_ui_url),
            )
        object.__setattr__(self, "mlflow_ui_url", ui_public.rstrip("/"))

    @property
    def lake_root(self) -> Path:
        return self.home / "lake"

    @property
    def ansi_root(self) -> Path:
        return self.home / "ansi"

    @property
    def published_contracts_root(self) -> Path:
        return self.home / "contracts"

    @property
    def training_root(self) -> Path:
        return self.home / "training"

    @property
    def spill_root(self) -> Path:
        """Where DuckDB spills beyond PLUMBLINE_DUCKDB_MEMORY_LIMIT: a folder per connection,
        removed when it closes (pipelines.lake.duckdb_limits)."""
        return self.home / "spill"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"

    @property
    def logs_root(self) -> Path:
        """One log file per `plumbline run` (its steps' lines and third-party output)."""
        return self.home / "logs"

    @property
    def access_log(self) -> Path:
        """Every column `plumbline query --reveal` showed: appended to, never rewritten."""
        return self.logs_root / "access.jsonl"

    @property
    def audit_root(self) -> Path:
        return self.home / "audit"

    @property
    def dependency_cache(self) -> Path:
        """Where the tables each legacy file defines and reads are cached between loads."""
        return self.home / "cache" / "legacy_dependencies.json"

    @property
    def mlflow_artifacts(self) -> Path:
        return self.home / "mlartifacts"

    @property
    def masking_key_path(self) -> Path:
        """The home's masking key, made on first use when PLUMBLINE_MASKING_KEY is unset."""
        return self.home / "masking.key"

    def k8s_request(self, job_name: str):
        """The Kubernetes training request these settings describe (``PLUMBLINE_K8S_*``)."""
        from pipelines.launch.k8s.request import K8sRenderError

        try:
            return k8s_request_from(self, job_name=job_name, shared_mount_path=str(self.home))
        except K8sRenderError as exc:
            setting = K8S_SETTINGS.get(exc.field, f"PLUMBLINE_K8S ({exc.field})")
            raise SettingsError(setting, exc.accepted, exc.got) from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Read settings from ``environ`` (default: the process environment).

        ``overrides`` (from CLI flags) win over the environment and are validated under
        their flag name, so an error says which of the two was wrong.
        """
        env = os.environ if environ is None else environ
        scale = overrides.get("scale")
        engine = overrides.get("engine")
        return cls(
            home=Path(env.get("PLUMBLINE_HOME") or DEFAULT_HOME),
            scale=parse_scale(
                scale if scale is not None else env.get("PLUMBLINE_SCALE", DEFAULT_SCALE),
                "--scale" if scale is not None else "PLUMBLINE_SCALE",
            ),
            engine=parse_engine(
                engine if engine is not None else env.get("PLUMBLINE_ENGINE", DEFAULT_ENGINE),
                "--engine" if engine is not None else "PLUMBLINE_ENGINE",
            ),
            duckdb_memory_limit=parse_memory(
                env.get("PLUMBLINE_DUCKDB_MEMORY_LIMIT") or DEFAULT_DUCKDB_MEMORY_LIMIT,
                "PLUMBLINE_DUCKDB_MEMORY_LIMIT",
            ),
            spark_master=env.get("PLUMBLINE_SPARK_MASTER") or DEFAULT_SPARK_MASTER,
            mlflow_uri=env.get("PLUMBLINE_MLFLOW_URI", ""),
            catalog=parse_catalog(
                env.get("PLUMBLINE_CATALOG") or str(DEFAULT_CATALOG_PATH), "PLUMBLINE_CATALOG"
            ),
            legacy_root=parse_folder(
                env.get("PLUMBLINE_LEGACY_ROOT") or LEGACY_ROOT, "PLUMBLINE_LEGACY_ROOT"
            ),
            retrain_cron=parse_cron(
                env.get("PLUMBLINE_RETRAIN_CRON") or DEFAULT_RETRAIN_CRON,
                "PLUMBLINE_RETRAIN_CRON",
            ),
            launcher=env.get("PLUMBLINE_LAUNCHER") or "local",  # type: ignore[arg-type]
            k8s_image=env.get("PLUMBLINE_K8S_IMAGE", ""),
            k8s_namespace=env.get("PLUMBLINE_K8S_NAMESPACE") or Settings.k8s_namespace,
            k8s_gpu=env.get("PLUMBLINE_K8S_GPU") or Settings.k8s_gpu,
            k8s_nodes=parse_int(env["PLUMBLINE_K8S_NODES"], "PLUMBLINE_K8S_NODES")
            if env.get("PLUMBLINE_K8S_NODES")
            else Settings.k8s_nodes,
            k8s_gpus_per_node=parse_int(
                env["PLUMBLINE_K8S_GPUS_PER_NODE"], "PLUMBLINE_K8S_GPUS_PER_NODE"
            )
            if env.get("PLUMBLINE_K8S_GPUS_PER_NODE")
            else None,
            k8s_spot=parse_bool(env["PLUMBLINE_K8S_SPOT"], "PLUMBLINE_K8S_SPOT")
            if env.get("PLUMBLINE_K8S_SPOT")
            else Settings.k8s_spot,
            masking_key=masking_key_from(env),
            allow_reveal=parse_bool(env["PLUMBLINE_ALLOW_REVEAL"], "PLUMBLINE_ALLOW_REVEAL")
            if env.get("PLUMBLINE_ALLOW_REVEAL")
            else False,
            mlflow_ui_url=env.get("PLUMBLINE_MLFLOW_UI_URL", ""),
        )

    def to_env(self) -> dict[str, str]:
        """The environment that reproduces these settings in a child process."""
        return {
            "PLUMBLINE_HOME": str(self.home),
            "PLUMBLINE_SCALE": format_scale(self.scale),
            "PLUMBLINE_ENGINE": self.engine,
            "PLUMBLINE_DUCKDB_MEMORY_LIMIT": self.duckdb_memory_limit,
            "PLUMBLINE_SPARK_MASTER": self.spark_master,
            "PLUMBLINE_MLFLOW_URI": self.mlflow_uri,
            "PLUMBLINE_CATALOG": os.pathsep.join(str(p) for p in self.catalog),
            "PLUMBLINE_LEGACY_ROOT": str(self.legacy_root),
            "PLUMBLINE_RETRAIN_CRON": self.retrain_cron,
            "PLUMBLINE_LAUNCHER": self.launcher,
            "PLUMBLINE_K8S_IMAGE": self.k8s_image,
            "PLUMBLINE_K8S_NAMESPACE": self.k8s_namespace,
            "PLUMBLINE_K8S_GPU": self.k8s_gpu,
            "PLUMBLINE_K8S_NODES": str(self.k8s_nodes),
            "PLUMBLINE_K8S_GPUS_PER_NODE": str(self.k8s_gpus_per_node or ""),
            "PLUMBLINE_K8S_SPOT": str(self.k8s_spot).lower(),
            "PLUMBLINE_MLFLOW_UI_URL": self.mlflow_ui_url,
            **({"PLUMBLINE_MASKING_KEY": self.masking_key} if self.masking_key else {}),
            **({"PLUMBLINE_ALLOW_REVEAL": "1"} if self.allow_reveal else {}),
            **self.credentials_env(),
        }

    def credentials_env(self) -> dict[str, str]:
        """The MLflow credentials as the environment variables MLflow's REST client reads
        (its only other source is a credentials file, and secrets never go to files), and
        MLflow told not to print its "View run at <tracking URI>" line."""
        quiet = {"MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true"}
        if self.mlflow_credentials is None:
            return quiet
        username, password = self.mlflow_credentials
        return quiet | {"MLFLOW_TRACKING_USERNAME": username, "MLFLOW_TRACKING_PASSWORD": password}

    def export_credentials(self) -> None:
        """Put ``credentials_env`` into this process's environment, where MLflow's client
        and every child process (torchrun's workers, Dagster's run worker) find it."""
        os.environ.update(self.credentials_env())


def masking_key_from(environ: Mapping[str, str] | None = None) -> str | None:
    """``PLUMBLINE_MASKING_KEY`` of ``environ`` (default: the process environment), or None
    when it is unset or empty.

    Besides ``Settings.from_env``, the contracts resource calls this when a check masks a
    value: the key must not be a resource field, which Dagster shows in its UI.
    """
    env = os.environ if environ is None else environ
    return env.get("PLUMBLINE_MASKING_KEY") or None


# scheme://user:password@ or scheme://token@: what a URI must never show.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/@\s:]*)(:[^/@\s]*)?@")


def split_credentials(uri: str) -> tuple[str, tuple[str, str] | None]:
    """``(uri without user:password@, (user, password) or None)``."""
    parts = urllib.parse.urlsplit(uri)
    if "@" not in parts.netloc:
        return uri, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    public = urllib.parse.urlunsplit(parts._replace(netloc=hostport))
    return public, (urllib.parse.unquote(user), urllib.parse.unquote(password))


def redact(text: str) -> str:
    """``text`` with every URI's password (or bare token) replaced by ``***``:
    ``https://user:s3cret@host`` becomes ``https://user:***@host``."""

    def masked(match: re.Match[str]) -> str:
        if match.group(3) is None:  # a bare token: https://TOKEN@host
            return f"{match.group('scheme')}***@"
        return f"{match.group('scheme')}{match.group('user')}:***@"

    return _USERINFO.sub(masked, text)


def shown_path(path: str | Path, home: str | Path | None = None) -> str:
    """``path`` as a person reads it: ``$PLUMBLINE_HOME/...`` under the home, relative under
    the repository, else as it is (a URI stays a URI)."""
    text = str(path)
    if "://" in text:
        return text
    absolute = Path(text).absolute()
    if home:
        try:
            return "$PLUMBLINE_HOME/" + absolute.relative_to(Path(home).absolute()).as_posix()
        except ValueError:
            pass
    try:
        return absolute.relative_to(REPOSITORY_ROOT).as_posix()
    except ValueError:
        return text


def parse_cron(value: object, setting: str) -> str:
    text = str(value).strip()
    if text == DEFAULT_RETRAIN_CRON:
        # The default is a valid schedule (tests/pipelines/test_settings.py checks it through
        # Dagster): a command that reads the settings need not import Dagster for it.
        return text
    import dagster as dg

    try:
        # Dagster's own rule for a schedule's cron string (five fields, no 30 February),
        # through its public API: the schedule this setting makes would refuse the same.
        dg.ScheduleDefinition(name="parse_cron", cron_schedule=text, job_name="parse_cron")
    except dg.DagsterInvalidDefinitionError:
        raise SettingsError(setting, "a cron expression such as '0 3 * * 1'", value) from None
    return text


def parse_catalog(value: object, setting: str) -> tuple[Path, ...]:
    """Catalog files, given as a ``:``-separated list (or a sequence of paths); each must
    be a readable file. Relative paths are taken from the working directory."""
    parts = value.split(os.pathsep) if isinstance(value, str) else list(value)  # type: ignore[call-overload]
    paths = tuple(Path(p).expanduser().absolute() for p in parts if str(p).strip())
    accepted = f"one or more catalog files separated by '{os.pathsep}'"
    if not paths:
        raise SettingsError(setting, accepted, value)
    for path in paths:
        if not path.is_file():
            raise SettingsError(setting, f"{accepted} (no such file: {path})", value)
    return paths


def parse_folder(value: object, setting: str) -> Path:
    """An existing folder; a relative path is taken from the working directory."""
    path = Path(str(value)).expanduser().absolute()
    if not str(value).strip() or not path.is_dir():
        raise SettingsError(setting, "an existing folder", str(value))
    return path


def parse_scale(value: object, setting: str) -> float:
    accepted = "a positive number (TPC-H scale factor, e.g. 0.01, 0.1, 1)"
    try:
        scale = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SettingsError(setting, accepted, value) from None
    if not math.isfinite(scale) or scale <= 0:
        raise SettingsError(setting, accepted, value)
    return scale


# DuckDB's memory sizes: a number and a unit, decimal (KB, MB, GB, TB) or binary (KiB...).
_MEMORY = re.compile(r"(\d+(?:\.\d+)?)\s*(B|[KMGT]i?B)", re.IGNORECASE)


_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_UNITS |= {f"{unit[0]}IB": 2 ** (10 * power) for power, unit in enumerate(_UNITS) if power}


def memory_size(text: str) -> int:
    """Bytes of a memory size as DuckDB reads it (``2GB``: 2 * 10**9; ``2GiB``: 2 * 2**30)."""
    match = _MEMORY.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a memory size: {text!r}")
    return int(float(match[1]) * _UNITS[match[2].upper()])


def parse_memory(value: object, setting: str) -> str:
    """A memory size DuckDB's ``memory_limit`` takes, such as ``2GB`` or ``512MiB``."""
    text = str(value).strip()
    match = _MEMORY.fullmatch(text)
    if match is None or float(match[1]) <= 0:
        raise SettingsError(setting, "a memory size such as 2GB or 512MB", value)
    return text


def parse_int(value: object, setting: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise SettingsError(setting, "a whole number", value) from None


def parse_bool(value: object, setting: str) -> bool:
    text = str(value).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no"):
        raise SettingsError(setting, "true or false", value)
    return text in ("true", "1", "yes")


def parse_engine(value: object, setting: str) -> Engine:
    if value not in ENGINES:
        raise SettingsError(setting, "one of " + ", ".join(ENGINES), value)
    return value  # type: ignore[return-value]


def check_home_writable(home: Path) -> None:
    """Fail with a SettingsError unless ``home`` exists as a writable folder or can be made.

    Nothing is left behind: the probe is a temporary folder created and removed in the
    deepest existing ancestor. A real write is the only reliable test when running as root,
    where permission bits do not stop writes but read-only mounts and pseudo file systems do.
    """
    accepted = "a folder plumbline can create and write"
    probe_parent = home
    while not probe_parent.exists():
        if probe_parent.parent == probe_parent:
            break
        probe_parent = probe_parent.parent
    if not probe_parent.is_dir():
        raise SettingsError("PLUMBLINE_HOME", accepted, str(home))
    try:
        tempfile.TemporaryDirectory(dir=probe_parent, prefix=".plumbline-probe-").cleanup()
    except OSError:
        raise SettingsError("PLUMBLINE_HOME", accepted, str(home)) from None
