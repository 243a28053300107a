"""Synthetic photos: the truth agrees with the geometry in the picture, independently of
the engine code that made it, and the generator does what its options promise."""

from __future__ import annotations

import io
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from PIL import Image, ImageOps

from engine.placement import Foot, locate_creatures
from engine.rules import Rule
from engine.topology import build_board
from synth.boards import PLANTABLE, generate_board
from synth.extras import PLAY_AREA_MARGIN_MM, edge_distance
from synth.photo import make_photo, plan_photo, play_area
from synth.placement import cover_knots, place_pawns, sample_habits
from synth.samples import WISHES, find_seed
from synth.scene import sample_scene

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_images").glob("*.truth.json"))
SMALL = (640, 480)


def decode(jpeg: bytes) -> np.ndarray:
    """The photo as a person sees it (EXIF orientation applied)."""
    return np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(jpeg))).convert("RGB"))


def _rings(truth: dict[str, Any]) -> dict[str, shapely.LinearRing]:
    return {c: shapely.LinearRing(ln["polyline"]) for c, ln in truth["lines"].items()}


def assert_creatures_where_the_geometry_says(truth: dict[str, Any]) -> None:
    """Check every creature's slot against the truth's own polygons and lines (shapely
    only, no engine code): the foot is inside its field's polygon (or in none of them
    for the outer field), clear of every string by most of a pawn's radius, and a demon
    sees its corner's crossing across its own field without crossing a string."""
    rings = _rings(truth)
    strings = shapely.MultiLineString([list(r.coords) for r in rings.values()])
    polygons = {
        f["id"]: shapely.Polygon(f["polygon"]) for f in truth["fields"] if not f["outer"]
    }
    corners = {f["id"]: f["corners"] for f in truth["fields"]}
    crossings = {c["id"]: c["xy"] for c in truth["crossings"]}
    for creature in truth["creatures"]:
        name = f"creature {creature['id']} ({creature['kind']} {creature['colour']})"
        foot = shapely.Point(creature["xy"])
        radius = creature["pawn_px"] / 2
        if creature["off_board"]:
            assert creature["field"] is None and creature["crossing"] is None, name
            assert strings.distance(foot) > 3 * radius, name
            continue
        field = creature["field"]
        if field in polygons:
            assert polygons[field].contains(foot), f"{name} is not in field {field}"
        else:
            assert not any(p.contains(foot) for p in polygons.values()), name
        # On the table a foot is at least 1.1 radii from a string's centre; a tilted
        # camera foreshortens one direction more than another (cos 35° = 0.82).
        assert strings.distance(foot) >= 0.75 * radius, f"{name} stands on a string"
        crossing = creature["crossing"]
        if crossing is None:
            continue
        assert creature["kind"] == "demon", name
        assert crossing in corners[field], f"{name}: crossing {crossing} is no corner of {field}"
        apex = np.asarray(crossings[crossing])
        to_foot = np.asarray(creature["xy"]) - apex
        distance = float(np.hypot(*to_foot))
        assert distance <= 8 * radius, f"{name} is {distance / radius:.1f} radii from its corner"
        # From just off the crossing to the foot, the way is free of strings.
        start = apex + to_foot * min(0.25, 2.0 / max(distance, 1e-9))
        assert not shapely.LineString([start, creature["xy"]]).intersects(strings), name


def assert_in_picture(truth: dict[str, Any]) -> None:
    width, height = truth["image"]["width"], truth["image"]["height"]
    points = [p for ln in truth["lines"].values() for p in ln["polyline"]]
    points += [c["xy"] for c in truth["crossings"]]
    points += [c["xy"] for c in truth["creatures"]]
    points += [ln["knot"] for ln in truth["lines"].values() if ln["knot"] is not None]
    xy = np.asarray(points)
    assert (xy[:, 0] >= 0).all() and (xy[:, 0] < width).all()
    assert (xy[:, 1] >= 0).all() and (xy[:, 1] < height).all()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_photo_truth_agrees_with_the_geometry(seed: int, difficulty: str) -> None:
    photo = make_photo(seed, difficulty, SMALL)
    truth = photo.truth
    assert photo.image.shape == (SMALL[1], SMALL[0], 3)
    assert decode(photo.jpeg).shape == photo.image.shape
    assert_in_picture(truth)
    assert_creatures_where_the_geometry_says(truth)
    # The camera keeps topology: the projected lines make the same crossings and fields.
    rebuilt = build_board(
        {c: ln["polyline"] for c, ln in truth["lines"].items()},
        {c: ln["knot"] for c, ln in truth["lines"].items()},
    )
    assert len(rebuilt.crossings) == len(truth["crossings"])
    assert sorted(f.value for f in rebuilt.fields) == sorted(f["value"] for f in truth["fields"])
    rules = {v["rule"] for v in truth["violations"]}
    assert set(truth["scene"]["planted_violations"]) <= rules
    assert truth["scene"]["seed"] == seed and truth["scene"]["difficulty"] == difficulty


