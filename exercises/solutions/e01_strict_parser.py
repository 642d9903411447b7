"""Exercise 01 (stage 04): a stricter wire format.

Stage 04 treats any reply that is one JSON object with a "tool" key as a call. Here a
call must announce itself: the first line that is not blank, with spaces around it
removed, is exactly `TOOL:`, and everything after that line is one JSON object (and
nothing else) with a string "tool" and an object "args". Anything else (prose, bare
JSON, `TOOL:` followed by junk on its line, JSON followed by prose) is a final answer:
return None.

    parse_tool_call('TOOL:\\n{"tool": "now", "args": {}}') -> {"tool": "now", "args": {}}
    parse_tool_call('\\n TOOL: \\n{"tool": "now", "args": {}}') -> the same call
    parse_tool_call('{"tool": "now", "args": {}}')         -> None

Try it: `TAO_OFFLINE_QUIRK=prose uv run stages/04_json_tool_call/main.py`, ask "what time
is it?", and watch stage 04 miss a call that has a sentence before it. With the
`fenced` quirk it misses again. Your format would have caught neither: no reply there
starts with `TOOL:`, so both are final answers to it as well. A strict format never
mistakes prose for a call; in exchange the model must be taught it, in the system prompt.
"""

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
    if not isinstance(call.get("args"), dict):
        return None
    return call
