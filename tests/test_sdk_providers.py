"""The SDK-backed providers: first in this process, on a stand-in SDK (the request each
API is sent, the events of a stream in, one Reply out); then end to end, the real SDKs
against a local fake API that streams the documented events and refuses malformed
requests as the real API does.

What a caller (a stage) sees, each held by a test below:
- one Reply per turn: text deltas in order, calls assembled in order with their ids,
  broken argument JSON reported on the call, the stop reason and the token counts;
- each failure is one line, with what to try, and never the key: a refused key names the
  variable to set; a server not there says how to start it;
- which failures are tried again (sdk_base.py), at most `max_retries` more times, each retry
  announced: a timeout, a dropped connection, 429, 5xx and 529; never a connection
  refused, a refused key, 404, a request refused as malformed (even as a 500) or any other
  4xx; the last line says how many attempts it took;
- a retry that succeeds is invisible; a reply that broke off after text was shown is not
  tried again (the learner saw it).
"""

from __future__ import annotations

import json

import pytest
from fake_api import (
    FLAVOURS,
    SSE,
    FakeAPI,
    HTTPError,
    anthropic_stream,
    api_error,
    check_anthropic,
    check_openai,
    first_problem,
    openai_stream,
)

from shared.providers import Options, ProviderError, Reasoning, Reply, Tool
from shared.providers.anthropic_provider import (
    AnthropicProvider,
    anthropic_tool_choice,
    to_anthropic,
)
from shared.providers.openai_provider import (
    OpenAIProvider,
    error_text,
    ollama,
    openai_tool_choice,
    to_openai,
    usage_from,
)

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

KEY = "sk-test-0123456789-secret"
NOW = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
           lambda args: "2026-01-01T00:00:00+00:00")
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}},
                  "required": ["text"]}, lambda args: str(len(args["text"].split())))
KINDS = ["anthropic", "openai"]


def provider(kind, api, **kwargs):
    """The real provider of this kind, pointed at the fake."""
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    return cls(api_key=KEY, base_url=api.base_url, **kwargs)


def stream(kind, *args, **kwargs):
    """A documented stream of this kind."""
    return (anthropic_stream if kind == "anthropic" else openai_stream)(*args, **kwargs)


def ask(text="hi"):
    """A one-message history."""
    return [{"role": "user", "content": text}]


# ---------------------------------------------------------------- in this process
# The providers on a stand-in SDK (fake_api/sdk.py): the request each API is sent, and
# the events of a stream in, one Reply out, without paying for the real SDKs' start-up
# (a mutation run of the provider modules stops at the first failure, so these go first).
# End to end, the real SDKs against the fake API, further down.

TOOL = Tool("calculator", "Arithmetic.", {"type": "object", "properties": {}}, str)


def stand_in(kind, model=None, **kwargs):
    """The real provider of this kind on the stand-in SDK (the `sdk` fixture)."""
    if kind == "anthropic":
        return AnthropicProvider(model or "claude-test", api_key=KEY, **kwargs)
    return OpenAIProvider(model or "gpt-test", api_key=KEY, **kwargs)


def events_of(kind, events) -> SSE:
    """A stream of these event payloads: Anthropic's named by their type."""
    return SSE([(e.get("type") if kind == "anthropic" and isinstance(e, dict) else None, e)
                for e in events])


def assembled(sdk, kind, events, **kwargs):
    """(what the turn yielded before its Reply, the Reply) for a stream of `events`."""
    sdk.queue(events_of(kind, events))
    out = list(stand_in(kind, **kwargs).turn(ask(), "", ()))
    assert isinstance(out[-1], Reply) and not any(isinstance(o, Reply) for o in out[:-1])
    return out[:-1], out[-1]


def outcome(sdk, kind, events, then=None) -> tuple[str, int]:
    """(the one-line error the turn ended in, '' if none; the requests it sent) for a
    stream of `events`; if the turn tries once more (at once), it gets `then`, a good
    stream unless given."""
    good = anthropic_stream(["ok"]) if kind == "anthropic" else openai_stream(["ok"])
    sdk.queue(events_of(kind, events), good if then is None else events_of(kind, then))
    before = len(sdk.requests)
    provider = stand_in(kind, max_retries=1)
    provider.retry_base = 0  # the one retry at once
    provider.on_notice = lambda note: None
    try:
        provider.call(ask())
    except ProviderError as exc:
        sdk.responses.clear()  # the good stream, if the turn never asked for it
        return str(exc), len(sdk.requests) - before
    return "", len(sdk.requests) - before


# ---- Anthropic's events


def start(usage=None):
    return {"type": "message_start", "message": {"usage": usage or {"input_tokens": 7}}}


def text(t, index=0):
    return {"type": "content_block_delta", "index": index,
            "delta": {"type": "text_delta", "text": t}}


def tool_start(index, call_id, name, given=None):
    block = {"type": "tool_use", "id": call_id, "name": name}
    if given is not None:
        block["input"] = given
    return {"type": "content_block_start", "index": index, "content_block": block}


def args(index, partial):
    return {"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial}}


def finish(stop="end_turn", output=5):
    return [{"type": "message_delta", "delta": {"stop_reason": stop},
             "usage": {"output_tokens": output}}, {"type": "message_stop"}]


def test_anthropic_text_and_thinking_arrive_apart_in_order(sdk):
    thinking = {"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"}}
    shown, reply = assembled(sdk, "anthropic", [start(), thinking, text("Hel"), text("lo"),
                                                *finish()])
    assert shown == ["hmm", "Hel", "lo"] and isinstance(shown[0], Reasoning)
    assert (reply.text, reply.reasoning) == ("Hello", "hmm")
    assert (reply.stop_reason, reply.usage) == ("end_turn", {"input_tokens": 7,
                                                             "output_tokens": 5})


def test_anthropic_tool_calls_assemble_by_block_index_in_order(sdk):
    events = [start(), text("Let me."), tool_start(1, "tu_1", "calculator"),
              tool_start(2, "tu_2", "clock"), args(1, '{"expr'), args(2, "{}"),
              args(1, 'ession": "1+1"}'), *finish("tool_use")]
    _, reply = assembled(sdk, "anthropic", events)
    assert [(c.id, c.name, c.args) for c in reply.tool_calls] == [
        ("tu_1", "calculator", {"expression": "1+1"}), ("tu_2", "clock", {})]
    assert reply.stop_reason == "tool_use" and reply.text == "Let me."


