"""A demon's colour by its pixels, where the detector is torn between two.

The detector tells demon colours apart almost always (kind and colour right for 99.9 %
of the pawns it matches), but not a light blue demon under a harsh, overexposed side
light on a white table: 1510136 and 1520142 (generated; their blue pawns 0.16-0.17,
0.39-0.40, 0.74-0.75 in linear RGB) had five blue demons marked green 0.47-0.64, each
marked blue too at the same place, 0.39-0.56. The colour rules' pixels have no doubt
there: a third to a tenth of such a demon's body labelled blue and none green, where a
true green demon's body is half green and none blue. So where the detector marks a demon
in a second colour at the same place, and the colour rules find none of the demon's
colour in its body but some of the second's, the pixels' colour is taken. Over six
generated sets (1470000-1520000, 1200 photos) a demon read was marked from RIVAL_MARK in
a second colour at 19 places: the five above, recoloured, and fourteen true to their
colour, none of whose bodies held any of the second colour (one none of its own either:
1510165, a red demon in shadow marked yellow 0.30).

A demon of the table's hue keeps its colour: against its table (green felt, the blue
mat) its pixels are labelled table, not its colour.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from engine.colours import DEMON
from vision.colour import LABEL_COLOURS
from vision.creatures import Pawns, Remark, SeenPawn
from vision.detect import SAME_PAWN, Detection, Detections
from vision.parts import disc_window

#: A mark of another demon colour this strong, within SAME_PAWN pawn widths of a
#: demon's foot, puts the demon's colour in doubt (the blue demons above were marked
#: blue 0.39-0.56; from 0.2 no more demons would have been recoloured over the six sets).
RIVAL_MARK = 0.3
#: The demon's body: a disc BODY_RADIUS pawn widths in radius, its centre BODY_RISE
#: pawn widths above the foot (a pawn stands up from its foot in an upright photo).
BODY_RISE = 0.4
BODY_RADIUS = 0.45
#: The rival colour is taken where at most OWN_SHARE_AT_MOST of the body is labelled
#: the demon's colour and at least RIVAL_SHARE the rival's.
OWN_SHARE_AT_MOST = 0.01
RIVAL_SHARE = 0.05


def recoloured_by_pixels(
    pawns: Pawns,
    detections: Detections,
    labels: NDArray[np.uint8],
    table_hue_colour: str | None = None,
) -> Pawns:
    """``pawns``, each demon the detector also marks in another colour given that
    colour where the colour rules' pixels say so (see the module's docstring).

    Parameters
    ----------
    pawns : Pawns
        The pawns read so far (working pixels).
    detections : Detections
        The detector's marks in the same photo.
    labels : (H, W) uint8
        The colour rules' label of each pixel (:attr:`vision.colour.ColourMasks.labels`).
    table_hue_colour : str, optional
        The line colour whose hue an even table has; a demon of it keeps its colour.

    Returns
    -------
    Pawns
        ``pawns`` itself where no demon changes colour; otherwise a copy with the
        changed demons as sure as the mark of their new colour, and for each a warning
        in place of any that named it in its old colour.

    Raises
    ------
    ValueError
        If ``labels`` is not a 2-D image.
    """
    if labels.ndim != 2:
        raise ValueError(f"labels must be a 2-D image, not of shape {labels.shape}")
    width = pawns.pawn_width
    marks = [m for m in detections.pawns(min_score=RIVAL_MARK) if m.kind == DEMON]
    result: list[SeenPawn] = []
    warnings = list(pawns.warnings)
    for pawn in pawns.pawns:
        rivals = _rival_marks(pawn, marks, width, table_hue_colour)
        rival = next((m for m in rivals if _pixels_say(labels, pawn, m.colour, width)), None)
        if rival is not None:
            # What was said of the demon before names the colour it no longer has.
            warnings = [w for w in warnings if not _said_of(w, pawn, width)]
            warnings.append(Remark(
                f"a demon at {{at}} read as {rival.colour} by its pixels, marked"
                f" {pawn.colour} by its shape",
                pawn.foot,
            ))
            pawn = replace(pawn, colour=rival.colour, confidence=round(rival.score, 2))
        result.append(pawn)
    if result == pawns.pawns:
        return pawns
    return Pawns(result, pawn_width=pawns.pawn_width, warnings=warnings)


def _said_of(remark: Remark, pawn: SeenPawn, width: float) -> bool:
    """Whether ``remark`` names ``pawn``: a demon of its colour at its foot (within
    SAME_PAWN pawn widths)."""
    return (
        remark.at is not None
        and math.dist(remark.at, pawn.foot) < SAME_PAWN * width
        and f"{pawn.colour} {DEMON}" in remark.text
    )


def _rival_marks(
    pawn: SeenPawn, marks: list[Detection], width: float, table_hue_colour: str | None
) -> list[Detection]:
    """The demon marks of other colours than ``pawn``'s within SAME_PAWN pawn widths
    of its foot, strongest first, if ``pawn`` is a demon not of the table's hue."""
    if pawn.kind != DEMON or pawn.colour == table_hue_colour:
        return []
    near = [
        m for m in marks
        if m.colour != pawn.colour and math.dist(m.xy, pawn.foot) < SAME_PAWN * width
    ]
    return sorted(near, key=lambda m: -m.score)


def _pixels_say(labels: NDArray[np.uint8], pawn: SeenPawn, rival: str, width: float) -> bool:
    """Whether the colour rules label none of ``pawn``'s body its colour (at most
    OWN_SHARE_AT_MOST) and some of it ``rival`` (at least RIVAL_SHARE)."""
    x, y = pawn.foot
    box, disc = disc_window(labels.shape, (x, y - BODY_RISE * width), BODY_RADIUS * width)
    body = labels[box][disc]
    if body.size == 0:
        return False
    own = float(np.mean(body == LABEL_COLOURS.index(pawn.colour)))
    other = float(np.mean(body == LABEL_COLOURS.index(rival)))
    return own <= OWN_SHARE_AT_MOST and other >= RIVAL_SHARE
