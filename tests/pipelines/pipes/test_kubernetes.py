"""The Kubernetes launcher against a stand-in API server.

A Kubernetes API server cannot run here, so ``FakeApiServer`` answers the HTTP calls the
real clients make (the ``kubernetes`` client for the Service, Job and ComputeDomain, and
dagster-k8s's ``PipesK8sClient`` for rank 0's pod). It records every request, and "runs" a
created pod by starting a local process with the pod's environment: rank 0 opens the real
Dagster Pipes context the PipesK8sClient injected, and its output becomes the pod's log,
which PipesK8sClient reads back into the asset. Everything else is the production code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import dagster as dg
import kubernetes
import pytest
from dagster_k8s import PipesK8sClient
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, DAGSTER_PIPES_MESSAGES_ENV_VAR

from models.job import JOB_FILE, TrainingJob
from pipelines.launch.k8s.render import render
from pipelines.launch.k8s.request import K8sTrainingRequest
from pipelines.pipes.kubernetes import launch_on_kubernetes, training_job_name

IMAGE = "registry.example.com/plumbline/train:0.1.0"
NAMESPACE = "training"
# What rank 0 does through Pipes in models/train.py, in miniature: log, report the
# materialization, close.
RANK0 = """
import sys
from dagster_pipes import open_dagster_pipes

with open_dagster_pipes() as pipes:
    pipes.log.info("epoch 1/1: val AUC 0.7500")
    pipes.report_asset_materialization(
        metadata={
            "val_auc": {"raw_value": 0.75, "type": "float"},
            "world_size": {"raw_value": int(sys.argv[1]), "type": "int"},
        },
        data_version="0123",
    )
