"""Exercise 02: a one-line trace per iteration.

Rewrite stage 05's `agent_step` with a `verbose` flag. With `verbose=True` it prints one
line per iteration: `[N] TOOL ARGS -> OBSERVATION` for a tool call (ARGS as JSON, the
observation cut to 80 characters) and `[N] answer` for the final one. With
`verbose=False` it prints nothing. The answers are the same either way.
"""

import json  # noqa: F401  (you will want json.dumps for ARGS)

from shared.cli.repo import load_stage

stage = load_stage("05", "loop")  # _parse_tool_call, run_tool, observation, MAX_ITERATIONS


def agent_step(user_message: str, history: list[dict], provider, system: str,
               verbose: bool = False) -> str:
    """Stage 05's loop; prints `[1] now {} -> 2026-05-01T09:30:00+00:00` when verbose."""
    # TODO: start from agent_step in stages/05_react_loop/loop.py (use stage.run_tool etc.)
    #       and print one line per iteration when verbose
    raise NotImplementedError("exercise 02: iteration trace")