def test_same_seed_same_photo() -> None:
    a, b = make_photo(5, "normal", SMALL), make_photo(5, "normal", SMALL)
    assert a.jpeg == b.jpeg
    assert a.truth == b.truth
    c = make_photo(6, "normal", SMALL)
    assert c.truth["lines"] != a.truth["lines"]


def test_knots_covered_for_training_have_a_demon_on_them() -> None:
    plain = plan_photo(6, "normal", SMALL)
    covered = plan_photo(6, "normal", SMALL, knot_cover=1.0)
    width = covered.scene.materials.pawn_width_mm
    board = covered.board.board
    on_board = [c for c in board.creatures if c.on_board and c.xy is not None]
    for line in board.lines:
        assert line.knot is not None
        nearest = min(on_board, key=lambda c: math.dist(c.xy, line.knot))
        assert nearest.kind == "demon"
        assert math.dist(nearest.xy, line.knot) <= 0.5 * width + 1e-9
    # Every pawn still stands clear of the others ...
    feet = [c.xy for c in on_board]
    assert min(math.dist(a, b) for i, a in enumerate(feet) for b in feet[i + 1 :]) >= width
    # ... and without it the photo is as it was (the same lines, the same pawns).
    assert plain.board.board == plan_photo(6, "normal", SMALL).board.board
    assert plain.board.board.lines == board.lines
    assert plain.board.board.creatures != board.creatures
    with pytest.raises(ValueError, match="share"):
        cover_knots(board, 1.5, width, np.random.default_rng(0))
    for wrong in (-0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="knot_cover"):
            plan_photo(6, "normal", SMALL, knot_cover=wrong)
    # The truth says it was made so; a photo made without it does not.
    assert make_photo(6, "normal", SMALL, knot_cover=0.5).truth["scene"]["knot_cover"] == 0.5
    assert "knot_cover" not in make_photo(6, "normal", SMALL).truth["scene"]


def test_pawns_stand_in_their_sector_and_the_locator_agrees() -> None:
    """Over four-player games: no foot within a pawn's radius plus the cord of a string,
    and the engine's locator reads every foot, unambiguously, in the game's slot."""
    placed = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        made = generate_board(rng, "hard", players=4)
        scene = sample_scene(rng, "hard", SMALL, play_area(made.board))
        mat = scene.materials
        board = place_pawns(made.board, sample_habits(rng, "hard"), mat.pawn_width_mm,
                            mat.string_diameter_mm, rng)
        strings = shapely.MultiLineString([[*ln.polyline, ln.polyline[0]] for ln in board.lines])
        on_board = [c for c in board.creatures if not c.off_board]
        assert on_board
        feet = []
        for c in on_board:
            assert c.xy is not None
            reach = strings.distance(shapely.Point(c.xy))
            assert reach >= (mat.pawn_width_mm + mat.string_diameter_mm) / 2, c
            feet.append(Foot(c.kind, c.colour, c.xy))
        found = locate_creatures(board, feet, pawn_radius=mat.pawn_width_mm / 2)
        for creature, where in zip(on_board, found, strict=True):
            assert (where.field, where.crossing) == (creature.field, creature.crossing)
            assert not where.creature.off_board
            far_demon = creature.kind == "demon" and creature.crossing is None
            assert where.ambiguity is None or far_demon, where
        placed += len(on_board)
    assert placed > 100


