"""What each pixel of a synthetic photo shows: the classes the reader's pixel
classifier learns (:data:`vision.pixels.CLASSES`, the reader's own vocabulary).

The renderer (:func:`synth.render.render_with_labels`) writes one class per pixel, in
painter's order, wherever a drawn object covers at least half the pixel: a pawn
standing on a cord hides it, the upper cord at a crossing hides the lower one, a cup
at the border hides what is under it (background again). Shadows change no class.
"""

from __future__ import annotations

from engine.colours import WHITE
from vision.pixels import BACKGROUND, CLASSES, CORD, GHOST, KNOT, PAWN

PIXEL_CLASSES = CLASSES

__all__ = ["BACKGROUND", "KNOT", "PIXEL_CLASSES", "cord_class", "pawn_class"]


def cord_class(colour: str) -> int:
    """The class of a cord of ``colour``."""
    return CORD[colour]


def pawn_class(colour: str) -> int:
    """The class of a pawn of ``colour`` (``"white"``: a ghost)."""
    return GHOST if colour == WHITE else PAWN[colour]
