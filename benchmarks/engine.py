"""Engine speed: topology, scoring and simulated games, each against its target.

Run ``python benchmarks/engine.py``. Prints the median of repeated measurements next to
its target with PASS or MISS, and exits with status 1 if any figure misses.

- topology: ``build_board`` of random layouts with 20 crossings (target <= 20 ms);
- scoring: ``score`` of the final board of a simulated 4-player game (target <= 1 ms);
- games: simulated 4-player games per second with the random policy, over 1,000 games
  in batches of 100, layouts prepared beforehand (target >= 200 games/s).
"""

from __future__ import annotations

import argparse
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


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls of ``work``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def twenty_crossing_layouts(count: int = 4) -> list[Layout]:
    """Random legal layouts with exactly 20 crossings (seeds 0 .. count - 1)."""
    return [random_layout(seed, min_crossings=20, max_crossings=20) for seed in range(count)]


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
    args = parser.parse_args(argv)
    layouts = twenty_crossing_layouts()
    boards = [layout.board() for layout in layouts]
    crossings = ", ".join(str(len(b.crossings)) for b in boards)
    print(f"layouts: {len(boards)} random layouts with {crossings} crossings")
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
