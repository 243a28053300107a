"""What the result page draws over the photo, worked out once from a board report.

:func:`board_view` turns a report into plain values (SVG point lists, field owners and
labels, creature marks with their violations) for the template's SVG, and
:func:`overlay_png` draws the report with the reader's own overlay for the PNG export.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from engine.board import Board, Creature
from engine.colours import DEMON, LINE_COLOURS
from engine.errors import BoardError, EngineError
from engine.placement import CORNER_AIR, BoardGeometry
from engine.report import board_from_report
from engine.scoring import field_majorities
from vision.doubts import is_unsure, missed_pawn_places, no_knot_warning
from vision.overlay import draw_overlay
from webui.edits import KNOT_CLEAR, PAWN_RADIUS, alike_corners, board_extent

#: Colours drawn for each game colour (strong enough on light and dark tables).
PAINT = {
    "red": "#d7263d",
    "yellow": "#f4c20d",
    "green": "#1f9d55",
    "blue": "#1e63d6",
    "white": "#ffffff",
}


@dataclass(frozen=True)
class FieldView:
    id: int
    outer: bool
    points: str
    value: int
    corners: int
    knots: tuple[str, ...]
    owner: str | None
    label: tuple[float, float] | None
    demons: Mapping[str, int]
    ghosts: int
    #: Area in square pixels (0 for the outer field): larger fields are drawn first.
    area: float = 0.0


@dataclass(frozen=True)
class CreatureView:
    id: int
    kind: str
    colour: str
    xy: tuple[float, float]
    off_board: bool
    field: int | None
    crossing: int | None
    problems: tuple[str, ...]
    low_confidence: bool
    #: The other corners its foot fits as well (the report's ``corners_alike``), each as
    #: (field, crossing, the spot a pawn takes there): one tap moves it to one.
    alike: tuple[tuple[int, int, tuple[float, float]], ...] = ()


@dataclass(frozen=True)
class StretchView:
    """A stretch of a loop between two of its crossings: where its knot may lie. The
    knot counts for the fields on either side of its stretch, wherever on it it lies."""

    colour: str
    #: SVG polyline points along the stretch.
    points: str
    #: The point halfway along it, where a knot put on it is placed.
    middle: tuple[float, float]
    #: Whether the loop's knot lies on it.
    has_knot: bool


@dataclass(frozen=True)
class BoardView:
    """Everything the overlay shows, in the report's pixel coordinates."""

    width: int
    height: int
    #: The part of the photo shown: the board and its creatures with a margin
    #: (x, y, width, height), so that the board fills a phone's screen.
    box: tuple[float, float, float, float]
    #: Stroke unit: a thousandth of the longer side of ``box``.
    unit: float
    #: (colour, polyline points, knot, whether the knot was read with low confidence).
    lines: Sequence[tuple[str, str, tuple[float, float] | None, bool]]
    crossings: Sequence[tuple[int, float, float, bool]]
    fields: Sequence[FieldView]
    creatures: Sequence[CreatureView]
    violations: Sequence[Mapping[str, Any]]
    warnings: Sequence[str] = field(default_factory=list)
    low_confidence_crossings: int = 0
    #: Every loop's stretches between its crossings, to choose a knot's place from.
    stretches: Sequence[StretchView] = field(default_factory=list)
    #: Places where a warning says a pawn may stand that was not read ("a green demon
    #: may stand against another pawn at (x, y)", vision.doubts.missed_pawn_warning):
    #: the page rings them, so that the player sees where to look, not only a pair of
    #: pixel coordinates.
    look_here: Sequence[tuple[float, float]] = field(default_factory=list)

    @property
    def outer_field(self) -> FieldView | None:
        return next((f for f in self.fields if f.outer), None)

    def loop_named(self, warning: str) -> str | None:
        """The colour of the board's loop a warning is about ("the green loop"), if one."""
        return next((c for c, _, _, _ in self.lines if f"{c} loop" in warning), None)

    @property
    def knotless(self) -> list[str]:
        """Colours of the loops with no knot read (the player can place it)."""
        return [colour for colour, _, knot, _ in self.lines if knot is None]


def _points(polyline: Sequence[Sequence[float]]) -> str:
    return " ".join(f"{p[0]:.1f},{p[1]:.1f}" for p in polyline)


def _low(entry: Mapping[str, Any]) -> bool:
    return is_unsure(entry.get("confidence"))


