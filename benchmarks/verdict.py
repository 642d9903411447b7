"""What every benchmark here shares: alternating order, median and spread, an honest verdict.

A verdict compares a median with a target. The margin is how far from the baseline the
target allows a result to be; when the runs themselves scatter more than that (the
spread is the interquartile range, the middle half of the runs), one run cannot tell a
pass from a miss, and the verdict says "within noise" instead of guessing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed_command(argv: list[str]) -> float:
    """Wall seconds for `argv`, run from the repository without API keys; a command that
    fails stops the benchmark with the end of what it printed."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"{' '.join(argv)} failed:\n{tail}")
    return took


def side_by_side(commands: dict[str, list[str]], runs: int,
                 before: Callable[[str], None] | None = None) -> dict[str, list[float]]:
    """Seconds per run of each command: each warmed once, then run once a round, the
    order rotated every round so no command always goes first (a progress line on stderr).
    `before(name)`, if given, runs before each timed run, outside the timing."""
    for argv in commands.values():
        timed_command(argv)  # warm the file cache, bytecode and uv's environment check
    times: dict[str, list[float]] = {name: [] for name in commands}
    for n in range(runs):
        for name in rotated(list(commands), n):
            if before is not None:
                before(name)
            times[name].append(timed_command(commands[name]))
        print(f"\rround {n + 1}/{runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return times


def rotated(sides: Sequence, round_number: int) -> list:
    """`sides` in a different order each round, so no side always goes first."""
    shift = round_number % len(sides)
    return [*sides[shift:], *sides[:shift]]


def spread(values: Sequence[float]) -> float:
    """The interquartile range: how far apart the middle half of the runs lie."""
    if len(values) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q3 - q1


def ratio_line(label: str, ratios: Sequence[float], target: float, margin: float,
               digits: int = 2) -> str:
    """`label: median 1.23x, spread 0.05 over N rounds: meets the target of at most 2x`."""
    ratio, scatter = statistics.median(ratios), spread(ratios)
    return (f"{label}: median {ratio:.{digits}f}x, spread {scatter:.{digits}f} over "
            f"{len(ratios)} rounds: {verdict(ratio, scatter, target, margin)} of at most "
            f"{target:g}x")


def verdict(median: float, scatter: float, target: float, margin: float,
            higher_is_better: bool = False) -> str:
    """"meets" / "MISSES" the target, or "within noise" when the spread exceeds the margin."""
    if scatter > margin:
        return (f"within noise: the runs spread {scatter:.3g} (interquartile), more than the "
                f"margin {margin:.3g}; rerun with more --runs on a quieter machine")
    met = median >= target if higher_is_better else median <= target
    return "meets the target" if met else "MISSES the target"
