"""Wrong on purpose (e13): the order of the blocks is kept, so text can come before a result."""


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
            turn["content"] = list(turn["content"])
    return merged