def test_hard_players_are_sloppy() -> None:
    """Hard photos have pawns off the bisector, touching a string or each other."""
    touching, skewed, demons, pairs = 0, 0, 0, 0
    for seed in range(6):
        plan = plan_photo(seed, "hard", SMALL)
        board = plan.board.board
        mat = plan.scene.materials
        feet = np.asarray([c.xy for c in board.creatures if c.xy is not None and not c.off_board])
        apart = np.hypot(*(feet[:, None] - feet[None]).transpose(2, 0, 1))
        pairs += int(np.sum(np.triu(apart < mat.pawn_width_mm + 0.5, k=1)))
        assert np.all(apart + np.eye(len(feet)) * 1e3 >= mat.pawn_width_mm)  # none overlap
        rings = {ln.colour: shapely.LinearRing(ln.polyline) for ln in board.lines}
        touch = (mat.pawn_width_mm + mat.string_diameter_mm) / 2
        for c in board.creatures:
            if c.kind != "demon" or c.crossing is None or c.off_board:
                continue
            assert c.xy is not None
            gaps = [rings[colour].distance(shapely.Point(c.xy))
                    for colour in board.crossings[c.crossing].lines]
            demons += 1
            touching += min(gaps) < touch + 0.5
            skewed += abs(gaps[0] - gaps[1]) > 2.0
    assert demons > 30
    assert touching >= 1 and skewed >= 0.2 * demons and pairs >= 1


def test_pawns_are_visible_where_the_truth_puts_them() -> None:
    """At each demon's foot the photo is more saturated than the table around the board."""
    photo = make_photo(11, "easy", (1200, 900))
    hsv = np.asarray(Image.fromarray(photo.image).convert("HSV"), dtype=float)
    demons = [c for c in photo.truth["creatures"] if c["kind"] == "demon"]
    assert demons
    border = np.concatenate([hsv[:20].reshape(-1, 3), hsv[-20:].reshape(-1, 3)])
    table_saturation = np.median(border[:, 1])
    hits = 0
    for c in demons:
        x, y = (int(round(v)) for v in c["xy"])
        r = max(2, int(c["pawn_px"] * 0.2))
        # The foot is at the bottom of the pawn as seen; look a little above it.
        patch = hsv[max(0, y - 3 * r) : y, max(0, x - r) : x + r]
        if patch.size and np.median(patch[..., 1]) > table_saturation + 25:
            hits += 1
    assert hits >= 0.8 * len(demons)


def test_boards_span_the_game_and_carry_planted_violations() -> None:
    sizes, planted_rules = [], set()
    for seed in range(20):
        plan = plan_photo(seed, "hard", SMALL)
        truth_rules = {v.rule for v in _violations(plan.board.board)}
        assert set(plan.board.planted) <= truth_rules
        assert set(plan.board.planted) <= set(PLANTABLE)
        planted_rules |= set(plan.board.planted)
        creatures = [c for c in plan.board.board.creatures if not c.off_board]
        sizes.append(len(creatures))
        colours = [c.colour for c in plan.board.board.creatures]
        assert all(colours.count(c) <= 10 for c in set(colours))
    assert min(sizes) <= 12 and max(sizes) >= 35
    assert len(planted_rules) >= 3 and Rule.DEMON_NOT_IN_CORNER in PLANTABLE


def _violations(board: Any) -> list[Any]:
    from engine.legality import find_violations

    return find_violations(board)


def test_exif_rotated_photo_shows_the_upright_truth() -> None:
    """A photo stored turned shows, EXIF applied, the upright image the truth is of."""
    seed = next(s for s in range(200) if
                plan_photo(s, "hard", SMALL).scene.extras.exif_orientation in (6, 8))
    photo = make_photo(seed, "hard", SMALL)
    stored = Image.open(io.BytesIO(photo.jpeg))
    assert stored.getexif()[0x0112] in (6, 8)
    assert stored.size == (SMALL[1], SMALL[0])  # turned pixels
    upright = decode(photo.jpeg)
    assert (photo.truth["image"]["width"], photo.truth["image"]["height"]) == SMALL
    # Only JPEG loss between them; the photo turned half-way round is far off.
    error = np.abs(upright.astype(int) - photo.image.astype(int)).mean()
    turned = np.abs(np.rot90(upright, 2).astype(int) - photo.image.astype(int)).mean()
    assert error < 8.0 and error < 0.5 * turned


