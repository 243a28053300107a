"""Crossings settled where the cords' smooth courses meet.

A cord lies smooth across a crossing: over a dozen string widths it bends gently, and
the one on top does not kink the one beneath. The trace does kink there: beside a
crossing stand the demons of its corners, and a pawn's rim of the cord's colour, its
shadow, or the other cord's shadow pulls the skeleton aside, so the crossing is read
one or more string widths from its place (on green felt and the blue mat most). Each
loop's course round a crossing is fitted with a smooth curve (a parabola along its
main direction); where both fits follow their loops closely and meet clearly apart
from where the loops cross, the loops are laid on their fits there, and cross where
the fits do.

Where the detector's cord maps are given, each crossing is then looked at once more on
them: round it, each cord's map is fitted with a parabola (to the pixels it is sure of
along the loop's course, the crossing itself left out, where the cord beneath is hidden),
and where both fit the map closely, are supported on both sides of the crossing
and meet a little apart from where the loops cross, the loops are laid on them there.
The trace follows the colour rules' mask and its skeleton, which a pawn's rim, a shadow
or the table's hue pull aside; the cord map sees the cord's band itself (on most
tables).

The reader gives this step a closer look round each crossing too (``cords_near``): the
first look (:data:`vision.detect.INPUT_ZOOM`) marks a cord of the table's hue together
with its shadow beside it, and the fits of those maps lie up to two string widths aside
too; looked at :data:`vision.detect.CLOSER_LOOK` times as large, the network marks the
cord's own band, but also the rims of pawns, far larger than it learned, and the edges
of hard shadows. Each cord's course is fitted on the look whose map it fits more
tightly.

Where both traces already run smooth through a crossing (each keeps within a tenth of a
string width of its parabola), the cord maps are not looked at there (and the closer
look, a run of the network, is spared): such a trace mostly follows its cord, and a map
that marks a pawn's rim or a shadow's edge beside it would only move the crossing aside.
A cord traced smoothly along its shadow the whole way through a crossing is left aside
too: measured, that is rarer than the other.

A crossing the cord maps moved by the band's width or more is looked at on them once
more where it was moved to (with a closer look there too): the maps are fitted within
a band round the loops' course, and where a trace ran several string widths aside of
its cord, the band holds the cord only away from the crossing, so the first fit meets
short of where the cords cross.

Last, a trace still kinked at a crossing (turning sharply within a few string widths of
it, as a cord lying on a table hardly does) beside a pawn of its colour is most often one
pulled to that pawn, or round it: the blue cord on the blue mat to a blue demon, which
the colour rules and the cord map both take in with the cord. Its own fit bends with the
kink and is not trusted, and the cord maps mark the pawn as well; the course is fitted
without the kink (the stretch round it, left out within :data:`KINK_HOLE_WIDTHS` of the
crossing), and the trace laid on that.

Before all that, a tangle is undone. Where a pawn stands on the place two cords cross,
each trace bridges the hidden stretch its own way, and the two may cross there three
times, or a cord bent round the pawn cross the other twice, a lens too small for any
pawn. Crossings of one pair of loops chained nearer each other than
:data:`TANGLE_WIDTHS` are such a tangle: both loops are laid on their fits through it,
where those keep near their traces and cross fewer times than the traces do, by an even
number (two closed loops cross an even number of times). This is the one step that
changes the board's layout: it takes away crossings the cords do not make.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np
import shapely
from numpy.typing import NDArray
from scipy.cluster.hierarchy import fcluster, linkage  # type: ignore[import-untyped]
from shapely.geometry import LinearRing, LineString
from shapely.geometry import Point as ShapelyPoint

from engine.geometry import ring_crossings
from vision.colour import LABEL_RGB
from vision.detect import CordsNear
from vision.trace import Loop, Loops, Points, leaving, resample_closed

#: Each loop's course within this many string widths of a crossing is fitted (its
#: stretch through the crossing only, not another pass of the loop nearby).
FIT_REACH_WIDTHS = 12.0
#: A fit is trusted where the stretch keeps within this many string widths of it (root
#: mean square): a cord bent round a pawn, or a stretch traced along a shadow, is not
#: one smooth curve, and its fit says nothing of where the cord runs.
FIT_STRAY_WIDTHS = 0.6
#: A stretch is fitted only where it has at least this many points.
LEAST_STRETCH_POINTS = 5
#: Both traces run smooth through a crossing where each keeps within this many string
#: widths of its parabola (root mean square, after the first pass): their crossing is
#: not looked at on the cord maps. A trace that follows its cord strays a few
#: hundredths of a width from its parabola; one pulled aside by a pawn's rim or onto a
#: shadow for part of the stretch, a tenth or more.
#: Chosen offline on the fiftieth session's readings: of the ~60 crossings still read
#: 1.5 widths or more aside on the nine generated sets, 13 were read right by the trace
#: and moved aside on the cord maps. Replaying the cord pass on the logged crossings of
#: a subset of those sets, 0.1 widths won 6 crossings back and lost 2 (0.14: 3 and 1;
#: 0.2: 6 and 13, a trace straying 0.1 to 0.2 widths being often a cord traced along
#: its shadow, which the maps put right); on a held-out subset of hard photos 0.1 won 2
#: and lost none.
SMOOTH_TRACE_WIDTHS = 0.1
#: The crossing is moved only where the fits meet at least SETTLE_FROM_WIDTHS string
#: widths from where the loops cross (nearer, the trace is as good as the fits), and at
#: most SETTLE_MOST_WIDTHS (farther, the fits disagree with the photo more than a kink
#: does).
#: Chosen offline on the reports of the 97 photos of the fourteenth to twenty-sixth
#: generated sets with a crossing read aside, of the twentieth set and of the dev
#: photos (the reach from 10 to 15 widths, the least move from 0.5 to 0.75, the stray
#: from 0.6 to any): with these, 33 of the 134 crossings read 1.5 string widths or
#: more from their place came within it and none went out of it; the dev photos moved
#: 7 crossings, 5 of them nearer the truth. Without the stray limit, two crossings of
#: dev_0014 (the blue cord on the blue mat, traced along shadows) went out.
SETTLE_FROM_WIDTHS = 0.5
SETTLE_MOST_WIDTHS = 3.0
#: Nor where the fits cross at under this angle (degrees): there a small error across
#: the cords is a large one along them. (No crossing moved on the generated sets or the
#: dev photos crossed at under 20 degrees: measured offline on the reports.)
LEAST_ANGLE_DEG = 20.0
#: Within this many string widths of the crossing a loop is laid on its fit, and over
#: BLEND_WIDTHS beyond it eased back onto its trace.
LAID_WIDTHS = 4.0
BLEND_WIDTHS = 2.0
#: The fits are drawn this much (string widths) beyond their stretches' ends.
DRAWN_BEYOND_WIDTHS = 2.0
#: A pawn is about eight string widths wide (20 mm against cords of 2.1-2.7 mm): a string
#: width read wider than the pawn width over this (seven: room for a pawn width read a
#: little wide) is taken as that. (250086: the cords' skeleton measured five times the
#: truth's width, over half a pawn's, and fits scaled by it moved two crossings 4.5
#: widths off.)
PAWN_IN_STRING_WIDTHS = 7.0
#: On the cord maps (:func:`settle_crossings` given ``cords``): each cord's map is
#: looked at within CORD_REACH_WIDTHS string widths of the crossing, within
#: CORD_BAND_WIDTHS of the loop's course there, and not within CORD_HOLE_WIDTHS of the
#: crossing (the cord beneath is hidden there, and both maps blur into each other),
#: where it is at least CORD_SURE (of 255) sure; a parabola is fitted along the main
#: direction of those pixels, weighted by how much surer than that they are. It is
#: trusted where at least CORD_LEAST_PIXELS of them lie on each side of the crossing
#: and they keep within CORD_STRAY_WIDTHS of it (root mean square): a cord's band alone
#: spreads about a third of a width, a band that takes in a pawn of the cord's colour
#: or a shadow beside it much more. The crossing is moved from CORD_SETTLE_FROM_WIDTHS
#: to CORD_SETTLE_MOST_WIDTHS, the fits crossing at LEAST_ANGLE_DEG or more. The band and
#: the hole are round the traced course and crossing: a trace more than about two
#: string widths aside of its cord sees little of the cord's band, and its crossing
#: stays (or is moved part of the way, and looked at again: CORD_AGAIN_FROM_WIDTHS).
#: Chosen offline on the readings of 138 photos of the fourteenth to twenty-eighth
#: sets (every photo with a crossing read aside, and three other hard photos of each
#: set), 50 other photos of the twenty-fifth and twenty-sixth sets and the dev photos:
#: of the 2611 crossings of the generated photos, 123 lay 1.5 string widths or more
#: from their place after the first pass, 40 fewer after this one (45 came within it,
#: 5 went out of it); of the dev photos' 265, 262 lay within it before, 263 after
#: (dev_0014). A stray of 0.6 or 0.8 widths: 10 or 32 fewer; a straight line instead
#: of the parabola, 32 fewer (and a straight line moves crossings of curved cords that
#: were read right).
CORD_REACH_WIDTHS = 8.0
CORD_BAND_WIDTHS = 1.5
CORD_HOLE_WIDTHS = 1.5
CORD_SURE = 100
CORD_LEAST_PIXELS = 5
CORD_STRAY_WIDTHS = 1.0
CORD_SETTLE_FROM_WIDTHS = 0.3
#: The cord maps move a crossing up to CORD_SETTLE_MOST_WIDTHS (the first pass, on the
#: traces, SETTLE_MOST_WIDTHS): they are looked at only where a trace does not run
#: smooth (SMOOTH_TRACE_WIDTHS), and there a trace may have been pulled four or five
#: widths aside of its cord (a dark cord on the blue mat drawn along another cord's
#: shadow, or round a pawn that hides the crossing: 240201, 260204). A crossing they
#: moved CORD_AGAIN_FROM_WIDTHS or more (the band's width: the cord lay outside the
#: band round the trace near the crossing, so the fit met short of it) is looked at on
#: them once more where it was moved to (the pair's crossing within
#: CORD_AGAIN_WITHIN_WIDTHS of that place), moving it no farther than
#: CORD_SETTLE_MOST_WIDTHS in all. Looked at again after every move, the dev photos'
#: crossings went to and fro by up to a width (dev_0014: one crossing won, one lost).
#: Measured in the fifty-second session: see docs/reader-history.md.
CORD_SETTLE_MOST_WIDTHS = 5.0
CORD_AGAIN_FROM_WIDTHS = CORD_BAND_WIDTHS
CORD_AGAIN_WITHIN_WIDTHS = 0.25
#: A closer look at a crossing (``cords_near``) takes in this many string widths beyond
#: CORD_REACH_WIDTHS: the pixels fitted lie within CORD_BAND_WIDTHS of a stretch that
#: reaches CORD_REACH_WIDTHS, so 1.5 widths are left before the part's edge, where the
#: network sees only the part's border repeated. (Not varied.)
NEAR_MARGIN_WIDTHS = 3.0
#: Crossings of one pair of loops nearer each other than this many string widths (each
#: to the next; a pawn is about eight) are a tangle of the traces, not of the cords: two
#: cords that cross twice within that make a field no pawn fits in, and the generator's
#: 9000 truths hold no two crossings of a pair nearer than 1.7 pawn widths. Under a
#: pawn standing where two cords cross, the two traces bridge the hidden stretch each
#: its own way and may cross there three times (1270182, 1170593: 2.5 and 2.9 widths
#: from their middle). Set from those, not varied.
TANGLE_WIDTHS = 7.0
#: A tangle is undone where both loops' courses through it are fitted (as a crossing's
#: are) keeping within this many string widths of their parabolas (root mean square):
#: the kinked trace through those two tangles strays 0.77 and 1.04 widths from its
#: parabola, one bent round a pawn 2.7 (1170302, left). Set from those, not varied.
TANGLE_STRAY_WIDTHS = 1.5
#: A trace turns by KINK_DEGREES or more (between its chords KINK_CHORD_POINTS points
#: before and after a point, on the loop resampled a string width apart) within
#: KINK_NEAR_WIDTHS of a crossing and within KINK_PAWN_WIDTHS pawn widths of a pawn of
#: its colour: it is kinked there, pulled off its cord to that pawn beside the crossing
#: (a blue demon on the blue mat, a green one on felt, a red one against the red cord)
#: or round it. A cord lying on a table hardly bends so: the generator's 1600 cords of
#: two fresh sets turn at most 42 degrees so measured, away from their knots (a real
#: cord snagged on something might: hence the pawn asked for). Its course is then
#: fitted without the kink: to its stretch within KINK_REACH_WIDTHS of the crossing,
#: leaving out what lies within KINK_HOLE_WIDTHS; trusted, as a course is, where that
#: keeps within FIT_STRAY_WIDTHS of the fit with points on both sides, and the trace is
#: laid on it within the hole where that fit meets the other loop's course from
#: SETTLE_FROM_WIDTHS to KINK_SETTLE_MOST_WIDTHS from where the loops cross. Chosen
#: offline on the readings of two fresh sets (1320000, 1330000: 5700 crossings, 10 with
#: a kink that near, 8 of them read 1.5 string widths or more aside, 9 with a demon of
#: the kinked loop's colour 0.58-0.77 pawn widths from the kink): see
#: docs/reader-history.md.
KINK_DEGREES = 60.0
KINK_CHORD_POINTS = 3
KINK_PAWN_WIDTHS = 1.0
KINK_NEAR_WIDTHS = 5.0
KINK_HOLE_WIDTHS = 8.0
KINK_REACH_WIDTHS = 18.0
KINK_SETTLE_MOST_WIDTHS = 10.0


@dataclass(frozen=True)
class CourseFit:
    """A parabola fitted to a stretch of a loop, or to the sure pixels of a cord map
    (weighted by how sure), in the frame of their main direction: ``across =
    polyval(coefficients, along)``.

    Attributes
    ----------
    origin : (2,) float
        The stretch's (weighted) mean point.
    along, across : (2,) float
        Unit vectors of its main direction and of the normal.
    coefficients : (3,) float
        Of the parabola, highest power first.
    extent : (float, float)
        The least and greatest ``along`` of the stretch.
    stray : float
        Root mean square distance (across, weighted) of the stretch from the parabola.
    """

    origin: NDArray[np.float64]
    along: NDArray[np.float64]
    across: NDArray[np.float64]
    coefficients: NDArray[np.float64]
    extent: tuple[float, float]
    stray: float

    def onto(self, points: Points) -> Points:
        """``points`` moved across onto the parabola."""
        t = (points - self.origin) @ self.along
        return self._at(t)

    def drawn(self, beyond: float, spacing: float) -> Points:
        """The parabola as a polyline, ``beyond`` past the stretch at either end."""
        low, high = self.extent
        count = max(int(math.ceil((high - low + 2 * beyond) / spacing)) + 1, 2)
        return self._at(np.linspace(low - beyond, high + beyond, count))

    def between(
        self, start: NDArray[np.float64], end: NDArray[np.float64], spacing: float
    ) -> Points:
        """The parabola as a polyline from where the point ``start`` lies along it to
        where ``end`` does (both ends included), points about ``spacing`` apart."""
        low, high = ((np.array([start, end]) - self.origin) @ self.along).tolist()
        count = max(int(math.ceil(abs(high - low) / spacing)) + 1, 2)
        return self._at(np.linspace(low, high, count))

    def direction_at(self, xy: NDArray[np.float64]) -> NDArray[np.float64]:
        """The parabola's unit tangent where it passes nearest ``xy``."""
        t = float((xy - self.origin) @ self.along)
        slope = float(np.polyval(np.polyder(self.coefficients), t))
        tangent = self.along + slope * self.across
        return np.asarray(tangent / np.linalg.norm(tangent))

    def _at(self, t: NDArray[np.float64]) -> Points:
        u = np.polyval(self.coefficients, t)
        return self.origin + np.outer(t, self.along) + np.outer(u, self.across)


