"""Each stage of the reader on small crafted pictures with a known answer.

The pictures are drawn with OpenCV on a lightly textured table: strings as anti-aliased
polylines a few pixels wide, pawns as discs, knots as a lump with two tails. Each test
says what the stage must find, and would fail if the stage found something else.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest
from shapely.geometry import LinearRing

from calibration import load_profile
from engine.colours import WHITE
from engine.topology import build_board
from vision.colour import (
    DISTANCE_BAND_ROWS,
    LABEL_COLOURS,
    ColourMasks,
    _of_hue,
    classify_colours,
    draw_labels,
    majority_filter,
    table_distance,
    to_lab,
)
from vision.creatures import UP, find_pawns, foot_of_blob, lean_direction
from vision.errors import ReadError
from vision.ghost_cues import ghost_cues
from vision.separate import (
    PawnBlob,
    Separation,
    _apart_from_the_lit_table,
    _pawn_shaped,
    _with_body,
    fill_small_holes,
    opening,
    openings,
    separate,
)
from vision.trace import (
    MAX_GAP_WIDTHS,
    Loop,
    Segment,
    _End,
    close_loop,
    drop_detours,
    find_knot,
    follow_bridges,
    follow_through_crossings,
    skeleton_segments,
    trace_loops,
    without_spurs,
)

RGB = {
    "red": (200, 30, 35),
    "yellow": (235, 200, 30),
    "green": (30, 140, 60),
    "blue": (30, 60, 190),
    "white": (250, 250, 248),
}
TABLE = (190, 170, 140)
SIZE = (900, 700)  # width, height


def table(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.empty((SIZE[1], SIZE[0], 3), np.float32)
    image[:] = TABLE
    image += rng.normal(0, 3, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def ellipse(centre: tuple[float, float], axes: tuple[float, float], n: int = 200) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([centre[0] + axes[0] * np.cos(t), centre[1] + axes[1] * np.sin(t)])


def draw_string(image: np.ndarray, points: np.ndarray, colour: str, width: int = 5) -> None:
    cv2.polylines(image, [points.round().astype(np.int32)], True, RGB[colour], width, cv2.LINE_AA)


def draw_pawn(image: np.ndarray, xy: tuple[int, int], colour: str, radius: int = 18) -> None:
    cv2.circle(image, xy, radius, RGB[colour], -1, cv2.LINE_AA)


def four_loops() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Four crossing ellipses; each crossing has one string on top."""
    loops = {
        "red": ellipse((380, 330), (220, 150)),
        "yellow": ellipse((520, 330), (220, 150)),
        "green": ellipse((450, 260), (160, 200)),
        "blue": ellipse((450, 420), (260, 120)),
    }
    image = table()
    for colour, points in loops.items():
        draw_string(image, points, colour)
    return image, loops


def test_colour_labels_strings_pawns_and_ghosts() -> None:
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "red")
    draw_pawn(image, (450, 350), "white")
    draw_pawn(image, (300, 350), "blue")
    masks = classify_colours(image, load_profile())
    assert masks.labels[150, 450] == LABEL_COLOURS.index("red")  # top of the ellipse
    assert masks.labels[350, 450] == LABEL_COLOURS.index("white")
    assert masks.labels[350, 300] == LABEL_COLOURS.index("blue")
    # The table stays table almost everywhere, noise and all.
    assert (masks.labels[20:120, 20:120] == 0).mean() > 0.99


def test_the_labels_kept_after_separating_are_the_same_without_the_images() -> None:
    """What the reader keeps of the colour stage once the separate stage has read it:
    the same labels and drawing, without the photo in Lab and the table model."""
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "red")
    draw_pawn(image, (300, 350), "blue")
    masks = classify_colours(image, load_profile())
    kept = masks.labels_only()
    assert masks.lab.shape == (SIZE[1], SIZE[0], 3) and masks.table.shape == masks.lab.shape
    assert kept.lab.size == 0 and kept.table.size == 0 and kept.of_table_hue is None
    assert kept.labels is masks.labels and kept.mask("red").sum() == masks.mask("red").sum() > 0
    assert np.array_equal(draw_labels(kept), draw_labels(masks))


def test_distance_to_the_table_is_the_same_in_bands() -> None:
    # The distance is whitened band by band of rows (to spare memory on a full-size
    # photo): it must equal the Mahalanobis distance taken over the whole image.
    rng = np.random.default_rng(5)
    residual = rng.normal(0, (4.0, 2.0, 3.0), (DISTANCE_BAND_ROWS * 2 + 37, 50, 3))
    residual[..., 1] += 0.5 * residual[..., 0]  # the channels covary, as grain does
    residual[100:110, 20:30] = (0.0, 60.0, 40.0)  # a red speck
    distance = table_distance(residual.astype(np.float32))
    assert distance.shape == residual.shape[:2]
    sample = residual[::7, ::7].reshape(-1, 3)
    table_like = sample[
        np.linalg.norm(sample, axis=1) <= np.percentile(np.linalg.norm(sample, axis=1), 85)
    ]
    inverse = np.linalg.inv((np.cov(table_like, rowvar=False) + np.eye(3)) * 1.6)
    expected = np.sqrt(np.einsum("...i,ij,...j", residual, inverse, residual))
    np.testing.assert_allclose(distance, expected, rtol=1e-4, atol=1e-4)
    assert distance[105, 25] > 10 * np.median(distance)


def test_the_majority_filter_gives_each_coloured_pixel_its_windows_commonest_label() -> None:
    # The plain definition, pixel by pixel: the label most common in the 5 × 5 window
    # (the image reflected at its edge, as OpenCV does), the lowest of equal counts;
    # table pixels keep theirs.
    rng = np.random.default_rng(3)
    for trial in range(40):
        shape = tuple(int(n) for n in rng.integers(6, 40, 2))
        share = rng.uniform(0.05, 0.9)
        chances = [1 - share, *[share / (len(LABEL_COLOURS) - 1)] * (len(LABEL_COLOURS) - 1)]
        labels = rng.choice(len(LABEL_COLOURS), size=shape, p=chances).astype(np.uint8)
        padded = np.pad(labels, 2, mode="reflect")
        expected = labels.copy()
        for y, x in zip(*np.nonzero(labels), strict=True):
            counts = np.bincount(padded[y : y + 5, x : x + 5].ravel(), minlength=len(LABEL_COLOURS))
            expected[y, x] = np.argmax(counts)
        assert np.array_equal(majority_filter(labels), expected), trial
    assert majority_filter(np.zeros((8, 8), np.uint8)).sum() == 0


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
def test_pixels_of_a_hue_are_those_within_its_angle(colour: str) -> None:
    profile = load_profile()
    hue = np.array(profile.hues[colour])
    angle = math.radians(profile.max_hue_angle_deg)
    turn = np.arctan2(hue[1], hue[0]) + np.array([0.0, 0.9 * angle, -0.9 * angle, 1.1 * angle])
    lab = np.zeros((2, 4, 3), np.float32)
    lab[0, :, 1:] = np.column_stack([np.cos(turn), np.sin(turn)]) * 40  # strong enough
    lab[1, :, 1:] = lab[0, :, 1:] * 0.4 * profile.min_chroma / 40  # too dull
    assert _of_hue(lab, profile.hues[colour], profile).tolist() == [
        [True, True, True, False],
        [False, False, False, False],
    ]


def test_a_shadow_is_not_a_string() -> None:
    image = table()
    shadow = ellipse((450, 350), (300, 200))
    cv2.polylines(image, [shadow.round().astype(np.int32)], True, (95, 85, 70), 7)
    masks = classify_colours(image, load_profile())
    assert (masks.labels > 0).sum() < 50


