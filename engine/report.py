"""The board report (CONTRACT.md): a board to JSON and back.

``board_to_report`` writes the versioned shape that outside tools and benchmarks read;
``board_from_report`` reads one back (for example a hand-corrected report) and checks
it thoroughly, so that a malformed report raises :class:`BoardFormatError` instead of
being scored wrongly. Field values are always recomputed from corners and knots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from shapely.geometry import LinearRing

from engine.board import Board, Creature, Crossing, Field, Line, Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from engine.errors import BoardError, BoardFormatError, LayoutError, Problem, excerpt
from engine.legality import Violation, find_violations
from engine.placement import BoardGeometry, Foot
from engine.rules import Rule
from engine.scoring import DEFAULT_OPTIONS, ScoringOptions, score
from engine.topology import MAX_CROSSINGS, build_board
from engine.validate import (
    MAX_COORDINATE,
    board_problems,
    geometry_problems,
    renumbered_like,
)

SCHEMA = "dicke-daemonen/board@1"

#: Largest photo side a report may name, in pixels.
MAX_IMAGE_SIDE = 100_000
#: Most points a loop's polyline may have. The sample photos' loops have at most 863,
#: the reader's fewer, and a redrawn stretch (``webui.edits.MAX_PATH_POINTS``) adds at
#: most 2000: a limit checked before any geometry, so that a huge polyline is refused
#: at once rather than worked through.
MAX_LOOP_POINTS = 5000
#: Longest message a report's violation may carry (the engine's are under 100
#: characters): a report is stored as sent, and a 30 MB message was.
MAX_MESSAGE = 500
#: Longest rule name a violation may carry (the engine's are under 30 characters; a
#: newer reader may name rules this engine does not know: CONTRACT.md "more may be added").
MAX_RULE_NAME = 100
#: Most creature ids a violation may name, unless the report has more creatures (the
#: game has 50).
MAX_VIOLATION_CREATURES = 200
#: A pawn's radius and a cord's length (mm): the scale of a report without one.
PAWN_RADIUS_MM = 9.5
CORD_LENGTH_MM = 1200.0

JSON = dict[str, Any]


def _xy(point: Point | None, digits: int = 1) -> list[float] | None:
    if point is None:
        return None
    x, y = round(point[0], digits), round(point[1], digits)
    if not (math.isfinite(x) and math.isfinite(y)):
        # The report is JSON for outside tools: NaN and Infinity have no place in it.
        raise BoardError(f"cannot write a report with the point {excerpt(point)}")
    return [x, y]


def moves_change_nothing(
    board: Board, index: int, corners: Iterable[tuple[int, int]]
) -> bool:
    """Whether creature ``index`` of ``board`` (a demon), put in any of ``corners``
    ((field, crossing) pairs) instead of where it stands, leaves what the board's report
    says as it is: the scores, who holds each field and which rules the creatures break.

    The reader uses it for a demon whose foot cannot tell its corner from others: in a
    sliver of a field its corners there are often both of its colour and free, and the
    doubt cannot change the report.

    Raises
    ------
    BoardError
        If a corner is not one of the board's.
    """
    before = _outcome(board)
    creatures = list(board.creatures)
    for field, crossing in corners:
        creatures[index] = replace(board.creatures[index], field=field, crossing=crossing)
        if _outcome(board.with_creatures(tuple(creatures))) != before:
            return False
    return True


def _outcome(board: Board) -> tuple[object, ...]:
    scored = score(board)
    broken = sorted((v.rule, v.creatures, v.lines) for v in find_violations(board))
    return tuple(sorted(scored.points.items())), tuple(scored.owners.items()), tuple(broken)


def board_to_report(
    board: Board,
    *,
    image_size: tuple[int, int] | None = None,
    options: ScoringOptions = DEFAULT_OPTIONS,
    extra_violations: Iterable[Violation] = (),
) -> JSON:
    """The board report of ``board``: topology, creatures, scores, winners, violations.

    Parameters
    ----------
    board : Board
    image_size : (width, height), optional
        Size of the photo the coordinates refer to; ``image`` is null without it.
    options : ScoringOptions
        Rule variants to score by.
    extra_violations : iterable of Violation
        Violations found outside the engine (for example a layout problem).
    """
    result = score(board, options)
    violations = [*extra_violations, *find_violations(board)]
    return {
        "schema": SCHEMA,
        "image": None if image_size is None else {"width": image_size[0], "height": image_size[1]},
        "lines": {
            ln.colour: {"polyline": [_xy(p) for p in ln.polyline], "knot": _xy(ln.knot)}
            for ln in board.lines
        },
        "crossings": [
            {"id": c.id, "xy": _xy(c.xy), "lines": list(c.lines)} for c in board.crossings
        ],
        "fields": [_field_json(f) for f in board.fields],
        "creatures": [_creature_json(i, c) for i, c in enumerate(board.creatures)],
        "scores": dict(result.points),
        "winners": list(result.winners),
        "violations": [violation_json(v) for v in violations],
    }


def _field_json(f: Field) -> JSON:
    return {
        "id": f.id,
        "outer": f.outer,
        "polygon": None if f.polygon is None else [_xy(p) for p in f.polygon],
        "corners": list(f.corners),
        "knots": list(f.knots),
        "value": f.value,
    }


def _creature_json(i: int, c: Creature) -> JSON:
    return {
        "id": i,
        "kind": c.kind,
        "colour": c.colour,
        "xy": _xy(c.xy),
        "field": c.field,
        "crossing": c.crossing,
        "off_board": c.off_board,
    }


def violation_json(v: Violation) -> JSON:
    """One violation in the report's shape (``lines`` only when it names lines)."""
    out: JSON = {"rule": str(v.rule), "creatures": list(v.creatures), "message": v.message}
    if v.lines:
        out["lines"] = list(v.lines)
    return out


