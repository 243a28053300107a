"""Uploaded photos: checked by decoding them, stored once by content hash.

Decoding is :func:`vision.load.load_photo`'s, the same the reader uses, so an upload
accepted here is one the reader can open. The file name a client sends is never used:
a photo is stored as ``<sha256>.<ext>`` with the extension of the format it decoded as,
in a folder beside the database.
Beside the original we keep a display copy (JPEG, EXIF orientation applied, at most
:data:`VIEW_SIDE` pixels) that every browser can show, and a small thumbnail.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from vision.load import load_photo

#: Longest side of the display copy and the thumbnail.
VIEW_SIDE = 2048
THUMB_SIDE = 360

EXTENSIONS = {"jpeg": "jpg", "png": "png", "heic": "heic", "webp": "webp"}


@dataclass(frozen=True)
class PhotoInfo:
    """What decoding an upload told us."""

    hash: str
    #: As :func:`vision.load.load_photo` names it: jpeg, png, webp, heic, ...
    format: str
    #: (width, height) as a person sees it, EXIF orientation applied.
    size: tuple[int, int]
    bytes: int

    @property
    def extension(self) -> str:
        return EXTENSIONS.get(self.format, "img")


def inspect_photo(data: bytes) -> PhotoInfo:
    """Check that ``data`` is a whole, decodable photo of a usable size, by decoding it.

    Raises
    ------
    vision.errors.PhotoError
        Not an image, empty, truncated, too small or too large; the message says which.
    """
    photo = load_photo(data)
    return PhotoInfo(
        hash=hashlib.sha256(data).hexdigest(),
        format=photo.format,
        size=photo.size,
        bytes=len(data),
    )


def upright_image(data: bytes, side: int = VIEW_SIDE) -> Image.Image:
    """The photo upright (EXIF applied) with its long side at most ``side`` pixels."""
    rgb: np.ndarray = load_photo(data, min_working_side=side).rgb
    image = Image.fromarray(rgb)
    image.thumbnail((side, side), Image.Resampling.LANCZOS)
    return image


class PhotoStore:
    """Photos in one folder, named by content hash, written atomically.

    Parameters
    ----------
    folder : path
        Created if missing.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: Held while a photo is stored and recorded, or deleted, so that deleting the
        #: last board of a photo never removes the file of an upload of the same photo.
        self.lock = threading.Lock()

    def path(self, photo_hash: str, variant: str, extension: str = "jpg") -> Path:
        """Path of ``variant`` ("original", "view", "thumb") of a stored photo."""
        if len(photo_hash) != 64 or not all(c in "0123456789abcdef" for c in photo_hash):
            raise ValueError(f"not a photo hash: {photo_hash[:80]!r}")
        if variant == "original":
            name = f"{photo_hash}.{extension}"
        else:
            name = f"{photo_hash}.{variant}.jpg"
        return self.folder / photo_hash[:2] / name

    def save(self, data: bytes, info: PhotoInfo) -> None:
        """Store the photo and its display copies, unless they are already stored."""
        original = self.path(info.hash, "original", info.extension)
        if not original.exists():
            _write_atomically(original, data)
        view, thumb = self.path(info.hash, "view"), self.path(info.hash, "thumb")
        if view.exists() and thumb.exists():
            return
        upright = upright_image(data, VIEW_SIDE)
        for path, side in ((view, VIEW_SIDE), (thumb, THUMB_SIDE)):
            copy = upright.copy()
            copy.thumbnail((side, side), Image.Resampling.LANCZOS)
            buffer = io.BytesIO()
            copy.save(buffer, "JPEG", quality=85 if side == VIEW_SIDE else 80)
            _write_atomically(path, buffer.getvalue())

    def read(self, photo_hash: str, extension: str) -> bytes:
        return self.path(photo_hash, "original", extension).read_bytes()

    def delete(self, photo_hash: str, extension: str) -> None:
        """Remove the photo and its copies (missing files are fine)."""
        for variant in ("original", "view", "thumb"):
            self.path(photo_hash, variant, extension).unlink(missing_ok=True)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary file and rename it, so nobody ever sees half a photo."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
