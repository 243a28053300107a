"""A demon's colour by its pixels where the detector marks it in two colours."""

from __future__ import annotations

import numpy as np
import pytest

from engine.colours import DEMON, GHOST, WHITE
from vision.colour import LABEL_COLOURS
from vision.creatures import Pawns, Remark, SeenPawn
from vision.demon_colour import (
    BODY_RADIUS,
    BODY_RISE,
    OWN_SHARE_AT_MOST,
    RIVAL_MARK,
    RIVAL_SHARE,
    recoloured_by_pixels,
)
from vision.detect import Detection, Detections

WIDTH = 40.0
FOOT = (100.0, 120.0)


def body_labelled(shares: dict[str, float]) -> np.ndarray:
    """A 200 x 200 table whose demon's body at FOOT has ``shares`` of its pixels
    labelled in those colours (in rows from the top of the body down)."""
    labels = np.zeros((200, 200), np.uint8)
    ys, xs = np.mgrid[0:200, 0:200]
    centre_y = FOOT[1] - BODY_RISE * WIDTH
    body = (xs - FOOT[0]) ** 2 + (ys - centre_y) ** 2 <= (BODY_RADIUS * WIDTH) ** 2
    places = np.flatnonzero(body)
    start = 0
    for colour, share in shares.items():
        count = int(round(share * places.size))
        labels.flat[places[start:start + count]] = LABEL_COLOURS.index(colour)
        start += count
    return labels


def green_demon_marked_blue_too(blue_score: float) -> tuple[Pawns, Detections]:
    pawn = SeenPawn(DEMON, "green", FOOT, WIDTH, 0.64)
    marks = [
        Detection(DEMON, "green", FOOT, 0.64),
        Detection(DEMON, "blue", (FOOT[0] + 3, FOOT[1] - 2), blue_score),
    ]
    said = Remark("a green demon at {at} seen only by its shape", FOOT)
    elsewhere = Remark("a green demon at {at} seen only by its shape", (40.0, 180.0))
    touching = Remark("2 touching green pawns read near {at}", FOOT)
    return Pawns([pawn], WIDTH, [said, elsewhere, touching]), Detections(marks, WIDTH)


def test_a_demon_marked_in_two_colours_takes_the_colour_its_pixels_have() -> None:
    """1510136, 1520142: light blue demons under a harsh light marked green 0.47-0.64
    and blue 0.39-0.56, their bodies a tenth to a third blue and not at all green."""
    pawns, marks = green_demon_marked_blue_too(0.45)
    labels = body_labelled({"blue": 0.2})
    read = recoloured_by_pixels(pawns, marks, labels)
    [demon] = read.pawns
    assert (demon.kind, demon.colour, demon.foot) == (DEMON, "blue", FOOT)
    assert demon.confidence == pytest.approx(0.45)
    # The remark naming it a green demon is gone, those about other things stay, and
    # one says why it is blue.
    assert [(w.text, w.at) for w in read.warnings] == [
        ("a green demon at {at} seen only by its shape", (40.0, 180.0)),
        ("2 touching green pawns read near {at}", FOOT),
        ("a demon at {at} read as blue by its pixels, marked green by its shape", FOOT),
    ]


@pytest.mark.parametrize(
    ("blue_score", "shares", "table_hue"),
    [
        (0.45, {"green": 2 * OWN_SHARE_AT_MOST, "blue": 0.2}, None),  # some green in it
        (0.45, {"blue": RIVAL_SHARE / 2}, None),  # hardly any blue
        (RIVAL_MARK - 0.05, {"blue": 0.2}, None),  # the detector hardly torn
        (0.45, {"blue": 0.2}, "green"),  # a green demon on green felt shows no green
    ],
)
def test_a_demon_keeps_its_colour_unless_the_detector_and_its_pixels_both_doubt_it(
    blue_score: float, shares: dict[str, float], table_hue: str | None
) -> None:
    pawns, marks = green_demon_marked_blue_too(blue_score)
    labels = body_labelled(shares)
    assert recoloured_by_pixels(pawns, marks, labels, table_hue) is pawns


def test_of_two_other_colours_marked_the_one_its_pixels_have_is_taken() -> None:
    """The stronger other mark is weighed first, but the pixels decide."""
    pawns, marks = green_demon_marked_blue_too(0.5)
    yellow = Detection(DEMON, "yellow", (FOOT[0] - 2, FOOT[1] + 1), 0.35)
    marks = Detections([*marks.found, yellow], WIDTH)
    [demon] = recoloured_by_pixels(pawns, marks, body_labelled({"yellow": 0.2})).pawns
    assert (demon.colour, demon.confidence) == ("yellow", 0.35)
    [demon] = recoloured_by_pixels(pawns, marks, body_labelled({"blue": 0.2})).pawns
    assert (demon.colour, demon.confidence) == ("blue", 0.5)


def test_ghosts_and_far_marks_are_left_alone() -> None:
    ghost = SeenPawn(GHOST, WHITE, FOOT, WIDTH, 0.9)
    far_demon = SeenPawn(DEMON, "green", (40.0, 180.0), WIDTH, 0.9)
    marks = Detections([Detection(DEMON, "blue", FOOT, 0.6)], WIDTH)
    pawns = Pawns([ghost, far_demon], WIDTH, [])
    labels = np.full((200, 200), LABEL_COLOURS.index("blue"), np.uint8)
    assert recoloured_by_pixels(pawns, marks, labels) is pawns


def test_labels_must_be_an_image() -> None:
    pawns, marks = green_demon_marked_blue_too(0.45)
    with pytest.raises(ValueError, match="2-D"):
        recoloured_by_pixels(pawns, marks, np.zeros((10, 10, 3), np.uint8))
