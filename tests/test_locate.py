"""Locating creatures by their foot points: sector, field, corner, off the board."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board, Point
from engine.errors import BoardError, EngineError
from engine.game import Game
from engine.layout import random_layout
from engine.placement import (
    CORNER_AIR,
    OFF_BOARD_CLEARANCE,
    BoardGeometry,
    Foot,
    locate_creatures,
)
from engine.policies import make_policies
from engine.report import board_from_report, board_to_report
from engine.topology import build_board

RADIUS = 10.0


def circle(cx: float, cy: float, r: float, n: int = 720) -> list[tuple[float, float]]:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return [(cx + r * math.cos(a), cy + r * math.sin(a)) for a in t]


# Red circle around (0, 0) and blue around (120, 0), radius 100: crossings at (60, -80)
# (id 0, read top to bottom) and (60, 80) (id 1). Fields: outer, red's crescent (left),
# the lens (middle), blue's crescent (right).


@pytest.fixture(scope="module")
def lens() -> Board:
    return build_board({"red": circle(0, 0, 100), "blue": circle(120, 0, 100)})


@pytest.fixture(scope="module")
def geometry(lens: Board) -> BoardGeometry:
    return BoardGeometry(lens)


def field_of(geometry: BoardGeometry, x: float, y: float) -> int:
    return geometry.field_at((x, y))


def demon_at(board: Board, x: float, y: float, colour: str = "red") -> object:
    return locate_creatures(board, [Foot("demon", colour, (x, y))], pawn_radius=RADIUS)[0]


def test_demon_in_each_sector_of_a_crossing_gets_that_sectors_field(
    lens: Board, geometry: BoardGeometry
) -> None:
    crossing = lens.crossings[1]
    assert crossing.xy == pytest.approx((60.0, 80.0), abs=0.1)
    # Points 15 units from the crossing, between the strings, in the four directions.
    expected = {
        (60.0, 65.0): field_of(geometry, 60, 0),  # down: the lens
        (60.0, 95.0): lens.outer_field.id,  # up: outside both circles
        (45.0, 80.0): field_of(geometry, -50, 0),  # left: red's crescent
        (75.0, 80.0): field_of(geometry, 170, 0),  # right: blue's crescent
    }
    assert len(set(expected.values())) == 4
    for (x, y), field_id in expected.items():
        [found] = locate_creatures(lens, [Foot("demon", "red", (x, y))], pawn_radius=RADIUS)
        assert (found.field, found.crossing) == (field_id, 1), (x, y)
        assert found.ambiguity is None
        assert found.creature.field == field_id and found.creature.crossing == 1
        assert found.creature.xy == (x, y)
        assert found.distance == pytest.approx(15.0, abs=0.1)
        sector = lens.sectors[4 * 1 + found.sector] if found.sector is not None else None
        assert sector is not None and sector.field == field_id


def test_demon_nearer_another_crossing_of_its_field_still_takes_its_own_corner(
    lens: Board, geometry: BoardGeometry
) -> None:
    # The lens has corners at both crossings; a foot snug in the top corner is located
    # there, one at the bottom corner there, whichever is closer to the field's middle.
    lens_field = field_of(geometry, 60, 0)
    top = geometry.corner_point(lens_field, 1, CORNER_AIR * RADIUS)
    bottom = geometry.corner_point(lens_field, 0, CORNER_AIR * RADIUS)
    found = locate_creatures(
        lens, [Foot("demon", "blue", top), Foot("demon", "blue", bottom)], pawn_radius=RADIUS
    )
    assert [(f.field, f.crossing) for f in found] == [(lens_field, 1), (lens_field, 0)]


def test_foot_just_over_a_string_is_in_the_other_field_and_says_so(
    lens: Board, geometry: BoardGeometry
) -> None:
    # The red circle passes (0, -100)... take a point 1 unit outside red, near crossing 1:
    # red at angle 70 degrees is at (34.2, 94.0); outside along the radius lies the outer
    # field, inside the blue crescent... use the radial direction.
    angle = math.radians(75)
    outside = (101 * math.cos(angle), 101 * math.sin(angle))
    inside = (99 * math.cos(angle), 99 * math.sin(angle))
    out_found, in_found = locate_creatures(
        lens,
        [Foot("demon", "red", outside), Foot("demon", "red", inside)],
        pawn_radius=RADIUS,
    )
    assert out_found.field == geometry.field_at(outside) == lens.outer_field.id
    assert in_found.field == geometry.field_at(inside) != lens.outer_field.id
    assert out_found.ambiguity == in_found.ambiguity == "on-string"


def test_demon_far_from_every_corner_keeps_its_field_without_crossing(
    lens: Board, geometry: BoardGeometry
) -> None:
    [found] = locate_creatures(lens, [Foot("demon", "green", (-50, 0))], pawn_radius=RADIUS)
    assert found.field == field_of(geometry, -50, 0)
    assert found.crossing is None and found.sector is None
    assert found.distance == math.inf
    assert found.ambiguity == "far-from-corners"
    assert found.creature.crossing is None and found.creature.colour == "green"


def test_ghost_takes_the_field_it_stands_in(lens: Board, geometry: BoardGeometry) -> None:
    [found] = locate_creatures(lens, [Foot("ghost", "white", (60, 70))], pawn_radius=RADIUS)
    assert found.field == field_of(geometry, 60, 0)
    assert found.crossing is None
    assert found.ambiguity is None
    assert found.creature.kind == "ghost"


def test_off_board_is_far_from_every_line_outside_the_play_area(lens: Board) -> None:
    far = 100 + OFF_BOARD_CLEARANCE * RADIUS + 1  # just beyond the rule, left of red
    near = 100 + OFF_BOARD_CLEARANCE * RADIUS - 1
    found = locate_creatures(
        lens,
        [Foot("ghost", "white", (-far, 0)), Foot("demon", "blue", (-near, 0))],
        pawn_radius=RADIUS,
    )
    assert found[0].creature.off_board and found[0].field is None
    assert not found[1].creature.off_board
    assert found[1].field == lens.outer_field.id
    assert found[1].ambiguity == "far-from-corners"


@pytest.mark.parametrize(
    ("foot", "radius", "message"),
    [
        (Foot("demon", "red", (0.0, 0.0)), math.nan, "pawn_radius"),
        (Foot("demon", "red", (0.0, 0.0)), 0.0, "pawn_radius"),
        (Foot("demon", "red", (0.0, 0.0)), -3.0, "pawn_radius"),
        (Foot("demon", "white", (0.0, 0.0)), RADIUS, r"feet\[0\]\.colour"),
        (Foot("ghost", "red", (0.0, 0.0)), RADIUS, r"feet\[0\]\.colour"),
        (Foot("dragon", "red", (0.0, 0.0)), RADIUS, r"feet\[0\]\.kind"),
        (Foot("demon", "red", (math.nan, 0.0)), RADIUS, r"feet\[0\]\.xy"),
        (Foot("demon", "red", (math.inf, 0.0)), RADIUS, r"feet\[0\]\.xy"),
    ],
)
def test_bad_feet_and_radii_are_refused_naming_the_entry(
    lens: Board, foot: Foot, radius: float, message: str
) -> None:
    with pytest.raises(BoardError, match=message):
        locate_creatures(lens, [foot], pawn_radius=radius)
    assert issubclass(BoardError, EngineError)


# --- the property: every corner point is located back in its corner -------------------


def test_every_corner_point_of_random_layouts_is_located_back() -> None:
    located = unclear = 0
    for seed in range(8):
        board = random_layout(seed).board()
        geometry = BoardGeometry(board)
        feet, corners = [], []
        for f in board.fields:
            for crossing_id in sorted(set(f.corners)):
                for xy in geometry.corner_points(f.id, crossing_id, CORNER_AIR * RADIUS):
                    feet.append(Foot("demon", board.crossings[crossing_id].lines[0], xy))
                    corners.append((f.id, crossing_id))
        found = geometry.locate(feet, pawn_radius=RADIUS)
        assert [(f.field, f.crossing) for f in found] == corners, seed
        assert [geometry.field_at(foot.xy) for foot in feet] == [f for f, _ in corners]
        located += len(found)
        unclear += sum(f.ambiguity is not None for f in found)
    # Only squeezed corners of small fields may be called ambiguous.
    assert unclear <= 0.05 * located


def test_a_corners_sectors_are_the_boards_with_or_without_its_sectors_listed() -> None:
    """``corner_sectors`` names the sectors a field owns at a crossing, in order, as the
    board lists them, and finds the same where the board lists none (a board read from
    a report); a crossing that is no corner of the field is an error."""
    board = random_layout(5).board()
    listed, looked = BoardGeometry(board), BoardGeometry(replace(board, sectors=()))
    for f in board.fields:
        for crossing_id in sorted(set(f.corners)):
            expected = sorted(
                s.index for s in board.sectors if (s.field, s.crossing) == (f.id, crossing_id)
            )
            assert len(expected) == f.corners.count(crossing_id)
            assert listed.corner_sectors(f.id, crossing_id) == expected
            assert looked.corner_sectors(f.id, crossing_id) == expected
            spots = looked.corner_spots(f.id, crossing_id, CORNER_AIR * RADIUS)
            assert [i for i, _ in spots] == expected
            assert [xy for _, xy in spots] == listed.corner_points(
                f.id, crossing_id, CORNER_AIR * RADIUS
            )
    field = board.fields[1]
    stranger = next(c.id for c in board.crossings if c.id not in field.corners)
    with pytest.raises(BoardError, match="no corner"):
        listed.corner_sectors(field.id, stranger)


@pytest.mark.parametrize(("seed", "players"), [(11, 4), (12, 2), (13, 1), (14, 3)])
def test_creatures_of_a_played_game_are_located_where_the_game_put_them(
    seed: int, players: int
) -> None:
    board = random_layout(seed).board()
    game = Game(board, players, seed, clearance=CORNER_AIR * RADIUS)
    game.play(make_policies("random", players, seed))
    final = game.final_board(with_positions=True, with_predictions=True)
    feet = [Foot(c.kind, c.colour, c.xy) for c in final.creatures if c.xy is not None]
    assert len(feet) == len(final.creatures)
    found = locate_creatures(final, feet, pawn_radius=RADIUS)
    assert [f.creature for f in found] == list(final.creatures)


def test_a_mirrored_board_locates_the_same(lens: Board) -> None:
    """Photo pixels have y down: mirrored, the sectors are worked out again."""
    mirrored = lens.transformed(lambda points: [(x, -y) for x, y in points])
    assert mirrored.sectors == ()
    feet = [
        Foot("demon", "red", (60.0, 65.0)),
        Foot("demon", "blue", (45.0, 80.0)),
        Foot("ghost", "white", (-50.0, 0.0)),
        Foot("demon", "red", (75.0, -80.0)),
    ]
    flipped = [Foot(f.kind, f.colour, (f.xy[0], -f.xy[1])) for f in feet]
    here = locate_creatures(lens, feet, pawn_radius=RADIUS)
    there = locate_creatures(mirrored, flipped, pawn_radius=RADIUS)
    assert [(f.field, f.crossing, f.ambiguity) for f in there] == [
        (f.field, f.crossing, f.ambiguity) for f in here
    ]


def test_a_board_read_from_a_report_locates_like_the_one_built(seed: int = 4) -> None:
    board = random_layout(seed).board()
    from_report = board_from_report(board_to_report(board), topology="trust")
    assert from_report.sectors == ()  # "trust" takes no sectors: they are worked out
    geometry = BoardGeometry(board)
    feet = [
        Foot("demon", board.crossings[c].lines[1], xy)
        for f in board.fields
        for c in sorted(set(f.corners))
        for xy in geometry.corner_points(f.id, c, CORNER_AIR * RADIUS)
    ]

    def places(on: Board) -> list[tuple[object, ...]]:
        found = locate_creatures(on, feet, pawn_radius=RADIUS)
        return [(f.creature, f.sector, f.ambiguity) for f in found]

    # (Distances differ a little: reports round coordinates to 0.1.)
    assert places(from_report) == places(board)


def test_corner_at_answers_like_locate(lens: Board, geometry: BoardGeometry) -> None:
    lens_field = field_of(geometry, 60, 0)
    assert geometry.corner_at((60.0, 65.0), 7 * RADIUS) == (lens_field, 1)
    assert geometry.corner_at((-50.0, 0.0), 7 * RADIUS) == (field_of(geometry, -50, 0), None)


@functools.cache
def corners_of_layout(
    seed: int,
) -> tuple[BoardGeometry, list[tuple[int, int, tuple[float, float]]]]:
    geometry = BoardGeometry(random_layout(seed).board())
    board = geometry.board
    corners = [
        (f.id, c, xy)
        for f in board.fields
        for c in sorted(set(f.corners))
        for xy in geometry.corner_points(f.id, c, CORNER_AIR * RADIUS)
    ]
    return geometry, corners


# Derandomized: the same 150 cases on every run, so that CI does not fail at random on
# the known sliver below (a random search finds such cases now and then).
@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 3),
    pick=st.integers(0, 10_000),
    angle=st.floats(0, 2 * math.pi),
    shift=st.floats(0, 0.5),
)
def test_a_sloppy_pawn_stays_in_its_corner_or_says_it_is_unsure(
    seed: int, pick: int, angle: float, shift: float
) -> None:
    """Half a pawn radius off its spot, a demon is still located in its corner, or the
    locator names an ambiguity: it never silently moves it to another corner."""
    geometry, corners = corners_of_layout(seed)
    field_id, crossing_id, (x, y) = corners[pick % len(corners)]
    d = shift * RADIUS
    foot = Foot("demon", "red", (x + d * math.cos(angle), y + d * math.sin(angle)))
    [found] = geometry.locate([foot], pawn_radius=RADIUS)
    assert (found.field, found.crossing) == (field_id, crossing_id) or found.ambiguity


def test_a_sloppy_pawn_in_a_sliver_field_says_it_is_unsure() -> None:
    """Found by the random search above (layout seed 2, field 9 between crossings 7, 8
    and 9): a sliver whose three corners hold a snug pawn within 5 units of each other
    for a pawn radius of 10. Where the foot stands cannot say which corner is meant."""
    geometry, corners = corners_of_layout(2)
    field_id, crossing_id, (x, y) = corners[5313 % len(corners)]
    d = 0.5 * RADIUS
    foot = Foot("demon", "red", (x + d * math.cos(2.0), y + d * math.sin(2.0)))
    [found] = geometry.locate([foot], pawn_radius=RADIUS)
    assert (found.field, found.crossing) == (field_id, crossing_id) or found.ambiguity


def test_between_two_corners_the_demon_goes_to_a_crossing_of_its_colour() -> None:
    """Halfway between two corners of one field, the photo does not say which corner a
    demon is in; the rules do: the one at a crossing of its colour."""
    decided = 0
    for seed in range(12):
        board = random_layout(seed).board()
        geometry = BoardGeometry(board)
        radius = 9.5
        for field in board.fields:
            if field.outer:
                continue
            for a in set(field.corners):
                for b in set(field.corners):
                    only_a = set(board.crossings[a].lines) - set(board.crossings[b].lines)
                    only_b = set(board.crossings[b].lines) - set(board.crossings[a].lines)
                    if a >= b or not only_a or not only_b:
                        continue
                    pa = geometry.corner_point(field.id, a, 1.25 * radius)
                    pb = geometry.corner_point(field.id, b, 1.25 * radius)
                    middle = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
                    feet = [Foot("demon", min(only_a), middle), Foot("demon", min(only_b), middle)]
                    for_a, for_b = locate_creatures(board, feet, pawn_radius=radius)
                    if {for_a.crossing, for_b.crossing} != {a, b}:
                        continue  # another corner fits better; not this test's case
                    assert for_a.ambiguity == for_b.ambiguity == "between-corners"
                    assert (for_a.crossing, for_b.crossing) == (a, b)
                    decided += 1
    assert decided > 0


def feet_between_two_corners(radius: float) -> Iterator[tuple[Board, int, int, Point, list]]:
    """On 12 random layouts, feet on the way between the snug spots of two corners (at
    crossings a < b) of one bounded field, off the strings, where two or more of that
    field's corners, and no other field's, fit about equally (within 0.5 radii):
    (board, a, b, foot, the corners that fit about equally, best fit first)."""
    for seed in range(12):
        board = random_layout(seed).board()
        geometry = BoardGeometry(board)
        for field in board.fields:
            if field.outer:
                continue
            corners = sorted(set(field.corners))
            for a, b in itertools.combinations(corners, 2):
                pa = geometry.corner_point(field.id, a, 1.25 * radius)
                pb = geometry.corner_point(field.id, b, 1.25 * radius)
                for t in np.linspace(0.3, 0.7, 9):
                    foot = (pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]))
                    found = geometry._candidates(foot, radius)
                    fits = sorted((c for c in found if c.field == field.id), key=lambda c: c.score)
                    if len(fits) < 2 or fits[1].score - fits[0].score >= 0.5:
                        continue
                    if geometry._on_string(foot, radius) or len(found) != len(fits):
                        continue
                    close = [c for c in fits if c.score - fits[0].score < 0.5]
                    yield board, a, b, foot, close


def test_between_two_corners_of_its_colour_a_loose_demon_goes_to_the_better_fit() -> None:
    """Not snug in either of two corners of its colour that fit about equally, a demon
    goes to the one it fits better, though the other crossing be nearer (a far corner
    of a narrow sector holds its pawn deeper). Snug in both, it goes to the nearer of
    its colour's crossings, though another colour's be nearer still."""
    loose = snug = 0
    radius = 9.5
    for board, a, b, foot, close in feet_between_two_corners(radius):
        shared = set(board.crossings[a].lines) & set(board.crossings[b].lines)
        if not shared:
            continue
        colour = min(shared)
        own = [c for c in close if colour in board.crossings[c.crossing].lines]
        best_fit = (own or close)[0]
        nearest = min(own or close, key=lambda c: c.distance)
        if nearest is best_fit:
            continue  # both rules agree; not this test's case
        [where] = locate_creatures(board, [Foot("demon", colour, foot)], pawn_radius=radius)
        assert where.ambiguity == "between-corners"
        if close[0].score >= 0.5:
            assert where.crossing == best_fit.crossing
            loose += 1
        else:
            assert where.crossing == nearest.crossing
            snug += 1
    assert loose > 0 and snug > 0


def test_snug_between_corners_a_demon_goes_to_its_own_colour_before_a_nearer_other() -> None:
    """Snug between corners that fit about equally, where the nearest crossing is not
    of the demon's colour and another close one is, the demon goes to its colour's: a
    foot read a tenth of a radius off must not move it into a foreign corner."""
    decided = 0
    radius = 9.5
    for board, _, _, foot, close in feet_between_two_corners(radius):
        if close[0].score >= 0.5:
            continue
        nearest = min(close, key=lambda c: c.distance)
        # A colour at a close crossing but not at the nearest one.
        colours = {colour for c in close for colour in board.crossings[c.crossing].lines} - set(
            board.crossings[nearest.crossing].lines
        )
        for colour in sorted(colours):
            own = [c for c in close if colour in board.crossings[c.crossing].lines]
            expected = min(own, key=lambda c: c.distance).crossing
            [where] = locate_creatures(board, [Foot("demon", colour, foot)], pawn_radius=radius)
            assert where.ambiguity == "between-corners"
            assert where.crossing == expected != nearest.crossing
            decided += 1
    assert decided > 0


def test_a_demon_between_corners_names_the_corners_it_could_also_be_in() -> None:
    """The corners that fit about as well as the one chosen are the location's
    alternatives: never the chosen corner itself, always a corner of the board's
    crossings near the foot; a demon plainly in one corner has none."""
    named = 0
    radius = 9.5
    for board, _, _, foot, close in feet_between_two_corners(radius):
        colour = min(board.crossings[close[0].crossing].lines)
        [where] = locate_creatures(board, [Foot("demon", colour, foot)], pawn_radius=radius)
        chosen = (where.field, where.crossing)
        expected = {(c.field, c.crossing) for c in close} - {chosen}
        assert set(where.alternatives) == expected
        assert chosen not in where.alternatives
        named += bool(where.alternatives)
    assert named > 0
    geometry, corners = corners_of_layout(0)
    feet = [Foot("demon", "red", xy) for _, _, xy in corners]
    located = geometry.locate(feet, pawn_radius=RADIUS)
    clear = [where for where in located if where.ambiguity is None]
    assert clear and all(where.alternatives == () for where in clear)
