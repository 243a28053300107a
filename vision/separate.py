"""Separate stage: strings, pawns and knot lumps by shape, not only by colour.

A yellow pawn and the yellow string have the same colour; what differs is thickness.
A string is a few pixels wide everywhere, a knot is a lump about three string widths
across, a pawn is about seven. A morphological opening with a disc wider than a knot
keeps only pawns; what is left of each colour is string. On an even table of a
string's own hue (a blue mat, green felt) that string differs from the table only as
a shadow does, and is found as thin lines instead (top-hats).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from skimage.morphology import skeletonize

from engine.board import Point
from engine.colours import LINE_COLOURS, WHITE
from vision.colour import (
    LABEL_COLOURS,
    TABLE,
    ColourMasks,
    bounding_box,
    lightness_spread,
    of_dull_hue,
)
from vision.ghost_cues import evenly_darkened, ghost_cues, tint_against_table
from vision.parallel import all_at_once

BoolImage = NDArray[np.bool_]
FloatImage = NDArray[np.float32]

#: A pawn is at least this many string widths across (pawns measure ~6-8).
PAWN_MIN_WIDTHS = 4.2
#: Anything of a line colour wider than this (in string widths) is no string.
WIDE_WIDTHS = 3.6
#: A part too wide for a string and at most this many pawns in area, touching no pawn of
#: its colour, is a knot's lump (knots are 0.25-0.6 of a pawn), kept as string.
MAX_LUMP_PAWNS = 0.6
#: ... and that lies on something of its colour reaching this many string widths away.
LUMP_STRETCH_WIDTHS = 5.0
#: A blob filling more of the rectangle round it than this is a card, not pawns.
MAX_PAWN_RECTANGULARITY = 0.9
#: A wide part of the colours this many pawns long that fills at least this share of
#: the rectangle round it is a band (the table's edge), not pawns crowding.
MIN_BAND_PAWNS = 15.0
MIN_BAND_FILL = 0.6
#: A patch of one line colour, its holes filled, at least this many pawns in area that
#: fills the rectangle round it and its own hull this well is a flat thing (a playing
#: card, a box): the table model takes in its middle, so only a frame of it is coloured,
#: thick enough at its edges to pass for a row of pawns. Four pawns touching in a square
#: fill their hull to 0.89 at most.
MIN_CARD_PAWNS = 3.0
MIN_CARD_FILL = 0.85
MIN_CARD_SOLIDITY = 0.95
#: ... and of which this share at least is coloured (a loop of string is a thin ring).
MIN_CARD_FRAME = 0.3
#: A ghost's lit part is at least this many string widths across.
GHOST_MIN_WIDTHS = 2.6
#: White parts longer than this many pawn widths are no ghosts (a table's rim, a cup).
MAX_GHOST_EXTENT_PAWNS = 5.0
#: A white blob is a ghost only if its lightest part (95th percentile of L*, 0..255) is
#: this much lighter than the lit table within so many pawn widths (its 90th percentile)
GHOST_LIFT = 12.0
GHOST_RING_PAWNS = 1.5
#: ... or its a*b* tint (median) is at least this far from that table's.
GHOST_TINT_APART = 4.0
#: A ghost covers at least this share of a typical pawn's area.
MIN_GHOST_AREA_SHARE = 0.15
#: A ghost found by its outline is at least this share edges, and at most this share
#: of it lies round a pawn found already...
MIN_OUTLINE_SHARE = 0.5
MAX_NEAR_PAWN_SHARE = 0.05
#: ... and this far from the table's tint (a*b*).
MIN_GHOST_TINT = 2.0
#: ... or it stands apart: this many string widths from any pawn found, and with its
#: shadow at least as big as a typical pawn. A shadow lies against what casts it.
APART_WIDTHS = 4.0
MIN_APART_AREA_SHARE = 1.0
#: How sure a ghost found by its outline is (a white one is as sure as its share).
OUTLINED_GHOST_SURENESS = 0.6
#: On an even table of a string's hue, that string is a line darker (or lighter) than
#: the table by this many times the table's lightness spread, and at least this L*.
LINE_DEPTH_SPREADS = 4.0
LINE_MIN_DEPTH = 10.0
#: On an even table of a pawn's hue, at least this share of the pawn is lighter than
#: the table (its lit side); a shadow has none...
MIN_LIT_SHARE = 0.1
#: ... or the pawn's glossy top shows a highlight: at least this many square string
#: widths lighter than the table by this much L* (a shadow shows none).
MIN_HIGHLIGHT_AREA_WIDTHS2 = 1.0
HIGHLIGHT_DEPTH = 40.0
#: How far beside a string its shadow reaches, in string widths.
SHADOW_REACH_WIDTHS = 1.5
#: A stretch of such a line is at least this many string widths long (a pawn is ~7).
MIN_LINE_LENGTH_WIDTHS = 10.0
#: The shortest loop, in string widths: less string than this of a colour is no loop.
MIN_LOOP_WIDTHS = 60.0


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
        Fraction of the blob's coloured pixels that have ``colour`` (for a ghost found
        by its outline, how sure that finding is).
    with_shadow : bool
        The blob takes in the pawn's shadow (a ghost found by its outline): its size
        says nothing of how many pawns it holds.
    body : (h, w) bool or None
        For a blob with its shadow, the pawn itself (its lightest pawn's area), where
        its foot is found; None when that is the whole blob.
    """

    colour: str
    mask: BoolImage
    box: tuple[int, int, int, int]
    share: float
    with_shadow: bool = False
    body: BoolImage | None = field(default=None, repr=False)

    @property
    def area(self) -> int:
        return int(self.mask.sum())

    def points(self) -> NDArray[np.float64]:
        """(N, 2) x, y working-pixel coordinates of the blob's pixels."""
        return self._in_photo(self.mask)

    def body_points(self) -> NDArray[np.float64]:
        """(N, 2) x, y working-pixel coordinates of the pawn itself (see ``body``)."""
        return self._in_photo(self.mask if self.body is None else self.body)

    def _in_photo(self, mask: BoolImage) -> NDArray[np.float64]:
        ys, xs = np.nonzero(mask)
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
        strings' centre lines), at least 2 so that every scale stays sensible.
    pawn_mask : (H, W) bool
        Every pawn pixel, of any colour.
    measured_width : float
        The width as measured, before that floor: 0 when nothing coloured was found.
    knots : dict of colour to (x, y)
        Knot lumps found by their shape, by the colour of their string (the tracer
        looks for the others on the traced loops).
    by_shape : frozenset of str
        The colours whose string was (also) looked for as thin lines of its hue (on a
        table of that hue, or too dull to be labelled): any other cord seen as such a
        line, and the shadows cords cast, pass for it too.
    """

    strings: dict[str, BoolImage]
    pawns: list[PawnBlob]
    string_width: float
    pawn_mask: BoolImage = field(repr=False)
    measured_width: float = 0.0
    knots: dict[str, Point] = field(default_factory=dict)
    by_shape: frozenset[str] = frozenset()


def estimate_string_width(masks: ColourMasks) -> float:
    """Median width of the coloured thin structures (strings dominate by length)."""
    coloured = (masks.labels > 0) & (masks.labels < LABEL_COLOURS.index(WHITE))
    return estimate_width(coloured)


def estimate_width(mask: BoolImage) -> float:
    """Twice the median distance from the skeleton of ``mask`` to its edge: the width
    of its thin parts (0 when there is too little of it to measure)."""
    box = bounding_box(mask, margin=2)
    if box is None or np.count_nonzero(mask[box]) < 50:
        return 0.0
    # The box is enough: with a margin of background round it, the distances and the
    # skeleton inside it are those of the whole image.
    inside = mask[box]
    distance = cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3)
    skeleton: BoolImage = skeletonize(inside)  # type: ignore[no-untyped-call]
    half_widths = distance[skeleton]
    if half_widths.size == 0:
        return 0.0
    return float(2.0 * np.median(half_widths))


def fill_small_holes(mask: NDArray[np.uint8], max_area: float) -> NDArray[np.uint8]:
    """Fill the holes of ``mask`` smaller than ``max_area`` pixels.

    A pawn of the table's own hue (a green pawn on green felt) differs from the table
    only at its shaded rim and its highlight, so its mask is a ring; filling the ring
    makes it a pawn again. A field enclosed by a loop is a hole too, but a large one.
    """
    # Most masks have no hole at all. Following the contours finds the holes' borders
    # (the mask's parts 8-connected, its holes 4-connected, as labelled below) for a
    # twentieth of the cost of labelling the whole mask's background; the holes lie
    # inside their borders' boxes, so only the box round those is labelled.
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    # A hole's border is a contour inside another (its parent, the part round it).
    parents = [] if hierarchy is None else hierarchy[0][:, 3]
    borders = [c for c, parent in zip(contours, parents, strict=True) if parent >= 0]
    if not borders:
        return mask.copy()
    x, y, w, h = cv2.boundingRect(np.concatenate(borders))
    box = (slice(y, y + h), slice(x, x + w))
    filled = mask.copy()
    filled[box] = _fill_enclosed_holes(mask[box], max_area)
    return filled


def _fill_enclosed_holes(mask: NDArray[np.uint8], max_area: float) -> NDArray[np.uint8]:
    """Fill the holes of ``mask`` smaller than ``max_area`` pixels that do not touch
    its edge."""
    holes = (mask == 0).astype(np.uint8)
    count, components, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    small = stats[:, cv2.CC_STAT_AREA] < max_area
    # Component 0 is the mask itself; holes touching the image border are outside.
    edges = (components[0], components[-1], components[:, 0], components[:, -1])
    small[0] = False
    small[np.unique(np.concatenate(edges))] = False
    return np.asarray(mask | small[components].astype(np.uint8))


def opening(mask: NDArray[np.uint8], diameter: float) -> NDArray[np.bool_]:
    """Morphological opening with a disc, through two distance transforms.

    The pixels where a disc of ``diameter`` fits are those at least its radius from
    the background; the opening is every pixel within that radius of one of them.
    Distance transforms cost the same for any disc, where ``cv2.morphologyEx`` with a
    pawn-sized disc is slow.
    """
    return openings(mask, [diameter])[0]


def openings(mask: NDArray[np.uint8], diameters: Sequence[float]) -> list[BoolImage]:
    """The :func:`opening` of ``mask`` with a disc of each diameter.

    The distance of every pixel from the background is the same for every disc, so
    it is measured once.
    """
    inside = _distance_where_at_least(mask.astype(np.uint8), min(diameters) / 2, max(diameters) / 2)
    return [_within_reach(mask, inside >= d / 2, d / 2) for d in diameters]


def _distance_where_at_least(
    mask: NDArray[np.uint8], least: float, most: float
) -> NDArray[np.float32]:
    """Each mask pixel's distance to the background, where it is at least ``least``,
    and exact in comparisons with any radius up to ``most``; below ``least``, 0.

    The masks are sparse (strings and pawns in a box of the board), and the pixels that
    far inside are few: a pixel ``least`` from the background has the square of half
    side under ``least`` / √2 round it in the mask, so a cheap erosion by that square
    finds them all (and more), and the distances are measured in a box round each group
    of them only. A box reaches more than ``most`` beyond its group, so a distance there
    compares with any radius up to ``most`` as the whole mask's would.
    """
    distance = np.zeros(mask.shape, np.float32)
    half = max(0, math.ceil(least / math.sqrt(2)) - 1)  # its corners nearer than least
    square = np.ones((2 * half + 1, 2 * half + 1), np.uint8)
    # (Beyond the image is no background, to the distance transform as to the erosion.)
    candidates = cv2.erode(mask, square) > 0 if half > 0 else mask > 0
    margin = math.ceil(most) + 1
    for rows, columns in _groups(candidates):
        box = _grown(rows, columns, margin)
        measured = cv2.distanceTransform(mask[box], cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        # Only the group's own pixels are kept: at the box's edge the distance may be
        # too large (the background beyond it is not seen).
        top, left = box[0].start, box[1].start
        own = (
            slice(rows.start - top, rows.stop - top),
            slice(columns.start - left, columns.stop - left),
        )
        distance[rows, columns] = np.where(candidates[rows, columns], measured[own], 0)
    return distance


def _within_reach(mask: NDArray[np.uint8], centres: BoolImage, radius: float) -> BoolImage:
    """The pixels of ``mask`` closer than ``radius`` to one of ``centres``."""
    fits = np.zeros(mask.shape, bool)
    # Nothing farther than the radius from a group of centres is reached from it, so
    # the distances are measured in a box round each group only (pawns are small).
    margin = math.ceil(radius) + 1
    for rows, columns in _groups(centres):
        box = _grown(rows, columns, margin)
        far = 1 - centres[box].astype(np.uint8)
        fits[box] |= cv2.distanceTransform(far, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) < radius
    within: BoolImage = fits & mask.astype(bool)
    return within


def _grown(rows: slice, columns: slice, margin: int) -> tuple[slice, slice]:
    """The box of ``rows`` and ``columns`` grown by ``margin`` on every side (slicing
    clips it to the image)."""
    return (
        slice(max(0, rows.start - margin), rows.stop + margin),
        slice(max(0, columns.start - margin), columns.stop + margin),
    )


def _groups(mask: BoolImage) -> list[tuple[slice, slice]]:
    """Boxes that together hold every pixel of a sparse ``mask``: each band of rows
    with pixels, cut into its bands of columns with pixels (cheaper than labelling)."""
    return [
        (rows, columns)
        for rows in _runs(np.asarray(mask.any(axis=1)))
        for columns in _runs(np.asarray(mask[rows].any(axis=0)))
    ]


def _runs(flags: NDArray[np.bool_]) -> list[slice]:
    """The runs of True in a 1-D array, as slices."""
    edges = np.flatnonzero(np.diff(np.concatenate([[False], flags, [False]]).astype(np.int8)))
    return [slice(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def disc(diameter: float) -> NDArray[np.uint8]:
    """A round structuring element about ``diameter`` pixels across (odd, at least 3)."""
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
    measured_width = estimate_string_width(masks)
    string_width = max(measured_width, 2.0)
    labels = masks.labels
    # Each colour is worked on inside its own bounding box; the margin is wider than
    # any disc used, so that the result is what the whole image would give.
    margin = int(4 * string_width) + 8
    pawns: list[PawnBlob] = []
    pawn_mask = np.zeros(labels.shape, bool)
    strings: dict[str, BoolImage] = {}
    by_shape: set[str] = set()

    def clutter_of_lines() -> BoolImage:
        # The table's edge and cards: of line colours, and neither pawns nor ghosts.
        return _long_wide_bands(labels, string_width, margin) | _flat_things(labels, string_width)

    def colour_pawns(
        index: int,
    ) -> tuple[BoolImage, tuple[slice, slice] | None, list[PawnBlob], BoolImage | None]:
        own = labels == index
        box = bounding_box(own, margin)
        if box is None:
            return own, None, [], None
        origin = (box[1].start, box[0].start)
        colour = LINE_COLOURS[index - 1]
        return own, box, *_colour_pawns(own[box], labels[box], colour, origin, string_width)

    # Each colour on its own, so that a blue pawn touching a red one stays two blobs;
    # the colours and the clutter at once.
    work: list[Callable[[], Any]] = [clutter_of_lines]
    work += [partial(colour_pawns, index) for index in range(1, len(LINE_COLOURS) + 1)]
    clutter, *found = all_at_once(work, labels.size)
    for (index, colour), (own, box, round_blobs, not_string) in zip(
        enumerate(LINE_COLOURS, start=1), found, strict=True
    ):
        strings[colour] = np.zeros(labels.shape, bool)
        if box is not None and not_string is not None:
            round_blobs = [b for b in round_blobs if _share(clutter, b) < 0.5]
            if colour == masks.table_hue_colour:
                round_blobs = _with_a_lit_side(round_blobs, masks, box, string_width)
            pawns.extend(round_blobs)
            pawn_mask |= blob_mask(labels.shape, round_blobs)
            # Cut out only the pawns of the string's own colour: other pawns do not hide
            # pixels of this colour, and cutting them would bend the traced line.
            cut = cv2.dilate(not_string.astype(np.uint8), disc(string_width)).astype(bool)
            strings[colour][box] = own[box] & ~cut
        if colour == masks.table_hue_colour and masks.of_table_hue is not None:
            # Its string is found by shape; round its own pawns, outlines are lines
            # too. (A knot is a blob of its own, smaller than a pawn: it stays.)
            lines = thin_lines_of_hue(masks, index, masks.of_table_hue, string_width)
            by_shape.add(colour)
            typical = float(np.median([b.area for b in pawns])) if pawns else 0.0
            pawn_sized = [b for b in round_blobs if b.area >= 0.5 * typical]
            own_pawns = blob_mask(labels.shape, pawn_sized).astype(np.uint8)
            strings[colour] = lines & ~(cv2.dilate(own_pawns, disc(4 * string_width)) > 0)
    for index, colour in enumerate(LINE_COLOURS, start=1):
        # Too little of a cord for a loop: a dark navy cord on beige may have too little
        # chroma left to be labelled, yet it is a thin dark line of its hue.
        too_little = np.count_nonzero(strings[colour]) < MIN_LOOP_WIDTHS * string_width**2
        if too_little and masks.profile is not None and colour != masks.table_hue_colour:
            dull = of_dull_hue(masks, colour)
            strings[colour] |= thin_lines_of_hue(masks, index, dull, string_width)
            by_shape.add(colour)
    white = labels == LABEL_COLOURS.index(WHITE)
    # Without coloured pawns to measure, a pawn is ~7 string widths across.
    typical = math.pi * (3.5 * string_width) ** 2
    if pawns:
        typical = float(np.median([b.area for b in pawns]))
    # Five ghosts in a row, or a few and their long shadows, at most.
    max_extent = MAX_GHOST_EXTENT_PAWNS * 2 * math.sqrt(typical / math.pi)
    ghosts = _ghost_blobs(white, labels, pawn_mask, string_width, margin, max_extent)
    pawn_width = 2 * math.sqrt(typical / math.pi)
    pawns.extend(
        g
        for g in ghosts
        if _ghost_like(g, typical)
        and _share(clutter, g) < 0.5
        and _apart_from_the_lit_table(g, masks, pawn_width)
    )
    outlined_ghosts = _outlined_ghosts(masks, pawns, string_width, margin, typical)
    pawns.extend(g for g in outlined_ghosts if _ghost_like(g, typical))
    pawn_mask |= blob_mask(labels.shape, [p for p in pawns if p.colour == WHITE])
    return Separation(
        strings=strings,
        pawns=pawns,
        string_width=string_width,
        pawn_mask=pawn_mask,
        measured_width=measured_width,
        by_shape=frozenset(by_shape),
    )


def _colour_pawns(
    own: BoolImage,
    labels: NDArray[np.uint8],
    colour: str,
    origin: tuple[int, int],
    string_width: float,
) -> tuple[list[PawnBlob], BoolImage]:
    """The pawns of one colour, and what of that colour is too thick for a string.

    ``own`` and ``labels`` are a box of the photo whose corner is at ``origin``
    (x, y); the blobs' boxes are in the photo's pixels, the mask in the box's.
    """
    # Close small holes (highlights, the seam between head and body) first.
    joined = cv2.morphologyEx(own.astype(np.uint8), cv2.MORPH_CLOSE, disc(1.5 * string_width))
    closed = fill_small_holes(np.asarray(joined, np.uint8), 12 * string_width**2)
    diameters = [PAWN_MIN_WIDTHS * string_width, WIDE_WIDTHS * string_width]
    pawn_sized, too_wide = openings(closed, diameters)
    blobs = _pawn_blobs(pawn_sized, colour, labels, origin)
    # A sunlit patch between hard shadows can take a string's colour; it is wide
    # but not round like a pawn, and it is no string either.
    round_blobs = [b for b in blobs if _pawn_shaped(b)]
    own_pawns = blob_mask(own.shape, round_blobs, origin)
    lumps = _lumps(too_wide, own_pawns, closed.astype(bool), string_width)
    return round_blobs, own_pawns | (too_wide & ~lumps)


def _lumps(
    too_wide: BoolImage, own_pawns: BoolImage, colour: BoolImage, string_width: float
) -> BoolImage:
    """The parts too wide for a string that are far smaller than a pawn, touch none and
    lie on a long stretch of ``colour``: a knot's lump. They stay string, so that the
    knot is found where its tails branch off and where the loop is thickest. (A small
    pawn standing alone is no string: traced, it would make a loop of its own.)"""
    lumps = np.zeros(too_wide.shape, bool)
    # A pawn is ~7 string widths across.
    max_area = MAX_LUMP_PAWNS * math.pi * (3.5 * string_width) ** 2
    reach = int(math.ceil(2 * string_width))
    # Labelled group by group: the wide parts are few and small.
    for rows, columns in _groups(too_wide):
        count, parts, stats, _ = cv2.connectedComponentsWithStats(
            too_wide[rows, columns].astype(np.uint8)
        )
        kept = np.zeros(count, bool)
        for k in range(1, count):
            if stats[k, cv2.CC_STAT_AREA] > max_area:
                continue
            x, y, w, h = (int(v) for v in stats[k, :4])
            x, y = x + columns.start, y + rows.start
            # Pawns are few: their pixels near the part's box, not a dilated mask.
            near = own_pawns[max(0, y - reach) : y + h + reach, max(0, x - reach) : x + w + reach]
            kept[k] = not near.any() and _on_a_long_stretch(colour, (x, y, w, h), string_width)
        lumps[rows, columns] |= kept[parts]
    return lumps


def _on_a_long_stretch(mask: BoolImage, box: tuple[int, int, int, int], width: float) -> bool:
    """Whether the part of ``mask`` in ``box`` (x, y, w, h) belongs to something that
    reaches at least ``LUMP_STRETCH_WIDTHS`` string widths beyond the box on some side:
    a string, not a blob on its own."""
    x, y, w, h = box
    reach = int(math.ceil(LUMP_STRETCH_WIDTHS * width))
    top, left = max(0, y - reach), max(0, x - reach)
    window = mask[top : y + h + reach, left : x + w + reach].astype(np.uint8)
    count, parts = cv2.connectedComponents(window, connectivity=8)
    inside = np.unique(parts[y - top : y - top + h, x - left : x - left + w])
    inside = inside[inside > 0]
    rim = np.concatenate([parts[0], parts[-1], parts[:, 0], parts[:, -1]])
    return bool(np.isin(inside, rim).any())


def _long_wide_bands(labels: NDArray[np.uint8], string_width: float, margin: int) -> BoolImage:
    """Long straight bands of any mix of line colours: the table's edge or a card's
    rim, whose colour flickers between red and yellow so that each colour alone breaks
    into pieces of a pawn's size."""
    bands = np.zeros(labels.shape, bool)
    coloured = (labels > 0) & (labels < LABEL_COLOURS.index(WHITE))
    box = bounding_box(coloured, margin)
    if box is None:
        return bands
    closed = cv2.morphologyEx(coloured[box].astype(np.uint8), cv2.MORPH_CLOSE, disc(string_width))
    wide = opening(np.asarray(closed, np.uint8), WIDE_WIDTHS * string_width)
    count, parts, stats, _ = cv2.connectedComponentsWithStats(wide.astype(np.uint8))
    # A pawn is ~7 string widths across.
    min_length = MIN_BAND_PAWNS * 7 * string_width
    for k in range(1, count):
        if max(stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]) < min_length:
            continue
        ys, xs = np.nonzero(parts == k)
        (_, _), (w, h), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        # A band fills the rectangle round it; pawns crowded along a cord do not.
        if stats[k, cv2.CC_STAT_AREA] >= MIN_BAND_FILL * (w + 1) * (h + 1):
            bands[box][ys, xs] = True
    return bands


