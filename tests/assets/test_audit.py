"""models/audit_bundle after a real run at scale 0.01 (translation, DuckDB builds, contracts,
2-process DDP training, registration): the chain, column lineage, verification, and each
kind of tampering caught by name."""

import json
import shutil
import subprocess
from pathlib import Path

import dagster as dg
import mlflow
import pyarrow.parquet as pq
import pytest

from assets.audit import AUDIT_BUNDLE_KEY, audit_bundle
from assets.registry import registered_model
from assets.training import delay_model
from pipelines.audit.bundle import (
    build_bundle,
    folder_tag,
    read_bundle,
    root_tag,
    verification,
    verify_bundle,
)
from pipelines.audit.chain import AuditError
from pipelines.audit.collect import resolve
from pipelines.audit.pinned import PinnedFiles
from pipelines.audit.store import bundle_holder
from pipelines.instance import audit_sources
from pipelines.lake.store import MANIFEST, Lake, digest_files
from pipelines.translation.store import sha256_bytes
from sql.paths import REPOSITORY_ROOT
from tests.assets.test_training import FAST, new_home, resources, upstream_assets

MODEL = "delivery_delay"
LEGACY = "sql/legacy/snowflake/delay_features.sql"
TRAIN_AND_REGISTER = dg.RunConfig(
    ops={
        "models__delay_model": {"config": FAST},
        # At this tiny scale the first model is held to a looser bar.
        "models__registered_model": {"config": {"baseline_margin": 0.05}},
    }
)


@pytest.fixture(scope="module")
def instance():
    with dg.DagsterInstance.ephemeral() as ephemeral:
        yield ephemeral


@pytest.fixture(scope="module")
def home(tmp_path_factory, raw_lake_root, instance):
    home = new_home(tmp_path_factory, raw_lake_root)
    # The audit reads legacy and portable SQL from a copy of the repository's sql/ folder,
    # so that the tampering tests can edit a legacy file without touching the real one.
    shutil.copytree(REPOSITORY_ROOT / "sql", home / "repo" / "sql")
    all_resources = resources(home, max_restarts=0)
    assert dg.materialize(upstream_assets(), resources=all_resources, instance=instance).success
    result = dg.materialize(
        [delay_model, registered_model, audit_bundle],
        resources=all_resources,
        instance=instance,
        run_config=TRAIN_AND_REGISTER,
    )
    assert result.success
    return home


@pytest.fixture(scope="module")
def client(home):
    uri = f"sqlite:///{home / 'mlflow.db'}"
    return mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)


def sources(home, client, instance, *, repo: Path | None = None, pinned: bool = False):
    """The audit's sources in ``home``; ``pinned``: with the store of pinned SQL copies the
    audit asset keeps its bundles' in (a bundle the asset issued is verified against it)."""
    kept = PinnedFiles(home / "audit") if pinned else None
    found = audit_sources(Lake(home / "lake"), home / "ansi", client, instance, kept)
    found.repo_root = repo or home / "repo"
    return found


@pytest.fixture(scope="module")
def bundle(home, client, instance):
    """A bundle collected without pinned copies, as bundles were issued before pins: its
    SQL links are verified against the files as they are (tests/pipelines/audit/
    test_pinned.py covers the pinned ones)."""
    built = build_bundle(sources(home, client, instance), MODEL, "1", requested=MODEL)
    client.set_model_version_tag(MODEL, "1", root_tag(built), built.root_digest)
    return built


def by_kind(bundle, kind):
    return [n for n in bundle.nodes if n.kind == kind]


def verify(bundle, home, client, instance):
    return [str(d) for d in verify_bundle(bundle, sources(home, client, instance))]


def in_home(shown: str, home: Path) -> Path:
    """A path the metadata shows relative to the home, as a path on this machine."""
    assert shown.startswith("$PLUMBLINE_HOME/"), shown
    return home / shown.removeprefix("$PLUMBLINE_HOME/")


