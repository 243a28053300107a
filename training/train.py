"""Fit the pixel classifier on labelled photos and export it for the reader.

::

    python -m training.train --data out/train --steps 20000 --out calibration

Crops of 256 x 256 working pixels, mostly round the objects, are drawn from the
examples of :mod:`training.dataset` and varied the way photos vary beyond what the
generator draws (white balance, exposure, contrast, saturation, blur, noise, JPEG,
scale, turns and mirroring; never the hue, which is what tells the colours apart).
The loss is cross-entropy over the classes, weighted so that thin cords count, plus a
binary loss for the feet. The result is written as ONNX (``pixelnet.onnx``), which
ONNX Runtime runs, with ``pixelnet.json`` beside it (classes, input scaling, and the
validation figures of this training).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from torch.utils.data import DataLoader, IterableDataset

from synth.labels import BACKGROUND, PIXEL_CLASSES
from synth.shake import motion_blur
from training.model import PixelNet

CROP = 192
#: Crops drawn from one decoded example before the next is read.
CROPS_PER_EXAMPLE = 8
#: Share of crops centred on an object pixel (the rest anywhere: table, clutter, edge).
OBJECT_CROPS = 0.8
#: Share of crops (with pawns) given long, dark pawn shadows (cast_shadows).
SHADOW_CROPS = 0.5
#: The pawn classes (and the ghost) are the last ones.
PAWN_FIRST = PIXEL_CLASSES.index("pawn_red")
#: Loss weight of each class against the background.
OBJECT_WEIGHT = 8.0
#: A foot is marked as a disc of this share of the pawn's width (at least 1.5 px).
FOOT_RADIUS_SHARE = 0.2
FOOT_WEIGHT = 1.0
#: Input scaling, shared with the reader through pixelnet.json.
INPUT_SCALE = 1.0 / 255.0
INPUT_MEAN = 0.5


class Crops(IterableDataset):  # type: ignore[misc]
    """Endless varied crops of the examples in ``names`` (paths without suffix)."""

    def __init__(self, names: list[Path], seed: int) -> None:
        self.names = names
        self.seed = seed

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng(self.seed + (info.id if info else 0))
        while True:
            name = self.names[rng.integers(len(self.names))]
            image, labels, feet = read_example(name)
            for _ in range(CROPS_PER_EXAMPLE):
                crop = varied_crop(image, labels, feet, rng)
                yield tuple(torch.from_numpy(a) for a in crop)  # type: ignore[misc]


def read_example(name: Path) -> tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.float32]]:
    """The image (RGB), labels and feet (x, y, radius) of one example."""
    image = cv2.imread(str(name) + ".jpg", cv2.IMREAD_COLOR)[:, :, ::-1]
    labels = cv2.imread(str(name) + ".labels.png", cv2.IMREAD_GRAYSCALE)
    feet = json.loads(Path(str(name) + ".feet.json").read_text())["feet"]
    marks = np.array(
        [[f["x"], f["y"], max(1.5, FOOT_RADIUS_SHARE * f["width"])] for f in feet], np.float32
    ).reshape(-1, 3)
    return np.ascontiguousarray(image), labels, marks


def varied_crop(
    image: NDArray[np.uint8],
    labels: NDArray[np.uint8],
    feet: NDArray[np.float32],
    rng: np.random.Generator,
) -> tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.float32]]:
    """One crop, varied: (3, CROP, CROP) input, (CROP, CROP) classes, (CROP, CROP) feet."""
    zoom = float(np.exp(rng.uniform(math.log(0.7), math.log(1.4))))
    side = int(round(CROP / zoom))
    h, w = labels.shape
    objects = np.flatnonzero(labels[::4, ::4].ravel())
    if len(objects) and rng.random() < OBJECT_CROPS:
        k = int(objects[rng.integers(len(objects))])
        cy, cx = (k // ((w + 3) // 4)) * 4, (k % ((w + 3) // 4)) * 4
        cy += int(rng.integers(-side // 3, side // 3 + 1))
        cx += int(rng.integers(-side // 3, side // 3 + 1))
    else:
        cy, cx = int(rng.integers(h)), int(rng.integers(w))
    y0 = int(np.clip(cy - side // 2, 0, max(h - side, 0)))
    x0 = int(np.clip(cx - side // 2, 0, max(w - side, 0)))
    img = _padded(image[y0 : y0 + side, x0 : x0 + side], side)
    lab = _padded(labels[y0 : y0 + side, x0 : x0 + side], side)
    foot = np.zeros((side, side), np.uint8)
    for x, y, r in feet:
        cv2.circle(foot, (int(round((x - x0) * 4)), int(round((y - y0) * 4))),
                   int(round(r * 4)), 1, -1, shift=2)
    if side != CROP:
        img = cv2.resize(img, (CROP, CROP), interpolation=cv2.INTER_AREA if zoom < 1
                         else cv2.INTER_LINEAR)
        lab = cv2.resize(lab, (CROP, CROP), interpolation=cv2.INTER_NEAREST)
        foot = cv2.resize(foot, (CROP, CROP), interpolation=cv2.INTER_NEAREST)
    if rng.random() < SHADOW_CROPS:
        img = cast_shadows(img, lab, rng)
    img = vary_look(img, rng)
    turns = int(rng.integers(4))
    img, lab, foot = (np.rot90(a, turns) for a in (img, lab, foot))
    if rng.random() < 0.5:
        img, lab, foot = (a[:, ::-1] for a in (img, lab, foot))
    net_input = (img.astype(np.float32) * INPUT_SCALE - INPUT_MEAN).transpose(2, 0, 1)
    return (
        np.ascontiguousarray(net_input),
        np.ascontiguousarray(lab, dtype=np.int64),
        np.ascontiguousarray(foot, dtype=np.float32),
    )


def cast_shadows(
    img: NDArray[np.uint8], lab: NDArray[np.uint8], rng: np.random.Generator
) -> NDArray[np.uint8]:
    """The crop under a low light: each pawn casts a long, dark shadow the same way
    (the generator's shadows are short and soft; a low sun or a lamp at the table's
    edge casts them several pawns long, and they must stay table). The labels stay:
    a cord in shadow is still cord, and a pawn hides its own shadow."""
    pawns = (lab >= PAWN_FIRST).astype(np.uint8)
    count, _, stats, centroids = cv2.connectedComponentsWithStats(pawns)
    if count <= 1:
        return img
    angle = float(rng.uniform(0.0, 2.0 * math.pi))
    direction = np.array([math.cos(angle), math.sin(angle)])
    shade = np.zeros(lab.shape, np.float32)
    for k in range(1, count):
        width = 2.0 * math.sqrt(stats[k, cv2.CC_STAT_AREA] / math.pi)
        start = centroids[k]
        end = start + direction * width * float(rng.uniform(1.5, 5.0))
        cv2.line(shade, tuple(int(v) for v in start), tuple(int(v) for v in end), 1.0,
                 max(1, int(0.8 * width)))
    # Soft-edged, as a shadow's penumbra.
    side = float(np.sqrt(stats[1:, cv2.CC_STAT_AREA].mean()))
    shade = cv2.GaussianBlur(shade, (0, 0), 0.15 * side + 0.5)
    shade[pawns > 0] = 0.0
    # A shadow is lit only by the rest of the room: by a window's blue sky it is
    # bluer than the table, under a warm lamp warmer, and so on.
    darkness = float(rng.uniform(0.25, 0.65)) * np.exp(rng.normal(0.0, 0.12, size=3))
    if rng.random() < 0.5:
        darkness *= np.array([0.85, 0.95, 1.15])  # skylight
    shade = np.clip(shade, 0.0, 1.0)[:, :, None]
    factor = 1.0 - (1.0 - np.clip(darkness, 0.1, 1.0)) * shade
    return np.clip(img.astype(np.float32) * factor, 0, 255).astype(np.uint8)


def _padded(a: NDArray[Any], side: int) -> NDArray[Any]:
    """``a`` padded at its bottom and right with edge values to ``side`` x ``side``."""
    pad = [(0, side - a.shape[0]), (0, side - a.shape[1])] + [(0, 0)] * (a.ndim - 2)
    return np.pad(a, pad, mode="edge" if a.ndim == 3 else "constant")


#: Share of crops shaken (:func:`synth.shake.motion_blur`), and by how many of the
#: crop's pixels: a hand-held phone moves while the shutter is open, which the
#: generator does not imitate. 1-4 pixels at the detector's 16-pixel pawns are about
#: 6-25 pixels of a 12-megapixel photo. Off: the shipped networks were trained
#: without it, and the shipped detector tuned on with a quarter of its crops shaken
#: read fewer boards (thirty-sixth session, docs/reader-history.md). At 0 no random
#: number is drawn for it, so the recipes make the same networks as before.
SHAKEN_CROPS = 0.0
SHAKE_PX = (1.0, 4.0)


def vary_look(img: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """The crop as another camera and light might show it (the hue kept)."""
    if SHAKEN_CROPS > 0 and rng.random() < SHAKEN_CROPS:
        img = motion_blur(img, float(rng.uniform(*SHAKE_PX)), float(rng.uniform(0.0, 180.0)))
    x = img.astype(np.float32) / 255.0
    x = x ** float(np.exp(rng.normal(0.0, 0.2)))  # tone curve
    x *= float(np.exp(rng.normal(0.0, 0.25)))  # exposure
    x *= np.exp(rng.normal(0.0, 0.06, size=3)).astype(np.float32)  # white balance
    grey = x.mean(axis=2, keepdims=True)
    x = grey + (x - grey) * float(np.exp(rng.normal(0.0, 0.2)))  # saturation
    mean = float(x.mean())
    x = mean + (x - mean) * float(np.exp(rng.normal(0.0, 0.15)))  # contrast
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.4, 1.2)))
    if rng.random() < 0.5:
        x += rng.normal(0.0, rng.uniform(0.005, 0.03), size=x.shape).astype(np.float32)
    out = np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        quality = int(rng.integers(60, 95))
        _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    return out


def losses(
    output: torch.Tensor, labels: torch.Tensor, feet: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Weighted class cross-entropy and foot binary cross-entropy of a batch."""
    weights = torch.full((len(PIXEL_CLASSES),), OBJECT_WEIGHT)
    weights[BACKGROUND] = 1.0
    classes = F.cross_entropy(output[:, :-1], labels, weight=weights)
    foot = F.binary_cross_entropy_with_logits(
        output[:, -1], feet, pos_weight=torch.tensor(OBJECT_WEIGHT)
    )
    return classes, foot


