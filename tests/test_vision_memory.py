"""The reader's memory: kept in the heap while it reads, given back once it is idle.

These look at the process's resident memory (Linux's /proc/self/statm), so they run only
where the reader tunes glibc's malloc.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from vision import memory, parallel  # noqa: F401  (parallel tunes malloc on import)

pytestmark = pytest.mark.skipif(
    not memory.keeps_freed_memory(), reason="malloc is not glibc's, or the user tuned it"
)

BLOCK_BYTES = 200 << 20


def resident_bytes() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096


def let_go_of_a_large_block() -> int:
    """Write a large block, free it, and return the resident size while it was held."""
    block = np.ones(BLOCK_BYTES, np.uint8)
    held = resident_bytes()
    del block
    return held


def given_back_within(seconds: float, below: int) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if resident_bytes() < below:
            return True
        time.sleep(0.02)
    return False


def test_a_freed_block_stays_until_the_reader_has_been_idle(monkeypatch):
    monkeypatch.setattr(memory, "IDLE_SECONDS", 0.3)
    with memory.reading():
        held = let_go_of_a_large_block()
        # Freed, it stays for the next allocation ...
        assert resident_bytes() > held - BLOCK_BYTES // 4
    # ... also while the next reading follows at once ...
    with memory.reading():
        time.sleep(0.6)
        assert resident_bytes() > held - BLOCK_BYTES // 4
    # ... and goes back to the system once no reading has run for IDLE_SECONDS.
    assert given_back_within(5.0, below=held - BLOCK_BYTES // 2)


def test_the_same_pages_serve_the_next_block():
    with memory.reading():
        let_go_of_a_large_block()
        before = resident_bytes()
        again = let_go_of_a_large_block()
    # The second block took the pages the first let go of, not another 200 MB.
    assert again < before + BLOCK_BYTES // 4


def test_within_blocks_given_back_a_freed_block_goes_at_once():
    with memory.reading():
        with memory.blocks_given_back():
            held = let_go_of_a_large_block()
            assert resident_bytes() < held - BLOCK_BYTES // 2
        # Outside again, freed blocks are kept.
        held = let_go_of_a_large_block()
        assert resident_bytes() > held - BLOCK_BYTES // 4
