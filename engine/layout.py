"""Seeded random legal layouts of the four power lines, for tests and synthetic photos.

A layout is what the oldest player lays on the table: four closed cords (red, yellow,
green, blue), each of a fixed length between 1.1 and 1.3 m, crossing each other. Each
layout follows one of a few families (see ``_Style``) with random proportions, so that
layouts range from 8 to 24 crossings:

- most (``hand``) are four irregular loops as a hand lays a cord: a circle pushed in and
  out a few times (bays and bulges, often not convex, not even star-shaped), stretched,
  smoothed like a stiff cord, and kept only if it never bends tightly nor comes close
  to itself (see :func:`_draw_hand_loop`); the loops lie around the middle at random
  distances, from a ring to a heap;
- the others are smooth star-shaped curves around their own centre,

    r(theta) = 1 + sum_k a_k cos(k theta + phi_k),   k = 2 .. 5,

  stretched along a random axis (round to elongated) and rotated, in regular patterns:
  a ring or frame of ovals, a # sign, a lumpy cluster, a star of long ovals.

Every loop is scaled so that its arc length is exactly the cord's length.

The loops are placed one after the other: each new loop is redrawn (or turned, or moved)
until it crosses the loops already on the table cleanly (clear angles, crossings well
apart, no near misses), which is much faster than redrawing whole layouts. The finished
layout must then pass :func:`check_layout_quality`, which says why a layout that real
players could not lay cleanly, or that a camera could not read without guessing, is not
good.

All coordinates are table millimetres with the origin at the middle of the play area.
Everything is deterministic for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray
from shapely.geometry import LinearRing, MultiLineString

from engine.board import Board
from engine.colours import LINE_COLOURS
from engine.errors import LayoutError
from engine.geometry import as_array, as_points, ring_crossings, signed_area
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

    lines: dict[str, tuple[XY, ...]]
    knots: dict[str, XY]

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

#: The search works on points 6 mm apart: crossings barely move (angles are measured on
#: the dense outline), and shapely is much faster. The margins below absorb the difference.
_SEARCH_SPACING_MM = 6.0
_ANGLE_MARGIN = 1.5
_GAP_MARGIN = 1.0
_NEAR_MARGIN = 1.5
_KNOT_MARGIN = 3.0
_EDGE_MARGIN = 2.0
#: A candidate loop that nearly fits (it failed for one of the _NUDGEABLE reasons) is
#: moved by about _NUDGE_MM in a random direction and tried again, up to _NUDGES times:
#: cheaper than drawing a new one, and more often successful.
_NUDGES = 4
_NUDGE_MM = 40.0
_NUDGEABLE = frozenset({"gap", "angle", "near"})


def random_layout(
    seed: int | np.random.Generator,
    *,
    min_crossings: int = 8,
    max_crossings: int = 24,
    limits: QualityLimits = DEFAULT_LIMITS,
    max_attempts: int = 200,
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
        If no legal layout can have a number of crossings in the range (it is always
        even and at least 8), or an attempt count is not positive.
    RuntimeError
        If no good layout was found within ``max_attempts`` attempts.
    """
    if max(min_crossings, 8) > max_crossings - max_crossings % 2:
        # Closed curves cross an even number of times, and four loops that each cross
        # two others cross at least eight times.
        raise ValueError(
            f"no layout has between {min_crossings} and {max_crossings} crossings: the "
            "number is even and at least 8"
        )
    if max_attempts < 1 or tries_per_loop < 1:
        raise ValueError("max_attempts and tries_per_loop must be positive")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    weights = np.array(
        [
            weight if low <= max_crossings and min_crossings <= high else 0.0
            for weight, (low, high) in zip(_FAMILY_WEIGHTS, _FAMILY_CROSSINGS, strict=True)
        ]
    )
    if not weights.any():
        weights = np.array(_FAMILY_WEIGHTS)
    for _ in range(max_attempts):
        family = str(rng.choice(_FAMILIES, p=weights / weights.sum()))
        layout = _attempt(rng, family, limits, min_crossings, max_crossings, tries_per_loop)
        if layout is not None:
            return layout
    raise RuntimeError(
        f"no good layout with {min_crossings}..{max_crossings} crossings found in "
        f"{max_attempts} attempts; relax the limits or the crossing range"
    )


