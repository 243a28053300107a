"""Procedural table surfaces, evaluated directly at the table points a photo sees.

The renderer hands in the table coordinates (mm) of a coarse grid of photo pixels and
the size of the image to paint (half the photo's resolution). Table coordinates are a
smooth function of the pixel, so they are resized up from the coarse grid straight
into the lookup maps of each pattern: the texture is generated at the resolution the
photo needs everywhere, near and far, without an intermediate top-down canvas. Noise
is value noise: a small random grid, smoothed, looked up with ``cv2.remap`` at scaled
table coordinates. Broad patterns (features of a centimetre and more) are evaluated on
a four times coarser image and resized up, which looks the same for a fraction of
the cost.

Fine patterns (weave, mat grid) fade out where one pixel covers several of their
periods instead of aliasing into moiré — the job a camera's optics would do.
"""

from __future__ import annotations

import cv2
import numpy as np

from synth.scene import TableParams

__all__ = ["TableCoords", "table_albedo", "table_mix", "wrap_blur"]

_MAX_GRID = 4096  # largest noise grid side; bigger areas repeat it (BORDER_WRAP)
_LOW = 4  # broad patterns are evaluated on an image this many times smaller
_F32 = np.float32


class TableCoords:
    """Where an image of ``shape`` looks at the table, from a coarse grid.

    Parameters
    ----------
    x_mm, y_mm : ndarray, shape (rows, cols)
        Table coordinates at the centres of a coarse grid of cells covering the image
        (``cv2.resize``'s pixel-centre convention).
    footprint_mm : ndarray, shape (rows, cols)
        Size on the table (mm) of one pixel of the image to paint, on the same grid.
    shape : (height, width)
        The image to paint.
    grain_angle_deg : float
        Direction of the grain: ``u`` runs along it, ``v`` across.
    """

    def __init__(
        self,
        x_mm: np.ndarray,
        y_mm: np.ndarray,
        footprint_mm: np.ndarray,
        shape: tuple[int, int],
        grain_angle_deg: float = 0.0,
    ) -> None:
        theta = np.radians(grain_angle_deg)
        c, s = np.cos(theta), np.sin(theta)
        u = x_mm * c + y_mm * s  # along the grain / planks / weave warp
        v = y_mm * c - x_mm * s  # across
        # Shift to start at 0: noise lookups then need one multiply per axis. A
        # bilinear resize never leaves the range of the grid, so u, v >= 0 stay.
        self.u_c = (u - u.min()).astype(_F32)
        self.v_c = (v - v.min()).astype(_F32)
        self.u_max = float(self.u_c.max())
        self.v_max = float(self.v_c.max())
        self.footprint_c = np.asarray(footprint_mm, dtype=_F32)
        self.shape = (int(shape[0]), int(shape[1]))
        self.low_shape = (-(-self.shape[0] // _LOW), -(-self.shape[1] // _LOW))

    def up(self, coarse: np.ndarray, low: bool = False) -> np.ndarray:
        """Resize a smooth coarse-grid field to the image (or the low image)."""
        h, w = self.low_shape if low else self.shape
        return cv2.resize(coarse.astype(_F32), (w, h), interpolation=cv2.INTER_LINEAR)

    def from_low(self, low: np.ndarray) -> np.ndarray:
        h, w = self.shape
        return cv2.resize(low, (w, h), interpolation=cv2.INTER_LINEAR)

    @property
    def u(self) -> np.ndarray:
        return self.up(self.u_c)

    @property
    def v(self) -> np.ndarray:
        return self.up(self.v_c)

    def fade(self, period_mm: float, scale: float = 1.0) -> np.ndarray:
        """``scale`` where a pattern of ``period_mm`` is well resolved, 0 where it would
        alias (a smooth field: computed on the coarse grid)."""
        samples = period_mm / np.maximum(self.footprint_c, _F32(1e-3))
        return self.up(np.clip((samples - 1.5) / 1.5, 0.0, 1.0) * scale)

    def noise(
        self,
        rng: np.random.Generator,
        cell_u: float,
        cell_v: float,
        smooth: float = 1.0,
        low: bool = False,
        offset: float = 0.0,
    ) -> np.ndarray:
        """Smooth value noise with roughly unit variance and features ``cell`` mm apart,
        plus ``offset`` (added to the small grid: the lookup is linear).

        With ``low`` it is evaluated on the low image (use :meth:`from_low`).
        """
        nu = int(min(_MAX_GRID, self.u_max / cell_u + 4))
        nv = int(min(_MAX_GRID, self.v_max / cell_v + 4))
        grid = _noise_grid(rng, nv, nu, smooth)
        if offset:
            grid += _F32(offset)
        coarse = cv2.merge([self.u_c * _F32(1.0 / cell_u), self.v_c * _F32(1.0 / cell_v)])
        maps = self.up(coarse, low)  # one two-channel map: cheaper than two
        return np.asarray(cv2.remap(grid, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP))


def table_mix(table: TableParams, coords: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """The table's pattern: 0 for its base colour, 1 for its second colour.

    Beyond 1 or below 0 extrapolates (darker grain lines, lighter fibres); the colour
    is clipped to 0..1 afterwards (:func:`table_albedo`).

    Returns
    -------
    ndarray, shape ``coords.shape``, float32
    """
    painter = {
        "light_wood": _wood,
        "dark_wood": _wood,
        "cloth": _cloth,
        "green_felt": _felt,
        "blue_mat": _mat,
        "white_table": _white,
    }[table.kind]
    return painter(table, coords, rng)


def table_albedo(
    table: TableParams, coords: TableCoords, rng: np.random.Generator
) -> np.ndarray:
    """Colour of the bare table at the points of ``coords``.

    Returns
    -------
    ndarray, shape (H, W, 3), float32
        Display-referred colour (0..1) before lighting.
    """
    mix = table_mix(table, coords, rng)
    # Channel by channel: NumPy broadcasting over a last axis of 3 is very slow.
    channels = [
        np.clip(mix * _F32(dark - base) + _F32(base), 0.0, 1.0)
        for base, dark in zip(table.rgb, table.rgb2, strict=True)
    ]
    return np.asarray(cv2.merge(channels))


def _noise_grid(rng: np.random.Generator, rows: int, cols: int, smooth: float) -> np.ndarray:
    """A grid of Gaussian noise, blurred by ``smooth`` cells (periodically), unit variance."""
    grid = np.empty((rows, cols), _F32)
    # OpenCV's generator is several times faster than NumPy's; seeding it from ``rng``
    # keeps the result a function of the seed alone (its state is per thread).
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    cv2.randn(grid, np.zeros(1), np.ones(1))
    if smooth <= 0:
        return grid
    ksize = _ksize(smooth)
    grid = wrap_blur(grid, smooth)
    # Blurred white noise has variance sum(k^2) over the 2-D kernel.
    k = cv2.getGaussianKernel(ksize, smooth, cv2.CV_64F)
    grid *= _F32(1.0 / float(np.sum(k * k)))
    return grid


def _ksize(sigma: float) -> int:
    """The kernel size ``cv2.GaussianBlur`` picks for a float image and ``sigma``."""
    return int(np.floor(sigma * 8 + 1 + 0.5)) | 1


def wrap_blur(a: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a periodic array (cv2 has no wrap-around border for blurs)."""
    ksize = _ksize(sigma)
    pad = ksize // 2
    if a.ndim == 2 and pad < min(a.shape):
        padded = cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_WRAP)
    else:
        widths = [(pad, pad), (pad, pad)] + [(0, 0)] * (a.ndim - 2)
        padded = np.pad(a, widths, mode="wrap")
    out = cv2.GaussianBlur(padded, (ksize, ksize), sigma)
    return out[pad : pad + a.shape[0], pad : pad + a.shape[1]]


def _wood(t: TableParams, c: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """Planks of varnished wood: a tint per board, streaky grain, flecks, dark seams."""
    strength = float(t.texture_strength)
    width = float(t.plank_width_mm)
    across = c.up(c.v_c * _F32(1.0 / width))  # v in plank widths
    # Boards are 0.6–1.5 m long; their end joints are staggered from plank to plank.
    length = float(rng.uniform(600, 1500))
    n_planks = int(c.v_max / width) + 1
    n_segments = int(c.u_max / length) + 2
    small = n_planks * n_segments <= 256  # indices fit in uint8: table lookups by LUT
    index_type = np.uint8 if small else np.int32
    plank = across.astype(index_type)  # v >= 0: truncation floors
    stagger = rng.uniform(0, length, n_planks).astype(_F32)
    along = c.up(c.u_c * _F32(1.0 / length))  # along the planks, in board lengths
    along += _lookup(stagger * _F32(1.0 / length), plank)
    segment = along.astype(index_type)
    tints = rng.uniform(-0.5, 0.5, (n_planks, n_segments)).astype(_F32)
    board_index = np.multiply(plank, n_segments, dtype=index_type)
    board_index += segment
    board = _lookup(tints.ravel() * _F32(0.45 * strength), board_index)
    # Grain: noise stretched hard along the planks, at two scales, sharpened into
    # the dark streaks and flecks of pores; broad light/dark bands in each board.
    bands = c.noise(rng, 220.0, 9.0, smooth=1.0, low=True)
    mix = board
    mix += c.from_low(bands * _F32(0.12 * strength) + _F32(0.1 * strength))
    streaks = np.maximum(c.noise(rng, 45.0, 1.1, smooth=0.8, offset=-0.4), _F32(0.0))
    cv2.accumulateProduct(streaks, c.fade(2.5, 0.45 * strength), mix)
    flecks = np.maximum(c.noise(rng, 9.0, 0.6, smooth=0.6, offset=-0.9), _F32(0.0))
    cv2.accumulateProduct(flecks, c.fade(1.2, 0.5 * strength), mix)
    # Dark, soft seams between boards (side seams and end joints): 1 on the seam,
    # falling to 0 at ``gap`` mm from it.
    side = _seam_distance(across, plank, width)
    end = _seam_distance(along, segment, length)
    seam = np.minimum(side, end, out=side)
    cv2.multiply(seam, c.up(-1.3 / (0.6 + c.footprint_c)), dst=seam)
    seam += _F32(1.3)
    np.clip(seam, 0.0, 1.3, out=seam)
    mix += seam
    return mix


def _seam_distance(pos: np.ndarray, index: np.ndarray, size: float) -> np.ndarray:
    """Distance (mm) to the nearest multiple of ``size`` from ``pos`` (in units of
    ``size``, whose integer part is ``index``)."""
    frac = cv2.subtract(pos, index, dtype=cv2.CV_32F)  # 0..1 across the board
    # size * min(f, 1 - f) = size * (0.5 - |f - 0.5|)
    frac = cv2.absdiff(frac, 0.5)  # type: ignore[call-overload]
    return np.asarray(cv2.addWeighted(frac, -size, frac, 0.0, 0.5 * size))


def _lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[index]`` for a small table: a LUT when it fits, else a gather."""
    if index.dtype == np.uint8:
        lut = np.zeros(256, _F32)
        lut[: len(table)] = table
        return cv2.LUT(index, lut)
    return np.take(table, index)


def _cloth(t: TableParams, c: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """A plain woven cloth: soft folds, uneven yarn, a weave where resolvable."""
    strength = float(t.texture_strength)
    low = c.noise(rng, 120.0, 60.0, smooth=1.5, low=True) * _F32(0.35 * strength)
    low += c.noise(rng, 12.0, 12.0, low=True) * _F32(0.05 * strength)
    period = float(rng.uniform(0.8, 1.6))
    k = _F32(2 * np.pi / period)
    fade = c.fade(period, strength)
    # Over-under weave: warp and weft threads alternate, a checker of tiny bumps.
    weave = np.sin(c.u * k)
    weave *= np.sin(c.v * k)
    weave *= _F32(0.3)
    # Slubs: threads thicker or thinner for a few millimetres along their length.
    yarn = c.noise(rng, 8.0, period)
    yarn += c.noise(rng, period, 8.0)
    yarn *= _F32(0.12)
    weave += yarn
    mix = c.from_low(low)
    cv2.accumulateProduct(weave, fade, mix)
    return mix


def _felt(t: TableParams, c: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """Green felt: fuzzy, matte, with slow mottling where it was brushed differently."""
    strength = float(t.texture_strength)
    mottle = c.noise(rng, 40.0, 40.0, smooth=1.5, low=True)
    mix = c.from_low(mottle * _F32(0.35 * strength) + _F32(0.3))
    fuzz = c.noise(rng, 0.9, 0.9, smooth=0.6)
    cv2.accumulateProduct(fuzz, c.fade(0.9, 0.3 * strength), mix)
    nap = c.noise(rng, 8.0, 3.0)
    cv2.scaleAdd(nap, 0.15 * strength, mix, dst=mix)
    return mix


def _mat(t: TableParams, c: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """Blue play mat (neoprene speckle) or cutting mat (light grid lines)."""
    strength = float(t.texture_strength)
    mottle = c.noise(rng, 60.0, 60.0, smooth=1.5, low=True)
    mix = c.from_low(mottle * _F32(0.25 * strength) + _F32(0.3))
    speckle = c.noise(rng, 0.7, 0.7, smooth=0.5)
    cv2.accumulateProduct(speckle, c.fade(0.7, 0.25 * strength), mix)
    if t.grid_mm > 0:
        g = float(t.grid_mm)
        # Distances to the nearest grid line, in grid periods: thin lines every
        # ``g`` mm, thick ones every 5 g; a line is about 0.4 mm plus a pixel wide.
        fu, fv = c.up(c.u_c * _F32(1.0 / g)), c.up(c.v_c * _F32(1.0 / g))
        thin = np.minimum(_to_nearest_integer(fu.copy()), _to_nearest_integer(fv.copy()))
        fu *= _F32(0.2)
        fv *= _F32(0.2)
        thick = np.minimum(_to_nearest_integer(fu), _to_nearest_integer(fv))
        half = 0.2 + 0.5 * c.footprint_c  # mm, coarse
        cv2.multiply(thin, c.up(g / half), dst=thin)
        cv2.multiply(thick, c.up(5 * g / (2 * half)), dst=thick)
        # 0.6 * clip(1 - d, 0, 1) for thin lines, clip(1 - d, 0, 1) for thick ones.
        thin = cv2.addWeighted(thin, -0.6, thin, 0.0, 0.6)
        thick = cv2.addWeighted(thick, -1.0, thick, 0.0, 1.0)
        line = np.maximum(thin, thick, out=thin)
        np.maximum(line, _F32(0.0), out=line)
        # Grid lines are printed lighter than the mat: negative mix brightens.
        cv2.scaleAdd(line, -2.5, mix, dst=mix)
    return mix


def _to_nearest_integer(a: np.ndarray) -> np.ndarray:
    """``|a - round(a)|``, in place."""
    r = np.rint(a)
    np.subtract(a, r, out=a)
    return np.asarray(np.abs(a, out=a))


def _white(t: TableParams, c: TableCoords, rng: np.random.Generator) -> np.ndarray:
    """A white laminate table: almost featureless, a little uneven."""
    strength = float(t.texture_strength)
    slow = c.noise(rng, 150.0, 150.0, smooth=1.5, low=True)
    mix = c.from_low(slow * _F32(0.2 * strength) + _F32(0.2))
    fine = c.noise(rng, 2.0, 2.0)
    cv2.accumulateProduct(fine, c.fade(2.0, 0.05 * strength), mix)
    return mix
