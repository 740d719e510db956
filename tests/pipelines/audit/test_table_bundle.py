"""The audit bundle of a warehouse table, for a project without a model: a user's own project
(``plumbline init``, outside this repository, with its legacy SQL, a table written in ANSI SQL
and a CSV export of its own), built by Dagster into a real lake and a real instance, then
audited, verified and tampered with through the command line, with no MLflow anywhere; and a
TPC-H demo table, whose legacy file lies in this repository."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow.parquet as pq
import pytest

from pipelines.audit.bundle import BUNDLE_FILE, check_bundle, read_bundle
from pipelines.audit.chain import AuditError, bundle_root_digest, digest
from pipelines.audit.collect import file_record, recorded_path
from pipelines.audit.pinned import PinnedFiles
from pipelines.cli.init import init_project
from pipelines.lake.store import Lake
from pipelines.translation.store import sha256_bytes
from sql.paths import REPOSITORY_ROOT
from tests.pipelines.audit.test_report import Page
from tests.pipelines.cli.test_main import plumbline_in_process
from tests.pipelines.test_component import (
    CATALOG,
    ORDERS_CSV,
    SNOWFLAKE,
    project_defs,
    write_attributes,
)

HOME = ".plumbline"  # where `plumbline init`'s .gitignore expects the project's home
TABLE = "store_totals"
# A second legacy table, which the legacy warehouse's own output (the snapshot below)
# disagrees with: its blocking reconciliation refuses every build, so it is never published.
REFUSED = "store_orders"
STORE_ORDERS = """\
SELECT store, COUNT(*) AS orders
FROM SHOP.PUBLIC.ORDERS
GROUP BY store
"""
REFUSED_SNAPSHOT = "store,orders\nlima,2\noslo,3\n"
# A chain of three migrated queries (raw -> daily_revenue -> store_summary -> store_ticket):
# each file reads the one before by a name of the legacy warehouse, with no catalog entry
# (bare), or with only its legacy name mapped (no columns: they come from the translation).
CHAIN = {
    "store_summary": """\
SELECT store, SUM(revenue) AS revenue, SUM(orders) AS orders
FROM DAILY_REVENUE
GROUP BY store
""",
    "store_ticket": """\
