"""The archive's SQLite database: one connection per request, versioned schema.

The schema version lives in ``PRAGMA user_version``; :func:`migrate` applies every
step above the file's version in order, each in its own transaction, so an archive
written by an older version of the app is brought up to date when the app starts.
The database runs in WAL mode so that reading the archive never waits for an upload
being stored.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask, current_app, g


def connect(path: str | Path) -> sqlite3.Connection:
    """Open the archive at ``path`` in autocommit mode (transactions are explicit)."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA busy_timeout = 30000")
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block in one write transaction; roll back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# --- schema versions ---------------------------------------------------------------------


def _create_tables(db: sqlite3.Connection) -> None:
    """Version 1: photos by content hash, boards with the camera's and the corrected report."""
    db.execute(
        """CREATE TABLE photos (
            hash TEXT PRIMARY KEY,          -- sha256 of the uploaded bytes
            format TEXT NOT NULL,           -- as decoded: JPEG, PNG, HEIF, ...
            width INTEGER NOT NULL,         -- as a person sees it (EXIF orientation applied)
            height INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE boards (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            photo TEXT NOT NULL REFERENCES photos(hash),
            camera_report TEXT,             -- what the reader saw; NULL if it could not read
            read_error TEXT,                -- why the reader could not read the photo
            corrected_report TEXT,          -- the board after the players' corrections
            corrected_at TEXT,
            game TEXT NOT NULL DEFAULT '{}' -- players and predictions (JSON)
        )"""
    )


def _add_player_index(db: sqlite3.Connection) -> None:
    """Version 2: players in their own table, so the archive can be filtered by player."""
    db.execute(
        """CREATE TABLE board_players (
            board_id INTEGER NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (board_id, position)
        )"""
    )
    db.execute("CREATE INDEX board_players_name ON board_players(name COLLATE NOCASE)")
    db.execute("CREATE INDEX boards_created ON boards(created_at)")
    for row in db.execute("SELECT id, game FROM boards").fetchall():
        for position, name in enumerate(player_names(json.loads(row["game"]))):
            db.execute(
                "INSERT INTO board_players (board_id, position, name) VALUES (?, ?, ?)",
                (row["id"], position, name),
            )


def _add_board_versions(db: sqlite3.Connection) -> None:
    """Version 3: each board counts the changes to its reports, so that a correction
    worked out from one state of the board is never stored over a newer one (two edits
    at once, or a form from a page loaded before another edit)."""
    db.execute("ALTER TABLE boards ADD COLUMN version INTEGER NOT NULL DEFAULT 0")


def player_names(game: object) -> list[str]:
    """The names in a stored ``game`` object (players, or the solitaire player)."""
    if not isinstance(game, dict):
        return []
    names = [p.get("name", "") for p in game.get("players", []) if isinstance(p, dict)]
    return [n for n in names if isinstance(n, str) and n]


#: Step *i* brings a database from version *i* to *i + 1*.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _create_tables,
    _add_player_index,
    _add_board_versions,
)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite3.Connection) -> int:
    """The file's ``PRAGMA user_version``."""
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def migrate(db: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database up to schema version ``target``; return the version it had.

    Raises
    ------
    RuntimeError
        If the file was written by a newer version of the app than this one.
    """
    db.execute("PRAGMA journal_mode = WAL")
    found = schema_version(db)
    if found > SCHEMA_VERSION:
        raise RuntimeError(
            f"the archive has schema version {found}, newer than this app's {SCHEMA_VERSION}"
        )
    for version in range(found, target):
        with transaction(db):
            # Another process may have migrated while we waited for the lock.
            if schema_version(db) != version:
                continue
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
    return found


# --- per request -------------------------------------------------------------------------


def get_db() -> sqlite3.Connection:
    """The request's connection to the archive, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    db: sqlite3.Connection = g.db
    return db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def init_app(app: Flask) -> None:
    """Migrate the archive now and close each request's connection after it."""
    Path(app.config["DATABASE"]).parent.mkdir(parents=True, exist_ok=True)
    db = connect(app.config["DATABASE"])
    try:
        migrate(db)
    finally:
        db.close()
    app.teardown_appcontext(close_db)
