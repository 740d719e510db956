"""Run a training job on Kubernetes: the objects :func:`render` describes, rank 0 through Pipes.

1. :func:`render` validates the request and the job; a refusal raises ``dg.Failure`` before
   anything is submitted.
2. ``job.json`` is written to the shared volume (``job.output_dir``).
3. The ComputeDomain (GB200 + IMEX), the headless Service and the worker Job are created.
4. Rank 0's pod runs through ``PipesK8sClient``: its logs and Pipes messages (rank 0's
   MLflow-side metrics, the materialization) stream back into the asset like the local
   launcher's. A watcher polls the worker Job meanwhile: if it fails for good, rank 0's pod is
   deleted rather than left waiting for peers that will not come back.
5. Whatever happened, the objects created in 3 are deleted (the Pipes client deletes its pod).
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import dagster as dg
import kubernetes
from dagster_k8s import PipesK8sClient
from kubernetes.client.rest import ApiException

from models.job import TrainingJob
from pipelines.launch.k8s.render import (
    COMPUTE_DOMAIN_GROUP,
    COMPUTE_DOMAIN_PLURAL,
    COMPUTE_DOMAIN_VERSION,
    rank0_selector,
    render,
    to_yaml,
)
from pipelines.launch.k8s.request import K8sRenderError, K8sTrainingRequest
from pipelines.launch.torchrun import worker_failure

DEFAULT_POLL_INTERVAL_S = 10.0
# How long rank 0's pod may take, pending time included; PipesK8sClient's own default is a day.
DEFAULT_TIMEOUT_S = 7 * 24 * 3600.0


def training_job_name(run_id: str) -> str:
    """The ``job_name`` of a Dagster run's training: unique per run, a valid DNS label."""
    return f"plumbline-train-{run_id[:8].lower()}"


