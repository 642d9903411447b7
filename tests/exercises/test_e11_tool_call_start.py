# Don't change the tests! They tell you when exercises/e11_tool_call_start.py is done.
import io

import pytest
import sdk_standin
from exercise_support import need

from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from shared.trace import make_console
from tao.repo import load_stage

CALLS = [("call_1", "now", ["{", "}"]),
         ("call_2", "wordcount", ['{"te', 'xt": "a long ', 'argument"}'])]
STREAMS = {"anthropic": sdk_standin.anthropic_events, "openai": sdk_standin.openai_chunks}
CLASSES = {"anthropic": AnthropicProvider, "openai": OpenAIProvider}


def timeline(ex, kind):
    """What happened, in order: ("start", name) from your hook, ("fragment", n) from the
    stream, for a stream with text and two tool calls."""
    starts = need(ex, "tool_call_starts", "kind", "event", "seen")
    events, seen = [], set()
    for event in STREAMS[kind](["Checking."], tools=CALLS):
        events += [("start", name) for name in starts(kind, event, seen)]
        events += [("fragment", n) for n in _fragments(kind, event)]
    return events


def _fragments(kind, event):
    if kind == "anthropic":
        if (event["type"] == "content_block_delta"
                and event["delta"]["type"] == "input_json_delta"):
            return [event["index"] - 1]  # block 0 is the text
        return []
    if not event["choices"]:
        return []
    return [f["index"] for f in event["choices"][0]["delta"].get("tool_calls") or ()
            if f["function"].get("arguments")]


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_each_call_is_announced_once_before_its_arguments(ex, kind):
    events = timeline(ex, kind)
    starts = [name for what, name in events if what == "start"]
    assert starts == ["now", "wordcount"], (
        f"expected one start per call, in order, each exactly once; got {starts}")
    for index, name in enumerate(["now", "wordcount"]):
        started = events.index(("start", name))
        first_fragment = events.index(("fragment", index))
        assert started < first_fragment, (
            f"{name} was announced after its arguments began to arrive")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_live_turn_shows_calling_lines_before_the_answer(ex, kind):
    provider = sdk_standin.provider(CLASSES[kind], kind,
                                    STREAMS[kind](["Checking."], tools=CALLS),
                                    STREAMS[kind](["It is noon; 3 words."]))
    screen = io.StringIO()
    console = make_console(file=screen, width=80)
    need(ex, "announce", "provider", "console")(provider, console)
    seen = []
    answer = load_stage("07", "loop").agent_step("time and words?", [], provider, "",
                                                 on_text_delta=seen.append)
    assert answer == "It is noon; 3 words."
    lines = screen.getvalue().splitlines()
    assert lines == ["calling now…", "calling wordcount…"], (
        f"the screen should show one 'calling NAME…' line per call, and nothing else; "
        f"it shows {lines}")
