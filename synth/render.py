"""Paint a phone photo of a board: table, light, cords, knots, pawns, camera effects.

The pipeline works in photo space, in display-referred floats (0..1):

1. For a coarse pixel grid find the table point each pixel sees (the camera's
   back-projection, lens distortion included). Resized up, those coordinates drive
   the procedural table texture at half the photo's resolution, so the texture is as
   sharp as the photo needs near and far, with no top-down canvas to warp.
2. Light on the table: a smooth gain (lamp hotspot, window falloff), vignetting, a
   varnish highlight and the soft cast shadows of cords and pawns, drawn as projected
   outlines on half-resolution layers and blurred by the light's penumbra.
3. Cords are shaded per pixel of a band around their projected centre lines; at every
   crossing the upper cord is drawn again over a short stretch, with a little shadow
   on the lower one. Knot tails are short cords, the knot itself a ray-cast lump.
4. Pawns are ray-cast, far to near, so nearer ones hide what is behind them.
5. Camera: colour cast after auto white balance, defocus blur, phone sharpening,
   signal-dependent sensor noise; :func:`encode_jpeg` adds the compression.
"""

from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image

from synth.camera import Camera
from synth.cords import CordBand, CordLook, knot_geometry, shade_cord, shade_knot, trace_cord
from synth.lighting import Lighting
from synth.objects import SceneObjects
from synth.pawns import PawnShape, shade_pawn, shadow_outlines
from synth.scene import Scene
from synth.textures import table_albedo

__all__ = ["render", "encode_jpeg"]

_COARSE = 16  # coarse grid step (photo pixels) for smooth per-pixel quantities


def render(
    objects: SceneObjects, scene: Scene, camera: Camera, rng: np.random.Generator
) -> np.ndarray:
    """Render a photo of ``objects`` on the table described by ``scene``.

    Parameters
    ----------
    objects : SceneObjects
        Strings, knots, crossings and pawns in table millimetres.
    scene : Scene
        Table, light, camera and sensor parameters.
    camera : Camera
        The scene's camera (usually ``Camera.from_scene(scene)``).
    rng : numpy.random.Generator
        Source of every random texture; the same seed gives the same image.

    Returns
    -------
    ndarray, shape (H, W, 3), uint8
        RGB image, before JPEG compression.
    """
    width, height = scene.size
    x0, y0, x1, y1 = scene.board_extent_mm
    lighting = Lighting(scene.light, ((x0 + x1) / 2, (y0 + y1) / 2))
    view = _TableView.build(camera)

    shadows = _draw_shadows(objects, scene, camera, lighting, view.half_shape)
    gain = view.resize_half(view.illumination(lighting) * _vignette(view, scene))
    table = _lit_table(scene, view, lighting, gain, shadows, rng)
    photo = cv2.resize(table, (width, height), interpolation=cv2.INTER_LINEAR)
    flat = photo.reshape(-1, 3)

    tint = lighting.colour_gain.astype(np.float32)
    object_gain = gain * shadows.pawn  # cords lie in pawn shadows, not in their own
    _draw_cords(flat, objects, scene, camera, lighting, object_gain, tint, rng)
    _draw_pawns(flat, objects, scene, camera, lighting, gain, tint, rng)
    return _finish(photo, scene, rng)


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """Compress an RGB uint8 image to JPEG bytes (4:2:0 chroma, like a phone)."""
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image), "RGB").save(
        buf, format="JPEG", quality=int(quality), subsampling=2, optimize=False
    )
    return buf.getvalue()


