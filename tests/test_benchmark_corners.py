"""The benchmark of where the photo's pixels place demons read perfectly."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "sample_images" / "01_easy_light_wood.truth.json"


def _benchmark() -> ModuleType:
    """benchmarks/corners_in_pixels.py as a module (the folder is not a package)."""
    path = ROOT / "benchmarks" / "corners_in_pixels.py"
    spec = importlib.util.spec_from_file_location("corners_in_pixels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _truth() -> dict[str, Any]:
    truth: dict[str, Any] = json.loads(TRUTH.read_text())
    return truth


def _cornered_demon(truth: dict[str, Any]) -> dict[str, Any]:
    creature: dict[str, Any] = next(
        c for c in truth["creatures"] if c["kind"] == "demon" and c["crossing"] is not None)
    return creature


def test_each_demon_on_the_board_gets_one_outcome_and_an_easy_board_agrees() -> None:
    bench, truth = _benchmark(), _truth()
    outcomes = dict(bench.demon_outcomes(truth))
    demons = [c["id"] for c in truth["creatures"] if c["kind"] == "demon" and not c["off_board"]]
    assert sorted(outcomes) == sorted(demons)
    # A camera nearly straight above: the pixels place each demon as the table does.
    assert set(outcomes.values()) == {bench.AGREE}


def test_a_demon_put_elsewhere_in_pixels_is_told_which_way() -> None:
    bench, truth = _benchmark(), _truth()
    demon = _cornered_demon(truth)
    other = next(x["id"] for x in truth["crossings"] if x["id"] != demon["crossing"])

    def outcome_when(**changes: Any) -> str:
        changed = copy.deepcopy(truth)
        creature = next(c for c in changed["creatures"] if c["id"] == demon["id"])
        creature.update(changes)
        return str(dict(bench.demon_outcomes(changed))[demon["id"]])

    assert outcome_when(crossing=other) == bench.OTHER
    assert outcome_when(crossing=None) == bench.CORNER_IN_PIXELS
    # A pawn a pixel wide stands hundreds of its radii from every crossing.
    assert outcome_when(pawn_px=1.0) == bench.NONE_IN_PIXELS
    assert outcome_when(pawn_px=1.0, crossing=None) == bench.BOTH_NONE
    with pytest.raises(ValueError, match=f"creature {demon['id']} has no pawn_px"):
        outcome_when(pawn_px=None)
    with pytest.raises(ValueError, match="crossing 999, which the truth does not have"):
        outcome_when(crossing=999)


def test_a_truth_crossing_a_few_pixels_from_the_built_one_is_the_same() -> None:
    # The truth's crossing points and those built from its lines are computed apart.
    bench, truth = _benchmark(), _truth()
    for crossing in truth["crossings"]:
        crossing["xy"] = [crossing["xy"][0] + 6.0, crossing["xy"][1] - 6.0]
    assert {outcome for _, outcome in bench.demon_outcomes(truth)} == {bench.AGREE}


def test_the_benchmark_prints_its_figures_for_a_set(tmp_path: Path) -> None:
    truth = _truth()
    (tmp_path / "a.truth.json").write_text(json.dumps(truth))
    moved = copy.deepcopy(truth)
    demon = _cornered_demon(moved)
    demon["crossing"] = None
    (tmp_path / "b.truth.json").write_text(json.dumps(moved))
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "corners_in_pixels.py"), "--set", str(tmp_path)],
        capture_output=True, text=True, check=True, timeout=120,
    )
    demons = sum(c["kind"] == "demon" and not c["off_board"] for c in truth["creatures"])
    assert f"2 boards, {2 * demons} demons" in run.stdout
    assert "boards with a demon elsewhere in pixels: 1 of 2" in run.stdout
    assert f"  b: demon {demon['id']} (no corner on the table, one in pixels)" in run.stdout