def _flat_things(labels: NDArray[np.uint8], string_width: float) -> BoolImage:
    """Cards and other flat rectangles of a line colour, with their rims (a card's white
    border): patches that, their holes filled, are large and fill the rectangle round
    them. Neither their coloured frame nor their border is pawns. Found at a quarter of
    the resolution: they are several pawns large."""
    step = 4
    small_labels = labels[::step, ::step]
    width = string_width / step
    flat = np.zeros(small_labels.shape, np.uint8)
    # A pawn is ~7 string widths across.
    min_area = MIN_CARD_PAWNS * math.pi * (3.5 * width) ** 2
    for index in range(1, LABEL_COLOURS.index(WHITE)):
        own = (small_labels == index).astype(np.uint8)
        closed = np.asarray(cv2.morphologyEx(own, cv2.MORPH_CLOSE, disc(1.5 * width)), np.uint8)
        contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < min_area:
                continue
            (_, _), (w, h), _ = cv2.minAreaRect(contour)
            hull_area = cv2.contourArea(cv2.convexHull(contour))
            if area < MIN_CARD_FILL * w * h or area < MIN_CARD_SOLIDITY * hull_area:
                continue
            x, y, bw, bh = cv2.boundingRect(contour)
            inside = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(inside, [contour], -1, 1, cv2.FILLED, offset=(-x, -y))
            # A frame, not a closed loop of string round an empty middle.
            if closed[y : y + bh, x : x + bw][inside > 0].sum() >= MIN_CARD_FRAME * area:
                flat[y : y + bh, x : x + bw] |= inside
    if not flat.any():
        return np.zeros(labels.shape, bool)
    # The border round the coloured back, white or of another colour.
    flat = np.asarray(cv2.dilate(flat, disc(4 * width)), np.uint8)
    size = (small_labels.shape[1] * step, small_labels.shape[0] * step)
    full = cv2.resize(flat, size, interpolation=cv2.INTER_NEAREST)
    return np.asarray(full[: labels.shape[0], : labels.shape[1]] > 0)


