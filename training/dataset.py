"""Labelled photos for the pixel classifier, as the reader sees them.

Each example is a generated photo (:func:`synth.photo.make_photo`) decoded by the
reader's own loader at its working resolution, with what every working pixel shows
(:data:`synth.labels.PIXEL_CLASSES`) and where every pawn stands. Written as
``NAME.jpg`` (the working image, quality 95), ``NAME.labels.png`` and
``NAME.feet.json``::

    python -m training.dataset --out out/train --count 1500 --seed 1000000 --workers 2

``--tables green_felt,blue_mat`` makes only hard photos on those tables: where a cord
or pawn has the table's own hue, the examples the detector most lacks. ``--knot-cover
0.6`` puts a demon down on each knot with that chance: a knot half or wholly hidden by
a pawn, rare in the generated photos (examples already in ``--out`` are kept as they
are, so give such a run a folder of its own).
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from engine.colours import LINE_COLOURS
from synth.labels import BACKGROUND, PIXEL_CLASSES, cord_class, pawn_class
from synth.photo import make_photo, plan_photo
from synth.scene import TABLE_KINDS
from vision.load import load_photo

#: Photo sizes drawn for the examples, with their chances: phones' 12 MP in either
#: orientation (read at half size) and photos already at the working size.
SIZES: tuple[tuple[tuple[int, int], float], ...] = (
    ((4032, 3024), 0.5),
    ((3024, 4032), 0.15),
    ((2016, 1512), 0.2),
    ((1512, 2016), 0.05),
    ((2400, 1800), 0.1),
)
#: Difficulties drawn for the examples: the hard photos are where the reader fails.
DIFFICULTY_SHARES = (("easy", 0.25), ("normal", 0.35), ("hard", 0.4))
#: When labels are reduced, a class covering this share of a working pixel wins over
#: the background, so that a cord 1.5 working pixels wide stays unbroken.
MIN_OBJECT_SHARE = 0.25
#: Seeds planned at a time when looking for photos on given tables.
PLAN_BATCH = 16
#: A pawn is crowded when another pawn's foot is within this many pawn widths of its
#: own, or a cord's pixel in the square reaching this many widths round its foot's pixel.
BESIDE_PAWNS = 1.5
TOUCHING_PAWNS = 0.75


@dataclass(frozen=True)
class Foot:
    """Where one pawn stands, in working pixels, and its class and width."""

    x: float
    y: float
    label: int
    width: float


def reduce_labels(labels: NDArray[np.uint8], scale: int) -> NDArray[np.uint8]:
    """Labels of a photo decoded at ``1/scale`` of its size.

    Parameters
    ----------
    labels : (H, W) uint8
        One class per original pixel.
    scale : int
        Original pixels per working pixel along each axis (1, 2, 4 or 8).

    Returns
    -------
    (H // scale, W // scale) uint8
        Per working pixel, the object class covering most of it, if it covers at
        least :data:`MIN_OBJECT_SHARE` of it; else background.
    """
    if labels.ndim != 2 or scale < 1:
        raise ValueError("labels must be 2-D and scale at least 1")
    if scale == 1:
        return labels.copy()
    h, w = labels.shape[0] // scale, labels.shape[1] // scale
    blocks = labels[: h * scale, : w * scale].reshape(h, scale, w, scale)
    counts = np.stack(
        [(blocks == c).sum(axis=(1, 3)) for c in range(len(PIXEL_CLASSES))], axis=-1
    )
    counts[..., BACKGROUND] = 0
    best = counts.argmax(axis=-1).astype(np.uint8)
    covered = counts.max(axis=-1) >= MIN_OBJECT_SHARE * scale * scale
    return np.where(covered, best, BACKGROUND).astype(np.uint8)


def feet_of(truth: dict[str, Any], scale: float) -> list[Foot]:
    """Every pawn's foot in working pixels (truth coordinates are original pixels)."""
    feet = []
    for creature in truth["creatures"]:
        x, y = creature["xy"]
        feet.append(
            Foot(
                x=(x + 0.5) / scale - 0.5,
                y=(y + 0.5) / scale - 0.5,
                label=pawn_class(creature["colour"]),
                width=float(creature.get("pawn_px", 0.0)) / scale,
            )
        )
    return feet


def crowded(
    labels: NDArray[np.uint8], feet: list[tuple[float, float, float]]
) -> NDArray[np.bool_]:
    """Which pawns are hard to see apart from their neighbours.

    Parameters
    ----------
    labels : (H, W) uint8
        What every working pixel shows (:data:`synth.labels.PIXEL_CLASSES`).
    feet : list of (x, y, width)
        Every pawn's foot and width, in the same pixels.

    Returns
    -------
    (len(feet),) bool
        Whether each pawn has another pawn's foot within :data:`BESIDE_PAWNS` widths
        of its own, or a cord's pixel in the square round its foot's pixel that reaches
        :data:`TOUCHING_PAWNS` widths (rounded up) along each axis. (A square, not a
        disc: the shipped detector was trained with it; its corners reach 1.4 times as
        far.)
    """
    if labels.ndim != 2:
        raise ValueError("labels must be 2-D")
    cord = np.isin(labels, [cord_class(c) for c in LINE_COLOURS])
    points = np.array([(x, y) for x, y, _ in feet], np.float64).reshape(-1, 2)
    result = np.zeros(len(feet), bool)
    for i, (x, y, width) in enumerate(feet):
        apart = np.hypot(*(points - (x, y)).T)
        apart[i] = np.inf
        r = max(int(np.ceil(TOUCHING_PAWNS * width)), 1)
        x0, y0 = max(int(x) - r, 0), max(int(y) - r, 0)
        touching = cord[y0 : max(int(y) + r + 1, 0), x0 : max(int(x) + r + 1, 0)].any()
        result[i] = bool((apart < BESIDE_PAWNS * width).any() or touching)
    return result


def example_kind(seed: int, hard_only: bool = False) -> tuple[str, tuple[int, int]]:
    """The difficulty and photo size of the example of ``seed``."""
    rng = np.random.default_rng(seed)
    size = SIZES[int(rng.choice(len(SIZES), p=[share for _, share in SIZES]))][0]
    difficulty = DIFFICULTY_SHARES[
        int(rng.choice(len(DIFFICULTY_SHARES), p=[share for _, share in DIFFICULTY_SHARES]))
    ][0]
    return ("hard" if hard_only else difficulty), size


def looks_of(seed: int, hard_only: bool = False) -> tuple[str, bool]:
    """The kind of table of the example of ``seed``, and whether its pawns are
    lacquered and mirror a window (cheap: planned, not rendered)."""
    difficulty, size = example_kind(seed, hard_only)
    scene = plan_photo(seed, difficulty, size).scene
    return scene.table.kind, scene.materials.pawn_window > 0


def make_example(seed: int, out: Path, hard_only: bool = False, knot_cover: float = 0.0) -> str:
    """Render, decode and write the example of ``seed`` (with a demon put down on each
    knot with chance ``knot_cover``); returns its name."""
    difficulty, size = example_kind(seed, hard_only)
    made = make_photo(seed, difficulty, size, knot_cover)
    photo = load_photo(made.jpeg)
    scale = int(photo.scale)
    labels = reduce_labels(made.labels, scale)
    h, w = photo.rgb.shape[:2]
    labels = labels[:h, :w]
    name = f"{difficulty}_{seed}"
    cv2.imwrite(
        str(out / f"{name}.jpg"),
        cv2.cvtColor(photo.rgb, cv2.COLOR_RGB2BGR),
        [cv2.IMWRITE_JPEG_QUALITY, 95],
    )
    cv2.imwrite(str(out / f"{name}.labels.png"), labels)
    feet = [foot.__dict__ for foot in feet_of(made.truth, scale)]
    (out / f"{name}.feet.json").write_text(json.dumps({"feet": feet, "scale": scale}))
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--tables", default="", help="comma-separated table kinds: only hard photos on these"
    )
    parser.add_argument(
        "--window-pawns", action="store_true",
        help="only hard photos whose lacquered pawns mirror a window",
    )
    parser.add_argument(
        "--knot-cover",
        type=float,
        default=0.0,
        help="chance that a demon is put down on each knot (0..1)",
    )
    args = parser.parse_args(argv)
    if not 0.0 <= args.knot_cover <= 1.0:
        parser.error(f"--knot-cover must be within 0..1, not {args.knot_cover}")
    tables = {t for t in args.tables.split(",") if t}
    hard_only = bool(tables) or args.window_pawns
    with ProcessPoolExecutor(args.workers) as pool:
        try:
            seeds = chosen_seeds(pool, args.seed, args.count, tables, args.window_pawns)
        except ValueError as error:
            parser.error(str(error))
        args.out.mkdir(parents=True, exist_ok=True)
        seeds = [s for s in seeds if not any(args.out.glob(f"*_{s}.feet.json"))]
        jobs = [
            pool.submit(make_example, s, args.out, hard_only, args.knot_cover) for s in seeds
        ]
        for job in tqdm(jobs, desc="examples", file=sys.stderr):
            job.result()
    return 0


def chosen_seeds(
    pool: ProcessPoolExecutor, first: int, count: int, tables: set[str],
    window_pawns: bool = False,
) -> list[int]:
    """``count`` seeds from ``first`` on: every one, or those of hard photos on
    ``tables`` (any table where none are given) whose pawns, with ``window_pawns``,
    mirror a window (planned in batches in the pool until enough are found)."""
    if not tables and not window_pawns:
        return list(range(first, first + count))
    unknown = sorted(tables - set(TABLE_KINDS))
    if unknown:
        raise ValueError(f"unknown tables {unknown}; known: {TABLE_KINDS}")
    seeds: list[int] = []
    candidate = first
    with tqdm(total=count, desc="choosing seeds", file=sys.stderr) as progress:
        while len(seeds) < count:
            batch = list(range(candidate, candidate + PLAN_BATCH))
            candidate += len(batch)
            looks = pool.map(looks_of, batch, [True] * len(batch))
            for seed, (table, window) in zip(batch, looks, strict=True):
                wanted = (not tables or table in tables) and (window or not window_pawns)
                if wanted and len(seeds) < count:
                    seeds.append(seed)
                    progress.update(1)
    return seeds


if __name__ == "__main__":
    raise SystemExit(main())
