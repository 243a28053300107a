"""The web app through Flask's test client: every route, every error path, the archive.

Boards are archived from the sample photos with their truth report re-scored by the
engine (what a perfect reader returns), so everything but the reading itself is tested
without depending on how well the reader reads; the upload tests read real sample photos
with ``vision.reader``.
"""

from __future__ import annotations

import copy
import hashlib
import html
import io
import itertools
import json
import math
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from astray import loop_astray
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from cli.main import main
from engine.placement import CORNER_AIR, BoardGeometry, Foot
from engine.report import (
    board_from_report,
    board_to_report,
    moves_change_nothing,
    pawn_radius_of,
)
from vision.doubts import missed_pawn_warning, place_warning
from webui import archive, create_app
from webui.archive import (
    ArchivedBoard,
    BoardChanged,
    BoardNotFound,
    Correction,
    correct_board,
    delete_board,
    get_board,
    list_boards,
    save_correction,
    store_board,
    summary,
)
from webui.db import SCHEMA_VERSION, connect, migrate, schema_version
from webui.edits import (
    KNOT_CLEAR,
    MAX_PATH_POINTS,
    PAWN_RADIUS,
    SAME_CROSSING,
    TAP_REACH,
    EditError,
    apply_edits,
    board_extent,
    keep_doubts,
    rescore,
)
from webui.game import NO_GAME, GameFormError, GameInfo, Player, parse_game
from webui.overlay import board_view, creature_info, knot_stretches
from webui.photos import PhotoStore, inspect_photo
from webui.samples import seed_archive
from webui.scoring import BoardReading
from webui.strokes import StrokeError, redraw_choices, redrawn_loop

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
VIOLATIONS = SAMPLES / "05_normal_violations"
READABLE = SAMPLES / "02_easy_cloth"  # a sample the reader reads exactly
TOKEN = "test-token"
API = {"X-Requested-With": "test"}


def truth_report(sample: Path) -> dict[str, Any]:
    """The sample's truth as the engine reports it (the extras of the truth dropped)."""
    truth = json.loads(sample.with_suffix(".truth.json").read_text())
    size = (truth["image"]["width"], truth["image"]["height"])
    return board_to_report(board_from_report(truth), image_size=size)


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path / "i"))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    return client


@pytest.fixture
def db(app: Flask) -> Iterator[sqlite3.Connection]:
    connection = connect(app.config["DATABASE"])
    yield connection
    connection.close()


def archive_sample(app: Flask, db: sqlite3.Connection, sample: Path = VIOLATIONS,
                   game: GameInfo = NO_GAME, report: dict[str, Any] | None = None) -> int:
    """Archive a sample photo with its truth (or ``report``) as the camera's reading."""
    data = sample.with_suffix(".jpg").read_bytes()
    reading = BoardReading(truth_report(sample) if report is None else report, None)
    return store_board(db, app.extensions["photos"], data, inspect_photo(data), reading, game)


def grey_png(width: int = 800, height: int = 600) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (128, 128, 128)).save(out, "PNG")
    return out.getvalue()


def upload(client: FlaskClient, data: bytes, name: str = "photo.jpg", **fields: Any) -> Any:
    form = {"csrf_token": TOKEN, "photo": (io.BytesIO(data), name), **fields}
    return client.post("/", data=form, content_type="multipart/form-data")


# --- the database --------------------------------------------------------------------------


def test_migrate_an_empty_file_to_the_latest_schema(tmp_path: Path) -> None:
    db = connect(tmp_path / "new.sqlite3")
    assert migrate(db) == 0
    assert schema_version(db) == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"photos", "boards", "board_players"} <= tables
    assert migrate(db) == SCHEMA_VERSION  # a second start changes nothing


def test_migrate_from_the_first_version_keeps_boards_and_indexes_players(
    tmp_path: Path,
) -> None:
    db = connect(tmp_path / "old.sqlite3")
    migrate(db, target=1)
    db.execute("INSERT INTO photos VALUES ('h', 'jpeg', 10, 10, 5, '2026-01-01T00:00:00Z')")
    game = GameInfo("players", (Player("Anna", "red"), Player("Ben", None)))
    db.execute(
        "INSERT INTO boards (created_at, photo, read_error, game) VALUES (?, 'h', 'x', ?)",
        ("2026-01-01T00:00:00Z", json.dumps(game.to_json())),
    )
    assert migrate(db) == 1
    assert [b.id for b in list_boards(db, player="ben")] == [1]
    assert list_boards(db, player="Carla") == []


def test_an_archive_from_before_board_versions_keeps_working(tmp_path: Path) -> None:
    """An instance written before boards had versions opens, shows and takes edits."""
    instance = tmp_path / "i"
    instance.mkdir()
    db = connect(instance / "archive.sqlite3")
    migrate(db, target=2)
    data = VIOLATIONS.with_suffix(".jpg").read_bytes()
    info = inspect_photo(data)
    db.execute("INSERT INTO photos VALUES (?, ?, ?, ?, ?, '2026-01-01T00:00:00Z')",
               (info.hash, info.format, info.size[0], info.size[1], info.bytes))
    db.execute(
        "INSERT INTO boards (created_at, photo, camera_report) VALUES (?, ?, ?)",
        ("2026-01-01T00:00:00Z", info.hash, json.dumps(truth_report(VIOLATIONS))),
    )
    db.close()
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(instance))
    app.extensions["photos"].save(data, info)
    client = app.test_client()
    assert client.get("/api/boards/1").get_json()["version"] == 0
    answer = client.patch("/api/boards/1", headers=API,
                          json={"edits": [{"op": "remove", "creature": 0}], "base_version": 0})
    assert answer.status_code == 200
    assert answer.get_json()["version"] == 1


def test_an_archive_from_a_newer_app_is_refused(tmp_path: Path) -> None:
    db = connect(tmp_path / "future.sqlite3")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer than this app"):
        migrate(db)


def test_the_same_photo_is_stored_once(app: Flask, db: sqlite3.Connection) -> None:
    first, second = archive_sample(app, db), archive_sample(app, db)
    assert first != second
    stored = list((Path(app.config["PHOTOS"])).rglob("*.jpg"))
    data = VIOLATIONS.with_suffix(".jpg").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert sorted(p.name for p in stored) == sorted(
        [f"{digest}.jpg", f"{digest}.view.jpg", f"{digest}.thumb.jpg"]
    )
    assert db.execute("SELECT COUNT(*) FROM photos").fetchone()[0] == 1


# --- the new-board form --------------------------------------------------------------------


