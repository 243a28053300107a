"""Board topology from geometry, on layouts whose fields are worked out by hand."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from engine.board import Board
from engine.errors import LayoutError
from engine.legality import LOOP_CROSSES_TOO_FEW, find_violations
from engine.placement import BoardGeometry, Foot, locate_creatures
from engine.topology import MAX_CROSSINGS, build_board


def circle(cx: float, cy: float, r: float, n: int = 240) -> list[tuple[float, float]]:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return [(cx + r * math.cos(a), cy + r * math.sin(a)) for a in t]


def corner_counts(board: Board) -> list[int]:
    return sorted(len(f.corners) for f in board.fields)


def corners_are_at(board: Board, field_id: int, expected: set[tuple[float, float]]) -> bool:
    """Whether the field's corners are exactly at ``expected`` (to 0.01), whatever the ids."""
    left = [board.crossings[c].xy for c in board.fields[field_id].corners]
    for point in expected:
        near = [p for p in left if math.dist(p, point) < 0.01]
        if len(near) != 1:
            return False
        left.remove(near[0])
    return not left


def topology_signature(
    board: Board, back: Callable[[float, float], tuple[float, float]] = lambda x, y: (x, y)
) -> Counter[tuple[bool, tuple[tuple[float, float], ...], tuple[str, ...]]]:
    """Every field as (outer, its corners' positions mapped through ``back``, knots),
    rounded: two boards of one layout in different frames have the same signature."""

    def place(crossing: int) -> tuple[float, float]:
        x, y = back(*board.crossings[crossing].xy)
        return (round(x, 2) + 0.0, round(y, 2) + 0.0)

    return Counter(
        (f.outer, tuple(sorted(place(c) for c in f.corners)), f.knots) for f in board.fields
    )


def bounded_by_corners(board: Board) -> Counter[int]:
    return Counter(len(f.corners) for f in board.fields if not f.outer)


def field_containing(board: Board, x: float, y: float) -> int:
    from engine.placement import BoardGeometry

    return BoardGeometry(board).field_at((x, y))


# --- two loops crossing twice -----------------------------------------------------------
#
#      red circle at (0, 0), blue circle at (12, 0), both radius 10: they cross at
#      x = 6, y = ±8. Faces: the outer field, the lens shared by both, the part of red
#      outside blue, the part of blue outside red. Every face has the two crossings as
#      corners. The red knot at (-10, 0) lies on red's outer arc, between the outer field
#      and red's own crescent.


@pytest.fixture
def two_circles() -> Board:
    return build_board({"red": circle(0, 0, 10), "blue": circle(12, 0, 10)}, {"red": (-10, 0)})


def test_two_loops_crossing_twice_have_two_crossings(two_circles: Board) -> None:
    assert len(two_circles.crossings) == 2
    assert {c.lines for c in two_circles.crossings} == {("blue", "red")}
    ys = sorted(round(c.xy[1], 3) for c in two_circles.crossings)
    assert ys == pytest.approx([-8.0, 8.0], abs=0.05)


def test_two_loops_crossing_twice_have_four_fields_of_two_corners(two_circles: Board) -> None:
    assert len(two_circles.fields) == 4
    assert corner_counts(two_circles) == [2, 2, 2, 2]
    assert two_circles.fields[0].outer and two_circles.fields[0].polygon is None


def test_knot_counts_for_the_two_fields_beside_it(two_circles: Board) -> None:
    crescent = field_containing(two_circles, -5, 0)
    lens = field_containing(two_circles, 6, 0)
    with_knot = {f.id for f in two_circles.fields if "red" in f.knots}
    assert with_knot == {two_circles.outer_field.id, crescent}
    assert two_circles.fields[crescent].value == 3
    assert two_circles.fields[lens].value == 2
    assert two_circles.outer_field.value == 3


def test_each_crossing_has_four_sectors_in_four_different_fields(two_circles: Board) -> None:
    for crossing in two_circles.crossings:
        owners = [s.field for s in two_circles.sectors if s.crossing == crossing.id]
        assert len(owners) == 4
        assert len(set(owners)) == 4


