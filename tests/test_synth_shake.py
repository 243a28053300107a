"""Camera shake: a motion blur along a line."""

from __future__ import annotations

import numpy as np
import pytest

from synth.shake import motion_blur


@pytest.mark.parametrize(("angle", "along"), [(0.0, 1), (90.0, 0)])
def test_motion_blur_spreads_a_point_along_its_direction_only(angle: float, along: int) -> None:
    image = np.zeros((41, 41, 3), np.uint8)
    image[20, 20] = 255
    blurred = motion_blur(image, 9.0, angle)[..., 0].astype(float)
    lit = np.argwhere(blurred > 0)
    spans = lit.max(axis=0) - lit.min(axis=0)
    assert spans[along] >= 8  # nine pixels long
    assert spans[1 - along] <= 2  # and about one wide
    # Nothing is lost: the light is only spread (up to rounding to whole levels).
    assert abs(blurred.sum() - 255.0) <= 9 * 0.5 * 3


def test_motion_blur_of_less_than_a_pixel_changes_nothing() -> None:
    image = np.random.default_rng(1).integers(0, 256, (10, 12, 3), dtype=np.uint8)
    assert np.array_equal(motion_blur(image, 0.5, 30.0), image)


@pytest.mark.parametrize(
    ("image", "length", "angle"),
    [
        (np.zeros((5, 5, 3), np.float32), 3.0, 0.0),
        (np.zeros((5,), np.uint8), 3.0, 0.0),
        (np.zeros((5, 5), np.uint8), float("nan"), 0.0),
        (np.zeros((5, 5), np.uint8), 3.0, float("inf")),
    ],
)
def test_motion_blur_refuses_what_is_not_an_8_bit_image_or_a_finite_move(
    image: np.ndarray, length: float, angle: float
) -> None:
    with pytest.raises(ValueError):
        motion_blur(image, length, angle)


def test_a_grey_image_is_shaken_as_one_channel() -> None:
    image = np.zeros((21, 21), np.uint8)
    image[10, 10] = 200
    shaken = motion_blur(image, 5.0, 90.0)
    assert shaken.shape == (21, 21) and shaken.dtype == np.uint8
    assert shaken[10, 10] < 200 and shaken[8, 10] > 0 and shaken[10, 8] == 0
