"""Run a training job on this machine: ``torchrun`` (:mod:`pipelines.launch.torchrun`) through
``PipesSubprocessClient``, its workers' messages read whole by
``pipelines.pipes.messages.WholeLineMessageReader``. A failed training becomes ``dg.Failure``
with the traceback of the first worker that failed, not torchrun's exit code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import dagster as dg

from models.job import TrainingJob
from pipelines.launch.torchrun import (
    default_nproc,
    local_training_env,
    torchrun_command,
    worker_failure,
)
from pipelines.pipes.messages import WholeLineMessageReader


def launch_locally(
    context: dg.AssetExecutionContext,
    job: TrainingJob,
    *,
    cwd: Path,
    nproc_per_node: int | None = None,
    max_restarts: int = 1,
) -> dg.PipesClientCompletedInvocation:
    """Run ``job`` as ``nproc_per_node`` processes (default: one per GPU, else 2 on CPU) of
    a loopback-only ``torchrun`` started in ``cwd`` (where ``models`` is importable), the
    worker group restarted up to ``max_restarts`` times; return Pipes' completed invocation."""
    # Imports torch (as default_nproc does): at launch, not when the code location loads.
    from models.runtime import available_cpus

    nproc = nproc_per_node or default_nproc()
    command = torchrun_command(job.write(), nproc, max_restarts)
    context.log.info(f"launching: {' '.join(command)}")
    env = {
        # The CPUs this process may use, split between the ranks (torchrun would set 1
        # per rank and print a banner); the trainer sets torch's own count the same way.
        "OMP_NUM_THREADS": str(max(1, available_cpus() // nproc)),
        "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false",
        # Every listening socket of the training on 127.0.0.1 (pipelines.launch.torchrun).
        **local_training_env(),
    }
    return run_training_command(context, job, command, env=env, cwd=cwd)


def run_training_command(
    context: dg.AssetExecutionContext,
    job: TrainingJob,
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
) -> dg.PipesClientCompletedInvocation:
    """Run ``command`` (the training of ``job``) through Dagster Pipes; a failure raises
    ``dg.Failure`` with the first failing worker's traceback, else with what failed."""
    client = dg.PipesSubprocessClient(
        cwd=str(cwd), env=dict(env), message_reader=WholeLineMessageReader()
    )
    try:
        return client.run(context=context, command=list(command))
    # The client raises DagsterPipesExecutionError on a non-zero exit, a class Dagster does
    # not export; OSError when the command cannot start. An interrupted run raises a
    # BaseException, which passes through.
    except Exception as exc:
        raise dg.Failure(description=worker_failure(job) or f"training: {exc}") from exc