def test_lit_table_between_crowded_shadows_is_table() -> None:
    # Light wood under a lamp; pawn shadows darken more than half of one area about a
    # table-model window wide. The lit wood left between them is the table as the
    # light falls on it, not yellow.
    wood = (200, 150, 90)
    shadows = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    rng = np.random.default_rng(3)
    for _ in range(25):
        x, y = int(rng.uniform(390, 510)), int(rng.uniform(290, 410))
        cv2.ellipse(shadows, (x, y), (18, 9), 30, 0, 360, 1, -1)
    assert shadows[290:410, 390:510].mean() > 0.55
    noise = rng.normal(0, 3, (SIZE[1], SIZE[0], 3))
    image = np.where(shadows[..., None] > 0, (90, 68, 42), wood) + noise
    masks = classify_colours(np.clip(image, 0, 255).astype(np.uint8), load_profile())
    lit = shadows == 0
    lit[:290] = lit[410:] = False  # only the lit wood inside the crowd
    lit[:, :390] = lit[:, 510:] = False
    assert (masks.labels[lit] == 0).mean() > 0.99


WHITE_TABLE = (238, 222, 228)  # pinkish white
CREAM = (240.0, 215.0, 160.0)  # cream cloth under a warm lamp


def white_table(seed: int, rgb: tuple[float, float, float] = WHITE_TABLE) -> np.ndarray:
    """A plain table, pinkish white unless ``rgb`` is given, with sensor noise (float
    RGB, to be shaded and then drawn on)."""
    rng = np.random.default_rng(seed)
    image = np.empty((SIZE[1], SIZE[0], 3), np.float32)
    image[:] = rgb
    image += rng.normal(0, 4, image.shape)
    return image


def with_a_board(image: np.ndarray) -> np.ndarray:
    """The shaded float ``image`` as a photo, with a red loop and a blue and a green
    pawn on it (the coloured pawns that ghosts are measured against)."""
    photo = np.clip(image, 0, 255).astype(np.uint8)
    draw_string(photo, ellipse((450, 350), (330, 230)), "red")
    draw_pawn(photo, (250, 420), "blue")
    draw_pawn(photo, (650, 420), "green")
    return photo


def shade(image: np.ndarray, centre: tuple[int, int], factor: float, axes: tuple[int, int]) -> None:
    """Darken an ellipse of the table as a shadow does (or light it, factor > 1)."""
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.ellipse(mask, centre, axes, 30, 0, 360, 1, -1, cv2.LINE_AA)
    image[mask > 0] *= factor


def white_table_with_a_ghost() -> np.ndarray:
    """A pinkish white table: a ghost hardly lighter than it (found by its outline and
    its own colour), the crisp shadow of something off the photo, a lit patch."""
    image = white_table(0)
    shade(image, (470, 330), 0.6, (36, 22))  # the ghost's own shadow
    cv2.circle(image, (450, 320), 19, (175, 172, 165), -1, cv2.LINE_AA)  # its rim
    cv2.circle(image, (450, 320), 17, (232, 230, 220), -1, cv2.LINE_AA)  # ivory body
    cv2.circle(image, (446, 316), 10, (200, 198, 190), 2, cv2.LINE_AA)  # head's ring
    shade(image, (300, 250), 0.6, (28, 16))
    shade(image, (600, 250), 1.04, (20, 20))
    return with_a_board(image)


def test_a_ghost_on_a_white_table_is_found_by_its_outline() -> None:
    masks = classify_colours(white_table_with_a_ghost(), load_profile())
    # Hardly lighter than the table, the ghost has no white pixels of its own ...
    assert (masks.labels[300:340, 430:470] == LABEL_COLOURS.index("white")).sum() == 0
    ghosts = [p for p in separate(masks).pawns if p.colour == "white"]
    # ... but its outline and its colour find it; the bare shadow and the lit patch of
    # table (the table's own tint) are no ghosts.
    assert len(ghosts) == 1
    x, y, w, h = ghosts[0].box
    assert x <= 450 <= x + w and y <= 320 <= y + h
    # Its blob takes in its shadow and is three pawns large, yet it is one ghost.
    seen = [p for p in find_pawns(separate(masks)).pawns if p.kind == "ghost"]
    assert len(seen) == 1


def test_a_grey_ghost_darker_than_the_table_is_found_standing_apart() -> None:
    # Under soft light a grey ghost on a pinkish white table is darker than the table
    # all over and has the table's own tint: only its outline shows, as does that of
    # a pawn's shadow. Both are unevenly dark, but the ghost stands apart while the
    # shadow lies against the pawn that casts it.
    image = white_table(1)
    shade(image, (470, 330), 0.55, (36, 22))  # the ghost's own shadow
    table = np.array(WHITE_TABLE)
    cv2.circle(image, (450, 320), 19, tuple(0.55 * table), -1, cv2.LINE_AA)  # its rim
    cv2.circle(image, (450, 320), 17, tuple(0.8 * table), -1, cv2.LINE_AA)  # grey body
    cv2.circle(image, (446, 316), 10, tuple(0.65 * table), 2, cv2.LINE_AA)  # head's ring
    shade(image, (318, 430), 0.75, (36, 22))  # the blue pawn's shadow, darker at its
    shade(image, (318, 430), 0.7, (24, 14))  # core, a little way from its blue side
    photo = with_a_board(image)
    masks = classify_colours(photo, load_profile())
    ghosts = [p for p in separate(masks).pawns if p.colour == "white"]
    assert len(ghosts) == 1
    x, y, w, h = ghosts[0].box
    assert x <= 450 <= x + w and y <= 320 <= y + h


def cream_cloth_with_a_ghost() -> np.ndarray:
    """Cream cloth under a warm lamp, a warm grey ghost darker than it all over."""
    image = white_table(2, rgb=CREAM)
    shade(image, (470, 330), 0.85, (36, 22))  # the ghost's own shadow, soft: darker
    shade(image, (466, 328), 0.8, (26, 16))  # at its core
    # A warm grey ghost, shaded from its lit top left to its dark lower right.
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    body = np.hypot(xs - 450, ys - 320) <= 18
    lit = np.clip(0.5 - ((xs - 450) + (ys - 320)) / 50, 0, 1)[body][:, None]
    image[body] = lit * (200, 189, 162) + (1 - lit) * (100, 94, 80)
    return with_a_board(image)


def test_a_grey_ghost_on_cream_cloth_under_a_lamp_is_found() -> None:
    # Warm light gives a cream cloth as much chroma as wood (30), but the cloth is
    # even: a grey ghost darker than it all over is found by its outline and its grey.
    masks = classify_colours(cream_cloth_with_a_ghost(), load_profile())
    ghosts = [p for p in separate(masks).pawns if p.colour == "white"]
    assert len(ghosts) == 1
    x, y, w, h = ghosts[0].box
    assert x <= 450 <= x + w and y <= 320 <= y + h


def test_ghost_cues_are_looked_for_on_pale_cloth_not_on_wood() -> None:
    # Wood as tinted as the cream cloth is grained: its ghosts are lighter and greyer
    # than it, found by colour, and its grain would crowd the edges.
    cloth = classify_colours(cream_cloth_with_a_ghost(), load_profile())
    assert ghost_cues(cloth, 4.0) is not None
    wood = np.empty((SIZE[1], SIZE[0], 3), np.float32)
    wood[:] = CREAM
    grain = 1 + 0.25 * np.sin(np.arange(SIZE[1]) / 3.0) * np.sin(np.arange(SIZE[1]) / 41.0)
    wood *= grain[:, None, None]
    photo = np.clip(wood, 0, 255).astype(np.uint8)
    draw_string(photo, ellipse((450, 350), (330, 230)), "red")
    assert ghost_cues(classify_colours(photo, load_profile()), 4.0) is None


