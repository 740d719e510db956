"""The Kubernetes training manifests: schema-valid, snapshot-stable, and refused when the
cluster could not run them.

Snapshots live in tests/pipelines/launch/k8s/snapshots/k8s/<shape>.yaml. After an intended change,
regenerate them with ``PLUMBLINE_UPDATE_SNAPSHOTS=1 pytest tests/pipelines/launch/k8s/test_render.py``
and review the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import torch.distributed.run as torchrun
import yaml
from click.testing import CliRunner
from torch.distributed.elastic.rendezvous import RendezvousParameters

from models.job import TrainingJob
from pipelines.cli.k8s import k8s
from pipelines.launch.k8s.gpus import GPU_PRODUCTS, PRODUCT_LABEL
from pipelines.launch.k8s.render import (
    NON_RETRYABLE_EXIT_CODES,
    SPOT_NODE_LABELS,
    Names,
    render,
    to_yaml,
)
from pipelines.launch.k8s.request import K8sRenderError, K8sTrainingRequest

SNAPSHOTS = Path(__file__).parent / "snapshots" / "k8s"
# backoffLimitPerIndex and pod-failure policies are GA from 1.33; also check the newest schema
# the validator bundles.
KUBERNETES_VERSIONS = ("1.33", kubernetes_validate.latest_version())
IMAGE = "registry.example.com/plumbline/train:0.1.0"
MOUNT = "/mnt/plumbline"

SHAPES: dict[str, dict] = {
    "h100-1x8": {"gpu": "h100", "nodes": 1, "gpus_per_node": 8},
    "h200-4x8": {"gpu": "h200", "nodes": 4, "gpus_per_node": 8, "nccl": {"NCCL_DEBUG": "WARN"}},
    "gb200-2x4-imex": {"gpu": "gb200", "nodes": 2, "gpus_per_node": 4, "imex": True},
    "h100-2x8-spot": {"gpu": "h100", "nodes": 2, "spot": True, "memory": "1600Gi", "cpu": "96"},
}


def training_job(root: str = MOUNT) -> TrainingJob:
    return TrainingJob(
        data_path=f"{root}/lake/warehouse/training_set/20260101T000000",
        data_digest="sha256:0",
        output_dir=f"{root}/training/0123abcd",
        mlflow_uri="http://mlflow.plumbline.svc:5000",
        mlflow_run_id="run",
    )


def request(**fields) -> K8sTrainingRequest:
    return K8sTrainingRequest(**{"image": IMAGE, "job_name": "plumbline-train-0123abcd", **fields})


def by_kind(manifests: list[dict]) -> dict[str, dict]:
    return {manifest["kind"]: manifest for manifest in manifests}


def pod_specs(manifests: list[dict]) -> dict[str, dict]:
    """Rank 0's pod spec and, when there is a worker Job, its pod template's spec."""
    kinds = by_kind(manifests)
    specs = {"rank0": kinds["Pod"]["spec"]}
    if "Job" in kinds:
        specs["worker"] = kinds["Job"]["spec"]["template"]["spec"]
    return specs


@pytest.fixture(params=sorted(SHAPES))
def shape(request) -> str:
    return request.param


def test_every_core_object_is_valid_against_the_kubernetes_schema_strictly(shape):
    for manifest in render(request(**SHAPES[shape]), training_job()):
        if manifest["kind"] == "ComputeDomain":
            continue  # a custom resource: see test_compute_domain_matches_the_crd
        for version in KUBERNETES_VERSIONS:
            kubernetes_validate.validate(manifest, version, strict=True)


def test_strict_validation_rejects_a_field_kubernetes_does_not_know():
    pod = by_kind(render(request(), training_job()))["Pod"]
    pod["spec"]["containers"][0]["gpus"] = 8
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(pod, KUBERNETES_VERSIONS[0], strict=True)


def test_rendered_yaml_matches_its_snapshot(shape):
    rendered = to_yaml(render(request(**SHAPES[shape]), training_job()))
    snapshot = SNAPSHOTS / f"{shape}.yaml"
    if os.environ.get("PLUMBLINE_UPDATE_SNAPSHOTS") == "1":
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(rendered)
    assert snapshot.exists(), f"{snapshot} is missing; run with PLUMBLINE_UPDATE_SNAPSHOTS=1"
    expected = snapshot.read_text()
    if rendered != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            rendered.splitlines(keepends=True),
            fromfile=str(snapshot),
            tofile="rendered",
        )
        pytest.fail(
            "rendered manifests differ from the snapshot (PLUMBLINE_UPDATE_SNAPSHOTS=1 "
            "regenerates it):\n" + "".join(diff)
        )


def test_yaml_round_trips_to_the_same_objects(shape):
    manifests = render(request(**SHAPES[shape]), training_job())
    assert list(yaml.safe_load_all(to_yaml(manifests))) == manifests


@pytest.mark.parametrize(
    ("shape_name", "kinds"),
    [
        ("h100-1x8", ["Service", "Pod"]),
        ("h200-4x8", ["Service", "Job", "Pod"]),
        ("gb200-2x4-imex", ["ComputeDomain", "Service", "Job", "Pod"]),
        ("h100-2x8-spot", ["Service", "Job", "Pod"]),
    ],
)
def test_objects_in_submission_order(shape_name, kinds):
    assert [m["kind"] for m in render(request(**SHAPES[shape_name]), training_job())] == kinds


def test_headless_service_resolves_every_training_pod(shape):
    req = request(**SHAPES[shape])
    manifests = render(req, training_job())
    service = by_kind(manifests)["Service"]
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["publishNotReadyAddresses"] is True
    assert service["spec"]["ports"][0]["port"] == req.rendezvous_port
    pod_labels = [by_kind(manifests)["Pod"]["metadata"]["labels"]]
    if "Job" in by_kind(manifests):
        pod_labels.append(by_kind(manifests)["Job"]["spec"]["template"]["metadata"]["labels"])
    for found in pod_labels:
        assert service["spec"]["selector"].items() <= found.items()
    for spec in pod_specs(manifests).values():
        assert spec["subdomain"] == service["metadata"]["name"]
    assert by_kind(manifests)["Pod"]["spec"]["hostname"] == Names.of(req).rank0_host


@pytest.mark.parametrize("nodes", [2, 4, 18])
def test_worker_job_is_indexed_over_the_other_nodes_and_survives_disruptions(nodes):
    job = by_kind(render(request(gpu="gb200", nodes=nodes), training_job()))["Job"]["spec"]
    assert job["completionMode"] == "Indexed"
    assert job["completions"] == job["parallelism"] == nodes - 1
    assert job["template"]["spec"]["restartPolicy"] == "Never"
    ignore, fail = job["podFailurePolicy"]["rules"]
    assert ignore == {
        "action": "Ignore",
        "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
    }
    assert fail["action"] == "FailJob"
    assert fail["onExitCodes"]["values"] == list(NON_RETRYABLE_EXIT_CODES)
    assert 0 not in NON_RETRYABLE_EXIT_CODES


@pytest.mark.parametrize("gpu", sorted(GPU_PRODUCTS))
def test_pods_ask_for_the_product_and_its_gpus(gpu):
    product = GPU_PRODUCTS[gpu]
    manifests = render(request(gpu=gpu, nodes=2), training_job())
    for spec in pod_specs(manifests).values():
        (container,) = spec["containers"]
        assert container["resources"]["limits"]["nvidia.com/gpu"] == str(product.gpus_per_node)
        terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        (term,) = terms["nodeSelectorTerms"]
        assert {"key": PRODUCT_LABEL, "operator": "In", "values": [product.product_label]} in (
            term["matchExpressions"]
        )
        assert f"--nproc-per-node={product.gpus_per_node}" in container["command"]


def test_torchrun_joins_one_c10d_rendezvous_hosted_by_rank_0():
    req = request(gpu="h200", nodes=4, max_restarts=5)
    job = training_job()
    specs = pod_specs(render(req, job))
    commands = {role: spec["containers"][0]["command"] for role, spec in specs.items()}
    for role, command in commands.items():
        assert command[0] == "torchrun"
        assert "--nnodes=4" in command
        assert "--rdzv-backend=c10d" in command
        assert f"--rdzv-endpoint={req.job_name}-0.{req.job_name}:29500" in command
        assert f"--rdzv-id={req.job_name}" in command
        assert "--max-restarts=5" in command
        assert command[-4:] == ["-m", "models.train", "--job", f"{job.output_dir}/job.json"]
        is_host = "is_host=true" if role == "rank0" else "is_host=false"
        assert any(arg.startswith("--rdzv-conf=") and is_host in arg for arg in command)


@pytest.mark.parametrize("role", ["rank0", "worker"])
def test_the_installed_torchrun_accepts_the_command(role, monkeypatch):
    # Set, so that torchrun's config does not export its own default into this process.
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    req = request(gpu="gb200", nodes=3, max_restarts=2, rendezvous_timeout_s=900)
    command = pod_specs(render(req, training_job()))[role]["containers"][0]["command"]
    args = torchrun.get_args_parser().parse_args(command[1:])
    config, _, script_args = torchrun.config_from_args(args)
    assert (config.min_nodes, config.max_nodes, config.nproc_per_node) == (3, 3, 4)
    assert config.max_restarts == 2
    assert script_args[-4:] == [
        "-m",
        "models.train",
        "--job",
        f"{MOUNT}/training/0123abcd/job.json",
    ]
    parameters = RendezvousParameters(
        backend=config.rdzv_backend,
        endpoint=config.rdzv_endpoint,
        run_id=config.run_id,
        min_nodes=config.min_nodes,
        max_nodes=config.max_nodes,
        local_addr=config.local_addr,
        **config.rdzv_configs,
    )
    assert parameters.get_as_bool("is_host") is (role == "rank0")
    assert parameters.get_as_int("join_timeout") == parameters.get_as_int("read_timeout") == 900


def _local_addr(command: list[str]) -> str:
    (found,) = [arg.split("=", 1)[1] for arg in command if arg.startswith("--local-addr=")]
    return found


@pytest.mark.parametrize("job_name", ["a", "plumbline-train-0123abcd", "z" * 40, "run-9"])
def test_rank_0s_node_sorts_first_so_it_holds_global_rank_0(job_name):
    # torchrun's c10d rendezvous ranks nodes in the sorted order of their addresses
    # (torch.distributed.elastic.rendezvous.dynamic_rendezvous: sorted(state.participants)).
    specs = pod_specs(render(request(job_name=job_name, nodes=2), training_job()))
    rank0 = _local_addr(specs["rank0"]["containers"][0]["command"])
    worker = _local_addr(specs["worker"]["containers"][0]["command"])
    assert "$(JOB_COMPLETION_INDEX)" in worker
    workers = [worker.replace("$(JOB_COMPLETION_INDEX)", str(index)) for index in range(200)]
    assert sorted([*workers, rank0])[0] == rank0
    assert rank0.split(".")[0] == specs["rank0"]["hostname"]
    assert worker.split(".")[1] == specs["worker"]["subdomain"]


def test_shared_memory_checkpoints_and_nccl_settings_reach_every_pod():
    req = request(nodes=2, shm_size="128Gi", nccl={"NCCL_IB_HCA": "mlx5", "NCCL_DEBUG": "INFO"})
    for spec in pod_specs(render(req, training_job())).values():
        volumes = {volume["name"]: volume for volume in spec["volumes"]}
        (container,) = spec["containers"]
        mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
        assert volumes[mounts["/dev/shm"]]["emptyDir"] == {"medium": "Memory", "sizeLimit": "128Gi"}
        assert volumes[mounts[MOUNT]]["persistentVolumeClaim"] == {"claimName": "plumbline-shared"}
        env = {item["name"]: item["value"] for item in container["env"]}
        assert env["NCCL_IB_HCA"] == "mlx5" and env["NCCL_DEBUG"] == "INFO"


def _expressions(spec: dict) -> list[dict]:
    node = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return node["nodeSelectorTerms"][0]["matchExpressions"]


def _spot_tolerated(spec: dict) -> bool:
    keys = {t["key"] for t in spec["tolerations"]}
    return {"cloud.google.com/gke-spot", "kubernetes.azure.com/scalesetpriority"} <= keys


def test_spot_workers_tolerate_spot_pools_and_rank_0_stays_on_demand():
    specs = pod_specs(render(request(nodes=3, spot=True), training_job()))
    assert _spot_tolerated(specs["worker"])
    assert not _spot_tolerated(specs["rank0"])
    not_in = {
        (e["key"], e["values"][0]) for e in _expressions(specs["rank0"]) if e["operator"] == "NotIn"
    }
    assert not_in == set(SPOT_NODE_LABELS)
    assert not any(e["operator"] == "NotIn" for e in _expressions(specs["worker"]))


def test_rank_0_may_be_allowed_on_spot_and_nothing_tolerates_spot_by_default():
    allowed = pod_specs(render(request(nodes=2, spot=True, rank0_on_spot=True), training_job()))
    assert _spot_tolerated(allowed["rank0"]) and _spot_tolerated(allowed["worker"])
    assert not any(e["operator"] == "NotIn" for e in _expressions(allowed["rank0"]))
    plain = pod_specs(render(request(nodes=2), training_job()))
    assert not any(_spot_tolerated(spec) for spec in plain.values())


# The ComputeDomain's spec as NVIDIA's DRA driver defines it (k8s-dra-driver-gpu,
# api/nvidia.com/resource/v1beta1/computedomain.go): numNodes and channel are required.
COMPUTE_DOMAIN_SCHEMA = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "resource.nvidia.com/v1beta1"},
        "kind": {"const": "ComputeDomain"},
        "metadata": {
            "type": "object",
            "required": ["name", "namespace"],
            "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}},
        },
        "spec": {
            "type": "object",
            "required": ["numNodes", "channel"],
            "additionalProperties": False,
            "properties": {
                "numNodes": {"type": "integer", "minimum": 0},
                "channel": {
                    "type": "object",
                    "required": ["resourceClaimTemplate"],
                    "additionalProperties": False,
                    "properties": {
                        "resourceClaimTemplate": {
                            "type": "object",
                            "required": ["name"],
                            "additionalProperties": False,
                            "properties": {"name": {"type": "string", "minLength": 1}},
                        },
                        "allocationMode": {"enum": ["All", "Single"]},
                    },
                },
            },
        },
    },
}


def test_compute_domain_matches_the_crd_and_every_pod_claims_its_channel():
    manifests = render(request(gpu="gb200", nodes=4, imex=True), training_job())
    domain = by_kind(manifests)["ComputeDomain"]
    jsonschema.validate(domain, COMPUTE_DOMAIN_SCHEMA)
    assert domain["spec"]["numNodes"] == 4
    template = domain["spec"]["channel"]["resourceClaimTemplate"]["name"]
    for spec in pod_specs(manifests).values():
        (claim,) = spec["resourceClaims"]
        assert claim["resourceClaimTemplateName"] == template
        assert spec["containers"][0]["resources"]["claims"] == [{"name": claim["name"]}]
        clique = spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert clique[0]["topologyKey"] == "nvidia.com/gpu.clique"


def test_without_imex_nothing_asks_for_a_compute_domain():
    manifests = render(request(gpu="gb200", nodes=2), training_job())
    assert "ComputeDomain" not in by_kind(manifests)
    assert all("resourceClaims" not in spec for spec in pod_specs(manifests).values())


# Bad input: (request fields, the field the error names, text the message must contain).
BAD_REQUESTS = [
    ({"gpu": "h100", "gpus_per_node": 9}, "gpus_per_node", "between 1 and 8"),
    ({"gpu": "gb200", "gpus_per_node": 8}, "gpus_per_node", "between 1 and 4"),
    ({"gpus_per_node": 0}, "gpus_per_node", "between 1 and 8"),
    ({"gpu": "h100", "imex": True}, "imex", "gb200"),
    ({"gpu": "h200", "imex": True}, "imex", "gb200"),
    ({"gpu": "gb200", "imex": True, "nodes": 19}, "nodes", "at most 18"),
    ({"gpu": "a100"}, "gpu", "one of h100, h200, gb200"),
    ({"gpu": "H100"}, "gpu", "one of h100, h200, gb200"),
    ({"image": ""}, "image", "pinned by tag or digest"),
    ({"image": "registry.example.com/plumbline/train"}, "image", "pinned by tag or digest"),
    ({"image": "plumbline/train:latest"}, "image", "not 'latest'"),
    ({"image": "plumbline/train@sha256:abc"}, "image", "pinned by tag or digest"),
    ({"nodes": 0}, "nodes", "integer >= 1"),
    ({"nodes": True}, "nodes", "integer >= 1"),
    ({"nodes": 100_000}, "nodes", "at most 5000"),
    ({"max_restarts": -1}, "max_restarts", "integer >= 0"),
    ({"pod_retries": -1}, "pod_retries", "integer >= 0"),
    ({"job_name": "Plumbline"}, "job_name", "DNS label"),
    ({"job_name": "x" * 41}, "job_name", "at most 40"),
    ({"namespace": "ml_team"}, "namespace", "namespace name"),
    ({"shm_size": "lots"}, "shm_size", "memory quantity"),
    ({"shm_size": "0Gi"}, "shm_size", "memory quantity"),
    ({"memory": "32Gi", "shm_size": "64Gi"}, "memory", "larger than shm_size"),
    ({"cpu": "many"}, "cpu", "CPU quantity"),
    ({"shared_mount_path": "relative/dir"}, "shared_mount_path", "absolute"),
    ({"shared_mount_path": "/dev/shm"}, "shared_mount_path", "/dev"),
    ({"shared_mount_path": "/etc"}, "shared_mount_path", "system folders"),
    ({"shared_mount_path": "/usr/lib/plumbline"}, "shared_mount_path", "system folders"),
    ({"shared_claim": "Shared_Volume"}, "shared_claim", "PersistentVolumeClaim"),
    ({"nccl": {"OMP_NUM_THREADS": "1"}}, "nccl", "NCCL_*"),
    ({"nccl": {"NCCL_DEBUG": 1}}, "nccl", "string values"),
    ({"rank0_on_spot": True}, "rank0_on_spot", "unless spot"),
    ({"rendezvous_port": 70000}, "rendezvous_port", "TCP port"),
    ({"rendezvous_timeout_s": 5}, "rendezvous_timeout_s", "integer >= 60"),
    ({"image_pull_policy": "Sometimes"}, "image_pull_policy", "IfNotPresent"),
]


@pytest.mark.parametrize(("fields", "field", "accepted"), BAD_REQUESTS)
def test_a_request_the_cluster_cannot_satisfy_is_refused_naming_the_field(fields, field, accepted):
    with pytest.raises(K8sRenderError) as refused:
        request(**fields)
    assert refused.value.field == field
    assert str(refused.value).startswith(f"{field} must be ")
    assert accepted in str(refused.value)


@pytest.mark.parametrize(
    ("job", "field"),
    [
        (training_job(root="/work/.plumbline"), "job.output_dir"),
        (
            TrainingJob(
                data_path="/elsewhere/lake/training_set/v1",
                data_digest="",
                output_dir=f"{MOUNT}/training/run",
                mlflow_uri="http://mlflow:5000",
                mlflow_run_id="",
            ),
            "job.data_path",
        ),
        (
            TrainingJob(
                data_path=f"{MOUNT}/lake/training_set/v1",
                data_digest="",
                output_dir=f"{MOUNT}/training/run",
                mlflow_uri="sqlite:////home/me/.plumbline/mlflow.db",
                mlflow_run_id="",
            ),
            "job.mlflow_uri",
        ),
    ],
)
def test_a_job_whose_files_the_pods_cannot_reach_is_refused(job, field):
    with pytest.raises(K8sRenderError) as refused:
        render(request(), job)
    assert refused.value.field == field
    assert MOUNT in str(refused.value)


def test_a_store_on_the_shared_volume_is_reachable():
    job = training_job()
    on_volume = TrainingJob(**{**job.__dict__, "mlflow_uri": f"sqlite:///{MOUNT}/mlflow.db"})
    assert render(request(), on_volume)


def test_cli_prints_what_render_returns():
    args = ["render", "--nodes", "4", "--gpu", "h200", "--image", IMAGE, "--spot"]
    args += ["--nccl", "NCCL_DEBUG=WARN", "--job-name", "plumbline-train-0123abcd"]
    result = CliRunner().invoke(k8s, args)
    assert result.exit_code == 0, result.stderr
    printed = list(yaml.safe_load_all(result.stdout))
    assert [m["kind"] for m in printed] == ["Service", "Job", "Pod"]
    command = by_kind(printed)["Pod"]["spec"]["containers"][0]["command"]
    assert command[-1] == f"{MOUNT}/training/RUN_ID/job.json"
    for manifest in printed:
        kubernetes_validate.validate(manifest, KUBERNETES_VERSIONS[0], strict=True)


def test_cli_renders_an_existing_job_file(tmp_path):
    job = training_job(root=str(tmp_path))
    path = job.write()
    args = ["render", "--image", IMAGE, "--shared-mount-path", str(tmp_path)]
    result = CliRunner().invoke(k8s, [*args, "--job-file", str(path)])
    assert result.exit_code == 0, result.stderr
    pod = by_kind(list(yaml.safe_load_all(result.stdout)))["Pod"]
    assert pod["spec"]["containers"][0]["command"][-1] == str(path)


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--gpus-per-node", "9"], "--gpus-per-node"),
        (["--gpu", "h100", "--imex"], "--imex"),
        (["--gpu", "tpu"], "--gpu"),
        (["--nodes", "zero"], "--nodes"),
        (["--nodes", "0"], "--nodes"),
        (["--nccl", "NCCL_DEBUG"], "--nccl"),
        (["--shm-size", "lots"], "--shm-size"),
        (["--shared-mount-path", "/dev/shm"], "--shared-mount-path"),
        (["--shared-mount-path", "/etc"], "--shared-mount-path"),
        (["--nodes", "100000"], "--nodes"),
    ],
)
def test_cli_bad_input_is_one_line_naming_the_flag_and_exit_2(args, flag):
    result = CliRunner().invoke(k8s, ["render", "--image", IMAGE, *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"plumbline: error: {flag} must be ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [[], ["--image", "plumbline/train:latest"]])
def test_cli_needs_a_pinned_image(args):
    result = CliRunner().invoke(k8s, ["render", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("plumbline: error: --image must be ")


def test_cli_refuses_a_job_file_whose_files_the_pods_cannot_reach(tmp_path):
    path = training_job(root=str(tmp_path)).write()
    result = CliRunner().invoke(k8s, ["render", "--image", IMAGE, "--job-file", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("plumbline: error: --job-file's output_dir must be ")
    assert MOUNT in result.stderr


def test_cli_usage_errors_are_one_line_too():
    result = CliRunner().invoke(k8s, ["render", "--image", IMAGE, "--gpus", "8"])
    assert result.exit_code == 2
    assert result.stderr.startswith("plumbline: error: No such option")
    assert result.stderr.count("\n") == 1


def test_pods_take_mlflow_credentials_from_the_secret_and_no_file_holds_them(shape):
    from pipelines.launch.k8s.render import MLFLOW_CREDENTIALS_SECRET

    manifests = render(request(**SHAPES[shape]), training_job())
    for role, spec in pod_specs(manifests).items():
        [container] = spec["containers"]
        assert container["envFrom"] == [
            {"secretRef": {"name": MLFLOW_CREDENTIALS_SECRET, "optional": True}}
        ], role
        names = {variable["name"] for variable in container["env"]}
        assert not names & {"MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"}, role
    # The Secret is the one deploy/README.md tells the operator to create.
    readme = (Path(__file__).parents[4] / "deploy" / "README.md").read_text()
    assert f"create secret generic {MLFLOW_CREDENTIALS_SECRET}" in readme
