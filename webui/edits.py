"""Corrections to a board report: add, change or remove a creature, move a knot or
redraw a stretch of a loop, then score again.

An edit is a small JSON object, the same from the page's editor and from
``PATCH /api/boards/<id>``:

- ``{"op": "remove", "creature": 3}``
- ``{"op": "change", "creature": 3, "colour": "green"}`` (``white`` makes it a ghost;
  ``kind`` may be given too and must agree)
- ``{"op": "off_board", "creature": 3}``: the creature stands off the board (a pawn in
  front of a player, not scored); ``{"op": "on_board", "creature": 3}`` puts one the
  camera thought off the board back on it, located from its foot (in the field under its
  foot if the locator still finds it away from the play area)
- ``{"op": "move", "creature": 3, "xy": [x, y]}``: the creature stands where the player
  tapped, located as an added one is
- ``{"op": "no_corner", "creature": 3}``: a demon the camera put in a corner stands
  beside it, in no corner (a violation the camera missed; a tap beside a corner would
  snap into it)
- ``{"op": "add", "colour": "red", "xy": [x, y]}``: a creature where the player tapped
  (a demon snapped to the nearest corner spot of the tapped field within reach); the
  engine's locator (:func:`engine.placement.locate_creatures`) decides its field, its
  corner (a demon) or that it stands off the board, as it does for the camera.
- ``{"op": "knot", "colour": "red", "xy": [x, y]}``: the red loop's knot moved to the
  point of the red loop nearest the tap; the fields beside it are worth one more, those
  it left one less, and every creature stays where it stands (on a loop read with no
  knot, it places one). Refused on a board whose
  lines break the rules (a ``layout-problem``: its fields cannot be built again), for a
  tap far from the loop or on one of its crossings.
- ``{"op": "loop", "colour": "red", "path": [[x, y], ...]}``: the red loop runs along
  the stroke the player drew (:func:`webui.strokes.redrawn_loop`): from a point of the loop to
  another, the stroke replaces the stretch between them nearer to it (with
  ``"other_side": true``, the other one: the page shows which before it is sent); a
  stroke whose ends meet replaces the whole loop. The crossings and fields are built
  again from the lines (numbered as before where they are the same), the knot stays
  where it lies or goes to the nearest point of the new stretch clear of its crossings
  (:data:`KNOT_CLEAR`), and every creature keeps its place if
  that still exists, else is located again from its foot. So a loop the camera traced
  astray (along another cord, or a crossing read aside) is mended with one stroke.

Every edit goes through the engine (``board_from_report`` → ``board_to_report``), so
scores, winners and violations are always the engine's. What the camera was unsure of
stays with what the player has not touched (:func:`keep_doubts`): the confidences of the
creatures, crossings and knots left as they were, and the warnings that still apply.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from engine.board import Board, Creature, Line, Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, SCORE_COLOURS, WHITE
from engine.errors import BoardError, BoardFormatError
from engine.legality import LAYOUT_PROBLEM, Violation
from engine.placement import (
    BETWEEN_CORNERS_AMBIGUITY,
    CORNER_AIR,
    BoardGeometry,
    Foot,
    locate_creatures,
)
from engine.report import (
    board_from_report,
    board_to_report,
    moves_change_nothing,
    pawn_radius_of,
)
from vision.doubts import (
    AMBIGUOUS_PLACE,
    MOOT_CONFIDENCE,
    is_missed_pawn_warning,
    no_knot_warning,
    place_warning,
    warning_places,
)
from webui.strokes import StrokeError, crosses_itself, redraw_choices, redrawn_loop

#: A creature's base radius as a fraction of the board's extent (the longer side of the
#: lines' bounding box): a 9.5 mm pawn radius on a play area of about half a metre.
PAWN_RADIUS = 0.02
#: A demon tapped this close to where a pawn stands in a corner (as a fraction of the
#: board's extent: about 25 px of a phone screen) goes into that corner. A fingertip is
#: far less precise than a pawn's foot, so taps are snapped before the engine locates them.
TAP_REACH = 0.08

#: A knot tapped this close to a crossing of its loop (as a fraction of the board's
#: extent) is refused: a fingertip there cannot say on which side of the crossing the
#: knot lies, and that side decides which fields it counts for.
KNOT_CLEAR = 0.02

#: A knot further than this (in the photo's pixels) from its redrawn loop is put on it.
KNOT_ON_LOOP = 0.5
#: A crossing of a redrawn board this close (in pixels) to one of the same two lines
#: before is that crossing, not moved (a stroke along the old path puts it back a
#: rounding apart); the creatures beside one that moved are located again.
SAME_CROSSING = 2.0

MAX_EDITS = 200
#: A point's coordinates, in the photo's pixels, at most this far from 0 (a photo is
#: under 20 000 px a side; beyond, geometry loses its precision).
MAX_COORDINATE = 1e6
#: A tap where a creature stands may lie this share of the photo's long side outside it.
TAP_OUTSIDE = 0.02
#: A redrawn stretch's points at most (the page sends one every few screen pixels).
MAX_PATH_POINTS = 2000


class EditError(ValueError):
    """An edit that cannot be applied; the message names the edit and what is wrong."""


def image_size(report: Mapping[str, Any]) -> tuple[int, int] | None:
    image = report.get("image")
    if isinstance(image, Mapping) and "width" in image and "height" in image:
        return int(image["width"]), int(image["height"])
    return None


def board_extent(board: Board) -> float:
    """The longer side of the bounding box of the board's lines."""
    xs = [x for ln in board.lines for x, _ in ln.polyline]
    ys = [y for ln in board.lines for _, y in ln.polyline]
    if not xs:
        return 1.0
    return max(max(xs) - min(xs), max(ys) - min(ys), 1.0)


