"""The whole reader on real-looking photos: every bundled sample, every dev photo, and
the awkward inputs a phone sends (EXIF rotation, 16-bit and alpha PNGs, a grey photo,
an empty table, a board with a loop missing).

A board is exact when all five scores and the winners match the truth. Photos the
reader does not read exactly yet are marked ``xfail(strict=True)`` with what goes
wrong: they must fail today, and the mark must go the day they pass.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from engine.board import Crossing
from engine.colours import LINE_COLOURS
from engine.report import board_from_report, moves_change_nothing
from synth.photo import make_photo
from vision import reader
from vision.colour import LABEL_COLOURS, LABEL_RGB
from vision.creatures import Pawns, Remark
from vision.detect import Detections
from vision.errors import ReadError
from vision.evaluate import compare_reports
from vision.load import Photo, load_photo
from vision.overlay import LOW_CONFIDENCE
from vision.reader import draw_stages, faint_cord_at, read_photo
from vision.separate import Separation
from vision.trace import Loop, Loops

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
DEV_PHOTOS = ROOT.parent / "shared" / "dev-photos"

#: What still goes wrong, by photo (measured with benchmarks/accuracy.py).
NOT_YET_EXACT = {
    "dev_0014": (
        "blue mat under a warm lamp: two blue demons missed, and a ghost put in the"
        " next field of a field not matched"
    ),
    "dev_0015": "green felt under low light: long shadows read as green",
}


def photo_params(folder: Path) -> list[Any]:
    params = []
    for photo in sorted(folder.glob("*.jpg")):
        reason = NOT_YET_EXACT.get(photo.stem)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(photo, id=photo.stem, marks=marks))
    return params


def truth_of(photo: Path) -> dict[str, Any]:
    truth: dict[str, Any] = json.loads(photo.with_suffix(".truth.json").read_text())
    return truth


def assert_exact(photo: Path, method: str | None = None) -> dict[str, Any]:
    reading = read_photo(photo, method=method)
    comparison = compare_reports(reading.report, truth_of(photo))
    assert comparison.board_exact, "; ".join(comparison.problems)
    return reading.report


def corner_doubts(report: dict[str, Any]) -> tuple[int, int]:
    """Check that a demon between corners (listed with ``corners_alike``) is warned of,
    and unsure, exactly when one of those corners would change what the report says:
    (moot doubts, doubts warned of)."""
    board = board_from_report(report)
    moot = warned = 0
    for creature in report["creatures"]:
        if "corners_alike" not in creature:
            continue
        corners = [(int(f), int(c)) for f, c in creature["corners_alike"]]
        named = any(w.startswith(f"creature {creature['id']} (") for w in report["warnings"])
        if moves_change_nothing(board, creature["id"], corners):
            assert not named and creature["confidence"] <= 0.8
            moot += 1
        else:
            assert named and creature["confidence"] < LOW_CONFIDENCE
            warned += 1
    return moot, warned


@pytest.mark.parametrize("photo", photo_params(SAMPLES))
def test_sample_photo_is_read_exactly(photo: Path) -> None:
    corner_doubts(assert_exact(photo))


def test_the_check_above_meets_warned_and_moot_doubts_between_corners() -> None:
    """The check above has both kinds to look at: a sample with a doubt warned of, and a
    generated photo (seed 1014, hard, the samples' size) with a moot one; no sample has
    a moot doubt since the samples were made with lacquer, and 1001, which had one, has
    none since its lacquered pawns mirror a window too (ninety-ninth session)."""
    _, warned = corner_doubts(read_photo(SAMPLES / "04_normal_white_table.jpg").report)
    made = make_photo(1014, "hard", (2016, 1512))
    reading = read_photo(made.jpeg)
    moot, _ = corner_doubts(reading.report)
    assert moot > 0 and warned > 0
    assert compare_reports(reading.report, made.truth).board_exact


@pytest.mark.skipif(not DEV_PHOTOS.is_dir(), reason="../shared/dev-photos is not beside the repo")
@pytest.mark.parametrize("photo", photo_params(DEV_PHOTOS) if DEV_PHOTOS.is_dir() else [])
def test_dev_photo_is_read_exactly(photo: Path) -> None:
    assert_exact(photo)


@pytest.fixture(scope="module")
def dev_0014() -> Any:
    photo = DEV_PHOTOS / "dev_0014.jpg"
    return compare_reports(read_photo(photo).report, truth_of(photo))


@pytest.mark.skipif(not DEV_PHOTOS.is_dir(), reason="../shared/dev-photos is not beside the repo")
@pytest.mark.xfail(
    strict=True,
    reason=(
        "since the detector was tuned on pawns mirroring a window (ninety-ninth session),"
        " dev_0014's crossing 4 is read 2.8 string widths aside again"
    ),
)
def test_a_crossing_traced_aside_on_a_mat_of_its_hue_is_settled_on_the_cord_map(
    dev_0014: Any,
) -> None:
    """dev_0014 (another renderer): the blue cord on the blue mat, traced along its
    shadow among red demons, crossed the red one (crossing 4) 2.6 string widths from its
    place; the settle stage lays both on their cord maps there (vision.crossings)."""
    assert not [p for p in dev_0014.problems if p.startswith("crossing 4 ")]


@pytest.mark.skipif(not DEV_PHOTOS.is_dir(), reason="../shared/dev-photos is not beside the repo")
@pytest.mark.xfail(
    strict=True,
    reason=(
        "since the forty-ninth session's closer look at each crossing, dev_0014's crossing 9"
        " (blue and yellow) is read 2.3 string widths aside: the closer look's map of the"
        " blue cord fits it 0.61 string widths against the first look's 0.66, and is taken"
    ),
)
def test_every_crossing_of_the_blue_cord_on_the_blue_mat_is_found(dev_0014: Any) -> None:
    assert dev_0014.crossings_matched == dev_0014.crossings_truth
    assert not [p for p in dev_0014.problems if "off its place" in p]


# --- the learned pixel reader (experimental: see docs/reader-history.md) ------------

#: Samples the learned reader reads exactly; the first one the classic reader refuses.
#: (05, lacquered since the ninety-eighth session, it reads with a ghost too many.)
NET_EXACT = ["01_easy_light_wood", "02_easy_cloth"]


@pytest.mark.parametrize("name", NET_EXACT)
def test_the_learned_reader_reads_these_samples_exactly(name: str) -> None:
    assert_exact(SAMPLES / f"{name}.jpg", method="net")


def test_the_reader_is_chosen_by_argument_then_environment(monkeypatch) -> None:
    photo = SAMPLES / "02_easy_cloth.jpg"
    monkeypatch.setenv("DD_READER", "net")
    assert "pixels" in read_photo(photo).stages
    assert "pixels" not in read_photo(photo, method="classic").stages
    monkeypatch.setenv("DD_READER", "magic")
    with pytest.raises(ValueError, match="classic"):
        read_photo(photo)


# --- what a phone sends --------------------------------------------------------------

EXACT_SAMPLE = SAMPLES / "02_easy_cloth.jpg"


def upright_image() -> Image.Image:
    """The exact sample as a person sees it (it may itself carry an EXIF rotation)."""
    return ImageOps.exif_transpose(Image.open(EXACT_SAMPLE))


@pytest.fixture(scope="module")
def upright() -> dict[str, Any]:
    return read_photo(EXACT_SAMPLE).report


def png_bytes(array: np.ndarray, mode: str | None = None) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(array, mode).save(buffer, format="PNG")
    return buffer.getvalue()


def same_board(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["scores"] == b["scores"]
    assert a["winners"] == b["winners"]
    assert len(a["crossings"]) == len(b["crossings"])
    assert len(a["creatures"]) == len(b["creatures"])


def test_an_exif_rotated_photo_reads_as_the_upright_one(upright: dict[str, Any]) -> None:
    image = upright_image()
    # Stored turned a quarter to the left, with the tag saying to turn it back.
    stored = image.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    stored.save(buffer, format="JPEG", quality=95, exif=exif.tobytes())
    rotated = read_photo(buffer.getvalue()).report
    assert rotated["image"] == upright["image"]
    same_board(rotated, upright)


@pytest.mark.parametrize("kind", ["16-bit", "alpha"])
def test_png_variants_read_as_the_jpeg(kind: str, upright: dict[str, Any]) -> None:
    rgb = np.asarray(upright_image().convert("RGB"))
    if kind == "alpha":
        data = png_bytes(np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)]))
    else:
        # 16-bit RGB PNGs are written through OpenCV (Pillow keeps 16 bits only for grey).
        wide = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR).astype(np.uint16) * 257
        ok, encoded = cv2.imencode(".png", wide)
        assert ok
        data = encoded.tobytes()
    same_board(read_photo(data).report, upright)


def test_a_grey_photo_has_no_strings() -> None:
    grey = np.asarray(upright_image().convert("L"))
    with pytest.raises(ReadError, match="no strings"):
        read_photo(png_bytes(grey, "L"))


def test_a_photo_of_an_empty_table() -> None:
    rgb = np.asarray(upright_image().convert("RGB"))
    corner = rgb[:300, :400]  # a corner of the table, nothing on it
    empty = cv2.resize(corner, (1600, 1200), interpolation=cv2.INTER_LINEAR)
    with pytest.raises(ReadError, match="no strings"):
        read_photo(png_bytes(empty))


def test_a_photo_half_of_coloured_noise_is_no_board() -> None:
    # What a WebP or HEIC damaged in its picture decodes to (their decoders report
    # nothing): the detector marks pawns faintly all over it, and every mark looked at
    # again took a minute to give a made-up board.
    bgr = cv2.imread(str(EXACT_SAMPLE))
    height, width = bgr.shape[:2]
    blocks = np.random.default_rng(5).integers(0, 256, (height // 16, width // 8, 3), np.uint8)
    bgr[height // 2 :] = cv2.resize(blocks, (width, height - height // 2),
                                    interpolation=cv2.INTER_NEAREST)
    ok, encoded = cv2.imencode(".png", bgr)
    assert ok
    with pytest.raises(ReadError, match="no board: the camera sees .* pawn-like marks"):
        read_photo(encoded.tobytes())


def test_a_board_with_one_loop_missing() -> None:
    bgr = cv2.imread(str(EXACT_SAMPLE))
    truth = truth_of(EXACT_SAMPLE)
    cord = np.zeros(bgr.shape[:2], np.uint8)
    line = np.round(truth["lines"]["red"]["polyline"]).astype(np.int32)
    cv2.polylines(cord, [line], True, 255, 13)
    without_red = cv2.inpaint(bgr, cord, 5, cv2.INPAINT_TELEA)
    ok, encoded = cv2.imencode(".png", without_red)
    assert ok
    with pytest.raises(ReadError, match="only 3 loops.*red") as refused:
        read_photo(encoded.tobytes())
    # What the stages that ran gave is kept, to be drawn where the reading failed.
    stages = refused.value.stages
    assert {"load", "colour", "separate"} <= set(stages)
    assert "arrange" not in stages and "place" not in stages
    pictures = draw_stages(stages)
    assert {"load", "colour", "separate"} <= set(pictures)
    height, width = stages["load"].rgb.shape[:2]
    assert all(p.shape == (height, width, 3) and p.dtype == np.uint8 for p in pictures.values())
    # The separate stage's picture shows the three cords left, and of the red one only
    # scraps (the paint leaves a little of its hue).
    separated = pictures["separate"].reshape(-1, 3)
    drawn = {c: int((separated == LABEL_RGB[c]).all(axis=1).sum()) for c in LINE_COLOURS}
    assert drawn["red"] < 0.1 * min(drawn["yellow"], drawn["green"], drawn["blue"]), drawn


def test_a_file_that_is_no_photo_leaves_no_stage_to_draw() -> None:
    with pytest.raises(ReadError, match="not an image") as refused:
        read_photo(b"Dicke Daemonen\n" * 50)
    assert dict(refused.value.stages) == {}
    assert draw_stages(refused.value.stages) == {}


def large_sample_without_blue() -> tuple[np.ndarray, np.ndarray]:
    """The exact sample twice as large (a 12 MP photo) with its blue cord painted out,
    and that cord's polyline in the sample's pixels."""
    bgr = cv2.imread(str(EXACT_SAMPLE))
    line = np.round(truth_of(EXACT_SAMPLE)["lines"]["blue"]["polyline"]).astype(np.int32)
    cord = np.zeros(bgr.shape[:2], np.uint8)
    cv2.polylines(cord, [line], True, 255, 15)
    without_blue = cv2.inpaint(bgr, cord, 5, cv2.INPAINT_TELEA)
    return cv2.resize(without_blue, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), line


def detector_refusing_the_second_time(
    monkeypatch: pytest.MonkeyPatch, why: str
) -> list[tuple[int, ...]]:
    """The shapes of the pictures the reader's detector is given, as it is given them;
    the second time it refuses the photo (as it does one of far too many pawn-like
    marks), saying ``why``."""
    real = reader.detect_checking_size
    calls: list[tuple[int, ...]] = []

    def refusing_the_second_time(rgb: np.ndarray, width: float) -> Any:
        calls.append(rgb.shape)
        if len(calls) == 2:
            raise ReadError(f"no board: {why}")
        return real(rgb, width)

    monkeypatch.setattr(reader, "detect_checking_size", refusing_the_second_time)
    return calls


def test_a_refusal_at_the_finer_reading_keeps_the_stages_of_that_reading_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The blue cord is gone, so the half-size reading loses a loop and the board's part
    # is read again at full size; there the detector refuses (as it does a photo of
    # far too many pawn-like marks). The first reading's marks, of another size, must
    # not be drawn over the second reading's photo.
    large, _ = large_sample_without_blue()
    ok, encoded = cv2.imencode(".png", large)
    assert ok
    calls = detector_refusing_the_second_time(monkeypatch, "refused at the finer reading")
    with pytest.raises(ReadError, match="refused at the finer reading") as refused:
        read_photo(encoded.tobytes())
    assert len(calls) == 2 and calls[0] != calls[1]
    stages = refused.value.stages
    assert stages["load"].rgb.shape == calls[1] and "detect" not in stages
    pictures = draw_stages(stages)
    assert {"load", "colour", "separate"} <= set(pictures) and "detect" not in pictures
    assert all(p.shape == calls[1] for p in pictures.values())


@pytest.mark.parametrize("mended", [False, True])
def test_the_finer_reading_starts_from_the_first_readings_width_where_that_was_mended(
    monkeypatch: pytest.MonkeyPatch, mended: bool
) -> None:
    # A photo whose loops the half-size reading is taken to have mostly guessed is read
    # again at full size. Where the first reading's detector mended the colour rules'
    # width (here made to, 1.5 times it: the sizer widens from 1.15), their blobs
    # are the wrong size for these pawns at full size too (1470173): the detector
    # starts from the mended width, in the finer photo's pixels. Where it did not, from
    # the colour rules' width at full size.
    bgr = cv2.imread(str(EXACT_SAMPLE))
    large = cv2.resize(bgr, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    ok, encoded = cv2.imencode(".png", large)
    assert ok
    pawns_of, checking, measured = (
        reader.find_pawns, reader.detect_checking_size, reader.detect_at_measured_width)
    rules_widths: list[float] = []
    started: list[tuple[tuple[int, ...], float]] = []
    settled: list[float] = []

    def pawns_spied(separation: Separation) -> Pawns:
        found = pawns_of(separation)
        rules_widths.append(found.pawn_width)
        return found

    def checking_spied(rgb: np.ndarray, width: float) -> Detections:
        started.append((rgb.shape, width))
        return checking(rgb, width)

    def measured_spied(rgb: np.ndarray, detections: Detections) -> Detections:
        found = measured(rgb, detections)
        if mended and not settled:
            found = replace(found, pawn_width=1.5 * found.pawn_width)
        settled.append(found.pawn_width)
        return found

    monkeypatch.setattr(reader, "find_pawns", pawns_spied)
    monkeypatch.setattr(reader, "detect_checking_size", checking_spied)
    monkeypatch.setattr(reader, "detect_at_measured_width", measured_spied)
    monkeypatch.setattr(reader, "mostly_guessed", lambda loops: True)
    read_photo(encoded.tobytes())
    assert len(started) == 2 and len(settled) == 2 and len(rules_widths) == 2
    (first_shape, first_start), (finer_shape, finer_start) = started
    assert finer_shape[0] > first_shape[0]
    assert first_start == rules_widths[0]
    if mended:
        # The first reading was at half size: its width, in its own pixels, doubles.
        assert finer_start == pytest.approx(2 * settled[0])
        assert finer_start != pytest.approx(rules_widths[1], rel=0.05)
    else:
        assert settled[0] == rules_widths[0]  # the detector took the rules' width as it was
        assert finer_start == rules_widths[1]


def test_a_thin_dark_cord_lost_at_the_reduced_decode_is_read_at_full_size() -> None:
    # The blue cord drawn again 2 px wide and navy: at the half-size decode it blends
    # into the cloth and loses its hue.
    large, line = large_sample_without_blue()
    truth = truth_of(EXACT_SAMPLE)
    cv2.polylines(large, [2 * line], True, (95, 40, 25), 2, cv2.LINE_AA)
    ok, encoded = cv2.imencode(".png", large)
    assert ok
    reading = read_photo(encoded.tobytes(), method="classic")
    assert reading.photo.scale == 1.0
    assert len(reading.report["crossings"]) == len(truth["crossings"])
    # Of the colour stage only its labels are kept once the strings are separated.
    assert reading.stages["colour"].lab.size == 0
    # The detector's cord map sees the cord at the reduced decode already.
    combined = read_photo(encoded.tobytes(), method="classic+detector")
    assert len(combined.report["crossings"]) == len(truth["crossings"])


def test_a_loop_mostly_guessed_at_the_reduced_decode_is_read_at_full_size() -> None:
    # As above, but only three quarters of the blue cord are thin: at the half-size
    # decode the rest is traced and the thin stretch bridged by a guess. The full-size
    # reading sees the whole loop, and it is the one kept.
    large, line = large_sample_without_blue()
    truth = truth_of(EXACT_SAMPLE)
    thin = round(0.75 * len(line))
    cv2.polylines(large, [2 * line[: thin + 1]], False, (95, 40, 25), 2, cv2.LINE_AA)
    cv2.polylines(large, [2 * np.vstack([line[thin:], line[:1]])], False, (150, 60, 30), 12)
    ok, encoded = cv2.imencode(".png", large)
    assert ok
    reading = read_photo(encoded.tobytes(), method="classic")
    assert reading.photo.scale == 1.0
    assert reading.stages["trace"].loops["blue"].seen > 0.8
    assert len(reading.report["crossings"]) == len(truth["crossings"])
    combined = read_photo(encoded.tobytes(), method="classic+detector")
    assert combined.stages["trace"].loops["blue"].seen > 0.8
    assert len(combined.report["crossings"]) == len(truth["crossings"])


def small_board_in_a_large_photo() -> tuple[bytes, int, int]:
    """The sample in the middle of a photo of four times its area (the table's edge
    pixels repeated), as a JPEG, and where the sample's corner lies in it."""
    bgr = cv2.imread(str(EXACT_SAMPLE))
    height, width = bgr.shape[:2]
    left, top = width // 2, height // 2
    large = cv2.copyMakeBorder(bgr, top, top, left, left, cv2.BORDER_REPLICATE)
    ok, encoded = cv2.imencode(".jpg", large, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return encoded.tobytes(), left, top


def counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments of each of the reader's calls of load_photo, as they come."""
    loads: list[dict[str, Any]] = []

    def counted_load(*args: Any, **kwargs: Any) -> Any:
        loads.append(kwargs)
        return load_photo(*args, **kwargs)

    monkeypatch.setattr(reader, "load_photo", counted_load)
    return loads


def test_a_board_small_in_a_large_photo_is_read_again_from_its_part_of_the_photo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # At the half-size decode the strings are under 3 px: the photo is read again, cut
    # to the board, at the scale between half and full size that makes them about
    # WIDE_ENOUGH_STRING wide (0.41 of full size's pixels here). The report is still in
    # the whole photo's pixels.
    data, left, top = small_board_in_a_large_photo()
    height, width = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape[:2]
    height, width = height // 2, width // 2  # the sample's own size
    loads = counting_loads(monkeypatch)
    between = reader.between_scale
    first_widths: list[float] = []

    def width_kept(strings: Any) -> float | None:
        first_widths.append(strings.separation.measured_width)
        return between(strings)

    monkeypatch.setattr(reader, "between_scale", width_kept)
    reading = read_photo(data)
    photo = reading.photo
    assert len(loads) == 2 and loads[1]["scale"] == photo.scale and photo.cut
    assert 0 < first_widths[0] < reader.MIN_STRING_WIDTH
    assert photo.scale == pytest.approx(2 * first_widths[0] / reader.WIDE_ENOUGH_STRING)
    assert 1.2 <= photo.scale < 2.0
    assert photo.rgb.shape[0] * photo.rgb.shape[1] < height * width
    assert reading.report["image"] == {"width": 2 * width, "height": 2 * height}
    truth = truth_of(EXACT_SAMPLE)
    assert reading.report["scores"] == truth["scores"]
    assert len(reading.report["crossings"]) == len(truth["crossings"])
    true_points = [c["xy"] for c in truth["crossings"]]
    for crossing in reading.report["crossings"]:
        x, y = crossing["xy"]
        assert min(np.hypot(x - left - tx, y - top - ty) for tx, ty in true_points) < 4.0


def test_a_reading_too_large_to_make_finer_is_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    # The small board of the test above, with the finer readings allowed fewer pixels
    # than its box holds even between half and full size (0.5 megapixels against its
    # 0.7 there; as for a photo of far more than 12 megapixels): the half-size
    # reading is the last, its thin strings traced all the same; and a photo of a bare
    # table is refused after one reading, not read again whole at the finer scale.
    monkeypatch.setattr(reader, "MAX_FINER_PIXELS", 500_000)
    loads = counting_loads(monkeypatch)
    reading = read_photo(small_board_in_a_large_photo()[0])
    assert (len(loads), reading.photo.scale, reading.photo.cut) == (1, 2.0, False)
    assert set(reading.stages["trace"].loops) == set(LINE_COLOURS)
    bare = np.full((3000, 4000, 3), (90, 120, 150), np.uint8)
    ok, encoded = cv2.imencode(".jpg", bare)
    assert ok
    loads.clear()
    with pytest.raises(ReadError, match="no strings"):
        read_photo(encoded.tobytes())
    assert len(loads) == 1
    # Within the allowance, the bare table is read again whole at the finer scale.
    monkeypatch.setattr(reader, "MAX_FINER_PIXELS", 13_000_000)
    loads.clear()
    with pytest.raises(ReadError, match="no strings"):
        read_photo(encoded.tobytes())
    assert len(loads) == 2


def test_a_reading_between_half_and_full_size_that_guesses_gives_way_to_full_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The small board again, its loops taken to be mostly guessed wherever they are
    # traced: the reading between half and full size is not kept, the board is read
    # again at full size as it was before there was a reading between, and that one is
    # kept (the half-size reading traced nothing to compare it with).
    monkeypatch.setattr(reader, "mostly_guessed", lambda loops: True)
    loads = counting_loads(monkeypatch)
    reading = read_photo(small_board_in_a_large_photo()[0])
    assert [load.get("scale") for load in loads][:1] == [None]
    assert 1.2 <= loads[1]["scale"] < 2.0 and len(loads) == 3
    assert reading.photo.scale == 1.0 and reading.photo.cut
    assert reading.report["scores"] == truth_of(EXACT_SAMPLE)["scores"]


def test_a_reading_between_half_and_full_size_that_is_refused_gives_way_to_full_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The small board again, the detector refusing the reading between half and full
    # size (as it does a photo of far too many pawn-like marks): the board is read at
    # full size as before, not refused.
    calls = detector_refusing_the_second_time(monkeypatch, "refused between")
    loads = counting_loads(monkeypatch)
    reading = read_photo(small_board_in_a_large_photo()[0])
    assert len(calls) == 3 and 1.2 <= loads[1]["scale"] < 2.0
    assert reading.photo.scale == 1.0
    assert reading.report["scores"] == truth_of(EXACT_SAMPLE)["scores"]


def test_a_reading_between_that_is_not_kept_leaves_the_first_readings_stages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The small board again, every trace refused, and the full-size reading allowed
    # fewer pixels than its box holds but the reading between more: that reading is
    # made, traces nothing and is not kept; the half-size reading, the last, is traced
    # and refused. Its debug pictures are of the half-size reading alone.
    monkeypatch.setattr(reader, "MAX_FINER_PIXELS", 1_000_000)

    def refused(*args: Any) -> Any:
        raise ReadError("a loop could not be closed (refused here)")

    monkeypatch.setattr(reader, "trace_with_cords", refused)
    loads = counting_loads(monkeypatch)
    with pytest.raises(ReadError, match="refused here") as refusal:
        read_photo(small_board_in_a_large_photo()[0])
    assert len(loads) == 2 and 1.2 <= loads[1]["scale"] < 2.0
    stages = refusal.value.stages
    assert stages["load"].scale == 2.0
    first_shape = stages["load"].rgb.shape
    pictures = draw_stages(stages)
    assert {"load", "colour", "separate", "detect"} <= set(pictures)
    assert all(picture.shape == first_shape for picture in pictures.values())


@pytest.mark.parametrize(
    ("width", "scale", "expected"),
    [
        (2.8, 2.0, 1.6),  # 2.8 px at half size is 3.5 at 1.6
        (2.12, 2.0, 1.2114),  # 3.5 px at 1.21, just over the least step worth a reading
        (2.08, 2.0, None),  # 3.5 px only at 1.19: read at full size at once
        (2.8, 4.0, 3.2),  # a large photo read at a quarter: between a quarter and half
        (1.5, 4.0, None),
        (3.2, 2.0, None),  # wide enough: traced at the first scale
        (0.0, 2.0, None),  # no strings at all: nothing to size a reading by
        (2.8, 1.0, None),  # read at full size already
    ],
)
def test_the_scale_between_makes_thin_strings_wide_enough(
    width: float, scale: float, expected: float | None
) -> None:
    strings = reader._Strings(
        photo=Photo(np.zeros((8, 8, 3), np.uint8), scale, (4032, 3024), "jpeg"),
        masks=None, pawns=None, detections=None, loops=None,
        separation=Separation({}, [], 2.0, np.zeros((8, 8), bool), measured_width=width))
    between = reader.between_scale(strings)
    assert between == (None if expected is None else pytest.approx(expected, abs=1e-4))


def test_the_finer_reading_is_sized_by_its_box() -> None:
    photo = Photo(np.zeros((1512, 2016, 3), np.uint8), 2.0, (4032, 3024), "jpeg")
    assert reader.finer_pixels(photo, None) == 4032 * 3024
    assert reader.finer_pixels(photo, (-10.0, 100.0, 1000.0, 600.0)) == 1000 * 500
    assert reader.finer_pixels(photo, (3000.0, 2000.0, 5000.0, 4000.0)) == 1032 * 1024
    quarter = replace(photo, scale=4.0)
    assert reader.finer_pixels(quarter, None) == 2016 * 1512
    # A turned photo's size is upright, as the box is.
    turned = replace(photo, rgb=np.zeros((2016, 1512, 3), np.uint8), size=(3024, 4032))
    assert reader.finer_pixels(turned, (0.0, 3000.0, 5000.0, 5000.0)) == 3024 * 1032
    # At a scale asked for, between half and full size.
    assert reader.finer_pixels(photo, (0.0, 0.0, 1500.0, 3000.0), 1.5) == 1000 * 2000


def _strings_found(string_box: tuple[slice, slice], cords: dict[str, Any]) -> Any:
    """A first reading at half size (1512 x 2016 working pixels) that found one red
    string in ``string_box``, pawns 20 px wide, and the detector's ``cords``."""
    shape = (1512, 2016)
    red = np.zeros(shape, bool)
    red[string_box] = True
    separation = Separation({"red": red}, [], 2.0, np.zeros(shape, bool))
    photo = Photo(np.zeros((*shape, 3), np.uint8), 2.0, (4032, 3024), "jpeg")
    return reader._Strings(
        photo, None, separation, Pawns([], 20.0, []), Detections([], 20.0, cords), None
    )


def test_the_finer_reading_holds_every_cord_the_detector_marks() -> None:
    # A dark green cord in a long shadow that the colour rules hardly label (630156):
    # the detector marks it running far beyond the strings the rules found.
    string_box = (slice(500, 700), slice(600, 900))
    green = np.zeros((1512, 2016), np.uint8)
    cv2.line(green, (700, 600), (1500, 100), 200, 2)
    stray = np.zeros_like(green)
    stray[1400:1403, 100:103] = 255  # a few pixels marked on the wood's grain
    margin = reader.BOX_MARGIN_PAWNS * 20.0
    # Without the detector's cords the box is the strings' alone.
    left, top, right, bottom = reader.board_box(_strings_found(string_box, {}))
    assert top == pytest.approx(2 * (500 - margin) - 1, abs=2)
    assert right == pytest.approx(2 * (900 + margin) - 1, abs=2)
    box = reader.board_box(_strings_found(string_box, {"green": green, "blue": stray}))
    assert box is not None
    left, top, right, bottom = box
    # (In the photo's pixels, twice the working ones: the line is 2 px thick, the box's
    # top is made even, and a working pixel's edge lies half a pixel from its centre.)
    assert top == pytest.approx(2 * (100 - 1 - margin) - 1, abs=4)
    assert right == pytest.approx(2 * (1500 + 1 + margin) + 1, abs=4)
    # The stray pixels are left out: the box's other sides are the string's.
    assert left == pytest.approx(2 * (600 - margin) - 1, abs=2)
    assert bottom == pytest.approx(2 * (700 + margin) - 1, abs=2)
    # A cord that runs within the box leaves it as it is, though it reaches beyond the
    # strings: the finer reading of a board read well is not to change.
    inside = np.zeros_like(green)
    cv2.line(inside, (560, 480), (940, 720), 200, 2)
    strings_alone = reader.board_box(_strings_found(string_box, {}))
    assert reader.board_box(_strings_found(string_box, {"green": inside})) == strings_alone
    # Nor does it move a side no cord runs out of, when another cord runs out of the
    # box at the top.
    grown = reader.board_box(_strings_found(string_box, {"green": green, "blue": inside}))
    assert grown == box
    assert grown[0] == strings_alone[0] and grown[3] == strings_alone[3]
    # A cord marked only faintly is left out too.
    faint = (green > 0).astype(np.uint8) * (reader.CORD_SURE - 1)
    assert reader.board_box(_strings_found(string_box, {"green": faint}))[1] == pytest.approx(
        2 * (500 - margin) - 1, abs=2
    )


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"this is not a photo", "not an image"),
        (EXACT_SAMPLE.read_bytes()[:20000], "truncated|damaged"),
    ],
    ids=["empty", "text", "truncated-jpeg"],
)
def test_bad_files_raise_read_errors(data: bytes, message: str) -> None:
    with pytest.raises(ReadError, match=message):
        read_photo(data)


