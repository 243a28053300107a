"""Fit the pawn detector on labelled photos and export it for the reader.

::

    python -m training.train_detector --data out/train --steps 12000 --out calibration

The examples are those of :mod:`training.dataset` (a working-size photo, its pixel
labels and every pawn's foot). Each one is scaled so that its pawns are
:data:`~training.detector_model.PAWN_PX` wide (give or take a third, as the reader's
estimate of a pawn's width may be off), given long pawn shadows half of the time
(:func:`cast_shadows`), varied in look (:func:`training.train.vary_look`),
turned and mirrored; then crops of it are drawn, mostly round its objects. The targets
are CenterNet's: a small Gaussian on every pawn's foot (and every knot's lump) in the
heat map of its colour, trained with the penalty-reduced focal loss, and the foot's
offset from its output pixel, trained with an L1 loss there. The result is written as
ONNX (``pawnnet.onnx``), which ONNX Runtime runs, with ``pawnnet.json`` beside it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from torch.utils.data import DataLoader, IterableDataset

from synth.labels import BACKGROUND, KNOT, PIXEL_CLASSES
from training.dataset import BESIDE_PAWNS, crowded
from training.detector_model import CORDS, IN_CHANNELS, OBJECTS, PAWN_PX, STRIDE, PawnDetector
from training.from_onnx import load_folded, restore_batch_norms
from training.train import export_onnx, fit, held_out, vary_look
from vision.detect import detector_input, peaks

#: Input crop side (a multiple of 8): eight pawns across.
CROP = 128
CROPS_PER_EXAMPLE = 12
#: Context round a crop for the table's median (network pixels).
MARGIN = 32
#: Share of crops centred near an object (the rest anywhere: table, clutter, edge).
OBJECT_CROPS = 0.8
#: How much likelier a crop is centred on a crowded ghost (beside another pawn or
#: touching a cord, see :func:`training.dataset.crowded`) or a knot beside a pawn than
#: on any other object: the ghosts and knots the reader loses.
HARD_WEIGHT = 4.0
SHADOW_CROPS = 0.6
#: Share of crops whose table is given another colour (any, a cord's own included).
RECOLOURED_CROPS = 0.35
#: The scale of an example varies by up to this factor either way.
ZOOM = 1.35
#: Heat-map Gaussians: a pawn's is this share of its width, a knot's is fixed (output px).
PAWN_SIGMA_SHARE = 0.12
KNOT_SIGMA = 0.9
#: Knot lumps smaller than this many labelled pixels are specks, not knots.
MIN_KNOT_PIXELS = 4
#: A detection this close to a truth point (in pawn widths) finds it.
MATCH_PAWNS = 0.4
OFFSET_WEIGHT = 1.0
#: Cord maps: a pixel with this share of cord is all cord; loss weight and positive weight.
FULL_CORD_SHARE = 0.25
CORD_WEIGHT = 10.0
CORD_POSITIVE_WEIGHT = 4.0
CORD_CLASSES = tuple(PIXEL_CLASSES.index(f"cord_{c}") for c in CORDS)
#: Batches of crops over which a network started from ONNX gets its batch norms back.
RESTORE_BATCHES = 20
PAWN_CLASS_NAMES = {f"pawn_{c}": c for c in ("red", "yellow", "green", "blue")} | {"ghost": "white"}


def read_example(
    name: Path,
) -> tuple[NDArray[np.uint8], NDArray[np.uint8], list[tuple[float, float, int, float]]]:
    """The example's RGB image, its labels, and its objects as (x, y, object index,
    width): every pawn's foot, and the centre of every knot's lump."""
    image = cv2.cvtColor(cv2.imread(str(name) + ".jpg"), cv2.COLOR_BGR2RGB)
    labels = cv2.imread(str(name) + ".labels.png", cv2.IMREAD_UNCHANGED)
    feet = json.loads(Path(str(name) + ".feet.json").read_text())["feet"]
    objects = []
    for foot in feet:
        colour = PAWN_CLASS_NAMES[PIXEL_CLASSES[foot["label"]]]
        objects.append((foot["x"], foot["y"], OBJECTS.index(colour), foot["width"]))
    count, _, stats, centroids = cv2.connectedComponentsWithStats((labels == KNOT).astype(np.uint8))
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] >= MIN_KNOT_PIXELS:
            x, y = centroids[k]
            objects.append((float(x), float(y), OBJECTS.index("knot"), 0.0))
    return np.ascontiguousarray(image), labels, objects


def pawn_width_of(objects: list[tuple[float, float, int, float]]) -> float | None:
    widths = [w for *_, w in objects if w > 0]
    return float(np.median(widths)) if widths else None


def crop_weights(
    labels: NDArray[np.uint8],
    objects: list[tuple[float, float, int, float]],
    hard_weight: float = HARD_WEIGHT,
) -> NDArray[np.float64]:
    """How likely a crop is centred on each object, summing to 1: a crowded ghost (see
    :func:`training.dataset.crowded`) or a knot beside a pawn ``hard_weight`` times as
    likely as any other object."""
    if hard_weight <= 0:
        raise ValueError(f"hard_weight must be positive, not {hard_weight}")
    weights = np.ones(len(objects))
    pawns = [i for i, (*_, width) in enumerate(objects) if width > 0]
    if hard_weight == 1.0 or not pawns:
        return weights / max(weights.sum(), 1.0)
    feet = np.array([objects[i][:2] for i in pawns])
    width = float(np.median([objects[i][3] for i in pawns]))
    hard = crowded(labels, [(objects[i][0], objects[i][1], objects[i][3]) for i in pawns])
    for i, is_hard in zip(pawns, hard, strict=True):
        if is_hard and objects[i][2] == OBJECTS.index("white"):
            weights[i] = hard_weight
    for i, (x, y, k, _) in enumerate(objects):
        if k == OBJECTS.index("knot") and np.hypot(*(feet - (x, y)).T).min() < BESIDE_PAWNS * width:
            weights[i] = hard_weight
    return weights / weights.sum()


def prepared(
    image: NDArray[np.uint8], objects: list[tuple[float, float, int, float]], scale: float
) -> tuple[NDArray[np.float32], list[tuple[float, float, int, float]]]:
    """The whole example scaled by ``scale`` as the reader scales a photo: the network's
    input (6, H, W) and the objects in its pixels."""
    h, w = image.shape[:2]
    size = (max(int(round(w * scale)), 16), max(int(round(h * scale)), 16))
    sx, sy = size[0] / w, size[1] / h
    img = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    img = cv2.copyMakeBorder(img, 0, -size[1] % 8, 0, -size[0] % 8, cv2.BORDER_REPLICATE)
    points = [((x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5, k, wd * sx) for x, y, k, wd in objects]
    return detector_input(img, PAWN_PX), points


def varied_crop(
    image: NDArray[np.uint8],
    labels: NDArray[np.uint8],
    objects: list[tuple[float, float, int, float]],
    scale: float,
    pawn_px: float,
    rng: np.random.Generator,
    weights: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float32], ...]:
    """One crop of CROP x CROP network pixels, turned any way, maybe mirrored, maybe
    given long shadows, varied in look; mostly round an object (drawn by ``weights``,
    see :func:`crop_weights`; evenly without). Returns the input (6, CROP, CROP) and
    the targets (see :func:`targets`)."""
    h, w = labels.shape
    if objects and rng.random() < OBJECT_CROPS:
        x, y, *_ = objects[int(rng.choice(len(objects), p=weights))]
        spread = CROP / 3 / scale
        cx, cy = x + rng.uniform(-spread, spread), y + rng.uniform(-spread, spread)
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    side = CROP + 2 * MARGIN
    # First scaled (averaging, as the reader's resize does), then turned about the centre.
    reach = int(math.ceil(side * 0.75 / scale)) + 2
    x0, y0 = int(cx) - reach, int(cy) - reach
    window = (
        slice(max(y0, 0), max(min(y0 + 2 * reach, h), 0)),
        slice(max(x0, 0), max(min(x0 + 2 * reach, w), 0)),
    )
    pad = ((max(-y0, 0), max(y0 + 2 * reach - h, 0)), (max(-x0, 0), max(x0 + 2 * reach - w, 0)))
    img = np.pad(
        image[window], (*pad, (0, 0)), mode="reflect" if image[window].size else "constant"
    )
    lab = np.pad(labels[window], pad)
    small = max(int(round(2 * reach * scale)), 8)
    actual = small / (2 * reach)
    shrink = cv2.INTER_AREA if actual < 1 else cv2.INTER_LINEAR
    img = cv2.resize(img, (small, small), interpolation=shrink)
    # Each cord's share of every pixel, averaged (a thin cord must not break up).
    cords = cv2.resize(
        np.stack([lab == k for k in CORD_CLASSES], axis=2).astype(np.float32),
        (small, small),
        interpolation=shrink,
    )
    lab = cv2.resize(lab, (small, small), interpolation=cv2.INTER_NEAREST)
    angle = float(rng.uniform(0.0, 360.0))
    turn = cv2.getRotationMatrix2D(((small - 1) / 2, (small - 1) / 2), angle, 1.0)
    turn[:, 2] += (side - small) / 2
    if rng.random() < 0.5:
        turn = np.array([[-1.0, 0.0, side - 1.0], [0.0, 1.0, 0.0]]) @ np.vstack([turn, [0, 0, 1]])
    img = cv2.warpAffine(
        img, turn, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    lab = cv2.warpAffine(lab, turn, (side, side), flags=cv2.INTER_NEAREST, borderValue=0)
    cords = cv2.warpAffine(cords, turn, (side, side), flags=cv2.INTER_LINEAR, borderValue=0)
    points = []
    for x, y, k, wd in objects:
        sx, sy = ((x - x0) + 0.5) * actual - 0.5, ((y - y0) + 0.5) * actual - 0.5
        tx, ty = turn @ np.array([sx, sy, 1.0])
        points.append((float(tx) - MARGIN, float(ty) - MARGIN, k, wd * actual))
    if rng.random() < RECOLOURED_CROPS:
        img = recoloured_table(img, lab, rng)
    if rng.random() < SHADOW_CROPS:
        img = cast_shadows(img, lab, pawn_px, rng)
    img = vary_look(img, rng)
    net_input = detector_input(img, PAWN_PX)[:, MARGIN : MARGIN + CROP, MARGIN : MARGIN + CROP]
    inside = cords[MARGIN : MARGIN + CROP, MARGIN : MARGIN + CROP]
    return (np.ascontiguousarray(net_input), *targets((CROP, CROP), points), cord_targets(inside))


def cord_targets(shares: NDArray[np.float32]) -> NDArray[np.float32]:
    """(len(CORDS), h, w) targets at the output's size from each cord's share of every
    input pixel (H, W, len(CORDS)): a pixel a quarter cord or more is all cord."""
    h, w = shares.shape[0] // STRIDE, shares.shape[1] // STRIDE
    pooled = cv2.resize(shares, (w, h), interpolation=cv2.INTER_AREA).reshape(h, w, len(CORDS))
    return np.ascontiguousarray(np.clip(pooled / FULL_CORD_SHARE, 0, 1).transpose(2, 0, 1))


def recoloured_table(
    img: NDArray[np.uint8], lab: NDArray[np.uint8], rng: np.random.Generator
) -> NDArray[np.uint8]:
    """The crop on a table of another colour, its light and shade kept.

    Players lay the loops on whatever table they have: a blue cloth under the blue
    cord, green felt under the green one, in shades the generator does not draw. The
    table's colour is changed by one factor per channel (so grain, weave, shadows and
    the lamp's falloff stay), to a colour drawn uniformly in hue and widely in
    saturation and lightness; pixels at the objects' edges, part table, change in
    proportion (no fringe of the old table's colour is left round a cord)."""
    table = (lab == BACKGROUND).astype(np.float32)
    if table.sum() < 16:
        return img
    x = img.astype(np.float32) / 255.0
    old = np.median(x[table > 0], axis=0) + 0.02
    hue = float(rng.uniform(0.0, 180.0))
    saturation = float(rng.uniform(0.0, 1.0)) ** 0.7 * 0.9
    value = float(rng.uniform(0.15, 0.95))
    new = cv2.cvtColor(np.uint8([[[hue, saturation * 255, value * 255]]]), cv2.COLOR_HSV2RGB)
    ratio = np.clip((new[0, 0].astype(np.float32) / 255.0 + 0.02) / old, 0.1, 6.0)
    share = cv2.GaussianBlur(table, (0, 0), 0.8)[:, :, None]
    out = x * (1.0 + share * (ratio[None, None, :] - 1.0))
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)


