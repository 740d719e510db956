"""The audit chain's digests: each covers its node's content and its parents' digests."""

import pytest

from pipelines.audit.chain import (
    AuditError,
    Node,
    check_seal,
    compare,
    content_differences,
    seal,
)


def chain() -> list[Node]:
    return [
        Node("legacy:a.sql", "legacy_sql", "a.sql", {"sha256": "11"}),
        Node("ansi:t", "ansi_sql", "t", {"rules": ["X"]}, ["legacy:a.sql"]),
        Node("table:raw/r@1", "raw_table", "r", {"digest": "22"}),
        Node("table:warehouse/t@1", "table", "t", {"rows": 3}, ["ansi:t", "table:raw/r@1"]),
        Node("model:m/v1", "model_version", "m", {"version": "1"}, ["table:warehouse/t@1"]),
    ]


def root(nodes: list[Node]) -> str:
    return next(n.digest for n in nodes if n.id == "model:m/v1")


def test_sealing_orders_parents_first_and_is_deterministic():
    sealed = seal(chain())
    order = [n.id for n in sealed]
    assert order.index("legacy:a.sql") < order.index("ansi:t") < order.index("model:m/v1")
    assert all(n.digest.startswith("sha256:") and len(n.digest) == 71 for n in sealed)
    assert root(sealed) == root(seal(list(reversed(chain()))))


@pytest.mark.parametrize(
    ("node_id", "change"),
    [
        ("legacy:a.sql", {"sha256": "99"}),
        ("table:raw/r@1", {"digest": "23"}),
        ("model:m/v1", {"version": "2"}),
    ],
)
def test_any_change_below_the_root_changes_the_root(node_id, change):
    before = root(seal(chain()))
    nodes = chain()
    next(n for n in nodes if n.id == node_id).content.update(change)
    assert root(seal(nodes)) != before


def test_a_gap_changes_the_digest_and_is_reported_by_compare():
    nodes = seal(chain())
    gapped = chain()
    gapped[2].gap = "file not found"
    assert root(seal(gapped)) != root(nodes)
    differences = compare(seal(gapped), seal(chain()))
    assert [str(d) for d in differences] == ["table:raw/r@1: recorded as a gap: file not found"]


def test_compare_names_the_link_and_the_field_that_changed():
    recorded = seal(chain())
    current = chain()
    current[0].content["sha256"] = "99"
    differences = compare(recorded, seal(current))
    # Only the node whose own content changed is named, not every ancestor whose digest moved.
    assert [str(d) for d in differences] == ['legacy:a.sql: sha256: was "11", now "99"']


def test_compare_reports_links_that_are_no_longer_reachable():
    recorded = seal(chain())
    current = [n for n in chain() if n.id != "ansi:t"]
    current[2].parents = ["table:raw/r@1"]  # the table no longer points at its SQL
    differences = [str(d) for d in compare(recorded, seal(current))]
    assert "ansi:t: no longer reachable from the chain's root" in differences
    assert any(d.startswith("table:warehouse/t@1: parents:") for d in differences)


def test_check_seal_catches_an_edited_bundle():
    nodes = seal(chain())
    assert check_seal(nodes) == []
    nodes[0].content["sha256"] = "edited without resealing"
    assert [d.node for d in check_seal(nodes)] == ["legacy:a.sql"]


def test_missing_parents_and_cycles_are_refused():
    with pytest.raises(AuditError, match="parent nowhere is not in the chain"):
        seal([Node("a", "k", "a", {}, ["nowhere"])])
    with pytest.raises(AuditError, match="cycle"):
        seal([Node("a", "k", "a", {}, ["b"]), Node("b", "k", "b", {}, ["a"])])


def test_content_differences_walk_nested_fields():
    assert content_differences("", {"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3, "d": 4}}) == [
        "a.c: was 2, now 3",
        "a.d: now 4, not in the bundle",
    ]
