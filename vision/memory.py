"""How the reader's process takes and gives back memory (glibc's malloc, on Linux).

A reading allocates and frees large arrays over and over: each layer of the detector's
network writes a new activation (over 100 MB on a whole photo), each stage new masks.
By default malloc gives every block of more than a few megabytes back to the system as
soon as it is freed, and the next such block is fresh memory, which the kernel maps and
zeroes a 4 kB page at a time as it is first written. Over the 9 speed photos that was
1.9 s of system time in 7.6 s (the network's pass on a 1544×1160 input took 210 ms, of
which 90 were page faults). So the reader's process takes every block from its heap and
keeps there what is freed (:func:`keep_freed_memory`), and the free part of the heap is
given back to the system (:func:`give_back`) once no reading has run for
:data:`IDLE_SECONDS` (:func:`reading`): photos read one after another reuse the same
pages, and a web server that read one photo does not keep its peak for ever.

Elsewhere (no glibc) nothing changes.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: The heap's free part is given back this many seconds after the last reading ended.
IDLE_SECONDS = 2.0

# From glibc's malloc.h.
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8
#: Free memory at the top of the heap is given back only above this (1 GiB: not while
#: reading; :func:`give_back` does it).
_KEEP_TOP_BYTES = 1 << 30


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
#: Whether :func:`keep_freed_memory` asked malloc to keep every block in the heap.
_kept = False


def one_heap_for_all_threads() -> None:
    """Ask malloc to keep one heap (arena) for every thread.

    By default each thread that allocates gets a heap of its own, and the masks a
    thread let go of stay in its heap: reading nine photos in a row then held 130 MB
    more at the end (802 against 672 MB). The threads allocate a few large arrays
    each, so sharing one heap costs no measurable time. Not where MALLOC_ARENA_MAX is
    set already.
    """
    if _LIBC is not None and "MALLOC_ARENA_MAX" not in os.environ:
        _LIBC.mallopt(_M_ARENA_MAX, 1)


def keep_freed_memory() -> None:
    """Ask malloc to take every block from the heap (none mapped on its own) and not to
    give the heap's top back when a block there is freed; :func:`give_back` does.

    Not where the user tuned malloc already (MALLOC_MMAP_MAX_ or MALLOC_TRIM_THRESHOLD_).
    """
    global _kept
    tuned = {"MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_"} & set(os.environ)
    if _LIBC is not None and not tuned:
        _LIBC.mallopt(_M_MMAP_MAX, 0)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, _KEEP_TOP_BYTES)
        _kept = True


#: malloc's own default for how many blocks it maps on their own.
_DEFAULT_MMAP_MAX = 65536
_lock = threading.Lock()
_readings = 0
_timer: threading.Timer | None = None
_giving_back = 0


@contextmanager
def blocks_given_back() -> Iterator[None]:
    """Within: large blocks are mapped on their own and given back when freed, as by
    malloc's default (the heap's free pages are given back first).

    Where the heap kept whole would grow past what the work needs at once by more than
    the time saved is worth: a photo read at full size.
    """
    global _giving_back
    with _lock:
        _giving_back += 1
        if _LIBC is not None and _giving_back == 1 and _kept:
            _LIBC.mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
    give_back()
    try:
        yield
    finally:
        with _lock:
            _giving_back -= 1
            if _LIBC is not None and _giving_back == 0 and _kept:
                _LIBC.mallopt(_M_MMAP_MAX, 0)


def keeps_freed_memory() -> bool:
    """Whether :func:`keep_freed_memory` took effect in this process."""
    return _kept


def give_back() -> None:
    """Give the heap's free pages back to the system (``malloc_trim``)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


@contextmanager
def reading() -> Iterator[None]:
    """Mark a reading: the heap's free pages are given back :data:`IDLE_SECONDS` after
    the last of the readings under way ends, unless another begins before."""
    global _readings, _timer
    with _lock:
        _readings += 1
        if _timer is not None:
            _timer.cancel()
            _timer = None
    try:
        yield
    finally:
        with _lock:
            _readings -= 1
            if _readings == 0:
                _timer = threading.Timer(IDLE_SECONDS, _give_back_if_idle)
                _timer.daemon = True  # the process need not wait for it to exit
                _timer.start()


def _give_back_if_idle() -> None:
    with _lock:
        if _readings:
            return
    give_back()


def _forget_timer() -> None:
    """In a forked child: no reading is under way there, and the timer's thread was not
    copied."""
    global _readings, _timer, _lock, _giving_back
    _lock = threading.Lock()
    _readings, _timer = 0, None
    if _giving_back and _LIBC is not None and _kept:
        _LIBC.mallopt(_M_MMAP_MAX, 0)
    _giving_back = 0


os.register_at_fork(after_in_child=_forget_timer)