def test_anthropic_input_sent_whole_in_the_start_block_is_used_only_without_streamed_input(
        sdk):
    events = [start(), tool_start(0, "a", "calculator", {"expression": "2*3"}),
              tool_start(1, "b", "calculator", {"expression": "ignored"}),
              args(1, '{"expression": "4"}'), tool_start(2, "c", "clock", {}),
              tool_start(3, "d", "clock"), args(3, '{"zone": "UTC"}'),
              tool_start(4, "e", "clock", {"zone": "CET"}), args(4, "  "), *finish("tool_use")]
    _, reply = assembled(sdk, "anthropic", events)
    assert [c.args for c in reply.tool_calls] == [
        {"expression": "2*3"}, {"expression": "4"}, {}, {"zone": "UTC"}, {"zone": "CET"}]
    assert not any(c.error for c in reply.tool_calls)


def test_anthropic_cache_counts_are_kept_when_the_cache_did_something(sdk):
    usage = {"input_tokens": 3, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 1500}
    _, reply = assembled(sdk, "anthropic", [start(usage), *finish()])
    assert reply.usage == {"input_tokens": 3, "cache_creation_input_tokens": 1500,
                           "output_tokens": 5}
    usage = {"input_tokens": 3, "cache_read_input_tokens": 1400}
    _, reply = assembled(sdk, "anthropic", [start(usage), *finish()])
    assert reply.usage["cache_read_input_tokens"] == 1400


def test_anthropic_usage_counts_that_are_not_numbers_are_left_out(sdk):
    events = [start({"input_tokens": "many"}),
              {"type": "message_delta", "delta": {}, "usage": {"output_tokens": None}},
              {"type": "message_stop"}]
    _, reply = assembled(sdk, "anthropic", events)
    assert reply.usage == {} and reply.stop_reason == "end_turn"


def test_anthropic_stop_reason_is_the_last_one_given_and_kept_as_text(sdk):
    events = [start(), {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}},
              {"type": "message_delta", "delta": {"stop_reason": None}},
              {"type": "message_stop"}]
    assert assembled(sdk, "anthropic", events)[1].stop_reason == "max_tokens"
    events = [start(), {"type": "message_delta", "delta": {"stop_reason": 7}},
              {"type": "message_stop"}]
    assert assembled(sdk, "anthropic", events)[1].stop_reason == "7"


def test_anthropic_events_and_deltas_it_does_not_use_are_passed_over(sdk):
    # a thinking block ends with a signature_delta; the API may add event types later
    signature = {"type": "content_block_delta", "index": 0,
                 "delta": {"type": "signature_delta", "signature": "EqQBCgIYAh"}}
    citation = {"type": "content_block_delta", "index": 0,
                "delta": {"type": "citations_delta", "citation": {"cited_text": "x"}}}
    unknown = [{"type": "annotation", "index": 0}, {"type": "zzz_new_event"},
               {"type": "ping"}, {"type": "content_block_stop", "index": 0}]
    searched = {"type": "content_block_start", "index": 1, "content_block": {
        "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}}
    shown, reply = assembled(sdk, "anthropic", [start(), signature, citation, *unknown,
                                                searched, text("ok"), *finish()])
    assert shown == ["ok"] and (reply.text, reply.reasoning) == ("ok", "")
    assert reply.tool_calls == []  # a server tool's result is no call for the loop to run


def test_anthropic_a_stream_without_message_stop_is_broken_off_and_retried(sdk):
    assert outcome(sdk, "anthropic", [start(), *finish()[:1]]) == ("", 2)


def test_anthropic_events_after_message_stop_are_not_read(sdk):
    _, reply = assembled(sdk, "anthropic", [start(), text("a"), *finish(), text("b")])
    assert reply.text == "a"


def test_anthropic_an_error_event_is_retried_and_a_wrong_shape_is_not(sdk):
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    assert outcome(sdk, "anthropic", [start(), error]) == ("", 2)
    said, sent = outcome(sdk, "anthropic", [start(), error], then=[start(), error])
    assert sent == 2 and "error in the stream: busy" in said
    said, sent = outcome(sdk, "anthropic", [start(), {"type": "content_block_delta"}])
    assert sent == 1 and "unexpected shape" in said


@pytest.mark.parametrize("odd", [
    {"type": "content_block_delta", "index": 0},  # no delta: a KeyError inside
    {"type": "message_start", "message": "not an object"},  # an AttributeError inside
    {"type": "content_block_delta", "index": 0,  # arguments that are a number: a TypeError
     "delta": {"type": "input_json_delta", "partial_json": 5}}])
def test_anthropic_an_event_of_any_unexpected_shape_is_one_line_not_retried(sdk, odd):
    said, sent = outcome(sdk, "anthropic", [tool_start(0, "a", "clock"), odd, *finish()])
    assert sent == 1 and "an event of an unexpected shape" in said


def test_anthropic_events_name_themselves_on_the_wire(sdk):
    assert stand_in("anthropic").wire_kind({"type": "ping"}) == "ping"
    assert stand_in("anthropic").wire_kind({}) == ""


# ---- Anthropic's request


def test_anthropic_request_carries_system_and_tools_only_when_given(sdk):
    bare = stand_in("anthropic", max_tokens=321).request([{"role": "user", "content": "hi"}])
    assert "system" not in bare and "tools" not in bare
    assert (bare["model"], bare["max_tokens"], bare["stream"]) == ("claude-test", 321, True)
    assert bare["messages"] == [{"role": "user", "content": "hi"}]
    full = stand_in("anthropic").request([{"role": "user", "content": "hi"}], "Be brief.",
                                         (TOOL,))
    assert full["system"] == [{"type": "text", "text": "Be brief."}]
    assert full["tools"] == [{"name": "calculator", "description": "Arithmetic.",
                              "input_schema": TOOL.schema}]


def test_anthropic_options_override_only_what_they_set_and_leave_the_request_alone(sdk):
    provider = stand_in("anthropic", max_tokens=100)
    params = provider.request([{"role": "user", "content": "hi"}], tools=(TOOL,))
    assert provider.with_options(params, Options()) == params
    changed = provider.with_options(params, Options(max_tokens=9, tool_choice="required",
                                                    stop=("END", "STOP")))
    assert (changed["max_tokens"], changed["tool_choice"], changed["stop_sequences"]) == (
        9, {"type": "any"}, ["END", "STOP"])
    assert params["max_tokens"] == 100 and "tool_choice" not in params
    no_tools = provider.request([{"role": "user", "content": "hi"}])
    assert "tool_choice" not in provider.with_options(no_tools, Options(tool_choice="auto"))


@pytest.mark.parametrize(("choice", "shape"), [
    ("auto", {"type": "auto"}), ("none", {"type": "none"}), ("required", {"type": "any"}),
    ("calculator", {"type": "tool", "name": "calculator"})])
def test_anthropic_tool_choice_in_its_own_words(choice, shape):
    typed = "".join(list(choice))  # as typed on a command line: a new string, not the literal
    assert anthropic_tool_choice(typed) == shape


ROUND = [
    {"role": "user", "content": "2+2 and 3+3?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "name": "calculator", "args": {"expression": "2+2"}},
        {"id": "b", "name": "calculator", "args": None}]},
    {"role": "tool", "tool_call_id": "a", "content": 4},
    {"role": "tool", "tool_call_id": "b", "content": "6"},
    {"role": "user", "content": "thanks"},
    {"role": "assistant", "content": ""},
    {"role": "assistant", "content": "You're welcome."},
    {"role": "user", "content": "bye"},
]


def loaded(messages):
    """`messages` as a history read back from a file: equal strings, not the same objects."""
    return json.loads(json.dumps(messages))


def test_anthropic_messages_group_a_round_s_results_in_one_user_turn():
    out = to_anthropic(loaded(ROUND))
    assert out == to_anthropic(ROUND)
    assert [m["role"] for m in out] == ["user", "assistant", "user", "assistant", "user"]
    assert out[1]["content"] == [
        {"type": "tool_use", "id": "a", "name": "calculator", "input": {"expression": "2+2"}},
        {"type": "tool_use", "id": "b", "name": "calculator", "input": {}}]
    assert out[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "a", "content": "4"},
        {"type": "tool_result", "tool_use_id": "b", "content": "6"},
        {"type": "text", "text": "thanks"}]
    assert out[3]["content"] == [{"type": "text", "text": "You're welcome."}]
    assert out[4] == {"role": "user", "content": "bye"}