def test_the_report_is_in_the_photos_pixels_with_confidences(upright: dict[str, Any]) -> None:
    width, height = upright["image"]["width"], upright["image"]["height"]
    assert (width, height) == upright_image().size
    for line in upright["lines"].values():
        xs, ys = np.array(line["polyline"]).T
        assert xs.min() >= 0 and xs.max() < width and ys.min() >= 0 and ys.max() < height
    assert all(0 <= c["confidence"] <= 1 for c in upright["crossings"] + upright["creatures"])
    assert isinstance(upright["warnings"], list)
    # Every knot says how surely the detector marked it; a sample's knots are clear.
    knots = [line for line in upright["lines"].values() if line["knot"] is not None]
    assert len(knots) == 4
    assert all(LOW_CONFIDENCE <= line["knot_confidence"] <= 1 for line in knots)
    assert not [w for w in upright["warnings"] if "knot is unsure" in w]


@pytest.mark.skipif(not DEV_PHOTOS.is_dir(), reason="../shared/dev-photos is not beside the repo")
def test_an_unsure_knot_is_named_in_the_warnings() -> None:
    # dev_0015 (green felt, long shadows): the green loop is half guessed, and its knot
    # with it; the detector marks nothing knot-like where the reading put it.
    report = read_photo(DEV_PHOTOS / "dev_0015.jpg").report
    green = report["lines"]["green"]
    assert green["knot_confidence"] < LOW_CONFIDENCE
    assert [w for w in report["warnings"] if w.startswith("the green knot is unsure")]


