"""``scores/batch_scores``: the champion model's late-delivery risk for the open line items."""

from pathlib import Path

import dagster as dg

from assets.metadata import (
    lineage_metadata,
    mlflow_version_url,
    records_table,
    rounded,
)
from assets.registry import REGISTERED_MODEL_KEY
from assets.training import model_feature_lineage
from assets.warehouse import OPEN_LINES, OPEN_LINES_KEY, contract_column_schema
from pipelines.contracts import compile_contract, load_contract, validate_parquet
from pipelines.contracts.describe import contract_result_rows
from pipelines.instance import DATA_VERSION_TAG
from pipelines.lake.store import Lake, TableVersion
from pipelines.registry.scoring import (
    SCORES_ZONE,
    load_scorer,
    score_table,
    scoring_code_version,
    why_rescore,
)
from pipelines.registry.versions import CHAMPION, MODEL_NAME, alias_version, with_retries
from pipelines.resources import ContractsResource, LakeResource, MlflowResource
from pipelines.settings import shown_path
from pipelines.step_usage import StepUsage
from pipelines.training.run import training_code_version
from pipelines.warehouse.build import CONTRACT_RESULT_COLUMNS, WAREHOUSE_ZONE
from pipelines.warehouse.lineage_view import LineageRow
from sql.paths import CONTRACTS_ROOT

BATCH_SCORES = "batch_scores"
BATCH_SCORES_KEY = dg.AssetKey([SCORES_ZONE, BATCH_SCORES])
CONTRACT_PATH = CONTRACTS_ROOT / "scores" / f"{BATCH_SCORES}.yaml"
CHECK = f"{BATCH_SCORES}_contract"
# Read (not compiled) with the code location; `plumbline contracts lint` compiles it in CI and
# the asset compiles it before it validates the scores.
CONTRACT = load_contract(CONTRACT_PATH)
CODE_VERSION = scoring_code_version(CONTRACT_PATH, training_code_version())
# What skipped scores set (pipelines/cli/run.py reads it), as a skipped warehouse table does.
SKIPPED_FLAG = "skipped_unchanged_inputs"


class ScoringConfig(dg.Config):
    """Launch-time knobs of the scoring."""

    # Score again even when the live scores are the champion's over the published open lines
    # (`plumbline run --force`).
    rebuild: bool = False


def _skipped_scores(
    context: dg.AssetExecutionContext,
    lake: Lake,
    champion: str,
    open_lines: TableVersion,
    usage: StepUsage,
) -> dg.MaterializeResult | None:
    """The live scores again, flagged as skipped, when the champion, the open lines and the
    code they were made with are those of now and Dagster's latest materialization is of
    them (:func:`~pipelines.registry.scoring.why_rescore`); else None."""
    live = lake.current(SCORES_ZONE, BATCH_SCORES)
    [record] = context.instance.get_asset_records([BATCH_SCORES_KEY]) or [None]
    event = record.asset_entry.last_materialization_record if record is not None else None
    provenance = context.get_asset_provenance(BATCH_SCORES_KEY) if event is not None else None
    if (
        event is None
        or provenance is None
        or provenance.code_version != CODE_VERSION
        or live is None
        or event.asset_event.tags.get(DATA_VERSION_TAG) != live.digest
        or why_rescore(
            live,
            champion=champion,
            open_lines_version=open_lines.path.name,
            intact=lake.verify,
        )
        is not None
    ):
        return None
    verdict = live.manifest["checks"][CHECK]
    return dg.MaterializeResult(
        metadata={
            **dict(event.asset_event.metadata),
            **usage.metadata(),
            SKIPPED_FLAG: dg.MetadataValue.bool(True),
            "skipped_because": dg.MetadataValue.text(
                f"the live scores {live.path.name} are {MODEL_NAME} version {champion}'s "
                f"(the champion) over open_lines {open_lines.path.name}, made by this code: "
                "not scored again, not re-validated"
            ),
        },
        data_version=dg.DataVersion(live.digest),
        check_results=[
            dg.AssetCheckResult(
                check_name=CHECK,
                passed=bool(verdict.get("passed")),
                severity=dg.AssetCheckSeverity.ERROR,
                description=(
                    f"Not re-run: the scores were skipped, the champion and the open lines "
                    f"unchanged since the live scores {live.path.name} were published; they "
                    "passed this check then."
                ),
                metadata={
                    "re_run": False,
                    "verdict_of_version": live.path.name,
                    "result_digest": f"sha256:{verdict.get('result_digest')}",
                },
            )
        ],
    )


def score_lineage(features: list[str], model_uri: str) -> list[LineageRow]:
    """Where each column of the scores comes from: the keys from warehouse/open_lines, the
    scores from the model applied to open_lines' feature columns, the model's name and
    version from the registry (no column)."""
    open_lines = OPEN_LINES_KEY.to_user_string()
    read = tuple(f"{open_lines}.{feature}" for feature in features)
    return [
        LineageRow("order_key", "order_key", open_lines, (f"{open_lines}.order_key",)),
        LineageRow("line_number", "line_number", open_lines, (f"{open_lines}.line_number",)),
        LineageRow("late_probability", f"sigmoid({model_uri}(features))", model_uri, read),
        LineageRow("predicted_late", "late_probability >= 0.5", model_uri, read),
        LineageRow("model_name", f"'{MODEL_NAME}'", model_uri),
        LineageRow("model_version", "the champion's version", model_uri),
    ]


