"""Where the players actually put their pawns, and what the engine reads from those spots.

The game (:mod:`engine.game`) says which corner or field each creature occupies; this
module gives every pawn a foot point on the table as a person would put it down: in
its corner's sector, clear of both strings, but not always on the bisector, sometimes
touching a string or a neighbouring pawn (never across a string). Each final point is
checked against the real strings, the field outline and the other pawns, and then read
back with the engine's locator: the photo's truth is what the locator says of the
feet, and a spot the locator would read differently is not used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import shapely

from engine.board import Board, Creature, Point
from engine.colours import DEMON
from engine.placement import (
    FAR_FROM_CORNERS_AMBIGUITY,
    BoardGeometry,
    Foot,
    Location,
    locate_creatures,
)

__all__ = [
    "Habits",
    "cover_knots",
    "locate_feet",
    "place_pawns",
    "read_back",
    "sample_habits",
    "string_clearance",
    "strings_of",
]

#: Gap (mm) left between a pawn and a string it "touches": the cord's fuzz.
TOUCH_GAP_MM = 0.2
#: How far (mm) from the crossing the strings' directions are taken for a sector.
_RAY_REACH_MM = 15.0
#: Random spots tried for a ghost before its field's centre.
_TRIES = 16


@dataclass(frozen=True)
class Habits:
    """How carefully the players of one photo put their pawns down.

    Parameters
    ----------
    gap_mm : (low, high)
        Usual gap between a pawn and the strings beside it.
    skew : float
        How far off the bisector a pawn may stand: 0 keeps it there, 1 lets it stand up
        to a pawn radius further from one string than from the other.
    touch_string : float
        Chance that a pawn is pushed against one of its strings.
    touch_pawn : float
        Chance that a pawn is pushed against its nearest neighbour.
    ghost_wander : float
        How far a ghost strays from its field's centre, as a share of the room it has.
    """

    gap_mm: tuple[float, float]
    skew: float
    touch_string: float
    touch_pawn: float
    ghost_wander: float


_HABITS = {
    "easy": Habits(gap_mm=(2.0, 6.0), skew=0.2, touch_string=0.03, touch_pawn=0.03,
                   ghost_wander=0.2),
    "normal": Habits(gap_mm=(1.0, 6.0), skew=0.5, touch_string=0.12, touch_pawn=0.15,
                     ghost_wander=0.5),
    "hard": Habits(gap_mm=(0.5, 5.0), skew=1.0, touch_string=0.25, touch_pawn=0.35,
                   ghost_wander=0.8),
}


def sample_habits(rng: np.random.Generator, difficulty: str) -> Habits:
    """The placement habits of one photo: the difficulty's, scaled by a random care."""
    if difficulty not in _HABITS:
        raise ValueError(f"unknown difficulty {difficulty!r}; expected easy, normal or hard")
    base = _HABITS[difficulty]
    care = float(rng.uniform(0.3, 1.0))  # some players are tidier than others
    return replace(
        base,
        skew=base.skew * care,
        touch_string=base.touch_string * care,
        touch_pawn=base.touch_pawn * care,
    )


def locate_feet(
    board: Board,
    feet: Sequence[Foot],
    pawn_radius: float,
    geometry: BoardGeometry | None = None,
) -> list[Location]:
    """Where the engine reads each foot: the one place the generator asks it.

    The truth of every photo is what this says of the pawns' feet. ``geometry``, if
    given, is the board's :class:`~engine.placement.BoardGeometry` already built (it
    depends on the lines only): then its ``locate``, which is ``locate_creatures``.

    Raises
    ------
    ValueError
        If ``geometry`` was built for other lines.
    """
    if geometry is None:
        return locate_creatures(board, feet, pawn_radius=pawn_radius)
    _check_geometry(board, geometry)
    return geometry.locate(feet, pawn_radius=pawn_radius)


def _check_geometry(board: Board, geometry: BoardGeometry) -> None:
    if geometry.board.lines != board.lines or geometry.board.fields != board.fields:
        raise ValueError("the geometry given was built for another board's lines")