def test_the_asset_writes_a_bundle_and_report_and_keeps_the_root_on_mlflow(home, client, instance):
    event = instance.get_latest_materialization_event(AUDIT_BUNDLE_KEY)
    metadata = {k: v.value for k, v in event.asset_materialization.metadata.items()}
    assert metadata["gaps"].records == []
    # It audited the version its own run registered.
    [registered] = [
        record
        for record in instance.fetch_materializations(registered_model.key, limit=10).records
        if record.run_id == event.run_id
    ]
    assert metadata["version"] == registered.asset_materialization.metadata["version"].value == 1
    assert metadata["version_source"] == "materialized by this run"
    # Its own folder, named by its time and root digest.
    folder = in_home(metadata["folder"], home)
    assert folder.parent == home / "audit" / MODEL / "v1"
    assert folder.name.endswith("-" + metadata["root_digest"].removeprefix("sha256:")[:12])
    written = read_bundle(in_home(metadata["bundle"], home))
    assert in_home(metadata["bundle"], home) == folder / "bundle.json"
    assert written.root_digest == metadata["root_digest"]
    report = in_home(metadata["report"], home)
    assert report.read_text().count(written.root_digest) >= 1
    version = client.get_model_version(MODEL, "1")
    assert version.tags[metadata["mlflow_tag"]] == metadata["root_digest"]
    assert version.tags[folder_tag(written)] == metadata["folder"]
    # The report is served by MLflow: logged under audit/<folder> of the training run.
    run = client.get_run(version.run_id)
    artifacts = f"audit/{folder.name}"
    assert {a.path for a in client.list_artifacts(version.run_id, artifacts)} == {
        f"{artifacts}/bundle.json",
        f"{artifacts}/report.html",
    }
    served = mlflow.artifacts.download_artifacts(
        run_id=version.run_id,
        artifact_path=f"{artifacts}/report.html",
        dst_path=str(home / "downloaded"),
        tracking_uri=f"sqlite:///{home / 'mlflow.db'}",
    )
    assert Path(served).read_bytes() == report.read_bytes()
    ui = "http://127.0.0.1:5000/#"
    VIEW = "?workflowType=machine_learning"  # MLflow's model-training view, not GenAI
    assert metadata["report_url"] == (
        f"{ui}/experiments/{run.info.experiment_id}/runs/{version.run_id}/artifacts/"
        f"{artifacts}/report.html{VIEW}"
    )
    assert metadata["mlflow_model_version"] == f"{ui}/models/{MODEL}/versions/1{VIEW}"
    assert metadata["mlflow_run"] == (
        f"{ui}/experiments/{run.info.experiment_id}/runs/{version.run_id}{VIEW}"
    )
    for key, value in metadata.items():
        assert str(home) not in str(value), key
    # The asset's bundle verifies, Dagster's record of its root included.
    assert (
        verify_bundle(
            written,
            sources(home, client, instance, repo=REPOSITORY_ROOT, pinned=True),  # the real repo
            dagster_root_digests=[metadata["root_digest"]],
        )
        == []
    )
    # Its SQL links pinned their files: a later translation (rewritten SQL and manifest) is
    # said, not failed, and the column lineage is traced through the pinned SQL still.
    translated = [home / "ansi" / "delay_features.sql", home / "ansi" / "delay_features.json"]
    saved = [path.read_bytes() for path in translated]
    manifest = json.loads(saved[1])
    translated[0].write_text(manifest["ansi_sql"] + "-- translated again\n")
    translated[1].write_text(json.dumps({**manifest, "translator_version": "next-release"}))
    try:
        found = verification(
            written, sources(home, client, instance, repo=REPOSITORY_ROOT, pinned=True)
        )
    finally:
        for path, data in zip(translated, saved, strict=True):
            path.write_bytes(data)
    assert found.differences == []
    assert sorted(note.split(" ")[1] for note in found.superseded) == sorted(map(str, translated))
    check = instance.get_latest_asset_check_evaluation_record(
        dg.AssetCheckKey(AUDIT_BUNDLE_KEY, "audit_bundle_complete")
    )
    assert check.event.dagster_event.event_specific_data.passed


def _audited(home, instance) -> dict:
    """Train (reused), register (reused) and audit again, as a second `plumbline run` over
    unchanged data does; the audit_bundle materialization's metadata."""
    result = dg.materialize(
        [delay_model, registered_model, audit_bundle],
        resources=resources(home),
        instance=instance,
        run_config=TRAIN_AND_REGISTER,
    )
    assert result.success
    events = {
        e.materialization.asset_key.path[-1]: {
            k: v.value for k, v in e.materialization.metadata.items()
        }
        for e in result.get_asset_materialization_events()
    }
    assert events["delay_model"]["reused_training"] is True
    assert events["registered_model"]["reused_registered_version"] is True
    return {**events["audit_bundle"], "run_id": result.run_id}


