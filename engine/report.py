"""The board report (CONTRACT.md): a board to JSON and back.

``board_to_report`` writes the versioned shape that outside tools and benchmarks read;
``board_from_report`` reads one back (for example a hand-corrected report) and checks
it thoroughly, so that a malformed report raises :class:`BoardFormatError` instead of
being scored wrongly. Field values are always recomputed from corners and knots.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.board import Board, Creature, Crossing, Field, Line, Point
from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE
from engine.errors import BoardFormatError
from engine.legality import Violation, find_violations
from engine.scoring import DEFAULT_OPTIONS, ScoringOptions, score

SCHEMA = "dicke-daemonen/board@1"

JSON = dict[str, Any]


def _xy(point: Point | None, digits: int = 1) -> list[float] | None:
    return None if point is None else [round(point[0], digits), round(point[1], digits)]


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


def board_from_report(report: object) -> Board:
    """Read a board report back into a :class:`Board`.

    The topology in the report is trusted as far as it is consistent: every crossing
    must be the corner of exactly four field sectors, every knot must count for
    exactly two fields, and every creature must name existing fields and crossings.

    Raises
    ------
    BoardFormatError
        With the path of the first offending entry, e.g. ``fields[3].corners[1]``.
    """
    data = _mapping(report, "report")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise BoardFormatError(f"schema: expected {SCHEMA!r}, got {schema!r}")
    lines = _read_lines(_mapping(data.get("lines"), "lines"))
    crossings = _read_indexed(data.get("crossings"), "crossings", _read_crossing)
    fields = _read_indexed(data.get("fields"), "fields", _read_field)
    board = Board(lines=tuple(lines), crossings=tuple(crossings), fields=tuple(fields))
    _check_topology(board)
    creatures = _sequence(data.get("creatures", []), "creatures")
    placed = tuple(_read_creature(c, f"creatures[{i}]", board) for i, c in enumerate(creatures))
    return board.with_creatures(placed)


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
        raise BoardFormatError(f"{where}: expected [x, y] numbers, got {value!r}")
    return (float(items[0]), float(items[1]))


def _optional_point(value: object, where: str) -> Point | None:
    return None if value is None else _point(value, where)


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BoardFormatError(f"{where}: expected an integer, got {value!r}")
    return value


def _colour(value: object, where: str, allowed: Sequence[str] = LINE_COLOURS) -> str:
    if value not in allowed:
        raise BoardFormatError(
            f"{where}: unknown colour {value!r}; expected one of {', '.join(allowed)}"
        )
    return str(value)


def _read_lines(data: Mapping[str, Any]) -> list[Line]:
    lines = []
    for colour in data:
        _colour(colour, f"lines.{colour}")
    for colour in (c for c in LINE_COLOURS if c in data):
        entry = _mapping(data[colour], f"lines.{colour}")
        where = f"lines.{colour}.polyline"
        polyline = tuple(
            _point(p, f"{where}[{i}]")
            for i, p in enumerate(_sequence(entry.get("polyline"), where))
        )
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
            f"{where}: ids must be 0..{len(ids) - 1} without gaps, got {sorted(ids)}"
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
        raise BoardFormatError(f"{where}.outer: expected true or false, got {outer!r}")
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


def _check_topology(board: Board) -> None:
    outer = [f.id for f in board.fields if f.outer]
    if len(outer) != 1:
        raise BoardFormatError(f"fields: exactly one field must be outer, found {len(outer)}")
    sectors: Counter[int] = Counter()
    for f in board.fields:
        for i, corner in enumerate(f.corners):
            if not 0 <= corner < len(board.crossings):
                raise BoardFormatError(
                    f"fields[{f.id}].corners[{i}]: crossing {corner} does not exist"
                )
            sectors[corner] += 1
    for c in board.crossings:
        if sectors[c.id] != 4:
            raise BoardFormatError(
                f"crossings[{c.id}]: a crossing is a corner of four sectors, "
                f"but fields list it {sectors[c.id]} times"
            )
    knots = Counter(k for f in board.fields for k in f.knots)
    for colour, count in knots.items():
        if count != 2:
            raise BoardFormatError(
                f"fields: the {colour} knot must count for two fields, it counts for {count}"
            )


def _read_creature(value: object, where: str, board: Board) -> Creature:
    entry = _mapping(value, where)
    kind = entry.get("kind")
    if kind not in (DEMON, GHOST):
        raise BoardFormatError(f"{where}.kind: expected 'demon' or 'ghost', got {kind!r}")
    allowed = (WHITE,) if kind == GHOST else LINE_COLOURS
    colour = _colour(entry.get("colour"), f"{where}.colour", allowed)
    off_board = entry.get("off_board", False)
    if not isinstance(off_board, bool):
        raise BoardFormatError(f"{where}.off_board: expected true or false, got {off_board!r}")
    field_id = _optional_id(entry.get("field"), f"{where}.field", len(board.fields))
    crossing_id = _optional_id(entry.get("crossing"), f"{where}.crossing", len(board.crossings))
    if off_board and (field_id is not None or crossing_id is not None):
        raise BoardFormatError(f"{where}: an off-board creature has no field or crossing")
    if not off_board and field_id is None:
        raise BoardFormatError(f"{where}.field: a creature on the board stands in a field")
    if kind == GHOST and crossing_id is not None:
        raise BoardFormatError(f"{where}.crossing: a ghost stands in a field centre, not a corner")
    if (
        crossing_id is not None
        and field_id is not None
        and crossing_id not in board.fields[field_id].corners
    ):
        raise BoardFormatError(f"{where}: field {field_id} has no corner at crossing {crossing_id}")
    return Creature(
        str(kind),
        colour,
        _optional_point(entry.get("xy"), f"{where}.xy"),
        field_id,
        crossing_id,
        off_board,
    )


def _optional_id(value: object, where: str, count: int) -> int | None:
    if value is None:
        return None
    number = _int(value, where)
    if not 0 <= number < count:
        raise BoardFormatError(f"{where}: {number} does not exist (there are {count})")
    return number
