"""Uploaded photos: checked by decoding them, stored once by content hash.

The file name a client sends is never used: a photo is stored as ``<sha256>.<ext>``
with the extension of the format it decoded as, in a folder beside the database.
Beside the original we keep a display copy (JPEG, EXIF orientation applied, at most
:data:`VIEW_SIDE` pixels) that every browser can show, and a small thumbnail.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps
from pillow_heif import register_heif_opener

from vision.errors import PhotoError

register_heif_opener()

#: Largest photo we decode, in pixels (a 108 MP phone photo still fits).
MAX_PIXELS = 120_000_000
#: Smallest side of a photo that can show a board.
MIN_SIDE = 200
#: Longest side of the display copy and the thumbnail.
VIEW_SIDE = 2048
THUMB_SIDE = 360

EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "HEIF": "heic", "WEBP": "webp", "TIFF": "tif"}


@dataclass(frozen=True)
class PhotoInfo:
    """What decoding an upload told us."""

    hash: str
    format: str
    #: (width, height) as a person sees it, EXIF orientation applied.
    size: tuple[int, int]
    bytes: int

    @property
    def extension(self) -> str:
        return EXTENSIONS.get(self.format, "img")


def _open(data: bytes) -> Image.Image:
    """Decode ``data`` fully, or raise PhotoError saying what is wrong with it."""
    if not data:
        raise PhotoError("the file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            if image.width * image.height > MAX_PIXELS:
                raise PhotoError(
                    f"the photo is too large ({image.width}x{image.height} pixels; "
                    f"at most {MAX_PIXELS // 1_000_000} megapixels)"
                )
            image.load()  # decodes every pixel: a truncated file fails here
    except PhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise PhotoError("the photo is too large to decode") from error
    except (OSError, ValueError, SyntaxError) as error:
        raise PhotoError("the file is not an image we can read (JPEG, PNG, HEIC, WebP)") from error
    return image


def inspect_photo(data: bytes) -> PhotoInfo:
    """Check that ``data`` is a whole, decodable photo of a usable size.

    Raises
    ------
    PhotoError
        Not an image, truncated, too small or too large; the message says which.
    """
    image = _open(data)
    upright = ImageOps.exif_transpose(image)
    width, height = upright.size
    if min(width, height) < MIN_SIDE:
        raise PhotoError(
            f"the photo is too small ({width}x{height} pixels; at least {MIN_SIDE} on each side)"
        )
    return PhotoInfo(
        hash=hashlib.sha256(data).hexdigest(),
        format=str(image.format),
        size=(width, height),
        bytes=len(data),
    )


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
        upright = ImageOps.exif_transpose(_open(data)).convert("RGB")
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
