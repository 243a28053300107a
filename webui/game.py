"""Players and predictions typed in with a photo, and who won.

A game is either up to four players, listed in the order they made their predictions
(each predicted one colour, or none), or one solitaire player with up to three
(colour, place) predictions. The form's fields and the API's fields are the same:
``player`` and ``prediction`` (repeated, in order), or ``mode=solitaire`` with
``solitaire_player`` and ``place1``..``place3`` (the colour predicted on that place).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.colours import SCORE_COLOURS
from engine.scoring import SolitaireResult, solitaire_result, winning_player

MAX_PLAYERS = 4
MAX_NAME = 40


class GameFormError(ValueError):
    """The players or predictions typed in are not usable; ``errors`` maps field → message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = dict(errors)


@dataclass(frozen=True)
class Player:
    name: str
    #: The colour the player predicted, or None.
    prediction: str | None = None


@dataclass(frozen=True)
class GameInfo:
    """Who played and what they predicted."""

    mode: str = "players"
    players: tuple[Player, ...] = ()
    #: Solitaire: predicted colour → place (1..3).
    solitaire: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "players": [{"name": p.name, "prediction": p.prediction} for p in self.players],
            "solitaire": dict(self.solitaire),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameInfo:
        """Read back what :meth:`to_json` stored (missing keys mean no game info)."""
        players = tuple(
            Player(str(p.get("name", "")), p.get("prediction")) for p in data.get("players", [])
        )
        places = {str(c): int(p) for c, p in data.get("solitaire", {}).items()}
        return cls(str(data.get("mode", "players")), players, places)


#: No players or predictions typed in.
NO_GAME = GameInfo()


@dataclass(frozen=True)
class GameOutcome:
    """Who won the game, given the board's scores."""

    #: The winning player's name, or None (nobody predicted a winning colour).
    winner: str | None
    #: True when players predicted but none of them picked a winning colour.
    all_lose: bool
    solitaire: SolitaireResult | None


def parse_game(form: Mapping[str, Sequence[str]]) -> GameInfo:
    """The game described by submitted form fields.

    Parameters
    ----------
    form : mapping of str to list of str
        The submitted fields, every value a list (``request.form.to_dict(flat=False)``).

    Raises
    ------
    GameFormError
        With a message per form field that needs fixing.
    """
    names = [str(n).strip() for n in form.get("player", [])]
    predictions = [str(p).strip().lower() for p in form.get("prediction", [])]
    errors: dict[str, str] = {}
    for i, name in enumerate(names):
        if len(name) > MAX_NAME:
            errors[f"player{i}"] = f"Player {i + 1}: a name has at most {MAX_NAME} characters."
    mode = _first(form, "mode").lower() or "players"
    if mode == "solitaire":
        return _parse_solitaire(form, names, errors)
    if mode != "players":  # a mistyped mode would otherwise file the game as players'
        errors["mode"] = f"The mode is 'players' or 'solitaire', not {mode[:40]!r}."
    players = []
    for i in range(max(len(names), len(predictions))):
        name = names[i] if i < len(names) else ""
        colour = predictions[i] if i < len(predictions) else ""
        if colour and colour not in SCORE_COLOURS:
            errors[f"prediction{i}"] = f"Player {i + 1}: choose one of {', '.join(SCORE_COLOURS)}."
        if name or colour:
            players.append(Player(name or f"Player {i + 1}", colour or None))
    if len(players) > MAX_PLAYERS:
        errors["players"] = f"At most {MAX_PLAYERS} players (got {len(players)})."
    if errors:
        raise GameFormError(errors)
    return GameInfo("players", tuple(players))


def _first(form: Mapping[str, Sequence[str]], name: str) -> str:
    values = form.get(name) or [""]
    return str(values[0]).strip()


def _parse_solitaire(
    form: Mapping[str, Sequence[str]], names: Sequence[str], errors: dict[str, str]
) -> GameInfo:
    places: dict[str, int] = {}
    for place in (1, 2, 3):
        colour = _first(form, f"place{place}").lower()
        if not colour:
            continue
        if colour not in SCORE_COLOURS:
            errors[f"place{place}"] = f"Place {place}: choose one of {', '.join(SCORE_COLOURS)}."
        elif colour in places:
            errors[f"place{place}"] = f"Place {place}: {colour} is already predicted on a place."
        else:
            places[colour] = place
    name = _first(form, "solitaire_player") or next((n for n in names if n), "")
    if len(name) > MAX_NAME:
        errors["solitaire_player"] = f"A name has at most {MAX_NAME} characters."
    if errors:
        raise GameFormError(errors)
    players = (Player(name),) if name else ()
    return GameInfo("solitaire", players, places)


def game_outcome(game: GameInfo, scores: Mapping[str, int], winners: Sequence[str]) -> GameOutcome:
    """Who won: the first player to predict a winning colour, or the solitaire result."""
    if game.mode == "solitaire":
        result = solitaire_result(scores, game.solitaire) if game.solitaire else None
        return GameOutcome(None, False, result)
    predictions = [(i, p.prediction) for i, p in enumerate(game.players) if p.prediction]
    if not predictions:
        return GameOutcome(None, False, None)
    index = winning_player(predictions, winners)
    if index is None:
        return GameOutcome(None, True, None)
    return GameOutcome(game.players[index].name, False, None)
