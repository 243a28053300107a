"""Pixels stage: what every pixel of the photo shows, by a small learned classifier.

A table of a cord's own hue, a lamp's hotspot, long shadows and white ghosts on a white
table defeat fixed colour rules; a small convolutional network trained on generated
photos with exact labels (:mod:`training`) looks at each pixel with its neighbourhood
and says which of :data:`CLASSES` it shows, and whether a pawn's foot is there. The
network is an ONNX file in ``calibration/`` (``pixelnet.onnx``, with ``pixelnet.json``
naming its classes and input scaling) and runs in ONNX Runtime, so reading a photo
needs no deep-learning framework.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.colours import LINE_COLOURS
from vision.networks import Network, load_network

MODEL_PATH = Path(__file__).resolve().parents[1] / "calibration" / "pixelnet.onnx"

#: The classes the network tells apart, in its output order (then the foot).
CLASSES: tuple[str, ...] = (
    "background",
    *(f"cord_{colour}" for colour in LINE_COLOURS),
    "knot",
    *(f"pawn_{colour}" for colour in LINE_COLOURS),
    "ghost",
)
BACKGROUND = 0
KNOT = CLASSES.index("knot")
GHOST = CLASSES.index("ghost")
CORD = {colour: CLASSES.index(f"cord_{colour}") for colour in LINE_COLOURS}
PAWN = {colour: CLASSES.index(f"pawn_{colour}") for colour in LINE_COLOURS}


@dataclass(frozen=True)
class PixelClasses:
    """The classifier's reading of one photo at working resolution.

    Attributes
    ----------
    labels : (H, W) uint8
        The most likely class of each pixel, an index into :data:`CLASSES`.
    sureness : (H, W) float32
        The probability of that class (0..1).
    foot : (H, W) float32
        The probability that a pawn's foot is at the pixel (0..1).
    """

    labels: NDArray[np.uint8]
    sureness: NDArray[np.float32] = field(repr=False)
    foot: NDArray[np.float32] = field(repr=False)


@dataclass(frozen=True)
class PixelModel:
    """A loaded classifier: where its network is, and its settings."""

    path: Path
    classes: tuple[str, ...]
    input_scale: float
    input_mean: float
    side_multiple: int

    def network(self) -> Network:
        """The network, shared by the process's threads."""
        return load_network(self.path)


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> PixelModel:
    """Load the classifier at ``path`` (``.onnx``, with its ``.json`` beside it).

    Raises
    ------
    FileNotFoundError
        When either file is missing.
    ValueError
        When the model's classes are not the ones this reader knows.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no pixel classifier at {path} (make model trains one)")
    meta = json.loads(path.with_suffix(".json").read_text())
    classes = tuple(meta["classes"])
    if classes != CLASSES:
        raise ValueError(f"{path.name} classifies {classes}, this reader expects {CLASSES}")
    return PixelModel(
        path=path,
        classes=classes,
        input_scale=float(meta["input_scale"]),
        input_mean=float(meta["input_mean"]),
        side_multiple=int(meta["side_multiple"]),
    )


def classify_pixels(rgb: NDArray[np.uint8], model: PixelModel | None = None) -> PixelClasses:
    """Classify every pixel of an RGB photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        The photo at working resolution.
    model : PixelModel, optional
        The bundled classifier when omitted.

    Returns
    -------
    PixelClasses
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("rgb must be an (H, W, 3) uint8 image")
    model = model or load_model()
    h, w = rgb.shape[:2]
    m = model.side_multiple
    # The network halves the image three times: pad to whole multiples, with the
    # edge repeated so that the border looks like more of the same table.
    padded = cv2.copyMakeBorder(rgb, 0, -h % m, 0, -w % m, cv2.BORDER_REPLICATE)
    blob = cv2.dnn.blobFromImage(
        padded,
        scalefactor=model.input_scale,
        mean=(model.input_mean / model.input_scale,) * 3,
        swapRB=False,
    )
    logits = model.network().run(np.asarray(blob, np.float32))[0, :, :h, :w]
    return _decide(logits[: len(CLASSES)], logits[len(CLASSES)])


def _decide(class_logits: NDArray[np.float32], foot_logit: NDArray[np.float32]) -> PixelClasses:
    """Most likely class, its probability, and the foot probability, per pixel."""
    labels = class_logits.argmax(axis=0).astype(np.uint8)
    best = np.take_along_axis(class_logits, labels[None].astype(np.intp), axis=0)[0]
    # softmax probability of the best class: 1 / sum(exp(logit - best))
    total = np.zeros(labels.shape, np.float32)
    for channel in class_logits:
        total += np.exp(channel - best)
    sureness = (1.0 / total).astype(np.float32)
    foot = (1.0 / (1.0 + np.exp(-foot_logit))).astype(np.float32)
    return PixelClasses(labels=labels, sureness=sureness, foot=foot)


def draw_classes(classes: PixelClasses) -> NDArray[np.uint8]:
    """The classes in display colours: cords bright, pawns darker, knots orange,
    ghosts white, background black; feet marked in magenta."""
    from vision.overlay import COLOURS_RGB  # display colours, shared with the overlay

    palette = np.zeros((len(CLASSES), 3), np.uint8)
    for colour in LINE_COLOURS:
        palette[CORD[colour]] = COLOURS_RGB[colour]
        palette[PAWN[colour]] = (np.array(COLOURS_RGB[colour]) * 0.55).astype(np.uint8)
    palette[GHOST] = (235, 235, 235)
    palette[KNOT] = (255, 140, 0)
    picture = palette[classes.labels]
    picture[classes.foot > 0.5] = (255, 0, 255)
    return np.asarray(picture)
