"""Exercise 09 (stage 07): stop a turn when the model repeats a failing call.

A model that gets `Error: ...` back sometimes sends the identical call again, and again,
until MAX_ITERATIONS. Stop earlier: when a tool call fails (its result starts with
"Error") and the call just before it was the *same* call and failed too, end the turn
with `Stopped: <tool> failed twice in a row with the same arguments: <the error>`.

"The same" here: the same tool name and equal arguments, compared as JSON with sorted
keys, so {"a": 1, "b": 2} and {"b": 2, "a": 1} are the same call. Any other call in
between, failing or not, resets the count. Everything else is stage 07's loop: each
result goes back to the model, and MAX_ITERATIONS still caps the turn.
"""

import json  # noqa: F401  (json.dumps makes the key)

from tao.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS, run_tool, MAX_ITERATIONS


def call_key(call) -> str:
    """What makes two calls "the same": the name and the arguments, key order ignored."""
    # TODO: combine call.name with json.dumps(call.args, sort_keys=True)
    raise NotImplementedError("exercise 09: call_key")


def agent_step(user_message: str, history: list[dict], provider, system: str) -> str:
    """Stage 07's loop, stopping after the same failing call twice in a row."""
    # TODO: start from stages/07_native_tools/loop.py; remember the key of the last
    #       call if it failed, and stop when a failing call repeats it
    raise NotImplementedError("exercise 09: repeated failure")
