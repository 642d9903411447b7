"""Wrong on purpose (e05): a result for any call of the latest turn is kept, even a second one."""

MISSING_RESULT = "Error: no result: the call was interrupted or lost"  # Don't change this line


def repair(messages: list[dict]) -> list[dict]:
    """`messages` with stray results dropped and missing results backfilled."""
    repaired: list[dict] = []
    owed: dict[str, dict] = {}  # id -> call, for calls of the latest assistant turn
    latest: set[str] = set()

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
            if message.get("tool_call_id") in latest:
                owed.pop(message["tool_call_id"], None)
                repaired.append(dict(message))
            continue
        settle()
        repaired.append(dict(message))
        latest.clear()
        latest.update(c["id"] for c in message.get("tool_calls") or ())
        for call in message.get("tool_calls") or ():
            owed[call["id"]] = call
    settle()
    return repaired
