"""Board topology from geometry: crossings, fields, corners and knots.

The four closed lines cut the table into faces. We find the crossings with shapely,
cut every loop into edges between consecutive crossings, and walk the faces of the
resulting planar graph with a half-edge structure (each half-edge has its face on the
left). Walking faces rather than polygonizing gives corners for free: every time a
face's boundary passes through a crossing, the face owns one sector (one corner) there.

Coordinates can be anything metric (photo pixels, table millimetres); orientation does
not matter because faces are told apart by the sign of their area in the same frame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing, Point, Polygon

from engine.board import Board, Crossing, Field, Line, Sector
from engine.board import Point as XY
from engine.colours import LINE_COLOURS, check_line_colour
from engine.errors import LayoutError
from engine.geometry import as_points, ring_crossings, signed_area

FloatArray = NDArray[np.float64]


#: A string's direction at a crossing is taken this far along it (a fraction of the
#: longest loop's length); engine.placement looks in the same place.
LEAVING_REACH: Final = 1e-4

#: Most crossings a layout may have. The rules' boards have a few dozen at most (the
#: layout generator makes 8 to 24, the sample photos have at most 24): four cords of
#: about 1.2 m with pawns 19 mm wide standing in the corners leave no room for many
#: more. 200 is far beyond any real board, and keeps a layout at the cap quick to build
#: (a comb-shaped line drawn to cross another tens of thousands of times took minutes).
MAX_CROSSINGS: Final = 200
#: Loop segments compared at once while counting crossings (bounds the memory of one
#: query: a segment may cross a few thousand others of a comb-shaped line).
_COUNT_CHUNK: Final = 64


def build_board(
    lines: Mapping[str, Sequence[Sequence[float]]],
    knots: Mapping[str, Sequence[float] | None] | None = None,
) -> Board:
    """Build the topology of a layout of closed lines.

    Parameters
    ----------
    lines : mapping of colour to sequence of (x, y)
        Each line's centre as a closed polyline, first point not repeated. Colours are
        ``red``, ``yellow``, ``green``, ``blue``; any non-empty subset may be given.
    knots : mapping of colour to (x, y) or None, optional
        Where each line's tie knot lies; it is projected onto its own line.

    Returns
    -------
    Board
        The board with crossings, fields (field 0 is the outer field) and sectors, and
        no creatures.

    Raises
    ------
    LayoutError
        If a loop has fewer than three distinct points or crosses itself, two lines
        overlap along a stretch or touch without crossing, three lines meet in one
        point, or a knot lies on a crossing.
    """
    if not lines:
        raise LayoutError("a layout needs at least one line")
    knots = knots or {}
    for colour in knots:
        check_line_colour(colour)
    loops = {colour: _Loop.from_points(colour, pts) for colour, pts in _in_colour_order(lines)}
    crossings = _find_crossings(loops)
    graph = _PlanarGraph.build(loops, crossings)
    faces = graph.faces()
    fields, sector_owner, half_edge_field = _fields_from_faces(graph, faces, crossings)
    field_knots = _place_knots(loops, knots, graph, half_edge_field, len(fields))
    fields = [Field(f.id, f.outer, f.corners, tuple(field_knots[f.id]), f.polygon) for f in fields]
    sectors = tuple(
        Sector(crossing=c, index=i, field=sector_owner[(c, i)])
        for c in range(len(crossings))
        for i in range(4)
    )
    board_lines = tuple(
        Line(colour, loop.points_tuple(), _knot_xy(knots.get(colour)))
        for colour, loop in loops.items()
    )
    board_crossings = tuple(
        Crossing(i, hit.xy, tuple(sorted(hit.colours)))  # type: ignore[arg-type]
        for i, hit in enumerate(crossings)
    )
    return Board(
        lines=board_lines, crossings=board_crossings, fields=tuple(fields), sectors=sectors
    )


def _in_colour_order(
    lines: Mapping[str, Sequence[Sequence[float]]],
) -> list[tuple[str, Sequence[Sequence[float]]]]:
    for colour in lines:
        check_line_colour(colour)
    return [(c, lines[c]) for c in LINE_COLOURS if c in lines]


def _knot_xy(knot: Sequence[float] | None) -> XY | None:
    return None if knot is None else (float(knot[0]), float(knot[1]))


# --- loops ----------------------------------------------------------------------------


@dataclass
class _Loop:
    """One closed line with its cumulative arc length, for cutting it into edges."""

    colour: str
    coords: FloatArray  # (N, 2), first point not repeated
    cumulative: FloatArray  # (N + 1,), arc length at each vertex, closing vertex included
    ring: LinearRing
    doubled: FloatArray  # two rounds of the loop, so that a stretch past 0 is one slice
    doubled_cumulative: FloatArray

    @classmethod
    def from_points(cls, colour: str, points: Sequence[Sequence[float]]) -> _Loop:
        coords = _as_closed_polyline(colour, points)
        closed = np.vstack([coords, coords[:1]])
        steps = np.hypot(*np.diff(closed, axis=0).T)
        ring = LinearRing(coords)
        if not ring.is_simple:
            raise LayoutError(f"the {colour} loop crosses or touches itself")
        cumulative = np.concatenate([[0.0], np.cumsum(steps)])
        length = cumulative[-1]
        doubled = np.vstack([coords, closed])
        doubled_cumulative = np.concatenate([cumulative[:-1], cumulative + length])
        return cls(colour, coords, cumulative, ring, doubled, doubled_cumulative)

    @property
    def length(self) -> float:
        return float(self.cumulative[-1])

    def points_tuple(self) -> tuple[XY, ...]:
        return as_points(self.coords)

    def stretch(self, start: float, end: float) -> FloatArray:
        """Points along the loop from arc length ``start`` to ``end`` (wrapping past 0)."""
        if end <= start:
            end += self.length
        doubled, cumulative = self.doubled, self.doubled_cumulative
        lo, hi = np.searchsorted(cumulative, [start, end], side="right")
        inner = doubled[lo:hi][cumulative[lo:hi] < end]
        first = _point_at(doubled, cumulative, start)
        last = _point_at(doubled, cumulative, end)
        return np.vstack([first, inner, last])


def _as_closed_polyline(colour: str, points: Sequence[Sequence[float]]) -> FloatArray:
    try:
        coords = np.asarray(points, dtype=float)
    except (TypeError, ValueError) as error:
        raise LayoutError(f"the {colour} line is not a list of (x, y) points") from error
    if coords.ndim != 2 or coords.shape[1] != 2 or not np.isfinite(coords).all():
        raise LayoutError(f"the {colour} line is not a list of finite (x, y) points")
    if len(coords) > 1 and np.allclose(coords[0], coords[-1]):
        coords = coords[:-1]  # tolerate a repeated closing point
    keep = np.concatenate([[True], np.any(np.diff(coords, axis=0) != 0, axis=1)])
    coords = np.asarray(coords[keep], dtype=np.float64)
    if len(coords) < 3:
        raise LayoutError(
            f"the {colour} loop has {len(coords)} distinct points; a loop needs at least 3"
        )
    return coords


def _point_at(coords: FloatArray, cumulative: FloatArray, s: float) -> FloatArray:
    i = int(np.clip(np.searchsorted(cumulative, s, side="right") - 1, 0, len(coords) - 2))
    span = cumulative[i + 1] - cumulative[i]
    t = 0.0 if span == 0 else (s - cumulative[i]) / span
    point: FloatArray = coords[i] + t * (coords[i + 1] - coords[i])
    return point


# --- crossings ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    """A crossing before ids are given: where it is and how far along each loop."""

    xy: XY
    colours: tuple[str, str]
    arc: tuple[float, float]


def _find_crossings(loops: Mapping[str, _Loop]) -> list[_Hit]:
    _check_crossing_count(loops)
    hits: list[_Hit] = []
    colours = list(loops)
    for i, a in enumerate(colours):
        for b in colours[i + 1 :]:
            points = _intersection_points(loops[a], loops[b])
            along_a = shapely.line_locate_point(loops[a].ring, points)
            along_b = shapely.line_locate_point(loops[b].ring, points)
            for point, s_a, s_b in zip(points, along_a, along_b, strict=True):
                hits.append(_Hit((point.x, point.y), (a, b), (float(s_a), float(s_b))))
    if len(hits) > MAX_CROSSINGS:
        raise LayoutError(f"the lines cross {len(hits)} times; a board has at most "
                          f"{MAX_CROSSINGS} crossings")
    _check_crossings_apart(hits, loops)
    # A stable, readable order: top to bottom, then left to right.
    return sorted(hits, key=lambda h: (h.xy[1], h.xy[0]))


def _intersection_points(a: _Loop, b: _Loop) -> list[Point]:
    found = ring_crossings(a.ring, b.ring)
    if found is None:
        raise LayoutError(f"the {a.colour} and {b.colour} lines overlap along a stretch")
    return [Point(x, y) for x, y in found]


def _check_crossing_count(loops: Mapping[str, _Loop]) -> None:
    """Refuse lines that plainly cross more than :data:`MAX_CROSSINGS` times, before
    their crossings are computed (for a comb-shaped line that alone took seconds).

    Pairs of segments that meet in a point are counted, a few at a time, and the count
    stops as soon as it is over the bound: a crossing lies on at most two segments of
    each (simple) loop, so there are at most four such pairs per crossing. Two segments
    sharing a stretch are not a crossing: their lines overlap, and are refused as such
    (else two identical loops would be said to cross far too often).
    """
    bound = 4 * MAX_CROSSINGS
    segments = {colour: _segments(loop) for colour, loop in loops.items()}
    trees = {colour: shapely.STRtree(found) for colour, found in segments.items()}
    meeting = 0
    colours = list(loops)
    for i, a in enumerate(colours):
        for b in colours[i + 1 :]:
            for start in range(0, len(segments[a]), _COUNT_CHUNK):
                chunk = segments[a][start : start + _COUNT_CHUNK]
                # Once bound + 1 pairs meet in a point the lines are refused: the
                # pairs past those need no look.
                pairs = trees[b].query(chunk, predicate="intersects")
                mine, theirs = pairs[:, : bound + 1 - meeting]
                shared = shapely.intersection(chunk[mine], segments[b][theirs])
                if (shapely.get_dimensions(shared) > 0).any():
                    raise LayoutError(f"the {a} and {b} lines overlap along a stretch")
                meeting += len(mine)
                if meeting > bound:
                    raise LayoutError(
                        f"the lines cross far more often than a board's at most "
                        f"{MAX_CROSSINGS} crossings"
                    )


def _segments(loop: _Loop) -> NDArray[np.object_]:
    """The loop's segments as shapely line strings, the closing one included."""
    closed = np.vstack([loop.coords, loop.coords[:1]])
    return np.asarray(shapely.linestrings(np.stack([closed[:-1], closed[1:]], axis=1)))


