"""Wrong on purpose (e14): the calls get new ids, their results keep the old ones."""

import hashlib
import re

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,40}$")  # Don't change this line


def normalise_ids(messages: list[dict]) -> list[dict]:
    """A copy of `messages` with every invalid tool-call id replaced consistently."""
    mapping: dict[str, str] = {}
    taken = {i for i in _ids(messages) if VALID.match(i)}  # kept as they are

    def fixed(call_id: str) -> str:
        # one mapping for the whole history keeps calls and results paired
        if VALID.match(call_id):
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
            pass
        out.append(message)
    return out


def _ids(messages: list[dict]):
    """Every tool-call id the history mentions."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            yield call["id"]
        if message["role"] == "tool":
            yield message["tool_call_id"]