# --- reading a report -------------------------------------------------------------------


def board_from_report(report: object, *, topology: str = "check") -> Board:
    """Read a board report back into a :class:`Board`.

    Parameters
    ----------
    report : object
        The parsed JSON of a board report.
    topology : {"check", "rebuild", "trust"}
        ``"check"`` (default): the crossings and fields must be what the lines and
        knots make (:func:`engine.validate.geometry_problems`), unless the report
        lists a ``layout-problem`` (then its lines cannot be built and the topology
        is taken as written). ``"rebuild"``: take the topology from the lines and knots
        and locate every creature on the board again from its foot point (for a report
        whose polylines or knots were edited). ``"trust"``: take the topology as
        written, checking only that it is consistent in itself.

    Raises
    ------
    BoardFormatError
        Naming the first offending entry by its path, e.g. ``fields[3].corners[1]``,
        and how many more problems there are (all of them in ``problems``).
    """
    if topology not in ("check", "rebuild", "trust"):
        raise ValueError(f"topology: expected 'check', 'rebuild' or 'trust', got {topology!r}")
    data = _mapping(report, "report")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise BoardFormatError(f"schema: expected {SCHEMA!r}, got {excerpt(schema)}")
    image_size(data)
    _check_violations(data)
    lines = _read_lines(_mapping(data.get("lines"), "lines"))
    if topology == "rebuild":
        return _rebuilt(data, lines)
    crossings = _read_indexed(data.get("crossings"), "crossings", _read_crossing)
    if len(crossings) > MAX_CROSSINGS:
        raise BoardFormatError(
            f"crossings: a board has at most {MAX_CROSSINGS}, got {len(crossings)}")
    fields = _read_indexed(data.get("fields"), "fields", _read_field)
    board = Board(lines=tuple(lines), crossings=tuple(crossings), fields=tuple(fields))
    creatures, problems = _read_creatures(data)
    board = replace(board, creatures=tuple(creatures))
    problems += board_problems(board)
    # CONTRACT.md: only the outer field has no polygon. Creatures are located in the
    # fields by their polygons, so no creature could be added to such a board or moved.
    problems += [Problem(f"fields[{f.id}].polygon", "only the outer field has no polygon")
                 for f in board.fields if not f.outer and f.polygon is None]
    if problems:
        raise BoardFormatError.of(sorted(problems, key=_report_order))
    if topology == "check" and not _has_layout_problem(data):
        check = geometry_problems(board)
        if check.problems:
            raise BoardFormatError.of(check.problems)
        board = replace(board, sectors=check.sectors)
    return board