def snap_tap(board: Board, xy: Point, radius: float) -> Point:
    """Where a demon tapped at ``xy`` stands: the nearest spot a pawn of ``radius`` takes
    in a corner of the field under the tap, if one is within reach; else ``xy``.

    Spots rather than crossings are compared because a pawn in a narrow corner stands
    well out from its crossing, and players tap where the pawn stands.
    """
    geometry = BoardGeometry(board)
    field = board.fields[geometry.field_at(xy)]
    spots = [
        spot
        for crossing in set(field.corners)
        for spot in geometry.corner_points(field.id, crossing, CORNER_AIR * radius)
    ]
    if not spots:
        return xy
    nearest = min(spots, key=lambda spot: math.dist(spot, xy))
    return nearest if math.dist(nearest, xy) <= TAP_REACH * board_extent(board) else xy


def locate_tap(board: Board, kind: str, colour: str, xy: Point, *, snap: bool) -> Creature:
    """The creature a tap at ``xy`` places. A demon's tap is snapped to the nearest corner
    first (``snap``); then the engine's locator decides its field, its corner (for a
    demon) or that it stands off the board, as it does for the camera."""
    radius = PAWN_RADIUS * board_extent(board)
    foot = snap_tap(board, xy, radius) if snap and kind == DEMON else xy
    located = locate_creatures(board, [Foot(kind, colour, foot)], pawn_radius=radius)
    return located[0].creature


