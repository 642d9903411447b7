"""Exercise 16 (stage 08): compact old tool results.

A big tool result from many turns ago costs tokens on every request, long after the
model used it. `compact_results` keeps the `keep` newest tool results as they are and
replaces the content of every older one that is longer than `min_chars` characters with

    OMITTED.format(name=<the tool's name>, chars=<the old content's length>)

which says what happened, so the model neither thinks the tool failed nor calls it again
without need. Lengths are in characters, as `len` counts them, not in bytes; the name
is the one in the tool message itself. With `keep` tool results or fewer, none is old.
Everything else stays as it was: the same messages in the same order, with the same
roles and ids, so every call keeps its result. The input is not changed.
"""

OMITTED = "[{name} result of {chars} characters left out to save room; call again if needed]"


def compact_results(messages: list[dict], keep: int = 3, min_chars: int = 500) -> list[dict]:
    """`messages` with older long tool results replaced by a short note."""
    tool_positions = [i for i, m in enumerate(messages) if m["role"] == "tool"]
    old = set(tool_positions[:max(len(tool_positions) - keep, 0)])  # all but the newest
    compacted = []
    for i, message in enumerate(messages):
        if i in old and len(message["content"]) > min_chars:
            message = {**message, "content": OMITTED.format(name=message["name"],
                                                            chars=len(message["content"]))}
        compacted.append(message)
    return compacted
