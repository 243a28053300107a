"""The rules a board can break, by the names the board report uses (CONTRACT.md).

One enum for the engine, the generator and the web app, so that no module retypes the
names. ``Rule`` members are strings (``Rule.GHOST_IN_OUTER_FIELD == "ghost-in-outer-field"``),
so they go into JSON and compare with names read from a report as they are.
"""

from __future__ import annotations

from enum import StrEnum


class Rule(StrEnum):
    """A rule violation a single photo of a board can prove."""

    #: A ghost stands in the outer field.
    GHOST_IN_OUTER_FIELD = "ghost-in-outer-field"
    #: A field holds more than one ghost.
    TWO_GHOSTS_IN_FIELD = "two-ghosts-in-field"
    #: A demon stands in a field but away from every corner.
    DEMON_NOT_IN_CORNER = "demon-not-in-corner"
    #: A demon stands at a crossing of two lines of other colours.
    DEMON_COLOUR_MISMATCH = "demon-colour-mismatch"
    #: A corner holds more demons than it has room for.
    TWO_DEMONS_IN_CORNER = "two-demons-in-corner"
    #: A colour has more creatures than the game has.
    TOO_MANY_CREATURES = "too-many-creatures"
    #: A loop crosses fewer than two other loops.
    LOOP_CROSSES_TOO_FEW = "loop-crosses-too-few"
    #: The lines do not form a legal layout (a loop crosses itself, lines touch, ...).
    LAYOUT_PROBLEM = "layout-problem"


__all__ = ["Rule"]
