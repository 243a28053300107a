"""Cotton cords drawn straight into the photo: geometry, shading, crossings, knots.

A cord is traced as a band of pixels around its projected centre line. For every pixel
of the band we find the nearest segment of the line, which gives the signed distance
across the cord, the arc length along it and the table-frame direction of the cord;
from those follow the cylinder's surface normal (for shading), the twisted plies
(diagonal stripes) and an anti-aliased edge. Working in photo pixels rather than on a
top-down canvas keeps the cost proportional to what the photo shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synth.camera import Camera
from synth.lighting import Lighting
from synth.solids import Spheroid, composite_front_to_back, raycast

__all__ = ["CordBand", "trace_cord", "shade_cord", "knot_geometry", "shade_knot"]

_SUBPIXEL = 3  # cv2 drawing: coordinates carry 3 fractional bits


@dataclass(frozen=True)
class CordBand:
    """Pixels around one cord and where each lies relative to the cord.

    ``idx`` are flat indices into the photo, ``xy`` their pixel coordinates; ``across``
    is the signed distance from the centre line in units of the local half-width
    (|across| <= 1 is on the cord), ``half_px`` that half-width in pixels, ``along_mm``
    the arc length from the cord's start and ``normal`` the table-frame unit vector
    across the cord (pointing to positive ``across``).
    """

    idx: np.ndarray
    xy: np.ndarray
    across: np.ndarray
    half_px: np.ndarray
    along_mm: np.ndarray
    normal: np.ndarray


def trace_cord(
    camera: Camera,
    points_mm: np.ndarray,
    radius_mm: float | np.ndarray,
    closed: bool,
    margin: float = 1.0,
    along_start_mm: float = 0.0,
    caps: bool = True,
) -> CordBand | None:
    """Find the photo pixels within ``(1 + margin)`` half-widths of a cord.

    Parameters
    ----------
    camera : Camera
    points_mm : ndarray, shape (N, 2)
        Centre line on the table.
    radius_mm : float or ndarray, shape (N,)
        Cord radius, optionally per vertex (tapered tails).
    closed : bool
        Whether the last point connects back to the first.
    margin : float
        Extra band width beyond the cord, in half-widths (room for shadows).
    along_start_mm : float
        Arc length at the first point, so a piece of a cord keeps its texture.
    caps : bool
        For an open line, whether to include the round caps beyond its ends.

    Returns
    -------
    CordBand or None
        ``None`` when the cord is entirely outside the photo.
    """
    pts = np.asarray(points_mm, dtype=np.float64)
    radius = np.broadcast_to(np.asarray(radius_mm, dtype=np.float64), (len(pts),))
    if closed:
        pts = np.vstack([pts, pts[:1]])
        radius = np.append(radius, radius[0])
    # The cord's axis lies one radius above the table.
    axis = np.column_stack([pts, radius])
    uv = camera.project(axis)
    half_px = radius * camera.focal_px / np.maximum(camera.depth(axis), 1.0)
    seg_mm = np.diff(pts, axis=0)
    seg_len = np.maximum(np.linalg.norm(seg_mm, axis=1), 1e-9)
    along0 = along_start_mm + np.concatenate([[0.0], np.cumsum(seg_len)])
    normal = np.column_stack([-seg_mm[:, 1], seg_mm[:, 0]]) / seg_len[:, None]

    reach = half_px * (1.0 + margin) + 1.0
    found = _band(uv, reach, camera.size)
    if found is None:
        return None
    xs, ys, label = found
    nseg = len(uv) - 1
    px, py = xs.astype(np.float32), ys.astype(np.float32)
    ax, ay = uv[:-1, 0].astype(np.float32), uv[:-1, 1].astype(np.float32)
    ex, ey = np.diff(uv[:, 0]).astype(np.float32), np.diff(uv[:, 1]).astype(np.float32)
    inv_l2 = (1.0 / np.maximum(ex * ex + ey * ey, 1e-6)).astype(np.float32)
    # A pixel's label is the last segment drawn over it; its nearest segment is that
    # one or one of the few before it that also reach it.
    seg_px = float(np.sqrt(np.median(1.0 / inv_l2)))
    lookback = int(min(np.ceil(2 * reach.max() / max(seg_px, 0.5)) + 1, 8))
    best_d2 = np.full(len(px), np.inf, np.float32)
    best_cross = np.zeros(len(px), np.float32)
    best_tau = np.zeros(len(px), np.float32)
    best_seg = np.zeros(len(px), np.int64)
    for k in range(lookback + 1):
        s = (label - k) % nseg if closed else np.maximum(label - k, 0)
        dx, dy = px - ax[s], py - ay[s]
        sx, sy = ex[s], ey[s]
        tau = np.clip((dx * sx + dy * sy) * inv_l2[s], 0.0, 1.0)
        ox, oy = dx - tau * sx, dy - tau * sy
        d2 = ox * ox + oy * oy
        better = d2 < best_d2
        best_d2 = np.where(better, d2, best_d2)
        best_cross = np.where(better, sx * dy - sy * dx, best_cross)
        best_tau = np.where(better, tau, best_tau)
        best_seg = np.where(better, s, best_seg)
    dist = np.sqrt(best_d2)
    signed = np.where(best_cross < 0, -dist, dist)
    hw = half_px[best_seg] * (1 - best_tau) + half_px[best_seg + 1] * best_tau
    keep = dist <= hw * (1.0 + margin) + 1.0
    if not (closed or caps):
        first = (best_seg == 0) & (best_tau <= 0.0)
        last = (best_seg == nseg - 1) & (best_tau >= 1.0)
        keep &= ~(first | last)
    width = camera.size[0]
    return CordBand(
        idx=(ys[keep].astype(np.int64) * width + xs[keep]),
        xy=np.column_stack([px[keep], py[keep]]),
        across=(signed / hw)[keep],
        half_px=hw[keep],
        along_mm=(along0[best_seg] + best_tau * seg_len[best_seg])[keep],
        normal=normal[best_seg][keep],
    )


def _band(
    uv: np.ndarray, reach_px: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Pixels within ``reach_px`` of each segment, labelled with the segment index.

    Each segment is drawn as a thick line carrying its index into a label image of the
    cord's bounding window; later segments overwrite earlier ones, which the caller
    repairs by also checking a few segments before the label.
    """
    width, height = size
    reach = float(np.max(reach_px)) + 2
    x0, y0 = np.floor(uv.min(axis=0) - reach).astype(int)
    x1, y1 = np.ceil(uv.max(axis=0) + reach).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return None
    label = np.zeros((y1 - y0, x1 - x0), np.int32)
    fixed = np.round((uv - [x0, y0]) * (1 << _SUBPIXEL))
    # Keep far-off vertices in int range for cv2 (they are clipped anyway).
    fixed = np.clip(fixed, -(1 << 28), 1 << 28).astype(np.int64).tolist()
    thick = (2 * np.ceil(np.maximum(reach_px[:-1], reach_px[1:])) + 1).astype(int).tolist()
    for i in range(len(fixed) - 1):
        cv2.line(label, fixed[i], fixed[i + 1], i + 1, thick[i], cv2.LINE_8, _SUBPIXEL)
    found = cv2.findNonZero(label)
    if found is None:
        return None
    found = found.reshape(-1, 2)  # (N, 1, 2) in OpenCV 4, (N, 2) in OpenCV 5
    xs, ys = found[:, 0], found[:, 1]
    return xs + x0, ys + y0, label[ys, xs].astype(np.int64) - 1


