"""Engine speed: topology, scoring and simulated games, each against its target.

Run ``python benchmarks/engine.py``. Prints the median of repeated measurements next to
its target with PASS or MISS, and exits with status 1 if any figure misses.

- topology: ``build_board`` of a layout with about 20 crossings (target <= 20 ms);
- scoring: ``score`` of the final board of a simulated 4-player game (target <= 1 ms);
- games: simulated 4-player games per second with the random policy, over 1,000 games
  in batches of 100, layouts prepared beforehand (target >= 200 games/s).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# This script is named like the package it measures: keep its own folder off the path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from engine.board import Board  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.layout import Layout, random_layout  # noqa: E402
from engine.policies import make_policies  # noqa: E402
from engine.scoring import score  # noqa: E402
from engine.topology import build_board  # noqa: E402

#: Seeds whose default random layout had 18 to 22 crossings (checked when run).
TWENTY_CROSSING_SEEDS = (40, 179, 53, 207, 109, 246, 276, 287)
CROSSINGS = range(18, 23)


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls of ``work``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def twenty_crossing_layouts(scan: int) -> list[Layout]:
    """Layouts of 18 to 22 crossings.

    The known seeds first, then (if fewer than two qualify) seeds 0 .. ``scan`` - 1,
    and finally, if random layouts still give none, a hand-made one of four lumpy
    loops of cord length with 20 crossings.
    """
    layouts = [lay for lay in map(random_layout, TWENTY_CROSSING_SEEDS) if _about_twenty(lay)]
    for seed in range(scan):
        if len(layouts) >= 2:
            break
        layout = random_layout(seed)
        if _about_twenty(layout):
            layouts.append(layout)
    return layouts or [lumpy_layout()]


def _about_twenty(layout: Layout) -> bool:
    return len(layout.board().crossings) in CROSSINGS


def lumpy_layout() -> Layout:
    """Four lumpy loops about 1.2 m long, centred close together: 20 crossings."""
    specs = {
        "red": (-15.0, -15.0, 180.0, 3, 0.3),
        "yellow": (15.0, -15.0, 185.0, 3, 1.0),
        "green": (15.0, 15.0, 190.0, 4, 2.1),
        "blue": (-15.0, 15.0, 175.0, 4, 2.9),
    }
    lines = {}
    for colour, (cx, cy, radius, lobes, phase) in specs.items():
        points = []
        for i in range(800):
            t = 2 * math.pi * i / 800
            r = radius * (1 + 0.12 * math.cos(lobes * t + phase))
            points.append((cx + r * math.cos(t), cy + r * math.sin(t)))
        lines[colour] = tuple(points)
    return Layout(lines=lines, knots={})


def topology_ms(layouts: Sequence[Layout], repeat: int) -> float:
    return 1000 * statistics.median(
        median_seconds(lambda lay=layout: build_board(lay.lines, lay.knots), repeat)  # type: ignore[misc]
        for layout in layouts
    )


def finished_boards(boards: Sequence[Board], count: int) -> list[Board]:
    finished = []
    for seed in range(count):
        game = Game(boards[seed % len(boards)], 4, seed)
        game.play(make_policies("random", 4, seed))
        finished.append(game.board)
    return finished


def scoring_ms(finished: Sequence[Board], repeat: int) -> float:
    return 1000 * statistics.median(
        median_seconds(lambda b=board: score(b), repeat)  # type: ignore[misc]
        for board in finished
    )


def games_per_second(boards: Sequence[Board], games: int, batch: int) -> float:
    rates = []
    for first in range(0, games, batch):
        start = time.perf_counter()
        for seed in range(first, first + batch):
            game = Game(boards[seed % len(boards)], 4, seed)
            game.play(make_policies("random", 4, seed))
        rates.append(batch / (time.perf_counter() - start))
    return statistics.median(rates)


def line(name: str, value: float, unit: str, target: float, at_most: bool) -> tuple[str, bool]:
    ok = value <= target if at_most else value >= target
    sign = "<=" if at_most else ">="
    text = f"{name:<10} {value:10.3f} {unit:<8} target {sign} {target:g} {unit:<8} "
    return text + ("PASS" if ok else "MISS"), ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--scan", type=int, default=0,
                        help="seeds to try for ~20-crossing random layouts if the known fail")
    args = parser.parse_args(argv)
    layouts = twenty_crossing_layouts(args.scan)
    boards = [layout.board() for layout in layouts]
    crossings = ", ".join(str(len(b.crossings)) for b in boards)
    kind = "hand-made lumpy layout" if not layouts[0].knots else "random layouts"
    print(f"layouts: {len(boards)} ({kind}) with {crossings} crossings")
    finished = finished_boards(boards, 10)
    creatures = statistics.median(len(b.creatures) for b in finished)
    print(f"finished boards: median {creatures:g} creatures")
    results = [
        line("topology", topology_ms(layouts, args.repeat), "ms", 20, at_most=True),
        line("scoring", scoring_ms(finished, args.repeat * 5), "ms", 1, at_most=True),
        line("games", games_per_second(boards, args.games, 100), "games/s", 200, at_most=False),
    ]
    for text, _ in results:
        print(text)
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
