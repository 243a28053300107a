"""The command line answers every input with a result, or one line and status 2."""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli.main import build_parser, main, run
from engine.game import Game
from engine.layout import random_layout
from engine.policies import make_policies
from engine.report import board_from_report, board_to_report

Report = dict[str, Any]


@pytest.fixture(scope="module")
def report() -> Report:
    """The final board of a simulated game, as a report in layout millimetres."""
    board = random_layout(3).board()
    game = Game(board, 3, 3)
    game.play(make_policies("random", 3, 3))
    return board_to_report(game.final_board(), image_size=(4032, 3024))


def strict_json(text: str) -> Any:
    """Parse ``text`` as JSON that outside tools accept: no NaN, no Infinity."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the output")

    return json.loads(text, parse_constant=refuse)


# --- bad input: the table -----------------------------------------------------------------


def edited(change: Callable[[Report], None]) -> Callable[[Report], str]:
    """A report with ``change`` applied, as JSON text."""

    def make(report: Report) -> str:
        copied = copy.deepcopy(report)
        change(copied)
        return json.dumps(copied)

    return make


def _self_crossing(r: Report) -> None:
    points = r["lines"]["red"]["polyline"]
    half = len(points) // 2
    r["lines"]["red"]["polyline"] = points[:half] + points[half:][::-1]  # a figure eight


def _on_top(r: Report) -> None:
    r["lines"]["blue"]["polyline"] = copy.deepcopy(r["lines"]["red"]["polyline"])


def _lines_gone(r: Report) -> None:
    r["lines"] = {}


def _knot_null(r: Report) -> None:
    colour = next(c for c, line in r["lines"].items() if line["knot"] is not None)
    r["lines"][colour]["knot"] = None


def _crossing_four_times(r: Report) -> None:
    field = next(f for f in r["fields"] if not f["outer"])
    field["corners"] = [field["corners"][0]] * 4 + field["corners"][1:]


def _crossing_moved(r: Report) -> None:
    x, y = r["crossings"][0]["xy"]
    r["crossings"][0]["xy"] = [x + 40, y]


def _huge_integer(r: Report) -> None:
    r["lines"]["red"]["polyline"][0] = [int("9" * 400), 0]


def _image_empty(r: Report) -> None:
    r["image"] = {}


def _nan(r: Report) -> None:
    r["creatures"][0]["xy"] = [float("nan"), 1.0]


REPORT_CASES: list[tuple[str, Callable[[Report], str] | bytes, str]] = [
    ("nested-arrays", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("not-json", b"{not json", "is not JSON"),
    ("not-utf8", b"\xff\xfe{}", "not UTF-8"),
    ("not-an-object", b"[1, 2, 3]", "report: expected an object"),
    ("400-digit-integer", edited(_huge_integer), "lines.red.polyline[0]: expected finite"),
    ("400-digit-float", b'{"schema": 1e400}', "out of range"),
    ("nan", edited(_nan), "NaN is not a number JSON allows"),
    ("infinity", b'{"schema": -Infinity}', "-Infinity is not a number JSON allows"),
    ("image-empty", edited(_image_empty), "image.width: expected an integer"),
    ("self-crossing-loop", edited(_self_crossing), "red loop crosses or touches itself"),
    ("line-on-top-of-another", edited(_on_top), "lines: not a legal layout"),
    ("lines-empty", edited(_lines_gone), "line is not on the board"),
    ("knot-null-still-counted", edited(_knot_null), "knot is null"),
    ("crossing-four-times-in-a-field", edited(_crossing_four_times), "times"),
    ("crossing-moved", edited(_crossing_moved), "crossings[0]: the"),
]


@pytest.mark.parametrize(
    ("content", "message"),
    [pytest.param(c, m, id=name) for name, c, m in REPORT_CASES],
)
def test_rescore_refuses_bad_reports_in_one_line(
    tmp_path: Path,
    report: Report,
    capsys: pytest.CaptureFixture[str],
    content: Callable[[Report], str] | bytes,
    message: str,
) -> None:
    path = tmp_path / "report.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content(report))
    status = main(["rescore", str(path)])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("dicke-daemonen rescore: "), err
    assert message in err
    assert len(err) < 400  # quotes at most a short excerpt


ARGUMENT_CASES = [
    (["play", "--seed", "-1"], "argument --seed: a seed is 0 to"),
    (["play", "--seed", "1" * 400], "argument --seed: a seed is 0 to"),
    (["play", "--seed", "seven"], "expected a whole number"),
    (["play", "--clearance", "nan"], "argument --clearance"),
    (["play", "--clearance", "inf"], "argument --clearance"),
    (["play", "--clearance", "0"], "argument --clearance"),
    (["play", "--players", "5"], "argument --players: invalid choice"),
    (["synth", "--seed", "-1", "--out", "unused"], "argument --seed: a seed is 0 to"),
    (["synth", "--count", "0", "--out", "unused"], "argument --count: 1 to"),
    (["synth", "--size", "100000x240", "--out", "unused"], "at most 16384 pixels a side"),
    (["synth", "--size", "9" * 400 + "x240", "--out", "unused"], "--size must look like"),
    (["synth"], "the following arguments are required: --out"),
    (["rescore"], "the following arguments are required: report"),
    (["rescore", "no-such-file.json"], "No such file"),
    (["fly"], "invalid choice: 'fly'"),
    ([], "the following arguments are required: COMMAND"),
]


@pytest.mark.parametrize(("argv", "message"), ARGUMENT_CASES, ids=" ".join)
def test_bad_arguments_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert message in err
    assert len(err) < 400


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], input=stdin, capture_output=True, check=False
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_input_is_refused_by_size_without_reading_it_all() -> None:
    done = run_cli("rescore", "/dev/zero")
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().count("\n") == 1
    assert b"larger than 16 MB" in done.stderr


def test_standard_input_is_read_like_a_file(report: Report) -> None:
    done = run_cli("rescore", "-", stdin=json.dumps(report).encode())
    assert done.returncode == 0, done.stderr
    assert strict_json(done.stdout.decode())["scores"] == report["scores"]
    broken = run_cli("rescore", "-", stdin=b'{"schema": NaN}')
    assert broken.returncode == 2 and broken.stdout == b""


# --- good input ---------------------------------------------------------------------------


def test_rescore_prints_the_same_report_for_a_consistent_one(
    tmp_path: Path, report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    assert main(["rescore", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert strict_json(out) == json.loads(json.dumps(report))


def test_rescore_rebuild_takes_the_topology_from_edited_lines(
    tmp_path: Path, report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    """Moving the whole board (lines, knots, creatures) leaves crossings and fields
    behind: checked, that is refused; rebuilt, the same board comes out, moved."""
    moved = copy.deepcopy(report)

    def shift(point: list[float] | None) -> list[float] | None:
        return None if point is None else [point[0] + 500.0, point[1] - 250.0]

    for line in moved["lines"].values():
        line["polyline"] = [shift(p) for p in line["polyline"]]
        line["knot"] = shift(line["knot"])
    for creature in moved["creatures"]:
        creature["xy"] = shift(creature["xy"])
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(moved))

    assert main(["rescore", str(path)]) == 2
    assert "do not cross at" in capsys.readouterr().err

    assert main(["rescore", "--rebuild", str(path)]) == 0
    again = strict_json(capsys.readouterr().out)
    for crossing, before in zip(again["crossings"], report["crossings"], strict=True):
        assert crossing["xy"] == pytest.approx(shift(before["xy"]), abs=0.15)  # rounding
    assert [(f["corners"], f["knots"]) for f in again["fields"]] == [
        (f["corners"], f["knots"]) for f in report["fields"]
    ]
    assert [(c["field"], c["crossing"], c["off_board"]) for c in again["creatures"]] == [
        (c["field"], c["crossing"], c["off_board"]) for c in report["creatures"]
    ]
    assert again["scores"] == report["scores"]


def test_play_json_is_strict_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "2", "--seed", "5", "--json", "--clearance", "15"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert report["game"]["seed"] == 5
    assert all(c["xy"] is not None for c in report["creatures"])


def test_help_is_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "COMMAND" in capsys.readouterr().out


# --- the last resort ------------------------------------------------------------------------


DIVISION = "ZeroDivisionError: integer division or modulo by zero"


def _broken_command(args: argparse.Namespace) -> int:
    return len(args.nothing) // 0


def test_an_unexpected_exception_is_an_internal_error_with_status_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = argparse.Namespace(command="play", traceback=False, run=_broken_command, nothing="ab")
    assert run(args) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"dicke-daemonen play: internal error: {DIVISION}\n"


def test_debug_shows_the_traceback_of_an_internal_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = argparse.Namespace(command="play", traceback=True, run=_broken_command, nothing="ab")
    assert run(args) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_broken_command" in err
    assert err.endswith(f"internal error: {DIVISION}\n")


def test_debug_flag_is_accepted_before_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--debug", "play", "--players", "1", "--seed", "2"]) == 0
    assert "Solitaire:" in capsys.readouterr().out


def test_the_global_debug_flag_is_not_a_commands_own_debug() -> None:
    args = build_parser().parse_args(["--debug", "score", "photo.jpg", "--debug", "stages"])
    assert args.traceback is True
    assert str(args.debug) == "stages"  # score's own --debug DIR
    assert build_parser().parse_args(["score", "photo.jpg", "--debug", "x"]).traceback is False


def test_rescore_rebuild_of_an_unedited_report_changes_nothing(
    tmp_path: Path, report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mirrored (as photo pixels are), the rebuilt topology would number crossings and
    fields differently; matched to the report's, every id and every place is kept."""
    board = board_from_report(report).transformed(lambda points: [(x, -y) for x, y in points])
    mirrored = board_to_report(board)
    path = tmp_path / "mirrored.json"
    path.write_text(json.dumps(mirrored))
    assert main(["rescore", "--rebuild", str(path)]) == 0
    again = strict_json(capsys.readouterr().out)
    assert [(c["id"], c["lines"]) for c in again["crossings"]] == [
        (c["id"], c["lines"]) for c in mirrored["crossings"]
    ]
    for crossing, before in zip(again["crossings"], mirrored["crossings"], strict=True):
        assert crossing["xy"] == pytest.approx(before["xy"], abs=0.15)  # from rounded lines
    assert [(f["corners"], f["knots"]) for f in again["fields"]] == [
        (f["corners"], f["knots"]) for f in mirrored["fields"]
    ]
    assert again["creatures"] == mirrored["creatures"]
    assert again["scores"] == report["scores"]
