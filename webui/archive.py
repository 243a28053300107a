"""The archive of played boards: store, find, correct and delete them.

A board keeps two reports apart: ``camera_report``, what the reader saw (never changed
after the reading), and ``corrected_report``, the board after the players' corrections.
The board's current report is the corrected one if there is one. A photo the reader
could not read is archived all the same, with ``read_error`` and no report.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from webui.db import player_names, transaction
from webui.game import MAX_NAME, NO_GAME, GameInfo, game_outcome
from webui.photos import PhotoInfo, PhotoStore, inspect_photo
from webui.scoring import BoardReading, read_board

#: SQLite's largest row id: a larger one in a URL names no board.
_LARGEST_ID = 2**63 - 1


class BoardNotFound(LookupError):
    """No board with that id in the archive."""

    def __init__(self, board_id: int) -> None:
        super().__init__(f"there is no board {board_id} in the archive")
        self.board_id = board_id


class BoardChanged(Exception):
    """The board changed since the version a correction was worked out from."""

    def __init__(self, board_id: int, base_version: int) -> None:
        super().__init__(f"board {board_id} changed since version {base_version}")
        self.board_id = board_id
        self.base_version = base_version


@dataclass(frozen=True)
class ArchivedBoard:
    """One row of the archive with its reports decoded."""

    id: int
    created_at: str
    photo: str
    photo_format: str
    photo_size: tuple[int, int]
    camera_report: dict[str, Any] | None
    read_error: str | None
    corrected_report: dict[str, Any] | None
    corrected_at: str | None
    game: GameInfo
    #: How many times its reports changed: a correction names the version it was
    #: worked out from, and is refused if the board has changed since.
    version: int = 0

    @property
    def report(self) -> dict[str, Any] | None:
        """The board as it stands: corrected if the players corrected it."""
        return self.corrected_report if self.corrected_report is not None else self.camera_report

    @property
    def photo_extension(self) -> str:
        return PhotoInfo(self.photo, self.photo_format, self.photo_size, 0).extension

    @property
    def player_names(self) -> list[str]:
        return [p.name for p in self.game.players]

    def to_json(self) -> dict[str, Any]:
        """The archive entry for export: both reports, the error, the game."""
        return {
            "id": self.id,
            "created_at": self.created_at,
            "photo": {"sha256": self.photo, "format": self.photo_format,
                      "width": self.photo_size[0], "height": self.photo_size[1]},
            "game": self.game.to_json(),
            "read_error": self.read_error,
            "camera_report": self.camera_report,
            "corrected_report": self.corrected_report,
            "corrected_at": self.corrected_at,
            "version": self.version,
        }


def now() -> str:
    """The current UTC time as stored in the archive (ISO 8601, seconds)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def store_board(
    db: sqlite3.Connection,
    photos: PhotoStore,
    data: bytes,
    info: PhotoInfo,
    reading: BoardReading,
    game: GameInfo = NO_GAME,
) -> int:
    """Archive a photo with its reading (a report or the reader's error); return the id."""
    created = now()
    with photos.lock:
        photos.save(data, info)
        board_id = _insert_board(db, info, reading, game, created)
    return board_id


def _insert_board(
    db: sqlite3.Connection, info: PhotoInfo, reading: BoardReading, game: GameInfo, created: str
) -> int:
    with transaction(db):
        db.execute(
            "INSERT OR IGNORE INTO photos (hash, format, width, height, bytes, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (info.hash, info.format, info.size[0], info.size[1], info.bytes, created),
        )
        cursor = db.execute(
            "INSERT INTO boards (created_at, photo, camera_report, read_error, game)"
            " VALUES (?, ?, ?, ?, ?)",
            (created, info.hash, _dump(reading.report), reading.error,
             json.dumps(game.to_json())),
        )
        board_id = cursor.lastrowid
        assert board_id is not None
        for position, name in enumerate(player_names(game.to_json())):
            db.execute(
                "INSERT INTO board_players (board_id, position, name) VALUES (?, ?, ?)",
                (board_id, position, name),
            )
    return board_id


def score_upload(
    db: sqlite3.Connection, photos: PhotoStore, data: bytes, game: GameInfo = NO_GAME
) -> tuple[int, BoardReading]:
    """Check an uploaded photo, read it and archive it; return (board id, reading).

    Raises
    ------
    vision.errors.PhotoError
        If the upload is not a usable image; nothing is stored then.
    """
    info = inspect_photo(data)
    reading = read_board(data)  # slow: outside any transaction
    return store_board(db, photos, data, info, reading, game), reading


def _dump(report: dict[str, Any] | None) -> str | None:
    return None if report is None else json.dumps(report, allow_nan=False)


