"""sql.yaml_text: libyaml's speed, yaml.safe_load's values and errors."""

import pytest
import yaml

from sql import yaml_text

DOCUMENTS = [
    "tables:\n  raw.orders:\n    o_orderkey: BIGINT\n    o_total: 'DECIMAL(12,2)'\n",
    "a: 1\nb: [1.5, true, null, 2024-01-01]\nc: {d: 'x: y'}\n",
    "anchors:\n  base: &b {x: 1}\n  copy: *b\n",
    "",
    "# only a comment\n",
    "text: |\n  two\n  lines\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_values_of_yaml_safe_load(text):
    assert yaml_text.safe_load(text) == yaml.safe_load(text)


def test_every_document_of_a_stream():
    text = "a: 1\n---\nb: 2\n"
    assert yaml_text.safe_load_all(text) == list(yaml.safe_load_all(text))


@pytest.mark.parametrize(
    "text",
    ["a: [1, 2\n", "a: 1\n b: 2\n  c: 3\n", "key: 'unterminated\n", "\ta: 1\n"],
)
def test_the_error_yaml_safe_load_raises(text):
    with pytest.raises(yaml.YAMLError) as expected:
        yaml.safe_load(text)
    with pytest.raises(yaml.YAMLError) as raised:
        yaml_text.safe_load(text)
    assert str(raised.value) == str(expected.value)
    assert type(raised.value) is type(expected.value)


def test_python_objects_are_refused():
    with pytest.raises(yaml.YAMLError):
        yaml_text.safe_load("!!python/object/apply:os.system ['true']\n")
