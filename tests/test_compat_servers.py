"""OpenAI-compatible servers stream tool calls their own way; each shape is replayed here
(shared/providers/compat.py copes with them): first in this process on a stand-in SDK,
then through the real SDK against the fake API.

Where each shape was seen (public code and issue trackers):
- Ollama: each call whole in one chunk, every call at `index: 0` with its own id
  (ollama/ollama#15457, fixed for clients in vercel/ai#14277); `finish_reason: "stop"`
  after tool calls (discussed in ollama/ollama#7963); thinking in `delta.reasoning`.
- vLLM: the next call reuses `index: 0` with a new id, its later fragments carry
  `id: ""`; SGLang repeats the call's id on every fragment (both compared in
  InternLM/lmdeploy#3412); `delta.reasoning_content` for reasoning models.
- llama.cpp's llama-server before ggml-org/llama.cpp#13800: the id inside `function`,
  the full name repeated on every fragment; older builds refuse tools with streaming
  ("Cannot use tools with stream", 500).
- LM Studio: tool calls with an empty id (lmstudio-ai/lmstudio-bug-tracker#830).
- Gemini's compatible endpoint and some proxies: no `index` at all (openai/openai-python#3246).
- Mistral refuses `stream_options` (422, openai/openai-agents-python#442), Databricks
  with 400 (anomalyco/opencode#4698).
- Mistral's reasoning models stream `content` as typed parts, `thinking` then `text`
  (openclaw/openclaw#68418, comet-ml/opik#8376).
- One id for two calls, from some models behind proxies (can1357/oh-my-pi#2055); and
  vLLM's end-of-stream flush repeating a call's id and name (vllm-project/vllm#44098),
  or its whole arguments (#51697, and lidge-jun/opencodex#361).
"""

from __future__ import annotations

import json

import pytest
from fake_api import FakeAPI, HTTPError, chat_chunk, chat_stream

from shared.providers import Options, ProviderError, Tool
from shared.providers.compat import ToolCallAssembler, parts_text, reported
from shared.providers.openai_provider import OpenAIProvider, ollama

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

NOW = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
           lambda args: "2026-01-01T00:00:00+00:00")
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: str(len(args["text"].split())))
TOOLS = {t.name: t for t in (NOW, WORDCOUNT)}
KEY = "sk-test-0123456789-secret"
PRESETS = ["openai", "ollama"]


def build(preset, api):
    """The openai provider or the ollama preset, pointed at the fake."""
    if preset == "ollama":
        return ollama(base_url=api.base_url)
    return OpenAIProvider(api_key=KEY, base_url=api.base_url)


def call(fn_name, args=None, **fields):
    """One tool-call fragment; `fields` sets id, index, or keys inside `function`."""
    function = {k.removeprefix("fn_"): v for k, v in fields.items() if k.startswith("fn_")}
    if fn_name is not None:
        function["name"] = fn_name
    if args is not None:
        function["arguments"] = args
    fragment = {k: v for k, v in fields.items() if not k.startswith("fn_")}
    fragment.setdefault("type", "function")
    return {**fragment, "function": function}


def calls_chunk(*fragments, finish=None, **extra):
    """A chunk whose delta carries these tool-call fragments."""
    return chat_chunk({"tool_calls": list(fragments)}, finish, **extra)


def round_trip(preset, sse):
    """Serve `sse`, run the tools, answer; return (reply, the fake API, the history).

    The follow-up request must be accepted: every id echoed back, arguments as JSON."""
    messages = [{"role": "user", "content": "what time is it, and count 'a b c'"}]
    with FakeAPI("openai") as api:
        api.queue(sse, chat_stream(chat_chunk({"content": "Done."}, "stop")))
        p = build(preset, api)
        reply = p.call(messages, "", list(TOOLS.values()))
        messages.append(reply.assistant_message())
        for c in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": c.id, "name": c.name,
                             "content": TOOLS[c.name].run(c.args) if not c.error else c.error})
        assert p.call(messages, "", list(TOOLS.values())).text == "Done."
    assert api.violations == [], api.violations
    return reply, api, messages


