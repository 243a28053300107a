"""Is a board consistent? Every problem at once, wherever the board came from.

A board built in code (``Board.with_creatures``, a :class:`~engine.game.Game`) and one
read from a report get the same checks, so that an inconsistent board raises one typed
error naming the entry instead of a ``KeyError`` deep in scoring.

- :func:`board_problems` lists what is wrong with a board's own entries, like
  python-chess's ``Board.status()``: ids, colours, finite coordinates, every crossing a
  corner of four sectors, every knot counted by two fields and present on its line,
  creatures naming fields and corners that exist.
- :func:`geometry_problems` rebuilds the topology from the lines and knots and says
  where the board's crossings and fields disagree with it.
- :func:`check_board` raises :class:`~engine.errors.BoardError` if there is anything.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from shapely.errors import GEOSException
from shapely.geometry import Polygon

from engine.board import Board, Creature, Field, Point, Sector, is_point
from engine.colours import LINE_COLOURS
from engine.errors import BoardError, LayoutError, Problem, excerpt
from engine.placement import BoardGeometry
from engine.topology import build_board

#: Largest absolute coordinate accepted anywhere (photo pixels or millimetres).
MAX_COORDINATE = 1e7
#: Crossings of the rebuilt topology match the board's within this fraction of the
#: board's extent (reports round coordinates to 0.1).
CROSSING_TOLERANCE = 0.005


def check_board(board: Board, *, coordinates: bool = True) -> Board:
    """Return ``board`` if :func:`board_problems` finds nothing, else raise.

    Raises
    ------
    BoardError
        Naming the first problem and how many more; ``problems`` has them all.
    """
    if coordinates:
        problems = board_problems(board)
    else:
        problems = [*board.topology_problems, *creature_problems(board, board.creatures)]
    if problems:
        raise BoardError.of(problems)
    return board


def board_problems(board: Board, *, coordinates: bool = True) -> list[Problem]:
    """Everything wrong with ``board``'s entries, in the order of the board report.

    Parameters
    ----------
    board : Board
    coordinates : bool
        Also check every point of the lines and field outlines (finite, in range).
        Off, only the topology and the creatures are checked, which is much faster
        (for a board that :func:`engine.topology.build_board` made).

    Returns
    -------
    list of Problem
        Empty for a consistent board. Each names its entry, e.g. ``fields[3].corners[1]``.
    """
    return [
        *_line_problems(board, coordinates),
        *_crossing_problems(board),
        *_field_problems(board, coordinates),
        *_sector_problems(board),
        *creature_problems(board, board.creatures),
    ]


def check_creatures(board: Board) -> None:
    """Raise :class:`~engine.errors.BoardError` if the board cannot hold its creatures."""
    problems = creature_problems(board, board.creatures)
    if problems:
        raise BoardError.of(problems)


def creature_problems(board: Board, creatures: Sequence[Creature], first: int = 0) -> list[Problem]:
    """What is wrong with ``creatures`` on ``board``, numbered from ``first``."""
    problems = []
    for i, creature in enumerate(creatures, start=first):
        problem = board.placement_problem(creature)
        if problem is not None:
            problems.append(_under(f"creatures[{i}]", problem))
    return problems


def _under(prefix: str, problem: Problem) -> Problem:
    where = f"{prefix}.{problem.where}" if problem.where else prefix
    return Problem(where, problem.message)


# --- the board's own entries ------------------------------------------------------------


def _point_problem(where: str, point: object) -> Problem | None:
    if not is_point(point):
        return Problem(where, f"expected two finite numbers, got {excerpt(point)}")
    assert isinstance(point, tuple | list)
    if max(abs(point[0]), abs(point[1])) > MAX_COORDINATE:
        return Problem(where, f"coordinates beyond ±{MAX_COORDINATE:g} are refused")
    return None


def _points_problems(where: str, points: Sequence[object]) -> list[Problem]:
    try:  # the quick way for the usual thousands of good points
        array = np.asarray(points, dtype=float)
        if array.ndim == 2 and array.shape[1] == 2 and np.abs(array).max() <= MAX_COORDINATE:
            return []  # (also False for NaN)
    except (TypeError, ValueError, OverflowError):
        pass
    for i, point in enumerate(points):
        problem = _point_problem(f"{where}[{i}]", point)
        if problem is not None:
            return [problem]  # one per polyline is enough to find it
    return [Problem(where, "expected a list of [x, y] points")]


def _line_problems(board: Board, coordinates: bool) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for line in board.lines:
        where = f"lines.{line.colour}"
        if line.colour not in LINE_COLOURS:
            problems.append(Problem("lines", f"unknown colour {excerpt(line.colour)}"))
            continue
        if line.colour in seen:
            problems.append(Problem(where, "the line is given twice"))
        seen.add(line.colour)
        if coordinates:
            problems += _points_problems(f"{where}.polyline", line.polyline)
        if len(line.polyline) < 3 or (coordinates and len(set(line.polyline)) < 3):
            problems.append(Problem(f"{where}.polyline", "a loop needs at least 3 distinct points"))
        if line.knot is not None:
            problem = _point_problem(f"{where}.knot", line.knot)
            problems += [problem] if problem else []
    return problems


def _crossing_problems(board: Board) -> list[Problem]:
    problems = []
    present = {line.colour for line in board.lines}
    for i, crossing in enumerate(board.crossings):
        where = f"crossings[{i}]"
        if crossing.id != i:
            problems.append(Problem(f"{where}.id", f"expected {i}, got {excerpt(crossing.id)}"))
        problem = _point_problem(f"{where}.xy", crossing.xy)
        problems += [problem] if problem else []
        a, b = crossing.lines
        if a == b or a not in LINE_COLOURS or b not in LINE_COLOURS:
            problems.append(
                Problem(f"{where}.lines", f"expected two different line colours, got {[a, b]}")
            )
            continue
        missing = [c for c in (a, b) if c not in present]
        if missing:
            problems.append(
                Problem(f"{where}.lines", f"the {' and '.join(missing)} line is not on the board")
            )
    return problems


def _field_problems(board: Board, coordinates: bool) -> list[Problem]:
    problems = []
    outer = [f.id for f in board.fields if f.outer]
    if len(outer) != 1:
        problems.append(Problem("fields", f"exactly one field must be outer, found {len(outer)}"))
    corner_slots: Counter[int] = Counter()
    knot_counts: Counter[str] = Counter()
    for i, field in enumerate(board.fields):
        where = f"fields[{i}]"
        if field.id != i:
            problems.append(Problem(f"{where}.id", f"expected {i}, got {excerpt(field.id)}"))
        if field.outer and field.polygon is not None:
            problems.append(Problem(f"{where}.polygon", "the outer field has no polygon"))
        if coordinates and field.polygon is not None:
            problems += _points_problems(f"{where}.polygon", field.polygon)
        for k, corner in enumerate(field.corners):
            if not 0 <= corner < len(board.crossings):
                problems.append(
                    Problem(f"{where}.corners[{k}]", f"crossing {corner} does not exist")
                )
            corner_slots[corner] += 1
        for crossing_id, count in sorted(Counter(field.corners).items()):
            if count > 2:
                problems.append(
                    Problem(
                        f"{where}.corners",
                        f"lists crossing {crossing_id} {count} times; a field has at most two "
                        "of a crossing's four sectors",
                    )
                )
        for k, colour in enumerate(field.knots):
            if colour not in LINE_COLOURS:
                problems.append(Problem(f"{where}.knots[{k}]", f"unknown colour {excerpt(colour)}"))
                continue
            knot_counts[colour] += 1
            line = board.line(colour)
            if line is None or line.knot is None:
                problems.append(
                    Problem(
                        f"{where}.knots[{k}]",
                        f"counts the {colour} knot, but lines.{colour}.knot is "
                        f"{'missing' if line is None else 'null'}",
                    )
                )
    for crossing in board.crossings:
        if corner_slots[crossing.id] != 4:
            problems.append(
                Problem(
                    "fields",
                    f"list crossing {crossing.id} as a corner {corner_slots[crossing.id]} "
                    "times; a crossing is a corner of four sectors",
                )
            )
    for line in board.lines:
        count = knot_counts[line.colour]
        if (line.knot is not None or count) and count != 2:
            problems.append(
                Problem(
                    f"lines.{line.colour}.knot",
                    f"a knot counts for the two fields beside it, this one for {count}",
                )
            )
    return problems


def _sector_problems(board: Board) -> list[Problem]:
    if not board.sectors:
        return []
    expected = {(c.id, i) for c in board.crossings for i in range(4)}
    given = Counter((s.crossing, s.index) for s in board.sectors)
    if set(given) != expected or max(given.values()) != 1:
        return [Problem("sectors", "expected four sectors (0..3) of every crossing, once each")]
    by_sector = Counter((s.field, s.crossing) for s in board.sectors)
    by_corner = Counter((f.id, c) for f in board.fields for c in f.corners)
    if by_sector != by_corner:
        field_id, crossing = next(iter((by_sector - by_corner) + (by_corner - by_sector)))
        return [
            Problem(
                f"fields[{field_id}].corners",
                f"the sectors and the corners disagree on crossing {crossing}",
            )
        ]
    return []


# --- the topology against the lines ----------------------------------------------------


@dataclass(frozen=True)
class GeometryCheck:
    """What :func:`geometry_problems` found.

    ``sectors`` is the board's sectors (the rebuilt ones in the board's ids) when the
    topology agrees with the lines, else empty.
    """

    problems: tuple[Problem, ...]
    sectors: tuple[Sector, ...]


def geometry_problems(board: Board) -> GeometryCheck:
    """Where the board's crossings and fields disagree with its lines and knots.

    The topology is rebuilt from the polylines and knots (:func:`engine.topology.build_board`)
    and matched to the board's: crossings by position and colours, bounded fields by a
    point inside their polygon. A report's bounded fields always have one
    (:func:`engine.report.board_from_report` refuses one without, before this check);
    only a board built in code may lack one, and its field is then matched by its
    corners, as a last resort. Every difference is a problem naming the board's entry.
    """
    try:
        rebuilt = build_board(
            {ln.colour: ln.polyline for ln in board.lines},
            {ln.colour: ln.knot for ln in board.lines},
        )
    except LayoutError as error:
        return GeometryCheck((Problem("lines", f"not a legal layout: {error}"),), ())
    problems: list[Problem] = []
    crossing_map = _match_crossings(board, rebuilt, problems)
    field_map = _match_fields(board, rebuilt, BoardGeometry(rebuilt), crossing_map, problems)
    if problems:
        return GeometryCheck(tuple(problems), ())
    back_crossing = {new: old for old, new in crossing_map.items()}
    back_field = {new: old for old, new in field_map.items()}
    sectors = tuple(
        sorted(
            (
                Sector(back_crossing[s.crossing], s.index, back_field[s.field])
                for s in rebuilt.sectors
            ),
            key=lambda s: (s.crossing, s.index),
        )
    )
    return GeometryCheck((), sectors)


def renumbered_like(rebuilt: Board, old: Board) -> tuple[Board, dict[int, int], dict[int, int]]:
    """``rebuilt`` numbered like ``old`` as far as they match, and how the ids moved.

    Crossings and fields of ``rebuilt`` that match one of ``old`` (as
    :func:`geometry_problems` matches them) come first, in the order of their old ids;
    new ones follow. Where nothing changed, every id stays what it was.

    Returns
    -------
    (Board, dict, dict)
        The renumbered board, and old id -> new id of the matched crossings and fields.
    """
    unused: list[Problem] = []  # differences are expected: the lines were edited
    crossing_map = _match_crossings(old, rebuilt, unused)
    field_map = _match_fields(old, rebuilt, BoardGeometry(rebuilt), crossing_map, unused)
    crossing_id = _new_ids(len(rebuilt.crossings), crossing_map)
    field_id = _new_ids(len(rebuilt.fields), field_map)
    crossings = sorted(
        (replace(c, id=crossing_id[c.id]) for c in rebuilt.crossings), key=lambda c: c.id
    )
    fields = sorted(
        (
            replace(f, id=field_id[f.id], corners=tuple(sorted(crossing_id[c] for c in f.corners)))
            for f in rebuilt.fields
        ),
        key=lambda f: f.id,
    )
    sectors = sorted(
        (Sector(crossing_id[s.crossing], s.index, field_id[s.field]) for s in rebuilt.sectors),
        key=lambda s: (s.crossing, s.index),
    )
    board = replace(
        rebuilt, crossings=tuple(crossings), fields=tuple(fields), sectors=tuple(sectors)
    )
    moved_crossings = {old_id: crossing_id[new] for old_id, new in crossing_map.items()}
    moved_fields = {old_id: field_id[new] for old_id, new in field_map.items()}
    return board, moved_crossings, moved_fields


def _new_ids(count: int, matched: dict[int, int]) -> dict[int, int]:
    """Rebuilt id -> final id: matched ones in the order of their old ids, then the rest."""
    old_of = {new: old for old, new in matched.items()}
    order = sorted(range(count), key=lambda new: (old_of.get(new, math.inf), new))
    return {new: final for final, new in enumerate(order)}


def _extent(board: Board) -> float:
    points = [p for line in board.lines for p in line.polyline]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)


def _match_crossings(board: Board, rebuilt: Board, problems: list[Problem]) -> dict[int, int]:
    """Board crossing id -> rebuilt crossing id, nearest first; problems for the rest."""
    tolerance = CROSSING_TOLERANCE * _extent(board)
    pairs = sorted(
        (math.dist(old.xy, new.xy), old.id, new.id)
        for old in board.crossings
        for new in rebuilt.crossings
        if old.lines == new.lines and math.dist(old.xy, new.xy) <= tolerance
    )
    matched: dict[int, int] = {}
    taken: set[int] = set()
    for _, old_id, new_id in pairs:
        if old_id not in matched and new_id not in taken:
            matched[old_id] = new_id
            taken.add(new_id)
    for old in board.crossings:
        if old.id not in matched:
            a, b = old.lines
            problems.append(
                Problem(
                    f"crossings[{old.id}]",
                    f"the {a} and {b} lines do not cross at {_fmt(old.xy)}",
                )
            )
    for new in rebuilt.crossings:
        if new.id not in taken:
            a, b = new.lines
            problems.append(
                Problem(
                    "crossings",
                    f"the {a} and {b} lines cross at {_fmt(new.xy)}, which no crossing lists",
                )
            )
    return matched


def _match_fields(
    board: Board,
    rebuilt: Board,
    geometry: BoardGeometry,
    crossing_map: dict[int, int],
    problems: list[Problem],
) -> dict[int, int]:
    """Board field id -> rebuilt field id; problems for fields that differ."""
    back = {new: old for old, new in crossing_map.items()}

    def in_board_ids(corners: Sequence[int]) -> list[int | str]:
        return sorted(
            (back.get(c, f"new {_fmt(rebuilt.crossings[c].xy)}") for c in corners), key=str
        )

    matched: dict[int, int] = {}
    for field in board.fields:
        where = f"fields[{field.id}]"
        new_id = _matching_field(field, rebuilt, geometry, crossing_map)
        if new_id is None:
            problems.append(Problem(where, "no field of the lines matches it"))
            continue
        other = next((old for old, new in matched.items() if new == new_id), None)
        if other is not None:
            problems.append(Problem(where, f"covers the same area as fields[{other}]"))
            continue
        matched[field.id] = new_id
        new = rebuilt.fields[new_id]
        expected, given = in_board_ids(new.corners), sorted(field.corners, key=str)
        if expected != given:
            problems.append(
                Problem(
                    f"{where}.corners",
                    f"the lines give corners at crossings {expected}, the board lists {given}",
                )
            )
        if sorted(new.knots) != sorted(field.knots):
            problems.append(
                Problem(
                    f"{where}.knots",
                    f"the lines give knots {sorted(new.knots)}, the board lists "
                    f"{sorted(field.knots)}",
                )
            )
    for new in rebuilt.fields:
        if new.id not in matched.values():
            centre = Polygon(new.polygon).representative_point() if new.polygon else None
            place = f" around {_fmt((centre.x, centre.y))}" if centre is not None else ""
            problems.append(Problem("fields", f"the lines make a field{place} that no field lists"))
    return matched


def _matching_field(
    field: Field,
    rebuilt: Board,
    geometry: BoardGeometry,
    crossing_map: dict[int, int],
) -> int | None:
    if field.outer:
        return rebuilt.outer_field.id
    if field.polygon is not None and len(field.polygon) >= 3:
        try:
            inside = Polygon(field.polygon).representative_point()
        except (GEOSException, ValueError):
            inside = None
        if inside is not None and not inside.is_empty:
            found = geometry.field_at((inside.x, inside.y))
            return None if found == rebuilt.outer_field.id else found
    # Without a polygon: the one bounded field with the same corners.
    wanted = Counter(crossing_map.get(c, -1) for c in field.corners)
    same = [f.id for f in rebuilt.fields if not f.outer and Counter(f.corners) == wanted]
    return same[0] if len(same) == 1 else None


def _fmt(xy: Point) -> str:
    return f"({xy[0]:.1f}, {xy[1]:.1f})"


__all__ = [
    "renumbered_like",
    "check_creatures",
    "MAX_COORDINATE",
    "GeometryCheck",
    "check_board",
    "board_problems",
    "creature_problems",
    "geometry_problems",
]
