"""The demon checker (vision.demon_check): the shipped network on the sample photos, and
its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from checker_samples import sample, table_beside, working

from vision.combine import CHECKED_DEMON
from vision.demon_check import demon_odds, load_demon_check


@pytest.mark.parametrize("name", ["06_hard_green_felt", "07_hard_blue_mat"])
def test_the_checker_sees_the_demons_on_felt_and_mat_and_not_the_ghosts_nor_the_table(
    name: str,
) -> None:
    rgb, truth, scale, width = sample(name)
    creatures = [c for c in truth["creatures"] if not c["off_board"]]
    demons = [working(c["xy"], scale) for c in creatures if c["kind"] == "demon"]
    ghosts = [working(c["xy"], scale) for c in creatures if c["kind"] == "ghost"]
    assert demons
    feet = np.array(demons + ghosts)
    aside = table_beside(feet, width)
    assert len(aside) >= 10
    at_demons = demon_odds(rgb, demons, width)
    at_table = demon_odds(rgb, aside, width)
    assert np.mean(at_demons >= CHECKED_DEMON) >= 0.8, at_demons
    assert np.all(at_table < CHECKED_DEMON), at_table
    if ghosts:
        assert np.all(demon_odds(rgb, ghosts, width) < CHECKED_DEMON)


def test_the_checker_asks_for_a_width_and_answers_nothing_for_no_place() -> None:
    rgb = np.full((120, 160, 3), 200, np.uint8)
    assert demon_odds(rgb, [], 20.0).shape == (0,)
    for width in (0.0, -3.0, float("nan")):
        with pytest.raises(ValueError, match="width"):
            demon_odds(rgb, [(50.0, 50.0)], width)
    with pytest.raises(ValueError, match="RGB"):
        demon_odds(rgb[:, :, 0], [(50.0, 50.0)], 20.0)
    odds = demon_odds(rgb, [(50.0, 50.0), (-40.0, 500.0)], 20.0)
    assert odds.shape == (2,) and np.all((odds >= 0) & (odds <= 1))


def test_a_checker_for_other_crops_or_none_at_all_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make demon-check"):
        load_demon_check(tmp_path / "demonnet.onnx")
    shipped = load_demon_check()
    (tmp_path / "demonnet.onnx").write_bytes(shipped.path.read_bytes())
    (tmp_path / "demonnet.json").write_text(json.dumps({"crop_px": 64, "crop_pawns": 5.0}))
    with pytest.raises(ValueError, match="64 px"):
        load_demon_check(tmp_path / "demonnet.onnx")
