"""Paint a phone photo of a board: table, light, cords, knots, pawns, camera effects.

The pipeline works in photo space, in display-referred floats (0..1):

1. For a coarse pixel grid find the table point each pixel sees (the camera's
   back-projection, lens distortion included). Resized up, those coordinates drive
   the procedural table texture at half the photo's resolution, so the texture is as
   sharp as the photo needs near and far, with no top-down canvas to warp.
2. Light on the table: a smooth gain (lamp hotspot, window falloff), vignetting, a
   varnish highlight and the soft cast shadows of cords and pawns, drawn as projected
   outlines on reduced-resolution layers and blurred by the light's penumbra.
3. Cords are shaded per pixel of a band around their projected centre lines; at every
   crossing the upper cord is drawn again over a short stretch, with a little shadow
   on the lower one. Knot tails are short cords, the knot itself a ray-cast lump.
4. Pawns are ray-cast and drawn far to near, so nearer ones hide what is behind them.
5. Camera: colour cast left by auto white balance, highlight roll-off, signal-
   dependent sensor noise, defocus blur and phone sharpening; :func:`encode_jpeg`
   adds the compression.

The table (steps 1–2) and the objects (3–4) are computed on two threads and then
composited; each has its own random generator, so results do not depend on timing.

Speed (a 4032 × 3024 photo should take well under a second): full-resolution work is
limited to the pixels objects cover; smooth fields (light, vignetting, texture
coordinates, fading of fine patterns) are computed on the coarse grid and resized;
the half-resolution table is assembled with OpenCV's fused float32 operations, a
channel at a time; defocus and sharpening are one separable filter.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import cv2
import numpy as np
from PIL import Image

from synth.camera import Camera
from synth.cords import (
    CordBand,
    CordLook,
    cord_brightness,
    cord_coverage,
    knot_geometry,
    shade_knot,
    trace_cord,
)
from synth.extras import cup_shadow_outline, edge_distance, shade_card, shade_cup
from synth.labels import BACKGROUND, KNOT, cord_class, pawn_class
from synth.lighting import Lighting
from synth.objects import SceneObjects
from synth.pawns import PawnShape, shade_pawn, shadow_outlines
from synth.scene import Scene
from synth.solids import Spheroid
from synth.textures import TableCoords, table_mix

__all__ = ["render", "render_with_labels", "encode_jpeg"]

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
    return _render(objects, scene, camera, rng, None)


def render_with_labels(
    objects: SceneObjects, scene: Scene, camera: Camera, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`render`, and what each pixel shows (the same photo for the same ``rng``).

    Returns
    -------
    image : ndarray, shape (H, W, 3), uint8
    labels : ndarray, shape (H, W), uint8
        Indices into :data:`synth.labels.PIXEL_CLASSES`: the class of the object that
        covers at least half of each pixel, last drawn on top.
    """
    width, height = scene.size
    labels = np.zeros(height * width, np.uint8)
    image = _render(objects, scene, camera, rng, labels)
    return image, labels.reshape(height, width)


def _render(
    objects: SceneObjects,
    scene: Scene,
    camera: Camera,
    rng: np.random.Generator,
    labels: np.ndarray | None,
) -> np.ndarray:
    """The photo; where ``labels`` (flat, one per pixel) is given, each drawn object
    also writes its class there."""
    width, height = scene.size
    x0, y0, x1, y1 = scene.board_extent_mm
    extras = scene.extras
    lighting = Lighting(
        scene.light, ((x0 + x1) / 2, (y0 + y1) / 2), extras.second_light, extras.second_share
    )
    view = _TableView.build(camera)
    light_c = view.illumination(lighting) * _vignette(view, scene)
    ctx = RenderContext(
        objects=objects,
        scene=scene,
        camera=camera,
        lighting=lighting,
        knots=_knots(objects, scene, rng),
        view=view,
        gain=view.resize_half(light_c),
        tint=lighting.colour_gain.astype(np.float32),
    )
    pawn_shadow = _pawn_shadows(ctx)
    # The table and the objects are independent until they are composited: make the
    # table on a second thread (NumPy and OpenCV release the GIL), each with its own
    # generator so the result does not depend on scheduling.
    table_rng, object_rng = rng.spawn(2)
    with ThreadPoolExecutor(max_workers=1) as pool:
        table_job = pool.submit(_lit_table, ctx, light_c, pawn_shadow, table_rng)
        # Cords lie in the pawns' shadows, not in their own.
        layers = _clutter_layers(ctx, "card", object_rng)
        layers += _cord_layers(replace(ctx, gain=ctx.gain * pawn_shadow), object_rng)
        layers += _pawn_layers(ctx, object_rng)
        layers += _clutter_layers(ctx, "cup", object_rng)
        table = table_job.result()
    photo = cv2.resize(table, (width, height), interpolation=cv2.INTER_LINEAR)
    flat = photo.reshape(-1, 3)
    for layer in layers:
        layer.apply(flat)
        if labels is not None:
            layer.label_pixels(labels)
    return _finish(photo, scene)


