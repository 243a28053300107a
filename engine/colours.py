"""The five creature colours and the four line colours."""

from typing import Final

RED: Final = "red"
YELLOW: Final = "yellow"
GREEN: Final = "green"
BLUE: Final = "blue"
WHITE: Final = "white"

#: The four power lines and demon colours, in the order the CONTRACT lists them.
LINE_COLOURS: Final[tuple[str, ...]] = (RED, YELLOW, GREEN, BLUE)
#: Every colour that can score: the four demon colours and white (ghosts).
SCORE_COLOURS: Final[tuple[str, ...]] = (*LINE_COLOURS, WHITE)

DEMON: Final = "demon"
GHOST: Final = "ghost"

#: Creatures of each colour in the sack at the start of a game.
CREATURES_PER_COLOUR: Final = 10


def check_line_colour(colour: object) -> str:
    """Return ``colour`` if it is one of the four line colours, else raise ``ValueError``."""
    if colour not in LINE_COLOURS:
        raise ValueError(
            f"unknown line colour {colour!r}; expected one of {', '.join(LINE_COLOURS)}"
        )
    return str(colour)
