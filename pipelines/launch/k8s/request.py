"""What a Kubernetes training run asks the cluster for, validated before anything is rendered.

Every check names the field and what it accepts, so that a request the cluster cannot satisfy
(more GPUs per node than the product has, GB200 options on an H100 pool, a missing image)
fails here, before a single object is submitted.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType

from pipelines.launch.k8s.gpus import GPU_PRODUCTS, GpuProduct, known_gpus

# Longest job_name: derived names ("<job>-worker-<index>" as a pod hostname, a DNS label)
# must stay within 63 characters for any node count.
MAX_JOB_NAME = 40
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")  # RFC 1035 (Service, Job names)
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")  # RFC 1123 label
# Kubernetes supports clusters of at most 5,000 nodes
# (https://kubernetes.io/docs/setup/best-practices/cluster-large/).
MAX_NODES = 5000
# Where the shared volume must not be mounted: it would hide the image's own files there.
SYSTEM_PATHS = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/var/run",
)
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_NCCL_KEY = re.compile(r"^(NCCL|TORCH_NCCL)_[A-Z0-9_]+$")
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$")
_CPU = re.compile(r"^[0-9]+(\.[0-9]+)?m?$")
_UNITS = {
    None: 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
}
PULL_POLICIES = ("Always", "IfNotPresent", "Never")


class K8sRenderError(ValueError):
    """A training request or job the cluster cannot run. ``field`` names the request field
    (or ``job.<field>``) so that callers can point at their own flag or setting."""

    def __init__(self, field: str, accepted: str, got: object) -> None:
        self.field = field
        self.accepted = accepted
        self.got = got
        super().__init__(f"{field} must be {accepted}; got {got!r}")

    def renamed(self, name: str) -> K8sRenderError:
        """The same error under another name (a CLI flag, a setting)."""
        return K8sRenderError(name, self.accepted, self.got)


def quantity_bytes(value: str) -> int:
    """``"64Gi"`` -> 68719476736: a Kubernetes memory quantity in bytes."""
    match = _QUANTITY.match(value)
    if match is None:
        raise ValueError(value)
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def check_image(image: object) -> str:
    accepted = (
        "a container image pinned by tag or digest "
        "(registry/name:tag or name@sha256:...), not 'latest'"
    )
    if not isinstance(image, str) or not image or any(c.isspace() for c in image):
        raise K8sRenderError("image", accepted, image)
    name, _, digest = image.partition("@")
    if digest:
        if not _DIGEST.match(digest):
            raise K8sRenderError("image", accepted, image)
        return image
    last = name.rsplit("/", 1)[-1]
    _, colon, tag = last.partition(":")
    if not colon or not _TAG.match(tag) or tag == "latest":
        raise K8sRenderError("image", accepted, image)
    return image


@dataclass(frozen=True)
class K8sTrainingRequest:
    """One multi-node DDP training on Kubernetes: ``nodes`` x ``gpus_per_node`` GPUs of
    product ``gpu``, torchrun on every node, rank 0's node launched through Dagster Pipes."""

    image: str
    """The training image (deploy/Dockerfile.train), pinned by tag or digest."""
    job_name: str = "plumbline-train"
    """Name of the Service, the worker Job and rank 0's hostname; unique per run."""
    namespace: str = "default"
    gpu: str = "h100"
    """One of GPU_PRODUCTS: h100, h200, gb200."""
    nodes: int = 1
    gpus_per_node: int | None = None
    """torchrun processes per node, one per GPU; None: every GPU the product has."""
    spot: bool = False
    """Tolerate spot/preemptible capacity for the worker nodes."""
    rank0_on_spot: bool = False
    """With ``spot``, let rank 0's node run on spot too. By default it is kept on on-demand
    capacity: losing the Pipes pod ends the Dagster step, losing a worker only restarts the
    worker group from the last checkpoint."""
    imex: bool = False
    """GB200 NVL72: request an IMEX channel through a ComputeDomain (multi-node NVLink)."""
    nccl: Mapping[str, str] = field(default_factory=dict)
    """NCCL_* / TORCH_NCCL_* environment variables for every training process."""
    shm_size: str = "64Gi"
    """Size of the memory-backed /dev/shm (DataLoader workers, NCCL's shared-memory transport)."""
    shared_claim: str = "plumbline-shared"
    """ReadWriteMany PersistentVolumeClaim holding job.json, the training set, checkpoints."""
    shared_mount_path: str = "/mnt/plumbline"
    """Where the claim is mounted, in the training pods and in Dagster's run pods alike."""
    max_restarts: int = 3
    """torchrun --max-restarts: worker-group restarts, each resuming from the last checkpoint."""
    pod_retries: int = 3
    """Replacement pods per worker index for failures that are not disruptions."""
    rendezvous_port: int = 29500
    rendezvous_timeout_s: int = 1800
    """How long nodes wait for each other to join: covers GPU node scale-up."""
    cpu: str | None = None
    """CPU request per node (e.g. "96"); None leaves it to the namespace's defaults."""
    memory: str | None = None
    """Memory request and limit per node (e.g. "1600Gi"); must exceed shm_size, which
    counts against it."""
    service_account: str | None = None
    image_pull_policy: str = "IfNotPresent"

    def __post_init__(self) -> None:
        check_image(self.image)
        if not isinstance(self.job_name, str) or not (
            _DNS_LABEL.match(self.job_name) and len(self.job_name) <= MAX_JOB_NAME
        ):
            raise K8sRenderError(
                "job_name",
                f"a DNS label of at most {MAX_JOB_NAME} characters "
                "(lowercase letters, digits, '-', starting with a letter)",
                self.job_name,
            )
        if not isinstance(self.namespace, str) or not (
            _NAMESPACE.match(self.namespace) and len(self.namespace) <= 63
        ):
            raise K8sRenderError("namespace", "a Kubernetes namespace name", self.namespace)
        if self.gpu not in GPU_PRODUCTS:
            raise K8sRenderError("gpu", f"one of {known_gpus()}", self.gpu)
        product = GPU_PRODUCTS[self.gpu]
        _check_int("nodes", self.nodes, 1)
        if self.nodes > MAX_NODES:
            raise K8sRenderError(
                "nodes",
                f"at most {MAX_NODES} (the largest cluster Kubernetes supports)",
                self.nodes,
            )
        gpus = product.gpus_per_node if self.gpus_per_node is None else self.gpus_per_node
        if not _is_int(gpus) or not 1 <= gpus <= product.gpus_per_node:
            raise K8sRenderError(
                "gpus_per_node",
                f"between 1 and {product.gpus_per_node} "
                f"({self.gpu} nodes have {product.gpus_per_node} GPUs)",
                self.gpus_per_node,
            )
        object.__setattr__(self, "gpus_per_node", gpus)
        self._check_flags(product)
        self._check_storage()
        _check_int("max_restarts", self.max_restarts, 0)
        _check_int("pod_retries", self.pod_retries, 0)
        if not _is_int(self.rendezvous_port) or not 1 <= self.rendezvous_port <= 65535:
            raise K8sRenderError("rendezvous_port", "a TCP port (1-65535)", self.rendezvous_port)
        _check_int("rendezvous_timeout_s", self.rendezvous_timeout_s, 60)
        if self.image_pull_policy not in PULL_POLICIES:
            raise K8sRenderError(
                "image_pull_policy", "one of " + ", ".join(PULL_POLICIES), self.image_pull_policy
            )
        if self.service_account is not None and not (
            isinstance(self.service_account, str) and _SUBDOMAIN.match(self.service_account)
        ):
            raise K8sRenderError(
                "service_account", "a service account name or None", self.service_account
            )
        self._check_resources()
        nccl = dict(self.nccl)
        for key, value in nccl.items():
            if not isinstance(key, str) or not _NCCL_KEY.match(key):
                raise K8sRenderError(
                    "nccl", "NCCL_* or TORCH_NCCL_* environment variable names", key
                )
            if not isinstance(value, str):
                raise K8sRenderError("nccl", f"string values ({key}=...)", value)
        # Sorted: the rendered env (and its snapshot) does not depend on the order the
        # settings were given in.
        object.__setattr__(self, "nccl", dict(sorted(nccl.items())))

    def _check_flags(self, product: GpuProduct) -> None:
        for name in ("spot", "rank0_on_spot", "imex"):
            if not isinstance(getattr(self, name), bool):
                raise K8sRenderError(name, "true or false", getattr(self, name))
        if self.rank0_on_spot and not self.spot:
            raise K8sRenderError("rank0_on_spot", "false unless spot is true", True)
        if self.imex and not product.imex:
            imex_gpus = ", ".join(p.name for p in GPU_PRODUCTS.values() if p.imex)
            raise K8sRenderError(
                "imex",
                f"false for {self.gpu}: IMEX channels / ComputeDomains exist only on NVL72 "
                f"products ({imex_gpus})",
                self.imex,
            )
        if self.imex and self.nodes > product.max_imex_nodes:
            raise K8sRenderError(
                "nodes",
                f"at most {product.max_imex_nodes} with imex (one {self.gpu} NVLink domain is "
                f"one rack of {product.max_imex_nodes} nodes)",
                self.nodes,
            )

    def _check_storage(self) -> None:
        if not isinstance(self.shared_claim, str) or not (
            _SUBDOMAIN.match(self.shared_claim) and len(self.shared_claim) <= 253
        ):
            raise K8sRenderError("shared_claim", "a PersistentVolumeClaim name", self.shared_claim)
        path = self.shared_mount_path
        if (
            not isinstance(path, str)
            or not path.startswith("/")
            or posixpath.normpath(path) != path
            or path == "/"
            or any(path == system or path.startswith(system + "/") for system in SYSTEM_PATHS)
        ):
            raise K8sRenderError(
                "shared_mount_path",
                "an absolute, normalised folder other than / and outside the system folders ("
                + ", ".join(SYSTEM_PATHS)
                + ")",
                path,
            )
        try:
            shm = quantity_bytes(self.shm_size)
        except (TypeError, ValueError):
            shm = 0
        if shm <= 0:
            raise K8sRenderError(
                "shm_size", "a positive memory quantity such as 64Gi or 512Mi", self.shm_size
            )

    def _check_resources(self) -> None:
        if self.cpu is not None and not (isinstance(self.cpu, str) and _CPU.match(self.cpu)):
            raise K8sRenderError("cpu", "a CPU quantity such as 96 or 500m, or None", self.cpu)
        if self.memory is None:
            return
        try:
            memory = quantity_bytes(self.memory)
        except (TypeError, ValueError):
            raise K8sRenderError(
                "memory", "a memory quantity such as 1600Gi, or None", self.memory
            ) from None
        # A memory-backed emptyDir is charged to the container: /dev/shm must fit inside.
        if memory <= quantity_bytes(self.shm_size):
            raise K8sRenderError(
                "memory",
                f"larger than shm_size ({self.shm_size}), which counts against it",
                self.memory,
            )

    @property
    def product(self) -> GpuProduct:
        return GPU_PRODUCTS[self.gpu]

    @property
    def world_size(self) -> int:
        return self.nodes * self.gpus_per_node  # type: ignore[operator]


# Each field's default, declared once (above): the settings, the launcher resource and
# `plumbline k8s render` take theirs from here.
K8S_DEFAULTS: Mapping[str, object] = MappingProxyType(
    {f.name: f.default for f in fields(K8sTrainingRequest) if f.default is not MISSING}
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(name: str, value: object, minimum: int) -> None:
    if not _is_int(value) or value < minimum:  # type: ignore[operator]
        raise K8sRenderError(name, f"an integer >= {minimum}", value)
