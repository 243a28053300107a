"""Compare a reading of a photo with its truth, stage by stage.

Both sides are board reports (CONTRACT.md) in the photo's pixels: what
``dicke-daemonen score --json`` prints, and the ``NAME.truth.json`` written with a
synthetic or dev photo. Ids differ between the two, so things are matched by where they
are: crossings and creatures by distance (greedy, nearest pairs first, within a
tolerance that scales with the string and pawn sizes of the photo), bounded fields by
polygon overlap (IoU ≥ 0.5, the outer field to the outer field). Everything that
refers to an id (a creature's corner and field) is compared through those matches.

:func:`compare_reports` gives one :class:`Comparison` per photo, with counts that add
up over a set (:func:`summarise`) and a list of the problems found, for the benchmark's
"worst images" list. The benchmark prints the figures; nothing here asserts targets.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LinearRing, Polygon
from shapely.geometry.base import BaseGeometry

from vision.doubts import is_unsure, warning_places

__all__ = [
    "Comparison",
    "Doubts",
    "PointCounts",
    "Tolerances",
    "compare_points",
    "compare_reports",
    "failed_reading",
    "scene_facets",
    "summarise",
    "tolerances_for",
    "truth_pawn_width",
]

LOOP_COLOURS = ("red", "yellow", "green", "blue")
SCORE_COLOURS = ("red", "yellow", "green", "blue", "white")
#: Two bounded fields are the same field when their polygons overlap this much.
FIELD_IOU = 0.5
#: A creature is found when its foot is within this fraction of its pawn's width.
CREATURE_TOLERANCE = 0.6
#: A crossing not found within its tolerance, with a crossing of the same two loops left
#: over within this many string widths, was read off its place rather than lost. (Set
#: after looking: on the fourteenth to eighteenth sets 50 of the 54 crossings not found
#: lie 1.5-9.2 widths from such a crossing, 46 within 5; the other 4 went with a loop
#: not found. Ten widths is still well inside a field.)
OFF_PLACE_WIDTHS = 10.0

Report = Mapping[str, Any]


@dataclass(frozen=True)
class Tolerances:
    """Distances (photo pixels) within which a reading counts as the truth's item.

    Attributes
    ----------
    string_px : float
        Width of a string in the photo.
    crossing_px : float
        A crossing is found when within this distance: max(12, 1.5 string widths).
    knot_px : float
        A knot is found when within this distance: max(10, 3 string widths).
    loop_px : float
        A loop is found when 95 % of each line lies within this distance of the other:
        max(12, 3 string widths).
    pawn_px : float
        Width of a pawn, for creatures without their own ``pawn_px``.
    """

    string_px: float
    crossing_px: float
    knot_px: float
    loop_px: float
    pawn_px: float


def truth_pawn_width(truth: Report) -> float:
    """The pawn width a truth records (a dev truth's ``scene.pawn_width_px``, or the
    median of a synthetic truth's creatures' ``pawn_px``), 0 where it records none."""
    scene = truth.get("scene") or {}
    pawns = [c["pawn_px"] for c in truth.get("creatures", []) if c.get("pawn_px")]
    return float(scene.get("pawn_width_px") or (np.median(pawns) if pawns else 0.0))


def tolerances_for(truth: Report) -> Tolerances:
    """The matching tolerances for one photo, from the sizes its truth records.

    Dev truths give ``scene.string_width_px`` and ``scene.pawn_width_px``; synthetic
    truths give each creature's ``pawn_px`` and the materials' sizes in millimetres,
    from which the string width follows. Without either, sizes are guessed from the
    image (a string ≈ 1/400 of its long side).
    """
    scene = truth.get("scene") or {}
    pawn_px = truth_pawn_width(truth)
    string_px = float(scene.get("string_width_px") or 0.0)
    materials = scene.get("materials") or {}
    if not string_px and pawn_px and materials.get("pawn_width_mm"):
        string_px = pawn_px * materials["string_diameter_mm"] / materials["pawn_width_mm"]
    if not string_px:
        image = truth.get("image") or {}
        string_px = max(image.get("width", 2000), image.get("height", 1500)) / 400
    if not pawn_px:
        pawn_px = 8 * string_px
    return Tolerances(
        string_px=string_px,
        crossing_px=max(12.0, 1.5 * string_px),
        knot_px=max(10.0, 3.0 * string_px),
        loop_px=max(12.0, 3.0 * string_px),
        pawn_px=pawn_px,
    )


@dataclass
class Comparison:
    """One reading against its truth. Counts add up over a set of photos.

    ``*_truth`` and ``*_read`` count items on each side, ``*_matched`` the pairs
    found; the accuracies (colour pairs, corner counts, slots, ...) count right answers
    among the matched pairs. ``crossings_off`` counts the truth's crossings not found
    that were read off their place (see :func:`_compare_crossings`), and
    ``slots_right_aside`` the slots that are right when such a crossing is taken for
    the truth's (a demon in the right corner of a crossing read a little aside).

    ``errors`` counts what the reading got wrong, item by item (a loop not found, a
    knot off its place, a crossing not found or extra or of other loops, a creature
    missed, extra, or read with another kind, colour, slot or off-board state; a
    demon at a crossing read aside is not one), and ``errors_warned`` those the
    report pointed at (see :class:`Doubts`). ``creature_errors_alike`` counts the
    creature errors not pointed at that are a demon in another corner than the truth's,
    where the report names the truth's corner among its ``corners_alike`` (a doubt the
    reader judged moot: that corner would change no score, owner or violation).
    ``boards_warned`` is 1 for a board not read exactly where at least one of its errors
    was pointed at, and
    ``exact_doubted`` 1 for a board read exactly whose report is unsure of something
    all the same: what the warnings cost (``knots_doubted``: knots found that the
    report is unsure of).
    """

    refused: int = 0
    board_exact: int = 0
    scores_exact: int = 0
    winners_exact: int = 0
    violations_exact: int = 0
    loops_truth: int = 0
    loops_found: int = 0
    all_loops_found: int = 0
    knots_truth: int = 0
    knots_read: int = 0
    knots_found: int = 0
    crossings_truth: int = 0
    crossings_read: int = 0
    crossings_matched: int = 0
    crossing_pairs_right: int = 0
    crossings_off: int = 0
    fields_truth: int = 0
    fields_read: int = 0
    fields_matched: int = 0
    field_corners_right: int = 0
    field_knots_right: int = 0
    creatures_truth: int = 0
    creatures_read: int = 0
    creatures_matched: int = 0
    kind_colour_right: int = 0
    slots_total: int = 0
    slots_right: int = 0
    slots_right_aside: int = 0
    off_board_total: int = 0
    off_board_right: int = 0
    errors: int = 0
    errors_warned: int = 0
    loop_errors: int = 0
    loop_errors_warned: int = 0
    knot_errors: int = 0
    knot_errors_warned: int = 0
    crossing_errors: int = 0
    crossing_errors_warned: int = 0
    creature_errors: int = 0
    creature_errors_warned: int = 0
    creature_errors_alike: int = 0
    boards_warned: int = 0
    exact_doubted: int = 0
    knots_doubted: int = 0
    problems: list[str] = field(default_factory=list)

    def badness(self) -> tuple[int, int]:
        """Sort key for the worst photos: not exact first, then by problems found."""
        return (1 - self.board_exact, len(self.problems))

    def error(self, kind: str, warned: bool) -> None:
        """Count one error of a ``kind`` ("loop", "knot", "crossing" or "creature"),
        and whether the report pointed at it."""
        self.errors += 1
        self.errors_warned += warned
        setattr(self, f"{kind}_errors", getattr(self, f"{kind}_errors") + 1)
        setattr(self, f"{kind}_errors_warned", getattr(self, f"{kind}_errors_warned") + warned)

    def __iadd__(self, other: Comparison) -> Comparison:
        for f in fields(self):
            if f.name != "problems":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self


def compare_reports(reading: Report, truth: Report) -> Comparison:
    """Compare a reading with the truth of the same photo.

    Parameters
    ----------
    reading : mapping
        The board report read from the photo.
    truth : mapping
        The truth: a board report in the same photo's pixels, with optional ``scene``,
        creatures' ``pawn_px`` and ``accepted_results`` (other (scores, winners) that
        count as right, e.g. under other rule readings).

    Returns
    -------
    Comparison
    """
    tol = tolerances_for(truth)
    doubts = Doubts.of(reading)
    result = Comparison()
    _compare_outcome(reading, truth, result)
    _compare_loops(reading, truth, tol, result, doubts)
    crossing_map, aside_map = _compare_crossings(reading, truth, tol, result, doubts)
    field_map = _compare_fields(reading, truth, result)
    _compare_creatures(reading, truth, tol, crossing_map, field_map, result, aside_map, doubts)
    result.boards_warned = int(not result.board_exact and result.errors_warned > 0)
    result.exact_doubted = int(bool(result.board_exact) and doubts.any())
    return result


def failed_reading(truth: Report, error: str) -> Comparison:
    """The comparison for a photo the reader refused: everything in the truth missed.
    Its items are not counted as errors (a refusal would outweigh a set's errors; it is
    counted in ``refused``), and its board counts as warned of: the reader said why."""
    result = compare_reports({}, truth)
    result.refused = 1
    for kind in ("", "loop_", "knot_", "crossing_", "creature_"):
        setattr(result, f"{kind}errors", 0)
        setattr(result, f"{kind}errors_warned", 0)
    result.boards_warned = 1
    result.problems = [f"refused: {error}"]  # everything else follows from it
    return result


@dataclass(frozen=True)
class Doubts:
    """What a report says it is unsure of, to tell which of its errors it pointed at.

    Attributes
    ----------
    places : list of (x, y)
        Crossings, creatures and knots with a ``confidence`` (a knot's
        ``knot_confidence``) under ``vision.doubts.LOW_CONFIDENCE``, the ones the
        overlay marks with "?", and the places warnings name ("near (x, y)").
    loops : frozenset of str
        Colours whose loop a warning names ("only 55 % of the green loop was seen").
    knots : frozenset of str
        Colours whose knot is unsure or that a warning names ("the green knot is
        unsure ...", "no knot found on the green loop").
    """

    places: list[tuple[float, float]]
    loops: frozenset[str]
    knots: frozenset[str]

    @classmethod
    def of(cls, reading: Report) -> Doubts:
        places = [
            (float(item["xy"][0]), float(item["xy"][1]))
            for key in ("crossings", "creatures")
            for item in reading.get(key) or []
            if item.get("xy") is not None and is_unsure(item.get("confidence"))
        ]
        knots: set[str] = set()
        for colour, line in (reading.get("lines") or {}).items():
            if line.get("knot") is not None and is_unsure(line.get("knot_confidence")):
                places.append((float(line["knot"][0]), float(line["knot"][1])))
                knots.add(colour)
        loops: set[str] = set()
        for warning in reading.get("warnings") or []:
            text = str(warning)
            places += warning_places(text)
            # "no knot found on the green loop" doubts the knot, not the loop's way.
            named = knots if "knot" in text else loops
            named.update(c for c in LOOP_COLOURS if f"{c} loop" in text or f"{c} knot" in text)
        return cls(places, frozenset(loops), frozenset(knots))

    def near(self, xy: Sequence[float], reach: float) -> bool:
        """Whether a doubtful place lies within ``reach`` of ``xy``."""
        return any(math.dist(xy, place) <= reach for place in self.places)

    def of_lines(self, colours: Iterable[str]) -> bool:
        """Whether a warning names the loop of one of ``colours``."""
        return any(colour in self.loops for colour in colours)

    def any(self) -> bool:
        return bool(self.places or self.loops or self.knots)


# --- outcome ------------------------------------------------------------------------------


def _compare_outcome(reading: Report, truth: Report, result: Comparison) -> None:
    scores, winners = reading.get("scores"), sorted(reading.get("winners") or [])
    accepted = [(truth.get("scores"), sorted(truth.get("winners") or []))]
    accepted += [(a.get("scores"), sorted(a.get("winners") or []))
                 for a in truth.get("accepted_results") or []]
    result.scores_exact = int(any(scores == s for s, _ in accepted))
    result.winners_exact = int(any(winners == w for _, w in accepted))
    result.board_exact = int((scores, winners) in accepted)
    if not result.board_exact and reading:
        truth_scores = truth.get("scores") or {}
        wrong = [f"{c} {(scores or {}).get(c)}≠{truth_scores.get(c)}" for c in SCORE_COLOURS
                 if (scores or {}).get(c) != truth_scores.get(c)]
        if wrong:
            result.problems.append("scores " + ", ".join(wrong))
        if winners != sorted(truth.get("winners") or []):
            result.problems.append(f"winners {winners} instead of {truth.get('winners')}")
    rules_read = Counter(v.get("rule") for v in reading.get("violations") or [])
    rules_truth = Counter(v.get("rule") for v in truth.get("violations") or [])
    result.violations_exact = int(rules_read == rules_truth)
    if rules_read != rules_truth and reading:
        extra, missed = rules_read - rules_truth, rules_truth - rules_read
        text = ", ".join([_counted(f"+{r}", n) for r, n in sorted(extra.items())]
                         + [_counted(f"-{r}", n) for r, n in sorted(missed.items())])
        result.problems.append(f"violations {text}")


def _counted(text: str, count: int) -> str:
    return f"{text} x{count}" if count > 1 else text


# --- loops and knots ----------------------------------------------------------------------


def _compare_loops(reading: Report, truth: Report, tol: Tolerances, result: Comparison,
                   doubts: Doubts) -> None:
    read_lines, truth_lines = reading.get("lines") or {}, truth.get("lines") or {}
    for colour in LOOP_COLOURS:
        true_line = truth_lines.get(colour)
        if not true_line or len(true_line.get("polyline") or []) < 3:
            continue
        result.loops_truth += 1
        read_line = read_lines.get(colour) or {}
        if _same_loop(read_line.get("polyline") or [], true_line["polyline"], tol.loop_px):
            result.loops_found += 1
        else:
            result.problems.append(f"{colour} loop not found")
            result.error("loop", doubts.of_lines([colour]))
        true_knot, read_knot = true_line.get("knot"), read_line.get("knot")
        result.knots_truth += true_knot is not None
        result.knots_read += read_knot is not None
        if true_knot is not None and read_knot is not None \
                and math.dist(true_knot, read_knot) <= tol.knot_px:
            result.knots_found += 1
            result.knots_doubted += colour in doubts.knots
        elif true_knot is not None or read_knot is not None:
            result.error("knot", colour in doubts.knots or doubts.of_lines([colour]))
            result.problems.append(f"{colour} knot " + (
                "missed" if read_knot is None else
                "extra" if true_knot is None else
                f"off by {math.dist(true_knot, read_knot):.0f} px"))
    result.all_loops_found = int(result.loops_found == result.loops_truth > 0)


def _same_loop(read: Sequence[Sequence[float]], true: Sequence[Sequence[float]],
               tolerance: float) -> bool:
    """Whether 95 % of each polyline lies within ``tolerance`` of the other."""
    if len(read) < 3:
        return False
    read_ring, true_ring = LinearRing(read), LinearRing(true)
    return (_near_fraction(true_ring, read_ring, tolerance) >= 0.95
            and _near_fraction(read_ring, true_ring, tolerance) >= 0.95)


def _near_fraction(line: LinearRing, other: BaseGeometry, tolerance: float) -> float:
    """Fraction of points spread evenly along ``line`` within ``tolerance`` of ``other``."""
    step = max(tolerance / 2, line.length / 2000)
    count = max(8, int(line.length / step))
    points = shapely.line_interpolate_point(line, np.linspace(0, line.length, count))
    return float(np.mean(shapely.distance(other, points) <= tolerance))


# --- crossings ----------------------------------------------------------------------------


def _compare_crossings(
    reading: Report, truth: Report, tol: Tolerances, result: Comparison, doubts: Doubts
) -> tuple[dict[int, int], dict[int, int]]:
    """Match crossings by distance; return read id → truth id for the crossings found,
    and for those read aside.

    A truth crossing left unmatched that a crossing of the same two loops, also left
    unmatched, lies within :data:`OFF_PLACE_WIDTHS` string widths of is counted as
    read off its place (``crossings_off``), and named so among the problems, not as
    missed and extra: it still counts against recall and precision, but the figures
    then tell a crossing read a little aside from one lost.
    """
    read = reading.get("crossings") or []
    true = truth.get("crossings") or []
    result.crossings_read, result.crossings_truth = len(read), len(true)
    pairs = match_points([c["xy"] for c in read], [c["xy"] for c in true],
                         lambda i, j: tol.crossing_px)
    result.crossings_matched = len(pairs)
    for i, j in pairs:
        if sorted(read[i]["lines"]) == sorted(true[j]["lines"]):
            result.crossing_pairs_right += 1
        else:
            result.error("crossing", doubts.near(read[i]["xy"], tol.crossing_px)
                         or doubts.of_lines([*read[i]["lines"], *true[j]["lines"]]))
            result.problems.append(
                f"crossing {true[j]['id']} read as {'/'.join(sorted(read[i]['lines']))}")
    matched_read, matched_truth = {i for i, _ in pairs}, {j for _, j in pairs}
    left_read = [i for i in range(len(read)) if i not in matched_read]
    left_true = [j for j in range(len(true)) if j not in matched_truth]
    aside = match_points(
        [read[i]["xy"] for i in left_read],
        [true[j]["xy"] for j in left_true],
        lambda a, b: OFF_PLACE_WIDTHS * tol.string_px
        if sorted(read[left_read[a]]["lines"]) == sorted(true[left_true[b]]["lines"])
        else -1.0,
    )
    result.crossings_off = len(aside)
    for a, b in sorted(aside, key=lambda pair: true[left_true[pair[1]]]["id"]):
        offset = math.dist(read[left_read[a]]["xy"], true[left_true[b]]["xy"]) / tol.string_px
        result.problems.append(
            f"crossing {true[left_true[b]]['id']} read {offset:.1f} string widths off its place")
    aside_true = {left_true[b] for _, b in aside}
    aside_read = {left_read[a] for a, _ in aside}
    # A crossing not found is pointed at by a doubt within the reach of one read aside.
    for j in left_true:
        result.error("crossing", doubts.near(true[j]["xy"], OFF_PLACE_WIDTHS * tol.string_px)
                     or doubts.of_lines(true[j]["lines"]))
    for i in left_read:
        if i not in aside_read:
            result.error("crossing", doubts.near(read[i]["xy"], tol.crossing_px)
                         or doubts.of_lines(read[i]["lines"]))
    missed = [str(true[j]["id"]) for j in left_true if j not in aside_true]
    if missed:
        result.problems.append(f"crossings missed: {', '.join(missed)}")
    extra = len(left_read) - len(aside)
    if extra:
        result.problems.append(f"{extra} extra crossing{'s' * (extra > 1)}")
    found = {read[i]["id"]: true[j]["id"] for i, j in pairs}
    return found, {read[left_read[a]]["id"]: true[left_true[b]]["id"] for a, b in aside}


def match_points(
    read: Sequence[Sequence[float]],
    true: Sequence[Sequence[float]],
    tolerance: Callable[[int, int], float],
) -> list[tuple[int, int]]:
    """Pair read points with true points, nearest pairs first, each point at most once.

    ``tolerance(i, j)`` is the largest distance at which read point ``i`` may pair
    with true point ``j``. Returns (read index, true index) pairs.
    """
    if not read or not true:
        return []
    a = np.asarray(read, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(true, dtype=np.float64).reshape(-1, 2)
    distance = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    candidates = sorted(
        (float(distance[i, j]), i, j)
        for i in range(len(a))
        for j in range(len(b))
        if distance[i, j] <= tolerance(i, j)
    )
    used_read: set[int] = set()
    used_true: set[int] = set()
    pairs = []
    for _, i, j in candidates:
        if i not in used_read and j not in used_true:
            used_read.add(i)
            used_true.add(j)
            pairs.append((i, j))
    return pairs


# --- one stage's points, before they are combined ------------------------------------------


@dataclass
class PointCounts:
    """How the pawns or knots one stage found match the truth (counts add up over a set).

    Attributes
    ----------
    read, truth, matched : int
        Points the stage gave, points of the truth, and pairs within tolerance.
    kind_colour_right : int
        Matched pawns whose kind and colour are right (knots: every match).
    """

    read: int = 0
    truth: int = 0
    matched: int = 0
    kind_colour_right: int = 0

    def __add__(self, other: PointCounts) -> PointCounts:
        return PointCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def compare_points(
    points: Sequence[tuple[str, str, Sequence[float]]], truth: Report, what: str
) -> PointCounts:
    """Match one stage's pawns or knots with the truth, as the report's are matched.

    Parameters
    ----------
    points : list of (kind, colour, (x, y))
        In the photo's pixels; kind and colour are ignored for knots.
    truth : dict
        The truth report.
    what : {"pawns", "knots"}
        Pawns match the truth's creatures (within ``CREATURE_TOLERANCE`` of a pawn's
        width), knots the truth's lines' knots (within the knot tolerance).
    """
    if what == "pawns":
        true = [c for c in truth.get("creatures") or [] if c.get("xy") is not None]
        tol = tolerances_for(truth)
        pawn = [float(c.get("pawn_px") or tol.pawn_px) for c in true]
        pairs = match_points([p[2] for p in points], [c["xy"] for c in true],
                             lambda i, j: CREATURE_TOLERANCE * pawn[j])
        right = sum((points[i][0], points[i][1]) == (true[j].get("kind"), true[j].get("colour"))
                    for i, j in pairs)
        return PointCounts(len(points), len(true), len(pairs), right)
    if what == "knots":
        knots = [line["knot"] for line in (truth.get("lines") or {}).values()
                 if line.get("knot") is not None]
        knot_px = tolerances_for(truth).knot_px
        pairs = match_points([p[2] for p in points], knots, lambda i, j: knot_px)
        return PointCounts(len(points), len(knots), len(pairs), len(pairs))
    raise ValueError(f"what must be 'pawns' or 'knots', got {what!r}")


# --- fields -------------------------------------------------------------------------------


def _compare_fields(reading: Report, truth: Report, result: Comparison) -> dict[int, int]:
    """Match fields (outer to outer, bounded ones by IoU); return read id → truth id."""
    read = reading.get("fields") or []
    true = truth.get("fields") or []
    result.fields_read, result.fields_truth = len(read), len(true)
    pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
    read_outer = [f for f in read if f.get("outer")]
    true_outer = [f for f in true if f.get("outer")]
    if read_outer and true_outer:
        pairs.append((read_outer[0], true_outer[0]))
    read_shapes = [(f, _polygon(f)) for f in read if not f.get("outer")]
    true_shapes = [(f, _polygon(f)) for f in true if not f.get("outer")]
    overlaps = sorted(
        ((_iou(rs, ts), ri, ti) for ri, (_, rs) in enumerate(read_shapes)
         for ti, (_, ts) in enumerate(true_shapes) if rs is not None and ts is not None
         and rs.intersects(ts)),
        reverse=True,
    )
    used_read: set[int] = set()
    used_true: set[int] = set()
    for iou, ri, ti in overlaps:
        if iou >= FIELD_IOU and ri not in used_read and ti not in used_true:
            used_read.add(ri)
            used_true.add(ti)
            pairs.append((read_shapes[ri][0], true_shapes[ti][0]))
    result.fields_matched = len(pairs)
    for r, t in pairs:
        corners_right = len(r.get("corners") or []) == len(t.get("corners") or [])
        knots_right = len(r.get("knots") or []) == len(t.get("knots") or [])
        result.field_corners_right += corners_right
        result.field_knots_right += knots_right
        if not corners_right or not knots_right:
            result.problems.append(
                f"field {t['id']}: {len(r.get('corners') or [])} corners, "
                f"{len(r.get('knots') or [])} knots instead of {len(t.get('corners') or [])}, "
                f"{len(t.get('knots') or [])}")
    missed = len(true) - len(pairs)
    if missed and reading:
        result.problems.append(f"{missed} field{'s' * (missed > 1)} not matched")
    return {r["id"]: t["id"] for r, t in pairs}


def _polygon(report_field: Mapping[str, Any]) -> Polygon | None:
    points = report_field.get("polygon") or []
    if len(points) < 3:
        return None
    shape = Polygon(points)
    if not shape.is_valid:
        shape = shape.buffer(0)
    return shape if isinstance(shape, Polygon) and not shape.is_empty else None


def _iou(a: BaseGeometry, b: BaseGeometry) -> float:
    overlap = a.intersection(b).area
    union = a.area + b.area - overlap
    return float(overlap / union) if union > 0 else 0.0


# --- creatures ----------------------------------------------------------------------------


def _compare_creatures(
    reading: Report,
    truth: Report,
    tol: Tolerances,
    crossing_map: Mapping[int, int],
    field_map: Mapping[int, int],
    result: Comparison,
    aside_map: Mapping[int, int],
    doubts: Doubts,
) -> None:
    with_aside = {**crossing_map, **aside_map}
    read = [c for c in reading.get("creatures") or [] if c.get("xy") is not None]
    true = [c for c in truth.get("creatures") or [] if c.get("xy") is not None]
    result.creatures_read, result.creatures_truth = len(read), len(true)
    pawn = [float(c.get("pawn_px") or tol.pawn_px) for c in true]
    pairs = match_points([c["xy"] for c in read], [c["xy"] for c in true],
                         lambda i, j: CREATURE_TOLERANCE * pawn[j])
    result.creatures_matched = len(pairs)
    for i, j in pairs:
        r, t = read[i], true[j]
        name = f"creature {t['id']} ({_creature_name(t)})"
        kind_colour = (r.get("kind"), r.get("colour")) == (t.get("kind"), t.get("colour"))
        if kind_colour:
            result.kind_colour_right += 1
        else:
            result.problems.append(f"{name} read as {_creature_name(r)}")
        result.off_board_total += 1
        off_board = bool(r.get("off_board")) == bool(t.get("off_board"))
        if off_board:
            result.off_board_right += 1
        else:
            result.problems.append(f"{name} read as {'off' if r.get('off_board') else 'on'} "
                                   "the board")
        right_aside = True
        if not t.get("off_board"):
            result.slots_total += 1
            right = _same_slot(r, t, crossing_map, field_map)
            right_aside = right or _same_slot(r, t, with_aside, field_map)
            result.slots_right += right
            result.slots_right_aside += right_aside
        if not (kind_colour and off_board and right_aside):
            warned = doubts.near(r["xy"], pawn[j])
            result.error("creature", warned)
            named = kind_colour and off_board and _alike_named(r, t, with_aside, field_map)
            result.creature_errors_alike += not warned and named
        if t.get("off_board"):
            continue
        if right_aside and not right:
            result.problems.append(f"{name} at crossing {t['crossing']}, which was read aside")
        elif not right and not r.get("off_board"):
            crossing, field_id = _mapped_slot(r, crossing_map, field_map)
            mapped = {"crossing": crossing, "field": field_id}
            result.problems.append(
                f"{name} in {_slot_name(mapped)} instead of {_slot_name(t)} (truth ids; "
                "-1: no such item in the truth)")
    matched_truth = {j for _, j in pairs}
    matched_read = {i for i, _ in pairs}
    for j, t in enumerate(true):
        if j not in matched_truth:
            result.error("creature", doubts.near(t["xy"], pawn[j]))
    for i, r in enumerate(read):
        if i not in matched_read:
            result.error("creature", doubts.near(r["xy"], tol.pawn_px))
    missed = [f"{t['id']} ({_creature_name(t)})" for j, t in enumerate(true)
              if j not in matched_truth]
    if missed:
        result.problems.append("creatures missed: " + ", ".join(missed))
    extra = [_creature_name(r) for i, r in enumerate(read) if i not in matched_read]
    if extra:
        result.problems.append("extra creatures: " + ", ".join(extra))


def _alike_named(
    read: Mapping[str, Any], true: Mapping[str, Any],
    crossing_map: Mapping[int, int], field_map: Mapping[int, int],
) -> bool:
    """Whether the truth's corner is one the report says a demon fits as well as the one
    it was put in (``corners_alike``)."""
    slot = (true.get("field"), true.get("crossing"))
    corners = read.get("corners_alike")
    return isinstance(corners, list) and any(
        isinstance(corner, list) and len(corner) == 2
        and (field_map.get(corner[0], -1), crossing_map.get(corner[1], -1)) == slot
        for corner in corners
    )


def _same_slot(
    read: Mapping[str, Any], true: Mapping[str, Any],
    crossing_map: Mapping[int, int], field_map: Mapping[int, int],
) -> bool:
    if read.get("off_board"):
        return False
    crossing, field_id = _mapped_slot(read, crossing_map, field_map)
    return crossing == true.get("crossing") and field_id == true.get("field")


def _mapped_slot(
    read: Mapping[str, Any], crossing_map: Mapping[int, int], field_map: Mapping[int, int]
) -> tuple[int | None, int | None]:
    """The read creature's crossing and field as truth ids (-1: matches no truth item)."""
    crossing, field_id = read.get("crossing"), read.get("field")
    return (None if crossing is None else crossing_map.get(crossing, -1),
            None if field_id is None else field_map.get(field_id, -1))