def shape(reply):
    """(name, args, error) of each call, for comparing."""
    return [(c.name, c.args, c.error) for c in reply.tool_calls]


TWO_CALLS = [("now", {}, ""), ("wordcount", {"text": "a b c"}, "")]


# ---------------------------------------------------------------- in this process
# The shapes above and their corners, on a stand-in SDK (the `sdk` fixture,
# fake_api/sdk.py): no real SDK start-up, so a mutation run of compat.py stops at the
# first failure early. Through the real SDK and the fake API, further down.

ASK = [{"role": "user", "content": "hi"}]
OK = chat_stream(chat_chunk({"content": "ok"}, "stop"))


def stand_in(model="gpt-test", **kwargs) -> OpenAIProvider:
    """The openai provider on the stand-in SDK; a retry, if any, at once."""
    provider = OpenAIProvider(model, api_key=KEY, **kwargs)
    provider.retry_base = 0
    return provider


def fragment(index=None, call_id=None, name=None, arguments=None):
    """One tool-call fragment with only the fields given."""
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    part = {"function": function}
    if index is not None:
        part["index"] = index
    if call_id is not None:
        part["id"] = call_id
    return part


def calls(*fragments):
    """(id, name, args) of each call the fragments assemble into."""
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
    real = "x" * 34 + "_2"  # what the repeated long id would be made up as
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


def test_a_repeated_name_with_no_arguments_after_whole_ones_is_the_same_call():
    assert calls(fragment(0, None, "clock", '{"zone": "UTC"}'),
                 fragment(0, None, "clock", "")) == [("call_tao_1", "clock", {"zone": "UTC"})]


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
    # the second call under one id is its _2, cut to stay under OpenAI's 40 characters
    assert got[0][0] == long_id and got[1][0] == "x" * 34 + "_2"


def test_typed_content_parts_split_into_text_and_thinking(sdk):
    parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "deep"}]},
             {"type": "text", "text": "answer"}]
    sdk.queue(chat_stream(chat_chunk({"content": parts}), chat_chunk({}, "stop")))
    reply = stand_in().call(ASK)
    assert (reply.text, reply.reasoning) == ("answer", "deep")
    assert parts_text(parts) == "answer" and parts_text(parts, "thinking") == "deep"
    assert parts_text(["loose", {"type": "text", "text": None}]) == ""
    others = [{"type": "thinking", "text": "t"}, {"type": "text", "text": "a"},
              {"type": "refusal", "text": "r"}]
    assert parts_text(others) == "a"  # only parts of the kind asked for count


def test_usage_with_either_count_is_reported_and_with_neither_says_so():
    assert reported({"output_tokens": 3}) == {"output_tokens": 3}
    assert reported({"input_tokens": 0}) == {"input_tokens": 0}
    assert reported({"input_tokens": None, "cache_read_input_tokens": 4}) == {
        "not_reported": True}
    assert reported({}) == {"not_reported": True}


@pytest.mark.parametrize(("model", "key"), [
    ("gpt-4o-mini", "max_completion_tokens"), ("o3-mini", "max_completion_tokens"),
    ("chatgpt-4o-latest", "max_completion_tokens"), ("llama3.2", "max_tokens"),
    ("my-gpt-4", "max_tokens"), ("qwen3:4b", "max_tokens")])
def test_openai_s_own_models_get_max_completion_tokens_and_others_max_tokens(sdk, model, key):
    provider = stand_in(model, max_tokens=77)
    params = provider.request(ASK)
    assert params[key] == 77
    assert len({"max_tokens", "max_completion_tokens"} & params.keys()) == 1
    assert provider.with_options(params, Options(max_tokens=5))[key] == 5


# ---- refusals of one field, sent again without it


