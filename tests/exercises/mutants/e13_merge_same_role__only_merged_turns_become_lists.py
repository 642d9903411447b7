"""Wrong on purpose (e13): a turn that was not merged keeps its string content."""


def merge_same_role(messages: list[dict]) -> list[dict]:
    """Anthropic messages with consecutive same-role turns merged into one."""
    merged: list[dict] = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if merged and merged[-1]["role"] == message["role"]:
            if isinstance(merged[-1]["content"], str):
                merged[-1]["content"] = [{"type": "text", "text": merged[-1]["content"]}]
            merged[-1]["content"] = merged[-1]["content"] + blocks
        else:
            merged.append({"role": message["role"], "content": content})
    for turn in merged:
        if turn["role"] == "user" and isinstance(turn["content"], list):
            # tool_result blocks must lead the turn that answers the tool_use before it
            results = [b for b in turn["content"] if b.get("type") == "tool_result"]
            others = [b for b in turn["content"] if b.get("type") != "tool_result"]
            turn["content"] = results + others
    return merged
