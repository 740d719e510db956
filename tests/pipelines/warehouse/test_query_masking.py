"""`plumbline query` masks what the contracts classify, as check results do (issue 44: it
printed restricted names in the clear). A real home on tmp_path: a published warehouse table
guarded by its real contract (sql/contracts/customer_profile.yaml, `customer_name`
restricted), its real stored translation (column lineage down to `raw.customer.c_name`), a raw
table, and a warehouse table published without a contract; then every way a query could
bring a name out, through the command."""

from __future__ import annotations

import json
import re
import stat

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from pipelines.contracts import load_contract
from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.store import Lake
from pipelines.translation.store import LegacySource, translate_to_store
from pipelines.warehouse.query_masking import masked_columns
from sql.catalog import load_catalog
from sql.paths import CONTRACTS_ROOT, LEGACY_ROOT

SECRET = "Customer#SECRET-4242"
TOKEN = re.compile(r"masked:[0-9a-f]{12}")


def publish(lake: Lake, zone: str, table: str, rows: pa.Table, manifest: dict) -> None:
    with lake.stage(zone, table) as staging:
        pq.write_table(rows, staging / "part-0.parquet")
        lake.publish(zone, table, staging, manifest)


@pytest.fixture(scope="module")
def built_home(tmp_path_factory):
    """The home, built once for the file; the tests only read it (and append to its access
    log)."""
    home = tmp_path_factory.mktemp("query") / "home"
    lake = Lake(home / "lake")
    contract = load_contract(CONTRACTS_ROOT / "customer_profile.yaml")
    PublishedContracts(home / "contracts").record(contract)
    checks = {"customer_profile_contract": {"contract_version": contract.version}}
    publish(
        lake,
        "warehouse",
        "customer_profile",
        pa.table(
            {
                "customer_key": pa.array([1, 2], pa.int64()),
                "customer_name": [SECRET, "Customer#000000002"],
                "segment": ["BUILDING", "MACHINERY"],
            }
        ),
        {"checks": checks},
    )
    publish(
        lake,
        "raw",
        "customer",
        pa.table({"c_custkey": [1, 2], "c_name": [SECRET, "Customer#000000002"]}),
        {},
    )
    publish(lake, "raw", "region", pa.table({"r_name": ["AFRICA", "ASIA"]}), {})
    publish(lake, "warehouse", "unguarded", pa.table({"note": [SECRET], "n": [1]}), {})
    source = LegacySource(
        "customer_profile", "snowflake", LEGACY_ROOT / "snowflake" / "customer_profile.sql"
    )
    translate_to_store(source, home / "ansi", load_catalog())
    return home


@pytest.fixture
def home(built_home, monkeypatch):
    monkeypatch.setenv("PLUMBLINE_HOME", str(built_home))
    monkeypatch.delenv("PLUMBLINE_ALLOW_REVEAL", raising=False)
    return built_home


def query(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, ["query", *args, "--csv"], env=env)


def test_the_classified_columns_and_those_they_come_from(home):
    assert masked_columns(Lake(home / "lake"), home / "contracts", home / "ansi") == {
        "warehouse.customer_profile": {"customer_name": "restricted"},
        # Through the stored translation's lineage: customer_name is C.C_NAME.
        "raw.customer": {"c_name": "restricted"},
        # Published without a contract: nothing of it was classified by anyone.
        "warehouse.unguarded": {"note": "unclassified", "n": "unclassified"},
    }


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT customer_name FROM warehouse.customer_profile",
        "SELECT * FROM warehouse.customer_profile",
        "SELECT upper(customer_name) AS u, md5(customer_name) AS h FROM warehouse.customer_profile",
        "SELECT string_agg(customer_name, '|') AS s FROM warehouse.customer_profile",
        "SELECT customer_profile FROM warehouse.customer_profile",  # the row as a struct
        "SELECT COLUMNS('.*name.*') FROM warehouse.customer_profile",
        "SELECT p.customer_name FROM (SELECT * FROM warehouse.customer_profile) AS p",
        "WITH c AS (SELECT c_name AS x FROM raw.customer) SELECT x FROM c",
        "SELECT c_name FROM raw.customer UNION ALL SELECT note FROM warehouse.unguarded",
        "SELECT c.c_name FROM raw.customer AS c JOIN warehouse.customer_profile AS p "
        "ON p.customer_key = c.c_custkey",
    ],
)
def test_no_query_shows_a_classified_value(home, sql):
    result = query(sql)
    assert result.exit_code == 0, result.output
    assert SECRET not in result.stdout and "SECRET" not in result.stdout.upper()
    assert TOKEN.search(result.stdout.lower()) or "MASKED:" in result.stdout
    assert result.stderr.startswith("plumbline: note: masked as their contracts classify them")


