"""pipelines.cli.run.latest_data_versions: what each asset's latest materialization was."""

import dagster as dg

from pipelines.cli.run import DATA_VERSION_TAG, latest_data_versions


def test_each_assets_latest_data_version_in_one_read():
    with dg.DagsterInstance.ephemeral() as instance:
        for key, version in (("a", "v1"), ("a", "v2"), ("b", "w1")):
            instance.report_runless_asset_event(
                dg.AssetMaterialization(key, tags={DATA_VERSION_TAG: version})
            )
        instance.report_runless_asset_event(dg.AssetMaterialization("untagged"))
        keys = [dg.AssetKey(k) for k in ("a", "b", "untagged", "never")]
        assert latest_data_versions(instance, keys) == {
            "a": "v2",
            "b": "w1",
            "untagged": None,
            "never": None,
        }


def test_a_log_mirror_left_running_is_stopped_and_nothing_else(tmp_path):
    """A `tail -F` (Dagster's mirror of a step's output) still running when the run is over
    would hold a reader of `plumbline run`'s pipes open after it exits: it is stopped; any
    other child is left alone."""
    import subprocess

    from pipelines.cli.run import stop_leftover_log_mirrors

    log = tmp_path / "step.out"
    log.write_text("")
    mirror = subprocess.Popen(["tail", "-F", "-c", "+0", str(log)], stdout=subprocess.DEVNULL)
    other = subprocess.Popen(["sleep", "30"])
    try:
        assert stop_leftover_log_mirrors() == [mirror.pid]
        assert mirror.wait(timeout=10) is not None
        assert other.poll() is None
        assert stop_leftover_log_mirrors() == []
    finally:
        other.kill()
        other.wait()
        mirror.kill()
