"""Load a photo: decode it at the working resolution, upright, as 8-bit RGB.

The first stage of the reader. Everything a phone or a folder can hand us goes through
:func:`load_photo`: JPEG (including the MPO variant phones write), PNG, WebP and HEIC,
with the EXIF orientation applied so that the picture is the way a person sees it.

Phone photos have far more pixels than the strings need, so a JPEG is decoded at 1/2,
1/4 or 1/8 of its size straight from its DCT coefficients (libjpeg-turbo's scaled
decoding, through simplejpeg, which also refuses damaged data; Pillow's ``draft`` gives
the same pixels, and decodes a CMYK JPEG, which simplejpeg would turn into RGB its own
way), which is faster than decoding it whole and loses nothing the reader uses; other
formats are decoded whole and box-averaged down. The reduction
stops while the working image's long side is still at least ``min_working_side``.

Everything that is not a usable photo raises :class:`~vision.errors.PhotoError` with
one line saying why: not an image, an empty file, a truncated or damaged file, too
small, or so large that decoding it would be a risk (checked from the header, before
decoding).
"""

from __future__ import annotations

import io
import math
import os
import re
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pillow_heif
import simplejpeg  # type: ignore[import-untyped]
from PIL import Image, UnidentifiedImageError

from vision.errors import PhotoError

__all__ = ["Photo", "load_photo", "MIN_SIZE", "WORKING_SCALES"]

pillow_heif.register_heif_opener()

#: The smallest photo accepted, (long side, short side): below this a string is
#: narrower than a pixel on any board that fills the frame.
MIN_SIZE = (320, 240)

#: Reduction factors tried for the working image, largest first.
WORKING_SCALES = (8, 4, 2, 1)
#: The working resolution's long side is at least this many pixels, where the photo has
#: them: strings stay a few pixels wide.
MIN_WORKING_SIDE = 1800

#: A photo that is decoded whole (PNG, WebP, HEIC: only a JPEG decodes straight to a
#: reduced size) may have at most this many pixels: a 100-megapixel PNG took 14 s and
#: 1.5 GB to read. A 48-megapixel phone HEIC passes; a JPEG may have ``max_pixels``.
MAX_WHOLE_DECODE_PIXELS = 50_000_000

#: A file larger than this is refused before it is read whole: a 120-megapixel JPEG is
#: some 60 MB, a 50-megapixel PNG up to 150 MB.
MAX_FILE_BYTES = 256 << 20

#: The file endings of the photos a folder is read for (the formats above).
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")

#: The message for a file that ends before its picture does.
TRUNCATED = "truncated image: the file ends before the picture does"
#: The brands an HEIC file's first box (``ftyp``) names.
_HEIF_BRANDS = frozenset(
    {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"mif2",
     b"msf1", b"miaf"}
)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: A PNG's last chunk, IEND, whole.
_PNG_END = b"\0\0\0\0IEND\xaeB`\x82"
#: JPEG markers that stand alone, with no length after them: TEM, RST0-7, SOI, EOI (and
#: 0x00, a stuffed 0xFF byte).
_JPEG_STANDALONE = frozenset({0x00, 0x01, *range(0xD0, 0xDA)})
#: Adam7's passes: where each starts (x, y) and its steps (x, y).
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))
#: Pillow's names of the formats, as we report them.
_FORMAT_NAMES = {"JPEG": "jpeg", "MPO": "jpeg", "PNG": "png", "WEBP": "webp", "HEIF": "heic"}
#: Markers (as libjpeg names them) that stray bytes before are no sign of damage: the
#: header's segments (quantisation tables, restart interval, frame, application data,
#: comments), between which some programs leave padding. Before any other (the end of
#: the picture, a restart marker, the next scan or its tables) they are compressed data
#: left over where the decoder lost step in damaged data: every overwritten, inserted
#: or flipped run of bytes tried that libjpeg noticed without a worse warning ended so.
_HARMLESS_STRAY_BEFORE = frozenset(
    ["0xdb", "0xdd", "0xfe"]
    + [f"0xe{digit:x}" for digit in range(16)]
    + [f"0xc{digit:x}" for digit in range(16) if digit not in (4, 8, 12)]
)
#: The formats decoded straight to a reduced size (simplejpeg, or Pillow's ``draft``).
_REDUCED_DECODE = ("JPEG", "MPO")

