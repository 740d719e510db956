"""The Kubernetes objects of one multi-node training run, as plain dicts (no Dagster here).

What is submitted, for N nodes of G GPUs:

* a headless Service: stable DNS names ``<host>.<service>`` for every training pod, published
  before the pods are ready, so that torchrun's c10d rendezvous can start;
* rank 0's Pod (hostname ``<job>-0``): launched by Dagster's ``PipesK8sClient``, which streams
  its logs and Pipes messages back into the asset. It hosts the rendezvous store;
* an Indexed Job for nodes 1..N-1 (absent when N = 1), pods ``<job>-worker-<index>``;
* on GB200 with ``imex``: a ComputeDomain (NVIDIA's DRA driver), whose ResourceClaimTemplate
  every pod claims an IMEX channel from.

torchrun's c10d rendezvous assigns node ranks itself, in the sorted order of the nodes'
addresses (``--local-addr``); ``<job>-0.`` sorts before every ``<job>-worker-<i>.``, so the
node launched through Pipes always holds global rank 0, the only process that opens the
Pipes context (models/train.py).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

import yaml

from models.job import JOB_FILE, TRAINING_MODULE, TrainingJob
from pipelines.launch.k8s.gpus import ARCH_LABEL, CLIQUE_LABEL, GPU_RESOURCE, PRODUCT_LABEL
from pipelines.launch.k8s.request import K8sRenderError, K8sTrainingRequest

# The Secret holding MLFLOW_TRACKING_USERNAME / MLFLOW_TRACKING_PASSWORD (deploy/README.md).
MLFLOW_CREDENTIALS_SECRET = "plumbline-mlflow-client"

CONTAINER_NAME = "trainer"
SHM_VOLUME = "dshm"
SHARED_VOLUME = "shared"
IMEX_CLAIM = "imex-channel"
COMPUTE_DOMAIN_GROUP = "resource.nvidia.com"
COMPUTE_DOMAIN_VERSION = "v1beta1"
COMPUTE_DOMAIN_PLURAL = "computedomains"
ROLE_RANK0 = "rank0"
ROLE_WORKER = "worker"
INSTANCE_LABEL = "app.kubernetes.io/instance"
COMPONENT_LABEL = "app.kubernetes.io/component"
# A finished worker Job lingers this long if the launcher could not delete it.
WORKER_JOB_TTL_S = 3600
# torchrun exits 1 when its workers failed after --max-restarts, and also when the
# rendezvous timed out (say rank 0 still waited for a GPU node): a new pod may succeed.
# 2 is a usage error (argparse), 126/127 a command this image cannot run: no retry helps.
NON_RETRYABLE_EXIT_CODES = (2, 126, 127)
# Taints that managed Kubernetes services document for spot node pools: AKS puts
# kubernetes.azure.com/scalesetpriority=spot:NoSchedule on every spot pool; GKE documents
# cloud.google.com/gke-spot=true:NoSchedule for spot pools created with that taint. EKS
# (managed node groups, Karpenter) labels spot nodes but does not taint them.
SPOT_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true"},
    {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot"},
)
# Labels that mark spot capacity (GKE, AKS, EKS managed node groups, Karpenter): rank 0 is
# kept off them unless the request allows it.
SPOT_NODE_LABELS: tuple[tuple[str, str], ...] = (
    ("cloud.google.com/gke-spot", "true"),
    ("kubernetes.azure.com/scalesetpriority", "spot"),
    ("eks.amazonaws.com/capacityType", "SPOT"),
    ("karpenter.sh/capacity-type", "spot"),
)
# GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule; many self-managed pools follow it.
GPU_TOLERATION = {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}


@dataclass(frozen=True)
class Names:
    """The names derived from ``job_name``."""

    service: str
    worker_job: str
    rank0_host: str
    compute_domain: str
    claim_template: str

    @classmethod
    def of(cls, request: K8sTrainingRequest) -> Names:
        job = request.job_name
        return cls(
            service=job,
            worker_job=f"{job}-worker",
            rank0_host=f"{job}-0",
            compute_domain=f"{job}-compute-domain",
            claim_template=f"{job}-imex-channel",
        )

    def worker_host(self, index: int | str) -> str:
        """The hostname the Job controller gives worker ``index`` (``<job>-<index>``)."""
        return f"{self.worker_job}-{index}"


def rendezvous_endpoint(request: K8sTrainingRequest) -> str:
    names = Names.of(request)
    return f"{names.rank0_host}.{names.service}:{request.rendezvous_port}"


def job_file(job: TrainingJob) -> str:
    return posixpath.join(job.output_dir, JOB_FILE)


def labels(request: K8sTrainingRequest, role: str | None = None) -> dict[str, str]:
    found = {
        "app.kubernetes.io/name": "plumbline-training",
        INSTANCE_LABEL: request.job_name,
        "app.kubernetes.io/part-of": "plumbline",
        "app.kubernetes.io/managed-by": "plumbline",
    }
    if role is not None:
        found[COMPONENT_LABEL] = role
    return found


def rank0_selector(request: K8sTrainingRequest) -> str:
    """Label selector of rank 0's pod (whatever name PipesK8sClient gives it)."""
    return f"{INSTANCE_LABEL}={request.job_name},{COMPONENT_LABEL}={ROLE_RANK0}"