def test_a_run_over_unchanged_data_reuses_the_bundle_and_rebuilds_a_tampered_one(
    home, client, instance
):
    """Training and registration reused: the newest bundle of the version still stands for
    the chain, so the next run hands it on (same folder, same root digest, nothing written)
    and says so. A bundle whose seal fails is not handed on: a new one is issued beside it,
    and the edited file stays as it is."""
    version_dir = home / "audit" / MODEL / "v1"
    first = _audited(home, instance)
    folders, tags = set(version_dir.iterdir()), client.get_model_version(MODEL, "1").tags
    path = in_home(first["bundle"], home)
    issued = path.read_bytes()
    second = _audited(home, instance)
    assert second["reused_audit_bundle"] is True
    assert (second["bundle"], second["root_digest"]) == (first["bundle"], first["root_digest"])
    assert second["issued_by_run"] == read_bundle(path).data["made_by"]["dagster_run_id"]
    assert second["issued_by_run"] != second["run_id"]
    assert set(version_dir.iterdir()) == folders and path.read_bytes() == issued
    assert client.get_model_version(MODEL, "1").tags == tags  # no new root tag
    assert second["earlier_bundle_refused"].records == []

    edited = json.loads(issued)
    edited["nodes"][0]["content"]["forged"] = True
    path.write_text(json.dumps(edited))
    try:
        rebuilt = _audited(home, instance)
        assert path.read_text() == json.dumps(edited)  # never overwritten
    finally:
        path.write_bytes(issued)  # for the tests that verify every bundle of the version
    assert rebuilt["reused_audit_bundle"] is False
    assert rebuilt["bundle"] != first["bundle"] and rebuilt["issued_by_run"] == rebuilt["run_id"]
    refused = [r.data for r in rebuilt["earlier_bundle_refused"].records]
    assert {
        "link": edited["nodes"][0]["id"],
        "why": "its digest does not match its recorded content",
    } in refused
    new = in_home(rebuilt["bundle"], home)
    assert (
        verify_bundle(
            read_bundle(new),
            sources(home, client, instance, repo=REPOSITORY_ROOT, pinned=True),
            dagster_root_digests=[rebuilt["root_digest"]],
        )
        == []
    )
    # The chain did not change: the new bundle's links are the old one's.
    assert [n.digest for n in read_bundle(new).nodes] == [n.digest for n in read_bundle(path).nodes]

    # Its report is what a reviewer opens: one edited is not handed on either.
    report = new.parent / "report.html"
    report.write_text(report.read_text().replace(rebuilt["root_digest"], "sha256:forged"))
    again = _audited(home, instance)
    assert again["reused_audit_bundle"] is False and again["bundle"] != rebuilt["bundle"]
    [refused] = [r.data for r in again["earlier_bundle_refused"].records]
    assert refused["why"] == f"{new.parent.name}/report.html: not the report of its bundle"


