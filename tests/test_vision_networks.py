"""The learned parts' networks, run by ONNX Runtime (vision.networks)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import parallel
from vision.detect import MODEL_PATH, detector_input, load_detector
from vision.load import load_photo
from vision.networks import KEPT_HEAP_PIXELS, Network, Strips, load_network

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"


def test_a_file_that_is_no_network_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(MODEL_PATH.read_bytes()[:1000])
    with pytest.raises(ValueError, match="broken.onnx is not a network"):
        Network(path)


def test_a_network_is_loaded_once_and_shared() -> None:
    assert load_network(MODEL_PATH) is load_network(MODEL_PATH)


def test_threads_running_one_network_at_once_get_what_each_would_alone() -> None:
    # The web app reads photos in several threads, all through the one session.
    network = load_network(MODEL_PATH)
    rng = np.random.default_rng(3)
    inputs = [rng.random((1, 6, 64 + 32 * k, 96), dtype=np.float32) for k in range(6)]
    alone = [network.run(x) for x in inputs]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(network.run, inputs * 3))
    for k, output in enumerate(together):
        np.testing.assert_array_equal(output, alone[k % len(inputs)])
    # Inputs of different sizes give outputs of their own sizes (one output pixel per two).
    assert {o.shape[2] for o in alone} == {(64 + 32 * k) // 2 for k in range(6)}


def _large_detector_input() -> np.ndarray:
    """The detector's input for a sample photo scaled to 2400 x 1800 (4.3 megapixels,
    as a far-camera photo read again at full size gives it)."""
    rgb = load_photo(next(SAMPLES.glob("*.jpg")), min_working_side=4032).rgb
    scaled = cv2.resize(rgb, (2400, 1800), interpolation=cv2.INTER_AREA)
    padded = cv2.copyMakeBorder(scaled, 0, -1800 % 8, 0, 0, cv2.BORDER_REPLICATE)
    return detector_input(np.asarray(padded, np.uint8), load_detector().pawn_px)[None]


def test_a_large_input_given_in_strips_gives_the_whole_inputs_output_bit_for_bit() -> None:
    network, model = load_network(MODEL_PATH), load_detector()
    batch = _large_detector_input()
    assert batch.shape[2] * batch.shape[3] > KEPT_HEAP_PIXELS  # so it is cut
    whole = network.run(batch)
    np.testing.assert_array_equal(network.run(batch, model.strips()), whole)
    # The margin is what makes them equal: with too little, rows near the cuts differ.
    narrow = network.run(batch, Strips(margin=40, stride=model.stride, multiple=8))
    differ = np.flatnonzero(np.abs(narrow - whole).max(axis=(0, 1, 3)) > 1e-3)
    # Three strips of 600 input rows: cuts at output rows 300 and 600.
    near_cut = [[abs(row - cut) < 20 for row in differ] for cut in (300, 600)]
    assert all(any(rows) for rows in near_cut)  # rows near each cut differ ...
    assert all(a or b for a, b in zip(*near_cut, strict=True))  # ... and no others


def test_an_input_that_cannot_be_cut_where_its_grids_line_up_is_refused() -> None:
    network = load_network(MODEL_PATH)
    batch = np.zeros((1, 6, 1804, 2000), np.float32)  # rows not a multiple of 8
    with pytest.raises(ValueError, match="cannot be cut in strips"):
        network.run(batch, Strips(margin=80, stride=2, multiple=8))
    lined_up = np.zeros((1, 6, 1808, 2000), np.float32)
    misaligned = (Strips(margin=84, stride=2, multiple=8), Strips(margin=80, stride=3, multiple=8))
    for strips in misaligned:
        with pytest.raises(ValueError, match="cannot be cut in strips"):
            network.run(lined_up, strips)


def test_a_network_keeps_no_buffers_and_runs_on_the_readers_threads() -> None:
    # An arena or memory patterns would keep the buffers of the largest input run,
    # 300-500 MB for a whole photo, for the process's life.
    # A network of its own: the shared one may have been loaded while a test had
    # patched the number of threads.
    options = Network(MODEL_PATH)._session.get_session_options()
    assert not options.enable_cpu_mem_arena
    assert not options.enable_mem_pattern
    assert options.intra_op_num_threads == parallel.WORKERS


def test_a_forked_child_loads_its_own_network() -> None:
    first = load_network(MODEL_PATH)
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the child: is its network the parent's?
        # Whatever happens, the child ends here: it must not run the rest of the tests,
        # nor ONNX Runtime's exit handlers (see vision.networks).
        try:
            os.close(reader)
            same = load_network(MODEL_PATH) is first
            os.write(writer, b"same" if same else b"own")
        finally:
            os._exit(0)
    os.close(writer)
    answer = os.read(reader, 16)
    os.close(reader)
    os.waitpid(child, 0)
    assert answer == b"own"
    assert load_network(MODEL_PATH) is first  # the parent keeps its own
