"""Mistakes in a project's configuration are found when it loads, all at once, one
``FILE:FIELD: message`` line each: what `dg check defs` shows (exit 1) and `plumbline run`
prints before anything runs (exit 2), never an internal error."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pipelines.cli.init import init_project
from pipelines.cli.location import CodeLocation
from pipelines.cli.main import main
from pipelines.project import ProjectProblems

# Each project gets a package name of its own: one process imports each name once.
NAMES = (f"checked{n}" for n in itertools.count())
SNOWFLAKE = "SELECT order_date, SUM(amount) AS revenue\nFROM SHOP.PUBLIC.ORDERS\nGROUP BY 1\n"
CATALOG = {
    "tables": {"raw.orders": {"order_id": "BIGINT", "order_date": "DATE", "amount": "DOUBLE"}},
    "legacy": {"snowflake": {"SHOP.PUBLIC.ORDERS": "raw.orders"}},
}
NAME_RULE = (
    "a table name must be a lower-case identifier (letters a-z, digits, _; not first a digit)"
)


class Project:
    """A user's project as `plumbline init` writes it, with one Snowflake file, its catalog
    and a CSV source; each test breaks it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.package = root.name
        init_project(root)
        self.write("legacy/snowflake/daily_revenue.sql", SNOWFLAKE)
        self.write("catalog.yaml", yaml.safe_dump(CATALOG))
        self.write("sources/orders.csv", "order_id,order_date,amount\n1,2024-01-01,2.5\n")
        self.attributes(sources={"orders": {"files": "sources/orders.csv"}})

    @property
    def defs_yaml(self) -> str:
        return f"{self.package}/defs/warehouse/defs.yaml"

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def attributes(self, **changes: object) -> None:
        component = yaml.safe_load((self.root / self.defs_yaml).read_text())
        component["attributes"].update(changes)
        self.write(self.defs_yaml, yaml.safe_dump(component, sort_keys=False))

    def problems(self) -> list[str]:
        """The lines a load of the code location reports, as `plumbline run` loads it."""
        with pytest.raises(ProjectProblems) as raised:
            CodeLocation(self.root, f"{self.package}.definitions").definitions()
        return raised.value.lines(self.root)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Project:
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "home"))
    return Project(tmp_path / next(NAMES))


def test_every_mistake_is_reported_at_once(project):
    project.attributes(
        sources={
            "orders": {"files": "sources/orders.csv"},
            "Products": {"files": "sources/products.csv"},
            "x y": {"files": "sources/products.csv"},
            'a"b': {"files": "sources/products.csv"},
            "../x": {"files": "sources/products.csv"},
        },
        reconciliation={
            "tables": {
                "nosuch": {"key": ["id"]},
                "daily_revenue": {"snapshot": "snapshots/missing.csv"},
            }
        },
    )
    project.write("legacy/oracle/top_items.sql", "SELECT item_id\nFROM sales.items\n")
    project.write(
        "legacy/tsql/returns.sql",
        "SELECT r.id\nFROM dbo.Returns r\nJOIN dbo.Refunds f ON f.id = r.id\n",
    )
    defs, root = project.defs_yaml, project.root
    searched = f"(searched: {root / 'catalog.yaml'}); add it, or import one with `plumbline catalog import`"
    assert project.problems() == [
        f"{defs}:attributes.sources.Products: {NAME_RULE}",
        f"{defs}:attributes.sources.x y: {NAME_RULE}",
        f'{defs}:attributes.sources.a"b: {NAME_RULE}',
        f"{defs}:attributes.sources.../x: {NAME_RULE}",
        f"{defs}:attributes.reconciliation.tables.nosuch: no warehouse table 'nosuch' in this "
        "project (its tables: daily_revenue, returns, top_items)",
        f"{defs}:attributes.reconciliation.tables.daily_revenue.snapshot: no such file or "
        f"folder: {root / 'snapshots' / 'missing.csv'}",
        "legacy/oracle/top_items.sql:2:6: error[NAME-UNKNOWN]: table 'sales.items' is not in "
        f"the catalog for dialect oracle {searched}",
        "legacy/tsql/returns.sql:2:6: error[NAME-UNKNOWN]: table 'dbo.Returns' is not in the "
        f"catalog for dialect tsql {searched}",
        "legacy/tsql/returns.sql:3:6: error[NAME-UNKNOWN]: table 'dbo.Refunds' is not in the "
        f"catalog for dialect tsql {searched}",
    ]