def test_the_lit_rim_of_the_tables_edge_is_no_row_of_ghosts() -> None:
    # A board near the table's edge: dark floor beyond, and the edge's rim a strip lit
    # whiter than the table, wider and narrower by turns (it crumbles into pieces the
    # size of a pawn once the thin stretches are opened away).
    photo = white_table_with_a_ghost()
    photo[:, :60] = (40, 36, 34)
    for top in range(0, SIZE[1], 50):
        width = 30 if (top // 50) % 2 == 0 else 10
        photo[top : top + 50, 60 : 60 + width] = (252, 252, 250)
    masks = classify_colours(photo, load_profile())
    ghosts = [p for p in separate(masks).pawns if p.colour == "white"]
    assert len(ghosts) == 1
    assert ghosts[0].box[0] > 400


def test_a_cord_of_the_mats_own_hue_is_found_by_shape() -> None:
    # A navy cord on a blue mat differs from the mat as the pawns' shadows do: darker
    # in the same hue. It is found as a thin line; the shadows are neither string nor
    # pawns; the lit blue pawn is a pawn, and so is a deep blue one darker than the
    # mat but for the glint on its top. Without the glint it is taken for a shadow
    # (under a warm lamp, shadows on a blue mat are a deeper blue than the mat).
    rng = np.random.default_rng(5)
    mat = np.full((SIZE[1], SIZE[0], 3), (45, 75, 150), np.float32)
    image = np.clip(mat + rng.normal(0, 3, mat.shape), 0, 255).astype(np.uint8)
    cord = ellipse((450, 350), (300, 200))
    cv2.polylines(image, [cord.round().astype(np.int32)], True, (20, 35, 95), 5, cv2.LINE_AA)
    draw_string(image, ellipse((450, 350), (200, 280)), "red")
    draw_string(image, ellipse((450, 350), (350, 120)), "yellow")
    shadows = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    for x, y in ((330, 250), (560, 420), (450, 200)):
        cv2.ellipse(shadows, (x, y), (30, 14), 20, 0, 360, 1, -1)
    image[shadows > 0] = (22, 38, 100)
    cv2.circle(image, (600, 250), 18, (70, 120, 235), -1, cv2.LINE_AA)  # lit from above
    cv2.circle(image, (700, 560), 18, (15, 30, 140), -1, cv2.LINE_AA)  # lit from the side
    cv2.circle(image, (695, 553), 5, (200, 210, 240), -1, cv2.LINE_AA)
    cv2.circle(image, (200, 600), 18, (15, 30, 140), -1, cv2.LINE_AA)
    masks = classify_colours(image, load_profile())
    assert masks.table_hue_colour == "blue"
    separation = separate(masks)
    blue = separation.strings["blue"]
    seen = [blue[int(y) - 2 : int(y) + 3, int(x) - 2 : int(x) + 3].any() for x, y in cord]
    assert np.mean(seen) > 0.7  # all but where the red and yellow cords cross it
    assert blue[shadows > 0].mean() < 0.02
    blue_pawns = [p for p in separation.pawns if p.colour == "blue"]
    centres = sorted(p.box[0] + p.box[2] / 2 for p in blue_pawns)
    assert len(centres) == 2 and abs(centres[0] - 600) < 5 and abs(centres[1] - 700) < 5
    loop = close_loop("blue", skeleton_segments(blue, 3 * separation.string_width)[0], 5.0)
    radii = np.hypot((loop.points[:, 0] - 450) / 300, (loop.points[:, 1] - 350) / 200)
    assert np.abs(radii - 1).max() < 0.03


@pytest.mark.parametrize("by_shape", [frozenset({"blue"}), frozenset()])
def test_a_cord_found_by_shape_is_traced_apart_from_the_other_loops(
    by_shape: frozenset[str],
) -> None:
    # A cord found as thin lines of its hue (on a mat of its colour) takes in the
    # shadow another cord casts beside it, a line of the same hue. Where its own
    # cord is seen only in dashes, the tracer would follow the unbroken shadow; traced
    # apart from the other loops, it bridges its own dashes instead.
    _, loops = four_loops()
    strings = {}
    for colour, points in loops.items():
        mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
        cv2.polylines(mask, [points.round().astype(np.int32)], True, 1, 5)
        strings[colour] = mask.astype(bool)
    dashes = np.zeros((SIZE[1], SIZE[0]), bool)
    for left in range(0, SIZE[0], 50):
        dashes[:, left : left + 28] = True
    shadow = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(shadow, [(loops["green"] + 13).round().astype(np.int32)], True, 1, 4)
    strings["blue"] = (strings["blue"] & dashes) | shadow.astype(bool)
    separation = Separation(
        strings=strings,
        pawns=[],
        string_width=5.0,
        pawn_mask=np.zeros((SIZE[1], SIZE[0]), bool),
        measured_width=5.0,
        by_shape=by_shape,
    )
    blue = trace_loops(separation).loops["blue"].points
    radii = np.hypot((blue[:, 0] - 450) / 260, (blue[:, 1] - 420) / 120)
    if by_shape:
        assert np.abs(radii - 1).max() < 0.05
    else:  # what the corridor prevents: the loop strays along the shadow
        assert np.abs(radii - 1).max() > 0.5


def test_a_dull_navy_cord_on_beige_is_found_by_shape() -> None:
    # Dark navy on a beige table keeps too little chroma to be labelled blue, but it
    # is a thin dark line, and its hue turns away from the table's (a shadow's keeps
    # it): with no blue string labelled at all, it is looked for by shape.
    _, loops = four_loops()
    navy = table()
    for colour, points in loops.items():
        if colour == "blue":
            cv2.polylines(navy, [points.round().astype(np.int32)], True, (40, 45, 70), 5)
        else:
            draw_string(navy, points, colour)
    masks = classify_colours(navy, load_profile())
    assert not masks.mask("blue").any()
    separation = separate(masks)
    blue = separation.strings["blue"]
    seen = [blue[int(y) - 2 : int(y) + 3, int(x) - 2 : int(x) + 3].any() for x, y in loops["blue"]]
    assert np.mean(seen) > 0.8  # all but where the other cords cross it
    ys, xs = np.nonzero(blue)
    radii = np.hypot((xs - 450) / 260, (ys - 420) / 120)
    assert np.abs(radii - 1).max() < 0.1  # nothing but the cord
    assert sorted(trace_loops(separation).loops) == ["blue", "green", "red", "yellow"]


def test_the_tables_edge_is_no_row_of_pawns() -> None:
    # A brown edge along the bottom of the photo reads red here and yellow there: each
    # colour alone is a row of pawn-sized pieces, together they are one long band.
    image, _ = four_loops()
    for left in range(0, SIZE[0], 40):
        colour = "red" if (left // 40) % 2 == 0 else "yellow"
        image[640:680, left : left + 40] = RGB[colour]
    draw_pawn(image, (450, 600), "red")
    pawns = separate(classify_colours(image, load_profile())).pawns
    assert [(p.colour, p.box[1] < 640) for p in pawns] == [("red", True)]


def test_a_lit_patch_between_shadows_is_no_ghost_but_a_ghost_is() -> None:
    # Grey table in window light: stripes of long shadow pull the table model below
    # the lit table between them, so two patches read white. Only the one with a lit
    # top well above the lit table round it (a ghost) is one.
    size = (300, 400)
    lab = np.zeros((*size, 3), np.float32)
    lab[..., 0] = 200.0  # the lit table
    lab[..., 1:] = 128.0
    for left in range(0, size[1], 60):
        lab[:, left : left + 30, 0] = 150.0  # shadows
    labels = np.zeros(size, np.uint8)
    model = lab.copy()
    model[..., 0] = 170.0  # a wide median over light and shadow
    masks = ColourMasks(labels=labels, lab=lab, table=model)
    white = LABEL_COLOURS.index(WHITE)
    patch = np.zeros(size, bool)
    patch[100:130, 30:60] = True  # lit table between two shadows
    ghost = np.zeros(size, bool)
    cv2.circle(ghost.view(np.uint8), (270, 200), 15, 1, -1)
    lab[ghost, 0] = 215.0
    lab[195:205, 265:275, 0] = 245.0  # its lit top
    labels[patch | ghost] = white
    blobs = {name: blob_of(mask, WHITE) for name, mask in (("patch", patch), ("ghost", ghost))}
    assert not _apart_from_the_lit_table(blobs["patch"], masks, pawn_width=30)
    assert _apart_from_the_lit_table(blobs["ghost"], masks, pawn_width=30)
    # On wood a ghost in the shade is no lighter than the table, but greyer.
    lab[ghost, 0] = 180.0
    lab[..., 2] = 150.0
    lab[ghost, 2] = 132.0
    assert _apart_from_the_lit_table(blobs["ghost"], masks, pawn_width=30)


def test_a_ghosts_foot_is_found_on_the_ghost_not_on_its_shadow() -> None:
    # Found by its outline, a ghost's blob takes in its long shadow; its foot is
    # found on its lightest pawn's area of pixels, the ghost itself.
    lightness = np.full((200, 200), 150.0, np.float32)  # the shadow (and noise)
    lightness += np.random.default_rng(1).normal(0, 6, lightness.shape).astype(np.float32)
    blob = np.zeros((200, 200), np.uint8)
    cv2.line(blob, (60, 150), (160, 40), 1, 30)  # the shadow, up and to the right
    cv2.circle(blob, (60, 150), 20, 1, -1)
    ghost = np.zeros_like(blob)
    cv2.circle(ghost, (60, 150), 20, 1, -1)
    lightness[ghost > 0] = 200.0
    found = _with_body(blob_of(blob, WHITE), lightness, pawn_area=math.pi * 20**2)
    assert found.body is not None
    foot = foot_of_blob(found.body_points())
    assert math.dist(foot, (60, 150)) < 12
    assert math.dist(foot_of_blob(found.points()), (60, 150)) > 20  # the whole blob


def test_a_card_whose_middle_passes_for_table_is_no_row_of_pawns() -> None:
    # A card's patterned back, with a middle the table model takes in, is a thick
    # frame of one colour: its lower edge alone is as wide as a row of pawns. Pawns
    # inside a loop of their own colour (a thin ring round an empty middle) stay.
    image, _ = four_loops()
    frame = np.zeros(image.shape[:2], np.uint8)
    cv2.rectangle(frame, (730, 40), (860, 220), 1, -1)
    cv2.ellipse(frame, (795, 130), (40, 60), 0, 0, 360, 0, -1)
    image[frame > 0] = RGB["red"]
    cv2.rectangle(image, (726, 36), (864, 224), RGB["white"], 4)
    draw_pawn(image, (380, 330), "red")
    draw_pawn(image, (450, 260), "green")
    pawns = separate(classify_colours(image, load_profile())).pawns
    assert sorted((p.colour, p.box[0] < 700) for p in pawns) == [("green", True), ("red", True)]


def test_a_knots_lump_too_thick_for_a_string_stays_string() -> None:
    # The lump is wider than a string but far smaller than a pawn: cut out, it would
    # leave a gap with the tails as loose stubs and no knot to find.
    image, truth = four_loops()
    knot = truth["red"][20]
    centre = (int(knot[0]), int(knot[1]))
    cv2.circle(image, centre, 14, RGB["red"], -1, cv2.LINE_AA)  # 3.7 string widths
    for angle in (1.3, 1.9):
        end = (int(knot[0] + 26 * math.cos(angle)), int(knot[1] + 26 * math.sin(angle)))
        cv2.line(image, centre, end, RGB["red"], 4, cv2.LINE_AA)
    # A blob of that size standing alone (a small pawn far off) is no string: traced,
    # it would make a loop of its own.
    cv2.circle(image, (60, 640), 14, RGB["red"], -1, cv2.LINE_AA)
    separation = separate(classify_colours(image, load_profile()))
    assert separation.strings["red"][int(knot[1]), int(knot[0])]
    assert not separation.strings["red"][640, 60]
    assert not [p for p in separation.pawns if p.colour == "red"]
    found = trace_loops(separation).loops["red"].knot
    assert found is not None and math.dist(found, knot) < 10


def test_separate_keeps_pawns_out_of_the_string() -> None:
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "yellow")
    draw_pawn(image, (450, 170), "yellow")  # touching the string at the top
    separation = separate(classify_colours(image, load_profile()))
    assert 4 <= separation.string_width <= 9  # drawn 5 px wide, plus anti-aliasing
    yellow_pawns = [p for p in separation.pawns if p.colour == "yellow"]
    assert len(yellow_pawns) == 1
    assert not separation.strings["yellow"][170, 450]  # the pawn's centre is no string
    assert separation.strings["yellow"][550, 450]  # the bottom of the ellipse is


def test_openings_are_those_of_the_whole_masks_distances() -> None:
    # The distances are measured only round the pixels an erosion finds far enough
    # inside: the openings must be those of the plain definition, every mask pixel
    # within a disc's radius of a pixel at least that far from the background, with the
    # distances of the whole mask (the image's edge no background).
    rng = np.random.default_rng(12)
    for trial in range(150):
        height, width = (int(n) for n in rng.integers(10, 90, 2))
        mask = np.zeros((height, width), np.uint8)
        for _ in range(int(rng.integers(1, 7))):
            centre = (int(rng.integers(-5, width + 5)), int(rng.integers(-5, height + 5)))
            cv2.circle(mask, centre, int(rng.integers(1, 20)), 1, -1)
        ends = rng.integers(0, min(height, width), 4)
        cv2.line(mask, (int(ends[0]), int(ends[1])), (int(ends[2]), int(ends[3])), 1, 3)
        diameters = sorted(float(d) for d in rng.uniform(2, 30, int(rng.integers(1, 3))))
        distance = cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        for found, diameter in zip(openings(mask, diameters), diameters, strict=True):
            centres = (distance >= diameter / 2).astype(np.uint8)
            reach = cv2.distanceTransform(1 - centres, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
            expected = (reach < diameter / 2) & (mask > 0) if centres.any() else mask < 0
            assert np.array_equal(found, expected), (trial, diameter)


def test_small_holes_are_filled_and_large_or_open_ones_kept() -> None:
    mask = np.zeros((60, 90), np.uint8)
    cv2.circle(mask, (20, 20), 8, 1, 3)  # a ring: its small hole is filled
    cv2.rectangle(mask, (40, 5), (85, 50), 1, 2)  # a field: its hole is large
    mask[30:60, 0:3] = 1
    mask[30:60, 8:11] = 1
    mask[30, 0:11] = 1  # a U open to the photo's edge: no hole
    filled = fill_small_holes(mask, 100)
    assert filled[20, 20] == 1 and filled[25, 60] == 0 and filled[50, 5] == 0
    assert np.array_equal(filled & ~mask, (filled != mask).astype(np.uint8))
    assert fill_small_holes(np.zeros((10, 10), np.uint8), 5).sum() == 0


def test_small_holes_are_those_of_labelling_the_whole_background() -> None:
    # The holes are looked for only where a contour runs round one: the result must be
    # the plain definition's, the background's 4-connected parts off the edge, counted.
    from skimage.measure import label

    rng = np.random.default_rng(8)
    for trial in range(200):
        shape = tuple(int(n) for n in rng.integers(3, 60, 2))
        mask = (rng.random(shape) < rng.uniform(0.3, 0.8)).astype(np.uint8)
        max_area = float(rng.integers(1, 40))
        parts = label(mask == 0, connectivity=1)
        on_edge = set(np.concatenate([parts[0], parts[-1], parts[:, 0], parts[:, -1]]))
        areas = np.bincount(parts.ravel())
        small = [p for p in range(1, len(areas)) if areas[p] < max_area and p not in on_edge]
        expected = mask | np.isin(parts, small).astype(np.uint8)
        assert np.array_equal(fill_small_holes(mask, max_area), expected), trial


def test_trace_bridges_a_known_gap() -> None:
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    points = ellipse((450, 350), (300, 200))
    cv2.polylines(mask, [points.round().astype(np.int32)], True, 1, 5)
    mask[330:370, 730:770] = 0  # a gap of ~40 px at the right end
    segments, _ = skeleton_segments(mask.astype(bool), min_length=7)
    loop = close_loop("red", segments, width=5.0)
    assert len(loop.bridges) == 1
    (ax, ay), (bx, by) = loop.bridges[0]
    assert 720 < ax < 780 and 720 < bx < 780
    assert min(ay, by) > 300 and max(ay, by) < 400
    # The closed loop follows the ellipse everywhere, the gap included.
    radii = np.hypot((loop.points[:, 0] - 450) / 300, (loop.points[:, 1] - 350) / 200)
    assert np.abs(radii - 1).max() < 0.03


def test_trace_bends_a_long_gap_as_the_string_bends() -> None:
    # A row of pawns hides a long, bending stretch of the string (50 degrees of the
    # ellipse, ~46 string widths): the bridge follows the bend instead of cutting it.
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    points = ellipse((450, 350), (300, 200), n=720)
    cv2.polylines(mask, [points.round().astype(np.int32)], True, 1, 5)
    angles = np.radians(np.arange(0, 360, 0.5))
    for x, y in points[(angles > np.radians(290)) & (angles < np.radians(340))].round():
        cv2.circle(mask, (int(x), int(y)), 6, 0, -1)
    segments, _ = skeleton_segments(mask.astype(bool), min_length=7)
    loop = close_loop("red", segments, width=5.0)
    assert len(loop.bridges) == 1
    radii = np.hypot((loop.points[:, 0] - 450) / 300, (loop.points[:, 1] - 350) / 200)
    assert np.abs(radii - 1).max() < 0.02  # a straight bridge is 11 % inside


def test_a_long_bridge_follows_the_cord_where_a_cord_map_shows_it() -> None:
    # The string found has a long gap where the cord dips inwards (a bay, hidden to
    # the colour rules); a cord map sees the bay faintly. The bridge cuts across it.
    bay = ellipse((450, 350), (300, 200), n=720)
    t = np.radians(np.arange(0, 360, 0.5))
    dip = np.exp(-(((t - np.radians(315)) / np.radians(9)) ** 2))
    bay = bay - 45 * dip[:, None] * (bay - (450, 350)) / np.hypot(*(bay - (450, 350)).T)[:, None]
    seen = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(seen, [bay.round().astype(np.int32)], True, 1, 5)
    hidden = (t > np.radians(295)) & (t < np.radians(335))
    for x, y in bay[hidden].round():
        cv2.circle(seen, (int(x), int(y)), 6, 0, -1)
    segments, _ = skeleton_segments(seen.astype(bool), min_length=7)
    loop = close_loop("red", segments, width=5.0)
    assert len(loop.bridges) == 1
    evidence = np.zeros_like(seen)
    cv2.polylines(evidence, [bay.round().astype(np.int32)], True, 120, 5)

    def worst_miss(points: np.ndarray) -> float:
        return float(np.min(np.linalg.norm(bay[hidden][:, None] - points[None], axis=2),
                            axis=1).max())

    assert worst_miss(loop.points) > 20  # the bridge cuts the bay
    followed = follow_bridges(loop, evidence, width=5.0)
    assert worst_miss(followed.points) < 6  # within a string width all along
    # Traced the other way round, it is the same.
    backwards = replace(loop, points=loop.points[::-1], bridges=[(b, a) for a, b in loop.bridges])
    assert worst_miss(follow_bridges(backwards, evidence, width=5.0).points) < 6
    # Where the map sees nothing in the gap (a pawn hides it), the bridge stays.
    blind = evidence.copy()
    blind[:, 600:] = 0
    assert follow_bridges(loop, blind, width=5.0) is loop


def _bridged_loop(cord: np.ndarray, hidden: np.ndarray, scrap: list[np.ndarray]) -> Loop:
    """A loop traced along ``cord`` but for its ``hidden`` points (a stretch not past
    the polyline's first point), crossed instead by straight bridges (to a straight
    ``scrap`` of string, its two ends, and on from it, if given)."""
    first = int(np.argmax(hidden))
    last = len(cord) - 1 - int(np.argmax(hidden[::-1]))
    way = [cord[first - 1], *scrap, cord[last + 1]]
    ends = [tuple(map(float, xy)) for xy in way]
    bridges = list(zip(ends[::2], ends[1::2], strict=True))
    straight = [np.linspace(a, b, 20, endpoint=False) for a, b in itertools.pairwise(way)]
    points = np.vstack([*straight, cord[last + 1 :], cord[:first]])
    return Loop(colour="red", points=points, knot=None, bridges=bridges)  # type: ignore[arg-type]


def _worst_miss(truth: np.ndarray, points: np.ndarray) -> float:
    """How far the point of ``truth`` furthest from ``points`` lies from them."""
    return float(np.min(np.linalg.norm(truth[:, None] - points[None], axis=2), axis=1).max())


def test_a_bridge_cutting_off_a_loops_tip_follows_the_cord_round_it() -> None:
    # A long, narrow loop whose tip the colour rules lost (a dim end of the cord among
    # pawns of its colour): the bridge cuts straight across, the cord runs well over
    # 1.5 times as far round the tip, and beyond half the gap past the bridge's ends.
    cord = ellipse((450, 350), (330, 110), n=720)
    hidden = cord[:, 0] < 250
    loop = _bridged_loop(cord, hidden, [])
    gap = math.dist(*loop.bridges[0])
    round_the_tip = float(np.linalg.norm(np.diff(cord[hidden], axis=0), axis=1).sum())
    assert round_the_tip > 1.8 * gap
    assert 250 - cord[:, 0].min() > 0.5 * gap
    evidence = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(evidence, [cord.round().astype(np.int32)], True, 150, 5)
    assert _worst_miss(cord[hidden], loop.points) > 100
    followed = follow_bridges(loop, evidence, width=5.0).points
    assert _worst_miss(cord[hidden], followed) < 6
    assert _worst_miss(followed, cord) < 6
    # Where the map shows nothing round the tip, the bridge stays.
    blind = evidence.copy()
    blind[:, :250] = 0
    assert follow_bridges(loop, blind, width=5.0) is loop


def test_bridges_parted_by_a_scrap_off_the_cord_follow_it_as_one_gap() -> None:
    # Pawns hide a stretch of the cord; the trace bridged to the rim of one of them,
    # followed that scrap of "string" 9 string widths, and bridged on. Laid along the
    # cord map one at a time, each bridge would end on the scrap, off the cord.
    cord = ellipse((450, 350), (300, 200), n=720)
    t = np.radians(np.arange(0, 360, 0.5))
    hidden = (t > np.radians(20)) & (t < np.radians(70))
    inwards = (np.array([450.0, 350.0]) - cord[90]) / np.linalg.norm(cord[90] - (450, 350))
    scrap = [cord[80] + 30 * inwards, cord[100] + 30 * inwards]
    loop = _bridged_loop(cord, hidden, scrap)
    evidence = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(evidence, [cord.round().astype(np.int32)], True, 150, 5)
    assert _worst_miss(cord[hidden], loop.points) > 25
    # Wherever the loop's polyline starts (a run may pass its first point).
    for start in (0, 10, 30):
        rolled = replace(loop, points=np.roll(loop.points, -start, axis=0))
        followed = follow_bridges(rolled, evidence, width=5.0).points
        assert _worst_miss(cord[hidden], followed) < 6
        assert _worst_miss(followed, cord) < 6


def test_bridges_out_to_a_scrap_and_back_follow_the_cord_though_their_ends_are_close() -> None:
    # The trace left the cord for a pawn's rim 8 string widths off it and came back 4
    # widths further on: each bridge is long, the gap between their outer ends short.
    cord = ellipse((450, 350), (300, 200), n=720)
    t = np.radians(np.arange(0, 360, 0.5))
    hidden = (t > np.radians(43)) & (t < np.radians(47))
    inwards = (np.array([450.0, 350.0]) - cord[90]) / np.linalg.norm(cord[90] - (450, 350))
    loop = _bridged_loop(cord, hidden, [cord[88] + 40 * inwards, cord[92] + 40 * inwards])
    assert math.dist(loop.bridges[0][0], loop.bridges[-1][1]) < 5 * 5.0
    evidence = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(evidence, [cord.round().astype(np.int32)], True, 150, 5)
    assert _worst_miss(loop.points, cord) > 30
    assert _worst_miss(follow_bridges(loop, evidence, width=5.0).points, cord) < 6


def test_a_stretch_bent_along_a_shadow_at_a_crossing_follows_the_cord_map() -> None:
    # The red cord passes under a blue one. On a table of its own hue the trace bent
    # along the blue cord's shadow there, 3 string widths out: the crossing is read
    # aside. The cord map sees the red cord run straight on under the blue.
    width = 5.0
    red = ellipse((450, 350), (300, 200), n=720)
    blue = Loop("blue", ellipse((700, 350), (120, 260), n=720), knot=None)
    t = np.radians(np.arange(0, 360, 0.5))
    shared = LinearRing(red).intersection(LinearRing(blue.points))
    [upper, _] = sorted((np.asarray(g.coords[0]) for g in shared.geoms), key=lambda p: p[1])
    at = math.atan2((upper[1] - 350) / 200, (upper[0] - 450) / 300)
    bump = 3 * width * np.exp(-(((t - at + math.pi) % (2 * math.pi) - math.pi) / 0.04) ** 2)
    outwards = (red - (450, 350)) / np.hypot(*(red - (450, 350)).T)[:, None]
    traced = Loop("red", red + bump[:, None] * outwards, knot=None)
    evidence = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(evidence, [red.round().astype(np.int32)], True, 200, 5)

    def crossing_miss(loop: Loop) -> float:
        shared = LinearRing(loop.points).intersection(LinearRing(blue.points))
        return min(float(np.linalg.norm(np.asarray(g.coords[0]) - upper)) for g in shared.geoms)

    assert crossing_miss(traced) > 2 * width
    followed = follow_through_crossings(traced, [blue], evidence, width)
    assert crossing_miss(followed) < 0.5 * width
    # The other crossing, where the trace ran on the cord, stays where it was.
    lower = [g for g in LinearRing(followed.points).intersection(LinearRing(blue.points)).geoms
             if g.y > 350]
    assert len(lower) == 1 and LinearRing(red).distance(lower[0]) < 0.5
    # Where the map does not see the cord, or a pawn stands on the crossing (the map
    # guesses there), the trace stays.
    assert follow_through_crossings(traced, [blue], np.zeros_like(evidence), width) is traced
    pawns = np.zeros(evidence.shape, bool)
    cv2.circle(pawns.view(np.uint8), tuple(int(v) for v in upper.round()), 15, 1, -1)
    assert follow_through_crossings(traced, [blue], evidence, width, pawns) is traced


def arc(start_deg: float, end_deg: float) -> Segment:
    """A piece of the ellipse round (450, 350) with half axes 300 and 200."""
    t = np.radians(np.arange(start_deg, end_deg, 0.5))
    return Segment(np.column_stack([450 + 300 * np.cos(t), 350 + 200 * np.sin(t)]))


def test_a_detour_to_a_scrap_is_dropped_but_a_scrap_on_the_way_is_kept() -> None:
    # The string, seen all round but for a gap at its right end (a pawn hid it).
    string = arc(8, 352)
    astray = Segment(np.column_stack([np.linspace(770, 790, 20), np.linspace(320, 300, 20)]))
    on_the_way = arc(-3, 3)
    for scrap, kept in ((astray, False), (on_the_way, True)):
        segments = [string, scrap]
        ends = [_End(i, tail) for i in range(2) for tail in (False, True)]
        directions = np.array([e.direction(segments, 15.0) for e in ends])
        # The string from its start round to its end, then the scrap, then back.
        cycle = [_End(0, False), _End(1, False)]
        result = drop_detours(cycle, segments, directions, width=5.0)
        assert [e.segment for e in result] == ([0, 1] if kept else [0])


def test_a_scrap_beside_a_long_gap_is_dropped() -> None:
    # The string hidden a sixth of the way round (a row of pawns on it), and a scrap
    # of its colour beside the gap (a pawn's lit rim): the loop bridged the gap in any
    # case, so the straight way past the scrap, longer than a first-pass bridge, is no
    # guess the loop did not make already.
    string = arc(30, 330)
    gap = float(np.linalg.norm(string.points[-1] - string.points[0]))
    assert gap > MAX_GAP_WIDTHS * 5.0
    end = string.points[-1]
    # Beside the string's end, outside it and back along it, as a rim lit beside the cord.
    astray = Segment(np.column_stack([np.linspace(end[0] + 25, end[0] + 5, 20),
                                      np.linspace(end[1] - 10, end[1] - 45, 20)]))
    on_the_way = arc(-3, 3)
    for scrap, kept in ((astray, False), (on_the_way, True)):
        segments = [string, scrap]
        ends = [_End(i, tail) for i in range(2) for tail in (False, True)]
        directions = np.array([e.direction(segments, 15.0) for e in ends])
        # Either way round: the long bridge is the one out of the scrap, or into it.
        for backwards in (False, True):
            cycle = [_End(0, backwards), _End(1, backwards)]
            result = drop_detours(cycle, segments, directions, width=5.0)
            assert [e.segment for e in result] == ([0, 1] if kept else [0])


def test_trace_and_arrange_four_crossing_loops() -> None:
    image, truth = four_loops()
    separation = separate(classify_colours(image, load_profile()))
    loops = trace_loops(separation)
    assert set(loops.loops) == {"red", "yellow", "green", "blue"}
    traced = build_board({c: [tuple(p) for p in lp.points] for c, lp in loops.loops.items()})
    expected = build_board({c: [tuple(p) for p in pts] for c, pts in truth.items()})
    assert len(traced.crossings) == len(expected.crossings)
    assert sorted(f.value for f in traced.fields) == sorted(f.value for f in expected.fields)
    for crossing in expected.crossings:
        nearest = min(math.dist(crossing.xy, c.xy) for c in traced.crossings)
        assert nearest < 8  # 1.5 string widths, as in the accuracy benchmark


def test_trace_finds_a_knot_near_a_crossing() -> None:
    image, truth = four_loops()
    knot = truth["blue"][60]  # on the blue loop, some way from any crossing
    cv2.circle(image, tuple(int(v) for v in knot), 8, RGB["blue"], -1, cv2.LINE_AA)
    for angle in (2.2, 2.8):
        tail = (int(knot[0] + 40 * math.cos(angle)), int(knot[1] + 40 * math.sin(angle)))
        cv2.line(image, tuple(int(v) for v in knot), tail, RGB["blue"], 4, cv2.LINE_AA)
    loops = trace_loops(separate(classify_colours(image, load_profile())))
    found = loops.loops["blue"].knot
    assert found is not None and math.dist(found, knot) < 15
    # No other loop grew a knot from it.
    for colour in ("red", "yellow", "green"):
        other = loops.loops[colour].knot
        assert other is None or math.dist(other, knot) > 50


def test_a_knot_whose_tails_are_stubs_is_where_the_loop_branches() -> None:
    # A tight knot seen from afar: hardly thicker than the string, its tails two stubs
    # too short to keep as scraps. The loop's skeleton branches there and nowhere else.
    image, truth = four_loops()
    knot = truth["blue"][60]
    tangent = truth["blue"][61] - truth["blue"][59]
    normal = np.array([-tangent[1], tangent[0]]) / np.linalg.norm(tangent)
    ends = [tuple(int(v) for v in knot + side * 8 * normal) for side in (-1, 1)]
    cv2.line(image, ends[0], ends[1], RGB["blue"], 3, cv2.LINE_AA)
    loops = trace_loops(separate(classify_colours(image, load_profile())))
    found = loops.loops["blue"].knot
    assert found is not None and math.dist(found, knot) < 10
    assert loops.loops["blue"].knot_confidence < 0.5  # a guess, and said to be one


def test_a_knot_with_two_short_loose_tails_is_found() -> None:
    # Seen from afar the knot is a slight lump and its tails are short scraps, cut
    # off from it; a single short scrap elsewhere beside the string is no knot.
    image, truth = four_loops()
    knot = truth["blue"][60]
    cv2.circle(image, tuple(int(v) for v in knot), 5, RGB["blue"], -1, cv2.LINE_AA)
    for angle in (1.1, 2.0):
        start = (int(knot[0] + 10 * math.cos(angle)), int(knot[1] + 10 * math.sin(angle)))
        end = (int(knot[0] + 30 * math.cos(angle)), int(knot[1] + 30 * math.sin(angle)))
        cv2.line(image, start, end, RGB["blue"], 3, cv2.LINE_AA)
    x, y = (int(v) for v in truth["blue"][140])
    cv2.line(image, (x, y + 9), (x, y + 20), RGB["blue"], 3)
    found = trace_loops(separate(classify_colours(image, load_profile()))).loops["blue"].knot
    assert found is not None and math.dist(found, knot) < 15


def test_a_trace_run_up_a_knots_tail_and_back_is_cut_off_as_a_spur() -> None:
    # The skeleton may join a knot's tail to the loop with no junction: the trace
    # then runs up the tail and comes back beside it. A narrow ellipse bends tightly
    # at its ends, but never back on itself, so it has no spur.
    width = 4.0
    path = ellipse((300, 250), (200, 150), n=400)  # about a string width apart
    base = 100
    tangent = path[base + 1] - path[base - 1]
    normal = np.array([-tangent[1], tangent[0]]) / np.linalg.norm(tangent)
    up = [path[base] + normal * k for k in np.arange(1.0, 4.0 * width, 2.0)]
    down = [p + (path[base + 2] - path[base]) for p in up[::-1]]
    spiked = np.vstack([path[: base + 1], up, down, path[base + 2 :]])
    cut, spurs = without_spurs(spiked, width)
    assert len(spurs) == 1 and math.dist(spurs[0], path[base]) < 2 * width
    assert np.abs(np.linalg.norm((cut - (300, 250)) / (200, 150), axis=1) - 1).max() < 0.03
    narrow = ellipse((300, 250), (200, 12), n=400)
    assert without_spurs(narrow, width)[1] == []
    loop = Loop("blue", cut, None, spurs=spurs)
    knot, _ = find_knot(loop, [], np.empty((0, 2)), np.zeros((500, 600), bool), width)
    assert knot is not None and math.dist(knot, path[base]) < 2 * width


def test_a_string_among_hundreds_of_scraps_of_its_colour_is_closed_and_its_knot_found() -> None:
    # A cord on a table of its own hue (the blue mat) leaves its mask full of specks
    # whose skeletons are short scraps; the loop must still close round the string,
    # the knot (a lump with two tails) be found on it, and no scrap be taken in.
    width = 5.0
    path = ellipse((450, 350), (300, 200), n=720)
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.polylines(mask, [path.round().astype(np.int32)], True, 1, int(width))
    knot = path[200]
    cv2.circle(mask, tuple(int(v) for v in knot), 6, 1, -1)
    for angle in (1.2, 2.0):
        tip = knot + 30 * np.array([math.cos(angle), math.sin(angle)])
        cv2.line(mask, tuple(int(v) for v in knot), tuple(int(v) for v in tip), 1, 3)
    rng = np.random.default_rng(7)
    radii = np.hypot(*((path - (450, 350)) / (300, 200)).T)
    assert np.abs(radii - 1).max() < 1e-9
    specks = 0
    while specks < 1000:
        x, y = rng.uniform(0, SIZE[0]), rng.uniform(0, SIZE[1])
        if abs(math.hypot((x - 450) / 300, (y - 350) / 200) - 1) < 0.15:
            continue  # away from the string and its knot
        angle = rng.uniform(0, math.pi)
        dash = (x + 8 * math.cos(angle), y + 8 * math.sin(angle))
        cv2.line(mask, (int(x), int(y)), (int(dash[0]), int(dash[1])), 1, 2)
        specks += 1
    segments, junctions = skeleton_segments(mask.astype(bool), min_length=7)
    assert len(segments) > 500
    loop = close_loop("blue", segments, width=width)
    off = np.abs(np.hypot(*((loop.points - (450, 350)) / (300, 200)).T) - 1)
    assert off.max() < 0.05  # along the ellipse all round, no scrap taken in
    found, _ = find_knot(loop, segments, junctions, mask.astype(bool), width)
    assert found is not None and math.dist(found, knot) < 3 * width


def test_a_hollow_knot_is_found_and_not_the_base_of_a_pawn_beside_the_string() -> None:
    # No tails to go by. The knot's lump shows as a ring (its loops lit, its middle
    # dark); elsewhere the base of a blue pawn seen at a slant, left below the blob cut
    # out as the pawn, is a solid lump on the string, thicker than the ring.
    width = 4.0
    path = ellipse((300, 250), (200, 150))
    mask = np.zeros((500, 600), np.uint8)
    cv2.polylines(mask, [path.round().astype(np.int32)], True, 1, int(width))
    knot, base = (int(v) for v in path[60]), (int(v) for v in path[140])
    knot, base = tuple(knot), tuple(base)
    cv2.circle(mask, knot, 6, 1, 4)
    cv2.circle(mask, base, 10, 1, -1)
    pawn = np.zeros_like(mask, bool)
    cv2.circle(pawn.view(np.uint8), (base[0], base[1] - 20), 14, 1, -1)
    loop = Loop("blue", path, None)
    found, _ = find_knot(loop, [], np.empty((0, 2)), mask.astype(bool), width, pawn)
    assert found is not None and math.dist(found, knot) < 6


def test_creatures_two_touching_pawns_and_a_pawn_on_a_string() -> None:
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "red")
    draw_pawn(image, (400, 350), "green")
    draw_pawn(image, (434, 350), "green")  # touching the first
    draw_pawn(image, (600, 350), "green")
    draw_pawn(image, (450, 168), "red")  # on its own string
    pawns = find_pawns(separate(classify_colours(image, load_profile())))
    greens = sorted(p.foot[0] for p in pawns.pawns if p.colour == "green")
    reds = [p for p in pawns.pawns if p.colour == "red"]
    assert len(greens) == 3
    assert abs(greens[0] - 400) < 8 and abs(greens[1] - 434) < 8
    assert len(reds) == 1 and abs(reds[0].foot[0] - 450) < 6


def test_a_colour_that_looks_larger_is_not_split() -> None:
    # Red pawns keep their shaded side, so each shows larger than the others: alone
    # they are still one pawn each.
    image = table()
    draw_string(image, ellipse((450, 350), (400, 300)), "green")  # sets the string width
    for x in (200, 350, 500, 650):
        draw_pawn(image, (x, 200), "blue", radius=16)
    for x in (200, 350, 500):
        draw_pawn(image, (x, 450), "red", radius=22)
    pawns = find_pawns(separate(classify_colours(image, load_profile())))
    assert sum(p.colour == "blue" for p in pawns.pawns) == 4
    assert sum(p.colour == "red" for p in pawns.pawns) == 3


def test_two_touching_pawns_far_back_are_two() -> None:
    # Farther from the camera two touching pawns are smaller than the pawns in front:
    # their blob is not twice a (front) pawn's area, but it is wider than one.
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "red")
    for x in (250, 350, 650):
        draw_pawn(image, (x, 250), "green", radius=24)
    draw_pawn(image, (430, 420), "green", radius=20)
    draw_pawn(image, (470, 420), "green", radius=20)
    pawns = find_pawns(separate(classify_colours(image, load_profile())))
    feet = sorted(p.foot[0] for p in pawns.pawns if p.colour == "green" and p.foot[1] > 350)
    assert len(feet) == 2
    assert abs(feet[0] - 430) < 8 and abs(feet[1] - 470) < 8