#: Kinds of layout, how often each is drawn (see :class:`_Style`), and the numbers of
#: crossings each usually gives: a family is only drawn if that range meets the range
#: asked for (unless none does), so that a narrow range is found quickly.
_FAMILIES = ("hand", "frame", "hash", "cluster", "star")
_FAMILY_WEIGHTS = (0.66, 0.08, 0.12, 0.04, 0.1)
_FAMILY_CROSSINGS = ((8, 18), (8, 14), (12, 20), (10, 14), (20, 24))


@dataclass(frozen=True)
class _Style:
    """What one layout looks like: where the loops lie, how they point, how lumpy they are.

    Five families of layouts, each with random proportions:

    - ``hand``: four irregular hand-laid loops (see :func:`_draw_hand_loop`), lumpy
      and often bent into bays and bulges, around a square of random size, each
      crossing its neighbours, maybe all others (8 to 22 crossings, mostly 10 to 16);
    - ``frame``: four ovals along the sides of a square, each crossing its two
      neighbours near the corners (8 to 14 crossings: a ring);
    - ``hash``: the same in a small square, so that each oval crosses the two across
      it along their whole width, and maybe the one opposite (14 to 20 crossings: a #);
    - ``cluster``: four roundish, lumpy loops piled up around the middle, each crossing
      every other about twice (about 12 crossings);
    - ``star``: four long ovals through the middle, 45° apart, each crossing every other
      four times (24 crossings).

    Loops are listed in the order in which they are placed.
    """

    order: tuple[str, ...]  # colours
    centres: FloatArray  # (4, 2) where each loop is aimed, mm
    turns: FloatArray  # (4,) the direction of each loop's long axis, radians
    aspects: FloatArray  # (4,) each loop's typical ratio of length to width
    lumpiness: float  # 0 (smooth) .. 1 (lumpy)
    jitter: float  # how far a loop may stray from its aim (mm; a hundredth in radians)
    hand: bool = False  # irregular hand-laid loops rather than lumpy ovals

    @classmethod
    def draw(cls, rng: np.random.Generator, family: str) -> _Style:
        turn = rng.uniform(0.0, 2.0 * math.pi)
        corners = turn + np.arange(4) * math.pi / 2 + rng.normal(0.0, 0.1, size=4)
        around = np.column_stack([np.cos(corners), np.sin(corners)])
        order = tuple(str(c) for c in rng.permutation(LINE_COLOURS))
        if family == "hand":
            # Around a square of random size, each loop at its own distance: from a
            # ring of loops that each cross their neighbours to a heap in the middle.
            spread = rng.uniform(*_HAND_SPREAD)
            centres = spread * rng.uniform(0.6, 1.3, size=(4, 1)) * around
            turns = np.zeros(4)  # each try turns its loop at random
            aspects = rng.uniform(1.0, 1.9, size=4)
            lumpiness, jitter = rng.uniform(0.6, 1.0), _HAND_JITTER
            index = (rng.integers(4) + rng.choice([-1, 1]) * np.arange(4)) % 4
            centres = centres[index]
            return cls(order, centres, turns, aspects, lumpiness, jitter, hand=True)
        if family in ("frame", "hash"):
            if family == "frame":
                spread, aspect = rng.uniform(110.0, 190.0), rng.uniform(1.3, 3.2)
            else:
                spread, aspect = rng.uniform(40.0, 110.0), rng.uniform(2.2, 3.2)
            centres = spread * rng.uniform(0.9, 1.1, size=(4, 1)) * around
            turns = corners + math.pi / 2
            aspects = np.full(4, aspect)
            lumpiness, jitter = rng.uniform(0.0, 0.6), 15.0
            # Go round the square, so that each new loop can cross one already placed.
            index = (rng.integers(4) + rng.choice([-1, 1]) * np.arange(4)) % 4
            centres, turns = centres[index], turns[index]
        elif family == "cluster":
            centres = rng.uniform(50.0, 130.0) * rng.uniform(0.9, 1.1, size=(4, 1)) * around
            turns = turn + rng.permutation(4) * math.pi / 4
            aspects = np.full(4, rng.uniform(1.0, 1.8))
            lumpiness, jitter = rng.uniform(0.2, 1.0), 20.0
        elif family == "star":
            centres = rng.uniform(0.0, 5.0) * around
            turns = turn + rng.permutation(4) * math.pi / 4
            aspects = np.full(4, rng.uniform(2.6, 3.1))
            lumpiness, jitter = rng.uniform(0.0, 0.1), 2.0
        else:
            raise ValueError(f"unknown layout family {family!r}")
        return cls(order, centres, turns, aspects, lumpiness, jitter)