def test_table_edge_and_clutter_stay_off_the_play_area() -> None:
    seen = {"edge": 0, "card": 0, "cup": 0}
    for seed in range(12):
        plan = plan_photo(seed, "hard", SMALL)
        extras = plan.scene.extras
        board = plan.board.board
        lines = shapely.MultiLineString([[*ln.polyline, ln.polyline[0]] for ln in board.lines])
        hull = lines.convex_hull
        feet = np.asarray([c.xy for c in board.creatures if c.xy is not None])
        if extras.table_edge is not None:
            seen["edge"] += 1
            hull_xy = shapely.get_coordinates(hull)
            assert edge_distance(extras.table_edge, *hull_xy.T).max() <= -PLAY_AREA_MARGIN_MM
            assert (edge_distance(extras.table_edge, *feet.T) < 0).all()  # pawns on the table
        for thing in extras.clutter:
            seen[thing.kind] += 1
            # How far the thing reaches from its centre: a card's corner, a cup's side.
            reach = math.hypot(*thing.size_mm) / 2 if thing.kind == "card" else thing.size_mm[0] / 2
            assert hull.distance(shapely.Point(thing.centre_mm)) >= PLAY_AREA_MARGIN_MM + reach
            assert np.hypot(*(feet - thing.centre_mm).T).min() > reach
    assert all(count > 0 for count in seen.values()), seen


def test_far_camera_gives_thin_strings() -> None:
    size = (4032, 3024)
    seed = next(s for s in range(200) if plan_photo(s, "hard", size).scene.extras.far_camera)
    plan = plan_photo(seed, "hard", size)
    x0, y0, x1, y1 = plan.scene.board_extent_mm
    centre = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
    cord_px = plan.camera.px_per_mm(centre)[0] * plan.scene.materials.string_diameter_mm
    assert cord_px < 5.0


def test_each_sample_gets_its_own_seed() -> None:
    """A seed makes the same board at any difficulty: a taken seed is passed over."""
    first = find_seed(WISHES[0])
    assert find_seed(WISHES[0], {first}) > first


@pytest.mark.skipif(not SAMPLES, reason="no sample images yet")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_sample_images_are_consistent_and_reproducible(path: Path) -> None:
    truth = json.loads(path.read_text())
    assert_in_picture(truth)
    assert_creatures_where_the_geometry_says(truth)
    scene = truth["scene"]
    size = (truth["image"]["width"], truth["image"]["height"])
    again = make_photo(scene["seed"], scene["difficulty"], size)
    assert again.truth == truth
    committed = decode(path.with_name(path.name.replace(".truth.json", ".jpg")).read_bytes())
    # Same pixels and same JPEG settings: equal bytes here; allow another libjpeg build.
    difference = np.abs(committed.astype(int) - decode(again.jpeg).astype(int)).mean()
    assert difference < 0.5


def test_sample_boards_differ() -> None:
    truths = [json.loads(p.read_text()) for p in SAMPLES]
    assert len(truths) == len(WISHES) == 8
    assert len({t["scene"]["seed"] for t in truths}) == 8
    assert len({json.dumps(t["lines"]) for t in truths}) == 8


def test_synth_command_writes_pairs_and_overlays(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "synth",
            "--count",
            "2",
            "--seed",
            "40",
            "--out",
            str(tmp_path),
            "--size",
            "480x360",
            "--difficulty",
            "hard",
            "--overlay",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "synth_hard_000040.jpg",
        "synth_hard_000040.overlay.jpg",
        "synth_hard_000040.truth.json",
        "synth_hard_000041.jpg",
        "synth_hard_000041.overlay.jpg",
        "synth_hard_000041.truth.json",
    ]
    truth = json.loads((tmp_path / "synth_hard_000041.truth.json").read_text())
    assert truth == make_photo(41, "hard", (480, 360)).truth
    assert decode((tmp_path / "synth_hard_000040.jpg").read_bytes()).shape == (360, 480, 3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "big"], "--size must look like"),
        (["--size", "10x10"], "between"),
        (["--count", "0"], "--count"),
        (["--knot-cover", "1.5"], "a chance is 0 to 1"),
        (["--knot-cover", "some"], "expected a number"),
        (["--tables", "felt"], "unknown table kind felt"),
        (["--tables", ","], "unknown table kind ','"),
        (["--lights", "sun"], "unknown light kind sun"),
    ],
)
def test_synth_command_rejects_bad_arguments(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli", "synth", "--out", str(tmp_path), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr


def test_synth_command_puts_demons_down_on_the_knots_when_asked(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "cli", "synth", "--out", str(tmp_path), "--seed", "6",
         "--size", "480x360", "--knot-cover", "1"],
        check=True,
        capture_output=True,
    )
    truth = json.loads((tmp_path / "synth_normal_000006.truth.json").read_text())
    assert truth == make_photo(6, "normal", (480, 360), knot_cover=1.0).truth
    assert truth["scene"]["knot_cover"] == 1.0
    # A demon stands on every knot (within half a pawn width of it).
    demons = [c for c in truth["creatures"] if c["kind"] == "demon"]
    for line in truth["lines"].values():
        nearest = min(demons, key=lambda c: math.dist(c["xy"], line["knot"]))
        assert math.dist(nearest["xy"], line["knot"]) <= 0.5 * nearest["pawn_px"]
    # ... which the game's own board of that seed does not have.
    plain = make_photo(6, "normal", (480, 360)).truth
    plain_demons = [c for c in plain["creatures"] if c["kind"] == "demon"]
    assert not all(
        min(math.dist(c["xy"], line["knot"]) for c in plain_demons) <= 0.5 * c0["pawn_px"]
        for line in plain["lines"].values()
        for c0 in plain_demons[:1]
    )