class Move(NamedTuple):
    """A crossing moved: the pair of loops, where they crossed and where they cross now."""

    pair: tuple[str, str]
    before: NDArray[np.float64]
    after: NDArray[np.float64]


#: One look's cord maps, by colour, and where their first pixel lies among the loops'
#: pixels (x, y): the photo's own, or a closer look's at a part of it.
Look = tuple[Mapping[str, NDArray[np.uint8]], tuple[int, int]]


def settle_crossings(
    loops: Loops,
    string_width: float,
    pawn_width: float | None = None,
    cords: Mapping[str, NDArray[np.uint8]] | None = None,
    cords_near: Callable[[tuple[float, float], float], CordsNear] | None = None,
    pawn_feet: Mapping[str, Points] | None = None,
) -> Loops:
    """The loops, each laid on its smooth course round the crossings where its trace
    was kinked aside, then on the course its cord map shows where the two traces do
    not run smooth through the crossing (see the module's docstring). First, where two
    traces cross two or more times within :data:`TANGLE_WIDTHS` of each other, both are
    laid on their smooth courses through the tangle, which cross as the cords do
    (:func:`_untangle_each`). Last, given ``pawn_feet``, a trace still kinked at a
    crossing, beside a pawn of its colour, is laid on its course fitted without the
    kink (:func:`_unkinked`).

    Parameters
    ----------
    loops : Loops
        The traced loops (working pixels).
    string_width : float
        String width, working pixels.
    pawn_width : float, optional
        Pawn width, working pixels: the string width used is at most
        ``pawn_width / PAWN_IN_STRING_WIDTHS``.
    cords : dict of colour to (H, W) uint8, optional
        The detector's cord maps (:attr:`vision.detect.Detections.cords`), in the
        loops' pixels; a colour without one is not settled on it.
    cords_near : callable, optional
        ``cords_near(xy, reach)``: the cord maps of a closer look at the loops' photo
        within ``reach`` of ``xy`` (:func:`vision.detect.cords_near`). Where given, each
        crossing is looked at closer too, and each cord's course round it fitted on
        the look whose map it fits more tightly.
    pawn_feet : dict of colour to (N, 2) float, optional
        The feet of the pawns read, by colour (working pixels): a trace is taken as
        kinked only within :data:`KINK_PAWN_WIDTHS` pawn widths of one of its colour's
        (``pawn_width``, or :data:`PAWN_IN_STRING_WIDTHS` string widths). Without them,
        no trace is.

    Returns
    -------
    Loops
        ``loops`` itself where no crossing moved. A loop laid anew keeps its knot on it
        (the knot's nearest point of the new course).

    Raises
    ------
    ValueError
        When ``string_width`` or ``pawn_width`` is not a positive number.
    """
    if not math.isfinite(string_width) or string_width <= 0:
        raise ValueError(f"string_width must be a positive number, got {string_width}")
    if pawn_width is not None:
        if not math.isfinite(pawn_width) or pawn_width <= 0:
            raise ValueError(f"pawn_width must be a positive number, got {pawn_width}")
        string_width = min(string_width, pawn_width / PAWN_IN_STRING_WIDTHS)
    points = {colour: np.asarray(loop.points, float) for colour, loop in loops.loops.items()}
    rings = {colour: LinearRing(p) for colour, p in points.items()}
    reach = KINK_PAWN_WIDTHS * (pawn_width or PAWN_IN_STRING_WIDTHS * string_width)
    kinks: dict[str, tuple[Points, Points]] = {}  # colour: (its points, their kinks)

    def kinks_of(colour: str) -> Points:
        # Found once for each course a loop is laid on (the points of the one before
        # are kept here too, so a new course is never taken for it).
        known = kinks.get(colour)
        if known is None or known[0] is not points[colour]:
            feet = np.asarray((pawn_feet or {}).get(colour, np.zeros((0, 2))), float)
            found = _kinks(points[colour], string_width, feet.reshape(-1, 2), reach)
            known = kinks[colour] = (points[colour], found)
        return known[1]

    untangled = _untangle_each(points, rings, string_width, kinks_of)
    order = _crossing_order(rings)
    if order is None:
        return loops  # two loops along each other: arrange refuses them, not this step

    def on_traces(a: str, b: str, xy: NDArray[np.float64]) -> tuple[Points, Points] | None:
        return _settled(points[a], points[b], xy, string_width)

    def looks_at(xy: NDArray[np.float64]) -> list[Look]:
        looks: list[Look] = [(cords, (0, 0))] if cords else []
        if cords_near is not None:
            reach = (CORD_REACH_WIDTHS + NEAR_MARGIN_WIDTHS) * string_width
            near = cords_near((float(xy[0]), float(xy[1])), reach)
            looks.append((near.maps, near.origin))
        return looks

    def on_cord_maps(a: str, b: str, xy: NDArray[np.float64]) -> tuple[Points, Points] | None:
        if _runs_smooth(points[a], points[b], xy, string_width):
            return None  # the trace follows the cords here: see the module's docstring
        return _settled_on_cords((points[a], points[b]), (a, b), xy, looks_at(xy), string_width)

    # The crossings the cord maps moved far: (pair of loops, from, to).
    moved_far: list[Move] = []

    def again_on_cord_maps(
        a: str, b: str, xy: NDArray[np.float64]
    ) -> tuple[Points, Points] | None:
        # The maps are fitted in a band round the loops' course: a crossing traced far
        # aside of its cords is moved part of the way, and looked at again where it
        # was moved to (the loops, laid on their fits, run smooth there: no gate),
        # but moved no farther than CORD_SETTLE_MOST_WIDTHS from where it was traced.
        near = CORD_AGAIN_WITHIN_WIDTHS * string_width
        starts = [m.before for m in moved_far if m.pair == (a, b) and math.dist(m.after, xy) < near]
        if not starts:
            return None
        laid = _settled_on_cords((points[a], points[b]), (a, b), xy, looks_at(xy), string_width)
        if laid is None:
            return None
        met = ring_crossings(LinearRing(laid[0]), LinearRing(laid[1]))
        if met is None or not len(met):
            return None
        now = met[np.argmin(np.linalg.norm(met - xy, axis=1))]
        return laid if math.dist(now, starts[0]) <= CORD_SETTLE_MOST_WIDTHS * string_width else None

    changed = untangled | _settle_each(points, rings, order, on_traces)
    if cords or cords_near is not None:
        moves: list[Move] = []
        changed |= _settle_each(points, rings, order, on_cord_maps, moves)
        far = CORD_AGAIN_FROM_WIDTHS * string_width
        moved_far.extend(m for m in moves if math.dist(m.before, m.after) >= far)
        if moved_far:
            changed |= _settle_each(points, rings, order, again_on_cord_maps)
    # Last, a trace still kinked at a crossing is laid on its course fitted without the
    # kink (neither its own fit, which the kink bends, nor the cord maps, which mark the
    # pawn it was pulled to as cord too, put it right).
    def unkinked(a: str, b: str, xy: NDArray[np.float64]) -> tuple[Points, Points] | None:
        return _unkinked((points[a], points[b]), (kinks_of(a), kinks_of(b)), xy, string_width)

    changed |= _settle_each(points, rings, order, unkinked)
    if not changed:
        return loops
    settled = {
        colour: _laid_anew(loop, points[colour], rings[colour]) if colour in changed else loop
        for colour, loop in loops.loops.items()
    }
    return replace(loops, loops=settled)


