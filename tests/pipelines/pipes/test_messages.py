"""The Pipes reader hands on whole messages even when it reads a line mid-write."""

import sys
import textwrap
import threading
import time

import dagster as dg

from pipelines.pipes.messages import WholeLineMessageReader, complete_lines

# An external process whose message channel writes each message in two halves with a pause
# between: what a reader sees when it reads a large message while its ``write`` is under way.
SPLIT_WRITER = textwrap.dedent(
    """
    import json, time
    from contextlib import contextmanager
    from dagster_pipes import (
        PipesDefaultMessageWriter, PipesMessageWriterChannel, open_dagster_pipes,
    )

    class SplitChannel(PipesMessageWriterChannel):
        def __init__(self, path):
            self.path = path

        def write_message(self, message):
            line = json.dumps(message) + "\\n"
            half = len(line) // 2
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line[:half])
                f.flush()
                time.sleep(0.2)
                f.write(line[half:])

    class SplitWriter(PipesDefaultMessageWriter):
        @contextmanager
        def open(self, params):
            yield SplitChannel(params[self.FILE_PATH_KEY])

    with open_dagster_pipes(message_writer=SplitWriter()) as pipes:
        history = [{"epoch": i, "loss": 1.0 / (i + 1)} for i in range(200)]
        pipes.report_asset_materialization(metadata={"history": {"raw_value": history, "type": "json"}})
    """
)


def test_a_line_read_mid_write_is_handed_on_once_whole(tmp_path):
    path = tmp_path / "messages"
    path.write_bytes(b'{"method": "log", "par')

    def finish():
        time.sleep(0.2)
        with open(path, "ab") as f:
            f.write(b'ams": {}}\n{"method": "closed"}')

    writer = threading.Thread(target=finish)
    writer.start()
    done = threading.Event()
    lines = complete_lines(str(path), done.is_set)
    assert next(lines) == '{"method": "log", "params": {}}\n'
    writer.join()
    done.set()
    # The last line has no newline: it is handed on once its writer has finished.
    assert list(lines) == ['{"method": "closed"}']


def test_split_messages_reach_dagster_through_a_subprocess(tmp_path):
    script = tmp_path / "external.py"
    script.write_text(SPLIT_WRITER)

    @dg.asset
    def reported(context: dg.AssetExecutionContext, pipes: dg.PipesSubprocessClient):
        return pipes.run(context=context, command=[sys.executable, str(script)]).get_results()

    client = dg.PipesSubprocessClient(message_reader=WholeLineMessageReader())
    result = dg.materialize([reported], resources={"pipes": client})
    assert result.success
    [materialization] = result.asset_materializations_for_node("reported")
    history = materialization.metadata["history"].value
    assert len(history) == 200
    assert history[-1] == {"epoch": 199, "loss": 1.0 / 200}
