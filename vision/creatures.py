"""Creatures stage: every pawn's kind, colour and foot point.

A pawn is tall: seen at an angle, its blob reaches up from its base, so the base is at
the blob's lower end, not its centroid. Which end is lower is read from the pawns
themselves (a photo may be turned any way): seen at an angle they are drawn out along
one direction, and they are wider at the base than at the head. Touching pawns of one
colour merge into one blob; how many pawns a blob holds is read from its area against a
single pawn's area in the same photo.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.board import Point
from engine.colours import DEMON, GHOST, WHITE
from vision.separate import PawnBlob, Separation

#: A blob is taken for several pawns from this many single-pawn areas on.
SEVERAL_PAWNS_AREA = 1.65
#: ... or from this many single-pawn widths (the median blob's) across.
SEVERAL_PAWNS_WIDTH = 1.6
#: Blobs smaller than this share of a single pawn are noise (a highlight, a scrap).
MIN_PAWN_AREA = 0.35
#: Only a ghost's lit side may be white: on a grey cloth as little as a sixth of a
#: pawn's area (of the photo's median pawn: white's own median is as small).
MIN_GHOST_AREA = 0.15
#: Blobs larger than this many single pawns are no pawns (a card, a cup).
MAX_PAWN_AREA = 4.5
#: The pawns lean (the camera looks at an angle) when single pawns are this much
#: longer than wide on average (ratio of their axes less one) ...
MIN_LEAN_ELONGATION = 0.12
#: ... and this share of that elongation votes for one end as the base.
MIN_LEAN_AGREEMENT = 0.3
#: With no clear lean, the head is up in the photo, as a phone is held.
UP = (0.0, -1.0)


@dataclass(frozen=True)
class SeenPawn:
    """One pawn as the photo shows it.

    Attributes
    ----------
    kind : {"demon", "ghost"}
    colour : str
    foot : (x, y)
        Where its base stands on the table, working pixels.
    width : float
        Its blob's width in working pixels.
    confidence : float
        0..1: how clearly the blob is one pawn of this colour.
    """

    kind: str
    colour: str
    foot: Point
    width: float
    confidence: float


#: What a :class:`Remark` doubts: a blob read as several touching pawns, or a blob
#: ignored as too large for a pawn.
TOUCHING_PAWNS = "touching pawns"
NOT_A_PAWN = "not a pawn"
#: ... or a pawn perhaps missed (:func:`vision.doubts.missed_pawn_warning`), which a
#: pawn added there later answers.
MAYBE_MISSED = "maybe missed"
#: ... or a pawn only the detector's shape showed, and not surely
#: (:func:`vision.combine.combine_pawns`), which a checker may put in question.
SHAPE_ONLY = "shape only"
#: ... or a ghost taken near a field's centre on its mean in the views alone, a faint mark
#: or a ghost the colour rules saw there (:func:`vision.combine.add_centred_ghosts`),
#: which a checker may put in question too.
FAINTLY_SEEN = "faintly seen"


@dataclass(frozen=True)
class Remark:
    """Something the reader was unsure of, for the report's warnings.

    ``text`` may name the point ``at`` (working pixels) as ``{at}``; the report gives
    it in the photo's pixels, as every other point of the report (see :meth:`in_photo`).
    ``about`` says what the remark doubts, for a later stage that reads the same spot
    again (:data:`TOUCHING_PAWNS`, :data:`NOT_A_PAWN`, :data:`MAYBE_MISSED`,
    :data:`SHAPE_ONLY`, :data:`FAINTLY_SEEN`, or ""), and ``extent`` how far
    from ``at`` the thing doubted reaches (working pixels).
    """

    text: str
    at: Point | None = None
    about: str = ""
    extent: float = 0.0

    def in_photo(self, to_photo: Callable[[Sequence[Point]], list[Point]]) -> str:
        """The text, with ``at`` mapped by ``to_photo`` and written as ``(x, y)``."""
        if self.at is None:
            return self.text
        [(x, y)] = to_photo([self.at])
        return self.text.format(at=f"({x:.0f}, {y:.0f})")


@dataclass(frozen=True)
class Pawns:
    """Every pawn seen, and the size of one pawn in this photo."""

    pawns: list[SeenPawn]
    pawn_width: float
    warnings: list[Remark]


def find_pawns(separation: Separation) -> Pawns:
    """Turn the pawn blobs into pawns with foot points.

    Parameters
    ----------
    separation : Separation

    Returns
    -------
    Pawns
    """
    blobs = separation.pawns
    if not blobs:
        return Pawns([], pawn_width=7.0 * separation.string_width, warnings=[])
    overall_area = _single_pawn_area(blobs, separation.string_width)
    sizes = _single_pawn_sizes(blobs, separation.string_width, overall_area)
    single_width = float(np.median([b.box[2] for b in blobs]))
    lean = lean_direction(blobs, overall_area)
    pawns: list[SeenPawn] = []
    warnings: list[Remark] = []
    for blob in blobs:
        single_area, single_radius = sizes[blob.colour]
        smallest = MIN_PAWN_AREA * single_area
        if blob.colour == WHITE:
            smallest = MIN_GHOST_AREA * overall_area
        if blob.area < smallest:
            continue
        if blob.area > MAX_PAWN_AREA * single_area:
            x, y = blob.box[0] + blob.box[2] / 2, blob.box[1] + blob.box[3] / 2
            warnings.append(
                Remark(
                    f"ignored a {blob.colour} object at {{at}} too large for a pawn",
                    (x, y),
                    NOT_A_PAWN,
                    max(blob.box[2], blob.box[3]) / 2,
                )
            )
            continue
        parts = [blob.body_points()]
        # Side by side, touching pawns make a wide blob; one behind another hides part
        # of it, so the blob may be wide without being large.
        wide = blob.box[2] > SEVERAL_PAWNS_WIDTH * single_width
        large = blob.area > SEVERAL_PAWNS_AREA * single_area
        if (large or wide) and not blob.with_shadow:
            count = min(3, max(2, int(round(blob.area / single_area))))
            parts = _split(blob, count, single_radius)
        confidence = min(1.0, blob.share) * (0.75 if len(parts) > 1 else 1.0)
        kind = GHOST if blob.colour == WHITE else DEMON
        for part in parts:
            foot = foot_of_blob(part, lean)
            pawns.append(SeenPawn(kind, blob.colour, foot, _width(part), confidence))
        if len(parts) > 1:
            x, y = blob.box[0] + blob.box[2] / 2, blob.box[1] + blob.box[3] / 2
            warnings.append(
                Remark(
                    f"{len(parts)} touching {blob.colour} pawns read near {{at}}",
                    (x, y),
                    TOUCHING_PAWNS,
                    max(blob.box[2], blob.box[3]) / 2,
                )
            )
    # A ghost found by its outline is measured with its shadow (a soft halo all
    # round under a lamp overhead): where enough pawns were found otherwise (a third
    # of them, two at least: one scrap must not set the size), they say how wide one is.
    unshadowed = [b for b in blobs if not b.with_shadow]
    measured = unshadowed if len(unshadowed) >= max(2, len(blobs) / 3) else blobs
    width = 2.0 * math.sqrt(_single_pawn_area(measured, separation.string_width) / math.pi)
    return Pawns(pawns=pawns, pawn_width=width, warnings=warnings)


def _single_pawn_sizes(
    blobs: list[PawnBlob], string_width: float, overall_area: float
) -> dict[str, tuple[float, float]]:
    """Area and inscribed radius of one pawn, per colour.

    Pawns of one colour show alike, and a colour may look larger than the rest (a red
    pawn's shaded side stays red where a blue one's turns black): a colour with
    enough pawns of its own is measured on them, never below the photo's median
    (``overall_area``, the area of one pawn over all colours).
    """
    radii = [_inscribed_radius(b.mask) for b in blobs]
    overall_radius = float(np.median(radii))
    sizes = {}
    for colour in {b.colour for b in blobs}:
        same_colour = [b for b in blobs if b.colour == colour]
        if len(same_colour) < 3:
            sizes[colour] = (overall_area, overall_radius)
            continue
        own_area = _single_pawn_area(same_colour, string_width)
        own_radii = [r for b, r in zip(blobs, radii, strict=True) if b.colour == colour]
        own_radius = float(np.median(own_radii))
        sizes[colour] = (
            float(np.clip(own_area, overall_area, 1.6 * overall_area)),
            max(overall_radius, own_radius),
        )
    return sizes


def _single_pawn_area(blobs: list[PawnBlob], string_width: float) -> float:
    """The area of one pawn: the median blob (most blobs are one pawn)."""
    areas = np.array([b.area for b in blobs], float)
    floor = math.pi * (2.0 * string_width) ** 2
    areas = areas[areas >= floor]
    if areas.size == 0:
        return float(math.pi * (3.3 * string_width) ** 2)
    return float(np.median(areas))


def _inscribed_radius(mask: np.ndarray) -> float:
    padded = np.pad(mask.astype(np.uint8), 1)
    return float(cv2.distanceTransform(padded, cv2.DIST_L2, 3).max())


def _split(blob: PawnBlob, count: int, single_radius: float) -> list[np.ndarray]:
    """The blob's pixels as ``count`` pawns, or as one if that explains it better.

    A large blob may be touching pawns, or one pawn with a piece of string or shadow
    stuck to it. Split by k-means on position; the split stands only if a pawn-sized
    disc fits in every part on its own (a string stuck to a pawn has no room for one).
    """
    points = blob.points().astype(np.float32)
    if len(points) < 2 * count:
        return [points]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    # k-means++ draws on OpenCV's process-wide generator: seed it, so that a photo
    # reads the same whatever was read before it in the same process (the web server).
    cv2.setRNGSeed(0)
    _, found, _ = cv2.kmeans(
        points,
        count,
        None,
        criteria,
        3,
        cv2.KMEANS_PP_CENTERS,
    )
    labels = np.asarray(found).ravel()
    parts = [points[labels == k] for k in range(count)]
    x0, y0, w, h = blob.box
    for part in parts:
        # Each part on its own: half of one pawn has no room for a whole pawn's disc.
        mask = np.zeros((h + 2, w + 2), np.uint8)
        mask[part[:, 1].astype(int) - y0 + 1, part[:, 0].astype(int) - x0 + 1] = 1
        if _inscribed_radius(mask) < 0.7 * single_radius:
            return [points]
    return parts


def _width(points: np.ndarray) -> float:
    return float(np.ptp(points[:, 0]) + 1.0)


def lean_direction(blobs: list[PawnBlob], single_area: float) -> tuple[float, float]:
    """The direction from a pawn's base to its head in the photo (a unit x, y vector).

    Seen at an angle, a pawn is drawn out away from the camera: the single pawns'
    long axes agree on a direction, and each is wider at its base than at its head.
    With too little of either (a photo from straight above, a few pawns) it is
    :data:`UP`.
    """
    axes, weights, base_votes = [], [], []
    for blob in blobs:
        if blob.colour == WHITE or not 0.6 * single_area <= blob.area <= 1.4 * single_area:
            continue
        axis, elongation, wider_end = _long_axis(blob.points())
        axes.append(axis)
        weights.append(max(elongation - 1.0, 0.0))
        base_votes.append(wider_end)
    if len(axes) < 3 or float(np.mean(weights)) < MIN_LEAN_ELONGATION:
        return UP
    # Axes are undirected: average them at double angle.
    angles = 2 * np.arctan2([a[1] for a in axes], [a[0] for a in axes])
    mean = 0.5 * math.atan2(
        float(np.dot(weights, np.sin(angles))), float(np.dot(weights, np.cos(angles)))
    )
    axis = np.array([math.cos(mean), math.sin(mean)])
    # Each blob's base end, along the common axis, weighted by how drawn out it is.
    votes = sum(
        w * math.copysign(1.0, float(np.dot(b, axis)))
        for w, b in zip(weights, base_votes, strict=True)
    )
    if abs(votes) < MIN_LEAN_AGREEMENT * sum(weights):
        return UP
    head = -axis if votes > 0 else axis
    return (float(head[0]), float(head[1]))


def _long_axis(points: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """A blob's long axis (unit vector), how much longer than wide it is, and the
    long axis pointing to its wider end."""
    offsets = points - points.mean(axis=0)
    variances, vectors = np.linalg.eigh(np.cov(offsets.T))
    axis = vectors[:, 1]
    elongation = math.sqrt(variances[1] / max(variances[0], 1e-6))
    along = offsets @ axis
    across = offsets @ np.array([-axis[1], axis[0]])
    low, high = np.percentile(along, [15, 85])
    width_low, width_high = np.ptp(across[along <= low]), np.ptp(across[along >= high])
    return axis, elongation, (-axis if width_low > width_high else axis)


def foot_of_blob(points: np.ndarray, lean: tuple[float, float] = UP) -> Point:
    """The base of a pawn: half a base width in from the blob's lower end, centred
    across it (``lean`` points from base to head).

    A pawn seen straight from above is a disc and its base is its centre; seen at an
    angle its head rises away from the base, so the base stays at the lower end.
    """
    down = -np.asarray(lean, float)
    across = np.array([down[1], -down[0]])
    along, side = points @ down, points @ across
    width = float(np.ptp(side) + 1.0)
    lowest = float(along.max())
    lower = side[along >= lowest - 0.5 * width]
    middle = float((lower.min() + lower.max()) / 2)
    foot = down * (lowest - 0.45 * width) + across * middle
    return (float(foot[0]), float(foot[1]))
