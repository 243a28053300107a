"""How the reader holds up when photos are worse than the generator makes them.

Run::

    python benchmarks/robustness.py --set out/bench --limit 60 --workers 2
    python benchmarks/robustness.py --set ../shared/dev-photos --only motion-8 half-size

Every photo of the set is made worse in each of a few ways a phone photo can be that
the generator does not imitate (or imitates only mildly): shaken (motion blur along a
random direction), out of focus, saved at a low JPEG quality, or sent at a quarter of
its pixels, as messaging apps do. Each worse copy is read and compared with the truth
(moved with the pixels where the photo was made smaller) as ``accuracy.py`` does, and
one line per way is printed beside the photos as they were: board exact, crossings
and creatures found, slots, photos refused. Figures are printed, never asserted: a
fall from the first line shows where the reader is brittle. Any change of the pixels
moves a few boards either way (a cord or a pawn read on the edge of a threshold), so
read a few boards on 70 photos as noise: the thirty-sixth session's run on the
twenty-second set read 3 more boards shaken by 8 px than as taken.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))
# accuracy.py beside this file, looked for last: nothing of the project is shadowed.
sys.path.append(str(ROOT / "benchmarks"))

from accuracy import evaluate_set, find_pairs, percent, spread  # noqa: E402

from synth.shake import motion_blur  # noqa: E402
from vision.evaluate import summarise  # noqa: E402

Image = NDArray[np.uint8]
#: Blur lengths and widths are given in the pixels of a 12-megapixel photo (4032 wide)
#: and scaled with the photo, so that a smaller photo is shaken as much.
FULL_WIDTH = 4032


@dataclass(frozen=True)
class Worse:
    """One way to make a photo worse.

    Attributes
    ----------
    name : str
    about : str
        What it imitates, for the printed table.
    change : callable
        (BGR image, random generator) -> BGR image.
    scale : float
        How much smaller the photo becomes (1: the same size); the truth is moved with it.
    quality : int
        The JPEG quality the worse copy is saved at.
    """

    name: str
    about: str
    change: Callable[[Image, np.random.Generator], Image]
    scale: float = 1.0
    quality: int = 92


def _shaken(length_full: float) -> Callable[[Image, np.random.Generator], Image]:
    def change(image: Image, rng: np.random.Generator) -> Image:
        length = length_full * image.shape[1] / FULL_WIDTH
        return motion_blur(image, length, float(rng.uniform(0.0, 180.0)))

    return change


def _defocused(sigma_full: float) -> Callable[[Image, np.random.Generator], Image]:
    def change(image: Image, rng: np.random.Generator) -> Image:
        sigma = sigma_full * image.shape[1] / FULL_WIDTH
        return np.asarray(cv2.GaussianBlur(image, (0, 0), sigma), np.uint8)

    return change


def _unchanged(image: Image, rng: np.random.Generator) -> Image:
    return image


def _halved(image: Image, rng: np.random.Generator) -> Image:
    height, width = image.shape[:2]
    half = cv2.resize(image, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
    return np.asarray(half, np.uint8)


WAYS = (
    Worse("motion-8", "shaken 8 px (of 4032) along a random direction", _shaken(8.0)),
    Worse("motion-16", "shaken 16 px", _shaken(16.0)),
    Worse("defocus-3", "out of focus, Gaussian sigma 3 px (the generator's: 0.4-2)",
          _defocused(3.0)),
    Worse("jpeg-35", "saved at JPEG quality 35", _unchanged, quality=35),
    Worse("half-size", "sent at half its width and height (a 12-megapixel photo as 3)", _halved,
          scale=0.5),
)


def scaled_truth(truth: dict[str, Any], scale: float) -> dict[str, Any]:
    """The truth of a photo made ``scale`` times as large: every point, polygon and
    pawn width moved with the pixels (fields, scores and the rest unchanged)."""

    def points(xys: Sequence[Sequence[float]]) -> list[list[float]]:
        return [[x * scale, y * scale] for x, y in xys]

    out: dict[str, Any] = json.loads(json.dumps(truth))
    image = out.get("image")
    if isinstance(image, dict):
        image["width"] = round(image["width"] * scale)
        image["height"] = round(image["height"] * scale)
    for line in out["lines"].values():
        line["polyline"] = points(line["polyline"])
        if line.get("knot") is not None:
            line["knot"] = points([line["knot"]])[0]
    for crossing in out["crossings"]:
        crossing["xy"] = points([crossing["xy"]])[0]
    for field in out["fields"]:
        if field.get("polygon") is not None:
            field["polygon"] = points(field["polygon"])
    for creature in out["creatures"]:
        creature["xy"] = points([creature["xy"]])[0]
        if creature.get("pawn_px") is not None:
            creature["pawn_px"] = creature["pawn_px"] * scale
    # A dev truth gives its sizes in pixels, from which the matching tolerances follow.
    scene = out.get("scene") or {}
    for key in ("string_width_px", "pawn_width_px"):
        if scene.get(key) is not None:
            scene[key] = scene[key] * scale
    if scene.get("resolution") is not None:
        scene["resolution"] = [round(v * scale) for v in scene["resolution"]]
    return out


def make_worse(
    pairs: Sequence[tuple[Path, Path]], way: Worse, folder: Path, seed: int
) -> list[tuple[Path, Path]]:
    """Worse copies of ``pairs`` (photo, truth) written to ``folder``, with their truths."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for index, (photo, truth_path) in enumerate(pairs):
        read = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if read is None:
            raise SystemExit(f"cannot read {photo}")
        image = np.asarray(read, np.uint8)
        rng = np.random.default_rng([seed, index])
        worse = way.change(image, rng)
        stem = truth_path.name[: -len(".truth.json")]
        target = folder / f"{stem}.jpg"
        cv2.imwrite(str(target), worse, [cv2.IMWRITE_JPEG_QUALITY, way.quality])
        truth = json.loads(truth_path.read_text())
        if way.scale != 1.0:
            truth = scaled_truth(truth, way.scale)
        truth_target = folder / f"{stem}.truth.json"
        truth_target.write_text(json.dumps(truth))
        out.append((target, truth_target))
    return out