def test_anthropic_a_result_after_a_plain_user_turn_starts_its_own_turn():
    out = to_anthropic([{"role": "user", "content": "hi"},
                        {"role": "tool", "tool_call_id": "x", "content": "r"}])
    assert len(out) == 2 and out[1]["content"][0]["tool_use_id"] == "x"


@pytest.mark.parametrize("role", ["agent", "narrator", "visitor"])
def test_both_apis_refuse_a_role_they_do_not_know(role):
    with pytest.raises(ProviderError):
        to_anthropic([{"role": role, "content": "once upon a time"}])
    with pytest.raises(ProviderError):
        to_openai([{"role": role, "content": "once upon a time"}])


def test_a_key_missing_is_said_before_any_sdk_is_imported_whatever_the_model(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for cls in (AnthropicProvider, OpenAIProvider):
        with pytest.raises(ProviderError):
            cls(model="some-model")
        with pytest.raises(ProviderError):
            cls("some-model", max_tokens=10)


@pytest.mark.parametrize("kind", KINDS)
def test_the_key_given_wins_over_the_environment_s(sdk, monkeypatch, kind):
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    monkeypatch.setenv(cls.key_var, "key-from-the-environment")
    cls(api_key="key-given")
    cls()
    assert [client.api_key for client in sdk.clients] == ["key-given",
                                                          "key-from-the-environment"]


def test_a_local_server_named_in_the_environment_needs_no_key(sdk, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    provider = OpenAIProvider()
    client = sdk.clients[-1]
    assert provider.base_url == client.base_url == "http://127.0.0.1:8080/v1" and client.api_key
    OpenAIProvider(base_url="http://127.0.0.1:9/v1")
    assert sdk.clients[-1].base_url == "http://127.0.0.1:9/v1"  # the one given wins


def test_anthropic_a_model_the_api_does_not_know_is_not_available(sdk):
    sdk.models = ["claude-known"]
    assert stand_in("anthropic", model="claude-known").model_available() is True
    assert stand_in("anthropic", model="claude-unknown").model_available() is False


# ---- OpenAI's chunks


def chunk(delta=None, finish_reason=None, **extra):
    return {"choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
            **extra}


USAGE = {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 4}}


def test_openai_text_reasoning_and_usage_on_its_own_chunk(sdk):
    events = [chunk({"reasoning_content": "think"}), chunk({"reasoning": "more"}),
              chunk({"content": "Hi"}), chunk({"content": " there"}),
              chunk(finish_reason="stop"), USAGE]
    shown, reply = assembled(sdk, "openai", events)
    assert shown == ["think", "more", "Hi", " there"]
    assert [type(s) is Reasoning for s in shown] == [True, True, False, False]
    assert (reply.text, reply.reasoning, reply.stop_reason) == ("Hi there", "thinkmore",
                                                               "end_turn")
    assert reply.usage == {"input_tokens": 11, "output_tokens": 4}


@pytest.mark.parametrize(("finish_reason", "stop"), [
    ("stop", "end_turn"), ("tool_calls", "tool_use"), ("length", "max_tokens"),
    ("content_filter", "content_filter")])
def test_openai_finish_reasons_become_tao_s_stop_reasons(sdk, finish_reason, stop):
    _, reply = assembled(sdk, "openai", [chunk({"content": "x"}),
                                         chunk(finish_reason=finish_reason)])
    assert reply.stop_reason == stop


@pytest.mark.parametrize("said", ["stop", "end_turn"])
def test_openai_tool_calls_ended_with_stop_are_a_tool_use_turn(sdk, said):
    whole = {"index": 0, "id": "c1", "function": {"name": "calculator",
                                                  "arguments": '{"expression": "1"}'}}
    events = [chunk({"tool_calls": [whole]}), chunk(finish_reason=said)]
    _, reply = assembled(sdk, "openai", events)
    assert reply.stop_reason == "tool_use" and reply.tool_calls[0].args == {"expression": "1"}
    events[-1] = chunk(finish_reason="length")  # a call cut off is no call to run
    assert assembled(sdk, "openai", events)[1].stop_reason == "max_tokens"


def test_openai_a_refusal_is_the_answer_shown_and_the_stop_reason(sdk):
    shown, reply = assembled(sdk, "openai", [chunk({"refusal": "I can't help."}),
                                             chunk(finish_reason="stop")])
    assert shown == ["I can't help."] and reply.text == "I can't help."
    assert reply.stop_reason == "refusal"


def test_openai_only_the_first_choice_is_read(sdk):
    two = {"choices": [{"delta": {"content": "one"}, "finish_reason": "stop"},
                       {"delta": {"content": "two"}, "finish_reason": "length"}]}
    _, reply = assembled(sdk, "openai", [two])
    assert (reply.text, reply.stop_reason) == ("one", "end_turn")


def test_openai_usage_on_the_finish_chunk_counts_and_no_usage_says_so(sdk):
    events = [chunk({"content": "x"}, "stop", usage={"prompt_tokens": 2,
                                                    "completion_tokens": 1})]
    assert assembled(sdk, "openai", events)[1].usage == {"input_tokens": 2,
                                                         "output_tokens": 1}
    assert assembled(sdk, "openai", [chunk(finish_reason="stop")])[1].usage == {
        "not_reported": True}


def test_openai_a_stream_without_finish_reason_is_broken_off_and_retried(sdk):
    assert outcome(sdk, "openai", [USAGE]) == ("", 2)


def test_openai_an_error_chunk_is_retried_and_a_wrong_shape_is_not(sdk):
    crashed = {"error": {"message": "model crashed"}}
    assert outcome(sdk, "openai", [crashed]) == ("", 2)
    said, sent = outcome(sdk, "openai", [crashed], then=[crashed])
    assert sent == 2 and "error in the stream: model crashed" in said
    said, sent = outcome(sdk, "openai", [chunk({"content": 5}), chunk(finish_reason="stop")])
    assert sent == 1 and "unexpected shape" in said
    assert error_text({"message": "m"}) == "m" and error_text("plain") == "plain"
    assert error_text({"code": 1}) == {"code": 1}


@pytest.mark.parametrize("odd", [
    ["a", "list"],  # not an object: an AttributeError inside
    {"choices": [{"delta": "text, not an object"}]},  # likewise
    {"choices": [{"delta": {"content": 5}}]},  # a TypeError inside
    {"choices": [{"delta": {"tool_calls": ["not a fragment"]}}]}])
def test_openai_a_chunk_of_any_unexpected_shape_is_one_line_not_retried(sdk, odd):
    said, sent = outcome(sdk, "openai", [odd, chunk(finish_reason="stop")])
    assert sent == 1 and "a chunk of an unexpected shape" in said


def test_openai_a_finish_reason_that_is_not_text_is_kept_as_text(sdk):
    _, reply = assembled(sdk, "openai", [chunk({"content": "x"}, finish_reason=["stop"])])
    assert reply.stop_reason == '["stop"]'


# ---- OpenAI's usage


def test_openai_cached_prompt_tokens_move_out_of_the_input_count():
    usage = {"prompt_tokens": 1000, "completion_tokens": 5,
             "prompt_tokens_details": {"cached_tokens": 800}}
    assert usage_from(usage) == {"input_tokens": 200, "output_tokens": 5,
                                 "cache_read_input_tokens": 800}
    usage["prompt_tokens_details"] = {"cached_tokens": 0}
    assert usage_from(usage) == {"input_tokens": 1000, "output_tokens": 5}
    usage["prompt_tokens_details"] = {"cached_tokens": 1200}  # a server's odd arithmetic
    assert usage_from(usage)["input_tokens"] == 0
    only_cache = {"prompt_tokens_details": {"cached_tokens": 3}}
    assert usage_from(only_cache) == {"cache_read_input_tokens": 3}
    assert usage_from(None) == {} and usage_from({"prompt_tokens_details": "x"}) == {}


# ---- OpenAI's request


def test_openai_request_puts_the_system_first_and_asks_for_usage_while_it_may(sdk):
    provider = stand_in("openai", max_tokens=55)
    params = provider.request([{"role": "user", "content": "hi"}], "Be brief.", (TOOL,))
    assert params["messages"] == [{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "hi"}]
    assert params["stream"] is True and params["stream_options"] == {"include_usage": True}
    assert params["tools"] == [{"type": "function", "function": {
        "name": "calculator", "description": "Arithmetic.", "parameters": TOOL.schema}}]
    provider.include_usage = False
    bare = provider.request([{"role": "user", "content": "hi"}])
    assert "stream_options" not in bare and "tools" not in bare
    assert bare["messages"] == [{"role": "user", "content": "hi"}]


def test_openai_options_override_only_what_they_set_and_leave_the_request_alone(sdk):
    provider = stand_in("openai")
    params = provider.request([{"role": "user", "content": "hi"}], tools=(TOOL,))
    assert provider.with_options(params, Options()) == params
    changed = provider.with_options(params, Options(tool_choice="calculator", stop="END"))
    assert changed["tool_choice"] == {"type": "function", "function": {"name": "calculator"}}
    assert changed["stop"] == ["END"] and "stop" not in params
    provider.takes_stop = False
    assert "stop" not in provider.with_options(params, Options(stop="END"))
    no_tools = provider.request([{"role": "user", "content": "hi"}])
    assert "tool_choice" not in provider.with_options(no_tools, Options(tool_choice="auto"))


@pytest.mark.parametrize("choice", ["auto", "none", "required"])
def test_openai_tool_choice_words_pass_as_they_are(choice):
    assert openai_tool_choice("".join(list(choice))) == choice


def test_openai_messages_carry_arguments_as_json_text_and_skip_empty_turns():
    out = to_openai(loaded(ROUND))
    assert out == to_openai(ROUND)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "user",
                                        "assistant", "user"]
    calls = out[1]["tool_calls"]
    assert out[1]["content"] == "" and [json.loads(c["function"]["arguments"])
                                        for c in calls] == [{"expression": "2+2"}, {}]
    assert [(c["id"], c["type"], c["function"]["name"]) for c in calls] == [
        ("a", "function", "calculator"), ("b", "function", "calculator")]
    assert out[2] == {"role": "tool", "tool_call_id": "a", "content": "4"}
    assert out[5] == {"role": "assistant", "content": "You're welcome."}
    with pytest.raises(ProviderError):
        to_openai([{"role": "narrator", "content": "x"}])


