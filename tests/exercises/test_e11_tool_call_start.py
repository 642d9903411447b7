# Don't change the tests! They tell you when exercises/e11_tool_call_start.py is done.
import pytest
from exercise_support import need
from fake_api import FakeAPI, anthropic_stream, openai_stream

from shared.cli.repo import load_stage
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider

TOOLS = load_stage("07", "tools").TOOLS
CALLS = [("call_1", "now", ["{", "}"]),
         ("call_2", "wordcount", ['{"te', 'xt": "a long ', 'argument"}'])]


def timeline(ex, kind):
    """What happened, in order: ("start", name) from your hook, ("fragment", n) from the
    stream, for a real SDK stream with text and two tool calls."""
    starts = need(ex, "tool_call_starts", "kind", "event", "seen")
    make = anthropic_stream if kind == "anthropic" else openai_stream
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    events, seen = [], set()
    with FakeAPI(kind) as api:
        api.queue(make(["Checking."], tools=CALLS))
        provider = cls(api_key="test-key-123456789", base_url=api.base_url)
        params = provider.request([{"role": "user", "content": "go"}], "", TOOLS)
        create = (provider._client.messages.create if kind == "anthropic"
                  else provider._client.chat.completions.create)
        raw = list(create(**params))
    for event in raw:
        events += [("start", name) for name in starts(kind, event, seen)]
        events += [("fragment", n) for n in _fragments(kind, event)]
    return events


def _fragments(kind, event):
    if kind == "anthropic":
        if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            return [event.index - 1]  # block 0 is the text
        return []
    if not event.choices:
        return []
    return [f.index for f in event.choices[0].delta.tool_calls or () if f.function.arguments]


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_each_call_is_announced_once_before_its_arguments(ex, kind):
    events = timeline(ex, kind)
    starts = [name for what, name in events if what == "start"]
    assert starts == ["now", "wordcount"], f"expected one start per call, in order; got {starts}"
    for index, name in enumerate(["now", "wordcount"]):
        started = events.index(("start", name))
        first_fragment = events.index(("fragment", index))
        assert started < first_fragment, (
            f"{name} was announced after its arguments began to arrive")