@pytest.mark.parametrize("status", [400, 422])
def test_a_server_refusing_stop_is_asked_again_without_it_and_it_is_remembered(sdk, status):
    sdk.queue(sdk.APIStatusError(status, "Unsupported: 'stop'"), OK, OK)
    provider, notes = stand_in(), []
    provider.on_notice = notes.append
    assert provider.call(ASK, tools=[NOW], stop="END").text == "ok"
    first, again = sdk.requests
    assert "stop" in first and again == {k: v for k, v in first.items() if k != "stop"}
    assert provider.takes_stop is False and provider.include_usage and len(notes) == 1
    provider.call(ASK, stop="END")
    assert "stop" not in sdk.requests[-1] and len(sdk.requests) == 3  # remembered


@pytest.mark.parametrize(("status", "said"), [(400, "stream_options is unknown"),
                                              (422, "include_usage: extra field")])
def test_a_server_refusing_usage_in_the_stream_is_asked_again_without_it(sdk, status, said):
    sdk.queue(sdk.APIStatusError(status, said), OK)
    provider = stand_in()
    assert provider.call(ASK, stop="END").text == "ok"
    assert "stream_options" not in sdk.requests[-1] and "stop" in sdk.requests[-1]
    assert provider.include_usage is False and provider.takes_stop


@pytest.mark.parametrize(("status", "said"), [(500, "Unsupported: 'stop' and stream_options"),
                                              (400, "the model is not loaded"),
                                              (404, "stream_options")])
def test_other_refusals_are_not_sent_again_without_a_field(sdk, status, said):
    sdk.queue(sdk.APIStatusError(status, said))
    with pytest.raises(ProviderError):
        stand_in(max_retries=0).call(ASK, stop="END")
    assert len(sdk.requests) == 1


@pytest.mark.parametrize("said", ["stream_options", "Unsupported: 'stop'"])
def test_a_refusal_of_a_field_that_was_not_sent_is_an_error_of_its_own(sdk, said):
    sdk.queue(sdk.APIStatusError(400, said))
    provider = stand_in(max_retries=0)
    provider.include_usage = False  # no stream_options; and no stop asked for
    with pytest.raises(ProviderError, match=r"request refused \(400\)"):
        provider.call(ASK)
    assert len(sdk.requests) == 1 and provider.takes_stop


# ---- the server itself


def test_a_server_that_lists_the_model_with_latest_has_it(sdk):
    sdk.models = ["llama3.2:latest", "qwen3"]
    assert stand_in("llama3.2").model_available()
    assert stand_in("qwen3").model_available()
    assert not stand_in("mistral").model_available()


@pytest.mark.parametrize(("status", "said", "own"), [
    (400, "Cannot use tools with stream", True), (422, "tool calls when streaming", True),
    (500, "TOOLS are not supported with STREAM=true", True),
    (501, "tool use in stream mode is not implemented", True),
    (503, "tools with stream: overloaded", False), (400, "stream broke, tools fine", False)])
def test_a_server_that_cannot_stream_tool_calls_is_told_apart(sdk, status, said, own):
    sdk.queue(sdk.APIStatusError(status, said), OK)
    try:
        stand_in(max_retries=1).call(ASK, tools=[NOW])
        shown = ""
    except ProviderError as exc:
        shown = str(exc)
    assert ("cannot stream tool calls" in shown) is own
    if own:
        assert len(sdk.requests) == 1  # never retried: the next answer would be the same


# ---------------------------------------------------------------- through the real SDK


@pytest.mark.parametrize("preset", PRESETS)
def test_ollama_whole_calls_all_at_index_0_with_finish_stop(preset):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": ""}),
        calls_chunk(call("now", "{}", id="call_o1", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="call_o2", index=0)),
        chat_chunk({}, "stop"))
    reply, api, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["call_o1", "call_o2"]
    assert reply.stop_reason == "tool_use"  # "stop" after tool calls still means tool use