@torch.no_grad()  # type: ignore[misc]
def validate(net: PixelNet, names: list[Path], crops: int = 96) -> dict[str, Any]:
    """Per-class intersection over union and foot recall on held-out crops."""
    net.eval()
    rng = np.random.default_rng(7)
    n = len(PIXEL_CLASSES)
    confusion = np.zeros((n, n), np.int64)
    foot_hits = foot_total = 0
    for i in range(crops):
        image, labels, feet = read_example(names[i % len(names)])
        img, lab, foot = varied_crop(image, labels, feet, rng)
        out = net(torch.from_numpy(img)[None])[0]
        pred = out[:-1].argmax(0).numpy()
        confusion += np.bincount(lab.ravel() * n + pred.ravel(), minlength=n * n).reshape(n, n)
        marks = foot > 0
        foot_total += int(marks.sum())
        foot_hits += int(((out[-1].numpy() > 0) & marks).sum())
    net.train()
    tp = np.diag(confusion)
    iou = tp / np.maximum(confusion.sum(0) + confusion.sum(1) - tp, 1)
    return {
        "iou": {c: round(float(v), 3) for c, v in zip(PIXEL_CLASSES, iou, strict=True)},
        "foot_pixel_recall": round(foot_hits / max(foot_total, 1), 3),
    }


