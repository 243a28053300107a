"""Whether a ghost stands at a place, by a small learned classifier.

A ghost on a white or pale table, crowded by the demons of a small field's corners,
is marked faintly by the detector, or not at all (560179: a ghost plain to see between
a yellow and a green demon, no mark from 0.1). The detector looks at the whole photo
with a network small enough to be fast there. The ghost checker
(:mod:`training.train_ghost_check`, trained on generated photos with their exact
truth) looks only at a few places, where a ghost is likely: the centre of a field in
which no ghost was read (a ghost is summoned into a field's centre) and the faint ghost
mark nearest it, where the detector's eight views did not confirm that mark
(:func:`vision.combine.add_centred_ghosts`). It cuts each out as the sizer does
(:func:`vision.pawn_size.place_crop`) and gives the odds that a ghost stands there.
It is an ONNX file in ``calibration/`` (``ghostnet.onnx`` with
``ghostnet.json``) run by ONNX Runtime.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.board import Point
from vision.pawn_size import SizerModel, load_crop_model

GHOST_CHECK_PATH = Path(__file__).resolve().parents[1] / "calibration" / "ghostnet.onnx"
#: The checker answers yes where a ghost's foot lies within this many pawn widths of
#: the place (the generator's ghosts stand 0.28 pawn widths from their field's centre
#: in the median), and was taught no only where none lies within CLEAR_OF_GHOST.
GHOST_REACH = 0.5
CLEAR_OF_GHOST = 0.9


@lru_cache(maxsize=4)
def load_ghost_check(path: Path = GHOST_CHECK_PATH) -> SizerModel:
    """Load the ghost checker at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When it was trained on other crops than this reader cuts.
    """
    return load_crop_model(path, "ghost checker", "make ghost-check")


def ghost_odds(
    rgb: NDArray[np.uint8],
    places: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """The odds (0-1) that a ghost stands at each of ``places``.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo.
    places : sequence of (x, y)
        Where to look, in ``rgb``'s pixels.
    width : float
        The pawn width, in ``rgb``'s pixels.
    model : SizerModel, optional
        The bundled checker when omitted.

    Returns
    -------
    (len(places),) float32

    Raises
    ------
    ValueError
        When ``rgb`` is not an RGB image of bytes or ``width`` not a positive number
        (:func:`vision.pawn_size.place_crop`), or the bundled checker cuts other crops.
    FileNotFoundError
        When the bundled checker is missing.
    """
    return (model or load_ghost_check()).odds_at(rgb, places, width)


def turned_ghost_odds(
    rgb: NDArray[np.uint8],
    places: Sequence[Point],
    width: float,
    model: SizerModel | None = None,
) -> NDArray[np.float32]:
    """:func:`ghost_odds`, each place's crop asked about turned the eight ways a quarter
    turn and a mirror give, the network's outputs (logits) averaged before the logistic
    (``SizerModel.odds_at`` with ``turned``): eight times the work, a steadier answer
    about a few places. Parameters, result and errors as :func:`ghost_odds`."""
    return (model or load_ghost_check()).odds_at(rgb, places, width, turned=True)
