"""Start-up: a learner's first offline run, against the floor of importing rich.

    uv run benchmarks/startup.py [--runs 15] [--sdks]

The floor is `python -c "import rich.console"`: every stage draws with rich, so no
stage can start faster. The offline run is stage 01 answering one question on the
offline model, as a learner first runs it. What the kit adds is the distance between
the two; the target is that it costs at most TARGET times the floor. Each run is a
fresh interpreter; the order of the commands rotates every round, and each round's
ratio pairs two runs made under the same load.

`--sdks` also times `import anthropic, openai`, for scale only: that import changes by
half with bytecode caching, which is why it is not the baseline any more.
"""

import argparse
import statistics
import sys

from verdict import ROOT, ratio_line, side_by_side, spread

STAGE = ROOT / "stages" / "01_single_call" / "main.py"
COMMANDS = {
    "floor": ["-c", "import rich.console"],
    "offline": [str(STAGE), "--provider", "offline", "What time is it?"],
}
SDKS = ["-c", "import anthropic, openai"]
TARGET = 1.5  # the offline run may cost at most half as much again as importing rich
MARGIN = TARGET - 1.0  # the whole allowance above the floor


def main() -> int:
    """Time the floor and the offline run side by side; print the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (each runs every command)")
    parser.add_argument("--sdks", action="store_true", help="also time importing both SDKs")
    args = parser.parse_args()
    commands = {**COMMANDS, **({"sdks": SDKS} if args.sdks else {})}
    times = side_by_side({name: [sys.executable, *argv] for name, argv in commands.items()},
                         args.runs)
    for name, label in (("floor", "import rich.console (floor)"),
                        ("offline", "stage 01, offline, one question"),
                        ("sdks", "import anthropic, openai (scale only)")):
        if name in times:
            ms = [t * 1000 for t in times[name]]
            print(f"{label:38} median {statistics.median(ms):7.1f} ms, "
                  f"spread {spread(ms):6.1f} ms")
    ratios = [o / f for o, f in zip(times["offline"], times["floor"], strict=True)]
    distance = [(o - f) * 1000 for o, f in zip(times["offline"], times["floor"], strict=True)]
    print(f"distance from the floor: median {statistics.median(distance):.1f} ms, "
          f"spread {spread(distance):.1f} ms")
    print(ratio_line("offline / floor", ratios, TARGET, MARGIN))
    return 0


if __name__ == "__main__":
    sys.exit(main())
