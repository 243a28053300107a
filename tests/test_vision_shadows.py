"""The shadows the cords cast, where they pass for a cord of the table's hue
(:mod:`vision.shadows`), and the tracer leaving them out."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.separate import Separation
from vision.shadows import cast_shadow, shadow_band
from vision.trace import Loop, trace_loops

SIZE = (900, 700)  # width, height
WIDTH = 5.0


def ellipse(centre: tuple[float, float], axes: tuple[float, float], n: int = 200) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([centre[0] + axes[0] * np.cos(t), centre[1] + axes[1] * np.sin(t)])


#: Four crossing loops, as in a game.
LOOPS = {
    "red": ellipse((380, 330), (220, 150)),
    "yellow": ellipse((520, 330), (220, 150)),
    "green": ellipse((450, 260), (160, 200)),
    "blue": ellipse((450, 420), (260, 120)),
}


def mask_of(
    points: np.ndarray, thickness: int = 5, offset: tuple[float, float] = (0, 0)
) -> np.ndarray:
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    moved = (points + np.array(offset)).round().astype(np.int32)
    cv2.polylines(mask, [moved], True, 1, thickness)
    return mask.astype(bool)


def loop_of(colour: str) -> Loop:
    return Loop(colour=colour, points=LOOPS[colour], knot=None)


def others_than(colour: str) -> list[Loop]:
    return [loop_of(c) for c in LOOPS if c != colour]


def shadows_of_the_others(
    colour: str, direction: tuple[float, float], near: float, far: float
) -> np.ndarray:
    """The pixels the other loops' shadows cover, from ``near`` to ``far`` pixels
    along ``direction``."""
    shadows = np.zeros((SIZE[1], SIZE[0]), bool)
    for other in (c for c in LOOPS if c != colour):
        for step in np.arange(near, far + 1, 2.0):
            shadows |= mask_of(LOOPS[other], 3, (step * direction[0], step * direction[1]))
    return shadows


@pytest.mark.parametrize("angle_deg", [90.0, 87.0, 63.0, -30.0, 160.0])
def test_the_other_cords_shadows_are_found_on_their_side_and_as_long_as_they_are(
    angle_deg: float,
) -> None:
    direction = (math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg)))
    string = mask_of(LOOPS["blue"]) | shadows_of_the_others("blue", direction, 20, 30)
    shadow = cast_shadow(string, others_than("blue"), WIDTH)
    assert shadow is not None
    found = math.degrees(math.atan2(shadow.direction[1], shadow.direction[0]))
    # (A sector is 15 degrees wide, and the direction is taken between the best and
    # its neighbours: up to about 10 degrees off.)
    assert abs((found - angle_deg + 180) % 360 - 180) <= 10
    assert 28 <= shadow.length <= 45


def test_a_cord_crossing_the_others_casts_no_shadow_on_itself() -> None:
    # Its own cord lies mostly below the others and gathers more below them, but
    # along too little of their length to be taken for their shadows.
    assert cast_shadow(mask_of(LOOPS["blue"]), others_than("blue"), WIDTH) is None


def test_a_pattern_on_both_sides_of_the_cords_is_no_shadow() -> None:
    # Lines on both sides of every other cord (a table's pattern, or the lit edges of
    # the cords on a table of their hue) are no shadow cast one way.
    both = shadows_of_the_others("blue", (0, 1), 12, 24) | shadows_of_the_others(
        "blue", (0, -1), 12, 24
    )
    assert cast_shadow(mask_of(LOOPS["blue"]) | both, others_than("blue"), WIDTH) is None


def test_cast_shadow_refuses_what_is_no_mask() -> None:
    with pytest.raises(ValueError, match="2-D"):
        cast_shadow(np.zeros((5, 5, 3), bool), others_than("blue"), WIDTH)
    with pytest.raises(ValueError, match="positive"):
        cast_shadow(np.zeros((5, 5), bool), others_than("blue"), 0.0)
    assert cast_shadow(np.zeros((50, 50), bool), others_than("blue"), WIDTH) is None
    assert cast_shadow(mask_of(LOOPS["blue"]), [], WIDTH) is None


def test_the_shadow_band_covers_the_shadow_side_only() -> None:
    shadow = cast_shadow(
        mask_of(LOOPS["blue"]) | shadows_of_the_others("blue", (0, 1), 20, 30),
        others_than("blue"),
        WIDTH,
    )
    assert shadow is not None
    band = shadow_band([loop_of("green")], (SIZE[1], SIZE[0]), shadow, 2 * WIDTH)
    top = LOOPS["green"][np.argmin(LOOPS["green"][:, 1])].round().astype(int)
    x, y = int(top[0]), int(top[1])
    assert band[y + 20, x] and band[y + 30, x]  # where the shadow of its top falls
    assert not band[y - 20, x]  # the lit side


@pytest.mark.parametrize("by_shape", [frozenset({"blue"}), frozenset()])
def test_a_cord_of_the_tables_hue_is_traced_apart_from_the_long_shadows_of_the_others(
    by_shape: frozenset[str],
) -> None:
    # Under a low light the other cords' shadows reach 6 string widths, further than
    # the corridor the tracer leaves out round every other loop; where the blue cord
    # is seen only in dashes it would follow them.
    strings = {colour: mask_of(points) for colour, points in LOOPS.items()}
    dashes = np.zeros((SIZE[1], SIZE[0]), bool)
    for left in range(0, SIZE[0], 50):
        dashes[:, left : left + 28] = True
    shadows = shadows_of_the_others("blue", (0.0, 1.0), 20, 32)
    strings["blue"] = (strings["blue"] & dashes) | shadows
    separation = Separation(
        strings=strings,
        pawns=[],
        string_width=WIDTH,
        pawn_mask=np.zeros((SIZE[1], SIZE[0]), bool),
        measured_width=WIDTH,
        by_shape=by_shape,
    )
    blue = trace_loops(separation).loops["blue"].points
    radii = np.hypot((blue[:, 0] - 450) / 260, (blue[:, 1] - 420) / 120)
    if by_shape:
        assert np.abs(radii - 1).max() < 0.05
    else:  # what the shadows' band prevents: the loop strays along them
        assert np.abs(radii - 1).max() > 0.3