def test_warnings_name_points_in_the_photos_pixels() -> None:
    # A 4032-px photo is read at half size; the pawns a warning names (a ghost seen
    # only by its shape, touching pawns) are where the report puts them, not at half
    # their coordinates.
    reading = read_photo(SAMPLES / "08_hard_steep_side_light.jpg")
    report, photo = reading.report, reading.photo
    assert photo.scale == 2
    named = [w for w in report["warnings"] if " at (" in w or " near (" in w]
    assert named
    for warning in named:
        colour = next(word for word in warning.split() if word in (*LINE_COLOURS, "white"))
        x, y = (float(v) for v in warning.split("(")[1].split(")")[0].split(","))
        if warning.startswith("ignored"):
            # Something ignored (here a blue playing card at the border) is no creature:
            # the colour stage saw its colour there, in the working pixels.
            u, v = (round((x + 0.5) / photo.scale - 0.5), round((y + 0.5) / photo.scale - 0.5))
            labels = reading.stages["colour"].labels[v - 2 : v + 3, u - 2 : u + 3]
            assert LABEL_COLOURS.index(colour) in labels
            continue
        nearest = min(
            np.hypot(c["xy"][0] - x, c["xy"][1] - y)
            for c in report["creatures"]
            if c["colour"] == colour
        )
        assert nearest < 0.05 * report["image"]["width"]


