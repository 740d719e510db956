import multiprocessing
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.lake.store import KEEP_VERSIONS, Lake, LakeError, digest_files, table_stats


def write_version(lake: Lake, values: list[int], table: str = "t", *, same: bool = False):
    with lake.stage("raw", table) as staging:
        pq.write_table(pa.table({"x": values}), staging / "part-0.parquet")
        return lake.publish_version(
            "raw", table, staging, {"note": "test"}, same=lake.same_files if same else None
        ).version


def version_names(lake: Lake, zone: str = "raw", table: str = "t") -> list[str]:
    """The version folders of ``zone/table`` (not its lock, journal, pins or staging)."""
    folder = lake.root / zone / ".versions" / table
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def read(lake: Lake, table: str = "t") -> list[int]:
    return pq.read_table(lake.table_path("raw", table)).column("x").to_pylist()


def test_publish_points_the_stable_path_at_a_sealed_version(tmp_path):
    lake = Lake(tmp_path)
    version = write_version(lake, [1, 2, 3])
    assert lake.table_path("raw", "t").is_symlink()
    assert read(lake) == [1, 2, 3]
    current = lake.current("raw", "t")
    assert current is not None
    assert current.path == version.path
    assert current.manifest["note"] == "test"
    assert current.digest == digest_files(version.path)
    assert lake.verify(current)
    assert table_stats(current.path).row_count == 3


def test_a_failed_build_leaves_the_last_good_table_and_no_staging(tmp_path):
    lake = Lake(tmp_path)
    good = write_version(lake, [1, 2, 3])
    with pytest.raises(RuntimeError, match="generator crashed"), lake.stage("raw", "t") as staging:
        (staging / "part-0.parquet").write_bytes(b"half a file")
        raise RuntimeError("generator crashed")
    assert read(lake) == [1, 2, 3]
    assert lake.current("raw", "t").path == good.path
    assert not list((tmp_path / "raw" / ".versions" / "t").glob(".staging-*"))


def test_a_missing_table_has_no_current_version(tmp_path):
    assert Lake(tmp_path).current("raw", "nothing") is None


def test_old_versions_are_pruned_but_the_previous_one_is_kept_and_the_removal_recorded(tmp_path):
    lake = Lake(tmp_path)
    versions = [write_version(lake, [i]) for i in range(KEEP_VERSIONS + 2)]
    assert version_names(lake) == [v.path.name for v in versions[-KEEP_VERSIONS:]]
    assert read(lake) == [KEEP_VERSIONS + 1]
    # Each removal says what was removed, on whose publish.
    assert [(e["version"], e["on_publish_of"]) for e in lake.pruned("raw", "t")] == [
        (versions[i].path.name, versions[i + KEEP_VERSIONS].path.name) for i in range(2)
    ]
    with lake.stage("raw", "t") as staging:
        pq.write_table(pa.table({"x": [99]}), staging / "part-0.parquet")
        published = lake.publish_version("raw", "t", staging, {})
    assert published.pruned == (versions[2].path.name,) and not published.kept


def test_the_same_table_published_again_keeps_its_version(tmp_path):
    lake = Lake(tmp_path)
    first = write_version(lake, [1, 2], same=True)
    again = write_version(lake, [1, 2], same=True)
    assert again.path == first.path  # one content, one version, one name
    assert version_names(lake) == [first.path.name]
    other = write_version(lake, [1, 3], same=True)
    assert version_names(lake) == sorted([first.path.name, other.path.name])
    # A live version whose files were changed is no longer the same table: a new version.
    data = other.path / "part-0.parquet"
    data.chmod(0o644)
    pq.write_table(pa.table({"x": [1, 4]}), data)
    replaced = write_version(lake, [1, 3], same=True)
    assert replaced.path != other.path and lake.verify(replaced)


def _publish_after(root: str, values: list[int], ready: str) -> str:
    """In another process: stage ``values`` as raw/t, say so by creating ``ready``, then
    publish it unless the live version holds the same (a concurrent run's publish)."""
    lake = Lake(root)
    with lake.stage("raw", "t") as staging:
        pq.write_table(pa.table({"x": values}), staging / "part-0.parquet")
        Path(ready).touch()
        return lake.publish_version("raw", "t", staging, {}, same=lake.same_files).version.path.name


def test_two_concurrent_publishes_of_one_table_leave_one_version_and_the_previous_one(tmp_path):
    """Two runs rebuild one table to the same content at once: one version of it, not two,
    and the version before them stays (two copies would have pruned it)."""
    lake = Lake(tmp_path)
    previous = write_version(lake, [0])
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        with lake.locked("raw", "t"):
            # Both stage while this process holds the table's lock, then wait on it together.
            results = [
                pool.apply_async(
                    _publish_after, (str(tmp_path), [1, 2], str(tmp_path / f"ready{i}"))
                )
                for i in range(2)
            ]
            deadline = time.monotonic() + 60
            while not all((tmp_path / f"ready{i}").exists() for i in range(2)):
                assert time.monotonic() < deadline, "the publishing processes did not start"
                time.sleep(0.05)
            time.sleep(0.5)
            # Neither publishes while another holds the table's lock.
            assert not any(result.ready() for result in results)
            assert version_names(lake) == [previous.path.name]
        names = {result.get(timeout=60) for result in results}
    assert len(names) == 1
    assert version_names(lake) == sorted([previous.path.name, *names])
    assert read(lake) == [1, 2]
    assert lake.pruned("raw", "t") == []


