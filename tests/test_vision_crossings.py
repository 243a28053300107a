"""Crossings settled where the cords' smooth courses meet (:mod:`vision.crossings`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import pytest
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from engine.geometry import ring_crossings
from vision.crossings import (
    BLEND_WIDTHS,
    CORD_AGAIN_FROM_WIDTHS,
    CORD_HOLE_WIDTHS,
    CORD_REACH_WIDTHS,
    CORD_STRAY_WIDTHS,
    FIT_STRAY_WIDTHS,
    KINK_CHORD_POINTS,
    KINK_DEGREES,
    KINK_HOLE_WIDTHS,
    KINK_PAWN_WIDTHS,
    LEAST_ANGLE_DEG,
    NEAR_MARGIN_WIDTHS,
    PAWN_IN_STRING_WIDTHS,
    SETTLE_FROM_WIDTHS,
    SETTLE_MOST_WIDTHS,
    SMOOTH_TRACE_WIDTHS,
    TANGLE_STRAY_WIDTHS,
    TANGLE_WIDTHS,
    _cord_course,
    _course_through,
    _kinked_near,
    _kinks,
    draw_settled,
    settle_crossings,
)
from vision.detect import CordsNear
from vision.trace import Loop, Loops

WIDTH = 4.0
RADIUS = 200.0
RED_CENTRE, BLUE_CENTRE = (200.0, 300.0), (500.0, 300.0)
#: Where the two circles cross (the upper of the two).
CROSSING = (350.0, 300.0 - math.sqrt(RADIUS**2 - 150.0**2))


def circle(centre: tuple[float, float], count: int = 400) -> np.ndarray:
    angles = np.linspace(0, 2 * math.pi, count, endpoint=False)
    return np.column_stack(
        [centre[0] + RADIUS * np.cos(angles), centre[1] + RADIUS * np.sin(angles)]
    )


def pushed(points: np.ndarray, centre: tuple[float, float], at: tuple[float, float],
           offset: float, spread: float) -> np.ndarray:
    """``points`` of a circle pushed outward by ``offset`` at ``at``, less and less
    over ``spread`` either side (a trace pulled aside by a pawn's rim)."""
    radial = (points - centre) / np.linalg.norm(points - centre, axis=1)[:, None]
    near = np.linalg.norm(points - at, axis=1)
    return points + (offset * np.exp(-((near / spread) ** 2)))[:, None] * radial


def along_the_circle(
    centre: tuple[float, float], radius: float, start: tuple[float, float], distance: float
) -> tuple[float, float]:
    """The point ``distance`` along the circle from its point ``start`` (anticlockwise
    on the screen, where y runs down)."""
    angle = math.atan2(start[1] - centre[1], start[0] - centre[0]) - distance / radius
    return (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))


def with_a_rim(points: np.ndarray, centre: tuple[float, float], at: tuple[float, float],
               outward: bool = True) -> np.ndarray:
    """The circle ``points`` pulled a string width aside at ``at`` by a pawn's rim
    (outward, or inward)."""
    return pushed(points, centre, at, WIDTH if outward else -WIDTH, WIDTH)


def stray_round_the_crossing(points: np.ndarray, crossing: np.ndarray) -> float:
    """How far (string widths, root mean square) the loop's course through
    ``crossing`` keeps from its parabola."""
    course = _course_through(points, crossing, WIDTH)
    assert course is not None
    return course[1].stray / WIDTH


def loops_of(red: np.ndarray, red_knot: tuple[float, float] | None = None) -> Loops:
    return Loops(
        {
            "red": Loop("red", red, red_knot),
            "blue": Loop("blue", circle(BLUE_CENTRE), (BLUE_CENTRE[0] + RADIUS, BLUE_CENTRE[1])),
        },
        [],
    )


def read_crossing(loops: Loops) -> np.ndarray:
    """The upper crossing of the red and blue loops."""
    met = ring_crossings(
        LinearRing(loops.loops["red"].points), LinearRing(loops.loops["blue"].points)
    )
    assert met is not None and len(met) == 2
    return min(met, key=lambda xy: xy[1])


def test_a_crossing_kinked_aside_is_settled_where_the_courses_meet() -> None:
    kinked = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH))
    before = math.dist(read_crossing(kinked), CROSSING)
    assert before > 1.5 * WIDTH  # read aside, as the benchmark counts it
    settled = settle_crossings(kinked, WIDTH)
    # The fit takes in the kink too, so the crossing is not quite back: 2.3 -> 0.66 widths.
    assert math.dist(read_crossing(settled), CROSSING) < 0.75 * WIDTH
    # Away from the crossing the loop keeps its trace.
    far = np.linalg.norm(kinked.loops["red"].points - CROSSING, axis=1) > 8 * WIDTH
    assert np.array_equal(settled.loops["red"].points[far], kinked.loops["red"].points[far])
    far_blue = np.linalg.norm(kinked.loops["blue"].points - CROSSING, axis=1) > 8 * WIDTH
    assert np.array_equal(
        settled.loops["blue"].points[far_blue], kinked.loops["blue"].points[far_blue]
    )


def test_smooth_loops_and_small_kinks_are_left_as_they_are() -> None:
    smooth = loops_of(circle(RED_CENTRE))
    assert settle_crossings(smooth, WIDTH) is smooth
    # A kink moving the crossing less than SETTLE_FROM_WIDTHS: the trace is as good.
    small = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 0.3 * WIDTH, 1.5 * WIDTH))
    assert math.dist(read_crossing(small), CROSSING) < SETTLE_FROM_WIDTHS * WIDTH
    assert settle_crossings(small, WIDTH) is small


