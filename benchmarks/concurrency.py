"""Concurrent tools: stage 10 against stage 09, three slow calls in one reply.

    uv run benchmarks/concurrency.py [--calls 3] [--seconds 0.5] [--runs 3]

The same scripted reply (N `fetch` calls of S seconds each, then an answer) goes through
stage 09's loop, which runs the calls one after another, and stage 10's, which runs them
together; runs interleaved, median reported. Stage 09 has no fetch tool, so it gets one
that sleeps for the same time. Bounded sleeps only; nothing leaves the machine.
"""

import argparse
import statistics
import time

from shared.providers import Reply, ScriptedProvider, Tool, ToolCall
from tao.repo import load_stage

TARGET = 0.8  # of the ideal ratio, which is the number of calls


def slow_fetch(args: dict) -> str:
    """Stage 09's stand-in for stage 10's fetch: the same wait, blocking."""
    time.sleep(float(args["seconds"]))
    return f"(a stand-in page for {args['url']})"


def one_turn(loop, calls: int, seconds: float) -> float:
    """Seconds one turn takes: a reply with `calls` fetches, then a plain answer."""
    fetches = [ToolCall(f"f{i}", "fetch", {"url": f"example.org/{i}", "seconds": seconds})
               for i in range(calls)]
    model = ScriptedProvider([Reply("", fetches, "tool_use"), "done"])
    start = time.perf_counter()
    turn = loop.agent_step("fetch them", [], model, "")
    elapsed = time.perf_counter() - start
    results = [m["content"] for m in turn.messages if m["role"] == "tool"]
    assert len(results) == calls and all("stand-in page" in r for r in results), results
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3, help="fetch calls in the reply")
    parser.add_argument("--seconds", type=float, default=0.5, help="how long each one takes")
    parser.add_argument("--runs", type=int, default=3, help="turns through each stage")
    args = parser.parse_args()
    sequential = load_stage("09", "loop")
    sequential.TOOLS.append(Tool("fetch", "Fetch a page (slow).", {"type": "object"},
                                 slow_fetch))
    concurrent = load_stage("10", "loop")
    times = {"09": [], "10": []}
    for _ in range(args.runs):
        times["09"].append(one_turn(sequential, args.calls, args.seconds))
        times["10"].append(one_turn(concurrent, args.calls, args.seconds))
    t09, t10 = statistics.median(times["09"]), statistics.median(times["10"])
    ratio, target = t09 / t10, TARGET * args.calls
    verdict = "meets" if ratio >= target else "MISSES"
    print(f"{args.calls} calls of {args.seconds} s in one reply | stage 09 (in turn) "
          f"{t09:.3f} s | stage 10 (together) {t10:.3f} s | ratio {ratio:.2f}x "
          f"({verdict} the target of at least {target:.1f}x) [median of {args.runs}]")
    return 0 if ratio >= target else 1


if __name__ == "__main__":
    raise SystemExit(main())
