import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.lake.store import KEEP_VERSIONS, Lake, LakeError, digest_files, table_stats


def write_version(lake: Lake, values: list[int], table: str = "t"):
    with lake.stage("raw", table) as staging:
        pq.write_table(pa.table({"x": values}), staging / "part-0.parquet")
        return lake.publish("raw", table, staging, {"note": "test"})


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


def test_old_versions_are_pruned_but_the_previous_one_is_kept(tmp_path):
    lake = Lake(tmp_path)
    versions = [write_version(lake, [i]) for i in range(KEEP_VERSIONS + 2)]
    kept = sorted(p for p in (tmp_path / "raw" / ".versions" / "t").iterdir())
    assert len(kept) == KEEP_VERSIONS
    assert versions[-1].path in kept
    assert versions[-2].path in kept
    assert read(lake) == [KEEP_VERSIONS + 1]


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


def test_a_published_version_names_its_inputs_until_one_is_pruned(tmp_path):
    lake = Lake(tmp_path)
    source = write_version(lake, [1], table="source")
    with lake.stage("warehouse", "built") as staging:
        pq.write_table(pa.table({"x": [1]}), staging / "part-0.parquet")
        built = lake.publish(
            "warehouse", "built", staging, {"inputs": {"raw.source": source.path.name}}
        )
    assert lake.inputs(built) == {
        "raw.source": lake.version_path("raw", "source", source.path.name)
    }
    assert lake.manifest("raw", "source", source.path.name)["digest"] == source.digest
    for n in range(KEEP_VERSIONS + 1):
        write_version(lake, [n + 2], table="source")
    assert lake.inputs(built) is None  # its input version was pruned
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
