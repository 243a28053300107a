"""Loading photos: every format upright as 8-bit RGB, and a clear error for bad files."""

from __future__ import annotations

import functools
import io
import struct
import tracemalloc
import warnings
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

import vision.load
from vision.errors import PhotoError
from vision.load import _UPRIGHT, _copied, _upright, load_photo, working_scale

#: Stored picture → upright picture for each EXIF orientation (inverse of the viewer's
#: transposition: the two rotations swap, the flips undo themselves).
STORED_FROM_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


@functools.cache
def pattern(width: int, height: int) -> np.ndarray:
    """A smooth, asymmetric RGB picture: a wrong rotation or flip changes it a lot."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    red = 255 * x / width
    green = 255 * y / height
    blue = 127 + 100 * np.sin(x / width * 3 + y / height * 5)
    rgb = np.stack([red, green, blue], axis=2)
    # A bright square near the top-left corner, far from the middle.
    rgb[height // 10 : height // 4, width // 12 : width // 5] = (250, 250, 40)
    picture = np.clip(rgb, 0, 255).astype(np.uint8)
    picture.flags.writeable = False  # shared between tests through the cache
    return picture


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def with_orientation(upright: Image.Image, orientation: int) -> tuple[Image.Image, bytes]:
    """The picture as a camera would store it for ``orientation``, and that EXIF block."""
    stored = upright if orientation == 1 else upright.transpose(STORED_FROM_UPRIGHT[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    return stored, exif.tobytes()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def fake_png_header(width: int, height: int) -> bytes:
    """A PNG claiming ``width`` × ``height``, cut off after a few rows of pixel data."""
    header = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    rows = zlib.compressobj().compress(bytes(3 * width + 1) * 4)  # an unfinished stream
    return b"\x89PNG\r\n\x1a\n" + header + png_chunk(b"IDAT", rows)


def png_of_half_a_picture(width: int, height: int) -> bytes:
    """A PNG whose every chunk is sound but whose picture data holds only half the rows
    its header gives (Pillow decodes the rest black)."""
    header = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    rows = b"".join(b"\0" + row.tobytes() for row in pattern(width, height)[: height // 2])
    return (b"\x89PNG\r\n\x1a\n" + header + png_chunk(b"IDAT", zlib.compress(rows))
            + png_chunk(b"IEND", b""))


def fake_jpeg_size(jpeg: bytes, width: int, height: int) -> bytes:
    """``jpeg`` with its frame header (SOF0) changed to claim ``width`` × ``height``."""
    at = jpeg.index(b"\xff\xc0")
    # SOFn: marker, length (2), precision (1), height (2), width (2), ...
    return jpeg[: at + 5] + struct.pack(">HH", height, width) + jpeg[at + 9 :]


def damaged_in_the_middle(jpeg: bytes) -> bytes:
    """``jpeg`` with 2 kB of its compressed pixels in the middle overwritten by bytes
    that are never 0xFF: no marker, only data libjpeg loses step in (and warns)."""
    middle = len(jpeg) // 2
    return jpeg[:middle] + bytes(i * 37 % 255 for i in range(2048)) + jpeg[middle + 2048 :]


# --- sizes and reduction ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "min_side", "expected"),
    [
        ((4032, 3024), 1800, 2),
        ((4032, 3024), 1000, 4),
        ((4032, 3024), 500, 8),
        ((4032, 3024), 4032, 1),
        ((4032, 3024), 5000, 1),
        ((3024, 4032), 1800, 2),
        ((2000, 1500), 1800, 1),
        ((1000, 800), 1800, 1),
    ],
)
def test_working_scale_keeps_the_long_side(
    size: tuple[int, int], min_side: int, expected: int
) -> None:
    assert working_scale(size, min_side) == expected


def test_a_large_jpeg_is_decoded_reduced_and_matches_a_box_average() -> None:
    rgb = pattern(4032, 3024)
    data = encode(Image.fromarray(rgb), "JPEG", quality=95)
    photo = load_photo(data)
    assert photo.scale == 2.0
    assert photo.size == (4032, 3024)
    assert photo.format == "jpeg"
    assert photo.rgb.shape == (1512, 2016, 3) and photo.rgb.dtype == np.uint8
    expected = cv2.resize(rgb, (2016, 1512), interpolation=cv2.INTER_AREA)
    assert np.abs(photo.rgb.astype(int) - expected).mean() < 2.0


def test_min_working_side_sets_the_reduction() -> None:
    data = encode(Image.fromarray(pattern(2400, 1600)), "JPEG", quality=90)
    assert load_photo(data, min_working_side=1800).rgb.shape == (1600, 2400, 3)
    assert load_photo(data, min_working_side=1200).rgb.shape == (800, 1200, 3)
    quarter = load_photo(data, min_working_side=600)
    assert quarter.rgb.shape == (400, 600, 3) and quarter.scale == 4.0
    assert quarter.size == (2400, 1600)


def test_a_large_png_is_box_averaged_to_the_working_size() -> None:
    rgb = pattern(1600, 1200)
    photo = load_photo(encode(Image.fromarray(rgb), "PNG"), min_working_side=800)
    assert photo.scale == 2.0 and photo.rgb.shape == (600, 800, 3)
    expected = cv2.resize(rgb, (800, 600), interpolation=cv2.INTER_AREA)
    assert np.abs(photo.rgb.astype(int) - expected).max() <= 1


def test_bytes_and_path_give_the_same_photo(tmp_path: Path) -> None:
    data = encode(Image.fromarray(pattern(640, 480)), "JPEG")
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    from_path, from_str, from_bytes = load_photo(path), load_photo(str(path)), load_photo(data)
    assert np.array_equal(from_path.rgb, from_bytes.rgb)
    assert np.array_equal(from_str.rgb, from_bytes.rgb)


# --- formats and pixel types --------------------------------------------------------------


def test_grey_png_becomes_rgb_with_the_same_values() -> None:
    grey = pattern(640, 480)[:, :, 1]
    photo = load_photo(encode(Image.fromarray(grey, mode="L"), "PNG"))
    assert photo.rgb.shape == (480, 640, 3)
    for channel in range(3):
        assert np.array_equal(photo.rgb[:, :, channel], grey)


def test_16_bit_grey_png_is_rescaled_not_clipped(tmp_path: Path) -> None:
    deep = (np.linspace(0, 65535, 640)[None, :] * np.ones((480, 1))).astype(np.uint16)
    path = tmp_path / "deep.png"
    assert cv2.imwrite(str(path), deep)
    photo = load_photo(path)
    expected = np.rint(deep / 257.0).astype(np.uint8)
    assert np.abs(photo.rgb[:, :, 0].astype(int) - expected).max() <= 1
    assert photo.rgb[:, -1].min() >= 254  # the brightest column stays white, not clipped low
    assert photo.rgb[:, 320].mean() == pytest.approx(127.5, abs=1.5)


def test_16_bit_colour_png_keeps_its_colours(tmp_path: Path) -> None:
    rgb = pattern(640, 480)
    deep_bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR).astype(np.uint16) * 257
    path = tmp_path / "deep_colour.png"
    assert cv2.imwrite(str(path), deep_bgr)
    photo = load_photo(path)
    assert np.abs(photo.rgb.astype(int) - rgb).max() <= 1


def test_alpha_png_is_put_on_white() -> None:
    rgba = np.zeros((480, 640, 4), dtype=np.uint8)
    rgba[:, :, 0] = 200  # red everywhere,
    rgba[:, :320, 3] = 255  # opaque on the left, transparent on the right
    photo = load_photo(encode(Image.fromarray(rgba, mode="RGBA"), "PNG"))
    assert photo.rgb[:, :320].tolist() == [[[200, 0, 0]] * 320] * 480
    assert (photo.rgb[:, 320:] == 255).all()


def test_palette_png_with_transparency() -> None:
    paletted = Image.fromarray(pattern(640, 480)).quantize(16)
    paletted.info["transparency"] = 0
    photo = load_photo(encode(paletted, "PNG", transparency=0))
    expected = np.asarray(paletted.convert("RGBA"))
    opaque = expected[:, :, 3] == 255
    assert opaque.any() and (~opaque).any()
    assert np.array_equal(photo.rgb[opaque], expected[opaque][:, :3])
    assert (photo.rgb[~opaque] == 255).all()


def test_lossless_webp_is_exact() -> None:
    rgb = pattern(640, 480)
    photo = load_photo(encode(Image.fromarray(rgb), "WEBP", lossless=True))
    assert photo.format == "webp"
    assert np.array_equal(photo.rgb, rgb)


def test_heic_is_read_upright() -> None:
    upright = Image.fromarray(pattern(640, 480))
    stored, exif = with_orientation(upright, 6)
    photo = load_photo(encode(stored, "HEIF", quality=95, exif=exif))
    assert photo.format == "heic"
    assert photo.size == (640, 480)
    assert np.abs(photo.rgb.astype(int) - np.asarray(upright)).mean() < 3.0


def test_cmyk_jpeg_becomes_rgb() -> None:
    rgb = pattern(640, 480)
    photo = load_photo(encode(Image.fromarray(rgb).convert("CMYK"), "JPEG", quality=95))
    assert photo.rgb.shape == (480, 640, 3)
    assert np.abs(photo.rgb.astype(int) - rgb).mean() < 4.0


# --- EXIF orientation ---------------------------------------------------------------------


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_gives_the_upright_pixels(orientation: int) -> None:
    upright = Image.fromarray(pattern(640, 480))
    stored, exif = with_orientation(upright, orientation)
    photo = load_photo(encode(stored, "PNG", exif=exif))
    assert photo.size == (640, 480)
    assert np.array_equal(photo.rgb, np.asarray(upright))


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_exif_rotated_jpeg_matches_the_upright_jpeg(orientation: int) -> None:
    # 4032 × 3024 so that the reduced (DCT-scaled) decoding is exercised too.
    upright = Image.fromarray(pattern(4032, 3024))
    stored, exif = with_orientation(upright, orientation)
    rotated = load_photo(encode(stored, "JPEG", quality=95, subsampling=0, exif=exif))
    straight = load_photo(encode(upright, "JPEG", quality=95, subsampling=0))
    assert rotated.size == straight.size == (4032, 3024)
    assert rotated.rgb.shape == straight.rgb.shape == (1512, 2016, 3)
    assert np.abs(rotated.rgb.astype(int) - straight.rgb).mean() < 1.0


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("min_side", [1280, 640, 160])
def test_a_jpeg_has_pillows_pixels_upright(orientation: int, min_side: int) -> None:
    # JPEGs are decoded by simplejpeg (which refuses damaged data), turned and cut as
    # arrays: the pixels must be those Pillow decodes and turns (_UPRIGHT, which
    # test_exif_orientation_gives_the_upright_pixels holds), at full and reduced size.
    stored, exif = with_orientation(Image.fromarray(pattern(1280, 960)), orientation)
    data = encode(stored, "JPEG", quality=90, exif=exif)
    photo = load_photo(data, min_working_side=min_side)
    scale = 1280 // min_side
    pillow = Image.open(io.BytesIO(data))
    pillow.draft("RGB", (pillow.width // scale, pillow.height // scale))
    if orientation != 1:
        pillow = pillow.transpose(_UPRIGHT[orientation])
    assert photo.scale == scale and photo.size == (1280, 960)
    assert np.array_equal(photo.rgb, np.asarray(pillow.convert("RGB")))


def test_a_grey_jpeg_of_odd_size_has_pillows_pixels_in_a_box() -> None:
    stored, exif = with_orientation(Image.fromarray(pattern(1283, 961)).convert("L"), 6)
    data = encode(stored, "JPEG", quality=90, exif=exif, progressive=True)
    part = load_photo(data, min_working_side=640, box=(101.0, 203.5, 700.0, 1000.0))
    pillow = Image.open(io.BytesIO(data))
    pillow.draft("RGB", (pillow.width // 2, pillow.height // 2))
    upright = np.asarray(pillow.transpose(_UPRIGHT[6]).convert("RGB"))
    left, top = part.origin
    height, width = part.rgb.shape[:2]
    assert part.scale == 2.0 and part.size == (1283, 961) and (left, top) == (50, 101)
    assert np.array_equal(part.rgb, upright[top : top + height, left : left + width])


@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_turned_view_is_copied_pixel_for_pixel(orientation: int) -> None:
    # OpenCV turns and mirrors the decoded pixels (NumPy's copy of a turned view is
    # slow): the copy must hold NumPy's pixels, whole and in any part, in rows of its own.
    stored = np.random.default_rng(orientation).integers(0, 256, (31, 47, 3), np.uint8)
    view = _upright(stored, orientation)
    for part in (view, view[3:20, 5:9], view[:1], view[:, -1:], view[4:4]):
        copy = _copied(part)
        assert copy.flags.c_contiguous and copy.dtype == np.uint8
        assert copy.shape == part.shape and np.array_equal(copy, part)


def test_stray_bytes_between_a_jpegs_header_segments_are_no_damage() -> None:
    # Some programs leave padding between the segments before the picture: libjpeg
    # warns, the pixels are whole.
    data = jpeg_bytes()
    at = data.index(b"\xff\xdb")  # the first quantisation table
    padded = data[:at] + bytes(3) + data[at:]
    assert np.array_equal(load_photo(padded).rgb, load_photo(data).rgb)


# --- a part of the photo -----------------------------------------------------------------


def test_a_box_keeps_the_same_pixels_as_the_whole_photo() -> None:
    data = encode(Image.fromarray(pattern(1280, 960)), "PNG")
    whole = load_photo(data, min_working_side=640)  # scale 2
    part = load_photo(data, min_working_side=640, box=(301.0, 99.5, 900.0, 700.0))
    assert part.cut and not whole.cut
    assert whole.scale == part.scale == 2.0 and part.size == whole.size
    left, top = part.origin
    # Working pixel 150 holds original pixels 300 and 301; 450 holds 900 and 901.
    assert (left, top) == (150, 49)
    assert part.rgb.shape == (351 - 49, 451 - 150, 3)
    height, width = part.rgb.shape[:2]
    assert np.array_equal(part.rgb, whole.rgb[top : top + height, left : left + width])


def test_to_original_puts_the_same_point_in_the_same_place() -> None:
    data = encode(Image.fromarray(pattern(1280, 960)), "PNG")
    whole = load_photo(data, min_working_side=640)
    part = load_photo(data, min_working_side=640, box=(301.0, 99.5, 900.0, 700.0))
    left, top = part.origin
    in_part = [(0.0, 0.0), (10.5, 20.0)]
    in_whole = [(x + left, y + top) for x, y in in_part]
    assert part.to_original(in_part) == whole.to_original(in_whole)
    # Working pixel 0 covers original pixels 0 and 1: its centre is 0.5.
    assert whole.to_original([(0.0, 0.0)]) == [(0.5, 0.5)]
    assert part.working_long_side == whole.working_long_side == 640


@pytest.mark.parametrize(
    ("fmt", "scale", "width"),
    [("PNG", 1.5, 1280), ("JPEG", 1.5, 1280), ("JPEG", 2.6, 1280), ("JPEG", 2.6, 1283)],
)
def test_a_photo_reduced_by_any_factor_keeps_its_pixels_places(
    fmt: str, scale: float, width: int
) -> None:
    # Between the decoder's steps (1, 2, 4, 8) the rest is an area average: working
    # pixel x still covers original pixels [x * scale, (x + 1) * scale), so a point
    # keeps its place in the original photo, in the whole photo and in a box of it.
    rgb = pattern(width, 960)
    data = encode(Image.fromarray(rgb), fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    whole = load_photo(data, scale=scale)
    assert whole.scale == scale and whole.size == (width, 960) and not whole.cut
    # Decoded at the step below (2 for 2.6: a partial last block is a pixel too), the
    # rest rounded as OpenCV rounds.
    step = 2 if scale > 2 else 1
    expected_width = round(-(-width // step) * step / scale)
    assert whole.rgb.shape == (round(960 / scale), expected_width, 3)
    assert whole.working_long_side == expected_width
    expected = cv2.resize(rgb, None, fx=1 / scale, fy=1 / scale, interpolation=cv2.INTER_AREA)
    shared = min(expected.shape[1], expected_width)  # a partial last block aside
    difference = whole.rgb[:, :shared].astype(int) - expected[:, :shared]
    assert np.abs(difference).mean() < (0.5 if fmt == "PNG" else 2.0)
    assert whole.to_original([(0.0, 0.0)]) == [(scale / 2 - 0.5, scale / 2 - 0.5)]
    part = load_photo(data, scale=scale, box=(301.0, 99.5, 900.0, 700.0))
    left, top = part.origin
    assert (left, top) == (int(301 // scale), int(99.5 // scale)) and part.cut
    height, width = part.rgb.shape[:2]
    assert np.array_equal(part.rgb, whole.rgb[top : top + height, left : left + width])
    assert part.to_original([(0.0, 0.0)]) == whole.to_original([(float(left), float(top))])
    assert part.working_long_side == whole.working_long_side
    # A factor that is one of the decoder's steps, given as a float or an int, is that
    # step, reduced as ever.
    stepped = load_photo(data, min_working_side=640)
    assert np.array_equal(load_photo(data, scale=2.0).rgb, stepped.rgb)
    assert np.array_equal(load_photo(data, scale=2).rgb, stepped.rgb)
    assert load_photo(data, scale=2).scale == 2.0


@pytest.mark.parametrize("scale", [0.5, 0.0, float("nan"), float("inf")])
def test_a_scale_below_one_is_refused(scale: float) -> None:
    with pytest.raises(ValueError, match="scale"):
        load_photo(encode(Image.fromarray(pattern(640, 480)), "PNG"), scale=scale)


def test_a_box_is_clipped_to_the_photo() -> None:
    data = encode(Image.fromarray(pattern(640, 480)), "PNG")
    part = load_photo(data, box=(-50.0, 400.0, 10_000.0, 10_000.0))
    assert part.origin == (0, 400)
    assert part.rgb.shape == (80, 640, 3)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_a_box_is_in_the_upright_photo(orientation: int) -> None:
    upright = Image.fromarray(pattern(640, 480))
    stored, exif = with_orientation(upright, orientation)
    part = load_photo(encode(stored, "PNG", exif=exif), box=(50.0, 40.0, 200.0, 130.0))
    assert part.origin == (50, 40)
    assert np.array_equal(part.rgb, np.asarray(upright)[40:131, 50:201])


@pytest.mark.parametrize(
    "box", [(10.0, 10.0, 10.0, 50.0), (10.0, 60.0, 50.0, 20.0), (0.0, 0.0, float("nan"), 9.0)]
)
def test_an_empty_box_is_refused(box: tuple[float, float, float, float]) -> None:
    with pytest.raises(ValueError, match="box"):
        load_photo(encode(Image.fromarray(pattern(640, 480)), "PNG"), box=box)


# --- bad files ----------------------------------------------------------------------------


def jpeg_bytes() -> bytes:
    return encode(Image.fromarray(pattern(640, 480)), "JPEG", quality=90)


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("empty file", lambda: b"", "empty"),
        ("text file", lambda: b"red yellow green blue\n" * 20, "not an image"),
        ("truncated JPEG", lambda: jpeg_bytes()[: len(jpeg_bytes()) // 2], "truncated"),
        ("JPEG without its end", lambda: jpeg_bytes()[:-2], "truncated"),
        ("JPEG cut in its header", lambda: jpeg_bytes()[:20], "truncated"),
        ("PNG cut after its header chunk",
         lambda: encode(Image.fromarray(pattern(640, 480)), "PNG")[:40], "truncated"),
        ("PNG of half a picture", lambda: png_of_half_a_picture(640, 480), "truncated"),
        (
            "truncated PNG",
            lambda: encode(Image.fromarray(pattern(640, 480)), "PNG")[:5000],
            "truncated",
        ),
        (
            "truncated WebP",
            lambda: encode(Image.fromarray(pattern(640, 480)), "WEBP")[:3000],
            "truncated",
        ),
        (
            "WebP cut short of its last byte",
            lambda: encode(Image.fromarray(pattern(640, 480)), "WEBP")[:-1],
            "truncated",
        ),
        (
            "truncated HEIC",
            lambda: encode(Image.fromarray(pattern(640, 480)), "HEIF")[:3000],
            "truncated",
        ),
        (
            # Cut in its header (the meta box), it was no image at all to Pillow.
            "HEIC cut in its header",
            lambda: encode(Image.fromarray(pattern(640, 480)), "HEIF")[:200],
            "truncated",
        ),
        # Pillow decodes a PNG to find EXIF after its picture, and keeps the part
        # decoded when the rest is damaged (a lower half all black).
        (
            "PNG damaged in the middle",
            lambda: damaged_in_the_middle(encode(Image.fromarray(pattern(640, 480)), "PNG")),
            "damaged",
        ),
        ("GIF", lambda: encode(Image.fromarray(pattern(640, 480)), "GIF"), "not a photo format"),
        ("BMP", lambda: encode(Image.fromarray(pattern(640, 480)), "BMP"), "not a photo format"),
        ("TIFF", lambda: encode(Image.fromarray(pattern(640, 480)), "TIFF"), "not a photo format"),
        ("too small", lambda: encode(Image.fromarray(pattern(300, 200)), "PNG"), "too small"),
        ("thin strip", lambda: encode(Image.fromarray(pattern(4000, 100)), "PNG"), "too small"),
        ("PNG header of 400 megapixels", lambda: fake_png_header(20000, 20000), "too large"),
        # libjpeg fills what it cannot decode with one colour, and only warns.
        ("JPEG damaged in the middle", lambda: damaged_in_the_middle(jpeg_bytes()), "damaged"),
        ("JPEG header larger than its data", lambda: fake_jpeg_size(jpeg_bytes(), 4000, 3000),
         "damaged"),
        (
            "JPEG header of 400 megapixels",
            lambda: fake_jpeg_size(jpeg_bytes(), 20000, 20000),
            "too large",
        ),
    ],
)
def test_bad_files_raise_one_clear_line(
    name: str, make: object, message: str, tmp_path: Path
) -> None:
    assert callable(make)
    path = tmp_path / "photo.jpg"
    path.write_bytes(make())
    with pytest.raises(PhotoError, match=message) as raised:
        load_photo(path)
    assert "\n" not in str(raised.value)


def png_chunks(data: bytes) -> list[bytes]:
    """A PNG's chunks, each whole (length, type, data and checksum)."""
    chunks, position = [], 8
    while position < len(data):
        end = position + 12 + int.from_bytes(data[position : position + 4], "big")
        chunks.append(data[position:end])
        position = end
    return chunks