def _creature_name(creature: Mapping[str, Any]) -> str:
    return f"{creature.get('colour')} {creature.get('kind')}"


def _slot_name(creature: Mapping[str, Any]) -> str:
    if creature.get("crossing") is not None:
        return f"crossing {creature['crossing']}/field {creature.get('field')}"
    return f"field {creature.get('field')}"


# --- scenes and sums ----------------------------------------------------------------------


def scene_facets(truth: Report) -> dict[str, str]:
    """How the photo was made, as a few comparable labels (table, light, tilt, fullness).

    Understands both the synthetic truths (``scene.table.kind``, ``scene.light.kind``,
    ``scene.camera.tilt_deg``, ``scene.stage``, ``scene.difficulty``) and the dev truths
    (``scene.table``, ``scene.light``, ``scene.tilt_deg``, ``scene.fullness``). A
    synthetic truth also says whether the pawns are lacquered (``finish``) and whether a
    felt or mat is pale or deep (``shade``), where it was made by a generator that knows.
    """
    scene = truth.get("scene") or {}

    def kind(value: Any) -> str:
        if isinstance(value, Mapping):
            value = value.get("kind")
        return str(value) if value is not None else "unknown"

    tilt = scene.get("tilt_deg")
    if tilt is None:
        tilt = (scene.get("camera") or {}).get("tilt_deg")
    facets = {
        "table": kind(scene.get("table")),
        "light": kind(scene.get("light")),
        "tilt": _tilt_bucket(tilt),
        "fullness": str(scene.get("fullness") or scene.get("stage") or "unknown"),
    }
    materials = scene.get("materials") or {}
    sheen = materials.get("pawn_sheen")
    if isinstance(sheen, int | float):
        facets["finish"] = "lacquered" if sheen > 0 else "painted"
        if sheen > 0 and (materials.get("pawn_window") or 0) > 0:
            facets["finish"] = "lacquered, window"
    # Truths that have pawn_sheen were made by a generator that also draws pale felt
    # and mats: only on those is "deep" a shade it chose.
    table = scene.get("table")
    if (
        isinstance(table, Mapping)
        and table.get("kind") in ("green_felt", "blue_mat")
        and "pawn_sheen" in (scene.get("materials") or {})
    ):
        pale = str(table.get("variant", "")).startswith("pale_")
        facets["shade"] = "pale" if pale else "deep"
    if "difficulty" in scene:
        facets["difficulty"] = str(scene["difficulty"])
    elif "hard" in scene:
        facets["difficulty"] = "hard" if scene["hard"] else "mild"
    return facets


