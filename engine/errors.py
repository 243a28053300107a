"""Exceptions the engine raises for input it cannot turn into a board.

Every one of them is an :class:`EngineError` (itself a ``ValueError``), so a caller
that reports bad input catches that one class. Messages are one line and name the
offending entry (``fields[3].corners[1]``, ``feet[2].colour``).
"""


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class LayoutError(EngineError):
    """The lines do not form a legal layout (self-crossing loop, touching lines, ...).

    The scorer reports this as a ``layout-problem`` instead of guessing a topology.
    """


class BoardError(EngineError):
    """A board, or a creature on it, is inconsistent (wherever it was built)."""


class BoardFormatError(BoardError):
    """A board report (JSON) is malformed or inconsistent."""


class IllegalMoveError(EngineError):
    """A creature was placed where the rules do not allow it."""