def cast_shadows(
    img: NDArray[np.uint8], lab: NDArray[np.uint8], pawn_px: float, rng: np.random.Generator
) -> NDArray[np.uint8]:
    """The crop under one hard light: every pawn's silhouette swept away from the
    light (a quarter to six and a half pawns long), every cord and knot with a shadow
    beside it on the same side (as wide as the cord, or up to six times as wide under
    a low sun), darkened to 12-60 % of the light and often tinted (a window's blue
    sky lights the shadows of a sunlit table). The generator's own shadows are soft;
    a low sun or a bare bulb casts them crisp and dark, right against what casts
    them, and they must stay table. Labels stay: a cord in shadow is still cord."""
    objects = lab != BACKGROUND
    pawns = (lab >= PIXEL_CLASSES.index("pawn_red")).astype(np.uint8)
    thin = (objects & (pawns == 0)).astype(np.uint8)
    angle = float(rng.uniform(0.0, 2.0 * math.pi))
    direction = np.array([math.cos(angle), math.sin(angle)])
    # One light for all: a shadow is as long as what casts it is high, times the
    # cotangent of the light's elevation (here 9.5-76 degrees). A pawn is about as high
    # as wide; a cord, lying on the table, an eighth of a pawn (a low sun makes its
    # shadow a dark band several cords wide).
    cotangent = float(np.exp(rng.uniform(math.log(0.25), math.log(6.0))))
    length = pawn_px * 1.1 * cotangent
    cord_reach = pawn_px / 8.0 * max(cotangent, 0.5)
    shade = np.zeros(lab.shape, np.uint8)
    for mask, reach in ((pawns, length), (thin, cord_reach)):
        if not mask.any():
            continue
        steps = max(1, int(reach / 2.0))
        for i in range(1, steps + 1):
            dx, dy = direction * reach * i / steps
            shift = np.float32([[1, 0, dx], [0, 1, dy]])
            shade |= cv2.warpAffine(mask, shift, mask.shape[::-1], flags=cv2.INTER_NEAREST)
    shade[objects] = 0
    soft = cv2.GaussianBlur(shade.astype(np.float32), (0, 0), float(rng.uniform(0.3, 2.0)))
    darkness = float(rng.uniform(0.12, 0.6)) * np.exp(rng.normal(0.0, 0.1, size=3))
    if rng.random() < 0.5:
        darkness *= np.array([0.85, 0.95, 1.2])  # skylight
    factor = 1.0 - (1.0 - np.clip(darkness, 0.05, 1.0)) * soft[:, :, None]
    return np.clip(img.astype(np.float32) * factor, 0, 255).astype(np.uint8)


