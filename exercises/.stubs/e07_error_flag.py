"""Exercise 07 (stage 07): tell Anthropic which tool results are failures.

Stage 07 reports a failed tool as a result whose text starts with "Error" (see
`run_tool` in stages/07_native_tools/loop.py). OpenAI has no other way to say it, but
Anthropic's `tool_result` block has a field for it: `"is_error": true` marks the call
as failed, so the model treats the text as a problem to fix rather than as an answer.

Write `flag_errors(messages)` over Anthropic-format messages (as `to_anthropic` returns
them): a new list in which every `tool_result` block whose content starts with "Error"
has `"is_error": True`, and nothing else differs. The input is not changed. Then make
`ErrorFlagging`, an AnthropicProvider, send every request with its results flagged.

Try it: `uv run exercises/e07_error_flag.py` prints the messages ErrorFlagging would
send after one failing and one working tool call (no key or network needed). Look for
is_error, and check that the working result has none.
"""

from shared.providers.anthropic_provider import AnthropicProvider


def flag_errors(messages: list[dict]) -> list[dict]:
    """A copy of Anthropic `messages` with `is_error: True` on failed tool results."""
    # TODO: copy each message and each block you change; a tool_result's content is the
    #       text stage 07's run_tool returned
    raise NotImplementedError("exercise 07: flag_errors")


class ErrorFlagging(AnthropicProvider):
    """AnthropicProvider whose requests carry `is_error` on failed tool results."""

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The usual request, with failed tool results flagged."""
        # TODO: build the usual request with super().request(...), then flag its messages
        raise NotImplementedError("exercise 07: ErrorFlagging.request")


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