def render(request: K8sTrainingRequest, job: TrainingJob) -> list[dict[str, Any]]:
    """The objects the Kubernetes launcher submits for ``job``, in submission order.

    Raises :class:`K8sRenderError` when the job's files are not on the shared volume.
    """
    check_job(request, job)
    manifests: list[dict[str, Any]] = []
    if request.imex:
        manifests.append(compute_domain(request))
    manifests.append(service(request))
    if request.nodes > 1:
        manifests.append(worker_job(request, job))
    manifests.append(rank0_pod(request, job))
    return manifests


def to_yaml(manifests: list[dict[str, Any]]) -> str:
    """Multi-document YAML, as ``kubectl apply -f -`` reads it."""
    return yaml.safe_dump_all(manifests, sort_keys=False, explicit_start=True)


def check_job(request: K8sTrainingRequest, job: TrainingJob) -> None:
    """Every pod reads job.json and the training set and writes checkpoints through the
    shared claim: those paths must lie under its mount path."""
    root = request.shared_mount_path
    accepted = f"a folder under shared_mount_path {root} (the shared volume every pod mounts)"
    for name in ("output_dir", "data_path"):
        if not _under(getattr(job, name), root):
            raise K8sRenderError(f"job.{name}", accepted, getattr(job, name))
    local = _local_path(job.mlflow_uri)
    if local is not None and not _under(local, root):
        raise K8sRenderError(
            "job.mlflow_uri",
            f"a tracking server (http(s)://...) or a store under {root}",
            job.mlflow_uri,
        )


def service(request: K8sTrainingRequest) -> dict[str, Any]:
    names = Names.of(request)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _metadata(request, names.service),
        "spec": {
            # Headless: DNS answers with the pods' own addresses, one name per pod.
            "clusterIP": "None",
            # torchrun's nodes must resolve each other before any of them is ready.
            "publishNotReadyAddresses": True,
            "selector": {INSTANCE_LABEL: request.job_name},
            "ports": [
                {
                    "name": "c10d",
                    "port": request.rendezvous_port,
                    "targetPort": request.rendezvous_port,
                    "protocol": "TCP",
                }
            ],
        },
    }


