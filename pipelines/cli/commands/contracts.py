"""``plumbline contracts lint`` and ``plumbline contracts init``: data contracts checked
against ODCS, their SQL and what was published; drafted from published data."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines.cli.environment import current_project, relative_to_cwd
from pipelines.cli.errors import fail_usage, one_line
from pipelines.settings import Settings, SettingsError


@click.group()
def contracts() -> None:
    """Data contracts (ODCS v3 files in sql/contracts/)."""


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
    from pipelines.translation.store import CycleError, translate_sources
    from pipelines.warehouse.build import warehouse_tables
    from pipelines.warehouse.contract_lint import lint_contracts
    from sql.catalog import CatalogError, load_catalogs

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        fail_usage(str(exc))
    project = current_project()
    root = contracts_root or project.contracts_root
    if not root.is_dir():
        fail_usage(f"--contracts: no such folder {root}")
    try:
        # A legacy name may map to a table the project's legacy SQL builds (its translation
        # types it); translated in order, each file after the files whose tables it reads.
        catalog = load_catalogs(project.catalogs, project_tables=True)
        translated = translate_sources(
            project.legacy_root,
            catalog,
            variables=project.template_vars,
            budget=project.template_budget,
        )
    except (CatalogError, CycleError) as exc:
        fail_usage(str(exc))
    tables = warehouse_tables(
        translated,
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
        click.echo(relative_to_cwd(error.format()))
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
    root = contracts_root or current_project().contracts_root
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
        click.echo(
            f"{relative_to_cwd(str(target))}: drafted from {WAREHOUSE_ZONE}/{name}; review it"
        )
    click.echo(
        f"contracts init: {len(drafts)} drafted"
        + (f", {skipped} skipped (a contract exists; --force overwrites)" if skipped else ""),
        err=True,
    )
