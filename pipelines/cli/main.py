"""The ``plumbline`` command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path
from typing import NoReturn

import click

from pipelines.cli.errors import OneLineErrors, one_line
from pipelines.settings import Settings, SettingsError, check_home_writable, redact
from sql.paths import REPOSITORY_ROOT
from sql.source_dialects import DIALECTS

# Great Expectations imports pyspark, which warns about pandas 3 on import; the Spark paths
# plumbline uses are tested under it (see the pytest configuration's matching filter).
warnings.filterwarnings(
    "ignore", message="PySpark does not yet fully support", category=FutureWarning
)

# Telemetry off: these machines have no network beyond package registries, and a
# regulated deployment should not phone home by default. python_log_level INFO keeps the
# step workers' DEBUG engine events out of the terminal (they stay in the event log). The
# managed loggers' records go into each step's log in the event log (and from there into
# `plumbline run`'s log file), not only to the stderr their own handlers write to.
DAGSTER_YAML = """\
telemetry:
  enabled: false
python_logs:
  python_log_level: INFO
  managed_python_loggers:
    - alembic
    - great_expectations
    - mlflow
    - urllib3
"""
# What earlier versions wrote: replaced by DAGSTER_YAML; a dagster.yaml edited by hand is kept.
EARLIER_DAGSTER_YAML = ("telemetry:\n  enabled: false\npython_logs:\n  python_log_level: INFO\n",)
# For every process a command starts: MLflow's tqdm bars (artifact uploads and downloads in
# the step processes) are for a person at a terminal, and `plumbline run` keeps its own.
QUIET_ENV = {"MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false"}
# How long a server (`plumbline ui`, `plumbline mlflow-ui`) gets to stop after SIGTERM or
# Ctrl-C before what is left of it is killed.
STOP_SECONDS = 15.0


def fail_usage(message: str) -> None:
    """Bad input: one line naming the setting and what it accepts, exit code 2."""
    click.echo(f"plumbline: error: {one_line(message)}", err=True)
    sys.exit(2)


def load_settings(**overrides: object) -> Settings:
    """Validate every setting and PLUMBLINE_HOME before anything is created or changed."""
    try:
        settings = Settings.from_env(**{k: v for k, v in overrides.items() if v is not None})
        check_home_writable(settings.home)
    except SettingsError as exc:
        fail_usage(str(exc))
    settings.export_credentials()
    return settings


def prepare_environment(settings: Settings) -> None:
    """Create PLUMBLINE_HOME and the Dagster instance folder; export the settings so that
    Dagster's step processes (which re-import the definitions) see the same values."""
    settings.dagster_home.mkdir(parents=True, exist_ok=True)
    settings.lake_root.mkdir(parents=True, exist_ok=True)
    dagster_yaml = settings.dagster_home / "dagster.yaml"
    if not dagster_yaml.exists() or dagster_yaml.read_text() in EARLIER_DAGSTER_YAML:
        dagster_yaml.write_text(DAGSTER_YAML)
    os.environ.update(settings.to_env())
    os.environ.update(QUIET_ENV)
    os.environ["DAGSTER_HOME"] = str(settings.dagster_home)


def serve(command: list[str], name: str) -> NoReturn:
    """Run a server ``command`` until it exits, or until this process gets SIGTERM or
    SIGINT; then stop it and every process it started, and exit 128 + the signal.

    The server is a child in a process group of its own, and a signal is passed on to the
    whole group as SIGINT, the Ctrl-C that both servers shut down cleanly on. Why not
    exec: `dagster dev` handles SIGTERM as it handles SIGINT, and a shell starts a
    background job with SIGINT ignored, so `plumbline ui &` ignored both; `mlflow ui` dies
    on SIGTERM and leaves its uvicorn worker running."""
    import psutil

    received: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signum)

    # Installed before the child starts: it then begins with both signals at their default.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    server = subprocess.Popen(command, start_new_session=True)
    while not received:
        try:
            sys.exit(server.wait(timeout=0.2))
        except subprocess.TimeoutExpired:
            continue
    click.echo(f"plumbline: stopping {name}", err=True)
    try:
        leader = psutil.Process(server.pid)
        group = [leader, *leader.children(recursive=True)]
        os.killpg(server.pid, signal.SIGINT)
    except (psutil.NoSuchProcess, ProcessLookupError):  # it stopped on its own meanwhile
        group = []
    deadline = time.monotonic() + STOP_SECONDS
    while _running(group, server) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in _running(group, server):
        process.kill()
    server.wait()
    sys.exit(128 + received[0])


