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

import json

from tao.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS, run_tool, MAX_ITERATIONS


def call_key(call) -> str:
    """What makes two calls "the same": the name and the arguments, key order ignored."""
    return call.name + " " + json.dumps(call.args, sort_keys=True)


def agent_step(user_message: str, history: list[dict], provider, system: str) -> str:
    """Stage 07's loop, stopping after the same failing call twice in a row."""
    messages = history + [{"role": "user", "content": user_message}]
    last_failure = None  # the key of the previous call, if it failed
    for _ in range(stage.MAX_ITERATIONS):
        reply = provider.call(messages, system, stage.TOOLS)
        if not reply.tool_calls:
            return reply.text
        messages.append(reply.assistant_message())
        for call in reply.tool_calls:
            result = stage.run_tool(call)
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": result})
            failed = result.startswith("Error")
            # a repeat of the failure just before: more tries will not help
            if failed and last_failure == call_key(call):
                return (f"Stopped: {call.name} failed twice in a row with the same "
                        f"arguments: {result}")
            last_failure = call_key(call) if failed else None
    return f"Stopped: no answer after {stage.MAX_ITERATIONS} iterations."
