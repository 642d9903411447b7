"""Streaming overhead: Provider.call() against iterating the same SDK stream bare.

    uv run benchmarks/streaming.py [--deltas 5000] [--runs 7]

A local fake API (127.0.0.1) streams one reply of many text deltas and a tool call;
both sides read the identical stream through the same SDK client, runs interleaved.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fake_api import FakeAPI, anthropic_stream, openai_stream  # noqa: E402

from shared.providers import Tool  # noqa: E402
from shared.providers.anthropic_provider import AnthropicProvider  # noqa: E402
from shared.providers.openai_provider import OpenAIProvider  # noqa: E402

TARGET = 1.10
TOOL = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
            lambda args: "")
MESSAGES = [{"role": "user", "content": "Talk for a long time."}]


def bare(kind, provider):
    """Iterate the SDK stream and do nothing with it: the floor."""
    params = provider.request(MESSAGES, "sys", [TOOL])
    if kind == "anthropic":
        with provider._client.messages.create(**params) as stream:
            for _ in stream:
                pass
    else:
        for _ in provider._client.chat.completions.create(**params):
            pass


def through_call(kind, provider):
    """The same stream through Provider.call(), with a live text callback."""
    sink = []
    provider.call(MESSAGES, "sys", [TOOL], on_text_delta=sink.append)


def measure(kind, deltas, runs):
    parts = [f"w{i} " for i in range(deltas)]
    make = anthropic_stream if kind == "anthropic" else openai_stream
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    with FakeAPI(kind) as api:
        provider = cls(api_key="bench-key", base_url=api.base_url)
        times = {"bare": [], "call": []}
        for n in range(runs + 1):
            for name, fn in (("bare", bare), ("call", through_call)):
                api.queue(make(parts, tools=[("call_1", "now", ["{}"])]))
                start = time.perf_counter()
                fn(kind, provider)
                if n:  # the first round warms up both
                    times[name].append(time.perf_counter() - start)
            print(f"\r{kind}: run {n}/{runs}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    return statistics.median(times["bare"]), statistics.median(times["call"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=5000, help="text deltas per stream")
    parser.add_argument("--runs", type=int, default=7, help="runs of each side")
    args = parser.parse_args()
    for kind in ("anthropic", "openai"):
        base, call = measure(kind, args.deltas, args.runs)
        ratio = call / base
        verdict = "meets" if ratio <= TARGET else "MISSES"
        print(f"{kind:9} bare SDK stream {base * 1000:8.1f} ms | call() {call * 1000:8.1f} ms"
              f" | ratio {ratio:.3f}x ({verdict} the target of at most {TARGET:.2f}x)"
              f" [{args.deltas} deltas, median of {args.runs}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