def _running(processes: list, server: subprocess.Popen) -> list:
    """The processes not yet gone (a zombie whose parent has not reaped it counts as gone)."""
    import psutil

    server.poll()  # reaps the server once it has exited
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """plumbline: legacy warehouse SQL to ANSI, tables, contracts, training and an audit
    trail, as Dagster assets.

    Settings come from PLUMBLINE_* environment variables (see the README); flags override
    them for one command.
    """


@main.command()
@click.option(
    "--scale",
    metavar="SF",
    help="TPC-H scale factor for the raw lake (overrides PLUMBLINE_SCALE).",
)
@click.option(
    "--engine",
    metavar="duckdb|spark",
    help="SQL engine that builds tables (overrides PLUMBLINE_ENGINE).",
)
@click.option(
    "--select",
    "selection",
    metavar="SELECTION",
    help='Dagster asset selection, e.g. "group:raw" or "key:raw/orders"; default: every asset.',
)
@click.option(
    "--portability",
    is_flag=True,
    help="Afterwards, run every warehouse table's SQL on the other engine and compare.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Train the model even when a training of the same training set, code and config "
    "can be reused.",
)
def run(
    scale: str | None, engine: str | None, selection: str | None, portability: bool, force: bool
) -> None:
    """Materialize the asset graph through Dagster, as the UI's "Materialize all" does.

    Runs against the persistent Dagster instance in $PLUMBLINE_HOME/dagster, so the run
    shows up in `plumbline ui` afterwards.
    """
    settings = load_settings(scale=scale, engine=engine)
    # Imported here so that `plumbline --help` and bad flags answer without loading Dagster.
    from pipelines.cli.location import LocationError, find_location
    from pipelines.cli.run import TRAINING_ASSET, SelectionError, resolve_selection, run_assets
    from pipelines.project import ProjectError
    from pipelines.warehouse.contract_lint import BrokenContracts

    # The project's definitions read the settings from the environment, as its step
    # processes and `dg dev` do: the flags reach them there.
    os.environ.update(settings.to_env())
    try:
        location = find_location(Path.cwd())
        defs = location.definitions()
        keys = resolve_selection(defs, selection)
        if force and TRAINING_ASSET not in {key.to_user_string() for key in keys}:
            raise SelectionError(
                f"--force retrains {TRAINING_ASSET}, which this run does not include"
            )
    except (SelectionError, LocationError, ProjectError) as exc:
        fail_usage(str(exc))
    except BrokenContracts as exc:
        # The pipeline does not start with a broken contract.
        for error in exc.errors:
            click.echo(_relative(error.format()), err=True)
        click.echo(
            f"plumbline: {len(exc.errors)} broken data contract(s); nothing was run", err=True
        )
        sys.exit(1)
    from pipelines.cli.preflight import PreflightError, check_footprint, check_mlflow
    from pipelines.registry.tracking_store import TrackingStoreError, ensure_tracking_store

    # A project without models needs no MLflow store; the footprint is the TPC-H demo's.
    trains = any(key.path[0] == "models" for key in defs.resolve_asset_graph().get_all_asset_keys())
    try:
        if trains:
            check_mlflow(settings.mlflow_uri)
            ensure_tracking_store(settings.mlflow_uri, settings.mlflow_artifacts.as_uri())
        if location.is_demo:
            check_footprint(settings)
    except (PreflightError, TrackingStoreError) as exc:
        click.echo(f"plumbline: error: {exc}; nothing was run", err=True)
        sys.exit(1)
    prepare_environment(settings)
    outcome = run_assets(
        settings,
        keys,
        location=location,
        subset=selection is not None,
        echo=click.echo,
        retrain=force,
    )
    if outcome.success and portability:
        from pipelines.definitions import CHECK_PORTABILITY_JOB

        click.echo("")
        outcome = run_assets(
            settings,
            None,
            job_name=CHECK_PORTABILITY_JOB,
            location=location,
            subset=False,
            echo=click.echo,
        )
        outcome.success = outcome.success and all(outcome.checks.values())
    if not outcome.success:
        from pipelines.cli.preflight import disk_full

        full = disk_full([p.message for p in outcome.assets.values() if p.message], settings)
        if full is not None:
            click.echo(f"plumbline: error: {full}", err=True)
    sys.exit(0 if outcome.success else 1)