def _with_a_lit_side(
    blobs: list[PawnBlob], masks: ColourMasks, box: tuple[slice, slice], string_width: float
) -> list[PawnBlob]:
    """The blobs (of the table's own hue, found in ``box``) that show a lit side or a
    highlight.

    A shadow of the table's hue is all darker than the table; a pawn of that colour
    is lit from above, and some of it is lighter than the table. A pawn darker than
    the table all over (a deep blue pawn on a light blue mat, lit from the side) still
    shows the glint of its glossy top, a spot far lighter than the table.
    """
    gain = masks.lab[box][..., 0] - masks.table[box][..., 0]
    min_highlight = MIN_HIGHLIGHT_AREA_WIDTHS2 * string_width**2
    kept = []
    for blob in blobs:
        x, y, w, h = blob.box
        x, y = x - box[1].start, y - box[0].start
        inside = gain[y : y + h, x : x + w][blob.mask]
        lit_share = float((inside > 0).mean())
        highlight = int((inside > HIGHLIGHT_DEPTH).sum())
        if lit_share >= MIN_LIT_SHARE or highlight >= min_highlight:
            kept.append(blob)
    return kept


def thin_lines_of_hue(
    masks: ColourMasks, index: int, of_hue: BoolImage, string_width: float
) -> BoolImage:
    """A string found by shape: thin lines darker or lighter than the table, of a hue.

    On a blue mat the blue cord is darker than the mat in the mat's hue, and so are
    the shadows; only the cord is thin. A black top-hat (closing minus image) with a
    disc three string widths across answers on dark lines narrower than the disc, not
    inside wide shadows nor at their edges; a white top-hat on light lines (a light
    green cord on dark felt). Of those, the pixels with the hue (``of_hue``: the
    table's, or a dull one) are kept, but not beside a string of another colour than
    ``index`` (its shadow or shaded side) nor in short scraps (texture, the shaded
    crescent round a pawn).
    """
    lightness = np.clip(masks.lab[..., 0], 0, 255).astype(np.uint8)
    wide = disc(3 * string_width)
    top_hat = np.maximum(
        cv2.morphologyEx(lightness, cv2.MORPH_BLACKHAT, wide),
        cv2.morphologyEx(lightness, cv2.MORPH_TOPHAT, wide),
    )
    labels = masks.labels
    # Every 4th row and column is plenty for the table's spread.
    residual = masks.lab[::4, ::4, 0] - masks.table[::4, ::4, 0]
    spread = lightness_spread(residual[labels[::4, ::4] == 0])
    depth = max(LINE_DEPTH_SPREADS * spread, LINE_MIN_DEPTH)
    others = ((labels > 0) & (labels != index)).astype(np.uint8)
    beside = cv2.dilate(others, disc(2 * SHADOW_REACH_WIDTHS * string_width)) > 0
    lines = (top_hat > depth) & of_hue & ~beside
    lines = long_parts(lines, MIN_LINE_LENGTH_WIDTHS * string_width)
    # Smoothed, so that its skeleton is one line and not a comb.
    size = max(3, int(round(string_width)) | 1)
    return np.asarray(cv2.medianBlur(lines.astype(np.uint8), size) > 0)


