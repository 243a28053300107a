"""Train the ghost checker (:mod:`vision.ghost_check`) on generated photos with their truth.

Each example is a place cut out by the reader's own :func:`vision.pawn_size.place_crop`
(five pawn widths on a side, 80 px), as though the pawns were as wide as the width
the reader looked for (the truth's, off by up to :data:`WIDTH_OFF` either way). Its
target is whether a ghost stands there: within :data:`GHOST_REACH` pawn widths of the
middle, a ghost; farther than :data:`CLEAR_OF_GHOST` from every ghost, none; the
places between are not learnt from. The places are where the reader asks: the centre
of every bounded field of the truth's board (with a ghost or without); and, to learn
from more, the ghosts themselves (moved as far as GHOST_REACH), places a little beside
a ghost, the demons' feet, and places anywhere round the pawns (the table, cords,
crossings, knots, shadows). Photos are the benchmark's generated sets
(``benchmarks/accuracy.py``'s ``make_set``), made with seeds of their own::

    python -m training.train_ghost_check --sets out/ghost/a out/ghost/b \
        --held-out out/ghost/c --out calibration

Writes ``ghostnet.onnx`` and ``ghostnet.json`` (with its figures on the held-out set).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from tqdm import tqdm

from engine.placement import BoardGeometry
from engine.topology import build_board
from training.train import export_onnx
from training.train_sizer import PawnSizer, outputs_of, train_on_crops, varied
from vision.ghost_check import CLEAR_OF_GHOST, GHOST_REACH
from vision.load import load_photo, photos_in
from vision.pawn_size import CROP_PAWNS, CROP_PX, place_crop

#: The width a place is cut out for is the truth's times up to this factor either way
#: (the reader's width for a photo is one for all its pawns, the detector's, looked at
#: again only where the sizer measures it more than 1.4 times too wide or, since the
#: eighty-seventh session, 1.15 times too narrow: the checker may be given pawns a
#: little further off than it learnt).
WIDTH_OFF = 1.25
#: Besides the fields' centres, a place is cut round each ghost (moved up to
#: GHOST_REACH) and from CLEAR_OF_GHOST to BESIDE_GHOST widths beside it, round this
#: share of the demons' feet, and this many anywhere in the box round the pawns (one
#: pawn width wider) per pawn.
DEMON_SHARE = 0.5
BESIDE_GHOST = 1.8
ANYWHERE_PER_PAWN = 0.5


def field_centres(truth: dict[str, Any]) -> list[tuple[float, float]]:
    """The centre of every bounded field of the truth's board (original pixels)."""
    lines = {colour: line["polyline"] for colour, line in truth["lines"].items()}
    knots = {colour: line.get("knot") for colour, line in truth["lines"].items()}
    board = build_board(lines, knots)
    geometry = BoardGeometry(board)
    return [geometry.field_centre(f.id) for f in board.fields if not f.outer]


def places_of(
    xy: NDArray[np.float64],
    widths: NDArray[np.float64],
    ghosts: NDArray[np.bool_],
    rng: np.random.Generator,
) -> list[tuple[float, float]]:
    """The places to cut out round one photo's pawns, besides the fields' centres (see
    the module's docstring)."""
    places: list[tuple[float, float]] = []
    for (x, y), width, ghost in zip(xy, widths, ghosts, strict=True):
        if ghost:
            for low, high in ((0.0, GHOST_REACH), (CLEAR_OF_GHOST, BESIDE_GHOST)):
                angle, reach = rng.uniform(0, 2 * math.pi), math.sqrt(rng.uniform(low**2, high**2))
                reach *= width
                places.append((x + reach * math.cos(angle), y + reach * math.sin(angle)))
        elif rng.random() < DEMON_SHARE:
            moved = rng.normal(0, 0.15, size=2) * width
            places.append((x + moved[0], y + moved[1]))
    if len(xy):
        low, high = xy.min(axis=0) - widths.max(), xy.max(axis=0) + widths.max()
        for _ in range(int(round(ANYWHERE_PER_PAWN * len(xy)))):
            anywhere = rng.uniform(low, high)
            places.append((float(anywhere[0]), float(anywhere[1])))
    return places


def target_of(
    place: tuple[float, float],
    xy: NDArray[np.float64],
    widths: NDArray[np.float64],
    ghosts: NDArray[np.bool_],
) -> float | None:
    """1 where a ghost stands within GHOST_REACH of its width, 0 where none stands
    within CLEAR_OF_GHOST, None between."""
    if not ghosts.any():
        return 0.0
    reach = np.hypot(*(xy[ghosts] - place).T) / widths[ghosts]
    nearest = float(reach.min())
    return 1.0 if nearest <= GHOST_REACH else 0.0 if nearest > CLEAR_OF_GHOST else None


Examples = tuple[NDArray[np.uint8], NDArray[np.float32], NDArray[np.bool_]]


def crops_of_nothing() -> Examples:
    """No crops, no targets."""
    return np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8), np.zeros(0, np.float32), np.zeros(0, bool)


