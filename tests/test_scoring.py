"""Scoring: the rulebook's examples, majorities, ties, white, winners and the options."""

from __future__ import annotations

import pytest

from engine.board import Board, Crossing, Field, demon, ghost
from engine.legality import find_violations
from engine.scoring import (
    ScoringOptions,
    score,
    solitaire_result,
    winning_colours,
    winning_player,
)

# --- the rulebook's worked example ------------------------------------------------------
#
# Predictions red, blue, yellow, white (players 1-4 in that order). Red holds only the
# outer field (8 corners) -> 8; yellow a field of 2 corners and one of 4 corners + 1 knot
# -> 7; green fields of 3, 2 + 1 knot and 5 -> 11; blue fields of 2 + 1 knot, 4 and
# 3 + 1 knot -> 11; 8 ghosts in 8 other fields -> white 8.

# (holder, corners, knots) of the fields; field 0 is the outer field.
RULEBOOK_FIELDS = [
    ("red", 8, ()),
    ("yellow", 2, ()),
    ("yellow", 4, ("red",)),
    ("green", 3, ()),
    ("green", 2, ("blue",)),
    ("green", 5, ()),
    ("blue", 2, ("red",)),
    ("blue", 4, ()),
    ("blue", 3, ("blue",)),
    *[("ghost", 2, ())] * 6,
    ("ghost", 3, ()),
    ("ghost", 4, ()),
]


def rulebook_board() -> Board:
    """A board with exactly the rulebook's fields, majorities and ghosts.

    Corners are dealt from 13 crossings, each used four times, so that every field gets
    distinct crossings; every crossing's lines include the colour of the demon in it.
    """
    total = sum(corners for _, corners, _ in RULEBOOK_FIELDS)
    crossing_count = total // 4
    assert total == 4 * crossing_count
    slots = [c for _ in range(4) for c in range(crossing_count)]
    fields, creatures, needs = [], [], {c: set() for c in range(crossing_count)}
    for i, (holder, corners, knots) in enumerate(RULEBOOK_FIELDS):
        mine, slots = tuple(slots[:corners]), slots[corners:]
        fields.append(Field(i, i == 0, mine, knots, None if i == 0 else ((0, 0), (1, 0), (0, 1))))
        if holder == "ghost":
            creatures.append(ghost(i))
        else:
            creatures.append(demon(holder, i, mine[0]))
            needs[mine[0]].add(holder)
    crossings = []
    for c, colours in needs.items():
        pair = sorted({"red", "yellow", "green", "blue"} - colours)[: 2 - len(colours)]
        lines = tuple(sorted(colours | set(pair)))
        assert len(lines) == 2
        crossings.append(Crossing(c, (float(c), 0.0), lines))  # type: ignore[arg-type]
    return Board(
        lines=(), crossings=tuple(crossings), fields=tuple(fields), creatures=tuple(creatures)
    )


def test_rulebook_example_scores() -> None:
    board = rulebook_board()
    result = score(board)
    assert dict(result.points) == {"red": 8, "yellow": 7, "green": 11, "blue": 11, "white": 8}
    assert result.winners == ("blue", "green")
    assert find_violations(board) == []


def test_rulebook_example_player_two_wins() -> None:
    predictions = [(1, "red"), (2, "blue"), (3, "yellow"), (4, "white")]
    assert winning_player(predictions, score(rulebook_board()).winners) == 2


def test_first_predictor_of_a_winning_colour_wins_even_if_another_also_won() -> None:
    predictions = [(3, "green"), (1, "blue")]
    assert winning_player(predictions, ("blue", "green")) == 3


def test_nobody_wins_without_a_winning_prediction() -> None:
    assert winning_player([(1, "red"), (2, "yellow")], ("blue", "green")) is None
    assert winning_player([], ("blue",)) is None


# --- majorities -------------------------------------------------------------------------


def small_board(*creatures: object) -> Board:
    """Outer field 0 and a field 1 with corners at crossings 0 and 1 (red/blue, red/green)."""
    crossings = (Crossing(0, (0, 0), ("blue", "red")), Crossing(1, (1, 0), ("green", "red")))
    fields = (
        Field(0, True, (0, 1), ("red",)),
        Field(1, False, (0, 1), ("red",), ((0, 0), (1, 0), (0, 1))),
        Field(2, False, (0, 1), (), ((0, 0), (1, 0), (0, -1))),
        Field(3, False, (0, 1), (), ((0, 0), (1, 0), (1, 1))),
    )
    return Board((), crossings, fields, creatures=tuple(creatures))  # type: ignore[arg-type]


