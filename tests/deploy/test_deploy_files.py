"""The deployment files: pinned images, installs from the locks, sources that exist, Helm values
that match the code."""

from __future__ import annotations

import io
import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from dockerfile_parse import DockerfileParser

from models.environment import INSTALLED_LOCK
from pipelines.launch.k8s.request import K8sTrainingRequest
from pipelines.settings import SETTINGS_DOCS

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILES = ("Dockerfile", "Dockerfile.train")
VALUES = DEPLOY / "helm" / "values.yaml"
PREREQUISITES = DEPLOY / "k8s" / "training-prerequisites.yaml"
LAUNCHER_SETTING = "PLUMBLINE_LAUNCHER"
# The API calls of pipelines/pipes/kubernetes.py and dagster-k8s's PipesK8sClient: (group,
# resource, verb).
LAUNCHER_PERMISSIONS = {
    ("", "services", "create"),
    ("", "services", "delete"),
    ("", "pods", "create"),
    ("", "pods", "delete"),
    ("", "pods", "get"),
    ("", "pods", "list"),
    ("", "pods", "patch"),
    ("", "pods/log", "get"),
    ("batch", "jobs", "create"),
    ("batch", "jobs", "delete"),
    ("batch", "jobs/status", "get"),
    ("resource.nvidia.com", "computedomains", "create"),
    ("resource.nvidia.com", "computedomains", "delete"),
}


def parse(name: str) -> DockerfileParser:
    # fileobj: given a path, the parser takes any name but "Dockerfile" for a folder.
    return DockerfileParser(fileobj=io.BytesIO((DEPLOY / name).read_bytes()))


def instructions(name: str, instruction: str) -> list[str]:
    return [i["value"] for i in parse(name).structure if i["instruction"] == instruction]


def stage_names(name: str) -> set[str]:
    found = set()
    for value in instructions(name, "FROM"):
        words = value.split()
        if len(words) == 3 and words[1].upper() == "AS":
            found.add(words[2])
    return found


def image_references(name: str) -> list[str]:
    """Every image the build pulls: FROM lines and COPY --from=<image>, stages excluded."""
    stages = stage_names(name)
    images = [value.split()[0] for value in instructions(name, "FROM")]
    for value in instructions(name, "COPY"):
        images += [w.removeprefix("--from=") for w in value.split() if w.startswith("--from=")]
    return [image for image in images if image not in stages]


def copy_sources(name: str) -> list[str]:
    sources = []
    for value in instructions(name, "COPY"):
        words = value.split()
        if any(word.startswith("--from=") for word in words):
            continue
        paths = [word for word in words if not word.startswith("--")]
        sources += paths[:-1]  # the last one is the destination
    return sources


@pytest.mark.parametrize("name", DOCKERFILES)
def test_every_base_image_is_pinned_by_an_explicit_tag(name):
    images = image_references(name)
    assert images
    for image in images:
        last = image.rsplit("/", 1)[-1]
        assert ":" in last or "@sha256:" in image, f"{name}: {image} has no tag"
        assert not image.endswith(":latest"), f"{name}: {image} is 'latest'"
    assert not re.search(r":latest\b", (DEPLOY / name).read_text())


@pytest.mark.parametrize("name", DOCKERFILES)
def test_every_copy_source_exists_in_the_repository(name):
    sources = copy_sources(name)
    assert "pyproject.toml" in sources
    for source in sources:
        assert (ROOT / source).exists(), f"{name}: COPY {source} does not exist"


@pytest.mark.parametrize("name", DOCKERFILES)
def test_the_dockerignore_keeps_every_copy_source(name):
    ignore = (DEPLOY / f"{name}.dockerignore").read_text().splitlines()
    kept = {line.removeprefix("!").rstrip("/") for line in ignore if line.startswith("!")}
    for source in copy_sources(name):
        assert source.rstrip("/") in kept, f"{name}.dockerignore drops {source}"


