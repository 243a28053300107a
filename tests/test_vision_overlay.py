"""The overlay draws what the report says, where it says, on a copy of the photo."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from vision.doubts import missed_pawn_warning
from vision.overlay import COLOURS_RGB, _label_point, _panel_rows, draw_overlay

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "sample_images" / "05_normal_violations.truth.json"


@pytest.fixture(scope="module")
def truth() -> dict[str, Any]:
    report: dict[str, Any] = json.loads(TRUTH.read_text())
    return report


def blank(width: int, height: int) -> np.ndarray:
    return np.full((height, width, 3), 128, dtype=np.uint8)


def near_colour(image: np.ndarray, xy: tuple[int, int], rgb: tuple[int, int, int]) -> bool:
    """Whether a pixel within 1 px of ``xy`` has about this colour."""
    x, y = xy
    patch = image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(int)
    return bool((np.abs(patch - rgb).max(axis=1) <= 40).any())


def test_the_photo_is_not_changed_and_the_size_is_kept(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    photo = blank(width, height)
    before = copy.deepcopy(truth)
    out = draw_overlay(photo, truth)
    assert out.shape == photo.shape and out.dtype == np.uint8
    assert (photo == 128).all()
    assert truth == before
    assert (out != 128).any(axis=2).mean() > 0.01


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_loops_are_drawn_in_their_colours_where_the_report_says(
    truth: dict[str, Any], scale: float
) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    out = draw_overlay(blank(round(width / scale), round(height / scale)), truth, scale)
    for colour, line in truth["lines"].items():
        polyline = line["polyline"]
        # Points away from crossings and creatures, where nothing else is drawn on top.
        clear = [
            p for p in polyline[::25]
            if all(np.hypot(p[0] - c["xy"][0], p[1] - c["xy"][1]) > 60
                   for c in truth["crossings"] + truth["creatures"])
            and (line["knot"] is None or np.hypot(p[0] - line["knot"][0],
                                                   p[1] - line["knot"][1]) > 60)
        ]
        hits = [near_colour(out, (round(x / scale), round(y / scale)), COLOURS_RGB[colour])
                for x, y in clear]
        assert len(hits) >= 5
        assert np.mean(hits) > 0.8, colour


def test_each_creature_is_marked_in_its_colour(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    out = draw_overlay(blank(width, height), {"creatures": truth["creatures"]})
    for creature in truth["creatures"]:
        x, y = (round(v) for v in creature["xy"])
        assert near_colour(out, (x, y), COLOURS_RGB[creature["colour"]]), creature["id"]


def test_violations_get_a_red_ring_and_the_others_do_not(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    creatures = truth["creatures"]
    in_violation = {i for v in truth["violations"] for i in v["creatures"]}
    assert in_violation and len(in_violation) < len(creatures)
    with_rules = draw_overlay(blank(width, height), truth)
    without = draw_overlay(blank(width, height), {**truth, "violations": []})
    where = {c["id"]: np.asarray(c["xy"]) for c in creatures}
    for creature in creatures:
        x, y = (round(v) for v in creature["xy"])
        ring = (slice(y - 50, y + 51), slice(x - 50, x + 51))
        red = np.abs(with_rules[ring].astype(int) - (255, 30, 30)).max(axis=2) <= 30
        red_before = np.abs(without[ring].astype(int) - (255, 30, 30)).max(axis=2) <= 30
        gained = int(red.sum()) - int(red_before.sum())
        if creature["id"] in in_violation:
            assert gained > 100, creature["id"]
        elif min(np.hypot(*(where[i] - (x, y))) for i in in_violation) > 150:
            under_panel = (with_rules[ring] == round(128 * 0.3)).all(axis=2).any()
            assert gained == 0 or under_panel, creature["id"]


def test_low_confidence_items_are_marked(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    sure = copy.deepcopy(truth)
    for item in sure["creatures"] + sure["crossings"]:
        item["confidence"] = 0.95
    unsure = copy.deepcopy(sure)
    unsure["creatures"][3]["confidence"] = 0.4
    a = draw_overlay(blank(width, height), sure)
    b = draw_overlay(blank(width, height), unsure)
    changed = np.argwhere((a != b).any(axis=2))
    assert len(changed) > 0
    x, y = unsure["creatures"][3]["xy"]
    near = np.hypot(changed[:, 1] - x, changed[:, 0] - y) < 60
    # The "?" by the creature, and the count of unsure items in the panel.
    assert near.any() and (~near).any()


def test_an_unsure_knot_is_marked(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    sure = copy.deepcopy(truth)
    for item in sure["creatures"] + sure["crossings"]:
        item["confidence"] = 0.95
    colour = next(c for c, line in sure["lines"].items() if line["knot"] is not None)
    sure["lines"][colour]["knot_confidence"] = 0.9
    unsure = copy.deepcopy(sure)
    unsure["lines"][colour]["knot_confidence"] = 0.3
    a = draw_overlay(blank(width, height), sure)
    b = draw_overlay(blank(width, height), unsure)
    changed = np.argwhere((a != b).any(axis=2))
    x, y = unsure["lines"][colour]["knot"]
    near = np.hypot(changed[:, 1] - x, changed[:, 0] - y) < 80
    # "K?" beside the knot, and one unsure item counted in the panel.
    assert near.any() and (~near).any()


def test_a_pawn_the_camera_may_have_missed_is_ringed(truth: dict[str, Any]) -> None:
    """The place of a missed_pawn_warning gets a ring and a "?"; another warning's
    place (a blob's middle) only its line in the panel."""
    width, height = truth["image"]["width"], truth["image"]["height"]
    quiet = copy.deepcopy(truth)
    quiet["warnings"] = []
    # The place farthest from every creature, 200 px in from the photo's edges.
    far = max(
        ((px, py) for px in range(200, width - 200, 50) for py in range(200, height - 200, 50)),
        key=lambda p: min(np.hypot(p[0] - c["xy"][0], p[1] - c["xy"][1])
                          for c in truth["creatures"]),
    )
    missed, other = copy.deepcopy(quiet), copy.deepcopy(quiet)
    missed["warnings"] = [missed_pawn_warning("red", "demon", f"({far[0]}, {far[1]})")]
    other["warnings"] = [f"2 touching red pawns read near ({far[0]}, {far[1]})"]
    base = draw_overlay(blank(width, height), quiet)
    for report, ringed in ((missed, True), (other, False)):
        changed = np.argwhere((draw_overlay(blank(width, height), report) != base).any(axis=2))
        near = np.hypot(changed[:, 1] - far[0], changed[:, 0] - far[1]) < 60
        assert (near.sum() > 50) == ringed and (~near).any()  # and the panel's line


def test_the_panel_goes_where_the_board_is_not() -> None:
    # A board in the top-left quarter: the panel must go to another corner.
    report = {
        "lines": {"red": {"polyline": [[20, 20], [480, 20], [480, 380], [20, 380]],
                          "knot": None}},
        "scores": {"red": 3, "yellow": 0, "green": 0, "blue": 0, "white": 0},
        "winners": ["red"],
    }
    out = draw_overlay(blank(1000, 800), report)
    darkened = (out < 60).all(axis=2)
    assert darkened[:400, :500].mean() < 0.05
    assert darkened[400:, :].mean() > 0.01 or darkened[:, 500:].mean() > 0.01


def test_a_long_panel_that_would_hide_the_board_is_shortened() -> None:
    # The board fills the photo but for a strip at the bottom: the list of twelve
    # violations does not fit there, its short form (each rule once) does.
    rules = ["two-demons-in-corner"] * 6 + ["demon-not-in-corner"] * 5 + ["ghost-in-outer-field"]
    report = {
        "lines": {"red": {"polyline": [[20, 20], [980, 20], [980, 520], [20, 520]],
                          "knot": None}},
        "crossings": [{"id": k, "xy": [60 + 90 * k, 270], "lines": ["blue", "red"]}
                      for k in range(10)],
        "scores": {"red": 3, "yellow": 0, "green": 0, "blue": 0, "white": 0},
        "winners": ["red"],
        "violations": [{"rule": rule, "creatures": []} for rule in rules],
        "warnings": ["only 60% of the blue loop was seen; the rest is guessed"] * 6,
    }
    short = [text for text, _ in _panel_rows(report, short=True)]
    assert " !1-!6 two-demons-in-corner" in short
    assert " !7-!11 demon-not-in-corner" in short
    assert " !12 ghost-in-outer-field" in short
    assert short[-1] == "... and 6 warnings"
    assert len(short) < len(_panel_rows(report))
    out = draw_overlay(blank(1000, 900), report)
    darkened = (out < 60).all(axis=2)
    assert darkened[560:, :].mean() > 0.05  # the panel is in the strip ...
    assert darkened[40:500, 40:960].mean() < 0.02  # ... and off the board


def test_field_values_avoid_creatures() -> None:
    square = [[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]]
    free = _label_point(square, [], 30.0)
    assert free is not None and np.hypot(free[0] - 100, free[1] - 100) < 3
    moved = _label_point(square, [[100.0, 100.0]], 30.0)
    assert moved is not None
    assert Polygon(square).contains(Point(moved))
    assert np.hypot(moved[0] - 100, moved[1] - 100) >= 30


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="H×W×3 uint8"):
        draw_overlay(np.zeros((10, 10), dtype=np.uint8), {})
    with pytest.raises(ValueError, match="H×W×3 uint8"):
        draw_overlay(np.zeros((10, 10, 3), dtype=np.float32), {})
    with pytest.raises(ValueError, match="scale"):
        draw_overlay(blank(10, 10), {}, scale=0)