def test_a_course_that_is_no_smooth_curve_is_not_trusted() -> None:
    """A stretch wandering about its fit (a cord traced along shadows) says nothing of
    where the cord runs: the kink there stays."""
    points = pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH)
    angles = np.arctan2(points[:, 1] - RED_CENTRE[1], points[:, 0] - RED_CENTRE[0])
    wander = 1.5 * FIT_STRAY_WIDTHS * WIDTH * math.sqrt(2) * np.sin(angles * RADIUS / (2 * WIDTH))
    # Not at the crossing itself: the loops still cross there once.
    wander *= 1 - np.exp(-((np.linalg.norm(points - CROSSING, axis=1) / (4 * WIDTH)) ** 2))
    radial = (points - RED_CENTRE) / np.linalg.norm(points - RED_CENTRE, axis=1)[:, None]
    wandering = loops_of(points + wander[:, None] * radial)
    assert settle_crossings(wandering, WIDTH) is wandering


def test_a_knot_near_a_settled_crossing_stays_on_its_loop() -> None:
    points = pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH)
    knot_index = int(np.argmin(np.linalg.norm(points - CROSSING, axis=1))) + 2
    knot = (float(points[knot_index, 0]), float(points[knot_index, 1]))
    settled = settle_crossings(loops_of(points, knot), WIDTH)
    new_knot = settled.loops["red"].knot
    assert new_knot is not None and new_knot != knot
    ring = LinearRing(settled.loops["red"].points)
    assert ring.distance(ShapelyPoint(new_knot)) < 1e-6


def test_a_string_width_read_too_wide_for_the_pawns_is_taken_as_a_seventh_of_a_pawn() -> None:
    kinked = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH))
    right = settle_crossings(kinked, WIDTH)
    # Read five times too wide, the kink is under the least move and stays...
    assert settle_crossings(kinked, 5 * WIDTH) is kinked
    # ...unless the pawn width says a string is at most a seventh of it.
    capped = settle_crossings(kinked, 5 * WIDTH, pawn_width=PAWN_IN_STRING_WIDTHS * WIDTH)
    assert np.array_equal(capped.loops["red"].points, right.loops["red"].points)
    # A pawn width that allows the width read changes nothing.
    roomy = settle_crossings(kinked, WIDTH, pawn_width=2 * PAWN_IN_STRING_WIDTHS * WIDTH)
    assert np.array_equal(roomy.loops["red"].points, right.loops["red"].points)


def test_a_width_that_is_no_positive_number_is_refused() -> None:
    for width in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="string_width"):
            settle_crossings(loops_of(circle(RED_CENTRE)), width)
        with pytest.raises(ValueError, match="pawn_width"):
            settle_crossings(loops_of(circle(RED_CENTRE)), WIDTH, width)


def test_the_debug_picture_rings_each_crossing_that_moved() -> None:
    rgb = np.full((500, 800, 3), 200, np.uint8)
    kinked = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH))
    settled = settle_crossings(kinked, WIDTH)
    new = read_crossing(settled)
    picture = draw_settled(rgb, kinked, settled)
    assert picture.shape == rgb.shape and picture.dtype == np.uint8
    magenta = np.all(picture == (255, 0, 255), axis=2)
    ys, xs = np.nonzero(magenta)
    assert len(xs) > 0
    assert np.all(np.hypot(xs - new[0], ys - new[1]) < 12)  # only round the one that moved
    unmoved = draw_settled(rgb, settled, settled)
    assert not np.all(unmoved == (255, 0, 255), axis=2).any()


def test_a_crossing_is_not_settled_past_a_third_loops_crossing() -> None:
    """Settling moves crossings, never the board's layout: where the settled crossing
    would pass a third loop's crossing along the loops, it stays."""
    kinked = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2.5 * WIDTH, 1.5 * WIDTH))
    old = read_crossing(kinked)
    assert math.dist(read_crossing(settle_crossings(kinked, WIDTH)), CROSSING) < 0.75 * WIDTH
    # A green loop crossing blue between the crossing as traced and as it would settle.
    blue = (np.asarray(CROSSING) + old) / 2 - BLUE_CENTRE
    middle = BLUE_CENTRE + RADIUS * blue / np.linalg.norm(blue)
    tangent = np.array([-blue[1], blue[0]]) / np.linalg.norm(blue)
    green_centre = middle + 300.0 * tangent
    angles = np.linspace(0, 2 * math.pi, 600, endpoint=False)
    green = green_centre + 300.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    three = Loops({**kinked.loops, "green": Loop("green", green, None)}, [])
    assert settle_crossings(three, WIDTH) is three


def test_cords_crossing_at_a_shallow_angle_are_not_settled() -> None:
    """Where the fits cross at under LEAST_ANGLE_DEG a small error across the cords is
    a large one along them."""
    # Two large circles, their centres 2 R cos(a / 2) apart, cross at the angle a.
    big, half = 2000.0, math.radians(0.8 * LEAST_ANGLE_DEG / 2)
    gap = 2 * big * math.cos(half)
    angles = np.linspace(0, 2 * math.pi, 4000, endpoint=False)
    ring = np.column_stack([np.cos(angles), np.sin(angles)]) * big
    red, blue = ring + (0.0, 0.0), ring + (0.0, gap)
    meet = np.array([big * math.sin(half), gap / 2])
    red = pushed(red, (0.0, 0.0), tuple(meet), 0.5 * WIDTH, 1.5 * WIDTH)
    shallow = Loops({"red": Loop("red", red, None), "blue": Loop("blue", blue, None)}, [])
    assert settle_crossings(shallow, WIDTH) is shallow


#: A pawn's reach that takes in every kink.
ANY_REACH = 1e6


def _kinked(points: np.ndarray, crossing: np.ndarray, feet: np.ndarray | None = None) -> bool:
    """Whether the loop ``points`` turns by KINK_DEGREES or more within KINK_NEAR_WIDTHS
    of ``crossing`` (and within a pawn's reach of one of ``feet``, where given)."""
    if feet is None:
        feet, reach = np.asarray([crossing]), ANY_REACH
    else:
        reach = KINK_PAWN_WIDTHS * PAWN_IN_STRING_WIDTHS * WIDTH
    return _kinked_near(_kinks(points, WIDTH, feet, reach), crossing, WIDTH)


#: Where the trace below is pulled to: a red pawn's foot five widths out from the crossing.
PULLED_TO = np.asarray(CROSSING) + 5 * WIDTH * (
    (np.asarray(CROSSING) - RED_CENTRE) / np.linalg.norm(np.asarray(CROSSING) - RED_CENTRE)
)
RED_PAWN = {"red": PULLED_TO[None]}