def test_a_remark_gives_its_point_in_the_photos_pixels() -> None:
    remark = Remark("3 touching red pawns read near {at}", (10.0, 20.0))
    assert remark.in_photo(lambda points: [(2 * x, 2 * y) for x, y in points]) == (
        "3 touching red pawns read near (20, 40)"
    )
    assert Remark("no knot found").in_photo(lambda points: []) == "no knot found"


def test_a_crossing_where_the_cord_map_shows_a_loop_faintly_is_doubted() -> None:
    # Two thin loops crossing about (100, 100), traced a pixel a point as the tracer
    # does; the cord maps draw each where it runs.
    along = np.arange(20.0, 181.0)
    there, back = np.column_stack([along, np.full_like(along, 100)]), np.column_stack(
        [along[::-1], np.full_like(along, 104)])
    red = Loop("red", np.vstack([there, back]), None)
    blue = Loop("blue", np.vstack([there, back])[:, ::-1], None)
    loops = Loops({"red": red, "blue": blue}, [])
    crossing = Crossing(0, (100.0, 100.0), ("blue", "red"))
    cords = {c: np.zeros((200, 200), np.uint8) for c in ("red", "blue")}
    cv2.line(cords["red"], (20, 100), (180, 100), 255, 5)
    cv2.line(cords["blue"], (100, 20), (100, 180), 255, 5)
    assert not faint_cord_at(crossing, loops, cords, width=4.0)
    # The blue cord on a table of its hue: the detector barely sees it.
    cords["blue"] //= 8
    assert faint_cord_at(crossing, loops, cords, width=4.0)
    # A colour with no cord map says nothing.
    assert not faint_cord_at(crossing, loops, {"red": cords["red"]}, width=4.0)