def long_parts(mask: BoolImage, min_length: float) -> BoolImage:
    """The connected parts of ``mask`` at least ``min_length`` long (the longer side
    of their bounding box): stretches of string, not specks of texture or the
    shaded crescent round a pawn."""
    count, components, stats, _ = cv2.connectedComponentsWithStats(
        mask.astype(np.uint8), connectivity=8
    )
    sides = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    long = sides >= min_length
    long[0] = False
    return np.asarray(long[components])


def _pawn_shaped(blob: PawnBlob) -> bool:
    """Round enough for a pawn (or two or three touching ones), and not a rectangle
    (a playing card on the table fills the rectangle round it; a disc fills 79 %,
    pawn blobs at most 86 % on the dev photos and 45 generated ones)."""
    points = blob.points().astype(np.float32)
    if len(points) < 5:
        return False
    (_, _), (w, h), _ = cv2.minAreaRect(points)
    hull_area = cv2.contourArea(cv2.convexHull(points))
    solidity = blob.area / max(hull_area, 1.0)
    rectangularity = blob.area / max((w + 1) * (h + 1), 1.0)
    return (
        max(w, h) <= 3.2 * max(min(w, h), 1.0)
        and solidity >= 0.7
        and rectangularity <= MAX_PAWN_RECTANGULARITY
    )


