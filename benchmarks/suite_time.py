"""Suite time: `uv run pytest`, against importing both SDKs once.

    uv run benchmarks/suite_time.py [--runs 3] [--cold] [-- PYTEST_ARGS...]

A learner runs the suite often, so it should take about as long as reading a short
paragraph: 10 s on the 2-core machine the kit is built on. Seconds mean little on
another machine, so the baseline is `python -c "import anthropic, openai"` (the one
cost every process that talks to a model pays), timed in the same rounds: the order of
the two commands alternates round by round, and each round's ratio pairs two runs made
under the same load. The target is TARGET times that import (issue 19: 10 s when the
import takes 2 s, as it does here when the machine is idle). A suite that fails stops the
benchmark: a fast red run proves nothing.

The test processes keep what they compile (tests/conftest.py), so a run after the first
skips compiling; `--cold` times every run as the first run on a fresh clone: before each,
it forgets the project's compiled files and pytest's rewritten copies of its plugins.

Arguments after `--` go to pytest, e.g. `-- -n 0` to time the suite in one process.
"""

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from verdict import ROOT, ratio_line, side_by_side, spread

TARGET = 5.0  # the suite may take at most five SDK imports' time
MARGIN = TARGET - 1.0  # the whole allowance above the baseline


def commands(pytest_args: list[str]) -> dict[str, list[str]]:
    """The two command lines: the suite as a learner starts it, and the SDK import."""
    uv = shutil.which("uv")
    suite = [uv, "run", "pytest"] if uv else [sys.executable, "-m", "pytest"]
    return {"suite": [*suite, "-q", "-p", "no:cacheprovider", *pytest_args],
            "sdks": [sys.executable, "-c", "import anthropic, openai"]}


def forget_compiled(name: str) -> None:
    """Before a cold suite run: remove what a fresh clone has not compiled yet."""
    if name != "suite":
        return
    for folder in ("shared", "stages", "tests", "exercises", "benchmarks"):
        for cache in (ROOT / folder).rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
    for rewritten in Path(sys.prefix).rglob("*-pytest-*.pyc"):  # e.g. hypothesis's modules
        rewritten.unlink(missing_ok=True)


def main() -> int:
    """Time the suite and the SDK import side by side; print the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds (each runs both commands)")
    parser.add_argument("--cold", action="store_true",
                        help="time each suite run as the first one on a fresh clone")
    parser.add_argument("pytest_args", nargs="*", help="after --: arguments for pytest")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    times = side_by_side(commands(args.pytest_args), args.runs,
                         before=forget_compiled if args.cold else None)
    suite = "uv run pytest" + (" (cold)" if args.cold else "")
    for name, label in (("suite", suite), ("sdks", "import anthropic, openai")):
        print(f"{label:26} median {statistics.median(times[name]):6.2f} s, spread "
              f"{spread(times[name]):5.2f} s, runs {', '.join(f'{t:.1f}' for t in times[name])}")
    ratios = [s / b for s, b in zip(times["suite"], times["sdks"], strict=True)]
    print(ratio_line("suite / SDK import", ratios, TARGET, MARGIN, digits=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
