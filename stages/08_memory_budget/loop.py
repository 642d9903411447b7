"""Memory: each turn's whole scratchpad stays in the history, under a context budget.

`agent_step` returns the history with the whole turn added (the request, every tool
call and result, the answer), so the next turn can see what the tools said. Before each
model call, `prepare` (context.py) cuts what the model is sent down to a token budget.
"""

from context import CONTEXT_BUDGET, build_context, estimate_tokens, prepare, tokens_read
from tools import TOOLS, find_tool

from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever


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
    return result  # kept whole in the history; prepare() caps what the model is sent


def agent_step(user_message: str, history: list[dict], provider, system: str,
               trace=SILENT, on_text_delta=None, budget: int = CONTEXT_BUDGET) -> list[dict]:
    """Think, act, observe until the model answers; return the history with the whole turn."""
    messages = history + [{"role": "user", "content": user_message}]
    # what each request costs besides the messages: the system prompt and the tool list
    overhead = estimate_tokens([system, [(t.name, t.description, t.schema) for t in TOOLS]])
    for iteration in range(1, MAX_ITERATIONS + 1):
        trace.iteration(iteration)
        sent = prepare(messages, budget, overhead, trace)  # a copy that fits the budget
        # think: text deltas reach on_text_delta live; calls arrive in their own slot
        reply = provider.call(sent, system, TOOLS, on_text_delta)
        if tokens_read(reply.usage) and not reply.usage.get("estimated"):
            overhead = tokens_read(reply.usage) - estimate_tokens(sent)  # real count wins
        if reply.stop_reason == "max_tokens":
            return messages + [{"role": "assistant", "content": reply.text
                                + "\n[the reply was cut off: it reached the token limit]"}]
        messages.append(reply.assistant_message())
        if not reply.tool_calls:
            return messages
        for call in reply.tool_calls:  # every call of this reply, in the order given
            trace.act(call.name, call.args, call.id)
            result = run_tool(call)  # act
            trace.observe(call.name, result, call.id)
            # observe: tool_call_id threads each result back to the call that asked for it
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": result})
    return messages + [{"role": "assistant",
                        "content": f"Stopped: no answer after {MAX_ITERATIONS} iterations."}]
