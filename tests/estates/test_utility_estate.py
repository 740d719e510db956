"""A utility's metering and billing warehouse (``tests/estates/utility``) migrated the way the
README's "Migrate your own warehouse" says, by a user who has only the commands: three
dialects in one project (Oracle, BigQuery, Redshift), a chain of three Oracle queries each
reading the previous one's output by its legacy name, legacy DDL whose types differ from the
exports as real exports do, a PostgreSQL source beside CSV and Parquet exports, and the
legacy warehouses' own output as snapshots (computed by PostgreSQL, never by plumbline).

Then what a migration lives through: two reruns with nothing changed, a corrected meter
read (its chain rebuilt, nothing else), two runs at once, a source that disappears; and at
the end every audit bundle ever issued in the project still verifies.

No catalog entry is written by hand: the catalogs are what ``catalog import`` writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pytest
import yaml

from pipelines.lake.store import Lake
from tests.estates.utility import estate
from tests.postgres_server import (
    REQUIRE_SETTING,
    PostgresServer,
    PostgresUnavailable,
    postgres_server,
)

BIN = Path(sys.executable).parent
PASSWORD = "northfield-meter-pw"
URL_ENV = "UTILITY_DATABASE_URL"
PROJECT = "northfield"
# What the README promises: from `plumbline init` to the Dagster UI with contracts,
# reconciliation and lineage in this many commands or fewer.
README_COMMAND_BUDGET = 10


@pytest.fixture(scope="module")
def legacy_warehouse() -> Iterator[PostgresServer]:
    """The legacy warehouse: a real PostgreSQL server holding the estate's rows."""
    try:
        with postgres_server(PASSWORD) as server:
            with server.connect() as connection:
                estate.load(connection, estate.generate())
            yield server
    except PostgresUnavailable as unavailable:
        if os.environ.get(REQUIRE_SETTING) == "1":
            pytest.fail(f"{REQUIRE_SETTING}=1 and PostgreSQL cannot start: {unavailable}")
        pytest.skip(f"PostgreSQL cannot start here: {unavailable}")


@dataclass
class User:
    """A user at a shell in the project folder: each `plumbline` command, its exit code and
    output, kept as the transcript of the migration."""

    project: Path
    env: dict[str, str]
    transcript: list[tuple[str, int, str]] = field(default_factory=list)

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        # Output through files, not pipes: a pipe's reader waits for every process holding
        # its other end, and a grandchild left running (a Dagster log mirror) would hold it
        # past the command's exit; the command's own exit is what this waits for.
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            process = subprocess.run(
                [str(BIN / "plumbline"), *args],
                cwd=cwd or self.project,
                env=self.env,
                stdout=out,
                stderr=err,
                text=True,
                timeout=600,
            )
            out.seek(0)
            err.seek(0)
            done = subprocess.CompletedProcess(
                process.args, process.returncode, out.read(), err.read()
            )
        self.record(args, done)
        return done

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [str(BIN / "plumbline"), *args],
            cwd=self.project,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def record(self, args: tuple[str, ...], done: subprocess.CompletedProcess) -> None:
        output = (done.stdout or "") + (done.stderr or "")
        assert PASSWORD not in output, f"plumbline {' '.join(args)} showed the password"
        self.transcript.append(("plumbline " + " ".join(args), done.returncode, output))

    @property
    def home(self) -> Path:
        return Path(self.env["PLUMBLINE_HOME"])

    @property
    def lake(self) -> Lake:
        return Lake(self.home / "lake")

    def bundles(self) -> list[Path]:
        return sorted((self.home / "audit").glob("**/bundle.json"))


def statuses(run_output: str) -> dict[str, str]:
    """The run summary's status of each asset: ``{"warehouse/x": "materialized ..."}``."""
    found = {}
    for line in run_output.splitlines():
        asset, _, rest = line.partition(" ")
        if asset.count("/") == 1 and asset.split("/")[0] in ("raw", "ansi", "warehouse"):
            found[asset] = rest.strip()
    return found


def versions(lake: Lake, zone: str, tables) -> dict[str, str]:
    return {table: lake.current(zone, table).path.name for table in tables}


def digests(lake: Lake) -> dict[str, str]:
    return {t: lake.current("warehouse", t).manifest["content_digest"] for t in estate.QUERIES}