def _untangle_each(
    points: dict[str, Points],
    rings: dict[str, LinearRing],
    width: float,
    kinks_of: Callable[[str], Points],
) -> set[str]:
    """Each tangle of each pair of loops (a, b) undone (:func:`_untangled`), in place in
    ``points`` and ``rings``; the colours laid anew. ``kinks_of(colour)``: where that
    loop, as it now runs, is kinked (:func:`_kinks`)."""
    changed: set[str] = set()
    for a, b in itertools.combinations(sorted(points), 2):
        met = ring_crossings(rings[a], rings[b])
        if met is None:
            continue
        for tangle in _tangles(met, TANGLE_WIDTHS * width):
            laid = _untangled(points, rings, (a, b), tangle, width, kinks_of)
            if laid is None:
                continue
            points[a], points[b] = laid
            rings[a], rings[b] = LinearRing(laid[0]), LinearRing(laid[1])
            changed |= {a, b}
    return changed


def _tangles(met: NDArray[np.float64], reach: float) -> list[NDArray[np.float64]]:
    """The groups of two or more of the crossings ``met`` each within ``reach`` of
    another of its group (a chain: single linkage cut at ``reach``), as arrays of their
    points."""
    if len(met) < 2:
        return []
    groups = fcluster(linkage(met, method="single"), reach, criterion="distance")
    labels, counts = np.unique(groups, return_counts=True)
    return [met[groups == g] for g, count in zip(labels, counts, strict=True) if count >= 2]