def summary_line(name: str, figures: dict[str, Any]) -> str:
    counts = figures["counts"]
    return (
        f"  {name:<10} {counts['board_exact']:>4} / {figures['photos']:<4}"
        f" {percent(figures['board_exact']):>7}"
        f"   crossings R {percent(figures['crossings_recall']):>7}"
        f"   creatures R {percent(figures['creatures_recall']):>7}"
        f"   slots {percent(figures['slots']):>7}   refused {figures['refused']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reader accuracy on photos made worse.")
    parser.add_argument("--set", type=Path, required=True, help="folder of photo + truth pairs")
    parser.add_argument("--limit", type=int, help="only N pairs, evenly spread over the names")
    parser.add_argument("--workers", type=int, default=1, help="reader processes (default 1)")
    parser.add_argument("--only", nargs="+", choices=[w.name for w in WAYS],
                        help="only these ways (all by default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the blur directions")
    parser.add_argument("--keep", type=Path, help="keep the worse copies in this folder")
    parser.add_argument("--json", type=Path, help="also write each way's figures here")
    args = parser.parse_args(argv)
    pairs = spread(find_pairs(args.set), args.limit)
    if not pairs:
        print(f"no photo + truth pairs in {args.set}", file=sys.stderr)
        return 2
    ways = [w for w in WAYS if not args.only or w.name in args.only]
    work = args.keep or Path(tempfile.mkdtemp(prefix="worse-"))
    results: dict[str, Any] = {}
    try:
        lines = []
        for way in [None, *ways]:
            if way is None:
                name, about, worse_pairs = "as taken", "the photos as they are", pairs
            else:
                name, about = way.name, way.about
                worse_pairs = make_worse(pairs, way, work / way.name, args.seed)
            read = evaluate_set(worse_pairs, max(1, args.workers))
            figures = summarise(r[1] for r in read)
            wrong = [photo for photo, comparison, _, _ in read if not comparison.board_exact]
            results[name] = {"about": about, **figures, "not_exact": wrong}
            lines.append(summary_line(name, figures))
            print(lines[-1], flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{args.set}, {len(pairs)} photos, board exact and per stage:")
    for line, figures in zip(lines, results.values(), strict=True):
        print(f"{line}\n  {'':<10} ({figures['about']})")
        if figures["not_exact"]:
            print(f"  {'':<10} not exact: {' '.join(figures['not_exact'])}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