def _attempt(
    rng: np.random.Generator,
    family: str,
    limits: QualityLimits,
    min_crossings: int,
    max_crossings: int,
    tries_per_loop: int,
) -> Layout | None:
    """Place the four loops of a layout of ``family`` one by one; ``None`` if this
    layout is abandoned."""
    style = _Style.draw(rng, family)
    placed: dict[str, _Placed] = {}
    hits: list[_Hit] = []
    for i, colour in enumerate(style.order):
        fewest = min_crossings - len(hits) if i == len(style.order) - 1 else 0
        most = max_crossings - len(hits)
        found = None
        shape = None
        for t in range(tries_per_loop):
            if style.hand and t % _HAND_SHAPE_REUSE == 0:
                shape = _hand_shape(rng, style, i, limits)
            if style.hand and shape is None:
                continue
            loop = _propose(rng, style, i, limits, shape)
            for nudge in range(_NUDGES + 1):
                if nudge:
                    loop = loop.moved(rng.normal(0.0, _NUDGE_MM, size=2))
                result = _fits(colour, loop, placed, hits, limits, fewest, most)
                if not isinstance(result, str) or result not in _NUDGEABLE:
                    break
            if not isinstance(result, str):
                found = loop, result
                break
        if found is None:
            return None
        placed[colour] = found[0]
        hits += found[1]
    coarse = {colour: placed[colour].coarse for colour in LINE_COLOURS}
    knot_arcs = _choose_knots(rng, coarse, hits, limits)
    if knot_arcs is None:
        return None
    fine = {colour: placed[colour].fine() for colour in LINE_COLOURS}
    everything = np.vstack(list(fine.values()))
    middle = (everything.min(axis=0) + everything.max(axis=0)) / 2.0
    knots = {}
    for colour, s in knot_arcs.items():
        index = round(s / coarse[colour].length * len(fine[colour])) % len(fine[colour])
        knots[colour] = (float(fine[colour][index, 0]), float(fine[colour][index, 1]))
    layout = Layout(
        lines={c: as_points(fine[c] - middle) for c in LINE_COLOURS},
        knots={c: (x - float(middle[0]), y - float(middle[1])) for c, (x, y) in knots.items()},
    )
    if check_layout_quality(layout, limits):
        return None
    return layout


def _propose(
    rng: np.random.Generator,
    style: _Style,
    index: int,
    limits: QualityLimits,
    shape: tuple[FloatArray, float] | None = None,
) -> _Placed:
    """Draw loop number ``index`` (in placing order) of a layout in ``style``: for a
    hand-laid layout, ``shape`` (from :func:`_hand_shape`) turned at random."""
    centre = style.centres[index] + rng.normal(0.0, style.jitter, size=2)
    if shape is not None:
        outline, length = shape
        turn = rng.uniform(0.0, 2.0 * math.pi)
        cos, sin = math.cos(turn), math.sin(turn)
        return _Placed.from_outline(outline @ np.array([[cos, sin], [-sin, cos]]) + centre, length)
    low, high = limits.length_range
    length = rng.uniform(low + 1.0, high - 1.0)
    aspect = style.aspects[index] * rng.uniform(0.9, 1.1)
    turn = style.turns[index] + rng.normal(0.0, style.jitter / 100.0)
    outline = _draw_loop(rng, style.lumpiness * rng.uniform(0.0, 1.0), aspect, turn)
    return _Placed.from_outline(outline + centre, length)


def _hand_shape(
    rng: np.random.Generator, style: _Style, index: int, limits: QualityLimits
) -> tuple[FloatArray, float] | None:
    """A hand-laid loop for place ``index`` of a layout in ``style``, around the origin,
    and its cord's length; ``None`` if a few drawings all bent too tightly (rare).

    Turning a loop keeps its bends and its clearance from itself: each shape is tried
    in :data:`_HAND_SHAPE_REUSE` random turns before a new one is drawn."""
    low, high = limits.length_range
    for _ in range(_HAND_DRAWS):
        length = rng.uniform(low + 1.0, high - 1.0)
        aspect = style.aspects[index] * rng.uniform(0.9, 1.1)
        outline = _draw_hand_loop(rng, style.lumpiness, aspect, length)
        if outline is not None:
            return outline, length
    return None


#: The dense outline every loop is drawn as, before it is sampled evenly.
_THETA = np.linspace(0.0, 2.0 * math.pi, 720, endpoint=False)
_HARMONICS = np.arange(2, 6)
_COS = np.cos(np.outer(_HARMONICS, _THETA))
_SIN = np.sin(np.outer(_HARMONICS, _THETA))
_CIRCLE = np.column_stack([np.cos(_THETA), np.sin(_THETA)])