def test_digest_follows_content_and_names(tmp_path):
    for name, values in [("a", [1]), ("b", [1]), ("c", [2])]:
        (tmp_path / name).mkdir()
        pq.write_table(pa.table({"x": values}), tmp_path / name / "part-0.parquet")
    assert digest_files(tmp_path / "a") == digest_files(tmp_path / "b")
    assert digest_files(tmp_path / "a") != digest_files(tmp_path / "c")
    (tmp_path / "b" / "part-0.parquet").rename(tmp_path / "b" / "part-1.parquet")
    assert digest_files(tmp_path / "a") != digest_files(tmp_path / "b")


def test_tampering_is_detected(tmp_path):
    lake = Lake(tmp_path)
    version = write_version(lake, [1, 2, 3])
    data = version.path / "part-0.parquet"
    data.chmod(0o644)
    pq.write_table(pa.table({"x": [1, 2, 4]}), data)
    assert not lake.verify(lake.current("raw", "t"))


def test_pinned_versions_survive_pruning(tmp_path):
    lake = Lake(tmp_path)

    def publish(n):
        with lake.stage("warehouse", "t") as staging:
            pq.write_table(pa.table({"x": [n]}), staging / "part-0.parquet")
            return lake.publish("warehouse", "t", staging, {}).path.name

    first = publish(0)
    lake.pin("warehouse", "t", first, "delivery_delay@1")
    later = [publish(n) for n in range(1, KEEP_VERSIONS + 3)]
    versions = sorted(p.name for p in (tmp_path / "warehouse" / ".versions" / "t").iterdir())
    assert first in versions  # pinned: kept
    assert later[0] not in versions  # not pinned, older than the last KEEP_VERSIONS: pruned
    assert set(later[-KEEP_VERSIONS:]) <= set(versions)
    assert lake.pins("warehouse", "t") == {first: ["delivery_delay@1"]}
    with pytest.raises(LakeError, match="cannot pin version nope"):
        lake.pin("warehouse", "t", "nope", "delivery_delay@1")


def test_a_version_name_reads_back_as_its_publish_time_in_order():
    import datetime as dt

    first = Lake.version_name(1_700_000_000_000_000_001, "a" * 64)
    second = Lake.version_name(1_700_000_000_000_000_002, "0" * 64)
    assert first == "20231114T221320.000000001-aaaaaaaaaaaa"
    assert sorted([second, first]) == [first, second]  # publish order, digests aside
    assert Lake.published_at(first) == dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC)
    for other in ("current", "20231114T221320-abc", "2023-11-14.000000001-abc", ""):
        assert Lake.published_at(other) is None


def test_a_version_that_a_version_in_the_lake_was_built_from_is_kept(tmp_path):
    lake = Lake(tmp_path)
    source = write_version(lake, [1], table="source")

    def build(n: int):
        with lake.stage("warehouse", "built") as staging:
            pq.write_table(pa.table({"x": [n]}), staging / "part-0.parquet")
            inputs = {"raw.source": lake.current("raw", "source").path.name}
            return lake.publish("warehouse", "built", staging, {"inputs": inputs})

    built = build(1)
    assert lake.inputs(built) == {
        "raw.source": lake.version_path("raw", "source", source.path.name)
    }
    for n in range(KEEP_VERSIONS + 1):
        write_version(lake, [n + 2], table="source")
    # Older than the newest KEEP_VERSIONS, but warehouse/built was built from it: kept, so
    # that what is published can be audited down to its sources.
    assert lake.inputs(built) is not None
    assert lake.manifest("raw", "source", source.path.name)["digest"] == source.digest
    # Once no version in the lake was built from it, the next publish removes it.
    for n in range(KEEP_VERSIONS):
        build(n + 2)
    assert lake.manifest("warehouse", "built", built.path.name) is None
    write_version(lake, [9], table="source")
    assert lake.manifest("raw", "source", source.path.name) is None


def test_staging_left_by_dead_builds_is_removed_but_not_a_live_builds(tmp_path):
    import os

    lake = Lake(tmp_path)
    write_version(lake, [1])
    dead = [tmp_path / zone / ".versions" / "t" / ".staging-dead" for zone in ("raw", "warehouse")]
    for folder in dead:
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_bytes(b"half a file")
        os.utime(folder, (1_000, 1_000))
    live = tmp_path / "raw" / ".versions" / "t" / ".staging-live"
    live.mkdir()
    # A run that may still be building started at t=2,000: what it staged is newer.
    assert lake.remove_staging(started_before=2_000) == sorted(dead)
    assert live.is_dir() and read(lake) == [1]
    # With no live run, every staging folder is debris.
    assert lake.remove_staging(started_before=None) == [live]
