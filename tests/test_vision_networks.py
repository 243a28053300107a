"""The learned parts' networks, run by ONNX Runtime (vision.networks)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from vision import parallel
from vision.detect import MODEL_PATH
from vision.networks import Network, load_network


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