@main.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
@click.option(
    "--max-rows", default=40, show_default=True, help="Rows shown in the table (CSV prints all)."
)
def query(sql: str, as_csv: bool, max_rows: int) -> None:
    """Run one read-only DuckDB query (SELECT or WITH) over the published lake tables, e.g.

    plumbline query "SELECT * FROM warehouse.customer_profile LIMIT 5"

    Tables are named zone.table (raw.orders, warehouse.<name>).
    """
    settings = load_settings()
    from pipelines.lake.store import Lake
    from pipelines.warehouse.query import ReadOnlyQueryError, run_read_only

    tables = Lake(settings.lake_root).published()
    try:
        result = run_read_only(sql, tables)
    except ReadOnlyQueryError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    if as_csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(result, sys.stdout.buffer)
        return
    import duckdb

    click.echo(str(duckdb.from_arrow(result.slice(0, max_rows))).rstrip())
    if result.num_rows > max_rows:
        click.echo(f"({result.num_rows:,} rows, first {max_rows} shown; --csv prints all)")


@main.command()
@click.option(
    "--from",
    "dialect",
    type=click.Choice(DIALECTS),
    help="Dialect of the legacy SQL.",
)
@click.option(
    "--to",
    "target",
    type=click.Choice(["ansi", "duckdb", "spark"]),
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


def _relative(line: str) -> str:
    """Paths under the working directory as relative paths, like compilers print them."""
    cwd = str(Path.cwd()) + os.sep
    return line[len(cwd) :] if line.startswith(cwd) else line


@main.group()
def contracts() -> None:
    """Data contracts (ODCS v3 files in sql/contracts/)."""


def _project():
    """The project the working directory lies in (a dg project of the user's), or this
    repository's TPC-H demo: where its contracts, legacy SQL and catalogs are."""
    from pipelines.cli.location import LocationError, find_location

    try:
        return find_location(Path.cwd()).migration()[1]
    except LocationError as exc:
        fail_usage(str(exc))


@contracts.command("lint")
@click.option(
    "--contracts",
    "contracts_root",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of contract files; default: the project's (sql/contracts in this repository).",
)
@click.option(
    "--against",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder of earlier contract files (e.g. from the main branch) to guard against "
    "breaking changes, besides the versions published under $PLUMBLINE_HOME/contracts.",
)
def contracts_lint(contracts_root: Path | None, against: Path | None) -> None:
    """Check every contract against ODCS, the SQL that builds its table, and the last
    published version (a breaking change needs a major version bump).

    Prints FILE:FIELD: message per problem and exits 1 if there is any; 0 otherwise.
    """
    from pipelines.contracts.registry import PublishedContracts
    from pipelines.translation.store import translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from pipelines.warehouse.contract_lint import lint_contracts
    from sql.catalog import load_catalogs

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        fail_usage(str(exc))
    project = _project()
    root = contracts_root or project.contracts_root
    if not root.is_dir():
        fail_usage(f"--contracts: no such folder {root}")
    catalog = load_catalogs(project.catalogs)
    tables = warehouse_tables(
        catalog,
        translate_sources(project.legacy_root, catalog, variables=project.template_vars),
        ansi_root=project.portable_root,
        reference_root=project.reference_root,
        contracts_root=root,
    )
    report = lint_contracts(
        root,
        tables,
        catalog,
        published=PublishedContracts(settings.published_contracts_root),
        against=against,
    )
    for error in report.errors:
        click.echo(_relative(error.format()))
    verdict = "ok" if report.passed else f"{len(report.errors)} problem(s)"
    click.echo(
        f"contracts lint: {report.contracts} contracts, {report.tables} tables: {verdict}",
        err=True,
    )
    sys.exit(0 if report.passed else 1)


@contracts.command("init")
@click.argument("tables", nargs=-1, metavar="[TABLE]...")
@click.option(
    "--all",
    "every_table",
    is_flag=True,
    help="Draft every published warehouse table that has no contract file yet.",
)
@click.option(
    "--contracts",
    "contracts_root",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write the contracts to; default: the project's (sql/contracts here).",
)
@click.option(
    "--lake",
    "lake_root",
    type=click.Path(file_okay=False, path_type=Path),
    help="Lake the tables are published in; default: $PLUMBLINE_HOME/lake.",
)
@click.option("--owner", metavar="TEAM", help="Team that owns the drafted contracts.")
@click.option("--force", is_flag=True, help="Overwrite contract files that exist.")
def contracts_init(
    tables: tuple[str, ...],
    every_table: bool,
    contracts_root: Path | None,
    lake_root: Path | None,
    owner: str | None,
    force: bool,
) -> None:
    """Draft an ODCS contract for each TABLE from its published data (status: draft).

    Writes DIR/TABLE.yaml with the types, non-null columns, key, allowed values, ranges and
    row count the data shows, for a person to review: `contracts lint` fails on a draft.
    Prints one line per file written; exits 1 if a table is not published.
    """
    import re

    from pipelines.contracts.draft import DraftError, draft_contract
    from pipelines.lake.files import write_atomic
    from pipelines.lake.store import Lake, LakeError
    from pipelines.warehouse.build import WAREHOUSE_ZONE

    if every_table == bool(tables):
        fail_usage("give TABLE names or --all, not both and not neither")
    for name in tables:
        # A table name is a file name under the lake and the contracts folder: no paths.
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            fail_usage(f"TABLE {name!r} is not a table name (letters, digits and _)")
    if lake_root is None:
        try:
            lake_root = Settings.from_env().lake_root
        except SettingsError as exc:
            fail_usage(str(exc))
    root = contracts_root or _project().contracts_root
    lake = Lake(lake_root)
    if every_table:
        prefix = f"{WAREHOUSE_ZONE}."
        published = [q[len(prefix) :] for q in lake.published() if q.startswith(prefix)]
        if not published:
            click.echo(
                f"plumbline: error: no warehouse table is published in {lake_root}; "
                "materialize them first (plumbline run)",
                err=True,
            )
            sys.exit(1)
        chosen = [name for name in published if force or not (root / f"{name}.yaml").exists()]
        skipped = len(published) - len(chosen)
    else:
        chosen, skipped = list(dict.fromkeys(tables)), 0
    versions, problems = {}, []
    for name in chosen:
        try:
            version = lake.current(WAREHOUSE_ZONE, name)
        except LakeError as exc:
            problems.append(str(exc))
            continue
        if version is None:
            problems.append(
                f"warehouse table {name!r} is not published in {lake_root}; materialize it "
                f"first (plumbline run --select key:{WAREHOUSE_ZONE}/{name})"
            )
        elif (root / f"{name}.yaml").exists() and not force:
            problems.append(f"{root / f'{name}.yaml'} exists; pass --force to overwrite it")
        else:
            versions[name] = version
    drafts = {}
    for name, version in versions.items():
        try:
            drafts[name] = draft_contract(name, version.path, owner=owner)
        except DraftError as exc:
            problems.append(str(exc))
    if problems:
        # Nothing is written unless every table asked for can be drafted.
        for problem in problems:
            click.echo(f"plumbline: error: {one_line(problem)}", err=True)
        sys.exit(1)
    for name, text in drafts.items():
        target = root / f"{name}.yaml"
        try:
            write_atomic(target, text)
        except OSError as exc:
            click.echo(f"plumbline: error: cannot write {target}: {exc.strerror}", err=True)
            sys.exit(1)
        click.echo(f"{_relative(str(target))}: drafted from {WAREHOUSE_ZONE}/{name}; review it")
    click.echo(
        f"contracts init: {len(drafts)} drafted"
        + (f", {skipped} skipped (a contract exists; --force overwrites)" if skipped else ""),
        err=True,
    )


@main.group()
def catalog() -> None:
    """Catalogs: legacy names -> lake tables, with their columns (sql/catalog.yaml's format)."""


@catalog.command("import")
@click.option("--from", "dialect", metavar="DIALECT", help="Dialect of the DDL FILEs.")
@click.option(
    "--from-lake",
    "from_lake",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Read the Parquet schemas of a lake root (<zone>/<table>/ folders) instead of DDL.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the catalog to this file (atomically) instead of stdout.",
)
@click.option("--zone", default="raw", show_default=True, help="Lake zone of imported DDL tables.")
@click.option(
    "--from-sources",
    "from_sources",
    is_flag=True,
    help="Read the project's declared sources (its defs.yaml) instead; with --from DIALECT "
    "DDL..., check the DDL against them and take its legacy names.",
)
@click.argument("files", nargs=-1, metavar="[FILE]...")
def catalog_import(
    dialect: str | None,
    from_lake: Path | None,
    out: Path | None,
    zone: str,
    from_sources: bool,
    files: tuple[str, ...],
) -> None:
    """Write a catalog from the legacy warehouse's CREATE TABLE DDL, a lake, or the sources.

    Types map to exact ANSI types; a type with none is kept as {opaque: TYPE} and reported
    as FILE:LINE:COL: warning[CATALOG-OPAQUE]. Other statements are skipped (info lines).
    An unparseable statement, or DDL that differs from the sources, exits 1 and writes
    nothing; usage errors exit 2.
    """
    from pipelines.cli.catalog import CatalogUsageError, run_import

    sources = None
    if from_sources:
        from pipelines.cli.location import LocationError, find_location

        try:
            _, project = find_location(Path.cwd()).migration(check_catalogs=False)
        except LocationError as exc:
            fail_usage(str(exc))
        sources = project.sources
    try:
        code = run_import(dialect, files, from_lake=from_lake, out=out, zone=zone, sources=sources)
    except CatalogUsageError as exc:
        fail_usage(str(exc))
    sys.exit(code)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", default=3000, show_default=True, help="Port to listen on.")
def ui(host: str, port: int) -> None:
    """Open the Dagster UI (dagster dev) over the same instance `plumbline run` uses."""
    settings = load_settings()
    from pipelines.cli.location import LocationError, find_location

    try:
        location = find_location(Path.cwd())
    except LocationError as exc:
        fail_usage(str(exc))
    prepare_environment(settings)
    dagster = Path(sysconfig.get_path("scripts")) / "dagster"
    workspace = REPOSITORY_ROOT / "workspace.yaml"
    if not location.is_demo:
        # A project of the user's (plumbline init): its own code location, from its folder.
        target = ["-m", location.module, "-d", str(location.root)]
    elif workspace.is_file():
        target = ["-w", str(workspace)]
    else:
        target = ["-m", "pipelines.definitions"]
    click.echo(
        f"Dagster UI on http://{host}:{port} (DAGSTER_HOME={settings.dagster_home}); "
        "stop it with Ctrl-C, or `kill` its process id"
    )
    serve([str(dagster), "dev", *target, "--host", host, "--port", str(port)], "the Dagster UI")


@main.group()
def models() -> None:
    """Registered models (MLflow Model Registry, PLUMBLINE_MLFLOW_URI)."""


@models.command("history")
@click.argument("model", default="delivery_delay")
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines instead of a table.")
def models_history(model: str, as_json: bool) -> None:
    """Every alias move of MODEL (who moved it, from which version to which, when, why),
    from the append-only log in $PLUMBLINE_HOME/lake/registry/alias_history."""
    import json
    from dataclasses import asdict

    from pipelines.registry.versions import ALIAS_HISTORY, AliasHistory

    settings = load_settings()
    moves = AliasHistory(settings.lake_root.joinpath(*ALIAS_HISTORY)).moves(model)
    if not moves:
        # No moves is an answer for a registered model; for any other name it is a mistake.
        registered = _registered_models(settings)
        if model not in registered:
            known = ", ".join(registered) or "none yet (`plumbline run` registers delivery_delay)"
            message = (
                f"no registered model {model!r} in {redact(settings.mlflow_uri)}, and no "
                f"alias moves recorded for it; registered models: {known}"
            )
            click.echo(f"plumbline: error: {one_line(message)}", err=True)
            sys.exit(1)
    if as_json:
        for move in moves:
            click.echo(json.dumps(asdict(move), sort_keys=True))
        return
    if not moves:
        click.echo(f"no alias moves recorded for {model}")
        return
    header = f"{'moved at (UTC)':<32}  {'alias':<10}  {'from':>4}  {'to':>4}  {'dagster run':<36}  reason"
    click.echo(header)
    for m in moves:
        click.echo(
            f"{m.moved_at:<32}  {m.alias:<10}  {m.from_version or '-':>4}  {m.to_version:>4}  "
            f"{m.dagster_run_id:<36}  {m.reason}"
        )


def _registered_models(settings: Settings) -> list[str]:
    """The names in the MLflow Model Registry, sorted; none for a sqlite store not yet made
    (looking must not create it)."""
    from pipelines.cli.preflight import PreflightError, check_mlflow
    from pipelines.registry.tracking_store import sqlite_path

    uri = settings.mlflow_uri
    store = sqlite_path(uri)
    if store is not None and not store.is_file():
        return []
    try:
        check_mlflow(uri)  # MLflow's own client retries an unreachable server for minutes
    except PreflightError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri, registry_uri=uri)
    names: list[str] = []
    token = None
    while True:
        page = client.search_registered_models(page_token=token)
        names.extend(model.name for model in page)
        token = page.token
        if not token:
            return sorted(names)


