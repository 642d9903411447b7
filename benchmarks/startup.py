"""Start-up: the offline path against merely importing the two SDKs.

    uv run benchmarks/startup.py [--runs 15]

Each run is a fresh interpreter, so imports are paid in full; runs of the two commands
are interleaved so both see the same machine load. Prints medians and the ratio.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

OFFLINE = ("from shared.providers import get_provider\n"
           "p = get_provider('offline', quiet=True)\n"
           "''.join(p.stream([{'role': 'user', 'content': 'What time is it?'}]))")
SDKS = "import anthropic, openai"
TARGET = 0.15


def timed(code: str) -> float:
    """Seconds for one fresh interpreter to run `code`."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    timed(SDKS), timed(OFFLINE)  # warm the file cache for both
    offline, sdks = [], []
    for n in range(args.runs):
        offline.append(timed(OFFLINE))
        sdks.append(timed(SDKS))
        print(f"\rrun {n + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    a, b = statistics.median(offline), statistics.median(sdks)
    ratio = a / b
    print(f"offline get_provider() + one reply: {a * 1000:7.1f} ms (median of {args.runs})")
    print(f"import anthropic, openai:           {b * 1000:7.1f} ms (median of {args.runs})")
    verdict = "meets" if ratio < TARGET else "MISSES"
    print(f"ratio: {ratio:.1%}  ({verdict} the target of under {TARGET:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