def test_the_new_model_run_registers_scores_and_audits_the_named_model(home, client, instance):
    """What new_model_sensor launches for a delay_model materialized elsewhere: one run of
    register_model_job (registered_model, batch_scores, audit_bundle) naming that training
    in its config. It registers that training (its existing version: no second one), audits
    that run's registration (the same chain: the version's newest bundle is reused), and
    leaves every earlier bundle as issued and verifying. The home's own training registered
    in its run, so the sensor does not follow it; the request is the one it makes for a
    training that did not."""
    from assets.scoring import batch_scores
    from pipelines.automation import new_model_sensor, registration_request

    context = dg.build_sensor_context(instance=instance)
    followed = new_model_sensor.evaluate_tick(context).run_requests
    # The home's training (another test's copied home trains in this instance too).
    trained_run = client.get_model_version(MODEL, "1").run_id
    [training] = [
        record.event_log_entry
        for record in instance.fetch_materializations(delay_model.key, limit=10).records
        if record.asset_materialization.metadata["mlflow_run_id"].value == trained_run
        # Not a later run's reuse of that training.
        and "reused_training" not in record.asset_materialization.metadata
    ]
    assert training.run_id not in {r.tags["plumbline/delay_model_run_id"] for r in followed}
    request = registration_request(training)
    earlier = {
        path: path.read_bytes() for path in (home / "audit" / MODEL / "v1").rglob("bundle.json")
    }
    named = request.run_config["ops"]["models__registered_model"]["config"]
    result = dg.materialize(
        [registered_model, batch_scores, audit_bundle],
        resources=resources(home),
        instance=instance,
        run_config=dg.RunConfig(
            ops={"models__registered_model": {"config": {**named, "baseline_margin": 0.05}}}
        ),
    )
    assert result.success
    events = {
        e.materialization.asset_key.path[-1]: {
            k: v.value for k, v in e.materialization.metadata.items()
        }
        for e in result.get_asset_materialization_events()
    }
    registered, audited = events["registered_model"], events["audit_bundle"]
    assert registered["delay_model_run_id"] == training.run_id
    assert registered["model_source"] == "named by config mlflow_run_id"
    assert registered["version"] == audited["version"] == 1
    assert registered["reused_registered_version"] is True
    assert len(client.search_model_versions(f"name = '{MODEL}'")) == 1
    assert audited["version_source"] == "materialized by this run"
    assert audited["registered_model_run_id"] == result.run_id
    scores = events["batch_scores"]
    assert scores["model_version"] == 1
    lineage = scores["dagster/column_lineage"].deps_by_column
    assert lineage["order_key"] == [
        dg.TableColumnDep(
            asset_key=dg.AssetKey(["warehouse", "open_lines"]), column_name="order_key"
        )
    ]
    assert (
        dg.TableColumnDep(
            asset_key=dg.AssetKey(["warehouse", "open_lines"]), column_name="quantity"
        )
        in lineage["late_probability"]
    )
    schema = {c.name: c for c in scores["dagster/column_schema"].columns}
    assert set(schema) >= {"order_key", "late_probability", "model_version"}
    view = {r.data["column"]: r.data for r in scores["lineage"].records}
    assert "warehouse/open_lines.quantity" in view["late_probability"]["reads"]
    features = {r.data["column"]: r.data for r in scores["model_features"].records}
    assert features["quantity"]["reads"] == "warehouse/training_set.quantity"
    # ...and what that column comes from, as the training set's materialization recorded it.
    upstream = {r.data["column"]: r.data for r in scores["training_set_lineage"].records}
    assert (
        "warehouse/delay_features.quantity" in upstream["warehouse/training_set.quantity"]["reads"]
    )
    # Nothing changed since the version's last bundle: the run hands that one on.
    new_bundle = in_home(audited["bundle"], home)
    assert audited["reused_audit_bundle"] is True and new_bundle in earlier
    for path, content in earlier.items():
        assert path.read_bytes() == content
    for path in [*earlier, new_bundle]:
        # The asset read the real repository (the legacy files' git commits).
        found = sources(home, client, instance, repo=REPOSITORY_ROOT, pinned=True)
        assert verify_bundle(read_bundle(path), found) == [], path


def state(root: Path) -> dict[str, tuple[int, int] | str]:
    """Every entry under ``root``: a file's size and modification time, a link's target."""
    return {
        str(path.relative_to(root)): (
            str(path.readlink())
            if path.is_symlink()
            else (path.stat().st_size, path.stat().st_mtime_ns)
        )
        for path in sorted(root.rglob("*"))
        if path.is_symlink() or path.is_file()
    }