def _tilt_bucket(tilt: Any) -> str:
    if not isinstance(tilt, int | float):
        return "unknown"
    for top in (10, 20, 30):
        if tilt < top:
            return f"{top - 10}-{top}°"
    return "≥30°"


def summarise(comparisons: Iterable[Comparison]) -> dict[str, Any]:
    """The set's figures: rates (0–1, or None when nothing was there to count) and counts."""
    total = Comparison()
    photos = 0
    for comparison in comparisons:
        total += comparison
        photos += 1

    def rate(right: int, out_of: int) -> float | None:
        return right / out_of if out_of else None

    return {
        "photos": photos,
        "refused": total.refused,
        "board_exact": rate(total.board_exact, photos),
        "scores_exact": rate(total.scores_exact, photos),
        "winners_exact": rate(total.winners_exact, photos),
        "violations_exact": rate(total.violations_exact, photos),
        "loops_found": rate(total.loops_found, total.loops_truth),
        "all_loops_found": rate(total.all_loops_found, photos),
        "knots_recall": rate(total.knots_found, total.knots_truth),
        "knots_precision": rate(total.knots_found, total.knots_read),
        "crossings_recall": rate(total.crossings_matched, total.crossings_truth),
        "crossings_precision": rate(total.crossings_matched, total.crossings_read),
        "crossing_pairs": rate(total.crossing_pairs_right, total.crossings_matched),
        "crossings_off": rate(total.crossings_off,
                              total.crossings_truth - total.crossings_matched),
        "fields_recall": rate(total.fields_matched, total.fields_truth),
        "fields_precision": rate(total.fields_matched, total.fields_read),
        "field_corners": rate(total.field_corners_right, total.fields_matched),
        "field_knots": rate(total.field_knots_right, total.fields_matched),
        "creatures_recall": rate(total.creatures_matched, total.creatures_truth),
        "creatures_precision": rate(total.creatures_matched, total.creatures_read),
        "kind_colour": rate(total.kind_colour_right, total.creatures_matched),
        "slots": rate(total.slots_right, total.slots_total),
        "slots_aside": rate(total.slots_right_aside, total.slots_total),
        "off_board": rate(total.off_board_right, total.off_board_total),
        "errors_warned": rate(total.errors_warned, total.errors),
        **{f"{kind}_errors_warned": rate(getattr(total, f"{kind}_errors_warned"),
                                         getattr(total, f"{kind}_errors"))
           for kind in ("loop", "knot", "crossing", "creature")},
        "creature_errors_alike": rate(total.creature_errors_alike,
                                      total.creature_errors - total.creature_errors_warned),
        "boards_warned": rate(total.boards_warned, photos - total.board_exact),
        "exact_doubted": rate(total.exact_doubted, total.board_exact),
        "knots_doubted": rate(total.knots_doubted, total.knots_found),
        "counts": {f.name: getattr(total, f.name) for f in fields(total) if f.name != "problems"},
    }
