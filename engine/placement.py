"""Between points on the table and places on the board.

:func:`locate_creatures` answers "where does this creature stand?" for foot points seen
in a photo, placed in the editor or made by the generator: the field, and for a demon
the crossing and the sector (the corner) it stands in. :class:`BoardGeometry` does the
point location and also answers the other way round, "where does a creature stand in
this corner or field?", for drawing boards and generating photos. It is built once per
board because it prepares the field polygons for fast point tests.

All distances of the rules below are in units of the pawn's radius (the radius of a
creature's base), so that the same rules hold in table millimetres and photo pixels.

Which corner a demon stands in
    Around a crossing the two strings leave in four directions; the foot lies angularly
    in one of the four sectors between them, and the board says which field owns that
    sector (:attr:`Board.sectors`): the field follows from the sector, not from the
    nearest crossing of the field the foot is in. The directions are taken where the
    strings are at the foot's distance from the crossing, so a gently curving string
    is followed. A pawn snug in a corner stands ``CORNER_AIR`` radii from both strings,
    which puts it ``CORNER_AIR / sin(a)`` radii from the crossing in a sector of
    half-angle ``a`` (at most ``CORNER_DEPTH``: a narrow corner holds its pawn where it
    fits). A foot's *fit* to a corner is how far, in radii, it is from that: the larger
    of its differences from ``CORNER_AIR`` to each string and its depth beyond the snug
    one. Corners whose crossing is at most ``CORNER_REACH`` radii beyond the snug
    depth are candidates (about 4 radii in a square corner) and the best fit wins;
    candidates in the field the foot stands in come first (a string that bends
    between the crossing and the foot is then still on the right side).

Ambiguity (the best guess is always given)
    ``"on-string"``: the foot is within ``ON_STRING`` radii of a string, so the field
    could be either side. ``"far-from-corners"``: a demon with no corner within reach;
    it keeps the field it stands in and no crossing. ``"between-corners"``: the second
    best corner fits within ``BETWEEN_CORNERS`` radii of the best one, or the best
    corner's snug spot lies within ``SAME_SPOT`` radii of another candidate corner's
    spot in the same field (a sliver of a field, whose corners all hold their pawn in
    about the same place: where the foot stands cannot tell them apart). Between
    corners that fit about equally, a demon goes to a crossing of its own colour where
    one is among them: a pawn snug in the best corner to the nearest such crossing, a
    loose one to the best fit (a photo's perspective makes a clear corner on the table
    look about equal to another).

Off the board
    A creature is off the board (a prediction in front of a player) when its foot lies
    in the outer field, outside the convex hull of the lines, and at least
    ``OFF_BOARD_CLEARANCE`` radii from every line. The generator keeps predictions 70 mm
    from every line (7 radii of a 20 mm pawn) and creatures in play closer than that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing, MultiLineString, Polygon
from shapely.ops import polylabel

from engine.board import Board, Creature, Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from engine.errors import BoardError
from engine.topology import LEAVING_REACH

FloatArray = NDArray[np.float64]

#: A foot closer to a string than this many pawn radii could stand on either side.
ON_STRING: Final = 0.3
#: A pawn snug in a corner stands this many pawn radii from both of its strings.
CORNER_AIR: Final = 1.25
#: A pawn in a corner stands at most this many pawn radii from its crossing.
CORNER_DEPTH: Final = 5.0
#: A corner is within reach of a foot up to this many pawn radii beyond its snug depth.
CORNER_REACH: Final = 2.5
#: Two corners are "between" when their fits differ by less than this many radii...
BETWEEN_CORNERS: Final = 0.5
#: ...or when the spots where they hold a snug pawn are closer than this many radii
#: (the corners of a sliver of a field). With 0.5, 22 of the 1,216 corner points of 20
#: random layouts are flagged (13 without), with 1.0 it would be 50.
SAME_SPOT: Final = 0.5
#: An off-board creature stands at least this many pawn radii from every line.
OFF_BOARD_CLEARANCE: Final = 5.0
#: Where a string's direction at a crossing is taken, and where a sector's field is
#: looked up when the board has no sectors: fractions of the longest loop's length.
_TANGENT: Final = LEAVING_REACH
_PROBE: Final = 2e-3
#: Sectors narrower than this (half-angle, radians) count as this wide for the snug depth.
_MIN_HALF_ANGLE: Final = math.radians(8.0)

#: The ambiguity labels of a :class:`Location`.
ON_STRING_AMBIGUITY: Final = "on-string"
BETWEEN_CORNERS_AMBIGUITY: Final = "between-corners"
FAR_FROM_CORNERS_AMBIGUITY: Final = "far-from-corners"


@dataclass(frozen=True)
class Foot:
    """What the reader, the editor or the generator knows of one creature.

    Attributes
    ----------
    kind : {"demon", "ghost"}
    colour : str
        A line colour for a demon, ``"white"`` for a ghost.
    xy : (float, float)
        Where the creature's base touches the table, in the board's frame.
    """

    kind: str
    colour: str
    xy: Point


@dataclass(frozen=True)
class Location:
    """Where one foot stands on a board.

    Attributes
    ----------
    creature : Creature
        The creature, with ``field``, ``crossing`` and ``off_board`` set and
        ``xy`` the foot.
    field : int or None
        The field it stands in; ``None`` when off the board.
    crossing : int or None
        The crossing of a demon's corner; ``None`` for a ghost, a demon away from every
        corner and an off-board creature.
    sector : int or None
        Index (0..3, see :class:`engine.board.Sector`) of the sector at ``crossing``
        the foot lies in; ``None`` when ``crossing`` is.
    distance : float
        From the foot to ``crossing``; ``math.inf`` without a crossing.
    ambiguity : str or None
        ``None`` when clear, else ``"on-string"``, ``"between-corners"`` or
        ``"far-from-corners"`` (the module docstring gives the rules).
    alternatives : tuple of (field, crossing)
        For a demon ``"between-corners"``: the other corners its foot fits about as well,
        best first (those the foot cannot tell from the one chosen); else empty.
    """

    creature: Creature
    field: int | None
    crossing: int | None
    sector: int | None
    distance: float
    ambiguity: str | None
    alternatives: tuple[tuple[int, int], ...] = ()


def locate_creatures(board: Board, feet: Sequence[Foot], *, pawn_radius: float) -> list[Location]:
    """Locate every foot on ``board``: field, corner (for a demon), off the board or not.

    Parameters
    ----------
    board : Board
        A board with geometry: lines, crossings and bounded fields with polygons.
    feet : sequence of Foot
        The creatures' kinds, colours and foot points, in the board's frame.
    pawn_radius : float
        Radius of a creature's base in the board's units (about 9.5 mm on the table).

    Returns
    -------
    list of Location
        One per foot, in the same order.

    Raises
    ------
    BoardError
        If ``pawn_radius`` is not a positive finite number, a foot names an unknown
        kind or colour or has no finite point (naming it, e.g. ``feet[3].colour``), or
        a bounded field has no polygon.
    """
    return BoardGeometry(board).locate(feet, pawn_radius=pawn_radius)


@dataclass(frozen=True)
class _Candidate:
    crossing: int
    sector: int
    field: int
    distance: float
    #: How far from snug in the corner, in pawn radii (see _corner_fit): smaller is better.
    score: float


class BoardGeometry:
    """Point location and creature positions on one board's geometry.

    Parameters
    ----------
    board : Board
        A board built from geometry (its bounded fields have polygons).

    Raises
    ------
    BoardError
        If a bounded field has no polygon (a board read from a report without them).
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self._polygons: dict[int, Polygon] = {}
        for f in board.fields:
            if f.outer:
                continue
            if f.polygon is None or len(f.polygon) < 3:
                raise BoardError(f"fields[{f.id}]: no polygon; cannot locate points on it")
            polygon = Polygon(np.asarray(f.polygon, dtype=float))
            shapely.prepare(polygon)
            self._polygons[f.id] = polygon
        # Smallest first, so a field nested in a hole of another is found before it.
        self._by_area = sorted(self._polygons, key=lambda i: self._polygons[i].area)
        self._rings = {ln.colour: LinearRing(ln.polyline) for ln in board.lines}
        self._strings = MultiLineString([[*ln.polyline, ln.polyline[0]] for ln in board.lines])
        shapely.prepare(self._strings)
        self._hull = self._strings.convex_hull
        self._coords = {ln.colour: _closed_coords(ln.polyline) for ln in board.lines}
        self._arcs = {colour: _cumulative_arc(c) for colour, c in self._coords.items()}
        #: (crossing, colour) -> arc length of the crossing along that colour's line.
        self._crossing_arc: dict[tuple[int, str], float] = {}
        self._scale = max((r.length for r in self._rings.values()), default=1.0)
        self._local_rays = [self._leaving_rays(c.id) for c in board.crossings]
        self._sector_field = self._sector_fields()
        #: (crossing, sector, clearance) -> the corner's spot (see :meth:`_corner_spot`).
        self._spots: dict[tuple[int, int, float], Point] = {}
        #: field -> its centre (see :meth:`field_centre`), asked for by several steps.
        self._centres: dict[int, Point] = {}

    # --- point location ---------------------------------------------------------------

    def field_at(self, xy: Point) -> int:
        """The id of the field containing ``xy`` (the outer field if none does)."""
        for field_id in self._by_area:
            if shapely.contains_xy(self._polygons[field_id], xy[0], xy[1]):
                return field_id
        return self.board.outer_field.id

    def distance_to_lines(self, xy: Point) -> float:
        """Distance from ``xy`` to the nearest string."""
        return float(shapely.distance(shapely.Point(xy), self._strings))

    def sector_at(self, crossing_id: int, xy: Point) -> int:
        """Index of the sector of ``crossing_id`` that ``xy`` lies in, angularly.

        The strings' directions are measured at the point's distance from the crossing.
        """
        crossing = self.board.crossings[crossing_id]
        reach = math.dist(xy, crossing.xy)
        angle = math.atan2(xy[1] - crossing.xy[1], xy[0] - crossing.xy[0])
        return _sector_of(self.rays(crossing_id, reach), angle)

    def locate(self, feet: Sequence[Foot], *, pawn_radius: float) -> list[Location]:
        """:func:`locate_creatures` on this geometry."""
        radius = _check_radius(pawn_radius)
        return [self._locate_one(foot, f"feet[{i}]", radius) for i, foot in enumerate(feet)]

    def corner_at(self, xy: Point, radius: float) -> tuple[int, int | None]:
        """(field, crossing) of a demon's foot at ``xy``, as :meth:`locate` decides it.

        ``radius`` is the farthest a foot may be from a crossing and still be in its
        corner; it stands for pawns of radius ``radius / (CORNER_DEPTH + CORNER_REACH)``.
        Prefer :func:`locate_creatures` with the real pawn radius.
        """
        found = self._locate_demon(xy, _check_radius(radius) / (CORNER_DEPTH + CORNER_REACH))
        return (self.field_at(xy) if found.field is None else found.field), found.crossing

    def _locate_one(self, foot: Foot, where: str, radius: float) -> Location:
        xy = _check_foot(foot, where)
        field_id = self.field_at(xy)
        if self._is_off_board(xy, field_id, radius):
            creature = Creature(foot.kind, foot.colour, xy=xy, off_board=True)
            return Location(creature, None, None, None, math.inf, None)
        if foot.kind == GHOST:
            ambiguity = ON_STRING_AMBIGUITY if self._on_string(xy, radius) else None
            creature = Creature(GHOST, WHITE, xy=xy, field=field_id)
            return Location(creature, field_id, None, None, math.inf, ambiguity)
        found = self._locate_demon(xy, radius, foot.colour)
        creature = Creature(DEMON, foot.colour, xy=xy, field=found.field, crossing=found.crossing)
        return Location(
            creature,
            found.field,
            found.crossing,
            found.sector,
            found.distance,
            found.ambiguity,
            found.alternatives,
        )

    def _locate_demon(
        self, xy: Point, radius: float, colour: str | None = None, compare_spots: bool = True
    ) -> _DemonPlace:
        field_id = self.field_at(xy)
        on_string = self._on_string(xy, radius)
        candidates = self._candidates(xy, radius)
        if not on_string:
            # A bending string can put the foot angularly in a sector of the neighbour
            # field while it plainly stands in this one: trust the field it stands in.
            inside = [c for c in candidates if c.field == field_id]
            candidates = inside or candidates
        ambiguity: str | None = None
        if not candidates:
            ambiguity = ON_STRING_AMBIGUITY if on_string else FAR_FROM_CORNERS_AMBIGUITY
            return _DemonPlace(field_id, None, None, math.inf, ambiguity)
        candidates.sort(key=lambda c: c.score)
        best = candidates[0]
        close = [c for c in candidates if c.score - best.score < BETWEEN_CORNERS]
        same_spot: list[_Candidate] = []
        others = [c for c in candidates[1:] if c.field == best.field]
        if compare_spots and not on_string and len(close) == 1 and others:
            spot = self._spot(best, radius)
            same_spot = [
                c for c in others if math.dist(self._spot(c, radius), spot) < SAME_SPOT * radius
            ]
        if on_string:
            ambiguity = ON_STRING_AMBIGUITY
        elif same_spot:
            # Corners of a sliver that hold their pawn in about the same place: the
            # best fit is the only guess the foot gives, and it is a weak one.
            ambiguity = BETWEEN_CORNERS_AMBIGUITY
        elif len(close) > 1:
            ambiguity = BETWEEN_CORNERS_AMBIGUITY
            # Corners that fit about equally well: the foot does not say, so the rules
            # do: a demon belongs at a crossing of its own colour. Of those, where the
            # pawn stands snug, the nearest (in a small field a pawn may be snug in
            # several); otherwise the best fit. (The nearest of all the close corners,
            # as before, put a foot read a tenth of a radius off into a foreign corner
            # half as deep: with the truth's feet moved 0.12 radii at random, 0.57 ->
            # 0.34 % of demons misplaced on generated boards, none on the dev photos.)
            own = [c for c in close if colour in self.board.crossings[c.crossing].lines]
            if best.score < BETWEEN_CORNERS:
                best = min(own or close, key=lambda c: c.distance)
            elif own:
                best = own[0]
        alternatives: tuple[tuple[int, int], ...] = ()
        if ambiguity == BETWEEN_CORNERS_AMBIGUITY:
            chosen = (best.field, best.crossing)
            corners = ((c.field, c.crossing) for c in [*close, *same_spot])
            alternatives = tuple(dict.fromkeys(c for c in corners if c != chosen))
        return _DemonPlace(
            best.field, best.crossing, best.sector, best.distance, ambiguity, alternatives
        )

    def _spot(self, candidate: _Candidate, radius: float) -> Point:
        """Where a snug pawn of ``radius`` stands in the candidate's corner."""
        return self._corner_spot(candidate.crossing, candidate.sector, CORNER_AIR * radius)

    def _candidates(self, xy: Point, radius: float) -> list[_Candidate]:
        found = []
        for crossing in self.board.crossings:
            distance = math.dist(xy, crossing.xy)
            if distance > (CORNER_DEPTH + CORNER_REACH) * radius:
                continue
            angle = math.atan2(xy[1] - crossing.xy[1], xy[0] - crossing.xy[0])
            rays = self.rays(crossing.id, distance)
            sector = _sector_of(rays, angle)
            start, end = rays[sector], rays[(sector + 1) % 4]
            from_start, to_end = _ccw(start, angle), _ccw(angle, end)
            if distance <= (_snug_depth(from_start + to_end) + CORNER_REACH) * radius:
                fit = _corner_fit(distance, from_start, to_end, radius)
                field_id = self._sector_field[(crossing.id, sector)]
                found.append(_Candidate(crossing.id, sector, field_id, distance, fit))
        return found

    def _on_string(self, xy: Point, radius: float) -> bool:
        return self.distance_to_lines(xy) < ON_STRING * radius

    def _is_off_board(self, xy: Point, field_id: int, radius: float) -> bool:
        return (
            field_id == self.board.outer_field.id
            and not shapely.contains_xy(self._hull, xy[0], xy[1])
            and self.distance_to_lines(xy) >= OFF_BOARD_CLEARANCE * radius
        )

    # --- the strings around a crossing -------------------------------------------------

    def rays(self, crossing_id: int, reach: float = 0.0) -> list[float]:
        """Angles of the four half-lines leaving a crossing, in sector order.

        Ray ``i`` and ray ``i + 1`` bound sector ``i`` (counter-clockwise). With
        ``reach`` > 0 each angle points at the string ``reach`` along it from the
        crossing (the string's direction at that distance); with 0, the string's
        direction at the crossing. The order is always the topology's.
        """
        local = self._local_rays[crossing_id]
        if reach <= 0:
            return [angle for angle, _, _ in local]
        x, y = self.board.crossings[crossing_id].xy
        far = []
        for _, colour, sign in local:
            px, py = self._point_along(
                colour, self._crossing_arc[(crossing_id, colour)] + sign * reach
            )
            far.append(math.atan2(py - y, px - x))
        # A string that curls back past its neighbour ray would reorder the rays; then
        # the directions at the crossing itself are the better description.
        turns = sum(_ccw(far[i], far[(i + 1) % 4]) for i in range(4))
        return far if math.isclose(turns, 2 * math.pi, abs_tol=1e-6) else self.rays(crossing_id)

    def _leaving_rays(self, crossing_id: int) -> list[tuple[float, str, int]]:
        """(angle, colour, direction) of the four half-lines, sorted by angle.

        Each is the string's direction just beyond the crossing (``_TANGENT`` of the
        longest loop along it), as :mod:`engine.topology` orders them to number the
        sectors. It is measured from the string's own point nearest to the crossing, so a
        crossing rounded in a report (off the string by a little) does not turn it.
        """
        crossing = self.board.crossings[crossing_id]
        rays = []
        for colour in crossing.lines:
            if self.board.line(colour) is None:
                raise BoardError(f"crossings[{crossing_id}]: the {colour} line is missing")
            s = float(self._rings[colour].project(shapely.Point(crossing.xy)))
            self._crossing_arc[(crossing_id, colour)] = s
            x0, y0 = self._point_along(colour, s)
            for sign in (1, -1):
                x1, y1 = self._point_along(colour, s + sign * _TANGENT * self._scale)
                rays.append((math.atan2(y1 - y0, x1 - x0), colour, sign))
        return sorted(rays)

    def _point_along(self, colour: str, s: float) -> Point:
        """The point ``s`` along the line of ``colour`` (wrapping around the loop)."""
        cumulative, coords = self._arcs[colour], self._coords[colour]
        s %= cumulative[-1]
        x = float(np.interp(s, cumulative, coords[:, 0]))
        return (x, float(np.interp(s, cumulative, coords[:, 1])))

    def _sector_fields(self) -> dict[tuple[int, int], int]:
        """(crossing, sector index) -> field: from the board, or by looking if it has none."""
        if self.board.sectors:
            return {(s.crossing, s.index): s.field for s in self.board.sectors}
        owners = {}
        for crossing in self.board.crossings:
            # Far enough out that a crossing rounded in a report is well behind the
            # probe, near enough that no other string comes between.
            step = _PROBE * self._scale
            rays = self.rays(crossing.id, step)
            for i in range(4):
                middle = rays[i] + _ccw(rays[i], rays[(i + 1) % 4]) / 2
                probe = (
                    crossing.xy[0] + step * math.cos(middle),
                    crossing.xy[1] + step * math.sin(middle),
                )
                owners[(crossing.id, i)] = self.field_at(probe)
        return owners

    # --- positions for creatures -------------------------------------------------------

    def corner_point(self, field_id: int, crossing_id: int, clearance: float) -> Point:
        """Where a creature stands in a corner of ``field_id`` at ``crossing_id``.

        On the sector's bisector, ``clearance`` away from both strings, as a pawn of
        radius ``clearance / CORNER_AIR`` stands snug in the corner. When that point is
        not clear of every string or would not be located back in this corner
        (a small or narrow field), the point along the bisector that is, and is
        furthest from the strings, is taken instead.

        Raises
        ------
        BoardError
            If the field has no corner at that crossing.
        """
        return self.corner_points(field_id, crossing_id, clearance)[0]

    def corner_points(self, field_id: int, crossing_id: int, clearance: float) -> list[Point]:
        """:meth:`corner_point` of every sector the field owns at the crossing (one,
        unless the field is pinched there and owns two)."""
        return [spot for _, spot in self.corner_spots(field_id, crossing_id, clearance)]

    def corner_spots(
        self, field_id: int, crossing_id: int, clearance: float
    ) -> list[tuple[int, Point]]:
        """(sector index, :meth:`corner_point`) of every sector the field owns at the
        crossing, in the sectors' order."""
        return [
            (index, self._corner_spot(crossing_id, index, clearance))
            for index in self.corner_sectors(field_id, crossing_id)
        ]

    def corner_sectors(self, field_id: int, crossing_id: int) -> list[int]:
        """Indices of the sectors of ``crossing_id`` that ``field_id`` owns, in order
        (one, unless the field is pinched there and owns two).

        Raises
        ------
        BoardError
            If the field has no corner at that crossing.
        """
        sectors = [i for i in range(4) if self._sector_field.get((crossing_id, i)) == field_id]
        if not sectors:
            raise BoardError(f"field {field_id} has no corner at crossing {crossing_id}")
        return sectors

    def _corner_spot(self, crossing_id: int, sector: int, clearance: float) -> Point:
        """:meth:`corner_point` of one sector (cached: the walk below costs dozens of
        locations, and a reader asks again for the spots of the same corners)."""
        key = (crossing_id, sector, clearance)
        if key not in self._spots:
            self._spots[key] = self._walked_corner_spot(crossing_id, sector, clearance)
        return self._spots[key]

    def _walked_corner_spot(self, crossing_id: int, sector: int, clearance: float) -> Point:
        radius = clearance / CORNER_AIR
        rays = self.rays(crossing_id, clearance)
        half_angle = max(_ccw(rays[sector], rays[(sector + 1) % 4]) / 2, _MIN_HALF_ANGLE)
        snug = min(clearance / math.sin(half_angle), CORNER_DEPTH * radius)
        best = self._bisector_point(crossing_id, sector, snug)
        if self._corner_quality(best, crossing_id, sector, radius)[:2] == (2, 1):
            return best
        # Walk the bisector; prefer being located back unambiguously, then clear of
        # every string, then closest to the snug depth.
        best_key: tuple[int, int, float, float] | None = None
        for depth in np.linspace(0.3, CORNER_DEPTH, 48) * radius:
            point = self._bisector_point(crossing_id, sector, float(depth))
            located, clear, distance = self._corner_quality(point, crossing_id, sector, radius)
            key = (located, clear, min(distance, clearance), -abs(depth - snug))
            if best_key is None or key > best_key:
                best, best_key = point, key
        return best

    def _bisector_point(self, crossing_id: int, sector: int, depth: float) -> Point:
        crossing = self.board.crossings[crossing_id]
        rays = self.rays(crossing_id, depth)
        angle = rays[sector] + _ccw(rays[sector], rays[(sector + 1) % 4]) / 2
        return (crossing.xy[0] + depth * math.cos(angle), crossing.xy[1] + depth * math.sin(angle))

    def _corner_quality(
        self, point: Point, crossing_id: int, sector: int, radius: float
    ) -> tuple[int, int, float]:
        """(2 if located back clearly, 1 if ambiguously, else 0; 1 if clear of every
        string by ``CORNER_AIR`` radii, else 0; the distance to the nearest string)."""
        # Spots are not compared here: they are what is being found.
        found = self._locate_demon(point, radius, compare_spots=False)
        located = 0
        in_field = self.field_at(point) == self._sector_field[(crossing_id, sector)]
        if in_field and (found.crossing, found.sector) == (crossing_id, sector):
            located = 1 if found.ambiguity else 2
        distance = self.distance_to_lines(point)
        clear = int(distance >= 0.95 * CORNER_AIR * radius)
        return located, clear, distance

    def field_centre(self, field_id: int) -> Point:
        """The point of a bounded field furthest from its boundary: where a ghost stands."""
        if field_id not in self._polygons:
            raise BoardError(f"field {field_id} is the outer field or unknown; it has no centre")
        if field_id not in self._centres:
            polygon = self._polygons[field_id]
            centre = polylabel(polygon, tolerance=polygon.length * 1e-3)
            self._centres[field_id] = (centre.x, centre.y)
        return self._centres[field_id]

    def clearance_of(self, field_id: int) -> float:
        """Radius of the largest circle inside a bounded field."""
        centre = self.field_centre(field_id)
        return float(self._polygons[field_id].exterior.distance(shapely.Point(centre)))


