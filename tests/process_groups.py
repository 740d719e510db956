"""Stopping a server a test started in its own process group (``start_new_session=True``)."""

import os
import signal
import subprocess


def stop_group(process: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM to ``process``'s group, and SIGKILL if it is still there after ``timeout``
    seconds: a test that checks what a server answers cleans up whatever it left (how the
    servers stop on SIGTERM is tests/pipelines/cli/test_servers.py's concern)."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)