def test_strict_majority_takes_the_field_value() -> None:
    board = small_board(demon("red", 1, 0), demon("red", 1, 1), demon("blue", 2, 0))
    result = score(board)
    assert result.points["red"] == 3  # field 1: two corners + red knot
    assert result.points["blue"] == 2
    assert result.owners[1] == "red" and result.owners[0] is None


def test_a_tie_for_the_most_scores_nothing() -> None:
    board = small_board(demon("red", 1, 0), demon("blue", 1, 1))
    result = score(board)
    assert result.owners[1] is None
    assert result.points == {"red": 0, "yellow": 0, "green": 0, "blue": 0, "white": 0}


def test_empty_board_everyone_ties_and_all_five_win() -> None:
    result = score(small_board())
    assert set(result.points) == {"red", "yellow", "green", "blue", "white"}
    assert result.winners == ("blue", "green", "red", "white", "yellow")


def test_demon_not_in_a_corner_does_not_count() -> None:
    board = small_board(demon("red", 1, None), demon("blue", 1, 0))
    assert score(board).owners[1] == "blue"


def test_off_board_creatures_do_not_score() -> None:
    from engine.board import Creature

    board = small_board(Creature("ghost", "white", off_board=True), demon("red", 1, 0))
    assert score(board).points["white"] == 0
    assert score(board).points["red"] == 3


def test_mismatched_demon_counts_unless_told_not_to() -> None:
    # A yellow demon at a red/blue crossing is illegal but stands there.
    board = small_board(demon("yellow", 2, 0))
    assert score(board).points["yellow"] == 2
    strict = ScoringOptions(mismatched_demons_count=False)
    assert score(board, strict).points["yellow"] == 0


def test_white_counts_ghosts_or_fields() -> None:
    board = small_board(ghost(1), ghost(1), ghost(2))
    assert score(board).points["white"] == 3
    assert score(board, ScoringOptions(white_points="fields")).points["white"] == 2


def test_several_winners() -> None:
    assert winning_colours({"red": 3, "yellow": 3, "green": 1, "blue": 0, "white": 2}) == (
        "red",
        "yellow",
    )


# --- solitaire --------------------------------------------------------------------------

SOLITAIRE_POINTS = {"green": 9, "red": 8, "yellow": 5, "blue": 7, "white": 3}


def test_solitaire_example_scores_43() -> None:
    result = solitaire_result(SOLITAIRE_POINTS, {"red": 2, "green": 1})
    assert result.won
    assert result.points == 3 * 9 + 2 * 8 == 43


def test_solitaire_example_lost_when_yellow_has_11() -> None:
    result = solitaire_result({**SOLITAIRE_POINTS, "yellow": 11}, {"red": 2, "green": 1})
    assert not result.won
    assert result.points == 0
    assert result.places == {"red": 3, "green": 2}


def test_solitaire_third_place_counts_once() -> None:
    result = solitaire_result(SOLITAIRE_POINTS, {"green": 1, "red": 2, "blue": 3})
    assert result.won and result.points == 27 + 16 + 7


def test_solitaire_tie_on_a_predicted_place_fails_by_default() -> None:
    tied = {**SOLITAIRE_POINTS, "blue": 8}  # red and blue share place 2
    assert not solitaire_result(tied, {"red": 2, "green": 1}).won
    lenient = ScoringOptions(solitaire_tie_fails=False)
    assert solitaire_result(tied, {"red": 2, "green": 1}, lenient).points == 43


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ({}, "1 to 3 predictions, not 0"),
        ({"red": 1, "green": 2, "blue": 3, "yellow": 1}, "1 to 3 predictions, not 4"),
        ({"red": 4}, "place is 1, 2 or 3, not 4"),
        ({"red": 1, "blue": 1}, "name the same place"),
        ({"pink": 1}, "unknown colour 'pink'"),
    ],
)
def test_solitaire_rejects_bad_predictions(predictions: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solitaire_result(SOLITAIRE_POINTS, predictions)
