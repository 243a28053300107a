"""The colour profile: what strings and pawns of each colour look like.

Colours are compared in OpenCV's 8-bit CIELAB (L* scaled to 0..255, a* and b* centred
on 0 after subtracting 128): perceptual, and separating lightness from hue, so that a
lamp hotspot or a shadow changes L* far more than the hue direction.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.colours import LINE_COLOURS

DEFAULT_PROFILE_PATH = Path(__file__).with_name("default_profile.json")
SCHEMA = "dicke-daemonen/colour-profile@1"


@dataclass(frozen=True)
class ColourProfile:
    """Hue directions of the four line colours and the thresholds of the colour stage.

    Attributes
    ----------
    hues : dict of str to (float, float)
        Typical (a*, b*) of each line colour; only the direction is used.
    min_chroma : float
        Below this chroma a pixel has no hue to speak of (grey, white, black).
    max_hue_angle_deg : float
        Largest angle between a pixel's hue and its colour's hue direction.
    min_contrast : float
        Smallest colour difference (Lab distance) from the local table for a pixel to
        count as string or pawn rather than table.
    white_min_lightness_gain : float
        How much lighter than the local table a ghost's pixel must be.
    white_max_chroma : float
        Largest chroma of a ghost's pixel.
    """

    hues: dict[str, tuple[float, float]]
    min_chroma: float
    max_hue_angle_deg: float
    min_contrast: float
    white_min_lightness_gain: float
    white_max_chroma: float

    def __post_init__(self) -> None:
        if set(self.hues) != set(LINE_COLOURS):
            raise ValueError(f"a profile names hues for exactly {', '.join(LINE_COLOURS)}")
        for colour, (a, b) in self.hues.items():
            if not (math.isfinite(a) and math.isfinite(b)) or math.hypot(a, b) < 1.0:
                raise ValueError(f"hue of {colour} must be a finite, non-zero (a*, b*) pair")
        numbers = (
            self.min_chroma,
            self.max_hue_angle_deg,
            self.min_contrast,
            self.white_min_lightness_gain,
            self.white_max_chroma,
        )
        if not all(math.isfinite(x) and x > 0 for x in numbers):
            raise ValueError("profile thresholds must be finite and positive")


def load_profile(path: str | Path | None = None) -> ColourProfile:
    """Read a colour profile from JSON (the bundled default when ``path`` is None).

    Raises
    ------
    ValueError
        If the file is not a colour profile or a value is out of range.
    """
    source = DEFAULT_PROFILE_PATH if path is None else Path(path)
    try:
        data: Any = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read colour profile {source}: {error}") from error
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"{source} is not a colour profile ({SCHEMA})")
    try:
        return ColourProfile(
            hues={c: (float(data["hues"][c][0]), float(data["hues"][c][1])) for c in LINE_COLOURS},
            min_chroma=float(data["min_chroma"]),
            max_hue_angle_deg=float(data["max_hue_angle_deg"]),
            min_contrast=float(data["min_contrast"]),
            white_min_lightness_gain=float(data["white_min_lightness_gain"]),
            white_max_chroma=float(data["white_max_chroma"]),
        )
    except (KeyError, TypeError, IndexError, ValueError) as error:
        raise ValueError(f"{source}: bad colour profile: {error}") from error