# ---------------------------------------------------------------- end to end
# The real SDKs against the fake API on 127.0.0.1.


@pytest.mark.parametrize("kind", KINDS)
def test_text_only_reply_streams_each_delta_in_order(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["Hel", "lo", ", world"], usage=(31, 7)))
        seen = []
        reply = provider(kind, api).call(ask(), "Be brief.", (), seen.append)
    assert seen == ["Hel", "lo", ", world"]
    assert reply.text == "Hello, world" and reply.tool_calls == []
    assert reply.stop_reason == "end_turn"
    assert reply.usage == {"input_tokens": 31, "output_tokens": 7}
    assert api.violations == []


@pytest.mark.parametrize("kind", KINDS)
def test_stream_entry_point_yields_text_deltas(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["one ", "two"]))
        assert list(provider(kind, api).stream(ask(), "")) == ["one ", "two"]
    assert api.violations == []


@pytest.mark.parametrize("kind", KINDS)
def test_text_then_a_tool_call(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["Let me check."], tools=[("call_a1", "now", ["{}"])]))
        reply = provider(kind, api).call(ask("time?"), "", [NOW])
    assert reply.text == "Let me check."
    assert [(c.id, c.name, c.args) for c in reply.tool_calls] == [("call_a1", "now", {})]
    assert reply.stop_reason == "tool_use"


