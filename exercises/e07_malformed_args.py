"""Exercise 07: broken tool-call JSON, caught where the reply is assembled.

Both providers assemble a tool call's arguments from streamed JSON fragments. Models,
and gateways in front of them, sometimes send JSON that does not parse. Instead of
crashing the turn, `parse_arguments` returns `({}, note)`: no arguments, and a note
the loop feeds back to the model as an `Error: ...` observation so it can try again.

    parse_arguments('{"text": "hi"}')  -> ({"text": "hi"}, "")
    parse_arguments('{"text": "hi')    -> ({}, "the arguments were not valid JSON: ...")
    parse_arguments('')                -> ({}, "")   (a call with no arguments)
"""

import json  # noqa: F401  (you will need it)


def parse_arguments(raw: str) -> tuple[dict, str]:
    """(args, "") for a JSON object; ({}, a note quoting `raw`) for anything else."""
    # TODO: empty -> no arguments; json.loads in a try; a non-object is refused too
    raise NotImplementedError("exercise 07: malformed tool-call JSON")
