"""The accuracy benchmark on two sample photos: its figures, stage by stage."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from vision.evaluate import Comparison

ROOT = Path(__file__).resolve().parents[1]


def test_the_accuracy_benchmark_gives_each_stage_its_own_figures(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "accuracy.py"), "--set",
         str(ROOT / "sample_images"), "--limit", "2", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )
    figures = json.loads(out.read_text())
    stages = figures["stages"]
    assert set(stages) == {
        "colour rules' pawns",
        "tracer's knots",
        "detector's pawns (mark >= 0.4)",
        "detector's knots (mark >= 0.2)",
    }
    creatures = figures["counts"]["creatures_truth"]
    for name, stage in stages.items():
        counts = stage["counts"]
        assert counts["truth"] == (creatures if "pawns" in name else 8), name
        assert counts["matched"] <= min(counts["read"], counts["truth"])
    # The detector finds the easy samples' pawns and knots before anything is combined.
    assert stages["detector's pawns (mark >= 0.4)"]["recall"] >= 0.9
    assert stages["detector's knots (mark >= 0.2)"]["recall"] == 1.0
    assert "stages before combine" in run.stdout
    # Each photo records the width it was read at over the truth's (sample photos are
    # read within a tenth of it).
    ratios = [photo["pawn_width_ratio"] for photo in figures["photos_detail"]]
    assert len(ratios) == 2 and all(0.9 <= r <= 1.1 for r in ratios), ratios
    assert figures["pawn_widths"]["detector (after the sizer)"]["photos"] == 2


def test_the_breakdown_counts_a_facet_only_over_the_photos_that_have_it(capsys) -> None:
    path = ROOT / "benchmarks" / "accuracy.py"
    spec = importlib.util.spec_from_file_location("accuracy_benchmark", path)
    assert spec is not None and spec.loader is not None
    accuracy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(accuracy)
    exact, wrong = Comparison(board_exact=1), Comparison(board_exact=0)
    results = [
        ("felt.jpg", exact, {"table": "green_felt", "shade": "pale"}, 1.0),
        ("mat.jpg", wrong, {"table": "blue_mat", "shade": "deep"}, 1.0),
        ("wood.jpg", exact, {"table": "light_wood"}, 1.0),  # no shade: not felt or a mat
    ]
    accuracy.print_breakdown(results)
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert lines["table"].split(None, 1)[1] == "blue_mat 0/1, green_felt 1/1, light_wood 1/1"
    assert lines["shade"].split(None, 1)[1] == "deep 0/1, pale 1/1"
