"""Comparing a reading with its truth: crafted readings, each wrong in one known way."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.report import board_from_report, board_to_report
from vision.evaluate import (
    PointCounts,
    compare_points,
    compare_reports,
    failed_reading,
    match_points,
    scene_facets,
    summarise,
    tolerances_for,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_images" / "05_normal_violations.truth.json"
DEV = Path("/work/shared/dev-photos")

Report = dict[str, Any]


@pytest.fixture()
def truth() -> Report:
    report: Report = json.loads(SAMPLE.read_text())
    return report


def rescored(reading: Report) -> Report:
    """The reading with scores, winners and violations recomputed by the engine."""
    image = reading["image"]
    again = board_to_report(board_from_report(reading), image_size=(image["width"],
                                                                    image["height"]))
    return {**reading, **{k: again[k] for k in ("scores", "winners", "violations", "fields")}}


def renumbered(report: Report) -> Report:
    """The same board with every crossing, field and creature id changed."""
    out = copy.deepcopy(report)
    n_crossings, n_fields = len(out["crossings"]), len(out["fields"])
    crossing_id = {c["id"]: n_crossings - 1 - c["id"] for c in out["crossings"]}
    field_id = {f["id"]: n_fields - 1 - f["id"] for f in out["fields"]}
    for c in out["crossings"]:
        c["id"] = crossing_id[c["id"]]
    for f in out["fields"]:
        f["id"] = field_id[f["id"]]
        f["corners"] = [crossing_id[i] for i in f["corners"]]
    for creature in out["creatures"]:
        creature["id"] += 100
        if creature["crossing"] is not None:
            creature["crossing"] = crossing_id[creature["crossing"]]
        if creature["field"] is not None:
            creature["field"] = field_id[creature["field"]]
    for v in out["violations"]:
        v["creatures"] = [i + 100 for i in v["creatures"]]
    out["crossings"].reverse()
    out["creatures"].reverse()
    return out


def assert_perfect(reading: Report, truth: Report) -> None:
    result = compare_reports(reading, truth)
    assert result.problems == []
    assert result.board_exact == result.violations_exact == 1
    assert result.loops_found == result.loops_truth == 4 and result.all_loops_found == 1
    assert result.knots_found == result.knots_truth == 4
    assert result.crossings_matched == result.crossing_pairs_right == len(truth["crossings"])
    assert result.fields_matched == result.field_corners_right == len(truth["fields"])
    assert result.creatures_matched == result.kind_colour_right == len(truth["creatures"])
    on_board = sum(not c["off_board"] for c in truth["creatures"])
    assert result.slots_right == result.slots_total == on_board
    assert result.errors == result.errors_warned == 0


def test_the_truth_against_itself_is_perfect(truth: Report) -> None:
    assert_perfect(truth, truth)


def test_other_ids_and_order_do_not_matter(truth: Report) -> None:
    assert_perfect(renumbered(truth), truth)


def test_a_crossing_moved_a_little_is_still_found(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    x, y = reading["crossings"][0]["xy"]
    reading["crossings"][0]["xy"] = [x + 6, y - 5]
    assert_perfect(reading, truth)


def test_a_crossing_moved_far_is_missed_and_its_corners_are_wrong(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    moved = reading["crossings"][1]
    moved["xy"] = [moved["xy"][0] + 80, moved["xy"][1]]
    result = compare_reports(reading, truth)
    n = len(truth["crossings"])
    assert (result.crossings_matched, result.crossings_read, result.crossings_truth) == (
        n - 1, n, n)
    assert "crossings missed: 1" in result.problems
    assert "1 extra crossing" in result.problems
    assert result.crossings_off == 0  # 80 px is over ten string widths (5.2 px)
    in_that_corner = [c for c in truth["creatures"] if c["crossing"] == 1]
    assert in_that_corner
    assert result.slots_total - result.slots_right == len(in_that_corner)
    assert result.board_exact == 1  # the scores were not touched


def test_a_crossing_read_a_little_aside_is_named_off_its_place(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    moved = reading["crossings"][1]
    moved["xy"] = [moved["xy"][0] + 12, moved["xy"][1] + 16]  # 20 px, about 4 widths
    result = compare_reports(reading, truth)
    n = len(truth["crossings"])
    # Still not found (recall and precision count it), but not lost either.
    assert (result.crossings_matched, result.crossings_off) == (n - 1, 1)
    widths = 20 / tolerances_for(truth).string_px
    text = f"crossing {truth['crossings'][1]['id']} read {widths:.1f} string widths off its place"
    assert text in result.problems
    assert not [p for p in result.problems if "missed" in p or "extra crossing" in p]
    figures = summarise([result])
    assert figures["crossings_off"] == 1.0
    assert figures["crossings_recall"] == (n - 1) / n


def test_demons_at_a_crossing_read_aside_are_in_the_right_slot_of_it(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    moved = reading["crossings"][1]
    moved["xy"] = [moved["xy"][0] + 12, moved["xy"][1] + 16]
    in_that_corner = [c for c in truth["creatures"] if c["crossing"] == moved["id"]]
    assert in_that_corner
    result = compare_reports(reading, truth)
    # Strictly their crossing is not found, so their slots are wrong; taken for the
    # truth's crossing, they are right, and named so.
    assert result.slots_total - result.slots_right == len(in_that_corner)
    assert result.slots_right_aside == result.slots_total
    for creature in in_that_corner:
        assert any(p.startswith(f"creature {creature['id']} ") and "read aside" in p
                   for p in result.problems)
    figures = summarise([result])
    assert figures["slots_aside"] == 1.0 > figures["slots"]
    # A demon moved to another crossing of its own field is wrong either way: the
    # crossing read aside stands in only for its own truth crossing.
    demon = next(c for c in reading["creatures"] if c["crossing"] == moved["id"])
    field = next(f for f in reading["fields"] if f["id"] == demon["field"])
    demon["crossing"] = next(k for k in field["corners"] if k != moved["id"])
    result = compare_reports(reading, truth)
    assert result.slots_right_aside == result.slots_total - 1


def test_a_crossing_aside_of_other_loops_is_missed_not_off(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    moved = reading["crossings"][1]
    moved["xy"] = [moved["xy"][0] + 12, moved["xy"][1] + 16]
    others = [pair for pair in (["blue", "yellow"], ["green", "red"]) if pair != sorted(
        moved["lines"])]
    moved["lines"] = others[0]
    result = compare_reports(reading, truth)
    assert result.crossings_off == 0
    assert "1 extra crossing" in result.problems
    assert any(p.startswith("crossings missed:") for p in result.problems)


def test_a_crossing_of_the_wrong_colours(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    reading["crossings"][2]["lines"] = ["blue", "yellow"]
    assert sorted(truth["crossings"][2]["lines"]) != ["blue", "yellow"]
    result = compare_reports(reading, truth)
    assert result.crossings_matched == len(truth["crossings"])
    assert result.crossing_pairs_right == len(truth["crossings"]) - 1
    assert any(p.startswith("crossing 2 read as blue/yellow") for p in result.problems)


def test_a_demon_of_the_wrong_colour(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    demon = next(c for c in reading["creatures"] if c["kind"] == "demon"
                 and c["colour"] == "red" and not c["off_board"])
    demon["colour"] = "blue"
    reading = rescored(reading)
    result = compare_reports(reading, truth)
    assert result.creatures_matched == len(truth["creatures"])
    assert result.kind_colour_right == len(truth["creatures"]) - 1
    assert f"creature {demon['id']} (red demon) read as blue demon" in result.problems
    assert result.slots_right == result.slots_total  # still in the right corner
    if reading["scores"] != truth["scores"]:
        assert result.board_exact == 0


def test_a_creature_in_the_wrong_corner(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    demon = next(c for c in reading["creatures"] if c["crossing"] is not None)
    other = next(f for f in reading["fields"]
                 if f["id"] != demon["field"] and f["corners"])
    demon["crossing"], demon["field"] = other["corners"][0], other["id"]
    result = compare_reports(reading, truth)
    assert result.creatures_matched == len(truth["creatures"])
    assert result.slots_right == result.slots_total - 1
    assert any(p.startswith(f"creature {demon['id']} ") for p in result.problems)


def test_a_missing_and_an_extra_creature(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    gone = reading["creatures"].pop(0)
    reading["creatures"].append({"id": 99, "kind": "ghost", "colour": "white",
                                 "xy": [5.0, 5.0], "field": 0, "crossing": None})
    result = compare_reports(reading, truth)
    n = len(truth["creatures"])
    assert (result.creatures_matched, result.creatures_read, result.creatures_truth) == (
        n - 1, n, n)
    assert f"creatures missed: {gone['id']} ({gone['colour']} {gone['kind']})" in result.problems
    assert "extra creatures: white ghost" in result.problems


def test_a_creature_found_only_near_enough_for_its_pawn_size(truth: Report) -> None:
    creature = truth["creatures"][0]
    pawn = creature["pawn_px"]
    for shift, found in [(0.5 * pawn, True), (0.7 * pawn, False)]:
        reading = copy.deepcopy(truth)
        x, y = creature["xy"]
        reading["creatures"][0]["xy"] = [x + shift, y]
        result = compare_reports(reading, truth)
        assert result.creatures_matched == len(truth["creatures"]) - (not found)


def test_an_off_board_prediction_read_as_on_the_board(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    outside = next(c for c in reading["creatures"] if c["off_board"])
    outside["off_board"], outside["field"] = False, 0
    result = compare_reports(reading, truth)
    assert result.off_board_right == result.off_board_total - 1
    assert result.slots_right == result.slots_total  # slots count on-board truths only


def test_violations_compared_as_a_multiset_of_rules(truth: Report) -> None:
    assert len(truth["violations"]) == 2
    reading = copy.deepcopy(truth)
    reading["violations"] = reading["violations"][:1]
    result = compare_reports(reading, truth)
    assert result.violations_exact == 0
    assert f"violations -{truth['violations'][1]['rule']}" in result.problems
    doubled = copy.deepcopy(truth)
    doubled["violations"].append(copy.deepcopy(doubled["violations"][0]))
    assert compare_reports(doubled, truth).violations_exact == 0


def test_wrong_scores_or_winners_are_not_exact(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    reading["scores"]["red"] += 1
    result = compare_reports(reading, truth)
    assert (result.board_exact, result.scores_exact, result.winners_exact) == (0, 0, 1)
    red = truth["scores"]["red"]
    assert f"scores red {red + 1}≠{red}" in result.problems
    reading = copy.deepcopy(truth)
    reading["winners"] = ["red"]
    result = compare_reports(reading, truth)
    assert (result.board_exact, result.scores_exact, result.winners_exact) == (0, 1, 0)


def test_an_accepted_other_reading_of_the_rules_counts_as_exact(truth: Report) -> None:
    other = {"scores": {**truth["scores"], "white": 0}, "winners": truth["winners"]}
    reading = {**copy.deepcopy(truth), "scores": other["scores"]}
    assert compare_reports(reading, truth).board_exact == 0
    lenient = {**truth, "accepted_results": [other]}
    assert compare_reports(reading, lenient).board_exact == 1


def test_a_loop_in_the_wrong_place_and_a_missing_knot(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    green = reading["lines"]["green"]
    green["polyline"] = [[x + 100, y] for x, y in green["polyline"]]
    reading["lines"]["red"]["knot"] = None
    result = compare_reports(reading, truth)
    assert result.loops_found == 3 and result.all_loops_found == 0
    assert "green loop not found" in result.problems
    assert result.knots_found == 3  # the green knot was not moved: knots count on their own
    assert "red knot missed" in result.problems


def test_a_knot_off_its_place_is_warned_of_when_unsure_or_named(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    red = reading["lines"]["red"]
    red["knot"] = red["polyline"][len(red["polyline"]) // 2]
    result = compare_reports(reading, truth)
    assert (result.errors, result.errors_warned) == (1, 0)
    assert (result.knot_errors, result.creature_errors) == (1, 0)
    red["knot_confidence"] = 0.9
    assert compare_reports(reading, truth).errors_warned == 0
    red["knot_confidence"] = 0.3  # under LOW_CONFIDENCE: the overlay's "K?"
    assert compare_reports(reading, truth).errors_warned == 1
    del red["knot_confidence"]
    reading["warnings"] = ["the red knot is unsure (marked 0.15): check where it lies"]
    assert compare_reports(reading, truth).errors_warned == 1
    reading["warnings"] = ["the blue knot is unsure (marked 0.15): check where it lies"]
    assert compare_reports(reading, truth).errors_warned == 0


def test_a_creature_missed_is_warned_of_by_a_doubt_at_its_place(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    gone = reading["creatures"].pop(2)
    x, y = gone["xy"]
    result = compare_reports(reading, truth)
    assert (result.errors, result.errors_warned, result.creature_errors) == (1, 0, 1)
    reading["warnings"] = [f"2 touching red pawns read near ({x + 5:.0f}, {y - 5:.0f})"]
    assert compare_reports(reading, truth).errors_warned == 1
    pawn = tolerances_for(truth).pawn_px
    reading["warnings"] = [f"2 touching red pawns read near ({x + 3 * pawn:.0f}, {y:.0f})"]
    assert compare_reports(reading, truth).errors_warned == 0


def test_a_demon_in_another_corner_named_alike_is_counted_apart(
    truth: Report,
) -> None:
    reading = copy.deepcopy(truth)
    demon = next(c for c in reading["creatures"] if c["crossing"] is not None)
    field = next(f for f in reading["fields"] if f["id"] == demon["field"])
    other = next(c for c in field["corners"] if c != demon["crossing"])
    truth_corner = [demon["field"], demon["crossing"]]
    demon["crossing"] = other
    result = compare_reports(reading, truth)
    assert (result.creature_errors, result.creature_errors_warned) == (1, 0)
    assert result.creature_errors_alike == 0

    def counted(corners: object) -> tuple[int, int]:
        demon["corners_alike"] = corners
        result = compare_reports(reading, truth)
        return result.creature_errors_warned, result.creature_errors_alike

    # Named among the corners alike: not pointed at (the page shows no doubt), counted.
    assert counted([truth_corner]) == (0, 1)
    assert counted([[demon["field"], other]]) == (0, 0)  # names its own corner only
    assert counted("ab") == counted([[1, 2, 3]]) == (0, 0)  # malformed: names nothing
    # Pointed at by an unsure confidence as well: counted as warned only.
    demon["confidence"] = 0.4
    assert counted([truth_corner]) == (1, 0)


def test_boards_warned_of_and_exact_boards_doubted(truth: Report) -> None:
    exact = compare_reports(truth, truth)
    assert (exact.errors, exact.boards_warned, exact.exact_doubted) == (0, 0, 0)
    doubted = copy.deepcopy(truth)
    doubted["crossings"][0]["confidence"] = 0.5
    assert compare_reports(doubted, truth).exact_doubted == 1
    wrong = copy.deepcopy(truth)
    gone = wrong["creatures"].pop(0)
    wrong["scores"] = {**truth["scores"], "white": truth["scores"]["white"] + 1}
    result = compare_reports(wrong, truth)
    assert (result.board_exact, result.boards_warned, result.exact_doubted) == (0, 0, 0)
    wrong["creatures"].append({**gone, "confidence": 0.2, "kind": "ghost", "colour": "white"})
    result = compare_reports(wrong, truth)
    assert result.errors == 1 and result.boards_warned == 1  # read as a ghost, unsure
    # A refusal says why: its board is warned of, and its items are not errors (they
    # would outweigh a set's).
    refused = failed_reading(truth, "no strings found in the photo")
    assert (refused.boards_warned, refused.errors, refused.creature_errors) == (1, 0, 0)
    figures = summarise([result, exact, refused])
    assert figures["boards_warned"] == 1.0 and figures["exact_doubted"] == 0.0
    assert figures["errors_warned"] == 1.0  # the one unsure ghost


def test_crossing_errors_are_counted_once_and_warned_of_by_their_loops(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    moved = reading["crossings"][1]
    colours = moved["lines"]
    moved["xy"] = [moved["xy"][0] + 12, moved["xy"][1] + 16]  # read aside: one error
    result = compare_reports(reading, truth)
    assert (result.crossing_errors, result.crossing_errors_warned, result.errors) == (1, 0, 1)
    # "no knot found on the ... loop" doubts the knot, not where the loop runs.
    reading["warnings"] = [f"no knot found on the {colours[0]} loop"]
    assert compare_reports(reading, truth).crossing_errors_warned == 0
    reading["warnings"] = [f"only 60% of the {colours[0]} loop was seen; the rest is guessed"]
    assert compare_reports(reading, truth).crossing_errors_warned == 1
    # Moved far, it is missed and extra: two errors.
    moved["xy"] = [moved["xy"][0] + 80, moved["xy"][1]]
    reading["warnings"] = []
    assert compare_reports(reading, truth).crossing_errors == 2


def test_right_knots_the_report_is_unsure_of_are_counted(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    for line in reading["lines"].values():
        line["knot_confidence"] = 0.95
    assert compare_reports(reading, truth).knots_doubted == 0
    reading["lines"]["green"]["knot_confidence"] = 0.4
    result = compare_reports(reading, truth)
    assert (result.knots_doubted, result.knot_errors, result.board_exact) == (1, 0, 1)
    assert result.exact_doubted == 1


def test_a_field_missing_from_the_reading(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    bounded = [f for f in reading["fields"] if not f["outer"]]
    reading["fields"].remove(bounded[0])
    result = compare_reports(reading, truth)
    assert result.fields_matched == len(truth["fields"]) - 1
    assert result.fields_read == len(truth["fields"]) - 1
    assert "1 field not matched" in result.problems


def test_a_field_with_a_corner_too_many(truth: Report) -> None:
    reading = copy.deepcopy(truth)
    reading["fields"][1]["corners"].append(0)
    result = compare_reports(reading, truth)
    assert result.field_corners_right == len(truth["fields"]) - 1
    assert result.field_knots_right == len(truth["fields"])


def test_a_refused_photo_misses_everything(truth: Report) -> None:
    result = failed_reading(truth, "only three loops found")
    assert result.refused == 1 and result.board_exact == 0
    assert result.problems[0] == "refused: only three loops found"
    assert result.crossings_matched == result.creatures_matched == 0
    assert result.crossings_truth == len(truth["crossings"])


def test_summarise_adds_the_counts_up(truth: Report) -> None:
    perfect = compare_reports(truth, truth)
    refused = failed_reading(truth, "not an image")
    figures = summarise([perfect, refused])
    assert figures["photos"] == 2 and figures["refused"] == 1
    assert figures["board_exact"] == 0.5
    assert figures["crossings_recall"] == 0.5
    assert figures["crossings_precision"] == 1.0
    assert figures["counts"]["creatures_truth"] == 2 * len(truth["creatures"])
    assert summarise([])["board_exact"] is None


def test_one_stages_points_are_matched_like_the_reports(truth: Report) -> None:
    creatures = [c for c in truth["creatures"] if c.get("xy") is not None]
    first, second = creatures[0], creatures[1]
    wrong_colour = "white" if first["kind"] == "demon" else "red"
    far = (first["xy"][0] + 5 * first["pawn_px"], first["xy"][1])
    points = [
        (first["kind"], wrong_colour, first["xy"]),
        (second["kind"], second["colour"], (second["xy"][0] + 3, second["xy"][1])),
        ("demon", "red", far),
    ]
    assert compare_points(points, truth, "pawns") == PointCounts(
        read=3, truth=len(creatures), matched=2, kind_colour_right=1
    )
    knots = [line["knot"] for line in truth["lines"].values()]
    found = [("knot", "", knots[0]), ("knot", "", (knots[1][0] + 500, knots[1][1]))]
    assert compare_points(found, truth, "knots") == PointCounts(2, len(knots), 1, 1)
    assert compare_points([], truth, "knots") + PointCounts(1, 2, 3, 4) == PointCounts(1, 6, 3, 4)
    with pytest.raises(ValueError, match="pawns' or 'knots"):
        compare_points(points, truth, "crossings")


def test_match_points_prefers_the_nearest_pairs() -> None:
    read = [[0.0, 0.0], [10.0, 0.0]]
    true = [[9.0, 0.0], [30.0, 0.0]]
    # Read 1 is nearest to true 0; read 0 then has nothing within 15 px.
    assert match_points(read, true, lambda i, j: 15.0) == [(1, 0)]
    assert match_points(read, true, lambda i, j: 25.0) == [(1, 0)]
    assert sorted(match_points(read, true, lambda i, j: 31.0)) == [(0, 1), (1, 0)]
    assert match_points([], true, lambda i, j: 1.0) == []


def test_tolerances_follow_the_photo(truth: Report) -> None:
    synthetic = tolerances_for(truth)
    materials = truth["scene"]["materials"]
    assert synthetic.string_px == pytest.approx(
        synthetic.pawn_px * materials["string_diameter_mm"] / materials["pawn_width_mm"])
    assert synthetic.crossing_px >= 12 and synthetic.knot_px >= 3 * synthetic.string_px
    bare = tolerances_for({"image": {"width": 4000, "height": 3000}})
    assert bare.string_px == 10 and bare.crossing_px == 15


@pytest.mark.skipif(not DEV.is_dir(), reason="the shared dev photos are not on this machine")
def test_dev_truths_are_understood() -> None:
    truth = json.loads((DEV / "dev_0016.truth.json").read_text())
    tol = tolerances_for(truth)
    assert tol.string_px == truth["scene"]["string_width_px"]
    assert scene_facets(truth) == {"table": "blue_mat", "light": "window", "tilt": "0-10°",
                                   "fullness": "late", "difficulty": "mild"}
    assert_perfect(renumbered(truth), truth)


def test_scene_facets_of_a_synthetic_truth(truth: Report) -> None:
    facets = scene_facets(truth)
    scene = truth["scene"]
    assert facets["table"] == scene["table"]["kind"]
    assert facets["light"] == scene["light"]["kind"]
    assert facets["fullness"] == scene["stage"]
    assert facets["difficulty"] == scene["difficulty"]
    assert facets["tilt"].endswith("°")
    assert scene_facets({})["table"] == "unknown"


@pytest.mark.parametrize(("kind", "sheen", "window", "variant", "finish", "shade"), [
    ("blue_mat", 0.0, 0.0, "plain", "painted", "deep"),
    ("green_felt", 0.5, 0.0, "pale_plain", "lacquered", "pale"),
    ("light_wood", 0.5, 0.0, "plain", "lacquered", None),  # only felt and mats have a shade
    ("light_wood", 0.5, 0.8, "plain", "lacquered, window", None),
])
def test_scene_facets_say_the_pawns_finish_and_a_pale_table(
    truth: Report, kind: str, sheen: float, window: float, variant: str, finish: str,
    shade: str | None,
) -> None:
    scene = truth["scene"]
    table = {**scene["table"], "kind": kind, "variant": variant}
    materials = {**scene["materials"], "pawn_sheen": sheen, "pawn_window": window}
    made = {**truth, "scene": {**scene, "table": table, "materials": materials}}
    facets = scene_facets(made)
    assert (facets["finish"], facets.get("shade")) == (finish, shade)
    # A truth from before the generator knew of either has neither.
    older = {**scene, "table": table, "materials": {
        k: v for k, v in scene["materials"].items() if k != "pawn_sheen"}}
    assert "finish" not in scene_facets({**truth, "scene": older})
    assert "shade" not in scene_facets({**truth, "scene": older})
