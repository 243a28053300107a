"""Light: colour, direction, shading of surfaces and the uneven light on the table.

Images are composed in display-referred values (0..1). A flat, unshadowed patch of table
at the board centre is the reference: its rendered colour is the table's base colour.
Everything else is expressed relative to it, so ``shade`` returns 1 for a surface that
faces straight up and is lit like the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synth.scene import LightParams

__all__ = ["Lighting", "kelvin_to_rgb"]


def kelvin_to_rgb(kelvin: float) -> np.ndarray:
    """Approximate RGB (0..1, max 1) of a black body at ``kelvin``.

    Uses Tanner Helland's fit to the CIE data, good to a few percent from 1000 K to
    40000 K, which is plenty for a white-balance cast.
    """
    t = np.clip(kelvin, 1000.0, 40000.0) / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * np.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return np.clip(np.array([r, g, b]) / 255.0, 0.0, 1.0)


@dataclass(frozen=True)
class Lighting:
    """Derived lighting quantities of a scene.

    Parameters
    ----------
    params : LightParams
        The sampled light.
    board_centre_mm : (x, y)
        Reference point where the table is lit exactly as its base colour.
    """

    params: LightParams
    board_centre_mm: tuple[float, float]
    #: A second, weaker light, or None; it has ``second_share`` of the direct light.
    second: LightParams | None = None
    second_share: float = 0.0

    @property
    def other(self) -> Lighting | None:
        """The second light on its own, or None."""
        if self.second is None or self.second_share <= 0.0:
            return None
        return Lighting(self.second, self.board_centre_mm)

    @property
    def direction(self) -> np.ndarray:
        """Unit vector from the board centre towards the light (table frame, z up)."""
        az, el = np.radians(self.params.azimuth_deg), np.radians(self.params.elevation_deg)
        return np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])

    @property
    def shadow_strength(self) -> float:
        """Fraction of the light a cast shadow removes (0 = no shadow)."""
        k = self.params.key_fill_ratio
        return float(0.75 * k / (k + 2.5))

    @property
    def colour_gain(self) -> np.ndarray:
        """RGB gain for the light's colour left over after auto white balance.

        Includes the exposure; normalised so the mean of the three gains is the
        exposure.
        """
        cast = kelvin_to_rgb(self.params.temperature_k) / kelvin_to_rgb(6500.0)
        residual = cast ** (1.0 - self.params.awb_correction)
        return np.asarray(residual / residual.mean() * self.params.exposure)

    def shadow_offset(self, height_mm: float | np.ndarray) -> np.ndarray:
        """Horizontal displacement (mm) of the shadow of a point ``height_mm`` high."""
        d = self.direction
        h = np.asarray(height_mm, dtype=float)
        # Shadows fall away from the light, one cot(elevation) per unit of height.
        return np.asarray(-np.multiply.outer(h, d[:2] / max(d[2], 0.05)))

    def penumbra_mm(self, height_mm: float) -> float:
        """Blur (Gaussian sigma, mm) of the shadow edge of an occluder ``height_mm`` high.

        The penumbra is as wide as the light source seen from the shadow; a Gaussian
        of half that width matches its 10–90% ramp.
        """
        size = np.radians(self.params.source_size_deg)
        el = np.radians(max(self.params.elevation_deg, 5.0))
        return float(0.5 * height_mm * np.tan(size) / np.sin(el))

    def shade(self, normals: np.ndarray) -> np.ndarray:
        """Brightness of surfaces with unit ``normals`` (..., 3) relative to the table.

        A Lambert key light plus a hemispherical fill; the fill is what shadows keep.
        A second light adds its own key, in its share.
        """
        shade = self.shade_dot(normals @ self.direction, normals[..., 2])
        other = self.other
        if other is None:
            return shade
        w = self.second_share
        return np.asarray((1.0 - w) * shade + w * other.shade(normals))

    def shade_dot(self, ndotl: np.ndarray, nz: np.ndarray) -> np.ndarray:
        """:meth:`shade` from the normals' dot product with :attr:`direction` and their
        upward component (keeps float32 inputs float32)."""
        s = self.shadow_strength
        lz = max(float(self.direction[2]), 0.2)
        dtype = np.result_type(ndotl, nz)
        # Surfaces facing sideways get less of the sky-like fill than those facing up.
        fill = nz * dtype.type(0.45 * (1.0 - s))
        fill += dtype.type(0.55 * (1.0 - s))
        # A surface turned to a low lamp can be much brighter than the table, but a
        # real exposure would clip it; cap so highlights stay plausible.
        key = np.clip(ndotl, 0.0, 2.2 * lz)
        key *= dtype.type(s / lz)
        fill += key
        return np.asarray(fill)

    def specular(self, points_mm: np.ndarray, normals: np.ndarray, eye_mm: np.ndarray,
                 exponent: float) -> np.ndarray:
        """Blinn-Phong highlight intensity at surface points seen from ``eye_mm``."""
        to_light = self.to_light(points_mm)
        to_eye = eye_mm - points_mm
        to_eye /= _norm(to_eye)[..., None]
        half = to_light + to_eye
        ndoth = np.einsum("...i,...i->...", normals, half) / _norm(half)
        return _power(np.clip(ndoth, 0.0, 1.0), exponent)

    def _lamp_position(self) -> np.ndarray | None:
        if not np.isfinite(self.params.distance_mm):
            return None
        cx, cy = self.board_centre_mm
        return np.array([cx, cy, 0.0]) + self.params.distance_mm * self.direction

    def to_light(self, points_mm: np.ndarray) -> np.ndarray:
        """Unit vectors from surface points towards the key light (its direction, for a
        light infinitely far)."""
        lamp = self._lamp_position()
        if lamp is None:
            return np.broadcast_to(self.direction, points_mm.shape).copy()
        v = lamp - points_mm
        v /= _norm(v)[..., None]
        return np.asarray(v)

    def illumination(self, x_mm: np.ndarray, y_mm: np.ndarray) -> np.ndarray:
        """Smooth gain of the light falling on the table (1 at the board centre).

        A lamp follows the inverse-square and cosine laws, which gives the hotspot
        under it; window and sun light change slowly across the table, darker away
        from the window. ``unevenness`` blends between flat light and the full effect.
        """
        cx, cy = self.board_centre_mm
        lamp = self._lamp_position()
        if lamp is not None:
            def irradiance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
                dx, dy, dz = lamp[0] - x, lamp[1] - y, lamp[2]
                return np.asarray(dz / (dx * dx + dy * dy + dz * dz) ** 1.5)

            gain = irradiance(x_mm, y_mm) / irradiance(np.array(cx), np.array(cy))
        else:
            d = self.direction[:2] / max(np.linalg.norm(self.direction[:2]), 1e-6)
            along = (x_mm - cx) * d[0] + (y_mm - cy) * d[1]
            gain = np.exp(along / 1400.0)  # brighter towards the window
        gain = 1.0 + self.params.unevenness * (gain - 1.0)
        other = self.other
        if other is not None:
            gain = (1.0 - self.second_share) * gain + self.second_share * other.illumination(
                x_mm, y_mm
            )
        # Rooms have fill light: nothing in the picture goes completely dark.
        return np.asarray(np.clip(gain, 0.35, 3.5))


def _norm(v: np.ndarray) -> np.ndarray:
    """Lengths of the vectors along the last axis."""
    return np.asarray(np.sqrt(np.einsum("...i,...i->...", v, v)))


def _power(x: np.ndarray, exponent: float) -> np.ndarray:
    """``x ** exponent``; by repeated squaring for whole exponents (much faster)."""
    n = int(exponent)
    if n != exponent or n < 1:
        return x**exponent
    result = np.ones_like(x)
    base = x
    while True:
        if n & 1:
            result *= base
        n >>= 1
        if not n:
            return result
        base = base * base
