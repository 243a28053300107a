"""The pages: new board, result and correction, archive, exports."""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Iterator
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    stream_with_context,
    url_for,
)
from PIL import Image
from werkzeug.exceptions import HTTPException, NotFound, RequestEntityTooLarge
from werkzeug.wrappers import Response as BaseResponse

from engine.colours import LINE_COLOURS, SCORE_COLOURS
from engine.errors import BoardFormatError, EngineError
from vision.errors import PhotoError
from webui import archive
from webui.archive import ArchivedBoard, BoardChanged, BoardNotFound, PlayersChanged
from webui.db import connect, get_db
from webui.edits import EditError, apply_edits, check_report, describe_changes
from webui.game import GameFormError, GameInfo, game_outcome, parse_game
from webui.overlay import PAINT, board_view, creature_info, field_info, overlay_png, stretch_info
from webui.photos import PhotoStore
from webui.scoring import read_board

bp = Blueprint("pages", __name__)


def photo_store() -> PhotoStore:
    store: PhotoStore = current_app.extensions["photos"]
    return store


def load_board(board_id: int) -> ArchivedBoard:
    try:
        return archive.get_board(get_db(), board_id)
    except BoardNotFound as error:
        abort(404, description=str(error))


@bp.app_context_processor
def colours() -> dict[str, Any]:
    return {"PAINT": PAINT, "LINE_COLOURS": LINE_COLOURS, "SCORE_COLOURS": SCORE_COLOURS}


# --- new board ---------------------------------------------------------------------------


@bp.get("/")
def new_board() -> str:
    return render_template("new.html", errors={}, form={})


@bp.post("/")
def upload() -> BaseResponse | tuple[str, int]:
    """Read an uploaded photo, archive it, and show its result (or the form's errors)."""
    form = request.form.to_dict(flat=False)
    errors: dict[str, str] = {}
    try:
        game = parse_game(form)
    except GameFormError as error:
        errors.update(error.errors)
    # Two inputs share the name: the camera one and the file picker; use the one filled in.
    photo_file = next((f for f in request.files.getlist("photo") if f.filename), None)
    data = photo_file.read() if photo_file is not None else b""
    if photo_file is None:
        errors["photo"] = "Take a photo of the board or choose one."
    if errors:
        return render_template("new.html", errors=errors, form=form), 400
    try:
        board_id, reading = archive.score_upload(get_db(), photo_store(), data, game)
    except PhotoError as error:
        errors["photo"] = f"This file cannot be used: {error}."
        return render_template("new.html", errors=errors, form=form), 400
    if reading.error:
        flash(f"The board could not be read: {reading.error}", "error")
    return redirect(url_for("pages.board", board_id=board_id), 303)


# --- one board ---------------------------------------------------------------------------


@bp.get("/boards/<int:board_id>")
def board(board_id: int) -> str:
    entry = load_board(board_id)
    show_camera = request.args.get("view") == "camera" and entry.camera_report is not None
    report = stored = entry.camera_report if show_camera else entry.report
    view, problem = None, None
    if report:
        try:
            view = board_view(report)
        except EngineError as error:  # e.g. stored by an older, laxer version of the engine
            problem = str(error)
            report = None
    outcome = (
        game_outcome(entry.game, report.get("scores", {}), report.get("winners", []))
        if report
        else None
    )
    return render_template(
        "board.html",
        entry=entry,
        report=report,
        view=view,
        fields_data=field_info(view) if view else {},
        creatures_data=creature_info(view) if view else {},
        stretches_data=stretch_info(view) if view else {},
        outcome=outcome,
        show_camera=show_camera,
        problem=problem,
        camera_scores=(entry.camera_report or {}).get("scores", {}),
        report_text=json.dumps(stored) if stored else "",
    )


#: What a form sent from a page loaded before the board last changed is told: its
#: creatures are named by number, and those numbers may now be other creatures.
STALE_PAGE = "This board changed since the page was loaded; nothing was changed, look again."


