"""``models/audit_bundle``: the compliance audit trail of the model version its run
registered, from its MLflow version back to every legacy SQL line and lake file it came from,
sealed by one digest."""

from dataclasses import dataclass

import dagster as dg
from pydantic import Field

from assets.metadata import (
    mlflow_artifact_url,
    mlflow_run_url,
    mlflow_version_url,
    records_table,
)
from assets.registry import REGISTERED_MODEL_KEY
from pipelines.audit.bundle import REPORT_FILE, log_to_run, root_tag, stamp_root
from pipelines.audit.chain import AuditError
from pipelines.audit.collect import ModelSubject, resolve
from pipelines.audit.store import issue_or_reuse
from pipelines.instance import (
    AUDIT_BUNDLE_KEY,
    PinnedUpstream,
    audit_sources,
    run_materialization,
)
from pipelines.registry.versions import MODEL_NAME, with_retries
from pipelines.resources import AnsiStoreResource, AuditResource, LakeResource, MlflowResource
from pipelines.settings import shown_path
from pipelines.step_usage import StepUsage

COMPLETE_CHECK = "audit_bundle_complete"


class AuditConfig(dg.Config):
    """Which version to audit when the run does not register one."""

    model_version: int | None = Field(
        default=None,
        description=(
            f"The version of `{MODEL_NAME}` to audit, for a run that does not also "
            "materialize models/registered_model. A run that registers audits the version "
            "its own registered_model step registered; a run that neither registers nor "
            "names one fails."
        ),
    )


@dataclass(frozen=True)
class AuditedVersion:
    """The version a run audits, and which materialization named it."""

    version: str
    how: str
    dagster_run_id: str | None  # the run whose registered_model named it, when one did


def audited_version(
    context: dg.AssetExecutionContext, config: AuditConfig, client
) -> AuditedVersion:
    """The version this run audits: the one its registered_model step registered, else the
    configured one. Never "the latest": another run may have registered it."""
    own = run_materialization(context.instance, context.run, REGISTERED_MODEL_KEY)
    configured = None if config.model_version is None else str(config.model_version)
    if own is not None and own.asset_materialization is not None:
        pinned = PinnedUpstream(own)
        registered = str(pinned.metadata["version"].value)
        if configured is not None and configured != registered:
            raise dg.Failure(
                f"this run registered {MODEL_NAME} version {registered}, but "
                f"models__audit_bundle config model_version names {configured}: drop the "
                "config to audit this run's version, or audit the other one in a run that "
                "does not register"
            )
        return AuditedVersion(registered, pinned.how, pinned.run_id)
    if configured is not None:
        try:
            version = resolve(client, f"{MODEL_NAME}@{configured}")[1]
        except AuditError as exc:
            raise dg.Failure(f"models__audit_bundle config model_version: {exc}") from exc
        return AuditedVersion(version, "named by config model_version", None)
    raise dg.Failure(
        f"this run does not register {REGISTERED_MODEL_KEY.to_user_string()}, so it must name "
        "the version to audit: ops.models__audit_bundle.config.model_version: <version> "
        "(retrain_job, materialize_all_job and new_model_sensor's runs register and audit "
        f"in one run), or run `plumbline audit {MODEL_NAME}@<version or alias>`"
    )


