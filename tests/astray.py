"""A loop read astray beside one of its crossings: the camera's mistake the page's
"Redraw a loop" mends (tests of ``webui.edits`` and of the page in Chromium)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from engine.report import board_from_report, pawn_radius_of
from webui.edits import apply_edits


def loop_astray(
    report: dict[str, Any], colour: str, shift: float = 3.0
) -> tuple[dict[str, Any], list[list[float]]]:
    """``report`` with the ``colour`` loop pushed ``shift`` pawn radii aside over about
    eight pawn radii round its crossing with the most demons, as a camera that traced
    the cord along its shadow reads it (the crossing read aside, the demons beside it
    located again from their feet), and the stretch of the true loop a player would
    draw to mend it (a little longer than the stretch astray).

    The knot must lie away from that crossing; the stretch astray is drawn with the
    redraw edit itself, as the camera's crossing and fields would be built.
    """
    board = board_from_report(report)
    line = next(ln for ln in board.lines if ln.colour == colour)
    points = np.asarray(line.polyline, dtype=float)
    radius = pawn_radius_of(board)
    step = float(np.median(np.linalg.norm(np.diff(points, axis=0), axis=1)))
    half = max(int(round(4 * radius / step)), 3)
    demons = Counter(c.crossing for c in board.creatures if c.crossing is not None)
    clear = [
        c for c in board.crossings
        if colour in c.lines and (line.knot is None or np.hypot(*np.subtract(c.xy, line.knot))
                                  > 2 * half * step)
    ]
    crossing = max(clear, key=lambda c: demons[c.id])
    n = len(points)
    centre = int(np.argmin(np.linalg.norm(points - np.asarray(crossing.xy), axis=1)))
    tangent = points[(centre + 1) % n] - points[(centre - 1) % n]
    normal = np.array([-tangent[1], tangent[0]]) / np.linalg.norm(tangent)
    along = np.arange(-half, half + 1)
    weights = 0.5 * (1 + np.cos(np.pi * along / half))  # 0 at both ends, 1 at the crossing
    around = (centre + along) % n
    bumped = points[around] + shift * radius * weights[:, None] * normal
    astray = apply_edits(report, [{"op": "loop", "colour": colour, "path": bumped.tolist()}])
    margin = np.arange(-half - 3, half + 4)
    return astray, points[(centre + margin) % n].tolist()