def test_a_copied_home_trains_registers_and_audits_on_its_own(home, instance, tmp_path):
    # Before the tampering tests below change the home. The copy is what `cp -a` makes.
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(home), str(copy)], check=True)
    before = state(home)
    retrain = {"models__delay_model": {"config": {**FAST, "retrain": True}}}
    result = dg.materialize(
        [delay_model, registered_model, audit_bundle],
        resources=resources(copy, max_restarts=0),
        instance=instance,
        # The copied MLflow store holds the original's training of these inputs: train anew.
        run_config=dg.RunConfig(ops={**TRAIN_AND_REGISTER.ops, **retrain}),
    )
    assert result.success
    [event] = [
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.materialization.asset_key == AUDIT_BUNDLE_KEY
    ]
    metadata = {k: v.value for k, v in event.metadata.items()}
    assert in_home(metadata["bundle"], copy).is_file()
    uri = f"sqlite:///{copy / 'mlflow.db'}"
    copied = mlflow.MlflowClient(tracking_uri=uri, registry_uri=uri)
    trained = copied.get_run(copied.get_model_version(MODEL, str(metadata["version"])).run_id)
    assert trained.info.artifact_uri.startswith((copy / "mlartifacts").as_uri())
    assert (
        verify_bundle(
            read_bundle(in_home(metadata["bundle"], copy)),
            sources(copy, copied, instance, repo=REPOSITORY_ROOT, pinned=True),
            dagster_root_digests=[metadata["root_digest"]],
        )
        == []
    )
    assert state(home) == before  # nothing was written into the original


def test_the_bundle_lists_every_upstream_link_with_its_digest(bundle, home):
    lake = Lake(home / "lake")
    tables = {(n.content["zone"], n.content["table"]): n for n in by_kind(bundle, "table")}
    raw = {n.content["table"]: n for n in by_kind(bundle, "raw_table")}
    assert set(tables) == {("warehouse", "delay_features"), ("warehouse", "training_set")}
    assert set(raw) == {"customer", "lineitem", "nation", "orders", "region", "supplier"}
    for node in [*tables.values(), *raw.values()]:
        version = lake.current(node.content["zone"], node.content["table"])
        assert node.content["version"] == version.path.name
        assert node.content["files_digest"] == digest_files(version.path) == version.digest
    # The Dagster run that materialized each table (the raw tables were generated once per
    # test session, in another instance).
    assert all(n.content["dagster"]["run_id"] for n in tables.values())
    assert raw["orders"].content["manifest"]["generator"].startswith("tpchgen-cli")
    training = tables[("warehouse", "training_set")].content
    # Registration pinned every version the model was trained from against pruning, and
    # each bundle issued in the home every version it names.
    issued = {bundle_holder(read_bundle(p)) for p in (home / "audit").rglob("bundle.json")}
    assert issued
    for (zone, table), node in tables.items():
        held = set(lake.pins(zone, table)[node.content["version"]])
        assert {f"{MODEL}@1", *issued} <= held
        assert all(h == f"{MODEL}@1" or h.startswith("bundle-") for h in held), held
    assert sum(training["split"].values()) == training["manifest"]["row_count"]
    assert training["manifest"]["checks"]["training_set_contract"]["passed"]

    [legacy] = by_kind(bundle, "legacy_sql")
    assert legacy.content["path"] == LEGACY and legacy.content["dialect"] == "snowflake"
    assert legacy.content["sha256"] == sha256_bytes((REPOSITORY_ROOT / LEGACY).read_bytes())
    translated = next(n for n in by_kind(bundle, "ansi_sql") if n.id == "ansi:delay_features")
    assert translated.content["rules_applied"] and translated.parents == [legacy.id]
    assert translated.content["built_sha256"] == translated.content["stored_sha256"]

    [run] = by_kind(bundle, "mlflow_run")
    assert {"val_auc", "test_auc", "baseline_val_auc"} <= set(run.content["metrics"])
    assert run.content["tags"]["env.python"]
    assert bundle.data["environment"]["torch"].startswith("2.13")
    assert bundle.gaps == []
    assert bundle.data["dagster_run_ids"]


def test_column_lineage_of_features_reaches_raw_columns(bundle):
    [node] = by_kind(bundle, "column_lineage")
    paths = node.content
    assert len(paths) == 13  # every feature the run recorded

    def raw_columns(feature):
        return {f"{h['table']}.{h['column']}" for h in paths[feature] if h["zone"] == "raw"}

    assert raw_columns("ship_lag_days") == {"lineitem.l_shipdate", "orders.o_orderdate"}
    assert raw_columns("customer_region") == {"region.r_name"}
    assert raw_columns("discount") == {"lineitem.l_discount"}
    legacy_hop = next(h for h in paths["ship_lag_days"] if h["table"] == "delay_features")
    assert legacy_hop["defined_at"].startswith(f"{LEGACY}:")
    assert "DATEDIFF" in legacy_hop["expression"]


