"""The learned parts' networks, run by ONNX Runtime (vision.networks)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

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