def test_an_early_board_whose_knots_look_like_pawns_at_a_smaller_width_is_read_exactly() -> None:
    # Seed 420031 (easy, light wood, six pawns, a card beside the board): at the
    # colour rules' width the detector marks mostly faintly, and looked at for pawns
    # 0.65 as wide it marks the four knots as demons, surely. The sizer measures the
    # pawns at those marks 1.76 times as wide as looked for, so that look is not kept.
    made = make_photo(420031, "easy")
    reading = read_photo(made.jpeg)
    assert reading.stages["detect"].pawn_width == pytest.approx(
        reading.stages["creatures"].pawn_width
    )
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.board_exact, "; ".join(comparison.problems)
    assert len(reading.report["creatures"]) == len(made.truth["creatures"])


def test_a_pale_demon_on_a_table_of_its_hue_is_read_in_its_corner() -> None:
    # Seed 280166 (hard, green felt): a green demon beside a yellow one is marked 0.4
    # in the one view and 0.21 in the mean of the eight: taken in its corner, as a demon
    # of the table's hue, only where the reader hands the table's hue to that stage.
    made = make_photo(280166, "hard")
    reading = read_photo(made.jpeg)
    [pale] = [c for c in made.truth["creatures"] if c["id"] == 3]
    assert (pale["kind"], pale["colour"]) == ("demon", "green")
    reach = 0.5 * reading.stages["detect"].pawn_width * reading.photo.scale
    read = [
        c
        for c in reading.report["creatures"]
        if c["colour"] == "green" and np.hypot(*np.subtract(c["xy"], pale["xy"])) < reach
    ]
    assert len(read) == 1 and read[0]["kind"] == "demon"
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.board_exact, "; ".join(comparison.problems)