def test_plumbline_run_prints_them_and_exits_2_before_anything_runs(project, monkeypatch):
    project.attributes(sources={"Orders": {"files": "sources/orders.csv"}})
    monkeypatch.chdir(project.root)
    result = CliRunner().invoke(main, ["run"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{project.defs_yaml}:attributes.sources.Orders: {NAME_RULE}",
        "plumbline: error: 1 problem in the project's configuration; nothing was run",
    ]
    assert not (project.root.parent / "home").exists()  # nothing created


def _snapshot(path: str | None, **entry: object) -> dict:
    """A reconciliation entry of daily_revenue."""
    declared = {"snapshot": path} if path else {}
    return {"reconciliation": {"tables": {"daily_revenue": {**declared, **entry}}}}


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        (
            {"attributes": {"engine": "oracle"}},
            "{defs}:attributes.engine: Input should be 'duckdb' or 'spark'",
        ),
        (
            # The README's example once read so: YAML's flow mapping splits at the comma.
            {
                "defs": "type: plumbline.MigrationComponent\nattributes:\n  sources:\n"
                "    orders:\n      files: sources/orders.csv\n"
                "      columns: {amount: DECIMAL(12,2)}\n"
            },
            "{defs}:attributes.sources.orders.columns.2): Input should be a valid string; quote "
            "a type that holds a comma: {{amount: 'DECIMAL(12,2)'}}",
        ),
        (
            {"defs": "type: plumbline.MigrationComponent\nattributes:\n  legacy: [\n"},
            "{defs}:4:1: not valid YAML: expected the node content, but found '<stream end>'",
        ),
        (
            {"attributes": {"legacy": "nowhere"}},
            "{defs}:attributes.legacy: an existing folder; got {root}/nowhere",
        ),
        (
            {"attributes": {"models": ["churn"]}},
            "{defs}:attributes.models: unknown model churn; known: delivery_delay",
        ),
        (
            {"attributes": {"catalogs": ["missing.yaml"]}},
            "{defs}:attributes.catalogs: no such file: {root}/missing.yaml",
        ),
        (
            {
                "attributes": {
                    "reconciliation": {"tables": {"daily_revenue": {"tolerance": {"revenue": -1}}}}
                }
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.tolerance.revenue: must be a "
            "number >= 0",
        ),
        (
            {
                "attributes": {
                    "reconciliation": {
                        "tables": {
                            "daily_revenue": {
                                "database": {"url_env": "SHOP_URL", "query": "DELETE FROM orders"}
                            }
                        }
                    }
                }
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.database.query: expected one "
            "query (SELECT or WITH ... SELECT)",
        ),
        (
            {
                "attributes": {
                    "reconciliation": {
                        "tables": {
                            "daily_revenue": {
                                "snapshot": "snapshots/daily.csv",
                                "database": {"url_env": "SHOP_URL", "table": "daily"},
                            }
                        }
                    }
                }
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.database: a table reconciles "
            "against a snapshot or a database, not both",
        ),
        (
            {"attributes": {"sources": {}}},
            "{defs}:attributes.sources: warehouse/daily_revenue reads raw.orders, which no "
            "source declares (add it under sources:)",
        ),
        (
            # A legacy name mapped to a table the catalog does not declare.
            {
                "files": {
                    "catalog.yaml": yaml.safe_dump(
                        {
                            **CATALOG,
                            "legacy": {
                                "snowflake": {
                                    "SHOP.PUBLIC.ORDERS": "raw.orders",
                                    "SHOP.PUBLIC.DAILY": "warehouse.nowhere",
                                }
                            },
                        }
                    )
                }
            },
            "catalog.yaml: snowflake name 'SHOP.PUBLIC.DAILY' maps to 'warehouse.nowhere', "
            "which no catalog file declares and no legacy file builds",
        ),
        (
            {"files": {"legacy/tsql/daily_revenue.sql": "SELECT 1 AS one\n"}},
            "{root}/legacy/tsql/daily_revenue.sql: table 'daily_revenue' is already defined by "
            "{root}/legacy/snowflake/daily_revenue.sql; rename one",
        ),
        (
            {"files": {"contracts/daily_revenue.yaml": "apiVersion: v3.0.0\nkind: Nonsense\n"}},
            "contracts/daily_revenue.yaml:id: ODCS requires 'id'",
        ),
        (
            # A BigQuery wildcard that no catalog table matches.
            {"files": {"legacy/bigquery/events.sql": "SELECT 1 AS one FROM shop.events_*\n"}},
            "legacy/bigquery/events.sql:1:22: error[NAME-UNKNOWN]: no table of the catalog "
            "matches the wildcard table 'shop.events_*'",
        ),
        (
            {
                "files": {"snapshots/old.txt": "order_date,revenue\n"},
                "attributes": _snapshot("snapshots/old.txt"),
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.snapshot: {root}/snapshots/"
            "old.txt is neither CSV nor Parquet; expected a .csv or .parquet file, or a folder "
            "of .parquet files",
        ),
        (
            {"files": {"snapshots/daily_revenue.parquet": "order_date,revenue\n"}},
            "{defs}:attributes.snapshots: {root}/snapshots/daily_revenue.parquet is not a "
            "Parquet file (it does not begin and end with PAR1)",
        ),
        (
            {
                "files": {"snapshots/daily_revenue.csv": "order_date,revenue\n"},
                "attributes": _snapshot(None, key=["day"]),
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.key: column 'day' is not in "
            "the snapshot {root}/snapshots/daily_revenue.csv (its columns: order_date, "
            "revenue); rows cannot be matched by it",
        ),
        (
            {
                "files": {"snapshots/daily_revenue.csv": "order_date;revenue\n"},
                "attributes": _snapshot(None, tolerance={"revenu": 0.01}),
            },
            "{defs}:attributes.reconciliation.tables.daily_revenue.tolerance.revenu: column "
            "'revenu' is not in the snapshot {root}/snapshots/daily_revenue.csv (its columns: "
            "order_date, revenue); the tolerance would never be used",
        ),
        (
            {"attributes": {"contracts": "contracts\x00"}},
            "{defs}:attributes.contracts: a path cannot hold a NUL character",
        ),
        (
            {"attributes": {"sources": {"orders": {"files": "sources/\x00.csv"}}}},
            "{defs}:attributes.sources.orders.files: a path cannot hold a NUL character",
        ),
    ],
    ids=[
        "model-refuses-a-value",
        "yaml-flow-mapping-comma",
        "defs-not-yaml",
        "missing-folder",
        "unknown-model",
        "missing-catalog",
        "negative-tolerance",
        "legacy-database-statement-not-a-query",
        "snapshot-and-legacy-database",
        "raw-table-of-no-source",
        "legacy-name-to-undeclared-table",
        "two-files-one-table",
        "broken-contract",
        "wildcard-of-no-table",
        "snapshot-neither-csv-nor-parquet",
        "snapshot-not-parquet",
        "key-not-in-snapshot",
        "tolerance-of-no-column",
        "nul-in-a-folder",
        "nul-in-files",
    ],
)
def test_each_mistake_is_one_line_naming_its_file_and_field(project, mistake, expected):
    if "attributes" in mistake:
        project.attributes(**mistake["attributes"])
    if "defs" in mistake:
        project.write(project.defs_yaml, mistake["defs"])
    for relative, text in mistake.get("files", {}).items():
        project.write(relative, text)
    [line] = project.problems()
    expected = expected.format(defs=project.defs_yaml, root=project.root)
    assert line.startswith(expected), line


# -- paths stay inside the project (issue 44) --------------------------------------------------

OUTSIDE = "is outside the project folder"
ALLOW_HINT = "to read it, list its folder under allowed_paths: in defs.yaml"


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A folder beside the project, holding what a project must not read unless allowed."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.csv").write_text("order_id,order_date,amount\n9,2024-01-01,9.5\n")
    (folder / "contract.yaml").write_text("apiVersion: v3.0.0\n")
    (folder / "legacy").mkdir()
    return folder


@pytest.mark.parametrize(
    ("mistake", "field", "shown"),
    [
        ({"sources": {"orders": {"files": "/etc/passwd"}}}, "sources.orders.files", "/etc/passwd"),
        (
            {"sources": {"orders": {"files": "../../../../../../../../etc/passwd"}}},
            "sources.orders.files",
            f"../../../../../../../../etc/passwd {OUTSIDE} (it leads to /etc/passwd)",
        ),
        (
            {"sources": {"orders": {"files": "/etc/*"}}},
            "sources.orders.files",
            f"/etc/* {OUTSIDE} (it leads to /etc)",
        ),
        ({"legacy": "{elsewhere}/legacy"}, "legacy", "{elsewhere}/legacy"),
        ({"catalogs": ["/etc/passwd"]}, "catalogs.0", "/etc/passwd"),
        (
            {"reconciliation": {"tables": {"daily_revenue": {"snapshot": "/etc/passwd"}}}},
            "reconciliation.tables.daily_revenue.snapshot",
            "/etc/passwd",
        ),
    ],
    ids=["absolute-file", "dot-dot", "absolute-glob", "legacy-folder", "catalog", "snapshot"],
)
def test_a_path_outside_the_project_is_one_line_naming_its_field(
    project, elsewhere, mistake, field, shown
):
    attributes = yaml.safe_load(yaml.safe_dump(mistake).replace("{elsewhere}", str(elsewhere)))
    project.attributes(**attributes)
    problems = [p for p in project.problems() if OUTSIDE in p]
    shown = shown.replace("{elsewhere}", str(elsewhere))
    if OUTSIDE not in shown:
        shown = f"{shown} {OUTSIDE}"
    assert problems == [f"{project.defs_yaml}:attributes.{field}: {shown}; {ALLOW_HINT}"]


@pytest.mark.parametrize(
    ("link", "target", "field"),
    [
        ("sources/x.csv", "secret.csv", "sources.orders.files"),
        ("contracts/daily_revenue.yaml", "contract.yaml", "contracts"),
        ("legacy/snowflake/more", "legacy", "legacy"),
        ("snapshots/daily_revenue.csv", "secret.csv", "snapshots"),
    ],
)
def test_a_link_out_of_a_project_folder_is_refused_before_it_is_read(
    project, elsewhere, link, target, field
):
    project.attributes(sources={"orders": {"files": "sources/*.csv"}})
    (project.root / link).parent.mkdir(parents=True, exist_ok=True)
    (project.root / link).symlink_to(elsewhere / target)
    assert project.problems() == [
        f"{project.defs_yaml}:attributes.{field}: {project.root / link} {OUTSIDE} (it leads to "
        f"{elsewhere / target}); {ALLOW_HINT}"
    ]


def test_allowed_paths_let_a_project_read_a_folder_outside_it(project, elsewhere, monkeypatch):
    from pipelines.lake.ingest import matching_files

    (project.root / "sources" / "x.csv").symlink_to(elsewhere / "secret.csv")
    project.attributes(
        sources={"orders": {"files": "sources/*.csv"}}, allowed_paths=[str(elsewhere)]
    )
    monkeypatch.chdir(project.root)
    CodeLocation(project.root, f"{project.package}.definitions").definitions()  # no problem
    _, loaded = CodeLocation(project.root, f"{project.package}.definitions").migration()
    assert [f.name for f in matching_files(loaded.sources[0])] == ["orders.csv", "x.csv"]


def test_allowed_paths_are_absolute_folders(project):
    project.attributes(allowed_paths=["relative/folder"])
    assert project.problems() == [
        f"{project.defs_yaml}:attributes.allowed_paths.0: expected an absolute folder; got "
        "relative/folder"
    ]