def installed_locks(name: str) -> list[Path]:
    """The locks a Dockerfile installs, one per platform it is built for where the lock's name
    depends on the platform (``${TARGETARCH}``, from the build command in its header)."""
    runs = " ".join(instructions(name, "RUN"))
    text = (DEPLOY / name).read_text()
    platforms = re.search(r"--platform (\S+)", text)
    arches = [p.split("/")[1] for p in platforms[1].split(",")] if platforms else []
    locks = []
    for lock in re.findall(r"--require-hashes -r (requirements/\S+\.lock)", runs):
        names = [lock.replace("${TARGETARCH}", arch) for arch in arches] if "$" in lock else [lock]
        locks += [ROOT / n for n in names]
    return locks


def pinned(lock: Path, package: str) -> str:
    (version,) = re.findall(rf"^{re.escape(package)}==(\S+) \\$", lock.read_text(), re.M)
    return version


@pytest.mark.parametrize("name", DOCKERFILES)
def test_every_install_comes_from_a_lock_with_hashes(name):
    installs = [
        step.strip()
        for run in instructions(name, "RUN")
        for step in run.split("&&")
        if "pip install" in step
    ]
    assert installs
    for step in installs:
        from_lock = "--require-hashes -r requirements/" in step
        project_only = "--no-deps" in step and "--no-build-isolation" in step and "-e ." in step
        assert from_lock or project_only, f"{name}: {step!r} installs outside the locks"
    locks = installed_locks(name)
    assert locks and all(lock.exists() for lock in locks), locks


@pytest.mark.parametrize("name", DOCKERFILES)
def test_every_image_keeps_its_lock_where_the_fingerprint_reads_it(name):
    # models/environment.py records the digest of sys.prefix/<INSTALLED_LOCK.name>.
    runs = " ".join(instructions(name, "RUN"))
    assert re.search(rf"cp requirements/\S+\.lock [^&]*/{INSTALLED_LOCK.name}", runs)


def test_code_location_image_is_python_311_with_java_17_and_the_projects_cpu_torch():
    (base,) = image_references("Dockerfile")
    assert base.startswith("python:3.11.")
    runs = " ".join(instructions("Dockerfile", "RUN"))
    assert "openjdk-17-jre-headless" in runs
    # torch 2.13.0+cpu is served by the PyTorch CPU index only.
    assert "download.pytorch.org/whl/cpu" in runs
    locks = installed_locks("Dockerfile")
    assert ROOT / "requirements" / "code-location.lock" in locks
    assert pinned(ROOT / "requirements" / "code-location.lock", "torch").endswith("+cpu")
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned(locks[-1], "dagster-postgres"))
    cmd = " ".join(instructions("Dockerfile", "CMD"))
    assert "pipelines.definitions" in cmd


def test_training_image_pins_cuda_torch_and_nccl_for_each_platform():
    images = image_references("Dockerfile.train")
    (cuda,) = [image for image in images if image.startswith("nvidia/cuda:")]
    assert re.fullmatch(r"nvidia/cuda:\d+\.\d+\.\d+-\w+-ubuntu\d+\.\d+", cuda)
    runs = " ".join(instructions("Dockerfile.train", "RUN"))
    assert "--python 3.11" in runs
    locks = installed_locks("Dockerfile.train")
    assert {lock.name for lock in locks} == {"train-amd64.lock", "train-arm64.lock"}
    for lock in locks:
        # PyPI's torch, the CUDA build: a local version (+cpu) would be the CPU build.
        assert "+" not in pinned(lock, "torch"), lock.name
        assert re.fullmatch(r"\d+\.\d+\.\d+", pinned(lock, "nvidia-nccl-cu13")), lock.name


