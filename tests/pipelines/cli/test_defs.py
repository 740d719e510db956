"""`plumbline defs`: the code location as a list that reads in an 80-column terminal, where
`dg list defs` squeezes each column of its table to a letter."""

import warnings

import dagster as dg
from click.testing import CliRunner

from pipelines.cli.defs import defs_listing
from pipelines.cli.main import main

LONG = "a_warehouse_table_whose_name_alone_takes_most_of_the_line"


@dg.asset(key=["raw", "orders"], group_name="raw", kinds={"parquet"})
def orders() -> None: ...


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)

    @dg.multi_observable_source_asset(
        specs=[dg.AssetSpec(["legacy", "oracle", "orders"], group_name="legacy", kinds={"sql"})]
    )
    def legacy_files(): ...


@dg.asset(
    key=["warehouse", LONG],
    deps=[orders],
    group_name="warehouse",
    kinds={"duckdb", "parquet"},
    check_specs=[
        dg.AssetCheckSpec(f"{LONG}_contract", asset=["warehouse", LONG]),
        dg.AssetCheckSpec(f"{LONG}_reconciled", asset=["warehouse", LONG]),
    ],
)
def table():
    pass


retrain = dg.define_asset_job("retrain_job", selection=[table])


@dg.sensor(job=retrain)
def raw_data_sensor() -> None: ...


DEFS = dg.Definitions(
    assets=[legacy_files, orders, table],
    jobs=[retrain],
    schedules=[dg.ScheduleDefinition(name="weekly", cron_schedule="0 3 * * 1", job=retrain)],
    sensors=[raw_data_sensor],
    resources={"lake": dg.ResourceDefinition.none_resource()},
)


def test_every_name_is_whole_and_no_line_is_wider_than_the_terminal():
    lines = defs_listing(DEFS, width=80)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    text = "\n".join(lines)
    for name in (
        "raw/orders  [parquet]",
        "legacy/oracle/orders  [sql]  (observed)",
        f"warehouse/{LONG}",
        f"{LONG}_contract",
        f"{LONG}_reconciled",
        "retrain_job",
        "weekly  0 3 * * 1  retrain_job",
        "raw_data_sensor",
        "lake",
    ):
        assert name in text, name
    # Assets under their group's heading, each group's count given.
    assert lines[:5] == [
        "assets (3), by group",
        "  legacy (1)",
        "    legacy/oracle/orders  [sql]  (observed)",
        "  raw (1)",
        "    raw/orders  [parquet]",
    ]
    assert "  warehouse (1)" in lines
    assert [line for line in lines if not line.startswith(" ")] == [
        "assets (3), by group",
        "jobs (1)",
        "schedules (1)",
        "sensors (1)",
        "resources (1)",
    ]


def test_plumbline_has_the_defs_command():
    done = CliRunner().invoke(main, ["defs", "--help"])
    assert done.exit_code == 0, done.output
    assert "80-column" in done.output