def _draw_loop(
    rng: np.random.Generator, lumpiness: float, aspect: float, turn: float
) -> FloatArray:
    """A smooth closed curve around the origin, as a dense polygon of arbitrary size.

    A star-shaped lumpy circle ``r(theta) = 1 + sum_k a_k cos(k theta + phi_k)``,
    stretched to ``aspect`` and turned by ``turn``.
    """
    amplitude = lumpiness * rng.uniform(0.0, 1.0, size=_HARMONICS.size) * 0.4 / _HARMONICS
    phase = rng.uniform(0.0, 2.0 * math.pi, size=_HARMONICS.size)
    radius = 1.0 + (amplitude * np.cos(phase)) @ _COS - (amplitude * np.sin(phase)) @ _SIN
    outline: FloatArray = (radius[:, None] * _CIRCLE) @ _stretch(aspect, turn)
    return outline


def _stretch(aspect: float, turn: float) -> FloatArray:
    """The 2x2 matrix (acting on row vectors) that stretches the x axis by ``aspect``
    relative to y, keeping areas, then turns by ``turn``."""
    stretch = math.sqrt(aspect)
    cos, sin = math.cos(turn), math.sin(turn)
    return np.array([[stretch * cos, stretch * sin], [-sin / stretch, cos / stretch]])


#: Hand-laid loops (see :func:`_draw_hand_loop`): how many pushes shape one; the chance
#: that a push makes a bay (inwards) rather than a bulge; the width of a push (sigma, in
#: radii of the starting circle) and its depth (a fraction of the most that keeps the
#: push one-to-one). Then how smooth the cord is made (Gaussian smoothing along the
#: loop, mm; each only if the one before leaves a bend too tight), and what a loop must
#: keep to be used: bends no tighter than _HAND_MIN_BEND_MM (above the quality limit),
#: and parts farther apart than _HAND_CLEARANCE_ARC_MM along the loop at least
#: _HAND_CLEARANCE_MM apart (a bay is never a narrow slot). Each shape is tried in
#: _HAND_SHAPE_REUSE turns, and _HAND_DRAWS drawings may fail before a try is lost.
#: A hand-laid layout aims its loops at the corners of a square _HAND_SPREAD mm from
#: the middle (each corner from 0.6 to 1.3 times that), give or take _HAND_JITTER mm.
_HAND_PUSHES = (3, 9)
_HAND_BAY_CHANCE = 0.8
_HAND_PUSH_WIDTH = (0.3, 0.8)
_HAND_PUSH_DEPTH = (0.65, 0.95)
_HAND_SMOOTHING_MM = (6.0, 10.0, 14.0, 18.0, 22.0, 26.0)
_HAND_MIN_BEND_MM = 18.0
_HAND_CLEARANCE_MM = 25.0
_HAND_CLEARANCE_ARC_MM = 60.0
_HAND_SHAPE_REUSE = 3
_HAND_DRAWS = 5
_HAND_SPREAD = (20.0, 150.0)
_HAND_JITTER = 30.0
_HAND_FREQUENCIES = np.fft.fftfreq(_THETA.size, 1.0 / _THETA.size)


