from pathlib import Path

import pytest

from pipelines.settings import (
    DEFAULT_SCALE,
    Settings,
    SettingsError,
    check_home_writable,
    redact,
    split_credentials,
)


def test_defaults_resolve_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings.from_env({})
    assert settings.home == tmp_path / ".plumbline"
    assert settings.scale == DEFAULT_SCALE
    assert settings.engine == "duckdb"
    assert settings.lake_root == tmp_path / ".plumbline" / "lake"
    assert settings.dagster_home == tmp_path / ".plumbline" / "dagster"
    assert settings.mlflow_uri == f"sqlite:///{tmp_path}/.plumbline/mlflow.db"


def test_environment_values_are_read_and_typed(tmp_path):
    settings = Settings.from_env(
        {
            "PLUMBLINE_HOME": str(tmp_path / "h"),
            "PLUMBLINE_SCALE": "0.5",
            "PLUMBLINE_ENGINE": "spark",
            "PLUMBLINE_MLFLOW_URI": "http://mlflow:5000",
        }
    )
    assert settings == Settings(
        home=tmp_path / "h", scale=0.5, engine="spark", mlflow_uri="http://mlflow:5000"
    )


def test_flags_override_the_environment(tmp_path):
    env = {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_SCALE": "1", "PLUMBLINE_ENGINE": "spark"}
    settings = Settings.from_env(env, scale="0.01", engine="duckdb")
    assert (settings.scale, settings.engine) == (0.01, "duckdb")


def test_to_env_round_trips(tmp_path):
    settings = Settings(home=tmp_path, scale=0.25, engine="spark", duckdb_memory_limit="512MB")
    assert Settings.from_env(settings.to_env()) == settings


@pytest.mark.parametrize("limit", ["2GB", "512MB", "1.5GiB", "750 MiB", "4gb"])
def test_duckdb_memory_limit_and_spill_folder(tmp_path, limit):
    settings = Settings.from_env(
        {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_DUCKDB_MEMORY_LIMIT": limit}
    )
    assert settings.duckdb_memory_limit == limit
    assert settings.spill_root == tmp_path / "spill"


@pytest.mark.parametrize("limit", ["2", "lots", "-1GB", "0MB", "80%"])
def test_a_memory_limit_duckdb_would_not_take_is_refused(tmp_path, limit):
    with pytest.raises(SettingsError, match=r"^PLUMBLINE_DUCKDB_MEMORY_LIMIT must be a memory"):
        Settings.from_env({"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_DUCKDB_MEMORY_LIMIT": limit})


@pytest.mark.parametrize(
    ("env", "overrides", "setting", "got"),
    [
        ({"PLUMBLINE_SCALE": "-1"}, {}, "PLUMBLINE_SCALE", "'-1'"),
        ({"PLUMBLINE_SCALE": "0"}, {}, "PLUMBLINE_SCALE", "'0'"),
        ({"PLUMBLINE_SCALE": "abc"}, {}, "PLUMBLINE_SCALE", "'abc'"),
        ({"PLUMBLINE_SCALE": "nan"}, {}, "PLUMBLINE_SCALE", "'nan'"),
        ({"PLUMBLINE_SCALE": "inf"}, {}, "PLUMBLINE_SCALE", "'inf'"),
        ({}, {"scale": "0"}, "--scale", "'0'"),
        ({}, {"scale": "abc"}, "--scale", "'abc'"),
        ({"PLUMBLINE_ENGINE": "oracle"}, {}, "PLUMBLINE_ENGINE", "'oracle'"),
        ({}, {"engine": "oracle"}, "--engine", "'oracle'"),
    ],
)
def test_bad_values_name_the_setting_and_the_accepted_values(env, overrides, setting, got):
    with pytest.raises(SettingsError) as info:
        Settings.from_env(env, **overrides)
    message = str(info.value)
    assert info.value.setting == setting
    assert message.startswith(f"{setting} must be ")
    assert message.endswith(f"got {got}")
    assert "\n" not in message
    accepted = "duckdb, spark" if "ENGINE" in setting.upper() else "positive number"
    assert accepted in message


def test_a_creatable_home_passes_and_nothing_is_left_behind(tmp_path):
    before = sorted(tmp_path.iterdir())
    check_home_writable(tmp_path / "new" / "home")
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize(
    "make_home", [lambda t: t / "a-file" / "home", lambda t: Path("/proc/plumbline")]
)
def test_an_unwritable_home_is_refused(tmp_path, make_home):
    (tmp_path / "a-file").write_text("not a folder")
    home = make_home(tmp_path)
    with pytest.raises(SettingsError, match=r"^PLUMBLINE_HOME must be a folder"):
        check_home_writable(home)
    assert not home.exists()


K8S = {"PLUMBLINE_LAUNCHER": "k8s", "PLUMBLINE_K8S_IMAGE": "registry.example.com/train:1.0"}


def test_the_kubernetes_launcher_is_chosen_by_settings_alone(tmp_path):
    from pipelines.definitions import build_definitions

    env = {
        "PLUMBLINE_HOME": str(tmp_path),
        **K8S,
        "PLUMBLINE_K8S_GPU": "h200",
        "PLUMBLINE_K8S_NODES": "4",
        "PLUMBLINE_K8S_SPOT": "true",
    }
    settings = Settings.from_env(env)
    assert Settings.from_env(settings.to_env()) == settings
    request = settings.k8s_request("plumbline-train")
    assert (request.gpu, request.nodes, request.spot, request.gpus_per_node) == (
        "h200",
        4,
        True,
        8,  # all of an H200 node's GPUs
    )
    launcher = build_definitions(settings).resources["training_launcher"]
    assert launcher.kind == "k8s" and launcher.placement() == (4, True)
    assert launcher.k8s_request("x").shared_mount_path == str(settings.home)
    # The launcher asks for what the settings describe, field for field (one mapping).
    from dataclasses import replace

    assert (
        replace(launcher.k8s_request("plumbline-train"), max_restarts=request.max_restarts)
        == request
    )
    # The default stays local.
    assert Settings.from_env({"PLUMBLINE_HOME": str(tmp_path)}).launcher == "local"


@pytest.mark.parametrize(
    ("env", "setting", "accepted"),
    [
        ({"PLUMBLINE_LAUNCHER": "slurm"}, "PLUMBLINE_LAUNCHER", "one of local, k8s"),
        ({"PLUMBLINE_LAUNCHER": "k8s"}, "PLUMBLINE_K8S_IMAGE", "pinned by tag or digest"),
        ({**K8S, "PLUMBLINE_K8S_GPU": "a100"}, "PLUMBLINE_K8S_GPU", "h100, h200, gb200"),
        ({**K8S, "PLUMBLINE_K8S_GPUS_PER_NODE": "9"}, "PLUMBLINE_K8S_GPUS_PER_NODE", "8 GPUs"),
        ({**K8S, "PLUMBLINE_K8S_GPU": "gb200", "PLUMBLINE_K8S_GPUS_PER_NODE": "8"}, "PLUMBLINE_K8S_GPUS_PER_NODE", "4 GPUs"),
        ({**K8S, "PLUMBLINE_K8S_NODES": "two"}, "PLUMBLINE_K8S_NODES", "a whole number"),
        ({**K8S, "PLUMBLINE_K8S_SPOT": "maybe"}, "PLUMBLINE_K8S_SPOT", "true or false"),
    ],
)  # fmt: skip
def test_kubernetes_settings_the_cluster_cannot_satisfy_are_refused_by_name(
    tmp_path, env, setting, accepted
):
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"PLUMBLINE_HOME": str(tmp_path), **env})
    assert info.value.setting == setting
    assert accepted in str(info.value)


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("http://user:s3cr3t@host:5000/path", "http://user:***@host:5000/path"),
        ("https://TOKEN@mlflow.example.com", "https://***@mlflow.example.com"),
        ("see postgresql://u:p%40ss@db/x and http://a:b@c", "see postgresql://u:***@db/x and http://a:***@c"),
        ("sqlite:////tmp/home/mlflow.db", "sqlite:////tmp/home/mlflow.db"),
        ("mail me at a@b.c", "mail me at a@b.c"),
    ],
)  # fmt: skip
def test_redact_hides_every_uri_password(text, redacted):
    assert redact(text) == redacted


