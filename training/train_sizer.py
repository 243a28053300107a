"""Train the pawn sizer (:mod:`vision.pawn_size`) on generated photos with their truth.

Each example is the place round a pawn of the truth, cut out by the reader's own
:func:`vision.pawn_size.place_crop` as though the pawn were ``1 / q`` of its true width
(``q`` drawn log-uniformly from :data:`RATIO_RANGE`, the foot moved by up to
:data:`FOOT_JITTER` widths, as the detector's marks are), and the target is ``log q``.
Photos are the benchmark's generated sets (``benchmarks/accuracy.py``'s ``make_set``),
made with seeds of their own::

    python -m training.train_sizer --sets out/sizer/a out/sizer/b --held-out out/sizer/c \\
        --out calibration

Writes ``sizenet.onnx`` and ``sizenet.json`` (with its figures on the held-out set).
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

from training.train import export_onnx
from vision.load import load_photo, photos_in
from vision.pawn_size import CROP_PAWNS, CROP_PX, place_crop, sizer_input

#: How many times wider than the width looked for a pawn may be (the truth's width over
#: the one looked for): the width the detector looked for before the sizer (the colour
#: rules', perhaps made smaller by the detect stage's smaller looks, which bring the
#: rules' widest, up to 4.1 times the truth's, nearer) was 0.72-2.65 times the truth's
#: over 840 generated photos, i.e. 0.38-1.39 here, and the smaller looks (0.65 and
#: 0.42 of the rules' width) can leave a pawn up to about twice as wide as looked for.
#: (Below 0.4 the sizer flattens: looked for 2.7 times too wide, the samples' pawns are
#: measured 1.08-1.17 times their width, still far enough to look again.)
RATIO_RANGE = (0.4, 2.8)
#: The foot is moved by up to this share of the true width either way along each axis.
FOOT_JITTER = 0.3
#: Crops cut round each pawn, each with its own ratio.
CROPS_PER_PAWN = 2


class PawnSizer(nn.Module):
    """Four strided 3x3 convolutions (80 -> 5 pixels), then two dense layers: the
    log of how much wider the pawn in the middle is than the crop assumed."""

    def __init__(self, widths: tuple[int, ...] = (24, 32, 48, 64)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        before = 6
        for width in widths:
            layers += [
                nn.Conv2d(before, width, 3, stride=2, padding=1, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(inplace=True),
            ]
            before = width
        side = CROP_PX // 2 ** len(widths)
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(before * side * side, 64),
            nn.ReLU(inplace=True),
            nn.Linear(64, 1),
        )

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(image))


def pawns_of(truth: dict[str, Any]) -> list[tuple[float, float, float]]:
    """Each creature's foot (original pixels) and width, where the truth gives it."""
    return [
        (c["xy"][0], c["xy"][1], float(c["pawn_px"]))
        for c in truth["creatures"]
        if c.get("pawn_px")
    ]


def crops_of(
    path: Path, rng: np.random.Generator, per_pawn: int = CROPS_PER_PAWN
) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """Crops round every pawn of one photo and their targets (log ratios)."""
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    photo = load_photo(path)
    crops, targets = [], []
    for x, y, width in pawns_of(truth):
        working = width / photo.scale
        foot = ((x + 0.5) / photo.scale - 0.5, (y + 0.5) / photo.scale - 0.5)
        for _ in range(per_pawn):
            log_ratio = rng.uniform(math.log(RATIO_RANGE[0]), math.log(RATIO_RANGE[1]))
            moved = (
                foot[0] + rng.uniform(-FOOT_JITTER, FOOT_JITTER) * working,
                foot[1] + rng.uniform(-FOOT_JITTER, FOOT_JITTER) * working,
            )
            crops.append(place_crop(photo.rgb, moved, working / math.exp(log_ratio)))
            targets.append(log_ratio)
    if not crops:
        return np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8), np.zeros(0, np.float32)
    return np.stack(crops), np.array(targets, np.float32)


