"""``dicke-daemonen score``: read photos of the table into scored boards.

One photo::

    dicke-daemonen score PHOTO [--json] [--overlay OUT.png] [--debug DIR]

prints a short summary (scores of all five colours, winners, violations, what the
reader was unsure of), or with ``--json`` the board report of CONTRACT.md. Nothing is
printed until the photo has been read completely, and a photo that cannot be read as
a board gives one line on standard error and exit status 2, never a made-up board;
with ``--debug`` the stages that ran before it failed are still drawn into DIR, so the
failure can be seen where it happened.

A folder::

    dicke-daemonen score DIR --out results.jsonl

reads every photo in it (JPEG, PNG, WebP, HEIC; overlays written by ``synth
--overlay`` are skipped) with a progress bar, and writes one JSON line per photo: the
report with a ``"photo"`` key, or ``{"photo": ..., "error": ...}`` for a photo that
could not be read; the others go on. Without ``--out`` the lines go to standard output.
The exit status is 2 when any photo could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from cli.errors import UserError

if TYPE_CHECKING:  # the reader is imported only when a photo is read: it pulls in OpenCV
    import numpy as np

    from vision.reader import Reading

SCORE_COLOURS = ("red", "yellow", "green", "blue", "white")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="read a photo of the table (or a folder of them) into a scored board",
        description="Read the four string loops, their crossings and every creature from "
        "a photo of the table, score the board and name the winners. PHOTO may be a "
        "folder: then every photo in it is read, one JSON line each.",
    )
    parser.add_argument("photo", type=Path, help="photo (JPEG, PNG, WebP, HEIC) or folder")
    parser.add_argument("--json", action="store_true",
                        help="print the board report (JSON) instead of the summary")
    parser.add_argument("--overlay", type=Path, metavar="OUT.png",
                        help="write the photo (at the reader's working resolution) with the "
                        "reading drawn over it")
    parser.add_argument("--debug", type=Path, metavar="DIR",
                        help="write one picture per reader stage into DIR (for a photo "
                        "that cannot be read, of the stages that ran)")
    parser.add_argument("--out", type=Path, metavar="RESULTS.jsonl",
                        help="for a folder: write the JSON lines here (default: stdout)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.photo.is_dir():
        if args.overlay or args.debug or args.json:
            raise UserError("--overlay, --debug and --json are for one photo; "
                            "a folder gives JSON lines (--out)")
        return score_folder(args.photo, args.out)
    if args.overlay is not None and args.overlay.is_dir():
        raise UserError(f"cannot write {args.overlay}: a folder; give a file name such as "
                        "overlay.png")
    if args.out:
        if not args.photo.exists():
            raise UserError(f"no such folder or photo: {args.photo}")
        raise UserError("--out is for a folder of photos; for one photo use --json")
    return score_photo(args.photo, as_json=args.json, overlay=args.overlay, debug=args.debug)


# --- one photo ----------------------------------------------------------------------------


def score_photo(photo: Path, *, as_json: bool, overlay: Path | None, debug: Path | None) -> int:
    """Read one photo; write the overlay and debug pictures; then print the result."""
    from vision.load import load_photo
    from vision.overlay import draw_overlay

    reading = _read_or_refusal(photo)
    if isinstance(reading, Refusal):
        # A refused photo is looked at where it failed: the stages that ran are drawn.
        if debug is not None:
            try:
                pictures = _write_stages(reading.stages, debug)
            except UserError as error:  # the reason is not lost for it
                raise UserError(f"{photo}: {reading.reason}; and {error}") from error
            if pictures:
                raise UserError(f"{photo}: {reading.reason} (the stages that ran: {debug})")
        raise UserError(f"{photo}: {reading.reason}")
    if overlay is not None:
        backdrop = reading.photo
        if backdrop.cut:
            # The board was read from a part of the photo: draw on the whole of it.
            backdrop = load_photo(photo)
        drawn = draw_overlay(backdrop.rgb, reading.report, backdrop.scale)
        _write_picture(drawn, overlay)
    if debug is not None:
        _write_stages(reading.stages, debug)
    # Everything is done: only now does anything go to standard output.
    if as_json:
        sys.stdout.write(json.dumps(reading.report) + "\n")
    else:
        sys.stdout.write("\n".join(summary_lines(reading.report, str(photo))) + "\n")
    return 0


@dataclass(frozen=True)
class Refusal:
    """Why a photo could not be read as a board, and what the stages that ran gave."""

    reason: str  # one line
    stages: Mapping[str, Any]


def _read_or_refusal(photo: Path) -> Reading | Refusal:
    """The reading of ``photo``, or why it could not be read."""
    from engine.errors import EngineError
    from vision.errors import ReadError
    from vision.reader import read_photo

    try:
        return read_photo(photo)
    except ReadError as error:
        return Refusal(_one_line(error), error.stages)
    except EngineError as error:
        return Refusal(_one_line(error), {})


def _write_stages(stages: Mapping[str, Any], debug: Path) -> int:
    """Write one picture per stage that gave an output (:func:`vision.reader.draw_stages`)
    into the folder ``debug``, made if need be (not where there is none); how many."""
    from vision.reader import draw_stages

    pictures = draw_stages(stages)
    if pictures:
        try:
            debug.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot make {debug}: {error.strerror or error}") from error
    for name, picture in pictures.items():
        _write_picture(picture, debug / f"{name}.png")
    return len(pictures)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _write_picture(rgb: np.ndarray, path: Path) -> None:
    from PIL import Image

    try:
        Image.fromarray(rgb).save(path)
    except (OSError, ValueError) as error:  # ValueError: an unknown file ending
        raise UserError(f"cannot write {path}: {_one_line(error)}") from error


def summary_lines(report: Mapping[str, Any], name: str) -> list[str]:
    """The short human account of one reading."""
    creatures = report.get("creatures") or []
    off_board = sum(bool(c.get("off_board")) for c in creatures)
    bounded = sum(not f.get("outer") for f in report.get("fields") or [])
    counts = (f"{len(report.get('lines') or {})} loops, "
              f"{len(report.get('crossings') or [])} crossings, {bounded} fields, "
              f"{len(creatures)} creatures")
    if off_board:
        counts += f" ({off_board} off the board)"
    scores = report.get("scores") or {}
    lines = [
        f"{name}: {counts}",
        "Scores: " + ", ".join(f"{c} {scores.get(c, 0)}" for c in SCORE_COLOURS),
        "Winners: " + (", ".join(report.get("winners") or []) or "none"),
    ]
    violations = report.get("violations") or []
    lines.append(f"Violations: {len(violations) or 'none'}")
    lines += [f"  {v.get('rule')}: {v.get('message', '')}".rstrip(": ") for v in violations]
    unsure = _unsure_items(report)
    warnings = list(report.get("warnings") or [])
    if unsure or warnings:
        lines.append("Unsure of:" + (f" {unsure}" if unsure else ""))
        lines += [f"  {w}" for w in warnings]
    return lines


def _unsure_items(report: Mapping[str, Any]) -> str:
    """E.g. "2 crossings (3, 7); 1 knot (green) with confidence < 0.6", or "" when
    there are none."""
    from vision.doubts import LOW_CONFIDENCE, is_unsure

    parts = []
    for key, singular in (("crossings", "crossing"), ("creatures", "creature")):
        low = [item for item in report.get(key) or [] if is_unsure(item.get("confidence"))]
        if low:
            ids = ", ".join(str(item.get("id")) for item in low)
            parts.append(f"{len(low)} {singular if len(low) == 1 else key} ({ids})")
    knots = [colour for colour, line in (report.get("lines") or {}).items()
             if line.get("knot") is not None and is_unsure(line.get("knot_confidence"))]
    if knots:
        parts.append(f"{len(knots)} knot{'s' * (len(knots) > 1)} ({', '.join(knots)})")
    return "; ".join(parts) + f" with confidence < {LOW_CONFIDENCE}" if parts else ""


# --- a folder -----------------------------------------------------------------------------


def score_folder(folder: Path, out: Path | None) -> int:
    """Read every photo of ``folder``, one JSON line each; the exit status is 2 if any fails."""
    from vision.load import PHOTO_SUFFIXES, photos_in

    photos = photos_in(folder)
    if not photos:
        raise UserError(f"{folder}: no photos in this folder "
                        f"({', '.join(PHOTO_SUFFIXES)})")
    failed = 0
    with _open_output(out) as sink:
        for line in results(photos):
            failed += "error" in line
            try:
                sink.write(json.dumps(line) + "\n")
                sink.flush()
            except OSError as error:  # a full disk: what was written stays, the rest stops
                name = out if out is not None else "standard output"
                not_written = f" (the line of {line['photo']} and the rest not written)"
                raise _cannot_write(name, error, not_written) from error
    if failed:
        where = f" (see {out})" if out else ""
        print(f"dicke-daemonen score: {failed} of {len(photos)} photos could not be "
              f"read{where}", file=sys.stderr)
        return 2
    return 0


def results(photos: Sequence[Path]) -> Iterator[dict[str, Any]]:
    """One result per photo, in order, with a progress bar on standard error (if a tty)."""
    from tqdm import tqdm

    for photo in tqdm(photos, desc="photos", unit="photo", disable=None, file=sys.stderr):
        try:
            reading = _read_or_refusal(photo)
        except Exception as error:  # noqa: BLE001 - a bug on one photo must not stop the rest
            reading = Refusal(f"internal error: {type(error).__name__}: {_one_line(error)}", {})
        if isinstance(reading, Refusal):
            result = {"photo": str(photo), "error": reading.reason}
        else:
            result = {"photo": str(photo), **reading.report}
        # A reading holds every stage's images (hundreds of MB for a photo read at full
        # size): let it go before the next photo is read, not when it is replaced.
        del reading
        yield result


@contextmanager
def _open_output(path: Path | None) -> Iterator[IO[str]]:
    """The output file, or standard output (left open)."""
    if path is None:
        yield sys.stdout
        return
    try:
        file = path.open("w", encoding="utf-8")
    except OSError as error:
        raise _cannot_write(path, error) from error
    try:
        yield file
    except BaseException:
        # The error in hand says what went wrong; what is still buffered cannot be
        # written either.
        with suppress(OSError):
            file.close()
        raise
    try:
        file.close()  # what is still buffered: a full disk shows here too
    except OSError as error:
        raise _cannot_write(path, error) from error


def _cannot_write(name: object, error: OSError, more: str = "") -> UserError:
    return UserError(f"cannot write {name}: {error.strerror or error}{more}")
