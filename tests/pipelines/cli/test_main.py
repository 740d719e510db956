"""Smoke tests through the installed console script, as a user runs it."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import dagster as dg
import pytest

from sql.paths import REPOSITORY_ROOT
from tests.mlflow_store import copy_store

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")


def plumbline(*args: str, env: dict[str, str] | None = None, timeout: int = 300):
    """Run the console script and capture its output in files, not pipes: Dagster's compute
    log capture mirrors each step's output with a `tail -F` (and a watcher) that inherit the
    run's stdout, and one that outlives the run would hold a pipe open, so that waiting for
    the pipe's end waits for it (seen as a `plumbline run` that printed its summary, exited
    0, and still timed out). The command itself is what the timeout bounds."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    environment.update(env or {})
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        done = subprocess.run(
            [PLUMBLINE, *args], stdout=out, stderr=err, text=True, env=environment, timeout=timeout
        )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(done.args, done.returncode, out.read(), err.read())


def plumbline_in_process(*args: str, env: dict[str, str], stdin: str | None = None):
    """The same command in this process, with the same environment rules as ``plumbline``
    (and ``stdin`` as its standard input): for a test's further invocations once the console
    script has been run, since each start of it loads Dagster and MLflow (seconds)."""
    from click.testing import CliRunner

    from pipelines.cli.main import main

    environment = {k: None for k in os.environ if k.startswith("PLUMBLINE_")} | env
    return CliRunner().invoke(main, list(args), input=stdin, env=environment, prog_name="plumbline")


def plumbline_here(*args: str, env: dict[str, str] | None = None, stdin: str | None = None):
    """``plumbline_in_process`` as ``plumbline`` answers (a CompletedProcess): for the rows of
    a table whose first row ran the console script. Only for commands that refuse or answer
    before they export settings into the environment (``run`` past its flags, ``ui`` and
    ``mlflow-ui`` do), which would outlive the call in this process."""
    result = plumbline_in_process(*args, env=env or {}, stdin=stdin)
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_main_holds_only_the_parser():
    """Every command's work lives in the module of its command group (pipelines.cli.commands,
    k8s, init, gpu): main.py only builds the parser and dispatches to them."""
    import click

    from pipelines.cli.main import main

    def leaves(group: click.Group, prefix: str):
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                yield from leaves(command, f"{prefix}{name} ")
            else:
                yield f"{prefix}{name}", command.callback.__module__

    found = dict(leaves(main, ""))
    assert {
        "run",
        "audit",
        "translate",
        "contracts lint",
        "models history",
        "bench gpu",
    } <= found.keys()
    assert [name for name, module in sorted(found.items()) if module == "pipelines.cli.main"] == []


# The first row of each table runs the console script (the process a user starts: its
# imports, its exit code); the others the same command in this process (plumbline_here), since
# each start of the script costs seconds.
@pytest.mark.parametrize(
    ("args", "run_with"),
    [
        (["--help"], plumbline),
        (["run", "--help"], plumbline_here),
        (["ui", "--help"], plumbline_here),
        (["mlflow-ui", "--help"], plumbline_here),
        (["contracts", "lint", "--help"], plumbline_here),
        (["translate", "--help"], plumbline_here),
        (["query", "--help"], plumbline_here),
        (["audit", "--help"], plumbline_here),
        (["bench", "gpu", "--help"], plumbline_here),
    ],
)
def test_help_everywhere(args, run_with):
    result = run_with(*args)
    assert result.returncode == 0, result.stderr
    assert "Usage: plumbline" in result.stdout