def _ghost_blobs(
    white_everywhere: BoolImage,
    labels: NDArray[np.uint8],
    coloured_pawns: BoolImage,
    string_width: float,
    margin: int,
    max_extent: float,
    ringed: bool = False,
) -> list[PawnBlob]:
    """White pawns: the lit part of a ghost is white, its shaded side often is not, so
    a smaller disc than for coloured pawns must fit. Highlights on coloured pawns are
    white too; they lie on a coloured pawn and are skipped. A white part longer than
    ``max_extent`` (pixels) is no pawns but the lit rim of the table's edge or of a
    cup. Where ghosts are ``ringed`` (found by their outline), the holes in the rings
    are filled."""
    box = bounding_box(white_everywhere, margin)
    if box is None:
        return []
    origin = (box[1].start, box[0].start)
    white = white_everywhere[box].astype(np.uint8)
    closed = np.asarray(
        cv2.morphologyEx(white, cv2.MORPH_CLOSE, disc(1.5 * string_width)), np.uint8
    )
    if ringed:
        # An outlined ghost's smooth top can be a hole in its ring of edges.
        closed = fill_small_holes(closed, 30 * string_width**2)
    thick = opening(_without_long_parts(closed, max_extent), GHOST_MIN_WIDTHS * string_width)
    near = cv2.dilate(coloured_pawns[box].astype(np.uint8), disc(1.5 * string_width)) > 0
    blobs = _pawn_blobs(thick.astype(bool), WHITE, labels[box], origin)
    return [blob for blob in blobs if _share(near, blob, origin) < 0.3]


