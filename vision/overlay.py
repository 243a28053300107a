"""Draw a board report over its photo, so a person can check the reading at a glance.

:func:`draw_overlay` works from the report alone (the CONTRACT shape, photo pixels), so
it draws the reader's answer and a synthetic photo's truth the same way. It is meant to
be looked at on a phone: line widths and text grow with the image, every label has a
dark outline, and the score panel goes into the corner of the photo where it hides the
least of the board.

What is drawn:

- each loop in its colour, its knot as a ring ("K?" where its ``knot_confidence`` is low);
- each crossing as a small white ring with its id;
- each bounded field's value at its pole of inaccessibility (the inside point furthest
  from the edge, so a crescent-shaped field gets its label inside it);
- each creature as a marker in its colour (a disc for a demon, a white diamond for a
  ghost) with a thin line to the crossing of its corner; an off-board creature gets a
  dashed grey ring and "off";
- creatures in a violation get a red ring and the violation's number in the panel's list;
- anything read with ``confidence`` below :data:`LOW_CONFIDENCE` gets a "?";
- a place where a warning says a pawn may stand that was not read (seen faintly
  against another) gets a dashed orange ring and a "?";
- a panel with the five scores, the winners, the violations and the warnings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np
from shapely.geometry import GeometryCollection, MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from vision.doubts import LOW_CONFIDENCE, is_unsure, missed_pawn_places

__all__ = ["draw_overlay", "COLOURS_RGB", "LOW_CONFIDENCE", "is_unsure"]

#: Drawing colours (RGB) of the four strings and the ghosts.
COLOURS_RGB: dict[str, tuple[int, int, int]] = {
    "red": (235, 45, 45),
    "yellow": (255, 215, 20),
    "green": (40, 190, 80),
    "blue": (50, 110, 255),
    "white": (255, 255, 255),
}

_SCORE_ORDER = ("red", "yellow", "green", "blue", "white")
_BLACK = (0, 0, 0)
_WHITE = (255, 255, 255)
_GREY = (170, 170, 170)
_ALARM = (255, 30, 30)
_DOUBT = (255, 150, 0)
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_Colour = tuple[int, int, int]
_Point = tuple[int, int]


def draw_overlay(rgb: np.ndarray, report: Mapping[str, Any], scale: float = 1.0) -> np.ndarray:
    """Return a copy of ``rgb`` with the board report drawn on it.

    Parameters
    ----------
    rgb : ndarray, shape (H, W, 3), uint8
        The photo, RGB, at any resolution.
    report : mapping
        A board report (CONTRACT.md) in original photo pixels, e.g. the output of
        ``dicke-daemonen score --json`` or a synthetic truth file. Missing keys are
        skipped; ``confidence`` and ``warnings`` are drawn when present.
    scale : float, optional
        Original photo pixels per pixel of ``rgb``: report coordinates are divided by it
        (``Photo.scale`` when ``rgb`` is the working image).

    Returns
    -------
    ndarray, shape (H, W, 3), uint8

    Raises
    ------
    ValueError
        ``rgb`` is not an H×W×3 uint8 image, or ``scale`` is not positive.
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"rgb must be an H×W×3 uint8 image, not {rgb.dtype} {rgb.shape}")
    if not scale > 0:
        raise ValueError(f"scale must be positive, not {scale}")
    canvas = _Canvas(np.ascontiguousarray(rgb.copy()), scale)
    crossings = {c["id"]: c for c in report.get("crossings", []) if "id" in c}
    feet = [c["xy"] for c in report.get("creatures", []) if c.get("xy") is not None]
    _draw_fields(canvas, report.get("fields", []), feet)
    _draw_lines(canvas, report.get("lines", {}))
    _draw_crossings(canvas, crossings.values())
    _draw_creatures(canvas, report.get("creatures", []), crossings)
    _draw_missed_pawns(canvas, report.get("warnings", []))
    _draw_crossing_ids(canvas, crossings.values())  # on top: pawns stand next to crossings
    _draw_violations(canvas, report.get("violations", []), report.get("creatures", []))
    _draw_panel(canvas, report)
    return canvas.image