print("torchrun: all workers finished")
"""
_PATH = re.compile(
    r"^/(?:api/v1|apis/[^/]+/[^/]+)/namespaces/(?P<namespace>[^/]+)/(?P<resource>[a-z]+)"
    r"(?:/(?P<name>[^/]+))?(?:/(?P<sub>[a-z]+))?$"
)


@dataclass
class FakePod:
    body: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    killed: threading.Event = field(default_factory=threading.Event)
    log: list[str] = field(default_factory=list)
    exit_code: int | None = None


@dataclass
class Request:
    method: str
    resource: str
    name: str | None
    body: Any


class FakeApiServer:
    """Stores created objects per (resource, namespace, name); pods run ``program``."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.pods: dict[str, FakePod] = {}
        self.requests: list[Request] = []
        self.job_conditions: list[dict[str, str]] = []
        self.program: Callable[[FakePod], None] = lambda pod: None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep pytest's output clean
                pass

            def do_GET(self) -> None:
                server.handle(self, "GET")

            def do_POST(self) -> None:
                server.handle(self, "POST")

            def do_DELETE(self) -> None:
                server.handle(self, "DELETE")

            def do_PATCH(self) -> None:
                server.handle(self, "PATCH")

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}"

    def close(self) -> None:
        for pod in self.pods.values():
            pod.killed.set()
        self.http.shutdown()
        self.http.server_close()

    def created(self, resource: str) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.method == "POST" and r.resource == resource]

    def calls(self) -> list[tuple[str, str]]:
        return [(r.method, r.resource) for r in self.requests if r.method != "GET"]

    # -- HTTP --------------------------------------------------------------------------------
    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(handler.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        match = _PATH.match(url.path)
        if match is None:
            return self.reply(handler, 404, _status(404, f"no route {url.path}"))
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length)) if length else None
        namespace, resource = match["namespace"], match["resource"]
        name, sub = match["name"], match["sub"]
        with self._lock:
            self.requests.append(Request(method, resource, name, body))
        if method == "POST":
            return self.create(handler, namespace, resource, body)
        if method == "DELETE":
            return self.delete(handler, namespace, resource, name, query)
        if method == "PATCH":
            return self.patch(handler, namespace, resource, name, body)
        if resource == "pods" and sub == "log":
            return self.pod_log(handler, name, query)
        if resource == "pods" and name is None:
            items = [p.body for n, p in self.pods.items() if _selected(n, p.body, query)]
            return self.reply(handler, 200, {"kind": "PodList", "apiVersion": "v1", "items": items})
        found = self.objects.get((resource, namespace, name))
        if found is None:
            return self.reply(handler, 404, _status(404, f"{resource} {name} not found"))
        if resource == "jobs":
            found = {**found, "status": {"conditions": self.job_conditions}}
        return self.reply(handler, 200, found)

    def create(self, handler, namespace: str, resource: str, body: dict[str, Any]) -> None:
        name = body["metadata"]["name"]
        key = (resource, namespace, name)
        if key in self.objects:
            return self.reply(handler, 409, _status(409, f'{resource} "{name}" already exists'))
        self.objects[key] = body
        if resource == "pods":
            pod = FakePod(body)
            self.pods[name] = pod
            self._set_state(pod, {"running": {}})
            threading.Thread(target=self._run_pod, args=(pod,), daemon=True).start()
        self.reply(handler, 201, body)

    def patch(self, handler, namespace, resource, name, operations) -> None:
        pod = self.pods.get(name) if resource == "pods" else None
        if pod is None:
            return self.reply(handler, 404, _status(404, f"{resource} {name} not found"))
        for operation in operations:  # JSON patch; only what the launcher sends
            assert operation["path"] == "/spec/activeDeadlineSeconds", operation
            pod.body["spec"]["activeDeadlineSeconds"] = operation["value"]
        # Past its deadline, the kubelet kills the pod and keeps it, failed.
        pod.killed.set()
        self.reply(handler, 200, pod.body)

    def delete(self, handler, namespace, resource, name, query) -> None:
        found = self.objects.get((resource, namespace, name))
        if found is None:
            return self.reply(handler, 404, _status(404, f"{resource} {name} not found"))
        if resource == "pods":
            self._remove_pod(namespace, name)
        else:
            del self.objects[(resource, namespace, name)]
        self.reply(handler, 200, found)

    def pod_log(self, handler, name: str, query: dict[str, str]) -> None:
        pod = self.pods.get(name)
        if pod is None:
            return self.reply(handler, 404, _status(404, f"pod {name} not found"))
        if query.get("follow", "").lower() == "true":
            pod.done.wait(timeout=60)
        lines = list(pod.log)
        if "tailLines" in query:
            lines = lines[-int(query["tailLines"]) :]
        if query.get("timestamps", "").lower() == "true":
            # One fixed-width timestamp per line, as the kubelet writes them.
            lines = [f"2026-01-01T00:00:00.{i:09d}Z {line}" for i, line in enumerate(lines)]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        data = "".join(f"{line}\n" for line in lines).encode()
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def reply(self, handler, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    # -- the "kubelet" -----------------------------------------------------------------------
    def _run_pod(self, pod: FakePod) -> None:
        try:
            self.program(pod)
        finally:
            code = 0 if pod.exit_code is None else pod.exit_code
            self._set_state(pod, {"terminated": {"exitCode": code}})
            pod.done.set()

    def _remove_pod(self, namespace: str, name: str) -> None:
        pod = self.pods.pop(name)
        self.objects.pop(("pods", namespace, name), None)
        pod.killed.set()
        pod.done.set()

    @staticmethod
    def _set_state(pod: FakePod, state: dict[str, Any]) -> None:
        container = pod.body["spec"]["containers"][0]
        pod.body["status"] = {
            "phase": "Running" if "running" in state else "Succeeded",
            "containerStatuses": [
                {
                    "name": container["name"],
                    "image": container["image"],
                    "imageID": "",
                    "ready": "running" in state,
                    "restartCount": 0,
                    "state": state,
                }
            ],
        }


def _selected(name: str, body: dict[str, Any], query: dict[str, str]) -> bool:
    """Whether a pod matches a list request's field selector (by name) and label selector."""
    wanted = query.get("fieldSelector", "").removeprefix("metadata.name=")
    if wanted and wanted != name:
        return False
    selector = query.get("labelSelector")
    if not selector:
        return True
    labels = dict(pair.split("=") for pair in selector.split(","))
    return labels.items() <= body["metadata"]["labels"].items()


def _status(code: int, message: str) -> dict[str, Any]:
    reason = {404: "NotFound", 409: "AlreadyExists"}[code]
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def rank0_process(world_size: int, exit_code: int = 0) -> Callable[[FakePod], None]:
    """Run RANK0 with the pod's environment (Pipes' context included), as its container."""

    def program(pod: FakePod) -> None:
        env = {item["name"]: item["value"] for item in pod.body["spec"]["containers"][0]["env"]}
        done = subprocess.run(
            [sys.executable, "-c", RANK0, str(world_size)],
            env={"PATH": "/usr/bin:/bin", **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        pod.log.extend((done.stderr + done.stdout).splitlines())
        pod.exit_code = exit_code or done.returncode

    return program


def waits_for_its_peers(pod: FakePod) -> None:
    pod.log.append("waiting for the other nodes to join the rendezvous")
    pod.killed.wait(timeout=60)
    pod.exit_code = 137


@pytest.fixture
def server():
    fake = FakeApiServer()
    yield fake
    fake.close()


@pytest.fixture
def kubeconfig(server: FakeApiServer, tmp_path: Path) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "fake", "cluster": {"server": server.url}}],
                "users": [{"name": "fake", "user": {"token": "test"}}],
                "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
                "current-context": "fake",
            }
        )
    )
    return str(path)