def _apart_from_the_lit_table(blob: PawnBlob, masks: ColourMasks, pawn_width: float) -> bool:
    """Whether a white blob differs from the lit table round it: its lightest part
    stands above it, or its tint is not the table's.

    Where long shadows crowd, the table model (a wide median) is darker than the lit
    table between them, so those lit patches read as white; but they are the table,
    as light as it and of its tint. A ghost's lit top is lighter than any of the
    table near it; on wood or cloth a ghost in the shade is greyer than the table.
    """
    x, y, w, h = blob.box
    reach = int(GHOST_RING_PAWNS * pawn_width)
    rows = slice(max(0, y - reach), y + h + reach)
    columns = slice(max(0, x - reach), x + w + reach)
    table = masks.labels[rows, columns] == TABLE
    if table.sum() < blob.area:
        return True  # too little table round it to tell
    around = masks.lab[rows, columns][table]
    inside = masks.lab[y : y + h, x : x + w][blob.mask]
    lift = np.percentile(inside[:, 0], 95) - np.percentile(around[:, 0], 90)
    # The lit half of the table round it: shadows take on another tint (blue sky).
    lit = around[around[:, 0] >= np.median(around[:, 0])]
    tint = np.linalg.norm(np.median(inside[:, 1:], axis=0) - np.median(lit[:, 1:], axis=0))
    return bool(lift >= GHOST_LIFT or tint >= GHOST_TINT_APART)


