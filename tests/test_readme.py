from pathlib import Path

from pipelines.settings import SETTINGS_DOCS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_every_setting_is_documented_with_its_default():
    for doc in SETTINGS_DOCS:
        assert f"| `{doc.name}` | `{doc.default}` |" in README, doc.name


def test_the_two_commands_are_shown():
    assert "make run" in README and "make test" in README
