"""Exercise 05: repair a history so strict APIs accept it.

A crash, a Ctrl-C or a trimmed history can leave tool messages without the call they
answer (orphans), or calls without a result. Anthropic and OpenAI both refuse such a
history. `repair` returns a new list in which every `role: "tool"` message answers a
call made earlier, and every call has a result: a missing one gets MISSING_RESULT,
placed right after the results its assistant turn already has. The input is not changed.
"""

MISSING_RESULT = "Error: no result: the call was interrupted or lost"


def repair(messages: list[dict]) -> list[dict]:
    """`messages` with orphan results dropped and missing results backfilled."""
    repaired: list[dict] = []
    declared: set[str] = set()  # ids of every call made so far
    owed: list[dict] = []  # calls of the latest assistant turn still without a result

    def settle():
        # backfill before anything else is appended, so results stay next to their calls
        for call in owed:
            repaired.append({"role": "tool", "tool_call_id": call["id"], "name": call["name"],
                             "content": MISSING_RESULT})
        owed.clear()

    for message in messages:
        if message["role"] == "tool":
            if message.get("tool_call_id") not in declared:
                continue  # an orphan: its call is gone
            owed[:] = [c for c in owed if c["id"] != message["tool_call_id"]]
            repaired.append(dict(message))
            continue
        settle()
        repaired.append(dict(message))
        for call in message.get("tool_calls") or ():
            declared.add(call["id"])
            owed.append(call)
    settle()
    return repaired