def targets(
    shape: tuple[int, int], points: list[tuple[float, float, int, float]]
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]:
    """Heat maps (len(OBJECTS), h, w), offsets (2, h, w) and their mask (h, w) at the
    output's size for objects at ``points`` (input pixels)."""
    h, w = shape[0] // STRIDE, shape[1] // STRIDE
    heat = np.zeros((len(OBJECTS), h, w), np.float32)
    offsets = np.zeros((2, h, w), np.float32)
    mask = np.zeros((h, w), np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    for x, y, k, width in points:
        ox, oy = (x + 0.5) / STRIDE - 0.5, (y + 0.5) / STRIDE - 0.5
        ix, iy = int(round(ox)), int(round(oy))
        if not (0 <= ix < w and 0 <= iy < h):
            continue
        sigma = KNOT_SIGMA if OBJECTS[k] == "knot" else max(0.7, PAWN_SIGMA_SHARE * width / STRIDE)
        r = int(3 * sigma) + 1
        y0, y1, x0, x1 = max(iy - r, 0), min(iy + r + 1, h), max(ix - r, 0), min(ix + r + 1, w)
        g = np.exp(-((xs[y0:y1, x0:x1] - ix) ** 2 + (ys[y0:y1, x0:x1] - iy) ** 2) / (2 * sigma**2))
        np.maximum(heat[k, y0:y1, x0:x1], g, out=heat[k, y0:y1, x0:x1])
        offsets[:, iy, ix] = (ox - ix, oy - iy)
        mask[iy, ix] = 1.0
    return heat, offsets, mask


def example_names(folder: Path) -> list[Path]:
    """The examples in ``folder`` (paths without suffix), sorted."""
    return sorted(p.with_name(p.name[: -len(".feet.json")]) for p in folder.glob("*.feet.json"))


class Crops(IterableDataset):  # type: ignore[misc]
    """Endless varied crops of the examples in ``folder`` but those ``held`` out. The
    folder is looked at again now and then: examples may still be being made."""

    def __init__(
        self,
        folder: Path,
        held: list[Path],
        seed: int,
        hard_weight: float = HARD_WEIGHT,
    ) -> None:
        self.folder = folder
        self.held = set(held)
        self.seed = seed
        self.hard_weight = hard_weight

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        rng = np.random.default_rng(self.seed)
        for count in itertools.count():
            if count % 200 == 0:
                names = [n for n in example_names(self.folder) if n not in self.held]
            image, labels, objects = read_example(names[int(rng.integers(len(names)))])
            width = pawn_width_of(objects)
            if width is None:
                continue
            weights = crop_weights(labels, objects, self.hard_weight)
            for _ in range(CROPS_PER_EXAMPLE):
                zoom = float(np.exp(rng.uniform(-math.log(ZOOM), math.log(ZOOM))))
                crop = varied_crop(
                    image, labels, objects, PAWN_PX / width * zoom, PAWN_PX * zoom, rng, weights
                )
                yield tuple(torch.from_numpy(a) for a in crop)


def losses(
    output: torch.Tensor,
    heat: torch.Tensor,
    offsets: torch.Tensor,
    mask: torch.Tensor,
    cords: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """CenterNet's penalty-reduced focal loss on the heat maps and the L1 loss of the
    offsets at the objects' own pixels, both per object; and the cord maps' binary
    cross-entropy, per pixel."""
    logits = output[:, : len(OBJECTS)]
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = heat.eq(1.0).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * positive).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - positive)).sum()
    objects = positive.sum().clamp(min=1.0)
    offset_maps = output[:, len(OBJECTS) : len(OBJECTS) + 2]
    offset_loss = (torch.abs(offset_maps - offsets) * mask[:, None]).sum()
    cord_loss = F.binary_cross_entropy_with_logits(
        output[:, len(OBJECTS) + 2 :], cords, pos_weight=torch.tensor(CORD_POSITIVE_WEIGHT)
    )
    return (pos_loss + neg_loss) / objects, offset_loss / mask.sum().clamp(min=1.0), cord_loss