def apply_edits(
    report: Mapping[str, Any], edits: Sequence[object], knots_put_on: list[str] | None = None
) -> dict[str, Any]:
    """The report with ``edits`` applied in order, scored again by the engine.

    Parameters
    ----------
    report : mapping
        A board report (CONTRACT.md), e.g. the camera's reading.
    edits : sequence of edit objects
        See the module docstring.
    knots_put_on : list, optional
        Given, it is filled with the colours whose knot a ``loop`` edit had to move onto
        the redrawn loop (it lay off it, or too near one of its crossings) and no later
        ``knot`` edit placed: the player should check where it now lies.

    Raises
    ------
    EditError
        An edit is malformed, names a creature or loop that does not exist, or moves a
        knot where it cannot lie.
    engine.errors.BoardFormatError
        The report itself is malformed.
    """
    if not isinstance(edits, Sequence) or isinstance(edits, str | bytes):
        raise EditError("edits: expected a list of edits")
    if not edits:
        raise EditError("edits: the list is empty")
    if len(edits) > MAX_EDITS:
        raise EditError(f"edits: at most {MAX_EDITS} at once, got {len(edits)}")
    board = board_from_report(report)
    creatures = list(board.creatures)
    # Which of the report's creatures each one still is (None: set by the player).
    sources: list[int | None] = list(range(len(creatures)))
    moved_knots: set[str] = set()
    redrawn: set[str] = set()
    put_on: set[str] = set()
    layout_problems = _layout_problems(report)
    photo_size = image_size(report)
    for i, edit in enumerate(edits):
        if isinstance(edit, Mapping) and edit.get("op") == "loop":
            board, knot_moved = _with_loop_redrawn(
                board.with_creatures(tuple(creatures)), edit, f"edits[{i}]"
            )
            creatures = list(board.creatures)
            redrawn.add(str(edit["colour"]))
            if knot_moved:
                moved_knots.add(str(edit["colour"]))
                put_on.add(str(edit["colour"]))
            # The lines were built again, so they no longer break the rules.
            layout_problems = []
            continue
        if isinstance(edit, Mapping) and edit.get("op") == "knot":
            if layout_problems:
                raise EditError(
                    f"edits[{i}]: this board's lines break the rules (see its layout "
                    "problem), so its fields cannot be built again with a knot moved"
                )
            board = _with_knot_moved(board.with_creatures(tuple(creatures)), edit, f"edits[{i}]")
            creatures = list(board.creatures)
            moved_knots.add(str(edit["colour"]))
            put_on.discard(str(edit["colour"]))
            continue
        creatures = _apply(board, creatures, edit, f"edits[{i}]", photo_size)
        sources = _sources_after(sources, edit)
        layout_problems = _layout_problems_after(layout_problems, edit)
    board = board.with_creatures(tuple(creatures))
    corrected = rescore(report, board, layout_problems=layout_problems)
    if knots_put_on is not None:
        knots_put_on.extend(c for c in LINE_COLOURS if c in put_on)
    return keep_doubts(report, corrected, board, sources, moved_knots, redrawn)


def _sources_after(sources: list[int | None], edit: Any) -> list[int | None]:
    """``sources`` after an edit :func:`_apply` has checked and applied."""
    if edit["op"] == "add":
        return [*sources, None]
    index = edit["creature"]
    if edit["op"] == "remove":
        return sources[:index] + sources[index + 1 :]
    return [*sources[:index], None, *sources[index + 1 :]]


def keep_doubts(
    original: Mapping[str, Any],
    corrected: dict[str, Any],
    board: Board,
    sources: Sequence[int | None],
    moved_knots: Iterable[str] = (),
    redrawn_loops: Iterable[str] = (),
) -> dict[str, Any]:
    """``corrected`` (the report of ``board``) with what ``original`` (a camera's
    reading) was unsure of, where the player has not touched it.

    A creature still as the camera read it (``sources[i]``: the id of the report's
    creature it is) keeps its ``confidence``; a crossing keeps its own where the
    corrected board has it too (same id and lines, within a pixel: a moved knot builds
    the fields again, numbered as before); a knot not moved keeps its
    ``knot_confidence``. A warning is kept unless it names a creature the player removed
    or changed (one naming a kept creature is renumbered), a knot the player moved, a
    loop the player drew again, or a place whose nearest creature, within
    :data:`TAP_REACH`, is one the player removed, changed or added: the player has
    looked there (a pawn the camera may have missed, only a creature the player added
    or moved there answers). Whatever the player set has no confidence: it is not the
    camera's reading. A demon the camera put between corners keeps its ``corners_alike`` while
    each of those corners' crossings is where it was, and is judged again on the
    corrected board (:func:`_judge_corners_again`).
    """
    old_creatures = {c.get("id"): c for c in original.get("creatures") or []}
    kept = {source: i for i, source in enumerate(sources) if source is not None}
    for i, source in enumerate(sources):
        for key in ("confidence", "corners_alike"):
            if source is not None and key in old_creatures[source]:
                corrected["creatures"][i][key] = old_creatures[source][key]
    old_crossings = {c.get("id"): c for c in original.get("crossings") or []}
    unmoved: set[int] = set()
    for crossing in corrected["crossings"]:
        old = old_crossings.get(crossing["id"]) or {}
        if _same_crossing(old, crossing):
            unmoved.add(crossing["id"])
            if "confidence" in old:
                crossing["confidence"] = old["confidence"]
    unjudged = []
    for creature in corrected["creatures"]:
        # Corners named by the ids of crossings a redrawn loop moved are other corners:
        # the camera's doubt between them is about a board that is gone.
        corners = alike_corners(creature.get("corners_alike")) or []
        if any(crossing not in unmoved for _, crossing in corners):
            creature.pop("corners_alike")
            unjudged.append(creature)
    moved, redrawn = set(moved_knots), set(redrawn_loops)
    for colour, line in corrected["lines"].items():
        old_line = (original.get("lines") or {}).get(colour) or {}
        if colour not in moved and "knot_confidence" in old_line:
            line["knot_confidence"] = old_line["knot_confidence"]
    if "warnings" in original or any("corners_alike" in c for c in corrected["creatures"]):
        # Every foot, and whether the player touched it: removed, changed or added.
        now = zip(corrected["creatures"], sources, strict=True)
        feet = [(c["xy"], source is None) for c, source in now if c.get("xy")]
        feet += [(c["xy"], True) for i, c in old_creatures.items() if i not in kept and c.get("xy")]
        camera_feet = [c["xy"] for c in old_creatures.values() if c.get("xy")]
        put = [c["xy"] for c in corrected["creatures"]
               if c.get("xy") and not any(math.dist(c["xy"], f) < 1e-6 for f in camera_feet)]
        reach = TAP_REACH * board_extent(board)
        corrected["warnings"] = [
            kept_warning
            for warning in original.get("warnings") or []
            if (kept_warning := _kept_warning(
                str(warning), kept, moved, redrawn, feet, reach, put))
        ]
        geometry = BoardGeometry(board) if unjudged else None
        for creature in unjudged:
            assert geometry is not None
            _locate_doubt_again(corrected, geometry, creature)
        _judge_corners_again(corrected, board)
    return corrected


