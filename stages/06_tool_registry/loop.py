"""The ReAct loop, now with several tools from a registry.

The loop is stage 05's, plus a near-miss coach. The tools moved to tools.py; the tool list in
the system prompt is generated from that registry, so adding a tool touches no code here.
"""

import json
import re

from context import build_context
from tools import TOOLS, tool_list

from shared.trace import SILENT

MAX_ITERATIONS = 10  # a model that never stops calling tools must not loop forever
MAX_OBSERVATION = 4000  # characters of one tool result the model gets to read
MAX_NEAR_MISSES = 2  # coached replies per turn; the next near miss is taken as the answer
STOP = ("<tool_result",)  # a model that starts writing its own observation is cut off there
NEAR_MISS = "Error: no tool ran: that looked like a tool call, but {why}. Send the JSON line alone."

TOOL_INSTRUCTIONS = """
You have access to tools. To call a tool, reply with exactly one line of JSON:

    {"tool": "<name>", "args": {<arguments>}}

Available tools:

{tool_list}

When you call a tool, do not write anything else. Wait for the tool result, then continue.
When you have nothing left to do, reply with a normal text answer to the user. No JSON.
""".strip()


def build_agent_system() -> str:
    """The stage 03 system prompt with the tool protocol appended."""
    instructions = TOOL_INSTRUCTIONS.replace("{tool_list}", tool_list())
    return f"{build_context()}\n\n{instructions}"


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


def _near_miss(text: str) -> str | None:
    """Why a reply that is no tool call still looks like one, or None if it does not."""
    start = text.find("{")
    if start < 0 or not re.search(r"[\"']tool[\"']\s*:", text[start:]):
        return None  # no "tool" key in sight: an answer
    try:
        end = json.JSONDecoder().raw_decode(text, start)[1]
    except (ValueError, RecursionError):
        return "its JSON did not parse (cut off, or not JSON)"
    before, after = text[:start].strip(), text[end:].strip()
    if "```" in before:
        return "it was inside a code fence"
    if bool(before) != bool(after):  # text on one side only: a call with company
        return f"it had text {'before' if before else 'after'} the JSON"
    return None  # JSON quoted inside prose, or JSON that is no call: an answer


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
    near_misses = 0
    for iteration in range(1, MAX_ITERATIONS + 1):
        trace.iteration(iteration)
        reply = "".join(provider.stream(messages, system, stop=STOP))  # think
        call = _parse_tool_call(reply)
        why = None if call else _near_miss(reply)
        if call is None and (why is None or near_misses == MAX_NEAR_MISSES):
            return reply  # a plain answer ends the turn
        trace.think(reply)
        if why:  # meant as a call, written wrong: run nothing, and say what was wrong
            near_misses += 1
            coaching = NEAR_MISS.format(why=why)
            trace.observe(None, coaching)
            messages.append({"role": "assistant", "content": reply})
            messages.append({"role": "user", "content": observation(None, coaching)})
            continue
        name, args = call["tool"], call.get("args", {})
        trace.act(name, args)
        result = run_tool(name, args)  # act
        trace.observe(name, result)
        # observe: the call and its result join the conversation for the next think
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": observation(name, result)})
    return f"Stopped: no answer after {MAX_ITERATIONS} iterations."
