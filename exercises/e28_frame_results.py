"""Exercise 28 (stage 14): results framed by where they came from, even when cut.

`frame(messages, cap)` returns what the model is sent: a copy of `messages` (the kit's
format: {"role", "content"}; an assistant's "tool_calls": [{"id", "name", "args"}]; a
result {"role": "tool", "tool_call_id", "name", "content"}) in which each tool result is
1. cut to its first `cap` characters when it is longer, and followed by a line
   "[... N more characters cut]" (N: how many were cut);
2. then framed: a first line "«from SOURCE»", the result, a last line "«end of SOURCE»".
   SOURCE says what filled it, from the call with the result's id: 'the file "PATH"' for
   a call with a "path" argument, 'the command "COMMAND"' for one with a "command", else
   'the tool NAME' (the call's name; the result's own "name" when no call has its id).
   Quote PATH and COMMAND with json.dumps.
Every « and » inside a result becomes ‹ and ›: the only guillemets sent are the frame's,
so a file cannot end its own frame and go on as the user. Other messages go as they
are, and `messages` itself is never changed (the history keeps each result whole).

    frame([{"role": "user", "content": "go"},
           {"role": "assistant", "content": "", "tool_calls": [
               {"id": "c1", "name": "read_file", "args": {"path": "a.txt"}}]},
           {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "hi"}], 100)
    # the last: {..., "content": '«from the file "a.txt"»\\nhi\\n«end of the file "a.txt"»'}

Try it: `uv run stages/14_injection_drill/main.py --quirk gullible --record r.json`, ask
to read notes/build.log, and look at what the model was sent in r.json.
"""

import json  # noqa: F401  (you will need it)


def source(call: dict | None, name: str) -> str:
    """What filled a result, in words (`name`: the result's own, for a call not found)."""
    # TODO: 'the file "PATH"', 'the command "COMMAND"', or 'the tool NAME'
    raise NotImplementedError("exercise 28: source")


def frame(messages: list[dict], cap: int) -> list[dict]:
    """A copy of `messages` with each tool result cut to `cap`, then framed."""
    # TODO: for each tool result: cut, defuse « », then frame with source(...)
    raise NotImplementedError("exercise 28: frame")