@torch.no_grad()  # type: ignore[misc]
def validate(net: PawnDetector, names: list[Path], threshold: float = 0.3) -> dict[str, Any]:
    """Recall, precision and foot error (pawn widths) per object on whole held-out
    examples at their own scale."""
    net.eval()
    hits = {o: 0 for o in OBJECTS}
    truths = {o: 0 for o in OBJECTS}
    reads = {o: 0 for o in OBJECTS}
    errors: list[float] = []
    cord_and = np.zeros(len(CORDS))
    cord_or = np.zeros(len(CORDS))
    for name in names:
        image, labels, objects = read_example(name)
        width = pawn_width_of(objects)
        if width is None:
            continue
        net_input, points = prepared(image, objects, PAWN_PX / width)
        output = net(torch.from_numpy(net_input)[None])[0].numpy()
        found = peaks(output[: len(OBJECTS) + 2], STRIDE, threshold)
        shares = np.stack([labels == k for k in CORD_CLASSES], axis=2).astype(np.float32)
        size = (net_input.shape[2], net_input.shape[1])
        scaled = cv2.resize(
            shares,
            (
                int(round(labels.shape[1] * PAWN_PX / width)),
                int(round(labels.shape[0] * PAWN_PX / width)),
            ),
            interpolation=cv2.INTER_AREA,
        )
        scaled = np.pad(
            scaled.reshape(scaled.shape[0], scaled.shape[1], -1),
            ((0, size[1] - scaled.shape[0]), (0, size[0] - scaled.shape[1]), (0, 0)),
        )
        truth_cords = cord_targets(scaled) >= 0.5
        read_cords = output[len(OBJECTS) + 2 :] > 0
        cord_and += (truth_cords & read_cords).sum(axis=(1, 2))
        cord_or += (truth_cords | read_cords).sum(axis=(1, 2))
        truth = [(x, y, OBJECTS[k]) for x, y, k, _ in points]
        for obj in OBJECTS:
            mine = [xy for o, _, xy in found if o == obj]
            theirs = [(x, y) for x, y, o in truth if o == obj]
            truths[obj] += len(theirs)
            reads[obj] += len(mine)
            used: set[int] = set()
            for tx, ty in theirs:
                best, best_d = -1, MATCH_PAWNS * PAWN_PX
                for i, (mx, my) in enumerate(mine):
                    d = math.hypot(mx - tx, my - ty)
                    if i not in used and d <= best_d:
                        best, best_d = i, d
                if best >= 0:
                    used.add(best)
                    hits[obj] += 1
                    if obj != "knot":
                        errors.append(best_d / PAWN_PX)
    net.train()
    return {
        "recall": {o: round(hits[o] / max(truths[o], 1), 4) for o in OBJECTS},
        "precision": {o: round(hits[o] / max(reads[o], 1), 4) for o in OBJECTS},
        "foot_error_median": round(float(np.median(errors)), 4) if errors else None,
        "cord_iou": {
            c: round(float(a / max(o, 1)), 4)
            for c, a, o in zip(CORDS, cord_and, cord_or, strict=True)
        },
        "threshold": threshold,
        "examples": len(names),
    }