@dataclass(frozen=True)
class Sector:
    """One of the four sectors at a crossing, between two strings leaving it.

    ``start`` and ``end`` are the angles (radians) of the strings bounding it, the
    sector being what lies counter-clockwise from ``start`` to ``end``; ``index`` is
    the board's sector index and ``field`` the field that owns it.
    """

    crossing: int
    index: int
    apex: Point
    start: float
    end: float
    field: int

    @property
    def half_angle(self) -> float:
        return ((self.end - self.start) % (2 * math.pi)) / 2


def crossing_sectors(board: Board, geometry: BoardGeometry, crossing_id: int) -> list[Sector]:
    """The four sectors at a crossing, with the strings' directions taken a pawn's
    length away from it (where a pawn in the corner meets them)."""
    crossing = board.crossings[crossing_id]
    rays = geometry.rays(crossing_id, _RAY_REACH_MM)
    owner = {s.index: s.field for s in board.sectors if s.crossing == crossing_id}
    return [
        Sector(crossing_id, i, crossing.xy, rays[i], rays[(i + 1) % 4], owner[i])
        for i in range(4)
    ]


def strings_of(board: Board) -> shapely.MultiLineString:
    """The board's strings as closed lines (made from arrays: much faster than from
    tuples of points)."""
    closed = [np.asarray(ln.polyline, dtype=float) for ln in board.lines]
    return shapely.MultiLineString([np.vstack([pts, pts[:1]]) for pts in closed])


def string_clearance(board: Board, xy: Point) -> float:
    """Distance (mm) from ``xy`` to the nearest string's centre line."""
    return float(strings_of(board).distance(shapely.Point(xy)))


# --- placing the pawns ------------------------------------------------------------------


class _Room:
    """What a foot point must keep clear of, with the board's strings prepared once."""

    def __init__(
        self,
        board: Board,
        pawn_radius: float,
        cord_radius: float,
        geometry: BoardGeometry | None = None,
    ) -> None:
        self.board = board
        if geometry is None:
            geometry = BoardGeometry(board)
        _check_geometry(board, geometry)
        self.geometry = geometry
        self.pawn_radius = pawn_radius
        self.cord_radius = cord_radius
        self.polylines = {ln.colour: np.asarray(ln.polyline, dtype=float) for ln in board.lines}
        self.rings = {c: shapely.LinearRing(pts) for c, pts in self.polylines.items()}
        self._sectors: dict[int, list[Sector]] = {}

    @property
    def min_gap(self) -> float:
        """Least distance from a foot to a string's centre line: the pawn touches it."""
        return self.pawn_radius + self.cord_radius + TOUCH_GAP_MM

    def sectors(self, crossing_id: int) -> list[Sector]:
        if crossing_id not in self._sectors:
            self._sectors[crossing_id] = crossing_sectors(
                self.board, self.geometry, crossing_id
            )
        return self._sectors[crossing_id]

    def pieces_near(self, xy: Point, radius: float) -> dict[str, shapely.MultiLineString]:
        """The stretches of each string within about ``radius`` of ``xy`` (strings that
        do not come that near are left out)."""
        found = {}
        for colour, pts in self.polylines.items():
            near = np.linalg.norm(pts - np.asarray(xy), axis=1) <= radius
            if not near.any():
                continue
            # Grow each run by a vertex so no segment that reaches the circle is lost.
            near |= np.roll(near, 1) | np.roll(near, -1)
            if near.all():
                found[colour] = shapely.MultiLineString([np.vstack([pts, pts[:1]])])
                continue
            start = int(np.argmin(near))  # a vertex outside: runs do not wrap past it
            order = np.roll(np.arange(len(pts)), -start)
            runs = np.split(order, np.flatnonzero(np.diff(near[order].astype(int))) + 1)
            lines = [pts[run] for run in runs if near[run[0]] and len(run) >= 2]
            if lines:
                found[colour] = shapely.MultiLineString(lines)
        return found

    def read(self, creature: Creature, xy: Point) -> Location:
        """Where the engine reads ``creature`` standing at ``xy``: :func:`locate_feet`
        on the geometry already built."""
        foot = Foot(creature.kind, creature.colour, xy)
        return self.geometry.locate([foot], pawn_radius=self.pawn_radius)[0]

    def string_distance(self, xy: Point) -> float:
        point = shapely.Point(xy)
        return min(ring.distance(point) for ring in self.rings.values())

    def clear_of_pawns(self, xy: Point, others: Sequence[Point]) -> bool:
        return all(math.dist(xy, o) >= 2 * self.pawn_radius + TOUCH_GAP_MM for o in others)