def image_size(report: Mapping[str, Any]) -> tuple[int, int] | None:
    """(width, height) of the report's ``image``, or ``None`` when it is null or absent.

    Raises
    ------
    BoardFormatError
        If ``image`` is not null nor an object with positive integer sizes.
    """
    image = report.get("image")
    if image is None:
        return None
    entry = _mapping(image, "image")
    size = []
    for key in ("width", "height"):
        value = _int(entry.get(key), f"image.{key}")
        if not 0 < value <= MAX_IMAGE_SIDE:
            raise BoardFormatError(f"image.{key}: expected 1..{MAX_IMAGE_SIDE}, got {value}")
        size.append(value)
    return size[0], size[1]


def _check_violations(data: Mapping[str, Any]) -> None:
    """The report's ``violations``, if any, are shaped as CONTRACT.md says: ``rule`` a
    name of at most :data:`MAX_RULE_NAME` characters (any: "more may be added"),
    ``creatures`` a list of creature ids, ``message`` a text of at most
    :data:`MAX_MESSAGE` characters, ``lines`` a list of colours; ``creatures`` and
    ``lines`` may be null or absent.

    The ids are not checked against the report's creatures: the engine finds every
    violation but a ``layout-problem`` again, and that one is kept as written, so a
    report whose creatures were removed since may name one no longer there. Refusing it
    would leave such a stored report unshowable and uneditable for good.

    Raises
    ------
    BoardFormatError
    """
    if data.get("violations") is None:
        return
    creatures = data.get("creatures")
    count = len(creatures) if isinstance(creatures, list | tuple) else 0
    # The engine's own "too many creatures" names every creature of a colour.
    most = max(count, MAX_VIOLATION_CREATURES)
    for i, value in enumerate(_sequence(data["violations"], "violations")):
        where = f"violations[{i}]"
        entry = _mapping(value, where)
        _text(entry.get("rule"), f"{where}.rule", MAX_RULE_NAME)
        _text(entry.get("message", ""), f"{where}.message", MAX_MESSAGE)
        ids = _list_or_null(entry.get("creatures"), f"{where}.creatures")
        if len(ids) > most:
            raise BoardFormatError(f"{where}.creatures: at most {most} ids, got {len(ids)}")
        for k, creature in enumerate(ids):
            if _int(creature, f"{where}.creatures[{k}]") < 0:
                raise BoardFormatError(f"{where}.creatures[{k}]: expected a creature id "
                                       f"(0 or more), got {creature}")
        for k, colour in enumerate(_list_or_null(entry.get("lines"), f"{where}.lines")):
            _colour(colour, f"{where}.lines[{k}]")


def _list_or_null(value: object, where: str) -> Sequence[Any]:
    """A list, null standing for an empty one."""
    return [] if value is None else _sequence(value, where)


def _text(value: object, where: str, most: int) -> str:
    if not isinstance(value, str):
        raise BoardFormatError(f"{where}: expected a text, got {excerpt(value)}")
    if len(value) > most:
        raise BoardFormatError(f"{where}: at most {most} characters, got {len(value)}")
    return value


def _has_layout_problem(data: Mapping[str, Any]) -> bool:
    violations = data.get("violations")
    if not isinstance(violations, list):
        return False
    return any(isinstance(v, Mapping) and v.get("rule") == Rule.LAYOUT_PROBLEM for v in violations)


def _report_order(problem: Problem) -> int:
    order = ("lines", "crossings", "fields", "sectors", "creatures")
    return next((i for i, head in enumerate(order) if problem.where.startswith(head)), 0)


def _read_creatures(data: Mapping[str, Any]) -> tuple[list[Creature], list[Problem]]:
    """Every creature that can be built, and a problem for each one that cannot."""
    creatures: list[Creature] = []
    problems: list[Problem] = []
    for i, value in enumerate(_sequence(data.get("creatures", []), "creatures")):
        where = f"creatures[{i}]"
        try:
            creatures.append(_read_creature(value, where))
        except BoardError as error:
            if isinstance(error, BoardFormatError):
                raise
            message = str(error)
            head, _, rest = message.partition(": ")
            problems.append(Problem(f"{where}.{head}", rest) if rest else Problem(where, message))
    return creatures, problems


