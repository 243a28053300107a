"""Chubby painted wooden pawns: shape, shading with a painted face, cast shadow.

A pawn is a solid of revolution approximated by a few spheroids, which
:mod:`synth.solids` ray-casts exactly. Sets of pawns differ, so a scene picks one of
several shapes (:data:`PAWN_STYLES`): a squat body with a round head ("snowman"), the
same on a flared base ("flared"), or a tapering cone-like body ("cone"). Demons carry
two small horns on the head, as the real figures do; ghosts are smooth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.colours import DEMON
from synth.camera import Camera
from synth.lighting import Lighting
from synth.objects import PAWN_STYLES, Pawn
from synth.solids import Spheroid, composite_front_to_back, raycast

__all__ = ["PAWN_STYLES", "PawnShape", "pawn_parts", "shade_pawn", "shadow_outlines"]

@dataclass(frozen=True)
class PawnShape:
    """Pawn size in millimetres (widest diameter, total height) and shape."""

    width_mm: float
    height_mm: float
    style: str = "snowman"

    def __post_init__(self) -> None:
        if self.style not in PAWN_STYLES:
            raise ValueError(f"unknown pawn style {self.style!r}; expected one of {PAWN_STYLES}")


@dataclass(frozen=True)
class PawnParts:
    """The spheroids of one pawn; ``head`` indexes the one that carries the face."""

    parts: list[Spheroid]
    head: int


def pawn_parts(foot_xy: tuple[float, float], shape: PawnShape, kind: str = "ghost") -> PawnParts:
    """The spheroids of a pawn of ``kind`` standing at ``foot_xy``.

    Every style keeps within ``shape.width_mm`` across, so a pawn never reaches
    further than half its width from its foot point.
    """
    x, y = foot_xy
    w, h = shape.width_mm, shape.height_mm
    r_head = 0.30 * w
    z_head = h - r_head
    if shape.style == "cone":
        # A tapering body of three stacked lenses under a smaller head.
        r_head = 0.26 * w
        z_head = h - r_head
        body = [
            Spheroid((x, y, 0.10 * h), 0.50 * w, 0.22 * h),
            Spheroid((x, y, 0.34 * h), 0.38 * w, 0.24 * h),
            Spheroid((x, y, 0.55 * h), 0.27 * w, 0.20 * h),
        ]
    else:
        # A squat body cut by the table below its equator.
        body = [Spheroid((x, y, 0.30 * h), w / 2, 0.42 * h)]
        if shape.style == "flared":
            body.insert(0, Spheroid((x, y, 0.0), 0.48 * w, 0.09 * h))
    parts = [*body, Spheroid((x, y, z_head), r_head, r_head)]
    head = len(parts) - 1
    if kind == DEMON:
        for side in (-1.0, 1.0):
            # Two stubby horns on top of the head, leaning outwards.
            hx = x + side * 0.5 * r_head
            parts.append(Spheroid((hx, y, z_head + 0.8 * r_head), 0.26 * r_head, 0.45 * r_head))
    return PawnParts(parts, head)


def shade_pawn(
    camera: Camera,
    pawn: Pawn,
    shape: PawnShape,
    paint_rgb: np.ndarray,
    gloss: float,
    lighting: Lighting,
    facing_rad: float,
    rng: np.random.Generator,
    sheen: float = 0.0,
    window: tuple[float, float] = (0.0, 0.0),
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Render one pawn.

    Parameters
    ----------
    camera : Camera
    pawn : Pawn
    shape : PawnShape
    paint_rgb : ndarray, shape (3,)
        Paint colour (display 0..1) before lighting.
    gloss : float
        Strength of the specular highlight of the varnish.
    lighting : Lighting
    facing_rad : float
        Direction the painted face looks, in the table plane.
    rng : numpy.random.Generator
    sheen : float, optional
        How much of the room a lacquered finish mirrors (0, painted wood, mirrors
        nothing); a lacquered pawn's lamp highlight is sharper too.
    window : (float, float), optional
        How bright a wide light round the key light (a window, a soft box) is, mirrored
        by a lacquered finish, and its angular radius in degrees; (0, 0), none.

    Returns
    -------
    idx : ndarray
        Flat photo indices of the pawn's pixels.
    rgb : ndarray, shape (n, 3)
        Premultiplied colour before the scene's illumination gain.
    alpha : ndarray, shape (n,)
    or None when the pawn is not in the photo.
    """
    made = pawn_parts(pawn.foot_xy_mm, shape, pawn.kind)
    parts = made.parts
    hits = raycast(camera, parts)
    if hits is None:
        return None
    colours = np.zeros((len(parts), len(hits.ys), 3))
    for k in range(len(parts)):
        # Shade only the pixels this part covers: a horn covers few of the window's.
        seen = np.flatnonzero(hits.coverage[k] > 0.0)
        normal, point = hits.normal[k][seen], hits.point[k][seen]
        shade = lighting.shade(normal)
        # Near the table the body sees less sky: darken its lower edge.
        occl = 0.55 + 0.45 * np.clip(point[:, 2] / (0.25 * shape.height_mm), 0.0, 1.0)
        grain = _wood_grain(point, pawn.foot_xy_mm, rng)
        paint = paint_rgb[None, :] * (shade * occl * grain)[:, None]
        if k == made.head:
            paint = _paint_face(paint, normal, facing_rad)
        spec = gloss * lighting.shadow_strength * lighting.specular(
            point, normal, camera.centre_mm, exponent=80.0 if sheen > 0 else 40.0
        )
        if sheen > 0:
            facing, ray = _mirrored_ray(point, normal, camera.centre_mm)
            mirrored = sheen * _room_reflection(facing, ray)
            mirrored *= 1.0 - 0.5 * lighting.shadow_strength  # a sunlit room is dim beside it
            paint = paint * np.clip(1.0 - 0.5 * mirrored, 0.0, 1.0)[:, None]
            spec = spec + mirrored
            if window[0] > 0:
                spec = spec + window[0] * _window_reflection(
                    facing, ray, lighting.to_light(point), window[1])
        colours[k, seen] = paint + spec[:, None]
    rgb, alpha = composite_front_to_back(hits.t, hits.coverage, colours)
    keep = alpha > 0.0
    idx = hits.ys[keep].astype(np.int64) * camera.size[0] + hits.xs[keep]
    return idx, rgb[keep], alpha[keep]


