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

__all__ = [
    "CordBand",
    "CordLook",
    "cord_brightness",
    "cord_coverage",
    "knot_geometry",
    "shade_cord",
    "shade_knot",
    "trace_cord",
]

_SUBPIXEL = 3  # cv2 drawing: coordinates carry 3 fractional bits


@dataclass(frozen=True)
class CordBand:
    """Pixels around one cord and where each lies relative to the cord.

    ``idx`` are flat indices into the photo (ascending), ``xy`` their pixel
    coordinates; ``across`` is the signed distance from the centre line in units of
    the local half-width (|across| <= 1 is on the cord), ``half_px`` that half-width in
    pixels, ``along_mm`` the arc length from the cord's start, ``seg`` the index of the
    nearest segment of the centre line and ``seg_normal`` the table-frame unit vector
    across each segment (pointing to positive ``across``), shape (segments, 2).
    """

    idx: np.ndarray
    xy: np.ndarray
    across: np.ndarray
    half_px: np.ndarray
    along_mm: np.ndarray
    seg: np.ndarray
    seg_normal: np.ndarray

    def subset(self, keep: np.ndarray) -> CordBand:
        """The band restricted to the pixels ``keep`` (a mask or ascending indices)."""
        return CordBand(
            self.idx[keep], self.xy[keep], self.across[keep], self.half_px[keep],
            self.along_mm[keep], self.seg[keep], self.seg_normal,
        )


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
    found = _band(uv, reach, camera.size, closed, caps)
    if found is None:
        return None
    xs, ys, label = found
    px, py = xs.astype(np.float32), ys.astype(np.float32)
    seg, tau, signed = _nearest_segment(px, py, label, uv, closed)
    hw = _lerp(half_px.astype(np.float32), seg, tau)
    keep = np.abs(signed) <= hw * np.float32(1.0 + margin) + np.float32(1.0)
    if not (closed or caps):
        nseg = len(uv) - 1
        keep &= ~((seg == 0) & (tau <= 0.0))
        keep &= ~((seg == nseg - 1) & (tau >= 1.0))
    keep = np.flatnonzero(keep)
    seg, tau, hw = seg[keep], tau[keep], hw[keep]
    width = camera.size[0]
    xs, ys = xs[keep], ys[keep]
    return CordBand(
        idx=ys.astype(np.int64) * width + xs,
        xy=np.column_stack([px[keep], py[keep]]),
        across=signed[keep] / hw,
        half_px=hw,
        along_mm=_lerp(along0, seg, tau).astype(np.float32),
        seg=seg,
        seg_normal=normal,
    )