# --- four loops in a ring ---------------------------------------------------------------
#
#   Four radius-10 circles at the corners of a 15 x 15 square. Neighbours (distance 15)
#   cross twice; diagonal ones (distance 21.2) do not meet. 8 crossings. Faces: outer
#   (4 corners: the outer crossing of each neighbouring pair), the middle hole bounded by
#   all four circles (4 corners), four lenses (2 corners each) and four remaining parts
#   of the circles (each has both crossings with each of its two neighbours: 4 corners).
#   Total 4 + 4 + 8 + 16 = 32 = 4 x 8 corners, 10 fields = 8 + 2.


@pytest.fixture
def ring() -> Board:
    lines = {
        "red": circle(0, 0, 10),
        "yellow": circle(15, 0, 10),
        "green": circle(15, 15, 10),
        "blue": circle(0, 15, 10),
    }
    return build_board(lines)


def test_ring_of_four(ring: Board) -> None:
    assert len(ring.crossings) == 8
    assert len(ring.fields) == 10
    assert len(ring.outer_field.corners) == 4
    assert bounded_by_corners(ring) == Counter({4: 5, 2: 4})
    # Neighbours cross on the line between their centres' midpoint, 6.61 off it: the
    # crossing nearer the square's middle (7.5, 7.5) is inner, the other outer.
    off = math.sqrt(10**2 - 7.5**2)
    inner = {(7.5, off), (15 - off, 7.5), (7.5, 15 - off), (off, 7.5)}
    outer = {(7.5, -off), (15 + off, 7.5), (7.5, 15 + off), (-off, 7.5)}
    middle = field_containing(ring, 7.5, 7.5)
    assert corners_are_at(ring, middle, inner)
    assert corners_are_at(ring, ring.outer_field.id, outer)
    assert corners_are_at(ring, field_containing(ring, 7.5, 0), {(7.5, -off), (7.5, off)})
    assert not corners_are_at(ring, middle, outer)  # the helper can fail
    pairs = Counter(c.lines for c in ring.crossings)
    assert pairs == Counter(
        {("red", "yellow"): 2, ("green", "yellow"): 2, ("blue", "green"): 2, ("blue", "red"): 2}
    )
    assert find_violations(ring) == []


# --- a flower ---------------------------------------------------------------------------
#
#   A red circle of radius 10 with three petals (radius 6, centred on red's outline at
#   90°, 210° and 330°). Each petal crosses red twice and no other petal, so 6 crossings.
#   Faces: outer (6 corners: one per crossing), red's inside minus the petals (6), and each
#   petal cut in two by red: an inner half and an outer half, 2 corners each. 24 corners.
#   Each petal crosses only one loop, which the checker must report.


@pytest.fixture
def flower() -> Board:
    lines = {"red": circle(0, 0, 10)}
    for colour, angle in zip(("yellow", "green", "blue"), (90, 210, 330), strict=True):
        a = math.radians(angle)
        lines[colour] = circle(10 * math.cos(a), 10 * math.sin(a), 6)
    return build_board(lines, {"yellow": (0, 16)})


def test_flower(flower: Board) -> None:
    assert len(flower.crossings) == 6
    assert len(flower.fields) == 8
    assert len(flower.outer_field.corners) == 6
    heart = field_containing(flower, 0, 0)
    assert len(flower.fields[heart].corners) == 6
    assert bounded_by_corners(flower) == Counter({6: 1, 2: 6})
    # The yellow knot is on the petal's outer arc: outer field and the petal's outer half.
    tip = field_containing(flower, 0, 14)
    assert {f.id for f in flower.fields if f.knots} == {flower.outer_field.id, tip}
    assert flower.outer_field.value == 7


def test_flower_petals_cross_too_few_loops(flower: Board) -> None:
    found = [v for v in find_violations(flower) if v.rule == LOOP_CROSSES_TOO_FEW]
    assert sorted(v.lines for v in found) == [("blue",), ("green",), ("yellow",)]


# --- a group of lines inside a field of another group ---------------------------------


