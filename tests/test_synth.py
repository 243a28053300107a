"""Synthetic photos: the truth agrees with the engine and with the picture."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from engine.report import board_from_report, board_to_report
from engine.topology import build_board
from synth.boards import PLANTABLE, generate_board
from synth.photo import make_photo

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_images").glob("*.truth.json"))
SMALL = (640, 480)


def decode(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))


def assert_truth_consistent(truth: dict[str, Any]) -> None:
    """Re-scoring the truth gives its scores and violations; geometry is in the image."""
    again = board_to_report(board_from_report(truth))
    assert again["scores"] == truth["scores"]
    assert again["winners"] == truth["winners"]
    assert again["violations"] == truth["violations"]
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
def test_photo_truth_is_consistent_with_the_engine(seed: int, difficulty: str) -> None:
    photo = make_photo(seed, difficulty, SMALL)
    assert photo.image.shape == (SMALL[1], SMALL[0], 3)
    assert_truth_consistent(photo.truth)
    # The camera keeps topology: rebuilding it from the projected lines agrees.
    truth = photo.truth
    rebuilt = build_board(
        {c: ln["polyline"] for c, ln in truth["lines"].items()},
        {c: ln["knot"] for c, ln in truth["lines"].items()},
    )
    assert len(rebuilt.crossings) == len(truth["crossings"])
    assert sorted(f.value for f in rebuilt.fields) == sorted(f["value"] for f in truth["fields"])
    assert truth["scene"]["seed"] == seed and truth["scene"]["difficulty"] == difficulty


def test_same_seed_same_photo() -> None:
    a, b = make_photo(5, "normal", SMALL), make_photo(5, "normal", SMALL)
    assert a.jpeg == b.jpeg
    assert a.truth == b.truth
    c = make_photo(6, "normal", SMALL)
    assert c.truth["lines"] != a.truth["lines"]


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
    for seed in range(30):
        made = generate_board(np.random.default_rng(seed), "hard")
        report = board_to_report(made.board)
        sizes.append(sum(not c["off_board"] for c in report["creatures"]))
        rules = {v["rule"] for v in report["violations"]}
        for kind in made.planted:
            assert PLANTABLE[kind] in rules
        planted_rules |= set(made.planted)
        colours = [c["colour"] for c in report["creatures"]]
        assert all(colours.count(c) <= 10 for c in set(colours))
    assert min(sizes) <= 12 and max(sizes) >= 35
    assert len(planted_rules) >= 3


@pytest.mark.skipif(not SAMPLES, reason="no sample images yet")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_sample_images_are_consistent_and_reproducible(path: Path) -> None:
    truth = json.loads(path.read_text())
    assert_truth_consistent(truth)
    scene = truth["scene"]
    size = (truth["image"]["width"], truth["image"]["height"])
    again = make_photo(scene["seed"], scene["difficulty"], size)
    assert again.truth == truth
    committed = decode(path.with_name(path.name.replace(".truth.json", ".jpg")).read_bytes())
    # Same pixels and same JPEG settings: equal bytes here; allow another libjpeg build.
    difference = np.abs(committed.astype(int) - decode(again.jpeg).astype(int)).mean()
    assert difference < 0.5


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
        (["--count", "0"], "at least 1"),
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