def test_new_board_form_has_camera_capture_and_a_token(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'accept="image/*" capture="environment"' in page
    assert f'name="csrf_token" value="{TOKEN}"' in page


def test_upload_without_a_photo_says_what_to_fix(client: FlaskClient) -> None:
    response = client.post("/", data={"csrf_token": TOKEN}, content_type="multipart/form-data")
    assert response.status_code == 400
    assert "Take a photo of the board or choose one." in response.get_data(as_text=True)


def test_upload_of_a_non_image_is_refused_and_not_stored(
    client: FlaskClient, db: sqlite3.Connection
) -> None:
    response = upload(client, b"%PDF-1.4 not a photo at all" * 50, name="board.jpg")
    assert response.status_code == 400
    assert "This file cannot be used" in response.get_data(as_text=True)
    assert db.execute("SELECT COUNT(*) FROM boards").fetchone()[0] == 0


def test_upload_of_a_truncated_jpeg_is_refused(client: FlaskClient) -> None:
    data = READABLE.with_suffix(".jpg").read_bytes()
    response = upload(client, data[: len(data) // 2])
    assert response.status_code == 400
    assert "This file cannot be used" in response.get_data(as_text=True)


def test_upload_of_a_jpeg_damaged_in_the_middle_is_refused_and_not_stored(
    client: FlaskClient, db: sqlite3.Connection
) -> None:
    # Decoded, its lower part would be one flat colour: half a board, read as a board.
    data = READABLE.with_suffix(".jpg").read_bytes()
    middle = len(data) // 2
    damaged = data[:middle] + bytes(i * 37 % 255 for i in range(2048)) + data[middle + 2048 :]
    response = upload(client, damaged)
    assert response.status_code == 400
    assert "damaged image" in response.get_data(as_text=True)
    assert db.execute("SELECT COUNT(*) FROM boards").fetchone()[0] == 0


def test_upload_larger_than_the_limit_is_refused(app: Flask, client: FlaskClient) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 100_000
    response = upload(client, READABLE.with_suffix(".jpg").read_bytes())
    assert response.status_code == 413
    assert "too large" in response.get_data(as_text=True)


def test_bad_predictions_are_shown_on_the_form(client: FlaskClient) -> None:
    response = upload(client, grey_png(), player=["Anna", "B" * 41], prediction=["purple", ""])
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Player 1: choose one of red, yellow, green, blue, white." in page
    assert "Player 2: a name has at most 40 characters." in page
    assert 'value="Anna"' in page  # what the user typed is kept


def test_solitaire_with_a_colour_on_two_places_is_refused(client: FlaskClient) -> None:
    response = upload(client, grey_png(), mode="solitaire", place1="red", place2="red")
    assert response.status_code == 400
    assert "Place 2: red is already predicted on a place." in response.get_data(as_text=True)


def test_an_unreadable_photo_is_kept_with_its_error(
    client: FlaskClient, db: sqlite3.Connection
) -> None:
    response = upload(client, grey_png(), player=["Anna"], prediction=["red"])
    assert response.status_code == 303
    board_id = int(response.headers["Location"].rsplit("/", 1)[1])
    board = get_board(db, board_id)
    assert board.report is None and board.read_error
    assert board.player_names == ["Anna"]
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "The camera could not read this photo" in page
    assert "Enter the board by hand" in page
    retried = client.post(f"/boards/{board_id}/retry", data={"csrf_token": TOKEN})
    assert retried.status_code == 303
    assert get_board(db, board_id).read_error


def test_upload_of_a_sample_photo_shows_its_scores(
    client: FlaskClient, db: sqlite3.Connection
) -> None:
    response = upload(client, READABLE.with_suffix(".jpg").read_bytes(),
                      player=["Anna", "Ben"], prediction=["green", "red"])
    assert response.status_code == 303
    board_id = int(response.headers["Location"].rsplit("/", 1)[1])
    board = get_board(db, board_id)
    assert board.read_error is None, board.read_error
    assert board.report is not None
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    for colour in ("red", "yellow", "green", "blue", "white"):
        assert f'<td class="num">{board.report["scores"][colour]}</td>' in page


# --- protection ----------------------------------------------------------------------------


def test_forms_without_the_session_token_are_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    response = client.post(f"/boards/{board_id}/delete", data={"csrf_token": "guess"})
    assert response.status_code == 403
    assert get_board(db, board_id).id == board_id


def test_api_changes_need_the_header_and_the_same_origin(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    assert client.delete(f"/api/boards/{board_id}").status_code == 403
    cross_site = {**API, "Origin": "https://evil.example"}
    assert client.delete(f"/api/boards/{board_id}", headers=cross_site).status_code == 403
    assert client.delete(f"/api/boards/{board_id}", headers=API).status_code == 204


def test_what_users_type_is_escaped(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    name = "<script>alert(1)</script>"
    board_id = archive_sample(app, db, game=GameInfo("players", (Player(name, "blue"),)))
    for url in (f"/boards/{board_id}", "/archive"):
        page = client.get(url).get_data(as_text=True)
        assert name not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


# --- the result page -----------------------------------------------------------------------


def test_result_page_shows_scores_violations_and_the_winner(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    report = truth_report(VIOLATIONS)
    loser = next(c for c in ("red", "yellow", "green", "blue", "white")
                 if c not in report["winners"])
    game = GameInfo("players", (Player("Anna", loser), Player("Ben", report["winners"][0])))
    board_id = archive_sample(app, db, game=game)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "<strong>Ben</strong> wins." in page
    for violation in report["violations"]:
        assert violation["message"] in page
    assert page.count(' data-creature="') == len(report["creatures"])
    inner = sum(1 for f in report["fields"] if not f["outer"])
    assert page.count('<polygon class="field"') == inner


def test_an_unsure_knot_and_crossing_are_ringed_on_the_board_page(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    report = truth_report(VIOLATIONS)
    colour = next(c for c, line in report["lines"].items() if line["knot"] is not None)

    def rings(knot_confidence: float) -> int:
        reading = copy.deepcopy(report)
        reading["lines"][colour]["knot_confidence"] = knot_confidence
        reading["crossings"][0]["confidence"] = 0.4
        board_id = archive_sample(app, db, report=reading)
        return client.get(f"/boards/{board_id}").get_data(as_text=True).count('class="unsure"')

    assert rings(0.9) == 1  # the crossing only
    assert rings(0.3) == 2


def test_all_lose_and_solitaire_outcomes(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    report = truth_report(VIOLATIONS)
    losers = [c for c in ("red", "yellow", "green", "blue") if c not in report["winners"]]
    board_id = archive_sample(app, db, game=GameInfo("players", (Player("Anna", losers[0]),)))
    assert "all players lose" in client.get(f"/boards/{board_id}").get_data(as_text=True)
    ranked = sorted(report["scores"], key=lambda c: -report["scores"][c])
    solo = GameInfo("solitaire", (Player("Zoe"),), {ranked[0]: 1})
    board_id = archive_sample(app, db, game=solo)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    if report["scores"][ranked[0]] > report["scores"][ranked[1]]:
        assert f"Solitaire won: <strong>{3 * report['scores'][ranked[0]]} points" in page
    else:
        assert "Solitaire lost" in page


def test_unknown_board_is_a_404_page(client: FlaskClient) -> None:
    response = client.get("/boards/4242")
    assert response.status_code == 404
    assert "There is no board 4242 in the archive." in response.get_data(as_text=True)


def test_a_board_id_beyond_sqlites_integers_is_a_404_everywhere(client: FlaskClient) -> None:
    # SQLite's integers end at 2**63 - 1; a larger id in a URL raised OverflowError (500).
    huge = 2**63
    for path in (f"/boards/{huge}", f"/boards/{huge}/photo", f"/boards/{huge}/report.json",
                 f"/boards/{huge}/overlay.png", f"/api/boards/{huge}"):
        assert client.get(path).status_code == 404, path
    assert client.delete(f"/api/boards/{huge}", headers=API).status_code == 404
    assert client.patch(f"/api/boards/{huge}", headers=API, json={"ops": []}).status_code == 404
    assert client.get(f"/api/boards/{huge - 1}").status_code == 404  # the largest id: no 500


# --- corrections ---------------------------------------------------------------------------


def free_corner(report: dict[str, Any]) -> tuple[int, int, tuple[float, float]]:
    """A corner without a demon in a field without a ghost: (field, crossing, point)."""
    board = board_from_report(report)
    taken = {(c.field, c.crossing) for c in board.creatures}
    ghosts = {c.field for c in board.creatures if c.kind == "ghost"}
    geometry = BoardGeometry(board)
    for f in board.fields:
        if f.outer or f.id in ghosts:
            continue
        for crossing in f.corners:
            if (f.id, crossing) not in taken:
                return f.id, crossing, geometry.corner_point(f.id, crossing, 15.0)
    raise AssertionError("no free corner on the sample board")


def test_removing_a_creature_rescores_and_keeps_the_camera_reading(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    camera = get_board(db, board_id).camera_report
    assert camera is not None
    demon = next(c for c in camera["creatures"] if c["kind"] == "demon" and not c["off_board"])
    response = client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "remove", "creature": demon["id"]})
    assert response.status_code == 303
    board = get_board(db, board_id)
    assert board.camera_report == camera
    assert board.corrected_report is not None
    assert len(board.corrected_report["creatures"]) == len(camera["creatures"]) - 1
    expected = board_to_report(
        board_from_report(camera).without_creature(demon["id"]),
        image_size=(camera["image"]["width"], camera["image"]["height"]),
    )
    assert board.corrected_report["scores"] == expected["scores"]
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert f"Removed creature {demon['id']}" in page
    assert "Show the camera's reading" in page


def test_adding_a_demon_at_a_tapped_corner_places_it_there(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    camera = get_board(db, board_id).camera_report
    assert camera is not None
    field, crossing, (x, y) = free_corner(camera)
    client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "add", "colour": "red", "x": x, "y": y})
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None
    added = corrected["creatures"][-1]
    assert (added["kind"], added["colour"], added["field"], added["crossing"]) == (
        "demon", "red", field, crossing)


@pytest.mark.parametrize("sample", ["03_normal_dark_wood", "06_hard_green_felt"])
def test_a_tap_where_a_pawn_stands_in_a_corner_goes_into_that_corner(sample: str) -> None:
    """A demon of one of the crossing's colours tapped where a pawn stands in a corner
    goes into that corner. (One of another colour may go to a corner of its own colour
    that fits about as well, in a sliver of a field: engine.placement's rule.)"""
    report = truth_report(SAMPLES / sample)
    board = board_from_report(report)
    radius = PAWN_RADIUS * board_extent(board)
    geometry = BoardGeometry(board)
    edits, expected = [], []
    for f in board.fields:
        for crossing in sorted(set(f.corners)):
            colour = board.crossings[crossing].lines[0]
            for x, y in geometry.corner_points(f.id, crossing, CORNER_AIR * radius):
                edits.append({"op": "add", "colour": colour, "xy": [x, y]})
                expected.append((f.id, crossing))
    added = apply_edits(report, edits)["creatures"][len(report["creatures"]):]
    assert [(c["field"], c["crossing"]) for c in added] == expected


def test_changing_a_demon_into_a_ghost(app: Flask, db: sqlite3.Connection) -> None:
    report = truth_report(VIOLATIONS)
    demon = next(c for c in report["creatures"] if c["kind"] == "demon" and not c["off_board"])
    changed = apply_edits(report, [{"op": "change", "creature": demon["id"], "colour": "white"}])
    ghost = changed["creatures"][demon["id"]]
    assert (ghost["kind"], ghost["colour"], ghost["crossing"]) == ("ghost", "white", None)
    assert ghost["field"] == demon["field"]
    assert changed["scores"]["white"] == report["scores"]["white"] + 1


def segment_away_from_the_knot(report: dict[str, Any], colour: str) -> tuple[float, float]:
    """A point of the loop of ``colour`` halfway between two of its crossings, on a
    stretch other than its knot's."""
    stretches = knot_stretches(board_from_report(report))
    other = next((s for s in stretches if s.colour == colour and not s.has_knot), None)
    assert other is not None, "the loop has one stretch only"
    return other.middle


def test_moving_a_knot_moves_its_points_to_the_fields_beside_its_new_place(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    camera = get_board(db, board_id).camera_report
    assert camera is not None
    x, y = segment_away_from_the_knot(camera, "red")
    response = client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "knot", "colour": "red", "x": f"{x + 3:.1f}", "y": f"{y:.1f}"})
    assert response.status_code == 303
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None
    knot = corrected["lines"]["red"]["knot"]
    assert abs(knot[0] - x) < 4 and abs(knot[1] - y) < 4  # on the loop, nearest the tap

    def red_knots(report: dict[str, Any]) -> set[int]:
        return {f["id"] for f in report["fields"] if "red" in f["knots"]}

    assert red_knots(corrected) and red_knots(corrected) != red_knots(camera)
    assert corrected["creatures"] == camera["creatures"]  # everyone stays where they stand
    expected = board_to_report(board_from_report(corrected), image_size=(
        camera["image"]["width"], camera["image"]["height"]))
    assert corrected["scores"] == expected["scores"]
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "Moved the red knot" in page


def unsure_reading() -> tuple[dict[str, Any], int, int, list[float]]:
    """The violations sample's truth dressed as a camera's reading: creature ``doubted``
    unsure and named in a warning, creature ``removed`` (an earlier one) named in
    another and in a place warning at its foot, a third warning far from it, the first
    crossing and the red knot unsure: (reading, doubted, removed, the far place)."""
    reading = truth_report(VIOLATIONS)
    creatures = reading["creatures"]
    for creature in creatures:
        creature["confidence"] = 1.0
    for crossing in reading["crossings"]:
        crossing["confidence"] = 1.0
    reading["crossings"][0]["confidence"] = 0.5
    reading["lines"]["red"]["knot_confidence"] = 0.3
    on_board = [c for c in creatures if not c["off_board"]]
    removed, doubted = on_board[0]["id"], on_board[-1]["id"]
    creatures[doubted]["confidence"] = 0.4
    far = max((c["xy"] for c in on_board), key=lambda xy: math.dist(xy, creatures[removed]["xy"]))
    rx, ry = creatures[removed]["xy"]

    def named(i: int) -> str:
        return f"creature {i} ({creatures[i]['colour']} {creatures[i]['kind']}) is between-corners"

    reading["warnings"] = [
        named(doubted),
        named(removed),
        f"a {creatures[removed]['colour']} demon at ({rx:.0f}, {ry:.0f}) seen only by its shape",
        f"2 touching red pawns read near ({far[0]:.0f}, {far[1]:.0f})",
        "the red knot is unsure (marked 0.15): check where it lies",
    ]
    return reading, doubted, removed, far


def test_what_the_camera_was_unsure_of_stays_where_the_player_did_not_correct() -> None:
    reading, doubted, removed, far = unsure_reading()
    board = board_from_report(reading)
    assert math.dist(far, reading["creatures"][removed]["xy"]) > TAP_REACH * board_extent(board)
    corrected = apply_edits(reading, [{"op": "remove", "creature": removed}])
    now = doubted - 1  # one creature before it removed
    assert corrected["creatures"][now]["confidence"] == 0.4
    assert [c["confidence"] for c in corrected["creatures"]].count(0.4) == 1
    assert corrected["crossings"][0]["confidence"] == 0.5
    assert corrected["lines"]["red"]["knot_confidence"] == 0.3
    # The removed creature's warnings are gone, the doubted one's renumbered.
    assert corrected["warnings"] == [
        reading["warnings"][0].replace(f"creature {doubted} (", f"creature {now} ("),
        reading["warnings"][3],
        reading["warnings"][4],
    ]
    # A creature the player changed is the player's, not the camera's: no doubt left.
    colour = "white" if corrected["creatures"][now]["kind"] == "demon" else "red"
    changed = apply_edits(corrected, [{"op": "change", "creature": now, "colour": colour}])
    assert "confidence" not in changed["creatures"][now]
    assert not any(f"creature {now} (" in w for w in changed["warnings"])


def test_the_board_page_keeps_the_cameras_doubts_after_a_correction(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    reading, doubted, removed, _ = unsure_reading()
    board_id = archive_sample(app, db, report=reading)
    before = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert before.count('class="unsure"') == 3  # the creature, the crossing, the knot
    response = client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "remove", "creature": str(removed)})
    assert response.status_code == 303
    after = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "Removed creature" in after
    assert after.count('class="unsure"') == 3
    assert f"creature {doubted - 1} (" in after and "the red knot is unsure" in after
    assert "seen only by its shape" not in after


def test_a_pawn_the_camera_may_have_missed_is_ringed_until_one_is_added_there(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """The reader warns of a pawn it saw faintly against another: the page rings that
    place with a "?" and says what the ring means (no other warning's place is ringed);
    a correction of the pawn beside it keeps the doubt, a creature added there ends it."""
    reading = truth_report(VIOLATIONS)
    missed = next(c for c in reading["creatures"] if c["kind"] == "demon" and not c["off_board"])
    reading["creatures"] = [c for c in reading["creatures"] if c is not missed]
    for i, creature in enumerate(reading["creatures"]):
        creature["id"] = i
    x, y = missed["xy"]
    warning = missed_pawn_warning(missed["colour"], "demon", f"({x:.0f}, {y:.0f})")
    beside = min((c for c in reading["creatures"] if c["kind"] == "demon"),
                 key=lambda c: math.dist(c["xy"], missed["xy"]))
    (ax, ay), (bx, by) = reading["creatures"][0]["xy"], reading["creatures"][1]["xy"]
    # The rules' doubt names the middle of a blob, where no creature stands either.
    reading["warnings"] = [warning, f"2 touching red pawns read near "
                                    f"({(ax + bx) / 2:.0f}, {(ay + by) / 2:.0f})"]
    board_id = archive_sample(app, db, report=reading)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert page.count('<circle class="look"') == 1
    assert f'cx="{x:.0f}' in page.split('<circle class="look"')[1].split("/>")[0]
    assert warning in page and "may have missed 1 pawn" in page
    colour = next(c for c in ("red", "yellow", "green", "blue") if c != beside["colour"])
    client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "change", "creature": str(beside["id"]), "colour": colour})
    changed = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert f"Creature {beside['id']} is now a {colour} demon" in changed
    assert warning in changed and changed.count('<circle class="look"') == 1
    client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "add", "colour": missed["colour"], "x": x, "y": y})
    after = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "Added" in after and warning not in after
    assert '<circle class="look"' not in after and "may have missed" not in after


def test_a_doubt_between_corners_is_judged_again_after_a_correction() -> None:
    """A demon the camera could not place between two free corners of its colour in
    one field is no doubt (it changes nothing), until the player adds a demon in the
    other corner: then where it stands decides a violation, and it is warned of."""
    reading = truth_report(VIOLATIONS)
    board = board_from_report(reading)
    taken = {(c.field, c.crossing) for c in board.creatures}
    frozen = {c.field for c in board.creatures if c.kind == "ghost"}
    field, a, b, colour = next(
        (f.id, a, b, colour)
        for f in board.fields if not f.outer and f.id not in frozen
        for a in sorted(set(f.corners)) for b in sorted(set(f.corners))
        if a != b and (f.id, a) not in taken and (f.id, b) not in taken
        for colour in sorted(set(board.crossings[a].lines) & set(board.crossings[b].lines))
    )
    geometry = BoardGeometry(board)
    radius = PAWN_RADIUS * board_extent(board)
    spot_a = geometry.corner_point(field, a, CORNER_AIR * radius)
    spot_b = geometry.corner_point(field, b, CORNER_AIR * radius)
    reading = apply_edits(reading, [{"op": "add", "colour": colour, "xy": list(spot_a)}])
    demon = reading["creatures"][-1]
    assert (demon["field"], demon["crossing"]) == (field, a)
    # Unsure for another reason too (seen only by its shape, say): 0.3, and moot.
    demon.update(confidence=0.3, corners_alike=[[field, b]])
    reading["warnings"] = []
    label = f"creature {demon['id']} ({colour} demon) is between-corners"
    other = "red" if colour != "red" else "blue"
    crowded = apply_edits(reading, [{"op": "add", "colour": other, "xy": list(spot_b)}])
    assert (crowded["creatures"][-1]["field"], crowded["creatures"][-1]["crossing"]) == (field, b)
    assert crowded["warnings"] == [label]
    assert crowded["creatures"][demon["id"]]["confidence"] == 0.15
    # The other demon taken away again: the doubt is moot once more.
    freed = apply_edits(crowded, [{"op": "remove", "creature": len(crowded["creatures"]) - 1}])
    assert freed["warnings"] == [] and freed["creatures"][demon["id"]]["confidence"] == 0.3
    assert freed["creatures"][demon["id"]]["corners_alike"] == [[field, b]]
    # Corners alike that are not the camera's (malformed) are dropped, not judged.
    for malformed in ("ab", [[1, 2, 3]], [["1", 2]]):
        demon["corners_alike"] = malformed
        edited = apply_edits(reading, [{"op": "remove", "creature": 0}])
        assert not any("corners_alike" in c for c in edited["creatures"])


def test_a_moved_knot_is_no_longer_doubted() -> None:
    reading, _, _, _ = unsure_reading()
    x, y = segment_away_from_the_knot(reading, "red")
    moved = apply_edits(reading, [{"op": "knot", "colour": "red", "xy": [x, y]}])
    assert "knot_confidence" not in moved["lines"]["red"]
    assert not any("red knot" in w for w in moved["warnings"])
    assert [c["confidence"] for c in moved["creatures"]] == [
        c["confidence"] for c in reading["creatures"]]
    # The fields are built again, the crossings' places come back a rounding apart.
    assert [c["confidence"] for c in moved["crossings"]] == [
        c["confidence"] for c in reading["crossings"]]
    assert len(moved["warnings"]) == len(reading["warnings"]) - 1


def test_doubts_follow_their_creatures_through_several_edits() -> None:
    reading = truth_report(VIOLATIONS)
    creatures = reading["creatures"]
    for i, creature in enumerate(creatures):
        creature["confidence"] = round(0.01 * (i + 1), 2)

    def named(i: int) -> str:
        return f"creature {i} ({creatures[i]['colour']} {creatures[i]['kind']}) is between-corners"

    reading["warnings"] = [named(5), named(3), f"{named(4)}; like {named(6)}"]
    edits = [{"op": "remove", "creature": 0},  # every later creature one down
             {"op": "change", "creature": 2, "colour": "white"},  # the camera's creature 3
             {"op": "add", "colour": "red", "xy": creatures[-1]["xy"]}]
    corrected = apply_edits(reading, edits)
    expected = [c["confidence"] for c in creatures[1:]]
    expected[2] = None
    assert [c.get("confidence") for c in corrected["creatures"]] == [*expected, None]
    assert corrected["warnings"] == [
        named(5).replace("creature 5 (", "creature 4 ("),
        f"{named(4)}; like {named(6)}".replace("creature 4 (", "creature 3 (").replace(
            "creature 6 (", "creature 5 ("),
    ]


def test_a_place_warning_stays_unless_its_own_creature_was_corrected() -> None:
    reading = truth_report(VIOLATIONS)
    on_board = [c for c in reading["creatures"] if not c["off_board"]]
    a, b = min(((p, q) for p in on_board for q in on_board if p["id"] < q["id"]),
               key=lambda pair: math.dist(pair[0]["xy"], pair[1]["xy"]))
    assert math.dist(a["xy"], b["xy"]) < TAP_REACH * board_extent(board_from_report(reading))
    x, y = a["xy"]
    reading["warnings"] = [f"a {a['colour']} demon at ({x:.0f}, {y:.0f}) seen only by its shape"]
    # Its neighbour removed: the warning still points at a creature the player left.
    assert apply_edits(reading, [{"op": "remove", "creature": b["id"]}])["warnings"] == (
        reading["warnings"])
    # The creature itself removed: the player has looked there.
    assert apply_edits(reading, [{"op": "remove", "creature": a["id"]}])["warnings"] == []


def test_a_loop_read_with_no_knot_can_be_given_one(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    reading = truth_report(VIOLATIONS)
    x, y = segment_away_from_the_knot(reading, "red")
    reading["lines"]["red"]["knot"] = None
    size = (reading["image"]["width"], reading["image"]["height"])
    reading = board_to_report(board_from_report(reading, topology="rebuild"), image_size=size)
    reading["warnings"] = ["no knot found on the red loop"]
    board_id = archive_sample(app, db, report=reading)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "The red loop has no knot." in page and 'data-place-knot="red"' in page
    assert ">no knot found on the red loop<" not in page  # listed once, with its button
    assert "data-place-knot" not in page.replace('data-place-knot="red"', "")
    response = client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "knot", "colour": "red", "x": f"{x:.1f}", "y": f"{y:.1f}"})
    assert response.status_code == 303
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None and corrected["lines"]["red"]["knot"] is not None
    assert corrected["warnings"] == []
    assert {f["id"] for f in corrected["fields"] if "red" in f["knots"]}
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert "Placed the red knot" in page and "The red loop has no knot." not in page


