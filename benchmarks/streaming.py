"""Streaming overhead: Provider.call() against iterating the same SDK stream bare.

    uv run benchmarks/streaming.py [--deltas 5000] [--runs 9]

A local fake API (127.0.0.1), in its own process so it does not share this one's
GIL, streams one reply of many text deltas and a tool call. Each round times three
sides on the identical stream, in an order that rotates every round: the SDK's typed
stream iterated bare (the target's baseline), call(), and the raw lines of the same
HTTP response (the transport floor, to show what call() itself costs per delta).
Every run's reply is checked after its clock stops. Reported: the median of the
per-round ratios and their spread (interquartile range). When the spread is wider
than the 10% margin and straddles the target, the verdict says "within noise".
"""

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

TARGET = 1.10
MESSAGES = [{"role": "user", "content": "Talk for a long time."}]


def parts(deltas: int) -> list[str]:
    """The text deltas the fake streams."""
    return [f"w{i} " for i in range(deltas)]


def serve(kind: str, deltas: int, conn) -> None:
    """In the server process: answer every request with the same long reply."""
    from fake_api import FakeAPI, anthropic_stream, openai_stream

    make = anthropic_stream if kind == "anthropic" else openai_stream
    text = parts(deltas)

    class Endless(FakeAPI):
        """A fake that answers every request with a fresh copy of the reply."""
        def next_response(self, body, headers):
            """The same reply again."""
            return make(text, tools=[("call_1", "now", ["{}"])])

    with Endless(kind) as api:
        conn.send(api.base_url)
        conn.recv()  # run until the parent says stop


def bare(kind, provider) -> list:
    """Iterate the SDK's own typed stream and keep the events: the floor."""
    params = provider.request(MESSAGES, "sys", TOOLS)
    if kind == "anthropic":
        with provider._client.messages.create(**params) as stream:
            return list(stream)
    return list(provider._client.chat.completions.create(**params))


def raw_lines(kind, provider) -> list:
    """The same HTTP response read as bare lines: no parsing at all, the floor of floors."""
    params = provider.request(MESSAGES, "sys", TOOLS)
    create = (provider._client.messages.create if kind == "anthropic"
              else provider._client.chat.completions.create)
    stream = create(**params)
    try:
        return list(stream.response.iter_lines())
    finally:
        stream.response.close()


def bare_text(kind, events) -> str:
    """The reply text the bare side received, for its check."""
    if kind == "anthropic":
        return "".join(e.delta.text for e in events
                       if e.type == "content_block_delta" and e.delta.type == "text_delta")
    return "".join(c.choices[0].delta.content or "" for c in events if c.choices)


def through_call(kind, provider):
    """The same stream through Provider.call(), with a live text callback."""
    sink: list[str] = []
    return provider.call(MESSAGES, "sys", TOOLS, on_text_delta=sink.append), sink


def check(kind, name, result, expected: str) -> None:
    """Stop the benchmark if a side did not receive the whole reply."""
    if name == "bare":
        ok = bare_text(kind, result) == expected
    elif name == "raw":
        ok = sum(line.startswith("data:") for line in result) > len(expected.split())
    else:
        reply, sink = result
        ok = (reply.text == expected == "".join(sink) and reply.stop_reason == "tool_use"
              and [(c.id, c.name, c.args) for c in reply.tool_calls] == [
                  ("call_1", "now", {})])
    if not ok:
        sys.exit(f"{kind} {name}: the reply was not assembled correctly")


SIDES = (("bare", bare), ("call", through_call), ("raw", raw_lines))


def measure(kind: str, deltas: int, runs: int) -> list[dict]:
    """{side: seconds} per round, after one warm-up round."""
    from shared.providers.anthropic_provider import AnthropicProvider
    from shared.providers.openai_provider import OpenAIProvider

    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    server = ctx.Process(target=serve, args=(kind, deltas, child), daemon=True)
    server.start()
    try:
        cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
        provider = cls(api_key="bench-key", base_url=parent.recv())
        expected = "".join(parts(deltas))
        rounds = []
        for n in range(runs + 1):
            order = SIDES[n % 3:] + SIDES[: n % 3]  # who goes first rotates
            times = {}
            for name, fn in order:
                start = time.perf_counter()
                result = fn(kind, provider)
                times[name] = time.perf_counter() - start
                check(kind, name, result, expected)
            if n:  # the first round warms up every side
                rounds.append(times)
            print(f"\r{kind}: run {n}/{runs}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        return rounds
    finally:
        parent.send("stop")
        server.join(timeout=10)


def verdict(q1: float, ratio: float, q3: float) -> str:
    """What the figures say, honestly: noise wider than the margin, across the target,
    decides nothing."""
    margin, spread = TARGET - 1, q3 - q1
    if spread > margin and q1 <= TARGET < q3:
        return f"within noise: the spread {spread:.3f} is wider than the {margin:.0%} margin"
    word = "meets" if ratio <= TARGET else "MISSES"
    noisy = f", though the spread {spread:.3f} is wider than the margin" if (
        spread > margin) else ""
    return f"{word} the target of at most {TARGET:.2f}x{noisy}"


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile)."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return q1, q2, q3


def main() -> int:
    """Measure both providers and print one line each."""
    from shared.providers import Tool

    global TOOLS
    TOOLS = [Tool("now", "Return the current UTC time.",
                  {"type": "object", "properties": {}}, lambda args: "")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=5000, help="text deltas per stream")
    parser.add_argument("--runs", type=int, default=9, help="rounds (each side once)")
    args = parser.parse_args()
    for kind in ("anthropic", "openai"):
        rounds = measure(kind, args.deltas, args.runs)
        q1, ratio, q3 = quartiles([r["call"] / r["bare"] for r in rounds])
        floor = statistics.median(r["call"] / r["raw"] for r in rounds)
        ms = {side: statistics.median(r[side] for r in rounds) * 1000 for side, _ in SIDES}
        per_delta = statistics.median(r["call"] - r["raw"] for r in rounds) / args.deltas * 1e6
        cost = (f"{per_delta:.1f} us per delta to parse and assemble" if per_delta >= 0.5
                else "no cost per delta this machine can measure")
        print(f"{kind:9} bare SDK stream {ms['bare']:8.1f} ms | call() {ms['call']:8.1f} ms"
              f" | ratio {ratio:.3f}x, spread {q3 - q1:.3f} (IQR) | {verdict(q1, ratio, q3)}"
              f" [{args.deltas} deltas, {len(rounds)} rounds, order rotating]")
        print(f"{'':9} raw lines      {ms['raw']:8.1f} ms | call() is {floor:.2f}x the raw "
              f"lines: {cost}")
    return 0


TOOLS: list = []

if __name__ == "__main__":
    sys.exit(main())
