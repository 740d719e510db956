"""Addresses of pages in the MLflow UI (MLflow 3's hash routes), for links from Dagster's
metadata and the command line.

Every address carries ``workflowType=machine_learning``. MLflow 3's UI has two workflows,
GenAI (traces, an assistant, evaluation) and machine learning (runs, metrics, models), and
it picks one per page from that query parameter, else from what the browser last chose, else
GenAI: the experiment's ``mlflow.experimentKind`` tag only chooses the tab an experiment opens
on. Without the parameter a link from Dagster opens the run on GenAI pages ("Traces 0").
See the WorkflowTypeProvider of mlflow/server/js (``workflowType`` in its URL handling).
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

WORKFLOW_TYPE = "machine_learning"


def _page(ui_url: str, route: str) -> str:
    return f"{ui_url.rstrip('/')}/#{route}?{urlencode({'workflowType': WORKFLOW_TYPE})}"


def experiment_page(ui_url: str, experiment_id: str | None = None) -> str:
    """An experiment's runs, or the list of experiments without one."""
    if experiment_id is None:
        return _page(ui_url, "/experiments")
    return _page(ui_url, f"/experiments/{quote(str(experiment_id), safe='')}/runs")


def run_page(ui_url: str, experiment_id: str, run_id: str) -> str:
    """A run's overview: its parameters, metrics, tags and registered models."""
    return _page(ui_url, f"/experiments/{quote(str(experiment_id), safe='')}/runs/{run_id}")


def artifact_page(ui_url: str, experiment_id: str, run_id: str, artifact_path: str) -> str:
    """A run's artifacts tab with ``artifact_path`` open (an image or HTML file shown)."""
    return _page(
        ui_url,
        f"/experiments/{quote(str(experiment_id), safe='')}/runs/{run_id}/artifacts/"
        + quote(artifact_path, safe="/"),
    )


def model_version_page(ui_url: str, model: str, version: str | int) -> str:
    """A registered model version: its source run, aliases and tags."""
    return _page(ui_url, f"/models/{quote(model, safe='')}/versions/{version}")