def _mirrored_ray(
    point: np.ndarray, normal: np.ndarray, eye: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """How squarely each surface point faces ``eye`` (the cosine, 0 where it turns away)
    and the unit ray a glossy surface there mirrors towards it."""
    to_eye = eye - point
    to_eye /= np.linalg.norm(to_eye, axis=1)[:, None]
    facing = np.clip(np.einsum("ij,ij->i", normal, to_eye), 0.0, 1.0)
    return facing, 2.0 * facing[:, None] * normal - to_eye


def _room_reflection(facing: np.ndarray, ray: np.ndarray) -> np.ndarray:
    """How bright the room is where a glossy surface mirrors it along ``ray``.

    The ceiling or sky above is bright and the room around darker, so a lacquered pawn
    shows a white patch where it mirrors straight up (the top of the head, the shoulders)
    and, by Fresnel's law, a brighter rim where the surface turns away from the camera.
    """
    up = np.clip(ray[:, 2], 0.0, 1.0)  # the mirrored ray's height
    # The walls and table round about are dim; a lamp or window high above is a small
    # bright patch.
    room = 0.1 + 0.3 * up + 12.0 * up**8
    fresnel = 0.15 + 0.85 * (1.0 - facing) ** 5  # Schlick's, from a floor of 0.15
    return np.asarray(room * fresnel)


def _window_reflection(
    facing: np.ndarray, ray: np.ndarray, to_light: np.ndarray, radius_deg: float
) -> np.ndarray:
    """Where a glossy surface mirrors, along ``ray``, a wide light towards ``to_light``.

    A window or soft box round the key light's direction, ``radius_deg`` its angular
    radius, shows on a lacquered pawn as a broad soft white patch on its side towards the
    light: full within half the radius of the light's direction, fading to nothing at
    the radius. Fresnel's law brightens it a little where the surface turns away from the
    camera. The window is not cut at the horizon: a low light's patch reaches down the
    pawn's side, where the table would be mirrored.
    """
    towards = np.einsum("ij,ij->i", ray, to_light)
    outer, inner = np.cos(np.radians(radius_deg)), np.cos(np.radians(0.5 * radius_deg))
    t = np.clip((towards - outer) / (inner - outer), 0.0, 1.0)
    soft = t * t * (3.0 - 2.0 * t)  # smoothstep: no hard edge
    fresnel = 0.7 + 0.3 * (1.0 - facing) ** 5
    return np.asarray(soft * fresnel)


def _wood_grain(
    point: np.ndarray, foot: tuple[float, float], rng: np.random.Generator
) -> np.ndarray:
    """Faint rings of the turned wood showing through the paint."""
    phase = rng.uniform(0, 2 * np.pi)
    r = np.hypot(point[:, 0] - foot[0], point[:, 2] * 0.6 + point[:, 1] - foot[1])
    rings = 1.0 + 0.025 * np.sin(r * 2.3 + phase)
    return np.asarray(rings + 0.015 * rng.standard_normal(len(point)))


def _paint_face(paint: np.ndarray, normal: np.ndarray, facing: float) -> np.ndarray:
    """Two dark dot eyes and a small smile on the head, as painted on the figures."""
    # Only the front of the head (within about 0.6 rad of the facing direction, and
    # not the top or the bottom) can carry the face: look at just that part.
    front = np.flatnonzero(
        (normal[:, 0] * np.cos(facing) + normal[:, 1] * np.sin(facing) > 0.75)
        & (np.abs(normal[:, 2]) < 0.65)
    )
    n = normal[front]
    az = np.arctan2(n[:, 1], n[:, 0])
    el = np.arcsin(np.clip(n[:, 2], -1.0, 1.0))
    rel = np.remainder(az - facing + np.pi, 2 * np.pi) - np.pi  # wrapped to -pi..pi
    eyes = np.minimum(np.hypot(rel - 0.38, el - 0.25), np.hypot(rel + 0.38, el - 0.25)) < 0.16
    mouth_r = np.hypot(rel, (el + 0.02) * 1.1)
    mouth = (np.abs(mouth_r - 0.42) < 0.06) & (el < -0.1) & (np.abs(rel) < 0.45)
    dark = front[eyes | mouth]
    out = paint.copy()
    out[dark] = out[dark] * 0.12 + 0.02
    return out


def shadow_outlines(
    foot_xy: tuple[float, float], shape: PawnShape, lighting: Lighting
) -> list[np.ndarray]:
    """Convex outlines (table mm) whose union is the pawn's shadow on the table.

    Each spheroid throws an elliptical shadow, stretched by 1/sin(elevation) along the
    light's direction; the foot disc is added so the shadow starts at the pawn.
    """
    d = lighting.direction
    elev = max(float(np.arcsin(d[2])), np.radians(5.0))
    along = -d[:2] / max(np.linalg.norm(d[:2]), 1e-9)  # away from the light
    across = np.array([-along[1], along[0]])
    angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    outlines = []
    parts = pawn_parts(foot_xy, shape).parts
    for part in parts:
        cx, cy, cz = part.centre
        centre = np.array([cx, cy]) + lighting.shadow_offset(cz)
        semi_along = np.hypot(part.a * np.sin(elev), part.c * np.cos(elev)) / np.sin(elev)
        pts = (
            centre
            + np.outer(np.cos(angles) * semi_along, along)
            + np.outer(np.sin(angles) * part.a, across)
        )
        outlines.append(pts)
    body = parts[0]
    base_r = body.a * np.sqrt(max(1.0 - (body.centre[2] / body.c) ** 2, 0.0))
    foot = np.asarray(foot_xy) + base_r * np.column_stack([np.cos(angles), np.sin(angles)])
    # Bridge each part's shadow to the next so a long shadow has no gap at a neck.
    bridges = [np.vstack(outlines[i : i + 2]) for i in range(len(outlines) - 1)]
    return [*outlines, foot, *bridges]
