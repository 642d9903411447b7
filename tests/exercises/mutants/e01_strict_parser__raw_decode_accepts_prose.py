"""Wrong on purpose (e01): raw_decode reads the first object and ignores what follows."""

import json


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    first, _, rest = text.strip().partition("\n")
    # the marker line makes a call impossible to write by accident
    if first.strip() != "TOOL:":
        return None
    try:
        call, _ = json.JSONDecoder().raw_decode(rest.strip())
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    if not isinstance(call.get("args"), dict):
        return None
    return call
