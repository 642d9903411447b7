"""Concurrent tools: the read-only calls of one reply run at the same time.

Tools are slow once they wait on something (a server, a disk). When every call of a
reply only reads, `run_calls` starts them all at once with asyncio and waits for the
last; each has a timeout, and the results go back in call order, whatever finished first.
A plain (not async) tool runs in a thread of its own under the same timeout, so one that
hangs costs its timeout, never the session.
"""

import asyncio
import contextlib
import inspect
import json
import threading
import time
from collections import Counter
from concurrent import futures
from dataclasses import dataclass

from context import CONTEXT_BUDGET, build_context, estimate_tokens, prepare, tokens_read
from tools import READ_ONLY, TIMEOUTS, TOOLS, find_tool

from shared.providers import ProviderError
from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever
TIMEOUT = 2.0  # seconds one tool call may take; a slower one becomes an error observation
REPEATS = 3  # the same call (or the same result) this often in one turn: no progress
# What a model call's stop reason lets the loop do with the reply. These are every reason
# both APIs document, in tao's words (the OpenAI provider maps stop -> end_turn,
# tool_calls -> tool_use, length -> max_tokens). A reason not listed runs nothing.
GATES = {
    "end_turn": "run",  # done; a reply with calls and an ordinary end still runs them
    "tool_use": "run",  # it stopped in order to call tools
    "max_tokens": "cut_off",  # the arguments may not be whole
    "refusal": "refuse",  # Anthropic declined
    "content_filter": "refuse",  # OpenAI's filter: a gateway may still pass half a reply
    "stop_sequence": "stop",  # cut where a stop sequence began, not to call a tool
    "pause_turn": "stop",  # Anthropic paused a long server-side turn
    "model_context_window_exceeded": "stop",  # Anthropic: no room left to write in
}
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


async def run_tool(call) -> str:
    """Run one tool call; every failure, a timeout too, becomes an `Error: ...`."""
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
    limit = TIMEOUTS.get(call.name, TIMEOUT)  # `run` keeps a timeout of its own, inside this
    try:
        async with asyncio.timeout(limit) as bound:  # one bound for every kind of tool
            if inspect.iscoroutinefunction(tool.run):  # it awaits: the others run meanwhile
                result = await tool.run(call.args)
            else:  # a plain function cannot be interrupted: it gets a thread of its own
                result = await in_thread(tool.run, call.args)
        return str(result)  # kept whole in the history; prepare() caps what the model is sent
    except TimeoutError as exc:
        if bound.expired():
            return f"Error: {call.name} took longer than {limit} s and was stopped"
        return f"Error: TimeoutError: {exc}"  # the tool's own timeout, not ours
    except Exception as exc:  # a broken tool is news for the model, not a crash
        return f"Error: {type(exc).__name__}: {exc}"


def in_thread(function, args: dict) -> asyncio.Future:
    """`function(args)` in a daemon thread: one that hangs is left behind, never waited for."""
    done = futures.Future()

    def work():
        try:
            settle, outcome = done.set_result, function(args)
        except Exception as exc:
            settle, outcome = done.set_exception, exc
        with contextlib.suppress(futures.InvalidStateError):  # a timeout gave up on it
            settle(outcome)

    threading.Thread(target=work, daemon=True).start()
    return asyncio.wrap_future(done)


async def run_calls(calls: list, trace=SILENT) -> list[str]:
    """Run one reply's calls, all at once if they only read; results in call order."""
    start, spans = time.perf_counter(), [None] * len(calls)

    async def timed(i, call):
        began = time.perf_counter() - start
        result = await run_tool(call)
        spans[i] = (str(call.name), began, time.perf_counter() - start)
        return result

    if all(isinstance(call.name, str) and call.name in READ_ONLY for call in calls):
        results = await asyncio.gather(*(timed(i, c) for i, c in enumerate(calls)))
    else:  # a call that changes something must not race the others: one at a time
        results = [await timed(i, call) for i, call in enumerate(calls)]
    trace.note(timeline(spans))
    return list(results)  # gather keeps the order of the calls, not of finishing


