"""Between points on the table and places on the board.

:class:`BoardGeometry` answers "which field and corner is this foot point in?" (used
when reading a photo) and "where does a creature stand in this corner or field?" (used
when drawing a board or generating a photo). It is built once per board because it
prepares the field polygons for fast point tests.
"""

from __future__ import annotations

import math

import shapely
from shapely.geometry import LinearRing, Polygon
from shapely.ops import polylabel

from engine.board import Board, Point


class BoardGeometry:
    """Point location and creature positions on one board's geometry.

    Parameters
    ----------
    board : Board
        A board built from geometry (its bounded fields have polygons).

    Raises
    ------
    ValueError
        If a bounded field has no polygon (a board read from a report without them).
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self._polygons: dict[int, Polygon] = {}
        for f in board.fields:
            if f.outer:
                continue
            if f.polygon is None or len(f.polygon) < 3:
                raise ValueError(f"field {f.id} has no polygon; cannot locate points on it")
            polygon = Polygon(f.polygon)
            shapely.prepare(polygon)
            self._polygons[f.id] = polygon
        # Smallest first, so a field nested in a hole of another is found before it.
        self._by_area = sorted(self._polygons, key=lambda i: self._polygons[i].area)
        self._rings = {ln.colour: LinearRing(ln.polyline) for ln in board.lines}
        self._scale = max((r.length for r in self._rings.values()), default=1.0)

    # --- point location ---------------------------------------------------------------

    def field_at(self, xy: Point) -> int:
        """The id of the field containing ``xy`` (the outer field if none does)."""
        for field_id in self._by_area:
            if shapely.contains_xy(self._polygons[field_id], xy[0], xy[1]):
                return field_id
        return self.board.outer_field.id

    def corner_at(self, xy: Point, radius: float) -> tuple[int, int | None]:
        """(field, crossing) of a foot point: the nearest corner of its field within ``radius``.

        ``crossing`` is None when no corner of the field is that close.
        """
        field_id = self.field_at(xy)
        best, best_distance = None, radius
        for crossing_id in set(self.board.fields[field_id].corners):
            distance = math.dist(xy, self.board.crossings[crossing_id].xy)
            if distance <= best_distance:
                best, best_distance = crossing_id, distance
        return field_id, best

    # --- positions for creatures -------------------------------------------------------

    def rays(self, crossing_id: int) -> list[float]:
        """Angles of the four half-lines leaving a crossing, counter-clockwise."""
        crossing = self.board.crossings[crossing_id]
        step = 0.005 * self._scale
        angles = []
        for colour in crossing.lines:
            ring = self._rings[colour]
            s = ring.project(shapely.Point(crossing.xy))
            for offset in (-step, step):
                p = ring.interpolate((s + offset) % ring.length)
                angles.append(math.atan2(p.y - crossing.xy[1], p.x - crossing.xy[0]))
        return sorted(angles)

    def corner_point(self, field_id: int, crossing_id: int, clearance: float) -> Point:
        """Where a creature stands in a corner: on the sector's bisector, ``clearance``
        away from both lines (but never further out than 4 x ``clearance``).

        Raises
        ------
        ValueError
            If the field has no corner at that crossing.
        """
        return self.corner_points(field_id, crossing_id, clearance)[0]

    def corner_points(self, field_id: int, crossing_id: int, clearance: float) -> list[Point]:
        """:meth:`corner_point` of every sector the field owns at the crossing (one,
        unless the field is pinched there and owns two)."""
        crossing = self.board.crossings[crossing_id]
        points = []
        for bisector, half_angle in self._sectors(crossing_id):
            probe = (
                crossing.xy[0] + 0.004 * self._scale * math.cos(bisector),
                crossing.xy[1] + 0.004 * self._scale * math.sin(bisector),
            )
            if self.field_at(probe) == field_id:
                distance = min(clearance / max(math.sin(half_angle), 1e-6), 4 * clearance)
                points.append(
                    (
                        crossing.xy[0] + distance * math.cos(bisector),
                        crossing.xy[1] + distance * math.sin(bisector),
                    )
                )
        if not points:
            raise ValueError(f"field {field_id} has no corner at crossing {crossing_id}")
        return points

    def _sectors(self, crossing_id: int) -> list[tuple[float, float]]:
        angles = self.rays(crossing_id)
        sectors = []
        for i, start in enumerate(angles):
            end = angles[(i + 1) % 4] + (2 * math.pi if i == 3 else 0.0)
            sectors.append(((start + end) / 2, (end - start) / 2))
        return sectors

    def field_centre(self, field_id: int) -> Point:
        """The point of a bounded field furthest from its boundary: where a ghost stands."""
        if field_id not in self._polygons:
            raise ValueError(f"field {field_id} is the outer field or unknown; it has no centre")
        polygon = self._polygons[field_id]
        centre = polylabel(polygon, tolerance=polygon.length * 1e-3)
        return (centre.x, centre.y)

    def clearance_of(self, field_id: int) -> float:
        """Radius of the largest circle inside a bounded field."""
        centre = self.field_centre(field_id)
        return float(self._polygons[field_id].exterior.distance(shapely.Point(centre)))
