"""The bundled pixel classifier against the generator's exact labels, on a photo it was
not trained on (training examples use seeds from 1,000,000)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from synth.photo import make_photo
from training.dataset import feet_of, reduce_labels
from vision.load import load_photo
from vision.pixels import CLASSES, CORD, MODEL_PATH, classify_pixels, load_model

UNSEEN_SEED = 5_000_001


@pytest.fixture(scope="module")
def reading():
    made = make_photo(UNSEEN_SEED, "normal", (2016, 1512))
    photo = load_photo(made.jpeg)
    truth = reduce_labels(made.labels, int(photo.scale))
    return made, photo, truth, classify_pixels(photo.rgb)


def near(a: np.ndarray, b: np.ndarray) -> float:
    """The share of a's pixels within one pixel of b's."""
    grown = cv2.dilate(b.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return float((a & grown).sum() / max(a.sum(), 1))


def test_each_string_is_found_where_the_generator_drew_it(reading):
    _, _, truth, classes = reading
    assert classes.labels.shape == truth.shape
    for colour, index in CORD.items():
        found, drawn = classes.labels == index, truth == index
        # The classifier draws a cord a pixel wider than the generator's label (an
        # edge pixel is half cord), so both are measured with one pixel to spare.
        assert near(drawn, found) > 0.95, f"{colour} string missed"
        assert near(found, drawn) > 0.7, f"{colour} string seen where there is none"


def test_every_pawn_has_its_foot_marked(reading):
    made, photo, _, classes = reading
    feet = feet_of(made.truth, photo.scale)
    assert feet
    for foot in feet:
        x, y, reach = round(foot.x), round(foot.y), max(2, round(foot.width / 3))
        near = classes.foot[y - reach : y + reach + 1, x - reach : x + reach + 1]
        assert near.max() > 0.5, f"no foot marked near {foot}"


def test_sureness_is_a_probability(reading):
    _, _, _, classes = reading
    assert classes.sureness.dtype == np.float32
    assert 1 / len(CLASSES) <= classes.sureness.min() and classes.sureness.max() <= 1.0
    assert classes.foot.min() >= 0.0 and classes.foot.max() <= 1.0


def test_bad_images_are_refused():
    with pytest.raises(ValueError, match="uint8"):
        classify_pixels(np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        classify_pixels(np.zeros((8, 8, 3), np.float32))


def test_an_odd_sized_image_is_classified_whole():
    rgb = np.full((37, 51, 3), 128, np.uint8)
    classes = classify_pixels(rgb)
    assert classes.labels.shape == (37, 51)


def test_a_model_of_other_classes_is_refused(tmp_path: Path):
    onnx = tmp_path / "other.onnx"
    onnx.write_bytes(MODEL_PATH.read_bytes())
    meta = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    meta["classes"] = list(reversed(meta["classes"]))
    onnx.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="expects"):
        load_model(onnx)
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.onnx")