def export_onnx(
    net: torch.nn.Module,
    path: Path,
    channels: int,
    crop: int,
    output: str,
    any_size: bool = True,
) -> None:
    """Write ``net`` (in eval mode) to ``path`` as ONNX for the reader (ONNX Runtime): one
    input "image" of ``channels`` channels and any height and width (``any_size``), or
    any number of ``crop`` x ``crop`` images."""
    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        torch.zeros(1, channels, crop, crop),
        str(path),
        input_names=["image"],
        output_names=[output],
        dynamic_axes=(
            {"image": {2: "height", 3: "width"}}
            if any_size
            else {"image": {0: "n"}, output: {0: "n"}}
        ),
        opset_version=17,
        dynamo=False,
    )


def fit(
    net: torch.nn.Module,
    batches: Callable[[int], Iterable[Sequence[torch.Tensor]]],
    loss_parts: Callable[[Sequence[torch.Tensor]], Sequence[torch.Tensor]],
    weights: Sequence[float],
    names: Sequence[str],
    *,
    steps: int,
    lr: float,
    checkpoint: Path,
    validate: Callable[[], dict[str, Any]],
    export: Callable[[dict[str, Any]], None],
    warmup: int = 0,
) -> None:
    """Train ``net`` for ``steps`` steps (AdamW, cosine schedule after ``warmup``
    steps), going on from ``checkpoint`` where one is saved.

    ``batches(seed)`` gives the batches from a seed (the step started at, so that a
    resumed run does not see the same crops again); ``loss_parts`` the named parts of
    a batch's loss (printed), summed with ``weights``. The state is saved every 1000
    steps; every 2000 and at the end the net is validated (``validate()``'s figures
    printed) and exported with them (``export(figures)``).
    """
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    start = 0
    if checkpoint.exists():
        state = torch.load(checkpoint)
        net.load_state_dict(state["net"])
        optimiser.load_state_dict(state["optimiser"])
        start = state["step"]

    def rate(s: int) -> float:
        ramp = min(1.0, (s + 1) / warmup) if warmup else 1.0
        return ramp * 0.5 * (1 + math.cos(math.pi * min(s / steps, 1.0)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, rate)
    for _ in range(start):
        schedule.step()
    began = time.time()
    running = [0.0] * len(names)
    for step, batch in enumerate(batches(start), start=start + 1):
        if step > steps:
            break
        parts = loss_parts(batch)
        optimiser.zero_grad()
        sum(w * part for w, part in zip(weights, parts, strict=True)).backward()
        optimiser.step()
        schedule.step()
        running = [0.98 * r + 0.02 * v.item() for r, v in zip(running, parts, strict=True)]
        if step % 100 == 0:
            losses_now = ", ".join(f"{n} {r:.4f}" for n, r in zip(names, running, strict=True))
            speed = (step - start) / (time.time() - began)
            print(f"step {step}: {losses_now}, {speed:.2f} steps/s", file=sys.stderr, flush=True)
        if step % 1000 == 0 or step == steps:
            torch.save(
                {"net": net.state_dict(), "optimiser": optimiser.state_dict(), "step": step},
                checkpoint,
            )
        if step % 2000 == 0 or step == steps:
            figures = validate()
            print(json.dumps(figures), file=sys.stderr, flush=True)
            export(figures)


def held_out(names: Sequence[Path], count: int, seed: int) -> tuple[list[Path], list[Path]]:
    """``count`` of the examples kept for validation, chosen by ``seed``, and the rest.

    Raises
    ------
    ValueError
        When there are no more than ``count`` examples.
    """
    if len(names) <= count:
        raise ValueError(f"holds {len(names)} examples; more than --held-out {count} needed")
    shuffled = random.Random(seed).sample(list(names), len(names))
    return shuffled[:count], shuffled[count:]


def export(net: PixelNet, out: Path, figures: dict[str, Any]) -> None:
    """Write ``pixelnet.onnx`` and ``pixelnet.json`` into ``out``."""
    export_onnx(net, out / "pixelnet.onnx", channels=3, crop=CROP, output="logits")
    meta = {
        "classes": list(PIXEL_CLASSES),
        "outputs": [*PIXEL_CLASSES, "foot"],
        "input_scale": INPUT_SCALE,
        "input_mean": INPUT_MEAN,
        "side_multiple": 8,
        "validation": figures,
    }
    (out / "pixelnet.json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("calibration"))
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=12)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--held-out", type=int, default=60, help="examples kept for validation")
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    names = sorted(p.with_name(p.name[: -len(".feet.json")])
                   for p in args.data.glob("*.feet.json"))
    try:
        held, train = held_out(names, args.held_out, args.seed)
    except ValueError as error:
        parser.error(f"{args.data} {error}")
    net = PixelNet()
    fit(
        net,
        lambda start: DataLoader(
            Crops(train, args.seed + start), batch_size=args.batch, num_workers=1
        ),
        lambda batch: losses(net(batch[0]), batch[1], batch[2]),
        (1.0, FOOT_WEIGHT),
        ("class loss", "foot loss"),
        steps=args.steps,
        lr=args.lr,
        checkpoint=args.checkpoint or args.out / "pixelnet.pt",
        validate=lambda: validate(net, held),
        export=lambda figures: export(net, args.out, figures),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
