"""Time to the first printed character against time to the end of the stream.

    uv run benchmarks/first_token.py [--deltas 40] [--pause 0.02] [--runs 5]

A local fake API (127.0.0.1) streams a reply whose deltas are `--pause` seconds apart.
Stage 07's agent_step prints each delta through the trace as it arrives. We record when
the server sent the first text delta, when its first character was printed, and when
agent_step returned.
"""

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_api import FakeAPI, anthropic_stream, openai_stream  # noqa: E402
from helpers import load_stage  # noqa: E402

from shared.providers.anthropic_provider import AnthropicProvider  # noqa: E402
from shared.providers.openai_provider import OpenAIProvider  # noqa: E402
from shared.trace import Trace, make_console  # noqa: E402


def one_run(kind, loop, deltas, pause):
    """(first delta sent -> first printed, start -> first printed, start -> end) in s."""
    make = anthropic_stream if kind == "anthropic" else openai_stream
    sse = make([f"word{i} " for i in range(deltas)])
    sse.delay = pause
    first_text = next(i for i, (_, data) in enumerate(sse.events) if "word0" in str(data))
    trace = Trace(make_console(file=io.StringIO(), width=100))
    printed = []

    def on_delta(delta):
        trace.stream_delta(delta)
        if not printed:
            printed.append(time.perf_counter())

    with FakeAPI(kind) as api:
        cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
        provider = cls(api_key="bench-key", base_url=api.base_url)
        api.queue(sse)
        start = time.perf_counter()
        loop.agent_step("talk", [], provider, "", trace, on_text_delta=on_delta)
        end = time.perf_counter()
    return printed[0] - sse.sent[first_text], printed[0] - start, end - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=40, help="text deltas per reply")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between deltas")
    parser.add_argument("--runs", type=int, default=5, help="runs per provider")
    args = parser.parse_args()
    loop = load_stage("07", "loop")
    for kind in ("anthropic", "openai"):
        one_run(kind, loop, 3, 0.0)  # warm up: SDK import, first connection
        runs = [one_run(kind, loop, args.deltas, args.pause) for _ in range(args.runs)]
        lag, first, end = (statistics.median(column) for column in zip(*runs, strict=True))
        print(f"{kind:9} first delta sent -> printed {lag * 1000:6.2f} ms | first printed "
              f"{first * 1000:7.1f} ms | stream end {end * 1000:7.1f} ms | "
              f"first/end ratio {first / end:.3f} (median of {args.runs})")
    print("target: printed within a few ms of the first delta, nowhere near the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
