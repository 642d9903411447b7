"""Stage 10: concurrent tools.

When one reply asks for several calls that only read, they run at the same time with
asyncio, each under a timeout, and their results go back in call order.

    uv run stages/10_concurrent_tools/main.py
"""

from context import CONTEXT_BUDGET
from loop import MAX_ITERATIONS, agent_step, build_agent_system

from shared.stage_main import at_least_one, open_session, run, stage_parser


def chat(provider, trace, system: str, budget: int = CONTEXT_BUDGET,
         max_iterations: int = MAX_ITERATIONS) -> None:
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
            turn = agent_step(line, history, provider, system, trace,
                              on_text_delta=trace.stream_delta, budget=budget,
                              max_iterations=max_iterations)
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        if turn.stop_reason == "error":
            trace.error(turn.answer)
        else:
            trace.answer(turn.answer)
        trace.note(f"turn ended: {turn.stop_reason}")  # the reason, as data the code can use
        history = turn.messages


def main() -> None:
    parser = stage_parser(__doc__)
    parser.add_argument("--budget", type=at_least_one, default=CONTEXT_BUDGET,
                        help=f"tokens one request may take (default {CONTEXT_BUDGET})")
    parser.add_argument("--max-iterations", type=at_least_one, default=MAX_ITERATIONS,
                        help=f"model calls one turn may make (default {MAX_ITERATIONS})")
    args = parser.parse_args()
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_agent_system(), args.budget, args.max_iterations)


if __name__ == "__main__":
    run(main)