def training_job(root: Path) -> TrainingJob:
    return TrainingJob(
        data_path=str(root / "lake" / "warehouse" / "training_set" / "v1"),
        data_digest="sha256:0",
        output_dir=str(root / "training" / "run"),
        mlflow_uri="http://mlflow:5000",
        mlflow_run_id="run",
    )


def training_request(root: Path, **fields) -> K8sTrainingRequest:
    return K8sTrainingRequest(
        image=IMAGE,
        job_name=training_job_name("0123abcd-ef"),
        namespace=NAMESPACE,
        shared_mount_path=str(root),
        **fields,
    )


def materialize_with(job, request, kubeconfig, instance=None) -> dg.ExecuteInProcessResult:
    @dg.asset(name="delay_model")
    def delay_model(context):
        invocation = launch_on_kubernetes(
            context,
            job,
            request,
            pipes_client=PipesK8sClient(kubeconfig_file=kubeconfig, poll_interval=0.02),
            api=kubernetes.config.new_client_from_config(config_file=kubeconfig),
            poll_interval_s=0.02,
        )
        return invocation.get_materialize_result()

    return dg.materialize([delay_model], raise_on_error=False, instance=instance)


def failure_description(result: dg.ExecuteInProcessResult) -> str:
    (failure,) = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    return failure.step_failure_data.user_failure_data.description


def without_pipes_env(spec: dict[str, Any]) -> dict[str, Any]:
    container = spec["containers"][0]
    pipes = {DAGSTER_PIPES_CONTEXT_ENV_VAR, DAGSTER_PIPES_MESSAGES_ENV_VAR}
    env = [item for item in container["env"] if item["name"] not in pipes]
    return {**spec, "containers": [{**container, "env": env}]}


def test_rank_0_streams_its_materialization_back_and_what_was_submitted_is_render(
    server, kubeconfig, tmp_path
):
    job, request = training_job(tmp_path), training_request(tmp_path, nodes=3, spot=True)
    server.program = rank0_process(request.world_size)
    instance = dg.DagsterInstance.ephemeral()
    result = materialize_with(job, request, kubeconfig, instance)

    assert result.success
    (materialization,) = result.asset_materializations_for_node("delay_model")
    assert materialization.metadata["val_auc"].value == 0.75
    assert materialization.metadata["world_size"].value == 24
    assert materialization.tags["dagster/data_version"] == "0123"
    messages = [entry.user_message for entry in instance.all_logs(result.run_id)]
    assert "epoch 1/1: val AUC 0.7500" in messages

    expected = {m["kind"]: m for m in render(request, job)}
    assert server.created("services") == [expected["Service"]]
    assert server.created("jobs") == [expected["Job"]]
    (pod,) = server.created("pods")
    assert without_pipes_env(pod["spec"]) == expected["Pod"]["spec"]
    assert expected["Pod"]["metadata"]["labels"].items() <= pod["metadata"]["labels"].items()
    env = {item["name"] for item in pod["spec"]["containers"][0]["env"]}
    assert {DAGSTER_PIPES_CONTEXT_ENV_VAR, DAGSTER_PIPES_MESSAGES_ENV_VAR} <= env
    assert server.calls() == [
        ("POST", "services"),
        ("POST", "jobs"),
        ("POST", "pods"),
        ("DELETE", "pods"),
        ("DELETE", "jobs"),
        ("DELETE", "services"),
    ]
    assert server.objects == {}
    assert TrainingJob.read(Path(job.output_dir) / JOB_FILE) == job