def _locate_doubt_again(
    report: dict[str, Any], geometry: BoardGeometry, creature: dict[str, Any]
) -> None:
    """A demon whose corners alike a redrawn loop moved: the camera's doubt between them
    undone, and its foot located on the new board, as the camera would have, for the
    corners it fits as well there (then judged again by :func:`_judge_corners_again`)."""
    label = place_warning(creature["id"], creature["colour"], creature["kind"],
                          BETWEEN_CORNERS_AMBIGUITY)
    if label in report["warnings"]:
        report["warnings"].remove(label)
        if creature.get("confidence") is not None:
            creature["confidence"] = min(round(creature["confidence"] / AMBIGUOUS_PLACE, 2), 1.0)
    if creature["kind"] != DEMON or creature["off_board"] or not creature.get("xy"):
        return
    foot = Foot(DEMON, creature["colour"], tuple(creature["xy"]))
    radius = pawn_radius_of(geometry.board)
    location = geometry.locate([foot], pawn_radius=radius)[0]
    same_place = (location.field, location.crossing) == (creature["field"], creature["crossing"])
    if location.ambiguity == BETWEEN_CORNERS_AMBIGUITY and same_place:
        creature["corners_alike"] = [list(corner) for corner in location.alternatives]


def _judge_corners_again(report: dict[str, Any], board: Board) -> None:
    """Each demon the camera put between corners (``corners_alike``) judged again on the
    corrected board, about as the reader judged it (``vision.doubts.MOOT_CONFIDENCE``):
    a correction elsewhere can make one of its other corners change the report (a demon
    added there), so that it is warned of and unsure again, or no longer. ``board``:
    the report's."""
    for entry in report["creatures"]:
        corners = alike_corners(entry.get("corners_alike"))
        if corners is None:
            entry.pop("corners_alike", None)  # not the camera's: nothing to judge
            continue
        try:
            moot = moves_change_nothing(board, entry["id"], corners)
        except BoardError:  # a corner the corrected board does not have
            moot = False
        label = place_warning(entry["id"], entry["colour"], entry["kind"], "between-corners")
        warned = label in report["warnings"]
        confidence = entry.get("confidence")
        if moot and warned:
            report["warnings"].remove(label)
            if confidence is not None:
                entry["confidence"] = min(round(confidence / AMBIGUOUS_PLACE, 2), MOOT_CONFIDENCE)
        elif not moot and not warned:
            report["warnings"].append(label)
            if confidence is not None:
                entry["confidence"] = round(confidence * AMBIGUOUS_PLACE, 2)
        elif moot and confidence is not None:
            entry["confidence"] = min(confidence, MOOT_CONFIDENCE)  # as the reader caps it


_CREATURE = re.compile(r"\bcreature (\d+) \(")