def test_a_demon_planted_beside_its_corner_on_a_tilted_photo_is_read_beside_it() -> None:
    # Seed 350142 (hard, tilted): a red demon planted away from every corner stands
    # beyond its corner's reach as a pawn of its own width, within it as one of the
    # photo's median width, which the near pawns make too wide for it. Located with the
    # width the table's plane gives at its foot, it is read where it stands. (The photo
    # as it was before lacquered pawns: with them, this demon is read in the corner.)
    made = make_photo(350142, "hard", finishes=False)
    reading = read_photo(made.jpeg)
    [planted] = [c for c in made.truth["creatures"] if c["id"] == 5]
    assert (planted["kind"], planted["colour"], planted["crossing"]) == ("demon", "red", None)
    reach = 0.5 * reading.stages["detect"].pawn_width * reading.photo.scale
    [read] = [
        c
        for c in reading.report["creatures"]
        if c["colour"] == "red" and np.hypot(*np.subtract(c["xy"], planted["xy"])) < reach
    ]
    assert read["kind"] == "demon" and read["crossing"] is None
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.board_exact, "; ".join(comparison.problems)


def test_a_demon_between_two_corners_is_read_in_the_corner_it_stands_in() -> None:
    # Seed 440029 (easy): a green demon stands loosely between two corners of its
    # colour in one field; the one look's foot put it in the other one, the mean of the
    # eight views' feet in the truth's (vision.reader.place, foot_again).
    made = make_photo(440029, "easy")
    reading = read_photo(made.jpeg)
    [loose] = [c for c in made.truth["creatures"] if c["id"] == 4]
    assert (loose["kind"], loose["colour"]) == ("demon", "green")
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.board_exact, "; ".join(comparison.problems)
    assert not [p for p in comparison.problems if p.startswith("creature 4 (")]