def kinked_to_a_pawn() -> np.ndarray:
    """The red circle pulled five string widths outward at the crossing, over two
    either side: a trace drawn to a pawn of its colour beside the crossing."""
    return pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 5 * WIDTH, 2 * WIDTH)


@pytest.mark.parametrize("turned", ["as it is", "rolled", "reversed"])
def test_a_trace_kinked_to_a_pawn_is_laid_on_its_course_fitted_without_the_kink(
    turned: str,
) -> None:
    points = kinked_to_a_pawn()
    # (Wherever the loop's first point lies, and whichever way it runs.)
    at = int(np.argmin(np.linalg.norm(points - CROSSING, axis=1)))
    points = {"as it is": points, "rolled": np.roll(points, -at - 2, axis=0),
              "reversed": points[::-1]}[turned]
    kinked = loops_of(points)
    old = read_crossing(kinked)
    assert math.dist(old, CROSSING) > 4 * WIDTH
    # Its course with the kink in is no smooth curve: the first pass leaves it.
    assert stray_round_the_crossing(kinked.loops["red"].points, old) > FIT_STRAY_WIDTHS
    assert _kinked(kinked.loops["red"].points, old, RED_PAWN["red"])
    settled = settle_crossings(kinked, WIDTH, pawn_feet=RED_PAWN)
    new = read_crossing(settled)
    assert math.dist(new, CROSSING) < 0.1 * WIDTH
    assert not _kinked(settled.loops["red"].points, new)
    assert LinearRing(settled.loops["red"].points).is_simple
    # The other loop is not kinked and keeps its trace; the kinked one keeps its trace
    # away from the hole and the easing beyond it.
    assert np.array_equal(settled.loops["blue"].points, kinked.loops["blue"].points)
    red = settled.loops["red"].points
    far = np.linalg.norm(red - CROSSING, axis=1) > (KINK_HOLE_WIDTHS + BLEND_WIDTHS + 1) * WIDTH
    before = {tuple(xy) for xy in kinked.loops["red"].points.tolist()}
    assert far.sum() > len(red) / 2
    assert all(tuple(xy) in before for xy in red[far].tolist())


def test_a_kink_with_no_pawn_of_its_colour_beside_it_stays() -> None:
    """A cord may bend sharply where it snagged: a kink is taken for a trace pulled
    aside only beside a pawn of the loop's colour."""
    kinked = loops_of(kinked_to_a_pawn())
    assert settle_crossings(kinked, WIDTH) is kinked  # no pawns given
    assert settle_crossings(kinked, WIDTH, pawn_feet={"blue": PULLED_TO[None]}) is kinked
    far = PULLED_TO + (KINK_PAWN_WIDTHS * PAWN_IN_STRING_WIDTHS + 5) * WIDTH * np.array([0, -1])
    assert settle_crossings(kinked, WIDTH, pawn_feet={"red": far[None]}) is kinked
    assert settle_crossings(kinked, WIDTH, pawn_feet=RED_PAWN) is not kinked


def test_a_kinked_trace_whose_course_round_the_kink_is_no_smooth_curve_stays() -> None:
    """Where the trace wanders about its course beyond the kink too (a cord traced
    along shadows), the fit without the kink says nothing of where the cord runs."""
    points = kinked_to_a_pawn()
    angles = np.arctan2(points[:, 1] - RED_CENTRE[1], points[:, 0] - RED_CENTRE[0])
    wander = 1.5 * FIT_STRAY_WIDTHS * WIDTH * math.sqrt(2) * np.sin(angles * RADIUS / (2 * WIDTH))
    wander *= 1 - np.exp(-((np.linalg.norm(points - CROSSING, axis=1) / (4 * WIDTH)) ** 2))
    radial = (points - RED_CENTRE) / np.linalg.norm(points - RED_CENTRE, axis=1)[:, None]
    wandering = loops_of(points + wander[:, None] * radial)
    assert _kinked(wandering.loops["red"].points, read_crossing(wandering), RED_PAWN["red"])
    assert settle_crossings(wandering, WIDTH, pawn_feet=RED_PAWN) is wandering


def test_a_kink_beside_a_crossing_read_in_its_place_leaves_the_loop() -> None:
    """A kink a few widths along the loop from a crossing the trace reads in its place
    (a knot's tail left on it, a pawn's rim): the course without it meets the other
    loop where the loops cross already, and nothing is laid anew."""
    beside = along_the_circle(RED_CENTRE, RADIUS, CROSSING, 3 * WIDTH)
    points = pushed(circle(RED_CENTRE), RED_CENTRE, beside, 3 * WIDTH, 0.7 * WIDTH)
    loops = loops_of(points)
    assert math.dist(read_crossing(loops), CROSSING) < 0.1 * WIDTH
    assert _kinked(points, np.asarray(CROSSING), np.asarray([beside]))
    assert settle_crossings(loops, WIDTH, pawn_feet={"red": np.asarray([beside])}) is loops


def test_a_kinked_crossing_is_moved_no_farther_than_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kinked = loops_of(kinked_to_a_pawn())
    move = math.dist(read_crossing(kinked), CROSSING) / WIDTH
    monkeypatch.setattr("vision.crossings.KINK_SETTLE_MOST_WIDTHS", 0.9 * move)
    assert settle_crossings(kinked, WIDTH, pawn_feet=RED_PAWN) is kinked
    monkeypatch.setattr("vision.crossings.KINK_SETTLE_MOST_WIDTHS", 1.1 * move)
    assert settle_crossings(kinked, WIDTH, pawn_feet=RED_PAWN) is not kinked


