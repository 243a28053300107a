"""Trace stage: each line colour as exactly one closed loop, with its knot.

The string mask of a colour is thinned to a one-pixel skeleton and cut at its
junctions into simple segments. Where another string passes over it or a pawn hides
it, the skeleton has a gap; the loop is rebuilt by joining segment ends across gaps,
cheapest first, where the cost is the gap's length plus how much the line would have
to bend (a string runs on smoothly under the one on top). Detours to scraps beside
the string are then dropped, and long gaps (a row of pawns on the string) are bridged
by curves that follow the string's direction at both ends. Short dead ends and scraps
left over next to the loop are the knot's tails.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter1d  # type: ignore[import-untyped]
from scipy.spatial import cKDTree  # type: ignore[import-untyped]
from shapely import make_valid
from shapely.geometry import LinearRing, Polygon
from shapely.geometry import Point as ShapelyPoint
from skimage.graph import MCP_Geometric
from skimage.morphology import skeletonize

from engine.board import Point
from engine.geometry import ring_crossings
from vision.colour import bounding_box
from vision.doubts import no_knot_warning
from vision.errors import ReadError
from vision.parallel import map_in_threads
from vision.separate import MIN_LOOP_WIDTHS, Separation, blob_mask, disc, fill_small_holes
from vision.shadows import cast_shadow, shadow_band

Points = NDArray[np.float64]

#: Longest gap bridged in the first, strict pass, in string widths (a pawn hiding the
#: string is ~7 wide); later passes are more lenient, the last has no limit at all.
MAX_GAP_WIDTHS = 14.0
#: The shortest scrap of skeleton taken for a knot's tail, in string widths.
TAIL_MIN_WIDTHS = 1.5
#: Largest bend at each end of a bridged gap.
MAX_BEND_DEG = 65.0
#: Gaps at least this long (in string widths, longer than one pawn) are bridged with
#: a curve that follows the string's direction at both ends; shorter ones straight.
CURVED_GAP_WIDTHS = 8.0
#: A detour strays at least this many string widths from the straight way past it,
#: and holds at most this many segments.
DETOUR_MIN_WIDTHS = 2.5
DETOUR_MAX_SEGMENTS = 6
#: Holes in a string's mask smaller than this many squared string widths are filled
#: before its thickness is measured (the lit loops of a knot ring its dark middle).
KNOT_HOLE_WIDTHS2 = 5.0
#: A spur: the trace leaves a place and comes back within this many string widths of
#: it, having gone at least ``SPUR_MIN_WIDTHS`` away, over at most ``SPUR_MAX_WIDTHS``
#: of path. A string never bends back that tightly.
SPUR_RETURN_WIDTHS = 2.0
SPUR_MIN_WIDTHS = 2.5
SPUR_MAX_WIDTHS = 16.0
#: A bridge at least this many string widths long is laid again along the cheapest way
#: through a map of how sure it is that the cord is there (:func:`follow_bridges`), and
#: that way kept where it runs on evidence FOLLOW_GAIN surer on average (0..1) than the
#: bridge did, at most FOLLOW_MAX_DETOUR times as long. (A bridge that cuts off a
#: loop's tip, where the colour rules lost the cord among pawns of its colour, is
#: about half as long as the way round the tip; with 1.5, 310178 and 310206 lost a loop.
#: The way is looked for within a gap's length round the bridge's ends for the same
#: reason.) The stretch round a crossing (:func:`follow_through_crossings`) is held to
#: the same FOLLOW_MAX_DETOUR: measured together, crossings were found as often or more
#: on each of nine generated sets of 210.
FOLLOW_MIN_WIDTHS = 5.0
FOLLOW_GAIN = 0.2
FOLLOW_MAX_DETOUR = 3.0
#: Crossing a pixel with no evidence costs this much more than one on a sure cord.
FOLLOW_BARE_COST = 20.0
#: Bridges parted by no more than this many string widths of string (a pawn's rim or
#: shadow read as the cord in the middle of a gap) are also laid again as one gap.
FOLLOW_SCRAP_WIDTHS = 20.0
#: Where a loop crosses another, its stretch from where it first lies this many string
#: widths from the crossing on one side to that on the other is laid along the cheapest
#: way through its cord map where that way runs on evidence CROSSING_FOLLOW_GAIN surer
#: on average (:func:`follow_through_crossings`); not where a pawn lies in the square
#: of half side CROSSING_CLEAR_WIDTHS string widths round the crossing (the map guesses
#: under a pawn).
#: On the hard photos of the nineteenth to twenty-first sets (210) crossings read aside
#: 43 -> 35, none lost; with a gain of 0.2 (as for bridges) 2 were won, and without
#: the pawns' clearance 4 of 11 changes were losses (crossings under a demon).
CROSSING_FOLLOW_WIDTHS = 4.0
CROSSING_FOLLOW_GAIN = 0.05
CROSSING_CLEAR_WIDTHS = 1.0
#: The four cords are about as long (in 438 generated photos and the 18 dev photos the
#: shortest loop is at least 0.78 of the four's median length), so a loop shorter than
#: this share of the median of the other three is no cord: a small loop round a pawn
#: of the colour, where the cord itself was not seen (a yellow cord on a yellow cloth).
#: (The combine stage traces it again on the cord map.)
MIN_LENGTH_SHARE = 0.5
#: A colour found by shape is traced again without what lies this many string widths
#: to either side of another loop: the other cord's own edges and its shadow.
OTHER_CORRIDOR_WIDTHS = 3.5
#: ... and a last time with what lies this near its new path given back (its crossings).
OWN_PATH_WIDTHS = 1.5
#: Where the other cords cast shadows that pass for it (:mod:`vision.shadows`), what
#: lies within this many string widths of those shadows is left out too.
SHADOW_BAND_WIDTHS = 2.0


@dataclass(frozen=True)
class Segment:
    """An unbranched piece of skeleton: ordered (x, y) pixel centres."""

    points: Points

    @cached_property
    def length(self) -> float:
        # Cached: the joining and the detours ask for it tens of thousands of times.
        return float(np.linalg.norm(np.diff(self.points, axis=0), axis=1).sum())


@dataclass(frozen=True)
class Loop:
    """One traced power line.

    Attributes
    ----------
    colour : str
    points : (N, 2) float
        Closed polyline along the string's centre, working pixels, first point not
        repeated.
    knot : (x, y) or None
    bridges : list of ((x, y), (x, y))
        Gaps that were bridged (under another string, behind a pawn).
    seen : float
        Fraction of the loop's length that was seen as string rather than bridged.
    knot_confidence : float
        How sure the tracer, or the detector's mark it was given, is of the knot (or
        the knot checker, where it moved or placed the knot); it steers which knot is taken
        (:func:`vision.combine.combine_knots`).
    knot_mark : float or None
        The detector's strongest knot mark at the knot taken, once the detector has
        looked (0 where it marked nothing there): what the report's
        ``knot_confidence`` says.
    spurs : list of (x, y)
        Where the trace ran out along a scrap and straight back (cut off from
        ``points``): most often up a knot's tail, which the skeleton joined to the loop.
    """

    colour: str
    points: Points
    knot: Point | None
    bridges: list[tuple[Point, Point]] = field(default_factory=list)
    seen: float = 1.0
    knot_confidence: float = 0.0
    spurs: list[Point] = field(default_factory=list)
    knot_mark: float | None = None

    @property
    def length(self) -> float:
        """The closed polyline's length, working pixels."""
        closed = np.vstack([self.points, self.points[:1]])
        return float(np.linalg.norm(np.diff(closed, axis=0), axis=1).sum())


