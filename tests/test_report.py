"""The board report: to JSON and back, re-scoring, and malformed reports."""

from __future__ import annotations

import copy
import itertools
import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board, Creature, demon, ghost
from engine.colours import DEMON
from engine.errors import BoardError, BoardFormatError
from engine.layout import random_layout
from engine.report import SCHEMA, board_from_report, board_to_report, moves_change_nothing
from engine.scoring import score
from engine.topology import build_board
from engine.validate import geometry_problems

DEV_PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "dev-photos"
DEV_TRUTHS = sorted(DEV_PHOTOS.glob("*.truth.json"))


def circle(cx: float, cy: float, r: float, n: int = 120) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]


@pytest.fixture
def board() -> Board:
    topology = build_board(
        {"red": circle(0, 0, 100), "blue": circle(120, 0, 100), "green": circle(60, 90, 80)},
        {"red": (-100, 0)},
    )
    some_field = topology.fields[1]
    return topology.with_creatures(
        (
            demon(
                topology.crossings[some_field.corners[0]].lines[0],
                1,
                some_field.corners[0],
                (1.0, 2.0),
            ),
            ghost(2, (3.0, 4.0)),
        )
    )


@pytest.fixture
def report(board: Board) -> dict[str, Any]:
    return board_to_report(board, image_size=(4032, 3024))


def test_report_has_the_contract_shape(report: dict[str, Any]) -> None:
    assert report["schema"] == SCHEMA
    assert report["image"] == {"width": 4032, "height": 3024}
    assert set(report["lines"]) == {"red", "blue", "green"}
    assert report["lines"]["blue"]["knot"] is None
    assert sum(f["outer"] for f in report["fields"]) == 1
    outer = next(f for f in report["fields"] if f["outer"])
    assert outer["polygon"] is None
    for f in report["fields"]:
        assert f["value"] == len(f["corners"]) + len(f["knots"])
    for c in report["crossings"]:
        assert c["lines"] == sorted(c["lines"])
    assert set(report["scores"]) == {"red", "yellow", "green", "blue", "white"}
    assert report["winners"] == sorted(report["winners"])
    assert json.loads(json.dumps(report, allow_nan=False)) == report  # plain, strict JSON


def test_round_trip_keeps_topology_creatures_and_scores(
    board: Board, report: dict[str, Any]
) -> None:
    again = board_from_report(json.loads(json.dumps(report)))
    assert [f.corners for f in again.fields] == [f.corners for f in board.fields]
    assert [f.knots for f in again.fields] == [f.knots for f in board.fields]
    assert [(c.kind, c.colour, c.field, c.crossing) for c in again.creatures] == [
        (c.kind, c.colour, c.field, c.crossing) for c in board.creatures
    ]
    assert score(again).points == score(board).points
    assert board_to_report(again, image_size=(4032, 3024)) == report


def test_hand_edit_changes_the_score(report: dict[str, Any]) -> None:
    """Re-scoring follows a corrected creature, and a stale field value is ignored."""
    edited = copy.deepcopy(report)
    target = edited["creatures"][0]
    field = edited["fields"][target["field"]]
    edited["creatures"][1]["kind"] = "demon"
    edited["creatures"][1]["colour"] = target["colour"]
    edited["creatures"][1]["field"] = target["field"]
    edited["creatures"][1]["crossing"] = field["corners"][1]
    field["value"] = 99
    scores = board_to_report(board_from_report(edited))["scores"]
    assert scores["white"] == 0
    # The two demons are the only creatures: their field's real value is all they score.
    assert scores[target["colour"]] == len(field["corners"]) + len(field["knots"]) != 99
    assert sum(scores.values()) == scores[target["colour"]]


def test_field_owning_two_sectors_of_one_crossing_has_two_corners_there(
    report: dict[str, Any],
) -> None:
    """Geometry of simple loops never makes one (see test_topology), but a report may."""
    edited = copy.deepcopy(report)
    bounded = [f for f in edited["fields"] if not f["outer"]]
    a, b = (
        bounded[0],
        next(f for f in bounded[1:] if set(f["corners"]) & set(bounded[0]["corners"])),
    )
    shared = sorted(set(a["corners"]) & set(b["corners"]))[0]
    b["corners"].remove(shared)
    a["corners"].append(shared)  # a now owns two sectors at `shared`
    with pytest.raises(BoardFormatError, match=r"fields\[\d+\]\.corners: the lines give"):
        board_from_report(edited)  # the lines say otherwise
    board = board_from_report(edited, topology="trust")
    assert board.fields[a["id"]].corners.count(shared) == 2
    assert board.corner_capacity[(a["id"], shared)] == 2
    colour = board.crossings[shared].lines[0]
    two = board.with_creatures((demon(colour, a["id"], shared), demon(colour, a["id"], shared)))
    assert not [
        v for v in board_to_report(two)["violations"] if v["rule"] == "two-demons-in-corner"
    ]
    three = two.with_creature(demon(colour, a["id"], shared))
    rules = [v["rule"] for v in board_to_report(three)["violations"]]
    assert "two-demons-in-corner" in rules


