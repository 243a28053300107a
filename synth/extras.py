"""Things around the board that make a photo harder: the table's edge, clutter, and how
they are drawn.

:func:`arrange_extras` places what :class:`synth.scene.Extras` asked for once the camera
is known: the table edge crosses the frame near one side, a card or a cup stands at the
photo's border; all stay well off the play area (and the prediction pawns keep off them,
see :func:`keeps_off`). :func:`shade_card` and :func:`shade_cup` ray-cast them like
the pawns, for the renderer.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import shapely

from engine.board import Board
from synth.camera import Camera
from synth.lighting import Lighting
from synth.placement import strings_of
from synth.scene import RGB, Clutter, Scene, TableEdge

__all__ = [
    "PLAY_AREA_MARGIN_MM",
    "arrange_extras",
    "cup_shadow_outline",
    "edge_distance",
    "keeps_off",
    "shade_card",
    "shade_cup",
]

#: Clutter and the table edge stay at least this far from the strings' convex hull.
PLAY_AREA_MARGIN_MM = 110.0
_CARD_SIZE_MM = (63.0, 88.0)
_CARD_BACKS = [(0.62, 0.10, 0.12), (0.12, 0.22, 0.55), (0.10, 0.35, 0.20), (0.20, 0.20, 0.22)]
_GLAZES = [(0.92, 0.91, 0.88), (0.80, 0.20, 0.16), (0.22, 0.35, 0.60), (0.30, 0.30, 0.32),
           (0.85, 0.70, 0.30)]
_FLOORS = [(0.30, 0.26, 0.22), (0.55, 0.52, 0.48), (0.18, 0.16, 0.15), (0.45, 0.33, 0.22)]
_RIMS = [(0.35, 0.22, 0.12), (0.85, 0.85, 0.83), (0.15, 0.15, 0.15), (0.62, 0.46, 0.30)]


def arrange_extras(
    scene: Scene, camera: Camera, board: Board, rng: np.random.Generator
) -> Scene:
    """Place the table edge and the clutter the scene wants, in view and off the play
    area; what finds no place is left out."""
    extras = scene.extras
    if not extras.wants_table_edge and not extras.clutter_kinds:
        return scene
    play = _play_area(board)
    edge = _place_edge(camera, play, rng) if extras.wants_table_edge else None
    clutter: list[Clutter] = []
    for kind in extras.clutter_kinds:
        thing = _place_clutter(kind, camera, play, edge, clutter, rng)
        if thing is not None:
            clutter.append(thing)
    return dataclasses.replace(
        scene, extras=dataclasses.replace(extras, table_edge=edge, clutter=tuple(clutter))
    )


def keeps_off(scene: Scene, points_mm: np.ndarray, margin_mm: float) -> np.ndarray:
    """Which table points (N, 2) are on the table and at least ``margin_mm`` from every
    piece of clutter: where a prediction pawn may stand."""
    points = np.asarray(points_mm, dtype=float).reshape(-1, 2)
    free = np.ones(len(points), bool)
    edge = scene.extras.table_edge
    if edge is not None:
        free &= edge_distance(edge, points[:, 0], points[:, 1]) <= -margin_mm
    for thing in scene.extras.clutter:
        reach = 0.5 * math.hypot(*thing.size_mm) if thing.kind == "card" else thing.size_mm[0] / 2
        free &= np.hypot(*(points - thing.centre_mm).T) >= reach + margin_mm
    return free


def edge_distance(edge: TableEdge, x_mm: np.ndarray, y_mm: np.ndarray) -> np.ndarray:
    """Signed distance (mm) beyond the table's edge: negative on the table."""
    return np.asarray(
        (x_mm - edge.point_mm[0]) * edge.normal[0] + (y_mm - edge.point_mm[1]) * edge.normal[1]
    )


def _play_area(board: Board) -> shapely.Polygon:
    lines = strings_of(board)
    hull = lines.convex_hull
    assert isinstance(hull, shapely.Polygon)
    return hull


def _border_point(
    camera: Camera, side: int, along: float, inset: float
) -> tuple[float, float]:
    """A pixel ``inset`` (share of the frame) inside side ``side`` (0 top, 1 right,
    2 bottom, 3 left), ``along`` (0..1) along it."""
    width, height = camera.size
    if side == 0:
        return along * width, inset * height
    if side == 1:
        return (1 - inset) * width, along * height
    if side == 2:
        return along * width, (1 - inset) * height
    return inset * width, along * height


