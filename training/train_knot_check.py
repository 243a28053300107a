"""Train the knot checker (:mod:`vision.knot_check`) on generated photos with their truth.

Each example is a place cut out by the reader's own :func:`vision.pawn_size.place_crop`,
:data:`vision.knot_check.KNOT_CROP_PAWNS` pawn widths on a side (80 px), as though the
pawns were as wide as the truth's median (off by up to :data:`WIDTH_OFF` either way).
Its target is whether a knot's lump lies there: within :data:`KNOT_REACH` pawn widths
of the middle, yes; farther than :data:`CLEAR_OF_KNOT` from every knot, no; between,
not learnt from. The places are where the knot stage hesitates: the knots (moved up
to KNOT_REACH, :data:`KNOT_TIMES` times), the cords beside every pawn (a demon's base
left on its own cord is a lump like a knot), the pawns' feet, the crossings and
places anywhere along the cords. Photos are generated sets, best with demons put
down on the knots (``dicke-daemonen synth --knot-cover``) and some on the tables of the
cords' hue (``--tables green_felt,blue_mat``), as ``make knot-check`` makes them::

    python -m training.train_knot_check --sets out/knots/a out/knots/d1 \
        --held-out out/knots/held --out calibration
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from shapely.geometry import LinearRing, Point
from torch import nn

from synth.labels import BACKGROUND, cord_class, pawn_class
from training.train_demon_check import to_working
from training.train_detector import cast_shadows
from training.train_ghost_check import (
    crops_of_nothing,
    crops_of_sets,
    held_out_figures,
    train_checker,
)
from training.train_sizer import varied
from vision.knot_check import CLEAR_OF_KNOT, KNOT_CROP_PAWNS, KNOT_REACH
from vision.load import load_photo
from vision.pawn_size import CROP_PX, place_crop

#: The width a place is cut out for is the truth's median times up to this factor
#: either way (the reader's width is one for all the pawns of a photo).
WIDTH_OFF = 1.25
#: Places cut round each knot (moved up to KNOT_REACH), and anywhere along each cord
#: (3 and 6 for the first checker: asked along whole loops it was sure of a knot at 0.9
#: somewhere else on 285 of 3307 loops read right).
KNOT_TIMES = 5
ALONG_CORD = 16
#: Round each pawn's foot, the nearest point of every cord within BESIDE_PAWN pawn widths
#: of it, and that point moved up to ALONG_PAWN widths along the cord either way.
BESIDE_PAWN = 1.5
ALONG_PAWN = 0.6

#: Share of the crops given hard shadows each time they are learnt from (:func:`shadowed`):
#: the other renderer's long dark shadows, a cord's a dark band along it, which a checker
#: trained without them takes for a lump (dev_0004's red cord: 0.81, its knot 0.19).
SHADOWED = 0.5
#: A crop's pixel is taken for an object (cord, knot or pawn) where its colour lies this
#: far from the crop's median (the table's) in OpenCV's 8-bit CIELAB; what is that thick
#: across, in pawn widths, for a pawn (its shadow is long; a cord's and a knot's short).
OBJECT_CONTRAST = 30.0
PAWN_THICKNESS = 0.6
#: A crop whose objects so found cover more than this share is left unshadowed: its
#: median is no table's (a crop half in a shadow already, a crowd of pawns).
MOST_OBJECTS = 0.35

Examples = tuple[NDArray[np.uint8], NDArray[np.float32], NDArray[np.bool_]]


def places_of(
    truth: dict[str, Any], scale: float, width: float, rng: np.random.Generator
) -> tuple[list[tuple[float, float]], list[bool]]:
    """The places to cut out of one photo (working pixels), and which lie within
    BESIDE_PAWN widths of a pawn's foot (where the knot stage hesitates)."""
    rings = [
        LinearRing([to_working(p, scale) for p in line["polyline"]])
        for line in truth["lines"].values()
    ]
    feet = [to_working(c["xy"], scale) for c in truth["creatures"]]
    places: list[tuple[float, float]] = []

    def add(xy: tuple[float, float]) -> None:
        places.append(xy)

    for line in truth["lines"].values():
        if line.get("knot"):
            x, y = to_working(line["knot"], scale)
            for _ in range(KNOT_TIMES):
                angle = rng.uniform(0, 2 * math.pi)
                reach = math.sqrt(rng.uniform(0, KNOT_REACH**2)) * width
                add((x + reach * math.cos(angle), y + reach * math.sin(angle)))
    for ring in rings:
        for along in rng.uniform(0, ring.length, ALONG_CORD):
            point = ring.interpolate(along)
            add((point.x, point.y))
        for foot in feet:
            at = ring.project(Point(foot))
            nearest = ring.interpolate(at)
            if nearest.distance(Point(foot)) > BESIDE_PAWN * width:
                continue
            add((nearest.x, nearest.y))
            along = at + rng.uniform(-ALONG_PAWN, ALONG_PAWN) * width
            moved = ring.interpolate(along % ring.length)
            add((moved.x, moved.y))
    for foot in feet:
        add(foot)
    for crossing in truth["crossings"]:
        add(to_working(crossing["xy"], scale))
    beside = np.array(feet, np.float64).reshape(-1, 2)
    near_pawn = [
        bool(len(beside)) and float(np.hypot(*(beside - p).T).min()) <= BESIDE_PAWN * width
        for p in places
    ]
    return places, near_pawn