def _rebuilt(data: Mapping[str, Any], lines: list[Line]) -> Board:
    """The board of the report's lines and knots, numbered like the report where it
    matches, each creature kept where the report puts it if that place still exists and
    its foot stands in that field, else located again from its foot point."""
    try:
        board = build_board(
            {ln.colour: ln.polyline for ln in lines}, {ln.colour: ln.knot for ln in lines}
        )
    except LayoutError as error:
        raise BoardFormatError(f"lines: not a legal layout: {error}") from error
    moved_crossings: dict[int, int] = {}
    moved_fields: dict[int, int] = {}
    old = _old_topology(data, lines)
    if old is not None:
        board, moved_crossings, moved_fields = renumbered_like(board, old)
    creatures, problems = _read_creatures(data)
    if problems:
        raise BoardFormatError.of(problems)
    geometry = BoardGeometry(board)
    radius = pawn_radius_of(board)
    placed = []
    for i, creature in enumerate(creatures):
        if creature.off_board:
            placed.append(creature)
            continue
        kept = _kept_place(board, geometry, creature, moved_fields, moved_crossings)
        if kept is not None:
            placed.append(kept)
            continue
        if creature.xy is None:
            raise BoardFormatError(
                f"creatures[{i}].xy: its place is gone with the edited lines, and without "
                "a foot point it cannot be located again"
            )
        foot = Foot(creature.kind, creature.colour, creature.xy)
        placed.append(geometry.locate([foot], pawn_radius=radius)[0].creature)
    return board.with_creatures(tuple(placed))


def _old_topology(data: Mapping[str, Any], lines: list[Line]) -> Board | None:
    """The report's own crossings and fields, if they can be read at all."""
    try:
        crossings = _read_indexed(data.get("crossings"), "crossings", _read_crossing)
        fields = _read_indexed(data.get("fields"), "fields", _read_field)
    except BoardFormatError:
        return None
    return Board(lines=tuple(lines), crossings=tuple(crossings), fields=tuple(fields))


def _kept_place(
    board: Board,
    geometry: BoardGeometry,
    creature: Creature,
    moved_fields: Mapping[int, int],
    moved_crossings: Mapping[int, int],
) -> Creature | None:
    """The creature with its report place in the new ids, if that place still exists
    and its foot (if known) stands in that field; else ``None``."""
    if creature.field is None or creature.field not in moved_fields:
        return None
    field_id = moved_fields[creature.field]
    crossing_id = None
    if creature.crossing is not None:
        crossing_id = moved_crossings.get(creature.crossing)
        if crossing_id is None or crossing_id not in board.fields[field_id].corners:
            return None
    if creature.xy is not None and geometry.field_at(creature.xy) != field_id:
        return None
    return replace(creature, field=field_id, crossing=crossing_id)


def pawn_radius_of(board: Board) -> float:
    """A pawn's radius in the board's units, from the lengths of its cords.

    Cords are 1.1 to 1.3 m long and a pawn's base is about 19 mm wide, so the radius is
    about 1/126 of a cord; reports carry no scale of their own.
    """
    lengths = [LinearRing(ln.polyline).length for ln in board.lines]
    return (sum(lengths) / len(lengths)) * PAWN_RADIUS_MM / CORD_LENGTH_MM


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BoardFormatError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _sequence(value: object, where: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise BoardFormatError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _point(value: object, where: str) -> Point:
    items = _sequence(value, where)
    if len(items) != 2 or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in items
    ):
        raise BoardFormatError(f"{where}: expected [x, y] numbers, got {excerpt(value)}")
    if not all(abs(v) <= MAX_COORDINATE for v in items):  # False for NaN, too
        raise BoardFormatError(
            f"{where}: expected finite coordinates within ±{MAX_COORDINATE:g}, got {excerpt(value)}"
        )
    return (float(items[0]), float(items[1]))


def _optional_point(value: object, where: str) -> Point | None:
    return None if value is None else _point(value, where)


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BoardFormatError(f"{where}: expected an integer, got {excerpt(value)}")
    return value


def _colour(value: object, where: str, allowed: Sequence[str] = LINE_COLOURS) -> str:
    if value not in allowed:
        raise BoardFormatError(
            f"{where}: unknown colour {excerpt(value)}; expected one of {', '.join(allowed)}"
        )
    return str(value)