def _draw_hand_loop(
    rng: np.random.Generator, strength: float, aspect: float, length: float
) -> FloatArray | None:
    """An irregular closed curve around the origin, the way a cord is laid by hand.

    A circle is pushed around a few times, as by a finger: each push moves the plane
    near a point of the loop, mostly inwards (a bay) or outwards (a bulge), by a
    Gaussian bump ``amp * exp(-|p - c|² / 2 sigma²)`` with ``amp < sigma e^½``, so that
    each push is a smooth one-to-one map of the plane and the loop stays simple. The
    result, not star-shaped in general, is stretched to about ``aspect`` along x and
    scaled to arc length ``length`` (mm). Then it is smoothed like a stiff cord, a
    little more each time, until it nowhere bends tighter than :data:`_HAND_MIN_BEND_MM`.
    ``strength`` (0 .. 1) scales the depth of all pushes.

    Returns
    -------
    numpy.ndarray or None
        (720, 2) points about evenly spaced along the curve, or ``None`` if it still
        bends too tightly after the strongest smoothing, or comes close to itself.
    """
    count = int(rng.integers(*_HAND_PUSHES))
    picks = rng.integers(_THETA.size, size=count)
    bays = rng.uniform(size=count) < _HAND_BAY_CHANCE
    sways = rng.normal(0.0, 0.4, size=(count, 2))
    widths = rng.uniform(*_HAND_PUSH_WIDTH, size=count)
    backs = rng.uniform(0.0, 0.2, size=count)
    depths = strength * rng.uniform(*_HAND_PUSH_DEPTH, size=count) * math.exp(0.5)
    x, y = _CIRCLE[:, 0].copy(), _CIRCLE[:, 1].copy()
    for i, bay, sway, sigma, back, depth in zip(
        picks, bays, sways, widths, backs, depths, strict=True
    ):
        tx, ty = x[(i + 1) % x.size] - x[i - 1], y[(i + 1) % y.size] - y[i - 1]
        # The loop runs counter-clockwise (pushes keep its orientation): (ty, -tx) is out.
        norm = max(math.hypot(tx, ty), 1e-12)
        sign = -1.0 if bay else 1.0
        nx, ny = sign * ty / norm, -sign * tx / norm
        dx, dy = nx + sway[0], ny + sway[1]
        amplitude = depth * sigma / max(math.hypot(dx, dy), 1e-12)
        cx, cy = x[i] - nx * sigma * back, y[i] - ny * sigma * back
        weight = amplitude * np.exp(((x - cx) ** 2 + (y - cy) ** 2) * (-0.5 / sigma**2))
        x += weight * dx
        y += weight * dy
    points = np.column_stack([x, y]) @ _stretch(aspect, 0.0)
    wave = (2.0 * math.pi / length) * _HAND_FREQUENCIES
    for smoothing in _HAND_SMOOTHING_MM:
        # Smooth evenly along the loop's length, and measure the tightest bend by the
        # curvature Im(conj(z') z'') / |z'|³ from the derivatives of the smoothed curve.
        spectrum, perimeter = _spectrum(points)
        spectrum *= (length / perimeter) * np.exp(-0.5 * (smoothing * wave) ** 2)
        z, dz, ddz = np.fft.ifft(np.stack([spectrum, 1j * wave * spectrum, -(wave**2) * spectrum]))
        points = np.column_stack([z.real, z.imag])
        if np.max(np.abs((dz.conj() * ddz).imag) / np.abs(dz) ** 3) * _HAND_MIN_BEND_MM <= 1.0:
            break
    else:
        return None
    if _comes_close_to_itself(points, _HAND_CLEARANCE_MM, _HAND_CLEARANCE_ARC_MM):
        return None
    return points


def _perimeter(points: FloatArray) -> float:
    steps = np.diff(np.vstack([points, points[:1]]), axis=0)
    return float(np.hypot(steps[:, 0], steps[:, 1]).sum())


def _spectrum(points: FloatArray) -> tuple[NDArray[np.complex128], float]:
    """The Fourier transform of the closed curve ``points`` resampled evenly along its
    length (720 points, as complex numbers), and its length."""
    closed = np.vstack([points, points[:1]])
    steps = np.diff(closed, axis=0)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(steps[:, 0], steps[:, 1]))])
    s = np.arange(_THETA.size) * (arc[-1] / _THETA.size)
    z = np.interp(s, arc, closed[:, 0]) + 1j * np.interp(s, arc, closed[:, 1])
    return np.fft.fft(z), float(arc[-1])


def _comes_close_to_itself(points: FloatArray, clearance: float, apart: float) -> bool:
    """Whether two points of the closed curve that lie more than ``apart`` from each
    other along it are less than ``clearance`` apart (checked every 12 mm or so: parts
    nearly ``clearance`` minus 6 mm apart may pass)."""
    length = _perimeter(points)
    coarse = points[:: max(1, round(12.0 * len(points) / length))]
    count = len(coarse)
    skip = math.floor(apart * count / length) + 1
    if 2 * skip > count:
        return False
    # Row i holds the points from ``skip`` ahead of point i round to ``skip`` behind it.
    twice = np.vstack([coarse, coarse])
    x = sliding_window_view(twice[:, 0], count)[:count, skip : count - skip + 1]
    y = sliding_window_view(twice[:, 1], count)[:count, skip : count - skip + 1]
    dx, dy = x - coarse[:, 0, None], y - coarse[:, 1, None]
    return bool((dx * dx + dy * dy < clearance * clearance).any())


