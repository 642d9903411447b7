"""The SDK providers' own halves without their SDKs (shared/providers/anthropic_provider.py,
openai_provider.py): the events of a stream in, one Reply out, and the request each API
is sent. The questions the surviving mutants of benchmarks/mutation.py asked: is a
cache-write count kept? Which stop reason wins when tool calls end with "stop"? Is a
stream without its final event complete? Which of two tool calls does a fragment join?

The providers are built with `__new__`, so nothing here imports `anthropic` or `openai`:
a mutant these tests kill costs no SDK start-up in the mutation run."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest

from shared.providers.anthropic_provider import (
    AnthropicProvider,
    anthropic_tool_choice,
    to_anthropic,
)
from shared.providers.base import Options, ProviderError, Reasoning, Reply, Tool
from shared.providers.compat import ToolCallAssembler, parts_text, reported
from shared.providers.openai_provider import (
    OpenAIProvider,
    error_text,
    openai_tool_choice,
    to_openai,
    usage_from,
)
from shared.providers.sdk_base import StreamBroke

TOOL = Tool("calculator", "Arithmetic.", {"type": "object", "properties": {}}, str)


def anthropic(model="claude-test", max_tokens=100):
    provider = AnthropicProvider.__new__(AnthropicProvider)
    provider.model, provider.max_tokens, provider.base_url = model, max_tokens, None
    return provider


def openai(model="gpt-test", max_tokens=100):
    provider = OpenAIProvider.__new__(OpenAIProvider)
    provider.name, provider.model, provider.max_tokens = "openai", model, max_tokens
    provider.include_usage, provider.takes_stop = True, True
    return provider


def wire(events):
    """`events` as they arrive: decoded from JSON, so equal strings, not the same objects."""
    return iter(json.loads(json.dumps(events)))


def assembled(provider, events):
    """(what was yielded before the Reply, the Reply)."""
    out = list(provider._assemble(wire(events), []))
    assert isinstance(out[-1], Reply) and not any(isinstance(o, Reply) for o in out[:-1])
    return out[:-1], out[-1]


# ---------------------------------------------------------------- Anthropic's events


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


def test_anthropic_text_and_thinking_arrive_apart_in_order():
    thinking = {"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"}}
    shown, reply = assembled(anthropic(), [start(), thinking, text("Hel"), text("lo"),
                                           *finish()])
    assert shown == ["hmm", "Hel", "lo"] and isinstance(shown[0], Reasoning)
    assert (reply.text, reply.reasoning) == ("Hello", "hmm")
    assert (reply.stop_reason, reply.usage) == ("end_turn", {"input_tokens": 7,
                                                             "output_tokens": 5})


def test_anthropic_tool_calls_assemble_by_block_index_in_order():
    events = [start(), text("Let me."), tool_start(1, "tu_1", "calculator"),
              tool_start(2, "tu_2", "clock"), args(1, '{"expr'), args(2, "{}"),
              args(1, 'ession": "1+1"}'), *finish("tool_use")]
    _, reply = assembled(anthropic(), events)
    assert [(c.id, c.name, c.args) for c in reply.tool_calls] == [
        ("tu_1", "calculator", {"expression": "1+1"}), ("tu_2", "clock", {})]
    assert reply.stop_reason == "tool_use" and reply.text == "Let me."


def test_anthropic_input_sent_whole_in_the_start_block_is_used_only_without_streamed_input():
    events = [start(), tool_start(0, "a", "calculator", {"expression": "2*3"}),
              tool_start(1, "b", "calculator", {"expression": "ignored"}),
              args(1, '{"expression": "4"}'), tool_start(2, "c", "clock", {}),
              tool_start(3, "d", "clock"), args(3, '{"zone": "UTC"}'),
              tool_start(4, "e", "clock", {"zone": "CET"}), args(4, "  "), *finish("tool_use")]
    _, reply = assembled(anthropic(), events)
    assert [c.args for c in reply.tool_calls] == [
        {"expression": "2*3"}, {"expression": "4"}, {}, {"zone": "UTC"}, {"zone": "CET"}]
    assert not any(c.error for c in reply.tool_calls)


def test_anthropic_cache_counts_are_kept_when_the_cache_did_something():
    usage = {"input_tokens": 3, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 1500}
    _, reply = assembled(anthropic(), [start(usage), *finish()])
    assert reply.usage == {"input_tokens": 3, "cache_creation_input_tokens": 1500,
                           "output_tokens": 5}
    usage = {"input_tokens": 3, "cache_read_input_tokens": 1400}
    _, reply = assembled(anthropic(), [start(usage), *finish()])
    assert reply.usage["cache_read_input_tokens"] == 1400


def test_anthropic_usage_counts_that_are_not_numbers_are_left_out():
    events = [start({"input_tokens": "many"}),
              {"type": "message_delta", "delta": {}, "usage": {"output_tokens": None}},
              {"type": "message_stop"}]
    _, reply = assembled(anthropic(), events)
    assert reply.usage == {} and reply.stop_reason == "end_turn"


def test_anthropic_stop_reason_is_the_last_one_given_and_kept_as_text():
    events = [start(), {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}},
              {"type": "message_delta", "delta": {"stop_reason": None}},
              {"type": "message_stop"}]
    assert assembled(anthropic(), events)[1].stop_reason == "max_tokens"
    events = [start(), {"type": "message_delta", "delta": {"stop_reason": 7}},
              {"type": "message_stop"}]
    assert assembled(anthropic(), events)[1].stop_reason == "7"


def test_anthropic_events_and_deltas_it_does_not_use_are_passed_over():
    # a thinking block ends with a signature_delta; the API may add event types later
    signature = {"type": "content_block_delta", "index": 0,
                 "delta": {"type": "signature_delta", "signature": "EqQBCgIYAh"}}
    citation = {"type": "content_block_delta", "index": 0,
                "delta": {"type": "citations_delta", "citation": {"cited_text": "x"}}}
    unknown = [{"type": "annotation", "index": 0}, {"type": "zzz_new_event"},
               {"type": "ping"}, {"type": "content_block_stop", "index": 0}]
    searched = {"type": "content_block_start", "index": 1, "content_block": {
        "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}}
    shown, reply = assembled(anthropic(), [start(), signature, citation, *unknown, searched,
                                           text("ok"), *finish()])
    assert shown == ["ok"] and (reply.text, reply.reasoning) == ("ok", "")
    assert reply.tool_calls == []  # a server tool's result is no call for the loop to run


def test_anthropic_a_stream_without_message_stop_is_broken_off_and_may_be_retried():
    with pytest.raises(StreamBroke) as broke:
        list(anthropic()._assemble(wire([start(), text("Hi"), *finish()[:1]]), []))
    assert broke.value.retry


def test_anthropic_events_after_message_stop_are_not_read():
    _, reply = assembled(anthropic(), [start(), text("a"), *finish(), text("b")])
    assert reply.text == "a"


def test_anthropic_an_error_event_may_be_retried_and_a_wrong_shape_may_not():
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    with pytest.raises(StreamBroke) as broke:
        list(anthropic()._assemble(wire([start(), error]), []))
    assert broke.value.retry and "busy" in str(broke.value)
    with pytest.raises(StreamBroke) as broke:
        list(anthropic()._assemble(wire([start(), {"type": "content_block_delta"}]), []))
    assert not broke.value.retry


@pytest.mark.parametrize("odd", [
    {"type": "content_block_delta", "index": 0},  # no delta: a KeyError inside
    {"type": "message_start", "message": "not an object"},  # an AttributeError inside
    {"type": "content_block_delta", "index": 0,  # arguments that are a number: a TypeError
     "delta": {"type": "input_json_delta", "partial_json": 5}}])
def test_anthropic_an_event_of_any_unexpected_shape_is_one_stream_error(odd):
    events = [tool_start(0, "a", "clock"), odd, *finish()]
    with pytest.raises(StreamBroke) as broke:
        list(anthropic()._assemble(wire(events), []))
    assert not broke.value.retry


def test_anthropic_events_name_themselves_on_the_wire():
    assert anthropic().wire_kind({"type": "ping"}) == "ping"
    assert anthropic().wire_kind({}) == ""


# ---------------------------------------------------------------- Anthropic's request


def test_anthropic_request_carries_system_and_tools_only_when_given():
    bare = anthropic(max_tokens=321).request([{"role": "user", "content": "hi"}])
    assert "system" not in bare and "tools" not in bare
    assert (bare["model"], bare["max_tokens"], bare["stream"]) == ("claude-test", 321, True)
    assert bare["messages"] == [{"role": "user", "content": "hi"}]
    full = anthropic().request([{"role": "user", "content": "hi"}], "Be brief.", (TOOL,))
    assert full["system"] == [{"type": "text", "text": "Be brief."}]
    assert full["tools"] == [{"name": "calculator", "description": "Arithmetic.",
                              "input_schema": TOOL.schema}]


def test_anthropic_options_override_only_what_they_set_and_leave_the_request_alone():
    provider = anthropic(max_tokens=100)
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


def test_anthropic_a_model_the_api_does_not_know_is_not_available():
    class NotFound(Exception):
        pass

    def retrieve(model):
        if model != "claude-known":
            raise NotFound(model)
    provider = anthropic(model="claude-known")
    provider._sdk = SimpleNamespace(NotFoundError=NotFound)
    provider._client = SimpleNamespace(models=SimpleNamespace(retrieve=retrieve))
    assert provider._has_model() is True
    provider.model = "claude-unknown"
    assert provider._has_model() is False


# ---------------------------------------------------------------- OpenAI's chunks


def chunk(delta=None, finish_reason=None, **extra):
    return {"choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
            **extra}


def fragment(index=None, call_id=None, name=None, arguments=None):
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    part = {"function": function}
    if index is not None:
        part["index"] = index
    if call_id is not None:
        part["id"] = call_id
    return part


USAGE = {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 4}}


def test_openai_text_reasoning_and_usage_on_its_own_chunk():
    events = [chunk({"reasoning_content": "think"}), chunk({"reasoning": "more"}),
              chunk({"content": "Hi"}), chunk({"content": " there"}),
              chunk(finish_reason="stop"), USAGE]
    shown, reply = assembled(openai(), events)
    assert shown == ["think", "more", "Hi", " there"]
    assert [type(s) is Reasoning for s in shown] == [True, True, False, False]
    assert (reply.text, reply.reasoning, reply.stop_reason) == ("Hi there", "thinkmore",
                                                               "end_turn")
    assert reply.usage == {"input_tokens": 11, "output_tokens": 4}


def test_openai_typed_content_parts_split_into_text_and_thinking():
    parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "deep"}]},
             {"type": "text", "text": "answer"}]
    shown, reply = assembled(openai(), [chunk({"content": parts}), chunk(finish_reason="stop")])
    assert (reply.text, reply.reasoning) == ("answer", "deep")
    assert parts_text(parts) == "answer" and parts_text(parts, "thinking") == "deep"
    assert parts_text(["loose", {"type": "text", "text": None}]) == ""
    others = [{"type": "thinking", "text": "t"}, {"type": "text", "text": "a"},
              {"type": "refusal", "text": "r"}]
    assert parts_text(others) == "a"  # only parts of the kind asked for count


@pytest.mark.parametrize(("finish_reason", "stop"), [
    ("stop", "end_turn"), ("tool_calls", "tool_use"), ("length", "max_tokens"),
    ("content_filter", "content_filter")])
def test_openai_finish_reasons_become_tao_s_stop_reasons(finish_reason, stop):
    _, reply = assembled(openai(), [chunk({"content": "x"}), chunk(finish_reason=finish_reason)])
    assert reply.stop_reason == stop


@pytest.mark.parametrize("said", ["stop", "end_turn"])
def test_openai_tool_calls_ended_with_stop_are_a_tool_use_turn(said):
    events = [chunk({"tool_calls": [fragment(0, "c1", "calculator", '{"expression": "1"}')]}),
              chunk(finish_reason=said)]
    _, reply = assembled(openai(), events)
    assert reply.stop_reason == "tool_use" and reply.tool_calls[0].args == {"expression": "1"}
    events[-1] = chunk(finish_reason="length")
    assert assembled(openai(), events)[1].stop_reason == "max_tokens"


def test_openai_a_refusal_is_the_answer_shown_and_the_stop_reason():
    shown, reply = assembled(openai(), [chunk({"refusal": "I can't help."}),
                                        chunk(finish_reason="stop")])
    assert shown == ["I can't help."] and reply.text == "I can't help."
    assert reply.stop_reason == "refusal"


def test_openai_only_the_first_choice_is_read():
    two = {"choices": [{"delta": {"content": "one"}, "finish_reason": "stop"},
                       {"delta": {"content": "two"}, "finish_reason": "length"}]}
    _, reply = assembled(openai(), [two])
    assert (reply.text, reply.stop_reason) == ("one", "end_turn")


def test_openai_usage_on_the_finish_chunk_counts_and_no_usage_says_so():
    events = [chunk({"content": "x"}, "stop", usage={"prompt_tokens": 2,
                                                    "completion_tokens": 1})]
    assert assembled(openai(), events)[1].usage == {"input_tokens": 2, "output_tokens": 1}
    assert assembled(openai(), events[:0] + [chunk(finish_reason="stop")])[1].usage == {
        "not_reported": True}


def test_openai_a_stream_without_finish_reason_is_broken_off_and_may_be_retried():
    with pytest.raises(StreamBroke) as broke:
        list(openai()._assemble(wire([chunk({"content": "Hi"}), USAGE]), []))
    assert broke.value.retry


def test_openai_an_error_chunk_may_be_retried_and_a_wrong_shape_may_not():
    with pytest.raises(StreamBroke) as broke:
        list(openai()._assemble(wire([chunk({"content": "a"}),
                                      {"error": {"message": "model crashed"}}]), []))
    assert broke.value.retry and "model crashed" in str(broke.value)
    with pytest.raises(StreamBroke) as broke:
        list(openai()._assemble(wire([chunk({"content": 5}), chunk(finish_reason="stop")]), []))
    assert not broke.value.retry
    assert error_text({"message": "m"}) == "m" and error_text("plain") == "plain"
    assert error_text({"code": 1}) == {"code": 1}


@pytest.mark.parametrize("odd", [
    ["a", "list"],  # not an object: an AttributeError inside
    {"choices": [{"delta": "text, not an object"}]},  # likewise
    {"choices": [{"delta": {"content": 5}}]},  # a TypeError inside
    {"choices": [{"delta": {"tool_calls": ["not a fragment"]}}]}])
def test_openai_a_chunk_of_any_unexpected_shape_is_one_stream_error(odd):
    with pytest.raises(StreamBroke) as broke:
        list(openai()._assemble(wire([odd, chunk(finish_reason="stop")]), []))
    assert not broke.value.retry


def test_openai_a_finish_reason_that_is_not_text_is_kept_as_text():
    _, reply = assembled(openai(), [chunk({"content": "x"}, finish_reason=["stop"])])
    assert reply.stop_reason == '["stop"]'


# ---------------------------------------------------------------- OpenAI's usage


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


def test_openai_usage_with_either_count_is_reported_and_with_neither_says_so():
    assert reported({"output_tokens": 3}) == {"output_tokens": 3}
    assert reported({"input_tokens": 0}) == {"input_tokens": 0}
    assert reported({"input_tokens": None, "cache_read_input_tokens": 4}) == {
        "not_reported": True}
    assert reported({}) == {"not_reported": True}


# ---------------------------------------------------------------- OpenAI's request


def test_openai_request_puts_the_system_first_and_asks_for_usage_while_it_may():
    provider = openai(max_tokens=55)
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


@pytest.mark.parametrize(("model", "key"), [
    ("gpt-4o-mini", "max_completion_tokens"), ("o3-mini", "max_completion_tokens"),
    ("chatgpt-4o-latest", "max_completion_tokens"), ("llama3.2", "max_tokens"),
    ("my-gpt-4", "max_tokens"), ("qwen3:4b", "max_tokens")])
def test_openai_s_own_models_get_max_completion_tokens_and_others_max_tokens(model, key):
    params = openai(model=model, max_tokens=77).request([{"role": "user", "content": "hi"}])
    assert params[key] == 77
    assert len({"max_tokens", "max_completion_tokens"} & params.keys()) == 1
    assert openai(model=model).with_options(params, Options(max_tokens=5))[key] == 5


def test_openai_options_override_only_what_they_set_and_leave_the_request_alone():
    provider = openai()
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


# ---------------------------------------------------------------- OpenAI's tool calls


def calls(*fragments):
    assembler = ToolCallAssembler()
    for part in fragments:  # each from its own chunk, decoded as it arrives
        assembler.add(json.loads(json.dumps(part)))
    return [(c.id, c.name, c.args) for c in assembler.calls()]


def test_fragments_join_their_call_by_index_and_calls_keep_their_order():
    assert calls(fragment(0, "c1", "calculator", ""), fragment(1, "c2", "clock", "{"),
                 fragment(0, None, None, '{"expression": '), fragment(1, None, None, "}"),
                 fragment(0, None, None, '"2"}')) == [
        ("c1", "calculator", {"expression": "2"}), ("c2", "clock", {})]


def test_fragments_without_an_index_join_the_call_in_progress():
    assert calls(fragment(None, "c1", "calculator", '{"expression"'),
                 fragment(None, None, None, ': "3"}'),
                 fragment(None, "c2", "clock", "{}")) == [
        ("c1", "calculator", {"expression": "3"}), ("c2", "clock", {})]


def test_interleaved_calls_without_an_index_are_joined_by_their_ids():
    assert calls(fragment(None, "c1", "calculator", '{"expression": '),
                 fragment(None, "c2", "clock", "{}"),
                 fragment(None, "c1", None, '"6"}')) == [
        ("c1", "calculator", {"expression": "6"}), ("c2", "clock", {})]


def test_one_id_at_two_indexes_continued_at_both_stays_two_calls():
    got = calls(fragment(0, "same", "calculator", '{"expression": '),
                fragment(1, "same", "clock", '{"zone": '),
                fragment(0, "same", None, '"7"}'), fragment(1, "same", None, '"UTC"}'))
    assert [(n, a) for _, n, a in got] == [("calculator", {"expression": "7"}),
                                          ("clock", {"zone": "UTC"})]


def test_the_same_whole_call_twice_without_ids_is_asked_twice():
    twice = calls(fragment(0, None, "clock", '{"zone": "UTC"}'),
                  fragment(0, None, "clock", '{"zone": "UTC"}'))
    assert [(n, a) for _, n, a in twice] == [("clock", {"zone": "UTC"})] * 2
    assert len({i for i, _, _ in twice}) == 2


def test_a_made_up_id_never_takes_a_real_one_however_long_the_ids():
    got = calls(fragment(0, "", "a", "{}"), fragment(1, "", "b", "{}"),
                fragment(2, "call_tao_1", "c", "{}"))
    assert got[2][0] == "call_tao_1"  # the real id stays: its result is threaded back by it
    long_id = "x" * 60
    real = "x" * 34 + "_2"
    got = calls(fragment(0, long_id, "a", "{}"), fragment(1, long_id, "b", "{}"),
                fragment(2, real, "c", "{}"))
    assert got[2][0] == real and len({i for i, _, _ in got}) == 3


def test_whole_arguments_again_under_another_id_are_another_call_whichever_id_sorts_first():
    for first, second in (("c1", "c2"), ("c2", "c1")):
        got = calls(fragment(0, first, "calculator", '{"expression": "1"}'),
                    fragment(0, second, "calculator", '{"expression": "1"}'))
        assert [i for i, _, _ in got] == [first, second]


def test_an_id_repeated_on_each_fragment_continues_its_call():
    assert calls(fragment(0, "c1", "calculator", '{"expression": '),
                 fragment(0, "c1", "calculator", '"4"}')) == [
        ("c1", "calculator", {"expression": "4"})]


def test_a_new_id_at_a_used_index_is_a_new_call():
    assert calls(fragment(0, "c1", "calculator", '{"expression": "1"}'),
                 fragment(0, "c2", "calculator", '{"expression": "2"}')) == [
        ("c1", "calculator", {"expression": "1"}), ("c2", "calculator", {"expression": "2"})]


def test_one_id_at_two_indexes_is_two_calls_with_ids_made_unique():
    got = calls(fragment(0, "same", "calculator", '{"expression": "1"}'),
                fragment(1, "same", "clock", '{"zone": "UTC"}'))
    assert [(name, a) for _, name, a in got] == [("calculator", {"expression": "1"}),
                                                ("clock", {"zone": "UTC"})]
    assert len({i for i, _, _ in got}) == 2 and got[0][0] == "same"


def test_a_known_id_at_its_own_index_continues_even_after_another_call():
    assert calls(fragment(0, "c1", "calculator", '{"expression": '),
                 fragment(1, "c2", "clock", "{}"),
                 fragment(0, "c1", None, '"5"}')) == [
        ("c1", "calculator", {"expression": "5"}), ("c2", "clock", {})]


def test_another_tool_named_at_the_same_index_without_an_id_is_the_next_call():
    assert calls(fragment(0, None, "calculator", '{"expression": "1"}'),
                 fragment(0, None, "clock", "{}")) == [
        ("call_tao_1", "calculator", {"expression": "1"}), ("call_tao_2", "clock", {})]


@pytest.mark.parametrize(("first", "then"), [("clock", "calculator"), ("calculator", "clock")])
def test_another_tool_named_is_the_next_call_whichever_name_sorts_first(first, then):
    assert [n for _, n, _ in calls(fragment(0, None, first, "{}"),
                                   fragment(0, None, then, "{}"))] == [first, then]
    # its arguments may follow in later fragments: still the next call, not the first
    got = calls(fragment(0, None, first, '{"a": 1}'), fragment(0, None, then, ""),
                fragment(0, None, None, '{"b": 2}'))
    assert [(n, a) for _, n, a in got] == [(first, {"a": 1}), (then, {"b": 2})]


def test_the_same_tool_named_again_with_new_arguments_after_whole_ones_is_the_next_call():
    got = calls(fragment(0, None, "calculator", '{"expression": "1"}'),
                fragment(0, None, "calculator", '{"expression": "2"}'))
    assert [a for _, _, a in got] == [{"expression": "1"}, {"expression": "2"}]
    # arguments still open: the name repeated with more of them is the same call
    got = calls(fragment(0, None, "calculator", '{"expression": '),
                fragment(0, None, "calculator", '"2"}'))
    assert [a for _, _, a in got] == [{"expression": "2"}]


def test_a_whole_call_sent_again_is_one_call():
    whole = fragment(0, "c1", "calculator", '{"expression": "1"}')
    assert calls(whole, whole) == [("c1", "calculator", {"expression": "1"})]
    # with no name: the arguments alone repeated are the same call's too
    assert calls(whole, fragment(0, None, None, '{"expression": "1"}')) == [
        ("c1", "calculator", {"expression": "1"})]
    # another id with the same whole arguments is another call
    got = calls(whole, fragment(0, "c2", "calculator", '{"expression": "1"}'))
    assert [i for i, _, _ in got] == ["c1", "c2"]


def test_arguments_as_an_object_or_split_name_and_id_inside_function():
    got = calls({"index": 0, "function": {"id": "f1", "name": "clock",
                                          "arguments": {"zone": "UTC"}}})
    assert got == [("f1", "clock", {"zone": "UTC"})]
    got = calls({"index": 0, "id": "n", "function": {"name": {"odd": 1}, "arguments": "{}"}})
    assert got[0][1] == '{"odd": 1}'


def test_made_up_ids_never_collide_with_each_other_or_with_a_real_one():
    got = calls(fragment(0, "", "a", "{}"), fragment(1, "", "b", "{}"),
                fragment(2, "call_tao_1", "c", "{}"))
    ids = [i for i, _, _ in got]
    assert len(set(ids)) == 3 and "call_tao_1" in ids
    assert all(i.startswith("call_tao") for i in ids)


def test_a_long_id_repeated_is_cut_before_its_suffix():
    long_id = "x" * 60
    got = calls(fragment(0, long_id, "a", "{}"), fragment(1, long_id, "b", "{}"))
    assert got[0][0] == long_id and got[1][0] == "x" * 34 + "_2"


# ---------------------------------------------------------------- OpenAI's refusals


class StatusError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status_code, self.body = status, {"error": {"message": message}}
        self.response = SimpleNamespace(headers={})


class Completions:
    """The SDK's `chat.completions`: refuses with the errors queued, then streams."""

    def __init__(self, *errors):
        self.errors, self.sent = list(errors), []

    def create(self, **params):
        self.sent.append(params)
        if self.errors:
            raise self.errors.pop(0)
        return "a stream"