def _read_lines(data: Mapping[str, Any]) -> list[Line]:
    lines = []
    for colour in data:
        _colour(colour, f"lines.{colour}")
    for colour in (c for c in LINE_COLOURS if c in data):
        entry = _mapping(data[colour], f"lines.{colour}")
        where = f"lines.{colour}.polyline"
        points = _sequence(entry.get("polyline"), where)
        if len(points) > MAX_LOOP_POINTS:
            raise BoardFormatError(
                f"{where}: at most {MAX_LOOP_POINTS} points, got {len(points)}")
        polyline = tuple(_point(p, f"{where}[{i}]") for i, p in enumerate(points))
        if len(set(polyline)) < 3:
            raise BoardFormatError(f"{where}: a loop needs at least 3 distinct points")
        lines.append(
            Line(colour, polyline, _optional_point(entry.get("knot"), f"lines.{colour}.knot"))
        )
    return lines


def _read_indexed(value: object, where: str, read: Any) -> list[Any]:
    """Entries with ``id`` 0..n-1 in any order, returned sorted by id."""
    entries = [_mapping(e, f"{where}[{i}]") for i, e in enumerate(_sequence(value, where))]
    ids = [_int(e.get("id"), f"{where}[{i}].id") for i, e in enumerate(entries)]
    if sorted(ids) != list(range(len(ids))):
        raise BoardFormatError(
            f"{where}: ids must be 0..{len(ids) - 1} without gaps, got {excerpt(sorted(ids))}"
        )
    by_id = sorted(zip(ids, entries, strict=True), key=lambda pair: pair[0])
    return [read(entry, f"{where}[{i}]") for i, entry in by_id]


def _read_crossing(entry: Mapping[str, Any], where: str) -> Crossing:
    colours = _sequence(entry.get("lines"), f"{where}.lines")
    if len(colours) != 2:
        raise BoardFormatError(f"{where}.lines: a crossing has two lines, got {len(colours)}")
    a, b = (_colour(c, f"{where}.lines") for c in colours)
    if a == b:
        raise BoardFormatError(
            f"{where}.lines: a crossing joins two different lines, got {a} twice"
        )
    return Crossing(
        _int(entry["id"], f"{where}.id"),
        _point(entry.get("xy"), f"{where}.xy"),
        (min(a, b), max(a, b)),
    )


def _read_field(entry: Mapping[str, Any], where: str) -> Field:
    outer = entry.get("outer")
    if not isinstance(outer, bool):
        raise BoardFormatError(f"{where}.outer: expected true or false, got {excerpt(outer)}")
    corners = tuple(
        _int(c, f"{where}.corners[{i}]")
        for i, c in enumerate(_sequence(entry.get("corners"), f"{where}.corners"))
    )
    knots = tuple(
        _colour(k, f"{where}.knots[{i}]")
        for i, k in enumerate(_sequence(entry.get("knots", []), f"{where}.knots"))
    )
    polygon = entry.get("polygon")
    outline = None
    if polygon is not None:
        outline = tuple(
            _point(p, f"{where}.polygon[{i}]")
            for i, p in enumerate(_sequence(polygon, f"{where}.polygon"))
        )
    return Field(_int(entry["id"], f"{where}.id"), outer, corners, knots, outline)


def _read_creature(value: object, where: str) -> Creature:
    """One creature's entry; whether the board can hold it is checked with the board."""
    entry = _mapping(value, where)
    kind = entry.get("kind")
    if kind not in (DEMON, GHOST):
        raise BoardFormatError(f"{where}.kind: expected 'demon' or 'ghost', got {excerpt(kind)}")
    allowed = (WHITE,) if kind == GHOST else LINE_COLOURS
    colour = _colour(entry.get("colour"), f"{where}.colour", allowed)
    off_board = entry.get("off_board", False)
    if not isinstance(off_board, bool):
        raise BoardFormatError(
            f"{where}.off_board: expected true or false, got {excerpt(off_board)}"
        )
    return Creature(
        str(kind),
        colour,
        _optional_point(entry.get("xy"), f"{where}.xy"),
        _optional_id(entry.get("field"), f"{where}.field"),
        _optional_id(entry.get("crossing"), f"{where}.crossing"),
        off_board,
    )


def _optional_id(value: object, where: str) -> int | None:
    if value is None:
        return None
    number = _int(value, where)
    if number < 0:
        raise BoardFormatError(f"{where}: ids are not negative, got {excerpt(number)}")
    return number
