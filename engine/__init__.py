"""The rules of Dicke Dämonen as a pure-Python library.

Nothing here knows about pixels or HTTP: a board is geometry in any metric frame
(photo pixels or table millimetres) plus creatures, and the rules are plain functions.
"""

from engine.board import Board, Creature, Crossing, Field, Line, Sector, demon, ghost
from engine.errors import (
    BoardError,
    BoardFormatError,
    EngineError,
    IllegalMoveError,
    LayoutError,
    Problem,
)
from engine.legality import (
    Violation,
    can_summon,
    find_violations,
    frozen_fields,
    legal_corners,
    legal_ghost_fields,
    summon,
)
from engine.placement import BoardGeometry, Foot, Location, locate_creatures
from engine.report import board_from_report, board_to_report
from engine.rules import Rule
from engine.scoring import ScoringOptions, score, solitaire_result, winning_player
from engine.topology import build_board
from engine.validate import board_problems, check_board, geometry_problems

__all__ = [
    "Board",
    "BoardError",
    "BoardFormatError",
    "BoardGeometry",
    "Creature",
    "Crossing",
    "EngineError",
    "Field",
    "Foot",
    "IllegalMoveError",
    "LayoutError",
    "Problem",
    "Rule",
    "Line",
    "Location",
    "ScoringOptions",
    "Sector",
    "Violation",
    "board_from_report",
    "board_problems",
    "board_to_report",
    "build_board",
    "can_summon",
    "check_board",
    "demon",
    "find_violations",
    "frozen_fields",
    "geometry_problems",
    "ghost",
    "legal_corners",
    "legal_ghost_fields",
    "locate_creatures",
    "score",
    "solitaire_result",
    "summon",
    "winning_player",
]
