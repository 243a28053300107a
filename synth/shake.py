"""Camera shake: the blur of a phone moved along a line while the shutter was open.

The generator's photos are sharp but for defocus; a hand-held phone photo is often
shaken a few pixels too. The benchmark that makes photos worse
(``benchmarks/robustness.py``) and the detector's training crops
(:func:`training.train.vary_look`) shake their images with :func:`motion_blur`.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

#: The kernel's line is drawn this many times larger and shrunk, so that a line at any
#: angle and of any length (not only whole pixels) blurs as much.
SUPERSAMPLE = 8


def motion_blur(image: NDArray[np.uint8], length: float, angle: float) -> NDArray[np.uint8]:
    """``image`` shaken along a straight line.

    Parameters
    ----------
    image : (H, W) or (H, W, C) uint8
    length : float
        How far the camera moved, in pixels of ``image``; under one pixel the image is
        returned unchanged (a copy).
    angle : float
        The direction of the move, in degrees from the x axis (towards +y).

    Returns
    -------
    ndarray
        The same shape and type: each pixel the mean of the pixels along the line
        through it (a box kernel along the line; borders reflected).

    Raises
    ------
    ValueError
        If ``image`` is not uint8 or ``length`` or ``angle`` is not finite.
    """
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise ValueError(f"image must be a 2-D or 3-D uint8 array, not {image.dtype} {image.shape}")
    if not (math.isfinite(length) and math.isfinite(angle)):
        raise ValueError(f"length and angle must be finite, not {length} and {angle}")
    if length < 1:
        return image.copy()
    # A pixel of margin round the line: its round ends and its width stay inside.
    size = (int(math.ceil(length)) + 2) | 1
    big = np.zeros((size * SUPERSAMPLE, size * SUPERSAMPLE), np.uint8)
    centre = (size * SUPERSAMPLE - 1) / 2
    # The line's round ends (half its width each) reach the rest of the length.
    half = (length - 1) * SUPERSAMPLE / 2
    dx, dy = math.cos(math.radians(angle)) * half, math.sin(math.radians(angle)) * half
    start = (round(centre - dx), round(centre - dy))
    end = (round(centre + dx), round(centre + dy))
    cv2.line(big, start, end, 255, thickness=SUPERSAMPLE)
    kernel = np.asarray(
        cv2.resize(big.astype(np.float32), (size, size), interpolation=cv2.INTER_AREA), np.float32
    )
    kernel /= kernel.sum()
    shaken = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)
    return np.asarray(shaken, np.uint8).reshape(image.shape)