def _load(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value: dict[str, Any] = json.loads(text)
    return value


_SELECT = (
    "SELECT b.*, p.format AS photo_format, p.width, p.height"
    " FROM boards b JOIN photos p ON p.hash = b.photo"
)


def _board(row: sqlite3.Row) -> ArchivedBoard:
    return ArchivedBoard(
        id=row["id"],
        created_at=row["created_at"],
        photo=row["photo"],
        photo_format=row["photo_format"],
        photo_size=(row["width"], row["height"]),
        camera_report=_load(row["camera_report"]),
        read_error=row["read_error"],
        corrected_report=_load(row["corrected_report"]),
        corrected_at=row["corrected_at"],
        game=GameInfo.from_json(json.loads(row["game"])),
        version=row["version"],
    )


def get_board(db: sqlite3.Connection, board_id: int) -> ArchivedBoard:
    """The board with id ``board_id``.

    Raises
    ------
    BoardNotFound
    """
    if not 0 < board_id <= _LARGEST_ID:  # SQLite cannot even look such an id up
        raise BoardNotFound(board_id)
    row = db.execute(f"{_SELECT} WHERE b.id = ?", (board_id,)).fetchone()
    if row is None:
        raise BoardNotFound(board_id)
    return _board(row)


def _filters(
    player: str | None, since: dt.date | None, until: dt.date | None
) -> tuple[str, list[str]]:
    """The WHERE clause (or "") and its parameters for the archive's filters."""
    clauses, parameters = [], []
    if player and len(player) > MAX_NAME:
        # No name is that long; and SQLite refuses a LIKE pattern of 50,000 characters.
        clauses.append("0")
    elif player:
        clauses.append(
            "b.id IN (SELECT board_id FROM board_players WHERE name LIKE ? ESCAPE '\\')"
        )
        escaped = player.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        parameters.append(f"%{escaped}%")
    if since:
        clauses.append("b.created_at >= ?")
        parameters.append(since.isoformat())
    if until and until < dt.date.max:  # until the last date there is: no upper bound
        clauses.append("b.created_at < ?")
        parameters.append((until + dt.timedelta(days=1)).isoformat())
    return (f" WHERE {' AND '.join(clauses)}" if clauses else ""), parameters


def list_boards(
    db: sqlite3.Connection,
    *,
    player: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> list[ArchivedBoard]:
    """Boards newest first, optionally only those with a player whose name contains
    ``player`` (any case) and played between the dates ``since`` and ``until`` (inclusive)."""
    where, parameters = _filters(player, since, until)
    rows = db.execute(f"{_SELECT}{where} ORDER BY b.id DESC", parameters).fetchall()
    return [_board(row) for row in rows]


def list_summaries(
    db: sqlite3.Connection,
    *,
    player: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> list[dict[str, Any]]:
    """:func:`summary` of the boards :func:`list_boards` finds, without loading their
    reports (SQLite picks the scores and winners out of the JSON), so that a long
    archive lists quickly."""
    where, parameters = _filters(player, since, until)
    current = "coalesce(b.corrected_report, b.camera_report)"
    rows = db.execute(
        "SELECT b.id, b.created_at, b.photo, b.game, b.read_error,"
        " b.corrected_report IS NOT NULL AS corrected,"
        f" json_extract({current}, '$.scores') AS scores,"
        f" json_extract({current}, '$.winners') AS winners"
        f" FROM boards b{where} ORDER BY b.id DESC",
        parameters,
    ).fetchall()
    return [
        _summary(
            row["id"], row["created_at"], row["photo"],
            GameInfo.from_json(json.loads(row["game"])),
            _load(row["scores"]),
            json.loads(row["winners"]) if row["winners"] else [],
            bool(row["corrected"]), row["read_error"],
        )
        for row in rows
    ]


def iter_boards(db: sqlite3.Connection) -> Iterator[ArchivedBoard]:
    """Every board, oldest first (for the JSON lines export)."""
    for row in db.execute(f"{_SELECT} ORDER BY b.id"):
        yield _board(row)


#: A correction: the new corrected report (None drops the corrections) worked out from
#: the board as it stands.
Correction = Callable[[ArchivedBoard], dict[str, Any] | None]


def correct_board(
    db: sqlite3.Connection,
    board_id: int,
    correction: Correction,
    base_version: int | None = None,
) -> tuple[ArchivedBoard, ArchivedBoard]:
    """Work a correction out from the board as it stands and store it, unless the board
    changed meanwhile; return the board before and after.

    The correction is worked out outside any transaction (an edit may take a second,
    and uploads must not wait for it), so the store checks that the board's version is
    still the one it was worked out from. If it is not, nothing is stored, and the
    correction is not worked out again on the fresh board either: edits name creatures
    by number, and after another change ("remove creature 0") a number may name another
    creature, so an edit redone would silently change the wrong one. With
    ``base_version``, the board must be at that version to begin with.

    Raises
    ------
    BoardNotFound
        If the board is not, or no longer, in the archive.
    BoardChanged
        If the board's version is not ``base_version``, or changed meanwhile.
    """
    before = get_board(db, board_id)
    if base_version is not None and before.version != base_version:
        raise BoardChanged(board_id, base_version)
    report = correction(before)
    return before, save_correction(db, board_id, report, version=before.version)


def save_correction(
    db: sqlite3.Connection,
    board_id: int,
    report: dict[str, Any] | None,
    *,
    version: int | None = None,
) -> ArchivedBoard:
    """Store the corrected report of a board (None drops the corrections), if its
    version is still ``version`` (any version if None).

    Raises
    ------
    BoardNotFound
    BoardChanged
    """
    with transaction(db):
        cursor = db.execute(
            "UPDATE boards SET corrected_report = ?, corrected_at = ?, version = version + 1"
            " WHERE id = ? AND (? IS NULL OR version = ?)",
            (_dump(report), None if report is None else now(), board_id, version, version),
        )
        if cursor.rowcount == 0:
            get_board(db, board_id)  # raises BoardNotFound if it was deleted
            assert version is not None
            raise BoardChanged(board_id, version)
        return get_board(db, board_id)


def save_reading(db: sqlite3.Connection, board_id: int, reading: BoardReading) -> ArchivedBoard:
    """Replace the camera's reading of a board (after reading its photo again).

    Raises
    ------
    BoardNotFound
    """
    with transaction(db):
        cursor = db.execute(
            "UPDATE boards SET camera_report = ?, read_error = ?, version = version + 1"
            " WHERE id = ?",
            (_dump(reading.report), reading.error, board_id),
        )
        if cursor.rowcount == 0:
            raise BoardNotFound(board_id)
        return get_board(db, board_id)


def delete_board(db: sqlite3.Connection, photos: PhotoStore, board_id: int) -> None:
    """Delete a board, and its photo if no other board shows the same photo.

    Raises
    ------
    BoardNotFound
    """
    board = get_board(db, board_id)
    with photos.lock:
        with transaction(db):
            db.execute("DELETE FROM boards WHERE id = ?", (board_id,))
            still_used = db.execute(
                "SELECT 1 FROM boards WHERE photo = ? LIMIT 1", (board.photo,)
            ).fetchone()
            if still_used is None:
                db.execute("DELETE FROM photos WHERE hash = ?", (board.photo,))
        if still_used is None:
            photos.delete(board.photo, board.photo_extension)


def summary(board: ArchivedBoard) -> dict[str, Any]:
    """The short description of a board the archive list and ``GET /api/boards`` show."""
    report = board.report or {}
    return _summary(
        board.id, board.created_at, board.photo, board.game, report.get("scores"),
        list(report.get("winners", [])), board.corrected_report is not None, board.read_error,
    )


def _summary(
    board_id: int,
    created_at: str,
    photo: str,
    game: GameInfo,
    scores: dict[str, Any] | None,
    winners: list[str],
    corrected: bool,
    read_error: str | None,
) -> dict[str, Any]:
    outcome = game_outcome(game, scores, winners) if scores else None
    return {
        "id": board_id,
        "created_at": created_at,
        "photo": photo,
        "players": [p.name for p in game.players],
        "mode": game.mode,
        "winners": winners,
        "scores": scores,
        "winning_player": outcome.winner if outcome else None,
        "all_lose": bool(outcome and outcome.all_lose),
        "solitaire_points": outcome.solitaire.points if outcome and outcome.solitaire else None,
        "corrected": corrected,
        "read_error": read_error,
    }


class PlayersChanged(Exception):
    """A board's players changed since the form that would replace them was loaded."""

    def __init__(self, board_id: int) -> None:
        super().__init__(f"the players of board {board_id} changed since they were shown")
        self.board_id = board_id


def save_game(
    db: sqlite3.Connection, board_id: int, game: GameInfo, was: GameInfo | None = None
) -> ArchivedBoard:
    """Replace a board's players and predictions, if they are still ``was`` (the ones
    the form showed; any when None): two people fixing the names at once must not
    overwrite each other's unseen.

    Raises
    ------
    BoardNotFound
    PlayersChanged
        If the board's players are no longer ``was``.
    """
    with transaction(db):
        row = db.execute("SELECT game FROM boards WHERE id = ?", (board_id,)).fetchone()
        if row is None:
            raise BoardNotFound(board_id)
        if was is not None and GameInfo.from_json(json.loads(row["game"])) != was:
            raise PlayersChanged(board_id)
        db.execute(
            "UPDATE boards SET game = ? WHERE id = ?", (json.dumps(game.to_json()), board_id)
        )
        db.execute("DELETE FROM board_players WHERE board_id = ?", (board_id,))
        for position, name in enumerate(player_names(game.to_json())):
            db.execute(
                "INSERT INTO board_players (board_id, position, name) VALUES (?, ?, ?)",
                (board_id, position, name),
            )
    return get_board(db, board_id)
