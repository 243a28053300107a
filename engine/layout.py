"""Seeded random legal layouts of the four power lines, for tests and synthetic photos.

A layout is what the oldest player lays on the table: four closed cords (red, yellow,
green, blue), each of a fixed length between 1.1 and 1.3 m, crossing each other. The
generator draws each loop as a smooth star-shaped curve around its own centre,

    r(theta) = 1 + sum_k a_k cos(k theta + phi_k),   k = 2 .. 5,

stretched along a random axis (round to elongated), rotated, and scaled so that its arc
length is exactly the cord's length. The loops are placed one after the other: each new loop is
redrawn until it crosses the loops already on the table cleanly (clear angles, crossings
well apart, no near misses), which is much faster than redrawing whole layouts. The
finished layout must then pass :func:`check_layout_quality`, which says why a layout
that a real player could not lay cleanly, or that a camera could not read without
guessing, is not good.

All coordinates are table millimetres with the origin at the middle of the play area.
Everything is deterministic for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing, LineString

from engine.board import Board
from engine.colours import LINE_COLOURS
from engine.errors import LayoutError
from engine.topology import build_board

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
XY = tuple[float, float]

#: Distance between consecutive points of a generated centre line, in millimetres.
POINT_SPACING_MM = 1.5


@dataclass(frozen=True)
class QualityLimits:
    """What makes a layout "good": playable by hand and readable by a camera.

    Attributes
    ----------
    length_range : (float, float)
        Allowed length of each cord (closed centre line), in millimetres.
    half_size : float
        Every centre-line point lies within ``[-half_size, half_size]`` in x and y.
    min_crossing_angle : float
        Smallest allowed angle between two lines at a crossing, in degrees.
    near_distance : float
        Two different lines closer than this must actually cross there, and a loop must
        not come this close to a distant part of itself (millimetres).
    min_crossing_gap : float
        Smallest allowed distance between two crossings (pawns must fit in corners).
    min_field_area : float
        Smallest allowed area of a bounded field, in square millimetres.
    min_knot_gap : float
        Smallest distance, along its loop, from a knot to any crossing on that loop.
    knot_clearance : float
        Smallest distance from a knot to any other line.
    min_bend_radius : float
        Smallest radius of curvature of a loop, measured over ``bend_window`` mm.
    bend_window : float
        Arc length over which the bend radius is measured.
    """

    length_range: tuple[float, float] = (1100.0, 1300.0)
    half_size: float = 350.0
    min_crossing_angle: float = 30.0
    near_distance: float = 12.0
    min_crossing_gap: float = 35.0
    min_field_area: float = 600.0
    min_knot_gap: float = 30.0
    knot_clearance: float = 20.0
    min_bend_radius: float = 15.0
    bend_window: float = 15.0


DEFAULT_LIMITS = QualityLimits()


@dataclass(frozen=True)
class Layout:
    """Four closed lines and their knots, in table millimetres.

    Attributes
    ----------
    lines : dict of str to tuple of (x, y)
        Colour to the closed centre line of that cord, first point not repeated,
        points about :data:`POINT_SPACING_MM` apart.
    knots : dict of str to (x, y)
        Colour to the tie knot, a point of that colour's line.
    """

    lines: dict[str, tuple[XY, ...]] = field(default_factory=dict)
    knots: dict[str, XY] = field(default_factory=dict)

    def board(self) -> Board:
        """Build the board topology of this layout.

        Returns
        -------
        Board
            ``build_board(self.lines, self.knots)``.

        Raises
        ------
        LayoutError
            If the lines do not form a legal layout.
        """
        return build_board(self.lines, self.knots)


# --- generation -----------------------------------------------------------------------

#: The search works on every third point of a loop (4.5 mm apart): crossings barely move,
#: and shapely is three times faster. The margins below absorb the difference.
_SEARCH_STEP = 3
_ANGLE_MARGIN = 1.5
_GAP_MARGIN = 1.0
_NEAR_MARGIN = 1.5
_KNOT_MARGIN = 3.0
_EDGE_MARGIN = 2.0


def random_layout(
    seed: int | np.random.Generator,
    *,
    min_crossings: int = 8,
    max_crossings: int = 24,
    limits: QualityLimits = DEFAULT_LIMITS,
    max_attempts: int = 400,
    tries_per_loop: int = 40,
) -> Layout:
    """Draw a random good layout of the four lines.

    Parameters
    ----------
    seed : int or numpy.random.Generator
        An int seeds ``numpy.random.default_rng``; a generator is used (and advanced)
        as is. The same int always gives the same layout.
    min_crossings, max_crossings : int, optional
        Inclusive range of the number of crossings of the layout.
    limits : QualityLimits, optional
        What counts as a good layout; the result passes
        ``check_layout_quality(layout, limits)``.
    max_attempts : int, optional
        How many layouts to start before giving up.
    tries_per_loop : int, optional
        How often one loop is redrawn before its layout is abandoned.

    Returns
    -------
    Layout
        A layout in which every loop crosses at least two others, that
        :func:`check_layout_quality` accepts.

    Raises
    ------
    ValueError
        If the crossing range is empty or an attempt count is not positive.
    RuntimeError
        If no good layout was found within ``max_attempts`` attempts.
    """
    if min_crossings > max_crossings or max_crossings < 0:
        raise ValueError(f"empty crossing range [{min_crossings}, {max_crossings}]")
    if max_attempts < 1 or tries_per_loop < 1:
        raise ValueError("max_attempts and tries_per_loop must be positive")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    for _ in range(max_attempts):
        layout = _attempt(rng, limits, min_crossings, max_crossings, tries_per_loop)
        if layout is not None:
            return layout
    raise RuntimeError(
        f"no good layout with {min_crossings}..{max_crossings} crossings found in "
        f"{max_attempts} attempts; relax the limits or the crossing range"
    )


#: Kinds of layout, and how often each is drawn.
_FAMILIES = ("frame", "cluster", "star")
_FAMILY_WEIGHTS = (0.4, 0.35, 0.25)


@dataclass(frozen=True)
class _Style:
    """What one layout looks like: where the loops lie, how they point, how lumpy they are.

    Three families of layouts, each with random proportions:

    - ``frame``: four ovals along the sides of a square, each crossing its two
      neighbours near the corners (8 to 16 crossings, like a ring or a # sign);
    - ``cluster``: four roundish, lumpy loops piled up around the middle, each crossing
      every other about twice (about 12 crossings);
    - ``star``: four long ovals through the middle, pointing in directions 45° apart,
      each crossing every other four times (up to 24 crossings).
    """

    order: tuple[str, ...]  # the order in which the loops are placed
    centres: FloatArray  # (4, 2) where each loop (in placing order) is aimed
    turns: FloatArray  # (4,) the direction of each loop's long axis, radians
    aspect: float  # typical ratio of a loop's length to its width
    lumpiness: float  # 0 (smooth) .. 1 (lumpy)
    jitter: float  # how far a loop may stray from its aim (mm; a hundredth in radians)

    @classmethod
    def draw(cls, rng: np.random.Generator, family: str) -> _Style:
        turn = rng.uniform(0.0, 2.0 * math.pi)
        angles = turn + np.arange(4) * math.pi / 2
        if family == "frame":
            spread = rng.uniform(130.0, 190.0)
            turns = angles + math.pi / 2
            aspect = rng.uniform(1.3, 3.2)
            lumpiness = rng.uniform(0.0, 0.6)
            jitter = 15.0
        elif family == "cluster":
            spread = rng.uniform(50.0, 130.0)
            turns = rng.uniform(0.0, math.pi) + rng.permutation(4) * math.pi / 4
            aspect = rng.uniform(1.0, 1.8)
            lumpiness = rng.uniform(0.2, 1.0)
            jitter = 20.0
        else:
            spread = rng.uniform(30.0, 110.0)
            turns = rng.uniform(0.0, math.pi) + rng.permutation(4) * math.pi / 4
            aspect = rng.uniform(2.7, 3.5)
            lumpiness = rng.uniform(0.0, 0.15)
            jitter = 5.0
        angles = angles + rng.normal(0.0, 0.1, size=4)
        radii = spread * rng.uniform(0.9, 1.1, size=4)
        centres = radii[:, None] * np.column_stack([np.cos(angles), np.sin(angles)])
        # Place the loops around the square in order, so that each new one can cross
        # one already placed, whichever colour it is.
        start, step = rng.integers(4), rng.choice([-1, 1])
        index = (start + step * np.arange(4)) % 4
        order = tuple(str(c) for c in rng.permutation(LINE_COLOURS))
        return cls(order, centres[index], turns[index], aspect, lumpiness, jitter)


@dataclass
class _Placed:
    """A loop on the table during the search: the full line and its coarse stand-in."""

    fine: FloatArray
    coarse: _LoopGeometry


def _attempt(
    rng: np.random.Generator,
    limits: QualityLimits,
    min_crossings: int,
    max_crossings: int,
    tries_per_loop: int,
) -> Layout | None:
    """Place the four loops one by one; ``None`` if this layout is abandoned."""
    family = str(rng.choice(_FAMILIES, p=_FAMILY_WEIGHTS))
    style = _Style.draw(rng, family)
    placed: dict[str, _Placed] = {}
    hits: list[_Hit] = []
    for i, colour in enumerate(style.order):
        fewest = min_crossings - len(hits) if i == len(style.order) - 1 else 0
        most = max_crossings - len(hits)
        for _ in range(tries_per_loop):
            loop = _propose(rng, style, i, limits)
            new_hits = _fits(colour, loop, placed, hits, limits, fewest, most)
            if new_hits is not None:
                break
        else:
            return None
        placed[colour] = loop
        hits += new_hits
    coarse = {colour: placed[colour].coarse for colour in LINE_COLOURS}
    knots = _choose_knots(rng, coarse, hits, limits)
    if knots is None:
        return None
    low = np.vstack([p.fine for p in placed.values()]).min(axis=0)
    high = np.vstack([p.fine for p in placed.values()]).max(axis=0)
    middle = (low + high) / 2.0
    layout = Layout(
        lines={c: _as_points(placed[c].fine - middle) for c in LINE_COLOURS},
        knots={c: (x - float(middle[0]), y - float(middle[1])) for c, (x, y) in knots.items()},
    )
    if check_layout_quality(layout, limits):
        return None
    return layout


def _propose(
    rng: np.random.Generator, style: _Style, index: int, limits: QualityLimits
) -> _Placed:
    """Draw loop number ``index`` (in placing order) of a layout in ``style``."""
    centre = style.centres[index] + rng.normal(0.0, style.jitter, size=2)
    low, high = limits.length_range
    length = rng.uniform(low + 1.0, high - 1.0)
    aspect = style.aspect * rng.uniform(0.85, 1.15)
    turn = style.turns[index] + rng.normal(0.0, style.jitter / 100.0)
    fine = _draw_loop(rng, style.lumpiness * rng.uniform(0.0, 1.0), aspect, turn, length)
    return _Placed(fine + centre, _LoopGeometry(fine[::_SEARCH_STEP] + centre))


def _draw_loop(
    rng: np.random.Generator, lumpiness: float, aspect: float, turn: float, length: float
) -> FloatArray:
    """A smooth closed curve of arc length ``length`` around the origin.

    A star-shaped lumpy circle, stretched to ``aspect`` and turned by ``turn``.
    """
    theta = np.linspace(0.0, 2.0 * math.pi, 720, endpoint=False)
    k = np.arange(2, 6)
    amplitude = lumpiness * rng.uniform(0.0, 1.0, size=k.size) * 0.4 / k
    phase = rng.uniform(0.0, 2.0 * math.pi, size=k.size)
    radius = 1.0 + np.sum(amplitude[:, None] * np.cos(np.outer(k, theta) + phase[:, None]), axis=0)
    stretch = math.sqrt(aspect)
    points = np.column_stack([stretch * radius * np.cos(theta), radius * np.sin(theta) / stretch])
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    return _resample(points @ rotation.T, length)


def _resample(points: FloatArray, length: float) -> FloatArray:
    """Scale a closed curve to arc length ``length`` and resample it evenly."""
    closed = np.vstack([points, points[:1]])
    cumulative = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(closed, axis=0).T))])
    scale = length / cumulative[-1]
    count = max(3, round(length / POINT_SPACING_MM))
    s = np.arange(count) * (cumulative[-1] / count)
    resampled = scale * np.column_stack(
        [np.interp(s, cumulative, closed[:, 0]), np.interp(s, cumulative, closed[:, 1])]
    )
    # Linear interpolation cuts corners by a hair; put the lost length back.
    steps = np.diff(np.vstack([resampled, resampled[:1]]), axis=0)
    return resampled * (length / np.hypot(steps[:, 0], steps[:, 1]).sum())  # type: ignore[no-any-return]


def _fits(
    colour: str,
    loop: _Placed,
    placed: dict[str, _Placed],
    hits: Sequence[_Hit],
    limits: QualityLimits,
    fewest: float,
    most: float,
) -> list[_Hit] | None:
    """The new crossings if ``loop`` can join the placed loops cleanly, bringing between
    ``fewest`` and ``most`` crossings, else ``None``."""
    everything = np.vstack([loop.coarse.coords, *(p.coarse.coords for p in placed.values())])
    extent = everything.max(axis=0) - everything.min(axis=0)
    if np.any(extent > 2.0 * (limits.half_size - _EDGE_MARGIN)):
        return None
    new_hits: list[_Hit] = []
    loops = {c: p.coarse for c, p in placed.items()}
    loops[colour] = loop.coarse
    for other in placed:
        found = _pair_crossings(loops, colour, other)
        if found is None:
            return None
        new_hits += found
    if not fewest <= len(new_hits) <= most:
        return None
    if not _degrees_can_work(colour, placed, hits, new_hits):
        return None
    min_angle = limits.min_crossing_angle + _ANGLE_MARGIN
    if any(h.angle < min_angle for h in new_hits):
        return None
    if new_hits:
        new_xy = np.array([h.xy for h in new_hits])
        old_xy = np.array([h.xy for h in hits] + [h.xy for h in new_hits])
        distance = np.hypot(*(new_xy[:, None, :] - old_xy[None, :, :]).transpose(2, 0, 1))
        distance[np.arange(len(new_hits)), len(hits) + np.arange(len(new_hits))] = np.inf
        if distance.min() < limits.min_crossing_gap + _GAP_MARGIN:
            return None
    near = limits.near_distance + _NEAR_MARGIN
    reach = 1.15 * near / math.sin(math.radians(min_angle))
    for other in placed:
        xy = np.array([h.xy for h in new_hits if other in h.colours]).reshape(-1, 2)
        if _near_misses(loop.coarse, loops[other], xy, near, reach).size:
            return None
    return new_hits


def _degrees_can_work(
    colour: str, placed: dict[str, _Placed], hits: Sequence[_Hit], new_hits: Sequence[_Hit]
) -> bool:
    """Whether every loop can still end up crossing two others (and all connected)."""
    crossed = {c for h in new_hits for c in h.colours if c != colour}
    if len(placed) < len(LINE_COLOURS) - 1:
        return bool(crossed) or not placed
    partners: dict[str, set[str]] = {c: set() for c in placed}
    for h in hits:
        a, b = h.colours
        partners[a].add(b)
        partners[b].add(a)
    return len(crossed) >= 2 and all(
        len(partners[c]) >= 2 or c in crossed for c in placed
    )


def _choose_knots(
    rng: np.random.Generator,
    loops: dict[str, _LoopGeometry],
    hits: Sequence[_Hit],
    limits: QualityLimits,
) -> dict[str, XY] | None:
    """A knot on each loop, clear of crossings (along the loop) and of other lines."""
    knots: dict[str, XY] = {}
    for colour, loop in loops.items():
        arcs = np.array([h.arc[h.colours.index(colour)] for h in hits if colour in h.colours])
        gap = np.abs(loop.arc[:-1, None] - arcs[None, :]) % loop.length
        gap = np.minimum(gap, loop.length - gap).min(axis=1, initial=np.inf)
        candidates = np.flatnonzero(gap >= limits.min_knot_gap + _KNOT_MARGIN)
        others = [other.ring for name, other in loops.items() if name != colour]
        # Try a few random candidates rather than measuring every point's clearance.
        for index in rng.permutation(candidates)[:12]:
            x, y = loop.coords[index]
            point = shapely.Point(x, y)
            if all(ring.distance(point) >= limits.knot_clearance + _KNOT_MARGIN for ring in others):
                knots[colour] = (float(x), float(y))
                break
        else:
            return None
    return knots


# --- quality --------------------------------------------------------------------------


def check_layout_quality(layout: Layout, limits: QualityLimits = DEFAULT_LIMITS) -> list[str]:
    """Say why a layout is not a good one, if it is not.

    A good layout has the four loops, each a smooth simple closed curve of a cord's
    length inside the play area; every loop crosses at least two others and the
    arrangement is connected; lines cross at a clear angle, never come close without
    crossing, and crossings lie well apart; no bounded field is tiny; each loop has its
    knot, away from crossings and from other lines, counting for two fields.

    Parameters
    ----------
    layout : Layout
        The layout to check.
    limits : QualityLimits, optional
        The thresholds to check against.

    Returns
    -------
    list of str
        One human-readable reason per problem found; empty if the layout is good.
    """
    reasons: list[str] = []
    missing = [c for c in LINE_COLOURS if c not in layout.lines]
    if missing:
        reasons.append(f"missing lines: {', '.join(missing)}")
    try:
        board = layout.board()
    except (LayoutError, ValueError) as error:
        return [*reasons, f"not a legal layout: {error}"]
    loops = {line.colour: _LoopGeometry(np.asarray(line.polyline, float)) for line in board.lines}
    hits = _board_hits(loops, board)
    reasons += _loop_problems(loops, limits)
    reasons += _crossing_problems(loops, hits, limits)
    reasons += _closeness_problems(loops, hits, limits)
    for f in board.fields:
        if not f.outer and f.polygon is not None:
            outline = np.asarray(f.polygon, dtype=float)
            area = abs(_signed_area(outline))
            if area < limits.min_field_area:
                reasons.append(
                    f"field {f.id} near {_fmt(outline.mean(axis=0))} has area {area:.0f} mm², "
                    f"below {limits.min_field_area:.0f} mm²"
                )
    reasons += _knot_problems(layout, board, loops, hits, limits)
    return reasons


def _loop_problems(loops: dict[str, _LoopGeometry], limits: QualityLimits) -> list[str]:
    reasons = []
    low, high = limits.length_range
    for colour, loop in loops.items():
        if not low <= loop.length <= high:
            reasons.append(
                f"the {colour} loop is {loop.length:.0f} mm long, outside {low:.0f}..{high:.0f} mm"
            )
        reach = float(np.abs(loop.coords).max())
        if reach > limits.half_size:
            reasons.append(
                f"the {colour} loop reaches {reach:.0f} mm from the middle, beyond the "
                f"{2 * limits.half_size:.0f} mm square play area"
            )
        radius, where = loop.min_bend_radius(limits.bend_window)
        if radius < limits.min_bend_radius:
            reasons.append(
                f"the {colour} loop bends with radius {radius:.0f} mm at {_fmt(where)}, "
                f"below {limits.min_bend_radius:.0f} mm"
            )
    return reasons


def _crossing_problems(
    loops: dict[str, _LoopGeometry], hits: Sequence[_Hit], limits: QualityLimits
) -> list[str]:
    """Setup rule, connectedness, crossing angles and gaps between crossings."""
    reasons = []
    crossed: dict[str, set[str]] = {c: set() for c in loops}
    for h in hits:
        a, b = h.colours
        crossed[a].add(b)
        crossed[b].add(a)
    for colour, others in crossed.items():
        if len(others) < 2:
            reasons.append(
                f"the {colour} loop crosses {len(others)} other loop(s); the rules need two"
            )
    if not _connected(crossed):
        reasons.append("the lines fall apart into groups that do not cross each other")
    for h in hits:
        if h.angle < limits.min_crossing_angle:
            reasons.append(
                f"{h.colours[0]} and {h.colours[1]} cross at {h.angle:.0f}° at {_fmt(h.xy)}, "
                f"below {limits.min_crossing_angle:.0f}°"
            )
    if len(hits) > 1:
        xy = np.array([h.xy for h in hits])
        distance = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
        for i, j in zip(*np.nonzero(np.triu(distance < limits.min_crossing_gap, 1)), strict=True):
            reasons.append(
                f"crossings at {_fmt(xy[i])} and {_fmt(xy[j])} are {distance[i, j]:.0f} mm "
                f"apart, below {limits.min_crossing_gap:.0f} mm"
            )
    return reasons


def _connected(crossed: dict[str, set[str]]) -> bool:
    if not crossed:
        return True
    start = next(iter(crossed))
    seen, todo = {start}, [start]
    while todo:
        for other in crossed[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return len(seen) == len(crossed)


def _closeness_problems(
    loops: dict[str, _LoopGeometry], hits: Sequence[_Hit], limits: QualityLimits
) -> list[str]:
    """Lines that come close without crossing there, and loops that nearly touch themselves."""
    near = limits.near_distance
    reach = 1.3 * near / math.sin(math.radians(max(limits.min_crossing_angle, 1.0)))
    reasons = []
    for a, loop in loops.items():
        for b, other in loops.items():
            if a == b:
                where = _near_misses(loop, loop, np.empty((0, 2)), near, reach)
                if where.size:
                    reasons.append(
                        f"the {a} loop comes within {near:.0f} mm of itself at {_fmt(where[0])}"
                    )
                continue
            xy = np.array([h.xy for h in hits if {a, b} == set(h.colours)]).reshape(-1, 2)
            where = _near_misses(loop, other, xy, near, reach)
            if where.size:
                reasons.append(
                    f"the {a} line comes within {near:.0f} mm of the {b} line at "
                    f"{_fmt(where[0])} without crossing it there"
                )
    return reasons


def _near_misses(
    loop: _LoopGeometry, other: _LoopGeometry, crossings: FloatArray, near: float, reach: float
) -> FloatArray:
    """Where ``loop`` comes within ``near`` of ``other`` farther than ``reach`` from a crossing.

    A line that comes closer than ``near`` to another must pass through the curves
    parallel to the other line at distance ``near``. Near a crossing at angle ``alpha``
    it does so ``near / sin(alpha)`` from the crossing; anywhere else it is a near miss
    (or, if ``loop`` is ``other``, a loop that nearly touches itself). This assumes the
    other line bends no tighter than ``near``, which the bend-radius check ensures.
    """
    points = [
        np.asarray(shapely.get_coordinates(loop.ring.intersection(parallel)))
        for parallel in other.parallels(near)
    ]
    where = np.vstack(points).reshape(-1, 2)
    if where.size == 0 or crossings.size == 0:
        return where
    distance = np.hypot(*(where[:, None, :] - crossings[None, :, :]).transpose(2, 0, 1))
    return where[distance.min(axis=1) > reach]  # type: ignore[no-any-return]


def _knot_problems(
    layout: Layout,
    board: Board,
    loops: dict[str, _LoopGeometry],
    hits: Sequence[_Hit],
    limits: QualityLimits,
) -> list[str]:
    reasons = []
    for colour, loop in loops.items():
        knot = layout.knots.get(colour)
        if knot is None:
            reasons.append(f"the {colour} loop has no knot")
            continue
        point = shapely.Point(*knot)
        off = loop.ring.distance(point)
        if off > 1.0:
            reasons.append(f"the {colour} knot at {_fmt(knot)} is {off:.0f} mm off its line")
            continue
        s = float(loop.locate(np.array([knot], dtype=float))[0][0])
        for h in hits:
            if colour in h.colours:
                gap = abs(s - h.arc[h.colours.index(colour)]) % loop.length
                gap = min(gap, loop.length - gap)
                if gap < limits.min_knot_gap:
                    reasons.append(
                        f"the {colour} knot is {gap:.0f} mm along its line from the crossing at "
                        f"{_fmt(h.xy)}, below {limits.min_knot_gap:.0f} mm"
                    )
        for other, geometry in loops.items():
            clearance = geometry.ring.distance(point)
            if other != colour and clearance < limits.knot_clearance:
                reasons.append(
                    f"the {colour} knot is {clearance:.0f} mm from the {other} line, below "
                    f"{limits.knot_clearance:.0f} mm"
                )
        count = sum(colour in f.knots for f in board.fields)
        if count != 2:
            reasons.append(f"the {colour} knot counts for {count} fields instead of two")
    return reasons


# --- shared geometry ------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    """A crossing of two lines: where, which colours, how far along each loop, and the
    acute angle between the lines there (degrees)."""

    xy: XY
    colours: tuple[str, str]
    arc: tuple[float, float]
    angle: float


class _LoopGeometry:
    """A closed polyline with its arc lengths, segment directions and parallel curves."""

    def __init__(self, coords: FloatArray) -> None:
        self.coords = coords
        self.steps: FloatArray = np.diff(np.vstack([coords, coords[:1]]), axis=0)
        step_length = np.hypot(self.steps[:, 0], self.steps[:, 1])
        self.arc: FloatArray = np.concatenate([[0.0], np.cumsum(step_length)])
        self.length = float(self.arc[-1])
        self.directions: FloatArray = self.steps / np.maximum(step_length, 1e-12)[:, None]
        self.ring = LinearRing(coords)
        self._parallels: dict[float, tuple[LineString, LineString]] = {}

    def locate(self, points: FloatArray) -> tuple[FloatArray, IntArray]:
        """Arc length of the loop point nearest to each of ``points`` (k, 2), and the
        index of the segment it lies on."""
        arc = np.asarray(shapely.line_locate_point(self.ring, shapely.points(points)), float)
        segment = np.searchsorted(self.arc, arc, side="right") - 1
        return arc, np.clip(segment, 0, len(self.steps) - 1)

    def parallels(self, distance: float) -> tuple[LineString, LineString]:
        """The two closed curves at ``distance`` on either side of the loop."""
        if distance not in self._parallels:
            tangent = np.roll(self.coords, -1, axis=0) - np.roll(self.coords, 1, axis=0)
            tangent /= np.maximum(np.hypot(tangent[:, 0], tangent[:, 1]), 1e-12)[:, None]
            normal = distance * np.column_stack([-tangent[:, 1], tangent[:, 0]])
            self._parallels[distance] = (
                LineString(np.vstack([self.coords + normal, self.coords[:1] + normal[:1]])),
                LineString(np.vstack([self.coords - normal, self.coords[:1] - normal[:1]])),
            )
        return self._parallels[distance]

    def min_bend_radius(self, window: float) -> tuple[float, FloatArray]:
        """Smallest arc / turning ratio over any stretch of about ``window`` mm."""
        heading = np.arctan2(self.steps[:, 1], self.steps[:, 0])
        turn = np.angle(np.exp(1j * (np.roll(heading, -1) - heading)))
        mean_step = self.length / len(self.steps)
        width = max(1, round(window / mean_step))
        wrapped = np.concatenate([turn, turn[:width]])
        total = np.abs(np.convolve(wrapped, np.ones(width), mode="valid")[: len(turn)])
        worst = int(np.argmax(total))
        radius = width * mean_step / total[worst] if total[worst] > 0 else math.inf
        return radius, self.coords[(worst + width // 2) % len(self.coords)]


def _pair_crossings(loops: dict[str, _LoopGeometry], a: str, b: str) -> list[_Hit] | None:
    """Where loops ``a`` and ``b`` cross, or ``None`` if they overlap along a stretch."""
    shared = loops[a].ring.intersection(loops[b].ring)
    if shared.is_empty:
        return []
    if shared.geom_type not in ("Point", "MultiPoint"):
        return None
    return _hits_between(loops, a, b, np.asarray(shapely.get_coordinates(shared)))


def _board_hits(loops: dict[str, _LoopGeometry], board: Board) -> list[_Hit]:
    """The board's crossings with their arc lengths and angles."""
    hits = []
    pairs = sorted({c.lines for c in board.crossings})
    for a, b in pairs:
        xy = np.array([c.xy for c in board.crossings if c.lines == (a, b)], dtype=float)
        hits += _hits_between(loops, a, b, xy)
    return hits


def _hits_between(
    loops: dict[str, _LoopGeometry], a: str, b: str, points: FloatArray
) -> list[_Hit]:
    """Crossings of lines ``a`` and ``b`` at ``points`` (k, 2)."""
    arc_a, segment_a = loops[a].locate(points)
    arc_b, segment_b = loops[b].locate(points)
    cosine = np.abs(
        np.einsum("ij,ij->i", loops[a].directions[segment_a], loops[b].directions[segment_b])
    )
    angle = np.degrees(np.arccos(np.minimum(cosine, 1.0)))
    return [
        _Hit((float(x), float(y)), (a, b), (float(sa), float(sb)), float(g))
        for (x, y), sa, sb, g in zip(points, arc_a, arc_b, angle, strict=True)
    ]


def _signed_area(outline: FloatArray) -> float:
    x, y = outline[:, 0], outline[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _as_points(coords: FloatArray) -> tuple[XY, ...]:
    return tuple(map(tuple, coords.tolist()))  # type: ignore[arg-type]


def _fmt(xy: Sequence[float] | FloatArray) -> str:
    return f"({float(xy[0]):.0f}, {float(xy[1]):.0f})"
