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

# Don't change the line below
OMITTED = "[{name} result of {chars} characters left out to save room; call again if needed]"


def compact_results(messages: list[dict], keep: int = 3, min_chars: int = 500) -> list[dict]:
    """`messages` with older long tool results replaced by a short note."""
    # TODO: find the positions of the tool messages; all but the last `keep` are old;
    #       copy each old, long one with {**message, "content": OMITTED.format(...)}
    raise NotImplementedError("exercise 16: compact old tool results")
