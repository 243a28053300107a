"""``dicke-daemonen synth``: write synthetic table photos with exact ground truth."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from cli.errors import UserError

SIZE_PATTERN = re.compile(r"^(\d+)x(\d+)$")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="generate synthetic photos of boards with their ground truth",
        description="Write NAME.jpg + NAME.truth.json pairs: realistic photos of random "
        "boards from simulated games, the truth in the board-report shape (CONTRACT.md) in "
        "photo pixels, plus a 'scene' object saying how each photo was made. Photo i "
        "uses seed SEED+i, so any single photo can be made again from its seed.",
    )
    parser.add_argument("--count", type=int, default=1, help="how many photos (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first photo")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--difficulty", choices=("easy", "normal", "hard"), default="normal")
    parser.add_argument("--size", default="4032x3024", help="WIDTHxHEIGHT in pixels")
    parser.add_argument(
        "--overlay", action="store_true", help="also write NAME.overlay.jpg with the truth drawn on"
    )
    parser.set_defaults(run=run)


def parse_size(text: str) -> tuple[int, int]:
    match = SIZE_PATTERN.match(text)
    if not match:
        raise UserError(f"--size must look like 4032x3024, not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if min(width, height) < 240 or max(width, height) < 320 or width * height > 50_000_000:
        raise UserError(f"--size {text}: between 320x240 and 50 megapixels, please")
    return width, height


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from synth.overlay import draw_truth
    from synth.photo import make_photo
    from synth.render import encode_jpeg

    if args.count < 1:
        raise UserError("--count must be at least 1")
    size = parse_size(args.size)
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in tqdm(range(args.seed, args.seed + args.count), desc="photos", unit="photo"):
        photo = make_photo(seed, args.difficulty, size)
        name = f"synth_{args.difficulty}_{seed:06d}"
        (args.out / f"{name}.jpg").write_bytes(photo.jpeg)
        (args.out / f"{name}.truth.json").write_text(json.dumps(photo.truth) + "\n")
        if args.overlay:
            overlay = draw_truth(photo.image, photo.truth)
            (args.out / f"{name}.overlay.jpg").write_bytes(encode_jpeg(overlay, 90))
    return 0
