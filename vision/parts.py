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
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from vision.creatures import Pawns, Remark, SeenPawn, foot_of_blob
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
#: A pawn-coloured body larger than this many pawns per foot in it is no pawns.
MAX_AREA_PER_FOOT = 4.0
#: Pawns, even touching ones, fill at least this share of their convex hull.
MIN_SOLIDITY = 0.75
#: A pawn is clear (see sure_pawns) when its foot is this sure at its centre ...
SURE_FOOT = 0.75
#: ... and marked over this share of a pawn's area.
SURE_FOOT_SHARE = 0.1
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
    pawns, scraps = _pawns(classes, pawn_mask, width, _foot_marks(classes.foot))
    for colour in LINE_COLOURS:
        # A knot's lump is often taken for a bit of pawn of its colour: too small for
        # a pawn and on a string of that colour, it is the string's.
        own = {colour: strings[colour]}
        for _, box, piece, _, _ in _lumps_on_strings(scraps & (labels == PAWN[colour]), own, width):
            strings[colour][box] |= piece
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
    lump of each colour, if it is as big as a knot, is its knot. ``strings`` is
    changed in place.

    Even a speck of knot is joined: left out, it cuts the string at the knot, and the
    knot's tails from the loop.
    """
    best: dict[str, tuple[int, Point]] = {}
    for colour, box, lump, area, centre in _lumps_on_strings(labels == KNOT, strings, width):
        strings[colour][box] |= lump
        if area >= MIN_KNOT_WIDTHS2 * width**2 and area > best.get(colour, (0, centre))[0]:
            best[colour] = (area, centre)
    return {colour: xy for colour, (_, xy) in best.items()}


def _lumps_on_strings(
    pieces: BoolImage, strings: dict[str, BoolImage], width: float
) -> list[tuple[str, tuple[slice, slice], BoolImage, int, Point]]:
    """The connected pieces of ``pieces`` that touch a string: for each, the colour of
    the string it touches most, a box round it and the piece within that box, its area
    and its centre."""
    count, components, stats, centroids = cv2.connectedComponentsWithStats(
        pieces.astype(np.uint8), connectivity=8
    )
    reach = max(2, int(round(width)))
    found = []
    for k in range(1, count):
        x, y, w, h = (int(v) for v in stats[k, :4])
        box = (slice(max(0, y - reach), y + h + reach), slice(max(0, x - reach), x + w + reach))
        piece = components[box] == k
        ring = cv2.dilate(piece.astype(np.uint8), np.ones((2 * reach + 1,) * 2, np.uint8)) > 0
        touching = {colour: int((mask[box] & ring).sum()) for colour, mask in strings.items()}
        colour = max(touching, key=lambda c: touching[c])
        if touching[colour] == 0:
            continue
        centre = (float(centroids[k, 0]), float(centroids[k, 1]))
        found.append((colour, box, piece, int(stats[k, cv2.CC_STAT_AREA]), centre))
    return found


def _pawns(
    classes: PixelClasses, pawn_mask: BoolImage, width: float, marks: list[FootMark]
) -> tuple[Pawns, BoolImage]:
    """One pawn per marked foot (its foot is the mark's centre), then the unmarked
    pawn bodies; and the scraps of pawn pixels too small to be a pawn without a foot."""
    labels = classes.labels
    count, bodies, body_stats, _ = cv2.connectedComponentsWithStats(
        pawn_mask.astype(np.uint8), connectivity=8
    )
    feet = [mark.xy for mark in marks]
    # One pawn's size: the bodies that hold exactly one foot.
    feet_in_body = (
        np.bincount([bodies[int(round(y)), int(round(x))] for x, y in feet], minlength=count)
        if feet
        else np.zeros(count, np.intp)
    )
    singles = [
        int(body_stats[k, cv2.CC_STAT_AREA]) for k in range(1, count) if feet_in_body[k] == 1
    ]
    single_area = float(np.median(singles)) if singles else math.pi * (PAWN_WIDTHS * width / 2) ** 2
    pawn_width = 2.0 * math.sqrt(single_area / math.pi)
    reach = PAWN_REACH * pawn_width
    pawns: list[SeenPawn] = []
    warnings: list[Remark] = []
    scraps = np.zeros(pawn_mask.shape, bool)
    clutter = _clutter(bodies, body_stats, feet_in_body, single_area)
    for k in clutter:
        left, top, w, h = (int(v) for v in body_stats[k, :4])
        warnings.append(
            Remark("ignored an object near {at} not shaped like pawns", (left + w / 2, top + h / 2))
        )
    for x, y in feet:
        if bodies[int(round(y)), int(round(x))] in clutter:
            continue
        colour, share = _colour_near(labels, classes.sureness, (x, y), reach)
        if colour is None:
            continue
        kind = GHOST if colour == WHITE else DEMON
        pawns.append(SeenPawn(kind, colour, (x, y), pawn_width, round(share, 2)))
    for k in range(1, count):
        area = int(body_stats[k, cv2.CC_STAT_AREA])
        if feet_in_body[k] or k in clutter:
            continue
        x, y, w, h = (int(v) for v in body_stats[k, :4])
        body = bodies[y : y + h, x : x + w] == k
        if area < MIN_UNMARKED_SHARE * single_area:
            scraps[y : y + h, x : x + w] |= body
            continue
        ys, xs = np.nonzero(body)
        points = np.column_stack([xs + x, ys + y]).astype(np.float64)
        votes = np.bincount(labels[y : y + h, x : x + w][body], minlength=len(CLASSES))
        label = max(PAWN_COLOURS, key=lambda c: votes[c])
        colour = PAWN_COLOURS[label]
        foot = foot_of_blob(points)
        kind = GHOST if colour == WHITE else DEMON
        pawns.append(SeenPawn(kind, colour, foot, pawn_width, 0.5))
        centre = (x + w / 2, y + h / 2)
        warnings.append(Remark(f"a {colour} pawn near {{at}} has no clear foot", centre))
    return Pawns(pawns=pawns, pawn_width=pawn_width, warnings=warnings), scraps


def _clutter(
    bodies: NDArray[Any],
    stats: NDArray[Any],
    feet_in_body: NDArray[np.intp],
    single_area: float,
) -> set[int]:
    """The bodies that are no pawns, though pawn-coloured: larger than their feet
    make pawns (a card), or hollow (a cup seen from above)."""
    clutter = set()
    for k in range(1, len(stats)):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < single_area:
            continue
        if area > MAX_AREA_PER_FOOT * single_area * max(1, int(feet_in_body[k])):
            clutter.add(k)
            continue
        x, y, w, h = (int(v) for v in stats[k, :4])
        body = (bodies[y : y + h, x : x + w] == k).astype(np.uint8)
        contours, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.contourArea(cv2.convexHull(np.concatenate(contours)))
        if area < MIN_SOLIDITY * hull:
            clutter.add(k)
    return clutter


def sure_pawns(classes: PixelClasses, string_width: float) -> list[SeenPawn]:
    """The pawns whose foot the classifier marked clearly: sure at its centre and
    marked over a fair share of a pawn's area (a speck of foot, or a faint one, is
    as often a highlight, a shadow or clutter as a pawn).

    Parameters
    ----------
    classes : PixelClasses
    string_width : float
        The strings' width in these pixels (a pawn's size when no pawn can be
        measured).
    """
    pawn_mask = np.isin(classes.labels, list(PAWN_COLOURS))
    marks = _foot_marks(classes.foot)
    pawns, _ = _pawns(classes, pawn_mask, string_width, marks)
    single_area = math.pi * (pawns.pawn_width / 2) ** 2
    clear = {
        mark.xy
        for mark in marks
        if mark.centre >= SURE_FOOT and mark.area >= SURE_FOOT_SHARE * single_area
    }
    return [pawn for pawn in pawns.pawns if pawn.foot in clear]


@dataclass(frozen=True)
class FootMark:
    """One marked foot: its centre (probability-weighted), the probability there and
    the number of pixels marked."""

    xy: Point
    centre: float
    area: int


def _foot_marks(foot: NDArray[np.float32]) -> list[FootMark]:
    """The marked feet (connected pixels over 0.5, at least MIN_FOOT_PIXELS)."""
    marked = (foot > 0.5).astype(np.uint8)
    count, components, stats, _ = cv2.connectedComponentsWithStats(marked, connectivity=8)
    marks = []
    for k in range(1, count):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < MIN_FOOT_PIXELS:
            continue
        x, y, w, h = (int(v) for v in stats[k, :4])
        weights = np.where(components[y : y + h, x : x + w] == k, foot[y : y + h, x : x + w], 0)
        ys, xs = np.mgrid[y : y + h, x : x + w]
        total = float(weights.sum())
        cx, cy = float((xs * weights).sum() / total), float((ys * weights).sum() / total)
        centre = float(foot[int(round(cy)), int(round(cx))])
        marks.append(FootMark((cx, cy), centre, area))
    return marks


def window_round(shape: tuple[int, ...], xy: Point, radius: float) -> tuple[slice, slice]:
    """The box (rows, columns) round ``xy`` that holds the disc of ``radius``, cut to an
    image of ``shape``."""
    r = int(math.ceil(radius))
    x, y = int(round(xy[0])), int(round(xy[1]))
    height, width = shape[:2]
    # Both ends kept within the image: a negative end would wrap round to the far side.
    return (
        slice(min(max(0, y - r), height), min(max(0, y + r + 1), height)),
        slice(min(max(0, x - r), width), min(max(0, x + r + 1), width)),
    )


def disc_window(
    shape: tuple[int, ...], xy: Point, radius: float
) -> tuple[tuple[slice, slice], BoolImage]:
    """The box round ``xy`` that holds the disc of ``radius`` (cut to an image of
    ``shape``, :func:`window_round`), and the disc within that box."""
    box = window_round(shape, xy, radius)
    ys, xs = np.mgrid[box]
    return box, (xs - xy[0]) ** 2 + (ys - xy[1]) ** 2 <= radius**2


def _colour_near(
    labels: NDArray[np.uint8], sureness: NDArray[np.float32], xy: Point, reach: float
) -> tuple[str | None, float]:
    """The pawn colour with the most (sure) pixels within ``reach`` of ``xy``, and its
    share of the pawn pixels there."""
    box, near = disc_window(labels.shape, xy, reach)
    window, sure = labels[box][near], sureness[box][near]
    weights = {c: float(sure[window == c].sum()) for c in PAWN_COLOURS}
    total = sum(weights.values())
    if total <= 0:
        return None, 0.0
    best = max(weights, key=lambda c: weights[c])
    return PAWN_COLOURS[best], weights[best] / total
