"""The JSON API beside the pages.

- ``POST /api/score``: multipart ``photo`` plus the new-board form's optional fields
  (``player``/``prediction`` repeated, or ``mode=solitaire`` with ``solitaire_player``
  and ``place1``..``place3``);
  201 with the board report and ``board_id``, or 422 with ``error`` and ``board_id`` when
  the photo was archived but could not be read.
- ``GET /api/boards`` (``?player=``, ``?since=YYYY-MM-DD``, ``?until=``),
  ``GET /api/boards/<id>``, ``PATCH /api/boards/<id>`` (``{"edits": [...]}`` or
  ``{"report": {...}}``, or ``{"report": null}`` to drop the corrections; the answer
  says what changed in ``changes``),
  ``POST /api/boards/<id>/loop-choices`` (``{"colour", "path"}``: the stretches a
  stroke could replace, before the ``loop`` edit is sent),
  ``DELETE /api/boards/<id>``.

Errors are ``{"error": message}`` with the matching status code. Requests that change
data need the ``X-Requested-With`` header (see :mod:`webui.security`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from engine.errors import BoardError
from vision.errors import PhotoError
from webui import archive, edits
from webui.archive import ArchivedBoard, BoardChanged, BoardNotFound
from webui.db import get_db
from webui.edits import EditError, apply_edits, check_report, describe_changes
from webui.game import GameFormError, parse_game
from webui.pages import photo_store

bp = Blueprint("api", __name__, url_prefix="/api")


class ApiError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@bp.before_request
def limit_json() -> None:
    """Only a photo upload may be large: a JSON body is held in memory whole, and a
    report or a list of edits is far smaller than a photo."""
    if request.endpoint != "api.score":
        request.max_content_length = current_app.config["MAX_JSON_LENGTH"]


@bp.errorhandler(ApiError)
def api_error(error: ApiError) -> tuple[Response, int]:
    return jsonify(error=str(error)), error.status


def _entry(board_id: int) -> ArchivedBoard:
    try:
        return archive.get_board(get_db(), board_id)
    except BoardNotFound as error:
        raise ApiError(str(error), 404) from error


def _detail(entry: ArchivedBoard) -> dict[str, Any]:
    return {**entry.to_json(), "report": entry.report, "summary": archive.summary(entry)}


@bp.post("/score")
def score() -> tuple[Response, int]:
    """Read an uploaded photo into a board report and archive it."""
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError("no photo: send the image as the multipart field 'photo'", 400)
    try:
        game = parse_game(request.form.to_dict(flat=False))
    except GameFormError as error:
        raise ApiError(str(error), 400) from error
    try:
        board_id, reading = archive.score_upload(get_db(), photo_store(), upload.read(), game)
    except PhotoError as error:
        raise ApiError(str(error), 400) from error
    if reading.report is None:
        return jsonify(error=reading.error, board_id=board_id), 422
    return jsonify({**reading.report, "board_id": board_id}), 201


@bp.get("/boards")
def boards() -> Response:
    dates = {}
    for name in ("since", "until"):
        text = request.args.get(name, "")
        try:
            dates[name] = dt.date.fromisoformat(text) if text else None
        except ValueError as error:
            raise ApiError(f"{name}: expected a date YYYY-MM-DD, got {text[:40]!r}", 400) from error
    found = archive.list_summaries(
        get_db(), player=request.args.get("player") or None,
        since=dates["since"], until=dates["until"],
    )
    return jsonify(boards=found)


@bp.get("/boards/<int:board_id>")
def board(board_id: int) -> Response:
    return jsonify(_detail(_entry(board_id)))


@bp.patch("/boards/<int:board_id>")
def correct(board_id: int) -> Response:
    """Corrections: a list of edits applied to the current report, or a whole report;
    refused (409) if the board changed while they were worked out, or, with
    ``base_version``, if it is no longer at that version."""
    _entry(board_id)
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        raise ApiError("the JSON is nested too deeply to be a board report", 400) from None
    if not isinstance(body, dict) or not ({"edits", "report"} & body.keys()):
        raise ApiError('expected a JSON object with "edits" (a list) or "report"', 400)
    base_version = _base_version(body.get("base_version"))
    knots_put_on: list[str] = []  # filled by the edits' correction
    try:
        if "edits" in body:
            correction = _edits_correction(body["edits"], knots_put_on)
        else:
            whole = None if body["report"] is None else check_report(body["report"])
            correction = _whole_report(whole)
        before, saved = archive.correct_board(get_db(), board_id, correction, base_version)
    except (EditError, BoardError) as error:
        raise ApiError(str(error), 400) from error
    except BoardNotFound as error:
        raise ApiError(f"board {board_id} was deleted; nothing was saved", 404) from error
    except BoardChanged as error:
        raise ApiError(
            f"{error}, the one your correction was made for; nothing was changed: get the "
            "board again and send a correction made for it", 409) from error
    changes = (describe_changes(before.report, saved.report)
               if before.report and saved.report else [])
    notices = [f"the {colour} knot was put on the redrawn {colour} loop: check where it lies"
               for colour in knots_put_on]
    return jsonify({**_detail(saved), "changes": changes, "notices": notices})


def _base_version(value: object) -> int | None:
    """The optional ``base_version`` of a PATCH: the board version the edits were made
    for (``version`` in ``GET /api/boards/<id>``)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ApiError(f"base_version: expected the board's version (an integer), "
                       f"got {str(value)[:40]!r}", 400)
    return value


def _edits_correction(edits: Any, knots_put_on: list[str]) -> archive.Correction:
    """The correction that applies ``edits`` to the board as it stands (filling
    ``knots_put_on``: see :func:`webui.edits.apply_edits`)."""
    def correction(entry: ArchivedBoard) -> dict[str, Any]:
        if entry.report is None:
            raise ApiError("this board has no reading to edit; send a whole report", 409)
        return apply_edits(entry.report, edits, knots_put_on)
    return correction


def _whole_report(report: dict[str, Any] | None) -> archive.Correction:
    """The correction that stores ``report`` (checked already) whatever the board was."""
    return lambda _entry: report


@bp.post("/boards/<int:board_id>/loop-choices")
def loop_choices(board_id: int) -> Response:
    """Which stretch of a loop a stroke would replace, before the ``loop`` edit is sent:
    ``{"colour": ..., "path": [[x, y], ...]}`` → ``{"choices": [{"stretch": [[x, y],
    ...], "crosses_itself": false}, ...]}``, the likelier first (the second is taken with
    ``"other_side": true``; one that would make the loop cross itself is refused)."""
    entry = _entry(board_id)
    if entry.report is None:
        raise ApiError("this board has no reading to edit", 409)
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        raise ApiError("the JSON is nested too deeply to be a stroke", 400) from None
    if not isinstance(body, dict):
        raise ApiError('expected a JSON object with "colour" and "path"', 400)
    try:
        choices = edits.loop_choices(entry.report, body)
    except (EditError, BoardError) as error:
        raise ApiError(str(error), 400) from error
    return jsonify(choices=[
        {"stretch": [[round(x, 1), round(y, 1)] for x, y in stretch], "crosses_itself": crosses}
        for stretch, crosses in choices
    ])


@bp.delete("/boards/<int:board_id>")
def delete(board_id: int) -> tuple[str, int]:
    try:
        archive.delete_board(get_db(), photo_store(), board_id)
    except BoardNotFound as error:
        raise ApiError(str(error), 404) from error
    return "", 204