def blob_of(mask: np.ndarray, colour: str = "blue") -> PawnBlob:
    """The blob of ``mask``'s pixels, boxed as the separate stage boxes them."""
    ys, xs = np.nonzero(mask)
    x, y = int(xs.min()), int(ys.min())
    w, h = int(xs.max()) - x + 1, int(ys.max()) - y + 1
    box_mask = mask[y : y + h, x : x + w].astype(bool)
    return PawnBlob(colour=colour, mask=box_mask, box=(x, y, w, h), share=1.0)


def leaning_pawn(origin: tuple[int, int], head: tuple[float, float]) -> PawnBlob:
    """A pawn seen at an angle: a round base, and a smaller head drawn out towards
    ``head`` (a unit vector), in a box whose corner is at ``origin``."""
    mask = np.zeros((80, 80), np.uint8)
    cv2.circle(mask, (40, 40), 16, 1, -1)
    top = (round(40 + 18 * head[0]), round(40 + 18 * head[1]))
    cv2.circle(mask, top, 11, 1, -1)
    return PawnBlob("blue", mask.astype(bool), (*origin, 80, 80), share=1.0)


@pytest.mark.parametrize("head", [(1.0, 0.0), (0.0, 1.0), (-0.6, -0.8)])
def test_the_lean_of_the_pawns_is_read_from_their_shape(head: tuple[float, float]) -> None:
    # A photo turned any way: the pawns lean along one direction, wider at the base.
    blobs = [leaning_pawn((100 * k, 50 * k), head) for k in range(5)]
    lean = lean_direction(blobs, float(blobs[0].area))
    assert np.dot(lean, head) > 0.95
    # The foot is at the base, not at the blob's bottom in the photo.
    foot = np.subtract(foot_of_blob(blobs[0].points(), lean), (40, 40))
    assert np.hypot(*foot) < 6