def test_verify_passes_then_names_each_tampered_link(bundle, home, client, instance):
    assert verify(bundle, home, client, instance) == []

    # 1. A legacy SQL file is edited.
    legacy = home / "repo" / LEGACY
    original = legacy.read_bytes()
    legacy.write_bytes(original.replace(b"DATEDIFF", b"datediff"))
    try:
        failures = verify(bundle, home, client, instance)
    finally:
        legacy.write_bytes(original)
    assert any(f.startswith(f"legacy:{LEGACY}: sha256: was") for f in failures), failures

    # 2. A lake file is rewritten (same rows, different bytes).
    version = Lake(home / "lake").current("warehouse", "training_set")
    [part] = version.files
    saved = part.read_bytes()
    pq.write_table(pq.read_table(part), part, compression="gzip")
    try:
        failures = verify(bundle, home, client, instance)
    finally:
        part.write_bytes(saved)
    node = f"table:warehouse/training_set@{version.path.name}"
    assert any(f.startswith(f"{node}: the files of warehouse/training_set") for f in failures)

    # 3. An MLflow tag of the model version is changed.
    tags = client.get_model_version(MODEL, "1").tags
    client.set_model_version_tag(MODEL, "1", "val_auc", "0.999")
    try:
        failures = verify(bundle, home, client, instance)
    finally:
        client.set_model_version_tag(MODEL, "1", "val_auc", tags["val_auc"])
    assert f'model:{MODEL}/v1: tags.val_auc: was "{tags["val_auc"]}", now "0.999"' in failures

    # 4. The root digest kept on MLflow is changed.
    client.set_model_version_tag(MODEL, "1", root_tag(bundle), "sha256:forged")
    try:
        failures = verify(bundle, home, client, instance)
    finally:
        client.set_model_version_tag(MODEL, "1", root_tag(bundle), bundle.root_digest)
    assert any("'sha256:forged'" in f for f in failures)

    # 5. The bundle file itself is edited.
    edited = json.loads(json.dumps(bundle.data))
    edited["nodes"][0]["content"]["forged"] = True
    failures = verify(type(bundle)(edited), home, client, instance)
    assert f"{edited['nodes'][0]['id']}: its digest does not match its recorded content" in failures

    assert verify(bundle, home, client, instance) == []


def _appended(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\x00")


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 4)  # no magic bytes, not UTF-8, not JSON, not YAML


def _training_set(name: str | None):
    """A file of the training set's version: a Parquet part, or the file ``name``."""

    def where(home: Path, client) -> tuple[Path, str]:
        version = Lake(home / "lake").current("warehouse", "training_set")
        path = version.files[0] if name is None else version.path / name
        return path, f"table:warehouse/training_set@{version.path.name}"

    return where


def _in_home(relative: str, node: str):
    def where(home: Path, client) -> tuple[Path, str]:
        return home / relative, node

    return where


def _alias_move(home: Path, client) -> tuple[Path, str]:
    history = home / "lake" / "registry" / "alias_history"
    return sorted(history.glob("*.parquet"))[0], f"alias_history:{MODEL}/v1"


def _model_file(name: str):
    def where(home: Path, client) -> tuple[Path, str]:
        source = client.get_model_version(MODEL, "1").source
        return Path(source.removeprefix("file://")) / name, f"model:{MODEL}/v1"

    return where


def _run_artifact(name: str):
    def where(home: Path, client) -> tuple[Path, str]:
        run = client.get_run(client.get_model_version(MODEL, "1").run_id)
        folder = Path(run.info.artifact_uri.removeprefix("file://"))
        return folder / name, f"mlflow_run:{run.info.run_id}"

    return where