def test_one_node_submits_no_worker_job(server, kubeconfig, tmp_path):
    job, request = training_job(tmp_path), training_request(tmp_path, gpu="h200")
    server.program = rank0_process(request.world_size)
    assert materialize_with(job, request, kubeconfig).success
    assert [method for method, resource in server.calls() if resource == "jobs"] == []
    assert server.objects == {}


def test_gb200_imex_creates_and_removes_its_compute_domain(server, kubeconfig, tmp_path):
    job = training_job(tmp_path)
    request = training_request(tmp_path, gpu="gb200", nodes=2, imex=True)
    server.program = rank0_process(request.world_size)
    assert materialize_with(job, request, kubeconfig).success
    expected = {m["kind"]: m for m in render(request, job)}
    assert server.created("computedomains") == [expected["ComputeDomain"]]
    assert server.calls()[0] == ("POST", "computedomains")
    assert server.calls()[-1] == ("DELETE", "computedomains")
    assert server.objects == {}


def test_a_failed_rank_shows_its_traceback_and_everything_is_cleaned_up(
    server, kubeconfig, tmp_path
):
    job, request = training_job(tmp_path), training_request(tmp_path, nodes=2)

    def crash(pod: FakePod) -> None:
        job.errors_dir.mkdir(parents=True, exist_ok=True)
        (job.errors_dir / "rank11.txt").write_text("Traceback ...\nRuntimeError: CUDA error")
        pod.log.append("torch.distributed.elastic.multiprocessing.errors.ChildFailedError")
        pod.exit_code = 1

    server.program = crash
    result = materialize_with(job, request, kubeconfig)
    assert not result.success
    description = failure_description(result)
    assert "training worker rank11 failed" in description
    assert "RuntimeError: CUDA error" in description
    assert server.objects == {}


def test_a_failed_worker_job_stops_rank_0_instead_of_leaving_it_waiting(
    server, kubeconfig, tmp_path
):
    job, request = training_job(tmp_path), training_request(tmp_path, nodes=4)
    server.program = waits_for_its_peers
    server.job_conditions = [
        {
            "type": "Failed",
            "status": "True",
            "reason": "FailedIndexes",
            "message": "Job has failed indexes",
        }
    ]
    result = materialize_with(job, request, kubeconfig)
    assert not result.success
    description = failure_description(result)
    assert f"worker Job {NAMESPACE}/{request.job_name}-worker failed" in description
    assert "FailedIndexes" in description
    assert ("PATCH", "pods") in server.calls()
    assert server.objects == {}


def test_an_object_the_api_server_refuses_fails_the_step_and_leaves_others_alone(
    server, kubeconfig, tmp_path
):
    job, request = training_job(tmp_path), training_request(tmp_path, nodes=2)
    existing = {"metadata": {"name": request.job_name, "namespace": NAMESPACE}}
    server.objects[("services", NAMESPACE, request.job_name)] = existing
    result = materialize_with(job, request, kubeconfig)
    assert not result.success
    description = failure_description(result)
    assert f"refused Service {NAMESPACE}/{request.job_name}: 409" in description
    assert "already exists" in description
    assert server.calls() == [("POST", "services")]
    assert server.objects == {("services", NAMESPACE, request.job_name): existing}


def test_a_job_the_pods_cannot_reach_is_refused_before_anything_is_submitted(
    server, kubeconfig, tmp_path
):
    job = training_job(tmp_path / "not-shared")
    request = training_request(tmp_path / "shared")
    result = materialize_with(job, request, kubeconfig)
    assert not result.success
    description = failure_description(result)
    assert "refused before anything was submitted" in description
    assert "job.output_dir" in description
    assert server.requests == []
    assert not (Path(job.output_dir) / JOB_FILE).exists()


@pytest.mark.parametrize("run_id", ["0123abcd-4567-89ef-0123-456789abcdef", "FFFFFFFF-x"])
def test_each_run_gets_its_own_valid_job_name(run_id, tmp_path):
    name = training_job_name(run_id)
    assert K8sTrainingRequest(image=IMAGE, job_name=name).job_name == name
