"""Which Dagster run materialized a table version: what the audit records for each table."""

import datetime as dt

import dagster as dg

from pipelines.instance import run_finder


@dg.asset(key=["warehouse", "t"])
def table(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    return dg.MaterializeResult(data_version=dg.DataVersion("same-content"))


def _run(instance: dg.DagsterInstance) -> tuple[str, dt.datetime]:
    """One materialization, and a publish time just before it (as the lake names a version)."""
    published = dt.datetime.now(dt.UTC)
    result = dg.materialize([table], instance=instance)
    assert result.success
    return result.run_id, published


def test_a_rebuild_to_the_same_content_does_not_move_an_earlier_versions_run():
    with dg.DagsterInstance.ephemeral() as instance:
        first, first_published = _run(instance)
        second, second_published = _run(instance)
        third, _ = _run(instance)
        find = run_finder(instance)
        # Each version's own run, however often the same content was rebuilt after it.
        assert find("warehouse", "t", "same-content", first_published) == first
        assert find("warehouse", "t", "same-content", second_published) == second
        # Without a publish time: the newest run that recorded that content.
        assert find("warehouse", "t", "same-content", None) == third
        assert find("warehouse", "t", "other-content", first_published) is None
        # A version published after every materialization of it: no run is guessed.
        later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
        assert find("warehouse", "t", "same-content", later) is None