def _place_edge(
    camera: Camera, play: shapely.Polygon, rng: np.random.Generator
) -> TableEdge | None:
    """A table edge crossing the frame near one side, clear of the play area."""
    for side in rng.permutation(4):
        inset = float(rng.uniform(0.04, 0.2))
        tilt = float(rng.uniform(-0.08, 0.08))
        ends = np.array([
            _border_point(camera, int(side), 0.0, inset + tilt),
            _border_point(camera, int(side), 1.0, inset - tilt),
        ])
        a, b = camera.pixel_to_table(ends)
        if not np.all(np.isfinite([a, b])) or np.allclose(a, b):
            continue
        along = (b - a) / np.linalg.norm(b - a)
        normal = np.array([-along[1], along[0]])
        # Point the normal off the table: away from the play area.
        centre = np.asarray(play.centroid.coords[0])
        if np.dot(centre - a, normal) > 0:
            normal = -normal
        hull = np.asarray(play.exterior.coords)
        if np.max((hull - a) @ normal) > -PLAY_AREA_MARGIN_MM:
            continue
        return TableEdge(
            point_mm=(float(a[0]), float(a[1])),
            normal=(float(normal[0]), float(normal[1])),
            rim_mm=float(rng.uniform(3.0, 25.0)),
            rim_rgb=_pick(rng, _RIMS),
            floor_rgb=_pick(rng, _FLOORS),
            floor_light=float(rng.uniform(0.35, 0.75)),
        )
    return None


def _place_clutter(
    kind: str,
    camera: Camera,
    play: shapely.Polygon,
    edge: TableEdge | None,
    placed: list[Clutter],
    rng: np.random.Generator,
) -> Clutter | None:
    """A card or a cup at the photo's border, on the table and off the play area."""
    if kind == "card":
        size = (_CARD_SIZE_MM[0] * rng.uniform(0.9, 1.0), _CARD_SIZE_MM[1])
        rgb, rgb2 = _pick(rng, _CARD_BACKS), (0.93, 0.92, 0.90)
    else:
        size = (float(rng.uniform(75, 90)), float(rng.uniform(80, 100)))
        rgb, rgb2 = _pick(rng, _GLAZES), (0.16, 0.09, 0.05)
    reach = 0.5 * math.hypot(*size) if kind == "card" else size[0] / 2
    for _ in range(24):
        # Cups may stand partly out of the frame; cards lie just inside it.
        inset = float(rng.uniform(-0.03, 0.08) if kind == "cup" else rng.uniform(0.04, 0.12))
        pixel = _border_point(camera, int(rng.integers(4)), float(rng.uniform(0.1, 0.9)), inset)
        centre = camera.pixel_to_table(np.array([pixel]))[0]
        if not np.all(np.isfinite(centre)):
            continue
        if play.distance(shapely.Point(centre)) < reach + PLAY_AREA_MARGIN_MM:
            continue
        if edge is not None and edge_distance(edge, centre[0], centre[1]) > -reach - 10:
            continue
        if any(math.dist(centre, other.centre_mm) < reach + 60 for other in placed):
            continue
        return Clutter(
            kind=kind,
            centre_mm=(float(centre[0]), float(centre[1])),
            angle_deg=float(rng.uniform(0, 180)),
            size_mm=(float(size[0]), float(size[1])),
            rgb=rgb,
            rgb2=rgb2,
        )
    return None


def _pick(rng: np.random.Generator, colours: list[RGB]) -> RGB:
    """One of ``colours``, a little lighter or darker."""
    r, g, b = colours[int(rng.integers(len(colours)))]
    k = float(rng.uniform(0.9, 1.05))
    return (min(r * k, 1.0), min(g * k, 1.0), min(b * k, 1.0))


# --- drawing -------------------------------------------------------------------------


def cup_shadow_outline(cup: Clutter, lighting: Lighting) -> np.ndarray:
    """Outline (table mm) whose convex hull is the cup's shadow on the table."""
    radius, height = cup.size_mm[0] / 2, cup.size_mm[1]
    angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = np.asarray(cup.centre_mm) + radius * np.column_stack([np.cos(angles), np.sin(angles)])
    return np.vstack([ring, ring + lighting.shadow_offset(height)])


_Shaded = tuple[np.ndarray, np.ndarray, np.ndarray]


def _window(camera: Camera, corners_mm: np.ndarray) -> tuple[int, int, int, int] | None:
    uv = camera.project(corners_mm)
    width, height = camera.size
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(int(x0), 0), max(int(y0), 0), min(int(x1), width), min(int(y1), height)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, x1, y0, y1


