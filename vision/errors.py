"""Errors of the photo reader."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class ReadError(Exception):
    """The photo cannot be read as a board.

    ``str(error)`` is one line a user can act on ("not an image", "no strings found",
    "only three loops found: red, yellow, blue", ...). The reader never returns a
    made-up board instead of raising this.

    Attributes
    ----------
    stages : mapping
        What the stages that ran before the reading failed gave, by stage name, as
        :attr:`vision.reader.Reading.stages` (set by :func:`vision.reader.read_photo`):
        :func:`vision.reader.draw_stages` draws them, so that a refused photo can be
        looked at where it failed. Empty where no stage ran (the file is no photo).
    """

    stages: Mapping[str, Any] = MappingProxyType({})


class PhotoError(ReadError):
    """The file is not a usable photo: not an image, truncated, too small or too large."""
