"""The ghost checker (vision.ghost_check): the shipped network on the sample photos, and
its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from checker_samples import sample, table_beside, working

from vision.combine import CHECKED_GHOST
from vision.ghost_check import ghost_odds, load_ghost_check, turned_ghost_odds


@pytest.mark.parametrize(
    "name", ["04_normal_white_table", "06_hard_green_felt", "08_hard_steep_side_light"]
)
def test_the_checker_sees_the_samples_ghosts_and_not_their_demons_nor_the_table(
    name: str,
) -> None:
    rgb, truth, scale, width = sample(name)
    creatures = [c for c in truth["creatures"] if not c["off_board"]]
    ghosts = [working(c["xy"], scale) for c in creatures if c["kind"] == "ghost"]
    demons = [working(c["xy"], scale) for c in creatures if c["kind"] == "demon"]
    assert ghosts and demons
    at_ghosts = ghost_odds(rgb, ghosts, width)
    at_demons = ghost_odds(rgb, demons, width)
    feet = np.array(ghosts + demons)
    aside = table_beside(feet, width)
    assert len(aside) >= 10
    at_table = ghost_odds(rgb, aside, width)
    assert np.mean(at_ghosts >= CHECKED_GHOST) >= 0.8, at_ghosts
    assert np.all(at_demons < CHECKED_GHOST), at_demons
    assert np.all(at_table < CHECKED_GHOST), at_table


def test_the_checker_asks_for_a_width_and_answers_nothing_for_no_place() -> None:
    rgb = np.full((120, 160, 3), 200, np.uint8)
    for odds_of in (ghost_odds, turned_ghost_odds):  # asked once or eight ways, alike
        assert odds_of(rgb, [], 20.0).shape == (0,)
        for width in (0.0, -3.0, float("nan")):
            with pytest.raises(ValueError, match="width"):
                odds_of(rgb, [(50.0, 50.0)], width)
        with pytest.raises(ValueError, match="RGB"):
            odds_of(rgb[:, :, 0], [(50.0, 50.0)], 20.0)
    odds = ghost_odds(rgb, [(50.0, 50.0), (-40.0, 500.0)], 20.0)
    assert odds.shape == (2,) and np.all((odds >= 0) & (odds <= 1))
    # A place every turn of whose crop is the same (an even grey) gets the one answer.
    turned = turned_ghost_odds(rgb, [(50.0, 50.0), (-40.0, 500.0)], 20.0)
    assert turned == pytest.approx(odds, abs=1e-5)


def test_a_checker_for_other_crops_or_none_at_all_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make ghost-check"):
        load_ghost_check(tmp_path / "ghostnet.onnx")
    shipped = load_ghost_check()
    (tmp_path / "ghostnet.onnx").write_bytes(shipped.path.read_bytes())
    (tmp_path / "ghostnet.json").write_text(json.dumps({"crop_px": 64, "crop_pawns": 5.0}))
    with pytest.raises(ValueError, match="64 px"):
        load_ghost_check(tmp_path / "ghostnet.onnx")