class _Placed:
    """A loop during the search: a dense outline, scaled to the cord's length when sampled.

    ``coarse`` samples it every :data:`_SEARCH_SPACING_MM` for the search (with
    tangents taken from the dense outline); ``fine`` every :data:`POINT_SPACING_MM` for
    the layout.
    """

    def __init__(
        self,
        closed: FloatArray,
        cumulative: FloatArray,
        length: float,
        coarse: _LoopGeometry | None = None,
    ) -> None:
        self.closed = closed  # (n + 1, 2), first point repeated at the end
        self.cumulative = cumulative  # (n + 1,), arc length at each point
        self.length = length
        if coarse is None:
            steps = np.diff(closed, axis=0)
            unit = steps / np.maximum(np.hypot(steps[:, 0], steps[:, 1]), 1e-12)[:, None]
            coarse = _LoopGeometry(self.sample(_SEARCH_SPACING_MM), (cumulative, unit))
        self.coarse = coarse

    @classmethod
    def from_outline(cls, outline: FloatArray, length: float) -> _Placed:
        """The closed polygon ``outline`` (first point not repeated), scaled about its
        centre to arc length ``length``."""
        centre = outline.mean(axis=0)
        closed = np.vstack([outline, outline[:1]]) - centre
        steps = np.diff(closed, axis=0)
        cumulative = np.concatenate([[0.0], np.cumsum(np.hypot(steps[:, 0], steps[:, 1]))])
        scale = length / cumulative[-1]
        return cls(closed * scale + centre, cumulative * scale, length)

    def moved(self, offset: FloatArray) -> _Placed:
        """The same loop, shifted by ``offset``."""
        coarse = _LoopGeometry(self.coarse.coords + offset, self.coarse.dense_tangents)
        return _Placed(self.closed + offset, self.cumulative, self.length, coarse)

    def sample(self, spacing: float) -> FloatArray:
        """Points evenly spaced about ``spacing`` apart along the loop."""
        count = max(3, round(self.length / spacing))
        s = np.arange(count) * (self.length / count)
        x = np.interp(s, self.cumulative, self.closed[:, 0])
        y = np.interp(s, self.cumulative, self.closed[:, 1])
        return np.column_stack([x, y])

    def fine(self) -> FloatArray:
        return self.sample(POINT_SPACING_MM)


def _fits(
    colour: str,
    loop: _Placed,
    placed: dict[str, _Placed],
    hits: Sequence[_Hit],
    limits: QualityLimits,
    fewest: float,
    most: float,
) -> list[_Hit] | str:
    """The new crossings if ``loop`` can join the placed loops cleanly, bringing between
    ``fewest`` and ``most`` crossings, else why not: ``"extent"``, ``"overlap"``,
    ``"count"``, ``"degree"``, ``"gap"``, ``"angle"`` or ``"near"``."""
    low = np.min([loop.coarse.low, *(p.coarse.low for p in placed.values())], axis=0)
    high = np.max([loop.coarse.high, *(p.coarse.high for p in placed.values())], axis=0)
    if np.any(high - low > 2.0 * (limits.half_size - _EDGE_MARGIN)):
        return "extent"
    # Cheap checks first: most candidates fail (on a crossing too close to another)
    # before all crossings are found, let alone any angle measured.
    gap = limits.min_crossing_gap + _GAP_MARGIN
    points: dict[str, FloatArray] = {}
    taken = np.array([h.xy for h in hits]).reshape(-1, 2)
    for other, placed_loop in placed.items():
        found = ring_crossings(loop.coarse.ring, placed_loop.coarse.ring)
        if found is None:
            return "overlap"
        if len(found):
            if _too_close(found, taken, gap):
                return "gap"
            taken = np.vstack([taken, found])
        points[other] = found
    count = len(taken) - len(hits)
    if not fewest <= count <= most:
        return "count"
    if not _degrees_can_work({o for o, xy in points.items() if len(xy)}, placed, hits):
        return "degree"
    loops = {c: p.coarse for c, p in placed.items()}
    loops[colour] = loop.coarse
    new_hits = [
        hit for o, xy in points.items() if len(xy) for hit in _hits_between(loops, colour, o, xy)
    ]
    min_angle = limits.min_crossing_angle + _ANGLE_MARGIN
    if any(h.angle < min_angle for h in new_hits):
        return "angle"
    near = limits.near_distance + _NEAR_MARGIN
    reach = 1.15 * near / math.sin(math.radians(min_angle))
    for other in placed:
        if _near_misses(loop.coarse, loops[other], points[other], near, reach).size:
            return "near"
    return new_hits


