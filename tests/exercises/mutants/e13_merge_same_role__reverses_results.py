"""Wrong on purpose (e13): the results come out last first."""


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
            turn["content"] = results[::-1] + others
    return merged