def _without_long_parts(mask: NDArray[np.uint8], max_extent: float) -> NDArray[np.uint8]:
    """The mask without its connected parts longer (bounding box) than ``max_extent``."""
    count, parts, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    long_parts = np.flatnonzero(extent > max_extent)
    long_parts = long_parts[long_parts > 0]  # 0 is the background
    if long_parts.size == 0:
        return mask
    return np.where(np.isin(parts, long_parts), 0, mask).astype(np.uint8)


def _outlined_ghosts(
    masks: ColourMasks,
    pawns: list[PawnBlob],
    string_width: float,
    margin: int,
    typical_area: float,
) -> list[PawnBlob]:
    """Ghosts on a white, grey or cream table, found by their outline (see
    :mod:`vision.ghost_cues`).

    Candidates are the places crowded with edges or faintly lit, apart from the pawns
    found (round those are their shadows and the table they light). A ghost is one
    when it is mostly outline and either, out of shadow, has a tint of its own, or
    stands apart from every pawn found, is as big as a pawn and is not one even
    darkening of the table. (A whole ring of edges is not enough: a crisp shadow is
    ringed too, but it lies against what casts it, or is evenly dark.)
    Found at half resolution, and only round the board: within five pawns of anything
    coloured. ``typical_area`` is a coloured pawn's.
    """
    max_extent = MAX_GHOST_EXTENT_PAWNS * 2 * math.sqrt(typical_area / math.pi)
    coloured = (masks.labels > 0) & (masks.labels < LABEL_COLOURS.index(WHITE))
    box = bounding_box(coloured, int(max_extent))
    if box is None:
        return []
    # Even-sized, so that half resolution inside the box is half resolution outside.
    box = (
        slice(box[0].start - box[0].start % 2, box[0].stop),
        slice(box[1].start - box[1].start % 2, box[1].stop),
    )
    near_board = ColourMasks(labels=masks.labels[box], lab=masks.lab[box], table=masks.table[box])
    cues = ghost_cues(near_board, string_width)
    if cues is None:
        return []
    half = cues.masks.labels.shape
    found = blob_mask(masks.labels.shape, pawns)[box][: 2 * half[0] : 2, : 2 * half[1] : 2]
    near_pawn = cv2.dilate(found.astype(np.uint8), disc(0.75 * string_width)) > 0
    apart = cv2.distanceTransform((~found).astype(np.uint8), cv2.DIST_L2, 3) >= (
        APART_WIDTHS * string_width / 2
    )
    candidates = _ghost_blobs(
        cues.lit | cues.outline,
        cues.masks.labels,
        near_pawn,
        string_width / 2,
        margin // 2,
        max_extent / 2,
        ringed=True,
    )

    def standing_apart(blob: PawnBlob) -> bool:
        big_enough = 4 * blob.area >= MIN_APART_AREA_SHARE * typical_area
        return (
            big_enough
            and _share(apart, blob) == 1.0
            and not evenly_darkened(cues.masks, blob.box, blob.mask)
        )

    def tinted(blob: PawnBlob) -> bool:
        tint = tint_against_table(cues.masks, cues.not_dark, blob.box, blob.mask)
        return tint >= MIN_GHOST_TINT

    origin = (box[1].start, box[0].start)
    lightness = cues.masks.lab[..., 0]
    return [
        _doubled(_with_body(blob, lightness, typical_area / 4), near_board.labels.shape, origin)
        for blob in candidates
        if _share(near_pawn, blob) < MAX_NEAR_PAWN_SHARE
        and _share(cues.outline, blob) >= MIN_OUTLINE_SHARE
        and (tinted(blob) or standing_apart(blob))
    ]


