"""One synthetic photo with its exact ground truth.

``make_photo(seed, difficulty, size)`` is the whole generator: a board from the engine
(:mod:`synth.boards`), a scene (:mod:`synth.scene`), a camera, the rendered image, and
the truth: the engine's board report of the same board with every coordinate projected
into the photo's pixels. Same seed, same photo and truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely

from engine.board import Board, Point
from engine.colours import DEMON, GHOST
from engine.legality import find_violations
from engine.report import board_to_report
from synth.boards import PAWN_WIDTH_MM, SyntheticBoard, generate_board
from synth.camera import Camera
from synth.extras import arrange_extras, keeps_off
from synth.objects import Pawn, SceneObjects
from synth.placement import cover_knots, place_pawns, read_back, sample_habits, strings_of
from synth.render import encode_jpeg, render_with_labels
from synth.scene import DIFFICULTIES, Scene, lacquer_pawns, pale_table, sample_scene

DEFAULT_SIZE = (4032, 3024)
#: Seeds the random stream of the demons put down on knots, beside the photo's seed.
COVER_STREAM = 7
#: Seeds the random stream of the pawns' finish (:func:`synth.scene.lacquer_pawns`).
FINISH_STREAM = 8
#: Seeds the random stream of a pale felt or mat (:func:`synth.scene.pale_table`).
TABLE_STREAM = 9


@dataclass(frozen=True)
class SyntheticPhoto:
    """A rendered photo, its JPEG bytes and its ground truth (a board report + scene).

    ``image`` and the truth are upright, as a person sees the photo; the JPEG may store
    its pixels turned, with an EXIF Orientation tag saying how to turn them back.
    ``labels`` (upright too) says what each pixel shows (:mod:`synth.labels`).
    """

    image: np.ndarray
    jpeg: bytes
    truth: dict[str, Any]
    labels: np.ndarray = field(repr=False)


def make_photo(
    seed: int,
    difficulty: str = "normal",
    size: tuple[int, int] = DEFAULT_SIZE,
    knot_cover: float = 0.0,
    finishes: bool = True,
) -> SyntheticPhoto:
    """Generate the synthetic photo of ``seed``.

    Parameters
    ----------
    seed : int
        Fixes everything: layout, game, violations, scene, textures and noise.
    difficulty : {"easy", "normal", "hard"}
    size : (width, height)
        Photo size in pixels (landscape or portrait).
    knot_cover : float
        Chance that a demon is put down on each knot (:func:`synth.placement.cover_knots`;
        for training examples: 0, the default, leaves every photo as it was). Recorded
        in the truth's ``scene`` when above 0.
    finishes : bool, optional
        True (the default) lets the scene have lacquered pawns and a pale felt or mat
        (:func:`synth.scene.lacquer_pawns`, :func:`synth.scene.pale_table`); False
        leaves them out: the photo as it was made before they came, for a test that
        pins a case found on it.

    Raises
    ------
    ValueError
        For an unknown difficulty, a size smaller than 320 x 240, or a ``knot_cover``
        outside 0..1.
    """
    plan = plan_photo(seed, difficulty, size, knot_cover, finishes)
    image, labels = render_with_labels(
        scene_objects(plan.board), plan.scene, plan.camera, plan.render_rng
    )
    truth = photo_truth(plan.board, plan.scene, plan.camera, seed)
    if knot_cover > 0:
        truth["scene"]["knot_cover"] = knot_cover
    jpeg = encode_jpeg(
        image, plan.scene.sensor.jpeg_quality, plan.scene.extras.exif_orientation
    )
    return SyntheticPhoto(image, jpeg, truth, labels)


@dataclass(frozen=True)
class PhotoPlan:
    """Everything about a photo but its pixels: cheap to make, and enough to pick seeds."""

    board: SyntheticBoard
    scene: Scene
    camera: Camera
    render_rng: np.random.Generator


def plan_photo(
    seed: int,
    difficulty: str = "normal",
    size: tuple[int, int] = DEFAULT_SIZE,
    knot_cover: float = 0.0,
    finishes: bool = True,
) -> PhotoPlan:
    """The board, scene and camera of the photo of ``seed`` (see :func:`make_photo`)."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(
            f"unknown difficulty {difficulty!r}; expected one of {', '.join(DIFFICULTIES)}"
        )
    if min(size) < 240 or max(size) < 320:
        raise ValueError(f"photo size {size[0]}x{size[1]} is too small; at least 320x240")
    if not 0.0 <= knot_cover <= 1.0:
        raise ValueError(f"knot_cover must be within 0..1, not {knot_cover}")
    streams = np.random.SeedSequence(seed).spawn(5)
    board_rng, scene_rng, render_rng, hand_rng, extras_rng = (
        np.random.default_rng(s) for s in streams
    )
    made = generate_board(board_rng, difficulty)
    scene = sample_scene(scene_rng, difficulty, size, play_area(made.board))
    if finishes:
        # Streams of their own, like the knot cover's: every other draw stays as it was.
        finish_rng = np.random.default_rng([seed, FINISH_STREAM])
        scene = replace(scene, materials=lacquer_pawns(scene.materials, difficulty, finish_rng))
        table_rng = np.random.default_rng([seed, TABLE_STREAM])
        scene = replace(scene, table=pale_table(scene.table, table_rng))
    # The pawns' sizes are the scene's: now the players can put them down.
    made = replace(made, board=put_down(made, scene, hand_rng))
    if knot_cover > 0:
        # A stream of its own: the photos made without it stay as they were.
        cover_rng = np.random.default_rng([seed, COVER_STREAM])
        board = cover_knots(made.board, knot_cover, scene.materials.pawn_width_mm, cover_rng)
        made = replace(made, board=board)
    # Frame the play area; the prediction pawns then find room in view beside it.
    scene = keep_in_frame(scene, play_points(made.board))
    camera = Camera.from_scene(scene)
    # A table edge and clutter at the border, where the camera shows them.
    scene = arrange_extras(scene, camera, made.board, extras_rng)
    board = place_off_board(made.board, camera, board_rng, scene)
    # The truth is what the engine reads at the feet (off the board included).
    board = read_back(board, scene.materials.pawn_width_mm / 2, made.geometry)
    # A planted violation whose pawn found no room is not in the photo.
    shown = {v.rule for v in find_violations(board)}
    planted = tuple(rule for rule in made.planted if rule in shown)
    made = replace(made, board=board, planted=planted)
    return PhotoPlan(made, scene, camera, render_rng)


