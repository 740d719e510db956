"""While a run lasts, Dagster's sqlite event log keeps one idle connection per file (so its
WAL is not checkpointed at every event) and Dagster's own connections to it run with
``synchronous = NORMAL``; every event is stored and read back as without it, and nothing
is left behind once the run is over."""

import sqlite3

import dagster as dg
from sqlalchemy import create_engine, text

from pipelines.event_log_files import held_event_log


@dg.asset
def one_row() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": 1})


def _synchronous_of_new_connections(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text("PRAGMA synchronous")).scalar_one()
    finally:
        engine.dispose()


def test_a_run_inside_keeps_every_event_and_leaves_no_wal(tmp_path, monkeypatch):
    home = tmp_path / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    elsewhere = tmp_path / "user.db"
    with dg.DagsterInstance.get() as instance:
        first = dg.materialize([one_row], instance=instance)  # creates the files
        with held_event_log(home) as held:
            second = dg.materialize([one_row], instance=instance)
            history = home / "history"
            assert set(held) >= {
                str(history / "runs.db"),
                str(history / "runs" / "index.db"),
                str(history / "runs" / f"{second.run_id}.db"),
            }
            # The events were committed to the WAL, not checkpointed at each close.
            assert (history / "runs" / f"{second.run_id}.db-wal").stat().st_size > 0
            assert _synchronous_of_new_connections(f"sqlite:///{history / 'runs.db'}") == 1
            # A sqlite file outside the instance's history is not Dagster's: untouched.
            assert _synchronous_of_new_connections(f"sqlite:///{elsewhere}") == 2
            assert str(elsewhere) not in held
        assert held == {}
        assert not list(home.rglob("*-wal"))
        assert _synchronous_of_new_connections(f"sqlite:///{history / 'runs.db'}") == 2
        for result in (first, second):
            assert result.success
            events = instance.all_logs(result.run_id)
            assert any(
                e.dagster_event_type == dg.DagsterEventType.ASSET_MATERIALIZATION for e in events
            )
        latest = instance.get_latest_materialization_event(one_row.key)
        assert latest is not None and latest.run_id == second.run_id
    # The files are whole sqlite databases.
    for db in home.rglob("*.db"):
        with sqlite3.connect(db) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
