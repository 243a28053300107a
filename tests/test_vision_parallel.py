"""The reader's threads: results in the items' order, nesting, errors, large images."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from vision import parallel
from vision.parallel import (
    MAX_SHARED_PIXELS,
    MIN_SHARED_PIXELS,
    all_at_once,
    both,
    for_each_band,
    map_in_threads,
)
from vision.reader import read_photo

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


@pytest.fixture
def two_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "WORKERS", 2)


@pytest.mark.usefixtures("two_workers")
def test_results_come_in_the_items_order_whichever_finishes_first() -> None:
    def slow_first(item: int) -> int:
        time.sleep(0.05 if item == 0 else 0.0)
        return item * item

    assert map_in_threads(slow_first, range(5)) == [0, 1, 4, 9, 16]


@pytest.mark.usefixtures("two_workers")
def test_the_items_run_in_other_threads_unless_the_image_is_large() -> None:
    def thread_name(_: int) -> str:
        return threading.current_thread().name

    assert all(name.startswith("vision") for name in map_in_threads(thread_name, range(4)))
    alone = map_in_threads(thread_name, range(4), pixels=MAX_SHARED_PIXELS + 1)
    assert alone == [threading.current_thread().name] * 4


@pytest.mark.usefixtures("two_workers")
def test_work_on_small_images_stays_in_this_thread() -> None:
    def thread_name(_: int) -> str:
        return threading.current_thread().name

    here = threading.current_thread().name
    assert map_in_threads(thread_name, range(4), MIN_SHARED_PIXELS - 1) == [here] * 4
    shared = map_in_threads(thread_name, range(4), MIN_SHARED_PIXELS)
    assert all(name.startswith("vision") for name in shared)


@pytest.mark.usefixtures("two_workers")
def test_the_bands_cover_every_row_once_one_band_a_thread() -> None:
    seen: list[tuple[int, int, str]] = []

    def note(rows: slice) -> None:
        seen.append((rows.start, rows.stop, threading.current_thread().name))

    for_each_band(note, 1001, MIN_SHARED_PIXELS // 1000)
    assert sorted((start, stop) for start, stop, _ in seen) == [(0, 501), (501, 1001)]
    assert all(name.startswith("vision") for _, _, name in seen)
    seen.clear()
    for_each_band(note, 10, 10)  # a small image: one band, here
    assert seen == [(0, 10, threading.current_thread().name)]
    seen.clear()
    for_each_band(note, 0, 10)
    assert seen == []
    with pytest.raises(ValueError, match="0 x 0"):
        for_each_band(note, -1, 10)


@pytest.mark.usefixtures("two_workers")
def test_a_call_inside_a_thread_runs_there_and_does_not_wait_for_ever() -> None:
    def inner(item: int) -> tuple[int, list[str]]:
        names = map_in_threads(lambda _: threading.current_thread().name, range(3))
        return item, names

    results: list[tuple[int, list[str]]] = []
    # In a thread of its own, so that a pool waiting on itself fails the test, not hangs it.
    outer = threading.Thread(target=lambda: results.extend(map_in_threads(inner, range(4))))
    outer.start()
    outer.join(timeout=20)
    assert not outer.is_alive(), "the nested calls wait for each other"
    for _, names in results:
        assert len(set(names)) == 1  # all three in the one thread that ran ``inner``
        assert names[0].startswith("vision")
    assert [item for item, _ in results] == [0, 1, 2, 3]


@pytest.mark.usefixtures("two_workers")
def test_an_error_in_an_item_reaches_the_caller() -> None:
    def fail_on_two(item: int) -> int:
        if item == 2:
            raise ValueError("item two")
        return item

    with pytest.raises(ValueError, match="item two"):
        map_in_threads(fail_on_two, range(4))
    # The pool still works after it.
    assert map_in_threads(lambda x: x + 1, [1, 2]) == [2, 3]


@pytest.mark.usefixtures("two_workers")
def test_an_error_is_raised_once_every_other_item_has_ended() -> None:
    # A reading that fails is given up: no item of it may go on working afterwards.
    ended: list[int] = []

    def fail_first(item: int) -> None:
        if item == 0:
            raise ValueError("item zero")
        time.sleep(0.1)
        ended.append(item)

    with pytest.raises(ValueError, match="item zero"):
        map_in_threads(fail_first, range(3))
    assert sorted(ended) == [1, 2]


def test_one_worker_runs_everything_in_the_callers_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel, "WORKERS", 1)
    names = map_in_threads(lambda _: threading.current_thread().name, range(3))
    assert names == [threading.current_thread().name] * 3


@pytest.mark.usefixtures("two_workers")
def test_both_gives_the_two_results_in_order() -> None:
    def slow() -> str:
        time.sleep(0.05)
        return "first"

    assert both(slow, lambda: 2) == ("first", 2)


@pytest.mark.usefixtures("two_workers")
def test_all_at_once_runs_every_job_in_the_threads_and_keeps_their_order() -> None:
    caller = threading.get_ident()

    def job(n: int) -> tuple[int, bool]:
        time.sleep(0.01 * (3 - n))  # the first finishes last
        return n, threading.get_ident() != caller

    assert all_at_once([lambda n=n: job(n) for n in range(3)]) == [(0, True), (1, True), (2, True)]


def _squares_in_threads(queue: multiprocessing.Queue[list[int]]) -> None:
    queue.put(map_in_threads(lambda x: x * x, range(4)))


@pytest.mark.usefixtures("two_workers")
def test_a_process_forked_after_the_threads_ran_still_has_threads() -> None:
    # The accuracy benchmark forks readers; a pool copied from a parent that had used
    # it has no threads of its own.
    assert map_in_threads(lambda x: x, range(4)) == [0, 1, 2, 3]
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[list[int]] = context.Queue()
    child = context.Process(target=_squares_in_threads, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=20) == [0, 1, 4, 9]
    finally:
        child.join(timeout=5)
        if child.is_alive():
            child.kill()


def test_a_photo_reads_the_same_with_threads_as_without(monkeypatch: pytest.MonkeyPatch) -> None:
    photo = SAMPLES / "04_normal_white_table.jpg"  # white table: the ghost cues run too
    monkeypatch.setattr(parallel, "WORKERS", 1)
    alone = read_photo(photo).report
    monkeypatch.setattr(parallel, "WORKERS", 2)
    threaded = read_photo(photo).report
    assert threaded == alone
    # Every image shared out, however small (the eight views' maps, a few candidates).
    monkeypatch.setattr(parallel, "MIN_SHARED_PIXELS", 0)
    assert read_photo(photo).report == alone
    assert alone["creatures"] and len(alone["lines"]) == 4
