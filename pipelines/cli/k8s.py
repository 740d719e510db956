"""``plumbline k8s render``: the exact objects the Kubernetes launcher would submit, as YAML."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from models.job import JOB_FILE, TrainingJob
from pipelines.launch.k8s.gpus import GPU_PRODUCTS
from pipelines.launch.k8s.render import render, to_yaml
from pipelines.launch.k8s.request import K8S_DEFAULTS, K8sRenderError, K8sTrainingRequest

# Request fields -> the flag that sets them, so that an error names what the user typed.
FLAGS = {
    "image": "--image",
    "job_name": "--job-name",
    "namespace": "--namespace",
    "gpu": "--gpu",
    "nodes": "--nodes",
    "gpus_per_node": "--gpus-per-node",
    "spot": "--spot",
    "rank0_on_spot": "--rank0-on-spot",
    "imex": "--imex",
    "nccl": "--nccl",
    "shm_size": "--shm-size",
    "shared_claim": "--shared-claim",
    "shared_mount_path": "--shared-mount-path",
    "max_restarts": "--max-restarts",
    "pod_retries": "--pod-retries",
    "job.output_dir": "--job-file's output_dir",
    "job.data_path": "--job-file's data_path",
    "job.mlflow_uri": "--job-file's mlflow_uri",
}
# What the job.json placeholder says when no --job-file is given: a run's own values are
# only known when Dagster launches it.
PLACEHOLDER_RUN = "RUN_ID"


def _fail(message: str) -> NoReturn:
    click.echo(f"plumbline: error: {message}", err=True)
    sys.exit(2)


class _OneLineErrors(click.Command):
    """Usage errors as one ``plumbline: error:`` line and exit 2, like every other input
    error of this command (click would print its usage block)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            _fail(exc.format_message())


def _integer(value: str | None, flag: str, minimum: int) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        _fail(f"{flag} must be an integer >= {minimum}; got {value!r}")
    return number


def _nccl(pairs: tuple[str, ...]) -> dict[str, str]:
    settings = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            _fail(f"--nccl must be KEY=VALUE (e.g. NCCL_DEBUG=INFO); got {pair!r}")
        settings[key] = value
    return settings


def _placeholder_job(mount_path: str) -> TrainingJob:
    return TrainingJob(
        data_path=f"{mount_path}/lake/warehouse/training_set/{PLACEHOLDER_RUN}",
        data_digest="",
        output_dir=f"{mount_path}/training/{PLACEHOLDER_RUN}",
        mlflow_uri="http://mlflow:5000",
        mlflow_run_id="",
    )


@click.group()
def k8s() -> None:
    """Kubernetes: the manifests of multi-node GPU training."""


@k8s.command(cls=_OneLineErrors)
@click.option("--nodes", metavar="N", help=f"Nodes (default {K8S_DEFAULTS['nodes']}).")
@click.option(
    "--gpus-per-node",
    metavar="G",
    help="torchrun processes per node, one per GPU (default: all of the product's GPUs).",
)
@click.option(
    "--gpu",
    metavar="|".join(GPU_PRODUCTS),
    default=K8S_DEFAULTS["gpu"],
    show_default=True,
    help="GPU product of the node pool.",
)
@click.option("--spot", is_flag=True, help="Tolerate spot/preemptible nodes for the workers.")
@click.option(
    "--rank0-on-spot", is_flag=True, help="With --spot, let rank 0's node be spot capacity too."
)
@click.option("--imex", is_flag=True, help="GB200 NVL72: an IMEX channel via a ComputeDomain.")
@click.option("--image", metavar="IMAGE", help="Training image, pinned by tag or digest.")
@click.option("--namespace", metavar="NS", default=K8S_DEFAULTS["namespace"], show_default=True)
@click.option("--job-name", metavar="NAME", default=K8S_DEFAULTS["job_name"], show_default=True)
@click.option("--nccl", metavar="KEY=VALUE", multiple=True, help="An NCCL_* variable (repeatable).")
@click.option("--shm-size", metavar="QUANTITY", default=K8S_DEFAULTS["shm_size"], show_default=True)
@click.option(
    "--shared-claim", metavar="PVC", default=K8S_DEFAULTS["shared_claim"], show_default=True
)
@click.option(
    "--shared-mount-path",
    metavar="PATH",
    default=K8S_DEFAULTS["shared_mount_path"],
    show_default=True,
)
@click.option(
    "--max-restarts",
    metavar="K",
    help=f"torchrun --max-restarts (default {K8S_DEFAULTS['max_restarts']}).",
)
@click.option(
    "--pod-retries",
    metavar="R",
    help=f"Replacement pods per worker (default {K8S_DEFAULTS['pod_retries']}).",
)
@click.option(
    "--job-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"A {JOB_FILE} written by the delay_model asset (default: a {PLACEHOLDER_RUN} "
    "placeholder under the shared mount path).",
)
def render_command(
    nodes: str | None,
    gpus_per_node: str | None,
    gpu: str,
    spot: bool,
    rank0_on_spot: bool,
    imex: bool,
    image: str | None,
    namespace: str,
    job_name: str,
    nccl: tuple[str, ...],
    shm_size: str,
    shared_claim: str,
    shared_mount_path: str,
    max_restarts: str | None,
    pod_retries: str | None,
    job_file: Path | None,
) -> None:
    """Print the objects the Kubernetes launcher would submit, as multi-document YAML.

    Bad input (a GPU count the product does not have, --imex off GB200, no --image, ...)
    prints one line naming the flag and exits 2; nothing is printed on stdout then.
    """
    numbers = {
        "nodes": _integer(nodes, "--nodes", 1),
        "gpus_per_node": _integer(gpus_per_node, "--gpus-per-node", 1),
        "max_restarts": _integer(max_restarts, "--max-restarts", 0),
        "pod_retries": _integer(pod_retries, "--pod-retries", 0),
    }
    try:
        request = K8sTrainingRequest(
            image=image or "",
            job_name=job_name,
            namespace=namespace,
            gpu=gpu,
            spot=spot,
            rank0_on_spot=rank0_on_spot,
            imex=imex,
            nccl=_nccl(nccl),
            shm_size=shm_size,
            shared_claim=shared_claim,
            shared_mount_path=shared_mount_path,
            **{name: value for name, value in numbers.items() if value is not None},
        )
        job = _read_job(job_file) if job_file else _placeholder_job(request.shared_mount_path)
        manifests = render(request, job)
    except K8sRenderError as exc:
        _fail(str(exc.renamed(FLAGS.get(exc.field, exc.field))))
    click.echo(to_yaml(manifests), nl=False)


def _read_job(path: Path) -> TrainingJob:
    try:
        return TrainingJob.read(path)
    except (OSError, ValueError, TypeError) as exc:
        _fail(f"--job-file must be a {JOB_FILE} written by the delay_model asset; {path}: {exc}")


k8s.add_command(render_command, name="render")