def _untangled(
    points: dict[str, Points],
    rings: dict[str, LinearRing],
    pair: tuple[str, str],
    tangle: NDArray[np.float64],
    width: float,
    kinks_of: Callable[[str], Points],
) -> tuple[Points, Points] | None:
    """The pair of loops laid on their fits through ``tangle`` (crossings of theirs),
    or None where that does not undo it. A loop whose fit strays too far, kinked there
    (``kinks_of``, see :func:`_kinks`), is fitted without the kink instead; so is a
    loop kinked there that crosses itself laid on its fit. Undone, the pair crosses
    there as often as the fits do, fewer times than before by an even number (two
    closed loops cross an even number of times), and nothing else changes: both loops
    stay simple and every other pair of loops crosses where it did."""
    centre = tangle.mean(axis=0)
    spread = float(np.linalg.norm(tangle - centre, axis=1).max())
    # The kinked loop's hole takes in the whole tangle.
    hole = max(KINK_HOLE_WIDTHS, spread / width + LAID_WIDTHS)

    def kinked(colour: str) -> bool:
        return _kinked_near(kinks_of(colour), centre, width)

    def laid_on(
        courses: list[tuple[NDArray[np.intp], CourseFit]], round_kinks: list[bool]
    ) -> tuple[tuple[Points, Points] | None, list[bool]]:
        """The pair laid on ``courses`` (over its kink where ``round_kinks`` says so),
        or None; and for each loop, whether it crossed itself so laid (all False where
        the pair was refused for another reason)."""
        fits = [fit for _, fit in courses]
        centre_point, near = ShapelyPoint(centre), spread + LAID_WIDTHS * width
        meets = [g for g in _meetings(fits, width) if g.distance(centre_point) <= near]
        undone = len(tangle) - len(meets)
        if undone <= 0 or undone % 2:
            return None, [False, False]
        laid = tuple(
            _laid_over_kink(points[colour], stretch, fit, centre, width, hole)
            if round_kink
            else _laid(points[colour], stretch, fit, centre, width, spread / width + LAID_WIDTHS)
            for colour, (stretch, fit), round_kink in zip(pair, courses, round_kinks, strict=True)
        )
        tried = {**rings, pair[0]: LinearRing(laid[0]), pair[1]: LinearRing(laid[1])}
        crossed_itself = [not tried[colour].is_simple for colour in pair]
        if any(crossed_itself):
            return None, crossed_itself
        for a, b in itertools.combinations(sorted(rings), 2):
            before, after = ring_crossings(rings[a], rings[b]), ring_crossings(tried[a], tried[b])
            if before is None or after is None:
                return None, [False, False]
            expected = len(before) - (undone if {a, b} == set(pair) else 0)
            if len(after) != expected:
                return None, [False, False]
            if {a, b} != set(pair) and not _same_places(before, after, width):
                return None, [False, False]
        # Nor does any loop meet the others in another order along it (the pair, each
        # other aside: a crossing of theirs is what goes).
        order, now = _crossing_order(rings), _crossing_order(tried)
        if order is None or now is None or _without(order, pair) != _without(now, pair):
            return None, [False, False]
        return (laid[0], laid[1]), [False, False]

    courses, round_kinks = [], []
    for colour in pair:
        course = _course_through(points[colour], centre, width)
        round_kink = course is None or course[1].stray > TANGLE_STRAY_WIDTHS * width
        if round_kink:
            # A trace bent round a pawn of its colour there crosses the other cord three
            # times (1320148): its course is fitted without the kink, as the last pass
            # of settle_crossings fits one.
            if not kinked(colour):
                return None
            course = _course_round_kink(points[colour], centre, width, hole)
        if course is None:
            return None
        courses.append(course)
        round_kinks.append(round_kink)
    laid, crossed_itself = laid_on(courses, round_kinks)
    if laid is not None or not any(crossed_itself):
        return laid
    # A trace hooked by a knot's tails at the tangle strays under TANGLE_STRAY_WIDTHS
    # from its fit, but laid on it crosses what is left of the hook (1780199: a blue
    # knot beside a blue demon standing where the blue and green cords cross): a loop
    # that crossed itself so, kinked there, is fitted without the kink and laid again.
    again = [
        not round_kink and crossed and kinked(colour)
        for colour, round_kink, crossed in zip(pair, round_kinks, crossed_itself, strict=True)
    ]
    if not any(again):
        return None
    for i, colour in enumerate(pair):
        if again[i]:
            course = _course_round_kink(points[colour], centre, width, hole)
            if course is None:
                return None
            courses[i], round_kinks[i] = course, True
    return laid_on(courses, round_kinks)[0]