def _audit_sources(settings: Settings, *, registry: bool = True):
    """What ``plumbline audit`` reads: the lake, the ANSI store, the MLflow registry and (when
    this home has one) the Dagster instance. Without ``registry`` (a table's chain, which
    reads no MLflow) the sources have no MLflow client: a project without a model has no
    MLflow store, and MLflow is not even imported."""
    client = _registry_client(settings) if registry else None
    from pipelines.instance import audit_sources
    from pipelines.lake.store import Lake

    instance = None
    if (settings.dagster_home / "dagster.yaml").is_file():
        import dagster as dg

        instance = dg.DagsterInstance.from_config(str(settings.dagster_home))
    return audit_sources(Lake(settings.lake_root), settings.ansi_root, client, instance), instance


def _registry_client(settings: Settings):
    """An MLflow client of the registry of this home; AuditError when it has none."""
    from pipelines.audit.chain import AuditError

    uri = settings.mlflow_uri
    if uri.startswith("sqlite:///") and not Path(uri.removeprefix("sqlite:///")).is_file():
        raise AuditError(f"no MLflow store at {uri}: run `make run` (or `plumbline run`) first")
    from pipelines.cli.preflight import PreflightError, check_mlflow

    try:
        # MLflow's own client retries an unreachable server for minutes before it gives up.
        check_mlflow(uri)
    except PreflightError as exc:
        raise AuditError(str(exc)) from None
    # MLflow and the asset definitions take seconds to import: not for a missing store.
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=uri, registry_uri=uri)