def board_view(report: Mapping[str, Any]) -> BoardView:
    """The overlay of ``report``.

    Raises
    ------
    engine.errors.BoardFormatError
        If the report is malformed.
    """
    board = board_from_report(report)
    image = report.get("image") or {}
    xs = [p[0] for ln in board.lines for p in ln.polyline] or [1.0]
    ys = [p[1] for ln in board.lines for p in ln.polyline] or [1.0]
    width = int(image.get("width") or math.ceil(max(xs) * 1.05))
    height = int(image.get("height") or math.ceil(max(ys) * 1.05))
    owners = field_majorities(board)
    try:
        geometry: BoardGeometry | None = BoardGeometry(board)
    except ValueError:
        geometry = None
    demons: dict[int, Counter[str]] = {f.id: Counter() for f in board.fields}
    ghosts: Counter[int] = Counter()
    for _, c in board.on_board_creatures:
        if c.field is None:
            continue
        if c.kind == DEMON and c.crossing is not None:
            demons[c.field][c.colour] += 1
        elif c.kind != DEMON:
            ghosts[c.field] += 1
    fields = [
        FieldView(
            id=f.id,
            outer=f.outer,
            points="" if f.polygon is None else _points(f.polygon),
            value=f.value,
            corners=len(f.corners),
            knots=f.knots,
            owner=owners.get(f.id),
            label=_label(geometry, f.id) if not f.outer else None,
            demons={c: demons[f.id][c] for c in LINE_COLOURS if demons[f.id][c]},
            ghosts=ghosts[f.id],
            area=0.0 if f.polygon is None else _area(f.polygon),
        )
        for f in board.fields
    ]
    violations = [v for v in report.get("violations", []) if isinstance(v, Mapping)]
    problems: dict[int, list[str]] = {}
    for v in violations:
        for creature_id in v.get("creatures", []):
            problems.setdefault(creature_id, []).append(str(v.get("message", v.get("rule"))))
    raw_creatures = report.get("creatures", [])
    creatures = [
        CreatureView(
            id=i,
            kind=c.kind,
            colour=c.colour,
            xy=c.xy if c.xy is not None else (0.0, 0.0),
            off_board=c.off_board,
            field=c.field,
            crossing=c.crossing,
            problems=tuple(problems.get(i, [])),
            low_confidence=i < len(raw_creatures) and _low(raw_creatures[i]),
            alike=_alike_spots(geometry, c, raw_creatures[i] if i < len(raw_creatures) else {}),
        )
        for i, c in enumerate(board.creatures)
        if c.xy is not None
    ]
    raw_crossings = {c.get("id"): c for c in report.get("crossings", [])}
    crossings = [
        (c.id, c.xy[0], c.xy[1], _low(raw_crossings.get(c.id, {}))) for c in board.crossings
    ]
    raw_lines = report.get("lines") or {}
    box = _box(board, width, height)
    warnings = [
        # A loop with no knot is listed with a button to place it (see knotless), in
        # place of the reader's own warning of it.
        str(w) for w in report.get("warnings", [])
        if not any(w == no_knot_warning(ln.colour) for ln in board.lines if ln.knot is None)
    ]
    return BoardView(
        width=width,
        height=height,
        box=box,
        unit=max(box[2], box[3]) / 1000,
        lines=[
            (ln.colour, _points(ln.polyline), ln.knot,
             is_unsure(raw_lines[ln.colour].get("knot_confidence")))
            for ln in board.lines
        ],
        crossings=crossings,
        fields=fields,
        creatures=creatures,
        violations=violations,
        warnings=warnings,
        low_confidence_crossings=sum(1 for c in crossings if c[3]),
        stretches=knot_stretches(board),
        look_here=missed_pawn_places(warnings),
    )


#: Points drawn along a stretch (enough for a smooth highlight).
STRETCH_POINTS = 32


def knot_stretches(board: Board) -> list[StretchView]:
    """Each loop's stretches between consecutive crossings of it (a loop that crosses
    nothing is one stretch), those too short to hold a knot clear of their crossings
    (``webui.edits.KNOT_CLEAR``) left out."""
    clear = 2 * KNOT_CLEAR * board_extent(board)
    stretches = []
    for line in board.lines:
        ring = LinearRing(line.polyline)
        along = sorted(ring.project(ShapelyPoint(c.xy)) for c in board.crossings
                       if line.colour in c.lines) or [0.0]
        knot_at = None if line.knot is None else ring.project(ShapelyPoint(line.knot))
        for start, end in zip(along, [*along[1:], along[0] + ring.length], strict=True):
            if end - start < clear:
                continue
            points = [ring.interpolate(d % ring.length)
                      for d in np.linspace(start, end, STRETCH_POINTS)]
            middle = ring.interpolate(((start + end) / 2) % ring.length)
            has_knot = knot_at is not None and (
                start <= knot_at <= end or start <= knot_at + ring.length <= end)
            stretches.append(StretchView(
                line.colour, _points([(p.x, p.y) for p in points]),
                (round(middle.x, 1), round(middle.y, 1)), has_knot))
    return stretches