def test_credentials_leave_the_mlflow_uri_for_the_environment(tmp_path):
    settings = Settings.from_env(
        {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_MLFLOW_URI": "https://me:p%40ss@h:8/m"}
    )
    assert settings.mlflow_uri == "https://h:8/m"
    assert "p@ss" not in repr(settings) and "p%40ss" not in repr(settings)
    env = settings.to_env()
    assert env["PLUMBLINE_MLFLOW_URI"] == "https://h:8/m"
    assert env["MLFLOW_TRACKING_USERNAME"] == "me"
    assert env["MLFLOW_TRACKING_PASSWORD"] == "p@ss"
    # A child started with that environment reads the same settings back.
    assert Settings.from_env(env) == settings
    assert split_credentials("sqlite:///x.db") == ("sqlite:///x.db", None)


def test_a_refused_uri_is_shown_redacted(tmp_path):
    with pytest.raises(SettingsError) as info:
        Settings(home=tmp_path, mlflow_uri="http://me:t0ken@h", mlflow_credentials=("me", "other"))
    assert "t0ken" not in str(info.value)
    assert "me:***@h" in str(info.value)


def test_the_masking_key_is_read_exported_only_when_set_and_never_shown(tmp_path):
    settings = Settings.from_env(
        {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_MASKING_KEY": "k3y-of-the-deployment"}
    )
    assert settings.masking_key == "k3y-of-the-deployment"
    assert "k3y-of-the-deployment" not in repr(settings)
    env = settings.to_env()
    assert env["PLUMBLINE_MASKING_KEY"] == "k3y-of-the-deployment"
    assert Settings.from_env(env).masking_key == "k3y-of-the-deployment"
    assert settings.masking_key_path == tmp_path / "masking.key"
    # Unset or empty: the home's key file, and nothing to pass on.
    for unset in ({}, {"PLUMBLINE_MASKING_KEY": ""}):
        plain = Settings.from_env({"PLUMBLINE_HOME": str(tmp_path), **unset})
        assert plain.masking_key is None
        assert "PLUMBLINE_MASKING_KEY" not in plain.to_env()
    assert Settings(home=tmp_path, masking_key="").masking_key is None


@pytest.mark.parametrize(
    ("env", "ui_url"),
    [
        ({}, "http://127.0.0.1:5000"),
        ({"PLUMBLINE_MLFLOW_URI": "https://mlflow.example.com/"}, "https://mlflow.example.com"),
        (
            {
                "PLUMBLINE_MLFLOW_URI": "https://ci:s3cret@mlflow.example.com",
                "PLUMBLINE_MLFLOW_UI_URL": "https://ui.example.com/mlflow/",
            },
            "https://ui.example.com/mlflow",
        ),
    ],
)
def test_the_mlflow_ui_url_is_the_server_or_the_local_ui(tmp_path, env, ui_url):
    settings = Settings.from_env({"PLUMBLINE_HOME": str(tmp_path), **env})
    assert settings.mlflow_ui_url == ui_url
    assert Settings.from_env(settings.to_env()).mlflow_ui_url == ui_url


@pytest.mark.parametrize("ui_url", ["https://ci:s3cret@ui.example.com", "ftp://ui.example.com"])
def test_a_ui_url_with_credentials_or_no_http_is_refused_redacted(tmp_path, ui_url):
    with pytest.raises(SettingsError, match="PLUMBLINE_MLFLOW_UI_URL") as refused:
        Settings.from_env({"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_MLFLOW_UI_URL": ui_url})
    assert "s3cret" not in str(refused.value)
