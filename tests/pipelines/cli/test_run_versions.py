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
