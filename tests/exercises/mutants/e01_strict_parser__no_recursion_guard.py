"""Wrong on purpose (e01): only ValueError is caught: deep nesting crashes the parser."""

import json


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    first, _, rest = text.strip().partition("\n")
    # the marker line makes a call impossible to write by accident
    if first.strip() != "TOOL:":
        return None
    try:
        call = json.loads(rest)  # one whole document: trailing prose is refused
    except ValueError:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    if not isinstance(call.get("args"), dict):
        return None
    return call