def test_a_cord_bending_less_than_the_kink_angle_is_not_kinked() -> None:
    """On a circle, the chords KINK_CHORD_POINTS points (string widths) before and after
    a point turn by about their length over the radius: a tight bend of a cord is no
    kink, a tighter one is."""
    turning = math.radians(KINK_DEGREES)
    chord = KINK_CHORD_POINTS * WIDTH
    for radius, kinked in ((1.3 * chord / turning, False), (0.8 * chord / turning, True)):
        angles = np.linspace(0, 2 * math.pi, 200, endpoint=False)
        ring = radius * np.column_stack([np.cos(angles), np.sin(angles)])
        assert _kinked(ring, ring[0]) is kinked
    # Nor is a crossing farther from the kink than KINK_NEAR_WIDTHS.
    points = kinked_to_a_pawn()
    far_off = along_the_circle(RED_CENTRE, RADIUS, CROSSING, 15 * WIDTH)
    assert not _kinked(points, np.asarray(far_off))


# On the cord maps.


def cord_map(points: np.ndarray, thickness: float = WIDTH) -> np.ndarray:
    """A cord map (0..255) sure of a band ``thickness`` wide along the closed ``points``,
    blurred as the detector's map is."""
    cord = np.zeros((700, 800), np.uint8)
    cv2.polylines(cord, [np.round(points).astype(np.int32)], True, 255, round(thickness))
    return cv2.GaussianBlur(cord, (0, 0), WIDTH / 4)


def cords_at_the_circles() -> dict[str, np.ndarray]:
    return {"red": cord_map(circle(RED_CENTRE)), "blue": cord_map(circle(BLUE_CENTRE))}


def smoothly_along_a_shadow() -> Loops:
    """The red loop traced two string widths outward over a long stretch round the
    crossing, smoothly (along the cord's shadow): the course fits see no kink."""
    return loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 1.8 * WIDTH, 10 * WIDTH))


def traced_along_a_shadow() -> Loops:
    """As :func:`smoothly_along_a_shadow`, and pulled aside once more by a pawn's rim
    four string widths from the crossing: a trace that does not run smooth there."""
    rim = along_the_circle(RED_CENTRE, RADIUS, CROSSING, 4 * WIDTH)
    red = with_a_rim(circle(RED_CENTRE), RED_CENTRE, rim)
    return loops_of(pushed(red, RED_CENTRE, CROSSING, 1.8 * WIDTH, 10 * WIDTH))


def test_the_scenes_traces_are_as_smooth_as_they_say() -> None:
    """The scenes below stand on either side of SMOOTH_TRACE_WIDTHS (and within
    FIT_STRAY_WIDTHS: the first pass trusts their fits)."""
    smooth, rimmed = smoothly_along_a_shadow(), traced_along_a_shadow()
    assert stray_round_the_crossing(smooth.loops["red"].points, read_crossing(smooth)) < (
        0.8 * SMOOTH_TRACE_WIDTHS
    )
    rimmed_stray = stray_round_the_crossing(rimmed.loops["red"].points, read_crossing(rimmed))
    assert 1.5 * SMOOTH_TRACE_WIDTHS < rimmed_stray < FIT_STRAY_WIDTHS
    for loops in (smooth, rimmed):
        blue = loops.loops["blue"].points
        assert stray_round_the_crossing(blue, read_crossing(loops)) < 0.1 * SMOOTH_TRACE_WIDTHS


def test_traces_running_smooth_through_a_crossing_are_taken_as_they_are() -> None:
    """Where both traces run smooth through a crossing, its cord maps are not looked
    at: here they show it two widths away, as the maps of a pawn's rim or a shadow's
    edge beside a cord that was traced right would. (A cord traced smoothly along its
    shadow looks the same to this step, and is now left aside: the price of the gate,
    measured smaller than what it wins; see SMOOTH_TRACE_WIDTHS.)"""
    smooth = smoothly_along_a_shadow()
    assert math.dist(read_crossing(smooth), CROSSING) > 1.5 * WIDTH
    asked: list[tuple[tuple[float, float], float]] = []
    look = closer_look(cords_at_the_circles(), asked)
    kept = settle_crossings(smooth, WIDTH, cords=cords_at_the_circles(), cords_near=look)
    assert kept is smooth and asked == []


def test_a_crossing_traced_aside_along_a_shadow_is_settled_on_the_cord_maps() -> None:
    aside = traced_along_a_shadow()
    assert math.dist(read_crossing(aside), CROSSING) > 1.5 * WIDTH
    # The smooth courses meet where the loops cross: the first pass leaves them.
    assert settle_crossings(aside, WIDTH) is aside
    settled = settle_crossings(aside, WIDTH, cords=cords_at_the_circles())
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH
    # Beyond the stretch laid on the line, the loop keeps its trace.
    far = np.linalg.norm(aside.loops["red"].points - CROSSING, axis=1) > 8 * WIDTH
    assert np.array_equal(settled.loops["red"].points[far], aside.loops["red"].points[far])


def aside_by(widths: float, spread: float) -> Loops:
    """The red loop traced ``widths`` string widths outward at the crossing, less and
    less over ``spread`` widths either side, and kinked by a pawn's rim (so that its
    trace does not run smooth there)."""
    rim = along_the_circle(RED_CENTRE, RADIUS, CROSSING, 4 * WIDTH)
    red = with_a_rim(circle(RED_CENTRE), RED_CENTRE, rim)
    return loops_of(pushed(red, RED_CENTRE, CROSSING, widths * WIDTH, spread * WIDTH))


def test_a_crossing_traced_four_widths_aside_is_settled_on_the_cord_maps() -> None:
    """Farther than the first pass moves a crossing (SETTLE_MOST_WIDTHS), within
    CORD_SETTLE_MOST_WIDTHS: the maps show the cords themselves, not the trace."""
    aside = aside_by(4.0, 3.0)
    assert math.dist(read_crossing(aside), CROSSING) > SETTLE_MOST_WIDTHS * WIDTH
    settled = settle_crossings(aside, WIDTH, cords=cords_at_the_circles())
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH


