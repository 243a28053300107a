"""How wide the pawns the detector marked really are, by a small learned regressor.

The detector is given the photo scaled by a pawn width that the colour rules read
from the blobs of pawn colour. That width is off where the blobs are not the pawns:
on a tilted photo a blob holds the pawn's side too, and reads up to 2.7 times the
width; where a lamp shades a pawn's side on a dark table, or a pale pawn stands on a
light one, a blob loses a side and reads small. The detector then marks pawns too
large or too small for it: some twice, some not at all.

The sizer (:mod:`training.train_sizer`, trained on generated photos with their exact
truth) looks at the place round each of the detector's surest marks, cut out and
scaled as though the pawn there were as wide as the width looked for, and says how
much wider (or narrower) the pawn there is. It is an ONNX file in ``calibration/``
(``sizenet.onnx`` with ``sizenet.json``) run by ONNX Runtime.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from vision.networks import COLOUR_OF_LEVEL, RELATIVE_OF_PAIR, Network, load_network

SIZER_PATH = Path(__file__).resolve().parents[1] / "calibration" / "sizenet.onnx"
#: A place is cut out CROP_PAWNS pawn widths (of the width looked for) on a side, round
#: the mark, and scaled to CROP_PX pixels: a pawn of the width looked for is
#: CROP_PX / CROP_PAWNS (16) pixels wide there, one 2.8 times as wide still fits with
#: its side seen from a tilted camera.
CROP_PAWNS = 5.0
CROP_PX = 80


@dataclass(frozen=True)
class SizerModel:
    """A loaded network on :func:`place_crop`'s crops (the sizer, or a checker of ghosts,
    demons or knots): where it is, and the crops it takes."""

    path: Path
    crop_px: int
    crop_pawns: float

    def network(self) -> Network:
        """The network, shared by the process's threads."""
        return load_network(self.path)

    def outputs_at(
        self, rgb: NDArray[np.uint8], places: Sequence[Point], width: float
    ) -> NDArray[np.float32]:
        """The network's one output for the place round each of ``places`` (not empty),
        cut out by :func:`place_crop` for pawns ``width`` wide."""
        crops = np.stack([place_crop(rgb, xy, width, self.crop_pawns) for xy in places])
        return self.network().run(sizer_input(crops)).reshape(-1)

    def odds_at(
        self,
        rgb: NDArray[np.uint8],
        places: Sequence[Point],
        width: float,
        *,
        turned: bool = False,
    ) -> NDArray[np.float32]:
        """A checker's odds (0-1, the logistic of its output) for each of ``places``
        (none for none), cut out for pawns ``width`` wide.

        With ``turned``, each crop is asked about as each of the eight ways a quarter
        turn and a mirror turn it, and the outputs averaged: the checkers learnt every
        crop turned so, and one crop's answer swings with a pixel or two (the knot
        checker's most), the eight turns' far less. Eight times the work.

        Raises
        ------
        ValueError
            When ``width`` is not a positive number, or ``rgb`` not an RGB image of
            bytes (:func:`place_crop`).
        """
        if not math.isfinite(width) or width <= 0:
            raise ValueError(f"width must be a positive number, got {width}")
        if not places:
            return np.zeros(0, np.float32)
        if turned:
            logits = self._turned_outputs_at(rgb, places, width)
        else:
            logits = self.outputs_at(rgb, places, width).astype(np.float64)
        return (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)

    def _turned_outputs_at(
        self, rgb: NDArray[np.uint8], places: Sequence[Point], width: float
    ) -> NDArray[np.float64]:
        """The network's output for the place round each of ``places`` (not empty),
        averaged over its crop's eight turns (four quarter turns, each also mirrored)."""
        crops = np.stack([place_crop(rgb, xy, width, self.crop_pawns) for xy in places])
        quarters = [np.rot90(crops, turns, axes=(1, 2)) for turns in range(4)]
        turned = np.concatenate(quarters + [quarter[:, :, ::-1] for quarter in quarters])
        outputs = self.network().run(sizer_input(np.ascontiguousarray(turned)))
        mean: NDArray[np.float64] = np.asarray(outputs, np.float64).reshape(8, -1).mean(axis=0)
        return mean


@lru_cache(maxsize=4)
def load_sizer(path: Path = SIZER_PATH) -> SizerModel:
    """Load the sizer at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When it was trained on other crops than this reader cuts.
    """
    return load_crop_model(path, "pawn sizer", "make sizer")


