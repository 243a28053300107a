"""Boards to photograph: a random legal layout, a simulated game stopped at some point,
sometimes a few deliberate violations, and the prediction pawns beside the board.

Everything here is in table millimetres and comes from the engine, so the ground truth
of a synthetic photo is exactly what the engine says of this board.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from engine.board import Board, Creature, Point, demon, ghost
from engine.colours import CREATURES_PER_COLOUR, DEMON, GHOST, LINE_COLOURS, WHITE
from engine.game import Game
from engine.layout import Layout, random_layout
from engine.legality import free_corners, frozen_fields
from engine.placement import BoardGeometry
from engine.policies import POLICIES, make_policies
from engine.rules import Rule

#: Nominal pawn footprint used to place pawns; the scene varies the real width a little.
PAWN_WIDTH_MM = 20.0
#: A pawn in a corner stands this far from both strings (centre of its base).
CORNER_CLEARANCE_MM = 13.0

#: How far into a game a photo is taken, with the share of creatures on the board.
STAGES = ("early", "mid", "end")

#: Violations the generator can plant (each named by the rule it breaks).
PLANTABLE = (
    Rule.GHOST_IN_OUTER_FIELD,
    Rule.TWO_GHOSTS_IN_FIELD,
    Rule.DEMON_COLOUR_MISMATCH,
    Rule.DEMON_NOT_IN_CORNER,
)


@dataclass(frozen=True)
class SyntheticBoard:
    """A board in table millimetres plus how it was made."""

    layout: Layout
    board: Board
    #: Crossing id -> colour of the string lying on top there.
    over: dict[int, str]
    stage: str
    players: int
    planted: tuple[Rule, ...]
    #: The board's geometry, built once (it depends on the lines, not the creatures).
    geometry: BoardGeometry = field(compare=False, repr=False)


def generate_board(
    rng: np.random.Generator, difficulty: str, players: int | None = None
) -> SyntheticBoard:
    """A random board as players would leave it on the table.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness: the same state gives the same board.
    difficulty : {"easy", "normal", "hard"}
        Hard photos are taken later in the game (fuller boards) more often.
    players : int, optional
        How many play (1-4); drawn at random when not given.
    """
    layout = random_layout(int(rng.integers(2**32)))
    geometry = BoardGeometry(layout.board())
    stage = str(rng.choice(STAGES, p=_stage_weights(difficulty)))
    drawn = int(rng.integers(1, 5))
    players = drawn if players is None else players
    board, predicted = _play(geometry, rng, stage, players)
    board = _add_predictions(board, predicted)
    # Planted after the predictions, so that no colour gets more than its 10 creatures.
    board, planted = _plant_violations(board, geometry, rng, difficulty)
    over = {c.id: str(rng.choice(c.lines)) for c in board.crossings}
    return SyntheticBoard(layout, board, over, stage, players, planted, geometry)


def _stage_weights(difficulty: str) -> list[float]:
    weights = {"easy": [0.4, 0.4, 0.2], "normal": [0.3, 0.4, 0.3], "hard": [0.15, 0.35, 0.5]}
    if difficulty not in weights:
        raise ValueError(f"unknown difficulty {difficulty!r}; expected easy, normal or hard")
    return weights[difficulty]


# --- a game played part of the way -----------------------------------------------------


def _play(
    geometry: BoardGeometry, rng: np.random.Generator, stage: str, players: int
) -> tuple[Board, list[str]]:
    """Play a game and stop it at ``stage``; return the board and the predicted colours."""
    seed = int(rng.integers(2**32))
    game = Game(geometry.board, players=players, seed=seed, clearance=CORNER_CLEARANCE_MM)
    policies = make_policies(str(rng.choice(list(POLICIES))), players, seed)
    stop_at = _stop_after(rng, stage)
    while not game.is_over and len(game.board.creatures) < stop_at:
        game.step(policies[game.current])
    # No positions: the players put the pawns down later (synth.placement), knowing
    # the pawns' real size.
    board = game.final_board(with_positions=False, with_predictions=False)
    return board, [colour for _, colour in game.predictions]


def _stop_after(rng: np.random.Generator, stage: str) -> float:
    """How many creatures are on the board when the photo is taken."""
    if stage == "early":
        return int(rng.integers(5, 13))
    if stage == "mid":
        return int(rng.integers(15, 31))
    return math.inf  # the natural end


def _corner_xy(geometry: BoardGeometry, field: int, crossing: int) -> Point:
    return geometry.corner_point(field, crossing, CORNER_CLEARANCE_MM)


# --- deliberate violations ------------------------------------------------------------


def _plant_violations(
    board: Board, geometry: BoardGeometry, rng: np.random.Generator, difficulty: str
) -> tuple[Board, tuple[Rule, ...]]:
    """Sometimes add one or two illegal placements that a photo can prove."""
    chance = {"easy": 0.2, "normal": 0.3, "hard": 0.4}[difficulty]
    if rng.random() >= chance:
        return board, ()
    planted = []
    for index in rng.permutation(len(PLANTABLE))[: int(rng.integers(1, 3))]:
        rule = PLANTABLE[int(index)]
        changed = _PLANTERS[rule](board, geometry, rng)
        if changed is not None:
            board = changed
            planted.append(rule)
    return board, tuple(planted)


def _plant_ghost_in_outer_field(
    board: Board, geometry: BoardGeometry, rng: np.random.Generator
) -> Board | None:
    """A ghost just outside the lines, between two crossings of the outer boundary."""
    outer = board.outer_field
    if not outer.corners or not _spare(board, (WHITE,)):
        return None
    crossing = board.crossings[int(rng.choice(outer.corners))]
    # Close enough to the lines to be on the board: off-board starts 5 pawn radii out.
    xy = geometry.corner_point(outer.id, crossing.id, 1.5 * PAWN_WIDTH_MM)
    if geometry.field_at(xy) != outer.id or _crowded(board, xy):
        return None
    return board.with_creature(ghost(outer.id, xy))


def _plant_two_ghosts(
    board: Board, geometry: BoardGeometry, rng: np.random.Generator
) -> Board | None:
    """A second ghost beside the first in a roomy field."""
    white_left = CREATURES_PER_COLOUR - sum(c.colour == WHITE for c in board.creatures)
    for field_id in rng.permutation([f.id for f in board.fields if not f.outer]):
        field_id = int(field_id)
        already = len(board.ghosts_in(field_id))
        if already > 1 or white_left < 2 - already:
            continue
        if geometry.clearance_of(field_id) < 1.6 * PAWN_WIDTH_MM:
            continue
        x, y = geometry.field_centre(field_id)
        angle = rng.uniform(0, 2 * math.pi)
        xy = (x + 1.3 * PAWN_WIDTH_MM * math.cos(angle), y + 1.3 * PAWN_WIDTH_MM * math.sin(angle))
        if geometry.field_at(xy) != field_id or _crowded(board, xy, ignore_ghost_at=(x, y)):
            continue
        if not already:
            board = board.with_creature(ghost(field_id, (x, y)))
        return board.with_creature(ghost(field_id, xy))
    return None


def _plant_mismatched_demon(
    board: Board, geometry: BoardGeometry, rng: np.random.Generator
) -> Board | None:
    """A demon in a free corner whose two lines both have other colours."""
    frozen = frozen_fields(board)
    corners = [c for c in free_corners(board) if c[0] not in frozen]
    for index in rng.permutation(len(corners)):
        field_id, crossing_id = corners[int(index)]
        others = _spare(
            board, [c for c in LINE_COLOURS if c not in board.crossings[crossing_id].lines]
        )
        xy = _corner_xy(geometry, field_id, crossing_id)
        if others and not _crowded(board, xy):
            return board.with_creature(demon(str(rng.choice(others)), field_id, crossing_id, xy))
    return None


def _plant_demon_off_corner(
    board: Board, geometry: BoardGeometry, rng: np.random.Generator
) -> Board | None:
    """A demon standing inside a field but far from every crossing."""
    for field_id in rng.permutation([f.id for f in board.fields if not f.outer]):
        field_id = int(field_id)
        if geometry.clearance_of(field_id) < 1.2 * PAWN_WIDTH_MM:
            continue
        xy = geometry.field_centre(field_id)
        near = min(math.dist(xy, board.crossings[c].xy) for c in board.fields[field_id].corners)
        colours = _spare(board, LINE_COLOURS)
        if colours and near > 3 * PAWN_WIDTH_MM and not _crowded(board, xy):
            return board.with_creature(demon(str(rng.choice(colours)), field_id, None, xy))
    return None


_PLANTERS = {
    Rule.GHOST_IN_OUTER_FIELD: _plant_ghost_in_outer_field,
    Rule.TWO_GHOSTS_IN_FIELD: _plant_two_ghosts,
    Rule.DEMON_COLOUR_MISMATCH: _plant_mismatched_demon,
    Rule.DEMON_NOT_IN_CORNER: _plant_demon_off_corner,
}


def _spare(board: Board, colours: list[str] | tuple[str, ...]) -> list[str]:
    """Colours of which the game still has a creature that is not on or beside the board."""
    used = Counter(c.colour for c in board.creatures)
    return [c for c in colours if used[c] < CREATURES_PER_COLOUR]


def _crowded(board: Board, xy: Point, ignore_ghost_at: Point | None = None) -> bool:
    """Whether a pawn at ``xy`` would stand on another pawn."""
    for c in board.creatures:
        if c.xy is None or c.xy == ignore_ghost_at:
            continue
        if math.dist(c.xy, xy) < 1.05 * PAWN_WIDTH_MM:
            return True
    return False


# --- predictions beside the board ---------------------------------------------------


def _add_predictions(board: Board, colours: list[str]) -> Board:
    """The predicted creatures, off the board. They get their place on the table once
    the camera is known (:func:`synth.photo.place_off_board`), so that they stand in view.
    """
    for colour in colours:
        kind = GHOST if colour == WHITE else DEMON
        board = board.with_creature(Creature(kind, colour, off_board=True))
    return board