def test_loop_crossing_nothing_inside_a_field_makes_a_hole() -> None:
    board = build_board(
        {"red": circle(0, 0, 10), "yellow": circle(12, 0, 10), "blue": circle(6, 0, 2)}
    )
    lens = field_containing(board, 6, 5)
    inside_blue = field_containing(board, 6, 0)
    assert len(board.crossings) == 2
    assert len(board.fields) == 5  # outer, two crescents, lens with a hole, inside blue
    assert len(board.fields[lens].corners) == 2
    assert board.fields[inside_blue].corners == ()
    assert sum(len(f.corners) for f in board.fields) == 8
    blue_problem = [v for v in find_violations(board) if v.lines == ("blue",)]
    assert len(blue_problem) == 1


# --- two sectors of one crossing ------------------------------------------------------
#
#   With simple closed loops no field owns two sectors of one crossing: such a field
#   would contain a closed curve through the crossing separating the two halves of one
#   loop at it, yet the loop joins them without passing the crossing. So geometry never
#   produces it; a report may still list a crossing twice for one field (test_report.py).


def test_sectors_agree_with_the_fields_when_a_vertex_lies_a_hair_past_a_crossing() -> None:
    # The green line's first vertex past the crossing at (0, 0) is 0.07 px away and a
    # hair below, while the line runs on a hair above: seen from the crossing, that
    # vertex points across the -x axis from the way the line goes (a traced loop,
    # resampled a string width apart, does this now and then).
    green = [(300, 0.1), (3.623, 0.18), (-0.072, -0.004), (-3.77, 0.185), (-300, 0.5),
             (-300, 300), (300, 300)]
    yellow = [(0, -200), (0, 150), (400, 150), (400, -200)]
    board = build_board({"green": green, "yellow": yellow}, {"green": None, "yellow": None})
    geometry = BoardGeometry(board)
    crossing = min(board.crossings, key=lambda c: math.hypot(*c.xy))
    polygons = {f.id: Polygon(f.polygon) for f in board.fields if f.polygon is not None}
    for dx, dy in ((-20, -20), (20, -20), (20, 20), (-20, 20)):
        foot = (crossing.xy[0] + dx, crossing.xy[1] + dy)
        inside = [i for i, polygon in polygons.items() if polygon.contains(Point(foot))]
        field = inside[0] if inside else 0
        located = locate_creatures(board, [Foot("demon", "green", foot)], pawn_radius=8.0)[0]
        assert located.creature.crossing == crossing.id
        assert located.creature.field == field, (dx, dy)
    assert geometry.field_at((-20.0, 20.0)) != 0


def test_no_field_owns_two_sectors_of_a_crossing(ring: Board, flower: Board) -> None:
    for board in (ring, flower):
        for f in board.fields:
            assert len(set(f.corners)) == len(f.corners)


# --- properties that hold whatever the orientation or scale ---------------------------


@pytest.mark.parametrize("flip_y", [False, True])
@pytest.mark.parametrize("scale", [0.01, 1.0, 300.0])
def test_topology_does_not_depend_on_frame(ring: Board, flip_y: bool, scale: float) -> None:
    sign = -1 if flip_y else 1
    lines = {
        ln.colour: [(x * scale, sign * y * scale) for x, y in ln.polyline] for ln in ring.lines
    }
    board = build_board(lines)
    assert topology_signature(board, lambda x, y: (x / scale, sign * y / scale)) == (
        topology_signature(ring)
    )


def test_polyline_direction_does_not_matter(ring: Board) -> None:
    lines = {ln.colour: list(reversed(ln.polyline)) for ln in ring.lines}
    assert topology_signature(build_board(lines)) == topology_signature(ring)


def test_repeated_closing_point_is_tolerated() -> None:
    red = circle(0, 0, 10)
    board = build_board({"red": [*red, red[0]], "blue": circle(12, 0, 10)})
    assert len(board.crossings) == 2


# --- bad input -------------------------------------------------------------------------


def test_loop_of_two_points_is_rejected() -> None:
    with pytest.raises(LayoutError, match="at least 3"):
        build_board({"red": [(0, 0), (1, 1)]})


def test_loop_of_repeated_points_is_rejected() -> None:
    with pytest.raises(LayoutError, match="at least 3"):
        build_board({"red": [(0, 0), (1, 1), (1, 1), (0, 0)]})


def test_non_numeric_points_are_rejected() -> None:
    with pytest.raises(LayoutError, match="points"):
        build_board({"red": [(0, 0), ("a", 1), (2, 2)]})