def test_torch_pin_matches_the_project():
    pyproject = (ROOT / "pyproject.toml").read_text()
    (project_torch,) = re.findall(r'"torch==([0-9.]+)"', pyproject)
    for name in DOCKERFILES:
        # pip.lock holds the installer alone.
        for lock in [lock for lock in installed_locks(name) if lock.name != "pip.lock"]:
            assert pinned(lock, "torch").split("+")[0] == project_torch, f"{name}: {lock.name}"


@pytest.fixture(scope="module")
def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


@pytest.fixture(scope="module")
def deployment(values) -> dict:
    user = values["dagster-user-deployments"]
    assert user["enabled"] is True and user["enableSubchart"] is True
    (found,) = user["deployments"]
    return found


def test_values_run_the_plumbline_image_as_a_user_code_deployment(deployment):
    image = deployment["image"]
    assert "plumbline" in image["repository"]
    assert image["tag"] and str(image["tag"]) != "latest"
    workspace = yaml.safe_load((ROOT / "workspace.yaml").read_text())
    module = workspace["load_from"][0]["python_module"]["module_name"]
    assert deployment["dagsterApiGrpcArgs"] == ["--module-name", module]
    assert deployment["includeConfigInLaunchedRuns"]["enabled"] is True


def test_values_use_the_k8s_run_launcher_and_the_charts_postgres(values):
    assert values["runLauncher"]["type"] == "K8sRunLauncher"
    assert values["postgresql"]["enabled"] is True
    assert values["postgresql"]["postgresqlPassword"] == ""  # set at install, not committed


def test_values_env_names_are_documented_settings(deployment):
    documented = {doc.name for doc in SETTINGS_DOCS} | {LAUNCHER_SETTING}
    env = {item["name"]: item["value"] for item in deployment["env"]}
    plumbline = {name for name in env if name.startswith("PLUMBLINE_")}
    assert plumbline, "no PLUMBLINE_* settings"
    assert plumbline <= documented, plumbline - documented
    assert env[LAUNCHER_SETTING] == "k8s"


def test_run_pods_mount_the_shared_volume_where_training_pods_do(deployment):
    defaults = K8sTrainingRequest(image="registry.example.com/plumbline-train:0.1.0")
    (volume,) = deployment["volumes"]
    (mount,) = deployment["volumeMounts"]
    assert volume["persistentVolumeClaim"]["claimName"] == defaults.shared_claim
    assert mount["name"] == volume["name"]
    assert mount["mountPath"] == defaults.shared_mount_path
    env = {item["name"]: item["value"] for item in deployment["env"]}
    home = env["PLUMBLINE_HOME"]
    assert home == defaults.shared_mount_path or home.startswith(defaults.shared_mount_path + "/")


@pytest.fixture(scope="module")
def prerequisites() -> list[dict]:
    return [doc for doc in yaml.safe_load_all(PREREQUISITES.read_text()) if doc]


def test_prerequisites_are_valid_kubernetes_objects(prerequisites):
    assert {doc["kind"] for doc in prerequisites} == {
        "PersistentVolumeClaim",
        "Role",
        "RoleBinding",
    }
    for doc in prerequisites:
        kubernetes_validate.validate(doc, "1.33", strict=True)


def test_prerequisites_give_the_code_location_every_permission_the_launcher_uses(
    prerequisites, values
):
    kinds = {doc["kind"]: doc for doc in prerequisites}
    granted = {
        (group, resource, verb)
        for rule in kinds["Role"]["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }
    assert granted >= LAUNCHER_PERMISSIONS, LAUNCHER_PERMISSIONS - granted
    binding = kinds["RoleBinding"]
    assert binding["roleRef"]["name"] == kinds["Role"]["metadata"]["name"]
    (subject,) = binding["subjects"]
    assert subject["name"] == values["dagster-user-deployments"]["serviceAccount"]["name"]
    claim = kinds["PersistentVolumeClaim"]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert claim["metadata"]["name"] == K8sTrainingRequest(image="x/y:1").shared_claim
