"""The ReAct loop: think, act, observe, until the model answers in plain text.

The protocol and the parser are stage 04's. New: `agent_step` sends each tool result
back to the model as a `<tool_result>` message and asks again, at most MAX_ITERATIONS
times; a failing tool becomes an `Error: ...` observation instead of a crash.
"""

import json
import re
from datetime import UTC, datetime

from context import build_context

from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever
MAX_OBSERVATION = 4000  # characters of one tool result the model gets to read

TOOL_INSTRUCTIONS = """
You have access to tools. To call a tool, reply with exactly one line of JSON:

    {"tool": "<name>", "args": {<arguments>}}

Available tools:

- `now` — return the current UTC time. No arguments.

When you call a tool, do not write anything else. Wait for the tool result, then continue.
When you have nothing left to do, reply with a normal text answer to the user. No JSON.
""".strip()


def _now(args: dict) -> str:
    """The current UTC time in ISO format."""
    return datetime.now(UTC).isoformat()


TOOLS = {
    "now": _now,
}


def build_agent_system() -> str:
    """The stage 03 system prompt with the tool protocol appended."""
    return f"{build_context()}\n\n{TOOL_INSTRUCTIONS}"


def _parse_tool_call(text: str) -> dict | None:
    """The tool call in a reply (its args {} if none), or None for a plain answer."""
    text = text.lstrip("\ufeff").strip()  # models often put a BOM or blank lines first
    if not text.startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None  # looked like JSON, was not (or too deep, or a number too long): an answer
    if not isinstance(parsed, dict) or "tool" not in parsed:
        return None
    if parsed.get("args") is None:  # left out or null: the call takes no arguments
        parsed["args"] = {}
    return parsed


def run_tool(name: str, args: dict) -> str:
    """Run a tool by name; every failure becomes an `Error: ...` the model can read."""
    if not isinstance(name, str):
        return f"Error: the tool name must be a string, not {type(name).__name__}"
    if name not in TOOLS:
        return f"Error: unknown tool {name!r}; the tools are: {', '.join(TOOLS)}"
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, not {type(args).__name__}"
    try:
        return str(TOOLS[name](args))
    except Exception as exc:  # a broken tool is news for the model, not a crash
        return f"Error: {type(exc).__name__}: {exc}"


def observation(name: str, result: str) -> str:
    """A tool result wrapped as the user message the model reads next."""
    if len(result) > MAX_OBSERVATION:
        cut = len(result) - MAX_OBSERVATION
        result = result[:MAX_OBSERVATION] + f"\n[... {cut} more characters cut]"
    # neither the result nor the name (the model's) may close the wrapper or open a fake one
    result = re.sub(r"<(?=\s*/?\s*tool_result)", "&lt;", result, flags=re.IGNORECASE)
    tool = json.dumps(name).replace("<", "\\u003c").replace(">", "\\u003e")  # one quoted token
    return f"<tool_result tool={tool}>\n{result}\n</tool_result>"


def agent_step(user_message: str, history: list[dict], provider, system: str,
               trace=SILENT) -> str:
    """Think, act, observe until the model answers in plain text; return that answer."""
    messages = history + [{"role": "user", "content": user_message}]
    for iteration in range(1, MAX_ITERATIONS + 1):
        trace.iteration(iteration)
        reply = "".join(provider.stream(messages, system))  # think
        call = _parse_tool_call(reply)
        if call is None:
            return reply  # a plain answer ends the turn
        trace.think(reply)
        name, args = call["tool"], call.get("args", {})
        trace.act(name, args)
        result = run_tool(name, args)  # act
        trace.observe(name, result)
        # observe: the call and its result join the conversation for the next think
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": observation(name, result)})
    return f"Stopped: no answer after {MAX_ITERATIONS} iterations."