def opened(*errors, params=None):
    provider = openai()
    completions = Completions(*errors)
    provider._client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    provider._sdk = SimpleNamespace(APIStatusError=StatusError)
    notes = []
    provider.on_notice = notes.append
    params = params or {"model": "m", "messages": [], "max_tokens": 9, "stream": True,
                        "stream_options": {"include_usage": True}, "tools": [],
                        "stop": ["END"]}
    return provider, provider._open(params), completions.sent, notes


@pytest.mark.parametrize("status", [400, 422])
def test_a_server_refusing_stop_is_asked_again_without_it_and_it_is_remembered(status):
    provider, stream, sent, notes = opened(StatusError(status, "Unsupported: 'stop'"))
    assert stream == "a stream" and "stop" in sent[0]
    assert sent[1] == {k: v for k, v in sent[0].items() if k != "stop"}  # only stop left out
    assert provider.takes_stop is False and provider.include_usage and len(notes) == 1


@pytest.mark.parametrize(("status", "said"), [(400, "stream_options is unknown"),
                                              (422, "include_usage: extra field")])
def test_a_server_refusing_usage_in_the_stream_is_asked_again_without_it(status, said):
    provider, stream, sent, _ = opened(StatusError(status, said))
    assert stream == "a stream" and "stream_options" not in sent[-1]
    assert provider.include_usage is False and provider.takes_stop