@dataclass(frozen=True)
class Loops:
    """The four traced loops of one photo, and what the tracer was unsure of."""

    loops: dict[str, Loop]
    warnings: list[str]


def trace_loops(separation: Separation) -> Loops:
    """Trace every line colour as one closed loop.

    Raises
    ------
    ReadError
        When no strings are found, fewer than four loops are found, or a loop cannot
        be closed.
    """
    return all_four(apart_from_the_others(separation, trace_each(separation)))


def trace_each(
    separation: Separation, colours: Collection[str] | None = None
) -> dict[str, Loop | None]:
    """Each line colour's loop (of ``colours`` only, if given), or None where too
    little of its string was found."""
    width = separation.string_width
    every_string = np.logical_or.reduce(list(separation.strings.values()))

    def traced(colour: str) -> Loop | None:
        mask = separation.strings[colour]
        # Scraps shorter than this (seen between two pawns, say) point nowhere in
        # particular; the gap across them is bridged straight instead.
        pieces, junctions = skeleton_segments(mask, min_length=TAIL_MIN_WIDTHS * width)
        segments = [s for s in pieces if s.length >= 3.0 * width]
        if sum(s.length for s in segments) < MIN_LOOP_WIDTHS * width:
            return None
        loop = close_loop(colour, segments, width)
        # Where another string passes over this one, the cut leaves ragged ends whose
        # skeleton branches too: those junctions say nothing of the knot.
        junctions = _away_from(junctions, every_string & ~mask, 2.0 * width)
        # A knot's tails may be short scraps, cut off from the thick knot.
        knot: Point | None
        if colour in separation.knots:
            knot, knot_confidence = on_path(separation.knots[colour], loop.points), 1.0
        else:
            own_pawns = [p for p in separation.pawns if p.colour == colour]
            knot, knot_confidence = find_knot(
                loop, pieces, junctions, mask, width, blob_mask(mask.shape, own_pawns)
            )
        return replace(loop, knot=knot, knot_confidence=knot_confidence)

    chosen = [c for c in separation.strings if colours is None or c in colours]
    return dict(zip(chosen, map_in_threads(traced, chosen, every_string.size), strict=True))


def apart_from_the_others(
    separation: Separation, found: dict[str, Loop | None], traced_on: Collection[str] = ()
) -> dict[str, Loop | None]:
    """The loops again, each colour found by shape (``separation.by_shape``) traced once
    more on its string less a corridor round every other loop.

    A colour found as thin lines of its hue takes in any other cord that shows as
    such a line (dark cords in dim light are barely labelled), and the shadows cords
    cast beside them; the other loops are traced on their colours, so what lies
    along them is theirs. The corridor is OTHER_CORRIDOR_WIDTHS string widths to
    each side. Its own cord crosses the others, and the gaps the corridor cuts there
    are bridged straight; so it is traced a last time with the corridor's pixels
    near that reading (OWN_PATH_WIDTHS) given back, for where it crosses. The new
    reading is kept when it is a loop not far shorter than the others, and, for
    colours in ``traced_on`` (traced on something else than their string, the
    detector's cord map), when it also saw more of the loop or the one it replaces
    was far too short. Where it found no knot, the old reading's knot stays if it lies
    on it.
    """
    width = separation.string_width
    kept = dict(found)

    def traced_without(colour: str, cut: NDArray[np.bool_]) -> Loop | None:
        strings = separation.strings | {colour: separation.strings[colour] & ~cut}
        loop = trace_each(replace(separation, strings=strings), colours=[colour])[colour]
        if loop is None or colour in too_short(kept | {colour: loop}):
            return None
        return loop

    # In the colours' own order: a frozenset's order changes from run to run, and
    # which colours were replaced already decides what is far too short.
    for colour in [c for c in separation.strings if c in separation.by_shape]:
        old = found.get(colour)
        if old is None:
            continue
        others = [loop for other, loop in found.items() if other != colour and loop is not None]
        shape = separation.strings[colour].shape
        corridor = near_path(others, shape, OTHER_CORRIDOR_WIDTHS * width)
        shadow = cast_shadow(separation.strings[colour], others, width)
        if shadow is not None:
            corridor |= shadow_band(others, shape, shadow, SHADOW_BAND_WIDTHS * width)
        new = traced_without(colour, corridor)
        if new is None:
            continue
        crossing = near_path([new], corridor.shape, OWN_PATH_WIDTHS * width)
        new = traced_without(colour, corridor & ~crossing) or new
        if new.knot is None:
            # The corridor may cut off the tails of a knot that lies near another loop.
            new = with_knot_of(new, old, OWN_PATH_WIDTHS * width)
        if colour in traced_on and new.seen <= old.seen and colour not in too_short(kept):
            continue
        kept[colour] = new
    return kept


def with_knot_of(loop: Loop, other: Loop | None, reach: float) -> Loop:
    """``loop`` with the knot ``other`` (another reading of the same cord) found, where
    that lies within ``reach`` of it, put on its path: a reading on the detector's cord
    map, which shows no lump, takes the colour rules' knot; a reading that lost a
    knot's tails takes the one found before."""
    if other is None or other.knot is None:
        return loop
    ring = LinearRing(np.asarray(loop.points))
    knot = ShapelyPoint(other.knot)
    if ring.distance(knot) > reach:
        return loop
    on_loop = ring.interpolate(ring.project(knot))
    return replace(loop, knot=(on_loop.x, on_loop.y), knot_confidence=other.knot_confidence)


def near_path(loops: Sequence[Loop], shape: tuple[int, ...], reach: float) -> NDArray[np.bool_]:
    """The pixels within ``reach`` of any of the ``loops``' paths."""
    paths = np.zeros(shape[:2], np.uint8)
    for loop in loops:
        cv2.polylines(paths, [np.round(loop.points).astype(np.int32)], True, 1, 1)
    return np.asarray(cv2.dilate(paths, disc(2 * reach)) > 0)