@pytest.mark.parametrize("kind", KINDS)
def test_tool_call_with_no_text_and_no_argument_json(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, [], tools=[("call_b1", "now", [])]))
        reply = provider(kind, api).call(ask("time?"), "", [NOW])
    assert reply.text == ""
    assert [(c.name, c.args, c.error) for c in reply.tool_calls] == [("now", {}, "")]


@pytest.mark.parametrize("kind", KINDS)
def test_two_parallel_calls_keep_their_order_and_ids(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, [], tools=[("call_1", "now", ["{}"]),
                                          ("call_2", "wordcount", ['{"text": "a b c"}'])]))
        reply = provider(kind, api).call(ask(), "", [NOW, WORDCOUNT])
    assert [(c.id, c.name, c.args) for c in reply.tool_calls] == [
        ("call_1", "now", {}), ("call_2", "wordcount", {"text": "a b c"})]


@pytest.mark.parametrize("kind", KINDS)
def test_argument_json_split_into_many_fragments_is_reassembled(kind):
    args = {"text": "the quick brown fox — ünïcode", "n": [1, 2, {"deep": True}]}
    raw = json.dumps(args, ensure_ascii=False)
    with FakeAPI(kind) as api:
        api.queue(stream(kind, [], tools=[("call_f", "wordcount", list(raw))]))
        reply = provider(kind, api).call(ask(), "", [WORDCOUNT])
    assert reply.tool_calls[0].args == args


@pytest.mark.parametrize("kind", KINDS)
def test_broken_argument_json_is_reported_not_raised(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, [], tools=[("call_x", "wordcount", ['{"text": "unfinish']),
                                          ("call_y", "wordcount", ["[1, 2]"]),
                                          ("call_z", "wordcount", ['{"a":' + "[" * 100_000])]))
        reply = provider(kind, api).call(ask(), "", [WORDCOUNT])
    errors = [(c.args, c.error) for c in reply.tool_calls]
    assert errors[0][0] == {} and "not valid JSON" in errors[0][1]
    assert errors[1][0] == {} and "must be a JSON object" in errors[1][1]
    assert errors[2][0] == {} and errors[2][1]


def test_openai_usage_arrives_in_a_chunk_with_empty_choices():
    with FakeAPI("openai") as api:
        sse = openai_stream(["ok"], usage=(40, 2))
        assert sse.events[-2][1]["choices"] == []  # the documented usage-only chunk
        api.queue(sse)
        reply = provider("openai", api).call(ask())
    assert reply.usage == {"input_tokens": 40, "output_tokens": 2}


@pytest.mark.parametrize("kind", KINDS)
def test_error_mid_stream_raises_clearly_and_leaves_history_alone(kind):
    messages = ask("tell me a story")
    before = json.dumps(messages)
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["Once", " upon", " a", " time"], error_after=4))
        seen = []
        with pytest.raises(ProviderError, match="broke off mid-reply") as info:
            provider(kind, api).call(messages, "", (), seen.append)
    assert seen and "".join(seen) in "Once upon a time"  # what arrived was shown
    assert info.value.partial == "".join(seen)  # ...and is handed back as cut off
    assert json.dumps(messages) == before
    assert KEY not in str(info.value)
    assert len(api.requests) == 1  # text was on screen: a retry would show it twice


@pytest.mark.parametrize("kind", KINDS)
def test_rejected_key_names_the_variable_and_never_prints_the_key(kind):
    with FakeAPI(kind) as api:
        api.queue(api_error(kind, 401))
        with pytest.raises(ProviderError) as info:
            provider(kind, api).call(ask())
    message = str(info.value)
    assert ("ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY") in message
    assert KEY not in message and "secret" not in message
    assert len(api.requests) == 1  # a bad key is not retried


@pytest.mark.parametrize("kind", KINDS)
def test_rate_limit_gets_two_retries_then_one_line(kind):
    with FakeAPI(kind) as api:
        api.queue(*[api_error(kind, 429)] * 3)
        with pytest.raises(ProviderError, match="rate limited") as info:
            provider(kind, api).call(ask())
    assert len(api.requests) == 3  # the first try and two retries
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_retry_that_succeeds_is_invisible(kind):
    with FakeAPI(kind) as api:
        api.queue(api_error(kind, 429), stream(kind, ["fine"]))
        assert provider(kind, api).call(ask()).text == "fine"
    assert len(api.requests) == 2


@pytest.mark.parametrize(("kind", "status", "words"),
                         [("anthropic", 500, "server error (500)"),
                          ("anthropic", 529, "overloaded (529)"),
                          ("openai", 500, "server error (500)")])
def test_server_errors_and_overload_are_retried_then_reported(kind, status, words):
    with FakeAPI(kind) as api:
        api.queue(*[api_error(kind, status)] * 3)
        notes = []
        p = provider(kind, api)
        p.on_notice = notes.append
        with pytest.raises(ProviderError) as info:
            p.call(ask())
    assert words in str(info.value) and "after 3 attempts" in str(info.value)
    assert len(api.requests) == 3
    # each retry is announced, with the wait the server asked for (retry-after-ms: 5)
    assert notes == [f"{words}: retrying in 0.005 s, attempt 2 of 3",
                     f"{words}: retrying in 0.005 s, attempt 3 of 3"]


