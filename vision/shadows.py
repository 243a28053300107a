"""The shadows the cords cast, found where they pass for a cord of the table's hue.

Under a low light a cord lying on the table casts a shadow beside it, several string
widths long, all the shadows pointing the same way. On a table of a cord's hue (a
blue cord on a blue mat) a shadow is a dark line of that hue, and the colour rules
take it for that cord: the blue loop is then traced along the green cord's shadow.
What gives a shadow away is that it lies on one side of every other cord, at the same
offset: the string pixels of the table's hue, correlated with the other loops' paths
shifted every way, gather on one side. :func:`cast_shadow` finds that side and how far
the shadows reach; :func:`shadow_band` is the band the shadows of the other loops
cover, which the tracer leaves out (:func:`vision.trace.apart_from_the_others`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.separate import disc

if TYPE_CHECKING:
    from vision.trace import Loop

#: Offsets looked at, in string widths from the other cord (a cord 2.5 mm thick under
#: a light 10 degrees up casts a shadow about 14 mm long, 6 string widths).
SHADOW_MAX_WIDTHS = 16.0
#: The ring of offsets whose directions are compared, in string widths: nearer than
#: its inside lie the other cord's own edges, on every side.
RING_WIDTHS = (1.5, 12.0)
#: Directions compared (15 degrees each).
DIRECTIONS = 24
#: Shadows are cast where, in the likeliest direction, at least this share of the
#: other loops' length finds a string pixel at the offset on average over the ring ...
SHADOW_MIN_SHARE = 0.08
#: ... and this many times as much as in the opposite direction (an even spread is a
#: table whose own pattern passes for the cord, or no shadow at all).
SHADOW_MIN_RATIO = 2.5
#: The shadows reach as far as the share at an offset along that direction stays at
#: least this part of its peak and twice the share opposite.
SHADOW_KEEP = 0.5


@dataclass(frozen=True)
class CastShadow:
    """Which way, and how far, the cords' shadows fall.

    Attributes
    ----------
    direction : (float, float)
        Unit vector in working pixels (x, y), away from the light.
    length : float
        How far from a cord its shadow reaches, working pixels.
    share : float
        The mean share of the other loops' length with a string pixel at the offsets
        of that direction (how clearly the shadows show).
    """

    direction: tuple[float, float]
    length: float
    share: float


def cast_shadow(
    string: NDArray[np.bool_], others: Sequence[Loop], width: float
) -> CastShadow | None:
    """The shadows the ``others`` cast, as far as ``string`` holds them; None when it
    holds no shadow (its pixels gather on no one side of the other loops).

    Parameters
    ----------
    string : (H, W) bool
        The string pixels of one colour.
    others : sequence of Loop
        The other colours' loops, traced on their own colours.
    width : float
        String width, working pixels.

    Returns
    -------
    CastShadow or None
    """
    if string.ndim != 2:
        raise ValueError(f"string must be a 2-D mask, not of shape {string.shape}")
    if width <= 0:
        raise ValueError(f"width must be positive, not {width}")
    if not others or not string.any():
        return None
    # Only round the other loops: string pixels further than the offsets looked at
    # from every one of them cannot gather at any offset.
    box, paths = _paths_in_box(others, string.shape, SHADOW_MAX_WIDTHS * width + 1)
    string = string[box]
    # At a scale where a string is about 1.5 pixels wide: the shadows are wide and the
    # offsets looked at reach far, the fine detail does not matter.
    step = max(1, int(width / 1.5))
    small = (string.shape[1] // step, string.shape[0] // step)
    if min(small) < 2:
        return None
    ours = cv2.resize(string.astype(np.float32), small, interpolation=cv2.INTER_AREA) > 0
    theirs = cv2.resize(paths.astype(np.float32), small, interpolation=cv2.INTER_AREA) > 0
    if not theirs.any():
        return None
    reach = int(SHADOW_MAX_WIDTHS * width / step) + 1
    shares = _offset_shares(ours.astype(np.float32), theirs.astype(np.float32), reach)
    unit = step / width  # string widths per small pixel
    ys, xs = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    distance = np.hypot(xs, ys) * unit
    ring = (distance >= RING_WIDTHS[0]) & (distance <= RING_WIDTHS[1])
    sector = ((np.arctan2(ys, xs) + math.pi) / (2 * math.pi) * DIRECTIONS).astype(int)
    sector %= DIRECTIONS
    counts = np.bincount(sector[ring], minlength=DIRECTIONS)
    sums = np.bincount(sector[ring], weights=shares[ring], minlength=DIRECTIONS)
    means = sums / np.maximum(counts, 1)
    best = int(np.argmax(means))
    opposite = means[(best + DIRECTIONS // 2) % DIRECTIONS]
    if means[best] < SHADOW_MIN_SHARE or means[best] < SHADOW_MIN_RATIO * opposite:
        return None
    # Between the sectors beside the best, as much as they gather over the opposite
    # one. This moves it little from the best sector's centre: the direction is off by
    # up to about 10 degrees (a reviewer's scan), a shadow 10 string widths long by up
    # to 1.7 widths at its far end, within the band's 2 widths either side. A finer
    # search along rays found the direction within 3 degrees, but was not measured on
    # photos (thirty-seventh session).
    sides = [(best + k) % DIRECTIONS for k in (-1, 0, 1)]
    centres = [(k + 0.5) / DIRECTIONS * 2 * math.pi - math.pi for k in sides]
    weights = [max(float(means[k]) - float(opposite), 0.0) for k in sides]
    x = sum(w * math.cos(a) for w, a in zip(weights, centres, strict=True))
    y = sum(w * math.sin(a) for w, a in zip(weights, centres, strict=True))
    direction = (x / math.hypot(x, y), y / math.hypot(x, y))
    along = _profile(shares, direction, reach, 1 / unit)
    back = _profile(shares, (-direction[0], -direction[1]), reach, 1 / unit)
    first = int(math.ceil(RING_WIDTHS[0]))
    peak = float(along[first:].max())
    last = first + int(np.argmax(along[first:]))
    while (
        last + 1 < len(along)
        and along[last + 1] >= SHADOW_KEEP * peak
        and along[last + 1] >= 2 * back[last + 1]
    ):
        last += 1
    return CastShadow(direction=direction, length=last * width, share=float(means[best]))


def shadow_band(
    others: Sequence[Loop], shape: tuple[int, ...], shadow: CastShadow, reach: float
) -> NDArray[np.bool_]:
    """The pixels the ``others``' shadows cover: within ``reach`` of their paths moved
    anywhere from 0 to ``shadow.length`` along ``shadow.direction``."""
    if not others:
        return np.zeros(shape[:2], bool)
    box, paths = _paths_in_box(others, shape, shadow.length + reach + 1)
    swept = np.zeros_like(paths)
    steps = max(1, int(math.ceil(shadow.length / max(reach, 1.0))))
    for k in range(steps + 1):
        dx, dy = (k / steps * shadow.length * v for v in shadow.direction)
        moved = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        size = (paths.shape[1], paths.shape[0])
        swept |= np.asarray(cv2.warpAffine(paths, moved, size, flags=cv2.INTER_NEAREST), np.uint8)
    band = np.zeros(shape[:2], bool)
    band[box] = cv2.dilate(swept, disc(2 * reach)) > 0
    return band


def _paths_in_box(
    loops: Sequence[Loop], shape: tuple[int, ...], margin: float
) -> tuple[tuple[slice, slice], NDArray[np.uint8]]:
    """The box of an image of ``shape`` round the ``loops``' paths grown by ``margin``
    (cut to the image), and the paths drawn one pixel wide in it."""
    points = np.vstack([loop.points for loop in loops])
    inside = np.array([shape[1] - 1, shape[0] - 1])
    low = np.clip(np.floor(points.min(axis=0) - margin), 0, inside).astype(int)
    high = np.minimum(np.ceil(points.max(axis=0) + margin) + 1, (shape[1], shape[0])).astype(int)
    high = np.maximum(high, low + 1)
    box = (slice(int(low[1]), int(high[1])), slice(int(low[0]), int(high[0])))
    paths = np.zeros((int(high[1] - low[1]), int(high[0] - low[0])), np.uint8)
    for loop in loops:
        # (Rounded where near_path rounds: at .5 the two would differ by a pixel.)
        cv2.polylines(paths, [(np.round(loop.points) - low).astype(np.int32)], True, 1, 1)
    return box, paths


def _offset_shares(
    ours: NDArray[np.float32], theirs: NDArray[np.float32], reach: int
) -> NDArray[np.float64]:
    """For every offset (dx, dy) with |dx|, |dy| <= ``reach`` (index ``[dy + reach,
    dx + reach]``), the share of ``theirs`` pixels whose pixel moved by it is in
    ``ours`` (a cross-correlation, through the FFT; padded so nothing wraps round)."""
    padded = [np.pad(image, reach) for image in (ours, theirs)]
    spectrum = np.fft.rfft2(padded[0]) * np.conj(np.fft.rfft2(padded[1]))
    correlation = np.fft.irfft2(spectrum, s=padded[0].shape)
    window = np.roll(correlation, (reach, reach), axis=(0, 1))[: 2 * reach + 1, : 2 * reach + 1]
    return np.asarray(window / float(theirs.sum()))


def _profile(
    shares: NDArray[np.float64], direction: tuple[float, float], reach: int, per_width: float
) -> NDArray[np.float64]:
    """``shares`` along ``direction`` from the centre, one value per string width
    (``per_width`` small pixels), bilinearly, out to the window's edge."""
    count = int(reach / per_width) + 1
    t = np.arange(count) * per_width
    xs = (reach + t * direction[0]).astype(np.float32)[None, :]
    ys = (reach + t * direction[1]).astype(np.float32)[None, :]
    values = cv2.remap(shares.astype(np.float32), xs, ys, cv2.INTER_LINEAR, borderValue=0.0)
    return np.asarray(values[0], np.float64)