def all_four(found: dict[str, Loop | None]) -> Loops:
    """The loops, with what the tracer was unsure of, if every colour has one.

    Raises
    ------
    ReadError
        When a colour has none (see :func:`trace_loops`).
    """
    missing = [colour for colour, loop in found.items() if loop is None]
    loops = {colour: loop for colour, loop in found.items() if loop is not None}
    if len(missing) == len(found):
        raise ReadError("no strings found in the photo")
    if missing:
        names = ", ".join(loops)
        raise ReadError(
            f"only {len(loops)} loop{'s' if len(loops) != 1 else ''} found ({names}); "
            f"no {' or '.join(missing)} string"
        )
    warnings = []
    short = too_short(dict(loops))
    for colour, loop in loops.items():
        if loop.knot is None:
            warnings.append(no_knot_warning(colour))
        if colour in short:
            warnings.append(f"the {colour} loop is far shorter than the others")
        if loop.seen < 0.8:
            warnings.append(
                f"only {loop.seen:.0%} of the {colour} loop was seen; the rest is guessed"
            )
    return Loops(loops=loops, warnings=warnings)


def too_short(found: dict[str, Loop | None]) -> set[str]:
    """The colours whose loop is shorter than :data:`MIN_LENGTH_SHARE` of the median
    length of the other loops found (at least two others are needed to tell)."""
    lengths = {colour: loop.length for colour, loop in found.items() if loop is not None}
    short = set()
    for colour, length in lengths.items():
        others = [other for c, other in lengths.items() if c != colour]
        if len(others) >= 2 and length < MIN_LENGTH_SHARE * float(np.median(others)):
            short.add(colour)
    return short


# --- skeleton → segments ------------------------------------------------------------


def skeleton_segments(
    mask: NDArray[np.bool_], min_length: float
) -> tuple[list[Segment], NDArray[np.float64]]:
    """Cut the mask's skeleton at its junctions into unbranched segments.

    Returns the segments at least ``min_length`` long and the (x, y) of the junctions.
    """
    box = bounding_box(mask, margin=2)
    if box is None:
        return [], np.zeros((0, 2))
    # The string's box is enough: with a margin of table round it, its skeleton is
    # the whole image's.
    return _box_segments(mask[box], (box[1].start, box[0].start), min_length)


def _box_segments(
    mask: NDArray[np.bool_], origin: tuple[int, int], min_length: float
) -> tuple[list[Segment], NDArray[np.float64]]:
    """``skeleton_segments`` of a box of the photo whose corner is at ``origin`` (x, y),
    in the photo's pixels."""
    left, top = origin
    skeleton: NDArray[np.bool_] = skeletonize(mask)  # type: ignore[no-untyped-call]
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 0
    neighbours = cv2.filter2D(
        skeleton.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT
    )
    junction = skeleton & (neighbours >= 3)
    jy, jx = np.nonzero(junction)
    near_junction = cv2.dilate(junction.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    plain = skeleton & ~near_junction
    count, components, stats, _ = cv2.connectedComponentsWithStats(
        plain.astype(np.uint8), connectivity=8
    )
    segments = []
    for index in range(1, count):
        if stats[index, cv2.CC_STAT_AREA] < max(2, min_length * 0.7):
            continue
        x, y, w, h = (int(v) for v in stats[index, :4])
        ys, xs = np.nonzero(components[y : y + h, x : x + w] == index)
        # In the photo's pixels already: the chain's order depends on them.
        segment = Segment(_order_chain(xs + x + left, ys + y + top))
        if segment.length >= min_length:
            segments.append(segment)
    return segments, np.column_stack([jx + left, jy + top]).astype(np.float64)


#: The steps to a pixel's 8 neighbours, the 4-connected ones first, so that a staircase
#: is walked pixel by pixel.
_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0), (-1, -1), (-1, 1), (1, -1), (1, 1))


def _order_chain(xs: NDArray[np.intp], ys: NDArray[np.intp]) -> Points:
    """Order the pixels of an unbranched 8-connected chain from one end to the other."""
    pixels = set(zip(xs.tolist(), ys.tolist(), strict=True))
    ends = _chain_ends(xs, ys)
    start = next((p for p in pixels if p in ends), next(iter(pixels)))
    chain = [start]
    unseen = pixels - {start}
    x, y = start
    while True:
        for dx, dy in _STEPS:
            step = (x + dx, y + dy)
            if step in unseen:
                break
        else:
            break
        unseen.remove(step)
        chain.append(step)
        x, y = step
    return np.array(chain, np.float64)