def test_each_loop_is_offered_as_stretches_between_its_crossings() -> None:
    report = truth_report(VIOLATIONS)
    board = board_from_report(report)
    view = board_view(report)
    clear = 2 * KNOT_CLEAR * board_extent(board)
    for line in board.lines:
        ring = LinearRing(line.polyline)
        along = sorted(ring.project(ShapelyPoint(c.xy)) for c in board.crossings
                       if line.colour in c.lines)
        gaps = [b - a for a, b in zip(along, [*along[1:], along[0] + ring.length], strict=True)]
        mine = [s for s in view.stretches if s.colour == line.colour]
        assert len(mine) == sum(1 for gap in gaps if gap >= clear)
        assert sum(s.has_knot for s in mine) == (line.knot is not None)
        for stretch in mine:
            middle = ShapelyPoint(stretch.middle)
            assert ring.distance(middle) < 0.5  # on the loop ...
            assert min(middle.distance(ShapelyPoint(c.xy)) for c in board.crossings
                       if line.colour in c.lines) > KNOT_CLEAR * board_extent(board)
    # ... and a knot put at a stretch's middle counts for the fields beside it.
    red = next(s for s in view.stretches if s.colour == "red" and not s.has_knot)
    moved = apply_edits(report, [{"op": "knot", "colour": "red", "xy": list(red.middle)}])
    assert math.dist(moved["lines"]["red"]["knot"], red.middle) < 0.2


def test_a_knot_tapped_onto_a_crossing_or_far_from_its_loop_is_refused() -> None:
    report = truth_report(VIOLATIONS)
    crossing = next(c for c in report["crossings"] if "red" in c["lines"])
    with pytest.raises(EditError, match="that is on a crossing"):
        apply_edits(report, [{"op": "knot", "colour": "red", "xy": crossing["xy"]}])
    board = board_from_report(report)
    red = LinearRing(next(ln for ln in board.lines if ln.colour == "red").polyline)
    far = max((ln for ln in board.lines if ln.colour != "red"),
              key=lambda ln: max(red.distance(ShapelyPoint(p)) for p in ln.polyline))
    point = max(far.polyline, key=lambda p: red.distance(ShapelyPoint(p)))
    assert red.distance(ShapelyPoint(point)) > TAP_REACH * board_extent(board)
    with pytest.raises(EditError, match="far from the red loop"):
        apply_edits(report, [{"op": "knot", "colour": "red", "xy": list(point)}])


def test_a_knot_is_not_moved_on_a_board_whose_lines_break_the_rules() -> None:
    report = truth_report(VIOLATIONS)
    report["violations"].append({"rule": "layout-problem", "creatures": [],
                                 "message": "the green loop crosses itself"})
    x, y = segment_away_from_the_knot(report, "red")
    with pytest.raises(EditError, match="lines break the rules"):
        apply_edits(report, [{"op": "knot", "colour": "red", "xy": [x, y]}])
    # Creatures can still be corrected there.
    assert apply_edits(report, [{"op": "remove", "creature": 0}])


def slots(report: dict[str, Any]) -> list[tuple[str, str, object, object]]:
    """Each creature's kind, colour, field's value and its crossing's place (rounded to
    SAME_CROSSING): the board's numbering aside, what a redraw must give back."""
    places = {c["id"]: c["xy"] for c in report["crossings"]}
    values = {f["id"]: f["value"] for f in report["fields"]}
    return [
        (c["kind"], c["colour"], values.get(c["field"]),
         None if c["crossing"] is None
         else tuple(round(v / SAME_CROSSING) for v in places[c["crossing"]]))
        for c in report["creatures"]
    ]


def test_a_loop_read_astray_is_mended_by_drawing_its_stretch_again() -> None:
    truth = truth_report(VIOLATIONS)
    astray, path = loop_astray(truth, "yellow")
    assert astray["scores"] != truth["scores"]  # the crossing aside moved demons' corners
    for i, creature in enumerate(astray["creatures"]):
        creature["confidence"] = round(0.5 + 0.01 * i, 2)
    astray["warnings"] = ["only 70% of the yellow loop was seen; the rest is guessed",
                          "only 75% of the red loop was seen; the rest is guessed"]
    # Two demons the camera put between corners: one at the crossing read aside, one
    # at a crossing that stays where it is.
    aside = {c["id"] for c in astray["crossings"] if not any(
        math.dist(c["xy"], t["xy"]) <= SAME_CROSSING for t in truth["crossings"])}
    demons = [c for c in astray["creatures"] if c["crossing"] is not None]
    near = next(c for c in demons if c["crossing"] in aside)
    far = next(c for c in demons if c["crossing"] not in aside)
    for demon in (near, far):
        demon["corners_alike"] = [[demon["field"], demon["crossing"]]]
    near["confidence"] = 0.4  # halved by the reader, and warned of
    between = f"creature {near['id']} ({near['colour']} demon) is between-corners"
    astray["warnings"].append(between)
    mended = apply_edits(astray, [{"op": "loop", "colour": "yellow", "path": path}])
    # Corners named by a crossing the stroke moved are other corners now: that doubt
    # was about a board that is gone.
    assert "corners_alike" not in mended["creatures"][near["id"]]
    assert mended["creatures"][near["id"]]["confidence"] == 0.8
    assert "corners_alike" in mended["creatures"][far["id"]]
    astray["warnings"].remove(between)
    near["confidence"] = 0.8
    assert mended["scores"] == truth["scores"] and mended["winners"] == truth["winners"]
    assert [v["rule"] for v in mended["violations"]] == [v["rule"] for v in truth["violations"]]
    assert slots(mended) == slots(truth) != slots(astray)
    assert len(mended["crossings"]) == len(truth["crossings"])
    # The camera's doubts of its creatures stay; the warning about the loop redrawn goes.
    assert [c["confidence"] for c in mended["creatures"]] == [
        c["confidence"] for c in astray["creatures"]]
    assert mended["warnings"] == astray["warnings"][1:]


