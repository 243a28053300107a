"""A simulated game of Dicke Dämonen: the sack, the fists, the turns and the end.

:class:`Game` holds the whole state of one game on one board and plays it by the rules
of RULES.md ("A turn"):

1. the player to move **must** summon one creature of their fist (:meth:`Game.summon`);
2. they **may** predict a colour once per game by putting one of their remaining
   creatures in front of them, and then return the rest of their fist to the sack;
3. they draw one creature from the sack if it is not empty (steps 2 and 3 are
   :meth:`Game.finish_turn`).

The game ends immediately when the player to move cannot summon: their fist is empty or
no creature in it has a legal place. Who decides what is a *policy* (see
:mod:`engine.policies`); :meth:`Game.play` lets one policy per player play to the end.

Creatures off the board are named by their colour (``"white"`` is a ghost). Every
creature is always in exactly one place: the sack, a fist, a prediction or the board
(:meth:`Game.census`).

Legal moves are kept incrementally (a free-corner table per colour and the set of
ghost-free bounded fields) so that thousands of games can be simulated; the table
always describes ``Game.board`` exactly, and :mod:`engine.legality` remains the
definition the tests check it against.

Solitaire (one player) differs in the prediction step: the solo player may predict up
to three different colours, each with the place (1, 2 or 3) it will take, each by
putting a creature of that colour from the fist aside. Several may be predicted in the
same turn. What happens to the rest of the fist is the ``solitaire_keeps_fist`` ruling:

- ``True`` (English and German rules, the default): the player keeps the remaining
  creatures, draws as usual and may predict again on later turns until three colours
  are predicted;
- ``False`` (the French reading): predicting works as in the multi-player game. The
  player predicts once (one to three colours at once), returns the rest of the fist to
  the sack, and from then on holds one creature: the one drawn last.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol

from engine.board import Board, Creature, demon, ghost
from engine.colours import CREATURES_PER_COLOUR, DEMON, GHOST, SCORE_COLOURS, WHITE
from engine.errors import EngineError, IllegalMoveError
from engine.placement import BoardGeometry
from engine.scoring import (
    DEFAULT_OPTIONS,
    PLACE_WEIGHTS,
    Score,
    ScoringOptions,
    SolitaireResult,
    score,
    solitaire_result,
    winning_player,
)
from engine.validate import check_board

#: Creatures a player holds at the start: the fist.
FIST_SIZE: Final = 4
#: Most players a game can have.
MAX_PLAYERS: Final = 4
#: Solitaire places a colour can be predicted on.
SOLITAIRE_PLACES: Final[tuple[int, ...]] = tuple(sorted(PLACE_WEIGHTS))
#: Most colours the solo player may predict.
MAX_SOLITAIRE_PREDICTIONS: Final = len(SOLITAIRE_PLACES)
#: Default distance (layout millimetres) of a demon from both lines of its corner.
DEFAULT_CLEARANCE: Final = 12.0
#: Largest clearance accepted: a creature further from its lines is not in the corner.
MAX_CLEARANCE: Final = 100.0

#: The phases of a turn: a creature must be summoned, then the turn can be finished.
SUMMON: Final = "summon"
PREDICT: Final = "predict"

#: Key of a place in the legal-move table: (field, crossing), crossing None for a ghost.
_Place = tuple[int, int | None]


def full_sack() -> list[str]:
    """The 50 creatures of the game: 10 ghosts and 10 demons of each line colour."""
    return [colour for colour in SCORE_COLOURS for _ in range(CREATURES_PER_COLOUR)]


def kind_of(colour: str) -> str:
    """``"ghost"`` for a white creature, ``"demon"`` for the others."""
    return GHOST if colour == WHITE else DEMON


def creature_name(colour: str) -> str:
    """``"ghost"`` or ``"<colour> demon"``: how a creature is named in the turn log."""
    return "ghost" if colour == WHITE else f"{colour} demon"


# --- small values -----------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """Summoning one creature: a demon into a corner, or a ghost into a field centre.

    Attributes
    ----------
    colour : str
        The creature's colour; ``"white"`` is a ghost.
    field : int
        The field it is summoned into.
    crossing : int or None
        The crossing of the demon's corner; ``None`` for a ghost.
    """

    colour: str
    field: int
    crossing: int | None = None

    @property
    def kind(self) -> str:
        return kind_of(self.colour)

    def creature(self) -> Creature:
        """The creature standing where this move puts it (without a position)."""
        if self.colour == WHITE:
            return ghost(self.field)
        return demon(self.colour, self.field, self.crossing)


@dataclass(frozen=True)
class Prediction:
    """A colour predicted by putting a creature of that colour in front of the player.

    ``place`` is the solitaire place (1, 2 or 3) and ``None`` in a multi-player game.
    """

    colour: str
    place: int | None = None


@dataclass(frozen=True)
class Turn:
    """One entry of the turn log.

    Attributes
    ----------
    number : int
        1 for the first turn of the game.
    player : int
        The player who moved, counted from 0.
    move : Move
        What they summoned, and where.
    predictions : tuple of Prediction
        What they predicted this turn (at most one in a multi-player game).
    returned : tuple of str
        Creatures they returned from their fist to the sack after predicting.
    drawn : str or None
        The creature they drew, or ``None`` if the sack was empty.
    """

    number: int
    player: int
    move: Move
    predictions: tuple[Prediction, ...] = ()
    returned: tuple[str, ...] = ()
    drawn: str | None = None


@dataclass(frozen=True)
class GameResult:
    """How a game ended.

    Attributes
    ----------
    score : Score
        Points, field owners and winning colours of the board.
    winner : int or None
        Multi-player: the first player who predicted a winning colour, or ``None`` if
        nobody did (everybody loses). Solitaire: 0 if the solo player won, else ``None``.
    solitaire : SolitaireResult or None
        The solitaire outcome; ``None`` in a multi-player game.
    end_reason : str
        Why the game ended ("" while it is still going on).
    """

    score: Score
    winner: int | None
    solitaire: SolitaireResult | None
    end_reason: str


class Policy(Protocol):
    """How a player decides; see :mod:`engine.policies` for implementations.

    Both methods are called for the player to move, ``player``: ``choose_move`` at the
    start of the turn (choose from ``game.legal_moves()``), ``choose_predictions`` after
    the summon (choose from ``game.prediction_colours()``; return ``()`` to predict
    nothing).
    """

    def choose_move(self, game: Game, player: int) -> Move: ...

    def choose_predictions(self, game: Game, player: int) -> Sequence[Prediction]: ...


class GameOverError(RuntimeError):
    """A move was asked of a game that has ended, or out of turn order."""


# --- the game ---------------------------------------------------------------------------


class Game:
    """The state of one game on one board, played turn by turn.

    Parameters
    ----------
    board : Board
        The layout's board, without creatures.
    players : int
        1 to 4; one player plays solitaire.
    seed : int
        Seeds the blind draws; the same seed (and the same decisions) gives the same game.
    solitaire_keeps_fist : bool
        [ruling] What the solo player does with the rest of the fist after predicting:
        keep it and go on as before (English and German rules, default), or return it to
        the sack and hold only the creature drawn last, predicting only once (French).
    options : ScoringOptions
        Rule variants to score by.
    clearance : float
        How far a demon stands from both lines of its corner when positions are given
        (:meth:`final_board`), in the board's units (layout millimetres).
    fists, sack : sequence, optional
        Deal these fists and this sack (creature colours) instead of drawing four
        creatures per player from the full sack of 50. Meant for tests; draws from the
        sack stay random.

    Attributes
    ----------
    board : Board
        The board with every creature summoned so far (without positions).
    sack : list of str
        The creatures in the sack, in no meaningful order.
    fists : list of list of str
        Each player's creatures.
    predictions : list of (int, str)
        (player, colour) of every creature put in front of a player, in order.
    solitaire_places : dict of str to int
        Solitaire: predicted colour -> place.
    log : list of Turn
        Every turn played.
    current : int
        The player to move (or who would move, once the game is over).
    phase : str
        ``"summon"`` at the start of a turn, ``"predict"`` once the player has summoned.
    """

    def __init__(
        self,
        board: Board,
        players: int,
        seed: int,
        *,
        solitaire_keeps_fist: bool = True,
        options: ScoringOptions = DEFAULT_OPTIONS,
        clearance: float = DEFAULT_CLEARANCE,
        fists: Sequence[Sequence[str]] | None = None,
        sack: Sequence[str] | None = None,
    ) -> None:
        if not 1 <= players <= MAX_PLAYERS:
            raise EngineError(f"a game has 1 to {MAX_PLAYERS} players, not {players}")
        if board.creatures:
            raise EngineError("a game starts on a board without creatures")
        if isinstance(clearance, bool) or not (
            isinstance(clearance, int | float) and 0 < clearance <= MAX_CLEARANCE
        ):
            raise EngineError(
                f"clearance: expected a number in (0, {MAX_CLEARANCE:g}], got {clearance!r}"
            )
        check_board(board, coordinates=False)  # build_board checked them
        self.players = players
        self.solitaire_keeps_fist = solitaire_keeps_fist
        self.options = options
        self.clearance = clearance
        self.rng = random.Random(seed)
        self.board = board
        self.predictions: list[tuple[int, str]] = []
        self.solitaire_places: dict[str, int] = {}
        self.log: list[Turn] = []
        self.current = 0
        self.phase: str = SUMMON
        #: Players who returned their fist: they hold and summon only the last drawn.
        self._restricted: set[int] = set()
        #: Players who may not predict any more.
        self._done_predicting: set[int] = set()
        self._last_drawn: list[str | None] = [None] * players
        self._pending: Move | None = None
        self._geometry: BoardGeometry | None = None
        self.sack, self.fists = self._deal(fists, sack)
        self._init_legal_moves()
        self._end_reason = self._stuck_reason(self.current)

    # --- setting up -----------------------------------------------------------------

    def _deal(
        self, fists: Sequence[Sequence[str]] | None, sack: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        if fists is None and sack is None:
            self.sack = full_sack()
            dealt = [[self._draw() for _ in range(FIST_SIZE)] for _ in range(self.players)]
            return self.sack, dealt
        dealt = [list(f) for f in fists] if fists is not None else [[] for _ in range(self.players)]
        if len(dealt) != self.players:
            raise EngineError(f"{len(dealt)} fists dealt for {self.players} players")
        if sack is None:
            rest = Counter(full_sack())
            rest.subtract(c for fist in dealt for c in fist)
            sack = sorted(rest.elements())
        everything = Counter(c for fist in dealt for c in fist) + Counter(sack)
        for colour, count in everything.items():
            if colour not in SCORE_COLOURS or count > CREATURES_PER_COLOUR:
                raise EngineError(
                    f"{count} {colour} creatures; the game has {CREATURES_PER_COLOUR}"
                )
        if any(len(fist) > FIST_SIZE for fist in dealt):
            raise EngineError(f"a fist holds at most {FIST_SIZE} creatures")
        return list(sack), dealt

    def _init_legal_moves(self) -> None:
        """The legal-move table: for each colour, the places a creature of it may go."""
        board = self.board
        self._capacity: dict[_Place, int] = {
            (f, x): n for (f, x), n in board.corner_capacity.items()
        }
        self._corners_of: dict[int, list[_Place]] = {f.id: [] for f in board.fields}
        self._open: dict[str, dict[_Place, Move]] = {c: {} for c in SCORE_COLOURS}
        for field_id, crossing_id in sorted(board.corner_capacity):
            place = (field_id, crossing_id)
            self._corners_of[field_id].append(place)
            for colour in board.crossings[crossing_id].lines:
                self._open[colour][place] = Move(colour, field_id, crossing_id)
        for f in board.fields:
            if not f.outer:
                self._open[WHITE][(f.id, None)] = Move(WHITE, f.id)

    # --- what the players see -------------------------------------------------------

    @property
    def solitaire(self) -> bool:
        return self.players == 1

    @property
    def is_over(self) -> bool:
        """Whether the player to move cannot summon (the game ended)."""
        return bool(self._end_reason) and self.phase == SUMMON

    @property
    def end_reason(self) -> str:
        """Why the game ended, e.g. "player 2 has no creature left"; "" while it goes on."""
        return self._end_reason if self.phase == SUMMON else ""

    def last_drawn(self, player: int) -> str | None:
        """The creature ``player`` drew last, or ``None`` if they have drawn none."""
        return self._last_drawn[player]

    def summonable(self, player: int | None = None) -> list[str]:
        """The creatures ``player`` (default: the player to move) may summon.

        A player who returned their fist after predicting holds one creature, the one
        drawn last, and may summon only that one.
        """
        player = self.current if player is None else player
        fist = self.fists[player]
        return fist[-1:] if player in self._restricted else list(fist)

    def legal_moves(self, player: int | None = None) -> list[Move]:
        """Every distinct legal move of ``player`` (default: the player to move) now.

        Moves of one colour come in (field, crossing) order, colours in fist order.
        """
        moves: list[Move] = []
        for colour in dict.fromkeys(self.summonable(player)):
            moves.extend(self._open[colour].values())
        return moves

    def places_for(self, colour: str) -> list[Move]:
        """Where a creature of ``colour`` may be summoned now, whoever holds it."""
        return list(self._open[colour].values())

    def can_summon(self, player: int | None = None) -> bool:
        """Whether ``player`` (default: the player to move) has a legal move."""
        return any(self._open[c] for c in self.summonable(player))

    def prediction_colours(self, player: int | None = None) -> list[str]:
        """Colours ``player`` (default: the player to move) may predict now, sorted.

        Multi-player: colours in their fist that nobody has predicted, if they have not
        predicted yet. Solitaire: colours in the fist not predicted yet, while fewer than
        three are (French reading: only until the first prediction).
        """
        player = self.current if player is None else player
        if player in self._done_predicting:
            return []
        taken = {colour for _, colour in self.predictions}
        return sorted(set(self.fists[player]) - taken)

    def open_places(self) -> list[int]:
        """Solitaire places (1, 2, 3) not predicted yet."""
        return [p for p in SOLITAIRE_PLACES if p not in self.solitaire_places.values()]

    def census(self) -> dict[str, int]:
        """How many creatures are in the sack, the fists, the predictions and on the board."""
        return {
            "sack": len(self.sack),
            "fists": sum(len(f) for f in self.fists),
            "predictions": len(self.predictions),
            "board": len(self.board.creatures),
        }

    def colour_census(self) -> Counter[str]:
        """Creatures of each colour, wherever they are (10 of each in a normal game)."""
        return Counter(
            [
                *self.sack,
                *(c for fist in self.fists for c in fist),
                *(colour for _, colour in self.predictions),
                *(c.colour for c in self.board.creatures),
            ]
        )

    # --- playing --------------------------------------------------------------------

    def summon(self, move: Move) -> None:
        """Step 1 of the turn: the player to move summons ``move``.

        Raises
        ------
        IllegalMoveError
            If the player may not summon that creature there; nothing changes then.
        GameOverError
            If the game is over or the player has already summoned this turn.
        """
        if self.phase != SUMMON:
            raise GameOverError("the player to move has already summoned this turn")
        if self.is_over:
            raise GameOverError(f"the game is over: {self._end_reason}")
        self._check_move(move)
        self.fists[self.current].remove(move.colour)
        self._apply(move)
        self._pending = move
        self.phase = PREDICT

    def finish_turn(self, predictions: Iterable[Prediction] = ()) -> Turn:
        """Steps 2 and 3 of the turn: predict (optionally), then draw; the next player moves.

        Raises
        ------
        IllegalMoveError
            If the predictions break the rules; nothing changes then.
        GameOverError
            If the player to move has not summoned yet.
        """
        if self.phase != PREDICT or self._pending is None:
            raise GameOverError("the player to move must summon before finishing the turn")
        player = self.current
        made = tuple(predictions)
        self._check_predictions(player, made)
        returned = self._apply_predictions(player, made)
        drawn = self._draw_for(player)
        turn = Turn(len(self.log) + 1, player, self._pending, made, returned, drawn)
        self.log.append(turn)
        self._pending = None
        self.phase = SUMMON
        self.current = (player + 1) % self.players
        self._end_reason = self._stuck_reason(self.current)
        return turn

    def step(self, policy: Policy) -> Turn:
        """Play one whole turn of the player to move, as ``policy`` decides."""
        player = self.current
        self.summon(policy.choose_move(self, player))
        return self.finish_turn(policy.choose_predictions(self, player))

    def play(self, policies: Sequence[Policy]) -> GameResult:
        """Play to the end, player ``i`` deciding by ``policies[i]``; return the result."""
        if len(policies) != self.players:
            raise ValueError(f"{len(policies)} policies for {self.players} players")
        while not self.is_over:
            self.step(policies[self.current])
        return self.result()

    # --- rules ----------------------------------------------------------------------

    def _check_move(self, move: Move) -> None:
        if move.colour not in self.summonable():
            held = ", ".join(creature_name(c) for c in self.summonable()) or "nothing"
            raise IllegalMoveError(
                f"player {self.current + 1} may summon {held}, not a {creature_name(move.colour)}"
            )
        if self._open[move.colour].get((move.field, move.crossing)) is None:
            where = f"field {move.field}"
            if move.crossing is not None:
                where = f"the corner of field {move.field} at crossing {move.crossing}"
            name = creature_name(move.colour)
            raise IllegalMoveError(f"a {name} may not be summoned into {where}")

    def _apply(self, move: Move) -> None:
        """Put the creature on the board and update the legal-move table."""
        self.board = self.board.with_creature(move.creature())
        if move.colour == WHITE:
            del self._open[WHITE][(move.field, None)]
            for place in self._corners_of[move.field]:
                self._close_corner(place)
            return
        place = (move.field, move.crossing)
        self._capacity[place] -= 1
        if self._capacity[place] == 0:
            self._close_corner(place)

    def _close_corner(self, place: _Place) -> None:
        crossing = place[1]
        assert crossing is not None
        for colour in self.board.crossings[crossing].lines:
            self._open[colour].pop(place, None)

    def _check_predictions(self, player: int, made: tuple[Prediction, ...]) -> None:
        if not made:
            return
        allowed = self.prediction_colours(player)
        colours = [p.colour for p in made]
        if len(set(colours)) != len(colours):
            raise IllegalMoveError("a colour can be predicted only once")
        for p in made:
            if p.colour not in allowed:
                raise IllegalMoveError(
                    f"player {player + 1} may predict {', '.join(allowed) or 'nothing'} now, "
                    f"not {p.colour}"
                )
        if self.solitaire:
            self._check_places(made)
        else:
            if len(made) > 1:
                raise IllegalMoveError("a player predicts one colour")
            if made[0].place is not None:
                raise IllegalMoveError("places are predicted only in solitaire")

    def _check_places(self, made: tuple[Prediction, ...]) -> None:
        places = [p.place for p in made]
        free = self.open_places()
        if len(set(places)) != len(places) or any(p not in free for p in places):
            raise IllegalMoveError(
                f"solitaire places must be distinct and among {free}, not {places}"
            )

    def _apply_predictions(self, player: int, made: tuple[Prediction, ...]) -> tuple[str, ...]:
        if not made:
            return ()
        fist = self.fists[player]
        for p in made:
            fist.remove(p.colour)
            self.predictions.append((player, p.colour))
            if p.place is not None:
                self.solitaire_places[p.colour] = p.place
        if self.solitaire and self.solitaire_keeps_fist:
            if len(self.solitaire_places) >= MAX_SOLITAIRE_PREDICTIONS:
                self._done_predicting.add(player)
            return ()
        self._done_predicting.add(player)
        self._restricted.add(player)
        returned = tuple(fist)
        self.sack.extend(returned)
        fist.clear()
        return returned

    def _draw(self) -> str:
        """One creature drawn blind from the (non-empty) sack."""
        i = self.rng.randrange(len(self.sack))
        self.sack[i], self.sack[-1] = self.sack[-1], self.sack[i]
        return self.sack.pop()

    def _draw_for(self, player: int) -> str | None:
        if not self.sack:
            return None
        drawn = self._draw()
        self.fists[player].append(drawn)
        self._last_drawn[player] = drawn
        return drawn

    def _stuck_reason(self, player: int) -> str:
        """Why ``player`` cannot summon, or "" if they can."""
        held = self.summonable(player)
        if not held:
            return f"player {player + 1} has no creature left"
        if any(self._open[c] for c in held):
            return ""
        names = ", ".join(creature_name(c) for c in dict.fromkeys(held))
        return f"player {player + 1} has no legal place for {names}"

    # --- the outcome ----------------------------------------------------------------

    def result(self) -> GameResult:
        """Score the board as it stands and say who wins (meaningful once :attr:`is_over`)."""
        points = score(self.board, self.options)
        if not self.solitaire:
            winner = winning_player(self.predictions, points.winners)
            return GameResult(points, winner, None, self.end_reason)
        if self.solitaire_places:
            outcome = solitaire_result(points.points, self.solitaire_places, self.options)
        else:
            outcome = SolitaireResult(won=False, points=0, places={})
        return GameResult(points, 0 if outcome.won else None, outcome, self.end_reason)

    def geometry(self) -> BoardGeometry | None:
        """The board's geometry, built once; ``None`` if its fields have no polygons."""
        if self._geometry is None:
            try:
                self._geometry = BoardGeometry(self.board)
            except ValueError:
                return None
        return self._geometry

    def final_board(self, *, with_positions: bool = True, with_predictions: bool = True) -> Board:
        """The board with positions for its creatures and the predictions beside it.

        Parameters
        ----------
        with_positions : bool
            Give every creature its ``xy``: a demon on its corner's bisector,
            ``clearance`` from both lines; a ghost at its field's centre; predictions in
            a row in front of their player, below the play area. Needs a board built
            from geometry; without one, positions stay ``None``.
        with_predictions : bool
            Add the predicted creatures as off-board creatures, in prediction order.
        """
        creatures = list(self.board.creatures)
        geometry = self.geometry() if with_positions else None
        if geometry is not None:
            creatures = self._placed(geometry, creatures)
        if with_predictions:
            creatures.extend(self._prediction_creatures(geometry is not None))
        return self.board.with_creatures(tuple(creatures))

    def _placed(self, geometry: BoardGeometry, creatures: list[Creature]) -> list[Creature]:
        seen: Counter[tuple[int | None, int | None]] = Counter()
        placed = []
        for c in creatures:
            assert c.field is not None
            if c.kind == GHOST:
                xy = geometry.field_centre(c.field)
            else:
                assert c.crossing is not None
                spots = geometry.corner_points(c.field, c.crossing, self.clearance)
                # A second demon in a pinched corner takes the field's other sector.
                xy = spots[min(seen[(c.field, c.crossing)], len(spots) - 1)]
                seen[(c.field, c.crossing)] += 1
            placed.append(replace(c, xy=xy))
        return placed

    def _prediction_creatures(self, with_positions: bool) -> list[Creature]:
        points = [p for line in self.board.lines for p in line.polyline]
        if not points:
            with_positions = False
            points = [(0.0, 0.0)]
        left = min(x for x, _ in points)
        right = max(x for x, _ in points)
        bottom = max(y for _, y in points)
        step = (right - left) / self.players
        creatures: list[Creature] = []
        count: Counter[int] = Counter()
        for player, colour in self.predictions:
            xy = None
            if with_positions:
                x = left + step * (player + 0.5) + 2.5 * self.clearance * (count[player] - 1)
                xy = (x, bottom + 5 * self.clearance)
            count[player] += 1
            creatures.append(Creature(kind_of(colour), colour, xy=xy, off_board=True))
        return creatures


__all__ = [
    "DEFAULT_CLEARANCE",
    "FIST_SIZE",
    "Game",
    "GameOverError",
    "MAX_CLEARANCE",
    "GameResult",
    "Move",
    "Policy",
    "Prediction",
    "Turn",
    "creature_name",
    "full_sack",
    "kind_of",
]