def test_a_crossing_of_a_cord_traced_along_its_shadow_is_settled_on_a_closer_look() -> None:
    # Seed 230192 (hard, green felt): the green cord was traced along its shadow, and
    # the first look's cord map takes in the shadow too: the crossing with the red
    # cord was read 2.2 string widths from its place, and its two green demons at a
    # crossing read aside. A closer look round the crossing marks the cord's own band
    # (vision.detect.cords_near), which its fit keeps nearer than the first look's, and
    # the crossing is settled there. (The felt as it was before pale ones: on a pale
    # felt the crossing is read aside again, though the board is still read exactly.)
    made = make_photo(230192, "hard", finishes=False)
    reading = read_photo(made.jpeg)
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.board_exact, "; ".join(comparison.problems)
    assert comparison.crossings_matched == comparison.crossings_truth
    assert not [p for p in comparison.problems if "off its place" in p or "read aside" in p]


def test_a_crossing_traced_far_aside_is_settled_on_the_cord_maps() -> None:
    # Seed 260204 (hard): the green and yellow cords' traces crossed four and a half
    # string widths (as the reader measures them) from where the cords do (crossing
    # 4), farther than the first pass moves a crossing; the cord maps show where.
    made = make_photo(260204, "hard")
    reading = read_photo(made.jpeg)
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.crossings_matched == comparison.crossings_truth