# --------------------------------------------------------------------------- table
class _TableView:
    """Which table point each pixel sees, on a coarse and a half-resolution grid."""

    def __init__(self, camera: Camera, x: np.ndarray, y: np.ndarray) -> None:
        width, height = camera.size
        self.camera = camera
        self.coarse_x, self.coarse_y = x, y
        self.half_shape = ((height + 1) // 2, (width + 1) // 2)

    @classmethod
    def build(cls, camera: Camera) -> _TableView:
        width, height = camera.size
        shape = (-(-height // _COARSE), -(-width // _COARSE))
        x, y = camera.table_grid(shape)
        # Pixels above the horizon (never at the tilts we sample) see "far away".
        far = np.nanmax(np.abs(np.concatenate([x.ravel(), y.ravel()]))) + 1000.0
        x = np.nan_to_num(x, nan=far)
        y = np.nan_to_num(y, nan=far)
        return cls(camera, x, y)

    def resize_half(self, a: np.ndarray) -> np.ndarray:
        h, w = self.half_shape
        return cv2.resize(a.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)

    def footprint_half(self) -> np.ndarray:
        """Millimetres of table per half-resolution pixel."""
        dxdi, dxdj = np.gradient(self.coarse_x)
        dydi, dydj = np.gradient(self.coarse_y)
        area = np.abs(dxdj * dydi - dxdi * dydj)
        return self.resize_half(np.sqrt(area) * 2.0 / _COARSE)

    def illumination(self, lighting: Lighting) -> np.ndarray:
        return lighting.illumination(self.coarse_x, self.coarse_y)

    def specular(self, lighting: Lighting, exponent: float) -> np.ndarray:
        pts = np.stack([self.coarse_x, self.coarse_y, np.zeros_like(self.coarse_x)], axis=-1)
        up = np.broadcast_to(np.array([0.0, 0.0, 1.0]), pts.shape)
        return lighting.specular(pts, up, self.camera.centre_mm, exponent)


def _vignette(view: _TableView, scene: Scene) -> np.ndarray:
    """Lens falloff towards the corners (1 at the centre), on the coarse grid."""
    rows, cols = view.coarse_x.shape
    v = (np.arange(rows) + 0.5) / rows - 0.5
    u = (np.arange(cols) + 0.5) / cols - 0.5
    aspect = scene.size[0] / scene.size[1]
    r2 = (u[None, :] * aspect) ** 2 + v[:, None] ** 2
    r2 /= (0.25 * aspect**2 + 0.25)
    return 1.0 - scene.sensor.vignette * r2


def _lit_table(
    scene: Scene,
    view: _TableView,
    lighting: Lighting,
    gain: np.ndarray,
    shadows: _Shadows,
    rng: np.random.Generator,
) -> np.ndarray:
    """Half-resolution uint8 table image: texture × light × shadows + varnish + noise."""
    x = view.resize_half(view.coarse_x)
    y = view.resize_half(view.coarse_y)
    albedo = table_albedo(scene.table, x, y, view.footprint_half(), rng)
    light = gain * shadows.cord * shadows.pawn
    tint = lighting.colour_gain
    table = cv2.multiply(albedo, cv2.merge([light * np.float32(c) for c in tint]))
    if scene.table.gloss > 0:
        spec = view.resize_half(view.specular(lighting, exponent=25.0))
        spec *= shadows.cord * shadows.pawn
        spec *= np.float32(scene.table.gloss * lighting.shadow_strength)
        table += cv2.merge([spec * np.float32(c) for c in tint])
    # Chroma noise survives the phone's denoiser only as soft blotches: add it at
    # half resolution, before the resize to full size.
    noise = np.empty_like(table)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    sigma = 0.2 * np.sqrt(scene.sensor.noise_a * 0.4 + scene.sensor.noise_b)
    cv2.randn(noise, (0.0, 0.0, 0.0), (sigma, sigma, sigma))
    table += noise
    return cv2.convertScaleAbs(table, alpha=255.0)


# ------------------------------------------------------------------------- shadows
class _Shadows:
    """Multiplicative light left by the cords' and the pawns' shadows (half-res)."""

    def __init__(self, cord: np.ndarray, pawn: np.ndarray) -> None:
        self.cord = cord
        self.pawn = pawn


def _draw_shadows(
    objects: SceneObjects,
    scene: Scene,
    camera: Camera,
    lighting: Lighting,
    shape: tuple[int, int],
) -> _Shadows:
    """Draw cast shadows and contact shadows of cords, knots and pawns."""
    mat = scene.materials
    radius = mat.string_diameter_mm / 2
    centre = np.array([[(scene.board_extent_mm[0] + scene.board_extent_mm[2]) / 2,
                        (scene.board_extent_mm[1] + scene.board_extent_mm[3]) / 2]])
    scale = float(camera.px_per_mm(centre)[0]) / 2  # half-resolution px per mm

    cast = np.zeros(shape, np.uint8)
    contact = np.zeros(shape, np.uint8)
    offset = lighting.shadow_offset(radius * 1.5)
    for colour, line in objects.lines.items():
        pts = np.vstack([line, line[:1]])
        _polyline(cast, camera, pts + offset, 2 * radius)
        _polyline(contact, camera, pts, 3.0 * radius)
        knot = objects.knots.get(colour)
        if knot is not None:
            size = mat.knot_scale * mat.string_diameter_mm
            blob = np.asarray(knot) + lighting.shadow_offset(size * 0.4)
            _disc(cast, camera, blob, size * 0.55)
            _disc(contact, camera, np.asarray(knot), size * 0.7)
    strength = lighting.shadow_strength
    soft = max(lighting.penumbra_mm(radius * 2) * scale, 0.6)
    cord = 1.0 - strength * _blurred(cast, soft) - 0.28 * _blurred(contact, radius * scale)

    pawn_cast = np.zeros(shape, np.uint8)
    pawn_contact = np.zeros(shape, np.uint8)
    pshape = PawnShape(mat.pawn_width_mm, mat.pawn_height_mm)
    for pawn in objects.pawns:
        for outline in shadow_outlines(pawn.foot_xy_mm, pshape, lighting):
            _convex(pawn_cast, camera, outline)
        foot = np.asarray(pawn.foot_xy_mm)
        _disc(pawn_contact, camera, foot, 0.55 * pshape.width_mm)
    soft = max(lighting.penumbra_mm(0.6 * pshape.height_mm) * scale, 1.0)
    pawn = (
        1.0
        - strength * _blurred(pawn_cast, soft)
        - 0.3 * _blurred(pawn_contact, 0.15 * pshape.width_mm * scale)
    )
    return _Shadows(np.clip(cord, 0.05, 1.0), np.clip(pawn, 0.05, 1.0))


def _to_half(camera: Camera, pts_mm: np.ndarray) -> np.ndarray:
    """Project table points into half-resolution pixel coordinates (8× fixed point)."""
    uv = camera.project(pts_mm)
    half = (uv + 0.5) / 2 - 0.5
    return np.clip(np.round(half * 8), -(1 << 28), 1 << 28).astype(np.int32)


def _polyline(layer: np.ndarray, camera: Camera, pts_mm: np.ndarray, width_mm: float) -> None:
    """Draw a thick polyline, in chunks so its width follows the perspective."""
    chunk = 40
    for start in range(0, len(pts_mm) - 1, chunk):
        part = pts_mm[start : start + chunk + 1]
        scale = float(camera.px_per_mm(part[len(part) // 2 : len(part) // 2 + 1])[0]) / 2
        thick = max(int(round(width_mm * scale)), 1)
        cv2.polylines(layer, [_to_half(camera, part)], False, 255, thick, cv2.LINE_AA, 3)


def _disc(layer: np.ndarray, camera: Camera, centre: np.ndarray, radius_mm: float) -> None:
    angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = centre + radius_mm * np.column_stack([np.cos(angles), np.sin(angles)])
    _convex(layer, camera, ring)


def _convex(layer: np.ndarray, camera: Camera, outline_mm: np.ndarray) -> None:
    pts = _to_half(camera, outline_mm)
    hull = cv2.convexHull(pts.reshape(-1, 1, 2))
    cv2.fillConvexPoly(layer, hull, 255, cv2.LINE_AA, 3)


def _blurred(layer: np.ndarray, sigma: float) -> np.ndarray:
    out = cv2.GaussianBlur(layer, (0, 0), max(float(sigma), 0.3))
    return out.astype(np.float32) * np.float32(1 / 255)


# --------------------------------------------------------------------------- cords
def _sample_half(field: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear samples of a half-resolution field at full-resolution pixel positions."""
    n = len(xy)
    if n == 0:
        return np.zeros(0, np.float32)
    # cv2.remap wants maps shorter than 32767 rows: lay the points out as a block.
    cols = 4096
    rows = -(-n // cols)
    m = np.zeros((rows * cols, 2), np.float32)
    m[:n] = (xy + 0.5) / 2 - 0.5
    m = m.reshape(rows, cols, 2)
    out = cv2.remap(field, m, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1)[:n]


def _composite(flat: np.ndarray, idx: np.ndarray, rgb: np.ndarray, alpha: np.ndarray) -> None:
    """Blend colours (0..1, straight alpha) over the uint8 photo at flat indices."""
    a = alpha[:, None].astype(np.float32)
    below = flat[idx].astype(np.float32)
    out = below * (1.0 - a) + rgb.astype(np.float32) * (255.0 * a)
    flat[idx] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _draw_cords(
    flat: np.ndarray,
    objects: SceneObjects,
    scene: Scene,
    camera: Camera,
    lighting: Lighting,
    gain: np.ndarray,
    tint: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Cords in random order, crossings fixed up, then knots with their tails."""
    mat = scene.materials
    radius = mat.string_diameter_mm / 2

    def paint(band: CordBand | None, look: CordLook) -> tuple[np.ndarray, np.ndarray] | None:
        if band is None:
            return None
        rgb, alpha = shade_cord(band, look, rng)
        rgb = rgb * tint * _sample_half(gain, band.xy)[:, None]
        return rgb, alpha

    drawn: dict[str, tuple[CordBand, np.ndarray]] = {}
    looks: dict[str, CordLook] = {}
    for colour in rng.permutation(sorted(objects.lines)):
        colour = str(colour)
        looks[colour] = CordLook(
            rgb=np.asarray(mat.cord_rgb[colour]),
            twist_pitch_mm=mat.twist_pitch_mm,
            lighting=lighting,
            twist_phase=float(rng.uniform(0, 2 * np.pi)),
        )
        band = trace_cord(camera, objects.lines[colour], radius, closed=True, margin=0.15)
        painted = paint(band, looks[colour])
        if painted is not None:
            _composite(flat, band.idx, *painted)
            drawn[colour] = (band, painted[1])

    for xy, upper, lower in objects.crossings:
        if upper not in looks or lower not in drawn:
            continue
        piece = _piece_near(objects.lines[upper], np.asarray(xy), 5.0 * mat.string_diameter_mm)
        if piece is None:
            continue
        points, along = piece
        band = trace_cord(camera, points, radius, closed=False, margin=1.6,
                          along_start_mm=along, caps=False)
        painted = paint(band, looks[upper])
        if painted is not None:
            _shadow_on_lower(flat, lighting, band, drawn[lower], radius)
            _composite(flat, band.idx, *painted)

    for colour, knot in objects.knots.items():
        if knot is None or colour not in looks:
            continue
        lumps, tails = knot_geometry(objects.lines[colour], knot, mat.string_diameter_mm,
                                     mat.knot_scale, rng)
        for tail in tails:
            taper = radius * np.linspace(1.0, 0.8, len(tail))
            band = trace_cord(camera, tail, taper, closed=False, margin=0.2)
            painted = paint(band, looks[colour])
            if painted is not None:
                _composite(flat, band.idx, *painted)
        knot_px = shade_knot(camera, lumps, looks[colour], rng)
        if knot_px is not None:
            idx, rgb, alpha = knot_px
            xy = np.column_stack([idx % camera.size[0], idx // camera.size[0]]).astype(float)
            rgb = rgb * tint * _sample_half(gain, xy)[:, None]
            _composite_premultiplied(flat, idx, rgb, alpha)


def _piece_near(
    line: np.ndarray, xy: np.ndarray, reach_mm: float
) -> tuple[np.ndarray, float] | None:
    """The stretch of a closed line within ``reach_mm`` of a point, and its arc length."""
    n = len(line)
    step = np.linalg.norm(np.diff(np.vstack([line, line[:1]]), axis=0), axis=1)
    along = np.concatenate([[0.0], np.cumsum(step)])
    i0 = int(np.argmin(np.linalg.norm(line - xy, axis=1)))
    if np.linalg.norm(line[i0] - xy) > reach_mm:
        return None
    m = int(np.ceil(reach_mm / max(float(np.median(step)), 1e-6)))
    first = i0 - m
    # Arc length at the first point; negative when the piece runs through point 0.
    start = along[first] if first >= 0 else along[first + n] - along[n]
    return line[np.arange(first, i0 + m + 1) % n], float(start)


def _shadow_on_lower(
    flat: np.ndarray,
    lighting: Lighting,
    band: CordBand,
    lower: tuple[CordBand, np.ndarray],
    radius: float,
) -> None:
    """Darken the lower cord beside the upper one, where the upper cord's shadow falls."""
    # The upper cord rests on the lower one, about one diameter above the table: its
    # shadow lies beside it, shifted away from the light.
    offset = lighting.shadow_offset(2 * radius)
    shift = (band.normal @ offset) / radius  # in half-widths
    shadow = np.clip((1.6 - np.abs(band.across - shift)) / 0.7, 0.0, 1.0)
    shadow *= np.abs(band.across) > 0.9
    lband, lalpha = lower
    order = np.argsort(lband.idx)
    lidx, la = lband.idx[order], lalpha[order]
    pos = np.clip(np.searchsorted(lidx, band.idx), 0, len(lidx) - 1)
    on_lower = np.where(lidx[pos] == band.idx, la[pos], 0.0)
    dim = 1.0 - (0.25 + 0.5 * lighting.shadow_strength) * shadow * on_lower
    flat[band.idx] = (flat[band.idx] * dim[:, None] + 0.5).astype(np.uint8)


def _composite_premultiplied(
    flat: np.ndarray, idx: np.ndarray, rgb: np.ndarray, alpha: np.ndarray
) -> None:
    """Blend premultiplied colours (0..1) over the uint8 photo at flat indices."""
    a = alpha[:, None].astype(np.float32)
    below = flat[idx].astype(np.float32)
    out = below * (1.0 - a) + rgb.astype(np.float32) * 255.0
    flat[idx] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- pawns
def _draw_pawns(
    flat: np.ndarray,
    objects: SceneObjects,
    scene: Scene,
    camera: Camera,
    lighting: Lighting,
    gain: np.ndarray,
    tint: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Ray-cast the pawns far to near (painter's order)."""
    mat = scene.materials
    shape = PawnShape(mat.pawn_width_mm, mat.pawn_height_mm)
    if not objects.pawns:
        return
    middles = np.array([[*p.foot_xy_mm, shape.height_mm / 2] for p in objects.pawns])
    order = np.argsort(-camera.depth(middles))
    for i in order:
        pawn = objects.pawns[i]
        out = shade_pawn(
            camera,
            pawn,
            shape,
            np.asarray(mat.pawn_rgb[pawn.colour]),
            mat.pawn_gloss,
            lighting,
            facing_rad=float(rng.uniform(0, 2 * np.pi)),
            rng=rng,
        )
        if out is None:
            continue
        idx, rgb, alpha = out
        xy = np.column_stack([idx % camera.size[0], idx // camera.size[0]]).astype(float)
        rgb = rgb * tint * _sample_half(gain, xy)[:, None]
        _composite_premultiplied(flat, idx, rgb, alpha)


# -------------------------------------------------------------------------- camera
def _finish(img: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Defocus, phone sharpening and luminance noise on the uint8 photo."""
    s = scene.sensor
    height, width = img.shape[:2]
    focus = max(s.defocus_sigma_px, 0.3)
    k = 2 * int(np.ceil(2.5 * focus)) + 1  # cv2's default kernel is wider than needed
    soft = cv2.GaussianBlur(img, (k, k), focus)
    # The phone's unsharp mask: a small-radius boost of what the blur left.
    halo = cv2.GaussianBlur(soft, (5, 5), 1.0)
    img = cv2.addWeighted(soft, 1.0 + s.sharpen, halo, -s.sharpen, 0.0)
    # Noise variance grows with the signal (shot noise) plus a floor (read noise).
    # Made at half resolution and resized up: demosaicing and denoising leave
    # sensor noise correlated over a couple of pixels.
    levels = np.arange(256) / 255.0
    lut = np.clip(np.sqrt(s.noise_a * levels + s.noise_b) * 255.0 * 16, 0, 255)
    sigma = cv2.LUT(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), lut.astype(np.uint8))
    half = np.empty(((height + 1) // 2, (width + 1) // 2), np.float32)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    cv2.randn(half, 0.0, 1.6 * 16.0)  # x16 fixed point; 1.6 undoes the resize's smoothing
    unit = cv2.resize(half.astype(np.int16), (width, height), interpolation=cv2.INTER_LINEAR)
    noise = cv2.multiply(unit, sigma.astype(np.int16), scale=1.0 / 256.0)
    return cv2.add(img, cv2.merge([noise, noise, noise]), dtype=cv2.CV_8U)
