"""How `plumbline run` leaves out the steps that would only find their assets unchanged
(pipelines.cli.run.plan_phases and skippable): what the probed assets read runs first, each
probe is asked in the graph's order, an asset reading one that is built or blocked is built
without asking, and a step's assets are decided together. A real Dagster graph and
instance; the probes answer as their test says (the real ones: tests/pipelines/test_second_project.py,
tests/pipelines/cli/test_run_progress.py)."""

from dataclasses import dataclass, field

import dagster as dg
import pytest

from pipelines.cli.run import (
    SKIPPED,
    _Tracker,
    downstream_of,
    plan_phases,
    rerun_probes,
    skippable,
)
from pipelines.probes import Rerun, attach_probe, rerun_probe


@dataclass(eq=False)
class Answering:
    """A probe that answers ``reason`` and counts the times it was asked."""

    reason: str | None
    asked: list[str] = field(default_factory=list)

    def ask(self, instance, resources) -> Rerun:
        self.asked.append("asked")
        if self.reason is not None:
            return Rerun(self.reason)
        return Rerun(
            None,
            check_results=[
                dg.AssetCheckResult(check_name="kept", passed=True, metadata={"re_run": False})
            ],
        )


def _graph(reasons: dict[str, str | None]):
    """raw/a -> ansi/x -> warehouse/t1 -> warehouse/t2 -> models/m, raw/a -> warehouse/t3,
    and ansi/y + ansi/z made by one step; each probed asset's probe answering ``reasons``."""
    probes = {name: Answering(reason) for name, reason in reasons.items()}

    def probed(assets_def, name):
        return attach_probe(assets_def, probes[name]) if name in probes else assets_def

    @dg.asset(key=["raw", "a"])
    def raw_a():
        return None

    @dg.asset(key=["ansi", "x"], deps=[raw_a])
    def ansi_x():
        return None

    @dg.asset(key=["warehouse", "t1"], deps=[ansi_x])
    def t1():
        return None

    @dg.asset(key=["warehouse", "t2"], deps=[t1])
    def t2():
        return None

    @dg.asset(key=["models", "m"], deps=[t2])
    def model():
        return None

    @dg.asset(key=["warehouse", "t3"], deps=[raw_a])
    def t3():
        return None

    @dg.multi_asset(specs=[dg.AssetSpec(["ansi", "y"]), dg.AssetSpec(["ansi", "z"])])
    def ansi_yz():
        return None

    assets = [
        raw_a,
        probed(ansi_x, "ansi/x"),
        probed(t1, "warehouse/t1"),
        probed(t2, "warehouse/t2"),
        model,
        probed(t3, "warehouse/t3"),
        probed(ansi_yz, "ansi/y"),
    ]
    defs = dg.Definitions(assets=assets)
    return defs, probes


UNCHANGED = {n: None for n in ("ansi/x", "warehouse/t1", "warehouse/t2", "warehouse/t3", "ansi/y")}


def _keys(*names: str) -> set[dg.AssetKey]:
    return {dg.AssetKey.from_user_string(n) for n in names}


def _plan(reasons, blocked_names=(), tmp_path=None):
    defs, probes = _graph(reasons)
    graph = defs.resolve_asset_graph()
    keys = sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string())
    found = rerun_probes(defs, keys)
    first, later = plan_phases(graph, keys, set(found))
    lines: list[str] = []
    tracker = _Tracker(defs, keys, lines.append, home=tmp_path)
    with dg.DagsterInstance.ephemeral() as instance:
        skipped = skippable(graph, later, found, _keys(*blocked_names), instance, {}, tracker)
    return first, later, skipped, probes, tracker, lines


def test_what_the_probed_assets_read_runs_first(tmp_path):
    first, later, _, _, _, _ = _plan(UNCHANGED, tmp_path=tmp_path)
    assert set(first) == _keys("raw/a")
    assert set(later) == _keys(
        "ansi/x", "ansi/y", "ansi/z", "warehouse/t1", "warehouse/t2", "warehouse/t3", "models/m"
    )


def test_unchanged_assets_get_no_step_and_show_their_kept_verdicts(tmp_path):
    _, later, skipped, probes, tracker, lines = _plan(UNCHANGED, tmp_path=tmp_path)
    assert skipped == set(later) - _keys("models/m")
    for name in ("warehouse/t1", "ansi/y", "ansi/z"):
        assert tracker.assets[name].status == SKIPPED
    # The multi-asset's probe is asked once for its two assets.
    assert probes["ansi/y"].asked == ["asked"]
    assert "  check passed, not re-run: warehouse/t2 kept" in lines
    assert tracker.not_re_run == {"kept"}


def test_a_changed_asset_builds_what_reads_it_without_asking(tmp_path):
    _, _, skipped, probes, tracker, _ = _plan(
        {**UNCHANGED, "warehouse/t1": "its input ansi/x has a new data version"},
        tmp_path=tmp_path,
    )
    assert skipped == _keys("ansi/x", "warehouse/t3", "ansi/y", "ansi/z")
    assert probes["warehouse/t2"].asked == [], "t2 reads t1, whose new version is not known yet"
    assert tracker.assets["warehouse/t2"].status == "not run"


def test_what_a_blocked_asset_reads_into_is_neither_asked_nor_skipped(tmp_path):
    _, _, skipped, probes, _, _ = _plan(UNCHANGED, ("warehouse/t3",), tmp_path=tmp_path)
    assert dg.AssetKey(["warehouse", "t3"]) not in skipped
    assert probes["warehouse/t3"].asked == []


def test_downstream_of_leaves_out_the_assets_themselves():
    defs, _ = _graph(UNCHANGED)
    graph = defs.resolve_asset_graph()
    assert downstream_of(graph, _keys("warehouse/t1")) == _keys("warehouse/t2", "models/m")
    assert downstream_of(graph, set()) == set()


@pytest.mark.parametrize("name", ["raw/a", "models/m"])
def test_an_asset_without_a_probe_has_none(name):
    defs, _ = _graph(UNCHANGED)
    node = defs.resolve_asset_graph().get(dg.AssetKey.from_user_string(name))
    assert rerun_probe(node.assets_def) is None


def test_a_failed_asset_is_shown_in_its_own_words():
    """A dg.Failure's description, not Dagster's path of the class before it; the innermost
    cause's first line."""
    from dagster._utils.error import SerializableErrorInfo

    from pipelines.cli.run import _innermost_message

    failure = SerializableErrorInfo(
        "dagster._core.definitions.events.Failure: source raw.customers (postgresql table "
        "utility.customers via $URL): the table no longer exists\n",
        [],
        "Failure",
    )
    assert _innermost_message(failure) == (
        "source raw.customers (postgresql table utility.customers via $URL): the table no "
        "longer exists"
    )
    wrapped = SerializableErrorInfo("step failed: see cause\n", [], "Exception", cause=failure)
    assert _innermost_message(wrapped).startswith("source raw.customers")
    other = SerializableErrorInfo(
        "ValueError: a Failure: of another kind\nmore\n", [], "ValueError"
    )
    assert _innermost_message(other) == "ValueError: a Failure: of another kind"