class _Canvas:
    """The image being drawn on, with sizes that grow with it."""

    def __init__(self, image: np.ndarray, scale: float) -> None:
        self.image = image
        self.scale = scale
        # One "unit" ≈ 1/900 of the long side: 2 px on a 2016-px working image, which a
        # phone shows at about half size.
        self.unit = max(1, round(max(image.shape[:2]) / 900))
        # Where the board is, with how much it matters not to hide each point, for
        # placing the panel: a creature or crossing far more than a stretch of line.
        self.occupied: list[tuple[int, int, int]] = []

    def point(self, xy: Sequence[float]) -> _Point:
        x, y = self.points([xy])[0]
        return int(x), int(y)

    def points(self, polyline: Iterable[Sequence[float]]) -> np.ndarray:
        """Photo pixels → pixels of the image drawn on (pixel centres line up)."""
        xy = np.array([[p[0], p[1]] for p in polyline], dtype=np.float64).reshape(-1, 2)
        return ((xy + 0.5) / self.scale - 0.5).round().astype(np.int32)

    def text(
        self, text: str, org: _Point, size: float, colour: _Colour, *, centred: bool = False
    ) -> None:
        """Text with a dark outline, readable on any background."""
        font_scale = size * self.unit
        thickness = max(1, round(font_scale * 1.6))
        if centred:
            (w, h), _ = cv2.getTextSize(text, _FONT, font_scale, thickness)
            org = (org[0] - w // 2, org[1] + h // 2)
        cv2.putText(self.image, text, org, _FONT, font_scale, _BLACK, thickness + 2 * self.unit,
                    cv2.LINE_AA)
        cv2.putText(self.image, text, org, _FONT, font_scale, colour, thickness, cv2.LINE_AA)

    def ring(self, centre: _Point, radius: int, colour: _Colour, width: int) -> None:
        cv2.circle(self.image, centre, radius, _BLACK, width + 2 * self.unit, cv2.LINE_AA)
        cv2.circle(self.image, centre, radius, colour, width, cv2.LINE_AA)


def _is_doubtful(item: Mapping[str, Any]) -> bool:
    return is_unsure(item.get("confidence"))


# --- the board ----------------------------------------------------------------------------


def _draw_lines(canvas: _Canvas, lines: Mapping[str, Any]) -> None:
    u = canvas.unit
    for colour, line in lines.items():
        rgb = COLOURS_RGB.get(colour, _GREY)
        polyline = line.get("polyline") or []
        if len(polyline) >= 2:
            pts = canvas.points(polyline).reshape(-1, 1, 2)
            cv2.polylines(canvas.image, [pts], True, _BLACK, 5 * u, cv2.LINE_AA)
            cv2.polylines(canvas.image, [pts], True, rgb, 2 * u, cv2.LINE_AA)
            canvas.occupied.extend((int(x), int(y), 1) for x, y in pts[::4, 0])
        knot = line.get("knot")
        if knot is not None:
            centre = canvas.point(knot)
            canvas.ring(centre, 11 * u, rgb, 3 * u)
            unsure = is_unsure(line.get("knot_confidence"))
            canvas.text("K?" if unsure else "K", (centre[0] + 13 * u, centre[1] - 8 * u), 0.55,
                        _DOUBT if unsure else rgb)


def _draw_crossings(canvas: _Canvas, crossings: Iterable[Mapping[str, Any]]) -> None:
    u = canvas.unit
    for crossing in crossings:
        centre = canvas.point(crossing["xy"])
        canvas.ring(centre, 5 * u, _WHITE, u)
        canvas.occupied.append((*centre, 20))


def _draw_crossing_ids(canvas: _Canvas, crossings: Iterable[Mapping[str, Any]]) -> None:
    u = canvas.unit
    for crossing in crossings:
        centre = canvas.point(crossing["xy"])
        label = str(crossing["id"]) + ("?" if _is_doubtful(crossing) else "")
        colour = _DOUBT if _is_doubtful(crossing) else _WHITE
        canvas.text(label, (centre[0] + 7 * u, centre[1] - 7 * u), 0.5, colour)


def _draw_fields(
    canvas: _Canvas, fields: Iterable[Mapping[str, Any]], feet: Sequence[Sequence[float]]
) -> None:
    u = canvas.unit
    # Keep the values clear of the creature markers (a ghost often stands right where
    # the label would go); the distance is in photo pixels, like the polygons.
    clearance = 26 * u * canvas.scale
    for field in fields:
        polygon = field.get("polygon")
        if field.get("outer") or not polygon or len(polygon) < 3:
            continue
        label_at = _label_point(polygon, feet, clearance)
        if label_at is None:
            continue
        centre = canvas.point(label_at)
        # A dark disc under the value, so it reads as a field's value, not a crossing id.
        cv2.circle(canvas.image, centre, 15 * u, (40, 40, 40), -1, cv2.LINE_AA)
        cv2.circle(canvas.image, centre, 15 * u, _WHITE, u, cv2.LINE_AA)
        canvas.text(str(field.get("value", "?")), centre, 0.75, _WHITE, centred=True)


def _label_point(
    polygon: Sequence[Sequence[float]], avoid: Sequence[Sequence[float]], clearance: float
) -> tuple[float, float] | None:
    """The point inside the polygon furthest from its edge and from the ``avoid`` points.

    Shapely's polylabel (pole of inaccessibility) of the polygon with discs of radius
    ``clearance`` around the points cut out; of the polygon itself when nothing is left.
    """
    shape = _largest_part(Polygon(polygon) if len(polygon) >= 3 else Polygon())
    if shape is None:
        return None
    near = [p for p in avoid if shape.distance(Point(p)) < clearance]
    if near:
        free = _largest_part(shape.difference(MultiPoint(near).buffer(clearance)))
        if free is not None and free.area > math.pi * (clearance / 2) ** 2:
            shape = free
    point = polylabel(shape, tolerance=max(math.sqrt(shape.area) / 100, 0.5))
    return point.x, point.y


def _largest_part(shape: BaseGeometry) -> Polygon | None:
    if not shape.is_valid:
        shape = shape.buffer(0)
    if isinstance(shape, MultiPolygon | GeometryCollection):
        parts = [g for g in shape.geoms if isinstance(g, Polygon)]
        shape = max(parts, key=lambda part: part.area) if parts else Polygon()
    if not isinstance(shape, Polygon) or shape.is_empty:
        return None
    return shape


# --- creatures ----------------------------------------------------------------------------


def _draw_creatures(
    canvas: _Canvas, creatures: Iterable[Mapping[str, Any]], crossings: Mapping[int, Any]
) -> None:
    u = canvas.unit
    radius = 9 * u
    for creature in creatures:
        if creature.get("xy") is None:
            continue
        foot = canvas.point(creature["xy"])
        canvas.occupied.append((*foot, 40))
        colour = COLOURS_RGB.get(creature.get("colour", ""), _GREY)
        corner = crossings.get(creature.get("crossing"))  # type: ignore[arg-type]
        if corner is not None:
            target = canvas.point(corner["xy"])
            cv2.line(canvas.image, foot, target, _BLACK, 3 * u, cv2.LINE_AA)
            cv2.line(canvas.image, foot, target, colour, u, cv2.LINE_AA)
        if creature.get("kind") == "ghost":
            diamond = np.array(
                [[foot[0], foot[1] - radius - 2 * u], [foot[0] + radius + 2 * u, foot[1]],
                 [foot[0], foot[1] + radius + 2 * u], [foot[0] - radius - 2 * u, foot[1]]],
                dtype=np.int32,
            )
            cv2.fillPoly(canvas.image, [diamond], _WHITE, cv2.LINE_AA)
            cv2.polylines(canvas.image, [diamond], True, _BLACK, 2 * u, cv2.LINE_AA)
        else:
            cv2.circle(canvas.image, foot, radius, colour, -1, cv2.LINE_AA)
            cv2.circle(canvas.image, foot, radius, _BLACK, 2 * u, cv2.LINE_AA)
        if creature.get("off_board"):
            _dashed_ring(canvas, foot, radius + 7 * u, _GREY)
            canvas.text("off", (foot[0] + radius + 9 * u, foot[1] + 5 * u), 0.5, _WHITE)
        if _is_doubtful(creature):
            canvas.text("?", (foot[0] - 4 * u, foot[1] - radius - 6 * u), 0.8, _DOUBT)


def _draw_missed_pawns(canvas: _Canvas, warnings: Iterable[Any]) -> None:
    """A dashed ring and a "?" at each place where a warning says a pawn may stand that
    was not read (:func:`vision.doubts.missed_pawn_warning`), so that the eye finds it."""
    u = canvas.unit
    for place in missed_pawn_places(warnings):
        centre = canvas.point(place)
        _dashed_ring(canvas, centre, 16 * u, _DOUBT)
        canvas.text("?", (centre[0] + 14 * u, centre[1] - 14 * u), 0.8, _DOUBT)
        canvas.occupied.append((*centre, 40))  # no panel over it


def _dashed_ring(canvas: _Canvas, centre: _Point, radius: int, colour: _Colour) -> None:
    for start in range(0, 360, 30):
        cv2.ellipse(canvas.image, centre, (radius, radius), 0, start, start + 16, colour,
                    2 * canvas.unit, cv2.LINE_AA)


def _draw_violations(
    canvas: _Canvas,
    violations: Iterable[Mapping[str, Any]],
    creatures: Iterable[Mapping[str, Any]],
) -> None:
    """A red ring round each creature in a violation, numbered as in the panel's list."""
    u = canvas.unit
    where = {c["id"]: c["xy"] for c in creatures if c.get("xy") is not None and "id" in c}
    numbers_at: dict[int, list[str]] = {}
    for number, violation in enumerate(violations, start=1):
        for creature_id in violation.get("creatures", []):
            if creature_id in where:
                numbers_at.setdefault(creature_id, []).append(str(number))
    for creature_id, numbers in numbers_at.items():
        centre = canvas.point(where[creature_id])
        canvas.ring(centre, 19 * u, _ALARM, 3 * u)
        canvas.text("!" + ",".join(numbers), (centre[0] + 20 * u, centre[1] + 22 * u), 0.65,
                    _ALARM)


# --- the score panel ----------------------------------------------------------------------


def _draw_panel(canvas: _Canvas, report: Mapping[str, Any]) -> None:
    """The scores, winners, violations and doubts in a box where it hides the least
    of the board: the whole list where it hides nothing, else the short form (each
    rule once with its numbers, the doubts counted) if that hides less."""
    u = canvas.unit
    size = 0.6
    font_scale = size * u
    thickness = max(1, round(font_scale * 1.6))
    line_height = round(30 * u)
    image_h, image_w = canvas.image.shape[:2]
    best: tuple[int, list[tuple[str, _Colour]], _Point, int, int] | None = None
    for rows in (_panel_rows(report), _panel_rows(report, short=True)):
        if not rows:
            return
        width = max(cv2.getTextSize(t, _FONT, font_scale, thickness)[0][0] for t, _ in rows)
        width = min(width + 24 * u, image_w)
        height = min(line_height * len(rows) + 16 * u, image_h)
        place, hides = _emptiest_corner(canvas, width, height, margin=8 * u)
        if best is None or hides < best[0]:
            best = (hides, rows, place, width, height)
        if hides == 0:
            break
    assert best is not None
    _, rows, (x0, y0), width, height = best
    # Darken the box rather than painting it over, so the photo still shows through.
    box = canvas.image[y0 : y0 + height, x0 : x0 + width]
    box[:] = (box * 0.3).astype(np.uint8)
    for i, (text, colour) in enumerate(rows):
        canvas.text(text, (x0 + 12 * u, y0 + line_height * (i + 1)), size, colour)


def _panel_rows(report: Mapping[str, Any], short: bool = False) -> list[tuple[str, _Colour]]:
    """The panel's lines; ``short``: each violated rule once with the numbers of its
    violations, and the doubts only counted."""
    rows: list[tuple[str, _Colour]] = []
    scores = report.get("scores") or {}
    winners = set(report.get("winners") or [])
    for colour in _SCORE_ORDER:
        if colour in scores:
            mark = "  WINS" if colour in winners else ""
            rows.append((f"{colour:<7}{scores[colour]:>3}{mark}", COLOURS_RGB[colour]))
    violations = report.get("violations") or []
    if violations:
        rows.append((f"{len(violations)} violation{'s' * (len(violations) != 1)}:", _ALARM))
        numbers: dict[str, list[int]] = {}
        for number, violation in enumerate(violations, start=1):
            numbers.setdefault(str(violation.get("rule", "?")), []).append(number)
            if not short:
                rows.append((f" !{number} {violation.get('rule', '?')}", _ALARM))
        if short:
            for rule, listed in numbers.items():
                rows.append((f" {_number_list(listed)} {rule}", _ALARM))
    doubtful = sum(
        _is_doubtful(item)
        for key in ("crossings", "creatures")
        for item in report.get(key) or []
    ) + sum(
        line.get("knot") is not None and is_unsure(line.get("knot_confidence"))
        for line in (report.get("lines") or {}).values()
    )
    if doubtful:
        rows.append((f"{doubtful} unsure item{'s' * (doubtful != 1)} (?)", _DOUBT))
    warnings = report.get("warnings") or []
    shown = 0 if short else 4
    for warning in warnings[:shown]:
        text = str(warning)
        rows.append(((text[:44] + "...") if len(text) > 47 else text, _DOUBT))
    if len(warnings) > shown:
        more = " more" if shown else ""
        rows.append((f"... and {len(warnings) - shown}{more} warnings", _DOUBT))
    return rows


def _number_list(numbers: list[int]) -> str:
    """"!3", "!1,!4" or "!8-!11": the violations' numbers as the rings show them."""
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"!{numbers[0]}-!{numbers[-1]}"
    return ",".join(f"!{n}" for n in numbers)


def _emptiest_corner(
    canvas: _Canvas, width: int, height: int, margin: int
) -> tuple[_Point, int]:
    """The top-left of a ``width`` × ``height`` box where it hides the least of the
    board, and how much it hides there (the weights of :attr:`_Canvas.occupied`).

    Tries the four corners and the middles of the four edges, in that order of
    preference.
    """
    image_h, image_w = canvas.image.shape[:2]
    left, top = min(margin, image_w - width), min(margin, image_h - height)
    right, bottom = max(0, image_w - width - margin), max(0, image_h - height - margin)
    centre_x, centre_y = max(0, (image_w - width) // 2), max(0, (image_h - height) // 2)
    places = [(left, top), (right, top), (left, bottom), (right, bottom),
              (centre_x, top), (centre_x, bottom), (left, centre_y), (right, centre_y)]
    if not canvas.occupied:
        return places[0], 0
    xyw = np.asarray(canvas.occupied, dtype=np.int64)

    def hidden(place: _Point) -> int:
        x, y = place
        inside_x = (xyw[:, 0] >= x) & (xyw[:, 0] < x + width)
        inside = inside_x & (xyw[:, 1] >= y) & (xyw[:, 1] < y + height)
        return int(xyw[inside, 2].sum())

    best = min(places, key=hidden)  # ties keep the order above: top-left first
    return best, hidden(best)