@bp.post("/boards/<int:board_id>/edit")
def edit(board_id: int) -> BaseResponse:
    """One correction from the editor: add, change or remove a creature, move a knot or
    redraw a stretch of a loop."""
    if load_board(board_id).report is None:
        abort(400, description="This board has no reading to correct; enter it by hand.")
    try:
        change = _edit_from_form(request.form)
        knots_put_on: list[str] = []  # filled by the correction
        before, saved = archive.correct_board(
            get_db(), board_id, _edit_correction(change, knots_put_on), _base_version()
        )
    except (EditError, ValueError) as error:
        flash(f"That correction was not applied: {error}", "error")
        return redirect(url_for("pages.board", board_id=board_id), 303)
    except BoardChanged:
        flash(STALE_PAGE, "error")
        return redirect(url_for("pages.board", board_id=board_id), 303)
    assert before.report is not None and saved.report is not None
    changes = describe_changes(before.report, saved.report)
    summary = _edit_summary(change, before.report, bool(knots_put_on))
    flash(f"{summary}. " + ("; ".join(changes) if changes else "No score changed."), "change")
    return redirect(url_for("pages.board", board_id=board_id), 303)


def _edit_correction(change: dict[str, Any], knots_put_on: list[str]) -> archive.Correction:
    """The correction that applies one edit to the board as it stands (filling
    ``knots_put_on``: see :func:`webui.edits.apply_edits`)."""
    def correction(entry: ArchivedBoard) -> dict[str, Any]:
        if entry.report is None:  # read again meanwhile, and unreadable this time
            raise EditError("this board has no reading to correct now; enter it by hand")
        return apply_edits(entry.report, [change], knots_put_on)
    return correction


def _base_version() -> int | None:
    """The board version the form was rendered from (None from a form without one)."""
    text = request.form.get("version", "")
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        abort(400, description="The form's board version could not be read; load the "
                               "page again.")


def _edit_from_form(form: Any) -> dict[str, Any]:
    op = form.get("op", "")
    edit: dict[str, Any] = {"op": op}
    if op in ("change", "remove", "move", "no_corner", "off_board", "on_board"):
        try:
            edit["creature"] = int(form.get("creature", ""))
        except ValueError:
            raise EditError("no creature chosen") from None
    if op in ("change", "add", "knot", "loop"):
        edit["colour"] = form.get("colour", "")
    if op in ("add", "knot", "move"):
        try:
            edit["xy"] = [float(form.get("x", "")), float(form.get("y", ""))]
        except ValueError:
            raise EditError("no place chosen") from None
    if op == "loop":
        edit["path"] = _path_from_form(form.get("path", ""))
        edit["other_side"] = form.get("other_side", "") == "yes"
    return edit


def _path_from_form(text: str) -> list[list[float]]:
    """A stroke sent as "x,y x,y ..." (the page's editor)."""
    try:
        path = [[float(v) for v in pair.split(",")] for pair in text.split()]
    except ValueError:
        raise EditError("the stroke drawn could not be read") from None
    if len(path) < 2:
        raise EditError("no stroke drawn: draw along the loop where it really runs")
    return path


def _edit_summary(edit: dict[str, Any], report: dict[str, Any], knot_put_on: bool) -> str:
    """What one edit did, for the page's notice (``knot_put_on``: a redraw had to move
    the loop's knot onto it)."""
    colour = edit.get("colour")
    name = "ghost" if colour == "white" else f"{colour} demon"
    if edit["op"] == "add":
        return f"Added a {name}"
    if edit["op"] == "remove":
        return f"Removed creature {edit['creature']}"
    if edit["op"] == "move":
        return f"Moved creature {edit['creature']}"
    if edit["op"] == "no_corner":
        return f"Creature {edit['creature']} stands in no corner"
    if edit["op"] == "knot":
        had_one = (report.get("lines", {}).get(colour) or {}).get("knot") is not None
        return f"{'Moved' if had_one else 'Placed'} the {colour} knot"
    if edit["op"] == "loop":
        if knot_put_on:
            return f"Redrew the {colour} loop and put its knot on it: check where it lies"
        return f"Redrew the {colour} loop"
    if edit["op"] in ("off_board", "on_board"):
        return f"Creature {edit['creature']} is now {edit['op'].replace('_', ' the ')}"
    return f"Creature {edit['creature']} is now a {name}"


@bp.post("/boards/<int:board_id>/report")
def enter_report(board_id: int) -> BaseResponse | tuple[str, int]:
    """A whole board report typed or pasted by hand (e.g. when the photo was unreadable)."""
    load_board(board_id)
    text = request.form.get("report", "")
    try:
        corrected = check_report(json.loads(text))
    except (json.JSONDecodeError, RecursionError, BoardFormatError) as error:
        flash(_report_problem(error), "error")
        return redirect(url_for("pages.board", board_id=board_id) + "#by-hand", 303)
    if not _saved(board_id, corrected):
        return redirect(url_for("pages.board", board_id=board_id) + "#by-hand", 303)
    flash("Saved the board you entered; it was scored again.", "change")
    return redirect(url_for("pages.board", board_id=board_id), 303)


