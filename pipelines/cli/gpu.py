"""``plumbline bench gpu``: the GPU benchmark (:mod:`pipelines.cluster.gpu_bench`) as a click command.

Add it to a ``bench`` group with ``bench.add_command(gpu_command)``, or run it alone:
``python -m pipelines.cli.gpu --config small``.
"""

from __future__ import annotations

from pathlib import Path

import click

from pipelines.cluster.deploy_files import GPU_BENCH_RESULTS

# The benchmark (and torch) load when the command runs, not when the CLI starts.
CONFIG_NAMES = ("large", "small")
DEFAULT_OUT = GPU_BENCH_RESULTS


@click.command("gpu", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_name",
    type=click.Choice(CONFIG_NAMES),
    default=None,
    help="Benchmark size. Default: large where CUDA GPUs are visible, small otherwise.",
)
@click.option(
    "--nproc",
    type=click.IntRange(min=1),
    default=None,
    help="Processes, one per GPU. Default: every visible GPU, or 2 on CPU.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_OUT,
    show_default=True,
    help="Where rank 0 writes the results (JSON).",
)
@click.option(
    "--cpu", "force_cpu", is_flag=True, help="Run on CPU (gloo, float32) even where GPUs exist."
)
def gpu_command(config_name: str | None, nproc: int | None, out: Path, force_cpu: bool) -> None:
    """Train an FT-Transformer under DDP (bf16 and NCCL on GPUs) and report samples/s, MFU
    against the device's peak, and all-reduce bus bandwidth over a sweep of message sizes."""
    from models.config import ConfigError
    from pipelines.cluster.gpu_bench import (
        GpuBenchError,
        default_config,
        format_summary,
        run_gpu_bench,
    )

    config_name = config_name or default_config(force_cpu=force_cpu)
    try:
        results = run_gpu_bench(config_name, nproc, out, force_cpu=force_cpu)
    except ConfigError as error:
        raise click.UsageError(str(error)) from error
    except GpuBenchError as error:
        raise click.ClickException(str(error)) from error
    click.echo(format_summary(results))
    click.echo(f"results written to {out}")


if __name__ == "__main__":
    gpu_command()
