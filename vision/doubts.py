"""What a report's confidences mean, shared by the reader, its overlay, the benchmark and
the web page's editor (plain Python: no image libraries).

A crossing, creature or knot read with a confidence under :data:`LOW_CONFIDENCE` is
unsure: the overlay marks it "?", the web page rings it in orange and ``accuracy.py``
counts an error near it as pointed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Items read with less confidence than this are unsure (marked "?").
LOW_CONFIDENCE = 0.6
#: A creature the locator flags (on a string, far from the corners, between corners, at
#: the edge of its corner's reach) has its confidence multiplied by this (unsure, under
#: LOW_CONFIDENCE) and is named in the warnings (:func:`place_warning`), ...
AMBIGUOUS_PLACE = 0.5
#: ... except a demon whose foot cannot tell its corner from others (between corners;
#: the report lists them as its ``corners_alike``) where every one of them gives the
#: board the same scores, field owners and violations
#: (:func:`engine.report.moves_change_nothing`): its confidence is then at most this,
#: above LOW_CONFIDENCE, and no warning names it (a doubt that cannot change what the
#: report says; a pawn unsure for another reason stays so).
MOOT_CONFIDENCE = 0.8


def is_unsure(confidence: object) -> bool:
    """Whether a report's ``confidence`` (or a line's ``knot_confidence``) marks its item
    unsure: a number under :data:`LOW_CONFIDENCE` (an item without one is not)."""
    return isinstance(confidence, int | float) and confidence < LOW_CONFIDENCE


def place_warning(creature_id: int, colour: str, kind: str, ambiguity: str) -> str:
    """The warning for a creature whose place the locator doubts (its ``ambiguity``)."""
    return f"creature {creature_id} ({colour} {kind}) is {ambiguity}"


def no_knot_warning(colour: str) -> str:
    """The warning for a loop on which no knot was found."""
    return f"no knot found on the {colour} loop"


#: A place a warning names: "near (475, 721)", "at (1071, 603)" (see
#: ``vision.creatures.Remark``).
_PLACE = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")


def warning_places(warning: str) -> list[tuple[float, float]]:
    """The places (x, y) a warning names."""
    return [(float(x), float(y)) for x, y in _PLACE.findall(warning)]


#: What :func:`missed_pawn_warning` says of the place, and how it is told from others.
_MISSED_PAWN = "may stand against another pawn at"


def missed_pawn_warning(colour: str, kind: str, at: str) -> str:
    """The warning for a pawn the reader may have missed: marked faintly against another
    pawn at ``at`` ("(x, y)", or "{at}" for a :class:`vision.creatures.Remark`), and
    neither added nor ruled out. Unlike the other warnings that name a place, no
    creature was read there: the overlay and the web page ring it."""
    return f"a {colour} {kind} {_MISSED_PAWN} {at}: the camera saw it faintly"


def is_missed_pawn_warning(warning: str) -> bool:
    """Whether ``warning`` is a :func:`missed_pawn_warning`."""
    return _MISSED_PAWN in warning


def missed_pawn_places(warnings: Iterable[object]) -> list[tuple[float, float]]:
    """The places the :func:`missed_pawn_warning` warnings among ``warnings`` name."""
    return [
        place
        for warning in map(str, warnings)
        if is_missed_pawn_warning(warning)
        for place in warning_places(warning)
    ]
