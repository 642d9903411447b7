"""`tao compare` on the offline model, against one `tao tour`, side by side.

    uv run benchmarks/compare_time.py [--runs 5]

The whole task set through both protocols (32 tasks, 64 runs of a stage loop) should take
seconds, not minutes: the target is that it costs at most TARGET times one `tao tour`
(every stage once, with its demo input), the run a learner already knows the length of.
`--quirk all` (the task set once per quirk, 7 times over: stage 07's README tables) is
timed too, against the same tour, and so is the replay of the recorded real-model run
(SmolLM2-135M on one task of each kind through text, native and constrained, answered
from tests/recordings/local_smollm2_kinds.json, every request checked against the
recorded one): what the suite and stage 07's real-model table pay for it. Each run is a
fresh interpreter; the order rotates every round, and each round's ratio pairs runs made
under the same load.
"""

import argparse
import statistics
import sys

from verdict import ratio_line, side_by_side, spread

TAO = [sys.executable, "-m", "tao"]
COMMANDS = {
    "tour": [*TAO, "tour"],
    "compare": [*TAO, "compare", "--json"],
    "quirks": [*TAO, "compare", "--quirk", "all"],
    "replay": [*TAO, "compare", "--provider", "replay:tests/recordings/local_smollm2_kinds.json",
               "--tasks", "tests/recordings/local_smollm2_kinds.toml",
               "--protocols", "text,native,constrained", "--json"],
}
LABELS = {"tour": "tao tour (every stage, offline)",
          "compare": "tao compare (32 tasks x 2 protocols)",
          "quirks": "tao compare --quirk all (x 7 quirks)",
          "replay": "replay of SmolLM2, 7 tasks x 3 protocols"}
TARGET = 1.0  # the whole task set may cost at most one tour


def main() -> int:
    """Time the tour and the comparisons side by side; print the ratios and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds (each runs every command)")
    args = parser.parse_args()
    times = side_by_side(COMMANDS, args.runs)
    for name, label in LABELS.items():
        ms = [t * 1000 for t in times[name]]
        print(f"{label:40} median {statistics.median(ms):7.1f} ms, spread {spread(ms):6.1f} ms")
    for name in ("compare", "quirks", "replay"):
        ratios = [c / t for c, t in zip(times[name], times["tour"], strict=True)]
        print(ratio_line(f"{name} / tour", ratios, TARGET, TARGET))
    return 0


if __name__ == "__main__":
    sys.exit(main())
