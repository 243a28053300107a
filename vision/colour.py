"""Colour stage: which pixels are table, and which belong to a red, yellow, green or
blue string or pawn, or to a white ghost.

The table covers most of the photo, so it is modelled per photo: a wide median filter
removes strings and pawns and leaves the table under its own light (wood grain, lamp
hotspots, vignetting). Each pixel is then judged *relative to that table*: a string is
what differs from the table around it, and its colour is the direction of its hue in
CIELAB. A shadow darkens the table without changing its hue, so it is not a string.
The stage also says whether the table is an even one of a string's own hue, which the
separate stage then reads by shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import ColourProfile
from engine.colours import LINE_COLOURS, WHITE
from vision.overlay import COLOURS_RGB
from vision.parallel import all_at_once, for_each_band, map_in_threads

#: Label values of :attr:`ColourMasks.labels`: 0 is the table.
LABEL_COLOURS: tuple[str, ...] = ("table", *LINE_COLOURS, WHITE)
TABLE = 0
#: A table whose lightness varies less than this (robust standard deviation of L*,
#: 0..255) is even (felt, a mat), not grained like wood.
UNIFORM_TABLE_SPREAD = 12.0
#: The colours an even table (felt, a mat) may share with a string.
EVEN_TABLE_COLOURS = ("green", "blue")
#: Rows of the photo whitened at once when measuring the distance to the table.
DISTANCE_BAND_ROWS = 256

FloatImage = NDArray[np.float32]


@dataclass(frozen=True)
class ColourMasks:
    """Per-pixel colour classes of one photo at working resolution.

    Attributes
    ----------
    labels : (H, W) uint8
        Index into :data:`LABEL_COLOURS` for every pixel (0 = table).
    lab : (H, W, 3) float32
        The photo in CIELAB (L* 0..255, a* and b* centred on 0).
    table : (H, W, 3) float32
        The modelled table under its light, in the same space.
    table_hue_colour : str or None
        The line colour whose hue an even table has (blue on a blue mat, green on
        green felt), if any: that colour's string differs from the table as a shadow
        does, darker in the same hue, and the separate stage finds it by its shape.
    of_table_hue : (H, W) bool or None
        For that colour, the pixels with its hue (whatever their lightness).
    profile : ColourProfile or None
        The profile the labels were made with (the separate stage looks again, by
        shape, for a cord too dull to be labelled).
    """

    labels: NDArray[np.uint8]
    lab: FloatImage
    table: FloatImage
    table_hue_colour: str | None = None
    of_table_hue: NDArray[np.bool_] | None = field(default=None, repr=False)
    profile: ColourProfile | None = field(default=None, repr=False)

    def labels_only(self) -> ColourMasks:
        """These masks without the photo in Lab and the table model (24 bytes a pixel,
        most of a reading's memory), which only the separate stage reads: what the
        reader keeps after it, for the debug drawing (:func:`draw_labels`)."""
        empty = np.zeros((0, 0, 3), np.float32)
        return replace(self, lab=empty, table=empty, of_table_hue=None)

    def mask(self, colour: str) -> NDArray[np.bool_]:
        """Boolean mask of the pixels of ``colour`` (a line colour or ``"white"``)."""
        if colour not in LABEL_COLOURS[1:]:
            raise ValueError(f"unknown colour {colour!r}; expected one of {LABEL_COLOURS[1:]}")
        return np.asarray(self.labels == LABEL_COLOURS.index(colour))


def to_lab(rgb: NDArray[np.uint8]) -> FloatImage:
    """RGB uint8 → CIELAB float32 with a* and b* centred on 0."""
    # The 8-bit Lab values become floats and lose their offsets in one look-up.
    return np.asarray(cv2.LUT(cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB), _LAB_OF_BYTES), np.float32)


#: For :func:`to_lab`: each 8-bit L*, a*, b* level as a float, a* and b* centred on 0.
_LAB_OF_BYTES = np.stack(
    [np.arange(256, dtype=np.float32) - offset for offset in (0.0, 128.0, 128.0)], axis=1
).reshape(256, 1, 3)


def shrink_for_table(lab: FloatImage) -> FloatImage:
    """The photo at 1/8 of its size, where the table is modelled (:func:`model_table`)."""
    height, width = lab.shape[:2]
    size = (max(width // 8, 8), max(height // 8, 8))
    return np.asarray(cv2.resize(lab, size, interpolation=cv2.INTER_AREA), np.float32)


def median_window(long_side: int, window_fraction: float = 0.06) -> int:
    """The table model's median window at 1/8 size, ``window_fraction`` of the photo's
    long side (in working pixels): far wider than a pawn."""
    return max(int(long_side / 8 * window_fraction) | 1, 3)


def model_table(
    lab: FloatImage,
    small: FloatImage,
    window: int,
    foreground: NDArray[np.bool_] | None = None,
) -> FloatImage:
    """The table without strings and pawns: a wide median of the photo.

    Computed on ``small``, the photo at 1/8 size (:func:`shrink_for_table`), with a
    median ``window`` far wider than a pawn (:func:`median_window`), and scaled back up
    to ``lab``'s size, so it costs a few milliseconds.

    Where pawns crowd, their bodies and shadows pull the median down and towards their
    colours, and the lit table between them then stands out as if it were a string
    (light wood reads as yellow). Given the ``foreground`` of a first pass (pawns,
    strings and shadows: :func:`first_foreground`), those pixels are filled in from the
    table around them before the median is taken, so the model is the table as the
    light falls on it.
    """
    height, width = lab.shape[:2]
    if foreground is not None:
        size = (small.shape[1], small.shape[0])
        share = cv2.resize(foreground.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        covered = np.asarray(cv2.dilate(share, np.ones((3, 3), np.uint8))) > 0.02
        small = _inpaint(small, covered)
    table_small = _median(small, window)
    return np.asarray(cv2.resize(table_small, (width, height), interpolation=cv2.INTER_LINEAR))


def first_foreground(
    lab: FloatImage, small: FloatImage, window: int, profile: ColourProfile
) -> NDArray[np.bool_]:
    """What stands out from a first table model: the pawns, strings and shadows that
    :func:`model_table` then fills in."""
    # The first model is needed only for its residual, computed in its place (12 bytes
    # a pixel: the largest part of this stage's peak, freed on return).
    first = model_table(lab, small, window)
    residual = difference(lab, first, out=first)
    return np.asarray(table_distance(residual) > profile.min_contrast)


def difference(a: FloatImage, b: FloatImage, out: FloatImage | None = None) -> FloatImage:
    """``a - b`` (into ``out`` where given), in bands of rows in the reader's threads."""
    if out is None:
        out = np.empty_like(a)
    for_each_band(lambda rows: np.subtract(a[rows], b[rows], out=out[rows]), *a.shape[:2])
    return out


def _inpaint(lab: FloatImage, hole: NDArray[np.bool_]) -> FloatImage:
    """Fill the ``hole`` pixels of a small Lab image from the pixels around them."""
    offsets = np.array([0.0, 128.0, 128.0], np.float32)
    as_bytes = np.clip(lab + offsets, 0, 255).astype(np.uint8)
    filled = cv2.inpaint(as_bytes, hole.astype(np.uint8), 3, cv2.INPAINT_TELEA)
    return np.asarray(filled, np.float32) - offsets


def _median(lab: FloatImage, window: int) -> FloatImage:
    """Median filter of a Lab image (8-bit per channel, as OpenCV needs for wide windows)."""
    offsets = (0.0, 128.0, 128.0)

    def median_of(index: int) -> FloatImage:
        offset = offsets[index]
        as_bytes = np.clip(lab[..., index] + offset, 0, 255).astype(np.uint8)
        return np.asarray(cv2.medianBlur(as_bytes, window), np.float32) - np.float32(offset)

    # The channels in the reader's threads: OpenCV's wide median runs on one core.
    return np.asarray(cv2.merge(map_in_threads(median_of, range(3))))


def table_distance(residual: FloatImage, sample_step: int = 7) -> FloatImage:
    """How unlike the table each pixel is, in units of the table's own variation.

    The table varies (wood grain runs from light to dark orange, cloth has a weave,
    sensor noise everywhere); a string must differ from it by more than that. The
    variation is the covariance of the residuals (photo minus modelled table) over the
    pixels that look like table, and the distance is the Mahalanobis distance under it:
    grain along its own light-dark axis is near, a red string across it is far.
    """
    sample = residual[::sample_step, ::sample_step].reshape(-1, 3).astype(np.float64)
    norms = np.linalg.norm(sample, axis=1)
    # Strings and pawns are a small part of the photo: fit on the closer 85 %.
    table_like = sample[norms <= np.percentile(norms, 85)]
    covariance = np.cov(table_like, rowvar=False) + np.eye(3) * 1.0
    # The trimmed sample underestimates the spread; scale as for a trimmed Gaussian.
    whitening = np.linalg.cholesky(np.linalg.inv(covariance * 1.6)).astype(np.float32)
    distance = np.empty(residual.shape[:2], np.float32)

    def measure(top: int) -> None:
        band = np.ascontiguousarray(residual[top : top + DISTANCE_BAND_ROWS], np.float32)
        whitened = cv2.transform(band, whitening.T)
        # Squared in place, and summed channel by channel: summing over the last axis
        # of an (H, W, 3) array is slow.
        squares = np.multiply(whitened, whitened, out=np.asarray(whitened, np.float32))
        total = distance[top : top + DISTANCE_BAND_ROWS]
        np.add(squares[..., 0], squares[..., 1], out=total)
        total += squares[..., 2]
        np.sqrt(total, out=total)

    # In bands of rows, so that the whitened copy of a full-size photo (12 bytes a
    # pixel) never exists at once, a band in each of the reader's threads. (The bands
    # stay the same: the whitening's last bit depends on where OpenCV's vector loop ends.)
    map_in_threads(measure, range(0, residual.shape[0], DISTANCE_BAND_ROWS))
    return distance


def classify_colours(
    rgb: NDArray[np.uint8], profile: ColourProfile, long_side: int | None = None
) -> ColourMasks:
    """Label every pixel as table, one of the four line colours, or white.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo at working resolution.
    profile : ColourProfile
        Hue directions and thresholds.

    Returns
    -------
    ColourMasks
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB image, got {rgb.shape} {rgb.dtype}")
    lab = to_lab(rgb)
    small = shrink_for_table(lab)
    window = median_window(long_side or max(lab.shape[:2]))
    foreground = first_foreground(lab, small, window, profile)
    table = model_table(lab, small, window, foreground=foreground)
    residual = difference(lab, table)
    distance = table_distance(residual)
    # Only a pixel unlike the table can be string or ghost, and those are a few per
    # cent of the photo: their hues are judged on them alone, not on every pixel.
    labels = np.zeros(rgb.shape[:2], np.uint8)
    candidates = np.flatnonzero(distance > 0.75 * profile.min_contrast)
    pixels = _Candidates.gather(candidates, lab, table, residual, distance, profile)
    _label_line_colours(labels, pixels, profile)
    _label_white(labels, pixels, profile)
    labels = majority_filter(labels)
    colour = colour_of_even_table(labels, table, residual, profile)
    del residual
    of_hue = None if colour is None else _of_hue(lab, profile.hues[colour], profile)
    return ColourMasks(
        labels=labels,
        lab=lab,
        table=table,
        table_hue_colour=colour,
        of_table_hue=of_hue,
        profile=profile,
    )


def colour_of_even_table(
    labels: NDArray[np.uint8], table: FloatImage, residual: FloatImage, profile: ColourProfile
) -> str | None:
    """The line colour whose hue the table has, if the table is even (felt, a mat).

    Wood is left out although light wood has nearly yellow's hue and dark wood nearly
    red's: its grain is dark lines of its own hue, which the separate stage would take
    for string. Its grain does not always show (a smooth plank, a photo at a distance),
    so tables of those hues are taken for wood or cloth: felt and mats are green or blue.
    """
    table_a, table_b = table_tint(table)
    table_chroma = math.hypot(table_a, table_b)
    if table_chroma < profile.min_chroma:
        return None
    lightness = residual[::4, ::4, 0][labels[::4, ::4] == TABLE]
    if lightness.size == 0 or lightness_spread(lightness) > UNIFORM_TABLE_SPREAD:
        return None
    cosines = {
        colour: (a * table_a + b * table_b) / (math.hypot(a, b) * table_chroma)
        for colour, (a, b) in profile.hues.items()
    }
    colour = max(cosines, key=lambda c: cosines[c])
    if colour not in EVEN_TABLE_COLOURS:
        return None
    return colour if cosines[colour] >= _hue_cos_limit(profile) else None


def table_tint(table: FloatImage) -> tuple[float, float]:
    """The table's median a*, b* (every 8th row and column is plenty for medians)."""
    sample = table[::8, ::8]
    return float(np.median(sample[..., 1])), float(np.median(sample[..., 2]))


def lightness_spread(residual_lightness: NDArray[np.float32]) -> float:
    """Robust standard deviation (scaled median absolute value) of L* residuals."""
    return float(np.median(np.abs(residual_lightness))) * 1.4826


def _of_hue(lab: FloatImage, hue: tuple[float, float], profile: ColourProfile) -> NDArray[np.bool_]:
    """The pixels whose hue is within the profile's angle of ``hue``."""
    a, b = lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    strong = chroma > 0.5 * profile.min_chroma
    # cos(angle) > limit, multiplied out (no division, and the images are computed in
    # place: this runs on full-size photos).
    along = a * np.float32(hue[0])
    along += b * np.float32(hue[1])
    chroma *= np.float32(_hue_cos_limit(profile) * math.hypot(*hue))
    return np.asarray((along > chroma) & strong)


def of_dull_hue(masks: ColourMasks, colour: str) -> NDArray[np.bool_]:
    """The pixels with the hue of ``colour`` at half the chroma a string must have, and
    turned away from the table's hue (a shadow keeps the table's hue, only duller).

    A dark navy cord on a beige table has so little chroma left that it is not
    labelled; the separate stage looks for it as thin dark lines of this hue.
    """
    if masks.profile is None:
        raise ValueError("the masks carry no colour profile")
    lab, table = masks.lab, masks.table
    away = lab[..., 1] * table[..., 1] + lab[..., 2] * table[..., 2] < 0
    return _of_hue(lab, masks.profile.hues[colour], masks.profile) & away


def _hue_cosine(
    a: FloatImage, b: FloatImage, chroma: FloatImage, hue: tuple[float, float]
) -> FloatImage:
    """Cosine of the angle between each pixel's (a*, b*) and the direction ``hue``."""
    return np.asarray(
        (a * hue[0] + b * hue[1]) / (math.hypot(*hue) * np.maximum(chroma, 1e-3)), np.float32
    )


def _hue_cos_limit(profile: ColourProfile) -> float:
    """The cosine of the widest angle a pixel's hue may be from its colour's."""
    return math.cos(math.radians(profile.max_hue_angle_deg))


@dataclass(frozen=True)
class _Candidates:
    """The pixels that stand out at least faintly, as flat indices and their values."""

    index: NDArray[np.intp]
    a: FloatImage  # the pixel's a*, b* and chroma
    b: FloatImage
    chroma: FloatImage
    table_chroma: FloatImage
    lightness_gain: FloatImage  # L* of the pixel minus L* of the table under it
    table_lightness: FloatImage
    stands_out: NDArray[np.bool_]  # clearly unlike the table
    faint: NDArray[np.bool_]  # unlike the table, in colour, and no shadow

    @classmethod
    def gather(
        cls,
        index: NDArray[np.intp],
        lab: FloatImage,
        table: FloatImage,
        residual: FloatImage,
        distance: FloatImage,
        profile: ColourProfile,
    ) -> _Candidates:
        # The four look-ups in the reader's threads (each is NumPy's, on one core).
        pixel, under, gain, far = all_at_once(
            [
                lambda: lab.reshape(-1, 3)[index],
                lambda: table.reshape(-1, 3)[index],
                lambda: residual.reshape(-1, 3)[index, 0],
                lambda: distance.ravel()[index],
            ],
            index.size,
        )
        a, b = pixel[:, 1].copy(), pixel[:, 2].copy()
        chroma = np.hypot(a, b)
        table_chroma = np.hypot(under[:, 1], under[:, 2])
        # A shadow darkens the table and dulls its hue; it is no string even where it
        # stands out.
        hue_cos_to_table = (a * under[:, 1] + b * under[:, 2]) / np.maximum(
            chroma * table_chroma, 1e-3
        )
        shadow = (gain < 0) & (chroma < 1.15 * table_chroma) & (hue_cos_to_table > 0.85)
        return cls(
            index=index,
            a=a,
            b=b,
            chroma=chroma,
            table_chroma=table_chroma,
            lightness_gain=gain,
            table_lightness=under[:, 0].copy(),
            stands_out=far > profile.min_contrast,
            faint=~shadow & (chroma > profile.min_chroma),
        )


def _label_line_colours(
    labels: NDArray[np.uint8], pixels: _Candidates, profile: ColourProfile
) -> None:
    """Give each candidate the line colour nearest its hue, if near enough."""
    cos_limit = _hue_cos_limit(profile)
    best_cos = np.full(pixels.index.shape, -2.0, np.float32)
    for index, colour in enumerate(LINE_COLOURS, start=1):
        cos = _hue_cosine(pixels.a, pixels.b, pixels.chroma, profile.hues[colour])
        # Hysteresis: a faint stretch of string counts if it joins a clear one.
        weak = pixels.faint & (cos > cos_limit)
        take = _hysteresis(labels.shape, pixels.index, weak, pixels.stands_out)
        take &= cos > best_cos
        labels.ravel()[pixels.index[take]] = index
        best_cos = np.where(take, cos, best_cos).astype(np.float32)


def _label_white(labels: NDArray[np.uint8], pixels: _Candidates, profile: ColourProfile) -> None:
    """Mark the ghosts' pixels among the candidates not taken by a line colour."""
    # A ghost's lit side is lighter than the table; its shaded side is not, but on a
    # table with a hue of its own (beige cloth, wood) it is clearly greyer than the
    # table, where a shadow keeps the table's hue.
    greyer = (pixels.chroma < 0.5 * pixels.table_chroma) & (
        pixels.lightness_gain > -0.25 * pixels.table_lightness
    )
    white = (
        pixels.stands_out
        & ((pixels.lightness_gain > profile.white_min_lightness_gain) | greyer)
        & (pixels.chroma < profile.white_max_chroma)
        & (labels.ravel()[pixels.index] == TABLE)
    )
    labels.ravel()[pixels.index[white]] = LABEL_COLOURS.index(WHITE)


def _hysteresis(
    shape: tuple[int, ...],
    index: NDArray[np.intp],
    weak: NDArray[np.bool_],
    strong: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """Which of the pixels ``index`` (flat) lie in a connected part of ``weak`` that
    contains a pixel of ``strong``; ``weak`` and ``strong`` are given per pixel."""
    taken = np.zeros(index.shape, bool)
    weak_index = index[weak]
    if weak_index.size == 0:
        return taken
    # Label the connected parts inside the weak pixels' bounding box only.
    ys, xs = np.divmod(weak_index, shape[1])
    top, left = int(ys.min()), int(xs.min())
    box = np.zeros((int(ys.max()) - top + 1, int(xs.max()) - left + 1), np.uint8)
    box[ys - top, xs - left] = 1
    count, components = cv2.connectedComponents(box, connectivity=8)
    part = components[ys - top, xs - left]
    keep = np.zeros(count, bool)
    keep[part[strong[weak]]] = True
    taken[weak] = keep[part]
    return taken


def majority_filter(labels: NDArray[np.uint8], size: int = 5) -> NDArray[np.uint8]:
    """Give every non-table pixel the most common label around it.

    Where a string meets the table its edge pixels mix both colours: the dark green
    string on orange wood has an olive, "yellow" fringe one pixel wide. The fringe is
    outvoted by the string beside it, while a string itself (several pixels wide)
    keeps its label.
    """
    if not 1 <= size <= 255:
        raise ValueError(f"window size must be 1 to 255 pixels, got {size}")
    result = labels.copy()
    box = bounding_box(labels > 0, margin=size)
    if box is None:
        return result
    # Only non-table pixels change, so only their bounding box is filtered (with a
    # margin wider than the window, so that the box's edge is never reached).
    crop = np.ascontiguousarray(labels[box])  # flat indices into it below
    changing = np.flatnonzero(crop)
    votes = np.empty((len(LABEL_COLOURS), changing.size), np.uint16)

    def count_votes(k: int) -> None:
        votes[k] = _votes(crop == k, size).ravel()[changing]

    map_in_threads(count_votes, range(1, len(LABEL_COLOURS)), crop.size)
    # Every window holds size² labels (OpenCV reflects the image at its edge), so the
    # table has the votes the colours leave.
    votes[0] = size * size - votes[1:].sum(axis=0, dtype=np.uint16)
    # The first of equal counts wins: ties go to the lower label, the table first.
    crop.ravel()[changing] = np.argmax(votes, axis=0)
    result[box] = crop
    return result


def _votes(mask: NDArray[np.bool_], size: int) -> NDArray[np.uint16]:
    """How many pixels of ``mask`` each ``size`` × ``size`` window holds (exact counts)."""
    votes = cv2.boxFilter(mask.view(np.uint8), cv2.CV_16U, (size, size), normalize=False)
    return np.asarray(votes, np.uint16)


def bounding_box(mask: NDArray[np.bool_], margin: int) -> tuple[slice, slice] | None:
    """The slices of the bounding box of ``mask``'s pixels grown by ``margin``, clipped
    to the image; None if the mask is empty.

    Stages after this one look at the strings and pawns only, and these often fill a
    part of the photo: they work on this box and leave the rest alone.
    """
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    columns = np.flatnonzero(mask[rows[0] : rows[-1] + 1].any(axis=0))
    height, width = mask.shape
    # The box starts on even coordinates: OpenCV labels connected parts by 2×2 blocks,
    # and numbers them in the same order as on the whole image only if the blocks align.
    top = max(0, int(rows[0]) - margin) & ~1
    left = max(0, int(columns[0]) - margin) & ~1
    return (
        slice(top, min(height, int(rows[-1]) + 1 + margin)),
        slice(left, min(width, int(columns[-1]) + 1 + margin)),
    )


#: Display colours (RGB) of the labels, for debug drawings: the overlay's, table black.
LABEL_RGB: dict[str, tuple[int, int, int]] = {"table": (0, 0, 0), **COLOURS_RGB}


def draw_labels(masks: ColourMasks) -> NDArray[np.uint8]:
    """The label image in display colours (table black)."""
    palette = np.array([LABEL_RGB[name] for name in LABEL_COLOURS], np.uint8)
    return np.asarray(palette[masks.labels])
