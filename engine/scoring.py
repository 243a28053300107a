"""Power points, winning colours and winning players.

The rule variants the rulebooks disagree on are fields of :class:`ScoringOptions`
(RULES.md marks them **[ruling]**), so a caller says which reading it scores by.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.board import Board
from engine.colours import DEMON, GHOST, SCORE_COLOURS, WHITE
from engine.validate import check_creatures


@dataclass(frozen=True)
class ScoringOptions:
    """Rule variants for scoring.

    Attributes
    ----------
    mismatched_demons_count : bool
        A demon standing in a corner whose lines are both of other colours (an illegal
        placement) still counts towards its colour's majority. The photo shows it there;
        the violation is reported separately.
    white_points : {"ghosts", "fields"}
        White scores one point per ghost on the board (the rulebook), or per field that
        holds at least one ghost (differs only when a field illegally holds two).
    solitaire_tie_fails : bool
        [ruling] A colour that shares its place with another has not reached that place
        exactly, so a solitaire prediction on it fails.
    """

    mismatched_demons_count: bool = True
    white_points: Literal["ghosts", "fields"] = "ghosts"
    solitaire_tie_fails: bool = True


DEFAULT_OPTIONS = ScoringOptions()


@dataclass(frozen=True)
class Score:
    """The outcome of a board: points per colour, field owners and winning colours."""

    #: Power points of all five colours.
    points: Mapping[str, int]
    #: Field id -> colour holding the strict majority there, or None.
    owners: Mapping[int, str | None]
    #: The colours with the most points, sorted.
    winners: tuple[str, ...]


def field_majorities(
    board: Board, options: ScoringOptions = DEFAULT_OPTIONS
) -> dict[int, str | None]:
    """Which demon colour has strictly the most demons in each field's corners."""
    counts: dict[int, Counter[str]] = {f.id: Counter() for f in board.fields}
    for _, c in board.on_board_creatures:
        if c.kind != DEMON or c.field is None or c.crossing is None:
            continue
        if (
            not options.mismatched_demons_count
            and c.colour not in board.crossings[c.crossing].lines
        ):
            continue
        counts[c.field][c.colour] += 1
    return {field_id: _strict_leader(tally) for field_id, tally in counts.items()}


def _strict_leader(tally: Counter[str]) -> str | None:
    ranked = tally.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def white_points(board: Board, options: ScoringOptions = DEFAULT_OPTIONS) -> int:
    """White's power points: ghosts on the board (or fields holding one)."""
    ghost_fields = [c.field for _, c in board.on_board_creatures if c.kind == GHOST]
    return len(ghost_fields) if options.white_points == "ghosts" else len(set(ghost_fields))


def score(board: Board, options: ScoringOptions = DEFAULT_OPTIONS) -> Score:
    """Score a board: every field's value goes to its strict demon majority.

    Raises
    ------
    BoardError
        If a creature names a field or corner the board does not have (a board put
        together without :meth:`Board.with_creatures`).
    """
    check_creatures(board)
    owners = field_majorities(board, options)
    points = dict.fromkeys(SCORE_COLOURS, 0)
    for f in board.fields:
        owner = owners[f.id]
        if owner is not None:
            points[owner] += f.value
    points[WHITE] = white_points(board, options)
    return Score(points=points, owners=owners, winners=winning_colours(points))


def winning_colours(points: Mapping[str, int]) -> tuple[str, ...]:
    """The colour(s) with the most points, sorted; several can win together."""
    best = max(points.values())
    return tuple(sorted(colour for colour, p in points.items() if p == best))


def winning_player(predictions: Sequence[tuple[int, str]], winners: Sequence[str]) -> int | None:
    """The player who first predicted a winning colour, or None if nobody did.

    Parameters
    ----------
    predictions : sequence of (player, colour)
        In the order they were made during the game.
    winners : sequence of str
        The winning colours.
    """
    for player, colour in predictions:
        if colour in winners:
            return player
    return None


# --- solitaire --------------------------------------------------------------------------

#: Solitaire multiplier of each predicted place.
PLACE_WEIGHTS: Mapping[int, int] = {1: 3, 2: 2, 3: 1}


@dataclass(frozen=True)
class SolitaireResult:
    won: bool
    points: int
    #: Predicted colour -> the place it actually took (shared places count as reached
    #: only when ties do not fail).
    places: Mapping[str, int]


def place_of(colour: str, points: Mapping[str, int]) -> tuple[int, bool]:
    """(place, shared): 1 + the number of colours with more points, and whether tied."""
    mine = points[colour]
    above = sum(1 for other, p in points.items() if other != colour and p > mine)
    shared = any(p == mine for other, p in points.items() if other != colour)
    return above + 1, shared


def solitaire_result(
    points: Mapping[str, int],
    predictions: Mapping[str, int],
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> SolitaireResult:
    """Score a solitaire game: up to three colours, each predicted on place 1, 2 or 3.

    The player wins only if every predicted colour ends exactly on its place, and then
    scores 3x their place-1 colour + 2x place-2 + 1x place-3 (predicted places only).
    """
    _check_solitaire_predictions(predictions)
    places = {}
    won = True
    for colour, predicted in predictions.items():
        place, shared = place_of(colour, points)
        places[colour] = place
        if place != predicted or (shared and options.solitaire_tie_fails):
            won = False
    total = sum(PLACE_WEIGHTS[p] * points[c] for c, p in predictions.items()) if won else 0
    return SolitaireResult(won=won, points=total, places=places)


def _check_solitaire_predictions(predictions: Mapping[str, int]) -> None:
    if not 1 <= len(predictions) <= 3:
        raise ValueError(f"solitaire takes 1 to 3 predictions, not {len(predictions)}")
    for colour, place in predictions.items():
        if colour not in SCORE_COLOURS:
            raise ValueError(f"unknown colour {colour!r} in a solitaire prediction")
        if place not in PLACE_WEIGHTS:
            raise ValueError(f"a solitaire place is 1, 2 or 3, not {place!r}")
    if len(set(predictions.values())) != len(predictions):
        raise ValueError("two solitaire predictions name the same place")


__all__ = [
    "DEFAULT_OPTIONS",
    "Score",
    "ScoringOptions",
    "SolitaireResult",
    "field_majorities",
    "score",
    "solitaire_result",
    "winning_colours",
    "winning_player",
]