def _without(
    order: dict[str, tuple[str, ...]], pair: tuple[str, str]
) -> dict[str, tuple[str, ...]]:
    """``order`` (:func:`_crossing_order`) with each of ``pair``'s crossings of the other
    left out, each sequence from the smallest of its rotations again."""
    kept = {}
    for colour, sequence in order.items():
        other = pair[1] if colour == pair[0] else pair[0] if colour == pair[1] else None
        kept[colour] = _smallest_rotation(tuple(c for c in sequence if c != other))
    return kept


def _same_places(before: NDArray[np.float64], after: NDArray[np.float64], width: float) -> bool:
    """Whether each crossing ``after`` lies within a string width of one ``before``."""
    return all(float(np.linalg.norm(before - xy, axis=1).min()) <= width for xy in after)


def _settle_each(
    points: dict[str, Points],
    rings: dict[str, LinearRing],
    order: dict[str, tuple[str, ...]],
    settle: Callable[[str, str, NDArray[np.float64]], tuple[Points, Points] | None],
    moves: list[Move] | None = None,
) -> set[str]:
    """Each crossing of each pair of loops (a, b) settled by ``settle(a, b, crossing)``
    (the two loops laid anew, or None), in place in ``points`` and ``rings``, where
    the loops stay simple and meet in ``order``; the colours laid anew. Each crossing
    moved is added to ``moves``, if given, where the pair still crosses as often."""
    changed: set[str] = set()
    for a, b in itertools.combinations(sorted(points), 2):
        met = ring_crossings(rings[a], rings[b])
        if met is None:
            continue
        for k in range(len(met)):
            laid = settle(a, b, met[k])
            if laid is None:
                continue
            tried = {**rings, a: LinearRing(laid[0]), b: LinearRing(laid[1])}
            # Settling moves crossings, never the board's layout: the loops must stay
            # simple, and each must meet the others in the same order along it as
            # before (a crossing moved past a third loop's would change the fields).
            if not (tried[a].is_simple and tried[b].is_simple) or _crossing_order(tried) != order:
                continue
            points[a], points[b] = laid
            rings.update(tried)
            changed |= {a, b}
            # The pair's other crossings where the laid loops now cross (one near the
            # one settled may have moved too).
            now = ring_crossings(rings[a], rings[b])
            if now is not None and len(now) == len(met):
                before = met[k]
                met = np.array([now[np.argmin(np.linalg.norm(now - xy, axis=1))] for xy in met])
                if moves is not None:
                    moves.append(Move((a, b), before, met[k]))
    return changed


