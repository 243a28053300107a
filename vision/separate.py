"""Separate stage: strings, pawns and knot lumps by shape, not only by colour.

A yellow pawn and the yellow string have the same colour; what differs is thickness.
A string is a few pixels wide everywhere, a knot is a lump about three string widths
across, a pawn is about seven. A morphological opening with a disc wider than a knot
keeps only pawns; what is left of each colour is string.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray
from skimage.morphology import skeletonize

from engine.colours import LINE_COLOURS, WHITE
from vision.colour import LABEL_COLOURS, ColourMasks

BoolImage = NDArray[np.bool_]

#: A pawn is at least this many string widths across (pawns measure ~6-8).
PAWN_MIN_WIDTHS = 4.2


@dataclass(frozen=True)
class PawnBlob:
    """One pawn (or a few touching pawns) seen in the photo.

    Attributes
    ----------
    colour : str
        Majority colour of the blob's pixels (``"white"`` for a ghost).
    mask : (h, w) bool
        The blob's pixels inside ``box``.
    box : (x, y, w, h)
        Bounding box in working pixels.
    share : float
        Fraction of the blob's coloured pixels that have ``colour``.
    """

    colour: str
    mask: BoolImage
    box: tuple[int, int, int, int]
    share: float

    @property
    def area(self) -> int:
        return int(self.mask.sum())

    def points(self) -> NDArray[np.float64]:
        """(N, 2) x, y working-pixel coordinates of the blob's pixels."""
        ys, xs = np.nonzero(self.mask)
        return np.column_stack([xs + self.box[0], ys + self.box[1]]).astype(np.float64)


@dataclass(frozen=True)
class Separation:
    """Strings and pawns of one photo.

    Attributes
    ----------
    strings : dict of colour to (H, W) bool
        Pixels of each line colour that are string (pawns of that colour removed).
    pawns : list of PawnBlob
    string_width : float
        Typical string width in working pixels (twice the median half-width on the
        strings' centre lines).
    pawn_mask : (H, W) bool
        Every pawn pixel, of any colour.
    """

    strings: dict[str, BoolImage]
    pawns: list[PawnBlob]
    string_width: float
    pawn_mask: BoolImage = field(repr=False)


def estimate_string_width(masks: ColourMasks) -> float:
    """Median width of the coloured thin structures (strings dominate by length)."""
    coloured = (masks.labels > 0) & (masks.labels < LABEL_COLOURS.index(WHITE))
    if coloured.sum() < 50:
        return 0.0
    distance = cv2.distanceTransform(coloured.astype(np.uint8), cv2.DIST_L2, 3)
    skeleton = skeletonize(coloured)
    half_widths = distance[skeleton]
    if half_widths.size == 0:
        return 0.0
    return float(2.0 * np.median(half_widths))


def _disc(diameter: float) -> NDArray[np.uint8]:
    size = max(3, int(round(diameter)) | 1)
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))


def separate(masks: ColourMasks) -> Separation:
    """Split the colour masks into strings and pawn blobs.

    Parameters
    ----------
    masks : ColourMasks

    Returns
    -------
    Separation
    """
    string_width = max(estimate_string_width(masks), 2.0)
    labels = masks.labels
    anything = labels > 0
    # Close small holes (highlights, the seam between head and body) before opening.
    closed = cv2.morphologyEx(anything.astype(np.uint8), cv2.MORPH_CLOSE, _disc(string_width))
    thick = cv2.morphologyEx(closed, cv2.MORPH_OPEN, _disc(PAWN_MIN_WIDTHS * string_width))
    pawns = _pawn_blobs(thick.astype(bool), labels)
    pawn_mask = thick.astype(bool)
    grown = cv2.dilate(thick, _disc(0.8 * string_width)).astype(bool)

    strings: dict[str, BoolImage] = {}
    for index, colour in enumerate(LINE_COLOURS, start=1):
        own = labels == index
        # Cut out only the pawns of the string's own colour: other pawns do not hide
        # pixels of this colour, and cutting them would bend the traced line.
        own_pawns = np.zeros_like(own)
        for pawn in pawns:
            if pawn.colour == colour:
                x, y, w, h = pawn.box
                own_pawns[y : y + h, x : x + w] |= pawn.mask
        own_pawns = cv2.dilate(own_pawns.astype(np.uint8), _disc(string_width)).astype(bool)
        strings[colour] = own & ~own_pawns & ~(grown & ~own)
    return Separation(strings=strings, pawns=pawns, string_width=string_width, pawn_mask=pawn_mask)


def _pawn_blobs(thick: BoolImage, labels: NDArray[np.uint8]) -> list[PawnBlob]:
    count, components, stats, _ = cv2.connectedComponentsWithStats(thick.astype(np.uint8), 8)
    blobs = []
    for index in range(1, count):
        x, y, w, h = (int(v) for v in stats[index, :4])
        mask = components[y : y + h, x : x + w] == index
        inside = labels[y : y + h, x : x + w][mask]
        counts = np.bincount(inside, minlength=len(LABEL_COLOURS))[1:]
        if counts.sum() == 0:
            continue
        # White highlights sit on every shiny pawn: a blob is a ghost only when white
        # clearly dominates it.
        coloured = counts[:4]
        if counts[4] > 2.0 * coloured.sum():
            colour, share = WHITE, float(counts[4] / counts.sum())
        else:
            best = int(np.argmax(coloured))
            colour, share = LINE_COLOURS[best], float(coloured[best] / max(coloured.sum(), 1))
        blobs.append(PawnBlob(colour=colour, mask=mask, box=(x, y, w, h), share=share))
    return blobs
