"""Work on the colours at once, one thread each, and on large images a band or a map
a thread.

Most of a reading is OpenCV, NumPy and scikit-image working on whole masks, and they
let go of Python's lock in their loops, so the strings of two colours are skeletonised
or measured on two cores at the same time, and NumPy's per-pixel work, which runs on one
core, is shared out in bands of rows or one image a thread. The results are collected
in the order of the items, so a reading is the same whichever thread finishes first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, TypeVar

from vision import memory

Item = TypeVar("Item")
Result = TypeVar("Result")
First = TypeVar("First")
Second = TypeVar("Second")


def _workers() -> int:
    """DD_READER_THREADS if it is a whole number above 0, else one per core this
    process may use (at most four, one per line colour)."""
    try:
        asked = int(os.environ.get("DD_READER_THREADS", ""))
    except ValueError:
        asked = 0
    if asked > 0:
        return asked
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(4, cores or 1)


#: How many threads work at once (read at each call: a process pool's workers set it to
#: 1, the cores being the pool's already).
WORKERS = _workers()

#: Images of more pixels than this are worked on one item after the other: a photo read
#: again at full size would hold two colours' distance maps and skeletons at once (100 MB
#: more at the peak, which is kept under 1 GB).
MAX_SHARED_PIXELS = 6_000_000
#: Per-pixel work on images of fewer pixels than this is done in one thread: handing
#: work to the pool costs about 0.1 ms, what a few NumPy passes over these take.
MIN_SHARED_PIXELS = 100_000


def _start_pool() -> None:
    """The reader's pool of threads, started anew in a forked child too: a process
    forked after the pool ran has none of its threads, yet the pool thinks it has them,
    and its work would wait for ever."""
    global _pool
    _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="vision")


# Before the pool's threads allocate anything.
memory.one_heap_for_all_threads()
memory.keep_freed_memory()
_pool: ThreadPoolExecutor
_start_pool()
os.register_at_fork(after_in_child=_start_pool)
_in_pool = threading.local()


def map_in_threads(
    function: Callable[[Item], Result], items: Iterable[Item], pixels: int | None = None
) -> list[Result]:
    """``[function(item) for item in items]``, computed in the reader's threads, unless
    each item works on an image of more than :data:`MAX_SHARED_PIXELS` ``pixels`` or
    fewer than :data:`MIN_SHARED_PIXELS` (None: of no image, or of one not measured).

    A call from inside one of those threads runs in that thread, one item after the
    other: a task that waited for tasks queued behind it could wait for ever. Where
    items fail, the first of them (in the order of the items) raises, once every item
    has ended.
    """
    items = list(items)
    alone = pixels is not None and not MIN_SHARED_PIXELS <= pixels <= MAX_SHARED_PIXELS
    if WORKERS < 2 or len(items) < 2 or alone or getattr(_in_pool, "active", False):
        return [function(item) for item in items]

    def run(item: Item) -> Result:
        _in_pool.active = True
        try:
            return function(item)
        finally:
            _in_pool.active = False

    futures = [_pool.submit(run, item) for item in items]
    # Every item ends before this returns, also where one fails: none goes on working
    # (on a reading the caller has given up, say) after the failure is raised.
    wait(futures)
    return [future.result() for future in futures]


def all_at_once(jobs: Iterable[Callable[[], Any]], pixels: int | None = None) -> list[Any]:
    """``[job() for job in jobs]``, computed at once as :func:`map_in_threads` does."""
    return map_in_threads(lambda job: job(), jobs, pixels)


def both(
    first: Callable[[], First], second: Callable[[], Second], pixels: int | None = None
) -> tuple[First, Second]:
    """``(first(), second())``, the two computed at once as :func:`map_in_threads` does."""
    results = all_at_once([first, second], pixels)
    return results[0], results[1]


def for_each_band(function: Callable[[slice], Any], height: int, width: int) -> None:
    """``function(rows)`` for bands of the rows ``0..height`` of an image ``width``
    wide, one band for each of the reader's threads (one band in all where the image
    has fewer than :data:`MIN_SHARED_PIXELS` pixels): for per-pixel NumPy work, which
    runs on one core, and through memory about as fast in one large band as in many."""
    if height < 0 or width < 0:
        raise ValueError(f"an image is at least 0 x 0 pixels, got {height} x {width}")
    shared = height * width >= MIN_SHARED_PIXELS
    rows = -(-height // WORKERS) if shared else max(height, 1)
    bands = [slice(top, min(top + rows, height)) for top in range(0, height, rows)]
    map_in_threads(function, bands)
