"""Exercise 03 (stage 05): a one-line trace per iteration.

Rewrite stage 05's `agent_step` with a `verbose` flag. With `verbose=True` it prints one
line per iteration, N counting from 1: `[N] TOOL ARGS -> RESULT` for a tool call (ARGS
as JSON, RESULT the tool's result as `run_tool` returns it, cut to its first 80
characters) and `[N] answer`, that word, for the final one. With `verbose=False`, the
default, it prints nothing. The answers, the messages the model is sent (and the
history it is given, left as it was) and the MAX_ITERATIONS cap are the same as stage
05's either way.

Try it: `uv run exercises/e03_iteration_trace.py` asks the offline model, with its
unknown-tool quirk, for the time, and prints your trace: one line per iteration shows
how the loop recovered from the model's mistake.
"""

import json  # noqa: F401  (you will want json.dumps for ARGS)

from tao.repo import load_stage

stage = load_stage("05", "loop")  # _parse_tool_call, run_tool, observation, MAX_ITERATIONS


def agent_step(user_message: str, history: list[dict], provider, system: str,
               verbose: bool = False) -> str:
    """Stage 05's loop; prints `[1] now {} -> 2026-05-01T09:30:00+00:00` when verbose."""
    # TODO: start from agent_step in stages/05_react_loop/loop.py (use stage.run_tool etc.)
    #       and print one line per iteration when verbose
    raise NotImplementedError("exercise 03: iteration trace")


if __name__ == "__main__":  # the "Try it" above
    from shared.providers import OfflineProvider

    model = OfflineProvider(quirk="unknown_tool")
    print(agent_step("What time is it?", [], model,
                     stage.build_agent_system(), verbose=True))
