"""How asset and check metadata reads in the Dagster UI: numbers rounded to what matters,
paths relative to ``$PLUMBLINE_HOME`` or the repository, rows as tables, and links into
MLflow. Every asset module turns its results into metadata through these."""

from __future__ import annotations

import base64
import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg

from models.curve import curve_thumbnail_png
from pipelines.registry.ui_links import artifact_page, model_version_page, run_page
from pipelines.warehouse.lineage_view import LineageRow, lineage_records

# Significant digits a float keeps in metadata: enough for a rate, a loss or a threshold.
SIGNIFICANT_DIGITS = 4


def rounded(value: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``value`` to ``digits`` significant digits, keeping every digit before the point
    (0, inf and nan as they are)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, max(0, digits - 1 - math.floor(math.log10(abs(value)))))


# The lineage view's columns. A table, not Markdown: the open-source UI shows a table inline
# on the asset's Overview and in its events, while Markdown over 1,000 characters (a
# table of a dozen columns) hides behind "[Show Markdown]", and on a check always does.
LINEAGE_COLUMNS = [
    ("column", "string", "The output column"),
    ("expression", "string", "The SQL expression that computes it (cut short; see the file)"),
    ("defined at", "string", "Where that expression is written: file and line(s)"),
    ("reads", "string", "The upstream columns it reads"),
]


def lineage_table(rows: Sequence[LineageRow]) -> dg.TableMetadataValue:
    """The lineage view: one row per output column."""
    return records_table(lineage_records(rows), LINEAGE_COLUMNS)


def column_lineage(rows: Sequence[LineageRow]) -> dg.TableColumnLineage:
    """``dagster/column_lineage`` of ``rows``: each column's upstream (asset, column) pairs."""
    return dg.TableColumnLineage(
        deps_by_column={
            row.column: [
                dg.TableColumnDep(
                    asset_key=dg.AssetKey(source.rsplit(".", 1)[0].split("/")),
                    column_name=source.rsplit(".", 1)[1],
                )
                for source in row.sources
            ]
            for row in rows
        }
    )


def lineage_metadata(rows: Sequence[LineageRow]) -> dict[str, dg.MetadataValue]:
    """Column lineage twice: ``dagster/column_lineage`` for tools that read it (Dagster+
    draws it; the OSS UI does not), and ``lineage``, the table a person reads."""
    return {
        "dagster/column_lineage": dg.MetadataValue.column_lineage(column_lineage(rows)),
        "lineage": lineage_table(rows),
    }


# The key the UI reads an asset's "Source code" links from (dagster.CodeReferencesMetadataValue).
CODE_REFERENCES = "dagster/code_references"


def code_references(*files: Path) -> dict[str, dg.CodeReferencesMetadataValue]:
    """Definition metadata whose "Source code" entry on the asset's page opens ``files`` in
    the editor (each at its first line), in this order."""
    # Both classes are beta in Dagster 1.13 and warn at every construction, once per asset
    # at every load; the metadata is the one the UI's "Source code" row reads.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        return {
            CODE_REFERENCES: dg.CodeReferencesMetadataValue(
                code_references=[
                    dg.LocalFileCodeReference(file_path=str(Path(f).absolute()), line_number=1)
                    for f in files
                ]
            )
        }


def with_python_source(assets: Sequence[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """``assets`` whose "Source code" opens the Python function that computes them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)  # beta in Dagster 1.13, as above
        return list(dg.with_source_code_references(assets))  # type: ignore[arg-type]


def mlflow_run_url(ui_url: str, experiment_id: str, run_id: str) -> dg.UrlMetadataValue:
    """The MLflow UI page of a run, in its model-training view."""
    return dg.MetadataValue.url(run_page(ui_url, experiment_id, run_id))


def mlflow_version_url(ui_url: str, model: str, version: str | int) -> dg.UrlMetadataValue:
    """The MLflow UI page of a registered model version, in its model-training view."""
    return dg.MetadataValue.url(model_version_page(ui_url, model, version))


def mlflow_artifact_url(
    ui_url: str, experiment_id: str, run_id: str, artifact_path: str
) -> dg.UrlMetadataValue:
    """The MLflow UI page that shows one artifact of a run."""
    return dg.MetadataValue.url(artifact_page(ui_url, experiment_id, run_id, artifact_path))


# Dagster's UI shows Markdown metadata in place only when it is shorter than this (its
# MetadataEntry component: `mdStr.length < 1000`); longer, it hides behind "[Show Markdown]".
# Its sanitizer lets an image's src be a data: URI, so a small picture can travel inline.
INLINE_MARKDOWN = 1000
# Thumbnail sizes tried in turn until the Markdown fits (more epochs, more bytes).
CURVE_THUMBNAILS = ((300, 90), (240, 72), (180, 54))


def training_curve_markdown(history: Sequence[Mapping[str, Any]]) -> dg.MarkdownMetadataValue:
    """The training curve shown in place on the asset's page: a thumbnail as a data: URI
    and a caption saying what its lines are (the full chart is the MLflow artifact)."""
    first, last = history[0]["val_auc"], history[-1]["val_auc"]
    caption = (
        "Loss: train (blue), validation (orange). Validation AUC (green): "
        f"{first:.3f} to {last:.3f} over {len(history)} epoch{'' if len(history) == 1 else 's'}."
    )
    for width, height in CURVE_THUMBNAILS:
        png = base64.b64encode(curve_thumbnail_png(history, width, height)).decode()
        text = f"![training curve](data:image/png;base64,{png})\n\n{caption}"
        if len(text) < INLINE_MARKDOWN:
            return dg.MetadataValue.md(text)
    return dg.MetadataValue.md(caption)


def _cell(value: object) -> object:
    if isinstance(value, float):
        return rounded(value)
    if value is None:
        return ""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, Sequence | Mapping):
        import json

        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def records_table(
    rows: Sequence[Mapping[str, object]],
    columns: Sequence[tuple[str, str, str]],
) -> dg.TableMetadataValue:
    """``rows`` as a table with ``columns`` = (name, type, description); a cell a row lacks
    is empty, floats are rounded, anything else that is not a scalar is shown as JSON text."""
    schema = dg.TableSchema(
        columns=[dg.TableColumn(name, kind, description=text) for name, kind, text in columns]
    )
    records = [
        dg.TableRecord({name: _cell(row.get(name)) for name, _, _ in columns}) for row in rows
    ]
    return dg.MetadataValue.table(records=records, schema=schema)
