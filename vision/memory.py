"""How the reader's process takes and gives back memory (glibc's malloc, on Linux).

A reading allocates and frees large arrays over and over: each layer of the detector's
network writes a new activation (over 100 MB on a whole photo), each stage new masks.
By default malloc maps each large block on its own (from 128 kB; the bar rises to the
largest block freed so far, up to 32 MB) and gives it back to the system as soon as it
is freed, and the next such block is fresh memory, which the kernel maps and zeroes a
4 kB page at a time as it is first written. Over the 9 speed photos that was 1.9 s of
system time in 7.6 s (the network's pass on a 1544×1160 input took 210 ms, of which 90
were page faults). So the reader's process takes every block from its heap and keeps
there what is freed (:func:`keep_freed_memory`), and the free part of the heap is given
back to the system (:func:`give_back`) once no reading has run for :data:`IDLE_SECONDS`
(:func:`reading`): photos read one after another reuse the same pages, and a web server
that read one photo does not keep its peak for ever.

The settings are the process's, not a thread's, and are made when :mod:`vision.parallel`
is imported (before its threads start): memory a process that imports the reader frees
outside a reading stays in its heap until a reading has ended and the reader is idle.
Elsewhere (no glibc, or malloc tuned by the user through its environment variables)
nothing changes.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

#: The heap's free part is given back this many seconds after the last reading ended.
IDLE_SECONDS = 2.0

# From glibc's malloc.h.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8
#: Free memory at the top of the heap is given back only above this (1 GiB: not while
#: reading; :func:`give_back` does it).
_KEEP_TOP_BYTES = 1 << 30
#: Within :func:`blocks_given_back`: blocks from this size are mapped on their own
#: (malloc's first bar, before it rises with the blocks freed; a higher one left more
#: blocks in the heap's holes: a far-camera photo peaked at 906 against 751 MB with
#: 32 MB), and the heap's top is given back above twice that.
_OWN_MAPPING_BYTES = 128 << 10
_MMAP_MAX = 65536  # malloc's default
#: Environment variables (and GLIBC_TUNABLES names) by which a user tunes malloc.
_USER_TUNING = ("MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")
_USER_TUNABLES = (
    "glibc.malloc.mmap_max",
    "glibc.malloc.trim_threshold",
    "glibc.malloc.mmap_threshold",
)


def _glibc() -> ctypes.CDLL | None:
    """The C library, if it is glibc on Linux (musl and others have no ``mallopt``)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.mallopt.restype = ctypes.c_int
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()
#: The C library, once :func:`keep_freed_memory` has made malloc keep freed blocks.
_kept_by: ctypes.CDLL | None = None


def one_heap_for_all_threads() -> None:
    """Ask malloc to keep one heap (arena) for every thread.

    By default each thread that allocates gets a heap of its own, and the masks a
    thread let go of stay in its heap: reading nine photos in a row then held 130 MB
    more at the end (802 against 672 MB). The threads allocate a few large arrays
    each, so sharing one heap costs no measurable time. Not where MALLOC_ARENA_MAX is
    set already. To take effect, called before other threads allocate.
    """
    if _LIBC is not None and "MALLOC_ARENA_MAX" not in os.environ:
        _LIBC.mallopt(_M_ARENA_MAX, 1)


def keep_freed_memory() -> None:
    """Ask malloc to take every block from the heap (none mapped on its own) and not to
    give the heap's top back when a block there is freed; :func:`give_back` does.

    Not where the user tuned malloc already.
    """
    global _kept_by
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    tuned = any(name in os.environ for name in _USER_TUNING) or any(
        name in tunables for name in _USER_TUNABLES
    )
    if _LIBC is None or tuned or _kept_by is not None:
        return
    # mallopt answers 1 when it took the setting (a stand-in malloc may not).
    if _keep(_LIBC):
        _kept_by = _LIBC


def _keep(libc: ctypes.CDLL) -> bool:
    """Set malloc to keep freed blocks in the heap; whether it took both settings."""
    return bool(
        libc.mallopt(_M_MMAP_MAX, 0) == 1 and libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_TOP_BYTES)
    )


def freed_memory_is_kept() -> bool:
    """Whether :func:`keep_freed_memory` took effect in this process."""
    return _kept_by is not None


class _UnderWay:
    """How many of one kind of work are under way in this process, with what to do
    when the first begins and when the last ends (under the count's lock)."""

    def __init__(self, first_begins: Callable[[], None], last_ends: Callable[[], None]):
        self._first_begins, self._last_ends = first_begins, last_ends
        self._lock, self._count = threading.Lock(), 0

    @contextmanager
    def one(self) -> Iterator[None]:
        pid = os.getpid()
        with self._lock:
            self._count += 1
            if self._count == 1:
                self._first_begins()
        try:
            yield
        finally:
            if os.getpid() == pid:  # a forked child starts with none under way
                with self._lock:
                    self._count -= 1
                    if self._count == 0:
                        self._last_ends()

    def reset_in_child(self) -> bool:
        """In a forked child: none is under way there, and a lock another thread held
        stays held in the copy. Whether any was under way in the parent."""
        was = self._count > 0
        self._lock, self._count = threading.Lock(), 0
        return was


def _map_blocks_on_their_own() -> None:
    if _kept_by is not None:
        _kept_by.mallopt(_M_MMAP_THRESHOLD, _OWN_MAPPING_BYTES)
        _kept_by.mallopt(_M_TRIM_THRESHOLD, 2 * _OWN_MAPPING_BYTES)
        _kept_by.mallopt(_M_MMAP_MAX, _MMAP_MAX)
        give_back()


def _keep_again() -> None:
    if _kept_by is not None:
        _keep(_kept_by)


_giving_back = _UnderWay(_map_blocks_on_their_own, _keep_again)


def blocks_given_back() -> AbstractContextManager[None]:
    """Within: blocks from 128 kB are mapped on their own and given back when freed,
    and the heap's top is given back above 256 kB; the heap's free pages are given
    back on entering.

    For work whose blocks, kept in the heap, would leave holes that the next blocks do
    not fit, so that the heap grows past what the work holds at once: a photo read at
    full size. (A smaller block still takes a hole of the heap that fits it, as malloc
    always does, and that hole's pages stay until :func:`give_back`.) The setting is
    the process's: readings in other threads meanwhile give their blocks back too.
    """
    return _giving_back.one()


def give_back() -> None:
    """Give the heap's free pages back to the system (``malloc_trim``), where
    :func:`keep_freed_memory` made malloc keep them."""
    if _kept_by is not None:
        _kept_by.malloc_trim(0)


_timer: threading.Timer | None = None


def _stop_timer() -> None:
    global _timer
    if _timer is not None:
        _timer.cancel()
        _timer = None


def _start_timer() -> None:
    global _timer
    _timer = threading.Timer(IDLE_SECONDS, give_back)
    _timer.daemon = True  # the process need not wait for it to exit
    _timer.start()


_readings = _UnderWay(_stop_timer, _start_timer)


def reading() -> AbstractContextManager[None]:
    """Mark a reading: the heap's free pages are given back :data:`IDLE_SECONDS` after
    the last of the readings under way ends, unless another begins before. (A reading
    that begins just as the timer fires finds the pages given back a little early.)"""
    return _readings.one()


def _reset_in_child() -> None:
    """In a forked child: no reading is under way there, and the timer's thread was not
    copied."""
    global _timer
    _timer = None
    _readings.reset_in_child()
    if _giving_back.reset_in_child():
        _keep_again()


os.register_at_fork(after_in_child=_reset_in_child)
