"""A stroke a player draws along a loop on the result page: which stretch of the loop
it replaces, and the loop it makes (plain geometry on polylines, with shapely).

A stroke goes from a place of the loop that is right, along where the cord really runs,
to another such place. It replaces one of the two stretches of the loop between the
points nearest its ends: first the one nearer to it on average, else the other, which
the page offers as "the other side". A stroke that comes back to its start replaces the
whole loop. :mod:`webui.edits` makes an edit of it (``{"op": "loop"}``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import LinearRing, LineString, Polygon
from shapely.geometry import Point as ShapelyPoint
from shapely.ops import substring

from engine.board import Point

#: A stroke whose ends are within the reach of each other and which is over this share
#: of its loop's length is the whole loop drawn again.
CLOSED_STROKE = 0.5
#: ... or is over this many times the reach long, goes round at least a reach squared
#: and has both ends off the loop, or starts and ends at one place of it (a loop drawn
#: round a circle as wide as the reach is about 3.1 reaches long and 0.8 reaches
#: squared; the page's reach is 0.08 of the board's extent, and a loop lost on a hard
#: photo may be a small one).
LEAST_LOOP = 3.0
#: A stroke's end closer than this (in the photo's pixels) to its loop is put on it.
SNAP_END = 0.5


class StrokeError(ValueError):
    """A stroke that cannot redraw the loop; the message says why, for the player."""


def redraw_choices(
    polyline: Sequence[Point], path: Sequence[Point], reach: float
) -> list[tuple[list[Point], list[Point]]]:
    """The loops a stroke along ``path`` can make of the closed ``polyline``, each with
    the stretch of ``polyline`` it replaces: the likelier first.

    Parameters
    ----------
    polyline : sequence of (x, y)
        A closed loop (its last point joins its first).
    path : sequence of (x, y)
        The stroke, at least two points. If its ends lie within ``reach`` of each other and
        it is over :data:`CLOSED_STROKE` of the loop's length, or over :data:`LEAST_LOOP`
        reaches long, round at least a reach squared, with both ends farther than ``reach``
        from the loop or at one place of it, it is the whole loop (one choice, replacing all
        of it). Else both ends must lie within ``reach`` of the loop; a stroke that runs on
        past the loop at either end is cut where it comes nearest the loop there. It
        replaces one of the two stretches of the loop between the points nearest its ends:
        first the one nearer to it on average (a player mostly redraws a stretch beside
        where it was read), then the other (a loop read far astray, along another cord,
        which the player must choose).
    reach : float
        How far from the loop a stroke may start and end, in the polyline's units.

    Returns
    -------
    list of (new loop, stretch replaced)
        One or two; a new loop's last point may repeat its first, and it may cross or
        touch itself (:func:`crosses_itself`).

    Raises
    ------
    StrokeError
        A stroke that does not start and end on the loop, or starts and ends at one
        place of it.
    """
    stroke = _without_repeats([(float(x), float(y)) for x, y in path])
    if len(stroke) < 2:
        raise StrokeError("a stroke needs two points or more")
    drawn, ring = LineString(stroke), LinearRing(polyline)
    start, end = stroke[0], stroke[-1]
    from_loop = [ring.distance(ShapelyPoint(p)) for p in (start, end)]
    # A loop read astray along other cords may be over twice the length of the real
    # one (770196's yellow loop): a long closed stroke is the whole loop too where both
    # its ends are off the loop, or where it starts and ends at one place of it (no
    # stretch lies between its ends). A short one is a slip of the finger.
    closed = math.dist(start, end) <= reach
    long_closed = (
        closed and drawn.length > LEAST_LOOP * reach and Polygon(stroke).area >= reach**2
    )
    if closed and drawn.length > CLOSED_STROKE * ring.length or (
        long_closed and min(from_loop) > reach
    ):
        return [_whole_loop(stroke, ring)]
    if max(from_loop) > reach:
        raise StrokeError("start and end the stroke on the loop, where it is read right")
    try:
        # Cut where the stroke first and last comes nearest the loop, unless that makes
        # the stretch it replaces too short to take it (the stroke then crosses the
        # loop kept): a stroke that stays near the loop at its ends.
        choices = _stretch_choices(ring, _trimmed(stroke, ring, reach))
        if crosses_itself(choices[0][0]):
            choices = _stretch_choices(ring, stroke)
    except StrokeError:
        if not long_closed:
            raise
        return [_whole_loop(stroke, ring)]
    return choices


def _whole_loop(stroke: list[Point], ring: LinearRing) -> tuple[list[Point], list[Point]]:
    """The loop a closed ``stroke`` draws again whole, and the whole ``ring`` it replaces."""
    whole = stroke[:-1] if stroke[0] == stroke[-1] else stroke
    return _without_repeats(whole), [(float(x), float(y)) for x, y in ring.coords]


def _stretch_choices(
    ring: LinearRing, stroke: list[Point]
) -> list[tuple[list[Point], list[Point]]]:
    """The two loops ``stroke`` makes of ``ring`` with each stretch between its ends
    replaced, the one whose replaced stretch is nearer to it on average first."""
    a, b = (ring.project(ShapelyPoint(p)) for p in (stroke[0], stroke[-1]))
    if math.isclose(a, b, abs_tol=1e-6 * ring.length):
        raise StrokeError("the stroke starts and ends at one place of the loop; draw "
                        "it from where the loop is right, round to where it is right again")
    stroke = list(stroke)
    # An end a hair off the loop put on it, where the kept stretch meets it: a join of
    # no length that turns back would make the loop touch itself there.
    for i, along in ((0, a), (-1, b)):
        on_loop = ring.interpolate(along)
        if on_loop.distance(ShapelyPoint(stroke[i])) < SNAP_END:
            stroke[i] = (on_loop.x, on_loop.y)
    forward, backward = _arc(ring, a, b), _arc(ring, b, a)
    choices = [  # (loop, the stretch it replaces)
        (_without_repeats(stroke + backward), forward),
        (_without_repeats(stroke + forward[::-1]), backward),
    ]
    drawn = LineString(stroke)
    choices.sort(key=lambda choice: _mean_distance(choice[1], drawn))
    return choices


def redrawn_loop(
    polyline: Sequence[Point], path: Sequence[Point], reach: float, *, other_side: bool = False
) -> list[Point]:
    """The closed ``polyline`` with a stretch drawn again along ``path``: the likelier of
    :func:`redraw_choices` (the stretch nearer to the stroke replaced), or with
    ``other_side`` the other stretch.

    Returns
    -------
    list of (x, y)
        The new loop; its last point may repeat its first.

    Raises
    ------
    StrokeError
        As :func:`redraw_choices`, or ``other_side`` where there is no other side (the
        whole loop drawn again, or that side would make the loop cross itself).
    """
    choices = redraw_choices(polyline, path, reach)
    if other_side and len(choices) < 2:
        raise StrokeError("there is no other side to replace: the stroke redraws the whole loop")
    loop = choices[1 if other_side else 0][0]
    if crosses_itself(loop):
        raise StrokeError("the loop would cross or touch itself; draw the stretch again")
    return loop


def crosses_itself(loop: Sequence[Point]) -> bool:
    """Whether a closed polyline crosses or touches itself (or has under three points)."""
    return len(_without_repeats(loop)) < 3 or not LinearRing(loop).is_simple


def _trimmed(stroke: list[Point], ring: LinearRing, reach: float) -> list[Point]:
    """``stroke`` cut where it comes nearest ``ring`` within its first and its last
    quarter (at most ``reach`` along it): a finger often runs on past the loop."""
    line = LineString(stroke)
    end_zone = min(line.length / 4, reach)
    step = max(reach / 20, 1e-6)

    def nearest_in(start: float) -> float:
        """Where, within the end zone from ``start`` along the stroke, it comes nearest
        the ring (only the zone is cut into small steps: the stroke may be long)."""
        zone = substring(line, start, start + end_zone)
        if zone.geom_type == "Point":
            return start
        dense = np.asarray(zone.segmentize(step).coords)
        distance = np.asarray(shapely.distance(ring, shapely.points(dense)), dtype=float)
        steps = np.linalg.norm(np.diff(dense, axis=0), axis=1)
        along = np.concatenate([[0.0], np.cumsum(steps)])
        return start + float(along[int(np.argmin(distance))])

    first, last = nearest_in(0.0), nearest_in(line.length - end_zone)
    if last <= first:
        return stroke
    cut = substring(line, first, last)
    return [(float(x), float(y)) for x, y in cut.coords]


def _arc(ring: LinearRing, start: float, end: float) -> list[Point]:
    """The points of ``ring`` from ``start`` on to ``end`` (distances along it), round
    past its first point if need be, both ends included."""
    coords = np.asarray(ring.coords)[:-1]
    steps = np.linalg.norm(np.diff(np.asarray(ring.coords), axis=0), axis=1)
    along = np.concatenate([[0.0], np.cumsum(steps)[:-1]])
    stop = end + ring.length if end < start else end
    twice = np.concatenate([along, along + ring.length])
    inside = (twice > start) & (twice < stop)
    middle = np.concatenate([coords, coords])[inside]
    # At ``end`` itself, not ``stop`` folded back: a rounding apart from the stroke's
    # end put there would leave a join of no length that turns back.
    first, last = ring.interpolate(start), ring.interpolate(end)
    return [(first.x, first.y), *map(tuple, middle.tolist()), (last.x, last.y)]


def _mean_distance(points: Sequence[Point], line: LineString) -> float:
    """The mean distance to ``line`` of ``points`` spread evenly along their polyline."""
    stretch = LineString(points) if len(points) > 1 else ShapelyPoint(points[0])
    if isinstance(stretch, ShapelyPoint) or stretch.length == 0:
        return float(line.distance(ShapelyPoint(points[0])))
    samples = [stretch.interpolate(t, normalized=True) for t in np.linspace(0, 1, 33)]
    return float(np.mean([line.distance(p) for p in samples]))


def _without_repeats(points: Sequence[Point]) -> list[Point]:
    """``points`` without a point at (or a rounding from) the one before it."""
    return [p for i, p in enumerate(points) if i == 0 or math.dist(p, points[i - 1]) > 1e-9]