def _check_crossings_apart(hits: Sequence[_Hit], loops: Mapping[str, _Loop]) -> None:
    """Refuse three lines meeting in one point: two crossings (nearly) at one place.

    Crossings are put in a grid of cells as wide as the tolerance, so each is compared
    only with those in its own and the neighbouring cells, not with every other one.
    """
    scale = max(loop.length for loop in loops.values())
    tolerance = 1e-9 * scale
    cells: dict[tuple[int, int], list[_Hit]] = {}
    for h in hits:
        cx, cy = math.floor(h.xy[0] / tolerance), math.floor(h.xy[1] / tolerance)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for other in cells.get((cx + dx, cy + dy), []):
                    if math.dist(h.xy, other.xy) <= tolerance:
                        names = sorted(set(h.colours) | set(other.colours))
                        raise LayoutError(
                            f"lines {', '.join(names)} meet in one point at {_fmt(h.xy)}"
                        )
        cells.setdefault((cx, cy), []).append(h)


def _fmt(xy: XY) -> str:
    return f"({xy[0]:.1f}, {xy[1]:.1f})"


# --- the planar graph and its faces -----------------------------------------------------


@dataclass
class _PlanarGraph:
    """Vertices (crossings, plus one stand-in on each loop that crosses nothing) and
    half-edges. Half-edge ``2e`` runs along edge ``e`` in the loop's direction, ``2e+1``
    runs back. ``outgoing[v]`` lists a vertex's half-edges counter-clockwise."""

    vertex_xy: list[XY]
    is_crossing: list[bool]
    origin: list[int]
    geometry: list[FloatArray]
    edge_colour: list[str]
    edge_arc: list[tuple[float, float]]
    outgoing: list[list[int]]

    @classmethod
    def build(cls, loops: Mapping[str, _Loop], crossings: Sequence[_Hit]) -> _PlanarGraph:
        vertex_xy = [h.xy for h in crossings]
        is_crossing = [True] * len(crossings)
        on_loop: dict[str, list[tuple[float, int]]] = {c: [] for c in loops}
        for v, hit in enumerate(crossings):
            for colour, arc in zip(hit.colours, hit.arc, strict=True):
                on_loop[colour].append((arc, v))
        for colour, loop in loops.items():
            if not on_loop[colour]:  # a loop crossing nothing still bounds two faces
                vertex_xy.append((float(loop.coords[0][0]), float(loop.coords[0][1])))
                is_crossing.append(False)
                on_loop[colour].append((0.0, len(vertex_xy) - 1))
        graph = cls(vertex_xy, is_crossing, [], [], [], [], [[] for _ in vertex_xy])
        for colour, stops in on_loop.items():
            graph._add_loop_edges(loops[colour], sorted(stops))
        graph._sort_outgoing(loops)
        return graph

    def _add_loop_edges(self, loop: _Loop, stops: list[tuple[float, int]]) -> None:
        for k, (arc, v) in enumerate(stops):
            next_arc, w = stops[(k + 1) % len(stops)]
            forward = loop.stretch(arc, next_arc)
            forward[0], forward[-1] = self.vertex_xy[v], self.vertex_xy[w]
            self.edge_colour.append(loop.colour)
            self.edge_arc.append((arc, next_arc))
            for origin, geometry in ((v, forward), (w, forward[::-1])):
                self.origin.append(origin)
                self.geometry.append(geometry)
                self.outgoing[origin].append(len(self.origin) - 1)

    def _sort_outgoing(self, loops: Mapping[str, _Loop]) -> None:
        # Each string's direction just beyond the vertex, where engine.placement looks
        # for it too (LEAVING_REACH of the longest loop along it): the first vertex of
        # the polyline after the crossing may lie a hair behind it, and point back.
        reach = LEAVING_REACH * max(loop.length for loop in loops.values())
        for v, half_edges in enumerate(self.outgoing):
            half_edges.sort(key=lambda h: self._leaving_angle(h, reach))
            if self.is_crossing[v]:
                colours = [self.edge_colour[h // 2] for h in half_edges]
                if colours[0] == colours[1] or colours[1] == colours[2]:
                    raise LayoutError(
                        f"the {' and '.join(sorted(set(colours)))} lines touch without crossing "
                        f"at {_fmt(self.vertex_xy[v])}"
                    )

    def _leaving_angle(self, half_edge: int, reach: float) -> float:
        """The direction from the half-edge's origin to its point ``reach`` along it
        (at most halfway along a shorter edge)."""
        points = self.geometry[half_edge]
        steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
        along = np.concatenate([[0.0], np.cumsum(steps)])
        if along[-1] <= 0:
            raise LayoutError("an edge of the layout has no length")
        at = min(reach, along[-1] / 2)
        x = float(np.interp(at, along, points[:, 0]))
        y = float(np.interp(at, along, points[:, 1]))
        return math.atan2(y - points[0][1], x - points[0][0])

    def twin(self, half_edge: int) -> int:
        return half_edge ^ 1

    def next_on_face(self, half_edge: int) -> int:
        """The half-edge that follows ``half_edge`` with the same face on its left."""
        twin = self.twin(half_edge)
        around = self.outgoing[self.origin[twin]]
        return around[(around.index(twin) - 1) % len(around)]

    def sector_index(self, half_edge: int) -> int:
        """Which sector of its origin lies on the left of ``half_edge``."""
        return self.outgoing[self.origin[half_edge]].index(half_edge)

    def faces(self) -> list[list[int]]:
        """Every face boundary as a cycle of half-edges."""
        seen = [False] * len(self.origin)
        cycles = []
        for start in range(len(self.origin)):
            if seen[start]:
                continue
            cycle, h = [], start
            while not seen[h]:
                seen[h] = True
                cycle.append(h)
                h = self.next_on_face(h)
            cycles.append(cycle)
        return cycles

    def outline(self, cycle: Sequence[int]) -> FloatArray:
        return np.vstack([self.geometry[h][:-1] for h in cycle])

    def components(self) -> list[int]:
        """Connected-component label of every half-edge (union-find over vertices)."""
        parent = list(range(len(self.vertex_xy)))

        def find(v: int) -> int:
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        for h in range(0, len(self.origin), 2):
            parent[find(self.origin[h])] = find(self.origin[h + 1])
        return [find(self.origin[h]) for h in range(len(self.origin))]


@dataclass
class _Face:
    cycle: list[int]
    outline: FloatArray
    area: float
    component: int


def _fields_from_faces(
    graph: _PlanarGraph, cycles: list[list[int]], crossings: Sequence[_Hit]
) -> tuple[list[Field], dict[tuple[int, int], int], dict[int, int]]:
    """Turn face cycles into fields.

    Bounded faces have positive area (their boundary runs counter-clockwise with the
    face on the left); the one negative cycle of each connected component is that
    component's outside. It belongs to the outer field, or, when a group of lines lies
    inside a face of another group, to that face (as a hole).
    """
    component = graph.components()
    faces = []
    for cycle in cycles:
        outline = graph.outline(cycle)
        faces.append(_Face(cycle, outline, signed_area(outline), component[cycle[0]]))
    bounded = sorted((f for f in faces if f.area > 0), key=lambda f: _reading_order(f.outline))
    outsides = [f for f in faces if f.area <= 0]
    field_of_face: dict[int, int] = {id(f): i + 1 for i, f in enumerate(bounded)}
    shells = [Polygon(f.outline) for f in bounded]
    for outside in outsides:
        field_of_face[id(outside)] = _enclosing_field(outside, bounded, shells, graph)

    owner: dict[tuple[int, int], int] = {}
    half_edge_field: dict[int, int] = {}
    corners: list[list[int]] = [[] for _ in range(len(bounded) + 1)]
    for face in faces:
        field_id = field_of_face[id(face)]
        for h in face.cycle:
            half_edge_field[h] = field_id
            v = graph.origin[h]
            if graph.is_crossing[v]:
                corners[field_id].append(v)
                owner[(v, graph.sector_index(h))] = field_id
    fields = [Field(0, True, tuple(sorted(corners[0])))]
    for i, face in enumerate(bounded, start=1):
        polygon = as_points(np.round(face.outline, 3))
        fields.append(Field(i, False, tuple(sorted(corners[i])), (), polygon))
    assert len(owner) == 4 * len(crossings)
    return fields, owner, half_edge_field


def _reading_order(outline: FloatArray) -> tuple[float, float]:
    centre = outline.mean(axis=0)
    return (round(float(centre[1]), 6), round(float(centre[0]), 6))


def _enclosing_field(
    outside: _Face, bounded: Sequence[_Face], shells: Sequence[Polygon], graph: _PlanarGraph
) -> int:
    """The smallest bounded face of another component that contains ``outside``."""
    x, y = graph.vertex_xy[graph.origin[outside.cycle[0]]]
    best, best_area = 0, math.inf
    for i, (face, shell) in enumerate(zip(bounded, shells, strict=True)):
        other_group = face.component != outside.component
        if other_group and face.area < best_area and shapely.contains_xy(shell, x, y):
            best, best_area = i + 1, face.area
    return best


# --- knots ----------------------------------------------------------------------------


def _place_knots(
    loops: Mapping[str, _Loop],
    knots: Mapping[str, Sequence[float] | None],
    graph: _PlanarGraph,
    half_edge_field: Mapping[int, int],
    field_count: int,
) -> list[list[str]]:
    """Which fields each knot counts for: the two on either side of its edge."""
    field_knots: list[list[str]] = [[] for _ in range(field_count)]
    for colour, knot in knots.items():
        if knot is None:
            continue
        if colour not in loops:
            raise LayoutError(f"a knot is given for the {colour} line, which is missing")
        loop = loops[colour]
        arc = float(loop.ring.project(Point(float(knot[0]), float(knot[1]))))
        edge = _edge_holding(graph, colour, arc, loop)
        for h in (2 * edge, 2 * edge + 1):
            field_knots[half_edge_field[h]].append(colour)
    for names in field_knots:
        names.sort(key=LINE_COLOURS.index)
    return field_knots


def _edge_holding(graph: _PlanarGraph, colour: str, arc: float, loop: _Loop) -> int:
    tolerance = 1e-9 * loop.length
    for edge, (start, end) in enumerate(graph.edge_arc):
        if graph.edge_colour[edge] != colour:
            continue
        span = (end - start) % loop.length or loop.length
        offset = (arc - start) % loop.length
        if offset >= span:
            continue
        ends = [graph.origin[2 * edge], graph.origin[2 * edge + 1]]
        touches_crossing = any(graph.is_crossing[v] for v in ends)
        if touches_crossing and (offset <= tolerance or span - offset <= tolerance):
            raise LayoutError(f"the {colour} knot lies on a crossing")
        return edge
    raise AssertionError("every point of a loop lies on one of its edges")