def test_a_png_whose_picture_is_whole_is_read_whatever_follows_it() -> None:
    # Only the picture's data is checked against its checksums: a file that ends after
    # it, without IEND, and a damaged text chunk after it (which Pillow does not read)
    # give the same pixels.
    png = encode(Image.fromarray(pattern(640, 480)), "PNG")
    chunks = png_chunks(png)
    assert chunks[-1][4:8] == b"IEND"
    expected = load_photo(png).rgb
    text = b"tEXt" + b"Comment\0a note"
    damaged_text = len(text[4:]).to_bytes(4, "big") + text + b"\0\0\0\0"
    for variant in (png[: -len(chunks[-1])], png[: -len(chunks[-1])] + damaged_text + chunks[-1]):
        assert np.array_equal(load_photo(variant).rgb, expected)
    # Its picture's data cut at a chunk's end is a truncated picture.
    first_picture_chunk = next(i for i, c in enumerate(chunks) if c[4:8] == b"IDAT")
    with pytest.raises(PhotoError, match="truncated"):
        load_photo(png[:8] + b"".join(chunks[: first_picture_chunk + 1])[:-3])


@pytest.mark.parametrize("mode", ["P", "1", "I;16"])
def test_a_large_png_of_any_mode_is_reduced(mode: str) -> None:
    # Pillow averages no palette, 1-bit or 16-bit picture ("image has wrong mode"): such
    # a PNG large enough to be reduced is made 8-bit RGB first, as a small one is after.
    image = Image.fromarray(pattern(4000, 3000))
    image = image.convert("L").convert("I;16") if mode == "I;16" else image.convert(mode)
    photo = load_photo(encode(image, "PNG"))
    assert photo.scale == 2.0 and photo.rgb.shape == (1500, 2000, 3)
    whole = load_photo(encode(image, "PNG"), min_working_side=4000)
    assert whole.scale == 1.0
    halved = whole.rgb.reshape(1500, 2, 2000, 2, 3).mean(axis=(1, 3))
    assert np.abs(photo.rgb - halved).max() <= 1


