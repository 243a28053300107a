"""Train the demon checker (:mod:`vision.demon_check`) on generated photos with their truth.

Each example is a place cut out by the reader's own :func:`vision.pawn_size.place_crop`
(five pawn widths on a side, 80 px), as though the pawns were as wide as the truth's
median (off by up to :data:`WIDTH_OFF` either way). Its target is whether a demon's
foot lies there: within :data:`DEMON_REACH` pawn widths of the middle, yes; farther
than :data:`CLEAR_OF_DEMON` from every demon, no; between, not learnt from. The places
are the demons (moved up to DEMON_REACH; those of the table's hue, which the detector
marks faintly, :data:`TABLE_HUE_TIMES` times), places beside them, the ghosts, the
cords, crossings and knots, and places anywhere round the pawns. Photos are the ghost
checker's generated sets (``make ghost-check``)::

    python -m training.train_demon_check --sets out/ghost/900000 out/ghost/901000 \
        --held-out out/ghost/904000 --out calibration
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import LinearRing
from torch import nn

from training.train_ghost_check import (
    crops_of_nothing,
    crops_of_sets,
    held_out_figures,
    train_checker,
)
from vision.demon_check import CLEAR_OF_DEMON, DEMON_REACH
from vision.load import load_photo
from vision.pawn_size import place_crop

#: The width a place is cut out for is the truth's median times up to this factor
#: either way (the reader's width is one for all the pawns of a photo).
WIDTH_OFF = 1.25
#: The line colour of each table of a cord's hue, whose demons the reader asks about.
TABLE_HUE = {"blue_mat": "blue", "green_felt": "green"}
#: A place is cut round each demon (moved up to DEMON_REACH) and from CLEAR_OF_DEMON to
#: BESIDE_DEMON widths beside it, TABLE_HUE_TIMES times for a demon of the table's hue;
#: ALONG_CORD places along each cord; and ANYWHERE_PER_PAWN per pawn anywhere in the box
#: round the pawns (one pawn width wider).
TABLE_HUE_TIMES = 3
BESIDE_DEMON = 1.8
ALONG_CORD = 4
ANYWHERE_PER_PAWN = 0.5

Examples = tuple[NDArray[np.uint8], NDArray[np.float32], NDArray[np.bool_]]


def to_working(xy: list[float], scale: float) -> tuple[float, float]:
    """A point of the original photo in the working pixels the reader cuts crops from."""
    return ((xy[0] + 0.5) / scale - 0.5, (xy[1] + 0.5) / scale - 0.5)


def places_of(
    truth: dict[str, Any], scale: float, width: float, rng: np.random.Generator
) -> tuple[list[tuple[float, float]], list[bool]]:
    """The places to cut out of one photo (working pixels), and which are round a
    demon of the table's hue."""

    def working(xy: list[float]) -> tuple[float, float]:
        return to_working(xy, scale)

    hue = TABLE_HUE.get(truth["scene"]["table"]["kind"])
    places: list[tuple[float, float]] = []
    of_hue: list[bool] = []

    def add(xy: tuple[float, float], table_hue: bool = False) -> None:
        places.append(xy)
        of_hue.append(table_hue)

    for creature in truth["creatures"]:
        x, y = working(creature["xy"])
        if creature["kind"] != "demon":
            add((x, y))
            continue
        table_hue = creature["colour"] == hue
        for _ in range(TABLE_HUE_TIMES if table_hue else 1):
            for low, high in ((0.0, DEMON_REACH), (CLEAR_OF_DEMON, BESIDE_DEMON)):
                angle = rng.uniform(0, 2 * math.pi)
                reach = math.sqrt(rng.uniform(low**2, high**2)) * width
                add((x + reach * math.cos(angle), y + reach * math.sin(angle)), table_hue)
    for line in truth["lines"].values():
        ring = LinearRing([working(p) for p in line["polyline"]])
        for along in rng.uniform(0, ring.length, ALONG_CORD):
            point = ring.interpolate(along)
            add((point.x, point.y))
        if line.get("knot"):
            add(working(line["knot"]))
    for crossing in truth["crossings"]:
        add(working(crossing["xy"]))
    feet = np.array([working(c["xy"]) for c in truth["creatures"]], np.float64).reshape(-1, 2)
    if len(feet):
        low, high = feet.min(axis=0) - width, feet.max(axis=0) + width
        for _ in range(int(round(ANYWHERE_PER_PAWN * len(feet)))):
            anywhere = rng.uniform(low, high)
            add((float(anywhere[0]), float(anywhere[1])))
    return places, of_hue


def target_of(
    place: tuple[float, float], demons: NDArray[np.float64], width: float
) -> float | None:
    """1 where a demon's foot lies within DEMON_REACH widths, 0 where none lies within
    CLEAR_OF_DEMON, None between."""
    if not len(demons):
        return 0.0
    nearest = float(np.hypot(*(demons - place).T).min()) / width
    return 1.0 if nearest <= DEMON_REACH else 0.0 if nearest > CLEAR_OF_DEMON else None


def crops_of(path: Path, rng: np.random.Generator) -> Examples:
    """Crops round the places of one photo with truth, their targets, and which are
    round a demon of the table's hue."""
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    photo = load_photo(path)
    scale = photo.scale
    widths = [c["pawn_px"] / scale for c in truth["creatures"] if c.get("pawn_px")]
    if not widths:
        return crops_of_nothing()
    width = float(np.median(widths))
    feet = [to_working(c["xy"], scale) for c in truth["creatures"] if c["kind"] == "demon"]
    demons = np.array(feet, np.float64).reshape(-1, 2)
    crops, targets, of_hue = [], [], []
    for place, table_hue in zip(*places_of(truth, scale, width, rng), strict=True):
        target = target_of(place, demons, width)
        if target is None:
            continue
        looked_for = width * math.exp(rng.uniform(-math.log(WIDTH_OFF), math.log(WIDTH_OFF)))
        crops.append(place_crop(photo.rgb, place, looked_for))
        targets.append(target)
        of_hue.append(table_hue)
    if not crops:  # every place between the two reaches
        return crops_of_nothing()
    return np.stack(crops), np.array(targets, np.float32), np.array(of_hue, bool)


def examples(folders: list[Path], seed: int) -> Examples:
    """Crops, targets and which are round a demon of the table's hue, of every photo
    with truth in ``folders``."""
    return crops_of_sets(folders, seed, crops_of)


def evaluate(net: nn.Module, held: Examples) -> dict[str, dict[str, float]]:
    """Recall of the demons and the share of other places taken for one, at a few
    thresholds: over every place, and over those round demons of the table's hue."""
    return held_out_figures(net, held, "demons", "table_hue")


def main(argv: list[str] | None = None) -> int:
    return train_checker(
        argv,
        __doc__.split("\n")[0],
        examples,
        evaluate,
        "demonnet",
        {"demon_reach": DEMON_REACH, "clear_of_demon": CLEAR_OF_DEMON},
        seed=51,
    )


if __name__ == "__main__":
    raise SystemExit(main())