@pytest.mark.skipif(not DEV_TRUTHS, reason="shared/dev-photos not present")
@pytest.mark.parametrize("path", DEV_TRUTHS, ids=lambda p: p.stem)
def test_dev_photo_truths_rescore_to_their_own_scores(path: Path) -> None:
    truth = json.loads(path.read_text())
    again = board_to_report(board_from_report(truth))
    assert again["scores"] == truth["scores"]
    assert again["winners"] == truth["winners"]
    rules = sorted((v["rule"], v["creatures"]) for v in again["violations"])
    assert rules == sorted((v["rule"], v["creatures"]) for v in truth["violations"])


@pytest.mark.skipif(not DEV_TRUTHS, reason="shared/dev-photos not present")
@pytest.mark.parametrize("path", DEV_TRUTHS[:4], ids=lambda p: p.stem)
def test_dev_photo_geometry_gives_the_same_topology(path: Path) -> None:
    truth = json.loads(path.read_text())
    rebuilt = build_board(
        {c: ln["polyline"] for c, ln in truth["lines"].items()},
        {c: ln["knot"] for c, ln in truth["lines"].items()},
    )
    check = geometry_problems(board_from_report(truth, topology="trust"))
    assert check.problems == ()
    # Matched entry by entry: the same fields own the same sectors.
    assert len(check.sectors) == 4 * len(truth["crossings"]) == len(rebuilt.sectors)
    owners = sorted((s.crossing, s.field) for s in check.sectors)
    assert owners == sorted((c, f["id"]) for f in truth["fields"] for c in f["corners"])


# --- malformed reports ------------------------------------------------------------------