def load_crop_model(
    path: Path, what: str, make: str, crop_pawns: float = CROP_PAWNS
) -> SizerModel:
    """Load the network on :func:`place_crop`'s crops at ``path`` (``.onnx``, with its
    ``.json`` beside it): ``what`` it is and the command that trains it, for the error,
    and how many pawn widths its crops span.

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When it was trained on other crops than this reader cuts.
    """
    if not path.is_file() or not path.with_suffix(".json").is_file():
        raise FileNotFoundError(f"no {what} at {path} with its .json ({make} trains one)")
    meta = json.loads(path.with_suffix(".json").read_text())
    model = SizerModel(path, int(meta["crop_px"]), float(meta["crop_pawns"]))
    if (model.crop_px, model.crop_pawns) != (CROP_PX, crop_pawns):
        raise ValueError(
            f"{path.name} takes crops of {model.crop_px} px over {model.crop_pawns} pawns, "
            f"this reader cuts {CROP_PX} px over {crop_pawns}"
        )
    return model


def place_crop(
    rgb: NDArray[np.uint8], xy: Point, width: float, pawns: float = CROP_PAWNS
) -> NDArray[np.uint8]:
    """The place round ``xy``, ``pawns`` times ``width`` on a side, scaled to
    :data:`CROP_PX` pixels (the photo's edge repeated beyond it).

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo.
    xy : (x, y)
        The middle of the place, in ``rgb``'s pixels.
    width : float
        The pawn width looked for, in ``rgb``'s pixels.
    pawns : float, optional
        How many such widths the place spans (:data:`CROP_PAWNS`, the sizer's and the
        pawn checkers', by default).

    Returns
    -------
    (CROP_PX, CROP_PX, 3) uint8

    Raises
    ------
    ValueError
        When ``rgb`` is not an RGB image of bytes, or ``width`` or ``pawns`` not a
        positive number.
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB image, got {rgb.shape} {rgb.dtype}")
    if not math.isfinite(width) or width <= 0:
        raise ValueError(f"width must be a positive number, got {width}")
    if not math.isfinite(pawns) or pawns <= 0:
        raise ValueError(f"pawns must be a positive number, got {pawns}")
    half = max(1, int(round(pawns * width / 2)))
    h, w = rgb.shape[:2]
    # A mark lies in the photo; a point beyond it is looked at from its nearest pixel.
    x = min(max(int(round(xy[0])), 0), w - 1)
    y = min(max(int(round(xy[1])), 0), h - 1)
    top, left = y - half, x - half
    padded = cv2.copyMakeBorder(
        rgb[max(top, 0) : y + half, max(left, 0) : x + half],
        max(-top, 0),
        max(y + half - h, 0),
        max(-left, 0),
        max(x + half - w, 0),
        cv2.BORDER_REPLICATE,
    )
    shrink = cv2.INTER_AREA if 2 * half > CROP_PX else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(padded, (CROP_PX, CROP_PX), interpolation=shrink), np.uint8)


def sizer_input(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The network's input for crops of :func:`place_crop`.

    Six channels, looked up as the detector's (:func:`vision.detect.detector_input`):
    the colour (0..1, less 0.5), and the log-ratio of the colour to the crop's median
    (rounded to a level), halved and clipped to ±1.5 (the table covers most of a crop).

    Parameters
    ----------
    crops : (N, S, S, 3) uint8

    Returns
    -------
    (N, 6, S, S) float32

    Raises
    ------
    ValueError
        When ``crops`` are not RGB crops of bytes.
    """
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise ValueError(f"expected (N, S, S, 3) uint8 crops, got {crops.shape} {crops.dtype}")
    planes = np.ascontiguousarray(crops.transpose(0, 3, 1, 2))  # (N, 3, S, S)
    table = np.round(_median_levels(planes)).astype(np.uint16)[:, :, None, None]
    both = np.empty((len(crops), 6, *planes.shape[2:]), np.float32)
    both[:, :3] = COLOUR_OF_LEVEL[planes, 0]
    both[:, 3:] = RELATIVE_OF_PAIR[(planes.astype(np.uint16) << 8) | table]
    return both