@pytest.mark.parametrize(
    ("sql", "shown"),
    [
        # A guess tested in a filter meets tokens, never the value.
        (
            f"SELECT count(*) AS n FROM warehouse.customer_profile WHERE customer_name = '{SECRET}'",
            '"n"\n0\n',
        ),
        (
            "SELECT count(*) AS n FROM raw.customer WHERE c_name LIKE 'Customer#S%'",
            '"n"\n0\n',
        ),
        # What no contract classifies is shown as it is.
        ("SELECT r_name FROM raw.region ORDER BY 1", '"r_name"\n"AFRICA"\n"ASIA"\n'),
        ("SELECT segment FROM warehouse.customer_profile ORDER BY 1", '"segment"\n"BUILDING"\n'),
    ],
)
def test_filters_see_tokens_and_unclassified_columns_stay_readable(home, sql, shown):
    result = query(sql)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(shown)


def test_the_masking_function_cannot_be_called(home):
    # DuckDB names the function it meant: the name is no secret, calling it is refused.
    assert query("SELECT plumbline_mas('x') AS y").exit_code == 1
    for call in (
        "plumbline_mask_0('x')",
        '"PLUMBLINE_MASK_x"(1)',
        "'x'.plumbline_mask_a()",
        "list_transform(['a'], x -> plumbline_mask_1(x))",
    ):
        result = query(f"SELECT {call} AS y FROM warehouse.customer_profile")
        assert result.exit_code == 1, result.output
        assert "is not a function a query may call" in result.stderr


def test_a_restricted_column_is_revealed_only_when_allowed_and_every_reveal_is_logged(home):
    sql = "SELECT customer_name FROM warehouse.customer_profile ORDER BY customer_key"
    log = home / "logs" / "access.jsonl"

    before = log.read_text().splitlines() if log.exists() else []
    refused = query(sql, "--reveal", "customer_name")
    assert refused.exit_code == 2
    assert refused.stderr == (
        "plumbline: error: --reveal customer_name: warehouse.customer_profile.customer_name "
        "is classified restricted; set PLUMBLINE_ALLOW_REVEAL=1 to show it (each reveal is "
        "logged)\n"
    )
    assert SECRET not in refused.stdout
    assert (log.read_text().splitlines() if log.exists() else []) == before  # nothing shown

    allowed = {"PLUMBLINE_ALLOW_REVEAL": "1"}
    for _ in range(2):
        shown = query(sql, "--reveal", "warehouse.customer_profile.customer_name", env=allowed)
        assert shown.exit_code == 0, shown.output
        assert shown.stdout.splitlines()[1] == f'"{SECRET}"'
    lines = log.read_text().splitlines()
    assert lines[: len(before)] == before  # appended to, never rewritten
    records = [json.loads(line) for line in lines[len(before) :]]
    assert len(records) == 2  # one line per reveal
    assert records[0]["query"] == sql and records[0]["uid"] >= 0 and records[0]["user"]
    assert records[0]["revealed"] == {"warehouse.customer_profile.customer_name": "restricted"}
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_an_unclassified_column_is_revealed_with_the_option_alone_and_typos_are_refused(home):
    shown = query("SELECT note FROM warehouse.unguarded", "--reveal", "note")
    assert shown.exit_code == 0 and SECRET in shown.stdout
    missing = query("SELECT note FROM warehouse.unguarded", "--reveal", "nots")
    assert missing.exit_code == 2
    assert "--reveal nots: no column of that name is masked" in missing.stderr