def shade_card(camera: Camera, card: Clutter) -> _Shaded | None:
    """A playing card lying on the table: flat indices, premultiplied colour (before the
    light falling on the table), coverage; None when out of the photo."""
    w, h = card.size_mm
    theta = math.radians(card.angle_deg)
    u_axis = np.array([math.cos(theta), math.sin(theta)])
    v_axis = np.array([-u_axis[1], u_axis[0]])
    centre = np.asarray(card.centre_mm)
    corners = np.array([centre + su * w / 2 * u_axis + sv * h / 2 * v_axis
                        for su in (-1, 1) for sv in (-1, 1)])
    window = _window(camera, corners)
    if window is None:
        return None
    x0, x1, y0, y1 = window
    xs, ys = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1))
    pixels = np.column_stack([xs.ravel(), ys.ravel()]).astype(float)
    table = camera.pixel_to_table(pixels)
    local = table - centre
    u, v = local @ u_axis, local @ v_axis
    mm_per_px = 1.0 / float(camera.px_per_mm(centre[None])[0])
    # Rounded corners, 3 mm: distance inside the card's outline.
    r = 3.0
    qu, qv = np.abs(u) - (w / 2 - r), np.abs(v) - (h / 2 - r)
    outside = np.hypot(np.maximum(qu, 0), np.maximum(qv, 0)) + np.minimum(np.maximum(qu, qv), 0)
    inside = r - outside
    alpha = np.clip(np.nan_to_num(inside, nan=-1.0) / mm_per_px + 0.5, 0.0, 1.0)
    keep = np.flatnonzero(alpha > 0)
    if len(keep) == 0:
        return None
    # The printed back: a lattice of diamonds inside a white border.
    border = inside[keep] < 4.5
    lattice = np.cos((u[keep] + v[keep]) * 0.9) * np.cos((u[keep] - v[keep]) * 0.9) > 0
    back = np.where(lattice[:, None], np.asarray(card.rgb), np.asarray(card.rgb) * 0.75)
    rgb = np.where(border[:, None], np.asarray(card.rgb2), back)
    idx = ys.ravel()[keep].astype(np.int64) * camera.size[0] + xs.ravel()[keep]
    return idx, rgb * alpha[keep, None], alpha[keep]


def shade_cup(camera: Camera, cup: Clutter, lighting: Lighting) -> _Shaded | None:
    """A mug (a glazed cylinder with coffee in it) ray-cast like the pawns."""
    radius, height = cup.size_mm[0] / 2, cup.size_mm[1]
    cx, cy = cup.centre_mm
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.column_stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)])
    corners = np.vstack([np.column_stack([ring, np.zeros(16)]),
                         np.column_stack([ring, np.full(16, height)])])
    if np.any(camera.depth(corners) <= 1.0):
        return None
    window = _window(camera, corners)
    if window is None:
        return None
    x0, x1, y0, y1 = window
    dx, dy, dz = camera.window_rays(x0, x1, y0, y1)
    ox, oy, oz = camera.centre_mm[0] - cx, camera.centre_mm[1] - cy, camera.centre_mm[2]
    horizontal = np.maximum(dx * dx + dy * dy, 1e-12)
    t_mid = -(ox * dx + oy * dy) / horizontal
    miss2 = (ox + t_mid * dx) ** 2 + (oy + t_mid * dy) ** 2
    t_side = t_mid - np.sqrt(np.maximum(radius**2 - miss2, 0.0) / horizontal)
    z_side = oz + t_side * dz
    px = 1.0 / camera.focal_px  # mm per pixel per mm along the ray
    side_cov = np.clip((radius - np.sqrt(miss2)) / (np.maximum(t_side, 1.0) * px) + 0.5, 0, 1)
    side_cov *= (z_side >= 0) & (z_side <= height)
    t_top = (height - oz) / np.where(np.abs(dz) > 1e-9, dz, -1e-9)
    top_r = np.hypot(ox + t_top * dx, oy + t_top * dy)
    top_cov = np.clip((radius - top_r) / (np.maximum(t_top, 1.0) * px) + 0.5, 0, 1)
    top_cov *= t_top > 0
    top = top_cov > 0
    alpha = np.maximum(side_cov, top_cov)
    keep = alpha > 0
    if not keep.any():
        return None
    # The side: glaze lit like the pawns, by its outward normal.
    nx = (ox + t_side * dx) / radius
    ny = (oy + t_side * dy) / radius
    normal = np.stack([nx[keep], ny[keep], np.zeros(int(keep.sum()))], axis=1)
    glaze = np.asarray(cup.rgb)[None] * lighting.shade(normal)[:, None]
    # The top: a rim of glaze 4 mm wide round the coffee.
    rim = (top_r[keep] > radius - 4.0)[:, None]
    lid = np.where(rim, np.asarray(cup.rgb) * 1.05, np.asarray(cup.rgb2))
    rgb = np.where(top[keep][:, None], lid, glaze)
    a = alpha[keep]
    ys, xs = np.nonzero(keep)
    idx = (ys + y0).astype(np.int64) * camera.size[0] + (xs + x0)
    return idx, rgb * a[:, None], a