def disc_blob(colour: str, x: int, radius: int) -> PawnBlob:
    mask = np.zeros((2 * radius + 2, 2 * radius + 2), np.uint8)
    cv2.circle(mask, (radius + 1, radius + 1), radius, 1, -1)
    return PawnBlob(colour, mask.astype(bool), (x, 100, *mask.shape[::-1]), share=1.0)


def test_a_ghost_showing_only_its_lit_top_is_kept() -> None:
    # On a grey cloth only a ghost's lit top is white: about a sixth of a pawn
    # (radius 17 of 40). A white speck (radius 10, 6 %) is still no ghost.
    blobs = [disc_blob("red", 100 * k, 40) for k in range(4)]
    blobs += [disc_blob(WHITE, 500, 17), disc_blob(WHITE, 600, 10)]
    separation = Separation({}, blobs, string_width=4.0, pawn_mask=np.zeros((1, 1), bool))
    ghosts = [p for p in find_pawns(separation).pawns if p.kind == "ghost"]
    assert len(ghosts) == 1 and 500 < ghosts[0].foot[0] < 540


def test_ghosts_seen_with_their_shadows_do_not_set_the_size_of_a_pawn() -> None:
    # Under a lamp overhead a ghost found by its outline takes in the soft shadow all
    # round it (here radius 28 for a pawn of 20); the two demons say how large a pawn
    # is, though the ghosts are more.
    from dataclasses import replace

    demons = [disc_blob("red", 0, 20), disc_blob("blue", 100, 20)]
    ghosts = [replace(disc_blob(WHITE, 200 + 100 * k, 28), with_shadow=True) for k in range(3)]
    separation = Separation({}, demons + ghosts, string_width=4.0, pawn_mask=np.zeros((1, 1), bool))
    pawns = find_pawns(separation)
    assert pawns.pawn_width == pytest.approx(40, rel=0.05)
    assert len([p for p in pawns.pawns if p.kind == "ghost"]) == 3
    # One scrap among many ghosts does not set the size.
    with_scrap = [disc_blob("yellow", 0, 9)] + ghosts
    scrap = Separation({}, with_scrap, string_width=4.0, pawn_mask=np.zeros((1, 1), bool))
    assert find_pawns(scrap).pawn_width == pytest.approx(56, rel=0.05)
    # With no other pawn to go by, the ghosts are measured as they are.
    alone = Separation({}, ghosts, string_width=4.0, pawn_mask=np.zeros((1, 1), bool))
    assert find_pawns(alone).pawn_width == pytest.approx(56, rel=0.05)


