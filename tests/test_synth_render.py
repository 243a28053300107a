"""Tests of the synthetic photo renderer (small images, so they run fast)."""

from __future__ import annotations

import dataclasses
import io
import json

import cv2
import numpy as np
import pytest
from PIL import Image
from shapely.geometry import LineString

from synth.camera import Camera
from synth.cords import trace_cord
from synth.labels import BACKGROUND, KNOT, PIXEL_CLASSES, cord_class, pawn_class
from synth.objects import PAWN_STYLES, Pawn, SceneObjects
from synth.overlay import draw_truth
from synth.pawns import PawnShape, pawn_parts
from synth.photo import plan_photo
from synth.render import (
    _finish_kernel,
    _roll_off,
    _tone,
    encode_jpeg,
    render,
    render_with_labels,
)
from synth.scene import DIFFICULTIES, Extras, TableEdge, lacquer_pawns, pale_table, sample_scene
from synth.textures import TableCoords, table_albedo

SIZE = (800, 600)
COLOURS = ("red", "yellow", "green", "blue")


def _loop(centre: tuple[float, float], radius: float) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, int(2 * np.pi * radius / 1.5), endpoint=False)
    wobble = 1 + 0.08 * np.cos(3 * t)
    return np.column_stack([centre[0] + radius * wobble * np.cos(t),
                            centre[1] + radius * wobble * np.sin(t)])