def lay_out_project(root: Path, server: PostgresServer) -> None:
    """What the user puts into the new project with their own tools: the legacy SQL and DDL
    (copied from the legacy repository), the exports and the snapshots (the legacy
    warehouse's export jobs), and the sources declared in the component's defs.yaml."""
    for name, query in estate.QUERIES.items():
        folder = root / "legacy" / query.dialect
        folder.mkdir(exist_ok=True)
        shutil.copy(query.legacy_sql(name), folder / f"{name}.sql")
    shutil.copytree(estate.HERE / "ddl", root / "ddl")
    with server.connect() as connection:
        estate.export_sources(connection, root)
        estate.export_snapshots(connection, root)
    defs = root / PROJECT / "defs" / "warehouse" / "defs.yaml"
    component = yaml.safe_load(defs.read_text())
    component["attributes"] |= {
        "catalogs": [f"catalog_{dialect}.yaml" for dialect in estate.DIALECTS],
        "sources": {
            "customers": {"database": {"url_env": URL_ENV, "table": "utility.customers"}},
            "meters": {"files": "sources/meters.csv"},
            "readings": {"files": "sources/readings/*.parquet"},
            "tariffs": {
                "files": "sources/tariffs.csv",
                "columns": {"unit_rate": "DECIMAL(10,5)", "standing_charge": "DECIMAL(8,4)"},
            },
        },
        "reconciliation": {
            "tables": {
                name: {"key": list(query.key)}
                | ({"tolerance": query.tolerance} if query.tolerance else {})
                for name, query in estate.QUERIES.items()
            }
        },
    }
    defs.write_text(yaml.safe_dump(component, sort_keys=False))


def verify_all(user: User) -> list[tuple[Path, subprocess.CompletedProcess]]:
    """`plumbline audit --verify` of every bundle the project ever issued, three at a time."""
    bundles = user.bundles()

    def verify(bundle: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(BIN / "plumbline"), "audit", "--verify", str(bundle)],
            cwd=user.project,
            env=user.env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(zip(bundles, pool.map(verify, bundles), strict=True))
    for bundle, done in results:
        user.record(("audit", "--verify", str(bundle.relative_to(user.home))), done)
    return results


def test_generator_gives_the_mess_the_estate_claims():
    rows = estate.generate()
    assert rows == estate.generate()  # seeded
    readings, customers, meters = rows["readings"], rows["customers"], rows["meters"]
    assert 2_000 <= len(readings) <= 5_000
    ids = [r[0] for r in readings]
    assert len(set(ids)) == len(ids) and max(ids) <= estate.INTEGER_MAX < max(ids) + 1_000
    times = [r[2].time() for r in readings]
    assert any(t.hour == t.minute == 0 for t in times) and any(t.hour or t.minute for t in times)
    assert {r[3] is None for r in readings} == {True, False}  # failed reads
    assert {None, "A", "E", "a"} <= {r[4] for r in readings}
    emails = [c[2] for c in customers]
    assert None in emails and "" in emails and any(e and e != e.strip() for e in emails)
    assert {None, ""} <= {m[2] for m in meters}
    assert any(c[3] is None for c in customers) and {"North", "NORTH", "north"} <= {
        c[3] for c in customers
    }
    corrected = [r for r in readings if r[0] == estate.CORRECTED_READING]
    assert corrected and corrected[0][3] is not None


@pytest.fixture
def user(legacy_warehouse: PostgresServer, tmp_path: Path) -> Iterator[User]:
    """The user, at a shell with the database URL in its environment; their transcript is
    left in ``transcript.md`` beside the project, whatever happens."""
    root = tmp_path / PROJECT
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env |= {"PLUMBLINE_HOME": str(root / ".plumbline"), URL_ENV: legacy_warehouse.url}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    user = User(root, env)
    yield user
    (tmp_path / "transcript.md").write_text(
        "".join(
            f"$ {command}  # exit {code}\n{output}\n" for command, code, output in user.transcript
        )
    )


