"""How many corrections a player needs on the web page to mend each board the reader
got wrong.

Run::

    python benchmarks/mending.py --set ../shared/dev-photos
    dicke-daemonen score out/bench --out out/bench.jsonl
    python benchmarks/mending.py --set out/bench --reports out/bench.jsonl

For every photo of the set whose reading is not exact (:func:`vision.evaluate.compare_reports`),
a player who sees the table (its truth) corrects the reading with the page's edits
(:func:`webui.edits.apply_edits`, the same as ``PATCH /api/boards/<id>``), in the order
the page invites:

1. **Loops**: each stretch of a loop read more than a crossing's tolerance (1.5 string
   widths, :func:`vision.evaluate.tolerances_for`) from the true cord is drawn again
   along the truth, from a little before it to a little after (``{"op": "loop"}``); a
   loop read astray over more than half its length is drawn again whole, and so is one
   still astray after its stretches (a stretch whose ends are not on the loop where it
   is read right is refused by the page).
2. **Knots**: a knot read more than the knot tolerance from the truth's is tapped onto
   the truth's place (``{"op": "knot"}``).

A stroke or a knot's tap is kept only where it brings the board nearer the truth (fewer
of the benchmark's problems): a player leaves a stretch or knot that makes no difference.
3. **Creatures**, matched as the benchmark matches them: one of the wrong kind or colour
   is changed; one standing in front of a player but read on the board is taken off it
   (``{"op": "off_board"}``); one in the wrong corner or field is moved with a tap at
   its foot (``{"op": "move"}``), or said to stand in no corner where it stands beside
   one (``{"op": "no_corner"}``); one read that is not on the table is removed; one
   missed is tapped at its foot (``{"op": "add"}``). A demon tapped goes to the nearest
   corner spot of the tapped field, as on the page.

An edit the page refuses is counted and skipped. Printed: the boards read wrong, how
many of them the edits make exact, the edits each took (median and most, by kind), and
what is left on the others. Without ``--reports`` the photos are read here, one after
another. ``--edits add,change,remove,knot`` measures with only some of the page's edits
(those it had before a loop could be drawn again). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import shapely  # noqa: E402
from shapely.geometry import LinearRing, Polygon  # noqa: E402
from tqdm import tqdm  # noqa: E402

from benchmarks.accuracy import find_pairs  # noqa: E402
from vision.evaluate import (  # noqa: E402
    CREATURE_TOLERANCE,
    Tolerances,
    compare_reports,
    match_points,
    tolerances_for,
)
from webui.edits import EditError, apply_edits  # noqa: E402

Report = dict[str, Any]

#: The edits the page offers (``webui.edits``); ``--edits`` measures with fewer.
EDITS = ("add", "change", "remove", "move", "no_corner", "off_board", "on_board", "knot",
         "loop")

#: A stretch drawn again starts and ends this many pawn widths beyond where the loop
#: was read astray, along the loop (a player starts where the loop is plainly right).
STROKE_MARGIN = 1.0
#: A loop read astray over more than this share of its length is drawn again whole.
WHOLE_LOOP = 0.5


@dataclass
class Mending:
    """One wrong board and what mending it took."""

    photo: str
    edits: Counter[str] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)
    exact: bool = False
    left: list[str] = field(default_factory=list)


def mend(
    reading: Report, truth: Report, offered: Collection[str] = EDITS
) -> tuple[Report, Counter[str], list[str]]:
    """``reading`` corrected towards ``truth`` with the page's edits (those ``offered``),
    the edits used by kind, and the messages of those refused."""
    tol = tolerances_for(truth)
    used: Counter[str] = Counter()
    refused: list[str] = []

    def edit(report: Report, change: dict[str, Any], kind: str) -> Report:
        if change["op"] not in offered:
            refused.append(f"{kind}: not offered")
            return report
        try:
            corrected = apply_edits(report, [change])
        except EditError as error:
            refused.append(f"{kind}: {error}")
            return report
        used[kind] += 1
        return corrected

    def if_better(report: Report, change: dict[str, Any], kind: str) -> Report:
        """The edit, where it brings the board nearer the truth: a player sees a
        stretch or knot that makes no difference, and leaves it."""
        before = len(compare_reports(report, truth).problems)
        corrected = edit(report, change, kind)
        if corrected is not report and len(compare_reports(corrected, truth).problems) >= before:
            used[kind] -= 1
            return report
        return corrected

    for colour, true_line in (truth.get("lines") or {}).items():
        read_line = (reading.get("lines") or {}).get(colour)
        if not read_line:
            continue
        paths = strokes(read_line["polyline"], true_line["polyline"], tol)
        for path in paths:
            reading = if_better(reading, {"op": "loop", "colour": colour, "path": path}, "loop")
        mended_line = (reading.get("lines") or {}).get(colour) or read_line
        whole = [*map(list, true_line["polyline"]), list(true_line["polyline"][0])]
        if whole not in paths and strokes(mended_line["polyline"], true_line["polyline"], tol):
            # Still astray where a stretch could not be drawn (its ends not on the loop
            # where it is read right: 770196's yellow loop, read along other cords): the
            # player draws the whole loop again.
            reading = if_better(reading, {"op": "loop", "colour": colour, "path": whole}, "loop")
    for colour, true_line in (truth.get("lines") or {}).items():
        knot, read_line = true_line.get("knot"), (reading.get("lines") or {}).get(colour)
        if knot is None or not read_line:
            continue
        if read_line.get("knot") is None or math.dist(read_line["knot"], knot) > tol.knot_px:
            reading = if_better(reading, {"op": "knot", "colour": colour, "xy": knot}, "knot")
    return mend_creatures(reading, truth, tol, edit, "move" in offered), +used, refused


def strokes(
    read: Sequence[Sequence[float]], true: Sequence[Sequence[float]], tol: Tolerances
) -> list[list[list[float]]]:
    """The strokes that draw the stretches of the ``read`` loop lying more than a
    crossing's tolerance from the ``true`` one again along it."""
    read_ring, true_ring = LinearRing(read), LinearRing(true)
    step = max(tol.string_px, 1.0)
    samples = [read_ring.interpolate(s) for s in np.arange(0, read_ring.length, step)]
    astray = shapely.distance(true_ring, np.array(samples)) > tol.crossing_px
    if not astray.any():
        return []
    if astray.mean() > WHOLE_LOOP:
        return [[*map(list, true), list(true[0])]]
    margin = STROKE_MARGIN * tol.pawn_px / step
    paths = []
    for first, last in _runs(astray, gap=int(2 * margin)):
        ends = [samples[int((first - margin) % len(samples))],
                samples[int((last + margin) % len(samples))]]
        start, end = (true_ring.project(p) for p in ends)
        middle = samples[((first + last) // 2) % len(samples)]
        paths.append(_stretch(true_ring, start, end, between=middle))
    return paths


def _runs(flags: np.ndarray[Any, np.dtype[np.bool_]], gap: int) -> list[tuple[int, int]]:
    """(first, last) index of each run of True round the closed sequence ``flags``,
    runs apart by ``gap`` or fewer joined; ``last`` may pass the end (taken modulo)."""
    n = len(flags)
    start = int(np.argmin(flags))  # a False: no run crosses it
    runs: list[list[int]] = []
    for k in range(start, start + n):
        if flags[k % n]:
            if runs and k - runs[-1][1] <= gap + 1:
                runs[-1][1] = k
            else:
                runs.append([k, k])
    if len(runs) > 1 and runs[0][0] + n - runs[-1][1] <= gap + 1:
        runs[-1][1] = runs.pop(0)[1] + n  # the last run goes on round into the first
    return [(a, b) for a, b in runs]


def _stretch(ring: LinearRing, start: float, end: float, between: Any) -> list[list[float]]:
    """The points of ``ring`` from ``start`` to ``end`` (distances along it), whichever
    way round passes nearer to the point ``between``."""
    length = ring.length
    forward = (end - start) % length
    ways = [np.linspace(start, start + forward, 64),
            np.linspace(start, start - (length - forward), 64)]
    paths = [[ring.interpolate(s % length) for s in way] for way in ways]
    nearest = min(paths, key=lambda path: min(p.distance(between) for p in path))
    return [[p.x, p.y] for p in nearest]


def mend_creatures(
    reading: Report, truth: Report, tol: Tolerances, edit: Any, can_move: bool = True
) -> Report:
    """``reading`` with its creatures corrected towards ``truth``'s (see the module;
    without ``can_move``, a creature in the wrong place is removed and added again)."""
    read = reading["creatures"]
    true = [c for c in truth.get("creatures") or [] if c.get("xy") is not None]
    pawn = [float(c.get("pawn_px") or tol.pawn_px) for c in true]
    pairs = match_points([c["xy"] for c in read], [c["xy"] for c in true],
                         lambda i, j: CREATURE_TOLERANCE * pawn[j])
    matched = dict(pairs)
    if not can_move:  # each one in the wrong place is one missed and one extra
        pairs = [(i, j) for i, j in pairs if true[j].get("off_board") or (
            _same_place(reading, read[i], truth, true[j], tol))]
        matched = dict(pairs)
    for i, j in pairs:  # these edits keep every creature's id
        if (read[i]["kind"], read[i]["colour"]) != (true[j]["kind"], true[j]["colour"]):
            reading = edit(reading, {"op": "change", "creature": i,
                                     "colour": true[j]["colour"]}, "change")
        if true[j].get("off_board") and not read[i]["off_board"]:
            # A pawn in front of a player read as on the board is taken off it.
            reading = edit(reading, {"op": "off_board", "creature": i}, "off_board")
        elif not _same_place(reading, reading["creatures"][i], truth, true[j], tol):
            if true[j]["kind"] == "demon" and true[j]["crossing"] is None and not true[j].get(
                    "off_board") and reading["creatures"][i]["crossing"] is not None:
                # A demon standing beside a corner, not in it (a tap would snap into it).
                change = {"op": "no_corner", "creature": i}
            else:
                change = {"op": "move", "creature": i, "xy": true[j]["xy"]}
            reading = edit(reading, change, change["op"])
    for i in sorted(set(range(len(read))) - set(matched), reverse=True):
        reading = edit(reading, {"op": "remove", "creature": i}, "remove")  # ids before stay
    for j in sorted(set(range(len(true))) - set(matched.values())):
        reading = edit(reading, {"op": "add", "colour": true[j]["colour"], "xy": true[j]["xy"]},
                       "add")
    return reading


def _same_place(reading: Report, read: Report, truth: Report, true: Report,
                tol: Tolerances) -> bool:
    """Whether a read creature stands where its truth does: both off the board, or in
    fields that overlap (IoU ≥ 0.5, or both the outer field) at crossings within a
    crossing's tolerance (or both at none)."""
    if read.get("off_board") or true.get("off_board"):
        return bool(read.get("off_board")) == bool(true.get("off_board"))
    crossings = {c["id"]: c["xy"] for c in reading["crossings"]}
    true_crossings = {c["id"]: c["xy"] for c in truth["crossings"]}
    a, b = read.get("crossing"), true.get("crossing")
    if (a is None) != (b is None) or (
        a is not None and math.dist(crossings[a], true_crossings[b]) > tol.crossing_px
    ):
        return False
    return _same_field(_field(reading, read["field"]), _field(truth, true["field"]))


def _field(report: Report, field_id: int) -> Report:
    return next(f for f in report["fields"] if f["id"] == field_id)


def _same_field(a: Report, b: Report) -> bool:
    if a.get("outer") or b.get("outer"):
        return bool(a.get("outer")) == bool(b.get("outer"))
    pa, pb = (shapely.make_valid(Polygon(f["polygon"])) for f in (a, b))
    union = pa.union(pb).area
    return union > 0 and pa.intersection(pb).area / union >= 0.5


def readings(pairs: Sequence[tuple[Path, Path]], reports: Path | None) -> dict[str, Report | str]:
    """Each photo's report (or its reader's error), by the photo's file name: from the
    ``score --out`` lines, else read here."""
    if reports is not None:
        found: dict[str, Report | str] = {}
        for line in reports.read_text().splitlines():
            entry = json.loads(line)
            name = Path(entry.pop("photo")).name
            found[name] = entry.get("error", entry)
        return found
    from vision.errors import ReadError
    from vision.reader import read_photo

    read: dict[str, Report | str] = {}
    for photo, _ in tqdm(pairs, desc="reading", unit="photo", disable=None, file=sys.stderr):
        try:
            read[photo.name] = read_photo(photo).report
        except ReadError as error:
            read[photo.name] = str(error)
    return read


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, required=True, help="folder of photo + truth pairs")
    parser.add_argument("--reports", type=Path, metavar="RESULTS.jsonl",
                        help="the set's reports from `dicke-daemonen score DIR --out`")
    parser.add_argument("--edits", default=",".join(EDITS),
                        help="the edits offered, comma-separated (default: all the page's)")
    args = parser.parse_args(argv)
    offered = [op for op in args.edits.split(",") if op]
    if unknown := set(offered) - set(EDITS):
        parser.error(f"--edits: no such edit {', '.join(sorted(unknown))}")
    pairs = find_pairs(args.set)
    if not pairs:
        parser.error(f"no photo + truth pairs in {args.set}")
    reports = readings(pairs, args.reports)
    mended: list[Mending] = []
    unread: list[str] = []
    for photo, truth_path in pairs:
        reading = reports.get(photo.name)
        if reading is None:
            continue
        if isinstance(reading, str):
            unread.append(f"{photo.name}: {reading}")
            continue
        truth = json.loads(truth_path.read_text())
        if compare_reports(reading, truth).board_exact:
            continue
        corrected, used, refused = mend(reading, truth, offered)
        result = compare_reports(corrected, truth)
        mended.append(Mending(photo.name, used, refused, bool(result.board_exact),
                              result.problems))
    print_figures(args.set, len(pairs), mended, unread)
    return 0


def print_figures(folder: Path, photos: int, mended: list[Mending], unread: list[str]) -> None:
    exact = [m for m in mended if m.exact]
    print(f"{folder}: {photos} photos, {len(mended)} read not exactly, {len(unread)} not read")
    print(f"  mended exactly with the page's edits   {len(exact)} / {len(mended)}")
    if exact:
        counts = [sum(m.edits.values()) for m in exact]
        print(f"  edits each took                        median {statistics.median(counts):g},"
              f" most {max(counts)}")
        kinds = sum((m.edits for m in exact), Counter())
        print("  by kind (all mended boards)            "
              + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))
        strokes_needed = sum(1 for m in exact if m.edits["loop"])
        print(f"  boards that needed a loop drawn again  {strokes_needed}")
    for m in mended:
        state = "mended" if m.exact else "NOT mended"
        edits = ", ".join(f"{kind} {n}" for kind, n in sorted(m.edits.items()) if n)
        print(f"  {m.photo}: {state} with {sum(m.edits.values())} edits ({edits or 'none'})")
        for text in m.refused:
            print(f"      refused: {text}")
        if not m.exact:
            for text in m.left[:4]:
                print(f"      left: {text}")
    for text in unread:
        print(f"  not read (enter it by hand): {text}")


if __name__ == "__main__":
    raise SystemExit(main())