def _median_levels(planes: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The median of each image of 8-bit ``planes`` (N, C, H, W), as ``np.median``
    gives it (the mean of the two middle levels of an even count), from the images'
    histograms: sorting a few hundred thousand levels took most of the input's time."""
    count, channels = planes.shape[:2]
    size = planes.shape[2] * planes.shape[3]
    if count * channels == 0 or size == 0:
        return np.zeros((count, channels))
    images = planes.reshape(count * channels, size)
    offsets = (np.arange(count * channels) * 256)[:, None]
    histograms = np.bincount((images + offsets).ravel(), minlength=count * channels * 256)
    below = np.cumsum(histograms.reshape(count * channels, 256), axis=1)
    # The level of the k-th smallest value (from 0) is the first whose count passes k.
    low = np.argmax(below > (size - 1) // 2, axis=1)
    high = np.argmax(below > size // 2, axis=1)
    return np.asarray((low + high) / 2, np.float64).reshape(count, channels)


def width_ratios(
    rgb: NDArray[np.uint8],
    feet: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """How many times ``width`` wide the pawn at each of ``feet`` is, by the sizer.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo.
    feet : sequence of (x, y)
        Where pawns stand (the detector's marks), in ``rgb``'s pixels.
    width : float
        The pawn width the detector looked for, in ``rgb``'s pixels.
    model : SizerModel, optional
        The bundled sizer when omitted.

    Returns
    -------
    (len(feet),) float32

    Raises
    ------
    FileNotFoundError, ValueError
        When the bundled sizer is missing or cuts other crops (:func:`load_sizer`).
    """
    if not feet:
        return np.zeros(0, np.float32)
    logs = (model or load_sizer()).outputs_at(rgb, feet, width)
    return np.exp(logs).astype(np.float32)


#: :func:`widths_on_table` fits a plane only to at least this many pawns: fewer say
#: little of how the width changes across the photo.
LEAST_PAWNS_FOR_PLANE = 6
#: ... leaving out, twice, the pawns whose width lies farther than this many robust
#: deviations (and than LEAST_WIDTH_SPREAD, where they all agree closely) from the
#: fit's: a pawn measured with its shadow, or two touching pawns measured as one.
PLANE_OUTLIER_SPREADS = 3.0
LEAST_WIDTH_SPREAD = 0.03
#: ... and fits none where the pawns kept still lie farther than this from it (robust
#: deviation; the sizer's own measurements lie about 0.05 from a pawn's width): pawns
#: that disagree so much say nothing of a plane.
MOST_PLANE_SPREAD = 0.15
#: ... and keeps each width within these times the median width measured: a fit steered
#: by a few pawns at one side must not make a pawn far from them tiny or huge.
PLANE_WIDTH_LIMITS = (0.6, 1.6)


def widths_on_table(
    feet: Sequence[Point], widths: Sequence[float]
) -> NDArray[np.float64] | None:
    """The pawn width at each foot as the table's plane gives it: a smooth fit to the
    widths measured at the feet.

    All pawns are the same size on the table, and a camera sees the points of a plane
    at depths whose inverse is an affine function of their place in the photo, so a
    pawn's width in the photo is ``1 / (a x + b y + c)`` (lens distortion and the height
    of a pawn's body aside). Fitted to the widths measured at every pawn (robustly:
    pawns measured far off the fit are left out), the width at a pawn is nearer its own
    than the photo's one width, which is wrong at the near and far edges of a tilted
    photo, or than its own measurement, a few per cent off.

    Parameters
    ----------
    feet : sequence of (x, y)
        Where the pawns stand.
    widths : sequence of float
        Their measured widths (positive), one per foot.

    Returns
    -------
    (len(feet),) float64, or None
        The widths at the feet; None where fewer than :data:`LEAST_PAWNS_FOR_PLANE`
        pawns are measured or kept, the feet kept do not span the photo (all on one
        line), the pawns kept lie farther than :data:`MOST_PLANE_SPREAD` from the
        plane, or it puts a foot at no positive width.

    Raises
    ------
    ValueError
        When ``feet`` and ``widths`` differ in length, a width is not a positive
        number, or a foot not a finite point.
    """
    measured = np.asarray(widths, np.float64).reshape(-1)
    if len(measured) != len(feet):
        raise ValueError(f"{len(measured)} widths for {len(feet)} feet")
    if not np.all(np.isfinite(measured) & (measured > 0)):
        raise ValueError("every width must be a positive number")
    xy = np.asarray(feet, np.float64).reshape(len(measured), 2)
    if not np.all(np.isfinite(xy)):
        raise ValueError("every foot must be a finite point")
    if len(measured) < LEAST_PAWNS_FOR_PLANE:
        return None
    # Centred and scaled, so that the fit is as well conditioned in any photo's pixels.
    spread = np.maximum(xy.std(axis=0), 1e-9)
    places = np.column_stack([(xy - xy.mean(axis=0)) / spread, np.ones(len(measured))])
    inverse = 1.0 / measured
    kept = np.ones(len(measured), bool)
    for _ in range(3):  # fitted, then twice again without the pawns far off the last fit
        plane, _, rank, _ = np.linalg.lstsq(places[kept], inverse[kept], rcond=None)
        if rank < 3:
            return None  # the feet kept lie on one line: no slope across it
        off = np.abs(places @ plane / inverse - 1.0)
        deviation = 1.4826 * float(np.median(off[kept]))  # robust, as a standard deviation
        # (The last pass's pawns kept are counted only: too few, and the fit is not trusted.)
        kept = off <= max(PLANE_OUTLIER_SPREADS * deviation, LEAST_WIDTH_SPREAD)
        if kept.sum() < LEAST_PAWNS_FOR_PLANE:
            return None
    if 1.4826 * float(np.median(off[kept])) > MOST_PLANE_SPREAD:
        return None
    fitted = places @ plane
    if not np.all(fitted > 0):
        return None
    median = float(np.median(measured))
    low, high = PLANE_WIDTH_LIMITS
    return np.asarray(np.clip(1.0 / fitted, low * median, high * median), np.float64)
