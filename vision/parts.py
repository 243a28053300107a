"""Parts stage: strings, knots and pawns from the classified pixels.

The classifier (:mod:`vision.pixels`) has already told cord from pawn and knot by
shape; what is left is to gather its pixels into things:

- each cord colour's pixels are its string, with the knot lumps that colour's cord
  runs into (a knot sits on its own loop, so its lump joins the string's path);
- each knot lump is the knot of the cord colour round it;
- each foot the classifier marks is one pawn (two touching pawns have two feet even
  where their bodies merge), of the colour most of the pawn pixels round it have.
  A pawn whose foot went unmarked is still taken from its body, with its foot at the
  lower end (see :func:`vision.creatures.foot_of_blob`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from vision.creatures import Pawns, SeenPawn, foot_of_blob
from vision.pixels import CLASSES, CORD, KNOT, PAWN, PixelClasses
from vision.pixels import GHOST as GHOST_CLASS
from vision.separate import Separation, estimate_width

BoolImage = NDArray[np.bool_]

#: A foot mark is at least this many pixels (a speck is noise).
MIN_FOOT_PIXELS = 3
#: A foot's pawn is looked for within this many pawn widths of it.
PAWN_REACH = 0.8
#: A pawn's body without a marked foot counts from this share of a pawn's area.
MIN_UNMARKED_SHARE = 0.4
#: A knot lump is at least this many square string widths.
MIN_KNOT_WIDTHS2 = 1.0
#: Without pawns to measure, a pawn is this many string widths across.
PAWN_WIDTHS = 7.0

#: The pawn classes, and the colour each stands for.
PAWN_COLOURS: dict[int, str] = {**{PAWN[c]: c for c in LINE_COLOURS}, GHOST_CLASS: WHITE}


@dataclass(frozen=True)
class Parts:
    """The strings (with their knots) and the pawns of one photo."""

    separation: Separation
    pawns: Pawns


def find_parts(classes: PixelClasses) -> Parts:
    """Gather the classified pixels into strings, knots and pawns.

    Parameters
    ----------
    classes : PixelClasses

    Returns
    -------
    Parts
    """
    labels = classes.labels
    strings = {colour: labels == CORD[colour] for colour in LINE_COLOURS}
    measured = estimate_width(np.logical_or.reduce(list(strings.values())))
    width = max(measured, 2.0)
    knots = _knots(labels, strings, width)
    pawn_mask = np.isin(labels, list(PAWN_COLOURS))
    pawns = _pawns(classes, pawn_mask, width)
    separation = Separation(
        strings=strings,
        pawns=[],
        string_width=width,
        pawn_mask=pawn_mask,
        measured_width=measured,
        knots=knots,
    )
    return Parts(separation=separation, pawns=pawns)


def _knots(
    labels: NDArray[np.uint8], strings: dict[str, BoolImage], width: float
) -> dict[str, Point]:
    """Each knot lump, joined to the string of the cord colour round it; the largest
    lump of each colour is its knot. ``strings`` is changed in place."""
    lumps = (labels == KNOT).astype(np.uint8)
    count, components, stats, centroids = cv2.connectedComponentsWithStats(lumps, connectivity=8)
    reach = max(2, int(round(width)))
    best: dict[str, tuple[int, Point]] = {}
    for k in range(1, count):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < MIN_KNOT_WIDTHS2 * width**2:
            continue
        x, y, w, h = (int(v) for v in stats[k, :4])
        box = (slice(max(0, y - reach), y + h + reach), slice(max(0, x - reach), x + w + reach))
        lump = components[box] == k
        ring = cv2.dilate(lump.astype(np.uint8), np.ones((2 * reach + 1,) * 2, np.uint8)) > 0
        touching = {colour: int((mask[box] & ring).sum()) for colour, mask in strings.items()}
        colour = max(touching, key=lambda c: touching[c])
        if touching[colour] == 0:
            continue
        strings[colour][box] |= lump
        if area > best.get(colour, (0, (0.0, 0.0)))[0]:
            best[colour] = (area, (float(centroids[k, 0]), float(centroids[k, 1])))
    return {colour: xy for colour, (_, xy) in best.items()}


def _pawns(classes: PixelClasses, pawn_mask: BoolImage, width: float) -> Pawns:
    """One pawn per marked foot, then the unmarked pawn bodies."""
    labels = classes.labels
    count, bodies, body_stats, _ = cv2.connectedComponentsWithStats(
        pawn_mask.astype(np.uint8), connectivity=8
    )
    feet = _feet(classes.foot)
    # One pawn's size: the bodies that hold exactly one foot.
    feet_in_body = np.bincount(
        [bodies[int(round(y)), int(round(x))] for x, y in feet], minlength=count
    ) if feet else np.zeros(count, np.intp)
    singles = [
        int(body_stats[k, cv2.CC_STAT_AREA]) for k in range(1, count) if feet_in_body[k] == 1
    ]
    single_area = float(np.median(singles)) if singles else math.pi * (PAWN_WIDTHS * width / 2) ** 2
    pawn_width = 2.0 * math.sqrt(single_area / math.pi)
    reach = PAWN_REACH * pawn_width
    pawns: list[SeenPawn] = []
    warnings: list[str] = []
    for x, y in feet:
        colour, share = _colour_near(labels, classes.sureness, (x, y), reach)
        if colour is None:
            continue
        kind = GHOST if colour == WHITE else DEMON
        pawns.append(SeenPawn(kind, colour, (x, y), pawn_width, round(share, 2)))
    for k in range(1, count):
        area = int(body_stats[k, cv2.CC_STAT_AREA])
        if feet_in_body[k] or area < MIN_UNMARKED_SHARE * single_area:
            continue
        x, y, w, h = (int(v) for v in body_stats[k, :4])
        body = bodies[y : y + h, x : x + w] == k
        ys, xs = np.nonzero(body)
        points = np.column_stack([xs + x, ys + y]).astype(np.float64)
        votes = np.bincount(labels[y : y + h, x : x + w][body], minlength=len(CLASSES))
        label = max(PAWN_COLOURS, key=lambda c: votes[c])
        colour = PAWN_COLOURS[label]
        foot = foot_of_blob(points)
        kind = GHOST if colour == WHITE else DEMON
        pawns.append(SeenPawn(kind, colour, foot, pawn_width, 0.5))
        centre = f"({x + w / 2:.0f}, {y + h / 2:.0f})"
        warnings.append(f"a {colour} pawn near {centre} has no clear foot")
    return Pawns(pawns=pawns, pawn_width=pawn_width, warnings=warnings)


def _feet(foot: NDArray[np.float32]) -> list[Point]:
    """The centres of the marked feet (probability-weighted)."""
    marked = (foot > 0.5).astype(np.uint8)
    count, components, stats, _ = cv2.connectedComponentsWithStats(marked, connectivity=8)
    feet = []
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < MIN_FOOT_PIXELS:
            continue
        x, y, w, h = (int(v) for v in stats[k, :4])
        weights = np.where(components[y : y + h, x : x + w] == k, foot[y : y + h, x : x + w], 0)
        ys, xs = np.mgrid[y : y + h, x : x + w]
        total = float(weights.sum())
        feet.append((float((xs * weights).sum() / total), float((ys * weights).sum() / total)))
    return feet


def _colour_near(
    labels: NDArray[np.uint8], sureness: NDArray[np.float32], xy: Point, reach: float
) -> tuple[str | None, float]:
    """The pawn colour with the most (sure) pixels within ``reach`` of ``xy``, and its
    share of the pawn pixels there."""
    r = int(math.ceil(reach))
    x, y = int(round(xy[0])), int(round(xy[1]))
    box = (slice(max(0, y - r), y + r + 1), slice(max(0, x - r), x + r + 1))
    ys, xs = np.mgrid[box]
    near = (xs - xy[0]) ** 2 + (ys - xy[1]) ** 2 <= reach**2
    window, sure = labels[box][near], sureness[box][near]
    weights = {c: float(sure[window == c].sum()) for c in PAWN_COLOURS}
    total = sum(weights.values())
    if total <= 0:
        return None, 0.0
    best = max(weights, key=lambda c: weights[c])
    return PAWN_COLOURS[best], weights[best] / total