def test_a_crossing_moved_part_of_the_way_is_looked_at_again_where_it_was_moved() -> None:
    """Traced aside over a long stretch, the cord lies outside the band round the trace
    near the crossing: the maps' fit there meets a width short of the crossing. Looked
    at again round the course it was laid on, it comes to its place."""
    aside = aside_by(3.5, 8.0)
    asked: list[tuple[tuple[float, float], float]] = []
    look = closer_look(cords_at_the_circles(), asked)
    settled = settle_crossings(aside, WIDTH, cords=cords_at_the_circles(), cords_near=look)
    assert math.dist(read_crossing(settled), CROSSING) < 0.25 * WIDTH
    first, again = asked
    assert math.dist(first[0], read_crossing(aside)) < 0.1 * WIDTH
    assert math.dist(first[0], again[0]) > CORD_AGAIN_FROM_WIDTHS * WIDTH
    assert 0.5 * WIDTH < math.dist(again[0], CROSSING) < 1.5 * WIDTH


def test_a_crossing_looked_at_again_is_moved_no_farther_than_the_limit_in_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scene above, its crossing traced 3.5 widths aside, with the limit at 3:
    the first move (2.6 widths) is within it, the second would take it past."""
    aside = aside_by(3.5, 8.0)
    monkeypatch.setattr("vision.crossings.CORD_SETTLE_MOST_WIDTHS", 3.0)
    asked: list[tuple[tuple[float, float], float]] = []
    look = closer_look(cords_at_the_circles(), asked)
    settled = settle_crossings(aside, WIDTH, cords=cords_at_the_circles(), cords_near=look)
    assert len(asked) == 2  # looked at again, and not moved
    assert math.dist(read_crossing(settled), asked[1][0]) < 0.01 * WIDTH
    assert math.dist(read_crossing(settled), read_crossing(aside)) <= 3.0 * WIDTH


def test_cord_maps_that_agree_with_the_trace_leave_the_loops() -> None:
    smooth = loops_of(circle(RED_CENTRE))
    assert settle_crossings(smooth, WIDTH, cords=cords_at_the_circles()) is smooth


def test_a_missing_cord_map_leaves_the_crossing() -> None:
    aside = traced_along_a_shadow()
    only_red = {"red": cords_at_the_circles()["red"]}
    assert settle_crossings(aside, WIDTH, cords=only_red) is aside
    assert settle_crossings(aside, WIDTH, cords={}) is aside


def test_a_cord_map_spread_across_its_course_is_not_trusted() -> None:
    """A map that shows two bands along the course (the cord and its shadow, or the
    rims of a pawn of its colour) spreads over more than CORD_STRAY_WIDTHS across it:
    it says no more than the trace."""
    course = np.column_stack([np.linspace(100, 200, 101), np.full(101, 150.0)])
    crossing = np.array([150.0, 150.0])

    def bands(*rows: float) -> np.ndarray:
        cord = np.zeros((300, 300), np.uint8)
        for row in rows:
            cv2.line(cord, (90, round(row)), (210, round(row)), 255, round(WIDTH))
        return cord

    one = _cord_course(bands(150), course, crossing, WIDTH)
    assert one is not None and one.stray < 0.5 * WIDTH
    # Two bands 3 string widths apart spread more than the limit allows (1.18 widths,
    # as clipped by the band taken round the course).
    assert CORD_STRAY_WIDTHS < 1.2
    spread = 1.5 * WIDTH
    assert _cord_course(bands(150 - spread, 150 + spread), course, crossing, WIDTH) is None


def test_a_cord_map_seen_on_one_side_of_the_crossing_only_is_not_trusted() -> None:
    aside = traced_along_a_shadow()
    one_sided = cords_at_the_circles()
    red = one_sided["red"].copy()
    # Cut the red band off above the crossing (where the red circle runs up and left
    # of it), beyond the hole left at the crossing itself.
    top = round(CROSSING[1] - CORD_HOLE_WIDTHS * WIDTH)
    red[:top, : round(CROSSING[0]) + 1] = 0
    one_sided["red"] = red
    assert settle_crossings(aside, WIDTH, cords=one_sided) is aside


def test_cord_maps_cut_short_of_the_loops_still_settle() -> None:
    """Maps that end short of the loops (the photo's edge, 200 rows here) are read as
    far as they go."""
    cut = {colour: cord[:200].copy() for colour, cord in cords_at_the_circles().items()}
    settled = settle_crossings(traced_along_a_shadow(), WIDTH, cords=cut)
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH


def test_cords_crossing_at_a_shallow_angle_are_not_settled_on_their_maps() -> None:
    """Two great circles crossing at under LEAST_ANGLE_DEG: a small error across the
    cords is a large one along them."""
    big, half = 2000.0, math.radians(0.8 * LEAST_ANGLE_DEG / 2)
    gap = 2 * big * math.cos(half)
    angles = np.linspace(0, 2 * math.pi, 4000, endpoint=False)
    ring = np.column_stack([np.cos(angles), np.sin(angles)]) * big
    shift = np.array([300.0, 300.0]) - np.array([big * math.sin(half), gap / 2])
    red, blue = ring + shift, ring + (0.0, gap) + shift

    def band(points: np.ndarray) -> np.ndarray:
        cord = np.zeros((600, 600), np.uint8)
        cv2.polylines(cord, [np.round(points).astype(np.int32)], True, 255, round(WIDTH))
        return cv2.GaussianBlur(cord, (0, 0), WIDTH / 4)

    # The red trace pulled aside by a rim near the crossing (inward, away from the blue
    # cord, so that the loops still cross twice): it does not run smooth there.
    red_centre = (float(shift[0]), float(shift[1]))
    rim = along_the_circle(red_centre, big, (300.0, 300.0), 4 * WIDTH)
    rimmed = with_a_rim(red, red_centre, rim, outward=False)
    aside = pushed(rimmed, red_centre, (300.0, 300.0), 0.4 * WIDTH, 10 * WIDTH)
    shallow = Loops({"red": Loop("red", aside, None), "blue": Loop("blue", blue, None)}, [])
    met = ring_crossings(LinearRing(aside), LinearRing(blue))
    assert met is not None and len(met) == 2
    near = min(met, key=lambda xy: math.dist(xy, (300.0, 300.0)))
    assert stray_round_the_crossing(aside, near) > 1.5 * SMOOTH_TRACE_WIDTHS
    cords = {"red": band(red), "blue": band(blue)}
    assert settle_crossings(shallow, WIDTH, cords=cords) is shallow


def test_the_other_cord_marked_at_the_crossing_is_left_out() -> None:
    """Where the maps blur into each other at the crossing (each marks the other cord
    there), the hole left round it keeps the other cord out of the fit."""
    cords = cords_at_the_circles()
    rows, columns = np.mgrid[:700, :800]
    near = np.hypot(columns - CROSSING[0], rows - CROSSING[1]) < 3 * WIDTH
    both = np.maximum(cords["red"], cords["blue"])
    red, blue = cords["red"].copy(), cords["blue"].copy()
    red[near], blue[near] = both[near], both[near]
    settled = settle_crossings(traced_along_a_shadow(), WIDTH, cords={"red": red, "blue": blue})
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH


# On a closer look's cord maps.


def closer_look(
    cords: dict[str, np.ndarray], asked: list[tuple[tuple[float, float], float]]
) -> Callable[[tuple[float, float], float], CordsNear]:
    """A stand-in for the detector's closer look: ``cords`` cut to the square asked
    for, with where it starts; each question is noted in ``asked``."""

    def look(xy: tuple[float, float], reach: float) -> CordsNear:
        asked.append((xy, reach))
        left, top = max(int(xy[0] - reach), 0), max(int(xy[1] - reach), 0)
        right, bottom = int(xy[0] + reach) + 1, int(xy[1] + reach) + 1
        return CordsNear(
            {colour: cord[top:bottom, left:right] for colour, cord in cords.items()}, (left, top)
        )

    return look


def with_its_shadow(loops: Loops) -> dict[str, np.ndarray]:
    """The first look's maps of a cord of the table's hue: the cord's band and its
    shadow's beside it, as one wide band (here the red cord's shadow along the trace)."""
    cords = cords_at_the_circles()
    cords["red"] = np.maximum(cords["red"], cord_map(loops.loops["red"].points))
    return cords


def test_a_crossing_is_settled_on_the_closer_look_where_its_maps_fit_more_tightly() -> None:
    """The first look's map of the red cord takes in its shadow along the trace: its fit
    lies between the two and keeps farther from its pixels. A closer look round each
    crossing sees the cords where they run, in maps of its own part of the photo."""
    aside = traced_along_a_shadow()
    first = with_its_shadow(aside)
    on_the_first = settle_crossings(aside, WIDTH, cords=first)
    assert math.dist(read_crossing(on_the_first), CROSSING) > 0.75 * WIDTH
    asked: list[tuple[tuple[float, float], float]] = []
    look = closer_look(cords_at_the_circles(), asked)
    settled = settle_crossings(aside, WIDTH, cords=first, cords_near=look)
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH
    # Asked once, round the crossing whose trace does not run smooth (the lower one
    # does), as far as the fits reach and more (not again where the maps moved it to:
    # it moved less than CORD_AGAIN_FROM_WIDTHS).
    assert len(asked) == 1
    assert math.dist(asked[0][0], CROSSING) < 2 * WIDTH
    assert asked[0][1] == (CORD_REACH_WIDTHS + NEAR_MARGIN_WIDTHS) * WIDTH


def test_the_first_look_is_kept_where_the_closer_looks_maps_fit_less_tightly() -> None:
    """The closer look marks a pawn's rim beside the red cord too (the network sees
    pawns far larger than it learned): there the first look's map, one band, is kept."""
    aside = traced_along_a_shadow()
    rimmed = cords_at_the_circles()
    rimmed["red"] = np.maximum(rimmed["red"], cord_map(aside.loops["red"].points))
    asked: list[tuple[tuple[float, float], float]] = []
    settled = settle_crossings(
        aside, WIDTH, cords=cords_at_the_circles(), cords_near=closer_look(rimmed, asked)
    )
    assert asked
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH
    assert math.dist(read_crossing(settle_crossings(aside, WIDTH, cords=rimmed)), CROSSING) > (
        0.75 * WIDTH
    )


