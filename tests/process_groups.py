"""The servers the tests start (PostgreSQL, ``mlflow server``, Spark's master, worker and
Connect server, ``dagster dev`` and the ``plumbline`` UIs), each in a process group of its
own, and stopped however the test run ends.

A test stops its server from a finalizer. That does not run when the test process dies
otherwise: a SIGTERM (a CI runner cancelling the job, xdist tearing its workers down after a
Ctrl-C), a SIGKILL, an interpreter that exits while a fixture still sets up. An interrupted
``make test`` left an ``mlflow server`` with its uvicorn and two Spark JVMs running with no
parent (issue 44). So each server started through :func:`start_group`:

- runs in a new session whose leader is a small supervisor (this file, run as a script): the
  group holds every process the server forks (uvicorn's workers, a Spark worker's
  executors), so one ``killpg`` reaches them all;
- the supervisor is told by Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``) when
  the process that started it dies, by whatever means, SIGKILL included; on that, or on a
  stop signal, it stops the server with the server's own stop signal, and after a grace
  period SIGKILLs whatever of the group is left, then exits;
- is recorded, so that an ``atexit`` handler and handlers of SIGTERM and SIGHUP (installed by
  :func:`install`, which ``tests/conftest.py`` calls and ``-p tests.process_groups`` loads
  as a plugin) stop every group still running before the process goes.

SIGINT stays Python's KeyboardInterrupt, under which pytest runs the finalizers; ``atexit``
then stops whatever they did not. ``tests/test_process_groups.py`` interrupts real pytest
sessions each of these ways and finds no process of theirs left.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

# Group (its supervisor's pid) -> the supervisor and the signal that stops its server.
_RUNNING: dict[int, tuple[subprocess.Popen, signal.Signals]] = {}
_LOCK = threading.Lock()
_INSTALLED = False
# How long a server has to stop on its own signal before what is left of it is killed.
GRACE_SECONDS = 20.0
_PR_SET_PDEATHSIG = 1


def start_group(
    command: Sequence[str],
    *,
    stop_signal: signal.Signals = signal.SIGTERM,
    user: int | None = None,
    group: int | None = None,
    **popen: object,
) -> subprocess.Popen:
    """Start ``command`` as a server in a new session (``popen`` as for
    :class:`subprocess.Popen`; ``user`` and ``group`` the account it runs as, which its
    supervisor switches to), stopped with ``stop_signal`` when this process dies or exits
    before :func:`stop_group` stops it. The process returned is the supervisor: its pid is
    the group's, and it exits with the server's exit status."""
    supervisor = [sys.executable, os.path.abspath(__file__), stop_signal.name]
    supervisor += ["-" if user is None else str(user), "-" if group is None else str(group)]
    process = subprocess.Popen(  # type: ignore[call-overload]
        [*supervisor, "--", *command], **popen, start_new_session=True
    )
    with _LOCK:
        _RUNNING[process.pid] = (process, stop_signal)
    return process


def stop_group(
    process: subprocess.Popen,
    timeout: float = 30,
    stop_signal: signal.Signals | None = None,
) -> None:
    """``stop_signal`` (default: the one it was started with, else SIGTERM) to ``process``'s
    group, and SIGKILL to whatever of the group is left after ``timeout`` seconds: a test that
    checks what a server answers cleans up everything it started (how the servers stop on
    SIGTERM is tests/pipelines/cli/test_servers.py's concern)."""
    with _LOCK:
        _, started_with = _RUNNING.pop(process.pid, (process, signal.SIGTERM))
    _signal_group(process.pid, stop_signal or started_with)
    _wait_for_group(process, time.monotonic() + timeout)
    _signal_group(process.pid, signal.SIGKILL)
    _wait_for_group(process, time.monotonic() + timeout)


def stop_all(timeout: float = GRACE_SECONDS) -> None:
    """Stop every group started here and not stopped yet: each its signal, then SIGKILL to
    what is left after ``timeout`` seconds in all."""
    with _LOCK:
        running = list(_RUNNING.values())
        _RUNNING.clear()
    for process, stop_signal in running:
        _signal_group(process.pid, stop_signal)
    deadline = time.monotonic() + timeout
    for process, _ in running:
        _wait_for_group(process, deadline)
        _signal_group(process.pid, signal.SIGKILL)
        _wait_for_group(process, time.monotonic() + timeout)


def group_alive(group: int, leader: subprocess.Popen | None = None) -> bool:
    """Whether a process of ``group`` is left, zombies aside (``leader``, when given, is
    reaped once it has exited)."""
    if leader is not None:
        leader.poll()
    return bool(_members(group))


def install() -> None:
    """Stop every server of this process at exit and on SIGTERM or SIGHUP (then die of that
    signal, as without the handler). Installed once, from the main thread."""
    global _INSTALLED
    if _INSTALLED or threading.current_thread() is not threading.main_thread():
        return
    _INSTALLED = True
    atexit.register(stop_all)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)


def pytest_configure(config: object) -> None:
    """As a pytest plugin (``-p tests.process_groups``)."""
    install()


def _on_signal(signum: int, frame: object) -> None:
    stop_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _signal_group(group: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signum)


def _wait_for_group(process: subprocess.Popen, deadline: float) -> None:
    while group_alive(process.pid, process) and time.monotonic() < deadline:
        time.sleep(0.05)


def _members(group: int) -> list[int]:
    """The processes of ``group`` that are not zombies (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # After the command's name: state, ppid, pgrp.
        if int(fields[2]) == group and fields[0] != b"Z":
            found.append(int(entry))
    return found


# -- the supervisor ------------------------------------------------------------------------


def _supervise(arguments: list[str]) -> int:
    """Run ``arguments`` (``STOP_SIGNAL USER GROUP -- COMMAND...``) as the server of this
    group: see the module's docstring. Returns the server's exit status."""
    stop_name, user, group, separator, *command = arguments
    assert separator == "--", arguments
    stop_signal = signal.Signals[stop_name]
    starter = os.getppid()
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != starter:  # the starter died before the death signal was set
        return 1
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        stopping.set()

    for signum in {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, stop_signal}:
        signal.signal(signum, stop)
    account: dict[str, object] = {}
    if user != "-":
        account = {"user": int(user), "group": int(group), "extra_groups": []}
    server = subprocess.Popen(command, **account)  # type: ignore[call-overload]
    while server.poll() is None and not stopping.wait(0.1):
        pass
    if server.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(stop_signal)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=GRACE_SECONDS)
    # Whatever the server left in the group (a worker that outlived it), then the server.
    for pid in _members(os.getpgid(0)):
        if pid != os.getpid():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    returncode = server.wait()
    return returncode if returncode >= 0 else 128 - returncode


if __name__ == "__main__":
    sys.exit(_supervise(sys.argv[1:]))