def export(net: PawnDetector, out: Path, figures: dict[str, Any]) -> None:
    """Write ``pawnnet.onnx`` and ``pawnnet.json`` into ``out``."""
    export_onnx(net, out / "pawnnet.onnx", channels=IN_CHANNELS, crop=CROP, output="maps")
    meta = {
        "objects": list(OBJECTS),
        "cords": list(CORDS),
        "pawn_px": PAWN_PX,
        "stride": STRIDE,
        "side_multiple": 8,
        "validation": figures,
    }
    (out / "pawnnet.json").write_text(json.dumps(meta, indent=1) + "\n")
    net.train()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("calibration"))
    parser.add_argument("--steps", type=int, default=12000)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--held-out", type=int, default=40, help="examples kept for validation")
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--hard-weight",
        type=float,
        default=HARD_WEIGHT,
        help="how much likelier a crop centres on a crowded ghost or a knot beside a pawn",
    )
    parser.add_argument(
        "--start-from",
        type=Path,
        default=None,
        help="an exported pawnnet.onnx to go on from (see training.from_onnx)",
    )
    args = parser.parse_args(argv)

    if args.hard_weight <= 0:
        parser.error("--hard-weight must be positive")
    torch.manual_seed(args.seed)
    names = example_names(args.data)
    try:
        held, _ = held_out(names, args.held_out, args.seed)
    except ValueError as error:
        parser.error(f"{args.data} {error}")
    net = PawnDetector()
    if args.start_from is not None:
        load_folded(net, args.start_from)
        # Crops drawn as training's are, of a seed that training's own (seed + step
        # resumed at) never is.
        restore_seed = args.seed + args.steps + 1
        restoring = Crops(args.data, held, restore_seed, args.hard_weight)
        crops = iter(DataLoader(restoring, batch_size=args.batch))
        restore_batch_norms(net, (next(crops)[0] for _ in range(RESTORE_BATCHES)))
    fit(
        net,
        lambda start: DataLoader(
            Crops(args.data, held, args.seed + start, args.hard_weight),
            batch_size=args.batch,
            num_workers=1,
        ),
        lambda batch: losses(net(batch[0]), *batch[1:]),
        (1.0, OFFSET_WEIGHT, CORD_WEIGHT),
        ("heat loss", "offset loss", "cord loss"),
        steps=args.steps,
        lr=args.lr,
        checkpoint=args.checkpoint or args.out / "pawnnet.pt",
        validate=lambda: validate(net, held),
        export=lambda figures: export(net, args.out, figures),
        warmup=300,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
