"""``dicke-daemonen play``: simulate a game on a generated layout and show how it went.

Without ``--json`` it prints one line per turn, why the game ended, the fields with
their value and owner, the scores, the winning colours and the winner. With ``--json``
it prints only the final board as a board report (CONTRACT.md), in layout millimetres,
with the predictions as off-board creatures and a ``game`` object added. Players are
numbered from 1 in everything printed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from cli.rescore import add_scoring_options, dump_json, scoring_options
from engine.board import Board
from engine.game import DEFAULT_CLEARANCE, MAX_CLEARANCE, Game, GameResult, Turn, creature_name
from engine.layout import random_layout
from engine.policies import POLICIES, make_policies
from engine.report import board_to_report
from engine.scoring import ScoringOptions

#: Largest seed: numpy and the layouts take any, but a seed is something to type.
MAX_SEED = 2**32 - 1


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="simulate a game on a generated layout",
        description="Lay a random layout (seeded), deal the fists and let simulated players "
        "play to the end; print the turn log and the final board, or its board report.",
    )
    parser.add_argument("--players", type=int, default=4, choices=range(1, 5), metavar="N",
                        help="1 to 4 players; 1 plays solitaire (default 4)")
    parser.add_argument("--seed", type=seed_number, default=0,
                        help="seeds the layout, the draws and the players, "
                        f"0 to {MAX_SEED} (default 0)")
    parser.add_argument("--policy", choices=sorted(POLICIES), default="random",
                        help="how the simulated players decide (default random)")
    parser.add_argument("--json", action="store_true",
                        help="print only the final board as a board report (JSON)")
    parser.add_argument("--solitaire-french", action="store_true",
                        help="solitaire, French reading: after predicting, return the rest of "
                        "the fist to the sack and hold only the creature drawn last")
    parser.add_argument("--solitaire-ties-count", action="store_true",
                        help="solitaire: a predicted place shared with another colour counts")
    parser.add_argument("--clearance", type=clearance_mm, default=DEFAULT_CLEARANCE,
                        help="distance of a demon from both lines of its corner, in mm, "
                        f"above 0 and up to {MAX_CLEARANCE:g} (default {DEFAULT_CLEARANCE:g})")
    add_scoring_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    options = replace(scoring_options(args), solitaire_tie_fails=not args.solitaire_ties_count)
    board = random_layout(args.seed).board()
    game = Game(
        board,
        args.players,
        args.seed,
        solitaire_keeps_fist=not args.solitaire_french,
        options=options,
        clearance=args.clearance,
    )
    result = game.play(make_policies(args.policy, args.players, args.seed))
    if args.json:
        text = dump_json(game_report(game, result, options, args.seed, args.policy))
    else:
        text = "\n".join(summary_lines(game, result, args.seed, args.policy)) + "\n"
    sys.stdout.write(text)  # only once it is all there
    return 0


def seed_number(text: str) -> int:
    """An ``argparse`` type: a seed from 0 to ``MAX_SEED``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is 0 to {MAX_SEED}, not {text[:40]}")
    return value


def clearance_mm(text: str) -> float:
    """An ``argparse`` type: a finite distance above 0 and up to ``MAX_CLEARANCE`` mm."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of mm, got {text[:40]!r}") from None
    if not 0 < value <= MAX_CLEARANCE:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"expected a distance above 0 and up to {MAX_CLEARANCE:g} mm, got {text[:40]}"
        )
    return value


# --- JSON -------------------------------------------------------------------------------


def game_report(
    game: Game, result: GameResult, options: ScoringOptions, seed: int, policy: str
) -> dict[str, Any]:
    """The final board's report, with a ``game`` object describing the game."""
    final = game.final_board(with_positions=True, with_predictions=True)
    report = board_to_report(final, options=options)
    first_prediction = len(game.board.creatures)
    report["game"] = {
        "players": game.players,
        "seed": seed,
        "policy": policy,
        "solitaire_keeps_fist": game.solitaire_keeps_fist,
        "turns": len(game.log),
        "end": result.end_reason,
        "predictions": [
            {
                "player": player + 1,
                "colour": colour,
                "creature": first_prediction + i,
                "place": game.solitaire_places.get(colour) if game.solitaire else None,
            }
            for i, (player, colour) in enumerate(game.predictions)
        ],
        "winner": None if result.winner is None else result.winner + 1,
        "solitaire": None
        if result.solitaire is None
        else {
            "won": result.solitaire.won,
            "points": result.solitaire.points,
            "places": dict(result.solitaire.places),
        },
    }
    return report