SELECT store, revenue / orders AS ticket
FROM REPORTING.STORE_SUMMARY
""",
}
CHAIN_CATALOG = CATALOG + "    REPORTING.STORE_SUMMARY: warehouse.store_summary\n"
# Written in ANSI SQL from the start, over the translated daily_revenue: two warehouse levels.
STORE_TOTALS = """\
SELECT "d"."store" AS "store", SUM("d"."revenue") AS "revenue", SUM("d"."orders") AS "orders"
FROM "warehouse"."daily_revenue" AS "d"
GROUP BY "d"."store"
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    """The project, every table materialized (store_orders refused) into its home, with
    the Dagster instance `plumbline run` would use there."""
    root = tmp_path_factory.mktemp("projects") / "shop"
    init_project(root)
    legacy = root / "legacy" / "snowflake"
    legacy.mkdir()
    (legacy / "daily_revenue.sql").write_text(SNOWFLAKE)
    (legacy / f"{REFUSED}.sql").write_text(STORE_ORDERS)
    for name, text in CHAIN.items():
        (legacy / f"{name}.sql").write_text(text)
    (root / "portable").mkdir()
    (root / "portable" / f"{TABLE}.sql").write_text(STORE_TOTALS)
    (root / "catalog.yaml").write_text(CHAIN_CATALOG)
    (root / "sources" / "orders").mkdir()
    (root / "sources" / "orders" / "orders.csv").write_text(ORDERS_CSV)
    (root / "snapshots" / f"{REFUSED}.csv").write_text(REFUSED_SNAPSHOT)
    write_attributes(
        root,
        sources={"orders": {"files": "sources/orders/*.csv"}},
        portable_sql="portable",
        reconciliation={"tables": {REFUSED: {"key": ["store"]}}},
    )
    home = root / HOME
    (home / "dagster").mkdir(parents=True)
    (home / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        result = (
            project_defs(root, home)
            .resolve_job_def("materialize_all_job")
            .execute_in_process(instance=instance, raise_on_error=False)
        )
    failed = {e.step_key for e in result.get_step_failure_events()}
    assert failed == {f"warehouse__{REFUSED}"}, failed
    return root


def lake(shop: Path) -> Lake:
    return Lake(shop / HOME / "lake")


def audit(shop: Path, *args: str, **env: str):
    """``plumbline audit ARGS`` in process, run in the project's folder with its home."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(shop)
        return plumbline_in_process("audit", *args, env={"PLUMBLINE_HOME": str(shop / HOME), **env})


@pytest.fixture(scope="module")
def issued(shop) -> Path:
    """The bundle `plumbline audit warehouse/store_totals` issues into the home."""
    made = audit(shop, f"warehouse/{TABLE}")
    assert made.exit_code == 0, made.output
    [line] = [line for line in made.stdout.splitlines() if line.startswith("Audit bundle of ")]
    return Path(line.rpartition(": ")[2])


def by_kind(bundle, kind: str) -> list:
    return [n for n in bundle.nodes if n.kind == kind]


def test_the_bundle_is_rooted_at_the_table_and_reaches_its_legacy_file_and_raw_data(shop, issued):
    bundle = read_bundle(issued)
    version = lake(shop).current("warehouse", TABLE).path.name
    assert bundle.subject == {
        "table": f"warehouse/{TABLE}",
        "version": version,
        "requested": f"warehouse/{TABLE}",
    }
    assert bundle.data["root"] == f"table:warehouse/{TABLE}@{version}"
    # A folder of its own under the table's version, named by its time and root digest.
    folder = issued.parent
    assert folder.parent == shop / HOME / "audit" / "warehouse" / TABLE / version
    assert folder.name.endswith("-" + bundle.root_digest.removeprefix("sha256:")[:12])
    assert bundle.gaps == []
    assert not by_kind(bundle, "model_version") and not by_kind(bundle, "mlflow_run")
    assert not (shop / HOME / "mlflow.db").exists()

    tables = {n.content["table"]: n for n in by_kind(bundle, "table")}
    assert set(tables) == {TABLE, "daily_revenue"}
    [raw] = by_kind(bundle, "raw_table")
    assert raw.content["table"] == "orders"
    for node in [*tables.values(), raw]:
        current = lake(shop).current(node.content["zone"], node.content["table"])
        assert node.content["version"] == current.path.name
        assert node.content["files_digest"] == current.digest
        assert node.content["dagster"]["run_id"]  # the run in the project's instance
    assert set(bundle.data["dagster_run_ids"]) == {
        n.content["dagster"]["run_id"] for n in [*tables.values(), raw]
    }

    # The project's files lie outside this repository: named by their absolute paths.
    legacy_file = shop / "legacy" / "snowflake" / "daily_revenue.sql"
    [legacy] = by_kind(bundle, "legacy_sql")
    assert legacy.id == f"legacy:{legacy_file}"
    assert legacy.content["path"] == str(legacy_file)
    assert legacy.content["dialect"] == "snowflake"
    assert legacy.content["sha256"] == sha256_bytes(legacy_file.read_bytes())
    sql = {n.id: n for n in by_kind(bundle, "ansi_sql")}
    assert sql["ansi:daily_revenue"].parents == [legacy.id]
    assert sql["ansi:daily_revenue"].content["written_in"] == "translation"
    portable = sql[f"ansi:{TABLE}"].content
    assert portable["written_in"] == "ansi"
    assert portable["path"] == str(shop / "portable" / f"{TABLE}.sql")
    assert portable["sha256"] == portable["built_sha256"]


def test_the_command_line_prints_where_the_bundle_is_and_its_root(shop, issued):
    bundle = read_bundle(issued)
    first = issued.read_bytes()
    again = audit(shop, f"warehouse/{TABLE}")
    assert again.exit_code == 0, again.output
    lines = again.stdout.splitlines()
    assert lines[0].startswith(f"Audit bundle of warehouse/{TABLE}@{bundle.subject['version']}: ")
    second = Path(lines[0].rpartition(": ")[2])
    # A folder of its own beside the first, which stays as it was issued.
    assert second.parent.parent == issued.parent.parent and second != issued
    assert issued.read_bytes() == first
    assert lines[1] == f"Report: {second.parent / 'report.html'}"
    assert lines[2].startswith("Root digest: sha256:")
    verified = audit(shop, "--verify", str(issued))
    assert verified.exit_code == 0, verified.output
    assert verified.stdout == (
        f"OK: all {len(bundle.nodes)} links of warehouse/{TABLE}@{bundle.subject['version']}'s "
        f"audit chain hold (root {bundle.root_digest})\n"
    )


def test_a_chain_of_migrated_queries_is_built_audited_and_linted(shop, tmp_path):
    """Three legacy files, each reading the one before: the graph draws it (the translation
    too waits for the table it reads), each level was built in the fixture's one run, the
    bundle of the last reaches the raw data through every level and verifies, and the
    contract lint plans every level."""
    graph = project_defs(shop, tmp_path / "home").resolve_asset_graph()
    for name, upstream in (("store_summary", "daily_revenue"), ("store_ticket", "store_summary")):
        for zone in ("ansi", "warehouse"):
            parents = graph.get(dg.AssetKey([zone, name])).parent_keys
            assert dg.AssetKey(["warehouse", upstream]) in parents
    made = audit(shop, "warehouse/store_ticket")
    assert made.exit_code == 0, made.output
    path = Path(made.stdout.splitlines()[0].rpartition(": ")[2])
    bundle = read_bundle(path)
    assert bundle.gaps == []
    tables = {n.content["table"]: n for n in by_kind(bundle, "table")}
    assert set(tables) == {"store_ticket", "store_summary", "daily_revenue"}
    summary = lake(shop).current("warehouse", "store_summary").path.name
    assert tables["store_ticket"].content["manifest"]["inputs"] == {
        "warehouse.store_summary": summary
    }
    [raw] = by_kind(bundle, "raw_table")
    assert raw.content["table"] == "orders"
    legacy = {Path(n.content["path"]).name for n in by_kind(bundle, "legacy_sql")}
    assert legacy == {"daily_revenue.sql", "store_summary.sql", "store_ticket.sql"}
    verified = audit(shop, "--verify", str(path))
    assert verified.exit_code == 0, verified.output

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(shop)
        linted = plumbline_in_process("contracts", "lint", env={"PLUMBLINE_HOME": str(shop / HOME)})
    # No contract is written in this project: one problem per table, and nothing else.
    assert linted.exit_code == 1
    problems = linted.stdout.splitlines()
    assert len(problems) == 5 and all("has no contract" in line for line in problems), problems


@contextlib.contextmanager
def changed(path: Path, change: Callable[[Path], None]) -> Iterator[None]:
    saved, mode = path.read_bytes(), path.stat().st_mode
    path.chmod(mode | 0o200)  # a pinned copy is kept read-only: an edit is deliberate
    change(path)
    try:
        yield
    finally:
        path.write_bytes(saved)
        path.chmod(mode)


def _recompressed(path: Path) -> None:
    pq.write_table(pq.read_table(path), path, compression="gzip")  # same rows, other bytes


def _edited(path: Path) -> None:
    path.write_text(path.read_text().replace("SUM(", "sum("))


def _raw_file(shop: Path, issued: Path) -> tuple[Path, str, str]:
    version = lake(shop).current("raw", "orders")
    name = version.path.name
    return (
        version.files[0],
        f"table:raw/orders@{name}",
        f"the files of raw/orders {name} no longer match the digest in its manifest",
    )


def _pinned(shop: Path, issued: Path, node_id: str, role: str) -> tuple[Path, str, str]:
    """The copy of a SQL file the bundle pinned when it was issued: what verification
    reads for its link (the file itself may change legitimately since)."""
    [node] = [n for n in read_bundle(issued).nodes if n.id == node_id]
    path = PinnedFiles(shop / HOME / "audit").path(node.content["pinned"][role])
    return path, node_id, f"the pinned copy {path} was altered"


def _legacy_file(shop: Path, issued: Path) -> tuple[Path, str, str]:
    legacy = shop / "legacy" / "snowflake" / "daily_revenue.sql"
    return _pinned(shop, issued, f"legacy:{legacy}", "file")


def _stored_ansi(shop: Path, issued: Path) -> tuple[Path, str, str]:
    return _pinned(shop, issued, "ansi:daily_revenue", "sql")


def _portable_ansi(shop: Path, issued: Path) -> tuple[Path, str, str]:
    return _pinned(shop, issued, f"ansi:{TABLE}", "file")


def _appended(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\x00")


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 4)  # no magic bytes, not UTF-8, not JSON


def _stored_manifest(shop: Path, issued: Path) -> tuple[Path, str, str]:
    return _pinned(shop, issued, "ansi:daily_revenue", "manifest")


# (which file, how it is changed): each makes verification fail naming that link alone.
TAMPERING = [
    ("raw parquet file", _raw_file, _recompressed),
    ("legacy SQL file", _legacy_file, _edited),
    ("stored ANSI SQL", _stored_ansi, _edited),
    ("portable ANSI SQL", _portable_ansi, _edited),
] + [
    # Bytes, whatever they now hold: a file no longer readable is a failed link, not a crash.
    (f"{kind} {how.__name__.strip('_')}", where, how)
    for kind, where in (
        ("raw parquet file", _raw_file),
        ("legacy SQL file", _legacy_file),
        ("stored ANSI SQL", _stored_ansi),
        ("portable ANSI SQL", _portable_ansi),
        ("stored translation manifest", _stored_manifest),
    )
    for how in (_appended, _truncated, _garbage)
]


@pytest.mark.parametrize(("case", "where", "change"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_verify_names_each_tampered_link(shop, issued, case, where, change):
    path, node, message = where(shop, issued)
    with changed(path, change):
        failed = audit(shop, "--verify", str(issued))
    assert failed.exit_code == 1, failed.output
    [header, *lines] = failed.stdout.splitlines()
    assert header.startswith("FAILED: ") and f"of warehouse/{TABLE}@" in header
    named = [line for line in lines if line.startswith(f"  {node}: ")]
    assert named and any(message in line for line in named), failed.stdout
    # Only that link fails; what it alone linked to is reported unreachable, never as
    # changed.
    others = [line for line in lines if line not in named]
    assert all(line.endswith("no longer reachable from the chain's root") for line in others)
    assert audit(shop, "--verify", str(issued)).exit_code == 0  # restored: all hold again


def test_sql_files_changed_since_the_bundle_are_said_and_verify(shop, issued):
    """The SQL files as they are now are not what the bundle describes: it describes the
    copies it pinned (the lake version it names was built from them). A file changed since,
    however, is said: the reviewer learns the bundle is not of the current SQL."""
    legacy = shop / "legacy" / "snowflake" / "daily_revenue.sql"
    ansi = shop / HOME / "ansi"
    files = [legacy, ansi / "daily_revenue.sql", ansi / "daily_revenue.json"]
    files.append(shop / "portable" / f"{TABLE}.sql")
    with contextlib.ExitStack() as stack:
        for path in files:
            stack.enter_context(changed(path, _appended))
        verified = audit(shop, "--verify", str(issued))
    assert verified.exit_code == 0, verified.output
    [ok, *notes] = verified.stdout.splitlines()
    assert ok.startswith("OK: ")
    assert sorted(line.split(" ")[7] for line in notes) == sorted(map(str, files))
    assert all(line.startswith("  superseded since the bundle: ") for line in notes)


def test_a_table_bundle_of_format_2_still_verifies(shop, issued, tmp_path):
    """Format 3 added a model's MLflow files to its bundle; a table's chain reads no MLflow,
    so a table's bundle issued as format 2 holds all it did and verifies as before."""
    data = json.loads(issued.read_text())
    data["format"] = "plumbline.audit/2"
    data["field_digests"]["format"] = digest(data["format"])
    root = next(n for n in data["nodes"] if n["id"] == data["root"])
    data["root_digest"] = bundle_root_digest(root["digest"], data["field_digests"])
    older = tmp_path / BUNDLE_FILE
    older.write_text(json.dumps(data))
    verified = audit(shop, "--verify", str(older))
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.startswith("OK: ")


def test_no_mlflow_is_needed_or_reached(shop, tmp_path):
    # An MLflow server nothing listens on: a model's audit gives up on it, a table's never
    # asks.
    unreachable = {"PLUMBLINE_MLFLOW_URI": "http://127.0.0.1:9"}
    out = tmp_path / "bundle"
    made = audit(shop, "warehouse/daily_revenue", "--out", str(out), **unreachable)
    assert made.exit_code == 0, made.output
    assert made.stdout.splitlines()[0].endswith(f": {out / BUNDLE_FILE}")
    verified = audit(shop, "--verify", str(out / BUNDLE_FILE), **unreachable)
    assert verified.exit_code == 0, verified.output
    model = audit(shop, "delivery_delay", **unreachable)
    assert model.exit_code == 1
    assert "127.0.0.1:9" in model.stderr
    # --out names the bundle's folder: never written over.
    issued = (out / BUNDLE_FILE).read_bytes()
    again = audit(shop, "warehouse/daily_revenue", "--out", str(out))
    assert again.exit_code == 1
    assert "holds an audit bundle already" in again.stderr
    assert (out / BUNDLE_FILE).read_bytes() == issued


def test_a_table_bundle_exports_its_chain_as_openlineage_events(shop, tmp_path):
    events_file = tmp_path / "events.jsonl"
    made = audit(
        shop, f"warehouse/{TABLE}", "--out", str(tmp_path / "b"), "--openlineage", str(events_file)
    )
    assert made.exit_code == 0, made.output
    jobs = {
        event["job"]["name"]: event
        for event in map(json.loads, events_file.read_text().splitlines())
    }
    assert set(jobs) >= {
        "translate.daily_revenue",
        "build.warehouse.daily_revenue",
        f"build.warehouse.{TABLE}",
    }
    [legacy] = jobs["translate.daily_revenue"]["inputs"]
    assert legacy["name"] == str(shop / "legacy" / "snowflake" / "daily_revenue.sql")
    assert [i["name"] for i in jobs[f"build.warehouse.{TABLE}"]["inputs"]] == [
        "warehouse.daily_revenue"
    ]


def test_a_table_bundle_imports_no_mlflow(shop, tmp_path):
    """In a process of its own (this one has imported MLflow for other tests)."""
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from pipelines.cli.main import main\n"
        f"done = CliRunner().invoke(main, ['audit', 'warehouse/{TABLE}', '--out', {str(tmp_path / 'b')!r}])\n"
        "assert done.exit_code == 0, done.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mlflow', 'torch')))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    environment["PLUMBLINE_HOME"] = str(shop / HOME)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=shop,
        env={**environment, "PYTHONPATH": str(REPOSITORY_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


# (subject, exit code, what the one line says)
REFUSED_SUBJECTS = [
    ("warehouse/", 2, "'warehouse/': expected warehouse/TABLE[@VERSION]"),
    ("/daily_revenue", 2, "expected warehouse/TABLE[@VERSION]"),
    ("warehouse/a/b", 2, "expected warehouse/TABLE[@VERSION]"),
    ("warehouse/.hidden", 2, "expected warehouse/TABLE[@VERSION]"),
    ("warehouse/daily_revenue@", 2, "expected warehouse/TABLE[@VERSION]"),
    ("warehouse/daily_revenue@3", 2, "VERSION must be a lake version name"),
    ("warehouse/daily_revenue@1/../x", 2, "VERSION must be a lake version name"),
    ("raw/orders", 1, "raw/orders: only a warehouse table has an audit bundle of its own"),
    ("warehouse/nope", 1, "warehouse/nope: the lake at"),
    (f"warehouse/{REFUSED}", 1, f"warehouse/{REFUSED}: the lake at"),
    (
        "warehouse/daily_revenue@20200101T000000.000000000-0123456789ab",
        1,
        "warehouse/daily_revenue: the lake at",
    ),
]


@pytest.mark.parametrize(
    ("subject", "code", "message"), REFUSED_SUBJECTS, ids=[s[0] for s in REFUSED_SUBJECTS]
)
def test_a_subject_that_names_no_published_table_is_one_line(shop, subject, code, message):
    before = sorted((shop / HOME).rglob("*"))
    refused = audit(shop, subject)
    assert refused.exit_code == code, refused.output
    assert isinstance(refused.exception, SystemExit)  # not a traceback
    assert refused.stdout == ""
    [line] = refused.stderr.splitlines()
    assert line.startswith("plumbline: error: ") and message in line
    assert sorted((shop / HOME).rglob("*")) == before  # nothing written


def test_the_refusals_say_what_the_lake_holds(shop):
    [line] = audit(shop, "warehouse/nope").stderr.splitlines()
    assert (
        "published warehouse tables: daily_revenue, store_summary, store_ticket, store_totals"
        in line
    )
    version = lake(shop).current("warehouse", "daily_revenue").path.name
    [line] = audit(shop, "warehouse/daily_revenue@20200101T000000.000000000-0").stderr.splitlines()
    assert line.endswith(f"the published version is {version}")


def test_a_table_version_named_explicitly_is_that_version(shop, tmp_path):
    version = lake(shop).current("warehouse", "daily_revenue").path.name
    subject = f"warehouse/daily_revenue@{version}"
    made = audit(shop, subject, "--out", str(tmp_path / "pinned"))
    assert made.exit_code == 0, made.output
    bundle = read_bundle(tmp_path / "pinned" / BUNDLE_FILE)
    assert bundle.subject["requested"] == subject and bundle.subject["version"] == version


def test_the_report_reads_from_the_table_down_with_no_model_section(shop, issued):
    bundle = read_bundle(issued)
    html = (issued.parent / "report.html").read_text()
    page = Page(html)
    assert page.text_by_id["root-digest"].strip() == bundle.root_digest
    assert "from the table down to the raw data" in page.text_by_id["status"]
    headings = [
        " ".join(text.split())
        for text in html.split("<h2>")[1:]
        for text in [
            text.split("</h2>")[0].replace('<span class="step">', "").replace("</span>", "")
        ]
    ]
    assert headings == [
        "In brief",
        "Root digest",
        "1 Warehouse tables",
        "2 SQL",
        "3 Legacy SQL files",
        "4 Raw data",
        "5 Environment",
        "Appendix: every link in the chain",
    ]
    assert "table audit report" in html and "MLflow" not in html
    assert str(shop / "legacy" / "snowflake" / "daily_revenue.sql") in html
    version = bundle.subject["version"]
    assert f"warehouse/{TABLE} version {version} holds 2 rows" in html
    assert "It was built from 1 other warehouse table (daily_revenue)" in html
    # The raw table's origin: the project's CSV export, each file with its sha256 when read.
    export = shop / "sources" / "orders" / "orders.csv"
    assert f"csv files {shop / 'sources' / 'orders' / '*.csv'}" in html
    assert str(export) in html and sha256_bytes(export.read_bytes())[:12] in html
    for scheme in ("http://", "https://", "@import", "src=", "href="):
        assert scheme not in html


@pytest.fixture
def written(issued) -> dict[str, Any]:
    return json.loads(issued.read_text())


def test_a_table_bundle_passes_its_own_checks_and_an_edit_of_its_subject_fails(written, tmp_path):
    path = tmp_path / BUNDLE_FILE
    path.write_text(json.dumps(written))
    assert check_bundle(read_bundle(path)) == []
    edited = copy.deepcopy(written)
    edited["subject"]["table"] = "warehouse/daily_revenue"
    path.write_text(json.dumps(edited))
    found = [str(d) for d in check_bundle(read_bundle(path))]
    assert any(line.startswith("field subject:") for line in found), found
    assert any(line.startswith("field root:") for line in found), found


def _subject(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["subject"].update(fields)


# (case, an edit of a table bundle, what the one line says)
MALFORMED_SUBJECTS = [
    ("both kinds", _subject(model="delivery_delay"), "field subject names both a model and a"),
    ("neither", lambda d: d["subject"].pop("table"), "field subject names neither a model nor"),
    ("no zone", _subject(table=TABLE), f'field subject.table is "{TABLE}": not ZONE/TABLE'),
    ("a path", _subject(table="warehouse/../x"), "not ZONE/TABLE"),
    ("not a string", _subject(table=3), "field subject.table must be a string, not a number"),
    ("version", _subject(version="../../x"), 'subject.version is "../../x": not a lake version'),
    ("requested", lambda d: d["subject"].pop("requested"), "field subject.requested is missing"),
]


@pytest.mark.parametrize(
    ("case", "edit", "message"), MALFORMED_SUBJECTS, ids=[m[0] for m in MALFORMED_SUBJECTS]
)
def test_a_malformed_table_subject_is_refused_in_one_line(written, tmp_path, case, edit, message):
    edited = copy.deepcopy(written)
    edit(edited)
    path = tmp_path / BUNDLE_FILE
    path.write_text(json.dumps(edited))
    with pytest.raises(AuditError) as refused:
        read_bundle(path)
    assert str(refused.value).startswith(f"{path}: ")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("inside", "shown"),
    [(True, "sql/legacy/snowflake/delay_features.sql"), (False, None)],
    ids=["in the repository", "outside it"],
)
def test_a_file_is_named_relative_to_the_repository_only_when_it_lies_there(shop, inside, shown):
    path = (
        REPOSITORY_ROOT / "sql" / "legacy" / "snowflake" / "delay_features.sql"
        if inside
        else shop / "legacy" / "snowflake" / "daily_revenue.sql"
    )
    expected = shown or str(path)
    assert recorded_path(REPOSITORY_ROOT, path) == expected
    record = file_record(REPOSITORY_ROOT, path)
    assert record["path"] == expected
    assert record["sha256"] == sha256_bytes(path.read_bytes())
    if inside:
        # The git state of this checkout (a commit, or None in an export without .git).
        assert record["git_commit"] is None or len(record["git_commit"]) == 40
    else:
        # The project is no git checkout: no state, rather than this repository's.
        assert record["git_commit"] is None and record["uncommitted_changes"] is None


DEMO_TABLE = "delay_features"
DEMO_LEGACY = "sql/legacy/snowflake/delay_features.sql"


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory, raw_lake_root) -> Path:
    """A home of the TPC-H demo over the session's raw lake (scale 0.01), delay_features
    translated from the repository's legacy file and built, in a Dagster instance of its own."""
    from assets.ansi import build_ansi_assets
    from assets.warehouse import build_warehouse_definitions
    from pipelines.resources import resources_for
    from pipelines.settings import Settings
    from sql.paths import CONTRACTS_ROOT

    home = tmp_path_factory.mktemp("demo")
    (home / "lake").mkdir()
    (home / "lake" / "raw").symlink_to(raw_lake_root / "raw")
    from tests.legacy import demo_legacy

    warehouse = build_warehouse_definitions("duckdb", demo_legacy(), contracts_root=CONTRACTS_ROOT)
    assets = [
        a
        for a in [*build_ansi_assets(demo_legacy()), *warehouse.assets]  # type: ignore[union-attr]
        if a.key.path[-1] == DEMO_TABLE
    ]
    (home / "dagster").mkdir()
    (home / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        resources = resources_for(Settings(home=home, scale=0.01))
        assert dg.materialize(assets, resources=resources, instance=instance).success
    return home


def test_a_demo_table_names_its_legacy_file_relative_to_the_repository(demo_home, tmp_path):
    env = {"PLUMBLINE_HOME": str(demo_home)}
    out = tmp_path / "bundle"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPOSITORY_ROOT)  # the demo's project
        made = plumbline_in_process("audit", f"warehouse/{DEMO_TABLE}", "--out", str(out), env=env)
        assert made.exit_code == 0, made.output
        verified = plumbline_in_process("audit", "--verify", str(out / BUNDLE_FILE), env=env)
    assert verified.exit_code == 0, verified.output
    bundle = read_bundle(out / BUNDLE_FILE)
    [legacy] = by_kind(bundle, "legacy_sql")
    assert legacy.id == f"legacy:{DEMO_LEGACY}" and legacy.content["path"] == DEMO_LEGACY
    assert legacy.content["sha256"] == sha256_bytes((REPOSITORY_ROOT / DEMO_LEGACY).read_bytes())
    [table] = by_kind(bundle, "table")
    assert bundle.data["root"] == table.id and table.content["dagster"]["run_id"]
    inputs = table.content["manifest"]["inputs"]
    assert {
        f"raw.{n.content['table']}": n.content["version"] for n in by_kind(bundle, "raw_table")
    } == inputs
    assert bundle.gaps == []
