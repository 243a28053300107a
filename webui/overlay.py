"""What the result page draws over the photo, worked out once from a board report.

:func:`board_view` turns a report into plain values (SVG point lists, field owners and
labels, creature marks with their violations) for the template's SVG, and
:func:`overlay_png` draws the same picture with Pillow for the PNG export.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engine.colours import DEMON, LINE_COLOURS
from engine.errors import EngineError
from engine.placement import BoardGeometry
from engine.report import board_from_report
from engine.scoring import field_majorities

#: Colours drawn for each game colour (strong enough on light and dark tables).
PAINT = {
    "red": "#d7263d",
    "yellow": "#f4c20d",
    "green": "#1f9d55",
    "blue": "#1e63d6",
    "white": "#ffffff",
}
#: Items the reader is less sure of than this are marked for the players to check.
LOW_CONFIDENCE = 0.6


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


@dataclass(frozen=True)
class BoardView:
    """Everything the overlay shows, in the report's pixel coordinates."""

    width: int
    height: int
    #: Stroke unit: a thousandth of the photo's longer side.
    unit: float
    lines: Sequence[tuple[str, str, tuple[float, float] | None]]
    crossings: Sequence[tuple[int, float, float, bool]]
    fields: Sequence[FieldView]
    creatures: Sequence[CreatureView]
    violations: Sequence[Mapping[str, Any]]
    warnings: Sequence[str] = field(default_factory=list)
    low_confidence_crossings: int = 0

    @property
    def outer_field(self) -> FieldView | None:
        return next((f for f in self.fields if f.outer), None)


def _points(polyline: Sequence[Sequence[float]]) -> str:
    return " ".join(f"{p[0]:.1f},{p[1]:.1f}" for p in polyline)


def _low(entry: Mapping[str, Any]) -> bool:
    confidence = entry.get("confidence")
    return isinstance(confidence, int | float) and confidence < LOW_CONFIDENCE


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
        )
        for i, c in enumerate(board.creatures)
        if c.xy is not None
    ]
    raw_crossings = {c.get("id"): c for c in report.get("crossings", [])}
    crossings = [
        (c.id, c.xy[0], c.xy[1], _low(raw_crossings.get(c.id, {}))) for c in board.crossings
    ]
    return BoardView(
        width=width,
        height=height,
        unit=max(width, height) / 1000,
        lines=[(ln.colour, _points(ln.polyline), ln.knot) for ln in board.lines],
        crossings=crossings,
        fields=fields,
        creatures=creatures,
        violations=violations,
        warnings=[str(w) for w in report.get("warnings", [])],
        low_confidence_crossings=sum(1 for c in crossings if c[3]),
    )


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
        }
        for c in view.creatures
    }


# --- PNG export --------------------------------------------------------------------------


def _rgb(colour: str, alpha: int = 255) -> tuple[int, int, int, int]:
    hex_colour = PAINT[colour].lstrip("#")
    return (int(hex_colour[0:2], 16), int(hex_colour[2:4], 16), int(hex_colour[4:6], 16), alpha)


def overlay_png(view: BoardView, photo: Image.Image) -> bytes:
    """The overlay drawn over ``photo`` (any size: coordinates are scaled to it), as PNG."""
    base = photo.convert("RGBA")
    scale = base.width / view.width
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    unit = max(1.0, view.unit * scale)

    def at(x: float, y: float) -> tuple[float, float]:
        return (x * scale, y * scale)

    for f in view.fields:
        if f.owner and f.points:
            polygon = [at(*map(float, p.split(","))) for p in f.points.split()]
            draw.polygon(polygon, fill=_rgb(f.owner, 70))
    for colour, points, knot in view.lines:
        line = [at(*map(float, p.split(","))) for p in points.split()]
        draw.line([*line, line[0]], fill=_rgb(colour), width=max(2, round(3 * unit)))
        if knot is not None:
            x, y = at(*knot)
            r = 7 * unit
            draw.rectangle(
                (x - r, y - r, x + r, y + r), outline=_rgb(colour), width=round(2 * unit)
            )
    for _, x0, y0, _low_confidence in view.crossings:
        x, y = at(x0, y0)
        r = 4 * unit
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(20, 20, 20, 255))
    font = ImageFont.load_default(size=max(12, round(22 * unit)))
    for f in view.fields:
        if f.label is not None:
            x, y = at(*f.label)
            draw.text((x, y), str(f.value), fill=(255, 255, 255, 255), font=font, anchor="mm",
                      stroke_width=max(1, round(2 * unit)), stroke_fill=(0, 0, 0, 255))
    for c in view.creatures:
        x, y = at(*c.xy)
        r = 11 * unit
        outline = (230, 0, 0, 255) if c.problems else (0, 0, 0, 255)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=_rgb(c.colour, 120 if c.off_board else 255),
                     outline=outline, width=max(2, round((4 if c.problems else 2) * unit)))
    out = io.BytesIO()
    Image.alpha_composite(base, layer).convert("RGB").save(out, "PNG", optimize=False)
    return out.getvalue()