@pytest.mark.parametrize("error", [
    StatusError(500, "Unsupported: 'stop' and stream_options"),
    StatusError(400, "the model is not loaded"),
    StatusError(404, "stream_options")])
def test_other_refusals_are_not_retried_here(error):
    with pytest.raises(StatusError):
        opened(error)


def test_a_refusal_of_stream_options_when_none_were_sent_is_not_retried():
    with pytest.raises(StatusError):
        opened(StatusError(400, "stream_options"), params={"model": "m"})


def test_a_server_that_lists_the_model_with_latest_has_it():
    provider = openai(model="llama3.2")
    models = [SimpleNamespace(id="llama3.2:latest"), SimpleNamespace(id="qwen3")]
    provider._client = SimpleNamespace(models=SimpleNamespace(list=lambda: models))
    assert provider._has_model()
    provider.model = "qwen3"
    assert provider._has_model()
    provider.model = "mistral"
    assert not provider._has_model()


@pytest.mark.parametrize(("status", "said", "own"), [
    (400, "Cannot use tools with stream", True), (422, "tool calls when streaming", True),
    (500, "TOOLS are not supported with STREAM=true", True),
    (501, "tool use in stream mode is not implemented", True),
    (503, "tools with stream: overloaded", False), (400, "stream broke, tools fine", False)])