# Every kind of file a model's bundle names: (kind, (home, client) -> (the file, its link)).
BUNDLE_FILES = [
    ("lake Parquet", _training_set(None)),
    ("lake manifest", _training_set(MANIFEST)),
    ("stored ANSI SQL", _in_home("ansi/delay_features.sql", "ansi:delay_features")),
    ("translation manifest", _in_home("ansi/delay_features.json", "ansi:delay_features")),
    ("legacy SQL", _in_home(f"repo/{LEGACY}", f"legacy:{LEGACY}")),
    ("alias history", _alias_move),
    ("model weights", _model_file("data/model.pt2")),
    ("MLmodel", _model_file("MLmodel")),
    ("model preprocessing", _model_file("extra_files/preprocessing.json")),
    ("training curve", _run_artifact("curve.png")),
]
CORRUPTIONS = [_appended, _truncated, _garbage]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda c: c.__name__.strip("_"))
@pytest.mark.parametrize(("kind", "where"), BUNDLE_FILES, ids=[k for k, _ in BUNDLE_FILES])
def test_each_file_the_bundle_names_changed_is_a_failed_link(
    bundle, home, client, instance, kind, where, corrupt
):
    """Bytes first: a file truncated, appended to or replaced by garbage fails its link by
    name, whatever it now holds, and nothing crashes on reading it."""
    path, node = where(home, client)
    original = path.read_bytes()
    corrupt(path)
    try:
        failures = verify(bundle, home, client, instance)
    finally:
        path.write_bytes(original)
    named = [f for f in failures if f.startswith(f"{node}: ")]
    assert named, failures


def test_the_command_line_names_a_changed_model_file_and_exits_1(home, client, tmp_path):
    from tests.pipelines.cli.test_main import plumbline_in_process

    env = {"PLUMBLINE_HOME": str(home)}
    out = tmp_path / "audit"
    made = plumbline_in_process("audit", f"{MODEL}@1", "--out", str(out), env=env)
    assert made.exit_code == 0, made.output
    path, node = _model_file("data/model.pt2")(home, client)
    original = path.read_bytes()
    _garbage(path)
    try:
        failed = plumbline_in_process("audit", "--verify", str(out / "bundle.json"), env=env)
    finally:
        path.write_bytes(original)
    assert failed.exit_code == 1, failed.output
    [header, line] = failed.stdout.splitlines()
    assert header.startswith(f"FAILED: 1 link(s) of {MODEL} v1's audit chain")
    assert line.startswith(f"  {node}: files.data/model.pt2: was ")


def test_bad_subjects_are_refused_by_name(client):
    with pytest.raises(AuditError, match="nope: no such registered model"):
        resolve(client, "nope")
    with pytest.raises(AuditError, match="delivery_delay: no version 9"):
        resolve(client, "delivery_delay@9")
    with pytest.raises(AuditError, match="no alias 'gold'"):
        resolve(client, "delivery_delay@gold")
    assert resolve(client, "delivery_delay") == (MODEL, "1")


def test_a_version_registered_outside_plumbline_is_a_gap(home, client, instance):
    source = client.get_model_version(MODEL, "1").source
    outside = client.create_model_version(MODEL, source)
    built = build_bundle(sources(home, client, instance), MODEL, str(outside.version))
    [gap] = built.gaps
    assert "registered outside plumbline" in gap
    failures = [str(d) for d in verify_bundle(built, sources(home, client, instance))]
    assert any("recorded as a gap" in f for f in failures)


def test_a_missing_lake_version_is_a_gap_that_fails_verification(bundle, home, client, instance):
    version = Lake(home / "lake").current("warehouse", "delay_features")
    moved = version.path.with_name(version.path.name + ".moved")
    version.path.rename(moved)
    try:
        built = build_bundle(sources(home, client, instance), MODEL, "1")
        failures = verify(bundle, home, client, instance)
    finally:
        moved.rename(version.path)
    node = f"table:warehouse/delay_features@{version.path.name}"
    assert [g for g in built.gaps if g.startswith(node)]
    assert any("is no longer in the lake" in g for g in built.gaps)
    assert any(f.startswith(node) and "no longer in the lake" in f for f in failures)


