"""Errors of the command line."""

#: Longest error message printed; the rest of a long one is cut.
MESSAGE_LIMIT = 300


class UserError(Exception):
    """A problem with the user's input, reported as one line without a traceback."""


def one_line(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` on one line and at most ``limit`` characters long."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
