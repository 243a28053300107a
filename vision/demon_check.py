"""Whether a demon stands at a place, by a small learned classifier.

A demon of the table's hue (blue on the blue mat, green on felt) looks pale against
its table, and the detector marks it faintly in the one view and in the eight
(550183: three blue demons on the blue mat marked 0.11-0.20, 0.14-0.23 in the mean).
The place stage's rule for faint demon marks, :func:`vision.combine.add_cornered_demons`,
takes such a mark in a corner of its colour from a low mean already; the demon checker
(:mod:`training.train_demon_check`, trained on generated photos with their exact
truth) is a second cue for the marks of the table's hue that the views leave under
it, and (since the seventy-eighth session) for faint marks of any colour, a demon
half behind another. It is the sizer's network on the sizer's crops
(:func:`vision.pawn_size.place_crop`), trained to say whether a demon's foot lies
within :data:`DEMON_REACH` pawn widths of the crop's middle. It is an ONNX file in
``calibration/`` (``demonnet.onnx`` with ``demonnet.json``) run by ONNX Runtime.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from vision.pawn_size import SizerModel, load_crop_model

DEMON_CHECK_PATH = Path(__file__).resolve().parents[1] / "calibration" / "demonnet.onnx"
#: The checker answers yes where a demon's foot lies within DEMON_REACH pawn widths of
#: the place, and was taught no only where none lies within CLEAR_OF_DEMON.
DEMON_REACH = 0.5
CLEAR_OF_DEMON = 0.9


@lru_cache(maxsize=4)
def load_demon_check(path: Path = DEMON_CHECK_PATH) -> SizerModel:
    """Load the demon checker at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When it was trained on other crops than this reader cuts.
    """
    return load_crop_model(path, "demon checker", "make demon-check")


def demon_odds(
    rgb: NDArray[np.uint8],
    places: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """The odds (0-1) that a demon stands at each of ``places`` (in ``rgb``'s pixels,
    pawns ``width`` wide there): :func:`vision.ghost_check.ghost_odds`'s parameters,
    result and errors, asked of the demon checker (``model``, the bundled one when
    omitted)."""
    return (model or load_demon_check()).odds_at(rgb, places, width)
