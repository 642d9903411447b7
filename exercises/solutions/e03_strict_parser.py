"""Exercise 03: a stricter wire format.

Stage 04 treats any reply that is one JSON object with a "tool" key as a call. Here a
call must announce itself: its first line is exactly `TOOL:` and the rest of the reply
is one JSON object with a string "tool" and an object "args". Anything else (prose,
bare JSON, `TOOL:` followed by junk) is a final answer: return None.

    parse_tool_call('TOOL:\\n{"tool": "now", "args": {}}') -> {"tool": "now", "args": {}}
    parse_tool_call('{"tool": "now", "args": {}}')         -> None
"""

import json


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    first, _, rest = text.strip().partition("\n")
    # the marker line makes a call impossible to write by accident
    if first.strip() != "TOOL:":
        return None
    try:
        call = json.loads(rest)
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    if not isinstance(call.get("args"), dict):
        return None
    return call