@pytest.mark.parametrize("preset", PRESETS)
def test_no_index_key_at_all(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="call_n1")),
        calls_chunk(call(None, "{}")),
        calls_chunk(call("wordcount", "", id="call_n2")),
        calls_chunk(call(None, '{"text": ')), calls_chunk(call(None, '"a b c"}')),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS


@pytest.mark.parametrize("preset", PRESETS)
def test_vllm_second_call_reuses_index_0_with_a_new_id(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="chatcmpl-tool-a", index=0)),
        calls_chunk(call(None, "{}", id="", index=0)),
        calls_chunk(call("wordcount", "", id="chatcmpl-tool-b", index=0)),
        calls_chunk(call(None, '{"text": "a', id="", index=0)),
        calls_chunk(call(None, ' b c"}', id="", index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["chatcmpl-tool-a", "chatcmpl-tool-b"]


@pytest.mark.parametrize("preset", PRESETS)
def test_sglang_id_and_name_repeated_on_every_fragment(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="0", index=0)),
        calls_chunk(call("now", "{}", id="0", index=0)),
        calls_chunk(call("wordcount", "", id="1", index=0)),
        calls_chunk(call("wordcount", '{"text": ', id="1", index=0)),
        calls_chunk(call("wordcount", '"a b c"}', id="1", index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS  # the name is not "wordcountwordcount..."


@pytest.mark.parametrize("preset", PRESETS)
def test_old_llama_cpp_id_inside_function(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", index=0, fn_id="lc-1")),
        calls_chunk(call("wordcount", '{"text"', index=1, fn_id="lc-2")),
        calls_chunk(call("wordcount", ': "a b c"}', index=1, fn_id="lc-2")),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["lc-1", "lc-2"]


@pytest.mark.parametrize("preset", PRESETS)
def test_empty_ids_are_made_up_unique_and_echoed_back(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", id="", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="", index=1)),
        chat_chunk({}, "tool_calls"))
    reply, api, _ = round_trip(preset, sse)
    ids = [c.id for c in reply.tool_calls]
    assert shape(reply) == TWO_CALLS
    assert all(ids) and len(set(ids)) == 2, ids
    follow_up = api.requests[-1]["messages"]
    assert [m["tool_call_id"] for m in follow_up if m["role"] == "tool"] == ids
    assert [c["id"] for c in follow_up[-3]["tool_calls"]] == ids


@pytest.mark.parametrize("preset", PRESETS)
def test_arguments_sent_as_an_object_not_a_string(preset):
    sse = chat_stream(
        calls_chunk(call("now", {}, id="call_j1", index=0)),
        calls_chunk(call("wordcount", {"text": "a b c"}, id="call_j2", index=1)),
        chat_chunk({}, "tool_calls"))
    reply, api, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    # sent back the documented way: arguments as a JSON string
    assert api.requests[-1]["messages"][-3]["tool_calls"][1]["function"]["arguments"] == (
        '{"text": "a b c"}')


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_deltas_stay_out_of_the_text_and_reach_their_callback(field):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": "", field: "The user wants"}),
        chat_chunk({"content": None, field: " a greeting."}),
        chat_chunk({"content": "Hello!"}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        text, thoughts = [], []
        p = ollama(base_url=api.base_url)
        reply = p.call([{"role": "user", "content": "hi"}], "", (), text.append,
                       on_reasoning_delta=thoughts.append)
        api.queue(sse)
        streamed = list(p.stream([{"role": "user", "content": "hi"}]))
    assert reply.text == "Hello!" and text == ["Hello!"] and streamed == ["Hello!"]
    assert thoughts == ["The user wants", " a greeting."]
    assert reply.reasoning == "The user wants a greeting."
    assert reply.assistant_message() == {"role": "assistant", "content": "Hello!"}


def test_a_server_that_sends_no_usage_gets_a_reply_that_says_so():
    # llama-cpp-python's server streams no usage at all (nor does it read stream_options)
    sse = chat_stream(chat_chunk({"content": "ok"}), chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}])
    assert reply.text == "ok" and reply.usage == {"not_reported": True}


def test_usage_on_the_finish_chunk():
    sse = chat_stream(chat_chunk({"content": "ok"}),
                      chat_chunk({}, "stop", usage={"prompt_tokens": 9, "completion_tokens": 1,
                                                    "total_tokens": 10}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}])
    assert reply.usage == {"input_tokens": 9, "output_tokens": 1}


@pytest.mark.parametrize("preset", PRESETS)
def test_an_error_that_ends_the_body_without_finish_or_done(preset):
    sse = chat_stream(chat_chunk({"content": "Partly"}),
                      (None, {"error": {"message": "model crashed: out of memory"}}),
                      done=False)
    with FakeAPI("openai") as api:
        api.queue(sse)
        with pytest.raises(ProviderError) as info:
            build(preset, api).call([{"role": "user", "content": "hi"}])
    assert "broke off mid-reply" in str(info.value) and info.value.partial == "Partly"


@pytest.mark.parametrize("preset", PRESETS)
def test_a_body_that_just_ends_without_finish_reason_is_broken_off(preset):
    with FakeAPI("openai") as api:
        api.queue(chat_stream(chat_chunk({"content": "Partly"}), done=True))
        with pytest.raises(ProviderError, match="broke off") as info:
            build(preset, api).call([{"role": "user", "content": "hi"}])
    assert info.value.partial == "Partly"


REFUSED_USAGE = HTTPError(422, {"object": "error", "message": {"detail": [
    {"type": "extra_forbidden", "loc": ["body", "stream_options", "include_usage"],
     "msg": "Extra inputs are not permitted", "input": True}]},
    "type": "invalid_request_error"})


def test_stream_options_refused_is_retried_without_it_and_remembered():
    with FakeAPI("openai") as api:
        api.queue(REFUSED_USAGE, chat_stream(chat_chunk({"content": "one"}, "stop")),
                  chat_stream(chat_chunk({"content": "two"}, "stop")))
        p = ollama(base_url=api.base_url)
        assert p.call([{"role": "user", "content": "hi"}]).text == "one"
        assert p.call([{"role": "user", "content": "again"}]).text == "two"
    assert ["stream_options" in body for body in api.requests] == [True, False, False]


def test_a_server_that_cannot_stream_tool_calls_says_so_once():
    refusal = HTTPError(500, {"error": {"code": 500, "message": "Cannot use tools with stream",
                                        "type": "server_error"}})
    with FakeAPI("openai") as api:
        api.queue(refusal, refusal, refusal)
        with pytest.raises(ProviderError) as info:
            ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}], "",
                                               [NOW])
    message = str(info.value)
    assert "cannot stream tool calls" in message and "before 07" in message
    assert len(api.requests) == 1  # not a passing overload: no retry


