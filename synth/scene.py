"""Scene parameters of one synthetic photo, and how to sample them.

A :class:`Scene` is a plain value: the table, the light, the camera, the sensor and the
materials of strings and pawns. It holds no random textures; the renderer draws those
from its own generator, so a scene plus a seed fully determines a photo.

``difficulty`` widens every range: *easy* is a calm, near top-down photo on wood or a
plain cloth; *normal* adds steeper angles, white tables, stronger colour casts and
compression; *hard* adds green felt and blue mats (cords of the same colour almost
vanish), harsh low side light with crisp shadows, tilts up to 35°, more noise and blur.
"""

from __future__ import annotations

import colorsys
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from synth.camera import Camera, CameraParams, fit_camera_distance
from synth.objects import PAWN_STYLES

__all__ = [
    "DIFFICULTIES",
    "CameraParams",
    "Clutter",
    "Extras",
    "LightParams",
    "MaterialParams",
    "Scene",
    "SensorParams",
    "TableEdge",
    "TableParams",
    "lacquer_pawns",
    "pale_table",
    "sample_scene",
]

DIFFICULTIES = ("easy", "normal", "hard")
RGB = tuple[float, float, float]

# Display-referred base colours (0..1 sRGB). Dyed cotton is never a pure primary.
_CORD_RGB: dict[str, RGB] = {
    "red": (0.72, 0.10, 0.11),
    "yellow": (0.93, 0.75, 0.13),
    "green": (0.11, 0.49, 0.24),
    "blue": (0.10, 0.22, 0.60),
}
# Painted wood: a little more saturated and glossier than the cord of the same colour.
_PAWN_RGB: dict[str, RGB] = {
    "red": (0.80, 0.09, 0.08),
    "yellow": (0.96, 0.80, 0.08),
    "green": (0.09, 0.55, 0.22),
    "blue": (0.09, 0.26, 0.74),
    "white": (0.93, 0.92, 0.88),
}
# Table kinds: (base colour, second colour for grain/plank variation).
_TABLE_RGB: dict[str, tuple[RGB, RGB]] = {
    "light_wood": ((0.80, 0.60, 0.38), (0.60, 0.40, 0.22)),
    "dark_wood": ((0.48, 0.29, 0.16), (0.28, 0.15, 0.08)),
    "green_felt": ((0.13, 0.42, 0.22), (0.09, 0.33, 0.17)),
    "white_table": ((0.92, 0.92, 0.90), (0.86, 0.86, 0.85)),
}
_CLOTH_RGB: dict[str, RGB] = {
    "grey": (0.62, 0.61, 0.60),
    "beige": (0.78, 0.72, 0.60),
    "cream": (0.88, 0.85, 0.76),
    "light_blue": (0.62, 0.70, 0.78),
    "sage": (0.62, 0.68, 0.58),
    "taupe": (0.55, 0.50, 0.46),
    "burgundy": (0.45, 0.13, 0.16),
    "navy": (0.16, 0.20, 0.34),
    "mustard": (0.76, 0.61, 0.22),
}
_BLUE_MAT_RGB: dict[str, RGB] = {
    "neoprene": (0.12, 0.27, 0.52),
    "cutting_mat": (0.15, 0.33, 0.58),
}

# Which choices each difficulty may draw from (later ones include the earlier ones).
_TABLES = {
    "easy": ["light_wood", "dark_wood", "cloth"],
    "normal": ["light_wood", "dark_wood", "cloth", "white_table"],
    "hard": ["light_wood", "dark_wood", "cloth", "white_table", "green_felt", "blue_mat"],
}
#: Every kind of table a photo may be taken on.
TABLE_KINDS = tuple(dict.fromkeys(kind for kinds in _TABLES.values() for kind in kinds))
_CLOTHS = {
    "easy": ["grey", "beige", "cream"],
    "normal": ["grey", "beige", "cream", "light_blue", "sage", "taupe"],
    "hard": list(_CLOTH_RGB),
}
_LIGHTS = {
    "easy": ["lamp_side", "window", "overhead_soft"],
    "normal": ["lamp_side", "window", "overhead_soft"],
    "hard": ["lamp_side", "window", "overhead_soft", "harsh_side"],
}
#: Every kind of key light a photo may be taken under.
LIGHT_KINDS = tuple(dict.fromkeys(kind for kinds in _LIGHTS.values() for kind in kinds))
Span = tuple[float, float]

