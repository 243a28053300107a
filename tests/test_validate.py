"""Every board validated, wherever it was built: one list of problems, one error type."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.board import Board, Creature, demon, ghost
from engine.errors import BoardError, EngineError, IllegalMoveError, LayoutError
from engine.game import Game
from engine.layout import random_layout
from engine.legality import find_violations
from engine.scoring import score
from engine.topology import build_board
from engine.validate import board_problems, check_board, geometry_problems


def circle(cx: float, cy: float, r: float, n: int = 360) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def board() -> Board:
    """Red and blue circles crossing twice, plus green crossing both; a red knot."""
    return build_board(
        {"red": circle(0, 0, 100), "blue": circle(120, 0, 100), "green": circle(60, 90, 80)},
        {"red": (-100, 0)},
    )


def a_corner(board: Board) -> tuple[int, int]:
    field = next(f for f in board.fields if not f.outer)
    return field.id, field.corners[0]


def test_the_error_types_are_one_hierarchy() -> None:
    for kind in (BoardError, LayoutError, IllegalMoveError):
        assert issubclass(kind, EngineError)
    assert issubclass(EngineError, ValueError)


def test_a_board_from_build_board_has_no_problems(board: Board) -> None:
    assert board_problems(board) == []
    assert check_board(board) is board


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ghost(2).__class__("ghost", "white", field=2, crossing=0), "crossing: a ghost"),
        (lambda: Creature("demon", "red", off_board=True, field=1), "off-board creature has no"),
        (lambda: demon("purple", 1, 0), "colour: a demon is one of"),
        (lambda: ghost(None), "field: a creature on the board stands in a field"),
        (lambda: demon("red", 1, 0, (math.nan, 0.0)), "xy: expected two finite numbers"),
        (lambda: demon("red", -1, 0), "field: ids are not negative"),
        (lambda: Creature("dragon", "red", field=1), "kind: expected 'demon' or 'ghost'"),
    ],
)
def test_a_creature_that_cannot_exist_is_refused_when_made(make: object, message: str) -> None:
    assert callable(make)
    with pytest.raises(BoardError, match=message):
        make()


def test_with_creatures_names_the_entry_the_board_cannot_hold(board: Board) -> None:
    field_id, crossing_id = a_corner(board)
    good = demon(board.crossings[crossing_id].lines[0], field_id, crossing_id)
    elsewhere = next(
        c for c in range(len(board.crossings)) if c not in board.fields[field_id].corners
    )
    with pytest.raises(BoardError, match=r"creatures\[1\]\.field: 99 does not exist"):
        board.with_creatures((good, ghost(99)))
    with pytest.raises(BoardError, match=r"creatures\[2\]\.crossing: 40 does not exist"):
        board.with_creatures((good, good, demon("red", field_id, 40)))
    with pytest.raises(
        BoardError, match=rf"creatures\[0\]: field {field_id} has no corner at crossing {elsewhere}"
    ):
        board.with_creature(demon("red", field_id, elsewhere))
    one = board.with_creature(good)
    with pytest.raises(BoardError, match=r"creatures\[1\]\.field"):
        one.with_creature(ghost(len(board.fields)))


def test_board_problems_lists_every_problem_at_once(board: Board) -> None:
    field_id, crossing_id = a_corner(board)
    fields = list(board.fields)
    fields[field_id] = replace(fields[field_id], corners=(*fields[field_id].corners, 77))
    lines = tuple(replace(ln, knot=None) if ln.colour == "red" else ln for ln in board.lines)
    broken = replace(
        board,
        lines=lines,
        fields=tuple(fields),
        creatures=(ghost(1), Creature("demon", "red", field=1, crossing=55)),
    )
    problems = [str(p) for p in board_problems(broken)]
    last = len(fields[field_id].corners) - 1
    expected = []  # in the order of the report: field by field, then the creatures
    for f in board.fields:
        if "red" in f.knots:
            expected.append(
                f"fields[{f.id}].knots[0]: counts the red knot, but lines.red.knot is null"
            )
        if f.id == field_id:
            expected.append(f"fields[{field_id}].corners[{last}]: crossing 77 does not exist")
    expected += [
        f"fields[{field_id}].corners: the sectors and the corners disagree on crossing 77",
        f"creatures[1].crossing: 55 does not exist (there are {len(board.crossings)})",
    ]
    assert problems == expected
    with pytest.raises(BoardError) as caught:
        check_board(broken)
    assert [str(p) for p in caught.value.problems] == problems
    assert str(caught.value) == f"{problems[0]} (and {len(problems) - 1} more problems)"


def test_a_game_refuses_an_inconsistent_board_and_a_bad_clearance(board: Board) -> None:
    no_lines = replace(board, lines=())
    with pytest.raises(BoardError, match=r"crossings\[0\]\.lines: the .* line is not on the board"):
        Game(no_lines, 2, 0)
    for clearance in (math.nan, math.inf, 0.0, -1.0, 1000.0):
        with pytest.raises(EngineError, match="clearance"):
            Game(board, 2, 0, clearance=clearance)


# --- the topology against the lines ----------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_rebuilt_topology_of_a_layout_matches_it_sector_by_sector(seed: int) -> None:
    board = random_layout(seed).board()
    check = geometry_problems(board)
    assert check.problems == ()
    assert check.sectors == board.sectors


def test_a_field_whose_corners_disagree_with_the_lines_is_named(board: Board) -> None:
    field_id, crossing_id = a_corner(board)
    other = next(f.id for f in board.fields if f.id != field_id and crossing_id in f.corners)
    fields = list(board.fields)
    fields[field_id] = replace(
        fields[field_id], corners=tuple(c for c in fields[field_id].corners if c != crossing_id)
    )
    fields[other] = replace(fields[other], corners=(*fields[other].corners, crossing_id))
    moved = replace(board, fields=tuple(fields), sectors=())
    assert board_problems(moved) == []  # consistent in itself ...
    wheres = sorted(p.where for p in geometry_problems(moved).problems)
    assert wheres == sorted([f"fields[{field_id}].corners", f"fields[{other}].corners"])


def test_lines_that_are_not_a_layout_are_one_problem(board: Board) -> None:
    red = board.line("red")
    assert red is not None
    bowtie = ((0.0, 0.0), (100.0, 100.0), (100.0, 0.0), (0.0, 100.0))
    crossed = replace(
        board, lines=tuple(replace(ln, polyline=bowtie) if ln is red else ln for ln in board.lines)
    )
    check = geometry_problems(crossed)
    assert [str(p) for p in check.problems] == [
        "lines: not a legal layout: the red loop crosses or touches itself"
    ]
    assert check.sectors == ()


def test_removing_a_creature_that_is_not_there_is_a_board_error(board: Board) -> None:
    one = board.with_creature(ghost(1))
    assert one.without_creature(0).creatures == ()
    with pytest.raises(BoardError, match=r"creatures\[1\]: no such creature \(there are 1\)"):
        one.without_creature(1)


def test_scoring_a_board_put_together_by_hand_names_the_bad_creature(board: Board) -> None:
    by_hand = replace(board, creatures=(ghost(1), demon("red", 1, 40)))  # no checks made
    for judge in (score, find_violations):
        with pytest.raises(BoardError, match=r"creatures\[1\]\.crossing: 40 does not exist"):
            judge(by_hand)
