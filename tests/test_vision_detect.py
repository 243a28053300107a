"""The learned detector (vision.detect) and how its marks are combined with the colour
rules' reading (vision.combine).

The decoding and the combining are checked on crafted maps and marks with a known
answer; the bundled model itself on a real-looking sample photo, against its truth.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from engine.board import Board, Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from engine.layout import random_layout
from engine.placement import (
    BETWEEN_CORNERS_AMBIGUITY,
    FAR_FROM_CORNERS_AMBIGUITY,
    OFF_BOARD_CLEARANCE,
    ON_STRING_AMBIGUITY,
    BoardGeometry,
    Foot,
    Location,
    locate_creatures,
)
from synth.photo import make_photo
from vision import parallel
from vision.combine import (
    ADD_SCORE,
    ALONG_REACH,
    ALONG_WIDTHS,
    AWAY_DEMON,
    BESIDE_GHOST_DEMON,
    CENTRE_REACH,
    CENTRE_RING,
    CENTRED_GHOST_FROM,
    CENTRED_GHOST_SCORE,
    CHECKED_ALONG,
    CHECKED_APART,
    CHECKED_DEMON,
    CHECKED_DEMON_MEAN,
    CHECKED_GHOST,
    CHECKED_GHOST_MEAN,
    CHECKED_KNOT,
    CHECKED_SLACK,
    CHECKED_TURNED,
    CHECKER_CLEAR_OF_GHOST,
    CHECKER_CLEAR_OF_KNOT,
    CONFIRM_FROM,
    CONFIRMED_ADD_SCORE,
    CONFIRMED_GHOST_SCORE,
    CORD_AGREEMENT,
    CORNERED_DEMON_FROM,
    CORNERED_DEMON_SCORE,
    CROSSING_KNOT_WIDTHS,
    DEMON_AT_GHOST_REACH,
    DEMON_NOT_GHOST,
    FAINT_DEMON_GHOST,
    FAINT_GHOST_CLEAR_OF_CROSSING,
    FAINT_GHOST_DOUBT,
    FAINT_GHOST_FROM,
    FAINT_RULES_GHOST,
    FAINT_TABLE_HUE_DEMON,
    HEAD_REACH,
    HIDDEN_GHOST_REACH,
    KEEP_SCORE,
    KNOT_CONTEST,
    KNOT_DOUBT,
    KNOT_REACH_PAWNS,
    KNOT_REACH_WIDTHS,
    KNOT_SCAN_BATCH,
    KNOT_SCAN_STEP,
    KNOT_SCORE,
    KNOT_SWITCH_BY,
    LIKELIER_GHOST_SCORE,
    LOST_KNOT_DEMON_SCORE,
    LOST_KNOT_SCORE,
    NOT_A_GHOST,
    OPEN_KNOT_SLACK,
    OWN_CORD_KNOT_SCORE,
    PAWN_BASE_WIDTHS,
    PAWN_CUT_SCORE,
    RING_FROM,
    RULED_OUT_FAINT_DEMON,
    RULED_OUT_KNOT,
    RULED_OUT_TABLE_HUE_DEMON,
    RULES_GHOST_REACH,
    RULES_GHOST_SCORE,
    SHAPED_DEMON_CHECKED,
    SHAPED_KNOT,
    STRONGER_BY,
    STRONGER_BY_BESIDE_PAWN,
    SURE_COLOUR,
    SURE_KNOT_REACH,
    SURELY_MARKED_KNOT,
    TABLE_HUE_DEMON_SCORE,
    TOUCHING_DOUBT,
    TOUCHING_DOUBT_REACH,
    UNSURE_ADDED,
    VIEWED_KNOT,
    WEAK_SEEN,
    _away_from_demons,
    add_centred_ghosts,
    add_checked_centre_ghosts,
    add_cornered_demons,
    add_ghosts_behind_pawns,
    combine_knots,
    combine_pawns,
    faint_demons_checked_as_ghosts,
    knot_reach,
    longest_run_along,
    on_cord_share,
    trace_with_cords,
    without_faint_ghosts_checked_away,
    without_marked_pawns,
)
from vision.creatures import (
    FAINTLY_SEEN,
    MAYBE_MISSED,
    NOT_A_PAWN,
    SEVERAL_PAWNS_WIDTH,
    SHAPE_ONLY,
    TOUCHING_PAWNS,
    Pawns,
    Remark,
    SeenPawn,
)
from vision.crossings import CORD_REACH_WIDTHS, CORD_SURE, NEAR_MARGIN_WIDTHS
from vision.demon_check import CLEAR_OF_DEMON
from vision.detect import (
    CLOSER_LOOK,
    FAINT_TWIN_BELOW,
    FAINT_TWIN_WITHIN,
    INPUT_ZOOM,
    KNOT,
    OBJECTS,
    RESIZE_BEYOND,
    SAME_PAWN,
    SMALLER_PAWNS,
    SURE_MARK,
    TWICE_MARKED_FROM,
    TWICE_MARKED_WITHIN,
    WIDEN_BEYOND,
    Detection,
    Detections,
    _measured_ratio,
    _pawns_told_apart,
    _turned,
    _turned_back,
    cords_near,
    detect,
    detect_at_measured_width,
    detect_checking_size,
    detector_input,
    foot_in_views,
    input_scale,
    knots_at_training_size,
    load_detector,
    look_again,
    marked_once,
    one_mark_per_pawn,
    peaks,
)
from vision.doubts import is_unsure, missed_pawn_places, missed_pawn_warning, no_knot_warning
from vision.errors import ReadError
from vision.ghost_check import CLEAR_OF_GHOST
from vision.load import Photo, load_photo
from vision.networks import COLOUR_OF_LEVEL, RELATIVE_OF_PAIR
from vision.pawn_size import (
    CROP_PAWNS,
    CROP_PX,
    LEAST_PAWNS_FOR_PLANE,
    PLANE_WIDTH_LIMITS,
    load_sizer,
    place_crop,
    sizer_input,
    width_ratios,
    widths_on_table,
)
from vision.reader import (
    EDGE_OF_REACH,
    FOOT_SHIFT,
    MOST_OWN_WIDTH,
    MOST_SIZED_WIDTH,
    OWN_SIZE_MARGIN,
    OWN_SIZE_REACH,
    OWN_WIDTH_DOUBT,
    PAWN_WIDTH_DOUBT,
    SNUG_SPOT_REACH,
    locate_in_photo,
    off_board_by_own_width,
    place,
)
from vision.separate import Separation
from vision.trace import Loop, Loops, too_short, trace_each

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


def sample_with_truth(name: str, finishes: bool = True) -> tuple[Photo, dict, float]:
    """A sample photo at working resolution, its truth, and the truth's pawn width in
    working pixels. ``finishes=False``: the sample as it was made before lacquered pawns
    and pale tables, the photo a test's case was found on, pixel for pixel (the
    committed samples since have lacquered pawns and a pale mat)."""
    photo, truth = _committed_sample(name) if finishes else _sample_before_finishes(name)
    width = float(np.median([c["pawn_px"] for c in truth["creatures"]])) / photo.scale
    return photo, truth, width


def _committed_sample(name: str) -> tuple[Photo, dict]:
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text())
    return load_photo(SAMPLES / f"{name}.jpg"), truth


@functools.cache
def _sample_before_finishes(name: str) -> tuple[Photo, dict]:
    """Made once and shared by the tests that ask: they must not change what it gives."""
    committed = json.loads((SAMPLES / f"{name}.truth.json").read_text())
    scene = committed["scene"]
    size = (committed["image"]["width"], committed["image"]["height"])
    made = make_photo(scene["seed"], scene["difficulty"], size, finishes=False)
    return load_photo(made.jpeg), made.truth


def in_working_pixels(photo: Photo, xy: list[float]) -> tuple[float, float]:
    """A point of the original photo in ``photo``'s working pixels."""
    return ((xy[0] + 0.5) / photo.scale - 0.5, (xy[1] + 0.5) / photo.scale - 0.5)


# --- decoding the network's maps --------------------------------------------------------


def maps_with_peak(obj: str, at: tuple[int, int], offset: tuple[float, float]) -> np.ndarray:
    """Network output of 20 x 30 output pixels with one peak (logit 4) for ``obj``."""
    output = np.full((len(OBJECTS) + 2, 20, 30), -8.0, np.float32)
    x, y = at
    output[OBJECTS.index(obj), y, x] = 4.0
    output[OBJECTS.index(obj), y, x + 1] = 1.0  # a shoulder, not a second peak
    output[-2, y, x], output[-1, y, x] = offset
    return output


def test_a_peak_is_decoded_at_its_pixel_plus_offset_in_input_pixels() -> None:
    found = peaks(maps_with_peak("green", (10, 5), (0.25, -0.5)), stride=2)
    assert len(found) == 1
    obj, score, (x, y) = found[0]
    assert obj == "green"
    assert score == pytest.approx(1 / (1 + math.exp(-4.0)))
    # Output pixel 10 covers input pixels 20 and 21: its centre is 20.5.
    assert (x, y) == pytest.approx(((10 + 0.5 + 0.25) * 2 - 0.5, (5 + 0.5 - 0.5) * 2 - 0.5))


def test_weak_peaks_are_not_reported() -> None:
    output = maps_with_peak("knot", (3, 3), (0.0, 0.0))
    output[OBJECTS.index("knot"), 3, 3:5] = -3.0  # probability 0.05
    assert peaks(output, stride=2) == []


def test_peaks_refuse_maps_of_another_shape() -> None:
    with pytest.raises(ValueError, match="output maps"):
        peaks(np.zeros((3, 10, 10), np.float32), stride=2)


def test_the_input_is_colour_and_colour_against_the_table() -> None:
    image = np.full((64, 80, 3), (150, 120, 90), np.uint8)
    image[30:34, 40:44] = (250, 250, 250)
    channels = detector_input(image, pawn_px=16.0)
    assert channels.shape == (6, 64, 80)
    # The table is itself: no difference; the white patch is lighter than the table.
    assert np.abs(channels[3:, 5, 5]).max() < 1e-3
    assert (channels[3:, 31, 41] > 0.1).all()
    assert channels[:3, 5, 5] == pytest.approx(np.array([150, 120, 90]) / 255 - 0.5, abs=1e-6)


def test_the_input_is_the_colour_and_its_log_ratio_to_the_table_for_every_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The channels come from look-up tables: they must be what the formulas give, for
    # all 256 levels of the photo against all levels of the table (looked up in two
    # bands of rows, one a thread).
    monkeypatch.setattr(parallel, "WORKERS", 2)
    levels = np.arange(256, dtype=np.uint8)
    image = np.stack(np.meshgrid(levels, levels), axis=-1)[..., [0, 1, 0]]
    image = np.ascontiguousarray(np.repeat(np.repeat(image, 2, axis=0), 2, axis=1))
    channels = detector_input(image, pawn_px=16.0)
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    table = cv2.resize(cv2.medianBlur(small, 17), (w, h), interpolation=cv2.INTER_LINEAR)
    colour = image.astype(np.float32) / 255.0
    ratio = np.log(colour + 0.02) - np.log(table.astype(np.float32) / 255.0 + 0.02)
    expected = np.concatenate([colour - 0.5, np.clip(0.5 * ratio, -1.5, 1.5)], axis=2)
    assert channels.dtype == np.float32
    np.testing.assert_array_equal(channels, expected.transpose(2, 0, 1))
    # A median table follows a smooth image: every pair of levels, clipping included,
    # through a photo whose table is one grey.
    for table_level in (0, 128, 255):
        photo = np.full((32, 256 * 4, 3), table_level, np.uint8)
        photo[14:18, :, :] = np.repeat(levels, 4)[None, :, None]  # a thin line of each level
        channels = detector_input(photo, pawn_px=16.0)
        relative = channels[3, 16, ::4]
        log = np.log(levels.astype(np.float32) / 255.0 + 0.02)
        table = np.log(np.float32(table_level) / 255.0 + 0.02)
        np.testing.assert_array_equal(relative, np.clip(0.5 * (log - table), -1.5, 1.5))
        assert (relative == 1.5).any() or (relative == -1.5).any() or table_level == 128


def test_detect_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="pawn_width"):
        detect(np.zeros((50, 50, 3), np.uint8), 0.0)
    with pytest.raises(ValueError, match="uint8"):
        detect(np.zeros((50, 50), np.uint8), 20.0)
    with pytest.raises(ValueError, match="zoom"):
        detect(np.zeros((50, 50, 3), np.uint8), 20.0, zoom=0.0)


# --- the bundled model on a sample photo --------------------------------------------------


@pytest.fixture(scope="module")
def sample_reading() -> tuple[Detections, dict, float]:
    photo, truth, width = sample_with_truth("02_easy_cloth")
    return detect(photo.rgb, width), truth, photo.scale


def test_the_model_marks_every_pawn_of_a_sample_at_its_foot(sample_reading) -> None:
    detections, truth, scale = sample_reading
    marks = one_mark_per_pawn(detections.pawns(min_score=0.5), detections.pawn_width)
    for creature in truth["creatures"]:
        foot = ((creature["xy"][0] + 0.5) / scale - 0.5, (creature["xy"][1] + 0.5) / scale - 0.5)
        near = [m for m in marks if math.dist(m.xy, foot) < 0.3 * detections.pawn_width]
        assert len(near) == 1, f"creature {creature['id']} marked {len(near)} times"
        colour = creature["colour"]
        assert near[0].colour == colour
        assert near[0].kind == (GHOST if colour == "white" else DEMON)
    assert len(marks) == len(truth["creatures"])


def test_the_model_marks_every_knot_of_a_sample(sample_reading) -> None:
    detections, truth, scale = sample_reading
    knots = detections.knots(min_score=0.3)
    for colour, line in truth["lines"].items():
        x, y = ((v + 0.5) / scale - 0.5 for v in line["knot"])
        assert any(math.dist(k.xy, (x, y)) < 0.3 * detections.pawn_width for k in knots), colour


def test_the_model_says_where_the_cords_are(sample_reading) -> None:
    detections, truth, scale = sample_reading
    if not load_detector().cords:
        pytest.skip("the bundled model marks no cords")
    for colour, line in truth["lines"].items():
        points = (np.asarray(line["polyline"]) + 0.5) / scale - 0.5
        inside = (points[:, 0] >= 0) & (points[:, 1] >= 0)
        sure = detections.cords[colour][
            points[inside, 1].astype(int), points[inside, 0].astype(int)
        ]
        # Most of the cord's centre line is marked (pawns and the cords above hide some).
        assert np.mean(sure >= 128) > 0.7, colour


def sure_pixels_off_the_cord(
    sure: np.ndarray, origin: tuple[int, int], ring: LinearRing, crossing: tuple[float, float],
    string_width: float,
) -> float:
    """How far (string widths) the pixels a cord map is sure of lie from the cord, on
    average weighted by how sure, between 1.5 and 8 string widths of a crossing (the
    stretch the settle stage fits)."""
    rows, columns = np.nonzero(sure >= CORD_SURE)
    pixels = np.column_stack([columns + origin[0], rows + origin[1]]).astype(float)
    from_crossing = np.linalg.norm(pixels - crossing, axis=1) / string_width
    kept = (from_crossing > 1.5) & (from_crossing < 8)
    off = np.array([ring.distance(ShapelyPoint(p)) for p in pixels[kept]])
    weights = sure[rows, columns][kept].astype(float) - CORD_SURE + 1
    return float(weights @ off / weights.sum()) / string_width


def test_a_closer_look_sees_a_cord_of_the_tables_hue_nearer_where_it_runs() -> None:
    """On green felt the first look's map of the green cord takes in its shadow beside
    it; a closer look round each of its crossings marks the cord's own band. (Sample
    06: the sure pixels a median 0.54 string widths off the cord on the first look,
    0.34 on the closer one.)"""
    if not load_detector().cords:
        pytest.skip("the bundled model marks no cords")
    photo, truth, width = sample_with_truth("06_hard_green_felt")
    first = detect(photo.rgb, width)
    string_width = width / 8  # a pawn is about eight string widths wide
    points = [in_working_pixels(photo, xy) for xy in truth["lines"]["green"]["polyline"]]
    ring = LinearRing(points)
    first_off, closer_off = [], []
    for crossing in truth["crossings"]:
        if "green" not in crossing["lines"]:
            continue
        xy = in_working_pixels(photo, crossing["xy"])
        reach = (CORD_REACH_WIDTHS + NEAR_MARGIN_WIDTHS) * string_width
        near = cords_near(photo.rgb, xy, reach, width)
        first_off.append(
            sure_pixels_off_the_cord(first.cords["green"], (0, 0), ring, xy, string_width)
        )
        closer_off.append(
            sure_pixels_off_the_cord(near.maps["green"], near.origin, ring, xy, string_width)
        )
    assert len(first_off) >= 5
    assert np.median(closer_off) < 0.8 * np.median(first_off)


def test_a_closer_look_gives_maps_of_its_part_of_the_photo_only() -> None:
    if not load_detector().cords:
        pytest.skip("the bundled model marks no cords")
    photo, truth, width = sample_with_truth("02_easy_cloth")
    height, across = photo.rgb.shape[:2]
    near = cords_near(photo.rgb, (100.5, 60.0), 40.0, width)
    assert near.origin == (60, 20)
    assert {sure.shape for sure in near.maps.values()} == {(81, 81)}
    # Round a crossing: pixel for pixel the detector's maps of that part, looked at so
    # closely, and sure of both its cords.
    crossing = truth["crossings"][0]
    x, y = in_working_pixels(photo, crossing["xy"])
    near = cords_near(photo.rgb, (x, y), 40.0, width)
    left, top = near.origin
    assert (left, top) == (math.floor(x - 40), math.floor(y - 40))
    box = (slice(top, top + 81), slice(left, left + 81))
    looked = detect(photo.rgb, width, box=box, zoom=CLOSER_LOOK * INPUT_ZOOM)
    for colour, sure in near.maps.items():
        assert np.array_equal(sure, looked.cords[colour][box])
    assert all(near.maps[colour].max() >= CORD_SURE for colour in crossing["lines"])
    # Cut at the photo's edges, and empty wholly beyond them.
    corner = cords_near(photo.rgb, (across - 10.0, 5.0), 40.0, width)
    assert corner.origin == (across - 50, 0)
    assert {sure.shape for sure in corner.maps.values()} == {(46, 50)}
    assert cords_near(photo.rgb, (across + 100.0, 5.0), 40.0, width).maps == {}
    for reach, pawn_width, xy, named in [
        (0.0, width, (10.0, 10.0), "reach"),
        (40.0, -1.0, (10.0, 10.0), "pawn_width"),
        (40.0, width, (math.nan, 10.0), "xy"),
    ]:
        with pytest.raises(ValueError, match=named):
            cords_near(photo.rgb, xy, reach, pawn_width)


def test_a_photo_looked_at_for_pawns_twice_their_size_is_looked_at_again() -> None:
    """The colour rules may take pawns with their shadows for pawns twice their size
    (seen on far-camera photos): the detector then marks mostly faintly, looks again
    for smaller pawns, and keeps that look."""
    photo, truth, width = sample_with_truth("02_easy_cloth")
    # (The network is given pawns INPUT_ZOOM larger than a width says.)
    large = 2.2 * INPUT_ZOOM * width
    too_large = detect(photo.rgb, large)
    assert len(too_large.pawns(min_score=SURE_MARK)) < len(truth["creatures"]) / 2
    checked = detect_checking_size(photo.rgb, large)
    assert checked.pawn_width == pytest.approx(SMALLER_PAWNS * large)
    assert len(checked.pawns(min_score=SURE_MARK)) >= len(truth["creatures"]) - 1
    # At the right size one look is enough.
    assert detect_checking_size(photo.rgb, width).pawn_width == width
    # Far too large (a width guessed from the strings), it looks smaller twice.
    twice = detect_checking_size(photo.rgb, 3.4 * INPUT_ZOOM * width)
    assert twice.pawn_width == pytest.approx(SMALLER_PAWNS**2 * 3.4 * INPUT_ZOOM * width)
    assert len(twice.pawns(min_score=SURE_MARK)) >= len(truth["creatures"]) - 1


def test_a_smaller_look_whose_pawns_measure_wider_than_it_looked_for_is_not_kept(
    monkeypatch,
) -> None:
    """Where the sizer measures the pawns at the smaller look's surest marks more than
    RESIZE_BEYOND times as wide as it looked for, the first look's width was about
    right: what the smaller look marked surely were knots and parts of pawns."""
    photo, truth, width = sample_with_truth("02_easy_cloth")
    large = 2.2 * INPUT_ZOOM * width
    for said, kept in ((RESIZE_BEYOND + 0.1, large), (1.0, SMALLER_PAWNS * large)):
        monkeypatch.setattr(
            "vision.detect.width_ratios", lambda rgb, feet, w, sizer=None, r=said: [r] * len(feet)
        )
        assert detect_checking_size(photo.rgb, large).pawn_width == pytest.approx(kept), said


@pytest.mark.parametrize("turn", range(8))
def test_a_point_of_a_turned_view_is_turned_back_to_where_it_was(turn: int) -> None:
    image = np.zeros((30, 50, 3), np.uint8)
    image[7, 41] = 255  # row 7, column 41: (x, y) = (41, 7)
    view = _turned(image, turn)
    [y], [x] = np.nonzero(view[:, :, 0])
    assert _turned_back((float(x), float(y)), turn, view.shape) == (41.0, 7.0)
    assert view.flags["C_CONTIGUOUS"]