#: How often each difficulty turns each extra on (:class:`Extras`).
_EXTRA_CHANCE = {
    "easy": {"second_light": 0.1, "table_edge": 0.1, "clutter": 0.1, "exif": 0.15,
             "far_camera": 0.05},
    "normal": {"second_light": 0.25, "table_edge": 0.25, "clutter": 0.25, "exif": 0.25,
               "far_camera": 0.12},
    "hard": {"second_light": 0.4, "table_edge": 0.4, "clutter": 0.4, "exif": 0.3,
             "far_camera": 0.2},
}
#: Felt and mats also come in pale shades (:func:`pale_table`): the palest of each, and
#: how often a table of the kind is drawn towards it.
_PALE_TABLE_RGB: dict[str, RGB] = {"green_felt": (0.30, 0.66, 0.40), "blue_mat": (0.45, 0.58, 0.88)}
_PALE_TABLE_CHANCE = 0.4
#: How often a scene's pawns are lacquered rather than painted wood (:func:`lacquer_pawns`).
_LACQUER_CHANCE = {"easy": 0.15, "normal": 0.3, "hard": 0.4}
#: How often lacquered pawns mirror a wide window or soft box, not only the small bright
#: patch overhead.
_WINDOW_CHANCE = 0.7
#: Chances of the pawn shapes (:data:`synth.pawns.PAWN_STYLES`) per difficulty.
_PAWN_STYLE_WEIGHTS = {
    "easy": [0.6, 0.25, 0.15],
    "normal": [0.4, 0.3, 0.3],
    "hard": [0.34, 0.33, 0.33],
}


def table_kinds_of(difficulty: str) -> tuple[str, ...]:
    """The kinds of table a photo of ``difficulty`` may be taken on (KeyError for an
    unknown difficulty)."""
    return tuple(_TABLES[difficulty])


def light_kinds_of(difficulty: str) -> tuple[str, ...]:
    """The kinds of key light a photo of ``difficulty`` may be taken under (KeyError for
    an unknown difficulty)."""
    return tuple(_LIGHTS[difficulty])


@dataclass(frozen=True)
class _Ranges:
    """How far one difficulty lets the continuous knobs go: (low, high) spans."""

    tilt: Span
    fill: Span
    k1: float  # |k1| at most
    temp: Span
    awb: Span
    unevenness: Span
    vignette: Span
    noise_a: Span
    blur: Span  # defocus sigma, pixels of a 12 MP photo
    jpeg: tuple[int, int]
    exposure: Span
    hue: float  # hue jitter of cord and paint colours, at most


_RANGES = {
    "easy": _Ranges(
        tilt=(0.0, 10.0), fill=(0.6, 0.9), k1=0.02, temp=(3000, 6500), awb=(0.75, 0.95),
        unevenness=(0.0, 0.3), vignette=(0.05, 0.2), noise_a=(2e-4, 8e-4),
        blur=(0.4, 0.9), jpeg=(85, 95), exposure=(0.92, 1.08), hue=0.01,
    ),
    "normal": _Ranges(
        tilt=(0.0, 20.0), fill=(0.5, 0.9), k1=0.04, temp=(2700, 7500), awb=(0.6, 0.9),
        unevenness=(0.1, 0.6), vignette=(0.1, 0.3), noise_a=(4e-4, 1.5e-3),
        blur=(0.5, 1.3), jpeg=(75, 95), exposure=(0.82, 1.15), hue=0.02,
    ),
    "hard": _Ranges(
        tilt=(5.0, 35.0), fill=(0.5, 0.9), k1=0.08, temp=(2400, 8000), awb=(0.4, 0.8),
        unevenness=(0.3, 1.0), vignette=(0.15, 0.45), noise_a=(8e-4, 4e-3),
        blur=(0.7, 2.0), jpeg=(70, 90), exposure=(0.68, 1.3), hue=0.03,
    ),
}


