"""The robustness benchmark: the truth of a smaller photo, and one run of it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _robustness() -> ModuleType:
    """benchmarks/robustness.py as a module (the folder is not a package)."""
    path = ROOT / "benchmarks" / "robustness.py"
    spec = importlib.util.spec_from_file_location("robustness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["robustness"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_a_scaled_truth_moves_every_point_with_the_pixels() -> None:
    truth = json.loads(next((ROOT / "sample_images").glob("*.truth.json")).read_text())
    half = _robustness().scaled_truth(truth, 0.5)
    assert half["image"] == {"width": truth["image"]["width"] // 2,
                             "height": truth["image"]["height"] // 2}
    for colour, line in truth["lines"].items():
        assert np.allclose(half["lines"][colour]["polyline"], np.array(line["polyline"]) / 2)
        if line["knot"] is not None:
            assert np.allclose(half["lines"][colour]["knot"], np.array(line["knot"]) / 2)
    assert [c["xy"] for c in half["crossings"]] == [
        [x / 2, y / 2] for x, y in (c["xy"] for c in truth["crossings"])]
    bounded = [f for f in truth["fields"] if f["polygon"] is not None]
    assert bounded
    for before, after in zip(truth["fields"], half["fields"], strict=True):
        if before["polygon"] is not None:
            assert np.allclose(after["polygon"], np.array(before["polygon"]) / 2)
    for before, after in zip(truth["creatures"], half["creatures"], strict=True):
        assert after["xy"] == [before["xy"][0] / 2, before["xy"][1] / 2]
        assert after["pawn_px"] == pytest.approx(before["pawn_px"] / 2)
    # What the truth says of the board itself stays.
    assert half["scores"] == truth["scores"] and half["winners"] == truth["winners"]
    assert truth["crossings"][0]["xy"] != half["crossings"][0]["xy"]  # the input is untouched


def test_the_robustness_benchmark_reads_each_worse_copy_against_its_truth(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "robustness.py"), "--set",
         str(ROOT / "sample_images"), "--limit", "1", "--only", "half-size", "--json", str(out),
         "--keep", str(tmp_path / "worse")],
        capture_output=True, text=True, check=True, timeout=300,
    )
    figures = json.loads(out.read_text())
    assert list(figures) == ["as taken", "half-size"]
    # The easy sample is read exactly at a quarter of its pixels too, its crossings
    # where the moved truth has them.
    assert figures["half-size"]["board_exact"] == 1.0
    assert figures["half-size"]["crossings_recall"] == 1.0
    (copy,) = (tmp_path / "worse" / "half-size").glob("*.jpg")
    original = next(p for p in (ROOT / "sample_images").glob("*.jpg") if p.stem == copy.stem)
    from PIL import Image

    assert Image.open(copy).size == tuple(s // 2 for s in Image.open(original).size)
    assert "half-size" in run.stdout and "as taken" in run.stdout


def test_a_scaled_truth_scales_the_sizes_a_dev_truth_gives_in_pixels() -> None:
    # The matching tolerances follow from them (vision.evaluate.tolerances_for).
    truth = json.loads(next((ROOT / "sample_images").glob("*.truth.json")).read_text())
    truth["scene"] = {"resolution": [2000, 1500], "string_width_px": 5.0,
                      "pawn_width_px": 46.0, "pawn_width_mm": 21.8}
    half = _robustness().scaled_truth(truth, 0.5)["scene"]
    assert half == {"resolution": [1000, 750], "string_width_px": 2.5,
                    "pawn_width_px": 23.0, "pawn_width_mm": 21.8}