def test_a_deep_grey_picture_is_scaled_without_a_64_bit_copy() -> None:
    # Scaled whole in 64-bit floats, a 48-megapixel 16-bit PNG took 1.2 GB to load.
    deep = Image.fromarray(pattern(4000, 3000)[:, :, 0].astype(np.uint16) * 257)
    assert deep.mode == "I;16"
    tracemalloc.start()
    try:
        grey = vision.load._grey_8_bits(deep)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(grey, pattern(4000, 3000)[:, :, 0])
    assert peak < 6 * 4000 * 3000  # the picture itself is 2 bytes a pixel


def test_a_whole_file_damaged_in_its_header_is_not_called_truncated() -> None:
    jpeg = jpeg_bytes()
    png = encode(Image.fromarray(pattern(640, 480)), "PNG")
    length_at = png.index(b"IDAT") - 4
    damaged = [
        jpeg[:4] + b"\xf0" + jpeg[5:],  # a segment's length too long
        png[:length_at] + bytes([png[length_at] ^ 0x40]) + png[length_at + 1 :],
        b"\xff\xd8\xff" + b"no JPEG at all " * 20,
    ]
    for data in damaged:
        with pytest.raises(PhotoError) as raised:
            load_photo(data)
        assert "truncated" not in str(raised.value)
    # A marker with no length after it (TEM) is passed over as such: cut short in its
    # header, such a JPEG is truncated.
    with pytest.raises(PhotoError, match="truncated"):
        load_photo((jpeg[:2] + b"\xff\x01" + jpeg[2:])[:300])


