"""One ordered map over the free cores, for pure-Python work per file (translating a tree).

Translation is CPU-bound Python, so threads would share one interpreter lock; a process pool
uses more cores. Workers are started with ``spawn``: the pool is created from Dagster's code
server and the CLI, which run threads, and forking a process that holds threads can copy a
lock in its held state. ``function`` and the items must therefore be picklable (a module-level
function, or a ``functools.partial`` of one).

A pool only pays where its workers find cores to run on. On a machine other work keeps busy
a worker's start-up is paid and nothing is gained: a 400-file tree took 45 s on a pool of 2
against 29 s on one core, at a load of ~8 on 2 cores. So the pool has as many workers as
there are *free* cores (:func:`free_cores`: the cores this process may use, less the load
the rest of the machine puts on them), and is used only when the batch is large enough for
those workers to win back their start-up (:func:`pays_off`).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# A worker's start (a fresh interpreter importing sqlglot and the rules, then a first
# translation that fills their caches) costs about what translating this many legacy files
# does: ~0.6 s of CPU against ~30 ms a file, measured on a 2-vCPU VM. A pool pays off once
# the time it saves, items x (1 - 1/workers), exceeds it: from ~40 files on 2 cores, ~21
# on 16.
STARTUP_ITEMS = 20
# Chunks per worker: enough that a slow file does not leave the other cores idle at the end.
CHUNKS_PER_WORKER = 4


def worker_count() -> int:
    """The cores this process may run on (its CPU affinity, where the OS reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def free_cores(cores: int | None = None, load: float | None = None) -> int:
    """How many of this process's ``cores`` (default: its CPU affinity) the machine's other
    work leaves free, by the 1-minute load average (``load``, default ``os.getloadavg``):
    the load less this process's own running thread, rounded, at least 1."""
    cores = worker_count() if cores is None else cores
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this system: take every core as free
            return cores
    others = max(0.0, load - 1.0)
    return max(1, min(cores, math.floor(cores - others + 0.5)))


def pays_off(
    items: int, workers: int, min_items: int | None = None, startup_items: int | None = None
) -> bool:
    """Whether ``items`` go to a pool of ``workers`` rather than run serially: at least
    ``min_items``, or else enough that the pool saves more than a worker's start costs, in
    items (``startup_items``, default :data:`STARTUP_ITEMS`, translations)."""
    if workers < 2:
        return False
    if min_items is None:
        startup = STARTUP_ITEMS if startup_items is None else startup_items
        min_items = math.ceil(startup / (1 - 1 / workers))
    return items >= min_items


def ordered_map(
    function: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    workers: int | None = None,
    min_items: int | None = None,
    startup_items: int | None = None,
    chunksize: int | None = None,
) -> Iterator[Result]:
    """``map(function, items)`` over a pool of ``workers`` processes (default: the free
    cores, :func:`free_cores`).

    Results come in the order of ``items``, lazily, as in the serial ``map``; an exception
    ``function`` raises surfaces when its item's result is reached, with the same type and
    arguments (pickled back from the worker). Fewer than ``min_items`` items (default:
    where the pool would save less than its start-up costs, for items the size of a legacy
    file's translation; ``startup_items`` says what a worker's start costs in cheaper
    items), or one worker, run serially in this process. ``chunksize`` items
    go to a worker at a time (default: a few chunks per worker); 1 balances items of very
    different cost.
    """
    items = list(items)
    workers = min(workers or free_cores(), len(items))
    if not pays_off(len(items), workers, min_items, startup_items):
        yield from map(function, items)
        return
    chunksize = chunksize or max(1, len(items) // (workers * CHUNKS_PER_WORKER))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
    )
    try:
        yield from pool.map(function, items, chunksize=chunksize)
    finally:
        # A consumer that stops early (an error on an earlier item) leaves the rest unrun.
        pool.shutdown(wait=True, cancel_futures=True)