def _settled(
    a: Points, b: Points, crossing: NDArray[np.float64], width: float
) -> tuple[Points, Points] | None:
    """The two loops laid on their fits round ``crossing``, or None where a fit is not
    trusted or the fits meet too near or too far (see :data:`SETTLE_FROM_WIDTHS`)."""
    courses = [_course_through(points, crossing, width) for points in (a, b)]
    trusted = [c for c in courses if c is not None and c[1].stray < FIT_STRAY_WIDTHS * width]
    if len(trusted) < 2:
        return None
    stretches, fits = [c[0] for c in trusted], [c[1] for c in trusted]
    least, most = SETTLE_FROM_WIDTHS, SETTLE_MOST_WIDTHS
    return _laid_where_fits_meet((a, b), stretches, fits, crossing, width, least, most)


def _unkinked(
    loops: tuple[Points, Points],
    kinks: tuple[Points, Points],
    crossing: NDArray[np.float64],
    width: float,
) -> tuple[Points, Points] | None:
    """The two loops, each one kinked at ``crossing`` (one of its ``kinks``, see
    :func:`_kinks`, within :data:`KINK_NEAR_WIDTHS`) laid on its course fitted without
    the kink (:func:`_course_round_kink`), the other left as it is; None where neither
    is kinked, a kinked one's course is not trusted, or where it meets the other loop's
    course (its fit through the crossing, trusted as in :func:`_settled`) is nearer
    than :data:`SETTLE_FROM_WIDTHS` or farther than :data:`KINK_SETTLE_MOST_WIDTHS`
    from ``crossing``, or at under :data:`LEAST_ANGLE_DEG`."""
    kinked = [_kinked_near(found, crossing, width) for found in kinks]
    if not any(kinked):
        return None
    # (A kinked loop's course is trusted or not in _course_round_kink already.)
    courses = [
        _course_round_kink(points, crossing, width)
        if kink
        else _course_through(points, crossing, width)
        for points, kink in zip(loops, kinked, strict=True)
    ]
    if any(course is None for course in courses):
        return None
    fits = [course[1] for course in courses if course is not None]
    straying = [fit.stray >= FIT_STRAY_WIDTHS * width for fit in fits]
    if any(stray and not kink for stray, kink in zip(straying, kinked, strict=True)):
        return None
    least, most = SETTLE_FROM_WIDTHS, KINK_SETTLE_MOST_WIDTHS
    if _fits_meet(fits, crossing, width, least, most) is None:
        return None
    laid = tuple(
        _laid_over_kink(points, course[0], course[1], crossing, width)
        if kink and course is not None
        else points
        for points, course, kink in zip(loops, courses, kinked, strict=True)
    )
    return laid[0], laid[1]


def _kinks(points: Points, width: float, feet: Points, reach: float) -> Points:
    """The places where the closed polyline turns by :data:`KINK_DEGREES` or more (the
    turn between its chords :data:`KINK_CHORD_POINTS` points before and after a point,
    on the loop resampled ``width`` apart) within ``reach`` of one of ``feet`` (the
    feet of the pawns of its colour)."""
    if not len(feet):
        return np.zeros((0, 2))
    even = resample_closed(points, width)
    before = even - np.roll(even, KINK_CHORD_POINTS, axis=0)
    after = np.roll(even, -KINK_CHORD_POINTS, axis=0) - even
    lengths = np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1)
    cosine = (before * after).sum(axis=1) / np.maximum(lengths, 1e-9)
    turned = even[cosine <= math.cos(math.radians(KINK_DEGREES))]
    if not len(turned):
        return np.zeros((0, 2))
    apart = np.linalg.norm(turned[:, None] - feet[None], axis=2).min(axis=1)
    return np.asarray(turned[apart <= reach])


def _kinked_near(kinks: Points, crossing: NDArray[np.float64], width: float) -> bool:
    """Whether one of ``kinks`` lies within :data:`KINK_NEAR_WIDTHS` of ``crossing``."""
    return bool((np.linalg.norm(kinks - crossing, axis=1) <= KINK_NEAR_WIDTHS * width).any())


def _course_round_kink(
    points: Points, crossing: NDArray[np.float64], width: float, hole: float = KINK_HOLE_WIDTHS
) -> tuple[NDArray[np.intp], CourseFit] | None:
    """The loop's stretch within :data:`KINK_REACH_WIDTHS` of ``crossing`` and the
    parabola fitted to it without its points within ``hole`` string widths; None
    where that keeps :data:`FIT_STRAY_WIDTHS` or more from the fit, or leaves fewer
    than :data:`LEAST_STRETCH_POINTS` points or none on a side of the crossing."""
    stretch = _stretch(points, crossing, KINK_REACH_WIDTHS * width)
    if stretch is None:
        return None
    near = points[stretch]
    outside = near[np.linalg.norm(near - crossing, axis=1) >= hole * width]
    if len(outside) < LEAST_STRETCH_POINTS:
        return None
    fit = _fit(outside)
    if fit is None or fit.stray >= FIT_STRAY_WIDTHS * width:
        return None
    side = (outside - crossing) @ fit.along
    if not ((side > 0).any() and (side < 0).any()):
        return None
    return stretch, fit


def _laid_over_kink(
    points: Points,
    stretch: NDArray[np.intp],
    fit: CourseFit,
    crossing: NDArray[np.float64],
    width: float,
    hole: float = KINK_HOLE_WIDTHS,
) -> Points:
    """``points`` with the run of ``stretch`` from its first to its last point within
    ``hole`` string widths of ``crossing`` replaced by ``fit`` (drawn a string width
    apart), eased onto it over :data:`BLEND_WIDTHS` beyond. The kink's points are not
    moved across onto the fit, as :func:`_laid` does: a trace bent round a pawn runs
    back and forth along it. The fit is drawn between where the points just outside
    the run lie along it (the kink's own may lie past each other)."""
    inside = np.flatnonzero(np.linalg.norm(points[stretch] - crossing, axis=1) < hole * width)
    if not len(inside):
        return points
    eased = _laid(points, stretch, fit, crossing, width, hole)
    count = len(points)
    before, after = (int(stretch[inside[0]]) - 1) % count, (int(stretch[inside[-1]]) + 1) % count
    rest = eased[(after + np.arange((before - after) % count + 1)) % count]
    course = fit.between(eased[before], eased[after], max(width, 1.0))[1:-1]
    return np.asarray(np.vstack([rest, course]))