def place_pawns(
    board: Board,
    habits: Habits,
    pawn_width_mm: float,
    cord_diameter_mm: float,
    rng: np.random.Generator,
    geometry: BoardGeometry | None = None,
) -> Board:
    """Give every creature on the board a foot point, as the players would put it.

    Demons stand in their corner's sector, clear of both strings (or touching one);
    ghosts near their field's centre; creatures the game put off the board keep their
    point. Each creature's field and corner are then what :func:`locate_feet` reads
    at its foot, so the board stays exactly what the photo shows.

    Parameters
    ----------
    board : Board
        Board in table millimetres, from a game: every creature on the board has a
        field (and a demon in a corner its crossing).
    habits : Habits
    pawn_width_mm, cord_diameter_mm : float
        Sizes of the scene's pawns and cords.
    rng : numpy.random.Generator
    geometry : BoardGeometry, optional
        The board's geometry, if already built.

    Raises
    ------
    ValueError
        If the sizes are not positive, or ``geometry`` is of another board.
    """
    if not (pawn_width_mm > 0 and cord_diameter_mm > 0):
        raise ValueError(
            f"pawn width and cord diameter must be positive, not {pawn_width_mm}, "
            f"{cord_diameter_mm}"
        )
    room = _Room(board, pawn_width_mm / 2, cord_diameter_mm / 2, geometry)
    spots: dict[int, Point] = {}
    # Corners first: they have the least room. Then ghosts, then anything else.
    order = sorted(range(len(board.creatures)), key=lambda i: _placing_order(board.creatures[i]))
    pinched: dict[tuple[int, int], int] = {}
    for i in order:
        creature = board.creatures[i]
        if creature.off_board or creature.field is None:
            continue
        taken = list(spots.values())
        if creature.kind == DEMON and creature.crossing is not None:
            key = (creature.field, creature.crossing)
            xy = _demon_spot(room, creature, pinched.get(key, 0), habits, taken, rng)
            pinched[key] = pinched.get(key, 0) + 1
        else:
            xy = _field_spot(room, creature, habits, taken, rng)
        if xy is not None:
            spots[i] = xy
    spots = _push_together(room, board, spots, habits, rng)
    # A creature with no room in its slot (a corner of a tiny field, where every
    # point clear of the strings is nearer another corner) is left in the box.
    creatures = tuple(
        replace(c, xy=spots[i]) if i in spots else c
        for i, c in enumerate(board.creatures)
        if i in spots or c.off_board or c.field is None
    )
    return board.with_creatures(creatures)


def _placing_order(creature: Creature) -> int:
    if creature.kind == DEMON and creature.crossing is not None:
        return 0
    return 1


def _demon_spot(
    room: _Room,
    creature: Creature,
    nth: int,
    habits: Habits,
    taken: list[Point],
    rng: np.random.Generator,
) -> Point | None:
    """A foot point in the demon's corner; ``nth`` picks the sector of a pinched corner.

    Candidate points fan out over the sector; the real distances to the strings (which
    may curve into the sector) decide which are clear, and of those the one whose gaps
    to the two strings come nearest the wanted ones is taken. ``None`` if the corner has
    no room for a pawn.
    """
    assert creature.field is not None and creature.crossing is not None
    sectors = [s for s in room.sectors(creature.crossing) if s.field == creature.field]
    if not sectors:
        return None
    sector = sectors[min(nth, len(sectors) - 1)]
    candidates, gap_start, gap_end, clear = _sector_candidates(room, sector)
    ok = clear >= room.min_gap
    if taken:
        to_pawns = np.linalg.norm(candidates[:, None, :] - np.asarray(taken)[None], axis=2)
        ok &= to_pawns.min(axis=1) >= 2 * room.pawn_radius + TOUCH_GAP_MM
    if not ok.any():
        return None
    want_start, want_end = _corner_gaps(room, habits, rng)
    apex = np.asarray(sector.apex)
    cost = np.abs(gap_start - want_start) + np.abs(gap_end - want_end)
    cost += 0.02 * np.linalg.norm(candidates - apex, axis=1)  # nearer the crossing
    for i in np.flatnonzero(ok)[np.argsort(cost[ok], kind="stable")]:
        xy = (float(candidates[i, 0]), float(candidates[i, 1]))
        if _acceptable(room, creature, xy, taken):
            return xy
    return None


