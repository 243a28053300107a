"""How fast the reader is, and how much memory it takes, per 12-megapixel photo.

Run::

    python benchmarks/speed.py [--count 9] [--seed 7000]
    python benchmarks/speed.py --set DIR [--count N]

Without ``--set`` it first generates ``--count`` fresh 4032×3024 photos (easy, normal
and hard in turn) in a separate process, so that the generator's memory does not count.
With ``--set`` it reads the 4032×3024 photos of that folder.

Printed: the median wall time of each reader stage (``Reading.timings``) and of the
whole ``read_photo`` (photos read one after another, as ``score DIR`` does, and again
each after the reader gave back the memory it keeps between readings, as a server
idle for a few seconds has: ``vision.memory``), the median time of plain full-size
JPEG decoding of the same photos in the same run (``cv2.imdecode``) and the ratio of
the two; then the peak memory: the process's maximum resident size (``getrusage``)
before and after reading, and the largest Python/NumPy allocation peak of one reading
(``tracemalloc``, in a second pass, since tracing slows allocation down). The machine
is shared and noisy: read medians, and compare runs as ratios. Targets (issue 7): 0.5 s
per photo, about 6 times its JPEG decoding, peak memory ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from vision import memory, parallel  # noqa: E402
from vision.errors import ReadError  # noqa: E402
from vision.reader import read_photo  # noqa: E402

SIZE = (4032, 3024)
TARGET_SECONDS = 0.5
TARGET_RATIO = 6.0
TARGET_BYTES = 1 << 30
DIFFICULTIES = ("easy", "normal", "hard")


def generate(folder: Path, count: int, seed: int) -> list[Path]:
    """``count`` fresh 4032×3024 photos, the difficulties in turn, made in child processes."""
    command = [sys.executable, "-m", "cli", "synth", "--size", f"{SIZE[0]}x{SIZE[1]}",
               "--out", str(folder), "--count", "1"]
    for i in range(count):
        difficulty = DIFFICULTIES[i % len(DIFFICULTIES)]
        subprocess.run([*command, "--seed", str(seed + i), "--difficulty", difficulty],
                       check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
    return sorted(folder.glob("*.jpg"))


def photos_of_size(folder: Path, count: int) -> list[Path]:
    photos = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in (".jpg", ".jpeg") and ".overlay." not in path.name:
            with Image.open(path) as image:
                if tuple(sorted(image.size)) == tuple(sorted(SIZE)):
                    photos.append(path)
        if len(photos) == count:
            break
    return photos


def decode_seconds(data: bytes) -> float:
    """Seconds for plain full-size JPEG decoding, best of three (it is this run's yardstick)."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
        best = min(best, time.perf_counter() - start)
        assert image is not None
    return best


def max_rss_bytes() -> int:
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def time_readings(
    photos: Sequence[Path], after_idle: bool = False
) -> tuple[list[dict[str, float]], list[float]]:
    """Per photo: the stage timings plus "total"; and the JPEG decode time of each.

    With ``after_idle``, the memory the reader keeps between readings is given back to
    the system before each (as on a server that has been idle a few seconds), and the
    decode is not timed again.
    """
    readings, decodes = [], []
    for photo in photos:
        data = photo.read_bytes()
        if after_idle:
            memory.give_back()
        else:
            decodes.append(decode_seconds(data))
        start = time.perf_counter()
        try:
            reading = read_photo(data)
        except ReadError as error:
            total = time.perf_counter() - start
            print(f"  {photo.name}: refused after {total:.2f} s ({error})", file=sys.stderr)
            readings.append({"total": total})
            continue
        readings.append({**reading.timings, "total": time.perf_counter() - start})
    return readings, decodes


def traced_peaks(photos: Sequence[Path]) -> list[int]:
    """The tracemalloc peak (bytes) of reading each photo."""
    peaks = []
    tracemalloc.start()
    for photo in photos:
        data = photo.read_bytes()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        with contextlib.suppress(ReadError):
            read_photo(data)
        peaks.append(tracemalloc.get_traced_memory()[1] - base)
    tracemalloc.stop()
    return peaks


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(photos: Sequence[Path], readings: list[dict[str, float]], decodes: list[float],
           after_idle: list[dict[str, float]], rss_before: int, rss_after: int,
           peaks: list[int]) -> None:
    stages = [s for s in readings[0] if s != "total"] if readings else []
    for reading in readings:
        stages += [s for s in reading if s not in stages and s != "total"]
    total, decode = median([r["total"] for r in readings]), median(decodes)
    print(f"reader on {len(photos)} photos of {SIZE[0]}x{SIZE[1]}, medians "
          f"({parallel.WORKERS} threads; DD_READER_THREADS sets it)")
    for stage in stages:
        print(f"  {stage:<12} {median([r[stage] for r in readings if stage in r]):7.3f} s")
    print(f"  {'all':<12} {total:7.3f} s   (target {TARGET_SECONDS} s)")
    print(f"  JPEG decode  {decode:7.3f} s   (cv2.imdecode, full size, same photos)")
    print(f"  ratio        {total / decode:7.1f} x   (target about {TARGET_RATIO:g} x)")
    idle = median([r["total"] for r in after_idle])
    print(f"  after idle   {idle:7.3f} s   (each photo read after the reader gave its kept "
          "memory back, as an idle server has)")
    mb = 1 << 20
    print("memory")
    print(f"  max RSS before reading      {rss_before / mb:7.0f} MB (interpreter, libraries)")
    print(f"  max RSS after reading       {rss_after / mb:7.0f} MB   "
          f"(target {TARGET_BYTES / mb:.0f} MB)")
    print(f"  tracemalloc peak, largest   {max(peaks) / mb:7.0f} MB   "
          f"(median {median(peaks) / mb:.0f} MB; Python and NumPy allocations of one reading)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reader speed and memory per 12 MP photo.")
    parser.add_argument("--count", type=int, default=9, help="photos (default 9)")
    parser.add_argument("--seed", type=int, default=7000, help="first seed of generated photos")
    parser.add_argument("--set", type=Path, help="read 4032x3024 JPEGs from here instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="speed-") as scratch:
        if args.set:
            photos = photos_of_size(args.set, args.count)
        else:
            print(f"generating {args.count} photos ...", file=sys.stderr)
            photos = generate(Path(scratch), args.count, args.seed)
        if not photos:
            print("no 4032x3024 JPEG photos to read", file=sys.stderr)
            return 2
        rss_before = max_rss_bytes()
        # Warm up: imports, the colour profile, OpenCV's first calls.
        with contextlib.suppress(ReadError):
            read_photo(photos[0].read_bytes())
        readings, decodes = time_readings(photos)
        after_idle, _ = time_readings(photos, after_idle=True)
        rss_after = max_rss_bytes()
        peaks = traced_peaks(photos)
    report(photos, readings, decodes, after_idle, rss_before, rss_after, peaks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
