# Don't change the tests! They tell you when exercises/e11_tool_call_start.py is done.
import io

import pytest
import sdk_standin
from exercise_support import need

from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from shared.trace import make_console
from tao.repo import load_stage

STREAMS = {"anthropic": sdk_standin.anthropic_events, "openai": sdk_standin.openai_chunks}
CLASSES = {"anthropic": AnthropicProvider, "openai": OpenAIProvider}


def two_calls():
    """Two calls of two tools, their arguments in fragments; a new copy on every call."""
    return [("call_1", "now", ["{", "}"]),
            ("call_2", "wordcount", ['{"te', 'xt": "a long ', 'argument"}'])]


def three_fetches():
    """Three calls of one tool in one reply, as a model fetching three pages sends them."""
    return [(f"call_{n}", "fetch", ['{"url": ', f'"example.org/{n}"}}']) for n in (1, 2, 3)]


def timeline(ex, kind, calls=None, stream=None, seen=None):
    """What happened, in order: ("start", name) from your hook, ("fragment", n) from the
    stream, for a stream with text and `calls` (two_calls() unless given)."""
    starts = need(ex, "tool_call_starts", "kind", "event", "seen")
    events, seen = [], set() if seen is None else seen
    for event in stream or STREAMS[kind](["Checking."], tools=calls or two_calls()):
        events += [("start", name) for name in starts(kind, event, seen)]
        events += [("fragment", n) for n in _fragments(kind, event)]
    return events


def check_each_call_announced_once_before_its_arguments(events, names):
    starts = [name for what, name in events if what == "start"]
    assert starts == names, (
        f"expected one start per call, in order, each exactly once: {names}; got {starts}")
    at = [i for i, (what, _) in enumerate(events) if what == "start"]
    for index, name in enumerate(names):
        first_fragment = events.index(("fragment", index))
        assert at[index] < first_fragment, (
            f"call {index + 1} ({name}) was announced after its arguments began to arrive")


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
    check_each_call_announced_once_before_its_arguments(timeline(ex, kind),
                                                        ["now", "wordcount"])


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_three_calls_of_one_tool_are_three_starts(ex, kind):
    events = timeline(ex, kind, three_fetches())
    check_each_call_announced_once_before_its_arguments(events, ["fetch", "fetch", "fetch"])


def test_a_server_that_repeats_the_id_and_name_on_every_fragment(ex):
    stream = sdk_standin.openai_chunks(["Checking."], tools=two_calls())
    for chunk in stream:  # as SGLang and old llama.cpp do: every fragment says whose it is
        for fragment in (chunk["choices"] or [{}])[0].get("delta", {}).get("tool_calls", []):
            call_id, name, _ = two_calls()[fragment["index"]]
            fragment.update(id=call_id, type="function")
            fragment["function"]["name"] = name
    events = timeline(ex, "openai", stream=stream)
    check_each_call_announced_once_before_its_arguments(events, ["now", "wordcount"])


def test_a_chunk_whose_tool_calls_is_null_starts_nothing(ex):
    starts = need(ex, "tool_call_starts", "kind", "event", "seen")
    text = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": [
        {"index": 0, "finish_reason": None,
         "delta": {"role": "assistant", "content": "Checking.", "tool_calls": None}}]}
    assert starts("openai", text, set()) == [], (
        "some servers send \"tool_calls\": null in every text chunk: no call starts there, "
        "and nothing may crash (inside announce, a crash would break the turn)")


def test_one_chunk_may_start_several_calls(ex):
    starts = need(ex, "tool_call_starts", "kind", "event", "seen")
    whole = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": [
        {"index": 0, "finish_reason": None, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "now", "arguments": "{}"}},
            {"index": 1, "id": "call_2", "type": "function",
             "function": {"name": "wordcount", "arguments": '{"text": "a b"}'}}]}}]}
    got = starts("openai", whole, set())
    assert got == ["now", "wordcount"], (
        "a server that sends whole calls may put two in one chunk: both start there, in "
        f"order; got {got}")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_each_stream_starts_afresh_with_its_own_seen(ex, kind):
    first = timeline(ex, kind, seen=set())
    second = timeline(ex, kind, seen=set())
    assert second == first, (
        "the same stream read again, with a new `seen`, should be announced the same way; "
        f"the second time the starts were {[n for w, n in second if w == 'start']}: keep "
        "what you remember in `seen`, not in the module")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_live_turn_shows_calling_lines_before_the_answer(ex, kind):
    provider = sdk_standin.provider(CLASSES[kind], kind,
                                    STREAMS[kind](["Checking."], tools=two_calls()),
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