@dataclass(frozen=True)
class _DemonPlace:
    field: int | None
    crossing: int | None
    sector: int | None
    distance: float
    ambiguity: str | None
    alternatives: tuple[tuple[int, int], ...] = ()


def _sector_of(rays: Sequence[float], angle: float) -> int:
    """Index of the sector (between ray i and ray i + 1) that ``angle`` points into."""
    for i, start in enumerate(rays):
        if _ccw(start, angle) < _ccw(start, rays[(i + 1) % 4]):
            return i
    return len(rays) - 1  # only reached through rounding exactly on a ray


def _snug_depth(width: float) -> float:
    """How many pawn radii from its crossing a pawn stands snug in a sector ``width``
    radians wide: ``CORNER_AIR`` from both strings, but at most ``CORNER_DEPTH``."""
    return min(CORNER_AIR / math.sin(max(width / 2, _MIN_HALF_ANGLE)), CORNER_DEPTH)


def _corner_fit(distance: float, from_start: float, to_end: float, radius: float) -> float:
    """How far (in pawn radii) a foot is from standing snugly in a corner.

    The foot is ``distance`` from the crossing, ``from_start`` and ``to_end`` radians
    from the two strings bounding its sector. A pawn snug in the corner stands
    ``CORNER_AIR`` radii from both strings, which puts it ``CORNER_AIR / sin(a)``
    radii from the crossing in a sector of half-angle ``a`` (but at most
    ``CORNER_DEPTH``: a very narrow corner holds its pawn where it fits). The fit is
    the larger of the differences from both strings and the depth beyond that, so 0
    is a perfect corner pawn at any sector width.
    """
    air = CORNER_AIR * radius
    depth = _snug_depth(from_start + to_end) * radius
    gaps = [distance * math.sin(a) if a < math.pi / 2 else distance for a in (from_start, to_end)]
    off = max(abs(gap - air) for gap in gaps)
    return max(off, distance - depth) / radius


