"""The parts stage on small crafted class maps: strings, knots and pawns."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.parts import disc_window, find_parts
from vision.pixels import CORD, GHOST, KNOT, PAWN, PixelClasses


def classes_of(labels: np.ndarray, feet: list[tuple[int, int]] = ()) -> PixelClasses:
    foot = np.zeros(labels.shape, np.float32)
    for x, y in feet:
        cv2.circle(foot, (x, y), 2, 0.9, -1)
    return PixelClasses(labels=labels, sureness=np.ones(labels.shape, np.float32), foot=foot)


def blank(h: int = 200, w: int = 300) -> np.ndarray:
    return np.zeros((h, w), np.uint8)


def test_a_knot_lump_joins_the_string_it_sits_on_and_is_its_knot():
    labels = blank()
    cv2.line(labels, (10, 100), (290, 100), int(CORD["red"]), 3)
    cv2.line(labels, (150, 10), (150, 190), int(CORD["blue"]), 3)
    cv2.circle(labels, (60, 100), 5, int(KNOT), -1)
    parts = find_parts(classes_of(labels))
    red = parts.separation.strings["red"]
    assert red[100, 60]  # the lump is part of the red string now: no gap in its path
    assert not parts.separation.strings["blue"][100, 60]
    assert parts.separation.knots["red"] == (pytest.approx(60, abs=1), pytest.approx(100, abs=1))
    assert "blue" not in parts.separation.knots
    assert parts.separation.string_width == pytest.approx(5, abs=1)  # cv2 draws 5 px wide


def test_two_touching_pawns_of_one_colour_are_two_pawns_by_their_feet():
    labels = blank()
    cv2.circle(labels, (100, 100), 12, int(PAWN["green"]), -1)
    cv2.circle(labels, (122, 100), 12, int(PAWN["green"]), -1)  # merged into one body
    cv2.circle(labels, (220, 60), 12, int(GHOST), -1)
    parts = find_parts(classes_of(labels, feet=[(100, 104), (122, 104), (220, 64)]))
    seen = sorted((p.colour, p.kind, round(p.foot[0])) for p in parts.pawns.pawns)
    assert seen == [("green", "demon", 100), ("green", "demon", 122), ("white", "ghost", 220)]
    # One pawn's width is measured on the body that holds one foot (the ghost).
    assert parts.pawns.pawn_width == pytest.approx(25, abs=2)


def test_a_pawn_without_a_marked_foot_is_kept_from_its_body_and_a_stray_foot_is_not():
    labels = blank()
    cv2.circle(labels, (100, 100), 12, int(PAWN["yellow"]), -1)
    # A tall pawn seen at a slant: its body reaches up from its base.
    cv2.ellipse(labels, (200, 100), (12, 20), 0, 0, 360, int(PAWN["yellow"]), -1)
    parts = find_parts(classes_of(labels, feet=[(100, 104), (260, 170)]))
    feet = sorted(p.foot for p in parts.pawns.pawns)
    assert len(feet) == 2
    assert feet[0][0] == pytest.approx(100, abs=1)
    # The unmarked pawn's foot is at its lower end, not its centre.
    assert feet[1][0] == pytest.approx(200, abs=2) and feet[1][1] > 102
    assert any("no clear foot" in w.text for w in parts.pawns.warnings)


def test_nothing_found_is_no_strings_and_no_pawns():
    parts = find_parts(classes_of(blank()))
    assert not any(mask.any() for mask in parts.separation.strings.values())
    assert parts.pawns.pawns == [] and parts.separation.measured_width == 0.0


def test_a_speck_of_knot_or_a_knot_taken_for_pawn_closes_its_string_without_being_a_knot():
    labels = blank()
    cv2.line(labels, (10, 100), (290, 100), int(CORD["red"]), 3)
    labels[98:103, 58:63] = KNOT  # too small to be the knot, but it fills the gap
    cv2.line(labels, (10, 40), (290, 40), int(CORD["green"]), 3)
    cv2.circle(labels, (200, 40), 4, int(PAWN["green"]), -1)  # the knot's lump, as pawn
    cv2.circle(labels, (100, 160), 12, int(PAWN["green"]), -1)  # a real pawn, for size
    parts = find_parts(classes_of(labels, feet=[(100, 164)]))
    strings = parts.separation.strings
    assert strings["red"][98:103, 58:63].all() and "red" not in parts.separation.knots
    assert strings["green"][40, 200]
    assert [p.foot[0] for p in parts.pawns.pawns] == [pytest.approx(100, abs=1)]


def test_a_hollow_or_oversized_pawn_coloured_object_is_no_pawns():
    labels = blank(300, 400)
    for x in (30, 60, 90):  # real pawns, whose size the others are measured by
        cv2.circle(labels, (x, 250), 12, int(PAWN["blue"]), -1)
    cv2.circle(labels, (200, 80), 45, int(PAWN["blue"]), 12)  # a cup's rim from above
    cv2.rectangle(labels, (250, 180), (390, 290), int(PAWN["red"]), -1)  # a card
    feet = [(30, 254), (60, 254), (90, 254), (200, 35), (245, 80), (300, 230)]
    parts = find_parts(classes_of(labels, feet=feet))
    assert sorted(round(p.foot[0]) for p in parts.pawns.pawns) == [30, 60, 90]
    assert sum("not shaped like pawns" in w.text for w in parts.pawns.warnings) == 2


def test_a_foot_at_the_edge_of_the_photo_is_read():
    labels = blank()
    cv2.circle(labels, (296, 100), 12, int(PAWN["red"]), -1)
    parts = find_parts(classes_of(labels, feet=[(297, 100)]))
    assert [p.colour for p in parts.pawns.pawns] == ["red"]


@pytest.mark.parametrize(
    ("xy", "inside"),
    [((30.0, 20.0), 21), ((0.0, 0.0), 8), ((-500.0, -500.0), 0), ((900.0, 20.0), 0)],
)
def test_a_disc_window_holds_the_part_of_the_disc_inside_the_image(xy, inside) -> None:
    box, disc = disc_window((50, 60), xy, 2.6)
    assert disc.shape == (box[0].stop - box[0].start, box[1].stop - box[1].start)
    assert int(disc.sum()) == inside
    # A disc off the image has no window at all, not one wrapped round to its far side.
    assert (disc.size == 0) == (inside == 0)
