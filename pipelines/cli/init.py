"""``plumbline init DIR``: a new dg project holding one ``plumbline.MigrationComponent``.

The project is what a data engineer migrating their own warehouse starts from: an empty
``legacy/``, ``contracts/``, ``sources/`` and ``snapshots/`` layout, an empty catalog, a
``defs.yaml`` naming them, and a README of its own that walks through filling them.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

import click
import yaml

from pipelines.lake.files import write_atomic
from pipelines.project import COMPONENT_TYPE, SCAFFOLD_ATTRIBUTES
from sql.source_dialects import DIALECTS

# The instance's folder under <package>/defs/ (its assets are raw/, ansi/, warehouse/...).
INSTANCE = "warehouse"

PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
description = "Migration of a legacy warehouse with plumbline."
requires-python = ">=3.11"
dependencies = ["plumbline"]

# dg (dg list defs, dg check defs, dg dev) and plumbline read the project from here.
[tool.dg]
directory_type = "project"

[tool.dg.project]
root_module = "{package}"
code_location_target_module = "{package}.definitions"
"""

DEFINITIONS = '''\
"""The code location: every component instance under defs/ (``dg list defs`` shows them)."""

from pathlib import Path

import dagster as dg


@dg.definitions
def defs() -> dg.Definitions:
    return dg.load_from_defs_folder(path_within_project=Path(__file__).parent)
'''

GITIGNORE = """\
# plumbline's state: the lake, the Dagster instance, MLflow (PLUMBLINE_HOME).
.plumbline/
__pycache__/
"""

EMPTY_CATALOG = """\
# The lake tables the legacy SQL reads, and the legacy names that mean them. Write it from the
# legacy DDL (plumbline catalog import --from DIALECT ddl/*.sql -o catalog.yaml) or from the
# declared sources (plumbline catalog import --from-sources).
tables: {}
legacy: {}
"""

README = """\
# {name}

A legacy warehouse migration with [plumbline](https://github.com/): legacy SQL translated to
portable ANSI SQL, built into tables over your own raw data, each table held to a data
contract and reconciled against the legacy warehouse's own output. Everything is one Dagster
component instance, `{package}/defs/{instance}/defs.yaml`.

## Layout

| folder | what goes there |
|---|---|
| `legacy/<dialect>/*.sql` | the proprietary SQL, one folder per dialect ({dialects}); a file may read another file's output by the name the legacy warehouse gave it, with no catalog entry |
| `sources/` | the raw tables as the legacy warehouse exported them (Parquet or CSV), declared under `sources:` in defs.yaml; a database table is declared there too, its URL in an environment variable |
| `catalog.yaml` | the raw tables' columns and types, and the legacy names that mean them |
| `contracts/<table>.yaml` | one ODCS data contract per warehouse table |
| `snapshots/<table>.parquet` or `.csv` | the legacy warehouse's own output of each table, to reconcile the new build against |

## Steps

```sh
# 1. your SQL, your exported data (or a database table under sources: in defs.yaml)
cp -r /path/to/legacy/snowflake legacy/snowflake
cp /path/to/exports/orders/*.parquet sources/orders/
# 2. declare each raw table under `sources:` in {package}/defs/{instance}/defs.yaml, then
plumbline catalog import --from-sources -o catalog.yaml
# 3. build everything (raw -> ansi -> warehouse, with checks)
plumbline run
# 4. draft a contract per table from what was built; review each, remove `status: draft`
plumbline contracts init --all --contracts contracts
plumbline contracts lint --contracts contracts
# 5. the Dagster UI
plumbline ui
```

A table with no contract, or translated and not reconciled against a snapshot, shows a
warning check in the UI until it has one.
"""


class InitError(click.ClickException):
    exit_code = 2


def package_name(folder: Path) -> str:
    """The Python package a project folder's name gives (``my-shop`` -> ``my_shop``)."""
    name = re.sub(r"\W+", "_", folder.name.strip().lower()).strip("_")
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"project_{name}"
    return name


def init_project(folder: Path) -> list[Path]:
    """Write a new project into ``folder`` (new, or an empty folder); the files written."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InitError(f"{folder}: exists and is not an empty folder; give a new one")
    package = package_name(folder)
    name = package.replace("_", "-")
    component = {"type": COMPONENT_TYPE, "attributes": SCAFFOLD_ATTRIBUTES}
    files = {
        "pyproject.toml": PYPROJECT.format(name=name, package=package),
        "README.md": README.format(
            name=name,
            package=package,
            instance=INSTANCE,
            dialects=", ".join(DIALECTS),
        ),
        ".gitignore": GITIGNORE,
        "catalog.yaml": EMPTY_CATALOG,
        f"{package}/__init__.py": "",
        f"{package}/definitions.py": DEFINITIONS,
        f"{package}/defs/__init__.py": "",
        f"{package}/defs/{INSTANCE}/defs.yaml": yaml.safe_dump(component, sort_keys=False),
        **{f"{empty}/.gitkeep": "" for empty in ("legacy", "contracts", "sources", "snapshots")},
    }
    written = []
    for relative, text in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        written.append(write_atomic(target, text))
    return written


@click.command("init")
@click.argument("folder", type=click.Path(path_type=Path))
def init(folder: Path) -> None:
    """Create a new dg project in FOLDER with one plumbline.MigrationComponent instance."""
    written = init_project(folder)
    click.echo(f"plumbline init: {len(written)} files in {folder}")
    for path in written:
        click.echo(f"  {path.relative_to(folder)}")
    click.echo(
        f"Next: cd {folder}, put your legacy SQL under legacy/<dialect>/ and declare your "
        "sources in the defs.yaml; see README.md."
    )
