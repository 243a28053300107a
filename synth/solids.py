"""Ray casting of small unions of spheroids: pawns and knot lumps.

A pawn is a squat spheroid body with a spherical head; a knot is a cluster of small
spheres. Spheroids (ellipsoids with a vertical axis of symmetry) have closed-form ray
intersections, so every pixel of a pawn gets an exact surface point and normal in one
vectorised pass, with analytic anti-aliasing: a ray that just misses a spheroid still
gets its closest point, and a coverage from how far (in pixels) it passed the edge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synth.camera import Camera

__all__ = ["Spheroid", "Hits", "raycast", "composite_front_to_back"]


@dataclass(frozen=True)
class Spheroid:
    """An ellipsoid with horizontal radius ``a`` and vertical semi-axis ``c`` (mm).

    Anything of it below the table (z < 0) is cut away.
    """

    centre: tuple[float, float, float]
    a: float
    c: float

    def bounds(self) -> np.ndarray:
        """The 8 corners of its bounding box above the table, shape (8, 3)."""
        x, y, z = self.centre
        zs = (max(z - self.c, 0.0), z + self.c)
        return np.array(
            [
                (x + sx * self.a, y + sy * self.a, zz)
                for sx in (-1, 1)
                for sy in (-1, 1)
                for zz in zs
            ]
        )


@dataclass(frozen=True)
class Hits:
    """Per-pixel intersections of the rays of an image window with K spheroids.

    ``ys``, ``xs`` are the window's pixel coordinates (n,); the other arrays are per
    spheroid: ``t`` (K, n) distance along the ray, ``coverage`` (K, n) in 0..1,
    ``point`` and ``normal`` (K, n, 3) in table millimetres.
    """

    ys: np.ndarray
    xs: np.ndarray
    t: np.ndarray
    coverage: np.ndarray
    point: np.ndarray
    normal: np.ndarray


def raycast(camera: Camera, parts: list[Spheroid]) -> Hits | None:
    """Intersect the camera's rays with each spheroid over their common image window.

    Returns ``None`` when the solids are outside the photo or behind the camera.
    """
    corners = np.concatenate([p.bounds() for p in parts])
    if np.any(camera.depth(corners) <= 1.0):
        return None
    uv = camera.project(corners)
    width, height = camera.size
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return None
    # Rays of the window's pixels, one array per component.
    d = camera.window_rays(x0, x1, y0, y1)
    o = camera.centre_mm
    # Size of one pixel per mm of ray length, for anti-aliasing the silhouette.
    px_angle = 1.0 / camera.focal_px
    # Each part is intersected over its own part of the window (a pawn's head covers
    # only the top of it); elsewhere it is missed.
    shape = (y1 - y0, x1 - x0)
    t = np.full((len(parts),) + shape, 1e6)  # far behind: sorts last, stays finite
    coverage = np.zeros((len(parts),) + shape)
    for k, part in enumerate(parts):
        pu = uv[8 * k : 8 * k + 8]
        r0, c0 = (np.floor(pu.min(axis=0)).astype(int) - 2 - [x0, y0])[::-1]
        r1, c1 = (np.ceil(pu.max(axis=0)).astype(int) + 3 - [x0, y0])[::-1]
        sub = np.s_[max(r0, 0) : max(min(r1, shape[0]), 0), max(c0, 0) : max(min(c1, shape[1]), 0)]
        t[k][sub], coverage[k][sub] = _intersect(
            o, (d[0][sub], d[1][sub], d[2][sub]), part, px_angle
        )
    t, coverage = t.reshape(len(parts), -1), coverage.reshape(len(parts), -1)
    # Keep only pixels some part covers: the window's corners are mostly table.
    hit = np.flatnonzero(coverage.max(axis=0) > 0.0)
    if len(hit) == 0:
        return None
    ys, xs = np.divmod(hit, x1 - x0)
    dh = [c.ravel()[hit] for c in d]
    t = t[:, hit]
    coverage = coverage[:, hit]
    # Surface points and normals only where a part shows; elsewhere they stay at the
    # origin, facing up (their coverage is 0, so they are never seen).
    point = np.zeros((len(parts), len(hit), 3))
    normal = np.zeros((len(parts), len(hit), 3))
    normal[:, :, 2] = 1.0
    for k, part in enumerate(parts):
        seen = np.flatnonzero(coverage[k] > 0.0)
        centre = np.asarray(part.centre, dtype=np.float64)
        squash = (1.0, 1.0, (part.a / part.c) ** 2)
        tk = t[k, seen]
        at = np.column_stack([o[i] + tk * dh[i][seen] for i in range(3)])
        towards = (at - centre) * squash
        towards /= np.maximum(np.sqrt(np.einsum("ij,ij->i", towards, towards)), 1e-9)[:, None]
        point[k, seen] = at
        normal[k, seen] = towards
    return Hits(ys + y0, xs + x0, t, coverage, point, normal)


def _intersect(
    o: np.ndarray, d: tuple[np.ndarray, np.ndarray, np.ndarray], part: Spheroid, px_angle: float
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest intersection of rays ``o + t d`` with one spheroid (or closest approach).

    Returns the distance ``t`` along each ray and the coverage of its pixel.
    """
    dx, dy, dz = d
    k = part.a / part.c
    # Squash z so the spheroid becomes a sphere of radius a.
    ox, oy, oz = o[0] - part.centre[0], o[1] - part.centre[1], (o[2] - part.centre[2]) * k
    dkz = dz * k
    A = dx * dx + dy * dy + dkz * dkz
    B = dx * ox + dy * oy + dkz * oz
    C = ox * ox + oy * oy + oz * oz - part.a**2
    inv_a = 1.0 / A
    t_mid = -B * inv_a  # closest approach of the ray to the centre (squashed space)
    b2 = B * B
    closest2 = C + part.a**2 - b2 * inv_a  # squared distance there
    disc = np.maximum(b2 - A * C, 0.0)
    t = t_mid - np.sqrt(disc) * inv_a
    miss_mm = part.a - np.sqrt(np.maximum(closest2, 0.0))
    root_a = np.sqrt(A)
    footprint = np.maximum(t_mid, 1.0) * px_angle  # mm per pixel, along the unsquashed ray
    coverage = np.clip(miss_mm / (footprint * root_a) + 0.5, 0.0, 1.0)
    # The table hides whatever of the spheroid is below it.
    z = o[2] + t * dz
    coverage *= np.clip(z / footprint + 0.5, 0.0, 1.0)
    return t, coverage