@dataclass(frozen=True)
class _LightKind:
    """Typical ranges of one kind of light."""

    elevation: Span  # degrees
    temp: Span  # kelvin, clipped to the difficulty's range
    key_fill: Span
    size: Span  # apparent size of the source, degrees: bigger is softer
    distance: Span | None  # lamp distance from the board (mm); None for daylight


_LIGHT_KINDS = {
    "lamp_side": _LightKind((30, 55), (2600, 3600), (3, 9), (4, 9), (600, 1300)),
    "window": _LightKind((15, 40), (5500, 7500), (2, 5), (10, 20), None),
    "overhead_soft": _LightKind((70, 90), (3800, 5200), (1.5, 3), (20, 35), (900, 1600)),
    "harsh_side": _LightKind((12, 30), (4500, 6000), (6, 15), (0.5, 2), None),
}


@dataclass(frozen=True)
class TableParams:
    """The table surface.

    ``kind`` is one of ``light_wood``, ``dark_wood``, ``cloth``, ``green_felt``,
    ``blue_mat``, ``white_table``; ``variant`` names the cloth colour or mat type, with
    ``pale_`` before it for a pale felt or mat (:func:`pale_table`).
    ``grain_angle_deg`` orients wood planks, cloth weave and mat grids on the table.
    ``gloss`` scales the lamp's specular reflection (varnished wood, plastic mats).
    """

    kind: str
    variant: str
    rgb: RGB
    rgb2: RGB
    grain_angle_deg: float
    plank_width_mm: float
    texture_strength: float
    gloss: float
    grid_mm: float


@dataclass(frozen=True)
class LightParams:
    """The key light, its colour and how unevenly it lights the table.

    ``azimuth_deg`` is the direction *towards* the light in the table plane (0° = +x,
    90° = +y, i.e. down the table); ``elevation_deg`` its height above the table.
    ``distance_mm`` is how far a lamp is from the board centre (``inf`` for sunlight).
    ``source_size_deg`` is the light's apparent size: bigger means softer shadows.
    ``awb_correction`` is how much of the colour cast the camera's auto white balance
    removes (1 = all of it).
    """

    kind: str
    temperature_k: float
    awb_correction: float
    azimuth_deg: float
    elevation_deg: float
    distance_mm: float
    key_fill_ratio: float
    source_size_deg: float
    unevenness: float
    exposure: float


@dataclass(frozen=True)
class SensorParams:
    """Sensor and processing: noise (variance ``a * signal + b``), vignetting,
    defocus blur (pixels), phone sharpening and JPEG quality."""

    noise_a: float
    noise_b: float
    vignette: float
    defocus_sigma_px: float
    sharpen: float
    jpeg_quality: int


@dataclass(frozen=True)
class MaterialParams:
    """Colours and sizes of cords and pawns for this scene."""

    cord_rgb: dict[str, RGB]
    pawn_rgb: dict[str, RGB]
    string_diameter_mm: float
    twist_pitch_mm: float
    knot_scale: float
    pawn_width_mm: float
    pawn_height_mm: float
    pawn_gloss: float
    #: One of :data:`synth.pawns.PAWN_STYLES`: the shape of this set of pawns.
    pawn_style: str = "snowman"
    #: How much of the room a lacquered, plastic-like finish mirrors (0: painted wood).
    pawn_sheen: float = 0.0
    #: How bright the window (or other wide light) a lacquered finish mirrors is, as a
    #: broad soft white patch on the side towards the key light (0: none mirrored).
    pawn_window: float = 0.0
    #: How wide that window looks from the pawn: the angular radius of its patch, degrees.
    pawn_window_deg: float = 0.0


@dataclass(frozen=True)
class TableEdge:
    """Where the table ends, and the floor beyond it.

    The edge is the line through ``point_mm`` (table millimetres) across ``normal``, the
    unit vector pointing off the table. The table's edge banding, ``rim_mm`` wide as the
    camera sees it, is ``rim_rgb``; the floor, far below and out of focus, is
    ``floor_rgb`` in ``floor_light`` times the table's light.
    """

    point_mm: tuple[float, float]
    normal: tuple[float, float]
    rim_mm: float
    rim_rgb: RGB
    floor_rgb: RGB
    floor_light: float