_Knot = tuple[list[Spheroid], list[np.ndarray]]


@dataclass(frozen=True)
class RenderContext:
    """What every drawing step of one photo needs.

    ``knots`` holds the lumps and tails of each tie knot (shared by their shadows and
    their drawing); ``gain`` is the light falling on the table and the objects at half
    resolution (vignetting included) and ``tint`` the colour cast that white balance
    left, both applied to every drawn pixel.
    """

    objects: SceneObjects
    scene: Scene
    camera: Camera
    lighting: Lighting
    knots: dict[str, _Knot]
    view: _TableView
    gain: np.ndarray
    tint: np.ndarray


def _knots(objects: SceneObjects, scene: Scene, rng: np.random.Generator) -> dict[str, _Knot]:
    """The lumps and tails of every tie knot (shared by shadows and drawing)."""
    mat = scene.materials
    return {
        colour: knot_geometry(
            objects.lines[colour], knot, mat.string_diameter_mm, mat.knot_scale, rng
        )
        for colour, knot in sorted(objects.knots.items())
        if knot is not None and colour in objects.lines
    }


def encode_jpeg(image: np.ndarray, quality: int, orientation: int = 1) -> bytes:
    """Compress an RGB uint8 image to JPEG bytes (4:2:0 chroma, like a phone).

    With an EXIF ``orientation`` of 3, 6 or 8 the pixels are stored turned, as a phone
    held upside down or sideways stores them, and the tag says how to turn them back:
    a viewer that applies it shows ``image``.
    """
    if orientation not in _STORED_TURNS:
        raise ValueError(f"EXIF orientation must be 1, 3, 6 or 8, not {orientation!r}")
    if orientation != 1:
        stored = np.ascontiguousarray(np.rot90(image, _STORED_TURNS[orientation]))
        exif = Image.Exif()
        exif[_ORIENTATION_TAG] = orientation
        out = io.BytesIO()
        Image.fromarray(stored).save(
            out, "JPEG", quality=int(quality), subsampling=2, exif=exif.tobytes()
        )
        return out.getvalue()
    # OpenCV's libjpeg-turbo writes the same file as Pillow's, a little faster.
    ok, data = cv2.imencode(
        ".jpg",
        cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2BGR),
        [
            cv2.IMWRITE_JPEG_QUALITY, int(quality),
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420,
        ],
    )
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(data.tobytes())


_ORIENTATION_TAG = 0x0112
#: Quarter turns (counter-clockwise, as ``np.rot90`` counts) from the upright photo to
#: the stored pixels, per EXIF orientation: 6 means "turn clockwise to view".
_STORED_TURNS = {1: 0, 3: 2, 6: 1, 8: 3}


# --------------------------------------------------------------------------- table
class _TableView:
    """Which table point each pixel sees, on a coarse grid; the half-resolution size."""

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
        """Millimetres of table per half-resolution pixel, on the coarse grid."""
        dxdi, dxdj = np.gradient(self.coarse_x)
        dydi, dydj = np.gradient(self.coarse_y)
        area = np.abs(dxdj * dydi - dxdi * dydj)
        return np.asarray(np.sqrt(area) * 2.0 / _COARSE)

    def coords(self, grain_angle_deg: float) -> TableCoords:
        """The half-resolution image's view of the table, for the texture."""
        return TableCoords(
            self.coarse_x, self.coarse_y, self.footprint_half(), self.half_shape,
            grain_angle_deg,
        )

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
    return np.asarray(1.0 - scene.sensor.vignette * r2)


