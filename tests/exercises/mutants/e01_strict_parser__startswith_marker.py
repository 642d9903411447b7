"""Wrong on purpose (e01): the marker checked with startswith, so `TOOL: junk` passes."""

import json


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    first, _, rest = text.strip().partition("\n")
    # the marker line makes a call impossible to write by accident
    if not first.startswith("TOOL:"):
        return None
    try:
        call = json.loads(rest)  # one whole document: trailing prose is refused
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    if not isinstance(call.get("args"), dict):
        return None
    return call
