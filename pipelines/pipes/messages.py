"""A Dagster Pipes message reader that hands on only whole messages.

Dagster's ``PipesTempFileMessageReader`` tails its message file with ``readline()``, which
returns a line that the external process is still writing: a 3 KB message (the training
history) read halfway through its ``write`` fails ``json.loads``, the reader thread dies and
every later message is lost (seen as a ``JSONDecodeError`` and then a missing ``history`` in
the training checks, under load). Dagster 1.13 has no fix. This reader keeps the partial line
and appends to it until the newline arrives; the protocol (one JSON message per line in the
file named by the ``path`` parameter) is unchanged, so the external side stays
``open_dagster_pipes()`` with its default writer.

The training reports each epoch as a Pipes log line that opens with ``epoch N/M: ``
(``EPOCH_MESSAGE``); Dagster stores it in the run's event log as the step's log message,
where ``plumbline run`` picks it up.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import dagster as dg
from dagster_pipes import PipesDefaultMessageWriter, PipesParams

POLL_SECONDS = 0.01


def complete_lines(path: str, should_stop: Callable[[], bool]) -> Iterator[str]:
    """Each newline-terminated line appended to ``path`` until ``should_stop()`` is true and
    the file holds nothing more; a last line without its newline is handed on only then (its
    writer has finished, so it is whole or truly broken)."""
    pending = b""
    with open(path, "rb") as stream:
        while True:
            chunk = stream.readline()
            if chunk:
                pending += chunk
                if pending.endswith(b"\n"):
                    yield pending.decode("utf-8")
                    pending = b""
            elif should_stop():
                # The stop flag is set after the process exited: read what it left.
                rest = pending + stream.read()
                for line in rest.decode("utf-8").splitlines():
                    if line.strip():
                        yield line
                return
            else:
                time.sleep(POLL_SECONDS)


class WholeLineMessageReader(dg.PipesMessageReader):
    """Reads Pipes messages from a temporary file, one complete JSON line at a time."""

    @contextmanager
    def read_messages(self, handler: dg.PipesMessageHandler) -> Iterator[PipesParams]:
        closed = threading.Event()
        with tempfile.TemporaryDirectory() as tempdir:
            path = os.path.join(tempdir, "messages")
            open(path, "w", encoding="utf-8").close()
            thread = threading.Thread(target=self._read, args=(path, handler, closed), daemon=True)
            thread.start()
            try:
                yield {PipesDefaultMessageWriter.FILE_PATH_KEY: path}
            finally:
                closed.set()
                thread.join()

    @staticmethod
    def _read(path: str, handler: dg.PipesMessageHandler, closed: threading.Event) -> None:
        try:
            for line in complete_lines(path, closed.is_set):
                handler.handle_message(json.loads(line))
        except Exception:
            handler.report_pipes_framework_exception(
                f"{WholeLineMessageReader.__name__} reader thread", sys.exc_info()
            )
            raise

    def no_messages_debug_text(self) -> str:
        return "Attempted to read messages from a temporary file."


# How models.train.Reporter.epoch begins the line it logs through Pipes for each epoch
# ("epoch 3/8: train loss 0.4123, ..."): `plumbline run` shows those lines as they come.
EPOCH_MESSAGE = re.compile(r"epoch \d+/\d+: ")


def is_epoch_message(message: str) -> bool:
    """Whether a step's log line is the training's report of one epoch."""
    return EPOCH_MESSAGE.match(message) is not None
