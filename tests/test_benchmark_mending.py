"""The mending benchmark on two sample boards: one read right, one read with a loop
astray, a creature missed and one of the wrong colour."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from astray import loop_astray

from engine.report import board_from_report, board_to_report

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_images"


def test_the_mending_benchmark_counts_the_edits_that_mend_a_wrong_board(tmp_path: Path) -> None:
    lines = []
    for name in ("03_normal_dark_wood", "05_normal_violations"):
        for suffix in (".jpg", ".truth.json"):
            shutil.copy(SAMPLES / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
        truth = json.loads((SAMPLES / f"{name}.truth.json").read_text())
        size = (truth["image"]["width"], truth["image"]["height"])
        report = board_to_report(board_from_report(truth), image_size=size)
        if name == "05_normal_violations":
            report, _ = loop_astray(report, "yellow")
            del report["creatures"][-1]  # the last one: the ids before it stay
            demon = next(c for c in report["creatures"] if c["kind"] == "demon")
            demon["colour"] = "red" if demon["colour"] != "red" else "blue"
            report = board_to_report(board_from_report(report, topology="trust"),
                                     image_size=size)
        lines.append(json.dumps({"photo": f"{name}.jpg", **report}))
    reports = tmp_path / "results.jsonl"
    reports.write_text("\n".join(lines) + "\n")

    def mending(*options: str) -> str:
        return subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "mending.py"), "--set", str(tmp_path),
             "--reports", str(reports), *options],
            capture_output=True, text=True, check=True, timeout=300,
        ).stdout

    out = mending()
    assert "2 photos, 1 read not exactly, 0 not read" in out
    assert re.search(r"mended exactly with the page's edits\s+1 / 1", out)
    assert "05_normal_violations.jpg: mended with 3 edits (add 1, change 1, loop 1)" in out
    # Without drawing a loop again, the crossing read aside stays.
    out = mending("--edits", "add,change,remove,knot")
    assert re.search(r"mended exactly with the page's edits\s+0 / 1", out)
    assert "refused: loop: not offered" in out
