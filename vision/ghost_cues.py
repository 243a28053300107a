"""Cues to ghosts on a table as light as they are (part of the separate stage).

On wood or a coloured mat a ghost is far lighter and greyer than the table, and the
colour stage labels it white. On a white, grey or cream table it is hardly lighter
than the table, and often darker where its own body shades it: the pixels say little.
What shows is its shape and its colour:

- its outline and the rings of its shape (head, body, the shading between), edges
  packed closer than anywhere on the plain table;
- its lit top, a little lighter than the table;
- its own tint: white or ivory against a tinted table, where a lit patch of the
  table, or a shadow on it, keeps the table's tint.

The edges are found at working resolution, the smoother cues at half of it, and all
are returned at half resolution: a pawn is still tens of pixels across, and finding
blobs costs a quarter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.colours import WHITE
from vision.colour import (
    LABEL_COLOURS,
    TABLE,
    UNIFORM_TABLE_SPREAD,
    ColourMasks,
    lightness_spread,
    table_tint,
)
from vision.parallel import both

BoolImage = NDArray[np.bool_]
FloatImage = NDArray[np.float32]

#: Greyer than this (a*b* chroma) is white or grey (the default profile's
#: ``white_max_chroma``; the separate stage is not given the profile).
WHITE_MAX_CHROMA = 22.0
#: A pale cloth tinted by warm light (cream under a lamp): an even, yellowish table
#: up to this chroma and lighter than this L* (0..255).
PALE_MAX_CHROMA = 35.0
PALE_MIN_LIGHTNESS = 150.0
#: Edges: lightness smoothed over this many string widths changes this many times
#: faster than is typical of the table, on at least this share of the pixels around.
EDGE_SMOOTHING_WIDTHS = 0.3
EDGE_NOISE_TIMES = 4.0
EDGE_CROWDING = 0.5
#: A lit top: lighter than the table (both smoothed over so many string widths) by so
#: many times the smoothed table's spread, and by at least this L* (0..255).
LIT_SCALES = ((0.5, 5.0), (1.0, 4.0))
LIT_MIN_GAIN = 4.0
#: In shadow: darker than the table (smoothed over half a string width) by more than
#: this many times the smoothed table's spread.
SHADOW_SPREADS = 2.0
#: Below this many pixels out of shadow, a blob's tint is not measured.
MIN_TINT_PIXELS = 6
#: A crisp shadow darkens the table evenly: half its pixels are within this share of
#: the depth of its darkest tenth.
EVEN_DARKENING_SHARE = 0.2


@dataclass(frozen=True)
class GhostCues:
    """Where a ghost on a light, grey table may show, at half working resolution.

    Attributes
    ----------
    masks : ColourMasks
        The colour masks at half resolution (labels, Lab photo and table).
    outline : (h, w) bool
        Grey or white places crowded with edges, away from anything coloured.
    lit : (h, w) bool
        Grey or white table pixels a little lighter than the table around them.
    not_dark : (h, w) bool
        Pixels not in shadow (not clearly darker than the table).
    """

    masks: ColourMasks
    outline: BoolImage
    lit: BoolImage
    not_dark: BoolImage


def ghost_cues(masks: ColourMasks, string_width: float) -> GhostCues | None:
    """The cues to ghosts, at half resolution, or None when the table is not grey,
    white or an even pale cloth.

    Parameters
    ----------
    masks : ColourMasks
    string_width : float
        Typical string width in working pixels.

    Returns
    -------
    GhostCues or None
        None on a table with a colour of its own (wood, felt, a mat; but a cream cloth
        tinted by a warm lamp has the tint of wood, not its grain), where the colour
        stage finds the ghosts, and on a photo that is all strings and pawns.
    """
    if string_width <= 0:
        raise ValueError(f"string_width must be positive, got {string_width}")
    if not (masks.labels[::8, ::8] == TABLE).any():
        return None
    if math.hypot(*table_tint(masks.table)) >= WHITE_MAX_CHROMA and not _even_and_pale(masks):
        return None
    height, width = masks.labels.shape
    half = (max(width // 2, 1), max(height // 2, 1))
    labels = np.ascontiguousarray(masks.labels[: 2 * half[1] : 2, : 2 * half[0] : 2])

    def lit_and_shade() -> tuple[ColourMasks, BoolImage, BoolImage, BoolImage]:
        lab = np.asarray(cv2.resize(masks.lab, half, interpolation=cv2.INTER_AREA), np.float32)
        table = np.asarray(
            cv2.resize(masks.table, half, interpolation=cv2.INTER_AREA), np.float32
        )
        on_table = labels == TABLE
        grey = np.hypot(lab[..., 1], lab[..., 2]) < WHITE_MAX_CHROMA
        gain = lab[..., 0] - table[..., 0]
        lit = _faintly_lit(gain, on_table, string_width / 2) & grey & on_table
        smooth = np.asarray(cv2.GaussianBlur(gain, (0, 0), 0.25 * string_width), np.float32)
        not_dark = smooth > -SHADOW_SPREADS * _spread(smooth, on_table)
        return ColourMasks(labels=labels, lab=lab, table=table), grey, lit, np.asarray(not_dark)

    def crowded_edges() -> BoolImage:
        # Edges need every pixel: found at full resolution, counted at half.
        edges = _edges(masks.lab[..., 0], masks.labels, string_width)
        share = np.asarray(cv2.resize(edges, half, interpolation=cv2.INTER_AREA), np.float32)
        return _crowded(share, labels, string_width / 2)

    # The two share nothing until the end: each on a core of its own.
    (half_masks, grey, lit, not_dark), outline = both(
        lit_and_shade, crowded_edges, masks.labels.size
    )
    return GhostCues(masks=half_masks, outline=outline & grey, lit=lit, not_dark=not_dark)


def tint_against_table(
    masks: ColourMasks, not_dark: BoolImage, box: tuple[int, int, int, int], mask: BoolImage
) -> float:
    """How far the a*b* of a blob's pixels out of shadow is from the table's.

    Parameters
    ----------
    masks : ColourMasks
    not_dark : (H, W) bool
        Pixels not in shadow (:attr:`GhostCues.not_dark`), the shape of ``masks``.
    box : (x, y, w, h)
        The blob's bounding box in the pixels of ``masks``.
    mask : (h, w) bool
        The blob's pixels inside ``box``.

    Returns
    -------
    float
        0 when too few of its pixels are out of shadow to say.
    """
    x, y, w, h = box
    pixels = not_dark[y : y + h, x : x + w] & mask
    if pixels.sum() < MIN_TINT_PIXELS:
        return 0.0
    # Medians first: each pixel's a*b* is noisy, and the mean distance of noisy
    # pixels from the table would be far from zero for a patch of the table itself.
    colour = np.median(masks.lab[y : y + h, x : x + w, 1:][pixels], axis=0)
    table = np.median(masks.table[y : y + h, x : x + w, 1:][pixels], axis=0)
    return float(np.hypot(*(colour - table)))


def evenly_darkened(masks: ColourMasks, box: tuple[int, int, int, int], mask: BoolImage) -> bool:
    """Whether a blob is the table evenly darkened, as in a crisp shadow.

    A ghost seen with its own shadow is lit unevenly: its top, its shaded side and the
    shadow beside it differ by tens of L*. A shadow cast on the table by something out
    of the photo darkens the table by one factor all over.

    Parameters
    ----------
    masks : ColourMasks
    box : (x, y, w, h)
        The blob's bounding box in the pixels of ``masks``.
    mask : (h, w) bool
        The blob's pixels inside ``box``.
    """
    x, y, w, h = box
    gain = masks.lab[y : y + h, x : x + w, 0][mask] - masks.table[y : y + h, x : x + w, 0][mask]
    if gain.size == 0:
        return False
    darkest, middle = np.percentile(gain, [10, 50])
    return bool(middle - darkest < EVEN_DARKENING_SHARE * max(-darkest, 0.0))


def _even_and_pale(masks: ColourMasks) -> bool:
    """Whether the table is an even cloth, pale and warm (cream under a warm lamp).

    Its ghosts are greyer and darker than it, as on a white table; wood is grained,
    and felt and mats (green, blue) are not warm.
    """
    on_table = masks.labels[::4, ::4] == TABLE
    residual = masks.lab[::4, ::4, 0][on_table] - masks.table[::4, ::4, 0][on_table]
    tint_a, tint_b = table_tint(masks.table)
    return (
        lightness_spread(residual) < UNIFORM_TABLE_SPREAD
        and math.hypot(tint_a, tint_b) < PALE_MAX_CHROMA
        and tint_b > abs(tint_a)  # yellowish: within 45 degrees of b*
        and float(np.median(masks.table[::8, ::8, 0])) > PALE_MIN_LIGHTNESS
    )


def _spread(values: FloatImage, on_table: BoolImage) -> float:
    """Robust standard deviation of ``values`` over the table (every 4th pixel)."""
    low, high = np.percentile(values[::4, ::4][on_table[::4, ::4]], [25, 75])
    return float(high - low) / 1.349


def _edges(lightness: FloatImage, labels: NDArray[np.uint8], string_width: float) -> FloatImage:
    """1 where the lightness changes several times faster than is typical of the table
    (its grain and noise), else 0."""
    smooth = cv2.GaussianBlur(lightness, (0, 0), EDGE_SMOOTHING_WIDTHS * string_width)
    gradient = cv2.magnitude(
        cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
    )
    typical = float(np.median(gradient[::4, ::4][labels[::4, ::4] == TABLE]))
    return np.asarray(gradient > EDGE_NOISE_TIMES * typical, np.float32)


def _crowded(edges: FloatImage, labels: NDArray[np.uint8], string_width: float) -> BoolImage:
    """Places crowded with ``edges``, away from strings and coloured pawns.

    A shadow has edges only at its border, the plain table only its grain and noise.
    """
    coloured = (labels > TABLE) & (labels < LABEL_COLOURS.index(WHITE))
    reach = int(round(2 * string_width)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
    edges = np.where(cv2.dilate(coloured.astype(np.uint8), disc) > 0, 0.0, edges)
    window = int(2 * string_width) | 1
    crowding = cv2.blur(edges.astype(np.float32), (window, window))
    return np.asarray(crowding > EDGE_CROWDING)


def _faintly_lit(gain: FloatImage, on_table: BoolImage, string_width: float) -> BoolImage:
    """Pixels a little lighter than the table: averaged over part of a string width the
    table's grain and noise even out and a lit top stands clear of them (a small
    highlight at the finer scale, a dim top in a noisy photo at the coarser one)."""
    lit = np.zeros(gain.shape, bool)
    for widths, spreads in LIT_SCALES:
        smooth = np.asarray(cv2.GaussianBlur(gain, (0, 0), widths * string_width), np.float32)
        lit |= smooth > max(LIT_MIN_GAIN, spreads * _spread(smooth, on_table))
    return lit
