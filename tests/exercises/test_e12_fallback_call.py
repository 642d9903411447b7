# Don't change the tests! They tell you when exercises/e12_fallback_call.py is done.
import pytest
from exercise_support import need

from shared.providers import ProviderError, Reply, ScriptedProvider, ToolCall


class FailsAfter(ScriptedProvider):
    """Sends `words` as deltas, then fails (no words: fails before any output)."""

    def __init__(self, words=""):
        super().__init__([])
        self.words = words.split()

    def turn(self, messages, system, tools):
        self.calls.append({"messages": messages})
        yield from self.words
        raise ProviderError(f"{self.name}: connection lost")


def fallback(ex):
    return need(ex, "fallback_call", "providers", "messages", "system", "tools", "on_text_delta")


def test_a_failure_before_any_output_moves_on(ex):
    backup = ScriptedProvider(["from the backup"])
    seen = []
    reply = fallback(ex)([FailsAfter(), backup], [{"role": "user", "content": "hi"}], "", (),
                         seen.append)
    assert reply.text == "from the backup" and "".join(seen) == "from the backup"


def test_a_failure_after_output_is_raised_not_retried(ex):
    backup = ScriptedProvider(["never"])
    seen = []
    with pytest.raises(ProviderError, match="connection lost"):
        fallback(ex)([FailsAfter("half an answer"), backup], [], "", (), seen.append)
    assert seen == ["half", "an", "answer"], "what arrived before the failure was shown"
    assert backup.calls == [], "the backup must not run once output has begun"


def test_tool_calls_and_arguments_pass_through(ex):
    wanted = Reply("", [ToolCall("c1", "now", {})], "tool_use")
    backup = ScriptedProvider([wanted])
    reply = fallback(ex)([FailsAfter(), backup], [{"role": "user", "content": "t?"}], "SYS",
                         ["TOOLS"], None)
    assert reply.tool_calls[0].name == "now" and backup.calls[0]["system"] == "SYS"
    assert backup.calls[0]["tools"] == ["TOOLS"]


def test_all_failing_names_every_failure(ex):
    with pytest.raises(ProviderError) as info:
        fallback(ex)([FailsAfter(), FailsAfter()], [], "", (), None)
    assert str(info.value).count("connection lost") == 2
