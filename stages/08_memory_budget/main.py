"""Stage 08: memory and a context budget.

The history keeps every turn's tool calls and results, so a later turn can use them, and
each request is cut down to a token budget by whole turns, oldest first.

    uv run stages/08_memory_budget/main.py
    uv run stages/08_memory_budget/main.py --budget 300    # watch old turns being snipped
"""

from context import CONTEXT_BUDGET
from loop import agent_step, build_agent_system

from shared.providers import ProviderError
from shared.stage_main import at_least_one, open_session, run, stage_parser


def chat(provider, trace, system: str, budget: int = CONTEXT_BUDGET) -> None:
    """Read lines until an empty one (or Ctrl-D); each reply sees the whole history."""
    history: list[dict] = []
    while True:
        try:
            line = trace.prompt()
        except EOFError:
            break
        if not line.strip():
            break
        try:
            # the whole turn comes back: request, tool calls and results, answer
            history = agent_step(line, history, provider, system, trace,
                                 on_text_delta=trace.stream_delta, budget=budget)
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        except ProviderError as exc:
            trace.error(str(exc))
            continue
        trace.answer(history[-1]["content"])


def main() -> None:
    parser = stage_parser(__doc__)
    parser.add_argument("--budget", type=at_least_one, default=CONTEXT_BUDGET,
                        help=f"tokens one request may take (default {CONTEXT_BUDGET})")
    args = parser.parse_args()
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_agent_system(), args.budget)


if __name__ == "__main__":
    run(main)
