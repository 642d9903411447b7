"""Exercise 26 (stage 13): an audit log whose lines vouch for each other.

A log here is a list of lines: strings, each one JSON object, no newline. `append(lines,
entry)` adds one and returns it: `entry` (a dict) with one key more, "prev", the SHA-256
(hex) of the line before it, of that line's UTF-8 bytes exactly as they are in the list;
GENESIS for a log's first line. `entry` itself is left as it was.
`first_break(lines)` returns the number (1 for the first line) of the first line that
is not a JSON object, or whose "prev" is not the one `append` would have written there;
None when the chain holds. So a line removed, added or edited shows at the line after
it (at line 1 when the first lines were removed), whatever was changed in it: the
arguments, the decision, or its own "prev".

    lines = []
    append(lines, {"tool": "run", "args": {"command": "ls"}})
    first_break(lines)   # -> None

Try it: `uv run stages/13_approval_audit/main.py --audit a.jsonl`, then
`uv run tao audit a.jsonl --verify`, edit a line and verify again.
"""

import hashlib  # noqa: F401  (you will need these)
import json  # noqa: F401

GENESIS = "0" * 64  # Don't change this line


def append(lines: list[str], entry: dict) -> str:
    """Add `entry` to the log as one line chained to the last; return that line."""
    # TODO: prev = the SHA-256 of the last line's bytes (GENESIS for the first line)
    raise NotImplementedError("exercise 26: append")


def first_break(lines: list[str]) -> int | None:
    """The number of the first line that breaks the chain, or None if it holds."""
    # TODO: walk the lines, each one's "prev" checked against the hash of the one before
    raise NotImplementedError("exercise 26: first_break")