@dg.asset(
    key=AUDIT_BUNDLE_KEY,
    deps=[REGISTERED_MODEL_KEY],
    group_name="models",
    kinds={"json", "html"},
    check_specs=[
        dg.AssetCheckSpec(
            COMPLETE_CHECK,
            asset=AUDIT_BUNDLE_KEY,
            description="Every link of the chain could be established: no gaps.",
        )
    ],
    description=(
        f"The audit bundle of the `{MODEL_NAME}` version that the same run's registered_model "
        "registered (else `config.model_version`; a run with neither fails), champion or not: bundle.json and an offline report.html tracing the model "
        "version, its alias history and MLflow run, the training set, every upstream "
        "warehouse table with its checks, the ANSI SQL with the translation's rules and "
        "warnings, the legacy SQL files (sha256, git commit) and the raw lake tables. Each "
        "link carries a digest over its content and its parents' digests; the root digest "
        "is kept on the MLflow model version and here. Every bundle is issued into a new "
        "folder `$PLUMBLINE_HOME/audit/<model>/v<version>/<time>-<digest>/`, never "
        "overwritten, and logged as artifacts of the training run so that the MLflow UI "
        "serves the report. `plumbline audit --verify <bundle.json>` recomputes it."
    ),
)
def audit_bundle(
    context: dg.AssetExecutionContext,
    config: AuditConfig,
    lake: LakeResource,
    ansi_store: AnsiStoreResource,
    mlflow_tracking: MlflowResource,
    audit: AuditResource,
):
    usage = StepUsage.start()
    client = mlflow_tracking.client()
    audited = audited_version(context, config, client)
    version = audited.version
    sources = audit_sources(
        lake.lake(), ansi_store.path(), client, context.instance, audit.pinned_files()
    )
    try:
        issued = issue_or_reuse(
            sources,
            ModelSubject(MODEL_NAME, version, f"{MODEL_NAME}@{version}"),
            audit.version_dir(MODEL_NAME, version),
            made_by={"dagster_run_id": context.run.run_id},
        )
    except AuditError as exc:
        raise dg.Failure(str(exc)) from None
    bundle, bundle_path, report_path = issued.bundle, issued.bundle_path, issued.report_path
    folder = bundle_path.parent
    shown_folder = shown_path(folder, lake.home)
    if issued.refused:
        context.log.warning(
            f"the newest audit bundle of {MODEL_NAME} v{version} was not reused: "
            + "; ".join(str(d) for d in issued.refused[:3])
            + f"; issued {shown_folder}"
        )
    model_version = with_retries(
        lambda: client.get_model_version(MODEL_NAME, version), f"read {MODEL_NAME} v{version}"
    )
    training_run = with_retries(
        lambda: client.get_run(model_version.run_id), f"read run {model_version.run_id}"
    )
    if not issued.reused:  # a reused bundle's root is on the version already: it was checked
        with_retries(
            lambda: stamp_root(client, bundle, shown_folder), f"tag {MODEL_NAME} v{version}"
        )
    artifact_path = with_retries(
        lambda: log_to_run(client, model_version.run_id, folder),
        f"log the bundle to run {model_version.run_id}",
    )
    ui_url, experiment_id = mlflow_tracking.ui_url, training_run.info.experiment_id
    context.log.info(
        f"audit report{' (reused)' if issued.reused else ''}: {shown_path(report_path, lake.home)}"
    )
    gaps = bundle.gaps
    gap_table = records_table(
        [{"gap": gap} for gap in gaps], [("gap", "string", "A link that could not be established")]
    )
    return dg.MaterializeResult(
        metadata={
            "model": MODEL_NAME,
            "version": dg.MetadataValue.int(int(version)),
            "version_source": dg.MetadataValue.text(audited.how),
            # An intact bundle of the same chain was handed on: nothing was issued.
            "reused_audit_bundle": issued.reused,
            "issued_by_run": dg.MetadataValue.text(
                bundle.data["made_by"].get("dagster_run_id")
                or bundle.data["made_by"].get("command", "unknown")
            ),
            "earlier_bundle_refused": records_table(
                [{"link": d.node, "why": d.message} for d in issued.refused],
                [
                    ("link", "string", "What no longer held in the newest earlier bundle"),
                    ("why", "string", "How it differs"),
                ],
            ),
            "registered_model_run_id": dg.MetadataValue.text(audited.dagster_run_id or "none"),
            "root_digest": dg.MetadataValue.text(bundle.root_digest),
            "mlflow_tag": dg.MetadataValue.text(root_tag(bundle)),
            "mlflow_model_version": mlflow_version_url(ui_url, MODEL_NAME, version),
            "mlflow_run": mlflow_run_url(ui_url, experiment_id, model_version.run_id),
            "folder": dg.MetadataValue.path(shown_folder),
            "report": dg.MetadataValue.path(shown_path(report_path, lake.home)),
            "report_url": mlflow_artifact_url(
                ui_url, experiment_id, model_version.run_id, f"{artifact_path}/{REPORT_FILE}"
            ),
            "bundle": dg.MetadataValue.path(shown_path(bundle_path, lake.home)),
            "links": dg.MetadataValue.int(len(bundle.nodes)),
            "gaps": gap_table,
            "verify": dg.MetadataValue.md(
                f"`plumbline audit --verify {shown_path(bundle_path, lake.home)}`"
            ),
            **usage.metadata(),
        },
        data_version=dg.DataVersion(bundle.root_digest),
        check_results=[
            dg.AssetCheckResult(
                check_name=COMPLETE_CHECK,
                passed=not gaps,
                severity=dg.AssetCheckSeverity.WARN,
                description="complete" if not gaps else f"{len(gaps)} gap(s): " + "; ".join(gaps),
                metadata={"gaps": gap_table},
            )
        ],
    )
