"""Where creatures may be summoned, and what a finished board shows to be wrong.

Plain functions of a :class:`~engine.board.Board`, in the manner of a chess move
generator: ``legal_corners`` and ``legal_ghost_fields`` say where a creature may go
now; ``find_violations`` lists every broken rule a single photo can prove.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from engine.board import Board, Creature
from engine.colours import CREATURES_PER_COLOUR, DEMON, GHOST, SCORE_COLOURS
from engine.errors import IllegalMoveError
from engine.rules import Rule
from engine.validate import check_creatures

#: A corner slot: (field id, crossing id).
Corner = tuple[int, int]

# The rule names as module constants, for older callers: use ``engine.rules.Rule``.
GHOST_IN_OUTER_FIELD = Rule.GHOST_IN_OUTER_FIELD
TWO_GHOSTS_IN_FIELD = Rule.TWO_GHOSTS_IN_FIELD
DEMON_NOT_IN_CORNER = Rule.DEMON_NOT_IN_CORNER
DEMON_COLOUR_MISMATCH = Rule.DEMON_COLOUR_MISMATCH
TWO_DEMONS_IN_CORNER = Rule.TWO_DEMONS_IN_CORNER
TOO_MANY_CREATURES = Rule.TOO_MANY_CREATURES
LOOP_CROSSES_TOO_FEW = Rule.LOOP_CROSSES_TOO_FEW
LAYOUT_PROBLEM = Rule.LAYOUT_PROBLEM


@dataclass(frozen=True)
class Violation:
    """One broken rule, with the creatures (and lines) that show it.

    ``rule`` is a :class:`~engine.rules.Rule` (a plain string naming one is accepted).
    """

    rule: str
    creatures: tuple[int, ...]
    message: str
    lines: tuple[str, ...] = ()


def frozen_fields(board: Board) -> frozenset[int]:
    """Fields holding a ghost: nothing more may be summoned there."""
    return frozenset(
        c.field for _, c in board.on_board_creatures if c.kind == GHOST and c.field is not None
    )


def free_corners(board: Board) -> list[Corner]:
    """Corners with no demon yet, one entry per free corner, in a stable order."""
    taken = Counter(
        (c.field, c.crossing)
        for _, c in board.on_board_creatures
        if c.kind == DEMON and c.crossing is not None
    )
    free = []
    for corner, capacity in sorted(board.corner_capacity.items()):
        free.extend([corner] * max(0, capacity - taken[corner]))
    return free


def legal_corners(board: Board, colour: str) -> list[Corner]:
    """Corners where a demon of ``colour`` may be summoned now.

    A corner qualifies when it is free, its field holds no ghost, and one of the two
    lines crossing there has the demon's colour.
    """
    frozen = frozen_fields(board)
    return sorted(
        {
            (f, x)
            for f, x in free_corners(board)
            if f not in frozen and colour in board.crossings[x].lines
        }
    )


def legal_ghost_fields(board: Board) -> list[int]:
    """Fields where a ghost may be summoned now: bounded and free of ghosts."""
    frozen = frozen_fields(board)
    return [f.id for f in board.fields if not f.outer and f.id not in frozen]


def can_summon(board: Board, colour: str) -> bool:
    """Whether a creature of ``colour`` (``white`` for a ghost) has somewhere to go."""
    if colour == "white":
        return bool(legal_ghost_fields(board))
    return bool(legal_corners(board, colour))


def check_summon(board: Board, creature: Creature) -> None:
    """Raise :class:`IllegalMoveError` unless ``creature`` may be summoned on ``board``."""
    if creature.off_board or creature.field is None:
        raise IllegalMoveError("a summoned creature must stand in a field")
    if creature.kind == GHOST:
        if creature.field not in legal_ghost_fields(board):
            raise IllegalMoveError(f"a ghost may not be summoned into field {creature.field}")
        return
    if creature.crossing is None:
        raise IllegalMoveError("a demon must be summoned into a corner")
    if (creature.field, creature.crossing) not in legal_corners(board, creature.colour):
        raise IllegalMoveError(
            f"a {creature.colour} demon may not be summoned into the corner of field "
            f"{creature.field} at crossing {creature.crossing}"
        )


def summon(board: Board, creature: Creature) -> Board:
    """The board after legally summoning ``creature``; raises if the move is illegal."""
    check_summon(board, creature)
    return board.with_creature(creature)


# --- what a finished board shows --------------------------------------------------------


def find_violations(board: Board) -> list[Violation]:
    """Every rule violation that a single photo of ``board`` can prove.

    A demon summoned into a field after its ghost cannot be told from one that was
    there before, so frozen fields are not checked here.

    Raises
    ------
    BoardError
        If a creature names a field or corner the board does not have.
    """
    check_creatures(board)
    return [
        *_ghost_violations(board),
        *_demon_violations(board),
        *_count_violations(board),
        *_loop_violations(board),
    ]


def _ghost_violations(board: Board) -> list[Violation]:
    found = []
    by_field: dict[int, list[int]] = defaultdict(list)
    for i, c in board.on_board_creatures:
        if c.kind != GHOST or c.field is None:
            continue
        if c.field == board.outer_field.id:
            found.append(
                Violation(Rule.GHOST_IN_OUTER_FIELD, (i,), "ghost stands in the outer field")
            )
        else:
            by_field[c.field].append(i)
    for field_id, ids in sorted(by_field.items()):
        if len(ids) > 1:
            found.append(
                Violation(
                    Rule.TWO_GHOSTS_IN_FIELD, tuple(ids), f"{len(ids)} ghosts in field {field_id}"
                )
            )
    return found


def _demon_violations(board: Board) -> list[Violation]:
    found = []
    in_corner: dict[Corner, list[int]] = defaultdict(list)
    for i, c in board.on_board_creatures:
        if c.kind != DEMON:
            continue
        if c.crossing is None or c.field is None:
            found.append(
                Violation(
                    Rule.DEMON_NOT_IN_CORNER,
                    (i,),
                    f"{c.colour} demon stands away from every corner",
                )
            )
            continue
        in_corner[(c.field, c.crossing)].append(i)
        crossing = board.crossings[c.crossing]
        if c.colour not in crossing.lines:
            a, b = crossing.lines
            found.append(
                Violation(
                    Rule.DEMON_COLOUR_MISMATCH, (i,), f"{c.colour} demon at a {a}/{b} crossing"
                )
            )
    for corner, ids in sorted(in_corner.items()):
        if len(ids) > board.corner_capacity[corner]:
            field_id, crossing_id = corner
            found.append(
                Violation(
                    Rule.TWO_DEMONS_IN_CORNER,
                    tuple(ids),
                    f"{len(ids)} demons in one corner of field {field_id} "
                    f"at crossing {crossing_id}",
                )
            )
    return found


def _count_violations(board: Board) -> list[Violation]:
    # Predictions in front of the players are creatures of the game too, so they count.
    found = []
    for colour in SCORE_COLOURS:
        ids = tuple(i for i, c in enumerate(board.creatures) if c.colour == colour)
        if len(ids) > CREATURES_PER_COLOUR:
            found.append(
                Violation(
                    Rule.TOO_MANY_CREATURES,
                    ids,
                    f"{len(ids)} {colour} creatures; the game has {CREATURES_PER_COLOUR}",
                )
            )
    return found


def _loop_violations(board: Board) -> list[Violation]:
    found = []
    for line in board.lines:
        crossed = board.crossed_colours(line.colour)
        if len(crossed) < 2:
            others = ", ".join(sorted(crossed)) or "no other line"
            found.append(
                Violation(
                    Rule.LOOP_CROSSES_TOO_FEW,
                    (),
                    f"the {line.colour} loop crosses only {others}; it must cross at least two",
                    (line.colour,),
                )
            )
    return found
