"""Player policies: who decides what in a simulated game.

A policy implements :class:`engine.game.Policy`: ``choose_move(game, player)`` picks one
of ``game.legal_moves()`` and ``choose_predictions(game, player)`` picks what (if
anything) to predict among ``game.prediction_colours()`` (and, in solitaire, on which of
``game.open_places()``). The game validates every decision and raises
:class:`~engine.errors.IllegalMoveError` for an illegal one; these policies only ever
choose from what the game offers.

Every policy takes its own random generator, so that a game is reproducible from the
game's seed and the policies' seeds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from engine.board import Board
from engine.colours import SCORE_COLOURS, WHITE
from engine.game import Game, Move, Policy, Prediction
from engine.scoring import DEFAULT_OPTIONS, ScoringOptions, place_of, score

RandomLike = random.Random | int | str | None


def _rng(rng: RandomLike) -> random.Random:
    return rng if isinstance(rng, random.Random) else random.Random(rng)


class RandomPolicy:
    """Uniform over the distinct legal moves; predicts at a random moment.

    Parameters
    ----------
    rng : random.Random, int, str or None
        The generator, or a seed for one.
    predict_chance : float
        Chance to predict on each turn where predicting is possible. In solitaire, a
        prediction names one to three random colours of the fist on random free places.
    """

    def __init__(self, rng: RandomLike = None, predict_chance: float = 0.1) -> None:
        self.rng = _rng(rng)
        self.predict_chance = predict_chance

    def choose_move(self, game: Game, player: int) -> Move:
        return self.rng.choice(game.legal_moves(player))

    def choose_predictions(self, game: Game, player: int) -> tuple[Prediction, ...]:
        colours = game.prediction_colours(player)
        if not colours or self.rng.random() >= self.predict_chance:
            return ()
        if not game.solitaire:
            return (Prediction(self.rng.choice(colours)),)
        free = game.open_places()
        count = self.rng.randint(1, min(len(colours), len(free)))
        picked = self.rng.sample(colours, count)
        places = self.rng.sample(free, count)
        return tuple(Prediction(c, p) for c, p in zip(picked, places, strict=True))


class GreedyPolicy:
    """Plays for one colour: its prediction, or the colour it would predict.

    Each turn it scores (with :func:`engine.scoring.score`) the board after every
    distinct legal move and takes the move that leaves its target colour furthest ahead
    of the best other colour; ties go to summoning the target colour itself (or, for a
    ghost, to freezing a field the target holds), then to chance. Before predicting, the
    target is the colour of its fist with the most points that nobody has predicted. It
    predicts that colour once it leads every other colour by ``lead`` points after at
    least ``patience`` full rounds, or when the sack is nearly empty (``late`` creatures
    or fewer).

    In solitaire its target is the colour it predicted on the best place, and it
    predicts a colour on the place it holds now once that place is clear by ``lead``
    points after ``patience`` rounds (or the sack is nearly empty) and not shared.

    Parameters
    ----------
    rng : random.Random, int, str or None
        The generator for breaking ties, or a seed for one.
    lead : int
        How many points ahead a colour must be before it is predicted.
    late : int
        Sack size at or below which it predicts its best colour whatever the lead.
    patience : int
        Full rounds of turns to wait before predicting on a lead alone. None by default:
        predicting early pays, as the first to predict a winning colour wins.
    options : ScoringOptions
        The rule variants to score hypothetical boards by.
    """

    def __init__(
        self,
        rng: RandomLike = None,
        *,
        lead: int = 3,
        late: int = 4,
        patience: int = 0,
        options: ScoringOptions = DEFAULT_OPTIONS,
    ) -> None:
        self.rng = _rng(rng)
        self.lead = lead
        self.late = late
        self.patience = patience
        self.options = options

    # --- moves ----------------------------------------------------------------------

    def target(self, game: Game, player: int) -> str | None:
        """The colour this player plays for now, or ``None`` if it has none."""
        if game.solitaire and game.solitaire_places:
            return min(game.solitaire_places, key=game.solitaire_places.__getitem__)
        own = [colour for who, colour in game.predictions if who == player]
        if own and not game.solitaire:
            return own[0]
        candidates = game.prediction_colours(player)
        if not candidates:
            return None
        points = self._points(game.board)
        fist = game.fists[player]
        return max(candidates, key=lambda c: (points[c], fist.count(c), -SCORE_COLOURS.index(c)))

    def choose_move(self, game: Game, player: int) -> Move:
        moves = game.legal_moves(player)
        target = self.target(game, player)
        if target is None:
            return self.rng.choice(moves)
        owners = score(game.board, self.options).owners
        margins: dict[tuple[str, int], int] = {}
        best: list[Move] = []
        best_key: tuple[int, int] | None = None
        for move in moves:
            group = (move.colour, -1 if move.colour == WHITE else move.field)
            if group not in margins:
                after = self._points(game.board.with_creature(move.creature()))
                margins[group] = _margin(after, target)
            bonus = owners[move.field] == target if move.colour == WHITE else move.colour == target
            key = (margins[group], int(bonus))
            if best_key is None or key > best_key:
                best_key, best = key, [move]
            elif key == best_key:
                best.append(move)
        return self.rng.choice(best)

    # --- predictions ----------------------------------------------------------------

    def choose_predictions(self, game: Game, player: int) -> tuple[Prediction, ...]:
        colours = game.prediction_colours(player)
        if not colours:
            return ()
        points = self._points(game.board)
        late = len(game.sack) <= self.late
        lead = self.lead if len(game.log) >= self.patience * game.players else math.inf
        if game.solitaire:
            return self._solitaire_predictions(game, colours, points, late, lead)
        best = max(colours, key=lambda c: (points[c], -SCORE_COLOURS.index(c)))
        if late or _margin(points, best) >= lead:
            return (Prediction(best),)
        return ()

    def _solitaire_predictions(
        self,
        game: Game,
        colours: Sequence[str],
        points: Mapping[str, int],
        late: bool,
        lead: float,
    ) -> tuple[Prediction, ...]:
        free = game.open_places()
        picks = []
        for colour in sorted(colours, key=lambda c: (-points[c], SCORE_COLOURS.index(c))):
            place, shared = place_of(colour, points)
            gap = min(abs(points[colour] - p) for c, p in points.items() if c != colour)
            if place in free and not shared and (late or gap >= lead):
                picks.append(Prediction(colour, place))
                free.remove(place)
        return tuple(picks)

    def _points(self, board: Board) -> Mapping[str, int]:
        return score(board, self.options).points


def _margin(points: Mapping[str, int], colour: str) -> int:
    """How far ``colour`` is ahead of the best other colour (negative if behind)."""
    return points[colour] - max(p for c, p in points.items() if c != colour)


#: Policy name -> how to build one from a seed, for the command line and benchmarks.
POLICIES: Final[Mapping[str, Callable[[RandomLike], Policy]]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
}


def make_policies(name: str, players: int, seed: int) -> list[Policy]:
    """One policy of kind ``name`` per player, each seeded from ``seed`` and its player."""
    try:
        build = POLICIES[name]
    except KeyError:
        known = ", ".join(POLICIES)
        raise ValueError(f"unknown policy {name!r}; expected one of {known}") from None
    return [build(f"{name}-{seed}-{player}") for player in range(players)]


__all__ = ["POLICIES", "GreedyPolicy", "Policy", "RandomPolicy", "make_policies"]
