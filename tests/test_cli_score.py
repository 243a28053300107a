"""``dicke-daemonen score``: bad input gives one line and exit 2; good photos give boards."""

from __future__ import annotations

import io
import json
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageOps

from cli.main import main
from cli.score import summary_lines
from vision.load import photos_in

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_images"
GOOD = SAMPLES / "05_normal_violations.jpg"
GOOD_TOO = SAMPLES / "02_easy_cloth.jpg"


def jpeg(width: int = 640, height: int = 480) -> bytes:
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 255, (height, width, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG")
    return buffer.getvalue()


def huge_png_header() -> bytes:
    """A PNG header claiming 20000 × 20000 pixels (400 megapixels), and nothing else."""
    body = struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(body)) + b"IHDR" + body
    chunk += struct.pack(">I", zlib.crc32(b"IHDR" + body) & 0xFFFFFFFF)
    idat = zlib.compressobj().compress(bytes(60001))
    idat_chunk = struct.pack(">I", len(idat)) + b"IDAT" + idat
    idat_chunk += struct.pack(">I", zlib.crc32(b"IDAT" + idat) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk + idat_chunk


def score(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["score", *argv])
    out, err = capsys.readouterr()
    return status, out, err


BAD_FILES: list[tuple[str, Callable[[], bytes], str]] = [
    ("not an image", lambda: b"Dicke Daemonen\n" * 50, "not an image"),
    ("truncated JPEG", lambda: jpeg()[:5000], "truncated"),
    # Overwritten in the middle: libjpeg only warns, and would give half a picture.
    ("damaged JPEG", lambda: jpeg()[:40000] + bytes(i * 37 % 255 for i in range(2048))
     + jpeg()[42048:], "damaged"),
    ("empty file", lambda: b"", "empty"),
    ("huge header", huge_png_header, "too large"),
    ("too small", lambda: jpeg(200, 150), "too small"),
]


@pytest.mark.parametrize(("case", "make", "reason"), BAD_FILES, ids=[c for c, _, _ in BAD_FILES])
@pytest.mark.parametrize("as_json", [False, True])
def test_a_bad_photo_gives_one_line_and_exit_2(
    case: str, make: Callable[[], bytes], reason: str, as_json: bool,
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(make())
    overlay = tmp_path / "overlay.png"
    argv = [str(photo), "--overlay", str(overlay)] + (["--json"] if as_json else [])
    status, out, err = score(argv, capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert err.startswith(f"dicke-daemonen score: {photo}: ")
    assert reason in err
    assert not overlay.exists()


def test_a_missing_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = score([str(tmp_path / "nowhere.jpg")], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "cannot read" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{folder}", "--json"], "for one photo"),
        (["{folder}", "--overlay", "x.png"], "for one photo"),
        (["{photo}", "--out", "r.jsonl"], "for a folder"),
        (["{missing}", "--out", "r.jsonl"], "no such folder or photo"),
        (["{empty}"], "no photos"),
    ],
)
def test_options_that_do_not_fit(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, empty = tmp_path / "photos", tmp_path / "empty"
    folder.mkdir()
    empty.mkdir()
    (folder / "a.jpg").write_bytes(jpeg())
    paths = {"folder": folder, "empty": empty, "photo": folder / "a.jpg",
             "missing": tmp_path / "nowhere"}
    status, out, err = score([a.format(**paths) for a in argv], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and message in err


def test_photos_in_a_folder(tmp_path: Path) -> None:
    for name in ["b.JPG", "a.png", "c.heic", "d.webp", "e.truth.json", "f.overlay.jpg",
                 "notes.txt", "g.jpeg"]:
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "sub.jpg").mkdir()
    (tmp_path / "h.jpg").symlink_to(tmp_path / "gone.jpg")  # a link to nothing: a photo lost
    names = [p.name for p in photos_in(tmp_path)]
    assert names == ["a.png", "b.JPG", "c.heic", "d.webp", "g.jpeg", "h.jpg"]


def test_a_link_to_nothing_in_a_folder_gets_its_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.jpg").symlink_to(tmp_path / "gone.jpg")
    (tmp_path / "b.jpg").write_bytes(b"not a photo")
    status, out, err = score([str(tmp_path)], capsys)
    assert status == 2 and "2 of 2 photos could not be read" in err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [Path(line["photo"]).name for line in lines] == ["a.jpg", "b.jpg"]
    assert "cannot read" in lines[0]["error"] and "not an image" in lines[1]["error"]


def test_an_error_while_the_results_are_written_is_not_called_a_write_error(
    tmp_path: Path,
) -> None:
    from cli.score import _open_output

    out = tmp_path / "results.jsonl"
    # E.g. the progress bar's standard error closed.
    with pytest.raises(BrokenPipeError), _open_output(out) as sink:
        sink.write("{}\n")
        raise BrokenPipeError("stderr closed")
    assert out.read_text() == "{}\n"  # what was written is kept and the file closed


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_results_file_that_cannot_be_written_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.jpg").write_bytes(b"not a photo")
    status, out, err = score([str(tmp_path), "--out", "/dev/full"], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert "cannot write /dev/full: No space left on device (the line of" in err


def test_one_bad_photo_in_a_folder_does_not_stop_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    shutil.copy(GOOD, folder / "a_good.jpg")
    (folder / "b_truncated.jpg").write_bytes(GOOD.read_bytes()[:20000])
    shutil.copy(GOOD_TOO, folder / "c_good.jpg")
    results = tmp_path / "results.jsonl"
    status, out, err = score([str(folder), "--out", str(results)], capsys)
    assert (status, out) == (2, "")
    assert err == f"dicke-daemonen score: 1 of 3 photos could not be read (see {results})\n"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [Path(line["photo"]).name for line in lines] == [
        "a_good.jpg", "b_truncated.jpg", "c_good.jpg"]
    assert "truncated" in lines[1]["error"] and set(lines[1]) == {"photo", "error"}
    for good in (lines[0], lines[2]):
        assert "error" not in good, good.get("error")
        assert good["schema"] == "dicke-daemonen/board@1"
        assert set(good["scores"]) == {"red", "yellow", "green", "blue", "white"}


def test_a_reader_crash_on_one_photo_is_recorded_and_the_rest_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the command's own bookkeeping is tested here, so the reader is a stand-in.
    import vision.reader

    def fake_read_photo(source: Any, **_: Any) -> Any:
        if Path(source).name == "b.jpg":
            raise RuntimeError("a bug\nover two lines")

        class Reading:
            report = {"schema": "dicke-daemonen/board@1", "name": Path(source).name}

        return Reading()

    monkeypatch.setattr(vision.reader, "read_photo", fake_read_photo)
    for name in ("a.jpg", "b.jpg", "c.jpg"):
        (tmp_path / name).write_bytes(b"x")
    status, out, err = score([str(tmp_path)], capsys)
    assert status == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line.get("name") for line in lines] == ["a.jpg", None, "c.jpg"]
    assert lines[1]["error"] == "internal error: RuntimeError: a bug over two lines"
    assert err.count("\n") == 1


def test_the_summary_says_scores_winners_violations_and_doubts() -> None:
    truth = json.loads((SAMPLES / "05_normal_violations.truth.json").read_text())
    truth["creatures"][4]["confidence"] = 0.3
    truth["crossings"][2]["confidence"] = 0.5
    truth["lines"]["red"]["knot_confidence"] = 0.3
    truth["lines"]["blue"]["knot_confidence"] = 0.9
    truth["warnings"] = ["no knot found on the green loop"]
    lines = summary_lines(truth, "photo.jpg")
    text = "\n".join(lines)
    scores = truth["scores"]
    assert lines[0].startswith("photo.jpg: 4 loops, ")
    assert f"{len(truth['crossings'])} crossings" in lines[0]
    off = sum(c["off_board"] for c in truth["creatures"])
    assert f"{len(truth['creatures'])} creatures ({off} off the board)" in lines[0]
    assert lines[1] == "Scores: " + ", ".join(
        f"{c} {scores[c]}" for c in ("red", "yellow", "green", "blue", "white"))
    assert lines[2] == "Winners: " + ", ".join(truth["winners"])
    for violation in truth["violations"]:
        assert f"  {violation['rule']}: {violation['message']}" in lines
    assert "1 crossing (2); 1 creature (4); 1 knot (red) with confidence < 0.6" in text
    assert "  no knot found on the green loop" in lines
    sure = json.loads((SAMPLES / "05_normal_violations.truth.json").read_text())
    assert not any(line.startswith("Unsure") for line in summary_lines(sure, "p"))


# --- with the real reader -----------------------------------------------------------------


def test_one_photo_as_json_overlay_and_debug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    overlay, debug = tmp_path / "overlay.png", tmp_path / "debug"
    status, out, err = score(
        [str(GOOD), "--json", "--overlay", str(overlay), "--debug", str(debug)], capsys)
    assert status == 0, err
    report = json.loads(out)
    assert out.count("\n") == 1
    with Image.open(GOOD) as photo:
        size = ImageOps.exif_transpose(photo).size  # as a person sees it
    assert (report["image"]["width"], report["image"]["height"]) == size
    assert set(report["scores"]) == {"red", "yellow", "green", "blue", "white"}
    assert isinstance(report["warnings"], list)
    assert all(0 <= c["confidence"] <= 1 for c in report["crossings"] + report["creatures"])
    with Image.open(overlay) as drawn:
        assert drawn.mode == "RGB" and drawn.size[0] / drawn.size[1] == pytest.approx(
            size[0] / size[1], rel=0.01)
    written = sorted(p.name for p in debug.iterdir())
    assert "load.png" in written and "settle.png" in written and len(written) >= 3


def test_a_refused_photo_still_gets_the_pictures_of_the_stages_that_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A table with no strings on it: the reader refuses it, and the pictures say why.
    with Image.open(GOOD_TOO) as sample:
        size = sample.size
    table = np.full((size[1], size[0], 3), (150, 110, 70), np.uint8)
    table += np.random.default_rng(3).integers(0, 12, table.shape, np.uint8)
    photo, debug = tmp_path / "table.jpg", tmp_path / "debug"
    Image.fromarray(table).save(photo, quality=90)
    status, out, err = score([str(photo), "--json", "--debug", str(debug)], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "no strings" in err and str(debug) in err
    written = sorted(p.name for p in debug.iterdir())
    assert {"load.png", "colour.png"} <= set(written) and "trace.png" not in written
    with Image.open(debug / "load.png") as drawn:
        assert drawn.size[0] / drawn.size[1] == pytest.approx(size[0] / size[1], rel=0.01)
    # A file that is no photo has no stage to draw: nothing is written, the reason is.
    (tmp_path / "no.jpg").write_bytes(b"Dicke Daemonen\n" * 50)
    status, out, err = score([str(tmp_path / "no.jpg"), "--debug", str(tmp_path / "d2")], capsys)
    assert (status, out) == (2, "") and "not an image" in err
    assert str(tmp_path / "d2") not in err and not (tmp_path / "d2").exists()
    # A folder that cannot be made does not hide why the photo was refused.
    (tmp_path / "file").write_text("x")
    status, out, err = score([str(photo), "--debug", str(tmp_path / "file" / "d")], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "no strings" in err and "cannot make" in err


def test_the_overlay_of_a_photo_read_from_its_board_part_shows_the_whole_photo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A board small in the photo is read again at full size from its part of the photo
    # (vision.reader.board_box); the overlay still shows all of the photo.
    with Image.open(GOOD_TOO) as sample:
        board = np.asarray(sample.convert("RGB"))
    height, width = board.shape[:2]
    large = np.pad(board, ((height // 2, height // 2), (width // 2, width // 2), (0, 0)), "edge")
    photo, overlay = tmp_path / "far.jpg", tmp_path / "overlay.png"
    Image.fromarray(large).save(photo, quality=95)
    status, out, err = score([str(photo), "--json", "--overlay", str(overlay)], capsys)
    assert status == 0, err
    with Image.open(overlay) as drawn:
        # The whole photo at the half-size decode, not the cut-out read at full size.
        assert drawn.size == (large.shape[1] // 2, large.shape[0] // 2)
        drawn_rgb = np.asarray(drawn.convert("RGB"))
    # The corners of the photo, far from the board, are drawn as they are (but for the
    # one that may hold the score panel).
    halved = large[::2, ::2].astype(int)
    ends = (slice(0, 100), slice(-100, None))
    alike = [
        np.abs(drawn_rgb[rows, columns] - halved[rows, columns]).mean() < 8
        for rows in ends
        for columns in ends
    ]
    assert sum(alike) >= 3


def test_one_photo_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = score([str(GOOD_TOO)], capsys)
    assert status == 0, err
    assert out.startswith(f"{GOOD_TOO}: 4 loops, ")
    assert "\nScores: red " in out and "\nWinners: " in out


def test_an_overlay_that_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = score([str(GOOD), "--overlay", str(tmp_path / "no" / "o.png")], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "cannot write" in err
    status, out, err = score([str(GOOD), "--overlay", str(tmp_path)], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "a folder; give a file name" in err
