"""Simulated games: the turn rules, the end of the game, predictions and the policies.

Every simulated move is checked against ``engine.legality`` on the board before it, and
the game's own legal-move table against the same functions at every turn.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from engine.board import Board, Crossing, Field, Line
from engine.colours import CREATURES_PER_COLOUR, SCORE_COLOURS, WHITE
from engine.errors import IllegalMoveError
from engine.game import Game, GameOverError, Move, Policy, Prediction, Turn
from engine.layout import random_layout
from engine.legality import check_summon, find_violations, legal_corners, legal_ghost_fields
from engine.placement import BoardGeometry
from engine.policies import GreedyPolicy, RandomPolicy, make_policies
from engine.report import board_from_report, board_to_report
from engine.rules import Rule
from engine.scoring import winning_player
from engine.topology import build_board

# --- boards -----------------------------------------------------------------------------


def circle(cx: float, cy: float, r: float, wobble: float = 0.0, phase: float = 0.0,
           n: int = 240) -> list[tuple[float, float]]:
    points = []
    for i in range(n):
        t = 2 * math.pi * i / n
        radius = r * (1 + wobble * math.sin(3 * t + phase))
        points.append((cx + radius * math.cos(t), cy + radius * math.sin(t)))
    return points


@functools.cache
def two_circles() -> Board:
    """Red and yellow circles crossing twice: 2 crossings, 4 fields of 2 corners each.

    Every corner is red/yellow, so green and blue demons have nowhere to go. Field 0 is
    outer; the lens (inside both) and the two crescents are bounded.
    """
    return build_board({"red": circle(0, 0, 10), "yellow": circle(12, 0, 10)})


@functools.cache
def four_circles() -> Board:
    """Four overlapping wobbly circles, every pair crossing: 12 crossings, 14 fields."""
    lines = {
        "red": circle(-4, -4, 10, 0.06, 0.3),
        "yellow": circle(4, -4, 10, 0.06, 1.1),
        "green": circle(4, 4, 10, 0.06, 2.0),
        "blue": circle(-4, 4, 10, 0.06, 2.9),
    }
    return build_board(lines, {"red": (-14, -6), "green": (14, 6)})


@functools.cache
def layout_board(seed: int) -> Board:
    return random_layout(seed).board()


BOARDS: dict[str, Callable[[], Board]] = {
    "four-circles": four_circles,
    "layout-4": functools.partial(layout_board, 4),
    "layout-5": functools.partial(layout_board, 5),
}


def lens(board: Board) -> int:
    """The two-circle field inside both circles."""
    return BoardGeometry(board).field_at((6.0, 0.0))


# --- a checked game ---------------------------------------------------------------------


def expected_moves(board: Board, held: Sequence[str]) -> set[Move]:
    """Every legal move for the creatures ``held``, by ``engine.legality`` alone."""
    moves = set()
    for colour in set(held):
        if colour == WHITE:
            moves |= {Move(WHITE, f) for f in legal_ghost_fields(board)}
        else:
            moves |= {Move(colour, f, x) for f, x in legal_corners(board, colour)}
    return moves


def restricted(game: Game, player: int) -> bool:
    """Whether ``player`` has returned their fist (holds only the creature drawn last)."""
    predicted = any(p == player for p, _ in game.predictions)
    return predicted and not (game.solitaire and game.solitaire_keeps_fist)


def last_drawn(log: Sequence[Turn], player: int) -> str | None:
    return next((t.drawn for t in reversed(log) if t.player == player), None)


def check_census(game: Game) -> None:
    assert sum(game.census().values()) == 5 * CREATURES_PER_COLOUR
    assert game.colour_census() == Counter(dict.fromkeys(SCORE_COLOURS, CREATURES_PER_COLOUR))


def play_checked(game: Game, policies: Sequence[Policy]) -> None:
    """Play to the end, checking every rule of a turn on the way."""
    check_census(game)
    while True:
        player, board = game.current, game.board
        held = game.summonable()
        expected = expected_moves(board, held)
        moves = game.legal_moves()
        assert set(moves) == expected and len(moves) == len(expected)
        # The game ends exactly when the player to move cannot summon.
        assert game.is_over == (not expected)
        if game.is_over:
            assert not game.fists[player] or not expected
            return
        was_restricted = restricted(game, player)
        if was_restricted:
            assert game.fists[player] == [last_drawn(game.log, player)]
        turn = game.step(policies[player])
        assert turn.player == player
        assert turn.move in expected
        check_summon(board, turn.move.creature())  # raises if illegal
        assert game.board.creatures == (*board.creatures, turn.move.creature())
        if was_restricted:
            assert turn.move.colour == last_drawn(game.log[:-1], player)
            assert not turn.predictions
        if turn.predictions and restricted(game, player):
            assert game.fists[player] == ([] if turn.drawn is None else [turn.drawn])
        check_predictions(game)
        check_census(game)


def check_predictions(game: Game) -> None:
    colours = [c for _, c in game.predictions]
    assert len(set(colours)) == len(colours)
    if game.solitaire:
        assert len(game.solitaire_places) <= 3
        assert set(game.solitaire_places) == set(colours)
        assert len(set(game.solitaire_places.values())) == len(game.solitaire_places)
        assert set(game.solitaire_places.values()) <= {1, 2, 3}
    else:
        players = [p for p, _ in game.predictions]
        assert len(set(players)) == len(players)


# --- properties over many games ---------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=st.sampled_from(sorted(BOARDS)),
    players=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(["random", "greedy"]),
    keeps_fist=st.booleans(),
)
def test_simulated_games_follow_the_rules(
    board: str, players: int, seed: int, policy: str, keeps_fist: bool
) -> None:
    game = Game(BOARDS[board](), players, seed, solitaire_keeps_fist=keeps_fist)
    play_checked(game, make_policies(policy, players, seed))
    result = game.result()
    assert result.end_reason
    if players == 1:
        assert result.solitaire is not None
        assert result.winner == (0 if result.solitaire.won else None)
    else:
        assert result.winner == winning_player(game.predictions, result.score.winners)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), keeps_fist=st.booleans())
def test_eager_predictors_follow_the_rules(players: int, seed: int, keeps_fist: bool) -> None:
    """Players who predict whenever they may: the prediction rules are exercised hard."""
    game = Game(four_circles(), players, seed, solitaire_keeps_fist=keeps_fist)
    policies = [RandomPolicy(seed + p, predict_chance=1.0) for p in range(players)]
    play_checked(game, policies)
    if players > 1:
        assert len(game.predictions) >= 1


def test_same_seed_same_game() -> None:
    logs = []
    for _ in range(2):
        game = Game(four_circles(), 3, 11)
        game.play(make_policies("random", 3, 11))
        logs.append(game.log)
    assert logs[0] == logs[1]
    other = Game(four_circles(), 3, 12)
    other.play(make_policies("random", 3, 12))
    assert other.log != logs[0]


def test_greedy_policy_is_deterministic_and_predicts() -> None:
    logs = []
    for _ in range(2):
        game = Game(layout_board(4), 4, 5)
        game.play(make_policies("greedy", 4, 5))
        logs.append(game.log)
        assert game.predictions
    assert logs[0] == logs[1]


def test_greedy_beats_random() -> None:
    """Greedy plays for its colour and predicts it early: it wins most games."""
    wins: Counter[int | None] = Counter()
    for seed in range(8):
        game = Game(four_circles(), 2, seed)
        result = game.play([GreedyPolicy(seed), RandomPolicy(seed)])
        wins[result.winner] += 1
    assert wins[0] >= 5 and wins[0] > wins[1]


# --- scripted unit tests on two circles -------------------------------------------------


class Scripted:
    """Plays the given moves and predictions in order, one per turn of this player."""

    def __init__(self, moves: Sequence[Move], predictions: Sequence[Sequence[Prediction]] = ()):
        self.moves = list(moves)
        self.predictions = [tuple(p) for p in predictions]

    def choose_move(self, game: Game, player: int) -> Move:
        return self.moves.pop(0)

    def choose_predictions(self, game: Game, player: int) -> tuple[Prediction, ...]:
        return self.predictions.pop(0) if self.predictions else ()


def corner_moves(board: Board, colour: str) -> list[Move]:
    return [Move(colour, f, x) for f, x in legal_corners(board, colour)]


def test_the_player_must_summon_before_finishing() -> None:
    game = Game(two_circles(), 2, 0, fists=[["red"] * 4, ["yellow"] * 4])
    with pytest.raises(GameOverError):
        game.finish_turn()
    with pytest.raises(GameOverError):
        game.finish_turn([Prediction("red")])
    game.summon(corner_moves(two_circles(), "red")[0])
    with pytest.raises(GameOverError):
        game.summon(corner_moves(game.board, "red")[0])


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    board = two_circles()
    game = Game(board, 2, 0, fists=[["red", "red", "white", "green"], ["yellow"] * 4])
    before = (game.board, [list(f) for f in game.fists], list(game.sack))
    illegal = [
        Move("yellow", *legal_corners(board, "yellow")[0]),  # not in the fist
        Move("red", 0, None),  # a demon away from every corner
        Move("white", board.outer_field.id),  # a ghost in the outer field
        Move("green", 0, 0),  # a green demon at a red/yellow crossing
        Move("red", 0, 99),  # no such corner
    ]
    for move in illegal:
        with pytest.raises(IllegalMoveError):
            game.step(Scripted([move]))
        assert (game.board, game.fists, game.sack) == before
        assert game.phase == "summon"


def test_a_ghost_freezes_its_field() -> None:
    board = two_circles()
    inside = lens(board)
    game = Game(board, 1, 0, fists=[["white", "red", "red", "yellow"]])
    game.step(Scripted([Move(WHITE, inside)]))
    assert all(m.field != inside for m in game.legal_moves())
    corner = next(x for f, x in legal_corners(board, "red") if f == inside)
    with pytest.raises(IllegalMoveError):
        game.summon(Move("red", inside, corner))
    with pytest.raises(IllegalMoveError):
        game.summon(Move(WHITE, inside))


def test_predicting_returns_the_rest_of_the_fist() -> None:
    board = two_circles()
    game = Game(board, 2, 3, fists=[["red", "red", "white", "yellow"], ["yellow"] * 4])
    sack_before = len(game.sack)
    move = corner_moves(board, "red")[0]
    turn = game.step(Scripted([move], [[Prediction("yellow")]]))
    assert turn.predictions == (Prediction("yellow"),)
    assert sorted(turn.returned) == ["red", "white"]
    assert game.predictions == [(0, "yellow")]
    assert game.fists[0] == [turn.drawn]
    assert len(game.sack) == sack_before + 2 - 1
    assert game.prediction_colours(0) == []
    assert game.summonable(0) == [turn.drawn]
    check_census(game)


def test_predicting_needs_a_remaining_creature_and_a_free_colour() -> None:
    board = two_circles()
    game = Game(board, 2, 3, fists=[["red", "red", "white", "yellow"], ["yellow"] * 4])
    game.step(Scripted([corner_moves(board, "red")[0]], [[Prediction("yellow")]]))
    game.summon(corner_moves(game.board, "yellow")[0])
    assert game.prediction_colours() == []  # yellow is taken, player 2 holds only yellow
    for bad in ([Prediction("yellow")], [Prediction("red")], [Prediction("yellow", 1)]):
        with pytest.raises(IllegalMoveError):
            game.finish_turn(bad)
    assert game.phase == "predict"
    game.finish_turn()
    # Player 1 has predicted: no second prediction, whatever they hold.
    assert game.prediction_colours() == []


def test_one_prediction_per_turn_in_a_multi_player_game() -> None:
    board = two_circles()
    game = Game(board, 2, 3, fists=[["red", "red", "white", "yellow"], ["yellow"] * 4])
    game.summon(corner_moves(board, "red")[0])
    with pytest.raises(IllegalMoveError):
        game.finish_turn([Prediction("red"), Prediction("white")])
    with pytest.raises(IllegalMoveError):
        game.finish_turn([Prediction("green")])  # not in the fist


def test_drawing_from_an_empty_sack_draws_nothing() -> None:
    board = two_circles()
    game = Game(board, 1, 0, fists=[["red", "yellow"]], sack=[])
    turn = game.step(Scripted([corner_moves(board, "red")[0]]))
    assert turn.drawn is None
    assert game.fists[0] == ["yellow"] and not game.is_over
    game.step(Scripted([corner_moves(game.board, "yellow")[0]]))
    assert game.is_over
    assert game.end_reason == "player 1 has no creature left"
    with pytest.raises(GameOverError):
        game.step(Scripted([corner_moves(game.board, "red")[0]]))


def test_the_game_ends_at_once_when_the_next_player_cannot_summon() -> None:
    board = two_circles()
    game = Game(board, 3, 0, fists=[["red"] * 4, ["green", "blue", "green", "blue"], ["red"] * 4])
    game.step(Scripted([corner_moves(board, "red")[0]]))
    assert game.is_over and game.current == 1
    assert game.end_reason == "player 2 has no legal place for green demon, blue demon"
    assert len(game.log) == 1
    assert game.can_summon(2)  # player 3 could go on, but the game is over


def test_a_game_can_be_over_before_the_first_turn() -> None:
    game = Game(two_circles(), 2, 0, fists=[["green", "blue", "blue"], ["red"]])
    assert game.is_over and not game.log
    result = game.play(make_policies("random", 2, 0))
    assert result.winner is None and result.end_reason.startswith("player 1 has no legal place")


def test_a_full_board_ends_the_game() -> None:
    """Two circles hold 8 demons and 3 ghosts at most: the game cannot go on after that."""
    game = Game(two_circles(), 2, 1, fists=[["red", "yellow", "white", "red"]] * 2)
    play_checked(game, make_policies("random", 2, 1))
    assert len(game.board.creatures) <= 8 + 3


def test_a_pinched_corner_takes_two_demons() -> None:
    """A field owning two sectors of one crossing has two corners there."""
    square = ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
    # Only the topology matters here; the lines are there because crossings name them.
    board = Board(
        lines=(Line("red", square), Line("yellow", square)),
        crossings=(Crossing(0, (0.0, 0.0), ("red", "yellow")),),
        fields=(
            Field(0, True, (0, 0)),
            Field(1, False, (0,), (), square),
            Field(2, False, (0,), (), square),
        ),
    )
    game = Game(board, 1, 0, fists=[["red", "red", "red", "yellow"]], sack=[])
    for _ in range(2):
        assert Move("red", 0, 0) in game.legal_moves()
        game.step(Scripted([Move("red", 0, 0)]))
    assert Move("red", 0, 0) not in game.legal_moves()
    assert set(game.legal_moves()) == expected_moves(game.board, game.summonable())
    # Two demons in the two corners there break no rule (the stand-in lines cross too few).
    assert {v.rule for v in find_violations(game.board)} == {Rule.LOOP_CROSSES_TOO_FEW}


# --- solitaire --------------------------------------------------------------------------


def test_solitaire_keeps_the_fist_by_default() -> None:
    board = two_circles()
    game = Game(board, 1, 0, fists=[["red", "red", "yellow", "white"]])
    turn = game.step(Scripted([corner_moves(board, "red")[0]], [[Prediction("yellow", 2)]]))
    assert turn.returned == ()
    assert turn.drawn is not None
    assert sorted(game.fists[0]) == sorted(["red", "white", turn.drawn])
    assert game.solitaire_places == {"yellow": 2}
    assert set(game.prediction_colours()) == set(game.fists[0]) - {"yellow"}
    assert game.open_places() == [1, 3]
    check_census(game)


def test_solitaire_french_returns_the_fist_and_predicts_once() -> None:
    board = two_circles()
    game = Game(board, 1, 0, fists=[["red", "red", "yellow", "white"]], solitaire_keeps_fist=False)
    turn = game.step(
        Scripted([corner_moves(board, "red")[0]], [[Prediction("yellow", 2), Prediction("red", 1)]])
    )
    assert turn.returned == ("white",)
    assert game.fists[0] == [turn.drawn]
    assert game.summonable() == [turn.drawn]
    assert game.prediction_colours() == []
    check_census(game)


def test_solitaire_prediction_rules() -> None:
    board = two_circles()
    game = Game(board, 1, 0, fists=[["red", "red", "yellow", "white"]])
    game.summon(corner_moves(board, "red")[0])
    for bad in (
        [Prediction("red")],  # no place
        [Prediction("red", 4)],
        [Prediction("red", 1), Prediction("yellow", 1)],
        [Prediction("red", 1), Prediction("red", 2)],
        [Prediction("green", 1)],
    ):
        with pytest.raises(IllegalMoveError):
            game.finish_turn(bad)
    game.finish_turn([Prediction("red", 1), Prediction("yellow", 2)])
    assert game.open_places() == [3]


@pytest.mark.parametrize("keeps_fist", [True, False])
def test_solitaire_result(keeps_fist: bool) -> None:
    for seed in range(5):
        game = Game(four_circles(), 1, seed, solitaire_keeps_fist=keeps_fist)
        result = game.play([RandomPolicy(seed, predict_chance=0.5)])
        assert result.solitaire is not None
        assert len(game.solitaire_places) <= 3
        if not game.solitaire_places:
            assert not result.solitaire.won


def test_french_solitaire_never_predicts_twice() -> None:
    for seed in range(10):
        game = Game(four_circles(), 1, seed, solitaire_keeps_fist=False)
        game.play([RandomPolicy(seed, predict_chance=0.5)])
        assert sum(1 for t in game.log if t.predictions) <= 1


# --- positions and the report -----------------------------------------------------------


def test_final_board_positions_and_report() -> None:
    board = layout_board(4)
    game = Game(board, 4, 2)
    game.play([RandomPolicy(p, predict_chance=0.3) for p in range(4)])
    final = game.final_board()
    geometry = BoardGeometry(board)
    on_board = [c for c in final.creatures if not c.off_board]
    off_board = [c for c in final.creatures if c.off_board]
    assert len(on_board) == len(game.board.creatures)
    assert len(off_board) == len(game.predictions)
    for c in on_board:
        assert c.xy is not None and c.field is not None
        assert geometry.field_at(c.xy) == c.field
        if c.crossing is not None:
            distance = math.dist(c.xy, board.crossings[c.crossing].xy)
            assert game.clearance <= distance <= 4 * game.clearance + 1e-6
    for c, (_, colour) in zip(off_board, game.predictions, strict=True):
        assert c.colour == colour and c.field is None and c.crossing is None and c.xy is not None
    assert find_violations(final) == []
    report = json.loads(json.dumps(board_to_report(final)))
    again = board_from_report(report)
    assert len(again.creatures) == len(final.creatures)
    assert report["scores"] == dict(game.result().score.points)


def test_final_board_without_geometry_has_no_positions() -> None:
    circles = two_circles()
    without_polygons = tuple(replace(f, polygon=None) for f in circles.fields)
    board = replace(circles, fields=without_polygons)
    game = Game(board, 2, 0)
    game.play(make_policies("random", 2, 0))
    assert all(c.xy is None for c in game.final_board().creatures)


# --- the command line -------------------------------------------------------------------


def test_play_command_prints_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "turn  1  player 1  summons " in out
    assert "Winning colours: " in out and "Winner: " in out and "Game over after" in out


def play_log(capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    """The turn lines ``play`` prints for a greedy solitaire game with ``options``."""
    assert main(["play", "--players", "1", "--policy", "greedy", *options]) == 0
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith("turn")]


@pytest.mark.parametrize("seed", ["1", "4"])
def test_play_command_solitaire_french_option(
    capsys: pytest.CaptureFixture[str], seed: str
) -> None:
    """English/German: the fist is kept and predicting can go on. French: one prediction
    turn returns the rest of the fist, then each turn summons what was drawn last."""
    kept = play_log(capsys, "--seed", seed)
    assert not any("returns" in line for line in kept)
    assert sum("predicts" in line for line in kept) == 2  # greedy predicts again later

    french = play_log(capsys, "--seed", seed, "--solitaire-french")
    predicting = [i for i, line in enumerate(french) if "predicts" in line]
    assert len(predicting) == 1
    assert "returns" in french[predicting[0]]
    summoned = [re.search(r"summons (ghost|\w+ demon)", line) for line in french]
    drawn = [re.search(r"draws (ghost|\w+ demon)", line) for line in french]
    later = range(predicting[0] + 1, len(french))
    assert len(later) >= 3
    for i in later:
        before, now = drawn[i - 1], summoned[i]
        assert before is not None and now is not None
        assert now.group(1) == before.group(1), french[i]


def test_play_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "4", "--seed", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "dicke-daemonen/board@1"
    assert report["game"]["players"] == 4
    off = [c for c in report["creatures"] if c["off_board"]]
    assert len(off) == len(report["game"]["predictions"])
    assert all(c["field"] is None and c["crossing"] is None for c in off)
    assert all(c["xy"] is not None for c in report["creatures"])
    board_from_report(report)
