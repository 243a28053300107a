"""Procedural table surfaces, evaluated directly at the table points a photo sees.

The renderer hands in the table coordinates (mm) of every pixel of a reduced-size
photo grid, so the texture is generated at the resolution the photo needs everywhere,
near and far, without an intermediate top-down canvas. Noise is value noise: a small
random grid, smoothed, looked up with ``cv2.remap`` at scaled table coordinates.

Fine patterns (weave, mat grid) fade out where one pixel covers several of their
periods instead of aliasing into moiré — the job a camera's optics would do.
"""

from __future__ import annotations

import cv2
import numpy as np

from synth.scene import TableParams

__all__ = ["table_albedo"]

_MAX_GRID = 4096  # largest noise grid side; bigger areas repeat it (BORDER_WRAP)


def table_albedo(
    table: TableParams,
    x_mm: np.ndarray,
    y_mm: np.ndarray,
    footprint_mm: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Colour of the bare table at the given table points.

    Parameters
    ----------
    table : TableParams
        Kind, colours and orientation of the surface.
    x_mm, y_mm : ndarray, shape (H, W), float32
        Table coordinates seen at each pixel.
    footprint_mm : ndarray, shape (H, W), float32
        Size of one pixel on the table (mm), for fading patterns finer than a pixel.
    rng : numpy.random.Generator
        Source of the noise grids.

    Returns
    -------
    ndarray, shape (H, W, 3), float32
        Display-referred colour (0..1) before lighting.
    """
    theta = np.radians(table.grain_angle_deg)
    c, s = np.float32(np.cos(theta)), np.float32(np.sin(theta))
    u = x_mm * c + y_mm * s  # along the grain / planks / weave warp
    v = y_mm * c - x_mm * s  # across
    # Shift to start at 0: noise lookups then need one multiply per axis.
    u -= np.float32(np.min(u))
    v -= np.float32(np.min(v))
    painter = {
        "light_wood": _wood,
        "dark_wood": _wood,
        "cloth": _cloth,
        "green_felt": _felt,
        "blue_mat": _mat,
        "white_table": _white,
    }[table.kind]
    mix = painter(table, u, v, footprint_mm, rng)
    # ``mix`` is 0 for the base colour and 1 for the second colour; beyond 1 or below 0
    # extrapolates (darker grain lines, lighter fibres), kept sane by the clip.
    # Channel by channel: NumPy broadcasting over a last axis of 3 is very slow.
    channels = [
        np.clip(mix * np.float32(dark - base) + np.float32(base), 0.0, 1.0)
        for base, dark in zip(table.rgb, table.rgb2, strict=True)
    ]
    return cv2.merge(channels)


def _noise(
    rng: np.random.Generator,
    u: np.ndarray,
    v: np.ndarray,
    cell_u: float,
    cell_v: float,
    smooth: float = 1.0,
) -> np.ndarray:
    """Smooth value noise with roughly unit variance and features ``cell`` mm apart.

    ``u`` and ``v`` must start at 0 (see :func:`table_albedo`).
    """
    nu = int(min(_MAX_GRID, float(u.max()) / cell_u + 4))
    nv = int(min(_MAX_GRID, float(v.max()) / cell_v + 4))
    grid = rng.standard_normal((nv, nu), dtype=np.float32)
    if smooth > 0:
        grid = wrap_blur(grid, smooth)
        grid /= max(float(grid.std()), 1e-6)
    mx = u * np.float32(1.0 / cell_u)
    my = v * np.float32(1.0 / cell_v)
    return cv2.remap(grid, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)


def wrap_blur(a: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a periodic array (cv2 has no wrap-around border for blurs)."""
    pad = int(np.ceil(3 * sigma)) + 1
    widths = [(pad, pad), (pad, pad)] + [(0, 0)] * (a.ndim - 2)
    padded = np.pad(a, widths, mode="wrap")
    return cv2.GaussianBlur(padded, (0, 0), sigma)[pad:-pad, pad:-pad]


def _fade(period_mm: float, footprint_mm: np.ndarray) -> np.ndarray:
    """1 where a pattern of ``period_mm`` is well resolved, 0 where it would alias."""
    samples = period_mm / np.maximum(footprint_mm, np.float32(1e-3))
    return np.clip((samples - np.float32(1.5)) / np.float32(1.5), 0.0, 1.0)


def _wood(t: TableParams, u, v, footprint, rng) -> np.ndarray:
    """Planks of varnished wood: a tint per board, streaky grain, flecks, dark seams."""
    strength = np.float32(t.texture_strength)
    width = np.float32(t.plank_width_mm)
    plank = (v * np.float32(1.0 / width)).astype(np.int32)  # v >= 0: truncation floors
    # Boards are 0.6–1.5 m long; their end joints are staggered from plank to plank.
    length = np.float32(rng.uniform(600, 1500))
    n_planks = int(plank.max()) + 1
    stagger = rng.uniform(0, length, n_planks).astype(np.float32)
    along = u + stagger[plank]
    segment = (along * np.float32(1.0 / length)).astype(np.int32)
    tints = rng.uniform(-0.5, 0.5, (n_planks, int(segment.max()) + 1)).astype(np.float32)
    board = tints[plank, segment]
    # Grain: noise stretched hard along the planks, at two scales, sharpened into
    # the dark streaks and flecks of pores; broad light/dark bands in each board.
    bands = _noise(rng, u, v, 220.0, 9.0, smooth=1.0)
    streaks = _noise(rng, u, v, 45.0, 1.1, smooth=0.8)
    streaks = np.maximum(streaks - np.float32(0.4), 0) * _fade(2.5, footprint)
    flecks = _noise(rng, u, v, 9.0, 0.6, smooth=0.6)
    flecks = np.maximum(flecks - np.float32(0.9), 0) * _fade(1.2, footprint)
    mix = board * 0.45 + bands * 0.12 + streaks * 0.45 + flecks * 0.5 + 0.1
    # Dark, soft seams between boards (side seams and end joints).
    dv = np.abs(v - (plank.astype(np.float32) + np.float32(0.5)) * width)
    du = np.abs(along - (segment.astype(np.float32) + np.float32(0.5)) * length)
    gap = np.float32(0.6) + footprint
    seam = np.maximum(dv - (width / 2 - gap), du - (length / 2 - gap)) / gap
    return mix * strength + np.clip(seam, 0, 1) * 1.3


def _cloth(t: TableParams, u, v, footprint, rng) -> np.ndarray:
    """A plain woven cloth: soft folds, uneven yarn, a weave where resolvable."""
    strength = np.float32(t.texture_strength)
    folds = _noise(rng, u, v, 120.0, 60.0, smooth=1.5) * 0.35
    blotch = _noise(rng, u, v, 12.0, 12.0) * 0.05
    period = float(rng.uniform(0.8, 1.6))
    k = np.float32(2 * np.pi / period)
    fade = _fade(period, footprint)
    # Over-under weave: warp and weft threads alternate, a checker of tiny bumps.
    weave = np.sin(u * k) * np.sin(v * k) * fade * 0.3
    # Slubs: threads thicker or thinner for a few millimetres along their length.
    yarn = (_noise(rng, u, v, 8.0, period) + _noise(rng, u, v, period, 8.0)) * fade * 0.12
    return (folds + blotch + weave + yarn) * strength


def _felt(t: TableParams, u, v, footprint, rng) -> np.ndarray:
    """Green felt: fuzzy, matte, with slow mottling where it was brushed differently."""
    strength = np.float32(t.texture_strength)
    mottle = _noise(rng, u, v, 40.0, 40.0, smooth=1.5) * 0.35
    fuzz = _noise(rng, u, v, 0.9, 0.9, smooth=0.6) * _fade(0.9, footprint) * 0.3
    nap = _noise(rng, u, v, 8.0, 3.0) * 0.15
    return (mottle + fuzz + nap) * strength + 0.3


def _mat(t: TableParams, u, v, footprint, rng) -> np.ndarray:
    """Blue play mat (neoprene speckle) or cutting mat (light grid lines)."""
    strength = np.float32(t.texture_strength)
    mottle = _noise(rng, u, v, 60.0, 60.0, smooth=1.5) * 0.25
    speckle = _noise(rng, u, v, 0.7, 0.7, smooth=0.5) * _fade(0.7, footprint) * 0.25
    mix = (mottle + speckle) * strength + 0.3
    if t.grid_mm > 0:
        g = np.float32(t.grid_mm)
        du = np.abs(u - np.round(u / g) * g)
        dv = np.abs(v - np.round(v / g) * g)
        half = np.float32(0.2) + footprint * 0.5
        thin = np.clip(1.0 - np.minimum(du, dv) / half, 0.0, 1.0) * 0.6
        big = np.float32(5 * t.grid_mm)
        du5 = np.abs(u - np.round(u / big) * big)
        dv5 = np.abs(v - np.round(v / big) * big)
        thick = np.clip(1.0 - np.minimum(du5, dv5) / (half * 2), 0.0, 1.0)
        # Grid lines are printed lighter than the mat: negative mix brightens.
        mix = mix - np.maximum(thin, thick) * 2.5
    return mix


def _white(t: TableParams, u, v, footprint, rng) -> np.ndarray:
    """A white laminate table: almost featureless, a little uneven."""
    strength = np.float32(t.texture_strength)
    slow = _noise(rng, u, v, 150.0, 150.0, smooth=1.5) * 0.2
    fine = _noise(rng, u, v, 2.0, 2.0) * _fade(2.0, footprint) * 0.05
    return (slow + fine) * strength + 0.2
