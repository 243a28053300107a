"""Errors of the photo reader."""


class ReadError(Exception):
    """The photo cannot be read as a board.

    ``str(error)`` is one line a user can act on ("not an image", "no strings found",
    "only three loops found: red, yellow, blue", ...). The reader never returns a
    made-up board instead of raising this.
    """


class PhotoError(ReadError):
    """The file is not a usable photo: not an image, truncated, too small or too large."""