def worker_job(request: K8sTrainingRequest, job: TrainingJob) -> dict[str, Any]:
    names = Names.of(request)
    workers = request.nodes - 1
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(request, names.worker_job, ROLE_WORKER),
        "spec": {
            "completionMode": "Indexed",
            "completions": workers,
            "parallelism": workers,
            "backoffLimitPerIndex": request.pod_retries,
            # One worker that cannot be replaced fails the whole training.
            "maxFailedIndexes": 0,
            # A replacement starts only once the old pod is gone: both would claim the
            # same hostname and rank.
            "podReplacementPolicy": "Failed",
            "podFailurePolicy": {
                "rules": [
                    {
                        # Spot preemption, eviction, node drain: not the training's fault.
                        # The replacement rejoins and torchrun resumes from the checkpoint.
                        "action": "Ignore",
                        "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
                    },
                    {
                        "action": "FailJob",
                        "onExitCodes": {
                            "containerName": CONTAINER_NAME,
                            "operator": "In",
                            "values": list(NON_RETRYABLE_EXIT_CODES),
                        },
                    },
                ]
            },
            "ttlSecondsAfterFinished": WORKER_JOB_TTL_S,
            "template": {
                "metadata": {"labels": labels(request, ROLE_WORKER)},
                "spec": pod_spec(request, job, ROLE_WORKER),
            },
        },
    }


def rank0_pod(request: K8sTrainingRequest, job: TrainingJob) -> dict[str, Any]:
    """Rank 0's pod as a reviewable object. The launcher hands its metadata and spec to
    ``PipesK8sClient``, which names the pod itself and adds the Pipes environment."""
    names = Names.of(request)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _metadata(request, names.rank0_host, ROLE_RANK0),
        "spec": pod_spec(request, job, ROLE_RANK0),
    }


def compute_domain(request: K8sTrainingRequest) -> dict[str, Any]:
    names = Names.of(request)
    return {
        "apiVersion": f"{COMPUTE_DOMAIN_GROUP}/{COMPUTE_DOMAIN_VERSION}",
        "kind": "ComputeDomain",
        "metadata": _metadata(request, names.compute_domain),
        "spec": {
            # The node count; recent driver versions only use it for the status they report,
            # older ones hold pods until this many IMEX daemons joined.
            "numNodes": request.nodes,
            "channel": {"resourceClaimTemplate": {"name": names.claim_template}},
        },
    }


def torchrun_command(request: K8sTrainingRequest, job: TrainingJob, role: str) -> list[str]:
    names = Names.of(request)
    # Kubernetes expands $(VAR) in a command from the container's environment; the Job
    # controller sets JOB_COMPLETION_INDEX in every Indexed Job pod.
    worker_host = names.worker_host("$(JOB_COMPLETION_INDEX)")
    host = names.rank0_host if role == ROLE_RANK0 else worker_host
    timeout = request.rendezvous_timeout_s
    # is_host is explicit: only rank 0's node serves the rendezvous store, whatever the
    # hostname heuristics say. read_timeout also bounds how long a worker keeps trying to
    # reach that store while rank 0's node is still being provisioned.
    rendezvous_conf = (
        f"is_host={'true' if role == ROLE_RANK0 else 'false'},"
        f"join_timeout={timeout},read_timeout={timeout}"
    )
    return [
        "torchrun",
        f"--nnodes={request.nodes}",
        f"--nproc-per-node={request.gpus_per_node}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint={rendezvous_endpoint(request)}",
        f"--rdzv-id={request.job_name}",
        f"--rdzv-conf={rendezvous_conf}",
        # Node ranks follow the sorted node addresses: rank 0's sorts first.
        f"--local-addr={host}.{names.service}",
        f"--max-restarts={request.max_restarts}",
        "-m",
        TRAINING_MODULE,
        "--job",
        job_file(job),
    ]