def test_a_faint_mark_on_a_pawn_is_marked_in_most_views_and_one_on_bare_table_is_not() -> None:
    photo, truth, width = sample_with_truth("02_easy_cloth")

    # Bare table: points at least four pawn widths from every creature and cord.
    things = [in_working_pixels(photo, c["xy"]) for c in truth["creatures"]] + [
        in_working_pixels(photo, p) for line in truth["lines"].values() for p in line["polyline"]
    ]
    height, width_px = photo.rgb.shape[:2]
    margin = int(6 * width)
    bare = [
        (float(x), float(y))
        for y in range(margin, height - margin, int(width))
        for x in range(margin, width_px - margin, int(width))
        if all(math.dist((x, y), t) > 4 * width for t in things)
    ]
    assert len(bare) >= 5
    for creature in truth["creatures"][:12]:
        on_pawn = mark(creature["colour"], in_working_pixels(photo, creature["xy"]), 0.3)
        again = look_again(photo.rgb, on_pawn, width)
        assert (again.xy, again.colour, again.views) == (on_pawn.xy, on_pawn.colour, 8)
        # Clear pawns: marked in every view (0.6-0.8 here).
        assert again.score >= 0.5, creature["id"]
        # The same place marked in another colour is not that colour's pawn.
        other = "white" if creature["colour"] != "white" else "red"
        assert look_again(photo.rgb, mark(other, on_pawn.xy, 0.3), width).score < 0.2
    for xy in bare[:: max(1, len(bare) // 5)]:
        assert look_again(photo.rgb, mark("blue", xy, 0.3), width).score < 0.2
    # A pawn near the photo's edge: the place round it is cut there, and the views are
    # turned back to the photo's pixels all the same.
    creature = truth["creatures"][0]
    x, y = in_working_pixels(photo, creature["xy"])
    left, top = int(x - 1.2 * width), int(y - 1.5 * width)
    corner = np.ascontiguousarray(photo.rgb[top:, left:])
    at_edge = mark(creature["colour"], (x - left, y - top), 0.3)
    assert look_again(corner, at_edge, width).score >= 0.5
    # A mark off the photo has no pawn round it.
    off = mark(creature["colour"], (-3 * width, y), 0.3)
    assert look_again(photo.rgb, off, width).score == 0.0
    with pytest.raises(ValueError, match="width"):
        look_again(photo.rgb, at_edge, 0.0)


def test_a_pawns_foot_by_the_eight_views_is_nearer_its_truth_than_by_one_look() -> None:
    """The network gives a foot on a coarse grid; on one steep photo the eight views'
    mean is nearer the truth's foot than the one look's (medians 0.042 against 0.077
    pawn widths), and never far off. (With the pawns lacquered, as the sample is now:
    0.071 against 0.096.)"""
    photo, truth, width = sample_with_truth("08_hard_steep_side_light", finishes=False)
    found = detect(photo.rgb, width).found
    one_look, eight_views = [], []
    for creature in truth["creatures"]:
        true_foot = in_working_pixels(photo, creature["xy"])
        kind = GHOST if creature["colour"] == "white" else DEMON
        near = [
            d
            for d in found
            if (d.kind, d.colour) == (kind, creature["colour"])
            and math.dist(d.xy, true_foot) < SAME_PAWN * width
        ]
        if not near:
            continue
        marked = max(near, key=lambda d: d.score)
        foot = foot_in_views(photo.rgb, marked, width)
        assert foot is not None, creature["id"]
        one_look.append(math.dist(marked.xy, true_foot) / width)
        eight_views.append(math.dist(foot, true_foot) / width)
    assert len(one_look) >= 10
    assert np.median(eight_views) < 0.7 * np.median(one_look)
    assert max(eight_views) < 0.15


def test_a_foot_by_the_eight_views_needs_a_pawn_there_and_a_pawns_mark() -> None:
    photo, truth, width = sample_with_truth("02_easy_cloth")
    creature = truth["creatures"][0]
    x, y = in_working_pixels(photo, creature["xy"])
    # Bare table far from every creature and cord: no view marks a pawn.
    things = [in_working_pixels(photo, c["xy"]) for c in truth["creatures"]] + [
        in_working_pixels(photo, p) for line in truth["lines"].values() for p in line["polyline"]
    ]
    bare_places = [
        (float(bx), float(by))
        for by in range(int(6 * width), photo.rgb.shape[0], int(width))
        for bx in range(int(6 * width), photo.rgb.shape[1], int(width))
        if all(math.dist((bx, by), t) > 4 * width for t in things)
    ]
    assert bare_places, "no bare table on this sample"
    bare = bare_places[0]
    assert foot_in_views(photo.rgb, mark("blue", bare, 0.3), width) is None
    # Far off the photo: no room round it.
    assert foot_in_views(photo.rgb, mark(creature["colour"], (-7 * width, y), 0.3), width) is None
    with pytest.raises(ValueError, match="width"):
        foot_in_views(photo.rgb, mark(creature["colour"], (x, y), 0.3), float("nan"))
    with pytest.raises(ValueError, match="knot"):
        foot_in_views(photo.rgb, Detection(KNOT, "", (x, y), 0.5), width)


def test_a_pawn_marked_at_its_base_and_its_head_keeps_its_stronger_mark() -> None:
    """With the width read low, a pawn may be marked twice; the wider look marks one."""
    photo, truth, true_width = sample_with_truth("02_easy_cloth")
    width = 0.77 * true_width
    for creature in truth["creatures"][:8]:
        x, y = in_working_pixels(photo, creature["xy"])
        base = mark(creature["colour"], (x, y), 0.8)
        head = mark(creature["colour"], (x, y - 0.6 * width), 0.45)
        knot = mark("", (x + 0.6 * width, y), 0.3)
        found = marked_once(photo.rgb, Detections([base, head, knot], width))
        assert found.found == [base, knot], creature["id"]
        assert found.pawn_width == width


#: The samples with one pair of touching pawns of a colour.
TOUCHING_SAMPLES = ["04_normal_white_table", "07_hard_blue_mat", "08_hard_steep_side_light"]


def touching_pair(name: str) -> tuple[Photo, float, Detection, Detection]:
    """The sample photo ``name``, its pawn width and marks (0.9 and 0.5) at the feet of
    its one pair of touching pawns of a colour."""
    photo, truth, width = sample_with_truth(name)
    creatures = truth["creatures"]
    [(first, second)] = [
        (a, b)
        for i, a in enumerate(creatures)
        for b in creatures[i + 1 :]
        if a["colour"] == b["colour"]
        and math.dist(a["xy"], b["xy"]) / photo.scale < 1.1 * width
    ]
    stronger = mark(first["colour"], in_working_pixels(photo, first["xy"]), 0.9)
    fainter = mark(second["colour"], in_working_pixels(photo, second["xy"]), 0.5)
    return photo, width, stronger, fainter


@pytest.mark.parametrize("name", TOUCHING_SAMPLES)
def test_two_touching_pawns_of_a_colour_stay_two_with_the_width_read_high(name: str) -> None:
    photo, true_width, first, second = touching_pair(name)
    for read_high in (1.4, 1.6):
        width = read_high * true_width
        marks = [first, second]
        distance = math.dist(marks[0].xy, marks[1].xy) / width
        assert SAME_PAWN <= distance < TWICE_MARKED_WITHIN  # the two are looked at
        assert marked_once(photo.rgb, Detections(marks, width)).found == marks


@pytest.mark.parametrize("name", TOUCHING_SAMPLES)
def test_a_faint_mark_beside_two_touching_pawns_is_put_to_the_nearer(name: str) -> None:
    """A faint mark 0.6 widths from the fainter of two touching pawns of its colour
    and 0.9 from the stronger is that nearer pawn's second mark, as when only marks
    under TWICE_MARKED_WITHIN were looked at: the farther reach (FAINT_TWIN_WITHIN)
    does not put it to the stronger pawn, which the wider look shows as two pawns."""
    photo, width, stronger, nearer = touching_pair(name)
    # Where circles of 0.9 widths round the stronger and 0.6 round the nearer meet.
    (ax, ay), (bx, by) = stronger.xy, nearer.xy
    apart = math.dist(stronger.xy, nearer.xy)
    to_a, to_b = 0.9 * width, 0.6 * width
    along = (apart**2 + to_a**2 - to_b**2) / (2 * apart)
    aside = math.sqrt(to_a**2 - along**2)
    ux, uy = (bx - ax) / apart, (by - ay) / apart
    faint = mark(nearer.colour, (ax + along * ux - aside * uy, ay + along * uy + aside * ux), 0.3)
    assert TWICE_MARKED_WITHIN < math.dist(faint.xy, stronger.xy) / width < FAINT_TWIN_WITHIN
    assert marked_once(photo.rgb, Detections([stronger, nearer, faint], width)).found == [
        stronger,
        nearer,
    ]


def test_only_marks_of_one_kind_and_colour_near_enough_and_strong_enough_are_looked_at() -> None:
    """Round a real pawn, a second mark of its kind and colour is dropped only from
    SAME_PAWN up to TWICE_MARKED_WITHIN pawn widths (a mark from FAINT_TWIN_BELOW; a
    fainter one up to FAINT_TWIN_WITHIN) and from TWICE_MARKED_FROM (nearer marks are
    one pawn already, by one_mark_per_pawn)."""
    photo, truth, true_width = sample_with_truth("02_easy_cloth")
    width = 0.77 * true_width
    [demon] = [c for c in truth["creatures"] if c["kind"] == DEMON][:1]
    x, y = in_working_pixels(photo, demon["xy"])
    colour = demon["colour"]
    other_colour = next(c for c in LINE_COLOURS if c != colour)
    strong = mark(colour, (x, y), 0.9)
    kept = [
        mark(colour, (x + (SAME_PAWN - 0.05) * width, y), 0.5),
        mark(colour, (x, y + (TWICE_MARKED_WITHIN + 0.05) * width), 0.5),
        mark(colour, (x - 0.6 * width, y), TWICE_MARKED_FROM - 0.01),
        mark(other_colour, (x, y - 0.6 * width), 0.5),
    ]
    detections = Detections([strong, *kept], width)
    assert marked_once(photo.rgb, detections) is detections
    twin = mark(colour, (x, y - 0.6 * width), TWICE_MARKED_FROM)
    assert marked_once(photo.rgb, Detections([strong, *kept, twin], width)).found == [
        strong,
        *kept,
    ]


def test_a_faint_mark_farther_from_a_pawn_is_looked_at_as_its_head() -> None:
    """A tall pawn seen steeply is marked faintly at its head up to FAINT_TWIN_WITHIN
    pawn widths from its base: such a mark under FAINT_TWIN_BELOW is looked at and
    dropped; a surer mark at the same place is not looked at (a second pawn touching
    the first is most often marked surely), nor a faint mark beyond FAINT_TWIN_WITHIN."""
    photo, truth, true_width = sample_with_truth("02_easy_cloth")
    width = 0.77 * true_width
    [demon] = [c for c in truth["creatures"] if c["kind"] == DEMON][:1]
    x, y = in_working_pixels(photo, demon["xy"])
    strong = mark(demon["colour"], (x, y), 0.9)
    head = (x, y - (TWICE_MARKED_WITHIN + FAINT_TWIN_WITHIN) / 2 * width)
    faint = mark(demon["colour"], head, FAINT_TWIN_BELOW - 0.05)
    assert marked_once(photo.rgb, Detections([strong, faint], width)).found == [strong]
    surer = Detections([strong, mark(demon["colour"], head, FAINT_TWIN_BELOW)], width)
    assert marked_once(photo.rgb, surer) is surer
    beyond = mark(
        demon["colour"], (x, y - (FAINT_TWIN_WITHIN + 0.05) * width), FAINT_TWIN_BELOW - 0.05
    )
    farther = Detections([strong, beyond], width)
    assert marked_once(photo.rgb, farther) is farther


def test_knot_marks_of_another_look_join_the_marks_the_stronger_of_two_kept() -> None:
    pawn = mark("red", (50.0, 50.0), 0.9)
    # Strongest first, as the detector gives them.
    first = Detections([pawn, mark("", (300.0, 100.0), 0.6), mark("", (100.0, 100.0), 0.3)], WIDTH)
    more = [
        mark("", (102.0, 101.0), 0.5),
        mark("", (301.0, 99.0), 0.4),
        mark("", (500.0, 90.0), 0.2),
    ]
    both = first.with_knots(more, SAME_PAWN * WIDTH)
    assert [(m.xy, m.score) for m in both.knots(0.0)] == [
        ((300.0, 100.0), 0.6),
        ((102.0, 101.0), 0.5),
        ((500.0, 90.0), 0.2),
    ]
    assert both.pawns(0.0) == [pawn]
    assert [m.score for m in both.found] == sorted((m.score for m in both.found), reverse=True)
    assert first.with_knots([], WIDTH) == first


def test_knots_are_looked_for_at_the_networks_own_size_round_given_places() -> None:
    photo, truth, width = sample_with_truth("02_easy_cloth")
    knots = [in_working_pixels(photo, line["knot"]) for line in truth["lines"].values()]
    found = knots_at_training_size(photo.rgb, knots, width)
    assert [m.score for m in found] == sorted((m.score for m in found), reverse=True)
    assert all(m.kind == KNOT for m in found)
    for knot in knots:
        near = [m for m in found if math.dist(m.xy, knot) < 0.3 * width]
        assert near and near[0].score >= 0.3, knot
    # Only marks within a pawn width of a place are given (in the photo's pixels, the
    # place cut at the photo's edge all the same) ...
    x, y = knots[0]
    left, top = int(x - 1.2 * width), int(y - 1.5 * width)
    assert left >= 0 and top >= 0
    corner = np.ascontiguousarray(photo.rgb[top:, left:])
    at_edge = knots_at_training_size(corner, [(x - left, y - top)], width)[0]
    assert math.dist(at_edge.xy, (x - left, y - top)) < 0.3 * width
    # ... so looking three pawn widths beside each knot finds none of them.
    aside = [(kx + 3 * width, ky) for kx, ky in knots]
    for m in knots_at_training_size(photo.rgb, aside, width):
        assert min(math.dist(m.xy, k) for k in knots) > width
    assert knots_at_training_size(photo.rgb, [], width) == []
    # A second look makes no cord maps, and marks the same.
    (top, bottom), (left, right) = (
        (int(y - 6 * width), int(y + 6 * width)),
        (
            int(x - 6 * width),
            int(x + 6 * width),
        ),
    )
    place = np.ascontiguousarray(photo.rgb[max(top, 0) : bottom, max(left, 0) : right])
    plain = detect(place, width, with_cords=False)
    assert plain.cords == {}
    assert plain.found == detect(place, width).found
    with pytest.raises(ValueError, match="width"):
        knots_at_training_size(photo.rgb, knots, 0.0)


# --- the sizer: how wide the marked pawns are ---------------------------------------------


def test_a_place_is_cut_out_so_that_a_pawn_of_the_width_looked_for_is_16_pixels() -> None:
    rgb = np.full((400, 600, 3), 200, np.uint8)
    cv2.circle(rgb, (300, 200), 20, (200, 30, 30), -1)  # a disc 41 px wide
    crop = place_crop(rgb, (300, 200), 41.0)
    assert crop.shape == (CROP_PX, CROP_PX, 3)
    red = (crop[:, :, 1] < 115).any(axis=0)
    assert red.sum() == pytest.approx(CROP_PX / CROP_PAWNS, abs=1.5)
    assert abs(np.flatnonzero(red).mean() - CROP_PX / 2) < 1.0  # in the middle


def test_a_place_at_the_photos_edge_is_cut_out_with_the_edge_repeated() -> None:
    rgb = np.zeros((100, 100, 3), np.uint8)
    rgb[:, 0] = 255  # the left column white
    crop = place_crop(rgb, (0, 50), 20.0)
    assert crop.shape == (CROP_PX, CROP_PX, 3)
    assert crop[:, : CROP_PX // 2 - 1].min() == 255  # beyond the edge: its column again
    assert crop[:, CROP_PX // 2 + 4 :].max() == 0


def test_the_sizers_input_is_colour_and_colour_against_the_crops_median() -> None:
    crops = np.full((2, CROP_PX, CROP_PX, 3), 100, np.uint8)
    crops[1, :10] = 200
    channels = sizer_input(crops)
    assert channels.shape == (2, 6, CROP_PX, CROP_PX)
    assert np.allclose(channels[:, :3, 20], 100 / 255 - 0.5)
    assert np.allclose(channels[:, 3:, 20], 0.0)  # as the table
    assert (channels[1, 3:, :10] > 0.3).all()  # brighter than it
    with pytest.raises(ValueError, match="uint8"):
        sizer_input(crops.astype(np.float32))


@pytest.mark.parametrize("size", [CROP_PX, 8, 7])
def test_the_sizers_table_level_is_each_crops_median_rounded(size: int) -> None:
    """The median of each crop's channel, from its histogram, is numpy's (the mean of
    the two middle levels of an even count, then rounded half to even), so the input
    is the same as one made with ``np.median``: crops of a few levels make ties."""
    rng = np.random.default_rng(size)
    for high in (256, 3):
        crops = rng.integers(0, high, (6, size, size, 3), dtype=np.uint8)
        crops[0, : size // 2] = 10  # half 10, half 11: a median of 10.5, rounded to 10
        crops[0, size // 2 :] = 11
        crops[1] = 200  # one level
        table = np.round(np.median(crops, axis=(1, 2))).astype(np.uint16)
        pair = (crops.astype(np.uint16) << 8) | table[:, None, None, :]
        expected = np.concatenate([COLOUR_OF_LEVEL[crops, 0], RELATIVE_OF_PAIR[pair]], axis=3)
        assert np.array_equal(sizer_input(crops), expected.transpose(0, 3, 1, 2))


def test_place_crop_refuses_a_width_that_is_no_width() -> None:
    rgb = np.zeros((50, 50, 3), np.uint8)
    for width in (0.0, -3.0, float("nan")):
        with pytest.raises(ValueError, match="positive"):
            place_crop(rgb, (10, 10), width)
        with pytest.raises(ValueError, match="pawns must be a positive"):
            place_crop(rgb, (10, 10), 10.0, pawns=width)


def test_place_crop_spans_as_many_pawn_widths_as_asked() -> None:
    # A bright square 10 px wide in the middle: across 5 widths of 10 px it fills a fifth
    # of the crop's side, across 2.5 widths two fifths.
    rgb = np.zeros((200, 200, 3), np.uint8)
    rgb[95:105, 95:105] = 255
    wide = place_crop(rgb, (100, 100), 10.0)
    narrow = place_crop(rgb, (100, 100), 10.0, pawns=2.5)
    share = [np.mean(crop[:, :, 0] > 127) for crop in (wide, narrow)]
    assert share[0] == pytest.approx(1 / 25, abs=0.01)
    assert share[1] == pytest.approx(4 / 25, abs=0.02)


def test_a_sizer_for_other_crops_or_none_at_all_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make sizer"):
        load_sizer(tmp_path / "sizenet.onnx")
    shipped = load_sizer()
    (tmp_path / "sizenet.onnx").write_bytes(shipped.path.read_bytes())
    (tmp_path / "sizenet.json").write_text(json.dumps({"crop_px": 64, "crop_pawns": 5.0}))
    with pytest.raises(ValueError, match="64 px"):
        load_sizer(tmp_path / "sizenet.onnx")


@pytest.mark.parametrize("name", ["03_normal_dark_wood", "08_hard_steep_side_light"])
@pytest.mark.parametrize("read_as", [0.5, 2.0])
def test_the_sizer_measures_a_samples_pawns_whatever_width_was_looked_for(
    name: str, read_as: float
) -> None:
    # (The dark wood's pawns are 16 working pixels wide: measured 0.88 of that at the
    # right width, 0.86 looked for at half of it.)
    assert_sizer_measures(*sample_with_truth(name, finishes=False), read_as)


def test_the_sizer_measures_lacquered_far_pawns_looked_for_at_half_their_width() -> None:
    # The far sample's pawns lacquered, as it is committed. The sizer trained before
    # lacquer measured them 0.78 of their width (ninety-eighth session); trained on the
    # generator with lacquer and windows (ninety-ninth), within a fifth.
    assert_sizer_measures(*sample_with_truth("03_normal_dark_wood"), 0.5)


def assert_sizer_measures(photo: Photo, truth: dict, true_width: float, read_as: float) -> None:
    feet = [in_working_pixels(photo, c["xy"]) for c in truth["creatures"]]
    ratios = width_ratios(photo.rgb, feet, read_as * true_width)
    measured = read_as * true_width * float(np.median(ratios))
    assert measured == pytest.approx(true_width, rel=0.2)


def pawns_on_a_plane(count: int) -> tuple[list[tuple[float, float]], np.ndarray]:
    """``count`` feet spread over a 1000 x 700 photo, and the widths of pawns standing
    there on a table seen at a tilt: 1 / width affine, from 30 to 50 pixels."""
    rng = np.random.default_rng(count)
    feet = [(float(x), float(y)) for x, y in rng.uniform((0, 0), (1000, 700), (count, 2))]
    widths = np.array([1 / (1 / 50 + (1 / 30 - 1 / 50) * y / 700 + 1e-6 * x) for x, y in feet])
    return feet, widths


def test_the_widths_on_the_tables_plane_are_the_pawns_own_where_measured_exactly() -> None:
    feet, widths = pawns_on_a_plane(12)
    assert widths.max() / widths.min() > 1.4
    assert widths_on_table(feet, widths) == pytest.approx(widths, rel=1e-9)


def test_a_pawn_measured_far_off_the_tables_plane_is_left_out_of_its_fit() -> None:
    """A pawn measured with its shadow (1.5 times as wide) is given the plane's width,
    and moves no other pawn's, all measured a little off (2 % either way)."""
    feet, widths = pawns_on_a_plane(16)
    measured = widths * np.where(np.arange(16) % 2, 1.02, 0.98)
    measured[5] *= 1.5
    on_table = widths_on_table(feet, measured)
    assert on_table is not None
    assert on_table == pytest.approx(widths, rel=0.02)
    # Fitted with it, the plane is farther off.
    places = np.column_stack([feet, np.ones(16)])
    plain = np.linalg.lstsq(places, 1 / measured, rcond=None)[0]
    assert np.abs(1 / (places @ plain) / widths - 1).max() > 0.05


def test_too_few_pawns_give_no_plane_and_a_width_that_is_no_width_is_refused() -> None:
    feet, widths = pawns_on_a_plane(LEAST_PAWNS_FOR_PLANE)
    assert widths_on_table(feet[:-1], widths[:-1]) is None
    assert widths_on_table([], []) is None
    with pytest.raises(ValueError, match="widths for"):
        widths_on_table(feet, widths[:-1])
    for wrong in (0.0, -3.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="positive"):
            widths_on_table(feet, [*widths[:-1], wrong])


def test_a_plane_is_not_fitted_where_the_feet_kept_lie_on_one_line_or_too_few_are_kept() -> None:
    feet, widths = pawns_on_a_plane(12)
    on_a_line = [(x, 2 * x + 5) for x, _ in feet]
    assert widths_on_table(on_a_line, widths) is None
    # Half the pawns measured far off the other half: they say nothing of a plane.
    split = widths * np.where(np.arange(12) % 2, 1.0, 1.5)
    assert widths_on_table(feet, split) is None
    with pytest.raises(ValueError, match="finite"):
        widths_on_table([*feet[:-1], (math.nan, 3.0)], widths)


def test_a_plane_keeps_every_width_within_its_limits_of_the_median() -> None:
    """A plane steep enough to make the farthest pawn 40 times narrower than the
    nearest keeps each within PLANE_WIDTH_LIMITS of the median measured, and one
    that gives a foot no positive width gives none."""
    feet = [(float(x), 50.0 * (i % 2)) for i, x in enumerate(range(0, 1000, 100))]
    steep = np.array([1 / (0.001 + 0.04 * x / 1000) for x, _ in feet])
    low, high = PLANE_WIDTH_LIMITS
    on_table = widths_on_table(feet, steep)
    assert on_table is not None
    median = float(np.median(steep))
    assert on_table.min() == pytest.approx(low * median) and on_table.max() == pytest.approx(
        high * median
    )
    assert on_table[3:7] == pytest.approx(steep[3:7])
    # 1 / width fitted through zero between the feet: no plane.
    crossing_zero = [(x, y) for x, y in feet[:6]] + [(1e5, 0.0)] * 6
    widths = [40.0] * 6 + [1 / 1e-9] * 6
    assert widths_on_table(crossing_zero, widths) is None


def test_the_tables_plane_gives_a_steep_samples_pawns_nearer_their_own_widths() -> None:
    """On a steep photo the pawns are 55-73 px wide: the sizer's widths at their feet,
    fitted with the table's plane, are nearer each pawn's own than the photo's one width
    (the truth's median)."""
    photo, truth, width = sample_with_truth("08_hard_steep_side_light")
    feet = [in_working_pixels(photo, c["xy"]) for c in truth["creatures"]]
    own = np.array([c["pawn_px"] for c in truth["creatures"]]) / photo.scale
    assert own.max() / own.min() > 1.25
    measured = width_ratios(photo.rgb, feet, width) * width
    on_table = widths_on_table(feet, measured)
    assert on_table is not None
    error_of_one_width = np.median(np.abs(np.log(width / own)))
    error_on_table = np.median(np.abs(np.log(on_table / own)))
    assert error_on_table < 0.6 * error_of_one_width


def test_a_photo_looked_at_for_pawns_of_a_far_wrong_width_is_looked_at_again() -> None:
    photo, truth, width = sample_with_truth("02_easy_cloth")
    right = detect(photo.rgb, width)
    assert detect_at_measured_width(photo.rgb, right) is right
    for read_as in (0.6, 1.8):
        wrong = detect(photo.rgb, read_as * width)
        again = detect_at_measured_width(photo.rgb, wrong)
        assert again.pawn_width == pytest.approx(width, rel=0.15)
        marks = one_mark_per_pawn(again.pawns(min_score=SURE_MARK), again.pawn_width)
        assert len(marks) == len(truth["creatures"])


def test_a_width_read_too_narrow_is_mended_sooner_than_one_read_too_wide(monkeypatch) -> None:
    """The sizer measures no pawns much wider than they are (the dev renderer's it
    measures narrow): a width it measures between WIDEN_BEYOND and RESIZE_BEYOND times
    the width looked for is looked at again; the same share narrower is not."""
    photo, truth, width = sample_with_truth("02_easy_cloth")
    said = (WIDEN_BEYOND + RESIZE_BEYOND) / 2
    monkeypatch.setattr(
        "vision.detect.width_ratios", lambda rgb, feet, w, sizer=None: [said] * len(feet)
    )
    narrow = detect(photo.rgb, width / said)
    widened = detect_at_measured_width(photo.rgb, narrow)
    assert widened is not narrow
    assert widened.pawn_width == pytest.approx(width)
    marks = one_mark_per_pawn(widened.pawns(min_score=SURE_MARK), widened.pawn_width)
    assert len(marks) == len(truth["creatures"])
    monkeypatch.setattr(
        "vision.detect.width_ratios", lambda rgb, feet, w, sizer=None: [1 / said] * len(feet)
    )
    wide = detect(photo.rgb, width * said)
    assert _measured_ratio(photo.rgb, wide) == pytest.approx(1 / said)  # the sizer asked
    assert detect_at_measured_width(photo.rgb, wide) is wide


def test_a_new_look_that_marks_fewer_pawns_surely_is_not_kept(monkeypatch) -> None:
    """A sizer that measured wrong (here: 2.5 and 0.4 times the width, on a photo
    looked at for the right width) must not cost the photo its pawns. (On the sample's
    lacquered pawns on a pale mat, as it is committed, the look for pawns 0.4 times as
    wide marks 43 pawns surely where the right look tells 40 apart, and is kept: the
    sizer would have to be that far wrong, and never was on a fresh set.)"""
    photo, truth, width = sample_with_truth("07_hard_blue_mat", finishes=False)
    right = detect(photo.rgb, width)
    for said in (2.5, 0.4):
        assert not 1 / RESIZE_BEYOND <= said <= WIDEN_BEYOND
        monkeypatch.setattr(
            "vision.detect.width_ratios", lambda rgb, feet, w, sizer=None, r=said: [r] * len(feet)
        )
        assert detect_at_measured_width(photo.rgb, right) is right


@pytest.mark.xfail(strict=True, reason="lacquered pawns on a pale mat, looked for too narrow")
def test_a_new_look_for_lacquered_pawns_that_marks_fewer_pawns_is_not_kept(monkeypatch) -> None:
    # The committed 07 (lacquered pawns mirroring a window, on a pale mat): a look for
    # pawns 0.4 times as wide marks more pawns surely than the right look tells apart
    # (43 against 40 in the ninety-eighth session), so a sizer that far wrong would be
    # believed. With the detector before the ninety-ninth session's tuning, the window
    # made it pass.
    photo, truth, width = sample_with_truth("07_hard_blue_mat")
    right = detect(photo.rgb, width)
    monkeypatch.setattr(
        "vision.detect.width_ratios", lambda rgb, feet, w, sizer=None: [0.4] * len(feet)
    )
    assert detect_at_measured_width(photo.rgb, right) is right


def test_a_width_measured_where_the_network_gets_its_largest_input_keeps_the_marks() -> None:
    """Below a width the image is given to the network at MAX_INPUT_SIDE whatever the
    width: looking again would mark the same, so only the width is mended."""
    photo, truth, width = sample_with_truth("03_normal_dark_wood", finishes=False)  # pawns 16 px
    model = load_detector()
    size = photo.rgb.shape[:2]
    narrow = 0.6 * width
    assert input_scale(size, narrow, model) == input_scale(size, width, model)  # capped
    wrong = detect(photo.rgb, narrow)
    mended = detect_at_measured_width(photo.rgb, wrong)
    assert mended.found == wrong.found
    assert mended.pawn_width == pytest.approx(width, rel=0.2)


def test_a_pawn_marked_at_its_base_and_its_head_counts_once_when_looks_are_compared() -> None:
    """The first look's pawns, counted at the width measured: a base and a head mark of
    one kind and colour half a width apart are one pawn; two pawns of other colours
    as near, or of one colour a width apart (touching), stay two."""
    width = 40.0
    between = (SAME_PAWN + TWICE_MARKED_WITHIN) / 2 * width
    red_base = Detection(DEMON, "red", (100.0, 100.0), 0.9)
    red_head = Detection(DEMON, "red", (100.0, 100.0 - between), 0.6)
    assert _pawns_told_apart([red_base, red_head], width) == 1
    assert len(one_mark_per_pawn([red_base, red_head], width)) == 2  # what it counted before
    blue = Detection(DEMON, "blue", red_head.xy, 0.6)
    assert _pawns_told_apart([red_base, blue], width) == 2
    ghost = Detection(GHOST, WHITE, red_head.xy, 0.6)
    assert _pawns_told_apart([red_base, ghost], width) == 2
    touching = Detection(DEMON, "red", (100.0 + width, 100.0), 0.8)
    assert _pawns_told_apart([red_base, red_head, touching], width) == 2


def test_a_photo_with_too_few_sure_marks_is_not_measured() -> None:
    blank = np.full((300, 400, 3), 120, np.uint8)
    found = detect(blank, 20.0)
    assert detect_at_measured_width(blank, found) is found


# --- combining the detector's marks with the colour rules' pawns -------------------------

WIDTH = 40.0


def seen(colour: str, xy: tuple[float, float], confidence: float = 0.7) -> SeenPawn:
    kind = GHOST if colour == "white" else DEMON
    return SeenPawn(kind, colour, xy, WIDTH, confidence)


def mark(colour: str, xy: tuple[float, float], score: float) -> Detection:
    kind = KNOT if colour == "" else GHOST if colour == "white" else DEMON
    return Detection(kind, colour, xy, score)


def test_a_pawn_both_see_takes_the_detectors_foot() -> None:
    pawns = Pawns([seen("red", (100.0, 100.0))], WIDTH, [])
    marks = Detections([mark("red", (104.0, 108.0), 0.9)], WIDTH)
    [pawn] = combine_pawns(pawns, marks).pawns
    assert pawn.foot == (104.0, 108.0)
    assert pawn.confidence == 0.9


def test_a_pawn_both_see_takes_the_detectors_colour_when_it_is_sure() -> None:
    pawns = Pawns([seen("yellow", (100.0, 100.0))], WIDTH, [])
    # The detector also marks the rules' yellow demon there, faintly: only a sure
    # mark of another colour wins over the rules.
    yellow_too = [mark("yellow", (101.0, 103.0), 0.15)]
    unsure = Detections([mark("white", (104.0, 108.0), SURE_COLOUR - 0.1), *yellow_too], WIDTH)
    [pawn] = combine_pawns(pawns, unsure).pawns
    assert (pawn.kind, pawn.colour) == (DEMON, "yellow")
    sure = Detections([mark("white", (104.0, 108.0), SURE_COLOUR + 0.1), *yellow_too], WIDTH)
    [pawn] = combine_pawns(pawns, sure).pawns
    assert (pawn.kind, pawn.colour) == (GHOST, "white")


def test_a_pawn_both_see_is_a_ghost_where_the_detector_marks_only_a_ghost() -> None:
    # A ghost under a warm lamp, yellow to the colour rules: the detector marks a
    # ghost there faintly and no yellow demon at all.
    pawns = Pawns([seen("yellow", (100.0, 100.0), confidence=1.0)], WIDTH, [])
    ghost_at = (104.0, 108.0)
    faint = SURE_COLOUR - 0.2
    [pawn] = combine_pawns(pawns, Detections([mark("white", ghost_at, faint)], WIDTH)).pawns
    assert (pawn.kind, pawn.colour) == (GHOST, "white")
    assert pawn.confidence == faint  # only as sure as the mark it was turned on
    # A yellow mark within SAME_PAWN widths of the ghost mark is the rules' demon marked
    # too; one further off is another pawn's, and says nothing of this one.
    for apart, colour in ((SAME_PAWN - 0.1, "yellow"), (SAME_PAWN + 0.1, "white")):
        other = mark("yellow", (ghost_at[0] + apart * WIDTH, ghost_at[1]), 0.15)
        marks = Detections([mark("white", ghost_at, faint), other], WIDTH)
        [pawn] = combine_pawns(pawns, marks).pawns
        assert pawn.colour == colour


def looked_at_by_colour(scores: dict[str, float], looked: list[Detection]):
    """A ``look_again`` that scores a mark by its colour and notes what it looked at."""

    def look(mark: Detection) -> Detection:
        looked.append(mark)
        return Detection(mark.kind, mark.colour, mark.xy, scores.get(mark.colour, 0.0), views=8)

    return look


def test_a_pawn_both_see_is_a_ghost_where_the_eight_views_mark_a_ghost_more() -> None:
    # A ghost under a warm lamp, yellow to the colour rules: the detector marks a ghost
    # there, not surely, and the rules' yellow demon too, more faintly.
    pawns = Pawns([seen("yellow", (100.0, 100.0), confidence=1.0)], WIDTH, [])
    ghost_at = (104.0, 108.0)
    marks = Detections(
        [mark("white", ghost_at, SURE_COLOUR - 0.02), mark("yellow", (101.0, 103.0), 0.3)],
        WIDTH,
    )
    looked: list[Detection] = []
    ghostlier = looked_at_by_colour({"white": 0.5, "yellow": 0.23}, looked)
    [pawn] = combine_pawns(pawns, marks, ghostlier).pawns
    assert (pawn.kind, pawn.colour, pawn.confidence) == (GHOST, "white", 0.5)
    # Both looked at where the ghost was marked.
    assert sorted((m.kind, m.colour, m.xy) for m in looked) == [
        (DEMON, "yellow", ghost_at), (GHOST, "white", ghost_at)
    ]
    # Alike in the views, the ghost too faint there to add, or no second look: the
    # rules' demon stands.
    for scores in (
        {"white": 0.39, "yellow": 0.42},
        {"white": 0.4, "yellow": 0.4},
        # Enough to add a ghost, not to turn the rules' demon into one.
        {"white": (CONFIRMED_GHOST_SCORE + LIKELIER_GHOST_SCORE) / 2, "yellow": 0.1},
    ):
        [pawn] = combine_pawns(pawns, marks, looked_at_by_colour(scores, [])).pawns
        assert (pawn.kind, pawn.colour) == (DEMON, "yellow"), scores
    [pawn] = combine_pawns(pawns, marks).pawns
    assert (pawn.kind, pawn.colour) == (DEMON, "yellow")


def test_a_ghost_both_see_stays_a_ghost_where_the_eight_views_mark_the_ghost_more() -> None:
    # The mirror: a ghost under a harsh side light on the blue mat, sure to the colour
    # rules, marked surer as a yellow demon by the detector, and as a ghost too (1290170).
    pawns = Pawns([seen("white", (100.0, 100.0), confidence=1.0)], WIDTH, [])
    demon_at = (104.0, 108.0)
    marks = Detections(
        [mark("yellow", demon_at, SURE_COLOUR + 0.04), mark("white", (101.0, 103.0), 0.38)],
        WIDTH,
    )
    looked: list[Detection] = []
    ghostlier = looked_at_by_colour({"white": 0.46, "yellow": 0.34}, looked)
    [pawn] = combine_pawns(pawns, marks, ghostlier).pawns
    assert (pawn.kind, pawn.colour, pawn.foot, pawn.confidence) == (GHOST, "white", demon_at, 0.46)
    assert sorted((m.kind, m.colour, m.xy) for m in looked) == [
        (DEMON, "yellow", demon_at), (GHOST, "white", demon_at)
    ]
    # The views marking the demon as much or more, or the ghost under
    # LIKELIER_GHOST_SCORE, or no ghost mark there, or no second look: the demon.
    for scores in (
        {"white": 0.34, "yellow": 0.46},
        {"white": 0.4, "yellow": 0.4},
        {"white": LIKELIER_GHOST_SCORE - 0.01, "yellow": 0.1},
    ):
        [pawn] = combine_pawns(pawns, marks, looked_at_by_colour(scores, [])).pawns
        assert (pawn.kind, pawn.colour) == (DEMON, "yellow"), scores
    no_ghost_mark = Detections([marks.found[0]], WIDTH)
    [pawn] = combine_pawns(pawns, no_ghost_mark, ghostlier).pawns
    assert (pawn.kind, pawn.colour) == (DEMON, "yellow")
    [pawn] = combine_pawns(pawns, marks).pawns
    assert (pawn.kind, pawn.colour) == (DEMON, "yellow")
    # A demon of the table's hue is not put in question (it looks pale on its table);
    # one of another hue is.
    asked: list[Detection] = []
    pale = looked_at_by_colour({"white": 0.46, "yellow": 0.34}, asked)
    [pawn] = combine_pawns(pawns, marks, pale, table_hue_colour="yellow").pawns
    assert (pawn.kind, pawn.colour, pawn.confidence) == (DEMON, "yellow", 1.0)
    assert not any(m.xy == demon_at for m in asked)
    [pawn] = combine_pawns(pawns, marks, ghostlier, table_hue_colour="blue").pawns
    assert (pawn.kind, pawn.colour) == (GHOST, "white")
    # A rules' demon of another colour, marked faintly as itself too, takes the sure
    # mark's, as before.
    red = Pawns([seen("red", (100.0, 100.0), confidence=1.0)], WIDTH, [])
    also_red = Detections([*marks.found, mark("red", (102.0, 104.0), 0.3)], WIDTH)
    [pawn] = combine_pawns(red, also_red, ghostlier).pawns
    assert (pawn.kind, pawn.colour) == (DEMON, "yellow")


def test_a_demon_of_the_tables_hue_is_not_turned_into_a_ghost_by_the_views() -> None:
    # A green demon on green felt looks pale against it: the views mark a ghost there
    # more than the demon, and the demon stands (dev_0015).
    pawns = Pawns([seen("green", (100.0, 100.0), confidence=1.0)], WIDTH, [])
    marks = Detections(
        [mark("white", (104.0, 108.0), SURE_COLOUR - 0.02), mark("green", (101.0, 103.0), 0.3)],
        WIDTH,
    )
    paler = looked_at_by_colour({"white": 0.5, "green": 0.23}, [])
    for table_hue, read_as in (
        ("green", (DEMON, "green")),
        ("blue", (GHOST, "white")),
        (None, (GHOST, "white")),
    ):
        [pawn] = combine_pawns(pawns, marks, paler, table_hue_colour=table_hue).pawns
        assert (pawn.kind, pawn.colour) == read_as, table_hue
    # A sure ghost mark makes it a ghost on any table: only the views' turn is kept out.
    sure = Detections([mark("white", (104.0, 108.0), SURE_COLOUR), marks.found[1]], WIDTH)
    [pawn] = combine_pawns(pawns, sure, paler, table_hue_colour="green").pawns
    assert (pawn.kind, pawn.colour) == (GHOST, "white")


def test_a_pawn_both_see_stays_a_ghost_on_a_faint_demon_mark_alone() -> None:
    # A faint demon mark turns no ghost of the rules into a demon (a ghost's shadow
    # may be marked so); only a sure one does.
    pawns = Pawns([seen("white", (100.0, 100.0))], WIDTH, [])
    unsure = Detections([mark("blue", (104.0, 108.0), SURE_COLOUR - 0.2)], WIDTH)
    [pawn] = combine_pawns(pawns, unsure).pawns
    assert (pawn.kind, pawn.colour) == (GHOST, "white")


def test_a_pawn_only_the_detector_sees_is_added_when_it_is_sure() -> None:
    pawns = Pawns([], WIDTH, [])
    marks = Detections(
        [
            mark("green", (50.0, 50.0), ADD_SCORE + 0.05),
            mark("blue", (300.0, 50.0), ADD_SCORE - 0.05),
        ],
        WIDTH,
    )
    combined = combine_pawns(pawns, marks)
    assert [(p.colour, p.foot) for p in combined.pawns] == [("green", (50.0, 50.0))]
    assert [w.text for w in combined.warnings] == ["a green demon at {at} seen only by its shape"]
    # A surer mark is added without a warning: only the unsure ones are listed to check.
    sure = Detections([mark("red", (50.0, 50.0), UNSURE_ADDED + 0.05)], WIDTH)
    combined = combine_pawns(pawns, sure)
    assert [p.colour for p in combined.pawns] == ["red"]
    assert combined.warnings == []


def checker_saying(odds: float, asked: list[Point]):
    """A checker (``demon_odds``) giving ``odds`` at every place, noting the places."""

    def say(places: list[Point]) -> list[float]:
        asked.extend(places)
        return [odds] * len(places)

    return say


def test_a_demon_added_on_its_shape_is_sure_where_the_demon_checker_confirms_it() -> None:
    pawns = Pawns([], WIDTH, [])
    shaped = ADD_SCORE + 0.05
    marks = Detections(
        [mark("green", (50.0, 50.0), shaped), mark("white", (300.0, 50.0), shaped)], WIDTH
    )
    asked: list[Point] = []

    def checker(odds: float):
        return checker_saying(odds, asked)

    combined = combine_pawns(pawns, marks, demon_odds=checker(SHAPED_DEMON_CHECKED))
    confidence = {p.colour: p.confidence for p in combined.pawns}
    assert confidence == {"green": UNSURE_ADDED, "white": pytest.approx(shaped)}
    assert not is_unsure(confidence["green"])  # not ringed on the page
    assert [w.text for w in combined.warnings] == ["a white ghost at {at} seen only by its shape"]
    assert asked == [(50.0, 50.0)]  # the demon alone: ghosts are left as they were
    for odds in (SHAPED_DEMON_CHECKED - 0.01, math.nan):
        unsure = combine_pawns(pawns, marks, demon_odds=checker(odds))
        assert {p.colour: p.confidence for p in unsure.pawns}["green"] == pytest.approx(shaped)
        assert sorted(w.text for w in unsure.warnings) == [
            "a green demon at {at} seen only by its shape",
            "a white ghost at {at} seen only by its shape",
        ]
    # A demon added surely is neither asked about nor made less sure.
    asked.clear()
    sure = Detections([mark("red", (50.0, 50.0), UNSURE_ADDED + 0.2)], WIDTH)
    [pawn] = combine_pawns(pawns, sure, demon_odds=checker(1.0)).pawns
    assert pawn.confidence == pytest.approx(UNSURE_ADDED + 0.2)
    assert asked == []


def test_a_pawn_marked_twice_takes_its_sure_mark_and_is_read_once() -> None:
    # The rules' foot lies nearer a faint second mark of the same pawn than its sure
    # mark; both marks are more than SAME_PAWN widths apart, so both are kept as marks.
    pawns = Pawns([seen("green", (100.0, 100.0))], WIDTH, [])
    sure = mark("green", (100.0 - 0.35 * WIDTH, 100.0), 0.74)
    faint = mark("green", (100.0 + 0.25 * WIDTH, 100.0), 0.11)
    assert math.dist(sure.xy, faint.xy) > SAME_PAWN * WIDTH
    combined = combine_pawns(pawns, Detections([sure, faint], WIDTH))
    assert [(p.colour, p.foot) for p in combined.pawns] == [("green", sure.xy)]


def test_a_pawn_seen_wider_than_most_is_read_once_from_two_marks_of_it() -> None:
    """A pawn the rules see wider than the detector's (median) width, up to a blob of
    several pawns, gathers its marks over its own width: a demon marked twice a bit
    more than half the median width apart is one demon (dev_0012)."""
    wide = replace(seen("green", (100.0, 100.0)), width=1.3 * WIDTH)
    first = mark("green", (100.0 - 0.3 * WIDTH, 100.0), 0.9)
    second = mark("green", (100.0 + 0.3 * WIDTH, 100.0), 0.5)
    assert math.dist(first.xy, second.xy) > SAME_PAWN * WIDTH
    marks = Detections([first, second], WIDTH)
    combined = combine_pawns(Pawns([wide], WIDTH, []), marks)
    assert [(p.colour, p.foot) for p in combined.pawns] == [("green", first.xy)]
    # A pawn of the median width is two pawns there, as before.
    combined = combine_pawns(Pawns([seen("green", (100.0, 100.0))], WIDTH, []), marks)
    assert len(combined.pawns) == 2
    # A blob as wide as several pawns stands for one of them only: the mark of a pawn
    # touching it, a pawn width away, is another pawn.
    several = replace(wide, width=3.0 * WIDTH)
    touching = mark("green", (100.0 - 0.3 * WIDTH + 0.9 * WIDTH, 100.0), 0.9)
    combined = combine_pawns(Pawns([several], WIDTH, []), Detections([first, touching], WIDTH))
    assert len(combined.pawns) == 2
    assert SAME_PAWN * SEVERAL_PAWNS_WIDTH < 0.9


def looked_at_as(score: float, looked: list[Detection]):
    """A ``look_again`` that scores every mark ``score`` and notes what it looked at."""

    def look(mark: Detection) -> Detection:
        looked.append(mark)
        return Detection(mark.kind, mark.colour, mark.xy, score, views=8)

    return look


def test_a_faint_mark_no_pawn_stands_at_is_added_when_a_second_look_confirms_it() -> None:
    faint = mark("blue", (80.0, 80.0), (CONFIRM_FROM + ADD_SCORE) / 2)
    nothing = Pawns([], WIDTH, [])
    looked: list[Detection] = []
    assert combine_pawns(nothing, Detections([faint], WIDTH)).pawns == []
    combined = combine_pawns(nothing, Detections([faint], WIDTH), looked_at_as(0.5, looked))
    assert looked == [faint]
    assert [(p.colour, p.foot, p.confidence) for p in combined.pawns] == [("blue", faint.xy, 0.5)]
    unconfirmed = looked_at_as(CONFIRMED_ADD_SCORE - 0.05, looked)
    assert combine_pawns(nothing, Detections([faint], WIDTH), unconfirmed).pawns == []
    # A fainter mark is not looked at.
    looked.clear()
    fainter = mark("blue", (80.0, 80.0), CONFIRM_FROM - 0.05)
    unlooked = combine_pawns(nothing, Detections([fainter], WIDTH), looked_at_as(0.9, looked))
    assert unlooked.pawns == []
    assert looked == []


def checker_noting(
    odds: float, asked: list[list[tuple[float, float]]]
) -> Callable[[list[tuple[float, float]]], list[float]]:
    """A ghost checker asked eight ways that gives ``odds`` everywhere and notes in
    ``asked`` the places it was asked about, a list a call."""

    def turned_ghost_odds(places: list[tuple[float, float]]) -> list[float]:
        asked.append(list(places))
        return [odds] * len(places)

    return turned_ghost_odds


def test_a_demon_seen_faintly_is_a_ghost_where_the_checker_asked_eight_ways_says_so() -> None:
    """1580163: two ghosts under a harsh side light on mustard cloth marked faintly as
    blue demons and nowhere as ghosts; the ghost checker 0.997 and 0.998 eight ways. A
    demon read less surely than UNSURE_ADDED is asked, and read as a ghost (as unsure
    as it was, its remarks replaced by one that says so) where the checker gives at
    least FAINT_DEMON_GHOST; a sure demon, or one as near a ghost read as the checker
    was not taught, is not asked; a demon the checker doubts, or NaN, changes nothing.
    Two faint demons at one place (one ghost marked in two colours) make one ghost, and
    only the demon's own remarks go."""
    faint = SeenPawn(DEMON, "blue", (80.0, 80.0), WIDTH, UNSURE_ADDED - 0.3)
    sure = SeenPawn(DEMON, "blue", (400.0, 80.0), WIDTH, UNSURE_ADDED + 0.1)
    ghost = SeenPawn(GHOST, WHITE, (80.0, 400.0), WIDTH, 1.0)
    beside = SeenPawn(DEMON, "red", (80.0 + 0.9 * CLEAR_OF_GHOST * WIDTH, 400.0), WIDTH, 0.3)
    remark = Remark("a blue demon at {at} seen only by its shape", faint.foot, SHAPE_ONLY)
    other = Remark("something else at {at}", sure.foot, "")
    pawns = Pawns([faint, sure, ghost, beside], WIDTH, [remark, other])
    asked: list[list[tuple[float, float]]] = []

    def checker(odds: float) -> Callable[[list[tuple[float, float]]], list[float]]:
        return checker_noting(odds, asked)

    checked = faint_demons_checked_as_ghosts(pawns, checker(FAINT_DEMON_GHOST + 0.05))
    assert asked == [[faint.foot]]
    assert checked.pawns == [replace(faint, kind=GHOST, colour=WHITE), sure, ghost, beside]
    assert [w.at for w in checked.warnings] == [sure.foot, faint.foot]
    assert "read as a ghost" in checked.warnings[-1].text
    # The same ghost marked faintly in green too, a quarter width away: one ghost; and a
    # remark at the foot that does not name the demon stays.
    twin = SeenPawn(DEMON, "green", (80.0 + 0.25 * WIDTH, 80.0), WIDTH, UNSURE_ADDED - 0.2)
    missed = Remark("a red demon may be missed at {at}", faint.foot, MAYBE_MISSED)
    doubled = Pawns([faint, twin], WIDTH, [remark, missed])
    once = faint_demons_checked_as_ghosts(doubled, checker(FAINT_DEMON_GHOST + 0.05))
    assert [p.kind for p in once.pawns] == [GHOST, DEMON]
    assert [w.about for w in once.warnings] == [MAYBE_MISSED, FAINTLY_SEEN]
    assert faint_demons_checked_as_ghosts(pawns, checker(FAINT_DEMON_GHOST - 0.05)) == pawns
    assert faint_demons_checked_as_ghosts(pawns, checker(math.nan)) == pawns


def test_a_ghost_seen_only_faintly_goes_where_the_checker_asked_eight_ways_says_no() -> None:
    # 1420175: a ghost marked 0.42 on dark wood between long shadows, confirmed in the
    # views, where nothing stands; the ghost checker 0.002 asked eight ways.
    unsure = (ADD_SCORE + UNSURE_ADDED) / 2
    only_shape = mark("white", (80.0, 80.0), unsure)
    sure = mark("white", (300.0, 80.0), UNSURE_ADDED + 0.05)  # no remark: not asked
    demon = mark("red", (80.0, 300.0), unsure)  # a demon only the shape showed
    combined = combine_pawns(
        Pawns([], WIDTH, []),
        Detections([only_shape, sure, demon], WIDTH),
        looked_at_as(CONFIRMED_ADD_SCORE + 0.05, []),
    )
    assert len(combined.pawns) == 3
    assert sorted(w.at for w in combined.warnings if w.about == SHAPE_ONLY) == [
        only_shape.xy, demon.xy]
    asked: list[list[tuple[float, float]]] = []

    def checker(odds: float) -> Callable[[list[tuple[float, float]]], list[float]]:
        return checker_noting(odds, asked)

    checked = without_faint_ghosts_checked_away(combined, checker(FAINT_GHOST_DOUBT / 2))
    # Asked about the ghost only the shape showed, nothing else; it goes, and its remark.
    assert asked == [[only_shape.xy]]
    assert [p.foot for p in checked.pawns] == [p.foot for p in combined.pawns
                                               if p.foot != only_shape.xy]
    assert [w.at for w in checked.warnings if w.about == SHAPE_ONLY] == [demon.xy]
    # The checker not so sure there is none: it stays.
    kept = without_faint_ghosts_checked_away(combined, checker(FAINT_GHOST_DOUBT * 2))
    assert kept == combined
    # No answer (NaN) takes nothing away.
    assert without_faint_ghosts_checked_away(combined, checker(math.nan)) == combined

    # 1440105: a ghost marked faintly near a field's centre and taken on its mean in the
    # views alone (0.24), at a crossing of two cords beside pawns; the checker 0.00003.
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    centre = geometry.field_centre(next(f.id for f in board.fields if not f.outer))
    faint = mark("white", centre, (CENTRED_GHOST_FROM + ADD_SCORE) / 2)
    centred = add_centred_ghosts(geometry, Pawns([], WIDTH, []), Detections([faint], WIDTH),
                                 looked_at_as(CENTRED_GHOST_SCORE + 0.05, []))
    assert [(p.kind, p.foot) for p in centred.pawns] == [(GHOST, centre)]
    assert [(w.at, w.about) for w in centred.warnings] == [(centre, FAINTLY_SEEN)]
    asked.clear()
    gone = without_faint_ghosts_checked_away(centred, checker(FAINT_GHOST_DOUBT / 2))
    assert asked == [[centre]]
    assert gone.pawns == [] and gone.warnings == []
    for odds in (FAINT_GHOST_DOUBT, FAINT_GHOST_DOUBT * 2):  # at the bar, and over it
        assert without_faint_ghosts_checked_away(centred, checker(odds)) == centred
    # A ghost the ghost checker added (the views did not confirm the mark) is no faint
    # one: its remark doubts nothing, and it is not asked about again.
    checked = add_centred_ghosts(geometry, Pawns([], WIDTH, []), Detections([faint], WIDTH),
                                 looked_at_as(CENTRED_GHOST_SCORE - 0.05, []), None,
                                 checker_with({centre: CHECKED_GHOST}, []))
    assert [(p.kind, p.foot) for p in checked.pawns] == [(GHOST, centre)]
    assert [(w.at, w.about) for w in checked.warnings] == [(centre, "")]
    asked.clear()
    assert without_faint_ghosts_checked_away(checked, checker(0.0)) == checked
    assert asked == []


def test_a_mark_not_quite_sure_is_added_only_when_a_second_look_confirms_it() -> None:
    # The detector may mark one ghost twice, the second peak just below it; that one
    # falls off when its place is turned and mirrored.
    unsure = mark("white", (80.0, 80.0), (ADD_SCORE + UNSURE_ADDED) / 2)
    nothing = Pawns([], WIDTH, [])
    looked: list[Detection] = []
    dropped = combine_pawns(nothing, Detections([unsure], WIDTH), looked_at_as(0.17, looked))
    assert looked == [unsure] and dropped.pawns == []
    kept = combine_pawns(
        nothing, Detections([unsure], WIDTH), looked_at_as(CONFIRMED_GHOST_SCORE + 0.05, [])
    )
    assert [(p.kind, p.foot, p.confidence) for p in kept.pawns] == [
        (GHOST, unsure.xy, round(unsure.score, 2))
    ]
    assert [w.text for w in kept.warnings] == ["a white ghost at {at} seen only by its shape"]
    # A sure mark is not looked at again.
    looked.clear()
    sure = mark("white", (80.0, 80.0), UNSURE_ADDED + 0.05)
    assert combine_pawns(nothing, Detections([sure], WIDTH), looked_at_as(0.0, looked)).pawns
    assert looked == []


def test_a_faint_mark_against_a_pawn_is_named_in_the_warnings_not_added() -> None:
    """A pawn touching another, half behind it in the photo, is marked faintly in every
    view: a mark looked at again and not confirmed, standing about a pawn width from a
    pawn kept, is named in the warnings (at the mark), not added. Not so one too faint
    in the eight views, nor one nearer the pawn (its second mark) or farther from it."""
    front = seen("yellow", (100.0, 100.0))
    pawns = Pawns([front], WIDTH, [])
    near, far = TOUCHING_DOUBT_REACH
    for score in (CONFIRM_FROM + 0.05, ADD_SCORE + 0.05):  # faint, and not quite sure
        behind = mark("green", (100.0 + (near + far) / 2 * WIDTH, 100.0), score)
        marks = Detections([mark("yellow", front.foot, 0.9), behind], WIDTH)
        looked: list[Detection] = []
        doubted = combine_pawns(pawns, marks, looked_at_as(TOUCHING_DOUBT + 0.02, looked))
        assert [p.colour for p in doubted.pawns] == ["yellow"] and len(looked) == 1
        [warning] = doubted.warnings
        assert (warning.at, warning.about) == (behind.xy, MAYBE_MISSED)
        assert warning.text == missed_pawn_warning("green", DEMON, "{at}")
        assert missed_pawn_places([warning.in_photo(list)]) == [behind.xy]
        too_faint = combine_pawns(pawns, marks, looked_at_as(TOUCHING_DOUBT - 0.02, []))
        assert too_faint.warnings == []
    for widths in (near - 0.1, far + 0.1):
        apart = mark("green", (100.0 + widths * WIDTH, 100.0), ADD_SCORE + 0.05)
        marks = Detections([mark("yellow", front.foot, 0.9), apart], WIDTH)
        looked = []
        apart_read = combine_pawns(pawns, marks, looked_at_as(TOUCHING_DOUBT + 0.1, looked))
        assert looked == [apart] and apart_read.warnings == []


def test_a_pawn_added_where_one_may_have_been_missed_answers_the_doubt() -> None:
    """A faint mark named as a pawn perhaps missed, then added as a ghost at the centre
    of its field: the report does not both doubt and add it."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    centre = geometry.field_centre(next(f.id for f in board.fields if not f.outer))
    faint = mark("white", centre, 0.3)
    doubt = Remark(missed_pawn_warning("white", GHOST, "{at}"), centre, MAYBE_MISSED)
    other = Remark("2 touching red pawns read near {at}", (centre[0] + 300.0, centre[1]))
    pawns = Pawns([], WIDTH, [doubt, other])
    added = add_centred_ghosts(geometry, pawns, Detections([faint], WIDTH),
                               looked_at_as(CENTRED_GHOST_SCORE + 0.1, []))
    assert [p.foot for p in added.pawns] == [centre]
    assert doubt not in added.warnings and other in added.warnings
    assert "taken for the centre of its field" in added.warnings[-1].text


def test_a_ghost_marked_faintly_at_the_centre_of_an_empty_field_is_added() -> None:
    """A ghost stands in a field's centre: a faint ghost mark there, confirmed in the
    eight views, is a ghost; not in a field that has one, not off the centre, not under
    CENTRED_GHOST_FROM, not when the views do not confirm it."""
    board = random_layout(3).board()  # millimetres; pawns 40 mm wide
    geometry = BoardGeometry(board)
    first, second = [f.id for f in board.fields if not f.outer][:2]
    centre, other_centre = geometry.field_centre(first), geometry.field_centre(second)
    faint = mark("white", (centre[0] + 5.0, centre[1]), (CENTRED_GHOST_FROM + 0.4) / 2)
    nothing = Pawns([], WIDTH, [])
    looked: list[Detection] = []
    sure = looked_at_as((CENTRED_GHOST_SCORE + 1.0) / 2, looked)

    added = add_centred_ghosts(geometry, nothing, Detections([faint], WIDTH), sure)
    assert looked == [faint]
    assert [(p.kind, p.foot) for p in added.pawns] == [(GHOST, faint.xy)]
    assert "taken for the centre of its field" in added.warnings[0].text

    unconfirmed = looked_at_as(CENTRED_GHOST_SCORE - 0.05, [])
    assert add_centred_ghosts(geometry, nothing, Detections([faint], WIDTH), unconfirmed) == nothing
    # The field has its ghost already (read elsewhere in it): the mark is not looked at.
    looked.clear()
    has_ghost = Pawns([seen("white", (centre[0], centre[1] + 30.0))], WIDTH, [])
    assert geometry.field_at(has_ghost.pawns[0].foot) == first
    kept = add_centred_ghosts(geometry, has_ghost, Detections([faint], WIDTH), sure)
    assert kept == has_ghost and looked == []
    # A stronger demon's mark at it, that no pawn was read at, does not hide it.
    looked.clear()
    demon_there = mark("blue", (faint.xy[0] + 2.0, faint.xy[1]), faint.score + 0.1)
    added = add_centred_ghosts(geometry, nothing, Detections([demon_there, faint], WIDTH), sure)
    assert looked == [faint] and [p.kind for p in added.pawns] == [GHOST]
    looked.clear()
    # Off the centre, too faint, or a demon's mark: not looked at.
    off = mark("white", (other_centre[0] + 1.5 * CENTRE_REACH * WIDTH, other_centre[1]), 0.3)
    too_faint = mark("white", centre, CENTRED_GHOST_FROM - 0.05)
    demon = mark("red", centre, 0.3)
    for marks in ([off], [too_faint], [demon]):
        added = add_centred_ghosts(geometry, nothing, Detections(marks, WIDTH), sure)
        assert added == nothing and looked == [], marks


def checker_with(odds_at: dict[Point, float], asked: list[list[Point]]):
    """A ``ghost_odds`` giving ``odds_at`` a place (0 elsewhere), noting what it was asked."""

    def ghost_odds(places: list[Point]) -> list[float]:
        asked.append(places)
        return [odds_at.get(p, 0.0) for p in places]

    return ghost_odds


def test_a_faint_ghost_mark_the_views_do_not_confirm_is_taken_where_the_checker_agrees() -> None:
    """A field whose faint ghost marks near its centre the eight views do not confirm
    takes a ghost at the detector's mark nearest its centre where the ghost checker
    gives a ghost at the centre or at that mark at least CHECKED_GHOST, with the views'
    mean as its confidence; the checker is asked about no other field (alone, it would
    add ghosts where none stand). A ghost the colour rules saw there counts as such a
    mark."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    first, second = [f.id for f in board.fields if not f.outer][:2]
    centre, other = geometry.field_centre(first), geometry.field_centre(second)
    nearest = mark("white", (centre[0] + 5.0, centre[1]), CENTRED_GHOST_FROM + 0.05)
    farther = mark("white", (centre[0], centre[1] - 25.0), CENTRED_GHOST_FROM + 0.2)
    assert geometry.field_at(nearest.xy) == first
    asked: list[list[Point]] = []
    nothing = Pawns([], WIDTH, [])
    marks = Detections([nearest, farther], WIDTH)
    mean = CENTRED_GHOST_SCORE - 0.05
    unconfirmed = looked_at_as(mean, [])
    for at in (centre, nearest.xy):
        added = add_centred_ghosts(geometry, nothing, marks, unconfirmed, None,
                                   checker_with({at: 0.95}, asked))
        assert [(p.kind, p.foot, p.confidence) for p in added.pawns] == [
            (GHOST, nearest.xy, round(mean, 2))]
        assert "ghost checker" in added.warnings[0].text
        assert asked == [[centre, nearest.xy]]
        asked.clear()
    # Not for the odds at the farther mark, nor below CHECKED_GHOST.
    for odds_at in ({farther.xy: 0.99}, {centre: CHECKED_GHOST - 0.01}):
        checker = checker_with(odds_at, asked)
        assert add_centred_ghosts(geometry, nothing, marks, unconfirmed, None, checker) == nothing
    # Two fields asked at once: each field's odds are its own.
    second_mark = mark("white", (other[0] - 4.0, other[1]), CENTRED_GHOST_FROM + 0.05)
    two = Detections([nearest, second_mark], WIDTH)
    asked.clear()
    added = add_centred_ghosts(geometry, nothing, two, unconfirmed, None,
                               checker_with({second_mark.xy: 0.95}, asked))
    assert [p.foot for p in added.pawns] == [second_mark.xy]
    assert sorted(asked[0]) == sorted([centre, nearest.xy, other, second_mark.xy])
    # Confirmed by the views, or a field with no faint mark of the detector: not asked.
    asked.clear()
    sure = looked_at_as(CENTRED_GHOST_SCORE + 0.1, [])
    confirmed = add_centred_ghosts(geometry, nothing, marks, sure, None, checker_with({}, asked))
    assert [p.foot for p in confirmed.pawns] == [nearest.xy] and asked == []
    aside = Detections([mark("white", other, CENTRED_GHOST_FROM - 0.05)], WIDTH)
    everywhere = checker_with({other: 1.0}, asked)
    assert add_centred_ghosts(geometry, nothing, aside, unconfirmed, None, everywhere) == nothing
    assert asked == []
    # A ghost the colour rules saw near the centre is a cue as a faint mark is: a ghost
    # half hidden by the demon it touches may be marked by neither (690187).
    rules_only = Pawns([seen("white", (other[0] + 3.0, other[1]))], WIDTH, [])
    no_marks = Detections([], WIDTH)
    added = add_centred_ghosts(geometry, nothing, no_marks, unconfirmed, rules_only, everywhere)
    assert [(p.kind, p.foot) for p in added.pawns] == [(GHOST, rules_only.pawns[0].foot)]
    assert asked == [[other, rules_only.pawns[0].foot]]
    doubting = checker_with({other: CHECKED_GHOST - 0.01}, asked)
    assert add_centred_ghosts(geometry, nothing, no_marks, unconfirmed, rules_only,
                              doubting) == nothing
    # Where no view marks a ghost (a bright gap between two long shadows under a low
    # light, 1190159), the checker's yes is not enough.
    unseen = looked_at_as(CHECKED_GHOST_MEAN - 0.01, [])
    assert add_centred_ghosts(geometry, nothing, no_marks, unseen, rules_only,
                              everywhere) == nothing
    assert add_centred_ghosts(geometry, nothing, marks, unseen, None,
                              checker_with({centre: 0.95}, asked)) == nothing


def test_a_demon_read_at_a_faint_ghost_mark_is_a_ghost_where_the_checker_says_so() -> None:
    """A ghost under a warm lamp may be read as a yellow demon (850165): a demon read
    with a ghost mark from CENTRED_GHOST_FROM at it, near the centre of a field with no
    ghost, is read as a ghost at that mark where the ghost checker's odds there reach
    CHECKED_GHOST, with the mark's score as its confidence and a warning at it. Not
    below those odds; not without the ghost mark, nor far from the centre, nor in a
    field that has its ghost, nor at a ghost read (for those the checker is not asked).
    One demon a mark, one ghost a field."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    first = next(f.id for f in board.fields if not f.outer)
    centre = geometry.field_centre(first)
    demon = seen("yellow", (centre[0] + 3.0, centre[1]), confidence=1.0)
    ghost_mark = mark("white", (centre[0] + 6.0, centre[1] + 2.0), CENTRED_GHOST_FROM + 0.1)
    marks = Detections([mark("yellow", demon.foot, 0.8), ghost_mark], WIDTH)
    pawns = Pawns([demon], WIDTH, [])
    asked: list[list[Point]] = []
    never = looked_at_as(0.0, [])  # the views confirm nothing
    sure = checker_with({ghost_mark.xy: 1.0}, asked)

    read = add_centred_ghosts(geometry, pawns, marks, never, None,
                              checker_with({ghost_mark.xy: CHECKED_GHOST + 0.01}, asked))
    assert [(p.kind, p.colour, p.foot, p.confidence) for p in read.pawns] == [
        (GHOST, WHITE, ghost_mark.xy, round(ghost_mark.score, 2))]
    assert asked[0] == [ghost_mark.xy]
    [warning] = read.warnings
    assert warning.at == ghost_mark.xy and "read first as a yellow demon" in warning.text
    asked.clear()
    doubting = checker_with({ghost_mark.xy: CHECKED_GHOST - 0.01}, asked)
    assert add_centred_ghosts(geometry, pawns, marks, never, None, doubting) == pawns
    assert asked == [[ghost_mark.xy]]
    asked.clear()
    unmarked = Detections([mark("yellow", demon.foot, 0.8)], WIDTH)
    assert add_centred_ghosts(geometry, pawns, unmarked, never, None, sure) == pawns
    too_faint = Detections([replace(ghost_mark, score=CENTRED_GHOST_FROM - 0.05)], WIDTH)
    assert add_centred_ghosts(geometry, pawns, too_faint, never, None, sure) == pawns
    # Farther from the centre than the other ghost steps look (CENTRE_REACH), within
    # DEMON_AT_GHOST_REACH: a ghost in a narrow field (1560188, 1.45 widths off).
    nearer = (centre[0] + 1.5 * CENTRE_REACH * WIDTH, centre[1])
    assert 1.5 * CENTRE_REACH < DEMON_AT_GHOST_REACH and geometry.field_at(nearer) == first
    off_centre = Pawns([replace(demon, foot=nearer)], WIDTH, [])
    off_marks = Detections([mark("white", nearer, ghost_mark.score)], WIDTH)
    read = add_centred_ghosts(geometry, off_centre, off_marks, never, None,
                              checker_with({nearer: 1.0}, asked))
    assert [(p.kind, p.foot) for p in read.pawns] == [(GHOST, nearer)]
    assert asked == [[nearer]]
    asked.clear()
    away = (centre[0] + 1.2 * DEMON_AT_GHOST_REACH * WIDTH, centre[1])
    assert geometry.field_at(away) == first
    far = Pawns([replace(demon, foot=away)], WIDTH, [])
    far_marks = Detections([mark("white", away, ghost_mark.score)], WIDTH)
    assert add_centred_ghosts(geometry, far, far_marks, never, None, sure) == far
    assert asked == []  # not asked about at all so far from the centre
    ghost_there = seen("white", (centre[0] - 10.0, centre[1]))
    assert geometry.field_at(ghost_there.foot) == first
    has_ghost = Pawns([demon, ghost_there], WIDTH, [])
    assert add_centred_ghosts(geometry, has_ghost, marks, never, None, sure) == has_ghost
    assert asked == []
    # Two demons at one mark: the nearer is the ghost. Two marks in one field: the
    # likelier is its ghost, the other demon stays.
    behind = seen("green", (ghost_mark.xy[0] + 8.0, ghost_mark.xy[1]), confidence=1.0)
    both = Pawns([behind, demon], WIDTH, [])
    read = add_centred_ghosts(geometry, both, marks, never, None, sure)
    assert [(p.kind, p.colour) for p in read.pawns] == [(DEMON, "green"), (GHOST, WHITE)]
    other = seen("red", (centre[0] - 8.0, centre[1] - 3.0), confidence=1.0)
    other_mark = mark("white", other.foot, CENTRED_GHOST_FROM + 0.2)
    two = Detections([ghost_mark, other_mark], WIDTH)
    likelier = checker_with({ghost_mark.xy: 0.95, other_mark.xy: 0.99}, asked)
    read = add_centred_ghosts(geometry, Pawns([demon, other], WIDTH, []), two, never, None,
                              likelier)
    assert [(p.kind, p.colour) for p in read.pawns] == [(DEMON, "yellow"), (GHOST, WHITE)]


def test_the_ghost_checker_adds_no_ghost_beside_a_ghost_nor_outside_the_field_asked() -> None:
    """Where a ghost read lies within the checker's crop round its mark
    (CHECKER_CLEAR_OF_GHOST pawn widths, in another field: in its own, the field is not
    asked about), or the mark lies across a string from the field whose centre is
    nearest, no ghost is added."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    # The narrowest field first: a pawn width from its centre lie other fields.
    fields = sorted((f.id for f in board.fields if not f.outer), key=geometry.clearance_of)
    centre = geometry.field_centre(fields[0])
    faint = mark("white", (centre[0] + 2.0, centre[1]), CENTRED_GHOST_FROM + 0.05)
    unconfirmed = looked_at_as(CENTRED_GHOST_SCORE - 0.05, [])
    always = checker_with({centre: 0.99}, [])
    # Inside the crop, but farther than the checker was taught about (CLEAR_OF_GHOST).
    reach = 0.9 * CHECKER_CLEAR_OF_GHOST * WIDTH
    assert reach > 1.5 * CLEAR_OF_GHOST * WIDTH
    beside = [
        (faint.xy[0] + reach * math.cos(a), faint.xy[1] + reach * math.sin(a))
        for a in np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ]
    in_another = [xy for xy in beside if geometry.field_at(xy) not in (fields[0], None)]
    assert in_another, "the first field reaches 2.25 pawn widths from its centre all round"
    ghost_beside = seen("white", in_another[0])
    pawns = Pawns([ghost_beside], WIDTH, [])
    kept = add_centred_ghosts(geometry, pawns, Detections([faint], WIDTH), unconfirmed, None,
                              always)
    assert kept == pawns
    # Beyond the crop the ghost read does not count.
    farther = [
        (centre[0] + 1.2 * CHECKER_CLEAR_OF_GHOST * WIDTH * math.cos(a),
         centre[1] + 1.2 * CHECKER_CLEAR_OF_GHOST * WIDTH * math.sin(a))
        for a in np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ]
    in_a_far_field = [xy for xy in farther if geometry.field_at(xy) not in (fields[0], None)]
    assert in_a_far_field, "the first field reaches 3 pawn widths from its centre all round"
    far = Pawns([seen("white", in_a_far_field[0])], WIDTH, [])
    added = add_centred_ghosts(geometry, far, Detections([faint], WIDTH), unconfirmed, None,
                               always)
    assert [p.foot for p in added.pawns if p not in far.pawns] == [faint.xy]
    # A mark across the string: the nearest centre is the first field's, but the mark
    # lies in another.
    across = [
        (centre[0] + dx, centre[1] + dy)
        for dx in range(-int(WIDTH), int(WIDTH) + 1, 4)
        for dy in range(-int(WIDTH), int(WIDTH) + 1, 4)
        if math.hypot(dx, dy) <= CENTRE_REACH * WIDTH
        and geometry.field_at((centre[0] + dx, centre[1] + dy)) not in (fields[0], None)
        and all(
            math.dist((centre[0] + dx, centre[1] + dy), geometry.field_centre(f)) > 2 * WIDTH
            for f in fields[1:]
        )
    ]
    assert across, "the first field is wider than a pawn width round its centre"
    outside = mark("white", across[0], CENTRED_GHOST_FROM + 0.05)
    nothing = Pawns([], WIDTH, [])
    kept = add_centred_ghosts(geometry, nothing, Detections([outside], WIDTH), unconfirmed,
                              None, checker_with({centre: 0.99, outside.xy: 0.99}, []))
    assert kept == nothing


def test_the_checkers_yes_at_an_empty_fields_centre_takes_a_ghost_the_views_confirm() -> None:
    """A field in which no ghost was read, and which neither the detector nor the colour
    rules mark (a ghost standing on a cord on a white table: 1280185), takes a ghost at
    its centre where the ghost checker's odds there reach CHECKED_GHOST and the eight
    views' mean of a ghost there reaches CENTRED_GHOST_SCORE; with odds at the centre
    from RING_FROM it is asked again round the centre (CENTRE_RING pawn widths), and the
    likeliest place inside the field counts. Not where either cue falls short, nor at a
    pawn read, nor within CLEAR_OF_GHOST of a ghost; a field with its ghost is not asked."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    bounded = [f.id for f in board.fields if not f.outer]
    first = max(bounded, key=geometry.clearance_of)
    assert geometry.clearance_of(first) > 1.5 * WIDTH, "room round the centre for the ring"
    centre = geometry.field_centre(first)
    nothing = Pawns([], WIDTH, [])
    marks = Detections([], WIDTH)
    looked: list[Detection] = []
    confirmed = looked_at_as(CENTRED_GHOST_SCORE + 0.05, looked)
    asked: list[list[Point]] = []

    def odds_near(
        target: Point, odds: float, at_centre: float = 0.0
    ) -> Callable[[list[Point]], list[float]]:
        """Odds ``odds`` within a tenth of a width of ``target``, ``at_centre`` at the
        first field's centre, 0 elsewhere."""

        def ghost_odds(places: list[Point]) -> list[float]:
            asked.append(list(places))
            return [
                odds if math.dist(p, target) < 0.1 * WIDTH
                else at_centre if p == centre else 0.0
                for p in places
            ]

        return ghost_odds

    read = add_checked_centre_ghosts(geometry, nothing, marks, confirmed,
                                     odds_near(centre, CHECKED_GHOST + 0.01))
    assert [(p.kind, p.foot, p.confidence) for p in read.pawns] == [
        (GHOST, centre, round(CENTRED_GHOST_SCORE + 0.05, 2))]
    assert "ghost checker" in read.warnings[0].text and read.warnings[0].at == centre
    assert sorted(asked[0]) == sorted(geometry.field_centre(f) for f in bounded)
    assert [m.xy for m in looked] == [centre]
    # Either cue short: no ghost.
    unconfirmed = looked_at_as(CENTRED_GHOST_SCORE - 0.01, [])
    assert add_checked_centre_ghosts(geometry, nothing, marks, unconfirmed,
                                     odds_near(centre, 1.0)) == nothing
    assert add_checked_centre_ghosts(geometry, nothing, marks, confirmed,
                                     odds_near(centre, CHECKED_GHOST - 0.01)) == nothing
    # A ghost's foot off the centre: the ring round it finds it where the centre's odds
    # reach RING_FROM, and is not asked below.
    off = (centre[0] + CENTRE_RING * WIDTH, centre[1])
    asked.clear()
    read = add_checked_centre_ghosts(geometry, nothing, marks, confirmed,
                                     odds_near(off, 0.97, at_centre=RING_FROM))
    [ghost] = read.pawns
    assert math.dist(ghost.foot, off) < 1e-6 and len(asked) == 2 and len(asked[1]) == 6
    asked.clear()
    assert add_checked_centre_ghosts(geometry, nothing, marks, confirmed,
                                     odds_near(off, 0.97, at_centre=RING_FROM - 0.01)) == nothing
    assert len(asked) == 1
    # Sure at the centre and surer round it: the surer place.
    [ghost] = add_checked_centre_ghosts(geometry, nothing, marks, confirmed, odds_near(
        off, 0.97, at_centre=CHECKED_GHOST + 0.02)).pawns
    assert math.dist(ghost.foot, off) < 1e-6
    # A pawn read at the place, or a ghost within CLEAR_OF_GHOST of it (across a string:
    # in its own field the field is not asked about), keeps the ghost out.
    sure = odds_near(centre, 1.0)
    demon = Pawns([seen("red", (centre[0] + 0.4 * WIDTH, centre[1]))], WIDTH, [])
    assert add_checked_centre_ghosts(geometry, demon, marks, confirmed, sure) == demon
    beside = Pawns([seen("red", (centre[0] + 0.6 * WIDTH, centre[1]))], WIDTH, [])
    assert len(add_checked_centre_ghosts(geometry, beside, marks, confirmed, sure).pawns) == 2
    ghost_near = Pawns([seen("white", (centre[0] + 0.8 * WIDTH, centre[1]))], WIDTH, [])
    assert geometry.field_at(ghost_near.pawns[0].foot) == first
    asked.clear()
    assert add_checked_centre_ghosts(geometry, ghost_near, marks, confirmed, sure) == ghost_near
    assert centre not in asked[0]
    # Across a string from a narrow field's centre, a ghost within CLEAR_OF_GHOST of it.
    narrow = next(f for f in bounded if 0.6 * WIDTH < geometry.clearance_of(f) < 0.8 * WIDTH)
    narrow_centre = geometry.field_centre(narrow)
    reach = geometry.clearance_of(narrow) + 0.05 * WIDTH
    across = [
        (narrow_centre[0] + reach * math.cos(a), narrow_centre[1] + reach * math.sin(a))
        for a in np.linspace(0, 2 * math.pi, 72, endpoint=False)
    ]
    other_field = Pawns(
        [seen("white", next(xy for xy in across if geometry.field_at(xy) != narrow))], WIDTH, [])
    assert math.dist(other_field.pawns[0].foot, narrow_centre) < CLEAR_OF_GHOST * WIDTH
    at_narrow = odds_near(narrow_centre, 1.0)
    assert add_checked_centre_ghosts(geometry, other_field, marks, confirmed,
                                     at_narrow) == other_field
    assert [p.foot for p in add_checked_centre_ghosts(
        geometry, nothing, marks, confirmed, at_narrow).pawns] == [narrow_centre]
    # Two fields whose centres lie within CLEAR_OF_GHOST of each other (for pawns this
    # wide), both sure: the likelier takes the ghost, which keeps the other clear.
    wide = 60.0
    pairs = [(a, b) for a in bounded for b in bounded if a < b and math.dist(
        geometry.field_centre(a), geometry.field_centre(b)) < CLEAR_OF_GHOST * wide]
    assert pairs, "two fields' centres near each other"
    near_a, near_b = (geometry.field_centre(f) for f in pairs[0])
    for likelier, other in ((near_a, near_b), (near_b, near_a)):
        def both_sure(places: list[Point], likelier=likelier, other=other) -> list[float]:
            return [0.99 if p == likelier else 0.95 if p == other else 0.0 for p in places]

        read = add_checked_centre_ghosts(geometry, nothing, Detections([], wide), confirmed,
                                         both_sure)
        assert [p.foot for p in read.pawns] == [likelier]
    # Round the centre of a field narrower than the ring, only the places inside it are
    # asked about.
    tiny = min(bounded, key=geometry.clearance_of)
    assert geometry.clearance_of(tiny) < CENTRE_RING * WIDTH
    tiny_centre = geometry.field_centre(tiny)

    def round_tiny(places: list[Point]) -> list[float]:
        asked.append(list(places))
        return [
            RING_FROM if p == tiny_centre
            else 1.0 if abs(math.dist(p, tiny_centre) - CENTRE_RING * WIDTH) < 1e-6 else 0.0
            for p in places
        ]

    asked.clear()
    [ghost] = add_checked_centre_ghosts(geometry, nothing, marks, confirmed, round_tiny).pawns
    assert geometry.field_at(ghost.foot) == tiny and 0 < len(asked[1]) < 6


def test_a_faint_ghost_mark_beside_a_pawn_is_a_ghost_half_hidden_when_both_cues_agree() -> None:
    """A ghost mark from CENTRED_GHOST_FROM, clear of the pawns read and within
    HIDDEN_GHOST_REACH pawn widths of one, is added where the checker's odds at it reach
    CHECKED_GHOST and the views' mean CHECKED_GHOST_MEAN; not where either falls short,
    far from every pawn, at a pawn, near a ghost read, or off the board."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    field = max((f.id for f in board.fields if not f.outer), key=geometry.clearance_of)
    assert geometry.clearance_of(field) > 1.5 * WIDTH, "room for a demon and a ghost"
    x, y = geometry.field_centre(field)
    demon = seen("yellow", (x + 0.6 * WIDTH, y))
    read = Pawns([demon], WIDTH, [])
    behind = (x - 0.6 * WIDTH, y)
    faint = Detections([mark("white", behind, CENTRED_GHOST_FROM + 0.02)], WIDTH)
    looked: list[Detection] = []
    confirmed = looked_at_as(CHECKED_GHOST_MEAN + 0.01, looked)
    asked: list[list[Point]] = []

    def odds(value: float) -> Callable[[list[Point]], list[float]]:
        def ghost_odds(places: list[Point]) -> list[float]:
            asked.append(list(places))
            return [value] * len(places)

        return ghost_odds

    def hidden(
        pawns: Pawns,
        marks: Detections,
        look: Callable[[Detection], Detection] = confirmed,
        ghost_odds: Callable[[list[Point]], list[float]] | None = None,
        foot_again: Callable[[Detection], Point | None] | None = None,
    ) -> Pawns:
        """add_ghosts_behind_pawns on ``geometry``, the checker sure by default."""
        sure = odds(1.0) if ghost_odds is None else ghost_odds
        return add_ghosts_behind_pawns(geometry, pawns, marks, look, sure, foot_again)

    added = hidden(read, faint, ghost_odds=odds(CHECKED_GHOST + 0.01))
    assert [(p.kind, p.foot) for p in added.pawns] == [(DEMON, demon.foot), (GHOST, behind)]
    assert added.pawns[1].confidence == round(CHECKED_GHOST_MEAN + 0.01, 2)
    assert "half hidden" in added.warnings[0].text and added.warnings[0].at == behind
    assert asked == [[behind]] and [m.xy for m in looked] == [behind]
    # Either cue short: no ghost.
    assert hidden(read, faint, ghost_odds=odds(CHECKED_GHOST - 0.01)) == read
    unseen = looked_at_as(CHECKED_GHOST_MEAN - 0.01, [])
    assert hidden(read, faint, unseen) == read
    # A mark fainter than CENTRED_GHOST_FROM, or a demon's, is not asked about.
    fainter = Detections([mark("white", behind, CENTRED_GHOST_FROM - 0.01)], WIDTH)
    demons = Detections([mark("red", behind, 0.3)], WIDTH)
    asked.clear()
    assert hidden(read, fainter) == read
    assert hidden(read, demons) == read
    assert asked == []
    # Farther than HIDDEN_GHOST_REACH from every pawn (at the photo's edge the checker's
    # padded crop may say yes), at a pawn read, or within CLEAR_OF_GHOST of a ghost read.
    far = (demon.foot[0] - (HIDDEN_GHOST_REACH + 0.05) * WIDTH, y)
    alone = Detections([mark("white", far, 0.2)], WIDTH)
    assert hidden(read, alone) == read
    at_pawn = Pawns([demon, seen("red", (behind[0], behind[1] + 0.4 * WIDTH))], WIDTH, [])
    assert hidden(at_pawn, faint) == at_pawn
    ghost = Pawns([demon, seen("white", (behind[0], behind[1] + 0.85 * WIDTH))], WIDTH, [])
    assert hidden(ghost, faint) == ghost
    # In the outer field, beside the strings, it is a ghost (a violation to report);
    # off the board it would count for nothing, and a mark so sure is something else.
    outer = beside_the_board(board, 2.0)
    guard = Pawns([seen("red", (outer[0] + 1.2 * WIDTH, outer[1]))], WIDTH, [])
    out = Detections([mark("white", outer, 0.2)], WIDTH)
    [_, ghost_out] = hidden(guard, out).pawns
    assert ghost_out.foot == outer and geometry.field_at(outer) == board.outer_field.id
    off = beside_the_board(board, OFF_BOARD_CLEARANCE + 0.5)
    card = Pawns([seen("green", (off[0] + 1.2 * WIDTH, off[1]))], WIDTH, [])
    rim = Detections([mark("white", off, 0.2)], WIDTH)
    assert hidden(card, rim) == card
    # Two marks of one hidden ghost: the likelier is taken, the other is beside it.
    twin = (behind[0], behind[1] + 0.6 * WIDTH)
    two = Detections([mark("white", behind, 0.2), mark("white", twin, 0.15)], WIDTH)

    def likelier_twin(places: list[Point]) -> list[float]:
        return [1.0 if p == twin else 0.95 for p in places]

    [_, taken] = hidden(read, two, ghost_odds=likelier_twin).pawns
    assert taken.foot == twin
    # The ghost stands at the foot the views give it, at the mark where they give none,
    # or give one on a pawn read (the demon in front) or off the board.
    foot = (behind[0] - 0.3 * WIDTH, behind[1])
    [_, ghost_at] = hidden(read, faint, foot_again=lambda m: foot).pawns
    assert ghost_at.foot == foot
    [_, ghost_at] = hidden(read, faint, foot_again=lambda m: None).pawns
    assert ghost_at.foot == behind
    on_demon = (demon.foot[0] - 0.4 * WIDTH, y)
    [_, ghost_at] = hidden(read, faint, foot_again=lambda m: on_demon).pawns
    assert ghost_at.foot == behind
    far_off = beside_the_board(board, OFF_BOARD_CLEARANCE + 4.0)
    [_, ghost_at] = hidden(guard, out, foot_again=lambda m: far_off).pawns
    assert ghost_at.foot == outer
    # An added ghost keeps a second mark of it out at its mark too, where its foot moved
    # away from that mark.
    moved = (behind[0], behind[1] - 0.45 * WIDTH)
    assert math.dist(moved, twin) > CLEAR_OF_GHOST * WIDTH
    assert len(hidden(read, two, foot_again=lambda m: moved).pawns) == 2
    # NaN odds see nothing.
    assert hidden(read, faint, ghost_odds=odds(math.nan)) == read
    # A ghost read 0.9-1.5 widths away is a pawn the ghost may stand behind; the reach
    # holds up to HIDDEN_GHOST_REACH.
    beside_ghost = Pawns([seen("white", (behind[0] + 1.2 * WIDTH, y))], WIDTH, [])
    assert len(hidden(beside_ghost, faint).pawns) == 2
    just_in = (demon.foot[0] - (HIDDEN_GHOST_REACH - 0.05) * WIDTH, y)
    inside = Detections([mark("white", just_in, 0.2)], WIDTH)
    assert len(hidden(read, inside).pawns) == 2
    # A stronger demon's mark at the ghost mark's place is the likelier pawn there.
    under_demon = Detections([mark("white", behind, 0.2), mark("red", behind, 0.3)], WIDTH)
    assert hidden(read, under_demon) == read


def test_a_ghost_the_rules_saw_at_the_centre_of_an_empty_field_is_looked_at_again() -> None:
    """The detector does not mark every ghost on a white table; the colour rules may
    see it all the same, and the eight views confirm it where it stands in a field's
    centre (320107)."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    first = next(f.id for f in board.fields if not f.outer)
    centre = geometry.field_centre(first)
    foot = (centre[0] + 5.0, centre[1])
    rules = Pawns([seen("white", foot)], WIDTH, [])
    nothing, no_marks = Pawns([], WIDTH, []), Detections([], WIDTH)
    looked: list[Detection] = []
    sure = looked_at_as((CENTRED_GHOST_SCORE + 1.0) / 2, looked)

    added = add_centred_ghosts(geometry, nothing, no_marks, sure, rules)
    assert [(m.kind, m.xy) for m in looked] == [(GHOST, foot)]
    assert [(p.kind, p.foot) for p in added.pawns] == [(GHOST, foot)]
    unconfirmed = looked_at_as(CENTRED_GHOST_SCORE - 0.05, [])
    assert add_centred_ghosts(geometry, nothing, no_marks, unconfirmed, rules) == nothing
    # Not without the rules' pawns, not the rules' demons, and not where a pawn was
    # read (the rules' ghost was that pawn).
    # A rules' ghost at a detector's ghost mark, or two at one place (a ghost and its
    # shadow taken apart): one place, one look.
    for twin in (
        [mark("white", (foot[0] + 4.0, foot[1]), CENTRED_GHOST_FROM + 0.05)],
        [],
    ):
        looked.clear()
        both = Pawns([seen("white", foot), seen("white", (foot[0] + 8.0, foot[1]))], WIDTH, [])
        failing = looked_at_as(CENTRED_GHOST_SCORE - 0.05, looked)
        add_centred_ghosts(geometry, nothing, Detections(twin, WIDTH), failing, both)
        assert len(looked) == 1, twin
    # A ghost blob twice as wide as most (a ghost with its shadow) is matched to the
    # pawn kept within half its own width.
    wide = Pawns([replace(seen("white", foot), width=2 * WIDTH)], WIDTH, [])
    kept_aside = Pawns([seen("red", (foot[0] + 0.7 * WIDTH, foot[1]))], WIDTH, [])
    looked.clear()
    assert add_centred_ghosts(geometry, kept_aside, no_marks, sure, wide) == kept_aside
    assert looked == []
    looked.clear()
    red_read = Pawns([seen("red", (foot[0] + 3.0, foot[1]))], WIDTH, [])
    for pawns, seen_by_rules in (
        (nothing, None),
        (nothing, Pawns([seen("red", foot)], WIDTH, [])),
        (red_read, rules),
    ):
        assert add_centred_ghosts(geometry, pawns, no_marks, sure, seen_by_rules) == pawns
    assert looked == []


def clear_corner(board, radius: float) -> tuple[tuple[float, float], tuple[str, ...]]:
    """A point a demon of a crossing's colour stands clearly in that crossing's corner,
    and the crossing's colours."""
    geometry = BoardGeometry(board)
    for field in board.fields:
        for crossing in field.corners if not field.outer else ():
            lines = board.crossings[crossing].lines
            xy = geometry.corner_point(field.id, crossing, 1.25 * radius)
            [where] = locate_creatures(board, [Foot(DEMON, lines[0], xy)], pawn_radius=radius)
            if where.crossing == crossing and where.ambiguity is None:
                return xy, lines
    raise AssertionError("no clear corner on this layout")


def test_a_demon_marked_faintly_clearly_in_a_corner_of_its_colour_is_added() -> None:
    """A demon stands in a corner of its colour: a faint mark there, confirmed in the
    eight views, is a demon; not of a colour the crossing lacks, not beside a pawn read
    in its corner, not under CORNERED_DEMON_FROM, not when the views do not confirm it."""
    board = random_layout(3).board()  # millimetres; pawns 40 mm wide
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    faint = mark(lines[0], xy, (CORNERED_DEMON_FROM + 0.4) / 2)
    nothing = Pawns([], WIDTH, [])
    looked: list[Detection] = []
    sure = looked_at_as((CORNERED_DEMON_SCORE + 1.0) / 2, looked)

    added = add_cornered_demons(geometry, nothing, Detections([faint], WIDTH), sure)
    assert looked == [faint]
    assert [(p.kind, p.colour, p.foot) for p in added.pawns] == [(DEMON, lines[0], xy)]
    assert "taken for standing in its corner" in added.warnings[0].text

    unconfirmed = looked_at_as(CORNERED_DEMON_SCORE - 0.05, [])
    unconfirmed_added = add_cornered_demons(
        geometry, nothing, Detections([faint], WIDTH), unconfirmed
    )
    assert unconfirmed_added == nothing
    looked.clear()
    foreign = mark(min(set(LINE_COLOURS) - set(lines)), xy, faint.score)
    too_faint = mark(lines[0], xy, CORNERED_DEMON_FROM - 0.05)
    for marks in ([foreign], [too_faint]):
        added = add_cornered_demons(geometry, nothing, Detections(marks, WIDTH), sure)
        assert added == nothing and looked == [], marks
    beside = Pawns([seen(lines[1], (xy[0] + 0.8 * WIDTH, xy[1]))], WIDTH, [])
    here, there = geometry.locate(
        [Foot(DEMON, lines[0], xy), Foot(DEMON, lines[1], beside.pawns[0].foot)],
        pawn_radius=WIDTH / 2,
    )
    assert (there.crossing, there.sector) == (here.crossing, here.sector)  # its corner
    assert add_cornered_demons(geometry, beside, Detections([faint], WIDTH), sure) == beside
    assert looked == []


def test_a_demon_of_the_tables_hue_in_its_corner_is_taken_from_a_lower_mean() -> None:
    """Against its table a demon of the table's hue looks pale in every view: in a
    corner of its colour it is taken from TABLE_HUE_DEMON_SCORE in the mean, where the
    detector marked it from CONFIRM_FROM in the one view; a fainter mark there (bare
    felt or mat) and a demon of another colour still need CORNERED_DEMON_SCORE."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    nothing = Pawns([], WIDTH, [])
    pale = looked_at_as((TABLE_HUE_DEMON_SCORE + CORNERED_DEMON_SCORE) / 2, [])
    marked = mark(lines[0], xy, CONFIRM_FROM + 0.05)
    faint = mark(lines[0], xy, CONFIRM_FROM - 0.05)
    on_its_table = add_cornered_demons(
        geometry, nothing, Detections([marked], WIDTH), pale, table_hue_colour=lines[0]
    )
    assert [(p.kind, p.colour, p.foot) for p in on_its_table.pawns] == [(DEMON, lines[0], xy)]
    for one_view, table_hue in ((faint, lines[0]), (marked, lines[1]), (marked, None)):
        added = add_cornered_demons(
            geometry, nothing, Detections([one_view], WIDTH), pale, table_hue_colour=table_hue
        )
        assert added == nothing, (one_view.score, table_hue)
    too_pale = looked_at_as(TABLE_HUE_DEMON_SCORE - 0.02, [])
    assert (
        add_cornered_demons(
            geometry, nothing, Detections([marked], WIDTH), too_pale, table_hue_colour=lines[0]
        )
        == nothing
    )


def odds_everywhere(
    odds: float, asked: list[list[tuple[float, float]]]
) -> Callable[[list[tuple[float, float]]], list[float]]:
    """A checker giving ``odds`` at every place, noting what it was asked."""

    def checker(places: list[tuple[float, float]]) -> list[float]:
        asked.append(places)
        return [odds] * len(places)

    return checker


def test_a_faint_demon_of_the_tables_hue_the_views_miss_is_added_where_a_checker_sees_it() -> None:
    """A blue demon on the blue mat is marked faintly in the one view and in the eight
    (550183, 570142): a faint mark of the table's hue in a corner of its colour that
    the views do not confirm is added where the demon checker's odds at it reach
    CHECKED_DEMON and the views' mean CHECKED_DEMON_MEAN; the checker is asked once
    for all such marks, and not about marks the views confirm. A mark of another
    colour than the table's is asked alike (seventy-eighth session)."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    nothing = Pawns([], WIDTH, [])
    faint = Detections([mark(lines[0], xy, (CORNERED_DEMON_FROM + 0.4) / 2)], WIDTH)
    pale = looked_at_as((CHECKED_DEMON_MEAN + TABLE_HUE_DEMON_SCORE) / 2, [])
    asked: list[list[tuple[float, float]]] = []

    def odds_of(odds: float) -> Callable[[list[tuple[float, float]]], list[float]]:
        return odds_everywhere(odds, asked)

    def added(look: Callable[[Detection], Detection], odds: float, hue: str | None) -> Pawns:
        return add_cornered_demons(
            geometry, nothing, faint, look, table_hue_colour=hue, demon_odds=odds_of(odds)
        )

    seen_by_checker = added(pale, CHECKED_DEMON + 0.01, lines[0])
    assert [(p.kind, p.colour, p.foot) for p in seen_by_checker.pawns] == [(DEMON, lines[0], xy)]
    assert "demon checker" in seen_by_checker.warnings[0].text
    assert asked == [[xy]]
    assert added(pale, CHECKED_DEMON - 0.05, lines[0]) == nothing
    too_pale = looked_at_as(CHECKED_DEMON_MEAN - 0.05, [])
    assert added(too_pale, CHECKED_DEMON + 0.01, lines[0]) == nothing
    # Another table: the same odds.
    for hue in (lines[1], None):
        assert len(added(pale, CHECKED_DEMON + 0.01, hue).pawns) == 1, hue
        assert added(pale, CHECKED_DEMON - 0.05, hue) == nothing, hue
    asked.clear()
    # A mark of another colour than the table's that the views confirm: the checker is
    # not asked (one of the table's hue, see the next test).
    confirmed = looked_at_as((CORNERED_DEMON_SCORE + 1.0) / 2, [])
    for hue in (lines[1], None):
        assert len(added(confirmed, 0.0, hue).pawns) == 1
    assert asked == []


def test_a_demon_of_the_tables_hue_the_views_take_is_left_out_where_the_checker_says_no() -> None:
    """Under a harsh side light the lit weave of felt beside a crossing is marked as a
    green demon in every view (1590152: 0.42 in the one view, 0.24 in the mean; the
    demon checker 0.013): a demon of the table's hue taken on the views alone is asked
    of the checker, and left out under RULED_OUT_TABLE_HUE_DEMON; one of another colour
    is not asked."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    nothing = Pawns([], WIDTH, [])
    marked = Detections([mark(lines[0], xy, CONFIRM_FROM + 0.1)], WIDTH)
    for mean in ((TABLE_HUE_DEMON_SCORE + CORNERED_DEMON_SCORE) / 2, CORNERED_DEMON_SCORE + 0.1):
        look = looked_at_as(mean, [])
        for odds, kept in ((RULED_OUT_TABLE_HUE_DEMON, True),
                           (RULED_OUT_TABLE_HUE_DEMON - 0.01, False), (math.nan, True)):
            asked: list[list[tuple[float, float]]] = []
            read = add_cornered_demons(
                geometry, nothing, marked, look, table_hue_colour=lines[0],
                demon_odds=odds_everywhere(odds, asked),
            )
            assert [p.foot for p in read.pawns] == ([xy] if kept else []), (mean, odds)
            assert asked == [[xy]]
    # Left out, it keeps no weaker mark of its colour 0.6 widths further into its corner
    # out (a neighbour within a pawn width of a demon taken is likelier its head).
    crossing = min((c for c in board.crossings if set(c.lines) == set(lines)),
                   key=lambda c: math.dist(c.xy, xy))
    away = (xy[0] - crossing.xy[0], xy[1] - crossing.xy[1])
    step = 0.6 * WIDTH / math.hypot(*away)
    deeper = (xy[0] + step * away[0], xy[1] + step * away[1])
    [where] = locate_creatures(board, [Foot(DEMON, lines[0], deeper)], pawn_radius=WIDTH / 2)
    assert where.crossing == crossing.id  # (the layout's corner is deep enough)
    two = Detections([mark(lines[0], xy, CONFIRM_FROM + 0.1),
                      mark(lines[0], deeper, CONFIRM_FROM + 0.05)], WIDTH)
    read = add_cornered_demons(
        geometry, nothing, two, looked_at_as(CORNERED_DEMON_SCORE + 0.1, []),
        table_hue_colour=lines[0],
        demon_odds=lambda places: [0.0 if math.dist(p, xy) < 1 else 0.9 for p in places],
    )
    assert [p.foot for p in read.pawns] == [deeper]
    # Not the table's hue: the views alone take it, the checker unasked.
    asked = []
    other = add_cornered_demons(
        geometry, nothing, marked, looked_at_as(CORNERED_DEMON_SCORE + 0.1, []),
        table_hue_colour=lines[1], demon_odds=odds_everywhere(0.0, asked),
    )
    assert [p.foot for p in other.pawns] == [xy]
    assert asked == []


def test_a_faint_demon_of_the_tables_hue_the_views_see_palely_needs_lower_odds() -> None:
    """A green demon on felt may be marked under CONFIRM_FROM in the one view and only
    about TABLE_HUE_DEMON_SCORE in the mean (930181: 0.22 and 0.22, the checker 0.88):
    such a mark in a corner of its colour is added from the checker's odds
    FAINT_TABLE_HUE_DEMON; with a paler mean it still needs CHECKED_DEMON, and so does a
    mark of another colour than the table's."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    nothing = Pawns([], WIDTH, [])
    faint = Detections([mark(lines[0], xy, (CORNERED_DEMON_FROM + CONFIRM_FROM) / 2)], WIDTH)
    pale = looked_at_as((TABLE_HUE_DEMON_SCORE + CORNERED_DEMON_SCORE) / 2, [])
    paler = looked_at_as((CHECKED_DEMON_MEAN + TABLE_HUE_DEMON_SCORE) / 2, [])
    asked: list[list[tuple[float, float]]] = []

    def added(look: Callable[[Detection], Detection], odds: float, hue: str | None) -> Pawns:
        return add_cornered_demons(
            geometry, nothing, faint, look, table_hue_colour=hue,
            demon_odds=odds_everywhere(odds, asked),
        )

    between = (FAINT_TABLE_HUE_DEMON + CHECKED_DEMON) / 2
    seen_by_checker = added(pale, between, lines[0])
    assert [(p.kind, p.colour, p.foot) for p in seen_by_checker.pawns] == [(DEMON, lines[0], xy)]
    assert "demon checker" in seen_by_checker.warnings[0].text
    assert added(pale, FAINT_TABLE_HUE_DEMON - 0.05, lines[0]) == nothing
    assert added(paler, between, lines[0]) == nothing
    assert len(added(paler, CHECKED_DEMON + 0.01, lines[0]).pawns) == 1
    assert added(pale, between, lines[1]) == nothing
    assert len(added(pale, CHECKED_DEMON + 0.01, lines[1]).pawns) == 1


def two_corners_apart(
    geometry: BoardGeometry, radius: float, apart: tuple[float, float]
) -> tuple[tuple[float, float], tuple[float, float], tuple[str, ...]]:
    """Two places in two corners of one crossing, between ``apart`` (from, to) of each
    other, at which demons (of the crossing's two colours) are located clearly in those
    corners; and the crossing's colours."""
    board = geometry.board
    for crossing in board.crossings:
        fields = [f.id for f in board.fields if not f.outer and crossing.id in f.corners]
        for first, second in itertools.permutations(fields, 2):
            for clearance in np.linspace(0.5, 1.25, 16) * radius:
                here = geometry.corner_point(first, crossing.id, clearance)
                there = geometry.corner_point(second, crossing.id, clearance)
                if not apart[0] < math.dist(here, there) < apart[1]:
                    continue
                feet = [Foot(DEMON, crossing.lines[0], here), Foot(DEMON, crossing.lines[1], there)]
                located = geometry.locate(feet, pawn_radius=radius)
                if [(w.crossing, w.field, w.ambiguity) for w in located] == [
                    (crossing.id, first, None), (crossing.id, second, None)
                ]:
                    return here, there, crossing.lines
    raise AssertionError("no two corners so near on this layout")


def test_the_demon_checker_is_asked_clear_of_a_demon_read_beside_the_mark() -> None:
    """The demon checker was taught no only where no demon stands within CLEAR_OF_DEMON
    pawn widths of the place: nearer a demon read, its yes may be about that demon
    (1130161: a blue mark 0.67 widths in front of a yellow demon on navy cloth, at the
    blue cord's knot, 0.96). A faint mark in its corner with a demon read in another
    corner of the crossing that near is asked about again at the place CLEAR_OF_DEMON
    from that demon, on the line through the mark, and added only where the odds there
    reach AWAY_DEMON (two demons touching); alone, or with a ghost there instead (a demon
    half behind it), the odds at the mark decide."""
    geometry = BoardGeometry(random_layout(3).board())
    xy, beside, lines = two_corners_apart(
        geometry, WIDTH / 2, (SAME_PAWN * WIDTH, CLEAR_OF_DEMON * WIDTH)
    )
    faint = Detections([mark(lines[0], xy, (CORNERED_DEMON_FROM + CONFIRM_FROM) / 2)], WIDTH)
    pale = looked_at_as((CHECKED_DEMON_MEAN + TABLE_HUE_DEMON_SCORE) / 2, [])
    asked: list[tuple[float, float]] = []

    def added(
        pawns: Pawns, away_odds: float, odds: float = 1.0
    ) -> list[tuple[str, tuple[float, float]]]:
        def checker(places: list[tuple[float, float]]) -> list[float]:
            asked.extend(places)
            return [odds if math.dist(place, xy) < 1e-9 else away_odds for place in places]

        read = add_cornered_demons(geometry, pawns, faint, pale, table_hue_colour=lines[0],
                                   demon_odds=checker)
        return [(p.colour, p.foot) for p in read.pawns if p not in pawns.pawns]

    assert added(Pawns([], WIDTH, []), 0.0) == [(lines[0], xy)]
    assert asked == [xy]
    demon_beside = Pawns([seen(lines[1], beside)], WIDTH, [])
    asked.clear()
    assert added(demon_beside, AWAY_DEMON - 0.05) == []
    assert asked[0] == xy and len(asked) == 2
    away = asked[1]
    assert math.dist(away, beside) == pytest.approx(CLEAR_OF_DEMON * WIDTH)
    assert math.dist(away, xy) + math.dist(xy, beside) == pytest.approx(math.dist(away, beside))
    assert added(demon_beside, AWAY_DEMON + 0.01) == [(lines[0], xy)]
    assert added(demon_beside, 1.0, odds=CHECKED_DEMON - 0.05) == []  # both must say yes
    assert added(Pawns([seen("white", beside)], WIDTH, []), 0.0) == [(lines[0], xy)]


def test_the_place_clear_of_the_demons_read_is_not_asked_near_another() -> None:
    """The place the checker is asked at instead of a mark near a demon read lies
    CLEAR_OF_DEMON from that demon, away from it through the mark; where that place
    lies within CLEAR_OF_DEMON of another demon read (a mark in a crowd), there is
    none."""
    near, mark_xy = (0.0, 0.0), (0.6 * WIDTH, 0.0)
    assert _away_from_demons(mark_xy, [near], WIDTH) == pytest.approx((CLEAR_OF_DEMON * WIDTH, 0))
    far_off = (5 * WIDTH, 0.0)
    assert _away_from_demons(mark_xy, [near, far_off], WIDTH) == pytest.approx(
        (CLEAR_OF_DEMON * WIDTH, 0)
    )
    crowd = (CLEAR_OF_DEMON * WIDTH + 0.5 * WIDTH, 0.0)
    assert _away_from_demons(mark_xy, [near, crowd], WIDTH) is None


def test_a_faint_demon_mark_beside_its_own_knot_is_not_asked_of_the_checker() -> None:
    """The demon checker takes a knot for a demon (640145: a blue mark at the blue knot
    on wood, 0.96): a faint mark of another colour than the table's within
    CHECKER_CLEAR_OF_KNOT pawn widths of the knot of its colour is not asked about; one
    further from it is, and so is one of the table's hue (as before the knot rule)."""
    board = random_layout(3).board()
    xy, lines = clear_corner(board, WIDTH / 2)
    nothing = Pawns([], WIDTH, [])
    faint = Detections([mark(lines[0], xy, (CORNERED_DEMON_FROM + CONFIRM_FROM) / 2)], WIDTH)
    pale = looked_at_as((CHECKED_DEMON_MEAN + TABLE_HUE_DEMON_SCORE) / 2, [])

    def with_knot_at(knot: tuple[float, float]) -> BoardGeometry:
        moved = tuple(
            replace(line, knot=knot) if line.colour == lines[0] else line for line in board.lines
        )
        return BoardGeometry(replace(board, lines=moved))

    for knot_apart, taken in ((0.5, False), (CHECKER_CLEAR_OF_KNOT + 0.5, True)):
        asked: list[list[tuple[float, float]]] = []
        read = add_cornered_demons(
            with_knot_at((xy[0] + knot_apart * WIDTH, xy[1])), nothing, faint, pale,
            demon_odds=odds_everywhere(1.0, asked),
        )
        assert (len(read.pawns) == 1) == taken and (asked == [[xy]]) == taken, knot_apart
    table_hue = add_cornered_demons(
        with_knot_at((xy[0] + 0.5 * WIDTH, xy[1])), nothing, faint, pale,
        table_hue_colour=lines[0], demon_odds=odds_everywhere(1.0, []),
    )
    assert len(table_hue.pawns) == 1


def test_a_demon_marked_beside_a_ghost_is_added_where_the_demon_checker_sees_it() -> None:
    """A demon half behind the ghost it touches is marked faintly (820168, 840172): a
    mark in a corner of its colour with a ghost read within a pawn width is added only
    where the demon checker's odds at it reach BESIDE_GHOST_DEMON and the views' mean
    CHECKED_DEMON_MEAN (on any table): it may be the ghost's own mark. Without the
    checker such a mark is not added, nor looked at."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    ghost = seen("white", (xy[0] + 0.8 * WIDTH, xy[1]))
    pawns = Pawns([ghost], WIDTH, [])
    faint = Detections([mark(lines[0], xy, (CORNERED_DEMON_FROM + 0.4) / 2)], WIDTH)
    asked: list[list[tuple[float, float]]] = []

    def odds_of(odds: float) -> Callable[[list[tuple[float, float]]], list[float]]:
        return odds_everywhere(odds, asked)

    def added(mean: float, odds: float) -> Pawns:
        return add_cornered_demons(
            geometry, pawns, faint, looked_at_as(mean, []), demon_odds=odds_of(odds)
        )

    # The views confirm it as a demon standing alone would be confirmed: not enough.
    confirmed = (CORNERED_DEMON_SCORE + 1.0) / 2
    assert added(confirmed, BESIDE_GHOST_DEMON - 0.05) == pawns
    assert asked == [[xy]]
    seen_by_checker = added(CHECKED_DEMON_MEAN + 0.02, BESIDE_GHOST_DEMON + 0.05)
    assert [(p.kind, p.colour, p.foot) for p in seen_by_checker.pawns] == [
        (GHOST, WHITE, ghost.foot), (DEMON, lines[0], xy)]
    assert "demon checker" in seen_by_checker.warnings[0].text
    assert added(CHECKED_DEMON_MEAN - 0.05, 1.0) == pawns
    looked: list[Detection] = []
    no_checker = add_cornered_demons(geometry, pawns, faint, looked_at_as(confirmed, looked))
    assert no_checker == pawns and looked == []
    # Beside a demon read in its corner as well: that demon marked twice, not asked.
    asked.clear()
    twice = Pawns(
        [seen("white", (xy[0], xy[1] + 0.8 * WIDTH)), seen(lines[1], ghost.foot)], WIDTH, []
    )
    here, there = geometry.locate(
        [Foot(DEMON, lines[0], xy), Foot(DEMON, lines[1], twice.pawns[1].foot)],
        pawn_radius=WIDTH / 2,
    )
    assert (there.crossing, there.sector) == (here.crossing, here.sector)
    assert add_cornered_demons(geometry, twice, faint, looked_at_as(confirmed, []),
                               demon_odds=odds_of(1.0)) == twice
    assert asked == []
    # A fainter mark a width from one held for the checker is its head, though the
    # views confirm it and it stands clear of the ghost.
    crossing = min(board.crossings, key=lambda c: math.dist(c.xy, xy))
    away = math.dist(crossing.xy, xy)
    along = ((xy[0] - crossing.xy[0]) / away, (xy[1] - crossing.xy[1]) / away)
    head = (xy[0] + 0.6 * WIDTH * along[0], xy[1] + 0.6 * WIDTH * along[1])
    behind_crossing = seen(
        "white", (xy[0] - 0.7 * WIDTH * along[0], xy[1] - 0.7 * WIDTH * along[1])
    )
    [at_head] = geometry.locate([Foot(DEMON, lines[0], head)], pawn_radius=WIDTH / 2)
    assert (at_head.crossing, at_head.sector) == (here.crossing, here.sector)
    two_marks = Detections([mark(lines[0], xy, 0.35), mark(lines[0], head, 0.15)], WIDTH)
    held = Pawns([behind_crossing], WIDTH, [])
    read = add_cornered_demons(geometry, held, two_marks, looked_at_as(confirmed, []),
                               demon_odds=odds_of(1.0))
    assert [p.foot for p in read.pawns if p.kind == DEMON] == [xy]


def test_a_ghost_read_at_a_demons_mark_is_that_demon_where_both_checkers_say_so() -> None:
    """A dark demon on a mat of its hue may be marked surer as a ghost (830173): a ghost read
    with a demon's mark from CORNERED_DEMON_FROM within SAME_PAWN is read as that demon at
    the mark (the strongest such mark) where at the ghost the ghost checker's odds stay
    under NOT_A_GHOST and the demon checker's reach DEMON_NOT_GHOST, with the mark's
    score as its confidence and a warning at it in place of the ghost's. Not where either
    checker disagrees, nor without the ghost checker; the checkers are not asked about a
    ghost with no such mark (too faint, too far, a demon's own, beside a demon in its
    corner, or, where the mark is in no corner of its colour, beside any demon read).
    One ghost a mark."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, lines = clear_corner(board, WIDTH / 2)
    ghost = seen("white", (xy[0] + 0.3 * SAME_PAWN * WIDTH, xy[1]))
    pawns = Pawns([ghost], WIDTH, [Remark("a ghost at {at} seen faintly", ghost.foot)])
    demon_mark = mark(lines[0], xy, CORNERED_DEMON_FROM + 0.2)
    own_mark = mark("white", ghost.foot, 0.6)  # the ghost's, stronger
    marks = Detections([own_mark, demon_mark], WIDTH)
    never = looked_at_as(0.0, [])  # the views confirm nothing
    asked: list[list[tuple[float, float]]] = []

    def read(detections: Detections, demon: float, ghost_odds: float | None,
             read_first: Pawns = pawns) -> Pawns:
        return add_cornered_demons(
            geometry, read_first, detections, never,
            demon_odds=odds_everywhere(demon, asked),
            ghost_odds=None if ghost_odds is None else odds_everywhere(ghost_odds, asked),
        )

    turned = read(marks, DEMON_NOT_GHOST, 0.0)
    assert [(p.kind, p.colour, p.foot, p.confidence) for p in turned.pawns] == [
        (DEMON, lines[0], xy, round(demon_mark.score, 2))]
    assert asked == [[ghost.foot], [ghost.foot]]
    [warning] = turned.warnings
    assert warning.at == xy and "read first as a ghost" in warning.text
    assert read(marks, DEMON_NOT_GHOST - 0.01, 0.0) == pawns
    assert read(marks, 1.0, NOT_A_GHOST) == pawns
    asked.clear()
    # Without the ghost checker, the mark at the ghost is the ghost's: nothing asked.
    assert read(marks, 1.0, None) == pawns and asked == []
    # Of two marks at the ghost, the stronger names the demon's colour.
    stronger = mark(lines[1], (xy[0], xy[1] + 1.0), demon_mark.score + 0.1)
    for order in ([demon_mark, stronger], [stronger, demon_mark]):
        [demon] = read(Detections(order, WIDTH), 1.0, 0.0).pawns
        assert (demon.kind, demon.colour, demon.foot) == (DEMON, lines[1], stronger.xy)
    # Two ghosts at one mark: the nearer becomes the demon, the other stays.
    farther = seen("white", (xy[0] - 0.4 * SAME_PAWN * WIDTH, xy[1]))
    two = read(marks, 1.0, 0.0, Pawns([farther, ghost], WIDTH, []))
    assert [(p.kind, p.foot) for p in two.pawns] == [(GHOST, farther.foot), (DEMON, xy)]
    asked.clear()
    too_faint = replace(demon_mark, score=CORNERED_DEMON_FROM - 0.05)
    assert read(Detections([too_faint], WIDTH), 1.0, 0.0) == pawns and asked == []
    # A mark of a colour the corner's crossing lacks: a demon in no corner of its
    # colour, a violation to report (1390199: a green demon at a field's centre on
    # felt, read as a ghost) ...
    other_colour = next(c for c in LINE_COLOURS if c not in lines)
    foreign = replace(demon_mark, colour=other_colour)
    [stray] = read(Detections([foreign], WIDTH), 1.0, 0.0).pawns
    assert (stray.kind, stray.colour, stray.foot) == (DEMON, other_colour, xy)
    assert read(Detections([foreign], WIDTH), DEMON_NOT_GHOST - 0.01, 0.0) == pawns
    # ... unless a demon is read within a pawn width of the mark, whatever its corner
    # (its head may be the pawn marked, and it stands in the checkers' crops).
    for demon in (seen(lines[0], (xy[0], xy[1] - 0.95 * WIDTH)),
                  seen(other_colour, (xy[0] + 0.95 * WIDTH, xy[1]))):
        beside_any = Pawns([ghost, demon], WIDTH, [])
        asked.clear()
        assert read(Detections([foreign], WIDTH), 1.0, 0.0, beside_any) == beside_any
        assert asked == []
    # Two ghosts at two marks 0.6 widths apart (one pawn's foot and head): the nearer
    # pair turns, and that demon keeps the other mark out.
    head = (xy[0] + 0.6 * WIDTH, xy[1])
    ghost_at_head = seen("white", (head[0] + 0.35 * SAME_PAWN * WIDTH, head[1]))
    pair = read(Detections([foreign, replace(foreign, xy=head)], WIDTH), 1.0, 0.0,
                Pawns([ghost, ghost_at_head], WIDTH, []))
    assert [(p.kind, p.foot) for p in pair.pawns] == [(DEMON, xy), (GHOST, ghost_at_head.foot)]
    a_width_off = seen(lines[0], (xy[0], xy[1] - 1.05 * WIDTH))
    clear = read(Detections([foreign], WIDTH), 1.0, 0.0, Pawns([ghost, a_width_off], WIDTH, []))
    assert [(p.kind, p.colour) for p in clear.pawns] == [(DEMON, other_colour), (DEMON, lines[0])]
    asked.clear()
    # In a corner of its colour, a demon read a width off in another corner is no bar
    # (two demons touching in neighbouring corners).
    board_b, a, b, _, _ = corners_a_pawn_apart(WIDTH / 2)
    ghost_a = seen("white", (a[0][0] + 0.3 * SAME_PAWN * WIDTH, a[0][1]))
    beside_b = Pawns([ghost_a, seen(b[1], b[0])], WIDTH, [])
    turned_a = add_cornered_demons(
        BoardGeometry(board_b), beside_b, Detections([mark(a[1], a[0], 0.5)], WIDTH), never,
        demon_odds=odds_everywhere(1.0, []), ghost_odds=odds_everywhere(0.0, []),
    )
    assert [(p.kind, p.foot) for p in turned_a.pawns] == [(DEMON, a[0]), (DEMON, b[0])]
    # A demon read at the mark (its own), or a width from it in the same corner.
    own_demon = seen(lines[0], (xy[0], xy[1] - 1.0))
    for beside in (own_demon, seen(lines[1], (xy[0], xy[1] - 0.8 * WIDTH))):
        [here, there] = geometry.locate(
            [Foot(DEMON, lines[0], xy), Foot(DEMON, beside.colour, beside.foot)],
            pawn_radius=WIDTH / 2)
        assert (there.crossing, there.sector) in ((None, None), (here.crossing, here.sector))
        with_demon = Pawns([ghost, beside], WIDTH, [])
        assert GHOST in [p.kind for p in read(marks, 1.0, 0.0, with_demon).pawns]
    far = replace(demon_mark, xy=(ghost.foot[0] - 1.1 * SAME_PAWN * WIDTH, ghost.foot[1]))
    assert GHOST in [p.kind for p in read(Detections([far], WIDTH), 1.0, 0.0).pawns]
    assert [ghost.foot] not in asked


Spot = tuple[tuple[float, float], str, Location]

def located_spots(seed: int, radius: float) -> tuple[Board, list[Spot]]:
    """A generated board (millimetres) and points round each of its crossings, each
    located as a demon of each of the crossing's colours, with pawns of ``radius``."""
    board = random_layout(seed).board()
    geometry = BoardGeometry(board)
    spots = []
    for crossing in board.crossings:
        for reach, turn in itertools.product((1.0, 1.4, 1.8), range(16)):
            angle = turn * math.pi / 8
            x = crossing.xy[0] + reach * radius * math.cos(angle)
            y = crossing.xy[1] + reach * radius * math.sin(angle)
            for colour in crossing.lines:
                [where] = geometry.locate([Foot(DEMON, colour, (x, y))], pawn_radius=radius)
                spots.append(((x, y), colour, where))
    return board, spots


def a_pawn_apart(a: Spot, b: Spot, radius: float) -> bool:
    """Whether two spots stand touching pawns' distance apart (0.55-0.95 widths)."""
    return 0.55 < math.dist(a[0], b[0]) / (2 * radius) < 0.95


def corner(spot: Spot) -> tuple[int | None, int | None]:
    """The (crossing, sector) the locator put a spot in."""
    return spot[2].crossing, spot[2].sector


def corners_a_pawn_apart(radius: float) -> tuple[Board, Spot, Spot, Spot, Spot]:
    """A board and four spots of one colour: ``a`` clearly in a corner of its colour,
    ``b`` clearly in another corner, ``c`` clearly in ``a``'s, ``d`` on a string; each of
    ``b``, ``c``, ``d`` a pawn width apart from ``a``."""
    for seed in range(3, 20):
        board, spots = located_spots(seed, radius)
        clear = [s for s in spots if s[2].crossing is not None and s[2].ambiguity is None]
        on_string = [s for s in spots if s[2].ambiguity == ON_STRING_AMBIGUITY]
        for a in clear:
            if a[1] not in board.crossings[a[2].crossing or 0].lines:
                continue
            near = [s for s in clear if s[1] == a[1] and a_pawn_apart(a, s, radius)]
            b = next((s for s in near if corner(s) != corner(a)), None)
            c = next((s for s in near if corner(s) == corner(a)), None)
            d = next((s for s in on_string if s[1] == a[1] and a_pawn_apart(a, s, radius)), None)
            if b and c and d:
                return board, a, b, c, d
    raise AssertionError("no such spots on these layouts")


def test_a_demon_marked_faintly_beside_one_in_another_corner_is_added() -> None:
    """Two demons of a colour may stand touching in corners a pawn width apart: a faint
    mark in a corner of its colour beside a demon read in another corner is looked at
    again and added; beside a demon in its own corner (one pawn marked twice, at its
    foot and its head), a demon on a string, or a ghost, it is not looked at."""
    board, a, b, c, d = corners_a_pawn_apart(WIDTH / 2)  # pawns 40 mm wide
    geometry = BoardGeometry(board)
    faint = mark(a[1], a[0], (CORNERED_DEMON_FROM + 0.4) / 2)
    looked: list[Detection] = []
    sure = looked_at_as((CORNERED_DEMON_SCORE + 1.0) / 2, looked)

    other_corner = Pawns([seen(b[1], b[0])], WIDTH, [])
    added = add_cornered_demons(geometry, other_corner, Detections([faint], WIDTH), sure)
    assert looked == [faint]
    assert [(p.colour, p.foot) for p in added.pawns] == [(b[1], b[0]), (a[1], a[0])]

    looked.clear()
    for beside in (seen(c[1], c[0]), seen(d[1], d[0]), seen("white", b[0])):
        pawns = Pawns([beside], WIDTH, [])
        assert add_cornered_demons(geometry, pawns, Detections([faint], WIDTH), sure) == pawns
        assert looked == [], beside


def between_corners_a_pawn_apart(radius: float) -> tuple[Board, Spot, Spot, Spot]:
    """A board and three spots: ``m`` between corners, the one the locator picks of its
    colour; ``p`` clearly in that corner, ``q`` clearly in another; each a pawn width
    apart from ``m``."""
    for seed in range(3, 20):
        board, spots = located_spots(seed, radius)
        clear = [s for s in spots if s[2].crossing is not None and s[2].ambiguity is None]
        for m in spots:
            where = m[2]
            if where.ambiguity != BETWEEN_CORNERS_AMBIGUITY or where.crossing is None:
                continue
            if m[1] not in board.crossings[where.crossing].lines:
                continue
            near = [s for s in clear if a_pawn_apart(m, s, radius)]
            p = next((s for s in near if corner(s) == corner(m)), None)
            q = next((s for s in near if corner(s) != corner(m)), None)
            if p and q:
                return board, m, p, q
    raise AssertionError("no such spots on these layouts")


def test_a_demon_marked_faintly_between_corners_is_looked_at_in_the_one_picked() -> None:
    """A faint mark between corners stands in the one the locator picks: it is looked at
    beside a demon read in another corner, not beside one in that corner. (Touching
    demons in neighbouring corners each fit the other's corner about as well.)"""
    board, m, p, q = between_corners_a_pawn_apart(WIDTH / 2)
    geometry = BoardGeometry(board)
    faint = mark(m[1], m[0], (CORNERED_DEMON_FROM + 0.4) / 2)
    looked: list[Detection] = []
    sure = looked_at_as((CORNERED_DEMON_SCORE + 1.0) / 2, looked)

    elsewhere = Pawns([seen(q[1], q[0])], WIDTH, [])
    added = add_cornered_demons(geometry, elsewhere, Detections([faint], WIDTH), sure)
    assert looked == [faint] and [p.foot for p in added.pawns] == [q[0], m[0]]
    looked.clear()
    same_corner = Pawns([seen(p[1], p[0])], WIDTH, [])
    kept = add_cornered_demons(geometry, same_corner, Detections([faint], WIDTH), sure)
    assert kept == same_corner and looked == []


def beyond_reach(
    board, radius: float, within: float, not_within: float = 1.0
) -> tuple[tuple[float, float], int, tuple[str, ...]]:
    """A point on a corner's bisector where a demon of the crossing's first colour is
    away from every corner with pawns of ``radius`` and ``not_within`` times that, and
    in that corner with pawns ``within`` times as wide; the crossing and its colours."""
    geometry = BoardGeometry(board)
    for field in board.fields:
        for crossing in field.corners if not field.outer else ():
            lines = board.crossings[crossing].lines
            apex = board.crossings[crossing].xy
            snug = geometry.corner_point(field.id, crossing, 1.25 * radius)
            step = ((snug[0] - apex[0]) / 20, (snug[1] - apex[1]) / 20)
            for k in range(20, 160):
                xy = (apex[0] + k * step[0], apex[1] + k * step[1])
                foot = [Foot(DEMON, lines[0], xy)]
                [narrow] = geometry.locate(foot, pawn_radius=radius)
                [doubted] = geometry.locate(foot, pawn_radius=not_within * radius)
                [wide] = geometry.locate(foot, pawn_radius=within * radius)
                if (
                    narrow.ambiguity == FAR_FROM_CORNERS_AMBIGUITY
                    and narrow.field == field.id
                    and doubted.crossing is None
                    and (wide.field, wide.crossing) == (field.id, crossing)
                ):
                    return xy, crossing, lines
    raise AssertionError("no corner on this layout with such a point")


def test_a_demon_just_beyond_its_own_corners_reach_is_counted_there_with_a_doubt() -> None:
    """The pawn width read from a photo may be too small: a demon of the crossing's
    colour just beyond the corner's reach goes into it, marked EDGE_OF_REACH; one of a
    colour the crossing lacks, or one twice as far, stays away from every corner."""
    board = random_layout(3).board()  # millimetres; pawns 40 mm wide
    geometry = BoardGeometry(board)
    xy, crossing, lines = beyond_reach(board, WIDTH / 2, PAWN_WIDTH_DOUBT)
    foreign = min(set(LINE_COLOURS) - set(lines))
    apex = board.crossings[crossing].xy
    twice = (2 * xy[0] - apex[0], 2 * xy[1] - apex[1])
    pawns = Pawns([seen(lines[0], xy), seen(foreign, xy), seen(lines[1], twice)], WIDTH, [])

    own, other, far = place(geometry, pawns)
    assert (own.crossing, own.ambiguity) == (crossing, EDGE_OF_REACH)
    assert own.creature.crossing == crossing
    assert (other.crossing, other.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)
    assert (far.crossing, far.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)


def test_a_demon_within_the_doubt_is_not_counted_in_a_corner_another_demon_holds() -> None:
    """A corner holds one demon: a demon beyond its corner's reach with the width read
    is not counted in it within the doubt where another demon stands in it (the doubt
    would make it a second demon there, a violation the photo does not show surely);
    it stays away from every corner. With the other demon in another corner of the
    field, or in another field's corner at that crossing, the doubt counts it as
    before."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, crossing, lines = beyond_reach(board, WIDTH / 2, PAWN_WIDTH_DOUBT)
    [alone] = place(geometry, Pawns([seen(lines[0], xy)], WIDTH, []))
    assert (alone.crossing, alone.ambiguity) == (crossing, EDGE_OF_REACH)
    field = alone.field
    assert field is not None
    snug = geometry.corner_point(field, crossing, 1.25 * WIDTH / 2)
    doubted, holder = place(geometry, Pawns([seen(lines[0], xy), seen(lines[1], snug)], WIDTH, []))
    assert (holder.field, holder.crossing, holder.ambiguity) == (field, crossing, None)
    assert (doubted.crossing, doubted.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)
    assert doubted.creature.crossing is None and doubted.field == field
    other = next(c for c in board.fields[field].corners if c != crossing)
    neighbour = next(f.id for f in board.fields if crossing in f.corners and f.id != field)
    for holder_field, holder_crossing in ((field, other), (neighbour, crossing)):
        elsewhere = geometry.corner_point(holder_field, holder_crossing, 1.25 * WIDTH / 2)
        colour = board.crossings[holder_crossing].lines[0]
        doubted, holder = place(
            geometry, Pawns([seen(lines[0], xy), seen(colour, elsewhere)], WIDTH, []))
        assert (holder.field, holder.crossing) == (holder_field, holder_crossing)
        assert (doubted.crossing, doubted.ambiguity) == (crossing, EDGE_OF_REACH)


def test_a_demon_seen_wider_than_most_is_counted_in_its_corner_with_its_own_width() -> None:
    """A tilted camera shows near pawns larger: a demon whose blob is wider than the
    photo's typical one reaches its corner with the doubt on its own width, not on a
    demon as wide as the typical one (with the smaller doubt of a width measured on the
    pawn itself)."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    own = 1.25
    assert OWN_WIDTH_DOUBT * own > PAWN_WIDTH_DOUBT
    xy, crossing, [colour, _] = beyond_reach(
        board, WIDTH / 2, OWN_WIDTH_DOUBT * own, not_within=PAWN_WIDTH_DOUBT
    )
    near = SeenPawn(DEMON, colour, xy, own * WIDTH, 1.0)
    [location] = place(geometry, Pawns([near], WIDTH, []), typical_width=WIDTH)
    assert (location.crossing, location.ambiguity) == (crossing, EDGE_OF_REACH)
    typical = replace(near, width=WIDTH)
    [location] = place(geometry, Pawns([typical], WIDTH, []), typical_width=WIDTH)
    assert (location.crossing, location.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)
    # Wide against the rules' typical blob, not against the detector's width (which
    # may be smaller where the rules' blobs held shadows).
    [location] = place(geometry, Pawns([near], WIDTH, []), typical_width=own * WIDTH)
    assert (location.crossing, location.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)
    # A blob far wider than most (a pawn with its shadow) counts as MOST_OWN_WIDTH wide.
    beyond_most = OWN_WIDTH_DOUBT * MOST_OWN_WIDTH
    xy, crossing, [colour, _] = beyond_reach(
        board, WIDTH / 2, OWN_WIDTH_DOUBT * 1.6, not_within=beyond_most
    )
    wide = SeenPawn(DEMON, colour, xy, 1.6 * WIDTH, 1.0)
    [location] = place(geometry, Pawns([wide], WIDTH, []), typical_width=WIDTH)
    assert (location.crossing, location.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)


def test_a_demon_is_located_with_the_width_the_tables_plane_gives_at_its_foot() -> None:
    """A pawn at the near edge of a tilted photo is wider than the photo's one width: a
    demon there that reaches its corner only as a pawn 1.3 times as wide (beyond the
    doubt on the photo's width) is put in it, with no doubt, where the pawns measured
    (LEAST_PAWNS_FOR_PLANE or more) lie on a plane that makes it so, though most of
    them are as wide as the photo's width; with too few pawns measured, the photo's
    width decides."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    xy, crossing, [colour, _] = beyond_reach(
        board, WIDTH / 2, 1.3, not_within=PAWN_WIDTH_DOUBT * OWN_WIDTH_DOUBT
    )
    # Ghosts 20 pawn widths to the right, where 1 / width has grown to 1 / WIDTH.
    far = 20 * WIDTH
    ghosts = [seen("white", (xy[0] + far, xy[1] + k * 3 * WIDTH)) for k in range(-3, 3)]
    assert len(ghosts) >= LEAST_PAWNS_FOR_PLANE
    slope = (1 / WIDTH - 1 / (1.3 * WIDTH)) / far

    def on_a_plane(feet: Sequence[tuple[float, float]]) -> list[float]:
        return [1 / (1 / (1.3 * WIDTH) + slope * (x - xy[0])) for x, _ in feet]

    pawns = Pawns([seen(colour, xy), *ghosts], WIDTH, [])
    [as_one_width, *_] = place(geometry, pawns)
    assert (as_one_width.crossing, as_one_width.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)
    assert np.median(on_a_plane([p.foot for p in pawns.pawns])) == pytest.approx(WIDTH)
    [demon, *_] = place(geometry, pawns, measure_widths=on_a_plane)
    assert demon.crossing == crossing and demon.ambiguity != EDGE_OF_REACH
    few = Pawns(pawns.pawns[: LEAST_PAWNS_FOR_PLANE - 1], WIDTH, [])
    [alone, *_] = place(geometry, few, measure_widths=on_a_plane)
    assert (alone.crossing, alone.ambiguity) == (None, FAR_FROM_CORNERS_AMBIGUITY)


def between_two_corners(
    board: Board, radius: float
) -> Iterator[tuple[list[Point], list[Location], int, int]]:
    """For each two corners ``a`` and ``b`` of a field, points from a demon's snug spot
    in ``a`` to that in ``b`` (of the colour of ``a``'s first line), and where it
    stands at each (as the reader locates it: :func:`vision.reader.locate_in_photo`)."""
    geometry = BoardGeometry(board)
    for field in board.fields:
        for a, b in itertools.combinations(field.corners if not field.outer else (), 2):
            start = np.array(geometry.corner_point(field.id, a, 1.25 * radius))
            end = np.array(geometry.corner_point(field.id, b, 1.25 * radius))
            colour = board.crossings[a].lines[0]
            points = [tuple(start + t * (end - start)) for t in np.linspace(0, 1, 201)]
            feet = [Foot(DEMON, colour, p) for p in points]
            yield points, locate_in_photo(geometry, feet, radius), a, b


def across_a_corners_edge(board: Board, radius: float) -> tuple[Point, Point, str, int, int]:
    """Two points of a field, next to each other (1/200 of the way between the two
    corners' snug spots), where a demon of ``colour`` stands between two corners: at
    the first in crossing ``a``'s corner, at the second in crossing ``b``'s."""
    for points, where, a, b in between_two_corners(board, radius):
        for i in range(len(points) - 1):
            this, that = where[i], where[i + 1]
            if (
                (this.crossing, that.crossing) == (a, b)
                and this.ambiguity == BETWEEN_CORNERS_AMBIGUITY
                and this.field == that.field
            ):
                return points[i], points[i + 1], this.creature.colour, a, b
    raise AssertionError("no two corners of one field on this layout")


def steadily_between_corners(board: Board, radius: float) -> tuple[Point, str]:
    """A point where a demon stands between two corners, in the same one wherever
    it stands within FOOT_SHIFT pawn widths of it."""
    geometry = BoardGeometry(board)
    for points, where, _, _ in between_two_corners(board, radius):
        for point, location in zip(points, where, strict=True):
            if location.ambiguity != BETWEEN_CORNERS_AMBIGUITY:
                continue
            around = [
                Foot(DEMON, location.creature.colour, (point[0] + dx, point[1] + dy))
                for dx in np.linspace(-1, 1, 9) * FOOT_SHIFT * 2 * radius
                for dy in np.linspace(-1, 1, 9) * FOOT_SHIFT * 2 * radius
            ]
            spots = {(s.field, s.crossing) for s in locate_in_photo(geometry, around, radius)}
            if spots == {(location.field, location.crossing)}:
                return point, location.creature.colour
    raise AssertionError("no demon steadily between corners on this layout")


def test_a_demon_between_two_corners_is_located_by_its_foot_looked_at_again() -> None:
    """A demon the locator finds between two corners is located again at its foot in
    the eight views, where they mark it; a ghost, a demon clearly in its corner, or one
    between corners that the views could not move (none within FOOT_SHIFT pawn widths
    of its foot stands elsewhere) is not looked at again."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    first, second, colour, a, b = across_a_corners_edge(board, WIDTH / 2)
    clear_xy, clear_lines = clear_corner(board, WIDTH / 2)
    between, clear = seen(colour, first), seen(clear_lines[0], clear_xy)
    steady_xy, steady_colour = steadily_between_corners(board, WIDTH / 2)
    steady = seen(steady_colour, steady_xy)
    ghost = seen("white", (first[0] + 5 * WIDTH, first[1]))
    pawns = Pawns([between, clear, steady, ghost], WIDTH, [])
    asked: list[SeenPawn] = []

    def looked_again(at: Point | None) -> Callable[[SeenPawn], Point | None]:
        def foot(pawn: SeenPawn) -> Point | None:
            asked.append(pawn)
            return at

        return foot

    [as_read, *_] = place(geometry, pawns)
    assert (as_read.crossing, as_read.ambiguity) == (a, BETWEEN_CORNERS_AMBIGUITY)
    [moved, in_corner, steadily, in_field] = place(
        geometry, pawns, foot_again=looked_again(second)
    )
    assert asked == [between]
    assert (moved.crossing, moved.creature.xy) == (b, second)
    assert (in_corner.creature.xy, in_field.creature.xy) == (clear_xy, ghost.foot)
    assert (steadily.ambiguity, steadily.creature.xy) == (BETWEEN_CORNERS_AMBIGUITY, steady.foot)
    # Where the views do not mark it, or put it in no corner or on a string (here on
    # the crossing, where the locator names a corner all the same), its own foot stays.
    on_string = board.crossings[a].xy
    [there] = geometry.locate([Foot(DEMON, colour, on_string)], pawn_radius=WIDTH / 2)
    assert there.crossing is not None and there.ambiguity == ON_STRING_AMBIGUITY
    for elsewhere in (None, beside_the_board(board, 20), on_string):
        [kept, *_] = place(geometry, pawns, foot_again=looked_again(elsewhere))
        assert (kept.crossing, kept.creature.xy) == (a, first), elsewhere


def demons_between_corners(
    board: Board, radius: float, *, other_of_its_colour: bool = True
) -> Iterator[tuple[Point, str, int, int, int]]:
    """Points where a demon stands between two corners of one field, at crossings
    ``a`` and ``b`` (``b`` of its colour too, or not: ``other_of_its_colour``): located
    in ``a``'s corner, ``b``'s alike to it; with the colour and the field. For each two
    corners, along the way from ``a``'s snug spot to ``b``'s."""
    geometry = BoardGeometry(board)
    for points, where, a, b in between_two_corners(board, radius):
        of_b = set(board.crossings[b].lines)
        colours = sorted(c for c in board.crossings[a].lines if (c in of_b) == other_of_its_colour)
        for point, location in zip(points, where, strict=True):
            if location.ambiguity != BETWEEN_CORNERS_AMBIGUITY:
                continue
            for colour in colours:
                [there] = locate_in_photo(geometry, [Foot(DEMON, colour, point)], radius)
                field = there.field
                if (
                    there.ambiguity == BETWEEN_CORNERS_AMBIGUITY
                    and field is not None
                    and there.crossing == a
                    and (field, b) in there.alternatives
                ):
                    yield point, colour, field, a, b


def between_corners_of_its_colour(
    board: Board, radius: float, *, other_of_its_colour: bool = True
) -> tuple[Point, str, int, int, int]:
    """The first of :func:`demons_between_corners`."""
    for found in demons_between_corners(board, radius, other_of_its_colour=other_of_its_colour):
        return found
    raise AssertionError("no demon between two such corners on this layout")


def test_a_demon_between_corners_stands_in_the_one_whose_snug_spot_is_nearest() -> None:
    """Where the engine's locator cannot tell two corners of a field apart by the
    angles at the foot, the reader puts a demon in the one whose snug spot (where a
    pawn stands snug in it) is nearest its foot, among those of its colour, if it
    stands within SNUG_SPOT_REACH pawn radii of it; it stays doubted, its alternatives
    leading with the corner the engine named. Farther from every snug spot, or nearest
    the engine's corner's, the engine's choice stands."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    radius = WIDTH / 2
    found: dict[str, tuple[Location, Location, int, int, int]] = {}
    for field in board.fields:
        for a, b in itertools.permutations(field.corners if not field.outer else (), 2):
            common = set(board.crossings[a].lines) & set(board.crossings[b].lines)
            if not common:
                continue
            colour = min(common)
            spot_a = np.array(geometry.corner_point(field.id, a, 1.25 * radius))
            spot_b = np.array(geometry.corner_point(field.id, b, 1.25 * radius))
            if math.dist(spot_a, spot_b) < 2 * radius:  # no room between them for "far"
                continue
            for t in np.linspace(0, 1, 101):
                xy = tuple(spot_a + t * (spot_b - spot_a))
                [engine] = geometry.locate([Foot(DEMON, colour, xy)], pawn_radius=radius)
                if engine.ambiguity != BETWEEN_CORNERS_AMBIGUITY or engine.crossing != a:
                    continue
                if (field.id, b) not in engine.alternatives:
                    continue
                [reader] = locate_in_photo(geometry, [Foot(DEMON, colour, xy)], radius)
                to_b = math.dist(xy, spot_b) / radius
                case = "kept" if t < 0.5 else "moved" if to_b < SNUG_SPOT_REACH else "far"
                found.setdefault(case, (engine, reader, field.id, a, b))
            if len(found) == 3:
                break
        if len(found) == 3:
            break
    assert set(found) == {"kept", "moved", "far"}, "no such corners on this layout"
    engine, reader, field_id, a, b = found["moved"]
    assert (reader.field, reader.crossing) == (field_id, b)
    assert (reader.creature.field, reader.creature.crossing) == (field_id, b)
    assert reader.ambiguity == BETWEEN_CORNERS_AMBIGUITY
    assert reader.alternatives[0] == (field_id, a)
    for case in ("kept", "far"):
        engine, reader, *_ = found[case]
        assert reader == engine, case


def test_a_demon_between_corners_goes_to_the_alike_corner_that_has_room() -> None:
    """A corner holds one demon: a demon the foot cannot tell between two corners of
    its colour, put in one another demon holds clearly, goes to the other, still
    doubted, its alternatives leading with the one it left. Where the other is held
    too, it stays (the photo shows a violation either way)."""
    board = random_layout(3).board()
    xy, colour, field, a, b = between_corners_of_its_colour(board, WIDTH / 2)
    geometry = BoardGeometry(board)
    [alone] = place(geometry, Pawns([seen(colour, xy)], WIDTH, []))
    assert (alone.field, alone.crossing, alone.ambiguity) == (field, a, BETWEEN_CORNERS_AMBIGUITY)

    def snug(crossing: int) -> SeenPawn:
        spot = geometry.corner_point(field, crossing, 1.25 * WIDTH / 2)
        return seen(board.crossings[crossing].lines[0], spot)

    moved, holder = place(geometry, Pawns([seen(colour, xy), snug(a)], WIDTH, []))
    assert (holder.field, holder.crossing) == (field, a)
    assert (moved.field, moved.crossing) == (field, b)
    assert (moved.creature.field, moved.creature.crossing) == (field, b)
    assert moved.ambiguity == BETWEEN_CORNERS_AMBIGUITY
    assert moved.alternatives[0] == (field, a) and (field, b) not in moved.alternatives
    assert moved.distance == pytest.approx(math.dist(xy, board.crossings[b].xy))
    assert moved.sector is not None
    assert any((s.crossing, s.index, s.field) == (b, moved.sector, field) for s in board.sectors)
    stays, _, _ = place(geometry, Pawns([seen(colour, xy), snug(a), snug(b)], WIDTH, []))
    assert (stays.field, stays.crossing) == (field, a)


def test_a_demon_between_corners_goes_only_to_an_alike_corner_of_its_colour() -> None:
    """A demon of a colour the other corner's crossing lacks stays in the corner held
    (two demons in one corner, which the photo shows either way), rather than going to
    a corner where it would break the colour rule; the locator's board without its
    sectors (a board read from a report) places it alike."""
    board = random_layout(3).board()
    xy, colour, field, a, b = between_corners_of_its_colour(
        board, WIDTH / 2, other_of_its_colour=False
    )
    assert colour not in board.crossings[b].lines
    holder_spot = BoardGeometry(board).corner_point(field, a, 1.25 * WIDTH / 2)
    holder = seen(colour, holder_spot)  # of that colour too: it may not move either
    for geometry in (BoardGeometry(board), BoardGeometry(replace(board, sectors=()))):
        stays, kept = place(geometry, Pawns([seen(colour, xy), holder], WIDTH, []))
        assert (stays.field, stays.crossing) == (field, a)
        assert (kept.field, kept.crossing) == (field, a)


def test_of_two_demons_between_corners_in_one_the_farther_from_its_crossing_moves() -> None:
    """Two demons the locator puts between the same two corners of their colour, in
    one of them: the one farther from that corner's crossing goes to the other, in
    whichever order they were read."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    firsts: dict[tuple[int, int, int], SeenPawn] = {}
    for xy, colour, field, a, b in demons_between_corners(board, WIDTH / 2):
        apex = board.crossings[a].xy
        first = firsts.setdefault((field, a, b), seen(colour, xy))
        if abs(math.dist(xy, apex) - math.dist(first.foot, apex)) > 1:
            break
    else:
        raise AssertionError("no two such demons on this layout")
    nearer, farther = sorted([first, seen(colour, xy)], key=lambda p: math.dist(p.foot, apex))
    stays, moves = place(geometry, Pawns([nearer, farther], WIDTH, []))
    assert (stays.field, stays.crossing, moves.field, moves.crossing) == (field, a, field, b)
    moves, stays = place(geometry, Pawns([farther, nearer], WIDTH, []))
    assert (stays.crossing, moves.crossing) == (a, b)


def just_beyond(board: Board, field: int, crossing: int, radius: float) -> tuple[Point, str] | None:
    """A point on the bisector of a corner where a demon of one of its crossing's
    colours is away from every corner, but in this one as a pawn PAWN_WIDTH_DOUBT times
    wider; and that colour. None if there is none."""
    geometry = BoardGeometry(board)
    apex = board.crossings[crossing].xy
    snug = geometry.corner_point(field, crossing, 1.25 * radius)
    step = ((snug[0] - apex[0]) / 20, (snug[1] - apex[1]) / 20)
    for k in range(20, 160):
        xy = (apex[0] + k * step[0], apex[1] + k * step[1])
        for colour in board.crossings[crossing].lines:
            foot = [Foot(DEMON, colour, xy)]
            [narrow] = geometry.locate(foot, pawn_radius=radius)
            [wide] = geometry.locate(foot, pawn_radius=PAWN_WIDTH_DOUBT * radius)
            if (
                narrow.ambiguity == FAR_FROM_CORNERS_AMBIGUITY
                and narrow.field == field
                and (wide.field, wide.crossing) == (field, crossing)
            ):
                return xy, colour
    return None


def test_a_demon_between_corners_makes_room_for_one_counted_within_the_doubt() -> None:
    """A demon between two corners of its colour and one counted in the first within
    the width's doubt: the first goes to the other corner, which has room, and the
    second is counted where the doubt puts it (rather than sent back out of a corner
    held, which would read a demon off its corner the table does not show)."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    looked_at: dict[tuple[int, int], tuple[Point, str] | None] = {}
    for points, where, a, b in between_two_corners(board, WIDTH / 2):
        for point, location in zip(points, where, strict=True):
            colour, field = location.creature.colour, location.field
            if location.ambiguity != BETWEEN_CORNERS_AMBIGUITY or location.crossing != a:
                continue
            if field is None or colour not in board.crossings[b].lines:
                continue
            if (field, a) not in looked_at:
                looked_at[(field, a)] = just_beyond(board, field, a, WIDTH / 2)
            beyond = looked_at[(field, a)]
            if beyond is None:
                continue
            pawns = Pawns([seen(colour, point), seen(beyond[1], beyond[0])], WIDTH, [])
            between, doubted = place(geometry, pawns)
            assert (between.field, between.crossing) == (field, b)
            assert (doubted.field, doubted.crossing, doubted.ambiguity) == (
                field, a, EDGE_OF_REACH
            )
            return
    raise AssertionError("no such corners on this layout")


def beside_the_board(board: Board, radii: float) -> tuple[float, float]:
    """A point right of the board's rightmost string point, ``radii`` pawn radii (of
    WIDTH) from every string: outside the strings' hull, in the outer field."""
    x, y = max((p for line in board.lines for p in line.polyline), key=lambda p: p[0])
    return (x + radii * WIDTH / 2, y)


def widths_of(scale: float, measured: list[tuple[float, float]] | None = None) -> Callable[
    [Sequence[tuple[float, float]]], list[float]
]:
    """A measure of pawn widths that finds every pawn ``scale`` times WIDTH wide, and
    notes the feet it was asked about in ``measured``."""

    def measure(feet: Sequence[tuple[float, float]]) -> list[float]:
        if measured is not None:
            measured.extend(feet)
        return [scale * WIDTH] * len(feet)

    return measure


def test_a_creature_outside_the_board_is_judged_off_or_on_it_by_its_own_width() -> None:
    """The engine counts OFF_BOARD_CLEARANCE of the pawn's own radii; the photo's one
    width is wrong for a pawn at the far or near edge of a tilted photo, so a creature
    of the outer field within OWN_SIZE_REACH is measured and located again."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    between = (OFF_BOARD_CLEARANCE - 0.5, OFF_BOARD_CLEARANCE + 0.5)
    assert OWN_SIZE_REACH[0] < between[0] and between[1] < OWN_SIZE_REACH[1]
    near, far = (seen("white", beside_the_board(board, r)) for r in between)
    pawns = Pawns([near, far], WIDTH, [])
    on, off = place(geometry, pawns)
    assert not on.creature.off_board and on.field == board.outer_field.id
    assert off.creature.off_board
    # A ghost narrower than the photo's width stands farther, in its own radii: off the
    # board. One wider stands nearer: in play (a ghost in the outer field).
    measured: list[tuple[float, float]] = []
    narrow = place(geometry, pawns, measure_widths=widths_of(0.8, measured))
    assert [location.creature.off_board for location in narrow] == [True, True]
    assert measured == [near.foot, far.foot]
    wide = place(geometry, pawns, measure_widths=widths_of(1.25))
    assert [location.field for location in wide] == [board.outer_field.id] * 2
    # The same width as the photo's changes nothing.
    assert place(geometry, pawns, measure_widths=widths_of(1.0)) == [on, off]


def test_a_creature_is_put_off_the_board_only_clearly_so_by_its_own_width() -> None:
    """At 4.6 of the photo's radii, a ghost measured 0.9 times as wide stands 5.1 of
    its own radii from the strings, beyond the clearance by less than OWN_SIZE_MARGIN:
    it stays on the board. Measured 0.8 times as wide, it goes off."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    pawns = Pawns([seen("white", beside_the_board(board, 4.6))], WIDTH, [])
    assert 4.6 / 0.9 > OFF_BOARD_CLEARANCE > 4.6 / (0.9 * OWN_SIZE_MARGIN)
    assert 4.6 / (0.8 * OWN_SIZE_MARGIN) > OFF_BOARD_CLEARANCE
    [kept] = place(geometry, pawns, measure_widths=widths_of(0.9))
    assert not kept.creature.off_board
    [off] = place(geometry, pawns, measure_widths=widths_of(0.8))
    assert off.creature.off_board
    # So with enough pawns measured for the table's plane (as narrow): the plane sets
    # where a pawn on the board stands, not whether it is on the board.
    centres = [geometry.field_centre(f.id) for f in board.fields if not f.outer]
    inside = [seen("white", centres[i % len(centres)]) for i in range(LEAST_PAWNS_FOR_PLANE)]
    more = Pawns([*pawns.pawns, *inside], WIDTH, [])
    [kept, *_] = place(geometry, more, measure_widths=widths_of(0.9))
    assert not kept.creature.off_board


def test_a_creature_is_put_on_the_board_only_clearly_so_by_its_own_width() -> None:
    """At 5.2 of the photo's radii, a ghost measured 1.07 times as wide stands 4.9 of its
    own radii from the strings, within the clearance by less than OWN_SIZE_MARGIN: it
    stays off the board. Measured 1.2 times as wide, it comes on."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    pawns = Pawns([seen("white", beside_the_board(board, 5.2))], WIDTH, [])
    assert 5.2 / 1.07 < OFF_BOARD_CLEARANCE < 5.2 * OWN_SIZE_MARGIN / 1.07
    assert 5.2 * OWN_SIZE_MARGIN / 1.2 < OFF_BOARD_CLEARANCE
    [kept] = place(geometry, pawns, measure_widths=widths_of(1.07))
    assert kept.creature.off_board
    [on] = place(geometry, pawns, measure_widths=widths_of(1.2))
    assert not on.creature.off_board and on.field == board.outer_field.id


def test_a_width_wider_than_any_pawns_does_not_put_a_creature_on_the_board() -> None:
    """1770199: a blue cup at the photo's edge, read as a demon 7.6 of the photo's radii
    from the strings (off the board), was sized 2.8 times the photo's width and put on
    the board. A width over MOST_SIZED_WIDTH times the photo's is no pawn's: ignored."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    pawns = Pawns([seen("blue", beside_the_board(board, 7.6))], WIDTH, [])
    assert OWN_SIZE_REACH[1] > 7.6
    assert 7.6 > OFF_BOARD_CLEARANCE > 7.6 * OWN_SIZE_MARGIN / (0.99 * MOST_SIZED_WIDTH)
    [as_read] = place(geometry, pawns)
    assert as_read.creature.off_board
    [sized] = place(geometry, pawns, measure_widths=widths_of(0.99 * MOST_SIZED_WIDTH))
    assert not sized.creature.off_board
    [too_wide] = place(geometry, pawns, measure_widths=widths_of(1.01 * MOST_SIZED_WIDTH))
    assert too_wide == as_read


def test_a_creature_left_on_the_board_keeps_the_place_read_with_the_photos_width() -> None:
    """Its own width decides only whether it is on the board: a demon deep in an outer
    corner's reach, read away from every corner, stays so though a pawn as wide as
    measured (and the margin) would reach the corner."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    outer = board.outer_field

    def deep_in(crossing: int) -> tuple[SeenPawn, Location] | None:
        """A demon of the crossing's colour 4.5 radii from both its strings, and where
        it is read, if that is away from every corner but wider it reaches this one."""
        colour = board.crossings[crossing].lines[0]
        demon = seen(colour, geometry.corner_point(outer.id, crossing, 4.5 * WIDTH / 2))
        [as_read] = place(geometry, Pawns([demon], WIDTH, []))
        [wide] = geometry.locate(
            [Foot(DEMON, colour, demon.foot)], pawn_radius=1.5 * OWN_SIZE_MARGIN * WIDTH / 2
        )
        away = as_read.crossing is None and not as_read.creature.off_board
        return (demon, as_read) if away and wide.crossing is not None else None

    demon, as_read = next(found for c in outer.corners if (found := deep_in(c)) is not None)
    pawns = Pawns([demon], WIDTH, [])
    measured: list[tuple[float, float]] = []
    assert place(geometry, pawns, measure_widths=widths_of(1.5, measured)) == [as_read]
    assert measured == [demon.foot]


def test_a_creature_clearly_on_or_off_the_board_is_judged_with_the_photos_width() -> None:
    """Beyond OWN_SIZE_REACH (off the board, but on it if measured twice as wide), and
    nearer than it (a ghost in the outer field, off if measured 0.4 times as wide), the
    photo's width decides; so it does for a demon in play in a corner, and for a ghost
    in an inner field however far from the strings."""
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    beyond = seen("white", beside_the_board(board, OWN_SIZE_REACH[1] + 1))
    nearer = seen("white", beside_the_board(board, OWN_SIZE_REACH[0] - 0.5))
    field = next(f for f in board.fields if not f.outer)
    corner_foot = geometry.corner_point(field.id, field.corners[0], WIDTH / 2)
    in_play = seen(board.crossings[field.corners[0]].lines[0], corner_foot)
    # A ghost in the middle of an inner field stands in reach, but not in the outer field.
    inner = max(
        (f for f in board.fields if not f.outer),
        key=lambda f: geometry.distance_to_lines(geometry.field_centre(f.id)),
    )
    centre = geometry.field_centre(inner.id)
    assert geometry.distance_to_lines(centre) >= OWN_SIZE_REACH[0] * WIDTH / 2
    in_field = seen("white", centre)
    pawns = Pawns([beyond, nearer, in_play, in_field], WIDTH, [])
    assert [location.creature.off_board for location in place(geometry, pawns)] == [
        True, False, False, False
    ]
    for scale in (2.0, 0.4):
        # Every pawn is measured once (for the table's plane, which four pawns do not
        # give), and not again.
        measured: list[tuple[float, float]] = []
        assert place(geometry, pawns, measure_widths=widths_of(scale, measured)) == place(
            geometry, pawns
        )
        assert measured == [pawn.foot for pawn in pawns.pawns]


def test_a_width_that_is_no_width_leaves_the_creature_as_it_was() -> None:
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    pawns = Pawns([seen("white", beside_the_board(board, 4.5))], WIDTH, [])
    [as_read] = place(geometry, pawns)
    for width in (math.inf, math.nan, 0.0, -WIDTH):
        assert place(geometry, pawns, measure_widths=lambda feet, w=width: [w]) == [as_read]


def test_off_board_by_own_width_refuses_widths_that_do_not_fit_the_feet() -> None:
    board = random_layout(3).board()
    geometry = BoardGeometry(board)
    pawns = Pawns([seen("white", beside_the_board(board, OFF_BOARD_CLEARANCE))], WIDTH, [])
    located = place(geometry, pawns)
    for widths in ([], [WIDTH, WIDTH]):
        with pytest.raises(ValueError, match="one per foot"):
            off_board_by_own_width(geometry, pawns, located, lambda feet, w=widths: w)
    with pytest.raises(ValueError, match="locations for"):
        off_board_by_own_width(geometry, pawns, [], lambda feet: [WIDTH])


def test_a_ghost_confirmed_a_little_more_faintly_than_a_demon_is_added() -> None:
    """A ghost on a light table stays faintest in every view."""
    between = (CONFIRMED_GHOST_SCORE + CONFIRMED_ADD_SCORE) / 2
    nothing = Pawns([], WIDTH, [])
    for colour, added in (("white", True), ("blue", False)):
        faint = mark(colour, (80.0, 80.0), 0.3)
        combined = combine_pawns(nothing, Detections([faint], WIDTH), looked_at_as(between, []))
        assert bool(combined.pawns) is added, colour


def test_a_ghost_mark_is_looked_at_again_more_faintly_than_a_demon_mark() -> None:
    """A ghost on a white table, plain to see, may be marked under CONFIRM_FROM; a
    demon's mark that faint is not looked at."""
    fainter = (FAINT_GHOST_FROM + CONFIRM_FROM) / 2
    nothing = Pawns([], WIDTH, [])
    for colour, added in (("white", True), ("blue", False)):
        looked: list[Detection] = []
        faint = mark(colour, (80.0, 80.0), fainter)
        combined = combine_pawns(
            nothing, Detections([faint], WIDTH), looked_at_as(CONFIRMED_GHOST_SCORE, looked)
        )
        assert bool(looked) is added, colour
        read = [(p.kind, p.confidence) for p in combined.pawns]
        assert read == ([(GHOST, CONFIRMED_GHOST_SCORE)] if added else []), colour
    # Under FAINT_GHOST_FROM, or not confirmed: no ghost, and no warning either (only
    # marks from CONFIRM_FROM are doubted aloud), where such a mark from CONFIRM_FROM,
    # as faint in the views, would be: it stands where a touching pawn would.
    near, far = TOUCHING_DOUBT_REACH
    unconfirmed = max(TOUCHING_DOUBT, CONFIRMED_GHOST_SCORE - 0.01)
    assert unconfirmed < CONFIRMED_GHOST_SCORE
    sure = mark("red", (80.0, 80.0), 0.9)
    beside = (80.0, 80.0 + (near + far) / 2 * WIDTH)
    for score, mean, warned in (
        (FAINT_GHOST_FROM - 0.01, 1.0, False),
        (fainter, unconfirmed, False),
        (CONFIRM_FROM + 0.01, unconfirmed, True),
    ):
        faint = mark("white", beside, score)
        combined = combine_pawns(nothing, Detections([sure, faint], WIDTH), looked_at_as(mean, []))
        assert [p.colour for p in combined.pawns] == ["red"], score
        assert bool(combined.warnings) is warned, score


def test_a_faint_ghost_mark_beside_a_ghost_of_the_rules_is_added_more_readily() -> None:
    """The rules' outline of a ghost, its foot put too far from the detector's faint
    mark to keep it, and that mark: two cues that agree."""
    between = (RULES_GHOST_SCORE + CONFIRMED_GHOST_SCORE) / 2
    faint = mark("white", (80.0, 80.0), (FAINT_GHOST_FROM + CONFIRM_FROM) / 2)
    outline = seen("white", (80.0 + 0.9 * RULES_GHOST_REACH * WIDTH, 80.0), 1.0)
    afar = seen("white", (80.0 + 1.5 * RULES_GHOST_REACH * WIDTH, 80.0), 1.0)
    for rules, added in (([], False), ([outline], True), ([afar], False)):
        combined = combine_pawns(
            Pawns(rules, WIDTH, []), Detections([faint], WIDTH), looked_at_as(between, [])
        )
        assert [p.foot for p in combined.pawns] == ([faint.xy] if added else []), rules
    # Not below RULES_GHOST_SCORE in the views.
    combined = combine_pawns(
        Pawns([outline], WIDTH, []),
        Detections([faint], WIDTH),
        looked_at_as(RULES_GHOST_SCORE - 0.02, []),
    )
    assert combined.pawns == []


def test_the_eight_views_may_choose_the_fainter_of_two_marks_at_one_place() -> None:
    """The one view marks a place a blue demon and, more faintly, a ghost; the eight
    views mark the demon too faintly to add and the ghost enough (540167). Where they
    confirm both, the one they mark more is added."""
    demon = mark("blue", (80.0, 80.0), (CONFIRM_FROM + ADD_SCORE) / 2)
    ghost = mark("white", (82.0, 81.0), (FAINT_GHOST_FROM + CONFIRM_FROM) / 2)
    nothing = Pawns([], WIDTH, [])

    def views(demon_mean: float, ghost_mean: float, looked: list[Detection]):
        def look(m: Detection) -> Detection:
            looked.append(m)
            mean = ghost_mean if m.kind == GHOST else demon_mean
            return Detection(m.kind, m.colour, m.xy, mean, views=8)
        return look

    looked: list[Detection] = []
    combined = combine_pawns(nothing, Detections([demon, ghost], WIDTH),
                             views(CONFIRMED_ADD_SCORE - 0.07, CONFIRMED_GHOST_SCORE + 0.1, looked))
    assert looked == [demon, ghost]
    assert [(p.kind, p.foot) for p in combined.pawns] == [(GHOST, ghost.xy)]
    # Where they confirm both, the one they mark more (560101: a red demon on dark
    # wood marked 0.54 a ghost, 0.18 a red demon; 0.35 and 0.40 in the mean).
    for demon_mean, ghost_mean, kind in ((0.5, 0.4, DEMON), (0.4, 0.5, GHOST)):
        combined = combine_pawns(nothing, Detections([demon, ghost], WIDTH),
                                 views(demon_mean, ghost_mean, []))
        assert [p.kind for p in combined.pawns] == [kind]
    # A mark fainter than a demon's is looked at for its own (560101's red demon).
    unsure_ghost = mark("white", (80.0, 80.0), (ADD_SCORE + UNSURE_ADDED) / 2)
    faint_red = mark("red", (81.0, 82.0), (FAINT_GHOST_FROM + CONFIRM_FROM) / 2)
    combined = combine_pawns(nothing, Detections([unsure_ghost, faint_red], WIDTH),
                             views(CONFIRMED_ADD_SCORE + 0.05, CONFIRMED_ADD_SCORE, []))
    assert [(p.kind, p.colour) for p in combined.pawns] == [(DEMON, "red")]
    # Where they confirm neither, nothing is added.
    combined = combine_pawns(nothing, Detections([demon, ghost], WIDTH),
                             views(CONFIRMED_ADD_SCORE - 0.07, CONFIRMED_GHOST_SCORE - 0.05, []))
    assert combined.pawns == []
    # One nearer a kept pawn than SAME_PAWN is that pawn's, not another at this place.
    kept = seen("red", (80.0 - 0.55 * WIDTH, 80.0))
    under_it = mark("white", (80.0 - 0.35 * WIDTH, 80.0), ghost.score)
    combined = combine_pawns(
        Pawns([kept], WIDTH, []),
        Detections([mark("red", kept.foot, 0.9), demon, under_it], WIDTH),
        views(CONFIRMED_ADD_SCORE - 0.07, CONFIRMED_GHOST_SCORE + 0.1, []),
    )
    assert [p.colour for p in combined.pawns] == ["red"]
    # A second mark a pawn width away is another pawn's, looked at on its own.
    apart = mark("white", (80.0 + WIDTH, 80.0), ghost.score)
    looked.clear()
    combine_pawns(nothing, Detections([demon, apart], WIDTH),
                  views(CONFIRMED_ADD_SCORE + 0.1, CONFIRMED_GHOST_SCORE + 0.1, looked))
    assert looked == [demon, apart]


def test_a_faint_ghost_mark_at_a_crossing_is_not_looked_at_again() -> None:
    """A ghost stands in a field's centre: a ghost mark under CONFIRM_FROM within
    FAINT_GHOST_CLEAR_OF_CROSSING pawn widths of a crossing of the traced loops is not
    looked at again; farther into the field, or from CONFIRM_FROM, it is."""
    loops = Loops(
        {"red": circle_loop("red", (200, 300), 200), "blue": circle_loop("blue", (500, 300), 200)},
        [],
    )
    crossing_y = 300 - math.sqrt(200**2 - 150**2)  # the upper of the two, at x = 350
    fainter = (FAINT_GHOST_FROM + CONFIRM_FROM) / 2
    nothing = Pawns([], WIDTH, [])
    near = FAINT_GHOST_CLEAR_OF_CROSSING * 0.7 * WIDTH
    far = FAINT_GHOST_CLEAR_OF_CROSSING * 1.3 * WIDTH
    for along, score, traced, added in (
        (near, fainter, loops, False),
        (near, fainter, None, True),  # no loops given: no crossing known
        (far, fainter, loops, True),
        (near, CONFIRM_FROM + 0.01, loops, True),
    ):
        looked: list[Detection] = []
        ghost = mark("white", (350.0, crossing_y + along), score)
        combined = combine_pawns(
            nothing,
            Detections([ghost], WIDTH),
            looked_at_as(CONFIRMED_GHOST_SCORE, looked),
            loops=traced,
        )
        assert bool(looked) is added, (along, score)
        assert [p.kind for p in combined.pawns] == ([GHOST] if added else []), (along, score)


def test_a_faint_mark_beside_a_kept_pawn_of_its_colour_is_not_looked_at() -> None:
    """The detector may mark one pawn twice, faintly beside surely; a pawn of another
    colour may touch it, and a pawn the rules saw but the detector did not mark is
    dropped and does not count."""
    sure = mark("blue", (100.0, 100.0), 0.8)
    faint = mark("blue", (100.0 + 0.7 * WIDTH, 100.0), 0.3)
    looked: list[Detection] = []
    twice = combine_pawns(
        Pawns([], WIDTH, []), Detections([sure, faint], WIDTH), looked_at_as(0.9, looked)
    )
    assert [p.foot for p in twice.pawns] == [sure.xy] and looked == []
    touching = mark("red", faint.xy, 0.3)
    both = combine_pawns(
        Pawns([], WIDTH, []), Detections([sure, touching], WIDTH), looked_at_as(0.9, looked)
    )
    assert [p.colour for p in both.pawns] == ["blue", "red"] and looked == [touching]
    # The rules' blue pawn 0.6 of a width from the faint mark (its foot put in its
    # shadow) takes no mark and is dropped: the faint mark is looked at.
    looked.clear()
    rules = Pawns([seen("blue", (faint.xy[0] + 0.6 * WIDTH, 100.0))], WIDTH, [])
    alone = combine_pawns(rules, Detections([faint], WIDTH), looked_at_as(0.9, looked))
    assert [p.foot for p in alone.pawns] == [faint.xy] and looked == [faint]
    # A faint blue mark 0.9 of a pawn width from the sure one is a second pawn touching
    # it (their bases touch): it is looked at again, and added when confirmed.
    looked.clear()
    second = mark("blue", (100.0 + 0.9 * WIDTH, 100.0), 0.3)
    pair = combine_pawns(
        Pawns([], WIDTH, []), Detections([sure, second], WIDTH), looked_at_as(0.5, looked)
    )
    assert [p.foot for p in pair.pawns] == [sure.xy, second.xy] and looked == [second]


def test_a_rules_ghost_marked_faintly_beside_a_sure_ghost_mark_is_that_ghost() -> None:
    """The rules may put a tall ghost's foot in its shadow, 0.9 of a width from the
    detector's sure mark of it, where the detector also marks faintly."""
    rules = Pawns([seen("white", (100.0, 100.0), 0.6)], WIDTH, [])
    marks = [mark("white", (100.0 + 0.9 * WIDTH, 100.0), 0.7), mark("white", (101.0, 100.0), 0.15)]
    [ghost] = combine_pawns(rules, Detections(marks, WIDTH)).pawns
    assert ghost.foot == marks[0].xy
    # A pawn of another colour touching it stays, and so does one marked more surely.
    touching = Pawns([seen("red", (100.0, 100.0), 0.6)], WIDTH, [])
    red_marks = [marks[0], mark("red", (101.0, 100.0), 0.15)]
    assert len(combine_pawns(touching, Detections(red_marks, WIDTH)).pawns) == 2
    surer = [marks[0], mark("white", (101.0, 100.0), FAINT_RULES_GHOST + 0.05)]
    assert len(combine_pawns(rules, Detections(surer, WIDTH)).pawns) == 2
    # Marked under FAINT_RULES_GHOST but more than CONFIRM_FROM, within HEAD_REACH it is
    # a tall ghost's head, its foot marked more (1710077: 0.36 at the head, 0.53 at the
    # foot); farther, a second ghost touching the first (1670128).
    foot = mark("white", (100.0 + (HEAD_REACH - 0.05) * WIDTH, 100.0), 0.7)
    head = [foot, mark("white", (100.0, 100.0), FAINT_RULES_GHOST - 0.05)]
    [ghost] = combine_pawns(rules, Detections(head, WIDTH)).pawns
    assert ghost.foot == foot.xy
    touching = [replace(foot, xy=(100.0 + (HEAD_REACH + 0.05) * WIDTH, 100.0)), head[1]]
    assert len(combine_pawns(rules, Detections(touching, WIDTH)).pawns) == 2
    fainter = [foot, mark("white", (100.0, 100.0), CONFIRM_FROM - 0.05)]
    [ghost] = combine_pawns(rules, Detections(fainter, WIDTH)).pawns
    assert ghost.foot == foot.xy
    # A rules' ghost so faint gives way to one of the rules marked from CONFIRM_FROM,
    # however it is marked itself: the shadow's foot to the ghost's.
    kept_mark = mark("white", (100.0 + 0.8 * WIDTH, 100.0), CONFIRM_FROM + 0.05)
    two = Pawns([seen("white", (100.0, 100.0), 0.6), seen("white", kept_mark.xy, 0.6)],
                WIDTH, [])
    faint_pair = [kept_mark, mark("white", (100.0, 100.0), CONFIRM_FROM - 0.1)]
    [ghost] = combine_pawns(two, Detections(faint_pair, WIDTH)).pawns
    assert ghost.foot == kept_mark.xy
    # Two demons of a colour touching stand as near, one of them marked faintly.
    demons = Pawns([seen("green", (100.0, 100.0), 0.7)], WIDTH, [])
    green_marks = [mark("green", marks[0].xy, 0.7), mark("green", (101.0, 100.0), 0.15)]
    assert len(combine_pawns(demons, Detections(green_marks, WIDTH)).pawns) == 2


def test_a_pawn_the_detector_does_not_mark_is_dropped_however_sure_the_rules_are() -> None:
    pawns = Pawns([seen("blue", (10.0, 10.0), 0.6), seen("red", (200.0, 10.0), 1.0)], WIDTH, [])
    faint = Detections([mark("red", (201.0, 11.0), KEEP_SCORE - 0.05)], WIDTH)
    assert combine_pawns(pawns, faint).pawns == []
    marked = Detections([mark("red", (201.0, 11.0), KEEP_SCORE + 0.05)], WIDTH)
    assert [p.colour for p in combine_pawns(pawns, marked).pawns] == ["red"]


def test_a_pawn_kept_on_a_faint_mark_must_be_marked_in_the_eight_views_too() -> None:
    # The rules' ghost by its outline on a white table is a ghost's shadow: marked
    # faintly in the one view, not at all in the others.
    pawns = Pawns([seen("white", (100.0, 100.0), 0.6)], WIDTH, [])
    faint = mark("white", (102.0, 104.0), (KEEP_SCORE + CONFIRM_FROM) / 2)
    looked: list[Detection] = []
    assert combine_pawns(pawns, Detections([faint], WIDTH), looked_at_as(0.0, looked)).pawns == []
    assert [(m.kind, m.colour, m.xy) for m in looked] == [(GHOST, "white", faint.xy)]
    marked = looked_at_as(0.2, [])
    [kept] = combine_pawns(pawns, Detections([faint], WIDTH), marked).pawns
    assert kept.foot == faint.xy
    # As sure as the views see it, not as the rules (0.6): the overlay rings it; and
    # surer where the views mark it more than the rules are sure.
    assert kept.confidence == pytest.approx(0.2)
    [kept] = combine_pawns(pawns, Detections([faint], WIDTH), looked_at_as(0.8, [])).pawns
    assert kept.confidence == pytest.approx(0.8)
    # Without a second look the faint mark keeps it, as sure as the rules are, and a
    # mark from CONFIRM_FROM needs none.
    [kept] = combine_pawns(pawns, Detections([faint], WIDTH)).pawns
    assert kept.confidence == pytest.approx(0.6)
    looked.clear()
    surer = mark("white", faint.xy, CONFIRM_FROM + 0.05)
    unmarked = looked_at_as(0.0, looked)
    assert len(combine_pawns(pawns, Detections([surer], WIDTH), unmarked).pawns) == 1
    assert looked == []


def test_a_pawn_kept_on_a_faint_mark_is_looked_for_as_it_was_read() -> None:
    # A rules' yellow demon on a faint ghost mark, the yellow demon marked fainter still.
    pawns = Pawns([seen("yellow", (100.0, 100.0), 1.0)], WIDTH, [])
    ghost_at = (102.0, 104.0)
    marks = Detections(
        [mark("white", ghost_at, (KEEP_SCORE + CONFIRM_FROM) / 2), mark("yellow", ghost_at, 0.1)],
        WIDTH,
    )
    # The views mark a ghost, surely: it becomes a ghost and is kept as one.
    looked: list[Detection] = []
    ghostly = looked_at_by_colour({"white": 0.5, "yellow": 0.05}, looked)
    [pawn] = combine_pawns(pawns, marks, ghostly).pawns
    assert (pawn.kind, pawn.colour, pawn.confidence) == (GHOST, "white", 0.5)
    # Each reading looked at once: the ghost the views chose is not looked at again.
    assert sorted((m.colour, m.xy) for m in looked) == [("white", ghost_at), ("yellow", ghost_at)]
    # A ghost too faint to turn it: the yellow demon as read is looked for, and dropped
    # where the views do not mark it.
    faint_ghost = looked_at_by_colour({"white": 0.25, "yellow": KEEP_SCORE - 0.05}, [])
    assert combine_pawns(pawns, marks, faint_ghost).pawns == []
    marked = looked_at_by_colour({"white": 0.25, "yellow": KEEP_SCORE + 0.05}, [])
    assert [p.colour for p in combine_pawns(pawns, marks, marked).pawns] == ["yellow"]


def test_a_demon_kept_on_a_faint_mark_goes_where_the_demon_checker_rules_it_out() -> None:
    # A pawn's reddish shadow on dark wood under a harsh side light: the rules read a red
    # demon, the detector marks it faintly in the one view and in the eight.
    shadow, ghost = seen("red", (100.0, 100.0), 1.0), seen("white", (300.0, 100.0), 0.6)
    faint = (KEEP_SCORE + CONFIRM_FROM) / 2
    marks = Detections(
        [mark("red", (102.0, 104.0), faint), mark("white", (302.0, 104.0), faint)], WIDTH
    )
    views = looked_at_as(CONFIRM_FROM, [])
    asked: list[Point] = []

    def checker(odds: float):
        return checker_saying(odds, asked)

    pawns = Pawns([shadow, ghost], WIDTH, [])
    kept = combine_pawns(pawns, marks, views, demon_odds=checker(RULED_OUT_FAINT_DEMON - 0.01))
    assert [p.colour for p in kept.pawns] == ["white"]  # a ghost is not asked about
    assert asked == [(102.0, 104.0)]  # at the foot it would take
    kept = combine_pawns(pawns, marks, views, demon_odds=checker(RULED_OUT_FAINT_DEMON))
    assert [p.colour for p in kept.pawns] == ["red", "white"]
    assert len(combine_pawns(pawns, marks, views, demon_odds=checker(math.nan)).pawns) == 2
    # A demon of the table's hue looks pale against it, to the checker too: it stays.
    ruled_out = checker(0.0)
    asked.clear()
    hued = combine_pawns(pawns, marks, views, table_hue_colour="red", demon_odds=ruled_out)
    assert [p.colour for p in hued.pawns] == ["red", "white"]
    assert asked == []
    # A demon the views do not mark goes without the checker being asked; one marked
    # from CONFIRM_FROM stays, unasked.
    unmarked = looked_at_as(KEEP_SCORE - 0.05, [])
    assert combine_pawns(pawns, marks, unmarked, demon_odds=checker(1.0)).pawns == []
    assert asked == []
    sure = Detections([mark("red", (102.0, 104.0), CONFIRM_FROM)], WIDTH)
    alone = Pawns([shadow], WIDTH, [])
    assert len(combine_pawns(alone, sure, views, demon_odds=checker(0.0)).pawns) == 1
    assert asked == []


def test_the_rules_doubts_about_pawns_are_kept_only_where_they_still_hold() -> None:
    touching = Remark("2 touching red pawns read near {at}", (100.0, 100.0), TOUCHING_PAWNS)
    too_large = Remark("ignored a red object at {at} too large", (300.0, 100.0), NOT_A_PAWN)
    other = Remark("something else at {at}", (500.0, 500.0))
    pawns = Pawns(
        [seen("red", (90.0, 100.0)), seen("red", (110.0, 100.0))],
        WIDTH,
        [touching, too_large, other],
    )
    # The detector keeps both touching pawns, marking one under LOW_CONFIDENCE (the
    # pawn itself reads as sure as the rules are of it), and finds none in the large
    # object.
    unsure = Detections([mark("red", (90.0, 100.0), 0.9), mark("red", (112.0, 100.0), 0.5)], WIDTH)
    assert combine_pawns(pawns, unsure).warnings == [touching, too_large, other]
    # Sure of both, it has told them apart: the rules' doubt is gone.
    both = Detections([mark("red", (90.0, 100.0), 0.9), mark("red", (112.0, 100.0), 0.9)], WIDTH)
    assert combine_pawns(pawns, both).warnings == [too_large, other]
    # It marks neither touching pawn, and a pawn inside the large object.
    moved = Detections([mark("red", (300.0, 110.0), 0.9)], WIDTH)
    assert combine_pawns(pawns, moved).warnings == [other]
    # A pawn at the edge of a large object, further than a pawn from its middle.
    wide = Remark("ignored a red object at {at} too large", (300.0, 100.0), NOT_A_PAWN, 80.0)
    edge = Detections([mark("red", (360.0, 100.0), 0.9)], WIDTH)
    assert combine_pawns(Pawns([], WIDTH, [wide]), edge).warnings == []


def test_pawns_are_told_apart_at_the_detectors_pawn_width() -> None:
    """After the detector's second look for smaller pawns, two of its marks closer than
    the rules' pawn width are two pawns."""
    pawns = Pawns([seen("red", (100.0, 100.0))], WIDTH, [])
    small = WIDTH / 2
    marks = Detections(
        [mark("red", (100.0, 100.0), 0.9), mark("red", (100.0 + 0.9 * small, 100.0), 0.9)], small
    )
    combined = combine_pawns(pawns, marks)
    assert len(combined.pawns) == 2
    assert combined.pawn_width == small


def test_one_pawn_marked_in_two_colours_maps_is_one_pawn() -> None:
    marks = [mark("white", (20.0, 20.0), 0.6), mark("yellow", (22.0, 21.0), 0.8)]
    [kept] = one_mark_per_pawn(marks, WIDTH)
    assert kept.colour == "yellow"
    touching = [mark("red", (20.0, 20.0), 0.9), mark("red", (20.0 + 0.9 * WIDTH, 20.0), 0.9)]
    assert len(one_mark_per_pawn(touching, WIDTH)) == 2
    assert SAME_PAWN < 0.9


def circle_loop(colour: str, centre: tuple[float, float], radius: float) -> Loop:
    angles = np.linspace(0, 2 * math.pi, 200, endpoint=False)
    points = np.column_stack(
        [centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles)]
    )
    return Loop(colour=colour, points=points, knot=(centre[0] + radius, centre[1]))


def test_a_knot_mark_beside_a_loop_becomes_its_knot_on_the_loop() -> None:
    loops = Loops(
        {"red": circle_loop("red", (200, 200), 100), "blue": circle_loop("blue", (420, 200), 100)},
        [],
    )
    marks = Detections([mark("", (200.0, 97.0), 0.8), mark("", (600.0, 600.0), 0.9)], WIDTH)
    combined = combine_knots(loops, marks, string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    # No mark near the blue loop: it keeps the tracer's knot.
    assert combined.loops["blue"].knot == loops.loops["blue"].knot


def test_a_knot_keeps_the_strongest_mark_at_it_as_its_knot_mark() -> None:
    loops = Loops(
        {"red": circle_loop("red", (200, 200), 100), "blue": circle_loop("blue", (420, 200), 100)},
        [],
    )
    # Two marks at the red knot (the weaker one beside it), one far off; none at blue's.
    marks = Detections(
        [mark("", (200.0, 97.0), 0.8), mark("", (203.0, 100.0), 0.3),
         mark("", (600.0, 600.0), 0.9)],
        WIDTH,
    )
    combined = combine_knots(loops, marks, string_width=5.0)
    assert combined.loops["red"].knot_mark == pytest.approx(0.8)
    # The blue loop keeps the tracer's knot, which nothing marks.
    assert combined.loops["blue"].knot_mark == 0.0
    assert loops.loops["red"].knot_mark is None  # before the detector looked


def test_a_knot_mark_goes_to_the_nearest_loop_only() -> None:
    loops = Loops(
        {"red": circle_loop("red", (200, 200), 100), "blue": circle_loop("blue", (406, 200), 100)},
        [],
    )
    # Between the two loops where they nearly touch, nearer the blue one.
    marks = Detections([mark("", (305.0, 200.0), 0.8)], WIDTH)
    combined = combine_knots(loops, marks, string_width=5.0)
    assert combined.loops["red"].knot == loops.loops["red"].knot
    assert combined.loops["blue"].knot == pytest.approx((306.0, 200.0), abs=1.0)


def test_a_knot_mark_is_looked_for_within_a_share_of_the_pawn_width_of_thin_strings() -> None:
    # The detector places a mark to a share of the pawn width it looked at: where the
    # strings are thin, a mark beside the loop is further than two string widths.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])
    reach = KNOT_REACH_PAWNS * WIDTH
    assert reach - 1.0 > KNOT_REACH_WIDTHS * 3.0
    beside = Detections([mark("", (200.0, 100.0 - (reach - 1.0)), 0.35)], WIDTH)
    knot = combine_knots(loops, beside, string_width=3.0).loops["red"].knot
    assert knot == pytest.approx((200.0, 100.0), abs=1.0)
    # Beyond both reaches it is no mark of this loop's: the tracer's knot stays.
    far = Detections([mark("", (200.0, 100.0 - (reach + 1.0)), 0.35)], WIDTH)
    assert combine_knots(loops, far, string_width=3.0).loops["red"].knot == (300.0, 200.0)


def test_a_knot_mark_near_the_tracers_knot_wins_over_a_somewhat_stronger_one_elsewhere() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    elsewhere = 0.3 + STRONGER_BY - 0.05
    marks = Detections([mark("", (299.0, 209.0), 0.3), mark("", (200.0, 97.0), elsewhere)], WIDTH)
    knot = combine_knots(loops, marks, string_width=5.0).loops["red"].knot
    assert knot == pytest.approx((299.6, 209.0), abs=1.0)
    # A mark much stronger than the agreeing one is the knot: the tracer's lump was not.
    much = Detections([mark("", (299.0, 209.0), 0.3), mark("", (200.0, 97.0), 0.9)], WIDTH)
    knot = combine_knots(loops, much, string_width=5.0).loops["red"].knot
    assert knot == pytest.approx((200.0, 100.0), abs=1.0)


def cord_maps(shape: tuple[int, int], **cords: list[tuple[tuple[int, int], int]]) -> dict:
    """Cord maps (0..255) with a sure disk of the given radius at each point per colour."""
    maps = {c: np.zeros(shape, np.uint8) for c in ("red", "yellow", "green", "blue")}
    for colour, disks in cords.items():
        for centre, radius in disks:
            cv2.circle(maps[colour], centre, radius, 255, -1)
    return maps


def test_a_faint_knot_mark_on_the_loops_own_cord_is_its_knot() -> None:
    # The tracer found no knot on this loop.
    loops = Loops({"red": replace(circle_loop("red", (200, 200), 100), knot=None)}, [])
    faint = mark("", (200.0, 97.0), OWN_CORD_KNOT_SCORE + 0.02)
    assert faint.score < KNOT_SCORE
    on_red = Detections([faint], WIDTH, cords=cord_maps((400, 400), red=[((200, 100), 8)]))
    assert combine_knots(loops, on_red, 5.0).loops["red"].knot == pytest.approx((200, 100), abs=1)
    # The same faint mark where the cord map sees another colour's cord is not red's.
    on_blue = Detections([faint], WIDTH, cords=cord_maps((400, 400), blue=[((200, 100), 8)]))
    assert combine_knots(loops, on_blue, 5.0).loops["red"].knot is None


def test_a_sure_knot_mark_on_the_loops_own_cord_counts_a_little_beyond_reach() -> None:
    # 1220135: the blue knot marked 0.74 lay 8.3 px from its loop, the reach 7.6: the
    # knot's lump had pushed the cord's skeleton aside, and the knot stayed on a lump.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    reach = knot_reach(5.0, WIDTH)
    off = 1.3 * reach
    assert SURE_KNOT_REACH > 1.3
    at = (200.0, 100.0 - off)
    red_cord = cord_maps((400, 400), red=[((200, round(100 - off / 2)), round(off))])

    def knot_with(score: float, cords: dict) -> tuple[float, float] | None:
        return combine_knots(loops, Detections([mark("", at, score)], WIDTH, cords=cords),
                             5.0).loops["red"].knot

    sure = knot_with(LOST_KNOT_SCORE, red_cord)
    assert sure == pytest.approx((200.0, 100.0), abs=1.0)
    combined = combine_knots(
        loops, Detections([mark("", at, LOST_KNOT_SCORE)], WIDTH, cords=red_cord), 5.0
    )
    assert combined.loops["red"].knot_mark == pytest.approx(LOST_KNOT_SCORE)
    # A fainter mark there, a sure one on another colour's cord or farther off: not red's.
    assert knot_with(LOST_KNOT_SCORE - 0.05, red_cord) == (300, 200)
    blue_cord = cord_maps((400, 400), blue=[((200, round(100 - off / 2)), round(off))])
    assert knot_with(0.9, blue_cord) == (300, 200)
    far = (200.0, 100.0 - (SURE_KNOT_REACH + 0.1) * reach)
    far_cord = cord_maps((400, 400), red=[((200, round(far[1])), 8)])
    assert combine_knots(loops, Detections([mark("", far, 0.9)], WIDTH, cords=far_cord),
                         5.0).loops["red"].knot == (300, 200)


def test_a_mark_faint_in_every_view_does_not_displace_the_tracers_knot() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    faint = mark("", (200.0, 97.0), OWN_CORD_KNOT_SCORE + 0.02)
    on_red = Detections([faint], WIDTH, cords=cord_maps((400, 400), red=[((200, 100), 8)]))
    assert combine_knots(loops, on_red, 5.0).loops["red"].knot == (300, 200)

    def marked(at_mark: float, at_tracers_knot: float = KNOT_SCORE - 0.05):
        def look(candidate: Detection) -> Detection:
            score = at_mark if math.dist(candidate.xy, faint.xy) < 5 else at_tracers_knot
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return look

    faint_in_the_views = combine_knots(loops, on_red, 5.0, look_again=marked(KNOT_SCORE - 0.05))
    assert faint_in_the_views.loops["red"].knot == (300, 200)
    # Marked more from the other sides (a knot half hidden), the mark is the knot ...
    seen_in_the_views = combine_knots(loops, on_red, 5.0, look_again=marked(KNOT_SCORE + 0.1))
    assert seen_in_the_views.loops["red"].knot == pytest.approx((200, 100), abs=1)
    # ... and so it is, faint in the views, where they mark the tracer's lump still less
    # (710149: a knot beside its demon, 0.09 in the views, against a lump at 0.00).
    lump_unseen = combine_knots(loops, on_red, 5.0, look_again=marked(KNOT_SCORE - 0.1, 0.0))
    assert lump_unseen.loops["red"].knot == pytest.approx((200, 100), abs=1)
    # Not clearly less (by under KNOT_SWITCH_BY), the tracer's knot stands.
    lump_alike = marked(KNOT_SCORE - 0.1, KNOT_SCORE - 0.1 - KNOT_SWITCH_BY + 0.01)
    assert combine_knots(loops, on_red, 5.0, look_again=lump_alike).loops["red"].knot == (300, 200)


def test_the_cord_colour_at_a_knot_mark_says_which_of_two_near_loops_it_belongs_to() -> None:
    loops = Loops(
        {"red": circle_loop("red", (200, 200), 100), "blue": circle_loop("blue", (406, 200), 100)},
        [],
    )
    # Between the loops, nearer the blue one, but on the red cord.
    marks = Detections(
        [mark("", (305.0, 200.0), 0.8)], WIDTH, cords=cord_maps((400, 600), red=[((303, 200), 8)])
    )
    combined = combine_knots(loops, marks, string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx((300.0, 200.0), abs=1.0)
    assert combined.loops["red"].knot_confidence == 0.8  # the mark's, not the tracer's
    assert combined.loops["blue"].knot == loops.loops["blue"].knot


def test_a_knot_mark_where_two_cords_cross_is_the_knot_of_the_surer_one_only() -> None:
    """Near a crossing the cord map shows both cords; the mark is one loop's knot, and
    the other keeps its own."""
    red = circle_loop("red", (200, 200), 100)
    blue = Loop(
        colour="blue",
        points=np.column_stack([np.full(200, 300.0), np.linspace(0, 400, 200)])[::-1],
        knot=(300.0, 380.0),
    )
    crossing = (300, 200)
    cords = cord_maps((400, 600), red=[(crossing, 9)], blue=[((300, 205), 9)])
    marks = Detections(
        [mark("", (301.0, 201.0), 0.9), mark("", (300.0, 380.0), 0.5)], WIDTH, cords=cords
    )
    combined = combine_knots(Loops({"red": red, "blue": blue}, []), marks, string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx((300.0, 201.0), abs=1.5)
    assert combined.loops["blue"].knot == pytest.approx((300.0, 380.0), abs=1.0)


def test_a_faint_knot_mark_where_two_cords_cross_is_no_knot() -> None:
    """A crossing is a lump to the detector too, and no knot lies on a crossing
    (RULES.md): a mark there only counts as strong as a mark on no cord must be."""
    red = replace(circle_loop("red", (200, 200), 100), knot=None)
    blue = Loop(
        colour="blue",
        points=np.column_stack([np.full(200, 300.0), np.linspace(0, 400, 200)])[::-1],
        knot=None,
    )
    loops = Loops({"red": red, "blue": blue}, [])
    crossing = (300, 200)
    faint = mark("", (301.0, 201.0), OWN_CORD_KNOT_SCORE + 0.02)
    assert faint.score < KNOT_SCORE
    both = cord_maps((400, 600), red=[(crossing, 9)], blue=[((300, 205), 9)])
    combined = combine_knots(loops, Detections([faint], WIDTH, cords=both), string_width=5.0)
    assert combined.loops["red"].knot is None and combined.loops["blue"].knot is None
    # Where the cord map shows the red cord only, the same mark is red's knot.
    red_only = cord_maps((400, 600), red=[(crossing, 9)])
    combined = combine_knots(loops, Detections([faint], WIDTH, cords=red_only), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx((300.0, 201.0), abs=1.5)
    # A mark as strong as KNOT_SCORE at the crossing goes to the surer cord, as before.
    sure = mark("", (301.0, 201.0), KNOT_SCORE)
    combined = combine_knots(loops, Detections([sure], WIDTH, cords=both), string_width=5.0)
    assert combined.loops["red"].knot is not None
    # Two cords side by side that do not cross there: the faint mark is the surer one's.
    beside = Loop(
        colour="blue",
        points=np.column_stack([np.full(200, 306.0), np.linspace(0, 400, 200)])[::-1],
        knot=None,
    )
    apart = Loops({"red": red, "blue": beside}, [])
    red_surer = cord_maps((400, 600), blue=[((306, 200), 8)], red=[((300, 200), 9)])
    combined = combine_knots(apart, Detections([faint], WIDTH, cords=red_surer), 5.0)
    assert combined.loops["red"].knot == pytest.approx((300.0, 201.0), abs=1.5)


def test_a_faint_knot_beside_a_crossing_gives_way_to_a_faint_mark_away_from_crossings() -> None:
    """No knot lies on a crossing, yet a crossing and the demons at its corners make
    lumps: the tracer's knot a pawn width from a crossing of its loop, marked under
    KNOT_SCORE, gives way to a faint knot mark on the loop away from its crossings
    (590169), even where the cord map does not show the cord there."""
    red = circle_loop("red", (200, 200), 100)
    blue = Loop(
        colour="blue",
        points=np.column_stack([np.full(200, 250.0), np.linspace(0, 400, 200)])[::-1],
        knot=(250.0, 380.0),
    )
    crossing = (250.0, 200.0 - math.sqrt(100**2 - 50**2))
    lump = (200 + 100 * math.cos(math.radians(-55)), 200 + 100 * math.sin(math.radians(-55)))
    assert math.dist(lump, crossing) < CROSSING_KNOT_WIDTHS * WIDTH
    by_the_crossing = Loops({"red": replace(red, knot=lump), "blue": blue}, [])
    away = mark("", (97.0, 200.0), OWN_CORD_KNOT_SCORE + 0.02)
    combined = combine_knots(by_the_crossing, Detections([away], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx((100.0, 200.0), abs=1.0)
    assert combined.loops["red"].knot_mark == away.score
    assert combined.loops["blue"].knot == blue.knot
    # A tracer's knot away from the crossings stays.
    in_the_open = Loops({"red": red, "blue": blue}, [])
    combined = combine_knots(in_the_open, Detections([away], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == red.knot
    # So does one the detector marks from KNOT_SCORE.
    sure = mark("", lump, KNOT_SCORE)
    combined = combine_knots(by_the_crossing, Detections([away, sure], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx(lump, abs=1.0)
    # A mark within reach of another loop too is no better (whose it is cannot be said).
    alongside = Loop(colour="green", points=circle_loop("green", (200, 200), 106).points, knot=None)
    three = Loops({"red": replace(red, knot=lump), "blue": blue, "green": alongside}, [])
    between = mark("", (97.0, 200.0), OWN_CORD_KNOT_SCORE + 0.02)
    combined = combine_knots(three, Detections([between], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx(lump, abs=1.0)
    # A faint mark itself beside a crossing is no better.
    also_beside = (200 + 100 * math.cos(math.radians(-75)), 200 + 100 * math.sin(math.radians(-75)))
    assert math.dist(also_beside, crossing) < CROSSING_KNOT_WIDTHS * WIDTH
    other = mark("", also_beside, OWN_CORD_KNOT_SCORE + 0.05)
    combined = combine_knots(by_the_crossing, Detections([other], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx(lump, abs=1.0)
    # Nor is one under OWN_CORD_KNOT_SCORE.
    fainter = mark("", (97.0, 200.0), OWN_CORD_KNOT_SCORE - 0.02)
    combined = combine_knots(by_the_crossing, Detections([fainter], WIDTH), string_width=5.0)
    assert combined.loops["red"].knot == pytest.approx(lump, abs=1.0)


def test_a_tracers_knot_beside_a_pawn_of_its_colour_yields_to_a_clearly_stronger_mark() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    faint, elsewhere = mark("", (301.0, 200.0), 0.25), mark("", (200.0, 98.0), 0.25 + 0.2)
    marks = Detections([faint, elsewhere], WIDTH)
    # Alone, the tracer's knot keeps its faint mark: the other is not STRONGER_BY stronger.
    alone = combine_knots(loops, marks, 5.0, Pawns([], WIDTH, []))
    assert alone.loops["red"].knot == pytest.approx((300.0, 200.0), abs=1.0)
    # A red pawn stands beside it: its base may be the lump the tracer took.
    beside = Pawns([seen("red", (330.0, 215.0)), seen("blue", (200.0, 60.0))], WIDTH, [])
    assert STRONGER_BY_BESIDE_PAWN < 0.2 < STRONGER_BY
    knot = combine_knots(loops, marks, 5.0, beside).loops["red"].knot
    assert knot == pytest.approx((200.0, 100.0), abs=1.0)
    # A pawn of another colour there changes nothing.
    blue = Pawns([seen("blue", (330.0, 215.0))], WIDTH, [])
    assert combine_knots(loops, marks, 5.0, blue).loops["red"].knot == alone.loops["red"].knot


def test_a_knot_mark_at_the_base_of_a_pawn_of_its_colour_yields_to_one_in_the_open() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    at_pawn = mark("", (200.0, 98.0), 0.55)
    in_the_open = mark("", (100.0, 202.0), 0.55 - OPEN_KNOT_SLACK + 0.01)
    marks = Detections([at_pawn, in_the_open], WIDTH)
    nobody = combine_knots(loops, marks, 5.0, Pawns([], WIDTH, []))
    assert nobody.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    # A red pawn's foot half a pawn width from the stronger mark: its base is no knot.
    foot = (200.0, 98.0 - 0.5 * WIDTH)
    assert PAWN_BASE_WIDTHS > 0.5
    red_pawn = Pawns([seen("red", foot)], WIDTH, [])
    knot = combine_knots(loops, marks, 5.0, red_pawn).loops["red"].knot
    assert knot == pytest.approx((100.0, 202.0), abs=1.0)
    # Not for a clearly fainter mark in the open (a knot under the pawn), nor for a pawn
    # of another colour.
    fainter = mark("", (100.0, 202.0), 0.55 - OPEN_KNOT_SLACK - 0.05)
    knot = combine_knots(loops, Detections([at_pawn, fainter], WIDTH), 5.0, red_pawn).loops
    assert knot["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    blue_pawn = Pawns([seen("blue", foot)], WIDTH, [])
    knot = combine_knots(loops, marks, 5.0, blue_pawn).loops["red"].knot
    assert knot == pytest.approx((200.0, 100.0), abs=1.0)


def test_with_no_mark_near_the_tracers_knot_the_strongest_mark_on_the_loop_is_taken() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    marks = Detections([mark("", (200.0, 97.0), 0.3), mark("", (100.0, 205.0), 0.25)], WIDTH)
    knot = combine_knots(loops, marks, string_width=5.0).loops["red"].knot
    assert knot == pytest.approx((200.0, 100.0), abs=1.0)
    # A mark weaker than KNOT_SCORE is no knot: the tracer's stays.
    faint = Detections([mark("", (200.0, 97.0), KNOT_SCORE - 0.05)], WIDTH)
    assert combine_knots(loops, faint, string_width=5.0).loops["red"].knot == (300, 200)


# --- tracing a loop on the detector's cord map ---------------------------------------------


def ellipse_mask(centre: tuple[int, int], axes: tuple[int, int], arc: int = 360) -> np.ndarray:
    """A 5-px cord along (part of) an ellipse on a 700 x 900 photo."""
    mask = np.zeros((700, 900), np.uint8)
    cv2.ellipse(mask, centre, axes, 0, 0, arc, 1, 5)
    return mask.astype(bool)


CORDS = {
    "red": ((380, 330), (220, 150)),
    "yellow": ((520, 330), (220, 150)),
    "green": ((450, 260), (160, 200)),
    "blue": ((450, 420), (260, 120)),
}


def separation_with(blue: np.ndarray) -> Separation:
    strings = {c: ellipse_mask(*where) for c, where in CORDS.items() if c != "blue"}
    strings["blue"] = blue
    return Separation(strings, [], string_width=5.0, pawn_mask=np.zeros((700, 900), bool))


def cord_map(mask: np.ndarray) -> np.ndarray:
    return np.where(mask, 230, 10).astype(np.uint8)


def blue_loop_fits(loops: Loops) -> bool:
    (cx, cy), (ax, ay) = CORDS["blue"]
    points = loops.loops["blue"].points
    radii = np.hypot((points[:, 0] - cx) / ax, (points[:, 1] - cy) / ay)
    return bool(np.abs(radii - 1).max() < 0.05)


def test_a_cord_the_colour_rules_miss_is_traced_on_the_cord_map() -> None:
    # A blue cord on a blue mat: the colour rules see none of it, the detector all of it.
    separation = separation_with(np.zeros((700, 900), bool))
    blue = cord_map(ellipse_mask(*CORDS["blue"]))
    loops = trace_with_cords(separation, Detections([], WIDTH, {"blue": blue}))
    assert sorted(loops.loops) == ["blue", "green", "red", "yellow"]
    assert blue_loop_fits(loops)
    assert loops.loops["blue"].seen > 0.9
    # Without the cord map it is a one-line refusal, as before.
    with pytest.raises(ReadError, match="no blue string"):
        trace_with_cords(separation, Detections([], WIDTH))


def test_the_reading_that_saw_more_of_a_weak_loop_is_kept() -> None:
    # The rules see a third of the blue cord (its lit side); the cord map all of it.
    separation = separation_with(ellipse_mask(*CORDS["blue"], arc=120))
    blue = cord_map(ellipse_mask(*CORDS["blue"]))
    loops = trace_with_cords(separation, Detections([], WIDTH, {"blue": blue}))
    assert loops.loops["blue"].seen > 0.9
    # A cord map that sees even less of it does not replace the rules' reading.
    scrap = cord_map(ellipse_mask(*CORDS["blue"], arc=40))
    weaker = trace_with_cords(separation, Detections([], WIDTH, {"blue": scrap}))
    assert weaker.loops["blue"].seen == pytest.approx(
        trace_with_cords(separation, Detections([], WIDTH)).loops["blue"].seen
    )


def test_a_loop_that_misses_a_sure_knot_on_its_cord_is_traced_again_on_the_cord_map() -> None:
    # The rules' blue is another way round (a shortcut); the cord map shows the cord
    # and the detector its knot, on the cord map's blue, far from the rules' loop.
    separation = separation_with(ellipse_mask((450, 380), (200, 100)))
    blue = cord_map(ellipse_mask(*CORDS["blue"]))
    knot = mark("", (710.0, 420.0), LOST_KNOT_SCORE + 0.1)
    loops = trace_with_cords(separation, Detections([knot], WIDTH, {"blue": blue}))
    assert blue_loop_fits(loops)
    # A faint mark, or none, leaves the rules' loop (which saw all its string).
    faint = mark("", (710.0, 420.0), LOST_KNOT_SCORE - 0.1)
    for marks in ([], [faint]):
        kept = trace_with_cords(separation, Detections(marks, WIDTH, {"blue": blue}))
        assert not blue_loop_fits(kept)
    # A cord map showing only scraps of the cord is bridged round past the mark too,
    # but sees far less than the rules' loop: that is kept.
    scraps = np.zeros((700, 900), np.uint8)
    for start in range(-6, 354, 45):
        cv2.ellipse(scraps, (450, 420), (260, 120), 0, start, start + 12, 1, 5)
    alone = trace_each(separation_with(scraps > 0), colours=["blue"])["blue"]
    assert alone is not None and alone.seen < 0.5
    assert LinearRing(alone.points).distance(ShapelyPoint(knot.xy)) < 2 * 5.0
    kept = trace_with_cords(separation, Detections([knot], WIDTH, {"blue": cord_map(scraps > 0)}))
    assert not blue_loop_fits(kept) and kept.loops["blue"].seen > 0.9
    # A mark beside a blue demon's foot is the demon's head or base, marked as a knot.
    for widths, kept_rules in ((0.6 * PAWN_BASE_WIDTHS, True), (1.5 * PAWN_BASE_WIDTHS, False)):
        demon = mark("blue", (710.0, 420.0 - widths * WIDTH), LOST_KNOT_DEMON_SCORE + 0.05)
        read = trace_with_cords(separation, Detections([knot, demon], WIDTH, {"blue": blue}))
        assert blue_loop_fits(read) is not kept_rules
    # A faint demon there, or a demon of another colour, does not say so.
    for other in (mark("blue", (710.0, 420.0 - 0.6 * WIDTH), LOST_KNOT_DEMON_SCORE - 0.05),
                  mark("red", (710.0, 420.0 - 0.6 * WIDTH), LOST_KNOT_DEMON_SCORE + 0.05)):
        read = trace_with_cords(separation, Detections([knot, other], WIDTH, {"blue": blue}))
        assert blue_loop_fits(read)


def test_the_share_of_a_loop_on_its_cord_map() -> None:
    true_blue = trace_each(separation_with(ellipse_mask(*CORDS["blue"])), colours=["blue"])
    loop = true_blue["blue"]
    assert loop is not None
    on = cord_map(ellipse_mask(*CORDS["blue"]))
    assert on_cord_share(loop, on, 5.0) == 1.0
    assert on_cord_share(loop, np.full((700, 900), 10, np.uint8), 5.0) == 0.0
    # The cord map shows the left half of the cord only (x < 450).
    half = on.copy()
    half[:, 450:] = 10
    assert on_cord_share(loop, half, 5.0) == pytest.approx(0.5, abs=0.03)
    # A cord map beside the loop by less than the reach still counts, farther does not.
    shifted = np.roll(on, 6, axis=0)
    assert on_cord_share(loop, shifted, 5.0) > 0.95
    assert on_cord_share(loop, np.roll(on, 20, axis=0), 5.0) < 0.5


def test_a_loop_seen_well_but_off_its_cord_map_is_traced_again_on_the_cord_map() -> None:
    # The rules saw most of a blue string, but another way round than the cord (pieces
    # of other cords' lit edges taken for blue, on a blue mat); the cord map shows
    # the cord all round.
    shortcut = ellipse_mask((450, 380), (200, 100), arc=320)
    separation = separation_with(shortcut)
    alone = trace_each(separation, colours=["blue"])["blue"]
    assert alone is not None and WEAK_SEEN < alone.seen < 0.95
    blue = cord_map(ellipse_mask(*CORDS["blue"]))
    assert on_cord_share(alone, blue, 5.0) < CORD_AGREEMENT
    loops = trace_with_cords(separation, Detections([], WIDTH, {"blue": blue}))
    assert blue_loop_fits(loops) and loops.loops["blue"].seen > 0.95
    # The same share seen along the cord itself is the rules' loop, kept.
    along = separation_with(ellipse_mask(*CORDS["blue"], arc=320))
    kept = trace_with_cords(along, Detections([], WIDTH, {"blue": blue}))
    assert blue_loop_fits(kept) and kept.loops["blue"].seen < 0.95


def test_the_longest_stretch_of_a_loop_along_another() -> None:
    blue = trace_each(separation_with(ellipse_mask(*CORDS["blue"])), colours=["blue"])["blue"]
    red = circle_loop("red", (380, 330), 150)
    assert blue is not None
    reach = ALONG_REACH * 5.0
    # Crossing loops lie near each other for a few string widths at each crossing only.
    assert 0 < longest_run_along(blue, [red], reach) < ALONG_WIDTHS * 5.0
    assert longest_run_along(blue, [], reach) == 0.0
    # A copy 4 px beside it follows it all round; one over a quarter of it, that far.
    beside = replace(blue, points=blue.points + (0.0, 4.0))
    assert longest_run_along(blue, [beside], reach) == pytest.approx(blue.length)
    quarter = ellipse_mask(*CORDS["blue"], arc=90)
    part = trace_each(separation_with(quarter), colours=["blue"])["blue"]
    assert part is not None
    run = longest_run_along(blue, [part], reach)
    assert run == pytest.approx(blue.length / 4, rel=0.1)


def test_a_loop_on_the_cord_map_that_follows_another_cord_is_traced_apart_from_it() -> None:
    # A blue cord on a blue mat: the rules see none of it; the network marks it with a
    # gap, and marks the lower part of the red cord blue too (dev_0014). Traced on the
    # map alone, the blue loop runs along the red cord for a long stretch.
    gapped = np.zeros((700, 900), np.uint8)
    cv2.ellipse(gapped, (450, 420), (260, 120), 0, 85, 395, 1, 5)
    red_part = np.zeros((700, 900), np.uint8)
    cv2.ellipse(red_part, *CORDS["red"], 0, 30, 120, 1, 5)
    blue = cord_map((gapped > 0) | (red_part > 0))
    separation = separation_with(np.zeros((700, 900), bool))
    loops = trace_with_cords(separation, Detections([], WIDTH, {"blue": blue}))
    assert blue_loop_fits(loops)
    reach, longest = ALONG_REACH * 5.0, ALONG_WIDTHS * 5.0
    assert longest_run_along(loops.loops["blue"], [loops.loops["red"]], reach) < longest
    # The red loop itself is the rules' and stays as it was.
    alone = trace_each(separation, colours=["red"])["red"]
    assert alone is not None
    assert np.array_equal(loops.loops["red"].points, alone.points)


def test_string_pixels_at_a_sure_pawn_of_their_colour_off_the_cord_map_are_taken_out() -> None:
    # A blue pawn standing on the blue cord: its lit side, a ring of blue pixels
    # below the cord, was not cut out by the colour rules and joins the string.
    cord = ellipse_mask(*CORDS["blue"])
    lit_side = np.zeros((700, 900), np.uint8)
    cv2.circle(lit_side, (450, 560), 14, 1, 6)
    separation = separation_with(cord | (lit_side > 0))
    before = separation.strings["blue"].copy()
    cords = {"blue": cord_map(cord)}
    foot = (450.0, 574.0)
    cut = without_marked_pawns(separation, Detections([mark("blue", foot, 0.7)], WIDTH, cords))
    blue = cut.strings["blue"]
    assert not (blue & (lit_side > 0) & ~cord).any()
    # What the cord map shows as cord stays, beside the pawn as everywhere.
    assert (blue == cord).all()
    # The other colours' strings are left as they were, and so is the separation given.
    assert all(cut.strings[c] is separation.strings[c] for c in ("red", "yellow", "green"))
    assert (separation.strings["blue"] == before).all()
    # Two marks on one pawn cut as one.
    twice = [mark("blue", foot, 0.7), mark("blue", (foot[0] + 2, foot[1]), 0.6)]
    assert not (
        without_marked_pawns(separation, Detections(twice, WIDTH, cords)).strings["blue"]
        & (lit_side > 0)
        & ~cord
    ).any()
    assert (separation.strings["blue"] == before).all()
    # A faint mark, a mark of another colour, a mark off the photo, or no cord map leave it.
    for marks, maps in (
        ([mark("blue", foot, PAWN_CUT_SCORE - 0.1)], cords),
        ([mark("red", foot, 0.7)], cords),
        ([mark("blue", (-500.0, -500.0), 0.7)], cords),
        ([mark("blue", foot, 0.7)], {}),
    ):
        kept = without_marked_pawns(separation, Detections(marks, WIDTH, maps))
        assert (kept.strings["blue"] == before).all()


def test_a_loop_far_shorter_than_the_others_is_traced_again_on_the_cord_map() -> None:
    # A blue cord on a blue cloth: the rules see none of it, only a small ring of blue
    # round a pawn off the board, which closes into a loop of its own (all of it seen).
    ring = np.zeros((700, 900), np.uint8)
    cv2.circle(ring, (810, 100), 60, 1, 5)
    separation = separation_with(ring.astype(bool))
    assert too_short(trace_each(separation)) == {"blue"}
    blue = cord_map(ellipse_mask(*CORDS["blue"]))
    loops = trace_with_cords(separation, Detections([], WIDTH, {"blue": blue}))
    assert blue_loop_fits(loops)
    assert not [w for w in loops.warnings if "shorter" in w]
    # A cord map that sees no more than the ring leaves it, and says so.
    kept = trace_with_cords(separation, Detections([], WIDTH, {"blue": cord_map(ring > 0)}))
    assert not blue_loop_fits(kept)
    assert "the blue loop is far shorter than the others" in kept.warnings


def test_a_knot_the_second_look_chose_at_a_pawns_base_stands() -> None:
    # 230099: the knot lies beside a yellow pawn (marked 0.28), a lump in the open is
    # marked 0.31; the tracer's knot is at neither. Looked at again, the knot is marked
    # clearly more than the lump: it stays the knot, the pawn beside it or not.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    lump, knot = mark("", (200.0, 97.0), 0.31), mark("", (100.0, 202.0), 0.28)
    assert lump.score < KNOT_CONTEST and knot.score > lump.score - OPEN_KNOT_SLACK
    marks = Detections([lump, knot], WIDTH)
    pawn_beside = Pawns([seen("red", (100.0, 202.0 + 0.5 * WIDTH))], WIDTH, [])

    def seen_better_at_the_knot(candidate: Detection) -> Detection:
        score = 0.5 if math.dist(candidate.xy, knot.xy) < 5 else 0.1
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    chosen = combine_knots(loops, marks, 5.0, pawn_beside, seen_better_at_the_knot)
    assert chosen.loops["red"].knot == pytest.approx((100.0, 200.0), abs=2.0)
    # Without the second look the lump in the open is taken over the pawn's base.
    first = combine_knots(loops, marks, 5.0, pawn_beside)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)


def test_a_knot_at_a_pawns_base_stands_where_the_eight_views_mark_it_more_than_the_lump() -> None:
    # 300166: the knot, squeezed beside a pawn of its colour, is marked 0.21 where the
    # tracer put it; a lump in the open 0.26. Looked at again, the knot 0.25, the lump
    # 0.23: not enough to switch (KNOT_SWITCH_BY), but the lump is no likelier either.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    knot, lump = mark("", (301.0, 201.0), 0.21), mark("", (200.0, 97.0), 0.26)
    assert knot.score >= lump.score - STRONGER_BY_BESIDE_PAWN and knot.score < KNOT_CONTEST
    marks = Detections([lump, knot], WIDTH)
    pawn_beside = Pawns([seen("red", (301.0, 201.0 + 0.5 * WIDTH))], WIDTH, [])
    views = {knot.xy: 0.25, lump.xy: 0.23}
    assert views[lump.xy] < views[knot.xy] + KNOT_SWITCH_BY  # the look again keeps the knot

    def seen_again(candidate: Detection) -> Detection:
        score = next((s for xy, s in views.items() if math.dist(candidate.xy, xy) < 5), 0.0)
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    chosen = combine_knots(loops, marks, 5.0, pawn_beside, seen_again)
    assert chosen.loops["red"].knot == pytest.approx((300.0, 201.0), abs=2.0)
    # Without a second look the lump in the open is taken over the pawn's base ...
    first = combine_knots(loops, marks, 5.0, pawn_beside)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    # ... and so it is where the eight views mark the lump at least as much.
    views[lump.xy] = 0.25
    lump_as_much = combine_knots(loops, marks, 5.0, pawn_beside, seen_again)
    assert lump_as_much.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)


def test_a_knot_chosen_on_a_faint_mark_is_looked_at_again_with_the_tracers_knot() -> None:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    faint = mark("", (200.0, 97.0), 0.22)
    assert faint.score < KNOT_CONTEST
    marks = Detections([faint], WIDTH)
    # Without a second look, a mark with none at the tracer's knot is the knot.
    first = combine_knots(loops, marks, 5.0).loops["red"].knot
    assert first == pytest.approx((200.0, 100.0), abs=1.0)
    looked: list[tuple[float, float]] = []

    def seen_better_at_the_tracers_knot(candidate: Detection) -> Detection:
        looked.append(candidate.xy)
        score = 0.5 if math.dist(candidate.xy, (300.0, 200.0)) < 5 else 0.05
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    knot = combine_knots(loops, marks, 5.0, look_again=seen_better_at_the_tracers_knot)
    assert knot.loops["red"].knot == (300.0, 200.0)
    assert len(looked) == 2

    # Looked at again, the faint mark stands: it is the knot.
    def seen_better_at_the_mark(candidate: Detection) -> Detection:
        score = 0.5 if math.dist(candidate.xy, faint.xy) < 5 else 0.05
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    knot = combine_knots(loops, marks, 5.0, look_again=seen_better_at_the_mark)
    assert knot.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)

    # The tracer's knot marked 0.07 more in the views is taken (KNOT_SWITCH_BY: 700151,
    # 0.28 against a lump at 0.19), 0.03 more is not.
    def seen_more_at_the_tracers_knot(by: float) -> Callable[[Detection], Detection]:
        def look(candidate: Detection) -> Detection:
            near = math.dist(candidate.xy, (300.0, 200.0)) < 5
            score = 0.2 + by if near else 0.2
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return look

    assert KNOT_SWITCH_BY < 0.07
    more = combine_knots(loops, marks, 5.0, look_again=seen_more_at_the_tracers_knot(0.07))
    assert more.loops["red"].knot == (300.0, 200.0)
    alike = combine_knots(loops, marks, 5.0, look_again=seen_more_at_the_tracers_knot(0.03))
    assert alike.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    # A sure mark is not looked at again ...
    sure = Detections([mark("", (200.0, 97.0), KNOT_CONTEST + 0.1)], WIDTH)
    looked.clear()
    combine_knots(loops, sure, 5.0, look_again=seen_better_at_the_tracers_knot)
    assert looked == []
    # ... nor a faint one on a knot the separate stage found by its shape.
    shaped = replace(loops.loops["red"], knot_confidence=1.0)
    agreeing = Detections([mark("", (301.0, 203.0), 0.2), mark("", (200.0, 97.0), 0.4)], WIDTH)
    # (looked at again, the mark elsewhere would win)
    knot = combine_knots(
        Loops({"red": shaped}, []), agreeing, 5.0, look_again=seen_better_at_the_mark
    )
    assert knot.loops["red"].knot == pytest.approx((300.0, 203.0), abs=1.0)


def test_a_knot_the_knot_checker_doubts_moves_to_a_place_of_its_loop_it_is_sure_of() -> None:
    loops = Loops(
        {"red": circle_loop("red", (200, 200), 100), "blue": circle_loop("blue", (520, 200), 100)},
        [],
    )  # traced knots: (300, 200) and (620, 200)
    # Red: a stronger mark at a pawn's base (the first choice), a faint one at the knot.
    marks = Detections([mark("", (200.0, 97.0), 0.4), mark("", (200.0, 303.0), 0.22),
                        mark("", (520.0, 97.0), 0.4)], WIDTH)
    first = combine_knots(loops, marks, 5.0)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    asked: list[list[tuple[float, float]]] = []

    def checker(sure_at: tuple[float, float], sure: float, elsewhere: float):  # type: ignore[no-untyped-def]
        def knot_odds(places: list[tuple[float, float]]) -> list[float]:
            asked.append(list(places))
            return [sure if math.dist(p, sure_at) < 5 else elsewhere for p in places]

        return knot_odds

    checked = combine_knots(loops, marks, 5.0, knot_odds=checker((200.0, 300.0), 0.95, 0.05))
    assert checked.loops["red"].knot == pytest.approx((200.0, 300.0), abs=1.0)
    assert checked.loops["red"].knot_confidence == pytest.approx(0.95)
    assert checked.loops["red"].knot_mark == pytest.approx(0.22)
    # Asked about both knots, then, both doubted, about each knot again, its loop's
    # marks and the tracer's knot away from it, each at ALONG places along its loop
    # (red: the knot, the faint mark, the tracer's knot; blue: the knot, the tracer's).
    assert [len(places) for places in asked][:2] == [2, (3 + 2) * ALONG]
    # ... and blue, whose places none will do, all along its loop (a third question).
    assert len(asked) == 3
    # Blue's knot, doubted too, has no place the checker is sure of: it stays.
    assert checked.loops["blue"].knot == first.loops["blue"].knot
    # The checker not sure enough of the other place, or not doubting the knot: it stays.
    unsure = checker((200.0, 300.0), CHECKED_KNOT - 0.05, 0.05)
    assert combine_knots(loops, marks, 5.0, knot_odds=unsure).loops["red"].knot == first.loops[
        "red"
    ].knot
    undoubted = checker((200.0, 300.0), 0.95, KNOT_DOUBT + 0.05)
    asked.clear()
    assert combine_knots(loops, marks, 5.0, knot_odds=undoubted).loops["red"].knot == first.loops[
        "red"
    ].knot
    assert [len(places) for places in asked] == [2]  # no knot doubted: asked once
    # The tracer's knot is a place too.
    to_tracers = combine_knots(loops, marks, 5.0, knot_odds=checker((300.0, 200.0), 0.95, 0.05))
    assert to_tracers.loops["red"].knot == pytest.approx((300.0, 200.0), abs=1.0)
    # The eight views mark the knot more than the place the checker is sure of, by
    # more than CHECKED_SLACK: the knot stands (dev_0017: the checker doubted the other
    # renderer's knot, marked 0.49 and 0.50 in the views, against places at 0.05).
    def views(at_knot: float, at_place: float) -> Callable[[Detection], Detection]:
        def look(candidate: Detection) -> Detection:
            near_place = math.dist(candidate.xy, (200.0, 303.0)) < 5
            score = at_place if near_place else at_knot
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return look

    sure_of_the_place = checker((200.0, 300.0), 0.95, 0.05)
    kept = combine_knots(
        loops, marks, 5.0, look_again=views(0.5, 0.5 - CHECKED_SLACK - 0.05),
        knot_odds=sure_of_the_place,
    )
    assert kept.loops["red"].knot == first.loops["red"].knot
    moved = combine_knots(
        loops, marks, 5.0, look_again=views(0.5, 0.5 - CHECKED_SLACK + 0.05),
        knot_odds=sure_of_the_place,
    )
    assert moved.loops["red"].knot == pytest.approx((200.0, 300.0), abs=1.0)


def test_a_doubted_knot_moves_only_where_the_checker_asked_eight_ways_agrees() -> None:
    # 1390146: a right yellow knot, given 0.79 along its loop, gave way to a red demon's
    # base on the yellow cord given 0.87; each crop asked turned the eight ways, 0.78
    # and 0.35.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    # A stronger mark at a pawn's base (the first choice), a faint one elsewhere.
    marks = Detections([mark("", (200.0, 97.0), 0.4), mark("", (200.0, 303.0), 0.22)], WIDTH)
    first = combine_knots(loops, marks, 5.0)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    place = (200.0, 300.0)
    # The knot, doubted where it stands, likeliest two tenths of a width along its loop.
    turn = 2 * KNOT_SCAN_STEP * WIDTH / 100  # radians round the circle
    beside = (200.0 - 100 * math.sin(turn), 200.0 - 100 * math.cos(turn))

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        return [0.95 if math.dist(p, place) < 5 else 0.3 if math.dist(p, beside) < 1.0
                else 0.05 for p in places]

    assert combine_knots(loops, marks, 5.0, knot_odds=knot_odds).loops[
        "red"
    ].knot == pytest.approx(place, abs=1.0)
    # Not to a red demon's base there, unless the knot stands at one too.
    foot = (place[0], place[1] - 0.5 * WIDTH)
    for feet, moves in [([foot], False), ([foot, (200.0, 100.0)], True)]:
        pawns = Pawns([seen("red", xy) for xy in feet], WIDTH, [])
        read = combine_knots(loops, marks, 5.0, pawns=pawns, knot_odds=knot_odds).loops["red"]
        assert read.knot == pytest.approx(place if moves else (200.0, 100.0), abs=1.0), feet
    asked: list[list[tuple[float, float]]] = []

    def turned(at_knot: float, at_place: float):  # type: ignore[no-untyped-def]
        def turned_knot_odds(places: list[tuple[float, float]]) -> list[float]:
            asked.append(list(places))
            return [at_place if math.dist(p, place) < 5
                    else at_knot if math.dist(p, beside) < 1.0 else 0.0 for p in places]

        return turned_knot_odds

    for at_knot, at_place, moves in [(0.78, 0.35, False), (0.5, 0.5, False), (0.35, 0.78, True),
                                     (math.nan, 0.78, True), (0.35, math.nan, False)]:
        asked.clear()
        checked = combine_knots(
            loops, marks, 5.0, knot_odds=knot_odds, turned_knot_odds=turned(at_knot, at_place)
        )
        knot = checked.loops["red"].knot
        assert knot == pytest.approx(place if moves else first.loops["red"].knot, abs=1.0)
        # One question: where the knot is likeliest along its loop, and the place.
        [[at_the_knot, at_the_place]] = asked
        assert math.dist(at_the_knot, beside) < 1.0
        assert math.dist(at_the_place, place) < 5
    # No knot doubted, no place found: the eight ways are never asked.
    asked.clear()
    combine_knots(loops, marks, 5.0, knot_odds=lambda places: [0.7] * len(places),
                  turned_knot_odds=turned(0.1, 0.9))
    assert asked == []


def test_a_knot_the_checker_rules_out_moves_where_the_views_mark_its_likeliest_place_more() -> None:
    # 1590173: a red knot half hidden by a demon on red cloth, given 0.56 along its
    # loop (too little to be sure of), its lump marked 0.22 in the eight views; the
    # knot stood on a faint lump at a blue demon's base, 0.002 eight ways, 0.22 in the
    # views.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    marks = Detections([mark("", (200.0, 97.0), 0.4), mark("", (200.0, 303.0), 0.22)], WIDTH)
    first = combine_knots(loops, marks, 5.0)
    knot, place = (200.0, 100.0), (200.0, 300.0)
    assert first.loops["red"].knot == pytest.approx(knot, abs=1.0)
    likeliest = CHECKED_KNOT - 0.2  # too little for the doubted knot to move on its own

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        return [likeliest if math.dist(p, place) < 5 else 0.05 for p in places]

    def turned(at_knot: float, elsewhere: float = 0.5):  # type: ignore[no-untyped-def]
        def turned_knot_odds(places: list[tuple[float, float]]) -> list[float]:
            return [at_knot if math.dist(p, knot) < 5 else elsewhere for p in places]

        return turned_knot_odds

    def views(at_knot: float, at_place: float) -> Callable[[Detection], Detection]:
        def look(candidate: Detection) -> Detection:
            score = at_place if math.dist(candidate.xy, place) < 5 else at_knot
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return look

    ruled_out = RULED_OUT_KNOT - 0.05
    for at_knot, views_at_knot, views_at_place, moves in [
        (ruled_out, 0.22, 0.23, True),
        (ruled_out, 0.23, 0.22, False),  # the views mark the knot more
        (RULED_OUT_KNOT + 0.05, 0.22, 0.23, False),  # not ruled out
        (math.nan, 0.22, 0.23, False),
        (ruled_out, 0.06, VIEWED_KNOT - 0.01, False),  # the views mark neither much
        (ruled_out, 0.06, VIEWED_KNOT, True),
    ]:
        read = combine_knots(
            loops, marks, 5.0, look_again=views(views_at_knot, views_at_place),
            knot_odds=knot_odds, turned_knot_odds=turned(at_knot),
        ).loops["red"]
        assert read.knot == pytest.approx(place if moves else knot, abs=3.0), (at_knot, moves)
        # The checker asked eight ways about the place must give it more than the knot.
        unturned = combine_knots(
            loops, marks, 5.0, look_again=views(views_at_knot, views_at_place),
            knot_odds=knot_odds, turned_knot_odds=turned(at_knot, elsewhere=at_knot),
        ).loops["red"]
        assert unturned.knot == pytest.approx(knot, abs=1.0)
        if moves:
            assert read.knot_confidence == pytest.approx(likeliest)
            assert read.knot_mark == pytest.approx(0.22)
    # Not to a red demon's base on its cord (1960182: the knot in the open ruled out,
    # 0.03 eight ways, a green demon's base on the green cord 0.49), unless the knot
    # stands at one too.
    foot = (place[0], place[1] - 0.5 * WIDTH)
    aside = (foot[0] + 2 * WIDTH, foot[1])
    for feet, moves in [([foot], False), ([foot, knot], True), ([aside], True)]:
        pawns = Pawns([seen("red", xy) for xy in feet], WIDTH, [])
        read = combine_knots(
            loops, marks, 5.0, pawns=pawns, look_again=views(0.22, 0.23),
            knot_odds=knot_odds, turned_knot_odds=turned(ruled_out),
        ).loops["red"]
        assert read.knot == pytest.approx(place if moves else knot, abs=3.0), feet
    # A knot where the tracer found one surely by its shape stays (dev_0017: the dev
    # renderer's knot, on a lump the separate stage set apart, 0.02 eight ways).
    for confidence, moves in [(SHAPED_KNOT, False), (SHAPED_KNOT - 0.05, True)]:
        shaped = Loops({"red": replace(circle_loop("red", (200, 200), 100), knot=knot,
                                       knot_confidence=confidence)}, [])
        read = combine_knots(
            shaped, marks, 5.0, look_again=views(0.22, 0.23),
            knot_odds=knot_odds, turned_knot_odds=turned(ruled_out),
        ).loops["red"]
        assert read.knot == pytest.approx(place if moves else knot, abs=3.0), confidence
    # The checker's likeliest place beside the knot, within CHECKED_APART widths along
    # its loop, is the knot seen again: it stays.
    turn = 0.8 * CHECKED_APART * WIDTH / 100  # radians round the circle
    beside = (200.0 + 100 * math.sin(turn), 200.0 - 100 * math.cos(turn))

    def views_beside(candidate: Detection) -> Detection:
        score = 0.5 if math.dist(candidate.xy, beside) < 3 else 0.22
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    near = combine_knots(
        loops, marks, 5.0, look_again=views_beside,
        knot_odds=lambda places: [likeliest if math.dist(p, beside) < 3 else 0.05 for p in places],
        turned_knot_odds=turned(ruled_out),
    ).loops["red"]
    assert near.knot == pytest.approx(knot, abs=1.0)
    # A knot both doubted and ruled out has its loop scanned all along once, not twice:
    # each place asked far from all three (the knot, the place, the tracer's knot) is
    # asked once.
    far_side, spacing = (100.0, 200.0), KNOT_SCAN_STEP * WIDTH
    asked: list[tuple[float, float]] = []

    def counted_knot_odds(places: list[tuple[float, float]]) -> list[float]:
        asked.extend(places)
        return knot_odds(places)

    read = combine_knots(
        loops, marks, 5.0, look_again=views(0.22, 0.23),
        knot_odds=counted_knot_odds, turned_knot_odds=turned(ruled_out),
    ).loops["red"]
    assert read.knot == pytest.approx(place, abs=3.0)
    scanned = [p for p in asked if math.dist(p, far_side) < spacing]
    assert scanned and len(set(scanned)) == len(scanned)


#: How many places along its loop the knot checker is asked about for one place.
ALONG = 2 * round(CHECKED_ALONG / KNOT_SCAN_STEP) + 2  # the place itself, and its loop's


def test_the_knot_checker_is_asked_along_the_loop_by_a_mark_and_the_knot_goes_to_its_peak() -> None:
    # 1200159: the yellow knot's marks lay a little off the loop and off the knot's
    # middle; the checker gave them 0.14 and 0.26 where they lay, 0.88 a tenth of a
    # pawn width along the loop. A checker sure only in a narrow spot on the loop, a
    # tenth of a width from the point nearest a faint mark beside it:
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    marks = Detections([mark("", (200.0, 97.0), 0.4), mark("", (200.0, 305.0), 0.22)], WIDTH)
    first = combine_knots(loops, marks, 5.0)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)
    step = KNOT_SCAN_STEP * WIDTH  # along the loop (radius 100: nearly straight there)
    peak = (200.0 - 100 * math.sin(step / 100), 200.0 + 100 * math.cos(step / 100))

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        return [0.95 if math.dist(p, peak) < 1.0 else 0.05 for p in places]

    checked = combine_knots(loops, marks, 5.0, knot_odds=knot_odds)
    assert checked.loops["red"].knot == pytest.approx(peak, abs=0.5)
    assert checked.loops["red"].knot_confidence == pytest.approx(0.95)
    assert checked.loops["red"].knot_mark == pytest.approx(0.22)
    # Asked only where the mark lies, the checker would not have moved it.
    asked_at_the_mark = knot_odds([(200.0, 305.0), (200.0, 300.0)])
    assert max(asked_at_the_mark) < CHECKED_KNOT
    # The knot is doubted where it stands, but gives way only to a place the checker
    # is surer of than of all its neighbourhood asked alike (dev_0013: a right knot given
    # 0.04 where it stood, 0.84 a little along; a lump 39 px off 0.82 along towards it).
    at_the_knot = (200.0 - 100 * math.sin(step / 100), 200.0 - 100 * math.cos(step / 100))
    asked: list[int] = []

    def sure_beside_the_knot(at_knot: float, at_peak: float):  # type: ignore[no-untyped-def]
        def knot_odds(places: list[tuple[float, float]]) -> list[float]:
            asked.append(len(places))
            return [at_knot if math.dist(p, at_the_knot) < 1.0
                    else at_peak if math.dist(p, peak) < 1.0 else 0.05 for p in places]

        return knot_odds

    kept = combine_knots(loops, marks, 5.0, knot_odds=sure_beside_the_knot(0.9, 0.9))
    assert kept.loops["red"].knot == first.loops["red"].knot
    # The knot; the knot, the faint mark, the tracer's knot; then, none of them doing,
    # the whole loop.
    assert asked[:2] == [1, 3 * ALONG] and len(asked) == 3
    moved = combine_knots(loops, marks, 5.0, knot_odds=sure_beside_the_knot(0.9, 0.95))
    assert moved.loops["red"].knot == pytest.approx(peak, abs=0.5)
    # No finite answer anywhere: nothing is doubted, nothing moves.
    nan = combine_knots(loops, marks, 5.0, knot_odds=lambda places: [math.nan] * len(places))
    assert nan.loops["red"].knot == first.loops["red"].knot
    # A mark the checker is sure of where it lies, off the loop, is as sure a place as
    # any along the loop (1210309: 0.95 at the mark, 0.57 on the loop 5 px off).
    at_the_mark = combine_knots(
        loops, marks, 5.0,
        knot_odds=lambda places: [0.95 if p == (200.0, 305.0) else 0.05 for p in places],
    )
    assert at_the_mark.loops["red"].knot == pytest.approx((200.0, 300.0), abs=0.5)


def test_a_place_near_the_knot_is_asked_where_it_stands_not_along_the_loop() -> None:
    # 1180237: a right knot given 0.11, a mark 0.33 pawn widths along given 0.70 where it
    # lay and 0.92 a little farther along, where the checker's yes was the knot's own.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    knot = (200.0, 100.0)
    turn = 0.35 * WIDTH / 100  # radians round the circle: 0.35 pawn widths along it
    assert CHECKED_APART > 0.35
    near = (200.0 + 100 * math.sin(turn), 200.0 - 100 * math.cos(turn))
    beyond = (200.0 + 100 * math.sin(turn * 1.5), 200.0 - 100 * math.cos(turn * 1.5))
    marks = Detections([mark("", knot, 0.4), mark("", near, 0.22)], WIDTH)
    assert combine_knots(loops, marks, 5.0).loops["red"].knot == pytest.approx(knot, abs=1.0)
    asked: list[int] = []

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        asked.append(len(places))
        return [0.11 if math.dist(p, knot) < 1.0 else 0.70 if math.dist(p, near) < 1.0
                else 0.92 if math.dist(p, beyond) < 2.5 else 0.05 for p in places]

    kept = combine_knots(loops, marks, 5.0, knot_odds=knot_odds)
    assert kept.loops["red"].knot == pytest.approx(knot, abs=1.0)
    # The near mark asked where it stands; the tracer's knot, far, and the knot along
    # the loop.
    assert asked[:2] == [1, 1 + 2 * ALONG]


def test_a_doubted_knot_no_contender_displaces_moves_to_the_likeliest_place_of_its_loop() -> None:
    # 1230141: a blue knot chosen on a faint mark the checker gave 0.00; no mark near
    # the true knot, which the checker gives 0.92 along the loop.
    loop = replace(circle_loop("red", (200, 200), 100), knot=(200.0, 100.0))
    loops = Loops({"red": loop}, [])
    marks = Detections([mark("", (200.0, 97.0), 0.3)], WIDTH)
    first = combine_knots(loops, marks, 5.0)
    assert first.loops["red"].knot == pytest.approx((200.0, 100.0), abs=1.0)

    def sure_at(place: tuple[float, float], odds: float):  # type: ignore[no-untyped-def]
        return lambda places: [odds if math.dist(p, place) < 3.0 else 0.02 for p in places]

    moved = combine_knots(loops, marks, 5.0, knot_odds=sure_at((100.0, 200.0), 0.95))
    assert moved.loops["red"].knot == pytest.approx((100.0, 200.0), abs=3.0)
    assert moved.loops["red"].knot_confidence == pytest.approx(0.95)
    # Not where the checker is unsure, nor beside the knot itself.
    unsure = combine_knots(loops, marks, 5.0, knot_odds=sure_at((100.0, 200.0), 0.7))
    assert unsure.loops["red"].knot == first.loops["red"].knot
    beside = (200.0 + 100 * math.sin(0.15), 200.0 - 100 * math.cos(0.15))  # 15 px along
    assert math.dist(beside, (200.0, 100.0)) < CHECKED_APART * WIDTH
    near = combine_knots(loops, marks, 5.0, knot_odds=sure_at(beside, 0.95))
    assert near.loops["red"].knot == first.loops["red"].knot
    # Nothing marks the place found so: the eight views must mark it at least as much as
    # the knot, no slack (1180241: a right knot, 0.25 in the views, against a place the
    # checker gave 0.94 and the views 0.11).
    def views(at_knot: float, at_place: float) -> Callable[[Detection], Detection]:
        def look(candidate: Detection) -> Detection:
            score = at_place if math.dist(candidate.xy, (100.0, 200.0)) < 5 else at_knot
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return look

    checker = sure_at((100.0, 200.0), 0.95)
    less = combine_knots(loops, marks, 5.0, look_again=views(0.25, 0.2), knot_odds=checker)
    assert less.loops["red"].knot == first.loops["red"].knot
    alike = combine_knots(loops, marks, 5.0, look_again=views(0.25, 0.25), knot_odds=checker)
    assert alike.loops["red"].knot == pytest.approx((100.0, 200.0), abs=3.0)


def test_the_views_give_slack_only_to_a_place_the_checker_asked_eight_ways_is_sure_of() -> None:
    # 1410137: a right blue knot on the blue mat (0.43 in the views, 0.04 eight ways) gave
    # way to a blue demon's base on its cord that the views marked 0.24 and the checker
    # asked eight ways gave 0.71: within the views' slack, likelier than the knot.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    place, at_the_knot = (200.0, 300.0), (200.0, 100.0)
    # The first choice at (200, 100), marked under SURELY_MARKED_KNOT: the views' slack holds.
    marks = Detections([mark("", (200.0, 97.0), 0.38), mark("", (200.0, 303.0), 0.22)], WIDTH)
    assert combine_knots(loops, marks, 5.0).loops["red"].knot == pytest.approx(at_the_knot, abs=1.0)

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        return [0.95 if math.dist(p, place) < 5 else 0.05 for p in places]

    def read_with(turned_at_place: float, seen_at_the_place: float) -> tuple[float, float] | None:
        def turned_knot_odds(places: list[tuple[float, float]]) -> list[float]:
            return [turned_at_place if math.dist(p, place) < 5 else 0.04 for p in places]

        def views(candidate: Detection) -> Detection:
            near_place = math.dist(candidate.xy, (200.0, 303.0)) < 5
            score = seen_at_the_place if near_place else 0.43
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        read = combine_knots(loops, marks, 5.0, look_again=views, knot_odds=knot_odds,
                             turned_knot_odds=turned_knot_odds)
        return read.loops["red"].knot

    a_little_less = 0.43 - CHECKED_SLACK / 2
    sure, unsure = CHECKED_TURNED + 0.05, CHECKED_TURNED - 0.05
    assert read_with(unsure, a_little_less) == pytest.approx(at_the_knot, abs=1.0)
    assert read_with(sure, a_little_less) == pytest.approx(place, abs=1.0)
    assert read_with(CHECKED_TURNED, a_little_less) == pytest.approx(place, abs=1.0)
    # Marked in the views as much as the knot, the place need not be sure eight ways
    # (1350192: 0.75 eight ways, 0.47 in the views against the knot's 0.33), only likelier.
    assert read_with(unsure, 0.45) == pytest.approx(place, abs=1.0)
    # Beyond the slack, no move however sure.
    assert read_with(0.99, 0.43 - CHECKED_SLACK - 0.05) == pytest.approx(at_the_knot, abs=1.0)


def test_a_knot_the_detector_marks_surely_moves_only_to_a_place_the_views_mark_as_much() -> None:
    # 1170231: a yellow knot marked 0.60 (0.465 in the eight views), which the checker
    # gave 0.19, was moved to a demon's base on the cord it gave 0.99 (0.354 in the views).
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)

    def sure_of_the_place(places: list[tuple[float, float]]) -> list[float]:
        return [0.95 if math.dist(p, (200.0, 300.0)) < 5 else 0.05 for p in places]

    def read_with(knot_score: float, seen_at_the_place: float) -> tuple[float, float] | None:
        # The first choice is the stronger mark, at (200, 100), which the checker doubts.
        marks = Detections([mark("", (200.0, 97.0), knot_score), mark("", (200.0, 303.0), 0.22)],
                           WIDTH)

        def views(candidate: Detection) -> Detection:
            near_place = math.dist(candidate.xy, (200.0, 303.0)) < 5
            score = seen_at_the_place if near_place else 0.5
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        read = combine_knots(loops, marks, 5.0, look_again=views, knot_odds=sure_of_the_place)
        return read.loops["red"].knot

    at_the_knot, at_the_place = (200.0, 100.0), (200.0, 300.0)
    # The views mark the place a little less than the knot (within CHECKED_SLACK).
    a_little_less = 0.5 - CHECKED_SLACK / 2
    assert read_with(SURELY_MARKED_KNOT, a_little_less) == pytest.approx(at_the_knot, abs=1.0)
    assert read_with(SURELY_MARKED_KNOT - 0.05, a_little_less) == pytest.approx(
        at_the_place, abs=1.0)
    # ... or as much: the surely marked knot moves too.
    assert read_with(SURELY_MARKED_KNOT, 0.5) == pytest.approx(at_the_place, abs=1.0)


def test_a_knot_at_the_base_of_its_own_pawn_is_not_made_sure_by_its_mark() -> None:
    # 1770176: a blue knot chosen on a blue demon's base on its cord (marked 0.51, 0.465
    # in the views; the checker 0.16) stayed although the checker gave the true knot
    # 0.999 and the views marked it 0.46: a pawn's base is a lump the views mark as
    # surely as a knot, so there the views' slack holds as for a faint mark.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    at_the_knot, at_the_place = (200.0, 100.0), (200.0, 300.0)
    marks = Detections([mark("", (200.0, 97.0), SURELY_MARKED_KNOT + 0.05),
                        mark("", (200.0, 303.0), 0.22)], WIDTH)

    def sure_of_the_place(places: list[tuple[float, float]]) -> list[float]:
        return [0.95 if math.dist(p, at_the_place) < 5 else 0.05 for p in places]

    def views(candidate: Detection) -> Detection:
        near_place = math.dist(candidate.xy, (200.0, 303.0)) < 5
        score = 0.5 - CHECKED_SLACK / 2 if near_place else 0.5
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    def read_with(pawn: SeenPawn) -> tuple[float, float] | None:
        read = combine_knots(loops, marks, 5.0, Pawns([pawn], WIDTH, []), look_again=views,
                             knot_odds=sure_of_the_place)
        return read.loops["red"].knot

    beside = (200.0, 100.0 - 0.9 * PAWN_BASE_WIDTHS * WIDTH)
    apart = (200.0, 100.0 - 1.1 * PAWN_BASE_WIDTHS * WIDTH)
    assert read_with(seen("red", beside)) == pytest.approx(at_the_place, abs=1.0)
    # A pawn of another colour there, or its own a little further off, leaves it sure.
    assert read_with(seen("blue", beside)) == pytest.approx(at_the_knot, abs=1.0)
    assert read_with(seen("red", apart)) == pytest.approx(at_the_knot, abs=1.0)


def test_a_knot_at_the_base_of_its_own_pawn_is_asked_of_the_checker_eight_ways() -> None:
    # 1700199: a blue knot chosen on a blue demon's base on its cord (marked 0.49, 0.43 in
    # the views), which one crop of the checker took for a knot (0.76) and the eight
    # turns did not (0.29); the true knot in the open, marked 0.35 (views 0.33), 1.0 both.
    # Here the knot is marked under SURELY_MARKED_KNOT, so that only the doubt is tested.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    at_the_knot, at_the_place = (200.0, 100.0), (200.0, 300.0)
    knot_score = SURELY_MARKED_KNOT - 0.05
    marks = Detections([mark("", (200.0, 97.0), knot_score), mark("", (200.0, 303.0), 0.35)],
                       WIDTH)

    def odds_by_place(at_knot: float) -> Callable[[list[tuple[float, float]]], list[float]]:
        def odds(places: list[tuple[float, float]]) -> list[float]:
            return [at_knot if math.dist(p, at_the_knot) < 5 else
                    1.0 if math.dist(p, at_the_place) < 5 else 0.0 for p in places]

        return odds

    def views(candidate: Detection) -> Detection:
        score = 0.33 if math.dist(candidate.xy, (200.0, 303.0)) < 5 else 0.43
        return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

    def read_with(pawn: SeenPawn, turned: bool = True) -> tuple[float, float] | None:
        read = combine_knots(loops, marks, 5.0, Pawns([pawn], WIDTH, []), look_again=views,
                             knot_odds=odds_by_place(0.76),
                             turned_knot_odds=odds_by_place(0.29) if turned else None)
        return read.loops["red"].knot

    beside = (200.0, 100.0 - 0.8 * PAWN_BASE_WIDTHS * WIDTH)
    assert read_with(seen("red", beside)) == pytest.approx(at_the_place, abs=1.0)
    # One crop alone does not doubt it; nor is a knot asked eight ways beside another
    # colour's pawn.
    assert read_with(seen("red", beside), turned=False) == pytest.approx(at_the_knot, abs=1.0)
    assert read_with(seen("blue", beside)) == pytest.approx(at_the_knot, abs=1.0)


def test_a_loop_without_a_knot_takes_the_place_along_it_the_knot_checker_finds_likeliest() -> None:
    # 1190087: a knot in the open beside a demon, not marked by the detector, nor a lump
    # to the tracer; the checker, asked along the loop, is likeliest there.
    knotless = replace(circle_loop("red", (250, 250), 200), knot=None)
    loops = Loops({"red": knotless, "blue": circle_loop("blue", (800, 250), 100)},
                  [no_knot_warning("red")])
    marks = Detections([mark("", (800.0, 147.0), 0.8)], WIDTH)
    asked: list[list[tuple[float, float]]] = []

    def likeliest_at(place: tuple[float, float], odds: float):  # type: ignore[no-untyped-def]
        def knot_odds(places: list[tuple[float, float]]) -> list[float]:
            asked.append(list(places))
            # Sure of blue's knot, which stands without a second question.
            return [odds if math.dist(p, place) < 3
                    else 0.95 if math.dist(p, (800.0, 150.0)) < 3 else odds / 4 for p in places]

        return knot_odds

    read = combine_knots(loops, marks, 5.0, knot_odds=likeliest_at((250.0, 450.0), 0.3))
    assert read.loops["red"].knot == pytest.approx((250.0, 450.0), abs=3.0)
    assert read.loops["red"].knot_confidence == pytest.approx(0.3)
    assert read.loops["red"].knot_mark == 0.0  # no mark there: the report calls it unsure
    assert no_knot_warning("red") not in read.warnings
    assert read.loops["blue"].knot == pytest.approx((800.0, 150.0), abs=1.0)  # as before
    # Asked about blue's knot (red has none), then along red's ring only, every
    # KNOT_SCAN_STEP pawn widths, KNOT_SCAN_BATCH places at a time.
    along = [place for places in asked[1:] for place in places]
    length = LinearRing(knotless.points).length
    assert len(along) == int(length / (KNOT_SCAN_STEP * WIDTH)) > KNOT_SCAN_BATCH
    assert [len(places) for places in asked[1:]] == [KNOT_SCAN_BATCH, len(along) - KNOT_SCAN_BATCH]
    assert all(abs(math.dist(p, (250.0, 250.0)) - 200) < 1 for p in along)
    # Without the checker, or with one that gives no finite answer, the loop stays
    # without a knot, and the warning stays.
    for knot_odds in (None, lambda places: [math.nan] * len(places)):
        unchecked = combine_knots(loops, marks, 5.0, knot_odds=knot_odds)
        assert unchecked.loops["red"].knot is None
        assert no_knot_warning("red") in unchecked.warnings


def test_a_knot_chosen_on_a_faint_mark_is_looked_at_again_with_the_next_three_marks() -> None:
    # 600151: the knot on green felt is the loop's fourth mark; the lump chosen first
    # stands where the tracer put the knot. Looked at again, the knot is marked most.
    loops = Loops({"red": circle_loop("red", (200, 200), 100)}, [])  # traced knot: (300, 200)
    lump = mark("", (301.0, 201.0), 0.3)
    others = [mark("", (200.0, 97.0), 0.26), mark("", (100.0, 202.0), 0.25)]
    knot, faintest = mark("", (200.0, 303.0), 0.24), mark("", (271.0, 271.0), 0.21)
    assert lump.score < KNOT_CONTEST
    marks = Detections([lump, *others, knot, faintest], WIDTH)
    looked: list[tuple[float, float]] = []

    def seen_better_at(place: tuple[float, float]) -> Callable[[Detection], Detection]:
        def seen_again(candidate: Detection) -> Detection:
            looked.append(candidate.xy)
            score = 0.4 if math.dist(candidate.xy, place) < 5 else 0.18
            return Detection(candidate.kind, candidate.colour, candidate.xy, score, views=8)

        return seen_again

    chosen = combine_knots(loops, marks, 5.0, look_again=seen_better_at(knot.xy))
    assert chosen.loops["red"].knot == pytest.approx((200.0, 300.0), abs=1.0)
    # The lump and the next three marks of the loop are looked at, no fainter one.
    assert set(looked) == {lump.xy, *(m.xy for m in others), knot.xy}
    # Marked most there, the faintest mark would still not be taken: it is not looked at.
    looked.clear()
    unseen = combine_knots(loops, marks, 5.0, look_again=seen_better_at(faintest.xy))
    assert unseen.loops["red"].knot == pytest.approx((300.0, 201.0), abs=1.0)
    assert faintest.xy not in looked


def test_a_sure_mark_inside_a_wide_blob_is_a_pawn_of_its_own_if_the_views_confirm_it() -> None:
    """Two ghosts touching are one blob of the rules, 1.7 pawns wide; the detector
    marks both, the second surely enough to be looked at, 0.67 of a width from the
    first (560147). Its blob's width does not keep the second out of the eight views,
    which add it where they confirm it; a fainter mark there is still kept out (the
    same pawn marked twice, on its body), and so is one with no second look."""
    blob = SeenPawn(GHOST, "white", (100.0, 100.0), 1.7 * WIDTH, 0.6)
    first = mark("white", (100.0, 100.0), 0.65)
    second = mark("white", (100.0 + 0.67 * WIDTH, 100.0), (ADD_SCORE + UNSURE_ADDED) / 2)

    def views(m: Detection) -> Detection:
        return Detection(m.kind, m.colour, m.xy, CONFIRMED_GHOST_SCORE + 0.15, views=8)

    combined = combine_pawns(Pawns([blob], WIDTH, []), Detections([first, second], WIDTH), views)
    assert sorted(p.foot for p in combined.pawns) == [first.xy, second.xy]
    def unconfirmed(m: Detection) -> Detection:
        return Detection(m.kind, m.colour, m.xy, CONFIRMED_GHOST_SCORE - 0.1, views=8)

    combined = combine_pawns(Pawns([blob], WIDTH, []), Detections([first, second], WIDTH),
                             unconfirmed)
    assert [p.foot for p in combined.pawns] == [first.xy]
    faint = replace(second, score=(CONFIRM_FROM + ADD_SCORE) / 2)
    combined = combine_pawns(Pawns([blob], WIDTH, []), Detections([first, faint], WIDTH), views)
    assert [p.foot for p in combined.pawns] == [first.xy]
    combined = combine_pawns(Pawns([blob], WIDTH, []), Detections([first, second], WIDTH))
    assert [p.foot for p in combined.pawns] == [first.xy]
    # A mark sure enough to be taken without a look elsewhere is looked at there too.
    surer = replace(second, score=UNSURE_ADDED + 0.1)
    for look, count in ((views, 2), (unconfirmed, 1)):
        combined = combine_pawns(Pawns([blob], WIDTH, []), Detections([first, surer], WIDTH), look)
        assert len(combined.pawns) == count


def test_inside_a_wide_blob_the_views_look_at_each_kind_marked_at_the_second_pawn() -> None:
    """A ghost touching a red demon is one wide blob of the rules. Where the one view
    marks the ghost's place surely enough to be looked at, as a blue demon, and as a
    ghost more faintly, the eight views look at the ghost too and add it where they
    confirm it: the fainter kind is kept out no more than the mark it stands beside."""
    blob = SeenPawn(DEMON, "red", (100.0, 100.0), 1.7 * WIDTH, 0.6)
    first = mark("red", (100.0, 100.0), 0.65)
    second_at = (100.0 + 0.67 * WIDTH, 100.0)
    as_demon = mark("blue", second_at, (ADD_SCORE + UNSURE_ADDED) / 2)
    as_ghost = mark("white", (second_at[0] + 1.0, second_at[1]), 0.2)

    def views(m: Detection) -> Detection:
        score = CONFIRMED_GHOST_SCORE + 0.15 if m.kind == GHOST else 0.1
        return Detection(m.kind, m.colour, m.xy, score, views=8)

    combined = combine_pawns(
        Pawns([blob], WIDTH, []), Detections([first, as_demon, as_ghost], WIDTH), views
    )
    assert sorted((p.kind, p.foot) for p in combined.pawns) == [
        (DEMON, first.xy), (GHOST, as_ghost.xy)]


def test_of_a_ghost_and_a_demon_of_the_tables_hue_at_one_place_the_demon_is_added() -> None:
    """A blue demon on the blue mat looks pale against it: marked 0.34 as a blue demon
    and 0.31 as a ghost, 0.31 and 0.36 in the eight views (570151). The views confirm
    the ghost only, but a demon of the table's hue marked so is that demon."""
    demon = mark("blue", (80.0, 80.0), 0.34)
    ghost = mark("white", (82.0, 81.0), 0.31)

    def views(m: Detection) -> Detection:
        return Detection(m.kind, m.colour, m.xy, 0.36 if m.kind == GHOST else 0.31, views=8)

    nothing = Pawns([], WIDTH, [])
    on_the_mat = combine_pawns(nothing, Detections([demon, ghost], WIDTH), views,
                               table_hue_colour="blue")
    assert [(p.kind, p.colour) for p in on_the_mat.pawns] == [(DEMON, "blue")]
    elsewhere = combine_pawns(nothing, Detections([demon, ghost], WIDTH), views)
    assert [(p.kind, p.colour) for p in elsewhere.pawns] == [(GHOST, "white")]
    # Marked less than such demons are, it stays the ghost the views confirm.
    faint = replace(demon, score=CONFIRM_FROM - 0.01)
    on_the_mat = combine_pawns(nothing, Detections([ghost, faint], WIDTH), views,
                               table_hue_colour="blue")
    assert [p.kind for p in on_the_mat.pawns] == [GHOST]

