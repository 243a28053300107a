"""The knot-choice benchmark on a sample board: its knot stage logged from a reading and
replayed to the same knots."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_images"


def knot_choice(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "knot_choice.py"), *options],
                          capture_output=True, text=True, timeout=300)


def test_the_knot_stage_logged_from_a_reading_replays_to_its_knots(tmp_path: Path) -> None:
    photos, log = tmp_path / "photos", tmp_path / "log"
    photos.mkdir()
    for suffix in (".jpg", ".truth.json"):
        shutil.copy(SAMPLES / f"07_hard_blue_mat{suffix}", photos / f"07_hard_blue_mat{suffix}")
    logged = knot_choice("--log", str(log), "--set", str(photos))
    assert logged.returncode == 0 and "1 of 1 photos logged" in logged.stdout
    kept = pickle.loads((log / "07_hard_blue_mat.pkl").read_bytes())
    # The views' mean of every tracer's knot is kept, whether the reading asked or not.
    tracers = [loop.knot for loop in kept["loops"].loops.values() if loop.knot is not None]
    assert tracers and all(("knot", "", xy) in kept["means"] for xy in tracers)
    # The sample is read exactly: the replay puts all four knots where the truth has them.
    replayed = knot_choice("--replay", str(log))
    assert replayed.returncode == 0 and "knots right 4 / 4" in replayed.stdout
    unknown = knot_choice("--replay", str(log), "--constant", "NO_SUCH_THRESHOLD=1")
    assert unknown.returncode == 2 and "vision.combine has no constant" in unknown.stderr