def pod_spec(request: K8sTrainingRequest, job: TrainingJob, role: str) -> dict[str, Any]:
    names = Names.of(request)
    spec: dict[str, Any] = {}
    if role == ROLE_RANK0:
        spec["hostname"] = names.rank0_host
    spec["subdomain"] = names.service
    spec["restartPolicy"] = "Never"
    if request.service_account is not None:
        spec["serviceAccountName"] = request.service_account
    # Training processes never call the Kubernetes API.
    spec["automountServiceAccountToken"] = False
    spec["affinity"] = _affinity(request, role)
    spec["tolerations"] = _tolerations(request, role)
    spec["containers"] = [_container(request, job, role)]
    spec["volumes"] = [
        {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": request.shm_size}},
        {"name": SHARED_VOLUME, "persistentVolumeClaim": {"claimName": request.shared_claim}},
    ]
    if request.imex:
        spec["resourceClaims"] = [
            {"name": IMEX_CLAIM, "resourceClaimTemplateName": names.claim_template}
        ]
    return spec


def _container(request: K8sTrainingRequest, job: TrainingJob, role: str) -> dict[str, Any]:
    gpus = str(request.gpus_per_node)
    limits = {GPU_RESOURCE: gpus}
    requests = {GPU_RESOURCE: gpus}
    if request.cpu is not None:
        requests["cpu"] = request.cpu
    if request.memory is not None:
        requests["memory"] = request.memory
        limits["memory"] = request.memory
    resources: dict[str, Any] = {"limits": limits, "requests": requests}
    if request.imex:
        resources["claims"] = [{"name": IMEX_CLAIM}]
    env = {
        **request.nccl,
        "PYTHONUNBUFFERED": "1",
        "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false",
        "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true",
    }
    container: dict[str, Any] = {
        "name": CONTAINER_NAME,
        "image": request.image,
        "imagePullPolicy": request.image_pull_policy,
        "command": torchrun_command(request, job, role),
        "env": [{"name": key, "value": value} for key, value in sorted(env.items())],
        # Credentials reach the pods through the environment, from the Secret deploy/README.md
        # creates; never through job.json on the shared volume. Optional: a tracking server
        # without authentication needs none.
        "envFrom": [{"secretRef": {"name": MLFLOW_CREDENTIALS_SECRET, "optional": True}}],
    }
    if role == ROLE_RANK0:
        # Rank 0's torchrun agent serves the rendezvous store.
        container["ports"] = [
            {"name": "c10d", "containerPort": request.rendezvous_port, "protocol": "TCP"}
        ]
    container["resources"] = resources
    container["volumeMounts"] = [
        {"name": SHM_VOLUME, "mountPath": "/dev/shm"},
        {"name": SHARED_VOLUME, "mountPath": request.shared_mount_path},
    ]
    return container


def _affinity(request: K8sTrainingRequest, role: str) -> dict[str, Any]:
    product = request.product
    expressions = [
        {"key": PRODUCT_LABEL, "operator": "In", "values": [product.product_label]},
        {"key": ARCH_LABEL, "operator": "In", "values": [product.arch]},
    ]
    if request.spot and role == ROLE_RANK0 and not request.rank0_on_spot:
        expressions += [
            {"key": key, "operator": "NotIn", "values": [value]} for key, value in SPOT_NODE_LABELS
        ]
    affinity: dict[str, Any] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": expressions}]
            }
        }
    }
    if request.imex:
        # One IMEX domain is one NVLink partition: every pod of the run on the same clique.
        affinity["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {INSTANCE_LABEL: request.job_name}},
                    "topologyKey": CLIQUE_LABEL,
                }
            ]
        }
    return affinity


def _tolerations(request: K8sTrainingRequest, role: str) -> list[dict[str, str]]:
    tolerations = [dict(GPU_TOLERATION)]
    if request.spot and (role == ROLE_WORKER or request.rank0_on_spot):
        tolerations += [{**taint, "effect": "NoSchedule"} for taint in SPOT_TOLERATIONS]
    return tolerations


def _metadata(request: K8sTrainingRequest, name: str, role: str | None = None) -> dict[str, Any]:
    return {"name": name, "namespace": request.namespace, "labels": labels(request, role)}


def _under(path: str, root: str) -> bool:
    if not isinstance(path, str) or not path.startswith("/"):
        return False
    path = posixpath.normpath(path)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _local_path(uri: str) -> str | None:
    """The file an MLflow URI stores into, or None for a server."""
    if uri.startswith("sqlite:///"):
        return uri[len("sqlite:///") :]  # sqlite:////abs/path.db is absolute
    if uri.startswith("file:"):
        return uri[len("file:") :].removeprefix("//")
    if "://" in uri:
        return None
    return uri
