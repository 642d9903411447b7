"""Exercise 05 (stage 07): repair a history so strict APIs accept it.

A crash, a Ctrl-C or a trimmed history can leave tool messages without the call they
answer (orphans), results that arrive late or twice, or calls without a result.
Anthropic and OpenAI both refuse such a history. `repair` returns a new list in which
every `role: "tool"` message answers, once, a call of the assistant turn just before
it (other results of that turn may sit in between), and every call has a result: a
missing one gets a tool message with the call's id and name and MISSING_RESULT as its
content, placed right after the results its turn already has. Any other tool message
is dropped; everything else stays, in its order. The input list and its messages are
not changed, and the messages returned are copies: editing the repaired history later
never edits the caller's.
"""

MISSING_RESULT = "Error: no result: the call was interrupted or lost"  # Don't change this line


def repair(messages: list[dict]) -> list[dict]:
    """`messages` with stray results dropped and missing results backfilled."""
    repaired: list[dict] = []
    owed: dict[str, dict] = {}  # id -> call, for calls of the latest assistant turn

    def settle():
        # backfill before anything else is appended, so results stay next to their calls
        for call in owed.values():
            repaired.append({"role": "tool", "tool_call_id": call["id"], "name": call["name"],
                             "content": MISSING_RESULT})
        owed.clear()

    for message in messages:
        if message["role"] == "tool":
            # only a call still waiting may be answered: orphans, late and repeated
            # results all fail this test
            if owed.pop(message.get("tool_call_id"), None) is not None:
                repaired.append(dict(message))
            continue
        settle()
        repaired.append(dict(message))
        for call in message.get("tool_calls") or ():
            owed[call["id"]] = call
    settle()
    return repaired
