"""The JSON-line wire format: how a plain text model asks for a tool.

The protocol is taught in the system prompt; `_parse_tool_call` decides whether a
reply is a tool call. The result is shown but not yet sent back to the model.
"""

import json
from datetime import UTC, datetime

from context import build_context

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
    """Run a tool by name; an unknown name is reported, not raised."""
    if not isinstance(name, str):
        return f"Error: the tool name must be a string, not {type(name).__name__}"
    if name not in TOOLS:
        return f"Error: unknown tool {name!r}"
    return TOOLS[name](args)