def _too_close(new: FloatArray, old: FloatArray, gap: float) -> bool:
    """Whether two of the points ``new``, or one of them and one of ``old``, are closer
    than ``gap``."""
    both = np.vstack([old, new])
    distance = np.hypot(*(new[:, None, :] - both[None, :, :]).transpose(2, 0, 1))
    distance[np.arange(len(new)), len(old) + np.arange(len(new))] = np.inf
    return bool(distance.min() < gap)


def _degrees_can_work(crossed: set[str], placed: dict[str, _Placed], hits: Sequence[_Hit]) -> bool:
    """Whether every loop can still end up crossing two others (and all connected), if
    the loop being placed crosses the ``crossed`` ones."""
    if len(placed) < len(LINE_COLOURS) - 1:
        return bool(crossed) or not placed
    partners: dict[str, set[str]] = {c: set() for c in placed}
    for h in hits:
        a, b = h.colours
        partners[a].add(b)
        partners[b].add(a)
    return len(crossed) >= 2 and all(len(partners[c]) >= 2 or c in crossed for c in placed)


def _choose_knots(
    rng: np.random.Generator,
    loops: dict[str, _LoopGeometry],
    hits: Sequence[_Hit],
    limits: QualityLimits,
) -> dict[str, float] | None:
    """Where along each loop its knot goes (arc length): clear of crossings (along the
    loop) and of other lines."""
    knots: dict[str, float] = {}
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
                knots[colour] = float(loop.arc[index])
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
    loops = {line.colour: _LoopGeometry(as_array(line.polyline)) for line in board.lines}
    hits = _board_hits(loops, board)
    reasons += _loop_problems(loops, limits)
    reasons += _crossing_problems(loops, hits, limits)
    reasons += _closeness_problems(loops, hits, limits)
    for f in board.fields:
        if not f.outer and f.polygon is not None:
            outline = as_array(f.polygon)
            area = abs(signed_area(outline))
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
                f"the {colour} loop reaches {reach:.0f} mm (in x or y) from the middle, "
                f"beyond the {2 * limits.half_size:.0f} mm square play area"
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
    colours = list(loops)
    for n, a in enumerate(colours):
        loop = loops[a]
        where = _pinches(loop, near)
        if where.size:
            reasons.append(f"the {a} loop comes within {near:.0f} mm of itself at {_fmt(where[0])}")
        # Closeness is mutual: checking one line of each pair against the other will do.
        for b in colours[n + 1 :]:
            other = loops[b]
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
    it does so ``near / sin(alpha)`` from the crossing; anywhere else it is a near miss.
    This assumes the other line bends no tighter than ``near``, which the bend-radius
    check ensures.
    """
    shared = loop.ring.intersection(other.parallels(near))
    where = np.asarray(shapely.get_coordinates(shared), dtype=float).reshape(-1, 2)
    if where.size == 0 or crossings.size == 0:
        return where
    distance = np.hypot(*(where[:, None, :] - crossings[None, :, :]).transpose(2, 0, 1))
    return where[distance.min(axis=1) > reach]  # type: ignore[no-any-return]


def _pinches(loop: _LoopGeometry, near: float) -> FloatArray:
    """Where a loop comes within ``near`` of a part of itself that is far along the loop.

    The loop crosses its own parallel curves there. So it also does, harmlessly, where
    it bends tighter than ``near`` (the inner parallel curls up); those crossings are
    told apart by how far along the loop the nearby parts lie.
    """
    shared = loop.ring.intersection(loop.parallels(near))
    points = np.asarray(shapely.get_coordinates(shared), dtype=float).reshape(-1, 2)
    if points.size == 0:
        return points
    arc, distance = loop.project_all(points)  # (k, n) each: onto every segment
    own = arc[np.arange(len(points)), np.argmin(distance, axis=1)]
    apart = np.abs(arc - own[:, None]) % loop.length
    apart = np.minimum(apart, loop.length - apart)
    far = (distance <= near * 1.05) & (apart > 3.0 * near)
    pinched: FloatArray = points[far.any(axis=1)]
    return pinched


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

    def __init__(
        self, coords: FloatArray, tangents: tuple[FloatArray, FloatArray] | None = None
    ) -> None:
        self.coords = coords
        # Optionally (arc length at each point, unit direction of each segment) of a
        # denser outline of the same loop, starting at the same point: sharper tangents.
        self.dense_tangents = tangents
        self.steps: FloatArray = np.diff(np.vstack([coords, coords[:1]]), axis=0)
        step_length = np.hypot(self.steps[:, 0], self.steps[:, 1])
        self.step_length: FloatArray = step_length
        self.inverse_square: FloatArray = 1.0 / np.maximum(step_length**2, 1e-24)
        self.arc: FloatArray = np.concatenate([[0.0], np.cumsum(step_length)])
        self.length = float(self.arc[-1])
        self.directions: FloatArray = self.steps / np.maximum(step_length, 1e-12)[:, None]
        self.low: FloatArray = coords.min(axis=0)
        self.high: FloatArray = coords.max(axis=0)
        self.ring = LinearRing(coords)
        self._parallels: dict[float, MultiLineString] = {}

    def tangents(self, arc: FloatArray, segment: IntArray) -> FloatArray:
        """Unit tangents (k, 2) at arc lengths ``arc`` on segments ``segment``."""
        if self.dense_tangents is None:
            return self.directions[segment]
        cumulative, directions = self.dense_tangents
        index = np.searchsorted(cumulative, arc % cumulative[-1], side="right") - 1
        tangents: FloatArray = directions[np.clip(index, 0, len(directions) - 1)]
        return tangents

    def project_all(self, points: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Arc length of the point nearest to each of ``points`` (k, 2) on every segment,
        and its distance: two (k, n) arrays."""
        dx = points[:, 0, None] - self.coords[None, :, 0]
        dy = points[:, 1, None] - self.coords[None, :, 1]
        sx, sy = self.steps[:, 0], self.steps[:, 1]
        t = np.clip((dx * sx + dy * sy) * self.inverse_square, 0.0, 1.0)
        distance = np.hypot(dx - t * sx, dy - t * sy)
        return self.arc[:-1] + t * self.step_length, distance

    def locate(self, points: FloatArray) -> tuple[FloatArray, IntArray]:
        """Arc length of the loop point nearest to each of ``points`` (k, 2), and the
        index of the segment it lies on."""
        arc, distance = self.project_all(points)
        segment = np.argmin(distance, axis=1)
        return arc[np.arange(len(points)), segment], segment

    def parallels(self, distance: float) -> MultiLineString:
        """The two closed curves at ``distance`` on either side of the loop."""
        if distance not in self._parallels:
            tangent = np.roll(self.coords, -1, axis=0) - np.roll(self.coords, 1, axis=0)
            tangent /= np.maximum(np.hypot(tangent[:, 0], tangent[:, 1]), 1e-12)[:, None]
            normal = distance * np.column_stack([-tangent[:, 1], tangent[:, 0]])
            outside = self.coords + normal
            inside = self.coords - normal
            self._parallels[distance] = MultiLineString(
                [np.vstack([outside, outside[:1]]), np.vstack([inside, inside[:1]])]
            )
        return self._parallels[distance]

    def min_bend_radius(self, window: float) -> tuple[float, FloatArray]:
        """Smallest arc / turning ratio over any stretch of about ``window`` mm."""
        radius, index = _min_bend_radius(self.steps, window)
        return radius, self.coords[index]