class ConnectError(Exception):
    """The transport's refusal, as httpx names it (no one listens at the port)."""


class ReadError(Exception):
    """The transport's dropped connection, as httpx names it."""


def wrapped(sdk, cause):
    """The SDK's connection error, with the transport's own as its cause."""
    error = sdk.APIConnectionError("Connection error.")
    error.__cause__ = cause
    return error


# (what goes wrong, whether it is tried again, the words of the line the learner reads)
FAILURES = [
    (lambda sdk: wrapped(sdk, ConnectError("refused")), False, "could not connect"),
    (lambda sdk: sdk.APITimeoutError("timed out"), True, "no data for"),
    (lambda sdk: wrapped(sdk, ReadError("reset")), True, "the connection dropped"),
    (lambda sdk: sdk.APIStatusError(401, "bad key"), False, "the API key was rejected (401)"),
    (lambda sdk: sdk.APIStatusError(404, "no model"), False, "not found (404)"),
    (lambda sdk: sdk.APIStatusError(429, "slow down"), True, "rate limited (429)"),
    (lambda sdk: sdk.APIStatusError(503, "busy"), True, "unavailable (503)"),
    (lambda sdk: sdk.APIStatusError(500, "1 validation error: Field required"), False,
     "request refused (500)"),
    (lambda sdk: sdk.APIStatusError(400, "no such field"), False, "request refused (400)"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("failure, retried, words", FAILURES)
def test_each_failure_is_retried_or_not_and_said_in_its_words(sdk, kind, failure, retried,
                                                              words):
    sdk.queue(*[failure(sdk) for _ in range(3)])
    notes = []
    model = stand_in(kind, max_retries=2)
    model.retry_base, model.on_notice = 0, notes.append
    with pytest.raises(ProviderError) as info:
        model.call(ask())
    line = str(info.value)
    assert words in line and "\n" not in line and KEY not in line
    assert len(sdk.requests) == (3 if retried else 1)
    assert ("still after 3 attempts" in line) is retried
    assert len(notes) == (2 if retried else 0)
    assert all(note.startswith(words) and "retrying in" in note for note in notes)


def test_ollama_not_running_says_how_to_start_it():
    with pytest.raises(ProviderError, match="ollama serve"):
        ollama(base_url="http://127.0.0.1:9/v1", max_retries=0).call(ask())


def test_missing_keys_name_the_variable_to_set():
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY is not set"):
        AnthropicProvider()
    with pytest.raises(ProviderError, match="OPENAI_API_KEY is not set"):
        OpenAIProvider()


@pytest.mark.parametrize("kind", KINDS)
def test_the_fake_refuses_a_malformed_history_as_the_api_would(kind):
    orphan = [{"role": "user", "content": "hi"},
              {"role": "tool", "tool_call_id": "call_zz", "name": "now", "content": "x"}]
    with FakeAPI(kind) as api:
        with pytest.raises(ProviderError, match="400"):
            provider(kind, api).call(orphan)
    assert api.violations and "tool" in api.violations[0]


def run_three_rounds(kind, flavour=None):
    """A real tool conversation: two parallel calls, then one, then the answer."""
    tools = {t.name: t for t in (NOW, WORDCOUNT)}
    messages = ask("What time is it, and how many words are in 'a b c'? Then count 'x y'.")
    with FakeAPI(kind, flavour) as api:
        api.queue(
            stream(kind, ["Checking both."], tools=[("call_1", "now", ["{}"]),
                                                    ("call_2", "wordcount",
                                                     ['{"text"', ': "a b c"}'])]),
            stream(kind, [], tools=[("call_3", "wordcount", ['{"text": "x y"}'])]),
            stream(kind, ["It is midnight; 3 words, then 2."]),
        )
        p = provider(kind, api)
        for _ in range(3):
            reply = p.call(messages, "You are terse.", list(tools.values()))
            messages.append(reply.assistant_message())
            for call in reply.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                 "content": tools[call.name].run(call.args)})
    return api, messages, reply