def _runs_smooth(a: Points, b: Points, crossing: NDArray[np.float64], width: float) -> bool:
    """Whether both loops keep within :data:`SMOOTH_TRACE_WIDTHS` of their parabolas
    through ``crossing``."""
    for points in (a, b):
        course = _course_through(points, crossing, width)
        if course is None or course[1].stray >= SMOOTH_TRACE_WIDTHS * width:
            return False
    return True


def _course_through(
    points: Points, crossing: NDArray[np.float64], width: float
) -> tuple[NDArray[np.intp], CourseFit] | None:
    """The loop's stretch within :data:`FIT_REACH_WIDTHS` of ``crossing`` and the
    parabola fitted to it; None where :func:`_stretch` finds none, it has fewer than
    :data:`LEAST_STRETCH_POINTS` points, or it cannot be fitted."""
    stretch = _stretch(points, crossing, FIT_REACH_WIDTHS * width)
    if stretch is None or len(stretch) < LEAST_STRETCH_POINTS:
        return None
    fit = _fit(points[stretch])
    return None if fit is None else (stretch, fit)


def _laid_where_fits_meet(
    loops: tuple[Points, Points],
    stretches: list[NDArray[np.intp]],
    fits: list[CourseFit],
    crossing: NDArray[np.float64],
    width: float,
    least_move: float,
    most_move: float,
) -> tuple[Points, Points] | None:
    """The two ``loops`` laid on their ``fits`` round ``crossing``, so that they cross
    where the fits meet; None where the fits do not meet, meet nearer than
    ``least_move`` string widths or farther than ``most_move``, or cross at under
    :data:`LEAST_ANGLE_DEG`."""
    if _fits_meet(fits, crossing, width, least_move, most_move) is None:
        return None
    laid = tuple(
        _laid(points, stretch, fit, crossing, width)
        for points, stretch, fit in zip(loops, stretches, fits, strict=True)
    )
    return laid[0], laid[1]


def _fits_meet(
    fits: list[CourseFit],
    crossing: NDArray[np.float64],
    width: float,
    least_move: float,
    most_move: float,
) -> NDArray[np.float64] | None:
    """Where the two ``fits`` cross, nearest ``crossing``; None where they do not, or
    cross nearer ``crossing`` than ``least_move`` string widths or farther than
    ``most_move``, or at under :data:`LEAST_ANGLE_DEG`."""
    meet = _meeting(fits, crossing, width)
    if meet is None:
        return None
    move = float(np.linalg.norm(meet - crossing))
    if not least_move * width <= move <= most_move * width:
        return None
    cosine = abs(float(fits[0].direction_at(meet) @ fits[1].direction_at(meet)))
    if cosine > math.cos(math.radians(LEAST_ANGLE_DEG)):
        return None
    return meet


def _settled_on_cords(
    loops: tuple[Points, Points],
    colours: tuple[str, str],
    crossing: NDArray[np.float64],
    looks: list[Look],
    width: float,
) -> tuple[Points, Points] | None:
    """The two loops (of ``colours``) laid on the courses their cord maps show round
    ``crossing``, or None where no look has a map of a cord or no course is trusted, or
    the courses meet too near, too far or at too small an angle (see
    :data:`CORD_REACH_WIDTHS`). Of several looks, each cord's course is the fit that
    keeps nearest its pixels (the least stray): the look that shows the cord as one
    tight band, not together with its shadow or a pawn's rim beside it."""
    stretches, fits = [], []
    for points, colour in zip(loops, colours, strict=True):
        stretch = _stretch(points, crossing, CORD_REACH_WIDTHS * width)
        if stretch is None or len(stretch) < LEAST_STRETCH_POINTS:
            return None
        found = []
        for maps, origin in looks:
            cord = maps.get(colour)
            if cord is None:
                continue
            # The fit is made in the map's pixels and moved back among the loops'.
            offset = np.asarray(origin, float)
            fit = _cord_course(cord, points[stretch] - offset, crossing - offset, width)
            if fit is not None:
                found.append(replace(fit, origin=fit.origin + offset))
        if not found:
            return None
        stretches.append(stretch)
        fits.append(min(found, key=lambda fit: fit.stray))
    least, most = CORD_SETTLE_FROM_WIDTHS, CORD_SETTLE_MOST_WIDTHS
    return _laid_where_fits_meet(loops, stretches, fits, crossing, width, least, most)


def _cord_course(
    cord: NDArray[np.uint8], course: Points, crossing: NDArray[np.float64], width: float
) -> CourseFit | None:
    """The parabola the cord map shows along ``course`` (a loop's stretch through
    ``crossing``), fitted to the pixels it is sure of, weighted by how sure; None
    where it is not trusted (see :data:`CORD_REACH_WIDTHS`)."""
    # The window holds every pixel within the band of the course (its ends included).
    low = np.maximum(np.floor(course.min(axis=0) - CORD_BAND_WIDTHS * width), 0).astype(int)
    high = np.minimum(
        np.floor(course.max(axis=0) + CORD_BAND_WIDTHS * width) + 1,
        [cord.shape[1], cord.shape[0]],
    ).astype(int)
    if np.any(high <= low):
        return None
    window = cord[low[1] : high[1], low[0] : high[0]]
    # The sure pixels first: most of the window is not the cord.
    rows, columns = np.nonzero(window >= CORD_SURE)
    pixels = np.column_stack([columns + low[0], rows + low[1]]).astype(float)
    sure = window[rows, columns].astype(float)
    from_crossing = np.linalg.norm(pixels - crossing, axis=1)
    near = (CORD_HOLE_WIDTHS * width <= from_crossing) & (
        from_crossing <= CORD_REACH_WIDTHS * width
    )
    pixels, sure = pixels[near], sure[near]
    on_band = shapely.distance(shapely.points(pixels), LineString(course)) <= (
        CORD_BAND_WIDTHS * width
    )
    pixels, weights = pixels[on_band], sure[on_band] - CORD_SURE + 1
    if len(pixels) < 2 * CORD_LEAST_PIXELS:
        return None  # (too few for both sides, and the weights' sum is not 0 below)
    fit = _fit(pixels, weights)
    if fit is None or fit.stray >= CORD_STRAY_WIDTHS * width:
        return None
    # Supported on both sides of the crossing, along the pixels' main direction.
    side = (pixels - crossing) @ fit.along
    hole = CORD_HOLE_WIDTHS * width
    if min(int((side > hole).sum()), int((side < -hole).sum())) < CORD_LEAST_PIXELS:
        return None
    return fit