def examples(folders: list[Path], seed: int) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """Crops and targets of every photo with truth in ``folders``."""
    rng = np.random.default_rng(seed)
    paths = [p for folder in folders for p in photos_in(folder)]
    all_crops, all_targets = [], []
    for path in tqdm(paths, desc="crops", unit="photo"):
        crops, targets = crops_of(path, rng)
        all_crops.append(crops)
        all_targets.append(targets)
    return np.concatenate(all_crops), np.concatenate(all_targets)


def varied(crops: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """Crops turned by quarter turns, mirrored and lit a little differently (the
    camera's roll sets which way a pawn leans)."""
    out = np.empty_like(crops)
    for i, crop in enumerate(crops):
        turned = np.rot90(crop, int(rng.integers(4)))
        if rng.random() < 0.5:
            turned = turned[:, ::-1]
        gain = np.exp(rng.normal(0.0, 0.15)) * np.exp(rng.normal(0.0, 0.05, size=3))
        out[i] = np.clip(turned.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return out


def outputs_of(net: nn.Module, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The network's one output for each crop, in eval mode, 256 at a time."""
    net.eval()
    outputs = []
    with torch.no_grad():
        for start in range(0, len(crops), 256):
            batch = torch.from_numpy(sizer_input(crops[start : start + 256]))
            outputs.append(net(batch).numpy().reshape(-1))
    return np.concatenate(outputs)


def evaluate(
    net: PawnSizer, crops: NDArray[np.uint8], targets: NDArray[np.float32]
) -> dict[str, float]:
    """Errors of the predicted log ratios: their median and 95th percentile, and the
    share of crops more than 15 % off."""
    error = np.abs(outputs_of(net, crops) - targets)
    return {
        "log_error_median": round(float(np.median(error)), 4),
        "log_error_p95": round(float(np.quantile(error, 0.95)), 4),
        "off_by_15_percent": round(float(np.mean(error > math.log(1.15))), 4),
        "crops": len(crops),
    }


def export(net: PawnSizer, out: Path, figures: dict[str, Any]) -> None:
    """Write ``sizenet.onnx`` and ``sizenet.json`` into ``out``."""
    export_onnx(
        net, out / "sizenet.onnx", channels=6, crop=CROP_PX, output="log_ratio", any_size=False
    )
    meta = {"crop_px": CROP_PX, "crop_pawns": CROP_PAWNS, "ratio_range": RATIO_RANGE, **figures}
    (out / "sizenet.json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=Path, nargs="+", required=True)
    parser.add_argument("--held-out", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("calibration"))
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    crops, targets = examples(args.sets, args.seed)
    held_crops, held_targets = examples([args.held_out], args.seed + 1)
    print(f"{len(crops)} crops to learn from, {len(held_crops)} held out", file=sys.stderr)
    net = PawnSizer()
    figures = train_on_crops(
        net,
        crops,
        targets,
        nn.SmoothL1Loss(beta=0.1),
        lambda: evaluate(net, held_crops, held_targets),
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        rng=rng,
    )
    export(net, args.out, {"validation": figures})
    return 0


def train_on_crops(
    net: nn.Module,
    crops: NDArray[np.uint8],
    targets: NDArray[np.float32],
    loss_of: nn.Module,
    validate: Callable[[], dict[str, Any]],
    *,
    epochs: int,
    batch: int,
    lr: float,
    rng: np.random.Generator,
    vary: Callable[[NDArray[np.uint8], np.random.Generator], NDArray[np.uint8]] = varied,
) -> dict[str, Any]:
    """Train ``net`` on ``crops`` (varied by ``vary``, :func:`varied` unless given) for
    ``targets`` (AdamW, one-cycle schedule), printing ``validate()``'s figures after each
    epoch; the last figures."""
    steps = epochs * (len(crops) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps)
    figures: dict[str, Any] = {}
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(crops))
        losses = []
        for start in range(0, len(order) - batch + 1, batch):
            pick = order[start : start + batch]
            inputs = torch.from_numpy(sizer_input(vary(crops[pick], rng)))
            loss = loss_of(net(inputs).reshape(-1), torch.from_numpy(targets[pick]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            losses.append(loss.item())
        figures = validate()
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.4f} held out {figures}", file=sys.stderr)
    return figures


if __name__ == "__main__":
    raise SystemExit(main())