@pytest.mark.parametrize("kind", KINDS)
def test_three_round_tool_conversation_is_accepted_on_every_turn(kind):
    api, messages, reply = run_three_rounds(kind)
    assert api.violations == []
    assert len(api.requests) == 3
    assert reply.text == "It is midnight; 3 words, then 2."
    assert [m["role"] for m in messages] == [
        "user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]


def test_a_tool_call_only_turn_is_accepted_where_null_content_is_refused():
    # llama-cpp-python's server refuses `"content": null` (with a 500): the turn that
    # carries only tool calls goes out with "", which every server takes
    api, _, reply = run_three_rounds("openai", flavour="llama-cpp-python")
    assert api.violations == []
    assert reply.text == "It is midnight; 3 words, then 2."
    refused = dict(api.requests[1], messages=[
        dict(m, content=None) if m.get("tool_calls") else m
        for m in api.requests[1]["messages"]])  # the shape tao used to send
    rules, status = FLAVOURS["llama-cpp-python"]
    assert status == 500 and "Input should be a valid string" in first_problem(
        rules, refused, {})


# what llama-cpp-python 0.3.36 answered for `"content": null`, abridged to two complaints
LLAMA_CPP_PYTHON_500 = HTTPError(500, {"error": {"type": "internal_server_error", "message": (
    "7 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 2, "
    "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
    "'input': 'assistant'}\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, "
    "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid "
    "string', 'input': None}")}})


@pytest.mark.parametrize("refusal", [
    LLAMA_CPP_PYTHON_500,  # a validation error answered as a server error
    HTTPError(422, {"detail": [{"type": "missing", "loc": ["body", "messages", 1, "content"],
                                "msg": "Field required"}]}),  # FastAPI's own answer
    HTTPError(400, {"error": {"message": "invalid message content type: <nil>",
                              "type": "invalid_request_error"}}),  # Ollama's
])
def test_a_request_refused_as_malformed_is_sent_once_and_says_what_was_wrong(refusal):
    with FakeAPI("openai") as api:
        api.queue(refusal, refusal, refusal)
        notes = []
        p = provider("openai", api)
        p.on_notice = notes.append
        with pytest.raises(ProviderError) as info:
            p.call(ask())
    assert len(api.requests) == 1 and notes == []  # sent once: no retry, no retry note
    message = str(info.value)
    assert "\n" not in message and f"({refusal.status})" in message
    said = {500: "messages[2].content: Input should be a valid string",
            422: "messages[1].content: Field required",
            400: "invalid message content type"}[refusal.status]
    assert said in message
    assert "'literal_error'" not in message  # the union's noise is left out


def test_a_server_error_that_is_not_a_refusal_is_still_retried():
    plain = HTTPError(500, {"error": {"message": "CUDA out of memory", "type": "server_error"}},
                      {"retry-after-ms": "5"})
    with FakeAPI("openai") as api:
        api.queue(plain, plain, plain)
        with pytest.raises(ProviderError, match="after 3 attempts"):
            provider("openai", api).call(ask())
    assert len(api.requests) == 3


def test_three_rounds_on_the_anthropic_wire():
    api, _, _ = run_three_rounds("anthropic")
    last = api.requests[-1]
    # automatic caching: one top-level mark, which the API moves to the last block
    assert last["cache_control"] == {"type": "ephemeral"}
    assert last["system"] == [{"type": "text", "text": "You are terse."}]
    assert [t["name"] for t in last["tools"]] == ["now", "wordcount"]
    wire = last["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "user", "assistant", "user"]
    assert [b["type"] for b in wire[1]["content"]] == ["text", "tool_use", "tool_use"]
    # both results of the parallel round travel in one user turn, ids echoed
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in wire[2]["content"]] == [
        ("tool_result", "call_1", "2026-01-01T00:00:00+00:00"),
        ("tool_result", "call_2", "3")]
    assert wire[3]["content"] == [{"type": "tool_use", "id": "call_3", "name": "wordcount",
                                   "input": {"text": "x y"}}]


def test_three_rounds_on_the_openai_wire():
    api, _, _ = run_three_rounds("openai")
    wire = api.requests[-1]["messages"]
    assert [m["role"] for m in wire] == [
        "system", "user", "assistant", "tool", "tool", "assistant", "tool"]
    assert wire[2]["tool_calls"][1] == {"id": "call_2", "type": "function", "function": {
        "name": "wordcount", "arguments": '{"text": "a b c"}'}}
    assert wire[5]["content"] == ""  # a tool-call-only turn has no text (and no null)
    assert [m["tool_call_id"] for m in wire if m["role"] == "tool"] == [
        "call_1", "call_2", "call_3"]


# The request checks themselves must be able to fail, or the tests above prove nothing.
BAD_ANTHROPIC = [
    ({"messages": [{"role": "user", "content": "x"}], "max_tokens": 5, "stream": True},
     "model"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "system", "content": "x"}]}, "first message"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "now",
                                           "input": {}}]},
        {"role": "user", "content": "what?"}]}, "without `tool_result`"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "now",
                                           "input": "{}"}]}]}, "object input"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x", "tool_calls": []}]}, "Extra inputs"),
    ({"model": "m", "max_tokens": 5, "stream": True, "tool_choice": {"type": "required"},
      "messages": [{"role": "user", "content": "x"}]}, "tool_choice.type"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "x"},
                                     {"type": "tool_result", "tool_use_id": "t9",
                                      "content": "r"}]}]}, "unexpected `tool_use_id`"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "text", "text": "\n "}]},
        {"role": "user", "content": "y"}]}, "non-whitespace text"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "now", "input": {}},
            {"type": "tool_use", "id": "t1", "name": "now", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]},
     "ids must be unique"),
    ({"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a.b",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "r"}]}]}, "tool_use.name"),
]
BAD_OPENAI = [
    ({"model": "gpt-5.4-mini", "stream": True, "max_tokens": 5, "messages": [
        {"role": "user", "content": "x"}]}, "max_completion_tokens"),
    ({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "now", "arguments": {}}}]},
    ]}, "must be a string"),
    ({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "now", "arguments": "{}"}}]},
        {"role": "user", "content": "and?"}]}, "must be followed by tool messages"),
    ({"model": "m", "stream": True, "messages": [
        {"role": "assistant", "content": "", "tool_calls": None}]}, "content is required"),
    ({"model": "m", "stream": True, "tool_choice": "any", "messages": [
        {"role": "user", "content": "x"}]}, "Invalid value for 'tool_choice'"),
    ({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c" * 41, "type": "function", "function": {"name": "n", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c" * 41, "content": "r"}]}, "string too long"),
    ({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "n", "arguments": "{}"}},
            {"id": "c1", "type": "function", "function": {"name": "n", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "tool", "tool_call_id": "c1", "content": "r"}]}, "Duplicate value"),
]


@pytest.mark.parametrize(("body", "expected"), BAD_ANTHROPIC)
def test_anthropic_request_check_refuses(body, expected):
    assert expected in (check_anthropic(body, {"x-api-key": "k", "anthropic-version": "1"})
                        or "")


@pytest.mark.parametrize(("body", "expected"), BAD_OPENAI)
def test_openai_request_check_refuses(body, expected):
    assert expected in (check_openai(body, {"authorization": "Bearer k"}) or "")


# ---------------------------------------------------------------- keys never leak


ECHOED = {"error": {"message": "Incorrect API key provided: {key}. Also tried "
                               "sk-other-9876543210abcdef from your last request.",
                    "type": "invalid_request_error"}}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [400, 401, 500])
def test_a_server_echoing_the_key_back_never_gets_it_printed(kind, status):
    """The fake puts the request's own key, and a second key-shaped string, in its
    message: removing the key redaction, or the sk- pattern, fails this test."""
    with FakeAPI(kind) as api:
        api.queue(*[HTTPError(status, ECHOED)] * 3)
        with pytest.raises(ProviderError) as info:
            provider(kind, api, max_retries=0).call(ask())
    message = str(info.value)
    assert KEY not in message, f"the key leaked: {message}"
    assert "sk-other-9876543210abcdef" not in message, f"a key-like string leaked: {message}"
    if status != 401:  # the server's words are kept, with the keys cut out
        assert "Incorrect API key provided: [key hidden]" in message


