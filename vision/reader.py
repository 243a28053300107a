"""The whole reader: a photo in, a scored board report out.

``read_photo`` chains the stages (see ``vision/__init__.py``), times each one and keeps
its output so that a failure can be seen at the stage where it happened
(:func:`draw_stages`). The rules are used to decide between readings, never to hide
what the photo shows: a demon standing at a corner of other colours is reported as a
violation, not moved.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import ColourProfile, load_profile
from engine.board import Board, Crossing, Point
from engine.colours import DEMON
from engine.errors import EngineError, LayoutError
from engine.placement import (
    BETWEEN_CORNERS_AMBIGUITY,
    CORNER_AIR,
    FAR_FROM_CORNERS_AMBIGUITY,
    ON_STRING_AMBIGUITY,
    BoardGeometry,
    Foot,
    Location,
)
from engine.report import board_to_report, moves_change_nothing
from engine.topology import build_board
from vision import memory
from vision.colour import LABEL_RGB, ColourMasks, bounding_box, classify_colours, draw_labels
from vision.combine import (
    CORD_SURE,
    add_centred_ghosts,
    add_checked_centre_ghosts,
    add_cornered_demons,
    add_ghosts_behind_pawns,
    combine_knots,
    combine_pawns,
    faint_demons_checked_as_ghosts,
    own_width,
    trace_with_cords,
    without_faint_ghosts_checked_away,
)
from vision.creatures import Pawns, SeenPawn, find_pawns
from vision.crossings import draw_settled, settle_crossings
from vision.demon_check import demon_odds
from vision.demon_colour import recoloured_by_pixels
from vision.detect import (
    SAME_PAWN,
    CordsNear,
    Detection,
    Detections,
    cords_near,
    detect_at_measured_width,
    detect_checking_size,
    draw_detections,
    foot_in_views,
    knots_at_training_size,
    look_again,
    marked_once,
)
from vision.doubts import AMBIGUOUS_PLACE, LOW_CONFIDENCE, MOOT_CONFIDENCE, place_warning
from vision.errors import ReadError
from vision.ghost_check import ghost_odds, turned_ghost_odds
from vision.knot_check import knot_odds, turned_knot_odds
from vision.load import MIN_WORKING_SIDE, Photo, load_photo
from vision.parts import find_parts
from vision.pawn_size import width_ratios, widths_on_table
from vision.pixels import PixelClasses, classify_pixels, draw_classes
from vision.second_look import add_missed_pawns
from vision.separate import Separation, separate
from vision.trace import Loop, Loops, trace_loops

T = TypeVar("T")

#: Strings narrower than this (working pixels) are read again at a finer resolution.
MIN_STRING_WIDTH = 3.0
#: Strings read narrower than MIN_STRING_WIDTH are read again first at the scale that
#: makes them this wide, where it lies between the first scale and the next finer one
#: (eighty-eighth session): the photos read at the first scale have strings 3-5 working
#: pixels wide (3.8 px in half of 3000 generated photos, 4.65 in a fifth).
WIDE_ENOUGH_STRING = 3.5
#: ... and at least this many times the next finer scale (a step too small to be worth
#: a reading that may fail: then the next finer scale is read at once).
MIN_SCALE_STEP = 1.2
#: So is a photo with a loop of which less than this share was seen ...
MIN_SEEN_SHARE = 0.5
#: ... or with one gap bridged across more than this share of its loop (a pawn hides
#: a few per cent).
MAX_BRIDGE_SHARE = 0.15
#: The finer reading looks at the box round the strings and pawns of the first, grown by
#: this many pawn widths (a pawn half seen at the edge of the first reading is whole).
BOX_MARGIN_PAWNS = 4.0
#: ... and round every pawn the detector marks at least this much ...
BOX_MARK = 0.2
#: ... and, where one runs out of that box, round every piece of cord it marks at least
#: CORD_SURE, of at least this many pawn widths squared (630156: its stray marks on the
#: wood's grain hold 10-35 pixels, the parts of its cords 340-4965, a pawn width
#: squared 190).
BOX_CORD_AREA_PAWNS = 1.0
#: A photo in which the detector marks more pawns than this at least FAINT_MARK is no
#: board: a board holds at most 50 creatures in play, and the most marked on 58 full
#: boards and dev photos was 89; a WebP damaged in its picture decodes as coloured
#: noise, marked in 4,700–11,000 places, and took 50–80 s to be read as a made-up
#: board (each faint mark looked at again in eight views).
MAX_FAINT_MARKS = 1000
FAINT_MARK = 0.1
#: The finer reading is not made where it would hold more working pixels than this (the
#: first reading is then the last). Read whole at full size, a 12-megapixel photo peaked
#: at 0.83 GB, a 16-megapixel one 1.04 GB, a 24-megapixel one 1.50 GB; a 100-megapixel
#: photo of a bare table was read again at 25 megapixels (the whole photo, as nothing
#: was found to box in), 8.7 s and 1.5 GB, to find nothing. So a photo of over 13
#: megapixels is read finer only in a part of it that holds fewer (a 16-megapixel photo
#: in 82 % of it, a 24-megapixel one in 54 %): a board that fills more of such a photo
#: shows its strings wide at the first reading's scale.
MAX_FINER_PIXELS = 13_000_000
#: The pawn width read from a photo may be this much too small (one width for the whole
#: photo under perspective, pawns partly hidden): a demon just beyond the reach of a
#: corner of its own colour with the width read, and within it with a width this much
#: larger, is counted in that corner, with a doubt (see place).
PAWN_WIDTH_DOUBT = 1.1
#: ... and a pawn's own width (its blob's, against the photo's typical blob) this much,
#: where that is more: measured on the pawn, it is less in doubt. Over the dev photos
#: and three generated sets (648; twenty-sixth session), of the 83 demons read away
#: from every corner, 4 that the truth has in a corner of their colour reach it so (their
#: blobs 1.08-1.22 times the photo's width, the corner within reach at 1.13-1.18 times
#: it), and none of those it has away (the nearest, 1.02 wide, within reach at 1.12: at
#: 1.1 times its own width it would have been put in).
OWN_WIDTH_DOUBT = 1.05
#: ... counting a pawn's own width up to this many times the photo's: a blob wider
#: still is more likely a pawn with its shadow, or two, than one nearer the camera
#: (those above measured 1.08-1.22; sample 08's demons with their shadows 1.4-1.8).
MOST_OWN_WIDTH = 1.25
#: A creature of the outer field standing this many of the photo's pawn radii from
#: every string (from, to) is judged on or off the board with its own width, measured
#: by the sizer (see place): the engine's rule counts the pawn's own radii, and the
#: photo's one width is wrong for a pawn at the photo's far edge of a tilted camera,
#: and often read 1.1-1.3 times too wide on hard photos (up to 1.75). Over fourteen sets
#: (2940 photos), the truth's predictions stand at least 5.7 of their own radii from
#: the strings and its creatures in play outside the strings' hull at most 4.8, while
#: with the truth's median width the two overlap (4.25 and 4.85).
OWN_SIZE_REACH = (3.0, 8.0)
#: ... and it is put off the board only if it would be off as a pawn this much wider
#: than the sizer measures it, on the board only if on as one this much narrower.
#: Replayed on the readings of those sets: with 1, 1.05, 1.1 and 1.15, the off-board
#: creatures read on the board go from 19 to 1, 1, 4 and 9, with 2, 2, 2 and 1 boards
#: more read exactly and none fewer; the dev photos as before (no creature changes).
OWN_SIZE_MARGIN = 1.05
#: ... and a width the sizer measures over this many times the photo's is no pawn's:
#: the sizer is taught pawns, and a width beyond any pawn's is its reading of clutter
#: (1770199: a blue cup at the photo's edge, read as a blue demon 7.6 radii from the
#: strings, off the board with the photo's width, sized 2.8 times it and so put on the
#: board). Of the 185 creatures so measured on the 858 hard photos of 1660000-1780000
#: and the dev photos, the cup alone was sized over 1.39 times the photo's width.
MOST_SIZED_WIDTH = 2.0
#: A demon between two corners is looked at again for its foot (see place) only where a
#: foot this many pawn widths from the one read stands elsewhere: the eight views' foot
#: lay within 0.11 pawn widths of the one look's for 95 % of the 78 demons of four
#: samples (at most 0.16), so a demon no such shift moves keeps its corner.
FOOT_SHIFT = 0.15
#: A demon the locator cannot place between corners stands in the one whose snug spot
#: its foot is within this many pawn radii of (the nearest; see locate_in_photo).
SNUG_SPOT_REACH = 0.5
#: The doubt a demon counted so gets (Location.ambiguity, named in the warnings).
EDGE_OF_REACH = "at-the-edge-of-its-corner's-reach"
#: Ways of turning pixels into strings, knots and pawns (see read_photo).
METHODS = frozenset({"classic", "classic+detector", "net", "classic+net"})
DEFAULT_METHOD = "classic+detector"
#: A knot marked this strongly by the detector is sure (its report's
#: ``knot_confidence`` 1; less in proportion). The report's confidences are unsure
#: under LOW_CONFIDENCE (0.6), so a knot is marked unsure under 0.3: on the dev photos
#: and the fourteenth set every wrong knot (5 of 912 loops) was marked under 0.3 where
#: it was put, and 25 of the 907 right ones.
SURE_KNOT_MARK = 0.5
#: A crossing where the detector's cord map shows either loop faintly (its mean sureness
#: along the loop within CORD_REACH_WIDTHS string widths of the crossing under
#: FAINT_CORD, of 255) gets the confidence FAINT_CROSSING, under LOW_CONFIDENCE: a cord
#: of the table's hue, found by its shape, is where crossings are read aside (on the
#: dev photos and the fourteenth and fifteenth sets, 18 of the 38 crossings read aside
#: and 83 of the 6100 read right).
FAINT_CORD = 64
CORD_REACH_WIDTHS = 3.0
FAINT_CROSSING = 0.5


#: The stages of one reading at a working resolution (:func:`read_photo` may read the
#: photo twice, the second time finer).
STRING_STAGES = ("load", "colour", "pixels", "parts", "separate", "creatures", "detect", "trace")


@dataclass(frozen=True)
class Reading:
    """A photo read into a board.

    Attributes
    ----------
    report : dict
        The CONTRACT board report in the original photo's pixels, plus ``confidence``
        on every crossing and creature and a top-level ``warnings`` list.
    photo : Photo
    stages : dict
        Each stage's output, by stage name.
    timings : dict
        Seconds spent in each stage, by stage name.
    """

    report: dict[str, Any]
    photo: Photo
    stages: dict[str, Any]
    timings: dict[str, float]


def read_photo(
    source: bytes | str | os.PathLike[str],
    *,
    profile: ColourProfile | None = None,
    method: str | None = None,
) -> Reading:
    """Read a photo of the table into a scored board.

    Parameters
    ----------
    source : bytes or path
        The photo file (JPEG, PNG, WebP or HEIC) or its bytes.
    profile : ColourProfile, optional
        Colour profile; the bundled default when omitted.
    method : {"classic+detector", "classic", "net", "classic+net"}, optional
        How pixels become strings, knots and pawns: hand-made colour rules for the
        strings, checked and completed for pawns and knots by the learned detector in
        calibration/ (:mod:`vision.detect`, :mod:`vision.combine`; "classic+detector"),
        the colour rules alone ("classic"), the learned pixel classifier
        ("net"), or the colour rules with the pawns the classifier is sure of and the
        rules missed added (:mod:`vision.second_look`, "classic+net"). Default: the
        environment variable DD_READER, else DEFAULT_METHOD.

    Returns
    -------
    Reading

    Raises
    ------
    ReadError
        When the file is not a usable photo or no board can be read from it (the
        message says why, in one line).
    """
    stages: dict[str, Any] = {}
    # Photos read one after another reuse the memory the last let go of.
    with memory.reading():
        try:
            return _read_photo(source, profile, method, stages)
        except ReadError as error:
            # What the stages gave up to the failure: a refused photo's debug pictures.
            error.stages = stages
            raise


def _read_photo(
    source: bytes | str | os.PathLike[str],
    profile: ColourProfile | None,
    method: str | None,
    stages: dict[str, Any],
) -> Reading:
    """:func:`read_photo`'s work; each stage's output goes into ``stages`` as it ends."""
    method = method or os.environ.get("DD_READER", DEFAULT_METHOD)
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, not {method!r}")
    timings: dict[str, float] = {}

    def stage(name: str, run: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            value = run()
        finally:
            # A photo read again at a finer resolution pays for both readings, and for
            # a stage that failed at the first.
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        stages[name] = value
        return value

    profile = profile or load_profile()

    def read_strings(
        min_working_side: int = MIN_WORKING_SIDE,
        last_try: bool = False,
        box: tuple[float, float, float, float] | None = None,
        pawn_width: float | None = None,
        scale: float | None = None,
    ) -> _Strings:
        """Load (only ``box`` of the photo, if given), colour, separate and trace at a
        working resolution (reduced by ``scale`` where given; with the detector, first
        find the pawns and cords it marks, looking for pawns ``pawn_width`` wide in the
        original photo's pixels where given, else as wide as the colour rules' blobs).
        Unless it is the last try, the loops are None where they cannot be read at it:
        strings too thin, or a loop lost."""
        # A reading again at a finer scale starts afresh: a refusal's debug pictures are
        # of one reading (the first's are put back where it is the one kept).
        for name in STRING_STAGES:
            stages.pop(name, None)
        photo = stage(
            "load",
            lambda: load_photo(source, min_working_side=min_working_side, box=box, scale=scale),
        )
        masks: Any
        if method == "net":
            masks = stage("pixels", lambda: classify_pixels(photo.rgb))
            parts = stage("parts", lambda: find_parts(masks))
            separation = parts.separation
            pawns = parts.pawns
        else:
            long_side = photo.working_long_side
            masks = stage("colour", lambda: classify_colours(photo.rgb, profile, long_side))
            separation = stage("separate", lambda: separate(masks))
            # Only the separate stage reads the photo in Lab and the table model: they
            # go before the detector runs (a photo read at full size peaked over 1 GB).
            masks = stages["colour"] = masks.labels_only()
            pawns = stage("creatures", lambda: find_pawns(separation))
        found = _Strings(photo, masks, separation, pawns, None, None)
        last_try = last_try or photo.scale <= 1
        marks = None
        if method == "classic+detector":
            # Also where the strings are too thin to trace: the pawns it marks tell
            # where the board is (board_box), and a pawn is wide at any resolution.
            def detect_pawns() -> Detections:
                start = pawns.pawn_width if pawn_width is None else pawn_width / photo.scale
                found = detect_checking_size(photo.rgb, start)
                faint = len(found.pawns(min_score=FAINT_MARK))
                if faint > MAX_FAINT_MARKS:
                    raise ReadError(
                        f"no board: the camera sees {faint} pawn-like marks, far more than "
                        "a board holds (a damaged picture, or a busy pattern)")
                found = detect_at_measured_width(photo.rgb, found)
                return marked_once(photo.rgb, found)

            marks = stage("detect", detect_pawns)
            found = replace(found, detections=marks)
        if 0 < separation.measured_width < MIN_STRING_WIDTH and not last_try:
            return found
        return trace_strings(found, last_try)

    def trace_strings(found: _Strings, last_try: bool) -> _Strings:
        """``found`` with its loops traced; unless it is the last try, a loop that
        cannot be traced leaves them None and the error kept."""

        def trace() -> Loops:
            if found.detections is None:
                return trace_loops(found.separation)
            return trace_with_cords(found.separation, found.detections)

        try:
            return replace(found, loops=stage("trace", trace))
        except ReadError as error:
            if last_try:
                raise
            return replace(found, error=error)

    def read_between(first: _Strings) -> _Strings | None:
        """The board's box read at :func:`between_scale` of ``first``, where there is
        one and the reading traces every loop without guessing one mostly; else None,
        with ``first``'s stages put back (a refusal's debug pictures are of one
        reading)."""
        between = between_scale(first)
        if between is None:
            return None
        box = board_box(first)
        if finer_pixels(first.photo, box, between) > MAX_FINER_PIXELS:
            return None
        kept = {name: stages[name] for name in STRING_STAGES if name in stages}
        try:
            with memory.blocks_given_back():
                halfway = read_strings(box=box, pawn_width=first_pawn_width(first),
                                       scale=between)
        except ReadError:
            pass
        else:
            if halfway.loops is not None and not mostly_guessed(halfway.loops):
                return halfway
        for name in STRING_STAGES:
            stages.pop(name, None)
        stages.update(kept)
        return None

    strings = read_strings()
    # Strings too thin at the first scale, but wide enough between it and the next: read
    # there first, 0.34-0.69 of the next scale's pixels (0.41 for most); what that
    # reading cannot read, or trace cleanly, is read at the next scale as before.
    strings = read_between(strings) or strings
    loops = strings.loops
    if loops is None or (strings.photo.scale > 1 and mostly_guessed(loops)):
        # Strings too thin for the reduced decode (a camera far above a wide board), or
        # a loop lost or mostly guessed at it (a thin cord of nearly the table's hue
        # keeps its colour only on its lit side, too thin to count at half size): read
        # the photo again at twice the resolution, and keep the reading that saw more
        # of its worst-seen loop. Only the board's part of the photo is read again: such
        # a board is small in the photo, and the whole of it at full size costs seconds
        # and more than a gigabyte.
        finer_side, box = next_working_side(strings.photo), board_box(strings)
        if finer_pixels(strings.photo, box) > MAX_FINER_PIXELS:
            # Too large to read finer (in a photo of over 13 megapixels): the first
            # reading is the last.
            if strings.error is not None:
                raise strings.error
            if loops is None:
                strings = trace_strings(strings, last_try=True)
        else:
            try:
                # At full size, large blocks are given back as they are freed: with
                # the heap kept whole, such readings peaked up to 100 MB higher
                # (230191: 854 against 745 MB).
                with memory.blocks_given_back():
                    finer = read_strings(finer_side, last_try=True, box=box,
                                         pawn_width=first_pawn_width(strings))
            except ReadError:
                if loops is None:
                    raise
            else:
                if less_guessed(finer.loops, loops):
                    strings = finer
    photo, separation, pawns = strings.photo, strings.separation, strings.pawns
    loops = strings.loops
    if loops is None:  # not reached: the last try traces the loops or raises
        raise ReadError("the loops could not be traced")
    # Each stage keeps the output of the reading that is used.
    stages.update(load=photo, separate=separation, trace=loops, creatures=pawns)
    stages["pixels" if method == "net" else "colour"] = strings.masks
    look_at_foot: Callable[[SeenPawn], Point | None] | None = None
    if strings.detections is not None:
        seen, traced, marks = pawns, loops, strings.detections
        stages["detect"] = marks
        width = separation.string_width

        looked: dict[tuple[str, str, Point], Detection] = {}

        def look_again_at(mark: Detection) -> Detection:
            # Remembered: the same place may be asked about by more than one step (a
            # faint ghost mark by combine, then as a field's centre), and the eight
            # views' mean hangs only on the kind, the colour and the place.
            key = (mark.kind, mark.colour, mark.xy)
            if key not in looked:
                looked[key] = look_again(photo.rgb, mark, marks.pawn_width)
            return looked[key]

        def foot_of_mark(mark: Detection) -> Point | None:
            return foot_in_views(photo.rgb, mark, marks.pawn_width)

        def foot_in_the_views(pawn: SeenPawn) -> Point | None:
            return foot_of_mark(Detection(pawn.kind, pawn.colour, pawn.foot, pawn.confidence))

        look_at_foot = foot_in_the_views

        table_hue = (
            strings.masks.table_hue_colour if isinstance(strings.masks, ColourMasks) else None
        )

        def demon_odds_here(places: list[Point]) -> list[float]:
            return [float(o) for o in demon_odds(photo.rgb, places, marks.pawn_width)]

        pawns = stage(
            "combine",
            lambda: combine_pawns(
                seen,
                marks,
                look_again_at,
                table_hue_colour=table_hue,
                loops=traced,
                demon_odds=demon_odds_here,
            ),
        )
        kept = pawns

        def knots() -> Loops:
            # The tracer's knots are looked at at the network's own size too: a large
            # knot may be marked only so (knots_at_training_size).
            tracers = [loop.knot for loop in traced.loops.values() if loop.knot is not None]
            native = knots_at_training_size(photo.rgb, tracers, marks.pawn_width)
            both = marks.with_knots(native, SAME_PAWN * marks.pawn_width)
            return combine_knots(
                traced,
                both,
                width,
                kept,
                look_again_at,
                lambda places: knot_odds(photo.rgb, places, marks.pawn_width).tolist(),
                lambda places: turned_knot_odds(photo.rgb, places, marks.pawn_width).tolist(),
            )

        loops = stage("knots", knots)
    traced_loops = loops
    cords = strings.detections.cords if strings.detections is not None else None
    closer: Callable[[tuple[float, float], float], CordsNear] | None = None
    if strings.detections is not None and strings.detections.cords:
        looked_for = strings.detections.pawn_width

        def closer(xy: tuple[float, float], reach: float) -> CordsNear:
            return cords_near(photo.rgb, xy, reach, looked_for)

    loops = stage(
        "settle",
        lambda: settle_crossings(
            traced_loops,
            separation.string_width,
            pawns.pawn_width,
            cords,
            closer,
            pawn_feet=_feet_by_colour(pawns),
        ),
    )
    board = stage("arrange", lambda: arrange(loops))
    # One geometry for the stages that locate points on the board (its caches of rays
    # and sectors are filled once).
    geometry = BoardGeometry(board)
    if strings.detections is not None:

        def ghost_odds_here(places: list[Point]) -> list[float]:
            return [float(o) for o in ghost_odds(photo.rgb, places, marks.pawn_width)]

        # Only now are the fields known: a ghost stands in a field's centre.
        combined = pawns

        def ghosts() -> Pawns:
            marked = add_centred_ghosts(
                geometry, combined, marks, look_again_at, seen, ghost_odds_here
            )
            centred = add_checked_centre_ghosts(
                geometry, marked, marks, look_again_at, ghost_odds_here
            )
            return add_ghosts_behind_pawns(
                geometry,
                centred,
                marks,
                look_again_at,
                ghost_odds_here,
                foot_of_mark,
            )

        pawns = stage("ghosts", ghosts)
        with_ghosts = pawns

        def demons() -> Pawns:
            cornered = add_cornered_demons(
                geometry,
                with_ghosts,
                marks,
                look_again_at,
                table_hue_colour=table_hue,
                demon_odds=demon_odds_here,
                ghost_odds=ghost_odds_here,
            )
            def turned_ghost_odds_here(places: list[Point]) -> list[float]:
                return [float(o) for o in turned_ghost_odds(photo.rgb, places, marks.pawn_width)]

            # After the demons: a ghost seen only faintly may be a demon the checkers
            # turn back into one (1390199), not a ghost to take away.
            checked = without_faint_ghosts_checked_away(cornered, turned_ghost_odds_here)
            checked = faint_demons_checked_as_ghosts(checked, turned_ghost_odds_here)
            if not isinstance(strings.masks, ColourMasks):
                # The shares it weighs were measured on the colour rules' labels, not
                # on the pixel classifier's classes.
                return checked
            return recoloured_by_pixels(checked, marks, strings.masks.labels, table_hue)

        pawns = stage("demons", demons)
    if method == "classic+net":
        first_look = pawns
        pawns = stage(
            "second look", lambda: add_missed_pawns(first_look, photo, loops, separation)
        )
    def measure_widths(feet: Sequence[Point]) -> list[float]:
        ratios = width_ratios(photo.rgb, feet, pawns.pawn_width)
        return [float(ratio) * pawns.pawn_width for ratio in ratios]

    # The sizer is the detector's companion: the colour rules alone read without it.
    measure = measure_widths if strings.detections is not None else None
    located = stage(
        "place", lambda: place(geometry, pawns, strings.pawns.pawn_width, measure, look_at_foot)
    )
    report = stage(
        "report", lambda: make_report(board, located, pawns, loops, separation, photo, cords)
    )
    return Reading(report=report, photo=photo, stages=stages, timings=timings)


@dataclass(frozen=True)
class _Strings:
    """What one reading at a working resolution found before the board is arranged."""

    photo: Photo
    masks: ColourMasks | PixelClasses  # PixelClasses for the learned reader
    separation: Separation
    pawns: Pawns
    detections: Detections | None
    loops: Loops | None
    error: ReadError | None = None  # why the loops are None, where a trace failed


def finer_pixels(
    photo: Photo, box: tuple[float, float, float, float] | None, scale: float | None = None
) -> float:
    """How many working pixels reading ``box`` of the photo (the whole photo if None)
    at ``scale`` (by default the next finer one) would hold."""
    width, height = float(photo.size[0]), float(photo.size[1])
    if box is not None:
        width = min(box[2], width) - max(box[0], 0.0)
        height = min(box[3], height) - max(box[1], 0.0)
    scale = next_scale(photo.scale) if scale is None else scale
    return max(width, 0.0) * max(height, 0.0) / scale**2


def next_scale(scale: float) -> int:
    """The next finer of the decoder's scales after ``scale`` (half of it; 1 at most)."""
    return max(int(scale) // 2, 1)


def between_scale(strings: _Strings) -> float | None:
    """The scale between a first reading's and the next finer one at which its strings,
    read too thin to trace, would be :data:`WIDE_ENOUGH_STRING` wide; None where they
    were traced, where a loop was lost rather than too thin, or where that scale is
    within :data:`MIN_SCALE_STEP` of the next finer one (read there at once).

    A string's width in working pixels is inversely proportional to the scale, so the
    width measured at the first scale tells the scale that makes it wide enough.
    """
    # Strings measured that thin at a scale above 1 are never traced (read_strings), so
    # the width alone tells this case from a loop lost.
    width, scale = strings.separation.measured_width, strings.photo.scale
    if scale <= 1 or not 0 < width < MIN_STRING_WIDTH:
        return None
    between = scale * width / WIDE_ENOUGH_STRING
    return between if between >= next_scale(scale) * MIN_SCALE_STEP else None


def first_pawn_width(strings: _Strings) -> float | None:
    """The pawn width the detector settled on in a reading (in the original photo's
    pixels), for a reading again at a finer resolution to start from, where it is not
    the colour rules' width; else (or without the detector) None.

    Where the detector's counts or the sizer mended the colour rules' width
    (:func:`vision.detect.detect_checking_size`, :func:`vision.detect.detect_at_measured_width`),
    their blobs are the wrong size for these pawns at the finer resolution too
    (1470173: 0.54 of the truth's width at half size, mended to 0.97; 0.83 at full
    size, too near for the sizer to mend as it then was, where tall ghosts were marked
    at their base and their head, 0.7 widths apart, and counted twice).
    """
    if strings.detections is None:
        return None
    settled = strings.detections.pawn_width
    if math.isclose(settled, strings.pawns.pawn_width):
        return None
    return settled * strings.photo.scale


def next_working_side(photo: Photo) -> int:
    """The ``min_working_side`` that decodes ``photo`` at the next finer scale (half
    its reduction: 2 from 4, 1 from 2)."""
    return max(photo.size) // next_scale(photo.scale)


def board_box(strings: _Strings) -> tuple[float, float, float, float] | None:
    """The part of the photo (original pixels) that holds every coloured string and
    pawn found (by the colour rules or the detector), with BOX_MARGIN_PAWNS pawn widths
    round it; where a cord the detector marks (at least CORD_SURE, in a connected part
    of at least BOX_CORD_AREA_PAWNS pawn widths squared) runs out of that box, grown to
    hold it with the same margin. None when no string or pawn was found (the whole
    photo is then read)."""
    found = strings.separation.pawn_mask.copy()
    for mask in strings.separation.strings.values():
        found |= mask
    cords = None
    if strings.detections is not None:
        # The detector finds the pawns the colour rules miss (a green pawn on green
        # felt), also those standing away from the board.
        height, width = found.shape
        for mark in strings.detections.pawns(min_score=BOX_MARK):
            x, y = min(max(int(mark.xy[0]), 0), width - 1), min(max(int(mark.xy[1]), 0), height - 1)
            found[y, x] = True
        min_area = BOX_CORD_AREA_PAWNS * strings.pawns.pawn_width**2
        cords = np.zeros_like(found)
        for cord in strings.detections.cords.values():
            cords |= _large_parts(cord >= CORD_SURE, min_area)
    margin = int(math.ceil(BOX_MARGIN_PAWNS * strings.pawns.pawn_width))
    box = bounding_box(found, margin)
    if cords is not None and box is not None:
        # A cord the colour rules hardly label (dark green in a long shadow) may run
        # out of their box: cut off, its loop is guessed across the cut (630156). Only
        # then is the box grown, and only on the sides the cord runs out of: the finer
        # reading's table model and the detector's tiles depend on the box, and a
        # board read well is not to be read otherwise.
        outside = cords.copy()
        outside[box] = False
        if outside.any():
            box = bounding_box(found | outside, margin)
    if box is None:
        return None
    rows, columns = box
    (left, top), (right, bottom) = strings.photo.to_original(
        [(columns.start - 0.5, rows.start - 0.5), (columns.stop - 0.5, rows.stop - 0.5)]
    )
    return (left, top, right, bottom)


def _large_parts(mask: NDArray[np.bool_], min_area: float) -> NDArray[np.bool_]:
    """The connected parts of ``mask`` of at least ``min_area`` pixels."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    large = stats[:, cv2.CC_STAT_AREA] >= min_area
    large[0] = False  # the background
    kept: NDArray[np.bool_] = large[labels]
    return kept


def mostly_guessed(loops: Loops) -> bool:
    """Whether a loop was mostly bridged, or bridged across a long stretch at once."""
    return least_seen(loops) < MIN_SEEN_SHARE or any(
        longest_bridge_share(loop) > MAX_BRIDGE_SHARE for loop in loops.loops.values()
    )


def least_seen(loops: Loops) -> float:
    """The share seen (not bridged) of the loop of which least was seen."""
    return min((loop.seen for loop in loops.loops.values()), default=0.0)


def _feet_by_colour(pawns: Pawns) -> dict[str, NDArray[np.float64]]:
    """The feet of ``pawns``, by colour, each as an (N, 2) array."""
    feet: dict[str, list[Point]] = {}
    for pawn in pawns.pawns:
        feet.setdefault(pawn.colour, []).append(pawn.foot)
    return {colour: np.asarray(points, float).reshape(-1, 2) for colour, points in feet.items()}


def longest_bridge_share(loop: Loop) -> float:
    """The share of the loop's length that its longest bridge spans."""
    return max((math.dist(a, b) for a, b in loop.bridges), default=0.0) / max(loop.length, 1e-9)


def less_guessed(new: Loops | None, old: Loops | None) -> bool:
    """Whether the ``new`` loops saw more of their worst-seen loop than the ``old``
    ones; None is no reading at all."""
    if new is None or old is None:
        return new is not None
    return least_seen(new) > least_seen(old)


def arrange(loops: Loops) -> Board:
    """Crossings, fields, corners and knots of the traced loops (working pixels)."""
    lines = {colour: [tuple(p) for p in loop.points] for colour, loop in loops.loops.items()}
    knots = {colour: loop.knot for colour, loop in loops.loops.items()}
    try:
        return build_board(lines, knots)
    except LayoutError as error:
        raise ReadError(f"the traced strings do not form a legal layout: {error}") from error


def place(
    geometry: BoardGeometry,
    pawns: Pawns,
    typical_width: float | None = None,
    measure_widths: Callable[[Sequence[Point]], Sequence[float]] | None = None,
    foot_again: Callable[[SeenPawn], Point | None] | None = None,
) -> list[Location]:
    """Each pawn's field and corner, through the engine's sector-based locator.

    First whether it is on the board, with the photo's width: with ``measure_widths``
    (the widths of the pawns standing at some feet, in the working photo's pixels), a
    creature of the outer field, or off the board, that stands OWN_SIZE_REACH of the
    photo's pawn radii from every string is judged on or off the board with its own
    width (:func:`off_board_by_own_width`).

    Then where on the board: with ``measure_widths``, every pawn is measured, and each
    pawn on the board is located with the width the table's plane gives at its foot
    (:func:`vision.pawn_size.widths_on_table`; the photo's width where no plane is
    fitted, as without ``measure_widths``). A tilted camera shows near pawns up to 1.3
    times wider than far ones, and the locator weighs how a pawn fits a corner by its
    radius: a demon put down loosely between two corners went to the one the photo's
    one width favoured.

    Then, with ``foot_again`` (the foot the eight views give a pawn, or None where they
    do not mark it: :func:`vision.detect.foot_in_views`), a demon the locator finds
    between two corners is located again at that foot, with the same width. Between
    two corners a few hundredths of a pawn width decide, about what one look's foot is
    off; the views' mean is a fifth nearer. Only such demons are looked at again, and
    only where a foot FOOT_SHIFT pawn widths away would stand elsewhere: eight more
    looks cost 30-100 ms a pawn. A refined foot in no corner (off the board, or away
    from every corner) or on a string is not taken: the views settle which corner, not
    whether.

    Then a demon the locator finds away from every corner is located again with a
    larger pawn width: PAWN_WIDTH_DOUBT times the width it was located with, or
    OWN_WIDTH_DOUBT times its own where that is more (:func:`vision.combine.own_width`:
    as much larger as its blob is wider than the colour rules' width of one pawn,
    ``typical_width``, the photo's width when not given; up to MOST_OWN_WIDTH times the
    photo's). If it then stands in a corner of its own colour, it is counted there
    (ambiguity EDGE_OF_REACH): the width read may be too small (pawns partly hidden,
    one width for the photo under perspective), and a demon put down loosely in its
    corner, near the edge of the corner's reach, is otherwise read as a violation the
    table does not show. Demons really away from the corners stand in a field's middle,
    beyond that doubt: of the 58 such demons read in three generated sets (630 photos),
    the first would be put into a corner of its colour with a width 1.14 times the one
    read, the second at 1.22; of the 16 demons read away from their corners there, 11
    are put back with 1.1 and 13 with 1.12. On a fourth set made after that choice, 2
    boards were won and 1 lost (a planted off-corner demon, its pawn width read 1.11
    times the truth's, within reach at 1.06). Without the doubt, 23 boards fewer are
    read exactly over fourteen sets (2940 photos, forty-fourth session). Not where
    another demon stands in that corner (:func:`_out_of_corners_held`).

    Then a demon the foot cannot place between corners, put in a corner that then
    holds more demons than it has room for, goes to a corner alike to it that has room
    and is of its colour (:func:`_into_free_alike_corners`); only after that is a demon
    counted in a corner within the doubt sent back out of one held
    (:func:`_out_of_corners_held`).
    """
    feet = [Foot(p.kind, p.colour, p.foot) for p in pawns.pawns]
    radius = pawns.pawn_width / 2
    typical = pawns.pawn_width if typical_width is None else typical_width

    def doubted_radius(pawn: SeenPawn, located_with: float) -> float:
        own = min(own_width(pawn, pawns.pawn_width, typical), MOST_OWN_WIDTH * pawns.pawn_width)
        return max(PAWN_WIDTH_DOUBT * located_with, OWN_WIDTH_DOUBT * own / 2)

    try:
        located = locate_in_photo(geometry, feet, radius)
        radii = [radius] * len(feet)
        if measure_widths is not None:
            # Every pawn measured once, for the table's plane and for the creatures
            # whose own width decides whether they are on the board (a foot's width
            # hangs on the foot alone).
            places = [pawn.foot for pawn in pawns.pawns]
            measured = dict(zip(places, measure_widths(places), strict=True))
            located = off_board_by_own_width(
                geometry, pawns, located, lambda at: [measured[xy] for xy in at]
            )
            on_table = _widths_on_table(places, [measured[xy] for xy in places])
            if on_table is not None:
                radii = [width / 2 for width in on_table]
                located = [
                    location
                    if location.creature.off_board
                    else _on_the_board_with(geometry, foot, location, plane_radius)
                    for foot, location, plane_radius in zip(feet, located, radii, strict=True)
                ]
        if foot_again is not None:
            for i, (pawn, location) in enumerate(zip(pawns.pawns, located, strict=True)):
                if pawn.kind != DEMON or location.ambiguity != BETWEEN_CORNERS_AMBIGUITY:
                    continue
                if not _moved_by_a_shift(geometry, feet[i], location, radii[i]):
                    continue
                xy = foot_again(pawn)
                if xy is None:
                    continue
                foot = replace(feet[i], xy=xy)
                [again] = locate_in_photo(geometry, [foot], radii[i])
                # The views settle which corner, not whether it is in one: a foot they
                # put in no corner or on a string keeps the one look's.
                if again.crossing is not None and again.ambiguity != ON_STRING_AMBIGUITY:
                    feet[i], located[i] = foot, again
        doubted = [
            _own_corner_within_doubt(geometry, foot, location, doubted_radius(pawn, r))
            if location.ambiguity == FAR_FROM_CORNERS_AMBIGUITY
            else location
            for pawn, foot, location, r in zip(pawns.pawns, feet, located, radii, strict=True)
        ]
        # A demon between corners first makes room where it can: the corner it leaves
        # may be the one a demon counted there within the doubt stands in (1550146).
        roomier = _into_free_alike_corners(geometry, doubted)
        return _out_of_corners_held(geometry.board, roomier, located)
    except EngineError as error:
        raise ReadError(f"cannot place the pawns on the board: {error}") from error


def locate_in_photo(
    geometry: BoardGeometry, feet: Sequence[Foot], radius: float
) -> list[Location]:
    """Where ``feet`` of pawns of ``radius`` stand, as the engine's locator says, but
    with each demon it finds between corners (BETWEEN_CORNERS_AMBIGUITY) put in the
    corner, of those alike, whose snug spot (for a pawn of ``radius``) is nearest its
    foot (:func:`_nearest_snug_corner`).

    The locator weighs how snugly a foot fits each corner by its angles to the strings
    there: a narrow corner (a wedge of a small field, a lens) holds its pawn deep in,
    about as near the next crossing, where the angles barely tell the two corners
    apart, and strings read a little off swap them. A player puts a demon in such a
    corner where it stands snug, as near the crossing as the corner lets it: often
    nearer the other crossing, but at that corner's snug spot (1580027).
    Census (eighty-ninth session): of the 253 demons read between corners in 1000
    generated photos (1540000-1580000), the locator's corner is the truth's for 218;
    the corner of the nearest snug spot of the demon's colour for 234 (27 mended, 11
    wronged), and for 241 where the foot must stand within SNUG_SPOT_REACH (0.5) pawn
    radii of that spot, else the locator's stands (27 change: 24 mended, 1 wronged).
    The demons the nearest spot alone wrongs but one stand loosely, 0.55 radii or more
    from every snug spot; those it mends, but three, within 0.46.

    The spots are those of a pawn as wide as the one located (in the reader, the width
    the table's plane has at the foot): the snug spot of a narrow corner slides along
    it as the pawn's width changes, and the pawn's own width is the better guess. With
    the photo's one width instead, the 205 photos of the census read as well (6166
    slots right of 6193 against 6167; 6139 before) and a fresh set worse (1590000: 2
    slots mended and 2 wronged against 3 mended); dev_0016's blue demon stays right
    with it, which the plane's width, narrow there as the sizer measures the dev
    photos' pawns (0.80-0.96 of the truth's), puts at the snug spot of the narrow
    corner beside it.
    """
    located = geometry.locate(feet, pawn_radius=radius)
    return [
        _nearest_snug_corner(geometry, location, radius)
        if location.creature.kind == DEMON and location.ambiguity == BETWEEN_CORNERS_AMBIGUITY
        else location
        for location in located
    ]


def _moved_by_a_shift(
    geometry: BoardGeometry, foot: Foot, location: Location, radius: float
) -> bool:
    """Whether a pawn of ``radius`` standing up to FOOT_SHIFT pawn widths from ``foot``
    (in 16 places round it) would stand elsewhere than ``location``."""
    reach = FOOT_SHIFT * 2 * radius
    x, y = foot.xy
    shifted = [
        replace(foot, xy=(x + r * math.cos(a), y + r * math.sin(a)))
        for r in (reach / 2, reach)
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    where = (location.field, location.crossing)
    return any((s.field, s.crossing) != where for s in locate_in_photo(geometry, shifted, radius))


def _widths_on_table(feet: Sequence[Point], widths: Sequence[float]) -> list[float] | None:
    """:func:`vision.pawn_size.widths_on_table`, or None where a width measured is no
    positive number (the sizer's, which never gives one, or another measure's)."""
    if not all(math.isfinite(width) and width > 0 for width in widths):
        return None
    on_table = widths_on_table(feet, widths)
    return None if on_table is None else [float(width) for width in on_table]


def _on_the_board_with(
    geometry: BoardGeometry, foot: Foot, location: Location, radius: float
) -> Location:
    """Where a creature judged on the board stands as a pawn of ``radius``; whether it
    is on the board stays as ``location`` judged it (with its own margin)."""
    [again] = locate_in_photo(geometry, [foot], radius)
    return location if again.creature.off_board else again


def off_board_by_own_width(
    geometry: BoardGeometry,
    pawns: Pawns,
    located: Sequence[Location],
    measure_widths: Callable[[Sequence[Point]], Sequence[float]],
) -> list[Location]:
    """``located``, with a creature judged on or off the board by its own width where
    that width clearly puts it on the other side of the board's edge.

    The creatures looked at are those of the outer field, or off the board, that stand
    from ``OWN_SIZE_REACH[0]`` to ``OWN_SIZE_REACH[1]`` of the photo's pawn radii from
    every string. Each is located again as a pawn OWN_SIZE_MARGIN times narrower than
    its own width (to be put on the board) or wider (to be put off it); a width that is
    no positive finite number, or more than :data:`MOST_SIZED_WIDTH` times the photo's,
    leaves its creature as it was.

    Parameters
    ----------
    geometry : BoardGeometry
    pawns : Pawns
        The pawns, in the order of ``located``; ``pawn_width`` is the photo's.
    located : sequence of Location
        Where each pawn stands with the photo's width.
    measure_widths : callable
        The widths of the pawns standing at some feet (the sizer's, through
        :func:`vision.pawn_size.width_ratios`), in the working photo's pixels, one per
        foot.

    Returns
    -------
    list of Location

    Raises
    ------
    ValueError
        When ``located`` and ``pawns`` differ in length, or ``measure_widths`` does not
        give one width per foot.
    EngineError
        When the engine cannot locate a foot (see
        :meth:`engine.placement.BoardGeometry.locate`).
    """
    if len(located) != len(pawns.pawns):
        raise ValueError(f"{len(located)} locations for {len(pawns.pawns)} pawns")
    radius = pawns.pawn_width / 2
    outer = geometry.board.outer_field.id
    nearest, farthest = OWN_SIZE_REACH
    doubtful = [
        i
        for i, (pawn, location) in enumerate(zip(pawns.pawns, located, strict=True))
        if (location.creature.off_board or location.field == outer)
        and nearest * radius <= geometry.distance_to_lines(pawn.foot) <= farthest * radius
    ]
    if not doubtful:
        return list(located)
    widths = list(measure_widths([pawns.pawns[i].foot for i in doubtful]))
    if len(widths) != len(doubtful):
        raise ValueError(f"expected {len(doubtful)} widths, one per foot, got {len(widths)}")
    out = list(located)
    for i, width in zip(doubtful, widths, strict=True):
        if not (math.isfinite(width) and 0 < width <= MOST_SIZED_WIDTH * pawns.pawn_width):
            continue
        pawn, off_board = pawns.pawns[i], located[i].creature.off_board
        # Off the board only if it would be so as a wider pawn, on it only as a narrower
        # one: the sizer's width is one pawn's, and a few per cent off.
        own = width / 2 * (1 / OWN_SIZE_MARGIN if off_board else OWN_SIZE_MARGIN)
        [again] = locate_in_photo(geometry, [Foot(pawn.kind, pawn.colour, pawn.foot)], own)
        if again.creature.off_board != off_board:
            out[i] = again
    return out


def _own_corner_within_doubt(
    geometry: BoardGeometry, foot: Foot, location: Location, radius: float
) -> Location:
    """``location`` of a demon away from every corner, or the corner of its own colour
    it stands in with a pawn of ``radius`` (in the field it stands in)."""
    [wider] = locate_in_photo(geometry, [foot], radius)
    if wider.crossing is None or foot.colour not in geometry.board.crossings[wider.crossing].lines:
        return location
    if wider.field != location.field:  # on a string with the wider pawn: not in its field
        return location
    return replace(wider, ambiguity=EDGE_OF_REACH, alternatives=())


def _into_free_alike_corners(geometry: BoardGeometry, located: list[Location]) -> list[Location]:
    """``located``, each demon placed between corners (BETWEEN_CORNERS_AMBIGUITY) in a
    corner that holds more demons than it has room for (``board.corner_capacity``) moved
    to the first of its alike corners (``alternatives``, best fit first) that has room
    and lies at a crossing of its colour; its alternatives then lead with the corner it
    left.

    The foot cannot tell those corners apart (a narrow corner holds its pawn deep in,
    about as near the next crossing), and the players put one demon in a corner
    (RULES): where the photo cannot say, the reading that breaks no rule is the
    likelier, and the other would show a violation the table does not (1540006,
    1540041, 1570173: a demon of a narrow corner read in its neighbour's). A demon
    still counts as doubtful there (its warning and confidence stay). The demons are
    taken once each, farthest from their crossing first (of two such demons in one
    corner the farther moves: the nearer is the surer of it), and a demon counted in a
    corner within the width's doubt (EDGE_OF_REACH) holds it as any other. A demon
    with no such corner stays (in the corner the rules then find it breaking one), and
    so does one in a corner it does not overfill.
    """
    board = geometry.board
    held = Counter(_corner(location) for location in located if location.creature.kind == DEMON)
    out = list(located)
    doubtful = [
        i
        for i, location in enumerate(located)
        if location.creature.kind == DEMON and location.ambiguity == BETWEEN_CORNERS_AMBIGUITY
    ]
    for i in sorted(doubtful, key=lambda i: -located[i].distance):
        location = located[i]
        at = _corner(location)
        if at is None or held[at] <= board.corner_capacity[at]:
            continue
        colour = location.creature.colour
        roomy = [
            (field, crossing)
            for field, crossing in location.alternatives
            if held[(field, crossing)] < board.corner_capacity[(field, crossing)]
            and colour in board.crossings[crossing].lines
        ]
        if not roomy:
            continue
        field, crossing = roomy[0]
        held[at] -= 1
        held[(field, crossing)] += 1
        # Of a pinched corner's two sectors, the one the foot lies in, if either.
        sectors = geometry.corner_sectors(field, crossing)
        foot = location.creature.xy
        angular = None if foot is None else geometry.sector_at(crossing, foot)
        sector = angular if angular in sectors else sectors[0]
        out[i] = _moved_to(geometry.board, location, (field, crossing), sector)
    return out


def _nearest_snug_corner(geometry: BoardGeometry, location: Location, radius: float) -> Location:
    """``location`` of a demon placed between corners, moved to the corner, of those
    alike (its own and ``alternatives``) at a crossing of its colour, whose snug spot
    (where a pawn of ``radius`` stands snug in it: :meth:`BoardGeometry.corner_spots`)
    is nearest its foot, where that is within SNUG_SPOT_REACH pawn radii of it; of all
    of them where none is of its colour."""
    here, foot = _corner(location), location.creature.xy
    if here is None or foot is None:
        return location
    colour = location.creature.colour
    corners = [here, *location.alternatives]
    own = [c for c in corners if colour in geometry.board.crossings[c[1]].lines] or corners
    spots = [
        (math.dist(spot, foot), corner, sector)
        for corner in own
        for sector, spot in geometry.corner_spots(*corner, CORNER_AIR * radius)
    ]
    if not spots:
        return location
    distance, nearest, sector = min(spots)
    if nearest == here or distance > SNUG_SPOT_REACH * radius:
        return location
    return _moved_to(geometry.board, location, nearest, sector)


def _moved_to(
    board: Board, location: Location, corner: tuple[int, int], sector: int | None
) -> Location:
    """``location`` of a demon placed between corners, put in ``corner`` (one of its
    ``alternatives``) instead; its alternatives then lead with the corner it left."""
    field, crossing = corner
    left = _corner(location)
    others = tuple(c for c in location.alternatives if c != corner)
    foot = location.creature.xy
    return replace(
        location,
        creature=replace(location.creature, field=field, crossing=crossing),
        field=field,
        crossing=crossing,
        sector=sector,
        distance=math.inf if foot is None else math.dist(foot, board.crossings[crossing].xy),
        alternatives=others if left is None else (left, *others),
    )


def _corner(location: Location) -> tuple[int, int] | None:
    """(field, crossing) of the corner a location is in; None outside every corner."""
    if location.field is None or location.crossing is None:
        return None
    return (location.field, location.crossing)


def _out_of_corners_held(
    board: Board, doubted: list[Location], located: list[Location]
) -> list[Location]:
    """``doubted`` (every creature's location, some demons counted in a corner of their
    colour only within the width's doubt: EDGE_OF_REACH), each such demon back where
    ``located`` has it (away from every corner) where that corner then holds more demons
    than it has room for (``board.corner_capacity``, as the engine's legality counts
    them: a field may have two corners at one crossing).

    A corner holds one demon (RULES). Either way the board breaks a rule, and the doubt
    would swap the violation the width read shows (a demon in no corner) for one it does
    not (two demons in one corner; 1480068: a yellow demon planted off its corner, 1.6
    pawn widths from a yellow demon in it). Two demons counted in one corner only within
    the doubt both go back, as the width read has them.
    """
    held = Counter(_corner(location) for location in doubted if location.creature.kind == DEMON)

    def overfull(location: Location) -> bool:
        at = _corner(location)
        return at is not None and held[at] > board.corner_capacity[at]

    return [
        before if location.ambiguity == EDGE_OF_REACH and overfull(location) else location
        for location, before in zip(doubted, located, strict=True)
    ]


def make_report(
    board: Board,
    located: Sequence[Location],
    pawns: Pawns,
    loops: Loops,
    separation: Separation,
    photo: Photo,
    cords: Mapping[str, NDArray[np.uint8]] | None = None,
) -> dict[str, Any]:
    """The CONTRACT report in the original photo's pixels, with confidences and warnings
    (``cords``: the detector's cord maps, which doubt the crossings of a faint cord)."""
    board = board.with_creatures(tuple(location.creature for location in located))
    to_photo = photo.to_original
    report = board_to_report(board.transformed(to_photo), image_size=photo.size)
    width = separation.string_width
    for crossing in report["crossings"]:
        confidence = _crossing_confidence(board, crossing["id"], loops, width)
        if cords and faint_cord_at(board.crossings[crossing["id"]], loops, cords, width):
            confidence = min(confidence, FAINT_CROSSING)
        crossing["confidence"] = confidence
    warnings = list(loops.warnings)
    for colour, line in report["lines"].items():
        mark = loops.loops[colour].knot_mark
        if line.get("knot") is None or mark is None:
            continue
        sureness = min(1.0, mark / SURE_KNOT_MARK)
        line["knot_confidence"] = round(sureness, 2)
        if sureness < LOW_CONFIDENCE:
            warnings.append(
                f"the {colour} knot is unsure (marked {mark:.2f}): check where it lies"
            )
    warnings += [remark.in_photo(to_photo) for remark in pawns.warnings]
    for entry, location, pawn in zip(report["creatures"], located, pawns.pawns, strict=True):
        confidence = pawn.confidence
        moot = False
        if location.ambiguity == BETWEEN_CORNERS_AMBIGUITY:
            entry["corners_alike"] = [list(corner) for corner in location.alternatives]
            moot = moves_change_nothing(board, entry["id"], location.alternatives)
        if moot:
            confidence = min(confidence, MOOT_CONFIDENCE)
        elif location.ambiguity is not None:
            confidence *= AMBIGUOUS_PLACE
            warnings.append(place_warning(entry["id"], pawn.colour, pawn.kind, location.ambiguity))
        entry["confidence"] = round(confidence, 2)
    report["warnings"] = warnings
    return report


def faint_cord_at(
    crossing: Crossing,
    loops: Loops,
    cords: Mapping[str, NDArray[np.uint8]],
    width: float,
) -> bool:
    """Whether the cord map shows either loop of ``crossing`` faintly about it (a mean
    under :data:`FAINT_CORD` along the loop within :data:`CORD_REACH_WIDTHS` string
    widths); a colour without a cord map says nothing."""
    for colour in crossing.lines:
        cord = cords.get(colour)
        if cord is None:
            continue
        points = np.asarray(loops.loops[colour].points, dtype=float)
        near = points[np.hypot(*(points - crossing.xy).T) <= CORD_REACH_WIDTHS * width]
        if not len(near):
            continue
        xs = np.clip(np.round(near[:, 0]).astype(int), 0, cord.shape[1] - 1)
        ys = np.clip(np.round(near[:, 1]).astype(int), 0, cord.shape[0] - 1)
        if float(cord[ys, xs].mean()) < FAINT_CORD:
            return True
    return False


def _crossing_confidence(board: Board, crossing_id: int, loops: Loops, width: float) -> float:
    """Lower when a long bridged gap of either line passes near the crossing."""
    crossing = board.crossings[crossing_id]
    confidence = 1.0
    for colour in crossing.lines:
        for a, b in loops.loops[colour].bridges:
            length = math.dist(a, b)
            middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            if length > 5 * width and math.dist(middle, crossing.xy) < length:
                confidence = min(confidence, 0.6)
    return confidence


# --- debug drawings -----------------------------------------------------------------


def draw_stages(stages: Mapping[str, Any]) -> dict[str, NDArray[np.uint8]]:
    """One RGB picture per stage that produced an output, by stage name.

    Parameters
    ----------
    stages : mapping
        The stages' outputs by stage name: :attr:`Reading.stages`, or for a photo that
        was refused, :attr:`vision.errors.ReadError.stages` (the stages that ran; none
        is drawn where the photo was not loaded).

    Returns
    -------
    dict of str to (H, W, 3) uint8
    """
    photo: Photo | None = stages.get("load")
    if photo is None:
        return {}
    pictures: dict[str, NDArray[np.uint8]] = {"load": photo.rgb}
    masks: ColourMasks | None = stages.get("colour")
    if masks is not None:
        pictures["colour"] = draw_labels(masks)
    classes: PixelClasses | None = stages.get("pixels")
    if classes is not None:
        pictures["pixels"] = draw_classes(classes)
    separation: Separation | None = stages.get("separate")
    if separation is not None:
        pictures["separate"] = _draw_separation(photo.rgb.shape, separation)
    # The loops with the knots the reading used, and how their crossings were settled.
    traced: Loops | None = stages.get("knots", stages.get("trace"))
    loops: Loops | None = stages.get("settle", traced)
    if loops is not None:
        pictures["trace"] = _draw_loops(photo.rgb, loops)
    if traced is not None and loops is not None:
        pictures["settle"] = draw_settled(photo.rgb, traced, loops)
    detections: Detections | None = stages.get("detect")
    if detections is not None:
        pictures["detect"] = draw_detections(photo.rgb, detections)
    # The pawns the reading used: the classic ones, as the detector checked them or
    # with those the second look added.
    pawns: Pawns | None = next(
        (
            stages[name]
            for name in ("combine", "second look", "creatures", "net_pawns")
            if name in stages
        ),
        None,
    )
    if pawns is not None and loops is not None:
        pictures["creatures"] = _draw_pawns(pictures["trace"], pawns)
    return pictures


def _draw_separation(shape: tuple[int, ...], separation: Separation) -> NDArray[np.uint8]:
    picture = np.zeros((shape[0], shape[1], 3), np.uint8)
    for colour, mask in separation.strings.items():
        picture[mask] = LABEL_RGB[colour]
    for blob in separation.pawns:
        x, y, w, h = blob.box
        region = picture[y : y + h, x : x + w]
        region[blob.mask] = (np.array(LABEL_RGB[blob.colour]) * 0.55).astype(np.uint8)
        cv2.rectangle(picture, (x, y), (x + w, y + h), (255, 0, 255), 1)
    return picture


def _draw_loops(rgb: NDArray[np.uint8], loops: Loops) -> NDArray[np.uint8]:
    picture = (rgb * 0.45).astype(np.uint8)
    for colour, loop in loops.loops.items():
        cv2.polylines(picture, [loop.points.round().astype(np.int32)], True, LABEL_RGB[colour], 2)
        for a, b in loop.bridges:
            cv2.line(picture, _px(a), _px(b), (255, 0, 255), 4)
        if loop.knot is not None:
            cv2.circle(picture, _px(loop.knot), 14, (255, 255, 255), 2)
    return picture


def _draw_pawns(background: NDArray[np.uint8], pawns: Pawns) -> NDArray[np.uint8]:
    picture = background.copy()
    for pawn in pawns.pawns:
        radius = int(pawn.width / 2)
        cv2.circle(picture, _px(pawn.foot), radius, LABEL_RGB[pawn.colour], 2)
        cv2.drawMarker(picture, _px(pawn.foot), (255, 0, 255), cv2.MARKER_CROSS, 10, 2)
    return picture


def _px(point: Point | Sequence[float]) -> tuple[int, int]:
    return (int(round(point[0])), int(round(point[1])))