def _saved(board_id: int, report: dict[str, Any] | None) -> bool:
    """Store a whole corrected report (None: drop the corrections) if the board is still
    as the form's page showed it; else say so and store nothing."""
    try:
        archive.correct_board(get_db(), board_id, lambda _entry: report, _base_version())
    except BoardChanged:
        flash(STALE_PAGE, "error")
        return False
    return True


def _report_problem(error: Exception) -> str:
    """What to tell the user about a hand-entered report that was refused."""
    if isinstance(error, json.JSONDecodeError):
        return f"The report is not JSON: {error.msg} (line {error.lineno})."
    if isinstance(error, RecursionError):
        return "The report is nested too deeply to be a board report."
    return f"The report was not saved: {error}"


@bp.post("/boards/<int:board_id>/revert")
def revert(board_id: int) -> BaseResponse:
    load_board(board_id)
    if _saved(board_id, None):
        flash("Corrections dropped: the board is as the camera read it.", "change")
    return redirect(url_for("pages.board", board_id=board_id), 303)


@bp.post("/boards/<int:board_id>/retry")
def retry(board_id: int) -> BaseResponse:
    """Read the stored photo again (after the reader improved, or a transient failure)."""
    entry = load_board(board_id)
    try:
        data = photo_store().read(entry.photo, entry.photo_extension)
    except FileNotFoundError:
        # Either the board was deleted meanwhile, photo and all (then a 404), or its
        # photo file alone was lost, which must not be told as a deleted board.
        load_board(board_id)
        flash("The photo file of this board is missing, so it cannot be read again; "
              "nothing was changed.", "error")
        return redirect(url_for("pages.board", board_id=board_id), 303)
    reading = read_board(data)
    archive.save_reading(get_db(), board_id, reading)
    if reading.error:
        flash(f"Still unreadable: {reading.error}", "error")
    else:
        flash("The photo was read again.", "change")
    return redirect(url_for("pages.board", board_id=board_id), 303)


@bp.post("/boards/<int:board_id>/game")
def update_game(board_id: int) -> BaseResponse:
    """Players and predictions entered (or fixed) after the photo."""
    load_board(board_id)
    try:
        game = parse_game(request.form.to_dict(flat=False))
    except GameFormError as error:
        flash(f"Players not saved: {error}", "error")
        return redirect(url_for("pages.board", board_id=board_id) + "#players", 303)
    try:
        archive.save_game(get_db(), board_id, game, _players_were())
    except PlayersChanged:
        flash("The players of this board changed since the page was loaded; nothing was "
              "saved, look again.", "error")
        return redirect(url_for("pages.board", board_id=board_id) + "#players", 303)
    flash("Players and predictions saved.", "change")
    return redirect(url_for("pages.board", board_id=board_id), 303)


def _players_were() -> GameInfo | None:
    """The players the form showed (None from a form without them)."""
    text = request.form.get("players_were", "")
    if not text:
        return None
    try:
        shown = json.loads(text)
        if not isinstance(shown, dict):
            raise ValueError("not an object")
        was = GameInfo.from_json(shown)
        # The page writes exactly what to_json gives; anything else (a misspelt key, a
        # name that is a number, NaN) was not written by it, and would only read as
        # "changed".
        if was.to_json() != shown:
            raise ValueError("not what the page shows")
        return was
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError):
        abort(400, description="The form's players as shown could not be read; load the "
                               "page again.")


@bp.route("/boards/<int:board_id>/delete", methods=["GET", "POST"])
def delete(board_id: int) -> BaseResponse | str:
    entry = load_board(board_id)
    if request.method == "GET":
        return render_template("delete.html", entry=entry)
    archive.delete_board(get_db(), photo_store(), board_id)
    flash(f"Board {board_id} deleted.", "change")
    return redirect(url_for("pages.archive_list"), 303)


# --- photos and exports ------------------------------------------------------------------


@bp.get("/photos/<photo_hash>/<variant>.jpg")
def photo(photo_hash: str, variant: str) -> Response:
    if variant not in ("view", "thumb"):
        abort(404)
    try:
        path = photo_store().path(photo_hash, variant)
    except ValueError:
        abort(404)
    if not path.exists():
        abort(404, description="That photo is not in the archive.")
    response = send_file(path, mimetype="image/jpeg", max_age=365 * 24 * 3600)
    return response


