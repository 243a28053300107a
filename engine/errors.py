"""Exceptions the engine raises for input it cannot turn into a board."""


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class LayoutError(EngineError):
    """The lines do not form a legal layout (self-crossing loop, touching lines, ...).

    The scorer reports this as a ``layout-problem`` instead of guessing a topology.
    """


class BoardFormatError(EngineError):
    """A board report (JSON) is malformed or inconsistent."""


class IllegalMoveError(EngineError):
    """A creature was placed where the rules do not allow it."""
