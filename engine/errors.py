"""Exceptions the engine raises for input it cannot turn into a board.

Every one of them is an :class:`EngineError` (itself a ``ValueError``), so a caller
that reports bad input catches that one class. Messages are one line and name the
offending entry (``fields[3].corners[1]``, ``feet[2].colour``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class LayoutError(EngineError):
    """The lines do not form a legal layout (self-crossing loop, touching lines, ...).

    The scorer reports this as a ``layout-problem`` instead of guessing a topology.
    """


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a board: where (the entry's path) and what."""

    #: Path of the offending entry, e.g. ``fields[3].corners[1]``; "" for the board.
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class BoardError(EngineError):
    """A board, or a creature on it, is inconsistent (wherever it was built).

    ``problems`` lists everything found wrong (at least the one in the message).
    """

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[Problem, ...] = tuple(problems) or (Problem("", message),)

    @classmethod
    def of(cls, problems: Sequence[Problem]) -> Self:
        """The error for ``problems`` (not empty): the first one, and how many more."""
        more = len(problems) - 1
        message = str(problems[0]) + (
            f" (and {more} more problem{'s' * (more > 1)})" if more else ""
        )
        return cls(message, problems)


class BoardFormatError(BoardError):
    """A board report (JSON) is malformed or inconsistent."""


class IllegalMoveError(EngineError):
    """A creature was placed where the rules do not allow it."""


def excerpt(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, so that an error quoting a bad value
    (a megabyte of JSON, say) stays one short line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