# --- text -------------------------------------------------------------------------------


def summary_lines(game: Game, result: GameResult, seed: int, policy: str) -> list[str]:
    """The whole readable account of a finished game."""
    board = game.board
    kind = "solitaire" if game.solitaire else f"{game.players} players"
    lines = [
        f"Dicke Dämonen: {kind}, seed {seed}, {policy} policy; layout of "
        f"{len(board.crossings)} crossings and {len(board.fields)} fields",
        "",
        *(turn_line(turn, board) for turn in game.log),
        f"Game over after {len(game.log)} turns: {result.end_reason}.",
        "",
        "Fields:",
        *field_lines(game, result),
        "",
        "Scores: " + ", ".join(f"{c} {p}" for c, p in result.score.points.items()),
        "Winning colours: " + ", ".join(result.score.winners),
        *outcome_lines(game, result),
    ]
    return lines


def turn_line(turn: Turn, board: Board) -> str:
    """One turn, e.g. "turn 12  player 3  summons blue demon → field 5, corner at crossing
    7 (blue/red); predicts green; returns 2 to the sack; draws ghost"."""
    move = turn.move
    where = f"field {move.field}"
    if move.crossing is not None:
        a, b = board.crossings[move.crossing].lines
        where += f", corner at crossing {move.crossing} ({a}/{b})"
    parts = [f"turn {turn.number:>2}  player {turn.player + 1}  "
             f"summons {creature_name(move.colour)} → {where}"]
    if turn.predictions:
        parts.append("predicts " + ", ".join(
            p.colour if p.place is None else f"{p.colour} on place {p.place}"
            for p in turn.predictions
        ))
    if turn.returned:
        parts.append(f"returns {len(turn.returned)} to the sack")
    parts.append("draws nothing (the sack is empty)" if turn.drawn is None
                 else f"draws {creature_name(turn.drawn)}")
    return "; ".join(parts)


def field_lines(game: Game, result: GameResult) -> list[str]:
    ghosts = {c.field for c in game.board.creatures if c.kind == "ghost"}
    lines = []
    for f in game.board.fields:
        owner = result.score.owners.get(f.id) or "nobody"
        notes = "  outer" if f.outer else ("  ghost" if f.id in ghosts else "")
        lines.append(f"  field {f.id:>2}  value {f.value:>2}  owner {owner:<7}{notes}".rstrip())
    return lines


def outcome_lines(game: Game, result: GameResult) -> list[str]:
    if game.solitaire:
        return _solitaire_lines(game, result)
    made = ", ".join(f"player {p + 1} {c}" for p, c in game.predictions) or "none"
    if result.winner is None:
        winner = "nobody (no player predicted a winning colour)"
    else:
        colour = next(c for p, c in game.predictions if p == result.winner)
        winner = f"player {result.winner + 1} (first to predict {colour})"
    return [f"Predictions, in order: {made}", f"Winner: {winner}"]


def _solitaire_lines(game: Game, result: GameResult) -> list[str]:
    outcome = result.solitaire
    assert outcome is not None
    made = ", ".join(f"{c} on place {p}" for c, p in game.solitaire_places.items()) or "none"
    if not game.solitaire_places:
        verdict = "lost (nothing predicted)"
    elif outcome.won:
        verdict = f"won with {outcome.points} points"
    else:
        verdict = "lost (" + ", ".join(
            f"{c} took place {outcome.places[c]}" for c in game.solitaire_places
        ) + ")"
    return [f"Predictions: {made}", f"Solitaire: {verdict}"]