def crops_of(path: Path, rng: np.random.Generator) -> Examples:
    """Crops round the places of one photo with truth, their targets, and which are
    a field's centre."""
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    photo = load_photo(path)
    pawns = [c for c in truth["creatures"] if c.get("pawn_px")]
    scale = photo.scale
    # Working pixels, as the reader's.
    xy = (np.array([c["xy"] for c in pawns], np.float64).reshape(-1, 2) + 0.5) / scale - 0.5
    widths = np.array([c["pawn_px"] for c in pawns], np.float64) / scale
    ghosts = np.array([c["kind"] == "ghost" for c in pawns], bool)
    centres = [((x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5) for x, y in field_centres(truth)]
    if not len(widths):  # no pawn: no width to cut places for, and no ghost
        return crops_of_nothing()
    width = float(np.median(widths))
    crops, targets, at_centre = [], [], []
    for i, place in enumerate(centres + places_of(xy, widths, ghosts, rng)):
        target = target_of(place, xy, widths, ghosts)
        if target is None:
            continue
        looked_for = width * math.exp(rng.uniform(-math.log(WIDTH_OFF), math.log(WIDTH_OFF)))
        crops.append(place_crop(photo.rgb, place, looked_for))
        targets.append(target)
        at_centre.append(i < len(centres))
    if not crops:
        return crops_of_nothing()
    return np.stack(crops), np.array(targets, np.float32), np.array(at_centre, bool)


def crops_of_sets(
    folders: list[Path], seed: int, crops_of: Callable[[Path, np.random.Generator], Examples]
) -> Examples:
    """A checker's examples (crops, targets and a flag of its own) from every photo with
    truth in ``folders``, each cut by ``crops_of``."""
    rng = np.random.default_rng(seed)
    paths = [p for folder in folders for p in photos_in(folder)]
    if not paths:
        raise SystemExit(f"no photos with truth in {', '.join(map(str, folders))}")
    each = [crops_of(path, rng) for path in tqdm(paths, desc="crops", unit="photo")]
    crops, targets, flags = zip(*each, strict=True)
    return np.concatenate(crops), np.concatenate(targets), np.concatenate(flags)


def examples(folders: list[Path], seed: int) -> Examples:
    """Crops, targets and which are a field's centre, of every photo with truth in
    ``folders``."""
    return crops_of_sets(folders, seed, crops_of)


def odds(net: nn.Module, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The network's odds of yes for each crop."""
    logits = outputs_of(net, crops).astype(np.float64)
    return np.asarray(1.0 / (1.0 + np.exp(-logits)), np.float64)


def odds_figures(
    p: NDArray[np.float64], targets: NDArray[np.float32], among: NDArray[np.bool_], what: str
) -> dict[str, float]:
    """How many of ``among`` are ``what`` (target 1) and others, the share of ``what``
    whose odds reach each of a few thresholds (recall), and of the others (false)."""
    yes, other = among & (targets > 0.5), among & (targets < 0.5)
    some: dict[str, float] = {what: int(yes.sum()), "others": int(other.sum())}
    for threshold in (0.5, 0.8, 0.9, 0.95):
        some[f"recall_{threshold}"] = round(float(np.mean(p[yes] >= threshold)), 4)
        some[f"false_{threshold}"] = round(float(np.mean(p[other] >= threshold)), 5)
    return some


def held_out_figures(
    net: nn.Module, held: Examples, what: str, flagged: str
) -> dict[str, dict[str, float]]:
    """A checker's :func:`odds_figures` for ``what`` on the ``held`` examples: over every
    place (``places``), and over those their flags mark (named ``flagged``)."""
    crops, targets, flags = held
    p = odds(net, crops)
    return {
        "places": odds_figures(p, targets, np.ones(len(p), bool), what),
        flagged: odds_figures(p, targets, flags, what),
    }


def evaluate(net: nn.Module, held: Examples) -> dict[str, dict[str, float]]:
    """Recall of the ghosts and the share of other places taken for one, at a few
    thresholds: over every place, and over the fields' centres alone (where the reader
    asks)."""
    return held_out_figures(net, held, "ghosts", "centres")


def train_checker(
    argv: list[str] | None,
    description: str,
    examples_of: Callable[[list[Path], int], Examples],
    evaluate_on: Callable[[nn.Module, Examples], dict[str, Any]],
    name: str,
    meta: dict[str, Any],
    seed: int,
    vary: Callable[[NDArray[np.uint8], np.random.Generator], NDArray[np.uint8]] = varied,
) -> int:
    """A checker's command: train the sizer's network on ``examples_of`` the sets given
    to say yes or no, print ``evaluate_on`` the held-out set after each epoch, and
    write ``name``.onnx and ``name``.json (``meta`` and the last figures). Each batch is
    varied by ``vary`` (:func:`training.train_sizer.varied` unless given)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--sets", type=Path, nargs="+", required=True)
    parser.add_argument("--held-out", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("calibration"))
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=seed)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    crops, targets, _ = examples_of(args.sets, args.seed)
    held = examples_of([args.held_out], args.seed + 1)
    print(
        f"{len(crops)} crops ({int(targets.sum())} yes) to learn from, {len(held[0])} held out",
        file=sys.stderr,
    )
    net = PawnSizer()
    figures = train_on_crops(
        net,
        crops,
        targets,
        nn.BCEWithLogitsLoss(),
        lambda: evaluate_on(net, held),
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        rng=rng,
        vary=vary,
    )
    export_onnx(
        net, args.out / f"{name}.onnx", channels=6, crop=CROP_PX, output="logit", any_size=False
    )
    written = {
        "crop_px": CROP_PX,
        "crop_pawns": CROP_PAWNS,
        **meta,
        "sets": [str(folder) for folder in args.sets],
        "held_out_set": str(args.held_out),
        "held_out": figures,
    }
    (args.out / f"{name}.json").write_text(json.dumps(written, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    return train_checker(
        argv,
        __doc__.split("\n")[0],
        examples,
        evaluate,
        "ghostnet",
        {"ghost_reach": GHOST_REACH, "clear_of_ghost": CLEAR_OF_GHOST},
        seed=31,
    )


if __name__ == "__main__":
    raise SystemExit(main())
