"""Score a folder of photos into an empty archive, so a newcomer sees real boards at once."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from tqdm import tqdm

from vision.errors import PhotoError
from vision.load import photos_in
from webui import archive
from webui.db import connect


def seed_archive(app: Flask, folder: str | Path) -> int:
    """Read every photo in ``folder`` into the archive, if the archive holds no board yet.

    Returns
    -------
    int
        How many boards were added (0 when the archive already had boards).

    Raises
    ------
    FileNotFoundError
        If ``folder`` is not a folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder of photos")
    photos = photos_in(folder)
    db = connect(app.config["DATABASE"])
    try:
        if db.execute("SELECT 1 FROM boards LIMIT 1").fetchone() is not None:
            return 0
        added = 0
        for path in tqdm(photos, desc="scoring the sample photos", unit="photo"):
            try:
                archive.score_upload(db, app.extensions["photos"], path.read_bytes())
            except PhotoError as error:
                tqdm.write(f"skipped {path.name}: {error}")
                continue
            except OSError as error:  # a link to nothing, a file it may not read
                tqdm.write(f"skipped {path.name}: {error.strerror or error}")
                continue
            added += 1
        return added
    finally:
        db.close()
