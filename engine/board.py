"""The board: an immutable value holding the lines, their topology and the creatures.

A :class:`Board` is what one photo (or one moment of a simulated game) shows. It is
built either from geometry by :func:`engine.topology.build_board` or from a board
report by :func:`engine.report.board_from_report`. Placing or removing a creature
returns a new board; nothing here mutates.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from engine.errors import BoardError, Problem, excerpt

Point = tuple[float, float]


@dataclass(frozen=True)
class Line:
    """One power line: a closed loop of one colour, with its tie knot if known."""

    colour: str
    #: Closed polyline along the string's centre, first point not repeated.
    polyline: tuple[Point, ...]
    knot: Point | None = None


@dataclass(frozen=True)
class Crossing:
    """A point where two lines of different colours cross."""

    id: int
    xy: Point
    #: The two colours, sorted.
    lines: tuple[str, str]


@dataclass(frozen=True)
class Sector:
    """One of the four angular sectors around a crossing, and the field that owns it."""

    crossing: int
    #: 0..3, counter-clockwise in the board's coordinate system.
    index: int
    field: int


@dataclass(frozen=True)
class Field:
    """A power field: an area bounded by lines, or the unbounded outer field."""

    id: int
    outer: bool
    #: Crossing ids, one entry per corner (a crossing appears twice for two sectors).
    corners: tuple[int, ...]
    #: Colours of the knots on the field's boundary.
    knots: tuple[str, ...] = ()
    #: Outline of a bounded field; ``None`` for the outer field.
    polygon: tuple[Point, ...] | None = None

    @property
    def value(self) -> int:
        """Power points the field is worth: corners plus knots."""
        return len(self.corners) + len(self.knots)


@dataclass(frozen=True)
class Creature:
    """A demon or a ghost on (or beside) the board.

    A demon on the board names the ``field`` and ``crossing`` of the corner it occupies
    (``crossing`` is ``None`` when it stands away from every corner). A ghost names its
    ``field``. Off-board creatures (predictions in front of a player) have neither.
    """

    kind: str
    colour: str
    xy: Point | None = None
    field: int | None = None
    crossing: int | None = None
    off_board: bool = False

    def __post_init__(self) -> None:
        problem = creature_problem(self)
        if problem is not None:
            raise BoardError(problem)

    @property
    def on_board(self) -> bool:
        return not self.off_board


def creature_problem(creature: Creature) -> str | None:
    """What is wrong with ``creature`` on its own (without a board), or ``None``.

    Its kind and colour, that an off-board creature has no field or crossing, that a
    creature on the board has a field, that a ghost has no crossing, ids that are
    non-negative integers and a foot point of two finite numbers.
    """
    kind, colour = creature.kind, creature.colour
    if kind not in (DEMON, GHOST):
        return f"kind: expected 'demon' or 'ghost', got {excerpt(kind)}"
    if kind == GHOST and colour != WHITE:
        return f"colour: a ghost is white, not {excerpt(colour)}"
    if kind == DEMON and colour not in LINE_COLOURS:
        return f"colour: a demon is one of {', '.join(LINE_COLOURS)}, not {excerpt(colour)}"
    for name, value in (("field", creature.field), ("crossing", creature.crossing)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return f"{name}: expected an id or None, got {excerpt(value)}"
        if value is not None and value < 0:
            return f"{name}: ids are not negative, got {value}"
    if creature.off_board and (creature.field is not None or creature.crossing is not None):
        return "an off-board creature has no field or crossing"
    if not creature.off_board and creature.field is None:
        return "field: a creature on the board stands in a field"
    if kind == GHOST and creature.crossing is not None:
        return "crossing: a ghost stands in a field, not in a corner"
    if creature.xy is not None and not is_point(creature.xy):
        return f"xy: expected two finite numbers, got {excerpt(creature.xy)}"
    return None


def is_point(value: object) -> bool:
    """Whether ``value`` is a pair of finite numbers (not booleans)."""
    return (
        isinstance(value, tuple | list)
        and len(value) == 2
        and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
    )


def demon(
    colour: str, field: int | None, crossing: int | None, xy: Point | None = None
) -> Creature:
    """A demon standing in the corner of ``field`` at ``crossing``."""
    return Creature(DEMON, colour, xy=xy, field=field, crossing=crossing)


def ghost(field: int | None, xy: Point | None = None) -> Creature:
    """A ghost standing in ``field``."""
    return Creature(GHOST, WHITE, xy=xy, field=field)


@dataclass(frozen=True)
class Board:
    """Lines, crossings, fields and creatures: everything one photo of a table shows.

    ``crossings[i].id == i`` and ``fields[i].id == i`` always hold, and exactly one
    field is the outer field.
    """

    lines: tuple[Line, ...]
    crossings: tuple[Crossing, ...]
    fields: tuple[Field, ...]
    sectors: tuple[Sector, ...] = ()
    creatures: tuple[Creature, ...] = ()

    # --- topology lookups -------------------------------------------------------

    @cached_property
    def outer_field(self) -> Field:
        return next(f for f in self.fields if f.outer)

    def line(self, colour: str) -> Line | None:
        """The line of ``colour``, or ``None`` if the board has none."""
        return next((ln for ln in self.lines if ln.colour == colour), None)

    @cached_property
    def topology_problems(self) -> tuple[Problem, ...]:
        """What is wrong with the lines, crossings, fields and sectors, leaving out the
        coordinates and the creatures (:func:`engine.validate.board_problems`); worked
        out once per board, which games on the same layout share."""
        from engine.validate import board_problems  # engine.validate builds on this module

        return tuple(board_problems(replace(self, creatures=()), coordinates=False))

    @cached_property
    def corner_capacity(self) -> Counter[tuple[int, int]]:
        """How many corners each (field, crossing) pair has: usually 1, 2 if pinched."""
        return Counter((f.id, c) for f in self.fields for c in f.corners)

    def crossings_of(self, colour: str) -> list[Crossing]:
        """Crossings on the line of ``colour``."""
        return [c for c in self.crossings if colour in c.lines]

    def crossed_colours(self, colour: str) -> set[str]:
        """The other colours whose lines the line of ``colour`` crosses."""
        return {other for c in self.crossings_of(colour) for other in c.lines if other != colour}

    # --- creatures --------------------------------------------------------------

    @property
    def on_board_creatures(self) -> list[tuple[int, Creature]]:
        """(id, creature) of every creature that stands on the board."""
        return [(i, c) for i, c in enumerate(self.creatures) if c.on_board]

    def ghosts_in(self, field_id: int) -> list[int]:
        """Ids of the ghosts standing in field ``field_id``."""
        return [i for i, c in self.on_board_creatures if c.kind == GHOST and c.field == field_id]

    def demons_at(self, field_id: int, crossing_id: int) -> list[int]:
        """Ids of the demons in the corner of ``field_id`` at ``crossing_id``."""
        return [
            i
            for i, c in self.on_board_creatures
            if c.kind == DEMON and c.field == field_id and c.crossing == crossing_id
        ]

    def placement_problem(self, creature: Creature) -> Problem | None:
        """What is wrong with ``creature`` on this board, or ``None``.

        Not the rules (see :mod:`engine.legality`) but whether the board can hold it:
        the field and crossing it names exist, the field having a corner at the crossing
        (what a creature can be on its own, :func:`creature_problem` checked when it was
        made). The problem's path is
        relative to the creature (``field``, ``crossing`` or "").
        """
        # A Creature checked itself when it was made (it is frozen): only the board's
        # side is left to check.
        field_id, crossing_id = creature.field, creature.crossing
        if field_id is not None and field_id >= len(self.fields):
            return Problem("field", f"{field_id} does not exist (there are {len(self.fields)})")
        if crossing_id is not None:
            if crossing_id >= len(self.crossings):
                count = len(self.crossings)
                return Problem("crossing", f"{crossing_id} does not exist (there are {count})")
            if field_id is not None and crossing_id not in self.fields[field_id].corners:
                return Problem("", f"field {field_id} has no corner at crossing {crossing_id}")
        return None

    def with_creature(self, creature: Creature) -> Board:
        """A new board with ``creature`` added (no legality check: see ``engine.legality``).

        Raises
        ------
        BoardError
            If the board cannot hold the creature (:meth:`placement_problem`).
        """
        self._check_creature(creature, len(self.creatures))
        return replace(self, creatures=(*self.creatures, creature))

    def without_creature(self, creature_id: int) -> Board:
        """A new board with creature ``creature_id`` removed; later ids shift down by one."""
        if not 0 <= creature_id < len(self.creatures):
            raise BoardError(
                f"creatures[{creature_id}]: no such creature (there are {len(self.creatures)})"
            )
        rest = self.creatures[:creature_id] + self.creatures[creature_id + 1 :]
        return replace(self, creatures=rest)

    def with_creatures(self, creatures: Sequence[Creature]) -> Board:
        """A new board with the same topology and exactly ``creatures``.

        Raises
        ------
        BoardError
            If the board cannot hold one of them (:meth:`placement_problem`).
        """
        for i, creature in enumerate(creatures):
            self._check_creature(creature, i)
        return replace(self, creatures=tuple(creatures))

    def _check_creature(self, creature: Creature, index: int) -> None:
        if not isinstance(creature, Creature):
            raise BoardError(f"creatures[{index}]: expected a Creature, got {excerpt(creature)}")
        problem = self.placement_problem(creature)
        if problem is not None:
            where = f"creatures[{index}]" + (f".{problem.where}" if problem.where else "")
            raise BoardError.of([Problem(where, problem.message)])

    # --- geometry -----------------------------------------------------------------------

    def transformed(self, transform: Callable[[Sequence[Point]], Sequence[Point]]) -> Board:
        """The same board with every coordinate mapped through ``transform``.

        ``transform`` maps a sequence of points to as many points, for example table
        millimetres to photo pixels. Topology is kept as it is, so the transform must not
        change it (a homography or a mild lens distortion does not); only the sector
        indices, which depend on the frame's orientation, are left out.
        """

        def one(point: Point | None) -> Point | None:
            return None if point is None else _as_point(transform([point])[0])

        def many(points: Sequence[Point]) -> tuple[Point, ...]:
            return tuple(_as_point(p) for p in transform(points))

        lines = tuple(
            replace(ln, polyline=many(ln.polyline), knot=one(ln.knot)) for ln in self.lines
        )
        crossings = tuple(replace(c, xy=many([c.xy])[0]) for c in self.crossings)
        fields = tuple(
            f if f.polygon is None else replace(f, polygon=many(f.polygon)) for f in self.fields
        )
        creatures = tuple(replace(c, xy=one(c.xy)) for c in self.creatures)
        # Sector indices count counter-clockwise in this frame; a transform that mirrors
        # (table millimetres with y up to photo pixels with y down) reverses them, so
        # they are dropped and worked out again where needed (engine.placement).
        return replace(
            self, lines=lines, crossings=crossings, fields=fields, creatures=creatures, sectors=()
        )


def _as_point(p: Sequence[float]) -> Point:
    return (float(p[0]), float(p[1]))