def _kept_warning(
    warning: str,
    kept: Mapping[int, int],
    moved_knots: set[str],
    redrawn_loops: set[str],
    feet: Sequence[tuple[Sequence[float], bool]],
    reach: float,
    put: Sequence[Sequence[float]] = (),
) -> str | None:
    """The warning as it reads after the edits (creatures renumbered), or None when it
    no longer applies (see :func:`keep_doubts`; ``feet``: every creature's foot, kept,
    removed or set by the player, and whether the player touched it; ``put``: the feet
    of the creatures the player added or moved)."""
    if is_missed_pawn_warning(warning):
        # A pawn the camera may have missed beside another: only a creature put there
        # answers it, not a correction of the pawn beside it.
        answered = any(math.dist(place, foot) <= reach
                       for place in warning_places(warning) for foot in put)
        return None if answered else warning
    if any(f"{colour} knot" in warning or warning == no_knot_warning(colour)
           for colour in moved_knots):
        return None
    if any(f"{colour} loop" in warning and warning != no_knot_warning(colour)
           for colour in redrawn_loops):
        return None  # (a redraw gives a loop read with no knot none)
    for place in warning_places(warning):
        nearest = min(feet, key=lambda foot: math.dist(place, foot[0]), default=None)
        if nearest is not None and nearest[1] and math.dist(place, nearest[0]) <= reach:
            return None
    gone = False

    def renumbered(named: re.Match[str]) -> str:
        nonlocal gone
        new = kept.get(int(named.group(1)))
        gone = gone or new is None
        return f"creature {new} ("

    text = _CREATURE.sub(renumbered, warning)
    return None if gone else text


def alike_corners(value: object) -> list[tuple[int, int]] | None:
    """A report's ``corners_alike`` as (field, crossing) pairs, or None if malformed."""
    if not isinstance(value, list):
        return None
    pairs = []
    for corner in value:
        if (not isinstance(corner, list) or len(corner) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in corner)):
            return None
        pairs.append((corner[0], corner[1]))
    return pairs


