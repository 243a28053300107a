"""What stands on the table, in table millimetres (x right, y down the table, z up)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.colours import DEMON, GHOST, LINE_COLOURS, WHITE

Point = tuple[float, float]

__all__ = ["Crossing", "PAWN_STYLES", "Pawn", "SceneObjects", "LINE_COLOURS"]

#: The shapes a set of pawns can have (see :mod:`synth.pawns`).
PAWN_STYLES = ("snowman", "flared", "cone")


@dataclass(frozen=True)
class Pawn:
    """One wooden pawn standing on the table.

    Parameters
    ----------
    kind : {"demon", "ghost"}
        A demon is painted in one of the four line colours, a ghost is white.
    colour : str
        ``"red"``, ``"yellow"``, ``"green"``, ``"blue"`` or ``"white"``.
    foot_xy_mm : tuple of float
        Centre of the pawn's base on the table, in millimetres.
    """

    kind: str
    colour: str
    foot_xy_mm: Point

    def __post_init__(self) -> None:
        if self.kind not in (DEMON, GHOST):
            raise ValueError(f"pawn kind must be 'demon' or 'ghost', not {self.kind!r}")
        allowed = (WHITE,) if self.kind == GHOST else LINE_COLOURS
        if self.colour not in allowed:
            raise ValueError(f"a {self.kind} cannot be {self.colour!r}")


#: A crossing: its position, the colour of the string on top, the colour below.
Crossing = tuple[Point, str, str]


@dataclass(frozen=True)
class SceneObjects:
    """The strings, knots and pawns of one board, in table millimetres.

    Parameters
    ----------
    lines : dict of str to ndarray, shape (N, 2)
        Closed centre-line polyline of each string, first point not repeated,
        sampled every 1–2 mm.
    knots : dict of str to (x, y) or None
        Position of each loop's tie knot (on its polyline), or ``None``.
    crossings : list of ((x, y), upper_colour, lower_colour)
        Where two strings cross and which one lies on top.
    pawns : list of Pawn
        The pawns standing on (or beside) the board.
    """

    lines: dict[str, np.ndarray]
    knots: dict[str, Point | None] = field(default_factory=dict)
    crossings: list[Crossing] = field(default_factory=list)
    pawns: list[Pawn] = field(default_factory=list)

    def extent_mm(self) -> tuple[float, float, float, float]:
        """Bounding box ``(xmin, ymin, xmax, ymax)`` of strings and pawn feet."""
        pts = [np.asarray(p, dtype=float).reshape(-1, 2) for p in self.lines.values()]
        pts += [np.asarray([p.foot_xy_mm], dtype=float) for p in self.pawns]
        allpts = np.concatenate(pts) if pts else np.zeros((1, 2))
        (x0, y0), (x1, y1) = allpts.min(axis=0), allpts.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)