def test_pawns_seen_from_above_have_their_heads_up() -> None:
    disc = np.zeros((40, 40), np.uint8)
    cv2.circle(disc, (20, 20), 16, 1, -1)
    blobs = [blob_of(disc) for _ in range(5)]
    assert lean_direction(blobs, float(blobs[0].area)) == UP


def test_a_playing_card_is_not_pawn_shaped() -> None:
    # A card (here with corners rounded as the pawn opening leaves them) fills the
    # rectangle round it; one pawn, or two touching, fill about 79 % of theirs.
    card = np.zeros((140, 140), np.uint8)
    cv2.rectangle(card, (20, 10), (80, 120), 1, -1)
    card = opening(card, 20).astype(np.uint8)
    one = np.zeros((140, 140), np.uint8)
    cv2.circle(one, (70, 70), 30, 1, -1)
    two = np.zeros((140, 140), np.uint8)
    cv2.circle(two, (40, 70), 30, 1, -1)
    cv2.circle(two, (100, 70), 30, 1, -1)
    assert not _pawn_shaped(blob_of(card))
    assert _pawn_shaped(blob_of(one)) and _pawn_shaped(blob_of(two))


def test_empty_table_has_no_strings() -> None:
    with pytest.raises(ReadError, match="no strings"):
        trace_loops(separate(classify_colours(table(), load_profile())))


