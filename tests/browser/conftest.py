"""A home after a full `plumbline run`, `dagster dev` serving it, and headless Chromium.

The browser is the system's (Debian's ``chromium`` package, which ``.ci/run`` installs):
Playwright drives it through ``executable_path`` and never downloads one of its own.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.cli.environment import prepare_environment
from pipelines.settings import Settings
from sql.paths import REPOSITORY_ROOT
from tests.model_path import ModelPathRun
from tests.process_groups import start_group, stop_group

BIN = Path(sys.executable).parent
# Where the screenshots go (CI keeps them as artefacts); gitignored.
SCREENSHOTS_SETTING = "PLUMBLINE_BROWSER_SCREENSHOTS"
DEFAULT_SCREENSHOTS = REPOSITORY_ROOT / ".artifacts" / "browser"
# Set in CI: a missing browser fails the test instead of skipping it.
REQUIRE_SETTING = "PLUMBLINE_REQUIRE_BROWSER"
CHROMIUM_NAMES = ("chromium", "chromium-browser")


@dataclass(frozen=True)
class PreparedHome:
    """A PLUMBLINE_HOME where `plumbline run` built every asset."""

    settings: Settings
    run_output: str


@dataclass(frozen=True)
class DagsterUi:
    """`dagster dev` serving a prepared home."""

    url: str
    home: PreparedHome


@dataclass(frozen=True)
class MlflowUi:
    """`plumbline mlflow-ui` serving a prepared home's tracking store, at the address its
    metadata links point to."""

    url: str


def _environment_without_plumbline_settings() -> dict[str, str]:
    """This process's environment less its PLUMBLINE_* settings, so that only the ones a
    fixture sets reach the subprocess (as tests/pipelines/cli/test_main.py does)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}


@pytest.fixture(scope="session")
def chromium() -> str:
    """The system's Chromium, or a skip (a failure where PLUMBLINE_REQUIRE_BROWSER=1)."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    reason = (
        f"no Chromium on PATH (looked for {', '.join(CHROMIUM_NAMES)}); install Debian's "
        "package: apt-get install -y chromium (.ci/run does)"
    )
    if os.environ.get(REQUIRE_SETTING) == "1":
        pytest.fail(f"{REQUIRE_SETTING}=1 and {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder the screenshots are saved in (PLUMBLINE_BROWSER_SCREENSHOTS overrides)."""
    folder = Path(os.environ.get(SCREENSHOTS_SETTING) or DEFAULT_SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def prepared_home(
    model_path_run: ModelPathRun, tmp_path_factory: pytest.TempPathFactory
) -> PreparedHome:
    """A home where `plumbline run` at the suite's scale succeeded, as a user runs it, of the
    assets the pages show and all they read (the model's path, from the raw tables through
    warehouse/delay_features to the audit bundle), with the MLflow UI's address
    (PLUMBLINE_MLFLOW_UI_URL) on a port that ``mlflow_ui`` serves later: a copy of the
    session's shared run (tests/model_path.py), since `dagster dev` writes into its home."""
    output = model_path_run.stdout + model_path_run.stderr
    assert model_path_run.returncode == 0, output
    home = model_path_run.copy_home(tmp_path_factory.mktemp("browser") / "home")
    return PreparedHome(Settings(home=home, mlflow_ui_url=model_path_run.mlflow_ui_url), output)


def _ui_environment(settings: Settings) -> dict[str, str]:
    """The environment `plumbline ui` gives `dagster dev`: prepare_environment's, which
    writes dagster.yaml and exports the settings into os.environ (restored afterwards)."""
    saved = dict(os.environ)
    try:
        for key in [k for k in os.environ if k.startswith("PLUMBLINE_")]:
            del os.environ[key]
        prepare_environment(settings)
        return dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")  # stopped when the browser tests end, not with the session
def dagster_ui(
    chromium: str, prepared_home: PreparedHome, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DagsterUi]:
    """`dagster dev` over the prepared home on a free port, in its own process group (its
    webserver and code-server children go with it at teardown). Asks for ``chromium``
    first, so that without a browser the test skips before a home is built for it."""
    port = _free_port()
    log = tmp_path_factory.mktemp("dagster-dev") / "dagster-dev.log"
    with log.open("w") as output:
        server = start_group(
            [str(BIN / "dagster"), "dev", "-w", "workspace.yaml", "--port", str(port)],
            cwd=REPOSITORY_ROOT,
            env=_ui_environment(prepared_home.settings),
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_served(f"{url}/server_info", server, log, "dagster dev")
        yield DagsterUi(url, prepared_home)
    finally:
        stop_group(server)


@pytest.fixture(scope="module")
def mlflow_ui(
    chromium: str, prepared_home: PreparedHome, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MlflowUi]:
    """`plumbline mlflow-ui` over the prepared home, in its own process group (the MLflow
    server it starts goes with it). No --port: it serves where the links point, the one
    setting (PLUMBLINE_MLFLOW_UI_URL) both read."""
    url = prepared_home.settings.mlflow_ui_url
    log = tmp_path_factory.mktemp("mlflow-ui") / "mlflow-ui.log"
    environment = _environment_without_plumbline_settings() | {
        "PLUMBLINE_HOME": str(prepared_home.settings.home),
        "PLUMBLINE_MLFLOW_UI_URL": url,
    }
    with log.open("w") as output:
        server = start_group(
            [sys.executable, "-m", "pipelines.cli.main", "mlflow-ui"],
            cwd=REPOSITORY_ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        _wait_until_served(f"{url}/health", server, log, "plumbline mlflow-ui")
        yield MlflowUi(url)
    finally:
        stop_group(server)


def _wait_until_served(url: str, server: subprocess.Popen, log: Path, name: str) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if server.poll() is not None:
                pytest.fail(f"{name} exited {server.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{name} did not answer within 120 s:\n{log.read_text()}")
            time.sleep(1)


# Module-scoped, not session-scoped: Playwright's sync API keeps an asyncio loop marked
# running in this thread while it is open, and a later test file in the same worker that calls
# asyncio.run (Dagster's evaluate_automation_conditions does) would fail.
@pytest.fixture(scope="module")
def browser(chromium: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    # The webserver's "Join the Dagster community" dialog (shown once per browser on
    # localhost) would cover the page; its dismissal is this localStorage entry.
    context.add_init_script("window.localStorage.setItem('communityNux', '1')")
    context.set_default_timeout(60_000)
    opened = context.new_page()
    yield opened
    context.close()
