"""A step's usage is its own: its peak RSS is not an earlier step's, its CPU time counts the
threads and children of the process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipelines.step_usage import (
    CPU_SECONDS_KEY,
    PEAK_RSS_KEY,
    PEAK_RSS_SCOPE_KEY,
    StepUsage,
)

MB = 2**20


def test_a_step_sees_its_own_peak_not_an_earlier_steps():
    first = StepUsage.start()
    if not first.own_peak:
        pytest.skip("this OS cannot reset a process's peak RSS")
    held = b"x" * (300 * MB)  # written, so resident
    del held
    first_peak = first.peak_rss_bytes()
    second = StepUsage.start()
    second_peak = second.peak_rss_bytes()
    assert first_peak - second_peak > 250 * MB
    assert second.metadata()[PEAK_RSS_SCOPE_KEY].value == "step"


def test_cpu_time_counts_the_children_a_step_waited_for():
    usage = StepUsage.start()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    metadata = usage.metadata()
    assert metadata[CPU_SECONDS_KEY].value > 0.1
    assert metadata[PEAK_RSS_KEY].value > 0