def _min_bend_radius(steps: FloatArray, window: float) -> tuple[float, int]:
    """Smallest arc / turning ratio over any stretch of about ``window`` of the closed
    polyline with segments ``steps`` (n, 2), and the index of a point in that stretch."""
    heading = np.arctan2(steps[:, 1], steps[:, 0])
    turn = np.angle(np.exp(1j * (np.roll(heading, -1) - heading)))
    mean_step = float(np.hypot(steps[:, 0], steps[:, 1]).sum()) / len(steps)
    width = max(1, round(window / mean_step))
    wrapped = np.concatenate([turn, turn[:width]])
    total = np.abs(np.convolve(wrapped, np.ones(width), mode="valid")[: len(turn)])
    worst = int(np.argmax(total))
    radius = width * mean_step / total[worst] if total[worst] > 0 else math.inf
    return radius, (worst + width // 2) % len(steps)


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
    tangent_a = loops[a].tangents(arc_a, segment_a)
    tangent_b = loops[b].tangents(arc_b, segment_b)
    cosine = np.abs(np.einsum("ij,ij->i", tangent_a, tangent_b))
    angle = np.degrees(np.arccos(np.minimum(cosine, 1.0)))
    return [
        _Hit((float(x), float(y)), (a, b), (float(sa), float(sb)), float(g))
        for (x, y), sa, sb, g in zip(points, arc_a, arc_b, angle, strict=True)
    ]


def _fmt(xy: Sequence[float] | FloatArray) -> str:
    return f"({float(xy[0]):.0f}, {float(xy[1]):.0f})"
