"""Small plane-geometry helpers shared by the topology, the layouts and point location.

Points cross module boundaries as tuples (``engine.board.Point``) and are worked on as
``(n, 2)`` float arrays; these convert between the two quickly and answer the few
questions more than one module asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import cast

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing

from engine.board import Point

FloatArray = NDArray[np.float64]


def signed_area(outline: FloatArray) -> float:
    """Area of the closed polygon ``outline`` (n, 2): positive when counter-clockwise
    (in a frame with y up), negative when clockwise."""
    x, y = outline[:, 0], outline[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def as_points(coords: FloatArray) -> tuple[Point, ...]:
    """The rows of ``coords`` (n, 2) as a tuple of (x, y) float pairs."""
    # map() over tolist() keeps the conversion in C: boards carry thousands of points.
    return cast(tuple[Point, ...], tuple(map(tuple, coords.tolist())))


def as_array(points: Sequence[Point]) -> FloatArray:
    """(n, 2) array of a sequence of (x, y) pairs (faster than ``np.asarray``)."""
    flat = np.fromiter(chain.from_iterable(points), dtype=float, count=2 * len(points))
    return flat.reshape(-1, 2)


def ring_crossings(a: LinearRing, b: LinearRing) -> FloatArray | None:
    """Where two closed lines meet, as (k, 2); ``None`` if they overlap along a stretch."""
    shared = a.intersection(b)
    if shared.is_empty:
        return np.empty((0, 2))
    parts = list(getattr(shared, "geoms", [shared]))
    if any(part.geom_type != "Point" for part in parts):
        return None
    return np.asarray(shapely.get_coordinates(shared), dtype=float)


__all__ = ["as_array", "as_points", "ring_crossings", "signed_area"]
