"""Detect stage: where pawns and knots stand, by a small learned detector.

Colour rules find a pawn by how unlike the table its pixels are; a pawn of nearly the
table's colour (a yellow demon on light wood, a ghost on a white table, a green demon on
green felt) shows only a crescent of such pixels, or none. A person still sees it at
once, by its shape and shading. The detector (:mod:`training.detector_model`, trained
on generated photos with their exact truth by :mod:`training.train_detector`) looks at
the photo scaled so that a pawn is :data:`INPUT_ZOOM` times its training's ``pawn_px``
pixels wide (21 px; it was trained at 16) and marks each pawn's foot
and each tie knot as a peak in a heat map of its colour. It is an ONNX file in
``calibration/`` (``pawnnet.onnx`` with ``pawnnet.json``) run by ONNX Runtime, so
reading a photo needs no deep-learning framework.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from engine.colours import DEMON, GHOST, WHITE
from vision.networks import (
    COLOUR_OF_LEVEL,
    RELATIVE_OF_PAIR,
    Network,
    ScaledPart,
    Strips,
    load_network,
    run_on_part,
)
from vision.parallel import for_each_band, map_in_threads
from vision.parts import window_round
from vision.pawn_size import SizerModel, width_ratios

MODEL_PATH = Path(__file__).resolve().parents[1] / "calibration" / "pawnnet.onnx"
#: What the heat maps mark, in the network's output order (then the foot offsets).
OBJECTS = ("red", "yellow", "green", "blue", "white", "knot")
KNOT = "knot"
#: The table around a pixel is the median over this many pawn widths.
BACKGROUND_PAWNS = 4.0
#: Peaks below this probability are not reported at all.
MIN_SCORE = 0.1
#: Two marks nearer than this (in pawn widths) are one pawn (touching pawns' feet are
#: about one pawn width apart).
SAME_PAWN = 0.5
#: A photo the detector marks mostly faintly (at least as many pawns marked from
#: FAINT_MARK to SURE_MARK as above) may be one whose pawns the colour rules took for
#: larger than they are (pawns seen together with their shadows, a cup among them;
#: twice the size on two far-camera photos of 630 generated): it is looked at again
#: for pawns SMALLER_PAWNS as wide, and that look is kept when it marks at least
#: RESCALE_GAIN times as many pawns surely. (At the right size, looking for pawns 0.65
#: as wide marks about as many; half as wide would start marking parts of pawns.)
FAINT_MARK = 0.1
SURE_MARK = 0.4
SMALLER_PAWNS = 0.65
RESCALE_GAIN = 1.5
#: A kept smaller look that still marks mostly faintly is followed by another, up to
#: this many in all: where the colour rules find no pawn at all (thin dark cords on wood
#: of their hue, whose pawns' lit sides set the string width), the width is a guess
#: from the strings, two to three times the pawns' (160127: 0 sure and 9 faint marks,
#: then 10 and 17 at 0.65, 27 and 1 at 0.42, with 28 pawns on the table).
#: A smaller look is not kept where the sizer (see MOST_MEASURED) measures the pawns at
#: its surest marks more than RESIZE_BEYOND times as wide as it looked for: what it
#: marked surely were parts of pawns, and knots taken for pawns, while the first look's
#: width was about right (420031, an early board of six pawns on light wood: marked
#: faintly at the colour rules' width, 0.89 of the truth's; at 0.65 of it the knots were
#: marked as demons from 0.42, and the sizer measured 1.76 times the width looked for;
#: the look at that width, the truth's, marked fewer pawns surely than the knots and
#: was not kept). Where the first width was a guess two to three times the pawns'
#: (160127), the pawns are narrower than the smaller look's width, not wider.
SMALLER_LOOKS = 2
#: The longest side the network is given (pixels), whatever the pawn width says.
MAX_INPUT_SIDE = 2400
#: The network is given its photos this much larger than the pawn width it was trained
#: at (``pawn_px``, 16 px, varied by up to 1.35 either way in training). At 16 px a
#: knot's lump is three pixels and a thin cord one: a third larger, the network marks
#: knots and cords that it misses at 16 px (hard generated photos: knots marked from
#: 0.2 540 -> 551 of 560), and the loops traced on its cord maps cross where the cords
#: do. Larger still (1.5) it marks more parts of pawns as pawns.
INPUT_ZOOM = 4 / 3
#: Input rows given beyond a strip on either side where the network looks at a large
#: input in strips (:class:`vision.networks.Strips`). Each output row of the network
#: (:mod:`training.detector_model`: three stride-2 levels, dilations 2 and 4 at the
#: coarsest, nearest-neighbour up-sampling) sees 139 input rows, up to 75 above and 69
#: below its own; at a cut on a multiple of 8 a strip needs 69 rows above and 62 below
#: (measured: with 64 the output rows just below each cut differed, with 72 none). 80
#: is the next multiple of the side_multiple with room to spare.
#: tests/test_vision_networks.py checks the shipped network's output bit for bit: a
#: deeper network trained in its place fails it until this is raised.
STRIP_MARGIN = 80
#: The place round a crossing is looked at again closer (:func:`cords_near`): given to
#: the network CLOSER_LOOK times larger than the first look (a pawn about 43 px wide, a
#: cord about 5), its cord maps mark a cord of the table's hue in its own band, where
#: the first look's take in its shadow beside it too, and so lie up to two string
#: widths aside on green felt and the blue mat. Its pawns are far larger than any the
#: network learned, and it marks their rims as cords, and the edges of hard shadows:
#: only its cord maps are used, and the settle stage fits each cord on the look whose
#: map it fits more tightly (vision.crossings). Chosen on 121 photos of the fourteenth
#: to twenty-second sets, the 51 with a crossing not found and 70 other hard and normal
#: ones (forty-ninth session), the closer maps used alone: 37 crossings read 1.5-5.3
#: string widths aside came within it, 3 went out (1.5 times larger: 27 and 4; 2.5
#: times: 36 and 4); but on the dev photos (another renderer) 263 -> 260 were found,
#: dev_0014's blue cord on the blue mat lost at two crossings. Fitted on the tighter
#: map: 33 and 2, dev photos 263 -> 261.
CLOSER_LOOK = 2.0
#: A faint mark is looked at again (:func:`look_again`) in eight views of the place
#: round it, a half-width of CONFIRM_CROP pawns, turned and mirrored every way.
CONFIRM_CROP = 6.0
#: A pawn's foot by the mean of the eight views (:func:`foot_in_views`) needs this many
#: views that mark it, half of them: fewer, and one stray view weighs too much. Over 446
#: demons of tilted generated photos (forty-seventh session) the mean foot was a median
#: 0.040 pawn widths from the truth's, the one look's 0.050.
FOOT_VIEWS_SEEN = 4
#: Two marks of one kind and colour from SAME_PAWN to TWICE_MARKED_WITHIN pawn widths
#: apart, each from TWICE_MARKED_FROM (every mark reported), may be one pawn marked twice
#: (:func:`marked_once`): they are looked at again for pawns WIDER_LOOK times as wide,
#: in the QUARTER_TURNS of the place, counting there the marks from MARKED_AT. Over the
#: dev photos and three generated sets (648), of 217 such pairs 206 stood at one pawn of
#: the truth (its base and its head, or a faint mark beside it); the wider look marked
#: one pawn in all four turns at 176 of them, and at 2 of the 11 pairs nearest two
#: different pawns (faint marks between them: both boards read the same either way).
#: Two touching pawns stand about a pawn width apart; the upper bound is
#: vision.combine.BESIDE_OWN_SHARE's.
TWICE_MARKED_FROM = MIN_SCORE
TWICE_MARKED_WITHIN = 0.8
#: A fainter mark, under FAINT_TWIN_BELOW, with no stronger mark of its kind and
#: colour that near, is looked at the same way up to FAINT_TWIN_WITHIN widths from one:
#: a tall pawn seen steeply, its head far from its base, is marked faintly at the head
#: 0.8-1.0 widths away (1100197, a cone ghost at 31 degrees, read twice; 920185's
#: ghost). Over ten generated sets (2000 photos, seventy-fourth session), of the 198
#: pairs 0.8-1.0 widths apart that the wider look took for one pawn, 195 stood at one
#: pawn of the truth, the second mark of 194 under 0.4; of the 3 at two pawns, the
#: second was marked 0.52 at one (960529), under 0.2 at two. A second pawn touching the
#: first is most often marked surely: of the 239 pairs so far apart at two pawns, 188
#: have both marks from 0.4.
FAINT_TWIN_BELOW = 0.4
FAINT_TWIN_WITHIN = 1.0
WIDER_LOOK = 1.25
MARKED_AT = 0.2
QUARTER_TURNS = (0, 5, 3, 6)
#: The sizer (:mod:`vision.pawn_size`) measures the pawns at up to MOST_MEASURED of the
#: surest marks (one per pawn), each from MEASURED_FROM, where there are at least
#: FEWEST_MEASURED; where their median width is less than 1 / RESIZE_BEYOND times the
#: width looked for, or more than WIDEN_BEYOND times it, the photo is looked at again
#: for pawns that wide, and that look is kept when it marks at least as many pawns from
#: SURE_MARK. Only a width read far too wide is mended so: the sizer learned the
#: generator's pawns and measures another renderer's (the dev photos) 0.80-0.96 times
#: the truth's width, against 0.94-1.12 for 90 % of generated photos (the seventeenth
#: set); given its width on every photo the dev photos read 13 / 18, not 16. The dev
#: photos' least ratio of its width to the one looked for was 0.75; the widths mended on
#: the seventeenth set were 1.8-2.7 times the truth's (RESIZE_BEYOND was the bar both
#: ways until the eighty-seventh session).
#: A width read too narrow is mended sooner, from WIDEN_BEYOND: the sizer measures no
#: photo's pawns much wider than they are (on 583 looks of generated photos at a width
#: within 5 % of the truth's, at most 1.10 times it, 1.04 at the 99th percentile; the
#: dev photos' pawns it measures narrow, at most 1.02 times the width looked for), and
#: where it measured 1.15-1.40 times the width looked for (13 looks on 10 of 800
#: generated photos, 0.71-0.90 of the truth's) it measured 0.90-1.04 of the truth's
#: (1490148: looked for at 0.71 of it, a red demon marked twice, a board lost).
MOST_MEASURED = 12
MEASURED_FROM = 0.3
FEWEST_MEASURED = 3
RESIZE_BEYOND = 1.4
WIDEN_BEYOND = 1.15


@dataclass(frozen=True)
class Detection:
    """One object the detector marked.

    Attributes
    ----------
    kind : {"demon", "ghost", "knot"}
    colour : str
        A line colour, or "white" for a ghost; for a knot, "" (its loop says).
    xy : (x, y)
        The pawn's foot, or the knot's centre, in the pixels of the image given.
    score : float
        The heat map's peak (0..1), or its mean over ``views`` views of the place.
    views : int
        How many views the score is the mean of: 1, or the eight turns and mirrors of
        :func:`look_again`.
    """

    kind: str
    colour: str
    xy: Point
    score: float
    views: int = 1


@dataclass(frozen=True)
class Detections:
    """Everything the detector marked in one photo.

    Attributes
    ----------
    found : list of Detection
        Pawns and knots, strongest first.
    pawn_width : float
        The width of a pawn it looked for, in the image's pixels.
    cords : dict of colour to (H, W) uint8
        For a model that marks cords, how sure it is (0..255) that each pixel of the
        image shows the cord of that colour; empty otherwise.
    """

    found: list[Detection]
    pawn_width: float
    cords: dict[str, NDArray[np.uint8]] = field(default_factory=dict, repr=False)

    def pawns(self, min_score: float) -> list[Detection]:
        return [d for d in self.found if d.kind != KNOT and d.score >= min_score]

    def knots(self, min_score: float) -> list[Detection]:
        return [d for d in self.found if d.kind == KNOT and d.score >= min_score]

    def with_knots(self, more: list[Detection], reach: float) -> Detections:
        """These marks and the knot marks ``more`` (another look's): where two knot
        marks lie within ``reach`` of each other, only the stronger is kept."""
        found = list(self.found)
        for mark in sorted(more, key=lambda d: -d.score):
            near = [k for k in found if k.kind == KNOT and math.dist(k.xy, mark.xy) < reach]
            if all(k.score < mark.score for k in near):
                found = [k for k in found if k not in near] + [mark]
        return replace(self, found=sorted(found, key=lambda d: -d.score))


@dataclass(frozen=True)
class CordsNear:
    """The cord maps of a part of a photo (:func:`cords_near`).

    Attributes
    ----------
    maps : dict of colour to (h, w) uint8
        How sure the network is (0..255) that each pixel of the part shows the cord of
        that colour; empty where the part is empty or the model marks no cords.
    origin : (x, y) of int
        Where the part starts in the photo.
    """

    maps: dict[str, NDArray[np.uint8]]
    origin: tuple[int, int]


@dataclass(frozen=True)
class DetectorModel:
    """A loaded detector: where its network is, and its settings."""

    path: Path
    pawn_px: float
    stride: int
    side_multiple: int
    cords: tuple[str, ...] = ()

    def network(self) -> Network:
        """The network, shared by the process's threads."""
        return load_network(self.path)

    def strips(self) -> Strips:
        """How a large input may be given to the network in strips."""
        return Strips(STRIP_MARGIN, self.stride, self.side_multiple)


@lru_cache(maxsize=4)
def load_detector(path: Path = MODEL_PATH) -> DetectorModel:
    """Load the detector at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When the model marks other objects than this reader knows.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no pawn detector at {path} (make detector trains one)")
    meta = json.loads(path.with_suffix(".json").read_text())
    if tuple(meta["objects"]) != OBJECTS:
        raise ValueError(f"{path.name} marks {meta['objects']}, this reader expects {OBJECTS}")
    return DetectorModel(
        path=path,
        pawn_px=float(meta["pawn_px"]),
        stride=int(meta["stride"]),
        side_multiple=int(meta["side_multiple"]),
        cords=tuple(meta.get("cords", ())),
    )


def detector_input(rgb: NDArray[np.uint8], pawn_px: float) -> NDArray[np.float32]:
    """The network's input for an RGB image already scaled to ``pawn_px`` per pawn.

    Six channels: the colour (0..1, less 0.5), and the log-ratio of the colour to the
    table around it (a median over :data:`BACKGROUND_PAWNS` pawn widths, which pawns
    and cords are too small to move), halved and clipped to ±1.5: the same table under
    a lamp or in the shade looks alike there.

    Returns
    -------
    (6, H, W) float32
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB image, got {rgb.shape} {rgb.dtype}")
    h, w = rgb.shape[:2]
    small = cv2.resize(rgb, (max(w // 4, 1), max(h // 4, 1)), interpolation=cv2.INTER_AREA)
    window = max(3, int(BACKGROUND_PAWNS * pawn_px / 4) | 1)
    table = cv2.resize(cv2.medianBlur(small, window), (w, h), interpolation=cv2.INTER_LINEAR)
    # Both channels are functions of 8-bit values, so they are looked up in tables
    # made with the same arithmetic: the same numbers, without two logarithms a pixel.
    channels = np.empty((6, h, w), np.float32)

    def look_up(rows: slice) -> None:
        for c in range(3):
            plane = rgb[rows, :, c]
            # (Indices of bytes are always in the tables: "clip" checks nothing, and
            # writes straight into ``out`` without a buffer of its own.)
            np.take(COLOUR_OF_LEVEL.ravel(), plane, out=channels[c, rows], mode="clip")
            pair = (plane.astype(np.uint16) << 8) | table[rows, :, c].astype(np.uint16)
            np.take(RELATIVE_OF_PAIR, pair, out=channels[3 + c, rows], mode="clip")

    # In bands of rows in the reader's threads: the look-ups are NumPy's, on one core.
    for_each_band(look_up, h, w)
    return channels


def detect(
    rgb: NDArray[np.uint8],
    pawn_width: float,
    model: DetectorModel | None = None,
    box: tuple[slice, slice] | None = None,
    zoom: float = INPUT_ZOOM,
    with_cords: bool = True,
) -> Detections:
    """Find the pawns and knots of a photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo at working resolution.
    pawn_width : float
        About how wide a pawn is in ``rgb``'s pixels (within a third either way).
    model : DetectorModel, optional
        The bundled detector when omitted.
    box : (rows, columns) slices, optional
        Look only inside this part of the photo (coordinates stay the photo's).
    zoom : float, optional
        How much larger than the network's own ``pawn_px`` a pawn is given to it
        (:data:`INPUT_ZOOM`; 1 gives it pawns at the size it was trained at).
    with_cords : bool, optional
        Whether to make the cord maps (photo-sized images: a second look at a mark's
        place needs none).

    Returns
    -------
    Detections
    """
    if not math.isfinite(pawn_width) or pawn_width <= 0:
        raise ValueError(f"pawn_width must be a positive number, got {pawn_width}")
    if not math.isfinite(zoom) or zoom <= 0:
        raise ValueError(f"zoom must be a positive number, got {zoom}")
    model = model or load_detector()
    output, view = _look_at(rgb, box, pawn_width, model, zoom)
    found = []
    for obj, score, (x, y) in peaks(output[: len(OBJECTS) + 2], model.stride):
        if not view.inside(x, y):
            continue
        kind = KNOT if obj == KNOT else GHOST if obj == WHITE else DEMON
        found.append(Detection(kind, "" if obj == KNOT else obj, view.to_photo(x, y), score))
    found.sort(key=lambda d: -d.score)
    cords = _cord_maps(output, view, model, rgb.shape) if with_cords else {}
    return Detections(found=found, pawn_width=pawn_width, cords=cords)


def _look_at(
    rgb: NDArray[np.uint8],
    box: tuple[slice, slice] | None,
    pawn_width: float,
    model: DetectorModel,
    zoom: float,
) -> tuple[NDArray[np.float32], ScaledPart]:
    """The network's output for the part ``box`` of ``rgb`` (all of it when None),
    scaled so that a pawn ``pawn_width`` wide is ``zoom`` times its training's, and how
    the part was given to it."""
    rows, columns = box or (slice(0, rgb.shape[0]), slice(0, rgb.shape[1]))
    h, w = rgb[rows, columns].shape[:2]
    return run_on_part(
        model.network(),
        rgb,
        box,
        input_scale((h, w), pawn_width, model, zoom),
        model.side_multiple,
        # The table's median is taken over the window the network was trained with
        # (BACKGROUND_PAWNS of its 16-px pawns: three pawns at INPUT_ZOOM); over four
        # zoomed pawns it read worse (docs/reader-history.md, twenty-third session).
        lambda image: detector_input(image, model.pawn_px),
        strips=model.strips(),
    )


def _cord_maps(
    output: NDArray[np.float32], view: ScaledPart, model: DetectorModel, shape: tuple[int, ...]
) -> dict[str, NDArray[np.uint8]]:
    """The cord maps of the network's ``output`` for ``view``, as images of ``shape``
    (the photo's, or the part's own); empty for a model that marks no cords."""
    if not model.cords:
        return {}
    logits = output[len(OBJECTS) + 2 : len(OBJECTS) + 2 + len(model.cords)]
    sure = (255.0 / (1.0 + np.exp(-logits))).astype(np.float32)
    return dict(zip(model.cords, view.maps_to_photo(sure, model.stride, shape), strict=True))


def cords_near(
    rgb: NDArray[np.uint8],
    xy: tuple[float, float],
    reach: float,
    pawn_width: float,
    model: DetectorModel | None = None,
) -> CordsNear:
    """The cord maps of a closer look at the part of ``rgb`` within ``reach`` of ``xy``
    (a square, cut at the photo's edges): the network given it :data:`CLOSER_LOOK` times
    larger than :func:`detect` gives the photo, so that a cord's map is its own band
    and not its shadow's beside it too.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo at working resolution.
    xy : (x, y)
        The middle of the part (a crossing), in ``rgb``'s pixels.
    reach : float
        Half the part's side, in ``rgb``'s pixels.
    pawn_width : float
        The width of a pawn the detector looked for in ``rgb``.
    model : DetectorModel, optional
        The bundled detector when omitted.

    Returns
    -------
    CordsNear
        Empty maps where the part lies wholly off the photo.

    Raises
    ------
    ValueError
        When ``reach`` or ``pawn_width`` is not a positive number, or ``xy`` is not
        finite.
    """
    if not math.isfinite(reach) or reach <= 0:
        raise ValueError(f"reach must be a positive number, got {reach}")
    if not math.isfinite(pawn_width) or pawn_width <= 0:
        raise ValueError(f"pawn_width must be a positive number, got {pawn_width}")
    if not all(math.isfinite(v) for v in xy):
        raise ValueError(f"xy must be a finite point, got {xy}")
    model = model or load_detector()
    height, width = rgb.shape[:2]
    left, top = max(math.floor(xy[0] - reach), 0), max(math.floor(xy[1] - reach), 0)
    right = min(math.floor(xy[0] + reach) + 1, width)
    bottom = min(math.floor(xy[1] + reach) + 1, height)
    if right <= left or bottom <= top or not model.cords:
        return CordsNear({}, (left, top))
    box = (slice(top, bottom), slice(left, right))
    output, view = _look_at(rgb, box, pawn_width, model, CLOSER_LOOK * INPUT_ZOOM)
    return CordsNear(_cord_maps(output, view, model, (bottom - top, right - left)), (left, top))


def input_scale(
    size: tuple[int, int], pawn_width: float, model: DetectorModel, zoom: float = INPUT_ZOOM
) -> float:
    """How much :func:`detect` scales an image of ``size`` (height, width) looked at for
    pawns ``pawn_width`` wide: to the network's pawn size times ``zoom``, but never
    beyond :data:`MAX_INPUT_SIDE` (a pawn width far too small, a photo of something
    else, must not blow the image up)."""
    return min(model.pawn_px * zoom / pawn_width, MAX_INPUT_SIDE / max(*size, 1))


def detect_checking_size(
    rgb: NDArray[np.uint8],
    pawn_width: float,
    model: DetectorModel | None = None,
    sizer: SizerModel | None = None,
) -> Detections:
    """:func:`detect`, and again for smaller pawns where the first look marks mostly
    faintly (see :data:`SMALLER_PAWNS`); the look that marks more pawns surely, unless
    the sizer measures the pawns at its surest marks more than :data:`RESIZE_BEYOND`
    times as wide as it looked for (see :data:`SMALLER_LOOKS`).

    The returned ``pawn_width`` is the one the kept look used.
    """
    found = detect(rgb, pawn_width, model)
    for _ in range(SMALLER_LOOKS):
        sure = _pawns_marked(found, SURE_MARK)
        faint = _pawns_marked(found, FAINT_MARK) - sure
        if faint == 0 or faint < sure:
            return found
        smaller = detect(rgb, SMALLER_PAWNS * found.pawn_width, model)
        if _pawns_marked(smaller, SURE_MARK) < RESCALE_GAIN * max(sure, 1):
            return found
        ratio = _measured_ratio(rgb, smaller, sizer)
        if ratio is not None and ratio > RESIZE_BEYOND:
            return found
        found = smaller
    return found


def _measured_ratio(
    rgb: NDArray[np.uint8], detections: Detections, sizer: SizerModel | None = None
) -> float | None:
    """The sizer's median width of the pawns at the surest of ``detections``' marks
    (see :data:`MOST_MEASURED`), as a share of the width the detector looked for; None
    where fewer than :data:`FEWEST_MEASURED` are sure enough to measure."""
    surest = one_mark_per_pawn(detections.pawns(MEASURED_FROM), detections.pawn_width)
    if len(surest) < FEWEST_MEASURED:
        return None
    feet = [mark.xy for mark in surest[:MOST_MEASURED]]
    return float(np.median(width_ratios(rgb, feet, detections.pawn_width, sizer)))


def detect_at_measured_width(
    rgb: NDArray[np.uint8],
    detections: Detections,
    model: DetectorModel | None = None,
    sizer: SizerModel | None = None,
) -> Detections:
    """``detections``, or the detector's marks for pawns as wide as the sizer measures
    the pawns at its surest marks, where that is far narrower than the width it looked
    for or somewhat wider (the sizer does not measure pawns much wider than they are).

    The width looked for comes from the colour rules' blobs of pawn colour
    (:mod:`vision.creatures`, perhaps made smaller by :func:`detect_checking_size`):
    on a tilted photo a blob holds the pawn's side too, and where a pawn's side is
    lost to the table it holds less than the pawn. The new look is kept where it
    marks at least as many pawns surely as the first, and at least one (both told
    apart at the width measured).

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo the marks were made in.
    detections : Detections
        The detector's marks in it.
    model : DetectorModel, optional
        The bundled detector when omitted.
    sizer : SizerModel, optional
        The bundled sizer when omitted.

    Returns
    -------
    Detections
        ``detections`` itself where fewer than :data:`FEWEST_MEASURED` marks are sure
        enough to measure, the width measured is at most :data:`WIDEN_BEYOND` times
        the one looked for and at least 1 / :data:`RESIZE_BEYOND` times it, or the
        new look marks fewer pawns surely than the first look marks at the width
        measured (:func:`_pawns_told_apart`); otherwise the new look, its
        ``pawn_width`` the width measured. Where both widths give the
        network its largest input (:data:`MAX_INPUT_SIDE`), the marks would be the
        same: they are kept, with the width measured, and the network is not run.
    """
    ratio = _measured_ratio(rgb, detections, sizer)
    if ratio is None or 1 / RESIZE_BEYOND <= ratio <= WIDEN_BEYOND:
        return detections
    measured = ratio * detections.pawn_width
    model = model or load_detector()
    size = (rgb.shape[0], rgb.shape[1])
    if input_scale(size, measured, model) == input_scale(size, detections.pawn_width, model):
        return replace(detections, pawn_width=measured)
    again = detect(rgb, measured, model)
    # Both looks' pawns told apart at the width measured: looking for pawns too narrow,
    # the detector marks some twice (base and head), which count once; at a width too
    # wide, touching pawns would count as one.
    before = _pawns_told_apart(detections.pawns(SURE_MARK), measured)
    return again if _pawns_marked(again, SURE_MARK) >= max(before, 1) else detections


def _pawns_told_apart(marks: list[Detection], width: float) -> int:
    """How many pawns ``marks`` are at pawn width ``width``: marks nearer than
    :data:`SAME_PAWN` widths are one pawn, and so are marks of one kind and colour
    nearer than :data:`TWICE_MARKED_WITHIN` widths, a pawn marked at its base and its
    head (the pairs :func:`marked_once` looks at again; here they are counted once
    without that look, for a count only). It is given marks from :data:`SURE_MARK`,
    so :func:`marked_once`'s farther reach for faint marks does not come in."""
    # A look for pawns two thirds as wide as they are marks base and head about half
    # the right width apart (0.53-0.59 on 940123): counted as two pawns, its 32
    # outnumbered the 30 of the look at the width measured, which was refused.
    kept: list[Detection] = []
    # one_mark_per_pawn leaves no two marks nearer than SAME_PAWN, which _twin_of asks.
    for mark in one_mark_per_pawn(marks, width):  # strongest first
        if _twin_of(mark, kept, width) is None:
            kept.append(mark)
    return len(kept)


def _twin_of(
    mark: Detection,
    kept: list[Detection],
    width: float,
    within: float = TWICE_MARKED_WITHIN,
) -> Detection | None:
    """The first of ``kept`` that may be the pawn ``mark`` marks, marked a second time:
    of its kind and colour, :data:`SAME_PAWN` to ``within`` widths from it."""
    return next(
        (
            k
            for k in kept
            if (k.kind, k.colour) == (mark.kind, mark.colour)
            and SAME_PAWN * width <= math.dist(k.xy, mark.xy) < within * width
        ),
        None,
    )


def marked_once(
    rgb: NDArray[np.uint8], detections: Detections, model: DetectorModel | None = None
) -> Detections:
    """``detections`` without the second mark of a pawn marked twice.

    Given pawns larger than it looks for (a width read low: the colour rules lose a
    pawn's shaded side to a dark table, or its pale one to a light table), the
    detector may mark a pawn twice, at its base and at its head, from
    :data:`SAME_PAWN` to :data:`TWICE_MARKED_WITHIN` pawn widths apart (a fainter mark,
    under :data:`FAINT_TWIN_BELOW`, up to :data:`FAINT_TWIN_WITHIN`: the head of a tall
    pawn seen steeply). Two marks of one kind and colour so near, each from
    :data:`TWICE_MARKED_FROM`, are looked at again round their midpoint for pawns
    :data:`WIDER_LOOK` times as wide, in the four quarter turns of the place
    (:data:`CONFIRM_CROP` of those widths round it); where every turn marks exactly one
    such pawn there, the fainter mark is dropped.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo the marks were made in.
    detections : Detections
        The detector's marks in it.
    model : DetectorModel, optional
        The bundled detector when omitted.

    Returns
    -------
    Detections
    """
    width = detections.pawn_width
    kept: list[Detection] = []
    for mark in detections.found:  # strongest first
        if mark.kind != KNOT and mark.score >= TWICE_MARKED_FROM:
            twin = _twin_of(mark, kept, width)
            if twin is None and mark.score < FAINT_TWIN_BELOW:
                # Only where no mark is nearer: a faint head beside two touching pawns
                # of its colour is the nearer one's, not the farther stronger one's.
                twin = _twin_of(mark, kept, width, FAINT_TWIN_WITHIN)
            if twin is not None and _one_pawn_at(rgb, twin, mark, width, model):
                continue
        kept.append(mark)
    return detections if len(kept) == len(detections.found) else replace(detections, found=kept)


def _one_pawn_at(
    rgb: NDArray[np.uint8],
    first: Detection,
    second: Detection,
    width: float,
    model: DetectorModel | None,
) -> bool:
    """Whether every quarter turn of the place round the two marks, looked at for
    pawns :data:`WIDER_LOOK` times ``width`` wide, marks exactly one pawn of their kind
    and colour near them (within half their distance and half a pawn width of their
    midpoint). Marks are one pawn there within :data:`SAME_PAWN` of the width looked
    for, and nearer than the two marks are: two pawns marked at their feet stay two."""
    wider = WIDER_LOOK * width
    middle = ((first.xy[0] + second.xy[0]) / 2, (first.xy[1] + second.xy[1]) / 2)
    reach = math.dist(first.xy, second.xy) / 2 + SAME_PAWN * width
    cut = _place_round(rgb, middle, wider)
    if cut is None:
        return False
    one_pawn = min(wider, math.dist(first.xy, second.xy) / SAME_PAWN)
    for seen in _turned_looks(cut, QUARTER_TURNS, wider, first, MARKED_AT, model):
        near = [mark for mark in seen if math.dist(mark.xy, middle) < reach]
        if len(one_mark_per_pawn(near, one_pawn)) != 1:
            return False
    return True


def knots_at_training_size(
    rgb: NDArray[np.uint8],
    places: Sequence[tuple[float, float]],
    width: float,
    model: DetectorModel | None = None,
) -> list[Detection]:
    """The knot marks within a pawn width of each of ``places``, the network given the
    place round it (a half-width of :data:`CONFIRM_CROP` pawns) at the size it was
    trained at, not :data:`INPUT_ZOOM` larger.

    Zoomed, the network marks small knots it misses at its own size, but a knot with a
    lump far larger than the generator's (dev_0004: a thick lump with long straight
    tails) falls out of what it learned. The reader looks at the tracer's knots so,
    where a knot found by its shape stands.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo at working resolution.
    places : sequence of (x, y)
        Where to look, in ``rgb``'s pixels.
    width : float
        The width of a pawn the detector looked for.
    model : DetectorModel, optional
        The bundled detector when omitted.

    Returns
    -------
    list of Detection
        Strongest first, in ``rgb``'s pixels.
    """
    if not math.isfinite(width) or width <= 0:
        raise ValueError(f"width must be a positive number, got {width}")
    model = model or load_detector()
    found = []
    for x, y in places:
        cut = _place_round(rgb, (x, y), width)
        if cut is None:
            continue
        place, (left, top) = cut
        for mark in detect(place, width, model, zoom=1.0, with_cords=False).knots(MIN_SCORE):
            xy = (mark.xy[0] + left, mark.xy[1] + top)
            if math.dist(xy, (x, y)) <= width:
                found.append(replace(mark, xy=xy))
    return sorted(found, key=lambda d: -d.score)


def look_again(
    rgb: NDArray[np.uint8], mark: Detection, width: float, model: DetectorModel | None = None
) -> Detection:
    """``mark`` (a pawn's or a knot's) scored again: by the mean over the eight turns
    and mirrors of the place round it of the strongest mark of its kind and colour
    within :data:`SAME_PAWN` of it (0 where a view marks none).

    A pawn the detector marks faintly (a ghost on a light table, a demon beside its
    own shadow) is marked in most views; what only happened to look like a pawn from
    one side (a shadow, the lit rim of a cord) falls off in the others.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo the mark was made in.
    mark : Detection
        The mark to score again (its kind, colour and place are kept).
    width : float
        The width of a pawn the detector looked for.
    model : DetectorModel, optional
        The bundled detector when omitted.

    Returns
    -------
    Detection
        The mark with the mean as its score and ``views`` 8.
    """
    views = _strongest_in_views(rgb, mark, width, model)
    # Off the photo's edge, without a pawn's room round it, no view sees a pawn.
    total = sum(seen.score for seen in views or [] if seen is not None)
    return Detection(mark.kind, mark.colour, mark.xy, total / 8, views=8)


def foot_in_views(
    rgb: NDArray[np.uint8], mark: Detection, width: float, model: DetectorModel | None = None
) -> Point | None:
    """Where ``mark``'s pawn stands by the mean of its foot in the eight turns and
    mirrors of the place round it: in each view, the strongest mark of its kind and
    colour within :data:`SAME_PAWN` pawn widths of it.

    The network gives a foot as an offset from one of a coarse grid's cells; each turn
    puts the grid elsewhere on the pawn, and the mean of the views is nearer the truth
    than one look (:data:`FOOT_VIEWS_SEEN` gives the figures).

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo the mark was made in.
    mark : Detection
        The pawn's mark (its kind, colour and place).
    width : float
        The width of a pawn the detector looked for.
    model : DetectorModel, optional
        The bundled detector when omitted.

    Returns
    -------
    (x, y) or None
        In ``rgb``'s pixels; None where fewer than :data:`FOOT_VIEWS_SEEN` views mark
        the pawn (or the place round it leaves less than a pawn's room).
    """
    if mark.kind == KNOT:
        raise ValueError("a knot has no foot")
    views = _strongest_in_views(rgb, mark, width, model)
    feet = [seen.xy for seen in views or [] if seen is not None]
    if len(feet) < FOOT_VIEWS_SEEN:
        return None
    x, y = np.mean(feet, axis=0)
    return (float(x), float(y))


def _strongest_in_views(
    rgb: NDArray[np.uint8], mark: Detection, width: float, model: DetectorModel | None
) -> list[Detection | None] | None:
    """In each of the eight turns and mirrors of the place round ``mark``, the
    strongest mark of its kind and colour within :data:`SAME_PAWN` pawn widths of it
    (None where a view marks none); None where the place leaves less than a pawn's
    room (a mark off the photo's edge). Validates ``width``."""
    if not math.isfinite(width) or width <= 0:
        raise ValueError(f"width must be a positive number, got {width}")
    cut = _place_round(rgb, mark.xy, width)
    if cut is None:
        return None
    views: list[Detection | None] = []
    for seen in _turned_looks(cut, range(8), width, mark, MIN_SCORE, model or load_detector()):
        near = [s for s in seen if math.dist(s.xy, mark.xy) < SAME_PAWN * width]
        views.append(max(near, key=lambda s: s.score, default=None))
    return views


def _turned_looks(
    cut: tuple[NDArray[np.uint8], tuple[int, int]],
    turns: Iterable[int],
    width: float,
    like: Detection,
    min_score: float,
    model: DetectorModel | None,
) -> Iterator[list[Detection]]:
    """For each of ``turns`` of the place ``cut`` (:func:`_place_round`), the marks of
    ``like``'s kind and colour from ``min_score`` that the detector makes in it
    looking for pawns ``width`` wide, in the photo's pixels."""
    place, (left, top) = cut
    for turn in turns:
        view = _turned(place, turn)
        marks = []
        for seen in detect(view, width, model, with_cords=False).found:
            if (seen.kind, seen.colour) != (like.kind, like.colour) or seen.score < min_score:
                continue
            x, y = _turned_back(seen.xy, turn, view.shape)
            marks.append(replace(seen, xy=(x + left, y + top)))
        yield marks


def _place_round(
    rgb: NDArray[np.uint8], xy: tuple[float, float], width: float
) -> tuple[NDArray[np.uint8], tuple[int, int]] | None:
    """The part of ``rgb`` within :data:`CONFIRM_CROP` pawn widths of ``xy`` (cut at
    its edges) and its top-left corner (x, y); None where that leaves less than a
    pawn's room."""
    rows, columns = window_round(rgb.shape, xy, CONFIRM_CROP * width)
    place = rgb[rows, columns]
    if min(place.shape[:2]) < width:
        return None
    return place, (columns.start, rows.start)


def _turned(image: NDArray[np.uint8], turn: int) -> NDArray[np.uint8]:
    """One of the eight turns and mirrors of ``image``: transposed (``turn & 4``),
    then mirrored left-right (``& 1``) and upside down (``& 2``)."""
    if turn & 4:
        image = image.transpose(1, 0, 2)
    if turn & 1:
        image = image[:, ::-1]
    if turn & 2:
        image = image[::-1]
    return np.ascontiguousarray(image)


def _turned_back(xy: Point, turn: int, shape: tuple[int, ...]) -> Point:
    """Where the point ``xy`` of ``_turned(image, turn)`` (of ``shape``) is in ``image``."""
    x, y = xy
    height, width = shape[:2]
    if turn & 2:
        y = height - 1 - y
    if turn & 1:
        x = width - 1 - x
    return (y, x) if turn & 4 else (x, y)


def _pawns_marked(detections: Detections, min_score: float) -> int:
    """How many pawns are marked at least ``min_score`` (one pawn may be marked in two
    colours' maps)."""
    return len(one_mark_per_pawn(detections.pawns(min_score), detections.pawn_width))


def one_mark_per_pawn(marks: list[Detection], width: float) -> list[Detection]:
    """The strongest of the marks that stand within :data:`SAME_PAWN` of each other
    (one pawn may be marked in two colours' maps)."""
    kept: list[Detection] = []
    for mark in sorted(marks, key=lambda m: -m.score):
        if all(math.dist(mark.xy, k.xy) >= SAME_PAWN * width for k in kept):
            kept.append(mark)
    return kept


def peaks(
    output: NDArray[np.float32], stride: int, min_score: float = MIN_SCORE
) -> list[tuple[str, float, tuple[float, float]]]:
    """The local maxima of the heat maps, with their foot points in input pixels.

    Parameters
    ----------
    output : (len(OBJECTS) + 2, H, W) float32
        The network's output: heat-map logits, then the x and y offsets of the foot
        from each output pixel's centre (in output pixels).
    stride : int
        Input pixels per output pixel.

    Returns
    -------
    list of (object, score, (x, y))
    """
    if output.ndim != 3 or output.shape[0] != len(OBJECTS) + 2:
        raise ValueError(f"expected {len(OBJECTS) + 2} output maps, got {output.shape}")
    heat = 1.0 / (1.0 + np.exp(-output[: len(OBJECTS)]))
    kernel = np.ones((3, 3), np.uint8)

    def peaks_of(index: int) -> list[tuple[str, float, tuple[float, float]]]:
        h = np.ascontiguousarray(heat[index], np.float32)
        top = h == cv2.dilate(h, kernel)
        ys, xs = np.nonzero(top & (h >= min_score))
        return [
            (
                OBJECTS[index],
                float(h[y, x]),
                (
                    (x + 0.5 + float(output[-2, y, x])) * stride - 0.5,
                    (y + 0.5 + float(output[-1, y, x])) * stride - 0.5,
                ),
            )
            for y, x in zip(ys.tolist(), xs.tolist(), strict=True)
        ]

    # The maps in the reader's threads (in order: the peaks are listed as before).
    in_threads = map_in_threads(peaks_of, range(len(OBJECTS)), heat[0].size)
    return [peak for found in in_threads for peak in found]


def draw_detections(rgb: NDArray[np.uint8], detections: Detections) -> NDArray[np.uint8]:
    """The photo, dimmed, with the cords it marks tinted in their colours (the surer,
    the stronger) and every mark of at least :data:`MIN_SCORE`: a ring of a pawn's
    width in its colour (knots magenta), brighter the surer."""
    from vision.overlay import COLOURS_RGB  # display colours, shared with the overlay

    dimmed = rgb * 0.5
    for cord, sure in detections.cords.items():
        share = (sure.astype(np.float64) / 255.0)[:, :, None]
        dimmed = dimmed * (1.0 - share) + share * np.array(COLOURS_RGB[cord], np.float64)
    picture = dimmed.astype(np.uint8)
    radius = max(int(detections.pawn_width / 2), 3)
    for mark in sorted(detections.found, key=lambda m: m.score):
        colour = np.array(COLOURS_RGB.get(mark.colour, (255, 0, 255)), np.float64)
        shade = tuple(int(v) for v in colour * (0.35 + 0.65 * mark.score))
        centre = (int(round(mark.xy[0])), int(round(mark.xy[1])))
        cv2.circle(picture, centre, radius if mark.kind != KNOT else radius // 2, shade, 2)
        cv2.putText(
            picture,
            f"{mark.score:.2f}",
            (centre[0] + radius, centre[1]),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            shade,
            1,
            cv2.LINE_AA,
        )
    return picture
