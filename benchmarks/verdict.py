"""What every benchmark here shares: alternating order, median and spread, an honest verdict.

A verdict compares a median with a target. The margin is how far from the baseline the
target allows a result to be; when the runs themselves scatter more than that (the
spread is the interquartile range, the middle half of the runs), one run cannot tell a
pass from a miss, and the verdict says "within noise" instead of guessing.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence


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


def verdict(median: float, scatter: float, target: float, margin: float,
            higher_is_better: bool = False) -> str:
    """"meets" / "MISSES" the target, or "within noise" when the spread exceeds the margin."""
    if scatter > margin:
        return (f"within noise: the runs spread {scatter:.3g} (interquartile), more than the "
                f"margin {margin:.3g}; rerun with more --runs on a quieter machine")
    met = median >= target if higher_is_better else median <= target
    return "meets the target" if met else "MISSES the target"
