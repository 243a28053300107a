"""Whether a knot lies at a place on a loop, by a small learned classifier.

The knot stage (:func:`vision.combine.combine_knots`) chooses each loop's knot among
the detector's knot marks on it and the tracer's lump. Beside a pawn of the loop's
colour on a tilted photo the choice goes wrong most: the pawn's base, left on its own
cord, is a lump the detector marks 0.3-0.6 as a knot, while a knot squeezed beside a
pawn is marked 0.1-0.3 (the sixty-seventh session's replays of 600 hard photos: 21 of
2400 knots wrong, 7 of them with no candidate at the knot). The knot checker
(:mod:`training.train_knot_check`, trained on generated photos with their exact truth,
many with demons put down on the knots) looks closer than the detector: the place is
cut out :data:`KNOT_CROP_PAWNS` pawn widths on a side (the pawn checkers' crops span
five), so that the knot's lump and tails are three times the string's width across,
and says whether a knot's lump lies within :data:`KNOT_REACH` pawn widths of the
middle. It is the sizer's network (:mod:`vision.pawn_size`), an ONNX file in
``calibration/`` (``knotnet.onnx`` with ``knotnet.json``) run by ONNX Runtime.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from vision.pawn_size import SizerModel, load_crop_model

KNOT_CHECK_PATH = Path(__file__).resolve().parents[1] / "calibration" / "knotnet.onnx"
#: The checker's crops span this many pawn widths (a knot's lump is about a third of a
#: pawn wide).
KNOT_CROP_PAWNS = 3.0
#: The checker answers yes where a knot's lump lies within KNOT_REACH pawn widths of the
#: place (the detector places a knot mark within about 0.2), and was taught no only
#: where none lies within CLEAR_OF_KNOT.
KNOT_REACH = 0.3
CLEAR_OF_KNOT = 0.7


@lru_cache(maxsize=4)
def load_knot_check(path: Path = KNOT_CHECK_PATH) -> SizerModel:
    """Load the knot checker at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When it was trained on other crops than this reader cuts.
    """
    return load_crop_model(path, "knot checker", "make knot-check", KNOT_CROP_PAWNS)


def knot_odds(
    rgb: NDArray[np.uint8],
    places: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """The odds (0-1) that a knot lies at each of ``places`` (in ``rgb``'s pixels, pawns
    ``width`` wide there): :func:`vision.ghost_check.ghost_odds`'s parameters, result
    and errors, asked of the knot checker (``model``, the bundled one when omitted)."""
    return (model or load_knot_check()).odds_at(rgb, places, width)


def turned_knot_odds(
    rgb: NDArray[np.uint8],
    places: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """:func:`knot_odds`, each place's crop asked about turned the eight ways a quarter
    turn and a mirror give, the network's outputs (logits) averaged before the logistic
    (``SizerModel.odds_at`` with ``turned``): eight times the work, a steadier second
    opinion on a few places. Parameters, result and errors as :func:`knot_odds`."""
    return (model or load_knot_check()).odds_at(rgb, places, width, turned=True)