def test_a_crossing_moved_part_of_the_way_is_settled_where_it_was_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seed 240206 (hard, blue mat): the dark blue cord traced four and a half string
    # widths aside of its crossing with the green one, the maps' fit round that trace
    # moved it two and a half, and the maps looked at again there settle it. That was
    # at full size, where its thin strings were read; read between half and full size
    # (eighty-eighth session) its crossing 7 lands 4.0 string widths aside, the board
    # still exact: the full-size reading is kept here for the step it tests.
    monkeypatch.setattr(reader, "between_scale", lambda strings: None)
    made = make_photo(240206, "hard")
    reading = read_photo(made.jpeg)
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.crossings_matched == comparison.crossings_truth


def test_a_crossing_whose_traces_run_smooth_is_not_moved_on_the_cord_maps() -> None:
    # Seed 320208 (hard, blue mat): the green and yellow cords were traced right, smooth
    # through crossing 1, but the green cord's maps round it, taking in the green demon
    # pressed against the cord in the corner above, moved it 2.6 string widths up the
    # yellow cord, and its three green demons with it. Where both traces run smooth
    # through a crossing, the maps are not looked at there. (The photo as it was before
    # lacquered pawns: with them the crossing is read aside again and a blue demon
    # missed, though the scores are still right.)
    made = make_photo(320208, "hard", finishes=False)
    reading = read_photo(made.jpeg)
    comparison = compare_reports(reading.report, made.truth)
    assert comparison.crossings_matched == comparison.crossings_truth
    assert not [p for p in comparison.problems if "off its place" in p or "read aside" in p]