def stretch_info(view: BoardView) -> dict[str, list[dict[str, Any]]]:
    """Per loop colour, its stretches (sent to the page as JSON for choosing a knot's
    place without a tap on the photo)."""
    info: dict[str, list[dict[str, Any]]] = {}
    for stretch in view.stretches:
        info.setdefault(stretch.colour, []).append(
            {"points": stretch.points, "middle": list(stretch.middle), "knot": stretch.has_knot})
    return info


#: Margin around the board in the shown part of the photo, as a fraction of its size.
MARGIN = 0.08


def _box(board: Board, width: int, height: int) -> tuple[float, float, float, float]:
    points = [p for ln in board.lines for p in ln.polyline]
    points += [c.xy for c in board.creatures if c.xy is not None]
    if not points:
        return (0.0, 0.0, float(width), float(height))
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    margin = MARGIN * max(x1 - x0, y1 - y0)
    left, top = max(0.0, x0 - margin), max(0.0, y0 - margin)
    right, bottom = min(float(width), x1 + margin), min(float(height), y1 + margin)
    if right <= left or bottom <= top:
        return (0.0, 0.0, float(width), float(height))
    return (round(left, 1), round(top, 1), round(right - left, 1), round(bottom - top, 1))


def _area(polygon: Sequence[Sequence[float]]) -> float:
    """Shoelace area of a simple polygon."""
    twice = sum(
        x0 * y1 - x1 * y0
        for (x0, y0), (x1, y1) in zip(polygon, [*polygon[1:], polygon[0]], strict=True)
    )
    return abs(twice) / 2


def _label(geometry: BoardGeometry | None, field_id: int) -> tuple[float, float] | None:
    if geometry is None:
        return None
    try:
        return geometry.field_centre(field_id)
    except (ValueError, EngineError):
        return None


def field_info(view: BoardView) -> dict[str, dict[str, Any]]:
    """Per field, what tapping it shows (sent to the page as JSON)."""
    return {
        str(f.id): {
            "id": f.id,
            "outer": f.outer,
            "value": f.value,
            "corners": f.corners,
            "knots": list(f.knots),
            "owner": f.owner,
            "demons": dict(f.demons),
            "ghosts": f.ghosts,
        }
        for f in view.fields
    }


def _alike_spots(
    geometry: BoardGeometry | None, creature: Creature, raw: Mapping[str, Any]
) -> tuple[tuple[int, int, tuple[float, float]], ...]:
    """The corners other than its own that the report says a demon's foot fits as well,
    each with the spot nearest its foot that a pawn takes there."""
    corners = alike_corners(raw.get("corners_alike")) or []
    if geometry is None or creature.xy is None:
        return ()
    clearance = CORNER_AIR * PAWN_RADIUS * board_extent(geometry.board)
    spots = []
    for field_id, crossing in corners:
        if (field_id, crossing) == (creature.field, creature.crossing):
            continue
        try:
            points = geometry.corner_points(field_id, crossing, clearance)
        except BoardError:  # not a corner of this board (a report edited by hand)
            continue
        xy = creature.xy
        spot = min(points, key=lambda p: math.dist(p, xy))
        spots.append((field_id, crossing, (round(spot[0], 1), round(spot[1], 1))))
    return tuple(spots)


def creature_info(view: BoardView) -> dict[str, dict[str, Any]]:
    """Per creature, what tapping it shows (sent to the page as JSON)."""
    return {
        str(c.id): {
            "id": c.id,
            "kind": c.kind,
            "colour": c.colour,
            "field": c.field,
            "crossing": c.crossing,
            "off_board": c.off_board,
            "problems": list(c.problems),
            "low_confidence": c.low_confidence,
            "alike": [{"field": f, "crossing": x, "xy": list(xy)} for f, x, xy in c.alike],
        }
        for c in view.creatures
    }


def overlay_png(report: Mapping[str, Any], photo: Image.Image) -> bytes:
    """The report drawn over ``photo`` (any size) by :func:`vision.overlay.draw_overlay`, as PNG."""
    width = (report.get("image") or {}).get("width") or photo.width
    rgb = np.asarray(photo.convert("RGB"))
    drawn = draw_overlay(rgb, report, scale=float(width) / photo.width)
    out = io.BytesIO()
    Image.fromarray(drawn).save(out, "PNG")
    return out.getvalue()