def _table_sources(settings: Settings):
    """The sources of a table's chain: :func:`_audit_sources` without MLflow, and the tables
    written in ANSI SQL from the start of the project this command runs in (the demo's
    sql/ansi in this repository, a user's ``portable_sql`` folder, or none)."""
    sources, instance = _audit_sources(settings, registry=False)
    sources.portable_root = _project().portable_root
    return sources, instance


def _dagster_roots(instance, bundle) -> list[str] | None:
    """Root digests the audit asset recorded in the Dagster run that made ``bundle``;
    None when the bundle was made by the command line (nothing to compare)."""
    run_id = bundle.data.get("made_by", {}).get("dagster_run_id")
    if not run_id:
        return None
    from assets.audit import AUDIT_BUNDLE_KEY
    from pipelines.instance import recorded_root_digests

    return recorded_root_digests(instance, AUDIT_BUNDLE_KEY, run_id)


@main.command()
@click.argument(
    "subject", required=False, metavar="MODEL[@VERSION|@ALIAS] | warehouse/TABLE[@VERSION]"
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help=(
        "A new or empty folder for bundle.json and report.html (default: a new folder under "
        "$PLUMBLINE_HOME/audit: MODEL/vN/<time>-<digest>, or "
        "warehouse/TABLE/<version>/<time>-<digest>). A bundle is never overwritten."
    ),
)
@click.option(
    "--verify",
    "verify_path",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="BUNDLE",
    help="Recompute every digest of BUNDLE (a bundle.json) from the current sources.",
)
@click.option(
    "--openlineage",
    "openlineage_target",
    metavar="FILE|URL",
    help="Also emit the chain as OpenLineage run events: JSON lines to FILE, or POST to URL.",
)
def audit(
    subject: str | None,
    out: Path | None,
    verify_path: Path | None,
    openlineage_target: str | None,
) -> None:
    """Write the audit bundle of a registered model version (default alias: champion) or of
    a published warehouse table (default: its published version), or verify one.

    \b
    plumbline audit delivery_delay             the champion
    plumbline audit delivery_delay@3           version 3
    plumbline audit delivery_delay@challenger  by alias
    plumbline audit warehouse/daily_revenue    the table's published version, down to its
                                               legacy SQL and raw tables (no MLflow needed)
    plumbline audit --verify DIR/bundle.json   exit 0 when every link holds, else 1

    A table is audited, and its bundle verified, in the project the command runs in.
    """
    if (subject is None) == (verify_path is None):
        fail_usage(
            "give either MODEL[@VERSION|@ALIAS] or --verify BUNDLE (or, for a table, "
            "warehouse/TABLE[@VERSION])"
        )
    if verify_path is not None and (out is not None or openlineage_target is not None):
        fail_usage("--verify takes no --out or --openlineage")
    settings = load_settings()
    from pipelines.audit.bundle import (
        build_bundle,
        build_table_bundle,
        read_bundle,
        stamp_root,
        verify_bundle,
    )
    from pipelines.audit.chain import AuditError
    from pipelines.audit.collect import (
        TableSubject,
        parse_subject,
        parse_table_subject,
        resolve,
        resolve_table,
    )
    from pipelines.audit.store import check_bundle_folder, issue_bundle, write_bundle
    from pipelines.resources import AuditResource

    # A model's name never holds a "/" (MLflow refuses one): a subject with one is a table.
    of_table = subject is not None and "/" in subject
    if subject is not None:
        try:
            parse_table_subject(subject) if of_table else parse_subject(subject)
        except AuditError as exc:
            fail_usage(str(exc))
    try:
        if verify_path is not None:
            bundle = read_bundle(verify_path)  # a malformed file fails before MLflow loads
            audited = bundle.audited
            sources, instance = (
                _table_sources(settings)
                if isinstance(audited, TableSubject)
                else _audit_sources(settings)
            )
            differences = verify_bundle(
                bundle, sources, dagster_root_digests=_dagster_roots(instance, bundle)
            )
            if differences:
                click.echo(
                    f"FAILED: {len(differences)} link(s) of {audited}'s audit chain "
                    "no longer match:"
                )
                for difference in differences:
                    click.echo(f"  {difference}")
                sys.exit(1)
            click.echo(
                f"OK: all {len(bundle.nodes)} links of {audited}'s audit chain hold "
                f"(root {bundle.root_digest})"
            )
            return
        assert subject is not None
        if of_table:
            sources, _ = _table_sources(settings)
            if out is not None:
                check_bundle_folder(out)  # before the chain is collected: fail early
            table = resolve_table(sources.lake, subject)
            bundle = build_table_bundle(
                sources,
                table.zone,
                table.table,
                table.version,
                requested=subject,
                made_by={"command": "plumbline audit"},
            )
            version_dir = AuditResource(root=str(settings.audit_root)).table_version_dir(table)
        else:
            sources, _ = _audit_sources(settings)
            if out is not None:
                check_bundle_folder(out)  # before the chain is collected: fail early
            model, version = resolve(sources.client, subject)
            bundle = build_bundle(
                sources, model, version, requested=subject, made_by={"command": "plumbline audit"}
            )
            version_dir = AuditResource(root=str(settings.audit_root)).version_dir(model, version)
    except AuditError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    try:
        if out is not None:
            bundle_path, report_path = write_bundle(bundle, out)
        else:
            bundle_path, report_path = issue_bundle(bundle, version_dir)
    except AuditError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    audited = bundle.audited
    if not of_table:
        from assets.metadata import shown_path

        stamp_root(sources.client, bundle, shown_path(bundle_path.parent, settings.home))
    click.echo(f"Audit bundle of {audited}: {bundle_path}")
    click.echo(f"Report: {report_path}")
    if of_table:
        click.echo(
            f"Root digest: {bundle.root_digest} (no registry keeps a table's: give it to the "
            "reviewer with the bundle)"
        )
    else:
        click.echo(f"Root digest: {bundle.root_digest} (MLflow tag on {audited})")
    if openlineage_target:
        from pipelines.audit.openlineage import bundle_events, emit

        events = bundle_events(bundle.data)
        emit(events, openlineage_target)
        click.echo(f"OpenLineage: {len(events)} run events to {openlineage_target}")
    if bundle.gaps:
        click.echo(f"INCOMPLETE: {len(bundle.gaps)} link(s) could not be established:")
        for gap in bundle.gaps:
            click.echo(f"  {gap}")
        sys.exit(1)