def _board(pawns: list[Pawn] | None = None) -> SceneObjects:
    centres = [(-60, -50), (60, -50), (-60, 50), (60, 50)]
    lines = {c: _loop(xy, 190) for c, xy in zip(COLOURS, centres, strict=True)}
    crossings = []
    for i, a in enumerate(COLOURS):
        for b in COLOURS[i + 1 :]:
            la = LineString(np.vstack([lines[a], lines[a][:1]]))
            lb = LineString(np.vstack([lines[b], lines[b][:1]]))
            inter = la.intersection(lb)
            for p in getattr(inter, "geoms", [inter]):
                crossings.append(((p.x, p.y), a, b))
    knots = {c: tuple(lines[c][len(lines[c]) // 3]) for c in COLOURS}
    return SceneObjects(lines=lines, knots=knots, crossings=crossings, pawns=pawns or [])


def _scene(seed: int, difficulty: str = "easy", objects: SceneObjects | None = None, **table):
    objects = objects or _board()
    scene = sample_scene(np.random.default_rng(seed), difficulty, SIZE, objects.extent_mm())
    if table:
        scene = dataclasses.replace(scene, table=dataclasses.replace(scene.table, **table))
    return scene


def test_invalid_difficulty_raises():
    with pytest.raises(ValueError):
        sample_scene(np.random.default_rng(0), "insane", SIZE, (-100, -100, 100, 100))


def test_scene_is_plain_json_and_frames_the_board():
    objects = _board()
    for difficulty in DIFFICULTIES:
        scene = _scene(3, difficulty, objects)
        text = json.dumps(scene.to_json())
        assert json.loads(text)["difficulty"] == difficulty
        cam = Camera.from_scene(scene)
        uv = cam.project(np.concatenate(list(objects.lines.values())))
        span = (uv.max(axis=0) - uv.min(axis=0)) / np.array(SIZE)
        assert 0.45 <= span.max() <= 0.95
        # Every string is in the photo.
        assert np.all(uv >= 0) and np.all(uv <= np.array(SIZE))


def test_tilt_respects_difficulty():
    limits = {"easy": 10.0, "normal": 20.0, "hard": 35.0}
    for difficulty, limit in limits.items():
        tilts = [_scene(s, difficulty).camera.tilt_deg for s in range(20)]
        assert max(tilts) <= limit


def test_camera_round_trip():
    cam = Camera.from_scene(_scene(5, "hard"))
    pts = np.array([[0.0, 0.0], [120.0, -80.0], [-150.0, 60.0]])
    back = cam.pixel_to_table(cam.project(pts))
    np.testing.assert_allclose(back, pts, atol=1e-6)
    # A point above the table is nearer to the camera than its foot.
    assert cam.depth(np.array([[0, 0, 25.0]]))[0] < cam.depth(np.array([[0, 0, 0.0]]))[0]


def test_same_seed_same_image():
    objects = _board([Pawn("demon", "red", (0.0, 0.0))])
    scene = _scene(1, "normal", objects)
    cam = Camera.from_scene(scene)
    a = render(objects, scene, cam, np.random.default_rng(42))
    b = render(objects, scene, cam, np.random.default_rng(42))
    assert a.shape == (SIZE[1], SIZE[0], 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, b)


def test_pawn_covers_its_foot():
    foot = (5.0, 8.0)
    pawn = Pawn("demon", "red", foot)
    with_pawn = _board([pawn])
    without = _board()
    scene = _scene(2, "easy", with_pawn, kind="cloth", rgb=(0.6, 0.6, 0.6), rgb2=(0.55, 0.55, 0.55))
    cam = Camera.from_scene(scene)
    u, v = np.round(cam.project(np.array([foot]))[0]).astype(int)
    assert 0 <= u < SIZE[0] and 0 <= v < SIZE[1]
    img = render(with_pawn, scene, cam, np.random.default_rng(0)).astype(float)
    ref = render(without, scene, cam, np.random.default_rng(0)).astype(float)
    here = img[v - 2 : v + 3, u - 2 : u + 3].mean(axis=(0, 1))
    table = ref[v - 2 : v + 3, u - 2 : u + 3].mean(axis=(0, 1))
    assert np.abs(here - table).max() > 40
    # Red paint: red clearly above green and blue, unlike the grey cloth.
    assert here[0] > here[1] + 40 and here[0] > here[2] + 40


def test_cords_stand_out_from_the_table():
    objects = _board()
    scene = _scene(4, "easy", objects, kind="cloth", rgb=(0.78, 0.72, 0.6), rgb2=(0.7, 0.65, 0.54))
    cam = Camera.from_scene(scene)
    img = render(objects, scene, cam, np.random.default_rng(0)).astype(float)
    for colour, line in objects.lines.items():
        pts = line[::25]
        nxt = np.roll(line, -1, axis=0)[::25]
        tangent = (nxt - pts) / np.linalg.norm(nxt - pts, axis=1, keepdims=True)
        normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
        on = np.round(cam.project(pts)).astype(int)
        off = np.round(cam.project(pts + 9.0 * normal)).astype(int)
        ok = np.all((on >= 0) & (on < SIZE) & (off >= 0) & (off < SIZE), axis=1)
        diff = np.abs(img[on[ok, 1], on[ok, 0]] - img[off[ok, 1], off[ok, 0]]).max(axis=1)
        assert np.median(diff) > 30, colour


def test_jpeg_and_overlay():
    objects = _board([Pawn("ghost", "white", (0.0, 0.0))])
    scene = _scene(6, "hard", objects)
    cam = Camera.from_scene(scene)
    img = render(objects, scene, cam, np.random.default_rng(0))
    data = encode_jpeg(img, scene.sensor.jpeg_quality)
    decoded = Image.open(io.BytesIO(data))
    assert decoded.format == "JPEG" and decoded.size == SIZE
    truth = {
        "lines": {
            c: {"polyline": cam.project(line).tolist(), "knot": None}
            for c, line in objects.lines.items()
        },
        "crossings": [{"id": 0, "xy": [400, 300], "lines": ["blue", "red"]}],
        "fields": [],
        "creatures": [{"id": 0, "kind": "ghost", "colour": "white", "xy": [400, 300], "field": None,
                       "crossing": None, "off_board": True}],
        "scores": {"red": 1, "yellow": 0, "green": 0, "blue": 0, "white": 1},
        "winners": ["red", "white"],
        "violations": [{"rule": "ghost-in-outer-field", "creatures": [0], "message": ""}],
    }
    drawn = draw_truth(img, truth)
    assert drawn.shape == img.shape and np.any(drawn != img)


def test_closed_cord_band_has_no_gap_at_its_start():
    """Every pixel on a loop's centre line is in its band, also where the loop closes."""
    objects = _board()
    scene = _scene(7, "normal", objects)
    cam = Camera.from_scene(scene)
    line = objects.lines["red"]
    band = trace_cord(cam, line, 2.0, closed=True, margin=0.15)
    assert band is not None and np.all(np.diff(band.idx) > 0)
    dense = np.vstack([line, line[:1]])
    t = np.linspace(0, 1, 8, endpoint=False)[:, None, None]
    dense = (dense[:-1][None] * (1 - t) + dense[1:][None] * t).reshape(-1, 2)
    px = np.round(cam.project(np.column_stack([dense, np.full(len(dense), 2.0)]))).astype(int)
    px = px[(px[:, 0] >= 0) & (px[:, 0] < SIZE[0]) & (px[:, 1] >= 0) & (px[:, 1] < SIZE[1])]
    idx = np.unique(px[:, 1] * SIZE[0] + px[:, 0])
    pos = np.searchsorted(band.idx, idx)
    assert np.all(band.idx[np.minimum(pos, len(band.idx) - 1)] == idx)
    assert np.abs(band.across[pos]).max() < 0.6


def test_finish_kernel_matches_blur_then_unsharp_mask():
    rng = np.random.default_rng(3)
    img = cv2.GaussianBlur(rng.integers(0, 256, (120, 160, 3), dtype=np.uint8), (0, 0), 2.0)
    for sigma, sharpen in [(0.3, 0.8), (1.2, 0.5), (2.5, 0.2)]:
        soft = cv2.GaussianBlur(img, (2 * int(np.ceil(2.5 * sigma)) + 1,) * 2, sigma)
        want = cv2.addWeighted(soft, 1 + sharpen, cv2.GaussianBlur(soft, (5, 5), 1.0), -sharpen, 0)
        kernel = _finish_kernel(sigma, sharpen)
        assert abs(float(kernel.sum()) - 1.0) < 1e-5
        got = cv2.sepFilter2D(img, -1, kernel, kernel)
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 3


def test_roll_off_window_matches_rolling_off_everything():
    rng = np.random.default_rng(4)
    coarse = cv2.GaussianBlur(rng.uniform(0.2, 1.0, (24, 32)), (0, 0), 3) * 1.2
    light = cv2.resize(coarse.astype(np.float32), (256, 192), interpolation=cv2.INTER_LINEAR)
    light *= rng.uniform(0.5, 1.0, light.shape).astype(np.float32)  # shadows only darken
    spec = np.full_like(light, 0.05)
    want_light, want_spec = light.copy(), spec.copy()
    level = want_light * np.float32(0.9) + want_spec
    roll = _tone(level) / np.maximum(level, np.float32(1e-6))
    want_light *= roll
    want_spec *= roll
    _roll_off(light, spec, 0.9, coarse * 0.9 + 0.05)
    np.testing.assert_allclose(light, want_light, rtol=1e-6)
    np.testing.assert_allclose(spec, want_spec, rtol=1e-6)


@pytest.mark.parametrize("kind", ["light_wood", "cloth", "green_felt", "blue_mat", "white_table"])
def test_table_textures_are_valid_and_reproducible(kind: str):
    scene = _scene(8, "hard", kind=kind, grid_mm=10.0 if kind == "blue_mat" else 0.0,
                   plank_width_mm=120.0 if kind.endswith("wood") else 0.0)
    cam = Camera.from_scene(scene)
    rows, cols = 24, 32
    x, y = cam.table_grid((rows, cols))
    footprint = np.full((rows, cols), 0.5)
    coords = TableCoords(x, y, footprint, (150, 200), scene.table.grain_angle_deg)
    a = table_albedo(scene.table, coords, np.random.default_rng(1))
    b = table_albedo(scene.table, coords, np.random.default_rng(1))
    assert a.shape == (150, 200, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0.0 and a.max() <= 1.0 and a.std() > 0.005


@pytest.mark.parametrize("style", PAWN_STYLES)
def test_pawn_shapes_keep_within_their_width(style: str):
    shape = PawnShape(20.0, 26.0, style)
    for kind, extra in (("ghost", 0), ("demon", 2)):
        made = pawn_parts((5.0, -3.0), shape, kind)
        for part in made.parts:
            reach = np.hypot(part.centre[0] - 5.0, part.centre[1] + 3.0) + part.a
            assert reach <= 10.0 + 1e-9
            assert part.centre[2] + part.c <= 26.0 * 1.15  # horns may top the head a little
        top = max(p.centre[2] + p.c for p in made.parts[: made.head + 1])
        assert top == pytest.approx(26.0)
        assert len(made.parts) == made.head + 1 + extra  # demons carry two horns


def test_table_edge_shows_the_floor_beyond_it():
    objects = _board()
    scene = _scene(4, "easy", objects, kind="cloth", rgb=(0.78, 0.72, 0.6), rgb2=(0.7, 0.65, 0.54))
    edge = TableEdge(point_mm=(330.0, 0.0), normal=(1.0, 0.0), rim_mm=8.0,
                     rim_rgb=(0.3, 0.2, 0.1), floor_rgb=(0.1, 0.1, 0.1), floor_light=0.5)
    scene = dataclasses.replace(scene, extras=Extras(table_edge=edge))
    cam = Camera.from_scene(scene)
    img = render(objects, scene, cam, np.random.default_rng(0)).astype(float)
    ys = np.linspace(-150, 150, 7)
    on_table = np.round(cam.project(np.column_stack([np.full(7, 300.0), ys]))).astype(int)
    on_floor = np.round(cam.project(np.column_stack([np.full(7, 360.0), ys]))).astype(int)
    inside = np.all((on_floor >= 0) & (on_floor < SIZE), axis=1)
    assert inside.sum() >= 3, "the edge should be in the photo"
    table = img[on_table[inside, 1], on_table[inside, 0]].mean()
    floor = img[on_floor[inside, 1], on_floor[inside, 0]].mean()
    assert floor < table - 60


def test_second_light_casts_a_second_shadow():
    foot = (40.0, 30.0)
    objects = _board([Pawn("demon", "red", foot)])
    scene = _scene(2, "easy", objects, kind="cloth", rgb=(0.6, 0.6, 0.6), rgb2=(0.55, 0.55, 0.55))
    key = dataclasses.replace(scene.light, azimuth_deg=0.0, elevation_deg=35.0, key_fill_ratio=8)
    second = dataclasses.replace(key, azimuth_deg=180.0)
    one = dataclasses.replace(scene, light=key)
    two = dataclasses.replace(one, extras=Extras(second_light=second, second_share=0.45))
    cam = Camera.from_scene(one)
    # The second light is on the -x side: its shadow falls towards +x.
    spot = np.array([[foot[0] + 30.0, foot[1]]])
    u, v = np.round(cam.project(spot)[0]).astype(int)
    lit = render(objects, one, cam, np.random.default_rng(0)).astype(float)
    shaded = render(objects, two, cam, np.random.default_rng(0)).astype(float)
    patch = np.s_[v - 2 : v + 3, u - 2 : u + 3]
    assert shaded[patch].mean() < lit[patch].mean() - 15


def test_lacquered_pawns_mirror_the_room_in_white_patches():
    foot = (40.0, 30.0)
    objects = _board([Pawn("demon", "blue", foot)])
    scene = _scene(2, "easy", objects, kind="cloth", rgb=(0.6, 0.6, 0.6), rgb2=(0.55, 0.55, 0.55))
    painted = dataclasses.replace(scene.materials, pawn_sheen=0.0)
    wood = dataclasses.replace(scene, materials=painted)
    lacquered = dataclasses.replace(wood, materials=dataclasses.replace(painted, pawn_sheen=0.8))
    cam = Camera.from_scene(wood)
    a = render(objects, wood, cam, np.random.default_rng(0)).astype(float)
    b = render(objects, lacquered, cam, np.random.default_rng(0)).astype(float)
    # Only the pawn changes, and where it does it turns whiter: its red and green
    # (absent from blue paint) rise most.
    # Seen from nearly overhead, the bright patch is the top of the head.
    changed = np.abs(b - a).sum(axis=2) > 15
    u, v = cam.project(np.array([foot]))[0]
    ys, xs = np.nonzero(changed)
    assert changed.sum() >= 4
    assert np.hypot(xs - u, ys - v).max() < 12  # the pawn is about 25 px across here
    assert (b[changed][:, :2] - a[changed][:, :2]).mean() > 20


def test_lacquer_comes_now_and_then_and_keeps_the_rest_of_the_scene():
    materials = _scene(3, "hard").materials
    with pytest.raises(ValueError, match="difficulty"):
        lacquer_pawns(materials, "nightmare", np.random.default_rng(0))
    shares = {}
    for difficulty in DIFFICULTIES:
        made = [lacquer_pawns(materials, difficulty, np.random.default_rng(i)) for i in range(400)]
        glossy = [m for m in made if m.pawn_sheen > 0]
        assert all(m is materials for m in made if m.pawn_sheen == 0)
        assert all(0.6 <= m.pawn_gloss <= 1.2 and 0.25 <= m.pawn_sheen <= 0.8 for m in glossy)
        assert all(dataclasses.replace(m, pawn_gloss=materials.pawn_gloss, pawn_sheen=0.0,
                                       pawn_window=0.0, pawn_window_deg=0.0)
                   == materials for m in glossy)
        windowed = [m for m in glossy if m.pawn_window > 0]
        assert all(0.5 <= m.pawn_window <= 1.3 and 45 <= m.pawn_window_deg <= 85
                   for m in windowed)
        assert all(m.pawn_window_deg == 0 for m in glossy if m.pawn_window == 0)
        assert 0.5 < len(windowed) / len(glossy) < 0.9
        shares[difficulty] = len(glossy) / len(made)
    assert 0.05 < shares["easy"] < shares["normal"] < shares["hard"] < 0.55


def test_the_window_is_drawn_after_the_finish_so_a_lacquered_scene_keeps_its_gloss():
    materials = _scene(3, "hard").materials
    for seed in range(60):
        made = lacquer_pawns(materials, "hard", np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        if rng.random() < 0.4:  # lacquered: the same two draws as before the window
            assert (made.pawn_gloss, made.pawn_sheen) == (rng.uniform(0.6, 1.2),
                                                          rng.uniform(0.25, 0.8))


def test_lacquered_pawns_mirror_a_wide_window_on_their_side_towards_the_light():
    foot = (40.0, 30.0)
    objects = _board([Pawn("demon", "blue", foot)])
    scene = _scene(2, "easy", objects, kind="cloth", rgb=(0.6, 0.6, 0.6), rgb2=(0.55, 0.55, 0.55))
    lacquered = dataclasses.replace(scene.materials, pawn_gloss=0.8, pawn_sheen=0.5,
                                    pawn_window=0.0, pawn_window_deg=0.0)
    plain = dataclasses.replace(scene, materials=lacquered)
    windowed = dataclasses.replace(plain, materials=dataclasses.replace(
        lacquered, pawn_window=1.0, pawn_window_deg=70.0))
    cam = Camera.from_scene(plain)
    a = render(objects, plain, cam, np.random.default_rng(0)).astype(float)
    b = render(objects, windowed, cam, np.random.default_rng(0)).astype(float)
    # Only the pawn changes (the phone's sharpening rings round the patch), and it
    # turns whiter in a broad patch, not a glint.
    u, v = cam.project(np.array([foot]))[0]
    ys, xs = np.nonzero(np.abs(b - a).sum(axis=2) > 3)
    assert np.hypot(xs - u, ys - v).max() < 14  # the pawn is about 25 px across here
    whiter = (b - a)[..., :2].mean(axis=2) > 30  # blue paint has little red and green
    assert whiter.sum() >= 10
    ys, xs = np.nonzero(whiter)
    # Its patch lies on the pawn's side towards the light, as the camera sees it.
    azimuth = np.radians(scene.light.azimuth_deg)
    towards = np.array([np.cos(azimuth), np.sin(azimuth)])
    seen = cam.project(np.array([np.add(foot, 20.0 * towards)]))[0] - (u, v)
    assert np.dot([xs.mean() - u, ys.mean() - v], seen) > 0


@pytest.mark.parametrize("kind", ["green_felt", "blue_mat", "light_wood", "white_table"])
def test_felt_and_mats_are_now_and_then_pale_and_keep_their_hue(kind: str):
    deep = (0.13, 0.42, 0.22) if kind == "green_felt" else (0.12, 0.27, 0.52)
    mottle = tuple(0.8 * c for c in deep)
    table = dataclasses.replace(
        _scene(5, "hard").table, kind=kind, variant="plain", rgb=deep, rgb2=mottle
    )
    made = [pale_table(table, np.random.default_rng(i)) for i in range(300)]
    pale = [t for t in made if t is not table]
    if kind not in ("green_felt", "blue_mat"):
        assert not pale  # only felt and mats come in pale shades
        return
    assert 0.3 < len(pale) / len(made) < 0.5
    for t in pale:
        assert t.variant == "pale_plain"
        assert sum(t.rgb) > sum(table.rgb) + 0.1  # lighter
        assert int(np.argmax(t.rgb)) == int(np.argmax(deep))  # the same hue
        # The texture's second colour keeps its contrast with the first.
        assert np.asarray(t.rgb2) == pytest.approx(0.8 * np.asarray(t.rgb), abs=1e-3)
        assert dataclasses.replace(t, variant="plain", rgb=table.rgb, rgb2=table.rgb2) == table


def test_a_photo_without_the_finishes_is_made_as_before_them():
    # Seeds 1000-1039 at every difficulty: some lacquered or pale, and without the
    # finishes each is the scene it was, pawns painted and tables deep, all else alike.
    changed = 0
    for seed in range(1000, 1040):
        difficulty = DIFFICULTIES[seed % 3]
        now = plan_photo(seed, difficulty, SIZE).scene
        before = plan_photo(seed, difficulty, SIZE, finishes=False).scene
        assert before.materials.pawn_sheen == 0.0
        assert not before.table.variant.startswith("pale_")
        if now != before:
            changed += 1
            alike = dataclasses.replace(now, materials=before.materials, table=before.table)
            assert alike == before
    assert 5 <= changed <= 30


# --- pixel labels ---------------------------------------------------------------------


def test_labels_say_what_each_pixel_shows():
    foot = (0.0, 0.0)
    objects = _board([Pawn("demon", "red", foot), Pawn("ghost", "white", (40.0, 120.0))])
    scene = _scene(1, "normal", objects)
    cam = Camera.from_scene(scene)
    image, labels = render_with_labels(objects, scene, cam, np.random.default_rng(42))
    # The labels cost the photo nothing: it is the same picture.
    np.testing.assert_array_equal(image, render(objects, scene, cam, np.random.default_rng(42)))
    assert labels.shape == image.shape[:2] and labels.dtype == np.uint8
    counts = np.bincount(labels.ravel(), minlength=len(PIXEL_CLASSES))
    # Every cord, the red pawn, the ghost and the knots are there; most is table.
    for colour in COLOURS:
        assert counts[cord_class(colour)] > 200, colour
    assert counts[pawn_class("red")] > 50 and counts[pawn_class("white")] > 50
    assert counts[KNOT] > 0
    assert counts[pawn_class("blue")] == 0
    assert counts[BACKGROUND] > 0.8 * labels.size
    # The red pawn's class is where its foot is, and cord classes lie on the cords.
    u, v = cam.project(np.array([foot]))[0]
    assert labels[int(round(v)) - 2, int(round(u))] == pawn_class("red")
    for colour in COLOURS:
        uv = cam.project(objects.lines[colour][::10]).round().astype(int)
        on = labels[uv[:, 1], uv[:, 0]]
        assert np.mean(on == cord_class(colour)) > 0.6, colour