def _chain_ends(xs: NDArray[np.intp], ys: NDArray[np.intp]) -> set[tuple[int, int]]:
    """The pixels of the chain with at most one neighbour in it."""
    left, top = int(xs.min()) - 1, int(ys.min()) - 1
    grid = np.zeros((int(ys.max()) - top + 2, int(xs.max()) - left + 2), np.uint8)
    grid[ys - top, xs - left] = 1
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 0
    neighbours = cv2.filter2D(grid, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    at_end = neighbours[ys - top, xs - left] <= 1
    return set(zip(xs[at_end].tolist(), ys[at_end].tolist(), strict=True))


# --- segments → one closed loop -----------------------------------------------------


@dataclass(frozen=True)
class _End:
    segment: int
    tail: bool  # False: the segment's first point; True: its last point

    def point(self, segments: list[Segment]) -> Points:
        pts = segments[self.segment].points
        end: Points = pts[-1] if self.tail else pts[0]
        return end

    def direction(self, segments: list[Segment], reach: float) -> Points:
        """Unit vector pointing out of the segment at this end."""
        pts = segments[self.segment].points
        ordered = pts[::-1] if not self.tail else pts
        end = ordered[-1]
        steps = np.linalg.norm(ordered - end, axis=1)
        far_enough = np.nonzero(steps >= reach)[0]
        inner = ordered[far_enough[-1]] if len(far_enough) else ordered[0]
        vector = end - inner
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else np.zeros(2)


def close_loop(colour: str, segments: list[Segment], width: float) -> Loop:
    """Join the segments of one colour into a single closed loop.

    Segment ends are joined cheapest first (gap length in string widths plus a penalty
    for bending at both ends). Ends still open after this strict pass are joined in a
    more lenient one (a long gap behind a row of pawns, a sharp bend at a knot), and
    what is open after that in a last pass without limits (a loop must close). The
    cycle showing the most string and bridging the least is the loop.

    Raises
    ------
    ReadError
        If no closed loop can be formed.
    """
    ends = [_End(i, tail) for i in range(len(segments)) for tail in (False, True)]
    reach = 3.0 * width
    points = np.array([e.point(segments) for e in ends])
    directions = np.array([e.direction(segments, reach) for e in ends])
    joiner = _Joiner(ends, len(segments))
    passes = ((MAX_GAP_WIDTHS, MAX_BEND_DEG), (2.5 * MAX_GAP_WIDTHS, 100.0), (1e9, 180.0))
    # A segment long enough to be a whole loop (a string on top at all its crossings)
    # may close on itself; a scrap may not.
    loop_sized = {i for i, s in enumerate(segments) if s.length >= MIN_LOOP_WIDTHS * width}
    for max_gap, max_bend in passes:
        # Only ends still open can be joined: the last pass, without limits, would
        # otherwise weigh every pair of ends (a minute on a mask full of scraps).
        still_open = joiner.open_ends()
        joiner.join(
            _candidates(
                ends, points, directions, width, max_gap * width, max_bend, loop_sized, still_open
            )
        )
    cycles = [_walk_cycle(start, ends, joiner.partner) for start in joiner.cycle_starts()]
    if not cycles:
        raise ReadError(f"the {colour} loop could not be closed")
    # The loop is the cycle that shows the most string and guesses the least: a tour
    # through scraps far apart is long but mostly bridged.
    cycles = [drop_detours(cycle, segments, directions, width) for cycle in cycles]
    best = max(cycles, key=lambda cycle: _seen_minus_bridged(cycle, segments))
    return _loop_from_cycle(colour, best, segments, width)


def _candidates(
    ends: list[_End],
    points: Points,
    directions: Points,
    width: float,
    max_gap: float,
    max_bend_deg: float,
    loop_sized: set[int],
    still_open: NDArray[np.bool_],
) -> list[tuple[float, int, int]]:
    """Possible joins (cost, end i, end j) between ends ``still_open``, cheapest first."""
    cos_limit = math.cos(math.radians(max_bend_deg))
    candidates = []
    for i in np.nonzero(still_open)[0]:
        gaps = points - points[i]
        lengths = np.linalg.norm(gaps, axis=1)
        for j in np.nonzero((lengths <= max_gap) & (np.arange(len(ends)) > i) & still_open)[0]:
            if ends[i].segment == ends[j].segment and ends[i].segment not in loop_sized:
                continue
            gap = float(lengths[j])
            # Two ends that continue each other point in opposite directions; across a
            # real gap both must also point along the gap.
            facing = float(directions[i] @ directions[j])
            if facing > -cos_limit and gap > 0.5 * width:
                continue
            if gap >= 1.5 * width:
                unit = gaps[j] / gap
                if min(float(directions[i] @ unit), float(directions[j] @ -unit)) < cos_limit:
                    continue
            cost = _bridge_cost(points[i], directions[i], points[j], directions[j], width)
            candidates.append((cost / width, int(i), int(j)))
    candidates.sort()
    return candidates


def _bridge_cost(
    start: Points, start_direction: Points, end: Points, end_direction: Points, width: float
) -> float:
    """What bridging from one segment end to another costs, in pixels: the gap's length
    plus a penalty for bending. Directions point out of the segments at those ends: two
    ends that continue each other point in opposite directions, and across a real gap
    both also point along the gap."""
    # Plain floats: this runs for every pair of nearby ends, where NumPy's per-call
    # overhead on 2-vectors would dominate.
    sx, sy = (float(v) for v in start_direction)
    ex, ey = (float(v) for v in end_direction)
    dx, dy = float(end[0] - start[0]), float(end[1] - start[1])
    gap = math.hypot(dx, dy)
    bend = (1 + sx * ex + sy * ey) / 2
    if gap >= 1.5 * width:
        ux, uy = dx / gap, dy / gap
        bend += (1 - (sx * ux + sy * uy)) + (1 + (ex * ux + ey * uy))
    return gap + 12.0 * width * bend


def drop_detours(
    cycle: list[_End], segments: list[Segment], directions: Points, width: float
) -> list[_End]:
    """The cycle without detours to scraps that are not part of the string.

    Greedy joining takes in every scrap of the colour near the string: a knot's tail,
    a fringe of another string read as this colour. A run of segments is left out
    where it strays from the straight way past it and bridging straight past costs
    less than the string it shows plus the bridges it needs (a real stretch of string
    is never cheaper to bridge past; scraps of a dimly seen string lie along the way).
    The way past is at most a first-pass bridge long (:data:`MAX_GAP_WIDTHS`), or as
    long as the longest bridge the run needs: a pawn's lit rim beside a long gap, which
    the detector's cord map may mark as cord, is left out as a nearer scrap is.
    ``directions`` holds the outward direction of every end, indexed as the joiner's.
    """

    def exit_of(entry: _End) -> int:
        return 2 * entry.segment + (0 if entry.tail else 1)

    def entry_of(entry: _End) -> int:
        return 2 * entry.segment + (1 if entry.tail else 0)

    costs: dict[tuple[int, int], float] = {}

    def bridge(a: int, b: int) -> float:
        # Remembered: each pass over the cycle asks again about nearly every pair it
        # asked before, and a cycle through hundreds of scraps takes hundreds of passes.
        if (a, b) not in costs:
            costs[a, b] = _bridge_cost(ends_xy[a], directions[a], ends_xy[b], directions[b], width)
        return costs[a, b]

    def gap(a: int, b: int) -> float:
        return math.dist(ends[a], ends[b])

    ends_xy = np.array([[s.points[0], s.points[-1]] for s in segments]).reshape(-1, 2)
    ends = [tuple(xy) for xy in ends_xy.tolist()]  # plain floats, as in _bridge_cost
    cycle = list(cycle)
    while len(cycle) > 1:
        n = len(cycle)
        best_gain, best = 0.0, None
        for i in range(n):
            kept_cost = 0.0
            longest_gap = 0.0
            for run in range(1, min(DETOUR_MAX_SEGMENTS, n - 1) + 1):
                inner = cycle[(i + run) % n]
                before = cycle[(i + run - 1) % n]
                kept_cost += bridge(exit_of(before), entry_of(inner))
                kept_cost -= segments[inner.segment].length
                longest_gap = max(longest_gap, gap(exit_of(before), entry_of(inner)))
                after = cycle[(i + run + 1) % n]
                closing = kept_cost + bridge(exit_of(inner), entry_of(after))
                start, end = exit_of(cycle[i]), entry_of(after)
                gain = closing - bridge(start, end)
                if gain <= best_gain:
                    continue
                # A way past no longer than a bridge the run needs guesses no more.
                closing_gap = gap(exit_of(inner), entry_of(after))
                if gap(start, end) > max(MAX_GAP_WIDTHS * width, longest_gap, closing_gap):
                    continue
                run_points = np.concatenate(
                    [segments[cycle[(i + k) % n].segment].points for k in range(1, run + 1)]
                )
                strays = _distances_to_chord(run_points, ends_xy[start], ends_xy[end])
                if strays.max() > DETOUR_MIN_WIDTHS * width:
                    best_gain, best = gain, (i, run)
        if best is None:
            break
        i, run = best
        dropped = {(i + k) % n for k in range(1, run + 1)}
        cycle = [e for k, e in enumerate(cycle) if k not in dropped]
    return cycle


def _distances_to_chord(points: Points, start: Points, end: Points) -> NDArray[np.float64]:
    """Distance of each point to the straight segment from ``start`` to ``end``."""
    chord = end - start
    length_squared = float(chord @ chord)
    if length_squared == 0:
        return np.asarray(np.linalg.norm(points - start, axis=1))
    along = np.clip((points - start) @ chord / length_squared, 0.0, 1.0)
    return np.asarray(np.linalg.norm(points - (start + along[:, None] * chord), axis=1))


class _Joiner:
    """Greedy joining of segment ends with union-find over segments."""

    def __init__(self, ends: list[_End], segment_count: int) -> None:
        self.ends = ends
        self.partner: dict[int, int] = {}
        self.group = list(range(segment_count))
        self.closed: set[int] = set()

    def root(self, k: int) -> int:
        while self.group[k] != k:
            self.group[k] = self.group[self.group[k]]
            k = self.group[k]
        return k

    def join(self, candidates: list[tuple[float, int, int]]) -> None:
        for _, i, j in candidates:
            if i in self.partner or j in self.partner:
                continue
            a, b = self.root(self.ends[i].segment), self.root(self.ends[j].segment)
            if a in self.closed or b in self.closed:
                continue
            self.partner[i], self.partner[j] = j, i
            if a == b:
                self.closed.add(a)
            else:
                self.group[b] = a

    def open_ends(self) -> NDArray[np.bool_]:
        """Whether each end may still be joined: not joined yet, and its group of
        segments not closed into a cycle."""
        return np.array(
            [
                i not in self.partner and self.root(end.segment) not in self.closed
                for i, end in enumerate(self.ends)
            ],
            dtype=bool,
        )

    def cycle_starts(self) -> list[int]:
        """One entry end (a segment's first point) of every closed cycle."""
        starts, taken = [], set()
        for i, end in enumerate(self.ends):
            r = self.root(end.segment)
            if r in self.closed and r not in taken and not end.tail:
                taken.add(r)
                starts.append(i)
        return starts


def _walk_cycle(start: int, ends: list[_End], partner: dict[int, int]) -> list[_End]:
    """The segments of a cycle in order, each given by the end it is entered at."""
    cycle = []
    current = start
    for _ in range(len(ends)):
        cycle.append(ends[current])
        other_end = current + 1 if not ends[current].tail else current - 1
        current = partner[other_end]
        if current == start:
            break
    return cycle


def _seen_minus_bridged(cycle: list[_End], segments: list[Segment]) -> float:
    seen = sum(segments[e.segment].length for e in cycle)
    bridged = 0.0
    for k, entry in enumerate(cycle):
        following = cycle[(k + 1) % len(cycle)]
        bridged += float(np.linalg.norm(_exit(entry, segments) - _entry(following, segments)))
    return seen - bridged


def _entry(end: _End, segments: list[Segment]) -> Points:
    """Where a cycle enters the segment of ``end``."""
    return end.point(segments)


def _exit(end: _End, segments: list[Segment]) -> Points:
    """Where a cycle leaves the segment it entered at ``end``: its other end."""
    return _End(end.segment, not end.tail).point(segments)


def _loop_from_cycle(colour: str, cycle: list[_End], segments: list[Segment], width: float) -> Loop:
    pieces, bridges, middles = [], [], []
    reach = 3.0 * width
    for k, entry in enumerate(cycle):
        pts = segments[entry.segment].points
        pts = pts if not entry.tail else pts[::-1]
        pieces.append(pts)
        following = cycle[(k + 1) % len(cycle)]
        next_pts = segments[following.segment].points
        next_start = next_pts[-1] if following.tail else next_pts[0]
        if np.linalg.norm(next_start - pts[-1]) > 2.0 * width:
            leaving = _End(entry.segment, not entry.tail).direction(segments, reach)
            arriving = -following.direction(segments, reach)
            curve = bridge_curve(pts[-1], leaving, next_start, arriving, width)
            pieces.append(curve)
            middles.append(curve[len(curve) // 2] if len(curve) else (pts[-1] + next_start) / 2)
            end = (float(pts[-1][0]), float(pts[-1][1]))
            bridges.append((end, (float(next_start[0]), float(next_start[1]))))
    raw = np.concatenate(pieces)
    smooth = without_lobes(smooth_closed(raw, spacing=max(width, 2.0), sigma=1.0), width)
    smooth, spurs = without_spurs(smooth, width)
    total = float(np.linalg.norm(np.diff(np.vstack([smooth, smooth[:1]]), axis=0), axis=1).sum())
    # Bridges cut off with a lobe are no part of the loop any more.
    on_loop = _distances_to_path(np.array(middles).reshape(-1, 2), smooth) < 2 * width
    kept = [bridge for bridge, near in zip(bridges, on_loop, strict=True) if near]
    bridged = sum(math.dist(a, b) for a, b in kept)
    seen = max(0.0, 1.0 - bridged / max(total, 1e-9))
    return Loop(colour=colour, points=smooth, knot=None, bridges=kept, seen=seen, spurs=spurs)


def bridge_curve(
    start: Points, leaving: Points, end: Points, arriving: Points, width: float
) -> Points:
    """The points strictly between ``start`` and ``end`` of a gap, a string width apart.

    A string hidden under a row of pawns runs on as it came: the curve leaves
    ``start`` along ``leaving`` and reaches ``end`` along ``arriving`` (unit vectors; a
    cubic Hermite curve). A gap shorter than ``CURVED_GAP_WIDTHS`` (under another
    string, under one pawn) is bridged straight: there the ends' directions are bent
    by what hides the string more than the string bends. So is a gap that an end
    does not point across (a scrap's direction is a guess).
    """
    gap = end - start
    length = float(np.linalg.norm(gap))
    count = int(length // max(width, 1.0))
    if count < 1:
        return np.zeros((0, 2))
    t = np.linspace(0.0, 1.0, count + 2)[1:-1, None]
    unit = gap / length
    straight = length < CURVED_GAP_WIDTHS * width
    if straight or float(leaving @ unit) < 0.3 or float(arriving @ unit) < 0.3:
        return np.asarray(start + t * gap)
    h00, h10 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t
    h01, h11 = -2 * t**3 + 3 * t**2, t**3 - t**2
    return np.asarray(h00 * start + h10 * length * leaving + h01 * end + h11 * length * arriving)


def follow_bridges(loop: Loop, evidence: NDArray[np.uint8], width: float) -> Loop:
    """The loop with its long bridges laid along the cord where ``evidence`` shows it.

    A bridge guesses the cord's way across a gap in the string found (a smooth curve
    from the directions at both ends). Where another source (a cord map, 0..255 for
    how sure it is of this cord) sees the cord in the gap faintly, the cheapest way
    across through that map (cost 1 on a sure cord, ``1 + FOLLOW_BARE_COST`` on bare
    table) is taken instead when it runs on clearly surer evidence than the bridge and
    is not a long detour (:data:`FOLLOW_GAIN`, :data:`FOLLOW_MAX_DETOUR`). Under a pawn
    neither way shows the cord, and the bridge stays. Bridges that only scraps of
    string part (:data:`FOLLOW_SCRAP_WIDTHS`) are first laid so as one gap.
    """
    points = loop.points
    changed = False
    # A run of bridges as one gap first, then each bridge on its own: a run may not be
    # laid where one of its bridges would be (the scrap was cord). Once a run is laid,
    # its bridges' ends lie on the way laid, and laying them again changes nothing.
    runs = _joined_bridges(points, loop.bridges, FOLLOW_SCRAP_WIDTHS * width)
    for (a, b), is_run in [*((run, True) for run in runs), *((b, False) for b in loop.bridges)]:
        gap = math.dist(a, b)
        # (A run's ends may lie close where the trace went out to a scrap and back.)
        if gap < FOLLOW_MIN_WIDTHS * width and not is_run:
            continue
        ia = int(np.argmin(np.linalg.norm(points - a, axis=1)))
        ib = int(np.argmin(np.linalg.norm(points - b, axis=1)))
        laid = _laid_along(points, ia, ib, evidence, max(6 * width, 1.0 * gap))
        if laid is not None:
            points, changed = laid, True
    if not changed:
        return loop
    return replace(loop, points=smooth_closed(points, spacing=max(width, 2.0), sigma=1.0))


def _joined_bridges(
    points: Points, bridges: list[tuple[Point, Point]], scrap: float
) -> list[tuple[Point, Point]]:
    """The runs of two or more ``bridges`` of the closed polyline ``points`` that only
    scraps of string part (at most ``scrap`` long, along ``points``), each as the
    vertices of ``points`` nearest where it starts and ends, in the loop's order.

    A pawn's rim or shadow taken for string in the middle of a gap is no sign of where
    the cord runs, and the way along the cord map from one end of the gap to the other
    may not pass it (laid one at a time, each bridge's way ends on the scrap, or would
    make the loop cross itself there). A run over half the loop's vertices or more is
    left out: it is no gap.
    """
    count = len(points)
    if len(bridges) < 2 or count < 3:
        return []
    steps = np.linalg.norm(np.diff(points, axis=0, append=points[:1]), axis=1)
    along = np.concatenate([[0.0], np.cumsum(steps)])
    total = float(along[-1])
    spans = []
    for a, b in bridges:
        ia = int(np.argmin(np.linalg.norm(points - a, axis=1)))
        ib = int(np.argmin(np.linalg.norm(points - b, axis=1)))
        if (ib - ia) % count > (ia - ib) % count:
            ia, ib = ib, ia
        spans.append([ia, ib, 1])  # start, end, bridges in the run
    spans.sort()
    runs = [spans[0]]
    for ia, ib, _ in spans[1:]:
        last = runs[-1]
        reach = (last[1] - last[0]) % count
        overlaps = (ia - last[0]) % count <= reach  # (ends snapped to nearby vertices)
        if overlaps or (along[ia] - along[last[1]]) % total <= scrap:
            if (ib - last[0]) % count > reach:
                last[1] = ib  # (a span within the last adds no end)
            last[2] += 1
        else:
            runs.append([ia, ib, 1])
    first, last = runs[0], runs[-1]
    if len(runs) > 1 and (along[first[0]] - along[last[1]]) % total <= scrap:
        runs = [[last[0], first[1], last[2] + first[2]], *runs[1:-1]]
    return [
        ((float(points[ia, 0]), float(points[ia, 1])), (float(points[ib, 0]), float(points[ib, 1])))
        for ia, ib, joined in runs
        if joined > 1 and (ib - ia) % count < count // 2
    ]


def follow_through_crossings(
    loop: Loop,
    others: Sequence[Loop],
    evidence: NDArray[np.uint8],
    width: float,
    pawns: NDArray[np.bool_] | None = None,
) -> Loop:
    """The loop laid along its cord where ``evidence`` shows it, where it crosses the others.

    At a crossing the cord underneath is hidden by the one on top, and the shadow the
    top cord casts, or its lit edge, passes for the cord beneath on a table of that
    cord's hue: the trace bends along it, and the crossing is read some string widths
    aside (blue cords on blue mats, green on felt). The cord map sees the cord run on
    under the other. The loop's stretch round each crossing, from where it first lies
    :data:`CROSSING_FOLLOW_WIDTHS` string widths from the crossing on one side to that
    on the other, is laid along the cheapest way through the map as a bridge is
    (:func:`follow_bridges`), where that way runs on evidence at least
    :data:`CROSSING_FOLLOW_GAIN` surer on average.

    Parameters
    ----------
    loop : Loop
    others : sequence of Loop
        The other loops, whose crossings with ``loop`` are looked at.
    evidence : (H, W) uint8
        The cord map of ``loop``'s colour, 0..255 for how sure it is of the cord.
    width : float
        String width, working pixels.
    pawns : (H, W) bool, optional
        Pawn pixels: a crossing with one in the square of half side
        :data:`CROSSING_CLEAR_WIDTHS` string widths round it is left as it is (under a
        pawn the map guesses).

    Returns
    -------
    Loop
        ``loop`` itself where nothing was laid again.
    """
    ring = LinearRing(loop.points)
    # (Two loops that overlap along a stretch are no layout: arrange refuses them.)
    met = [ring_crossings(ring, LinearRing(other.points)) for other in others]
    crossings = [xy for found in met if found is not None for xy in found]
    points = loop.points
    changed = False
    reach = CROSSING_FOLLOW_WIDTHS * width
    clear = int(math.ceil(CROSSING_CLEAR_WIDTHS * width))
    for crossing in crossings:
        x, y = (int(round(v)) for v in crossing)
        # (Clipped at both ends: a crossing left of or above the photo, where a bridge
        # runs out of it, must not wrap round to its far side.)
        rows = slice(max(y - clear, 0), max(y + clear + 1, 0))
        columns = slice(max(x - clear, 0), max(x + clear + 1, 0))
        if pawns is not None and pawns[rows, columns].any():
            continue
        ends = leaving(points, crossing, reach)
        if ends is None:
            continue
        ia, ib = ends
        laid = _laid_along(points, ia, ib, evidence, reach, CROSSING_FOLLOW_GAIN)
        if laid is not None:
            points, changed = laid, True
    if not changed:
        return loop
    return replace(loop, points=smooth_closed(points, spacing=max(width, 2.0), sigma=1.0))


def leaving(points: Points, xy: Points, reach: float) -> tuple[int, int] | None:
    """The indices where the closed polyline ``points``, followed both ways from its
    point nearest ``xy``, first lies ``reach`` away from ``xy`` (a detour the trace
    took near it lies between them); None where that takes a quarter of the loop's
    points or more."""
    count = len(points)
    distances = np.linalg.norm(points - xy, axis=1)
    away = distances >= reach
    start = int(np.argmin(distances))
    steps = np.arange(1, count // 4)
    ahead, behind = away[(start + steps) % count], away[(start - steps) % count]
    if not ahead.any() or not behind.any():
        return None
    before = int((start - steps[behind.argmax()]) % count)
    after = int((start + steps[ahead.argmax()]) % count)
    return before, after


def _laid_along(
    points: Points,
    ia: int,
    ib: int,
    evidence: NDArray[np.uint8],
    margin: float,
    gain: float = FOLLOW_GAIN,
) -> Points | None:
    """The closed polyline ``points`` with its stretch between indices ``ia`` and
    ``ib`` (the way round with fewer points) replaced by the cheapest way through
    ``evidence`` (within ``margin`` of their box), or None where that way does not run
    on evidence ``gain`` surer on average than the stretch, is a long detour
    (:data:`FOLLOW_MAX_DETOUR`), or would make the loop cross itself."""
    count = len(points)
    if (ib - ia) % count > (ia - ib) % count:
        ia, ib = ib, ia
    stretch = points[(ia + np.arange((ib - ia) % count + 1)) % count]
    surety = _mean_evidence(evidence, stretch)
    if surety + gain > 1.0:
        return None  # no way can be surer by the gain: spare the search
    path = _cheapest_way(evidence, points[ia], points[ib], margin)
    if path is None or _path_length(path) > FOLLOW_MAX_DETOUR * max(_path_length(stretch), 1.0):
        return None
    if _mean_evidence(evidence, path) < surety + gain:
        return None
    # The way found in place of the stretch: the loop from ib round to ia, then it; not
    # where the loop would then cross itself (a way along another stretch of the cord).
    rest = points[(ib + np.arange((ia - ib) % count + 1)) % count]
    candidate = np.vstack([rest, path[1:-1]])
    if not LinearRing(candidate).is_simple:
        return None
    return np.asarray(candidate)


def _cheapest_way(
    evidence: NDArray[np.uint8], start: Points, end: Points, margin: float
) -> Points | None:
    """The cheapest 8-connected way from ``start`` to ``end`` through ``evidence``
    within their box grown by ``margin``, as (x, y) pixel centres; None when an end is
    outside the image."""
    h, w = evidence.shape
    ends = np.array([start, end]).round().astype(int)
    if (ends < 0).any() or (ends[:, 0] >= w).any() or (ends[:, 1] >= h).any():
        return None
    left, top = np.maximum(ends.min(axis=0) - int(margin), 0)
    right, bottom = np.minimum(ends.max(axis=0) + int(margin) + 1, (w, h))
    sure = evidence[top:bottom, left:right].astype(np.float32) / 255.0
    cost = 1.0 + FOLLOW_BARE_COST * (1.0 - sure) ** 2
    walker = MCP_Geometric(cost)
    (sx, sy), (ex, ey) = ends - (left, top)
    walker.find_costs([(sy, sx)], [(ey, ex)])
    way = np.array(walker.traceback((ey, ex)), float)
    return np.asarray(way[:, ::-1] + (left, top))


def _mean_evidence(evidence: NDArray[np.uint8], path: Points) -> float:
    h, w = evidence.shape
    xs = np.clip(path[:, 0].round().astype(int), 0, w - 1)
    ys = np.clip(path[:, 1].round().astype(int), 0, h - 1)
    return float(evidence[ys, xs].mean()) / 255.0 if len(path) else 0.0


def _path_length(path: Points) -> float:
    return float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())


def without_lobes(points: Points, width: float) -> Points:
    """The loop without small lobes where it runs over itself.

    A string is a simple closed curve, so a traced loop that crosses itself took a
    detour: out along a knot's tail and back, or round a scrap of another string. The
    largest region the polyline encloses is the loop; its outline replaces the trace.
    """
    ring = LinearRing(points)
    if ring.is_simple:
        return points
    regions = make_valid(Polygon(points))
    polygons = [g for g in getattr(regions, "geoms", [regions]) if isinstance(g, Polygon)]
    if not polygons:
        return points
    largest = max(polygons, key=lambda g: g.area)
    outline = np.asarray(largest.exterior.coords)[:-1]
    return smooth_closed(outline, spacing=max(width, 2.0), sigma=0.5)


def without_spurs(points: Points, width: float) -> tuple[Points, list[Point]]:
    """The loop without spurs, and where each spur left it.

    Where a knot's tail joins the loop's skeleton without a junction, the trace runs
    up the tail and back (bridged across the knot): a thin spike that encloses
    nothing, so :func:`without_lobes` keeps it. A string never turns back so tightly.
    ``points`` are about a string width apart.
    """
    count = len(points)
    spacing = max(float(np.median(np.linalg.norm(np.diff(points, axis=0), axis=1))), 1e-9)
    longest = int(SPUR_MAX_WIDTHS * width / spacing)
    if count < 3 * longest:
        return points, []
    # Distances from every point to each of the next ``longest`` along the loop.
    ahead = points[(np.arange(count)[:, None] + np.arange(1, longest + 1)) % count]
    away = np.linalg.norm(ahead - points[:, None, :], axis=2)
    gone = away >= SPUR_MIN_WIDTHS * width
    first_out = np.where(gone.any(axis=1), gone.argmax(axis=1), longest)
    # The first return after going far enough out.
    back = (away < SPUR_RETURN_WIDTHS * width) & (np.arange(longest) > first_out[:, None])
    returns = np.where(back.any(axis=1), back.argmax(axis=1), -1)
    keep = np.ones(count, bool)
    spurs: list[Point] = []
    for i in np.flatnonzero(returns >= 0):
        if not keep[i]:
            continue  # inside a spur cut already
        keep[(i + np.arange(1, returns[i] + 1)) % count] = False
        spurs.append((float(points[i, 0]), float(points[i, 1])))
    if not spurs:
        return points, []
    return smooth_closed(points[keep], spacing=max(width, 2.0), sigma=0.5), spurs


def resample_closed(points: Points, spacing: float) -> Points:
    """A closed polyline resampled evenly about every ``spacing`` px (at least 8 points)."""
    closed = np.vstack([points, points[:1]])
    steps = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(steps)])
    total = arc[-1]
    count = max(int(total / spacing), 8)
    at = np.linspace(0.0, total, count, endpoint=False)
    return np.column_stack([np.interp(at, arc, closed[:, 0]), np.interp(at, arc, closed[:, 1])])


def smooth_closed(points: Points, spacing: float, sigma: float) -> Points:
    """Resample a closed polyline every ``spacing`` px and smooth it (``sigma`` samples)."""
    resampled = resample_closed(points, spacing)
    x = gaussian_filter1d(resampled[:, 0], sigma, mode="wrap")
    y = gaussian_filter1d(resampled[:, 1], sigma, mode="wrap")
    return np.column_stack([x, y])


# --- knots ----------------------------------------------------------------------------


def find_knot(
    loop: Loop,
    segments: list[Segment],
    junctions: Points,
    mask: NDArray[np.bool_],
    width: float,
    pawns: NDArray[np.bool_] | None = None,
) -> tuple[Point | None, float]:
    """The tie knot: a lump on the loop's own path from which two short tails branch.

    Candidates are the places on the loop where loose skeleton pieces (not part of the
    loop, at most a tail long) start: skeleton junctions on the loop, and ends of loose
    segments next to it (the lump itself may be too thick to be kept as string, which
    cuts the tails off). Each candidate is scored by how many tails start there and
    how long they are, and how thick the string is there. Without any, the thickest
    place on the loop is taken if it is clearly thicker than the string (away from
    ``pawns``, the pawns of the loop's colour, where one's base may be left as a lump),
    and failing that the place where the loop's skeleton branches most (tails too
    short to keep). The knot is put on the loop's path, nearest the best candidate.
    """
    # A knot's lump shows as a ring where its loops catch the light: filled, it is
    # as thick as it looks.
    distance = _distance_inside(mask, holes_below=KNOT_HOLE_WIDTHS2 * width**2)
    path = loop.points
    in_loop = _segments_in_loop(loop, segments, width)
    tails = [s for k, s in enumerate(segments) if k not in in_loop and s.length <= 20 * width]
    tail_ends = [s.points[[0, -1]] for s in tails]
    candidates = [tuple(j) for j in junctions] + [tuple(e) for ends in tail_ends for e in ends]
    best: tuple[float, Point | None] = (0.0, None)
    for x, y in loop.spurs:
        # A tail the trace ran up and back: as good as a tail of the shortest length.
        lump = _local_thickness(distance, (x, y), width)
        score = 3.0 + SPUR_MIN_WIDTHS + 4.0 * max(0.0, lump / width - 1.0)
        if score > best[0]:
            best = (score, (float(x), float(y)))
    if candidates:
        points = np.array(candidates, float)
        near = _distances_to_path(points, path) < 3.0 * width
        # All tails at once per candidate: a noisy mask (a cord on the mat of its hue)
        # leaves thousands of scraps, and a loop over them took a minute (1240168).
        ends_array = np.array(tail_ends, float).reshape(-1, 2, 2)
        capped = np.array([min(tail.length, 12 * width) for tail in tails], float)
        for x, y in points[near]:
            reaches = np.linalg.norm(ends_array - (x, y), axis=2).min(axis=1)
            lengths = capped[reaches < 4.0 * width].tolist()
            if len(lengths) == 1 and lengths[0] < 3.0 * width:
                continue  # one short scrap is no knot; two short tails are
            lump = _local_thickness(distance, (x, y), width)
            score = (
                3.0 * min(len(lengths), 2)
                + sum(lengths) / width
                + 4.0 * max(0.0, lump / width - 1.0)
            )
            if score > best[0]:
                best = (score, (float(x), float(y)))
    if best[1] is not None and best[0] >= 5.0:
        nearest = path[int(np.argmin(np.linalg.norm(path - best[1], axis=1)))]
        return (float(nearest[0]), float(nearest[1])), float(min(1.0, best[0] / 15.0))
    # Fall back on the thickest place on the loop.
    xs = np.clip(path[:, 0].round().astype(int), 0, mask.shape[1] - 1)
    ys = np.clip(path[:, 1].round().astype(int), 0, mask.shape[0] - 1)
    thickness = np.array(
        [_local_thickness(distance, (x, y), width) for x, y in zip(xs, ys, strict=True)]
    )
    if pawns is not None:
        # What is left of a pawn of the string's colour beside it (the base of a tall
        # pawn seen at a slant, below its cut-out blob) is thick too.
        beside = cv2.dilate(pawns.astype(np.uint8), disc(4.0 * width))[ys, xs] > 0
        if not beside.all():
            thickness = np.where(beside, 0.0, thickness)
    k = int(np.argmax(thickness))
    if thickness[k] >= 1.6 * width:
        return (float(path[k, 0]), float(path[k, 1])), 0.4
    # A loop never crosses itself, so where its own skeleton branches something sticks
    # out of it: most often a knot whose tails are too short to keep as scraps.
    branching = _most_branched(junctions, path, width)
    if branching is not None:
        nearest = path[int(np.argmin(np.linalg.norm(path - branching, axis=1)))]
        return (float(nearest[0]), float(nearest[1])), 0.3
    return None, 0.0


def on_path(xy: Point, path: Points) -> Point:
    """The vertex of ``path`` nearest ``xy``."""
    nearest = path[int(np.argmin(np.linalg.norm(path - np.asarray(xy), axis=1)))]
    return (float(nearest[0]), float(nearest[1]))


def _away_from(points: Points, mask: NDArray[np.bool_], reach: float) -> Points:
    """The points with no pixel of ``mask`` within ``reach`` (in a square round them)."""
    r = int(math.ceil(reach))
    kept = [
        (x, y)
        for x, y in points
        if not mask[max(0, int(y) - r) : int(y) + r + 1, max(0, int(x) - r) : int(x) + r + 1].any()
    ]
    return np.array(kept, np.float64).reshape(-1, 2)


def _most_branched(junctions: Points, path: Points, width: float) -> Points | None:
    """The skeleton junction on (within three string widths of) the path with the most
    other junctions round it, or None when there is none."""
    if not len(junctions):
        return None
    on_path = junctions[_distances_to_path(junctions, path) < 3.0 * width]
    if not len(on_path):
        return None
    apart = np.linalg.norm(on_path[:, None, :] - on_path[None, :, :], axis=2)
    crowd = (apart < 2.5 * width).sum(axis=1)
    branching: Points = on_path[int(np.argmax(crowd))]
    return branching


def _distance_inside(mask: NDArray[np.bool_], holes_below: float = 0.0) -> NDArray[np.float32]:
    """Each mask pixel's distance to the nearest pixel outside it (0 outside), with
    the mask's holes smaller than ``holes_below`` pixels filled first."""
    distance = np.zeros(mask.shape, np.float32)
    box = bounding_box(mask, margin=2)
    if box is not None:
        # Computed in the mask's box only: the nearest outside pixel is always in it.
        inside = mask[box].astype(np.uint8)
        if holes_below > 0:
            inside = fill_small_holes(inside, holes_below)
        distance[box] = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    return distance


def _segments_in_loop(loop: Loop, segments: list[Segment], width: float) -> set[int]:
    """The segments lying along the loop: half their points or more within 1.5 string
    widths of its path."""
    samples = [segment.points[:: max(1, len(segment.points) // 5)] for segment in segments]
    if not samples:
        return set()
    # One query for all segments: a mask full of scraps has thousands.
    distances = _distances_to_path(np.concatenate(samples), loop.points)
    starts = np.cumsum([0] + [len(sample) for sample in samples])
    return {
        k
        for k in range(len(segments))
        if np.median(distances[starts[k] : starts[k + 1]]) < 1.5 * width
    }


def _distances_to_path(points: Points, path: Points) -> NDArray[np.float64]:
    """Distance of each point to the nearest vertex of a densely sampled path."""
    if not len(points):
        return np.zeros(0)
    distances, _ = cKDTree(path).query(points)
    return np.asarray(distances, np.float64)


def _local_thickness(distance: NDArray[np.float32], xy: tuple[float, float], width: float) -> float:
    x, y = int(round(xy[0])), int(round(xy[1]))
    r = int(math.ceil(width))
    window = distance[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1]
    return float(2.0 * window.max()) if window.size else 0.0