@dataclass(frozen=True)
class CordLook:
    """How a cord looks: its colour, ply pitch and the scene's light."""

    rgb: np.ndarray
    twist_pitch_mm: float
    lighting: Lighting
    twist_phase: float = 0.0


def shade_cord(
    band: CordBand, look: CordLook, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Colour and coverage of the band's pixels.

    Returns
    -------
    rgb : ndarray, shape (n, 3)
        Lit colour (not premultiplied), before the scene's illumination gain.
    alpha : ndarray, shape (n,)
        Coverage 0..1; pixels of the band beyond the cord get 0.
    """
    n = len(band.idx)
    along = band.along_mm
    # Cotton is fuzzy: the edge wobbles slowly along the cord.
    wobble = 1.0 + 0.06 * np.sin(along * 1.7 + look.twist_phase) * np.sin(along * 0.53)
    edge_px = band.half_px * wobble - np.abs(band.across) * band.half_px
    alpha = np.clip(edge_px + 0.5, 0.0, 1.0)
    u = np.clip(band.across, -0.999, 0.999)
    up = np.sqrt(1.0 - u * u)
    normal = np.column_stack([u * band.normal[:, 0], u * band.normal[:, 1], up])
    shade = look.lighting.shade(normal)
    # Three plies wound round the cord: grooves are helices, seen as diagonal stripes.
    theta = np.arcsin(u)
    phase = 3.0 * (2 * np.pi * along / look.twist_pitch_mm - theta) + look.twist_phase
    groove = (0.5 - 0.5 * np.cos(phase)) ** 3
    plies = 1.0 - 0.38 * groove
    # The cord's edges meet the table in shade; fibres vary a little pixel by pixel.
    occlusion = 0.72 + 0.28 * up
    fibres = 1.0 + 0.05 * rng.standard_normal(n)
    dye = 1.0 + 0.04 * np.sin(along / 97.0 + look.twist_phase) * np.cos(along / 41.0)
    value = shade * plies * occlusion * fibres * dye
    rgb = look.rgb[None, :] * value[:, None]
    return rgb, alpha


def knot_geometry(
    line_mm: np.ndarray,
    knot_xy: tuple[float, float],
    diameter_mm: float,
    knot_scale: float,
    rng: np.random.Generator,
) -> tuple[list[Spheroid], list[np.ndarray]]:
    """A tie knot: a lump of small spheres on the line and two loose tails.

    Parameters
    ----------
    line_mm : ndarray, shape (N, 2)
        The loop the knot sits on (to find its direction there).
    knot_xy : (x, y)
        Knot position.
    diameter_mm : float
        Cord diameter.
    knot_scale : float
        Knot size in cord diameters (about 3).
    rng : numpy.random.Generator

    Returns
    -------
    lumps : list of Spheroid
    tails : list of ndarray, shape (M, 2)
        Open centre lines of the tails, starting inside the knot.
    """
    centre = np.asarray(knot_xy, dtype=np.float64)
    i = int(np.argmin(np.linalg.norm(line_mm - centre, axis=1)))
    n = len(line_mm)
    tangent = line_mm[(i + 3) % n] - line_mm[(i - 3) % n]
    tangent /= max(np.linalg.norm(tangent), 1e-9)
    normal = np.array([-tangent[1], tangent[0]])
    size = knot_scale * diameter_mm
    lumps = []
    for _ in range(int(rng.integers(3, 5))):
        r = size * rng.uniform(0.3, 0.42)
        off = tangent * rng.uniform(-0.28, 0.28) * size + normal * rng.uniform(-0.15, 0.15) * size
        z = r * rng.uniform(0.75, 1.0)
        lumps.append(Spheroid((centre[0] + off[0], centre[1] + off[1], z), r, r * 0.9))
    # Tails leave the knot sideways: both to one side (a "Y") or one to each side.
    same_side = rng.random() < 0.5
    tails = []
    for k in range(2):
        side = 1.0 if (k == 0 or same_side) else -1.0
        spread = (0.45 if k == 0 else -0.45) if same_side else 0.0
        angle = spread + rng.normal(0, 0.3)
        base = side * normal
        direction = base * np.cos(angle) + tangent * np.sin(angle)
        length = rng.uniform(6.0, 15.0)
        bend = rng.normal(0, 0.04)  # radians per mm: tails curl a little
        steps = np.arange(0.0, length, 0.6)
        heading = np.arctan2(direction[1], direction[0]) + bend * steps
        start = centre + tangent * rng.uniform(-0.15, 0.15) * size
        path = start + np.column_stack(
            [np.cumsum(np.cos(heading) * 0.6), np.cumsum(np.sin(heading) * 0.6)]
        )
        tails.append(np.vstack([start, path]))
    return lumps, tails


def shade_knot(
    camera: Camera,
    lumps: list[Spheroid],
    look: CordLook,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Render the knot's lumps: returns flat pixel indices, premultiplied RGB, alpha."""
    hits = raycast(camera, lumps)
    if hits is None:
        return None
    colours = []
    for k, part in enumerate(lumps):
        local = hits.point[k] - np.asarray(part.centre)
        # Strands wrapping each lump: stripes across a random direction.
        w = rng.normal(size=3)
        w /= np.linalg.norm(w)
        phase = local @ w * (2 * np.pi * 3 / look.twist_pitch_mm) + look.twist_phase
        strands = 1.0 - 0.35 * (0.5 - 0.5 * np.cos(phase)) ** 3
        shade = look.lighting.shade(hits.normal[k])
        occl = 0.65 + 0.35 * np.clip(hits.point[k][:, 2] / (2 * part.a), 0.0, 1.0)
        colours.append(look.rgb[None, :] * (shade * strands * occl)[:, None])
    rgb, alpha = composite_front_to_back(hits.t, hits.coverage, np.array(colours))
    keep = alpha > 0.0
    idx = hits.ys[keep].astype(np.int64) * camera.size[0] + hits.xs[keep]
    return idx, rgb[keep], alpha[keep]