def _lit_table(
    ctx: RenderContext, light_coarse: np.ndarray, pawn_shadow: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Half-resolution uint8 table image: texture × light × shadows + varnish + noise.

    Works channel by channel with OpenCV's fused operations: each pass over the
    half-resolution image costs about as much as the arithmetic in it.
    """
    scene, view, lighting, gain = ctx.scene, ctx.view, ctx.lighting, ctx.gain
    table = scene.table
    mix = table_mix(table, view.coords(table.grain_angle_deg), rng)
    shadow = _cord_shadows(ctx)
    cv2.multiply(shadow, pawn_shadow, dst=shadow)
    tint = [float(c) for c in lighting.colour_gain]
    top = max(tint)
    light = cv2.multiply(gain, shadow)
    # Brightness of the table's brightest channel: what the highlight roll-off and
    # the signal-dependent noise follow. Rolling off this one field is much cheaper
    # than rolling off three colour channels, and the texture barely changes it.
    level_scale = max(table.rgb) * top
    spec = None
    spec_bound: np.ndarray | float = 0.0
    if table.gloss > 0:
        spec_coarse = view.specular(lighting, exponent=25.0)
        spec_coarse *= table.gloss * lighting.shadow_strength * top
        spec_bound = spec_coarse
        spec = view.resize_half(spec_coarse)
        cv2.multiply(spec, shadow, dst=spec)
    # Shadows only darken: the unshadowed level bounds the level everywhere.
    brightest = float(np.max(light_coarse * level_scale + spec_bound))
    if brightest > _KNEE:
        _roll_off(light, spec, level_scale, light_coarse * level_scale + spec_bound)
    # Sensor noise: variance grows with the signal (shot noise) plus a floor (read
    # noise); mostly luminance, as the phone's denoiser leaves it. Made at half
    # resolution, the resize to full size correlates it over a couple of pixels, as
    # demosaicing does; x1.5 makes up for the smoothing of that bilinear resize.
    s = scene.sensor
    k = 1.5**2
    sigma = cv2.addWeighted(
        light, k * s.noise_a * level_scale, light if spec is None else spec,
        0.0 if spec is None else k * s.noise_a, k * s.noise_b,
    )
    cv2.sqrt(sigma, dst=sigma)
    # One buffer of white noise serves the luminance and the three chroma channels,
    # each a window a few rows further on: four independent-looking fields for the
    # price of one.
    h, w = sigma.shape
    n = h * w
    shift = 7919  # a prime: the windows do not line up with the rows
    buffer = np.empty((1, n + 3 * shift), np.float32)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    cv2.randn(buffer, np.zeros(1), np.ones(1))
    buffer = buffer.reshape(-1)

    def white(i: int) -> np.ndarray:
        return buffer[i * shift : i * shift + n].reshape(h, w)

    # Albedo x light: the albedo is affine in ``mix``, clipped to 0..1. Unless some
    # channel would clip, (a mix + b) light = a (mix light) + b light saves passes.
    lo, hi = cv2.minMaxLoc(mix)[:2]
    clips = any(
        not 0.0 <= b + m * (a - b) <= 1.0
        for b, a in zip(table.rgb, table.rgb2, strict=True)
        for m in (lo, hi)
    )
    mix_light = None if clips else cv2.multiply(mix, light)
    channels = []
    for i, (base, second, t) in enumerate(zip(table.rgb, table.rgb2, tint, strict=True)):
        if mix_light is not None:
            ch = cv2.addWeighted(mix_light, t * (second - base), light, t * base, 0.0)
        else:
            ch = cv2.addWeighted(mix, second - base, mix, 0.0, base)
            np.clip(ch, 0.0, 1.0, out=ch)
            cv2.multiply(ch, light, dst=ch, scale=t)
        if spec is not None:
            cv2.scaleAdd(spec, t / top, ch, dst=ch)
        noise = cv2.addWeighted(white(0), 1.0, white(i + 1), 0.35, 0.0)  # luma + chroma
        cv2.accumulateProduct(noise, sigma, ch)
        channels.append(cv2.convertScaleAbs(ch, alpha=255.0))
    table_img = np.asarray(cv2.merge(channels))
    if scene.extras.table_edge is not None:
        _floor_beyond_edge(ctx, table_img, rng)
    return table_img


def _floor_beyond_edge(ctx: RenderContext, table: np.ndarray, rng: np.random.Generator) -> None:
    """Paint the table's edge banding and the floor beyond it over the half-resolution
    table image (in place): the floor is far below, so it is dimmer and out of focus."""
    edge = ctx.scene.extras.table_edge
    assert edge is not None
    view = ctx.view
    beyond = edge_distance(edge, view.coarse_x, view.coarse_y)
    footprint = view.footprint_half()
    near = (beyond > -edge.rim_mm - 4 * footprint).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(cv2.dilate(near, np.ones((3, 3), np.uint8)))
    if w == 0 or h == 0:
        return
    rows, cols = beyond.shape
    height, width = table.shape[:2]
    r0, r1 = y * height // rows, min(-(-(y + h) * height // rows), height)
    c0, c1 = x * width // cols, min(-(-(x + w) * width // cols), width)
    window = np.s_[r0:r1, c0:c1]
    distance = view.resize_half(beyond)[window]
    pixel = view.resize_half(footprint)[window]
    on_table = np.clip(-distance / pixel + 0.5, 0.0, 1.0)
    floor = np.clip((distance - edge.rim_mm) / pixel + 0.5, 0.0, 1.0)
    rim = np.clip(1.0 - on_table - floor, 0.0, 1.0)
    gain = ctx.gain[window]
    # Broad blotches: the floor is seen out of focus.
    blotches = cv2.GaussianBlur(rng.standard_normal((rows, cols)).astype(np.float32), (0, 0), 2)
    shade = gain * (1.0 + 0.25 * view.resize_half(blotches)[window])
    for i in range(3):
        channel = table[window + (i,)].astype(np.float32) * on_table
        tint = float(ctx.tint[i]) * 255.0
        channel += rim * (edge.rim_rgb[i] * 0.85 * tint) * gain
        channel += floor * (edge.floor_rgb[i] * edge.floor_light * tint) * shade
        table[window + (i,)] = np.clip(channel + 0.5, 0, 255).astype(np.uint8)


def _clutter_layers(ctx: RenderContext, kind: str, rng: np.random.Generator) -> list[_Layer]:
    """The scene's cards (flat on the table) or cups, lit like the rest."""
    layers = []
    for thing in ctx.scene.extras.clutter:
        if thing.kind != kind:
            continue
        if kind == "card":
            out = shade_card(ctx.camera, thing)
        else:
            out = shade_cup(ctx.camera, thing, ctx.lighting)
        if out is not None:
            layers.append(_solid_layer(ctx, *out, rng))
    return layers


def _object_noise(level: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Luminance sensor noise for drawn object pixels of brightness ``level`` (their
    brightest channel, 0..1), shape (n,)."""
    s = scene.sensor
    sigma = level * np.float32(s.noise_a)
    sigma += np.float32(s.noise_b)
    noise = rng.standard_normal(len(level), dtype=np.float32)
    noise *= np.sqrt(sigma, out=sigma)
    return noise


_KNEE = np.float32(0.8)


def _tone(x: np.ndarray) -> np.ndarray:
    """Phone-like highlight roll-off: linear up to 0.8, then easing towards 1.

    A lamp hotspot or a white pawn facing a low sun would otherwise clip hard; phones
    compress highlights instead (HDR tone mapping), keeping some shading in them.
    """
    over = np.maximum(x - _KNEE, np.float32(0.0))
    return x - over + over / (np.float32(1.0) + over / (np.float32(1.0) - _KNEE))


def _roll_off(
    light: np.ndarray, spec: np.ndarray | None, level_scale: float, bound: np.ndarray
) -> None:
    """Apply the highlight roll-off to the table's ``light`` and ``spec`` (in place).

    The level is ``light * level_scale + spec``; ``bound`` bounds it on the coarse
    grid. Only the window of cells where it may pass the knee is worked on: a pixel
    lies between four grid points, so one cell around each hot one is enough.
    """
    rows, cols = bound.shape
    hot = cv2.dilate((bound > _KNEE).astype(np.uint8), np.ones((3, 3), np.uint8))
    x, y, w, h = cv2.boundingRect(hot)
    if w == 0 or h == 0:
        return
    height, width = light.shape
    r0, r1 = y * height // rows, min(-(-(y + h) * height // rows), height)
    c0, c1 = x * width // cols, min(-(-(x + w) * width // cols), width)
    window = np.s_[r0:r1, c0:c1]
    level = light[window] * np.float32(level_scale)
    if spec is not None:
        level += spec[window]
    roll = _tone(level)
    roll /= np.maximum(level, np.float32(1e-6))
    light[window] *= roll
    if spec is not None:
        spec[window] *= roll


# ------------------------------------------------------------------------- shadows
def _cord_shadows(ctx: RenderContext) -> np.ndarray:
    """Light left by the cast and contact shadows of cords and knots (half-res)."""
    scene, camera, lighting = ctx.scene, ctx.camera, ctx.lighting
    shape = ctx.view.half_shape
    mat = scene.materials
    radius = mat.string_diameter_mm / 2
    px_per_mm = _board_px_per_mm(scene, camera)
    strength = lighting.shadow_strength
    # Cords: a thin shadow cast away from the light, and a contact shadow around them.
    cast = np.zeros(shape, np.uint8)
    contact = np.zeros(shape, np.uint8)
    offset = lighting.shadow_offset(radius * 1.5)
    for line in ctx.objects.lines.values():
        pts = np.vstack([line, line[:1]])
        _polyline(cast, camera, pts + offset, 2 * radius, step=2)
        # The contact shadow is blurred over about a radius: no need for anti-aliasing.
        _polyline(contact, camera, pts, 3.0 * radius, step=2, line_type=cv2.LINE_8)
    for lumps, tails in ctx.knots.values():
        for tail in tails:
            _polyline(cast, camera, tail + offset, 2 * radius, step=2)
            _polyline(contact, camera, tail, 3.0 * radius, step=2, line_type=cv2.LINE_8)
        for lump in lumps:
            centre = np.asarray(lump.centre[:2])
            _disc(cast, camera, centre + lighting.shadow_offset(lump.centre[2]), lump.a, step=2)
            _disc(contact, camera, centre, 1.3 * lump.a, step=2)
    scale = px_per_mm / 2
    soft = max(lighting.penumbra_mm(radius * 2) * scale, 0.6)
    return _shadow_light(cast, soft, strength, contact, radius * scale, 0.28)


def _pawn_shadows(ctx: RenderContext) -> np.ndarray:
    """Light left by the big soft shadows of pawns and cups (drawn and blurred at
    quarter-res), one set for each light."""
    objects, scene, camera = ctx.objects, ctx.scene, ctx.camera
    shape = ctx.view.half_shape
    cups = [c for c in scene.extras.clutter if c.kind == "cup"]
    if not objects.pawns and not cups:
        return np.ones(shape, np.float32)
    mat = scene.materials
    small = ((shape[0] + 1) // 2, (shape[1] + 1) // 2)
    contact = np.zeros(small, np.uint8)
    pshape = PawnShape(mat.pawn_width_mm, mat.pawn_height_mm, mat.pawn_style)
    for pawn in objects.pawns:
        _disc(contact, camera, np.asarray(pawn.foot_xy_mm), 0.55 * pshape.width_mm, step=4)
    scale = _board_px_per_mm(scene, camera) / 4
    # Each light casts its own shadows, as dark as its share of the direct light.
    share = scene.extras.second_share
    lights = [(ctx.lighting, 1.0 - share)]
    if ctx.lighting.other is not None:
        lights.append((ctx.lighting.other, share))
    quarter = np.ones(small, np.float32)
    for k, (light, weight) in enumerate(lights):
        cast = np.zeros(small, np.uint8)
        for pawn in objects.pawns:
            for outline in shadow_outlines(pawn.foot_xy_mm, pshape, light):
                _convex(cast, camera, outline, step=4)
        for cup in cups:
            _convex(cast, camera, cup_shadow_outline(cup, light), step=4)
        soft = max(light.penumbra_mm(0.6 * pshape.height_mm) * scale, 0.5)
        touching = contact if k == 0 else np.zeros_like(contact)
        cv2.multiply(
            quarter,
            _shadow_light(
                cast, soft, light.shadow_strength * weight, touching,
                0.15 * pshape.width_mm * scale, 0.3,
            ),
            dst=quarter,
        )
    return cv2.resize(quarter, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def _board_px_per_mm(scene: Scene, camera: Camera) -> float:
    x0, y0, x1, y1 = scene.board_extent_mm
    return float(camera.px_per_mm(np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]))[0])


def _shadow_light(
    cast: np.ndarray,
    cast_sigma: float,
    cast_weight: float,
    contact: np.ndarray,
    contact_sigma: float,
    contact_weight: float,
) -> np.ndarray:
    """``1 - cast_weight * blur(cast) - contact_weight * blur(contact)`` (layers 0..255),
    at least 0.05; float32.

    Only the window around what was drawn is blurred: elsewhere the light is 1.
    """
    out = np.ones(cast.shape, np.float32)
    cast_sigma, contact_sigma = max(float(cast_sigma), 0.3), max(float(contact_sigma), 0.3)
    cast_k, contact_k = _gauss_ksize(cast_sigma), _gauss_ksize(contact_sigma)
    window = _drawn_window(cast | contact, max(cast_k, contact_k) // 2 + 1)
    if window is None:
        return out
    rows, cols = window
    blurred_cast = cv2.GaussianBlur(cast[rows, cols], (cast_k, cast_k), cast_sigma)
    blurred_contact = cv2.GaussianBlur(contact[rows, cols], (contact_k, contact_k), contact_sigma)
    light = cv2.addWeighted(
        blurred_cast, -cast_weight / 255.0, blurred_contact, -contact_weight / 255.0, 1.0,
        dtype=cv2.CV_32F,
    )
    out[rows, cols] = np.maximum(light, np.float32(0.05), out=light)
    return out


def _gauss_ksize(sigma: float) -> int:
    """The kernel size cv2.GaussianBlur picks for a uint8 image and ``sigma``."""
    return int(np.floor(sigma * 6 + 1 + 0.5)) | 1


def _drawn_window(layer: np.ndarray, margin: int) -> tuple[slice, slice] | None:
    """Rows and columns of the non-zero part of ``layer``, grown by ``margin``."""
    x, y, w, h = cv2.boundingRect(layer)
    if w == 0 or h == 0:
        return None
    rows = slice(max(y - margin, 0), min(y + h + margin, layer.shape[0]))
    cols = slice(max(x - margin, 0), min(x + w + margin, layer.shape[1]))
    return rows, cols


def _to_layer(camera: Camera, pts_mm: np.ndarray, step: int) -> np.ndarray:
    """Project table points into a layer ``step`` times smaller than the photo.

    Returns 8× fixed-point integer coordinates for cv2's ``shift=3`` drawing.
    """
    uv = camera.project(pts_mm)
    small = (uv + 0.5) / step - 0.5
    return np.clip(np.round(small * 8), -(1 << 28), 1 << 28).astype(np.int32)


def _polyline(
    layer: np.ndarray,
    camera: Camera,
    pts_mm: np.ndarray,
    width_mm: float,
    step: int,
    line_type: int = cv2.LINE_AA,
) -> None:
    """Draw a thick polyline, in chunks so its width follows the perspective."""
    chunk = 40
    n = len(pts_mm)
    starts = np.arange(0, n - 1, chunk)
    mids = starts + np.minimum(chunk + 1, n - starts) // 2
    thick = np.maximum(np.round(width_mm * camera.px_per_mm(pts_mm[mids]) / step), 1)
    fixed = _to_layer(camera, pts_mm, step)
    for start, t in zip(starts.tolist(), thick.astype(int).tolist(), strict=True):
        cv2.polylines(layer, [fixed[start : start + chunk + 1]], False, 255, t, line_type, 3)


def _disc(
    layer: np.ndarray, camera: Camera, centre: np.ndarray, radius_mm: float, step: int
) -> None:
    angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = centre + radius_mm * np.column_stack([np.cos(angles), np.sin(angles)])
    _convex(layer, camera, ring, step)


def _convex(layer: np.ndarray, camera: Camera, outline_mm: np.ndarray, step: int) -> None:
    pts = _to_layer(camera, outline_mm, step)
    hull = cv2.convexHull(pts.reshape(-1, 1, 2))
    cv2.fillConvexPoly(layer, hull, 255, cv2.LINE_AA, 3)


# ------------------------------------------------------------------- cords, pawns
@dataclass(frozen=True)
class _Layer:
    """One drawing step on the photo's pixels ``idx`` (flat indices).

    Either blends colours ``rgb`` (straight, 0..1, before highlight roll-off) with
    coverage ``alpha`` over what is there, or, when ``dim`` is given, multiplies the
    pixels by it (a shadow on something already drawn). ``label`` is the pixel class
    (:mod:`synth.labels`) of what a blending layer draws.
    """

    idx: np.ndarray
    rgb: np.ndarray | None = None
    alpha: np.ndarray | None = None
    dim: np.ndarray | None = None
    label: int = BACKGROUND

    def label_pixels(self, labels: np.ndarray) -> None:
        """Write ``label`` where this layer covers at least half a pixel (a shadow
        changes no class)."""
        if self.alpha is not None:
            labels[self.idx[self.alpha >= 0.5]] = self.label

    def apply(self, flat: np.ndarray) -> None:
        below = flat[self.idx].astype(np.float32)
        if self.dim is not None:
            below *= self.dim[:, None].astype(np.float32)
        else:
            assert self.rgb is not None and self.alpha is not None
            a = self.alpha[:, None].astype(np.float32)
            # below * (1 - a) + 255 * tone(rgb) * a
            top = _tone(self.rgb.astype(np.float32))
            top *= np.float32(255.0)
            top -= below
            top *= a
            below += top
        below += np.float32(0.5)
        flat[self.idx] = np.clip(below, 0, 255, out=below).astype(np.uint8)


def _sample_half(field: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear samples of a half-resolution field at full-resolution pixel positions."""
    n = len(xy)
    if n == 0:
        return np.zeros(0, np.float32)
    # cv2.remap wants maps shorter than 32767 rows: lay the points out as a block.
    cols = 4096
    rows = -(-n // cols)
    points = np.zeros((rows * cols, 2), np.float32)
    points[:n] = (xy + 0.5) / 2 - 0.5
    grid = points.reshape(rows, cols, 2)
    # A two-channel map1 carries both coordinates; map2 is then None.
    out = cv2.remap(
        field, grid, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out.reshape(-1)[:n])


def _lit(
    ctx: RenderContext, rgb: np.ndarray, xy: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Apply the light falling at each pixel, the white-balance cast and sensor noise."""
    out = rgb * ctx.tint.astype(np.float32)
    out *= _sample_half(ctx.gain, xy)[:, None]
    level = np.maximum(np.maximum(out[:, 0], out[:, 1]), out[:, 2])
    out += _object_noise(level, ctx.scene, rng)[:, None]
    return out


def _lit_colour(
    ctx: RenderContext, value: np.ndarray, rgb: np.ndarray, xy: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """:func:`_lit` for pixels of one colour ``rgb`` (3,) at brightness ``value`` (n,)."""
    colour = (np.asarray(rgb) * ctx.tint).astype(np.float32)
    value = value * _sample_half(ctx.gain, xy)
    noise = _object_noise(value * colour.max(), ctx.scene, rng)
    out = value[:, None] * colour[None, :]
    out += noise[:, None]
    return np.asarray(out)


def _cord_layers(ctx: RenderContext, rng: np.random.Generator) -> list[_Layer]:
    """Cords in random order, crossings fixed up, then knots with their tails."""
    objects, camera, lighting = ctx.objects, ctx.camera, ctx.lighting
    mat = ctx.scene.materials
    radius = mat.string_diameter_mm / 2
    layers: list[_Layer] = []

    def paint(band: CordBand | None, look: CordLook, label: int) -> _Layer | None:
        if band is None:
            return None
        # Only the pixels the cord covers change: shade just those.
        alpha = cord_coverage(band, look)
        covered = np.flatnonzero(alpha > 0.0)
        band = band.subset(covered)
        value = cord_brightness(band, look, rng)
        rgb = _lit_colour(ctx, value, look.rgb, band.xy, rng)
        return _Layer(band.idx, rgb, alpha[covered], label=label)

    # Flat indices (ascending) and coverage of each cord's first drawing.
    drawn: dict[str, tuple[np.ndarray, np.ndarray]] = {}
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
        layer = paint(band, looks[colour], cord_class(colour))
        if layer is not None and layer.alpha is not None:
            layers.append(layer)
            drawn[colour] = (layer.idx, layer.alpha)

    for xy, upper, lower in objects.crossings:
        if upper not in looks or lower not in drawn:
            continue
        piece = _piece_near(objects.lines[upper], np.asarray(xy), 5.0 * mat.string_diameter_mm)
        if piece is None:
            continue
        points, along = piece
        band = trace_cord(camera, points, radius, closed=False, margin=1.6,
                          along_start_mm=along, caps=False)
        layer = paint(band, looks[upper], cord_class(upper))
        if band is not None and layer is not None:
            layers.append(_shadow_on_lower(lighting, band, drawn[lower], radius))
            layers.append(layer)

    for colour, (lumps, tails) in ctx.knots.items():
        for tail in tails:
            taper = radius * np.linspace(1.0, 0.8, len(tail))
            tail_band = trace_cord(camera, tail, taper, closed=False, margin=0.2)
            layer = paint(tail_band, looks[colour], cord_class(colour))
            if layer is not None:
                layers.append(layer)
        knot_px = shade_knot(camera, lumps, looks[colour], rng)
        if knot_px is not None:
            layers.append(_solid_layer(ctx, *knot_px, rng, label=KNOT))
    return layers


def _solid_layer(
    ctx: RenderContext,
    idx: np.ndarray,
    premultiplied: np.ndarray,
    alpha: np.ndarray,
    rng: np.random.Generator,
    label: int = BACKGROUND,
) -> _Layer:
    """Layer of a ray-cast solid (knot lump, pawn) from its premultiplied colours."""
    width = ctx.camera.size[0]
    xy = np.column_stack([idx % width, idx // width]).astype(np.float32)
    straight = (premultiplied / np.maximum(alpha, 1e-6)[:, None]).astype(np.float32)
    return _Layer(idx, _lit(ctx, straight, xy, rng), alpha, label=label)


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
    lighting: Lighting,
    band: CordBand,
    lower: tuple[np.ndarray, np.ndarray],
    radius: float,
) -> _Layer:
    """Darken the lower cord beside the upper one, where the upper cord's shadow falls.

    ``lower`` holds the lower cord's flat pixel indices (ascending) and coverage.
    """
    # The upper cord rests on the lower one, about one diameter above the table: its
    # shadow lies beside it, shifted away from the light.
    offset = lighting.shadow_offset(2 * radius)
    shift = ((band.seg_normal @ offset) / radius).astype(np.float32)[band.seg]  # half-widths
    shadow = np.clip((1.6 - np.abs(band.across - shift)) / 0.7, 0.0, 1.0)
    shadow *= np.abs(band.across) > 0.9
    lidx, la = lower
    pos = np.clip(np.searchsorted(lidx, band.idx), 0, len(lidx) - 1)
    shadow *= np.where(lidx[pos] == band.idx, la[pos], 0.0)
    dark = np.flatnonzero(shadow > 0.0)
    dim = 1.0 - (0.25 + 0.5 * lighting.shadow_strength) * shadow[dark]
    return _Layer(band.idx[dark], dim=dim)


def _pawn_layers(ctx: RenderContext, rng: np.random.Generator) -> list[_Layer]:
    """Ray-cast the pawns far to near (painter's order)."""
    objects, camera, lighting = ctx.objects, ctx.camera, ctx.lighting
    mat = ctx.scene.materials
    shape = PawnShape(mat.pawn_width_mm, mat.pawn_height_mm, mat.pawn_style)
    if not objects.pawns:
        return []
    middles = np.array([[*p.foot_xy_mm, shape.height_mm / 2] for p in objects.pawns])
    layers = []
    for i in np.argsort(-camera.depth(middles), kind="stable"):
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
            sheen=mat.pawn_sheen,
            window=(mat.pawn_window, mat.pawn_window_deg),
        )
        if out is not None:
            layers.append(_solid_layer(ctx, *out, rng, label=pawn_class(pawn.colour)))
    return layers


# -------------------------------------------------------------------------- camera
def _finish(img: np.ndarray, scene: Scene) -> np.ndarray:
    """Defocus and the phone's sharpening, on the uint8 photo.

    The defocus is a Gaussian blur; the phone's unsharp mask boosts what a small
    blur (sigma 1 px) of the result would remove: ``(1 + s) soft - s blur(soft)``.
    Both are folded into one 1-D kernel applied along rows and then columns, a single
    pass over the photo: the same along the axes as blurring then sharpening the
    whole image, a touch stronger on the diagonals (below one grey level).
    """
    s = scene.sensor
    kernel = _finish_kernel(s.defocus_sigma_px, s.sharpen)
    return cv2.sepFilter2D(img, -1, kernel, kernel)


def _finish_kernel(defocus_sigma_px: float, sharpen: float) -> np.ndarray:
    """1-D kernel of :func:`_finish`: ``(1 + s) g_focus - s (g_focus * g_1)``."""
    focus = max(defocus_sigma_px, 0.3)
    k = 2 * int(np.ceil(2.5 * focus)) + 1  # cv2's default kernel is wider than needed
    soft = cv2.getGaussianKernel(k, focus, cv2.CV_64F).ravel()
    halo = np.convolve(soft, cv2.getGaussianKernel(5, 1.0, cv2.CV_64F).ravel())
    kernel = (1.0 + sharpen) * np.pad(soft, 2) - sharpen * halo
    return kernel.astype(np.float32)
