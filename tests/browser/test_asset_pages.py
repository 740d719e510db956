"""The Dagster UI after `plumbline run`, as a data engineer reads it in a browser.

Every assertion reads text Chromium rendered (``inner_text``, locators), not GraphQL: what a
person sees without clicking "Show JSON". Expected texts come from the contract
(sql/contracts/delay_features.yaml), the legacy SQL folder and the home's MLflow store.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipelines.contracts import Contract, load_contract
from pipelines.registry.ui_links import model_version_page, run_page
from pipelines.registry.versions import MODEL_NAME
from pipelines.resources import MlflowResource
from sql.paths import CONTRACTS_ROOT, LEGACY_ROOT, REPOSITORY_ROOT

pytestmark = pytest.mark.browser

TABLE = "delay_features"
CONTRACT_CHECK = f"{TABLE}_contract"
OVERVIEW = f"/assets/warehouse/{TABLE}"
CHECKS = f"{OVERVIEW}?view=checks"
MODEL = "/assets/models/delay_model"
REGISTERED = "/assets/models/registered_model"
# Side-bar entries of MLflow 3's GenAI view that its model-training view does not have.
GENAI_ONLY = ("Observability", "AI Gateway", "Playground", "Evaluation runs")
RESULT_COLUMNS = ("column", "rule", "threshold", "observed", "passed")
PASSED = {"true", "yes", "pass", "passed", "✓", "✔"}
WINDOW = {"width": 1600, "height": 1000}


@pytest.fixture(scope="module")
def contract() -> Contract:
    return load_contract(CONTRACTS_ROOT / f"{TABLE}.yaml")


def words(text: str) -> str:
    """Text with its whitespace collapsed, as a sentence reads across wrapped lines."""
    return " ".join(text.split())


def screenshot(page, path: Path) -> None:
    """A screenshot of the whole page. Dagster's UI scrolls inside its own panes, so a
    full-page screenshot alone stops at the window: the window is first made as tall as the
    tallest pane's content."""
    height = page.evaluate(
        "Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))"
    )
    page.set_viewport_size(
        {"width": page.viewport_size["width"], "height": min(height + 200, 8000)}
    )
    # Dialogs fade in: wait for every running transition to end. A transition the page
    # cancels (it re-rendered) rejects its `finished` with an AbortError: it has ended too.
    page.evaluate("Promise.allSettled(document.getAnimations().map(a => a.finished))")
    page.screenshot(path=str(path), full_page=True)


def open_page(page, ui, path: str, ready: str, screenshots: Path, name: str) -> None:
    """Go to ``path``, wait until ``ready`` is rendered and the page stops fetching, and save
    a screenshot of the whole page as ``name``.png."""
    page.set_viewport_size(WINDOW)
    page.goto(ui.url + path)
    page.get_by_text(ready, exact=True).first.wait_for(state="visible")
    page.wait_for_load_state("networkidle")
    screenshot(page, screenshots / f"{name}.png")


def table_rows(table) -> list[dict[str, str]]:
    """A rendered HTML table as one dict per body row, keyed by the header cells' text."""
    header, *body = table.evaluate(
        """t => [...t.rows].map(r => [...r.cells].map(c => c.innerText.trim()))"""
    )
    return [dict(zip(header, row, strict=False)) for row in body]


def table_with_headers(page, *headers: str):
    """The table whose own header row (Dagster writes ``td`` cells there as well as ``th``)
    has every one of ``headers``; not a table that holds it in a cell."""
    has = " and ".join(f"thead/tr/*[normalize-space()='{header}']" for header in headers)
    return page.locator(f"xpath=//table[{has}]")


