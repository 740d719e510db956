"""One ordered map over every core, for pure-Python work per file (translating a legacy tree).

Translation is CPU-bound Python, so threads would share one interpreter lock; a process pool
uses every core. Workers are started with ``spawn``: the pool is created from Dagster's code
server and the CLI, which run threads, and forking a process that holds threads can copy a
lock in its held state. ``function`` and the items must therefore be picklable (a module-level
function, or a ``functools.partial`` of one).
"""

from __future__ import annotations

import copyreg
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from sql.diagnostics import TranslationError

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this many items a worker's start (it imports sqlglot and the rules) costs more
# than the items it would translate.
MIN_PARALLEL_ITEMS = 8
# Chunks per worker: enough that a slow file does not leave the other cores idle at the end.
CHUNKS_PER_WORKER = 4


def _reduce_translation_error(error: TranslationError) -> tuple[type, tuple[object, ...]]:
    return TranslationError, (error.diagnostics,)


def _start_worker() -> None:
    # An exception crosses back from a worker as ``cls(*args)``; TranslationError's only arg
    # is its formatted text, which would rebuild it with one diagnostic per character.
    copyreg.pickle(TranslationError, _reduce_translation_error)


def worker_count() -> int:
    """The cores this process may run on (its CPU affinity, where the OS reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def ordered_map(
    function: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    workers: int | None = None,
    min_items: int = MIN_PARALLEL_ITEMS,
    chunksize: int | None = None,
) -> Iterator[Result]:
    """``map(function, items)`` over a pool of ``workers`` processes (default: every core).

    Results come in the order of ``items``, lazily, as in the serial ``map``; an exception
    ``function`` raises surfaces when its item's result is reached, with the same type and
    arguments (pickled back from the worker). Fewer than ``min_items`` items, or one
    worker, run serially in this process. ``chunksize`` items go to a worker at a time
    (default: a few chunks per worker); 1 balances items of very different cost.
    """
    items = list(items)
    workers = min(workers or worker_count(), len(items))
    if len(items) < min_items or workers < 2:
        yield from map(function, items)
        return
    chunksize = chunksize or max(1, len(items) // (workers * CHUNKS_PER_WORKER))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
    )
    try:
        yield from pool.map(function, items, chunksize=chunksize)
    finally:
        # A consumer that stops early (an error on an earlier item) leaves the rest unrun.
        pool.shutdown(wait=True, cancel_futures=True)
