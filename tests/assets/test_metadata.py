import math

import dagster as dg
import pytest

from assets.metadata import (
    mlflow_artifact_url,
    mlflow_run_url,
    mlflow_version_url,
    records_table,
    rounded,
    training_curve_markdown,
)
from pipelines.registry.ui_links import experiment_page
from pipelines.settings import shown_path
from sql.paths import REPOSITORY_ROOT


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.123456789, 0.1235),
        (0.7712345678901234, 0.7712),
        (3.14159e-9, 3.142e-9),
        (12345.678, 12346.0),
        (-0.000123456, -0.0001235),
        (0.0, 0.0),
    ],
)
def test_floats_keep_four_significant_digits_and_every_integer_digit(value, shown):
    assert rounded(value) == shown


def test_infinities_and_nan_stay_as_they_are():
    assert rounded(math.inf) == math.inf
    assert math.isnan(rounded(math.nan))


def test_paths_are_shown_under_the_home_or_the_repository(tmp_path):
    home = tmp_path / "home"
    assert shown_path(home / "lake" / "raw" / "orders", home) == "$PLUMBLINE_HOME/lake/raw/orders"
    assert shown_path(REPOSITORY_ROOT / "sql" / "catalog.yaml", home) == "sql/catalog.yaml"
    assert shown_path(tmp_path / "elsewhere.sql", home) == str(tmp_path / "elsewhere.sql")
    assert shown_path("s3://bucket/lake/raw", home) == "s3://bucket/lake/raw"
    # A sibling whose name starts like the home is not under it.
    assert shown_path(tmp_path / "home2" / "x", home) == str(tmp_path / "home2" / "x")


def test_mlflow_links_open_the_model_training_view_of_the_ui_pages():
    """MLflow 3 opens a page on its GenAI view unless the address says otherwise
    (pipelines.registry.ui_links)."""
    ui = "http://127.0.0.1:5000"
    view = "?workflowType=machine_learning"
    assert (
        mlflow_run_url(ui, "1", "abc").url
        == f"http://127.0.0.1:5000/#/experiments/1/runs/abc{view}"
    )
    assert (
        mlflow_version_url(ui, "delivery delay", 3).url
        == f"http://127.0.0.1:5000/#/models/delivery%20delay/versions/3{view}"
    )
    assert mlflow_artifact_url(ui, "1", "abc", "audit/x y/report.html").url.endswith(
        f"/runs/abc/artifacts/audit/x%20y/report.html{view}"
    )
    assert experiment_page(ui + "/", "1") == f"{ui}/#/experiments/1/runs{view}"
    assert experiment_page(ui) == f"{ui}/#/experiments{view}"


def test_rows_become_a_table_with_rounded_cells_and_empty_gaps():
    table = records_table(
        [{"column": "a", "observed": 0.333333333, "passed": True}, {"column": "b", "extra": 1}],
        [("column", "string", "Column"), ("observed", "float", ""), ("passed", "bool", "")],
    )
    assert isinstance(table, dg.TableMetadataValue)
    assert [c.name for c in table.schema.columns] == ["column", "observed", "passed"]
    assert [r.data for r in table.records] == [
        {"column": "a", "observed": 0.3333, "passed": True},
        {"column": "b", "observed": "", "passed": ""},
    ]


@pytest.mark.parametrize("epochs", [1, 5, 30, 200])
def test_the_training_curve_is_an_image_small_enough_to_show_in_place(epochs):
    """Dagster's UI shows Markdown in place under 1,000 characters; the thumbnail is a PNG
    that decodes, and the caption says what its lines are."""
    import base64
    import io
    import re

    from PIL import Image

    history = [
        {
            "epoch": epoch,
            "train_loss": 0.5 * math.exp(-epoch / 3) + 0.1 + 0.01 * (epoch % 3),
            "val_log_loss": 0.45 * math.exp(-epoch / 4) + 0.12,
            "val_auc": 0.9 + 0.08 * (1 - math.exp(-epoch / 2)),
        }
        for epoch in range(epochs)
    ]
    text = training_curve_markdown(history).value
    assert len(text) < 1000, len(text)
    found = re.match(r"!\[training curve\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", text)
    assert found, text[:80]
    image = Image.open(io.BytesIO(base64.b64decode(found.group(1))))
    assert image.format == "PNG" and image.width >= 180 and image.height >= 54
    assert f"over {epochs} epoch" in text and "Validation AUC (green)" in text