def test_a_missing_loop_is_named() -> None:
    image = table()
    for colour, points in four_loops()[1].items():
        if colour != "green":
            draw_string(image, points, colour)
    with pytest.raises(ReadError, match="only 3 loops.*green"):
        trace_loops(separate(classify_colours(image, load_profile())))


def test_touching_pawns_split_the_same_whatever_ran_before() -> None:
    image = table()
    draw_string(image, ellipse((450, 350), (300, 200)), "red")
    draw_pawn(image, (400, 350), "green")
    draw_pawn(image, (434, 350), "green")
    draw_pawn(image, (600, 350), "green")
    draw_pawn(image, (300, 350), "blue")  # singles set the size of one pawn
    separation = separate(classify_colours(image, load_profile()))
    first = [p.foot for p in find_pawns(separation).pawns]
    # Another k-means in the same process moves OpenCV's shared random generator.
    noise = np.random.default_rng(1).random((500, 2)).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_MAX_ITER, 5, 1.0)
    cv2.kmeans(noise, 3, None, criteria, 2, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
    again = [p.foot for p in find_pawns(separation).pawns]
    assert len(first) == 4 and first == again


def test_lab_is_opencvs_8_bit_lab_as_floats_with_a_and_b_centred() -> None:
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    rgb[0, :3] = [(0, 0, 0), (255, 255, 255), (255, 0, 0)]
    lab = to_lab(rgb)
    expected = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32) - (0.0, 128.0, 128.0)
    assert lab.shape == rgb.shape and lab.dtype == np.float32
    np.testing.assert_array_equal(lab, expected)
    assert lab[0, 1, 0] == 255.0 and abs(lab[0, 1, 1]) <= 1.0  # white: light, no hue