def test_a_key_that_is_not_sk_shaped_is_still_hidden():
    with FakeAPI("openai") as api:
        api.queue(HTTPError(400, ECHOED))
        with pytest.raises(ProviderError) as info:
            OpenAIProvider(api_key="local-token-abcdefgh", base_url=api.base_url,
                           max_retries=0).call(ask())
    assert "local-token-abcdefgh" not in str(info.value)
    assert "[key hidden]" in str(info.value)


def test_credentials_in_the_base_url_never_appear():
    with FakeAPI("openai") as api:
        host = api.base_url.removeprefix("http://")
        url = f"http://learner:hunter2pass@{host}?key=query-secret-123"
        api.queue(api_error("openai", 500))
        with pytest.raises(ProviderError) as info:
            OpenAIProvider(api_key=KEY, base_url=url, max_retries=0).call(ask())
    message = str(info.value)
    assert "hunter2pass" not in message and "learner" not in message
    assert "query-secret-123" not in message
    assert f"(http://{host.removesuffix('/v1')})" in message  # scheme://host:port only


def test_the_message_names_the_base_url_in_use_not_the_api():
    with FakeAPI("anthropic") as api:
        api.queue(api_error("anthropic", 500))
        with pytest.raises(ProviderError) as info:
            provider("anthropic", api, max_retries=0).call(ask())
    assert api.base_url in str(info.value) and "the anthropic API" not in str(info.value)


# ---------------------------------------------------------------- stop reasons


@pytest.mark.parametrize(("kind", "wire_reason", "expected"), [
    ("anthropic", "max_tokens", "max_tokens"),
    ("anthropic", "stop_sequence", "stop_sequence"),
    ("anthropic", "end_turn", "end_turn"),
    ("openai", "length", "max_tokens"),
    ("openai", "stop", "end_turn"),
    ("openai", "content_filter", "content_filter"),
])
def test_the_stop_reason_on_the_wire_is_the_one_reported(kind, wire_reason, expected):
    """The token-limit stop (and the others) through both real providers: the fake sends
    the reason, the Reply must carry it, mapped to tao's (Anthropic's) names."""
    key = "stop_reason" if kind == "anthropic" else "finish_reason"
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["It was a dark and"], **{key: wire_reason}))
        reply = provider(kind, api).call(ask("tell me a story"))
    assert reply.stop_reason == expected, f"{wire_reason!r} became {reply.stop_reason!r}"
    assert reply.text == "It was a dark and"


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_call_cut_by_the_token_limit_says_so(kind):
    key = "stop_reason" if kind == "anthropic" else "finish_reason"
    limit = "max_tokens" if kind == "anthropic" else "length"
    with FakeAPI(kind) as api:
        api.queue(stream(kind, [], tools=[("call_c", "wordcount", ['{"text": "a b'])],
                         **{key: limit}))
        reply = provider(kind, api).call(ask(), "", [WORDCOUNT])
    assert reply.stop_reason == "max_tokens"
    assert reply.tool_calls[0].error  # the cut arguments are reported, not run


def test_anthropic_thinking_deltas_stay_out_of_the_text():
    sse = anthropic_stream(["The answer is 4."])
    sse.events[1:1] = [
        ("content_block_start", {"type": "content_block_start", "index": 9,
                                 "content_block": {"type": "thinking", "thinking": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 9,
                                 "delta": {"type": "thinking_delta", "thinking": "2+2"}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 9,
                                 "delta": {"type": "thinking_delta", "thinking": " is 4"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 9})]
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        thoughts = []
        reply = provider("anthropic", api).call(ask("2+2?"), on_reasoning_delta=thoughts.append)
    assert reply.text == "The answer is 4." and reply.reasoning == "2+2 is 4"
    assert thoughts == ["2+2", " is 4"]


# ---- per-call options: room for the reply, tool_choice, stop sequences


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("choice, anthropic_shape, openai_shape", [
    ("none", {"type": "none"}, "none"),
    ("required", {"type": "any"}, "required"),
    ("wordcount", {"type": "tool", "name": "wordcount"},
     {"type": "function", "function": {"name": "wordcount"}}),
])
def test_tool_choice_reaches_the_api_in_its_own_words(kind, choice, anthropic_shape,
                                                      openai_shape):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["ok"]))
        provider(kind, api).call(ask(), "", (NOW, WORDCOUNT), tool_choice=choice)
    assert api.violations == []
    assert api.requests[0]["tool_choice"] == (
        anthropic_shape if kind == "anthropic" else openai_shape)


@pytest.mark.parametrize("kind", KINDS)
def test_max_tokens_gives_one_call_more_room_and_leaves_the_next_as_it_was(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["a"]), stream(kind, ["b"]))
        model = provider(kind, api, max_tokens=100)
        model.call(ask(), "", (NOW,), max_tokens=200)
        model.call(ask(), "", (NOW,))
    limits = [body.get("max_tokens", body.get("max_completion_tokens"))
              for body in api.requests]
    assert limits == [200, 100], "only the call that asked for more room gets it"
    assert model.max_tokens == 100
    assert api.violations == []


@pytest.mark.parametrize("kind", KINDS)
def test_stop_sequences_are_sent_and_no_tool_choice_goes_without_tools(kind):
    with FakeAPI(kind) as api:
        api.queue(stream(kind, ["a"]))
        list(provider(kind, api).stream(ask(), "", stop=["Observation:"]))
    body = api.requests[0]
    assert body["stop_sequences" if kind == "anthropic" else "stop"] == ["Observation:"]
    assert "tool_choice" not in body
    assert api.violations == []


def test_openai_cached_tokens_are_reported_in_anthropic_terms_and_add_up():
    from fake_api import chat_chunk, chat_stream

    usage = {"prompt_tokens": 1000, "completion_tokens": 7, "total_tokens": 1007,
             "prompt_tokens_details": {"cached_tokens": 768}}
    with FakeAPI("openai") as api:
        api.queue(chat_stream(chat_chunk({"content": "hi"}), chat_chunk({}, "stop"),
                              chat_chunk(choices=[], usage=usage)))
        reply = provider("openai", api).call(ask())
    assert reply.usage == {"input_tokens": 232, "output_tokens": 7,
                           "cache_read_input_tokens": 768}, (
        "input_tokens is what the cache did not serve, as Anthropic counts it")
    read = sum(reply.usage.get(k, 0) for k in (
        "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
    assert read == usage["prompt_tokens"], "every token the call read, counted once"