def composite_front_to_back(
    t: np.ndarray, coverage: np.ndarray, colour: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Blend K layers per pixel, nearest first.

    Parameters
    ----------
    t, coverage : ndarray, shape (K, n)
    colour : ndarray, shape (K, n, 3)

    Returns
    -------
    rgb : ndarray, shape (n, 3)
        Colour premultiplied by ``alpha``.
    alpha : ndarray, shape (n,)
    """
    if len(t) == 2:  # the common case (a pawn): no sort needed
        near = t[1] < t[0]
        front = np.where(near, coverage[1], coverage[0])
        back = np.where(near, coverage[0], coverage[1])
        back *= 1.0 - front
        near3 = near[:, None]
        rgb = np.where(near3, colour[1], colour[0]) * front[:, None]
        rgb += np.where(near3, colour[0], colour[1]) * back[:, None]
        return rgb, front + back
    order = np.argsort(t, axis=0)
    cols = np.arange(t.shape[1])
    rgb = np.zeros(colour.shape[1:], dtype=np.float64)
    alpha = np.zeros(t.shape[1], dtype=np.float64)
    for layer in order:
        cov = coverage[layer, cols]
        w = (1.0 - alpha) * cov
        rgb += w[:, None] * colour[layer, cols]
        alpha += w
    return rgb, alpha
