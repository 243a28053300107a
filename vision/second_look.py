"""Second look: the pawns the colour rules missed, found by the pixel classifier.

The colour rules miss a pawn of the table's own hue (a green demon on green felt, a
ghost on a white or beige cloth), one in deep shade, one merged into a neighbour; the
learned classifier (:mod:`vision.pixels`) sees most of them, but it also sees pawns in
clutter, highlights and shadows the rules rightly leave out. So the classic reading
stays, and only the pawns the classifier is clearly sure of
(:func:`vision.parts.sure_pawns`) are added, where the rules found no pawn at all.
The classifier looks only round the board, which keeps the cost down: a pawn away
from the board scores nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from vision.creatures import Pawns, Remark, SeenPawn
from vision.load import Photo
from vision.parts import disc_window, sure_pawns
from vision.pixels import classify_pixels
from vision.separate import Separation
from vision.trace import Loops

#: The classifier looks this many pawn widths beyond the loops.
MARGIN_PAWNS = 2.0
#: A pawn it is sure of is new when no pawn found is within this many pawn widths.
NEW_PAWN_DISTANCE = 0.8
#: ... and the pawns found cover at most this share of the disc of 0.6 pawn widths
#: round its foot (a pawn's body there is the same pawn, its foot put elsewhere: a
#: ghost's blob that takes in its shadow).
MAX_FOUND_COVER = 0.02
#: The confidence given to an added pawn (the rules did not confirm it).
ADDED_CONFIDENCE = 0.6


def add_missed_pawns(pawns: Pawns, photo: Photo, loops: Loops, separation: Separation) -> Pawns:
    """``pawns`` and the pawns the classifier is sure of round the board that none
    of them stands near or on.

    Parameters
    ----------
    pawns : Pawns
        The pawns found by the colour rules (working pixels).
    photo : Photo
    loops : Loops
        The traced loops: the classifier looks round them.
    separation : Separation
        The colour rules' strings and pawns: their width, and where pawns were seen.

    Returns
    -------
    Pawns
        The same pawns, with those added after them, each with a warning.
    """
    box = _round_the_board(loops, photo.rgb.shape[:2], MARGIN_PAWNS * pawns.pawn_width)
    if box is None:
        return pawns
    left, top, right, bottom = box
    classes = classify_pixels(np.ascontiguousarray(photo.rgb[top:bottom, left:right]))
    found = [p.foot for p in pawns.pawns]
    added: list[SeenPawn] = []
    warnings = list(pawns.warnings)
    reach = NEW_PAWN_DISTANCE * pawns.pawn_width
    for pawn in sure_pawns(classes, separation.string_width):
        foot = (pawn.foot[0] + left, pawn.foot[1] + top)
        if any(math.dist(foot, other) < reach for other in found):
            continue
        if _cover(separation.pawn_mask, foot, 0.6 * pawns.pawn_width) > MAX_FOUND_COVER:
            continue
        found.append(foot)
        confidence = min(pawn.confidence, ADDED_CONFIDENCE)
        added.append(SeenPawn(pawn.kind, pawn.colour, foot, pawn.width, confidence))
        text = f"a {pawn.colour} {pawn.kind} near {{at}} was seen only by the pixel classifier"
        warnings.append(Remark(text, foot))
    return Pawns(pawns=[*pawns.pawns, *added], pawn_width=pawns.pawn_width, warnings=warnings)


def _cover(mask: NDArray[np.bool_], centre: Point, radius: float) -> float:
    """The share of the disc of ``radius`` round ``centre`` that ``mask`` covers."""
    box, disc = disc_window(mask.shape, centre, radius)
    return float(mask[box][disc].mean()) if disc.any() else 0.0


def _round_the_board(
    loops: Loops, shape: tuple[int, ...], margin: float
) -> tuple[int, int, int, int] | None:
    """(left, top, right, bottom) of the loops' bounding box grown by ``margin`` and
    kept inside the photo, or None without loops."""
    if not loops.loops:
        return None
    points = np.vstack([loop.points for loop in loops.loops.values()])
    height, width = shape
    left = max(0, int(points[:, 0].min() - margin))
    top = max(0, int(points[:, 1].min() - margin))
    right = min(width, int(math.ceil(points[:, 0].max() + margin)) + 1)
    bottom = min(height, int(math.ceil(points[:, 1].max() + margin)) + 1)
    return left, top, right, bottom