def launch_on_kubernetes(
    context: dg.AssetExecutionContext,
    job: TrainingJob,
    request: K8sTrainingRequest,
    *,
    pipes_client: PipesK8sClient | None = None,
    api: kubernetes.client.ApiClient | None = None,
    poll_interval_s: float = DEFAULT_POLL_INTERVAL_S,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> dg.PipesClientCompletedInvocation:
    """Run ``job`` as ``request`` describes and return rank 0's completed Pipes invocation.

    ``api`` talks to the API server for the Service, the worker Job and the ComputeDomain
    (default: the in-cluster or kubeconfig credentials); ``pipes_client`` launches rank 0's
    pod (default: ``PipesK8sClient()``). A failure raises ``dg.Failure`` naming what failed:
    the request, an object the API server refused, the worker Job, or rank 0 with the first
    failing worker's traceback from the shared volume. ``timeout_s`` bounds rank 0's pod
    (0: no limit); ``poll_interval_s`` is how often the worker Job is checked.
    """
    try:
        manifests = render(request, job)
    except K8sRenderError as exc:
        raise dg.Failure(
            description=f"Kubernetes training refused before anything was submitted: {exc}"
        ) from exc
    *objects, rank0 = manifests
    try:
        api = api if api is not None else _default_api()
    except kubernetes.config.ConfigException as exc:
        raise dg.Failure(
            description=f"no Kubernetes credentials (in-cluster or kubeconfig): {exc}"
        ) from exc
    job.write()
    context.log.debug(f"submitting:\n{to_yaml(manifests)}")
    pipes_client = pipes_client if pipes_client is not None else PipesK8sClient()
    created: list[dict[str, Any]] = []
    watch: _WorkerJobWatch | None = None
    try:
        for manifest in objects:
            try:
                _create(api, manifest)
            except ApiException as exc:
                raise dg.Failure(
                    description=f"the Kubernetes API refused {_describe(manifest)}: "
                    f"{_api_message(exc)}"
                ) from exc
            created.append(manifest)
            context.log.info(f"created {_describe(manifest)}")
        workers = [m for m in objects if m["kind"] == "Job"]
        if workers:
            watch = _WorkerJobWatch(api, request, workers[0]["metadata"]["name"], poll_interval_s)
            watch.start()
        container = rank0["spec"]["containers"][0]
        context.log.info(
            f"launching rank 0 ({request.nodes} node(s) x {request.gpus_per_node} "
            f"{request.gpu}): {' '.join(container['command'])}"
        )
        try:
            return pipes_client.run(
                context=context,
                image=container["image"],
                command=container["command"],
                namespace=request.namespace,
                # PipesK8sClient names the pod and adds the Pipes environment; it changes
                # what it is given, so it gets a copy of the rendered pod.
                base_pod_meta={"labels": dict(rank0["metadata"]["labels"])},
                base_pod_spec=copy.deepcopy(rank0["spec"]),
                pod_wait_timeout=timeout_s,
            )
        except Exception as exc:
            if watch is not None:
                watch.stop()
            raise dg.Failure(description=_training_failure(job, watch, exc)) from exc
    finally:
        if watch is not None:
            watch.stop()
        for manifest in reversed(created):
            _delete(api, manifest, context)


def _default_api() -> kubernetes.client.ApiClient:
    # In-cluster credentials in Dagster's run pod, a kubeconfig elsewhere.
    kubernetes.config.load_config()
    return kubernetes.client.ApiClient()


def _describe(manifest: dict[str, Any]) -> str:
    meta = manifest["metadata"]
    return f"{manifest['kind']} {meta['namespace']}/{meta['name']}"


def _create(api: kubernetes.client.ApiClient, manifest: dict[str, Any]) -> None:
    namespace = manifest["metadata"]["namespace"]
    match manifest["kind"]:
        case "Service":
            kubernetes.client.CoreV1Api(api).create_namespaced_service(namespace, manifest)
        case "Job":
            kubernetes.client.BatchV1Api(api).create_namespaced_job(namespace, manifest)
        case "ComputeDomain":
            kubernetes.client.CustomObjectsApi(api).create_namespaced_custom_object(
                COMPUTE_DOMAIN_GROUP,
                COMPUTE_DOMAIN_VERSION,
                namespace,
                COMPUTE_DOMAIN_PLURAL,
                manifest,
            )
        case other:
            raise ValueError(f"the launcher does not submit {other} objects")


def _delete(
    api: kubernetes.client.ApiClient, manifest: dict[str, Any], context: dg.AssetExecutionContext
) -> None:
    namespace, name = manifest["metadata"]["namespace"], manifest["metadata"]["name"]
    try:
        match manifest["kind"]:
            case "Service":
                kubernetes.client.CoreV1Api(api).delete_namespaced_service(name, namespace)
            case "Job":
                # Background: the Job's pods are garbage-collected after it.
                kubernetes.client.BatchV1Api(api).delete_namespaced_job(
                    name, namespace, propagation_policy="Background"
                )
            case "ComputeDomain":
                kubernetes.client.CustomObjectsApi(api).delete_namespaced_custom_object(
                    COMPUTE_DOMAIN_GROUP,
                    COMPUTE_DOMAIN_VERSION,
                    namespace,
                    COMPUTE_DOMAIN_PLURAL,
                    name,
                )
    except ApiException as exc:
        if exc.status == 404:
            return
        # Cleanup must not hide the training's own outcome: say what is left behind.
        context.log.warning(
            f"could not delete {_describe(manifest)} ({_api_message(exc)}); delete it with "
            f"kubectl delete {manifest['kind'].lower()} {name} -n {namespace}"
        )
    else:
        context.log.info(f"deleted {_describe(manifest)}")


def _api_message(exc: ApiException) -> str:
    try:
        message = json.loads(exc.body or "").get("message")
    except (TypeError, ValueError, AttributeError):
        message = None
    return f"{exc.status} {exc.reason}" + (f": {message}" if message else "")


def _training_failure(job: TrainingJob, watch: _WorkerJobWatch | None, exc: Exception) -> str:
    parts = []
    if watch is not None and watch.failure:
        parts.append(watch.failure)
    traceback = worker_failure(job)
    if traceback:
        parts.append(traceback)
    parts.append(f"rank 0's pod (PipesK8sClient): {exc}")
    return "\n\n".join(parts)


class _WorkerJobWatch:
    """Polls the worker Job; once it has failed for good, ends rank 0's pod so that the Pipes
    client returns now instead of after torchrun's rendezvous and NCCL timeouts.

    The pod is ended by lowering its ``activeDeadlineSeconds`` (a field a running pod may
    change), not deleted: the kubelet then fails it and keeps its status, which
    PipesK8sClient reads as a failed container. A deleted pod it would wait to see appear.
    """

    def __init__(
        self,
        api: kubernetes.client.ApiClient,
        request: K8sTrainingRequest,
        job_name: str,
        interval_s: float,
    ) -> None:
        self._batch = kubernetes.client.BatchV1Api(api)
        self._core = kubernetes.client.CoreV1Api(api)
        self._namespace = request.namespace
        self._job_name = job_name
        self._selector = rank0_selector(request)
        self._interval_s = interval_s
        self._ended: set[str] = set()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"watch-{job_name}", daemon=True)
        self.failure: str | None = None
        self.last_error: str | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._interval_s):
            try:
                if self.failure is None:
                    self.failure = self._job_failure()
                if self.failure is not None:
                    # Every poll until the launcher stops watching: rank 0's pod may not
                    # exist yet when the worker Job fails (a non-retryable exit at start).
                    self._end_rank0()
            except ApiException as exc:
                # A transient API error: the next poll asks again.
                self.last_error = _api_message(exc)

    def _job_failure(self) -> str | None:
        status = self._batch.read_namespaced_job_status(self._job_name, self._namespace).status
        for condition in (status.conditions if status else None) or []:
            if condition.type in ("FailureTarget", "Failed") and condition.status == "True":
                return (
                    f"worker Job {self._namespace}/{self._job_name} failed "
                    f"({condition.reason}: {condition.message}); rank 0's pod was stopped"
                )
        return None

    def _end_rank0(self) -> None:
        pods = self._core.list_namespaced_pod(self._namespace, label_selector=self._selector)
        for pod in pods.items:
            name = pod.metadata.name
            if name in self._ended:
                continue
            # A JSON patch (a list): the client sends a dict body with a content type the
            # API server rejects for pods.
            self._core.patch_namespaced_pod(
                name,
                self._namespace,
                [{"op": "add", "path": "/spec/activeDeadlineSeconds", "value": 1}],
            )
            self._ended.add(name)