@pytest.mark.slow
def test_a_utility_estate_migrates_in_ten_commands_and_stays_verifiable(
    legacy_warehouse: PostgresServer, user: User, tmp_path: Path
):
    root, lake = user.project, user.lake

    # -- The README's "Migrate your own warehouse", command by command. ---------------------
    init = user.run("init", str(root), cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    lay_out_project(root, legacy_warehouse)
    for dialect in estate.DIALECTS:
        imported = user.run(
            "catalog", "import", "--from-sources", "--from", dialect,
            f"ddl/{dialect}.sql", "-o", f"catalog_{dialect}.yaml",
        )  # fmt: skip
        # Oracle's NUMBER(10) as INTEGER, DATE as DATE, BigQuery's INT64 as INTEGER and
        # NUMERIC as DECIMAL(12,3): every value present fits, so the import accepts them.
        assert imported.returncode == 0, imported.stderr
        assert "error" not in imported.stderr, imported.stderr

    first = user.run("run")
    assert first.returncode == 0, first.stdout + first.stderr
    n = len(estate.QUERIES)
    # Every table reconciled against the legacy output; no contract yet: a warning each.
    assert f"checks: {n} passed, 0 failed, {n} warnings" in first.stdout, first.stdout

    drafted = user.run("contracts", "init", "--all")
    assert drafted.returncode == 0, drafted.stderr
    contracts = sorted((root / "contracts").glob("*.yaml"))
    assert [p.stem for p in contracts] == sorted(estate.QUERIES)
    for path in contracts:  # the review
        contract = yaml.safe_load(path.read_text())
        contract["status"] = "active"
        path.write_text(yaml.safe_dump(contract, sort_keys=False))
    lint = user.run("contracts", "lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr

    guarded = user.run("run")
    assert guarded.returncode == 0, guarded.stdout + guarded.stderr
    assert f"checks: {2 * n} passed, 0 failed, 0 warnings" in guarded.stdout, guarded.stdout
    readme_commands = len(user.transcript) + 1  # and `plumbline ui`
    assert readme_commands <= README_COMMAND_BUDGET, [c for c, _, _ in user.transcript]

    # The audit trail without a model: a bundle per table that verifies, from the table down
    # to its legacy files and sources; the report's bundle reaches the whole chain.
    for table in estate.QUERIES:
        audited = user.run("audit", f"warehouse/{table}")
        assert audited.returncode == 0, audited.stdout + audited.stderr
    [report] = (user.home / "audit" / "warehouse" / "billing_report").glob("*/*/bundle.json")
    nodes = json.loads(report.read_text())["nodes"]
    legacy = {n["title"] for n in nodes if n["kind"] == "legacy_sql"}
    assert legacy == {str(root / "legacy" / "oracle" / f"{t}.sql") for t in estate.CHAIN}
    raw = {n["title"] for n in nodes if n["kind"] == "raw_table"}
    assert raw == {f"raw/{s}" for s in estate.READS["billing_report"]}

    # -- Two reruns with nothing changed: nothing rebuilt, every version kept. --------------
    published = versions(lake, "warehouse", estate.QUERIES)
    for _ in range(2):
        rerun = user.run("run")
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        status = statuses(rerun.stdout)
        for table in estate.QUERIES:
            assert "skipped" in status[f"warehouse/{table}"], rerun.stdout
        assert versions(lake, "warehouse", estate.QUERIES) == published

    # -- A corrected meter read: its chain is rebuilt to new content, nothing else. ---------
    before = digests(lake)
    sources_before = versions(lake, "raw", ("customers", "meters", "readings", "tariffs"))
    with legacy_warehouse.connect() as connection:
        estate.correct_reading(connection, root)
        estate.export_snapshots(connection, root)
    corrected = user.run("run")
    assert corrected.returncode == 0, corrected.stdout + corrected.stderr
    sources_after = versions(lake, "raw", sources_before)
    assert [s for s in sources_before if sources_after[s] != sources_before[s]] == ["readings"]
    after = digests(lake)
    assert {t for t in estate.QUERIES if after[t] != before[t]} == set(estate.CHAIN)
    rebuilt = versions(lake, "warehouse", estate.QUERIES)
    assert {t for t in estate.QUERIES if rebuilt[t] != published[t]} == set(estate.CHAIN)
    status = statuses(corrected.stdout)
    for table in estate.QUERIES:
        if "readings" not in estate.READS[table]:
            assert "skipped" in status[f"warehouse/{table}"], corrected.stdout
    # The report's new bundle covers the whole rebuilt chain.
    audited = user.run("audit", "warehouse/billing_report")
    assert audited.returncode == 0, audited.stdout + audited.stderr

    # -- Two runs at once over a changed source: both succeed, and the previous good version
    # of what they rebuild stays beside the new one. -----------------------------------------
    contacts_before = lake.current("warehouse", "customer_contacts")
    with legacy_warehouse.connect() as connection:
        estate.change_email(connection)
        estate.export_snapshots(connection, root)
    runs = [user.start("run") for _ in range(2)]
    for process in runs:
        output, _ = process.communicate(timeout=600)
        user.record(("run",), subprocess.CompletedProcess([], process.returncode, output, ""))
        assert process.returncode == 0, output
    contacts = lake.current("warehouse", "customer_contacts")
    assert contacts.path != contacts_before.path and contacts_before.path.is_dir()
    copies = [
        version.name
        for version in contacts.path.parent.iterdir()
        if (manifest := lake.manifest("warehouse", "customer_contacts", version.name))
        and manifest["digest"] == contacts.digest
    ]
    assert copies == [contacts.path.name]  # one content, one version
    customer, email = estate.NEW_EMAIL
    [(shown,)] = duckdb.execute(
        "SELECT contact_email FROM read_parquet(?) WHERE customer_id = ?",
        [str(contacts.path / "*.parquet"), customer],
    ).fetchall()
    assert shown == email.strip().lower()
    audited = user.run("audit", "warehouse/customer_contacts")
    assert audited.returncode == 0, audited.stdout + audited.stderr

    # -- The live table disappears: one line naming the source, its last good version kept.
    kept = lake.current("raw", "customers")
    with legacy_warehouse.connect() as connection:
        connection.execute("DROP TABLE utility.customers")
    dropped = user.run("run")
    assert dropped.returncode == 1
    [failed] = [
        line
        for line in dropped.stdout.splitlines()
        if line.strip().startswith("FAILED") and "raw/customers" in line
    ]
    assert f"source raw.customers (postgresql table utility.customers via ${URL_ENV})" in failed
    assert lake.current("raw", "customers") == kept and lake.verify(kept)

    # -- At the end, every bundle ever issued in the project still verifies. ---------------
    results = verify_all(user)
    assert len(results) == n + 2
    failures = {str(b): d.stdout + d.stderr for b, d in results if d.returncode != 0}
    assert not failures, failures
    for table in estate.QUERIES:
        assert lake.verify(lake.current("warehouse", table))
