"""The reader's memory: kept in the heap while it reads, given back once it is idle.

Each case runs in a fresh interpreter: what earlier tests left in this process's heap
(a free hole a block fits in, a timer about to give the heap back) would decide it.
They look at the process's resident memory (Linux's /proc/self/statm), so they run only
where the reader tunes glibc's malloc.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vision import memory

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or memory._LIBC is None,
    reason="malloc is not glibc's",
)

PRELUDE = """
import resource, sys, threading, time
from pathlib import Path
import numpy as np
import vision.parallel  # tunes malloc, as the reader does when it is imported
from vision import memory

if not memory.freed_memory_is_kept():
    sys.exit(3)  # the user tuned malloc: nothing to test
BLOCK = 200 << 20

def resident():
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize()

def let_go_of_a_block():
    block = np.ones(BLOCK, np.uint8)
    held = resident()
    del block
    return held

def given_back_within(seconds, below):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if resident() < below:
            return True
        time.sleep(0.02)
    return False
"""


def run_case(body: str, prelude: str = PRELUDE, env: dict[str, str] | None = None) -> None:
    """Run ``body`` after ``prelude`` in a fresh interpreter; it asserts."""
    script = prelude + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    if done.returncode == 3:
        pytest.skip("malloc tuned by the environment")
    assert done.returncode == 0, done.stderr


def test_a_freed_block_stays_until_the_reader_has_been_idle():
    run_case("""
        memory.IDLE_SECONDS = 0.3
        with memory.reading():
            held = let_go_of_a_block()
            # Freed, it stays for the next allocation ...
            assert resident() > held - BLOCK // 4
        # ... also while the next reading follows at once ...
        with memory.reading():
            time.sleep(0.6)
            assert resident() > held - BLOCK // 4
        # ... and goes back to the system once no reading has run for IDLE_SECONDS.
        assert given_back_within(5.0, below=held - BLOCK // 2)
    """)


def test_the_heap_is_given_back_only_after_the_last_of_two_readings_at_once():
    run_case("""
        memory.IDLE_SECONDS = 0.2
        entered, release = threading.Event(), threading.Event()
        def second_reading():
            with memory.reading():
                entered.set()
                release.wait(30)
        with memory.reading():
            held = let_go_of_a_block()
            other = threading.Thread(target=second_reading)
            other.start()
            assert entered.wait(30)
        # The first reading is over, the second is not: nothing is given back.
        time.sleep(0.5)
        assert resident() > held - BLOCK // 4
        release.set()
        other.join()
        assert given_back_within(5.0, below=held - BLOCK // 2)
    """)


def test_the_same_pages_serve_the_next_block():
    run_case("""
        with memory.reading():
            let_go_of_a_block()
            before = resident()
            again = let_go_of_a_block()
        # The second block took the pages the first let go of, not another 200 MB.
        assert again < before + BLOCK // 4
    """)


def test_within_blocks_given_back_a_freed_block_goes_at_once():
    run_case("""
        with memory.reading():
            with memory.blocks_given_back():
                with memory.blocks_given_back():  # nested: still given back
                    held = let_go_of_a_block()
                    assert resident() < held - BLOCK // 2
                held = let_go_of_a_block()
                assert resident() < held - BLOCK // 2
            # Outside again, freed blocks are kept.
            held = let_go_of_a_block()
            assert resident() > held - BLOCK // 4
    """)


def test_a_forked_child_keeps_its_own_count_of_readings():
    run_case("""
        import os
        memory.IDLE_SECONDS = 0.2
        with memory.reading():
            pid = os.fork()
        # Both leave the reading here; the child never began it.
        if pid == 0:
            code = 2
            try:
                with memory.reading():
                    held = let_go_of_a_block()
                code = 0 if given_back_within(5.0, below=held - BLOCK // 2) else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
    """)


def test_malloc_tuned_by_the_user_is_left_as_it_is():
    kept = "if not memory.freed_memory_is_kept():\n    sys.exit(3)"
    assert kept in PRELUDE
    left_alone = PRELUDE.replace(kept, "assert not memory.freed_memory_is_kept()")
    run_case(
        """
        with memory.reading():
            held = let_go_of_a_block()
            # glibc's own way: a block this large was mapped on its own and is gone.
            assert resident() < held - BLOCK // 2
        """,
        prelude=left_alone,
        env={"MALLOC_TRIM_THRESHOLD_": str(128 << 10)},
    )
