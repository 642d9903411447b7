"""Time to the first printed character against time to the end of the stream.

    uv run benchmarks/first_token.py [--deltas 40] [--pause 0.02] [--runs 7]

A local fake API (127.0.0.1) streams a reply whose deltas are `--pause` seconds apart.
Stage 07's agent_step prints each delta through the trace as it arrives. We record when
the server sent the first text delta, when its first character was printed, and when
agent_step returned, and check the printed answer is the whole reply, every run.

The claim: the first character is printed within TARGET_MS of the server sending it,
while the rest of the reply is still on its way. A loop that buffered the reply would
print only at the end, `--deltas * --pause` seconds later. The two providers take
turns going first, round by round.
"""

import argparse
import io
import statistics
import sys
from pathlib import Path
from time import perf_counter

from verdict import rotated, spread, verdict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_api import FakeAPI, anthropic_stream, openai_stream  # noqa: E402

from shared.providers.anthropic_provider import AnthropicProvider  # noqa: E402
from shared.providers.openai_provider import OpenAIProvider  # noqa: E402
from shared.trace import Trace, make_console  # noqa: E402
from tao.repo import load_stage  # noqa: E402

TARGET_MS = 5.0  # first delta sent -> first character printed
MARGIN_MS = TARGET_MS  # runs scattered by more than the whole target cannot judge it
PROVIDERS = {"anthropic": (AnthropicProvider, anthropic_stream),
             "openai": (OpenAIProvider, openai_stream)}


def one_run(kind, loop, deltas, pause):
    """(first delta sent -> printed, start -> first printed, start -> end), in seconds."""
    cls, make = PROVIDERS[kind]
    parts = [f"word{i} " for i in range(deltas)]
    sse = make(parts)
    sse.delay = pause
    first_text = next(i for i, (_, data) in enumerate(sse.events) if "word0" in str(data))
    trace = Trace(make_console(file=io.StringIO(), width=100))
    printed = []

    def on_delta(delta):
        trace.stream_delta(delta)
        if not printed:
            printed.append(perf_counter())

    with FakeAPI(kind) as api:
        provider = cls(api_key="bench-key", base_url=api.base_url)
        api.queue(sse)
        start = perf_counter()
        answer = loop.agent_step("talk", [], provider, "", trace, on_text_delta=on_delta)
        end = perf_counter()
    if answer != "".join(parts):
        raise SystemExit(f"{kind}: the answer was not the streamed reply: {answer[:80]!r}")
    return printed[0] - sse.sent[first_text], printed[0] - start, end - start


def report(kind: str, runs: list[tuple[float, float, float]]) -> None:
    """One line per provider: the lag's median, spread and verdict, and the ratio."""
    lag = [r[0] * 1000 for r in runs]
    first_over_end = [r[1] / r[2] for r in runs]
    median_lag = statistics.median(lag)
    print(f"{kind:9} first delta sent -> printed: median {median_lag:6.2f} ms, spread "
          f"{spread(lag):5.2f} ms | first printed / stream end: median "
          f"{statistics.median(first_over_end):.3f} [{len(runs)} runs]")
    print(f"{'':9} {verdict(median_lag, spread(lag), TARGET_MS, MARGIN_MS)} "
          f"of at most {TARGET_MS:.0f} ms")


def main() -> int:
    """Time both providers, taking turns; print each one's verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=40, help="text deltas per reply")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between deltas")
    parser.add_argument("--runs", type=int, default=7, help="runs per provider")
    args = parser.parse_args()
    loop = load_stage("07", "loop")
    for kind in PROVIDERS:
        one_run(kind, loop, 3, 0.0)  # warm up: SDK import, first connection
    runs: dict[str, list] = {kind: [] for kind in PROVIDERS}
    for n in range(args.runs):
        for kind in rotated(list(PROVIDERS), n):
            runs[kind].append(one_run(kind, loop, args.deltas, args.pause))
    for kind, measured in runs.items():
        report(kind, measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