def run_all(calls: list, trace=SILENT) -> list[str]:
    """`run_calls` on this session's event loop; where one already runs (a notebook), on a
    loop of its own in another thread: a thread runs one loop at a time."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return SESSION.run(run_calls(calls, trace))
    with futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run_calls(calls, trace)).result()


SESSION = asyncio.Runner()  # one event loop for the whole session, not one per reply


def timeline(spans: list[tuple[str, float, float]], width: int = 30) -> str:
    """One line per call: when it started and ended, and a bar to see the overlap."""
    total = max(end for _, _, end in spans) or 1
    lines = []
    for name, began, ended in spans:
        a = min(round(began / total * width), width - 1)  # an instant call at the end too
        b = max(round(ended / total * width), a + 1)
        bar = " " * a + "█" * (b - a) + " " * (width - b)
        lines.append(f"{name[:10]:>10} {began:5.2f} → {ended:5.2f} s |{bar}|")
    return "\n".join(lines)


def call_model(provider, sent: list[dict], system: str, on_text_delta, trace):
    """One model call; a reply cut off inside a tool call is tried once more, with more room."""
    reply = provider.call(sent, system, TOOLS, on_text_delta)
    if reply.stop_reason != "max_tokens" or not reply.tool_calls:
        return reply
    room = 2 * getattr(provider, "max_tokens", 0) or None  # the SDK providers' limit, doubled
    trace.note("the reply was cut off inside a tool call: trying once more"
               + (f" with room for {room} tokens" if room else ""))
    return provider.call(sent, system, TOOLS, on_text_delta, max_tokens=room)


def wrap_up(messages: list[dict], sent: list[dict], provider, system: str, reason: str,
            iterations: int, on_text_delta=None) -> Turn:
    """One last call with the tools switched off, for an honest account, not an apology."""
    # the tools stay defined, so the scratchpad goes as it is (Anthropic refuses tool
    # blocks in a request with no tools); tool_choice "none" stops any call
    try:
        reply = provider.call(sent, f"{system}\n\n{WRAP_UP}", TOOLS, on_text_delta,
                              tool_choice="none")
        summary = "" if reply.tool_calls else reply.text.strip()
        if summary and reply.stop_reason == "max_tokens":
            summary += "\n[the summary was cut off at the token limit]"
    except ProviderError as exc:  # it broke off: what came, marked, is the one answer
        summary = f"{exc.partial} [cut off]" if exc.partial.strip() else ""
    return finish(messages, summary or NO_SUMMARY.format(n=iterations), reason)


def repeated(seen: Counter, reply, results: list[str]) -> int:
    """In how many replies of this turn the most repeated call, or error, has come up."""
    keys = {json.dumps([call.name, call.args], sort_keys=True) for call in reply.tool_calls}
    # the same error again and again, even with other arguments, is going in circles
    keys |= {result for result in results if result.startswith("Error")}
    seen.update(keys)  # a set: three equal calls in one reply are one parallel request
    return max(seen[key] for key in keys)


def finish(messages: list[dict], answer: str, reason: str) -> Turn:
    """The turn's end: the answer joins the history as the assistant's last word."""
    return Turn(answer, reason, messages + [{"role": "assistant", "content": answer}])


def agent_step(user_message: str, history: list[dict], provider, system: str,
               trace=SILENT, on_text_delta=None, budget: int = CONTEXT_BUDGET,
               max_iterations: int = MAX_ITERATIONS) -> Turn:
    """Think, act, observe until the turn ends; return the answer, the reason, the history."""
    messages = history + [{"role": "user", "content": user_message}]
    try:
        return run_turn(messages, provider, system, trace, on_text_delta, budget,
                        max_iterations)
    except KeyboardInterrupt:  # Ctrl-C: what the turn did so far is kept, as a checkpoint
        return finish(messages, "[cancelled: the turn so far is kept]", "cancelled")


def run_turn(messages: list[dict], provider, system: str, trace, on_text_delta,
             budget: int, max_iterations: int) -> Turn:
    """The turn's loop; `messages` grows in place, so a cancelled turn keeps its steps."""
    # what each request costs besides the messages: the system prompt and the tool list
    overhead = estimate_tokens([system, [(t.name, t.description, t.schema) for t in TOOLS]])
    seen: Counter = Counter()  # this turn's calls and results, to notice going in circles
    for iteration in range(1, max_iterations + 1):
        trace.iteration(iteration)
        sent = prepare(messages, budget, overhead, trace)  # a copy that fits the budget
        try:  # think: text deltas reach on_text_delta live; calls arrive in their own slot
            reply = call_model(provider, sent, system, on_text_delta, trace)
        except ProviderError as exc:
            return Turn(str(exc), "error", messages + [
                {"role": "assistant", "content": "[no reply: the model call failed]"}])
        if tokens_read(reply.usage) and not reply.usage.get("estimated"):
            overhead = tokens_read(reply.usage) - estimate_tokens(sent)  # real count wins
        gate = GATES.get(reply.stop_reason, "stop")  # a reason we do not know runs nothing
        not_run = ": its tool calls were not run]" if reply.tool_calls else "]"
        if gate == "refuse":  # calls that come with a refusal are never run
            return finish(messages, reply.text or "(the model declined to answer)", "refusal")
        if gate == "cut_off":  # cut off twice, or text cut off: report it, run nothing
            return finish(messages, reply.text + "\n[the reply was cut off at the token limit"
                          + not_run, "max_tokens")
        if gate == "stop":
            return finish(messages, reply.text + f"\n[the model stopped: {reply.stop_reason}"
                          + not_run, "model_stopped")
        messages.append(reply.assistant_message())
        if not reply.tool_calls:
            return Turn(reply.text, "completed", messages)
        for call in reply.tool_calls:
            trace.act(call.name, call.args, call.id)
        results = run_all(reply.tool_calls, trace)  # act: calls may overlap
        for call, result in zip(reply.tool_calls, results, strict=True):
            trace.observe(call.name, result, call.id)
            # observe: tool_call_id threads each result back to the call that asked for it
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": result})
        times = repeated(seen, reply, results)
        if times > 1:
            trace.note(f"no progress: the same call or result {times} times of {REPEATS}")
        if times >= REPEATS:
            return wrap_up(messages, prepare(messages, budget, overhead, trace), provider,
                           system, "no_progress", iteration, on_text_delta)
    trace.note(f"iteration cap ({max_iterations}) reached: one last call, tools off, to sum up")
    return wrap_up(messages, prepare(messages, budget, overhead, trace), provider, system,
                   "max_iterations", max_iterations, on_text_delta)