def target_of(place: tuple[float, float], knots: NDArray[np.float64], width: float) -> float | None:
    """1 where a knot lies within KNOT_REACH widths, 0 where none lies within
    CLEAR_OF_KNOT, None between."""
    if not len(knots):
        return 0.0
    nearest = float(np.hypot(*(knots - place).T).min()) / width
    return 1.0 if nearest <= KNOT_REACH else 0.0 if nearest > CLEAR_OF_KNOT else None


def crops_of(path: Path, rng: np.random.Generator) -> Examples:
    """Crops round the places of one photo with truth, their targets, and which lie
    beside a pawn."""
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    photo = load_photo(path)
    scale = photo.scale
    widths = [c["pawn_px"] / scale for c in truth["creatures"] if c.get("pawn_px")]
    if not widths:  # no pawn: no width to cut places for
        return crops_of_nothing()
    width = float(np.median(widths))
    lines = truth["lines"].values()
    knots = [to_working(line["knot"], scale) for line in lines if line.get("knot")]
    knot_xy = np.array(knots, np.float64).reshape(-1, 2)
    crops, targets, near_pawn = [], [], []
    for place, beside in zip(*places_of(truth, scale, width, rng), strict=True):
        target = target_of(place, knot_xy, width)
        if target is None:
            continue
        looked_for = width * math.exp(rng.uniform(-math.log(WIDTH_OFF), math.log(WIDTH_OFF)))
        crops.append(place_crop(photo.rgb, place, looked_for, KNOT_CROP_PAWNS))
        targets.append(target)
        near_pawn.append(beside)
    if not crops:
        return crops_of_nothing()
    return np.stack(crops), np.array(targets, np.float32), np.array(near_pawn, bool)


def objects_in(crop: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Pixel classes of a crop as :func:`training.train_detector.cast_shadows` reads them,
    guessed by colour: table where the colour is near the crop's median, a pawn where
    an object is :data:`PAWN_THICKNESS` pawn widths thick, a cord elsewhere."""
    lab = cv2.cvtColor(crop, cv2.COLOR_RGB2LAB).astype(np.float32)
    table = np.median(lab.reshape(-1, 3), axis=0)
    objects = (np.linalg.norm(lab - table, axis=2) > OBJECT_CONTRAST).astype(np.uint8)
    # A grain's or weave's odd pixel casts no shadow.
    objects = cv2.morphologyEx(objects, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    side = int(PAWN_THICKNESS * CROP_PX / KNOT_CROP_PAWNS) | 1
    thick = cv2.morphologyEx(objects, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (side, side))).astype(bool)
    classes = np.full(crop.shape[:2], BACKGROUND, np.uint8)
    classes[objects.astype(bool)] = cord_class("red")
    classes[thick] = pawn_class("red")
    return classes


def shadowed(crops: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """:func:`training.train_sizer.varied` crops, :data:`SHADOWED` of them first under
    one hard light (:func:`training.train_detector.cast_shadows`, the detector's shadows,
    cast from the objects :func:`objects_in` finds)."""
    out = crops.copy()
    pawn_px = CROP_PX / KNOT_CROP_PAWNS
    for i in np.flatnonzero(rng.random(len(crops)) < SHADOWED):
        classes = objects_in(crops[i])
        if np.mean(classes != BACKGROUND) <= MOST_OBJECTS:
            out[i] = cast_shadows(crops[i], classes, pawn_px, rng)
    return varied(out, rng)


def examples(folders: list[Path], seed: int) -> Examples:
    """Crops, targets and which lie beside a pawn, of every photo with truth in
    ``folders``."""
    return crops_of_sets(folders, seed, crops_of)


def evaluate(net: nn.Module, held: Examples) -> dict[str, dict[str, float]]:
    """Recall of the knots and the share of other places taken for one, at a few
    thresholds: over every place, and over those beside a pawn."""
    return held_out_figures(net, held, "knots", "beside_pawns")


def main(argv: list[str] | None = None) -> int:
    return train_checker(
        argv,
        __doc__.split("\n")[0],
        examples,
        evaluate,
        "knotnet",
        {"crop_pawns": KNOT_CROP_PAWNS, "knot_reach": KNOT_REACH, "clear_of_knot": CLEAR_OF_KNOT},
        seed=71,
        vary=shadowed,
    )


if __name__ == "__main__":
    raise SystemExit(main())
