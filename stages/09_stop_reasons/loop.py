"""Stop reasons as data: every turn ends with a reason the code can act on.

`agent_step` returns a `Turn`: the answer, why the turn ended (completed,
max_iterations, max_tokens, refusal, error) and the history. At the iteration cap, one
last call with the tools taken away asks the model what it did and what is missing.
"""

import json
from dataclasses import dataclass

from context import CONTEXT_BUDGET, build_context, estimate_tokens, prepare
from tools import TOOLS, find_tool

from shared.providers import ProviderError
from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever
REFUSALS = {"refusal", "content_filter"}  # Anthropic's stop_reason, OpenAI's finish_reason
WRAP_UP = ("You have used every tool call this turn allows. Do not ask for more: say what "
           "you found, what is still missing, and what the user could try next.")
NO_SUMMARY = "I stopped after {n} iterations without an answer: try a smaller question."


@dataclass
class Turn:
    """What one turn produced: the answer, why the turn ended, and the history."""

    answer: str
    stop_reason: str
    messages: list[dict]


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


def call_model(provider, sent: list[dict], system: str, on_text_delta, trace):
    """One model call; a reply cut off inside a tool call is tried once more, with more room."""
    reply = provider.call(sent, system, TOOLS, on_text_delta)
    if reply.stop_reason != "max_tokens" or not reply.tool_calls:
        return reply
    room = 2 * getattr(provider, "max_tokens", 0) or None  # the SDK providers' limit, doubled
    trace.note("the reply was cut off inside a tool call: trying once more"
               + (f" with room for {room} tokens" if room else ""))
    return provider.call(sent, system, TOOLS, on_text_delta, max_tokens=room)


def as_text(messages: list[dict]) -> list[dict]:
    """The history with tool calls and results written out as text (stage 05's format)."""
    plain = []
    for m in messages:
        if m["role"] == "tool":
            m = {"role": "user",
                 "content": f"<tool_result tool={m['name']}>\n{m['content']}\n</tool_result>"}
        elif m.get("tool_calls"):
            calls = ", ".join(f"{c['name']} {json.dumps(c['args'])}" for c in m["tool_calls"])
            m = {"role": "assistant", "content": f"{m['content']}\n(I called {calls})".strip()}
        plain.append(m)
    return plain


def wrap_up(messages: list[dict], provider, system: str, max_iterations: int,
            on_text_delta=None) -> Turn:
    """At the cap: one call with no tools, for an honest account instead of an apology."""
    # a request with no tools may not hold tool blocks (Anthropic refuses them): send text
    try:
        reply = provider.call(as_text(messages), f"{system}\n\n{WRAP_UP}", (), on_text_delta)
        summary = "" if reply.tool_calls else reply.text.strip()
    except ProviderError:
        summary = ""
    return finish(messages, summary or NO_SUMMARY.format(n=max_iterations), "max_iterations")


def finish(messages: list[dict], answer: str, reason: str) -> Turn:
    """The turn's end: the answer joins the history as the assistant's last word."""
    return Turn(answer, reason, messages + [{"role": "assistant", "content": answer}])


def agent_step(user_message: str, history: list[dict], provider, system: str,
               trace=SILENT, on_text_delta=None, budget: int = CONTEXT_BUDGET,
               max_iterations: int = MAX_ITERATIONS) -> Turn:
    """Think, act, observe until the turn ends; return the answer, the reason, the history."""
    messages = history + [{"role": "user", "content": user_message}]
    # what each request costs besides the messages: the system prompt and the tool list
    overhead = estimate_tokens([system, [(t.name, t.description, t.schema) for t in TOOLS]])
    for iteration in range(1, max_iterations + 1):
        trace.iteration(iteration)
        sent = prepare(messages, budget, overhead, trace)  # a copy that fits the budget
        try:  # think: text deltas reach on_text_delta live; calls arrive in their own slot
            reply = call_model(provider, sent, system, on_text_delta, trace)
        except ProviderError as exc:
            return Turn(str(exc), "error", messages + [
                {"role": "assistant", "content": "[no reply: the model call failed]"}])
        if reply.usage.get("input_tokens") and not reply.usage.get("estimated"):
            overhead = reply.usage["input_tokens"] - estimate_tokens(sent)  # real count wins
        if reply.stop_reason in REFUSALS:  # calls that come with a refusal are never run
            return finish(messages, reply.text or "(the model declined to answer)", "refusal")
        if reply.stop_reason == "max_tokens":  # cut off twice: report it, run nothing
            return finish(messages, reply.text + "\n[the reply was cut off at the token limit"
                          + (": its tool calls were not run]" if reply.tool_calls else "]"),
                          "max_tokens")
        messages.append(reply.assistant_message())
        if not reply.tool_calls:
            return Turn(reply.text, "completed", messages)
        for call in reply.tool_calls:  # every call of this reply, in the order given
            trace.act(call.name, call.args, call.id)
            result = run_tool(call)  # act
            trace.observe(call.name, result, call.id)
            # observe: tool_call_id threads each result back to the call that asked for it
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": result})
    trace.note(f"iteration cap ({max_iterations}) reached: one last call, tools off, to sum up")
    return wrap_up(messages, provider, system, max_iterations, on_text_delta)