def test_self_crossing_loop_is_rejected() -> None:
    figure_eight = [(0, 0), (10, 10), (10, 0), (0, 10)]
    with pytest.raises(LayoutError, match="red loop crosses or touches itself"):
        build_board({"red": figure_eight})


def test_lines_overlapping_along_a_stretch_are_rejected() -> None:
    square = [(0, 0), (10, 0), (10, 10), (0, 10)]
    neighbour = [(10, 0), (20, 0), (20, 10), (10, 10)]
    with pytest.raises(LayoutError, match="overlap along a stretch"):
        build_board({"red": square, "blue": neighbour})


@pytest.mark.parametrize("shared", [1000, 500])
def test_long_overlapping_lines_are_said_to_overlap(shared: int) -> None:
    """Their segments meet thousands of times; that was told as "the lines cross far
    more often than a board's at most 200 crossings", and the reader passes it on."""
    red = circle(0, 0, 1000, n=1000)
    blue = [(0.9 * x, 0.9 * y) for x, y in red[: 1000 - shared]] + red[1000 - shared :]
    with pytest.raises(LayoutError, match="the red and blue lines overlap along a stretch"):
        build_board({"red": red, "blue": blue})


def test_lines_touching_without_crossing_are_rejected() -> None:
    diamond = [(0, 0), (10, 10), (0, 20), (-10, 10)]
    other = [(20, 0), (30, 10), (20, 20), (10, 10)]
    with pytest.raises(LayoutError, match="touch without crossing"):
        build_board({"red": diamond, "blue": other})


def test_three_lines_through_one_point_are_rejected() -> None:
    lines = {
        "red": [(-10, -1), (10, -1), (10, 1), (-10, 1)],
        "blue": [(-1, -10), (1, -10), (1, 10), (-1, 10)],
        "green": [(-9, -10), (-7, -10), (9, 10), (7, 10)],
    }
    # Move green so that it passes exactly through a red/blue crossing at (1, 1).
    lines["green"] = [(-5, -10), (-3, -10), (1, 1), (5, 10), (3, 10)]
    with pytest.raises(LayoutError, match="meet in one point"):
        build_board(lines)


def test_knot_on_a_crossing_is_rejected(two_circles: Board) -> None:
    lines = {ln.colour: ln.polyline for ln in two_circles.lines}
    on_crossing = two_circles.crossings[0].xy
    with pytest.raises(LayoutError, match="knot lies on a crossing"):
        build_board(lines, {"red": on_crossing})


def test_unknown_colour_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown line colour 'purple'"):
        build_board({"purple": circle(0, 0, 10)})


def test_empty_layout_is_rejected() -> None:
    with pytest.raises(LayoutError, match="at least one line"):
        build_board({})


def comb(teeth: int, shift: float = 0.0) -> list[tuple[float, float]]:
    """A loop with ``teeth`` long upright teeth, the whole width of a 4000-pixel photo."""
    step = 3800 / teeth
    points = [(100.0 + shift, 3500.0 + shift)]
    for k in range(teeth):
        left, right = 100 + (k + 0.25) * step + shift, 100 + (k + 0.75) * step + shift
        points += [(left, 3000 + shift), (left, 500 + shift), (right, 500 + shift),
                   (right, 3000 + shift)]
    return [*points, (3900.0 + shift, 3500.0 + shift)]


def across(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(y, x) for x, y in points]


@pytest.mark.parametrize("teeth", [100, 150, 1249])
def test_lines_crossing_thousands_of_times_are_refused_at_once(teeth: int) -> None:
    """Two combs across each other cross 4 × teeth² times: 150 teeth took minutes
    (every pair of crossings was compared), now they are refused before being found.
    (Not timed: were the refusal as slow as finding 6 million crossings, this test
    alone would take minutes.)"""
    with pytest.raises(LayoutError, match="far more often than a board's at most 200"):
        build_board({"red": comb(teeth), "blue": across(comb(teeth))})


def test_a_layout_near_the_most_crossings_is_built() -> None:
    board = build_board({"red": comb(10), "blue": across(comb(10, shift=1.0))})
    assert 150 < len(board.crossings) <= MAX_CROSSINGS
    with pytest.raises(LayoutError, match="cross 230 times"):
        build_board({"red": comb(11), "blue": across(comb(11, shift=1.0))})