def test_a_png_bomb_is_inflated_only_as_far_as_its_picture() -> None:
    # Zeros that inflate a thousand times over: the check counts the bytes a picture of
    # the header's size needs, and stops there (Pillow reads no further).
    bomb = zlib.compress(bytes(200 << 20), 9)
    wanted = 1_000_000
    size = vision.load._inflated_size(zlib.decompressobj(), memoryview(bomb), wanted)
    assert wanted <= size < wanted + (2 << 20)


def test_a_damaged_file_raises_no_warnings_only_the_error() -> None:
    # Pillow warns "Truncated File Read" while opening a TIFF cut this short.
    damaged = encode(Image.fromarray(pattern(640, 480)), "TIFF")[:100]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning would fail the test
        with pytest.raises(PhotoError, match="not an image"):
            load_photo(damaged)


def test_the_size_is_checked_from_the_header_before_decoding() -> None:
    # Only a header: decoding would fail as truncated, so "too large" proves the check
    # came first.
    with pytest.raises(PhotoError, match="too large: 10000×10000 is 100 megapixels"):
        load_photo(fake_png_header(10000, 10000), max_pixels=50_000_000)
    # Within the limit the same kind of file is decoded and found cut short.
    with pytest.raises(PhotoError, match="truncated"):
        load_photo(fake_png_header(4000, 3000), max_pixels=50_000_000)


