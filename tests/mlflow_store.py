"""An empty MLflow store for a test's home, copied from one made once per test process.

Creating a sqlite store runs every one of MLflow's migrations (about 5 s of CPU); a test
that trains or registers in a fresh home of its own made one each time. A copy is what
``plumbline`` finds in a home copied with ``cp -a``: the store and the record of the folder
it was made in, from which ``ensure_tracking_store`` moves its locations under the new home
(pipelines/registry/tracking_store.py's ``relocate``). Creating a store is tested in
tests/pipelines/registry/test_tracking_store.py and by every `plumbline run`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pipelines.registry.tracking_store import ensure_tracking_store
from pipelines.settings import Settings

STORE = "mlflow.db"
FOLDER_RECORD = f".{STORE}.folder"


def make_template(folder: Path) -> Path:
    """An empty store made in ``folder`` as a home's store is (its artifacts where the
    settings put a home's)."""
    settings = Settings(home=folder)
    ensure_tracking_store(settings.mlflow_uri, settings.mlflow_artifacts.as_uri())
    return folder


def copy_store(template: Path, home: Path) -> None:
    """The template's store, and the record of where it was made, into ``home``."""
    home.mkdir(parents=True, exist_ok=True)
    for name in (STORE, FOLDER_RECORD):
        shutil.copyfile(template / name, home / name)
