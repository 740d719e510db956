"""pipelines.cli.run.latest_data_versions: what each asset's latest materialization was."""

import dagster as dg
import pytest

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


# What a child of a process that ran stoppable_children() ignores (SigIgn of /proc), run in
# a fresh interpreter whose SIGTERM was inherited as ignored, as from a test worker.
SIGTERM_CHILD = """
import signal, subprocess, sys
from pipelines.cli.run import stoppable_children
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[1] == "reset":
    stoppable_children()
child = subprocess.run(["grep", "SigIgn", "/proc/self/status"], capture_output=True, text=True)
print(int(child.stdout.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
"""


@pytest.mark.parametrize(("reset", "ignored"), [("reset", "0"), ("keep", "1")])
def test_a_run_lets_its_children_be_stopped_with_sigterm(reset, ignored):
    """Dagster stops its log mirrors with SIGTERM and waits up to 30 s for each: a run whose
    SIGTERM was inherited as ignored hands it on to them no more."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_CHILD, reset], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ignored, done.stderr