def test_a_stroke_back_to_its_start_replaces_the_whole_loop() -> None:
    truth = truth_report(VIOLATIONS)
    astray, _ = loop_astray(truth, "yellow")
    whole = truth["lines"]["yellow"]["polyline"]
    mended = apply_edits(astray, [{"op": "loop", "colour": "yellow", "path": [*whole, whole[0]]}])
    assert mended["scores"] == truth["scores"] and slots(mended) == slots(truth)


def test_a_knot_off_the_redrawn_stretch_is_put_on_it() -> None:
    truth = truth_report(VIOLATIONS)
    truth["lines"]["red"]["knot_confidence"] = 0.3
    truth["warnings"] = ["the red knot is unsure (marked 0.30): check where it lies"]
    shifted = [[x + 4, y] for x, y in truth["lines"]["red"]["polyline"]]
    moved = apply_edits(truth, [{"op": "loop", "colour": "red", "path": [*shifted, shifted[0]]}])
    knot = ShapelyPoint(moved["lines"]["red"]["knot"])
    assert LinearRing(moved["lines"]["red"]["polyline"]).distance(knot) < 0.1
    assert knot.distance(ShapelyPoint(truth["lines"]["red"]["knot"])) == pytest.approx(4, abs=1)
    assert "knot_confidence" not in moved["lines"]["red"] and moved["warnings"] == []


def test_a_redrawn_loop_builds_a_board_whose_lines_broke_the_rules_again() -> None:
    report = truth_report(VIOLATIONS)
    report["violations"].append({"rule": "layout-problem", "creatures": [],
                                 "message": "the green loop crosses itself"})
    green = report["lines"]["green"]["polyline"]
    mended = apply_edits(report, [{"op": "loop", "colour": "green", "path": [*green, green[0]]}])
    assert "layout-problem" not in {v["rule"] for v in mended["violations"]}
    x, y = segment_away_from_the_knot(mended, "red")
    assert apply_edits(mended, [{"op": "knot", "colour": "red", "xy": [x, y]}])


def test_a_stroke_replaces_the_stretch_between_its_ends() -> None:
    square = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
    corners = {(100.0, 0.0), (100.0, 100.0), (0.0, 100.0), (0.0, 0.0)}
    # The bottom edge pushed down; the stroke runs on past the edge at both ends (a
    # finger does), and is cut where it meets it: no spur is left.
    for stroke in ([(20, 1), (50, -10), (80, 1)], [(20, 4), (20, -10), (80, -10), (80, 4)],
                   [(15, 4), (25, -10), (75, -10), (85, 4)]):
        loop = redrawn_loop(square, stroke, reach=8)
        assert corners <= set(loop) and LinearRing(loop).is_simple
        assert max(y for x, y in loop if 10 < x < 90) < 0.5  # within the cut's step
        assert min(y for _, y in loop) == -10
    # Read far astray along another cord: the nearer stretch is the detour, which the
    # page shows dashed; "the other side" replaces the square's own sides instead.
    astray = [(0, 0), (100, 0), (100, 20), (400, 20), (400, 80), (100, 80), (100, 100), (0, 100)]
    stroke = [(100, 20 + i) for i in range(0, 61, 5)]
    assert (0.0, 0.0) not in redrawn_loop(astray, stroke, reach=80)
    mended = redrawn_loop(astray, stroke, reach=80, other_side=True)
    assert (0.0, 0.0) in mended and max(x for x, _ in mended) == 100
    # A stroke ending where the kept stretch wraps past the loop's first point.
    assert LinearRing(redrawn_loop(square, [(10.3, 0), (50, -10), (80, 0)], reach=8)).is_simple
    # One that swings far off the board between its ends: only its ends are looked at
    # closely (cutting the whole of it into small steps took minutes and gigabytes).
    far = [(20, 0), *[(x, 9e5) for x in range(30, 70)], (80, 0)]
    assert len(redraw_choices(square, far, reach=8)) == 2
    whole = [(0, 0), (100, 0), (100, 100), (0, 100), (0, 0)]
    with pytest.raises(StrokeError, match="no other side"):  # the whole loop
        redrawn_loop(square, whole, reach=8, other_side=True)
    # A loop read astray along other cords, over twice the length of the real one: the
    # real loop drawn whole, starting off the loop read, replaces it (770196).
    long_way = [(0, 0), (100, 0), (100, -300), (500, -300), (500, 400), (0, 400)]
    assert LinearRing(long_way).length > 2 * LinearRing(whole).length
    redrawn = [(50, 100), (0, 100), (0, 0), (100, 0), (100, 100), (50, 100)]
    assert redrawn_loop(long_way, redrawn, reach=8) == [
        (50.0, 100.0), (0.0, 100.0), (0.0, 0.0), (100.0, 0.0), (100.0, 100.0)]
    # ... and so does one started and ended at one place of the loop read.
    from_the_loop = [(0, 50), (0, 0), (100, 0), (100, 100), (0, 100), (0, 50)]
    assert len(redrawn_loop(long_way, from_the_loop, reach=8)) == 5
    # A lobe started off the loop but ended on it is no whole loop: refused as before.
    lobe = [(20, 9), (20, 60), (60, 60), (60, 30), (22, 3)]
    with pytest.raises(StrokeError, match="start and end the stroke on the loop"):
        redrawn_loop(long_way, lobe, reach=8)


def test_a_stroke_that_cannot_be_a_stretch_of_the_loop_is_refused() -> None:
    square = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
    with pytest.raises(StrokeError, match="start and end the stroke on the loop"):
        redrawn_loop(square, [(20, 1), (50, 50)], reach=5)
    with pytest.raises(StrokeError, match="starts and ends at one place"):
        redrawn_loop(square, [(20, 1), (30, 30), (20, 2)], reach=5)
    with pytest.raises(StrokeError, match="cross or touch itself"):  # the stroke crosses itself
        redrawn_loop(square, [(20, 0), (60, -20), (40, -20), (80, 0)], reach=5)
    with pytest.raises(StrokeError, match="two points or more"):
        redrawn_loop(square, [(20, 0), (20, 0)], reach=5)


def circle(centre: tuple[float, float], radius: float, n: int = 180) -> list[list[float]]:
    return [[centre[0] + radius * math.cos(2 * math.pi * i / n),
             centre[1] + radius * math.sin(2 * math.pi * i / n)] for i in range(n)]


def red_knot_near_a_crossing() -> tuple[dict[str, Any], list[list[float]], np.ndarray]:
    """Two crossing circles, and a stroke redrawing a stretch of the red one whose point
    nearest the red knot is where it crosses the blue one: that report, the stroke, and
    that crossing."""
    lines = {"red": circle((400, 400), 200), "blue": circle((700, 400), 200)}
    knot = [400 + 200 * math.cos(math.radians(40)), 400 + 200 * math.sin(math.radians(40))]
    report = board_to_report(board_from_report({
        "schema": "dicke-daemonen/board@1", "image": {"width": 1200, "height": 800},
        "lines": {c: {"polyline": p, "knot": knot if c == "red" else p[0]}
                  for c, p in lines.items()},
        "crossings": [], "fields": [], "creatures": []}, topology="rebuild"),
        image_size=(1200, 800))
    # A straight stroke across the red loop whose point nearest the knot is where it
    # crosses the blue loop: the knot, put on the new stretch, would lie on that crossing,
    # so it goes the shortest way off it, along the new stretch.
    on_blue = np.array([700 + 200 * math.cos(math.radians(175)),
                        400 + 200 * math.sin(math.radians(175))])
    across = np.array(knot) - on_blue
    along = np.array([across[1], -across[0]]) / np.hypot(*across)
    # Where the line through on_blue along `along` meets the red circle.
    offset = on_blue - np.array([400.0, 400.0])
    half = math.sqrt(200**2 - (offset @ offset - (offset @ along) ** 2))
    ends = [on_blue + (-(offset @ along) + sign * half) * along for sign in (-1, 1)]
    stroke = [list(p) for p in np.linspace(ends[0], ends[1], 40)]
    return report, stroke, on_blue


def test_a_redraw_that_would_put_the_knot_on_a_crossing_puts_it_beside_it() -> None:
    report, stroke, on_blue = red_knot_near_a_crossing()
    redrawn = apply_edits(report, [{"op": "loop", "colour": "red", "path": stroke}])
    red_knot = redrawn["lines"]["red"]["knot"]
    clear = KNOT_CLEAR * board_extent(board_from_report(report))
    assert LinearRing(redrawn["lines"]["red"]["polyline"]).distance(ShapelyPoint(red_knot)) < 1
    (crossing,) = [c["xy"] for c in redrawn["crossings"] if set(c["lines"]) == {"blue", "red"}
                   and math.dist(c["xy"], on_blue) < 5]
    assert clear <= math.dist(red_knot, crossing) < 1.2 * clear


def test_a_redraw_whose_loop_has_no_place_clear_of_its_crossings_for_the_knot_is_refused(
) -> None:
    # A red loop 50 px across, over the edge of a large blue one: every point of it lies
    # within KNOT_CLEAR of one of its two crossings, so the knot has nowhere to go.
    blue = [[x, 0.0] for x in range(0, 3000, 50)] + [[3000.0, y] for y in range(0, 2000, 50)]
    blue += [[x, 2000.0] for x in range(3000, 0, -50)] + [[0.0, y] for y in range(2000, 0, -50)]
    report = board_to_report(board_from_report({
        "schema": "dicke-daemonen/board@1", "image": {"width": 3200, "height": 2200},
        "lines": {"red": {"polyline": circle((1500, 0), 25, 90), "knot": [1500, 25]},
                  "blue": {"polyline": blue, "knot": [3000, 1000]}},
        "crossings": [], "fields": [], "creatures": []}, topology="rebuild"),
        image_size=(3200, 2200))
    assert KNOT_CLEAR * board_extent(board_from_report(report)) > 50
    stroke = circle((1500, 3), 25, 60)
    with pytest.raises(EditError, match="no place clear of its crossings for its knot"):
        apply_edits(report, [{"op": "loop", "colour": "red", "path": [*stroke, stroke[0]]}])