def broken(report: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A copy of ``report`` with the entry at ``path`` (dot-separated) set or deleted."""
    out = copy.deepcopy(report)
    *parents, last = path.split(".")
    node: Any = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    key_or_index: Any = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key_or_index]
    else:
        node[key_or_index] = value
    return out


DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("schema", "something-else", "schema"),
        ("lines", [], "lines: expected an object"),
        (
            "lines.purple",
            {"polyline": [[0, 0], [1, 0], [0, 1]], "knot": None},
            "unknown colour 'purple'",
        ),
        ("lines.red.polyline", [[0, 0], [1, 1]], "at least 3"),
        ("lines.red.knot", [1, "x"], "lines.red.knot"),
        ("crossings.0.lines", ["red", "red"], "two different lines"),
        ("crossings.0.lines", ["red", "pink"], "unknown colour 'pink'"),
        ("crossings.0.id", 77, "ids must be"),
        ("crossings.0.xy", None, "crossings[0].xy"),
        ("fields.0.outer", False, "exactly one field must be outer"),
        ("fields.1.outer", "yes", "fields[1].outer"),
        ("fields.1.corners", [0, 1, 99], "fields[1].corners[2]: crossing 99 does not exist"),
        ("fields.1.corners", [], "four sectors"),
        ("fields.1.corners", [0, 0, 0, 0], "fields[1].corners: lists crossing 0 4 times"),
        ("fields.1.knots", ["red", "red"], "lines.red.knot: a knot counts for the two fields"),
        ("lines.red.knot", None, "counts the red knot, but lines.red.knot is null"),
        ("lines.red.knot", [float("nan"), 0], "lines.red.knot: expected finite"),
        ("lines.red.polyline.0", [1e400, 0], "lines.red.polyline[0]: expected finite"),
        ("lines.red.polyline.0", [10**400, 0], "lines.red.polyline[0]: expected finite"),
        ("crossings.0.xy", [float("inf"), 0], "crossings[0].xy: expected finite"),
        ("image", {}, "image.width: expected an integer"),
        ("image", {"width": -3, "height": 5}, "image.width: expected 1.."),
        ("lines", {}, "crossings[0].lines: the blue and red line is not on the board"),
        ("creatures.0.kind", "dragon", "'demon' or 'ghost'"),
        ("creatures.0.colour", "white", "unknown colour 'white'"),
        ("creatures.1.colour", "red", "unknown colour 'red'"),
        ("creatures.0.field", 1000, "does not exist"),
        ("creatures.0.field", None, "stands in a field"),
        ("creatures.1.crossing", 0, "creatures[1].crossing: a ghost stands in a field, not in a"),
        ("creatures.0.off_board", True, "off-board creature has no field"),
        ("creatures", {"a": 1}, "creatures: expected a list"),
    ],
)
def test_malformed_report_is_rejected_with_its_path(
    report: dict[str, Any], path: str, value: object, message: str
) -> None:
    with pytest.raises(BoardFormatError) as caught:
        board_from_report(broken(report, path, value))
    # The message names the first problem; ``problems`` has every one of them.
    assert len(str(caught.value).splitlines()) == 1
    assert any(message in str(problem) for problem in caught.value.problems), caught.value


def test_non_object_report_is_rejected() -> None:
    with pytest.raises(BoardFormatError, match="expected an object"):
        board_from_report([1, 2, 3])


def test_creature_at_a_corner_its_field_lacks_is_rejected(report: dict[str, Any]) -> None:
    edited = copy.deepcopy(report)
    creature = edited["creatures"][0]
    elsewhere = next(
        c["id"]
        for c in edited["crossings"]
        if c["id"] not in edited["fields"][creature["field"]]["corners"]
    )
    creature["crossing"] = elsewhere
    with pytest.raises(BoardFormatError, match="has no corner at crossing"):
        board_from_report(edited)


# --- the rescore command ----------------------------------------------------------------


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_rescore_command_prints_a_fresh_report(tmp_path: Path, report: dict[str, Any]) -> None:
    edited = copy.deepcopy(report)
    edited["scores"] = {"red": 1000}
    path = tmp_path / "board.json"
    path.write_text(json.dumps(edited))
    done = run_cli("rescore", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"] == report["scores"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"schema": "dicke-daemonen/board@1", "lines": 3}', "lines: expected an object"),
    ],
)
def test_rescore_command_reports_bad_input_in_one_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "board.json"
    path.write_text(content)
    done = run_cli("rescore", str(path))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_rescore_command_missing_file(tmp_path: Path) -> None:
    done = run_cli("rescore", str(tmp_path / "nope.json"))
    assert done.returncode == 2
    assert "No such file" in done.stderr


def test_a_report_is_never_written_with_nan(board: Board) -> None:
    lines = tuple(
        replace(ln, polyline=((math.nan, 0.0), *ln.polyline[1:])) if ln.colour == "red" else ln
        for ln in board.lines
    )
    with pytest.raises(BoardError, match="cannot write a report with the point"):
        board_to_report(replace(board, lines=lines))


# --- a demon's corner in doubt -------------------------------------------------------


def _two_corners_of_a_field(shared: bool) -> tuple[Board, int, int, int, str]:
    """A random layout's bounded field with corners at crossings a and b, and a colour
    of a's crossing that b's has too (``shared``) or has not: (board, field, a, b, colour)."""
    for seed in range(20):
        board = random_layout(seed).board()
        for field in board.fields:
            if field.outer:
                continue
            for a, b in itertools.permutations(sorted(set(field.corners)), 2):
                lines_a, lines_b = board.crossings[a].lines, board.crossings[b].lines
                for colour in lines_a:
                    if (colour in lines_b) == shared:
                        return board, field.id, a, b, colour
    raise AssertionError("no such field in 20 layouts")


def _in_corner(board: Board, field: int, crossing: int, colour: str) -> Creature:
    return Creature(DEMON, colour, xy=board.crossings[crossing].xy, field=field, crossing=crossing)


def test_a_demon_moved_to_a_free_corner_of_its_colour_in_its_field_changes_nothing() -> None:
    board, field, a, b, colour = _two_corners_of_a_field(shared=True)
    alone = board.with_creatures((_in_corner(board, field, a, colour),))
    assert moves_change_nothing(alone, 0, [(field, b)])
    assert moves_change_nothing(alone, 0, [])
    # The other corner taken: there, two demons would share it (a violation).
    other = "green" if colour != "green" else "red"
    crowded = board.with_creatures(
        (_in_corner(board, field, b, other), _in_corner(board, field, a, colour)))
    assert not moves_change_nothing(crowded, 1, [(field, b)])


def test_a_demon_moved_to_a_corner_of_other_colours_changes_the_violations() -> None:
    board, field, a, b, colour = _two_corners_of_a_field(shared=False)
    alone = board.with_creatures((_in_corner(board, field, a, colour),))
    assert not moves_change_nothing(alone, 0, [(field, b)])


def test_a_demon_moved_to_a_field_alike_in_value_changes_who_holds_them() -> None:
    """The scores stay as they are, but the page tints another field."""
    for seed in range(20):
        board = random_layout(seed).board()
        pairs = [
            (f.id, a, g.id, b, colour)
            for f in board.fields
            for g in board.fields
            if f.id != g.id and f.value == g.value
            for a in set(f.corners)
            for b in set(g.corners)
            for colour in set(board.crossings[a].lines) & set(board.crossings[b].lines)
        ]
        if pairs:
            break
    field, a, other, b, colour = pairs[0]
    alone = board.with_creatures((_in_corner(board, field, a, colour),))
    moved = alone.with_creatures((_in_corner(board, other, b, colour),))
    assert score(moved).points == score(alone).points
    assert not moves_change_nothing(alone, 0, [(other, b)])
