"""Draw a board report (CONTRACT shape, photo pixels) over a photo, for looking at it.

Works from the JSON dict alone, so it shows the ground truth of a synthetic photo and
the scorer's answer on a real one the same way.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from shapely.geometry import Polygon

__all__ = ["draw_truth", "OVERLAY_RGB"]

#: Drawing colours (RGB) of the five creature colours.
OVERLAY_RGB: dict[str, tuple[int, int, int]] = {
    "red": (230, 40, 40),
    "yellow": (250, 210, 20),
    "green": (30, 180, 70),
    "blue": (40, 90, 240),
    "white": (255, 255, 255),
}
_BLACK = (0, 0, 0)
_GREY = (150, 150, 150)
_VIOLATION = (255, 0, 0)
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def draw_truth(image: np.ndarray, truth: dict[str, Any]) -> np.ndarray:
    """Return a copy of ``image`` (RGB uint8) with the board report drawn on it.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), uint8
        The photo, RGB.
    truth : dict
        A board report as printed by ``dicke-daemonen score --json`` (or a synthetic
        truth file): ``lines``, ``crossings``, ``fields``, ``creatures``, ``scores``,
        ``winners``, ``violations``; missing keys are skipped.

    Returns
    -------
    ndarray, shape (H, W, 3), uint8
    """
    out = np.ascontiguousarray(image.copy())
    unit = max(1, int(round(max(out.shape[:2]) / 1000)))  # line width for this size
    _draw_fields(out, truth.get("fields", []), unit)
    _draw_lines(out, truth.get("lines", {}), unit)
    _draw_crossings(out, truth.get("crossings", []), unit)
    bad = {c for v in truth.get("violations", []) for c in v.get("creatures", [])}
    _draw_creatures(out, truth.get("creatures", []), bad, unit)
    _draw_legend(out, truth, unit)
    return out


def _pts(polyline: list[Any]) -> np.ndarray:
    return np.round(np.asarray(polyline, dtype=np.float64)).astype(np.int32).reshape(-1, 1, 2)


def _xy(p: list[Any]) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))


def _text(
    img: np.ndarray,
    text: str,
    org: tuple[int, int],
    scale: float,
    colour: tuple[int, int, int],
    unit: int,
) -> None:
    """Text with a dark outline, readable on any background."""
    cv2.putText(img, text, org, _FONT, scale, _BLACK, 3 * unit, cv2.LINE_AA)
    cv2.putText(img, text, org, _FONT, scale, colour, unit, cv2.LINE_AA)


def _draw_lines(img: np.ndarray, lines: dict[str, Any], unit: int) -> None:
    for colour, line in lines.items():
        rgb = OVERLAY_RGB.get(colour, _GREY)
        poly = line.get("polyline") or []
        if len(poly) >= 2:
            cv2.polylines(img, [_pts(poly)], True, _BLACK, 3 * unit, cv2.LINE_AA)
            cv2.polylines(img, [_pts(poly)], True, rgb, unit, cv2.LINE_AA)
        knot = line.get("knot")
        if knot is not None:
            cv2.circle(img, _xy(knot), 9 * unit, _BLACK, 3 * unit, cv2.LINE_AA)
            cv2.circle(img, _xy(knot), 9 * unit, rgb, 2 * unit, cv2.LINE_AA)


def _draw_crossings(img: np.ndarray, crossings: list[Any], unit: int) -> None:
    for c in crossings:
        xy = _xy(c["xy"])
        cv2.circle(img, xy, 5 * unit, (255, 255, 255), unit, cv2.LINE_AA)
        _text(img, str(c.get("id", "")), (xy[0] + 6 * unit, xy[1] - 6 * unit), 0.4 * unit,
              (255, 255, 255), unit)


def _draw_fields(img: np.ndarray, fields: list[Any], unit: int) -> None:
    for f in fields:
        poly = f.get("polygon")
        if not poly or len(poly) < 3:
            continue
        cv2.polylines(img, [_pts(poly)], True, (235, 235, 235), 1, cv2.LINE_AA)
        shape = Polygon(poly)
        if not shape.is_valid:
            shape = shape.buffer(0)
        if shape.is_empty:
            continue
        # A point guaranteed inside, unlike the centroid of a crescent-shaped field.
        p = shape.representative_point()
        label = f"F{f.get('id', '?')}:{f.get('value', '?')}"
        _text(img, label, (int(p.x) - 12 * unit, int(p.y)), 0.45 * unit, (255, 255, 255), unit)


def _draw_creatures(img: np.ndarray, creatures: list[Any], bad: set[int], unit: int) -> None:
    r = 10 * unit
    for c in creatures:
        if c.get("xy") is None:
            continue
        xy = _xy(c["xy"])
        fill = OVERLAY_RGB.get(c.get("colour"), _GREY)
        if c.get("kind") == "ghost":
            fill = OVERLAY_RGB["white"]
        cv2.circle(img, xy, r, fill, -1, cv2.LINE_AA)
        cv2.circle(img, xy, r, _BLACK, unit, cv2.LINE_AA)
        if c.get("off_board"):
            _dashed_ring(img, xy, r + 5 * unit, _GREY, unit)
        if c.get("id") in bad:
            d = r + 3 * unit
            cv2.line(img, (xy[0] - d, xy[1] - d), (xy[0] + d, xy[1] + d), _VIOLATION, 2 * unit,
                     cv2.LINE_AA)
            cv2.line(img, (xy[0] - d, xy[1] + d), (xy[0] + d, xy[1] - d), _VIOLATION, 2 * unit,
                     cv2.LINE_AA)


def _dashed_ring(
    img: np.ndarray, xy: tuple[int, int], radius: int, colour: tuple[int, int, int], unit: int
) -> None:
    for start in range(0, 360, 30):
        cv2.ellipse(img, xy, (radius, radius), 0, start, start + 15, colour, 2 * unit, cv2.LINE_AA)


def _draw_legend(img: np.ndarray, truth: dict[str, Any], unit: int) -> None:
    scores = truth.get("scores", {})
    rows = [f"{k}: {scores[k]}" for k in ("red", "yellow", "green", "blue", "white") if k in scores]
    winners = truth.get("winners")
    if winners is not None:
        rows.append("winners: " + (", ".join(winners) or "-"))
    n_bad = len(truth.get("violations", []))
    if n_bad:
        rows.append(f"violations: {n_bad}")
    if not rows:
        return
    scale, line_h = 0.6 * unit, 24 * unit
    width = max(cv2.getTextSize(r, _FONT, scale, unit)[0][0] for r in rows) + 20 * unit
    height = line_h * len(rows) + 12 * unit
    x0, y0 = 10 * unit, 10 * unit
    # Darken the box rather than painting it opaque, so the photo shows through.
    box = img[y0 : y0 + height, x0 : x0 + width]
    box[:] = (box * 0.35).astype(np.uint8)
    for i, row in enumerate(rows):
        key = row.split(":")[0]
        colour = OVERLAY_RGB.get(key, (255, 255, 255))
        org = (x0 + 10 * unit, y0 + line_h * (i + 1))
        _text(img, row, org, scale, colour, unit)
