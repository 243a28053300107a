"""The curated sample photos in ``sample_images/``: one per kind of table and light.

Each wish names a difficulty, a table kind and an orientation; the first seed (from a
fixed start) whose scene matches is used, so the set is reproducible and spans the
variations. Run ``python -m synth.samples`` (``make samples``) after changing the
generator: the tests check that every sample is made again exactly from its seed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from synth.overlay import draw_truth
from synth.photo import PhotoPlan, make_photo, plan_photo
from synth.render import encode_jpeg

LANDSCAPE = (2016, 1512)
PORTRAIT = (1512, 2016)


@dataclass(frozen=True)
class Wish:
    name: str
    difficulty: str
    size: tuple[int, int]
    wanted: Callable[[PhotoPlan], bool]


def _table(kind: str) -> Callable[[PhotoPlan], bool]:
    return lambda plan: plan.scene.table.kind == kind


def _far_and(kind: str) -> Callable[[PhotoPlan], bool]:
    return lambda plan: plan.scene.table.kind == kind and plan.scene.extras.far_camera


def _full_and(kind: str) -> Callable[[PhotoPlan], bool]:
    return lambda plan: plan.scene.table.kind == kind and plan.board.stage == "end"


def _violations(plan: PhotoPlan) -> bool:
    return len(plan.board.planted) >= 2 and any(c.off_board for c in plan.board.board.creatures)


def _steep(plan: PhotoPlan) -> bool:
    return plan.scene.camera.tilt_deg > 28 and plan.scene.light.kind == "harsh_side"


WISHES = (
    Wish("01_easy_light_wood", "easy", LANDSCAPE, _table("light_wood")),
    Wish("02_easy_cloth", "easy", PORTRAIT, _table("cloth")),
    Wish("03_normal_dark_wood", "normal", LANDSCAPE, _far_and("dark_wood")),
    Wish("04_normal_white_table", "normal", LANDSCAPE, _table("white_table")),
    Wish("05_normal_violations", "normal", LANDSCAPE, _violations),
    Wish("06_hard_green_felt", "hard", LANDSCAPE, _full_and("green_felt")),
    Wish("07_hard_blue_mat", "hard", PORTRAIT, _table("blue_mat")),
    Wish("08_hard_steep_side_light", "hard", (4032, 3024), _steep),
)

FIRST_SEED = 1000


def find_seed(wish: Wish, taken: Collection[int] = (), tries: int = 400) -> int:
    """The first seed from ``FIRST_SEED``, not in ``taken``, whose plan fulfils ``wish``.

    A seed makes the same board at every difficulty and size, so samples that share
    one would show the same board: each sample takes a seed of its own.
    """
    for seed in range(FIRST_SEED, FIRST_SEED + tries):
        if seed not in taken and wish.wanted(plan_photo(seed, wish.difficulty, wish.size)):
            return seed
    raise RuntimeError(f"no seed in {tries} tries gives {wish.name}")


def sample_seeds() -> dict[str, int]:
    """The seed of every sample, by name: each its own."""
    seeds: dict[str, int] = {}
    for wish in WISHES:
        seeds[wish.name] = find_seed(wish, set(seeds.values()))
    return seeds


def write_samples(folder: Path) -> list[Path]:
    """Write every wished-for sample (photo + truth) into ``folder``; return the photos."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    seeds = sample_seeds()
    for wish in WISHES:
        photo = make_photo(seeds[wish.name], wish.difficulty, wish.size)
        path = folder / f"{wish.name}.jpg"
        path.write_bytes(photo.jpeg)
        path.with_suffix(".truth.json").write_text(json.dumps(photo.truth) + "\n")
        written.append(path)
    return written


def write_overlays(folder: Path, out: Path) -> None:
    """Draw each sample's truth over it, for looking at (not committed)."""
    out.mkdir(parents=True, exist_ok=True)
    for truth_path in sorted(folder.glob("*.truth.json")):
        photo = truth_path.with_name(truth_path.name.replace(".truth.json", ".jpg"))
        # Upright, as a person sees it: the truth's pixels.
        image = np.asarray(ImageOps.exif_transpose(Image.open(photo)).convert("RGB"))
        overlay = draw_truth(image, json.loads(truth_path.read_text()))
        (out / photo.name).write_bytes(encode_jpeg(overlay, 85))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path, nargs="?", default=Path("sample_images"))
    parser.add_argument("--overlays", type=Path, help="also draw the truth into this folder")
    args = parser.parse_args()
    for path in write_samples(args.folder):
        print(f"{path}  {path.stat().st_size // 1024} KB")
    if args.overlays:
        write_overlays(args.folder, args.overlays)


if __name__ == "__main__":
    main()