def test_a_closer_look_cut_at_the_photos_edge_still_settles() -> None:
    """A part cut short by the photo's edge (200 rows here, the crossing 33 rows
    above it) is read as far as it goes."""
    cut = {colour: cord[:200].copy() for colour, cord in cords_at_the_circles().items()}
    asked: list[tuple[tuple[float, float], float]] = []
    settled = settle_crossings(traced_along_a_shadow(), WIDTH, cords_near=closer_look(cut, asked))
    assert math.dist(read_crossing(settled), CROSSING) < 0.5 * WIDTH


def test_a_closer_look_that_shows_no_cord_leaves_the_first_looks_say() -> None:
    aside = traced_along_a_shadow()
    asked: list[tuple[tuple[float, float], float]] = []
    nothing = closer_look({}, asked)
    alone = settle_crossings(aside, WIDTH, cords_near=nothing)
    assert asked and alone is aside
    with_first = settle_crossings(aside, WIDTH, cords=cords_at_the_circles(), cords_near=nothing)
    first_only = settle_crossings(aside, WIDTH, cords=cords_at_the_circles())
    assert np.array_equal(with_first.loops["red"].points, first_only.loops["red"].points)
    assert math.dist(read_crossing(with_first), CROSSING) < 0.5 * WIDTH


def test_a_trace_smooth_once_settled_on_its_course_is_not_looked_at_on_the_maps() -> None:
    """A crossing the first pass laid on the loops' fits may run smooth then (here a
    narrow kink, a width wide): the cord maps (marking the red cord's shadow two widths
    outward) are not looked at there. (A wider kink, laid on its fit, may still stray
    more than SMOOTH_TRACE_WIDTHS, and the maps are looked at.)"""
    kinked = loops_of(pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 1.8 * WIDTH, WIDTH))
    assert stray_round_the_crossing(kinked.loops["red"].points, read_crossing(kinked)) > (
        3 * SMOOTH_TRACE_WIDTHS
    )
    assert math.dist(read_crossing(kinked), CROSSING) > 1.5 * WIDTH
    first = settle_crossings(kinked, WIDTH)
    assert math.dist(read_crossing(first), CROSSING) < 0.5 * WIDTH
    laid = first.loops["red"].points
    assert stray_round_the_crossing(laid, read_crossing(first)) < SMOOTH_TRACE_WIDTHS
    shadow = pushed(circle(RED_CENTRE), RED_CENTRE, CROSSING, 2 * WIDTH, 10 * WIDTH)
    cords = {"red": cord_map(shadow), "blue": cords_at_the_circles()["blue"]}
    asked: list[tuple[tuple[float, float], float]] = []
    both = settle_crossings(kinked, WIDTH, cords=cords, cords_near=closer_look(cords, asked))
    assert asked == []
    assert np.array_equal(both.loops["red"].points, first.loops["red"].points)


