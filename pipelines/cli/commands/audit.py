"""``plumbline audit``: a model version's or a warehouse table's audit bundle, written or
verified against the current sources."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines.cli.environment import current_project, load_settings
from pipelines.cli.errors import fail_usage
from pipelines.settings import Settings


def _audit_sources(settings: Settings, *, registry: bool = True):
    """What ``plumbline audit`` reads: the lake, the ANSI store, the MLflow registry and (when
    this home has one) the Dagster instance. Without ``registry`` (a table's chain, which
    reads no MLflow) the sources have no MLflow client: a project without a model has no
    MLflow store, and MLflow is not even imported."""
    client = _registry_client(settings) if registry else None
    from pipelines.audit.pinned import PinnedFiles
    from pipelines.instance import audit_sources
    from pipelines.lake.store import Lake

    instance = None
    if (settings.dagster_home / "dagster.yaml").is_file():
        import dagster as dg

        instance = dg.DagsterInstance.from_config(str(settings.dagster_home))
    sources = audit_sources(
        Lake(settings.lake_root),
        settings.ansi_root,
        client,
        instance,
        PinnedFiles(settings.audit_root),
    )
    return sources, instance


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
    sources.portable_root = current_project().portable_root
    return sources, instance


def _dagster_roots(instance, bundle) -> list[str] | None:
    """Root digests the audit asset recorded in the Dagster run that made ``bundle``;
    None when the bundle was made by the command line (nothing to compare)."""
    run_id = bundle.data.get("made_by", {}).get("dagster_run_id")
    if not run_id:
        return None
    from pipelines.instance import AUDIT_BUNDLE_KEY, recorded_root_digests

    return recorded_root_digests(instance, AUDIT_BUNDLE_KEY, run_id)


@click.command()
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
        verification,
    )
    from pipelines.audit.chain import AuditError
    from pipelines.audit.collect import (
        TableSubject,
        parse_subject,
        parse_table_subject,
        resolve,
        resolve_table,
    )
    from pipelines.audit.store import (
        check_bundle_folder,
        issue_bundle,
        model_version_dir,
        pin_before_issue,
        table_version_dir,
        write_bundle,
    )

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
            found = verification(
                bundle, sources, dagster_root_digests=_dagster_roots(instance, bundle)
            )
            differences = found.differences
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
            for note in found.superseded:
                click.echo(f"  superseded since the bundle: {note}")
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
            version_dir = table_version_dir(settings.audit_root, table)
        else:
            sources, _ = _audit_sources(settings)
            if out is not None:
                check_bundle_folder(out)  # before the chain is collected: fail early
            model, version = resolve(sources.client, subject)
            bundle = build_bundle(
                sources, model, version, requested=subject, made_by={"command": "plumbline audit"}
            )
            version_dir = model_version_dir(settings.audit_root, model, version)
    except AuditError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    try:
        # Kept in the lake for as long as the bundle is: it is to verify against them.
        pin_before_issue(sources.lake, bundle, sources.pinned)
        if out is not None:
            bundle_path, report_path = write_bundle(bundle, out)
        else:
            bundle_path, report_path = issue_bundle(bundle, version_dir)
    except AuditError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    audited = bundle.audited
    if not of_table:
        from pipelines.settings import shown_path

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
