"""How well the knot stage chooses each loop's knot, replayed from a log in seconds.

Run::

    python benchmarks/knot_choice.py --log out/knots --set out/hard       # read and log
    python benchmarks/knot_choice.py --replay out/knots                   # replay
    python benchmarks/knot_choice.py --replay out/knots --constant KNOT_SWITCH_BY=0.1

``--log`` reads every photo of ``--set`` that has its truth (``NAME.truth.json``) with
:func:`vision.reader.read_photo`, and keeps, per photo, what the knot stage
(:func:`vision.combine.combine_knots`) was given: the traced loops, the knot marks, the
pawns, the detector's cord maps round every knot mark (elsewhere zero, so they compress
to little), the string width, and the eight turned views' mean
(:func:`vision.detect.look_again`) and the knot checker's odds (:mod:`vision.knot_check`)
of every knot mark from 0.1 within reach of a loop and of every tracer's knot, whether
the reading asked for it or not. That costs a few looks more a photo than a reading; the
log is one pickle a photo (about 100 kB).

``--replay`` runs :func:`vision.combine.combine_knots` of this checkout again on every
logged photo, its look again answered from the log (and the knot checker, where the log
has its odds: those of every candidate and of every place the reading asked about, a
place not logged by the logged place nearest it, :data:`ODDS_NEAR`;
``--constant CHECKED_KNOT=2`` replays without it; and the checker asked eight ways
before a knot moves, where the log has those odds: a place the reading did not ask so
gets no answer, and the knot does not move there), and prints the knots found (within
the truth's knot tolerance, as ``accuracy.py`` counts them), the loops it gets wrong by
name, and how many looks it asked for.
With ``--constant NAME=VALUE`` (repeatable) a constant of :mod:`vision.combine` is set
first: a threshold is tried on hundreds of photos in seconds. A change to the rules
themselves is replayed from a worktree with its code first on ``PYTHONPATH``. The log
belongs to the reader that made it: stages before the knot stage that change make it
stale.

The sixty-seventh session's 600 hard photos (seeds 800000-800599) replayed so:
2376 of 2400 knots found with the rules before it, 2379 after (``docs/reader-history.md``).
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from shapely.geometry import LinearRing  # noqa: E402
from shapely.geometry import Point as ShapelyPoint  # noqa: E402
from tqdm import tqdm  # noqa: E402

import vision.combine as combine  # noqa: E402
import vision.reader as reader  # noqa: E402
from benchmarks.accuracy import find_pairs  # noqa: E402
from vision.detect import KNOT, Detection, Detections  # noqa: E402
from vision.evaluate import tolerances_for  # noqa: E402

#: Knot marks from this score within reach of a loop have their views' mean and the knot
#: checker's odds logged.
LOGGED_FROM = 0.1
#: A replayed place takes the knot checker's odds of the logged place nearest it, if
#: within this many pawn widths (else 0).
ODDS_NEAR = 0.25


def log_photo(photo: Path, truth: Path, out: Path) -> bool:
    """Read ``photo`` and write the knot stage's inputs to ``out``, with the path of its
    ``truth`` (False: no knot stage ran, the photo refused or read without the
    detector)."""
    logged: dict[str, Any] = {}
    real = combine.combine_knots

    def logging_combine_knots(
        loops: Any, detections: Detections, string_width: float, pawns: Any = None,
        look_again: Any = None, knot_odds: Any = None, turned_knot_odds: Any = None,
    ) -> Any:
        asked = _asked(loops, detections, string_width)
        odds: dict[tuple[float, float], float] = {}
        turned: dict[tuple[float, float], float] = {}

        def recording_knot_odds(places: list[tuple[float, float]]) -> list[float]:
            # Every place the reading asks about is kept too (a knot on its loop lies a
            # few pixels from the mark it was chosen on): replayed as asked.
            answers = [float(a) for a in knot_odds(places)]
            odds.update(zip(places, answers, strict=True))
            return answers

        def recording_turned_knot_odds(places: list[tuple[float, float]]) -> list[float]:
            # Asked only before a knot moves: the places the reading asked, no others.
            answers = [float(a) for a in turned_knot_odds(places)]
            turned.update(zip(places, answers, strict=True))
            return answers

        if knot_odds is not None and asked:
            recording_knot_odds([m.xy for m in asked])
        logged.update(
            loops=loops, knots=[d for d in detections.found if d.kind == KNOT],
            pawn_width=detections.pawn_width, string_width=string_width, pawns=pawns,
            cords=_cords_round_marks(detections, string_width),
            means={} if look_again is None else {
                (m.kind, m.colour, m.xy): look_again(m).score for m in asked},
            odds=odds, turned_odds=turned,
        )
        return real(loops, detections, string_width, pawns, look_again,
                    None if knot_odds is None else recording_knot_odds,
                    None if turned_knot_odds is None else recording_turned_knot_odds)

    # The reader calls the knot stage by the name it imported: wrapped there, for this
    # reading only.
    reader.combine_knots = logging_combine_knots  # type: ignore[assignment]
    try:
        reading = reader.read_photo(photo)
    except reader.ReadError:
        return False
    finally:
        reader.combine_knots = real
    if not logged:
        return False
    # The photo without its pixels: what puts the knots back in the photo's pixels.
    logged.update(truth=str(truth), photo=replace(reading.photo, rgb=np.zeros((0, 0, 3))))
    out.write_bytes(pickle.dumps(logged))
    return True


def _asked(loops: Any, detections: Detections, string_width: float) -> list[Detection]:
    """Every knot mark within reach of a loop and every tracer's knot: the places whose
    eight views' mean and knot checker's odds are logged."""
    reach = combine.knot_reach(string_width, detections.pawn_width)
    rings = [LinearRing(np.asarray(loop.points)) for loop in loops.loops.values()]
    asked = [m for m in detections.knots(min_score=LOGGED_FROM)
             if min((r.distance(ShapelyPoint(m.xy)) for r in rings), default=math.inf) <= reach]
    asked += [Detection(KNOT, "", loop.knot, 0.0) for loop in loops.loops.values()
              if loop.knot is not None]
    return asked


def _cords_round_marks(detections: Detections, string_width: float) -> dict[str, Any]:
    """Each cord map, zero but round the knot marks (what the knot stage looks at)."""
    r = max(2, round(combine.KNOT_COLOUR_WIDTHS * string_width)) + 3
    kept = {}
    for colour, cord in detections.cords.items():
        sparse = np.zeros_like(cord)
        for mark in detections.knots(min_score=0.0):
            x, y = round(mark.xy[0]), round(mark.xy[1])
            rows = slice(max(0, y - r), max(0, y + r + 1))
            columns = slice(max(0, x - r), max(0, x + r + 1))
            sparse[rows, columns] = cord[rows, columns]
        kept[colour] = (sparse.shape, zlib.compress(sparse.tobytes(), 1))
    return kept


def _logged(
    odds: dict[tuple[float, float], float],
    places: list[tuple[float, float]],
    near: float,
    missing: float,
) -> list[float]:
    """The ``odds`` logged at the place nearest each of ``places`` within ``near``
    pixels, ``missing`` where none was."""
    answers = []
    for xy in places:
        nearest = min(odds, key=lambda logged: math.dist(logged, xy), default=None)
        found = nearest is not None and math.dist(nearest, xy) <= near
        answers.append(odds[nearest] if found else missing)
    return answers


def replay(log: dict[str, Any]) -> tuple[int, int, list[str], int]:
    """Knots right and in the truth, the colours wrong, and the looks asked, of the knot
    stage of this checkout run again on one photo's ``log``. A knot is right within
    the truth's knot tolerance, as ``accuracy.py`` counts knots found."""
    cords = {colour: np.frombuffer(zlib.decompress(data), np.uint8).reshape(shape)
             for colour, (shape, data) in log["cords"].items()}
    detections = Detections(found=list(log["knots"]), pawn_width=log["pawn_width"],
                            cords=cords)
    means, asked = log["means"], set()

    def look_again(mark: Detection) -> Detection:
        key = (mark.kind, mark.colour, mark.xy)
        asked.add(key)
        return Detection(mark.kind, mark.colour, mark.xy, means.get(key, 0.0), views=8)

    odds = log.get("odds", {})
    turned = log.get("turned_odds", {})
    near = ODDS_NEAR * log["pawn_width"]

    def knot_odds(places: list[tuple[float, float]]) -> list[float]:
        # The checker's odds at the logged place nearest each place: the knot chosen
        # lies on its loop, a few pixels from the mark it was chosen on.
        return _logged(odds, places, near, 0.0)

    def turned_knot_odds(places: list[tuple[float, float]]) -> list[float]:
        # A place the reading never asked eight ways: no answer (refuses a move there).
        return _logged(turned, places, near, math.nan)

    # Logs written before the eighty-third session hold no odds asked eight ways.
    loops = combine.combine_knots(log["loops"], detections, log["string_width"],
                                  log["pawns"], look_again, knot_odds if odds else None,
                                  turned_knot_odds if "turned_odds" in log else None)
    truth = json.loads(Path(log["truth"]).read_text())
    tolerance = tolerances_for(truth).knot_px
    right = total = 0
    wrong = []
    for colour, loop in loops.loops.items():
        true_knot = truth["lines"][colour]["knot"]
        if true_knot is None:
            continue
        total += 1
        read = None if loop.knot is None else log["photo"].to_original([loop.knot])[0]
        if read is not None and math.dist(read, true_knot) <= tolerance:
            right += 1
        else:
            wrong.append(colour)
    return right, total, wrong, len(asked)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The knot stage's choices, logged and replayed.")
    parser.add_argument("--log", type=Path, help="folder to write one log a photo into")
    parser.add_argument("--set", type=Path, help="with --log: folder of photo + truth pairs")
    parser.add_argument("--replay", type=Path, nargs="+", help="log folders to replay")
    parser.add_argument("--constant", action="append", default=[], metavar="NAME=VALUE",
                        help="with --replay: set a constant of vision.combine first")
    args = parser.parse_args(argv)
    if args.log is not None:
        if args.set is None:
            parser.error("--log needs --set")
        args.log.mkdir(parents=True, exist_ok=True)
        pairs = find_pairs(args.set)
        logged = sum(log_photo(photo, truth, args.log / (photo.stem + ".pkl"))
                     for photo, truth in tqdm(pairs, "logging"))
        print(f"{args.set}: {logged} of {len(pairs)} photos logged into {args.log}")
    if args.replay:
        for setting in args.constant:
            name, _, value = setting.partition("=")
            if not hasattr(combine, name):
                parser.error(f"vision.combine has no constant {name}")
            setattr(combine, name, type(getattr(combine, name))(value))
        right = total = looks = 0
        wrong = []
        for folder in args.replay:
            for path in sorted(folder.glob("*.pkl")):
                r, t, w, n = replay(pickle.loads(path.read_bytes()))
                right, total, looks = right + r, total + t, looks + n
                wrong += [f"{path.stem} {colour}" for colour in w]
        print(f"knots right {right} / {total} ({100 * right / max(total, 1):.2f} %), "
              f"looks asked {looks}")
        for item in wrong:
            print(f"  wrong: {item}")
    if args.log is None and not args.replay:
        parser.error("give --log DIR --set DIR, or --replay DIR ...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
