"""How fast the synthetic photo generator is, stage by stage.

Run: ``python benchmarks/synth.py [--count 9] [--size 4032x3024]``. Prints the median
seconds per photo of each stage (board from a simulated game, scene and camera, render,
JPEG, truth) and of the whole, next to the target of 1 s per 4032x3024 photo. The
machine is shared and noisy: read medians, and compare runs as ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Run as a script from the repository: make the project importable, and keep this
# folder off the path (benchmarks/engine.py would shadow the engine package).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from synth.photo import photo_truth, plan_photo, scene_objects  # noqa: E402
from synth.render import encode_jpeg, render  # noqa: E402

TARGET_SECONDS = 1.0
DIFFICULTIES = ("easy", "normal", "hard")


def time_one(seed: int, difficulty: str, size: tuple[int, int]) -> dict[str, float]:
    """Seconds spent in each stage of making one photo (as make_photo does)."""
    times = {}
    start = time.perf_counter()
    plan = plan_photo(seed, difficulty, size)
    times["board+scene"] = time.perf_counter() - start
    mark = time.perf_counter()
    image = render(scene_objects(plan.board), plan.scene, plan.camera, plan.render_rng)
    times["render"] = time.perf_counter() - mark
    mark = time.perf_counter()
    encode_jpeg(image, plan.scene.sensor.jpeg_quality)
    times["jpeg"] = time.perf_counter() - mark
    mark = time.perf_counter()
    photo_truth(plan.board, plan.scene, plan.camera, seed)
    times["truth"] = time.perf_counter() - mark
    times["total"] = time.perf_counter() - start
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=9)
    parser.add_argument("--size", default="4032x3024")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    assert len(size) == 2
    time_one(0, "normal", size)  # warm up imports and caches
    runs = [time_one(100 + i, DIFFICULTIES[i % 3], size) for i in range(args.count)]  # type: ignore[arg-type]
    print(f"synthetic photos at {args.size}, median of {args.count} (easy/normal/hard mixed)")
    for stage in runs[0]:
        print(f"  {stage:<12} {statistics.median(r[stage] for r in runs):7.3f} s")
    total = statistics.median(r["total"] for r in runs)
    verdict = "PASS" if total <= TARGET_SECONDS else "MISS"
    print(f"photo        {total:7.3f} s/photo   target <= {TARGET_SECONDS:.0f} s   {verdict}")


if __name__ == "__main__":
    main()
