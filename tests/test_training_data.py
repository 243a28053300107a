"""The labelled examples the pixel classifier learns from (no PyTorch needed)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from synth.labels import BACKGROUND, KNOT, cord_class, pawn_class
from training.dataset import crowded, feet_of, make_example, reduce_labels

RED_CORD = cord_class("red")


def test_reduced_labels_keep_a_thin_cord_unbroken():
    labels = np.zeros((40, 40), np.uint8)
    # A diagonal cord three original pixels wide: at half size it is 1.5 pixels.
    for i in range(40):
        labels[i, max(0, i - 1) : i + 2] = RED_CORD
    reduced = reduce_labels(labels, 2)
    assert reduced.shape == (20, 20)
    cord = reduced == RED_CORD
    count, _ = cv2.connectedComponents(cord.astype(np.uint8), connectivity=8)
    assert count == 2  # the background and one unbroken cord
    assert cord.sum() < 3 * 20  # still thin


def test_reduced_labels_take_the_largest_object_and_drop_specks():
    labels = np.zeros((4, 8), np.uint8)
    labels[:, :4] = pawn_class("blue")
    labels[0, 0] = KNOT  # outvoted inside its block
    labels[0, 4] = RED_CORD  # one of 16 pixels: too little of a 4x4 block
    reduced = reduce_labels(labels, 4)
    assert reduced.tolist() == [[pawn_class("blue"), BACKGROUND]]


def test_reduce_labels_refuses_nonsense():
    with pytest.raises(ValueError):
        reduce_labels(np.zeros((4, 4, 3), np.uint8), 2)
    with pytest.raises(ValueError):
        reduce_labels(np.zeros((4, 4), np.uint8), 0)
    same = np.arange(16, dtype=np.uint8).reshape(4, 4) % 11
    np.testing.assert_array_equal(reduce_labels(same, 1), same)


def test_feet_are_moved_to_working_pixels():
    truth = {"creatures": [{"xy": [99.5, 9.5], "colour": "white", "pawn_px": 60.0}]}
    (foot,) = feet_of(truth, 2.0)
    # Original pixel centre 99.5 lies in working pixel 49.75 (pixel x covers [2x, 2x+2)).
    assert (foot.x, foot.y, foot.width) == (pytest.approx(49.5), pytest.approx(4.5), 30.0)
    assert foot.label == pawn_class("white")


def test_an_example_is_the_reader_s_view_with_its_labels(tmp_path):
    name = make_example(1_000_003, tmp_path)
    image = cv2.imread(str(tmp_path / f"{name}.jpg"))
    labels = cv2.imread(str(tmp_path / f"{name}.labels.png"), cv2.IMREAD_GRAYSCALE)
    feet = json.loads((tmp_path / f"{name}.feet.json").read_text())
    assert image.shape[:2] == labels.shape
    assert max(image.shape) <= 2400  # the working resolution, not the 12 MP photo
    # The labels lie on what they name: red cord pixels are redder than the table.
    rgb = image[:, :, ::-1].astype(float)
    redness = rgb[..., 0] - rgb[..., 1:].mean(axis=-1)
    assert redness[labels == RED_CORD].mean() > redness[labels == BACKGROUND].mean() + 20
    # Every foot stands on a pawn of its class, or next to it.
    for foot in feet["feet"]:
        x, y = int(round(foot["x"])), int(round(foot["y"]))
        window = labels[max(0, y - 3) : y + 4, max(0, x - 3) : x + 4]
        assert (window == foot["label"]).any()


def test_examples_can_be_chosen_by_their_table():
    from concurrent.futures import ProcessPoolExecutor

    from training.dataset import chosen_seeds, looks_of

    with ProcessPoolExecutor(2) as pool:
        seeds = chosen_seeds(pool, 5000, 3, {"green_felt", "blue_mat"})
        everyone = chosen_seeds(pool, 5000, 3, set())
        with pytest.raises(ValueError, match="unknown tables"):
            chosen_seeds(pool, 5000, 1, {"felt"})  # would never find one
    assert everyone == [5000, 5001, 5002]
    assert len(seeds) == 3 and seeds == sorted(set(seeds))
    assert all(looks_of(s, hard_only=True)[0] in {"green_felt", "blue_mat"} for s in seeds)
    # The seeds passed over were on other tables.
    skipped = set(range(seeds[0], seeds[-1])) - set(seeds)
    assert all(looks_of(s, hard_only=True)[0] not in {"green_felt", "blue_mat"} for s in skipped)


def test_examples_can_be_chosen_by_their_pawns_mirroring_a_window():
    from concurrent.futures import ProcessPoolExecutor

    from training.dataset import chosen_seeds, looks_of

    with ProcessPoolExecutor(2) as pool:
        seeds = chosen_seeds(pool, 5000, 3, set(), window_pawns=True)
        on_felt = chosen_seeds(pool, 5000, 2, {"green_felt", "blue_mat"}, window_pawns=True)
    assert len(seeds) == 3 and seeds == sorted(set(seeds))
    assert all(looks_of(s, hard_only=True)[1] for s in seeds)
    skipped = set(range(5000, seeds[-1])) - set(seeds)
    assert skipped and not any(looks_of(s, hard_only=True)[1] for s in skipped)
    assert len(on_felt) == 2
    assert all(looks_of(s, hard_only=True) in {("green_felt", True), ("blue_mat", True)}
               for s in on_felt)


def test_examples_chosen_for_their_window_are_hard_photos(tmp_path):
    from training.dataset import looks_of, main

    assert main(["--out", str(tmp_path), "--count", "1", "--seed", "5000", "--workers", "1",
                 "--window-pawns"]) == 0
    (made,) = tmp_path.glob("*.jpg")
    assert made.name.startswith("hard_")
    assert looks_of(int(made.stem.split("_")[1]), hard_only=True)[1]


def test_an_unknown_table_is_refused_before_anything_is_made(tmp_path, capsys):
    from training.dataset import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "examples"), "--tables", "green_felt,felt"])
    assert "unknown tables ['felt']" in capsys.readouterr().err
    assert not (tmp_path / "examples").exists()


@pytest.mark.parametrize("share", ["-0.1", "1.5"])
def test_a_knot_cover_beyond_0_to_1_is_refused_before_anything_is_made(tmp_path, capsys, share):
    from training.dataset import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "examples"), "--knot-cover", share])
    assert "--knot-cover must be within 0..1" in capsys.readouterr().err
    assert not (tmp_path / "examples").exists()


def test_crowded_pawns_are_beside_another_or_touching_a_cord():
    labels = np.zeros((60, 100), np.uint8)
    labels[:, 80] = RED_CORD  # a cord down the right
    feet = [
        (10.0, 30.0, 8.0),  # alone on the table
        (40.0, 30.0, 8.0),  # beside the next one (10 px = 1.25 widths)
        (50.0, 30.0, 8.0),
        (75.0, 30.0, 8.0),  # 5 px from the cord: touching it
    ]
    assert crowded(labels, feet).tolist() == [False, True, True, True]
    # At the limits (width 8: the square reaches 6 px each way round the foot's pixel).
    corner, beyond = np.zeros((60, 100), np.uint8), np.zeros((60, 100), np.uint8)
    corner[36, 16] = RED_CORD  # (6, 6) from the foot at (10, 30): in the square
    beyond[30, 17] = RED_CORD  # 7 px along the row: out of it
    alone = [(10.0, 30.0, 8.0)]
    assert crowded(corner, alone).tolist() == [True]
    assert crowded(beyond, alone).tolist() == [False]
    apart = [(10.0, 30.0, 8.0), (21.9, 30.0, 8.0), (40.0, 30.0, 8.0), (52.1, 30.0, 8.0)]
    assert crowded(np.zeros_like(labels), apart).tolist() == [True, True, False, False]
    assert crowded(labels, []).tolist() == []
    with pytest.raises(ValueError):
        crowded(labels[None], feet)