def test_corner_check_catches_a_foot_across_a_string() -> None:
    """The geometric check above is not vacuous: a demon moved over a string fails it."""
    truth = make_photo(2, "easy", SMALL).truth
    demon = next(c for c in truth["creatures"] if c["crossing"] is not None)
    apex = np.asarray(next(x["xy"] for x in truth["crossings"] if x["id"] == demon["crossing"]))
    # Mirror the foot through the crossing: into the opposite sector, another field.
    demon["xy"] = list(2 * apex - np.asarray(demon["xy"]))
    with pytest.raises(AssertionError):
        assert_creatures_where_the_geometry_says(truth)


def test_synth_command_makes_photos_on_the_tables_asked_for(tmp_path: Path) -> None:
    # The first three seeds from 3 planned on green felt or the blue mat, others skipped.
    on_them = (s for s in range(3, 300) if plan_photo(s, "hard", (480, 360)).scene.table.kind
               in ("green_felt", "blue_mat"))
    chosen = list(itertools.islice(on_them, 3))
    subprocess.run(
        [sys.executable, "-m", "cli", "synth", "--out", str(tmp_path), "--seed", "3",
         "--count", "3", "--difficulty", "hard", "--size", "480x360",
         "--tables", "green_felt, blue_mat"],
        check=True,
        capture_output=True,
    )
    made = sorted(p.name for p in tmp_path.glob("*.truth.json"))
    assert made == [f"synth_hard_{seed:06d}.truth.json" for seed in chosen]
    assert chosen != [3, 4, 5]  # some seed was skipped, or the test shows nothing
    for name in made:
        truth = json.loads((tmp_path / name).read_text())
        assert truth["scene"]["table"]["kind"] in ("green_felt", "blue_mat")


def test_synth_command_makes_photos_under_the_lights_asked_for(tmp_path: Path) -> None:
    # The first two seeds from 3 planned on green felt under a harsh side light.
    def wanted(seed: int) -> bool:
        scene = plan_photo(seed, "hard", (480, 360)).scene
        return scene.table.kind == "green_felt" and scene.light.kind == "harsh_side"

    chosen = list(itertools.islice((s for s in range(3, 3000) if wanted(s)), 2))
    subprocess.run(
        [sys.executable, "-m", "cli", "synth", "--out", str(tmp_path), "--seed", "3",
         "--count", "2", "--difficulty", "hard", "--size", "480x360",
         "--tables", "green_felt", "--lights", "harsh_side"],
        check=True,
        capture_output=True,
    )
    made = sorted(p.name for p in tmp_path.glob("*.truth.json"))
    assert made == [f"synth_hard_{seed:06d}.truth.json" for seed in chosen]
    for name in made:
        scene = json.loads((tmp_path / name).read_text())["scene"]
        assert (scene["table"]["kind"], scene["light"]["kind"]) == ("green_felt", "harsh_side")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--difficulty", "normal", "--tables", "green_felt,blue_mat"],
         "no normal photo is taken on those tables"),
        (["--difficulty", "easy", "--lights", "harsh_side"],
         "no easy photo is taken under that light"),
    ],
)
def test_synth_command_refuses_kinds_the_difficulty_never_draws(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli", "synth", "--out", str(tmp_path), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert not list(tmp_path.iterdir())