@pytest.mark.parametrize(
    ("args", "env", "message", "run_with"),
    [
        (["--scale", "0"], {}, "--scale must be a positive number", plumbline),
        (["--scale", "abc"], {}, "--scale must be a positive number", plumbline_here),
        (
            ["--engine", "oracle"],
            {},
            "--engine must be one of duckdb, spark; got 'oracle'",
            plumbline_here,
        ),
        (
            [],
            {"PLUMBLINE_SCALE": "-1"},
            "PLUMBLINE_SCALE must be a positive number",
            plumbline_here,
        ),
        (
            [],
            {"PLUMBLINE_ENGINE": "oracle"},
            "PLUMBLINE_ENGINE must be one of duckdb, spark",
            plumbline_here,
        ),
        # A selection is refused after the settings are exported (and the definitions
        # loaded, whose warnings would reach stderr): the console script's.
        (
            ["--select", "key:no/such/asset"],
            {},
            "--select 'key:no/such/asset' matches no asset",
            plumbline,
        ),
        (["--select", ""], {}, "--select '' is empty; leave --select out", plumbline),
        (["--select", "  "], {}, "--select '  ' is empty", plumbline),
    ],
)
def test_bad_input_is_one_line_exit_2_and_creates_nothing(tmp_path, args, env, message, run_with):
    home = tmp_path / "home"
    result = run_with("run", *args, env={"PLUMBLINE_HOME": str(home), **env})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert message in result.stderr
    assert not home.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "code", "message", "run_with"),
    [
        ([], 2, "give either MODEL[@VERSION|@ALIAS] or --verify BUNDLE", plumbline),
        (["delivery_delay", "--verify", "b.json"], 2, "give either", plumbline_here),
        (
            ["--verify", "b.json", "--out", "x"],
            2,
            "--verify takes no --out or --openlineage",
            plumbline_here,
        ),
        (["delivery_delay"], 1, "no MLflow store at sqlite:///", plumbline),
        (["@3"], 2, "expected MODEL[@VERSION|@ALIAS]", plumbline_here),
    ],
)
def test_audit_refuses_bad_input_in_one_line(tmp_path, args, code, message, run_with):
    result = run_with("audit", *args, env={"PLUMBLINE_HOME": str(tmp_path / "home")})
    assert result.returncode == code, result.stdout + result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert message in result.stderr


def test_an_unwritable_home_is_refused(tmp_path):
    (tmp_path / "a-file").write_text("")
    result = plumbline_here("run", env={"PLUMBLINE_HOME": str(tmp_path / "a-file" / "home")})
    assert result.returncode == 2
    assert result.stderr.startswith("plumbline: error: PLUMBLINE_HOME must be")
    assert (tmp_path / "a-file").read_text() == ""


@pytest.fixture(scope="module")
def run_home(tmp_path_factory):
    """One `plumbline run` of raw/orders and raw/region into a fresh PLUMBLINE_HOME, shared
    by the tests that read what it left (its output, the instance, the lake)."""
    home = tmp_path_factory.mktemp("run") / "home"
    result = plumbline(
        "run",
        "--scale",
        "0.01",
        "--select",
        "key:raw/orders or key:raw/region",
        env={"PLUMBLINE_HOME": str(home)},
        # 20-45 s alone; twice it "timed out" after printing its summary, waiting on a pipe
        # a leftover compute-log tail held (see plumbline()). Below pytest-timeout's 600 s.
        timeout=540,
    )
    return home, result


def test_run_materializes_through_the_persistent_instance(run_home, monkeypatch):
    home, result = run_home
    assert result.returncode == 0, result.stdout + result.stderr
    assert "materialized  raw/orders  15,000 rows" in result.stdout
    assert "materialized  raw/region  5 rows" in result.stdout
    assert "SUCCESS" in result.stdout
    assert (home / "lake" / "raw" / "orders").is_symlink()
    assert not (home / "lake" / "raw" / "lineitem").exists()

    # The run is recorded in $PLUMBLINE_HOME/dagster, where `plumbline ui` looks.
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    with dg.DagsterInstance.get() as instance:
        runs = instance.get_runs()
        assert len(runs) == 1
        assert runs[0].status == dg.DagsterRunStatus.SUCCESS
        assert runs[0].tags["plumbline/scale"] == "0.01"
        event = instance.get_latest_materialization_event(dg.AssetKey(["raw", "orders"]))
        assert event.asset_materialization.metadata["dagster/row_count"].value == 15_000

    # `plumbline query` looks into the published lake.
    env = {"PLUMBLINE_HOME": str(home)}
    table = plumbline("query", "SELECT COUNT(*) AS n FROM raw.orders", env=env)
    assert table.returncode == 0, table.stderr
    assert "15000" in table.stdout
    csv = plumbline_here("query", "SELECT r_name FROM raw.region ORDER BY 1", "--csv", env=env)
    assert csv.stdout.splitlines() == [
        '"r_name"',
        '"AFRICA"',
        '"AMERICA"',
        '"ASIA"',
        '"EUROPE"',
        '"MIDDLE EAST"',
    ]
    missing = plumbline_here("query", "SELECT * FROM raw.lineitem", env=env)
    assert missing.returncode == 1
    assert "reads raw.lineitem, which is not among its inputs" in missing.stderr