def put_down(made: SyntheticBoard, scene: Scene, rng: np.random.Generator) -> Board:
    """The board with every pawn on it where a player put it (:mod:`synth.placement`)."""
    mat = scene.materials
    habits = sample_habits(rng, scene.difficulty)
    return place_pawns(
        made.board, habits, mat.pawn_width_mm, mat.string_diameter_mm, rng, made.geometry
    )


def play_points(board: Board) -> np.ndarray:
    """Points of the lines and of the creatures on the board, shape (N, 2)."""
    points = [p for ln in board.lines for p in ln.polyline]
    points += [c.xy for c in board.creatures if c.xy is not None and not c.off_board]
    return np.asarray(points, dtype=float)


def play_area(board: Board) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of the lines and the creatures on the board."""
    xy = play_points(board)
    (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


#: The play area keeps at least this share of the frame's size free at each edge.
FRAME_MARGIN = 0.03


def keep_in_frame(scene: Scene, points_mm: np.ndarray) -> Scene:
    """Move the camera back until every point of the play area is in the photo.

    The scene frames a rounded box inside the play area's bounding box, so a lobe of a
    loop can stick out of the frame; a player taking the photo would step back.
    """
    width, height = scene.size
    low = np.array([width, height]) * FRAME_MARGIN
    high = np.array([width, height]) * (1 - FRAME_MARGIN)
    centre = np.array([width, height]) / 2
    for _ in range(6):
        uv = Camera.from_scene(scene).project(points_mm)
        # How far each point is from the centre, relative to the room it has.
        reach = np.abs(uv - centre) / (high - centre)
        if (uv >= low).all() and (uv <= high).all():
            return scene
        distance = scene.camera.distance_mm * float(reach.max()) * 1.02
        scene = replace(scene, camera=replace(scene.camera, distance_mm=distance))
    return scene


#: Off-board pawns stand at least this far from every line (mm): clearly not in play.
OFF_BOARD_DISTANCE_MM = 70.0


def place_off_board(
    board: Board, camera: Camera, rng: np.random.Generator, scene: Scene | None = None
) -> Board:
    """Give the off-board creatures (predictions) a place in view, clearly away from the
    lines and from each other, as players keep them in front of themselves (on the
    table and off the ``scene``'s clutter).

    A creature for which the frame has no room is left out of the photo (and its truth).
    """
    width, height = camera.size
    margin = 0.06 * min(width, height)
    u, v = np.meshgrid(
        np.linspace(margin, width - margin, 40), np.linspace(margin, height - margin, 30)
    )
    spots = camera.pixel_to_table(np.column_stack([u.ravel(), v.ravel()]))
    spots = spots[np.isfinite(spots).all(axis=1)]
    lines = strings_of(board)
    spots = spots[shapely.distance(shapely.points(spots), lines) >= OFF_BOARD_DISTANCE_MM]
    # Outside the lines' convex hull (the hull, not only the loops: inside a bay of
    # the outer field a pawn would look in play).
    spots = spots[~shapely.contains_xy(lines.convex_hull, spots[:, 0], spots[:, 1])]
    if scene is not None:
        spots = spots[keeps_off(scene, spots, PAWN_WIDTH_MM)]
    free = np.ones(len(spots), bool)
    for c in board.creatures:
        if c.xy is not None:
            free &= np.hypot(*(spots - c.xy).T) > 2 * PAWN_WIDTH_MM
    kept = []
    for creature in board.creatures:
        if not creature.off_board or creature.xy is not None:
            kept.append(creature)
            continue
        if not free.any():
            continue
        x, y = spots[free][int(rng.integers(int(free.sum())))]
        xy = (float(x), float(y))
        free &= np.hypot(*(spots - xy).T) > 2 * PAWN_WIDTH_MM
        kept.append(replace(creature, xy=xy))
    return board.with_creatures(tuple(kept))


def scene_objects(made: SyntheticBoard) -> SceneObjects:
    """What the renderer draws: strings, knots, which string is on top, and pawns."""
    board = made.board
    crossings = []
    for c in board.crossings:
        upper = made.over[c.id]
        lower = c.lines[1] if c.lines[0] == upper else c.lines[0]
        crossings.append((c.xy, upper, lower))
    pawns = [Pawn(c.kind, c.colour, c.xy) for c in board.creatures if c.xy is not None]
    return SceneObjects(
        lines={ln.colour: np.asarray(ln.polyline) for ln in board.lines},
        knots={ln.colour: ln.knot for ln in board.lines},
        crossings=crossings,
        pawns=pawns,
    )


def photo_truth(made: SyntheticBoard, scene: Scene, camera: Camera, seed: int) -> dict[str, Any]:
    """The board report of ``made`` in photo pixels, plus how the photo was made."""

    def to_pixels(points: Sequence[Point]) -> list[Point]:
        return [(float(x), float(y)) for x, y in camera.project(np.asarray(points, dtype=float))]

    board = made.board.transformed(to_pixels)
    truth = board_to_report(board, image_size=scene.size)
    for crossing in truth["crossings"]:
        crossing["over"] = made.over[crossing["id"]]
    illegal = {i for v in truth["violations"] for i in v["creatures"]}
    feet = np.asarray([c.xy for c in made.board.creatures], dtype=float).reshape(-1, 2)
    pawn_px = _pawn_width_px(camera, feet, scene.materials.pawn_width_mm)
    for creature, width in zip(truth["creatures"], pawn_px, strict=True):
        creature["legal"] = creature["id"] not in illegal
        creature["pawn_px"] = round(float(width), 1)
    truth["scene"] = {
        "seed": seed,
        "difficulty": scene.difficulty,
        "stage": made.stage,
        "players": made.players,
        "planted_violations": list(made.planted),
        "counts": _counts(truth),
        **scene.to_json(),
    }
    return truth


def _pawn_width_px(camera: Camera, feet_mm: np.ndarray, width_mm: float) -> np.ndarray:
    if len(feet_mm) == 0:
        return np.zeros(0)
    left = camera.project(feet_mm - [width_mm / 2, 0])
    right = camera.project(feet_mm + [width_mm / 2, 0])
    return np.asarray(np.hypot(*(right - left).T))


def _counts(truth: dict[str, Any]) -> dict[str, Any]:
    on_board = [c for c in truth["creatures"] if not c["off_board"]]
    return {
        "crossings": len(truth["crossings"]),
        "bounded_fields": len(truth["fields"]) - 1,
        "creatures_on_board": len(on_board),
        "ghosts": sum(c["kind"] == GHOST for c in on_board),
        "demons": {
            colour: sum(c["kind"] == DEMON and c["colour"] == colour for c in on_board)
            for colour in ("red", "yellow", "green", "blue")
        },
        "off_board": len(truth["creatures"]) - len(on_board),
        "violations": len(truth["violations"]),
    }
