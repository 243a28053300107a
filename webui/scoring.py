"""The one place where the web app asks the camera reader to read a photo.

Every upload, retry and sample goes through :func:`read_board`, which never raises for
a photo the reader cannot read: it returns the reader's one-line message instead, so
the upload is archived with its error and the players can retry or enter the board
by hand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from vision.errors import ReadError
from vision.reader import read_photo

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoardReading:
    """What the reader made of one photo: a board report, or why there is none."""

    report: dict[str, Any] | None
    error: str | None

    def __post_init__(self) -> None:
        if (self.report is None) == (self.error is None):
            raise ValueError("a reading has either a report or an error")


def read_board(photo: bytes) -> BoardReading:
    """Read a photo into a board report with the camera reader.

    Parameters
    ----------
    photo : bytes
        The uploaded file, already checked to decode as an image.

    Returns
    -------
    BoardReading
        ``report`` is the reader's board report (photo pixels, with confidences and
        warnings); ``error`` is its one-line message when it could not read the board.
    """
    try:
        reading = read_photo(photo)
    except ReadError as error:
        return BoardReading(None, str(error).splitlines()[0] if str(error) else "unreadable photo")
    except Exception as error:  # a bug in the reader must not lose the upload
        log.exception("the reader failed on a photo")
        return BoardReading(None, f"internal error in the reader: {type(error).__name__}")
    report: dict[str, Any] = reading.report
    return BoardReading(report, None)