def _apart_circles(gap: float) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """A red and a blue circle of RADIUS whose centres lie 2 * RADIUS - ``gap`` apart
    (``gap`` > 0: they cross at a shallow angle; < 0: they pass ``-gap`` apart), and
    where they cross (the upper crossing), or the red one's point nearest the blue."""
    red_centre, blue_centre = (200.0, 300.0), (200.0 + 2 * RADIUS - gap, 300.0)
    middle = min((red_centre[0] + blue_centre[0]) / 2, red_centre[0] + RADIUS)
    lift = math.sqrt(RADIUS**2 - (middle - red_centre[0]) ** 2)
    return circle(red_centre, 1600), circle(blue_centre, 1600), (middle, 300.0 - lift)


def _s_kinked(points: np.ndarray, centre: tuple[float, float], at: tuple[float, float],
              slope: float, spread: float) -> np.ndarray:
    """The circle ``points`` pushed across, by ``slope`` times the distance along it
    from ``at`` (one way before, the other way after), dying away over ``spread``: two
    traces bridging a pawn that hides their crossing, each its own way."""
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    at_angle = math.atan2(at[1] - centre[1], at[0] - centre[0])
    along = RADIUS * ((angles - at_angle + math.pi) % (2 * math.pi) - math.pi)
    across = -slope * along * np.exp(-((along / spread) ** 2))
    radial = (points - centre) / np.linalg.norm(points - centre, axis=1)[:, None]
    return points + across[:, None] * radial


def _crossings(loops: Loops) -> np.ndarray:
    met = ring_crossings(
        LinearRing(loops.loops["red"].points), LinearRing(loops.loops["blue"].points)
    )
    assert met is not None
    return met


def test_traces_tangled_where_their_cords_cross_once_are_laid_to_cross_once() -> None:
    red, blue, crossing = _apart_circles(20.0)
    red = _s_kinked(red, (200.0, 300.0), crossing, 1.5, 3 * WIDTH)
    tangled = Loops({"red": Loop("red", red, None), "blue": Loop("blue", blue, None)}, [])
    near = [xy for xy in _crossings(tangled) if math.dist(xy, crossing) < 4 * WIDTH]
    assert len(near) == 3  # the tangle, within TANGLE_WIDTHS of each other
    assert max(math.dist(a, b) for a in near for b in near) < TANGLE_WIDTHS * WIDTH
    settled = settle_crossings(tangled, WIDTH)
    after = _crossings(settled)
    assert len(after) == 2  # the tangle's one crossing, and the circles' lower one
    assert min(math.dist(xy, crossing) for xy in after) < WIDTH
    # Away from the tangle both loops keep their traces.
    for colour in ("red", "blue"):
        far = np.linalg.norm(tangled.loops[colour].points - crossing, axis=1) > 10 * WIDTH
        assert np.array_equal(settled.loops[colour].points[far], tangled.loops[colour].points[far])


def test_a_tangle_bent_round_a_pawn_is_undone_on_its_course_without_the_kink() -> None:
    """A trace bent round a pawn of its colour that stands where the cords cross kinks
    there and crosses the other three times; its course with the bend in strays too
    far to be trusted, and is fitted without the kink (1320148)."""
    red, blue, crossing = _apart_circles(20.0)
    red = _s_kinked(red, (200.0, 300.0), crossing, 3.0, 3 * WIDTH)
    course = _course_through(red, np.asarray(crossing), WIDTH)
    assert course is not None and course[1].stray > TANGLE_STRAY_WIDTHS * WIDTH
    assert _kinked(red, np.asarray(crossing))
    tangled = Loops({"red": Loop("red", red, None), "blue": Loop("blue", blue, None)}, [])
    assert len([xy for xy in _crossings(tangled) if math.dist(xy, crossing) < 8 * WIDTH]) == 3
    # Not without a pawn of the kinked loop's colour there...
    assert len(_crossings(settle_crossings(tangled, WIDTH))) == 4
    # ...which stands on the crossing.
    after = _crossings(settle_crossings(tangled, WIDTH, pawn_feet={"red": np.asarray([crossing])}))
    assert len(after) == 2
    assert min(math.dist(xy, crossing) for xy in after) < 0.25 * WIDTH


#: 1780199's blue and green traces round their tangle (working pixels from its middle,
#: string width 3.82): a blue demon stands where the cords cross, and the blue trace
#: hooks round the blue knot's tails beside it before it crosses the green three times.
HOOKED_BLUE = [
    (27, -51), (24, -48), (22, -45), (19, -42), (17, -39), (15, -36), (13, -33), (11, -29),
    (9, -26), (6, -23), (4, -20), (3, -17), (2, -14), (3, -11), (4, -8), (7, -6), (10, -5),
    (12, -4), (12, -3), (9, -3), (5, -2), (1, -2), (-2, -2), (-6, -1), (-8, 0), (-9, 3),
    (-9, 6), (-9, 10), (-10, 13), (-11, 17), (-13, 20), (-14, 23), (-14, 27), (-15, 30),
    (-16, 34), (-17, 37), (-17, 41), (-17, 45), (-18, 49), (-18, 52), (-19, 56),
]
GREEN_ACROSS = [
    (52, -24), (49, -23), (45, -22), (42, -20), (38, -19), (35, -18), (31, -16), (28, -14),
    (25, -13), (21, -11), (18, -9), (15, -7), (11, -5), (8, -3), (5, -1), (1, 1), (-2, 3),
    (-5, 5), (-8, 7), (-11, 9), (-15, 11), (-18, 13), (-21, 15), (-24, 17), (-27, 19),
    (-30, 21), (-33, 23), (-36, 25), (-39, 26), (-42, 28), (-45, 30), (-48, 32),
]


