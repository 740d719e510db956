"""Every column of every data contract says what it holds.

The descriptions feed the asset's column schema in the Dagster UI and the audit report, so a
missing one, or one that only repeats the column name, leaves a reviewer guessing.
"""

import re
from pathlib import Path

import pytest
import yaml

from pipelines.contracts import load_contract
from sql.paths import CONTRACTS_ROOT

CONTRACT_FILES = sorted(CONTRACTS_ROOT.rglob("*.yaml"))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_contracts_are_found():
    # An empty parametrization would pass silently; the scores contract lives in a subfolder.
    names = {path.relative_to(CONTRACTS_ROOT).as_posix() for path in CONTRACT_FILES}
    assert {"delay_features.yaml", "training_set.yaml", "scores/batch_scores.yaml"} <= names


@pytest.mark.parametrize(
    "path", CONTRACT_FILES, ids=[p.relative_to(CONTRACTS_ROOT).as_posix() for p in CONTRACT_FILES]
)
def test_every_column_is_described(path: Path):
    contract = load_contract(path)
    for column in contract.columns:
        where = f"{path.name}: column {column.name!r}"
        description = (column.description or "").strip()
        assert description, f"{where} has no description"
        assert "\n" not in description, f"{where}: the description is one line of text"
        assert description.endswith("."), f"{where}: the description is a sentence"
        assert _words(description) != _words(column.name), f"{where} only repeats its name"
        assert len(_words(description)) > len(_words(column.name)) + 2, (
            f"{where}: {description!r} says too little"
        )


@pytest.mark.parametrize(
    "path", CONTRACT_FILES, ids=[p.relative_to(CONTRACTS_ROOT).as_posix() for p in CONTRACT_FILES]
)
def test_description_follows_the_name(path: Path):
    # The files are read side by side with the SQL: name, then what it is, then its rules.
    document = yaml.safe_load(path.read_text())
    for table in document["schema"]:
        for prop in table["properties"]:
            assert list(prop)[:2] == ["name", "description"], (
                f"{path.name}: column {prop['name']!r} has keys {list(prop)}"
            )