@dg.asset(
    key=BATCH_SCORES_KEY,
    deps=[OPEN_LINES_KEY, REGISTERED_MODEL_KEY],
    group_name="models",
    kinds={"parquet", "pytorch"},
    check_specs=[
        dg.AssetCheckSpec(
            CHECK,
            asset=BATCH_SCORES_KEY,
            blocking=True,
            description=(
                f"Data contract {CONTRACT_PATH.name} ({CONTRACT.version}), validated on "
                "staging before publish."
            ),
        )
    ],
    # Unlike registration and the audit, scoring reads no same-run upstream: it names its
    # inputs itself (the champion alias, resolved once to a version that is then loaded by
    # number, and the published open_lines), so a run of it alone is correct. Eager
    # rescoring then follows new open lines or a registration made outside retrain_job.
    automation_condition=dg.AutomationCondition.eager(),
    code_version=CODE_VERSION,
    description=(
        f"Scores the line items in transit (`warehouse/{OPEN_LINES}`) with "
        f"`models:/{MODEL_NAME}@{CHAMPION}`; every row names the model version that scored it."
    ),
)
def batch_scores(
    context: dg.AssetExecutionContext,
    config: ScoringConfig,
    lake: LakeResource,
    mlflow_tracking: MlflowResource,
    contracts: ContractsResource,
):
    usage = StepUsage.start()
    client = mlflow_tracking.client()
    version = with_retries(
        lambda: alias_version(client, MODEL_NAME, CHAMPION), f"read {MODEL_NAME}@{CHAMPION}"
    )
    if version is None:
        raise dg.Failure(f"{MODEL_NAME} has no {CHAMPION} yet: nothing to score with")
    open_lines = lake.lake().current(WAREHOUSE_ZONE, OPEN_LINES)
    if open_lines is None:
        raise dg.Failure(f"{WAREHOUSE_ZONE}/{OPEN_LINES} has no published table yet")
    if not config.rebuild:
        # Before the model is loaded: a rerun that changes nothing imports no torch.
        skipped = _skipped_scores(context, lake.lake(), version, open_lines, usage)
        if skipped is not None:
            yield skipped
            return
    try:
        scorer = load_scorer(mlflow_tracking.tracking_uri, MODEL_NAME, version)
    except Exception as exc:  # whatever MLflow or torch raise: name the version and why
        raise dg.Failure(
            f"cannot load {MODEL_NAME} version {version} ({CHAMPION}): "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from exc
    compiled = compile_contract(load_contract(CONTRACT_PATH))
    lake_ = lake.lake()
    with lake_.stage(SCORES_ZONE, BATCH_SCORES) as staging:
        scored = score_table(scorer, open_lines.path, staging)
        result = validate_parquet(compiled, Path(staging), masker=contracts.masker())
        check = dg.AssetCheckResult(
            check_name=CHECK,
            passed=result.passed,
            severity=dg.AssetCheckSeverity.ERROR,
            metadata={
                "contract_version": result.contract_version,
                "result_digest": f"sha256:{result.digest()}",
                "contract_results": records_table(
                    contract_result_rows(compiled, result), CONTRACT_RESULT_COLUMNS
                ),
            },
        )
        if not result.passed:
            yield check
            raise dg.Failure(f"{SCORES_ZONE}/{BATCH_SCORES} breaks its contract; not published")
        # The same scores as the live ones (same model, same lines) keep their version.
        published = lake_.publish_version(
            SCORES_ZONE,
            BATCH_SCORES,
            staging,
            {
                "model": MODEL_NAME,
                "model_version": int(version),
                "open_lines_version": open_lines.path.name,
                "row_count": scored.rows,
                "checks": {CHECK: {"passed": True, "result_digest": result.digest()}},
            },
            same=lake_.same_files,
        ).version
    features = [*scorer.preprocessing.vocabularies, *scorer.preprocessing.means]
    model_version = with_retries(
        lambda: client.get_model_version(MODEL_NAME, version), f"read {MODEL_NAME} v{version}"
    )
    training_run = with_retries(
        lambda: client.get_run(model_version.run_id), f"read run {model_version.run_id}"
    )
    rows = score_lineage(features, f"models:/{MODEL_NAME}/{version}")
    training_tags = training_run.data.tags
    yield dg.MaterializeResult(
        metadata={
            "dagster/row_count": dg.MetadataValue.int(scored.rows),
            "dagster/column_schema": contract_column_schema(compiled.contract),
            **lineage_metadata(rows),
            **model_feature_lineage(
                context.instance,
                features,
                training_tags.get("training_set.digest", "unknown"),
                training_tags.get("training_set.version", "unknown"),
            ),
            "model": MODEL_NAME,
            "model_version": dg.MetadataValue.int(int(version)),
            "model_uri": dg.MetadataValue.text(f"models:/{MODEL_NAME}/{version}"),
            "model_alias": dg.MetadataValue.text(CHAMPION),
            "mlflow_model_version": mlflow_version_url(mlflow_tracking.ui_url, MODEL_NAME, version),
            "open_lines_version": dg.MetadataValue.text(open_lines.path.name),
            "mean_late_probability": rounded(scored.mean_probability),
            "predicted_late_share": rounded(scored.predicted_late_share),
            "path": dg.MetadataValue.path(
                shown_path(lake_.table_path(SCORES_ZONE, BATCH_SCORES), lake.home)
            ),
            **usage.metadata(),
        },
        data_version=dg.DataVersion(published.digest),
        check_results=[check],
    )
