"""Wrong on purpose (e09): the key keeps the arguments' order, so reordered calls differ."""

import json

from shared.cli.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS, run_tool, MAX_ITERATIONS


def call_key(call) -> str:
    """What makes two calls "the same": the name and the arguments, key order ignored."""
    return call.name + " " + json.dumps(call.args)


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