def _lerp(values: np.ndarray, seg: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Per-vertex ``values`` interpolated at ``tau`` along segments ``seg``."""
    a = values[seg]
    return np.asarray(a + (values[seg + 1] - a) * tau)


def _nearest_segment(
    px: np.ndarray, py: np.ndarray, label: np.ndarray, uv: np.ndarray, closed: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nearest segment of the polyline ``uv`` to each pixel, starting from ``label``.

    A pixel's label is its nearest segment or one close to it. Walking from the label
    towards the side the pixel projects to, while the distance keeps shrinking, finds
    the nearest; only the pixels still walking are worked on.

    Returns the segment, the position along it (0..1) and the signed distance (px).
    """
    nseg = len(uv) - 1
    ax, ay = uv[:-1, 0].astype(np.float32), uv[:-1, 1].astype(np.float32)
    ex = np.diff(uv[:, 0]).astype(np.float32)
    ey = np.diff(uv[:, 1]).astype(np.float32)
    inv_l2 = (1.0 / np.maximum(ex * ex + ey * ey, 1e-6)).astype(np.float32)

    def project(
        x: np.ndarray, y: np.ndarray, s: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        dx, dy = x - ax[s], y - ay[s]
        sx, sy = ex[s], ey[s]
        t = (dx * sx + dy * sy) * inv_l2[s]
        tc = np.clip(t, 0.0, 1.0)
        dx -= tc * sx
        dy -= tc * sy
        return t, dx * dx + dy * dy

    seg = label.astype(np.int32)
    t, d2 = project(px, py, seg)
    for step in (-1, 1):
        walking = np.flatnonzero(t < 0.0) if step < 0 else np.flatnonzero(t > 1.0)
        for _ in range(16):
            if closed:
                cand = seg[walking] + step
                cand[cand < 0] += nseg
                cand[cand >= nseg] -= nseg
            else:
                cand = seg[walking] + step
                inside = (cand >= 0) & (cand < nseg)
                walking, cand = walking[inside], cand[inside]
            if len(walking) == 0:
                break
            tw, dw = project(px[walking], py[walking], cand)
            better = dw < d2[walking]
            walking, cand, tw, dw = walking[better], cand[better], tw[better], dw[better]
            seg[walking], t[walking], d2[walking] = cand, tw, dw
            onward = tw < 0.0 if step < 0 else tw > 1.0
            walking = walking[onward]
    tau = np.clip(t, 0.0, 1.0)
    cross = ex[seg] * (py - ay[seg]) - ey[seg] * (px - ax[seg])
    dist = np.sqrt(d2)
    return seg, tau, np.where(cross < 0, -dist, dist)


def _band(
    uv: np.ndarray, reach_px: np.ndarray, size: tuple[int, int], closed: bool, caps: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Pixels within ``reach_px`` of the polyline ``uv``, labelled with a segment index.

    Each segment is drawn as a quadrilateral carrying its index into a label image of
    the cord's bounding window, its ends cut along the bisectors of the angles at the
    vertices (mitre joints): the quadrilaterals tile the band, and a pixel's label is
    its nearest segment but where rasterisation or a sharp bend decides otherwise,
    which the caller repairs. Open lines get round caps with ``caps``. Pixels come in
    row-major order, so their flat indices ascend.
    """
    width, height = size
    reach = float(np.max(reach_px)) + 2
    x0, y0 = np.floor(uv.min(axis=0) - reach).astype(int)
    x1, y1 = np.ceil(uv.max(axis=0) + reach).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return None
    # 16-bit labels when they fit: half the memory to clear and scan.
    dtype = np.uint16 if len(uv) < (1 << 16) else np.int32
    label = np.zeros((y1 - y0, x1 - x0), dtype)
    local = uv - [x0, y0]
    nseg = len(uv) - 1
    scale = 1 << _SUBPIXEL
    # Unit normals of the segments, and the mitre offsets at the vertices.
    e = np.diff(local, axis=0)
    length = np.linalg.norm(e, axis=1)
    m = np.column_stack([-e[:, 1], e[:, 0]]) / np.maximum(length, 1e-9)[:, None]
    before = np.vstack([m[-1:] if closed else m[:1], m])  # segment before each vertex
    after = np.vstack([m, m[:1] if closed else m[-1:]])  # segment after each vertex
    bisector = before + after
    bisector /= np.maximum(np.linalg.norm(bisector, axis=1), 1e-9)[:, None]
    cos_half = np.einsum("ij,ij->i", bisector, after)
    offset = bisector * ((reach_px + 1.0) / np.maximum(cos_half, 0.5))[:, None]
    left = np.round((local + offset) * scale).astype(np.int64)
    right = np.round((local - offset) * scale).astype(np.int64)
    # Keep far-off vertices in int range for cv2 (they are clipped anyway).
    quads = np.clip(
        np.stack([left[:-1], left[1:], right[1:], right[:-1]], axis=1), -(1 << 28), 1 << 28
    ).astype(np.int32)
    if not closed and caps:
        for i, s in ((0, 0), (nseg, nseg - 1)):
            centre = tuple(int(c) for c in np.round(local[i] * scale))
            r = int(np.ceil((reach_px[i] + 1.0) * scale))
            cv2.circle(label, centre, r, s + 1, -1, cv2.LINE_8, _SUBPIXEL)
    fill = cv2.fillConvexPoly
    for i in range(nseg):
        fill(label, quads[i], i + 1, cv2.LINE_8, _SUBPIXEL)
    # Where the line turns sharply the mitre is cut short: round the joint off.
    for joint in np.flatnonzero(cos_half < 0.9).tolist():
        if closed or 0 < joint < nseg:
            centre = tuple(int(c) for c in np.round(local[joint] * scale))
            r = int(np.ceil((reach_px[joint] + 1.0) * scale))
            cv2.circle(label, centre, r, min(joint, nseg - 1) + 1, -1, cv2.LINE_8, _SUBPIXEL)
    found = cv2.findNonZero(label)
    if found is None:
        return None
    found = found.reshape(-1, 2)  # (N, 1, 2) in OpenCV 4, (N, 2) in OpenCV 5
    xs, ys = found[:, 0], found[:, 1]
    labels = label.ravel()[ys * label.shape[1] + xs].astype(np.int32)
    labels -= 1
    return xs + x0, ys + y0, labels


@dataclass(frozen=True)
class CordLook:
    """How a cord looks: its colour, ply pitch and the scene's light."""

    rgb: np.ndarray
    twist_pitch_mm: float
    lighting: Lighting
    twist_phase: float = 0.0


def cord_coverage(band: CordBand, look: CordLook) -> np.ndarray:
    """Coverage 0..1 of the band's pixels by the cord (0 beyond it)."""
    along = band.along_mm
    phase = np.float32(look.twist_phase)
    # Cotton is fuzzy: the edge wobbles slowly along the cord.
    wobble = np.sin(along * np.float32(1.7) + phase)
    wobble *= np.sin(along * np.float32(0.53))
    wobble *= np.float32(0.06)
    wobble += np.float32(1.0)
    # The edge in pixels (half_px * wobble - |across| * half_px), anti-aliased.
    edge = wobble - np.abs(band.across)
    edge *= band.half_px
    edge += np.float32(0.5)
    return np.asarray(np.clip(edge, 0.0, 1.0, out=edge))


def shade_cord(
    band: CordBand, look: CordLook, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Colour and coverage of the band's pixels.

    Returns
    -------
    rgb : ndarray, shape (n, 3), float32
        Lit colour (not premultiplied), before the scene's illumination gain.
    alpha : ndarray, shape (n,), float32
        Coverage 0..1; pixels of the band beyond the cord get 0.
    """
    alpha = cord_coverage(band, look)
    value = cord_brightness(band, look, rng)
    return value[:, None] * look.rgb.astype(np.float32)[None, :], alpha


def cord_brightness(band: CordBand, look: CordLook, rng: np.random.Generator) -> np.ndarray:
    """How bright the cord is at the band's pixels: its colour is ``look.rgb`` times
    this (float32), before the scene's illumination gain."""
    f32 = np.float32
    n = len(band.idx)
    along = band.along_mm
    u = np.clip(band.across, f32(-0.999), f32(0.999))
    up = np.sqrt(f32(1.0) - u * u)
    # Surface normal (u * seg_normal, up): shading needs only its dot with the light.
    light = look.lighting
    d = light.direction
    toward = (band.seg_normal @ d[:2]).astype(np.float32)[band.seg]
    toward *= u
    toward += up * f32(d[2])
    shade = light.shade_dot(toward, up)
    # Three plies wound round the cord: grooves are helices, seen as diagonal stripes.
    theta = np.arcsin(u)
    phase = along * f32(3.0 * 2 * np.pi / look.twist_pitch_mm)
    phase -= theta * f32(3.0)
    phase += f32(look.twist_phase)
    groove = np.cos(phase)
    groove *= f32(-0.5)
    groove += f32(0.5)
    plies = groove * groove
    plies *= groove
    plies *= f32(-0.38)
    plies += f32(1.0)
    value = shade * plies
    # The cord's edges meet the table in shade; fibres vary a little pixel by pixel.
    value *= f32(0.72) + f32(0.28) * up
    fibres = rng.standard_normal(n, dtype=np.float32)
    fibres *= f32(0.05)
    fibres += f32(1.0)
    value *= fibres
    dye = np.sin(along * f32(1 / 97.0) + f32(look.twist_phase))
    dye *= np.cos(along * f32(1 / 41.0))
    dye *= f32(0.04)
    dye += f32(1.0)
    value *= dye
    return np.asarray(value)


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