def _ccw(start: float, end: float) -> float:
    """Counter-clockwise turn from angle ``start`` to angle ``end``, in [0, 2 pi)."""
    return (end - start) % (2 * math.pi)


def _closed_coords(polyline: Sequence[Point]) -> FloatArray:
    """(n + 1, 2) array of a closed polyline, its first point repeated at the end."""
    coords = np.asarray(polyline, dtype=float)
    return np.vstack([coords, coords[:1]])


def _cumulative_arc(closed: FloatArray) -> FloatArray:
    steps = np.hypot(*np.diff(closed, axis=0).T)
    return np.concatenate([[0.0], np.cumsum(steps)])


def _check_radius(pawn_radius: float) -> float:
    if (
        not isinstance(pawn_radius, int | float)
        or isinstance(pawn_radius, bool)
        or not math.isfinite(pawn_radius)
        or pawn_radius <= 0
    ):
        raise BoardError(f"pawn_radius: expected a positive finite number, got {pawn_radius!r}")
    return float(pawn_radius)


def _check_foot(foot: Foot, where: str) -> Point:
    if foot.kind not in (DEMON, GHOST):
        raise BoardError(f"{where}.kind: expected 'demon' or 'ghost', got {foot.kind!r:.40}")
    allowed = (WHITE,) if foot.kind == GHOST else LINE_COLOURS
    if foot.colour not in allowed:
        raise BoardError(
            f"{where}.colour: a {foot.kind} is {' or '.join(allowed)}, not {foot.colour!r:.40}"
        )
    try:
        x, y = (float(v) for v in foot.xy)
    except (TypeError, ValueError) as error:
        raise BoardError(f"{where}.xy: expected (x, y), got {foot.xy!r:.40}") from error
    if not (math.isfinite(x) and math.isfinite(y)):
        raise BoardError(f"{where}.xy: expected finite numbers, got {foot.xy!r:.40}")
    return (x, y)


__all__ = [
    "BETWEEN_CORNERS",
    "CORNER_REACH",
    "OFF_BOARD_CLEARANCE",
    "ON_STRING",
    "BoardGeometry",
    "Foot",
    "Location",
    "locate_creatures",
]
