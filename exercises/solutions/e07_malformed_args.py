"""Exercise 07: broken tool-call JSON, caught where the reply is assembled.

Both providers assemble a tool call's arguments from streamed JSON fragments. Models,
and gateways in front of them, sometimes send JSON that does not parse. Instead of
crashing the turn, `parse_arguments` returns `({}, note)`: no arguments, and a note
the loop feeds back to the model as an `Error: ...` observation so it can try again.

    parse_arguments('{"text": "hi"}')  -> ({"text": "hi"}, "")
    parse_arguments('{"text": "hi')    -> ({}, "the arguments were not valid JSON: ...")
    parse_arguments('')                -> ({}, "")   (a call with no arguments)
"""

import json


def parse_arguments(raw: str) -> tuple[dict, str]:
    """(args, "") for a JSON object; ({}, a note quoting `raw`) for anything else."""
    if not raw.strip():
        return {}, ""
    try:
        args = json.loads(raw)
    except (ValueError, RecursionError):
        # quote what arrived (briefly): the model needs to see what it got wrong
        return {}, f"the arguments were not valid JSON: {raw[:200]!r}"
    if not isinstance(args, dict):
        return {}, f"the arguments must be a JSON object, got: {raw[:200]!r}"
    return args, ""