def test_a_photo_decoded_whole_has_a_lower_limit_than_a_jpeg() -> None:
    # A PNG, WebP or HEIC is decoded whole: 100 megapixels took 14 s and 1.5 GB. A JPEG
    # of the same size is decoded at a reduced size: its size is let through (this one
    # is then refused for holding far fewer pixels than its header claims).
    with pytest.raises(PhotoError, match="100 megapixels; a PNG photo is decoded whole"):
        load_photo(fake_png_header(10000, 10000))
    big = encode(Image.new("L", (7200, 7000), 128), "JPEG", quality=50)  # 50.4 megapixels
    with pytest.raises(PhotoError, match="50.4 megapixels; a PNG photo is decoded whole"):
        load_photo(encode(Image.new("L", (7200, 7000), 128), "PNG"))
    photo = load_photo(big)
    assert photo.size == (7200, 7000) and photo.scale == 4.0
    assert photo.rgb.shape == (1750, 1800, 3)
    # 48 megapixels, as a phone's large HEIC, is read.
    with pytest.raises(PhotoError, match="truncated"):
        load_photo(fake_png_header(8064, 6048))


def test_a_file_larger_than_any_photo_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vision.load, "MAX_FILE_BYTES", 10_000)
    path = tmp_path / "photo.jpg"
    path.write_bytes(jpeg_bytes() + bytes(20_000))  # readable, but too long a file
    with pytest.raises(PhotoError, match="file too large: over"):
        load_photo(path)
    with pytest.raises(PhotoError, match="file too large: over"):
        load_photo(path.read_bytes())
    if Path("/dev/zero").exists():  # a file that never ends is read no further
        with pytest.raises(PhotoError, match="file too large: over"):
            load_photo("/dev/zero")


def test_a_missing_file_or_a_folder_is_a_photo_error(tmp_path: Path) -> None:
    with pytest.raises(PhotoError, match="cannot read"):
        load_photo(tmp_path / "nowhere.jpg")
    with pytest.raises(PhotoError, match="folder"):
        load_photo(tmp_path)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        load_photo(jpeg_bytes(), min_working_side=0)
