"""Combine stage: the colour rules' reading and the detector's, into one.

The colour rules (:mod:`vision.separate`, :mod:`vision.creatures`) and the learned
detector (:mod:`vision.detect`) see pawns and knots in different ways: the rules by how
unlike the table their pixels are, the detector by shape and shading. Where the table
has a pawn's own colour (a yellow demon on light wood, a ghost on a white table) the
rules see a crescent or nothing, and the detector the pawn; where a dark shadow falls
beside a pawn, the detector may see a second pawn, and the rules' colour says it is
none. This stage keeps what each is good at:

- a pawn's foot is the detector's, when it marked the pawn (it was trained on exact
  feet; the rules guess the base from the blob's shape);
- a pawn the detector marked clearly and the rules did not see at all is added;
- a pawn the rules saw and the detector did not mark at all is dropped, unless the
  rules are sure of it;
- a knot the detector marked on a traced loop where the tracer found it, or marked
  clearly elsewhere on the loop, is taken (the tracer guesses it from thickness and
  tails, which shadows and pawns mimic).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from vision.creatures import Pawns, Remark, SeenPawn
from vision.detect import Detection, Detections
from vision.trace import Loops

#: Two marks nearer than this (in pawn widths) are one pawn (touching pawns' feet are
#: about one pawn width apart).
SAME_PAWN = 0.5
#: A pawn the rules did not see is added when the detector is this sure of it.
ADD_SCORE = 0.5
#: A pawn the rules saw is kept when the detector marked it at least this much ...
KEEP_SCORE = 0.1
#: ... or the rules are this sure of it on their own.
SURE_RULES = 0.9
#: Knot marks at least this strong and within this many string widths of a loop are
#: looked at for its knot; one within so many string widths of the tracer's knot
#: agrees with it, and one this strong is taken on its own.
KNOT_SCORE = 0.2
KNOT_REACH_WIDTHS = 2.0
AGREE_WIDTHS = 4.0
SURE_KNOT = 0.6


def combine_pawns(seen: Pawns, detections: Detections) -> Pawns:
    """The pawns of the colour rules, checked against the detector's marks.

    Parameters
    ----------
    seen : Pawns
        What the colour rules found.
    detections : Detections
        What the detector marked in the same photo (same pixels).

    Returns
    -------
    Pawns
    """
    width = seen.pawn_width
    marks = one_mark_per_pawn(detections.pawns(min_score=0.0), width)
    taken: set[int] = set()
    pawns: list[SeenPawn] = []
    warnings = list(seen.warnings)
    for pawn in seen.pawns:
        index = _nearest(pawn.foot, marks, taken, SAME_PAWN * width)
        if index is None or marks[index].score < KEEP_SCORE:
            if pawn.confidence >= SURE_RULES:
                pawns.append(pawn)
            continue
        taken.add(index)
        mark = marks[index]
        # The kind and colour are the rules' (a pawn's colour is what they measure
        # best); the foot is the detector's.
        pawns.append(replace(pawn, foot=mark.xy, confidence=max(pawn.confidence, mark.score)))
    for index, mark in enumerate(marks):
        if index in taken or mark.score < ADD_SCORE:
            continue
        if any(math.dist(mark.xy, p.foot) < SAME_PAWN * width for p in pawns):
            continue
        pawns.append(SeenPawn(mark.kind, mark.colour, mark.xy, width, round(mark.score, 2)))
        if mark.score < 0.8:
            warnings.append(
                Remark(f"a {mark.colour} {mark.kind} at {{at}} seen only by its shape", mark.xy)
            )
    return Pawns(pawns, pawn_width=width, warnings=warnings)


def one_mark_per_pawn(marks: list[Detection], width: float) -> list[Detection]:
    """The strongest of the marks that stand within :data:`SAME_PAWN` of each other
    (one pawn may be marked in two colours' maps)."""
    kept: list[Detection] = []
    for mark in sorted(marks, key=lambda m: -m.score):
        if all(math.dist(mark.xy, k.xy) >= SAME_PAWN * width for k in kept):
            kept.append(mark)
    return kept


def _nearest(
    point: tuple[float, float], marks: list[Detection], taken: set[int], reach: float
) -> int | None:
    best, best_distance = None, reach
    for index, mark in enumerate(marks):
        distance = math.dist(point, mark.xy)
        if index not in taken and distance < best_distance:
            best, best_distance = index, distance
    return best


def combine_knots(loops: Loops, detections: Detections, string_width: float) -> Loops:
    """The loops with the knots the detector marked on them.

    Each knot mark belongs to the loop nearest it, if within :data:`KNOT_REACH_WIDTHS`
    string widths. A loop's knot is its strongest mark near the knot the tracer found
    (the two agree; the mark is the more precise), or failing that its strongest mark
    if the detector is sure of it (:data:`SURE_KNOT`); else the tracer's knot stays.
    The knot is put on the loop, at its point nearest the mark.
    """
    rings = {colour: LinearRing(np.asarray(loop.points)) for colour, loop in loops.loops.items()}
    marked: dict[str, list[Detection]] = {colour: [] for colour in rings}
    for mark in detections.knots(min_score=KNOT_SCORE):
        distance, colour = min(
            (ring.distance(ShapelyPoint(mark.xy)), c) for c, ring in rings.items()
        )
        if distance <= KNOT_REACH_WIDTHS * string_width:
            marked[colour].append(mark)
    loops_with_knots = {}
    warnings = list(loops.warnings)
    for colour, loop in loops.loops.items():
        chosen = _knot_mark(loop.knot, marked[colour], string_width)
        if chosen is None:
            loops_with_knots[colour] = loop
            continue
        ring = rings[colour]
        on_loop = ring.interpolate(ring.project(ShapelyPoint(chosen.xy)))
        loops_with_knots[colour] = replace(
            loop,
            knot=(on_loop.x, on_loop.y),
            knot_confidence=max(loop.knot_confidence, chosen.score),
        )
        warnings = [w for w in warnings if w != f"no knot found on the {colour} loop"]
    return Loops(loops=loops_with_knots, warnings=warnings)


def _knot_mark(
    traced: tuple[float, float] | None, marks: list[Detection], string_width: float
) -> Detection | None:
    """The mark to take for a loop's knot (see :func:`combine_knots`), or None."""
    if traced is not None:
        agreeing = [m for m in marks if math.dist(m.xy, traced) <= AGREE_WIDTHS * string_width]
        if agreeing:
            return max(agreeing, key=lambda m: m.score)
    sure = [m for m in marks if m.score >= SURE_KNOT]
    return max(sure, key=lambda m: m.score) if sure else None