def metadata_row(page, label: str):
    """The row of a metadata table whose first cell is ``label``."""
    first_cell = page.locator("td:first-child", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    return page.locator("tr", has=first_cell).first


def number_pattern(value: float | int) -> str:
    """A bound as a table cell may print it (1, 1.0, 0.1), not inside a longer number."""
    return rf"(?<![\d.]){re.escape(f'{value:g}')}(\.0+)?(?![\d.])"


def test_overview_shows_the_contract_column_descriptions(page, dagster_ui, screenshots, contract):
    """The Columns section of the Overview (`dagster/column_schema`) shows, without a click,
    each column's description from the contract."""
    open_page(page, dagster_ui, OVERVIEW, "Column name", screenshots, f"{TABLE}-overview")
    # A name cell may carry constraint tags after the name (which has no spaces).
    columns = {
        row["Column name"].split()[0]: row
        for row in table_rows(table_with_headers(page, "Column name"))
    }
    assert set(columns) == {column.name for column in contract.columns}
    undescribed = [column.name for column in contract.columns if not column.description]
    assert not undescribed, f"{contract.path.name} has no description for {undescribed}"
    for column in contract.columns:
        # Rendered as Markdown: code spans lose their backticks.
        expected = words(column.description.replace("`", ""))
        assert expected in words(columns[column.name]["Description"]), column.name


def test_overview_shows_where_each_column_came_from_in_the_legacy_sql(
    page, dagster_ui, screenshots, contract
):
    """The lineage view (materialization metadata `lineage`, a table, so shown inline
    without a click) names the legacy file and line of each column's expression."""
    [legacy] = LEGACY_ROOT.glob(f"*/{TABLE}.sql")
    source = legacy.relative_to(REPOSITORY_ROOT).as_posix()
    located = re.compile(rf"{re.escape(source)}:(\d+)")
    open_page(page, dagster_ui, OVERVIEW, "Column name", screenshots, f"{TABLE}-overview")

    # "Source code" (the Definition section) opens the legacy file, in the UI's default
    # editor link, and nothing else (not the component's defs.yaml).
    editor_links = page.locator("a[href^='vscode://file/']").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    assert editor_links == [f"vscode://file/{legacy}:1"], editor_links
    # The version readers get, and since when (shown beside any later failed attempt).
    for label in ("published_version", "published_at"):
        assert metadata_row(page, label).count() == 1, f"no `{label}` in the Overview's metadata"

    row = metadata_row(page, "lineage")
    assert row.count() == 1, "no `lineage` entry in the Overview's metadata"
    view = row
    # Rendered in the page, not behind a "[Show ...]" button.
    assert "[Show" not in row.inner_text(), row.inner_text()
    # The lineage table's rows, as rendered: column, expression, where, what it reads.
    rows = view.locator("tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )
    sql_lines = legacy.read_text().splitlines()
    located_at: dict[str, int] = {}
    for cells in rows:
        found = located.search(" ".join(cells[1:]))
        if cells and found:
            located_at[cells[0]] = int(found.group(1))
    missing = [column.name for column in contract.columns if column.name not in located_at]
    assert not missing, f"no {source}:<line> shown for {missing}:\n{view.inner_text()}"
    for column, line in located_at.items():
        # Each column of this file is one `expression AS COLUMN` line.
        assert 1 <= line <= len(sql_lines), (column, line)
        assert column.upper() in sql_lines[line - 1].upper(), (column, line, sql_lines[line - 1])


def test_checks_view_shows_each_contract_rule_and_whether_it_held(
    page, dagster_ui, screenshots, contract
):
    """The contract check's `contract_results` table (always rendered inline) has a row per
    rule: the column, the rule and its threshold from the contract, what was observed, and
    whether it passed."""
    open_page(page, dagster_ui, CHECKS, CONTRACT_CHECK, screenshots, f"{TABLE}-checks")
    open_page(
        page,
        dagster_ui,
        f"{CHECKS}&checkDetail={CONTRACT_CHECK}",
        "Latest execution",
        screenshots,
        CONTRACT_CHECK,
    )
    body = words(page.inner_text("body"))
    assert f"Data contract {TABLE}.yaml ({contract.version})" in body

    table = table_with_headers(page, *RESULT_COLUMNS)
    assert table.count() == 1, "no contract_results table (column/rule/threshold/...) shown"
    rows = table_rows(table)
    by_column: dict[str, list[str]] = {}
    for row in rows:
        by_column.setdefault(row["column"], []).append(f"{row['rule']} {row['threshold']}")
        assert row["passed"].lower() in PASSED, row
    for column in contract.columns:
        rules = " | ".join(by_column.get(column.name, []))
        assert rules, f"no rule shown for {column.name}"
        if column.required:
            assert re.search(r"null|required", rules, re.IGNORECASE), (column.name, rules)
        for value in column.allowed_values or ():
            assert str(value) in rules, (column.name, value, rules)
        for bound in (column.minimum, column.maximum):
            if isinstance(bound, int | float):
                assert re.search(number_pattern(bound), rules), (column.name, bound, rules)


def mlflow_tracking(settings) -> MlflowResource:
    return MlflowResource(
        tracking_uri=settings.mlflow_uri,
        artifact_root=str(settings.mlflow_artifacts),
        ui_url=settings.mlflow_ui_url,
    )


def link_of(page, label: str) -> str:
    """Where the link in the metadata row ``label`` points."""
    link = metadata_row(page, label).get_by_role("link").first
    assert link.is_visible(), f"no link in the {label} row"
    return link.get_attribute("href")


def open_mlflow(page, url: str, ready: str, screenshots: Path, name: str) -> str:
    """Open ``url`` in the MLflow UI, wait for ``ready`` and return the page's text. MLflow
    polls, so the page never goes network-idle: the text is what says it has loaded."""
    page.set_viewport_size(WINDOW)
    page.goto(url)
    page.get_by_text(ready, exact=True).first.wait_for(state="visible")
    screenshot(page, screenshots / f"{name}.png")
    return words(page.inner_text("body"))


def assert_model_training_view(text: str) -> None:
    """MLflow 3's model-training view: its side bar has the model registry and none of the
    GenAI view's entries."""
    assert "Model registry" in text, text[:400]
    shown = [entry for entry in GENAI_ONLY if entry in text]
    assert not shown, f"GenAI pages {shown}: {text[:400]}"


def test_model_pages_link_to_the_model_training_view_of_mlflow(
    page, dagster_ui, mlflow_ui, screenshots
):
    """delay_model's `mlflow_run` and registered_model's `mlflow_model_version` open the
    training run and the model version in MLflow's model-training view, not its GenAI pages
    (Traces, an assistant): the pages a data scientist looks for."""
    settings = dagster_ui.home.settings
    tracking = mlflow_tracking(settings)
    client = tracking.client()
    experiment = tracking.experiment_id()
    runs = {run.info.run_id: run for run in client.search_runs([experiment])}
    assert runs, "the prepared home's MLflow store has no training run"

    open_page(page, dagster_ui, MODEL, "mlflow_run", screenshots, "delay_model")
    href = link_of(page, "mlflow_run")
    [run_id] = [run_id for run_id in runs if href == run_page(mlflow_ui.url, experiment, run_id)]
    run_name = runs[run_id].info.run_name
    text = open_mlflow(page, href, run_name, screenshots, "mlflow-run")
    assert_model_training_view(text)
    assert "Model metrics" in text and "val_auc" in text

    open_page(page, dagster_ui, REGISTERED, "mlflow_model_version", screenshots, "registered_model")
    href = link_of(page, "mlflow_model_version")
    [version] = [
        v.version
        for v in client.search_model_versions(f"name = '{MODEL_NAME}'")
        if href == model_version_page(mlflow_ui.url, MODEL_NAME, v.version)
    ]
    text = open_mlflow(page, href, f"Version {version}", screenshots, "mlflow-model-version")
    assert_model_training_view(text)
    # The version's tags: metrics to four significant digits, one row per upstream.
    auc = re.search(r"val_auc (\S+)", text)
    assert auc and re.fullmatch(r"0\.\d{1,4}", auc.group(1)), text
    assert "upstream.warehouse/training_set" in text


def test_model_page_shows_the_training_curve_and_links_the_chart(
    page, dagster_ui, mlflow_ui, screenshots
):
    """The training curve is a picture on delay_model's page, not a path, and
    `training_curve_chart` opens the full chart among the MLflow run's artifacts."""
    open_page(page, dagster_ui, MODEL, "training_curve", screenshots, "delay_model")
    row = metadata_row(page, "training_curve")
    image = row.locator("img").first
    image.wait_for(state="visible")
    assert image.get_attribute("src").startswith("data:image/png;base64,")
    assert image.evaluate("i => i.complete && i.naturalWidth") > 0, "the image did not decode"
    assert "Validation AUC (green)" in row.inner_text()
    assert metadata_row(page, "training_curve_png").count() == 0, "the curve's path is shown"

    href = link_of(page, "training_curve_chart")
    assert href.startswith(f"{mlflow_ui.url}/#/experiments/") and "artifacts/curve.png" in href
    open_mlflow(page, href, "curve.png", screenshots, "mlflow-curve")
    chart = page.locator("img[src^='blob:']").first
    chart.wait_for(state="visible")
    assert chart.evaluate("i => i.complete && i.naturalWidth") >= 400


def test_contract_results_show_counts_with_separators_and_the_logical_type(
    page, dagster_ui, screenshots
):
    """Observed counts read 12,345 rather than 12345, and a column's type is the contract's
    logical type (integer, string...) with the engine's name beside it."""
    open_page(
        page,
        dagster_ui,
        f"{CHECKS}&checkDetail={CONTRACT_CHECK}",
        "Latest execution",
        screenshots,
        CONTRACT_CHECK,
    )
    rows = table_rows(table_with_headers(page, *RESULT_COLUMNS))
    types = [row for row in rows if row["rule"] == "type"]
    assert types, rows
    for row in types:
        assert row["observed"].startswith(f"{row['threshold']} (engine: "), row
    counts = [row["observed"] for row in rows if re.fullmatch(r"[\d,]+", row["observed"])]
    assert counts, rows
    for count in counts:
        assert count == f"{int(count.replace(',', '')):,}", count
    assert any("," in count for count in counts), counts
