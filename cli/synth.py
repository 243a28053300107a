"""``dicke-daemonen synth``: write synthetic table photos with exact ground truth."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cli.errors import UserError

SIZE_PATTERN = re.compile(r"^(\d{1,6})x(\d{1,6})$")
#: Longest photo side: OpenCV draws on images up to 32767 pixels a side.
MAX_SIDE = 16384
#: Most photos in one run, and the largest seed (photo i uses SEED + i).
MAX_COUNT = 100_000
MAX_SEED = 2**32 - 1 - MAX_COUNT


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="generate synthetic photos of boards with their ground truth",
        description="Write NAME.jpg + NAME.truth.json pairs: realistic photos of random "
        "boards from simulated games, the truth in the board-report shape (CONTRACT.md) in "
        "photo pixels, plus a 'scene' object saying how each photo was made. Photo i "
        "uses seed SEED+i, so any single photo can be made again from its seed (with "
        "--tables or --lights, the seeds from SEED on whose photo is taken so).",
    )
    parser.add_argument("--count", type=photo_count, default=1,
                        help=f"how many photos, 1 to {MAX_COUNT} (default 1)")
    parser.add_argument("--seed", type=seed_number, default=0,
                        help=f"seed of the first photo, 0 to {MAX_SEED} (default 0)")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--difficulty", choices=("easy", "normal", "hard"), default="normal")
    parser.add_argument("--size", default="4032x3024", help="WIDTHxHEIGHT in pixels")
    parser.add_argument(
        "--overlay", action="store_true", help="also write NAME.overlay.jpg with the truth drawn on"
    )
    parser.add_argument(
        "--knot-cover",
        type=knot_cover,
        default=0.0,
        help="chance that a demon is put down on each knot, 0 to 1 (default 0: the game's "
        "own board; for training a knot checker)",
    )
    parser.add_argument(
        "--tables",
        type=table_kinds,
        default=None,
        help="comma-separated table kinds (e.g. green_felt,blue_mat): only photos on these "
        "tables, the seeds from SEED on that are planned on one of them",
    )
    parser.add_argument(
        "--lights",
        type=light_kinds,
        default=None,
        help="comma-separated key light kinds (e.g. harsh_side): only photos under these "
        "lights, the seeds from SEED on that are planned under one of them",
    )
    parser.set_defaults(run=run)


def parse_size(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT: each side 240 to ``MAX_SIDE`` pixels, at most 50 megapixels."""
    match = SIZE_PATTERN.match(text[:40])
    if not match:
        raise UserError(f"--size must look like 4032x3024, not {text[:40]!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if (
        min(width, height) < 240
        or max(width, height) < 320
        or max(width, height) > MAX_SIDE
        or width * height > 50_000_000
    ):
        raise UserError(
            f"--size {text}: between 320x240 and 50 megapixels, at most {MAX_SIDE} pixels a "
            "side, please"
        )
    return width, height


def photo_count(text: str) -> int:
    """An ``argparse`` type: 1 to ``MAX_COUNT`` photos."""
    value = _whole_number(text)
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"1 to {MAX_COUNT} photos, not {text[:40]}")
    return value


def seed_number(text: str) -> int:
    """An ``argparse`` type: a seed from 0 to ``MAX_SEED``."""
    value = _whole_number(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is 0 to {MAX_SEED}, not {text[:40]}")
    return value


def knot_cover(text: str) -> float:
    """An ``argparse`` type: a chance from 0 to 1."""
    try:
        value = float(text[:40])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a chance is 0 to 1, not {text[:40]}")
    return value


def table_kinds(text: str) -> frozenset[str]:
    """An ``argparse`` type: comma-separated table kinds of :data:`synth.scene.TABLE_KINDS`."""
    from synth.scene import TABLE_KINDS

    return _kinds(text, TABLE_KINDS, "table")


def light_kinds(text: str) -> frozenset[str]:
    """An ``argparse`` type: comma-separated light kinds of :data:`synth.scene.LIGHT_KINDS`."""
    from synth.scene import LIGHT_KINDS

    return _kinds(text, LIGHT_KINDS, "light")


def _kinds(text: str, known: tuple[str, ...], what: str) -> frozenset[str]:
    kinds = frozenset(kind.strip() for kind in text[:200].split(",") if kind.strip())
    unknown = sorted(kinds - set(known))
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown {what} kind {', '.join(unknown) or repr(text[:200])}; "
            f"{what} kinds are {', '.join(known)}"
        )
    return kinds


def photo_seeds(
    first: int, count: int, difficulty: str, size: tuple[int, int], cover: float,
    tables: frozenset[str] | None, lights: frozenset[str] | None = None,
) -> Iterator[int]:
    """The seeds of the photos to make: ``count`` from ``first`` on, or with ``tables``
    or ``lights`` the first ``count`` from ``first`` on whose planned photo is on one of
    those tables and under one of those lights (planning is cheap: nothing is drawn)."""
    from synth.photo import plan_photo

    if tables is None and lights is None:
        yield from range(first, first + count)
        return
    made = 0
    for seed in range(first, MAX_SEED + MAX_COUNT + 1):
        scene = plan_photo(seed, difficulty, size, cover).scene
        if (tables is None or scene.table.kind in tables) and (
            lights is None or scene.light.kind in lights
        ):
            yield seed
            made += 1
            if made == count:
                return


def _check_drawn(option: str, asked: frozenset[str], drawn: tuple[str, ...],
                 difficulty: str) -> None:
    """Refuse the kinds ``asked`` with ``option`` (``--tables`` or ``--lights``) when no
    photo of ``difficulty`` is taken so (``drawn``: the kinds it is taken with): no seed
    would do, and the search for one would never end."""
    if asked & set(drawn):
        return
    noun, way = ("table", "on") if option == "--tables" else ("light", "under")
    which = f"that {noun}" if len(asked) == 1 else f"those {noun}s"
    raise UserError(
        f"{option} {','.join(sorted(asked))}: no {difficulty} photo is taken {way} {which}; "
        f"{difficulty} photos are taken {way} {', '.join(drawn)}"
    )


def _whole_number(text: str) -> int:
    try:
        return int(text[:40])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from synth.overlay import draw_truth
    from synth.photo import make_photo
    from synth.render import encode_jpeg
    from synth.scene import light_kinds_of, table_kinds_of

    size = parse_size(args.size)
    if args.tables is not None:
        _check_drawn("--tables", args.tables, table_kinds_of(args.difficulty), args.difficulty)
    if args.lights is not None:
        _check_drawn("--lights", args.lights, light_kinds_of(args.difficulty), args.difficulty)
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = photo_seeds(args.seed, args.count, args.difficulty, size, args.knot_cover,
                        args.tables, args.lights)
    for seed in tqdm(seeds, total=args.count, desc="photos", unit="photo"):
        photo = make_photo(seed, args.difficulty, size, args.knot_cover)
        name = f"synth_{args.difficulty}_{seed:06d}"
        (args.out / f"{name}.jpg").write_bytes(photo.jpeg)
        (args.out / f"{name}.truth.json").write_text(json.dumps(photo.truth) + "\n")
        if args.overlay:
            overlay = draw_truth(photo.image, photo.truth)
            (args.out / f"{name}.overlay.jpg").write_bytes(encode_jpeg(overlay, 90))
    return 0