@main.group()
def bench() -> None:
    """Benchmarks that need a command of their own (`make bench` runs them all, small)."""


def _add_commands() -> None:
    from pipelines.cli.gpu import gpu_command
    from pipelines.cli.init import init
    from pipelines.cli.k8s import k8s

    bench.add_command(gpu_command)
    main.add_command(k8s)
    main.add_command(init)


_add_commands()


def mlflow_ui_command(settings: Settings, host: str, port: int) -> list[str]:
    mlflow = Path(sysconfig.get_path("scripts")) / "mlflow"
    return [
        str(mlflow),
        "ui",
        "--backend-store-uri",
        settings.mlflow_uri,
        "--default-artifact-root",
        settings.mlflow_artifacts.as_uri(),
        "--host",
        host,
        "--port",
        str(port),
        # One person's local UI: one server process, not MLflow's default four (each of
        # which loads MLflow, seconds of CPU).
        "--workers",
        "1",
    ]


@main.command("mlflow-ui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", default=5000, show_default=True, help="Port to listen on.")
def mlflow_ui(host: str, port: int) -> None:
    """Open the MLflow UI over the tracking store and artifacts training writes to."""
    settings = load_settings()
    settings.mlflow_artifacts.mkdir(parents=True, exist_ok=True)
    from pipelines.registry.tracking_store import TrackingStoreError, ensure_tracking_store

    try:
        ensure_tracking_store(settings.mlflow_uri, settings.mlflow_artifacts.as_uri())
    except TrackingStoreError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    command = mlflow_ui_command(settings, host, port)
    click.echo(
        f"MLflow UI on http://{host}:{port} ({redact(settings.mlflow_uri)}); "
        "stop it with Ctrl-C, or `kill` its process id"
    )
    serve(command, "the MLflow UI")


if __name__ == "__main__":
    main()