@dataclass(frozen=True)
class Clutter:
    """Something else on the table, near the photo's border and off the play area.

    ``kind`` is ``"card"`` (a playing card lying flat: ``size_mm`` is its width and
    length, ``rgb`` its printed back, ``rgb2`` its white border) or ``"cup"`` (a mug:
    ``size_mm`` is its diameter and height, ``rgb`` its glaze, ``rgb2`` the coffee).
    """

    kind: str
    centre_mm: tuple[float, float]
    angle_deg: float
    size_mm: tuple[float, float]
    rgb: RGB
    rgb2: RGB


@dataclass(frozen=True)
class Extras:
    """Occasional things that make a photo harder, drawn more often the harder it is.

    ``second_light`` is a weaker second light with ``second_share`` of the direct light
    (a second set of pawn shadows); ``table_edge`` and ``clutter`` are placed once the
    camera is known (:func:`synth.extras.arrange_extras`), where they want a table edge
    and how many things (``clutter_kinds``); ``exif_orientation`` is the EXIF
    Orientation tag the JPEG is stored with (1 = upright; 3, 6, 8 = the pixels are
    stored turned, as a phone held sideways stores them); ``far_camera`` says the
    camera was moved back until the strings are only about 3 px wide at 4032 px.
    """

    second_light: LightParams | None = None
    second_share: float = 0.0
    wants_table_edge: bool = False
    clutter_kinds: tuple[str, ...] = ()
    table_edge: TableEdge | None = None
    clutter: tuple[Clutter, ...] = ()
    exif_orientation: int = 1
    far_camera: bool = False


@dataclass(frozen=True)
class Scene:
    """Everything that makes one photo, apart from the board itself and the noise seed."""

    difficulty: str
    size: tuple[int, int]
    board_extent_mm: tuple[float, float, float, float]
    table: TableParams
    light: LightParams
    camera: CameraParams
    sensor: SensorParams
    materials: MaterialParams
    extras: Extras = Extras()

    def to_json(self) -> dict[str, Any]:
        """Return the scene as plain JSON types (dicts, lists, str, float, int)."""
        plain = _plain(dataclasses.asdict(self))
        assert isinstance(plain, dict)
        return plain


