"""Exercise 13 (stage 07, stretch): merge consecutive same-role turns for Anthropic.

Histories repaired, trimmed or built by hand can hold two user turns in a row, or two
assistant turns. Some servers refuse that; Anthropic merges them, but a careless merge
can break a `tool_use` / `tool_result` pair. Write `merge_same_role(messages)` over
Anthropic-format messages (as `to_anthropic` returns them): consecutive turns of one
role become one turn. Every turn of the result, merged or not, has a list of blocks as
its content (a string content becomes one text block), so the output has one shape.
In each user turn every `tool_result` block comes first, the results in their original
order, then the other blocks in theirs, as the API requires. Nothing is dropped; the
input is not changed.
"""


def merge_same_role(messages: list[dict]) -> list[dict]:
    """Anthropic messages with consecutive same-role turns merged into one."""
    merged: list[dict] = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"] += blocks
        else:
            merged.append({"role": message["role"], "content": blocks})
    for turn in merged:
        if turn["role"] == "user":
            # tool_result blocks must lead the turn that answers the tool_use before it
            results = [b for b in turn["content"] if b.get("type") == "tool_result"]
            others = [b for b in turn["content"] if b.get("type") != "tool_result"]
            turn["content"] = results + others
    return merged
