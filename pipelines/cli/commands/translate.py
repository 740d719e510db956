"""``plumbline translate``: legacy SQL to ANSI SQL (or an engine's rendering of it), exactly
or not at all; the translation and its report are :mod:`pipelines.cli.translate`'s."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines.cli.errors import fail_usage
from pipelines.settings import Settings, SettingsError
from sql.engines import ENGINES
from sql.source_dialects import DIALECTS


@click.command()
@click.option(
    "--from",
    "dialect",
    type=click.Choice(DIALECTS),
    help="Dialect of the legacy SQL.",
)
@click.option(
    "--to",
    "target",
    type=click.Choice(["ansi", *ENGINES]),
    default="ansi",
    show_default=True,
    help="ANSI SQL (the stored artifact), or its exact rendering for an engine.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of SQL.")
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write report.html and report.md over the whole sql/legacy tree into this folder.",
)
@click.option(
    "--assume",
    "assume",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a server-setting assumption of sql/assumptions.yaml, e.g. tsql_datefirst=1.",
)
@click.option(
    "--catalog",
    "catalog_files",
    multiple=True,
    metavar="FILE",
    help="A catalog of your tables (the format of sql/catalog.yaml, or written by "
    "`plumbline catalog import`); repeat to merge several. Default: PLUMBLINE_CATALOG.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="SQL:2016 alone: refuse the functions of the portable set (REPLACE, ROUND, LPAD, "
    "SPLIT_PART, ...; docs/translation-rules.md) with error[PORTABLE-STRICT].",
)
@click.option(
    "--var",
    "template_vars",
    multiple=True,
    metavar="NAME=VALUE",
    help="A variable of a Jinja-templated FILE ({{ name }}, var('name'), is_incremental()); "
    "true/false are booleans, a decimal integer a number, anything else a string. Never a "
    "secret: a stored translation records the variables it used.",
)
@click.option(
    "--param",
    "query_parameters",
    multiple=True,
    metavar="NAME:TYPE:VALUE",
    help="A BigQuery query parameter's value, as bq query --parameter takes it "
    "(submission_date:DATE:2024-01-01; NAME::VALUE is a STRING): each @NAME becomes "
    "CAST(VALUE AS TYPE). Recorded with the translation.",
)
@click.argument("file", required=False, default="-", metavar="[FILE|-]")
def translate(
    dialect: str | None,
    target: str,
    as_json: bool,
    report_dir: Path | None,
    assume: tuple[str, ...],
    catalog_files: tuple[str, ...],
    strict: bool,
    template_vars: tuple[str, ...],
    query_parameters: tuple[str, ...],
    file: str,
) -> None:
    """Translate legacy SQL to ANSI SQL, exactly or not at all.

    A script is translated statement by statement: the output is the translated script
    (each table it defines; views and temporary tables it drops become CTEs). SQL goes to
    stdout (exit 0). Diagnostics go to stderr as FILE:LINE:COL: error[RULE]: message (also
    warning[...] and info[...]); a refused or unparseable statement exits 1, with every
    refusal in the file listed. Usage errors exit 2.

    A FILE holding {{ }}, {% %} or {# #} (or named *.j2, *.jinja) is a Jinja template: it is
    rendered with the --var variables first (ref('t'), source('schema', 't') resolve in the
    catalog), and its diagnostics are located in the template.
    """
    from pipelines.cli.translate import run_report, run_translate
    from sql.assumptions import AssumptionError, load_assumptions
    from sql.catalog import CatalogError, load_catalogs
    from sql.parameters import ParameterError, parse_parameter
    from sql.paths import LEGACY_ROOT
    from sql.templating import variable_assignment

    try:
        variables = dict(variable_assignment(item) for item in template_vars)
    except ValueError as exc:
        fail_usage(f"--var: {exc}")
    try:
        parameters = dict(parse_parameter(item) for item in query_parameters)
    except ParameterError as exc:
        fail_usage(f"--param: {exc}")

    try:
        pairs = dict(item.split("=", 1) for item in assume)
        assumptions = load_assumptions().with_overrides(pairs)
    except ValueError as exc:  # AssumptionError, or an item without '='
        message = str(exc) if isinstance(exc, AssumptionError) else f"{exc}; expected KEY=VALUE"
        fail_usage(f"--assume: {message}")
    if catalog_files:
        paths, option = [Path(f) for f in catalog_files], "--catalog"
    else:
        try:
            paths, option = list(Settings.from_env().catalog), "PLUMBLINE_CATALOG"
        except SettingsError as exc:
            fail_usage(str(exc))
    try:
        catalog = load_catalogs(paths)
    except CatalogError as exc:
        fail_usage(f"{option}: {exc}")
    if report_dir is not None:
        sys.exit(run_report(LEGACY_ROOT, report_dir, assumptions, catalog, variables))
    if dialect is None:
        raise click.UsageError("--from DIALECT is required (or use --report DIR)")
    sys.exit(
        run_translate(
            dialect,
            target,
            file,
            as_json=as_json,
            assumptions=assumptions,
            catalog=catalog,
            strict=strict,
            variables=variables,
            parameters=parameters,
        )
    )