def _plain(value: object) -> object:
    """Turn tuples, NumPy scalars and infinities into JSON-friendly values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer | int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, np.floating | float):
        v = float(value)
        return round(v, 6) if np.isfinite(v) else None
    return value


def sample_scene(
    rng: np.random.Generator,
    difficulty: str,
    size: tuple[int, int],
    board_extent_mm: tuple[float, float, float, float],
) -> Scene:
    """Draw a random scene.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness; the same state gives the same scene.
    difficulty : {"easy", "normal", "hard"}
        How far the variation goes.
    size : (width, height)
        Photo size in pixels.
    board_extent_mm : (xmin, ymin, xmax, ymax)
        Bounding box of the board on the table; the camera is placed so that it spans
        50–90% of the frame.

    Returns
    -------
    Scene

    Raises
    ------
    ValueError
        If ``difficulty`` is unknown or the extent is empty.
    """
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, not {difficulty!r}")
    x0, y0, x1, y1 = (float(v) for v in board_extent_mm)
    if not (x1 > x0 and y1 > y0):
        raise ValueError(f"empty board extent {board_extent_mm!r}")
    r = _RANGES[difficulty]
    width, height = int(size[0]), int(size[1])
    table = _sample_table(rng, difficulty)
    light = _sample_light(rng, difficulty)
    camera = _sample_camera(rng, r, (width, height), (x0, y0, x1, y1))
    diag_scale = np.hypot(width, height) / 5040.0  # ranges are quoted for a 12 MP photo
    sensor = SensorParams(
        noise_a=float(rng.uniform(*r.noise_a)),
        noise_b=float(rng.uniform(1e-5, 1e-4)),
        vignette=float(rng.uniform(*r.vignette)),
        defocus_sigma_px=float(rng.uniform(*r.blur) * diag_scale),
        sharpen=float(rng.uniform(0.2, 0.8)),
        jpeg_quality=int(rng.integers(r.jpeg[0], r.jpeg[1] + 1)),
    )
    materials = _sample_materials(rng, r.hue, difficulty)
    extras = _sample_extras(rng, difficulty, light)
    if extras.far_camera:
        camera = _move_back(rng, camera, (width, height), (x0, y0, x1, y1), materials)
    return Scene(
        difficulty=difficulty,
        size=(width, height),
        board_extent_mm=(x0, y0, x1, y1),
        table=table,
        light=light,
        camera=camera,
        sensor=sensor,
        materials=materials,
        extras=extras,
    )


def _sample_table(rng: np.random.Generator, difficulty: str) -> TableParams:
    kind = str(rng.choice(_TABLES[difficulty]))
    variant, grid = "plain", 0.0
    if kind == "cloth":
        variant = str(rng.choice(_CLOTHS[difficulty]))
        rgb, rgb2 = _CLOTH_RGB[variant], _scale(_CLOTH_RGB[variant], 0.9)
    elif kind == "blue_mat":
        variant = str(rng.choice(list(_BLUE_MAT_RGB)))
        rgb, rgb2 = _BLUE_MAT_RGB[variant], _scale(_BLUE_MAT_RGB[variant], 0.9)
        grid = 10.0 if variant == "cutting_mat" else 0.0
    else:
        rgb, rgb2 = _TABLE_RGB[kind]
    # Each table of a kind is a little different: shift brightness and tint.
    gain = rng.uniform(0.9, 1.08)
    tint = rng.uniform(0.96, 1.04, size=3)
    rgb = _clip_rgb(np.asarray(rgb) * gain * tint)
    rgb2 = _clip_rgb(np.asarray(rgb2) * gain * tint)
    wood = kind.endswith("wood")
    gloss = {"light_wood": 0.25, "dark_wood": 0.3, "white_table": 0.2, "blue_mat": 0.1}
    return TableParams(
        kind=kind,
        variant=variant,
        rgb=rgb,
        rgb2=rgb2,
        grain_angle_deg=float(rng.uniform(0, 180)),
        plank_width_mm=float(rng.uniform(70, 200)) if wood else 0.0,
        texture_strength=float(rng.uniform(0.6, 1.2)),
        gloss=float(gloss.get(kind, 0.0) * rng.uniform(0.3, 1.5)),
        grid_mm=grid,
    )


def _sample_light(rng: np.random.Generator, difficulty: str) -> LightParams:
    r = _RANGES[difficulty]
    kind = str(rng.choice(_LIGHTS[difficulty]))
    k = _LIGHT_KINDS[kind]
    # The kind sets the typical colour; the difficulty decides how far it may stray.
    lo, hi = max(k.temp[0], r.temp[0]), min(k.temp[1], r.temp[1])
    if lo >= hi:
        lo, hi = r.temp
    unevenness = float(rng.uniform(*r.unevenness))
    if kind == "harsh_side":
        unevenness *= 0.5  # sunlight is even; its difficulty is the shadows
    return LightParams(
        kind=kind,
        temperature_k=float(rng.uniform(lo, hi)),
        awb_correction=float(rng.uniform(*r.awb)),
        azimuth_deg=float(rng.uniform(0, 360)),
        elevation_deg=float(rng.uniform(*k.elevation)),
        distance_mm=float(rng.uniform(*k.distance)) if k.distance else float("inf"),
        key_fill_ratio=float(rng.uniform(*k.key_fill)),
        source_size_deg=float(rng.uniform(*k.size)),
        unevenness=unevenness,
        exposure=float(rng.uniform(*r.exposure)),
    )


def _sample_camera(
    rng: np.random.Generator,
    r: _Ranges,
    size: tuple[int, int],
    extent: tuple[float, float, float, float],
) -> CameraParams:
    fill = float(rng.uniform(*r.fill))
    params = CameraParams(
        tilt_deg=float(rng.uniform(*r.tilt)),
        tilt_azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(0, 360)),
        distance_mm=600.0,
        target_xy_mm=((extent[0] + extent[2]) / 2, (extent[1] + extent[3]) / 2),
        focal_mm_equiv=float(rng.normal(26.0, 0.6)),
        k1=float(rng.uniform(-r.k1, r.k1)),
        fill=fill,
    )
    # Hand-held photos are rarely centred: shift the board within the spare margin.
    offset = rng.uniform(-0.5, 0.5, size=2) * (1.0 - fill) * 0.5
    distance, target = fit_camera_distance(params, size, extent, fill, (offset[0], offset[1]))
    return dataclasses.replace(params, distance_mm=distance, target_xy_mm=target)


def _sample_materials(
    rng: np.random.Generator, hue_jitter: float, difficulty: str
) -> MaterialParams:
    cord = {c: _jitter_colour(rng, rgb, hue_jitter) for c, rgb in _CORD_RGB.items()}
    pawn = {c: _jitter_colour(rng, rgb, hue_jitter) for c, rgb in _PAWN_RGB.items()}
    diameter = float(rng.uniform(2.0, 3.0))
    width = float(rng.uniform(19.0, 23.0))
    return MaterialParams(
        cord_rgb=cord,
        pawn_rgb=pawn,
        string_diameter_mm=diameter,
        twist_pitch_mm=float(diameter * rng.uniform(2.4, 3.4)),
        knot_scale=float(rng.uniform(2.5, 3.5)),
        pawn_width_mm=width,
        pawn_height_mm=float(width * rng.uniform(1.2, 1.4)),
        pawn_gloss=float(rng.uniform(0.1, 0.45)),
        pawn_style=str(rng.choice(PAWN_STYLES, p=_PAWN_STYLE_WEIGHTS[difficulty])),
    )


def lacquer_pawns(
    materials: MaterialParams, difficulty: str, rng: np.random.Generator
) -> MaterialParams:
    """Now and then give the scene's pawns a lacquered finish instead of painted wood.

    Sets of pawns differ in finish as well as shape: a lacquered or plastic pawn mirrors
    the bright room above it and the lamp in sharp highlights, so its colour breaks into
    white patches that painted wood does not show. Most also mirror a wide light (a
    window, a soft box) round the key light as a broad soft white patch over a good part
    of their side towards it. ``rng`` is a stream of its own, so a scene drawn before this
    existed keeps everything else it had; the window is drawn after the finish, so a
    scene lacquered before it came keeps its gloss and sheen.

    Parameters
    ----------
    materials : MaterialParams
        The scene's materials, its pawns painted wood.
    difficulty : {"easy", "normal", "hard"}
        Sets the chance of lacquer: 15, 30 or 40 %.
    rng : numpy.random.Generator

    Returns
    -------
    MaterialParams
        ``materials`` itself, or a copy with lacquered pawns: ``pawn_gloss`` 0.6–1.2,
        ``pawn_sheen`` 0.25–0.8, and in 70 % of them a mirrored window: ``pawn_window``
        0.5–1.3 bright and ``pawn_window_deg`` 45–85 degrees wide.

    Raises
    ------
    ValueError
        If ``difficulty`` is unknown.
    """
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, not {difficulty!r}")
    if rng.random() >= _LACQUER_CHANCE[difficulty]:
        return materials
    gloss, sheen = float(rng.uniform(0.6, 1.2)), float(rng.uniform(0.25, 0.8))
    window, window_deg = 0.0, 0.0
    if rng.random() < _WINDOW_CHANCE:
        window, window_deg = float(rng.uniform(0.5, 1.3)), float(rng.uniform(45.0, 85.0))
    return dataclasses.replace(
        materials, pawn_gloss=gloss, pawn_sheen=sheen, pawn_window=window,
        pawn_window_deg=window_deg,
    )


def pale_table(table: TableParams, rng: np.random.Generator) -> TableParams:
    """Now and then make a green felt or a blue mat a paler one than the usual deep shade.

    Felt and mats are sold in light shades as well as in deep ones; a pale table keeps
    its hue, so a cord or pawn of that hue stands out from it by lightness rather than
    colour. ``rng`` is a stream of its own, so a scene drawn before this existed keeps
    everything else it had.

    Parameters
    ----------
    table : TableParams
    rng : numpy.random.Generator

    Returns
    -------
    TableParams
        ``table`` itself (any other kind of table, and 60 % of felt and mats), or a copy
        drawn 30–100 % of the way to the pale shade of its hue, its texture's second
        colour in the same ratio to the first, its variant ``pale_`` and the old one.
    """
    pale = _PALE_TABLE_RGB.get(table.kind)
    if pale is None or rng.random() >= _PALE_TABLE_CHANCE:
        return table
    lift = rng.uniform(0.3, 1.0)  # how far from the deep shade towards the palest
    rgb = (1.0 - lift) * np.asarray(table.rgb) + lift * np.asarray(pale)
    # The second colour (the felt's mottle, the mat's speckle and grid) keeps its
    # contrast with the first, so a pale table keeps its texture.
    rgb2 = rgb * np.asarray(table.rgb2) / np.maximum(np.asarray(table.rgb), 1e-6)
    return dataclasses.replace(
        table, variant=f"pale_{table.variant}", rgb=_clip_rgb(rgb), rgb2=_clip_rgb(rgb2)
    )


def _sample_extras(rng: np.random.Generator, difficulty: str, key: LightParams) -> Extras:
    """Which of the harder things this photo gets (each one now and then)."""
    chance = _EXTRA_CHANCE[difficulty]
    second, share = None, 0.0
    if rng.random() < chance["second_light"]:
        second = _sample_light(rng, difficulty)
        # From another side of the room than the key light.
        azimuth = key.azimuth_deg + float(rng.uniform(70, 290))
        second = dataclasses.replace(second, azimuth_deg=azimuth % 360)
        share = float(rng.uniform(0.2, 0.45))
    wants_edge = bool(rng.random() < chance["table_edge"])
    clutter: tuple[str, ...] = ()
    if rng.random() < chance["clutter"]:
        clutter = tuple(str(k) for k in rng.choice(["card", "cup"], size=int(rng.integers(1, 3))))
    exif = 1
    if rng.random() < chance["exif"]:
        exif = int(rng.choice([3, 6, 8], p=[0.2, 0.5, 0.3]))
    return Extras(
        second_light=second,
        second_share=share,
        wants_table_edge=wants_edge,
        clutter_kinds=clutter,
        exif_orientation=exif,
        far_camera=bool(rng.random() < chance["far_camera"]),
    )


#: Cord width (pixels of a 4032-pixel-wide photo) a far camera leaves.
FAR_CORD_PX = (2.8, 3.8)
#: A far camera still frames the board across at least this share of the photo.
FAR_MIN_FILL = 0.35


def _move_back(
    rng: np.random.Generator,
    camera: CameraParams,
    size: tuple[int, int],
    extent: tuple[float, float, float, float],
    materials: MaterialParams,
) -> CameraParams:
    """The camera moved back along its axis until the cords are about 3 px wide, but
    not so far that the board spans less than :data:`FAR_MIN_FILL` of the frame (a
    small board stays bigger: the player would not step that far back)."""
    centre = np.array([[(extent[0] + extent[2]) / 2, (extent[1] + extent[3]) / 2]])
    now = float(Camera.from_params(camera, size).px_per_mm(centre)[0])
    want = float(rng.uniform(*FAR_CORD_PX)) * max(size) / 4032 / materials.string_diameter_mm
    # The image scale, and the board's share of the frame, fall as the distance grows.
    factor = min(now / want, camera.fill / FAR_MIN_FILL)
    if factor <= 1.0:
        return camera
    return dataclasses.replace(camera, distance_mm=camera.distance_mm * factor)


def _jitter_colour(rng: np.random.Generator, rgb: RGB, hue_jitter: float) -> RGB:
    """Shift hue a little and scale saturation and value, as dye lots and paints do."""
    h, s, v = colorsys.rgb_to_hsv(*rgb)
    h = (h + rng.uniform(-hue_jitter, hue_jitter)) % 1.0
    s = min(1.0, s * rng.uniform(0.85, 1.05))
    v = min(1.0, v * rng.uniform(0.88, 1.08))
    return _clip_rgb(colorsys.hsv_to_rgb(h, s, v))


def _scale(rgb: RGB, k: float) -> RGB:
    return _clip_rgb(np.asarray(rgb) * k)


def _clip_rgb(rgb: object) -> RGB:
    a = np.clip(np.asarray(rgb, dtype=float), 0.0, 1.0)
    return (float(a[0]), float(a[1]), float(a[2]))

