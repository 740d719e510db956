"""``models/audit_bundle``: the compliance audit trail of the champion model, from its MLflow
version back to every legacy SQL line and lake file it came from, sealed by one digest."""

import dagster as dg

from assets.registry import REGISTERED_MODEL_KEY
from pipelines.audit.bundle import build_bundle, root_tag, stamp_root
from pipelines.audit.collect import Sources
from pipelines.audit.store import write_bundle
from pipelines.registry.versions import (
    ALIAS_HISTORY,
    CHAMPION,
    MODEL_NAME,
    AliasHistory,
    alias_version,
    with_retries,
)
from pipelines.resources import AnsiStoreResource, AuditResource, LakeResource, MlflowResource

AUDIT_BUNDLE_KEY = dg.AssetKey(["models", "audit_bundle"])
COMPLETE_CHECK = "audit_bundle_complete"


def audit_sources(lake, ansi_root, client, instance) -> Sources:
    return Sources(
        lake=lake,
        ansi_root=ansi_root,
        client=client,
        alias_history=AliasHistory(lake.root.joinpath(*ALIAS_HISTORY)),
        instance=instance,
    )


@dg.asset(
    key=AUDIT_BUNDLE_KEY,
    deps=[REGISTERED_MODEL_KEY],
    group_name="models",
    kinds={"json", "html"},
    automation_condition=dg.AutomationCondition.eager(),
    check_specs=[
        dg.AssetCheckSpec(
            COMPLETE_CHECK,
            asset=AUDIT_BUNDLE_KEY,
            description="Every link of the chain could be established: no gaps.",
        )
    ],
    description=(
        f"The audit bundle of `{MODEL_NAME}@{CHAMPION}` (the newest version while there is no "
        "champion): bundle.json and an offline report.html tracing the model version, its "
        "alias history and MLflow run, the training set, every upstream warehouse table with "
        "its checks, the ANSI SQL with the translation's rules and warnings, the legacy SQL "
        "files (sha256, git commit) and the raw lake tables. Each link carries a digest over "
        "its content and its parents' digests; the root digest is kept on the MLflow model "
        "version and here. `plumbline audit --verify <bundle.json>` recomputes it."
    ),
)
def audit_bundle(
    context: dg.AssetExecutionContext,
    lake: LakeResource,
    ansi_store: AnsiStoreResource,
    mlflow_tracking: MlflowResource,
    audit: AuditResource,
):
    client = mlflow_tracking.client()
    version = alias_version(client, MODEL_NAME, CHAMPION)
    subject = f"{MODEL_NAME}@{CHAMPION}"
    if version is None:
        versions = client.search_model_versions(f"name = '{MODEL_NAME}'")
        if not versions:
            raise dg.Failure(f"{MODEL_NAME} has no registered version to audit yet")
        version = str(max(int(v.version) for v in versions))
        subject = f"{MODEL_NAME}@{version}"
        context.log.warning(f"{MODEL_NAME} has no {CHAMPION} yet: auditing version {version}")
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