def test_a_creature_is_taken_off_the_board_and_put_back(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    truth = truth_report(VIOLATIONS)
    off = next(c for c in truth["creatures"] if c["off_board"])
    demon = next(c for c in truth["creatures"] if c["crossing"] is not None and apply_edits(
        truth, [{"op": "remove", "creature": c["id"]}])["scores"] != truth["scores"])
    # The camera read a prediction pawn in front of a player as standing on the board.
    reading = apply_edits(truth, [{"op": "on_board", "creature": off["id"]}])
    back_on = reading["creatures"][off["id"]]
    assert not back_on["off_board"] and back_on["field"] is not None
    assert back_on["xy"] == off["xy"]
    board_id = archive_sample(app, db, report=reading)
    response = client.post(f"/boards/{board_id}/edit", follow_redirects=True, data={
        "csrf_token": TOKEN, "op": "off_board", "creature": str(off["id"])})
    assert f"Creature {off['id']} is now off the board" in response.get_data(as_text=True)
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None and corrected["creatures"] == truth["creatures"]
    assert corrected["scores"] == truth["scores"]
    # A demon in a corner taken off the board no longer counts for its colour there.
    taken = apply_edits(truth, [{"op": "off_board", "creature": demon["id"]}])
    assert taken["creatures"][demon["id"]]["off_board"]
    assert taken["creatures"][demon["id"]]["field"] is None
    removed = apply_edits(truth, [{"op": "remove", "creature": demon["id"]}])
    assert taken["scores"] == removed["scores"] and taken["winners"] == removed["winners"]
    no_foot = copy.deepcopy(truth)
    no_foot["creatures"][off["id"]]["xy"] = None
    with pytest.raises(EditError, match="no foot point"):
        apply_edits(no_foot, [{"op": "on_board", "creature": off["id"]}])


def a_demon_and_another_corner(report: dict[str, Any]) -> tuple[int, int, int, list[float]]:
    """A demon in a corner and another free corner of a field beside that crossing
    (demon id, field, crossing, the spot a pawn takes there)."""
    board = board_from_report(report)
    geometry = BoardGeometry(board)
    taken = {(c.field, c.crossing) for c in board.creatures}
    clearance = CORNER_AIR * PAWN_RADIUS * board_extent(board)
    for i, demon in enumerate(board.creatures):
        if demon.crossing is None:
            continue
        for f in board.fields:
            if f.id != demon.field and demon.crossing in f.corners and (
                    f.id, demon.crossing) not in taken:
                spot = geometry.corner_points(f.id, demon.crossing, clearance)[0]
                return i, f.id, demon.crossing, list(spot)
    raise AssertionError("no demon with a free corner beside it")


def test_a_creature_is_moved_to_where_it_stands_or_to_a_corner_it_fits_as_well(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    reading = truth_report(VIOLATIONS)
    demon, field, crossing, spot = a_demon_and_another_corner(reading)
    for i, creature in enumerate(reading["creatures"]):
        creature["confidence"] = 0.9 if i != demon else 0.4
    reading["creatures"][demon]["corners_alike"] = [
        [reading["creatures"][demon]["field"], crossing], [field, crossing], [999, 998]]
    view = board_view(reading)
    # The sheet offers the other corner its foot fits, not its own nor one not on the board.
    alike = creature_info(view)[str(demon)]["alike"]
    assert [(a["field"], a["crossing"]) for a in alike] == [(field, crossing)]
    assert math.dist(alike[0]["xy"], spot) < 0.2
    moved = apply_edits(reading, [{"op": "move", "creature": demon, "xy": alike[0]["xy"]}])
    after = moved["creatures"][demon]
    assert (after["field"], after["crossing"], after["colour"]) == (
        field, crossing, reading["creatures"][demon]["colour"])
    assert "confidence" not in after and "corners_alike" not in after
    assert [c.get("confidence") for c in moved["creatures"]] == [
        c["confidence"] if i != demon else None for i, c in enumerate(reading["creatures"])]
    board_id = archive_sample(app, db, report=reading)
    response = client.post(f"/boards/{board_id}/edit", follow_redirects=True, data={
        "csrf_token": TOKEN, "op": "move", "creature": str(demon),
        "x": f"{spot[0]:.1f}", "y": f"{spot[1]:.1f}"})
    assert f"Moved creature {demon}" in response.get_data(as_text=True)
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None and corrected["creatures"][demon]["field"] == field


def test_a_demon_beside_a_corner_is_said_to_stand_in_none(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    reading = truth_report(VIOLATIONS)
    demon = next(c for c in reading["creatures"] if c["crossing"] is not None)
    ghost = next(c for c in reading["creatures"] if c["kind"] == "ghost")
    board_id = archive_sample(app, db, report=reading)
    response = client.post(f"/boards/{board_id}/edit", follow_redirects=True, data={
        "csrf_token": TOKEN, "op": "no_corner", "creature": str(demon["id"])})
    assert f"Creature {demon['id']} stands in no corner" in response.get_data(as_text=True)
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None
    loose = corrected["creatures"][demon["id"]]
    assert (loose["field"], loose["crossing"]) == (demon["field"], None)
    assert any(v["rule"] == "demon-not-in-corner" and demon["id"] in v["creatures"]
               for v in corrected["violations"])
    with pytest.raises(EditError, match="is not a demon in a corner"):
        apply_edits(reading, [{"op": "no_corner", "creature": ghost["id"]}])


def test_a_demon_whose_corners_alike_moved_is_judged_again_where_it_stands() -> None:
    reading = truth_report(VIOLATIONS)
    board = board_from_report(reading)
    geometry = BoardGeometry(board)
    clearance = CORNER_AIR * pawn_radius_of(board)
    radius = pawn_radius_of(board)

    def halfway(field: int, pair: tuple[int, int]) -> tuple[float, float]:
        spots = [geometry.corner_points(field, c, clearance)[0] for c in pair]
        return ((spots[0][0] + spots[1][0]) / 2, (spots[0][1] + spots[1][1]) / 2)

    # A red demon halfway between the spots of two corners of one field, which its foot
    # fits about as well.
    foot, location = next(
        (xy, located) for f in board.fields if not f.outer
        for pair in itertools.combinations(sorted(set(f.corners)), 2)
        for xy in [halfway(f.id, pair)]
        for located in geometry.locate([Foot("demon", "red", xy)], pawn_radius=radius)
        if located.ambiguity == "between-corners"
    )
    size = (reading["image"]["width"], reading["image"]["height"])
    added = board_to_report(board.with_creatures((*board.creatures, location.creature)),
                            image_size=size)
    demon = added["creatures"][-1]
    # The camera doubted it between corners of a crossing that is gone (a redraw moved it).
    demon["confidence"] = 0.4
    demon["corners_alike"] = [[demon["field"], 999]]
    added["warnings"] = [place_warning(demon["id"], "red", "demon", "between-corners")]
    board = board_from_report(added)
    again = keep_doubts(added, rescore(added, board), board, list(range(len(board.creatures))))
    judged = again["creatures"][-1]
    assert judged["corners_alike"] == [list(c) for c in location.alternatives]
    if moves_change_nothing(board, demon["id"], location.alternatives):
        assert again["warnings"] == [] and judged["confidence"] == 0.8
    else:
        assert again["warnings"] == added["warnings"] and judged["confidence"] == 0.4


def test_a_redraw_keeps_the_warning_that_a_loop_has_no_knot() -> None:
    truth = truth_report(VIOLATIONS)
    astray, path = loop_astray(truth, "yellow")
    astray["lines"]["yellow"]["knot"] = None
    size = (astray["image"]["width"], astray["image"]["height"])
    astray = board_to_report(board_from_report(astray, topology="rebuild"), image_size=size)
    astray["warnings"] = ["no knot found on the yellow loop",
                          "only 70% of the yellow loop was seen; the rest is guessed"]
    mended = apply_edits(astray, [{"op": "loop", "colour": "yellow", "path": path}])
    assert mended["lines"]["yellow"]["knot"] is None
    assert mended["warnings"] == ["no knot found on the yellow loop"]


def test_the_stretches_a_stroke_could_replace_are_asked_before_it_is_sent(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    truth = truth_report(VIOLATIONS)
    astray, path = loop_astray(truth, "yellow")
    board_id = archive_sample(app, db, report=astray)
    url = f"/api/boards/{board_id}/loop-choices"
    # A stroke that runs along the loop a little at its ends has one side only: the
    # other would make a loop whose two halves overlap there (the page says so).
    answer = client.post(url, json={"colour": "yellow", "path": path}, headers=API)
    assert answer.status_code == 200
    assert [c["crosses_itself"] for c in answer.get_json()["choices"]] == [False, True]
    path = path[3:-3]  # from where the stretch read astray leaves the loop to where it meets it
    answer = client.post(url, json={"colour": "yellow", "path": path}, headers=API)
    choices = answer.get_json()["choices"]
    assert [c["crosses_itself"] for c in choices] == [False, False]
    nearer, other = (c["stretch"] for c in choices)
    yellow = LinearRing(astray["lines"]["yellow"]["polyline"])
    # Both are stretches of the loop read; the nearer is the short one the stroke redraws.
    assert all(yellow.distance(ShapelyPoint(p)) < 0.2 for p in nearer + other)
    assert len(nearer) < len(other)
    assert nearer[len(nearer) // 2] != other[len(other) // 2]
    bad = client.post(url, json={"colour": "yellow", "path": [[0, 0], [1, 1]]}, headers=API)
    assert bad.status_code == 400 and "start and end the stroke on the loop" in bad.get_json()[
        "error"]
    assert client.post(url, json={"colour": "yellow", "path": path}).status_code == 403
    assert client.post(url, data="x", headers=API).status_code == 400
    nested = client.post(url, data="[" * 100_000 + "]" * 100_000, headers=API,
                         content_type="application/json")
    assert nested.status_code == 400 and "nested too deeply" in nested.get_json()["error"]
    # Sent with the other side chosen, the stroke replaces the rest of the loop instead.
    flipped = apply_edits(astray, [{"op": "loop", "colour": "yellow", "path": path,
                                    "other_side": True}])
    assert flipped["scores"] != truth["scores"] or flipped["lines"] != truth["lines"]
    assert get_board(db, board_id).corrected_report is None  # asking changes nothing


def test_a_stroke_drawn_on_the_page_redraws_a_loop(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    truth = truth_report(VIOLATIONS)
    astray, path = loop_astray(truth, "yellow")
    board_id = archive_sample(app, db, report=astray)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert 'id="redraw-loop"' in page and 'name="path"' in page
    bad = client.post(f"/boards/{board_id}/edit", follow_redirects=True, data={
        "csrf_token": TOKEN, "op": "loop", "colour": "yellow", "path": "1,2 3"})
    assert "That correction was not applied: " in bad.get_data(as_text=True)
    assert get_board(db, board_id).corrected_report is None
    response = client.post(f"/boards/{board_id}/edit", follow_redirects=True, data={
        "csrf_token": TOKEN, "op": "loop", "colour": "yellow",
        "path": " ".join(f"{x:.1f},{y:.1f}" for x, y in path)})
    assert "Redrew the yellow loop" in response.get_data(as_text=True)
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None and corrected["scores"] == truth["scores"]


def test_a_warning_about_a_loop_offers_to_redraw_it(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    reading = truth_report(VIOLATIONS)
    reading["warnings"] = ["only 55% of the green loop was seen; the rest is guessed",
                           "3 touching red pawns read near (475, 721)"]
    board_id = archive_sample(app, db, report=reading)
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    assert page.count("data-redraw-loop=") == 1 and 'data-redraw-loop="green"' in page


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"op": "remove", "creature": 999}, "edits[0].creature: no creature 999"),
        ({"op": "change", "creature": 0, "colour": "purple"}, "edits[0].colour: expected one of"),
        ({"op": "add", "colour": "red", "xy": [1, "a"]}, "edits[0].xy: expected [x, y]"),
        ({"op": "add", "colour": "white", "kind": "demon", "xy": [1, 1]}, "is a ghost, not"),
        ({"op": "fly"}, "edits[0].op: expected 'add', 'change', 'move', 'no_corner', "),
        ({"op": "off_board", "creature": 99}, "edits[0].creature: no creature 99"),
        ({"op": "move", "creature": 0, "xy": [1]}, "edits[0].xy: expected [x, y]"),
        ({"op": "loop", "colour": "red", "path": [[1e300, 0], [-1e300, 0], [0, 1e300]]},
         "edits[0].path[0]: expected [x, y], numbers within"),
        ({"op": "add", "colour": "red", "xy": [10**400, 0]}, "edits[0].xy: expected [x, y]"),
        ({"op": "add", "colour": "red", "xy": [-5000, -5000]},
         "edits[0].xy: [-5000, -5000] lies outside the photo"),
        ({"op": "move", "creature": 0, "xy": [10, 99999]}, "edits[0].xy: [10, 99999] lies outside"),
        ({"op": "loop", "colour": "red", "path": [[1, 1], [2, 2]], "other_side": "yes"},
         "edits[0].other_side: expected true or false"),
        ({"op": "on_board", "creature": 0}, "edits[0].creature: that creature is on the board"),
        ({"op": "off_board", "creature": 17}, "edits[0].creature: that creature is off the board"),
        ({"op": "loop", "colour": "red", "path": [[1, 1]]}, "edits[0].path: expected a list"),
        ({"op": "loop", "colour": "red", "path": [[1, 1], [2, None]]}, "edits[0].path[1]: "),
        ({"op": "loop", "colour": "white", "path": [[1, 1], [2, 2]]}, "edits[0].colour: "),
        ({"op": "loop", "colour": "red", "path": [[1, 1]] * (MAX_PATH_POINTS + 1)},
         f"edits[0].path: at most {MAX_PATH_POINTS} points"),
        ({"op": "knot", "colour": "white", "xy": [1, 1]}, "edits[0].colour: expected the colour"),
        ({"op": "knot", "colour": "red"}, "edits[0].xy: expected [x, y]"),
        ("remove", "edits[0]: expected an object"),
    ],
)
def test_bad_corrections_are_refused_with_a_message(
    app: Flask, client: FlaskClient, db: sqlite3.Connection, edit: object, message: str
) -> None:
    board_id = archive_sample(app, db)
    response = client.patch(f"/api/boards/{board_id}", json={"edits": [edit]}, headers=API)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert get_board(db, board_id).corrected_report is None


def test_a_bad_form_edit_is_flashed_not_saved(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    response = client.post(f"/boards/{board_id}/edit", data={
        "csrf_token": TOKEN, "op": "remove", "creature": "x"}, follow_redirects=True)
    assert "That correction was not applied: no creature chosen" in response.get_data(as_text=True)
    assert get_board(db, board_id).corrected_report is None


def test_a_board_entered_by_hand_and_dropping_corrections(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    report = truth_report(VIOLATIONS)
    report["creatures"] = []
    client.post(f"/boards/{board_id}/report",
                data={"csrf_token": TOKEN, "report": json.dumps(report)})
    corrected = get_board(db, board_id).corrected_report
    assert corrected is not None and corrected["scores"] == dict.fromkeys(
        ("red", "yellow", "green", "blue", "white"), 0)
    bad = client.post(f"/boards/{board_id}/report",
                      data={"csrf_token": TOKEN, "report": '{"schema": 1'},
                      follow_redirects=True)
    assert "The report is not JSON" in bad.get_data(as_text=True)
    nested = client.post(f"/boards/{board_id}/report", follow_redirects=True, data={
        "csrf_token": TOKEN, "report": "[" * 100_000 + "]" * 100_000})
    assert "nested too deeply" in nested.get_data(as_text=True)
    client.post(f"/boards/{board_id}/revert", data={"csrf_token": TOKEN})
    assert get_board(db, board_id).corrected_report is None


def test_players_can_be_entered_after_the_photo(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    client.post(f"/boards/{board_id}/game", data={
        "csrf_token": TOKEN, "player": ["Anna", "Ben"], "prediction": ["blue", ""]})
    assert get_board(db, board_id).game.players == (Player("Anna", "blue"), Player("Ben", None))
    assert [b.id for b in list_boards(db, player="anna")] == [board_id]


def test_players_changed_since_the_page_was_loaded_are_not_overwritten(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db, game=GameInfo("players", (Player("Anna", "red"),)))
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    shown = re.search(r"name=\"players_were\" value='([^']*)'", page)
    assert shown is not None and json.loads(html.unescape(shown.group(1)))["players"] == [
        {"name": "Anna", "prediction": "red"}]
    were = html.unescape(shown.group(1))
    first = client.post(f"/boards/{board_id}/game", follow_redirects=True, data={
        "csrf_token": TOKEN, "players_were": were, "player": ["Anna", "Ben"],
        "prediction": ["red", "blue"]})
    assert "Players and predictions saved" in first.get_data(as_text=True)
    # A second person, on a page loaded before that save, is told and overwrites nothing.
    second = client.post(f"/boards/{board_id}/game", follow_redirects=True, data={
        "csrf_token": TOKEN, "players_were": were, "player": ["Anna", "Cleo"],
        "prediction": ["red", "green"]})
    assert "changed since the page was loaded; nothing was saved" in second.get_data(as_text=True)
    assert get_board(db, board_id).game.players == (Player("Anna", "red"), Player("Ben", "blue"))
    for bad in ("{", "[1]", '{"players": [1]}', '{"solitaire": {"red": "first"}}',
                '{"solitaire": {"red": Infinity}}', '{"solitaire": {"red": 1e999}}',
                '{"mode": "players", "players": [{"nmae": "Anna", "prediction": "red"}], '
                '"solitaire": {}}', '{"players": [{"name": "Anna", "prediction": "red"}]}',
                '{"mode": "players", "players": [{"name": NaN, "prediction": null}], '
                '"solitaire": {}}', '{"solitaire": {"red": NaN}}'):
        response = client.post(f"/boards/{board_id}/game", data={
            "csrf_token": TOKEN, "players_were": bad, "player": ["Dora"], "prediction": [""]})
        assert response.status_code == 400, bad
    assert get_board(db, board_id).game.players == (Player("Anna", "red"), Player("Ben", "blue"))


# --- archive and exports ---------------------------------------------------------------------


def test_a_filter_as_long_as_a_name_finds_it(app: Flask, db: sqlite3.Connection) -> None:
    forty = archive_sample(app, db, game=GameInfo("players", (Player("A" * 40, "red"),)))
    assert [b.id for b in list_boards(db, player="a" * 40)] == [forty]
    assert list_boards(db, player="a" * 41) == []


def test_archive_lists_filters_and_exports(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    anna = archive_sample(app, db, game=GameInfo("players", (Player("Anna", "red"),)))
    ben = archive_sample(app, db, READABLE, game=GameInfo("players", (Player("Ben", "red"),)))
    page = client.get("/archive").get_data(as_text=True)
    assert f"Board {anna}" in page and f"Board {ben}" in page
    filtered = client.get("/archive?player=ann").get_data(as_text=True)
    assert f"Board {anna}" in filtered and f"Board {ben}" not in filtered
    future = client.get("/archive?since=2999-01-01").get_data(as_text=True)
    assert "No board matches this filter." in future
    # A filter longer than any name matches none (SQLite refuses a LIKE pattern of
    # 50,000 characters: it was a server error), as a page and through the API.
    for long in ("a" * 41, "a" * 60_000, "%" * 30_000):
        response = client.get(f"/archive?player={long}")
        assert response.status_code == 200
        assert "No board matches this filter." in response.get_data(as_text=True)
        assert client.get(f"/api/boards?player={long}").get_json()["boards"] == []
    # The list's summaries (scores picked out of the JSON by SQLite) and a board's own agree.
    client.patch(f"/api/boards/{anna}", headers=API,
                 json={"edits": [{"op": "remove", "creature": 0}]})
    listed = client.get("/api/boards").get_json()["boards"]
    assert listed == [summary(get_board(db, ben)), summary(get_board(db, anna))]
    assert listed[1]["corrected"] and listed[1]["players"] == ["Anna"]
    lines = client.get("/archive.jsonl").get_data(as_text=True).splitlines()
    assert [json.loads(line)["id"] for line in lines] == [anna, ben]
    assert json.loads(lines[0])["camera_report"] == truth_report(VIOLATIONS)


def test_board_exports(app: Flask, client: FlaskClient, db: sqlite3.Connection) -> None:
    board_id = archive_sample(app, db)
    exported = client.get(f"/boards/{board_id}/report.json")
    assert "attachment" in exported.headers["Content-Disposition"]
    assert json.loads(exported.data) == truth_report(VIOLATIONS)
    png = client.get(f"/boards/{board_id}/overlay.png")
    image = Image.open(io.BytesIO(png.data))
    view = Image.open(io.BytesIO(client.get(
        f"/photos/{get_board(db, board_id).photo}/view.jpg").data))
    assert (image.format, image.size) == ("PNG", view.size)
    original = client.get(f"/boards/{board_id}/photo")
    assert original.data == VIOLATIONS.with_suffix(".jpg").read_bytes()
    assert client.get("/photos/not-a-hash/view.jpg").status_code == 404


def test_delete_asks_first_and_keeps_a_photo_still_in_use(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    first, second = archive_sample(app, db), archive_sample(app, db)
    photos: PhotoStore = app.extensions["photos"]
    path = photos.path(get_board(db, first).photo, "original", "jpg")
    assert "Delete board" in client.get(f"/boards/{first}/delete").get_data(as_text=True)
    client.post(f"/boards/{first}/delete", data={"csrf_token": TOKEN})
    assert client.get(f"/boards/{first}").status_code == 404
    assert path.exists()
    client.post(f"/boards/{second}/delete", data={"csrf_token": TOKEN})
    assert not path.exists()


# --- the JSON API ----------------------------------------------------------------------------


def test_api_says_when_a_redraw_moved_the_knot(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    report, stroke, _ = red_knot_near_a_crossing()
    board_id = archive_sample(app, db, report=report)
    redraw = {"op": "loop", "colour": "red", "path": stroke}
    patched = client.patch(f"/api/boards/{board_id}", headers=API,
                           json={"edits": [redraw]}).get_json()
    assert patched["notices"] == ["the red knot was put on the redrawn red loop: check where "
                                  "it lies"]
    # A knot placed by hand in the same edits is where the player put it: no notice.
    knot = patched["report"]["lines"]["red"]["knot"]
    again = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": None})
    assert again.status_code == 200
    placed = client.patch(f"/api/boards/{board_id}", headers=API, json={"edits": [
        redraw, {"op": "knot", "colour": "red", "xy": knot}]}).get_json()
    assert placed["report"]["lines"]["red"]["knot"] == knot and placed["notices"] == []
    # ... but one placed before the redraw that then had to move it is: the order counts.
    assert client.patch(f"/api/boards/{board_id}", headers=API,
                        json={"report": None}).status_code == 200
    before_redraw = client.patch(f"/api/boards/{board_id}", headers=API, json={"edits": [
        {"op": "knot", "colour": "red", "xy": [400 + 200 * math.cos(math.radians(30)),
                                               400 + 200 * math.sin(math.radians(30))]},
        redraw]})
    assert before_redraw.get_json()["notices"] == patched["notices"]


def test_api_boards_list_detail_patch_and_delete(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db, game=GameInfo("players", (Player("Anna", "red"),)))
    listed = client.get("/api/boards?player=anna").get_json()["boards"]
    assert [b["id"] for b in listed] == [board_id]
    assert client.get("/api/boards?player=zed").get_json()["boards"] == []
    assert client.get("/api/boards?since=yesterday").status_code == 400
    detail = client.get(f"/api/boards/{board_id}").get_json()
    assert detail["report"] == detail["camera_report"] == truth_report(VIOLATIONS)
    patched = client.patch(f"/api/boards/{board_id}", headers=API,
                           json={"edits": [{"op": "remove", "creature": 0}]}).get_json()
    assert len(patched["report"]["creatures"]) == len(detail["report"]["creatures"]) - 1
    changed = [c for c in ("red", "yellow", "green", "blue", "white")
               if patched["report"]["scores"][c] != detail["report"]["scores"][c]]
    assert [c.split()[0] for c in patched["changes"] if not c.startswith("winning")] == changed
    assert patched["notices"] == []
    assert patched["camera_report"] == detail["camera_report"]
    dropped = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": None})
    assert dropped.get_json()["corrected_report"] is None
    assert client.patch(f"/api/boards/{board_id}", headers=API, json=[1]).status_code == 400
    nested = client.patch(f"/api/boards/{board_id}", headers=API,
                          data="[" * 100_000 + "]" * 100_000, content_type="application/json")
    assert nested.status_code == 400 and "nested too deeply" in nested.get_json()["error"]
    bad_report = client.patch(f"/api/boards/{board_id}", headers=API,
                              json={"report": {"schema": "nope"}})
    assert bad_report.status_code == 400 and "schema" in bad_report.get_json()["error"]
    assert client.delete(f"/api/boards/{board_id}", headers=API).status_code == 204
    missing = client.get(f"/api/boards/{board_id}")
    assert missing.status_code == 404
    assert missing.get_json() == {"error": f"there is no board {board_id} in the archive"}
    assert client.delete(f"/api/boards/{board_id}", headers=API).status_code == 404
    assert client.get("/api/nothing-here").get_json()["error"]


def test_api_score_errors(app: Flask, client: FlaskClient) -> None:
    no_photo = client.post("/api/score", headers=API, data={})
    assert no_photo.status_code == 400 and "no photo" in no_photo.get_json()["error"]
    not_image = client.post("/api/score", headers=API,
                            data={"photo": (io.BytesIO(b"hello"), "x.jpg")})
    assert not_image.status_code == 400
    unreadable = client.post("/api/score", headers=API,
                             data={"photo": (io.BytesIO(grey_png()), "grey.png")})
    assert unreadable.status_code == 422
    assert unreadable.get_json()["board_id"] >= 1 and unreadable.get_json()["error"]
    many = client.post("/api/score", headers=API,
                       data={"photo": (io.BytesIO(grey_png()), "grey.png"),
                             **{f"f{i}": "x" for i in range(1500)}})
    assert many.status_code == 413
    assert many.get_json()["error"].startswith("The form has too many fields")
    app.config["MAX_CONTENT_LENGTH"] = 1000
    too_large = client.post("/api/score", headers=API,
                            data={"photo": (io.BytesIO(grey_png()), "grey.png")})
    assert too_large.status_code == 413 and "too large" in too_large.get_json()["error"]


def test_api_score_reads_a_sample_photo(client: FlaskClient) -> None:
    response = client.post("/api/score", headers=API, data={
        "photo": (io.BytesIO(READABLE.with_suffix(".jpg").read_bytes()), "board.jpg"),
        "player": ["Anna"], "prediction": ["red"]})
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["schema"] == "dicke-daemonen/board@1"
    assert set(body["scores"]) == {"red", "yellow", "green", "blue", "white"}
    assert client.get(f"/api/boards/{body['board_id']}").get_json()["summary"]["players"] == [
        "Anna"]


def test_a_tap_far_from_the_board_places_an_off_board_creature() -> None:
    # The engine's locator decides: far from every line in the outer field is off the board
    # (a prediction in front of a player), which is not scored.
    report = truth_report(VIOLATIONS)
    xs = [p[0] for line in report["lines"].values() for p in line["polyline"]]
    ys = [p[1] for line in report["lines"].values() for p in line["polyline"]]
    # The photo's corner farthest from the board (a tap outside the photo is refused).
    width, height = report["image"]["width"], report["image"]["height"]
    middle = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    far = max(([x, y] for x in (0, width) for y in (0, height)),
              key=lambda corner: math.dist(corner, middle))
    changed = apply_edits(report, [{"op": "add", "colour": "white", "xy": far}])
    added = changed["creatures"][-1]
    assert (added["kind"], added["off_board"], added["field"]) == ("ghost", True, None)
    assert changed["scores"] == report["scores"]


def test_parse_game_players_in_prediction_order_and_solitaire() -> None:
    game = parse_game({"player": ["Anna", "", "Carla"], "prediction": ["", "Blue", "red"]})
    assert game.players == (Player("Anna", None), Player("Player 2", "blue"),
                            Player("Carla", "red"))
    solo = parse_game({"mode": ["solitaire"], "solitaire_player": ["Zoe"],
                       "place1": ["green"], "place3": ["white"]})
    assert (solo.mode, solo.players, dict(solo.solitaire)) == (
        "solitaire", (Player("Zoe"),), {"green": 1, "white": 3})
    with pytest.raises(GameFormError, match="At most 4 players"):
        parse_game({"player": ["a", "b", "c", "d", "e"]})
    assert parse_game({"mode": ["players"], "player": ["Anna"]}).mode == "players"
    with pytest.raises(GameFormError, match="'players' or 'solitaire', not 'solo'"):
        parse_game({"mode": ["solo"], "player": ["Anna"]})
    assert parse_game({"mode": ["Solitaire"], "solitaire_player": ["Zoe"]}).mode == "solitaire"


def test_samples_are_scored_into_an_empty_archive_only(
    app: Flask, db: sqlite3.Connection, tmp_path: Path
) -> None:
    folder = tmp_path / "samples"
    folder.mkdir()
    (folder / "board.jpg").write_bytes(READABLE.with_suffix(".jpg").read_bytes())
    (folder / "notes.jpg").write_bytes(b"not a photo")
    (folder / "board.truth.json").write_text("{}")
    (folder / "gone.jpg").symlink_to(folder / "nowhere.jpg")  # skipped, not a crash
    (folder / "folder.jpg").mkdir()
    assert seed_archive(app, folder) == 1
    (only,) = list_boards(db)
    assert only.photo == hashlib.sha256(READABLE.with_suffix(".jpg").read_bytes()).hexdigest()
    assert seed_archive(app, folder) == 0  # not on later starts
    with pytest.raises(FileNotFoundError, match="is not a folder of photos"):
        seed_archive(app, tmp_path / "missing")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [(["--port", "70000"], "--port must be 1..65535"), (["--threads", "0"], "--threads must")],
)
def test_serve_refuses_bad_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    status = main(["serve", "--instance", str(tmp_path / "i"), *arguments])
    assert status == 2
    assert message in capsys.readouterr().err


def test_serve_on_a_port_in_use_says_so_before_scoring_or_printing_an_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "board.jpg").write_bytes(READABLE.with_suffix(".jpg").read_bytes())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = main(["serve", "--instance", str(tmp_path / "i"), "--port", str(port),
                       "--samples", str(samples)])
    out, err = capsys.readouterr()
    assert status == 2 and "in use" in err and err.count("\n") == 1
    assert "open http" not in out and "scored" not in out


def test_pages_forbid_framing_and_foreign_scripts(client: FlaskClient) -> None:
    headers = client.get("/").headers
    assert headers["X-Frame-Options"] == "DENY"
    assert "script-src" not in headers["Content-Security-Policy"]  # default-src 'self'
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_a_sideways_phone_photo_is_shown_upright(app: Flask, db: sqlite3.Connection) -> None:
    # Phones store a portrait photo as landscape pixels plus EXIF orientation 6; the
    # report's coordinates and the displayed copy are both upright (portrait).
    image = Image.new("RGB", (800, 600), (90, 120, 160))
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    info = inspect_photo(out.getvalue())
    assert info.size == (600, 800)
    board_id = store_board(db, app.extensions["photos"], out.getvalue(), info,
                           BoardReading(None, "no strings found"))
    photos: PhotoStore = app.extensions["photos"]
    for variant in ("view", "thumb"):
        with Image.open(photos.path(get_board(db, board_id).photo, variant)) as shown:
            assert shown.width < shown.height


# --- concurrent and stale corrections -------------------------------------------------------


def page_version(client: FlaskClient, board_id: int) -> str:
    """The board version the board page's edit form carries."""
    page = client.get(f"/boards/{board_id}").get_data(as_text=True)
    versions = set(re.findall(r'name="version" value="(\d+)"', page))
    assert len(versions) == 1, versions
    return versions.pop()


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads started together; their results (or exceptions)."""
    start = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except Exception as error:  # noqa: BLE001 - the old code's 500 is an exception here
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def creature_places(report: dict[str, Any] | None) -> list[tuple[Any, ...]]:
    """Each creature as what it is and where it stands, in order."""
    assert report is not None
    return [(c["kind"], c["colour"], tuple(c["xy"]), c["field"], c["crossing"])
            for c in report["creatures"]]


def test_an_edit_clashing_with_another_is_refused_not_redone_on_another_creature(
    app: Flask, db: sqlite3.Connection
) -> None:
    """A correction worked out again on the board another change left: "change creature
    d" sent as creature 0 was removed changed the creature after d."""
    board_id = archive_sample(app, db)
    original = get_board(db, board_id).report
    assert original is not None
    remove = [{"op": "remove", "creature": 0}]
    change = [{"op": "change", "creature": 3, "colour": "white"}]

    def edited(entry: ArchivedBoard, edits: list[dict[str, Any]]) -> dict[str, Any]:
        assert entry.report is not None
        return apply_edits(entry.report, edits)

    def change_as_another_removes(entry: ArchivedBoard) -> dict[str, Any]:
        if entry.version == 0:  # another request stores its removal meanwhile
            correct_board(db, board_id, lambda other: edited(other, remove))
        return edited(entry, change)

    with pytest.raises(BoardChanged, match="changed since version 0"):
        correct_board(db, board_id, change_as_another_removes)
    assert creature_places(get_board(db, board_id).report) == creature_places(
        apply_edits(original, remove))


def test_two_edits_at_once_are_each_stored_whole_or_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """Two PATCHes of one board at once (remove creature 0; change creature d): each is
    stored as worked out, or refused with a 409 when the other was stored meanwhile
    (it was worked out again on the board the other left: see the test above)."""
    board_id = archive_sample(app, db)
    original = get_board(db, board_id).camera_report
    assert original is not None
    demon = next(c["id"] for c in original["creatures"]
                 if c["kind"] == "demon" and not c["off_board"] and c["id"] > 0)
    remove = [{"op": "remove", "creature": 0}]
    change = [{"op": "change", "creature": demon, "colour": "white"}]
    # What the ones answered 200 may have left, stored one after the other.
    outcomes = {
        (True, False): [apply_edits(original, remove)],
        (False, True): [apply_edits(original, change)],
        (True, True): [apply_edits(original, [*change, *remove]),
                       apply_edits(original, [*remove, *change])],
    }
    other = app.test_client()
    for round_ in range(3):
        results = at_once(
            lambda: client.patch(f"/api/boards/{board_id}", headers=API, json={"edits": remove}),
            lambda: other.patch(f"/api/boards/{board_id}", headers=API, json={"edits": change}),
        )
        codes = [getattr(r, "status_code", r) for r in results]
        assert set(codes) <= {200, 409} and 200 in codes, f"round {round_}: {codes}"
        for answer in results:
            if answer.status_code == 409:
                assert "nothing was changed" in answer.get_json()["error"]
        stored = creature_places(get_board(db, board_id).report)
        assert stored in [creature_places(r) for r in outcomes[codes[0] == 200, codes[1] == 200]]
        client.patch(f"/api/boards/{board_id}", headers=API, json={"report": None})


def test_an_api_edit_for_an_older_version_is_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    version = client.get(f"/api/boards/{board_id}").get_json()["version"]
    edit = {"edits": [{"op": "remove", "creature": 0}], "base_version": version}
    first = client.patch(f"/api/boards/{board_id}", headers=API, json=edit)
    assert first.status_code == 200 and first.get_json()["version"] == version + 1
    stored = get_board(db, board_id)
    again = client.patch(f"/api/boards/{board_id}", headers=API, json=edit)
    assert again.status_code == 409
    assert "changed since version" in again.get_json()["error"]
    assert get_board(db, board_id) == stored
    bad = client.patch(f"/api/boards/{board_id}", headers=API,
                       json={**edit, "base_version": "3"})
    assert bad.status_code == 400 and "base_version" in bad.get_json()["error"]


def test_a_form_from_a_page_older_than_the_board_changes_nothing(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """The same "remove creature 0" form sent twice (a second tab, the back button)
    removed two creatures; the second is refused, and so are a stale hand-entered report
    and a stale "Drop corrections"."""
    board_id = archive_sample(app, db)
    version = page_version(client, board_id)
    form = {"csrf_token": TOKEN, "version": version, "op": "remove", "creature": "0"}
    assert client.post(f"/boards/{board_id}/edit", data=form).status_code == 303
    stored = get_board(db, board_id)
    assert page_version(client, board_id) == str(stored.version) != version
    stale = client.post(f"/boards/{board_id}/edit", data=form, follow_redirects=True)
    assert "This board changed since the page was loaded; nothing was changed" in (
        stale.get_data(as_text=True))
    report = json.dumps(truth_report(VIOLATIONS))
    client.post(f"/boards/{board_id}/report",
                data={"csrf_token": TOKEN, "version": version, "report": report})
    client.post(f"/boards/{board_id}/revert", data={"csrf_token": TOKEN, "version": version})
    assert get_board(db, board_id) == stored
    fresh = {**form, "version": str(stored.version)}
    assert client.post(f"/boards/{board_id}/edit", data=fresh).status_code == 303
    assert get_board(db, board_id).version == stored.version + 1


def test_a_correction_racing_a_delete_raises_board_not_found(
    app: Flask, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)

    def deleted_meanwhile(entry: ArchivedBoard) -> dict[str, Any] | None:
        delete_board(db, app.extensions["photos"], board_id)
        return entry.report

    with pytest.raises(BoardNotFound):
        correct_board(db, board_id, deleted_meanwhile)


def test_an_edit_racing_a_delete_is_a_404_not_a_server_error(
    app: Flask, client: FlaskClient, db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board is deleted by another request while the edit is worked out (here:
    just before, within the same correction)."""
    board_id = archive_sample(app, db)

    def racing_a_delete(db: sqlite3.Connection, board_id: int, correction: Correction,
                        base_version: int | None = None) -> Any:
        def deleted_first(entry: ArchivedBoard) -> dict[str, Any] | None:
            delete_board(db, app.extensions["photos"], board_id)
            return correction(entry)
        return correct_board(db, board_id, deleted_first, base_version)

    monkeypatch.setattr(archive, "correct_board", racing_a_delete)
    patched = client.patch(f"/api/boards/{board_id}", headers=API,
                           json={"edits": [{"op": "remove", "creature": 0}]})
    assert patched.status_code == 404
    assert "was deleted" in patched.get_json()["error"]


def test_reading_again_a_board_whose_photo_file_is_lost_says_so(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """It was a 404 "There is no board N (it was deleted…)", for a board still there."""
    board_id = archive_sample(app, db)
    entry = get_board(db, board_id)
    app.extensions["photos"].path(entry.photo, "original", entry.photo_extension).unlink()
    answer = client.post(f"/boards/{board_id}/retry", data={"csrf_token": TOKEN},
                         follow_redirects=True)
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert "The photo file of this board is missing, so it cannot be read again" in text
    assert "deleted" not in text
    assert get_board(db, board_id) == entry


def test_reading_again_a_board_deleted_meanwhile_is_a_404(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    store = app.extensions["photos"]

    class DeletedFirst(PhotoStore):
        """The store as another request deleting the board leaves it, just before the
        photo is read."""

        def read(self, photo_hash: str, extension: str) -> bytes:
            delete_board(db, store, board_id)
            return super().read(photo_hash, extension)

    app.extensions["photos"] = DeletedFirst(store.folder)
    answer = client.post(f"/boards/{board_id}/retry", data={"csrf_token": TOKEN})
    assert answer.status_code == 404
    assert f"no board {board_id}" in answer.get_data(as_text=True)


# --- limits ----------------------------------------------------------------------------------


def comb(teeth: int) -> list[list[float]]:
    """A polyline with ``teeth`` long upright teeth across a 4000-pixel photo."""
    step = 3800 / teeth
    points = [[100.0, 3500.0]]
    for k in range(teeth):
        left, right = 100 + (k + 0.25) * step, 100 + (k + 0.75) * step
        points += [[left, 3000.0], [left, 500.0], [right, 500.0], [right, 3000.0]]
    return [*points, [3900.0, 3500.0]]


def test_lines_crossing_thousands_of_times_are_refused_at_once(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """A 30 KB report of two comb-shaped loops tied a server thread up for minutes."""
    board_id = archive_sample(app, db)
    red = comb(150)
    report = {"schema": "dicke-daemonen/board@1", "image": {"width": 4000, "height": 4000},
              "lines": {"red": {"polyline": red, "knot": None},
                        "blue": {"polyline": [[y, x] for x, y in red], "knot": None}},
              "crossings": [], "creatures": [],
              "fields": [{"id": 0, "outer": True, "polygon": None, "corners": [],
                          "knots": [], "value": 0}]}
    answer = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": report})
    assert answer.status_code == 400
    assert "at most 200 crossings" in answer.get_json()["error"]
    report["lines"]["red"]["polyline"] = comb(1300)
    answer = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": report})
    assert answer.status_code == 400
    assert "at most 5000 points, got 5202" in answer.get_json()["error"]
    assert get_board(db, board_id).corrected_report is None


def test_a_stroke_crossing_the_lines_hundreds_of_times_is_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """A 2000-point comb stroke made 2142 crossings; every view then took 10 s."""
    board_id = archive_sample(app, db)
    report = get_board(db, board_id).report
    assert report is not None
    polyline = report["lines"]["red"]["polyline"]
    # From a point of the red loop to another, with 499 teeth 300 px deep across the rest.
    (x0, y0), (x1, y1) = polyline[0], polyline[len(polyline) // 2]
    length = math.dist((x0, y0), (x1, y1))
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    path = [[x0, y0]]
    for k in range(499):
        for along, depth in (((k + 0.25), 0), ((k + 0.25), 300), ((k + 0.75), 300),
                             ((k + 0.75), 0)):
            t = along / 499 * length
            path.append([x0 + ux * t + uy * depth, y0 + uy * t - ux * depth])
    path.append([x1, y1])
    assert len(path) == 1998
    answer = client.patch(f"/api/boards/{board_id}", headers=API,
                          json={"edits": [{"op": "loop", "colour": "red", "path": path}]})
    assert answer.status_code == 400
    assert "at most 200 crossings" in answer.get_json()["error"]
    assert get_board(db, board_id).corrected_report is None


@pytest.mark.parametrize(("violation", "message"), [
    ({"rule": "layout-problem", "creatures": [math.nan], "message": "x"},
     "violations[0].creatures[0]: expected an integer"),
    ({"rule": "layout-problem", "creatures": 0, "message": "x"},
     "violations[0].creatures: expected a list"),
    ({"rule": "layout-problem", "creatures": [-1], "message": "x"},
     "violations[0].creatures[0]: expected a creature id (0 or more), got -1"),
    ({"rule": "layout-problem", "creatures": list(range(201)), "message": "x"},
     "violations[0].creatures: at most 200 ids, got 201"),
    ({"rule": ["layout-problem"], "creatures": [], "message": "x"},
     "violations[0].rule: expected a text"),
    ({"rule": {"a": 1}, "creatures": [], "message": "x"}, "violations[0].rule: expected a text"),
    ({"creatures": [], "message": "x"}, "violations[0].rule: expected a text"),
    ({"rule": "x" * 101, "creatures": [], "message": "x"},
     "violations[0].rule: at most 100 characters, got 101"),
    ({"rule": "layout-problem", "lines": ["pink"], "message": "x"},
     "violations[0].lines[0]: unknown colour"),
    ({"rule": "layout-problem", "creatures": [], "message": "x" * 501},
     "violations[0].message: at most 500 characters, got 501"),
    ({"rule": "layout-problem", "creatures": [], "message": 5},
     "violations[0].message: expected a text"),
])
def test_a_report_with_a_malformed_violation_is_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection, violation: dict[str, Any],
    message: str,
) -> None:
    """A layout problem naming creature NaN was a 500 (it could not be stored as JSON),
    and a 30 MB message was stored."""
    board_id = archive_sample(app, db)
    report = {**truth_report(VIOLATIONS), "violations": [violation]}
    answer = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": report})
    assert answer.status_code == 400
    assert message in answer.get_json()["error"]
    page = client.post(f"/boards/{board_id}/report", follow_redirects=True,
                       data={"csrf_token": TOKEN, "report": json.dumps(report)})
    assert message in page.get_data(as_text=True)
    assert get_board(db, board_id).corrected_report is None


def test_a_violation_of_a_rule_unknown_here_or_with_null_lists_is_taken(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """CONTRACT.md: "more [rules] may be added", and null lists are absent ones (a list
    or object as the rule was a 500; a known rule was required, null lists refused)."""
    board_id = archive_sample(app, db)
    report = truth_report(VIOLATIONS)
    report["violations"] += [
        {"rule": "a-rule-of-a-newer-reader", "creatures": [0], "message": "x"},
        {"rule": "layout-problem", "creatures": None, "lines": None, "message": "tangled"},
    ]
    answer = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": report})
    assert answer.status_code == 200, answer.get_json()
    saved = get_board(db, board_id).report
    assert saved is not None
    assert {"rule": "layout-problem", "creatures": [], "message": "tangled"} in (
        saved["violations"])
    assert client.get(f"/boards/{board_id}").status_code == 200


def test_a_layout_problem_naming_a_removed_creature_does_not_lock_the_board(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """A layout problem is kept as written; it named the last creature, a creature was
    removed, and then the stored report was refused for good ("no creature 21": every
    edit a 400, the page "cannot be shown"). Its ids now follow the removal."""
    board_id = archive_sample(app, db)
    report = truth_report(VIOLATIONS)
    last = len(report["creatures"]) - 1
    report["violations"].append(
        {"rule": "layout-problem", "creatures": [0, last], "message": "tangled"})
    assert client.patch(f"/api/boards/{board_id}", headers=API,
                        json={"report": report}).status_code == 200
    for _ in range(2):
        answer = client.patch(f"/api/boards/{board_id}", headers=API,
                              json={"edits": [{"op": "remove", "creature": 0}]})
        assert answer.status_code == 200, answer.get_json()
    saved = get_board(db, board_id).report
    assert saved is not None
    assert len(saved["creatures"]) == last - 1
    problem = next(v for v in saved["violations"] if v["rule"] == "layout-problem")
    assert problem["creatures"] == [last - 2]
    page = client.get(f"/boards/{board_id}")
    assert page.status_code == 200 and "tangled" in page.get_data(as_text=True)


def test_a_stored_layout_problem_naming_no_creature_of_its_board_is_shown(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """Corrections stored before its ids followed removals may name creatures no longer
    there: such a board is still shown and edited."""
    board_id = archive_sample(app, db)
    report = truth_report(VIOLATIONS)
    report["violations"].append(
        {"rule": "layout-problem", "creatures": [len(report["creatures"]) + 5], "message": "x"})
    save_correction(db, board_id, report)
    assert client.get(f"/boards/{board_id}").status_code == 200
    answer = client.patch(f"/api/boards/{board_id}", headers=API,
                          json={"edits": [{"op": "remove", "creature": 0}]})
    assert answer.status_code == 200, answer.get_json()


def test_a_json_body_larger_than_a_report_is_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    board_id = archive_sample(app, db)
    body = json.dumps({"report": None, "padding": "x" * (5 * 1024 * 1024)})
    answer = client.patch(f"/api/boards/{board_id}", headers=API, data=body,
                          content_type="application/json")
    assert answer.status_code == 413
    assert answer.get_json()["error"] == "The request is too large: at most 4 MB."


def test_the_archive_export_is_streamed(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """It was built whole in memory; now it is sent a board at a time."""
    ids = [archive_sample(app, db) for _ in range(3)]
    answer = client.get("/archive.jsonl", buffered=False)
    chunks = list(answer.response)
    assert [json.loads(chunk)["id"] for chunk in chunks] == ids


def test_a_report_with_an_inner_field_without_polygon_is_refused(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """CONTRACT.md lets only the outer field go without a polygon. Such a report was
    taken, and an edit adding or moving a creature on it was a 500."""
    report = truth_report(VIOLATIONS)
    inner = next(f for f in report["fields"] if not f["outer"])
    inner["polygon"] = None
    report["violations"].append({"rule": "layout-problem", "creatures": [], "message": "x"})
    board_id = archive_sample(app, db)
    answer = client.patch(f"/api/boards/{board_id}", headers=API, json={"report": report})
    assert answer.status_code == 400
    assert f"fields[{inner['id']}].polygon: only the outer field has no polygon" in (
        answer.get_json()["error"])
    stored = archive_sample(app, db, report=report)  # as an older, laxer app kept it
    demon = next(c for c in report["creatures"] if c["kind"] == "demon" and not c["off_board"])
    for edit in ({"op": "add", "colour": "red", "xy": demon["xy"]},
                 {"op": "move", "creature": demon["id"], "xy": demon["xy"]}):
        answer = client.patch(f"/api/boards/{stored}", headers=API, json={"edits": [edit]})
        assert answer.status_code == 400, edit
        assert "only the outer field has no polygon" in answer.get_json()["error"]
    assert get_board(db, stored).corrected_report is None


def test_the_last_date_there_is_filters_nothing_out(
    app: Flask, client: FlaskClient, db: sqlite3.Connection
) -> None:
    """until=9999-12-31 was a 500: the day after it is beyond Python's dates."""
    board_id = archive_sample(app, db)
    listed = client.get("/api/boards?until=9999-12-31")
    assert [b["id"] for b in listed.get_json()["boards"]] == [board_id]
    page = client.get("/archive?until=9999-12-31")
    assert page.status_code == 200 and f"/boards/{board_id}" in page.get_data(as_text=True)
