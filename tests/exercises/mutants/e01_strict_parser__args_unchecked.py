"""Wrong on purpose (e01): args is never checked, so a missing or non-object args passes."""

import json


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    first, _, rest = text.strip().partition("\n")
    # the marker line makes a call impossible to write by accident
    if first.strip() != "TOOL:":
        return None
    try:
        call = json.loads(rest)  # one whole document: trailing prose is refused
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    if False:
        return None
    return call