# ---- duplicate call ids: each call keeps its own name and arguments
# Seen in the wild: models behind some proxies emit one tool_call_id for two distinct
# calls (can1357/oh-my-pi#2055, openclaw/openclaw#40996); OpenAI then refuses the history
# ("Duplicate value for 'tool_call_id'", agno-agi/agno#5116).


@pytest.mark.parametrize("preset", PRESETS)
def test_two_calls_with_one_id_at_two_indexes_keep_their_own_names_and_arguments(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="call_dup", index=0)),
        calls_chunk(call("wordcount", "", id="call_dup", index=1)),
        calls_chunk(call(None, "{}", index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=1)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    ids = [c.id for c in reply.tool_calls]
    assert ids[0] == "call_dup" and len(set(ids)) == 2, ids  # results cannot be mixed up


@pytest.mark.parametrize("preset", PRESETS)
def test_two_whole_calls_with_one_id_at_index_0_are_two_calls(preset):
    """Ollama's shape (each call whole at index 0), with the id repeated."""
    sse = chat_stream(
        calls_chunk(call("now", "{}", id="call_same", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="call_same", index=0)),
        chat_chunk({}, "stop"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert len({c.id for c in reply.tool_calls}) == 2


@pytest.mark.parametrize("preset", PRESETS)
def test_a_whole_call_sent_again_under_its_id_is_one_call_not_two(preset):
    """vLLM's end-of-stream flush re-sends a call's id and name, and sometimes its
    arguments (vllm-project/vllm#44098, #51697): a call must never run twice for it."""
    whole = call("wordcount", '{"text": "a b c"}', id="call_once", index=0)
    sse = chat_stream(calls_chunk(whole), calls_chunk(dict(whole)), chat_chunk({}, "stop"))
    reply, _, messages = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]
    assert len([m for m in messages if m["role"] == "tool"]) == 1


@pytest.mark.parametrize("preset", PRESETS)
def test_whole_arguments_sent_twice_at_one_index_are_taken_once(preset):
    """The arguments whole in one fragment, then again (lidge-jun/opencodex#361; vLLM's
    xlam parser, vllm-project/vllm#51697): joined, they would be broken JSON."""
    sse = chat_stream(
        calls_chunk(call("wordcount", "", id="call_t", index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_flush_that_repeats_id_and_name_with_the_rest_of_the_arguments_continues(preset):
    """vllm-project/vllm#44098: the closing chunk repeats id, type and name with the
    remaining arguments."""
    sse = chat_stream(
        calls_chunk(call("wordcount", '{"text": ', id="call_f", index=0)),
        calls_chunk(call("wordcount", '"a b c"}', id="call_f", index=0), finish="tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_new_name_at_a_known_index_without_an_id_is_a_new_call(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS


# ---- refusals: openai-python's ChoiceDelta has `refusal`, and finish_reason may be
# "content_filter"; a refusal streams in `delta.refusal` with finish_reason "stop"
# (vercel/ai reports the same: @ai-sdk/openai 3.0.138 surfaces it as text).


def test_content_filter_with_tool_calls_is_not_made_a_tool_use():
    sse = chat_stream(calls_chunk(call("now", "{}", id="call_cf", index=0)),
                      chat_chunk({}, "content_filter"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", [NOW])
    assert reply.stop_reason == "content_filter"  # stages 09-10 run no call it carries


@pytest.mark.parametrize("before", ["", "Sure, "])
def test_a_refusal_streams_as_shown_text_and_stops_with_refusal(before):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": before or None, "refusal": None}),
        chat_chunk({"refusal": "I can't help"}), chat_chunk({"refusal": " with that."}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        seen = []
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", (),
                                          seen.append)
    assert "".join(seen) == reply.text == before + "I can't help with that."
    assert reply.stop_reason == "refusal"


def test_a_refusal_next_to_tool_calls_stops_with_refusal():
    sse = chat_stream(chat_chunk({"refusal": "No."}),
                      calls_chunk(call("now", "{}", id="call_r", index=0)),
                      chat_chunk({}, "tool_calls"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", [NOW])
    assert reply.stop_reason == "refusal"


# ---- content as a list of typed parts: Mistral's reasoning models stream a `thinking`
# part then `text` parts (seen by openclaw/openclaw#68418, comet-ml/opik#8376); other
# relays send [{"type": "text", ...}] alone (NousResearch/hermes-agent#64047)


def test_content_sent_as_typed_parts_is_read_as_text_and_reasoning():
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "They greet me."}]}]}),
        chat_chunk({"content": [{"type": "text", "text": "Hello"}]}),
        chat_chunk({"content": [{"type": "text", "text": " there!"}, {"type": "image_url"}]}),
        chat_chunk({"content": "!"}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        seen, thoughts = [], []
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", (),
                                          seen.append, on_reasoning_delta=thoughts.append)
    assert reply.text == "Hello there!!" and "".join(seen) == reply.text
    assert reply.reasoning == "They greet me." and thoughts == ["They greet me."]
