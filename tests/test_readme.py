import re
from pathlib import Path

import pytest
import yaml

from pipelines.component import MigrationComponent
from pipelines.project import COMPONENT_TYPE
from pipelines.settings import SETTINGS_DOCS, Settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
# Each fenced ```yaml block of the README, with the line it starts on.
YAML_BLOCKS = [
    (README.count("\n", 0, match.start()) + 2, match.group(1))
    for match in re.finditer(r"^```yaml\n(.*?)^```$", README, re.DOTALL | re.MULTILINE)
]


def test_every_setting_is_documented_with_its_default():
    for doc in SETTINGS_DOCS:
        assert f"| `{doc.name}` | `{doc.default}` |" in README, doc.name


def test_the_two_commands_are_shown():
    assert "make run" in README and "make test" in README


def test_the_readme_shows_a_component_instance():
    documents = [yaml.safe_load(text) for _, text in YAML_BLOCKS]
    assert any(d.get("type") == COMPONENT_TYPE for d in documents if isinstance(d, dict))


@pytest.mark.parametrize(("line", "text"), YAML_BLOCKS, ids=[f"line {n}" for n, _ in YAML_BLOCKS])
def test_each_yaml_example_parses_and_validates(line, text, tmp_path):
    document = yaml.safe_load(text)
    if not (isinstance(document, dict) and document.get("type") == COMPONENT_TYPE):
        return
    # A defs.yaml as a user would copy it: the component's model takes its attributes, and
    # the project they describe is built (sources, column types, reconciliation, models)
    # over the folders it names.
    component = MigrationComponent.from_attributes(document["attributes"])
    for folder in ("legacy", "contracts", "snapshots"):
        (tmp_path / getattr(component, folder)).mkdir()
    project = component.project(tmp_path, Settings(home=tmp_path / "home"), check_catalogs=False)
    assert [s.name for s in project.sources] == list(document["attributes"]["sources"])
