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

import hashlib  # noqa: F401  (hashlib.sha1 makes the new ids)
import re

VALID = re.compile(r"[a-zA-Z0-9_-]{1,40}")  # Don't change this line: VALID.fullmatch(id)


def normalise_ids(messages: list[dict]) -> list[dict]:
    """A copy of `messages` with every invalid tool-call id replaced consistently."""
    # TODO: keep one dict from old id to new id for the whole history, and copy each
    #       message (and each tool call) rather than editing it
    raise NotImplementedError("exercise 14: normalise tool-call ids")