def test_workspace_validates(tmp_path):
    # Without DAGSTER_HOME the command makes a temporary instance (.tmp_dagster_home_*) in
    # its working directory, the repository root; this one lives in tmp_path.
    environment = {**os.environ, "DAGSTER_HOME": str(tmp_path)}
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "dagster"),
            "definitions",
            "validate",
            "-w",
            "workspace.yaml",
        ],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation successful" in result.stdout + result.stderr


def test_dg_lists_the_definitions_of_the_project(tmp_path):
    """dg, Dagster's CLI since 1.12, reads the project from [tool.dg] in pyproject.toml."""
    environment = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path),
        "VIRTUAL_ENV": str(Path(sys.executable).parents[1]),
    }
    dg = str(Path(sys.executable).parent / "dg")
    listed = subprocess.run(
        [dg, "list", "defs", "--json"],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    assets = {asset["asset_key"]: asset for asset in json.loads(listed.stdout)["assets"]}
    assert {"raw/orders", "warehouse/training_set", "models/delay_model"} <= set(assets)
    # Each asset's "Source code" (its first code reference) is its own file, not defs.yaml:
    # the legacy SQL for the legacy file, its translation and its table.
    legacy = "sql/legacy/snowflake/delay_features.sql:1"
    for key in ("legacy/snowflake/delay_features", "ansi/delay_features"):
        assert assets[key]["source"] == legacy, key
    assert assets["warehouse/delay_features"]["source"] == legacy
    assert assets["warehouse/training_set"]["source"] == "sql/ansi/training_set.sql:1"
    assert assets["models/delay_model"]["source"].startswith("assets/training.py:")
    # `dg check defs` runs in `make lint`, which CI runs before the tests.


def test_models_history_prints_every_alias_move(tmp_path):
    from pipelines.registry.versions import AliasHistory, AliasMove

    home = tmp_path / "home"
    history = AliasHistory(home / "lake" / "registry" / "alias_history")
    moves = [
        AliasMove(
            "delivery_delay", "champion", None, "1", "2026-11-30T06:00:00+00:00", "r1", "first"
        ),
        AliasMove(
            "delivery_delay", "champion", "1", "2", "2026-11-30T07:00:00+00:00", "r2", "better"
        ),
        AliasMove("other", "champion", None, "1", "2026-11-30T08:00:00+00:00", "r3", "x"),
    ]
    for move in moves:
        history.append(move)
    env = {"PLUMBLINE_HOME": str(home)}
    table = plumbline("models", "history", "delivery_delay", env=env)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert len(lines) == 3 and "better" in lines[2] and "r2" in lines[2]
    as_json = plumbline_here("models", "history", "--json", env=env)
    assert [json.loads(line)["to_version"] for line in as_json.stdout.splitlines()] == ["1", "2"]
    # Moves are history enough: the model need not be in this home's registry.
    other = plumbline_here("models", "history", "other", env=env)
    assert other.returncode == 0, other.stderr
    assert len(other.stdout.splitlines()) == 2


def test_models_history_of_an_unknown_model_is_an_error(tmp_path, mlflow_store_template):
    """A model with no moves is an answer when it is registered, and a mistake when it is
    not: exit 1 and a line naming it and the registered models, as `plumbline audit` does."""
    from pipelines.resources import MlflowResource
    from pipelines.settings import Settings

    home = tmp_path / "home"
    env = {"PLUMBLINE_HOME": str(home)}
    before = plumbline("models", "history", "NO_SUCH_MODEL", env=env)
    assert before.returncode == 1
    assert before.stderr.startswith("plumbline: error: no registered model 'NO_SUCH_MODEL'")
    assert "registered models: none yet" in before.stderr
    assert not (home / "mlflow.db").exists()  # looking created no store

    copy_store(mlflow_store_template, home)  # an empty store (tests/mlflow_store.py)
    settings = Settings(home=home)
    client = MlflowResource(
        tracking_uri=settings.mlflow_uri, artifact_root=str(settings.mlflow_artifacts)
    ).client()
    for name in ("delivery_delay", "churn"):
        client.create_registered_model(name)
    registered = plumbline_here("models", "history", "delivery_delay", env=env)
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.strip() == "no alias moves recorded for delivery_delay"
    unknown = plumbline_here("models", "history", "NO_SUCH_MODEL", env=env)
    assert unknown.returncode == 1 and unknown.stdout == ""
    [line] = unknown.stderr.splitlines()
    assert "no registered model 'NO_SUCH_MODEL'" in line
    assert line.endswith("registered models: churn, delivery_delay")
    as_json = plumbline_here("models", "history", "NO_SUCH_MODEL", "--json", env=env)
    assert as_json.returncode == 1 and as_json.stdout == ""