def test_a_server_that_cannot_stream_tool_calls_is_told_apart(status, said, own):
    provider = openai()
    provider.key_var, provider.endpoint = "OPENAI_API_KEY", "http://127.0.0.1:8080"
    failure = provider._status_failure(StatusError(status, said))
    generic = OpenAIProvider.__mro__[1]._status_failure(provider, StatusError(status, said))
    assert (failure != generic) is own
    if own:
        assert not failure.retry


def test_a_repeated_name_with_no_arguments_after_whole_ones_is_the_same_call():
    assert calls(fragment(0, None, "clock", '{"zone": "UTC"}'),
                 fragment(0, None, "clock", "")) == [("call_tao_1", "clock", {"zone": "UTC"})]


@pytest.fixture
def built(monkeypatch):
    """Build a provider with stand-ins for its SDK: (the provider, the key it was given)."""
    given = []
    for name in ("anthropic", "openai"):
        monkeypatch.setitem(sys.modules, name, SimpleNamespace(Anthropic=object, OpenAI=object))
    for cls in (AnthropicProvider, OpenAIProvider):
        monkeypatch.setattr(cls, "_setup", lambda self, sdk, client, key, base_url, *rest:
                            given.append((key, base_url)))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)

    def build(cls, **kwargs):
        provider = cls(**kwargs)
        return provider, given[-1]
    return build


@pytest.mark.parametrize("cls", [AnthropicProvider, OpenAIProvider])
def test_the_key_given_wins_over_the_environment_s(built, monkeypatch, cls):
    monkeypatch.setenv(cls.key_var, "key-from-the-environment")
    assert built(cls, api_key="key-given")[1][0] == "key-given"
    assert built(cls)[1][0] == "key-from-the-environment"


def test_a_local_server_named_in_the_environment_needs_no_key(built, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    provider, (key, base_url) = built(OpenAIProvider)
    assert provider.base_url == base_url == "http://127.0.0.1:8080/v1" and key
    provider, (_, base_url) = built(OpenAIProvider, base_url="http://127.0.0.1:9/v1")
    assert base_url == "http://127.0.0.1:9/v1"  # the one given wins