#: EXIF orientation tag value → the transposition that makes the picture upright
#: (the same table as ``PIL.ImageOps.exif_transpose``).
_ORIENTATION_TAG = 0x0112
_UPRIGHT: dict[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


@dataclass(frozen=True)
class Photo:
    """A decoded photo at working resolution.

    Attributes
    ----------
    rgb : ndarray, shape (H, W, 3), uint8
        The picture, RGB, upright (EXIF orientation applied), at working resolution.
    scale : float
        Original photo pixels per working pixel (1, 2, 4 or 8, or the ``scale`` asked of
        :func:`load_photo`): working pixel ``x`` covers original pixels
        ``[x * scale, (x + 1) * scale)``, so the centre of working pixel ``x`` is at
        ``(x + 0.5) * scale - 0.5`` in the original photo.
    size : tuple of int
        ``(width, height)`` of the original photo as a person sees it (EXIF applied).
    format : str
        ``"jpeg"``, ``"png"``, ``"webp"``, ``"heic"`` or Pillow's name in lower case.
    origin : (x, y) of int
        Where ``rgb`` starts in the whole working image: (0, 0) unless the photo was
        cut to a box (:func:`load_photo`'s ``box``). Working pixel ``x`` of ``rgb`` has
        its centre at ``(x + origin[0] + 0.5) * scale - 0.5`` in the original photo.
    cut : bool
        Whether ``rgb`` is only a part of the photo (cut to a box).
    """

    rgb: np.ndarray
    scale: float
    size: tuple[int, int]
    format: str
    origin: tuple[int, int] = (0, 0)
    cut: bool = False

    @property
    def working_long_side(self) -> int:
        """The long side of the whole photo in working pixels (more than ``rgb``'s if cut)."""
        if not self.cut:
            return int(max(self.rgb.shape[:2]))
        scale = float(self.scale)
        step = decoder_step(scale)
        # As the decoder rounds: a partial last block is a working pixel too.
        decoded = -(-max(self.size) // step)
        if scale == step:
            return decoded
        return _further_side(decoded, scale / step)

    def to_original(self, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        """Points in ``rgb``'s pixels as pixels of the original photo (pixel centres)."""
        (ox, oy), s = self.origin, self.scale
        return [((x + ox + 0.5) * s - 0.5, (y + oy + 0.5) * s - 0.5) for x, y in points]


def load_photo(
    source: bytes | str | os.PathLike[str],
    *,
    min_working_side: int = MIN_WORKING_SIDE,
    max_pixels: int = 120_000_000,
    box: tuple[float, float, float, float] | None = None,
    scale: float | None = None,
) -> Photo:
    """Decode a photo, upright, as 8-bit RGB at a reduced working resolution.

    Parameters
    ----------
    source : bytes, str or path-like
        The file's contents, or its path.
    min_working_side : int, optional
        The working image's long side stays at least this long: the reduction factor
        is the largest of 1, 2, 4, 8 that keeps it (1 when the photo is smaller).
    max_pixels : int, optional
        Photos with more pixels than this are refused before they are decoded.
    box : (left, top, right, bottom), optional
        Keep only this part of the photo (original pixel coordinates, upright, the
        right and bottom ones inclusive; clipped to the photo): the working image is
        cut to the working pixels that hold any of it, and ``origin`` says where they
        were.
    scale : float, optional
        Reduce by this factor (at least 1, any value) instead of the one
        ``min_working_side`` picks: decoded reduced by the largest of 1, 2, 4, 8 not
        above it, then averaged down the rest of the way.

    Returns
    -------
    Photo

    Raises
    ------
    PhotoError
        The file cannot be read, is empty, is not an image, is truncated or damaged,
        is smaller than 320×240 or larger than ``max_pixels`` (than
        :data:`MAX_WHOLE_DECODE_PIXELS` if it is not a JPEG, which only is decoded
        reduced).
    ValueError
        ``min_working_side`` or ``max_pixels`` is not positive, ``box`` is empty, or
        ``scale`` is below 1.
    """
    if min_working_side < 1 or max_pixels < 1:
        raise ValueError("min_working_side and max_pixels must be positive")
    if scale is not None and not (math.isfinite(scale) and scale >= 1):
        raise ValueError(f"scale must be at least 1, not {scale}")
    scale = None if scale is None else float(scale)
    data = _read_bytes(source)
    image = _open(data, max_pixels)
    if scale is None or (scale.is_integer() and int(scale) in WORKING_SCALES):
        step = working_scale(image.size, min_working_side) if scale is None else int(scale)
        return _load_reduced(data, image, step, box)
    # Any other factor: decoded at the nearest smaller step, the rest averaged.
    whole = _load_reduced(data, image, decoder_step(scale), None)
    return _reduce_further(whole, scale, box)


def _load_reduced(
    data: bytes, image: Image.Image, scale: int, box: tuple[float, float, float, float] | None
) -> Photo:
    """:func:`load_photo` for a reduction ``scale`` of :data:`WORKING_SCALES`."""
    width, height = image.size
    fmt = image.format or "unknown"
    if fmt == "PNG":
        _check_png_chunks(data)
    decoded = _decode_jpeg(data, (width, height), scale) if fmt in _REDUCED_DECODE else None
    if decoded is None:
        # Decoded before its EXIF is read: a PNG's may follow the picture, and Pillow
        # decodes the picture to find it, saying nothing of damage there (a PNG damaged
        # halfway was read as half a board, the rest black).
        image = _decode(image, scale)
    orientation = _orientation(image)  # before reduce(), which drops the EXIF
    stored_width = width
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    origin = (0, 0)
    if decoded is not None:
        # Turned and cut as views of the decoded pixels: only the part kept is copied.
        rgb = _upright(decoded, orientation)
        if box is not None:
            working_size = (rgb.shape[1], rgb.shape[0])
            left, top, right, bottom = _working_box(box, scale, working_size)
            rgb, origin = rgb[top:bottom, left:right], (left, top)
        rgb = _copied(rgb)
    else:
        image = _reduce(image, scale, stored_width)
        upright = _UPRIGHT.get(orientation)
        if upright is not None:
            image = image.transpose(upright)
        if box is not None:
            # The working pixels that hold any of the box.
            left, top, right, bottom = _working_box(box, scale, image.size)
            image, origin = image.crop((left, top, right, bottom)), (left, top)
        rgb = _to_rgb8(image)
    name = _FORMAT_NAMES.get(fmt, fmt.lower())
    return Photo(
        rgb=rgb,
        scale=float(scale),
        size=(width, height),
        format=name,
        origin=origin,
        cut=box is not None,
    )


def _reduce_further(
    photo: Photo, scale: float, box: tuple[float, float, float, float] | None
) -> Photo:
    """``photo`` (whole, reduced by one of :data:`WORKING_SCALES`) averaged down to a
    reduction ``scale``, then cut to ``box``.

    OpenCV's area average given the factor (not the size) maps pixel ``x`` of the result
    onto ``[x * f, (x + 1) * f)`` of its input, so the result's pixels keep the places
    :class:`Photo` says they have.
    """
    factor = scale / photo.scale
    rgb = cv2.resize(photo.rgb, None, fx=1 / factor, fy=1 / factor, interpolation=cv2.INTER_AREA)
    origin = (0, 0)
    if box is not None:
        left, top, right, bottom = _working_box(box, scale, (rgb.shape[1], rgb.shape[0]))
        rgb, origin = np.ascontiguousarray(rgb[top:bottom, left:right]), (left, top)
    return replace(photo, rgb=rgb, scale=float(scale), origin=origin, cut=box is not None)


def decoder_step(scale: float) -> int:
    """The largest of :data:`WORKING_SCALES` not above ``scale`` (at least 1)."""
    return next(s for s in WORKING_SCALES if s <= scale)


def _further_side(side: int, factor: float) -> int:
    """A side of ``side`` pixels averaged down by ``factor``, as OpenCV rounds it."""
    return round(side * (1 / factor))


def photos_in(folder: str | os.PathLike[str]) -> list[Path]:
    """The photos of a folder by name: files with a photo's ending (``PHOTO_SUFFIXES``),
    not ``*.overlay.*`` drawings, and links to nothing (so that they are reported as
    unreadable, not passed over in silence)."""
    return sorted(
        p
        for p in Path(folder).iterdir()
        if (p.is_file() or (p.is_symlink() and not p.exists()))
        and p.suffix.lower() in PHOTO_SUFFIXES
        and ".overlay." not in p.name
    )


def _working_box(
    box: tuple[float, float, float, float], scale: float, working_size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The box (original pixels) as working pixels, clipped; at least one pixel."""
    if not all(math.isfinite(v) for v in box) or box[2] <= box[0] or box[3] <= box[1]:
        raise ValueError(f"box must be (left, top, right, bottom) with right > left, not {box}")
    w, h = working_size
    left = min(max(int(math.floor(box[0] / scale)), 0), w - 1)
    top = min(max(int(math.floor(box[1] / scale)), 0), h - 1)
    right = min(max(int(math.ceil((box[2] + 1) / scale)), left + 1), w)
    bottom = min(max(int(math.ceil((box[3] + 1) / scale)), top + 1), h)
    return left, top, right, bottom


def working_scale(size: tuple[int, int], min_working_side: int) -> int:
    """The largest of :data:`WORKING_SCALES` that keeps the long side ≥ ``min_working_side``.

    >>> working_scale((4032, 3024), 1800)
    2
    >>> working_scale((1000, 800), 1800)
    1
    """
    long_side = max(size)
    return next(s for s in WORKING_SCALES if s == 1 or long_side // s >= min_working_side)


def _read_bytes(source: bytes | str | os.PathLike[str]) -> bytes:
    # The messages do not name the file: the caller knows it and says it once.
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    else:
        path = Path(source)
        try:
            with path.open("rb") as file:
                # A byte more than the largest file read tells a larger one (or a device
                # that never ends, /dev/zero) without reading all of it.
                data = file.read(MAX_FILE_BYTES + 1)
        except IsADirectoryError as error:
            raise PhotoError("a folder, not a photo") from error
        except OSError as error:
            raise PhotoError(f"cannot read the file: {error.strerror or error}") from error
    if not data:
        raise PhotoError("an empty file, not an image")
    if len(data) > MAX_FILE_BYTES:
        raise PhotoError(f"file too large: over {MAX_FILE_BYTES >> 20} MB, more than a photo")
    return data


def _open(data: bytes, max_pixels: int) -> Image.Image:
    """Open the image and check its header: format, size; nothing is decoded yet."""
    with warnings.catch_warnings():
        # Pillow warns about large images (we check max_pixels below) and about damaged
        # metadata (harmless here); warnings must not reach the user's terminal.
        warnings.simplefilter("ignore")
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError as error:
            raise PhotoError(f"image too large to decode safely ({_one_line(error)})") from error
        except UnidentifiedImageError as error:
            why = _why_unopened(data)
            raise PhotoError(why or "not an image (the file's format is not recognised)") from error
        except Exception as error:  # noqa: BLE001 - format plugins raise many kinds
            why = _why_unopened(data)
            raise PhotoError(why or f"not a readable image: {_one_line(error)}") from error
    if image.format not in _FORMAT_NAMES:
        # A GIF, BMP or TIFF opens too, but no phone takes one, and a folder's are not
        # read (PHOTO_SUFFIXES): refused alike, wherever it comes from.
        raise PhotoError(
            f"not a photo format read here: {image.format or 'unknown'} "
            "(JPEG, PNG, WebP or HEIC)"
        )
    width, height = image.size
    if width * height > max_pixels:
        raise PhotoError(
            f"image too large: {width}×{height} is {_megapixels(width * height)} megapixels, "
            f"more than {max_pixels / 1e6:.0f}"
        )
    fmt = image.format or "unknown"
    if fmt not in _REDUCED_DECODE and width * height > MAX_WHOLE_DECODE_PIXELS:
        raise PhotoError(
            f"image too large: {width}×{height} is {_megapixels(width * height)} megapixels; "
            f"a {_FORMAT_NAMES.get(fmt, fmt.lower()).upper()} photo is decoded "
            f"whole and may have at most {MAX_WHOLE_DECODE_PIXELS / 1e6:.0f} megapixels "
            f"(a JPEG up to {max_pixels / 1e6:.0f})"
        )
    if max(width, height) < MIN_SIZE[0] or min(width, height) < MIN_SIZE[1]:
        raise PhotoError(
            f"image too small: {width}×{height}, at least {MIN_SIZE[0]}×{MIN_SIZE[1]} needed"
        )
    return image


def _megapixels(pixels: int) -> str:
    """Megapixels to three figures: 50.4 over a limit of 50 is not "50"."""
    return f"{pixels / 1e6:.3g}"


def _check_png_chunks(data: bytes) -> None:
    """Refuse a PNG whose picture data (its IDAT chunks) fails its checksums, runs past
    the file's end or holds fewer rows than its header gives.

    Pillow checks no checksum of the picture's data, and takes a picture whose data
    ends early with the rest black, without a word: a PNG damaged or cut short would be
    read as part of a board. (A PNG cut in its header, which Pillow cannot open, is
    named truncated here too.) Other chunks are Pillow's to judge (it checks those before
    the picture and reads none after it), and a file that ends after its picture's last
    chunk, without IEND, holds the whole picture. The data is inflated only until it
    holds the whole picture (Pillow reads no further: a bomb's zeros beyond it cost
    nothing), a slice at a time.
    """
    view = memoryview(data)  # chunks checked in place, not copied
    inflate = zlib.decompressobj()
    needed = inflated = 0
    position = len(_PNG_SIGNATURE)
    while position + 8 <= len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        end = position + 8 + length
        if end + 4 > len(data):
            if data.endswith(_PNG_END):  # the file is whole: a length is damaged
                raise PhotoError("damaged image: a chunk of the PNG runs past its end")
            raise PhotoError(TRUNCATED)
        kind = data[position + 4 : position + 8]
        if kind == b"IEND":
            break
        if kind == b"IHDR":
            needed = _png_picture_bytes(data[position + 8 : end])
        if kind == b"IDAT":
            if zlib.crc32(view[position + 4 : end]) != int.from_bytes(data[end : end + 4], "big"):
                raise PhotoError("damaged image: the PNG's picture data fails its checksum")
            inflated += _inflated_size(inflate, view[position + 8 : end], needed - inflated)
            if inflated >= needed:
                return
        position = end + 4
    if not needed:  # the file ends before its header does
        raise PhotoError(TRUNCATED)
    if inflated < needed:
        raise PhotoError("truncated image: the PNG's picture data ends before its last row")


def _inflated_size(inflate: Any, compressed: memoryview, wanted: int) -> int:
    """How many bytes ``compressed`` inflates to, or at least ``wanted``, whichever is
    fewer: fed 64 kB at a time, and each piece's output taken a megabyte at a time, so
    neither a long chunk nor a bomb is held whole."""
    size = 0
    try:
        for start in range(0, len(compressed), 1 << 16):
            size += len(inflate.decompress(compressed[start : start + (1 << 16)], 1 << 20))
            while inflate.unconsumed_tail and size < wanted:
                size += len(inflate.decompress(inflate.unconsumed_tail, 1 << 20))
            if size >= wanted:
                break
    except zlib.error as error:
        raise PhotoError(f"damaged image: the PNG's picture data: {_one_line(error)}") from error
    return size


def _png_picture_bytes(header: bytes) -> int:
    """How many bytes a PNG's picture inflates to, by its header chunk's data: each
    row's filter byte and pixels, in each of the seven passes of an interlaced one."""
    if len(header) < 13:
        return 0  # Pillow refuses such a header
    width = int.from_bytes(header[0:4], "big")
    height = int.from_bytes(header[4:8], "big")
    depth, colour_type, interlaced = header[8], header[9], header[12]
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour_type, 0)
    bits = channels * depth
    passes = _ADAM7 if interlaced else ((0, 0, 1, 1),)
    total = 0
    for x0, y0, dx, dy in passes:
        columns = max(0, -(-(width - x0) // dx))
        rows = max(0, -(-(height - y0) // dy))
        if columns and rows:
            total += rows * (1 + -(-(columns * bits) // 8))
    return total


def _why_unopened(data: bytes) -> str | None:
    """What is wrong with a file of a photo's format that Pillow could not open, in
    words: that it is cut short, or how it is damaged (Pillow says "could not create
    decoder object", "Truncated File Read", or that it knows no such format); None
    where that says no more."""
    if data.startswith(_PNG_SIGNATURE):
        try:
            _check_png_chunks(data)
        except PhotoError as error:
            return str(error)
        return None
    if data.startswith(b"\xff\xd8"):
        return TRUNCATED if _jpeg_header_ends_early(data) else None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        # The RIFF header gives the length of all that follows it.
        if len(data) < 8 + int.from_bytes(data[4:8], "little"):
            return TRUNCATED
        return "damaged image: the WebP data cannot be decoded"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        if _boxes_run_past_end(data):
            return TRUNCATED
        try:
            pillow_heif.open_heif(io.BytesIO(data))
        except Exception as error:  # noqa: BLE001 - libheif's errors are ValueErrors, mostly
            message = _one_line(error)
            if "end of file" in message.lower():
                return TRUNCATED
            return f"damaged image: {message}"
    return None


def _jpeg_header_ends_early(data: bytes) -> bool:
    """Whether a JPEG's header segments, by the lengths they give, run past the end of
    ``data`` before its picture's data begins (SOS), and the file does not end as a
    JPEG does (then a length is damaged)."""
    if data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return False
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            return False  # not a segment: damaged, not cut short
        marker = data[position + 1]
        if marker == 0xFF:  # a fill byte before the marker
            position += 1
        elif marker == 0xDA:
            return False
        elif marker in _JPEG_STANDALONE:
            position += 2
        elif marker < 0xC0:
            return False  # no marker: damaged, or no JPEG
        else:
            position += 2 + int.from_bytes(data[position + 2 : position + 4], "big")
    return True


def _boxes_run_past_end(data: bytes) -> bool:
    """Whether the last of an ISO media file's (HEIC's) top-level boxes, by the sizes
    their headers give, runs past the end of ``data``."""
    position = 0
    while position + 8 <= len(data):
        size = int.from_bytes(data[position : position + 4], "big")
        if size == 1:  # the size follows the type, in 64 bits
            if position + 16 > len(data):
                return True
            size = int.from_bytes(data[position + 8 : position + 16], "big")
        elif size == 0:  # the box runs to the end of the file
            return False
        if size < 8:
            return False  # not a box header: damaged, not cut short
        position += size
    return position > len(data) or 0 < len(data) - position < 8


def _decode_jpeg(data: bytes, size: tuple[int, int], scale: int) -> np.ndarray | None:
    """A JPEG's pixels as RGB, reduced by ``scale`` straight from its DCT, or None
    where Pillow is to decode it (a CMYK JPEG, or one simplejpeg cannot decode).

    Damaged or cut-short data is refused. libjpeg decodes damaged data without an
    error: it warns ("Corrupt JPEG data: ...") and paints what it could not decode one
    flat colour, so a photo damaged halfway would be read as half a board. Pillow does
    not pass the warnings on; simplejpeg, the same libjpeg-turbo with the same settings
    (the same pixels as Pillow's ``draft``, measured), raises on them, and they are
    refused but for stray bytes between the header's segments
    (:data:`_HARMLESS_STRAY_BEFORE`). simplejpeg turns CMYK into RGB its own way: a
    CMYK JPEG is only checked (at 1/8 size), and decoded by Pillow.
    """
    width, height = size
    try:
        colorspace = simplejpeg.decode_jpeg_header(data)[2]
        own = colorspace not in ("CMYK", "YCCK")
        factor = scale if own else 8
        rgb = simplejpeg.decode_jpeg(
            data,
            colorspace="RGB",
            strict=True,
            min_width=math.ceil(width / factor),
            min_height=math.ceil(height / factor),
        )
    except MemoryError as error:
        raise PhotoError("image too large to decode in the memory available") from error
    except ValueError as error:
        message = _one_line(error)
        if message.lower().startswith("premature end of jpeg file"):
            raise PhotoError(TRUNCATED) from error
        stray = re.search(r"extraneous bytes before marker (0x[0-9a-f]{2})", message)
        if stray is not None and stray.group(1) in _HARMLESS_STRAY_BEFORE:
            return None  # Pillow decodes it as simplejpeg would have
        if message.lower().startswith("corrupt jpeg data"):
            raise PhotoError(f"damaged image: {message}") from error
        return None  # not decodable by simplejpeg (an unusual subsampling, say): Pillow
    return np.asarray(rgb) if own else None


def _decode(image: Image.Image, scale: int) -> Image.Image:
    """Decode the pixels, reduced by ``scale`` (a JPEG straight from its DCT)."""
    width, height = image.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if scale > 1 and image.format in _REDUCED_DECODE:
                # draft() picks the largest DCT scaling that keeps at least this size,
                # which is exactly 1/scale (rounded up) for these sizes.
                image.draft("RGB", (width // scale, height // scale))
            image.load()
        except MemoryError as error:
            raise PhotoError("image too large to decode in the memory available") from error
        except Exception as error:  # noqa: BLE001 - decoders raise many kinds on bad data
            message = _one_line(error)
            if "truncated" in message.lower() or "end of file" in message.lower():
                raise PhotoError(TRUNCATED) from error
            raise PhotoError(f"damaged image: {message}") from error
    return image


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _reduce(image: Image.Image, scale: int, original_width: int) -> Image.Image:
    """Average ``scale`` × ``scale`` boxes, unless the decoder has already reduced it."""
    done = round(original_width / image.size[0])
    if done >= scale:
        return image
    if image.mode in ("P", "PA"):
        # Pillow cannot average a palette's indices: its colours are averaged (with
        # their transparency, put on white after, as a small one's is).
        transparent = image.mode == "PA" or "transparency" in image.info
        image = image.convert("RGBA" if transparent else "RGB")
    elif image.mode == "1":
        image = image.convert("L")
    elif _is_wide_grey(image.mode):
        # Scaled to 8 bits as a small one is, and kept grey: made RGB whole first, a
        # 48-megapixel 16-bit PNG took 1.2 GB.
        image = Image.fromarray(_grey_8_bits(image))
    return image.reduce(scale // done)


def _upright(rgb: np.ndarray, orientation: int) -> np.ndarray:
    """``rgb`` turned as EXIF ``orientation`` says (as :data:`_UPRIGHT` does with
    Pillow), as a view of it."""
    if orientation in (5, 6, 7, 8):
        # Each of these is a turn of the picture over its main diagonal, then a flip.
        rgb = rgb.transpose(1, 0, 2)
    flips = {2: (1,), 3: (0, 1), 4: (0,), 5: (), 6: (1,), 7: (0, 1), 8: (0,)}.get(orientation, ())
    return np.flip(rgb, axis=flips) if flips else rgb


def _copied(view: np.ndarray) -> np.ndarray:
    """An (H, W, 3) uint8 view that :func:`_upright` turned (and perhaps cut) copied
    into memory of its own, row after row; ``view`` itself where it is so already.

    NumPy copies a turned or mirrored view of a colour photo pixel by pixel, across
    the rows it reads (10-25 ms for a photo at half size); OpenCV turns and mirrors it
    in blocks (2-8 ms): the view is copied the way it is stored, then mirrored and
    turned by OpenCV.
    """
    if view.flags.c_contiguous or view.size == 0:
        return np.ascontiguousarray(view)
    turned = abs(view.strides[0]) < abs(view.strides[1])
    as_stored = view.transpose(1, 0, 2) if turned else view
    flip_rows, flip_columns = as_stored.strides[0] < 0, as_stored.strides[1] < 0
    plain = np.ascontiguousarray(
        as_stored[:: -1 if flip_rows else 1, :: -1 if flip_columns else 1]
    )
    if flip_rows or flip_columns:
        # OpenCV's codes: 0 mirrors the rows' order, 1 each row, -1 both.
        plain = cv2.flip(plain, -1 if flip_rows and flip_columns else 0 if flip_rows else 1)
    return np.asarray(cv2.transpose(plain) if turned else plain)


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation (1–8), 1 when there is none or it is not valid."""
    try:
        value = image.getexif().get(_ORIENTATION_TAG, 1)
    except (OSError, SyntaxError, ValueError):  # a damaged EXIF block is not fatal
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _to_rgb8(image: Image.Image) -> np.ndarray:
    """8-bit RGB: grey, 16-bit, palette, CMYK converted, transparency put on white."""
    mode = image.mode
    if _is_wide_grey(mode):
        grey = _grey_8_bits(image)
        return np.ascontiguousarray(np.repeat(grey[:, :, None], 3, axis=2))
    if mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "PA", "La", "RGBa"):
        image = image.convert("RGBA")
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image)
    if image.mode != "RGB":
        image = image.convert("RGB")
    return np.asarray(image, dtype=np.uint8).copy()


def _is_wide_grey(mode: str) -> bool:
    """Whether Pillow's ``mode`` is grey of more than 8 bits (16-bit, 32-bit or float)."""
    return mode.startswith("I") or mode == "F"


#: Rows scaled at a time by :func:`_grey_8_bits` where it cannot look each value up.
_GREY_BAND_ROWS = 256


def _grey_8_bits(image: Image.Image) -> np.ndarray:
    """A grey picture of more than 8 bits as 8-bit grey, scaled from 65535 to 255 where
    it is 16-bit or holds values above 255 (Pillow's convert() would clip, not scale).

    A 16-bit picture is scaled through a table of its 65536 values, anything else a band
    of rows at a time: scaled whole in 64-bit floats, a 48-megapixel PNG took 1.2 GB and
    2 s.
    """
    values = np.asarray(image)
    low, high = (values.min(), values.max()) if values.size else (0, 0)
    top = 65535.0 if image.mode.startswith("I;16") or high > 255 else 255.0
    if np.issubdtype(values.dtype, np.integer) and low >= 0 and high <= 65535:
        table = np.clip(np.rint(np.arange(65536) * (255.0 / top)), 0, 255).astype(np.uint8)
        grey_values: np.ndarray = table[values]
        return grey_values
    grey = np.empty(values.shape, dtype=np.uint8)
    for start in range(0, values.shape[0], _GREY_BAND_ROWS):
        band = values[start : start + _GREY_BAND_ROWS].astype(np.float64)
        grey[start : start + _GREY_BAND_ROWS] = np.clip(np.rint(band * (255.0 / top)), 0, 255)
    return grey
