"""Native tool calling: the provider's own tool API instead of a JSON-line protocol.

Tools travel in the request's `tools` field, and calls come back in their own slot of
the reply, apart from the text. So text can stream live again, one reply can hold
several calls, and no parser is needed.
"""

from context import build_context
from tools import TOOLS, find_tool

from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever
MAX_OBSERVATION = 4000  # characters of one tool result the model gets to read


def build_agent_system() -> str:
    """The stage 03 system prompt: the tools no longer need describing in it."""
    return build_context()


def run_tool(call) -> str:
    """Run one tool call; every failure becomes an `Error: ...` the model can read."""
    if call.error:  # the arguments arrived broken
        return f"Error: {call.error}"
    tool = find_tool(call.name)
    if tool is None:
        names = ", ".join(t.name for t in TOOLS)
        return f"Error: unknown tool {call.name!r}; the tools are: {names}"
    if not isinstance(call.args, dict):
        return f"Error: the arguments must be a JSON object, not {type(call.args).__name__}"
    missing = [key for key in tool.schema.get("required", []) if key not in call.args]
    if missing:
        return f"Error: {call.name} needs the argument(s) {', '.join(missing)}"
    try:
        result = str(tool.run(call.args))
    except Exception as exc:  # a broken tool is news for the model, not a crash
        return f"Error: {type(exc).__name__}: {exc}"
    if len(result) > MAX_OBSERVATION:
        cut = len(result) - MAX_OBSERVATION
        result = result[:MAX_OBSERVATION] + f"\n[... {cut} more characters cut]"
    return result


def agent_step(user_message: str, history: list[dict], provider, system: str,
               trace=SILENT, on_text_delta=None) -> str:
    """Think, act, observe until the model answers without calling a tool."""
    messages = history + [{"role": "user", "content": user_message}]
    for iteration in range(1, MAX_ITERATIONS + 1):
        trace.iteration(iteration)
        # think: text deltas reach on_text_delta live; calls arrive in their own slot
        reply = provider.call(messages, system, TOOLS, on_text_delta)
        if reply.stop_reason == "max_tokens":
            return reply.text + "\n[the reply was cut off: it reached the token limit]"
        if not reply.tool_calls:
            return reply.text
        messages.append(reply.assistant_message())
        for call in reply.tool_calls:  # every call of this reply, in the order given
            trace.act(call.name, call.args, call.id)
            result = run_tool(call)  # act
            trace.observe(call.name, result, call.id)
            # observe: tool_call_id threads each result back to the call that asked for it
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": result})
    return f"Stopped: no answer after {MAX_ITERATIONS} iterations."