def _stretch(points: Points, xy: NDArray[np.float64], reach: float) -> NDArray[np.intp] | None:
    """Indices of the closed polyline's run through its point nearest ``xy`` that lies
    within ``reach`` of it (between the ends :func:`vision.trace.leaving` finds); None
    where that run is a quarter of the loop or more."""
    ends = leaving(points, xy, reach)
    if ends is None:
        return None
    before, after = ends
    return (before + np.arange(1, (after - before) % len(points))) % len(points)


def _fit(points: Points, weights: NDArray[np.float64] | None = None) -> CourseFit | None:
    """The parabola along the points' main direction that fits them best (weighted
    least squares, and a weighted stray, given ``weights``); None where they stand at
    fewer than three places along it (a cord map's two columns of pixels)."""
    w = np.ones(len(points)) if weights is None else weights
    origin = w @ points / w.sum()
    centred = points - origin
    _, axes = np.linalg.eigh(centred.T @ (centred * w[:, None]) / w.sum())
    along, across = axes[:, 1], axes[:, 0]  # eigh's are ascending: the normal first
    t, u = centred @ along, centred @ across
    if len(np.unique(np.round(t))) < 3:
        return None
    coefficients = np.polyfit(t, u, 2, w=np.sqrt(w))
    stray = math.sqrt(float(w @ (u - np.polyval(coefficients, t)) ** 2 / w.sum()))
    return CourseFit(origin, along, across, coefficients, (float(t.min()), float(t.max())), stray)


def _meetings(fits: list[CourseFit], width: float) -> list[ShapelyPoint]:
    """Every point where the two fits cross (each drawn :data:`DRAWN_BEYOND_WIDTHS`
    beyond its stretch)."""
    beyond, spacing = DRAWN_BEYOND_WIDTHS * width, width / 4
    met = LineString(fits[0].drawn(beyond, spacing)).intersection(
        LineString(fits[1].drawn(beyond, spacing))
    )
    return [g for g in getattr(met, "geoms", [met]) if g.geom_type == "Point" and not g.is_empty]


def _meeting(
    fits: list[CourseFit], crossing: NDArray[np.float64], width: float
) -> NDArray[np.float64] | None:
    """Where the two fits cross, nearest ``crossing``; None where they do not."""
    found = _meetings(fits, width)
    if not found:
        return None
    nearest = min(found, key=lambda g: g.distance(ShapelyPoint(crossing)))
    return np.array([nearest.x, nearest.y])


def _laid(
    points: Points,
    stretch: NDArray[np.intp],
    fit: CourseFit,
    crossing: NDArray[np.float64],
    width: float,
    laid_widths: float = LAID_WIDTHS,
) -> Points:
    """``points`` with those of ``stretch`` near ``crossing`` moved onto ``fit``: wholly
    within ``laid_widths`` string widths, less and less over :data:`BLEND_WIDTHS`
    beyond."""
    laid = points.copy()
    near = points[stretch]
    distance = np.linalg.norm(near - crossing, axis=1) / width
    share = np.clip((laid_widths + BLEND_WIDTHS - distance) / BLEND_WIDTHS, 0.0, 1.0)
    laid[stretch] = near + share[:, None] * (fit.onto(near) - near)
    return laid


def _crossing_order(rings: dict[str, LinearRing]) -> dict[str, tuple[str, ...]] | None:
    """For each loop, the loops it crosses in the order it meets them (from the
    smallest of its rotations: a loop has no first point); None where two run along
    each other."""
    met: dict[str, list[tuple[float, str]]] = {colour: [] for colour in rings}
    for a, b in itertools.combinations(sorted(rings), 2):
        crossings = ring_crossings(rings[a], rings[b])
        if crossings is None:
            return None
        for xy in crossings:
            met[a].append((rings[a].project(ShapelyPoint(xy)), b))
            met[b].append((rings[b].project(ShapelyPoint(xy)), a))
    order = {}
    for colour, along in met.items():
        sequence = tuple(other for _, other in sorted(along))
        order[colour] = _smallest_rotation(sequence)
    return order


def _smallest_rotation(sequence: tuple[str, ...]) -> tuple[str, ...]:
    """The smallest of the sequence's rotations: a loop's crossings have no first one."""
    return min((sequence[i:] + sequence[:i] for i in range(len(sequence))), default=())


def _laid_anew(loop: Loop, points: Points, ring: LinearRing) -> Loop:
    """``loop`` on its new course, its knot moved onto it."""
    knot = loop.knot
    if knot is not None:
        on = ring.interpolate(ring.project(ShapelyPoint(knot)))
        knot = (on.x, on.y)
    return replace(loop, points=points, knot=knot)


def draw_settled(rgb: NDArray[np.uint8], traced: Loops, settled: Loops) -> NDArray[np.uint8]:
    """The photo darkened, the loops as traced in thin grey and as settled in their
    colours, each crossing that moved ringed in white (its old place) and magenta."""
    picture = (rgb * 0.45).astype(np.uint8)
    for loop in traced.loops.values():
        cv2.polylines(picture, [loop.points.round().astype(np.int32)], True, (160, 160, 160), 1)
    for colour, loop in settled.loops.items():
        cv2.polylines(picture, [loop.points.round().astype(np.int32)], True, LABEL_RGB[colour], 1)
    for before, after in _moved_crossings(traced, settled):
        cv2.circle(picture, _pixel(before), 9, (255, 255, 255), 1)
        cv2.circle(picture, _pixel(after), 9, (255, 0, 255), 2)
    return picture


def _moved_crossings(
    traced: Loops, settled: Loops
) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """(old, new) place of each crossing that moved, by the pair of loops and the
    nearest new place."""
    moved = []
    for a, b in itertools.combinations(sorted(settled.loops), 2):
        if traced.loops[a] is settled.loops[a] and traced.loops[b] is settled.loops[b]:
            continue
        old = ring_crossings(LinearRing(traced.loops[a].points), LinearRing(traced.loops[b].points))
        new = ring_crossings(
            LinearRing(settled.loops[a].points), LinearRing(settled.loops[b].points)
        )
        if old is None or new is None or len(new) == 0:
            continue
        for xy in old:
            nearest = new[int(np.argmin(np.linalg.norm(new - xy, axis=1)))]
            if not np.allclose(nearest, xy):
                moved.append((xy, nearest))
    return moved


def _pixel(xy: NDArray[np.float64]) -> tuple[int, int]:
    return int(round(float(xy[0]))), int(round(float(xy[1])))