def test_the_command_line_audits_verifies_and_exports_openlineage(home, client, tmp_path):
    from tests.pipelines.cli.test_main import plumbline, plumbline_in_process

    env = {"PLUMBLINE_HOME": str(home)}
    out = tmp_path / "audit"
    events_file = tmp_path / "events.jsonl"
    made = plumbline(
        "audit", f"{MODEL}@champion", "--out", str(out), "--openlineage", str(events_file), env=env
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert f"Report: {out / 'report.html'}" in made.stdout
    bundle = read_bundle(out / "bundle.json")
    assert client.get_model_version(MODEL, "1").tags[root_tag(bundle)] == bundle.root_digest
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    jobs = {e["job"]["name"]: e for e in events}
    assert {"translate.delay_features", "build.warehouse.delay_features", f"train.{MODEL}"} <= set(
        jobs
    )
    [output] = jobs["build.warehouse.delay_features"]["outputs"]
    assert output["facets"]["columnLineage"]["fields"]["ship_lag_days"]["inputFields"]
    assert output["facets"]["schema"]["fields"]

    # The console script is exercised above; the verifications, by the same command in process.
    verified = plumbline_in_process("audit", "--verify", str(out / "bundle.json"), env=env)
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.startswith(f"OK: all {len(bundle.nodes)} links")

    client.set_model_version_tag(MODEL, "1", "val_auc", "0.999")
    try:
        failed = plumbline_in_process("audit", "--verify", str(out / "bundle.json"), env=env)
    finally:
        [model] = by_kind(bundle, "model_version")
        client.set_model_version_tag(MODEL, "1", "val_auc", model.content["tags"]["val_auc"])
    assert failed.exit_code == 1, failed.output
    assert f"model:{MODEL}/v1: tags.val_auc: was" in failed.stdout

    # --out names the bundle's folder: a second bundle is never written over the first.
    issued = (out / "bundle.json").read_bytes()
    again = plumbline_in_process("audit", f"{MODEL}@champion", "--out", str(out), env=env)
    assert again.exit_code == 1, again.output
    assert "holds an audit bundle already" in again.stderr
    assert again.stderr.strip().count("\n") == 0
    assert (out / "bundle.json").read_bytes() == issued


def test_two_audits_of_one_version_make_two_folders_that_both_verify(home, client):
    """Without --out every audit of a version gets a folder of its own; the first stays
    byte for byte as issued, and each verifies."""
    from tests.pipelines.cli.test_main import plumbline_in_process

    env = {"PLUMBLINE_HOME": str(home)}
    version_dir = home / "audit" / MODEL / "v1"
    before = set(version_dir.iterdir())
    first = plumbline_in_process("audit", f"{MODEL}@1", env=env)
    assert first.exit_code == 0, first.output
    [first_folder] = set(version_dir.iterdir()) - before
    issued = {p.name: p.read_bytes() for p in first_folder.iterdir()}
    assert set(issued) == {"bundle.json", "report.html"}
    second = plumbline_in_process("audit", f"{MODEL}@1", env=env)
    assert second.exit_code == 0, second.output
    [second_folder] = set(version_dir.iterdir()) - before - {first_folder}
    assert {p.name: p.read_bytes() for p in first_folder.iterdir()} == issued
    assert f"Audit bundle of {MODEL} v1: {second_folder / 'bundle.json'}" in second.stdout
    tags = client.get_model_version(MODEL, "1").tags
    for folder in (first_folder, second_folder):
        bundle = read_bundle(folder / "bundle.json")
        assert tags[folder_tag(bundle)] == f"$PLUMBLINE_HOME/audit/{MODEL}/v1/{folder.name}"
        verified = plumbline_in_process("audit", "--verify", str(folder / "bundle.json"), env=env)
        assert verified.exit_code == 0, verified.output


def test_an_audit_without_registration_audits_the_named_version_only(home, instance):
    """A run of audit_bundle alone audits the configured version; without one it fails
    naming the config key (it never audits "the latest" registration, which another run
    may have made). Last in this module: it adds bundles of version 1."""

    def audit(**config) -> dg.ExecuteInProcessResult:
        return dg.materialize(
            [audit_bundle],
            resources=resources(home),
            run_config=dg.RunConfig(ops={"models__audit_bundle": {"config": config}}),
            instance=instance,
            raise_on_error=False,
        )

    def failure(result) -> str:
        assert not result.success
        return str(result.get_step_failure_events()[0].event_specific_data.error)

    message = failure(audit())
    assert "this run does not register models/registered_model" in message
    assert "ops.models__audit_bundle.config.model_version" in message
    assert "delivery_delay: no version 99" in failure(audit(model_version=99))
    audited = audit(model_version=1)
    assert audited.success
    [event] = audited.get_asset_materialization_events()
    assert event.materialization.metadata["version"].value == 1
    assert event.materialization.metadata["version_source"].value == "named by config model_version"
