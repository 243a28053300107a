"""The second look: pawns the colour rules missed, added from the pixel classifier."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from vision.creatures import Pawns, SeenPawn
from vision.evaluate import compare_reports
from vision.reader import read_photo
from vision.second_look import add_missed_pawns

SAMPLE = Path(__file__).resolve().parent.parent / "sample_images" / "02_easy_cloth.jpg"


@pytest.fixture(scope="module")
def classic():
    return read_photo(SAMPLE, method="classic")


def second_look(reading, pawns: Pawns, unseen: SeenPawn | None = None) -> Pawns:
    """The second look at ``reading`` with these pawns found; ``unseen``'s body is
    taken out of what the colour rules saw, as if they had missed it entirely."""
    separation = reading.stages["separate"]
    if unseen is not None:
        seen = separation.pawn_mask.astype("uint8")
        x, y = (int(round(v)) for v in unseen.foot)
        cv2.circle(seen, (x, y), int(1.5 * pawns.pawn_width), 0, -1)
        separation = replace(separation, pawn_mask=seen.astype(bool))
    return add_missed_pawns(pawns, reading.stages["load"], reading.stages["trace"], separation)


def test_the_pawns_found_are_kept_and_none_is_doubled(classic):
    found = classic.stages["creatures"]
    looked = second_look(classic, found)
    assert looked.pawns[: len(found.pawns)] == found.pawns
    # On this sample the rules found every pawn on the board: nothing is added.
    assert len(looked.pawns) == len(found.pawns)


@pytest.mark.parametrize("missing", [0, 3, 6, 8])
def test_a_pawn_the_rules_missed_is_added_where_it_stands(classic, missing):
    found = classic.stages["creatures"]
    lost = found.pawns[missing]
    fewer = Pawns(
        pawns=[p for k, p in enumerate(found.pawns) if k != missing],
        pawn_width=found.pawn_width,
        warnings=[],
    )
    looked = second_look(classic, fewer, unseen=lost)
    added = looked.pawns[len(fewer.pawns) :]
    assert [(p.kind, p.colour) for p in added] == [(lost.kind, lost.colour)]
    assert math.dist(added[0].foot, lost.foot) < 0.5 * found.pawn_width
    assert added[0].confidence <= 0.6
    assert any("only by the pixel classifier" in w.text for w in looked.warnings)


def test_a_pawn_whose_body_the_rules_saw_is_not_added_again(classic):
    # Its foot put elsewhere (a ghost's blob that takes in its shadow), it is the same
    # pawn: the rules' reading of it stands.
    found = classic.stages["creatures"]
    fewer = Pawns(found.pawns[1:], found.pawn_width, [])
    assert len(second_look(classic, fewer).pawns) == len(fewer.pawns)


def test_a_pawn_away_from_the_board_is_not_looked_for(classic):
    found = classic.stages["creatures"]
    far = found.pawns[5]  # the blue demon at the top, off the board
    assert classic.report["creatures"][5]["off_board"]
    fewer = Pawns([p for p in found.pawns if p is not far], found.pawn_width, [])
    assert len(second_look(classic, fewer, unseen=far).pawns) == len(fewer.pawns)


def test_the_reader_with_a_second_look_reads_the_sample_exactly():
    reading = read_photo(SAMPLE, method="classic+net")
    assert "second look" in reading.stages
    truth = json.loads(SAMPLE.with_suffix(".truth.json").read_text())
    comparison = compare_reports(reading.report, truth)
    assert comparison.board_exact, "; ".join(comparison.problems)