def _with_body(blob: PawnBlob, lightness: FloatImage, pawn_area: float) -> PawnBlob:
    """The blob, with its lightest pawn's area of pixels as its body: a ghost's
    shadow, taken in with its outline, is darker than the ghost, and would draw its
    foot away. ``pawn_area`` is in the pixels of ``lightness``."""
    if blob.area <= 1.2 * pawn_area:
        return blob
    x, y, w, h = blob.box
    # Smoothed over a third of a pawn, so that the body is one patch, not the
    # lightest grains of the table in the shadow's fringe.
    size = max(3, int(math.sqrt(pawn_area) / 3) | 1)
    inside = cv2.blur(np.ascontiguousarray(lightness[y : y + h, x : x + w]), (size, size))
    cut = np.partition(inside[blob.mask], -int(pawn_area))[-int(pawn_area)]
    lightest = (blob.mask & (inside >= cut)).astype(np.uint8)
    count, parts, stats, _ = cv2.connectedComponentsWithStats(lightest, connectivity=8)
    if count < 2:
        return blob
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return replace(blob, body=parts == largest)


def _doubled(blob: PawnBlob, shape: tuple[int, ...], origin: tuple[int, int]) -> PawnBlob:
    """A ghost found by its outline at half resolution in a box of the photo of
    ``shape`` whose corner is at ``origin`` (x, y), in the photo's pixels."""
    x, y, w, h = (2 * v for v in blob.box)

    def doubled(half: BoolImage) -> BoolImage:
        return np.asarray(half.repeat(2, axis=0).repeat(2, axis=1)[: shape[0] - y, : shape[1] - x])

    mask = doubled(blob.mask)
    box = (x + origin[0], y + origin[1], mask.shape[1], mask.shape[0])
    body = None if blob.body is None else doubled(blob.body)
    return PawnBlob(
        colour=blob.colour,
        mask=mask,
        box=box,
        share=OUTLINED_GHOST_SURENESS,
        with_shadow=True,
        body=body,
    )


def _ghost_like(blob: PawnBlob, typical_area: float) -> bool:
    """Whether a white blob is shaped like a pawn and about as big as the coloured
    pawns (of ``typical_area``): a lit speck or the bright rim
    of the table's edge is no ghost."""
    return _pawn_shaped(blob) and blob.area >= MIN_GHOST_AREA_SHARE * typical_area


def _share(mask: BoolImage, blob: PawnBlob, origin: tuple[int, int] = (0, 0)) -> float:
    """The share of the blob's pixels set in ``mask`` (an image whose corner is at
    ``origin``, x, y)."""
    x, y, w, h = blob.box
    x, y = x - origin[0], y - origin[1]
    return float(mask[y : y + h, x : x + w][blob.mask].mean())


def blob_mask(
    shape: tuple[int, ...], blobs: list[PawnBlob], origin: tuple[int, int] = (0, 0)
) -> BoolImage:
    """The blobs' pixels in an image of ``shape`` whose corner is at ``origin`` (x, y)."""
    mask = np.zeros(shape[:2], bool)
    for blob in blobs:
        x, y, w, h = blob.box
        x, y = x - origin[0], y - origin[1]
        mask[y : y + h, x : x + w] |= blob.mask
    return mask


def _pawn_blobs(
    thick: BoolImage, colour: str, labels: NDArray[np.uint8], origin: tuple[int, int]
) -> list[PawnBlob]:
    """The connected parts of ``thick`` (a box of the photo whose corner is at
    ``origin``) as blobs, with boxes in the photo's pixels."""
    thick_box = bounding_box(thick, margin=0)
    if thick_box is None:
        return []
    # Labelled inside the box of the thick parts only (pawns are few and small).
    thick, labels = thick[thick_box], labels[thick_box]
    origin = (origin[0] + thick_box[1].start, origin[1] + thick_box[0].start)
    count, components, stats, _ = cv2.connectedComponentsWithStats(
        thick.astype(np.uint8), connectivity=8
    )
    index = LABEL_COLOURS.index(colour)
    blobs = []
    for k in range(1, count):
        x, y, w, h = (int(v) for v in stats[k, :4])
        mask = components[y : y + h, x : x + w] == k
        inside = labels[y : y + h, x : x + w][mask]
        share = float((inside == index).sum() / max(1, (inside > 0).sum()))
        box = (x + origin[0], y + origin[1], w, h)
        blobs.append(PawnBlob(colour=colour, mask=mask, box=box, share=share))
    return blobs
