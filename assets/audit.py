"""``models/audit_bundle``: the compliance audit trail of the model version its run
registered, from its MLflow version back to every legacy SQL line and lake file it came from,
sealed by one digest."""

import dagster as dg
from pydantic import Field

from assets.registry import REGISTERED_MODEL_KEY
from pipelines.audit.bundle import build_bundle, root_tag, stamp_root
from pipelines.audit.chain import AuditError
from pipelines.audit.collect import resolve
from pipelines.audit.store import write_bundle
from pipelines.instance import audit_sources, run_materialization
from pipelines.registry.versions import MODEL_NAME, with_retries
from pipelines.resources import AnsiStoreResource, AuditResource, LakeResource, MlflowResource

AUDIT_BUNDLE_KEY = dg.AssetKey(["models", "audit_bundle"])
COMPLETE_CHECK = "audit_bundle_complete"


class AuditConfig(dg.Config):
    """Which version to audit when the run does not register one."""

    model_version: int | None = Field(
        default=None,
        description=(
            f"The version of `{MODEL_NAME}` to audit, for a run that does not also "
            "materialize models/registered_model. Without it the run must register, and it "
            "audits the version that its own registered_model step registered."
        ),
    )


def audited_version(context: dg.AssetExecutionContext, config: AuditConfig, client) -> str:
    """The version this run audits: the one its registered_model step registered, or the
    configured one."""
    event = run_materialization(context.instance, context.run, REGISTERED_MODEL_KEY)
    configured = None if config.model_version is None else str(config.model_version)
    if event is not None and event.asset_materialization is not None:
        registered = str(event.asset_materialization.metadata["version"].value)
        if configured is not None and configured != registered:
            raise dg.Failure(
                f"this run registered {MODEL_NAME} version {registered}, but "
                f"models__audit_bundle config model_version names {configured}: drop the "
                "config to audit this run's version, or audit the other one in a run that "
                "does not register"
            )
        return registered
    if configured is None:
        raise dg.Failure(
            f"run {context.run.run_id} did not materialize "
            f"{REGISTERED_MODEL_KEY.to_user_string()}, so it registered no version to audit. "
            "Materialize models/registered_model and models/audit_bundle in one run "
            "(retrain_job and materialize_all_job do), name the version in the run config "
            "(ops.models__audit_bundle.config.model_version: <version>), or run "
            f"`plumbline audit {MODEL_NAME}@<version or alias>`"
        )
    try:
        return resolve(client, f"{MODEL_NAME}@{configured}")[1]
    except AuditError as exc:
        raise dg.Failure(f"models__audit_bundle config model_version: {exc}") from exc


@dg.asset(
    key=AUDIT_BUNDLE_KEY,
    deps=[REGISTERED_MODEL_KEY],
    group_name="models",
    kinds={"json", "html"},
    # No automation condition: the bundle is of the version its own run registered, so a run
    # of this asset alone (what an eager condition launches) has no version to audit.
    # retrain_job and materialize_all_job register and audit in one run.
    check_specs=[
        dg.AssetCheckSpec(
            COMPLETE_CHECK,
            asset=AUDIT_BUNDLE_KEY,
            description="Every link of the chain could be established: no gaps.",
        )
    ],
    description=(
        f"The audit bundle of the `{MODEL_NAME}` version that the same run's registered_model "
        "registered (or `config.model_version`), champion or not: bundle.json and an offline "
        "report.html tracing the model version, its alias history and MLflow run, the "
        "training set, every upstream warehouse table with its checks, the ANSI SQL with the "
        "translation's rules and warnings, the legacy SQL files (sha256, git commit) and the "
        "raw lake tables. Each link carries a digest over its content and its parents' "
        "digests; the root digest is kept on the MLflow model version and here. `plumbline audit --verify <bundle.json>` recomputes it."
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
    client = mlflow_tracking.client()
    version = audited_version(context, config, client)
    subject = f"{MODEL_NAME}@{version}"
    sources = audit_sources(lake.lake(), ansi_store.path(), client, context.instance)
    bundle = build_bundle(
        sources,
        MODEL_NAME,
        version,
        requested=subject,
        made_by={"dagster_run_id": context.run.run_id},
    )
    bundle_path, report_path = write_bundle(bundle, audit.out_dir(MODEL_NAME, version))
    with_retries(lambda: stamp_root(client, bundle), f"tag {MODEL_NAME} v{version}")
    context.log.info(f"audit report: {report_path}")
    gaps = bundle.gaps
    return dg.MaterializeResult(
        metadata={
            "model": MODEL_NAME,
            "version": dg.MetadataValue.int(int(version)),
            "root_digest": dg.MetadataValue.text(bundle.root_digest),
            "mlflow_tag": dg.MetadataValue.text(root_tag(bundle)),
            "report": dg.MetadataValue.path(str(report_path)),
            "report_url": dg.MetadataValue.url(report_path.absolute().as_uri()),
            "bundle": dg.MetadataValue.path(str(bundle_path)),
            "links": dg.MetadataValue.int(len(bundle.nodes)),
            "gaps": dg.MetadataValue.json(gaps),
            "verify": dg.MetadataValue.md(f"`plumbline audit --verify {bundle_path}`"),
        },
        data_version=dg.DataVersion(bundle.root_digest),
        check_results=[
            dg.AssetCheckResult(
                check_name=COMPLETE_CHECK,
                passed=not gaps,
                severity=dg.AssetCheckSeverity.WARN,
                description="complete" if not gaps else f"{len(gaps)} gap(s): " + "; ".join(gaps),
                metadata={"gaps": dg.MetadataValue.json(gaps)},
            )
        ],
    )
