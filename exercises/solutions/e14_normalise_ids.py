"""Exercise 14 (stage 07, stretch): normalise tool-call ids a gateway made too long.

Some gateways lengthen tool-call ids (prefixes, routing data, a 300-character hash).
OpenAI refuses ids over 40 characters; Anthropic refuses any character outside
[a-zA-Z0-9_-]. `normalise_ids(messages)` returns a copy of an internal-format history in
which every id that breaks those rules is replaced by `call_` + the first 16 hex digits
of its SHA-1, everywhere it appears: in the assistant's `tool_calls` and in the
`tool_call_id` of the results. Valid ids are kept (VALID fits the whole id, to its
last character: "call_1\\n" is not valid); different ids stay different: if the new id
is already taken (by a valid id in the history, or as the new id of another old id),
use one more hex digit of the SHA-1, then another, until it is free. Each history is
normalised on its own.
"""

import hashlib
import re

VALID = re.compile(r"[a-zA-Z0-9_-]{1,40}")  # Don't change this line: VALID.fullmatch(id)


def normalise_ids(messages: list[dict]) -> list[dict]:
    """A copy of `messages` with every invalid tool-call id replaced consistently."""
    mapping: dict[str, str] = {}
    taken = {i for i in _ids(messages) if VALID.fullmatch(i)}  # kept as they are

    def fixed(call_id: str) -> str:
        # one mapping for the whole history keeps calls and results paired
        if VALID.fullmatch(call_id):
            return call_id
        if call_id not in mapping:
            digest = hashlib.sha1(call_id.encode()).hexdigest()
            length = 16
            while "call_" + digest[:length] in taken:  # never merge two different calls
                length += 1
            mapping[call_id] = "call_" + digest[:length]
            taken.add(mapping[call_id])
        return mapping[call_id]

    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [{**c, "id": fixed(c["id"])} for c in message["tool_calls"]]
        if message["role"] == "tool":
            message["tool_call_id"] = fixed(message["tool_call_id"])
        out.append(message)
    return out


def _ids(messages: list[dict]):
    """Every tool-call id the history mentions."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            yield call["id"]
        if message["role"] == "tool":
            yield message["tool_call_id"]
