"""The ``plumbline`` command line: the parser and its dispatch to one module per command
group (``pipelines.cli.commands``, and ``k8s``, ``init`` and ``gpu`` beside it)."""

from __future__ import annotations

import warnings

import click

from pipelines.cli.commands.audit import audit
from pipelines.cli.commands.catalog import catalog
from pipelines.cli.commands.contracts import contracts
from pipelines.cli.commands.models import models
from pipelines.cli.commands.query import query
from pipelines.cli.commands.run import run
from pipelines.cli.commands.servers import mlflow_ui, ui
from pipelines.cli.commands.translate import translate
from pipelines.cli.defs import defs_command
from pipelines.cli.errors import OneLineErrors
from pipelines.cli.gpu import gpu_command
from pipelines.cli.init import init
from pipelines.cli.k8s import k8s

# Great Expectations imports pyspark, which warns about pandas 3 on import; the Spark paths
# plumbline uses are tested under it (see the pytest configuration's matching filter).
warnings.filterwarnings(
    "ignore", message="PySpark does not yet fully support", category=FutureWarning
)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """plumbline: legacy warehouse SQL to ANSI, tables, contracts, training and an audit
    trail, as Dagster assets.

    Settings come from PLUMBLINE_* environment variables (see the README); flags override
    them for one command.
    """


@main.group()
def bench() -> None:
    """Benchmarks that need a command of their own (`make bench` runs them all, small)."""


bench.add_command(gpu_command)
for command in (
    run,
    query,
    translate,
    contracts,
    catalog,
    ui,
    models,
    audit,
    k8s,
    init,
    mlflow_ui,
    defs_command,
):
    main.add_command(command)


if __name__ == "__main__":
    main()
