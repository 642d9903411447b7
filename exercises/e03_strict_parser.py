"""Exercise 03: a stricter wire format.

Stage 04 treats any reply that is one JSON object with a "tool" key as a call. Here a
call must announce itself: its first line is exactly `TOOL:` and the rest of the reply
is one JSON object with a string "tool" and an object "args". Anything else (prose,
bare JSON, `TOOL:` followed by junk) is a final answer: return None.

    parse_tool_call('TOOL:\\n{"tool": "now", "args": {}}') -> {"tool": "now", "args": {}}
    parse_tool_call('{"tool": "now", "args": {}}')         -> None
"""

import json  # noqa: F401  (you will need it)


def parse_tool_call(text: str) -> dict | None:
    """The call in a `TOOL:`-prefixed reply, or None for a final answer."""
    # TODO: split off the first line, check it is TOOL:, then parse and check the rest
    raise NotImplementedError("exercise 03: strict parser")