@bp.get("/boards/<int:board_id>/photo")
def original_photo(board_id: int) -> Response:
    entry = load_board(board_id)
    path = photo_store().path(entry.photo, "original", entry.photo_extension)
    return send_file(path, as_attachment=True,
                     download_name=f"board-{board_id}.{entry.photo_extension}")


@bp.get("/boards/<int:board_id>/report.json")
def export_report(board_id: int) -> Response:
    """The board's current report (CONTRACT JSON) as a download."""
    entry = load_board(board_id)
    if entry.report is None:
        abort(404, description="This board has no report: the photo could not be read.")
    return _download(json.dumps(entry.report, indent=1), "application/json",
                     f"board-{board_id}.json")


@bp.get("/boards/<int:board_id>/overlay.png")
def export_overlay(board_id: int) -> Response:
    entry = load_board(board_id)
    if entry.report is None:
        abort(404, description="This board has no report: the photo could not be read.")
    with Image.open(photo_store().path(entry.photo, "view")) as photo:
        png = overlay_png(entry.report, photo)
    return send_file(io.BytesIO(png), mimetype="image/png", as_attachment=True,
                     download_name=f"board-{board_id}.png")


@bp.get("/archive.jsonl")
def export_archive() -> Response:
    """Every board as one JSON object per line: both reports, the error and the game.

    Streamed a board at a time, so that memory does not grow with the archive."""
    return _download(stream_with_context(_archive_lines()), "application/x-ndjson",
                     "dicke-daemonen-archive.jsonl")


def _archive_lines() -> Iterator[str]:
    # Its own connection, opened and closed by the generator itself: the request's is
    # closed when the view returns, before the response is sent.
    db = connect(current_app.config["DATABASE"])
    try:
        for entry in archive.iter_boards(db):
            yield json.dumps(entry.to_json()) + "\n"
    finally:
        db.close()


def _download(text: str | Iterator[str], mimetype: str, name: str) -> Response:
    return Response(text, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


# --- archive -----------------------------------------------------------------------------


def _date(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text) if text else None
    except ValueError:
        return None


@bp.get("/archive")
def archive_list() -> str:
    player = request.args.get("player", "").strip()
    since, until = _date(request.args.get("since")), _date(request.args.get("until"))
    boards = archive.list_summaries(get_db(), player=player or None, since=since, until=until)
    bad_dates = [
        name for name in ("since", "until")
        if request.args.get(name) and _date(request.args.get(name)) is None
    ]
    return render_template(
        "archive.html",
        boards=boards,
        player=player,
        since=since,
        until=until,
        bad_dates=bad_dates,
    )


# --- errors ------------------------------------------------------------------------------


@bp.app_errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> tuple[str, int] | tuple[Response, int]:
    """An upload over the limit: said on the form (or as JSON), with the limit."""
    largest = request.max_content_length or current_app.config["MAX_CONTENT_LENGTH"]
    limit = largest // (1024 * 1024)
    length = request.content_length
    if length is not None and length <= largest:
        # Within the size: Werkzeug refused the form's number of parts or a text field's
        # size (MAX_FORM_PARTS, MAX_FORM_MEMORY_SIZE).
        message = "The form has too many fields, or a field too long."
    elif request.endpoint == "pages.upload":
        message = f"The photo is too large: at most {limit} MB."
    elif request.path.startswith("/api/") and request.endpoint != "api.score":
        message = f"The request is too large: at most {limit} MB."
    else:
        message = f"The upload is too large: at most {limit} MB."
    if request.path.startswith("/api/"):
        return jsonify(error=message), 413
    if request.endpoint == "pages.upload":
        return render_template("new.html", errors={"photo": message}, form={}), 413
    error.description = "What you sent is too large."
    return render_template("error.html", error=error, status=413), 413


@bp.app_errorhandler(BoardNotFound)
def board_gone(error: BoardNotFound) -> tuple[str, int] | tuple[Response, int]:
    """A board deleted while a request about it was under way (a correction, a second
    reading, a delete from another tab): a 404 that says nothing was saved."""
    return http_error(NotFound(
        f"There is no board {error.board_id} in the archive (it was deleted, or never "
        "was); nothing was changed."))


@bp.app_errorhandler(HTTPException)
def http_error(error: HTTPException) -> tuple[str, int] | tuple[Response, int]:
    """Errors as a page, or as JSON under /api/."""
    status = error.code or 500
    if request.path.startswith("/api/"):
        return jsonify(error=error.description), status
    return render_template("error.html", error=error, status=status), status