def _closed_through(trace: list[tuple[int, int]], detour: list[tuple[int, int]]) -> np.ndarray:
    """``trace`` closed into a loop through the ``detour``'s corners, a point about every
    3.5 pixels, moved 400 pixels right and down."""
    points = [np.asarray(p, float) for p in trace]
    corners = [np.asarray(p, float) for p in [trace[-1], *detour, trace[0]]]
    for a, b in zip(corners[:-1], corners[1:], strict=True):
        steps = max(int(np.linalg.norm(b - a) / 3.5), 1)
        points += [a + (b - a) * t for t in np.arange(1, steps + 1) / steps]
    return np.asarray(points[:-1]) + 400.0  # (the last is the trace's first again)


def test_a_tangle_hooked_round_a_knot_beside_a_pawn_is_undone_without_the_kink() -> None:
    """The hooked trace's course strays under TANGLE_STRAY_WIDTHS from its fit, but laid
    on it the trace crosses what is left of the hook: where a pawn of its colour kinks it
    there, it is laid on its course fitted without the kink (1780199)."""
    width = 3.82
    blue = _closed_through(HOOKED_BLUE, [(-19, 300), (300, 300), (300, -300), (27, -300)])
    green = _closed_through(GREEN_ACROSS, [(-300, 32), (-300, 400), (400, 400), (400, -24)])
    course = _course_through(blue, np.asarray((400.0, 400.0)), width)
    assert course is not None and course[1].stray < TANGLE_STRAY_WIDTHS * width
    loops = Loops({"blue": Loop("blue", blue, None), "green": Loop("green", green, None)}, [])

    def crossings(read: Loops) -> np.ndarray:
        met = ring_crossings(
            LinearRing(read.loops["blue"].points), LinearRing(read.loops["green"].points)
        )
        assert met is not None
        return met

    assert len(crossings(loops)) == 4  # three in the tangle, one at the detours
    assert len(crossings(settle_crossings(loops, width))) == 4  # no pawn: left
    demon = {"blue": np.asarray([(408.0, 412.0)])}
    settled = crossings(settle_crossings(loops, width, pawn_feet=demon))
    assert len(settled) == 2
    assert min(math.dist(xy, (400.0, 400.0)) for xy in settled) < 3 * width


def test_a_lens_too_small_for_a_pawn_is_undone_where_the_courses_do_not_cross() -> None:
    red, blue, near_point = _apart_circles(-2 * WIDTH)  # two widths apart at the closest
    bump = pushed(red, (200.0, 300.0), near_point, 3 * WIDTH, 1.5 * WIDTH)
    lens = Loops({"red": Loop("red", bump, None), "blue": Loop("blue", blue, None)}, [])
    met = _crossings(lens)
    assert len(met) == 2 and math.dist(met[0], met[1]) < TANGLE_WIDTHS * WIDTH
    assert len(_crossings(settle_crossings(lens, WIDTH))) == 0


def test_crossings_apart_and_a_tangle_on_a_wandering_trace_are_left() -> None:
    # Two crossings far enough apart to hold a pawn are the cords': no tangle.
    red, blue, crossing = _apart_circles(20.0)
    plain = Loops({"red": Loop("red", red, None), "blue": Loop("blue", blue, None)}, [])
    assert settle_crossings(plain, WIDTH) is plain
    # A tangle on a trace that wanders about any smooth course (a cord traced along
    # shadows, bent round pawns): its fit says nothing of where the cord runs.
    kinked = _s_kinked(red, (200.0, 300.0), crossing, 1.5, 3 * WIDTH)
    angles = np.arctan2(kinked[:, 1] - 300.0, kinked[:, 0] - 200.0)
    wander = 3 * WIDTH * np.sin(angles * RADIUS / (2 * WIDTH))
    wander *= 1 - np.exp(-((np.linalg.norm(kinked - crossing, axis=1) / (5 * WIDTH)) ** 2))
    radial = (kinked - (200.0, 300.0)) / RADIUS
    wandering = kinked + wander[:, None] * radial
    course = _course_through(wandering, crossing, WIDTH)
    assert course is not None and course[1].stray > TANGLE_STRAY_WIDTHS * WIDTH
    loops = Loops({"red": Loop("red", wandering, None), "blue": Loop("blue", blue, None)}, [])
    assert len(_crossings(loops)) == 4
    assert len(_crossings(settle_crossings(loops, WIDTH))) == 4


def test_a_tangle_is_undone_only_where_a_third_loop_keeps_its_crossings() -> None:
    red, blue, crossing = _apart_circles(20.0)
    red = _s_kinked(red, (200.0, 300.0), crossing, 1.5, 3 * WIDTH)
    for apart, undone in ((8.0, True), (1.0, False)):
        # A green loop across both, ``apart`` string widths above the tangle.
        green = circle((crossing[0], crossing[1] - RADIUS - apart * WIDTH), 1600)
        loops = Loops(
            {"red": Loop("red", red, None), "blue": Loop("blue", blue, None),
             "green": Loop("green", green, None)},
            [],
        )
        settled = settle_crossings(loops, WIDTH)
        assert len(_crossings(settled)) == (2 if undone else 4)
        for colour in ("red", "blue"):
            before = ring_crossings(LinearRing(green), LinearRing(loops.loops[colour].points))
            after = ring_crossings(LinearRing(green), LinearRing(settled.loops[colour].points))
            assert before is not None and after is not None and len(before) == len(after) == 2
            # Where it is undone, the third loop's crossings stay within a string width.
            assert np.abs(np.sort(before, axis=0) - np.sort(after, axis=0)).max() < WIDTH