def _same_crossing(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two reports' crossings of one id are one crossing: the same lines, within
    a pixel of each other."""
    a, b = old.get("xy"), new.get("xy")
    return (sorted(old.get("lines") or []) == sorted(new.get("lines") or [])
            and a is not None and b is not None and math.dist(a, b) <= 1.0)


def _with_knot_moved(board: Board, edit: Mapping[str, Any], where: str) -> Board:
    """``board`` with the knot of the edit's colour moved to the point of its loop
    nearest the edit's ``xy``: the topology is built again from the lines and knots,
    numbered as before, and every creature kept in its place."""
    colour, line = _line_of(board, edit, where)
    xy = _point(edit.get("xy"), f"{where}.xy")
    ring = LinearRing(line.polyline)
    tap = ShapelyPoint(xy)
    if ring.distance(tap) > TAP_REACH * board_extent(board):
        raise EditError(f"{where}.xy: that is far from the {colour} loop; tap on it, "
                        "where the knot lies")
    on_loop = ring.interpolate(ring.project(tap))
    clear = KNOT_CLEAR * board_extent(board)
    if any(on_loop.distance(ShapelyPoint(c.xy)) < clear for c in board.crossings
           if colour in c.lines):
        raise EditError(f"{where}: the {colour} knot cannot lie there: that is on a crossing; "
                        "tap beside it, on the stretch of the loop where the knot lies")
    report = board_to_report(board)
    report["lines"][colour]["knot"] = [on_loop.x, on_loop.y]
    try:
        return board_from_report(report, topology="rebuild")
    except BoardFormatError as error:
        raise EditError(f"{where}: the {colour} knot cannot lie there ({error})") from None


def _line_of(board: Board, edit: Mapping[str, Any], where: str) -> tuple[str, Line]:
    """The colour an edit names and the board's loop of that colour."""
    colour = edit.get("colour")
    line = next((ln for ln in board.lines if ln.colour == colour), None)
    if line is None:
        names = ", ".join(ln.colour for ln in board.lines)
        raise EditError(
            f"{where}.colour: expected the colour of a loop ({names}), got {_short(colour)}"
        )
    return line.colour, line


def loop_choices(
    report: Mapping[str, Any], edit: Mapping[str, Any]
) -> list[tuple[list[Point], bool]]:
    """The stretches of the edit's loop its stroke could replace (:func:`redraw_choices`),
    each with whether the loop would then cross itself: what the page shows before a
    ``loop`` edit is sent, the likelier first, the second chosen with
    ``"other_side": true``.

    Raises
    ------
    EditError
        A malformed edit, or a stroke no redraw can take (the message says why).
    engine.errors.BoardFormatError
        The report itself is malformed.
    """
    board = board_from_report(report)
    _, line = _line_of(board, edit, "edit")
    path = _path(edit.get("path"), "edit.path")
    reach = TAP_REACH * board_extent(board)
    try:
        choices = redraw_choices(line.polyline, path, reach)
    except StrokeError as error:
        raise EditError(str(error)) from None
    return [(replaced, crosses_itself(loop)) for loop, replaced in choices]


def _with_loop_redrawn(board: Board, edit: Mapping[str, Any], where: str) -> tuple[Board, bool]:
    """``board`` with a stretch of the edit's loop drawn again along its ``path``
    (:func:`redrawn_loop`), and whether its knot had to move onto the new stretch.

    The topology is built again from the lines and knots, numbered as before where it
    matches, and each creature kept in its place if that still exists, else located
    again from its foot (``engine.report.board_from_report(..., topology="rebuild")``).
    """
    colour, line = _line_of(board, edit, where)
    path = _path(edit.get("path"), f"{where}.path")
    other_side = edit.get("other_side", False)
    if not isinstance(other_side, bool):
        raise EditError(f"{where}.other_side: expected true or false, got {_short(other_side)}")
    try:
        points = redrawn_loop(line.polyline, path, TAP_REACH * board_extent(board),
                              other_side=other_side)
    except StrokeError as error:
        raise EditError(f"{where}.path: {error}") from None
    report = board_to_report(board)
    report["lines"][colour]["polyline"] = [[round(x, 1), round(y, 1)] for x, y in points]
    knot_moved = False
    if line.knot is not None:
        ring, knot = LinearRing(report["lines"][colour]["polyline"]), ShapelyPoint(line.knot)
        if ring.distance(knot) > KNOT_ON_LOOP:
            crossings = [shapely.get_coordinates(ring.intersection(LinearRing(other.polyline)))
                         for other in board.lines if other.colour != colour]
            on_loop = _clear_of_crossings(ring, ring.project(knot),
                                          np.concatenate([np.empty((0, 2)), *crossings]),
                                          KNOT_CLEAR * board_extent(board))
            if on_loop is None:
                raise EditError(
                    f"{where}: the redrawn {colour} loop has no place clear of its crossings "
                    f"for its knot; draw it round a wider stretch")
            report["lines"][colour]["knot"] = [round(on_loop.x, 1), round(on_loop.y, 1)]
            knot_moved = True
    try:
        rebuilt = board_from_report(report, topology="rebuild")
    except BoardFormatError as error:
        raise EditError(f"{where}: the {colour} loop cannot run there ({error})") from None
    return _located_beside_moved_crossings(board, rebuilt), knot_moved


def _clear_of_crossings(
    ring: LinearRing, along: float, crossings: np.ndarray, clear: float
) -> ShapelyPoint | None:
    """The point of ``ring`` nearest (along it) to the one ``along`` its length that lies
    at least ``clear`` from every point of ``crossings`` (None where no point does).

    A knot put on a redrawn loop goes to where the old one was nearest; on a crossing it
    could not say on which side it counts, so it goes the shortest way off it. (The
    player is told the knot moved and sees it; a knot tapped on a crossing is refused
    instead, as the tap itself says where the player wants it.)
    """
    step = clear / 8
    for offset in np.arange(0.0, ring.length / 2, step):
        for signed in (offset, -offset):
            point = ring.interpolate((along + signed) % ring.length)
            if len(crossings) == 0 or np.hypot(*(crossings - point.coords[0]).T).min() >= clear:
                return point
    return None  # a loop so small that it is all crossings


def _located_beside_moved_crossings(board: Board, rebuilt: Board) -> Board:
    """``rebuilt`` (``board`` with a loop redrawn) with each creature within
    :data:`TAP_REACH` of a crossing that moved, came or went located again from its foot.

    Such a creature may now stand in another corner (a crossing read aside, put back),
    or in one where it stood in none. The rebuild keeps every place that still exists,
    so it would not be moved; the others stay as the camera placed them.
    """
    moved = _moved_crossings(board, rebuilt) + _moved_crossings(rebuilt, board)
    reach = TAP_REACH * board_extent(board)
    geometry, radius = BoardGeometry(rebuilt), pawn_radius_of(rebuilt)
    creatures = [
        geometry.locate([Foot(c.kind, c.colour, c.xy)], pawn_radius=radius)[0].creature
        if not c.off_board and c.xy is not None
        and any(math.dist(c.xy, xy) <= reach for xy in moved)
        else c
        for c in rebuilt.creatures
    ]
    return rebuilt.with_creatures(tuple(creatures))


def _moved_crossings(board: Board, other: Board) -> list[Point]:
    """The places of ``board``'s crossings that ``other`` has not: none of the same
    two lines within :data:`SAME_CROSSING` of it."""
    return [
        c.xy
        for c in board.crossings
        if not any(
            d.lines == c.lines and math.dist(c.xy, d.xy) <= SAME_CROSSING for d in other.crossings
        )
    ]


def rescore(
    original: Mapping[str, Any],
    board: Board,
    *,
    layout_problems: Sequence[Violation] | None = None,
) -> dict[str, Any]:
    """``board`` as a fresh report, keeping the original's photo size and layout problems
    (or ``layout_problems`` instead, where given)."""
    kept = _layout_problems(original) if layout_problems is None else list(layout_problems)
    return board_to_report(board, image_size=image_size(original), extra_violations=kept)


def _layout_problems(report: Mapping[str, Any]) -> list[Violation]:
    """The report's ``layout-problem`` violations: its lines break the rules, so the
    engine cannot build them again and keeps the topology as written."""
    return [
        Violation(v["rule"], tuple(v.get("creatures") or []), str(v.get("message", "")))
        for v in report.get("violations", [])
        if isinstance(v, Mapping) and v.get("rule") == LAYOUT_PROBLEM
    ]


def _layout_problems_after(problems: Sequence[Violation], edit: Any) -> list[Violation]:
    """``problems`` after an edit :func:`_apply` has checked and applied, naming the
    creatures by their new numbers: when one is removed, the later ones move down by one
    and it is no longer named (else a layout problem would name another creature, or
    one past the last)."""
    if edit["op"] != "remove":
        return list(problems)
    removed = edit["creature"]
    return [
        replace(p, creatures=tuple(c - 1 if c > removed else c
                                   for c in p.creatures if c != removed))
        for p in problems
    ]


def check_report(report: object) -> dict[str, Any]:
    """A whole report typed or sent by a user, checked and scored again by the engine.

    Raises
    ------
    engine.errors.BoardFormatError
    """
    if not isinstance(report, Mapping):
        raise BoardFormatError("report: expected a JSON object")
    return rescore(report, board_from_report(report))


def _apply(
    board: Board,
    creatures: list[Creature],
    edit: object,
    where: str,
    photo_size: tuple[int, int] | None,
) -> list[Creature]:
    if not isinstance(edit, Mapping):
        raise EditError(f"{where}: expected an object like {{\"op\": \"remove\", \"creature\": 0}}")
    op = edit.get("op")
    if op == "add":
        xy = _tap_in_photo(edit.get("xy"), f"{where}.xy", photo_size)
        kind, colour = _kind_and_colour(edit, where)
        return [*creatures, locate_tap(board, kind, colour, xy, snap=True)]
    if op not in ("remove", "change", "move", "no_corner", "off_board", "on_board"):
        raise EditError(
            f"{where}.op: expected 'add', 'change', 'move', 'no_corner', 'remove', 'off_board', "
            f"'on_board', 'knot' or 'loop', got {_short(op)}"
        )
    index = edit.get("creature")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(creatures):
        raise EditError(
            f"{where}.creature: no creature {_short(index)} (the board has {len(creatures)})"
        )
    if op == "remove":
        return creatures[:index] + creatures[index + 1 :]
    old = creatures[index]
    if op in ("off_board", "on_board"):
        new = _on_or_off(board, old, op == "on_board", f"{where}.creature")
        return [*creatures[:index], new, *creatures[index + 1 :]]
    if op == "no_corner":
        if old.kind != DEMON or old.crossing is None:
            raise EditError(f"{where}.creature: creature {index} is not a demon in a corner")
        return [*creatures[:index], replace(old, crossing=None), *creatures[index + 1 :]]
    if op == "move":
        xy = _tap_in_photo(edit.get("xy"), f"{where}.xy", photo_size)
        new = locate_tap(board, old.kind, old.colour, xy, snap=True)
        return [*creatures[:index], new, *creatures[index + 1 :]]
    kind, colour = _kind_and_colour(edit, where)
    if old.off_board or old.xy is None:
        new = replace(old, kind=kind, colour=colour,
                      crossing=None if kind == GHOST else old.crossing)
    else:
        new = locate_tap(board, kind, colour, old.xy, snap=False)
    return [*creatures[:index], new, *creatures[index + 1 :]]


def _on_or_off(board: Board, creature: Creature, on_board: bool, where: str) -> Creature:
    """``creature`` put off the board, or on it at its foot (located as the camera
    locates a pawn; in the field under its foot if that still finds it off the board)."""
    if on_board != creature.off_board:
        raise EditError(f"{where}: that creature is {'on' if on_board else 'off'} the board "
                        "already")
    if not on_board:
        return Creature(creature.kind, creature.colour, xy=creature.xy, off_board=True)
    if creature.xy is None:
        raise EditError(f"{where}: this creature has no foot point; add it where it stands")
    placed = locate_tap(board, creature.kind, creature.colour, creature.xy, snap=False)
    if placed.off_board:
        field_id = BoardGeometry(board).field_at(creature.xy)
        placed = Creature(creature.kind, creature.colour, xy=creature.xy, field=field_id)
    return placed


def _kind_and_colour(edit: Mapping[str, Any], where: str) -> tuple[str, str]:
    colour = edit.get("colour")
    if colour not in SCORE_COLOURS:
        raise EditError(
            f"{where}.colour: expected one of {', '.join(SCORE_COLOURS)}, got {_short(colour)}"
        )
    kind = GHOST if colour == WHITE else DEMON
    if edit.get("kind", kind) != kind:
        raise EditError(
            f"{where}.kind: a {colour} creature is a {kind}, not {_short(edit.get('kind'))}"
        )
    assert colour == WHITE or colour in LINE_COLOURS
    return kind, str(colour)


def _point(value: object, where: str) -> Point:
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        or not all(abs(v) <= MAX_COORDINATE for v in value)  # also NaN, inf, 10**400
    ):
        raise EditError(
            f"{where}: expected [x, y], numbers within ±{MAX_COORDINATE:g}, got {_short(value)}")
    return (float(value[0]), float(value[1]))


