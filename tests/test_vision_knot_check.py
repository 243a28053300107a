"""The knot checker (vision.knot_check): the shipped network on the sample photos, and
its refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from checker_samples import SAMPLES, sample, working
from shapely.geometry import LinearRing, Point

from vision.combine import CHECKED_KNOT, KNOT_DOUBT
from vision.knot_check import (
    CLEAR_OF_KNOT,
    KNOT_CROP_PAWNS,
    knot_odds,
    load_knot_check,
    turned_knot_odds,
)
from vision.pawn_size import place_crop, sizer_input

NAMES = sorted(path.name.removesuffix(".jpg") for path in SAMPLES.glob("*.jpg"))


def knots_and_pawns_bases(name: str) -> tuple[np.ndarray, list, list, float]:
    """A sample at working resolution, its knots, and the points of each demon's own
    cord nearest its foot (within a pawn and a half, away from the knots)."""
    rgb, truth, scale, width = sample(name)
    knots = [working(line["knot"], scale) for line in truth["lines"].values()]
    bases = []
    for creature in truth["creatures"]:
        if creature["kind"] != "demon" or creature["off_board"]:
            continue
        line = truth["lines"][creature["colour"]]
        ring = LinearRing([working(p, scale) for p in line["polyline"]])
        foot = Point(working(creature["xy"], scale))
        base = ring.interpolate(ring.project(foot))
        clear = min(np.hypot(base.x - x, base.y - y) for x, y in knots) > CLEAR_OF_KNOT * width
        if base.distance(foot) <= 1.5 * width and clear:
            bases.append((base.x, base.y))
    return rgb, knots, bases, width


def sure_of_knots_and_bases(
    odds_of: Callable[[np.ndarray, list, float], np.ndarray], bound: float
) -> tuple[int, int, int, int]:
    """Over the samples: the knots ``odds_of`` gives ``bound`` or more, the knots, the
    pawns' bases it gives so much, the bases."""
    sure_knots = knots = sure_bases = bases = 0
    for name in NAMES:
        rgb, at_knots, at_bases, width = knots_and_pawns_bases(name)
        knots += len(at_knots)
        bases += len(at_bases)
        sure_knots += int(np.sum(odds_of(rgb, at_knots, width) >= bound))
        sure_bases += int(np.sum(odds_of(rgb, at_bases, width) >= bound))
    return sure_knots, knots, sure_bases, bases


def test_the_checker_is_sure_of_the_knots_and_not_of_the_pawns_bases_on_their_cords() -> None:
    sure_knots, knots, sure_bases, bases = sure_of_knots_and_bases(knot_odds, CHECKED_KNOT)
    assert knots == 4 * len(NAMES) and bases >= 50
    assert sure_knots >= 0.8 * knots, (sure_knots, knots)
    assert sure_bases <= 0.02 * bases, (sure_bases, bases)


def test_the_checker_is_sure_of_no_crossing_and_doubts_most_of_them() -> None:
    doubted = crossings = 0
    for name in NAMES:
        rgb, truth, scale, width = sample(name)
        at = [working(c["xy"], scale) for c in truth["crossings"]]
        odds = knot_odds(rgb, at, width)
        # A crossing is a lump too (03's: one 0.53), but the checker is never sure of it.
        assert np.all(odds < CHECKED_KNOT), (name, odds)
        doubted += int(np.sum(odds < KNOT_DOUBT))
        crossings += len(at)
    assert crossings >= 60 and doubted >= 0.95 * crossings, (doubted, crossings)


def logit(odds: np.ndarray, clip: float = 1e-6) -> np.ndarray:
    odds = np.clip(odds.astype(np.float64), clip, 1 - clip)
    return np.log(odds / (1 - odds))


