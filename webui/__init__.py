"""The web app: photograph a board, check and correct it, keep an archive of games.

``create_app`` is the application factory (flaskr style). The archive is one SQLite
file in the instance folder with the photos stored by content hash beside it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from webui import api, db, pages, security
from webui.photos import PhotoStore

#: Largest upload accepted, in bytes (a phone photo is 2-15 MB).
MAX_UPLOAD = 40 * 1024 * 1024
#: Largest JSON body the API takes besides a photo upload: a report at the engine's
#: limits (four loops of 5000 points, their fields' outlines) is about 1 MB.
MAX_JSON = 4 * 1024 * 1024


def create_app(config: Mapping[str, Any] | None = None, instance_path: str | None = None) -> Flask:
    """Make the app.

    Parameters
    ----------
    config : mapping, optional
        Settings overriding the defaults (``DATABASE``, ``PHOTOS``, ``MAX_CONTENT_LENGTH``,
        ``MAX_JSON_LENGTH`` (the API's bodies but a photo's), ``SECRET_KEY``, ``TESTING``).
    instance_path : str, optional
        Folder for the archive and the photos (Flask's ``instance/`` by default).
    """
    app = Flask(__name__, instance_path=instance_path, instance_relative_config=True)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "archive.sqlite3"),
        PHOTOS=str(Path(app.instance_path) / "photos"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD,
        MAX_JSON_LENGTH=MAX_JSON,
        MAX_FORM_MEMORY_SIZE=2 * 1024 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if config:
        app.config.from_mapping(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path) / "secret_key")
    app.extensions["photos"] = PhotoStore(app.config["PHOTOS"])
    db.init_app(app)
    security.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    return app


def _secret_key(path: Path) -> str:
    """The instance's session key, made once and kept, so sessions survive a restart."""
    if not path.exists():
        path.write_text(secrets.token_hex(32), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()