def _tap_in_photo(value: object, where: str, photo_size: tuple[int, int] | None) -> Point:
    """A tap where a creature stands: a point of the photo (of any size where the
    report gives none). A point outside it was no tap on the photo; it would be stored
    as a creature off the board, where nothing was seen."""
    x, y = _point(value, where)
    if photo_size is not None:
        width, height = photo_size
        # A little way out is let through: the corner buttons send a spot beside a
        # crossing, which may lie past the edge of a photo cut close to the board.
        margin = TAP_OUTSIDE * max(width, height)
        if not (-margin <= x <= width + margin and -margin <= y <= height + margin):
            raise EditError(f"{where}: [{x:g}, {y:g}] lies outside the photo "
                            f"({width} × {height} pixels); tap where the creature stands")
    return (x, y)


def _path(value: object, where: str) -> list[Point]:
    """A stroke: a list of two to :data:`MAX_PATH_POINTS` points."""
    if not isinstance(value, Sequence) or isinstance(value, str | bytes) or len(value) < 2:
        raise EditError(f"{where}: expected a list of two or more [x, y] points, "
                        f"got {_short(value)}")
    if len(value) > MAX_PATH_POINTS:
        raise EditError(f"{where}: at most {MAX_PATH_POINTS} points, got {len(value)}")
    return [_point(point, f"{where}[{i}]") for i, point in enumerate(value)]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def describe_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What an edit changed, for people: scores and winners that differ."""
    changes = []
    old_scores, new_scores = before.get("scores", {}), after.get("scores", {})
    for colour in SCORE_COLOURS:
        if old_scores.get(colour) != new_scores.get(colour):
            changes.append(f"{colour} {old_scores.get(colour)} → {new_scores.get(colour)}")
    if before.get("winners") != after.get("winners"):
        old = ", ".join(before.get("winners", [])) or "none"
        new = ", ".join(after.get("winners", [])) or "none"
        changes.append(f"winning {old} → {new}")
    return changes