def test_asked_eight_ways_the_checker_barely_minds_the_photo_turned() -> None:
    # One crop's answer swings with a pixel or the way the photo is turned (a knot's
    # odds peak narrowly); the eight turns averaged are a steadier second opinion.
    once, eight = [], []
    for name in NAMES:
        rgb, at_knots, at_bases, width = knots_and_pawns_bases(name)
        places = at_knots + at_bases
        turned = np.ascontiguousarray(np.rot90(rgb))  # (x, y) -> (y, W - 1 - x)
        moved = [(y, rgb.shape[1] - 1 - x) for x, y in places]
        once += list(np.abs(logit(knot_odds(rgb, places, width))
                            - logit(knot_odds(turned, moved, width))))
        eight += list(np.abs(logit(turned_knot_odds(rgb, places, width))
                             - logit(turned_knot_odds(turned, moved, width))))
    assert len(once) >= 80
    assert np.median(eight) < 0.5 * np.median(once), (np.median(eight), np.median(once))
    # ... and still tells knots from the pawns' bases on their cords.
    sure_knots, knots, sure_bases, bases = sure_of_knots_and_bases(turned_knot_odds, KNOT_DOUBT)
    assert sure_knots >= 0.8 * knots, (sure_knots, knots)
    assert sure_bases <= 0.05 * bases, (sure_bases, bases)


def test_asked_eight_ways_each_place_gets_the_mean_of_its_own_crops_eight_turns() -> None:
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (160, 200, 3), dtype=np.uint8)
    places = [(60.0, 50.0), (130.0, 110.0), (100.0, 80.0)]
    model = load_knot_check()
    # Compared as logits: the odds of noise are tiny, and float32 keeps them exactly.
    together = logit(turned_knot_odds(rgb, places, 20.0), clip=1e-30)
    assert np.all(np.isfinite(together)) and np.ptp(together) > 0.1
    for i, xy in enumerate(places):
        alone = logit(turned_knot_odds(rgb, [xy], 20.0), clip=1e-30)[0]
        assert alone == pytest.approx(together[i], abs=1e-3)
        # The eight turns, made another way: transposed or not, each mirrored either way.
        crop = place_crop(rgb, xy, 20.0, KNOT_CROP_PAWNS)
        turns = [t[::fy, ::fx] for t in (crop, crop.transpose(1, 0, 2))
                 for fy in (1, -1) for fx in (1, -1)]
        logits = [float(model.network().run(sizer_input(np.ascontiguousarray(t[None])))[0, 0])
                  for t in turns]
        assert together[i] == pytest.approx(np.mean(logits), abs=1e-3)
        # Not any one turn's answer: the crops differ, and so do their answers.
        assert np.ptp(logits) > 0.1


def test_the_checker_asks_for_a_width_and_answers_nothing_for_no_place() -> None:
    rgb = np.full((120, 160, 3), 200, np.uint8)
    for odds_of in (knot_odds, turned_knot_odds):  # asked once or eight ways, alike
        assert odds_of(rgb, [], 20.0).shape == (0,)
        for width in (0.0, -3.0, float("nan")):
            with pytest.raises(ValueError, match="width"):
                odds_of(rgb, [(50.0, 50.0)], width)
        with pytest.raises(ValueError, match="RGB"):
            odds_of(rgb[:, :, 0], [(50.0, 50.0)], 20.0)
    odds = knot_odds(rgb, [(50.0, 50.0), (-40.0, 500.0)], 20.0)
    assert odds.shape == (2,) and np.all((odds >= 0) & (odds <= 1))
    # A place every turn of whose crop is the same (an even grey) gets the one answer.
    turned = turned_knot_odds(rgb, [(50.0, 50.0), (-40.0, 500.0)], 20.0)
    assert turned == pytest.approx(odds, abs=1e-5)


def test_a_checker_for_other_crops_or_none_at_all_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make knot-check"):
        load_knot_check(tmp_path / "knotnet.onnx")
    shipped = load_knot_check()
    assert shipped.crop_pawns == KNOT_CROP_PAWNS
    (tmp_path / "knotnet.onnx").write_bytes(shipped.path.read_bytes())
    # The pawn checkers' crops span five pawn widths: not the knot checker's.
    (tmp_path / "knotnet.json").write_text(json.dumps({"crop_px": 80, "crop_pawns": 5.0}))
    with pytest.raises(ValueError, match="over 5.0 pawns"):
        load_knot_check(tmp_path / "knotnet.onnx")
