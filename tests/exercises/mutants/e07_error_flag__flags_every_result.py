"""Wrong on purpose (e07): every tool_result is flagged, failed or not."""

from shared.providers.anthropic_provider import AnthropicProvider


def flag_errors(messages: list[dict]) -> list[dict]:
    """A copy of Anthropic `messages` with `is_error: True` on failed tool results."""
    flagged = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            # a new block only where one changes; the caller's blocks stay as they were
            content = [{**block, "is_error": True} if _failed(block) else block
                       for block in content]
        flagged.append({**message, "content": content})
    return flagged


def _failed(block: dict) -> bool:
    """Whether this block is a tool result reporting a failure."""
    return block.get("type") == "tool_result"


class ErrorFlagging(AnthropicProvider):
    """AnthropicProvider whose requests carry `is_error` on failed tool results."""

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The usual request, with failed tool results flagged."""
        params = super().request(messages, system, tools)
        params["messages"] = flag_errors(params["messages"])
        return params


if __name__ == "__main__":  # the "Try it" above
    import json

    history = [
        {"role": "user", "content": "What is 1/0, and how many words in 'a b'?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "calculator", "args": {"expression": "1/0"}},
            {"id": "c2", "name": "wordcount", "args": {"text": "a b"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "calculator",
         "content": "Error: ZeroDivisionError: division by zero"},
        {"role": "tool", "tool_call_id": "c2", "name": "wordcount", "content": "2"},
    ]
    provider = ErrorFlagging(api_key="not-sent-anywhere")
    print(json.dumps(provider.request(history)["messages"], indent=2))
