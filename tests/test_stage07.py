"""Stage 07: native tool calling on every provider, streaming, and bad tool input."""

from __future__ import annotations

import io
import json
import threading

import pytest
from fake_api import FakeAPI, anthropic_stream, openai_stream
from helpers import load_stage, run_stage

from shared.providers import OfflineProvider, Reply, ScriptedProvider, ToolCall
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from shared.trace import Trace, make_console

LOOP = load_stage("07", "loop")
QUESTION = ("What time is it, and how many words are in "
            "'the quick brown fox jumps over the lazy dog'?")


def sdk_provider(kind, api):
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    return cls(api_key="sk-test-key-0123456789", base_url=api.base_url)


def stream(kind, *args, **kwargs):
    return (anthropic_stream if kind == "anthropic" else openai_stream)(*args, **kwargs)


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_two_tool_question_on_the_real_sdks(kind):
    with FakeAPI(kind) as api:
        api.queue(
            stream(kind, ["Let me ", "check both."], tools=[
                ("call_now1", "now", []),
                ("call_wc1", "wordcount", ['{"text": "the quick brown ',
                                           'fox jumps over the lazy dog"}'])]),
            stream(kind, [], tools=[("call_calc1", "calculator",
                                     ['{"expression"', ': "9 * 1"}'])]),
            stream(kind, ["It is ", "noon; ", "9 words."]),
        )
        trace = Trace(make_console(file=io.StringIO(), width=100))
        deltas = []
        answer = LOOP.agent_step(QUESTION, [], sdk_provider(kind, api),
                                 LOOP.build_agent_system(), trace, on_text_delta=deltas.append)
    assert api.violations == [] and len(api.requests) == 3
    assert answer == "It is noon; 9 words."
    assert deltas == ["Let me ", "check both.", "It is ", "noon; ", "9 words."]
    out = trace.console.file.getvalue()
    # both calls of the first reply ran in iteration 1, before iteration 2 began
    first = out.split("iteration 2")[0]
    assert "act · now" in first and "act · wordcount" in first and "observe · wordcount" in first
    last = api.requests[-1]
    if kind == "anthropic":
        results = [b for b in last["messages"][2]["content"] if b["type"] == "tool_result"]
        assert [r["tool_use_id"] for r in results] == ["call_now1", "call_wc1"]
        assert results[1]["content"] == "9"
    else:
        tool_messages = [m for m in last["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["call_now1", "call_wc1",
                                                              "call_calc1"]
        assert tool_messages[2]["content"] == "9"


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_first_delta_is_shown_before_the_stream_ends(kind):
    sse = stream(kind, ["First", " and", " the rest."])
    first_text = next(i for i, (_, data) in enumerate(sse.events)
                      if "First" in str(data))
    sse.pause_after, sse.gate = first_text + 1, threading.Event()
    seen = []

    def on_delta(delta):
        if not seen:  # the server is holding the rest of the stream back right now
            seen.append(("stream finished?", sse.finished.is_set()))
            sse.gate.set()
        seen.append(delta)

    with FakeAPI(kind) as api:
        api.queue(sse)
        answer = LOOP.agent_step("hi", [], sdk_provider(kind, api), "", on_text_delta=on_delta)
    assert seen[0] == ("stream finished?", False)
    assert answer == "First and the rest."


def call_reply(*calls, text="", stop="tool_use"):
    return Reply(text, list(calls), stop)


@pytest.mark.parametrize(("call", "expected"), [
    (ToolCall("c1", "wordcount", {}, "the arguments were not valid JSON: '{\"te'"),
     "Error: the arguments were not valid JSON"),
    (ToolCall("c1", "clock", {}), "Error: unknown tool 'clock'; the tools are: now, "),
    (ToolCall("c1", "wordcount", {"txt": "a b"}), "Error: wordcount needs the argument(s) text"),
    (ToolCall("c1", "wordcount", {"text": 42}), "Error: AttributeError"),
    (ToolCall("c1", "calculator", {"expression": "9**9**9"}), "Error: CalcError"),
])
def test_bad_tool_calls_become_observations(call, expected):
    model = ScriptedProvider([call_reply(call), "recovered"])
    assert LOOP.agent_step("x", [], model, "") == "recovered"
    tool_message = model.calls[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "c1"
    assert tool_message["content"].startswith(expected)


def test_results_keep_call_order_and_ids():
    model = ScriptedProvider([
        call_reply(ToolCall("a", "wordcount", {"text": "one"}), ToolCall("b", "now", {}),
                   ToolCall("c", "wordcount", {"text": "one two"})), "done"])
    LOOP.agent_step("x", [], model, "")
    messages = model.calls[1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "tool"]
    assert [m["tool_call_id"] for m in messages[2:]] == ["a", "b", "c"]
    assert messages[2]["content"] == "1" and messages[4]["content"] == "2"
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["a", "b", "c"]


def test_a_reply_cut_off_by_the_token_limit_is_reported():
    model = ScriptedProvider([Reply("The answer is", [], "max_tokens")])
    answer = LOOP.agent_step("x", [], model, "")
    assert answer.startswith("The answer is") and "token limit" in answer


def test_the_iteration_cap_holds_for_native_calls():
    model = ScriptedProvider([call_reply(ToolCall(f"c{i}", "now", {}))
                              for i in range(LOOP.MAX_ITERATIONS)])
    assert "Stopped" in LOOP.agent_step("x", [], model, "")
    assert len(model.calls) == LOOP.MAX_ITERATIONS


def test_tools_are_sent_natively_not_described_in_the_prompt():
    model = ScriptedProvider(["hi"])
    LOOP.agent_step("x", [], model, LOOP.build_agent_system())
    assert [t.name for t in model.calls[0]["tools"]] == ["now", "wordcount", "calculator"]
    assert '"tool"' not in model.calls[0]["system"]


def test_offline_answers_the_two_tool_question_with_both_calls_in_one_reply():
    trace = Trace(make_console(file=io.StringIO(), width=100))
    answer = LOOP.agent_step(QUESTION, [], OfflineProvider(), "", trace)
    out = trace.console.file.getvalue()
    assert "9 words" in answer and "according to the now tool" in answer
    assert "act · now" in out.split("iteration 2")[0]
    assert "act · wordcount" in out.split("iteration 2")[0]


@pytest.mark.parametrize("quirk", ["broken_json", "unknown_tool"])
def test_offline_quirks_are_survived_natively(quirk):
    answer = LOOP.agent_step(QUESTION, [], OfflineProvider(quirk=quirk), "")
    assert "9 words" in answer


def test_stage07_end_to_end_offline_streams_the_answer():
    done = run_stage("07", stdin=QUESTION + "\n")
    assert done.returncode == 0, done.stderr
    assert "tao  I'll use now and wordcount." in done.stdout
    assert "That text has 9 words." in done.stdout


def test_a_fault_after_streamed_text_keeps_it_on_screen_and_out_of_the_history(
        monkeypatch, tmp_path):
    stage = load_stage("07")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"text": "Let me check.", "tool_calls": [{"id": "c1", "name": "now", "args": {}}]},
        {"error": "openai: the stream broke off mid-reply", "partial": "It is noon and"},
        "fine"]), encoding="utf-8")
    model = ScriptedProvider.from_file(str(script))
    feed = iter(["time?", "again?"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(feed))
    trace = Trace(make_console(file=io.StringIO(), width=100))
    with pytest.raises(StopIteration):
        stage.chat(model, trace, "SYS")
    assert model.calls[2]["messages"] == [{"role": "user", "content": "again?"}]
    lines = trace.console.file.getvalue().splitlines()
    assert "tao  It is noon and [cut off]" in lines
    assert "error  openai: the stream broke off mid-reply" in lines and "tao  fine" in lines


# a reply the API would refuse to see again used to cost the turn's tool round: the
# request after the tools ran was refused (400), or could not be encoded at all
HOSTILE_FIRST_REPLIES = {
    "whitespace before the call": (["\n\n"], [("call_w", "wordcount", ['{"text": "a b"}'])]),
    "one id for two calls": ([], [("call_d", "now", ["{}"]),
                                  ("call_d", "wordcount", ['{"text": "a b"}'])]),
    "a lone surrogate in the arguments": ([], [("call_s", "wordcount",
                                                ['{"text": "a \\udc80 b"}'])]),
}


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
@pytest.mark.parametrize("fault", list(HOSTILE_FIRST_REPLIES))
def test_the_tool_round_survives_a_reply_the_api_would_refuse_to_see_again(kind, fault):
    text, tools = HOSTILE_FIRST_REPLIES[fault]
    with FakeAPI(kind) as api:
        api.queue(stream(kind, text, tools=tools), stream(kind, ["Done."]))
        answer = LOOP.agent_step("count 'a b'", [], sdk_provider(kind, api), "")
    assert api.violations == [] and len(api.requests) == 2
    assert answer == "Done."
    sent = json.dumps(api.requests[-1]["messages"])  # one result per call the server sent
    assert sent.count('"tool_result"' if kind == "anthropic" else '"tool_call_id"') == len(tools)
