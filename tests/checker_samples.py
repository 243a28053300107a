"""The sample photos as the checkers' tests look at them (vision.ghost_check,
vision.demon_check): at working resolution, with the truth's places in its pixels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


def sample(name: str) -> tuple[np.ndarray, dict, float, float]:
    """A sample photo at working resolution, its truth, its scale and the truth's pawn
    width in working pixels."""
    from vision.load import load_photo

    photo = load_photo(SAMPLES / f"{name}.jpg")
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text())
    width = float(np.median([c["pawn_px"] for c in truth["creatures"]])) / photo.scale
    return photo.rgb, truth, photo.scale, width


def working(xy: list[float], scale: float) -> tuple[float, float]:
    """A point of the original photo in working pixels."""
    return ((xy[0] + 0.5) / scale - 0.5, (xy[1] + 0.5) / scale - 0.5)


def table_beside(feet: np.ndarray, width: float) -> list[tuple[float, float]]:
    """The table two pawn widths to the side of each of ``feet``, where none stands."""
    return [
        (x + dx * width, y + dy * width)
        for x, y in feet
        for dx, dy in ((2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0))
        if np.min(np.hypot(*(feet - (x + dx * width, y + dy * width)).T)) > 1.2 * width
    ]