def _sector_candidates(
    room: _Room, sector: Sector
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Points fanned over a sector near its crossing, with their distances to the
    sector's start string, its end string, and the nearest string of all."""
    angles = sector.start + 2 * sector.half_angle * np.linspace(0.04, 0.96, 11)
    reach = np.linspace(room.min_gap, 7 * room.pawn_radius, 20)
    aa, rr = np.meshgrid(angles, reach)
    candidates = np.column_stack(
        [sector.apex[0] + (rr * np.cos(aa)).ravel(), sector.apex[1] + (rr * np.sin(aa)).ravel()]
    )
    points = shapely.points(candidates)
    pieces = room.pieces_near(sector.apex, 7 * room.pawn_radius + room.min_gap + 5.0)
    by_colour = {
        colour: np.asarray(shapely.distance(points, piece), dtype=float)
        for colour, piece in pieces.items()
    }
    colours = room.board.crossings[sector.crossing].lines
    along_start = shapely.Point(
        sector.apex[0] + 5 * math.cos(sector.start), sector.apex[1] + 5 * math.sin(sector.start)
    )
    start_colour = min(colours, key=lambda c: float(pieces[c].distance(along_start)))
    end_colour = colours[1] if start_colour == colours[0] else colours[0]
    clear = np.vstack(list(by_colour.values())).min(axis=0)
    return candidates, by_colour[start_colour], by_colour[end_colour], clear


def _corner_gaps(room: _Room, habits: Habits, rng: np.random.Generator) -> tuple[float, float]:
    """Wanted distances from the foot to the start and end strings of its sector."""
    gap = room.min_gap + float(rng.uniform(*habits.gap_mm))
    # Off the bisector: up to a pawn radius further from one string than the other.
    other = gap + habits.skew * room.pawn_radius * float(rng.random())
    if rng.random() < habits.touch_string:
        gap = room.min_gap
    pair = (gap, other)
    return pair if rng.random() < 0.5 else (other, gap)


def _field_spot(
    room: _Room,
    creature: Creature,
    habits: Habits,
    taken: list[Point],
    rng: np.random.Generator,
) -> Point | None:
    """A ghost (or a demon away from the corners) near its spot in the field."""
    assert creature.field is not None
    centre = creature.xy
    if centre is None:
        if room.board.fields[creature.field].outer:
            return None
        centre = room.geometry.field_centre(creature.field)
    spare = max(room.string_distance(centre) - room.min_gap - 1.0, 0.0)
    if _acceptable(room, creature, centre, taken):
        # Players rarely hit the centre: wander, and keep the centre if nothing fits.
        tries = [_around(centre, habits.ghost_wander * spare, rng) for _ in range(_TRIES)]
        tries.append(centre)
    else:
        # A pawn already stands there (or a string is too near): look around it,
        # nearest first.
        reach = spare + 4 * room.pawn_radius
        tries = sorted(
            (_around(centre, reach, rng) for _ in range(2 * _TRIES)),
            key=lambda p: math.dist(p, centre),
        )
    return next((xy for xy in tries if _acceptable(room, creature, xy, taken)), None)


def _around(centre: Point, reach: float, rng: np.random.Generator) -> Point:
    """A random point within ``reach`` of ``centre``, evenly over the disc."""
    angle = rng.uniform(0, 2 * math.pi)
    r = reach * math.sqrt(float(rng.random()))
    return (centre[0] + r * math.cos(angle), centre[1] + r * math.sin(angle))


def _acceptable(room: _Room, creature: Creature, xy: Point, taken: list[Point]) -> bool:
    """Whether ``creature`` may stand at ``xy``: clear of strings and pawns, inside its
    field, and read by the engine, unambiguously, in its own slot."""
    if room.string_distance(xy) < room.min_gap - 1e-6:
        return False
    if not room.clear_of_pawns(xy, taken):
        return False
    if room.geometry.field_at(xy) != creature.field:
        return False
    read = room.read(creature, xy)
    if (read.field, read.crossing, read.creature.off_board) != (
        creature.field, creature.crossing, False
    ):
        return False
    # A demon planted away from every corner is, rightly, far from the corners.
    return read.ambiguity is None or (
        creature.kind == DEMON and creature.crossing is None
        and read.ambiguity == FAR_FROM_CORNERS_AMBIGUITY
    )


def _push_together(
    room: _Room,
    board: Board,
    spots: dict[int, Point],
    habits: Habits,
    rng: np.random.Generator,
) -> dict[int, Point]:
    """Sometimes slide a pawn until it touches a neighbour (the nearest it can reach
    while staying in its slot and clear of the strings)."""
    spots = dict(spots)
    touch = 2 * room.pawn_radius + TOUCH_GAP_MM
    for i in sorted(spots):
        if len(spots) < 2 or rng.random() >= habits.touch_pawn:
            continue
        here = spots[i]
        others = [p for k, p in spots.items() if k != i]
        for there in sorted(others, key=lambda p: math.dist(here, p)):
            distance = math.dist(here, there)
            if distance >= 3.0 * touch:
                break
            step = (distance - touch) / distance
            moved = (here[0] + (there[0] - here[0]) * step,
                     here[1] + (there[1] - here[1]) * step)
            if step > 0 and _acceptable(room, board.creatures[i], moved, others):
                spots[i] = moved
                break
    return spots


def read_back(
    board: Board, pawn_radius: float, geometry: BoardGeometry | None = None
) -> Board:
    """The board as the engine reads it from the feet: every creature with a foot point
    takes the field, corner and off-board state :func:`locate_feet` finds there."""
    placed = [i for i, c in enumerate(board.creatures) if c.xy is not None]
    feet = [_foot(board.creatures[i]) for i in placed]
    creatures = list(board.creatures)
    found_all = locate_feet(board, feet, pawn_radius, geometry)
    for i, found in zip(placed, found_all, strict=True):
        creatures[i] = found.creature
    return board.with_creatures(tuple(creatures))


def _foot(creature: Creature) -> Foot:
    assert creature.xy is not None
    return Foot(creature.kind, creature.colour, creature.xy)


#: A pawn moved onto a knot stands with its foot at most this many pawn widths from it.
COVER_REACH = 0.5


def cover_knots(
    board: Board, share: float, pawn_width_mm: float, rng: np.random.Generator
) -> Board:
    """The board with a demon moved onto some of the knots, for training examples.

    A player may put a demon down on a loop's knot; then only its tails, or nothing,
    show. Such photos are rare among the generated ones (a knot keeps 30 mm along its
    loop from the crossings, near which demons stand), and the reader's detector learns
    little of them. Each knot is covered with chance ``share`` by the demon on the board
    nearest it, its foot put within :data:`COVER_REACH` pawn widths of the knot where it
    stands clear of every other pawn. A knot with no such spot stays uncovered. The
    moved demons keep the corner and field they had: the caller reads the board back
    (:func:`read_back`, as :func:`synth.photo.plan_photo` does), and what the engine
    reads at the new feet becomes the truth.

    Raises
    ------
    ValueError
        If ``share`` is not within 0..1 or the pawn width is not positive.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within 0..1, not {share}")
    if not pawn_width_mm > 0:
        raise ValueError(f"pawn width must be positive, not {pawn_width_mm}")
    creatures = list(board.creatures)
    moved: set[int] = set()
    for line in board.lines:
        knot = line.knot
        if knot is None or rng.random() >= share:
            continue
        demons = [
            i
            for i, c in enumerate(creatures)
            if c.kind == DEMON and c.on_board and c.xy is not None and i not in moved
        ]
        if not demons:
            break
        nearest = min(demons, key=lambda i: math.dist(creatures[i].xy or knot, knot))
        others = [c.xy for i, c in enumerate(creatures) if i != nearest and c.xy is not None]
        for _ in range(_TRIES):
            angle = rng.uniform(0.0, 2.0 * math.pi)
            reach = rng.uniform(0.0, COVER_REACH) * pawn_width_mm
            spot = (knot[0] + reach * math.cos(angle), knot[1] + reach * math.sin(angle))
            if all(math.dist(spot, o) >= pawn_width_mm + TOUCH_GAP_MM for o in others):
                creatures[nearest] = replace(creatures[nearest], xy=spot)
                moved.add(nearest)
                break
    return board.with_creatures(tuple(creatures))
