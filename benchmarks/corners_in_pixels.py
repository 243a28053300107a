"""How far the photo's own pixels can place the demons, read perfectly.

Run::

    python benchmarks/corners_in_pixels.py --set ../shared/dev-photos
    python benchmarks/corners_in_pixels.py --set out/a --set out/b

The reader locates each pawn with the engine's locator in the photo's pixels
(:func:`vision.reader.place`), with a pawn width for each foot. The truth decides on the
table, where the generator put the board together: a tilted camera shortens distances
along its tilt and not across it, and the locator weighs a foot's distance from a
crossing and from both strings in pawn radii. So some demons stand in another corner in
the photo's pixels than on the table, however well the photo is read.

For every demon on the board of each truth, this locates it on the board of the truth's
own lines and knots in pixels, at its true foot with its own true width (``pawn_px``),
and compares the crossing with the truth's. Printed: how many agree, how many stand in
another corner, in a corner on the table and none in pixels, or the other way round, by
the camera's tilt where the truth records it (:func:`vision.evaluate.scene_facets`), and
the boards where any disagree. This is
a bound on the reader's slots as it locates today: a demon it puts elsewhere here it can
only put right by luck (or by a rule that favours its own colour's corner). Nothing is
read, so a few thousand truths take a minute. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from engine.colours import DEMON  # noqa: E402
from engine.placement import BoardGeometry, Foot  # noqa: E402
from engine.topology import build_board  # noqa: E402
from vision.evaluate import scene_facets  # noqa: E402

AGREE = "the same corner"
BOTH_NONE = "in no corner, both"
OTHER = "another corner in pixels"
NONE_IN_PIXELS = "a corner on the table, none in pixels"
CORNER_IN_PIXELS = "no corner on the table, one in pixels"
OUTCOMES = (AGREE, BOTH_NONE, OTHER, NONE_IN_PIXELS, CORNER_IN_PIXELS)


def demon_outcomes(truth: Mapping[str, Any]) -> list[tuple[int, str]]:
    """For each demon on the board of ``truth`` (a board report with each creature's
    ``pawn_px``), its id and where the locator puts it in pixels against the truth:
    one of :data:`OUTCOMES`. A truth's crossing is the crossing of the board built from
    its lines nearest its point (the two are computed apart and differ by a few pixels).

    Raises
    ------
    ValueError
        When a demon on the board has no positive ``pawn_px``, or names a crossing the
        truth does not have.
    """
    lines = {colour: line["polyline"] for colour, line in truth["lines"].items()}
    knots = {colour: line.get("knot") for colour, line in truth["lines"].items()}
    board = build_board(lines, knots)
    geometry = BoardGeometry(board)
    built = {
        c["id"]: min(board.crossings, key=lambda b: math.dist(b.xy, c["xy"])).id
        for c in truth["crossings"]
    }
    outcomes = []
    for creature in truth["creatures"]:
        if creature["kind"] != DEMON or creature.get("off_board"):
            continue
        width = creature.get("pawn_px")
        if not isinstance(width, (int, float)) or not width > 0:
            raise ValueError(f"creature {creature['id']} has no pawn_px to locate it with")
        foot = Foot(DEMON, creature["colour"], (creature["xy"][0], creature["xy"][1]))
        located = geometry.locate([foot], pawn_radius=width / 2)[0]
        on_table = creature["crossing"]
        if on_table is not None and on_table not in built:
            raise ValueError(f"creature {creature['id']} stands at crossing {on_table}, "
                             "which the truth does not have")
        outcomes.append((creature["id"], _outcome(
            None if on_table is None else built[on_table], located.crossing)))
    return outcomes


def _outcome(on_table: int | None, in_pixels: int | None) -> str:
    if on_table is None:
        return BOTH_NONE if in_pixels is None else CORNER_IN_PIXELS
    if in_pixels is None:
        return NONE_IN_PIXELS
    return AGREE if on_table == in_pixels else OTHER


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, action="append", required=True,
                        help="folder of truths (*.truth.json); may be given again")
    args = parser.parse_args(argv)
    truths = sorted(p for folder in args.set for p in folder.glob("*.truth.json"))
    if not truths:
        parser.error("no *.truth.json in " + ", ".join(map(str, args.set)))
    totals: Counter[str] = Counter()
    by_tilt: dict[str, Counter[str]] = {}
    boards_off: list[str] = []
    for path in truths:
        truth = json.loads(path.read_text())
        outcomes = demon_outcomes(truth)
        counts = Counter(outcome for _, outcome in outcomes)
        totals.update(counts)
        by_tilt.setdefault(scene_facets(truth)["tilt"], Counter()).update(counts)
        off = [f"{i} ({outcome})" for i, outcome in outcomes if outcome not in (AGREE, BOTH_NONE)]
        if off:
            boards_off.append(f"  {path.name[: -len('.truth.json')]}: demon " + ", ".join(off))
    demons = sum(totals.values())
    print(f"{len(truths)} boards, {demons} demons on them, each located in pixels at its "
          "true foot with its own true width")
    for outcome in OUTCOMES:
        share = 100 * totals[outcome] / max(demons, 1)
        print(f"  {outcome:<40} {totals[outcome]:>7}  {share:6.2f} %")
    print("by tilt (demons elsewhere in pixels / demons):")
    for band in sorted(by_tilt):
        counts = by_tilt[band]
        elsewhere = sum(counts[o] for o in (OTHER, NONE_IN_PIXELS, CORNER_IN_PIXELS))
        print(f"  {band:<8} {elsewhere:>5} / {sum(counts.values()):<7}")
    print(f"boards with a demon elsewhere in pixels: {len(boards_off)} of {len(truths)}")
    print("\n".join(boards_off))
    return 0


if __name__ == "__main__":
    sys.exit(main())
