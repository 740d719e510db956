"""The sqlite tracking store is created atomically, half-made stores are rebuilt or refused,
and a full disk (a real tmpfs) leaves no half-made store and heals once space is back."""

import contextlib
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest
from mlflow import MlflowClient

from pipelines.registry.tracking_store import (
    TrackingStoreError,
    at_latest_schema,
    ensure_tracking_store,
    half_made,
    latest_schema_version,
    schema_version,
)
from tests.mlflow_store import copy_store
from tests.tmpfs import tmpfs


def uri(path):
    return f"sqlite:///{path}"


def test_a_missing_store_is_created_whole_and_nothing_else_is_left(tmp_path):
    db = tmp_path / "mlflow.db"
    ensure_tracking_store(uri(db), (tmp_path / "artifacts").as_uri())
    assert half_made(db) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".mlflow.db.folder",
        ".mlflow.db.lock",
        "mlflow.db",
    ]
    client = MlflowClient(tracking_uri=uri(db))
    # The Default experiment stores artifacts where the home says, not in the working
    # directory's ./mlruns.
    assert client.get_experiment("0").artifact_location == (tmp_path / "artifacts" / "0").as_uri()
    ensure_tracking_store(uri(db), (tmp_path / "artifacts").as_uri())  # a whole store: as is


def interrupt_a_migration(db):
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE _alembic_tmp_experiments (experiment_id INTEGER)")
        connection.commit()


def test_a_half_made_empty_store_is_rebuilt_and_the_broken_file_kept(tmp_path):
    db = tmp_path / "mlflow.db"
    ensure_tracking_store(uri(db), tmp_path.as_uri())
    interrupt_a_migration(db)
    assert half_made(db) == ["table _alembic_tmp_experiments left by an interrupted migration"]
    ensure_tracking_store(uri(db), tmp_path.as_uri())
    assert half_made(db) == []
    assert [p.name for p in tmp_path.glob("mlflow.db.half-made-*")]
    MlflowClient(tracking_uri=uri(db)).create_experiment("works")


def test_a_half_made_store_with_runs_is_refused_with_the_repair(tmp_path):
    db = tmp_path / "mlflow.db"
    ensure_tracking_store(uri(db), tmp_path.as_uri())
    client = MlflowClient(tracking_uri=uri(db))
    client.create_run(client.create_experiment("e"))
    interrupt_a_migration(db)
    before = db.read_bytes()
    with pytest.raises(TrackingStoreError) as info:
        ensure_tracking_store(uri(db), tmp_path.as_uri())
    message = str(info.value)
    assert "\n" not in message
    assert f"mlflow db upgrade sqlite:///{db}" in message and "holds runs" in message
    assert db.read_bytes() == before


@pytest.fixture
def small_disk(tmp_path):
    with tmpfs(tmp_path / "disk", "8m") as mount:
        yield mount


def test_a_full_disk_leaves_no_half_made_store_and_heals_when_space_is_back(small_disk):
    ballast = small_disk / f"ballast-{uuid.uuid4().hex}"
    # Fill the disk but ~100 KB: too little for MLflow's schema (~1 MB with its journal).
    ballast.write_bytes(b"\0" * (shutil.disk_usage(small_disk).free - 100 * 1024))
    db = small_disk / "mlflow.db"
    with pytest.raises(TrackingStoreError) as info:
        ensure_tracking_store(uri(db), small_disk.as_uri())
    assert "no space left" in str(info.value) and str(small_disk) in str(info.value)
    assert sorted(p.name for p in small_disk.iterdir()) == [".mlflow.db.lock", ballast.name]
    ballast.unlink()
    ensure_tracking_store(uri(db), small_disk.as_uri())
    assert half_made(db) == []
    MlflowClient(tracking_uri=uri(db)).create_experiment("after")


def tree(root):
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_a_copied_home_uses_its_own_files_and_leaves_the_original_alone(tmp_path):
    original, copy = tmp_path / "original", tmp_path / "copy"
    artifacts = (original / "mlartifacts").as_uri()
    ensure_tracking_store(uri(original / "mlflow.db"), artifacts)
    client = MlflowClient(tracking_uri=uri(original / "mlflow.db"))
    experiment = client.create_experiment("e", artifact_location=artifacts)
    run = client.create_run(experiment).info.run_id
    (tmp_path / "model.txt").write_text("weights")
    client.log_artifact(run, str(tmp_path / "model.txt"))
    subprocess.run(["cp", "-a", str(original), str(copy)], check=True)
    before = tree(original)

    ensure_tracking_store(uri(copy / "mlflow.db"), (copy / "mlartifacts").as_uri())
    moved = MlflowClient(tracking_uri=uri(copy / "mlflow.db"))
    assert moved.get_experiment(experiment).artifact_location == artifacts.replace(
        "/original/", "/copy/"
    )
    assert moved.get_run(run).info.artifact_uri.startswith((copy / "mlartifacts").as_uri())
    new_run = moved.create_run(experiment).info.run_id
    moved.log_artifact(new_run, str(tmp_path / "model.txt"))
    assert (copy / "mlartifacts" / new_run / "artifacts" / "model.txt").is_file()
    local = moved.download_artifacts(run, "model.txt", str(tmp_path))
    assert Path(local).read_text() == "weights"
    assert tree(original) == before  # nothing written into the original


def test_a_store_of_an_older_mlflow_is_migrated_on_a_copy_and_keeps_its_runs(tmp_path):
    from alembic import command
    from mlflow.store.db.utils import _get_alembic_config, create_sqlalchemy_engine
    from mlflow.store.tracking.dbmodels.initial_models import Base

    # A store as MLflow 1.x left it: the initial tables at the first migration, one run.
    db = tmp_path / "mlflow.db"
    engine = create_sqlalchemy_engine(uri(db))
    Base.metadata.create_all(engine)
    config = _get_alembic_config(uri(db))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "451aebb31d03")
        connection.exec_driver_sql(
            "INSERT INTO experiments (experiment_id, name, artifact_location, lifecycle_stage)"
            " VALUES (1, 'old', 'file:///old', 'active')"
        )
    engine.dispose()
    assert schema_version(db) == "451aebb31d03" != latest_schema_version()

    ensure_tracking_store(uri(db), tmp_path.as_uri())
    assert schema_version(db) == latest_schema_version()
    assert MlflowClient(tracking_uri=uri(db)).get_experiment_by_name("old") is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".mlflow.db.folder",
        ".mlflow.db.lock",
        ".mlflow.db.schema-head",
        "mlflow.db",
    ]


def test_the_latest_revision_is_remembered_for_this_mlflow_only(tmp_path, mlflow_store_template):
    copy_store(mlflow_store_template, tmp_path)
    db = tmp_path / "mlflow.db"
    record = tmp_path / ".mlflow.db.schema-head"
    assert not record.exists()  # a store just created is at the head: nothing compared
    ensure_tracking_store(uri(db), tmp_path.as_uri())
    assert record.is_file()
    assert at_latest_schema(db)
    key, head = record.read_text().split()
    assert head == latest_schema_version() == schema_version(db)
    # The record is what is compared while its key is this MLflow's: a record naming
    # another head makes the store read as behind it (so the record is what was read) ...
    record.write_text(f"{key} 0000feedbeef\n")
    assert not at_latest_schema(db)
    # ... and a record of another MLflow (another key), or unreadable, is read again from
    # the migrations and rewritten.
    for stale in (f"{'0' * 64} 0000feedbeef\n", "garbage"):
        record.write_text(stale)
        assert at_latest_schema(db)
        assert record.read_text() == f"{key} {head}\n"
